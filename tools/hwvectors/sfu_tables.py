#!/usr/bin/env python3
"""Exhaustive tables of the GPU's special-function unit (MUFU) for the reference interpreter.

`rcp.approx`, `rsqrt.approx`, `sqrt.approx`, `lg2.approx` and `ex2.approx` are computed by the
special-function unit with interpolation tables that NVIDIA does not publish. Within one binade
the result depends only on the significand, so running the instruction on every significand of
one (or two) binades captures it completely; `div.full.f32` and `div.approx.f32` are built on
`rcp.approx.ftz.f32` (see `interp/src/float/approx.rs`), so the reciprocal table also makes them
exact.

Usage (on the GPU machine; needs CuPy and NumPy; takes well under a minute):

    python3 tools/hwvectors/sfu_tables.py --out $OUT/sfu

writes, per table, `NAME.u32.xz` (the outputs, little-endian u32, delta-coded: word i is
out[i] - out[i-1] mod 2^32 with out[-1] = 0, then xz-compressed; `decode()` below inverts it)
and one `tables.json` that describes every table (instruction, input formula, count, SHA-256 of
the decoded outputs) with a first analysis: the distance to the correctly rounded result where
one is cheap to compute exactly (reciprocal, reciprocal square root, square root) and the check
that other binades are the same table shifted (the exponent sweeps). `--self-test` runs the
encoding and the analysis on the correctly rounded values instead of the GPU (no CuPy needed).

Not written here: `interp/sfu/{sin,cos}.approx.f32.q0.u32.xz` (same encoding), the first
quadrant of `MUFU.SIN`/`MUFU.COS` indexed by the reduced argument n = floor(frac(|t|) * 2^25),
t = RZ(x * 0x3e22f983), were recorded by `probes/sfu_trig.py`, which also tests the reduction
and the quadrant rules. Their entries in `interp/sfu/tables.json` were added by hand: carry
them over when this script rewrites the file. `probes/trig_sweep.py` compares the
interpreter's sin/cos with the GPU on all 2^32 inputs. (`rsqrt.approx.f64.tsv` is from
`probes/rsqrt_f64.sh`.)
"""

import argparse
import hashlib
import json
import lzma
import os
import sys

HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n"

# Input generators, in PTX: %x (.b32) from the thread index %i and the parameters %base, %step.
#   "bits": %x = %base + %i                      (consecutive encodings: one binade's significands)
#   "grid": %x = f32(%i) * 2^-23 (negated if %step is 1)    (the fixed-point grid of (-1, 1))
INPUTS = {
    "bits": "add.u32 %x, %base, %i;",
    "grid": ("cvt.rn.f32.u32 %x, %i; mul.f32 %x, %x, 0f34000000;"
             " setp.eq.u32 %q, %step, 1; @%q neg.f32 %x, %x;"),
}

# name, instruction (on %y, %x), input kind, base, count, reference
F32_TABLES = [
    ("rcp.approx.ftz.f32", "rcp.approx.ftz.f32 %y, %x;", "bits", 0x3F800000, 1 << 23, "rcp"),
    ("rcp.approx.f32", "rcp.approx.f32 %y, %x;", "bits", 0x3F800000, 1 << 23, "rcp"),
    ("rsqrt.approx.ftz.f32", "rsqrt.approx.ftz.f32 %y, %x;", "bits", 0x3F800000, 1 << 24, "rsqrt"),
    ("sqrt.approx.ftz.f32", "sqrt.approx.ftz.f32 %y, %x;", "bits", 0x3F800000, 1 << 24, "sqrt"),
    ("lg2.approx.ftz.f32", "lg2.approx.ftz.f32 %y, %x;", "bits", 0x3F000000, 1 << 24, None),
    ("ex2.approx.ftz.f32.pos", "ex2.approx.ftz.f32 %y, %x;", "grid", 0, 1 << 23, None),
    ("ex2.approx.ftz.f32.neg", "ex2.approx.ftz.f32 %y, %x;", "grid", 1, 1 << 23, None),
]

