#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
R=$OUT/r; mkdir -p $R
date -u > $R/date.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
for i in 1 2 3; do
  with_clang19_rt timeout 100 $B run mesh --size large --variant target_tuned_reduce_blocks,native_reduce --reps 30 --save none --json $R/mesh-large-reduce-$i.json > $R/mesh-large-reduce-$i.txt 2>&1
done
with_clang19_rt timeout 200 $B run mesh --size huge --variant target_tuned_reduce_blocks,native_reduce --reps 10 --save none --json $R/mesh-huge-reduce.json > $R/mesh-huge-reduce.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
