#!/usr/bin/env python3
"""Runs every launch of the real-program suite (corpus/realprog/launches.json) and records every
buffer argument's final bytes.

    # GPU machine (CUDA driver only; the working tree carries corpus/realprog):
    python3 tools/realprog/record.py --out $OUT/realprog_gpu.jsonl.xz
    # here, through the interpreter (`ptx run`), to test the pipeline:
    python3 tools/realprog/record.py --dry --out /tmp/dry.jsonl.xz

Inputs are regenerated from their seeds (gen.py); output buffers start as 0xAB bytes. On the GPU
every launch loads its module afresh (module variables start from their initialisers) and runs
in a child process that carries on with the next launch; a launch that crashes the child, or
does not finish in --timeout seconds, is recorded as `crash` / `timeout` and a new child takes
the next one. The whole run stops starting launches after --budget seconds (the rest are
recorded as `skipped`).

Output: xz-compressed JSON lines. The first line is {"meta": {...}} (device, driver, date,
mode); then one line per launch, in table order: {"id", "sha256" (of the PTX text), "status"
("ok", "error", "load-error", "crash", "timeout", "skipped"), "detail", "bufs"}, where `bufs`
(only when ok) has one entry per buffer argument, in argument order: "=" when the buffer still
holds its initial bytes, else its bytes in hex.
"""

import argparse
import datetime
import json
import lzma
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.join(ROOT, "corpus", "realprog")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "hwvectors"))
import inputs as gen  # noqa: E402

_inputs = {}


def initial(spec):
    """A buffer's initial bytes (cached: every variant of a launch has the same inputs)."""
    key = json.dumps(spec, sort_keys=True)
    b = _inputs.get(key)
    if b is None:
        b = _inputs[key] = gen.generate(spec)
    return b


def load_table(path):
    with open(path) as f:
        return json.load(f)


_ptx = {}


def module_ptx(table, name, corpus):
    if name not in _ptx:
        with open(os.path.join(corpus, table["modules"][name]["ptx"]), "rb") as f:
            _ptx[name] = lzma.decompress(f.read()).decode()
    return _ptx[name]


def result_bufs(launch, finals):
    out = []
    bufs = [a for a in launch["args"] if a["type"] == "buf"]
    for spec, final in zip(bufs, finals):
        out.append("=" if final == initial(spec) else final.hex())
    return out


# ----------------------------------------------------------------------------- GPU child


def child(table_path, corpus, start):
    """Runs launches start.. of the table, printing one JSON line per launch."""
    import cudrv
    table = load_table(table_path)
    d = cudrv.Driver()
    for i in range(start, len(table["launches"])):
        l = table["launches"][i]
        rec = {"i": i}
        try:
            mod = d.load(module_ptx(table, l["module"], corpus))
        except cudrv.CudaError as e:
            rec.update(status="load-error", detail=str(e)[:2000])
            print(json.dumps(rec), flush=True)
            if e.sticky:
                os._exit(3)
            continue
        ptrs, params, sizes = [], [], []
        try:
            f = d.function(mod, l["entry"], l["shared"])
            for a in l["args"]:
                if a["type"] == "buf":
                    data = initial(a)
                    p = d.alloc(data)
                    ptrs.append(p)
                    sizes.append(len(data))
                    params.append(struct.pack("<Q", p))
                else:
                    params.append(gen.scalar_bytes(a))
            d.launch(f, l["grid"], l["block"], params, l["shared"], l["cluster"])
            finals = [d.read(p, n) for p, n in zip(ptrs, sizes)]
            rec.update(status="ok", detail="", bufs=result_bufs(l, finals))
        except cudrv.CudaError as e:
            rec.update(status="error", detail=str(e)[:2000])
            print(json.dumps(rec), flush=True)
            if e.sticky:
                os._exit(3)
            for p in ptrs:
                d.free(p)
            d.unload(mod)
            continue
        for p in ptrs:
            d.free(p)
        d.unload(mod)
        print(json.dumps(rec), flush=True)


def run_gpu(table, args):
    """Drives child processes over the whole table; returns {index: record}."""
    n = len(table["launches"])
    results = {}
    t0 = time.time()
    i = 0
    while i < n:
        if time.time() - t0 > args.budget:
            break
        err = tempfile.TemporaryFile()
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", str(i),
                              "--table", args.table, "--corpus", args.corpus],
                             stdout=subprocess.PIPE, stderr=err)
        buf = b""
        limit = args.timeout + 30  # the first launch also pays for the context and the JIT
        while True:
            if time.time() - t0 > args.budget:
                p.kill()
                break
            ready, _, _ = select.select([p.stdout], [], [], limit)
            if not ready:
                p.kill()
                p.wait()
                results[i] = {"status": "timeout", "detail": "no result in %d s" % limit}
                print("%-60s timeout" % table["launches"][i]["id"], flush=True)
                i += 1
                break
            chunk = os.read(p.stdout.fileno(), 1 << 20)
            if not chunk:
                p.wait()
                # Exit status 3: the child stopped after a sticky error it has reported.
                if i < n and i not in results and p.returncode != 3:
                    err.seek(0)
                    tail = err.read().decode(errors="replace").strip()[-500:]
                    results[i] = {"status": "crash",
                                  "detail": "exit %s: %s" % (p.returncode, tail)}
                    print("%-60s crash" % table["launches"][i]["id"], flush=True)
                    i += 1
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                rec = json.loads(line)
                k = rec.pop("i")
                results[k] = rec
                print("%-60s %s %s" % (table["launches"][k]["id"], rec["status"],
                                       rec.get("detail", "")[:100]), flush=True)
                i = k + 1
            limit = args.timeout
        err.close()
    return results


