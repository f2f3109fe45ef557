#!/usr/bin/env bash
# The measurements of scripts/measure.sh that need only a built `fmadiv` binary, for a
# machine without a Rust toolchain, time-boxed; then, while time is left and the CPU's rcpps
# table is the one the committed whole-range directed sweep runs on, chunks of that sweep:
#
#   scripts/measure_binary.sh BIN OUTDIR SECONDS [MODE]    # MODE: toward-zero (default)
#
# Writes OUTDIR/FAMILY-MODEL-*.json (fingerprint, plans in 20 fresh processes, divisors in
# ten, floors twice, rounding, schedules) and OUTDIR/sweep/MODE-NN.json for every finished
# chunk (the chunk under way leaves its checkpoint). Chunks are taken from the lowest
# dividend mantissas up; scripts/resume_rounding.sh takes them from the top down, so the two
# can run on two machines and meet.
set -euo pipefail
bin=${1:?usage: measure_binary.sh BIN OUTDIR SECONDS [MODE]}
out=${2:?usage: measure_binary.sh BIN OUTDIR SECONDS [MODE]}
seconds=${3:?usage: measure_binary.sh BIN OUTDIR SECONDS [MODE]}
mode=${4:-toward-zero}
deadline=$((SECONDS + seconds))
sweep_table=877ee81e5312491d # the rcpps table of the committed whole-range sweeps
mkdir -p "$out/sweep"

cpu=$(printf '0x%x-0x%x' "$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2)" \
    "$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2)")
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
fmadiv=("${pin[@]}" "$bin")

# Write through a temporary file: an interrupted run never leaves a truncated file.
save() {
    local file=$out/$cpu-$1
    shift
    "$@" >"$file.tmp" && mv "$file.tmp" "$file" && echo "$(date +%T) wrote $file" >&2
}
runs() { # N COMMAND...: a JSON array of N fresh processes' output
    local n=$1
    shift
    echo "["
    for i in $(seq 1 "$n"); do
        [ "$i" -gt 1 ] && echo ","
        "$@"
    done
    echo "]"
}

{ grep -m1 'model name' /proc/cpuinfo; nproc; grep -m1 '^flags' /proc/cpuinfo; } >"$out/$cpu-cpuinfo.txt"
save fingerprint.json "$bin" fingerprint --json
save plans.json runs "${PLANS:-20}" "${fmadiv[@]}" plan --json
save divisors.json runs "${DIVISOR_RUNS:-10}" "${fmadiv[@]}" bench --divisors --json
save floors-1.json "${fmadiv[@]}" bench --floors --json
save rounding.json "${fmadiv[@]}" bench --rounding --json
save schedules.json "${fmadiv[@]}" bench --schedules --json
save floors-2.json "${fmadiv[@]}" bench --floors --json

if ! grep -q "\"rcp_fingerprint\": \"$sweep_table\"" "$out/$cpu-fingerprint.json"; then
    echo "rcpps table is not $sweep_table: no sweep chunks here" >&2
    exit 0
fi
for i in $(seq 0 31); do
    c=$(printf %02d "$i")
    [ -e "$out/sweep/$mode-$c.json" ] && continue
    left=$((deadline - SECONDS))
    [ "$left" -gt 5 ] || break
    echo "$(date +%T) chunk $c, $left s left" >&2
    timeout "$left" "$bin" verify mantissa --rounding "$mode" --from $((i << 18)) --to $(((i + 1) << 18)) \
        --checkpoint "$out/sweep/$mode-$c.ckpt" --report "$out/sweep/$mode-$c.json" || break
    rm -f "$out/sweep/$mode-$c.ckpt"
done
