//! The x86-64 entry points: the lane-checked loops on AVX2+FMA (the window-checked one for
//! two products and Markstein's sequence, `lanes::windowed`), and the flag-checked
//! two-products chunks ([`flagged`]) where the check and the length call for it.

use super::{Check, Proven, Strategy, flagged, lanes};
use crate::arch::x86_64::avx2::Avx2Fma;

/// `out[i] = a[i] / b` on the divider alone ([`lanes::divide_by_divider_in`]), compiled
/// for AVX2+FMA as a function of its own whose operands arrive in registers. (Run as a
/// closure inside such a function, the loop read each capture through two loads before
/// its first division; BENCHMARKS, "Floors", has what that measured at 64 elements.)
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn divide_by_divider(k: Avx2Fma, b: f32, a: *const f32, out: *mut f32, len: usize) {
    use crate::arch::x86_64::short::{Operand, div_unoptimized};
    // SAFETY: `k` proves the features this function is compiled for; the caller's
    // pointers. Without optimisation, the `asm!` loop (`div_unoptimized`).
    unsafe {
        if cfg!(fmadiv_unoptimized) {
            div_unoptimized(Operand::Slice(a), Operand::Splat(b), out, len)
        } else {
            lanes::divide_by_divider_in(k, b, a, out, len)
        }
    }
}

/// `out[i] = a[i] / d` by the proven sequence, checked as `check` says.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; they must not overlap.
pub unsafe fn divide_raw(
    k: Avx2Fma,
    d: &Proven,
    check: Check,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees are both loops'.
    unsafe {
        match (d.strategy, check.flag_checked()) {
            (Strategy::TwoProducts, Some(held_below))
                if len >= flagged::FROM && !flagged::window_for_held_flags(len, held_below) =>
            {
                two_products(k, d, a, out, len)
            }
            (Strategy::TwoProducts | Strategy::Markstein, _) if check != Check::Lanes => {
                windowed(k, d, a, out, len)
            }
            _ => divide_lanes(k, d, a, out, len),
        }
    }
}

/// [`flagged::two_products`] compiled for AVX2+FMA, its operands in registers.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; they must not overlap.
#[target_feature(enable = "avx2,fma")]
unsafe fn two_products(k: Avx2Fma, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees are the chunks'; `k` proves the features.
    unsafe { flagged::two_products(k, d, a, out, len) }
}

/// [`lanes::windowed`] compiled for AVX2+FMA, its operands in registers.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[target_feature(enable = "avx2,fma")]
unsafe fn windowed(k: Avx2Fma, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees are the loop's; `k` proves the features.
    unsafe { lanes::windowed(k, d, a, out, len) }
}

/// [`lanes::divide`] compiled for AVX2+FMA, its operands in registers.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[target_feature(enable = "avx2,fma")]
unsafe fn divide_lanes(k: Avx2Fma, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees are the loop's; `k` proves the features.
    unsafe { lanes::divide(k, d, a, out, len) }
}

/// `a[i] = a[i] / d` in place: two products and Markstein's sequence by the window-checked
/// loop, the reciprocal by the lane-checked one; both load each block before they store
/// its quotients. (The
/// flag-checked chunks cannot run in place: they redo a voided chunk from its dividends.)
///
/// # Safety
/// `a` readable and writable for `len` floats.
pub unsafe fn divide_raw_in_place(k: Avx2Fma, d: &Proven, a: *mut f32, len: usize) {
    // SAFETY: the caller's guarantee; both loops allow `out == a`.
    unsafe {
        match d.strategy {
            Strategy::TwoProducts | Strategy::Markstein => windowed(k, d, a, a, len),
            _ => divide_lanes(k, d, a, a, len),
        }
    }
}

/// Eight quotients `a / d` by the divisor's strategy, lane-checked.
#[target_feature(enable = "avx2,fma")]
pub fn divide_vector(
    k: Avx2Fma,
    d: &Proven,
    a: core::arch::x86_64::__m256,
) -> core::arch::x86_64::__m256 {
    lanes::divide_vector(k, d, a)
}
