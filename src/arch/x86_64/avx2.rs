//! The AVX2+FMA backend: eight lanes per vector.
//!
//! The [`Vector`] operations as AVX2 instructions (each method one intrinsic, or the two of
//! a masked tail), the rounding-mode division in `asm!`, and the `#[target_feature]` entry
//! points that compile the generic kernel and loops of [`crate::arch::simd`] for AVX2+FMA:
//! what the plan's schedules, the directed functions and the in-register token call.

use core::arch::x86_64::*;

use super::mode::{ROUNDING_CONTROL, ROUNDING_CONTROL_SHIFT, under_rounding};
use crate::arch::simd::{Vector, directed, kernel};

/// Lanes per vector.
pub const LANES: usize = 8;

/// Proof that the CPU has AVX2 and FMA: the only way to reach the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2Fma(());

impl Avx2Fma {
    /// Returns the proof if this CPU supports AVX2 and FMA.
    #[inline]
    pub fn new() -> Option<Self> {
        if crate::cpu::has_avx2_fma() {
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

    /// `out[i] = a[i] / b[i]` with kernel variant `V` on every lane (see
    /// `arch::simd::loops::kernel_raw`).
    ///
    /// # Panics
    /// If the three lengths differ.
    #[cfg(feature = "verify")]
    #[inline]
    pub fn kernel_slices<const V: u8>(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(a.len() == b.len() && b.len() == out.len());
        let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: a and b are readable and out writable for n elements, and `out` (a unique
        // borrow) cannot overlap a or b; `self` proves the features `entry` is compiled for.
        unsafe { entry::kernel::<V, false>(x, y, o, n) }
    }

    /// `out[i] = 1 / b[i]` with the reciprocal kernel (fix of variant `V`) on every lane.
    ///
    /// # Panics
    /// If the lengths differ.
    #[cfg(feature = "verify")]
    #[inline]
    pub fn recip_kernel_slices<const V: u8>(self, b: &[f32], out: &mut [f32]) {
        assert!(b.len() == out.len());
        let (y, o, n) = (b.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: b is readable and out writable for n elements and cannot overlap; `a` is
        // not read for reciprocals.
        unsafe { entry::kernel::<V, true>(core::ptr::null(), y, o, n) }
    }
}

/// A function compiled for AVX2+FMA that runs `f` out of line and cold: the loops' slow
/// paths.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
fn out_of_line<R>(f: impl FnOnce() -> R) -> R {
    f()
}

// SAFETY: an `Avx2Fma` exists only where AVX2 and FMA were detected (`new`) or promised
// (`new_unchecked`, `assume`); the methods execute nothing else. Every intrinsic call below
// relies on that proof (`self`), and the memory ones on the caller's pointers.
unsafe impl Vector for Avx2Fma {
    const LANES: usize = LANES;
    const EMBEDDED_ROUNDING: bool = false;
    /// A vector is half a line: stored 16 bytes past a line, every other store writes two.
    /// The eight-lane loops' speeds on record (every CPU family in the plan's table) were
    /// measured without a head; not changed without measuring them again.
    const ALIGNS_STORES: bool = false;
    /// `vrcpps`' bound, 1.5·2^-12, needs 2^15 (the every-table sweep, `conforming-division`).
    const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::NEAR_ALL_ONES_DIVISORS;
    type F = __m256;
    type I = __m256i;
    /// AVX2 has no mask registers: a mask is a vector of all-ones or all-zeros lanes.
    type M = __m256i;

    #[inline(always)]
    unsafe fn load(self, p: *const f32) -> __m256 {
        // SAFETY: `self` proves AVX; the caller's pointer.
        unsafe { _mm256_loadu_ps(p) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut f32, v: __m256) {
        // SAFETY: `self` proves AVX; the caller's pointer.
        unsafe { _mm256_storeu_ps(p, v) }
    }

    #[inline(always)]
    unsafe fn load_partial(self, p: *const f32, n: usize, pad: f32) -> __m256 {
        // SAFETY: `self` proves AVX2; the masked load reads only the first `n` lanes, which
        // the caller guarantees readable, and never faults on the others.
        unsafe {
            let mask = first_lanes(n);
            _mm256_blendv_ps(
                _mm256_set1_ps(pad),
                _mm256_maskload_ps(p, mask),
                _mm256_castsi256_ps(mask),
            )
        }
    }

    #[inline(always)]
    unsafe fn store_partial(self, p: *mut f32, n: usize, v: __m256) {
        // SAFETY: `self` proves AVX2; the masked store writes only the first `n` lanes.
        unsafe { _mm256_maskstore_ps(p, first_lanes(n), v) }
    }

    #[inline(always)]
    fn splat(self, x: f32) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_set1_ps(x) }
    }

    #[inline(always)]
    fn div(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_div_ps(a, b) }
    }

    #[inline(always)]
    fn mul(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_mul_ps(a, b) }
    }

    #[inline(always)]
    fn mul_add(self, a: __m256, b: __m256, c: __m256) -> __m256 {
        // SAFETY: `self` proves FMA.
        unsafe { _mm256_fmadd_ps(a, b, c) }
    }

    #[inline(always)]
    fn neg_mul_add(self, a: __m256, b: __m256, c: __m256) -> __m256 {
        // SAFETY: `self` proves FMA.
        unsafe { _mm256_fnmadd_ps(a, b, c) }
    }

    #[inline(always)]
    fn rcp(self, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_rcp_ps(b) }
    }

