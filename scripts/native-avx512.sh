#!/usr/bin/env bash
# Native checks of the 512-bit backend, from a fresh clone, on 2 cores in well under 40
# minutes: what turns the backend on by default for a CPU family (src/dispatch/families.rs,
# AVX512_FAMILIES: a family's record names its run and the entry points that take sixteen
# lanes there, e.g. the directed functions only on Emerald Rapids). On a CPU with AVX-512F it writes everything into
# docs/bench/native-<family>-<model>-<commit>/ (commit it, or hand the folder on):
#   cpu.txt            the CPU (cpuid family/model/stepping, flags)
#   tests-avx512.txt   the public API's suites with FMADIV_BACKEND=avx512, default and mix-1
#   backends.txt       tests/backends.rs, with the native vrcp14ps over all 2^32 inputs held
#                      to the 2^-14 bound and the special values, and whether it is Intel's
#                      reference table (required on Emerald Rapids, reported on others), and what
#                      the weakened kernels do under the directed step (its output)
#   floors-avx512.json fmadiv bench --floors --json with the backend forced
#   floors-default.json the same by default
#   (every timed `fmadiv bench` runs in several processes, interleaved with the others':
#   NAME.json and NAME-2.json, NAME-3.json, ...; one process is one sample, as a process can sit
#   in a slow mode for all its rounds: BENCHMARKS.md, "One process is one sample")
#   plans.json         20 fresh `fmadiv plan --json`, forced
#   rounding-avx512.json fmadiv bench --rounding --json with the backend forced: also the
#                      directed loops from the kernel's and the mixes' quotients against
#                      two embedded-rounding passes (issue 47, item 4)
#   schedules-avx512.json fmadiv bench --schedules --json with the backend forced: the kernel
#                      alone and every mix at sixteen lanes against the 512-bit divider loop
#                      (issue 47's table)
#   embedded-rounding.txt examples/embedded_rounding.rs (bits and speed against {rd-sae} loops)
#   static-avx512.txt  suites of a build with AVX-512F, AVX2 and FMA enabled at compile time
#   exception-flags.txt examples/exception_flags.rs by default and with the backend forced
#   in-place-alone.txt examples/in_place_alone.rs by default and with the backend forced:
#                      div_in_place against the plain loop in place with no copy timed
#   kernel-check-cost.txt examples/kernel_check_cost.rs pinned to CPU 0: the mixed loops with
#                      the input check as shipped, in part and left out, against the divider
#                      loop at eight and sixteen lanes (what the check costs beside the kernel)
#   kernel-check-cost-normal.txt the same with --normal: random fractions, near-all-ones
#                      divisors among them (the 2^5 rule sixteen lanes ship against the 2^15)
#   stream-ceiling.txt examples/stream_ceiling.rs by default, a process each round: the plain
#                      multiply loop against the divider loop at each length, the most any
#                      division loop of that shape can gain there (the memory limits it)
#   codegen-units/     three alternating `bench --floors --json` runs each of this build (one
#                      codegen unit, the workspace's profile) and of the build a user's
#                      default release profile makes (sixteen), pinned to CPU 0
#   codegen-units.txt  scripts/floors_ab.py summary and speeds of those runs
#   summary.txt        scripts/sixteen_lanes.py on the folder: the schedule table and the
#                      measured figures against issue 47's goals
# On a CPU without AVX-512F it says so, runs the suites on the software model, and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | xargs)
model=$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs)
commit=$(git rev-parse --short=7 HEAD)
suites=(--test exactness --test slices --test rounding --test mxcsr --test simd --test divisor)
# Rounds of the timed benchmarks: a process of each a round, two of the schedules (the floors
# take about 5 s a process on Zen 4, the others 0.5-2 s).
ROUNDS=5

cargo build --release -q

if ! grep -qw avx512f /proc/cpuinfo; then
    echo "This CPU (family $family model $model) has no AVX-512F: nothing native to record."
    echo "The 16-lane code through the software model instead:"
    FMADIV_BACKEND=avx512-model FMADIV_SCHEDULE=mix-1 cargo test --release "${suites[@]}" 2>&1 |
        grep -E '^test result|SKIPPED'
    cargo test --release --test backends 2>&1 | grep -E '^test result|backend |SKIPPED'
    cargo run --release -q --example kernel_check_cost -- --model
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
    # 10^7 random bit patterns and 10^7 in-window pairs per entry point.
    for schedule in kernel mix-1; do
        run FMADIV_BACKEND=avx512 FMADIV_SCHEDULE=$schedule cargo test --release --test random_patterns -- --ignored
    done
} >"$out/tests-avx512.txt"
# `wide` does not compile with +avx512f alone (its 16-lane integers want AVX-512BW): the
# set `-C target-cpu=native` enables on AVX-512 CPUs. `--target` keeps the flags off the
# build scripts.
static_flags="-C target-feature=+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx2,+fma"
if grep -qw avx512bw /proc/cpuinfo; then
    RUSTFLAGS="$static_flags" run cargo test --release --target x86_64-unknown-linux-gnu \
        --target-dir target/static512 --test exactness --test slices --test rounding --test simd \
        >"$out/static-avx512.txt"
