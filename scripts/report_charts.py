"""The charts of scripts/report.py (matplotlib, PNG): fraction of the ceiling,
optimisation steps, roofline and speedups against a reference file.

Each function draws one figure into the output directory and returns the PNG's
file name (relative to that directory), or None when there is nothing to draw.
Every chart has axis labels with units, a title and a legend; fonts are sized
for a figure printed at the width of a paper's column (a figure 7 to 12 inches
wide scaled to about 3.5: no text below 9 points before scaling). Figures stay
at most 12 inches wide at 150 dpi (1800 pixels); an axis turns logarithmic
when its values span more than a factor of 20.
"""
import math
import os
import re
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive back-end)
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

DPI = 150
MAX_WIDTH = 12.0
PALETTE = plt.get_cmap("tab10").colors
KINDS = ("host", "target", "native")
TEXT = 9  # points: annotations, legends, tick labels of crowded axes
plt.rcParams.update({"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "xtick.labelsize": 10,
                     "ytick.labelsize": 10, "legend.fontsize": TEXT,
                     # Names from result files are text: a "$" in one is not mathtext to parse.
                     "text.parse_math": False})

# The role of a variant in the lesson (scripts/report.py's lesson graph), its colour and legend text.
ROLES = {"host": (PALETTE[0], "host variant"),
         "target": (PALETTE[1], "target variant (the pair's port)"),
         "step": (PALETTE[2], "target step (a tuned form)"),
         "native": (PALETTE[3], "CUDA twin")}


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


def wrap(text, width=72):
    """A title on lines of at most `width` characters (a long variant or device name stays whole)."""
    return "\n".join(textwrap.wrap(text, width)) or text


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def width_for(n_bars):
    return min(MAX_WIDTH, max(7.0, 2.5 + 0.42 * n_bars))


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
    """The figure as NAME.png in out_dir (a fresh folder), or NAME-2.png, NAME-3.png ... where names made of
    different workloads, sizes or places slug to one (a.b and a-b, tiny and TINY)."""
    fig.tight_layout()
    path, n = f"{name}.png", 2
    while os.path.lexists(os.path.join(out_dir, path)):
        path, n = f"{name}-{n}.png", n + 1
    fig.savefig(os.path.join(out_dir, path), dpi=DPI)
    plt.close(fig)
    return path


def kind_of(run):
    prefix = run["variant"].split("_", 1)[0]
    return run.get("kind") or (prefix if prefix in KINDS else "host")


def place_of_run(run):
    """Where a run ran: "host", "host (fallback)" or the device; a chain and a panel each."""
    return run["ran_on"]


def panel_of(run):
    """Where a run ran, for the roofline: a host fallback is a host run."""
    return "host" if run["ran_on"].startswith("host") else run["ran_on"]


def rotate_ticks(ax, positions, labels, fontsize=TEXT):
    ax.set_xticks(positions)
    crowded = len(labels) > 3
    ax.set_xticklabels(labels, rotation=35 if crowded else 0, ha="right" if crowded else "center", fontsize=fontsize,
                       rotation_mode="anchor" if crowded else "default")


def bars_from_one(ax, xs, values, width, **kw):
    """Bars that start at 1, up for a speedup, down for a slowdown (on a linear or a log axis)."""
    return ax.bar(xs, [v - 1 for v in values], width, bottom=1, **kw)


def speedup_limits(ax, values, log):
    """Room above the bars for their numbers and the legend."""
    lo, hi = min(values + [1.0]), max(values + [1.0])
    ax.set_ylim((lo / 1.8, hi * 4) if log else (min(0.0, lo - 0.1), hi * 1.45 + 0.05))


# --- fraction of the ceiling ------------------------------------------------------------------------------------


