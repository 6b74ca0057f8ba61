#!/usr/bin/env bash
# Shows that LLVM's OpenMP runtime (libomp) kills a process before main when
# /dev/shm already holds a registration file for the process's pid that is
# empty (SIGBUS) or holds no record it can read (SIGABRT, "OMP: Error #15"):
# registered.c, built with each clang-NN found, run three times under one pid
# (a shell that writes the file for its own pid, then execs the program):
# with no file, an empty file, a file of 1024 zero bytes. With gdb, the
# SIGBUS's stack: strlen in vsnprintf called from libomp (the runtime reads
# the mapped file as a string; a read of an empty file's mapping is a SIGBUS).
#   show.sh            prints what it sees (README.md records it)
#   show.sh --check    exit 0 when every clang found shows the defect as
#                      README.md declares it (SIGBUS and SIGABRT), 1 when one
#                      differs (a runtime fixed: update README.md and
#                      tests/cli_fuzz.py), 77 when no clang-NN is installed
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=0
[ "${1-}" = "--check" ] && check=1
compilers=()
tmp=$(mktemp -d)
uid=$(id -u)
trap 'rm -rf "$tmp"' EXIT
# clang-22 links the runtime of the project's .toolchains/llvm-22 where
# Debian's libomp-22-dev is not installed.
llvm22=$here/../../../.toolchains/llvm-22/lib
for cc in clang-19 clang-22; do
  command -v "$cc" >/dev/null || continue
  flags=()
  [ "$cc" = clang-22 ] && [ -e "$llvm22/libomp.so" ] && flags=(-L"$llvm22" -Wl,-rpath,"$llvm22")
  if "$cc" -fopenmp "${flags[@]}" "$here/registered.c" -o "$tmp/registered-$cc" 2>/dev/null; then
    compilers+=("$cc")
  else
    echo "$cc: registered.c does not build (no libomp for it): left out"
  fi
done
[ ${#compilers[@]} -gt 0 ] || { echo "show.sh: no clang-19 or clang-22 that builds an OpenMP program" >&2; exit 77; }
# Status of `program` started under a pid whose registration file `make_file`
# wrote first (128 + the signal for a signal). The file is removed afterwards
# (the runtime leaves it where it was killed).
status_with() {
  local program=$1 make_file=$2 rc
  # (the group's stderr: the shell's own note of the signal stays out)
  rc=$( { sh -c "echo \$\$ > $tmp/pid; $make_file; exec \"$program\" >/dev/null 2>&1"; echo $?; } 2>/dev/null)
  rm -f "/dev/shm/__KMP_REGISTERED_LIB_$(cat "$tmp/pid")_$uid"  # what a killed run leaves
  return "$rc"
}
differs=0
for cc in "${compilers[@]}"; do
  program=$tmp/registered-$cc
  lib=$(ldd "$program" | awk '/libomp/{print $3; exit}')
  rc_none=0 rc_empty=0 rc_zeros=0
  # Each case's file is named for the shell's pid, which exec gives the program.
  status_with "$program" ':' || rc_none=$?
  status_with "$program" ": > /dev/shm/__KMP_REGISTERED_LIB_\$\$_$uid" || rc_empty=$?
  status_with "$program" "head -c 1024 /dev/zero > /dev/shm/__KMP_REGISTERED_LIB_\$\$_$uid" || rc_zeros=$?
  echo "$cc ($lib): no file: exit $rc_none; empty file: exit $rc_empty (SIGBUS is 135); 1024 zero bytes: exit $rc_zeros (SIGABRT is 134)"
  [ "$rc_none" -eq 0 ] && [ "$rc_empty" -eq 135 ] && [ "$rc_zeros" -eq 134 ] || differs=1
done
if [ "$check" -eq 0 ] && command -v gdb >/dev/null; then
  # The SIGBUS's stack: gdb stops the program at its first instruction, writes
  # the empty file for the program's pid, continues.
  cat > "$tmp/stack.py" <<'PY'
import gdb, os
gdb.execute("starti")
name = f"/dev/shm/__KMP_REGISTERED_LIB_{gdb.selected_inferior().pid}_{os.getuid()}"
open(name, "w").close()
gdb.execute("continue")
gdb.execute("bt 5")
os.remove(name)
PY
  echo "the stack of the SIGBUS (${compilers[0]}):"
  gdb -q -batch -x "$tmp/stack.py" "$tmp/registered-${compilers[0]}" 2>&1 | grep -E '^(#|Program received)' || true
fi
if [ "$differs" -ne 0 ]; then
  echo "show.sh: a runtime no longer shows the defect as declared: update README.md and tests/cli_fuzz.py"
  exit 1
fi
