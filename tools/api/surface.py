#!/usr/bin/env python3
"""Counts the public API surface of each library crate from rustdoc's JSON output.

Usage: tools/api/surface.py [CRATE ...]   (default: the four library crates and the facade)

Needs the nightly toolchain (rustdoc's JSON output is unstable). Counts what an embedder can
name: public modules, types (structs, enums, unions, traits, type aliases), free functions,
constants and statics reachable from the crate root, and the public methods and associated
constants of their inherent impls. Enum variants and struct fields are not counted (they are
part of their type). Prints one line per crate and a total.
"""
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

CRATES = ["ptx-ir-core", "ptx-ir-text", "ptx-ir-binary", "ptx-ir-interp", "ptx-ir"]
KINDS = {
    "module": "modules",
    "struct": "types",
    "enum": "types",
    "union": "types",
    "trait": "types",
    "type_alias": "types",
    "function": "functions",
    "constant": "constants",
    "static": "constants",
}


def count(crate: str, root: Path) -> Counter:
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", crate, "--lib", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=root, check=True)
    doc = json.loads((root / "target/doc" / (crate.replace("-", "_") + ".json")).read_text())
    index, paths = doc["index"], doc["paths"]
    c = Counter()
    reachable = set()
    for key, p in paths.items():
        if p["crate_id"] != 0:
            continue
        kind = KINDS.get(p["kind"])
        if kind:
            c[kind] += 1
            reachable.add(key)
    # Public methods and associated constants of inherent impls of reachable types.
    for key in reachable:
        item = index.get(key)
        if not item:
            continue
        inner = item["inner"]
        body = inner.get("struct") or inner.get("enum") or inner.get("union")
        if not body:
            continue
        for imp in body.get("impls", []):
            i = index.get(str(imp))
            if not i or i["inner"]["impl"].get("trait") is not None:
                continue
            for m in i["inner"]["impl"]["items"]:
                mi = index.get(str(m))
                if mi and mi.get("visibility") == "public":
                    c["methods"] += 1
    return c


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    crates = sys.argv[1:] or CRATES
    total = Counter()
    cols = ["modules", "types", "functions", "constants", "methods"]
    print("| crate | " + " | ".join(cols) + " | total |")
    print("| --- |" + " --- |" * (len(cols) + 1))
    for crate in crates:
        c = count(crate, root)
        total += c
        print(f"| {crate} | " + " | ".join(str(c[k]) for k in cols) + f" | {sum(c.values())} |")
    print("| all | " + " | ".join(str(total[k]) for k in cols) + f" | {sum(total.values())} |")


if __name__ == "__main__":
    main()
