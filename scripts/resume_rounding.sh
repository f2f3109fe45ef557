#!/usr/bin/env bash
# The whole 2^46 sweep of the directed step under one rounding mode, in 32 chunks of 2^18
# dividend mantissas (2^41 pairs, about 7 to 8 minutes each on 2 threads of family 0x19),
# resumable across machines and sessions: finished chunks are reports in
# docs/verification/in-progress/rounding-MODE/, the chunk under way has its checkpoint
# beside them. Run it at the lowest priority beside other work; commit that folder before
# the machine goes away. When all 32 reports are there it merges them into
# docs/verification/rounding-MODE-all.json.
#
#   setsid nohup nice -n 19 scripts/resume_rounding.sh up &        # or down, toward-zero
#
# `nice` alone is not enough where the kernel groups processes by session (autogroup,
# /proc/sys/kernel/sched_autogroup_enabled): a `setsid` process is its own group, and the
# scheduler shares the CPUs between groups equally whatever their members' nice values, so
# the sweep would take a whole core from a build or a benchmark started elsewhere. The
# script therefore lowers its group's priority too.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -w /proc/self/autogroup ]; then echo 19 >/proc/self/autogroup || true; fi
mode=${1:?usage: scripts/resume_rounding.sh up|down|toward-zero}
case $mode in up | down | toward-zero) ;; *) echo "no rounding mode $mode" >&2; exit 2 ;; esac
dir=docs/verification/in-progress/rounding-$mode
mkdir -p "$dir"
cargo build --release -q
bin=$(mktemp -d)/fmadiv
cp target/release/fmadiv "$bin" # rebuilds of the tree do not disturb the run
for i in $(seq 31 -1 0); do
    c=$(printf %02d "$i")
    [ -e "$dir/$mode-$c.json" ] && continue
    echo "$(date +%T) chunk $c" >&2
    "$bin" verify mantissa --rounding "$mode" --from $((i << 18)) --to $(((i + 1) << 18)) \
        --checkpoint "$dir/$mode-$c.ckpt" --report "$dir/$mode-$c.json"
    rm -f "$dir/$mode-$c.ckpt"
done
"$bin" verify merge "$dir"/"$mode"-*.json --report "docs/verification/rounding-$mode-all.json"
