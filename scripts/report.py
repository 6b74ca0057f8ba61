#!/usr/bin/env python3
"""A Markdown page and PNG charts from the result files of `ompref run --json`.

  scripts/report.py A.json [B.json ...] --out DIR [--cuda ceilings.txt] [--ompref BIN]
  (what `ompref report A.json ... --out DIR` runs, passing its own binary)
  scripts/report.py scaling.json --out DIR  (a document of scripts/scaling.py)

Writes DIR/index.md with, per file and workload, a table of the runs, the
fraction of the place's ceiling per variant (bandwidth-bound runs against the
stream triad, compute-bound runs against the FP64 rate, as the table of
`ompref run` marks them F), the lesson's steps as the registrations declare
them (`ompref list --json`: each variant's step_of; one chain per place, the
CUDA twin a reference line), a roofline per file, and with several files the
speedup of each run against the first file as `ompref compare --json` matches
and compares them (by time, by rate, or not at all: the rules live in
src/app/compare_rules.cpp, from what each workload declares). --cuda reads a
file's JSON line of CUDA ceilings measured in the same command (triad_GBps,
fp64_fma_TFLOPs: a results folder's ceilings.txt): its triad and FP64 FMA rate
become extra ceilings of the device. A document of scripts/scaling.py (runs
over MPI rank counts) gets a section of its own: each run's command, each
variant's speedup and efficiency by rank count (and against --against's
variant), and the scaling chart. Exit 2 with one line on bad input.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import signal
import sys
import tempfile

try:
    import matplotlib  # noqa: F401  (the charts need it; say which package brings it)
except ImportError:
    print("report.py: matplotlib is missing (install the Debian package python3-matplotlib)", file=sys.stderr)
    sys.exit(2)
from report_charts import bar_speedups, fmt_num, fraction_chart, roofline, scaling_chart, slug, step_chart  # noqa: E402

# Above this many flops per byte a run is compute-bound: its fraction is of
# the FP64 rate, not of the triad (the table of `ompref run`, F column:
# bandwidth_bound_intensity in src/common/results.cpp).
BANDWIDTH_BOUND_INTENSITY = 1.0
NOT_A_RESULT = "not a result file of `ompref run --json`"


def say(message):
    """One line on standard error, where it can be written (exit 2 says the rest)."""
    try:
        print(f"report.py: {message}", file=sys.stderr, flush=True)
    except OSError:
        pass


def drop_stdout():
    """Standard output, which failed, pointed at /dev/null: the interpreter's flush at exit then succeeds (it would
    change the exit status to 120)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def fail(message):
    say(message)
    sys.exit(2)


MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md(text):
    """Text from a result file (a name, a compiler, a note) as Markdown that shows it as it is: no HTML, link,
    emphasis, code span or table cell can start in it, and a control character (a line break) is a space."""
    out = []
    for c in str(text):
        if c in MD_ENTITIES:
            out.append(MD_ENTITIES[c])
        elif c in "\\`*[]|~":
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def code(text):
    """Text as a code span, its | escaped for a table; as md() where it holds a backtick or a control character,
    which a code span cannot hold, or <, > or & (shown as they are in a code span, but kept off the page)."""
    text = str(text)
    if any(c in "`<>&" or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return md(text)
    return "`" + text.replace("|", "\\|") + "`"


def missing_field(run):
    """The first field compare and report need that a run lacks, or None."""
    if not isinstance(run, dict):
        return "an object"
    for key in ("workload", "variant", "size", "ran_on"):
        if not isinstance(run.get(key), str):
            return f'"{key}"'
    t = run.get("time_s")
    if not isinstance(t, dict) or not isinstance(t.get("median"), (int, float)) or isinstance(t.get("median"), bool):
        return '"time_s": {"median": ...}'
    if not isinstance(run.get("valid"), bool):
        return '"valid"'
    return None


def is_scaling(doc):
    """scripts/scaling.py's document: its runs over rank counts and their efficiencies."""
    return (isinstance(doc, dict) and doc.get("scaling") in ("strong", "weak") and
            isinstance(doc.get("efficiencies"), list) and isinstance(doc.get("runs"), list) and
            all(isinstance(e, dict) and isinstance(e.get("by_ranks"), list) for e in doc["efficiencies"]))


def scaling_section(i, label, doc, out_dir):
    """scripts/scaling.py's document: each run's command and exit status, each variant's speedups and
    efficiencies by rank count, and the scaling chart."""
    weak = ", ".join(f"{o} {n} a rank" for o, n in (doc.get("weak") or {}).items())
    lines = [f"## Scaling [{i}] {md(label)}", "",
             f"- {doc['scaling']} scaling{f' ({md(weak)})' if weak else ''} over "
             f"{', '.join(str(n) for n in doc.get('ranks', []))} ranks: {code(doc.get('command', '?'))}"]
    for r in doc["runs"]:
        lines.append(f"- {r.get('ranks')} ranks: exit {r.get('exit')}, {fmt_num(r.get('wall_s'))} s: "
                     f"{code(r.get('command', '?'))}")
    against = next((row["against"]["variant"] for e in doc["efficiencies"] for row in e["by_ranks"]
                    if "against" in row), None)
    lines += ["", "| workload | variant | ranks | figure of merit | speedup | efficiency |" +
              (f" against {md(against)} (speedup, efficiency) |" if against else "") + " valid |",
              "|---|---|---|---|---|---|" + ("---|" if against else "") + "---|"]
    for e in doc["efficiencies"]:
        for row in e["by_ranks"]:
            a = row.get("against")
            lines.append(f"| {md(e['workload'])} | {md(e['variant'])} | {row['ranks']} | "
                         f"{fmt_num(row.get('fom'))} {md(row.get('fom_name', ''))} | {fmt_num(row.get('speedup'))} | "
                         f"{fmt_num(row.get('efficiency'))} |" +
                         (f" {fmt_num(a['speedup'])}, {fmt_num(a['efficiency'])} |" if a else (" - |" if against else ""))
                         + f" {'yes' if row.get('valid') else 'FAIL'} |")
    png = scaling_chart(doc, f"[{i}] {label}", out_dir, f"scaling-{i}-{slug(label)}")
    lines += ["", f"![scaling over MPI ranks]({png})" if png else
              "No scaling chart: no variant ran on two rank counts with a figure of merit."]
    return lines


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    try:
        doc = json.loads(text)
    except ValueError:
        fail(f"{path}: not JSON ({NOT_A_RESULT})")
    if is_scaling(doc):
        return doc
    if not isinstance(doc, dict) or doc.get("suite") != "ompref" or not isinstance(doc.get("runs"), list):
        if isinstance(doc, dict):
            holds = f"it holds {', '.join(doc)}" if doc else "it is an empty object"
        else:
            holds = f"it is a JSON {'array' if isinstance(doc, list) else type(doc).__name__}"
        fail(f'{path}: {NOT_A_RESULT} (no "suite": "ompref" with a "runs" list; {holds})')
    for i, run in enumerate(doc["runs"]):
        missing = missing_field(run)
        if missing:
            fail(f"{path}: run {i + 1} lacks {missing} ({NOT_A_RESULT})")
    return doc


def load_cuda(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"--cuda {path}: cannot read ({e.strerror})")
    for line in reversed(lines):
        if line.strip().startswith("{"):
            try:
                found = json.loads(line)
            except ValueError:
                break
            # The two ceilings the page divides by: finite rates above 0.
            for key in ("triad_GBps", "fp64_fma_TFLOPs"):
                value = found.get(key) if isinstance(found, dict) else None
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e30:
                    fail(f"--cuda {path}: its JSON line has no {key} above 0 (a results folder's ceilings.txt has both)")
            return found
    fail(f"--cuda {path}: no JSON line of CUDA ceilings (triad_GBps, fp64_fma_TFLOPs) in it")


def short_names(paths):
    """The shortest trailing parts of the paths that tell them apart."""
    parts = [os.path.normpath(p).split(os.sep) for p in paths]
    for n in range(1, max(len(p) for p in parts) + 1):
        names = ["/".join(p[-n:]) for p in parts]
        if len(set(names)) == len(names):
            return names
    return list(paths)


def fp64_ceilings(doc, cuda):
    """place -> FP64 GFLOP/s: any ceilings field named [native_]fp64..._GFLOPs or _TFLOPs (the CUDA FMA
    rate the program measures on a device), and --cuda's for devices."""
    out = {}
    for c in doc.get("ceilings") or []:
        for key, value in c.items():
            m = re.match(r"(?:native_)?fp64\w*_([GT])FLOPs$", key, re.IGNORECASE)
            if m and isinstance(value, (int, float)):
                out[c.get("place")] = value * (1000.0 if m.group(1).upper() == "T" else 1.0)
    if cuda and isinstance(cuda.get("fp64_fma_TFLOPs"), (int, float)):
        for run in doc["runs"]:
            if "(device" in run["ran_on"]:
                out.setdefault(run["ran_on"], cuda["fp64_fma_TFLOPs"] * 1000.0)
    return out


def bandwidth_ceilings(doc, cuda):
    """place -> [(label, GB/s)]: the measured stream triad, and --cuda's triad for devices."""
    out = {}
    for c in doc.get("ceilings") or []:
        if isinstance(c.get("triad_GBps"), (int, float)):
            out.setdefault(c.get("place"), []).append((f"triad {c.get('variant', '')}".strip(), c["triad_GBps"]))
        if isinstance(c.get("native_triad_GBps"), (int, float)):  # the CUDA triad, measured in the same process
            out.setdefault(c.get("place"), []).append(("CUDA triad", c["native_triad_GBps"]))
    if cuda and isinstance(cuda.get("triad_GBps"), (int, float)):
        for run in doc["runs"]:
            if "(device" in run["ran_on"] and all(l != "CUDA triad" for l, _ in out.get(run["ran_on"], [])):
                out.setdefault(run["ran_on"], []).append(("CUDA triad", cuda["triad_GBps"]))
    return out


def header_row(label, path, doc):
    host = doc.get("host") or {}
    devices = ", ".join(d.get("name", "?") for d in doc.get("devices") or []) or "no offload device"
    provenance = doc.get("provenance") or {}
    date = provenance.get("date", "not recorded")
    if provenance.get("git_describe"):
        date += f" (ompref {provenance['git_describe']})"
    return (f"| {label} | {code(path)} | {md(doc.get('compiler', '?'))} | {md(doc.get('offload', '?'))} | "
            f"{md(host.get('cpu', '?'))}, {md(host.get('threads', '?'))} threads | {md(devices)} | {md(date)} |")


# What a chart can scale: times from a picosecond to 10^12 s, counts and rates up to 10^30. A result file may
# hold more (5e-324 s, 1e308 bytes); such a run stays in the tables and is left out of the charts, which
# divide one value by another.
CHART_RANGE = {"time": (1e-12, 1e12), "count": (0.0, 1e30)}


def chartable(run):
    """Whether every value a chart computes from this run is a finite number."""
    t = run["time_s"]
    lo, hi = CHART_RANGE["time"]
    for key in ("median", "min"):
        value = t.get(key, t["median"])
        if isinstance(value, (int, float)) and not lo <= value <= hi:
            return False
    for value in (run.get("bytes"), run.get("flops"), (run.get("fom") or {}).get("value"), run.get("ceiling_fraction"),
                  run.get("fp64_fraction")):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= CHART_RANGE["count"][1]:
            return False
    return True


def groups(doc):
    """(workload, size) -> runs, in the order they first appear."""
    out = {}
    for run in doc["runs"]:
        out.setdefault((run["workload"], run["size"]), []).append(run)
    return out


def fmt_time(s):
    if not isinstance(s, (int, float)):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.3f} s"


