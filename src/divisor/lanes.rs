//! A [`super::Divisor`]'s lane-checked loops, written once over one vector width
//! ([`Vector`]): the strategy's FMA sequence on every vector, a range check of each
//! quotient, and the divider for the lanes the check flags; and the divider's own loop.
//! Where the width aligns its stores ([`Vector::ALIGNS_STORES`]), each loop over at least
//! `LINE_HEAD_FROM` elements first divides the elements before the output's next cache line
//! as one partial vector ([`line_head`]);
//! at eight lanes the flag-checked two products divide those before its next vector
//! boundary as one whole vector ([`head_disjoint`]), the other loops none.
//!
//! Every function is `#[inline(always)]` and generic; `divisor::x86`'s `#[target_feature]`
//! functions inline them, so they are compiled for the backend's instructions.

use super::{Proven, Strategy};
use crate::arch::simd::divider::{floats_to_boundary, line_head_len};
use crate::arch::simd::{Vector, array_of};
use crate::backoff::Backoff;
use crate::bits::{ABS_MASK, QUOTIENT_MAX_BITS, SIGN_MASK};

/// Strategies as const parameters, so each gets its own tight loop.
const RECIPROCAL: u8 = 0;
/// The two-products sequence (also run, checked by flags, by `super::flagged`).
pub(super) const TWO_PRODUCTS: u8 = 1;
const MARKSTEIN: u8 = 2;
const HARDWARE: u8 = 3;

/// Vectors per block of the lane-checked loop: one combined check per block, as the check
/// and its branch cost as much as the two-operation sequence itself.
pub(super) const UNROLL: usize = 4;

/// The lane-checked loop's back-off, in blocks: after a block with flagged lanes in two or
/// more of its vectors, 1, 2, 4 … 64 blocks go straight to the divider.
pub(super) type LanesBackoff = Backoff<1, 64>;

std::thread_local! {
    /// The lane-checked loop's back-off, kept between calls on this thread.
    static LANES_BACKOFF: core::cell::Cell<LanesBackoff> =
        const { core::cell::Cell::new(LanesBackoff::CLEAR) };
}

/// The divisor's constants, broadcast.
#[derive(Clone, Copy)]
struct Consts<W: Vector> {
    b: W::F,
    zh: W::F,
    zl: W::F,
    /// `i32::MIN - min_quotient_bits`, for the one-compare range check.
    offset: W::I,
    /// `i32::MIN + (QUOTIENT_MAX - min_quotient_bits)`.
    limit: W::I,
}

impl<W: Vector> Consts<W> {
    #[inline(always)]
    fn of(w: W, d: &Proven) -> Consts<W> {
        Consts {
            b: w.splat(d.b),
            zh: w.splat(d.zh),
            zl: w.splat(d.zl),
            // Wrapping: the range check compares as signed integers shifted by i32::MIN.
            offset: w.splat_bits((i32::MIN as u32).wrapping_sub(d.min_quotient_bits)),
            limit: w.splat_bits(
                (i32::MIN as u32).wrapping_add(QUOTIENT_MAX_BITS.wrapping_sub(d.min_quotient_bits)),
            ),
        }
    }
}

/// The strategy's FMA sequence for one vector of dividends.
#[inline(always)]
fn sequence<W: Vector, const S: u8>(w: W, d: Consts<W>, a: W::F) -> W::F {
    match S {
        RECIPROCAL => w.mul(a, d.zh),
        TWO_PRODUCTS => w.mul_add(a, d.zh, w.mul(a, d.zl)),
        MARKSTEIN => {
            let q = w.mul(a, d.zh);
            let r = w.neg_mul_add(q, d.b, a);
            w.mul_add(r, d.zh, q)
        }
        _ => w.div(a, d.b),
    }
}

