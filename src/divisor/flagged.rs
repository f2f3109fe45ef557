//! Two products checked by the floating-point exception flags instead of lane by lane.
//!
//! The per-vector range check of the two-products sequence costs as much as the sequence
//! itself. The hardware already records, in MXCSR's sticky flags, everything that check
//! looks for: an operation that underflowed with a loss of accuracy (UE), overflowed
//! (OE) or was invalid (IE: ∞ - ∞, a signaling NaN). So a chunk of dividends runs the
//! bare sequence, and the flags decide: clear before and after it, the chunk is proven;
//! otherwise the divider redoes the chunk.
//!
//! Why no flag means an exact quotient, for `q = fma(a, zh, RN(a·zl))` with `zh`, `zl`
//! normal (as a proven [`super::Divisor`] makes them):
//! - `a` finite and nonzero: without UE, `RN(a·zl)` is normal or exact and `q` is normal
//!   or exact; without OE both are finite. That is all the two-products proof (module
//!   `divisor`) needs; an exact subnormal `q` is `a/b` itself, as the sum is within 2^-47
//!   of it in relative terms while the grid spacing there is 2^-149.
//! - `a` infinite: both products are infinite; with equal signs the sum is the correctly
//!   signed infinity, with opposite signs it is ∞ - ∞ and raises IE.
//! - `a` a quiet NaN: every operation returns `a` itself, as the divider does; a signaling
//!   NaN raises IE.
//! - `a` zero: both products are zeros, and the sum has the quotient's sign unless `zh` and
//!   `zl` differ in sign (then `+0 + -0 = +0`; [`super::Divisor::new`] takes `zh = RZ(1/b)`
//!   to avoid that where it is proven, module `divisor`, "Which `zh`": 6.5% of divisors
//!   still have it). [`two_products`] repairs those with one OR of
//!   a correctly signed value: the sign of `a` when `b > 0`, of `RN(a·zh)` when `b < 0`
//!   (both are `a`'s own sign for a NaN `a`, so NaNs keep their bits).
//!
//! The chunks run on the engine the directed functions use, generic over the width
//! ([`crate::arch::simd::flagged`]): Rust promises nothing about MXCSR around its own
//! floating-point operations (they may be moved), so every flag read passes the input
//! pointers through its `asm!` block, and no load of a chunk can move above the read that
//! opens it or below the one that judges it. Anything run in between, ours or the
//! compiler's, can only set flags, and so only void a chunk, never prove one. The caller's
//! flags are put back before returning, with those the divider raised in redone chunks:
//! after a call MXCSR holds every flag it held before, and a voided attempt leaves none of
//! its own (the bare sequence can underflow in `a·zl` where the quotient is normal, and the
//! FMA reading that subnormal product raises the denormal-operand flag).
//!
//! One function for both widths: eight lanes (AVX2+FMA) and sixteen (AVX-512F and its
//! software model). Until this version the eight-lane chunks were their own assembly
//! loop; the engine's loop compiles to the same instructions per vector (BENCHMARKS,
//! "Divisor", has the A/B).

use core::cell::Cell;

use super::{NO_REPAIR, Proven, SIGN_OF_DIVIDEND, SIGN_OF_PRODUCT, lanes};
use crate::arch::simd::Vector;
use crate::arch::simd::divider::past_head;
use crate::arch::simd::flagged::{ChunkBackoff, flagged_chunks};
use crate::arch::x86_64::mode::{VOIDING, read_mxcsr};
use crate::bits::SIGN_MASK;

/// Slices at least this long run two products in flag-checked chunks: below it the flag
/// reads (each waits for every operation in flight) cost about as much as checking a few
/// hundred dividends lane by lane.
pub const FROM: usize = 512;

std::thread_local! {
    /// The back-off, kept between calls on this thread: a stream of short slices full of
    /// specials does not pay a voided chunk per call.
    static BACKOFF: Cell<ChunkBackoff> = const { Cell::new(ChunkBackoff::CLEAR) };
}

