#!/usr/bin/env bash
# For a GPU machine that has the NVIDIA driver but no clang (build here, run
# there): packs the runtimes a `gpu` or `gcc-offload` build of ompref needs
# into OUT (default .gpu/ at the checkout root, which git ignores):
#   llvm19-rt.tar.xz   libomptarget and libomp 19, libLLVM 19 and libz3 (the
#                      JIT compiles device code at run time), and
#                      libnvptx_jit_init.so (registers LLVM's NVPTX back end,
#                      which Debian's libomptarget 19 does not; the `gpu` build
#                      links the same code into ompref, so it is only needed
#                      for other programs)
#   llvm22-rt.tar.xz   libomptarget 22 (its CUDA plugin built in), libLLVM 22
#                      and libz3, and the libomp.so.5 that Debian pairs with
#                      them (libomp5-19's): the ahead-of-time `gpu-aot` build
#   gomp-nvptx.tar.xz  gcc-12's libgomp and its nvptx plugin
#   env.sh             source it there: unpacks once, defines with_clang19_rt,
#                      with_clang22_rt and with_gcc12_rt
# Carry OUT and the build folder to the GPU machine. On a machine with a GPU
# AND the compilers, none of this is needed: build and run there.
#   scripts/gpu-bundle.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.gpu}
scripts/setup.sh --gpu
llvm=/usr/lib/llvm-19/lib
multiarch=/usr/lib/x86_64-linux-gnu
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -f "$out/llvm19-rt.tar.xz" ]; then
  mkdir "$work/rt"
  cp -L "$llvm/libomptarget.so.19.1" "$llvm/libomp.so.5" "$multiarch/libLLVM.so.19.1" "$work/rt/"
  # libLLVM's dependency that Ubuntu 24.04 lacks (the others it has).
  for lib in $(ldd "$multiarch/libLLVM.so.19.1" | awk '/libz3/ {print $3}'); do
    cp -L "$lib" "$work/rt/"
  done
  gcc -O2 -shared -fPIC cmake/nvptx_jit_init.c -o "$work/rt/libnvptx_jit_init.so" "$multiarch/libLLVM.so.19.1"
  tar -C "$work" -cf - rt | xz -T0 -6 > "$out/llvm19-rt.tar.xz"
fi
if [ ! -f "$out/llvm22-rt.tar.xz" ]; then
  llvm22=/usr/lib/llvm-22/lib
  mkdir "$work/rt22"
  cp -L "$llvm22/libomptarget.so.22.1" "$multiarch/libLLVM.so.22.1" "$work/rt22/"
  # The libomp that the gpu-aot build links (.toolchains/llvm-22, from libomp-22-dev).
  cp -L .toolchains/llvm-22/lib/libomp.so "$work/rt22/libomp.so.5"
  # libLLVM's dependency that Ubuntu 24.04 lacks (the others it has: the same as LLVM 19's).
  for lib in $(ldd "$multiarch/libLLVM.so.22.1" | awk '/libz3/ {print $3}'); do
    cp -L "$lib" "$work/rt22/"
  done
  tar -C "$work" -cf - rt22 | xz -T0 -6 > "$out/llvm22-rt.tar.xz"
fi
if [ ! -f "$out/gomp-nvptx.tar.xz" ]; then
  mkdir "$work/gomp"
  cp -L "$multiarch/libgomp.so.1" "$multiarch/libgomp-plugin-nvptx.so.1" "$work/gomp/"
  tar -C "$work" -cJf "$out/gomp-nvptx.tar.xz" gomp
fi
cp scripts/gpu-env.sh "$out/env.sh"
du -sh "$out"
