#!/usr/bin/env bash
# Sets up, builds and runs the whole suite at default sizes on whatever devices
# this machine has, and prints the table.
#   scripts/run-suite.sh [--preset NAME] [--no-setup] [--] [ompref run all arguments]
# The build (a CMake preset of CMakePresets.json, README "Builds"):
#   NVIDIA GPU present (nvidia-smi lists one): `gpu-aot-safe` (clang-22, ahead
#     of time for sm_90, device code compiled -fno-strict-aliasing: the
#     workaround for clang 22's dropped row clamp, docs/toolchains.md; the
#     build's provenance names it). It compiles nothing at run time (the
#     clang-19 `gpu` build compiles the whole suite's device code at the first
#     target region) and its device code passes `ompref check`; with the CUDA twins and
#     ceilings where nvcc is found (OMPREF_CUDA_PATH, default /usr/local/cuda,
#     or PATH), without them otherwise;
#   otherwise `host` (g++), where target variants run on the host and say
#     "host (fallback)".
# Options (anywhere before `--`):
#   --preset NAME   build and run the preset NAME instead (host, host-mpi, sanitize,
#                   offload, offload-22, gpu, gpu-mpi, gpu-aot, gpu-aot-safe,
#                   gpu-aot-per-file, gpu-aot-lto, gcc-offload; also OMPREF_PRESET=NAME).
#                   The MPI presets run as a single rank here (docs/mpi.md for mpirun)
#   --no-setup      do not run scripts/setup.sh (also OMPREF_SKIP_SETUP=1); otherwise it
#                   installs what the preset needs, only what is missing (apt-get, as
#                   root or with sudo), or names it in one line and stops
#   -h, --help      this text (`ompref run all --help`: the command's own options)
# Every other argument goes to `ompref run all` (e.g. --size tiny, --json results.json);
# so does everything after `--`.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
preset=${OMPREF_PRESET:-}
setup=1
[ "${OMPREF_SKIP_SETUP:-0}" = 1 ] && setup=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || { echo "run-suite.sh: --preset needs a name" >&2; exit 2; }
              preset=$2; shift ;;
    --preset=*) preset=${1#--preset=} ;;
    --no-setup) setup=0 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ -z "$preset" ]; then
  preset=host
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then preset=gpu-aot-safe; fi
fi
case "$preset" in
  host|host-mpi|sanitize|offload|offload-22|gpu|gpu-mpi|gpu-aot|gpu-aot-safe|gpu-aot-per-file|gpu-aot-lto|gcc-offload) ;;
  *) echo "run-suite.sh: unknown preset '$preset' (accepted: host, host-mpi, sanitize, offload, offload-22, gpu, gpu-mpi, gpu-aot, gpu-aot-safe, gpu-aot-per-file, gpu-aot-lto, gcc-offload)" >&2
     exit 2 ;;
esac
if [ "$setup" = 1 ]; then
  scripts/setup.sh --preset "$preset"
fi
configure=()
case "$preset" in
  gpu|gpu-mpi|gpu-aot|gpu-aot-safe|gpu-aot-per-file|gpu-aot-lto)
    # The preset asks for the CUDA twins (OMPREF_NATIVE=cuda), which need nvcc.
    if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "${OMPREF_CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]; then
      echo "run-suite.sh: no nvcc: building $preset without the CUDA twins (OMPREF_NATIVE=off)" >&2
      configure+=(-DOMPREF_NATIVE=off)
    fi
    if [ -n "${OMPREF_CUDA_PATH:-}" ]; then configure+=("-DOMPREF_CUDA_PATH=$OMPREF_CUDA_PATH"); fi ;;
esac
cmake --preset "$preset" "${configure[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target ompref
exec "build-$preset/ompref" run all "${args[@]}"
