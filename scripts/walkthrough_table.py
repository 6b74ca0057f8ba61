#!/usr/bin/env python3
"""Writes docs/learn.md's timed walkthrough (between `<!-- walkthrough:begin
DIR -->` and `<!-- walkthrough:end -->`) from DIR's timings.tsv and
machine.txt, as scripts/fresh-walkthrough.sh wrote them: one row per step,
its seconds and the seconds since the clone began, and the first PASS of
each episode.

It also holds the measurement to the page: the steps must be the page's host
commands of those episodes now, in order, each with the exit status the page
gives it (`# exits N`, else 0). Where a command changed, the table is stale:
measure again (scripts/fresh-walkthrough.sh DIR EPISODE...) and rewrite.

    walkthrough_table.py SOURCE_DIR           rewrite the table in SOURCE_DIR/docs/learn.md
    walkthrough_table.py SOURCE_DIR --check   exit 1, with a diff, where the page differs
                                              from what it would write, or the steps from
                                              the page's commands

Exit 2, with one line, on bad input (no markers, no such file, a malformed
line), before anything is written.
"""
import difflib
import re
import sys
from pathlib import Path

BEGIN = re.compile(r"^<!-- walkthrough:begin (\S+) -->$", re.M)
END = "<!-- walkthrough:end -->"
HOST = "# runs on the host"
EXITS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")
COLUMNS = ["seconds", "total", "exit", "PASS", "episode", "command"]


class BadInput(Exception):
    pass


def page_commands(text, episode):
    """The host commands of the page's section `## EPISODE.`, as scripts/walkthrough.sh reads them."""
    out, in_episode, block, host, first = [], False, False, False, False
    for line in text.splitlines():
        if line.startswith("## "):
            in_episode = line.split()[1] == f"{episode}."
        if not in_episode:
            continue
        if not block and line.startswith("```sh"):
            block, first = True, True
        elif block and line.startswith("```"):
            block = False
        elif block and first:
            first, host = False, line.startswith(HOST)
        elif block and host and line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
    return out


def read_steps(folder):
    path = folder / "timings.tsv"
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise BadInput(f"cannot read {path} ({e.strerror})")
    if not lines or lines[0].split("\t") != COLUMNS:
        raise BadInput(f"{path}: not scripts/walkthrough.sh's output (header {COLUMNS})")
    steps = []
    for n, line in enumerate(lines[1:], 2):
        cells = line.split("\t", 5)
        try:
            steps.append({"seconds": float(cells[0]), "total": float(cells[1]), "exit": int(cells[2]),
                          "passes": int(cells[3]), "episode": cells[4], "command": cells[5]})
        except (ValueError, IndexError):
            raise BadInput(f"{path}:{n}: not six tab-separated fields (seconds total exit PASS episode command)")
    if not steps or steps[0]["episode"] != "-" or not steps[0]["command"].startswith("git clone"):
        raise BadInput(f"{path}: the first step is not the clone")
    return steps


def read_machine(folder):
    path = folder / "machine.txt"
    try:
        pairs = [l.split(": ", 1) for l in path.read_text().splitlines() if ": " in l]
    except OSError as e:
        raise BadInput(f"cannot read {path} ({e.strerror})")
    machine = dict(pairs)
    for key in ("commit", "start", "nproc", "load average before", "load average after", "apt fetched"):
        if key not in machine:
            raise BadInput(f"{path}: no '{key}: ' line")
    return machine


def stale(text, steps):
    """What differs between the measured steps and the page's commands now."""
    episodes = list(dict.fromkeys(s["episode"] for s in steps[1:]))
    want = [(e, c) for e in episodes for c in page_commands(text, e)]
    have = [(s["episode"], s["command"]) for s in steps[1:]]
    problems = []
    if want != have:
        problems += [l for l in difflib.unified_diff([f"{e}: {c}" for e, c in have], [f"{e}: {c}" for e, c in want],
                                                     "measured", "docs/learn.md now", lineterm="")]
    for s in steps:
        m = EXITS.search(s["command"])
        if s["exit"] != (int(m.group(1)) if m else 0):
            problems.append(f"exit {s['exit']}: {s['command']}")
    return problems


def minutes(seconds):
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def render(folder_name, steps, machine):
    rows = ["| episode | command | seconds | since the clone began |", "|---|---|---:|---:|"]
    firsts = {}
    for s in steps:
        command = "git clone … ompref" if s["episode"] == "-" else s["command"]
        command = EXITS.sub("", command)
        mark = ""
        if s["passes"] and s["episode"] not in firsts:
            firsts[s["episode"]] = s
            mark = " (first PASS)"
        rows.append(f"| {s['episode']} | `{command}`{mark} | {s['seconds']:.1f} | {s['total']:.1f} |")
    setup = max(steps, key=lambda s: s["seconds"])
    lines = rows + ["",
                    f"Measured {machine['start'][:10]} at commit {machine['commit']} on a fresh Debian 12 root "
                    f"(minbase with git and ca-certificates) on {machine['nproc']} cores shared with other work (load average "
                    f"{machine['load average before'].split()[0]} before and "
                    f"{machine['load average after'].split()[0]} after); apt fetched {machine['apt fetched']}. "
                    "The first PASS of " + "; of ".join(
                        f"episode {e}: {minutes(s['total'])} after the clone began" for e, s in firsts.items())
                    + f". The longest step, `{EXITS.sub('', setup['command'])}`, took {minutes(setup['seconds'])}. "
                    f"How it ran, and how to run it again: [{folder_name}]({'../' + folder_name + '/'})."]
    return "\n".join(lines)


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(args[0]).resolve()
    page = source / "docs" / "learn.md"
    try:
        text = page.read_text()
        begin = BEGIN.search(text)
        if not begin or END not in text[begin.end():]:
            raise BadInput(f"{page}: no '<!-- walkthrough:begin DIR -->' ... '{END}' markers")
        folder_name = begin.group(1).rstrip("/")
        folder = source / folder_name
        steps, machine = read_steps(folder), read_machine(folder)
    except (BadInput, OSError) as e:
        print(f"walkthrough_table.py: {e}", file=sys.stderr)
        return 2
    end = text.index(END, begin.end())
    new = text[:begin.end()] + "\n" + render(folder_name, steps, machine) + "\n" + text[end:]
    problems = stale(text, steps)
    if problems:
        print(f"walkthrough_table.py: {folder_name} measured other commands than docs/learn.md gives now, "
              "or one exited otherwise: measure again (scripts/fresh-walkthrough.sh)\n" + "\n".join(problems))
        return 1
    if "--check" in sys.argv:
        if new != text:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       "docs/learn.md", "docs/learn.md as written"))
            return 1
        print(f"docs/learn.md's timed walkthrough is {folder_name}'s, {len(steps)} steps, the page's commands")
        return 0
    if new != text:
        page.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
