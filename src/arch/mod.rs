//! Kernels and loops: the portable path, the width-generic kernel and loops, and the
//! backends that compile them.

pub mod portable;
#[cfg(fmadiv_x86)]
pub mod simd;
#[cfg(fmadiv_x86)]
pub mod x86_64;
