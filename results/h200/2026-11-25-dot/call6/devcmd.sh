#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
R=$OUT/r; mkdir -p $R
date -u > $R/date.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
for i in 1 2; do
  with_clang19_rt timeout 120 $B run stream --size large --variant target_tuned,native_stream --reps 20 --save none --json $R/stream-large-$i.json > $R/stream-large-$i.txt 2>&1
done
with_clang19_rt timeout 120 $B run stream --size medium --variant target_tuned,native_stream --reps 50 --save none --json $R/stream-medium.json > $R/stream-medium.txt 2>&1
for i in 1 2; do
  with_clang19_rt timeout 100 $B run mesh --size large --variant target_tuned_reduce_blocks,native_reduce --reps 30 --save none --json $R/mesh-large-reduce-$i.json > $R/mesh-large-reduce-$i.txt 2>&1
done
with_clang19_rt timeout 200 $B run mesh --size huge --variant target_tuned_reduce_blocks,native_reduce --reps 10 --save none --json $R/mesh-huge-reduce.json > $R/mesh-huge-reduce.txt 2>&1
with_clang19_rt timeout 150 $B check --save none --json $R/gpu-check.json > $R/gpu-check.txt 2>&1
with_gcc12_rt timeout 100 ./build-gcc-offload/ompref check --save none --json $R/gcc-check.json > $R/gcc-check.txt 2>&1
with_gcc12_rt timeout 100 ./build-gcc-offload/ompref run stream --size large --variant target_tuned --reps 10 --save none --json $R/gcc-stream-large.json > $R/gcc-stream-large.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
