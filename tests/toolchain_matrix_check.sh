#!/bin/sh
# scripts/toolchain_matrix.py on two result files of different compilers: a
# column per compiler, a row per run, the runs counted; an unreadable file is
# exit 2 with one line.
set -eu
script=$1 clang=$2 gcc=$3
out=$(python3 "$script" "$clang" "$gcc")
echo "$out" | head -n 1 | grep -q "| clang 19.1.7, device code [a-z-]* | g++ 12.2.0, device code lto |" || { echo "no column per compiler"; exit 1; }
echo "$out" | grep -q "^| stream | target_simd | large | .* | PASS .* GB/s, 0\.[0-9][0-9] of ceiling |$" \
  || { echo "gcc's stream target_simd row missing"; exit 1; }
echo "$out" | grep -q "^| g++ 12.2.0, device code lto | [0-9][0-9]* | [0-9.]* | equal terms (jit vs lto) |$" \
  || { echo "no speed ratio against the first build"; exit 1; }
runs=$(python3 -c "import json,sys; print(sum(len(json.load(open(f))['runs']) for f in sys.argv[1:]))" "$clang" "$gcc")
echo "$out" | grep -q "^$runs runs, 0 failed validation.$" || { echo "runs not counted: expected $runs"; exit 1; }
set +e
err=$(python3 "$script" /nonexistent.json 2>&1 >/dev/null); status=$?
set -e
[ "$status" -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] || { echo "bad file: status $status, $err"; exit 1; }
echo ok
