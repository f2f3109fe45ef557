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

/// The public types are `Send` and `Sync` (a `Divisor` shared by rayon's threads, the plan
/// read from any thread, an error sent up a channel), and stay so: the listing above does not
/// show auto traits, so a field that took one away (a `Cell` in the `Divisor`, say) would
/// pass it. A type that lost either fails to compile here.
#[test]
fn the_public_types_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<fmadiv::Divisor>();
    shared::<fmadiv::Strategy>();
    shared::<fmadiv::Error>();
    shared::<fmadiv::Rounding>();
    shared::<fmadiv::Plan>();
    shared::<fmadiv::plan::Choices>();
    shared::<fmadiv::plan::DivisorChoices>();
    shared::<fmadiv::plan::Origin>();
    shared::<fmadiv::plan::OutOfBound>();
    shared::<fmadiv::Schedule>();
    shared::<fmadiv::Mix>();
    shared::<fmadiv::UnknownSchedule>();
    shared::<fmadiv::Backend>();
    shared::<fmadiv::EntryPoint>();
    shared::<fmadiv::Avx512Family>();
    shared::<fmadiv::Cpu>();
    shared::<fmadiv::Vendor>();
    #[cfg(fmadiv_x86)]
    {
        shared::<fmadiv::simd::Avx2Fma>();
        shared::<fmadiv::simd::Avx512>();
    }
}
