#!/usr/bin/env bash
# Runs the OSS-Fuzz / ClusterFuzzLite build (.clusterfuzzlite/build.sh -> fuzz/oss-fuzz/build.sh)
# here, without a container, with the variables the builder image sets, then checks $OUT as the
# fuzzing infrastructure would use it and runs every fuzzer from there on its seed corpus with its
# options and dictionary. Exits non-zero on any missing file, failed check or crash.
#
# Usage: fuzz/oss-fuzz/test-build.sh
#   SANITIZER=none       default: the stable toolchain builds no sanitizer without nightly;
#                        SANITIZER=address builds with ASan (on the nightly toolchain that
#                        fuzz/rustc-wrapper picks, fuzz/README.md), which rebuilds fuzz/target
#                        with other flags: give it its own CARGO_TARGET_DIR to keep both.
#   FUZZ_SECONDS=5       how long each fuzzer runs (-max_total_time).
#   WITH_SHARED=0        leave ../shared out of $SRC (as in OSS-Fuzz); by default it is linked in
#                        when present, and the text seed corpora include its small files.
#   KEEP=1               keep the temporary $SRC/$OUT/$WORK folder and print where it is.
#
# The repository is linked in as $SRC/ptx-ir and built in place, so fuzz/target is reused: the
# compiler flags differ from a plain `cargo fuzz build` only in CC/CFLAGS/CXXFLAGS, which
# rebuild the C code (zstd, libFuzzer) and what depends on it, not the whole tree. RUSTFLAGS is
# not set (the image's `compile` would set it; cargo fuzz provides the flags that matter, and
# other RUSTFLAGS would rebuild everything); a RUSTFLAGS in the environment is passed on.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd -P)
fuzz_dir="$repo/fuzz"
. "$fuzz_dir/targets.sh"

export SANITIZER=${SANITIZER:-none}
export FUZZING_ENGINE=libfuzzer
export FUZZING_LANGUAGE=rust
export ARCHITECTURE=x86_64
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
seconds=${FUZZ_SECONDS:-5}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptx-ir-oss-fuzz.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    trap 'echo "kept $tmp"' EXIT
else
    trap 'rm -rf "$tmp"' EXIT
fi
export SRC="$tmp/src" OUT="$tmp/out" WORK="$tmp/work"
mkdir -p "$SRC" "$OUT" "$WORK"
ln -s "$repo" "$SRC/ptx-ir"
if [ "${WITH_SHARED:-1}" != 0 ] && [ -d "$repo/../shared" ]; then
    ln -s "$(cd "$repo/../shared" && pwd -P)" "$SRC/shared"
fi
cp "$repo/.clusterfuzzlite/build.sh" "$SRC/build.sh"

# C flags: OSS-Fuzz's for clang (base flags, the sanitizer's, -fsanitize=fuzzer-no-link for
# libFuzzer's coverage of the C code). Without clang, gcc gets what it accepts of them: -g1
# for -gline-tables-only, no -fsanitize=fuzzer-no-link (clang's SanitizerCoverage; the C code
# then runs without coverage feedback), and no -fsanitize=address either (gcc's ASan runtime is
# not the LLVM one that rustc links). CXXFLAGS leave out the sanitizer and coverage flags in both
# cases: the only C++ here is libFuzzer itself, which libfuzzer-sys compiles outside the image
# (inside it links the builder's prebuilt one) and which must not instrument itself.
base="-O1 -fno-omit-frame-pointer -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
if command -v clang > /dev/null && command -v clang++ > /dev/null; then
    export CC=clang CXX=clang++
    case "$SANITIZER" in
    address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
    memory) san="-fsanitize=memory -fsanitize-memory-track-origins" ;;
    undefined) san="-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound" ;;
    *) san= ;;
    esac
    export CFLAGS="$base -gline-tables-only $san -fsanitize=fuzzer-no-link"
    export CXXFLAGS="$base -gline-tables-only"
else
    export CFLAGS="$base -g1"
    export CXXFLAGS="$base -g1"
fi

echo "== build (SANITIZER=$SANITIZER CC=${CC:-cc} CFLAGS=$CFLAGS)"
bash -eu "$SRC/build.sh"

