#!/bin/bash
# The GPU side of the sanitizer agreement suite, run on the GPU machine from the repository
# root: compiles the CUDA kernels to PTX (corpus/sanitize/cu_*.ptx), then runs every kernel
# under compute-sanitizer (tools/sanitize/run_gpu.py). With $OUT set, copies the PTX,
# gpu.json and the logs there.
set -u
cd "$(dirname "$0")/../.."
mkdir -p corpus/sanitize
for f in mem race init sync; do
  nvcc -arch=sm_90 -ptx tools/sanitize/cuda/$f.cu -o corpus/sanitize/cu_$f.ptx || echo "nvcc failed: $f"
done
LOGS=${OUT:-/tmp}/logs
python3 tools/sanitize/run_gpu.py --out corpus/sanitize/gpu.json --logs "$LOGS" -j "${JOBS:-14}" "$@"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT/corpus"
  cp corpus/sanitize/cu_*.ptx corpus/sanitize/gpu.json "$OUT/corpus/"
  (cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
fi
