#!/usr/bin/env python3
"""Hostile cases against the `ompref` command, in classes of their own, scripted.

Each case runs the program once and checks DESIGN.md's contract: exit 0 (every
run valid), 1 (a run failed validation), 2 (bad input or a failed write, with
exactly one line on standard error where standard error can be written), never
a signal, a traceback or a hang; and where a case says what the verdict must
be (a valid mesh validates), that verdict. The classes:

  odd-mesh        meshes a file may hold with odd geometry or topology (one
                  tet at scales 1e-40..1e40, far from the origin, slivers,
                  fans of high degree, duplicated and inverted tets whose
                  volumes cancel, flat tets, unused vertices, non-manifold
                  faces, disconnected parts): every variant must PASS, or the
                  file be refused in one line
  limits          resource limits other than the file size: open files,
                  address space, stack, processes, on every command
  streams         standard streams in odd states (closed, read-only, a full
                  device, standard error unwritable) on every command
  result-text     text in every string field of a result file (HTML, Markdown,
                  mathtext, bidirectional controls, NUL, long, non-ASCII) through
                  compare (its table and --json) and report (its page)
  env             ompref's own environment variables (OMPREF_RESULTS,
                  OMPREF_QUIET, OMPREF_CACHE, OMPREF_PYTHON) with odd values
  cache-race      processes sharing one OMPREF_CACHE at once

    python3 tests/hostile_campaign.py build-host/ompref [--classes odd-mesh,limits] [--list]

Prints one line per failing case (with its command) and the counts per class;
exit 0 when every case kept the contract, 1 otherwise.
"""
import argparse
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(SOURCE, "tests", "data")
QUICK_RUN = ["--size", "tiny", "--no-ceiling", "--reps", "1", "--warmup", "0", "--quiet", "--save", "none"]
TRACEBACK_MARKERS = ("Traceback (most recent call last)", "terminate called", "Assertion", "Segmentation",
                     "AddressSanitizer", "runtime error:")


class Case:
    """One run: argv after the binary, its environment, what standard streams it gets, its limits, its check."""

    def __init__(self, cls, name, args, env=None, limits=None, streams=None, expect=None, check=None, timeout=120,
                 shell=None):
        self.cls, self.name, self.args, self.env = cls, name, args, env or {}
        self.limits = limits or {}
        self.streams = streams or {}
        self.expect, self.check, self.timeout, self.shell = expect, check, timeout, shell


def preexec(limits, streams):
    def setup():
        for what, value in limits.items():
            resource.setrlimit(what, (value, value))
        for fd, how in streams.items():
            if how == "closed":
                os.close(fd)
            elif how == "readonly":
                nul = os.open("/dev/null", os.O_RDONLY)
                os.dup2(nul, fd)
                os.close(nul)
            elif how == "full":
                full = os.open("/dev/full", os.O_WRONLY)
                os.dup2(full, fd)
                os.close(full)
    return setup


