#!/usr/bin/env bash
# 32-bit .local/.shared address arithmetic on the GPU (addr32_*.ptx); each kernel in its own
# process. usage (GPU machine): tools/hwvectors/probes/addr32.sh
cd "$(dirname "$0")/../../seedspec" || exit 1
for k in local shared local64; do
    printf '%s\t' "$k"
    timeout 20 python3 evidence.py --one "../hwvectors/probes/addr32_$k.ptx" "entry=k block=1 args=zeros:4" 0
done
