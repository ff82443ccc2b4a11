#!/usr/bin/env python3
"""Keeps a batch's kernels and the GPU's results as a self-contained replay file.

usage: hw_export.py DIR HWFILE OUT.jsonl.xz [--note TEXT]

DIR is a batch written by the `hw_batch` example, HWFILE what `hw_run.py`/`hw_run_all.py`
recorded for it on the GPU machine. Each line of OUT is one kernel: name, grid, block, the
input buffer (hex), the output length, the PTX text and the GPU's output buffer (hex); the
first line is `{"meta": ...}`. `tests/fuzzhw.rs` replays every file of corpus/fuzzhw/ in the
interpreter and compares whole output buffers, so the batch stays a test after the generator
changes. Kernels the GPU did not run (an error) are left out.
"""
import json
import lzma
import sys


def main():
    d, hwfile, out = sys.argv[1], sys.argv[2], sys.argv[3]
    note = sys.argv[sys.argv.index("--note") + 1] if "--note" in sys.argv else ""
    cases = {c["name"]: c for c in map(json.loads, open(f"{d}/cases.jsonl"))}
    lines = [json.dumps({"meta": {"batch": d, "note": note}})]
    kept = 0
    for r in map(json.loads, open(hwfile)):
        if "error" in r or r["name"] not in cases:
            continue
        c = cases[r["name"]]
        lines.append(json.dumps({
            "name": c["name"], "grid": c["grid"], "block": c["block"], "input": c["input"],
            "out_len": c["out_len"], "ptx": open(f"{d}/{c['name']}.ptx").read(), "gpu": r["hw"],
        }))
        kept += 1
    blob = lzma.compress(("\n".join(lines) + "\n").encode(), preset=9 | lzma.PRESET_EXTREME)
    open(out, "wb").write(blob)
    print(f"{kept} kernels, {len(blob)} bytes -> {out}")


if __name__ == "__main__":
    main()
