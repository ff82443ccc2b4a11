#!/usr/bin/env python3
"""Narrow GPU probes for the Hopper cases that disagree or fail (issue 8).

Each probe is a hopper.py case run in its own process (an illegal instruction leaves the CUDA
context unusable, so one crash must not hide the others). For every probe the script writes one
line to `--log` (ok, or the CUDA error), and the recorded vectors of the probes that ran to
`--out` (vectors format: `ptx vectors` compares them with the interpreter). `--sass DIR` also
compiles each probe with `ptxas -arch=sm_90a` and disassembles it with `cuobjdump -sass`, which
shows how ptxas lowers an instruction (e.g. whether an FP8 `mma.sync` is a native tensor-core
instruction on sm_90 and whether a remote 64-bit `red` is one atomic).

Probes:

  tmap.*   the tensor-copy loads that stopped the H100 (tensor.3d.u8, tensor.3d.bf16,
           tensor.2d.f16.nanfill, tensor.2d.f16.padded) and variants that change one parameter
           each (inner box width, fill, strides, rank), to find which parameter is at fault
  tred.*   tensor reductions of every operation into maps of u32/s32/u64/s64 elements
  dsmem.*  the distributed-shared-memory 64-bit reduction of cluster.dsmem in isolation: red and
           atom, xor/or/add, b64/b32, remote and own rank
  dsword.* remote and own-rank shared::cluster reductions and atomics of every operation on
           32- and 64-bit words, one thread per word (so the result does not depend on whether
           ptxas makes the operation atomic)

Usage (GPU machine):

    python3 tools/hwvectors/hopper_probe.py --out $OUT/probe_h.jsonl --log $OUT/probe_h.log \
        [--sass $OUT/sass] [--only PREFIX]
    python3 tools/hwvectors/hopper_probe.py --repeat 200 --out $OUT/dsmem_repeat.jsonl --log -

`--out` is plain text (each probe process appends its line); the probes kept in the corpus are
compressed with `xz -9` into `corpus/vectors/hopper_probe.jsonl.xz`.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hopper  # noqa: E402
from hopper import addr, case, kernel, tensor_load_case  # noqa: E402


def tmap_probes():
    # The four that stopped the GPU, then one change at a time.
    tensor_load_case("tmap.3d.u8", "u8", [32, 5, 7], [16, 4, 3], [8, 2, 5])
    tensor_load_case("tmap.3d.u8.box32", "u8", [32, 5, 7], [32, 4, 3], [0, 2, 5])
    tensor_load_case("tmap.3d.u8.inb", "u8", [32, 5, 7], [16, 4, 3], [8, 1, 2])
    tensor_load_case("tmap.2d.u8", "u8", [32, 5], [16, 4], [8, 1])
    tensor_load_case("tmap.3d.u32", "u32", [32, 5, 7], [4, 4, 3], [8, 1, 2])
    tensor_load_case("tmap.3d.bf16", "bf16", [40, 6, 5], [8, 4, 4], [36, -1, 3])
    tensor_load_case("tmap.3d.bf16.inb", "bf16", [40, 6, 5], [8, 4, 4], [16, 1, 1])
    tensor_load_case("tmap.3d.bf16.box16", "bf16", [40, 6, 5], [16, 4, 4], [16, 1, 1])
    tensor_load_case("tmap.2d.f16.nanfill", "f16", [24, 6], [8, 4], [-4, 4], fill="nan")
    tensor_load_case("tmap.2d.f16.nanfill.inb", "f16", [24, 6], [8, 4], [8, 1], fill="nan")
    tensor_load_case("tmap.2d.f16.zerofill", "f16", [24, 6], [8, 4], [-4, 4])
    tensor_load_case("tmap.2d.f16.box16.nanfill", "f16", [24, 6], [16, 4], [-4, 4], fill="nan")
    tensor_load_case("tmap.2d.f16.padded", "f16", [20, 12], [8, 4], [6, 3], strides=[64])
    tensor_load_case("tmap.2d.f16.padded.box16", "f16", [20, 12], [16, 4], [6, 3], strides=[64])
    tensor_load_case("tmap.2d.f16.box8", "f16", [32, 12], [8, 4], [8, 3])
    tensor_load_case("tmap.2d.f32.box4", "f32", [32, 12], [4, 4], [8, 3])
    tensor_load_case("tmap.2d.f32.box8", "f32", [32, 12], [8, 4], [8, 3])


DSMEM_SH = "  .shared .align 8 .b32 vals[128];\n  .shared .align 8 .u64 cnt64;\n  .shared .align 8 .u32 cnt32;\n"


def dsmem_case(name, op, rank_expr):
    """Every thread of every CTA applies `op` (a PTX line using %r12 = the target counter's
    shared::cluster address, %rd5 = its 64-bit input, %r4 = its 32-bit input, %rd7/%r7 = the
    returned old value) to the counter of the CTA `rank_expr`; after a cluster barrier each
    thread records its input, the old value it got, and the target CTA's final counter."""
    body = """mov.u32 %r9, %cluster_ctarank;
mov.u32 %r8, %cluster_nctarank;
""" + addr("%rd1", "%ra", "%gid", 8) + """
ld.global.u64 %rd5, [%rd1];
cvt.u32.u64 %r4, %rd5;
setp.eq.u32 %p1, %tx, 0;
mov.u32 %r20, cnt64;
mov.u32 %r21, cnt32;
@%p1 st.shared.u64 [%r20], 0;
@%p1 st.shared.u32 [%r21], 0;
mov.u64 %rd7, 0;
mov.u32 %r7, 0;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
""" + rank_expr + """
mapa.shared::cluster.u32 %r12, %r20, %r5;
mapa.shared::cluster.u32 %r13, %r21, %r5;
""" + op + """
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
ld.shared.u64 %rd6, [%r20];
ld.shared.u32 %r14, [%r21];
cvt.u64.u32 %rd8, %r14;
cvt.u64.u32 %rd9, %r7;
mul.lo.u32 %r18, %gid, 5;
""" + addr("%rd2", "%ro", "%r18", 8) + """
st.global.u64 [%rd2], %rd5;
st.global.u64 [%rd2+8], %rd7;
st.global.u64 [%rd2+16], %rd9;
st.global.u64 [%rd2+24], %rd6;
st.global.u64 [%rd2+32], %rd8;
barrier.cluster.arrive;
barrier.cluster.wait;"""
    ins = [hopper.RNG.randrange(0, 1 << 24) | (hopper.RNG.randrange(0, 1 << 24) << 32)
           for _ in range(256)]
    case(name, "cluster", kernel(body, shared=DSMEM_SH, directives=".reqnctapercluster 4\n"),
         "u64", 4 * 64 * 5, ins=[("u64", 64, ins)], grid=(4, 1, 1), block=(64, 1, 1),
         cluster=(4, 1, 1))


