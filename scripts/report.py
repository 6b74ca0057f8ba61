#!/usr/bin/env python3
"""A Markdown page and PNG charts from the result files of `ompref run --json`.

  scripts/report.py A.json [B.json ...] --out DIR [--cuda ceilings.txt]
  (what `ompref report A.json ... --out DIR` runs)

Writes DIR/index.md with, per file and workload, a table of the runs and the
fraction of the measured ceiling per variant (one chart per figure-of-merit
unit), the step chart of gpp's and lbm's variants, a roofline per file, and with
several files the speedup of each run against the first file. --cuda reads the
JSON line printed by ceilings.cu in the same command: its triad and FP64 FMA
rate become extra ceilings of the device. Exit 2 with one line on bad input.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import sys
import tempfile

try:
    import matplotlib  # noqa: F401  (the charts need it; say which package brings it)
except ImportError:
    print("report.py: matplotlib is missing (install the Debian package python3-matplotlib)", file=sys.stderr)
    sys.exit(2)
from report_charts import bar_fractions, bar_speedups, bar_steps, fmt_num, roofline, slug  # noqa: E402

# gpp's and lbm's variants are successive optimisation steps, in the order the
# GPU hackathon report (BerkeleyGW GPP) and the SYCL port by Ding et al. 2023
# (openLBMflow) take them; the other workloads' variants are alternatives.
STEP_WORKLOADS = ("gpp", "lbm")
NOT_A_RESULT = "not a result file of `ompref run --json`"


def fail(message):
    print(f"report.py: {message}", file=sys.stderr)
    sys.exit(2)


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
                return json.loads(line)
            except ValueError:
                break
    fail(f"--cuda {path}: no JSON line from ceilings.cu in it")


def short_names(paths):
    """The shortest trailing parts of the paths that tell them apart."""
    parts = [os.path.normpath(p).split(os.sep) for p in paths]
    for n in range(1, max(len(p) for p in parts) + 1):
        names = ["/".join(p[-n:]) for p in parts]
        if len(set(names)) == len(names):
            return names
    return list(paths)


def place_of(run):
    """Where a run was meant to run: the key runs of several files are matched by."""
    if isinstance(run.get("device"), int) and not isinstance(run.get("device"), bool):
        return f"device {run['device']}"
    return "host" if run.get("kind", "host") == "host" else "device"


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
    return (f"| {label} | `{path}` | {doc.get('compiler', '?')} | {doc.get('offload', '?')} | "
            f"{host.get('cpu', '?')}, {host.get('threads', '?')} threads | {devices} | {date} |")


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


def params_line(runs):
    """The workload's parameters as the first run has them (non-scalar values shortened)."""
    params = runs[0].get("params") or {}
    items = []
    for key, value in params.items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        items.append(f"{key}={text if len(text) <= 40 else text[:37] + '...'}")
    return [f"Parameters: `{', '.join(items)}`", ""] if items else []


def run_table(runs, cuda):
    head = "| variant | ran on | median | min | transfer | figure of merit | of ceiling | valid |"
    sep = "|---|---|---:|---:|---:|---:|---:|---|"
    if cuda:
        head += " of CUDA triad | of CUDA FP64 |"
        sep += "---:|---:|"
    lines = [head, sep]
    for r in runs:
        t, fom = r["time_s"], r.get("fom") or {}
        frac = r.get("ceiling_fraction")
        line = (f"| {r['variant']} | {r['ran_on']} | {fmt_time(t['median'])} | {fmt_time(t.get('min'))} | "
                f"{fmt_time(r.get('transfer_s') or None)} | {fmt_num(fom.get('value'))} {fom.get('name', '')} | "
                f"{'-' if frac is None else f'{frac:.3f}'} | {'PASS' if r['valid'] else 'FAIL'} |")
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
             "| variant | ran on | " + " | ".join(names) + " |", "|---|---|" + "---:|" * len(names)]
    for r in runs:
        by_name = {p.get("name"): p for p in r.get("phases") or []}
        cells = []
        for n in names:
            p = by_name.get(n)
            cells.append("-" if not p else f"{fmt_num(p.get('GBps'))} ({fmt_num(p.get('GBps_best', p.get('GBps')))})")
        lines.append(f"| {r['variant']} | {r['ran_on']} | " + " | ".join(cells) + " |")
    return lines


