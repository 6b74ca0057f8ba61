#!/usr/bin/env bash
# The clang-22 ahead-of-time NVPTX build's prefix, .toolchains/llvm-22/ at the
# checkout root (git ignores it), for what Debian 12's LLVM 22 lacks:
#   lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc, libompdevice.a
#       the OpenMP device runtime for NVPTX, built here with clang-22 from the
#       openmp/device folder of the source package of the installed clang-22,
#       fetched with apt from Debian's archive (a private apt configuration:
#       the system's lists are left alone) and checked against the SHA-256
#       that the source index of the installed version names
#   include/omp.h (and the other OpenMP headers), lib/libomp.so
#       from libomp-22-dev, unpacked here rather than installed (it conflicts
#       with libomp-19-dev and would remove clang-19's device runtime)
# Silent when the prefix is there for the installed clang-22. scripts/setup.sh
# calls it (after installing clang-22, llvm-22, liboffload-22 and ninja-build)
# for the presets that build with clang-22.
#   scripts/setup-llvm-rt.sh           build the prefix where it is missing or stale
#   scripts/setup-llvm-rt.sh --check   build nothing: exit 0 if it is there, else one line and exit 1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
major=22
llvm=/usr/lib/llvm-$major
triple=nvptx64-nvidia-cuda
tc=$root/.toolchains
prefix=$tc/llvm-$major
log=$tc/llvm-$major-setup.log
check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "setup-llvm-rt.sh: unknown option '$1' (accepted: --check)" >&2; exit 2 ;;
esac

# The prefix belongs to one clang-22: its version line is the stamp.
want_stamp=$( { "clang++-$major" --version 2>/dev/null || true; } | head -n 1)
have_prefix() {
  [ -n "$want_stamp" ] && [ "$(cat "$prefix/built-for" 2>/dev/null)" = "$want_stamp" ] &&
    [ -s "$prefix/lib/$triple/libomptarget-nvptx.bc" ] && [ -s "$prefix/lib/$triple/libompdevice.a" ] &&
    [ -s "$prefix/include/omp.h" ] && [ -e "$prefix/lib/libomp.so" ]
}
have_prefix && exit 0
if [ "$check" = 1 ]; then
  echo "setup-llvm-rt.sh: missing .toolchains/llvm-$major (clang-$major's NVPTX device runtime, omp.h, libomp.so: scripts/setup.sh --preset gpu-aot builds it)" >&2
  exit 1
fi
fail() { echo "setup-llvm-rt.sh: $* (details: ${log#"$root"/})" >&2; exit 1; }
[ -n "$want_stamp" ] || fail "no clang++-$major (scripts/setup.sh --preset gpu-aot installs it)"
for tool in apt-get apt-cache dpkg-query dpkg-deb cmake ninja "$llvm/bin/llvm-ar" "$llvm/bin/llvm-offload-binary"; do
  command -v "$tool" >/dev/null 2>&1 || fail "needs $tool"
done

