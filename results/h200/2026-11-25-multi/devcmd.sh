#!/bin/bash
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16 OMPREF_QUIET=1
B=$PWD/build-gpu/ompref
G=$PWD/build-gcc-offload/ompref
R=$OUT/r; mkdir -p $R
cp devcmd.sh devprobe/multi_threads.cpp $R/
date -u > $R/date.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
with_clang19_rt $B --version > $R/version.txt 2>&1
with_clang19_rt timeout 60 ./devprobe/multi_threads > $R/multi_threads.txt 2>&1; echo "rc=$?" >> $R/multi_threads.txt
with_clang19_rt timeout 200 $B run gpp --size paper --variant target_tuned,target_multi,native_tuned --reps 5 --save none --json $R/gpp-paper.json > $R/gpp-paper.txt 2>&1
with_clang19_rt timeout 150 $B check --save none --json $R/gpu-check.json > $R/gpu-check.txt 2>&1
[ -x $G ] && with_gcc12_rt timeout 100 $G check --save none --json $R/gcc-check.json > $R/gcc-check.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
