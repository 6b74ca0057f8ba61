#!/usr/bin/env python3
"""The toolchain matrix: compiler x variant -> valid, median time, figure of
merit, fraction of the ceiling, from `ompref` JSON files (one or more per
compiler: `ompref check --json`, `ompref run all --json`). Prints Markdown.

    scripts/toolchain_matrix.py clang.json gcc.json [more.json ...] > matrix.md

A column per build (the JSON's "compiler", its device-code mode and any
workaround flags); a row per workload, variant and size; a cell says PASS or
FAIL, the median time, the figure of merit and, where the file has one, the
fraction of the ceiling measured by the same process. Runs present for one
build only show "-" for the others. Below the table, each build's target
variants against the first build's: the geometric mean of the speed ratios
over the target runs valid on a device in both, and whether the two builds
compile device code on equal terms (both optimise each kernel together with
the device runtime as one closed program: JIT, device LTO, device LTO of each
file, or gcc's link-time offload compile) or not (one per file, where the
runtime's team state stays in every kernel). Exit status 2 with
one line for an unreadable file."""
import json
import math
import sys

# Device-code modes that optimise each kernel together with the device runtime
# as one closed program (the whole program's device code: lto, jit; each
# file's: file-lto, file-jit); "per-file" compiles each file's device code alone and
# leaves the runtime's team state in every kernel (docs/toolchains.md).
CLOSED_PROGRAM = {"lto", "jit", "file-lto", "file-jit"}


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        doc["runs"]
        return doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(print(f"toolchain_matrix.py: {path}: not an ompref result file ({e})", file=sys.stderr) or 2)


def device_code(doc):
    """The build's device-code mode: its provenance, or for files written
    before the provenance named it, what its offload line implies."""
    prov = doc.get("provenance", {})
    if prov.get("device_code"):
        return prov["device_code"]
    offload = doc.get("offload", "")
    if "no offload" in offload:
        return "host"
    if "nvptx-jit" in offload:
        return "jit"
    if doc.get("compiler", "").startswith("g++"):
        return "lto"
    return "per-file"


def column_name(doc):
    name = f"{doc.get('compiler', '?')}, device code {device_code(doc)}"
    workaround = doc.get("provenance", {}).get("device_workarounds")
    return name + (f", {workaround}" if workaround else "")


def on_device(run):
    return run.get("kind") != "host" and "(device" in run.get("ran_on", "")


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
    columns, table, modes = [], {}, {}
    for path in paths:
        doc = load(path)
        name = column_name(doc)
        modes[name] = device_code(doc)
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
    if len(columns) < 2:
        return
    base = columns[0]
    print(f"\nTarget variants against {base} (geometric mean of its median time over each build's, "
          "runs valid on a device in both):\n")
    print("| build | target runs | speed vs first build | device code |")
    print("|---|---|---|---|")
    for c in columns[1:]:
        ratios = [math.log(runs[base]["time_s"]["median"] / runs[c]["time_s"]["median"])
                  for key, runs in table.items()
                  if key[1].startswith("target_") and base in runs and c in runs
                  and all(r.get("valid") and on_device(r) and r["time_s"]["median"] > 0
                          for r in (runs[base], runs[c]))]
        ratio = f"{math.exp(sum(ratios) / len(ratios)):.3f}" if ratios else "-"
        equal = modes[base] in CLOSED_PROGRAM and modes[c] in CLOSED_PROGRAM or modes[base] == modes[c]
        terms = ("equal terms" if equal else "NOT equal terms") + f" ({modes[base]} vs {modes[c]})"
        print(f"| {c} | {len(ratios)} | {ratio} | {terms} |")


if __name__ == "__main__":
    main(sys.argv[1:])
