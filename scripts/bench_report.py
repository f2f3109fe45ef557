#!/usr/bin/env python3
"""Turns `fmadiv bench --json` output into BENCHMARKS tables and an SVG plot.

    target/release/fmadiv bench --json > bench.json
    python3 scripts/bench_report.py bench.json docs/throughput.svg > tables.md

No dependencies: the SVG is written by hand (Gdiv/s against size, log-log, one line per
method, one panel per input distribution).
"""
import json
import math
import sys
from collections import defaultdict


def size_name(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def tables(doc):
    rows = doc["rows"]
    out = [f"CPU: {doc['cpu']} (cpuid family/model/stepping {doc.get('cpu_signature', '?')}); "
           f"backend: {doc['backend']}; build: "
           f"{doc['build']['target']} [{doc['build']['features']}], {doc['build']['profile']}, "
           f"{doc['build']['rustc']}", ""]
    if "plan" in doc:
        out += [f"Plan: {doc['plan']}", ""]
    inputs = list(dict.fromkeys(r["inputs"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cell = {(r["method"], r["inputs"], r["size"]): r for r in rows}
    for inp in inputs:
        out.append(f"### {inp}: Gdiv/s (ratio to the hardware loop of the same kind)")
        out.append("")
        out.append("| method | " + " | ".join(size_name(s) for s in sizes) + " |")
        out.append("|---|" + "---|" * len(sizes))
        for m in methods:
            cells = []
            for s in sizes:
                r = cell.get((m, inp, s))
                cells.append("" if r is None else f"{r['gdiv_per_s']:.2f} ({r['vs_hardware']:.2f}x)")
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#ff7f0e", "#393b79", "#637939"]


def svg(doc):
    rows = doc["rows"]
    inputs = list(dict.fromkeys(r["inputs"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    series = defaultdict(list)
    for r in rows:
        series[(r["inputs"], r["method"])].append((r["size"], r["gdiv_per_s"]))
    ymax = max(r["gdiv_per_s"] for r in rows)
    ymin = max(min(r["gdiv_per_s"] for r in rows), 0.01)
    pw, ph, ml, mt, gap = 420, 260, 60, 40, 30
    width = ml + 2 * (pw + gap) + 230
    height = mt + 2 * (ph + gap + 30)
    lx0, lx1 = math.log2(sizes[0]), math.log2(sizes[-1])
    ly0, ly1 = math.log10(ymin) - 0.05, math.log10(ymax) + 0.05
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{ml}" y="20" font-size="14">fmadiv throughput (Gdiv/s, log scale) against '
             f'size, {doc["cpu"]}</text>']
    for k, inp in enumerate(inputs):
        ox = ml + (k % 2) * (pw + gap)
        oy = mt + (k // 2) * (ph + gap + 30)
        px = lambda s: ox + (math.log2(s) - lx0) / (lx1 - lx0) * pw
        py = lambda v: oy + ph - (math.log10(max(v, ymin)) - ly0) / (ly1 - ly0) * ph
        parts.append(f'<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        parts.append(f'<text x="{ox + 5}" y="{oy + 14}" font-weight="bold">{inp}</text>')
        for s in sizes:
            parts.append(f'<text x="{px(s):.1f}" y="{oy + ph + 14}" text-anchor="middle">{size_name(s)}</text>')
        for v in [0.1, 0.3, 1, 3, 10, 30]:
            if ymin <= v <= ymax * 1.1:
                parts.append(f'<line x1="{ox}" x2="{ox + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
                parts.append(f'<text x="{ox - 4}" y="{py(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        for i, m in enumerate(methods):
            pts = sorted(series.get((inp, m), []))
            if not pts:
                continue
            path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in pts)
            dash = ' stroke-dasharray="4,3"' if "inexact" in m or "ref" in m else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[i % len(COLORS)]}" '
                         f'stroke-width="1.6"{dash}/>')
    lx = ml + 2 * (pw + gap) + 10
    for i, m in enumerate(methods):
        y = mt + 14 * i + 10
        parts.append(f'<line x1="{lx}" x2="{lx + 20}" y1="{y}" y2="{y}" stroke="{COLORS[i % len(COLORS)]}" stroke-width="2"/>')
        parts.append(f'<text x="{lx + 25}" y="{y + 4}">{m}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def main():
    doc = json.load(open(sys.argv[1]))
    print(tables(doc))
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(svg(doc))


if __name__ == "__main__":
    main()
