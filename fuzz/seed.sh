#!/bin/sh
# Fills libFuzzer's working corpora, fuzz/corpus/<target>/ (git-ignored), with seeds; with an
# argument, DIR/<target>/ instead (fuzz/oss-fuzz/build.sh zips those into the OSS-Fuzz seed
# corpora). Every target of fuzz/Cargo.toml gets the seeds its source asks for in its
# `// fuzz-seeds:` line (fuzz/targets.sh):
#   text:      every .ptx of corpus/ (goldens, interpreter programs, regression files) and the
#              files of ../shared/corpus below 64 KiB when that folder exists (larger ones slow
#              every execution down; tests/corpus.rs covers them);
#   bytecode:  the golden .ptxb files and the text seeds of corpus/golden and corpus/interp
#              encoded with both codecs by this build (`ptx encode`), so that their table
#              fingerprint is current;
#   random:N:  16 random inputs of N bytes (structured bytes: long inputs give whole kernels or
#              modules at once instead of libFuzzer's slow growth from empty).
# Usage: fuzz/seed.sh [DIR]   (from anywhere; needs cargo for `ptx encode`)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
shown=${1:-fuzz/corpus}
[ $# -gt 0 ] || set -- "$root/fuzz/corpus"
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$root"
fuzz_dir=fuzz
. fuzz/targets.sh

# The shared corpus sits beside the repository: ../shared, taken from the logical path, so that a
# repository linked in as $SRC/ptx-ir (fuzz/oss-fuzz/test-build.sh) finds $SRC/shared.
parent=$(cd "$root/.." && pwd)

# copy_text_seeds DIR: the text seeds, named after their paths (corpus_golden_print_calls.ptx,
# shared_corpus_lib_curand_2.ptx).
copy_text_seeds() {
    find corpus -name '*.ptx' | sort | while IFS= read -r f; do
        cp "$f" "$1/$(echo "$f" | tr / _)"
    done
    if [ -d "$parent/shared/corpus" ]; then
        (cd "$parent" && find shared/corpus -name '*.ptx' -size -64k | sort) | while IFS= read -r f; do
            cp "$parent/$f" "$1/$(echo "$f" | tr / _)"
        done
    fi
}

ptx=
encoder() {
    if [ -z "$ptx" ]; then
        cargo build --release --quiet --bin ptx
        ptx="${CARGO_TARGET_DIR:-target}/release/ptx"
    fi
}

for t in $(fuzz_targets); do
    dir="$out/$t"
    mkdir -p "$dir"
    kind=$(fuzz_target_seeds "$t")
    case "$kind" in
    text)
        copy_text_seeds "$dir"
        ;;
    bytecode)
        cp corpus/golden/bytecode/*.ptxb "$dir/"
        encoder
        for f in corpus/golden/print/*.ptx corpus/golden/bytecode/*.ptx corpus/interp/*.ptx; do
            name=$(echo "$f" | tr / _)
            "$ptx" encode "$f" -o "$dir/$name.ptxb" 2>/dev/null || true
            "$ptx" encode --uncompressed "$f" -o "$dir/$name.stored.ptxb" 2>/dev/null || true
        done
        ;;
    random:*)
        size=${kind#random:}
        for k in $(seq 1 16); do
            head -c "$size" /dev/urandom > "$dir/random$k"
        done
        ;;
    *)
        echo "fuzz/seed.sh: $t: no seeds (its source needs a \`// fuzz-seeds: text|bytecode|random:N\` line, fuzz/targets.sh)" >&2
        ;;
    esac
done
for t in $(fuzz_targets); do
    echo "$shown/$t: $(ls "$out/$t" | wc -l) files"
done
