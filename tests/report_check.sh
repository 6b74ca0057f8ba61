#!/bin/sh
# report_check.sh OMPREF FILE.json...: `ompref report FILE... --out DIR` into a
# temporary directory writes index.md, every PNG it links exists and is at most
# 2000 pixels wide (a readable chart, not a 9792-pixel strip). Exit 77 (CTest:
# skipped) when matplotlib is missing, with the line that says so.
set -u
ompref=$1
shift
out=$(mktemp -d "${TMPDIR:-/tmp}/ompref-report-XXXXXX")
trap 'rm -rf "$out"' EXIT
err=$("$ompref" report "$@" --out "$out" 2>&1 >/dev/null)
rc=$?
if [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q python3-matplotlib; then
  echo "SKIPPED: $err"
  exit 77
fi
[ "$rc" -eq 0 ] || { echo "ompref report exited $rc: $err"; exit 1; }
[ -s "$out/index.md" ] || { echo "no index.md in $out"; exit 1; }
pngs=$(grep -o '](.*\.png)' "$out/index.md" | sed 's/^](//; s/)$//')
[ -n "$pngs" ] || { echo "index.md links no PNG"; exit 1; }
n=0
for png in $pngs; do
  [ -s "$out/$png" ] || { echo "index.md links $png, which is missing"; exit 1; }
  # PNG: the width is the big-endian 32-bit number at byte 16 (the IHDR chunk).
  width=$(od -An -tu1 -j16 -N4 "$out/$png" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
  [ "$width" -le 2000 ] || { echo "$png is $width pixels wide"; exit 1; }
  n=$((n + 1))
done
echo "index.md and $n linked PNGs, each at most 2000 pixels wide"
