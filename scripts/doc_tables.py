#!/usr/bin/env python3
"""Writes each workload page's table of steps (docs/<workload>.md, between
`<!-- table:begin -->` and `<!-- table:end -->`) from one result file of
`ompref run all --json` and the registrations (`ompref list --json`).

One row per host and target variant of the workload's pair and steps, each
after the step it follows: the step, the `diff` that shows it
against the step it follows (`step_of`, or the host variant it mirrors), the
registration's sentence, the median time, the speedup over that step (only
where both ran the same work: the same size and parameters), and the run's
fractions of the triad ceiling, of the FP64 rate and of its CUDA twin, as the
result file records them (ceiling_fraction, fp64_fraction, native_fraction).
Under the table: the device, build and commit of the file.

    doc_tables.py OMPREF SOURCE_DIR [--json RESULT]     rewrite the tables in SOURCE_DIR/docs
    doc_tables.py OMPREF SOURCE_DIR --check [--json RESULT]
                                                         write them into a temporary copy of the
                                                         pages; exit 1, with a diff, where one differs,
                                                         or where a step slower than the one it
                                                         follows (below 1.00x) is not named in its
                                                         page's "Where a step is slower than the
                                                         one before" section
RESULT is relative to SOURCE_DIR unless absolute; its default is RESULT below.
A build that left a step out (a compiler that rejects its file) cannot give
the tables: --check then exits 77 (skipped), a rewrite 2.
Exit 2, with one line, on bad input (no such file, not a result file, a page
without its markers), before any page is written.
"""
import argparse
import difflib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

# The measurement the pages show: `ompref run all` of the default GPU build
# (`gpu-aot-safe`: clang-22 ahead of time, file-lto device code, the
# -fno-strict-aliasing workaround) on one H200 (README.md beside it says how
# it ran). Replace it with a newer run-all result file of a GPU
# build to refresh every table.
RESULT = "results/h200/toolchains/device-code-ebbd4aa/file-lto-all.json"
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"
PAIR_FOLDERS = ("src/omp_host/", "src/omp_target/")


class BadInput(Exception):
    pass


class LeftOut(Exception):
    """The build did not compile every step: its registrations cannot give the tables."""


SKIPPED = 77  # CTest's SKIP_RETURN_CODE for doc_tables (tests/CMakeLists.txt)


def load_result(path):
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read {path} as JSON ({e.__class__.__name__})")
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list) or "provenance" not in data:
        raise BadInput(f"{path} is not a result file of `ompref run --json` (no runs or provenance)")
    return data