mkdir -p "$tc"
: > "$log"
work=$(mktemp -d "$tc/llvm-$major-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
src_pkg=$(dpkg-query -W -f='${source:Package}' "clang-$major")
src_ver=$(dpkg-query -W -f='${source:Version}' "clang-$major")
bin_ver=$(dpkg-query -W -f='${Version}' "clang-$major")
. /etc/os-release
codename=${VERSION_CODENAME:-bookworm}

# A private apt configuration with Debian's source indexes: the release's own
# (where the installed version comes from) and trixie's (whose pool holds the
# same upstream tarball where the release's pool lacks it).
aptdir=$work/apt
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
opt=""
[ -e "$keyring" ] && opt="[signed-by=$keyring] "
{
  echo "deb-src ${opt}http://deb.debian.org/debian-security $codename-security main"
  echo "deb-src ${opt}http://deb.debian.org/debian $codename main"
  if [ "$codename" != trixie ]; then
    echo "deb-src ${opt}http://deb.debian.org/debian-security trixie-security main"
    echo "deb-src ${opt}http://deb.debian.org/debian trixie main"
  fi
} > "$aptdir/sources.list"
apt=(-o "Dir::Etc::sourcelist=$aptdir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$aptdir/lists"
     -o "Dir::Cache=$aptdir/cache" -o Debug::NoLocking=1)
sandbox=()
[ "$(id -u)" -eq 0 ] && sandbox=(-o APT::Sandbox::User=root)
apt-get "${apt[@]}" "${sandbox[@]}" -q update >> "$log" 2>&1 || fail "apt-get update of Debian's source indexes failed"
apt-cache "${apt[@]}" showsrc "$src_pkg" > "$work/showsrc" 2>> "$log" || true

# The upstream tarball the installed version's source record names, and every
# version whose record names the same file with the same SHA-256.
read -r want_sha orig < <(awk -v v="$src_ver" 'BEGIN { RS = ""; FS = "\n" }
  { mine = 0; for (i = 1; i <= NF; i++) if ($i == "Version: " v) mine = 1
    if (!mine) next
    for (i = 1; i <= NF; i++)
      if ($i ~ /^ [0-9a-f]+ [0-9]+ [^ ]+\.orig\.tar\.(xz|gz|bz2)$/) { split($i, f, " "); if (length(f[1]) == 64) { print f[1], f[3]; exit } } }' \
  "$work/showsrc") || true
[ -n "${want_sha:-}" ] || fail "the source of clang-$major $src_ver ($src_pkg) is in none of Debian's source indexes"
versions=$(awk -v s=" $want_sha " -v o="$orig" -v v="$src_ver" 'BEGIN { RS = ""; FS = "\n"; print v }
  { ver = ""; has = 0
    for (i = 1; i <= NF; i++) { if ($i ~ /^Version: /) ver = substr($i, 10); if (index($i, s) && substr($i, length($i) - length(o) + 1) == o) has = 1 }
    if (has && ver != v) print ver }' "$work/showsrc" | awk '!seen[$0]++')
mkdir "$work/dl"
got=0
for v in $versions; do
  echo "== apt-get source --download-only --tar-only $src_pkg=$v" >> "$log"
  if (cd "$work/dl" && apt-get "${apt[@]}" "${sandbox[@]}" -q source --download-only --tar-only "$src_pkg=$v") >> "$log" 2>&1 &&
     [ -f "$work/dl/$orig" ]; then
    got=1
    break
  fi
done
[ "$got" = 1 ] || fail "the source of clang-$major $src_ver ($orig) could not be downloaded from Debian's archive"
echo "$want_sha  $work/dl/$orig" | sha256sum -c --quiet - >> "$log" 2>&1 ||
  fail "$orig does not have the SHA-256 that the source index of $src_pkg $src_ver names"

# Only the folders the device runtime's build reads.
top=$( { tar -tf "$work/dl/$orig" 2>/dev/null || true; } | head -n 1 | cut -d/ -f1)
mkdir "$work/src"
tar -xf "$work/dl/$orig" -C "$work/src" --strip-components=1 "$top/cmake" "$top/llvm/cmake" "$top/runtimes" \
    "$top/openmp" "$top/offload/include" "$top/libc/shared" >> "$log" 2>&1 || fail "could not unpack $orig"
rm -rf "$work/dl"

# The device runtime: LLVM's runtimes build of openmp for the NVPTX target
# alone, with clang-22 (openmp/device, the bitcode library and its archive).
stage=$work/prefix
cmake -S "$work/src/runtimes" -B "$work/build" -G Ninja -Wno-dev \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$stage" \
  -DCMAKE_C_COMPILER="$llvm/bin/clang" -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
  -DCMAKE_AR="$llvm/bin/llvm-ar" -DCMAKE_RANLIB="$llvm/bin/llvm-ranlib" \
  -DCMAKE_C_COMPILER_TARGET=$triple -DCMAKE_CXX_COMPILER_TARGET=$triple \
  -DCMAKE_C_COMPILER_WORKS=ON -DCMAKE_CXX_COMPILER_WORKS=ON \
  -DLLVM_DEFAULT_TARGET_TRIPLE=$triple -DLLVM_ENABLE_RUNTIMES=openmp \
  -DLLVM_ENABLE_PER_TARGET_RUNTIME_DIR=ON -DLLVM_INCLUDE_TESTS=OFF >> "$log" 2>&1 ||
  fail "configuring the NVPTX device runtime failed"
nice -n 10 cmake --build "$work/build" --target install -j "$(nproc)" >> "$log" 2>&1 ||
  fail "building the NVPTX device runtime failed"

# omp.h and libomp.so from libomp-22-dev of the installed version.
echo "== apt-get download libomp-$major-dev=$bin_ver" >> "$log"
(cd "$work" && apt-get "${sandbox[@]}" -q download "libomp-$major-dev=$bin_ver") >> "$log" 2>&1 ||
  fail "apt-get download libomp-$major-dev=$bin_ver failed"
dpkg-deb -x "$work"/libomp-"$major"-dev_*.deb "$work/deb"
inc=$work/deb$llvm/lib/clang/$major/include
[ -s "$inc/omp.h" ] || fail "libomp-$major-dev has no omp.h"
mkdir -p "$stage/include"
cp "$inc"/*.h "$stage/include/"
# Its libomp.so.5 links to the system's libomp.so.5 (Debian 12: libomp5-19's),
# or is the library itself.
lib5=$work/deb$llvm/lib/libomp.so.5
if [ -L "$lib5" ]; then
  target=$(readlink "$lib5")
  case "$target" in /*) ;; *) target=$(realpath -m -s "$llvm/lib/$target") ;; esac
  [ -e "$target" ] || fail "libomp-$major-dev's libomp.so.5 names $target, which is not installed"
  ln -sfn "$target" "$stage/lib/libomp.so"
elif [ -f "$lib5" ]; then
  cp "$lib5" "$stage/lib/libomp.so.5"
  ln -sfn libomp.so.5 "$stage/lib/libomp.so"
else
  fail "libomp-$major-dev has no libomp.so.5"
fi
{
  echo "$src_pkg $src_ver, $orig sha256 $want_sha"
} > "$stage/source"
echo "$want_stamp" > "$stage/built-for"
rm -rf "$prefix"
mv "$stage" "$prefix"
rm -f "$log"
