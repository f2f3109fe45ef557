//! The AVX-512F backend: sixteen lanes per vector, masks in `k` registers.
//!
//! The [`Vector`] operations as AVX-512F instructions (each method one or two intrinsics),
//! masked loads and stores for the tails, the rounding-mode division by embedded rounding
//! (no MXCSR access), and the
//! `#[target_feature]` entry points that compile the generic kernel and loops of
//! [`crate::arch::simd`] for 512-bit vectors. The seed is `vrcp14ps` (relative error below
//! 2^-14, inside the 1.5·2^-12 every conforming-table proof covers: [`crate::kernel_notes`]).
//! The same operations in plain Rust are `arch::x86_64::avx512_model` (feature `verify`),
//! which runs the same generic code on any x86-64 CPU.

use core::arch::x86_64::*;

use super::mode::{DOWN, NEAREST, TOWARD_ZERO, UP};
use crate::arch::simd::Vector;

/// Lanes per vector.
pub const LANES: usize = 16;

/// Every lane of a 16-lane mask.
const ALL_LANES: __mmask16 = 0xffff;

/// Proof that the CPU has AVX-512F, AVX2 and FMA (and the operating system saves the
/// opmask and ZMM state): the only way to reach the 512-bit code. (AVX2 and FMA too, so
/// that the paths without a 512-bit form yet run the AVX2+FMA ones under the same proof.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512(());

impl Avx512 {
    /// Returns the proof if this CPU supports AVX-512F, AVX2 and FMA.
    #[inline]
    pub fn new() -> Option<Self> {
        if crate::cpu::has_avx512f() && crate::cpu::has_avx2_fma() {
            Some(Avx512(()))
        } else {
            None
        }
    }

    /// Returns the proof without checking.
    ///
    /// # Safety
    /// The CPU running the program must support AVX-512F, AVX2 and FMA.
    #[inline]
    pub const unsafe fn new_unchecked() -> Self {
        Avx512(())
    }

    /// `vrcp14ps` of eight inputs (the plan checks the seeds against their bound).
    pub fn rcp8(self, x: [f32; 8]) -> [f32; 8] {
        #[target_feature(enable = "avx512f,avx2,fma")]
        fn rcp16(x: [f32; 8]) -> [f32; 8] {
            let mut wide = [1.0f32; LANES];
            wide[..8].copy_from_slice(&x);
            let mut r = [0.0f32; LANES];
            // SAFETY: both arrays hold sixteen floats.
            unsafe {
                _mm512_storeu_ps(
                    r.as_mut_ptr(),
                    _mm512_rcp14_ps(_mm512_loadu_ps(wide.as_ptr())),
                )
            };
            let mut out = [0.0f32; 8];
            out.copy_from_slice(&r[..8]);
            out
        }
        // SAFETY: `self` proves the features.
        unsafe { rcp16(x) }
    }
}

/// A function compiled for AVX-512F that runs `f` out of line and cold: the loops' slow
/// paths.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx2,fma")]
fn out_of_line<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The first `n <= 16` lanes.
#[inline(always)]
fn first_lanes(n: usize) -> __mmask16 {
    // n <= 16: the shift fits a u32, and the low 16 bits are the mask.
    ((1u32 << n) - 1) as __mmask16
}

// SAFETY: an `Avx512` exists only where AVX-512F, AVX2 and FMA were detected (`new`) or
// promised (`new_unchecked`, `assume`); the methods execute nothing else. Every intrinsic
// call below relies on that proof (`self`), and the memory ones on the caller's pointers.
unsafe impl Vector for Avx512 {
    const LANES: usize = LANES;
    const EMBEDDED_ROUNDING: bool = true;
    /// A vector is a cache line: on family 0x19 model 0x11, with the arrays 16 bytes past a
    /// line, `recip` measured 1.08–1.46× the plain 256-bit pass with the head and 0.97–1.35×
    /// without, and `div_rounded`'s embedded-rounding pass 0.96–1.12× against 0.77–1.00×
    /// (`docs/bench/0x19-0x11-line-head-ab.txt`).
    const ALIGNS_STORES: bool = true;
    /// `vrcp14ps`' bound, 2^-14, needs 2^5 (the every-table sweep under that bound,
    /// `conforming-division-vrcp14`).
    const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::RCP14_NEAR_ALL_ONES_DIVISORS;
    type F = __m512;
    type I = __m512i;
    /// One bit a lane in a `k` register.
    type M = __mmask16;