def registrations(ompref):
    run = subprocess.run([ompref, "list", "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise BadInput(f"`{ompref} list --json` exited {run.returncode}")
    listing = json.loads(run.stdout)
    missing = [v["variant"] for v in listing if not v.get("compiled", True) and v["file"].startswith(PAIR_FOLDERS)]
    if missing:
        raise LeftOut(f"this build left out {', '.join(missing)}: the tables need a build that compiles every step")
    return listing


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def predecessor(v):
    return v.get("step_of") or v.get("mirrors") or ""


def diff_text(v, by_name):
    pred = by_name.get(predecessor(v))
    if pred is None:
        return "(the host baseline)" if v["kind"] == "host" else "(first step)"
    if pred["file"] == v["file"]:
        return f"(in `{v['file']}`, beside {pred['variant']})"
    return f"`diff -u {pred['file']} {v['file']}`"


def speedup_text(v, run, runs):
    prev = predecessor(v)
    if not prev:
        return ""
    if run is None:
        return "-"
    other = runs.get(prev)
    if other is None:
        return f"- ({prev} not in this run)"
    if other.get("size") != run.get("size"):
        return f"- (sizes differ: {other.get('size')}, {run.get('size')})"
    a, b = other.get("params") or {}, run.get("params") or {}
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if keys:
        return f"- (parameters differ: {', '.join(keys)})"
    return f"{other['time_s']['median'] / run['time_s']['median']:.2f}x"


def fraction(run, field):
    value = (run or {}).get(field)
    return f"{value:.3f}" if isinstance(value, (int, float)) else "-"


def in_step_order(variants):
    """Each variant after the step it follows: depth first from the roots, siblings in listing order."""
    names = {v["variant"] for v in variants}
    children = {}
    for v in variants:
        children.setdefault(predecessor(v) if predecessor(v) in names else "", []).append(v)
    out = []

    def visit(parent):
        for v in children.get(parent, []):
            out.append(v)
            visit(v["variant"])
    visit("")
    return out


def table(workload, listing, data, result_name):
    variants = in_step_order([v for v in listing if v["workload"] == workload and v["file"].startswith(PAIR_FOLDERS)])
    by_name = {v["variant"]: v for v in variants}
    runs = {r["variant"]: r for r in data["runs"] if r.get("workload") == workload}
    lines = ["| step | diff | what changes | median (s) | vs the step before | of triad ceiling "
             "| of FP64 rate | of CUDA twin |", "|---|---|---|---:|---|---:|---:|---:|"]
    absent = []
    for v in variants:
        run = runs.get(v["variant"])
        if run is None:
            absent.append(v["variant"])
        time = f"{run['time_s']['median']:.4g}" if run else "not run"
        ok = "" if run is None or run.get("valid") else " (FAIL)"
        lines.append(f"| `{v['variant']}` | {diff_text(v, by_name)} | {cell(v['sentence'])} | {time}{ok} "
                     f"| {speedup_text(v, run, runs)} | {fraction(run, 'ceiling_fraction')} "
                     f"| {fraction(run, 'fp64_fraction')} | {fraction(run, 'native_fraction')} |")
    prov = data["provenance"]
    sizes = sorted({r.get("size", "?") for r in runs.values()})
    devices = ", ".join(d.get("name", "?") for d in data.get("devices", [])) or "no device"
    lines += ["", f"Measured by `{portable_command(prov.get('command_line', 'ompref run all'))}` on {devices} "
              f"({data.get('host', {}).get('threads', '?')} host threads), size {', '.join(sizes)}: "
              f"build {prov.get('compiler', '?')} ({data.get('offload', '?')}), commit "
              f"{prov.get('git_describe', '?')}, {prov.get('date', '?')[:10]}; the file: `{result_name}`. "
              "Fractions as the file records them: the median's rate over the place's triad, over its FP64 "
              "rate, and over the CUDA twin's (`native_fraction`)."]
    if absent:
        lines.append(f"Not in that file (registered since): {', '.join(absent)}.")
    return "\n".join(lines)


def portable_command(command_line):
    """The command as a reader would type it: `ompref` for the program, and a
    file name for each absolute path (no folder of the machine it ran on)."""
    try:
        words = shlex.split(command_line)
    except ValueError:
        words = command_line.split()
    if not words:
        return "ompref run all"
    words[0] = "ompref"
    return " ".join(shlex.quote(os.path.basename(w)) if w.startswith("/") else shlex.quote(w) for w in words)


def rewrite(page, text_of_table):
    text = page.read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise BadInput(f"{page} needs one '{BEGIN}' line and one '{END}' line after it")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{text_of_table}\n{END}{tail}"


SLOWER_HEADING = "### Where a step is slower than the one before"


def unexplained_slower_steps(text):
    """The steps of a page's table slower than the step they follow (below
    1.00x) whose name the page's SLOWER_HEADING section does not give."""
    begin, end = text.find("<!-- table:begin -->"), text.find("<!-- table:end -->")
    slower = []
    for line in text[begin:end].splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 5 and cells[1].startswith("`") and cells[5].endswith("x"):
            try:
                if float(cells[5][:-1]) < 1.0:
                    slower.append(cells[1].strip("`"))
            except ValueError:
                pass
    at = text.find(SLOWER_HEADING)
    section = ""
    if at >= 0:
        rest = text[at + len(SLOWER_HEADING):]
        stop = min([i for i in (rest.find("\n## "), rest.find("\n### ")) if i >= 0], default=len(rest))
        section = rest[:stop]
    return [name for name in slower if f"`{name}`" not in section]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ompref")
    parser.add_argument("source_dir", type=Path)
    parser.add_argument("--json", default=RESULT, help=f"a result file of `ompref run all --json` (default {RESULT})")
    parser.add_argument("--check", action="store_true", help="compare with the pages instead of writing them")
    args = parser.parse_args()
    root = args.source_dir.resolve()
    result = Path(args.json) if os.path.isabs(args.json) else root / args.json
    try:
        data = load_result(result)
        listing = registrations(args.ompref)
        name = os.path.relpath(result, root) if str(result).startswith(str(root) + os.sep) else str(result)
        pages = {root / "docs" / f"{w}.md": rewrite(root / "docs" / f"{w}.md", table(w, listing, data, name))
                 for w in dict.fromkeys(v["workload"] for v in listing)}
    except BadInput as e:
        print(f"doc_tables.py: {e}", file=sys.stderr)
        return 2
    except LeftOut as e:
        print(f"doc_tables.py: {e}", file=sys.stderr)
        return SKIPPED if args.check else 2
    if not args.check:
        for page, text in pages.items():
            with tempfile.NamedTemporaryFile("w", dir=page.parent, delete=False, suffix=".tmp") as f:
                f.write(text)
            os.replace(f.name, page)  # whole or not at all
        print(f"doc_tables.py: wrote the tables of {len(pages)} pages from {name}")
        return 0
    stale = 0
    with tempfile.TemporaryDirectory() as tmp:
        for page, text in pages.items():
            copy = Path(tmp) / page.name
            copy.write_text(text)
            old = page.read_text().splitlines()
            new = copy.read_text().splitlines()
            if old != new:
                stale += 1
                sys.stdout.writelines(line + "\n" for line in difflib.unified_diff(
                    old, new, str(page), f"{page} as {name} and the registrations give it", lineterm=""))
    print(f"doc_tables.py: {len(pages) - stale} tables current, {stale} stale "
          f"(regenerate: scripts/doc_tables.py OMPREF . --json {name})")
    # A step slower than the one it follows needs its measured reason on its page.
    unexplained = 0
    for page, text in pages.items():
        for step in unexplained_slower_steps(text):
            unexplained += 1
            print(f"doc_tables.py: {page.name}: `{step}` is slower than the step it follows and "
                  f"\"{SLOWER_HEADING[4:]}\" does not name it")
    return 1 if stale or unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
