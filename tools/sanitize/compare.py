#!/usr/bin/env python3
"""Compares the interpreter's checks with compute-sanitizer on the sanitizer suite.

    python3 tools/sanitize/compare.py [--ptx target/release/ptx] [--gpu corpus/sanitize/gpu.json]
                                      [--save corpus/sanitize/interp.json] [--kernels]

Runs `ptx run FILE --entry E --grid G --block B --arg ... --check all --json` on every kernel
of tools/sanitize/manifest.json and sets what each check found beside what each
compute-sanitizer tool reported in gpu.json (written on the GPU machine by run_gpu.py).
Prints, per class, how many buggy and clean kernels each side reported, and every kernel on
which the two sides differ for some class. Classes and tools: mem = memcheck, race =
racecheck, init = initcheck, sync = synccheck.
"""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLASSES = ["mem", "race", "init", "sync"]
TOOL = {"mem": "memcheck", "race": "racecheck", "init": "initcheck", "sync": "synccheck"}


def interp(ptx, m):
    cmd = [ptx, "run", os.path.join(ROOT, m["file"]), "--entry", m["entry"],
           "--grid", ",".join(map(str, m["grid"] if isinstance(m["grid"], list) else [m["grid"]])),
           "--block", ",".join(map(str, m["block"] if isinstance(m["block"], list) else [m["block"]])),
           "--check", "all", "--json"]
    for a in m["args"]:
        cmd += ["--arg", a]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"rc": None, "error": "timeout", "findings": []}
    try:
        j = json.loads(r.stdout)
    except ValueError:
        return {"rc": r.returncode, "error": (r.stdout + r.stderr).strip()[:400], "findings": []}
    f = [{"check": x["check"], "what": x["what"], "inst": x.get("inst"),
          "function": x.get("function"), "index": x.get("index"), "count": x.get("count")}
         for x in j.get("findings", [])]
    err = j.get("error")
    return {"rc": r.returncode, "error": err.get("message") if isinstance(err, dict) else err,
            "findings": f}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx", default=os.path.join(ROOT, "target", "release", "ptx"))
    ap.add_argument("--gpu", default=os.path.join(ROOT, "corpus", "sanitize", "gpu.json"))
    ap.add_argument("--save", default=None, help="write the interpreter's results here")
    ap.add_argument("--kernels", action="store_true", help="also print every kernel's row")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    with open(os.path.join(HERE, "manifest.json")) as f:
        kernels = json.load(f)["kernels"]
    with open(a.gpu) as f:
        gpu = json.load(f)
    with ThreadPoolExecutor(a.j) as ex:
        got = dict(zip([m["id"] for m in kernels], ex.map(lambda m: interp(a.ptx, m), kernels)))
    if a.save:
        with open(a.save, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)

    rows = []
    for m in kernels:
        g = gpu["kernels"].get(m["id"], {})
        gv = {c: bool(g.get(TOOL[c], {}).get("reported")) for c in CLASSES}
        iv = {c: any(x["check"] == c for x in got[m["id"]]["findings"]) for c in CLASSES}
        rows.append((m, gv, iv, g))

    print("GPU: %s; compute-sanitizer %s; %s" % (
        gpu["env"].get("gpu"), " ".join(gpu["env"].get("compute_sanitizer", [])),
        gpu["env"].get("date")))
    print()
    print("Expected class of the kernel, and how many kernels the GPU tool of that class")
    print("(memcheck, racecheck, initcheck, synccheck) and the interpreter's check of that")
    print("class reported:")
    print()
    print("| class | kernels | buggy | GPU tool | interpreter | both | GPU only | interp only "
          "| clean | GPU tool | interpreter |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    tot = [0] * 10
    for c in CLASSES:
        bug = [(gv[c], iv[c]) for m, gv, iv, _ in rows if m["expect"] == c]
        cl = [(gv[c], iv[c]) for m, gv, iv, _ in rows if m["class"] == c and m["expect"] == "clean"]
        v = [len(bug) + len(cl), len(bug), sum(x for x, _ in bug), sum(y for _, y in bug),
             sum(x and y for x, y in bug), sum(x and not y for x, y in bug),
             sum(y and not x for x, y in bug), len(cl), sum(x for x, _ in cl),
             sum(y for _, y in cl)]
        tot = [p + q for p, q in zip(tot, v)]
        print("| %s | %s |" % (c, " | ".join(map(str, v))))
    print("| all | %s |" % " | ".join(map(str, tot)))
    print()
    print("Reports of another class than the kernel's (any tool / any check):")
    print()
    print("| class of report | GPU on buggy | interp on buggy | GPU on clean | interp on clean |")
    print("|---|---|---|---|---|")
    for c in CLASSES:
        other_b = [(gv[c], iv[c]) for m, gv, iv, _ in rows if m["expect"] not in (c, "clean")]
        other_c = [(gv[c], iv[c]) for m, gv, iv, _ in rows
                   if m["expect"] == "clean" and m["class"] != c]
        print("| %s | %d | %d | %d | %d |" % (c, sum(x for x, _ in other_b),
                                             sum(y for _, y in other_b),
                                             sum(x for x, _ in other_c),
                                             sum(y for _, y in other_c)))
    print()
    print("Disagreements (a class where one side reported and the other did not):")
    print()
    print("| kernel | expected | class | GPU | interpreter | GPU report | interpreter finding |")
    print("|---|---|---|---|---|---|---|")
    for m, gv, iv, g in rows:
        for c in CLASSES:
            if gv[c] != iv[c]:
                gr = g.get(TOOL[c], {})
                first = gr.get("first") or ("timeout" if gr.get("timeout") else "")
                fi = next((x for x in got[m["id"]]["findings"] if x["check"] == c), None)
                print("| %s | %s | %s | %s | %s | %s | %s |" % (
                    m["id"], m["expect"], c, "yes" if gv[c] else "no", "yes" if iv[c] else "no",
                    first.replace("|", "/")[:90],
                    ("%s: `%s`" % (fi["what"][:80], fi["inst"])).replace("|", "/") if fi else ""))
    errs = [(m["id"], got[m["id"]]) for m, *_ in rows
            if got[m["id"]]["rc"] not in (0, 1) or
            (got[m["id"]]["error"] and not any(x["check"] == "mem" for x in got[m["id"]]["findings"]))]
    if errs:
        print()
        print("Interpreter runs that failed without a finding:")
        for k, r in errs:
            print("- %s: rc %s, %s" % (k, r["rc"], r["error"]))
    if a.kernels:
        print()
        print("| kernel | expected | GPU (mem race init sync) | interpreter (mem race init sync) "
              "| plain GPU run |")
        print("|---|---|---|---|---|")
        for m, gv, iv, g in rows:
            pl = g.get("plain", {})
            print("| %s | %s | %s | %s | %s |" % (
                m["id"], m["expect"], " ".join("Y" if gv[c] else "." for c in CLASSES),
                " ".join("Y" if iv[c] else "." for c in CLASSES),
                "hang (timeout)" if pl.get("timeout") else (pl.get("launch") or "")[:60]))


if __name__ == "__main__":
    sys.exit(main())
