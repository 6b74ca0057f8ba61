#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
with_clang19_rt $B version > $R/version.txt 2>&1
V=target_reduce_blocks,target_tuned_reduce_blocks,native_reduce,xnative_reduce_1,xnative_reduce_2,xnative_reduce_4_5
for i in 1 2; do
  with_clang19_rt $B run mesh --size large --variant $V --reps 30 --no-ceiling --save none --json $R/mesh-large-reduce-$i.json > $R/mesh-large-reduce-$i.txt 2>&1
done
with_clang19_rt $B run mesh --size huge --variant $V --reps 20 --no-ceiling --save none --json $R/mesh-huge-reduce.json > $R/mesh-huge-reduce.txt 2>&1
with_clang19_rt /usr/local/cuda/bin/ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section InstructionStats -c 1 -k regex:target_tuned_reduce_blocks $B run mesh --size large --variant target_tuned_reduce_blocks --reps 1 --warmup 0 --no-ceiling --save none > $R/ncu-target_tuned_reduce_blocks.txt 2>&1
with_clang19_rt /usr/local/cuda/bin/ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section InstructionStats -c 1 -k regex:reduce_kernel $B run mesh --size large --variant native_reduce --reps 1 --warmup 0 --no-ceiling --save none > $R/ncu-native_reduce.txt 2>&1
with_clang19_rt $B check --save none --json $R/gpu-check.json --junit $R/gpu-check.xml > $R/gpu-check.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
