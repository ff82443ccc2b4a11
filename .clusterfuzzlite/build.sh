#!/bin/bash -eu
# ClusterFuzzLite's build script: the one of OSS-Fuzz, which does the work (targets, seed
# corpora, dictionary, options; see there and fuzz/README.md).
exec "$SRC/ptx-ir/fuzz/oss-fuzz/build.sh"
