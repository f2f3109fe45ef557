//! The sixteen-lane token: [`crate::simd::Avx2Fma`]'s counterpart for AVX-512F code.

use core::arch::x86_64::{__m512, _mm512_div_ps, _mm512_set1_ps};

use wide::f32x16;

use crate::arch::x86_64::avx512;
use crate::arch::x86_64::mode::{DOWN, NEAREST, TOWARD_ZERO, UP};
use crate::variant::Variant;

/// Proof that this CPU has AVX-512F (with AVX2 and FMA, and the operating system saving the
/// opmask and ZMM state), for SIMD code that divides one sixteen-lane vector at a time:
/// obtained once ([`Avx512::new`]), copied freely, passed by value. Its methods are
/// `#[inline(always)]` and safe (the token is the proof); inside [`Avx512::vectorize`], or
/// a function of yours with `#[target_feature(enable = "avx512f")]`, they become the
/// instructions of your loop.
///
/// Which instructions: `vdivps zmm` for [`Avx512::div_ps`] and [`Avx512::recip_ps`], unless
/// [`Avx512::with_kernel`] asks for the FMA kernel at sixteen lanes (`vrcp14ps`, Halley,
/// Markstein; proven for every seed the documentation of `vrcp14ps` allows). No CPU has a
/// native measurement of that kernel one vector at a time yet (README, "AVX-512"), so the
/// token does not choose it by itself; the bits are the same either way. Directed
/// division ([`Avx512::div_rounded_ps`], [`Avx512::div_bounds_ps`]) is embedded rounding:
/// one `vdivps` per direction, MXCSR untouched, **no exception flag raised**.
///
/// ```
/// # #[cfg(fmadiv_x86)] {
/// use fmadiv::simd::Avx512;
/// use wide::f32x16;
/// if let Some(simd) = Avx512::new() {
///     let (x, y) = (vec![f32x16::splat(1.0); 16], vec![f32x16::splat(3.0); 16]);
///     let mut q = vec![f32x16::ZERO; 16];
///     simd.vectorize(|simd| {
///         for ((q, &x), &y) in q.iter_mut().zip(&x).zip(&y) {
///             *q = simd.div_f32x16(x, y);
///         }
///     });
///     assert_eq!(q[0].to_array(), [1.0f32 / 3.0; 16]);
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512 {
    proof: avx512::Avx512,
    /// Divide by the sixteen-lane kernel (else `vdivps zmm`).
    kernel: bool,
}

impl Avx512 {
    /// The token, if this CPU has AVX-512F, AVX2 and FMA (and the operating system saves
    /// the AVX-512 state). It divides with `vdivps zmm`.
    #[must_use]
    pub fn new() -> Option<Avx512> {
        Some(Avx512 {
            proof: avx512::Avx512::new()?,
            kernel: false,
        })
    }

    /// The same token, dividing by the FMA kernel at sixteen lanes (`true`) or by `vdivps
    /// zmm` (`false`): the same bits, under round-to-nearest (the kernel's mode; inside
    /// [`Avx512::vectorize`] under another mode the divider runs). Measure both on your CPU.
    #[must_use]
    pub fn with_kernel(self, kernel: bool) -> Avx512 {
        Avx512 { kernel, ..self }
    }

    /// Whether the token divides with the FMA kernel (`false`: with `vdivps zmm`).
    #[must_use]
    pub fn uses_kernel(self) -> bool {
        self.kernel
    }

    /// Runs `f` inside a function compiled for AVX-512F, AVX2 and FMA, hands it the token,
    /// and returns its result (as [`crate::simd::Avx2Fma::vectorize`]: mark a long closure
    /// `#[inline(always)]`, and divide with the token the closure receives). A kernel token
    /// divides with `vdivps zmm` inside when MXCSR does not round to nearest.
    #[inline(always)]
    pub fn vectorize<R>(self, f: impl FnOnce(Avx512) -> R) -> R {
        #[inline]
        #[target_feature(enable = "avx512f,avx2,fma")]
        fn with_avx512<R>(simd: Avx512, f: impl FnOnce(Avx512) -> R) -> R {
            f(simd)
        }
        let simd = if self.kernel && !crate::arch::x86_64::mode::rounds_to_nearest() {
            self.with_kernel(false)
        } else {
            self
        };
        // SAFETY: the token proves that the CPU has AVX-512F, AVX2 and FMA.
        unsafe { with_avx512(simd, f) }
    }

    /// Sixteen quotients `a / b` of `core::arch` vectors, bit-identical to
    /// `_mm512_div_ps(a, b)`.
    #[inline(always)]
    #[must_use]
    pub fn div_ps(self, a: __m512, b: __m512) -> __m512 {
        self.div_ps_by::<{ Variant::SHIPPED }>(a, b)
    }

