#!/usr/bin/env python3
"""Records ptxas's verdict on every seed conformance case, and what the GPU does with every
case that has a launch, for tests/spec.rs.

    SPEC_EXPORT=.carry/spec cargo test --release --test spec     # here: writes the cases
    tools/seedspec/run_device.sh .carry/spec                      # GPU machine (carry .carry/spec)
    cp $OUT/ptxas.tsv $OUT/gpu.tsv corpus/spec/                    # here

Each case runs in a child process with a time limit, so a kernel that hangs on the GPU (a
barrier some threads never reach) is recorded as `timeout` and the next case starts on a fresh
context. Rows: statement, case, module hash, verdict, detail.
"""

import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hwvectors"))

TIMEOUT = 15


def ptxas_version():
    try:
        out = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1]
    except OSError as e:
        return "unavailable (%s)" % e


def first_error(text, path):
    for line in text.splitlines():
        if "error" in line or "fatal" in line:
            return line.replace(path, "FILE").strip()[:300]
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def run_ptxas(path, target):
    """ptxas for the module's own target; targets ptxas no longer compiles for (below sm_75)
    are compiled for sm_75, which takes PTX written for any older target, and sm_101* for its
    new name sm_110*."""
    arch = target
    m = re.fullmatch(r"sm_(\d+)", target)
    if m and int(m.group(1)) < 75:
        arch = "sm_75"
    # ptxas 13.0 knows sm_101* only by its PTX ISA 9.0 name sm_110*.
    m = re.fullmatch(r"sm_101([af]?)", target)
    if m:
        arch = "sm_110" + m.group(1)
    r = subprocess.run(["ptxas", "-arch=" + arch, path, "-o", "/dev/null"],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return "accepted", ("" if arch == target else "as " + arch)
    return "rejected", first_error(r.stderr + r.stdout, path)


def runnable(target, major_minor):
    """Whether this GPU runs code for `target`: plain targets up to its own, and its own `a`
    target."""
    m = re.fullmatch(r"sm_(\d+)([af]?)", target)
    if not m:
        return False
    n = int(m.group(1))
    own = major_minor[0] * 10 + major_minor[1]
    if m.group(2) == "":
        return n <= own
    return n == own


def parse_launch(text):
    l = {"entry": None, "grid": [1, 1, 1], "block": [1, 1, 1], "cluster": None, "shared": 0,
         "args": []}
    for part in text.split():
        k, v = part.split("=", 1)
        if k in ("grid", "block", "cluster"):
            d = [int(x) for x in v.split(",")]
            l[k] = d + [1] * (3 - len(d))
        elif k == "shared":
            l["shared"] = int(v)
        elif k == "entry":
            l["entry"] = v
        elif k == "args":
            l["args"] = v.split(";" if "tmap:" in v else ",")
    return l


def one(ptx_path, launch_text, outs):
    """Runs one case in this (child) process; prints the verdict line."""
    import cudrv
    l = parse_launch(launch_text)
    d = cudrv.Driver()
    src = open(ptx_path).read()
    try:
        mod = d.load(src)
        f = d.function(mod, l["entry"], l["shared"])
    except cudrv.CudaError as e:
        print("load-error\t" + str(e).splitlines()[0])
        return
    params, bufs = [], {}
    for i, a in enumerate(l["args"]):
        kind, _, val = a.partition(":")
        if kind == "zeros":
            p = d.alloc(bytes(int(val)))
            bufs[i] = (p, int(val))
            params.append(struct.pack("<Q", p))
        elif kind == "hex":
            data = bytes.fromhex(val)
            p = d.alloc(data)
            bufs[i] = (p, len(data))
            params.append(struct.pack("<Q", p))
        elif kind == "iota32":
            data = b"".join(struct.pack("<I", j) for j in range(int(val)))
            p = d.alloc(data)
            bufs[i] = (p, len(data))
            params.append(struct.pack("<Q", p))
        elif kind in ("u32", "s32"):
            params.append(struct.pack("<I", int(val, 0) & 0xFFFFFFFF))
        elif kind in ("u64", "s64"):
            params.append(struct.pack("<Q", int(val, 0) & (2 ** 64 - 1)))
        elif kind == "f32":
            params.append(struct.pack("<f", float(val)))
        elif kind == "f64":
            params.append(struct.pack("<d", float(val)) if not val.startswith("0d")
                          else bytes.fromhex(val[2:])[::-1])
        else:
            print("skipped\targument kind %s is not run here" % kind)
            return
    try:
        d.launch(f, l["grid"], l["block"], params, l["shared"], l["cluster"])
    except cudrv.CudaError as e:
        print("error\t" + str(e).splitlines()[0])
        return
    shown = []
    for a in outs:
        if a in bufs:
            p, n = bufs[a]
            shown.append("%d=%s" % (a, d.read(p, n).hex()))
    print("ok\t" + " ".join(shown))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        outs = [int(x) for x in sys.argv[4].split(",") if x] if len(sys.argv) > 4 else []
        one(sys.argv[2], sys.argv[3], outs)
        return
    cases, out = sys.argv[1], sys.argv[2]
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(cases, "manifest.tsv"))]
    import cudrv
    d = cudrv.Driver()
    cc = (d.attribute(75), d.attribute(76))  # compute capability major, minor
    name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip().splitlines()[0]
    del d
    import datetime
    today = datetime.date.today().isoformat()
    px = ["# ptxas: " + ptxas_version(), "# date: " + today]
    gp = ["# device: %s (sm_%d%d)" % (name, cc[0], cc[1]), "# date: " + today]
    for r in rows:
        sid, case, h, fname, target, launch, outs = (r + [""] * 7)[:7]
        path = os.path.join(cases, fname)
        v, detail = run_ptxas(path, target)
        px.append("\t".join([sid, case, h, v, detail]))
        if launch == "-":
            continue
        if not runnable(target, cc):
            gp.append("\t".join([sid, case, h, "skipped", "target %s" % target]))
            continue
        try:
            p = subprocess.run([sys.executable, __file__, "--one", path, launch, outs],
                               capture_output=True, text=True, timeout=TIMEOUT)
            line = (p.stdout.strip().splitlines() or ["crash\t" + p.stderr.strip()[-200:]])[-1]
            v, _, detail = line.partition("\t")
        except subprocess.TimeoutExpired:
            v, detail = "timeout", "no completion in %d s" % TIMEOUT
        gp.append("\t".join([sid, case, h, v, detail.replace("\t", " ")]))
        print(sid, case, v, detail[:100], flush=True)
    open(os.path.join(out, "ptxas.tsv"), "w").write("\n".join(px) + "\n")
    open(os.path.join(out, "gpu.tsv"), "w").write("\n".join(gp) + "\n")


if __name__ == "__main__":
    main()
