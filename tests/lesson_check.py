#!/usr/bin/env python3
"""The lesson graph the registrations declare (`ompref list --json`) holds.

For every variant:
- the variant it follows (`step_of`) and the one it mirrors (`mirrors`) are
  registered variants of the same workload;
- a step's file is not its predecessor's (a step is one file's diff against
  the file before it), and it opens with the `diff` command between the two
  files (`diff [-u] <predecessor's file> <its file>`), so the header names a
  predecessor that exists;
- every option it declares it reads (`options`) is one of its workload's
  options (`ompref run <workload> --help`).
Prints each step's diff size (changed lines, as `diff` counts them).

    lesson_check.py OMPREF SOURCE_DIR
    lesson_check.py OMPREF SOURCE_DIR --self-test   a step in its predecessor's file must fail
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


# Steps registered with their predecessor's file though they live in a file of
# their own: known, reported, not failed. Each entry goes when its
# registration names its own file (the check then says the entry is stale).
KNOWN_SAME_FILE = {}


def check(ompref, root, listing):
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
        if pred is None:
            continue
        if pred["file"] == v["file"]:
            why = KNOWN_SAME_FILE.get((w, name))
            if why:
                print(f"{where}: known: in its predecessor {pred['variant']}'s file ({why})")
            else:
                problems.append(f"{where}: follows {pred['variant']} in the same file: a step is a file of its own, "
                                f"shown by `diff <predecessor's file> <its file>`")
            continue
        if (w, name) in KNOWN_SAME_FILE:
            problems.append(f"{where}: now in a file of its own: remove it from KNOWN_SAME_FILE in lesson_check.py")
        text = (root / v["file"]).read_text()
        header = re.search(r"diff (?:-u )?([\w./-]*\w) ([\w./-]*\w)", text)
        if not header or header.group(1) != pred["file"] or header.group(2) != v["file"]:
            problems.append(f"{where}: follows {pred['variant']}, so its header must show "
                            f"`diff {pred['file']} {v['file']}`"
                            + (f" (it shows `{header.group(0)}`)" if header else " (it shows none)"))
            continue
        n = changed_lines((root / pred["file"]).read_text().splitlines(), text.splitlines())
        print(f"{w} {name}: diff {pred['file']} {v['file']}: {n} changed lines")
    return problems


def self_test(ompref, root, listing):
    """A step registered in its predecessor's file fails the check."""
    step = next((v for v in listing if v["step_of"] and (v["workload"], v["variant"]) not in KNOWN_SAME_FILE), None)
    if step is None:
        print("no step to test with", file=sys.stderr)
        return 1
    pred = next(v for v in listing if (v["workload"], v["variant"]) == (step["workload"], step["step_of"]))
    changed = [dict(v, file=pred["file"]) if v is step else v for v in listing]
    problems = check(ompref, root, changed)
    if any("in the same file" in p for p in problems):
        print(f"{step['workload']} {step['variant']} registered in {pred['file']}: fails the check, as it must")
        return 0
    print(f"{step['workload']} {step['variant']} registered in {pred['file']}: PASSED the check", file=sys.stderr)
    return 1


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    if len(args) != 2:
        print("usage: lesson_check.py OMPREF SOURCE_DIR [--self-test]", file=sys.stderr)
        return 2
    ompref, root = args[0], Path(args[1])
    listing = json.loads(subprocess.run([ompref, "list", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
    if "--self-test" in sys.argv[1:]:
        return self_test(ompref, root, listing)
    problems = check(ompref, root, listing)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(listing)} variants, {sum(1 for v in listing if v['step_of'])} steps, "
          f"{sum(1 for v in listing if v['mirrors'])} pairs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