def meta_gpu():
    import cudrv
    d = cudrv.Driver()
    return {"device": d.name(), "cc": "%d.%d" % (d.attribute(75), d.attribute(76)),
            "driver": d.driver_version()}


# ----------------------------------------------------------------------------- dry run


def scalar_spec(a):
    t, v = a["type"], a["value"]
    if t == "f32":
        return "f32:0f%08X" % struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if t == "f64":
        return "f64:0d%016X" % struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    return {"u16": "u16", "u32": "u32", "i32": "s32", "u64": "u64", "i64": "s64"}[t] + ":" + v


def dry_one(table, l, ptx_bin, tmp, corpus, timeout):
    path = os.path.join(tmp, l["module"] + ".ptx")
    cmd = [ptx_bin, "run", path, "--entry", l["entry"], "--grid", ",".join(map(str, l["grid"])),
           "--block", ",".join(map(str, l["block"])), "--shared", str(l["shared"]), "--json"]
    if l["cluster"]:
        cmd += ["--cluster", ",".join(map(str, l["cluster"]))]
    files = []
    tag = l["id"].replace("/", "_").replace("#", "_")
    for j, a in enumerate(l["args"]):
        if a["type"] == "buf":
            fp = os.path.join(tmp, "%s.%d.bin" % (tag, j))
            with open(fp, "wb") as f:
                f.write(initial(a))
            files.append(fp)
            cmd += ["--arg", "buf:" + fp]
        else:
            cmd += ["--arg", scalar_spec(a)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "detail": "no result in %d s" % timeout}
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"status": "crash", "detail": (p.stdout + p.stderr).strip()[-500:]}
    if not j["ok"]:
        e = j["error"]
        detail = "%s: %s" % (e["kind"], e["message"])
        return {"status": "error", "detail": detail[:2000]}
    finals = []
    for fp in files:
        with open(fp, "rb") as f:
            finals.append(f.read())
        os.remove(fp)
    return {"status": "ok", "detail": "", "bufs": result_bufs(l, finals),
            "secs": time.time() - t0, "insts": j["thread_instructions"]}


def run_dry(table, args):
    from concurrent.futures import ThreadPoolExecutor
    ls = table["launches"]
    # Inputs first, in this thread (the cache is shared).
    for l in ls:
        for a in l["args"]:
            if a["type"] == "buf":
                initial(a)
    results = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as ex:
        for m in {l["module"] for l in ls}:
            with open(os.path.join(tmp, m + ".ptx"), "w") as f:
                f.write(module_ptx(table, m, args.corpus))
        futs = {ex.submit(dry_one, table, l, args.ptx, tmp, args.corpus, args.timeout): i
                for i, l in enumerate(ls)}
        for fut, i in futs.items():
            results[i] = fut.result()
            r = results[i]
            print("%-60s %s %s" % (ls[i]["id"], r["status"], r.get("detail", "")[:150] or
                                   "%.2f s, %d thread-instructions" % (r["secs"], r["insts"])),
                  flush=True)
    return results


# ----------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the .jsonl.xz file to write")
    ap.add_argument("--dry", action="store_true", help="run through `ptx run`, not the GPU")
    ap.add_argument("--ptx", default=os.path.join(ROOT, "target", "release", "ptx"),
                    help="the ptx binary (--dry)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel runs (--dry)")
    ap.add_argument("--table", default=os.path.join(CORPUS, "launches.json"))
    ap.add_argument("--corpus", default=CORPUS, help="folder the table's PTX paths are under")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per launch")
    ap.add_argument("--budget", type=int, default=450, help="seconds for the whole run (GPU)")
    ap.add_argument("--only", metavar="REGEX",
                    help="run only the launches whose id matches (a partial recording)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        child(a.table, a.corpus, a.child)
        return
    if not a.out:
        ap.error("--out is required")
    table = load_table(a.table)
    if a.only:
        table["launches"] = [l for l in table["launches"] if re.search(a.only, l["id"])]
        path = os.path.join(tempfile.gettempdir(), "realprog_only_%d.json" % os.getpid())
        with open(path, "w") as f:  # the children read the same subset
            json.dump(table, f)
        a.table = path
    t0 = time.time()
    if a.dry:
        meta = {"device": "interpreter (record.py --dry: a placeholder, not hardware)",
                "mode": "dry"}
        results = run_dry(table, a)
    else:
        meta = meta_gpu()
        meta["mode"] = "gpu"
        results = run_gpu(table, a)
    if a.only:
        os.remove(a.table)
    meta["date"] = datetime.date.today().isoformat()
    meta["seconds"] = round(time.time() - t0, 1)
    lines = [json.dumps({"meta": meta})]
    counts = {}
    for i, l in enumerate(table["launches"]):
        r = results.get(i, {"status": "skipped", "detail": "out of time (--budget)"})
        rec = {"id": l["id"], "sha256": table["modules"][l["module"]]["sha256"],
               "status": r["status"], "detail": r.get("detail", "")}
        if r["status"] == "ok":
            rec["bufs"] = r["bufs"]
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        lines.append(json.dumps(rec, separators=(",", ":")))
    data = lzma.compress(("\n".join(lines) + "\n").encode(), preset=9 | lzma.PRESET_EXTREME)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(data)
    print("%s: %d launches (%s), %d bytes, %.0f s" % (
        a.out, len(table["launches"]),
        ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())), len(data),
        time.time() - t0))


if __name__ == "__main__":
    main()
