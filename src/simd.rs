//! Division for code that is already SIMD: one vector at a time, inside the caller's loop.
//!
//! Two ways in:
//!
//! - [`div_f32x8`] and [`recip_f32x8`]: drop-in functions for `wide::f32x8` code. They
//!   are `wide`'s own `/` — `divps`/`vdivps` on x86, whose bits are the hardware
//!   divider's — in every build: a function called once per vector inside someone else's
//!   loop cannot consult the plan without a load and a branch per vector that the
//!   compiler cannot hoist, and that cost more than the kernel could gain (measured
//!   slower than `/` in a `-C target-cpu=native` build). Where the plan measured the
//!   kernel faster for one vector at a time, the token below runs it.
//! - [`Avx2Fma`] (x86-64): a token obtained once that proves AVX2 and FMA, with methods
//!   for `core::arch`'s `__m256`, `safe_arch::m256` and `wide::f32x8`, and
//!   [`Avx2Fma::vectorize`], which runs the caller's closure inside a function compiled
//!   for AVX2+FMA, so that the whole loop — its loads, its own arithmetic, and the
//!   division — is AVX2 code with nothing called out of line (the model is `pulp`'s
//!   `Arch::dispatch`).
//!
//! ```
//! use wide::f32x8;
//! let q = fmadiv::div_f32x8(f32x8::splat(1.0), f32x8::splat(3.0));
//! assert_eq!(q.to_array(), [1.0f32 / 3.0; 8]);
//! ```
//!
//! Every path gives the same bits as `/` (x86's NaN rules included).

// The x86 tokens these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

use wide::{f32x8, f32x16};

/// Eight quotients `a / b`, bit-identical to `/` lane by lane (x86's NaN bits everywhere).
///
/// This is `wide`'s `/` in every build (two `divps` on x86-64, or one `vdivps` where AVX is
/// enabled at compile time), with x86's NaN bits on every architecture. For the plan's
/// in-register choice (the FMA kernel where it measured faster than the divider on this
/// CPU), divide inside [`Avx2Fma::vectorize`] with an [`Avx2Fma`] token: the choice is
/// then made once per loop, not once per vector.
///
/// ```
/// use wide::f32x8;
/// let a = f32x8::from([1.0, 2.0, -0.0, f32::INFINITY, 1.0, 0.0, 3.0, f32::NAN]);
/// let b = f32x8::from([0.99999994, 3.0, 5.0, 2.0, 0.0, 0.0, 7.0, 1.0]);
/// let q = fmadiv::div_f32x8(a, b).to_array();
/// for i in 0..8 {
///     assert_eq!(q[i].to_bits(), (a.to_array()[i] / b.to_array()[i]).to_bits());
/// }
/// ```
#[inline]
#[must_use]
pub fn div_f32x8(a: f32x8, b: f32x8) -> f32x8 {
    with_x86_nan_bits(a / b, a, b)
}

/// Eight reciprocals `1 / b`, bit-identical to `1.0 / b` lane by lane (see [`div_f32x8`]).
///
/// ```
/// use wide::f32x8;
/// let r = fmadiv::recip_f32x8(f32x8::splat(3.0));
/// assert_eq!(r.to_array(), [1.0f32 / 3.0; 8]);
/// ```
#[inline]
#[must_use]
pub fn recip_f32x8(b: f32x8) -> f32x8 {
    let one = f32x8::splat(1.0);
    with_x86_nan_bits(one / b, one, b)
}

