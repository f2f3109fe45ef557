#!/usr/bin/env python3
"""Every table of measured figures in README.md and BENCHMARKS.md, generated from the
committed JSON under docs/bench/ and docs/verification/ (TESTING.md has none, and is held
to the rule below on ratios written by hand).

    python3 scripts/bench_report.py --write   # regenerate the tables in place (and the SVG)
    python3 scripts/bench_report.py --check   # exit 1 if a table or a figure disagrees

A generated table sits between two markers naming its generator:

    <!-- generated: floors-summary 0x19 -->
    ...
    <!-- end generated -->

`--check` also refuses a measured ratio (a number followed by `×`) written by hand in
the prose outside those blocks, except inside a block that says where its figures come
from and why they are not generated:

    <!-- quoted: predictions of llvm-mca, not measurements -->
    ...
    <!-- end quoted -->

`tests/docs.rs` runs `--check` with `cargo test`. No dependencies beyond Python 3.
"""
import difflib
import json
import math
import os
import re
import statistics
import sys
from collections import Counter, defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = ["README.md", "BENCHMARKS.md", "TESTING.md"]
FLOOR = 0.97


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def bench(family, kind):
    return load(f"docs/bench/{family}-{kind}.json")


def size_name(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def cpu_line(doc, command):
    b = doc["build"]
    return (f"CPU: {doc['cpu']}, cpuid family/model/stepping {doc['cpu_signature']}; "
            f"`{command}`; {b['rustc']}, {b['profile']}, crate {b['version']}.")


def significant_low(r):
    """The 95% interval of the median ratio lies wholly below the floor."""
    return r["vs_baseline_high"] < FLOOR


# --- generators: each returns markdown lines -------------------------------------------


def floors_summary(family):
    doc = bench(family, "floors")
    rows = doc["rows"]
    out = [cpu_line(doc, "fmadiv bench --floors --json") + " Each cell is the median of "
           f"{rows[0]['rounds']} per-round ratios to the plain divider loop doing the same job "
           "(buffer layouts rotating), with a 95% confidence interval (sign test). Cells: "
           "sizes 8 to 64K (whole arrays) or row lengths 256 to 4K (per-row entry points) "
           "× four input kinds.", "",
           f"| entry point | cells | median ≥ {FLOOR} | interval wholly below {FLOOR} | lowest median (cell) |",
           "|---|---|---|---|---|"]
    by = defaultdict(list)
    for r in rows:
        by[r["method"]].append(r)
    for method, cells in by.items():
        low = min(cells, key=lambda r: r["vs_baseline"])
        out.append(f"| {method} | {len(cells)} | {sum(r['vs_baseline'] >= FLOOR for r in cells)} | "
                   f"{sum(significant_low(r) for r in cells)} | {low['vs_baseline']:.2f}× "
                   f"({low['inputs']}, {size_name(low['size'])}) |")
    total = len(rows)
    ok = sum(r["vs_baseline"] >= FLOOR for r in rows)
    bad = sum(significant_low(r) for r in rows)
    out += ["", f"In all: {ok} of {total} cells have a median of at least {FLOOR}×; in {bad} the "
            f"whole 95% interval lies below {FLOOR}×."]
    return out


def floors(family):
    doc = bench(family, "floors")
    rows = doc["rows"]
    out = [cpu_line(doc, "fmadiv bench --floors --json"),
           "", "Median ratio to the plain divider loop doing the same job; **bold**: the 95% "
           f"interval lies wholly below {FLOOR}×. Per-row entry points: the size is the whole "
           "array, divided row by row.", ""]
    inputs = list(dict.fromkeys(r["inputs"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cell = {(r["method"], r["inputs"], r["size"]): r for r in rows}
    whole = [m for m in methods if "per row" not in m]
    per_row = [m for m in methods if "per row" in m]
    for group in (whole, per_row):
        sizes = sorted({r["size"] for r in rows if r["method"] in group})
        for inp in inputs:
            out += [f"#### {inp}", "",
                    "| entry point | baseline | " + " | ".join(size_name(s) for s in sizes) + " |",
                    "|---|---|" + "---|" * len(sizes)]
            for m in group:
                base = next(r["baseline"] for r in rows if r["method"] == m)
                cells = []
                for s in sizes:
                    r = cell.get((m, inp, s))
                    if r is None:
                        cells.append("")
                    elif significant_low(r):
                        cells.append(f"**{r['vs_baseline']:.2f}**")
                    else:
                        cells.append(f"{r['vs_baseline']:.2f}")
                out.append(f"| {m} | {base} | " + " | ".join(cells) + " |")
            out.append("")
    return out[:-1]


def schedules(family):
    doc = bench(family, "schedules")
    rows = doc["rows"]
    out = [cpu_line(doc, "fmadiv bench --schedules --json"), "",
           "Median ratio of each schedule to the plain `_mm256_div_ps` loop (normal inputs, "
           "buffer layouts rotating; 95% interval in brackets). 1K: three arrays in L1; "
           "4K and up: L2; 1M: memory.", ""]
    sizes = sorted({r["size"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cell = {(r["method"], r["size"]): r for r in rows}
    out += ["| schedule | " + " | ".join(size_name(s) for s in sizes) + " |",
            "|---|" + "---|" * len(sizes)]
    for m in methods:
        cells = []
        for s in sizes:
            r = cell[(m, s)]
            cells.append(f"{r['vs_baseline']:.2f} [{r['vs_baseline_low']:.2f}, {r['vs_baseline_high']:.2f}]")
        out.append(f"| {m} | " + " | ".join(cells) + " |")
    # Does the best schedule differ between operands in L1 (1K) and beyond (16K)?
    out.append("")
    for op, prefix in (("div", "schedule "), ("recip", "recip schedule ")):
        names = [m for m in methods if m.startswith(prefix)]
        best = {n: max(names, key=lambda m: cell[(m, n)]["vs_baseline"]) for n in (1024, 16384)}
        small, large = best[1024], best[16384]
        r = lambda m, n: cell[(m, n)]["vs_baseline"]
        gain = max(r(small, 1024) / r(large, 1024), r(large, 16384) / r(small, 16384))
        verdict = ("the same" if small == large else
                   f"different, by {gain:.2f}× at one of the two sizes" if gain >= 1.10 else
                   f"different, but within {gain:.2f}× (under 10%) at both sizes")
        out.append(f"- `{op}`: best at 1K (L1) `{small[len(prefix):]}` ({r(small, 1024):.2f}×), "
                   f"at 16K (L2) `{large[len(prefix):]}` ({r(large, 16384):.2f}×): {verdict}.")
    return out


def methods(family):
    doc = bench(family, "methods")
    rows = doc["rows"]
    out = [cpu_line(doc, "fmadiv bench --json"), "",
           "Gdiv/s, and in brackets the ratio to the hardware loop of the same kind.", ""]
    inputs = list(dict.fromkeys(r["inputs"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    names = list(dict.fromkeys(r["method"] for r in rows))
    cell = {(r["method"], r["inputs"], r["size"]): r for r in rows}
    for inp in inputs:
        out += [f"#### {inp}", "", "| method | " + " | ".join(size_name(s) for s in sizes) + " |",
                "|---|" + "---|" * len(sizes)]
        for m in names:
            cells = []
            for s in sizes:
                r = cell.get((m, inp, s))
                cells.append("" if r is None else f"{r['gdiv_per_s']:.2f} ({r['vs_hardware']:.2f}×)")
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        out.append("")
    return out[:-1]


def plan_choice(p):
    """A plan's choices in one line (the per-size-class schedules and the Divisor's lengths)."""
    def op(name):
        return f"{name} {p[name]['small']}/{p[name]['large']}"
    d = {k: "never" if v is None else v for k, v in p["divisor"].items()}
    return (f"{op('div')}, {op('recip')}, in-register {p['in_register']}, Divisor sequence from "
            f"{d['sequence_from']} (first slice {d['first_proof_from']}, in place {d['in_place_from']})")


def old_plan_choice(p):
    """0.3.0's `plan --check --json` choices in one line."""
    def op(name):
        o = p[name]
        short = f" (divider below {o['short_below']})" if o.get("short_below") else ""
        return f"{name} {o['small']}/{o['large']}{short}"
    return f"{op('div')}, {op('recip')}, in-register {p['in_register']}"


def plans_summary(family):
    """The plan in fresh processes, now (`plan --json`) and in 0.3.0 (a calibration)."""
    plans = bench(family, "plans")
    # Everything but the time it took must agree.
    same = Counter(json.dumps({k: v for k, v in p.items() if k != "made_in_us"}, sort_keys=True)
                   for p in plans)
    micros = [p["made_in_us"] for p in plans]
    sig = plans[0]["cpu_signature"]
    n = same.most_common(1)[0][1]
    out = [f"{len(plans)} fresh processes of `fmadiv plan --json`, each pinned to one CPU "
           f"(family/model/stepping {sig}): every field but the time it took identical in "
           f"{n} of {len(plans)} (`{plan_choice(plans[0])}`, {plans[0]['origin']}); plan made "
           f"in {min(micros)}–{max(micros)} µs, median {statistics.median(micros):.0f} µs, "
           f"the `rcpps` check included."]
    if not os.path.exists(os.path.join(ROOT, f"docs/bench/{family}-plans-0.3.0.json")):
        return [" ".join(out)]
    old = bench(family, "plans-0.3.0")
    choices = Counter(old_plan_choice(p) for p in old)
    common, k = choices.most_common(1)[0]
    old_micros = [p["calibration_us"] for p in old]
    out.append(f"Before (0.3.0, a calibration at the first division; 20 fresh processes of "
               f"`fmadiv plan --check --json` on the same CPU): the most frequent choice in {k} "
               f"of {len(old)}, {len(choices) - 1} others in the rest, and the `Divisor`'s "
               f"windows measured anew in each; made in {min(old_micros) / 1000:.2f}–"
               f"{max(old_micros) / 1000:.2f} ms.")
    return [" ".join(out)]


def plans(family):
    plans = bench(family, "plans")
    out = ["| process | made in (µs) | choice (small/large size class) | from |",
           "|---|---|---|---|"]
    for i, p in enumerate(plans, 1):
        out.append(f"| {i} | {p['made_in_us']} | {plan_choice(p)} | {p['origin']} |")
    return out


def divisors(family):
    """`fmadiv bench --divisors` in fresh processes: per divisor, size and input kind, the
    lowest, median and highest of the processes' median ratios."""
    runs = bench(family, "divisors")
    cells = defaultdict(list)
    for run in runs:
        for r in run["rows"]:
            cells[(r["inputs"], r["divisor"], r["size"])].append(r["vs_baseline"])
    first = runs[0]
    sizes = sorted({k[2] for k in cells})
    inputs = list(dict.fromkeys(k[0] for k in cells))
    divs = list(dict.fromkeys(k[1] for k in cells))
    out = [cpu_line(first, "fmadiv bench --divisors --json") + f" Run in {len(runs)} fresh "
           "processes. Each cell: the lowest, median and highest "
           f"over the processes of each process's median of {first['rows'][0]['rounds']} "
           "per-round ratios of `Divisor::divide_slice` (made once, then reused) to the "
           "broadcast `_mm256_div_ps` loop by the same divisor (buffer layouts rotating). "
           "1K: in L1; 4K and 16K: L2.", ""]
    for kind in inputs:
        out += [f"#### {kind}", "",
                "| divisor | " + " | ".join(size_name(n) for n in sizes) + " |",
                "|---|" + "---|" * len(sizes)]
        for d in divs:
            row = []
            for n in sizes:
                v = sorted(cells[(kind, d, n)])
                row.append(f"{v[0]:.2f} / {statistics.median(v):.2f} / {v[-1]:.2f}")
            out.append(f"| {d:.7g} | " + " | ".join(row) + " |")
        out.append("")
    strategies = sorted({r["strategy"] for run in runs for r in run["rows"]})
    out.append(f"Strategies (`Divisor::strategy`): {', '.join(strategies)}.")
    normal = [min(cells[k]) for k in cells if k[0] == "normal"]
    rest = [min(cells[k]) for k in cells if k[0] != "normal"]
    out.append(f"Lowest of any process: {min(normal):.2f}× on normal inputs (goal 1.25×), "
               f"{min(rest):.2f}× on 1% specials and random bits (goal 0.97×).")
    return out


def rounding(family):
    doc = bench(family, "rounding")
    out = [cpu_line(doc, "fmadiv bench --rounding --json") + " Median of per-round ratios "
           "(baseline time / method time; higher is faster), 95% interval in brackets; normal "
           "inputs. Up to 1K: in L1; 4K and 16K: L2.", ""]
    sizes = sorted({r["size"] for r in doc["rows"]})
    out += ["| method | baseline | " + " | ".join(size_name(n) for n in sizes) + " |",
            "|---|---|" + "---|" * len(sizes)]
    pairs = list(dict.fromkeys((r["method"], r["baseline"]) for r in doc["rows"]))
    by = {(r["method"], r["baseline"], r["size"]): r for r in doc["rows"]}
    for m, b in pairs:
        cells = []
        for n in sizes:
            r = by.get((m, b, n))
            cells.append(f"{r['vs_baseline']:.2f} [{r['vs_baseline_low']:.2f}, "
                         f"{r['vs_baseline_high']:.2f}]" if r else "")
        out.append(f"| {m} | {b} | " + " | ".join(cells) + " |")
    return out


def simd(family):
    out = []
    for build in ("default", "native"):
        doc = bench(family, f"simd-{build}")
        out += [f"`{doc['example']}` ({doc['build']}"
                + (", `-C target-cpu=native`" if build == "native" else "")
                + f"; {doc['cpu']}; {doc['vectors']} vectors, {doc['rounds']} rounds):", "",
                "| way | ns per vector | vs `wide`'s `/` (min..max) |", "|---|---|---|"]
        for r in doc["rows"]:
            out.append(f"| {r['way']} | {r['ns_per_vector']:.2f} | {r['vs_wide']:.2f}× "
                       f"({r['min']:.2f}..{r['max']:.2f}) |")
        t = doc.get("token_vs_intrinsic")
        if t:
            out.append(f"| token loop vs the same loop with `_mm256_div_ps` | | {t['median']:.2f}× "
                       f"({t['min']:.2f}..{t['max']:.2f}) |")
        out.append("")
    doc = bench(family, "ndarray")
    out += [f"`ndarray_rows` ({doc['n']}×{doc['n']} `f32`, {doc['cpu']}, {doc['rounds']} rounds; "
            "bits checked against ndarray's `/` first):", "",
            "| case | `fmadiv::ndarray::div` vs ndarray's `/` (min..max) |", "|---|---|"]
    for r in doc["rows"]:
        out.append(f"| {r['case']} | {r['vs_ndarray']:.2f}× ({r['min']:.2f}..{r['max']:.2f}) |")
    return out


def verification(_):
    def count(n):
        return f"{n:,}".replace(",", " ")

    def dur(s):
        return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min"

    out = ["| report (docs/verification/) | what | kernel digest | pairs | proven / compared / by the divider | mismatches | wall time, threads (as run) |",
           "|---|---|---|---|---|---|---|"]
    reports = [
        ("conforming-division.json", "division kernel, every `rcpps` table within 1.5·2^-12, all 2^46 mantissa pairs"),
        ("conforming-reciprocals.json", "reciprocal kernel, every table within 1.5·2^-12, all divisor mantissas"),
        # The sixteen-lane kernel: the same arithmetic with its own near-all-ones rule (2^5
        # divisors, `--kernel vrcp14`), under `vrcp14ps`' bound.
        ("conforming-division-vrcp14.json", "sixteen-lane division kernel (`--kernel vrcp14`: 2^5 near-all-ones divisors to the divider), every `vrcp14ps` table within 2^-14, all 2^46 mantissa pairs"),
        ("conforming-reciprocals-vrcp14.json", "sixteen-lane reciprocal kernel (`--kernel vrcp14`), every table within 2^-14, all divisor mantissas"),
        ("pruned-all.json", "division kernel, this CPU's table, all 2^46 pairs, rows proven by Markstein's theorem skipped"),
        ("brute-all.json", "division kernel, this CPU's table, all 2^46 pairs compared with `vdivps` (three ranges merged)"),
        ("reciprocals.json", "reciprocal kernel, this CPU's table, all 2^32 inputs"),
        ("edges.json", "every exponent pair of the window's edges, specials, boundaries"),
        # The same kernel on a second rcpps table (Intel family 6 model 0xcf): the kernel
        # digest names the table, the arithmetic digest is the same.
        ("pruned-all-0x6-0xcf.json", "division kernel, Intel 0x6/0xcf's table, all 2^46 pairs, rows proven by Markstein's theorem skipped"),
        ("reciprocals-0x6-0xcf.json", "reciprocal kernel, Intel 0x6/0xcf's table, all 2^32 inputs"),
        ("edges-0x6-0xcf.json", "edges, specials and boundaries on Intel 0x6/0xcf's table"),
    ]
    # Directed rounding: the step from the divider's quotient and its residual, compared with
    # vdivps under the mode (its own digest); the whole-range run where it has finished.
    for mode in ["down", "up", "toward-zero"]:
        if os.path.exists(f"docs/verification/rounding-{mode}-all.json"):
            reports.append((f"rounding-{mode}-all.json",
                            f"directed rounding ({mode}), all 2^46 mantissa pairs against `vdivps` under the mode"))
        reports.append((f"rounding-{mode}-2p40.json",
                        f"directed rounding ({mode}), 2^40 pairs (2^17 dividend mantissas by every divisor mantissa) against `vdivps` under the mode"))
    # The same directed step on Intel 0x6/0xcf's table (the step is the same arithmetic, so
    # the digest is too; the table is in the report's machine).
    for mode in ["down", "up", "toward-zero"]:
        for size, what in [("2p40", f"the 2^40 pairs of `rounding-{mode}-2p40.json`"),
                           ("2p41", "dividend mantissas [2^21, 2^21 + 2^18) by every divisor (2^41 pairs)")]:
            reports.append((f"rounding-{mode}-{size}-0x6-0xcf.json",
                            f"directed rounding ({mode}) on Intel 0x6/0xcf, {what}"))
    for name, what in reports:
        d = load(f"docs/verification/{name}")
        split = (f"{count(d['pairs_proven'])} / {count(d['pairs_compared'])} / "
                 f"{count(d.get('pairs_by_divider', 0))}")
        params = d["parameters"] if isinstance(d["parameters"], dict) else {}
        table = "any" if params.get("rcp") == "any" else d["machine"]["rcp_fingerprint"]
        out.append(f"| `{name}` | {what} (table: {table}) | `{d['kernel_digest']}` | "
                   f"{count(d['pairs_checked'])} | {split} | **{d['mismatches']}** | "
                   f"{dur(d['wall_seconds'])}, {d['threads']} |")
    st = load("docs/verification/conforming-division.json")["every_table"]["stats"]
    y = st["divisors_by_distinct_y"]
    out += ["", f"Every-table sweep: {count(st['seeds'])} conforming seeds over "
            f"{count(st['divisors'])} divisor mantissas ({st['seeds_per_divisor_min']}–"
            f"{st['seeds_per_divisor_max']} per divisor); distinct refined reciprocals `y` per "
            f"divisor: 1 for {count(y[0])}, 2 for {count(y[1])}, 3 for {count(y[2])}; "
            f"{count(st['rows'])} (b, y) rows outside the near-all-ones set, {count(st['rows_proven'])} "
            f"proven by the lemma, {count(st['rows_compared'])} compared pair by pair; largest "
            f"|1 - b·y| of a kept row {st['max_error_kept_units_2_24']:.4f}·2^-24."]
    return out


def mca_error(family):
    """llvm-mca's prediction for this family's model against the schedules measured here."""
    model = {"0x19": "znver3", "0x1a": "znver5", "0x6-0xcf": "sapphirerapids"}[family]
    doc = bench(family, "schedules")
    measured = {(r["method"], r["size"]): r["vs_baseline"] for r in doc["rows"]}
    lines = include("docs/bench/mca-llvm14.md")
    header = next(l for l in lines if l.startswith("| CPU model"))
    names = [c.strip() for c in header.strip("|").split("|")][1:-1]
    rows = [l for l in lines if l.startswith(f"| {model} |")]
    out = [f"Prediction error on a CPU measured ({model}, family {family}; measured: "
           "`fmadiv bench --schedules`, the table above, at 1K (L1) and 4K (L2)):", "",
           "| op | schedule | predicted | measured 1K | measured 4K | predicted / measured 4K |",
           "|---|---|---|---|---|---|"]
    for op, row in zip(("div", "recip"), rows):
        cells = [c.strip() for c in row.strip("|").split("|")][1:-1]
        for name, cell in zip(names, cells):
            if name == "divider":
                continue
            predicted = float(cell.split("(")[1].rstrip("x)"))
            key = f"schedule {name}" if op == "div" else f"recip schedule {name}"
            m1, m4 = measured[(key, 1024)], measured[(key, 4096)]
            out.append(f"| {op} | {name} | {predicted:.2f}× | {m1:.2f}× | {m4:.2f}× | {predicted / m4:.2f} |")
    return out


def include(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read().rstrip("\n").split("\n")


GENERATORS = {
    "floors-summary": floors_summary,
    "floors": floors,
    "schedules": schedules,
    "methods": methods,
    "plans-summary": plans_summary,
    "plans": plans,
    "divisors": divisors,
    "rounding": rounding,
    "simd": simd,
    "verification": verification,
    "include": include,
    "mca-error": mca_error,
}

BLOCK = re.compile(r"(<!-- generated: (\S+)(?: (\S+))? -->\n)(.*?)(<!-- end generated -->)", re.S)
QUOTED = re.compile(r"<!-- quoted: [^>]+ -->\n.*?<!-- end quoted -->", re.S)
HAND_FIGURE = re.compile(r"\d+\.\d+ ?[×x]\b|\d+\.\d+×")


def render(text):
    def one(m):
        name, arg = m.group(2), m.group(3)
        body = "\n".join(GENERATORS[name](arg)) + "\n"
        return m.group(1) + body + m.group(5)
    return BLOCK.sub(one, text)


def hand_figures(text):
    """Measured ratios written outside generated and quoted blocks."""
    stripped = QUOTED.sub("", BLOCK.sub("", text))
    stripped = re.sub(r"```.*?```", "", stripped, flags=re.S)
    found = []
    for no, line in enumerate(stripped.split("\n"), 1):
        for m in HAND_FIGURE.finditer(line):
            found.append(f"{m.group(0)!r} in: {line.strip()[:100]}")
    return found


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#ff7f0e", "#393b79", "#637939"]


def svg(doc):
    """Gdiv/s against size, log-log, one line per method, one panel per input kind."""
    rows = doc["rows"]
    inputs = list(dict.fromkeys(r["inputs"] for r in rows))
    names = list(dict.fromkeys(r["method"] for r in rows))
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
             f'size, {doc["cpu"]} (family/model/stepping {doc["cpu_signature"]})</text>']
    for k, inp in enumerate(inputs):
        ox = ml + (k % 2) * (pw + gap)
        oy = mt + (k // 2) * (ph + gap + 30)

        def px(s):
            return ox + (math.log2(s) - lx0) / (lx1 - lx0) * pw

        def py(v):
            return oy + ph - (math.log10(max(v, ymin)) - ly0) / (ly1 - ly0) * ph
        parts.append(f'<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        parts.append(f'<text x="{ox + 5}" y="{oy + 14}" font-weight="bold">{inp}</text>')
        for s in sizes:
            parts.append(f'<text x="{px(s):.1f}" y="{oy + ph + 14}" text-anchor="middle">{size_name(s)}</text>')
        for v in [0.1, 0.3, 1, 3, 10, 30]:
            if ymin <= v <= ymax * 1.1:
                parts.append(f'<line x1="{ox}" x2="{ox + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
                parts.append(f'<text x="{ox - 4}" y="{py(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        for i, m in enumerate(names):
            pts = sorted(series.get((inp, m), []))
            if not pts:
                continue
            path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in pts)
            dash = ' stroke-dasharray="4,3"' if "inexact" in m or "ref" in m else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[i % len(COLORS)]}" '
                         f'stroke-width="1.6"{dash}/>')
    lx = ml + 2 * (pw + gap) + 10
    for i, m in enumerate(names):
        y = mt + 14 * i + 10
        parts.append(f'<line x1="{lx}" x2="{lx + 20}" y1="{y}" y2="{y}" stroke="{COLORS[i % len(COLORS)]}" stroke-width="2"/>')
        parts.append(f'<text x="{lx + 25}" y="{y + 4}">{m}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    if mode not in ("--write", "--check"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    failed = False
    for name in DOCS:
        path = os.path.join(ROOT, name)
        with open(path) as f:
            text = f.read()
        new = render(text)
        if mode == "--write":
            if new != text:
                with open(path + ".tmp", "w") as f:
                    f.write(new)
                os.replace(path + ".tmp", path)
                print(f"rewrote the generated tables of {name}")
        elif new != text:
            failed = True
            print(f"{name}: generated tables differ from the JSON they come from "
                  f"(run scripts/bench_report.py --write):")
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), f"{name} (committed)",
                f"{name} (from the JSON)", n=1))
        for figure in hand_figures(new):
            failed = True
            print(f"{name}: a ratio written by hand outside a generated or quoted block: {figure}")
    for path in sorted(os.listdir(os.path.join(ROOT, "docs/bench"))):
        if path.endswith("-methods.json"):
            family = path.split("-")[0]
            svg_path = os.path.join(ROOT, "docs/bench", f"{family}-throughput.svg")
            image = svg(bench(family, "methods"))
            if mode == "--write":
                with open(svg_path, "w") as f:
                    f.write(image)
            elif not os.path.exists(svg_path) or open(svg_path).read() != image:
                failed = True
                print(f"{svg_path} differs from {path} (run scripts/bench_report.py --write)")
    if failed:
        sys.exit(1)
    if mode == "--check":
        print(", ".join(DOCS) + ": agree with docs/bench/ and docs/verification/")


if __name__ == "__main__":
    main()
