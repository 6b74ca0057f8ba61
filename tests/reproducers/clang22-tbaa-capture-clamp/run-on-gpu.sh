#!/usr/bin/env bash
# Runs build-for-gpu.sh's binaries on an NVIDIA GPU and writes OUT/results.txt:
# one line per binary and (n, chunk): exit status and the program's line.
# Every process runs with OMP_TARGET_OFFLOAD=MANDATORY under `timeout 60`, the
# clang-22 binaries with the runtime of scripts/gpu-bundle.sh (with_clang22_rt
# of .gpu/env.sh, or .gpu22/env.sh; else RT22=<folder with libomptarget.so.22.1,
# libomp.so.5, libLLVM.so.22.1>), the clang-19 one with with_clang19_rt.
# Expected with the defect (README.md): clang22-O2 and -O3 FAIL where chunk > n
# (they count chunk rows), every other line PASS.
#   run-on-gpu.sh OUT
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: run-on-gpu.sh OUT (a folder for the results)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$1" || { echo "run-on-gpu.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
[ -x "$here/build/clang22-O2" ] || { echo "run-on-gpu.sh: no binaries in $here/build (run build-for-gpu.sh)" >&2; exit 2; }
for env in "$root/.gpu/env.sh" "$root/.gpu22/env.sh"; do
  # shellcheck disable=SC1090
  [ -f "$env" ] && ! declare -F with_clang22_rt > /dev/null && . "$env"
done
run22() {
  if declare -F with_clang22_rt > /dev/null; then with_clang22_rt "$@"
  elif [ -n "${RT22:-}" ]; then LD_LIBRARY_PATH=$RT22${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"
  else "$@"; fi
}
run19() {
  if declare -F with_clang19_rt > /dev/null; then with_clang19_rt "$@"; else "$@"; fi
}
# (n, chunk): one chunk larger than the rows (the defect counts chunk rows),
# chunk = n, a chunk that divides n, and a last chunk cut short (1000 = 3 x 300 + 100).
cases=("512 8192" "512 1024" "512 512" "512 128" "1000 300")
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
  for bin in "$here"/build/clang22-* "$here"/build/clang19-*; do
    [ -x "$bin" ] && [ -f "$bin" ] || continue
    runner=run22
    case $(basename "$bin") in clang19-*) runner=run19 ;; esac
    for c in "${cases[@]}"; do
      # shellcheck disable=SC2086
      OMP_TARGET_OFFLOAD=MANDATORY $runner timeout 60 "$bin" $c > "$out/last.txt" 2>&1
      rc=$?
      printf '%-32s %-9s exit %s: %s\n' "$(basename "$bin")" "$c" $rc "$(tail -1 "$out/last.txt")"
    done
  done
  # The host code of the same binary (the target region run on the host).
  OMP_TARGET_OFFLOAD=DISABLED run22 "$here/build/clang22-O2" 512 8192 > "$out/last.txt" 2>&1
  rc=$?
  printf '%-32s %-9s exit %s: %s\n' "clang22-O2 (host)" "512 8192" $rc "$(tail -1 "$out/last.txt")"
} > "$out/results.txt" 2>&1
rm -f "$out/last.txt"
cat "$out/results.txt"