def ratio_text(r):
    """A speedup as compare prints it: two decimals, two significant digits below 0.1 (0.0024x, not 0.00x)."""
    return f"{r:.2g}x" if r < 0.1 else f"{r:.2f}x"


def params_line(runs):
    """The workload's parameters as the first run has them (non-scalar values shortened)."""
    params = runs[0].get("params") or {}
    items = []
    for key, value in params.items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        items.append(f"{key}={text if len(text) <= 40 else text[:37] + '...'}")
    return [f"Parameters: {code(', '.join(items))}", ""] if items else []


def run_table(runs, cuda, fp64):
    head = "| variant | ran on | median | min | transfer | figure of merit | of ceiling (F: of FP64) | valid |"
    sep = "|---|---|---:|---:|---:|---:|---:|---|"
    if cuda:
        head += " of CUDA triad | of CUDA FP64 |"
        sep += "---:|---:|"
    lines = [head, sep]
    for r in runs:
        t, fom = r["time_s"], r.get("fom") or {}
        line = (f"| {md(r['variant'])} | {md(r['ran_on'])} | {fmt_time(t['median'])} | {fmt_time(t.get('min'))} | "
                f"{fmt_time(r.get('transfer_s') or None)} | {fmt_num(fom.get('value'))} {md(fom.get('name', ''))} | "
                f"{fraction_text(r, fp64)} | {'PASS' if r['valid'] else 'FAIL'} |")
        if cuda:
            on_device = "(device" in r["ran_on"]
            bw = r.get("bytes", 0) / t["median"] / 1e9 / cuda["triad_GBps"] if on_device else None
            fl = r.get("flops", 0) / t["median"] / 1e12 / cuda["fp64_fma_TFLOPs"] if on_device and r.get("flops") else None
            line += f" {'-' if bw is None else f'{bw:.3f}'} | {'-' if fl is None else f'{fl:.3f}'} |"
        lines.append(line)
    return lines