def dsmem_probes():
    nxt = "add.u32 %r5, %r9, 1;\nrem.u32 %r5, %r5, %r8;"
    own = "mov.u32 %r5, %r9;"
    dsmem_case("dsmem.red.xor.b64.next", "red.shared::cluster.xor.b64 [%r12], %rd5;", nxt)
    dsmem_case("dsmem.red.xor.b64.own", "red.shared::cluster.xor.b64 [%r12], %rd5;", own)
    dsmem_case("dsmem.atom.xor.b64.next", "atom.shared::cluster.xor.b64 %rd7, [%r12], %rd5;", nxt)
    dsmem_case("dsmem.red.or.b64.next", "red.shared::cluster.or.b64 [%r12], %rd5;", nxt)
    dsmem_case("dsmem.red.and.b64.next", "red.shared::cluster.and.b64 [%r12], %rd5;", nxt)
    dsmem_case("dsmem.red.add.u64.next", "red.shared::cluster.add.u64 [%r12], %rd5;", nxt)
    dsmem_case("dsmem.red.xor.b32.next", "red.shared::cluster.xor.b32 [%r13], %r4;", nxt)
    dsmem_case("dsmem.atom.xor.b32.next", "atom.shared::cluster.xor.b32 %r7, [%r13], %r4;", nxt)
    dsmem_case("dsmem.atom.exch.b64.next", "atom.shared::cluster.exch.b64 %rd7, [%r12], %rd5;", nxt)
    dsmem_case("dsmem.atom.cas.b64.next",
               "atom.shared::cluster.cas.b64 %rd7, [%r12], 0, %rd5;", nxt)
    dsmem_case("dsmem.red.xor.b64.sem",
               "red.relaxed.cluster.shared::cluster.xor.b64 [%r12], %rd5;", nxt)


