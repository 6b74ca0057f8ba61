#!/usr/bin/env python3
"""Every repository path the project writes down exists.

Checks, in every tracked *.md file, each path in backticks, and in every source
file (C++, CUDA, CMake, Python, shell), each path in a comment, that starts
with one of the repository's top-level folders. Paths with placeholders
(`<w>`, `*`, `{a,b}`, `$VAR`, `...`) are patterns, not paths, and are skipped;
paths that a run creates are in ALLOWED with the reason. Also checks that
DESIGN.md's layout names every folder under src/, and that no page of docs/
names a folder of a particular machine (/tmp, /root, /home, /work, /scratch).

    paths_check.py SOURCE_DIR
"""
import re
import subprocess
import sys
from pathlib import Path

TOP = ("src", "scripts", "docs", "tests", "results", "inputs", "bench", "cmake", "examples", "exercises",
       ".ci", ".gpu", ".toolchains")
# Paths that exist only once something has run, each with why.
ALLOWED = {
    ".gpu": "written by scripts/gpu-bundle.sh (git-ignored)",
    ".toolchains": "written by scripts/setup.sh for the clang-22 presets (git-ignored)",
    "docs/images/report": "written by `ompref report --out docs/images/report` in the report's own example",
}
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w/])" % "|".join(re.escape(t) for t in TOP))
PATTERN_CHARS = set("<>*{}$[]")
# Folders of a particular machine (a home, a scratch or work folder), not of an installation.
MACHINE_PATH = re.compile(r"(?<![\w.-])/(?:tmp|root|home|work|scratch)/[\w./+-]*")
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".c", ".h", ".py", ".sh", ".cmake", ".txt"}


def candidates(text, in_markdown):
    if in_markdown:
        for span in re.findall(r"`([^`\n]+)`", text):
            for m in PATH.finditer(span):
                if set(span[m.end():m.end() + 2]) & PATTERN_CHARS:
                    continue
                yield m.group(1)
    else:
        for line in text.splitlines():
            s = line.strip()
            comment = None
            if s.startswith(("//", "#")) and not s.startswith(("#include", "#pragma", "#!")):
                comment = s
            elif "//" in line:
                comment = line[line.index("//"):]
            if comment is None:
                continue
            for m in PATH.finditer(comment):
                if set(comment[m.end():m.end() + 2]) & PATTERN_CHARS:
                    continue
                yield m.group(1)


def exists(root, path):
    path = path.rstrip(".")
    if any(c in path for c in PATTERN_CHARS) or "..." in path:
        return True
    if any(path == a or path.startswith(a + "/") for a in ALLOWED):
        return True
    return (root / path).exists()


def main():
    if len(sys.argv) != 2:
        print("usage: paths_check.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout (an unpacked archive): every file under the root
        files = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "build" not in p.parts[0]]
    problems = []
    checked = 0
    for name in files:
        p = root / name
        md = p.suffix == ".md"
        if not md and p.suffix not in SOURCE_SUFFIXES and p.name != "CMakeLists.txt":
            continue
        if name.startswith("results/") or name.startswith("tests/data/"):
            continue  # results' own READMEs describe where they were made
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        for path in candidates(text, md):
            checked += 1
            if not exists(root, path):
                problems.append(f"{name}: `{path}` does not exist")
    # The docs name no folder of a machine they were written or measured on.
    for name in files:
        if name.startswith("docs/") and name.endswith(".md") and "/" not in name[len("docs/"):]:
            for n, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1):
                for m in MACHINE_PATH.finditer(line):
                    problems.append(f"{name}:{n}: a machine's path `{m.group(0)}`")
    design = (root / "DESIGN.md").read_text()
    layout = design[design.find("## Layout"):]
    layout = layout[:layout.find("\n## ", 3)]
    for d in sorted(p for p in (root / "src").rglob("*") if p.is_dir()):
        rel = d.relative_to(root).as_posix()
        if rel + "/" not in layout and f"{rel} " not in layout:
            problems.append(f"DESIGN.md: the layout does not name {rel}/")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{checked} paths checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
