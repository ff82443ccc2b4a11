#!/usr/bin/env bash
# A/B benchmark of two builds on one machine, alternating runs so that both see the same
# conditions: the reader/printer (`text/benches/corpus.rs`), the bytecode (`binary/benches/
# codec.rs`) and the interpreter (`interp/benches/throughput.rs`).
#
#   tools/bench/ab.sh DIR ROUNDS OUTDIR
#
# DIR holds `base/` and `new/`, each with the three bench executables named `corpus`, `codec`
# and `throughput` (from `cargo bench --no-run`, e.g. stripped and carried to the GPU machine),
# and `corpus/` the PTX corpus (a copy of ../shared/corpus). Each round runs every bench of base,
# then of new; the outputs go to OUTDIR/<bench>.<build>.<round>.txt.
set -euo pipefail
dir=$1 rounds=$2 out=$3
mkdir -p "$out"
export PTX_CORPUS="$dir/corpus" CORPUS="$dir/corpus" REPS=${REPS:-5}
for r in $(seq 1 "$rounds"); do
    for v in base new; do
        "$dir/$v/corpus" > "$out/corpus.$v.$r.txt" 2>&1
        "$dir/$v/codec" > "$out/codec.$v.$r.txt" 2>&1
        "$dir/$v/throughput" > "$out/throughput.$v.$r.txt" 2>&1
    done
done
