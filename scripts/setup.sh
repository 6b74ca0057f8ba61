#!/usr/bin/env bash
# Installs what ompref needs, only what is missing, and is silent when nothing
# is. Each need is probed by a file or command, not by a package database, so
# that it works on any Linux; where something is missing and apt-get exists it
# installs the Debian packages (as root, or with sudo), otherwise it names the
# missing packages in one line and fails.
#   scripts/setup.sh           host + offload builds, tests, bench, plots, MPI ranks (OpenMPI)
#   scripts/setup.sh --gpu     also what GPU builds need here: gcc-12's nvptx offload
#                              compiler and llvm-19-dev (libLLVM for the clang JIT build)
#   scripts/setup.sh --skip    do nothing (also: OMPREF_SKIP_SETUP=1)
set -euo pipefail
gpu=0
for arg in "$@"; do
  case "$arg" in
    --gpu) gpu=1 ;;
    --skip) exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (accepted: --gpu, --skip)" >&2; exit 2 ;;
  esac
done
[ "${OMPREF_SKIP_SETUP:-0}" = 1 ] && exit 0

llvm=/usr/lib/llvm-19
# Debian package | how to tell it is there
needs=(
  "cmake|command -v cmake"
  "g++|command -v g++"
  "clang-19|command -v clang++-19"
  "clang-tools-19|test -x $llvm/bin/clang-offload-packager"
  "libomp-19-dev|test -e $llvm/lib/libomp.so"
  "libgtest-dev|test -e /usr/include/gtest/gtest.h"
  "libgmock-dev|test -e /usr/include/gmock/gmock.h"
  "libbenchmark-dev|test -e /usr/include/benchmark/benchmark.h"
  "libcli11-dev|test -e /usr/include/CLI/CLI.hpp"
  "nlohmann-json3-dev|test -e /usr/include/nlohmann/json.hpp"
  "libfmt-dev|test -e /usr/include/fmt/format.h"
  "python3-matplotlib|/usr/bin/python3 -c 'import matplotlib' || python3 -c 'import matplotlib'"
  "libclang-rt-19-dev|test -e $llvm/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a"
  "openmpi-bin|command -v mpirun"
  "libopenmpi-dev|test -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h || command -v mpicc"
)
if [ "$gpu" = 1 ]; then
  needs+=("gcc-12-offload-nvptx|test -e /usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1"
          "llvm-19-dev|test -e $llvm/lib/cmake/llvm/LLVMConfig.cmake")
fi
missing=()
for need in "${needs[@]}"; do
  pkg=${need%%|*}
  probe=${need#*|}
  bash -c "$probe" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup.sh: missing ${missing[*]} (Debian package names; install their equivalents, or run with --skip)" >&2
  exit 1
fi
echo "setup.sh: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
