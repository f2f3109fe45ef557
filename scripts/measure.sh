#!/usr/bin/env bash
# Measures everything the README and BENCHMARKS quote, on this CPU, into docs/bench/:
#
#   scripts/measure.sh            # about 25 minutes on 2 cores
#   python3 scripts/bench_report.py --write   # regenerates the tables from the JSON
#
# Files are named by cpuid family (0x19-floors.json ...), so runs on other CPUs sit beside
# these. Every command is pinned to one CPU (`taskset -c 0` where it exists): the vCPUs of
# a VM can differ by 30% and a process that migrates mixes them. Plans are made in fresh
# processes (the plan is the same in each; the divisor benchmark runs in ten).
set -euo pipefail
cd "$(dirname "$0")/.."
plans=${PLANS:-20}

cargo build --release -q
cargo build --release -q --examples --features ndarray

# A sweep left running in the background (scripts/resume_rounding.sh) takes CPU time from
# these runs even at nice 19 where the kernel schedules sessions as groups (autogroup): it
# is paused while they run and resumed at the end, however the script ends.
sweeps=$(pgrep -f "fmadiv verify" || true)
if [ -n "$sweeps" ]; then
    kill -STOP $sweeps
    trap 'kill -CONT $sweeps' EXIT
    echo "paused the sweeps $sweeps until the measurements end"
fi
RUSTFLAGS="-C target-cpu=native" cargo build --release -q --target-dir target/native --example simd_loop

family=$(printf '0x%x' "$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2)")
out=docs/bench
mkdir -p "$out"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
fmadiv=("${pin[@]}" target/release/fmadiv)

# Write through a temporary file: an interrupted run never leaves a truncated report.
save() {
    local file=$1
    shift
    "$@" >"$file.tmp"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$file.tmp"
    mv "$file.tmp" "$file"
    echo "wrote $file"
}

save "$out/$family-floors.json" "${fmadiv[@]}" bench --floors --json
save "$out/$family-schedules.json" "${fmadiv[@]}" bench --schedules --json
save "$out/$family-methods.json" "${fmadiv[@]}" bench --json
save "$out/$family-simd-default.json" "${pin[@]}" target/release/examples/simd_loop --json
save "$out/$family-simd-native.json" "${pin[@]}" target/native/release/examples/simd_loop --json
save "$out/$family-ndarray.json" "${pin[@]}" target/release/examples/ndarray_rows --json

save "$out/$family-rounding.json" "${fmadiv[@]}" bench --rounding --json

# Layout and version comparisons (Markdown): the divider loops over every placement of the
# output modulo 4 KiB, and six functions against the 0.3.0 release in one harness.
scripts/aliasing.sh >"$out/$family-aliasing.md.tmp" && mv "$out/$family-aliasing.md.tmp" "$out/$family-aliasing.md"
scripts/versions.sh aed851f >"$out/$family-versions.md.tmp" && mv "$out/$family-versions.md.tmp" "$out/$family-versions.md"

# The plan in fresh processes: a row of the committed table, the same in every process.
plans_json() {
    echo "["
    for i in $(seq 1 "$plans"); do
        [ "$i" -gt 1 ] && echo ","
        "${fmadiv[@]}" plan --json
    done
    echo "]"
}
save "$out/$family-plans.json" plans_json

# The Divisor against the broadcast divider loop in fresh processes (each with its own
# plan and its own buffers).
divisor_runs=${DIVISOR_RUNS:-10}
divisors_json() {
    echo "["
    for i in $(seq 1 "$divisor_runs"); do
        [ "$i" -gt 1 ] && echo ","
        "${fmadiv[@]}" bench --divisors --json
    done
    echo "]"
}
save "$out/$family-divisors.json" divisors_json