/// One vector's quotients by the strategy's sequence, and the mask of lanes it cannot
/// guarantee.
#[inline(always)]
fn fast<W: Vector, const S: u8>(w: W, d: Consts<W>, a: W::F) -> (W::F, W::M) {
    let q = sequence::<W, S>(w, d, a);
    let bad = match S {
        // Exact for every input.
        RECIPROCAL | HARDWARE => w.no_lanes(),
        // |q| in [min_quotient, MAX] as one signed compare (as in the kernel). Infinite
        // results are not trusted: a·zl itself overflows when |a/b| is far above MAX, and
        // fma(a, zh, ±inf) then has the sign of a·zl.
        _ => {
            let abs = w.and(w.bits(q), w.splat_bits(ABS_MASK));
            w.greater(w.add(abs, d.offset), d.limit)
        }
    };
    (q, bad)
}

/// One vector's quotients, exact: the flagged lanes from the divider.
#[inline(always)]
fn divide_one<W: Vector, const S: u8>(w: W, d: Consts<W>, a: W::F) -> W::F {
    let (q, bad) = fast::<W, S>(w, d, a);
    if w.any(bad) {
        w.blend(q, w.div(a, d.b), bad)
    } else {
        q
    }
}

/// `vectors` vectors from element `i` on the divider alone, each loaded, divided and
/// stored in turn.
///
/// # Safety
/// `a` readable and `out` writable for `i + vectors * LANES` floats; `out` is `a` or does
/// not overlap it.
#[inline(always)]
unsafe fn divider_vectors<W: Vector>(
    w: W,
    b: W::F,
    a: *const f32,
    out: *mut f32,
    i: usize,
    vectors: usize,
) {
    for v in 0..vectors {
        let j = i + v * W::LANES;
        // SAFETY: j + LANES <= i + vectors·LANES: inside both slices; each vector is loaded
        // before its quotient is stored.
        unsafe { w.store(out.add(j), w.div(w.load(a.add(j)), b)) };
    }
}

/// Stores a block whose check flagged some lanes, again from its dividends in memory (the
/// run that found it kept only the merged mask: at eight lanes its dividends and each
/// vector's mask would not fit in the registers beside the quotients and the constants),
/// the flagged vectors' quotients from the divider (out of line: the hot loop keeps a small
/// body). Returns how many vectors had flagged lanes.
///
/// # Safety
/// `a` readable and `out` writable for `UNROLL` vectors; `out` is `a` or does not overlap
/// it, and nothing of the block is stored yet.
#[inline(always)]
unsafe fn fix_block<W: Vector, const S: u8>(
    w: W,
    consts: Consts<W>,
    a: *const f32,
    out: *mut f32,
) -> usize {
    w.cold(
        #[inline(always)]
        move || {
            let mut flagged = 0;
            for k in 0..UNROLL {
                // SAFETY: inside the block (the caller's guarantee); each vector is loaded
                // before its quotients are stored.
                unsafe {
                    let x = w.load(a.add(k * W::LANES));
                    let (q, bad) = fast::<W, S>(w, consts, x);
                    let q = if w.any(bad) {
                        flagged += 1;
                        w.blend(q, w.div(x, consts.b), bad)
                    } else {
                        q
                    };
                    w.store(out.add(k * W::LANES), q);
                }
            }
            flagged
        },
    )
}

/// Blocks of [`divide_loop`] from element `i` to `blocks_end` while the check flags no lane:
/// a loop with no call in it, which keeps only the quotients, the merged mask and the
/// constants in registers (with the slow paths' calls and each vector's dividends and mask
/// kept for them, the compiler reloaded the eight-lane loop's constants from the stack every
/// block). Returns where the run stopped, and whether the block there had flagged lanes
/// (nothing of it stored).
///
/// # Safety
/// `a` readable and `out` writable up to `blocks_end`, a whole number of blocks from `i`;
/// `out` is `a` or does not overlap it.
#[inline(always)]
unsafe fn sequence_run<W: Vector, const S: u8>(
    w: W,
    consts: Consts<W>,
    a: *const f32,
    out: *mut f32,
    mut i: usize,
    blocks_end: usize,
) -> (usize, bool) {
    while i < blocks_end {
        // SAFETY: i + block <= blocks_end: inside both slices; unaligned access is allowed;
        // the block is loaded before anything of it is stored.
        unsafe {
            let mut flagged = w.no_lanes();
            let q: [W::F; UNROLL] = array_of(
                w.splat(0.0),
                #[inline(always)]
                |k| {
                    let (q, bad) = fast::<W, S>(w, consts, w.load(a.add(i + k * W::LANES)));
                    flagged = w.mask_or(flagged, bad);
                    q
                },
            );
            if w.any(flagged) {
                return (i, true);
            }
            for (k, &q) in q.iter().enumerate() {
                w.store(out.add(i + k * W::LANES), q);
            }
        }
        i += UNROLL * W::LANES;
    }
    (i, false)
}