def run_case(ompref, case, work):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "2", "OMPREF_RESULTS": "none"})
    env.update(case.env)
    argv = [ompref] + [a.replace("WORK", work) for a in case.args]
    err_path = os.path.join(work, ".stderr")
    stderr_state = case.streams.get(2)
    with open(err_path, "wb") as err:
        started = time.monotonic()
        try:
            done = subprocess.run(argv, env={k: v.replace("WORK", work) for k, v in env.items()},
                                  stdin=subprocess.DEVNULL if 0 not in case.streams else None,
                                  stdout=subprocess.PIPE if 1 not in case.streams else None,
                                  stderr=err if stderr_state is None else None,
                                  preexec_fn=preexec(case.limits, case.streams), timeout=case.timeout, cwd=work)
            status, out = done.returncode, done.stdout or b""
        except subprocess.TimeoutExpired:
            return False, f"no exit within {case.timeout} s (a hang)"
        seconds = time.monotonic() - started
    with open(err_path, "rb") as f:
        err_text = f.read().decode("utf-8", "replace")
    if status < 0:
        return False, f"killed by signal {-status}; stderr: {err_text[-300:]!r}"
    if status not in (0, 1, 2):
        return False, f"exit {status}; stderr: {err_text[-300:]!r}"
    for marker in TRACEBACK_MARKERS:
        if marker in err_text:
            return False, f"exit {status} with {marker!r} on stderr: {err_text[-400:]!r}"
    if status == 2 and stderr_state is None:
        # With `--json -` the table goes to standard error: the error is then its last line, and its only one.
        lines = err_text.splitlines()
        table_on_stderr = "-" in case.args and "--json" in case.args
        errors = [l for l in lines if l.startswith("ompref:")] if table_on_stderr else lines
        if len(errors) != 1 or (table_on_stderr and lines[-1] != errors[0]):
            return False, f"exit 2 with {len(errors)} error lines on stderr: {err_text[-400:]!r}"
    if case.expect is not None and status not in case.expect:
        return False, f"exit {status}, expected {sorted(case.expect)}; stderr: {err_text[-400:]!r}"
    if case.check:
        why = case.check(status, out.decode("utf-8", "replace"), err_text, work)
        if why:
            return False, why
    return True, f"exit {status} in {seconds:.1f} s"


# ---------------------------------------------------------------- odd-mesh

def write_mesh(path, points, tets):
    lines = ["MeshVersionFormatted 2", "Dimension 3", "Vertices", str(len(points))]
    lines += [f"{x!r} {y!r} {z!r} 0" for x, y, z in points]
    lines += ["Tetrahedra", str(len(tets))]
    lines += [" ".join(str(i + 1) for i in t) + " 0" for t in tets]
    lines.append("End")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def signed_volume(p, t):
    a, b, c, d = (p[i] for i in t)
    u = [b[k] - a[k] for k in range(3)]
    v = [c[k] - a[k] for k in range(3)]
    w = [d[k] - a[k] for k in range(3)]
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0])) / 6


def positive(p, t):
    return t if signed_volume(p, t) > 0 else (t[0], t[2], t[1], t[3])


def cube_mesh(n, jitter, rng):
    idx = lambda i, j, k: (i * (n + 1) + j) * (n + 1) + k  # noqa: E731
    pts = []
    for i in range(n + 1):
        for j in range(n + 1):
            for k in range(n + 1):
                inner = 0 < i < n and 0 < j < n and 0 < k < n
                move = (lambda: rng.uniform(-jitter, jitter) / n) if inner else (lambda: 0.0)
                pts.append((i / n + move(), j / n + move(), k / n + move()))
    tets = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c = [idx(i + (m >> 2 & 1), j + (m >> 1 & 1), k + (m & 1)) for m in range(8)]
                for a, b in ((1, 3), (3, 2), (2, 6), (6, 4), (4, 5), (5, 1)):
                    tets.append(positive(pts, (c[0], c[a], c[b], c[7])))
    return pts, tets


def transformed(pts, scale=1.0, shift=(0.0, 0.0, 0.0)):
    return [tuple(x * scale + s for x, s in zip(p, shift)) for p in pts]