def file_section(i, label, doc, out_dir, cuda):
    """One file: its ceilings, and per workload a table and the charts."""
    lines = [f"## [{i}] {label}", ""]
    for c in doc.get("ceilings") or []:
        lines.append(f"- ceiling on {c.get('place')}: stream triad {fmt_num(c.get('triad_GBps'))} GB/s "
                     f"({c.get('variant', '?')}, n = {c.get('n', '?')}{'' if c.get('valid', True) else ', FAIL'})")
    if cuda:
        lines.append(f"- CUDA, same command (--cuda): triad {cuda.get('triad_GBps')} GB/s, "
                     f"FP64 FMA {cuda.get('fp64_fma_TFLOPs')} TFLOP/s")
    if not doc.get("ceilings"):
        lines.append("- no ceiling measured (run with --no-ceiling): no fraction-of-ceiling chart")
    bandwidth, fp64 = bandwidth_ceilings(doc, cuda), fp64_ceilings(doc, cuda)
    for (workload, size), runs in groups(doc).items():
        lines += ["", f"### {workload}, size {size}", ""] + params_line(runs) + run_table(runs, cuda) + phase_table(runs)
        for png in bar_fractions(runs, f"[{i}] {workload} {size}", out_dir, f"{i}-{slug(workload)}-{slug(size)}"):
            lines += ["", f"![{workload} fraction of the ceiling]({png})"]
        name = f"{i}-{slug(workload)}-{slug(size)}"
        if workload in STEP_WORKLOADS:
            png = bar_steps(runs, f"[{i}] {workload} {size}", out_dir, f"{name}-steps")
            if png:
                lines += ["", f"![{workload} steps]({png})"]
        png = roofline(runs, bandwidth, fp64, f"[{i}] {workload} {size}", out_dir, f"{name}-roofline")
        if png:
            lines += ["", f"![{workload} roofline]({png})"]
    return lines


def matched_rows(docs):
    """(workload, size, variant, place) -> per file the run or None, in first-appearance order."""
    rows = {}
    for k, doc in enumerate(docs):
        seen = {}
        for run in doc["runs"]:
            key = (run["workload"], run["size"], run["variant"], place_of(run))
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                key = key[:3] + (f"{key[3]} #{seen[key]}",)
            rows.setdefault(key, [None] * len(docs))[k] = run
    return rows


def geomean_row(wrows, files):
    """The geometric mean of the speedups of the runs valid in both files, as `ompref compare` prints it."""
    cells = []
    for k in range(1, files):
        ratios = [runs[0]["time_s"]["median"] / runs[k]["time_s"]["median"] for runs in wrows.values()
                  if runs[0] and runs[k] and runs[0]["valid"] and runs[k]["valid"]]
        mean = math.exp(sum(math.log(v) for v in ratios) / len(ratios)) if ratios else None
        cells.append(f"{mean:.2f}x ({len(ratios)} run{'' if len(ratios) == 1 else 's'})" if mean else "-")
    return "| " + " | ".join(["geometric mean", "", ""] + [""] * files + cells) + " |"