/// Where `W` aligns its stores: the elements of `a` before `out`'s next cache line (all of a
/// shorter slice; fewer than a vector) as one partial vector, padded with `pad`, by
/// `divide`; returns how many (0 elsewhere). Every whole vector stored after them fills one
/// line.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[inline(always)]
pub(super) unsafe fn line_head<W: Vector>(
    w: W,
    a: *const f32,
    out: *mut f32,
    len: usize,
    pad: f32,
    divide: impl Fn(W::F) -> W::F,
) -> usize {
    let head = line_head_len(W::ALIGNS_STORES, out, len);
    if head > 0 {
        // SAFETY: head < LANES elements, inside both slices; the padded lanes are not
        // stored; the vector is loaded before it is stored.
        unsafe { w.store_partial(out, head, divide(w.load_partial(a, head, pad))) };
    }
    head
}

/// The head of a loop whose output overlaps no input, by the divider: where `W` aligns its
/// stores, [`line_head`] (one padded partial vector); at eight lanes the elements of `a`
/// before `out`'s next vector boundary, by one whole vector from the start (`vmaskmovps`
/// stores are slow on AMD), whose lanes past them the loop after divides again, to the same
/// bits and flags (none for a slice shorter than a vector). Returns how many; every whole
/// store after them lies inside one line.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; they do not overlap.
#[inline(always)]
pub(super) unsafe fn head_disjoint<W: Vector>(
    w: W,
    by: W::F,
    a: *const f32,
    out: *mut f32,
    len: usize,
) -> usize {
    if W::ALIGNS_STORES {
        // SAFETY: the caller's guarantees.
        return unsafe { divider_head(w, by, a, out, len) };
    }
    if len < W::LANES {
        return 0;
    }
    let head = floats_to_boundary(out, W::LANES * 4);
    if head > 0 {
        // SAFETY: LANES <= len elements from the start, inside both slices.
        unsafe { w.store(out, w.div(w.load(a), by)) };
    }
    head
}

/// [`line_head`] on the divider, padded with [`FLAGLESS_PAD`]: the head of the divider's
/// loop, of the window-checked loop and, where stores align, of the flag-checked chunks.
///
/// # Safety
/// As [`line_head`].
#[inline(always)]
unsafe fn divider_head<W: Vector>(
    w: W,
    by: W::F,
    a: *const f32,
    out: *mut f32,
    len: usize,
) -> usize {
    // SAFETY: the caller's guarantees.
    unsafe {
        line_head(
            w,
            a,
            out,
            len,
            FLAGLESS_PAD,
            #[inline(always)]
            |x| w.div(x, by),
        )
    }
}

/// The dividend that pads a partial vector for the divider: a quiet NaN over any divisor
/// raises no exception flag (not even divide-by-zero over a zero), so the padded lanes add
/// none to those of the elements (a signaling NaN divisor raises invalid in those too).
pub(super) const FLAGLESS_PAD: f32 = f32::NAN;

