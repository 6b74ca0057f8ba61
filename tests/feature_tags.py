#!/usr/bin/env python3
"""The feature tags of the registrations (Variant::uses, `ompref list --json`)
against the source files: every OpenMP feature a grep can see is tagged where
the code has it, and only there.

For each variant, its text is its run function (`void <variant>(`, found in
its file, comments removed, `#pragma` lines joined across their
continuations), or its whole file where no such function is. A target
variant also has `declare target` where its file or the headers it includes
from src/common/<workload>/ have one (the device functions it calls are
declared there). `declare reduction` counts where the text reduces with one
its file or headers declare; over a class type it is also a `struct reduction`.

  tagged F   => the variant's text has F          (each variant)
  text has F => the variant is tagged F           (where its text is its run
                function, or its file registers only it); otherwise some
                variant of that file is tagged F

Native variants (CUDA) use no OpenMP feature and declare none. An untagged
host or target variant fails the test, which prints the tags its text gives,
to paste into its registration. Features a grep cannot see (multiple devices,
omp_target_alloc through a helper...) are only checked to be known names.

It also checks cmake/step_variants.cmake, which names the variants of a file
the build could not compile without compiling it: for every compiled file,
it must find exactly the variants the registrations list.

usage: feature_tags.py OMPREF SOURCE_DIR CMAKE [PREFIX]
(PREFIX: only the files whose path from the source root starts with it, as
src/mpi/: the variants only an MPI build registers)"""
import json
import os
import re
import subprocess
import sys

PRAGMA_FEATURES = {
    "parallel for": r"#pragma omp (parallel for|for)\b",
    "target teams distribute parallel for": r"#pragma omp target teams distribute parallel for\b",
    "target teams loop": r"#pragma omp target teams loop\b",
    "teams distribute": r"#pragma omp target teams distribute(?! parallel)\b",
    "simd": r"#pragma omp [^\n]*\bsimd\b",
    "collapse": r"#pragma omp [^\n]*\bcollapse\(",
    "declare target": r"#pragma omp (begin )?declare target\b",
    "reduction": r"#pragma omp (?!declare)[^\n]*\breduction\(",
    "array reduction": r"#pragma omp [^\n]*\breduction\([^:)]*:[^)]*\[",
    "atomic": r"#pragma omp atomic\b",
    "map(alloc)": r"#pragma omp [^\n]*\bmap\(alloc\b",
    "target enter/exit data": r"#pragma omp target (enter|exit) data\b",
    "target update": r"#pragma omp target update\b",
    "target data": r"#pragma omp target data\b",
    "nowait": r"#pragma omp [^\n]*\bnowait\b",
    "depend": r"#pragma omp [^\n]*\bdepend\(",
    "taskwait": r"#pragma omp taskwait\b",
    "thread_limit": r"#pragma omp [^\n]*\bthread_limit\(",
    "num_teams": r"#pragma omp [^\n]*\bnum_teams\(",
    "num_threads": r"#pragma omp [^\n]*\bnum_threads\(",
    "schedule": r"#pragma omp [^\n]*\bschedule\(",
    "ompx_attribute": r"\bompx_attribute\(",
    "is_device_ptr": r"#pragma omp [^\n]*\bis_device_ptr\(",
    "omp_target_alloc": r"\bomp_target_alloc\(",
}
SCALARS = {"double", "float", "int", "long", "unsigned", "std::size_t", "size_t"}


