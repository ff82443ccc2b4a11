#!/usr/bin/env python3
"""Compares a batch's hardware results with the reference and the interpreter.

usage: hw_compare.py DIR HWFILE [CASES]

CASES (default DIR/cases.jsonl) may hold a subset of the batch; the other results are skipped.

Prints, per case where they differ, the first differing register and the kernel's body
instructions; then totals. "reference" is ptx-ir-refsem's reference semantics (bytes it does
not know are skipped); "interp" is ptx-ir-interp.
"""
import json
import sys


def body(ptx):
    keep = []
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith(".reg") or s.startswith("ld.") or s.startswith("st.global"):
            continue
        if any(s.startswith(p) for p in ("mad.lo.u32 %t", "and.b32 %t4", "and.b32 %t5", "mul.wide.u32 %td",
                                          "add.s64 %td", "mov.u32 %t0", "mov.u32 %t1", "mov.u32 %t2",
                                          "cvta", "mov.b32 %m0", "selp.u16 %th0", "ret;", "{", "}", ".version",
                                          ".target", ".address_size", ".visible")):
            continue
        if s.startswith("setp.ne.b32 %p") and "%t5" in s:
            continue
        keep.append(s)
    return keep


def first_diff(c, a, b, known=None):
    threads = c["grid"] * c["block"]
    # The memory family's global scratch words after the records.
    for at in range(2 * threads * c["record"], len(a), 16):
        if known is not None and not all(known[at + 2 * k + 1] == "1" for k in range(8)):
            continue
        if a[at:at + 16] != b[at:at + 16]:
            le = lambda h: bytes.fromhex(h)[::-1].hex()
            return f"global scratch word at byte {at // 2}: 0x{le(a[at:at + 16])} vs 0x{le(b[at:at + 16])}"
    for th in range(threads if c["record"] else 0):
        for name, off, size in c["outputs"]:
            at = 2 * (th * c["record"] + off)
            if known is not None and not all(known[2 * (th * c["record"] + off + k) + 1] == "1" for k in range(size)):
                continue
            x, y = a[at:at + 2 * size], b[at:at + 2 * size]
            if x != y:
                le = lambda h: bytes.fromhex(h)[::-1].hex()
                return f"thread {th} {name}: 0x{le(x)} vs 0x{le(y)}"
    return None


def main():
    d, hwfile = sys.argv[1], sys.argv[2]
    cases = {c["name"]: c for c in map(json.loads, open(sys.argv[3] if len(sys.argv) > 3 else f"{d}/cases.jsonl"))}
    stats = {"cases": 0, "hw_error": 0, "ref_ok": 0, "ref_bad": 0, "ref_none": 0, "interp_ok": 0, "interp_bad": 0}
    for r in map(json.loads, open(hwfile)):
        c = cases.get(r["name"])
        if c is None:  # not in CASES: a subset is being compared
            continue
        stats["cases"] += 1
        if "error" in r:
            stats["hw_error"] += 1
            print(f"{r['name']}: GPU error: {r['error'][:200]}")
            continue
        hw = r["hw"]
        ptx = open(f"{d}/{r['name']}.ptx").read()
        if c["reference"] is None:
            stats["ref_none"] += 1
        else:
            diff = first_diff(c, hw, c["reference"], c["known"])
            if diff:
                stats["ref_bad"] += 1
                print(f"{r['name']}: REFERENCE differs from GPU: {diff} (GPU vs reference)")
                print("    " + "\n    ".join(body(ptx)))
            else:
                stats["ref_ok"] += 1
        if c["interp"] is None:
            stats["interp_bad"] += 1
            print(f"{r['name']}: INTERP error: {c['interp_error']}")
        else:
            diff = first_diff(c, hw, c["interp"])
            if diff:
                stats["interp_bad"] += 1
                print(f"{r['name']}: INTERP differs from GPU: {diff} (GPU vs interp)")
                print("    " + "\n    ".join(body(ptx)))
            else:
                stats["interp_ok"] += 1
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
