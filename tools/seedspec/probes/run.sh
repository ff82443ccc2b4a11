#!/usr/bin/env bash
# GPU questions raised by the seed conformance cases (docs/SEEDS.md), on the GPU machine:
# - calltargets_*.ptx: an indirect call through `.calltargets` to `.reg`-parameter functions
#   (seed 001's call-via-pointer example) faults on the H100; the same with `.param` parameters;
# - mapa_generic.ptx: what mapa returns for a generic shared address, with and without
#   `.shared::cluster` (seed 003's DSMEM example).
# usage: tools/seedspec/probes/run.sh   (writes $OUT/probes.txt)
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-.}/probes.txt
: > "$out"
py=../../hwvectors
for f in calltargets_reg calltargets_param; do
  for block in 1 3; do
    echo "== $f block=$block" >> "$out"
    timeout 20 python3 ../evidence.py --one "$f.ptx" "entry=k block=$block args=zeros:12" 0 >> "$out" 2>&1
  done
  ptxas -arch=sm_90 "$f.ptx" -o "/tmp/$f.cubin" >> "$out" 2>&1 && cuobjdump -sass "/tmp/$f.cubin" | grep -E "CALL|RET|BRX|JMX|LDC|MOV.*R4|Function" | head -40 >> "$out"
done
cat > /tmp/ct.py <<'PY'
import sys; sys.path.insert(0, "../../hwvectors")
import cudrv, struct
d = cudrv.Driver()
m = d.load(open("calltargets_reg.ptx").read())
f = d.function(m, "k")
p = d.alloc(bytes(12))
d.launch(f, [1,1,1], [3,1,1], [struct.pack("<Q", p)])
print(d.read(p, 12).hex())
PY
echo "== compute-sanitizer calltargets_reg block=3" >> "$out"
timeout 60 compute-sanitizer python3 /tmp/ct.py 2>&1 | head -30 >> "$out"
echo "== mapa_generic" >> "$out"
timeout 20 python3 ../evidence.py --one mapa_generic.ptx "entry=k grid=2 block=1 cluster=2 args=zeros:64" 0 >> "$out" 2>&1
cat "$out"
