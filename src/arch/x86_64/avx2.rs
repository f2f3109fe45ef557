//! The AVX2+FMA kernel: eight exact quotients per call.
//!
//! Steps (see the crate docs and `DESIGN.md` for the proofs):
//! 1. `r = rcp(b)`, about 12 bits;
//! 2. one Halley step, all FMA: `e = 1 - b·r`, `e2 = e + e·e`, `y = r + r·e2`;
//! 3. the dividend's mantissa `m` in [1,2), its sign and exponent kept as a scale `±2^ea`;
//! 4. `q = y·m`, the exact residual `res = m - q·b`, `q' = q + y·res` (Markstein);
//! 5. `q'·scale`;
//! 6. lanes whose result is outside the range the fast path guarantees, or whose divisor
//!    is near all-ones, are recomputed by the hardware divider.
//!
//! Everything is computed for all lanes first; the range check runs beside the arithmetic
//! and the slow path is a rarely taken branch.

use core::arch::x86_64::*;

use crate::bits::{
    ABS_MASK, MANTISSA_MASK, NEAR_ALL_ONES_MANTISSA_MIN, ONE_BITS, QUOTIENT_MAX_BITS,
    QUOTIENT_MIN_BITS, SIGN_EXPONENT_MASK,
};
use crate::variant::Variant;

/// Lanes per vector.
pub const LANES: usize = 8;

/// Proof that the CPU has AVX2 and FMA: the only way to reach the kernel.
#[derive(Clone, Copy, Debug)]
pub struct Avx2Fma(());

impl Avx2Fma {
    /// Returns the proof if this CPU supports AVX2 and FMA.
    #[inline]
    pub fn new() -> Option<Self> {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            Some(Avx2Fma(()))
        } else {
            None
        }
    }

    /// Returns the proof without checking.
    ///
    /// # Safety
    /// The CPU running the program must support AVX2 and FMA.
    #[inline]
    pub const unsafe fn new_unchecked() -> Self {
        Avx2Fma(())
    }

    /// Eight quotients `a / b`, bit-identical to `_mm256_div_ps`.
    #[inline]
    pub fn div8(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves that the CPU has AVX2 and FMA.
        unsafe { div8::<{ Variant::SHIPPED }>(a, b) }
    }

    /// `out[i] = a[i] / b[i]` with the chosen kernel variant, `H` hardware vectors per
    /// kernel vector (see [`div_raw`]).
    ///
    /// # Panics
    /// If the three lengths differ.
    #[inline]
    pub fn div_slices<const V: u8, const H: usize>(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(a.len() == b.len() && b.len() == out.len());
        // SAFETY: the CPU has AVX2+FMA (`self`); a and b are readable and out writable for
        // `out.len()` elements, and `out` (a unique borrow) cannot overlap a or b.
        unsafe { div_raw::<V, H, false>(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) }
    }

    /// `a[i] = a[i] / b[i]`.
    ///
    /// # Panics
    /// If the lengths differ.
    #[inline]
    pub fn div_in_place<const V: u8, const H: usize>(self, a: &mut [f32], b: &[f32]) {
        assert_eq!(a.len(), b.len());
        let ptr = a.as_mut_ptr();
        // SAFETY: the CPU has AVX2+FMA (`self`); `out` is exactly `a`, which `div_raw`
        // allows: each chunk is loaded before it is stored.
        unsafe { div_raw::<V, H, false>(ptr, b.as_ptr(), ptr, a.len()) }
    }
}

/// Broadcasts a bit pattern as a float vector.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn splat_bits(bits: u32) -> __m256 {
    _mm256_castsi256_ps(_mm256_set1_epi32(bits as i32))
}

/// The refined reciprocal `y ≈ 1/b` of the variant: Halley (cubic) or Newton (quadratic).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn reciprocal<const V: u8>(b: __m256) -> __m256 {
    let one = _mm256_set1_ps(1.0);
    let r = _mm256_rcp_ps(b);
    // e = 1 - b·r, exact: r has 12 fraction bits, so b·r fits the FMA's product.
    let e = _mm256_fnmadd_ps(b, r, one);
    if Variant::of(V).halley {
        // y = r·(1 + e + e²): Halley's step, cubic convergence.
        let e2 = _mm256_fmadd_ps(e, e, e);
        _mm256_fmadd_ps(r, e2, r)
    } else {
        // y = r·(1 + e): a Newton step, which leaves up to ~2^-22 relative error.
        _mm256_fmadd_ps(r, e, r)
    }
}

