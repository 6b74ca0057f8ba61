#!/usr/bin/env bash
# The runs of docs/profiling.md on an NVIDIA GPU: stream's target_simd at
# --size large under OMP_TARGET_OFFLOAD=MANDATORY, (1) with the offload
# runtime's launch lines (LIBOMPTARGET_INFO=16), (2) under Nsight Systems
# (a timeline and its kernel and memory-copy summaries), (3) one triad
# launch under Nsight Compute (speed of light, occupancy, launch statistics).
# Each run is bounded by `timeout`; everything is written into OUT.
#
#   scripts/profile-gpu.sh OMPREF OUT     OMPREF: the gpu build's program (build-gpu/ompref)
set -uo pipefail
if [ $# -ne 2 ] || [ ! -x "$1" ]; then
  echo "usage: scripts/profile-gpu.sh OMPREF OUT (OMPREF: an executable, e.g. build-gpu/ompref)" >&2
  exit 2
fi
ompref=$1 out=$2
mkdir -p "$out" || exit 2
export OMP_TARGET_OFFLOAD=MANDATORY OMPREF_RESULTS=none
run=("$ompref" run stream --variant target_simd --size large --reps 5 --no-ceiling)
"$ompref" --version > "$out/version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu.txt" 2>&1
echo "== 1. LIBOMPTARGET_INFO=16"
LIBOMPTARGET_INFO=16 timeout 300 "${run[@]}" > "$out/info.txt" 2>&1
echo "exit $?" >> "$out/info.txt"
echo "== 2. nsys"
timeout 600 nsys profile --force-overwrite true --trace cuda --stats true -o "$out/stream" "${run[@]}" \
  > "$out/nsys.txt" 2>&1
echo "exit $?" >> "$out/nsys.txt"
echo "== 3. ncu: one triad launch (the kernel of the line that computes a = b + s*c)"
# The OpenMP kernels are named __omp_offloading_<ids>_<mangled function>_l<line>:
# target_simd's five kernels are its function's lines; the fourth is the triad.
timeout 600 ncu --kernel-name regex:target_simd --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  "$ompref" run stream --variant target_simd --size large --reps 1 --warmup 0 --no-ceiling > "$out/ncu.txt" 2>&1
echo "exit $?" >> "$out/ncu.txt"
ls -l "$out"