def fraction_chart(bars, basis, title, out_dir, name):
    """bars: dicts with group (the x group: a kernel or a pair), label (the variant), role, value (the fraction),
    fom (the figure-of-merit text on the bar), valid, place. basis: "triad" or "fp64"."""
    if not bars:
        return None
    groups = list(dict.fromkeys(b["group"] for b in bars))
    per_group = {g: [b for b in bars if b["group"] == g] for g in groups}
    places = list(dict.fromkeys(b["place"] for b in bars))
    several_places = len(places) > 1
    n = len(bars)
    fig, ax = plt.subplots(figsize=(width_for(n + len(groups)), 5.4))
    values = [b["value"] for b in bars]
    log = log_if_spread(ax, values + [1.0])
    x, xs, labels, centres, group_edges = 0.0, [], [], [], []
    shown = set()
    for g in groups:
        if xs:
            group_edges.append(x - 0.85)
        first = x
        for b in per_group[g]:
            color, legend = ROLES[b["role"]]
            hatch = "//" if not b["valid"] else ("xx" if b["place"] == "host (fallback)" else None)
            series = legend + (f", {b['place']}" if several_places else "")
            ax.bar(x, b["value"], 0.82, color=color, hatch=hatch, edgecolor="black" if hatch else None, linewidth=0.5,
                   label=None if series in shown else series)
            shown.add(series)
            ax.annotate(b["fom"] + ("" if b["valid"] else " FAIL"), (x, b["value"]), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=TEXT - 1,
                        rotation=90 if n > 6 else 0)
            xs.append(x)
            labels.append(b["label"])
            x += 1
        centres.append(((first + x - 1) / 2, g))
        x += 0.7
    rotate_ticks(ax, xs, labels)
    if any(len(per_group[g]) > 1 for g in groups):  # the groups' names above their bars, on a top axis
        top = ax.secondary_xaxis("top")
        top.set_xticks([cx for cx, _ in centres])
        top.set_xticklabels([g for _, g in centres], fontsize=TEXT, fontweight="bold")
        top.tick_params(length=0)
        for edge in group_edges:
            ax.axvline(edge, color="lightgrey", lw=0.8)
    ax.set_xlim(-0.8, max(x - 0.7, 2.2) + 0.1)
    what = ("the place's measured FP64 rate (flops / median time; compute-bound runs)" if basis == "fp64"
            else "the place's best stream triad (bytes / median time; bandwidth-bound runs)")
    ax.axhline(1.0, ls="--", lw=1.2, color="grey", label="1 = " + what)
    top = max(values + [1.0])
    ax.set_ylim((min(values) / 2, top * 12) if log else (0, top * 1.35))
    ax.set_ylabel("fraction of the FP64 rate" if basis == "fp64" else "fraction of the stream triad")
    ax.set_title(f"{title}: fraction of the {'FP64 rate' if basis == 'fp64' else 'stream triad bandwidth'}\n"
                 f"(numbers on bars: the run's figure of merit)", pad=18 if len(groups) < len(bars) else 6)
    ax.legend(loc="upper left", ncol=2 if len(shown) > 3 else 1)
    return save(fig, out_dir, name)


# --- steps of the lesson ------------------------------------------------------------------------------------------


