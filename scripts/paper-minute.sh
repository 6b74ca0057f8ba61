#!/usr/bin/env bash
# The two device runs whose whole wall time (set-up, transfers, validation
# against the host reference, observables) is held to a minute on one GPU with
# 16 host threads, default repetitions and budget:
#   lbm  --size paper  every target and native variant
#   mesh --size huge   every target and native variant
# The variants come from the binary's own `list --json`, so that a build
# without the native back end runs its target variants only.
#
#   scripts/paper-minute.sh OUT_DIR OMPREF [WORDS...]
# OMPREF [WORDS...] is the command that runs the binary, e.g. build-gpu/ompref,
# or `env LD_LIBRARY_PATH=/tmp/ompref-gpu-rt/rt build-gpu/ompref` (the runtime
# scripts/gpu-env.sh unpacks). Writes into OUT_DIR, per workload W:
#   W.json (the results), W.log (standard output and error), W.time (the wall
#   time in seconds, /usr/bin/time's %e), W.status (the exit status: 124 when
#   time limit ran out: PAPER_MINUTE_LIMIT seconds, 300 unless set), and
#   summary.txt (one line per workload). PAPER_MINUTE_WORKLOADS="lbm" (or
#   "mesh") runs one of the two.
# lbm's reference run at the paper size takes a 16-core host minutes: with
# OMPREF_CACHE=DIR in the environment, a second call (another OUT_DIR) reads
# the reference states the first one kept (DESIGN.md, Validation).
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/paper-minute.sh OUT_DIR OMPREF [WORDS...]" >&2
  exit 2
fi
out=$1
shift
mkdir -p "$out" || exit 2
export OMP_TARGET_OFFLOAD=MANDATORY OMP_NUM_THREADS=16

# The device variants (target and native) of workload $1, comma-separated.
device_variants() {
  "$@" list --json 2>/dev/null | python3 -c '
import json, sys
workload = sys.argv[1]
names = [v["variant"] for v in json.load(sys.stdin)
         if v["workload"] == workload and v["kind"] in ("target", "native") and v.get("compiled", True)]
print(",".join(names))' "$workload"
}

: > "$out/summary.txt"
for spec in lbm:paper mesh:huge; do
  workload=${spec%%:*}
  case " ${PAPER_MINUTE_WORKLOADS:-lbm mesh} " in *" $workload "*) ;; *) continue ;; esac
  size=${spec#*:}
  variants=$(device_variants "$@")
  if [ -z "$variants" ]; then
    echo "$workload: no target or native variant in \`$* list --json\`" | tee -a "$out/summary.txt" >&2
    exit 2
  fi
  /usr/bin/time -f %e -o "$out/$workload.time" \
    timeout "${PAPER_MINUTE_LIMIT:-300}" "$@" run "$workload" --size "$size" --variant "$variants" --save none \
    --json "$out/$workload.json" > "$out/$workload.log" 2>&1
  echo $? > "$out/$workload.status"
  echo "$workload --size $size ($variants): $(tail -n 1 "$out/$workload.time") s wall, exit $(cat "$out/$workload.status")" |
    tee -a "$out/summary.txt"
done
