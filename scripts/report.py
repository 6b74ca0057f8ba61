#!/usr/bin/env python3
"""Markdown tables (and an optional bar chart) from ompref JSON results.

  scripts/report.py results/h200/stream-clang19.json [more.json ...]
      [--cuda results/h200/ceilings.txt] [--plot out.png]

--cuda reads the JSON line printed by ../shared/gpu/ceilings.cu in the same
command and adds each run's fraction of the CUDA triad (bytes model / median
time / CUDA triad) and, where a run counts flops, of the CUDA FP64 FMA rate.
"""
import argparse
import json
import sys


def load_cuda(path):
    with open(path) as f:
        for line in reversed(f.read().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                return json.loads(line)
    sys.exit(f"report.py: {path}: no JSON line from ceilings.cu")


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--cuda", help="ceilings.cu output from the same command")
    ap.add_argument("--plot", help="write a bar chart of the figures of merit (PNG)")
    args = ap.parse_args()
    cuda = load_cuda(args.cuda) if args.cuda else None

    rows = []
    for path in args.json:
        with open(path) as f:
            doc = json.load(f)
        print(f"**{path}**: {doc['compiler']} | {doc['offload']} | host {doc['host']['cpu']}, "
              f"{doc['host']['threads']} threads | devices: {', '.join(d['name'] for d in doc['devices']) or 'none'}")
        for c in doc.get("ceilings", []):
            print(f"- ceiling on {c['place']}: triad {c['triad_GBps']:.1f} GB/s ({c.get('variant', '?')}, n = {c['n']})")
        if cuda:
            print(f"- CUDA, same command: triad {cuda['triad_GBps']} GB/s, FP64 FMA {cuda['fp64_fma_TFLOPs']} TFLOP/s")
        print()
        head = "| workload | variant | size | ran on | median s | min s | figure of merit | of ceiling |"
        sep = "|---|---|---|---|---:|---:|---:|---:|"
        if cuda:
            head += " of CUDA triad | of CUDA FP64 |"
            sep += "---:|---:|"
        print(head + " valid |")
        print(sep + "---|")
        for r in doc["runs"]:
            t = r["time_s"]
            line = (f"| {r['workload']} | {r['variant']} | {r['size']} | {r['ran_on']} | {t['median']:.6f} | "
                    f"{t['min']:.6f} | {fmt(r['fom']['value'], '.1f')} {r['fom']['name']} | "
                    f"{fmt(r['ceiling_fraction'], '.3f')} |")
            if cuda and "(device" not in r["ran_on"]:
                line += " - | - |"
            elif cuda:
                bw = r["bytes"] / t["median"] / 1e9 / cuda["triad_GBps"]
                fl = r["flops"] / t["median"] / 1e12 / cuda["fp64_fma_TFLOPs"] if r["flops"] else None
                line += f" {bw:.3f} | {fmt(fl, '.3f')} |"
            print(line + (" PASS |" if r["valid"] else " FAIL |"))
            for p in r.get("phases", []):
                if p["name"] == "triad":
                    extra = ""
                    if cuda and "(device" in r["ran_on"]:
                        extra = f" = {p.get('GBps_best', p['GBps']) / cuda['triad_GBps']:.3f} of the CUDA triad (best)"
                    print(f"|  | triad | | | {p['time_s']['median']:.6f} | {p['time_s']['min']:.6f} | "
                          f"{p['GBps']:.1f} GB/s (best {p.get('GBps_best', p['GBps']):.1f}){extra} | | " +
                          ("| | " if cuda else "") + "|")
            rows.append(r)
        print()

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        labels = [f"{r['workload']}\n{r['variant']}\n{r['ran_on'][:18]}" for r in rows]
        values = [r["fom"]["value"] or 0 for r in rows]
        fig, ax = plt.subplots(figsize=(max(6, len(rows) * 1.2), 4))
        ax.bar(range(len(rows)), values)
        ax.set_xticks(range(len(rows)), labels, fontsize=7)
        ax.set_ylabel(" / ".join(sorted({r["fom"]["name"] for r in rows})))
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