failures=()
fail() {
    echo "FAIL: $*" >&2
    failures+=("$*")
}

echo "== targets"
targets=$(fuzz_targets)
echo $targets
if command -v cargo-fuzz > /dev/null; then
    listed=$(cd "$repo" && cargo fuzz list)
    [ "$(echo "$listed" | sort)" = "$(echo "$targets" | sort)" ] ||
        fail "fuzz/targets.sh reads targets [$(echo $targets)] but cargo fuzz lists [$(echo $listed)]"
fi
[ -n "$targets" ] || fail "no fuzz targets in fuzz/Cargo.toml"

echo "== files in \$OUT"
(cd "$OUT" && ls -l | awk 'NR > 1 { printf "%12s  %s\n", $5, $9 }')

echo "== checks"
for t in $targets; do
    kind=$(fuzz_target_seeds "$t")
    [ -n "$kind" ] ||
        fail "$t: its source has no \`// fuzz-seeds: text|bytecode|random:N\` line (fuzz/targets.sh)"
    [ -x "$OUT/$t" ] || fail "$t: no binary in \$OUT"
    zip="$OUT/${t}_seed_corpus.zip"
    if [ ! -s "$zip" ]; then
        fail "$t: no seed corpus $zip"
    elif ! unzip -tq "$zip" > /dev/null; then
        fail "$t: $zip is not a valid zip"
    elif [ "$(unzip -Z1 "$zip" | wc -l)" -eq 0 ]; then
        fail "$t: $zip is empty"
    fi
    opts="$OUT/$t.options"
    if [ ! -f "$opts" ]; then
        fail "$t: no $opts"
    elif [ "$(head -n 1 "$opts")" != "[libfuzzer]" ] ||
        tail -n +2 "$opts" | grep -qvE '^[a-z_]+ = [^ ]+$'; then
        fail "$t: $opts is not a [libfuzzer] section of 'key = value' lines"
    fi
    if fuzz_target_has_dict "$t"; then
        cmp -s "$OUT/$t.dict" "$repo/fuzz/ptx.dict" || fail "$t: \$OUT/$t.dict is not fuzz/ptx.dict"
    elif [ -e "$OUT/$t.dict" ]; then
        fail "$t: a dictionary for a target that does not read text"
    fi
done

echo "== runs (${seconds} s each, options and dictionary as the runner applies them)"
for t in $targets; do
    [ -x "$OUT/$t" ] || continue
    corpus="$WORK/corpus/$t"
    artifacts="$WORK/artifacts/$t"
    mkdir -p "$corpus" "$artifacts"
    [ -s "$OUT/${t}_seed_corpus.zip" ] && unzip -q -o "$OUT/${t}_seed_corpus.zip" -d "$corpus"
    seeds=$(ls "$corpus" | wc -l)
    args=()
    if [ -f "$OUT/$t.options" ]; then
        while read -r key eq value; do
            [ "$eq" = "=" ] && args+=("-$key=$value")
        done < <(tail -n +2 "$OUT/$t.options")
    fi
    [ -f "$OUT/$t.dict" ] && args+=("-dict=$OUT/$t.dict")
    log="$WORK/$t.log"
    status=0
    (cd "$WORK" && "$OUT/$t" "${args[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus") > "$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    dict=$(sed -n 's/^Dictionary: \([0-9]*\) entries/, dictionary: \1 entries/p' "$log" | head -n 1)
    printf '%s: %s runs, %s seeds, corpus %s after%s, exit %s\n    %s\n' "$t" "${runs:-?}" \
        "$seeds" "$(ls "$corpus" | wc -l)" "$dict" "$status" "${args[*]}"
    if [ "$status" != 0 ] || [ -n "$(ls -A "$artifacts")" ] || [ -z "$runs" ]; then
        # The panic's message and regression file come before the backtrace, which a tail
        # alone would show.
        grep -m 1 -A 40 -E "panicked at|ERROR: libFuzzer|SUMMARY:" "$log" >&2 || true
        tail -n 30 "$log" >&2
        fail "$t: the fuzzer failed (exit $status, artifacts: $(ls "$artifacts" | tr '\n' ' '))"
    fi
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "== ${#failures[@]} problem(s):" >&2
    printf '  %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "== ok"
