//! x86-64 kernels.

pub mod avx2;
