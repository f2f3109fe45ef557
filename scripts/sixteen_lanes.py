#!/usr/bin/env python3
"""What a native run of the 16-lane backend measured, against the goals it is measured for.

    scripts/sixteen_lanes.py DIR

DIR is a folder `scripts/native-avx512.sh` wrote (docs/bench/native-<family>-<model>-<commit>/).
Prints, from its JSON files:

1. the schedules at sixteen lanes (`schedules-avx512.json`): the kernel alone and every mix
   against the 512-bit divider loop, per size, median [low, high], and the best per size with
   whether it clears the plan's gain (1.10x: `GAIN` in src/plan/table.rs);
2. the slice entry points against the plain loop (`floors-avx512.json`, the backend forced,
   and `floors-default.json`): at least 1.35x on normal data and 0.97x on 50%-zero and
   1%-special data at 256-64K;
3. `div_bounds` and the directed loops from the kernel's and the mixes' quotients against two
   embedded-rounding passes (`rounding-avx512.json`): at least 1.5x at 256-16K;
4. `div_in_place` against the plain loop in place with no copy in the timed calls
   (`in-place-alone.txt`, examples/in_place_alone.rs): the floors' `(+copy)` row's division
   alone, against the same 1.35x on normal data;
5. the sixteen-lane tables of `kernel-check-cost.txt` and `kernel-check-cost-normal.txt`
   (examples/kernel_check_cost.rs, the second with `--normal`; there the 2^5 near-all-ones
   rule against the 2^15 one): the
   mixed loops with the input check as shipped, in part and left out, against the divider,
   and the share of the kernel's time the shipped check takes (no goal: what limits it);
6. what the memory allows (`stream-ceiling.txt`, examples/stream_ceiling.rs, one or more
   processes): per length, the plain multiply loop against the divider loop (the ceiling of
   any division loop of that shape) and the entry points beside it, and whether the 1.35x
   goal lies under that ceiling (its processes must agree on CPU, backends and caches, as
   the JSON files' must); the floors' normal tables show the ceilings beside their goals.

Each figure is a median over a benchmark's rounds, as the file has it; a goal line reads `met`
or `MISSED` by those medians alone, to the two decimals printed (the ranges beside them). It works on any file of
those commands (an eight-lane one prints its own baselines), and exits 2 on a folder without
them or with processes of one benchmark that differ in command, CPU, backends or plan.

One process is one sample: on the shared machines a process's median can sit in a slow mode
for all its rounds (BENCHMARKS.md, "One process is one sample"). Where the folder holds a
benchmark from several processes (`NAME.json`, `NAME-2.json`, ... as the native script writes
them), each cell is the median of the processes' medians, the brackets the lowest and highest
process median, and the table says how many processes it took, how far the processes' medians
sat from their cells' on average (the spread), and which process, at which length, had its
figures more than 10% from the cells' medians."""
import json
import os
import re
import sys

GAIN = 1.10
SIZES = [256, 1024, 4096, 16384, 65536]
ENTRY_POINTS = [
    "fmadiv::div",
    "fmadiv::recip",
    "fmadiv::div_in_place (+copy)",
    "fmadiv::try_div",
    "fmadiv::par_div",
]
GOALS = {"normal": 1.35, "50% zeros": 0.97, "1% specials": 0.97}
BOUNDS_GOAL, BOUNDS_SIZES = 1.5, [256, 1024, 4096, 16384]
EMBEDDED_TWO = "two embedded-rounding passes, zmm {rd,ru-sae}"


# A process whose figures sit this far from the cells' medians at a length is named.
OUTLIER = 0.10
# What the processes of one benchmark share: the command, the CPU, the backends and the plan.
SAME_BENCHMARK = ("command", "cpu_signature", "backend", "backends", "plan")


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def across_processes(medians):
    """One cell from the processes' medians: (their median, the lowest, the highest)."""
    medians = sorted(medians)
    half = len(medians) // 2
    mid = medians[half] if len(medians) % 2 else (medians[half - 1] + medians[half]) / 2
    return mid, medians[0], medians[-1]


