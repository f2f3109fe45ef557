//! Directed rounding of a quotient from a faithful one and its exact residual, a vector at
//! a time, with no write to MXCSR.
//!
//! Given `q`, a faithful rounding of `a/b` (the divider's quotient under any rounding mode,
//! or the kernel's under round-to-nearest), the residual `r = a - q·b` is exact inside the
//! input window (one FMA; [`crate::kernel_notes`] has the proof), so its sign and the
//! dividend's say on which side of `q` the exact quotient lies: `|a/b| > |q|` where
//! `sign(r)·sign(a) > 0`, and `r` is a zero exactly when `q` is exact. The directed result
//! is `q` or `n`, its neighbour one ulp away on that side; inside the window both are
//! normal, so `n` is `±1` on the bit pattern, and the result is `min(q, n)` (down),
//! `max(q, n)` (up) or the smaller in magnitude (toward zero).
//!
//! Six operations after the divider for one bound, seven for both (FMA, compare, two
//! `psignd`, subtract, min and/or max): the loop is bound by the FP pipes beside `vdivps`,
//! so every operation counts (`fmadiv bench --rounding`, BENCHMARKS "Directed rounding").

use core::cell::Cell;

use super::Vector;
use super::kernel::InputCheck;
use crate::arch::x86_64::mode::{DOWN, NEAREST, UP, rounds_to_nearest};
use crate::backoff::Backoff;

/// The shipped step.
pub const SHIPPED: u8 = 0;
/// Weakened on purpose (for the tests): the residual's sign taken as the side of the exact
/// quotient, the divisor's sign ignored — wrong for negative divisors.
#[cfg(feature = "verify")]
pub const DIVISOR_SIGN_IGNORED: u8 = 1;

/// The bit pattern of `q`'s neighbour on the exact quotient's side, or of `q` itself where
/// `q` is exact: the two candidates of every directed rounding.
#[inline(always)]
fn toward_exact<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::I {
    // r = a - q·b, exact inside the window: a zero (+0, or -0 under round-down) exactly
    // where q is exact.
    let r = w.neg_mul_add(q, b, a);
    // -1 where q is inexact, 0 where it is exact.
    let inexact = w.nonzero(r);
    // The exact quotient lies farther from zero than q where sign(r)·sign(a) > 0: a/b - q
    // = r/b, and q has the sign of a/b, which is sign(a)·sign(b).
    #[cfg(feature = "verify")]
    let a = if V == DIVISOR_SIGN_IGNORED {
        // sign(r)·sign(q): the divisor's sign counted twice, i.e. not at all.
        q
    } else {
        a
    };
    // psignd twice: -1 becomes -sign(r)·sign(a); 0 stays 0.
    let step = w.sign_by(w.sign_by(inexact, w.bits(r)), w.bits(a));
    // One ulp away from zero (pattern + 1) or toward it (pattern - 1): q and its
    // neighbours are normal inside the window.
    w.sub(w.bits(q), step)
}

/// `a / b` rounded in direction `MODE` ([`NEAREST`] returns `q`), from `q`, a faithful
/// rounding of `a / b`. Exact for lanes whose inputs lie inside the kernel's input window
/// ([`InputCheck::window_of`]); other lanes are meaningless and must be recomputed.
#[inline(always)]
pub fn round_from<W: Vector, const MODE: u8, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::F {
    if MODE == NEAREST {
        return q;
    }
    // The exact quotient lies between q and n (or is q = n): the directed rounding is the
    // lower, the upper, or the smaller in magnitude of the two.
    let n = toward_exact::<W, V>(w, a, b, q);
    match MODE {
        DOWN => w.minimum(q, w.float(n)),
        UP => w.maximum(q, w.float(n)),
        // q and n have the same sign: as signed integers their patterns order by
        // magnitude for positive and negative lanes alike.
        _ => w.float(w.min_signed(w.bits(q), n)),
    }
}

/// Both bounds at once: `(RD(a/b), RU(a/b))` from a faithful `q`, with [`round_from`]'s
/// conditions (the same two candidates as `round_from`'s `DOWN` and `UP`).
#[inline(always)]
pub fn bounds_from<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> (W::F, W::F) {
    let n = w.float(toward_exact::<W, V>(w, a, b, q));
    (w.minimum(q, n), w.maximum(q, n))
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
