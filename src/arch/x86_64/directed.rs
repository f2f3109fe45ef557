//! Directed rounding of a quotient from a faithful one and its exact residual, eight lanes
//! at a time, with no write to MXCSR.
//!
//! Given `q`, a faithful rounding of `a/b` (the round-to-nearest quotient of the divider or
//! of the kernel), the residual `r = a - q·b` is exact inside the input window (one FMA;
//! [`crate::kernel_notes`] has the proof), so its sign and the divisor's say on which side
//! of `q` the exact quotient lies: `sign(a/b - q) = sign(r) · sign(b)`, and `r = +0` exactly
//! when `q` is exact. The directed result is `q` or its neighbour one ulp away; inside the
//! window `q` is normal and so is that neighbour, so the step is `±1` on the bit pattern.
//!
//! Everything after the residual is integer arithmetic: on family 0x19 a vector FMA beside
//! `vdivps` costs most of a cycle, an integer operation much less (`examples/rounding.rs`).

use core::arch::x86_64::*;

use crate::bits::SIGN_MASK;

/// The rounding directions, numbered as MXCSR's rounding-control field numbers them.
pub const NEAREST: u8 = 0;
/// Toward −∞.
pub const DOWN: u8 = 1;
/// Toward +∞.
pub const UP: u8 = 2;
/// Toward zero.
pub const TOWARD_ZERO: u8 = 3;

/// The shipped step.
pub const SHIPPED: u8 = 0;
/// Weakened on purpose (for the tests): the residual's sign taken as the side of the exact
/// quotient, the divisor's sign ignored — wrong for negative divisors.
pub const DIVISOR_SIGN_IGNORED: u8 = 1;

/// Broadcasts a bit pattern.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn splat(bits: u32) -> __m256i {
    _mm256_set1_epi32(bits as i32)
}

/// Where the exact quotient lies: `s` has the sign of `a/b - q` and is `0` or `SIGN_MASK`
/// (a zero's bits) exactly when `q` is exact.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn side<const V: u8>(a: __m256, b: __m256, q: __m256) -> __m256i {
    // a - q·b, exact inside the window; +0 (never -0) when q is exact, in round-to-nearest.
    let r = _mm256_castps_si256(_mm256_fnmadd_ps(q, b, a));
    if V == DIVISOR_SIGN_IGNORED {
        return r;
    }
    // sign(a/b - q) = sign(r)·sign(b): fold b's sign bit into r's.
    _mm256_xor_si256(
        r,
        _mm256_and_si256(_mm256_castps_si256(b), splat(SIGN_MASK)),
    )
}

/// All-ones where `a/b > q`: `s > 0` as a signed integer (a zero's bits are not).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn above(s: __m256i) -> __m256i {
    _mm256_cmpgt_epi32(s, _mm256_setzero_si256())
}

/// All-ones where `a/b < q`: `s < 0` other than `-0`'s bits, i.e. `-s > 0` (the negation
/// of `SIGN_MASK` wraps to itself, which is not positive).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn below(s: __m256i) -> __m256i {
    _mm256_cmpgt_epi32(
        _mm256_sub_epi32(_mm256_setzero_si256(), s),
        _mm256_setzero_si256(),
    )
}

/// One ulp toward +∞ as a change of the bit pattern of a nonzero finite `q`: `+1` where
/// `q > 0`, `-1` where `q < 0` (the magnitude shrinks).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn up_step(q: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_srai_epi32::<31>(q), splat(1))
}

/// `a / b` rounded in direction `MODE` ([`NEAREST`] returns `q`), from `q`, a faithful
/// rounding of `a / b` (round-to-nearest from the divider or the kernel).
///
/// Exact for lanes whose inputs lie inside the kernel's input window
/// ([`super::avx2::InputCheck::window_of`]); other lanes are meaningless and must be
/// recomputed.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn round_from<const MODE: u8, const V: u8>(a: __m256, b: __m256, q: __m256) -> __m256 {
    if MODE == NEAREST {
        return q;
    }
    let s = side::<V>(a, b, q);
    let qi = _mm256_castps_si256(q);
    let bits = match MODE {
        // Down a step where the exact quotient lies below q.
        DOWN => _mm256_sub_epi32(qi, _mm256_and_si256(up_step(qi), below(s))),
        // Up a step where it lies above.
        UP => _mm256_add_epi32(qi, _mm256_and_si256(up_step(qi), above(s))),
        // Toward zero where it lies between zero and q: sign(a/b - q) differs from q's. The
        // magnitude shrinks by one ulp: the bit pattern by one, whatever the sign, so the
        // all-ones lanes of the mask are the step itself.
        _ => {
            let toward = below(_mm256_xor_si256(s, _mm256_and_si256(qi, splat(SIGN_MASK))));
            _mm256_add_epi32(qi, toward)
        }
    };
    _mm256_castsi256_ps(bits)
}

/// Both bounds at once: `(RD(a/b), RU(a/b))` from a faithful `q`, with [`round_from`]'s
/// conditions.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn bounds_from<const V: u8>(a: __m256, b: __m256, q: __m256) -> (__m256, __m256) {
    let s = side::<V>(a, b, q);
    let qi = _mm256_castps_si256(q);
    let up = up_step(qi);
    let lo = _mm256_sub_epi32(qi, _mm256_and_si256(up, below(s)));
    let hi = _mm256_add_epi32(qi, _mm256_and_si256(up, above(s)));
    (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi))
}

/// MXCSR with its rounding-control field set to `mode` (every other bit kept).
#[inline]
pub fn with_rounding(csr: u32, mode: u8) -> u32 {
    (csr & !ROUNDING_CONTROL) | (u32::from(mode) << ROUNDING_CONTROL_SHIFT)
}

/// MXCSR's rounding-control field.
pub const ROUNDING_CONTROL: u32 = 0b11 << ROUNDING_CONTROL_SHIFT;
/// Its position.
pub const ROUNDING_CONTROL_SHIFT: u32 = 13;

/// Eight quotients `vdivps(a, b)` under rounding direction `mode`, MXCSR's other bits as
/// they are (flush-to-zero, denormals-are-zero): MXCSR is read, set, and put back inside one
/// `asm!` block, as `core::arch`'s `_mm_setcsr` documentation requires of code that runs
/// under another mode. The sticky exception flags the division raises are kept. The slow
/// path of the directed functions, and the reference the sweeps compare with.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_in_mode(a: __m256, b: __m256, mode: u8) -> __m256 {
    let q: __m256;
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the block stores MXCSR to `saved`, loads the same control word with only the
    // rounding field changed, divides, and loads the saved control word back with the flags
    // the division raised OR-ed in; nothing else runs in between, and nothing after it sees
    // another rounding mode. The two locals are valid for the block's reads and writes.
    unsafe {
        core::arch::asm!(
            "vstmxcsr [{saved}]",
            "mov {tmp:e}, [{saved}]",
            "and {tmp:e}, {keep}",
            "or {tmp:e}, {rc:e}",
            "mov [{set}], {tmp:e}",
            "vldmxcsr [{set}]",
            "vdivps {q}, {a}, {b}",
            "vstmxcsr [{set}]",
            "mov {tmp:e}, [{set}]",
            "and {tmp:e}, 0x3f",
            "or [{saved}], {tmp:e}",
            "vldmxcsr [{saved}]",
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
