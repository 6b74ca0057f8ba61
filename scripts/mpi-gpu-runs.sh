#!/usr/bin/env bash
# lbm's slab forms on ONE GPU (docs/mpi.md, "Measured on one GPU"): 1 rank
# (the halo a device copy) and 2 ranks sharing the card (host-staged, or
# CUDA-aware MPI where the library is), target_fused beside them, under
# OMP_TARGET_OFFLOAD=MANDATORY. Run from the checkout root of a machine with
# one GPU, with the OpenMP runtime of the build on LD_LIBRARY_PATH (for the
# `gpu-mpi` build and scripts/gpu-bundle.sh's runtimes: `. .gpu/env.sh` and
# LD_LIBRARY_PATH=/tmp/ompref-gpu-rt/rt, as scripts/mpi-runs.sh does):
#   scripts/mpi-gpu-runs.sh [OMPREF [OUT]]    (defaults: build-gpu-mpi/ompref, mpi-gpu-out)
# Writes OUT/lbm-np1.json, OUT/lbm-np2.json and each run's table (.txt).
#
# Steps and repetitions: every rank validates against a host reference run
# of as many steps as the device ran (warm-up included), each step of which
# costs about as much as the whole device step times 20-30 on 8 host
# threads; so the device runs few steps: --steps 5, --warmup 1, --reps 3
# (20 steps, a timed repetition 0.1-0.3 s at 512x512x256), --no-ceiling.
# Each mpirun is bounded by `timeout`; the script ends in under 3 minutes.
set -uo pipefail
ompref=${1:-build-gpu-mpi/ompref}
out=${2:-mpi-gpu-out}
if [ ! -x "$ompref" ]; then
  echo "mpi-gpu-runs.sh: $ompref is not an executable ompref (accepted: a build with MPI and offload)" >&2
  exit 2
fi
mkdir -p "$out"
export OMP_TARGET_OFFLOAD=MANDATORY OMPREF_QUIET=1 LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
size=(--nx 512 --ny 512 --nz 256 --steps 5 --warmup 1 --reps 3 --no-ceiling)
variants=target_fused,target_slabs,target_slabs_overlap
timeout 20 nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/gpus.txt"
status=0
# limit (s), ranks
for pair in 75:1 95:2; do
  limit=${pair%%:*} n=${pair#*:}
  timeout --kill-after=5 "$limit" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
    -x OMP_TARGET_OFFLOAD -x LD_LIBRARY_PATH -x OMPREF_QUIET -x OMP_NUM_THREADS=8 \
    "$ompref" run lbm --variant "$variants" "${size[@]}" --json "$out/lbm-np$n.json" >"$out/lbm-np$n.txt" 2>&1
  rc=$?
  [ "$rc" = 124 ] && echo "mpi-gpu-runs.sh: $n ranks: still running after $limit s" >>"$out/lbm-np$n.txt"
  echo "== $n rank(s): exit $rc"
  tail -8 "$out/lbm-np$n.txt"
  [ "$rc" = 0 ] || status=1
done
exit "$status"
