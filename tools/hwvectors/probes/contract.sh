#!/bin/bash
# GPU machine: records the contraction and NaN-fold vectors, their SASS, and the sin/cos/tanh
# unit analysis. Writes into $OUT (7 files).
set -u
cd "$(dirname "$0")/../../.."
python3 tools/hwvectors/gen.py --family contract --out "$OUT/contract.jsonl.xz"
python3 tools/hwvectors/gen.py --family fold --out "$OUT/fold.jsonl.xz"
python3 tools/hwvectors/gen.py --family contract --dry /tmp/contract_dry.jsonl
python3 tools/hwvectors/gen.py --family fold --dry /tmp/fold_dry.jsonl
python3 tools/hwvectors/probes/contract_sass.py /tmp/contract_dry.jsonl "$OUT/contract_sass.txt"
python3 tools/hwvectors/probes/contract_sass.py /tmp/fold_dry.jsonl "$OUT/fold_sass.txt"
python3 tools/hwvectors/probes/sfu_trig.py "$OUT/trig"