def phase_table(runs):
    """GB/s of each timed phase (stream's kernels, lbm's three kernels) at the median time."""
    names = []
    for r in runs:
        for p in r.get("phases") or []:
            if p.get("name") not in names:
                names.append(p.get("name"))
    if not names:
        return []
    lines = ["", "Timed phases, GB/s at the median time (best in brackets):", "",
             "| variant | ran on | " + " | ".join(md(n) for n in names) + " |", "|---|---|" + "---:|" * len(names)]
    for r in runs:
        by_name = {p.get("name"): p for p in r.get("phases") or []}
        cells = []
        for n in names:
            p = by_name.get(n)
            cells.append("-" if not p else f"{fmt_num(p.get('GBps'))} ({fmt_num(p.get('GBps_best', p.get('GBps')))})")
        lines.append(f"| {md(r['variant'])} | {md(r['ran_on'])} | " + " | ".join(cells) + " |")
    return lines


def ompref_json(ompref, args, what):
    """The JSON an `ompref` subcommand prints on standard output; its one-line refusal passed on (exit 2)."""
    try:
        done = subprocess.run([ompref, *args], capture_output=True, text=True, check=False)
    except OSError as e:
        fail(f"cannot run {ompref} for {what} ({e.strerror})")
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        fail(lines[-1] if lines else f"{ompref} {' '.join(args[:1])} exited {done.returncode}")
    try:
        return json.loads(done.stdout)
    except ValueError:
        fail(f"{ompref} {args[0]} printed no JSON for {what}")


def lesson_graph(ompref):
    """(workload, variant) -> the registration's facts (step_of, mirrors, kernel, kind), from `ompref list --json`."""
    return {(v["workload"], v["variant"]): v for v in ompref_json(ompref, ["list", "--json"], "the lesson graph")}


def facts_of(run, lesson):
    """A run's registration: from the lesson graph; a variant this binary does not have (a CUDA twin in a build
    without them, a trial) has no predecessor, and a twin's kernel tag is in its name (native_<kernel tag>,
    or native_<workload> for the workload's one kernel)."""
    known = lesson.get((run["workload"], run["variant"]))
    if known:
        return known
    kernel = ""
    if kind_of_run(run) == "native":
        tag = run["variant"].split("_", 1)[1] if "_" in run["variant"] else ""
        kernel = "" if tag == run["workload"] else tag
    return {"step_of": "", "mirrors": "", "kernel": run.get("kernel") or kernel, "kind": kind_of_run(run)}


def kind_of_run(run):
    prefix = run["variant"].split("_", 1)[0]
    return run.get("kind") or (prefix if prefix in ("host", "target", "native") else "host")


def compute_bound(run):
    return (run.get("bytes") or 0) > 0 and (run.get("flops") or 0) / run["bytes"] > BANDWIDTH_BOUND_INTENSITY


def fp64_of_place(fp64, run):
    return fp64.get(run["ran_on"]) or (fp64.get("host") if run["ran_on"].startswith("host") else None)


def fraction(run, fp64):
    """(fraction, basis): of the FP64 rate for a compute-bound run, of the stream triad otherwise; (None, basis)
    where that ceiling was not measured."""
    if compute_bound(run):
        if isinstance(run.get("fp64_fraction"), (int, float)):
            return run["fp64_fraction"], "fp64"
        rate = fp64_of_place(fp64, run)
        if rate and run["time_s"]["median"] > 0:
            return run["flops"] / run["time_s"]["median"] / 1e9 / rate, "fp64"
        return None, "fp64"
    value = run.get("ceiling_fraction")
    return (value if isinstance(value, (int, float)) else None), "triad"


