#!/usr/bin/env bash
# Builds clamp_rows.cpp for an NVIDIA GPU (sm_90) under the settings README.md
# compares, into build/ (git ignores it) for run-on-gpu.sh; the GPU machine
# needs no compiler: carry build/ there with the runtimes of scripts/gpu-bundle.sh.
#   build/clang22-O2, -O3, -O1    clang++-22 ahead of time (device runtime of LLVM22_PREFIX)
#   build/clang22-O2-lto         -O2 with device LTO (-foffload-lto: the suite's default clang mode)
#   build/clang22-O2-no-strict-aliasing   -O2 -Xarch_device -fno-strict-aliasing
#   build/clang22-O2-no-openmp-opt        -O2 -mllvm -openmp-opt-disable
#   build/clang22-O2-ternary     -O2 with the clamp computed by value (the workaround in source)
#   build/clang19-O2-jit         clang++-19, device code compiled at first launch (where installed)
#   build/commands.txt           the exact commands
# Environment: LLVM22_PREFIX (default .toolchains/llvm-22 of the checkout,
# scripts/setup.sh --preset gpu-aot writes it), CUDA_PATH (default /usr/local/cuda).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
prefix=${LLVM22_PREFIX:-$root/.toolchains/llvm-22}
cuda=${CUDA_PATH:-/usr/local/cuda}
command -v clang++-22 > /dev/null || { echo "build-for-gpu.sh: no clang++-22" >&2; exit 2; }
[ -f "$prefix/lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc" ] && [ -f "$prefix/lib/libomp.so" ] ||
  { echo "build-for-gpu.sh: no LLVM 22 device runtime in $prefix (set LLVM22_PREFIX)" >&2; exit 2; }
cd "$here"
mkdir -p build/lib22
: > build/commands.txt
# Debian's liboffload-22 has libomptarget.so.22.1 without the unversioned link
# that the driver's -lomptarget needs: one in a private folder.
ln -sf /usr/lib/llvm-22/lib/libomptarget.so.22.1 build/lib22/libomptarget.so
aot=(-fopenmp --offload-arch=sm_90 --cuda-path="$cuda" -Wno-unknown-cuda-version
     --libomptarget-nvptx-bc-path="$prefix/lib/nvptx64-nvidia-cuda"
     -Xoffload-linker -L"$prefix/lib/nvptx64-nvidia-cuda" -Lbuild/lib22 -L"$prefix/lib")
# The source with the clamp computed by value (no reference to the captured n).
sed 's/std::min(n, c \* chunk + chunk)/(c * chunk + chunk < n ? c * chunk + chunk : n)/' clamp_rows.cpp > build/clamp_rows_ternary.cpp
grep -q '? c \* chunk + chunk : n' build/clamp_rows_ternary.cpp || { echo "build-for-gpu.sh: the clamp's line changed" >&2; exit 1; }
build() {  # name compiler source flags...
  local name=$1 cxx=$2 src=$3
  shift 3
  echo "$cxx $* $src -o build/$name" >> build/commands.txt
  "$cxx" "$@" "$src" -o "build/$name"
  echo "built build/$name"
}
build clang22-O2 clang++-22 clamp_rows.cpp -O2 "${aot[@]}"
build clang22-O3 clang++-22 clamp_rows.cpp -O3 "${aot[@]}"
build clang22-O1 clang++-22 clamp_rows.cpp -O1 "${aot[@]}"
build clang22-O2-lto clang++-22 clamp_rows.cpp -O2 -foffload-lto "${aot[@]}"
build clang22-O2-no-strict-aliasing clang++-22 clamp_rows.cpp -O2 -Xarch_device -fno-strict-aliasing "${aot[@]}"
build clang22-O2-no-openmp-opt clang++-22 clamp_rows.cpp -O2 -mllvm -openmp-opt-disable "${aot[@]}"
build clang22-O2-ternary clang++-22 build/clamp_rows_ternary.cpp -O2 "${aot[@]}"
if command -v clang++-19 > /dev/null && [ -f /usr/lib/llvm-19/lib/libLLVM-19.so ]; then
  clang-19 -O2 -c "$root/cmake/nvptx_jit_init.c" -o build/nvptx_jit_init.o
  build clang19-O2-jit clang++-19 clamp_rows.cpp -O2 -fopenmp --offload-arch=sm_90 --cuda-path="$cuda" \
    -Wno-unknown-cuda-version -fopenmp-target-jit build/nvptx_jit_init.o -L/usr/lib/llvm-19/lib -lLLVM-19
fi
