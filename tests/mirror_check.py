#!/usr/bin/env python3
"""The mirror check: each workload's host/target pair is the same program.

The pairs are the registrations' own declarations: every variant whose
registration says `.mirror_of("host_<name>")` (`ompref list --json`, field
`mirrors`) pairs target_<name> with host_<name>, and both must be registered
in src/omp_target/<w>.cpp and src/omp_host/<w>.cpp. For every workload, the region between the lines `// mirror: begin`
and `// mirror: end` of src/omp_host/<w>.cpp and of src/omp_target/<w>.cpp is
extracted; from both, `#pragma omp` lines (with their `\\` continuations), the
device-argument line (`const int dev = ctx.device;`) and whole-line comments are
removed, the run context's name in a signature (`RunContext& ctx`: a host side
that does not read it leaves it unnamed) is dropped, and `host_` is read as
`target_`. Whatever differs after that fails the
check, with a unified diff. The pair's variants must be defined in the region.

    mirror_check.py OMPREF SOURCE_DIR [WORKLOAD...]             check the pairs (every registered workload
                                                                when none named; one without a pair fails)
    mirror_check.py OMPREF SOURCE_DIR --self-test [WORKLOAD...] show that a changed pair fails
"""
import difflib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

def declared_pairs(ompref):
    """workload -> the pair's variant names without host_/target_, from the registrations."""
    listing = json.loads(subprocess.run([ompref, "list", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
    files = {(v["workload"], v["variant"]): v["file"] for v in listing}
    pairs, problems = {}, []
    for v in listing:  # every registered workload, in the suite's order; each must declare a pair
        pairs.setdefault(v["workload"], [])
    for v in listing:
        if not v["mirrors"]:
            continue
        w, target, host = v["workload"], v["variant"], v["mirrors"]
        if not (target.startswith("target_") and host == "host_" + target[len("target_"):]):
            problems.append(f"{w} {target}: mirrors {host}, but a pair is target_<name> and host_<name>")
            continue
        for name, want in ((target, f"src/omp_target/{w}.cpp"), (host, f"src/omp_host/{w}.cpp")):
            if files.get((w, name)) != want:
                problems.append(f"{w} {name}: registered in {files.get((w, name), 'no file (not registered)')}, "
                                f"the pair's file is {want}")
        pairs.setdefault(w, []).append(target[len("target_"):])
    return pairs, problems


DEVICE_ARGUMENT = re.compile(r"^\s*const int dev = ctx\.device;\s*$")
RUN_CONTEXT_NAME = re.compile(r"\bRunContext& ctx\b")


def region(path):
    lines = path.read_text().splitlines()
    begins = [i for i, l in enumerate(lines) if l.strip() == "// mirror: begin"]
    ends = [i for i, l in enumerate(lines) if l.strip() == "// mirror: end"]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"{path}: needs exactly one '// mirror: begin' ... '// mirror: end' region")
    return lines[begins[0] + 1:ends[0]], begins[0] + 2


def normalise(lines, first_line, is_host):
    out = []  # (text, original line number)
    continuation = False
    for n, line in enumerate(lines, first_line):
        text = line.strip()
        if continuation or text.startswith("#pragma omp"):
            continuation = line.rstrip().endswith("\\")
            continue
        if DEVICE_ARGUMENT.match(line) or text.startswith("//"):
            continue
        line = RUN_CONTEXT_NAME.sub("RunContext&", line)
        if is_host:
            line = re.sub(r"\bhost_", "target_", line)
        out.append((line.rstrip(), n))
    return out


def check(source_dir, workload, names):
    host = source_dir / "src" / "omp_host" / f"{workload}.cpp"
    target = source_dir / "src" / "omp_target" / f"{workload}.cpp"
    problems = []
    try:
        host_lines, host_first = region(host)
        target_lines, target_first = region(target)
    except (OSError, ValueError) as e:
        return [str(e)]
    for name in names:
        if not any(re.search(rf"\bhost_{name}\(", l) for l in host_lines):
            problems.append(f"{host}: the pair's host_{name} is not defined in the mirror region")
        if not any(re.search(rf"\btarget_{name}\(", l) for l in target_lines):
            problems.append(f"{target}: the pair's target_{name} is not defined in the mirror region")
    h = normalise(host_lines, host_first, True)
    t = normalise(target_lines, target_first, False)
    if [x for x, _ in h] != [x for x, _ in t]:
        # Compared on the code alone; each differing line is shown with where it is.
        diff = []
        matcher = difflib.SequenceMatcher(a=[x for x, _ in h], b=[x for x, _ in t], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            diff += [f"- {host.name}:{n}: {x}" for x, n in h[i1:i2]]
            diff += [f"+ {target.name}:{n}: {x}" for x, n in t[j1:j2]]
        problems.append(f"{workload}: the pair differs beyond directives, device argument and mapping:\n"
                        + "\n".join(diff))
    return problems


def check_all(source_dir, workloads, PAIRS):
    problems = []
    for workload in workloads:
        names = PAIRS[workload]
        if not names:
            print(f"{workload}: declares no pair")
            problems.append(f"{workload}: no variant declares `.mirror_of(\"host_<name>\")`: every workload "
                            f"has its host/target pair in src/omp_host/{workload}.cpp and src/omp_target/{workload}.cpp")
            continue
        found = check(source_dir, workload, names)
        print(f"{workload}: {'differs' if found else 'mirrors'} ({', '.join(names)})")
        problems += found
    return problems


def self_test(source_dir, workloads, PAIRS):
    """A copy of each pair with one changed code line must fail the check."""
    failures = 0
    for workload in workloads:
        names = PAIRS[workload]
        if not names or check(source_dir, workload, names):
            print(f"{workload}: the pair itself differs or is not declared; no self-test")
            failures += 1
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for side in ("omp_host", "omp_target"):
                (root / "src" / side).mkdir(parents=True)
                src = source_dir / "src" / side / f"{workload}.cpp"
                (root / "src" / side / f"{workload}.cpp").write_text(src.read_text())
            path = root / "src" / "omp_target" / f"{workload}.cpp"
            lines = path.read_text().splitlines()
            begin = next(i for i, l in enumerate(lines) if l.strip() == "// mirror: begin")
            # The first plain code line after the region's start gets a changed
            # loop bound or statement: what a drifting port would do.
            for i in range(begin + 1, len(lines)):
                s = lines[i].strip()
                if s and not s.startswith(("//", "#pragma", "}")) and not DEVICE_ARGUMENT.match(lines[i]):
                    lines.insert(i + 1, "  (void)0;  // drift")
                    break
            path.write_text("\n".join(lines) + "\n")
            if check(root, workload, names):
                print(f"{workload}: a changed pair fails the check, as it must")
            else:
                print(f"{workload}: a changed pair PASSED the check")
                failures += 1
    # A registered workload that declares no pair (a new one) fails, never skipped.
    if check_all(source_dir, ["undeclared"], {"undeclared": []}):
        print("a workload that declares no pair fails the check, as it must")
    else:
        print("a workload that declares no pair PASSED the check")
        failures += 1
    return failures


def main():
    args = sys.argv[1:]
    self_testing = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if len(args) < 2:
        print("usage: mirror_check.py OMPREF SOURCE_DIR [--self-test] [WORKLOAD...]", file=sys.stderr)
        return 2
    PAIRS, problems = declared_pairs(args[0])
    unknown = [a for a in args[2:] if a not in PAIRS]
    if unknown:
        print(f"mirror_check.py: no workload {', '.join(unknown)} (registered: {', '.join(PAIRS)})",
              file=sys.stderr)
        return 2
    source_dir = Path(args[1])
    workloads = args[2:] or list(PAIRS)
    if self_testing:
        return 1 if self_test(source_dir, workloads, PAIRS) else 0
    problems += check_all(source_dir, workloads, PAIRS)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
