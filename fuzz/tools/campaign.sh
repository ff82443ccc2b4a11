#!/usr/bin/env bash
# Runs every fuzzer of a built fuzzer directory (the layout fuzz/oss-fuzz/build.sh writes into
# $OUT: one binary per target, TARGET.options, TARGET.dict, TARGET_seed_corpus.zip) at once, each
# in libFuzzer's fork mode, for a fixed time, on all cores: the long runs of fuzz/README.md, on
# this machine or on one without Rust (the binaries and this script are all it needs).
#
# usage: fuzz/tools/campaign.sh FUZZERS CORPORA SECONDS WORKERS RESULTS [TARGET...]
#   FUZZERS  directory of fuzzer binaries, options, dictionaries and seed zips
#   CORPORA  directory of working corpora, CORPORA/TARGET (created and filled from the seed zip
#            when empty; new inputs are merged into it, as with `cargo fuzz run`)
#   SECONDS  wall time of the run
#   WORKERS  fork workers in all, shared out between the targets (at least one each)
#   RESULTS  written: TARGET.log per target, artifacts/TARGET/ (crashes, timeouts, out-of-memory
#            inputs) and summary.txt (one line per target)
# Exit status 1 when any target found something, else 0.
#
# A crash, timeout or out-of-memory input does not stop a target's run (-ignore_* flags): the
# input is saved and counted, so one run reports every finding. Per-target limits (max_len,
# timeout, rss_limit_mb, malloc_limit_mb) come from TARGET.options, as OSS-Fuzz applies them.
set -euo pipefail
if [ $# -lt 5 ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
fuzzers=$(cd "$1" && pwd)
corpora=$2
seconds=$3
workers=$4
results=$5
shift 5
mkdir -p "$corpora" "$results"
results=$(cd "$results" && pwd)

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for f in "$fuzzers"/*; do
        case $(basename "$f") in *.*) continue ;; esac
        [ -f "$f" ] && [ -x "$f" ] && targets+=("$(basename "$f")")
    done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no fuzzer binaries in $fuzzers" >&2; exit 2; }

# `[libfuzzer]` options file -> -key=value flags.
options() {
    local file=$1
    [ -f "$file" ] || return 0
    awk -F= '/^\[/ { s = ($0 ~ /^\[libfuzzer\]/) } s && NF == 2 {
        gsub(/[ \t]/, "", $1); gsub(/^[ \t]+|[ \t]+$/, "", $2); print "-" $1 "=" $2 }' "$file"
}

n=${#targets[@]}
pids=()
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    w=$((workers / n + (i < workers % n ? 1 : 0)))
    [ "$w" -ge 1 ] || w=1
    echo "$w" > "$results/$t.workers"
    mkdir -p "$corpora/$t" "$results/artifacts/$t"
    if [ -z "$(ls -A "$corpora/$t")" ] && [ -f "$fuzzers/${t}_seed_corpus.zip" ]; then
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
            "$fuzzers/${t}_seed_corpus.zip" "$corpora/$t"
    fi
    flags=($(options "$fuzzers/$t.options"))
    if [ -f "$fuzzers/$t.dict" ]; then flags+=("-dict=$fuzzers/$t.dict"); fi
    (cd "$results" && exec "$fuzzers/$t" "$corpora/$t" "${flags[@]}" -fork="$w" \
        -max_total_time="$seconds" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -artifact_prefix="$results/artifacts/$t/" -print_final_stats=1 \
        > "$results/$t.log" 2>&1) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done

found=0
: > "$results/summary.txt"
for t in "${targets[@]}"; do
    w=$(cat "$results/$t.workers")
    last=$(grep -E '^#[0-9]+: cov:' "$results/$t.log" | tail -1 || true)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \/ \2/p')
    bad=$(echo "$last" | sed -n 's/.*oom\/timeout\/crash: \([0-9]*\/[0-9]*\/[0-9]*\).*/\1/p')
    arts=$(find "$results/artifacts/$t" -type f | wc -l)
    files=$(ls "$corpora/$t" | wc -l)
    line="$t workers=$w seconds=$seconds cpu_minutes=$((w * seconds / 60)) execs=${execs:-0}"
    line+=" cov/ft=${cov:-?} corpus=$files oom/timeout/crash=${bad:-?} artifacts=$arts"
    echo "$line" | tee -a "$results/summary.txt"
    if [ "$arts" -gt 0 ] || { [ -n "$bad" ] && [ "$bad" != "0/0/0" ]; }; then found=1; fi
done
exit $found
