#!/usr/bin/env bash
# Installs what ompref needs, only what is missing, and is silent when nothing
# is. Each need is probed by a file or command, not by a package database, so
# that it works on any Linux; where something is missing and apt-get exists it
# installs the Debian packages (as root, or with sudo where not root),
# otherwise it names the missing packages in one line and exits 1.
#   scripts/setup.sh                everything CI needs (scripts/test.sh): the host, offload,
#                                   host-mpi and sanitize builds, tests, bench, plots, fuzzer
#   scripts/setup.sh --gpu          the same, and what GPU builds need here: gcc-12's nvptx offload
#                                   compiler and llvm-19-dev (libLLVM for the clang JIT build;
#                                   scripts/gpu-bundle.sh)
#   scripts/setup.sh --preset NAME  only what configuring and building the CMake preset NAME needs
#                                   (host, host-mpi, sanitize, virtual-device, offload, gpu, gpu-mpi, gcc-offload,
#                                   offload-22, gpu-aot, gpu-aot-safe, gpu-aot-per-file, gpu-aot-lto, race,
#                                   amd-compile, amd-compile-gcc;
#                                   scripts/run-suite.sh uses it). The CUDA
#                                   toolkit (nvcc) of the gpu presets' native twins is not a Debian
#                                   package: it is not checked here (without it run-suite.sh builds
#                                   them off)
# The clang-22 presets (offload-22, gpu-aot; the plain form too, for CI) also need
# .toolchains/llvm-22/: the NVPTX device runtime that Debian's LLVM 22 lacks, built
# from the source package of the installed clang-22, with omp.h and libomp.so
# (scripts/setup-llvm-rt.sh, run after the packages are in).
#   scripts/setup.sh --check        (with any of the above) install nothing: print the one line
#                                   naming what is missing and exit 1, or exit 0
#   scripts/setup.sh --list         (with any of the above) install nothing: print the Debian
#                                   packages it needs, one a line
# Every preset that builds `ompref` to run it (those scripts/run-suite.sh takes) also
# installs python3-matplotlib, so that the `ompref report` its `next:` line names works.
#   scripts/setup.sh --skip         do nothing (also: OMPREF_SKIP_SETUP=1)
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
gpu=0 preset="" check=0 list=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=1 ;;
    --preset) [ $# -ge 2 ] || { echo "setup.sh: --preset needs a name" >&2; exit 2; }
              preset=$2; shift ;;
    --preset=*) preset=${1#--preset=} ;;
    --check) check=1 ;;
    --list) list=1 ;;
    --skip) exit 0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown option '$1' (accepted: --preset NAME, --gpu, --check, --list, --skip, --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "${OMPREF_SKIP_SETUP:-0}" = 1 ] && exit 0

llvm=/usr/lib/llvm-19
multiarch=/usr/lib/x86_64-linux-gnu
# Debian package | how to tell it is there. make: the build program of the presets'
# generator (Unix Makefiles), which cmake only recommends.
base=("cmake|command -v cmake"
      "make|command -v make"
      "libcli11-dev|test -e /usr/include/CLI/CLI.hpp"
      "nlohmann-json3-dev|test -e /usr/include/nlohmann/json.hpp"
      "libfmt-dev|test -e /usr/include/fmt/format.h")
gxx=("g++|command -v g++ && command -v gcc")
clang=("clang-19|command -v clang++-19 && command -v clang-19"
       "clang-tools-19|test -x $llvm/bin/clang-offload-packager && test -x $llvm/bin/clang-linker-wrapper"
       "libomp-19-dev|test -e $llvm/lib/libomp.so && test -e $llvm/lib/libomptarget.so")
libllvm=("llvm-19-dev|test -e $llvm/lib/libLLVM.so.19.1 || test -e $llvm/lib/libLLVM-19.so")
tests=("libgtest-dev|test -e /usr/include/gtest/gtest.h"
       "python3|command -v python3"
       "python3-jsonschema|/usr/bin/python3 -c 'import jsonschema'"
       "python3-yaml|/usr/bin/python3 -c 'import yaml'")
bench=("libbenchmark-dev|test -e /usr/include/benchmark/benchmark.h")
# `ompref report` (the charts): Debian's python3 with matplotlib.
report=("python3-matplotlib|/usr/bin/python3 -c 'import matplotlib' || python3 -c 'import matplotlib'")
mpi=("openmpi-bin|command -v mpirun"
     "libopenmpi-dev|test -e $multiarch/openmpi/include/mpi.h || command -v mpicc")
gcc_nvptx=("g++-12|command -v g++-12 && command -v gcc-12"
           "gcc-12-offload-nvptx|test -e $multiarch/libgomp-plugin-nvptx.so.1")
llvm22=/usr/lib/llvm-22
# clang-22 for ahead-of-time NVPTX: llvm-22 has llvm-offload-binary (the driver's
# packager) and llvm-ar; liboffload-22 is libomptarget 22 with its CUDA plugin;
# ninja-build builds the device runtime (scripts/setup-llvm-rt.sh).
clang22=("clang-22|command -v clang++-22 && command -v clang-22"
         "clang-tools-22|test -x $llvm22/bin/clang-linker-wrapper && test -x $llvm22/bin/clang-nvlink-wrapper"
         "llvm-22|test -x $llvm22/bin/llvm-offload-binary && test -x $llvm22/bin/llvm-ar"
         "liboffload-22|test -e $llvm22/lib/libomptarget.so.22.1"
         "liboffload-22-dev|test -e $llvm22/lib/libomptarget.so"
         "ninja-build|command -v ninja")