def load_processes(folder, name):
    """`name` and the runs of the same benchmark in other processes (`stem-2.json`, ...), merged
    into one document: each cell the median of the processes' medians, `vs_baseline_low` and
    `_high` the lowest and highest of them; `None` if `name` is absent."""
    first = load(folder, name)
    if first is None:
        return None
    stem = name[: -len(".json")]
    docs = [first]
    k = 2
    while (doc := load(folder, f"{stem}-{k}.json")) is not None:
        docs.append(doc)
        k += 1
    if len(docs) == 1:
        return first
    for k, doc in enumerate(docs[1:], 2):
        if any(doc.get(field) != first.get(field) for field in SAME_BENCHMARK):
            print(f"sixteen_lanes.py: {stem}-{k}.json is not the benchmark of {name} (its "
                  + ", ".join(f"{f} {doc.get(f)!r}" for f in SAME_BENCHMARK
                              if doc.get(f) != first.get(f)) + ")", file=sys.stderr)
            sys.exit(2)
    cells = {}
    for p, doc in enumerate(docs, 1):
        for r in doc["rows"]:
            key = (r["method"], r["baseline"], r.get("inputs"), r.get("divisor"), r["size"])
            cells.setdefault(key, []).append((p, r))
    rows, shifts = [], []
    for key, runs in cells.items():
        mid, low, high = across_processes([r["vs_baseline"] for _, r in runs])
        shifts += [(key, p, r["vs_baseline"] / mid) for p, r in runs]
        rows.append(dict(runs[0][1], vs_baseline=mid, vs_baseline_low=low,
                         vs_baseline_high=high, processes=len(runs)))
    return dict(first, rows=rows, processes=len(docs), shifts=shifts)


