#!/usr/bin/env bash
# The toolchain check and gpp's tuned step on one GPU, in one command: run on
# the GPU machine from the checkout root with the `gpu` build and the bundle
# of scripts/gpu-bundle.sh carried (.gpu/). Writes into $OUT (or ./gpu-out).
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
ompref() { with_clang19_rt build-gpu/ompref "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/nvidia-smi.txt"
ompref --version > "$out/version.txt"
# Every variant of every workload at its smallest size, validated, on the device.
{ time ompref check --save "$out/saved" --json "$out/check.json" --junit "$out/check.xml"; } > "$out/check.txt" 2>&1
echo "check exit $?" >> "$out/check.txt"
# gpp's tuned step on the paper deck after the move into its own file.
ompref run gpp --size paper --variant target_tuned,target_hoisted --reps 5 --save none \
  --json "$out/gpp-paper.json" > "$out/gpp-paper.txt" 2>&1
tail -n 45 "$out"/check.txt; tail -n 8 "$out/gpp-paper.txt"
