"""What ptxas and the GPU do with hostile PTX: the facts `ptx`'s limits are set from.

Run on the GPU machine: `python3 tools/hostile/probe.py OUTDIR`. Writes OUTDIR/ptxas.tsv
(one row per probe module: name, ptxas exit status, first line of its message) and
OUTDIR/stack.txt (the default per-thread stack size, the deepest recursion of functions with
several frame sizes that runs under it and under a larger limit, and ptxas's frame sizes).
"""

import ctypes
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "hwvectors"))
import cudrv  # noqa: E402

HEAD = b".version 8.0\n.target sm_90\n.address_size 64\n"
KERNEL = b".visible .entry k()\n{\n\tret;\n}\n"


def probes():
    p = {}
    p["base"] = HEAD + KERNEL
    p["bom"] = b"\xef\xbb\xbf" + HEAD + KERNEL
    p["ff_line_comment"] = HEAD + b"// a \xff byte\n" + KERNEL
    p["ff_block_comment"] = HEAD + b"/* a \xff byte */\n" + KERNEL
    p["utf8_comment"] = HEAD + "// caf\u00e9\n".encode() + KERNEL
    p["ff_identifier"] = HEAD + b".global .u32 a\xffb;\n" + KERNEL
    p["utf8_identifier"] = HEAD + ".global .u32 a\u00e9b;\n".encode() + KERNEL
    p["ff_file_string"] = HEAD + b'.file 1 "a\xff.cu"\n' + KERNEL
    p["utf8_file_string"] = HEAD + '.file 1 "caf\u00e9.cu"\n'.encode() + KERNEL
    p["ff_code"] = HEAD + b".visible .entry k()\n{\n\tret; \xff\n}\n"
    p["nul_comment"] = HEAD + b"// a \x00 byte\n" + KERNEL
    p["ptx_version_99_9"] = b".version 99.9\n.target sm_90\n.address_size 64\n" + KERNEL
    p["address_size_72"] = b".version 8.0\n.target sm_90\n.address_size 72\n" + KERNEL
    for n in ["2147483647", "2147483648", "4294967295", "4294967296", "1099511627776",
              "10995116277760", "18446744073709551615", "79228162514264337593543950336"]:
        p["global_u8_" + n] = HEAD + (".global .u8 big[%s];\n" % n).encode() + KERNEL
        p["shared_u8_" + n] = HEAD + (".shared .u8 big[%s];\n" % n).encode() + KERNEL
    for n in ["49152", "49153", "232448", "232449", "16777216"]:
        p["shared_u8_" + n] = HEAD + (".shared .u8 big[%s];\n" % n).encode() + KERNEL
        p["const_u8_" + n] = HEAD + (".const .u8 big[%s];\n" % n).encode() + KERNEL
    for n in ["65536", "65537", "16777216"]:
        p["const_u8_" + n] = HEAD + (".const .u8 big[%s];\n" % n).encode() + KERNEL
    for n in [100, 256, 384, 390, 1000, 10000, 100000]:
        e = "+".join(["1"] * n)
        p["flat_sum_%d" % n] = HEAD + (".global .u32 x = %s;\n" % e).encode() + KERNEL
        e = "(" * n + "1" + ")" * n
        p["parens_%d" % n] = HEAD + (".global .u32 x = %s;\n" % e).encode() + KERNEL
        e = "-" * n + "1"
        p["unary_%d" % n] = HEAD + (".global .u32 x = %s;\n" % e).encode() + KERNEL
    p["dup_func"] = (HEAD + b".visible .func f()\n{\n\tret;\n}\n.visible .func f()\n{\n\tret;\n}\n"
                     + KERNEL)
    p["dup_entry"] = HEAD + KERNEL + KERNEL
    p["reg_4e9"] = (HEAD + b".visible .entry k()\n{\n\t.reg .b32 %r<4000000000>;\n\tret;\n}\n")
    p["reg_4e9_used"] = (HEAD + b".visible .entry k(.param .u64 o)\n{\n\t.reg .b32 %r<4000000000>;"
                         b"\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [o];\n\tmov.u32 %r3999999999, 7;"
                         b"\n\tst.global.u32 [%rd1], %r3999999999;\n\tret;\n}\n")
    return p


