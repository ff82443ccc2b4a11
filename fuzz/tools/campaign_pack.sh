#!/usr/bin/env bash
# Packs what fuzz/tools/campaign_device.sh needs into .carry/fuzz.tar.xz (git-ignored): the
# fuzzers of an OSS-Fuzz style build folder (KEEP=1 fuzz/oss-fuzz/test-build.sh prints where it
# kept it), stripped of debug information, and the working corpora fuzz/corpus/<target>/.
#   fuzz/tools/campaign_pack.sh OUTDIR         pack
#   fuzz/tools/campaign_pack.sh --unpack FILE  replace fuzz/corpus/ by the corpora of a
#                                              campaign_device.sh corpora.tar.xz
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --unpack ]; then
    tmp=$(mktemp -d)
    tar xJf "$2" -C "$tmp"
    rm -rf fuzz/corpus && mv "$tmp/corpora" fuzz/corpus && rmdir "$tmp"
    for d in fuzz/corpus/*; do echo "$d: $(ls "$d" | wc -l) files"; done
    exit 0
fi
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/fuzzers" "$tmp/corpora" .carry
cp "$out"/* "$tmp/fuzzers/"
for f in "$tmp"/fuzzers/*; do
    case $(basename "$f") in *.*) ;; *) strip --strip-debug "$f" ;; esac
done
[ -d fuzz/corpus ] && cp -r fuzz/corpus/. "$tmp/corpora/"
tar cf - -C "$tmp" fuzzers corpora | xz -6 -T0 > .carry/fuzz.tar.xz
ls -la .carry/fuzz.tar.xz
