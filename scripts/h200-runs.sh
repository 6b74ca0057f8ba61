#!/usr/bin/env bash
# The runs behind results/h200/gpp/paper-with-lbm-medium-mesh-tiny/, gpp/launch-cost-tuned-shapes-with-lbm/,
# lbm/paper-shapes-host-tiles-with-gpp-paper/ and lbm/paper-with-mesh-large/ (a folder per set, its README naming
# the set): one set per device call. Run on
# the GPU machine from the checkout root, with .gpu/ and build-gpu/ompref carried
# (README "On an NVIDIA GPU"); writes into $OUT (or ./h200-out). The CUDA
# ceilings are measured inside every run by the `gpu` build's CUDA probes (the
# JSON's `ceilings`: native_triad_GBps, native_fp64_fma_TFLOPs); device.txt
# records the GPU, its driver and the build (`ompref --version`, `ompref devices`).
#   scripts/h200-runs.sh gpp-lbm-medium-mesh   gpp paper targets, lbm medium, mesh launch cost
#   scripts/h200-runs.sh launch-gpp-lbm        launch cost (OpenMP and CUDA), gpp tuned shapes,
#                                              every lbm variant at medium and at paper size
#   scripts/h200-runs.sh tune-paper            gpp paper targets (default shape), host_tiled tiles at
#                                              medium, lbm launch shapes and the best tile at paper
#   scripts/h200-runs.sh final                 lbm paper at the committed defaults, mesh large with
#                                              the launch cost beside it
set -uo pipefail
set_name=${1:?usage: h200-runs.sh gpp-lbm-medium-mesh|launch-gpp-lbm|tune-paper|final}
out=${OUT:-h200-out}
mkdir -p "$out"
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=16
ompref() { with_clang19_rt build-gpu/ompref "$@"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ompref --version
  ompref devices; } 2>&1 | tee "$out/device.txt"

case "$set_name" in
  gpp-lbm-medium-mesh)
    ompref run gpp --size paper --variant target_basic,target_udr,target_hoisted,target_tuned,target_multi \
      --reps 5 --warmup 1 --json "$out/gpp-paper.json" 2>&1 | tail -7
    ompref run lbm --size medium --reps 3 --warmup 1 --json "$out/lbm-medium.json" 2>&1 | tail -8
    # The mesh kernels' fixed cost per launch: the same kernels on a 3,072-tet
    # mesh (tiny), and the OpenMP triad at the direct kernel's size (3 nv doubles
    # of the large cube), so that the large-mesh fractions can be read against both.
    ompref run mesh --size tiny --reps 20 --warmup 3 --json "$out/mesh-tiny.json" 2>&1 | tail -20
    ompref run stream --n 6440067 --variant target_simd --reps 20 --json "$out/stream-direct-size.json" 2>&1 | tail -8
    ;;
  launch-gpp-lbm)
    nvcc -O3 -arch=sm_90 bench/launch_cost.cu -o /tmp/launch_cost && /tmp/launch_cost | tee "$out/launch-cost-cuda.json"
    with_clang19_rt build-gpu/ompref_launch_cost 2000 | tee "$out/launch-cost-openmp.json"
    # target_tuned's shape knob: bands per thread, ig chunk, thread_limit.
    for shape in 4,8192,128 4,4096,128 4,16384,128 8,8192,64 8,4096,128 2,8192,256 4,8192,96 4,8192,192; do
      echo "shape $shape: $(ompref run gpp --size paper --variant target_tuned --tuned-shape $shape --reps 5 \
        --warmup 1 --no-ceiling --json "$out/gpp-tuned-$shape.json" 2>&1 | grep '^gpp ')"
    done | tee "$out/gpp-tuned-shapes.txt"
    ompref run lbm --size medium --reps 3 --warmup 1 --json "$out/lbm-medium.json" 2>&1 | tail -7
    ompref run lbm --size paper --variant target_basic,target_shaped,target_many,target_fused,host_tiled,host_basic \
      --reps 2 --warmup 1 --json "$out/lbm-paper.json" 2>&1 | tail -9
    ;;
  tune-paper)
    ompref run gpp --size paper --variant target_basic,target_udr,target_hoisted,target_tuned,target_multi \
      --reps 5 --warmup 1 --json "$out/gpp-paper.json" 2>&1 | tail -6
    for t in 64x4x4 128x4x4 256x2x2 32x8x8 512x2x1 128x8x1; do
      echo "$t $(ompref run lbm --size medium --variant host_tiled --tile $t --reps 3 --warmup 1 --no-ceiling 2>&1 | grep '^lbm ')"
    done | tee "$out/lbm-medium-host-tiles.txt"
    best=$(sort -k6 -g -r "$out/lbm-medium-host-tiles.txt" | head -1 | cut -d' ' -f1)
    for fs in 256x1x1 64x2x1; do
      ompref run lbm --size paper --variant target_shaped,target_fused --shape $fs --fused-shape $fs --reps 1 \
        --warmup 1 --no-ceiling --json "$out/lbm-paper-shape-$fs.json" 2>&1 | grep '^lbm '
    done
    ompref run lbm --size paper --variant host_tiled --tile "$best" --reps 2 --warmup 1 \
      --json "$out/lbm-paper-host-tiled.json" 2>&1 | tail -2
    ;;
  final)
    with_clang19_rt build-gpu/ompref_launch_cost 2000 | tee "$out/launch-cost-openmp.json"
    for r in none hilbert; do
      ompref run mesh --size large --renumber $r --reps 20 --warmup 3 --json "$out/mesh-large-$r.json" 2>&1 | grep '^mesh '
    done
    ompref run lbm --size paper --variant target_basic,target_shaped,target_many,target_fused,host_tiled \
      --reps 2 --warmup 1 --json "$out/lbm-paper.json" 2>&1 | tail -6
    ;;
  *) echo "h200-runs.sh: unknown set '$set_name'" >&2; exit 2 ;;
esac
