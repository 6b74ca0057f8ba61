#!/usr/bin/env python3
"""Writes the file:line references of docs/glossary.md from the sources.

Every `#pragma omp` line of the sources (with its `\\` continuations) is read in
reading order: the workloads in the suite's order (`ompref list --json`, the
order docs/learn.md teaches them in), each host file then each target file, then the rest of src/ (sorted),
then bench/ and examples/. For each glossary entry below, the first pragma that
matches the entry's pattern gives its reference. In the page, each `<!-- ref:KEY -->` marker is
followed, to the end of its line, by that generated text.

It also checks that the glossary is complete: every directive or clause word
that a pragma in src/ uses (outside parentheses) belongs to some entry.

    glossary_refs.py OMPREF SOURCE_DIR            rewrite the references in docs/glossary.md
    glossary_refs.py OMPREF SOURCE_DIR --check    exit 1, with a diff, when the page is stale or incomplete
"""
import argparse
import difflib
import json
import re
import subprocess
import sys
from pathlib import Path

PAGE = "docs/glossary.md"


def clause(name):
    """A clause with arguments: `name(`."""
    return (rf"\b{name}\s*\(", [name])


def construct(name, words=None):
    """A directive that opens the pragma: `#pragma omp name`."""
    return (rf"^{name}\b", words or [name])


def map_type(kind):
    """A map clause of one map type, after any modifiers: `map(kind:` or `map(always, kind:`."""
    return (rf"\bmap\s*\((?:[^():]*,)?\s*{kind}\s*:", ["map"])


# key -> (pattern on the pragma text after `#pragma omp`, directive/clause words the entry covers)
ENTRIES = {
    "target": (r"^target\b(?!\s+(data|enter|exit|update)\b)", ["target"]),
    "teams": (r"\bteams\b", ["teams"]),
    "distribute": (r"\bdistribute\b", ["distribute"]),
    "parallel-for": (r"\bparallel\s+for\b", ["parallel", "for"]),
    "parallel": (r"\bparallel\b(?!\s+for\b)", ["parallel"]),
    "simd": (r"\bsimd\b", ["simd"]),
    "collapse": clause("collapse"),
    "schedule": (r"(?<!dist_)\bschedule\s*\(", ["schedule"]),
    "dist_schedule": clause("dist_schedule"),
    "device": clause("device"),
    **{f"map-{kind}": map_type(kind) for kind in ("to", "from", "tofrom", "alloc", "release", "delete")},
    "always": (r"\bmap\s*\([^():]*\balways\b", ["map"]),
    "present": (r"\bmap\s*\([^():]*\b(present|PRESENT)\b", ["map"]),  # examples/: PRESENT, a macro for g++-12
    "target-data": (r"^target\s+data\b", ["target", "data"]),
    "target-enter-data": (r"^target\s+enter\s+data\b", ["target", "enter", "data"]),
    "target-exit-data": (r"^target\s+exit\s+data\b", ["target", "exit", "data"]),
    "target-update": (r"^target\s+update\b", ["target", "update", "to", "from"]),
    "declare-target": (r"^(begin\s+)?declare\s+target\b", ["declare", "target", "end"]),
    "declare-reduction": (r"^declare\s+reduction\b", ["declare", "initializer"]),
    "reduction": (r"(?<!declare )\breduction\s*\(", ["reduction"]),
    **{name: clause(name) for name in ("firstprivate", "default", "aligned", "num_teams", "thread_limit",
                                       "num_threads")},
    "nowait": (r"\bnowait\b", ["nowait"]),
    "task": (r"^task\b|^taskwait\b", ["task", "taskwait"]),
    "depend": clause("depend"),
    "atomic": construct("atomic", ["atomic", "update", "capture"]),
    **{name: construct(name) for name in ("critical", "single", "barrier", "flush", "masked")},
    **{name: clause(name) for name in ("is_device_ptr", "has_device_addr")},
    "use_device_ptr": (r"\buse_device_(ptr|addr)\s*\(", ["use_device_ptr", "use_device_addr"]),
    "ompx_attribute": (r"\bompx_attribute\s*\(|\bOMPREF_MAX_TEAM_THREADS\s*\(", ["ompx_attribute",
                                                                              "OMPREF_MAX_TEAM_THREADS"]),
}

MARKER = re.compile(r"(<!-- ref:([A-Za-z_-]+) -->)(.*)$")


