//! x86-64 kernels.

pub mod avx2;
pub(crate) mod short;
