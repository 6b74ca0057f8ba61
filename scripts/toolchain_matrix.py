#!/usr/bin/env python3
"""The toolchain matrix: compiler x variant -> valid, median time, figure of
merit, fraction of the ceiling, from `ompref` JSON files (one or more per
compiler: `ompref check --json`, `ompref run all --json`). Prints Markdown.

    scripts/toolchain_matrix.py clang.json gcc.json [more.json ...] > matrix.md

A column per compiler (the JSON's "compiler" and "offload"); a row per
workload, variant and size; a cell says PASS or FAIL, the median time, the
figure of merit and, where the file has one, the fraction of the ceiling
measured by the same process. Runs present for one compiler only show "-"
for the others. Exit status 2 with one line for an unreadable file."""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        doc["runs"]
        return doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(print(f"toolchain_matrix.py: {path}: not an ompref result file ({e})", file=sys.stderr) or 2)


def cell(run):
    verdict = "PASS" if run.get("valid") else "**FAIL**"
    where = "" if run.get("kind") == "host" or "(device" in run.get("ran_on", "") else " (on the host)"
    t = run["time_s"]["median"]
    fom = run.get("fom", {})
    text = f"{verdict} {t:.3g} s, {fom.get('value', 0):.4g} {fom.get('name', '')}{where}"
    frac = run.get("ceiling_fraction")
    if isinstance(frac, (int, float)):
        text += f", {frac:.2f} of ceiling"
    return text


def main(paths):
    if not paths:
        sys.exit(print("usage: toolchain_matrix.py RESULT.json [...]", file=sys.stderr) or 2)
    columns, table = [], {}
    for path in paths:
        doc = load(path)
        name = f"{doc.get('compiler', '?')} ({doc.get('offload', '?')})"
        if name not in columns:
            columns.append(name)
        for run in doc["runs"]:
            key = (run["workload"], run["variant"], run.get("size", ""))
            table.setdefault(key, {})[name] = run
    print("| workload | variant | size | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    for key in table:
        cells = [cell(table[key][c]) if c in table[key] else "-" for c in columns]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    failed = sum(1 for runs in table.values() for r in runs.values() if not r.get("valid"))
    total = sum(len(runs) for runs in table.values())
    print(f"\n{total} runs, {failed} failed validation.")


if __name__ == "__main__":
    main(sys.argv[1:])