def fraction_text(run, fp64):
    value, basis = fraction(run, fp64)
    if value is None:
        return "n/a" if basis == "fp64" and run.get("ceiling_fraction") is not None else "-"
    return f"{value:.3f}" + (" F" if basis == "fp64" else "")


def roles(runs, lesson):
    """variant -> its role in the lesson: host, target (a root: the pair's port), step (follows another), native."""
    out = {}
    for r in runs:
        f = facts_of(r, lesson)
        kind = kind_of_run(r)
        out[r["variant"]] = kind if kind in ("host", "native") else ("step" if f.get("step_of") else "target")
    return out


def group_of(run, runs, lesson):
    """The x group a run's bar stands in: where every run of the workload has a kernel tag (mesh), the kernel, so
    that host_<k>, target_<k>, its tuned step and its twin stand together (a twin native_upward_csr beside
    ball_csr); otherwise the pair's stem (host_naive and target_naive), a twin beside the first target variant of
    its kernel, every other variant alone."""
    kernels = [facts_of(r, lesson).get("kernel") for r in runs]
    if all(kernels):
        return facts_of(run, lesson)["kernel"]
    facts = facts_of(run, lesson)
    if kind_of_run(run) == "native":
        for r in runs:
            if kind_of_run(r) == "target" and facts_of(r, lesson).get("kernel") == facts["kernel"]:
                return group_of(r, runs, lesson)
        return run["variant"]
    if facts.get("mirrors"):
        return facts["mirrors"].split("_", 1)[1]
    prefix, _, rest = run["variant"].partition("_")
    if prefix == "host" and any(facts_of(r, lesson).get("mirrors") == run["variant"] for r in runs):
        return rest
    return run["variant"]


def fraction_charts(runs, fp64, lesson, title, out_dir, name):
    """One chart per basis (the stream triad, the FP64 rate); runs without that ceiling measured are left out
    and said so. Returns (PNG names, lines for the page)."""
    role = roles(runs, lesson)
    by_basis, missing = {}, []
    for r in runs:
        value, basis = fraction(r, fp64)
        if value is None:
            missing.append((r, basis))
            continue
        fom = r.get("fom") or {}
        by_basis.setdefault(basis, []).append({
            "group": group_of(r, runs, lesson), "label": r["variant"], "role": role[r["variant"]], "value": value,
            "fom": f"{fmt_num(fom.get('value'))} {fom.get('name', '')}".strip(), "valid": r["valid"],
            "place": r["ran_on"]})
    pngs = []
    for basis, bars in by_basis.items():
        order = list(dict.fromkeys(b["group"] for b in bars))  # bars grouped, groups in the order they first appear
        bars.sort(key=lambda b: (order.index(b["group"]), ["host", "target", "step", "native"].index(b["role"])))
        pngs.append(fraction_chart(bars, basis, title, out_dir, f"{name}-{'fp64' if basis == 'fp64' else 'triad'}"))
    notes = []
    for basis in ("fp64", "triad"):
        left = sorted({f"{md(r['variant'])} ({md(r['ran_on'])})" for r, b in missing if b == basis})
        what = ("no FP64 rate measured where they ran (a device's comes from the CUDA build's probe, or --cuda)"
                if basis == "fp64" else "no stream triad measured (the runs had --no-ceiling)")
        if left and len(missing) == len(runs) and all(b == basis for _, b in missing):
            notes.append(f"No fraction chart: {'compute-bound runs, ' if basis == 'fp64' else ''}{what}.")
        elif left and len(left) > 6:
            notes.append(f"Not in the fraction chart: {len(left)} runs, {what}.")
        elif left:
            notes.append(f"Not in the fraction chart: {', '.join(left)}: {what}.")
    return pngs, notes


