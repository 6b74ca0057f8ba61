#!/usr/bin/env python3
"""packaging/Containerfile and packaging/container-steps.sh, without a container.

    container_steps_check.py SOURCE_DIR BUILD_DIR

- The Containerfile starts FROM debian:12 and its RUN steps are
  container-steps.sh's steps, each once, in the order of its `all`.
- Its build is scripts/test.sh's: the preset it builds is one test.sh
  configures and builds with the same commands (`cmake --preset`, `cmake
  --build --preset`).
- The cheap steps run as written on this machine: `setup` (where
  `scripts/setup.sh --check` finds nothing missing, so that it installs
  nothing), `check` and `install` (into a temporary OMPREF_PREFIX, the
  installed ompref then run). `build` is not run here: it would reconfigure
  the build tree these tests run from; test.sh's host stage runs the same
  commands.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

source, build = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
script = source / "packaging" / "container-steps.sh"
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


text = script.read_text()
containerfile = (source / "packaging" / "Containerfile").read_text().splitlines()
instructions = [line.split(None, 1) for line in containerfile if line.strip() and not line.startswith("#")]
expect(instructions[0] == ["FROM", "debian:12"], f"the Containerfile starts with {instructions[0]}, not FROM debian:12")
runs = [rest for word, rest in instructions if word == "RUN"]
steps = re.search(r"^\s*all\) for s in ([\w ]+); do", text, re.M)
expect(steps is not None, "container-steps.sh has no `all` step listing the others")
steps = steps.group(1).split() if steps else []
labels = [m for m in re.findall(r"^\s*([\w-]+)\)", text, re.M) if m != "all"]
expect(sorted(labels) == sorted(steps), f"container-steps.sh's steps {labels}, its `all` runs {steps}")
expect(runs == [f"packaging/container-steps.sh {s}" for s in steps],
       f"the Containerfile's RUN steps {runs}, expected each of {steps} in that order")

preset = re.search(r"^preset=(\S+)$", text, re.M)
test_sh = (source / "scripts" / "test.sh").read_text()
loop = re.search(r"^for preset in ([\w -]+); do", test_sh, re.M)
expect(preset and loop and preset.group(1) in loop.group(1).split(),
       f"container-steps.sh builds preset {preset and preset.group(1)}, not one of test.sh's {loop and loop.group(1)}")
for command in ('cmake --preset "$preset"', 'cmake --build --preset "$preset"'):
    expect(command in text and command in test_sh, f"`{command}` is not in both container-steps.sh and test.sh")

env = dict(os.environ, OMPREF_QUIET="1")
missing = subprocess.run([str(source / "scripts" / "setup.sh"), "--preset", "host", "--check"], capture_output=True,
                         text=True)
plan = ["setup", "check", "install"] if missing.returncode == 0 else ["check", "install"]
if missing.returncode != 0:
    print(f"setup not run (it would install: {missing.stderr.strip()})")
build_of_script = source / "build-host"
if build_of_script.resolve() != build:
    print(f"check and install not run: the script uses {build_of_script}, these tests run from {build}")
    plan = [s for s in plan if s == "setup"]
with tempfile.TemporaryDirectory() as prefix:
    for step in plan:
        start = time.monotonic()
        p = subprocess.run([str(script), step], env=dict(env, OMPREF_PREFIX=prefix), capture_output=True, text=True)
        print(f"{'ok' if p.returncode == 0 else 'FAIL'}: container-steps.sh {step}, {time.monotonic() - start:.1f} s")
        expect(p.returncode == 0, f"container-steps.sh {step}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    if "install" in plan:
        installed = Path(prefix) / "bin" / "ompref"
        p = subprocess.run([str(installed), "list", "stream"], capture_output=True, text=True) if installed.exists() else None
        expect(p is not None and p.returncode == 0 and "host_simd" in p.stdout,
               f"the installed {installed} does not list stream's variants")
    bad = subprocess.run([str(script), "nonsense"], capture_output=True, text=True)
    expect(bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1,
           f"an unknown step: exit {bad.returncode}, {bad.stderr!r}")

if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
print(f"Containerfile: {len(runs)} RUN steps, container-steps.sh {', '.join(plan)} run")
