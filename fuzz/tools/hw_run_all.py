#!/usr/bin/env python3
"""Runs a whole batch with `hw_run.py`, surviving kernels that kill the process.

usage: hw_run_all.py DIR OUTFILE [START]

Some generated kernels crash the PTX JIT itself (ptxas segfaults on them, and so does the
driver's JIT inside `hw_run.py`), and a kernel that traps leaves the CUDA context unusable
(`hw_run.py` then stops with status 3 after recording it). This runs `hw_run.py` on the cases from START on; when the
process dies, the case it died on is recorded as `{"name": ..., "error": "process died ..."}`
and a fresh process goes on with the next case. OUTFILE gets one line per case, in order.
"""
import json
import os
import subprocess
import sys


def main():
    d, out = sys.argv[1], sys.argv[2]
    start = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cases = open(os.path.join(d, "launch.jsonl")).readlines()
    run = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hw_run.py")
    i = start
    with open(out, "w") as o:
        while i < len(cases):
            sub = os.path.join(d, "part%d" % i)
            os.makedirs(sub, exist_ok=True)
            with open(os.path.join(sub, "launch.jsonl"), "w") as f:
                f.writelines(cases[i:])
            for line in cases[i:]:
                n = json.loads(line)["name"]
                link = os.path.join(sub, n + ".ptx")
                if not os.path.exists(link):
                    os.symlink(os.path.abspath(os.path.join(d, n + ".ptx")), link)
            res = os.path.join(sub, "out.jsonl")
            r = subprocess.run([sys.executable, run, sub, res], capture_output=True, text=True)
            got = open(res).readlines() if os.path.exists(res) else []
            o.writelines(got)
            i += len(got)
            # hw_run.py stops with status 3 after writing a case that broke the context.
            if i < len(cases) and r.returncode != 3:
                n = json.loads(cases[i])["name"]
                why = "process died: rc %d %s" % (r.returncode, r.stderr[-400:])
                o.write(json.dumps({"name": n, "error": why}) + "\n")
                i += 1
            o.flush()


if __name__ == "__main__":
    main()
