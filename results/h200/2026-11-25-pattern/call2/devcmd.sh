#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
R=$OUT/r; mkdir -p $R
date -u > $R/date.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
with_clang19_rt $B version > $R/version.txt 2>&1
[ "$1" = huge ] || ./build-gpu/ompref_lbm_pattern_cuda > $R/lbm-pattern.txt 2>&1
M=target_tuned_direct,target_tuned_downward,target_tuned_transverse,target_tuned_ball_csr,target_tuned_ball_binned,target_tuned_lumped_atomic,target_tuned_lumped_scatter_gather,target_tuned_reduce_blocks,native_direct,native_downward,native_transverse,native_upward_csr,native_upward_binned,native_lumped_atomic,native_lumped_scatter_gather,native_reduce
[ "$1" = huge ] || for i in 1 2; do
  with_clang19_rt timeout 150 $B run mesh --size large --variant $M --reps 30 --save none --json $R/mesh-large-$i.json > $R/mesh-large-$i.txt 2>&1
done
[ "$1" = huge ] && { with_clang19_rt timeout 300 $B run mesh --size huge --variant $M --reps 10 --save none --json $R/mesh-huge.json > $R/mesh-huge.txt 2>&1; cd $OUT && tar czf r.tgz r && rm -rf r; exit; }
with_clang19_rt timeout 200 $B run lbm --size paper --variant target_lean,native_streamed --reps 3 --save none --json $R/lbm-paper.json > $R/lbm-paper.txt 2>&1
with_clang19_rt timeout 100 $B check --save none --json $R/gpu-check.json > $R/gpu-check.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
