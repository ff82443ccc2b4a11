"""The hostile-input cases of the resource-limits issue, run against a `ptx` binary.

`python3 tools/hostile/cases.py [PTX_BINARY] [--only NAME...]` generates each input in a
temporary folder, runs the command under an 8 GiB address-space cap and a 120 s timeout, and
prints one row per case: name, exit status (`sigN` when killed by signal N, e.g. sig6 = abort; `timeout`), seconds, peak RSS in MB,
bytes written to stderr, and the first line of stderr (or stdout). Nothing is asserted: the
tests (`tests/hostile.rs`, `interp/tests/limits.rs`, `binary/tests/`) do that; this is the
before/after table of the closing notes, reproducible.
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

CAP = 8 << 30
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
KERNEL = ".visible .entry k()\n{\n\tret;\n}\n"


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def run(ptx, args, timeout=120):
    """Runs `ptx args` under GNU time; returns (status, seconds, peak RSS MB, stdout, stderr)."""
    with tempfile.NamedTemporaryFile() as rss:
        t = time.time()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%x %M", "-o", rss.name, ptx] + args,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, preexec_fn=limit, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            out, err = p.communicate()
            return "timeout", time.time() - t, "-", out, err
        dt = time.time() - t
        words = open(rss.name).read().split()
        # GNU time writes "Command terminated by signal N" first when the command was killed.
        status = ("sig%s" % words[-3]) if "signal" in words else words[-2]
        return status, dt, int(words[-1]) // 1024, out, err


def cases(d):
    w = lambda name, data: (open(os.path.join(d, name), "wb").write(
        data if isinstance(data, bytes) else data.encode()), os.path.join(d, name))[1]
    c = []
    s100k = w("sum100k.ptx", HEAD + ".global .u32 x = %s;\n" % "+".join(["1"] * 100000) + KERNEL)
    s300k = w("sum300k.ptx", HEAD + ".global .u32 x = %s;\n" % "+".join(["1"] * 300000) + KERNEL)
    c += [("sum100k_fmt", ["fmt", s100k]), ("sum100k_roundtrip", ["roundtrip", s100k]),
          ("sum100k_run", ["run", s100k, "--entry", "k"]),
          ("sum300k_check", ["check", "--no-verify", s300k])]
    s390 = w("sum390.ptx", HEAD + ".global .u32 x = %s;\n" % "+".join(["1"] * 390) + KERNEL)
    c += [("sum390_roundtrip", ["roundtrip", s390])]
    k = w("k.ptx", HEAD + KERNEL)
    c += [("grid_65535^3_block_1024", ["run", k, "--entry", "k", "--grid", "65535,65535,65535",
                                       "--block", "1024"]),
          ("grid_4294967295", ["run", k, "--entry", "k", "--grid", "4294967295"])]
    kp = w("kp.ptx", HEAD + ".visible .entry k(.param .u64 p)\n{\n\tret;\n}\n")
    for a in ["zeros:99999999999999", "zeros:4294967296", "iota32:4000000000"]:
        c.append(("arg_" + a, ["run", kp, "--entry", "k", "--arg", a]))
    vec = w("v.jsonl", '{"name":"huge","family":"x","ptx":%s,"entry":"k","grid":[65535,65535,65535],'
            '"block":[1024,1,1],"args":[],"out":{"type":"u32","hex":["00000000"]}}\n' % (
                '"' + (HEAD + KERNEL).replace("\n", "\\n").replace("\t", "\\t") + '"'))
    c += [("vectors_huge_grid", ["vectors", vec]),
          ("vectors_family_typo", ["vectors", vec, "--family", "no-such-family"])]
    r = w("reg4e9.ptx", HEAD + ".visible .entry k()\n{\n\t.reg .b32 %r<4000000000>;\n"
          "\tmov.u32 %r3999999999, 7;\n\tret;\n}\n")
    c.append(("reg_4e9_run", ["run", r, "--entry", "k"]))
    n = 100000
    chain = [HEAD]
    for i in range(n - 1, -1, -1):
        callee = "\tcall f%d;\n" % (i + 1) if i + 1 < n else ""
        chain.append(".func f%d()\n{\n%s\tret;\n}\n" % (i, callee))
    chain.append(".visible .entry k()\n{\n\tcall f0;\n\tret;\n}\n")
    ch = w("chain100k.ptx", "".join(chain))
    c.append(("call_chain_100k_run", ["run", ch, "--entry", "k"]))
    rec = w("rec.ptx", HEAD + ".func f()\n{\n\tcall f;\n\tret;\n}\n"
            ".visible .entry k()\n{\n\tcall f;\n\tret;\n}\n")
    c.append(("unbounded_recursion_run", ["run", rec, "--entry", "k"]))
    body = "\tadd.u32 %r1, %r1, 1;\n" * (200_000_000 // 22)
    big = w("big200m.ptx", HEAD + ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n" + body +
            "\tret;\n}\n")
    c.append(("module_200MB_roundtrip", ["roundtrip", big]))
    line = w("line50m.ptx", HEAD + ".global .u8 x[4] = {" + "1, " * 16_000_000 + "@};\n" + KERNEL)
    c.append(("error_at_end_of_50MB_line", ["check", line]))
    tri = open(os.path.join(os.path.dirname(__file__), "../../../shared/corpus/triton/tr_add.ptx"),
               "rb").read()
    i = tri.index(b"//")
    c.append(("ff_in_triton_comment", ["check", w("ff.ptx", tri[:i + 2] + b"\xff" + tri[i + 2:])]))
    c.append(("bom", ["check", w("bom.ptx", b"\xef\xbb\xbf" + (HEAD + KERNEL).encode())]))
    dup = w("dup.ptx", HEAD + ".func f()\n{\n\tret;\n}\n" * 40000 + KERNEL)
    c.append(("duplicate_definitions_40k", ["check", dup]))
    enc = w("e.ptx", HEAD + KERNEL)
    subprocess.run([sys.argv[1] if len(sys.argv) > 1 else "ptx", "encode", enc, "-o",
                    os.path.join(d, "e.ptxb")])
    c.append(("encode_ptxb_without_o", ["encode", os.path.join(d, "e.ptxb")]))
    c.append(("check_ptx_version_99_9", ["check", "--ptx-version", "99.9", k]))
    c.append(("check_clean_file", ["check", k]))
    for name, n in [("10TB", "10995116277760"), ("2^96", "79228162514264337593543950336")]:
        a = w("arr%s.ptx" % name.replace("^", "_"), HEAD + ".global .u8 big[%s];\n" % n + KERNEL)
        c += [("array_%s_check" % name, ["check", a]), ("array_%s_run" % name,
                                                       ["run", a, "--entry", "k"])]
    c.append(("dev_zero_check", ["check", "/dev/zero"]))
    return c


def main():
    ptx = sys.argv[1] if len(sys.argv) > 1 else "target/release/ptx"
    only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
    with tempfile.TemporaryDirectory() as d:
        for name, args in cases(d):
            if only and name not in only:
                continue
            status, dt, rss, out, err = run(ptx, args)
            first = (err or out).decode(errors="replace").strip().splitlines()
            first = first[0][:150] if first else ""
            print("%s\t%s\t%.2f\t%s\t%d\t%s" % (name, status, dt, rss, len(err), first),
                  flush=True)


if __name__ == "__main__":
    main()