/// `out[i] = a[i] / d` by strategy `S`, lane-checked: the head to the output's cache line
/// ([`line_head`]), blocks of [`UNROLL`] vectors with one combined check, single vectors,
/// then the last few lanes padded with 1.0.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` either does not overlap `a` or
/// is `a` itself (every vector is loaded before its quotient is stored).
#[inline(always)]
pub(super) unsafe fn divide_loop<W: Vector, const S: u8>(
    w: W,
    d: &Proven,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    let consts = Consts::of(w, d);
    // The head padded as the tail is, with 1.0. (Every closure here is `#[inline(always)]`:
    // one the inliner leaves out of line is compiled without the backend's features and
    // calls each intrinsic as a function; `scripts/outlined.sh` found this one so in the
    // `fmadiv` tool.)
    // SAFETY: the caller's guarantees.
    let head = unsafe {
        line_head(
            w,
            a,
            out,
            len,
            1.0,
            #[inline(always)]
            |x| divide_one::<W, S>(w, consts, x),
        )
    };
    let block = UNROLL * W::LANES;
    let blocks_end = len - (len - head) % block;
    let mut i = head;
    // Special-rich data (random bit patterns) would pay the sequence, the check and the
    // divider for every block (and microcode assists for subnormal intermediates): after
    // a block with flagged lanes in two or more of its vectors, the following blocks go
    // straight to the divider ([`LanesBackoff`]). A lone special (sparse data) only sends
    // its own vector to the divider.
    let mut backoff = LanesBackoff::load(&LANES_BACKOFF);
    while i < blocks_end {
        if backoff.skip() > 0 {
            let n = (backoff.skip() as usize).min((blocks_end - i) / block);
            // SAFETY: n whole blocks from i, inside both slices.
            w.cold(
                #[inline(always)]
                || unsafe { divider_vectors(w, consts.b, a, out, i, n * UNROLL) },
            );
            i += n * block;
            // n <= skip, a u32.
            backoff.skipped(n as u32);
            continue;
        }
        // SAFETY: whole blocks from i to blocks_end, inside both slices.
        let (end, flagged) = unsafe { sequence_run::<W, S>(w, consts, a, out, i, blocks_end) };
        if end > i {
            backoff.passed();
        }
        i = end;
        if !flagged {
            break;
        }
        // SAFETY: the block at i is inside both slices, nothing of it stored.
        if unsafe { fix_block::<W, S>(w, consts, a.add(i), out.add(i)) } >= 2 {
            backoff.failed();
        }
        i += block;
    }
    backoff.store(&LANES_BACKOFF);
    while i < len {
        let n = (len - i).min(W::LANES);
        // SAFETY: n elements from i are inside both slices; the padded lanes are 1.0 and
        // not stored; the vector is loaded before it is stored.
        unsafe {
            let x = w.load_partial(a.add(i), n, 1.0);
            w.store_partial(out.add(i), n, divide_one::<W, S>(w, consts, x));
        }
        i += n;
    }
}

/// The vector width from which [`windowed`] fixes a rejected block vector by
/// vector, a vector whose dividends outside the window are zeros by the sequence (with the
/// zero-sign repair), not the divider. Narrower, the block goes to the divider whole from
/// the registers it was loaded into: at eight lanes on family 0x19 model 0x1 (Zen 3), in
/// place at 1K-64K, the vector-by-vector path ran 0.31-0.36x the divider loop with 50% zero
/// dividends and 0.55-1.03x with 1%, the whole block 0.89-1.06x and 1.12-1.60x
/// (`examples/divisor_window.rs`, `docs/bench/0x19-divisor-window-zeros.txt`). Zeros by
/// the sequence cost more than a 256-bit division on family 6 model 0xa7 (0.75-0.83x the
/// divider loop, `docs/bench/0x6-0xa7-divisor-window-zeros.txt`).
const BY_VECTOR_FROM_LANES: usize = 16;

/// A divisor's dividend window, broadcast: `|a|` in `lo..=hi` as one signed compare,
/// shifted by `i32::MIN` (as [`Consts`]). Copied, not borrowed, into the cold path's
/// closure, so that it does not pin the constants to the stack (a borrowed capture was
/// reloaded every block).
#[derive(Clone, Copy)]
struct DividendWindow<W: Vector> {
    /// `i32::MIN - lo`.
    offset: W::I,
    /// `i32::MIN + (hi - lo)`.
    limit: W::I,
    abs: W::I,
}

