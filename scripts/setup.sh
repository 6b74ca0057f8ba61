#!/usr/bin/env bash
# Installs the Debian packages ompref needs, only those missing; quiet when
# nothing is missing. Idempotent. Needs root (or sudo) only when it installs.
#   scripts/setup.sh            host + offload builds, tests, bench, plots
#   scripts/setup.sh --gpu      also what GPU builds need here: gcc-12's nvptx offload
#                               compiler and llvm-19-dev (libLLVM for the clang JIT build)
set -euo pipefail
pkgs=(cmake g++ clang-19 clang-tools-19 libomp-19-dev libgtest-dev libgmock-dev libbenchmark-dev
      libcli11-dev nlohmann-json3-dev libfmt-dev python3-matplotlib libclang-rt-19-dev)
for arg in "$@"; do
  case "$arg" in
    --gpu) pkgs+=(gcc-12-offload-nvptx llvm-19-dev) ;;
    *) echo "setup.sh: unknown option '$arg' (accepted: --gpu)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup.sh: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
