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

/// MXCSR now.
#[cfg(target_arch = "x86_64")]
#[allow(dead_code)] // not every example reads it
pub fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr stores the register to a valid local.
    unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack)) };
    csr
}

/// Loads `csr` into MXCSR: the callers change only the flags or the rounding field, around
/// non-inlined arithmetic, and put the original back before comparing anything.
#[cfg(target_arch = "x86_64")]
#[allow(dead_code)] // not every example writes it
pub fn write_mxcsr(csr: u32) {
    // SAFETY: a valid control word (MXCSR as read, flags or rounding field changed).
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack)) };
}