/// Eight quotients by the fast path, and the mask of lanes it cannot guarantee.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn fast_path<const V: u8>(a: __m256, b: __m256) -> (__m256, __m256) {
    let y = reciprocal::<V>(b);

    // m = 1.f of the dividend in [1,2): keep its fraction, force the exponent of 1.0.
    let m = _mm256_or_ps(
        _mm256_and_ps(a, splat_bits(MANTISSA_MASK)),
        splat_bits(ONE_BITS),
    );
    // scale = ±2^ea: the dividend's sign and exponent with a zero fraction.
    let scale = _mm256_and_ps(a, splat_bits(SIGN_EXPONENT_MASK));

    let q = _mm256_mul_ps(y, m);
    // res = m - q·b is exact (Markstein): q is within an ulp of m/b.
    let res = _mm256_fnmadd_ps(q, b, m);
    let q1 = _mm256_fmadd_ps(y, res, q);
    // Multiplying by a power of two is exact while the result stays normal.
    let quotient = _mm256_mul_ps(q1, scale);

    // A zero dividend gives a correctly signed zero whenever the divisor is normal
    // (0·q' = ±0), and NaN when it is not: mark zero dividends with QUOTIENT_MIN so their
    // zero quotients pass the range check while their NaNs still fail it. Sparse data then
    // stays on the fast path; any other zero quotient is an underflow and is flagged.
    let a_is_zero = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_castps_si256(a), _mm256_set1_epi32(ABS_MASK as i32)),
        _mm256_setzero_si256(),
    );
    let zero_mark = _mm256_and_si256(a_is_zero, _mm256_set1_epi32(QUOTIENT_MIN_BITS as i32));
    let abs_bits = _mm256_or_si256(
        _mm256_and_si256(
            _mm256_castps_si256(quotient),
            _mm256_set1_epi32(ABS_MASK as i32),
        ),
        zero_mark,
    );

    // Range check on |quotient| in [QUOTIENT_MIN, QUOTIENT_MAX], as one signed compare:
    // adding (i32::MIN - MIN) maps the range onto [i32::MIN, i32::MIN + MAX - MIN] and
    // everything else (NaN, inf, subnormal, zero) above it.
    let shifted = _mm256_add_epi32(
        abs_bits,
        _mm256_set1_epi32(i32::MIN.wrapping_sub(QUOTIENT_MIN_BITS as i32)),
    );
    let out_of_range = _mm256_cmpgt_epi32(
        shifted,
        _mm256_set1_epi32(i32::MIN + (QUOTIENT_MAX_BITS - QUOTIENT_MIN_BITS) as i32),
    );

    let unsafe_lanes = if Variant::of(V).all_ones_fix {
        // Divisors with a mantissa near all-ones can leave |1 - b·y| >= 2^-24 (the final
        // correction then lands on a tie): send them to the slow path.
        let b_mantissa = _mm256_and_si256(
            _mm256_castps_si256(b),
            _mm256_set1_epi32(MANTISSA_MASK as i32),
        );
        let near_all_ones = _mm256_cmpgt_epi32(
            b_mantissa,
            _mm256_set1_epi32(NEAR_ALL_ONES_MANTISSA_MIN as i32 - 1),
        );
        _mm256_or_si256(out_of_range, near_all_ones)
    } else {
        out_of_range
    };
    (quotient, _mm256_castsi256_ps(unsafe_lanes))
}

/// Eight quotients, bit-identical to `_mm256_div_ps(a, b)`.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div8<const V: u8>(a: __m256, b: __m256) -> __m256 {
    let (quotient, unsafe_lanes) = fast_path::<V>(a, b);
    if _mm256_movemask_ps(unsafe_lanes) == 0 {
        quotient
    } else {
        slow_path(a, b, quotient, unsafe_lanes)
    }
}

/// The exact IEEE quotient for the flagged lanes: the hardware divider, which defines the
/// bits (NaN propagation, signed zeros, subnormals, MXCSR flags) that we promise.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn slow_path(a: __m256, b: __m256, quotient: __m256, unsafe_lanes: __m256) -> __m256 {
    _mm256_blendv_ps(quotient, _mm256_div_ps(a, b), unsafe_lanes)
}