    /// [`Avx512::div_ps`] with kernel variant `V` where it takes the kernel (weakened ones
    /// for the verification door, whose lanes show which it took).
    #[inline(always)]
    pub(crate) fn div_ps_by<const V: u8>(self, a: __m512, b: __m512) -> __m512 {
        if self.kernel && crate::arch::x86_64::mode::rounds_to_nearest() {
            // SAFETY: the token proves AVX-512F, AVX2 and FMA.
            unsafe { avx512::div16::<V, false>(a, b) }
        } else {
            // SAFETY: the token proves AVX-512F.
            unsafe { _mm512_div_ps(a, b) }
        }
    }

    /// Sixteen reciprocals `1 / b`, bit-identical to `_mm512_div_ps(_mm512_set1_ps(1.0), b)`.
    #[inline(always)]
    #[must_use]
    pub fn recip_ps(self, b: __m512) -> __m512 {
        self.recip_ps_by::<{ Variant::SHIPPED }>(b)
    }

    /// [`Avx512::recip_ps`] with kernel variant `V` where it takes the kernel (see
    /// [`Avx512::div_ps_by`]).
    #[inline(always)]
    pub(crate) fn recip_ps_by<const V: u8>(self, b: __m512) -> __m512 {
        if self.kernel && crate::arch::x86_64::mode::rounds_to_nearest() {
            // SAFETY: the token proves AVX-512F, AVX2 and FMA.
            unsafe { avx512::div16::<V, true>(_mm512_set1_ps(1.0), b) }
        } else {
            // SAFETY: the token proves AVX-512F.
            unsafe { _mm512_div_ps(_mm512_set1_ps(1.0), b) }
        }
    }

    /// Sixteen quotients rounded in direction `mode`, bit-identical to `vdivps` with MXCSR's
    /// rounding field set to `mode` (its flush-to-zero and denormals-are-zero as they are):
    /// one `vdivps` with embedded rounding, no flag raised. With a constant `mode` the match
    /// folds away.
    #[inline(always)]
    #[must_use]
    pub fn div_rounded_ps(self, a: __m512, b: __m512, mode: crate::Rounding) -> __m512 {
        use crate::Rounding;
        use avx512::div_rounded16;
        // SAFETY: the token proves AVX-512F, AVX2 and FMA.
        unsafe {
            match mode {
                Rounding::Nearest => div_rounded16::<NEAREST>(a, b),
                Rounding::Down => div_rounded16::<DOWN>(a, b),
                Rounding::Up => div_rounded16::<UP>(a, b),
                Rounding::TowardZero => div_rounded16::<TOWARD_ZERO>(a, b),
            }
        }
    }

    /// `(RD(a/b), RU(a/b))`: two `vdivps` with embedded rounding, no flag raised.
    #[inline(always)]
    #[must_use]
    pub fn div_bounds_ps(self, a: __m512, b: __m512) -> (__m512, __m512) {
        // SAFETY: the token proves AVX-512F, AVX2 and FMA.
        unsafe {
            (
                avx512::div_rounded16::<DOWN>(a, b),
                avx512::div_rounded16::<UP>(a, b),
            )
        }
    }

    /// [`Avx512::div_ps`] of `wide` vectors.
    #[inline(always)]
    #[must_use]
    pub fn div_f32x16(self, a: f32x16, b: f32x16) -> f32x16 {
        from_m512(self.div_ps(to_m512(a), to_m512(b)))
    }

    /// [`Avx512::recip_ps`] of a `wide` vector.
    #[inline(always)]
    #[must_use]
    pub fn recip_f32x16(self, b: f32x16) -> f32x16 {
        from_m512(self.recip_ps(to_m512(b)))
    }

    /// [`Avx512::div_rounded_ps`] of `wide` vectors.
    #[inline(always)]
    #[must_use]
    pub fn div_rounded_f32x16(self, a: f32x16, b: f32x16, mode: crate::Rounding) -> f32x16 {
        from_m512(self.div_rounded_ps(to_m512(a), to_m512(b), mode))
    }

    /// [`Avx512::div_bounds_ps`] of `wide` vectors.
    #[inline(always)]
    #[must_use]
    pub fn div_bounds_f32x16(self, a: f32x16, b: f32x16) -> (f32x16, f32x16) {
        let (lo, hi) = self.div_bounds_ps(to_m512(a), to_m512(b));
        (from_m512(lo), from_m512(hi))
    }
}

/// `wide`'s vector as `core::arch`'s: both are sixteen `f32` lanes in memory order, 64 bytes
/// (`f32x16` is `repr(C, align(64))`, holding one `m512` with AVX-512F or two `f32x8`
/// without), so the bits move unchanged.
#[inline(always)]
fn to_m512(v: f32x16) -> __m512 {
    const _: () = assert!(size_of::<f32x16>() == size_of::<__m512>());
    // SAFETY: same size, every bit pattern valid in both, lanes in the same order.
    unsafe { core::mem::transmute::<f32x16, __m512>(v) }
}

/// The inverse of [`to_m512`].
#[inline(always)]
fn from_m512(v: __m512) -> f32x16 {
    // SAFETY: as in `to_m512`.
    unsafe { core::mem::transmute::<__m512, f32x16>(v) }
}
