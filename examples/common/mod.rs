//! What the examples share.

/// This CPU as "cpu family F model M" (decimal, from /proc/cpuinfo), for the examples'
/// output; "unknown CPU" where there is no such file.
#[allow(dead_code)] // not every example names the CPU this way
pub fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            let get = |key: &str| {
                s.lines()
                    .find(|l| l.starts_with(key))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|v| v.trim().to_string())
            };
            Some(format!(
                "cpu family {} model {}",
                get("cpu family")?,
                get("model\t")?
            ))
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_imports)] // not every example reads or writes MXCSR
pub use fmadiv_verify::mxcsr::{ALL_FLAGS, flags_of, read_mxcsr, write_mxcsr};
