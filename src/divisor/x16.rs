//! The sixteen-lane entry points: the lane-checked loop of [`lanes`], the flag-checked two
//! products, and the divider's loop, compiled for the AVX-512F backend or run on its
//! software model.
//!
//! The reciprocal strategy (`a·(1/b)`, one rounding, the divider's flags) runs its
//! lane-checked sequence. Two products run flag-checked chunks from [`FLAGGED_FROM`]
//! elements, through the engine the directed functions use
//! ([`crate::arch::simd::flagged`]): the bare sequence `fma(a, zh, RN(a·zl))` with the
//! zero-sign repair, judged by MXCSR's underflow, overflow and invalid flags (the proof is
//! `divisor::flagged`'s, which is width-free), a voided chunk redone by the divider. Their
//! lane-checked form gives the right bits but raises flags the divider would not (an
//! underflow of `a·zl` under an exact quotient: `tests/mxcsr.rs` caught it through the
//! model), so shorter slices, slices divided in place (a voided chunk is redone from its
//! dividends), the chunks' leftover lanes and Markstein's sequence take the 512-bit
//! divider.

use core::cell::Cell;

use super::{Proven, Strategy, lanes};
use crate::Backend;
use crate::arch::simd::Vector;
use crate::arch::simd::flagged::{ChunkBackoff, flagged_chunks, read_fenced};
use crate::arch::x86_64::mode::VOIDING;
use crate::bits::SIGN_MASK;

/// Slices at least this long run two products in flag-checked chunks (as the eight-lane
/// `divisor::flagged::MIN_LEN`: the flag reads cost about as much as checking a few hundred
/// dividends).
pub const FLAGGED_FROM: usize = 512;

std::thread_local! {
    /// The sixteen-lane `Divisor`'s flag-checked chunks' back-off, kept between calls.
    static BACKOFF: Cell<ChunkBackoff> = const { Cell::new(ChunkBackoff::CLEAR) };
}

/// `out[i] = a[i] / d` for a two-products divisor: flag-checked chunks of the bare
/// sequence, the leftover lanes and voided chunks by the divider.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats, not overlapping.
#[inline(always)]
unsafe fn two_products<W: Vector>(w: W, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    let (zh, zl) = (w.splat(d.zh), w.splat(d.zl));
    let sign = w.splat_bits(SIGN_MASK);
    let repair = super::repair_class(d.zh, d.zl);
    let by = w.splat(d.b);
    let (mut x, mut y) = (a, a);
    let callers = read_fenced(&mut x, &mut y);
    // SAFETY: the caller's guarantees, which the engine asks for (the one input passed
    // twice).
    let done = unsafe {
        flagged_chunks(
            w,
            (x, y),
            [out],
            len,
            callers,
            VOIDING,
            &BACKOFF,
            #[inline(always)]
            |x: W::F, _: W::F| {
                // q = RN(a·zh + RN(a·zl)).
                let q = w.mul_add(x, zh, w.mul(x, zl));
                // A zero dividend's quotient gets its sign by one OR (`divisor::flagged`,
                // "zero"): a's sign where b > 0, RN(a·zh)'s where b < 0; a no-op on every
                // other lane.
                let q = match repair {
                    super::NO_REPAIR => q,
                    super::SIGN_OF_DIVIDEND => w.float(w.or(w.bits(q), w.and(w.bits(x), sign))),
                    _ => w.float(w.or(w.bits(q), w.and(w.bits(w.mul(x, zh)), sign))),
                };
                [q]
            },
            #[inline(always)]
            |x: *const f32, _: *const f32, [o]: [*mut f32; 1], vectors: usize| {
                for v in 0..vectors {
                    let i = v * W::LANES;
                    // In the call's unsafe block: `vectors` whole vectors inside both
                    // slices (the engine's promise).
                    w.store(o.add(i), w.div(w.load(x.add(i)), by));
                }
            },
        )
    };
    // SAFETY: the elements from `done` on, inside both slices.
    unsafe { lanes::divide_by_divider_in(w, d.b, a.add(done), out.add(done), len - done) };
}

/// `out[i] = a[i] / b` on `backend` (a sixteen-lane one): by the proven sequence `p` where
/// it is the reciprocal one or, flag-checked, two products (see the module docs), else the
/// divider.
///
/// # Safety
/// `backend` is in use (its features present); `a` readable and `out` writable for
/// `len` floats; `out` is `a` or does not overlap it.
pub unsafe fn divide(
    backend: Backend,
    b: f32,
    p: Option<&Proven>,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    /// The two loops compiled for one backend's proof type and features.
    macro_rules! compiled {
        ($W:ty, $features:literal) => {{
            #[target_feature(enable = $features)]
            unsafe fn run(b: f32, p: Option<&Proven>, a: *const f32, out: *mut f32, len: usize) {
                // SAFETY: this function runs only where the backend's features are
                // present; the caller's pointers.
                unsafe {
                    let w = <$W as crate::arch::simd::Vector>::assume();
                    match p {
                        Some(p) if p.strategy == Strategy::Reciprocal => {
                            lanes::divide(w, p, a, out, len)
                        }
                        Some(p)
                            if p.strategy == Strategy::TwoProducts
                                && len >= FLAGGED_FROM
                                && !core::ptr::eq(a, out) =>
                        {
                            two_products(w, p, a, out, len)
                        }
                        _ => lanes::divide_by_divider_in(w, b, a, out, len),
                    }
                }
            }
            // SAFETY: the caller's guarantees; the backend is in use.
            unsafe { run(b, p, a, out, len) }
        }};
    }
    match backend {
        Backend::Avx512 => compiled!(crate::arch::x86_64::avx512::Avx512, "avx512f,avx2,fma"),
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
