//! Exact `f32` division, eight lanes at a time with AVX2+FMA (sixteen with AVX-512F where a
//! CPU family's record says so, opt-in elsewhere).
//!
//! Every function returns exactly the IEEE-754 round-to-nearest-even quotient: the same
//! bits as `a / b` on x86, for every input, NaN bits and signed zeros included. On a CPU
//! with AVX2 and FMA an exact FMA kernel can do the work: an `rcpps` seed, one Halley step,
//! a quotient with one exact FMA residual correction (Markstein), and a check on the
//! inputs that sends the few lanes the fast path cannot guarantee to the hardware divider.
//! Whether that kernel, the divider, or a mix of both is fastest depends on the CPU, so
//! each process follows a [`plan()`] looked up from the CPU's identity in a committed table
//! of measured and predicted choices (the bits are the same either way; `fmadiv plan
//! --measure` measures on request). Elsewhere a portable path gives the same bits.
//! [`backend`] and [`plan()`] say what runs.
//!
//! Under another MXCSR rounding mode every function gives the bits of `/` under that mode
//! (the FMA sequences run only where MXCSR rounds to nearest); [`div_rounded`] and
//! [`div_bounds`] round down, up or toward zero whatever mode MXCSR holds, without writing
//! it on the fast path ([`kernel_notes`] has the proof).
//!
//! ```
//! let a = [1.0f32, 2.0, -0.0, f32::INFINITY];
//! let b = [3.0f32, 0.99999994, 5.0, 2.0];
//! let mut q = [0.0f32; 4];
//! fmadiv::div(&a, &b, &mut q);
//! for i in 0..4 {
//!     assert_eq!(q[i].to_bits(), (a[i] / b[i]).to_bits());
//! }
//! ```
//!
//! # Which function
//!
//! | to divide | call | or, returning an [`Error`] and writing nothing on bad lengths |
//! |---|---|---|
//! | two slices into a third | [`div`] | [`try_div`] |
//! | the dividends in place | [`div_in_place`] | [`try_div_in_place`] |
//! | long slices, across rayon's threads (feature `rayon`) | `par_div`, `par_div_in_place`, `par_recip` | `try_par_div`, `try_par_div_in_place`, `try_par_recip` |
//! | `1 / b` | [`recip`] | [`try_recip`] |
//! | by one divisor | [`div_scalar`], or [`Divisor::new`] once and [`Divisor::divide_slice`] for many slices | [`try_div_scalar`], [`Divisor::try_divide_slice`] |
//! | rounded down, up or toward zero | [`div_rounded`] | [`try_div_rounded`] |
//! | both bounds at once (interval arithmetic) | [`div_bounds`] | [`try_div_bounds`] |
//! | one vector inside a SIMD loop (`wide`, `core::arch`) | the functions and tokens of [`simd`] | |
//! | ndarray arrays, with broadcasting (feature `ndarray`) | `ndarray::div`, `ndarray::div_to`, `ndarray::div_assign` | `ndarray::try_div` |
//! | `1 / b` of an ndarray array (feature `ndarray`) | `ndarray::recip`, `ndarray::recip_to` | |
//! | large ndarray arrays, across rayon's threads (features `ndarray` and `rayon`) | `ndarray::par_div`, `ndarray::par_div_to`, `ndarray::par_div_assign`, `ndarray::par_recip`, `ndarray::par_recip_to` | `ndarray::try_par_div` |
//!
//! A length mismatch makes the first column panic with the message of the second's error.
//! [`backend`] and [`plan()`] say which code runs on this CPU; `FMADIV_BACKEND`
//! ([`BACKEND_ENV`]) forces a backend.
//!
//! **Debug builds**: a dependency of a crate built with plain `cargo build` is compiled
//! without optimisation; there the slice functions run a plain `divps` loop (exact, about
//! as fast as the optimised divider), the other functions run unoptimised. Add
//! `[profile.dev.package.fmadiv] opt-level = 3` to your `Cargo.toml` for the crate's own
//! speed in debug builds (README, "Debug builds", has the measurements).
//!
//! Correctness is shown by exhaustive verification: the fast path depends only on the two
//! mantissas, and `fmadiv verify mantissa` compares all 2^46 mantissa pairs with the
//! hardware; see the README and [`kernel_notes`].
//!
//! # Layers
//!
//! Each module imports only from layers below its own (`scripts/layers.py` checks it in CI,
//! with the crate's other two, `fmadiv-verify` and `fmadiv-cli`). From the bottom: plain bit
//! and number facts; the arithmetic of one lane or one vector (the portable path, the
//! width-generic kernel, MXCSR's rounding field); the slice loops written once over a vector
//! width; the backends that compile them (AVX2+FMA, AVX-512F, the 16-lane model); what runs
//! where (detection, then the schedules); the plan; the slice functions; directed rounding
//! and the rayon forms; the types and forms built on them; and the verification door on top.
//!
//! ```text
//! layers (top first):
//! 14 door       verify
//! 13 arrays     ndarray
//! 12 types      divisor simd
//! 11 forms      rounding parallel
//! 10 slices     slices
//! 9  plan       plan
//! 8  schedules  schedule
//! 7  detection  dispatch
//! 6  backends   arch::x86_64::avx2 arch::x86_64::avx512 arch::x86_64::avx512_model
//! 5  loops      arch::simd arch::simd::loops arch::simd::directed
//! 4  chunks     arch::simd::divider arch::simd::flagged
//! 3  arithmetic arch::portable arch::simd::kernel arch::x86_64::mode arch::x86_64::short seeds
//! 2  ground     bits variant backoff cpu kernel_notes direction error
//! ```