def odd_meshes(rng):
    """(name, points, tets): files the reader accepts or refuses in one line; none may FAIL."""
    out = []
    one = [(0.0, 0.0, 0.0), (1.0, 0.1, 0.0), (0.2, 1.0, 0.1), (0.1, 0.3, 1.0)]
    for e in range(-40, 41, 10):
        out.append((f"one tet at scale 1e{e}", transformed(one, 10.0 ** e), [(0, 1, 2, 3)]))
        out.append((f"one inverted tet at scale 1e{e}", transformed(one, 10.0 ** e), [(0, 2, 1, 3)]))
    for shift in (10.0, 1e3, 3e4, 9.9e4):
        for scale in (1.0, 1e-3):
            out.append((f"jittered cube of 4 at {shift:g} x {scale:g}",
                        transformed(cube_mesh(4, 0.15, rng)[0], scale, (shift * scale,) * 3), cube_mesh(4, 0.15, rng)[1]))
    for h in (1e-2, 1e-4, 1e-6, 1e-8, 1e-10):
        pts, tets = [], []
        for i in range(50):
            x, y = 2.0 * i + rng.random() * 0.01, rng.random() * 0.01
            q = [(x, y, 0.0), (x + 1 + rng.random() * 0.01, y + 1, h * rng.random()),
                 (x + 1, y + rng.random() * 0.01, h * (1 + rng.random())), (x + rng.random() * 0.01, y + 1, h)]
            pts += q
            tets.append(positive(pts, (4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3)))
        out.append((f"50 slivers of height {h:g}", pts, tets))
        out.append((f"50 slivers of height {h:g} at 1e3", transformed(pts, 1.0, (1e3, 1e3, 1e3)), tets))
    for n in (100, 2000, 20000):
        pts = [(0.0, 0.0, 0.0)]
        tets = []
        for i in range(n):
            a = 2 * math.pi * i / n
            b = 2 * math.pi * (i + 1) / n
            base = len(pts)
            pts += [(math.cos(a), math.sin(a), 0.0), (math.cos(b), math.sin(b), 0.0), (0.3 * math.cos(a), 0.2, 1.0)]
            tets.append(positive(pts, (0, base, base + 1, base + 2)))
        out.append((f"a fan of {n} tets around one vertex", pts, tets))
    pts, tets = cube_mesh(3, 0.1, rng)
    out.append(("every tet twice", pts, tets + tets))
    out.append(("every tet ten times", pts, tets * 10))
    out.append(("every tet and its inverse (volumes cancel)", pts, tets + [(t[0], t[2], t[1], t[3]) for t in tets]))
    out.append(("half the tets inverted", pts, [t if i % 2 else (t[0], t[2], t[1], t[3]) for i, t in enumerate(tets)]))
    out.append(("100 unused vertices", pts + [(5.0 + i, 5.0, 5.0) for i in range(100)], tets))
    flat = pts + [(0.5, 0.5, 2.0), (1.5, 0.5, 2.0), (0.5, 1.5, 2.0), (1.5, 1.5, 2.0)]
    m = len(pts)
    out.append(("with one flat tet", flat, tets + [(m, m + 1, m + 2, m + 3)]))
    out.append(("with a tet of four equal vertices", pts + [(3.0, 3.0, 3.0)], tets + [(m, m, m, m)]))
    out.append(("three tets on one face", one + [(0.3, 0.3, -1.0), (0.4, 0.2, -2.0)],
                [(0, 1, 2, 3), positive(one + [(0.3, 0.3, -1.0)], (0, 1, 2, 4)),
                 positive(one + [(0.3, 0.3, -1.0), (0.4, 0.2, -2.0)], (0, 1, 2, 5))]))
    parts_p, parts_t = [], []
    for part in range(5):
        p, t = cube_mesh(2, 0.1, rng)
        base = len(parts_p)
        parts_p += transformed(p, 0.5, (3.0 * part, 0.0, 0.0))
        parts_t += [tuple(i + base for i in tt) for tt in t]
    out.append(("five disconnected cubes", parts_p, parts_t))
    aniso = [(x * 1e3, y, z * 1e-3) for x, y, z in cube_mesh(3, 0.1, rng)[0]]
    out.append(("a cube stretched 1e3 by 1 by 1e-3", aniso, cube_mesh(3, 0.1, rng)[1]))
    for n in (1, 2, 5, 8):
        for jitter in (0.0, 0.15):
            p, t = cube_mesh(n, jitter, rng)
            out.append((f"cube of {n} jitter {jitter}", p, t))
            out.append((f"cube of {n} jitter {jitter}, far and small", transformed(p, 1e-2, (500.0, -700.0, 900.0)), t))
    return out


