#!/usr/bin/env bash
# Real PTX from the compilers and libraries on the GPU machine, thrown at ptx-ir.
#
#   tools/harvest/run.sh prepare   (here)        build the `ptx` binary into .carry/harvest/
#   tools/harvest/run.sh run       (GPU machine) make PTX with nvcc (features.cu, mma.cu,
#                                  cccl.cu for sm_90a/sm_100a/sm_120a, -G and -lineinfo),
#                                  Triton and TorchInductor (gen_triton.py), XLA and Numba
#                                  (gen_other.py), and extract the PTX embedded in the installed
#                                  libraries (cuobjdump -xptx); then `ptx check` and
#                                  `ptx roundtrip` every distinct file, compare the reader's
#                                  fast and general paths on each (fast_agree), and run ptxas on
#                                  the original and the printed form of a sample of those that read.
#
# Writes to $OUT (or ./out): harvest.log (what each generator did), results.tsv (one line per
# file: source, name, bytes, check rc, roundtrip rc, first error), fast_agree.txt (the files
# the fast and general paths read differently, if any), ptxas.tsv (file, target,
# original rc, printed rc), failing.tar.gz (the files that failed, smallest first, <= 15 MB),
# summary.txt. Everything is time-boxed to finish within the device's 10-minute command limit.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
src="$here/tools/harvest"
carry="$here/.carry/harvest"
w=/tmp/harvest

# The generators; `run` starts each in its own process group and ends the group at a deadline.
gen() {
    case "$1" in
    nvcc)
        cd "$w/nvcc" || return
        jobs=""
        for arch in sm_90a sm_100a sm_120a; do
            for f in features mma cccl; do jobs="$jobs $f:$arch:"; done
        done
        jobs="$jobs features:sm_90:-G features:sm_90a:-lineinfo cccl:sm_90:-lineinfo mma:sm_80:"
        for j in $jobs; do
            IFS=: read -r f arch flag <<< "$j"
            name=${f}_${arch}${flag//-/_}
            ( nvcc -ptx -std=c++17 --expt-relaxed-constexpr -arch="$arch" $flag -o "$name.ptx" \
                "$src/$f.cu" > "$name.log" 2>&1 && echo "nvcc $name ok" \
                || { echo "nvcc $name FAILED"; head -5 "$name.log"; } ) &
        done
        wait;;
    triton)
        TRITON_CACHE_DIR="$w/triton/cache" TORCHINDUCTOR_CACHE_DIR="$w/triton/inductor" \
            python3 "$src/gen_triton.py" "$w/triton";;
    jax) XLA_FLAGS="--xla_dump_to=$w/xla --xla_dump_hlo_as_text" python3 "$src/gen_other.py" jax "$w/xla";;
    numba) python3 "$src/gen_other.py" numba "$w/numba";;
    fatbin)
        site=$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null)
        cuda=$(dirname "$(dirname "$(command -v nvcc)")")
        for d in $site "$cuda/lib64" "$cuda/targets/x86_64-linux/lib"; do
            [ -d "$d" ] && find -L "$d" -maxdepth 6 -name '*.so*' -type f -size +200k 2>/dev/null
        done | sort -u > "$w/libs.txt"
        echo "libraries to scan: $(wc -l < "$w/libs.txt")"
        # Smallest first, so that the many small libraries are all scanned before the deadline.
        xargs -a "$w/libs.txt" ls -S -r | while read -r lib; do
            key=$(echo "$lib" | sed "s|.*/site-packages/||; s|/|_|g")
            d="$w/fatbin/$key"; mkdir -p "$d"
            (cd "$d" && timeout 40 cuobjdump -xptx all "$lib" > /dev/null 2>&1)
            n=$(ls "$d" | wc -l)
            if [ "$n" -gt 0 ]; then echo "cuobjdump $key: $n files"; else rmdir "$d"; fi
        done;;
    esac
}

case "${1:-}" in
prepare)
    (cd "$here" && cargo build --release --bin ptx \
        && cargo build --release -p ptx-ir-text --features general-paths --example fast_agree) \
        || exit 1
    mkdir -p "$carry" && cp "$here/target/release/ptx" "$carry/ptx" && strip "$carry/ptx"
    cp "$here/target/release/examples/fast_agree" "$carry/fast_agree" && strip "$carry/fast_agree"
    echo "prepared $carry/ptx and $carry/fast_agree"
    exit 0;;
gen) export PYTHONUNBUFFERED=1; gen "$2"; exit;;
run) ;;
*) echo "usage: $0 prepare | run" >&2; exit 2;;
esac