impl<W: Vector> DividendWindow<W> {
    #[inline(always)]
    fn of(w: W, (lo, hi): (u32, u32)) -> DividendWindow<W> {
        DividendWindow {
            // Wrapping: the compare is signed, shifted by i32::MIN.
            offset: w.splat_bits((i32::MIN as u32).wrapping_sub(lo)),
            limit: w.splat_bits((i32::MIN as u32).wrapping_add(hi.wrapping_sub(lo))),
            abs: w.splat_bits(ABS_MASK),
        }
    }

    /// The lanes of `x` outside the window.
    #[inline(always)]
    fn outside(self, w: W, x: W::F) -> W::M {
        w.greater(w.add(w.and(w.bits(x), self.abs), self.offset), self.limit)
    }

    /// [`DividendWindow::outside_but_zeros`] over a block's vectors, as one mask. (A loop,
    /// not an iterator's `fold`: an `#[inline(always)]` closure takes no target features,
    /// and where the `fold` was not inlined the window's intrinsics ran out of line, 16
    /// times slower.)
    #[inline(always)]
    fn outside_but_zeros_in(self, w: W, x: &[W::F]) -> W::M {
        let mut outside = w.no_lanes();
        for &x in x {
            outside = w.mask_or(outside, self.outside_but_zeros(w, x));
        }
        outside
    }

    /// The lanes of `x` outside the window that are not zeros: a zero is told by its bits,
    /// not its value (a subnormal, a zero under DAZ, is not one). Read from
    /// [`BY_VECTOR_FROM_LANES`] lanes only: zeros by the sequence, its repair and the
    /// vector's second check (about 14 operations) cost more than a 256-bit division (family
    /// 6 model 0xa7, 50% zeros, 256-4K: 0.75-0.83x the divider loop at eight lanes,
    /// 1.14-1.30x at sixteen; `docs/bench/0x6-0xa7-divisor-window-zeros.txt`).
    #[inline(always)]
    fn outside_but_zeros(self, w: W, x: W::F) -> W::M {
        let zero = w.equal(w.and(w.bits(x), self.abs), w.splat_bits(0));
        w.mask_and_not(zero, self.outside(w, x))
    }
}

/// The strategy's sequence whose zero quotients take their sign from `RN(a·zh)` by one OR
/// (`a·zh`'s sign is the quotient's, so the OR is a no-op on every other lane). Two
/// products: `RN(a·zl)` may carry the other sign than `a·zh`, and `±0 + ∓0` is `+0`.
/// Markstein's: for `a = -0` over a positive `b` the residual is `+0·b + -0 = +0` and the
/// quotient `+0·zh + -0 = +0`.
#[inline(always)]
fn with_zero_signs<W: Vector, const S: u8>(w: W, d: Consts<W>, x: W::F, sign: W::I) -> W::F {
    let q = sequence::<W, S>(w, d, x);
    w.float(w.or(w.bits(q), w.and(w.bits(w.mul(x, d.zh)), sign)))
}