def step_charts(runs, lesson, title, out_dir, name):
    """Per place, the chains of the lesson graph among the runs made there: each variant after the variant it
    declares it follows (step_of), roots first; the CUDA twins of the chains' kernels as reference lines."""
    pngs = []
    places = list(dict.fromkeys(r["ran_on"] for r in runs))
    for place in places:
        here = {}
        for r in runs:  # a variant run twice at one place: its first run stands for it
            if r["ran_on"] == place:
                here.setdefault(r["variant"], r)
        steps = {v: r for v, r in here.items() if kind_of_run(r) != "native"}
        def nearest(r):
            """The step a run follows, or, where the file lacks it, its nearest predecessor that the file has."""
            p, seen = facts_of(r, lesson).get("step_of"), set()
            while p and p not in steps and p not in seen:
                seen.add(p)
                p = (lesson or {}).get((r["workload"], p), {}).get("step_of", "")
            return p
        pred = {v: nearest(r) for v, r in steps.items()}
        children = {}
        for v, p in pred.items():
            if p in steps:
                children.setdefault(p, []).append(v)
        def size(v):
            return 1 + sum(size(c) for c in children.get(v, []))

        for v in children:  # the longest branch first: a side step (lbm's target_many) after the main chain
            children[v].sort(key=lambda c: -size(c))
        chains, twins = [], []
        for v in steps:
            if pred[v] in steps or v not in children:
                continue  # not a root, or a root without a step after it
            chain, stack = [], [(v, None)]
            while stack:
                u, p = stack.pop()
                chain.append((steps[u], steps[p] if p else None))
                stack += [(c, u) for c in reversed(children.get(u, []))]
            chains.append(chain)
            ts = []
            for t in here.values():
                if kind_of_run(t) != "native":
                    continue
                kernel = facts_of(t, lesson).get("kernel")
                partner = next((r for r, _ in chain if facts_of(r, lesson).get("kernel") == kernel), None)
                if partner is not None:
                    ts.append((t, partner))
            twins.append(ts)
        png = step_chart(chains, twins, title, place, out_dir, f"{name}-steps-{slug(place)}")
        if png:
            text = "; ".join(", ".join(f"{md(p['variant'])} → {md(r['variant'])}" for r, p in chain if p)
                             for chain in chains)
            refs = ", ".join(f"{md(t['variant'])} (kernel of {md(partner['variant'])})" for ts in twins
                             for t, partner in ts)
            pngs.append((png, f"Steps on {md(place)}: {text}" + (f"; CUDA twin as a reference: {refs}" if refs else "") +
                         "."))
    return pngs


def file_section(i, label, doc, out_dir, cuda, lesson):
    """One file: its ceilings, and per workload a table and the charts."""
    lines = [f"## [{i}] {md(label)}", ""]
    for c in doc.get("ceilings") or []:
        lines.append(f"- ceiling on {md(c.get('place'))}: stream triad {fmt_num(c.get('triad_GBps'))} GB/s "
                     f"({md(c.get('variant', '?'))}, n = {md(c.get('n', '?'))}"
                     f"{'' if c.get('valid', True) else ', FAIL'})")
    if cuda:
        lines.append(f"- CUDA, same command (--cuda): triad {md(cuda.get('triad_GBps'))} GB/s, "
                     f"FP64 FMA {md(cuda.get('fp64_fma_TFLOPs'))} TFLOP/s")
    if not doc.get("ceilings"):
        lines.append("- no ceiling measured (run with --no-ceiling): no fraction-of-ceiling chart")
    bandwidth, fp64 = bandwidth_ceilings(doc, cuda), fp64_ceilings(doc, cuda)
    for (workload, size), runs in groups(doc).items():
        name = f"{i}-{slug(workload)}-{slug(size)}"
        title = f"[{i}] {workload} {size}"
        lines += ["", f"### {md(workload)}, size {md(size)}", ""] + params_line(runs) + run_table(runs, cuda, fp64)
        lines += phase_table(runs)
        beyond = [r for r in runs if not chartable(r)]
        runs = [r for r in runs if chartable(r)]
        if beyond:
            lines += ["", "Not in the charts: " + ", ".join(f"{md(r['variant'])} ({md(r['ran_on'])})" for r in beyond) +
                      ": times or counts beyond what a chart can scale (a picosecond to 10^12 s, at most 10^30)."]
        if not runs:
            continue
        pngs, notes = fraction_charts(runs, fp64, lesson, title, out_dir, name)
        for png in pngs:
            lines += ["", f"![{md(workload)} fraction of the ceiling]({png})"]
        if notes:
            lines += [""] + notes
        for png, text in step_charts(runs, lesson, title, out_dir, name):
            lines += ["", f"![{md(workload)} steps]({png})", "", text]
        png = roofline(runs, bandwidth, fp64, title, out_dir, f"{name}-roofline")
        if png:
            lines += ["", f"![{md(workload)} roofline]({png})"]
    return lines


