#!/usr/bin/env bash
# Resumes the whole-range (2^46 pairs) round-down sweep of the directed step from its
# checkpoint, at the lowest priority: the one in SWEEP_DIR if there is one, else the
# snapshot committed in docs/verification/in-progress/. About 3.3 hours of 2 undisturbed
# threads on family 0x19 in all; the checkpoint is rewritten atomically as it goes, so it
# can be stopped and resumed at any moment. When it finishes, copy the report to
# docs/verification/rounding-down-all.json and run `python3 scripts/bench_report.py --write`.
#
#   SWEEP_DIR=/work/sweeps/step2 scripts/resume_rounding_sweep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${SWEEP_DIR:-/work/sweeps/step2}
mkdir -p "$dir"
[ -f "$dir/down-all.ckpt" ] || cp docs/verification/in-progress/rounding-down-all.ckpt "$dir/down-all.ckpt"
cargo build --release -q -p fmadiv-cli
exec nice -n 19 target/release/fmadiv verify mantissa --rounding down \
    --checkpoint "$dir/down-all.ckpt" --report "$dir/down-all.json"
