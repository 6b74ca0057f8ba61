#!/usr/bin/env python3
"""Draws docs/images/offload_model.png: where the levels of
`target teams distribute parallel for simd` run, on an NVIDIA GPU and on the
host (docs/glossary.md explains it).

    draw_offload_model.py [OUT]      OUT: docs/images/offload_model.png under the source tree
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

LEVEL_COLOURS = ["#dbe9f6", "#b3d3ee", "#7fb2df", "#3f7fbf"]  # league, team, thread/warp, lane


def box(ax, x, y, w, h, colour, label=None, size=8, weight="normal", va="top"):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.08",
                                facecolor=colour, edgecolor="#1f3b57", linewidth=0.8))
    if label:
        ty = y + h - 0.12 if va == "top" else y + h / 2
        ax.text(x + w / 2, ty, label, ha="center", va="top" if va == "top" else "center", fontsize=size,
                fontweight=weight)


def lanes(ax, x, y, w, h, count, colour):
    step = w / count
    for i in range(count):
        ax.add_patch(plt.Rectangle((x + i * step, y), step, h, facecolor=colour, edgecolor="white", linewidth=0.3))


def gpu_panel(ax):
    ax.set_title("NVIDIA GPU (clang): `target teams distribute parallel for simd`", fontsize=10)
    box(ax, 0.1, 0.2, 9.8, 7.3, LEVEL_COLOURS[0], "league = grid: num_teams(T) teams, spread over the SMs", 9, "bold")
    # A few teams, the first one opened up.
    box(ax, 0.4, 0.5, 6.2, 6.3, LEVEL_COLOURS[1], "team 0 = a thread block (runs on one SM)\n"
        "`distribute`: the team's share of the iterations", 8)
    for i, label in enumerate(["warp 0: threads 0-31", "warp 1: threads 32-63", "...", "last warp"]):
        y = 4.5 - i * 1.05
        if label == "...":
            ax.text(3.5, y + 0.45, "...", ha="center", fontsize=12)
            continue
        box(ax, 0.7, y, 5.6, 0.9, LEVEL_COLOURS[2])
        ax.text(0.85, y + 0.72, label, fontsize=7, va="top")
        lanes(ax, 0.8, y + 0.08, 5.4, 0.35, 32, LEVEL_COLOURS[3])
    ax.text(3.5, 0.72, "`parallel for`: thread_limit(N) threads = N/32 warps\n"
            "each thread is one lane; a warp's 32 lanes step together", ha="center", fontsize=7)
    for j, y in enumerate([5.2, 3.6, 2.0]):
        box(ax, 6.9, y, 2.7, 1.3, LEVEL_COLOURS[1], f"team {j + 1}" if j < 2 else "... team T-1", 8, va="center")
    ax.text(8.25, 1.2, "teams share nothing\nbut device memory;\nno barrier across them", ha="center", fontsize=7)


def host_panel(ax):
    ax.set_title("Host: the same construct on the host fallback, and `parallel for simd`", fontsize=10)
    box(ax, 0.1, 0.2, 9.8, 7.3, LEVEL_COLOURS[0], "league: one team here (ompref's league() on the host fallback);\n"
        "more teams would run one after another", 9, "bold")
    box(ax, 0.4, 0.5, 9.2, 5.9, LEVEL_COLOURS[1], "team: every host thread (OMP_NUM_THREADS)", 8)
    for i in range(4):
        x = 0.7 + i * 2.2
        label = f"thread {i}: a core" if i < 3 else "thread P-1"
        box(ax, x, 1.6, 2.0, 3.9, LEVEL_COLOURS[2], label, 7)
        ax.text(x + 1.0, 4.9, "`schedule(static)`:\na contiguous block\nof iterations", ha="center", va="top",
                fontsize=6.5)
        lanes(ax, x + 0.2, 2.1, 1.6, 0.5, 4, LEVEL_COLOURS[3])
        ax.text(x + 1.0, 2.75, "`simd`: 4 doubles\n(AVX2; 8 with AVX-512)", ha="center", fontsize=6.5)
    ax.text(5.0, 0.85, "`parallel for` = the OS threads on the cores; `simd` = the vector lanes of one core",
            ha="center", fontsize=7)


def main():
    source = Path(__file__).resolve().parent.parent
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else source / "docs" / "images" / "offload_model.png"
    if len(sys.argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.6))
    for ax in axes:
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 7.8)
        ax.axis("off")
    gpu_panel(axes[0])
    host_panel(axes[1])
    fig.text(0.5, 0.015, "gcc-12's nvptx maps differently: an OpenMP thread is a whole warp and `simd` its 32 lanes, "
             "so without `simd` one lane in 32 works (docs/stream.md)", ha="center", fontsize=8.5, style="italic")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, metadata={"Software": None})
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