def step_chart(chains, twins, title, place, out_dir, name):
    """chains: lists of (run, predecessor run or None) in lesson order, the first of each its root; twins: per chain,
    [(twin run, the chain's run of the same kernel)]. Bars: each variant's speedup over its chain's root (median
    times), the step's own factor over its predecessor on the bar; a CUDA twin is a horizontal reference line over
    its chain, at the root's median / the twin's median, not a step."""
    if not chains:
        return None
    n = sum(len(c) for c in chains)
    fig, ax = plt.subplots(figsize=(width_for(n + 2 * len(chains)), 5.6))
    heights, positions, labels = [], [], []
    x = 0.0
    spans = []
    for chain in chains:
        root = chain[0][0]
        first = x
        for run, pred in chain:
            h = root["time_s"]["median"] / run["time_s"]["median"]
            heights.append(h)
            positions.append(x)
            after = pred is not None and (len(chains) == 1 or pred is not chain[0][0] or len(chain) > 2)
            labels.append(f"{run['variant']}\n(after {pred['variant']})" if after else run["variant"])
            x += 1
        spans.append((first, x - 1))
        x += 0.8
    twin_values = [chain_root[0][0]["time_s"]["median"] / t["time_s"]["median"]
                   for chain_root, ts in zip(chains, twins) for t, _ in ts]
    log = log_if_spread(ax, heights + twin_values + [1.0])
    i = 0
    for chain in chains:
        for run, pred in chain:
            xpos, h = positions[i], heights[i]
            valid = run["valid"] and (pred is None or pred["valid"])
            if pred is None:
                ax.bar(xpos, 0.0, 0.7, bottom=1, color="none")
                ax.plot([xpos - 0.35, xpos + 0.35], [1, 1], color="black", lw=2)
                text = "reference" if len(chains) == 1 else ""
            else:
                step = pred["time_s"]["median"] / run["time_s"]["median"]
                role = "step"
                bars_from_one(ax, [xpos], [h], 0.7, color=ROLES[role][0] if step >= 1 else PALETTE[7],
                              hatch=None if valid else "//", edgecolor="black" if not valid else None)
                text = f"×{fmt_speedup(step)}" + ("" if valid else " FAIL")
            ax.annotate(text, (xpos, h), xytext=(0, 3 if h >= 1 else -3), textcoords="offset points", ha="center",
                        va="bottom" if h >= 1 else "top", fontsize=TEXT)
            i += 1
    handles = [Line2D([], [], color="black", lw=2, label="a chain's first variant (1)")] if len(chains) > 1 else []
    handles += [Patch(color=ROLES["step"][0], label="a step faster than the variant it follows (×: its own factor)")]
    if any(pred and pred["time_s"]["median"] < run["time_s"]["median"] for chain in chains for run, pred in chain):
        handles.append(Patch(color=PALETTE[7], label="a step slower than the variant it follows"))
    few = sum(len(ts) for ts in twins) <= 2  # a legend entry each; else one entry and a label at each line
    if not few and any(twins):
        handles.append(Line2D([], [], color=ROLES["native"][0], ls="--", lw=1.6,
                              label="CUDA twin of the chain's kernel (×: over the chain's first variant)"))
    for (lo, hi), chain, ts in zip(spans, chains, twins):
        root = chain[0][0]
        for twin, partner in ts:
            y = root["time_s"]["median"] / twin["time_s"]["median"]
            fails = "" if twin["valid"] else " (FAIL)"
            ax.hlines(y, lo - 0.45, hi + 0.45, colors=ROLES["native"][0], linestyles="--", lw=1.6,
                      label=f"CUDA twin {twin['variant']} (the kernel of {partner['variant']}): "
                            f"×{fmt_speedup(y)} over {root['variant']}{fails}" if few else None)
            if not few:
                ax.annotate(f"{twin['variant']} ×{fmt_speedup(y)}{fails}", (hi + 0.45, y), xytext=(0, 2),
                            textcoords="offset points", ha="right", va="bottom", fontsize=TEXT - 1,
                            color=ROLES["native"][0], bbox=dict(facecolor="white", edgecolor="none", pad=0.5,
                                                                alpha=0.8))
    rotate_ticks(ax, positions, labels, fontsize=TEXT)
    ax.axhline(1.0, lw=0.8, color="grey")
    speedup_limits(ax, heights + twin_values, log)
    ax.set_xlim(-0.8, max(x - 0.8, 2.2) + 0.1)
    roots = ", ".join(c[0][0]["variant"] for c in chains) if len(chains) <= 3 else f"{len(chains)} variants"
    ax.set_ylabel(f"speedup over {roots if len(chains) == 1 else 'the chain’s first variant'}\n(median times)")
    ax.set_title(wrap(f"{title}, {place}: the lesson's steps, {'chain' if len(chains) == 1 else 'chains'} "
                      f"from {roots}"))
    lines, texts = ax.get_legend_handles_labels()
    ax.legend(handles=handles + lines, labels=[h.get_label() for h in handles] + texts, loc="upper left")
    return save(fig, out_dir, name)


# --- roofline ----------------------------------------------------------------------------------------------------


def roofline(runs, bandwidth, fp64, title, out_dir, name):
    """Arithmetic intensity (flops / bytes) against attained GFLOP/s, one panel per place, with its ceilings."""
    pts = [r for r in runs if (r.get("flops") or 0) > 0 and (r.get("bytes") or 0) > 0 and r["time_s"]["median"] > 0]
    if not pts:
        return None
    panels = list(dict.fromkeys(panel_of(r) for r in pts))
    fig, axes = plt.subplots(1, len(panels), figsize=(min(MAX_WIDTH, 1.0 + 6.0 * len(panels)), 5.8), squeeze=False)
    for ax, place in zip(axes[0], panels):
        roofline_panel(ax, [r for r in pts if panel_of(r) == place], bandwidth.get(place, []), fp64.get(place), place)
    fig.suptitle(f"{title}: roofline")
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
                   s=40)
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
    ax.set_title(place)
    ax.grid(True, which="major", lw=0.3)
    missing = [] if bandwidth else ["no bandwidth ceiling (the run had --no-ceiling)"]
    if not fp64:
        missing.append("no FP64 ceiling for this place" + (" (--cuda adds the CUDA one)" if place != "host" else ""))
    if missing:
        ax.text(0.98, 0.02, "\n".join(missing), transform=ax.transAxes, ha="right", va="bottom", fontsize=TEXT - 1,
                color="dimgrey")
    place_labels(ax, runs, ai, perf)
    ax.legend(loc="upper left")


