//! Build script: the `fmadiv_x86` cfg, as the library sets it (x86-64, unless
//! `--cfg fmadiv_portable_only` compiles the x86 code out, or Miri runs it).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fmadiv_x86)");
    println!("cargo::rustc-check-cfg=cfg(fmadiv_portable_only)");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let portable_only = std::env::var_os("CARGO_CFG_FMADIV_PORTABLE_ONLY").is_some();
    let miri = std::env::var_os("CARGO_CFG_MIRI").is_some();
    if arch == "x86_64" && !portable_only && !miri {
        println!("cargo::rustc-cfg=fmadiv_x86");
    }
}