/// Eight quotients `a / b` rounded in direction `mode`, bit-identical to `vdivps` with
/// MXCSR's rounding field set to `mode` (see [`crate::div_rounded`]). One call through the
/// slice function; inside a loop of SIMD code, the token's
/// [`Avx2Fma::div_rounded_f32x8`] inlines instead.
///
/// ```
/// use fmadiv::Rounding;
/// use wide::f32x8;
/// let down = fmadiv::simd::div_rounded_f32x8(f32x8::splat(1.0), f32x8::splat(3.0), Rounding::Down);
/// let up = fmadiv::simd::div_rounded_f32x8(f32x8::splat(1.0), f32x8::splat(3.0), Rounding::Up);
/// assert_eq!(up.to_array()[0].to_bits(), down.to_array()[0].to_bits() + 1);
/// ```
#[must_use]
pub fn div_rounded_f32x8(a: f32x8, b: f32x8, mode: crate::Rounding) -> f32x8 {
    let mut q = [0.0f32; 8];
    crate::div_rounded(&a.to_array(), &b.to_array(), &mut q, mode);
    f32x8::from(q)
}

/// Eight pairs of bounds `(RD(a/b), RU(a/b))` from one division (see [`crate::div_bounds`]).
///
/// ```
/// use wide::f32x8;
/// let (lo, hi) = fmadiv::simd::div_bounds_f32x8(f32x8::splat(2.0), f32x8::splat(3.0));
/// assert!(f64::from(lo.to_array()[0]) < 2.0 / 3.0 && 2.0 / 3.0 < f64::from(hi.to_array()[0]));
/// ```
#[must_use]
pub fn div_bounds_f32x8(a: f32x8, b: f32x8) -> (f32x8, f32x8) {
    let (mut lo, mut hi) = ([0.0f32; 8], [0.0f32; 8]);
    crate::div_bounds(&a.to_array(), &b.to_array(), &mut lo, &mut hi);
    (f32x8::from(lo), f32x8::from(hi))
}

/// Sixteen quotients `a / b`, bit-identical to `/` lane by lane: `wide`'s `/` in every build
/// (one `vdivps zmm` where AVX-512F is enabled at compile time, two `ymm` divisions where
/// AVX is, four `divps` otherwise), with x86's NaN bits on every architecture (see
/// [`div_f32x8`]).
///
/// ```
/// use wide::f32x16;
/// let q = fmadiv::simd::div_f32x16(f32x16::splat(1.0), f32x16::splat(3.0));
/// assert_eq!(q.to_array(), [1.0f32 / 3.0; 16]);
/// ```
#[inline]
#[must_use]
pub fn div_f32x16(a: f32x16, b: f32x16) -> f32x16 {
    let q = a / b;
    if cfg!(fmadiv_x86) || !q.is_nan().any() {
        return q;
    }
    let (a, b) = (a.to_array(), b.to_array());
    f32x16::from(core::array::from_fn::<f32, 16, _>(|i| {
        crate::arch::portable::div_one(a[i], b[i])
    }))
}

/// Sixteen reciprocals `1 / b`, bit-identical to `1.0 / b` lane by lane (see
/// [`div_f32x16`]).
///
/// ```
/// use wide::f32x16;
/// let r = fmadiv::simd::recip_f32x16(f32x16::splat(3.0));
/// assert_eq!(r.to_array(), [1.0f32 / 3.0; 16]);
/// ```
#[inline]
#[must_use]
pub fn recip_f32x16(b: f32x16) -> f32x16 {
    div_f32x16(f32x16::splat(1.0), b)
}

/// Sixteen quotients `a / b` rounded in direction `mode`, bit-identical to `vdivps` with
/// MXCSR's rounding field set to `mode` (see [`crate::div_rounded`], whose flags it raises:
/// none where the 16-lane backend divides by embedded rounding). One call through the slice
/// function, as [`div_rounded_f32x8`]; inside a loop of SIMD code on AVX-512F, the
/// [`Avx512`] token's `div_rounded_f32x16` inlines instead.
///
/// ```
/// use fmadiv::Rounding;
/// use wide::f32x16;
/// let (a, b) = (f32x16::splat(1.0), f32x16::splat(3.0));
/// let down = fmadiv::simd::div_rounded_f32x16(a, b, Rounding::Down).to_array();
/// let up = fmadiv::simd::div_rounded_f32x16(a, b, Rounding::Up).to_array();
/// assert!((0..16).all(|i| up[i].to_bits() == down[i].to_bits() + 1));
/// ```
#[must_use]
pub fn div_rounded_f32x16(a: f32x16, b: f32x16, mode: crate::Rounding) -> f32x16 {
    let mut q = [0.0f32; 16];
    crate::div_rounded(&a.to_array(), &b.to_array(), &mut q, mode);
    f32x16::from(q)
}

