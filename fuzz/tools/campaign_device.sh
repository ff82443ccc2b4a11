#!/usr/bin/env bash
# The long fuzz runs on the GPU machine's CPU cores (no Rust there): unpacks fuzzers and corpora
# that fuzz/tools/campaign_pack.sh packed into .carry/fuzz.tar.xz, runs fuzz/tools/campaign.sh,
# and leaves in $OUT the summary, the logs and artifacts, and the grown corpora (to unpack here
# with campaign_pack.sh --unpack, so that the next run goes on from them).
# usage (on the device, from the repository root): fuzz/tools/campaign_device.sh SECONDS [TARGET...]
set -uo pipefail
seconds=$1
shift
work=/tmp/ptx-ir-campaign
rm -rf "$work" && mkdir -p "$work"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    .carry/fuzz.tar.xz "$work"
echo "cores: $(nproc)"
fuzz/tools/campaign.sh "$work/fuzzers" "$work/corpora" "$seconds" "$(nproc)" "$work/results" "$@"
rc=$?
cp "$work/results/summary.txt" "$OUT/"
pack() { # pack DIR ARCHIVE: tar.xz, with python's lzma where no xz is installed
    if command -v xz > /dev/null; then
        tar cf - -C "$(dirname "$1")" "$(basename "$1")" | xz -6 -T0 > "$2"
    else
        python3 -c 'import sys, tarfile, os; t = tarfile.open(sys.argv[2], "w:xz"); t.add(sys.argv[1], arcname=os.path.basename(sys.argv[1])); t.close()' "$1" "$2"
    fi
}
pack "$work/results" "$OUT/results.tar.xz"
pack "$work/corpora" "$OUT/corpora.tar.xz"
ls -la "$OUT"
exit $rc