def comparison_section(comparison, labels, out_dir):
    """The tables and charts of `ompref compare --json`: its matching, its bases and its geometric means."""
    files = len(comparison["files"])
    lines = ["## Comparison", "",
             "As `ompref compare` matches and compares them (src/app/compare.cpp): speedup of [k] = median time in "
             "[1] / median time in [k] for the same work; where the size or a parameter that scales the work "
             "differs, [k]'s figure of merit / [1]'s, marked \"by rate\" (hatched in the charts); where a "
             "parameter its figure of merit does not normalise differs, none (\"not comparable\", left out of "
             "the charts and the geometric means). Above 1, [k] is faster; the geometric mean is over the runs "
             "valid in both files.", ""]
    lines += [f"- {md(note)}" for note in comparison.get("notes", [])]
    if comparison.get("notes"):
        lines.append("")
    workloads = list(dict.fromkeys(r["workload"] for r in comparison["rows"]))
    for w in workloads:
        rows = [r for r in comparison["rows"] if r["workload"] == w]
        head = "| variant | size | place | " + " | ".join(f"[{k + 1}] median" for k in range(files))
        head += " | " + " | ".join(f"[{k + 1}] speedup" for k in range(1, files)) + " | note |"
        lines += [f"### {md(w)}", "", head, "|---|---|---|" + "---:|" * (2 * files - 1) + "---|"]
        excluded = 0
        for r in rows:
            times = [fmt_time(run["median_s"]) + ("" if run["valid"] else " FAIL") if run else "-" for run in r["runs"]]
            cells = []
            for a in r["against_first"][1:]:
                if a and a.get("speedup"):
                    cells.append(ratio_text(a['speedup']) + (" by rate" if a["basis"] == "rate" else ""))
                else:
                    cells.append("-")
                excluded += bool(a and a["basis"] == "not_comparable")
            lines.append(f"| {md(r['variant'])} | {md(r['size'])} | {md(r['place'])} | " + " | ".join(times) + " | " +
                         " | ".join(cells) + f" | {md(r['note'])} |")
        means = comparison["geomeans"].get(w, [])
        cells = []
        for g in means[1:]:
            if g and g.get("value"):
                rate = f", {g['by_rate']} by rate" if g.get("by_rate") else ""
                cells.append(f"{ratio_text(g['value'])} ({g['runs']} run{'' if g['runs'] == 1 else 's'}{rate})")
            else:
                cells.append("-")
        lines.append("| " + " | ".join(["geometric mean", "", ""] + [""] * files + cells + [""]) + " |")
        png = bar_speedups(w, rows, labels, means, excluded, out_dir, f"compare-{slug(w)}")
        if png:
            lines += ["", f"![{md(w)} speedups]({png})"]
        lines.append("")
    return lines


EXPLAIN = """## What the charts show

- **Fraction of the ceiling**: a bandwidth-bound run (at most 1 flop per byte of its model) against the best
  stream triad measured on the same place in the same process, bytes / median time (DESIGN.md); a
  compute-bound run (gpp) against the place's measured FP64 rate, flops / median time, as the table of
  `ompref run` marks it F. The two never share a chart. Bars stand in groups: a kernel's host variant, its
  target port, its tuned step and its CUDA twin together (mesh: by kernel tag); the number on a bar is the
  run's figure of merit.
- **Steps**: the lesson graph the registrations declare (`ompref list --json`, each variant's `step_of`), one
  chart per place: each bar is a variant's speedup over the first variant of its chain (median times), the
  number on it the step's own factor over the variant it follows. A CUDA twin is not a step: it is a dashed
  line over the chain of its kernel, at the chain's first median / the twin's median.
- **Roofline**: x is the arithmetic intensity of a run, flops / bytes of its model (flop per byte moved);
  y is the attained rate, flops / median time in GFLOP/s; both axes logarithmic, one panel per place. The
  slanted line is the measured stream triad bandwidth times the intensity: no run moving its model's bytes
  can sit above it. The flat line, where the file or --cuda gives one, is the FP64 rate. A point close to
  the slanted line is bandwidth-bound; one far below both lines leaves performance unused.
- **Comparison** (several files): the matching and the speedups of `ompref compare --json`: by time for the
  same work, by rate (hatched) for work of another size, none for work that is not comparable.
"""


