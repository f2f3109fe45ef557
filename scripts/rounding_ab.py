#!/usr/bin/env python3
"""Directed rounding of several builds compared: `fmadiv bench --rounding --json` of each,
run alternately, summarised per row and size.

Run and summarise: scripts/rounding_ab.py --rounds N NAME=BINARY NAME=BINARY ...

Each round runs the binaries in the order given. The summary prints, for every method and
baseline, the median over the rounds of each build's ratio (baseline time / method time,
higher is faster) and the range of the rounds. The baselines are written in the bench and
so the same in every build, but their own code placement moves with the build (BENCHMARKS,
"Which baseline"): the rows against "MXCSR untouched" passes move least."""
import json
import statistics
import subprocess
import sys


def main(argv):
    rounds, builds = 3, []
    while argv:
        if argv[0] == "--rounds":
            rounds, argv = int(argv[1]), argv[2:]
        else:
            name, _, binary = argv[0].partition("=")
            if not binary:
                sys.exit(f"rounding_ab.py: expected NAME=BINARY, got {argv[0]!r}")
            builds.append((name, binary))
            argv = argv[1:]
    if not builds:
        sys.exit(__doc__)
    ratios = {}
    for _ in range(rounds):
        for name, binary in builds:
            out = subprocess.run([binary, "bench", "--rounding", "--json"], check=True,
                                 capture_output=True, text=True).stdout
            for row in json.loads(out)["rows"]:
                cell = (row["method"], row["baseline"], row["size"])
                ratios.setdefault(cell, {}).setdefault(name, []).append(row["vs_baseline"])
    print(f"{rounds} alternating rounds; per cell: median [min, max] of the rounds")
    names = [n for n, _ in builds]
    print(f"{'method':28} {'baseline':52} {'size':>6}  " + "  ".join(f"{n:>20}" for n in names))
    for (method, baseline, size), per in ratios.items():
        cols = []
        for n in names:
            r = per.get(n, [])
            cols.append(f"{statistics.median(r):.2f} [{min(r):.2f}, {max(r):.2f}]" if r else "-")
        print(f"{method:28} {baseline:52} {size:>6}  " + "  ".join(f"{c:>20}" for c in cols))


if __name__ == "__main__":
    main(sys.argv[1:])
