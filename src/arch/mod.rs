//! Kernels by architecture, and the portable path beside them.

pub mod portable;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;
