#!/usr/bin/env python3
"""Compile isolation (cmake/compile_step.cmake): the suite built with the broken
step of tests/fixtures/broken_step (ompref_broken_step) must name exactly that
file's variant as not compiled, in `list`, `list --json`, `check` and its
JUnit file, exit 1 from `check`, and still run and pass every variant `ompref`
has.

usage: compile_isolation.py OMPREF_BROKEN_STEP OMPREF"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FIXTURE = "tests/fixtures/broken_step/stream_broken.cpp"
LEFT_OUT = ("stream", "target_broken_fixture")


def run(*args):
    env = dict(os.environ, OMPREF_RESULTS="none", OMPREF_QUIET="1")
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)


def main():
    broken, ompref = sys.argv[1], sys.argv[2]
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    listed = json.loads(run(broken, "list", "--json").stdout)
    left = [v for v in listed if not v["compiled"]]
    expect([(v["workload"], v["variant"], v["file"]) for v in left] == [LEFT_OUT + (FIXTURE,)],
           f"list --json: left out {left}, expected only {LEFT_OUT} of {FIXTURE}")
    expect(all("error" in v["not_compiled"] for v in left), f"list --json: no error line in {left}")
    compiled = sorted((v["workload"], v["variant"]) for v in listed if v["compiled"])
    reference = sorted((v["workload"], v["variant"]) for v in json.loads(run(ompref, "list", "--json").stdout))
    expect(compiled == reference, "list --json: the compiled variants differ from ompref's")
    plain = run(broken, "list").stdout.splitlines()
    expect([l for l in plain if "not compiled: " in l] == [l for l in plain if l.startswith("stream target_broken_fixture target not compiled: ")],
           "list: the left-out line is missing or not alone")
    expect(any(l.startswith("stream target_broken_fixture target not compiled: ") for l in plain), "list: no left-out line")

    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "check.xml")
        check = run(broken, "check", "--junit", junit)
        expect(check.returncode == 1, f"check: exit {check.returncode}, expected 1\n{check.stderr}")
        not_compiled = [l for l in check.stderr.splitlines() if "not compiled: " in l]
        expect(len(not_compiled) == 1 and "stream target_broken_fixture" in not_compiled[0],
               f"check: not-compiled lines {not_compiled}")
        rows = [l for l in check.stdout.splitlines() if l.rstrip().endswith((" PASS", " FAIL"))]
        expect(len(rows) == len(reference) and all(l.rstrip().endswith("PASS") for l in rows),
               f"check: {len(rows)} runs (expected {len(reference)}, all PASS)")
        suite = ET.parse(junit).getroot()
        cases = suite.findall(".//testcase")
        failed = [c for c in cases if c.find("failure") is not None]
        expect(len(cases) == len(reference) + 1, f"junit: {len(cases)} test cases, expected {len(reference) + 1}")
        expect(len(failed) == 1 and failed[0].find("failure").get("type") == "compile"
               and "target_broken_fixture" in failed[0].get("name"), "junit: the one failure is not the left-out variant")
        expect(suite.get("failures") == "1", f"junit: failures={suite.get('failures')}")

    for f in failures:
        print("compile_isolation:", f)
    if not failures:
        print(f"compile_isolation: {FIXTURE} left out alone; {len(reference)} variants ran and passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