DSWORD_SH = "  .shared .align 8 .b64 words[64];\n"


def dsword_case(name, op, rank_expr, width, one_word=False, zeros=False):
    """Thread t of every CTA applies `op` (a PTX line using %r12 = the shared::cluster address
    of word t of the CTA `rank_expr`, %rd5/%r4 = its operand, %rd7/%r7 = the returned old
    value, %rd8/%r8 = a compare value for cas) to that word, which its owner initialised from
    the first input. One thread updates each word, so the outcome is the same whether the
    operation is atomic or a read-modify-write. Each thread records its operand, the old value
    it got and its own word's final value. With `one_word` every thread updates word 0 (the
    dsrace.* probes that repeat_dsmem runs: whether concurrent updates are lost); `zeros`
    initialises every word (and so every cas compare value) to 0."""
    body = """mov.u32 %r9, %cluster_ctarank;
mov.u32 %r10, %cluster_nctarank;
""" + addr("%rd1", "%ra", "%gid", 8) + """
ld.global.u64 %rd3, [%rd1];
""" + addr("%rd2", "%rb", "%gid", 8) + """
ld.global.u64 %rd5, [%rd2];
cvt.u32.u64 %r4, %rd5;
mov.u32 %r20, words;
shl.b32 %r21, %tx, 3;
add.u32 %r20, %r20, %r21;
st.shared.u64 [%r20], %rd3;
""" + ("mov.u32 %r20, words;\n" if one_word else "") + """
shr.u64 %rd8, %rd3, 1;
and.b64 %rd4, %rd5, 1;
setp.ne.b64 %p2, %rd4, 0;
selp.b64 %rd8, %rd3, %rd8, %p2;
cvt.u32.u64 %r8, %rd8;
mov.u64 %rd7, 0;
mov.u32 %r7, 0;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
""" + rank_expr + """
mapa.shared::cluster.u32 %r12, %r20, %r5;
""" + ("cvt.u64.u32 %rd13, %r20;\ncvta.shared.u64 %rd11, %rd13;\nmapa.u64 %rd12, %rd11, %r5;\n"
       if "%rd12" in op else "") + op + """
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
ld.shared.u64 %rd6, [%r20];
""" + ("cvt.u64.u32 %rd7, %r7;\n" if width == 32 else "") + """mul.lo.u32 %r18, %gid, 3;
""" + addr("%rd9", "%ro", "%r18", 8) + """
st.global.u64 [%rd9], %rd5;
st.global.u64 [%rd9+8], %rd7;
st.global.u64 [%rd9+16], %rd6;
barrier.cluster.arrive;
barrier.cluster.wait;"""
    rnd = hopper.RNG

    def word():
        # Small, large, negative and equal values, so min/max/inc/dec/cas take both ways.
        k = rnd.randrange(4)
        return [rnd.getrandbits(64), rnd.getrandbits(8), (1 << 64) - 1 - rnd.getrandbits(8),
                rnd.getrandbits(63)][k]
    ins = [0 if zeros else word() for _ in range(256)]
    ops = [word() for _ in range(256)]
    for i in range(0, 256, 7):
        ops[i] = ins[(i // 64 + 1) % 4 * 64 + i % 64]  # the target word's own value
    if zeros:
        ops = [o | 1 for o in ops]  # a cas that swaps changes the word
    case(name, "cluster", kernel(body, shared=DSWORD_SH, directives=".reqnctapercluster 4\n"),
         "u64", 4 * 64 * 3, ins=[("u64", 64, ins), ("u64", 64, ops)], grid=(4, 1, 1),
         block=(64, 1, 1), cluster=(4, 1, 1))


DSWORD_OPS = {
    64: [("and", "b64"), ("or", "b64"), ("xor", "b64"), ("add", "u64"), ("min", "u64"),
         ("max", "u64"), ("min", "s64"), ("max", "s64"), ("exch", "b64"), ("cas", "b64")],
    32: [("and", "b32"), ("or", "b32"), ("xor", "b32"), ("add", "u32"), ("min", "u32"),
         ("max", "u32"), ("min", "s32"), ("max", "s32"), ("inc", "u32"), ("dec", "u32"),
         ("exch", "b32"), ("cas", "b32")],
}


def dsword_probes():
    ranks = {"next": "add.u32 %r5, %r9, 1;\nrem.u32 %r5, %r5, %r10;", "own": "mov.u32 %r5, %r9;"}
    for width, ops in DSWORD_OPS.items():
        d, s, c = ("%rd7", "%rd5", "%rd8") if width == 64 else ("%r7", "%r4", "%r8")
        for op, ty in ops:
            for rk, expr in ranks.items():
                atom = "atom.shared::cluster.%s.%s %s, [%%r12], " % (op, ty, d)
                atom += ("%s, %s;" % (c, s)) if op == "cas" else s + ";"
                dsword_case("dsword.atom.%s.%s.%s" % (op, ty, rk), atom, expr, width)
                if op not in ("exch", "cas"):
                    dsword_case("dsword.red.%s.%s.%s" % (op, ty, rk),
                                "red.shared::cluster.%s.%s [%%r12], %s;" % (op, ty, s), expr,
                                width)
    nxt = ranks["next"]
    dsword_case("dsword.red.relaxed.xor.b64.next",
                "red.relaxed.cluster.shared::cluster.xor.b64 [%r12], %rd5;", nxt, 64)
    dsword_case("dsword.atom.acq_rel.or.b64.next",
                "atom.acq_rel.cluster.shared::cluster.or.b64 %rd7, [%r12], %rd5;", nxt, 64)


DSRACE_OPS = [("add", "u64"), ("and", "b64"), ("or", "b64"), ("xor", "b64"), ("min", "u64"),
              ("max", "u64"), ("min", "s64"), ("max", "s64"), ("exch", "b64"), ("cas", "b64"),
              ("add", "u32"), ("xor", "b32")]


def dsrace_probes():
    """Every thread of a CTA applies one atom to word 0 of the next CTA (dsword_case with
    `one_word`); cas starts from 0 and compares with 0, so one thread alone may succeed. The
    `.gen` ones address the word generically (`mapa.u64` of its generic address)."""
    nxt = "add.u32 %r5, %r9, 1;\nrem.u32 %r5, %r5, %r10;"
    for op, ty in DSRACE_OPS:
        width = 64 if ty.endswith("64") else 32
        d, s, c = ("%rd7", "%rd5", "%rd8") if width == 64 else ("%r7", "%r4", "%r8")
        atom = "atom.shared::cluster.%s.%s %s, [%%r12], " % (op, ty, d)
        atom += ("%s, %s;" % (c, s)) if op == "cas" else s + ";"
        dsword_case("dsrace.atom.%s.%s" % (op, ty), atom, nxt, width, one_word=True,
                    zeros=op == "cas")
    for op, ty in [("xor", "b64"), ("or", "b64"), ("max", "s64"), ("add", "u64")]:
        dsword_case("dsrace.atom.%s.%s.gen" % (op, ty), "atom.%s.%s %%rd7, [%%rd12], %%rd5;"
                    % (op, ty), nxt, 64, one_word=True)


def tred_probes():
    """Tensor reductions per map element type and operation: a generated-kernel batch trapped
    on `and`/`or`/`xor`/`min` into `s64` maps while `max` ran."""
    from hopper import rand_words, tmap_param
    ops = {"u32": ["add", "min", "max", "inc", "dec", "and", "or", "xor"],
           "s32": ["add", "min", "max", "and", "or", "xor"],
           "u64": ["add", "min", "max", "and", "or", "xor"],
           "s64": ["add", "min", "max", "and", "or", "xor"]}
    for ty, names in ops.items():
        eb = 8 if ty.endswith("64") else 4
        box = 128 // eb
        dims = [4 * box]
        nbytes = box * eb
        for red in names:
            sh = "  .shared .align 1024 .b8 sm[1024];\n"
            op = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.%s.tile.bulk_group" % red
            body = (tmap_param() + "mov.u32 %%r20, %d;\nmov.u32 %%r1, sm;\n" % box
                    + "mov.u32 %%r40, %%tx;\nL_f:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra L_fd;\n" % (nbytes // 4) +
                    addr("%rd30", "%ra", "%r40", 4) + "\nld.global.u32 %r43, [%rd30];\n"
                    "shl.b32 %r41, %r40, 2;\nadd.u32 %r42, %r1, %r41;\nst.shared.u32 [%r42], %r43;\n"
                    "add.u32 %r40, %r40, %nt;\nbra L_f;\nL_fd:\n"
                    "fence.proxy.async.shared::cta;\nbar.sync 0;\nsetp.eq.u32 %p1, %tx, 0;\n"
                    + "@%%p1 %s [%%rd10, {%%r20}], [%%r1];\n" % op +
                    "@%p1 cp.async.bulk.commit_group;\n@%p1 cp.async.bulk.wait_group 0;\n")
            tm = {"buffer": 0, "type": ty, "dims": dims, "box": [box], "swizzle": 0}
            case("tred.%s.%s" % (ty, red), "tensor", kernel(body, shared=sh, tmaps=1), "u32",
                 dims[0] * eb // 4, ins=[("u32", 32, rand_words(nbytes // 4))],
                 block=(128, 1, 1), tmaps=[tm])


def combine(op, ty):
    """The reduction of `op` on `ty` values (as unsigned words), or None for exch/cas."""
    bits = 64 if ty.endswith("64") else 32
    mask = (1 << bits) - 1

    def signed(v):
        return v - (1 << bits) if v >> (bits - 1) else v
    key = signed if ty.startswith("s") else (lambda v: v)
    return {"add": lambda a, b: (a + b) & mask, "and": lambda a, b: a & b,
            "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
            "min": lambda a, b: min(a, b, key=key), "max": lambda a, b: max(a, b, key=key),
            }.get(op)


def repeat_dsmem(path, n):
    """Runs each dsmem.* and dsrace.* probe (the threads of each CTA update one word of the
    next CTA) `n` times in this process and writes one JSON line per probe: how many distinct
    outputs the runs gave, and per run what each CTA's final word is made of: `all` (every
    operand of the updating CTA combined, as an atomic reduction gives), `one:T` (thread T's
    operand alone: the other updates were lost) or `other`; for the dsrace.* atoms also in how
    many (run, CTA) pairs an update was lost (`lost`): the final word is not every operand
    combined, or for exch the old values and the final word are not the initial word and the
    operands, or for cas not exactly one thread saw the initial 0."""
    import functools
    import cudrv
    drv = cudrv.Driver()
    with open(path, "w") as f:
        for c in hopper.CASES:
            name = c["name"]
            if not name.startswith(("dsmem.", "dsrace.")):
                continue
            race = name.startswith("dsrace.")
            stride = 3 if race else 5
            op, ty = name.split(".")[2:4]
            comb = combine(op, ty)
            mask = (1 << (64 if ty.endswith("64") else 32)) - 1
            ins = c["ins"][-1][2] if race else c["ins"][0][2]
            init = c["ins"][0][2]
            outs, kinds, lost = {}, {}, 0
            for _ in range(n):
                v = tuple(hopper.run_case(drv, c))
                outs[v] = outs.get(v, 0) + 1
                kind = []
                for cta in range(4):
                    at = cta * 64 * stride
                    final = v[at + (2 if race else 3)] & mask
                    base = (cta + 3) % 4 * 64
                    src = [x & mask for x in ins[base:base + 64]]
                    start = init[cta * 64] & mask if race else 0
                    if comb and final == functools.reduce(comb, src, start):
                        kind.append("all")
                    elif final in src:
                        kind.append("one:%d" % src.index(final))
                    else:
                        kind.append("other")
                    if race:
                        olds = [v[(base + t) * 3 + 1] & mask for t in range(64)]
                        if op == "exch":
                            ok = sorted(olds + [final]) == sorted(src + [start])
                        elif op == "cas":
                            ok = olds.count(0) == 1
                        else:
                            ok = kind[-1] == "all"
                        lost += not ok
                k = " ".join(kind)
                kinds[k] = kinds.get(k, 0) + 1
            line = {"name": name, "runs": n, "distinct": len(outs), "finals": kinds}
            if race:
                line["lost"] = lost
            f.write(json.dumps(line) + "\n")
            print(json.dumps(line))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--sass", help="directory for ptxas + cuobjdump -sass listings")
    ap.add_argument("--only", default="", help="run only probes whose name starts with this")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, metavar="N",
                    help="run the dsmem.* probes N times each and write to --out what their "
                    "final words are made of (repeat_dsmem); --log is not written")
    a = ap.parse_args()
    hopper.CASES.clear()
    tmap_probes()
    dsmem_probes()
    tred_probes()
    # After the others, which keep the random inputs they were recorded with.
    dsword_probes()
    dsrace_probes()
    if a.repeat:
        repeat_dsmem(a.out, a.repeat)
        return
    cases = [c for c in hopper.CASES if c["name"].startswith(a.only)]
    if a.one is not None:
        import cudrv
        c = cases[a.one]
        try:
            vals = hopper.run_case(cudrv.Driver(), c)
        except cudrv.CudaError as e:
            print("FAIL %s: %s" % (c["name"], str(e)[:500]))
            return
        with open(a.out, "a") as f:
            f.write(json.dumps(hopper.record(c, vals)) + "\n")
        print("ok   %s" % c["name"])
        return
    open(a.out, "w").close()
    with open(a.log, "w") as log:
        for i, c in enumerate(cases):
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--out", a.out,
                                "--log", a.log, "--only", a.only, "--one", str(i)],
                               capture_output=True, text=True, timeout=120)
            line = (r.stdout.strip() or "FAIL %s: exit %d %s" % (c["name"], r.returncode,
                                                                 r.stderr.strip()[-500:]))
            log.write(line + "\n")
            log.flush()
            print(line)
            if a.sass:
                os.makedirs(a.sass, exist_ok=True)
                ptx = os.path.join(a.sass, c["name"] + ".ptx")
                with open(ptx, "w") as f:
                    f.write(c["ptx"])
                cub = ptx[:-4] + ".cubin"
                subprocess.run(["ptxas", "-arch=sm_90a", ptx, "-o", cub], check=False)
                with open(ptx[:-4] + ".sass", "w") as f:
                    subprocess.run(["cuobjdump", "-sass", cub], stdout=f, check=False)


if __name__ == "__main__":
    main()
