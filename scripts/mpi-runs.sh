#!/usr/bin/env bash
# The scaling runs of docs/mpi.md ("Measured scaling"): 1 and 2 MPI ranks, one
# GPU each, in one command. Run on a machine of two GPUs from the checkout
# root, with .gpu/ (scripts/gpu-bundle.sh) and build-gpu-mpi/ompref carried
# (`cmake --preset gpu-mpi && cmake --build --preset gpu-mpi --target ompref`);
# writes the JSON into $OUT (or ./mpi-out).
#   scripts/mpi-runs.sh lbm      lbm paper size (512x512x256) on 1 and 2 ranks: target_fused,
#                                target_slabs, target_slabs_overlap (strong scaling), and
#                                512x512x512 on 2 ranks (weak scaling)
#   scripts/mpi-runs.sh gpp      gpp paper deck: target_udr, target_ranks, target_tuned and target_tuned_ranks on 1 and 2 ranks
#   scripts/mpi-runs.sh stream   stream large: the target variants on 1 and 2 ranks
set -uo pipefail
set_name=${1:?usage: mpi-runs.sh lbm|gpp|stream}
out=${OUT:-mpi-out}
mkdir -p "$out"
. .gpu/env.sh
# The clang-19 runtime of the bundle for mpirun's ranks (-x passes it on).
export LD_LIBRARY_PATH=${OMPREF_GPU_RT:-/tmp/ompref-gpu-rt}/rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_TARGET_OFFLOAD=MANDATORY OMPREF_QUIET=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
# --bind-to none: each rank's OpenMP threads spread as OMP_PLACES says; on a
# host of several sockets, `--map-by numa --bind-to numa` puts each rank on one.
ranks() {
  local n=$1
  shift
  mpirun --allow-run-as-root -np "$n" --bind-to none -x LD_LIBRARY_PATH -x PATH \
    -x OMP_TARGET_OFFLOAD -x OMP_NUM_THREADS -x OMPREF_QUIET build-gpu-mpi/ompref "$@"
}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/gpus.txt"

case "$set_name" in
  lbm)
    for n in 1 2; do
      ranks "$n" run lbm --size paper --variant target_fused,target_slabs,target_slabs_overlap --reps 5 --warmup 1 \
        --json "$out/lbm-paper-np$n.json" 2>&1 | tail -12
    done
    ranks 2 run lbm --size paper --nz 512 --variant target_slabs,target_slabs_overlap --reps 5 --warmup 1 \
      --json "$out/lbm-weak-512x512x512-np2.json" 2>&1 | tail -12
    ;;
  gpp)
    for n in 1 2; do
      ranks "$n" run gpp --size paper --variant target_udr,target_ranks,target_tuned,target_tuned_ranks --reps 5 --warmup 1 \
        --json "$out/gpp-paper-np$n.json" 2>&1 | tail -8
    done
    ;;
  stream)
    for n in 1 2; do
      ranks "$n" run stream --size large --variant target_basic,target_simd --reps 20 --warmup 2 \
        --json "$out/stream-large-np$n.json" 2>&1 | tail -8
    done
    ;;
  *) echo "mpi-runs.sh: unknown set '$set_name' (accepted: lbm, gpp, stream)" >&2; exit 2 ;;
esac
