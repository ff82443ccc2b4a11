# What the fuzzing scripts know about the cargo-fuzz targets, sourced (POSIX sh) by fuzz/seed.sh,
# fuzz/oss-fuzz/build.sh and fuzz/oss-fuzz/test-build.sh. Nothing here names a target: the
# targets are the [[bin]] entries of fuzz/Cargo.toml, and each target's source says what it
# needs in two comment lines, e.g. in fuzz/fuzz_targets/parse.rs:
#
#   // fuzz-seeds: text
#   // fuzz-options: max_len=65536 timeout=10 rss_limit_mb=2048
#
# fuzz-seeds is one of
#   text        PTX text: every .ptx of corpus/ and the files of ../shared/corpus below 64 KiB;
#               the target also gets the dictionary fuzz/ptx.dict;
#   bytecode    the golden .ptxb files and corpus modules encoded with both codecs;
#   random:N    16 random inputs of N bytes (for targets that read structured bytes).
# fuzz-options are libFuzzer flags without their dash (`-timeout=10` is `timeout=10`); OSS-Fuzz
# gets them as $OUT/<target>.options ([libfuzzer] section).
#
# Set fuzz_dir (the fuzz/ directory) before calling these functions.

# The targets, one name per line, in the order of fuzz/Cargo.toml.
fuzz_targets() {
    fuzz_target_table | while read -r name path; do echo "$name"; done
}

# One "NAME PATH" line per [[bin]] of fuzz/Cargo.toml (PATH relative to fuzz/; cargo-fuzz's
# default fuzz_targets/NAME.rs when the entry has none).
fuzz_target_table() {
    awk '
        function emit() {
            if (name != "") print name, (path != "" ? path : "fuzz_targets/" name ".rs")
            name = ""; path = ""
        }
        function value(line) { sub(/^[^"]*"/, "", line); sub(/".*$/, "", line); return line }
        /^[ \t]*\[\[bin\]\]/ { emit(); inbin = 1; next }
        /^[ \t]*\[/ { emit(); inbin = 0; next }
        inbin && /^[ \t]*name[ \t]*=/ { name = value($0) }
        inbin && /^[ \t]*path[ \t]*=/ { path = value($0) }
        END { emit() }
    ' "$fuzz_dir/Cargo.toml"
}

# fuzz_target_field TARGET FIELD: the text after `// fuzz-FIELD:` in the target's source (empty
# when the line is missing).
fuzz_target_field() {
    _fuzz_src=$(fuzz_target_table | awk -v t="$1" '$1 == t { print $2 }')
    [ -n "$_fuzz_src" ] && [ -f "$fuzz_dir/$_fuzz_src" ] || {
        echo "no source for fuzz target $1" >&2
        return 1
    }
    sed -n "s|^[[:blank:]]*// fuzz-$2:[[:blank:]]*||p" "$fuzz_dir/$_fuzz_src" | head -n 1 |
        sed 's/[[:blank:]]*$//'
}

# fuzz_target_seeds TARGET: text, bytecode, random:N or empty.
fuzz_target_seeds() {
    fuzz_target_field "$1" seeds
}

# fuzz_target_options TARGET: KEY=VALUE words (possibly none).
fuzz_target_options() {
    fuzz_target_field "$1" options
}

# fuzz_target_has_dict TARGET: whether the target reads PTX text and gets fuzz/ptx.dict.
fuzz_target_has_dict() {
    [ "$(fuzz_target_seeds "$1")" = text ]
}
