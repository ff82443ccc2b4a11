#!/usr/bin/env python3
"""Runs a batch written by `cargo run -p ptx-ir-oracles --example hw_batch -- DIR` on the GPU.

usage: hw_run.py DIR OUTFILE

For each case of DIR/launch.jsonl: JIT-loads DIR/<name>.ptx through CuPy, launches `k(in, out)`
with the case's grid and block, and writes one JSON line to OUTFILE: the output buffer in hex,
or the error. Needs CuPy and a CUDA driver (the lent GPU machines have both).
"""
import json
import sys

import cupy as cp

# Exit status after a case that left the CUDA context unusable (its line is written).
STICKY = 3


def main():
    d, outfile = sys.argv[1], sys.argv[2]
    cases = [json.loads(l) for l in open(f"{d}/launch.jsonl")]
    with open(outfile, "w") as out:
        for c in cases:
            res = {"name": c["name"]}
            try:
                mod = cp.RawModule(path=f"{d}/{c['name']}.ptx")
                k = mod.get_function("k")
                inp = cp.asarray(bytearray.fromhex(c["input"]), dtype=cp.uint8)
                o = cp.zeros(c["out_len"], dtype=cp.uint8)
                k((c["grid"],), (c["block"],), (inp, o))
                cp.cuda.runtime.deviceSynchronize()
                res["hw"] = bytes(o.get()).hex()
            except Exception as e:  # noqa: BLE001 - record every failure
                res["error"] = str(e)[:500]
            out.write(json.dumps(res) + "\n")
            out.flush()
            if "error" in res and not usable():
                # A trap or fault leaves the context unusable: every later launch would fail.
                # `hw_run_all.py` goes on with the next case in a fresh process.
                sys.exit(STICKY)


def usable():
    try:
        cp.zeros(1, dtype=cp.uint8).get()
        cp.cuda.runtime.deviceSynchronize()
        return True
    except Exception:  # noqa: BLE001
        return False


if __name__ == "__main__":
    main()
