#!/usr/bin/env bash
# The test command (README; .ci/run calls it): installs what is missing, builds
# the `host` (g++) and `offload` (clang-19, full NVPTX device compile)
# configurations, runs CTest on both and a tiny stream run on both, then the
# `offload-22` build (clang-22, ahead-of-time NVPTX with the device runtime of
# .toolchains/llvm-22) and its `ompref check` on the host fallback, then the
# `host-mpi` build and its MPI tests, then the quick tests under
# AddressSanitizer and UndefinedBehaviorSanitizer. Fails on
# any failure. Works on a machine without a GPU: target regions then run on
# the host and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
# The compiler cache (scripts/setup.sh installs it for this script): the
# host-mpi build compiles most of the host build's sources with the same
# flags, and CCACHE_BASEDIR makes their commands alike across build folders.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD
fi
for preset in host offload; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset: tests"
  # The offload build leaves out the `physics` tests (the host reference's
  # long runs, the same source as the host build's; tests/CMakeLists.txt).
  skip=long; [ "$preset" = offload ] && skip="long|physics"
  ctest --preset "$preset" -j "$jobs" -LE "$skip"
  echo "== $preset: ompref run stream --size tiny"
  "build-$preset/ompref" run stream --size tiny
done
# clang-22 ahead of time (docs/toolchains.md): the full device compile and
# link of the program, then every variant once at its smallest size on the host
# fallback. Its CTest suite is the offload build's (another 10 minutes on CI's 2
# cores), so only the program is built.
echo "== offload-22: configure, build, ompref check (host fallback)"
cmake --preset offload-22 >/dev/null
cmake --build --preset offload-22 -j "$jobs" --target ompref
build-offload-22/ompref check --save none
# MPI ranks (docs/mpi.md): the host build with OpenMPI, its MPI tests
# (mpirun -np 2 and -np 3 --oversubscribe on CI's 2 cores).
echo "== host-mpi: configure, build, MPI tests"
cmake --preset host-mpi >/dev/null
cmake --build --preset host-mpi -j "$jobs" --target ompref
ctest --preset host-mpi -L mpi
# AddressSanitizer and UndefinedBehaviorSanitizer on the host build: the
# quick tests (the `sanitize` test preset selects the `quick` label; any report
# aborts the test), including a minute of the command-line fuzzer.
echo "== sanitize: configure and build"
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j "$jobs" --target ompref ompref_tests meshb_replay ompref_launch_cost
echo "== sanitize: quick tests"
ctest --preset sanitize -j "$jobs"
# Races (the `race` preset, docs/toolchains.md): `ompref check` over every
# host and target variant under ThreadSanitizer with LLVM's Archer on 2 and 4
# threads, any report fails; and the fixture whose race must be reported.
echo "== race: configure, build, race tests"
cmake --preset race >/dev/null
cmake --build --preset race -j "$jobs" --target race_programs
ctest --preset race
# AMD device code, compiled and device-linked per kernel file, never run:
# clang-19 for gfx90a with Debian's ROCm device libraries, g++-12 for gfx906.
echo "== amd-compile: the kernels for AMD GPUs (clang-19 gfx90a, g++-12 gfx906)"
scripts/amd_compile_check.py amd-compile -j "$jobs"
scripts/amd_compile_check.py amd-compile-gcc -j "$jobs"
echo "== all tests passed"
