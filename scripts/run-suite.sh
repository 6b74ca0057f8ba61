#!/usr/bin/env bash
# Sets up, builds and runs the whole suite at default sizes on whatever devices
# this machine has, and prints the table. Extra arguments go to `ompref run all`
# (e.g. --json results.json, --size tiny).
#   GPU present (nvidia-smi lists one): the `offload` build (clang-19, NVPTX);
#   otherwise the `host` build (g++), where target variants run on the host
#   and say "host (fallback)".
# For the CUDA 13 driver of this project's H200 machines use the `gpu` preset
# (README: "On an NVIDIA GPU").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
preset=host
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then preset=offload; fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target ompref
exec "build-$preset/ompref" run all "$@"
