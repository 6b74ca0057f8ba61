#!/usr/bin/env python3
"""MPI ranks given different commands: every rank ends with status 2 and one line from rank 0, within seconds.

    mpi_hostile_check.py OMPREF MPIEXEC

Each case is an MPMD launch (rank 0 and rank 1 given different arguments); before the ranks agreed on the
parsed command and the plan, a rank that refused its arguments alone left at parse time and the other waited
in a collective forever, and ranks given different variant lists hung.
"""
import os
import subprocess
import sys
import time

OMPREF, MPIEXEC = sys.argv[1:3]
LIMIT_S = 60
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPREF_RESULTS="none", OMPREF_QUIET="1")
BASE = ["run", "stream", "--size", "tiny", "--reps", "1", "--no-ceiling"]


def mpmd(rank0, rank1):
    """rank 0 runs `ompref RANK0`, rank 1 `ompref RANK1`: (status, stderr, seconds)."""
    command = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", "1", OMPREF, *rank0, ":", "-np", "1",
               OMPREF, *rank1]
    start = time.monotonic()
    try:
        p = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: {' '.join(command)} still running after {LIMIT_S} s (a hang)")
    return p.returncode, p.stderr, time.monotonic() - start


failures = []
cases = [
    ("an unknown option on rank 1", BASE, [*BASE, "--no-such-option"], "no-such-option"),
    ("an unknown option on rank 0", [*BASE, "--no-such-option"], BASE, "no-such-option"),
    ("an empty argument on rank 1", BASE, [*BASE, "--json", ""], "empty"),
    ("other variants on rank 1", [*BASE, "--variant", "host_simd"], [*BASE, "--variant", "target_simd"], "plans"),
    ("other sizes on rank 1", BASE, ["run", "stream", "--size", "small", "--reps", "1", "--no-ceiling"], "plans"),
    ("other reps on rank 1", BASE, ["run", "stream", "--size", "tiny", "--reps", "2", "--no-ceiling"], "plans"),
    ("another command on rank 1", BASE, ["list"], "commands"),
    ("--help on rank 1", BASE, [*BASE, "--help"], "commands"),
]
for what, rank0, rank1, expected in cases:
    status, err, seconds = mpmd(rank0, rank1)
    lines = [line for line in err.splitlines() if line.startswith("ompref")]
    if status != 2 or len(lines) != 1 or expected not in lines[0]:
        failures.append(f"{what}: exit {status}, lines {lines} ({expected!r} expected in one line)\n{err}")
    else:
        print(f"{what}: exit 2 in {seconds:.1f} s: {lines[0]}")
if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
