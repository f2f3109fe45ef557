#!/usr/bin/env python3
"""Floors of two builds compared: `fmadiv bench --floors --json` of each, run alternately
(pinned to one CPU), summarised per cell against a committed table.

Run:       scripts/floors_ab.py run --rounds N --cpu C [--bench B] --out DIR NAME=BINARY[,ARG...] ...
Summarise: scripts/floors_ab.py summary --table TABLE.json DIR NAME NAME
Per size:  scripts/floors_ab.py sizes DIR TEXT NAME [NAME ...]
Speeds:    scripts/floors_ab.py speeds DIR NAME NAME

`run` writes DIR/NAME-R.json for round R of each binary (each round runs the binaries in the
order given); ARGs after a binary go to its `bench --floors --json`, e.g.
`users=target/release/fmadiv,--past-line,16` for the arrays where the system allocator puts a
`Vec<f32>` (one binary may appear under two names, with and without). `--bench B` runs
`bench --B --json` instead (`schedules`, `rounding`: rows of the same shape, for `sizes` and
`speeds`; an environment variable such as `FMADIV_BACKEND` reaches every binary). `summary` prints, per binary, the cells of each run with a ratio of at least
0.97; the cells whose median over the runs is at least 0.97; how many cells fall below 0.97
where the table's ratio is at least 0.97; and every cell where either median is below 0.97,
with each run's ratio. `sizes` prints, for the methods whose name contains TEXT, each input
kind's median ratio per size, one column per binary. The verdict of one run at a small size
is a draw (BENCHMARKS.md, "Where the floor is missed"): the medians over alternating runs
are what compare. `speeds` compares the builds' own speeds rather than their ratios: per
cell, the median elements per second of the second binary over the first, for the entry
point and for the divider loop it is measured against (a ratio hides a move both make, as
a change of the build's settings does to both); overall, per size, per method, and every
cell where either moved by more than 7%."""
import glob
import json
import os
import statistics
import subprocess
import sys

FLOOR = 0.97


def key(row):
    return (row["method"], row["inputs"], row["size"])


def ratio(x):
    """A median for a table column, or a dash where the cell was not measured."""
    return "  -  " if x is None else f"{x:.2f}"


def run(argv):
    rounds, cpu, out, bench, builds = 6, "0", None, "floors", []
    while argv:
        if argv[0] == "--rounds":
            rounds, argv = int(argv[1]), argv[2:]
        elif argv[0] == "--cpu":
            cpu, argv = argv[1], argv[2:]
        elif argv[0] == "--out":
            out, argv = argv[1], argv[2:]
        elif argv[0] == "--bench":
            bench, argv = argv[1], argv[2:]
        else:
            name, command = argv[0].split("=", 1)
            builds.append((name, command.split(",")))
            argv = argv[1:]
    if out is None or not builds:
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    for r in range(1, rounds + 1):
        for name, (binary, *extra) in builds:
            command = ["taskset", "-c", cpu, binary, "bench", f"--{bench}", "--json", *extra]
            text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            with open(os.path.join(out, f"{name}-{r}.json"), "w") as f:
                f.write(text)


def cells(directory, name):
    paths = sorted(glob.glob(os.path.join(directory, f"{name}-*.json")))
    runs = [json.load(open(p)) for p in paths]
    per_cell = {}
    for d in runs:
        for row in d["rows"]:
            per_cell.setdefault(key(row), []).append(row["vs_baseline"])
    return runs, per_cell


