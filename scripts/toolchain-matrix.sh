#!/usr/bin/env bash
# The toolchain check on one GPU machine, for every GPU build present, in the
# order of BUILDS (default: gpu-aot-safe gpu-aot gpu gpu-aot-lto
# gcc-offload): the clang-19 `gpu` build (JIT), the clang-22 `gpu-aot`
# builds (ahead of time: device LTO, device LTO with the -fno-strict-aliasing
# workaround, and each file's device code alone) and the gcc-12 `gcc-offload`
# build. A build is build-<preset>/ompref, or .gpu-bin/<preset>/ompref.xz
# (built elsewhere, xz-compressed). For each: `ompref check` (every variant
# at its smallest size, once; clang builds with LIBOMPTARGET_INFO=16, every
# kernel's launch logged into <build>-check.txt) and `ompref run all` at
# default sizes, with OMP_TARGET_OFFLOAD=MANDATORY, then the matrix of
# scripts/toolchain_matrix.py (the first build is the baseline of its speed
# ratios). LIMIT (seconds, default 560): no build starts a command that the
# time left cannot hold (its check and run all are each bounded by it).
# Every output line is timed (scripts/stamp_lines.py: NAME.times.tsv);
# timing.md lists per build and command the seconds to the first result line,
# to the first target-variant line (device start-up, and for the JIT build
# the first device compile) and to the end, with the exit status.
# Run from the checkout root with the runtimes of scripts/gpu-bundle.sh in .gpu/
# (README "On an NVIDIA GPU"; OMPREF_GPU_BUNDLE names another folder); writes into
# $OUT (or ./toolchain-out).
set -uo pipefail
out=${OUT:-toolchain-out}
mkdir -p "$out"
. "${OMPREF_GPU_BUNDLE:-.gpu}/env.sh"   # scripts/gpu-bundle.sh; a folder with only some runtimes serves their builds
export OMP_TARGET_OFFLOAD=MANDATORY OMP_PROC_BIND=spread OMP_PLACES=cores OMPREF_QUIET=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1
{
  echo "| build | command | first result line (s) | first target line (s) | wall (s) | exit |"
  echo "|---|---|---|---|---|---|"
} > "$out/timing.md"

# NAME CMD...: CMD's output (standard error too) into $out/NAME.txt, its lines
# timed into $out/NAME.times.tsv, one row of timing.md; returns CMD's status.
timed() {
  local name=$1 rc start
  shift
  start=$(date +%s.%N)
  "$@" 2>&1 | python3 scripts/stamp_lines.py --since "$start" "$out/$name.times.tsv" > "$out/$name.txt"
  rc=${PIPESTATUS[0]}
  # A result line is "  <workload>  <variant>  ..."; a target line's variant starts with target_.
  awk -F'\t' -v build="${name%-*}" -v cmd="${name##*-}" -v rc="$rc" '
    $2 ~ /^  [a-z]+ +[a-z0-9_]+ / { split($2, f, " "); if (first == "") first = $1
                                     if (target == "" && f[2] ~ /^target_/) target = $1 }
    { last = $1 }
    END { printf "| %s | %s | %s | %s | %s | %d |\n", build, cmd, first == "" ? "-" : first,
                 target == "" ? "-" : target, last, rc }' "$out/$name.times.tsv" >> "$out/timing.md"
  return "$rc"
}

limit=${LIMIT:-560}
left() { echo $(( limit - SECONDS )); }
files=()
for preset in ${BUILDS:-gpu-aot-safe gpu-aot gpu gpu-aot-lto gcc-offload}; do
  case $preset in
    gpu|gpu-mpi) wrap=with_clang19_rt info=16 ;;
    gcc-offload) wrap=with_gcc12_rt info= ;;
    *) wrap=with_clang22_rt info=16 ;;
  esac
  bin=build-$preset/ompref
  if [ ! -x "$bin" ] && [ -f ".gpu-bin/$preset/ompref.xz" ]; then
    bin=/tmp/ompref-$preset
    xz -dc ".gpu-bin/$preset/ompref.xz" > "$bin" && chmod +x "$bin"
  fi
  [ -x "$bin" ] || { echo "$preset: not built, skipped"; continue; }
  [ "$(left)" -gt 30 ] || { echo "$preset: no time left, skipped" | tee -a "$out/timing.md"; continue; }
  "$wrap" "$bin" --version > "$out/$preset-version.txt" 2>&1
  timed "$preset-check" "$wrap" timeout -k 5 "$(left)" env ${info:+LIBOMPTARGET_INFO=$info} "$bin" check --save none \
    --json "$out/$preset-check.json" --junit "$out/$preset-check.xml"
  echo "check exit $?" >> "$out/$preset-check.txt"
  [ "$(left)" -gt 30 ] || { echo "$preset: no time left for run all" | tee -a "$out/timing.md"; continue; }
  timed "$preset-all" "$wrap" timeout -k 5 "$(left)" "$bin" run all --save none --json "$out/$preset-all.json"
  echo "run all exit $?" >> "$out/$preset-all.txt"
  for f in "$out/$preset-check.json" "$out/$preset-all.json"; do [ -s "$f" ] && files+=("$f"); done
  tail -n 1 "$out/$preset-check.txt" "$out/$preset-all.txt"
done
cat "$out/timing.md"
[ ${#files[@]} -gt 0 ] && python3 scripts/toolchain_matrix.py "${files[@]}" > "$out/matrix.md"
