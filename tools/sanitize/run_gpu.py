#!/usr/bin/env python3
"""Runs every kernel of tools/sanitize/manifest.json under compute-sanitizer's four tools on
the GPU machine and records what each tool reported in corpus/sanitize/gpu.json.

    python3 tools/sanitize/run_gpu.py [--out corpus/sanitize/gpu.json] [--logs DIR] [-j 14]

Each (kernel, tool) pair is its own process, `compute-sanitizer --tool T python3 run_gpu.py
one ID`, so that a fault (memcheck) or a hang (a kernel that deadlocks on a barrier) cannot
affect another kernel. `one ID` loads the kernel's PTX with the CUDA driver API through
ctypes (tools/hwvectors/cudrv.py), allocates its buffers as the `ptx run --arg` specs say
(`uninit:BYTES` is cuMemAlloc'd and never written, as cudaMalloc'd memory the host never
wrote; `zeros:BYTES` is cuMemsetD8'd), launches it once and synchronises. Each kernel is
also run once without a sanitizer (`plain`) to record what the hardware itself did.
"""

import argparse
import ctypes
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "hwvectors"))

TOOLS = ["memcheck", "racecheck", "initcheck", "synccheck"]


def manifest():
    with open(os.path.join(HERE, "manifest.json")) as f:
        return json.load(f)["kernels"]


def dims(v):
    v = list(v) if isinstance(v, list) else [v]
    return tuple(v + [1] * (3 - len(v)))


def build_params(drv, specs):
    """`ptx run --arg` specs to parameter bytes; buffers become device pointers."""
    params = []
    for spec in specs:
        kind, v = spec.split(":", 1)
        if kind in ("u32", "s32", "b32"):
            params.append(struct.pack("<I", int(v, 0) & 0xFFFFFFFF))
        elif kind in ("u64", "s64", "b64"):
            params.append(struct.pack("<Q", int(v, 0) & (2 ** 64 - 1)))
        elif kind == "f32":
            params.append(struct.pack("<f", float(v)))
        elif kind in ("zeros", "uninit", "hex", "iota32"):
            if kind == "hex":
                data = bytes.fromhex(v)
            elif kind == "iota32":
                data = b"".join(struct.pack("<I", i) for i in range(int(v)))
            else:
                data = None
            n = len(data) if data is not None else int(v)
            p = ctypes.c_uint64()
            drv._check(drv.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(n, 1))),
                       "cuMemAlloc")
            if data:
                drv._check(drv.lib.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(n)), "cuMemcpyHtoD")
            elif kind == "zeros":
                drv._check(drv.lib.cuMemsetD8_v2(p, 0, ctypes.c_size_t(n)), "cuMemsetD8")
            # uninit: allocated, never written.
            params.append(struct.pack("<Q", p.value))
        else:
            raise ValueError("unsupported arg spec %r" % spec)
    return params


def one(kid):
    """Launches one kernel; prints LAUNCH ok or LAUNCH error; exit status 0 or 3."""
    import cudrv
    m = next(k for k in manifest() if k["id"] == kid)
    drv = cudrv.Driver()
    with open(os.path.join(ROOT, m["file"])) as f:
        mod = drv.load(f.read())
    fn = drv.function(mod, m["entry"])
    params = build_params(drv, m["args"])
    try:
        drv.launch(fn, dims(m["grid"]), dims(m["block"]), params)
    except cudrv.CudaError as e:
        print("LAUNCH error", str(e).splitlines()[0], flush=True)
        return 3
    print("LAUNCH ok", flush=True)
    return 0


SKIP = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
        "Target application returned")


def summarize(tool, out, rc, timed_out):
    """What one sanitizer run reported: error/warning counts and the first report line."""
    errors = warnings = None
    m = re.search(r"ERROR SUMMARY: (\d+) error", out)
    if m:
        errors = int(m.group(1))
    m = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)",
                  out)
    if m:
        errors, warnings = int(m.group(2)), int(m.group(3))
    first = None
    for line in out.splitlines():
        if line.startswith("========= ") and not line.startswith("=========  "):
            text = line[len("========= "):].strip()
            if text and not any(text.startswith(s) for s in SKIP):
                first = text
                break
    launch = None
    m = re.search(r"^LAUNCH (.*)$", out, re.M)
    if m:
        launch = m.group(1)
    reported = bool(errors) or bool(warnings) or rc == 99
    return {"reported": reported, "errors": errors, "warnings": warnings, "first": first,
            "rc": rc, "timeout": timed_out, "launch": launch}


def run(cmd, timeout):
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, cwd=ROOT)
    try:
        out, _ = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        timed_out = True
    return out.decode(errors="replace"), p.returncode, timed_out, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "corpus", "sanitize", "gpu.json"))
    ap.add_argument("--logs", default=None)
    ap.add_argument("-j", type=int, default=14)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--deadline", type=int, default=420, help="seconds; no new job after")
    ap.add_argument("--only", default=None, help="comma-separated kernel ids")
    ap.add_argument("--dry", action="store_true")
    a = ap.parse_args()
    kernels = manifest()
    if a.only:
        keep = set(a.only.split(","))
        kernels = [k for k in kernels if k["id"] in keep]
    me = os.path.abspath(__file__)
    jobs = []
    for k in kernels:
        jobs.append((k["id"], "plain", [sys.executable, me, "one", k["id"]]))
        for t in TOOLS:
            jobs.append((k["id"], t, ["compute-sanitizer", "--tool", t, "--error-exitcode", "99",
                                      "--print-limit", "10", sys.executable, me, "one", k["id"]]))
    if a.dry:
        for j in jobs[:10]:
            print(j)
        print(len(jobs), "jobs")
        return
    if a.logs:
        os.makedirs(a.logs, exist_ok=True)
    start = time.time()
    results = {k["id"]: {} for k in kernels}

    def work(job):
        kid, tool, cmd = job
        if time.time() - start > a.deadline:
            results[kid][tool] = {"skipped": "deadline"}
            return
        out, rc, to, secs = run(cmd, a.timeout if tool != "plain" else 30)
        if a.logs:
            with open(os.path.join(a.logs, "%s.%s.txt" % (kid, tool)), "w") as f:
                f.write(out)
        if tool == "plain":
            m = re.search(r"^LAUNCH (.*)$", out, re.M)
            r = {"launch": m.group(1) if m else None, "rc": rc, "timeout": to,
                 "tail": None if m else out.strip().splitlines()[-1:]}
        else:
            r = summarize(tool, out, rc, to)
        r["seconds"] = round(secs, 2)
        results[kid][tool] = r

    with ThreadPoolExecutor(a.j) as ex:
        list(ex.map(work, jobs))

    def cmd_out(c):
        try:
            return subprocess.run(c, capture_output=True, text=True, timeout=60).stdout.strip()
        except Exception as e:  # noqa: BLE001
            return str(e)

    env = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "gpu": cmd_out(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "compute_sanitizer": cmd_out(["compute-sanitizer", "--version"]).splitlines()[-1:],
        "nvcc": cmd_out(["nvcc", "--version"]).splitlines()[-2:],
        "seconds": round(time.time() - start, 1),
        "command": " ".join(["python3", "tools/sanitize/run_gpu.py"] + sys.argv[1:]),
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"env": env, "kernels": results}, f, indent=1, sort_keys=True)
    print("wrote", a.out, "in %.1fs" % (time.time() - start))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "one":
        sys.exit(one(sys.argv[2]))
    main()
