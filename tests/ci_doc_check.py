#!/usr/bin/env python3
"""Runs the CI jobs of docs/ci.md as written.

Every fenced ```yaml block of the page is a job file: GitHub Actions
(`jobs.<job>.steps[].run`) or GitLab CI (`<job>.script[]`). Their commands run
in order from the root of the source tree (a GitHub step whose `run` is a
block runs as one script; a command that an earlier job ran already, word for
word, runs once), each must exit 0, and the files the jobs hand on
(upload-artifact's `path`, GitLab's `artifacts`, the benchmark step's
`output-file-path`) must exist afterwards; the benchmark file must be
github-action-benchmark's customSmallerIsBetter list and the JUnit file must
parse. A block with a `# needs an NVIDIA GPU` line is only parsed (`bash -n`):
this test says so for each. Files the jobs write into the source root are
removed afterwards; one there beforehand is not overwritten (the test fails).

    ci_doc_check.py SOURCE_DIR [--list]
"""
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from doc_blocks import fenced_blocks

GPU = "# needs an NVIDIA GPU"


def jobs_of(text):
    """[(job name, [commands], [files it hands on], benchmark file or None)]."""
    doc = yaml.safe_load(text)
    out = []
    if isinstance(doc.get("jobs"), dict):  # GitHub Actions
        for name, job in doc["jobs"].items():
            commands, files, bench = [], [], None
            for step in job.get("steps", []):
                if "run" in step:
                    commands.append(step["run"])
                uses, given = step.get("uses", ""), step.get("with", {}) or {}
                if uses.startswith("actions/upload-artifact"):
                    files += str(given.get("path", "")).split()
                if uses.startswith("benchmark-action/github-action-benchmark"):
                    bench = given.get("output-file-path")
                    files.append(bench)
            out.append((f"GitHub Actions {name}", commands, files, bench))
        return out
    for name, job in doc.items():  # GitLab CI
        if not isinstance(job, dict) or "script" not in job:
            continue
        artifacts = job.get("artifacts", {}) or {}
        files = list(artifacts.get("paths", []))
        for report in (artifacts.get("reports", {}) or {}).values():
            files += report if isinstance(report, list) else [report]
        out.append((f"GitLab CI {name}", list(job["script"]), files, None))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(sys.argv[1]).resolve()
    page = source / "docs" / "ci.md"
    blocks = ["\n".join(lines) for lines in fenced_blocks(page, "yaml")]
    if not blocks:
        print(f"FAIL: {page} has no ```yaml job")
        return 1
    host_jobs, failures = [], 0
    for text in blocks:
        for name, commands, files, bench in jobs_of(text):
            if not commands:
                print(f"FAIL: {name}: no command found")
                failures += 1
            elif GPU in text:
                check = subprocess.run(["bash", "-n", "-c", "\n".join(commands)], capture_output=True, text=True)
                print(f"{'parsed' if check.returncode == 0 else 'FAIL'}, not run (needs an NVIDIA GPU): {name}")
                failures += check.returncode != 0
            else:
                host_jobs.append((name, commands, files, bench))
    if "--list" in sys.argv:
        for name, commands, _, _ in host_jobs:
            print(f"{name}:", *commands, sep="\n  ")
        return 0
    env = dict(os.environ, OMPREF_QUIET="1")
    written = sorted({source / f for _, _, files, _ in host_jobs for f in files})
    there = [str(f) for f in written if f.exists()]
    if there:
        print(f"FAIL: {', '.join(there)} already exist; the jobs would overwrite them")
        return 1
    ran = set()
    try:
        for name, commands, files, bench in host_jobs:
            for command in commands:
                if command in ran:
                    print(f"ran already: {command}")
                    continue
                ran.add(command)
                start = time.monotonic()
                run = subprocess.run(["bash", "-e", "-c", command], cwd=source, env=env, capture_output=True,
                                     text=True)
                print(f"{'ok' if run.returncode == 0 else 'FAIL'}: exit {run.returncode}, "
                      f"{time.monotonic() - start:.1f} s: {command}")
                if run.returncode != 0:
                    failures += 1
                    print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
                    break
            else:
                for f in [source / f for f in files]:
                    if not f.exists():
                        print(f"FAIL: {name}: no {f.name} after the job")
                        failures += 1
                    elif f.suffix == ".xml":
                        ET.parse(f)
                if bench:
                    entries = json.loads((source / bench).read_text())
                    good = isinstance(entries, list) and entries and all(
                        set(e) >= {"name", "unit", "value"} and isinstance(e["value"], (int, float)) for e in entries)
                    if not good:
                        print(f"FAIL: {name}: {bench} is not a customSmallerIsBetter list")
                        failures += 1
    finally:
        for f in written:
            if f.exists():
                f.unlink()
    print(f"{len(host_jobs)} jobs run, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
