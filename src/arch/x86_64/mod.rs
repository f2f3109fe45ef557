//! x86-64: the AVX2+FMA and AVX-512F backends, the rounding mode MXCSR holds, and SSE loops
//! for short slices.

pub mod avx2;
pub mod avx512;
#[cfg(feature = "verify")]
pub mod avx512_model;
pub mod mode;
pub(crate) mod short;
