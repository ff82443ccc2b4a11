#!/usr/bin/env bash
# rsqrt.approx.f64 on the GPU for the inputs of rsqrt_f64.in.hex (64 doubles, little-endian:
# subnormals, the smallest normals, values near the largest, random normals), printed as the
# hex of the 64 results; `ptx run` of the same is compared by tests (interp/src/float/tests.rs).
# usage (GPU machine): tools/hwvectors/probes/rsqrt_f64.sh
cd "$(dirname "$0")/../../seedspec" || exit 1
python3 evidence.py --one ../hwvectors/probes/rsqrt_f64.ptx \
    "entry=k block=64 args=zeros:512,hex:$(cat ../hwvectors/probes/rsqrt_f64.in.hex)" 0
