//! x86-64 kernels.

pub mod avx2;
pub mod directed;
pub(crate) mod short;
