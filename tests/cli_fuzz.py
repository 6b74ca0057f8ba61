#!/usr/bin/env python3
"""A seeded fuzzer of the `ompref` command line.

Feeds random argument vectors (commands, workloads, every option of `ompref run`
and `ompref check`, and hostile values: empty, negative, NaN, huge, special
files, odd shapes) to the program and checks the contract of DESIGN.md: the
exit status is 0, 1, 2 (or 130 on an interrupt), never a signal (a crash or a
sanitizer report) and never a hang (each run has a time limit). Every run is
small: `--size tiny --no-ceiling --reps 1 --warmup 0` come first, so the random
options override them or add to them.

    python3 tests/cli_fuzz.py build-host/ompref --seconds 60 --seed 1
    python3 tests/cli_fuzz.py build-sanitize/ompref --seconds 3600 --seed 7   # longer

Exit status: 0 when every run kept the contract, 1 otherwise (each failure
printed with the command that reproduces it).
"""
import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

from runtime_debris import REGISTRATION_DIR, remove_registration_debris

COMMANDS = ["run", "check", "list", "devices", "compare", "report", "frobnicate", "", "--version", "--help"]
WORKLOADS = ["stream", "gpp", "lbm", "mesh", "all", "nosuch", ""]
OPTIONS = [
    "--variant", "--size", "--reps", "--warmup", "--device", "--json", "--csv", "--junit", "--benchmark-json", "--save",
    "--workload", "--exclude",
    "--n", "--deck", "--data", "--tuned-shape",
    "--case", "--nx", "--ny", "--nz", "--steps", "--tau", "--G", "--G-ads", "--gravity", "--radius",
    "--tile", "--shape", "--block", "--fused-shape", "--vtk-every", "--out",
    "--cube", "--jitter", "--mesh", "--renumber", "--threshold", "--unknown",
]
FLAGS = ["--no-ceiling", "--quiet", "--help", "--version"]
VALUES = [
    "", " ", "-", "--", "0", "1", "2", "3", "-1", "-0", "3.5", "0.5000001", "nan", "inf", "-inf", "1e308", "1e-308",
    "99999999999999999999", "0x10", "abc", "all", "tiny", "huge", "drops", "droplet", "flat",
    "host_simd", "target_basic", "host_simd,,nope", "host_simd,", "/proc/ompref.json", "/sys/ompref", "4x4x4", "4096x4096x255", "0x1x1", "x1x1", "1x+2x1",
    "1 1 1 2", "4 1 8 2", "4,8192,192", "4,8192,192,2", "uniform", "varied", "hilbert", "none",
    "/dev/null", "/dev/full", "/proc/version", "/nonexistent/x.json", "/tmp", "FIFO", "OUT/x.json", "OUT/x.mesh",
    "a" * 300, "-0.1", "1e12", "-6", "-3", "0.1",
]


def random_args(rng, fifo, out_dir):
    args = [rng.choice(COMMANDS)]
    if args[0] == "run":
        args.append(rng.choice(WORKLOADS))
    if args[0] in ("run", "check"):
        args += ["--size", "tiny", "--no-ceiling", "--reps", "1", "--warmup", "0"]
        if args[0] == "check":
            args = ["check"]
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.2:
            args.append(rng.choice(FLAGS))
            continue
        args.append(rng.choice(OPTIONS))
        value = rng.choice(VALUES)
        value = value.replace("FIFO", fifo).replace("OUT", out_dir)
        if rng.random() < 0.9:
            args.append(value)
    return [a for a in args if a != "" or rng.random() < 0.5]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ompref", help="the ompref binary")
    parser.add_argument("--seconds", type=float, default=60, help="how long to fuzz (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1): the same seed, the same runs")
    parser.add_argument("--timeout", type=float, default=60, help="a run's time limit in seconds (default 60)")
    opts = parser.parse_args()
    opts.ompref = os.path.abspath(opts.ompref)  # the runs start in a scratch directory
    rng = random.Random(opts.seed)
    env = dict(os.environ, OMPREF_RESULTS="none", OMPREF_QUIET="1")
    env.setdefault("OMP_NUM_THREADS", "2")
    failures = 0
    runs = 0
    debris = 0  # the OpenMP runtime's files of ended processes, removed (remove_registration_debris)
    with tempfile.TemporaryDirectory(prefix="ompref_cli_fuzz_") as work:
        fifo = os.path.join(work, "fifo")
        os.mkfifo(fifo)
        out_dir = os.path.join(work, "out")
        os.mkdir(out_dir)
        end = time.monotonic() + opts.seconds
        while time.monotonic() < end:
            args = random_args(rng, fifo, out_dir)
            command = [opts.ompref] + args
            runs += 1
            debris += remove_registration_debris()
            try:
                done = subprocess.run(command, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, timeout=opts.timeout)
                status = done.returncode
                problem = None if status in (0, 1, 2, 130) else f"exit status {status}"
            except subprocess.TimeoutExpired:
                problem = f"no exit within {opts.timeout:g} s (a hang?)"
                done = None
            if problem:
                failures += 1
                tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:] if done else []
                print(f"FAIL ({problem}): {shlex.join(command)}")
                for line in tail:
                    print(f"    {line}")
    print(f"cli_fuzz: {runs} runs in {opts.seconds:g} s (seed {opts.seed}), {failures} failures")
    if debris:
        print(f"cli_fuzz: removed {debris} OpenMP runtime registration files of ended processes from {REGISTRATION_DIR}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
