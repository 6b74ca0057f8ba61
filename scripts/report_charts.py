"""The charts of scripts/report.py (matplotlib, PNG): fraction of the ceiling,
optimisation steps, roofline and speedups against a reference file.

Each function draws one figure into the output directory and returns the PNG's
file name (relative to that directory), or None when there is nothing to draw.
Figures stay at most 14 inches wide at 110 dpi (about 1500 pixels); an axis
turns logarithmic when its values span more than a factor of 20.
"""
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive back-end)
from matplotlib import ticker  # noqa: E402

DPI = 110
MAX_WIDTH = 14.0
PALETTE = plt.get_cmap("tab10").colors
KINDS = ("host", "target", "native")


def fmt_num(x):
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "-"
    a = abs(x)
    if a >= 100:
        return f"{x:,.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 0.01:
        return f"{x:.2f}"
    return f"{x:.2g}"


def fmt_speedup(x):
    """Two significant digits below 0.1 (a 100x slowdown is not 0.01), else two decimals."""
    if x < 0.1:
        return f"{x:#.2g}"
    return f"{x:.2f}" if x < 100 else f"{x:,.0f}"


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def width_for(n_bars):
    return min(MAX_WIDTH, max(6.5, 2.0 + 0.45 * n_bars))


def log_if_spread(ax, values):
    """Logarithmic y when the positive values span more than a factor of 20."""
    vals = [v for v in values if v is not None and v > 0]
    if vals and max(vals) / min(vals) > 20:
        ax.set_yscale("log")
        readable_log_ticks(ax.yaxis, min(vals), max(vals))
        return True
    return False


def readable_log_ticks(axis, lo, hi):
    """Plain numbers on a log axis, and the 2s and 5s between powers of ten where it spans under 3 decades."""
    def text(v, _):
        return f"{v:,.0f}" if v >= 1000 else f"{v:g}"
    axis.set_major_formatter(ticker.FuncFormatter(text))
    if hi / lo < 1000:
        axis.set_minor_formatter(ticker.FuncFormatter(lambda v, pos: text(v, pos) if f"{v:.0e}"[0] in "25" else ""))


def save(fig, out_dir, name):
    fig.tight_layout()
    path = f"{name}.png"
    fig.savefig(os.path.join(out_dir, path), dpi=DPI)
    plt.close(fig)
    return path


def kind_of(run):
    prefix = run["variant"].split("_", 1)[0]
    return run.get("kind") or (prefix if prefix in KINDS else "host")


def stem(variant):
    """host_direct and target_direct are the same kernel: their bars stand side by side."""
    prefix, _, rest = variant.partition("_")
    return rest if prefix in KINDS and rest else variant


def series_of(run):
    return "host" if kind_of(run) == "host" else f"{kind_of(run)}, {run['ran_on']}"


def centre_slots(ax, n):
    """At least three slots wide, so that one or two groups of bars do not fill the whole figure."""
    span = max(n, 3)
    ax.set_xlim((n - 1) / 2 - span / 2, (n - 1) / 2 + span / 2)


def rotate_ticks(ax, labels):
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 3 else 0, ha="right" if len(labels) > 3 else "center",
                       fontsize=8)


def bars_from_one(ax, xs, values, width, **kw):
    """Bars that start at 1, up for a speedup, down for a slowdown (on a linear or a log axis)."""
    return ax.bar(xs, [v - 1 for v in values], width, bottom=1, **kw)


def label_bars(ax, xs, values, texts, log):
    for x, v, text in zip(xs, values, texts):
        up = v >= 1
        ax.annotate(text, (x, v), xytext=(0, 2 if up else -2), textcoords="offset points", ha="center",
                    va="bottom" if up else "top", fontsize=7)
    lo, hi = min(values + [1.0]), max(values + [1.0])
    ax.set_ylim(lo / 1.6 if log else min(0, lo - 0.1), hi * 1.6 if log else hi * 1.15 + 0.05)