def mesh_cases(rng):
    cases = []
    for name, pts, tets in odd_meshes(rng):
        file_name = "m.mesh"

        def make(work, pts=pts, tets=tets, file_name=file_name):
            write_mesh(os.path.join(work, file_name), pts, tets)
        for renumber in ("none", "hilbert") if len(tets) > 10 else ("none",):
            c = Case("odd-mesh", f"{name}, --renumber {renumber}",
                     ["run", "mesh", "--mesh", "WORK/m.mesh", "--renumber", renumber, "--reps", "2", "--warmup", "0",
                      "--no-ceiling", "--quiet", "--save", "none"], expect={0, 2}, timeout=300)
            c.setup = make
            cases.append(c)
    return cases


# ---------------------------------------------------------------- limits and streams

def commands(work_files=True):
    """Every command, small: (name, argv)."""
    a, b = os.path.join(DATA, "gpp-paper-h200-1.json"), os.path.join(DATA, "gpp-paper-h200-2.json")
    return [
        ("run stream", ["run", "stream", "--variant", "host_simd"] + QUICK_RUN),
        ("run stream --json", ["run", "stream", "--variant", "host_simd", "--json", "WORK/r.json"] + QUICK_RUN),
        ("run stream --json -", ["run", "stream", "--variant", "host_simd", "--json", "-"] + QUICK_RUN),
        ("run lbm", ["run", "lbm", "--variant", "host_basic"] + QUICK_RUN),
        ("run mesh", ["run", "mesh", "--variant", "host_downward"] + QUICK_RUN),
        ("run gpp", ["run", "gpp", "--variant", "host_naive"] + QUICK_RUN),
        ("check", ["check", "--quiet", "--save", "none"]),
        ("compare", ["compare", a, b]),
        ("compare --json", ["compare", a, b, "--json", "WORK/c.json"]),
        ("report", ["report", a, "--out", "WORK/report"]),
        ("list", ["list"]),
        ("list --json", ["list", "--json"]),
        ("devices", ["devices"]),
        ("--version", ["--version"]),
        ("--help", ["--help"]),
    ]


def limit_cases():
    cases = []
    for files in (4, 6, 8, 12, 20, 32):
        for name, args in commands():
            cases.append(Case("limits", f"ulimit -n {files}: {name}", args, limits={resource.RLIMIT_NOFILE: files}))
    for mib in (64, 256):
        for name, args in commands():
            cases.append(Case("limits", f"ulimit -v {mib} MiB: {name}", args,
                              limits={resource.RLIMIT_AS: mib << 20}))
    for kib in (64, 256):
        for name, args in commands():
            cases.append(Case("limits", f"ulimit -s {kib} KiB: {name}", args, limits={resource.RLIMIT_STACK: kib << 10}))
    for name, args in commands():
        cases.append(Case("limits", f"ulimit -u 1: {name}", args, limits={resource.RLIMIT_NPROC: 1}))
    return cases


def no_named_file_lost(status, out, err, work):
    """Where a run names a JSON file, it is written whatever happens to standard output (when the run got that far)."""
    path = os.path.join(work, "r.json")
    if status in (0, 1) and not os.path.exists(path):
        return "exit %d without the named --json file" % status
    return None


def stream_cases():
    cases = []
    states = [({0: "closed"}, "stdin closed"), ({1: "readonly"}, "stdout read-only"),
              ({2: "full"}, "stderr on /dev/full"), ({1: "full", 2: "full"}, "stdout and stderr on /dev/full"),
              ({2: "closed"}, "stderr closed"), ({2: "readonly"}, "stderr read-only"),
              ({1: "readonly", 0: "closed"}, "stdout read-only, stdin closed")]
    for streams, what in states:
        for name, args in commands():
            expect = None
            if 1 in streams and streams[1] != "closed" and "--json -" not in name:
                expect = {2}  # standard output cannot be written: never 0
            check = no_named_file_lost if "WORK/r.json" in args else None
            cases.append(Case("streams", f"{what}: {name}", args, streams=streams, expect=expect, check=check))
    return cases


# ---------------------------------------------------------------- result-text

