#!/usr/bin/env python3
"""How ptxas lowers each shared::cluster reduction and atomic of hopper_probe.py's dsword.*
and dsrace.* probes: compiles each with `ptxas` for sm_90a and for sm_90 (the same PTX with `.target
sm_90`), disassembles it with `cuobjdump -sass` and prints, per probe and target, the memory
and atomic instructions the SASS holds (ATOMS, ATOM, RED, LD, ST, QSPC, CCTL ...), so that a
read-modify-write that is not atomic (a plain LD/LOP3/ST on the path for another CTA's shared
memory) shows. GPU machine (ptxas, cuobjdump):

    python3 tools/hwvectors/dsmem_sass.py > $OUT/dsmem_sass.txt
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hopper  # noqa: E402
import hopper_probe  # noqa: E402

MEM = re.compile(r"\b((?:ATOMS|ATOMG|ATOM|RED|REDG|LDS|STS|LDG|STG|LD|ST|QSPC|MEMBAR|ERRBAR|CCTL)"
                 r"(?:\.[A-Z0-9_]+)*)\b")


def lowering(ptx, arch):
    with tempfile.TemporaryDirectory() as d:
        src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run(["ptxas", "-arch=" + arch, src, "-o", cub], capture_output=True,
                           text=True)
        if r.returncode:
            return "ptxas: " + r.stderr.strip().replace("\n", " ")[:200]
        sass = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True,
                              text=True).stdout
    ops = []
    for line in sass.splitlines():
        for m in MEM.finditer(line.split(";")[0]):
            if not ops or ops[-1] != m.group(1):
                ops.append(m.group(1))
    return " ".join(ops)


def main():
    hopper.CASES.clear()
    hopper_probe.dsword_probes()
    hopper_probe.dsrace_probes()
    for c in hopper.CASES:
        for arch in ("sm_90a", "sm_90"):
            ptx = c["ptx"] if arch == "sm_90a" else c["ptx"].replace(".target sm_90a",
                                                                    ".target sm_90")
            print("%s %s: %s" % (c["name"], arch, lowering(ptx, arch)))


if __name__ == "__main__":
    main()
