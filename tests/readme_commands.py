#!/usr/bin/env python3
"""Runs the commands of README.md as written.

Every line of the page's ```sh blocks runs, in order, with bash from the root
of the source tree, the host build's folder first on PATH (the page writes
`ompref`), OMPREF_RESULTS=none and OMPREF_QUIET=1; each must exit 0. Skipped,
each with its reason printed:
- lines marked `# on the GPU machine`, `# a GPU build` or `# needs MPI` (they
  need what a host build has not: a GPU, the CUDA toolkit, MPI);
- lines marked `# not run by the README test: <why>` (the test suite itself,
  hour-long fuzzing).
A file a skipped GPU line writes and a later line reads is stood in for by a
committed GPU result (STAND_INS, said when used). Files and folders the
commands create in the source root are removed afterwards; one there before
is refused (the commands would overwrite it). A command outside a ```sh block
(an indented block starting with a command) fails the test, as does a page
without commands.

    readme_commands.py SOURCE_DIR BUILD_DIR [--list]
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

SKIP = {"# on the GPU machine": "needs an NVIDIA GPU", "# a GPU build": "needs the GPU build's CUDA toolkit",
        "# needs MPI": "needs MPI"}
NOT_RUN = "# not run by the README test"
# What a skipped GPU line writes, for the lines after it: a committed GPU run.
STAND_INS = {"gpu.json": "results/h200/suite/run-all-5c49558/results.json"}
COMMAND_START = re.compile(r"^    (ompref|scripts/|cmake|ctest|python3|build-)")


def sh_lines(page):
    lines, inside, fence, stray = [], False, "", []
    previous_blank = True
    for n, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            inside, fence = (not inside), line[3:].strip() if not inside else ""
            continue
        if inside and fence == "sh":
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append((n, line.strip()))
        elif not inside and previous_blank and COMMAND_START.match(line):
            stray.append(f"line {n}: {line.strip()}")
        previous_blank = not line.strip() or (previous_blank and line.startswith("    "))
    return lines, stray


def main():
    source, build = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    lines, stray = sh_lines(source / "README.md")
    if stray or not lines:
        print("FAIL: commands outside ```sh blocks:\n  " + "\n  ".join(stray) if stray else "FAIL: no ```sh command")
        return 1
    plan = []
    for n, command in lines:
        why = next((reason for marker, reason in SKIP.items() if marker in command), None)
        if why is None and NOT_RUN in command:
            why = command.split(NOT_RUN, 1)[1].lstrip(": ").split(";")[0]
        plan.append((n, command, why))
    if "--list" in sys.argv:
        for n, command, why in plan:
            print(f"{'skip (' + why + ')' if why else 'run'}: README.md:{n}: {command}")
        return 0
    before = set(os.listdir(source))
    env = dict(os.environ, PATH=f"{build}{os.pathsep}{os.environ.get('PATH', '')}", OMPREF_RESULTS="none",
               OMPREF_QUIET="1")
    failures, ran = 0, 0
    try:
        for n, command, why in plan:
            if why:
                print(f"skipped, {why}: README.md:{n}: {command}")
                for name, committed in STAND_INS.items():
                    if name in command and not (source / name).exists():
                        if name in before:
                            raise SystemExit(f"FAIL: {name} is in the source root already")
                        shutil.copy(source / committed, source / name)
                        print(f"  {name}: stood in for by {committed}")
                continue
            start = time.monotonic()
            run = subprocess.run(["bash", "-c", command], cwd=source, env=env, capture_output=True, text=True)
            ran += 1
            print(f"{'ok' if run.returncode == 0 else 'FAIL'}: exit {run.returncode}, "
                  f"{time.monotonic() - start:.1f} s: README.md:{n}: {command}", flush=True)
            if run.returncode != 0:
                failures += 1
                print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
    finally:
        for name in set(os.listdir(source)) - before:
            path = source / name
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    print(f"{ran} README commands run, {len(plan) - ran} skipped, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
