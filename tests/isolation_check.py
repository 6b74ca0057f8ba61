#!/usr/bin/env python3
"""Compile and run isolation, on the suite built with the fixtures of
tests/fixtures (ompref_fixtures): a step no compiler accepts
(cmake/compile_step.cmake) and variants that crash, hang and compute a wrong
result (src/app/isolation.hpp). `list` must name exactly the broken step's
variant as not compiled; `check` must exit 1 and report, in its table, JSON
and JUnit file, that variant as not compiled and each failing variant as a
FAIL of its kind, and run and pass every variant `ompref` has; `run` must
crash in its own process without --isolate, and with --isolate process
prepare each variant's problem in a process of its own.

usage: isolation_check.py OMPREF_FIXTURES OMPREF"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FIXTURE = "tests/fixtures/broken_step/stream_broken.cpp"
LEFT_OUT = ("stream", "target_broken_fixture")
# The failing variants (tests/fixtures/failing_variants) and the kind of FAIL each must be.
FAILING = {"fixture_crash": "crash", "fixture_hang": "timeout", "fixture_wrong": "validation"}
CRASH_LINE = "fixture_crash: an illegal memory access was encountered (on purpose)"
# Seconds a run may take in `check` here: fixture_hang's cost; every other
# variant at its smallest size takes under 2 s on 2 loaded cores.
TIME_LIMIT = "10"


def run(*args, quiet=True):
    env = dict(os.environ, OMPREF_RESULTS="none", OMPREF_QUIET="1" if quiet else "0")
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)


def main():
    fixtures, ompref = sys.argv[1], sys.argv[2]
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    listed = json.loads(run(fixtures, "list", "--json").stdout)
    left = [v for v in listed if not v["compiled"]]
    expect([(v["workload"], v["variant"], v["file"]) for v in left] == [LEFT_OUT + (FIXTURE,)],
           f"list --json: left out {left}, expected only {LEFT_OUT} of {FIXTURE}")
    expect(all("error" in v["not_compiled"] for v in left), f"list --json: no error line in {left}")
    compiled = sorted((v["workload"], v["variant"]) for v in listed if v["compiled"])
    reference = sorted((v["workload"], v["variant"]) for v in json.loads(run(ompref, "list", "--json").stdout))
    expect(compiled == sorted(reference + [("stream", name) for name in FAILING]),
           "list --json: the compiled variants are not ompref's and the failing fixtures")
    plain = run(fixtures, "list").stdout.splitlines()
    expect([l for l in plain if "not compiled: " in l] == [l for l in plain if l.startswith("stream target_broken_fixture target not compiled: ")],
           "list: the left-out line is missing or not alone")
    expect(any(l.startswith("stream target_broken_fixture target not compiled: ") for l in plain), "list: no left-out line")

    with tempfile.TemporaryDirectory() as tmp:
        junit, doc = os.path.join(tmp, "check.xml"), os.path.join(tmp, "check.json")
        check = run(fixtures, "check", "--time-limit", TIME_LIMIT, "--junit", junit, "--json", doc)
        expect(check.returncode == 1, f"check: exit {check.returncode}, expected 1\n{check.stderr}")
        not_compiled = [l for l in check.stderr.splitlines() if "not compiled: " in l]
        expect(len(not_compiled) == 1 and "stream target_broken_fixture" in not_compiled[0],
               f"check: not-compiled lines {not_compiled}")
        expect(CRASH_LINE in check.stderr, "check: the crashing variant's standard error was not passed through")
        # The table: one row per run; the failing fixtures FAIL with their kind, every other row PASS.
        rows = [l.split() for l in check.stdout.splitlines()
                if not l.startswith("  FAIL ") and (l.endswith(" PASS") or " FAIL" in l)]
        by_variant = {r[1]: " ".join(r[r.index("PASS" if "PASS" in r else "FAIL"):]) for r in rows}
        expect(len(rows) == len(reference) + len(FAILING), f"check: {len(rows)} rows, expected {len(reference) + len(FAILING)}")
        for name, kind in FAILING.items():
            want = "FAIL" if kind == "validation" else f"FAIL ({kind})"
            expect(by_variant.get(name) == want, f"check: {name} is '{by_variant.get(name)}' in the table, expected '{want}'")
        passed = [r for r in rows if r[1] not in FAILING]
        expect(len(passed) == len(reference) and all(r[-1] == "PASS" for r in passed),
               f"check: {len(passed)} other runs, expected {len(reference)} all PASS")
        fail_lines = [l.strip() for l in check.stdout.splitlines() if l.startswith("  FAIL ")]
        expect(sorted(l.split()[2] for l in fail_lines) == sorted(FAILING), f"check: FAIL lines under the table {fail_lines}")
        # The JSON: every run, the failing ones with their kind and, for the crash, its last lines.
        runs = json.load(open(doc))["runs"]
        kinds = {r["variant"]: r.get("failure_kind") for r in runs if not r["valid"]}
        expect(kinds == FAILING, f"json: failure kinds {kinds}, expected {FAILING}")
        crash = next((r for r in runs if r["variant"] == "fixture_crash"), {})
        expect("SIGABRT" in crash.get("failure", "") and CRASH_LINE in crash.get("failure_log", []),
               f"json: the crash says {crash.get('failure')} / {crash.get('failure_log')}")
        expect(all(r["time_s"]["median"] > 0 for r in runs), "json: a run without a time (compare refuses it)")
        # JUnit: one test case per run and per left-out variant, each failure typed.
        suite = ET.parse(junit).getroot()
        cases = suite.findall(".//testcase")
        typed = {c.get("name").split(".")[1]: c.find("failure").get("type") for c in cases if c.find("failure") is not None}
        expect(len(cases) == len(reference) + len(FAILING) + 1,
               f"junit: {len(cases)} test cases, expected {len(reference) + len(FAILING) + 1}")
        expect(typed == dict(FAILING, target_broken_fixture="compile"), f"junit: failures {typed}")
        expect(suite.get("failures") == str(len(FAILING) + 1), f"junit: failures={suite.get('failures')}")

    # `run` without --isolate runs in this process: the crash ends it.
    plain_run = run(fixtures, "run", "stream", "--variant", "fixture_crash", "--size", "tiny", "--reps", "1", "--no-ceiling")
    expect(plain_run.returncode not in (0, 1, 2), f"run: exit {plain_run.returncode}, expected the abort's")
    # --isolate process: each run's problem prepared in its own process, the crash that run's FAIL.
    variants = ["host_simd", "fixture_crash", "target_simd"]
    isolated = run(fixtures, "run", "stream", "--isolate", "process", "--variant", ",".join(variants), "--size", "tiny",
                   "--reps", "1", "--no-ceiling", "--json", "-", quiet=False)
    expect(isolated.returncode == 1, f"run --isolate process: exit {isolated.returncode}, expected 1\n{isolated.stderr}")
    preparing = [l for l in isolated.stderr.splitlines() if "preparing the tiny problem" in l]
    expect(len(preparing) == len(variants), f"run --isolate process: {len(preparing)} problems prepared, expected {len(variants)}")
    try:
        ran = {r["variant"]: r["valid"] for r in json.loads(isolated.stdout)["runs"]}
    except json.JSONDecodeError:
        ran = {}
    expect(ran == {"host_simd": True, "fixture_crash": False, "target_simd": True}, f"run --isolate process: {ran}")

    for f in failures:
        print("isolation:", f)
    if not failures:
        print(f"isolation: {FIXTURE} left out alone; {', '.join(FAILING)} failed with their kinds; "
              f"{len(reference)} variants ran and passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
