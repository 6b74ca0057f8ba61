#!/usr/bin/env python3
"""Runs the host commands of docs/learn.md as written.

Every fenced ```sh block of the page whose first line is `# runs on the host`
is run, block after block, line after line, from the root of the source tree
(a line ending in `\\` continues on the next). A command must exit 0, or N
where its line ends in `# exits N`. Blocks marked `# needs an NVIDIA GPU` are
only parsed (`bash -n`). Any other ```sh block, or a page without host blocks,
fails: every command block says where it runs.

    learn_commands.py SOURCE_DIR [PAGE]       PAGE: docs/learn.md by default
    learn_commands.py SOURCE_DIR --list       print the host commands, run nothing
"""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from doc_blocks import fenced_blocks

HOST, GPU = "# runs on the host", "# needs an NVIDIA GPU"
EXITS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")


def blocks(page):
    """(tag, [command lines]) for every ```sh block of the page."""
    out = fenced_blocks(page, "sh")
    result = []
    for lines in out:
        tag = lines[0].strip() if lines else ""
        commands, pending = [], ""
        for line in lines[1:]:
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            full = (pending + line).strip()
            pending = ""
            if full and not full.startswith("#"):
                commands.append(full)
        result.append((tag, commands))
    return result


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    if not args or len(args) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(args[0]).resolve()
    page = Path(args[1]) if len(args) > 1 else source / "docs" / "learn.md"
    if not page.is_file():
        print(f"learn_commands.py: no page {page}", file=sys.stderr)
        return 2
    found = blocks(page)
    host = [c for tag, cs in found if tag == HOST for c in cs]
    bad = [tag for tag, _ in found if tag not in (HOST, GPU)]
    if bad or not host:
        print(f"learn_commands.py: {page}: every ```sh block must start with '{HOST}' or '{GPU}'"
              f" and one at least with the first (found: {bad or 'no host block'})", file=sys.stderr)
        return 1
    if "--list" in sys.argv:
        print("\n".join(host))
        return 0
    for tag, commands in found:
        if tag == GPU:
            script = "\n".join(commands)
            check = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True)
            if check.returncode != 0:
                print(f"FAIL: a GPU block does not parse: {check.stderr.strip()}\n{script}")
                return 1
    env = dict(os.environ, OMPREF_RESULTS="none", OMPREF_QUIET="1")
    failures = 0
    for command in host:
        m = EXITS.search(command)
        want = int(m.group(1)) if m else 0
        start = time.monotonic()
        run = subprocess.run(["bash", "-c", command], cwd=source, env=env, capture_output=True, text=True)
        took = time.monotonic() - start
        verdict = "ok" if run.returncode == want else "FAIL"
        print(f"{verdict}: exit {run.returncode} (want {want}), {took:.1f} s: {command}")
        if run.returncode != want:
            failures += 1
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
    print(f"{len(host)} host commands, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
