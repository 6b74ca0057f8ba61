#!/usr/bin/env bash
# The toolchain check on one GPU machine, for every GPU build present: the
# clang-19 `gpu` build (build-gpu/, JIT), the clang-22 `gpu-aot` build
# (build-gpu-aot/, ahead of time) and the gcc-12 `gcc-offload` build
# (build-gcc-offload/). For each: `ompref check` (every variant at its
# smallest size, once) and `ompref run all` at default sizes, with
# OMP_TARGET_OFFLOAD=MANDATORY, then the matrix of scripts/toolchain_matrix.py.
# Every output line is timed (scripts/stamp_lines.py: NAME.times.tsv);
# timing.md lists per build and command the seconds to the first result line,
# to the first target-variant line (device start-up, and for the JIT build
# the first device compile) and to the end, with the exit status.
# Run from the checkout root with the runtimes of scripts/gpu-bundle.sh in .gpu/
# (README "On an NVIDIA GPU"); writes into $OUT (or ./toolchain-out).
set -uo pipefail
out=${OUT:-toolchain-out}
mkdir -p "$out"
. .gpu/env.sh
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

files=()
for build in gpu:with_clang19_rt gpu-aot:with_clang22_rt gcc-offload:with_gcc12_rt; do
  preset=${build%%:*} wrap=${build#*:}
  bin=build-$preset/ompref
  [ -x "$bin" ] || { echo "$bin: not built, skipped"; continue; }
  "$wrap" "$bin" --version > "$out/$preset-version.txt" 2>&1
  timed "$preset-check" "$wrap" "$bin" check --save none --json "$out/$preset-check.json" --junit "$out/$preset-check.xml"
  echo "check exit $?" >> "$out/$preset-check.txt"
  timed "$preset-all" "$wrap" "$bin" run all --save none --json "$out/$preset-all.json"
  echo "run all exit $?" >> "$out/$preset-all.txt"
  for f in "$out/$preset-check.json" "$out/$preset-all.json"; do [ -s "$f" ] && files+=("$f"); done
  tail -n 1 "$out/$preset-check.txt" "$out/$preset-all.txt"
done
cat "$out/timing.md"
[ ${#files[@]} -gt 0 ] && python3 scripts/toolchain_matrix.py "${files[@]}" > "$out/matrix.md"
