#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
G=$PWD/build-gcc-offload/ompref
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
with_gcc12_rt $G --version > $R/gcc-offload-version.txt 2>&1
( time with_gcc12_rt $G check --save none --json $R/gcc-offload-check.json --junit $R/gcc-offload-check.xml ) > $R/gcc-offload-check.txt 2>&1
with_gcc12_rt $G run mesh --size large --variant target_reduce_blocks,target_tuned_reduce_blocks --reps 10 --no-ceiling --save none --json $R/gcc-offload-mesh-large-reduce.json > $R/gcc-offload-mesh-large-reduce.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
