//! Directed rounding of a quotient from a faithful one and its exact residual, a vector at
//! a time, with no write to MXCSR.
//!
//! Given `q`, a faithful rounding of `a/b` (the divider's quotient under any rounding mode,
//! or the kernel's under round-to-nearest), the residual `r = a - q·b` is exact inside the
//! input window (one FMA; [`crate::kernel_notes`] has the proof), so its sign and the
//! divisor's say on which side of `q` the exact quotient lies: `sign(a/b - q) = sign(r) ·
//! sign(b)`, and `r` is a zero exactly when `q` is exact. The directed result is `q` or its
//! neighbour one ulp away; inside the window `q` is normal and so is that neighbour, so the
//! step is `±1` on the bit pattern.
//!
//! Everything after the residual is integer arithmetic: on family 0x19 a vector FMA beside
//! `vdivps` costs most of a cycle, an integer operation less (`fmadiv bench --rounding`).

use core::cell::Cell;

use super::Vector;
use super::kernel::InputCheck;
use crate::arch::x86_64::mode::{DOWN, NEAREST, UP, rounds_to_nearest};
use crate::backoff::Backoff;
use crate::bits::SIGN_MASK;

/// The shipped step.
pub const SHIPPED: u8 = 0;
/// Weakened on purpose (for the tests): the residual's sign taken as the side of the exact
/// quotient, the divisor's sign ignored — wrong for negative divisors.
#[cfg(feature = "verify")]
pub const DIVISOR_SIGN_IGNORED: u8 = 1;

/// Where the exact quotient lies: `s` has the sign of `a/b - q`, and is `0` or `SIGN_MASK`
/// (a zero's bits) exactly when `q` is exact.
#[inline(always)]
fn side<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::I {
    // a - q·b, exact inside the window: a zero (+0 under round-to-nearest, -0 under
    // round-down) exactly when q is exact.
    let r = w.bits(w.neg_mul_add(q, b, a));
    #[cfg(feature = "verify")]
    if V == DIVISOR_SIGN_IGNORED {
        return r;
    }
    // sign(a/b - q) = sign(r)·sign(b): fold b's sign bit into r's.
    w.xor(r, w.and(w.bits(b), w.splat_bits(SIGN_MASK)))
}

/// All ones where `a/b > q`: `s > 0` as a signed integer (a zero's bits are not).
#[inline(always)]
fn above<W: Vector>(w: W, s: W::I) -> W::I {
    w.greater(s, w.splat_bits(0))
}

/// All ones where `a/b < q`: `s < 0` other than `-0`'s bits, i.e. `-s > 0` (the negation
/// of `SIGN_MASK` wraps to itself, which is not positive).
#[inline(always)]
fn below<W: Vector>(w: W, s: W::I) -> W::I {
    w.greater(w.sub(w.splat_bits(0), s), w.splat_bits(0))
}

/// One ulp toward +∞ as a change of the bit pattern of a nonzero finite `q`: `+1` where
/// `q > 0`, `-1` where `q < 0` (the magnitude shrinks).
#[inline(always)]
fn up_step<W: Vector>(w: W, q: W::I) -> W::I {
    w.or(w.sign_fill(q), w.splat_bits(1))
}

/// `a / b` rounded in direction `MODE` ([`NEAREST`] returns `q`), from `q`, a faithful
/// rounding of `a / b`. Exact for lanes whose inputs lie inside the kernel's input window
/// ([`InputCheck::window_of`]); other lanes are meaningless and must be recomputed.
#[inline(always)]
pub fn round_from<W: Vector, const MODE: u8, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::F {
    if MODE == NEAREST {
        return q;
    }
    let s = side::<W, V>(w, a, b, q);
    let qi = w.bits(q);
    let bits = match MODE {
        // Down a step where the exact quotient lies below q.
        DOWN => w.sub(qi, w.and(up_step(w, qi), below(w, s))),
        // Up a step where it lies above.
        UP => w.add(qi, w.and(up_step(w, qi), above(w, s))),
        // Toward zero where it lies between zero and q: sign(a/b - q) differs from q's. The
        // magnitude shrinks by one ulp: the bit pattern by one, whatever the sign, so the
        // all-ones lanes of the mask are the step itself.
        _ => {
            let toward = below(w, w.xor(s, w.and(qi, w.splat_bits(SIGN_MASK))));
            w.add(qi, toward)
        }
    };
    w.float(bits)
}

