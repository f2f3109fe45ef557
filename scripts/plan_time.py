#!/usr/bin/env python3
"""How long the plan takes to make, and whether it is the same plan, in fresh processes of one
or more `fmadiv` binaries run alternately (each pinned to CPU 0): `fmadiv plan --json` N
times per binary; prints the median and range of `made_in_us`, how many processes took more
than 100 µs, and how many distinct plans (every field but the time) each binary made.

Usage: scripts/plan_time.py [--runs N] BINARY [BINARY ...]
e.g.   scripts/plan_time.py /tmp/old/target/release/fmadiv target/release/fmadiv"""
import hashlib
import json
import statistics
import subprocess
import sys


def main(argv):
    runs = 20
    if argv[:1] == ["--runs"]:
        runs, argv = int(argv[1]), argv[2:]
    if not argv:
        sys.exit(__doc__)
    made = {b: [] for b in argv}
    plans = {b: set() for b in argv}
    for _ in range(runs):
        for b in argv:
            out = subprocess.run(["taskset", "-c", "0", b, "plan", "--json"],
                                 capture_output=True, text=True, check=True).stdout
            d = json.loads(out)
            made[b].append(d.pop("made_in_us"))
            plans[b].add(hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest())
    for b in argv:
        m = sorted(made[b])
        print(f"{b}: made in {m[0]}-{m[-1]} us, median {statistics.median(m):g}; over 100 us "
              f"in {sum(x > 100 for x in m)} of {runs}; distinct plans {len(plans[b])}")


if __name__ == "__main__":
    main(sys.argv[1:])