    #[inline(always)]
    fn div_in_mode(self, a: __m256, b: __m256, mode: u8) -> __m256 {
        // SAFETY: `self` proves AVX2 and FMA, the features `div_in_mode` is compiled for.
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
    fn bits(self, x: __m256) -> __m256i {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_castps_si256(x) }
    }

    #[inline(always)]
    fn float(self, x: __m256i) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_castsi256_ps(x) }
    }

    #[inline(always)]
    fn splat_bits(self, bits: u32) -> __m256i {
        // SAFETY: `self` proves AVX. The bits, not the integer's value, are what count.
        unsafe { _mm256_set1_epi32(bits as i32) }
    }

    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_sub_epi32(a, b) }
    }

    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    fn xor(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    fn shift_left_1(self, a: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_slli_epi32::<1>(a) }
    }

    #[inline(always)]
    fn max_u32(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_max_epu32(a, b) }
    }

    #[inline(always)]
    fn equal(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_cmpeq_epi32(a, b) }
    }

    #[inline(always)]
    fn greater(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_cmpgt_epi32(a, b) }
    }

    #[inline(always)]
    fn min_signed(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_min_epi32(a, b) }
    }

    #[inline(always)]
    fn step_by_signs(self, q: __m256i, r: __m256, a: __m256) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe {
            // -1 where r is not a zero, 0 where it is.
            let inexact = self.mask_lanes(self.nonzero(r));
            // psignd twice: -1 becomes -sign(r)·sign(a); 0 stays 0.
            let (r, a) = (_mm256_castps_si256(r), _mm256_castps_si256(a));
            let step = _mm256_sign_epi32(_mm256_sign_epi32(inexact, r), a);
            _mm256_sub_epi32(q, step)
        }
    }

    #[inline(always)]
    fn step_by_signs_plus_zero(self, q: __m256i, r: __m256, a: __m256) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe {
            // psignd: a's pattern, negated where r < 0, zeroed where r = +0 (no compare). A
            // dividend inside the window is neither zero nor -0, so its pattern is neither 0
            // nor i32::MIN and keeps its sign through the negation.
            let side = _mm256_sign_epi32(_mm256_castps_si256(a), _mm256_castps_si256(r));
            // psignd of 1: +1 away from zero, -1 toward it, 0 where q is exact.
            _mm256_add_epi32(q, _mm256_sign_epi32(_mm256_set1_epi32(1), side))
        }
    }

    #[inline(always)]
    fn negative_signaling(self, x: __m256) -> __m256i {
        // SAFETY: `self` proves AVX. Ordered, signaling less-than: IE for a quiet NaN too.
        unsafe { _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OS>(x, _mm256_setzero_ps())) }
    }

    #[inline(always)]
    fn nonzero(self, x: __m256) -> __m256i {
        // SAFETY: `self` proves AVX. Ordered not-equal: false for both zeros (and NaNs).
        unsafe { _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_OQ>(x, _mm256_setzero_ps())) }
    }

    #[inline(always)]
    fn minimum(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_min_ps(a, b) }
    }

    #[inline(always)]
    fn maximum(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_max_ps(a, b) }
    }

    #[inline(always)]
    fn no_lanes(self) -> __m256i {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    fn mask_and_not(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_andnot_si256(a, b) }
    }

    #[inline(always)]
    fn mask_or(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    fn mask_not(self, m: __m256i) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_xor_si256(m, _mm256_set1_epi32(-1)) }
    }

    #[inline(always)]
    fn mask_lanes(self, m: __m256i) -> __m256i {
        // A mask already is all ones or zeros per lane.
        m
    }

    #[inline(always)]
    fn all(self, m: __m256i) -> bool {
        // SAFETY: `self` proves AVX. testc: 1 when every bit of the all-ones vector is set
        // in `m`.
        unsafe { _mm256_testc_si256(m, _mm256_set1_epi32(-1)) == 1 }
    }

    #[inline(always)]
    fn any(self, m: __m256i) -> bool {
        // SAFETY: `self` proves AVX. The lanes are all ones or zeros: their sign bits tell.
        unsafe {
            let m = _mm256_castsi256_ps(m);
            _mm256_testz_ps(m, m) == 0
        }
    }

    #[inline(always)]
    fn blend(self, a: __m256, b: __m256, m: __m256i) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_blendv_ps(a, b, _mm256_castsi256_ps(m)) }
    }

    #[inline(always)]
    fn cold<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: `self` proves AVX2 and FMA.
        unsafe { out_of_line(f) }
    }

    #[inline(always)]
    unsafe fn assume() -> Self {
        Avx2Fma(())
    }
}