    #[inline(always)]
    unsafe fn load(self, p: *const f32) -> __m512 {
        // SAFETY: `self` proves AVX-512F; the caller's pointer.
        unsafe { _mm512_loadu_ps(p) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut f32, v: __m512) {
        // SAFETY: `self` proves AVX-512F; the caller's pointer.
        unsafe { _mm512_storeu_ps(p, v) }
    }

    #[inline(always)]
    unsafe fn load_partial(self, p: *const f32, n: usize, pad: f32) -> __m512 {
        // SAFETY: `self` proves AVX-512F; the masked load reads only the first `n` lanes,
        // which the caller guarantees readable, and suppresses faults on the others.
        unsafe { _mm512_mask_loadu_ps(_mm512_set1_ps(pad), first_lanes(n), p) }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut f32, n: usize, v: __m512) {
        // SAFETY: `self` proves AVX-512F; the masked store writes only the first `n` lanes.
        unsafe { _mm512_mask_storeu_ps(p, first_lanes(n), v) }
    }

    #[inline(always)]
    fn splat(self, x: f32) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_set1_ps(x) }
    }

    #[inline(always)]
    fn div(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_div_ps(a, b) }
    }

    #[inline(always)]
    fn mul(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_mul_ps(a, b) }
    }

    #[inline(always)]
    fn mul_add(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F (its FMA forms).
        unsafe { _mm512_fmadd_ps(a, b, c) }
    }

    #[inline(always)]
    fn neg_mul_add(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_fnmadd_ps(a, b, c) }
    }

    #[inline(always)]
    fn rcp(self, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_rcp14_ps(b) }
    }

    #[inline(always)]
    fn div_in_mode(self, a: __m512, b: __m512, mode: u8) -> __m512 {
        // SAFETY: `self` proves the features `div_in_mode` is compiled for.
        unsafe { div_in_mode(a, b, mode) }
    }

    #[inline(always)]
    unsafe fn div_in_mode_region<const MODE: u8>(
        self,
        a: *const f32,
        b: *const f32,
        out: *mut f32,
        vectors: usize,
    ) {
        // SAFETY: `self` proves the features; the caller's pointers.
        unsafe { region::<MODE>(a, b, out, vectors) }
    }

    #[inline(always)]
    fn bits(self, x: __m512) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_castps_si512(x) }
    }

    #[inline(always)]
    fn float(self, x: __m512i) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_castsi512_ps(x) }
    }

    #[inline(always)]
    fn splat_bits(self, bits: u32) -> __m512i {
        // SAFETY: `self` proves AVX-512F. The bits, not the integer's value, are what count.
        unsafe { _mm512_set1_epi32(bits as i32) }
    }

    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_sub_epi32(a, b) }
    }

    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_and_si512(a, b) }
    }

    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_xor_si512(a, b) }
    }

    #[inline(always)]
    fn or(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_or_si512(a, b) }
    }

    #[inline(always)]
    fn shift_left_1(self, a: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_slli_epi32::<1>(a) }
    }

    #[inline(always)]
    fn max_u32(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_max_epu32(a, b) }
    }

    #[inline(always)]
    fn equal(self, a: __m512i, b: __m512i) -> __mmask16 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_cmpeq_epi32_mask(a, b) }
    }

    #[inline(always)]
    fn greater(self, a: __m512i, b: __m512i) -> __mmask16 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_cmpgt_epi32_mask(a, b) }
    }

    #[inline(always)]
    fn min_signed(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_min_epi32(a, b) }
    }

    #[inline(always)]
    fn step_by_signs(self, q: __m512i, r: __m512, a: __m512) -> __m512i {
        // SAFETY: `self` proves AVX-512F. No `psignd` here: the signs' xor, its sign bit
        // spread by an arithmetic shift and or-ed with 1, is +1 where they agree and -1
        // where they differ; added where r is not a zero (an ordered compare into a mask).
        unsafe {
            let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(r, _mm512_setzero_ps());
            let signs = _mm512_xor_si512(_mm512_castps_si512(r), _mm512_castps_si512(a));
            let one_way = _mm512_or_si512(_mm512_srai_epi32::<31>(signs), _mm512_set1_epi32(1));
            _mm512_mask_add_epi32(q, inexact, q, one_way)
        }
    }

    #[inline(always)]
    fn step_by_signs_plus_zero(self, q: __m512i, r: __m512, a: __m512) -> __m512i {
        // The compare is one mask operation: nothing cheaper without it.
        self.step_by_signs(q, r, a)
    }

    #[inline(always)]
    fn nonzero(self, x: __m512) -> __mmask16 {
        // SAFETY: `self` proves AVX-512F. Ordered not-equal: false for both zeros (and NaNs).
        unsafe { _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(x, _mm512_setzero_ps()) }
    }

    #[inline(always)]
    fn negative_signaling(self, x: __m512) -> __mmask16 {
        // SAFETY: `self` proves AVX-512F. Ordered, signaling less-than: IE for a quiet NaN.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OS>(x, _mm512_setzero_ps()) }
    }

    #[inline(always)]
    fn minimum(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_min_ps(a, b) }
    }

    #[inline(always)]
    fn maximum(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_max_ps(a, b) }
    }

    #[inline(always)]
    fn no_lanes(self) -> __mmask16 {
        0
    }

    #[inline(always)]
    fn mask_and_not(self, a: __mmask16, b: __mmask16) -> __mmask16 {
        !a & b
    }

    #[inline(always)]
    fn mask_or(self, a: __mmask16, b: __mmask16) -> __mmask16 {
        a | b
    }

    #[inline(always)]
    fn mask_not(self, m: __mmask16) -> __mmask16 {
        !m
    }

    #[inline(always)]
    fn mask_lanes(self, m: __mmask16) -> __m512i {
        // SAFETY: `self` proves AVX-512F. -1 in the mask's lanes, zero elsewhere.
        unsafe { _mm512_maskz_set1_epi32(m, -1) }
    }

    #[inline(always)]
    fn all(self, m: __mmask16) -> bool {
        m == ALL_LANES
    }

    #[inline(always)]
    fn any(self, m: __mmask16) -> bool {
        m != 0
    }

    #[inline(always)]
    fn blend(self, a: __m512, b: __m512, m: __mmask16) -> __m512 {
        // SAFETY: `self` proves AVX-512F. `b` where the mask is set.
        unsafe { _mm512_mask_blend_ps(m, a, b) }
    }

    #[inline(always)]
    fn cold<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: `self` proves the features `out_of_line` is compiled for.
        unsafe { out_of_line(f) }
    }

    #[inline(always)]
    unsafe fn assume() -> Self {
        Avx512(())
    }
}

