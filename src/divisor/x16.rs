//! The sixteen-lane entry points: the lane-checked loops of [`lanes`], the flag-checked two
//! products, and the divider's loop, compiled for the AVX-512F backend or run on its
//! software model.
//!
//! The reciprocal strategy (`a·(1/b)`, one rounding, the divider's flags) runs its
//! lane-checked sequence. Two products run flag-checked chunks from [`flagged::FROM`]
//! elements, as at eight lanes ([`flagged::two_products`], generic over the width: the
//! engine the directed functions use): the bare sequence `fma(a, zh, RN(a·zl))` with the
//! zero-sign repair, judged by MXCSR's underflow, overflow and invalid flags, a voided
//! chunk redone by the divider. Shorter slices, slices divided in place (a voided chunk
//! is redone from its dividends) and, with [`Check::FlagsUnlessHeld`], slices shorter than
//! its length whose caller holds a voiding flag run the window-checked loop
//! ([`lanes::windowed`]): the sequence only on dividends inside the divisor's
//! window, so no flag the divider would not raise but inexact. (The quotients' range check
//! gives the right bits but raises such flags: an underflow of `a·zl` under an exact
//! quotient, which `tests/mxcsr.rs` caught through the model; the verification door alone
//! runs it here.) Markstein's sequence runs the window-checked loop at every length, as
//! at eight lanes.

use super::{Check, Proven, Strategy, flagged, lanes};
use crate::Backend;
use crate::arch::x86_64::avx512::Avx512;

/// `out[i] = a[i] / b` on the 512-bit divider alone ([`lanes::divide_by_divider_in`]), a
/// function of its own whose operands arrive in registers, as the eight-lane one
/// (`divisor::x86::divide_by_divider`): where a short slice goes straight from the caller.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[target_feature(enable = "avx512f,avx2,fma")]
pub unsafe fn divide_by_divider(k: Avx512, b: f32, a: *const f32, out: *mut f32, len: usize) {
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

/// `out[i] = a[i] / b` on `backend` (a sixteen-lane one): by the proven sequence `p` (see
/// the module docs), else the divider.
///
/// # Safety
/// `backend` is in use (its features present); `a` readable and `out` writable for
/// `len` floats; `out` is `a` or does not overlap it.
pub unsafe fn divide(
    backend: Backend,
    b: f32,
    p: Option<&Proven>,
    check: Check,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    /// The two loops compiled for one backend's proof type and features.
    macro_rules! compiled {
        ($W:ty, $features:literal) => {{
            #[target_feature(enable = $features)]
            unsafe fn run(
                b: f32,
                p: Option<&Proven>,
                check: Check,
                a: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: this function runs only where the backend's features are
                // present; the caller's pointers.
                unsafe {
                    let w = <$W as crate::arch::simd::Vector>::assume();
                    match p {
                        Some(p) if p.strategy == Strategy::Reciprocal => {
                            lanes::divide(w, p, a, out, len)
                        }
                        Some(p) if p.strategy == Strategy::TwoProducts => {
                            match check.flag_checked() {
                                Some(held_below)
                                    if len >= flagged::FROM
                                        && !core::ptr::eq(a, out)
                                        && !flagged::window_for_held_flags(len, held_below) =>
                                {
                                    flagged::two_products(w, p, a, out, len)
                                }
                                _ if check == Check::Lanes => lanes::divide(w, p, a, out, len),
                                _ => lanes::windowed(w, p, a, out, len),
                            }
                        }
                        Some(p) if p.strategy == Strategy::Markstein => match check {
                            Check::Lanes => lanes::divide(w, p, a, out, len),
                            _ => lanes::windowed(w, p, a, out, len),
                        },
                        _ => lanes::divide_by_divider_in(w, b, a, out, len),
                    }
                }
            }
            // SAFETY: the caller's guarantees; the backend is in use.
            unsafe { run(b, p, check, a, out, len) }
        }};
    }
    match backend {
        Backend::Avx512 => compiled!(Avx512, "avx512f,avx2,fma"),
        #[cfg(feature = "verify")]
        Backend::Avx512Model(seeds) => {
            use crate::arch::x86_64::avx512_model::Avx512Model as M;
            use crate::arch::x86_64::avx512_model::{HIGH, INTEL, LOW, Seeds};
            match seeds {
                Seeds::Intel => compiled!(M<INTEL>, "sse2"),
                Seeds::Low => compiled!(M<LOW>, "sse2"),
                Seeds::High => compiled!(M<HIGH>, "sse2"),
            }
        }
        _ => unreachable!("x16::divide runs only on a sixteen-lane backend"),
    }
}
