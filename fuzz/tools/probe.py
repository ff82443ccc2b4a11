#!/usr/bin/env python3
"""Targeted hardware probes: single instructions over tables of special inputs (NaN payloads,
signaling NaNs, infinities, signed zeros, subnormals, range limits), run through CuPy on the GPU
machine. The results decided the reference's NaN, cvt and testp rules
(fuzz/refsem/src/eval.rs) and feed fuzz/tools/hw_regress.py, which writes
corpus/regress/ files.

usage: probe.py OUT.json
"""
import itertools
import json
import sys
import tempfile

import cupy as cp

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


def kernel(op, dt, st, nsrc, guard=None):
    """Thread i loads row i (three operands of type st), applies op, stores the result in
    out[8 * i]. With `guard`, the instruction is predicated on `tid != guard`; a predicate
    destination starts true on thread 0 only."""
    ssz = size(st)
    lines = [".version 8.7", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 in, .param .u64 out)", "{",
             f"  .reg {regtype(st)} %a<3>;", f"  .reg {regtype(dt)} %d;",
             "  .reg .b32 %t<3>; .reg .b64 %q<4>; .reg .pred %p; .reg .b16 %h;",
             "  ld.param.u64 %q0, [in]; ld.param.u64 %q1, [out];",
             "  mov.u32 %t0, %tid.x; mov.u32 %t1, %ctaid.x; mov.u32 %t2, %ntid.x; mad.lo.u32 %t0, %t1, %t2, %t0;",
             f"  mul.wide.u32 %q2, %t0, {ssz * 3}; add.s64 %q2, %q0, %q2;"]
    for i in range(nsrc):
        lines.append(f"  ld.global{'.f32' if st == 'f32' else '.f64'} %a{i}, [%q2+{i * ssz}];")
    lines.append("  mul.wide.u32 %q3, %t0, 8; add.s64 %q3, %q1, %q3;")
    if dt == 'pred':
        lines.append("  setp.eq.u32 %p, %t0, 0;")
        lines.append("  mov.pred %d, %p;")
    args = ", ".join(f"%a{i}" for i in range(nsrc))
    if guard is not None:
        lines.append(f"  setp.ne.u32 %p, %t0, {guard};")
        lines.append(f"  @%p {op} %d, {args};")
    else:
        lines.append(f"  {op} %d, {args};")
    if dt == 'pred':
        lines.append("  selp.u16 %h, 1, 0, %d; st.global.u8 [%q3], %h;")
    else:
        lines.append(f"  st.global.b{8 * size(dt)} [%q3], %d;")
    lines += ["  ret;", "}"]
    return "\n".join(lines)


def run(op, dt, st, rows, guard=None):
    nsrc = len(rows[0])
    src = kernel(op, dt, st, nsrc, guard)
    ssz, dsz = size(st), size(dt)
    buf = bytearray()
    for r in rows:
        for i in range(3):
            h = r[i] if i < len(r) else '0' * (2 * ssz)
            buf += int(h, 16).to_bytes(ssz, 'little')
    try:
        path = tempfile.mktemp(suffix='.ptx')
        open(path, 'w').write(src)
        k = cp.RawModule(path=path).get_function('k')
        inp = cp.asarray(buf, dtype=cp.uint8)
        out = cp.zeros(8 * len(rows), dtype=cp.uint8)
        k((1,), (len(rows),), (inp, out))
        cp.cuda.runtime.deviceSynchronize()
        o = bytes(out.get())
        return [(r, f"{int.from_bytes(o[8 * i:8 * i + dsz], 'little'):0{2 * dsz}x}") for i, r in enumerate(rows)]
    except Exception as e:  # noqa: BLE001 - record every failure
        return f"ERROR {e}"