def workloads_of(ompref):
    """The registered workloads in the suite's order, from `ompref list --json`."""
    listing = json.loads(subprocess.run([ompref, "list", "--json"], check=True, capture_output=True, text=True).stdout)
    order = []
    for v in listing:
        if v["workload"] not in order:
            order.append(v["workload"])
    return order


def reading_order(source, workloads):
    """The source files in reading order, then bench/ and examples/ (marked not in src/)."""
    src = source / "src"
    files, seen = [], set()

    def add(paths):
        for p in paths:
            if p.suffix in (".cpp", ".hpp", ".h", ".c") and p not in seen:
                seen.add(p)
                files.append(p)

    for w in workloads:
        add(sorted((src / "omp_host").glob(f"{w}*")))
        add(sorted((src / "omp_target").glob(f"{w}*")))
    for folder in ("omp_host", "omp_target", "common", "app", "mpi"):
        add(sorted((src / folder).rglob("*")))
    add(sorted(src.rglob("*")))
    in_src = len(files)
    add(sorted((source / "bench").rglob("*")))
    add(sorted((source / "examples").rglob("*")))
    return files, in_src


def pragmas(path):
    """(line number, text after `#pragma omp`) for every OpenMP pragma of the file."""
    lines = path.read_text(errors="replace").splitlines()
    out, i = [], 0
    while i < len(lines):
        text = lines[i].strip()
        if text.startswith("#pragma omp"):
            start = i + 1
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1] + " " + lines[i].strip()
            out.append((start, text[len("#pragma omp"):].strip()))
        i += 1
    return out


def outside_parentheses(text):
    depth, out = 0, []
    for ch in text:
        if ch == "(":
            depth += 1
            out.append(" ")
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def references(source, workloads):
    files, in_src = reading_order(source, workloads)
    first, uncovered = {}, {}
    covered = {w for _, words in ENTRIES.values() for w in words}
    for index, path in enumerate(files):
        rel = path.relative_to(source).as_posix()
        for line, text in pragmas(path):
            for key, (pattern, _) in ENTRIES.items():
                if re.search(pattern, text):
                    first.setdefault(key, (rel, line, index < in_src))
            if index < in_src:
                for word in re.findall(r"[A-Za-z_]+", outside_parentheses(text)):
                    if word not in covered:
                        uncovered.setdefault(word, f"{rel}:{line}")
    return first, uncovered


def text_for(key, first):
    if key not in first:
        return " not used in src/, bench/ or examples/."
    rel, line, in_src = first[key]
    where = f"[{rel}:{line}](../{rel}#L{line})"
    if in_src:
        return f" first in {where}."
    return f" not used in src/; first in {where}."


def render(source, workloads):
    page = (source / PAGE).read_text()
    first, uncovered = references(source, workloads)
    problems = [f"`{w}` (first at {at}) belongs to no glossary entry: add one to scripts/glossary_refs.py"
                for w, at in sorted(uncovered.items())]
    seen, lines = set(), []
    for line in page.splitlines(keepends=True):
        m = MARKER.search(line)
        if m:
            key = m.group(2)
            if key not in ENTRIES:
                problems.append(f"{PAGE}: marker for unknown entry '{key}'")
            else:
                seen.add(key)
                end = "\n" if line.endswith("\n") else ""
                line = line[:m.start()] + m.group(1) + text_for(key, first) + end
        lines.append(line)
    problems += [f"{PAGE}: no paragraph (marker <!-- ref:{k} -->) for entry '{k}'" for k in ENTRIES if k not in seen]
    return "".join(lines), page, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ompref", help="the ompref program (its `list --json` gives the workloads)")
    parser.add_argument("source_dir", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not (args.source_dir / PAGE).is_file():
        print(f"glossary_refs.py: no {PAGE} under {args.source_dir}", file=sys.stderr)
        return 2
    new, old, problems = render(args.source_dir, workloads_of(args.ompref))
    for p in problems:
        print(f"glossary_refs.py: {p}", file=sys.stderr)
    if args.check:
        if new != old:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), PAGE, "regenerated"))
            print("glossary_refs.py: the references are stale: run scripts/glossary_refs.py . and commit",
                  file=sys.stderr)
            return 1
        return 1 if problems else 0
    (args.source_dir / PAGE).write_text(new)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