# The f64 forms read the operand's upper word: %x is that word, the lower word is zero.
F64H_TABLES = [
    ("rcp.approx.ftz.f64", "rcp.approx.ftz.f64", 0x3FF00000, 1 << 20),
    ("rsqrt.approx.ftz.f64", "rsqrt.approx.ftz.f64", 0x3FF00000, 1 << 21),
]

# Half-precision functions, exhaustively: every 16-bit input (%x = i, i < 65536), the 16-bit
# result zero-extended. The interpreter looks these up directly (the .x2 forms per half).
HALF_TABLES = [
    ("ex2.approx.f16", "ex2.approx.f16"),
    ("ex2.approx.ftz.bf16", "ex2.approx.ftz.bf16"),
    ("tanh.approx.f16", "tanh.approx.f16"),
    ("tanh.approx.bf16", "tanh.approx.bf16"),
]

# Exponent sweeps: (table, exponent fields): the whole binade 2^(e-127) * [1, 2) is run and
# compared with the table shifted; the unit flushes subnormal results to zero.
SWEEPS = [
    ("rcp.approx.ftz.f32", [1, 2, 64, 100, 125, 126, 127, 128, 129, 200, 252, 253, 254]),
    ("rsqrt.approx.ftz.f32", [1, 2, 3, 100, 101, 127, 128, 129, 200, 253, 254]),
]


def kernel(body, inputs, f64h=False, half=False):
    if f64h:
        op = ("mov.b64 %d, {%z, %x}; " + body + " %e, %d; mov.b64 {%z, %y}, %e;")
    elif half:
        op = ("mov.b32 {%hx, %hz}, %x; " + body + " %hy, %hx; mov.b32 %y, {%hy, %hz0};"
              " and.b32 %y, %y, 65535;")
    else:
        op = body
    return HEADER + """.visible .entry k(.param .u64 p_out, .param .u32 p_base, .param .u32 p_n,
    .param .u32 p_step)
{
  .reg .pred %p, %q;
  .reg .b32 %i, %x, %y, %z, %t1, %t2, %t3, %base, %n, %step;
  .reg .b64 %o, %off, %d, %e;
  .reg .b16 %hx, %hy, %hz, %hz0;
  mov.u32 %t1, %tid.x;
  mov.u32 %t2, %ctaid.x;
  mov.u32 %t3, %ntid.x;
  mad.lo.u32 %i, %t2, %t3, %t1;
  ld.param.u32 %n, [p_n];
  setp.ge.u32 %p, %i, %n;
  @%p ret;
  ld.param.u32 %base, [p_base];
  ld.param.u32 %step, [p_step];
  mov.b32 %z, 0;
  mov.b16 %hz0, 0;
  """ + INPUTS[inputs] + """
  """ + op + """
  ld.param.u64 %o, [p_out];
  cvta.to.global.u64 %o, %o;
  mul.wide.u32 %off, %i, 4;
  add.s64 %o, %o, %off;
  st.global.b32 [%o], %y;
  ret;
}
"""


def inputs_of(np, kind, base, n):
    i = np.arange(n, dtype=np.uint64)
    if kind == "bits":
        return (i + base).astype(np.uint32)
    x = (i.astype(np.float64) * 2.0 ** -23).astype(np.float32)
    if base == 1:
        x = -x
    return x.view(np.uint32)


def reference(np, kind, x):
    """Correctly rounded result (IEEE double operations, then one rounding to single: exact for
    the reciprocal and the square root; 1/sqrt goes through two correctly rounded double
    operations, which is exact unless the double result lands on a single midpoint)."""
    v = x.view(np.float32).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "rcp":
            r = 1.0 / v
        elif kind == "rsqrt":
            r = 1.0 / np.sqrt(v)
        else:
            r = np.sqrt(v)
    return r.astype(np.float32).view(np.uint32)


