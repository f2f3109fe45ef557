//! Build script: records how the crate was built (for verification reports) and tells the
//! dispatcher whether AVX2 and FMA are guaranteed at compile time.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fmadiv_static_avx2_fma)");
    println!("cargo::rustc-check-cfg=cfg(fmadiv_static_avx512)");
    // Set at opt-level 0 (a user's default `cargo build`): the slice functions then run an
    // `asm!` divider loop that needs no inlining (`arch::x86_64::short::div_unoptimized`).
    println!("cargo::rustc-check-cfg=cfg(fmadiv_unoptimized)");
    // `--cfg fmadiv_portable_only` compiles out every x86 module, as on a CPU of another
    // architecture (for testing the portable build on x86 machines).
    println!("cargo::rustc-check-cfg=cfg(fmadiv_portable_only)");
    // `--cfg fmadiv_mca` marks the schedules' loops for llvm-mca (scripts/mca.sh).
    println!("cargo::rustc-check-cfg=cfg(fmadiv_mca)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTFLAGS");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    let target = env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let profile = env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let opt_level = env::var("OPT_LEVEL").unwrap_or_else(|_| "?".into());
    if opt_level == "0" {
        println!("cargo::rustc-cfg=fmadiv_unoptimized");
    }

    // The x86 kernels exist on x86-64, unless `--cfg fmadiv_portable_only` compiles them
    // out (then the crate builds as it would on any other architecture).
    println!("cargo::rustc-check-cfg=cfg(fmadiv_x86)");
    let portable_only = env::var_os("CARGO_CFG_FMADIV_PORTABLE_ONLY").is_some();
    // Miri runs no inline assembly and neither `cpuid` nor the x86 kernels' intrinsics: under
    // it the crate builds as portable-only, the code Miri can check.
    let miri = env::var_os("CARGO_CFG_MIRI").is_some();
    let x86 = arch == "x86_64" && !portable_only && !miri;
    if x86 {
        println!("cargo::rustc-cfg=fmadiv_x86");
    }

    // With both features enabled for the whole crate (`-C target-cpu=native`, or
    // `-C target-feature=+avx2,+fma`) the kernel is called directly: no runtime detection.
    let enabled: Vec<&str> = features.split(',').collect();
    let avx2_fma = x86 && enabled.contains(&"avx2") && enabled.contains(&"fma");
    // With AVX-512F enabled too (`-C target-cpu=native` on an AVX-512 CPU, or
    // `-C target-feature=+avx512f,+avx2,+fma`) no feature is detected at run time either, but
    // the backend is still chosen once: the 16-lane one where its CPU family has native
    // evidence (`dispatch::AVX512_FAMILIES`, per entry point) or `FMADIV_BACKEND` asks for it.
    let static_avx512 = avx2_fma && enabled.contains(&"avx512f");
    let static_avx2_fma = avx2_fma && !static_avx512;
    if static_avx2_fma {
        println!("cargo::rustc-cfg=fmadiv_static_avx2_fma");
    }
    if static_avx512 {
        println!("cargo::rustc-cfg=fmadiv_static_avx512");
    }

    // Only the features that matter to the kernel, in a stable order, for reports.
    let relevant: Vec<&str> = ["sse2", "avx", "avx2", "fma", "avx512f"]
        .into_iter()
        .filter(|f| enabled.contains(f))
        .collect();

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());

    println!("cargo::rustc-env=FMADIV_BUILD_TARGET={target}");
    println!(
        "cargo::rustc-env=FMADIV_BUILD_FEATURES={}",
        if relevant.is_empty() {
            "none".to_string()
        } else {
            relevant.join(",")
        }
    );
    println!("cargo::rustc-env=FMADIV_BUILD_PROFILE={profile} (opt-level {opt_level})");
    println!("cargo::rustc-env=FMADIV_BUILD_RUSTC={rustc_version}");
    println!(
        "cargo::rustc-env=FMADIV_BUILD_DISPATCH={}",
        if static_avx2_fma {
            "static (avx2+fma enabled at compile time)"
        } else if static_avx512 {
            "static features (avx512f+avx2+fma enabled at compile time), backend chosen once"
        } else {
            "runtime detection"
        }
    );
}