/// All ones in the first `n` lanes (`n <= 8`).
#[inline(always)]
unsafe fn first_lanes(n: usize) -> __m256i {
    // SAFETY: the callers run where AVX2 is proven.
    unsafe {
        _mm256_cmpgt_epi32(
            _mm256_set1_epi32(n as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        )
    }
}

/// Eight quotients `vdivps(a, b)` under rounding direction `mode`, MXCSR's other bits as
/// they are (flush-to-zero, denormals-are-zero): MXCSR is read, set, and put back inside one
/// `asm!` block, as `core::arch`'s `_mm_setcsr` documentation requires of code that runs
/// under another mode. The sticky exception flags the division raises are kept. The slow
/// path of the directed functions, and the reference the sweeps compare with.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn div_in_mode(a: __m256, b: __m256, mode: u8) -> __m256 {
    let q: __m256;
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the block stores MXCSR to `saved`, loads the same control word with only the
    // rounding field changed, divides, and loads the saved control word back with the flags
    // the division raised OR-ed in; nothing else runs in between, and nothing after it sees
    // another rounding mode. The two locals are valid for the block's reads and writes.
    unsafe {
        core::arch::asm!(
            under_rounding!("v"; "vdivps {q}, {a}, {b}"),
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = in(reg) u32::from(mode) << ROUNDING_CONTROL_SHIFT,
            q = lateout(ymm_reg) q,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(nostack),
        );
    }
    q
}

/// `out[i] = vdivps(a[i], b[i])` under rounding direction `MODE` for `vectors` whole vectors:
/// MXCSR's rounding field set once for them and put back (with the flags the divisions
/// raised) inside one `asm!` block, as in [`div_in_mode`]. The slow path of stretches of
/// special-rich data.
///
/// # Safety
/// AVX; `a` and `b` readable and `out` writable for `vectors · 8` floats; `out` does not
/// overlap `a` or `b`, or is exactly `a`.
#[target_feature(enable = "avx2,fma")]
unsafe fn region<const MODE: u8>(a: *const f32, b: *const f32, out: *mut f32, vectors: usize) {
    if vectors == 0 {
        return;
    }
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the loop reads and writes `vectors` vectors from the three pointers (the
    // caller's guarantee), each loaded before its quotient is stored; MXCSR is read, set and
    // restored inside the block, as in `div_in_mode`; the locals are valid.
    unsafe {
        core::arch::asm!(
            under_rounding!(
                "v";
                // The loop starts a 64-byte line: on family 0x19 the same loop across one
                // runs a fifth slower (`examples/code_placement`).
                ".p2align 6",
                "2:",
                "vmovups {t}, [{a}]",
                "vdivps {t}, {t}, [{b}]",
                "vmovups [{out}], {t}",
                "add {a}, 32",
                "add {b}, 32",
                "add {out}, 32",
                "dec {n}",
                "jnz 2b",
            ),
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = in(reg) (MODE as u32) << ROUNDING_CONTROL_SHIFT,
            a = inout(reg) a => _,
            b = inout(reg) b => _,
            out = inout(reg) out => _,
            n = inout(reg) vectors => _,
            t = out(ymm_reg) _,
            options(nostack),
        );
    }
}

crate::arch::simd::entry_points!(Avx2Fma, "avx2,fma");

/// Eight quotients `a / b` by kernel variant `V`, bit-identical to `_mm256_div_ps` (the
/// in-register token's kernel: inlined into AVX2+FMA code).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div8<const V: u8, const RECIP: bool>(a: __m256, b: __m256) -> __m256 {
    kernel::div_vector_of::<Avx2Fma, V, RECIP>(Avx2Fma(()), a, b)
}

/// Eight quotients rounded in direction `MODE` (the token's directed method).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_rounded8<const MODE: u8>(a: __m256, b: __m256) -> __m256 {
    directed::div_rounded_vector::<Avx2Fma, MODE, { directed::SHIPPED }>(Avx2Fma(()), a, b)
}

/// `(RD(a/b), RU(a/b))` of eight lanes (the token's bounds method).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_bounds8(a: __m256, b: __m256) -> (__m256, __m256) {
    directed::div_bounds_vector::<Avx2Fma, { directed::SHIPPED }>(Avx2Fma(()), a, b)
}