def main():
    def pairs(vals, k=2):
        return [list(p) for p in itertools.product(vals, repeat=k)]

    out = {}
    nan64 = ['7ff8000000000000', 'fff80000deadbeef', '7ff4000000000001', 'fff4000000000002', '3ff0000000000000', '7ff0000000000000']
    for op in ['add.rn.f64', 'sub.rn.f64', 'mul.rn.f64', 'div.rn.f64', 'min.f64', 'max.f64', 'add.rz.f64', 'mul.rm.f64']:
        out[op] = run(op, 'f64', 'f64', pairs(nan64))
    out['fma.rn.f64'] = run('fma.rn.f64', 'f64', 'f64',
                            pairs(['7ff8000000000000', 'fff80000deadbeef', '7ff4000000000001', '3ff0000000000000'], 3))
    for op in ['neg.f64', 'abs.f64', 'sqrt.rn.f64', 'rcp.rn.f64', 'cvt.f64.f64', 'cvt.rni.f64.f64', 'cvt.sat.f64.f64', 'mov.f64']:
        out[op] = run(op, 'f64', 'f64', [[x] for x in F64])
    nan32 = ['7fc00000', 'ffc12345', '7fa00001', '3f800000']
    for op in ['min.f32', 'max.f32', 'min.NaN.f32', 'copysign.f32', 'add.f32', 'mul.rz.f32']:
        out[op] = run(op, 'f32', 'f32', pairs(nan32))
    out['copysign.f64'] = run('copysign.f64', 'f64', 'f64', pairs(['7ff8000000000000', 'fff4000000000002', 'bff0000000000000']))
    for op in ['neg.f32', 'abs.f32', 'neg.ftz.f32', 'abs.ftz.f32', 'cvt.f32.f32', 'cvt.sat.f32.f32', 'cvt.ftz.f32.f32',
               'cvt.rni.f32.f32', 'cvt.ftz.sat.f32.f32', 'sqrt.rn.f32', 'mov.f32']:
        out[op] = run(op, 'f32', 'f32', [[x] for x in F32])
    for op in ['cvt.f64.f32', 'cvt.ftz.f64.f32', 'cvt.sat.f64.f32']:
        out[op] = run(op, 'f64', 'f32', [[x] for x in F32])
    for r in ['rn', 'rz']:
        out[f'cvt.{r}.f32.f64'] = run(f'cvt.{r}.f32.f64', 'f32', 'f64', [[x] for x in F64])
        out[f'cvt.{r}.sat.f32.f64'] = run(f'cvt.{r}.sat.f32.f64', 'f32', 'f64', [[x] for x in F64])
    for it in ['s8', 'u8', 's16', 'u16', 's32', 'u32', 's64', 'u64']:
        for r in ['rni', 'rzi']:
            out[f'cvt.{r}.{it}.f32'] = run(f'cvt.{r}.{it}.f32', it, 'f32', [[x] for x in F32])
            out[f'cvt.{r}.{it}.f64'] = run(f'cvt.{r}.{it}.f64', it, 'f64', [[x] for x in F64])
        out[f'cvt.rzi.ftz.{it}.f32'] = run(f'cvt.rzi.ftz.{it}.f32', it, 'f32', [[x] for x in F32])
        out[f'cvt.rzi.sat.{it}.f64'] = run(f'cvt.rzi.sat.{it}.f64', it, 'f64', [[x] for x in F64])
    for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']:
        out[f'testp.{c}.f32'] = run(f'testp.{c}.f32', 'pred', 'f32', [[x] for x in F32])
        out[f'testp.{c}.f64'] = run(f'testp.{c}.f64', 'pred', 'f64', [[x] for x in F64])
        # Thread 1's guard is false: its destination must keep its initial value (false).
        out[f'@p testp.{c}.f32'] = run(f'testp.{c}.f32', 'pred', 'f32', [[x] for x in F32], guard=1)
    json.dump(out, open(sys.argv[1], 'w'), indent=0)
    print("done", len(out))


if __name__ == "__main__":
    main()
