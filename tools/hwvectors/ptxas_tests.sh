#!/usr/bin/env bash
# Validates the test programs of the Hopper/Blackwell interpreter work with ptxas (GPU machine:
# CUDA 13.0's ptxas). sm_100 instructions (tcgen05, clusterlaunchcontrol) cannot run on the
# H100/H200, so their test programs are at least checked to be valid PTX for sm_100a:
#
#   corpus/interp/{clc_steal,clc_errors,tcgen05_alloc}.ptx   ptxas -arch=sm_100a
#   corpus/interp/async_errors.ptx                           ptxas -arch=sm_90a
#   corpus/interp/alloca.ptx                                 ptxas -arch=sm_90
#   corpus/interp/tcgen05_mixed.ptx                          must be rejected (sm_100a)
#   every kernel of tools/hwvectors/hopper.py                ptxas -arch=sm_90a
#
# Usage: bash tools/hwvectors/ptxas_tests.sh   (writes $OUT/ptxas_tests.log, or ./out)
set -u
out=${OUT:-./out}
mkdir -p "$out"
log="$out/ptxas_tests.log"
: > "$log"
pass=0; fail=0
check() { # arch file
    if msg=$(ptxas -arch="$1" "$2" -o /dev/null 2>&1); then
        pass=$((pass + 1)); echo "ok   $1 $2" >> "$log"
    else
        fail=$((fail + 1)); printf 'FAIL %s %s\n%s\n' "$1" "$2" "$msg" >> "$log"
    fi
}
ptxas --version | tail -1 >> "$log"
for f in corpus/interp/clc_steal.ptx corpus/interp/clc_errors.ptx corpus/interp/tcgen05_alloc.ptx; do
    check sm_100a "$f"
done
check sm_90a corpus/interp/async_errors.ptx
check sm_90 corpus/interp/alloca.ptx
# Must be rejected: mixed .cta_group (the verifier's cta-group-mismatch).
if ptxas -arch=sm_100a corpus/interp/tcgen05_mixed.ptx -o /dev/null > /dev/null 2>&1; then
    fail=$((fail + 1)); echo "FAIL sm_100a corpus/interp/tcgen05_mixed.ptx accepted (should be rejected)" >> "$log"
else
    pass=$((pass + 1)); echo "ok   sm_100a corpus/interp/tcgen05_mixed.ptx rejected, as expected" >> "$log"
fi
tmp=$(mktemp -d)
python3 tools/hwvectors/hopper.py --dry "$tmp/cases.jsonl" 2>/dev/null
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
for i, line in enumerate(open(tmp + "/cases.jsonl")):
    c = json.loads(line)
    with open("%s/%03d_%s.ptx" % (tmp, i, c["name"].replace("/", "_").replace("#", "_")), "w") as f:
        f.write(c["ptx"])
PY
for f in "$tmp"/*.ptx; do check sm_90a "$f"; done
echo "$pass passed, $fail failed" | tee -a "$log"
