#!/usr/bin/env bash
# The test command (README; .ci/run calls it): installs what is missing, builds
# the `virtual-device` (clang-19, target regions on the host CPU with memory of
# their own) and `host` (g++) configurations and runs CTest on both (on the
# virtual device: the exercises' and wrong solutions' checks too; in the host
# build: docs/learn.md's commands, which build `ompref` of the virtual-device
# build, done by then, and docs/ci.md's CI jobs, a tiny stream run on the host
# among them) with `ompref check` on the virtual device; then the
# `offload` build (clang-19, the full NVPTX device compile and link of the
# program, the exercises and the examples, a tiny stream run on the host
# fallback), the `offload-22` build (clang-22, ahead-of-time NVPTX with the
# device runtime of .toolchains/llvm-22) and its `ompref check` on the host
# fallback, then the `host-mpi` build and its MPI tests, then the quick tests
# under AddressSanitizer and UndefinedBehaviorSanitizer, the race job and the
# AMD device compile. Fails on any failure. Works on a machine without a GPU.
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
# `stage NAME` before each stage: the seconds each took, printed at the end.
# Each stage starts without the OpenMP runtime's registration files of ended
# processes, which kill a new process given the same pid before its main
# (tests/runtime_debris.py; tests/reproducers/libomp-empty-registration/).
stages=() stage_name="" stage_start=$SECONDS
stage() {
  [ -n "$stage_name" ] && stages+=("$stage_name: $((SECONDS - stage_start)) s")
  stage_name=$1 stage_start=$SECONDS
  echo "== $1"
  python3 tests/runtime_debris.py
}
for preset in virtual-device host; do
  stage "$preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  stage "$preset: tests"
  # The virtual-device build leaves out the `physics` tests (the host
  # reference's long runs, the same source as the host build's; tests/CMakeLists.txt).
  skip=long; [ "$preset" = virtual-device ] && skip="long|physics"
  ctest --preset "$preset" -j "$jobs" -LE "$skip"
  # The host build's tiny stream run is docs/ci.md's (the test ci_doc_jobs).
  if [ "$preset" = virtual-device ]; then
    echo "== virtual-device: ompref check (every variant, target ones on the virtual device)"
    OMP_TARGET_OFFLOAD=MANDATORY build-virtual-device/ompref check --save none
  fi
done
# clang-19 for NVIDIA without a GPU: the full device compile and link of the
# program, the exercises and the examples, and a tiny run on the host
# fallback. Its CTest suite would repeat the host build's with target regions
# on the host; the virtual-device build runs them on a device with memory of
# its own instead.
stage "offload: configure, build (NVPTX sm_90 device compile and link)"
cmake --preset offload >/dev/null
cmake --build --preset offload -j "$jobs" --target ompref exercises example_programs
build-offload/ompref run stream --size tiny
# clang-22 ahead of time (docs/toolchains.md): the full device compile and
# link of the program, then every variant once at its smallest size on the host
# fallback (its CTest suite would repeat the host build's), so only the program
# is built.
stage "offload-22: configure, build, ompref check (host fallback)"
cmake --preset offload-22 >/dev/null
cmake --build --preset offload-22 -j "$jobs" --target ompref
build-offload-22/ompref check --save none
# MPI ranks (docs/mpi.md): the host build with OpenMPI, its MPI tests
# (mpirun -np 2 and -np 3 --oversubscribe on CI's 2 cores).
stage "host-mpi: configure, build, MPI tests"
cmake --preset host-mpi >/dev/null
cmake --build --preset host-mpi -j "$jobs" --target ompref
ctest --preset host-mpi -L mpi
# AddressSanitizer and UndefinedBehaviorSanitizer on the host build: the
# quick tests (the `sanitize` test preset selects the `quick` label; any report
# aborts the test), including a minute of the command-line fuzzer.
stage "sanitize: configure and build"
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j "$jobs" --target ompref ompref_tests meshb_replay ompref_launch_cost
stage "sanitize: quick tests"
ctest --preset sanitize -j "$jobs"
# Races (the `race` preset, docs/toolchains.md): `ompref check` over every
# host and target variant under ThreadSanitizer with LLVM's Archer on 2 and 4
# threads, any report fails; and the fixture whose race must be reported.
stage "race: configure, build, race tests"
cmake --preset race >/dev/null
cmake --build --preset race -j "$jobs" --target race_programs
ctest --preset race
# AMD device code, compiled and device-linked per kernel file, never run:
# clang-19 for gfx90a with Debian's ROCm device libraries, g++-12 for gfx906.
stage "amd-compile: the kernels for AMD GPUs (clang-19 gfx90a, g++-12 gfx906)"
scripts/amd_compile_check.py amd-compile -j "$jobs"
scripts/amd_compile_check.py amd-compile-gcc -j "$jobs"
stage done
printf '%s\n' "${stages[@]}"
echo "== all tests passed"
