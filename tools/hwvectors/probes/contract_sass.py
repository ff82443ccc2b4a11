#!/usr/bin/env python3
"""The floating-point SASS ptxas makes of each contraction probe, for sm_90a and sm_80.

    python3 tools/hwvectors/probes/contract_sass.py CASES.jsonl OUT.txt

CASES.jsonl is gen.py's `contract` family (a --dry file does: only the PTX is read). Per case
and target, the arithmetic instructions of the SASS (FFMA/FMUL/FADD, HFMA2/HMUL2/HADD2,
DFMA/DMUL/DADD, FSEL, ...) with addresses and register numbers kept, or ptxas's error.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

KEEP = re.compile(r"\b(FFMA|FMUL|FADD|HFMA2|HMUL2|HADD2|DFMA|DMUL|DADD|FSEL|FMNMX|HMNMX2|"
                  r"DSETP|FSETP|HSETP2|PRMT|F2F|FSWZADD)\S*")
cases = [json.loads(l) for l in open(sys.argv[1])]
tmp = tempfile.mkdtemp()
out = []
for c in cases:
    for arch in ["sm_90a", "sm_80"]:
        src = c["ptx"].replace(".target sm_90a", ".target " + arch)
        p = os.path.join(tmp, "k.ptx")
        open(p, "w").write(src)
        r = subprocess.run(["ptxas", "-arch=" + arch, p, "-o", p + ".cubin"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            err = [l for l in (r.stderr + r.stdout).splitlines() if "rror" in l][:1]
            out.append("%s\t%s\tptxas-error\t%s" % (c["name"], arch, err[0] if err else ""))
            continue
        s = subprocess.run(["cuobjdump", "-sass", p + ".cubin"], capture_output=True,
                           text=True).stdout
        ins = []
        for line in s.splitlines():
            m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
            if m and KEEP.search(m.group(1)):
                ins.append(re.sub(r"\s+", " ", m.group(1)).strip())
        out.append("%s\t%s\t%s" % (c["name"], arch, " ; ".join(ins)))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("%d lines" % len(out))