/// Both bounds at once: `(RD(a/b), RU(a/b))` from a faithful `q`, with [`round_from`]'s
/// conditions.
#[inline(always)]
pub fn bounds_from<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> (W::F, W::F) {
    let s = side::<W, V>(w, a, b, q);
    let qi = w.bits(q);
    let up = up_step(w, qi);
    let lo = w.sub(qi, w.and(up, below(w, s)));
    let hi = w.add(qi, w.and(up, above(w, s)));
    (w.float(lo), w.float(hi))
}

/// One vector's quotients rounded in direction `MODE`, whatever the lanes hold: the directed
/// step from the divider's quotient inside the input window, `vdivps` under that mode (one
/// `asm!` block) for the vector where a lane lies outside. Bit-identical to `vdivps` with
/// MXCSR's rounding field set to `MODE`, its other bits as they are.
#[inline(always)]
pub fn div_rounded_vector<W: Vector, const MODE: u8, const V: u8>(w: W, a: W::F, b: W::F) -> W::F {
    if MODE == NEAREST {
        return if rounds_to_nearest() {
            w.div(a, b)
        } else {
            w.div_in_mode(a, b, NEAREST)
        };
    }
    let q = w.div(a, b);
    if InputCheck::window_of(w, a, b).all_accepted(w) {
        round_from::<W, MODE, V>(w, a, b, q)
    } else {
        w.div_in_mode(a, b, MODE)
    }
}

/// `(RD(a/b), RU(a/b))` of one vector, whatever the lanes hold (as [`div_rounded_vector`]).
#[inline(always)]
pub fn div_bounds_vector<W: Vector, const V: u8>(w: W, a: W::F, b: W::F) -> (W::F, W::F) {
    let q = w.div(a, b);
    if InputCheck::window_of(w, a, b).all_accepted(w) {
        bounds_from::<W, V>(w, a, b, q)
    } else {
        (w.div_in_mode(a, b, DOWN), w.div_in_mode(a, b, UP))
    }
}

/// Vectors per block: the window check is reduced and branched on once per block.
const BLOCK_VECTORS: usize = 4;

/// After a block with a lane outside the window, this many blocks go straight to the
/// control-word region, doubling with each further failure up to 64 (special-rich data pays
/// one failed block in 64; see `crate::backoff`).
type RegionBackoff = Backoff<1, 64>;

std::thread_local! {
    /// The directed loops' back-off, kept between calls on this thread.
    static BACKOFF: Cell<RegionBackoff> = const { Cell::new(RegionBackoff::CLEAR) };
}