/// Sixteen pairs of bounds `(RD(a/b), RU(a/b))` (see [`crate::div_bounds`] and
/// [`div_bounds_f32x8`]).
///
/// ```
/// use wide::f32x16;
/// let (lo, hi) = fmadiv::simd::div_bounds_f32x16(f32x16::splat(2.0), f32x16::splat(3.0));
/// assert!(f64::from(lo.to_array()[15]) < 2.0 / 3.0 && 2.0 / 3.0 < f64::from(hi.to_array()[15]));
/// ```
#[must_use]
pub fn div_bounds_f32x16(a: f32x16, b: f32x16) -> (f32x16, f32x16) {
    let (mut lo, mut hi) = ([0.0f32; 16], [0.0f32; 16]);
    crate::div_bounds(&a.to_array(), &b.to_array(), &mut lo, &mut hi);
    (f32x16::from(lo), f32x16::from(hi))
}

/// `q = a / b` from `wide`, with x86's NaN bits: on x86 `divps` gives them already; elsewhere
/// the NaN lanes (rare) are redone by the portable path.
#[inline]
fn with_x86_nan_bits(q: f32x8, a: f32x8, b: f32x8) -> f32x8 {
    if cfg!(fmadiv_x86) {
        return q;
    }
    if q.is_nan().any() {
        let (a, b) = (a.to_array(), b.to_array());
        return f32x8::from(core::array::from_fn::<f32, 8, _>(|i| {
            crate::arch::portable::div_one(a[i], b[i])
        }));
    }
    q
}

#[cfg(fmadiv_x86)]
#[cfg_attr(docsrs, doc(cfg(target_arch = "x86_64")))]
pub use x86::Avx2Fma;
#[cfg(fmadiv_x86)]
#[cfg_attr(docsrs, doc(cfg(target_arch = "x86_64")))]
pub use x86_512::Avx512;

#[cfg(fmadiv_x86)]
mod x86_512;

#[cfg(fmadiv_x86)]
mod x86 {
    use core::arch::x86_64::{__m256, _mm256_div_ps, _mm256_set1_ps};

    use wide::f32x8;

    use crate::arch::x86_64::avx2;
    use crate::variant::Variant;

    /// Proof that this CPU has AVX2 and FMA, for SIMD code that divides one vector at a
    /// time: obtained once ([`Avx2Fma::new`]), copied freely, passed by value.
    ///
    /// Its methods are safe to call anywhere (the token is the proof) and are
    /// `#[inline(always)]`: in code compiled for AVX2+FMA — a closure run by
    /// [`Avx2Fma::vectorize`], or a function of yours with
    /// `#[target_feature(enable = "avx2,fma")]` — they become the kernel's or the divider's
    /// instructions in your loop, with no call and no dispatch. (They are deliberately not
    /// `#[target_feature]` functions themselves: those would need `unsafe` at every call
    /// outside an annotated function, closures included, although the token already
    /// proves the features.) Outside such code they still give the right bits, only
    /// slower.
    ///
    /// Which instructions: the token records the plan's in-register choice when it is made
    /// — the FMA kernel where it measured faster than the divider on this CPU (and `rcpps`
    /// is within its documented bound), `vdivps` otherwise (as on AMD Zen 3). The bits are
    /// the same either way.
    ///
    /// ```
    /// # #[cfg(fmadiv_x86)] {
    /// use fmadiv::simd::Avx2Fma;
    /// use wide::f32x8;
    /// if let Some(simd) = Avx2Fma::new() {
    ///     let (x, y) = (vec![f32x8::splat(1.0); 64], vec![f32x8::splat(3.0); 64]);
    ///     let mut q = vec![f32x8::ZERO; 64];
    ///     // The whole loop is compiled for AVX2+FMA; the division inlines into it.
    ///     simd.vectorize(|simd| {
    ///         for ((q, &x), &y) in q.iter_mut().zip(&x).zip(&y) {
    ///             *q = simd.div_f32x8(x, y);
    ///         }
    ///     });
    ///     assert_eq!(q[0].to_array(), [1.0f32 / 3.0; 8]);
    /// }
    /// # }
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Avx2Fma {
        proof: avx2::Avx2Fma,
        /// Divide by the kernel (else `vdivps`).
        div_kernel: bool,
        /// Take reciprocals by the reciprocal kernel (else `vdivps`).
        recip_kernel: bool,
    }

