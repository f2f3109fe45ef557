#!/usr/bin/env bash
# Native checks of the 512-bit backend, from a fresh clone, on 2 cores in well under 40
# minutes: what turns the backend on by default for a CPU family (src/dispatch.rs,
# AVX512_NATIVE_EVIDENCE). On a CPU with AVX-512F it writes everything into
# docs/bench/native-<family>-<model>-<commit>/ (commit it, or hand the folder on):
#   cpu.txt            the CPU (cpuid family/model/stepping, flags)
#   tests-avx512.txt   the public API's suites with FMADIV_BACKEND=avx512, default and mix-1
#   backends.txt       tests/backends.rs, the native vrcp14ps over all 2^32 inputs included
#   floors-avx512.json fmadiv bench --floors --json with the backend forced
#   floors-default.json the same by default
#   plans.json         20 fresh `fmadiv plan --json`, forced
# On a CPU without AVX-512F it says so, runs the suites on the software model, and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | xargs)
model=$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs)
commit=$(git rev-parse --short=7 HEAD)
suites=(--test exactness --test slices --test rounding --test mxcsr --test simd --test divisor)

cargo build --release -q

if ! grep -qw avx512f /proc/cpuinfo; then
    echo "This CPU (family $family model $model) has no AVX-512F: nothing native to record."
    echo "The 16-lane code through the software model instead:"
    FMADIV_BACKEND=avx512-model FMADIV_SCHEDULE=mix-1 cargo test --release "${suites[@]}" 2>&1 |
        grep -E '^test result|SKIPPED'
    cargo test --release --test backends 2>&1 | grep -E '^test result|backend |SKIPPED'
    exit 0
fi

out=$(printf 'docs/bench/native-0x%x-0x%x-%s' "$family" "$model" "$commit")
mkdir -p "$out"
echo "writing $out"
{
    echo "commit $commit"
    grep -m1 'model name' /proc/cpuinfo
    echo "cpuid family/model $family/$model, stepping $(grep -m1 '^stepping' /proc/cpuinfo | cut -d: -f2 | xargs)"
    grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^avx512' | xargs
    target/release/fmadiv fingerprint
} >"$out/cpu.txt" 2>&1

run() { echo "== $*"; env "$@" 2>&1 | grep -E '^test result|panicked|FAILED|SKIPPED'; }
{
    run FMADIV_BACKEND=avx512 cargo test --release "${suites[@]}"
    for schedule in kernel mix-1 mix-4 divider; do
        run FMADIV_BACKEND=avx512 FMADIV_SCHEDULE=$schedule cargo test --release --test exactness --test slices --test rounding
    done
} >"$out/tests-avx512.txt"
cargo test --release --test backends -- --include-ignored >"$out/backends.txt" 2>&1 || true

FMADIV_BACKEND=avx512 target/release/fmadiv bench --floors --json >"$out/floors-avx512.json"
target/release/fmadiv bench --floors --json >"$out/floors-default.json"
{
    echo "["
    for i in $(seq 1 20); do
        FMADIV_BACKEND=avx512 target/release/fmadiv plan --json
        [ "$i" -lt 20 ] && echo ","
    done
    echo "]"
} >"$out/plans.json"

if grep -qE 'FAILED|panicked' "$out"/tests-avx512.txt "$out"/backends.txt; then
    echo "FAILURES: see $out"
    exit 1
fi
echo "all passed: commit $out"
