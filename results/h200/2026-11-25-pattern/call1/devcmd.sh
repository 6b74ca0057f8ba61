#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
R=$OUT/r; mkdir -p $R
date -u > $R/date.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.mem --format=csv > $R/gpu.txt
./build-gpu/lbm_pattern > $R/lbm-pattern.txt 2>&1
./build-gpu/lbm_pattern 512 512 256 40 > $R/lbm-pattern-2.txt 2>&1
for w in spin runtime; do with_clang19_rt ./build-gpu/ompref_launch_cost 2000 0 $w > $R/launch-cost-$w.json 2>&1; done
with_clang19_rt ./build-gpu/ompref_launch_cost 2000 0 spin > $R/launch-cost-spin-2.json 2>&1
with_clang19_rt ./build-gpu/ompref run mesh --size large --variant target_tuned_transverse,native_transverse,target_tuned_direct,native_direct --reps 30 --save none --json $R/mesh-large.json > $R/mesh-large.txt 2>&1
cd $OUT && tar czf r.tgz r
