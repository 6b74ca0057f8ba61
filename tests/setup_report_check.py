#!/usr/bin/env python3
"""The set-up a user runs first installs what `ompref report` needs.

    setup_report_check.py SOURCE_DIR

`scripts/setup.sh --list` (what CI installs) and `scripts/setup.sh --preset P
--list` for every preset scripts/run-suite.sh builds (its `next:` line names
`ompref report`) list python3-matplotlib. Where it is missing all the same,
`ompref report` says so in one line (tests/test_compare_report.cpp,
Report.NoMatplotlibNamesThePackage).
"""
import re
import subprocess
import sys
from pathlib import Path

source = Path(sys.argv[1]).resolve()
run_suite = (source / "scripts" / "run-suite.sh").read_text()
accepted = re.search(r'^case "\$preset" in\n\s*([\w|-]+)\) ;;', run_suite, re.M)
if not accepted:
    sys.exit("FAIL: scripts/run-suite.sh: no list of the presets it accepts")
presets = accepted.group(1).split("|")
failures = []
for args in [[]] + [["--preset", p] for p in presets]:
    p = subprocess.run([str(source / "scripts" / "setup.sh"), *args, "--list"], capture_output=True, text=True)
    packages = p.stdout.split()
    if p.returncode != 0 or "python3-matplotlib" not in packages:
        failures.append(f"setup.sh {' '.join(args)} --list: exit {p.returncode}, no python3-matplotlib in {packages}")
if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
print(f"python3-matplotlib in setup.sh's default and in its {len(presets)} presets of run-suite.sh")
