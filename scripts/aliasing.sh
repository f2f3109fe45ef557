#!/usr/bin/env bash
# 4K aliasing: `fmadiv::div` (the plan's loop) and the divider's grouped loop over every
# placement of the output modulo 4 KiB (64-byte steps), for a few placements of the
# divisors, pinned to one CPU. Prints a Markdown table: median and worst ns per call.
#
#   scripts/aliasing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cp scripts/aliasing/main.rs "$work/src/main.rs"
printf '[package]\nname = "aliasing"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\nfmadiv = { path = "%s", default-features = false, features = ["verify"] }\n[workspace]\n' "$PWD" >"$work/Cargo.toml"
cargo build -q --release --manifest-path "$work/Cargo.toml" --target-dir "${CARGO_TARGET_DIR:-target}/aliasing"
bin=${CARGO_TARGET_DIR:-target}/aliasing/release/aliasing
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
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
