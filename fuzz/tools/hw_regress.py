#!/usr/bin/env python3
"""Writes corpus/regress/ files from hardware probe results.

usage: hw_regress.py PROBE_JSON OUT_DIR [--xfail]

PROBE_JSON is the output of fuzz/tools/probe.py (single instructions over tables of special
inputs, run on an H200). Each regression file holds one kernel that applies a few of the probed
instructions to every input row and stores each result in an 8-byte slot; its `out:` is what the
GPU produced. The xfail reasons given here are written only with --xfail; mark a file `xfail` (by
hand) only while the interpreter disagrees, and remove the line once it agrees.
"""
import json
import sys

F32 = ['7fc00000', 'ffc12345', '7fa00001', 'ffa00002', '3f800000', 'bf800000', '00000000', '80000000',
       '00000001', '807fffff', '7f800000', 'ff800000', '7f7fffff', '4f000000', 'cf000000', '5f800000', 'df000001', '4b800001']
F64 = ['7ff8000000000000', 'fff80000deadbeef', '7ff4000000000001', 'fff4000000000002', '3ff0000000000000',
       'bff0000000000000', '0000000000000000', '8000000000000000', '0000000000000001', '7ff0000000000000',
       'fff0000000000000', '41e0000000000000', 'c1e0000000000000', '43e0000000000000', 'c3e0000000000001', '7fefffffffffffff']


def regtype(t):
    if t in ('f32', 'f64'):
        return '.' + t
    if t == 'pred':
        return '.pred'
    return {8: '.b16', 16: '.b16', 32: '.b32', 64: '.b64'}[int(t[1:])]


