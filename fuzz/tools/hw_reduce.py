#!/usr/bin/env python3
"""Reduces a batch case that fails on the GPU to the instructions the failure needs.

usage (GPU machine): hw_reduce.py DIR CASE OUT.ptx [MATCH]

Loads DIR/CASE.ptx and its launch from DIR/launch.jsonl, checks that running it fails with an
error containing MATCH (default "illegal instruction", case-insensitive), then deletes body
lines one at a time (chunks first, then single lines), keeping a deletion whenever the kernel
still fails the same way. Each attempt runs in its own process, since a trap leaves the CUDA
context unusable (the driver API through `tools/hwvectors/cudrv.py`, which starts faster than
CuPy). Writes the smallest failing kernel to OUT.ptx (after every step) and prints how many lines it
kept. Labels, declarations and `ret` stay.
"""
import json
import os
import subprocess
import sys
import tempfile

RUN = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
import cudrv
c = json.loads(sys.argv[2])
try:
    drv = cudrv.Driver()
    f = drv.function(drv.load(open(sys.argv[1]).read()), "k")
    a = drv.alloc(bytes.fromhex(c["input"]))
    o = drv.alloc(b"\0" * c["out_len"])
    drv.launch(f, (c["grid"], 1, 1), (c["block"], 1, 1), [cudrv.u64(a), cudrv.u64(o)])
    print("ok")
except Exception as e:
    print("error", str(e))
"""
HWV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "hwvectors")


def fails(lines, launch, match):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        r = subprocess.run([sys.executable, "-c", RUN, path, json.dumps(launch), HWV],
                           capture_output=True, text=True, timeout=60)
        return match in (r.stdout + r.stderr).lower().replace("_", " ")
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(path)


def removable(line):
    s = line.strip()
    return bool(s) and not (s.startswith(".") or s.endswith(":") or s.startswith("ret")
                            or s in ("{", "}") or s.startswith("//"))


def main():
    d, case, out = sys.argv[1], sys.argv[2], sys.argv[3]
    match = (sys.argv[4] if len(sys.argv) > 4 else "illegal instruction").lower()
    launch = next(json.loads(l) for l in open(os.path.join(d, "launch.jsonl"))
                  if json.loads(l)["name"] == case)
    lines = open(os.path.join(d, case + ".ptx")).read().splitlines()
    if not fails(lines, launch, match):
        sys.exit("%s does not fail with %r" % (case, match))
    chunk = 32
    while chunk >= 1:
        i = 0
        while i < len(lines):
            idx = [j for j in range(i, min(i + chunk, len(lines))) if removable(lines[j])]
            if idx:
                trial = [l for j, l in enumerate(lines) if j not in idx]
                if fails(trial, launch, match):
                    lines = trial
                    # Kept as it goes: a run cut short still leaves its best kernel.
                    open(out, "w").write("\n".join(lines) + "\n")
                    continue
            i += chunk
        chunk //= 2
    open(out, "w").write("\n".join(lines) + "\n")
    print("%s: %d lines kept, %d instructions" % (case, len(lines),
                                                  sum(removable(l) for l in lines)))


if __name__ == "__main__":
    main()