def bar_fractions(runs, title, out_dir, name):
    """One chart per figure-of-merit unit: the runs' fraction of the ceiling, kernels' host and target side by side."""
    by_unit = {}
    for r in runs:
        if isinstance(r.get("ceiling_fraction"), (int, float)):
            by_unit.setdefault((r.get("fom") or {}).get("name", "?"), []).append(r)
    return [fraction_chart(urs, unit, title, out_dir, f"{name}-{slug(unit)}") for unit, urs in by_unit.items()]


def fraction_chart(runs, unit, title, out_dir, name):
    stems = list(dict.fromkeys(stem(r["variant"]) for r in runs))
    per_stem = {s: [r for r in runs if stem(r["variant"]) == s] for s in stems}
    series = list(dict.fromkeys(series_of(r) for r in runs))
    color = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    width = 0.8 / max(len(v) for v in per_stem.values())
    fig, ax = plt.subplots(figsize=(width_for(len(runs)), 4.8))
    values = [r["ceiling_fraction"] for r in runs]
    log = log_if_spread(ax, values + [1.0])
    shown = set()
    for i, s in enumerate(stems):
        rs = per_stem[s]
        for j, r in enumerate(rs):
            x, v, ser = i + (j - (len(rs) - 1) / 2) * width, r["ceiling_fraction"], series_of(r)
            ax.bar(x, v, width * 0.92, color=color[ser], label=None if ser in shown else ser,
                   hatch=None if r["valid"] else "//", edgecolor="black" if not r["valid"] else None)
            shown.add(ser)
            text = fmt_num((r.get("fom") or {}).get("value")) + ("" if r["valid"] else " FAIL")
            ax.annotate(text, (x, v), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7, rotation=90 if len(runs) > 8 else 0)
    rotate_ticks(ax, [s if len(per_stem[s]) > 1 else per_stem[s][0]["variant"] for s in stems])
    centre_slots(ax, len(stems))
    ax.axhline(1.0, ls="--", lw=1, color="grey", label="the ceiling (best stream triad of the place)")
    top = max(values + [1.0])
    ax.set_ylim((min(values) / 2, top * 8) if log else (0, top * 1.3))
    ax.set_ylabel("fraction of the ceiling")
    ax.set_title(f"{title}: fraction of the ceiling (numbers on bars: {unit})", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    return save(fig, out_dir, name)


def bar_steps(runs, title, out_dir, name):
    """The speedup of each variant over the one before it, in the file's order."""
    seq = []
    for r in runs:  # a variant run on several devices: its first run stands for it
        if all(s["variant"] != r["variant"] for s in seq):
            seq.append(r)
    if len(seq) < 2:
        return None
    speedups = [a["time_s"]["median"] / b["time_s"]["median"] for a, b in zip(seq, seq[1:])]
    labels = [f"{a['variant']}\n→ {b['variant']}" for a, b in zip(seq, seq[1:])]
    fig, ax = plt.subplots(figsize=(width_for(2 * len(speedups)), 4.8))
    log = log_if_spread(ax, speedups + [1.0])
    xs = list(range(len(speedups)))
    colors = [PALETTE[2] if s >= 1 else PALETTE[3] for s in speedups]
    bars_from_one(ax, xs, speedups, 0.6, color=colors)
    texts = [f"×{fmt_speedup(s)}" + ("" if a["valid"] and b["valid"] else " (FAIL)") for s, a, b in zip(speedups, seq, seq[1:])]
    label_bars(ax, xs, speedups, texts, log)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, fontsize=8)
    ax.axhline(1.0, lw=1, color="grey")
    total = seq[0]["time_s"]["median"] / seq[-1]["time_s"]["median"]
    ax.set_ylabel("speedup over the previous step")
    ax.set_title(f"{title}: speedup of each step over the previous one (median times)\n"
                 f"{seq[-1]['variant']} against {seq[0]['variant']}: ×{fmt_speedup(total)}", fontsize=10)
    return save(fig, out_dir, name)


def panel_of(run):
    """Where a run ran: a host fallback is a host run."""
    return "host" if run["ran_on"].startswith("host") else run["ran_on"]