# The race job (ThreadSanitizer's runtime; Archer is in libomp-19-dev) and the
# AMD device compile (scripts/amd_compile_check.py): clang-19 with ROCm's device
# libraries and lld, gcc-12 with its amdgcn offload compiler.
# llvm-19: the symbolizer that Debian's ThreadSanitizer runtime calls by name
# (/usr/bin/llvm-symbolizer-19), without which a report names no source line
# and the fixture's check that its race is reported at its file fails.
race=("libclang-rt-19-dev|test -e $llvm/lib/clang/19/lib/linux/libclang_rt.tsan-x86_64.a"
      "libomp-19-dev|test -e $llvm/lib/libarcher.so"
      "llvm-19|test -x /usr/bin/llvm-symbolizer-19")
amd_clang=("rocm-device-libs|test -e $multiarch/amdgcn/bitcode/ocml.bc"
           "lld-19|test -x $llvm/bin/ld.lld")
amd_gcc=("g++-12|command -v g++-12 && command -v gcc-12"
         "gcc-12-offload-amdgcn|test -x /usr/lib/gcc/x86_64-linux-gnu/12/accel/amdgcn-amdhsa/mkoffload")

needs=("${base[@]}")
llvm_rt=0   # 1: the clang-22 presets' .toolchains/llvm-22 (scripts/setup-llvm-rt.sh)
case "$preset" in
  "")  # everything scripts/test.sh (CI) builds, plus plots and the fuzzer runtime
    llvm_rt=1
    needs+=("${gxx[@]}" "${clang[@]}" "${clang22[@]}" "${tests[@]}" "${bench[@]}" "${mpi[@]}"
            "libgmock-dev|test -e /usr/include/gmock/gmock.h" "${report[@]}"
            "libclang-rt-19-dev|test -e $llvm/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a"
            "${race[@]}" "${amd_clang[@]}" "${amd_gcc[@]}"
            "ccache|command -v ccache") ;;
  host)        needs+=("${gxx[@]}" "${tests[@]}" "${bench[@]}" "${report[@]}") ;;
  host-mpi)    needs+=("${gxx[@]}" "${tests[@]}" "${bench[@]}" "${mpi[@]}" "${report[@]}") ;;
  sanitize)    needs+=("${gxx[@]}" "${tests[@]}" "${report[@]}") ;;
  virtual-device) needs+=("${clang[@]}" "${gxx[@]}" "${tests[@]}") ;;  # g++: docs/learn.md's first example
  offload)     needs+=("${clang[@]}" "${tests[@]}" "${bench[@]}" "${report[@]}") ;;
  gpu)         needs+=("${clang[@]}" "${libllvm[@]}" "${bench[@]}" "${report[@]}") ;;
  gpu-mpi)     needs+=("${clang[@]}" "${libllvm[@]}" "${bench[@]}" "${mpi[@]}" "${report[@]}") ;;
  gcc-offload) needs+=("${gcc_nvptx[@]}" "${bench[@]}" "${report[@]}") ;;
  offload-22)  llvm_rt=1; needs+=("${clang22[@]}" "${tests[@]}" "${bench[@]}" "${report[@]}") ;;
  gpu-aot|gpu-aot-safe|gpu-aot-per-file|gpu-aot-lto) llvm_rt=1; needs+=("${clang22[@]}" "${bench[@]}" "${report[@]}") ;;
  race)        needs+=("${clang[@]}" "${race[@]}") ;;
  amd-compile) needs+=("${clang[@]}" "${amd_clang[@]}" "python3|command -v python3") ;;
  amd-compile-gcc) needs+=("${amd_gcc[@]}" "python3|command -v python3") ;;
  *) echo "setup.sh: unknown preset '$preset' (accepted: host, host-mpi, sanitize, virtual-device, offload, gpu, gpu-mpi, gcc-offload, offload-22, gpu-aot, gpu-aot-safe, gpu-aot-per-file, gpu-aot-lto, race, amd-compile, amd-compile-gcc)" >&2
     exit 2 ;;
esac
if [ "$gpu" = 1 ]; then
  needs+=("${gcc_nvptx[@]}" "${libllvm[@]}")
fi

if [ "$list" = 1 ]; then
  for need in "${needs[@]}"; do echo "${need%%|*}"; done | awk '!seen[$0]++'
  exit 0
fi
missing=()
for need in "${needs[@]}"; do
  pkg=${need%%|*}
  probe=${need#*|}
  case " ${missing[*]} " in *" $pkg "*) continue ;; esac
  bash -c "$probe" >/dev/null 2>&1 || missing+=("$pkg")
done
# After the packages, the clang-22 prefix (it needs clang-22 to build).
llvm_rt() {
  [ "$llvm_rt" = 1 ] || return 0
  if [ "$check" = 1 ]; then "$(dirname "$0")/setup-llvm-rt.sh" --check; else "$(dirname "$0")/setup-llvm-rt.sh"; fi
}
if [ ${#missing[@]} -eq 0 ]; then
  llvm_rt
  exit 0
fi

if [ "$check" = 1 ]; then
  echo "setup.sh: missing ${missing[*]} (Debian package names)" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && sudo="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
  why="no apt-get here"
  command -v apt-get >/dev/null 2>&1 && why="not root and no sudo"
  echo "setup.sh: missing ${missing[*]} (Debian package names; $why: install them or their equivalents, or skip with --skip / OMPREF_SKIP_SETUP=1)" >&2
  exit 1
fi
echo "setup.sh: installing ${missing[*]}" >&2
if ! { $sudo apt-get update -qq &&
       $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "setup.sh: apt-get could not install ${missing[*]} (Debian package names)" >&2
  exit 1
fi
llvm_rt
