#!/usr/bin/env python3
"""Runs `expect: run` regression files on the GPU and compares the last buffer with `out:`.

usage (GPU machine): python3 tools/hwvectors/regress_check.py FILE.ptx...

Each file's `// RUN: ptx run --entry K --grid X[,Y,Z] --block X[,Y,Z] --arg ...` line is
launched as `ptx run` would launch it in the interpreter: `--arg zeros:N` and `--arg hex:HEX`
are device buffers, `--arg u32:V` / `u64:V` are scalars. The JIT is the driver's (the ptxas of
the installed CUDA). Prints `ok FILE`, or `FAIL FILE: ...` with the first differing words;
exits 1 if any file fails. Regression files whose `out:` was measured on a GPU name the tool
that measured it; this rechecks them.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudrv  # noqa: E402


def dims(s):
    v = [int(x) for x in s.split(",")]
    return tuple(v + [1] * (3 - len(v)))


def parse(path):
    text = open(path).read()
    run = re.search(r"^// RUN: ptx run (.*)$", text, re.M).group(1).split()
    out = bytes.fromhex("".join(re.findall(r"^// out: ([0-9a-f]*)$", text, re.M)))
    opts = {"args": []}
    it = iter(run)
    for w in it:
        v = next(it)
        if w == "--arg":
            opts["args"].append(v)
        else:
            opts[w.lstrip("-")] = v
    return text, opts, out


def check(drv, path):
    text, o, want = parse(path)
    f = drv.function(drv.load(text), o.get("entry", "k"))
    params, bufs = [], []
    for a in o["args"]:
        kind, _, v = a.partition(":")
        if kind == "zeros":
            bufs.append((drv.alloc(b"\0" * int(v)), int(v)))
            params.append(cudrv.u64(bufs[-1][0]))
        elif kind == "hex":
            data = bytes.fromhex(v)
            bufs.append((drv.alloc(data), len(data)))
            params.append(cudrv.u64(bufs[-1][0]))
        elif kind == "u32":
            params.append(cudrv.u32(int(v, 0)))
        elif kind == "u64":
            params.append(cudrv.u64(int(v, 0)))
        else:
            raise ValueError("argument %s is not supported here" % a)
    drv.launch(f, dims(o.get("grid", "1")), dims(o.get("block", "1")), params)
    got = drv.read(*bufs[-1])
    for p, _ in bufs:
        drv.free(p)
    if got == want:
        return None
    diffs = [k for k in range(0, len(want), 4) if got[k:k + 4] != want[k:k + 4]][:4]
    return "; ".join("byte %d: %s instead of %s" % (k, got[k:k + 4].hex(), want[k:k + 4].hex())
                     for k in diffs) or "length %d instead of %d" % (len(got), len(want))


def main():
    drv = cudrv.Driver()
    failed = 0
    for path in sys.argv[1:]:
        try:
            why = check(drv, path)
        except Exception as e:  # a JIT or launch error is a failure of that file
            why = str(e)
        if why:
            failed += 1
            print("FAIL %s: %s" % (path, why))
        else:
            print("ok %s" % path)
    print("%d passed, %d failed" % (len(sys.argv) - 1 - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