PAYLOADS = {
    "html": "<img src=x onerror=alert(1)><script>x</script>",
    "markdown": "a](http://evil)|b`c`*d*[e]",
    "mathtext": "$\\frac{1}{$ and $x^$",
    "bidi": "\u202eevil\u202c\u2066x\u2069",
    "nul": "a\u0000b",
    "newline": "a\nb\r\nc",
    "long": "x" * 100000,
    "non-ascii": "Grüße 日本語 🚀 \u0301",
    "dollar": "$5",
    "backslash": "\\\\server\\share\\",
}
FIELDS = ["compiler", "offload", "host.cpu", "devices.name", "provenance.date", "provenance.git_describe",
          "run.params.key", "run.params.value", "run.fom.name", "ceilings.place", "run.variant", "run.workload",
          "run.size", "run.ran_on"]


def base_doc(median=1.0):
    run = {"workload": "stream", "variant": "host_simd", "kind": "host", "ran_on": "host", "device": None,
           "size": "tiny", "params": {"n": 1024, "array_bytes": 8192}, "reps": 5,
           "time_s": {"min": median * 0.95, "median": median, "max": median * 1.05}, "bytes": 1e9, "flops": 1e8,
           "fom": {"name": "GB/s", "value": 1.0 / median}, "ceiling_fraction": 0.5, "valid": True}
    return {"suite": "ompref", "compiler": "test", "offload": "none", "host": {"cpu": "Test CPU", "threads": 2},
            "devices": [{"name": "Test GPU"}], "provenance": {"date": "2026-01-01", "git_describe": "v1"},
            "ceilings": [{"place": "host", "triad_GBps": 10.0, "variant": "host_simd", "n": 1024, "valid": True}],
            "runs": [run]}


def with_payload(doc, field, text):
    run = doc["runs"][0]
    if field == "host.cpu":
        doc["host"]["cpu"] = text
    elif field == "devices.name":
        doc["devices"][0]["name"] = text
    elif field.startswith("provenance."):
        doc["provenance"][field.split(".")[1]] = text
    elif field == "run.params.key":
        run["params"][text] = 1
    elif field == "run.params.value":
        run["params"]["n"] = text
    elif field == "run.fom.name":
        run["fom"]["name"] = text
    elif field == "ceilings.place":
        doc["ceilings"][0]["place"] = text
    elif field.startswith("run."):
        run[field.split(".")[1]] = text
    else:
        doc[field] = text
    return doc


def page_is_safe(payload):
    def check(status, out, err, work):
        page = os.path.join(work, "report", "index.md")
        if status != 0:
            return None
        if not os.path.exists(page):
            return "exit 0 without index.md"
        text = open(page, encoding="utf-8", errors="replace").read()
        # Raw HTML, or a link a name opens (a "]" not escaped by a backslash).
        for raw, pattern in (("<img", r"<img"), ("<script", r"<script"), ("](http://evil)", r"(?<!\\)\]\(http://evil\)")):
            if raw in payload and re.search(pattern, text):
                return f"the page holds {raw!r} from a result file"
        return None
    return check


def compare_json_is_valid(status, out, err, work):
    path = os.path.join(work, "c.json")
    if status != 0:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            json.load(f)
    except (OSError, ValueError) as e:
        return f"compare --json wrote no valid UTF-8 JSON: {e}"
    return None