def encode(np, out):
    d = np.diff(out.astype(np.uint32), prepend=np.uint32(0)).astype(np.uint32)
    return lzma.compress(d.astype("<u4").tobytes(), preset=9 | lzma.PRESET_EXTREME)


def decode(np, blob):
    d = np.frombuffer(lzma.decompress(blob), dtype="<u4")
    return np.cumsum(d, dtype=np.uint64).astype(np.uint32)


def versus(np, hw, ref):
    """Distance in units in the last place of hw from the correctly rounded ref (same sign)."""
    k = hw.astype(np.int64) - ref.astype(np.int64)
    vals, counts = np.unique(k, return_counts=True)
    return {str(int(v)): int(c) for v, c in zip(vals, counts)}


class Gpu:
    def __init__(self):
        import cupy as cp
        import tempfile
        self.cp = cp
        self.dir = tempfile.mkdtemp()
        self.count = 0

    def run(self, ptx, n, base, step):
        cp = self.cp
        path = os.path.join(self.dir, "t%03d.ptx" % self.count)
        self.count += 1
        with open(path, "w") as f:
            f.write(ptx)
        fn = cp.RawModule(path=path).get_function("k")
        out = cp.zeros(n, dtype=cp.uint32)
        block = 256
        grid = (n + block - 1) // block
        fn((grid,), (block,), (out, cp.uint32(base), cp.uint32(n), cp.uint32(step)))
        cp.cuda.runtime.deviceSynchronize()
        return out.get()


