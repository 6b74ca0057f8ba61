#!/usr/bin/env bash
# The steps of the container image (packaging/Containerfile runs each as a
# RUN step, from the source tree copied to /src): on Debian 12,
#   setup    scripts/setup.sh --preset host: the Debian packages of the host build
#   build    the `host` preset (g++, host OpenMP), as scripts/test.sh configures and builds it; `ompref` alone
#   check    ompref check: every variant of every workload at its smallest size, validated
#   install  cmake --install into OMPREF_PREFIX (default /usr/local): ompref, report.py, the inputs
#   all      the four in this order
# tests/container_steps_check.py runs them on the host build of the tests (all
# but `setup` and `build` when told not to) and checks the Containerfile runs
# every step in this order.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=host
prefix=${OMPREF_PREFIX:-/usr/local}
step=${1:-all}
case "$step" in
  setup) scripts/setup.sh --preset "$preset" ;;
  build) cmake --preset "$preset" >/dev/null
         cmake --build --preset "$preset" -j "$(nproc)" --target ompref ;;
  check) OMPREF_QUIET=1 "build-$preset/ompref" check --save none ;;
  install) cmake --install "build-$preset" --prefix "$prefix" ;;
  all) for s in setup build check install; do "$0" "$s"; done ;;
  *) echo "container-steps.sh: unknown step '$step' (accepted: setup, build, check, install, all)" >&2
     exit 2 ;;
esac