def run_ptxas(outdir):
    os.makedirs(os.path.join(outdir, "mods"), exist_ok=True)
    rows = []
    for name, text in probes().items():
        path = os.path.join(outdir, "mods", name + ".ptx")
        with open(path, "wb") as f:
            f.write(text)
        try:
            r = subprocess.run(["ptxas", "-arch=sm_90", path, "-o", "/dev/null"],
                               capture_output=True, timeout=120)
            msg = (r.stderr + r.stdout).decode(errors="replace").strip().splitlines()
            first = msg[0] if msg else ""
            rows.append("%s\t%d\t%s" % (name, r.returncode, first.replace(path, "X")))
        except subprocess.TimeoutExpired:
            rows.append("%s\ttimeout\t" % name)
    with open(os.path.join(outdir, "ptxas.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))


def rec_module(local_bytes):
    """A recursive .func with a `.local` array of local_bytes (0: none) kept live across the call."""
    loc = use = back = ""
    if local_bytes:
        # Stored and loaded at indices that are equal at run time but not as expressions, so
        # that ptxas keeps the array in the frame instead of forwarding the value.
        mask = local_bytes // 4 - 1
        loc = "\t.local .align 4 .b8 buf[%d];\n\t.reg .b64 %%rl<6>;\n" % local_bytes
        use = ("\tmov.u64 %%rl1, buf;\n\tand.b32 %%r5, %%r1, %d;\n\tmul.wide.u32 %%rl2, %%r5, 4;\n"
               "\tadd.s64 %%rl3, %%rl1, %%rl2;\n\tst.local.u32 [%%rl3], %%r1;\n") % mask
        back = ("\tmul.lo.u32 %%r5, %%r1, %d;\n\tadd.u32 %%r5, %%r5, %%r1;\n\tand.b32 %%r5, %%r5, %d;\n"
                "\tmul.wide.u32 %%rl4, %%r5, 4;\n\tadd.s64 %%rl5, %%rl1, %%rl4;\n"
                "\tld.local.u32 %%r4, [%%rl5];\n\tsub.s32 %%r4, %%r4, %%r1;\n"
                "\tadd.s32 %%r3, %%r3, %%r4;\n") % (mask + 1, mask)
    return """.version 8.0
.target sm_90
.address_size 64
.visible .func (.param .b32 r) f(.param .b32 d)
{
\t.reg .b32 %%r<6>;
\t.reg .pred %%p;
%s\tld.param.b32 %%r1, [d];
\tmov.u32 %%r3, %%r1;
\tsetp.eq.s32 %%p, %%r1, 0;
\t@%%p bra DONE;
%s\tsub.s32 %%r2, %%r1, 1;
\t{
\t.param .b32 a;
\t.param .b32 rv;
\tst.param.b32 [a], %%r2;
\tcall (rv), f, (a);
\tld.param.b32 %%r3, [rv];
\t}
%s\tadd.s32 %%r3, %%r3, 1;
DONE:
\tst.param.b32 [r], %%r3;
\tret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
\t.reg .b32 %%r<4>;
\t.reg .b64 %%rd<2>;
\tld.param.u64 %%rd1, [out];
\tld.param.u32 %%r1, [n];
\t{
\t.param .b32 a;
\t.param .b32 rv;
\tst.param.b32 [a], %%r1;
\tcall (rv), f, (a);
\tld.param.b32 %%r2, [rv];
\t}
\tst.global.u32 [%%rd1], %%r2;
\tret;
}
""" % (loc, use, back)


def one_launch(local, stack, n):
    """Runs the recursion to depth n under a stack limit, in this process; prints ok/fail."""
    d = cudrv.Driver()
    d._check(d.lib.cuCtxSetLimit(0, ctypes.c_size_t(stack)), "cuCtxSetLimit")
    fn = d.function(d.load(rec_module(local)), "k")
    out = d.alloc(b"\0" * 4)
    try:
        d.launch(fn, (1, 1, 1), (1, 1, 1), [cudrv.u64(out), cudrv.u32(n)])
        v = int.from_bytes(d.read(out, 4), "little")
        print("ok" if v == n else "wrong %d" % v)
    except cudrv.CudaError as e:
        print("fail %s" % e)


def run_stack(outdir):
    d = cudrv.Driver()
    lines = []
    lim = ctypes.c_size_t()
    d._check(d.lib.cuCtxGetLimit(ctypes.byref(lim), 0), "cuCtxGetLimit")
    default = lim.value
    lines.append("default_stack_bytes\t%d" % default)
    lines.append("max_grid\t%d,%d,%d" % (d.attribute(5), d.attribute(6), d.attribute(7)))
    lines.append("max_block\t%d,%d,%d threads %d" % (d.attribute(2), d.attribute(3),
                                                      d.attribute(4), d.attribute(1)))
    print("\n".join(lines), flush=True)

    def ok(local, stack, n):
        r = subprocess.run([sys.executable, __file__, "--one", str(local), str(stack), str(n)],
                           capture_output=True, timeout=120)
        s = r.stdout.decode().strip()
        return s == "ok", s

    for local in [0, 16, 64, 256, 1024]:
        path = os.path.join(outdir, "mods", "rec_%d.ptx" % local)
        with open(path, "w") as f:
            f.write(rec_module(local))
        r = subprocess.run(["ptxas", "-arch=sm_90", "-v", path, "-o", "/dev/null"],
                           capture_output=True)
        frame = [x.strip() for x in (r.stderr + r.stdout).decode().splitlines()
                 if "stack frame" in x]
        lines.append("rec_%d_ptxas\t%s" % (local, " | ".join(frame)))
        for stack in [default, 8192]:
            lo, hi, why = 0, 1, ""
            while hi <= 1 << 16:
                good, s = ok(local, stack, hi)
                if not good:
                    why = s
                    break
                lo, hi = hi, hi * 2
            while hi - lo > 1:
                mid = (lo + hi) // 2
                good, s = ok(local, stack, mid)
                if good:
                    lo = mid
                else:
                    hi, why = mid, s
            lines.append("rec_%d_stack_%d_max_depth\t%d\t%s" % (local, stack, lo, why[:160]))
            print(lines[-1], flush=True)
    with open(os.path.join(outdir, "stack.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        one_launch(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) > 2 and sys.argv[2] == "--stack-only":
        os.makedirs(os.path.join(sys.argv[1], "mods"), exist_ok=True)
        run_stack(sys.argv[1])
    else:
        run_ptxas(sys.argv[1])
        run_stack(sys.argv[1])
