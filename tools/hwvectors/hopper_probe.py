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

Usage (GPU machine):

    python3 tools/hwvectors/hopper_probe.py --out $OUT/probe_h.jsonl --log $OUT/probe_h.log \
        [--sass $OUT/sass] [--only PREFIX]

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--sass", help="directory for ptxas + cuobjdump -sass listings")
    ap.add_argument("--only", default="", help="run only probes whose name starts with this")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    hopper.CASES.clear()
    tmap_probes()
    dsmem_probes()
    tred_probes()
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