fi
cargo run --release -q --example embedded_rounding >"$out/embedded-rounding.txt" 2>&1 || true
{
    cargo run --release -q --example exception_flags
    FMADIV_BACKEND=avx512 cargo run --release -q --example exception_flags
    FMADIV_BACKEND=avx512 FMADIV_SCHEDULE=mix-1 cargo run --release -q --example exception_flags
} >"$out/exception-flags.txt" 2>&1 || true
cargo test --release --test backends -- --include-ignored --nocapture >"$out/backends.txt" 2>&1 || true

# The timed benchmarks, interleaved: each round runs two processes of the schedules and one
# of each other benchmark, so that every benchmark's processes spread over the minutes they
# all take. NAME.json for the first process, NAME-<k>.json for the k-th
# (scripts/sixteen_lanes.py merges them).
cargo build --release -q --example stream_ceiling
numbered() { if [ "$2" = 1 ]; then echo "$out/$1.json"; else echo "$out/$1-$2.json"; fi; }
for k in $(seq 1 "$ROUNDS"); do
    for j in $((2 * k - 1)) $((2 * k)); do
        FMADIV_BACKEND=avx512 target/release/fmadiv bench --schedules --json \
            >"$(numbered schedules-avx512 "$j")"
    done
    FMADIV_BACKEND=avx512 target/release/fmadiv bench --rounding --json \
        >"$(numbered rounding-avx512 "$k")"
    FMADIV_BACKEND=avx512 target/release/fmadiv bench --floors --json \
        >"$(numbered floors-avx512 "$k")"
    target/release/fmadiv bench --floors --json >"$(numbered floors-default "$k")"
    target/release/examples/stream_ceiling >>"$out/stream-ceiling.txt" 2>&1 ||
        echo "examples/stream_ceiling failed: read $out/stream-ceiling.txt"
done
# The figures above come from one codegen unit; a user's release build compiles the crate in
# sixteen. The same floors of both builds, alternately (BENCHMARKS.md, "How the tool is built").
if CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release -q -p fmadiv-cli --target-dir target/cgu16 &&
    python3 scripts/floors_ab.py run --rounds 3 --cpu 0 --out "$out/codegen-units" \
        one=target/release/fmadiv sixteen=target/cgu16/release/fmadiv; then
    {
        python3 scripts/floors_ab.py summary --table "$out/floors-default.json" "$out/codegen-units" one sixteen
        echo
        python3 scripts/floors_ab.py speeds "$out/codegen-units" one sixteen
    } >"$out/codegen-units.txt" 2>&1 || echo "scripts/floors_ab.py failed: read $out/codegen-units"
else
    echo "the codegen-units comparison did not run (see above); the other files stand"
fi
{
    cargo run --release -q --example in_place_alone
    FMADIV_BACKEND=avx512 cargo run --release -q --example in_place_alone
} >"$out/in-place-alone.txt" 2>&1 || true
cargo build --release -q --example kernel_check_cost &&
    taskset -c 0 target/release/examples/kernel_check_cost >"$out/kernel-check-cost.txt" 2>&1 ||
    echo "examples/kernel_check_cost failed: read $out/kernel-check-cost.txt"
taskset -c 0 target/release/examples/kernel_check_cost --normal \
    >"$out/kernel-check-cost-normal.txt" 2>&1 ||
    echo "examples/kernel_check_cost --normal failed: read $out/kernel-check-cost-normal.txt"
{
    echo "["
    for i in $(seq 1 20); do
        FMADIV_BACKEND=avx512 target/release/fmadiv plan --json
        [ "$i" -lt 20 ] && echo ","
    done
    echo "]"
} >"$out/plans.json"

# The summary reads what was written; should it fail, the files above stay and say the same.
python3 scripts/sixteen_lanes.py "$out" | tee "$out/summary.txt" ||
    echo "scripts/sixteen_lanes.py failed: read the JSON files in $out"

if grep -qE 'FAILED|panicked' "$out"/tests-avx512.txt "$out"/backends.txt "$out"/static-avx512.txt \
    "$out"/kernel-check-cost.txt "$out"/kernel-check-cost-normal.txt "$out"/stream-ceiling.txt 2>/dev/null ||
    grep -qE ': [1-9][0-9]* differences' "$out/embedded-rounding.txt"; then
    echo "FAILURES: see $out"
    exit 1
fi
echo "all passed: commit $out"
