#!/usr/bin/env bash
# The examples and the unsolved exercises on one GPU: what docs/learn.md and
# exercises/README.md say a GPU run shows. Every run is under
# OMP_TARGET_OFFLOAD=MANDATORY: the examples must print "on the device" and
# PASS (exit 0); each unsolved exercise must fail validation (exit 1), also
# those the host fallback cannot catch (stream, mesh_gather,
# mesh_reduce_blocks); each exercise's solution, in build-gpu/ompref, must
# pass. Build first (here, or where clang is):
#   cmake --preset gpu && cmake --build --preset gpu && cmake --build --preset gpu --target exercise_programs
# then run from the checkout root on the GPU machine (with the bundle of
# scripts/gpu-bundle.sh carried, .gpu/, where the machine has no clang).
# Writes $OUT/exercises-gpu.txt (or ./gpu-out); exit 0 when every run did
# what it should. BUILD=DIR: another build folder than build-gpu.
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
if [ -f .gpu/env.sh ]; then
  . .gpu/env.sh
  run() { with_clang19_rt timeout 300 "$@"; }
else
  run() { timeout 300 "$@"; }
fi
export OMP_TARGET_OFFLOAD=MANDATORY OMPREF_RESULTS=none OMPREF_QUIET=1
log="$out/exercises-gpu.txt"
: > "$log"
bad=0
build=${BUILD:-build-gpu}
check() {  # check WANT LABEL COMMAND...
  local want=$1 label=$2
  shift 2
  local text
  text=$(run "$@" 2>&1)
  local got=$?
  local verdict=ok
  # An example must also say that it ran on the device (g++'s libgomp runs a
  # program built without offload on the host even under MANDATORY).
  if [ "$got" -ne "$want" ] || { [[ $label == example* ]] && [[ $text != *"on the device"* ]]; }; then
    verdict=WRONG
    bad=$((bad + 1))
  fi
  printf '%-5s exit %s (want %s) %s\n' "$verdict" "$got" "$want" "$label" | tee -a "$log"
  printf '%s\n' "$text" | tail -n 12 >> "$log"
}
check 0 "example stream_target" "$build"/examples/example_stream_target 268435456 10
check 0 "example gpp_1_port" "$build"/examples/example_gpp_1_port 256 512 1024
check 0 "example gpp_2_udr" "$build"/examples/example_gpp_2_udr 256 512 1024
while read -r name solution workload variant; do
  check 1 "exercise $name unsolved" "$build"/exercises/ompref_exercise_"$name" run "$workload" --variant "$variant" \
    --size small --reps 3 --no-ceiling
  check 0 "exercise $name solution" "$build"/ompref run "$workload" --variant "$variant" --size small --reps 3 --no-ceiling
done < <(python3 scripts/make_exercises.py . --list)
echo "$bad run(s) not as expected" | tee -a "$log"
[ "$bad" -eq 0 ]
