#!/usr/bin/env python3
"""Compares a `hopper_batch` run (hw_run_maps.py) with the reference and the interpreter.

usage: hw_compare_maps.py DIR HW_OUT.jsonl

Per case: the reference must equal the GPU on every byte it knows, the interpreter on every
byte. Prints each difference (first differing 4-byte word) and a summary per family as JSON.
"""
import collections
import json
import os
import sys


def first_diff(a, b, known=None):
    for w in range(0, len(a), 4):
        for i in range(w, min(w + 4, len(a))):
            if (known is None or known[i]) and a[i] != b[i]:
                return w
    return None


def main():
    d, hw = sys.argv[1], sys.argv[2]
    cases = {json.loads(l)["name"]: json.loads(l) for l in open(os.path.join(d, "cases.jsonl"))}
    stats = collections.defaultdict(collections.Counter)
    for line in open(hw):
        r = json.loads(line)
        c = cases[r["name"]]
        s = stats[c["family"]]
        s["cases"] += 1
        if "error" in r:
            s["hw_error"] += 1
            print("%s (%s): GPU error: %s" % (r["name"], c["family"], r["error"][:200]))
            continue
        got = bytes.fromhex(r["hw"])
        ref = bytes.fromhex(c["reference"])
        known = bytes.fromhex(c["known"])
        w = first_diff(got, ref, known)
        if w is None:
            s["ref_ok"] += 1
        else:
            s["ref_bad"] += 1
            print("%s (%s): REFERENCE differs at byte %d: GPU %s, reference %s" % (
                r["name"], c["family"], w, got[w:w + 4].hex(), ref[w:w + 4].hex()))
        if c["interp"] is None:
            s["interp_error"] += 1
            print("%s (%s): interpreter error: %s" % (r["name"], c["family"], c["interp_error"]))
            continue
        w = first_diff(got, bytes.fromhex(c["interp"]))
        if w is None:
            s["interp_ok"] += 1
        else:
            s["interp_bad"] += 1
            print("%s (%s): INTERP differs at byte %d: GPU %s, interpreter %s" % (
                r["name"], c["family"], w, got[w:w + 4].hex(), bytes.fromhex(c["interp"])[w:w + 4].hex()))
    print(json.dumps({k: dict(v) for k, v in sorted(stats.items())}))


if __name__ == "__main__":
    main()
