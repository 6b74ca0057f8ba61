#!/usr/bin/env python3
"""Holds the declared compiler defects (src/common/known_defects.json) against
the compilers installed, so that a fixed or a newly broken compiler is noticed.

For clang22-tbaa-capture-clamp, with each clang++-NN found (clang++-22 needed,
clang++-19 where installed): the reproducer clamp_rows.cpp compiled for sm_90
(device code only, to PTX; no GPU or CUDA needed), as is and with
-Xarch_device -fno-strict-aliasing; the defect is present when the parallel
region's PTX has fewer min.s32 as is. Where the declaration names the
compiler's version, clamp.ll through opt-NN must also show the mechanism: DSE
deletes n's store with the default alias analyses and keeps it with basic-aa.

    known_defects_check.py SOURCE_DIR [--self-test]
Exit 0: every observation is what the declaration says; 1: one differs (the
message says what to update); 77: clang++-22 is not installed (skipped).
--self-test: the same observations against the declaration with each
compiler's expected state turned over; exit 0 when every one is then reported.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DECLARATION = "src/common/known_defects.json"
PROBED_COMPILERS = ["clang++-22", "clang++-19"]  # the first is needed


def version_tuple(v):
    return tuple(int(p) for p in v.split("."))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def parallel_region(ptx):
    """The PTX of the outlined parallel region (the row loop) of clamp_rows.cpp."""
    m = re.search(r"^\.func [^\n]*_omp_outlined_omp_outlined\(.*?// -- End function", ptx, re.S | re.M)
    return m.group(0) if m else None


class ProbeError(Exception):
    pass


def probe_clamp_ptx(cxx, repro, tmp):
    """(min.s32 count as built, with -fno-strict-aliasing) in the parallel region."""
    counts = []
    nocuda = tmp / "no-cuda"
    nocuda.mkdir(exist_ok=True)
    for extra in ([], ["-Xarch_device", "-fno-strict-aliasing"]):
        out = tmp / f"{Path(cxx).name}-{len(extra)}.s"
        cmd = [cxx, "-O2", "-fopenmp", "--offload-arch=sm_90", "--offload-device-only", "-S", "-nogpulib",
               f"--cuda-path={nocuda}", "--cuda-feature=+ptx80", "-Wno-unknown-cuda-version", *extra,
               str(repro / "clamp_rows.cpp"), "-o", str(out)]
        r = run(cmd)
        if r.returncode != 0:
            raise ProbeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[:500]}")
        region = parallel_region(out.read_text())
        if region is None:
            raise ProbeError(f"no parallel region (.func ..._omp_outlined_omp_outlined) in the PTX of {cxx}: "
                             "the probe needs updating to this compiler's output")
        counts.append(len(re.findall(r"\bmin\.s32\b", region)))
    if counts[1] == 0:
        raise ProbeError(f"{cxx} with -fno-strict-aliasing has no min.s32 in the parallel region either: "
                         "the probe no longer sees the clamp and needs updating")
    return counts


def probe_clamp_ir(opt, repro):
    """(store of n kept with the default alias analyses, kept with basic-aa alone)."""
    kept = []
    for aa in ([], ["-aa-pipeline=basic-aa"]):
        r = run([opt, "-S", "-passes=dse", *aa, str(repro / "clamp.ll")])
        if r.returncode != 0:
            raise ProbeError(f"{opt} -passes=dse {' '.join(aa)} failed: {r.stderr.strip()[:500]}")
        kept.append("store i32 %n," in r.stdout)
    return kept


def observe(root, defect, tmp):
    """[(compiler, version, present, detail, mechanism_ok or None)] for each compiler found."""
    if defect["name"] != "clang22-tbaa-capture-clamp":
        raise ProbeError(f"no probe for the declared defect {defect['name']}: write one in {Path(__file__).name}")
    repro = root / defect["reproducer"]
    seen = []
    for cxx in PROBED_COMPILERS:
        path = shutil.which(cxx)
        if path is None:
            continue
        version = run([path, "-dumpversion"]).stdout.strip()
        built, nostrict = probe_clamp_ptx(path, repro, tmp)
        detail = (f"min.s32 in the parallel region of clamp_rows.cpp's PTX: {built} as built, "
                  f"{nostrict} with -Xarch_device -fno-strict-aliasing")
        major = version.split(".")[0]
        opt = shutil.which(f"opt-{major}") or shutil.which(f"/usr/lib/llvm-{major}/bin/opt")
        mechanism = None
        if opt is not None:
            kept_default, kept_basic = probe_clamp_ir(opt, repro)
            mechanism = (not kept_default and kept_basic,
                         f"{Path(opt).name} -passes=dse on clamp.ll: n's store "
                         f"{'kept' if kept_default else 'deleted'}, with -aa-pipeline=basic-aa "
                         f"{'kept' if kept_basic else 'deleted'}")
        seen.append((cxx, version, built < nostrict, detail, mechanism))
    return seen


def judge(defect, seen, flip=False):
    """Messages for each observation that differs from the declaration."""
    first, last = (version_tuple(v) for v in defect["versions"])
    problems = []
    for cxx, version, present, detail, mechanism in seen:
        declared = defect["compiler"] == "clang" and first <= version_tuple(version) <= last
        if flip:
            declared = not declared
        where = (f"{DECLARATION} declares {defect['compiler']} {defect['versions'][0]} to "
                 f"{defect['versions'][1]} affected by {defect['name']}")
        if present != declared:
            what = ("a fixed compiler: narrow the versions" if declared else
                    "a newly affected compiler: widen the versions")
            problems.append(f"{cxx} {version} {'has' if present else 'does not have'} the defect ({detail}), "
                            f"but {where}: {what} in the declaration (and docs/toolchains.md, "
                            f"{defect['reproducer']}README.md)")
        if declared and not flip:
            if mechanism is None:
                problems.append(f"{cxx} {version}: no opt-{version.split('.')[0]} to show the mechanism "
                                "(install LLVM's tools: scripts/setup.sh)")
            elif not mechanism[0]:
                problems.append(f"{cxx} {version}: the mechanism {defect['reproducer']}README.md describes no "
                                f"longer holds ({mechanism[1]}): update the explanation and the declaration")
    return problems


def main():
    args = sys.argv[1:]
    self_test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if len(args) != 1:
        print("usage: known_defects_check.py SOURCE_DIR [--self-test]", file=sys.stderr)
        return 2
    root = Path(args[0])
    try:
        defects = json.loads((root / DECLARATION).read_text())["defects"]
    except (OSError, ValueError, KeyError) as e:
        print(f"known_defects_check.py: cannot read {DECLARATION}: {e}", file=sys.stderr)
        return 1
    if shutil.which(PROBED_COMPILERS[0]) is None:
        print(f"skipped: {PROBED_COMPILERS[0]} is not installed (scripts/setup.sh installs it)")
        return 77
    failed = 0
    with tempfile.TemporaryDirectory() as t:
        for defect in defects:
            try:
                seen = observe(root, defect, Path(t))
            except (ProbeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL {defect['name']}: {e}")
                failed += 1
                continue
            problems = judge(defect, seen, flip=self_test)
            if self_test:
                # Every compiler's state turned over must be reported.
                ok = len([p for p in problems if "declares" in p]) == len(seen)
                print(f"{'PASS' if ok else 'FAIL'} {defect['name']} (self-test): {len(problems)} of {len(seen)} "
                      "turned-over declarations reported")
                failed += not ok
                continue
            for cxx, version, present, detail, mechanism in seen:
                print(f"{defect['name']}: {cxx} {version}: {'present' if present else 'absent'} ({detail}"
                      f"{'; ' + mechanism[1] if mechanism else ''})")
            for p in problems:
                print(f"FAIL {defect['name']}: {p}")
            failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
