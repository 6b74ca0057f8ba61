#!/bin/sh
# scripts/doc_tables.py --check fails when a step slower than the one it
# follows is not named under its page's "Where a step is slower than the one
# before": a copy of docs/ and of the tables' result file, with lbm's
# `target_streamed` (0.79x `target_lean` there) taken out of that section,
# must fail naming that step; the copy as it is must pass.
#   doc_tables_slower_check.sh PYTHON OMPREF SOURCE_DIR
# Exit 77 (skipped) where the build left a step out, as doc_tables.py's check.
set -eu
py=$1 ompref=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
result=$("$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import doc_tables; print(doc_tables.RESULT)' "$src/scripts")
mkdir -p "$work/$(dirname "$result")"
cp -r "$src/docs" "$work/docs"
cp "$src/$result" "$work/$result"
rc=0
"$py" "$src/scripts/doc_tables.py" "$ompref" "$work" --check > "$work/as-is.txt" || rc=$?
[ "$rc" -ne 77 ] || { echo "this build left a step out: skipped"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$work/as-is.txt"; echo "the copy as it is did not pass"; exit 1; }
grep -q '^- `target_streamed`' "$work/docs/lbm.md" || { echo "docs/lbm.md gives no reason for target_streamed to take out"; exit 1; }
sed -i 's/^- `target_streamed` /- the streamed step /' "$work/docs/lbm.md"
if "$py" "$src/scripts/doc_tables.py" "$ompref" "$work" --check > "$work/out.txt"; then
  cat "$work/out.txt"; echo "a slower step without its reason passed the check"; exit 1
fi
grep -q 'lbm.md: `target_streamed` is slower' "$work/out.txt" || { cat "$work/out.txt"; echo "the failure does not name target_streamed"; exit 1; }
echo ok