/// `out[i] = a[i] / d` by two products or Markstein's sequence, its dividends
/// window-checked before the sequence runs ([`super::Proven::dividend_window`]; other
/// strategies by [`divide`]): the head to the output's cache line
/// and the last few lanes on the divider ([`divide_by_divider_in`]), blocks of [`UNROLL`]
/// vectors with one combined check of their dividends. A block with a dividend outside the
/// window goes to the divider whole at eight lanes; at sixteen ([`BY_VECTOR_FROM_LANES`])
/// each of its vectors is checked again: a vector whose dividends outside are all zeros
/// runs the sequence with the zero-sign repair, a vector with any other goes to the
/// divider. The sequence runs only on accepted dividends and zeros, so it raises no flag
/// but inexact, and it reads no flag: the loop for two products' slices shorter than the
/// flag-checked chunks' [`super::flagged::FROM`], for slices divided in place, and, below
/// the plan's length, for a caller who holds the flags the chunks judge by
/// ([`crate::plan::DivisorChoices::window_if_flags_held_below`]); Markstein's slices run it
/// at every length. (Against the quotients'
/// range check of [`divide`], which runs the sequence on every lane and then redoes the
/// flagged ones, it gained 1.29-1.36x at eight lanes on family 6 model 0xa7 at 256-4K,
/// 1.19x at 16K: `docs/bench/0x6-0xa7-divisor-window.txt`.)
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` either does not overlap `a` or
/// is `a` itself (every block is loaded before its quotients are stored).
#[inline(always)]
pub(super) unsafe fn windowed<W: Vector>(
    w: W,
    d: &Proven,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees are the loops'.
    unsafe {
        match d.strategy {
            Strategy::TwoProducts => windowed_loop::<W, TWO_PRODUCTS>(w, d, a, out, len),
            Strategy::Markstein => windowed_loop::<W, MARKSTEIN>(w, d, a, out, len),
            // No window: the reciprocal's loop needs no check, the divider's none.
            _ => divide(w, d, a, out, len),
        }
    }
}

/// [`windowed`] for the sequence `S`.
///
/// # Safety
/// As [`windowed`].
#[inline(always)]
unsafe fn windowed_loop<W: Vector, const S: u8>(
    w: W,
    d: &Proven,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    let consts = Consts::of(w, d);
    let by = consts.b;
    let window = DividendWindow::of(w, d.dividend_window);
    let sign = w.splat_bits(SIGN_MASK);
    // SAFETY: the caller's guarantees.
    let head = unsafe { divider_head(w, by, a, out, len) };
    let block = UNROLL * W::LANES;
    let blocks_end = len - (len - head) % block;
    let mut i = head;
    while i < blocks_end {
        // SAFETY: i + block <= len: inside both slices; every vector is loaded before the
        // block stores anything.
        unsafe {
            let x: [W::F; UNROLL] = array_of(w.splat(0.0), |k| w.load(a.add(i + k * W::LANES)));
            let rejected = x.iter().fold(
                w.no_lanes(),
                #[inline(always)]
                |m, &x| w.mask_or(m, window.outside(w, x)),
            );
            if !w.any(rejected) {
                for (k, &x) in x.iter().enumerate() {
                    // No zero dividend is inside the window.
                    w.store(out.add(i + k * W::LANES), sequence::<W, S>(w, consts, x));
                }
            } else if W::LANES < BY_VECTOR_FROM_LANES {
                // The block on the divider, from the registers it was loaded into.
                for (k, &x) in x.iter().enumerate() {
                    w.store(out.add(i + k * W::LANES), w.div(x, by));
                }
            } else if !w.any(window.outside_but_zeros_in(w, &x)) {
                // Dividends outside that are all zeros: the sequence with the zero-sign
                // repair here, its dividends still in registers (50% zeros: the
                // vector-by-vector path ran 1.14-1.34x the divider loop, family 6 model 0xa7).
                for (k, &x) in x.iter().enumerate() {
                    w.store(
                        out.add(i + k * W::LANES),
                        with_zero_signs::<W, S>(w, consts, x, sign),
                    );
                }
            } else {
                // Vector by vector, from memory again (passing `x` would keep it on the
                // stack): a lone special sends only its own vector to the divider, and
                // zeros send none.
                w.cold(
                    #[inline(always)]
                    move || {
                        for k in 0..UNROLL {
                            let j = i + k * W::LANES;
                            let x = w.load(a.add(j));
                            let q = if w.any(window.outside_but_zeros(w, x)) {
                                w.div(x, by)
                            } else {
                                with_zero_signs::<W, S>(w, consts, x, sign)
                            };
                            w.store(out.add(j), q);
                        }
                    },
                );
            }
        }
        i += block;
    }
    // SAFETY: the elements from i on, inside both slices.
    unsafe { divide_by_divider_in(w, d.b, a.add(i), out.add(i), len - i) };
}

/// `out[i] = a[i] / d` by the divisor's strategy, lane-checked. Inlined into a function
/// compiled for the backend (`divisor::x86`).
///
/// # Safety
/// As [`divide_loop`].
#[inline(always)]
pub(super) unsafe fn divide<W: Vector>(w: W, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees are the loop's.
    unsafe {
        match d.strategy {
            Strategy::Reciprocal => divide_loop::<W, RECIPROCAL>(w, d, a, out, len),
            Strategy::TwoProducts => divide_loop::<W, TWO_PRODUCTS>(w, d, a, out, len),
            Strategy::Markstein => divide_loop::<W, MARKSTEIN>(w, d, a, out, len),
            Strategy::Hardware => divide_loop::<W, HARDWARE>(w, d, a, out, len),
        }
    }
}

/// `out[i] = a[i] / b` on the divider alone, with nothing to set up: the head to the output's
/// cache line ([`line_head`]), then the plain loop, one vector at a time as the loop it must
/// never lose to, then the lanes left over as one vector: at sixteen lanes (where the width
/// aligns its stores, a partial store is one masked store) a partial vector padded as the
/// head; at eight the whole vector ending at the slice's end (`vmaskmovps` stores are slow
/// on AMD), divided before the loop stores anything (so in place too: its dividends are
/// still there) and stored after it, its lanes divided twice getting the same bits and
/// flags. Only a slice shorter than a vector (a flag-checked loop's leftovers) has its last
/// few in scalar. (Timed by length on family 0x19 model 0x11, a scalar tail cost up to 2.5
/// ns at eight lanes and 8 at sixteen: `docs/bench/0x19-0x11-divisor-divider-tail.txt`.
/// Loads grouped ahead of their stores lost 20% to the plain loop where the output lies
/// 128 bytes past the input modulo 4 KiB: a load that seems to alias a store waits for its
/// quotient.)
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[inline(always)]
pub(super) unsafe fn divide_by_divider_in<W: Vector>(
    w: W,
    b: f32,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    let by = w.splat(b);
    // SAFETY: the caller's guarantees.
    let head = unsafe { divider_head(w, by, a, out, len) };
    let full = len - (len - head) % W::LANES;
    let whole_last = !W::ALIGNS_STORES && full < len && len >= W::LANES;
    // SAFETY: with `whole_last`, len >= LANES: the vector ending at len is inside `a`; it is
    // loaded before any store.
    let last = whole_last.then(|| w.div(unsafe { w.load(a.add(len - W::LANES)) }, by));
    // SAFETY: `(full - head) / LANES` whole vectors from `head`, inside both.
    unsafe { divider_vectors(w, by, a, out, head, (full - head) / W::LANES) };
    match last {
        // SAFETY: the vector ending at len, inside `out`.
        Some(q) => unsafe { w.store(out.add(len - W::LANES), q) },
        None if W::ALIGNS_STORES && full < len => {
            let rest = len - full;
            // SAFETY: rest < LANES elements from `full`, inside both slices; the padded
            // lanes are not stored; the vector is loaded before it is stored.
            unsafe {
                let x = w.load_partial(a.add(full), rest, FLAGLESS_PAD);
                w.store_partial(out.add(full), rest, w.div(x, by));
            }
        }
        None => {
            for i in full..len {
                // SAFETY: i < len; `divss` gives the bits of `vdivps` (NaN rules included).
                unsafe { *out.add(i) = *a.add(i) / b };
            }
        }
    }
}

/// One vector's quotients `a / d` by the divisor's strategy, lane-checked. Inlined into a
/// function compiled for the backend (`divisor::x86`).
#[inline(always)]
pub(super) fn divide_vector<W: Vector>(w: W, d: &Proven, a: W::F) -> W::F {
    let consts = Consts::of(w, d);
    match d.strategy {
        Strategy::Reciprocal => divide_one::<W, RECIPROCAL>(w, consts, a),
        Strategy::TwoProducts => divide_one::<W, TWO_PRODUCTS>(w, consts, a),
        Strategy::Markstein => divide_one::<W, MARKSTEIN>(w, consts, a),
        Strategy::Hardware => divide_one::<W, HARDWARE>(w, consts, a),
    }
}
