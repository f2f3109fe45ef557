//! x86-64: the AVX2+FMA backend, the rounding mode MXCSR holds, and SSE loops for short
//! slices.

pub mod avx2;
pub mod mode;
pub(crate) mod short;