def label_spots():
    """Label offsets (points) to try, nearest first: right of the point, left of it, then a line up or down."""
    for level in range(7):
        for dy in ((0,) if level == 0 else (10 * level, -10 * level)):
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

    size = TEXT - 1
    for i in sorted(range(len(runs)), key=lambda i: (xs[i], -ys[i])):
        text = runs[i]["variant"] + ("" if runs[i]["valid"] else " (FAIL)")
        width, (px, py) = 0.55 * size * len(text), at[i]
        spot = None
        for dx, dy, ha in label_spots():
            x0 = px + dx if ha == "left" else px + dx - width
            box = (x0, py + dy - size / 2, x0 + width, py + dy + size / 2)
            if free(box):
                spot = (dx, dy, ha, box)
                break
        dx, dy, ha, box = spot or (6, 0, "left", (px + 6, py - 4, px + 6 + width, py + 4))
        taken.append(box)
        ax.annotate(text, (xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points", fontsize=size, ha=ha,
                    va="center", arrowprops=dict(arrowstyle="-", lw=0.5, color="grey", shrinkA=0, shrinkB=3)
                    if dy else None)


# --- comparison of files -----------------------------------------------------------------------------------------


def bar_speedups(workload, rows, labels, geomeans, excluded, out_dir, name):
    """rows: `ompref compare --json`'s rows of one workload. Per row and file k > 0, the speedup compare gives:
    by time (median in [1] / in [k]) or by rate ([k]'s figure of merit / [1]'s, hatched); rows compare calls not
    comparable have no speedup and are left out (counted in the title)."""
    keys = [r for r in rows if any(a and a.get("speedup") for a in r["against_first"][1:])]
    if not keys:
        return None
    sizes = {r["size"] for r in keys}
    places = {}
    for r in keys:
        places.setdefault(r["variant"], set()).add(r["place"])
    ticks = [r["variant"] + (f" {r['size']}" if len(sizes) > 1 else "") +
             (f" ({r['place']})" if len(places[r["variant"]]) > 1 else "") for r in keys]
    n = len(labels) - 1
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(width_for(len(keys) * n), 5.4))
    all_values, any_rate = [], False
    for f in range(1, len(labels)):
        xs, vals, texts, rate = [], [], [], []
        for i, r in enumerate(keys):
            a = r["against_first"][f]
            if a and a.get("speedup"):
                xs.append(i + (f - 1 - (n - 1) / 2) * width)
                vals.append(a["speedup"])
                valid = all(run and run["valid"] for run in (r["runs"][0], r["runs"][f]))
                rate.append(a["basis"] == "rate")
                texts.append(fmt_speedup(vals[-1]) + ("" if valid else " FAIL"))
        all_values += vals
        if not vals:
            continue
        any_rate = any_rate or any(rate)
        g = geomeans[f] if f < len(geomeans) else None
        mean = f"{g['value']:.2f}" if g and g.get("value") else "-"
        color = PALETTE[f % len(PALETTE)]
        for j, (x, v, by_rate) in enumerate(zip(xs, vals, rate)):
            bars_from_one(ax, [x], [v], width * 0.92, color=color, hatch="//" if by_rate else None,
                          edgecolor="black" if by_rate else None, linewidth=0.5,
                          label=f"[{f + 1}] {labels[f]} (geometric mean {mean})" if j == 0 else None)
        if len(keys) * n <= 24:
            for x, v, text in zip(xs, vals, texts):
                ax.annotate(text, (x, v), xytext=(0, 2 if v >= 1 else -2), textcoords="offset points",
                            ha="center", va="bottom" if v >= 1 else "top", fontsize=TEXT - 1)
    extra = [Patch(facecolor="white", hatch="//", edgecolor="black",
                   label="hatched: by rate (the work differs: figure of merit in [k] / in [1])")] if any_rate else []
    log = log_if_spread(ax, all_values + [1.0])
    speedup_limits(ax, all_values, log)
    ax.axhline(1.0, lw=1, color="grey")
    rotate_ticks(ax, list(range(len(keys))), ticks)
    ax.set_xlim(-0.7, max(len(keys) - 1, 2) + 0.7)
    ax.set_ylabel("speedup against [1]\n(median time in [1] / in [k])")
    left_out = f"; {excluded} not comparable, left out" if excluded else ""
    ax.set_title(wrap(f"{workload}: speedup of each run against [1] {labels[0]}{left_out}"))
    lines, texts = ax.get_legend_handles_labels()
    ax.legend(handles=lines + extra, labels=texts + [h.get_label() for h in extra], loc="upper left")
    return save(fig, out_dir, name)


