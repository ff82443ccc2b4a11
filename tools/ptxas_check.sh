#!/usr/bin/env bash
# ptxas acceptance of printed PTX.
#
#   tools/ptxas_check.sh prepare [FILES...]   (here)  print each file with `ptx fmt` into
#                                              .carry/ptxas/{orig,printed}/ (git-ignored)
#   tools/ptxas_check.sh run                   (GPU machine) run ptxas on every original and
#                                              printed file for the file's own .target; writes
#                                              a TSV (file, target, original rc, printed rc) and
#                                              the ptxas messages of failures to $OUT (or ./out)
#
# Default FILES: every .ptx under ../shared/corpus.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
carry="$here/.carry/ptxas"
mode=${1:-}
shift || true
case "$mode" in
prepare)
    rm -rf "$carry" && mkdir -p "$carry/orig" "$carry/printed"
    ptx="$here/target/release/ptx"
    [ -x "$ptx" ] || (cd "$here" && cargo build --release --bin ptx) || exit 1
    if [ $# -eq 0 ]; then set -- $(find "$here/../shared/corpus" -name '*.ptx' | sort); fi
    for f in "$@"; do
        key=$(echo "$f" | sed 's|.*/corpus/||; s|/|__|g')
        cp "$f" "$carry/orig/$key"
        "$ptx" fmt "$f" -o "$carry/printed/$key" || echo "fmt failed: $f"
    done
    echo "prepared $(ls "$carry/orig" | wc -l) files in $carry"
    ;;
run)
    out=${OUT:-./out}
    mkdir -p "$out"
    report="$out/ptxas_report.tsv"
    log="$out/ptxas_failures.log"
    : > "$log"
    printf 'file\ttarget\torig_rc\tprinted_rc\n' > "$report"
    ptxas --version | tail -1
    pass=0; fail=0; skip=0
    for f in "$carry"/orig/*.ptx; do
        key=$(basename "$f")
        target=$(grep -m1 -E '^\s*\.target' "$f" | sed -E 's/^\s*\.target\s+//; s/[,[:space:]].*//')
        flags=""
        grep -m1 -E '^\s*\.target' "$f" | grep -q debug && flags="-g"
        # ptxas needs a kernel-free file to still compile: -c keeps relocatable device code valid.
        ptxas -arch="$target" $flags -c -o /dev/null "$f" > /tmp/o.log 2>&1; orc=$?
        ptxas -arch="$target" $flags -c -o /dev/null "$carry/printed/$key" > /tmp/p.log 2>&1; prc=$?
        printf '%s\t%s\t%s\t%s\n' "$key" "$target" "$orc" "$prc" >> "$report"
        if [ "$orc" -ne 0 ]; then
            skip=$((skip+1)); { echo "== original rejected: $key"; cat /tmp/o.log; } >> "$log"
        elif [ "$prc" -eq 0 ]; then
            pass=$((pass+1))
        else
            fail=$((fail+1)); { echo "== printed rejected: $key"; cat /tmp/p.log | head -30; } >> "$log"
        fi
    done
    echo "printed accepted: $pass, printed rejected: $fail, original rejected (not counted): $skip"
    ;;
*)
    echo "usage: $0 prepare [FILES...] | run" >&2; exit 2;;
esac
