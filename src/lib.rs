//! Exact `f32` division, eight lanes at a time with AVX2+FMA.
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
//! Correctness is shown by exhaustive verification: the fast path depends only on the two
//! mantissas, and `fmadiv verify mantissa` compares all 2^46 mantissa pairs with the
//! hardware; see the README and [`kernel_notes`].

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod arch;
#[cfg(fmadiv_x86)]
mod backoff;
mod bits;
mod cpu;
#[doc(hidden)]
pub mod digest;
mod dispatch;
mod divisor;
#[doc(hidden)]
pub mod fingerprint;
pub mod kernel_notes;
#[cfg(feature = "rayon")]
#[doc(hidden)]
pub mod methods;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod plan;
mod rounding;
#[doc(hidden)]
pub mod samples;
mod schedule;
pub mod seeds;
pub mod simd;
mod slices;
#[doc(hidden)]
pub mod sweep;
mod variant;

pub use cpu::{Cpu, Vendor};
pub use dispatch::{Backend, FORCE_PORTABLE_ENV, backend};
#[doc(hidden)]
pub use divisor::Check as DivisorCheck;
pub use divisor::{Divisor, Strategy, div_scalar, recip};
pub use plan::{Plan, plan};
pub use rounding::{Rounding, div_bounds, div_rounded};
pub use schedule::{Mix, Schedule, UnknownSchedule};
pub use simd::{div_f32x8, recip_f32x8};
#[cfg(feature = "rayon")]
pub use slices::par_div;
pub use slices::{Error, div, div_in_place, try_div};

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

/// Kernel variants and raw entry points for verification, tests and benchmarks.
///
/// Not part of the stable API: the weakened variants here are wrong on purpose.
#[doc(hidden)]
pub mod internal {
    pub use crate::arch::portable;
    #[cfg(fmadiv_x86)]
    pub use crate::arch::x86_64::avx2;

    pub use crate::samples;
    pub use crate::variant::{Kernel, Variant};

    /// Whether the x86 kernels exist in this build and this CPU has AVX2+FMA.
    pub fn has_kernel() -> bool {
        #[cfg(fmadiv_x86)]
        return avx2::Avx2Fma::new().is_some();
        #[cfg(not(fmadiv_x86))]
        false
    }

    /// `out[i] = a[i] / b[i]` by the given kernel variant on every lane (no divider
    /// vectors mixed in, no fallback for whole blocks: every lane the fast path accepts is
    /// the kernel's), or `None` (nothing written) without the AVX2+FMA kernel. Panics if
    /// the lengths differ.
    pub fn div_with(kernel: Kernel, a: &[f32], b: &[f32], out: &mut [f32]) -> Option<()> {
        #[cfg(fmadiv_x86)]
        {
            let k = avx2::Avx2Fma::new()?;
            match kernel {
                Kernel::Shipped => k.kernel_slices::<{ Variant::SHIPPED }>(a, b, out),
                Kernel::Newton => k.kernel_slices::<{ Variant::NEWTON }>(a, b, out),
                Kernel::Published => k.kernel_slices::<{ Variant::PUBLISHED }>(a, b, out),
            }
            Some(())
        }
        #[cfg(not(fmadiv_x86))]
        {
            let _ = (kernel, a, b, out);
            None
        }
    }

    /// `out[i] = 1 / b[i]` by the reciprocal kernel with the given variant's near-all-ones
    /// fix (or without it, for `Published`) on every lane, or `None` (nothing written)
    /// without the AVX2+FMA kernel. Panics if the lengths differ.
    pub fn recip_with(kernel: Kernel, b: &[f32], out: &mut [f32]) -> Option<()> {
        #[cfg(fmadiv_x86)]
        {
            let k = avx2::Avx2Fma::new()?;
            match kernel {
                Kernel::Shipped => k.recip_kernel_slices::<{ Variant::SHIPPED }>(b, out),
                Kernel::Newton => k.recip_kernel_slices::<{ Variant::NEWTON }>(b, out),
                Kernel::Published => k.recip_kernel_slices::<{ Variant::PUBLISHED }>(b, out),
            }
            Some(())
        }
        #[cfg(not(fmadiv_x86))]
        {
            let _ = (kernel, b, out);
            None
        }
    }

    /// `out[i] = a[i] / b[i]` (or `1 / b[i]` when `a` is `None`) by the given schedule,
    /// whatever the plan chose: for tests and benchmarks of every schedule. Returns `None`
    /// if the schedule needs AVX2+FMA and this CPU lacks it. Panics if the lengths differ.
    pub fn run_schedule(
        s: crate::Schedule,
        a: Option<&[f32]>,
        b: &[f32],
        out: &mut [f32],
    ) -> Option<()> {
        crate::schedule::run(s, a, b, out)
    }

    /// `out[i] = a[i] / b[i]` rounded in direction `mode` by the AVX2+FMA directed loop,
    /// with the shipped step or (`weakened`) one that ignores the divisor's sign: wrong on
    /// purpose, for the tests. `None` (nothing written) without AVX2+FMA or for
    /// `Nearest`. Panics if the lengths differ.
    pub fn div_rounded_with(
        weakened: bool,
        a: &[f32],
        b: &[f32],
        out: &mut [f32],
        mode: crate::Rounding,
    ) -> Option<()> {
        assert!(a.len() == b.len() && b.len() == out.len());
        #[cfg(fmadiv_x86)]
        {
            use crate::Rounding;
            use crate::arch::x86_64::directed::{
                DIVISOR_SIGN_IGNORED, DOWN, SHIPPED, TOWARD_ZERO, UP, div_rounded_raw,
            };
            avx2::Avx2Fma::new()?;
            let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
            macro_rules! run {
                ($mode:expr) => {
                    // SAFETY: AVX2+FMA checked; a and b readable and out writable for n
                    // floats, out a unique borrow.
                    unsafe {
                        if weakened {
                            div_rounded_raw::<{ $mode }, DIVISOR_SIGN_IGNORED>(x, y, o, n)
                        } else {
                            div_rounded_raw::<{ $mode }, SHIPPED>(x, y, o, n)
                        }
                    }
                };
            }
            match mode {
                Rounding::Nearest => return None,
                Rounding::Down => run!(DOWN),
                Rounding::Up => run!(UP),
                Rounding::TowardZero => run!(TOWARD_ZERO),
            }
            Some(())
        }
        #[cfg(not(fmadiv_x86))]
        {
            let _ = (weakened, a, b, out, mode);
            None
        }
    }

    /// [`run_schedule`] without the rounding-mode guard of the kernel's schedules: for
    /// measuring what the guard costs (wrong under a rounding mode other than to nearest).
    pub fn run_schedule_unguarded(
        s: crate::Schedule,
        a: &[f32],
        b: &[f32],
        out: &mut [f32],
    ) -> Option<()> {
        assert!(a.len() == b.len() && b.len() == out.len());
        if !crate::schedule::runs_here(s) {
            return None;
        }
        let f = crate::schedule::kernel_fn::<false, false>(s);
        // SAFETY: the lengths are checked, out is a unique borrow, the schedule runs here.
        unsafe { f(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
        Some(())
    }

    /// `a[i] = a[i] / b[i]` by the given schedule (see [`run_schedule`]).
    pub fn run_schedule_in_place(s: crate::Schedule, a: &mut [f32], b: &[f32]) -> Option<()> {
        crate::schedule::run_in_place(s, a, b)
    }
}
