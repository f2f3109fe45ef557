# Sourced by scripts/aliasing.sh, outlined.sh and versions.sh: builds a small program as a
# crate of its own (as a user's crate would be built) against a copy of fmadiv.
#
#   build_harness SOURCE CRATE_PATH FEATURES TARGET_DIR   # prints the binary's path
#
# SOURCE: the program's main.rs; CRATE_PATH: the fmadiv to build against; FEATURES: a TOML
# array of fmadiv's features (default features off); TARGET_DIR: cargo's target directory.
build_harness() {
    local source=$1 crate=$2 features=$3 target=$4
    local dir
    dir=$(mktemp -d)
    mkdir -p "$dir/src"
    cp "$source" "$dir/src/main.rs"
    printf '[package]\nname = "harness"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\nfmadiv = { path = "%s", default-features = false, features = %s }\n[workspace]\n' \
        "$crate" "$features" >"$dir/Cargo.toml"
    # A failed build must not leave an older binary to be measured or disassembled.
    if ! cargo build -q --release --manifest-path "$dir/Cargo.toml" --target-dir "$target" >&2; then
        rm -rf "$dir"
        return 1
    fi
    rm -rf "$dir"
    echo "$target/release/harness"
}

# The pinning prefix: one CPU where taskset exists.
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
