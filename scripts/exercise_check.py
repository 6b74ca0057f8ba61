#!/usr/bin/env python3
"""Checks an exercise and, when it fails, names the likely mistake.

Runs the suite built with the exercise in place of its solution on the
exercise's variant, then reads what went wrong (the validation's worst value,
the offload runtime's error, the exercise's source) against the exercise's
table of mistakes in scripts/make_exercises.py, and prints one verdict:

    PASS on <where it ran>, and what is left to check (races, time on a GPU)
    FAIL: <the likely mistake, in words>   (the evidence below it)

    exercise_check.py NAME                      the program of build-virtual-device (or build-host)
    exercise_check.py NAME --program PROGRAM    that program (e.g. build-exercise/ompref)
    exercise_check.py NAME --expect KEY         exit 0 exactly when the verdict is KEY (`pass`, or a
                                                mistake's key): the tests of the exercises

Exit 0 on PASS, 1 on FAIL, 2 on bad arguments.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_exercises  # noqa: E402  (the tables: one place for every exercise's facts)


def run(program, workload, variant, size, threads):
    with tempfile.TemporaryDirectory() as tmp:
        out_json = Path(tmp) / "run.json"
        env = dict(os.environ, OMPREF_RESULTS="none", OMP_NUM_THREADS=str(threads))
        proc = subprocess.run([program, "run", workload, "--variant", variant, "--size", size, "--reps", "2",
                               "--no-ceiling", "--quiet", "--json", str(out_json)],
                              capture_output=True, text=True, env=env)
        record = {}
        if out_json.exists():
            try:
                data = json.loads(out_json.read_text())
                runs = [r for r in data.get("runs", []) if r.get("variant") == variant]
                record = runs[0] if runs else {}
            except (json.JSONDecodeError, AttributeError):
                record = {}
    return proc, record


def diagnose(name, source, proc, record):
    """(key, message, evidence): the first entry of the exercise's table that matches."""
    failure = record.get("failure", "") if record else ""
    texts = {"source": source, "stderr": proc.stderr, "failure": failure}
    passed = proc.returncode == 0 and record.get("valid") is True
    for key, where, pattern, message in make_exercises.MISTAKES[name]:
        if where == "source" and re.search(pattern, source, re.M):
            return key, message, "found in the source"
        if passed:
            continue
        found = re.search(pattern, texts[where], re.M | re.I)
        if found:
            if where == "stderr":  # the runtime's line that says it
                start = texts[where].rfind("\n", 0, found.start()) + 1
                end = texts[where].find("\n", found.end())
                return key, message, texts[where][start:end if end >= 0 else None].strip()
            return key, message, failure
    if passed:
        return "pass", "", ""
    evidence = failure or "\n".join(proc.stderr.strip().splitlines()[-3:]) or f"exit {proc.returncode}"
    return "other", f"the run failed (exit {proc.returncode}) in a way this check does not know", evidence


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the exercise (exercises/README.md lists them)")
    parser.add_argument("--program", help="the suite built with the exercise in place of its solution")
    parser.add_argument("--source", help="the exercise's file (default: NAME.cpp beside the program)")
    parser.add_argument("--size", help="problem size (default: the exercise's)")
    parser.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS (default 2)")
    parser.add_argument("--expect", help="exit 0 exactly when the verdict is this key")
    args = parser.parse_args()
    if args.name not in make_exercises.EXERCISES:
        print(f"exercise_check.py: no exercise '{args.name}' (known: {', '.join(make_exercises.EXERCISES)})",
              file=sys.stderr)
        return 2
    _, workload, variant, _, _ = make_exercises.EXERCISES[args.name]
    program = args.program
    if not program:
        for build in ("build-virtual-device", "build-host"):
            candidate = ROOT / build / "exercises" / f"ompref_exercise_{args.name}"
            if candidate.exists():
                program = str(candidate)
                break
        else:
            print(f"exercise_check.py: no program for '{args.name}': build it first "
                  f"(cmake --build --preset virtual-device --target ompref_exercise_{args.name})", file=sys.stderr)
            return 2
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        print(f"exercise_check.py: '{program}' is not a program", file=sys.stderr)
        return 2
    source_path = Path(args.source) if args.source else Path(program).parent / f"{args.name}.cpp"
    if not source_path.is_file():
        print(f"exercise_check.py: no source '{source_path}'", file=sys.stderr)
        return 2
    keys = {k for k, _, _, _ in make_exercises.MISTAKES[args.name]} | {"pass", "other"}
    if args.expect and args.expect not in keys:
        print(f"exercise_check.py: '{args.expect}' is not a verdict of {args.name} ({', '.join(sorted(keys))})",
              file=sys.stderr)
        return 2
    size = args.size or make_exercises.CHECK_SIZE.get(args.name, "tiny")
    proc, record = run(program, workload, variant, size, args.threads)
    key, message, evidence = diagnose(args.name, source_path.read_text(), proc, record)
    if key == "pass":
        print(f"{args.name}: PASS on {record.get('ran_on', '?')} (--size {size}). "
              f"{make_exercises.AFTER_PASS[args.name]}")
    else:
        print(f"{args.name}: FAIL: {message}")
        print(f"  ({key}; what the run saw: {evidence})")
    if args.expect:
        if key != args.expect:
            print(f"exercise_check.py: expected '{args.expect}', got '{key}'", file=sys.stderr)
            return 1
        return 0
    return 0 if key == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
