#!/usr/bin/env bash
# On the GPU machine: ptxas and GPU evidence for the seed conformance cases that
# `SPEC_EXPORT=DIR cargo test --release --test spec` wrote to DIR (carry DIR there).
# Writes $OUT/ptxas.tsv and $OUT/gpu.tsv; copy them to corpus/spec/.
# usage: tools/seedspec/run_device.sh DIR
set -euo pipefail
python3 "$(dirname "$0")/evidence.py" "$1" "${OUT:-.}"
