//! Says once which test files a build without the x86 kernels compiles out (a CPU of
//! another architecture, or `--cfg fmadiv_portable_only`): they need the AVX2+FMA kernel
//! and would otherwise disappear silently.
#![cfg(not(fmadiv_x86))]

mod common;

#[test]
fn x86_only_test_files_are_skipped_in_this_build() {
    for file in [
        "tests/sweep.rs (the mantissa and every-table sweeps)",
        "tests/cli.rs (fmadiv verify on the kernel)",
        "tests/mxcsr.rs (the kernels under FTZ/DAZ)",
        "tests/weakened.rs (the weakened kernels are caught)",
    ] {
        common::skipped_once(&format!("{file}: needs the x86 kernels, not in this build"));
    }
}