#![deny(missing_docs)]
// On docs.rs: each item that needs a crate feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
// `fmadiv_x86` is the build script's name for "x86-64, not built portable-only": the items it
// gates say `target_arch = "x86_64"` instead (crate::simd).
#![cfg_attr(docsrs, doc(auto_cfg(hide(fmadiv_x86))))]
// The public API: a value-returning function without effects is `#[must_use]` (a discarded
// quotient is a bug), and every `Result` says when it errs. The internals and the
// verification door are exempt (below).
#![warn(clippy::must_use_candidate, clippy::missing_errors_doc)]

#[allow(clippy::must_use_candidate)]
mod arch;
#[cfg(fmadiv_x86)]
mod backoff;
mod bits;
mod cpu;
mod direction;
mod dispatch;
mod divisor;
mod error;
pub mod kernel_notes;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "rayon")]
mod parallel;
pub mod plan;
mod rounding;
mod schedule;
mod seeds;
pub mod simd;
mod slices;
#[allow(clippy::must_use_candidate)]
mod variant;
#[cfg(feature = "verify")]
#[allow(clippy::must_use_candidate, clippy::missing_errors_doc)]
pub mod verify;

// The README's examples, compiled and run as doctests (on x86-64: one takes the AVX token).
#[cfg(all(doctest, fmadiv_x86))]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

pub use cpu::{Cpu, Vendor};
pub use direction::Rounding;
pub use dispatch::{
    AVX512_FAMILIES, Avx512Family, BACKEND_ENV, Backend, EntryPoint, FORCE_PORTABLE_ENV,
    avx512_family, backend, backend_of, backend_override, default_backend_of,
};
pub use divisor::{Divisor, Strategy, div_scalar, try_div_scalar};
pub use error::Error;
#[cfg(feature = "rayon")]
pub use parallel::{
    par_div, par_div_in_place, par_recip, par_recip_in_place, try_par_div, try_par_div_in_place,
    try_par_recip,
};
pub use plan::{Plan, plan};
pub use rounding::{div_bounds, div_rounded, try_div_bounds, try_div_rounded};
pub use schedule::{Mix, Schedule, UnknownSchedule};
pub use simd::{div_f32x8, recip_f32x8};
pub use slices::{div, div_in_place, recip, recip_in_place, try_div, try_div_in_place, try_recip};

/// Build information recorded by `build.rs` (for reports).
pub mod build_info {
    /// The target triple.
    pub const TARGET: &str = env!("FMADIV_BUILD_TARGET");
    /// The SIMD features enabled at compile time that matter to the kernel.
    pub const FEATURES: &str = env!("FMADIV_BUILD_FEATURES");
    /// Cargo profile and optimisation level.
    pub const PROFILE: &str = env!("FMADIV_BUILD_PROFILE");
    /// `rustc --version` of the compiler.
    pub const RUSTC: &str = env!("FMADIV_BUILD_RUSTC");
    /// How the kernel is chosen: at compile time or by runtime detection.
    pub const DISPATCH: &str = env!("FMADIV_BUILD_DISPATCH");
    /// The crate version.
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}