def text_cases():
    cases = []
    for field in FIELDS:
        for key, payload in PAYLOADS.items():
            def make(work, field=field, payload=payload):
                with open(os.path.join(work, "a.json"), "w") as f:
                    json.dump(with_payload(base_doc(1.0), field, payload), f)
                with open(os.path.join(work, "b.json"), "w") as f:
                    json.dump(with_payload(base_doc(2.0), field, payload), f)
            c = Case("result-text", f"{key} in {field}: compare", ["compare", "WORK/a.json", "WORK/b.json", "--json",
                                                                       "WORK/c.json"], check=compare_json_is_valid)
            c.setup = make
            cases.append(c)
            if field in ("compiler", "host.cpu", "run.variant", "run.size", "run.ran_on", "run.fom.name",
                         "ceilings.place", "run.params.key") and key in ("html", "markdown", "mathtext", "newline",
                                                                         "dollar"):
                r = Case("result-text", f"{key} in {field}: report",
                         ["report", "WORK/a.json", "WORK/b.json", "--out", "WORK/report"], check=page_is_safe(payload),
                         timeout=300)
                r.setup = make
                cases.append(r)
    # Bytes that are not UTF-8, and a byte-order mark, in a result file.
    for what, blob in (("invalid UTF-8", b'{"suite": "ompref", "compiler": "\xff\xfe", "runs": []}'),
                       ("a byte-order mark", b"\xef\xbb\xbf" + json.dumps(base_doc()).encode()),
                       ("UTF-16", json.dumps(base_doc()).encode("utf-16")),
                       ("a lone surrogate", json.dumps(base_doc()).replace("Test CPU", "\\ud800").encode()),
                       ("duplicate keys", json.dumps(base_doc()).replace('"suite": "ompref"',
                                                                       '"suite": "ompref", "suite": "other"').encode())):
        for command in (["compare", "WORK/a.json", "WORK/a.json"], ["report", "WORK/a.json", "--out", "WORK/report"]):
            def make(work, blob=blob):
                with open(os.path.join(work, "a.json"), "wb") as f:
                    f.write(blob)
            c = Case("result-text", f"{what}: {command[0]}", command, timeout=300)
            c.setup = make
            cases.append(c)
    return cases


# ---------------------------------------------------------------- env

def env_cases():
    cases = []
    run = ["run", "stream", "--variant", "host_simd", "--size", "tiny", "--no-ceiling", "--reps", "1", "--warmup", "0",
           "--quiet"]
    for value in ("", " ", "-", "/dev/null", "/proc", "none ", "NONE", "a\nb", "WORK/../WORK/x", "x" * 5000,
                  "/dev/full", "WORK/file"):
        def make(work):
            open(os.path.join(work, "file"), "w").close()
        c = Case("env", f"OMPREF_RESULTS={value[:20]!r}", run, env={"OMPREF_RESULTS": value})
        c.setup = make
        cases.append(c)
    for value in ("0", "2", "yes", "", "1 "):
        cases.append(Case("env", f"OMPREF_QUIET={value!r}", run + ["--save", "none"], env={"OMPREF_QUIET": value}))
    lbm = ["run", "lbm", "--variant", "host_basic", "--size", "tiny", "--no-ceiling", "--reps", "1", "--warmup", "0",
           "--quiet", "--save", "none"]
    for value in ("WORK/file", "/proc", "/dev/null", ".", "WORK/a\nb", "WORK/new/deep/folder", "WORK/fifo",
                  "WORK/link", "WORK/open", "none", "relative/path"):
        def make(work):
            open(os.path.join(work, "file"), "w").close()
            os.mkfifo(os.path.join(work, "fifo"))
            os.makedirs(os.path.join(work, "open"))
            os.chmod(os.path.join(work, "open"), 0o777)
            os.symlink(os.path.join(work, "open"), os.path.join(work, "link"))
        c = Case("env", f"OMPREF_CACHE={value!r}", lbm, env={"OMPREF_CACHE": value},
                 check=lambda status, out, err, work: None if status != 1 else "a cache folder turned a verdict")
        c.setup = make
        cases.append(c)
    a = os.path.join(DATA, "gpp-paper-h200-1.json")
    for value, what in (("/bin/false", "an interpreter that fails"), ("/bin/true", "one that does nothing"),
                        ("WORK/junk.sh", "one that prints junk and exits 0"), ("WORK", "a folder"),
                        ("python3", "a bare name"), ("WORK/crash.sh", "one killed by a signal"),
                        ("WORK/two.sh", "one that exits 2 silently")):
        def make(work):
            for name, body in (("junk.sh", "#!/bin/sh\necho junk\nexit 0\n"),
                               ("crash.sh", "#!/bin/sh\nkill -SEGV $$\n"), ("two.sh", "#!/bin/sh\nexit 2\n")):
                path = os.path.join(work, name)
                with open(path, "w") as f:
                    f.write(body)
                os.chmod(path, 0o755)
        c = Case("env", f"OMPREF_PYTHON: {what}", ["report", a, "--out", "WORK/report"], env={"OMPREF_PYTHON": value},
                 expect={2})
        c.setup = make
        cases.append(c)
    return cases


