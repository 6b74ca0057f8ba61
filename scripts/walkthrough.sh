#!/bin/bash
# A student's walkthrough of docs/learn.md, timed: clones URL into ./ompref,
# then runs the `# runs on the host` blocks of the page's episodes (its "## N."
# sections; episode 1 unless given), line by line as written, from the
# checkout's root, each as the page's test runs it (bash -c). Prints one
# tab-separated line per step:
#   seconds  total  exit  PASS  episode  command
# (total: seconds since the clone began; PASS: lines of the step's output with
# the word PASS; episode: - for the clone) and keeps each step's output in
# ./walkthrough.log. Needs only bash, git, awk and coreutils: what a fresh
# Debian 12 machine with git has. scripts/fresh-walkthrough.sh runs it on one.
#   walkthrough.sh URL [EPISODE...]
set -u
[ $# -ge 1 ] || { echo "usage: walkthrough.sh URL [EPISODE...]" >&2; exit 2; }
url=$1
shift
episodes=${*:-1}
for n in $episodes; do
  case "$n" in ''|*[!0-9]*) echo "walkthrough.sh: episode '$n' is not a number" >&2; exit 2 ;; esac
done
[ -e ompref ] && { echo "walkthrough.sh: ./ompref exists; run it in an empty folder" >&2; exit 2; }
log=$PWD/walkthrough.log
steplog=$(mktemp) cmds=$(mktemp)
trap 'rm -f "$steplog" "$cmds"' EXIT
: > "$log"
now() { date +%s.%N; }
t0=$(now)
step() {  # step EPISODE COMMAND
  local s e rc passes
  s=$(now)
  echo "\$ $2" > "$steplog"
  bash -c "$2" >> "$steplog" 2>&1; rc=$?
  e=$(now)
  passes=$(grep -cw PASS "$steplog")
  cat "$steplog" >> "$log"
  awk -v s="$s" -v e="$e" -v t0="$t0" -v rc="$rc" -v p="$passes" -v ep="$1" -v c="$2" \
    'BEGIN { printf "%.1f\t%.1f\t%d\t%d\t%s\t%s\n", e - s, e - t0, rc, p, ep, c }'
}
printf 'seconds\ttotal\texit\tPASS\tepisode\tcommand\n'
step - "git clone -q $url ompref"
cd ompref || exit 1
for n in $episodes; do
  awk -v n="$n" '/^## /{ep = ($2 == n ".")} ep && /^```sh/{blk=1; first=1; next}
       blk && /^```/{blk=0; next}
       blk && first {first=0; host = ($0 ~ /^# runs on the host/); next}
       blk && host && !/^[[:space:]]*#/ && NF {print n "\t" $0}' docs/learn.md >> "$cmds"
done
[ -s "$cmds" ] || { echo "walkthrough.sh: docs/learn.md has no host commands in episode(s) $episodes" >&2; exit 2; }
while IFS=$'\t' read -r n line; do step "$n" "$line"; done < "$cmds"
