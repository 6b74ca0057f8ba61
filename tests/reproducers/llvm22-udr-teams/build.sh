#!/usr/bin/env bash
# Builds the variants of udr_teams.cpp (see its header) for sm_90:
#   build/clang22/<variant>   clang++-22, ahead of time, device runtime from LLVM22_PREFIX
#   build/clang19/<variant>   clang++-19, device code as LLVM IR compiled at first launch
#                             (-fopenmp-target-jit, as the suite's nvptx-jit preset)
#   build/ptx/<compiler>-<variant>.s   the device code of each TU, before the device
#                             runtime is linked (the reduction helpers clang emits)
#   build/ptx/clang22-<variant>.final.s  (with SAVE_TEMPS=1) the linked device image
# Usage: build.sh [clang22|clang19|ptx]...   (default: all three)
# Environment: LLVM22_PREFIX (default .toolchains/llvm-22 at the checkout root, written by scripts/setup.sh --preset offload-22):
#   lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc and lib/libomp.so of LLVM 22.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
src=udr_teams.cpp
arch=sm_90
cuda=${CUDA_PATH:-/usr/local/cuda}
prefix22=${LLVM22_PREFIX:-$(cd "$here/../../.." && pwd)/.toolchains/llvm-22}
jit_init=$(cd "$here/../../.." && pwd)/cmake/nvptx_jit_init.c
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(clang22 clang19 ptx)

# name : defines. The first is gpp target_tuned's form.
variants=(
  "udr_lb_c3_n3_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=1"
  "sc_lb_c3_n3_heavy:-DREPRO_SCALARS=1 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=1"
  "udr_nolb_c3_n3_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=0 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=1"
  "udr_lb_c2_n3_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=2 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=1"
  "udr_lb_c3_n1_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=1 -DREPRO_HEAVY=1"
  "udr_lb_c3_n2_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=2 -DREPRO_HEAVY=1"
  "udr_lb_c3_n4_heavy:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=4 -DREPRO_HEAVY=1"
  "udr_lb_c3_n3_light:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=0"
  "udr_nolb_c3_n3_light:-DREPRO_SCALARS=0 -DREPRO_LAUNCH_BOUNDS=0 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=0"
  "sc_lb_c3_n3_light:-DREPRO_SCALARS=1 -DREPRO_LAUNCH_BOUNDS=512 -DREPRO_COLLAPSE=3 -DREPRO_NCOMPLEX=3 -DREPRO_HEAVY=0"
)

common=(-std=c++17 -O3 -gline-tables-only -fopenmp --offload-arch=$arch --cuda-path=$cuda -Wall -Wno-unknown-cuda-version)

build22() {
  local bc=$prefix22/lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc
  [ -f "$bc" ] || { echo "build.sh: no LLVM 22 device runtime at $bc (set LLVM22_PREFIX)" >&2; return 1; }
  [ -f "$prefix22/lib/libomp.so" ] || { echo "build.sh: no $prefix22/lib/libomp.so" >&2; return 1; }
  # Debian's liboffload-22 ships libomptarget.so.22.1 without the unversioned
  # link the driver's -lomptarget needs: one in a private folder.
  mkdir -p build/lib22 build/clang22
  # The runtime bitcode linked into each TU at compile time, libompdevice.a at
  # the device link, libomptarget and libomp at the host link.
  rt22=(--libomptarget-nvptx-bc-path="$bc" -Xoffload-linker -L"$prefix22/lib/nvptx64-nvidia-cuda"
        -L"$here/build/lib22" -L"$prefix22/lib")
  ln -sf /usr/lib/llvm-22/lib/libomptarget.so.22.1 build/lib22/libomptarget.so
  for v in "${variants[@]}"; do
    local name=${v%%:*} defs=${v#*:}
    # shellcheck disable=SC2086
    nice -n 10 clang++-22 "${common[@]}" $defs "${rt22[@]}" "$src" -o "build/clang22/$name"
    echo "built build/clang22/$name"
  done
  # The first variant once more with one copy of the device runtime: compiled
  # with -nogpulib (no -mlink-builtin-bitcode of libomptarget-nvptx.bc into the
  # TU) and device LTO, the runtime taken only from libompdevice.a at the device
  # link. (Without -foffload-lto ptxas compiles the TU alone and refuses it: the
  # 512-thread kernel, held to 128 registers, calls the outlined loop body,
  # which then keeps its 246.)
  local v=${variants[0]}
  # shellcheck disable=SC2086
  nice -n 10 clang++-22 "${common[@]}" ${v#*:} -nogpulib -foffload-lto -c "$src" -o build/clang22/one_rt.o
  nice -n 10 clang++-22 "${common[@]}" -foffload-lto -Xoffload-linker -L"$prefix22/lib/nvptx64-nvidia-cuda" \
    -L"$here/build/lib22" -L"$prefix22/lib" build/clang22/one_rt.o -o "build/clang22/${v%%:*}_onert"
  rm -f build/clang22/one_rt.o
  echo "built build/clang22/${v%%:*}_onert"
  if [ "${SAVE_TEMPS:-0}" = 1 ]; then
    mkdir -p build/ptx build/tmp22
    local v=${variants[0]}
    # shellcheck disable=SC2086
    (cd build/tmp22 && nice -n 10 clang++-22 "${common[@]}" ${v#*:} "${rt22[@]}" -save-temps "$here/$src" -o "${v%%:*}")
    ls build/tmp22
  fi
}

build19() {
  mkdir -p build/clang19
  local init=build/clang19/nvptx_jit_init.o
  clang-19 -O2 -c "$jit_init" -o "$init"
  for v in "${variants[@]}"; do
    local name=${v%%:*} defs=${v#*:}
    # shellcheck disable=SC2086
    nice -n 10 clang++-19 "${common[@]}" $defs -fopenmp-target-jit "$src" "$init" \
      -L/usr/lib/llvm-19/lib -lLLVM-19 -o "build/clang19/$name"
    echo "built build/clang19/$name"
  done
}

ptx() {
  mkdir -p build/ptx
  for c in 22 19; do
    for v in "${variants[@]}"; do
      local name=${v%%:*} defs=${v#*:}
      # shellcheck disable=SC2086
      nice -n 10 clang++-$c "${common[@]}" $defs --offload-device-only -nogpulib -S "$src" \
        -o "build/ptx/clang$c-$name.s"
      nice -n 10 clang++-$c "${common[@]}" $defs --offload-device-only -nogpulib -S -emit-llvm "$src" \
        -o "build/ptx/clang$c-$name.ll"
    done
  done
  echo "device code in build/ptx/"
}

for w in "${what[@]}"; do
  case $w in
    clang22) build22 ;;
    clang19) build19 ;;
    ptx) ptx ;;
    *) echo "build.sh: unknown target '$w' (clang22, clang19, ptx)" >&2; exit 2 ;;
  esac
done
