#!/usr/bin/env python3
"""Hardware-truth vectors for the Hopper instructions of the interpreter (issue 8).

Each case is a small sm_90a kernel with the vectors signature
`k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)` (plus 128-byte
tensor-map parameters when the case has `tmaps`), run on the GPU with deterministic inputs; the
output buffer (filled with 0xAB before the launch) is recorded. Families:

  async    cp.async (.ca 4/8/16, .cg 16, src-size, ignore-src), commit/wait_group, wait_all,
           cp.async.mbarrier.arrive (.noinc and not)
  mbarrier arrive counts, expect_tx/complete_tx, test_wait/try_wait (state and .parity),
           pending_count, arrive_drop, several phases
  bulk     cp.async.bulk global->shared::cta / shared::cluster (multicast) / shared::cta ->
           shared::cluster / shared::cta -> global (bulk_group), cp.reduce.async.bulk, prefetch
  tensor   cp.async.bulk.tensor tile 1D-5D loads (boxes, traversal strides, out-of-bounds
           zero and NaN fill, 32/64/128-byte swizzle, multicast), stores, reductions,
           prefetch.tensor
  cluster  cluster registers, barrier.cluster, mapa/getctarank, ld/st/atom/red on
           .shared::cluster, remote mbarrier arrive, elect.sync, griddepcontrol, fences
  misc     shared-memory atomics, bar.red, divergent recursion, indirect calls, elect.sync and
           redux.sync (integer) with partial masks, setmaxnreg, alloca/stacksave/stackrestore
           (the kernels of corpus/interp/alloca.ptx)
  ldmatrix ldmatrix/stmatrix (.x1/.x2/.x4, .trans), movmatrix
  mma      mma.sync f16/bf16/tf32/e4m3/e5m2/s8/u8/s4/f64 shapes
  wgmma    wgmma.mma_async f16/bf16/tf32/e4m3/e5m2/s8 with shared-memory descriptors
           (no swizzle, 32/64/128-byte swizzle, K- and MN-major) and A in registers
  wgmmab1  single-bit wgmma.mma_async (.and.popc), recorded apart (corpus/vectors/wgmmab1.jsonl.xz)
  im2col   cp.async.bulk.tensor .im2col loads (ranks 3-5, corners, offsets, traversal strides,
           partial channels, NaN fill, swizzled rows narrower than the span), prefetch,
           .im2col_no_offs stores and reductions, and tile-mode boxes whose rows are narrower
           than the swizzle span; recorded apart (corpus/vectors/im2col.jsonl)
  interleave  tile-mode copies of 16- and 32-byte interleaved maps (ranks 3-5, unit and box
           sizes, traversal strides, bounds, swizzles, NaN fill, stores; each load also counts
           the transaction bytes), recorded apart (corpus/vectors/interleave.jsonl)
  interleave_im2col  im2col copies of interleaved maps, recorded the same way
           (corpus/vectors/interleave_im2col.jsonl)

Usage (GPU machine; needs only the driver, libcuda.so.1):

    python3 tools/hwvectors/hopper.py --out corpus/vectors/hopper.jsonl.xz [--family NAME]...

`--list` prints the cases and `--dry PATH` writes them with zero outputs, for checking locally
that the interpreter reads and runs every kernel (`ptx vectors PATH`). Inputs are seeded.
"""

import argparse
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vecio import compress_out  # noqa: E402

HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n"
RNG = random.Random(20261123)
CASES = []


# ----------------------------------------------------------------------------- helpers