def clean(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\\\n\s*", " ", text)  # a directive's continuation lines joined
    return text


def headers(path, src, workload, seen):
    """The headers `path` includes from src/common/<workload>/, transitively."""
    out = []
    for inc in re.findall(r'#include "([^"]+)"', open(path).read()):
        if inc.startswith(f"common/{workload}/") and inc not in seen:
            seen.add(inc)
            full = os.path.join(src, inc)
            out.append(full)
            out += headers(full, src, workload, seen)
    return out


def body_of(text, name):
    """The definition of the function `name` in text (from its name to its
    closing brace), or None."""
    m = re.search(r"^[A-Za-z][^\n;{}()]*\b" + re.escape(name) + r"\s*\(", text, flags=re.M)
    if not m:
        return None
    at = text.find("{", m.end())
    if at < 0 or ";" in text[m.end():at].replace("for (", ""):
        return None
    depth = 0
    for i in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[m.start():i + 1]
    return None


def run_function_text(text, name):
    """The variant's run function (named as the variant in every file here)
    with every function of the same file it calls, transitively; None where
    the file has no such function."""
    defined = set(re.findall(r"^[A-Za-z][^\n;{}()]*?\b(\w+)\s*\(", text, flags=re.M))
    first = body_of(text, name)
    if first is None:
        return None
    seen, todo, parts = {name}, [first], [first]
    while todo:
        for callee in re.findall(r"\b(\w+)\s*(?:<[^;(){}]*>)?\s*\(", todo.pop()):
            if callee in defined and callee not in seen:
                seen.add(callee)
                b = body_of(text, callee)
                if b is not None:
                    parts.append(b)
                    todo.append(b)
    return "\n".join(parts)


def features_of(variant, root):
    """The features a grep sees in the variant's run function (its whole file
    where the function is not found), and whether it was the function."""
    path = os.path.join(root, variant["file"])
    full = clean(open(path).read())
    body = run_function_text(full, variant["variant"])
    text = body if body is not None else full
    found = {f for f, rx in PRAGMA_FEATURES.items() if re.search(rx, text)}
    included = [clean(open(h).read()) for h in headers(path, os.path.join(root, "src"), variant["workload"], set())]
    udrs = {}
    for t in [full] + included:
        for name, typ in re.findall(r"#pragma omp declare reduction\(\s*(\w+)\s*:\s*([^:]+?)\s*:", t):
            udrs[name] = typ
    used = [n for n in udrs if re.search(r"#pragma omp (?!declare)[^\n]*\breduction\(\s*" + n + r"\s*:", text)]
    if used or (body is None and re.search(r"#pragma omp declare reduction\b", full)):
        found.add("declare reduction")
    if any(udrs[n] not in SCALARS for n in used):
        found.add("struct reduction")
    if variant["kind"] == "target" and any(re.search(PRAGMA_FEATURES["declare target"], t) for t in [full] + included):
        found.add("declare target")
    return found, body is not None


def main():
    ompref, root, cmake = sys.argv[1], sys.argv[2], sys.argv[3]
    prefix = sys.argv[4] if len(sys.argv) > 4 else ""
    listed = json.loads(subprocess.run([ompref, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    feature_lines = subprocess.run([ompref, "list", "--features"], capture_output=True, text=True,
                                   check=True).stdout.splitlines()
    order = [re.sub(r"(?: \(not a known feature.*\))?: \d+ variants?.*$", "", l) for l in feature_lines
             if not l.startswith("(no features declared)")]
    in_order = lambda features: sorted(features, key=lambda f: order.index(f) if f in order else len(order))
    problems, untagged = [], []
    for line in feature_lines:
        if "(not a known feature" in line:
            problems.append(f"unknown feature name: {line}")
    by_file = {}
    listed = [v for v in listed if v["file"].startswith(prefix)]
    for v in listed:
        if v.get("compiled", True):
            by_file.setdefault(v["file"], []).append(v)
    if not by_file:
        problems.append(f"no compiled variant registered from a file under '{prefix}'")
    checkable = set(PRAGMA_FEATURES) | {"declare reduction", "struct reduction"}
    for file, variants in sorted(by_file.items()):
        derived, exact = {}, {}
        for v in variants:
            derived[v["variant"]], exact[v["variant"]] = features_of(v, root)
        for v in variants:
            name = f'{v["workload"]} {v["variant"]} ({file})'
            tags = set(v["features"])
            if v["kind"] == "native":
                if tags:
                    problems.append(f"{name}: a native (CUDA) variant declares OpenMP features {sorted(tags)}")
                continue
            if not tags:
                untagged.append(f'{name}: untagged; its file gives: .uses({{{", ".join(json.dumps(f) for f in in_order(derived[v["variant"]]))}}})'
                                + ("" if len(variants) == 1 or exact[v["variant"]] else f" (the file's {len(variants)} variants together: keep what this one uses)"))
                continue
            for f in sorted(tags & checkable - derived[v["variant"]]):
                problems.append(f"{name}: tagged '{f}', which its text does not have")
            if len(variants) == 1 or exact[v["variant"]]:
                for f in sorted(derived[v["variant"]] - tags):
                    problems.append(f"{name}: its text has '{f}', not in its tags")
        tagged = [v for v in variants if v["kind"] != "native" and v["features"]]
        if len(variants) > 1 and not all(exact.values()) and len(tagged) == len([v for v in variants if v["kind"] != "native"]):
            union = set().union(*(set(v["features"]) for v in tagged))
            file_has = set().union(*derived.values())
            for f in sorted(file_has - union):
                problems.append(f"{file}: has '{f}', which none of its variants is tagged with")
    for file, variants in sorted(by_file.items()):
        grep = subprocess.run([cmake, f"-DFILE={os.path.join(root, file)}", "-P",
                               os.path.join(root, "cmake", "step_variants.cmake")],
                              capture_output=True, text=True, check=True).stdout.split()
        registered = sorted(f'{v["kind"]}|{v["workload"]}|{v["variant"]}' for v in variants)
        if sorted(grep) != registered:
            problems.append(f"{file}: cmake/step_variants.cmake finds {sorted(grep)}, the registrations are {registered}")
    for line in untagged:
        print(line)
    for p in problems:
        print("feature_tags:", p)
    tagged_count = sum(1 for v in listed if v.get("compiled", True) and v["kind"] != "native" and v["features"])
    print(f"feature_tags: {tagged_count} host and target variants tagged, {len(untagged)} untagged, "
          f"{len(problems)} problems")
    return 1 if problems or untagged else 0


if __name__ == "__main__":
    sys.exit(main())
