#!/usr/bin/env bash
# Runs ptxas on every verifier mutant and records accept/reject.
#
#   (here)        cargo run --release --example verify_mutants -- gen .carry/mutants
#   (GPU machine) tools/verify_mutants/run_ptxas.sh [.carry/mutants]
#
# Writes $OUT/ptxas_results.tsv (or ./out/...): id, kind, expect, arch, hash, ptxas exit
# status, first line of ptxas's complaint; one row per case of manifest.tsv. Commit it as
# corpus/verify/ptxas_results.tsv; `cargo test --test verify` and
# `cargo run --release --example verify_mutants -- compare corpus/verify/ptxas_results.tsv`
# then report the verifier's agreement by kind of mutation.
set -u
dir=${1:-.carry/mutants}
out=${OUT:-./out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
command -v ptxas >/dev/null || { echo "ptxas not found" >&2; exit 2; }
ptxas --version | tail -1
one() {
    # id kind expect arch hash (tab separated) -> the same with rc and message appended
    IFS=$'\t' read -r id kind expect arch hash _rest <<< "$1"
    tmp=$(mktemp)
    ptxas -arch="$arch" -c -o /dev/null "$dir/cases/$id.ptx" > "$tmp" 2>&1
    rc=$?
    msg=$(grep -m1 -iE 'error|fatal' "$tmp" | tr '\t' ' ' | cut -c1-200)
    rm -f "$tmp"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$kind" "$expect" "$arch" "$hash" "$rc" "$msg"
}
export -f one
export dir
{
    printf 'id\tkind\texpect\tarch\thash\trc\tmessage\n'
    tail -n +2 "$dir/manifest.tsv" | xargs -d '\n' -P "$(nproc)" -I{} bash -c 'one "$@"' _ {} | sort
} > "$out/ptxas_results.tsv"
total=$(($(wc -l < "$out/ptxas_results.tsv") - 1))
accepted=$(awk -F'\t' 'NR>1 && $6==0' "$out/ptxas_results.tsv" | wc -l)
echo "$total cases, ptxas accepted $accepted"
awk -F'\t' 'NR>1 { k[$2]++; if (($6==0) == ($3=="valid")) a[$2]++ } END { for (x in k) printf "%-26s %5d %5d as intended\n", x, k[x], a[x] }' "$out/ptxas_results.tsv" | sort
