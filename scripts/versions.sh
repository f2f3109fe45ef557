#!/usr/bin/env bash
# Per-call time of six functions in two versions of the crate, measured alternately:
#
#   scripts/versions.sh aed851f          # the 0.3.0 release against the working tree
#
# Builds scripts/versions/main.rs against revision REV (a git worktree) and against this
# tree, runs each (function, length) five times per version alternately, pinned to one CPU,
# and prints a Markdown table of the medians (ns per call; lower is faster). Absolute times
# of one harness: unlike a ratio to a baseline loop compiled in each build, they do not
# move with the baseline's code placement.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/versions.sh REV}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/old" "$rev"
build() { # build NAME CRATE_PATH
    mkdir -p "$work/h-$1/src"
    cp scripts/versions/main.rs "$work/h-$1/src/main.rs"
    printf '[package]\nname = "versions"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\nfmadiv = { path = "%s", default-features = false }\n[workspace]\n' "$2" >"$work/h-$1/Cargo.toml"
    cargo build -q --release --manifest-path "$work/h-$1/Cargo.toml" --target-dir "$work/target-$1"
    cp "$work/target-$1/release/versions" "$work/$1.bin"
}
build old "$work/old"
build new "$PWD"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
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
            o+=("$("${pin[@]}" "$work/old.bin" "$f" "$n")")
            m+=("$("${pin[@]}" "$work/new.bin" "$f" "$n")")
        done
        echo "| $f | $n | $(printf '%s\n' "${o[@]}" | median) | $(printf '%s\n' "${m[@]}" | median) |"
    done
done
