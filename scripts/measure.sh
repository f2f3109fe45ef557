#!/usr/bin/env bash
# Measures everything the README and BENCHMARKS quote, on this CPU, into docs/bench/:
#
#   scripts/measure.sh            # about 10 minutes on 2 cores
#   python3 scripts/bench_report.py --write   # regenerates the tables from the JSON
#
# Files are named by cpuid family (0x19-floors.json ...), so runs on other CPUs sit beside
# these. Every command is pinned to one CPU (`taskset -c 0` where it exists): the vCPUs of
# a VM can differ by 30% and a process that migrates mixes them. Plans are made in fresh
# processes (a plan is calibrated once per process).
set -euo pipefail
cd "$(dirname "$0")/.."
plans=${PLANS:-20}

cargo build --release -q
cargo build --release -q --examples --features ndarray
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

# The plan in fresh processes, each checked afterwards (`plan --check`): how stable the
# choice is, and how often a choice other than the divider measures slower than it.
plans_json() {
    echo "["
    for i in $(seq 1 "$plans"); do
        [ "$i" -gt 1 ] && echo ","
        "${fmadiv[@]}" plan --check --json
    done
    echo "]"
}
save "$out/$family-plans.json" plans_json

# The same with a plan file (FMADIV_PLAN_FILE): the first process calibrates and saves the
# plan, the others read it; each still checks its choices afterwards in its own process.
plan_file=$(mktemp -u "${TMPDIR:-/tmp}/fmadiv-plan.XXXXXX")
plans_file_json() {
    echo "["
    for i in $(seq 1 "$plans"); do
        [ "$i" -gt 1 ] && echo ","
        FMADIV_PLAN_FILE="$plan_file" "${fmadiv[@]}" plan --check --json
    done
    echo "]"
}
save "$out/$family-plans-file.json" plans_file_json
rm -f "$plan_file"
