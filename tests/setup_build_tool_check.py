#!/usr/bin/env python3
"""The set-up installs the build program every CMake preset's generator runs.

    setup_build_tool_check.py SOURCE_DIR

For each configure preset of CMakePresets.json, `scripts/setup.sh --preset
NAME --list` names the Debian package of the program its generator runs
(`make` for Unix Makefiles, CMake's default here; `ninja-build` for Ninja),
and so does `scripts/setup.sh --list` (what CI installs). Debian's cmake only
recommends make, and setup.sh installs without recommends: on a fresh machine
nothing else brings it in.
"""
import json
import subprocess
import sys
from pathlib import Path

PROGRAM = {None: "make", "Unix Makefiles": "make", "Ninja": "ninja-build", "Ninja Multi-Config": "ninja-build"}

source = Path(sys.argv[1]).resolve()
presets = json.loads((source / "CMakePresets.json").read_text())["configurePresets"]
by_name = {p["name"]: p for p in presets}


def generator(p):
    while p is not None:
        if "generator" in p:
            return p["generator"]
        inherits = p.get("inherits")
        p = by_name.get(inherits[0] if isinstance(inherits, list) else inherits) if inherits else None
    return None


failures, wanted = [], set()
for p in presets:
    if p.get("hidden"):
        continue
    want = PROGRAM.get(generator(p))
    if want is None:
        failures.append(f"preset {p['name']}: no package known for generator {generator(p)!r}")
        continue
    wanted.add(want)
    run = subprocess.run([str(source / "scripts" / "setup.sh"), "--preset", p["name"], "--list"],
                         capture_output=True, text=True)
    if run.returncode != 0 or want not in run.stdout.split():
        failures.append(f"setup.sh --preset {p['name']} --list: exit {run.returncode}, no {want}")
run = subprocess.run([str(source / "scripts" / "setup.sh"), "--list"], capture_output=True, text=True)
missing = sorted(wanted - set(run.stdout.split()))
if run.returncode != 0 or missing:
    failures.append(f"setup.sh --list: exit {run.returncode}, missing {missing}")
if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
print(f"the build program of every preset's generator in setup.sh's default and its {len(by_name)} presets")