def roofline(runs, bandwidth, fp64, title, out_dir, name):
    """Arithmetic intensity (flops / bytes) against attained GFLOP/s, one panel per place, with its ceilings."""
    pts = [r for r in runs if (r.get("flops") or 0) > 0 and (r.get("bytes") or 0) > 0 and r["time_s"]["median"] > 0]
    if not pts:
        return None
    panels = list(dict.fromkeys(panel_of(r) for r in pts))
    fig, axes = plt.subplots(1, len(panels), figsize=(min(MAX_WIDTH, 1.0 + 6.0 * len(panels)), 5.2), squeeze=False)
    for ax, place in zip(axes[0], panels):
        roofline_panel(ax, [r for r in pts if panel_of(r) == place], bandwidth.get(place, []), fp64.get(place), place)
    fig.suptitle(f"{title}: roofline", fontsize=10)
    return save(fig, out_dir, name)


def roofline_panel(ax, runs, bandwidth, fp64, place):
    ai = [r["flops"] / r["bytes"] for r in runs]
    perf = [r["flops"] / r["time_s"]["median"] / 1e9 for r in runs]
    lo, hi = min(ai) / 10, max(ai) * 10
    if fp64 and bandwidth:
        ridge = fp64 / max(g for _, g in bandwidth)
        lo, hi = min(lo, ridge / 4), max(hi, ridge * 4)
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for i, (label, gbps) in enumerate(bandwidth):
        ys = [min(gbps * x, fp64) if fp64 else gbps * x for x in xs]
        ax.plot(xs, ys, color="black", ls="-" if i == 0 else ":", lw=1.2, label=f"{label}: {fmt_num(gbps)} GB/s × intensity")
    if fp64:
        ax.axhline(fp64, color="dimgrey", ls="--", lw=1.2, label=f"FP64: {fmt_num(fp64)} GFLOP/s")
    workloads = list(dict.fromkeys(r["workload"] for r in runs))
    markers = "os^Dv<>p"
    for r, x, y in zip(runs, ai, perf):
        k = kind_of(r)
        ax.scatter([x], [y], marker=markers[workloads.index(r["workload"]) % len(markers)],
                   color=PALETTE[KINDS.index(k) if k in KINDS else 4], edgecolor="black", linewidth=0.5, zorder=3,
                   s=36)
    for k in dict.fromkeys(kind_of(r) for r in runs):
        fallback = k != "host" and any(kind_of(r) == k and r["ran_on"] == "host (fallback)" for r in runs)
        ax.scatter([], [], marker="o", color=PALETTE[KINDS.index(k) if k in KINDS else 4],
                   label=f"{k} variants" + (" (host fallback)" if fallback else ""))
    if len(workloads) > 1:
        for w in workloads:
            ax.scatter([], [], marker=markers[workloads.index(w) % len(markers)], color="white", edgecolor="black", label=w)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    roof = [fp64] if fp64 else [max(g for _, g in bandwidth) * max(ai)] if bandwidth else []
    ylo, yhi = min(perf) / 5, max(perf + roof) * 3
    ax.set_ylim(ylo, yhi)
    readable_log_ticks(ax.xaxis, lo, hi)
    readable_log_ticks(ax.yaxis, ylo, yhi)
    ax.set_xlabel("arithmetic intensity (flop / byte of the model)")
    ax.set_ylabel("attained GFLOP/s (flops / median time)")
    ax.set_title(place, fontsize=9)
    ax.grid(True, which="major", lw=0.3)
    missing = [] if bandwidth else ["no bandwidth ceiling (the run had --no-ceiling)"]
    if not fp64:
        missing.append("no FP64 ceiling for this place" + (" (--cuda adds the CUDA one)" if place != "host" else ""))
    if missing:
        ax.text(0.98, 0.02, "\n".join(missing),
                transform=ax.transAxes,
                ha="right", va="bottom", fontsize=7, color="dimgrey")
    place_labels(ax, runs, ai, perf)
    ax.legend(fontsize=7, loc="best")


def label_spots():
    """Label offsets (points) to try, nearest first: right of the point, left of it, then a line up or down."""
    for level in range(7):
        for dy in ((0,) if level == 0 else (9 * level, -9 * level)):
            yield 6, dy, "left"
            yield -6, dy, "right"


