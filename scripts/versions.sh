#!/usr/bin/env bash
# Per-call time of six functions in two versions of the crate, measured alternately:
#
#   scripts/versions.sh aed851f          # the 0.3.0 release against the working tree
#
# Builds scripts/versions/main.rs against revision REV (a git worktree) and against this
# tree, runs each (function, length) RUNS (9) times per version alternately, pinned to one CPU,
# and prints a Markdown table of the medians (ns per call; lower is faster). Absolute times
# of one harness: unlike a ratio to a baseline loop compiled in each build, they do not
# move with the baseline's code placement.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/versions.sh REV}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/old" "$rev"
. scripts/harness.sh
old=$(build_harness scripts/versions/main.rs "$work/old" '[]' "$work/target-old")
new=$(build_harness scripts/versions/main.rs "$PWD" '[]' "$work/target-new")
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
family=$(printf '0x%x' "$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2)")
model=$(printf '0x%x' "$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2)")
echo "CPU family $family model $model; \`scripts/versions.sh $rev\` ($(git rev-parse --short "$rev") against $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with changes')); ns per call, median of ${RUNS:-9} alternate runs of the best of 5 timings."
echo
echo "| function | length | $rev | this tree |"
echo "|---|---|---|---|"
for f in div div_in_place recip div_scalar Divisor::divide_slice Divisor::divide_in_place; do
    for n in 8 64 1024 16384; do
        o=() m=()
        for _ in $(seq "${RUNS:-9}"); do
            o+=("$("${pin[@]}" "$old" "$f" "$n")")
            m+=("$("${pin[@]}" "$new" "$f" "$n")")
        done
        echo "| $f | $n | $(printf '%s\n' "${o[@]}" | median) | $(printf '%s\n' "${m[@]}" | median) |"
    done
done
