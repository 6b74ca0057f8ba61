#!/usr/bin/env python3
"""The lesson graph the registrations declare (`ompref list --json`) holds.

For every variant:
- the variant it follows (`step_of`) and the one it mirrors (`mirrors`) are
  registered variants of the same workload;
- a step whose file is not its predecessor's opens with the `diff` command
  between the two files (`diff [-u] <predecessor's file> <its file>`), so the
  header names a predecessor that exists;
- every option it declares it reads (`options`) is one of its workload's
  options (`ompref run <workload> --help`).
Prints each step's diff size (changed lines, as `diff` counts them).

    lesson_check.py OMPREF SOURCE_DIR
"""
import difflib
import json
import re
import subprocess
import sys
from pathlib import Path


def changed_lines(a, b):
    n = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            n += (i2 - i1) + (j2 - j1)
    return n


def main():
    if len(sys.argv) != 3:
        print("usage: lesson_check.py OMPREF SOURCE_DIR", file=sys.stderr)
        return 2
    ompref, root = sys.argv[1], Path(sys.argv[2])
    listing = json.loads(subprocess.run([ompref, "list", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
    by_name = {(v["workload"], v["variant"]): v for v in listing}
    helps = {}
    problems = []
    for v in listing:
        w, name = v["workload"], v["variant"]
        where = f"{w} {name} ({v['file']})"
        if not (root / v["file"]).is_file():
            problems.append(f"{where}: its registration's file does not exist")
            continue
        for field in ("step_of", "mirrors"):
            other = v[field]
            if other and (w, other) not in by_name:
                problems.append(f"{where}: {field} {other}, which is not a registered {w} variant")
        for option in v["options"]:
            if w not in helps:
                helps[w] = subprocess.run([ompref, "run", w, "--help"], capture_output=True, text=True).stdout
            if not re.search(rf"(^|\s){re.escape(option)}\b", helps[w]):
                problems.append(f"{where}: reads {option}, which is not an option of {w}")
        pred = by_name.get((w, v["step_of"]))
        if pred is None or pred["file"] == v["file"]:
            continue
        text = (root / v["file"]).read_text()
        header = re.search(r"diff (?:-u )?([\w./-]*\w) ([\w./-]*\w)", text)
        if not header or header.group(1) != pred["file"] or header.group(2) != v["file"]:
            problems.append(f"{where}: follows {pred['variant']}, so its header must show "
                            f"`diff {pred['file']} {v['file']}`"
                            + (f" (it shows `{header.group(0)}`)" if header else " (it shows none)"))
            continue
        n = changed_lines((root / pred["file"]).read_text().splitlines(), text.splitlines())
        print(f"{w} {name}: diff {pred['file']} {v['file']}: {n} changed lines")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(listing)} variants, {sum(1 for v in listing if v['step_of'])} steps, "
          f"{sum(1 for v in listing if v['mirrors'])} pairs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
