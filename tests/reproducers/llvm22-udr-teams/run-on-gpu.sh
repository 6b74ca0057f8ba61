#!/usr/bin/env bash
# Runs the binaries of build.sh on an NVIDIA GPU and writes everything into OUT:
#   OUT/summary.tsv             compiler, variant, shape, exit status, PASS/FAIL/CRASH
#   OUT/<compiler>/<variant>/<shape>.txt          one process per shape (plain run)
#   OUT/<compiler>/<variant>/all-shapes.info.txt  all shapes in one process with
#                               LIBOMPTARGET_INFO=-1 (the launch lines: teams, threads)
#   OUT/<compiler>/<variant>/launches.txt         those launch lines alone
#   OUT/sanitizer/<compiler>-<variant>-<shape>.txt  compute-sanitizer memcheck of
#                               the first failing runs (at most SANITIZE_MAX, default 6)
# Every process runs with OMP_TARGET_OFFLOAD=MANDATORY under `timeout 60`;
# COMPILERS (default "clang22 clang19") picks the builds, JOBS (default 4) how
# many binaries run at once.
# Runtimes: clang-22 binaries need libomptarget 22 and libLLVM 22 (with_clang22_rt
# from the GPU bundle's .gpu/env.sh; else a folder RT22 holding those libraries;
# else an installed LLVM 22); clang-19 binaries need with_clang19_rt (or an
# installed LLVM 19).
#   run-on-gpu.sh OUT
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: run-on-gpu.sh OUT (a folder for the results)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$1
mkdir -p "$out" || { echo "run-on-gpu.sh: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
[ -d "$here/build/clang22" ] || [ -d "$here/build/clang19" ] ||
  { echo "run-on-gpu.sh: no binaries in $here/build (run build.sh first)" >&2; exit 2; }

# shellcheck disable=SC1091
[ -f "$root/.gpu/env.sh" ] && . "$root/.gpu/env.sh"
export PATH=/usr/local/cuda/bin:$PATH
rt22=${RT22:-}
run22() {
  if declare -F with_clang22_rt > /dev/null; then with_clang22_rt "$@"
  elif [ -n "$rt22" ]; then LD_LIBRARY_PATH=$rt22${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"
  else LD_LIBRARY_PATH=/usr/lib/llvm-22/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; fi
}
run19() {
  if declare -F with_clang19_rt > /dev/null; then with_clang19_rt "$@"
  else LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; fi
}

# A,B,C,T,L: loops a < A, b < B, c < C (A*B*C iterations), thread_limit T, L rows
# per iteration. The first eight are gpp's --size tiny/small/medium launches of
# target_tuned (A = nchunks, B = band blocks, C = ngpown; medium's 8192 rows cut
# to 512: rows do not change the launch).
shapes=(
  1,8,32,512,512     # tiny,  --tuned-shape 4,8192,512: 256 iterations, 1 team
  1,8,32,256,512     # tiny,  4,8192,256: 1 team
  1,8,32,128,512     # tiny,  4,8192,128: 2 teams
  1,8,32,64,512      # tiny,  4,8192,64: 4 teams
  1,32,32,512,512    # tiny,  1,8192,512: 1024 iterations, 2 teams
  1,4,32,512,512     # tiny,  8,8192,512: 128 iterations, 1 team
  1,128,25,512,512   # small, 4,8192,512: 3200 iterations, 7 teams
  1,128,409,512,512  # medium, 4,8192,512: 52352 iterations, 103 teams
  1,1,100,512,64     # 1 team, 100 of its 512 threads busy
  1,1,513,512,64     # 2 teams, the second with 1 iteration
  1,1,16384,512,64   # 32 teams
  1,1,32768,512,64   # 64 teams
  1,1,563200,512,16  # 1100 teams: more than the 1024 reduction records
)

# One binary: every shape in its own process, then all shapes in one process
# with LIBOMPTARGET_INFO. Writes $d/summary.part.
run_binary() {
  local comp=$1 bin=$2 runner=run22 v d s rc r
  [ "$comp" = clang19 ] && runner=run19
  v=$(basename "$bin")
  d=$out/$comp/$v
  mkdir -p "$d"
  : > "$d/summary.part"
  for s in "${shapes[@]}"; do
    OMP_TARGET_OFFLOAD=MANDATORY $runner timeout 60 "$bin" "$s" > "$d/$s.txt" 2>&1
    rc=$?
    case $rc in
      0) r=PASS ;;
      1) r=FAIL ;;
      124) r=TIMEOUT ;;
      *) r=CRASH ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$comp" "$v" "$s" $rc $r >> "$d/summary.part"
  done
  OMP_TARGET_OFFLOAD=MANDATORY LIBOMPTARGET_INFO=-1 $runner timeout 60 "$bin" "${shapes[@]}" \
    > "$d/all-shapes.info.txt" 2>&1
  echo "exit status $?" >> "$d/all-shapes.info.txt"
  grep -E 'Launching kernel|^(PASS|FAIL)|rror|exit status' "$d/all-shapes.info.txt" > "$d/launches.txt"
}

# Binaries four at a time (the kernels are small; the host checks use the CPU).
jobs_max=${JOBS:-4}
for comp in ${COMPILERS:-clang22 clang19}; do
  [ -d "$here/build/$comp" ] || continue
  for bin in "$here/build/$comp"/*; do
    [ -x "$bin" ] && [ -f "$bin" ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    run_binary "$comp" "$bin" &
  done
done
wait

summary=$out/summary.tsv
printf 'compiler\tvariant\tshape\texit\tresult\n' > "$summary"
cat "$out"/*/*/summary.part >> "$summary" 2>/dev/null
rm -f "$out"/*/*/summary.part
failures=()
while IFS=$'\t' read -r comp v s rc r; do
  [ "$r" = PASS ] || failures+=("$comp $here/build/$comp/$v $s")
done < <(tail -n +2 "$summary")

mkdir -p "$out/sanitizer"
sanitizer=/usr/local/cuda/bin/compute-sanitizer
n=0
for f in "${failures[@]}"; do
  [ $n -lt "${SANITIZE_MAX:-6}" ] || break
  read -r comp bin s <<< "$f"
  runner=run22
  [ "$comp" = clang19 ] && runner=run19
  OMP_TARGET_OFFLOAD=MANDATORY $runner timeout 60 "$sanitizer" --tool memcheck --print-limit 20 "$bin" "$s" \
    > "$out/sanitizer/$comp-$(basename "$bin")-$s.txt" 2>&1
  n=$((n + 1))
done
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
echo "results in $out: $(grep -c PASS "$summary") pass, $(grep -cE 'FAIL|CRASH|TIMEOUT' "$summary") fail"