/// Hardware vectors per kernel vector in [`div_raw`]'s shipped mix, chosen by measurement
/// (BENCHMARKS.md): on AMD EPYC (cpuid family 0x1a) 5 gave the best throughput.
pub const SHIPPED_HARDWARE_SHARE: usize = 5;

/// After a kernel vector needed the slow path, this many blocks run on the divider alone:
/// data full of special values (random bit patterns) would otherwise pay a mispredicted
/// branch and a division per block.
const BLOCKS_AFTER_SLOW: u32 = 8;

/// `out[i] = a[i] / b[i]` for `len` elements; `out` may be `a` itself.
///
/// Each block of `H + 1` vectors sends one vector through the FMA kernel and `H` through
/// the hardware divider: the divider and the FMA pipes are separate resources, so the
/// two run side by side (`H = 0`: the kernel alone). A block whose kernel vector needs the
/// slow path makes the next [`BLOCKS_AFTER_SLOW`] blocks use the divider alone, and so do
/// the last vectors that do not fill a block.
///
/// # Safety
/// - The CPU must support AVX2 and FMA.
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a` (same address).
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_raw<const V: u8, const H: usize, const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // With RECIP the dividends are all 1.0 and `a` is never read: the compiler folds the
    // constant mantissa and scale out of the kernel.
    let load_a = |i: usize| {
        if RECIP {
            _mm256_set1_ps(1.0)
        } else {
            // SAFETY: the callers below pass only i with i + LANES <= len.
            unsafe { _mm256_loadu_ps(a.add(i)) }
        }
    };
    let block = (H + 1) * LANES;
    let blocks_end = len - len % block;
    let mut i = 0;
    let mut divider_only = 0u32;
    while i < blocks_end {
        // SAFETY: i + block <= len, so every access stays inside the slices (unaligned
        // loads and stores accept any address); each vector is loaded before its store,
        // so `out == a` is fine.
        unsafe {
            let (va, vb) = (load_a(i), _mm256_loadu_ps(b.add(i)));
            let q = if H > 0 && divider_only > 0 {
                divider_only -= 1;
                _mm256_div_ps(va, vb)
            } else {
                let (quotient, flagged) = fast_path::<V>(va, vb);
                if _mm256_movemask_ps(flagged) == 0 {
                    quotient
                } else {
                    divider_only = BLOCKS_AFTER_SLOW;
                    slow_path(va, vb, quotient, flagged)
                }
            };
            for k in 1..=H {
                let j = i + k * LANES;
                let h = _mm256_div_ps(load_a(j), _mm256_loadu_ps(b.add(j)));
                _mm256_storeu_ps(out.add(j), h);
            }
            _mm256_storeu_ps(out.add(i), q);
        }
        i += block;
    }
    // Fewer than H + 1 vectors remain: alone, the kernel is slower than the divider, so
    // with a mix (H > 0) they go to the divider.
    let full = len - len % LANES;
    while i < full {
        // SAFETY: as above, with i + LANES <= len.
        unsafe {
            let (va, vb) = (load_a(i), _mm256_loadu_ps(b.add(i)));
            let q = if H > 0 {
                _mm256_div_ps(va, vb)
            } else {
                div8::<V>(va, vb)
            };
            _mm256_storeu_ps(out.add(i), q);
        }
        i += LANES;
    }
    let rest = len - full;
    if rest > 0 {
        // The tail goes through the same kernel, padded with 1/1 so no lane is special.
        let mut ta = [1.0f32; LANES];
        let mut tb = [1.0f32; LANES];
        // SAFETY: `rest` elements from `full` are inside the inputs; the arrays are local.
        unsafe {
            if !RECIP {
                core::ptr::copy_nonoverlapping(a.add(full), ta.as_mut_ptr(), rest);
            }
            core::ptr::copy_nonoverlapping(b.add(full), tb.as_mut_ptr(), rest);
            let (va, vb) = (_mm256_loadu_ps(ta.as_ptr()), _mm256_loadu_ps(tb.as_ptr()));
            let q = if H > 0 {
                _mm256_div_ps(va, vb)
            } else {
                div8::<V>(va, vb)
            };
            _mm256_storeu_ps(ta.as_mut_ptr(), q);
            core::ptr::copy_nonoverlapping(ta.as_ptr(), out.add(full), rest);
        }
    }
}
