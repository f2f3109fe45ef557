#!/usr/bin/env bash
# 4K aliasing: `fmadiv::div` (the plan's loop) and the divider's grouped loop over every
# placement of the output modulo 4 KiB (64-byte steps), for a few placements of the
# divisors, pinned to one CPU. Prints a Markdown table: median and worst ns per call.
#
#   scripts/aliasing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/harness.sh
bin=$(build_harness scripts/aliasing/main.rs "$PWD" '["verify"]' "${CARGO_TARGET_DIR:-target}/aliasing")
family=$(printf '0x%x' "$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2)")
model=$(printf '0x%x' "$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2)")
echo "CPU family $family model $model; \`scripts/aliasing.sh\` at $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with changes'); ns per call over 64 placements of the output."
echo
echo "| elements | divisors' offset (bytes) | div: median | div: worst | grouped divider loop: median | worst |"
echo "|---|---|---|---|---|---|"
for n in ${SIZES:-1024 4096 16384}; do
    for off in 0 16 48 3072; do
        "${pin[@]}" "$bin" "$n" "$off"
    done
done