def comparison_section(docs, labels, out_dir):
    rows = matched_rows(docs)
    lines = ["## Comparison", "",
             "Speedup of [k] = median time in [1] / median time in [k]: above 1, [k] is faster; the geometric "
             "mean is over the runs valid in both files. `ompref compare` prints the same numbers as text.", ""]
    workloads = list(dict.fromkeys(key[0] for key in rows))
    for w in workloads:
        wrows = {key: runs for key, runs in rows.items() if key[0] == w}
        head = "| variant | size | place | " + " | ".join(f"[{k + 1}] median" for k in range(len(docs)))
        head += " | " + " | ".join(f"[{k + 1}] speedup" for k in range(1, len(docs))) + " |"
        lines += [f"### {w}", "", head, "|---|---|---|" + "---:|" * (2 * len(docs) - 1)]
        for (_, size, variant, place), runs in wrows.items():
            times = [fmt_time(r["time_s"]["median"]) + ("" if r["valid"] else " FAIL") if r else "-" for r in runs]
            speed = [f"{runs[0]['time_s']['median'] / r['time_s']['median']:.2f}x" if r and runs[0] else "-"
                     for r in runs[1:]]
            lines.append(f"| {variant} | {size} | {place} | " + " | ".join(times) + " | " + " | ".join(speed) + " |")
        lines.append(geomean_row(wrows, len(docs)))
        png = bar_speedups(w, wrows, labels, out_dir, f"compare-{slug(w)}")
        if png:
            lines += ["", f"![{w} speedups]({png})"]
        lines.append("")
    return lines


EXPLAIN = """## What the charts show

- **Fraction of the ceiling** (one chart per figure-of-merit unit, so GB/s, GFLOP/s and MLUPS never share an
  axis): the run's bytes (its model) / median time, divided by the best stream triad measured on the same
  place in the same process (DESIGN.md). Host and target variants of the same kernel stand side by side;
  the number on a bar is the run's figure of merit in the chart's unit. A compute-bound workload (gpp)
  sits far below 1 on this measure; its roofline says more.
- **Steps** (gpp, lbm): the speedup of each variant over the one before it, in the order of the file (the
  optimisation steps of the GPU hackathon report for the BerkeleyGW GPP kernel, and of the SYCL port of
  openLBMflow by Ding et al. 2023), from median times.
- **Roofline**: x is the arithmetic intensity of a run, flops / bytes of its model (flop per byte moved);
  y is the attained rate, flops / median time in GFLOP/s; both axes logarithmic, one panel per place. The
  slanted line is the measured stream triad bandwidth times the intensity: no run moving its model's bytes
  can sit above it. The flat line, where the file or --cuda gives one, is the FP64 rate. A point close to
  the slanted line is bandwidth-bound; one far below both lines leaves performance unused.
- **Comparison** (several files): per run, median time in [1] / median time in [k].
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="files written by ompref run --json; the first is the reference")
    ap.add_argument("--out", required=True, help="directory for index.md and the PNGs (created)")
    ap.add_argument("--cuda", help="ceilings.cu output of the same command")
    args = ap.parse_args()
    docs = [load(p) for p in args.json]
    cuda = load_cuda(args.cuda) if args.cuda else None
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        fail(f"--out {args.out}: not a directory")
    os.makedirs(args.out, exist_ok=True)
    final_out = args.out
    args.out = tempfile.mkdtemp(prefix=".report.tmp.", dir=final_out)  # moved in whole by publish()
    staging.append(args.out)
    labels = short_names(args.json)
    lines = ["# ompref report", "", "| | file | compiler | offload | host | devices | date |",
             "|---|---|---|---|---|---|---|"]
    lines += [header_row(f"[{k + 1}]", labels[k], doc) for k, doc in enumerate(docs)]
    lines += ["", EXPLAIN]
    for k, doc in enumerate(docs):
        lines += file_section(k + 1, labels[k], doc, args.out, cuda) + [""]
    if len(docs) > 1:
        lines += comparison_section(docs, labels, args.out)
    with open(os.path.join(args.out, "index.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    charts = publish(args.out, final_out)
    print(f"report.py: wrote {os.path.join(final_out, 'index.md')} and {charts} charts")


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
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        print("\nreport.py: interrupted; every file in --out is whole (the old one or the new one)", file=sys.stderr)
        sys.exit(130)
    finally:
        for folder in staging:  # left by an interrupt or an error: never a half-written report
            shutil.rmtree(folder, ignore_errors=True)
