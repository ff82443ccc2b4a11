#!/usr/bin/env bash
# Barriers under a guard predicate on the GPU (bar_guard_*.ptx, 64 threads): does the CTA get
# past the barrier (out[0] = 64) or hang (timeout)? Each kernel in its own process.
# usage (GPU machine): tools/hwvectors/probes/bar_guard.sh
cd "$(dirname "$0")/../../seedspec" || exit 1
for f in ../hwvectors/probes/bar_guard_*.ptx; do
    printf '%s\t' "$(basename "$f" .ptx)"
    timeout 10 python3 evidence.py --one "$f" "entry=k block=64 args=zeros:4" 0 || echo "timeout"
done
