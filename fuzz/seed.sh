#!/bin/sh
# Fills libFuzzer's working corpora, fuzz/corpus/<target>/ (git-ignored), with seeds:
#   parse, roundtrip: every .ptx of corpus/ (goldens, interpreter programs, regression files)
#                     and the files of ../shared/corpus below 64 KiB (larger ones slow every
#                     execution down; tests/corpus.rs covers them);
#   decode:           the golden .ptxb files and the same text seeds encoded with both codecs
#                     by this build (`ptx encode`), so that their table fingerprint is current;
#   interp_agree:     16 random 4 KiB inputs (its input is structured bytes: long inputs give
#                     whole kernels at once instead of libFuzzer's slow growth from empty);
#   readback:         16 random 1 KiB inputs (structured bytes too: a module and bit flips).
# Usage: fuzz/seed.sh   (from anywhere; needs cargo for `ptx encode`)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for t in roundtrip parse decode readback interp_agree; do
    mkdir -p "fuzz/corpus/$t"
done
seeds=$( (find corpus -name '*.ptx'; [ -d ../shared/corpus ] && find ../shared/corpus -name '*.ptx' -size -64k) | sort)
for f in $seeds; do
    name=$(echo "$f" | sed 's#^\.\./##; s#/#_#g')
    cp "$f" "fuzz/corpus/parse/$name"
    cp "$f" "fuzz/corpus/roundtrip/$name"
done
cp corpus/golden/bytecode/*.ptxb fuzz/corpus/decode/
cargo build --release --quiet --bin ptx
ptx="${CARGO_TARGET_DIR:-target}/release/ptx"
for f in corpus/golden/print/*.ptx corpus/golden/bytecode/*.ptx corpus/interp/*.ptx; do
    name=$(echo "$f" | sed 's#/#_#g')
    "$ptx" encode "$f" -o "fuzz/corpus/decode/$name.ptxb" 2>/dev/null || true
    "$ptx" encode --uncompressed "$f" -o "fuzz/corpus/decode/$name.stored.ptxb" 2>/dev/null || true
done
for k in $(seq 1 16); do
    head -c 4096 /dev/urandom > "fuzz/corpus/interp_agree/random$k"
    head -c 1024 /dev/urandom > "fuzz/corpus/readback/random$k"
done
for t in roundtrip parse decode readback interp_agree; do
    echo "fuzz/corpus/$t: $(ls "fuzz/corpus/$t" | wc -l) files"
done