def find_ompref(given):
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            fail(f"--ompref {given}: not an executable file")
        return given
    found = shutil.which("ompref")
    if not found:
        fail("needs the ompref binary for compare's matching and the lesson graph (--ompref BIN, or ompref in PATH)")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="files written by ompref run --json; the first is the reference")
    ap.add_argument("--out", required=True, help="directory for index.md and the PNGs (created)")
    ap.add_argument("--cuda", help="a file with the JSON line of CUDA ceilings of the same command (a results folder's ceilings.txt)")
    ap.add_argument("--ompref", help="the ompref binary: its `list --json` and `compare --json` (default: PATH)")
    args = ap.parse_args()
    loaded = [(p, load(p)) for p in args.json]
    # scripts/scaling.py's documents get a section of their own; the others are results of `ompref run`.
    scaling = [(p, d) for p, d in loaded if is_scaling(d)]
    results = [p for p, d in loaded if not is_scaling(d)]
    docs = [d for p, d in loaded if not is_scaling(d)]
    cuda = load_cuda(args.cuda) if args.cuda else None
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        fail(f"--out {args.out}: not a directory")
    ompref = find_ompref(args.ompref) if docs else None
    lesson = lesson_graph(ompref) if docs else None
    comparison = ompref_json(ompref, ["compare", *results, "--json", "-"], "the comparison") if len(docs) > 1 else None
    os.makedirs(args.out, exist_ok=True)
    final_out = args.out
    args.out = tempfile.mkdtemp(prefix=".report.tmp.", dir=final_out)  # moved in whole by publish()
    staging.append(args.out)
    lines = ["# ompref report", ""]
    if docs:
        labels = short_names(results)
        lines += ["| | file | compiler | offload | host | devices | date |", "|---|---|---|---|---|---|---|"]
        lines += [header_row(f"[{k + 1}]", labels[k], doc) for k, doc in enumerate(docs)]
        lines += ["", EXPLAIN]
    for k, doc in enumerate(docs):
        lines += file_section(k + 1, labels[k], doc, args.out, cuda, lesson) + [""]
    if comparison:
        lines += comparison_section(comparison, labels, args.out)
    scaling_labels = short_names([p for p, _ in scaling]) if scaling else []
    for k, (path, doc) in enumerate(scaling):
        lines += scaling_section(k + 1, scaling_labels[k], doc, args.out) + [""]
    with open(os.path.join(args.out, "index.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    charts = publish(args.out, final_out)
    try:
        print(f"report.py: wrote {os.path.join(final_out, 'index.md')} and {charts} charts", flush=True)
    except OSError as e:
        drop_stdout()
        fail(f"wrote {os.path.join(final_out, 'index.md')}, but cannot write to standard output ({e.strerror})")


def publish(staging, out):
    """Moves each file written in the staging folder into --out by rename (the charts first, the page last): a
    reader sees a whole old file or a whole new one, never a truncated one. Returns the number of charts."""
    names = sorted(os.listdir(staging), key=lambda n: n == "index.md")
    for name in names:
        os.replace(os.path.join(staging, name), os.path.join(out, name))
    os.rmdir(staging)
    return sum(1 for n in names if n.endswith(".png"))


staging = []  # the staging folder of main(), removed on an interrupt


def interrupted(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    # A hang-up or termination ends the report as an interrupt does: no staging folder is left.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    try:
        main()
    except OSError as e:  # a write into --out that failed: a full disk, a file-size limit, a folder made read-only
        where = f" ({e.filename})" if e.filename else ""
        say(f"cannot write the report{where}: {e.strerror or e}; every file in --out is whole (the old one or the "
            "new one)")
        sys.exit(2)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        say("interrupted; every file in --out is whole (the old one or the new one)")
        sys.exit(130)
    finally:
        for folder in staging:  # left by an interrupt or an error: never a half-written report
            shutil.rmtree(folder, ignore_errors=True)
