#!/usr/bin/env bash
# ptxas on the seeds' statements and examples, as written and as printed.
#
#   tools/ptxas_seeds.sh prepare   (here)        run tests/seeds.rs with PTX_SEEDS_OUT: every
#                                                module it tests (one statement in a kernel, or
#                                                an examples block as a whole), with `.reg`
#                                                declarations for the registers the seeds leave
#                                                undeclared, and its printed form, into
#                                                .carry/seeds/ (git-ignored)
#   tools/ptxas_seeds.sh run       (GPU machine) ptxas on both for the module's own .target;
#                                                writes $OUT/ptxas_seeds.tsv (module, origin,
#                                                target, original rc, printed rc, whether the
#                                                first error is the same, the original's first
#                                                error) and the messages
#                                                of every disagreement to $OUT/ptxas_seeds.log
#
# The seeds are excerpts: placeholders (`ret-param`, `a-desc`), names with no declaration that
# would fit (tensor maps, shared-memory barriers) and forms for other targets make ptxas refuse
# many originals. What the check asks is that printing never changes ptxas's verdict: every
# original it accepts is accepted printed, and where it refuses both, the first error is the
# same (line numbers aside).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
carry="$here/.carry/seeds"
case "${1:-}" in
prepare)
    rm -rf "$carry"
    (cd "$here" && PTX_SEEDS_OUT="$carry" cargo test --release --test seeds -q) || exit 1
    echo "prepared $(ls "$carry"/*.printed.ptx | wc -l) modules in $carry"
    ;;
run)
    out=${OUT:-./out}
    mkdir -p "$out"
    report="$out/ptxas_seeds.tsv"
    log="$out/ptxas_seeds.log"
    : > "$log"
    printf 'module\torigin\ttarget\torig_rc\tprinted_rc\tsame_first_error\toriginal_first_error\n' > "$report"
    ptxas --version | tail -1
    both_ok=0; printed_rejected=0; printed_only=0; same=0; differ=0
    # The first error, without the file name and line number.
    first_error() { grep -m1 -iE 'error|fatal' "$1" | sed -E 's/^[^,]*, line [0-9]+; //'; }
    while read -r stem origin; do
        f="$carry/$stem.ptx"
        p="$carry/$stem.printed.ptx"
        target=$(grep -m1 -E '^\s*\.target' "$f" | sed -E 's/^\s*\.target\s+//; s/[,[:space:]].*//')
        ptxas -arch="$target" -c -o /dev/null "$f" > /tmp/so.log 2>&1; orc=$?
        ptxas -arch="$target" -c -o /dev/null "$p" > /tmp/sp.log 2>&1; prc=$?
        sf="-"
        if [ "$orc" -eq 0 ] && [ "$prc" -eq 0 ]; then
            both_ok=$((both_ok+1))
        elif [ "$orc" -eq 0 ]; then
            printed_rejected=$((printed_rejected+1))
            { echo "== printed rejected, original accepted: $stem ($origin)"; cat /tmp/sp.log; } >> "$log"
        elif [ "$prc" -eq 0 ]; then
            printed_only=$((printed_only+1))
            { echo "== printed accepted, original rejected: $stem ($origin)"; cat /tmp/so.log; } >> "$log"
        elif [ "$(first_error /tmp/so.log)" = "$(first_error /tmp/sp.log)" ]; then
            same=$((same+1)); sf=yes
        else
            differ=$((differ+1)); sf=no
            { echo "== both rejected, first errors differ: $stem ($origin)"; echo "-- original:";
              cat /tmp/so.log; echo "-- printed:"; cat /tmp/sp.log; } >> "$log"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$stem" "$origin" "$target" "$orc" "$prc" "$sf" \
            "$(first_error /tmp/so.log)" >> "$report"
    done < "$carry/index.txt"
    echo "modules: $((both_ok + printed_rejected + printed_only + same + differ))"
    echo "original and printed accepted: $both_ok"
    echo "original accepted, printed rejected: $printed_rejected"
    echo "original rejected, printed accepted: $printed_only"
    echo "both rejected, same first error: $same; different first error: $differ"
    [ "$printed_rejected" -eq 0 ] && [ "$printed_only" -eq 0 ] && [ "$differ" -eq 0 ]
    ;;
*)
    echo "usage: $0 prepare | run" >&2; exit 2;;
esac