# --- scaling over MPI ranks (scripts/scaling.py) ----------------------------------------------------------------

def scaling_chart(doc, title, out_dir, name):
    """scripts/scaling.py's document: per variant, the speedup (left) and the efficiency (right) at each rank
    count against its own run on the fewest ranks, with the ideal (speedup = ranks / fewest, efficiency 1) as a
    dashed grey line; where the document holds them (--against), the speedup and efficiency against the named
    variant on the fewest ranks, dotted. None when no variant has two rank counts with speedups."""
    rows = [e for e in doc.get("efficiencies", []) if sum(1 for r in e["by_ranks"] if "speedup" in r) >= 2]
    if not rows:
        return None
    weak = doc.get("scaling") == "weak"
    fig, (sp, ef) = plt.subplots(1, 2, figsize=(MAX_WIDTH * 0.85, 5.0))
    counts = sorted({r["ranks"] for e in rows for r in e["by_ranks"]})
    base = counts[0]
    ideal = [n / base for n in counts]
    sp.plot(counts, ideal, ls="--", color="grey", lw=1, label="ideal")
    ef.plot(counts, [1.0] * len(counts), ls="--", color="grey", lw=1, label="ideal")
    against = None
    for k, e in enumerate(rows):
        color = PALETTE[k % len(PALETTE)]
        own = [r for r in e["by_ranks"] if "speedup" in r]
        label = e["variant"] + ("" if all(r["valid"] for r in e["by_ranks"]) else " (FAIL)")
        sp.plot([r["ranks"] for r in own], [r["speedup"] for r in own], marker="o", color=color, label=label)
        ef.plot([r["ranks"] for r in own], [r["efficiency"] for r in own], marker="o", color=color, label=label)
        for r in own:
            sp.annotate(fmt_speedup(r["speedup"]), (r["ranks"], r["speedup"]), xytext=(4, -10),
                        textcoords="offset points", fontsize=TEXT - 1, color=color)
        other = [r for r in e["by_ranks"] if "against" in r and r["against"]["variant"] != e["variant"]]
        if other:
            against = other[0]["against"]["variant"]
            sp.plot([r["ranks"] for r in other], [r["against"]["speedup"] for r in other], marker="s", ls=":",
                    color=color, label=f"{e['variant']} against {against}")
            ef.plot([r["ranks"] for r in other], [r["against"]["efficiency"] for r in other], marker="s", ls=":",
                    color=color, label=f"{e['variant']} against {against}")
    for ax in (sp, ef):
        ax.set_xscale("log", base=2)
        ax.set_xticks(counts)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("MPI ranks (one device each)")
        ax.grid(True, alpha=0.3)
    what = "the work grows with the ranks" if weak else "the same problem on every rank count"
    sp.set_ylabel(f"speedup\n(figure of merit / on {base} rank{'s' if base > 1 else ''})")
    ef.set_ylabel(f"efficiency\n(speedup / (ranks / {base}))")
    ef.set_ylim(0, max([1.1] + [r.get("efficiency", 0) * 1.1 for e in rows for r in e["by_ranks"]]))
    sp.set_title(wrap(f"{title}: speedup ({'weak' if weak else 'strong'} scaling: {what})", 48))
    ef.set_title(wrap(f"{title}: efficiency", 48))
    sp.legend(loc="best")
    ef.legend(loc="best")
    return save(fig, out_dir, name)