def place_labels(ax, runs, xs, ys):
    """Variant names beside their points, at the nearest spot that covers no other label or point;
    a label moved up or down keeps a thin line to its point."""
    points = 72.0 / ax.figure.dpi  # display pixels to typographic points, the unit of the offsets
    at = [tuple(v * points for v in ax.transData.transform((x, y))) for x, y in zip(xs, ys)]
    taken = [(px - 4, py - 4, px + 4, py + 4) for px, py in at]  # the markers themselves

    def free(box):
        return all(box[2] <= t[0] or box[0] >= t[2] or box[3] <= t[1] or box[1] >= t[3] for t in taken)

    for i in sorted(range(len(runs)), key=lambda i: (xs[i], -ys[i])):
        text = runs[i]["variant"] + ("" if runs[i]["valid"] else " (FAIL)")
        width, (px, py) = 4.0 * len(text), at[i]
        spot = None
        for dx, dy, ha in label_spots():
            x0 = px + dx if ha == "left" else px + dx - width
            box = (x0, py + dy - 4, x0 + width, py + dy + 4)
            if free(box):
                spot = (dx, dy, ha, box)
                break
        dx, dy, ha, box = spot or (6, 0, "left", (px + 6, py - 4, px + 6 + width, py + 4))
        taken.append(box)
        ax.annotate(text, (xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points", fontsize=7, ha=ha,
                    va="center", arrowprops=dict(arrowstyle="-", lw=0.5, color="grey", shrinkA=0, shrinkB=3)
                    if dy else None)


def bar_speedups(workload, rows, labels, out_dir, name):
    """Per run of a workload: median time in the first file / median time in each other file."""
    keys = [k for k, runs in rows.items() if runs[0] and any(runs[1:])]
    if not keys:
        return None
    sizes = {k[1] for k in keys}
    places = {}
    for k in keys:
        places.setdefault(k[2], set()).add(k[3])
    ticks = [k[2] + (f" {k[1]}" if len(sizes) > 1 else "") + (f" ({k[3]})" if len(places[k[2]]) > 1 else "")
             for k in keys]
    n = len(labels) - 1
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(width_for(len(keys) * n), 4.8))
    all_values = []
    for f in range(1, len(labels)):
        xs, vals, texts = [], [], []
        for i, k in enumerate(keys):
            runs = rows[k]
            if runs[f]:
                xs.append(i + (f - 1 - (n - 1) / 2) * width)
                vals.append(runs[0]["time_s"]["median"] / runs[f]["time_s"]["median"])
                texts.append(fmt_speedup(vals[-1]) + ("" if runs[0]["valid"] and runs[f]["valid"] else " FAIL"))
        all_values += vals
        if vals:
            valid = [v for v, t in zip(vals, texts) if not t.endswith("FAIL")]  # as ompref compare: valid in both
            mean = f"{math.exp(sum(math.log(v) for v in valid) / len(valid)):.2f}" if valid else "-"
            bars_from_one(ax, xs, vals, width * 0.92, color=PALETTE[f % len(PALETTE)],
                          label=f"[{f + 1}] {labels[f]} (geometric mean {mean})")
            if len(keys) * n <= 24:
                for x, v, text in zip(xs, vals, texts):
                    ax.annotate(text, (x, v), xytext=(0, 2 if v >= 1 else -2), textcoords="offset points",
                                ha="center", va="bottom" if v >= 1 else "top", fontsize=7)
    log = log_if_spread(ax, all_values + [1.0])
    lo, hi = min(all_values + [1.0]), max(all_values + [1.0])
    ax.set_ylim((lo / 1.6, hi * 1.6) if log else (min(0.0, lo - 0.1), hi * 1.15 + 0.05))
    ax.axhline(1.0, lw=1, color="grey")
    rotate_ticks(ax, ticks)
    centre_slots(ax, len(keys))
    ax.set_ylabel("speedup against [1]\n(median time in [1] / in [k])")
    ax.set_title(f"{workload}: speedup of each run against [1] {labels[0]}", fontsize=10)
    ax.legend(fontsize=8)
    return save(fig, out_dir, name)