    impl Avx2Fma {
        /// The token, if this CPU has AVX2 and FMA. Reads the plan (made at the first call
        /// of the process, in microseconds): make it once, outside loops.
        #[must_use]
        pub fn new() -> Option<Avx2Fma> {
            Some(Avx2Fma::following_plan(avx2::Avx2Fma::new()?))
        }

        /// The token with the plan's in-register choices.
        #[inline]
        pub(crate) fn following_plan(proof: avx2::Avx2Fma) -> Avx2Fma {
            Avx2Fma::following(proof, crate::plan())
        }

        /// The token with `plan`'s in-register choices.
        #[inline]
        fn following(proof: avx2::Avx2Fma, plan: &crate::plan::Plan) -> Avx2Fma {
            Avx2Fma {
                proof,
                div_kernel: plan.in_register_kernel(),
                recip_kernel: plan.in_register_recip_kernel(),
            }
        }

        /// The same token, dividing by the kernel (`true`) or `vdivps` (`false`) whatever
        /// the plan says (the bits are the same; the verification door exposes it for
        /// tests of both).
        pub(crate) fn with_kernel(self, kernel: bool) -> Avx2Fma {
            Avx2Fma {
                div_kernel: kernel,
                recip_kernel: kernel,
                ..self
            }
        }

        /// The token without checking the CPU; it divides with `vdivps` (the plan is not
        /// read).
        ///
        /// # Safety
        /// The CPU running the program must support AVX2 and FMA.
        #[inline]
        #[must_use]
        pub const unsafe fn new_unchecked() -> Avx2Fma {
            Avx2Fma {
                // SAFETY: the caller's guarantee.
                proof: unsafe { avx2::Avx2Fma::new_unchecked() },
                div_kernel: false,
                recip_kernel: false,
            }
        }

        /// Whether the token divides with the FMA kernel (`false`: with `vdivps`).
        #[must_use]
        pub fn uses_kernel(self) -> bool {
            self.div_kernel
        }

        /// Runs `f` inside a function compiled for AVX2 and FMA, hands it the token, and
        /// returns its result: the closure is inlined there, so everything it does (and
        /// every `#[inline]` function it calls, this token's methods and `wide`'s operators
        /// included) is compiled for AVX2+FMA.
        ///
        /// Mark a closure with more than a few lines `#[inline(always)]`: a closure is
        /// compiled without the target features of the function that runs it, and one the
        /// inliner leaves out of line calls every intrinsic in it as a function.
        ///
        /// Divide with the token the closure receives (`|simd| … simd.div_f32x8(x, y)`),
        /// not with one captured from outside: a captured token is read through a
        /// reference, and the compiler may then test its in-register choice at every
        /// division instead of once per loop, and the loop runs slower than one written
        /// with `_mm256_div_ps`.
        ///
        /// The closure's token divides by the kernel only where MXCSR rounds to nearest
        /// when `vectorize` is called (the kernel gives `vdivps`'s bits under that mode
        /// alone); under another mode it divides with `vdivps`, which obeys it.
        #[inline(always)]
        pub fn vectorize<R>(self, f: impl FnOnce(Avx2Fma) -> R) -> R {
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            fn with_avx2_fma<R>(simd: Avx2Fma, f: impl FnOnce(Avx2Fma) -> R) -> R {
                f(simd)
            }
            let simd = if (self.div_kernel || self.recip_kernel)
                && !crate::arch::x86_64::mode::rounds_to_nearest()
            {
                self.with_kernel(false)
            } else {
                self
            };
            // SAFETY: the token proves that the CPU has AVX2 and FMA.
            unsafe { with_avx2_fma(simd, f) }
        }