/// Sixteen quotients `vdivps(a, b)` rounded in direction `MODE` by embedded rounding
/// (`{rn,rd,ru,rz}-sae`): the instruction carries the direction, so MXCSR is neither read
/// nor written, and suppress-all-exceptions means no flag is raised. Flush-to-zero and
/// denormals-are-zero are MXCSR controls the embedded field does not override: they apply
/// as MXCSR holds them (the native suite checks this: `tests/mxcsr.rs` with the backend
/// forced, against `divss` under the mode).
#[inline]
#[target_feature(enable = "avx512f,avx2,fma")]
fn div_round<const MODE: u8>(a: __m512, b: __m512) -> __m512 {
    match MODE {
        NEAREST => _mm512_div_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(a, b),
        DOWN => _mm512_div_round_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(a, b),
        UP => _mm512_div_round_ps::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(a, b),
        _ => _mm512_div_round_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(a, b),
    }
}

/// [`div_round`] with the direction a value (MXCSR's numbering).
#[inline]
#[target_feature(enable = "avx512f,avx2,fma")]
fn div_in_mode(a: __m512, b: __m512, mode: u8) -> __m512 {
    match mode {
        NEAREST => div_round::<NEAREST>(a, b),
        DOWN => div_round::<DOWN>(a, b),
        UP => div_round::<UP>(a, b),
        _ => div_round::<TOWARD_ZERO>(a, b),
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` for `vectors` whole vectors of
/// sixteen, by [`div_round`] (no MXCSR access, no flag raised).
///
/// # Safety
/// AVX-512F; `a` and `b` readable and `out` writable for `vectors · 16` floats; `out` does
/// not overlap `a` or `b`, or is exactly `a`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn region<const MODE: u8>(a: *const f32, b: *const f32, out: *mut f32, vectors: usize) {
    for v in 0..vectors {
        let i = v * LANES;
        // SAFETY: vector v < vectors lies inside the three (the caller's guarantee), loaded
        // before its quotient is stored (so `out == a` is fine).
        unsafe {
            let q = div_round::<MODE>(_mm512_loadu_ps(a.add(i)), _mm512_loadu_ps(b.add(i)));
            _mm512_storeu_ps(out.add(i), q);
        }
    }
}

crate::arch::simd::entry_points!(Avx512, "avx512f,avx2,fma");

/// Sixteen quotients `a / b` by kernel variant `V`, bit-identical to `_mm512_div_ps` (the
/// sixteen-lane token's kernel: inlined into AVX-512F code).
///
/// # Safety
/// Outside an AVX-512F+AVX2+FMA context, the caller must ensure the CPU has them.
#[inline]
#[target_feature(enable = "avx512f,avx2,fma")]
pub fn div16<const V: u8, const RECIP: bool>(a: __m512, b: __m512) -> __m512 {
    crate::arch::simd::kernel::div_vector_of::<Avx512, V, RECIP>(Avx512(()), a, b)
}

/// Sixteen quotients rounded in direction `MODE` by embedded rounding (the token's directed
/// method: no MXCSR access, no flag raised).
///
/// # Safety
/// Outside an AVX-512F context, the caller must ensure the CPU has it.
#[inline]
#[target_feature(enable = "avx512f,avx2,fma")]
pub fn div_rounded16<const MODE: u8>(a: __m512, b: __m512) -> __m512 {
    div_round::<MODE>(a, b)
}