def size(t):
    return {'f32': 4, 'f64': 8, 'pred': 1}.get(t) or max(int(t[1:]) // 8, 2)


def kernel(st, ops, nsrc):
    """ops: list of (instruction, dtype)."""
    ssz = size(st)
    n = len(ops)
    lines = [".version 8.7", ".target sm_90", ".address_size 64", "",
             ".visible .entry k(.param .u64 in, .param .u64 out)", "{",
             f"\t.reg {regtype(st)} %a<3>;", "\t.reg .b32 %t<3>;", "\t.reg .b64 %q<4>;", "\t.reg .b16 %h;"]
    for j, (_, dt) in enumerate(ops):
        lines.append(f"\t.reg {regtype(dt)} %d{j};")
    lines += ["\tld.param.u64 %q0, [in];", "\tld.param.u64 %q1, [out];", "\tmov.u32 %t0, %tid.x;",
              f"\tmul.wide.u32 %q2, %t0, {3 * ssz};", "\tadd.s64 %q2, %q0, %q2;"]
    for i in range(nsrc):
        lines.append(f"\tld.global{regtype(st) if st.startswith('f') else '.b' + str(8 * ssz)} %a{i}, [%q2+{i * ssz}];")
    lines += [f"\tmul.wide.u32 %q3, %t0, {8 * n};", "\tadd.s64 %q3, %q1, %q3;"]
    for j, (ins, dt) in enumerate(ops):
        k = nsrc
        args = ", ".join(f"%a{i}" for i in range(k))
        lines.append(f"\t{ins} %d{j}, {args};")
        if dt == 'pred':
            lines.append(f"\tselp.u16 %h, 1, 0, %d{j};")
            lines.append(f"\tst.global.u8 [%q3+{8 * j}], %h;")
        else:
            lines.append(f"\tst.global.b{8 * size(dt)} [%q3+{8 * j}], %d{j};")
    lines += ["\tret;", "}", ""]
    return "\n".join(lines)


def write(out_dir, name, summary, xfail, st, nsrc, ops, rows, results):
    """results[j][i]: hex output of op j on row i."""
    ssz = size(st)
    inp = bytearray()
    for r in rows:
        for i in range(3):
            h = r[i] if i < len(r) else '0' * (2 * ssz)
            inp += int(h, 16).to_bytes(ssz, 'little')
    out = bytearray()
    for i in range(len(rows)):
        for j, (_, dt, _) in enumerate(ops):
            slot = bytearray(8)
            v = int(results[j][i], 16)
            slot[:size(dt)] = v.to_bytes(size(dt), 'little')
            out += slot
    body = kernel(st, [(o, dt) for o, dt, _ in ops], nsrc)
    hexin, hexout = inp.hex(), out.hex()
    head = [f"// regress: {summary}", "// expect: run"]
    if xfail and "--xfail" in sys.argv:
        head.append(f"// xfail: {xfail}")
    head.append(f"// RUN: ptx run --entry k --grid 1 --block {len(rows)} --arg hex:{hexin} --arg zeros:{len(out)}")
    for k in range(0, len(hexout), 96):
        head.append(f"// out: {hexout[k:k + 96]}")
    open(f"{out_dir}/{name}", "w").write("\n".join(head) + "\n" + body)


def main():
    probe, out_dir = json.load(open(sys.argv[1])), sys.argv[2]

    def col(key):
        return [o for _, o in probe[key]]

    def rows_of(key):
        return [r for r, _ in probe[key]]

    hw = "expected values measured on an NVIDIA H200 (fuzz/tools/probe.py)"
    # Same-format cvt of NaN.
    write(out_dir, "interp_cvt_same_format_nan.ptx",
          f"interp_agree: cvt.f64.f64 without modifiers moves NaN unchanged, .rni quiets it (not the canonical NaN), .sat gives +0; cvt.f32.f32 moves it, .sat gives +0; {hw}",
          "the interpreter returns the canonical NaN for every same-format cvt of a NaN",
          'f64', 1, [("cvt.f64.f64", 'f64', None), ("cvt.rni.f64.f64", 'f64', None), ("cvt.sat.f64.f64", 'f64', None)],
          rows_of('cvt.f64.f64'), [col('cvt.f64.f64'), col('cvt.rni.f64.f64'), col('cvt.sat.f64.f64')])
    write(out_dir, "interp_cvt_same_format_nan_f32.ptx",
          f"interp_agree: cvt.f32.f32 without modifiers moves NaN (and subnormals) unchanged; .sat turns NaN into +0; {hw}",
          "the interpreter returns the canonical NaN for every same-format cvt of a NaN",
          'f32', 1, [("cvt.f32.f32", 'f32', None), ("cvt.sat.f32.f32", 'f32', None), ("cvt.ftz.f32.f32", 'f32', None),
                     ("cvt.rni.f32.f32", 'f32', None)],
          rows_of('cvt.f32.f32'), [col('cvt.f32.f32'), col('cvt.sat.f32.f32'), col('cvt.ftz.f32.f32'), col('cvt.rni.f32.f32')])
    write(out_dir, "interp_cvt_f64_f32_nan.ptx",
          f"interp_agree: cvt.f64.f32 keeps an f32 NaN's payload (quieted); with .ftz it widens the canonical f32 NaN; {hw}",
          "the interpreter returns the canonical f64 NaN",
          'f32', 1, [("cvt.f64.f32", 'f64', None), ("cvt.ftz.f64.f32", 'f64', None), ("cvt.sat.f64.f32", 'f64', None)],
          rows_of('cvt.f64.f32'), [col('cvt.f64.f32'), col('cvt.ftz.f64.f32'), col('cvt.sat.f64.f32')])
    ints = ['s8', 'u8', 's16', 'u16', 's32', 'u32', 's64', 'u64']
    write(out_dir, "interp_cvt_int_from_nan.ptx",
          f"interp_agree: float-to-integer cvt of an f64 NaN gives 1 << (width - 1) (0xff80 for .s8 in a .b16 register), of an f32 NaN 0 up to 32 bits and 1 << 63 for 64 bits; {hw}",
          "the interpreter maps every NaN to 0",
          'f64', 1, [(f"cvt.rni.{t}.f64", t, None) for t in ints],
          rows_of('cvt.rni.s8.f64'), [col(f'cvt.rni.{t}.f64') for t in ints])
    write(out_dir, "interp_cvt_int_from_nan_f32.ptx",
          f"interp_agree: float-to-integer cvt of an f32 NaN gives 0 up to 32 bits and 1 << 63 for 64 bits; {hw}",
          "the interpreter maps every NaN to 0",
          'f32', 1, [(f"cvt.rni.{t}.f32", t, None) for t in ints],
          rows_of('cvt.rni.s8.f32'), [col(f'cvt.rni.{t}.f32') for t in ints])
    write(out_dir, "interp_testp_normal_zero.ptx",
          f"interp_agree: testp.normal is true for +0 and -0 (PTX ISA: zero counts as normal); {hw}",
          "the interpreter's testp.normal is false for zero",
          'f32', 1, [(f"testp.{c}.f32", 'pred', None) for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']],
          rows_of('testp.normal.f32'), [col(f'testp.{c}.f32') for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']])
    write(out_dir, "interp_testp_normal_zero_f64.ptx",
          f"interp_agree: testp.normal.f64 is true for +0 and -0; {hw}",
          "the interpreter's testp.normal is false for zero",
          'f64', 1, [(f"testp.{c}.f64", 'pred', None) for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']],
          rows_of('testp.normal.f64'), [col(f'testp.{c}.f64') for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']])


if __name__ == "__main__":
    main()