        /// Eight quotients `a / b` of `core::arch` vectors, bit-identical to
        /// `_mm256_div_ps(a, b)`.
        #[inline(always)]
        #[must_use]
        pub fn div_ps(self, a: __m256, b: __m256) -> __m256 {
            self.div_ps_by::<{ Variant::SHIPPED }>(a, b)
        }

        /// [`Avx2Fma::div_ps`] with kernel variant `V` where it takes the kernel (weakened
        /// ones for the verification door, whose lanes show which it took).
        #[inline(always)]
        pub(crate) fn div_ps_by<const V: u8>(self, a: __m256, b: __m256) -> __m256 {
            // The mode check is free for a divider token; for a kernel token it is one
            // addition the compiler hoists out of the caller's loop.
            if self.div_kernel && crate::arch::x86_64::mode::rounds_to_nearest() {
                // SAFETY: the token proves AVX2 and FMA.
                unsafe { avx2::div8::<V, false>(a, b) }
            } else {
                // SAFETY: the token proves AVX2 (hence AVX).
                unsafe { _mm256_div_ps(a, b) }
            }
        }

        /// Eight reciprocals `1 / b` of a `core::arch` vector, bit-identical to
        /// `_mm256_div_ps(_mm256_set1_ps(1.0), b)`.
        #[inline(always)]
        #[must_use]
        pub fn recip_ps(self, b: __m256) -> __m256 {
            self.recip_ps_by::<{ Variant::SHIPPED }>(b)
        }

        /// [`Avx2Fma::recip_ps`] with kernel variant `V` where it takes the kernel (see
        /// [`Avx2Fma::div_ps_by`]).
        #[inline(always)]
        pub(crate) fn recip_ps_by<const V: u8>(self, b: __m256) -> __m256 {
            if self.recip_kernel && crate::arch::x86_64::mode::rounds_to_nearest() {
                // SAFETY: the token proves AVX2 and FMA.
                unsafe { avx2::div8::<V, true>(_mm256_set1_ps(1.0), b) }
            } else {
                // SAFETY: the token proves AVX2 (hence AVX).
                unsafe { _mm256_div_ps(_mm256_set1_ps(1.0), b) }
            }
        }

        /// Eight quotients `a / b` of `core::arch` vectors rounded in direction `mode`,
        /// bit-identical to `vdivps` with MXCSR's rounding field set to `mode` (see
        /// [`crate::div_rounded`]): the divider's quotient, its exact residual and a step of
        /// one ulp, with no write to MXCSR unless a lane lies outside the kernel's input
        /// window. With a constant `mode` the match folds away.
        #[inline(always)]
        #[must_use]
        pub fn div_rounded_ps(self, a: __m256, b: __m256, mode: crate::Rounding) -> __m256 {
            use crate::Rounding;
            use crate::arch::x86_64::avx2::div_rounded8;
            use crate::arch::x86_64::mode::{DOWN, NEAREST, TOWARD_ZERO, UP};
            // SAFETY: the token proves AVX2 and FMA.
            unsafe {
                match mode {
                    Rounding::Nearest => div_rounded8::<NEAREST>(a, b),
                    Rounding::Down => div_rounded8::<DOWN>(a, b),
                    Rounding::Up => div_rounded8::<UP>(a, b),
                    Rounding::TowardZero => div_rounded8::<TOWARD_ZERO>(a, b),
                }
            }
        }

