#!/usr/bin/env bash
# Per-call time of six functions in two versions of the crate, measured alternately:
#
#   scripts/versions.sh aed851f          # the 0.3.0 release against the working tree
#   FUNCS="div recip" LENS="8 64" RUNS=21 scripts/versions.sh b54c564
#                                        # some functions and lengths, more runs
#   NULL=1 scripts/versions.sh b54c564   # REV's harness built again and run beside the
#                                        # two (a null test: how far one code moves alone)
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
# The null: REV's harness from a second build, timed as a version of its own.
[ -n "${NULL:-}" ] && again=$(build_harness scripts/versions/main.rs "$work/old" '[]' "$work/target-again")
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
family=$(printf '0x%x' "$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2)")
model=$(printf '0x%x' "$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2)")
echo "CPU family $family model $model; \`scripts/versions.sh $rev\` ($(git rev-parse --short "$rev") against $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with changes')); ns per call, median of ${RUNS:-9} alternate runs of the best of 5 timings."
echo
if [ -n "${NULL:-}" ]; then
    echo "| function | length | $rev | $rev again (null) | this tree |"
    echo "|---|---|---|---|---|"
else
    echo "| function | length | $rev | this tree |"
    echo "|---|---|---|---|"
fi
for f in ${FUNCS:-div div_in_place recip div_scalar Divisor::divide_slice Divisor::divide_in_place}; do
    for n in ${LENS:-8 64 1024 16384}; do
        o=() a=() m=()
        for _ in $(seq "${RUNS:-9}"); do
            o+=("$("${pin[@]}" "$old" "$f" "$n")")
            [ -n "${NULL:-}" ] && a+=("$("${pin[@]}" "$again" "$f" "$n")")
            m+=("$("${pin[@]}" "$new" "$f" "$n")")
        done
        null=""
        [ -n "${NULL:-}" ] && null=" $(printf '%s\n' "${a[@]}" | median) |"
        echo "| $f | $n | $(printf '%s\n' "${o[@]}" | median) |$null $(printf '%s\n' "${m[@]}" | median) |"
    done
done
