#!/usr/bin/env bash
# What ptxas makes of PTX kernels: each file compiled for sm_90a and its SASS printed without
# addresses' encodings (run on the GPU machine, which has ptxas and cuobjdump).
#
#   tools/hwvectors/sass.sh FILE.ptx...
#
# Used to read how ptxas lowers instructions that sm_90 has no unit for (the video
# instructions, FP8 mma.sync) before fitting the interpreter's rules to the recorded vectors.
set -euo pipefail
arch=${ARCH:-sm_90a}
tmp=$(mktemp -d)
for f in "$@"; do
    echo "=== $f: $(grep -m1 -oE '^\s*[a-z][a-z0-9]*\.[^;]*;' "$f" | tail -1)"
    ptxas -arch="$arch" "$f" -o "$tmp/k.cubin"
    cuobjdump -sass "$tmp/k.cubin" | grep -E '^\s+/\*[0-9a-f]{4}\*/' \
        | sed 's@/\* 0x[0-9a-f]* \*/@@; s/^ *//' | grep -v 'NOP'
done
rm -rf "$tmp"