        /// `(RD(a/b), RU(a/b))` of `core::arch` vectors from one division (see
        /// [`crate::div_bounds`]).
        #[inline(always)]
        #[must_use]
        pub fn div_bounds_ps(self, a: __m256, b: __m256) -> (__m256, __m256) {
            // SAFETY: the token proves AVX2 and FMA.
            unsafe { avx2::div_bounds8(a, b) }
        }

        /// [`Avx2Fma::div_rounded_ps`] of `wide` vectors.
        #[inline(always)]
        #[must_use]
        pub fn div_rounded_f32x8(self, a: f32x8, b: f32x8, mode: crate::Rounding) -> f32x8 {
            from_m256(self.div_rounded_ps(to_m256(a), to_m256(b), mode))
        }

        /// [`Avx2Fma::div_bounds_ps`] of `wide` vectors.
        #[inline(always)]
        #[must_use]
        pub fn div_bounds_f32x8(self, a: f32x8, b: f32x8) -> (f32x8, f32x8) {
            let (lo, hi) = self.div_bounds_ps(to_m256(a), to_m256(b));
            (from_m256(lo), from_m256(hi))
        }

        /// [`Avx2Fma::div_ps`] of `safe_arch` vectors.
        #[inline(always)]
        #[must_use]
        pub fn div_m256(self, a: safe_arch::m256, b: safe_arch::m256) -> safe_arch::m256 {
            safe_arch::m256(self.div_ps(a.0, b.0))
        }

        /// [`Avx2Fma::recip_ps`] of a `safe_arch` vector.
        #[inline(always)]
        #[must_use]
        pub fn recip_m256(self, b: safe_arch::m256) -> safe_arch::m256 {
            safe_arch::m256(self.recip_ps(b.0))
        }

        /// [`Avx2Fma::div_ps`] of `wide` vectors.
        #[inline(always)]
        #[must_use]
        pub fn div_f32x8(self, a: f32x8, b: f32x8) -> f32x8 {
            from_m256(self.div_ps(to_m256(a), to_m256(b)))
        }

        /// [`Avx2Fma::recip_ps`] of a `wide` vector.
        #[inline(always)]
        #[must_use]
        pub fn recip_f32x8(self, b: f32x8) -> f32x8 {
            from_m256(self.recip_ps(to_m256(b)))
        }
    }

    /// `wide`'s vector as `core::arch`'s: both are eight `f32` lanes in memory order, 32
    /// bytes (`f32x8` is `repr(C, align(32))`, holding one `m256` with AVX or two `f32x4`
    /// without), so the bits move unchanged.
    #[inline(always)]
    fn to_m256(v: f32x8) -> __m256 {
        const _: () = assert!(size_of::<f32x8>() == size_of::<__m256>());
        // SAFETY: same size, every bit pattern valid in both, lanes in the same order.
        unsafe { core::mem::transmute::<f32x8, __m256>(v) }
    }

    /// The inverse of [`to_m256`].
    #[inline(always)]
    fn from_m256(v: __m256) -> f32x8 {
        // SAFETY: as in `to_m256`.
        unsafe { core::mem::transmute::<__m256, f32x8>(v) }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::Schedule::{Divider, Kernel};
        use crate::plan::Plan;

        #[test]
        fn the_token_takes_the_plans_two_choices() {
            let Some(proof) = avx2::Avx2Fma::new() else {
                eprintln!("note: no AVX2+FMA here: no token to make");
                return;
            };
            for (div, recip) in [
                ([Kernel, Divider], [Divider; 2]),
                ([Divider; 2], [Kernel; 2]),
            ] {
                let mut choices = *crate::plan().choices();
                (choices.div, choices.recip) = (div, recip);
                let token = Avx2Fma::following(proof, &Plan::of_choices(choices));
                assert_eq!(
                    (token.div_kernel, token.recip_kernel),
                    (div[0] == Kernel, recip[0] == Kernel),
                    "div {div:?}, recip {recip:?}"
                );
            }
        }
    }
}
