#!/usr/bin/env bash
# Which of the suite's kernels clang 22 compiles into a read of a stack slot
# that nothing writes (the fingerprint of README.md's defect): each offload
# source's device code is optimised as the `gpu-aot` build optimises it (-O3,
# sm_90, the NVPTX device runtime and libdevice linked in) and written as LLVM
# IR, which unwritten_slots.py reads.
#   scan-suite.sh [SOURCE...]   (default: src/omp_target/*.cpp, and src/mpi/*.cpp
#                                where mpicxx names MPI's headers; paths from the
#                                checkout root)
# Environment: CLANGXX (default clang++-22), LLVM22_PREFIX (default
# .toolchains/llvm-22 of the checkout: its device runtime), CUDA_PATH (libdevice),
# EXTRA (more compiler flags, e.g. "-Xarch_device -fno-strict-aliasing").
# Prints each such slot (function, slot) and a summary line; exit 0, 2 when a
# tool or the runtime is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cxx=${CLANGXX:-clang++-22}
prefix=${LLVM22_PREFIX:-$root/.toolchains/llvm-22}
cuda=${CUDA_PATH:-/usr/local/cuda}
rt=$prefix/lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc
libdevice=$cuda/nvvm/libdevice/libdevice.10.bc
command -v "$cxx" > /dev/null || { echo "scan-suite.sh: no $cxx" >&2; exit 2; }
[ -f "$rt" ] || { echo "scan-suite.sh: no device runtime $rt (set LLVM22_PREFIX)" >&2; exit 2; }
[ -f "$libdevice" ] || { echo "scan-suite.sh: no $libdevice (set CUDA_PATH)" >&2; exit 2; }
cd "$root"
sources=("$@")
mpi_inc=$(mpicxx --showme:incdirs 2> /dev/null || true)
if [ ${#sources[@]} -eq 0 ]; then
  sources=(src/omp_target/*.cpp)
  [ -n "$mpi_inc" ] && sources+=(src/mpi/*.cpp)
fi
mpi_flags=()
for d in $mpi_inc; do mpi_flags+=(-isystem "$d"); done
# The device compile of the build (cmake/OffloadFlags.cmake, the gpu-aot preset)
# with its -c's linking of the device libraries made explicit: -S stops before
# the driver would add them. (The host half of a device-only compile links them
# too, with a warning each: -Wno-linker-warnings.)
# shellcheck disable=SC2206
flags=(-std=c++17 -O3 -DNDEBUG -I"$root/src" -isystem "$prefix/include" "${mpi_flags[@]}" -DOMPREF_OFFLOAD_BUILD=1
       -DOMPREF_NATIVE_BUILD=1 '-DOMPREF_OFFLOAD_DESC="scan"' '-DOMPREF_VERSION="scan"' -DOMPI_SKIP_MPICXX=1
       -fopenmp --offload-arch=sm_90 --cuda-path="$cuda" -Wno-unknown-cuda-version -Wno-linker-warnings
       -Xclang -mlink-builtin-bitcode -Xclang "$libdevice" -Xclang -mlink-builtin-bitcode -Xclang "$rt"
       --offload-device-only -S -emit-llvm ${EXTRA:-})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
found=0 files=0
for src in "${sources[@]}"; do
  if ! "$cxx" "${flags[@]}" "$src" -o "$tmp/device.ll" 2> "$tmp/err"; then
    echo "scan-suite.sh: $src does not compile:"; head -3 "$tmp/err"; continue
  fi
  files=$((files + 1))
  while read -r line; do
    echo "$src: $line"
    found=$((found + 1))
  done < <(python3 "$here/unwritten_slots.py" "$tmp/device.ll" || true)
done
echo "$files files compiled; $found stack slots read but never written"
