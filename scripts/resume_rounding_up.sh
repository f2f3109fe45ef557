#!/usr/bin/env bash
# The whole 2^46 round-up sweep of the directed step, in 32 chunks of 2^18 dividend
# mantissas (2^41 pairs, about 8 minutes each on 2 threads of family 0x19), resumable across
# machines and sessions: finished chunks are reports in docs/verification/in-progress/
# rounding-up/, the chunk under way has its checkpoint beside them. Run it at the lowest
# priority beside other work; commit that folder before the machine goes away. When all 32
# reports are there it merges them into docs/verification/rounding-up-all.json.
#
#   setsid nohup nice -n 19 scripts/resume_rounding_up.sh &
set -euo pipefail
cd "$(dirname "$0")/.."
dir=docs/verification/in-progress/rounding-up
cargo build --release -q
bin=$(mktemp -d)/fmadiv
cp target/release/fmadiv "$bin" # rebuilds of the tree do not disturb the run
for i in $(seq 31 -1 0); do
    c=$(printf %02d "$i")
    [ -e "$dir/up-$c.json" ] && continue
    echo "$(date +%T) chunk $c" >&2
    "$bin" verify mantissa --rounding up --from $((i << 18)) --to $(((i + 1) << 18)) \
        --checkpoint "$dir/up-$c.ckpt" --report "$dir/up-$c.json"
    rm -f "$dir/up-$c.ckpt"
done
"$bin" verify merge "$dir"/up-*.json --report docs/verification/rounding-up-all.json