class SelfTest:
    """Stands in for the GPU with the correctly rounded results (checks the script itself)."""

    def __init__(self, np):
        self.np = np
        self.table = {}

    def run(self, ptx, n, base, step):
        np = self.np
        if "rcp" in ptx or "rsqrt" in ptx or "sqrt" in ptx:
            kind = "rsqrt" if "rsqrt" in ptx else ("rcp" if "rcp" in ptx else "sqrt")
            if "f64" in ptx:
                x = (np.arange(n, dtype=np.uint64) + base) << np.uint64(32)
                v = x.view(np.float64)
                r = 1.0 / v if kind == "rcp" else 1.0 / np.sqrt(v)
                return (r.view(np.uint64) >> np.uint64(32)).astype(np.uint32)
            x = inputs_of(np, "bits", base, n)
            r = reference(np, kind, x)
            e = (r >> 23) & 0xFF
            return np.where(e == 0, r & 0x80000000, r).astype(np.uint32)
        return np.arange(n, dtype=np.uint32) * 3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for the tables")
    ap.add_argument("--only", action="append", default=[], help="table names to run")
    ap.add_argument("--self-test", action="store_true",
                    help="no GPU: use correctly rounded values (checks the script)")
    a = ap.parse_args()
    import numpy as np
    dev = SelfTest(np) if a.self_test else Gpu()
    os.makedirs(a.out, exist_ok=True)
    meta = {"device": "self-test" if a.self_test else "gpu",
            "encoding": "NAME.u32.xz: xz of little-endian u32 words d[i] = out[i] - out[i-1] "
                        "mod 2^32 (out[-1] = 0); out = cumulative sum mod 2^32",
            "tables": []}
    want = lambda name: not a.only or name in a.only
    outs = {}
    for name, body, kind, base, n, ref in F32_TABLES:
        if not want(name):
            continue
        # "bits": the base encoding; "grid": base 1 negates the inputs (the `step` parameter).
        hw = dev.run(kernel(body, kind), n, base if kind == "bits" else 0,
                     base if kind == "grid" else 0)
        x = inputs_of(np, kind, base, n)
        outs[name] = (x, hw)
        entry = {"name": name, "ptx": body, "inputs": kind, "base": "0x%08x" % base,
                 "count": n, "sha256": hashlib.sha256(hw.astype("<u4").tobytes()).hexdigest(),
                 "file": name + ".u32.xz"}
        if kind == "grid":
            entry["input_formula"] = "x[i] = %si * 2^-23" % ("-" if base == 1 else "")
        else:
            entry["input_formula"] = "bits(x[i]) = 0x%08x + i" % base
        if ref:
            entry["ulp_vs_correctly_rounded"] = versus(np, hw, reference(np, ref, x))
        blob = encode(np, hw)
        assert (decode(np, blob) == hw).all()
        with open(os.path.join(a.out, entry["file"]), "wb") as f:
            f.write(blob)
        entry["file_bytes"] = len(blob)
        meta["tables"].append(entry)
        print("%-24s %9d outputs, %8d bytes" % (name, n, len(blob)), file=sys.stderr)
    for name, inst, base, n in F64H_TABLES:
        if not want(name):
            continue
        hw = dev.run(kernel(inst, "bits", f64h=True), n, base, 0)
        entry = {"name": name, "ptx": inst, "inputs": "bits", "count": n,
                 "input_formula": "upper word of x[i] = 0x%08x + i, lower word 0" % base,
                 "output": "upper word of the result (the lower word is checked to be zero "
                           "by the hardware vectors)",
                 "sha256": hashlib.sha256(hw.astype("<u4").tobytes()).hexdigest(),
                 "file": name + ".u32.xz"}
        blob = encode(np, hw)
        with open(os.path.join(a.out, entry["file"]), "wb") as f:
            f.write(blob)
        entry["file_bytes"] = len(blob)
        meta["tables"].append(entry)
        print("%-24s %9d outputs, %8d bytes" % (name, n, len(blob)), file=sys.stderr)
    for name, inst in HALF_TABLES:
        if not want(name):
            continue
        n = 1 << 16
        hw = dev.run(kernel(inst, "bits", half=True), n, 0, 0)
        entry = {"name": name, "ptx": inst, "inputs": "bits", "count": n,
                 "input_formula": "bits(x[i]) = i (16-bit)",
                 "output": "the 16-bit result, zero-extended",
                 "sha256": hashlib.sha256(hw.astype("<u4").tobytes()).hexdigest(),
                 "file": name + ".u32.xz"}
        blob = encode(np, hw)
        with open(os.path.join(a.out, entry["file"]), "wb") as f:
            f.write(blob)
        entry["file_bytes"] = len(blob)
        meta["tables"].append(entry)
        print("%-24s %9d outputs, %8d bytes" % (name, n, len(blob)), file=sys.stderr)
    # Exponent sweeps: the binade 2^(e-127)[1,2) against the table shifted.
    sweeps = []
    for name, exps in SWEEPS:
        if name not in outs:
            continue
        body = [t for t in F32_TABLES if t[0] == name][0][1]
        _, table = outs[name]
        rsqrt = name.startswith("rsqrt")
        for e in exps:
            base = e << 23
            hw = dev.run(kernel(body, "bits"), 1 << 23, base, 0)
            if rsqrt:
                # 2^(e-127) * m: the table covers [1, 4); odd exponents use its upper half.
                odd = (e - 127) % 2
                t = table[(1 << 23) * odd:(1 << 23) * (odd + 1)].astype(np.int64)
                shift = (e - 127 - odd) // 2
            else:
                t = table.astype(np.int64)
                shift = e - 127
            pred = t - (shift << 23)
            ex = pred >> 23  # the exponent field after the shift (results are positive)
            pred = np.where(ex <= 0, 0, np.where(ex >= 0xFF, 0x7F800000, pred))
            pred = pred.astype(np.uint32)
            bad = np.nonzero(pred != hw)[0]
            sweeps.append({"table": name, "exponent_field": e, "mismatches": int(len(bad)),
                           "first": [["0x%08x" % (base + int(i)), "0x%08x" % int(hw[i]),
                                      "0x%08x" % int(pred[i])] for i in bad[:8]]})
            print("sweep %-22s e=%3d: %d mismatches" % (name, e, len(bad)), file=sys.stderr)
    meta["exponent_sweeps"] = sweeps
    with open(os.path.join(a.out, "tables.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print("wrote %s" % a.out, file=sys.stderr)


if __name__ == "__main__":
    main()
