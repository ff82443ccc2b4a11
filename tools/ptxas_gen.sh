#!/usr/bin/env bash
# ptxas acceptance of the kernels built by the IR builder (examples/gen_kernels.rs).
#
#   tools/ptxas_gen.sh prepare   (here)        build the kernels into .carry/gen/ (git-ignored);
#                                              the example also checks each one in the interpreter
#   tools/ptxas_gen.sh run       (GPU machine) run ptxas on each for its own .target; prints one
#                                              line per file and a total, writes ptxas messages of
#                                              failures to $OUT/ptxas_gen.log (or ./out); exit 1
#                                              if any file is rejected
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/.carry/gen"
case "${1:-}" in
prepare)
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$here" && cargo run --release --example gen_kernels -- --out "$dir") || exit 1
    echo "prepared $(ls "$dir" | wc -l) files in $dir"
    ;;
run)
    out=${OUT:-./out}
    mkdir -p "$out"
    log="$out/ptxas_gen.log"
    : > "$log"
    ptxas --version | tail -1
    pass=0; fail=0
    for f in "$dir"/*.ptx; do
        target=$(grep -m1 -E '^\s*\.target' "$f" | sed -E 's/^\s*\.target\s+//; s/[,[:space:]].*//')
        if ptxas -arch="$target" -c -o /dev/null "$f" > /tmp/g.log 2>&1; then
            pass=$((pass+1)); echo "ok $(basename "$f") ($target)"
        else
            fail=$((fail+1)); echo "FAIL $(basename "$f") ($target)"
            { echo "== $(basename "$f")"; cat /tmp/g.log; } >> "$log"
        fi
    done
    echo "$pass accepted, $fail rejected"
    [ "$fail" -eq 0 ]
    ;;
*)
    echo "usage: $0 prepare | run" >&2; exit 2;;
esac