/// Whether a slice of `len` dividends whose check sends it to the window below `held_below`
/// elements ([`super::Check::FlagsUnlessHeld`]) goes there: the caller's MXCSR holds a
/// [`VOIDING`] flag, which the chunks would clear before their first read and put back
/// after. Read before the head's divisions, which a read after would wait for (at 512
/// elements that cost 7-10% on family 6 model 0xa7); a flag the head raises voids the first
/// chunk, as it did before this check. Only below `held_below` is MXCSR read.
#[inline(always)]
pub fn window_for_held_flags(len: usize, held_below: usize) -> bool {
    len < held_below && read_mxcsr() & VOIDING != 0
}

/// `out[i] = a[i] / d` for a two-products divisor: the head to the output's cache line or,
/// at eight lanes, to its vector boundary ([`lanes::head_disjoint`]) by the divider,
/// flag-checked chunks of the bare sequence (the engine's), the leftover lanes and voided
/// chunks by the divider. The chunks' loop is
/// bound by its loads and stores, not the divider: at eight lanes with the arrays 16 bytes
/// past a line (a `Vec<f32>` from the system allocator) every other store split a line
/// until the head; on family 0x19 model 0x11 it gained 1.28-1.30x at 2K-4K and 1.10x at 16K
/// there, none lost on a line (`docs/bench/0x19-0x11-divisor-eight-lane-head.txt`); on model
/// 0x1 1.18x at 16K, none lost (`docs/bench/0x19-divisor-eight-lane-head.txt`).
///
/// # Safety
/// `w`'s features are present; `a` readable and `out` writable for `len` floats, not
/// overlapping.
#[inline(always)]
pub unsafe fn two_products<W: Vector>(w: W, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // The head to the output's cache line on the divider where `W` aligns its stores, to
    // its vector boundary at eight lanes: then no whole store of the chunks splits a line.
    let by = w.splat(d.b);
    // SAFETY: the caller's guarantees.
    let head = unsafe { lanes::head_disjoint(w, by, a, out, len) };
    let ([a], [out], len) = past_head([a], [out], len, head);
    // One loop per repair (the sign OR costs one or two operations a vector, so the loop
    // of divisors that need none does not test for it).
    // SAFETY: the caller's guarantees.
    let done = unsafe {
        match super::repair_class(d.zh, d.zl) {
            NO_REPAIR => chunks::<W, NO_REPAIR>(w, d, a, out, len),
            SIGN_OF_DIVIDEND => chunks::<W, SIGN_OF_DIVIDEND>(w, d, a, out, len),
            _ => chunks::<W, SIGN_OF_PRODUCT>(w, d, a, out, len),
        }
    };
    // SAFETY: the elements from `done` on, inside both slices.
    unsafe { lanes::divide_by_divider_in(w, d.b, a.add(done), out.add(done), len - done) };
}

/// The whole vectors of [`two_products`] with the zero-sign repair `REPAIR`; returns the
/// elements done.
///
/// # Safety
/// As [`two_products`].
#[inline(always)]
unsafe fn chunks<W: Vector, const REPAIR: usize>(
    w: W,
    d: &Proven,
    a: *const f32,
    out: *mut f32,
    len: usize,
) -> usize {
    let (zh, zl) = (w.splat(d.zh), w.splat(d.zl));
    let sign = w.splat_bits(SIGN_MASK);
    let by = w.splat(d.b);
    // SAFETY: the caller's guarantees, which the engine asks for (the one input passed
    // twice). MXCSR is read by the engine, only if it tries a chunk.
    unsafe {
        flagged_chunks(
            w,
            (a, a),
            [out],
            len,
            None,
            VOIDING,
            &BACKOFF,
            #[inline(always)]
            |x: W::F, _: W::F| {
                // q = RN(a·zh + RN(a·zl)).
                let q = w.mul_add(x, zh, w.mul(x, zl));
                // A zero dividend's quotient gets its sign by one OR (module docs, "zero"):
                // a's sign where b > 0, RN(a·zh)'s where b < 0; a no-op on every other lane.
                let q = match REPAIR {
                    NO_REPAIR => q,
                    SIGN_OF_DIVIDEND => w.float(w.or(w.bits(q), w.and(w.bits(x), sign))),
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
    }
}
