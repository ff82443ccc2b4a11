#!/usr/bin/env bash
# st.async / red.async between the CTAs of a cluster on the GPU (corpus/interp/st_async.ptx),
# printing argument 0 in hex. usage (GPU machine): tools/hwvectors/probes/st_async.sh
cd "$(dirname "$0")/../../seedspec" || exit 1
timeout 20 python3 evidence.py --one ../../corpus/interp/st_async.ptx \
    "entry=k grid=2 block=1 cluster=2 args=zeros:32" 0
