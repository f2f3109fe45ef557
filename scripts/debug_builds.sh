#!/usr/bin/env bash
# Every public entry point at 4096 elements in the three builds a user meets first: a new
# crate with fmadiv as a path dependency, built with the dev profile (dependencies at
# opt-level 0), the dev profile with `[profile.dev.package.fmadiv] opt-level = 3`, and
# release; prints one table (median ns per call over 7 alternating rounds, range in
# brackets, and each build's ratio to release). The README's "Debug builds" table is its
# output.
#
#   scripts/debug_builds.sh [TARGET_DIR]     # about 3 minutes on 2 cores, most of it building
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
target=${1:-${CARGO_TARGET_DIR:-target}/debug-builds}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src"
cp scripts/debug_builds/main.rs "$dir/src/main.rs"
manifest() {
    printf '[package]\nname = "user"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\n'
    printf 'fmadiv = { path = "%s", features = ["ndarray"] }\nndarray = "0.17"\nwide = "1.7"\n' "$top"
    printf '[workspace]\n%s\n' "$1"
}
run() { # NAME PROFILE-FLAG EXTRA-TOML
    manifest "$3" >"$dir/Cargo.toml"
    cargo build -q $2 --manifest-path "$dir/Cargo.toml" --target-dir "$target/$1" >&2
    local bin="$target/$1/$([ -n "$2" ] && echo release || echo debug)/user"
    "$bin" >"$dir/$1.txt"
}
run dev "" ""
run override "" $'[profile.dev.package.fmadiv]\nopt-level = 3'
run override-full "" $'[profile.dev.package.fmadiv]\nopt-level = 3\ndebug-assertions = false\noverflow-checks = false'
run release --release ""
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | xargs)
model=$(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs)
echo "4096 elements (in + out 48 KiB), $cpu, cpuid family/model $(printf '0x%x/0x%x' "$family" "$model"), commit $(git rev-parse --short HEAD)"
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
runs = {}
for build in ("dev", "override", "override-full", "release"):
    rows = [l.rstrip("\n").split("\t") for l in open(f"{d}/{build}.txt")]
    runs[build] = {r[0]: [float(x) for x in r[1:]] for r in rows}
names = list(runs["release"])
own = runs["dev"][names[0]][0]
print("| entry point | dev profile | dev + `opt-level = 3` for fmadiv | dev + the three lines for fmadiv | release | dev: speed vs own opt-0 loop |")
print("|---|---|---|---|---|---|")
for n in names:
    rel = runs["release"][n][0]
    cells = []
    for build in ("dev", "override", "override-full", "release"):
        med, lo, hi = runs[build][n]
        ratio = "" if build == "release" else f", {med / rel:.2f}x release"
        cells.append(f"{med / 1000:.2f} us [{lo / 1000:.2f}-{hi / 1000:.2f}]{ratio}")
    print(f"| {n} | " + " | ".join(cells) + f" | {own / runs['dev'][n][0]:.2f}x |")
PY
