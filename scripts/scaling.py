#!/usr/bin/env python3
"""Scaling over MPI ranks in one command: one `ompref run` under mpirun for each
rank count, and one JSON with every run's document, each run's command, and
the speedups and efficiencies of each variant (docs/mpi.md, "Scaling").

    scripts/scaling.py [--ranks 1,2,4] [--ompref build-gpu-mpi/ompref] [--mpirun mpirun]
                       [--mpirun-args "--bind-to none"] [--weak NAME=PER_RANK]
                       [--against VARIANT] --out scaling.json -- run lbm --size paper ...

The arguments after `--` are ompref's (a `run` command; the script adds
--json). Strong scaling by default: the same problem on every rank count.
`--weak nz=256` gives `--nz 256n` to the run on n ranks: the problem grows
with the ranks. For each variant and rank count n, against the fewest ranks
b: speedup = fom(n) / fom(b) and efficiency = speedup / (n / b), the figure
of merit being the run's aggregate (the sum of the ranks' for a replicated
variant, the whole instance's work over the slowest rank's time for a split
one: docs/mpi.md). With --against V, also each variant's fom(n) over V's
fom(b) (lbm: target_slabs_overlap on n ranks against target_fused on one).

Exit status: 0 when every run exited 0; 1 when one did not (the JSON still
lists every run, with its exit status); 2 on bad arguments, before any run.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time


def refuse(message):
    print(f"scaling.py: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    if "--" not in argv:
        refuse("no ompref command: give it after `--` (e.g. -- run lbm --size tiny)")
    at = argv.index("--")
    command = argv[at + 1:]
    parser = argparse.ArgumentParser(prog="scaling.py", description="ompref over 1, 2, 4 MPI ranks in one command")
    parser.add_argument("--ranks", default="1,2,4", help="rank counts, comma-separated (default 1,2,4)")
    parser.add_argument("--ompref", default="build-gpu-mpi/ompref", help="the MPI build's ompref")
    parser.add_argument("--mpirun", default="mpirun", help="the MPI launcher")
    parser.add_argument("--mpirun-args", default="", help="the launcher's options, one string")
    parser.add_argument("--weak", action="append", default=[], metavar="NAME=PER_RANK",
                        help="weak scaling: ompref's --NAME gets PER_RANK x ranks (an integer); repeatable")
    parser.add_argument("--against", default="", help="a variant whose fom on the fewest ranks every variant is "
                        "also held against")
    parser.add_argument("--out", required=True, help="the JSON to write")
    parser.add_argument("--time-limit", type=float, default=3600, help="seconds one run may take (default 3600)")

    parser.error = lambda message: refuse(message)
    args = parser.parse_args(argv[:at])
    try:
        ranks = [int(r) for r in args.ranks.split(",")]
    except ValueError:
        refuse(f"--ranks {args.ranks}: not a comma-separated list of integers")
    if not ranks or any(r < 1 for r in ranks) or len(set(ranks)) != len(ranks):
        refuse(f"--ranks {args.ranks}: rank counts must be distinct and at least 1")
    args.ranks = sorted(ranks)
    weak = []
    for item in args.weak:
        name, _, value = item.partition("=")
        option = "--" + name
        if not name.replace("-", "").isalnum() or not value.isdigit() or int(value) < 1:
            refuse(f"--weak {item}: expected NAME=PER_RANK with a positive integer (e.g. nz=256)")
        if option in command:
            refuse(f"--weak {item}: the command gives {option} too; give it once")
        weak.append((option, int(value)))
    args.weak = weak
    if not command or command[0] != "run":
        refuse(f"the ompref command must be a `run` (got: {' '.join(command) or 'nothing'})")
    if any(a == "--json" or a.startswith("--json=") for a in command):
        refuse("the ompref command gives --json: the script writes each run's JSON itself")
    args.command = command
    if not (os.path.isfile(args.ompref) and os.access(args.ompref, os.X_OK)):
        refuse(f"--ompref {args.ompref}: not an executable file")
    out = os.path.abspath(args.out)
    if os.path.isdir(out):
        refuse(f"--out {args.out}: a folder")
    if not os.path.isdir(os.path.dirname(out)):
        refuse(f"--out {args.out}: its folder does not exist")
    inputs = [os.path.abspath(args.ompref)] + [os.path.abspath(a) for a in command if os.path.exists(a)]
    if os.path.exists(out) and any(os.path.samefile(i, out) for i in inputs):
        refuse(f"--out {args.out}: an input of the runs; refusing to overwrite it")
    return args


def efficiencies(runs_by_ranks, against):
    """Per variant: speedup and efficiency at each rank count against the fewest."""
    counts = sorted(runs_by_ranks)
    base_n = counts[0]
    table = {}
    base_doc = runs_by_ranks[base_n]
    base_fom = {(r["workload"], r["variant"]): r["fom"]["value"] for r in base_doc.get("runs", [])}
    for n in counts:
        for r in runs_by_ranks[n].get("runs", []):
            key = (r["workload"], r["variant"])
            entry = table.setdefault(f"{key[0]} {key[1]}", {"workload": key[0], "variant": key[1], "by_ranks": []})
            row = {"ranks": n, "fom": r["fom"]["value"], "fom_name": r["fom"]["name"], "valid": r["valid"],
                   "median_s": r["time_s"]["median"]}
            if key in base_fom and base_fom[key] > 0:
                row["speedup"] = r["fom"]["value"] / base_fom[key]
                row["efficiency"] = row["speedup"] / (n / base_n)
            if against and (key[0], against) in base_fom and base_fom[(key[0], against)] > 0:
                row["against"] = {"variant": against, "ranks": base_n,
                                  "speedup": r["fom"]["value"] / base_fom[(key[0], against)]}
                row["against"]["efficiency"] = row["against"]["speedup"] / (n / base_n)
            entry["by_ranks"].append(row)
    return list(table.values())


def main():
    args = parse(sys.argv[1:])
    runs, status, by_ranks = [], 0, {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.ranks:
            extra = [a for option, per_rank in args.weak for a in (option, str(per_rank * n))]
            json_path = os.path.join(tmp, f"np{n}.json")
            command = [args.mpirun, "-np", str(n), *shlex.split(args.mpirun_args), args.ompref, *args.command, *extra,
                       "--json", json_path]
            print(f"scaling.py: {shlex.join(command)}", file=sys.stderr, flush=True)
            began = time.monotonic()
            try:
                code = subprocess.run(command, timeout=args.time_limit).returncode
            except subprocess.TimeoutExpired:
                code = 124
            entry = {"ranks": n, "command": shlex.join(command[:-2]), "exit": code,
                     "wall_s": round(time.monotonic() - began, 3)}
            if os.path.isfile(json_path):
                with open(json_path) as f:
                    entry["result"] = json.load(f)
                by_ranks[n] = entry["result"]
            if code != 0:
                status = 1
            runs.append(entry)
    doc = {"command": shlex.join([sys.executable, *sys.argv]), "ranks": args.ranks,
           "scaling": "weak" if args.weak else "strong",
           "weak": {option: per_rank for option, per_rank in args.weak},
           "efficiencies": efficiencies(by_ranks, args.against) if by_ranks else [], "runs": runs}
    out = os.path.abspath(args.out)
    # Written whole or not at all: a partial file never replaces a good one.
    fd, part = tempfile.mkstemp(dir=os.path.dirname(out), prefix=".scaling-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(part, out)
    for e in doc["efficiencies"]:
        cells = ", ".join(f"{r['ranks']}: {r['fom']:.4g} {r['fom_name']}" +
                          (f" (x{r['speedup']:.2f}, {r['efficiency']:.2f})" if "speedup" in r else "")
                          for r in e["by_ranks"])
        print(f"{e['workload']} {e['variant']}: {cells}")
    print(f"scaling.py: wrote {args.out}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
