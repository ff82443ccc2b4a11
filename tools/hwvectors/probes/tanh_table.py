#!/usr/bin/env python3
"""The measured `tanh.approx.f32` table, derived from a `tanh_dump.py` recording.

    python3 tools/hwvectors/probes/tanh_table.py DUMPDIR [--write]

DUMPDIR holds what `tanh_dump.py` wrote on the GPU machine (tanh_summary.txt, tanh_K.tar).
For every binade that is neither the identity nor a constant, the script finds the fewest top
significand bits m of which the result is a function (every input of the binade checked), and
prints the layout (exponent field, m, first entry). With --write it stores the table (the
result for each m-bit prefix, binades in increasing order) as
interp/sfu/tanh.approx.f32.u32.xz in the encoding of interp/sfu/tables.json and records it
there; interp/src/float/sfu.rs (`TANH_SEGMENTS`) must then carry the printed layout.
"""
import hashlib
import json
import lzma
import os
import sys
import tarfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
N = 1 << 23


def binades(dump):
    out = {}
    for name in sorted(os.listdir(dump)):
        if not (name.startswith("tanh_") and name.endswith(".tar")):
            continue
        with tarfile.open(os.path.join(dump, name)) as t:
            for m in t.getmembers():
                e = int(m.name[1:4])
                w = np.frombuffer(lzma.decompress(t.extractfile(m).read()), dtype=np.uint32)
                out[e] = np.cumsum(w, dtype=np.uint32)
    return out


def main():
    dump = sys.argv[1]
    ys = binades(dump)
    summary = open(os.path.join(dump, "tanh_summary.txt")).read().splitlines()
    for line in summary:
        if "sign:" in line or line.startswith("sign rule"):
            print(line)
    layout, parts = [], []
    for e in sorted(ys):
        if e == 255:  # infinity and NaN: handled by rule
            y = ys[e]
            print("e=255: +inf -> %08x, NaN -> %s" % (y[0], " ".join(
                "%08x" % v for v in np.unique(y[1:]))))
            continue
        y = ys[e]
        idx = np.arange(N)
        for m in range(1, 24):
            t = y[:: 1 << (23 - m)]
            if (t[idx >> (23 - m)] == y).all():
                break
        layout.append((e, m, sum(p.size for p in parts)))
        parts.append(t)
        print("e=%d: a function of the top %d significand bits (%d entries from %d)"
              % (e, m, t.size, layout[-1][2]))
    table = np.concatenate(parts)
    print("table: %d entries; layout %s" % (table.size, layout))
    if "--write" not in sys.argv:
        return
    w = np.diff(table, prepend=np.uint32(0)).astype(np.uint32)
    blob = lzma.compress(w.tobytes(), preset=9 | lzma.PRESET_EXTREME)
    name = "tanh.approx.f32.u32.xz"
    open(os.path.join(root, "interp", "sfu", name), "wb").write(blob)
    meta_path = os.path.join(root, "interp", "sfu", "tables.json")
    meta = json.load(open(meta_path))
    meta["tables"] = [t for t in meta["tables"] if t["name"] != "tanh.approx.f32"]
    meta["tables"].append({
        "name": "tanh.approx.f32",
        "ptx": "tanh.approx.f32 %y, %x;",
        "inputs": "prefix",
        "base": "0x3b800000",
        "count": int(table.size),
        "sha256": hashlib.sha256(table.tobytes()).hexdigest(),
        "file": name,
        "input_formula": "segments (exponent field e, m, first entry): entry first + k is the "
                         "result for every x of exponent field e whose top m significand bits "
                         "are k; " + ", ".join("(%d, %d, %d)" % s for s in layout),
        "file_bytes": len(blob),
        "recorded": "tools/hwvectors/probes/tanh_dump.py on an H200 (every f32 input), "
                    "tools/hwvectors/probes/tanh_table.py: the result is x itself for "
                    "exponent fields 0..118 (|x| < 2^-8, subnormals and zeros included), "
                    "1.0 for 130..254 and for infinity (|x| >= 8), 0x7fffffff for NaN, and "
                    "tanh(-x) = -tanh(x) on every input; between, a function of the top m "
                    "significand bits, m from 17 to 21 by binade (every input checked).",
    })
    open(meta_path, "w").write(json.dumps(meta, indent=1) + "\n")
    print("wrote", name, len(blob), "bytes")


if __name__ == "__main__":
    main()