out=${OUT:-./out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ptx="$carry/ptx"
rm -rf "$w" && mkdir -p "$w"/{nvcc,triton,xla,numba,fatbin,all,res,fmt}
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
log="$out/harvest.log"
exec > >(tee -a "$log") 2>&1
echo "== $(date -u) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nvcc --version | tail -1)"

# 1. Generators, in parallel, each in its own session; at the deadline every one still running
# is ended with all its children (`timeout` alone would leave xargs' or nvcc's children).
pids=""
for g in nvcc triton jax numba fatbin; do
    setsid bash "$0" gen "$g" > "$w/$g.log" 2>&1 < /dev/null &
    pids="$pids $!"
done
while [ "$(elapsed)" -lt 240 ] && [ -n "$(jobs -pr)" ]; do sleep 2; done
for p in $pids; do kill -9 -- "-$p" 2>/dev/null && echo "generator group $p ended at the deadline"; done
wait $pids 2>/dev/null  # not a bare wait: that would wait for the tee too
for g in nvcc triton jax numba fatbin; do
    echo "--- $g"
    # The head says what a generator set out to do, the tail how it ended.
    if [ "$(wc -c < "$w/$g.log")" -gt 9000 ]; then
        head -c 3000 "$w/$g.log"; echo "[...]"; tail -c 6000 "$w/$g.log"
    else
        cat "$w/$g.log"
    fi
done
echo "generators done at $(elapsed) s"

# 2. Distinct files, named by source.
find "$w/nvcc" "$w/triton" "$w/xla" "$w/numba" "$w/fatbin" -name '*.ptx' -type f -size +0 | while read -r f; do
    case "$f" in
    "$w"/nvcc/*) s=nvcc;; "$w"/triton/*inductor*) s=inductor;; "$w"/triton/*) s=triton;;
    "$w"/xla/*) s=xla;; "$w"/numba/*) s=numba;; *) s=lib;;
    esac
    h=$(sha1sum "$f" | cut -c1-12)
    [ -e "$w/all/.seen_$h" ] && continue
    touch "$w/all/.seen_$h"
    b=$(basename "$f" .ptx | tr -c 'A-Za-z0-9_\n.-' '_' | cut -c1-80)
    [ "$s" = lib ] && b="$(basename "$(dirname "$f")" | cut -c1-40)__$b"
    cp "$f" "$w/all/${s}__${b}__$h.ptx"
done
echo "distinct files: $(ls "$w/all" | grep -c ptx), $(du -sh "$w/all" | cut -f1); by source:"
ls "$w/all" | grep ptx | sed 's/__.*//' | sort | uniq -c

# 3. Read, verify and round-trip each.
ls "$w/all"/*.ptx | xargs -P 16 -I{} bash -c '
    f="{}"; k=$(basename "$f" .ptx); [ $(date +%s) -ge '"$((t0 + 420))"' ] && exit 0
    timeout 120 '"$ptx"' check "$f" > /dev/null 2> '"$w"'/res/$k.err; c=$?
    timeout 120 '"$ptx"' roundtrip "$f" > '"$w"'/res/$k.rt 2>&1; r=$?
    e=$(grep -m1 -E "error|panick" '"$w"'/res/$k.err | cut -c1-300 | tr "\t" " ")
    [ $r -ne 0 ] && [ -z "$e" ] && e=$(grep -m1 FAIL '"$w"'/res/$k.rt | cut -c1-300 | tr "\t" " ")
    printf "%s\t%s\t%s\t%s\t%s\n" "${k%%__*}" "$k" "$(stat -c %s "$f")" "$c" "$r" > '"$w"'/res/$k.tsv
    [ -n "$e" ] && printf "%s\n" "$e" | sed "s|^[^:]*/||" > '"$w"'/res/$k.e1
    true'
{
    printf 'source\tfile\tbytes\tcheck_rc\troundtrip_rc\tfirst_error\n'
    for t in "$w"/res/*.tsv; do
        k=$(basename "$t" .tsv)
        printf '%s\t%s\n' "$(cat "$t")" "$(cat "$w/res/$k.e1" 2>/dev/null)"
    done
} > "$out/results.tsv"
echo "checked at $(elapsed) s"

# 3b. The reader's fast paths against its general paths (the same module or error), if built.
if [ -x "$carry/fast_agree" ]; then
    ls "$w/all"/*.ptx | xargs -P 16 -n 20 timeout 120 "$carry/fast_agree" 2>&1 \
        | grep -v '^agree ' | grep -v ' agree, 0 differ$' > "$out/fast_agree.txt"
    echo "fast/general paths: $(ls "$w/all"/*.ptx | wc -l) files read, $(grep -c '^DIFFER' "$out/fast_agree.txt") differ"
fi
echo "fast_agree done at $(elapsed) s"

# 4. ptxas on original and printed form, for files that read, up to 3 MB, while time lasts.
printf 'file\ttarget\torig_rc\tprinted_rc\torig_error\n' > "$out/ptxas.tsv"
awk -F'\t' 'NR > 1 && $4 == 0 && $5 == 0 && $3 < 3000000 { print $2 }' "$out/results.tsv" \
    | awk '{ n[$0 ~ /^lib__/]++; print (($0 ~ /^lib__/) ? 1 : 0) "\t" rand() "\t" $0 }' | sort -k1,1n -k2,2n | cut -f3 \
    > "$w/ptxas_todo.txt"
deadline=$((t0 + 490))
cat "$w/ptxas_todo.txt" | xargs -P 16 -I{} bash -c '
    k="{}"; [ $(date +%s) -ge '"$deadline"' ] && exit 0
    f='"$w"'/all/$k.ptx; p='"$w"'/fmt/$k.ptx
    '"$ptx"' fmt "$f" -o "$p" 2>/dev/null || { printf "%s\t-\t-\tfmt-failed\n" "$k" >> '"$out"'/ptxas.tsv; exit 0; }
    t=$(grep -m1 -E "^\s*\.target" "$f" | sed -E "s/^\s*\.target\s+//; s/[,[:space:]].*//")
    g=""; grep -m1 -E "^\s*\.target" "$f" | grep -q debug && g="-g"
    left=$(( '"$deadline"' - $(date +%s) )); [ $left -lt 5 ] && exit 0
    timeout $left ptxas -arch=$t $g -c -o /dev/null "$f" > '"$w"'/fmt/$k.orig.ptxas 2>&1; o=$?
    left=$(( '"$deadline"' - $(date +%s) )); [ $left -lt 5 ] && exit 0
    timeout $left ptxas -arch=$t $g -c -o /dev/null "$p" > '"$w"'/fmt/$k.ptxas 2>&1; q=$?
    why=""; [ $o -ne 0 ] && why=$(grep -v "aborted due to errors" '"$w"'/fmt/$k.orig.ptxas | grep -m1 . | cut -c1-160 | tr "\t" " ")
    printf "%s\t%s\t%s\t%s\t%s\n" "$k" "$t" "$o" "$q" "$why" >> '"$out"'/ptxas.tsv'
echo "ptxas done at $(elapsed) s"

# 5. Summary and the failing files.
{
    echo "files: $(($(wc -l < "$out/results.tsv") - 1))"
    [ -e "$out/fast_agree.txt" ] && echo "fast/general paths differ on $(grep -c '^DIFFER' "$out/fast_agree.txt") files"
    awk -F'\t' 'NR > 1 { n[$1]++; c[$1] += ($4 == 0); r[$1] += ($5 == 0); b[$1] += $3 }
        END { for (s in n) printf "%-9s files %5d  MB %8.1f  check ok %5d  roundtrip ok %5d\n", s, n[s], b[s] / 1e6, c[s], r[s] }' "$out/results.tsv"
    awk -F'\t' 'NR > 1 { n++; if ($3 == 0) { o++; if ($4 == 0) p++; else if ($4 != "-") f++ } }
        END { printf "ptxas: %d files tried, %d originals accepted, printed accepted %d, printed rejected %d\n", n, o, p, f }' "$out/ptxas.tsv"
    echo "originals that ptxas rejected, by its first error:"
    awk -F'\t' 'NR > 1 && $3 != 0 && $3 != "-" { print $5 }' "$out/ptxas.tsv" \
        | sed -E 's|^[^ ]*/||; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -20
    echo "distinct first errors:"
    awk -F'\t' 'NR > 1 && $6 != "" { sub(/^[^ ]* /, "", $6); print $6 }' "$out/results.tsv" | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -60
} > "$out/summary.txt"
cat "$out/summary.txt"
awk -F'\t' 'NR > 1 && ($4 != 0 || $5 != 0) { print $3 "\t" $2 }' "$out/results.tsv" > "$w/fail.txt"
awk -F'\t' 'NR > 1 && $3 == 0 && $4 != 0 && $4 != "-" { print "0\t" $1 }' "$out/ptxas.tsv" >> "$w/fail.txt"
: > "$w/pack.txt"; total=0
sort -n "$w/fail.txt" | while IFS=$'\t' read -r size k; do
    size=$(stat -c %s "$w/all/$k.ptx")
    [ $((total + size)) -gt 60000000 ] && continue
    total=$((total + size)); echo "all/$k.ptx" >> "$w/pack.txt"
    [ -e "$w/fmt/$k.ptxas" ] && echo "fmt/$k.ptxas" >> "$w/pack.txt"
done
(cd "$w" && tar czf "$out/failing.tar.gz" -T pack.txt 2>/dev/null)
# Every harvested file, for reading here; only those not from libraries if all would be too big.
(cd "$w" && tar czf "$out/all.tar.gz" all/*.ptx 2>/dev/null)
if [ "$(stat -c %s "$out/all.tar.gz")" -gt 15000000 ]; then
    (cd "$w" && ls all/*.ptx | grep -v '^all/lib__' | tar czf "$out/all.tar.gz" -T - 2>/dev/null)
fi
ls -la "$out"
echo "finished at $(elapsed) s"
