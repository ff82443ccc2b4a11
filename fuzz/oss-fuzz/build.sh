#!/bin/bash -eu
# Builds ptx-ir's fuzz targets the way OSS-Fuzz and ClusterFuzzLite expect: the build script of
# google/oss-fuzz's projects/ptx-ir/ (a copy of this file) and of .clusterfuzzlite/ (which calls
# this file). It runs inside gcr.io/oss-fuzz-base/base-builder-rust, started by the image's
# `compile`; fuzz/oss-fuzz/test-build.sh runs it outside any container with the same variables.
#
# For every cargo-fuzz target of fuzz/Cargo.toml (none is named here: see fuzz/targets.sh) it
# writes to $OUT
#   <target>                  the libFuzzer binary (`cargo fuzz build -O -a`);
#   <target>_seed_corpus.zip  its seeds (fuzz/seed.sh: corpus/ of this repository, plus
#                             $SRC/shared/corpus when present; the OSS-Fuzz image has no shared
#                             corpus, and needs none);
#   <target>.dict             fuzz/ptx.dict, for the targets that read PTX text;
#   <target>.options          its `// fuzz-options:` as a [libfuzzer] section.
#
# Environment, as the builder sets it:
#   SRC, OUT, WORK   the sources (this repository at $SRC/ptx-ir), the output folder, scratch.
#   SANITIZER        address, memory, undefined, coverage or none (see the case below).
#   ARCHITECTURE     x86_64 only (the binaries are taken from the x86_64-unknown-linux-gnu build).
#   CC, CXX, CFLAGS, CXXFLAGS
#                    read by the cc crate, which compiles the vendored zstd C library (and,
#                    outside the image, libfuzzer-sys's libFuzzer): the C code gets the builder's
#                    sanitizer and coverage flags from them.
#   RUSTFLAGS        set by `compile` (`--cfg fuzzing -Cdebuginfo=1 -Cforce-frame-pointers`,
#                    `-Zsanitizer=...`, `-Cinstrument-coverage` for coverage builds); cargo fuzz
#                    adds its own coverage-guidance flags in front of them.
#   LIB_FUZZING_ENGINE
#                    not used: libfuzzer-sys links libFuzzer itself, the builder's archive when
#                    `compile` has set CUSTOM_LIBFUZZER_PATH (it does in the OSS-Fuzz and
#                    ClusterFuzzLite images), else a libFuzzer it compiles from its own sources.
set -euo pipefail

repo="$SRC/ptx-ir"
cd "$repo"
fuzz_dir=fuzz
. fuzz/targets.sh

if [ "${ARCHITECTURE:-x86_64}" != x86_64 ]; then
    echo "build.sh: ARCHITECTURE=$ARCHITECTURE is not supported (x86_64 only)" >&2
    exit 1
fi
triple=x86_64-unknown-linux-gnu
command -v zip > /dev/null || { echo "build.sh: needs zip for the seed corpora" >&2; exit 1; }

# SANITIZER -> cargo fuzz --sanitizer.
#   address    AddressSanitizer, the one sanitizer project.yaml lists for OSS-Fuzz.
#   memory     MemorySanitizer: cargo fuzz adds -Zbuild-std (the image's nightly has rust-src)
#              and origin tracking; `compile` puts -fsanitize=memory into CFLAGS for the C code.
#   undefined  Rust has no UndefinedBehaviorSanitizer; `-a` (debug assertions and overflow
#              checks) is what catches arithmetic bugs in the Rust code. The UBSan checks of the
#              C code would need the UBSan runtime at link time, which rustc does not add, so
#              the -fsanitize flags other than fuzzer-no-link are dropped from CFLAGS/CXXFLAGS.
#   coverage   the image's `cargo` wrapper turns `cargo fuzz build` into a `cargo build --bins`
#              of fuzz/ with $RUSTFLAGS (-Cinstrument-coverage) and copies the binaries to where
#              cargo fuzz would have put them, so the same command serves; it must stay
#              `cargo fuzz build ...` run from the repository root for the wrapper to see it.
#   none       no sanitizer (the only choice on a machine without a nightly toolchain).
case "${SANITIZER:-address}" in
address | memory) sanitizer=$SANITIZER ;;
undefined)
    sanitizer=none
    strip_sanitizers() {
        local kept=() f
        for f in $1; do
            case "$f" in
            -fsanitize=fuzzer-no-link) kept+=("$f") ;;
            -fsanitize=* | -fsanitize-* | -fno-sanitize=* | -fno-sanitize-*) ;;
            *) kept+=("$f") ;;
            esac
        done
        echo "${kept[*]:-}"
    }
    export CFLAGS="$(strip_sanitizers "${CFLAGS:-}")"
    export CXXFLAGS="$(strip_sanitizers "${CXXFLAGS:-}")"
    ;;
coverage | none) sanitizer=none ;;
*)
    echo "build.sh: unsupported SANITIZER=$SANITIZER" >&2
    exit 1
    ;;
esac

# All targets in one build, release with debug assertions, as fuzz/README.md runs them.
cargo fuzz build -O -a --sanitizer "$sanitizer"

target_dir=$(cd fuzz && cargo metadata --no-deps --format-version 1 |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin_dir="$target_dir/$triple/release"

# Seeds: fuzz/seed.sh builds `ptx` to encode the bytecode seeds, an ordinary host tool, so it
# is built without the builder's fuzzing flags (-Zsanitizer in RUSTFLAGS breaks proc-macro
# crates; -fsanitize in CFLAGS leaves the C library with undefined sanitizer symbols).
# RUSTFLAGS is set empty rather than unset: the image's cargo wrapper expands it under `-u`.
seeds="${WORK:-/tmp}/ptx-ir-seeds"
rm -rf "$seeds"
env -u CFLAGS -u CXXFLAGS RUSTFLAGS= fuzz/seed.sh "$seeds"

missing=()
for t in $(fuzz_targets); do
    cp "$bin_dir/$t" "$OUT/$t"

    rm -f "$OUT/${t}_seed_corpus.zip"
    if [ -n "$(ls -A "$seeds/$t" 2>/dev/null)" ]; then
        (cd "$seeds/$t" && ls -A | zip -q -X "$OUT/${t}_seed_corpus.zip" -@)
    fi

    rm -f "$OUT/$t.dict"
    if fuzz_target_has_dict "$t"; then
        cp fuzz/ptx.dict "$OUT/$t.dict"
    fi

    if [ -z "$(fuzz_target_seeds "$t")" ]; then
        missing+=("$t")
    fi
    {
        echo "[libfuzzer]"
        for kv in $(fuzz_target_options "$t"); do
            echo "${kv%%=*} = ${kv#*=}"
        done
    } > "$OUT/$t.options"
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "build.sh: no \`// fuzz-seeds:\` line in the source of: ${missing[*]} (no seeds, no dictionary; fuzz/targets.sh)" >&2
fi
