#!/usr/bin/env bash
# The toolchain check on one GPU machine, for every GPU build present: the
# clang-19 `gpu` build (build-gpu/) and the gcc-12 `gcc-offload` build
# (build-gcc-offload/). For each: `ompref check` (every variant at its
# smallest size, once) and `ompref run all` at default sizes, with
# OMP_TARGET_OFFLOAD=MANDATORY, then the matrix of scripts/toolchain_matrix.py.
# Run from the checkout root with the runtimes of scripts/gpu-bundle.sh in .gpu/
# (README "On an NVIDIA GPU"); writes into $OUT (or ./toolchain-out).
set -uo pipefail
out=${OUT:-toolchain-out}
mkdir -p "$out"
. .gpu/env.sh
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMPREF_QUIET=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1
files=()
for build in gpu:with_clang19_rt gcc-offload:with_gcc12_rt; do
  preset=${build%%:*} wrap=${build#*:}
  bin=build-$preset/ompref
  [ -x "$bin" ] || { echo "$bin: not built, skipped"; continue; }
  "$wrap" "$bin" --version > "$out/$preset-version.txt" 2>&1
  { time "$wrap" "$bin" check --save none --json "$out/$preset-check.json" --junit "$out/$preset-check.xml"; } \
    > "$out/$preset-check.txt" 2>&1
  echo "check exit $?" >> "$out/$preset-check.txt"
  { time "$wrap" "$bin" run all --save none --json "$out/$preset-all.json"; } > "$out/$preset-all.txt" 2>&1
  echo "run all exit $?" >> "$out/$preset-all.txt"
  for f in "$out/$preset-check.json" "$out/$preset-all.json"; do [ -s "$f" ] && files+=("$f"); done
  tail -n 2 "$out/$preset-check.txt" "$out/$preset-all.txt"
done
[ ${#files[@]} -gt 0 ] && python3 scripts/toolchain_matrix.py "${files[@]}" > "$out/matrix.md"
