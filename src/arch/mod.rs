//! Kernels by architecture, and the portable path beside them.

pub mod portable;
#[cfg(fmadiv_x86)]
pub mod x86_64;
