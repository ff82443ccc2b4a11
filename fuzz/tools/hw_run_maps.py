#!/usr/bin/env python3
"""Runs a batch written by the `hopper_batch` example on the GPU (driver API, tensor maps).

usage (GPU machine): hw_run_maps.py DIR OUTFILE

For each case of DIR/cases.jsonl: JIT-loads DIR/<name>.ptx, launches `k(in, out, tmaps...)`
with the case's grid and block (clusters come from `.reqnctapercluster` in the PTX), building
each tensor map from its `tmap:` description over the input (`buf=0`) or output (`buf=1`)
buffer, and writes one JSON line to OUTFILE: the output buffer in hex, or the error. A case
that leaves the CUDA context unusable (a trap) is recorded and the run goes on in a fresh
process.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "hwvectors"))


def desc(s):
    d = dict(kv.split("=", 1) for kv in s.split(","))
    lst = lambda k: [int(x) for x in d[k].split("x")] if k in d else None  # noqa: E731
    return int(d["buf"]), int(d.get("offset", "0")), {
        "type": d["type"], "dims": lst("dims"), "box": lst("box"), "strides": lst("strides"),
        "estrides": lst("estrides"), "swizzle": int(d.get("swizzle", "0").rstrip("B")),
        "fill": d.get("fill", "zero")}


def child(d, outfile, start):
    import cudrv
    drv = cudrv.Driver()
    cases = [json.loads(l) for l in open(os.path.join(d, "cases.jsonl"))]
    with open(outfile, "a") as out:
        for c in cases[start:]:
            res = {"name": c["name"]}
            try:
                f = drv.function(drv.load(open(os.path.join(d, c["name"] + ".ptx")).read()), "k")
                bufs = [drv.alloc(bytes.fromhex(c["input"])), drv.alloc(b"\0" * c["out_len"])]
                params = [cudrv.u64(b) for b in bufs]
                for t in c["tmaps"]:
                    buf, off, dsc = desc(t)
                    params.append(drv.tensor_map(bufs[buf] + off, dsc))
                drv.launch(f, (c["grid"], 1, 1), (c["block"], 1, 1), params)
                res["hw"] = drv.read(bufs[1], c["out_len"]).hex()
                for b in bufs:
                    drv.free(b)
            except Exception as e:  # noqa: BLE001 - record every failure
                res["error"] = str(e)[:500]
                if getattr(e, "sticky", False):
                    out.write(json.dumps(res) + "\n")
                    sys.exit(3)
            out.write(json.dumps(res) + "\n")
            out.flush()


def main():
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    d, outfile = sys.argv[1], sys.argv[2]
    total = sum(1 for _ in open(os.path.join(d, "cases.jsonl")))
    open(outfile, "w").close()
    while True:
        done = sum(1 for _ in open(outfile))
        if done >= total:
            break
        r = subprocess.run([sys.executable, __file__, "--child", d, outfile, str(done)])
        if sum(1 for _ in open(outfile)) == done:
            # The process died on this case without writing it.
            with open(outfile, "a") as o:
                name = json.loads(open(os.path.join(d, "cases.jsonl")).readlines()[done])["name"]
                o.write(json.dumps({"name": name, "error": "process died: rc %d" % r.returncode}) + "\n")


if __name__ == "__main__":
    main()