# ---------------------------------------------------------------- cache-race

def race_cases():
    cases = []
    for n in (2, 3, 4):
        for variant in ("host_basic", "host_tiled"):
            script = (f"for i in $(seq {n}); do \"$0\" run lbm --variant {variant} --size tiny --no-ceiling --reps 1 "
                      "--warmup 0 --quiet --save none > /dev/null 2>WORK/err$i & done; s=0; "
                      "for j in $(seq " + str(n) + "); do wait -n || s=1; done; "
                      "cat WORK/err* >&2; exit $s")

            def check(status, out, err, work):
                entries = os.listdir(os.path.join(work, "cache")) if os.path.isdir(os.path.join(work, "cache")) else []
                if status != 0:
                    return f"a run failed ({err[-300:]!r})"
                if any(e.startswith(".") for e in entries):
                    return f"temporary files left: {entries}"
                if len(entries) != 1:
                    return f"{len(entries)} entries for one state: {entries}"
                return None
            c = Case("cache-race", f"{n} processes, {variant}", [], env={"OMPREF_CACHE": "WORK/cache"}, check=check,
                     shell=script)
            cases.append(c)
    return cases


def run_shell_case(ompref, case, work):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "1", "OMPREF_RESULTS": "none"})
    env.update({k: v.replace("WORK", work) for k, v in case.env.items()})
    try:
        done = subprocess.run(["bash", "-c", case.shell.replace("WORK", work), ompref], env=env, cwd=work,
                              capture_output=True, timeout=case.timeout)
    except subprocess.TimeoutExpired:
        return False, "no exit (a hang)"
    err = done.stderr.decode("utf-8", "replace")
    why = case.check(done.returncode, done.stdout.decode(), err, work)
    return (why is None), (why or f"exit {done.returncode}")


CLASSES = {"odd-mesh": mesh_cases, "limits": lambda rng: limit_cases(), "streams": lambda rng: stream_cases(),
           "result-text": lambda rng: text_cases(), "env": lambda rng: env_cases(),
           "cache-race": lambda rng: race_cases()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ompref")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--list", action="store_true", help="list the cases, run nothing")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ompref = os.path.abspath(args.ompref)
    rng = random.Random(args.seed)
    counts = {}
    failed_any = False
    for cls in args.classes.split(","):
        if cls not in CLASSES:
            print(f"hostile_campaign.py: unknown class {cls!r} (accepted: {', '.join(CLASSES)})", file=sys.stderr)
            return 2
        cases = CLASSES[cls](rng)
        bad = 0
        for case in cases:
            if args.list:
                print(f"{cls}: {case.name}")
                continue
            work = tempfile.mkdtemp(prefix="ompref-campaign-")
            try:
                if getattr(case, "setup", None):
                    case.setup(work)
                ok, detail = run_shell_case(ompref, case, work) if case.shell else run_case(ompref, case, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            if not ok:
                bad += 1
                cmd = " ".join(shlex.quote(a) for a in case.args)
                print(f"FAIL {cls}: {case.name}: {detail}\n     ompref {cmd[:300]}", flush=True)
        counts[cls] = (len(cases), bad)
        if not args.list:
            print(f"{cls}: {len(cases)} cases, {bad} misbehave", flush=True)
        failed_any = failed_any or bad > 0
    total = sum(n for n, _ in counts.values())
    print(f"total: {total} cases, {sum(b for _, b in counts.values())} misbehave")
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
