#!/usr/bin/env bash
# ncu on one kernel of one variant, for each build named: what the device-code
# mode (cmake/OffloadFlags.cmake) changes in a kernel that moves bytes. On a
# GPU machine, from the checkout root, with the clang-22 runtime of
# scripts/gpu-bundle.sh; writes <preset>.ncu.txt into OUT.
#   scripts/device-code-ncu.sh OUT PRESET... (binaries as in scripts/toolchain-matrix.sh)
# Environment: NCU_VARIANT (default target_tuned), NCU_WORKLOAD (stream),
# NCU_SIZE (large), NCU_KERNEL (a regex of the kernel's name; default: the
# first launch of the variant after the ceiling-free start), NCU_LIMIT (s a build, 120).
set -uo pipefail
out=$1; shift
mkdir -p "$out"
. "${OMPREF_GPU_BUNDLE:-.gpu}/env.sh"
export OMP_TARGET_OFFLOAD=MANDATORY
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for preset in "$@"; do
  bin=build-$preset/ompref
  [ -x "$bin" ] || { bin=/tmp/ompref-$preset; [ -x "$bin" ] || xz -dc ".gpu-bin/$preset/ompref.xz" > "$bin"; chmod +x "$bin"; }
  with_clang22_rt timeout -k 5 "${NCU_LIMIT:-120}" "$ncu" --launch-count 1 \
    ${NCU_KERNEL:+--kernel-name "regex:$NCU_KERNEL"} \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    "$bin" run "${NCU_WORKLOAD:-stream}" --size "${NCU_SIZE:-large}" --variant "${NCU_VARIANT:-target_tuned}" \
    --reps 1 --warmup 0 --no-ceiling --save none --quiet > "$out/$preset.ncu.txt" 2>&1
  echo "$preset: ncu exit $?" >> "$out/ncu-summary.txt"
done
