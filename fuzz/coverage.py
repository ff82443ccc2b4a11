#!/usr/bin/env python3
"""Source coverage of the library crates reached by each fuzz target's corpus.

Usage: fuzz/coverage.py [--html] [TARGET ...]        (default: every target of fuzz/Cargo.toml)

For each target: `cargo fuzz coverage --sanitizer none -a TARGET fuzz/corpus/TARGET` (an
instrumented build under target/x86_64-unknown-linux-gnu/coverage/, run once over the corpus,
profiles merged into fuzz/coverage/TARGET/coverage.profdata), then `llvm-cov export` restricted to
the library crates (ir/, text/, binary/, interp/: the code under test, not the oracles or
dependencies). Prints one Markdown table row per target, as fuzz/README.md records them; with
--html also writes fuzz/coverage/TARGET/html/index.html.

LLVM tools: $LLVM_PATH if set, else the llvm-tools component of the nightly or stable toolchain
(`rustup component add llvm-tools`), else the newest /usr/lib/llvm-N/bin with N >= 19 (Debian's
llvm-19 reads the profiles of the toolchains' LLVM 22).
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["ir", "text", "binary", "interp"]
TRIPLE = "x86_64-unknown-linux-gnu"


def targets():
    with open(os.path.join(ROOT, "fuzz", "Cargo.toml")) as f:
        return re.findall(r'^\[\[bin\]\]\s*\nname\s*=\s*"([^"]+)"', f.read(), re.M)


def llvm_path():
    if os.environ.get("LLVM_PATH"):
        return os.environ["LLVM_PATH"]
    for toolchain in ["nightly", "stable"]:
        try:
            rustc = subprocess.run(["rustup", "which", "--toolchain", toolchain, "rustc"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        d = os.path.join(os.path.dirname(os.path.dirname(rustc)), "lib", "rustlib", TRIPLE, "bin")
        if os.path.exists(os.path.join(d, "llvm-profdata")):
            return d
    found = []
    for d in glob.glob("/usr/lib/llvm-*/bin"):
        m = re.search(r"llvm-(\d+)/bin$", d)
        if m and int(m.group(1)) >= 19 and os.path.exists(os.path.join(d, "llvm-profdata")):
            found.append((int(m.group(1)), d))
    if found:
        return max(found)[1]
    sys.exit("no LLVM coverage tools: set LLVM_PATH, `rustup component add llvm-tools`, "
             "or install Debian's llvm-19")


def coverage(target, tools, html):
    corpus = os.path.join(ROOT, "fuzz", "corpus", target)
    files = len(os.listdir(corpus)) if os.path.isdir(corpus) else 0
    if files == 0:
        sys.exit(f"{target}: no corpus in {corpus} (run fuzz/seed.sh, then fuzz it)")
    subprocess.run(["cargo", "fuzz", "coverage", "--sanitizer", "none", "-a", "--llvm-path", tools,
                    target, corpus], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    binary = os.path.join(ROOT, "target", TRIPLE, "coverage", TRIPLE, "release", target)
    profile = os.path.join(ROOT, "fuzz", "coverage", target, "coverage.profdata")
    sources = [os.path.join(ROOT, c, "src") for c in CRATES]
    out = subprocess.run([os.path.join(tools, "llvm-cov"), "export", "-summary-only",
                          "-instr-profile=" + profile, binary, *sources],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)["data"][0]
    row = {"total": data["totals"]}
    for c in CRATES:
        prefix = os.path.join(ROOT, c, "src") + os.sep
        lines = [f["summary"]["lines"] for f in data["files"] if f["filename"].startswith(prefix)]
        row[c] = {"count": sum(x["count"] for x in lines),
                  "covered": sum(x["covered"] for x in lines)}
    if html:
        subprocess.run([os.path.join(tools, "llvm-cov"), "show", "-format=html",
                        "-output-dir=" + os.path.join(ROOT, "fuzz", "coverage", target, "html"),
                        "-instr-profile=" + profile, binary, *sources], check=True)
    return files, row


def pct(x):
    return f"{100.0 * x['covered'] / x['count']:.1f}%" if x["count"] else "-"


def main():
    args = sys.argv[1:]
    html = "--html" in args
    names = [a for a in args if a != "--html"] or targets()
    tools = llvm_path()
    print("| target | corpus files | regions | functions | lines | "
          + " | ".join(f"{c}/ lines" for c in CRATES) + " |")
    print("| --- " * (5 + len(CRATES)) + "|")
    for t in names:
        files, row = coverage(t, tools, html)
        tot = row["total"]
        cells = [t, f"{files:,}", pct(tot["regions"]), pct(tot["functions"]), pct(tot["lines"])]
        cells += [pct(row[c]) for c in CRATES]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    if shutil.which("cargo") is None:
        sys.exit("cargo not found")
    main()
