#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
R=$OUT/r; mkdir -p $R
date -u > $R/date.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
with_clang19_rt timeout 400 $B run lbm --size paper --variant native_streamed,xnative_streamed_5,xnative_streamed_6,xnative_streamed_7,target_lean --reps 5 --save none --json $R/lbm-paper.json > $R/lbm-paper.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
