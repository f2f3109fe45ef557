//! The public API is what `docs/public-api.txt` lists (made by `scripts/public_api.py` from
//! rustdoc's JSON): a change to it must be deliberate, with the listing updated by
//! `scripts/public_api.py --write`.

mod common;

use std::process::Command;

#[test]
fn the_public_api_listing_is_current() {
    let root = env!("CARGO_MANIFEST_DIR");
    let nightly = Command::new("cargo")
        .args(["+nightly", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let python = Command::new("python3").arg("--version").output().is_ok();
    if !nightly || !python {
        common::skipped_once("the public API listing (needs a nightly toolchain and python3)");
        return;
    }
    // The listing is of the default x86-64 build with every feature: no flags of this run.
    let out = Command::new("python3")
        .args(["scripts/public_api.py", "--check"])
        .current_dir(root)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
