#!/bin/sh
# install_check.sh CMAKE BUILD_DIR PREFIX: `cmake --install` of a build tree in
# which only `ompref` was built (as scripts/run-suite.sh builds it) succeeds
# and installs ompref and report.py. The converter, where it was built, is
# moved aside for the install and put back afterwards.
set -u
cmake=$1 build=$2 prefix=$3
converter=$build/ompref-meshb-convert
aside=$build/ompref-meshb-convert.aside-$$
[ -x "$build/ompref" ] || { echo "no $build/ompref: build the ompref target first"; exit 1; }
if [ -e "$converter" ]; then
  mv "$converter" "$aside" || exit 1
  trap 'mv "$aside" "$converter"' EXIT
fi
rm -rf "$prefix"
out=$("$cmake" --install "$build" --prefix "$prefix" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "cmake --install exited $rc without the converter built:"; printf '%s\n' "$out" | tail -5; exit 1; }
[ -x "$prefix/bin/ompref" ] || { echo "no $prefix/bin/ompref after the install"; exit 1; }
[ -f "$prefix/share/ompref/report.py" ] || { echo "no $prefix/share/ompref/report.py after the install"; exit 1; }
[ ! -e "$prefix/bin/ompref-meshb-convert" ] || { echo "the converter was installed though it was not built"; exit 1; }
"$prefix/bin/ompref" --version >/dev/null || { echo "the installed ompref does not run"; exit 1; }
echo "installed ompref and report.py without the converter built"
