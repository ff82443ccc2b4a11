#!/usr/bin/env bash
# Records the sparse-mma family (`gen.py --family mmasp`) one form and sparsity selector per
# process: an invalid selector traps ("illegal instruction") and loses the CUDA context, which
# would end a single run. Writes OUT/mmasp.jsonl.xz (xz -9) and lists the (form, selector)
# pairs that trapped or were rejected.
#
#   tools/hwvectors/mmasp_record.sh OUT
set -uo pipefail
out=${1:?usage: mmasp_record.sh OUT}
here=$(dirname "$0")
tmp=$(mktemp -d)
forms=$(python3 "$here/gen.py" --family mmasp --list 2>/dev/null \
    | awk '{print $2}' | sed -E 's/\.sel[0-9]+\..*//; s/^mma\.sp\.//' | sort -u)
n=0
for f in $forms; do
    for s in 0 1 2 3; do
        n=$((n + 1))
        python3 "$here/gen.py" --family mmasp --match "mma.sp.$f.sel$s." \
            --out "$tmp/$n.jsonl" 2> "$tmp/$n.err" || true
        if grep -q '^skip' "$tmp/$n.err"; then
            echo "$f sel$s: $(grep -m1 '^skip' "$tmp/$n.err" | cut -d: -f2- | cut -c1-80)"
        fi
    done
done
cat "$tmp"/*.jsonl | xz -9 > "$out/mmasp.jsonl.xz"
echo "$(cat "$tmp"/*.jsonl | wc -l) cases written to $out/mmasp.jsonl.xz"
rm -rf "$tmp"