def hexs(vals, width):
    digits = max(width // 4, 2)
    return [format(v & ((1 << width) - 1), "0%dx" % digits) for v in vals]


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bf16(x):
    b = f32(x)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f64b(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def kernel(body, decls="", tmaps=0, directives="", shared=""):
    """A kernel: `%ro %ra %rb %rc` hold the four buffer addresses (generic = global),
    `%tx` = %tid.x, `%gid` = global linear thread index, `%bx` = %ctaid.x."""
    params = ".param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c"
    for i in range(tmaps):
        params += ", .param .align 64 .b8 tm%d[128]" % i
    return (HEADER + ".visible .entry k(" + params + ")\n" + directives + "{\n" +
            "  .reg .pred %p<16>;\n  .reg .b16 %h<16>;\n  .reg .b32 %r<64>;\n"
            "  .reg .b64 %rd<32>;\n  .reg .b32 %tx, %gid, %bx, %nt;\n"
            "  .reg .b64 %ro, %ra, %rb, %rc;\n" + shared + decls +
            "  ld.param.u64 %ro, [p_out];\n  ld.param.u64 %ra, [p_a];\n"
            "  ld.param.u64 %rb, [p_b];\n  ld.param.u64 %rc, [p_c];\n"
            "  mov.u32 %tx, %tid.x;\n  mov.u32 %bx, %ctaid.x;\n  mov.u32 %nt, %ntid.x;\n"
            "  mad.lo.u32 %gid, %bx, %nt, %tx;\n" +
            "  " + body.strip().replace("\n", "\n  ") + "\n  ret;\n}\n")


def case(name, family, ptx, out_type, n_out, ins=(), grid=(1, 1, 1), block=(32, 1, 1),
         cluster=None, shared=0, tmaps=()):
    """ins: list of (type name, width in bits, values)."""
    CASES.append({"name": name, "family": family, "ptx": ptx, "out": (out_type, n_out),
                  "ins": list(ins), "grid": list(grid), "block": list(block),
                  "cluster": list(cluster) if cluster else None, "shared": shared,
                  "tmaps": list(tmaps)})


WIDTH = {"u8": 8, "b8": 8, "u16": 16, "b16": 16, "f16": 16, "bf16": 16, "u32": 32, "b32": 32,
         "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "u64": 64, "b64": 64, "f64": 64}


def rand_words(n, width=32):
    return [RNG.getrandbits(width) for _ in range(n)]


# Thread-linear address helpers (PTX snippets).
def addr(dst, base, idx, scale):
    """dst = base + idx * scale (idx a .b32 register)."""
    return ("mul.wide.u32 %s, %s, %d;\nadd.s64 %s, %s, %s;" % (dst, idx, scale, dst, base, dst))


# ----------------------------------------------------------------------------- families

def fam_async():
    # Each thread copies 16 bytes with several cp.async forms into shared memory, waits, and
    # writes what a neighbour thread copied (the copies are visible after the wait and the
    # barrier).
    sh = "  .shared .align 16 .b8 sm[2048];\n"
    for form, size, extra in [("ca", 4, ""), ("ca", 8, ""), ("ca", 16, ""), ("cg", 16, ""),
                              ("cg", 16, ", %r9"), ("ca", 8, ", %r9"), ("ca", 16, ", %p3"),
                              ("cg", 16, ".L2::128B"), ("ca", 4, ".L2::cache_hint")]:
        hint = extra.startswith(".")
        opnd = "" if hint else extra
        mods = extra if hint else ""
        pol = ""
        if mods == ".L2::cache_hint":
            pol = ", %rd9"
        body = (addr("%rd1", "%ra", "%tx", size) + "\n" +
                "mov.u32 %%r1, sm;\nmul.lo.u32 %%r2, %%tx, %d;\nadd.u32 %%r3, %%r1, %%r2;\n" % size +
                # src-size: thread-dependent 0..size; ignore-src: odd threads
                "rem.u32 %%r9, %%tx, %d;\nand.b32 %%r10, %%tx, 1;\nsetp.eq.u32 %%p3, %%r10, 1;\n" % (size + 1) +
                "createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;\n" +
                "cp.async.%s.shared.global%s [%%r3], [%%rd1], %d%s%s;\n" % (form, mods, size, opnd, pol) +
                "cp.async.commit_group;\ncp.async.wait_group 0;\nbar.sync 0;\n" +
                "add.u32 %%r4, %%tx, 5;\nand.b32 %%r4, %%r4, 63;\nmul.lo.u32 %%r5, %%r4, %d;\n" % size +
                "add.u32 %r6, %r1, %r5;\n" +
                {4: "ld.shared.u32 %r7, [%r6];\n" + addr("%rd2", "%ro", "%tx", 4) + "\nst.global.u32 [%rd2], %r7;",
                 8: "ld.shared.v2.u32 {%r7, %r8}, [%r6];\n" + addr("%rd2", "%ro", "%tx", 8) + "\nst.global.v2.u32 [%rd2], {%r7, %r8};",
                 16: "ld.shared.v4.u32 {%r7, %r8, %r11, %r12}, [%r6];\n" + addr("%rd2", "%ro", "%tx", 16) + "\nst.global.v4.u32 [%rd2], {%r7, %r8, %r11, %r12};"}[size])
        nm = "cp.async.%s.%d%s" % (form, size, {"": "", ", %r9": ".src_size", ", %p3": ".ignore_src",
                                               ".L2::128B": ".prefetch128", ".L2::cache_hint": ".cache_hint"}[extra])
        case(nm, "async", kernel(body, shared=sh), "u32", 64 * size // 4,
             ins=[("u32", 32, rand_words(64 * size // 4))], block=(64, 1, 1))
    # Groups: three groups, wait_group 1 then 0; the result of each is read after its wait.
    body = ("mov.u32 %r1, sm;\nshl.b32 %r2, %tx, 4;\nadd.u32 %r3, %r1, %r2;\n" +
            addr("%rd1", "%ra", "%tx", 16) + "\n" +
            "cp.async.cg.shared.global [%r3], [%rd1], 16;\ncp.async.commit_group;\n"
            "add.s64 %rd3, %rd1, 1024;\nadd.u32 %r4, %r3, 1024;\n"
            "cp.async.cg.shared.global [%r4], [%rd3], 16;\ncp.async.commit_group;\n"
            "cp.async.wait_group 1;\nld.shared.u32 %r5, [%r3];\n"
            "cp.async.wait_all;\nld.shared.u32 %r6, [%r4+12];\nadd.u32 %r7, %r5, %r6;\n" +
            addr("%rd2", "%ro", "%tx", 4) + "\nst.global.u32 [%rd2], %r7;")
    case("cp.async.groups", "async", kernel(body, shared=sh), "u32", 64,
         ins=[("u32", 32, rand_words(512))], block=(64, 1, 1))
    # cp.async.mbarrier.arrive: with .noinc the init count includes the async arrivals.
    for noinc in (True, False):
        cnt = 128 if noinc else 64
        body = ("mov.u32 %r1, sm;\nmov.u32 %r20, bar;\nsetp.eq.u32 %p1, %tx, 0;\n"
                + "@%%p1 mbarrier.init.shared.b64 [%%r20], %d;\nbar.sync 0;\n" % cnt +
                "shl.b32 %r2, %tx, 3;\nadd.u32 %r3, %r1, %r2;\n" + addr("%rd1", "%ra", "%tx", 8) + "\n"
                "cp.async.ca.shared.global [%r3], [%rd1], 8;\n" +
                ("cp.async.mbarrier.arrive.noinc.shared.b64 [%r20];\n" if noinc else
                 "cp.async.mbarrier.arrive.shared.b64 [%r20];\n") +
                "mbarrier.arrive.shared.b64 %rd4, [%r20];\n"
                "L_w:\nmbarrier.try_wait.shared.b64 %p2, [%r20], %rd4;\n@!%p2 bra L_w;\n"
                "xor.b32 %r4, %tx, 33;\nshl.b32 %r5, %r4, 3;\nadd.u32 %r6, %r1, %r5;\n"
                "ld.shared.v2.u32 {%r7, %r8}, [%r6];\nxor.b32 %r9, %r7, %r8;\n" +
                addr("%rd2", "%ro", "%tx", 4) + "\nst.global.u32 [%rd2], %r9;")
        case("cp.async.mbarrier.arrive%s" % (".noinc" if noinc else ""), "async",
             kernel(body, shared=sh + "  .shared .align 8 .b64 bar;\n"), "u32", 64,
             ins=[("u32", 32, rand_words(128))], block=(64, 1, 1))


def fam_mbarrier():
    sh = "  .shared .align 8 .b64 bar[4];\n  .shared .align 4 .b32 data[256];\n"
    # Four phases of one object (count 64, 64 threads); only results that do not depend on the
    # order of the threads are recorded: pending_count of a .noComplete arrival ordered by a
    # barrier, waits on completed phases, waits on phases the thread itself has not arrived at,
    # a phase held back by a transaction count, arrive_drop.
    body = """mov.u32 %r1, bar;
setp.eq.u32 %p1, %tx, 0;
setp.eq.u32 %p8, %tx, 1;
@%p1 mbarrier.init.shared.b64 [%r1], 64;
bar.sync 0;
// phase 0: thread 0 arrives 5 without completing, then threads 1..59 once each
@%p1 mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], 5;
@%p1 mbarrier.pending_count.b64 %r3, %rd1;
@!%p1 mov.u32 %r3, 999;
bar.sync 0;
setp.lt.u32 %p2, %tx, 60;
not.pred %p3, %p1;
and.pred %p2, %p2, %p3;
@%p2 mbarrier.arrive.shared.b64 %rd9, [%r1];
L_w0:
mbarrier.try_wait.parity.shared.b64 %p4, [%r1], 0;
@!%p4 bra L_w0;
mbarrier.test_wait.parity.shared.b64 %p5, [%r1], 0;
mbarrier.test_wait.parity.shared.b64 %p6, [%r1], 1;
selp.u32 %r4, 1, 0, %p5;
selp.u32 %r5, 1, 0, %p6;
mov.u32 %r6, 7;
@%p1 mbarrier.test_wait.shared.b64 %p7, [%r1], %rd1;
@%p1 selp.u32 %r6, 1, 0, %p7;
// phase 1: every thread arrives once and waits on its own state
mbarrier.arrive.release.cta.shared.b64 %rd2, [%r1];
L_w1:
mbarrier.try_wait.acquire.cta.shared.b64 %p9, [%r1], %rd2;
@!%p9 bra L_w1;
mbarrier.test_wait.shared.b64 %p10, [%r1], %rd2;
selp.u32 %r7, 1, 0, %p10;
// phase 2: 256 transaction bytes expected before the arrivals, completed after them;
// thread 1 drops out
@%p1 mbarrier.expect_tx.relaxed.cta.shared.b64 [%r1], 256;
bar.sync 0;
@%p8 mbarrier.arrive_drop.shared.b64 %rd3, [%r1];
@!%p8 mbarrier.arrive.shared.b64 %rd3, [%r1];
mbarrier.test_wait.shared.b64 %p11, [%r1], %rd3;
selp.u32 %r8, 1, 0, %p11;
bar.sync 0;
@%p1 mbarrier.complete_tx.relaxed.cta.shared.b64 [%r1], 256;
L_w2:
mbarrier.try_wait.parity.shared.b64 %p12, [%r1], 0;
@!%p12 bra L_w2;
// phase 3: 63 arrivals complete it
@!%p8 mbarrier.arrive.shared.b64 %rd4, [%r1];
L_w3:
mbarrier.try_wait.parity.shared.b64 %p13, [%r1], 1;
@!%p13 bra L_w3;
mbarrier.test_wait.parity.shared.b64 %p14, [%r1], 1;
selp.u32 %r9, 1, 0, %p14;
shl.b32 %r10, %r4, 1;
or.b32 %r10, %r10, %r5;
shl.b32 %r10, %r10, 4;
or.b32 %r10, %r10, %r6;
shl.b32 %r10, %r10, 1;
or.b32 %r10, %r10, %r7;
shl.b32 %r10, %r10, 1;
or.b32 %r10, %r10, %r8;
shl.b32 %r10, %r10, 1;
or.b32 %r10, %r10, %r9;
""" + addr("%rd5", "%ro", "%tx", 8) + "\nst.global.v2.u32 [%rd5], {%r3, %r10};"
    case("mbarrier.phases", "mbarrier", kernel(body, shared=sh), "u32", 128, block=(64, 1, 1))
    # Producer/consumer over four rounds: warp 0 writes, arrives on `full`; warp 1 waits on
    # `full` (parity), reads a neighbour's word, arrives on `empty`, which warp 0 waits for
    # before writing again.
    body = """mov.u32 %r1, bar;
mov.u32 %r2, data;
setp.eq.u32 %p1, %tx, 0;
@%p1 mbarrier.init.shared.b64 [%r1], 32;
@%p1 mbarrier.init.shared.b64 [%r1+8], 32;
bar.sync 0;
and.b32 %r3, %tx, 31;
shl.b32 %r4, %r3, 2;
add.u32 %r5, %r2, %r4;
mov.u32 %r10, 0;
mov.u32 %r20, 0;
setp.ge.u32 %p2, %tx, 32;
""" + addr("%rd1", "%ra", "%tx", 4) + """
ld.global.u32 %r6, [%rd1];
@%p2 bra L_cons;
L_prod:
setp.eq.u32 %p3, %r10, 0;
@%p3 bra L_fill;
sub.u32 %r12, %r10, 1;
and.b32 %r12, %r12, 1;
L_we:
mbarrier.try_wait.parity.shared.b64 %p4, [%r1+8], %r12;
@!%p4 bra L_we;
L_fill:
mad.lo.u32 %r7, %r10, 1000, %r6;
st.shared.u32 [%r5], %r7;
mbarrier.arrive.shared.b64 _, [%r1];
add.u32 %r10, %r10, 1;
setp.lt.u32 %p6, %r10, 4;
@%p6 bra L_prod;
bra L_end;
L_cons:
and.b32 %r11, %r10, 1;
L_c:
mbarrier.try_wait.parity.shared.b64 %p7, [%r1], %r11;
@!%p7 bra L_c;
xor.b32 %r13, %r3, 7;
shl.b32 %r13, %r13, 2;
add.u32 %r13, %r2, %r13;
ld.shared.u32 %r14, [%r13];
add.u32 %r20, %r20, %r14;
mbarrier.arrive.shared.b64 _, [%r1+8];
add.u32 %r10, %r10, 1;
setp.lt.u32 %p8, %r10, 4;
@%p8 bra L_cons;
""" + addr("%rd2", "%ro", "%r3", 4) + """
st.global.u32 [%rd2], %r20;
L_end:"""
    case("mbarrier.producer_consumer", "mbarrier", kernel(body, shared=sh), "u32", 32,
         ins=[("u32", 32, [RNG.randrange(0, 1 << 20) for _ in range(64)])], block=(64, 1, 1))


def fam_bulk():
    sh = ("  .shared .align 128 .b8 sm[4096];\n  .shared .align 8 .b64 bar;\n")
    # global -> shared::cta, sizes 16..2048, then every thread reads words.
    for size in (16, 48, 256, 2048):
        body = ("mov.u32 %r1, sm;\nmov.u32 %r2, bar;\nsetp.eq.u32 %p1, %tx, 0;\n"
                "@%p1 mbarrier.init.shared.b64 [%r2], 1;\nbar.sync 0;\n"
                + "@%%p1 mbarrier.arrive.expect_tx.shared.b64 %%rd1, [%%r2], %d;\n" % size +
                "@%%p1 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%%r1], [%%ra], %d, [%%r2];\n" % size +
                "L_w:\nmbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n@!%p2 bra L_w;\n"
                + "rem.u32 %%r3, %%tx, %d;\nshl.b32 %%r3, %%r3, 2;\nadd.u32 %%r4, %%r1, %%r3;\n" % (size // 4) +
                "ld.shared.u32 %r5, [%r4];\n" + addr("%rd2", "%ro", "%tx", 4) + "\nst.global.u32 [%rd2], %r5;")
        case("cp.async.bulk.g2s.%d" % size, "bulk", kernel(body, shared=sh), "u32", 128,
             ins=[("u32", 32, rand_words(size // 4))], block=(128, 1, 1))
    # shared::cta -> global with bulk_group; then a read-only wait and a full wait.
    for wait in ("wait_group.read 0", "wait_group 0"):
        body = ("mov.u32 %r1, sm;\nshl.b32 %r2, %tx, 2;\nadd.u32 %r3, %r1, %r2;\n" +
                addr("%rd1", "%ra", "%tx", 4) + "\nld.global.u32 %r4, [%rd1];\nmul.lo.u32 %r4, %r4, 3;\n"
                "st.shared.u32 [%r3], %r4;\nfence.proxy.async.shared::cta;\nbar.sync 0;\n"
                "setp.eq.u32 %p1, %tx, 0;\n"
                "@%p1 cp.async.bulk.global.shared::cta.bulk_group [%ro], [%r1], 512;\n"
                + "@%%p1 cp.async.bulk.commit_group;\n@%%p1 cp.async.bulk.%s;\n" % wait)
        case("cp.async.bulk.s2g.%s" % wait.split()[0], "bulk", kernel(body, shared=sh), "u32", 128,
             ins=[("u32", 32, rand_words(128))], block=(128, 1, 1))
    # cp.reduce.async.bulk to global, several ops and types.
    for op, ty, w in [("add", "u32", 32), ("min", "s32", 32), ("max", "u32", 32), ("inc", "u32", 32),
                      ("dec", "u32", 32), ("and", "b32", 32), ("or", "b64", 64), ("xor", "b32", 32),
                      ("add", "u64", 64), ("add", "f32", 32), ("add", "f64", 64),
                      ("add.noftz", "f16", 16), ("min", "bf16", 16), ("max", "f16", 16),
                      ("min", "s64", 64)]:
        eb = w // 8
        n = 512 // eb
        body = ("mov.u32 %r1, sm;\n" +
                "setp.lt.u32 %%p2, %%tx, %d;\n" % (512 // 16) +
                "@!%p2 bra L_s;\nshl.b32 %r2, %tx, 4;\nadd.u32 %r3, %r1, %r2;\n" +
                addr("%rd1", "%rb", "%tx", 16) + "\nld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd1];\n"
                "st.shared.v4.u32 [%r3], {%r4, %r5, %r6, %r7};\n"
                "L_s:\nfence.proxy.async.shared::cta;\nbar.sync 0;\n"
                "setp.eq.u32 %p1, %tx, 0;\n"
                # out starts as in0 (copied by thread 0..31 before the reduction)
                "@!%p2 bra L_c;\n" + addr("%rd2", "%ra", "%tx", 16) + "\n" + addr("%rd3", "%ro", "%tx", 16) + "\n"
                "ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd2];\nst.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};\n"
                "L_c:\nfence.proxy.async.global;\nbar.sync 0;\n"
                + "@%%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.%s.%s [%%ro], [%%r1], 512;\n" % (op, ty) +
                "@%p1 cp.async.bulk.commit_group;\n@%p1 cp.async.bulk.wait_group 0;\n")
        if ty in ("f16", "bf16"):
            gen = [RNG.getrandbits(16) for _ in range(n)]
        else:
            gen = [RNG.choice([RNG.getrandbits(w), RNG.randrange(0, 50), (1 << w) - RNG.randrange(1, 50)]) for _ in range(n)]
        gen2 = [RNG.choice([RNG.getrandbits(w), RNG.randrange(0, 50)]) for _ in range(n)]
        case("cp.reduce.async.bulk.global.%s.%s" % (op, ty), "bulk", kernel(body, shared=sh),
             {8: "b8", 16: "b16", 32: "u32", 64: "u64"}[w], n,
             ins=[(ty if ty not in ("f16", "bf16") else "b16", w, gen), (ty if ty not in ("f16", "bf16") else "b16", w, gen2)],
             block=(64, 1, 1))
    # Prefetch (no effect) then a copy.
    body = ("cp.async.bulk.prefetch.L2.global [%ra], 256;\n" + addr("%rd1", "%ra", "%tx", 4) +
            "\nld.global.u32 %r1, [%rd1];\n" + addr("%rd2", "%ro", "%tx", 4) + "\nst.global.u32 [%rd2], %r1;")
    case("cp.async.bulk.prefetch", "bulk", kernel(body), "u32", 64, ins=[("u32", 32, rand_words(64))],
         block=(64, 1, 1))
    # Clusters: multicast global -> shared::cluster of both CTAs; DSMEM copy shared::cta ->
    # shared::cluster; reduce into a remote CTA.
    csh = ("  .shared .align 128 .b8 sm[1024];\n  .shared .align 128 .b8 sm2[1024];\n"
           "  .shared .align 128 .b8 sm3[1024];\n  .shared .align 8 .b64 bar;\n")
    body = """mov.u32 %r1, sm;
mov.u32 %r2, bar;
mov.u32 %r9, %cluster_ctarank;
setp.eq.u32 %p1, %tx, 0;
@%p1 mbarrier.init.shared.b64 [%r2], 1;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive;
barrier.cluster.wait;
@%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%r2], 512;
setp.eq.u32 %p3, %r9, 0;
and.pred %p4, %p1, %p3;
mov.u16 %h1, 3;
@%p4 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%ra], 512, [%r2], %h1;
L_w:
mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
@!%p2 bra L_w;
shl.b32 %r3, %tx, 2;
add.u32 %r4, %r1, %r3;
ld.shared.u32 %r5, [%r4];
mad.lo.u32 %r6, %r9, 128, %tx;
""" + addr("%rd2", "%ro", "%r6", 4) + """
st.global.u32 [%rd2], %r5;
barrier.cluster.arrive;
barrier.cluster.wait;"""
    case("cp.async.bulk.multicast", "bulk", kernel(body, shared=csh, directives=".reqnctapercluster 2\n"),
         "u32", 256, ins=[("u32", 32, rand_words(128))], grid=(2, 1, 1), block=(128, 1, 1), cluster=(2, 1, 1))
    body = """mov.u32 %r1, sm;
mov.u32 %r7, sm2;
mov.u32 %r17, sm3;
mov.u32 %r2, bar;
mov.u32 %r9, %cluster_ctarank;
setp.eq.u32 %p1, %tx, 0;
@%p1 mbarrier.init.shared.b64 [%r2], 1;
shl.b32 %r3, %tx, 2;
add.u32 %r4, %r1, %r3;
mad.lo.u32 %r6, %r9, 128, %tx;
""" + addr("%rd1", "%ra", "%r6", 4) + """
ld.global.u32 %r5, [%rd1];
st.shared.u32 [%r4], %r5;
add.u32 %r10, %r7, %r3;
add.u32 %r18, %r17, %r3;
add.u32 %r19, %r9, 100;
st.shared.u32 [%r18], %r19;
fence.proxy.async.shared::cta;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive;
barrier.cluster.wait;
// each CTA copies its sm into the other's sm2 and adds (u32) its sm into the other's sm3
xor.b32 %r11, %r9, 1;
mapa.shared::cluster.u32 %r12, %r7, %r11;
mapa.shared::cluster.u32 %r13, %r2, %r11;
mapa.shared::cluster.u32 %r14, %r17, %r11;
@%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%r2], 1024;
barrier.cluster.arrive;
barrier.cluster.wait;
@%p1 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r12], [%r1], 512, [%r13];
@%p1 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r14], [%r1], 512, [%r13];
L_w:
mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
@!%p2 bra L_w;
ld.shared.u32 %r15, [%r10];
ld.shared.u32 %r16, [%r18];
""" + addr("%rd2", "%ro", "%r6", 8) + """
st.global.v2.u32 [%rd2], {%r15, %r16};
barrier.cluster.arrive;
barrier.cluster.wait;"""
    case("cp.async.bulk.dsmem", "bulk", kernel(body, shared=csh, directives=".reqnctapercluster 2\n"),
         "u32", 512, ins=[("u32", 32, rand_words(256))], grid=(2, 1, 1), block=(128, 1, 1),
         cluster=(2, 1, 1))


FAMILIES = {}  # filled below


def register():
    FAMILIES.update({"async": fam_async, "mbarrier": fam_mbarrier, "bulk": fam_bulk,
                     "tensor": fam_tensor, "swzalign": fam_swzalign, "tmaalign": fam_tmaalign, "cluster": fam_cluster, "misc": fam_misc,
                     "ldmatrix": fam_ldmatrix, "mma": fam_mma, "wgmma": fam_wgmma,
                     "wgmmab1": fam_wgmmab1, "tmreplace": fam_tmreplace,
                     "im2col": fam_im2col, "interleave": fam_interleave,
                     "interleave_im2col": fam_interleave_im2col,
                     "wgmmabase": fam_wgmmabase, "wgmmasp": fam_wgmmasp})


def tmap_param(reg="%rd10", idx=0):
    return "mov.u64 %s, tm%d;\ncvta.param.u64 %s, %s;\n" % (reg, idx, reg, reg)


def smem_to_out(base_reg, nbytes, out_off_words="0"):
    """Every thread copies words of shared memory [base, base + nbytes) to out."""
    return ("mov.u32 %%r40, %%tx;\nL_cp:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra L_cpd;\n"
            "shl.b32 %%r41, %%r40, 2;\nadd.u32 %%r42, %s, %%r41;\nld.shared.u32 %%r43, [%%r42];\n"
            "add.u32 %%r44, %%r40, %s;\n" % (nbytes // 4, base_reg, out_off_words) +
            addr("%rd30", "%ro", "%r44", 4) + "\nst.global.u32 [%rd30], %r43;\n"
            "add.u32 %r40, %r40, %nt;\nbra L_cp;\nL_cpd:\n")


def fill_words(pat, n):
    return [pat(i) for i in range(n)]


def tensor_load_case(name, ty, dims, box, coords, swizzle=0, estrides=None, fill="zero",
                     strides=None, cluster=None, multicast=False, prefetch=False, smem_off=0,
                     family="tensor"):
    eb = {"u8": 1, "f16": 2, "bf16": 2, "f32": 4, "u32": 4, "s32": 4, "f64": 8, "u64": 8}[ty]
    rank = len(dims)
    es = estrides or [1] * rank
    nbox = 1
    for b, e in zip(box, es):
        nbox *= -(-b // e)
    nbytes = nbox * eb
    total = eb
    st = strides
    if st is None:
        st, s = [], eb
        for i in range(1, rank):
            s *= dims[i - 1]
            s = (s + 15) // 16 * 16
            st.append(s)
    total = st[-1] * dims[-1] if rank > 1 else dims[0] * eb
    total = (total + 3) // 4 * 4
    smem = (nbytes + smem_off + 1023) // 1024 * 1024
    sh = "  .shared .align 1024 .b8 sm[%d];\n  .shared .align 8 .b64 bar;\n" % smem
    cregs = ", ".join("%%r%d" % (20 + i) for i in range(rank))
    movs = "".join("mov.u32 %%r%d, %d;\n" % (20 + i, c) for i, c in enumerate(coords))
    ncta = 1
    dst = "shared::cluster"
    mc = ""
    issue_pred = "%p1"
    if cluster:
        ncta = cluster[0]
    body = (tmap_param() + movs +
            "mov.u32 %r1, sm;\n" +
            ("add.u32 %%r1, %%r1, %d;\n" % smem_off if smem_off else "") +
            "mov.u32 %r2, bar;\nsetp.eq.u32 %p1, %tx, 0;\n"
            "@%p1 mbarrier.init.shared.b64 [%r2], 1;\nfence.mbarrier_init.release.cluster;\n")
    if cluster:
        body += ("barrier.cluster.arrive;\nbarrier.cluster.wait;\nmov.u32 %r9, %cluster_ctarank;\n"
                 "setp.eq.u32 %p3, %r9, 0;\nand.pred %p4, %p1, %p3;\n")
        if multicast:
            mc = ".multicast::cluster"
            issue_pred = "%p4"
            body += "mov.u16 %%h1, %d;\n" % ((1 << ncta) - 1)
    else:
        body += "bar.sync 0;\n"
    if prefetch:
        body += "@%%p1 cp.async.bulk.prefetch.tensor.%dd.L2.global.tile [%%rd10, {%s}];\n" % (rank, cregs)
    body += "@%%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%%r2], %d;\n" % nbytes
    body += ("@%s cp.async.bulk.tensor.%dd.%s.global.tile.mbarrier::complete_tx::bytes%s [%%r1], [%%rd10, {%s}], [%%r2]%s;\n"
             % (issue_pred, rank, dst, mc, cregs, ", %h1" if multicast else ""))
    body += "L_w:\nmbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n@!%p2 bra L_w;\n"
    if cluster:
        body += "mul.lo.u32 %%r45, %%bx, %d;\n" % (nbytes // 4)
        body += smem_to_out("%r1", nbytes, "%r45")
        body += "barrier.cluster.arrive;\nbarrier.cluster.wait;\n"
    else:
        body += smem_to_out("%r1", nbytes)
    directives = ".reqnctapercluster %d\n" % ncta if cluster else ""
    if ty in ("f16", "bf16"):
        vals = [RNG.getrandbits(16) for _ in range(total // 2)]
        words = [vals[2 * i] | (vals[2 * i + 1] << 16) for i in range(total // 4)]
    else:
        words = rand_words(total // 4)
    tm = {"buffer": 1, "type": ty, "dims": dims, "box": box, "swizzle": swizzle}
    if strides is not None or rank > 1:
        tm["strides"] = st
    if estrides:
        tm["estrides"] = estrides
    if fill != "zero":
        tm["fill"] = fill
    case(name, family, kernel(body, shared=sh, tmaps=1, directives=directives), "u32",
         ncta * nbytes // 4, ins=[("u32", 32, words)], grid=(ncta, 1, 1), block=(128, 1, 1),
         cluster=cluster, tmaps=[tm])


SENTINEL = 0xDEADBEEF


def im2col_case(name, ty, dims, coords, cpp=None, ppc=None, lower=(), upper=(), offsets=None,
                box=None, estrides=None, swizzle=0, fill=None, direction="load", red=None,
                prefetch=False, interleave=0, smem_off=0, family=None):
    """One tensor copy whose shared-memory side is copied out whole. An im2col map when `cpp`
    is given (`dims` innermost first, corners in W, H, D order), a tiled one with `box`.
    Loads: shared memory is first filled with SENTINEL, so bytes the copy does not write show;
    `out` receives the shared rows (pitch-padded when a swizzled row is narrower than the
    span). Stores and reductions: `in0` fills shared memory (padded the same way) and the
    tensor is `out` (0xAB before the launch). `smem_off`: the shared side starts that many
    bytes past a 1024-byte boundary."""
    eb = {"u8": 1, "f16": 2, "bf16": 2, "f32": 4, "u32": 4, "s32": 4}[ty]
    rank = len(dims)
    if cpp:
        rows, row = ppc, cpp * eb
    else:
        es = estrides or [1] * rank
        row = -(-box[0] // es[0]) * eb
        rows = 1
        for b, e in zip(box[1:], es[1:]):
            rows *= -(-b // e)
    pitch = swizzle if swizzle and row < swizzle else row
    nbytes, extent = rows * row, rows * pitch
    if interleave:
        # An interleaved box counts dimension 0 in interleave units: fill a generous window.
        extent = max(extent, 2048)
    total = eb
    for d in dims:
        total *= d
    total = (total + 3) // 4 * 4
    sh = ("  .shared .align 1024 .b8 sm[%d];\n  .shared .align 8 .b64 bar;\n"
          % ((extent + smem_off + 1023) // 1024 * 1024))
    cregs = ", ".join("%%r%d" % (20 + i) for i in range(rank))
    movs = "".join("mov.u32 %%r%d, %d;\n" % (20 + i, c) for i, c in enumerate(coords))
    mode = ".im2col" if cpp else ".tile"
    info = ""
    if cpp and direction == "load":
        offs = offsets or [0] * (rank - 2)
        movs += "".join("mov.u16 %%h%d, %d;\n" % (1 + i, o) for i, o in enumerate(offs))
        info = ", {%s}" % ", ".join("%%h%d" % (1 + i) for i in range(len(offs)))
    body = (tmap_param() + movs + "mov.u32 %r1, sm;\n"
            + ("add.u32 %%r1, %%r1, %d;\n" % smem_off if smem_off else "")
            + "mov.u32 %r2, bar;\nsetp.eq.u32 %p1, %tx, 0;\n")
    fill_loop = ("mov.u32 %%r40, %%tx;\nL_f:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra L_fd;\n"
                 % (extent // 4))
    if direction == "load":
        body += fill_loop + ("shl.b32 %%r41, %%r40, 2;\nadd.u32 %%r42, %%r1, %%r41;\n"
                             "st.shared.u32 [%%r42], %d;\n" % SENTINEL)
    else:
        body += fill_loop + addr("%rd30", "%ra", "%r40", 4) + (
            "\nld.global.u32 %r43, [%rd30];\nshl.b32 %r41, %r40, 2;\nadd.u32 %r42, %r1, %r41;\n"
            "st.shared.u32 [%r42], %r43;\n")
    body += "add.u32 %r40, %r40, %nt;\nbra L_f;\nL_fd:\nfence.proxy.async.shared::cta;\n"
    if direction == "load":
        body += ("@%p1 mbarrier.init.shared.b64 [%r2], 1;\nfence.mbarrier_init.release.cluster;\n"
                 "bar.sync 0;\n")
        if prefetch:
            body += ("@%%p1 cp.async.bulk.prefetch.tensor.%dd.L2.global%s [%%rd10, {%s}]%s;\n"
                     % (rank, mode, cregs, info))
        body += "@%%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%%r2], %d;\n" % nbytes
        body += ("@%%p1 cp.async.bulk.tensor.%dd.shared::cluster.global%s.mbarrier::complete_tx::bytes"
                 " [%%r1], [%%rd10, {%s}], [%%r2]%s;\n" % (rank, mode, cregs, info))
        if interleave:
            # A bounded wait: a transaction count a probe gets wrong ends the wait, not the GPU.
            body += ("mov.u32 %r50, 0;\nL_w:\nmbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n"
                     "@%p2 bra L_wd;\nadd.u32 %r50, %r50, 1;\nsetp.lt.u32 %p3, %r50, 200000;\n"
                     "@%p3 bra L_w;\nL_wd:\n")
        else:
            body += "L_w:\nmbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n@!%p2 bra L_w;\n"
        body += smem_to_out("%r1", extent)
        out_words = extent // 4
        ins = [("u32", 32, rand_words(total // 4))]
        buf = 1
    else:
        smode = ".im2col_no_offs" if cpp else ".tile"
        op = ("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s%s.bulk_group" % (rank, red, smode)
              if red else "cp.async.bulk.tensor.%dd.global.shared::cta%s.bulk_group" % (rank, smode))
        body += ("bar.sync 0;\n@%%p1 %s [%%rd10, {%s}], [%%r1];\n" % (op, cregs) +
                 "@%p1 cp.async.bulk.commit_group;\n@%p1 cp.async.bulk.wait_group 0;\n")
        out_words = total // 4
        ins = [("u32", 32, rand_words(extent // 4))]
        buf = 0
    tm = {"buffer": buf, "type": ty, "dims": dims, "swizzle": swizzle}
    if cpp:
        tm.update({"mode": "im2col", "cpp": cpp, "ppc": ppc, "lower": list(lower),
                   "upper": list(upper)})
    else:
        tm["box"] = box
    if estrides:
        tm["estrides"] = estrides
    if fill:
        tm["fill"] = fill
    if interleave:
        tm["interleave"] = interleave
    case(name, family or ("interleave" if interleave else "im2col"),
         kernel(body, shared=sh, tmaps=1), "u32", out_words, ins=ins, block=(128, 1, 1),
         tmaps=[tm])


def fam_im2col():
    nhwc = [8, 5, 4, 2]  # C, W, H, N
    im2col_case("im2col.base", "u32", nhwc, [0, 0, 0, 0], cpp=4, ppc=48, lower=[0, 0], upper=[0, 0])
    im2col_case("im2col.low", "u32", nhwc, [0, -1, 0, 0], cpp=4, ppc=32, lower=[-1, 0])
    im2col_case("im2col.offsets", "u32", nhwc, [4, -1, -1, 0], cpp=4, ppc=32, lower=[-1, -1],
                upper=[-1, -1], offsets=[1, 2])
    im2col_case("im2col.wstride.odd", "u32", nhwc, [0, 1, 0, 0], cpp=8, ppc=16,
                estrides=[1, 2, 1, 1])
    im2col_case("im2col.nstride", "u32", [8, 5, 4, 3], [0, 0, 0, 0], cpp=4, ppc=48,
                estrides=[1, 1, 1, 2])
    im2col_case("im2col.hstride.upper", "u32", nhwc, [0, 2, 1, 0], cpp=4, ppc=20,
                lower=[-1, -1], upper=[2, 1], offsets=[1, 0], estrides=[1, 3, 2, 1])
    im2col_case("im2col.rank5", "u32", [4, 3, 3, 2, 2], [0, 0, -1, 0, 0], cpp=4, ppc=40,
                lower=[0, -1, 0], upper=[-1, 0, 0], offsets=[0, 1, 1])
    im2col_case("im2col.rank3.f16", "f16", [16, 10, 3], [8, -2, 0], cpp=8, ppc=24, lower=[-2],
                upper=[1], offsets=[1])
    im2col_case("im2col.cpart", "u32", nhwc, [4, 3, 2, 1], cpp=8, ppc=12)
    im2col_case("im2col.cneg", "u32", nhwc, [-4, 0, 0, 0], cpp=8, ppc=6)
    im2col_case("im2col.nanfill", "f32", nhwc, [0, -1, -1, 1], cpp=4, ppc=30, lower=[-1, -1],
                upper=[1, 0], fill="nan")
    im2col_case("im2col.swizzle128.padded", "u32", [16, 6, 3, 2], [0, 1, 0, 0], cpp=16, ppc=12,
                swizzle=128)
    im2col_case("im2col.swizzle64", "f16", [32, 6, 3, 2], [0, 0, 1, 0], cpp=32, ppc=10,
                swizzle=64)
    im2col_case("im2col.swizzle32.padded", "u32", [8, 6, 3, 2], [4, 2, 0, 0], cpp=4, ppc=14,
                swizzle=32)
    im2col_case("im2col.prefetch", "u32", nhwc, [0, 0, 1, 0], cpp=4, ppc=8, offsets=[0, 1],
                prefetch=True)
    im2col_case("tile.swizzle64.padded", "u32", [32, 16], [8, 2], box=[8, 6], swizzle=64)
    im2col_case("tile.swizzle128.padded", "f16", [64, 20], [32, 3], box=[32, 5], swizzle=128)
    # Stores and reductions (lower corners >= 0 and upper ones <= 0 are required).
    im2col_case("im2col.store.wrap", "u32", nhwc, [0, 3, 3, 0], cpp=4, ppc=8, direction="store")
    im2col_case("im2col.store.wstride", "u32", nhwc, [4, 0, 1, 0], cpp=4, ppc=9,
                estrides=[1, 2, 1, 1], direction="store")
    im2col_case("im2col.store.cpart.npast", "u32", nhwc, [4, 2, 3, 1], cpp=8, ppc=12,
                direction="store")
    im2col_case("im2col.store.upper", "u32", nhwc, [0, 1, 0, 0], cpp=8, ppc=10, upper=[-1, -1],
                direction="store")
    im2col_case("im2col.reduce.add", "u32", nhwc, [0, 0, 0, 0], cpp=4, ppc=10, upper=[-1, 0],
                direction="reduce", red="add")
    im2col_case("im2col.store.swizzle64.padded", "u32", [8, 6, 3, 2], [0, 1, 1, 0], cpp=8,
                ppc=6, swizzle=64, direction="store")
    im2col_case("tile.store.swizzle64.padded", "u32", [32, 16], [8, 2], box=[8, 4], swizzle=64,
                direction="store")


IL_EXTENT = 8192  # shared bytes a probe copies out (sentinel-filled first)
IL_BIG = 65536    # transaction bytes a probe expects; the shortfall is counted afterwards


def interleave_case(name, ty, dims, coords, box, estrides=None, swizzle=0, il=16,
                    strides=None, fill=None, im2col=None, smem_off=0, family="interleave"):
    """A tile-mode load of an interleaved map, probed without assuming its size: the mbarrier
    expects IL_BIG bytes, the copy is given 2 ms to land, then thread 0 counts how many one-byte
    `mbarrier.complete_tx` it takes to complete the phase (`out[0]`; the copy's transaction
    bytes are IL_BIG - out[0]) and the whole sentinel-filled shared window is copied to
    `out[1..]`. `smem_off`: the window starts that many bytes past a 1024-byte boundary."""
    eb = {"u8": 1, "f16": 2, "u32": 4}[ty]
    rank = len(dims)
    total = eb
    for d in dims:
        total *= d
    if strides:
        total = strides[-1] * dims[-1]
    total = (total + 3) // 4 * 4
    sh = ("  .shared .align 1024 .b8 sm[%d];\n  .shared .align 8 .b64 bar;\n"
          % (IL_EXTENT + (1024 if smem_off else 0)))
    cregs = ", ".join("%%r%d" % (20 + i) for i in range(rank))
    movs = "".join("mov.u32 %%r%d, %d;\n" % (20 + i, c) for i, c in enumerate(coords))
    body = (tmap_param() + movs + "mov.u32 %r1, sm;\n"
            + ("add.u32 %%r1, %%r1, %d;\n" % smem_off if smem_off else "")
            + "mov.u32 %r2, bar;\nsetp.eq.u32 %p1, %tx, 0;\n")
    body += ("mov.u32 %%r40, %%tx;\nL_f:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra L_fd;\n"
             "shl.b32 %%r41, %%r40, 2;\nadd.u32 %%r42, %%r1, %%r41;\n"
             "st.shared.u32 [%%r42], %d;\nadd.u32 %%r40, %%r40, %%nt;\nbra L_f;\nL_fd:\n"
             % (IL_EXTENT // 4, SENTINEL))
    body += ("fence.proxy.async.shared::cta;\n@%p1 mbarrier.init.shared.b64 [%r2], 1;\n"
             "fence.mbarrier_init.release.cluster;\nbar.sync 0;\n")
    body += "@%%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%%r2], %d;\n" % IL_BIG
    mode, info = ".tile", ""
    if im2col:
        offs = im2col.get("offsets", [0] * (rank - 2))
        body += "".join("mov.u16 %%h%d, %d;\n" % (1 + i, o) for i, o in enumerate(offs))
        mode, info = ".im2col", ", {%s}" % ", ".join("%%h%d" % (1 + i) for i in range(len(offs)))
    body += ("@%%p1 cp.async.bulk.tensor.%dd.shared::cluster.global%s.mbarrier::complete_tx::bytes"
             " [%%r1], [%%rd10, {%s}], [%%r2]%s;\n" % (rank, mode, cregs, info))
    body += ("@!%p1 bra L_cnt;\nmov.u32 %r50, 0;\nL_d:\nnanosleep.u32 1000;\n"
             "add.u32 %r50, %r50, 1;\nsetp.lt.u32 %p3, %r50, 2000;\n@%p3 bra L_d;\n"
             "mov.u32 %r51, 0;\nL_c:\nmbarrier.test_wait.parity.shared.b64 %p2, [%r2], 0;\n"
             "@%p2 bra L_cd;\nmbarrier.complete_tx.relaxed.cta.shared.b64 [%r2], 1;\n"
             "add.u32 %r51, %r51, 1;\nsetp.lt.u32 %p3, %r51, 70000;\n@%p3 bra L_c;\nL_cd:\n"
             "st.global.u32 [%ro], %r51;\nL_cnt:\nbar.sync 0;\n")
    body += smem_to_out("%r1", IL_EXTENT, "1")
    tm = {"buffer": 1, "type": ty, "dims": dims, "swizzle": swizzle, "interleave": il}
    if im2col:
        tm.update({"mode": "im2col", "cpp": im2col["cpp"], "ppc": im2col["ppc"],
                   "lower": im2col.get("lower", []), "upper": im2col.get("upper", [])})
    else:
        tm["box"] = box
    if estrides:
        tm["estrides"] = estrides
    if strides:
        tm["strides"] = strides
    if fill:
        tm["fill"] = fill
    case(name, family, kernel(body, shared=sh, tmaps=1), "u32", 1 + IL_EXTENT // 4,
         ins=[("u32", 32, rand_words(total // 4))], block=(128, 1, 1), tmaps=[tm])


def fam_interleave():
    """Tile-mode copies of interleaved tensor maps (NC/8HWC8-style layouts). Each load varies
    one thing against the first: box sizes per dimension, dimension 0 wider than the interleave
    unit, traversal strides, ranks 4 and 5, padded strides, out-of-bounds corners, swizzles,
    NaN fill and a 32-byte interleave; encodings the driver refuses are skipped (and say so);
    then three stores."""
    A = ([8, 10, 6], [0, 1, 1], [8, 4, 2])
    interleave_case("il16.base", "f16", *A)
    interleave_case("il16.box2.3", "f16", [8, 10, 6], [0, 1, 1], [8, 4, 3])
    interleave_case("il16.box1.3", "f16", [8, 10, 6], [0, 1, 1], [8, 3, 2])
    interleave_case("il16.box1.7", "f16", [8, 10, 6], [0, 2, 1], [8, 7, 2])
    interleave_case("il16.box0.4", "f16", [8, 10, 6], [0, 1, 1], [4, 4, 2])
    interleave_case("il16.box0.16", "f16", [16, 10, 6], [0, 1, 1], [16, 4, 2])
    interleave_case("il16.c16.box8", "f16", [16, 10, 6], [0, 1, 1], [8, 4, 2])
    interleave_case("il16.c16.box8.at8", "f16", [16, 10, 6], [8, 1, 1], [8, 4, 2])
    interleave_case("il16.c24.box24", "f16", [24, 10, 6], [0, 1, 1], [24, 3, 2])
    interleave_case("il16.u8", "u8", [16, 10, 6], [0, 1, 1], [16, 4, 2])
    interleave_case("il16.u32", "u32", [4, 10, 6], [0, 1, 1], [4, 4, 2])
    interleave_case("il16.es0.2", "f16", *A, estrides=[2, 1, 1])
    interleave_case("il16.es1.2", "f16", *A, estrides=[1, 2, 1])
    interleave_case("il16.es2.2", "f16", [8, 10, 6], [0, 1, 1], [8, 4, 4], estrides=[1, 1, 2])
    interleave_case("il16.rank4", "f16", [8, 10, 6, 3], [0, 1, 1, 1], [8, 4, 2, 2])
    interleave_case("il16.strides", "f16", [8, 10, 6], [0, 1, 1], [8, 4, 2], strides=[32, 400])
    interleave_case("il16.oob.low", "f16", [8, 10, 6], [0, -1, -1], [8, 4, 2])
    interleave_case("il16.oob.c", "f16", [16, 10, 6], [-8, 1, 1], [16, 4, 2])
    interleave_case("il16.sw32", "f16", *A, swizzle=32)
    interleave_case("il16.sw64", "f16", *A, swizzle=64)
    interleave_case("il16.sw128", "f16", [8, 10, 6], [0, 1, 1], [8, 8, 2], swizzle=128)
    interleave_case("il32.sw32", "f16", [16, 10, 6], [0, 1, 1], [16, 4, 2], swizzle=32, il=32)
    interleave_case("il32.c32.sw32", "f16", [32, 10, 6], [0, 1, 1], [16, 4, 2], swizzle=32, il=32)
    # Rows far apart (256-byte dimension-1 stride): which box dimension steps which tensor
    # dimension, and each dimension's bounds.
    W = [256, 2560]
    for c0 in (0, 4, 8, 12, -2):
        interleave_case("il16.wide.c0_%d" % c0, "f16", [8, 10, 6], [c0, 1, 1], [8, 4, 2],
                        strides=W)
    interleave_case("il16.wide.nanfill", "f16", [8, 10, 6], [4, 1, 1], [8, 4, 2], strides=W,
                    fill="nan")
    for c1 in (-1, 9, 10):
        interleave_case("il16.wide.c1_%d" % c1, "f16", [8, 10, 6], [0, c1, 1], [8, 3, 2],
                        strides=W)
    for c2 in (-1, 5):
        interleave_case("il16.wide.c2_%d" % c2, "f16", [8, 10, 6], [0, 1, c2], [8, 3, 2],
                        strides=W)
    interleave_case("il16.wide.u32", "u32", [8, 10, 6], [1, 1, 1], [4, 2, 2], strides=W)
    interleave_case("il16.wide.es", "f16", [8, 10, 6], [0, 1, 1], [16, 4, 4],
                    estrides=[2, 2, 2], strides=W)
    R4 = ([8, 5, 4, 3], [256, 1280, 5120])
    for box in ([8, 3, 2, 1], [8, 1, 3, 2], [8, 2, 1, 3], [8, 2, 3, 2]):
        interleave_case("il16.r4.box%s" % "".join(map(str, box)), "f16", R4[0], [0, 1, 1, 0],
                        box, strides=R4[1])
    interleave_case("il16.r4.es", "f16", R4[0], [0, 0, 0, 0], [8, 4, 4, 3], estrides=[1, 2, 3, 2],
                    strides=R4[1])
    for c in ([0, 1, -1, 0], [0, 1, 4, 0], [0, 5, 1, 0], [0, 1, 1, 3]):
        interleave_case("il16.r4.c%s" % "_".join(map(str, c)), "f16", R4[0], c, [8, 2, 3, 2],
                        strides=R4[1])
    interleave_case("il32.r4", "f16", [4, 5, 4, 3], [0, 1, 1, 0], [8, 2, 3, 2], swizzle=32,
                    il=32, strides=R4[1])
    R5 = ([8, 4, 3, 3, 2], [128, 512, 1536, 4608])
    for box in ([8, 3, 2, 1, 2], [8, 2, 3, 2, 1], [8, 1, 1, 3, 2]):
        interleave_case("il16.r5.box%s" % "".join(map(str, box)), "f16", R5[0], [0, 1, 0, 0, 0],
                        box, strides=R5[1])
    # Encoder rules (a refused encoding is a skipped case).
    for name, ty, dims, box, st, il in (
            ("il16.rule.box0_u8_8", "u8", [16, 10, 6], [8, 2, 1], W, 16),
            ("il16.rule.box0_f16_12", "f16", [16, 10, 6], [12, 2, 1], W, 16),
            ("il16.rule.dims0_f16_4", "f16", [4, 10, 6], [4, 2, 1], W, 16),
            ("il16.rule.dims0_f16_12", "f16", [12, 10, 6], [8, 2, 1], W, 16),
            ("il16.rule.box0_256", "u8", [256, 10, 6], [256, 1, 1], W, 16),
            ("il16.rule.stride_lt_row", "f16", [16, 10, 6], [8, 2, 1], [16, 160], 16),
            ("il32.rule.box0_f16_8", "f16", [16, 10, 6], [8, 2, 1], W, 32),
            ("il32.rule.dims0_f16_8", "f16", [8, 10, 6], [8, 2, 1], W, 32)):
        interleave_case(name, ty, dims, [0, 1, 1], box, strides=st, il=il,
                        swizzle=32 if il == 32 else 0)
    im2col_case("il16.store", "f16", [8, 10, 6], [0, 1, 1], box=[8, 4, 2], direction="store",
                interleave=16)
    im2col_case("il16.store.oob", "f16", [8, 10, 6], [4, 2, 5], box=[8, 4, 2],
                direction="store", interleave=16)
    im2col_case("il16.store.r4", "f16", [8, 5, 4, 3], [0, 1, 1, 0], box=[8, 2, 3, 2],
                direction="store", interleave=16)


def fam_interleave_im2col():
    """Im2col copies of interleaved maps (`cuTensorMapEncodeIm2col` with a 16- or 32-byte
    interleave): probes, laid out as the tiled interleave family's loads."""
    W4 = [256, 1280, 5120]  # C rows 256 bytes apart, W = 5, H = 4, N = 2
    def ic(name, dims, coords, cpp, ppc, strides=W4, il=16, sw=0, estrides=None, **kw):
        interleave_case("ilim." + name, "f16", dims, coords, None, il=il, swizzle=sw,
                        strides=strides, estrides=estrides, im2col=dict(cpp=cpp, ppc=ppc, **kw))
    ic("base", [8, 5, 4, 2], [0, 0, 0, 0], 8, 8)
    ic("cpp16", [8, 5, 4, 2], [0, 0, 0, 0], 16, 8)
    ic("cpp24", [8, 5, 4, 2], [0, 0, 0, 0], 24, 4)
    ic("c2", [8, 5, 4, 2], [2, 0, 0, 0], 8, 8)
    ic("ppc20", [8, 5, 4, 2], [0, 1, 0, 0], 8, 20)
    ic("lower", [8, 5, 4, 2], [0, -1, -1, 0], 8, 12, lower=[-1, -1], upper=[0, 0])
    ic("offsets", [8, 5, 4, 2], [0, -1, -1, 0], 8, 12, lower=[-1, -1], upper=[-1, -1],
       offsets=[1, 1])
    ic("c16", [16, 5, 4, 2], [0, 0, 1, 0], 8, 8)
    ic("rank3", [8, 6, 3], [0, 1, 0], 8, 8, strides=[256, 1536])
    ic("rank5", [8, 3, 3, 2, 2], [0, 0, 0, 0, 0], 8, 10, strides=[256, 768, 2304, 4608])
    ic("dense", [8, 5, 4, 2], [0, 0, 0, 0], 8, 8, strides=None)
    ic("il32", [8, 5, 4, 2], [0, 0, 0, 0], 16, 8, il=32, sw=32)
    S4 = [64, 320, 1280]  # four units a pixel
    ic("wrap", [4, 3, 3, 2], [1, 0, 0, 0], 8, 24, strides=[64, 192, 576])
    ic("wrap.n", [4, 2, 2, 2], [0, 0, 0, 0], 8, 40, strides=[64, 128, 256])
    ic("offsets.in", [4, 5, 4, 2], [0, 0, 0, 0], 8, 12, strides=S4, lower=[0, 0],
       upper=[-1, -1], offsets=[1, 1])
    ic("corner.low", [4, 5, 4, 2], [0, -1, 0, 0], 8, 28, strides=S4, lower=[-1, 0],
       upper=[-1, 0])
    ic("corner.up", [4, 5, 4, 2], [0, 2, 0, 0], 8, 28, strides=S4, lower=[0, 0],
       upper=[-2, -2])
    ic("es.w", [4, 5, 4, 2], [0, 0, 0, 0], 8, 24, strides=S4, estrides=[1, 2, 1, 1])
    ic("es.c", [4, 5, 4, 2], [0, 0, 0, 0], 8, 12, strides=S4, estrides=[2, 1, 1, 1])
    ic("cpp32", [4, 5, 4, 2], [0, 0, 0, 0], 32, 12, strides=S4)
    ic("cpp8.c3", [4, 5, 4, 2], [3, 1, 1, 0], 8, 12, strides=S4)


def tmreplace_case(name, replaces, nbytes, rank=2, coords=(8, 1), in_global=False):
    """A 2D u32 tensor map over in0 ([40, 6] elements, rows 160 bytes apart, box [8, 4]),
    passed as a `__grid_constant__` parameter, copied into shared memory (or into the global
    scratch buffer `in2`), rewritten there by `replaces` (PTX lines on `[%r3]`, or `[%rc]` with
    `in_global`), moved to `in2` by `tensormap.cp_fenceproxy` (or fenced in place), then used by
    a tensor load of `nbytes` whose box lands in `out`."""
    sh = ("  .shared .align 1024 .b8 sm[1024];\n  .shared .align 128 .b8 tmsm[128];\n"
          "  .shared .align 8 .b64 bar;\n")
    body = tmap_param() + "mov.u32 %r1, sm;\nmov.u32 %r2, bar;\nmov.u32 %r3, tmsm;\n"
    body += "setp.eq.u32 %p1, %tx, 0;\nsetp.lt.u32 %p5, %tx, 8;\n"
    # Eight threads copy the parameter map, 16 bytes each.
    body += ("shl.b32 %r4, %tx, 4;\ncvt.u64.u32 %rd11, %r4;\nadd.s64 %rd12, %rd10, %rd11;\n"
             "@%p5 ld.v2.u64 {%rd13, %rd14}, [%rd12];\n")
    if in_global:
        body += "add.s64 %rd15, %rc, %rd11;\n@%p5 st.global.v2.u64 [%rd15], {%rd13, %rd14};\n"
    else:
        body += "add.u32 %r5, %r3, %r4;\n@%p5 st.shared.v2.u64 [%r5], {%rd13, %rd14};\n"
    body += "bar.sync 0;\n"
    for r in replaces:
        for line in r.split("\n"):
            body += "@%p1 " + line + "\n"
    body += "bar.sync 0;\n"
    if in_global:
        body += "fence.proxy.tensormap::generic.release.gpu;\n"
    else:
        body += ("setp.lt.u32 %p6, %tx, 32;\n@%p6 tensormap.cp_fenceproxy.global.shared::cta."
                 "tensormap::generic.release.gpu.sync.aligned [%rc], [%r3], 128;\n")
    body += "@%p1 fence.proxy.tensormap::generic.acquire.gpu [%rc], 128;\n"
    body += "@%p1 mbarrier.init.shared.b64 [%r2], 1;\nfence.mbarrier_init.release.cluster;\nbar.sync 0;\n"
    cregs = ", ".join("%%r%d" % (20 + i) for i in range(rank))
    body += "".join("mov.u32 %%r%d, %d;\n" % (20 + i, c) for i, c in enumerate(coords[:rank]))
    body += "@%%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%%r2], %d;\n" % nbytes
    body += ("@%%p1 cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
             "[%%r1], [%%rc, {%s}], [%%r2];\n" % (rank, cregs))
    body += "L_w:\nmbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;\n@!%p2 bra L_w;\n"
    body += smem_to_out("%r1", nbytes)
    # in0: 3 * 960 bytes, so that a doubled stride or a later base stays inside.
    words = rand_words(3 * 240)
    tm = {"buffer": 1, "type": "u32", "dims": [40, 6], "box": [8, 4], "swizzle": 0,
          "strides": [160]}
    case(name, "tmreplace", kernel(body, shared=sh, tmaps=1), "u32", nbytes // 4,
         ins=[("u32", 32, words), ("u32", 32, [0]), ("u32", 32, [0] * 64)],
         block=(128, 1, 1), tmaps=[tm])


def fam_tmreplace():
    sp = ".shared::cta"
    tmreplace_case("tmreplace.none", [], 128)
    tmreplace_case("tmreplace.global_address",
                   ["add.s64 %%rd16, %%ra, 320;\ntensormap.replace.tile.global_address%s.b1024.b64 [%%r3], %%rd16;" % sp], 128)
    tmreplace_case("tmreplace.box_dim.0",
                   ["tensormap.replace.tile.box_dim%s.b1024.b32 [%%r3], 0, 4;" % sp], 64)
    tmreplace_case("tmreplace.box_dim.1",
                   ["tensormap.replace.tile.box_dim%s.b1024.b32 [%%r3], 1, 2;" % sp], 64)
    tmreplace_case("tmreplace.global_dim.1",
                   ["tensormap.replace.tile.global_dim%s.b1024.b32 [%%r3], 1, 3;" % sp], 128)
    tmreplace_case("tmreplace.global_dim.0",
                   ["tensormap.replace.tile.global_dim%s.b1024.b32 [%%r3], 0, 12;" % sp], 128)
    tmreplace_case("tmreplace.global_stride.0",
                   ["mov.u64 %%rd16, 320;\ntensormap.replace.tile.global_stride%s.b1024.b64 [%%r3], 0, %%rd16;" % sp], 128)
    tmreplace_case("tmreplace.element_stride.1",
                   ["tensormap.replace.tile.element_stride%s.b1024.b32 [%%r3], 1, 2;" % sp], 64)
    tmreplace_case("tmreplace.elemtype.fill",
                   ["tensormap.replace.tile.elemtype%s.b1024.b32 [%%r3], 7;" % sp,
                    "tensormap.replace.tile.fill_mode%s.b1024.b32 [%%r3], 1;" % sp,
                    "tensormap.replace.tile.global_dim%s.b1024.b32 [%%r3], 1, 3;" % sp], 128)
    tmreplace_case("tmreplace.swizzle_mode",
                   ["tensormap.replace.tile.swizzle_mode%s.b1024.b32 [%%r3], 1;" % sp], 128)
    tmreplace_case("tmreplace.rank",
                   ["tensormap.replace.tile.rank%s.b1024.b32 [%%r3], 0;" % sp], 32, rank=1)
    tmreplace_case("tmreplace.in_global",
                   ["tensormap.replace.tile.box_dim.global.b1024.b32 [%rc], 0, 4;",
                    "tensormap.replace.tile.global_dim.global.b1024.b32 [%rc], 1, 2;"], 64,
                   in_global=True)


def fam_swzalign():
    """Swizzled tensor loads into shared addresses that are not 128-byte aligned."""
    for sw in [32, 64, 128]:
        for off in [16, 32, 64, 96, 128, 384]:
            tensor_load_case("swzalign.sw%d.off%d" % (sw, off), "f16", [128, 64],
                             [sw // 2, 8], [16, 8], swizzle=sw, smem_off=off,
                             family="swzalign")


def fam_tmaalign():
    """Tensor copies without swizzle whose shared side is 16- but not 128-byte aligned (and
    controls at 128 and 256): tile-mode loads, stores and reductions, im2col loads and
    stores, interleaved loads and stores. A case that faults is left out of the file; the log names it."""
    for off in [16, 32, 64, 96, 128, 256]:
        tensor_load_case("tmaalign.tile.load.off%d" % off, "f16", [128, 64], [32, 8], [16, 8],
                         smem_off=off, family="tmaalign")
        im2col_case("tmaalign.tile.store.off%d" % off, "u32", [32, 16], [8, 2], box=[8, 4],
                    direction="store", smem_off=off, family="tmaalign")
        im2col_case("tmaalign.tile.red.off%d" % off, "u32", [32, 16], [8, 2], box=[8, 4],
                    direction="store", red="add", smem_off=off, family="tmaalign")
        im2col_case("tmaalign.im2col.load.off%d" % off, "u32", [8, 6, 5, 2], [0, 1, 1, 0],
                    cpp=8, ppc=6, smem_off=off, family="tmaalign")
        im2col_case("tmaalign.im2col.store.off%d" % off, "u32", [8, 6, 5, 2], [0, 1, 1, 0],
                    cpp=8, ppc=6, direction="store", smem_off=off, family="tmaalign")
        im2col_case("tmaalign.il16.store.off%d" % off, "f16", [8, 10, 6], [0, 1, 1],
                    box=[8, 4, 2], direction="store", interleave=16, smem_off=off,
                    family="tmaalign")
        interleave_case("tmaalign.il16.load.off%d" % off, "f16", [8, 10, 6], [0, 1, 1],
                        [8, 4, 2], smem_off=off, family="tmaalign")


def fam_tensor():
    tensor_load_case("tensor.1d.f32", "f32", [256], [64], [32])
    tensor_load_case("tensor.1d.f32.oob_hi", "f32", [256], [64], [224])
    tensor_load_case("tensor.1d.f32.oob_lo", "f32", [256], [64], [-16])
    tensor_load_case("tensor.2d.f16", "f16", [104, 37], [32, 8], [8, 4])
    tensor_load_case("tensor.2d.f16.oob", "f16", [104, 37], [32, 8], [96, 34])
    tensor_load_case("tensor.2d.f16.oob_neg", "f16", [104, 37], [32, 8], [-8, -3])
    tensor_load_case("tensor.2d.f16.sw128", "f16", [128, 64], [64, 16], [64, 8], swizzle=128)
    tensor_load_case("tensor.2d.f16.sw64", "f16", [128, 64], [32, 16], [32, 5], swizzle=64)
    tensor_load_case("tensor.2d.f16.sw32", "f16", [128, 64], [16, 16], [16, 3], swizzle=32)
    tensor_load_case("tensor.2d.bf16.sw128.oob", "bf16", [96, 20], [64, 8], [64, 16], swizzle=128)
    tensor_load_case("tensor.2d.f32.sw128", "f32", [64, 64], [32, 8], [16, 2], swizzle=128)
    # A box must start at a 16-byte multiple in the innermost dimension (the H100 stops with an
    # illegal instruction otherwise: hopper_probe.py, probes tmap.*), so these coordinates do.
    tensor_load_case("tensor.3d.u8", "u8", [32, 5, 7], [16, 4, 3], [16, 2, 5])
    tensor_load_case("tensor.3d.bf16", "bf16", [40, 6, 5], [16, 4, 4], [32, -1, 3])
    tensor_load_case("tensor.4d.f32", "f32", [8, 3, 4, 5], [4, 2, 2, 3], [4, 2, 3, 3])
    tensor_load_case("tensor.5d.f32", "f32", [4, 3, 3, 2, 3], [4, 2, 2, 2, 2], [0, 2, -1, 1, 2])
    tensor_load_case("tensor.2d.f32.estrides", "f32", [64, 16], [16, 8], [4, 1], estrides=[1, 3])
    tensor_load_case("tensor.2d.f32.nanfill", "f32", [20, 6], [8, 4], [16, 4], fill="nan")
    tensor_load_case("tensor.2d.f16.nanfill", "f16", [24, 6], [8, 4], [-8, 4], fill="nan")
    tensor_load_case("tensor.2d.f16.padded", "f16", [20, 12], [8, 4], [16, 3], strides=[64])
    tensor_load_case("tensor.2d.f16.prefetch", "f16", [64, 32], [32, 8], [0, 8], prefetch=True)
    tensor_load_case("tensor.2d.f16.multicast", "f16", [64, 32], [32, 8], [16, 4],
                     cluster=(2, 1, 1), multicast=True)
    tensor_load_case("tensor.2d.f16.cluster", "f16", [64, 32], [32, 8], [16, 4], cluster=(2, 1, 1))
    # Stores and reductions into `out` (the tensor is buffer 0; out-of-bounds parts of the box
    # are not written, so those bytes keep 0xAB).
    for name, ty, dims, box, coords, red, sw in [
            ("tensor.store.2d.f16", "f16", [40, 12], [16, 8], [32, 8], None, 0),
            ("tensor.store.2d.f32.sw128", "f32", [64, 16], [32, 4], [0, 13], None, 128),
            ("tensor.store.3d.u8", "u8", [32, 4, 3], [16, 4, 2], [16, 1, 2], None, 0),
            ("tensor.reduce.2d.u32.add", "u32", [32, 8], [8, 4], [28, 5], "add", 0),
            ("tensor.reduce.2d.f32.add", "f32", [32, 8], [8, 4], [4, 2], "add", 0),
            ("tensor.reduce.2d.s32.min", "s32", [32, 8], [8, 4], [4, 2], "min", 0),
            ("tensor.reduce.1d.u32.xor", "u32", [64], [16], [56], "xor", 0)]:
        eb = {"u8": 1, "f16": 2, "f32": 4, "u32": 4, "s32": 4}[ty]
        rank = len(dims)
        nbox = 1
        for b in box:
            nbox *= b
        nbytes = nbox * eb
        total = eb
        for d in dims:
            total *= d
        sh = "  .shared .align 1024 .b8 sm[%d];\n" % ((nbytes + 1023) // 1024 * 1024)
        cregs = ", ".join("%%r%d" % (20 + i) for i in range(rank))
        movs = "".join("mov.u32 %%r%d, %d;\n" % (20 + i, c) for i, c in enumerate(coords))
        op = ("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group" % (rank, red)
              if red else "cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group" % rank)
        body = (tmap_param() + movs + "mov.u32 %r1, sm;\n"
                + "mov.u32 %%r40, %%tx;\nL_f:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra L_fd;\n" % (nbytes // 4) +
                addr("%rd30", "%ra", "%r40", 4) + "\nld.global.u32 %r43, [%rd30];\n"
                "shl.b32 %r41, %r40, 2;\nadd.u32 %r42, %r1, %r41;\nst.shared.u32 [%r42], %r43;\n"
                "add.u32 %r40, %r40, %nt;\nbra L_f;\nL_fd:\n"
                "fence.proxy.async.shared::cta;\nbar.sync 0;\nsetp.eq.u32 %p1, %tx, 0;\n"
                + "@%%p1 %s [%%rd10, {%s}], [%%r1];\n" % (op, cregs) +
                "@%p1 cp.async.bulk.commit_group;\n@%p1 cp.async.bulk.wait_group 0;\n")
        if ty == "f32":
            words = [f32(RNG.uniform(-100, 100)) for _ in range(nbytes // 4)]
        else:
            words = rand_words(nbytes // 4)
        tm = {"buffer": 0, "type": ty, "dims": dims, "box": box, "swizzle": sw}
        case(name, "tensor", kernel(body, shared=sh, tmaps=1), "u32", total // 4,
             ins=[("u32", 32, words)], block=(128, 1, 1), tmaps=[tm])


def fam_cluster():
    # Special registers of a 2x2 cluster in a 4x4 grid.
    regs = ["%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y",
            "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_nctaid.x", "%cluster_nctaid.y",
            "%cluster_ctarank", "%cluster_nctarank", "%ctaid.x", "%ctaid.y", "%nclusterid.z",
            "%cluster_ctaid.z", "%cluster_nctaid.z"]
    body = ("mov.u32 %r30, %ctaid.y;\nmov.u32 %r31, %nctaid.x;\nmad.lo.u32 %r32, %r30, %r31, %bx;\n"
            "mul.lo.u32 %r33, %r32, 17;\n")
    for i, r in enumerate(regs):
        body += "mov.u32 %%r1, %s;\nadd.u32 %%r2, %%r33, %d;\n" % (r, i) + addr("%rd1", "%ro", "%r2", 4) + "\nst.global.u32 [%rd1], %r1;\n"
    body += ("mov.pred %p1, %is_explicit_cluster;\nselp.u32 %r1, 1, 0, %p1;\nadd.u32 %r2, %r33, 16;\n" +
             addr("%rd1", "%ro", "%r2", 4) + "\nsetp.eq.u32 %p2, %tx, 0;\n@%p2 st.global.u32 [%rd1], %r1;")
    body = "setp.ne.u32 %p3, %tx, 0;\n@%p3 bra L_end;\n" + body + "\nL_end:"
    case("cluster.sregs", "cluster", kernel(body, directives=".reqnctapercluster 2, 2, 1\n"), "u32",
         16 * 17, grid=(4, 4, 1), block=(32, 1, 1), cluster=(2, 2, 1))
    # Distributed shared memory: remote loads, stores, atomics, reductions.
    # The 64-bit xor goes to one word per thread: ptxas (CUDA 13.0, sm_90a) makes a remote
    # 64-bit xor a read-modify-write that is not atomic, so concurrent xors into one word keep
    # whichever store lands last on the GPU (hopper_probe.py --repeat; docs/INTERP.md).
    sh = "  .shared .align 8 .b32 vals[128];\n  .shared .align 8 .u32 cnt;\n  .shared .align 8 .u64 cnt64[64];\n"
    body = """mov.u32 %r1, vals;
mov.u32 %r9, %cluster_ctarank;
mov.u32 %r8, %cluster_nctarank;
shl.b32 %r2, %tx, 2;
add.u32 %r3, %r1, %r2;
""" + addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r4, [%rd1];
st.shared.u32 [%r3], %r4;
setp.eq.u32 %p1, %tx, 0;
mov.u32 %r20, cnt;
mov.u32 %r21, cnt64;
shl.b32 %r22, %tx, 3;
add.u32 %r21, %r21, %r22;
@%p1 st.shared.u32 [%r20], 0;
st.shared.u64 [%r21], 0;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
add.u32 %r5, %r9, 1;
rem.u32 %r5, %r5, %r8;
mapa.shared::cluster.u32 %r6, %r3, %r5;
ld.shared::cluster.u32 %r7, [%r6];
// every thread adds its value into rank 0's counter and xors into its word of the next CTA
mapa.shared::cluster.u32 %r10, %r20, 0;
atom.shared::cluster.add.u32 %r11, [%r10], %r4;
mapa.shared::cluster.u32 %r12, %r21, %r5;
cvt.u64.u32 %rd5, %r4;
red.shared::cluster.xor.b64 [%r12], %rd5;
barrier.cluster.arrive;
barrier.cluster.wait;
// overwrite the neighbour's slot with our value + 1 (after everyone read)
add.u32 %r13, %r4, 1;
st.shared::cluster.u32 [%r6], %r13;
barrier.cluster.arrive;
barrier.cluster.wait;
ld.shared.u32 %r14, [%r3];
ld.shared.u32 %r15, [%r20];
ld.shared.u64 %rd6, [%r21];
cvt.u32.u64 %r16, %rd6;
getctarank.shared::cluster.u32 %r17, %r6;
mul.lo.u32 %r18, %gid, 5;
""" + addr("%rd2", "%ro", "%r18", 4) + """
st.global.u32 [%rd2], %r7;
st.global.u32 [%rd2+4], %r14;
st.global.u32 [%rd2+8], %r15;
st.global.u32 [%rd2+12], %r16;
st.global.u32 [%rd2+16], %r17;"""
    case("cluster.dsmem", "cluster", kernel(body, shared=sh, directives=".reqnctapercluster 4\n"),
         "u32", 4 * 64 * 5, ins=[("u32", 32, [RNG.randrange(0, 1 << 24) for _ in range(256)])],
         grid=(4, 1, 1), block=(64, 1, 1), cluster=(4, 1, 1))
    # Remote mbarrier arrivals: every CTA's thread 0 arrives on rank 0's mbarrier; rank 0 waits
    # and publishes a value the others read through DSMEM after a cluster barrier.
    sh = "  .shared .align 8 .b64 bar;\n  .shared .align 4 .u32 flag;\n"
    body = """mov.u32 %r1, bar;
mov.u32 %r2, flag;
mov.u32 %r9, %cluster_ctarank;
setp.eq.u32 %p1, %tx, 0;
setp.eq.u32 %p2, %r9, 0;
and.pred %p3, %p1, %p2;
@%p3 mbarrier.init.shared::cta.b64 [%r1], 4;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive;
barrier.cluster.wait;
mapa.shared::cluster.u32 %r3, %r1, 0;
@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];
@!%p3 bra L_skip;
L_w:
mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [%r1], 0;
@!%p4 bra L_w;
st.shared.u32 [%r2], 4242;
L_skip:
barrier.cluster.arrive;
barrier.cluster.wait;
mapa.shared::cluster.u32 %r4, %r2, 0;
ld.shared::cluster.u32 %r5, [%r4];
add.u32 %r5, %r5, %r9;
""" + addr("%rd1", "%ro", "%gid", 4) + """
st.global.u32 [%rd1], %r5;
barrier.cluster.arrive;
barrier.cluster.wait;"""
    case("cluster.remote_mbarrier", "cluster", kernel(body, shared=sh, directives=".reqnctapercluster 4\n"),
         "u32", 128, grid=(4, 1, 1), block=(32, 1, 1), cluster=(4, 1, 1))
    # Fences, elect.sync, griddepcontrol: no visible effect beyond ordering.
    body = """griddepcontrol.wait;
""" + addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r1, [%rd1];
fence.proxy.async;
fence.acq_rel.cluster;
fence.sc.cta;
membar.gl;
elect.sync %r2|%p1, 0xffffffff;
selp.u32 %r3, 1000, 0, %p1;
add.u32 %r4, %r1, %r3;
add.u32 %r4, %r4, %r2;
griddepcontrol.launch_dependents;
""" + addr("%rd2", "%ro", "%gid", 4) + """
st.global.u32 [%rd2], %r4;"""
    case("cluster.fences_elect_griddep", "cluster", kernel(body), "u32", 128,
         ins=[("u32", 32, rand_words(128))], grid=(2, 1, 1), block=(64, 1, 1))


def fam_misc():
    sh = ("  .shared .align 8 .u32 s32[8];\n  .shared .align 8 .u64 s64[4];\n  .shared .align 4 .f32 sf;\n"
          "  .shared .align 4 .u32 lock;\n")
    # Shared-memory atomics under contention: only the final values are recorded.
    body = """mov.u32 %r1, s32;
mov.u32 %r2, s64;
setp.eq.u32 %p1, %tx, 0;
mov.u32 %r50, 0;
mov.u32 %r51, 0xffffffff;
mov.u32 %r52, 7;
mov.u32 %r53, 0x80000000;
mov.u64 %rd20, 0;
mov.u64 %rd21, 0xffffffffffffffff;
@%p1 st.shared.v4.u32 [%r1], {%r50, %r51, %r50, %r52};
@%p1 st.shared.v4.u32 [%r1+16], {%r53, %r50, %r51, %r50};
@%p1 st.shared.v2.u64 [%r2], {%rd20, %rd21};
@%p1 st.shared.u64 [%r2+24], %rd20;
@%p1 st.shared.u32 [sf], %r50;
@%p1 st.shared.u32 [lock], %r50;
bar.sync 0;
""" + addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r3, [%rd1];
atom.shared.add.u32 %r4, [%r1], %r3;
atom.shared.and.b32 %r4, [%r1+4], %r3;
atom.shared.or.b32 %r4, [%r1+8], %r3;
atom.shared.inc.u32 %r4, [%r1+12], 20;
atom.shared.max.s32 %r4, [%r1+16], %r3;
atom.shared.xor.b32 %r4, [%r1+20], %r3;
atom.shared.min.u32 %r4, [%r1+24], %r3;
atom.shared.dec.u32 %r4, [%r1+28], 9;
cvt.u64.u32 %rd2, %r3;
atom.shared.add.u64 %rd3, [%r2], %rd2;
red.shared.min.u64 [%r2+8], %rd2;
and.b32 %r5, %r3, 255;
cvt.rn.f32.u32 %r6, %r5;
atom.shared.add.f32 %r7, [sf], %r6;
// a cas spin lock protecting a non-atomic increment (one lane of each warp at a time)
mov.u32 %r9, lock;
mov.u32 %r12, 0;
L_try:
atom.shared.cas.b32 %r10, [%r9], 0, 1;
setp.ne.u32 %p2, %r10, 0;
@%p2 bra L_try;
ld.shared.u64 %rd4, [%r2+24];
add.u64 %rd4, %rd4, 1;
st.shared.u64 [%r2+24], %rd4;
atom.shared.exch.b32 %r11, [%r9], 0;
bar.sync 0;
@!%p1 bra L_end;
ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r1];
ld.shared.v4.u32 {%r24, %r25, %r26, %r27}, [%r1+16];
ld.shared.v2.u64 {%rd5, %rd6}, [%r2];
ld.shared.u64 %rd7, [%r2+24];
ld.shared.u32 %r28, [sf];
mul.lo.u32 %r29, %bx, 16;
""" + addr("%rd8", "%ro", "%r29", 4) + """
st.global.v4.u32 [%rd8], {%r20, %r21, %r22, %r23};
st.global.v4.u32 [%rd8+16], {%r24, %r25, %r26, %r50};
st.global.v2.u64 [%rd8+32], {%rd5, %rd6};
st.global.u64 [%rd8+48], %rd7;
st.global.u32 [%rd8+56], %r28;
L_end:"""
    case("atom.shared.contention", "misc", kernel(body, shared=sh), "u32", 32,
         ins=[("u32", 32, rand_words(256))], grid=(2, 1, 1), block=(128, 1, 1))
    # bar.red over the whole CTA and over a named subset.
    body = """""" + addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r1, [%rd1];
and.b32 %r2, %r1, 3;
setp.ne.u32 %p1, %r2, 0;
bar.red.popc.u32 %r3, 0, %p1;
bar.red.and.pred %p2, 1, %p1;
bar.red.or.pred %p3, 2, %p1;
setp.lt.u32 %p4, %tx, 64;
mov.u32 %r6, 77;
@!%p4 bra L_skip;
setp.gt.u32 %p5, %r1, 1000;
barrier.red.popc.aligned.u32 %r6, 3, 64, %p5;
L_skip:
bar.sync 0;
selp.u32 %r4, 1, 0, %p2;
selp.u32 %r5, 1, 0, %p3;
mul.lo.u32 %r7, %gid, 4;
""" + addr("%rd2", "%ro", "%r7", 4) + """
st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};"""
    case("bar.red.forms", "misc", kernel(body), "u32", 4 * 256,
         ins=[("u32", 32, [RNG.choice([RNG.randrange(0, 2000), RNG.getrandbits(32)]) for _ in range(256)])],
         grid=(2, 1, 1), block=(128, 1, 1))
    # Divergent recursion and indirect calls.
    funcs = """.func (.param .b32 r) fib(.param .b32 n)
{
  .reg .b32 %a, %b, %c, %d;
  .reg .pred %q;
  ld.param.b32 %a, [n];
  setp.lt.u32 %q, %a, 2;
  @%q bra L_base;
  sub.u32 %b, %a, 1;
  { .param .b32 p; .param .b32 rr;
    st.param.b32 [p], %b;
    call (rr), fib, (p);
    ld.param.b32 %c, [rr]; }
  sub.u32 %b, %a, 2;
  { .param .b32 p; .param .b32 rr;
    st.param.b32 [p], %b;
    call (rr), fib, (p);
    ld.param.b32 %d, [rr]; }
  add.u32 %a, %c, %d;
L_base:
  st.param.b32 [r], %a;
  ret;
}
.func (.param .b32 r) f0(.param .b32 x) { .reg .b32 %v; ld.param.b32 %v, [x]; add.u32 %v, %v, 11; st.param.b32 [r], %v; ret; }
.func (.param .b32 r) f1(.param .b32 x) { .reg .b32 %v; ld.param.b32 %v, [x]; mul.lo.u32 %v, %v, 3; st.param.b32 [r], %v; ret; }
.func (.param .b32 r) f2(.param .b32 x) { .reg .b32 %v; ld.param.b32 %v, [x]; xor.b32 %v, %v, 0x5a5a; st.param.b32 [r], %v; ret; }
.func (.param .b32 r) f3(.param .b32 x) { .reg .b32 %v, %w; .reg .pred %q; ld.param.b32 %v, [x]; and.b32 %w, %v, 7;
  { .param .b32 p; .param .b32 rr; st.param.b32 [p], %w; call (rr), fib, (p); ld.param.b32 %v, [rr]; }
  st.param.b32 [r], %v; ret; }
.global .align 8 .u64 table[4] = {f0, f1, f2, f3};
"""
    body = addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r1, [%rd1];
rem.u32 %r2, %r1, 17;
{ .param .b32 p; .param .b32 rr;
  st.param.b32 [p], %r2;
  call (rr), fib, (p);
  ld.param.b32 %r3, [rr]; }
and.b32 %r4, %r1, 3;
mul.wide.u32 %rd2, %r4, 8;
mov.u64 %rd3, table;
add.s64 %rd3, %rd3, %rd2;
ld.global.u64 %rd4, [%rd3];
{ .param .b32 p; .param .b32 rr;
  st.param.b32 [p], %r1;
  Fp: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (rr), %rd4, (p), Fp;
  ld.param.b32 %r5, [rr]; }
mul.lo.u32 %r6, %gid, 2;
""" + addr("%rd5", "%ro", "%r6", 4) + """
st.global.v2.u32 [%rd5], {%r3, %r5};"""
    ptx = kernel(body).replace(".visible .entry k(", funcs + ".visible .entry k(")
    case("call.recursion_indirect", "misc", ptx, "u32", 256,
         ins=[("u32", 32, rand_words(128))], grid=(2, 1, 1), block=(64, 1, 1))
    # elect.sync and redux.sync with partial masks in divergent code.
    body = addr("%rd1", "%ra", "%gid", 4) + """
ld.global.u32 %r1, [%rd1];
rem.u32 %r2, %r1, 3;
setp.eq.u32 %p1, %r2, 0;
vote.sync.ballot.b32 %r3, %p1, 0xffffffff;
mov.u32 %r4, 0;
mov.u32 %r5, 0;
mov.u32 %r6, 0;
mov.u32 %r7, 0;
mov.u32 %r8, 0;
mov.u32 %r9, 0;
@!%p1 bra L_other;
elect.sync %r4|%p2, %r3;
selp.u32 %r5, 1, 0, %p2;
redux.sync.add.u32 %r6, %r1, %r3;
redux.sync.max.s32 %r7, %r1, %r3;
redux.sync.min.u32 %r8, %r1, %r3;
redux.sync.xor.b32 %r9, %r1, %r3;
bra L_join;
L_other:
not.b32 %r10, %r3;
elect.sync %r4|%p2, %r10;
selp.u32 %r5, 2, 0, %p2;
redux.sync.or.b32 %r6, %r1, %r10;
redux.sync.and.b32 %r7, %r1, %r10;
redux.sync.min.s32 %r8, %r1, %r10;
redux.sync.max.u32 %r9, %r1, %r10;
L_join:
mul.lo.u32 %r11, %gid, 6;
""" + addr("%rd2", "%ro", "%r11", 4) + """
st.global.v2.u32 [%rd2], {%r4, %r5};
st.global.v2.u32 [%rd2+8], {%r6, %r7};
st.global.v2.u32 [%rd2+16], {%r8, %r9};"""
    case("elect_redux.partial", "misc", kernel(body), "u32", 6 * 128,
         ins=[("u32", 32, rand_words(128))], grid=(2, 1, 1), block=(64, 1, 1))
    # (redux.sync on f32 needs sm_100a: not on Hopper.)
    # setmaxnreg in a warpgroup: registers are only reallocated, values pass through. The
    # warpgroup synchronises between its two (seed 003: "Must synchronize all warpgroup warps
    # before issuing another setmaxnreg"; corpus/interp/setmaxnreg_rules.ptx has the kernel
    # without the barrier, which the interpreter reports).
    def setmaxnreg_body(first, mid, second, last):
        """Loads the thread's word, then `first`, `mid`, a barrier of the warpgroup, `second`
        and `last` (which leave %r2), and stores %r2."""
        return (addr("%rd1", "%ra", "%gid", 4) + "\nld.global.u32 %r1, [%rd1];\n"
                "setmaxnreg.{}.sync.aligned.u32 {};\n{}\nbar.sync 0;\n"
                "setmaxnreg.{}.sync.aligned.u32 {};\n{}".format(*first, mid, *second, last)
                + addr("%rd2", "%ro", "%gid", 4) + "\nst.global.u32 [%rd2], %r2;")
    case("setmaxnreg", "misc",
         kernel(setmaxnreg_body(("inc", 232), "add.u32 %r2, %r1, 1;", ("dec", 96), ""),
                directives=".maxntid 128, 1, 1\n"), "u32", 128,
         ins=[("u32", 32, rand_words(128))], block=(128, 1, 1))
    # With .maxnreg every warp's count is known from the start: .dec below it, then .inc back.
    case("setmaxnreg.maxnreg", "misc",
         kernel(setmaxnreg_body(("dec", 96), "xor.b32 %r2, %r1, 0x5a5a;", ("inc", 128),
                                "add.u32 %r2, %r2, %tx;\n"),
                directives=".maxntid 256, 1, 1\n.maxnreg 128\n"), "u32", 512,
         ins=[("u32", 32, rand_words(512))], grid=(2, 1, 1), block=(256, 1, 1))
    # alloca / stacksave / stackrestore: the kernels of the golden program
    # corpus/interp/alloca.ptx (its comments list each output word; none depends on where the
    # stack lies). The launcher runs the entry `k`, so the .u32 kernel is renamed for its case.
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                            "corpus", "interp", "alloca.ptx")).read()
    case("alloca.u64", "misc", src, "u32", 16 * 40, block=(40, 1, 1))
    case("alloca.u32", "misc",
         src.replace(".entry k(", ".entry k64(").replace(".entry k32(", ".entry k("),
         "u32", 4 * 32)


def fam_ldmatrix():
    sh = "  .shared .align 16 .b8 sm[4096];\n"
    fill = ("mov.u32 %r1, sm;\nmov.u32 %r40, %tx;\nL_f:\nsetp.ge.u32 %p15, %r40, 1024;\n@%p15 bra L_fd;\n" +
            addr("%rd30", "%ra", "%r40", 4) + "\nld.global.u32 %r43, [%rd30];\n"
            "shl.b32 %r41, %r40, 2;\nadd.u32 %r42, %r1, %r41;\nst.shared.u32 [%r42], %r43;\n"
            "add.u32 %r40, %r40, %nt;\nbra L_f;\nL_fd:\nbar.sync 0;\n")
    rows = list(range(256))
    for num in (1, 2, 4):
        for trans in ("", ".trans"):
            regs = ", ".join("%%r%d" % (10 + i) for i in range(num))
            RNG.shuffle(rows)
            body = (fill + addr("%rd2", "%rb", "%tx", 4) + "\nld.global.u32 %r2, [%rd2];\n"
                    "shl.b32 %r3, %r2, 4;\nadd.u32 %r4, %r1, %r3;\n"
                    + "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [%%r4];\n" % (num, trans, regs) +
                    "mul.lo.u32 %%r5, %%tx, %d;\n" % num + addr("%rd3", "%ro", "%r5", 4) + "\n" +
                    "".join("st.global.u32 [%%rd3+%d], %%r%d;\n" % (4 * i, 10 + i) for i in range(num)))
            case("ldmatrix.x%d%s" % (num, trans), "ldmatrix", kernel(body, shared=sh), "u32", 32 * num,
                 ins=[("u32", 32, rand_words(1024)), ("u32", 32, rows[:32])], block=(32, 1, 1))
            body = ("mov.u32 %r1, sm;\n" + addr("%rd2", "%rb", "%tx", 4) + "\nld.global.u32 %r2, [%rd2];\n"
                    "shl.b32 %r3, %r2, 4;\nadd.u32 %r4, %r1, %r3;\n" +
                    "mul.lo.u32 %%r5, %%tx, %d;\n" % num + addr("%rd3", "%ra", "%r5", 4) + "\n" +
                    "".join("ld.global.u32 %%r%d, [%%rd3+%d];\n" % (10 + i, 4 * i) for i in range(num)) +
                    "mov.u32 %r50, 0;\nmov.u32 %r40, %tx;\nL_z:\nsetp.ge.u32 %p15, %r40, 1024;\n@%p15 bra L_zd;\n"
                    "shl.b32 %r41, %r40, 2;\nadd.u32 %r42, %r1, %r41;\nst.shared.u32 [%r42], %r50;\n"
                    "add.u32 %r40, %r40, %nt;\nbra L_z;\nL_zd:\nbar.sync 0;\n"
                    + "stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [%%r4], {%s};\nbar.sync 0;\n" % (num, trans, regs) +
                    smem_to_out("%r1", 4096))
            case("stmatrix.x%d%s" % (num, trans), "ldmatrix", kernel(body, shared=sh), "u32", 1024,
                 ins=[("u32", 32, rand_words(32 * num)), ("u32", 32, rows[:32])], block=(32, 1, 1))
    body = (addr("%rd1", "%ra", "%tx", 4) + "\nld.global.u32 %r1, [%rd1];\n"
            "movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;\n" + addr("%rd2", "%ro", "%tx", 4) +
            "\nst.global.u32 [%rd2], %r2;")
    case("movmatrix", "ldmatrix", kernel(body), "u32", 32, ins=[("u32", 32, rand_words(32))],
         block=(32, 1, 1))


# ----------------------------------------------------------------------------- MMA inputs

def rand_float(ty, kind):
    """One element's bits."""
    if ty in ("f16", "bf16"):
        if kind == "edge":
            return RNG.getrandbits(16)
        lo, hi = {"unit": (-4, 4), "wide": (-14, 14) if ty == "f16" else (-60, 60),
                  "cancel": (-2, 2)}[kind]
        x = (1 + RNG.random()) * 2.0 ** RNG.randint(lo, hi) * RNG.choice([1, -1])
        return f16(x) if ty == "f16" else bf16(x)
    if ty in ("tf32", "f32"):
        if kind == "edge":
            return RNG.getrandbits(32)
        lo, hi = {"unit": (-4, 4), "wide": (-60, 60), "cancel": (-2, 2)}[kind]
        return f32((1 + RNG.random()) * 2.0 ** RNG.randint(lo, hi) * RNG.choice([1, -1]))
    if ty in ("e4m3", "e5m2"):
        if kind == "edge":
            return RNG.getrandbits(8)
        # sign, mid-range exponent, any mantissa (no NaN/inf patterns)
        if ty == "e4m3":
            e = RNG.randint(4, 10)
            return (RNG.getrandbits(1) << 7) | (e << 3) | RNG.getrandbits(3)
        e = RNG.randint(10, 20)
        return (RNG.getrandbits(1) << 7) | (e << 2) | RNG.getrandbits(2)
    if ty == "f64":
        if kind == "edge":
            return RNG.getrandbits(64)
        return f64b(RNG.uniform(-8, 8) * 2.0 ** RNG.randint(-20, 20))
    bits = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32}[ty]
    return RNG.getrandbits(bits)


TBITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
         "s4": 4, "u4": 4, "s32": 32, "f64": 64}


def pack_words(ty, kind, nelems):
    """nelems elements of `ty`, packed little-endian into 32-bit words (64-bit for f64)."""
    b = TBITS[ty]
    if b >= 32:
        return [rand_float(ty, kind) for _ in range(nelems)]
    per = 32 // b
    words = []
    for _ in range((nelems + per - 1) // per):
        w = 0
        for j in range(per):
            w |= (rand_float(ty, kind) & ((1 << b) - 1)) << (b * j)
        words.append(w)
    if kind == "cancel" and ty in ("f16", "bf16"):
        # pairs that cancel exactly, leaving small terms to accumulate
        for i in range(0, len(words), 2):
            if i + 1 < len(words):
                words[i + 1] = words[i] ^ 0x80008000
    return words


def nregs(elems, ty):
    b = TBITS[ty]
    return elems if b >= 32 else max(1, elems * b // 32)


def fam_mma():
    shapes = [
        ((16, 8, 16), "f32", "f16", "f16", "f32", ""), ((16, 8, 16), "f16", "f16", "f16", "f16", ""),
        ((16, 8, 8), "f32", "f16", "f16", "f32", ""), ((16, 8, 8), "f16", "f16", "f16", "f16", ""),
        ((16, 8, 16), "f32", "bf16", "bf16", "f32", ""), ((16, 8, 8), "f32", "bf16", "bf16", "f32", ""),
        ((16, 8, 8), "f32", "tf32", "tf32", "f32", ""), ((16, 8, 4), "f32", "tf32", "tf32", "f32", ""),
        ((16, 8, 32), "f32", "e4m3", "e4m3", "f32", ""), ((16, 8, 32), "f32", "e5m2", "e4m3", "f32", ""),
        ((16, 8, 32), "f16", "e4m3", "e5m2", "f16", ""), ((16, 8, 16), "f32", "e4m3", "e4m3", "f32", ""),
        ((8, 8, 16), "s32", "s8", "s8", "s32", ""), ((16, 8, 16), "s32", "u8", "s8", "s32", ""),
        ((16, 8, 32), "s32", "s8", "u8", "s32", ".satfinite"), ((16, 8, 32), "s32", "s8", "s8", "s32", ""),
        ((8, 8, 32), "s32", "u4", "s4", "s32", ""), ((16, 8, 32), "s32", "s4", "s4", "s32", ".satfinite"),
        ((16, 8, 4), "f64", "f64", "f64", "f64", ""), ((16, 8, 8), "f64", "f64", "f64", "f64", ".rz"),
        ((16, 8, 16), "f64", "f64", "f64", "f64", ".rm"),
    ]
    for (m, n, k), dt, at, bt, ct, mod in shapes:
        ea, eb_, ec = m * k // 32, k * n // 32, m * n // 32
        na, nb, nc, nd = nregs(ea, at), nregs(eb_, bt), nregs(ec, ct), nregs(ec, dt)
        wide = TBITS[at] == 64
        rt, w, reg = ("b64", 8, "%rd") if wide else ("b32", 4, "%r")
        base = (10, 14, 22, 26) if wide else (10, 20, 30, 40)
        regs = [", ".join("%s%d" % (reg, base[j] + i) for i in range(cnt))
                for j, cnt in enumerate((nd, na, nb, nc))]
        loads = ""
        for j, (cnt, src) in enumerate(((na, "%ra"), (nb, "%rb"), (nc, "%rc"))):
            loads += ("mul.lo.u32 %%r60, %%gid, %d;\n" % cnt + addr("%%rd%d" % (1 + j), src, "%r60", w) + "\n" +
                      "".join("ld.global.%s %s%d, [%%rd%d+%d];\n" % (rt, reg, base[j + 1] + i, 1 + j, w * i)
                              for i in range(cnt)))
        typ = ".%s.%s.%s.%s" % (dt, at, bt, ct)
        body = (loads + "mma.sync.aligned.m%dn%dk%d.row.col%s%s {%s}, {%s}, {%s}, {%s};\n" %
                (m, n, k, mod, typ, regs[0], regs[1], regs[2], regs[3]) +
                "mul.lo.u32 %%r61, %%gid, %d;\n" % nd + addr("%rd4", "%ro", "%r61", w) + "\n" +
                "".join("st.global.%s [%%rd4+%d], %s%d;\n" % (rt, w * i, reg, base[0] + i) for i in range(nd)))
        decls = ""
        name = "mma.m%dn%dk%d%s%s" % (m, n, k, mod, typ)
        kinds = ["unit", "edge", "wide"] if at not in ("s8", "u8", "s4", "u4") else ["edge"]
        if at in ("f16", "bf16"):
            kinds.append("cancel")
        for kind in kinds:
            ins = [("b64" if wide else "u32", 64 if wide else 32, pack_words(at, kind, 64 * ea)),
                   ("b64" if wide else "u32", 64 if wide else 32, pack_words(bt, kind, 64 * eb_)),
                   ("b64" if wide else "u32", 64 if wide else 32,
                    pack_words(ct, "unit" if kind != "edge" else "edge", 64 * ec) if ct != "s32"
                    else rand_words(64 * ec))]
            case(name + "#" + kind, "mma", kernel(body, decls=decls), "b64" if wide else "u32",
                 64 * nd, ins=ins, block=(64, 1, 1))


def wg_layout(esize, major, swz, rows, kelems, nsteps):
    """Descriptor constant (LBO, SBO, swizzle fields), the start-address advance per K step
    (bytes) and the region size for a rows x (kelems * nsteps) matrix."""
    t = 16 // esize
    sw_code = {0: 0, 128: 1, 64: 2, 32: 3}[swz]
    if major == "K":
        if swz == 0:
            lbo, sbo = 128, (kelems // t) * 128
            step = (rows // 8) * sbo
            size = step * nsteps
        else:
            lbo, sbo = 16, 8 * swz
            step = kelems * esize
            size = (rows // 8) * sbo
            assert step * nsteps <= swz
    else:  # MN-major, f16/bf16 only
        if swz == 0:
            sbo = 128
            lbo = (rows // 8) * 128
            step = (kelems // 8) * lbo
            size = step * nsteps
        else:
            per = swz // esize
            sbo = 8 * swz
            step = (kelems // 8) * sbo
            lbo = step * nsteps
            size = lbo * ((rows + per - 1) // per)
    const = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (sw_code << 62)
    return const, step, size


def fam_wgmma():
    cases = [
        # dtype, atype, btype, N, A major, B major, swizzle, A in regs, steps, scale_d, neg
        ("f32", "f16", "f16", 8, "K", "K", 0, False, 1, False, (1, 1)),
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("f32", "f16", "f16", 128, "K", "MN", 128, False, 4, True, (1, 1)),
        ("f32", "f16", "f16", 256, "K", "K", 128, False, 1, False, (1, 1)),
        ("f32", "f16", "f16", 64, "MN", "MN", 128, False, 2, True, (-1, 1)),
        ("f32", "f16", "f16", 32, "K", "K", 64, False, 2, True, (1, -1)),
        ("f32", "f16", "f16", 16, "K", "K", 32, False, 1, True, (1, 1)),
        ("f32", "f16", "f16", 64, "MN", "MN", 0, False, 2, True, (1, 1)),
        ("f32", "f16", "f16", 32, "MN", "K", 64, False, 1, False, (1, 1)),
        ("f16", "f16", "f16", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("f32", "bf16", "bf16", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("f32", "bf16", "bf16", 128, "K", "MN", 0, False, 1, True, (1, 1)),
        ("f32", "f16", "f16", 64, "regs", "K", 128, True, 4, True, (1, 1)),
        ("f32", "tf32", "tf32", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("f32", "tf32", "tf32", 32, "K", "K", 0, False, 1, True, (1, -1)),
        ("f32", "e4m3", "e4m3", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("f32", "e5m2", "e4m3", 32, "K", "K", 0, False, 1, True, (1, 1)),
        ("f16", "e4m3", "e5m2", 64, "K", "K", 128, False, 2, True, (1, 1)),
        ("s32", "s8", "s8", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("s32", "u8", "s8", 32, "K", "K", 0, False, 1, True, (1, 1)),
    ]
    wgmma_cases(cases, "wgmma")


def fam_wgmmabase():
    """Matrices that start past a 1024-byte boundary, with and without the descriptors' matrix
    base offset (the data is copied in from global memory at that start, so the case shows how
    the swizzle phase is computed)."""
    wgmma_cases([
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 1, False, (1, 1), 384, 0),
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 1, False, (1, 1), 384, 3),
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 1, False, (1, 1), 384, 5),
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 1, False, (1, 1), 0, 2),
        ("f32", "f16", "f16", 32, "K", "K", 64, False, 1, False, (1, 1), 128, 1),
        ("f32", "f16", "f16", 32, "K", "K", 64, False, 1, False, (1, 1), 128, 0),
        ("f32", "f16", "f16", 64, "MN", "MN", 128, False, 1, False, (1, 1), 256, 2),
        ("f32", "f16", "f16", 64, "MN", "MN", 128, False, 1, False, (1, 1), 256, 0),
        ("f32", "f16", "f16", 16, "K", "K", 32, False, 1, False, (1, 1), 128, 1),
    ], "wgmmabase")


def fam_wgmmab1():
    """Single-bit `wgmma.mma_async` (`m64nNk256.s32.b1.b1.and.popc`), K-major, with and without
    swizzling (A and B random bits)."""
    wgmma_cases([
        ("s32", "b1", "b1", 8, "K", "K", 0, False, 1, True, (1, 1)),
        ("s32", "b1", "b1", 64, "K", "K", 0, False, 2, True, (1, 1)),
        ("s32", "b1", "b1", 64, "K", "K", 128, False, 4, True, (1, 1)),
        ("s32", "b1", "b1", 128, "K", "K", 64, False, 2, False, (1, 1)),
        ("s32", "b1", "b1", 256, "K", "K", 32, False, 1, True, (1, 1)),
    ], "wgmmab1")


def wgmma_cases(cases, family):
    """One case per entry: `wgmma.mma_async` steps over matrices in shared memory (or A in
    registers) from random inputs, the accumulator from `in2`, D to `out`."""
    for entry in cases:
        (dt, at, bt, n, amaj, bmaj, swz, aregs, steps, scale_d, (sa, sb)) = entry[:11]
        # Optional: both matrices start `shift` bytes past a 1024-byte boundary, and the
        # descriptors carry matrix base offset `base` (bits 49-51).
        shift, base = entry[11:13] if len(entry) > 11 else (0, 0)
        # Optional: sparse (`wgmma.mma_async.sp`) with sparsity selector `sel`: A holds K / 2
        # columns; each thread's metadata word follows C in `in2`.
        sparse, sel = entry[13:15] if len(entry) > 13 else (False, 0)
        # A single-bit K row of 256 elements is 32 bytes, laid out as 32 one-byte elements.
        esize = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1,
                 "b1": 1}[at]
        kel = 32 // esize
        half = at in ("f16", "bf16")
        nd = n // 2 if dt != "f16" else n // 4
        kdense = 2 * kel if sparse else kel
        if aregs:
            acon, astep, asize = 0, 0, 0
        else:
            acon, astep, asize = wg_layout(esize, amaj, swz, 64, kel, steps)
        bcon, bstep, bsize = wg_layout(esize, bmaj, swz, n, kdense, steps)
        asize = max(asize, 1024) + shift
        bsize = max(bsize, 1024) + shift
        sh = ("  .shared .align 1024 .b8 sa[%d];\n  .shared .align 1024 .b8 sb[%d];\n" % (asize, bsize))
        decls = "  .reg .b32 %%d<%d>;\n  .reg .b64 %%da, %%db;\n" % nd
        fill = ""
        for reg, src, size in (("%r1", "%ra", asize if not aregs else 0), ("%r2", "%rb", bsize)):
            if not size:
                continue
            lbl = "F" + reg[2:]
            fill += ("mov.u32 %%r40, %%tx;\n%s:\nsetp.ge.u32 %%p15, %%r40, %d;\n@%%p15 bra %sd;\n" % (lbl, size // 4, lbl) +
                     addr("%rd30", src, "%r40", 4) + "\nld.global.u32 %r43, [%rd30];\n"
                     + "shl.b32 %%r41, %%r40, 2;\nadd.u32 %%r42, %s, %%r41;\nst.shared.u32 [%%r42], %%r43;\n" % reg +
                     "add.u32 %%r40, %%r40, %%nt;\nbra %s;\n%sd:\n" % (lbl, lbl))
        body = "mov.u32 %r1, sa;\nmov.u32 %r2, sb;\n" + fill
        if shift:
            body += "add.u32 %%r1, %%r1, %d;\nadd.u32 %%r2, %%r2, %d;\n" % (shift, shift)
        body += "fence.proxy.async.shared::cta;\nbar.sync 0;\n"
        dregs = ", ".join("%%d%d" % i for i in range(nd))
        # initial accumulator from in2
        body += "mul.lo.u32 %%r60, %%tx, %d;\n" % nd + addr("%rd3", "%rc", "%r60", 4) + "\n"
        body += "".join("ld.global.u32 %%d%d, [%%rd3+%d];\n" % (i, 4 * i) for i in range(nd))
        if aregs:
            body += ("mul.lo.u32 %r61, %tx, 4;\n" + addr("%rd4", "%ra", "%r61", 4) + "\n" +
                     "".join("ld.global.u32 %%r%d, [%%rd4+%d];\n" % (10 + i, 4 * i) for i in range(4)))
        for reg, dreg, con in (("%r1", "%da", acon), ("%r2", "%db", bcon)):
            if reg == "%r1" and aregs:
                continue
            body += ("shr.u32 %%r3, %s, 4;\nand.b32 %%r3, %%r3, 16383;\ncvt.u64.u32 %s, %%r3;\n"
                     "or.b64 %s, %s, %d;\n" % (reg, dreg, dreg, dreg, con | (base << 49)))
        body += "setp.ne.u32 %%p1, %d, 0;\n" % (1 if scale_d else 0)
        body += "wgmma.fence.sync.aligned;\n"
        shape = "m64n%dk%d" % (n, 256 if at == "b1" else kdense)
        if sparse:
            body += ("mul.lo.u32 %r63, %tx, 1;\n" + addr("%rd8", "%rc", "%r63", 4) + "\n"
                     "ld.global.u32 %%r20, [%%rd8+%d];\n" % (4 * 128 * nd))
        for s in range(steps):
            adesc = "{%r10, %r11, %r12, %r13}" if aregs else "%rd5"
            if not aregs:
                body += "add.s64 %%rd5, %%da, %d;\n" % ((astep * s) >> 4)
            body += "add.s64 %%rd6, %%db, %d;\n" % ((bstep * s) >> 4)
            if aregs:
                # a different A fragment per step: rotate the registers
                pass
            imm = ""
            if at not in ("s8", "u8", "b1"):
                imm = ", %d, %d" % (sa, sb)
                if half:
                    imm += (", %d" % (1 if bmaj == "MN" else 0)) if aregs else \
                        (", %d, %d" % (1 if amaj == "MN" else 0, 1 if bmaj == "MN" else 0))
            pred = "%p1" if s == 0 else "1"
            op = ".and.popc" if at == "b1" else ""
            spo = ", %%r20, %d" % sel if sparse else ""
            body += ("wgmma.mma_async%s.sync.aligned.%s.%s.%s.%s%s {%s}, %s, %%rd6%s, %s%s;\n" %
                     (".sp" if sparse else "", shape, dt, at, bt, op, dregs, adesc, spo, pred, imm))
        body += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
        body += "mul.lo.u32 %%r62, %%tx, %d;\n" % nd + addr("%rd7", "%ro", "%r62", 4) + "\n"
        body += "".join("st.global.u32 [%%rd7+%d], %%d%d;\n" % (4 * i, i) for i in range(nd))
        name = "wgmma.%s.%s.%s.%s.a%s.b%s.sw%d.k%d%s%s" % (
            shape, dt, at, bt, amaj, bmaj, swz, steps, "" if scale_d else ".nod",
            "" if (sa, sb) == (1, 1) else ".neg%d%d" % (sa, sb)) + (
            ".at%d.base%d" % (shift, base) if shift or base else "") + (
            ".sp%d" % sel if sparse else "")
        kind = "unit"
        if at == "b1":
            aw, bw = rand_words(asize // 4), rand_words(bsize // 4)
        else:
            aw = pack_words(at, kind, asize // esize) if not aregs else \
                pack_words(at, kind, 128 * 8)
            bw = pack_words(bt, kind, bsize // esize)
        cty = {"f32": "f32", "f16": "f16", "s32": "s32"}[dt]
        cw = pack_words(cty, "unit", 128 * nd * (2 if dt == "f16" else 1)) if dt != "s32" else rand_words(128 * nd)
        cw = cw[:128 * nd]
        if sparse:
            cw = cw + [sparse_meta(at) for _ in range(128)]
        case(name, family, kernel(body, decls=decls, shared=sh), "u32", 128 * nd,
             ins=[("u32", 32, aw), ("u32", 32, bw), ("u32", 32, cw)], block=(128, 1, 1))


def sparse_meta(at):
    """A random valid sparsity metadata word: eight nibbles naming two distinct positions of
    four in increasing order (tf32: 0b0100 or 0b1110)."""
    if at == "tf32":
        nibs = [RNG.choice([0x4, 0xE]) for _ in range(8)]
    else:
        nibs = [RNG.choice([0x4, 0x8, 0xC, 0x9, 0xD, 0xE]) for _ in range(8)]
    return sum(v << (4 * i) for i, v in enumerate(nibs))


def fam_wgmmasp():
    """Sparse `wgmma.mma_async.sp`: A compressed (K / 2 columns) from a descriptor or from
    registers, random valid metadata per thread, every selector the ISA allows."""
    wgmma_cases([
        ("f32", "f16", "f16", 8, "K", "K", 0, False, 1, False, (1, 1), 0, 0, True, 0),
        ("f32", "f16", "f16", 8, "K", "K", 0, False, 1, False, (1, 1), 0, 0, True, 1),
        ("f32", "f16", "f16", 64, "K", "K", 128, False, 1, True, (1, 1), 0, 0, True, 0),
        ("f32", "bf16", "bf16", 32, "K", "K", 64, False, 1, True, (1, 1), 0, 0, True, 1),
        ("f16", "f16", "f16", 16, "K", "K", 0, False, 1, True, (1, 1), 0, 0, True, 0),
        ("f32", "f16", "f16", 16, "regs", "K", 0, True, 1, True, (1, 1), 0, 0, True, 1),
        ("f32", "tf32", "tf32", 16, "K", "K", 0, False, 1, True, (1, 1), 0, 0, True, 0),
        ("f32", "tf32", "tf32", 16, "K", "K", 128, False, 1, True, (1, 1), 0, 0, True, 1),
        ("s32", "s8", "s8", 16, "K", "K", 0, False, 1, True, (1, 1), 0, 0, True, 0),
        ("s32", "u8", "s8", 32, "K", "K", 128, False, 1, True, (1, 1), 0, 0, True, 0),
        ("f32", "e4m3", "e4m3", 16, "K", "K", 0, False, 1, True, (1, 1), 0, 0, True, 0),
        ("f32", "e5m2", "e4m3", 32, "K", "K", 128, False, 1, True, (1, 1), 0, 0, True, 0),
    ], "wgmmasp")


register()


# ----------------------------------------------------------------------------- running

def to_bytes(vals, width):
    nb = max(width // 8, 1)
    return b"".join((v & ((1 << (8 * nb)) - 1)).to_bytes(nb, "little") for v in vals)


def from_bytes(b, width):
    nb = max(width // 8, 1)
    return [int.from_bytes(b[i:i + nb], "little") for i in range(0, len(b), nb)]


def record(c, out_vals):
    oty, n = c["out"]
    w = WIDTH.get(oty, 32)
    r = {"name": c["name"], "family": c["family"], "grid": c["grid"], "block": c["block"],
         "entry": "k", "ptx": c["ptx"], "params": ["out", "in0", "in1", "in2"],
         "args": [{"type": t, "hex": hexs(v, wd)} for t, wd, v in c["ins"]],
         "out": {"type": oty, "hex": hexs(out_vals, w)}}
    if c["cluster"]:
        r["cluster"] = c["cluster"]
    if c["shared"]:
        r["shared"] = c["shared"]
    if c["tmaps"]:
        r["tmaps"] = c["tmaps"]
    return r


def run_case(drv, c):
    import cudrv
    oty, n = c["out"]
    w = WIDTH.get(oty, 32)
    nb = max(w // 8, 1)
    mod = drv.load(c["ptx"])
    ptrs = []
    try:
        f = drv.function(mod, "k", c["shared"])
        ptrs.append(drv.alloc(b"\xab" * (n * nb)))
        for i in range(3):
            if i < len(c["ins"]):
                t, wd, v = c["ins"][i]
                ptrs.append(drv.alloc(to_bytes(v, wd)))
            else:
                ptrs.append(drv.alloc(b"\0"))
        params = [cudrv.u64(p) for p in ptrs]
        for tm in c["tmaps"]:
            if tm.get("mode") == "im2col":
                params.append(drv.tensor_map_im2col(ptrs[tm["buffer"]], tm))
            else:
                params.append(drv.tensor_map(ptrs[tm["buffer"]], tm))
        drv.launch(f, c["grid"], c["block"], params, c["shared"])
        return from_bytes(drv.read(ptrs[0], n * nb), w)
    finally:
        for p in ptrs:
            drv.free(p)
        drv.unload(mod)


def replace_cases(old_path, new_path):
    """Rewrites `new_path` (the cases just recorded) as `old_path`'s cases, each recorded one
    in place of the old case of its name and the others appended."""
    import lzma
    opener = lzma.open if old_path.endswith(".xz") else open
    with opener(old_path, "rt") as f:
        old = [json.loads(line) for line in f if line.strip()]
    with open(new_path) as f:
        new = {r["name"]: r for r in (json.loads(line) for line in f if line.strip())}
    merged = [new.pop(r["name"], r) for r in old] + list(new.values())
    with open(new_path, "w") as f:
        for r in merged:
            f.write(json.dumps(r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="corpus/vectors/hopper.jsonl.xz",
                    help="the vectors file; a name ending in .xz is written xz-compressed")
    ap.add_argument("--family", action="append", default=[],
                    help="family to run (%s)" % ", ".join(FAMILIES))
    ap.add_argument("--list", action="store_true", help="print the cases; no GPU needed")
    ap.add_argument("--dry", metavar="PATH", help="write the cases with zero outputs (no GPU)")
    ap.add_argument("--only", default="",
                    help="comma-separated case names: run only these")
    ap.add_argument("--replace", metavar="FILE",
                    help="with --only: write FILE's cases to --out with the recorded ones in "
                    "place of those of the same name (new names are appended)")
    ap.add_argument("--start", type=int, default=0,
                    help="first case index to run, appending to --out (used to go on in a fresh "
                    "process after an error that leaves the CUDA context unusable)")
    a = ap.parse_args()
    for name, f in FAMILIES.items():
        if not a.family or name in a.family:
            f()
    names = set()
    for c in CASES:
        if c["name"] in names:
            raise SystemExit("duplicate case name " + c["name"])
        names.add(c["name"])
    if a.only:
        want = a.only.split(",")
        missing = [n for n in want if n not in names]
        if missing:
            raise SystemExit("no case named " + ", ".join(missing))
        CASES[:] = [c for c in CASES if c["name"] in want]
    if a.list:
        for c in CASES:
            print(c["family"], c["name"])
        print("%d cases" % len(CASES), file=sys.stderr)
        return
    if a.dry:
        with open(a.dry, "w") as f:
            for c in CASES:
                f.write(json.dumps(record(c, [0] * c["out"][1])) + "\n")
        print("%d cases written to %s" % (len(CASES), a.dry), file=sys.stderr)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cudrv
    drv = cudrv.Driver()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    ok = bad = 0
    # An illegal instruction or address leaves the process's CUDA context unusable (the primary
    # context cannot be retained again), so after such an error the remaining cases run in a
    # fresh process that appends to the same file.
    plain = a.out[:-3] if a.out.endswith(".xz") else a.out
    with open(plain, "a" if a.start else "w") as f:
        for i, c in enumerate(CASES):
            if i < a.start:
                continue
            try:
                vals = run_case(drv, c)
            except cudrv.CudaError as e:
                print("skip %s: %s" % (c["name"], str(e)[:2000]), file=sys.stderr)
                if e.sticky:
                    f.flush()
                    sys.stderr.flush()
                    argv = [a for a in sys.argv if not a.startswith("--start")]
                    os.execv(sys.executable, [sys.executable] + argv + ["--start=%d" % (i + 1)])
                bad += 1
                continue
            f.write(json.dumps(record(c, vals)) + "\n")
            f.flush()
            ok += 1
    if a.replace:
        replace_cases(a.replace, plain)
    if plain != a.out:
        compress_out(a.out)
    print("%d cases written to %s from index %d, %d skipped" % (ok, a.out, a.start, bad),
          file=sys.stderr)


if __name__ == "__main__":
    main()