def summary(argv):
    if len(argv) != 5 or argv[0] != "--table":
        sys.exit(__doc__)
    table = {key(r): r["vs_baseline"] for r in json.load(open(argv[1]))["rows"]}
    directory, names = argv[2], argv[3:]
    data = {n: cells(directory, n) for n in names}
    medians = {n: {k: statistics.median(v) for k, v in data[n][1].items()} for n in names}
    for n in names:
        runs, _ = data[n]
        counts = [sum(r["vs_baseline"] >= FLOOR for r in d["rows"]) for d in runs]
        m = medians[n]
        missed = sum(1 for k, v in m.items() if v < FLOOR <= table.get(k, 0))
        print(f"{n}: cells at {FLOOR} or above per run {counts}; per-cell medians at {FLOOR} or "
              f"above {sum(v >= FLOOR for v in m.values())} of {len(m)}; below {FLOOR} where "
              f"the table is not: {missed}")
    print(f"table: {sum(v >= FLOOR for v in table.values())} of {len(table)} at {FLOOR} or above")
    print(f"\ncells where a median is below {FLOOR} (medians {', '.join(names)}, table; "
          "then each run):")
    a, b = names
    for k in sorted(set(medians[a]) | set(medians[b])):
        ma, mb = medians[a].get(k), medians[b].get(k)
        if min(x for x in (ma, mb) if x is not None) >= FLOOR:
            continue
        runs = "  ".join(" ".join(f"{v:.2f}" for v in data[n][1].get(k, [])) for n in names)
        print(f"  {k[0]:<44} {k[1]:<12} {k[2]:>7}: {ratio(ma)} {ratio(mb)} "
              f"{ratio(table.get(k))}   {runs}")


def sizes(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    directory, text, names = argv[0], argv[1], argv[2:]
    medians = {n: {k: statistics.median(v) for k, v in cells(directory, n)[1].items()}
               for n in names}
    first = medians[names[0]]
    print(f"median ratio per size ({' / '.join(names)}):")
    for method, inputs in sorted({(k[0], k[1]) for k in first if text in k[0]}):
        row = [f"{size}: " + " ".join(f"{medians[n].get((method, inputs, size), float('nan')):.2f}"
                                      for n in names)
               for size in sorted(k[2] for k in first if k[:2] == (method, inputs))]
        print(f"  {method:<30} {inputs:<12} " + "  ".join(row))


def speeds(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    directory, first, second = argv

    def medians(name):
        """Per cell: the median speed of the entry point and of its divider loop."""
        own, loop = {}, {}
        for d in cells(directory, name)[0]:
            for row in d["rows"]:
                own.setdefault(key(row), []).append(row["gdiv_per_s"])
                loop.setdefault(key(row), []).append(row["gdiv_per_s"] / row["vs_baseline"])
        return ({k: statistics.median(v) for k, v in own.items()},
                {k: statistics.median(v) for k, v in loop.items()})

    (own_a, loop_a), (own_b, loop_b) = medians(first), medians(second)
    shared = sorted(set(own_a) & set(own_b))
    own = {k: own_b[k] / own_a[k] for k in shared}
    loop = {k: loop_b[k] / loop_a[k] for k in shared}

    def spread(values):
        return f"median {statistics.median(values):.3f}, {min(values):.3f}-{max(values):.3f}"

    print(f"speed of {second} over {first}, {len(shared)} cells (medians over the runs):")
    print(f"  entry points: {spread(list(own.values()))}; their divider loops: "
          f"{spread(list(loop.values()))}")
    for label, index in (("size", 2), ("method", 0)):
        groups = {}
        for k in shared:
            groups.setdefault(k[index], []).append(own[k])
        for g in sorted(groups):
            print(f"  {label} {g!s:<50} {spread(groups[g])} ({len(groups[g])} cells)")
    print("cells where either moved by more than 7% (entry point, divider loop):")
    for k in shared:
        if max(abs(own[k] - 1), abs(loop[k] - 1)) > 0.07:
            print(f"  {k[0]:<44} {k[1]:<12} {k[2]:>7}: {own[k]:.3f} {loop[k]:.3f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        run(sys.argv[2:])
    elif sys.argv[1:2] == ["sizes"]:
        sizes(sys.argv[2:])
    elif sys.argv[1:2] == ["speeds"]:
        speeds(sys.argv[2:])
    elif sys.argv[1:2] == ["summary"]:
        summary(sys.argv[2:])
    else:
        sys.exit(__doc__)