def processes_note(doc, keep=lambda key: True):
    """What a merged document's cells are, and where one process sat apart: per process and
    length, the median over the table's cells of that process's figure over the cell's."""
    n = doc.get("processes")
    if not n:
        return
    print(f"   {n} processes: each cell the median of the processes' medians [lowest, highest "
          "process median]")
    by_process_length = {}
    for key, p, shift in doc["shifts"]:
        if keep(key):
            by_process_length.setdefault((key[4], p), []).append(shift)
    offs = [abs(v - 1) for values in by_process_length.values() for v in values]
    if offs:
        print(f"   spread: a process's median sat a mean {sum(offs) / len(offs):.1%} from its "
              f"cell's; {sum(o > OUTLIER for o in offs)} of {len(offs)} more than {OUTLIER:.0%}")
    for (size, p), values in sorted(by_process_length.items()):
        values.sort()
        typical = values[len(values) // 2]
        if abs(typical - 1) > OUTLIER:
            print(f"   process {p} at {size_name(size)}: its figures {typical:.2f} of the cells' "
                  f"(median of {len(values)} cells; {values[0]:.2f}-{values[-1]:.2f})")


def size_name(n):
    return f"{n // 1024}K" if n >= 1024 else str(n)


def cell(row):
    if row is None:
        return "-"
    low, high = row.get("vs_baseline_low"), row.get("vs_baseline_high")
    text = f"{row['vs_baseline']:.2f}"
    return text + (f" [{low:.2f}, {high:.2f}]" if low is not None else "")


def meets(row, goal):
    # The goals are written to two decimals, as the figures are printed.
    return round(row["vs_baseline"], 2) >= goal


def rows_by(doc, inputs=None):
    return {(r["method"], r["size"]): r for r in doc["rows"] if inputs in (None, r.get("inputs"))}


def schedules(doc):
    print(f"1. Schedules: `{doc['command']}` ({doc['cpu']}, {doc['cpu_signature']})")
    print(f"   plan: {doc['plan']}")
    rows = rows_by(doc, "normal")
    baseline = next(iter(rows.values()))["baseline"]
    if doc.get("processes"):
        print(f"   normal data; ratios to `{baseline}`")
        processes_note(doc, lambda k: k[2] == "normal" and k[4] in SIZES)
    else:
        print(f"   normal data; median [low, high] of the per-round ratios to `{baseline}`")
    for op, prefix in (("div", "schedule "), ("recip", "recip schedule ")):
        names = sorted({m for m, _ in rows if m.startswith(prefix) and m[len(prefix):][:1] in "dkm"},
                       key=lambda m: (m != prefix + "divider", m != prefix + "kernel",
                                      int(m.split("mix-")[1]) if "mix-" in m else 0))
        print(f"\n   {op:<9}" + "".join(f"{size_name(n):>19}" for n in SIZES))
        for m in names:
            print(f"   {m[len(prefix):]:<9}" + "".join(f"{cell(rows.get((m, n))):>19}" for n in SIZES))
        best = []
        for n in SIZES:
            measured = [(rows[(m, n)]["vs_baseline"], m[len(prefix):]) for m in names if (m, n) in rows]
            if measured:
                ratio, name = max(measured)
                clears = "clears" if ratio >= GAIN else "below"
                best.append(f"{size_name(n)} {name} {ratio:.2f}x ({clears} {GAIN})")
        print("   best: " + "; ".join(best))
    print()


def floors(doc, label, ceilings=None):
    print(f"2. Entry points ({label}): `{doc['command']}`")
    print(f"   plan: {doc['plan']}")
    processes_note(doc, lambda k: k[0] in ENTRY_POINTS and k[2] in GOALS and k[4] in SIZES)
    for inputs, goal in GOALS.items():
        rows = rows_by(doc, inputs)
        title = f"{inputs} (goal {goal}x)"
        print(f"\n   {title:<30}" + "".join(f"{size_name(n):>19}" for n in SIZES) + "  goal")
        for m in ENTRY_POINTS:
            cells = [rows.get((m, n)) for n in SIZES]
            present = [c for c in cells if c is not None]
            verdict = "-" if not present else (
                "met" if all(meets(c, goal) for c in present) else "MISSED")
            print(f"   {m:<30}" + "".join(f"{cell(c):>19}" for c in cells) + f"  {verdict}")
        for probe, loop in (("div", "a[i] * b[i]"), ("recip", "b[i] * b[i]")):
            ceiling = ceiling_row(ceilings, probe) if inputs == "normal" else None
            if ceiling:
                above = [size_name(n) for n, c in zip(SIZES, ceiling) if c and c[0] < goal]
                print(f"   {'ceiling: ' + loop + ' (6.)':<30}" + "".join(
                    f"{'-' if c is None else '%.2f [%.2f, %.2f]' % c:>19}" for c in ceiling)
                    + ("  goal above it at " + ", ".join(above) if above else ""))
        baselines = sorted({rows[(m, n)]["baseline"] for m in ENTRY_POINTS for n in SIZES
                            if (m, n) in rows})
        print("   against: " + "; ".join(f"`{b}`" for b in baselines))
    print()


def bounds(doc):
    print(f"3. Directed rounding against two embedded-rounding passes (goal {BOUNDS_GOAL}x at "
          f"{size_name(BOUNDS_SIZES[0])}-{size_name(BOUNDS_SIZES[-1])}): `{doc['command']}`")
    processes_note(doc, lambda k: k[1] == EMBEDDED_TWO and k[4] in BOUNDS_SIZES)
    rows = {(r["method"], r["baseline"], r["size"]): r for r in doc["rows"]}
    methods = sorted({m for m, b, _ in rows if b == EMBEDDED_TWO},
                     key=lambda m: (m != "div_bounds", m))
    if not methods:
        print(f"   no `{EMBEDDED_TWO}` rows: this run had no AVX-512F\n")
        return
    print(f"   {'':<34}" + "".join(f"{size_name(n):>19}" for n in BOUNDS_SIZES) + "  goal")
    for m in methods:
        cells = [rows.get((m, EMBEDDED_TWO, n)) for n in BOUNDS_SIZES]
        present = [c for c in cells if c is not None]
        verdict = "met" if present and all(meets(c, BOUNDS_GOAL) for c in present) else "MISSED"
        print(f"   {m:<34}" + "".join(f"{cell(c):>19}" for c in cells) + f"  {verdict}")
    print()


def in_place_alone(text):
    print("4. div_in_place alone, no copy timed (goal 1.35x on normal data): "
          "`cargo run --release --example in_place_alone`")
    medians = []
    for line in text.splitlines():
        fields = line.split()
        if line.startswith("("):
            print(f"   {line}")
        elif fields and fields[0].isdigit() and len(fields) >= 7:
            print(f"   {line.rstrip()}")
            medians.append(float(fields[6]))
        elif fields and fields[0] == "n":
            print(f"   {line.rstrip()}")
    if not medians:
        print("   no rows: read in-place-alone.txt\n")
        return
    verdict = "met" if min(medians) >= 1.35 else "MISSED"
    print(f"   ratio alone, lowest median {min(medians):.2f}: {verdict}\n")


CHECK_ROWS = ("check", "library", "full", "windows", "divisor", "none", "rule-2^15", "rule-2^5")
# The median of each schedule's cell in a row: "name k [lo, hi] m4 [lo, hi] m8 [lo, hi]".
SCHEDULE_FIELDS = (("kernel", 1), ("mix-4", 4), ("mix-8", 7))


def check_cost(text, data):
    print(f"5. The kernel's input check at sixteen lanes, {data}: "
          "`examples/kernel_check_cost.rs` (divider time / loop time)")
    blocks = []  # (header, rows), each row a line of the table
    data_line = ""  # the run's data, named before its tables
    for line in text.splitlines():
        fields = line.split()
        if line.startswith("data: "):
            data_line = line
        elif line.startswith("16 lanes, "):
            blocks.append((f"{line} ({data_line})" if data_line else line, []))
        elif blocks and fields and fields[0] in CHECK_ROWS and len(fields) >= 2:
            blocks[-1][1].append(line.rstrip())
    if not blocks:
        print("   no sixteen-lane rows: read kernel-check-cost.txt\n")
        return
    for header, rows in blocks:
        print(f"   {header}")
        medians = {}
        for row in rows:
            print(f"   {row}")
            fields = row.split()
            if fields[0] != "check" and len(fields) >= 8:
                medians[fields[0]] = {s: float(fields[i]) for s, i in SCHEDULE_FIELDS}
        if "full" in medians and "none" in medians:
            share = 1 - medians["full"]["kernel"] / medians["none"]["kernel"]
            print(f"   the shipped check takes {share:.0%} of the kernel-alone loop's time")
        if "rule-2^15" in medians and "rule-2^5" in medians:
            gains = ", ".join(f"{s} {medians['rule-2^5'][s] / medians['rule-2^15'][s]:.2f}×"
                              for s, _ in SCHEDULE_FIELDS)
            print(f"   the 2^5 near-all-ones rule against the 2^15 one (ratio of medians): {gains}")
        print()


# A cell of examples/stream_ceiling.rs: "median [lowest, highest]".
CEILING_CELL = re.compile(r"(\d+\.\d+) \[(\d+\.\d+), (\d+\.\d+)\]")
# Its rows: "n  bytes unit  fits  Gel/s  cells...".
CEILING_ROW = re.compile(r"^\s*(\d+)\s+(\d+ [KM]iB)\s+(\S+)\s+(\d+\.\d+)\s+(.*)$")


def read_stream_ceiling(text):
    """The processes of examples/stream_ceiling.rs in one file, merged as the JSON benchmarks
    are: {"cpu", "processes", "probes": {name: (head, columns, {n: (bytes, fits, cells)})}},
    each cell (median of the processes' medians, lowest, highest), the first the divider
    loop's Gelem/s, the second the ceiling; None where the file has no rows."""
    processes = []  # per process: {"first": line, probe: [head, columns, {n: (...)}]}
    probe = None
    for line in text.splitlines():
        if line.startswith("stream_ceiling: "):
            processes.append({"first": line})
        elif processes and re.match(r"^(div|recip): ratios to ", line):
            probe = line.split(":")[0]
            processes[-1][probe] = [line, [], {}]
        elif processes and probe and line.lstrip().startswith("n ") and "ceiling" in line:
            processes[-1][probe][1] = re.split(r"\s{2,}", line.split("ceiling", 1)[1].strip())
        elif processes and probe and (m := CEILING_ROW.match(line)):
            cells = [float(m.group(4))] + [float(c[0]) for c in CEILING_CELL.findall(m.group(5))]
            processes[-1][probe][2][int(m.group(1))] = (m.group(2), m.group(3), cells)
    if not any(len(p) > 1 for p in processes):
        return None
    for k, p in enumerate(processes[1:], 2):
        if p["first"] != processes[0]["first"]:
            print(f"sixteen_lanes.py: process {k} of stream-ceiling.txt ran elsewhere or "
                  f"otherwise ({p['first']!r} against {processes[0]['first']!r})", file=sys.stderr)
            sys.exit(2)
    probes = {}
    for name in ("div", "recip"):
        runs = [p[name] for p in processes if name in p]
        if not runs:
            continue
        rows = {}
        for n in sorted(runs[0][2]):
            found = [r[2][n] for r in runs if n in r[2]]
            width = min(len(f[2]) for f in found)
            merged = [across_processes([f[2][k] for f in found]) for k in range(width)]
            rows[n] = (found[0][0], found[0][1], merged)
        probes[name] = (runs[0][0], runs[0][1], rows)
    cpu = processes[0]["first"].split(";")[0].removeprefix("stream_ceiling: ")
    return {"cpu": cpu, "processes": len(processes), "probes": probes}


def ceiling_row(ceilings, probe):
    """The floors' row of a probe's ceiling at the goal sizes (section 6's figures), or None."""
    if not ceilings or probe not in ceilings["probes"]:
        return None
    rows = ceilings["probes"][probe][2]
    return [rows[n][2][1] if n in rows else None for n in SIZES]


def stream_ceiling(ceilings):
    print("6. What the memory allows: `cargo run --release --example stream_ceiling` (ratios to "
          "the divider loop; the ceiling is the plain multiply loop, the same loads and stores)")
    if not ceilings:
        print("   no rows: read stream-ceiling.txt\n")
        return
    k = ceilings["processes"]
    print(f"   {ceilings['cpu']}; {k} process{'es' if k > 1 else ''}: each cell the median of "
          "the processes' medians [lowest, highest process median]")
    for head, columns, rows in ceilings["probes"].values():
        print(f"   {head}")
        print(f"   {'n':>7} {'bytes':>8} {'fits':>4} {'divider Gel/s':>13} "
              + " ".join(f"{c:>20}" for c in ["ceiling"] + columns)
              + f"  goal {GOALS['normal']:.2f}x")
        for n, (size, fits, merged) in rows.items():
            speed, ratios = merged[0][0], merged[1:]
            verdict = ("no goal" if n not in SIZES else
                       "under the ceiling" if ratios[0][0] >= GOALS["normal"] else
                       "ABOVE the ceiling")
            cells = [f"{mid:.2f} [{low:.2f}, {high:.2f}]" for mid, low, high in ratios]
            print(f"   {n:>7} {size:>8} {fits:>4} {speed:>13.2f} "
                  + " ".join(f"{c:>20}" for c in cells) + f"  {verdict}")
    print("   (a goal above the ceiling at a length cannot be met there by any loop of that "
          "shape: the memory, not the divider, limits it)\n")


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        sys.exit(__doc__)
    folder = argv[0]
    found = False
    ceiling_path = os.path.join(folder, "stream-ceiling.txt")
    ceilings = None
    if os.path.exists(ceiling_path):
        with open(ceiling_path) as f:
            ceilings = read_stream_ceiling(f.read())
    doc = load_processes(folder, "schedules-avx512.json")
    if doc:
        found = True
        schedules(doc)
    for name, label in (("floors-avx512.json", "16-lane backend forced"),
                        ("floors-default.json", "by default")):
        doc = load_processes(folder, name)
        if doc:
            found = True
            floors(doc, label, ceilings)
    doc = load_processes(folder, "rounding-avx512.json")
    if doc:
        found = True
        bounds(doc)
    path = os.path.join(folder, "in-place-alone.txt")
    if os.path.exists(path):
        found = True
        with open(path) as f:
            in_place_alone(f.read())
    for name, data in (("kernel-check-cost.txt", "no divisor near all ones"),
                       ("kernel-check-cost-normal.txt", "normal data (random fractions)")):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            found = True
            with open(path) as f:
                check_cost(f.read(), data)
    if os.path.exists(ceiling_path):
        found = True
        stream_ceiling(ceilings)
    if not found:
        print(f"sixteen_lanes.py: {folder} holds none of schedules-avx512.json, floors-avx512.json, "
              "floors-default.json, rounding-avx512.json, in-place-alone.txt, kernel-check-cost.txt, "
              "stream-ceiling.txt", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
