#!/usr/bin/env bash
# Parallel scaling of the interpreter: the throughput bench (`interp/benches/throughput.rs`)
# with THREADS=1,2,4,... on the workloads whose grids are large enough to share out.
#
#   tools/bench/scaling.sh THROUGHPUT_BIN OUTDIR [THREADS...]
#
# THROUGHPUT_BIN is the bench executable (`cargo bench -p ptx-ir-interp --no-run` prints its
# path; carry it to the GPU machine's host for its 16 cores). Each thread count's output goes to
# OUTDIR/threads.<n>.txt; the wall-clock rate is the last column. Run it from the repository
# root (the real programs are read from PTX_IR_CORPUS, default ./corpus).
set -euo pipefail
bin=$1 out=$2
shift 2
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 2)
mkdir -p "$out"
export PTX_IR_CORPUS=${PTX_IR_CORPUS:-$PWD/corpus}
nproc > "$out/nproc.txt"
lscpu > "$out/lscpu.txt" 2>/dev/null || true
for t in "${counts[@]}"; do
    for w in "shared reduce" "sgemm" "integer loop" "memory loop"; do
        THREADS=$t BENCH="$w" "$bin" --bench
    done > "$out/threads.$t.txt" 2>&1
done
