#!/usr/bin/env python3
"""Runs `examples/aliasing_by_width.rs` builds in alternating processes and summarises them.

    python3 scripts/aliasing_ab.py --rounds N [--cpu C] [--out FILE] [--entries "E ..."] NAME=[ENV=VALUE,...:]BINARY ...

Each NAME is one process setting: a binary of the example (copy it out of target/ to keep a
build) and the environment it runs with, e.g. `eight=FMADIV_BACKEND=avx2:/tmp/abw` and
`sixteen=FMADIV_BACKEND=avx512:/tmp/abw`. Round r runs every setting once, the order
rotating with r, each process pinned to CPU C with taskset. The summary gives, per table cell
(entry point, layout or offset, length), the median over the processes of each process's
median ratio against the plain divider pass, the settings side by side ('a/b/...'); higher
is faster. With --out, every process's output is written there too. With --entries, every
process times only those entry points (the example's arguments: div_rounded, recip,
div_bounds, Divisor).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def parse(text):
    """{(table title, n, column): ratio} from one process's output."""
    cells = {}
    title, columns = None, None
    for line in text.splitlines():
        if " on " in line and "median ratio" in line:
            title = line.split(" on ")[0] + ", layouts"
            columns = None
        elif "the output d bytes past" in line:
            m = re.search(r"the arrays (\d+) bytes past", line)
            title = line.split(":")[0] + f", offsets+{m.group(1)}"
            columns = None
        elif title and line.strip().startswith("n \\ d"):
            columns = line.split()[3:]
        elif title and line.split()[:1] == ["n"]:
            columns = [c.replace(" ", "") for c in re.findall(r"lay \d|all", line)]
        elif title and columns and re.match(r"^\s*\d+\s", line):
            fields = line.split()
            n, values = int(fields[0]), [float(v) for v in fields[1:]]
            for c, v in zip(columns, values):
                cells[(title, n, c)] = v
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--cpu", default="1")
    parser.add_argument("--out")
    parser.add_argument("--entries", default="")
    parser.add_argument("settings", nargs="+")
    args = parser.parse_args()
    settings = []
    for s in args.settings:
        name, _, rest = s.partition("=")
        env = dict(os.environ)
        if ":" in rest:
            assigns, _, binary = rest.rpartition(":")
            for kv in assigns.split(","):
                k, _, v = kv.partition("=")
                env[k] = v
        else:
            binary = rest
        if not name or not os.access(binary, os.X_OK):
            sys.exit(f"aliasing_ab: '{s}' is not NAME=[ENV=VALUE,...:]BINARY")
        settings.append((name, env, binary))
    runs = {name: [] for name, _, _ in settings}
    log = []
    for r in range(args.rounds):
        for k in range(len(settings)):
            name, env, binary = settings[(k + r) % len(settings)]
            out = subprocess.run(
                ["taskset", "-c", args.cpu, binary, *args.entries.split()], env=env, check=True,
                capture_output=True, text=True,
            ).stdout
            runs[name].append(parse(out))
            log.append(f"== {name} {r + 1}\n{out}")
    names = [n for n, _, _ in settings]
    keys = list(dict.fromkeys(k for cells in runs[names[0]] for k in cells))
    titles = list(dict.fromkeys(k[0] for k in keys))
    lines = []
    for title in titles:
        rows = sorted({k[1] for k in keys if k[0] == title})
        columns = list(dict.fromkeys(k[2] for k in keys if k[0] == title))
        lines.append(f"{title}: median over {args.rounds} processes, {' / '.join(names)}")
        width = max(6, 5 * len(names) - 1)
        lines.append(f"{'n':>7} " + " ".join(f"{c:>{width}}" for c in columns))
        for n in rows:
            cells = []
            for c in columns:
                meds = [statistics.median(cells_[(title, n, c)] for cells_ in runs[name])
                        for name in names]
                cells.append("/".join(f"{m:.2f}" for m in meds).rjust(width))
            lines.append(f"{n:>7} " + " ".join(cells))
    summary = "\n".join(lines)
    print(summary)
    if args.out:
        with open(args.out, "w") as f:
            f.write(summary + "\n\n" + "\n".join(log))


if __name__ == "__main__":
    main()