/// The directed loop over a slice, `OUTS` outputs per element: `out[0][i] = RD/RU/RZ(a/b)`
/// for `div_rounded`, or `(out[0][i], out[1][i]) = (RD, RU)` for `div_bounds`. `fast` maps a
/// vector and its quotient to the outputs; `slow` fills the outputs of whole vectors
/// through the control-word region; `vector` does one vector whatever it holds.
///
/// # Safety
/// `a` and `b` readable and every output writable for `len` floats; the outputs overlap
/// neither the inputs nor each other. `slow` is called only with whole vectors inside the
/// slices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn directed_loop<W: Vector, const OUTS: usize>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    len: usize,
    fast: impl Fn(W::F, W::F, W::F) -> [W::F; OUTS],
    slow: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
    vector: impl Fn(W::F, W::F) -> [W::F; OUTS],
) {
    let block = BLOCK_VECTORS * W::LANES;
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut i = 0;
    let mut backoff = RegionBackoff::load(&BACKOFF);
    while i + block <= len {
        if backoff.skip() > 0 {
            let blocks = (backoff.skip() as usize).min((len - i) / block);
            // `blocks` whole blocks from i: inside every slice.
            slow(
                a.wrapping_add(i),
                b.wrapping_add(i),
                at(i),
                blocks * BLOCK_VECTORS,
            );
            backoff.skipped(blocks as u32);
            i += blocks * block;
            continue;
        }
        // SAFETY: i + block <= len: inside both inputs.
        let (x, y): ([W::F; BLOCK_VECTORS], [W::F; BLOCK_VECTORS]) = unsafe {
            (
                super::array_of(w.splat(0.0), |k| w.load(a.add(i + k * W::LANES))),
                super::array_of(w.splat(0.0), |k| w.load(b.add(i + k * W::LANES))),
            )
        };
        let mut check = InputCheck::window_of(w, x[0], y[0]);
        for k in 1..BLOCK_VECTORS {
            check = check.merge(w, InputCheck::window_of(w, x[k], y[k]));
        }
        if check.all_accepted(w) {
            backoff.passed();
            for k in 0..BLOCK_VECTORS {
                let q = w.div(x[k], y[k]);
                for (o, v) in at(i + k * W::LANES).into_iter().zip(fast(x[k], y[k], q)) {
                    // SAFETY: inside every output (i + block <= len).
                    unsafe { w.store(o, v) };
                }
            }
        } else {
            backoff.failed();
            slow(a.wrapping_add(i), b.wrapping_add(i), at(i), BLOCK_VECTORS);
        }
        i += block;
    }
    backoff.store(&BACKOFF);
    // Whole vectors, then the last few lanes padded with 1/1 (inside the window).
    while i < len {
        let n = (len - i).min(W::LANES);
        // SAFETY: n elements from i are inside both inputs and every output.
        unsafe {
            let v = vector(
                w.load_partial(a.add(i), n, 1.0),
                w.load_partial(b.add(i), n, 1.0),
            );
            for (o, v) in at(i).into_iter().zip(v) {
                w.store_partial(o, n, v);
            }
        }
        i += n;
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` (not [`NEAREST`]: `div` is that), for
/// `len` elements.
///
/// # Safety
/// `a` and `b` readable and `out` writable for `len` floats; `out` overlaps neither input.
#[inline(always)]
pub unsafe fn div_rounded_raw<W: Vector, const MODE: u8, const V: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; the region gets whole vectors inside the slices.
    unsafe {
        directed_loop::<W, 1>(
            w,
            a,
            b,
            [out],
            len,
            |x, y, q| [round_from::<W, MODE, V>(w, x, y, q)],
            |x, y, [o], vectors| w.div_in_mode_region::<MODE>(x, y, o, vectors),
            |x, y| [div_rounded_vector::<W, MODE, V>(w, x, y)],
        )
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` for `len` elements, one division.
///
/// # Safety
/// `a` and `b` readable and `lo`, `hi` writable for `len` floats; no output overlaps an
/// input or the other output.
#[inline(always)]
pub unsafe fn div_bounds_raw<W: Vector, const V: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; the region gets whole vectors inside the slices.
    unsafe {
        directed_loop::<W, 2>(
            w,
            a,
            b,
            [lo, hi],
            len,
            |x, y, q| {
                let (l, h) = bounds_from::<W, V>(w, x, y, q);
                [l, h]
            },
            |x, y, [l, h], vectors| {
                w.div_in_mode_region::<DOWN>(x, y, l, vectors);
                w.div_in_mode_region::<UP>(x, y, h, vectors);
            },
            |x, y| {
                let (l, h) = div_bounds_vector::<W, V>(w, x, y);
                [l, h]
            },
        )
    }
}

/// `vdivps` under rounding direction `MODE` over the whole slice, MXCSR set once: how
/// `div_rounded(.., Nearest)` divides where MXCSR holds another mode.
///
/// # Safety
/// `a` and `b` readable and `out` writable for `len` floats; `out` overlaps neither input.
#[inline(always)]
pub unsafe fn div_in_mode_raw<W: Vector, const MODE: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let full = len / W::LANES;
    // SAFETY: `full` whole vectors inside the slices (the caller's guarantee).
    unsafe { w.div_in_mode_region::<MODE>(a, b, out, full) };
    let i = full * W::LANES;
    if i < len {
        let n = len - i;
        // SAFETY: n < LANES elements from i are inside the slices; padded lanes are 1/1.
        unsafe {
            let q = w.div_in_mode(
                w.load_partial(a.add(i), n, 1.0),
                w.load_partial(b.add(i), n, 1.0),
                MODE,
            );
            w.store_partial(out.add(i), n, q);
        }
    }
}
