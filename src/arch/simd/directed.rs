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
//! That is why slices of [`FLAGGED_FROM_VECTORS`] vectors and more drop the window check of
//! the inputs (about as many operations again) for MXCSR's exception flags, read once per
//! chunk ([`flagged_chunks`]; [`crate::kernel_notes`] has the proof); shorter slices, and
//! MXCSR with flush-to-zero or denormals-are-zero, keep the window check. The flag read also
//! gives the rounding field: where it is not round-down, an exact residual is `+0`, and
//! the chunks run [`round_from_plus_zero`] (five operations for down and up, six for both
//! bounds, five toward zero with a cheaper mix): the compare that finds `-0` goes.

use core::cell::Cell;

use super::Vector;
use super::divider::{floats_to_boundary, past_head};
use super::flagged::{self, ChunkBackoff, flagged_chunks};
use super::kernel::InputCheck;
use crate::arch::x86_64::mode::{
    DENORMALS_ARE_ZERO, DOWN, FLUSH_TO_ZERO, NEAREST, ROUNDING_CONTROL, ROUNDING_CONTROL_SHIFT, UP,
    VOIDING, rounds_to_nearest,
};
use crate::backoff::Backoff;

/// The shipped step.
pub const SHIPPED: u8 = 0;
/// Weakened on purpose (for the tests): the residual's sign taken as the side of the exact
/// quotient, the divisor's sign ignored — wrong for negative divisors.
#[cfg(feature = "verify")]
pub const DIVISOR_SIGN_IGNORED: u8 = 1;
/// Weakened on purpose (for the tests): the shipped step, but the flag-checked chunks keep
/// a chunk that raised the underflow flag — wrong where a quotient underflows inexactly.
#[cfg(feature = "verify")]
pub const UNDERFLOW_IGNORED: u8 = 2;

/// The flags that void a flag-checked chunk of variant `V`.
#[inline(always)]
const fn voiding<const V: u8>() -> u32 {
    #[cfg(feature = "verify")]
    if V == UNDERFLOW_IGNORED {
        return VOIDING & !crate::arch::x86_64::mode::UNDERFLOW;
    }
    VOIDING
}

/// The operand whose sign the side test takes for the dividend's: `a`, or `q` in the
/// weakened variant (sign(r)·sign(q): the divisor's sign counted twice, i.e. not at all).
#[inline(always)]
fn dividend_or_weakened<W: Vector, const V: u8>(a: W::F, q: W::F) -> W::F {
    #[cfg(feature = "verify")]
    if V == DIVISOR_SIGN_IGNORED {
        return q;
    }
    let _ = q;
    a
}

/// The bit pattern of `q`'s neighbour on the exact quotient's side, or of `q` itself where
/// `q` is exact: the two candidates of every directed rounding.
#[inline(always)]
fn toward_exact<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::I {
    // r = a - q·b, exact inside the window: a zero (+0, or -0 under round-down) exactly
    // where q is exact.
    let r = w.neg_mul_add(q, b, a);
    // The exact quotient lies farther from zero than q where sign(r)·sign(a) > 0: a/b - q
    // = r/b, and q has the sign of a/b, which is sign(a)·sign(b). One ulp away from zero
    // (pattern + 1) or toward it (pattern - 1): q and its neighbours are normal inside the
    // window.
    w.step_by_signs(w.bits(q), r, dividend_or_weakened::<W, V>(a, q))
}

/// [`toward_exact`] where an exact residual is `+0`: wherever MXCSR does not round down (an
/// exact zero sum is `-0` only under round-down), so a width may skip the compare with zero
/// (AVX2 does). The same bits as `toward_exact` for every `r` but `-0`: both are
/// `q + sign(r)·sign(a)` on the pattern.
#[inline(always)]
fn toward_exact_plus_zero<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> W::I {
    let r = w.neg_mul_add(q, b, a);
    w.step_by_signs_plus_zero(w.bits(q), r, dividend_or_weakened::<W, V>(a, q))
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

/// [`round_from`] where an exact residual is `+0`, i.e. where MXCSR does not round down
/// (the flag-checked chunks read it): one operation fewer. The same bits as `round_from`
/// inside the window there (see `toward_exact_plus_zero`); outside it, a NaN quotient
/// raises invalid (`min`, `max`, or the signaling compare toward zero), as the flag-checked
/// chunks need.
#[inline(always)]
pub fn round_from_plus_zero<W: Vector, const MODE: u8, const V: u8>(
    w: W,
    a: W::F,
    b: W::F,
    q: W::F,
) -> W::F {
    match MODE {
        NEAREST => q,
        DOWN => w.minimum(q, w.float(toward_exact_plus_zero::<W, V>(w, a, b, q))),
        UP => w.maximum(q, w.float(toward_exact_plus_zero::<W, V>(w, a, b, q))),
        // One ulp toward zero (pattern - 1) where the exact quotient lies nearer zero than
        // q, i.e. where r·sign(a) < 0: r with a's sign bit flipped in, compared with zero.
        // The compare signals: a NaN `q` (and so `r`) raises invalid, which voids the chunk
        // (no `min`/`max` here to raise it).
        _ => {
            let r = w.neg_mul_add(q, b, a);
            let a = dividend_or_weakened::<W, V>(a, q);
            let sign_of_a = w.and(w.bits(a), w.splat_bits(crate::bits::SIGN_MASK));
            let nearer_zero = w.negative_signaling(w.float(w.xor(w.bits(r), sign_of_a)));
            let nearer_zero = w.mask_lanes(nearer_zero);
            w.float(w.add(w.bits(q), nearer_zero))
        }
    }
}

/// Both bounds at once: `(RD(a/b), RU(a/b))` from a faithful `q`, with [`round_from`]'s
/// conditions (the same two candidates as `round_from`'s `DOWN` and `UP`).
#[inline(always)]
pub fn bounds_from<W: Vector, const V: u8>(w: W, a: W::F, b: W::F, q: W::F) -> (W::F, W::F) {
    let n = w.float(toward_exact::<W, V>(w, a, b, q));
    (w.minimum(q, n), w.maximum(q, n))
}

/// [`bounds_from`] where an exact residual is `+0` (as [`round_from_plus_zero`]).
#[inline(always)]
pub fn bounds_from_plus_zero<W: Vector, const V: u8>(
    w: W,
    a: W::F,
    b: W::F,
    q: W::F,
) -> (W::F, W::F) {
    let n = w.float(toward_exact_plus_zero::<W, V>(w, a, b, q));
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
pub const BLOCK_VECTORS: usize = 4;

/// After a block with a lane outside the window, this many blocks go straight to the
/// control-word region (the failing block's own, as far as the slice goes), doubling with
/// each further failure up to 64 (special-rich data pays one failed block in 64; see
/// `crate::backoff`).
pub type RegionBackoff = Backoff<1, 64>;

std::thread_local! {
    /// The directed loops' back-off, kept between calls on this thread.
    static BACKOFF: Cell<RegionBackoff> = const { Cell::new(RegionBackoff::CLEAR) };
}

/// Slices of at least this many vectors take [`flagged_chunks`] (where MXCSR flushes and
/// zeroes nothing); shorter ones the window-checked blocks. Of the public functions only
/// `div_bounds` gets here: `div_rounded` runs one pass under the mode from
/// [`ONE_PASS_FROM`] elements, no more than this, so its chunks run only in the forced loop
/// of `fmadiv::verify::div_rounded_with` (the tests reach them there). A flag-checked call
/// reads MXCSR twice (`stmxcsr` waits for every operation in flight, the caller's
/// included), which the window check's six operations a vector pay for from a few hundred
/// elements. On family 0x19 model 0x1 (best of 40,000 calls of `div_bounds` and
/// `div_rounded` each way) the flags measured 0.23–0.25 ns per element at 512 against
/// 0.25–0.29 with the window check, level at 256 and 128; from 1K they gain a quarter
/// (BENCHMARKS, "Directed rounding"). On model 0x11, five alternating rounds of `fmadiv
/// bench --rounding` (`docs/bench/0x19-0x11-flagged-from-ab.txt`), `div_bounds` at 256
/// elements went from 0.80 to 0.97 of two plain divider passes with the chunks from 256,
/// and stayed at 0.78–0.79 at 128 with them from 128: so 32 vectors, 256 elements at eight
/// lanes. At sixteen lanes that is 512 elements, where the chunks started before (not
/// measured there).
pub const FLAGGED_FROM_VECTORS: usize = 32;

/// [`FLAGGED_FROM_VECTORS`] in elements at `W`'s width.
#[inline(always)]
pub const fn flagged_from<W: Vector>() -> usize {
    FLAGGED_FROM_VECTORS * W::LANES
}
/// Slices of at least this many elements (at `lanes` lanes) begin with the head to the first
/// output's cache line, where the width aligns its stores: [`flagged_from`] elements and
/// more remain after it, so the flag-checked chunks still run. Shorter slices take none:
/// there the head and the tail it leaves (vectors one at a time, each window-checked) cost
/// more than the split stores save. On family 0x19 model 0x11, `div_bounds` at sixteen
/// lanes with every array 16 bytes past a line (`examples/bounds_past_line.rs`, medians of
/// seven alternating processes, `docs/bench/0x19-0x11-bounds-past-line.txt`): with a head
/// at every length 21.6 ns at 64 elements and 101 at 512 where the loop without one took
/// 15.8 and 84; from here 17.2 and 88 (the loop's other code still cost a few per cent
/// there, on a line too: 15.7 against 14.8 at 64, until the loops with and without the head
/// became two entry points: 14.4 ns, `docs/bench/0x19-0x11-bounds-eight-lane-head.txt`),
/// and 123, 299 and 589 ns at 768, 2048 and 4096 against 131, 308 and 650 without a head.
pub const fn head_from(lanes: usize) -> usize {
    (FLAGGED_FROM_VECTORS + 1) * lanes
}

/// How `div_bounds` runs on one CPU, as its family's record says (`crate::dispatch`): the
/// thresholds its entry points take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundsForm {
    /// With embedded rounding, two divider passes from this many elements
    /// ([`TWO_PASSES_FROM`]; `usize::MAX`: the step at every length).
    pub two_passes_from: usize,
    /// At a width that does not align its stores ([`Vector::ALIGNS_STORES`] false: eight
    /// lanes), the step loop begins with the head to the lower bounds' first vector boundary
    /// from this many elements (`usize::MAX`: never), its head and tail whole vectors
    /// overlapping the blocks beside them ([`directed_loop`]). A width that aligns its
    /// stores takes its head from [`head_from`] whatever this says.
    pub eight_lane_head_from: usize,
    /// Below how many elements the step loop keeps the window check where the caller's
    /// MXCSR holds a flag that voids a flag-checked chunk ([`VOIDING`]: sticky, so a
    /// program that once underflowed holds it): the chunks would clear the flags before
    /// their first read and put them back after, two MXCSR writes a call, which a long
    /// slice repays. MXCSR is read where the chunks would start, so a flag the head to the
    /// output's vector boundary raised counts as held. 0: the chunks whatever the caller
    /// holds.
    pub window_if_flags_held_below: usize,
}

impl BoundsForm {
    /// The form of a CPU with no record: two passes from [`TWO_PASSES_FROM`] with embedded
    /// rounding, no head at eight lanes, the chunks whatever flags the caller holds (on Zen
    /// 3, which has none, the window check ran 0.68-0.85x the chunks from 512 elements with
    /// the underflow flag held: `docs/bench/0x19-held-flags.txt`).
    pub const DEFAULT: BoundsForm = BoundsForm {
        two_passes_from: TWO_PASSES_FROM,
        eight_lane_head_from: usize::MAX,
        window_if_flags_held_below: 0,
    };

    /// From how many elements the step loop at `W`'s width takes its head.
    #[inline(always)]
    pub const fn head_from<W: Vector>(self) -> usize {
        match W::ALIGNS_STORES {
            true => head_from(W::LANES),
            false => self.eight_lane_head_from,
        }
    }
}

/// Whether a directed loop at `W`'s width over `len` elements takes the head to its first
/// output's vector boundary, where heads are taken from `head_from` elements (`usize::MAX`:
/// never, which a constant folds away).
#[inline(always)]
pub const fn takes_head<W: Vector>(len: usize, head_from: usize) -> bool {
    head_from != usize::MAX && len >= head_from && len >= W::LANES
}

/// From how many elements `div_rounded`'s step loop takes its head: where the width aligns
/// its stores, as `div_bounds`' ([`head_from`]); at eight lanes never (the loop runs below
/// [`ONE_PASS_FROM`] elements only, outside the `verify` door's forced loop).
#[inline(always)]
pub const fn rounded_head_from<W: Vector>() -> usize {
    BoundsForm::DEFAULT.head_from::<W>()
}

/// The elements before `out`'s first boundary of a vector of `W` (fewer than a vector; 0 on
/// one), at most `len`: where a directed loop's head ends, so that every whole store of the
/// first output after it lies inside one line (a line holds one sixteen-lane vector, two
/// eight-lane ones).
#[inline(always)]
fn vector_head_len<W: Vector>(out: *const f32, len: usize) -> usize {
    floats_to_boundary(out, W::LANES * 4).min(len)
}

std::thread_local! {
    /// The flag-checked chunks' back-off, kept between calls on this thread (see
    /// [`flagged::flagged_chunks`]).
    static CHUNK_BACKOFF: Cell<ChunkBackoff> = const { Cell::new(ChunkBackoff::CLEAR) };
}

/// The directed loop over a slice, `OUTS` outputs per element: `out[0][i] = RD/RU/RZ(a/b)`
/// for `div_rounded`, or `(out[0][i], out[1][i]) = (RD, RU)` for `div_bounds`. `fast` maps
/// a vector and its quotient to the outputs, `fast_plus_zero` the same where an exact
/// residual is `+0` (the flag-checked chunks know it from MXCSR's rounding field); `slow`
/// fills the outputs of whole vectors through the control-word region; `vector` does one
/// vector whatever it holds (the head to the first output's vector boundary, from
/// [`takes_head`] elements, as `HEAD` says; and the tail): the blocks and chunks start after
/// the head. Below `window_if_flags_held_below` elements, a caller's MXCSR holding a
/// [`VOIDING`] flag sends the slice to the window-checked blocks
/// ([`BoundsForm::window_if_flags_held_below`]). The backends have an entry point for the
/// loop with the head and one for the loop without, so that a slice too short for one runs
/// none of its code (the step loop with a head decided inside it ran `div_bounds` at eight
/// lanes 8-20% slower at 64 elements and 3-7% at 256 on family 0x19 model 0x11, a head
/// taken or not: `docs/bench/0x19-0x11-bounds-eight-lane-head.txt`).
///
/// # Safety
/// `a` and `b` readable and every output writable for `len` floats; the outputs overlap
/// neither the inputs nor each other. `slow` is called only with whole vectors inside the
/// slices. With `HEAD`, `len >= LANES`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn directed_loop<W: Vector, const OUTS: usize, const V: u8, const HEAD: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    len: usize,
    window_if_flags_held_below: usize,
    fast: impl Fn(W::F, W::F, W::F) -> [W::F; OUTS],
    fast_plus_zero: impl Fn(W::F, W::F, W::F) -> [W::F; OUTS],
    slow: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
    vector: impl Fn(W::F, W::F) -> [W::F; OUTS] + Copy,
) {
    // Whether a held voiding flag sends the slice (its whole length) to the window check.
    let window_if_held = len < window_if_flags_held_below;
    // The elements before the first output's next vector boundary first, where the slice
    // is long enough (`HEAD`): then no whole store of the first output splits a line
    // (nor of the second, `div_bounds`' upper bounds, where it lies as the first does:
    // vectors of one length from one allocator usually do). At sixteen lanes one masked
    // partial vector; at eight one whole vector from the start, its lanes past the head
    // done again by the first block (`vmaskmovps` stores are slow on AMD, and the outputs
    // overlap no input: a lane written twice gets the same bits).
    let head = match HEAD {
        true => vector_head_len::<W>(out[0], len),
        false => 0,
    };
    // At eight lanes with the head, the tail too is whole vectors.
    let whole_ends = HEAD && !W::ALIGNS_STORES;
    if whole_ends && head > 0 {
        // SAFETY: with a head, len >= LANES: one vector from 0 is inside every slice.
        unsafe { overlapping_vector(w, a, b, out, 0, vector) };
    } else if head > 0 {
        // SAFETY: head <= len; the caller's guarantees.
        unsafe { vector_by_vector(w, a, b, out, 0, head, vector) };
    }
    let ([a, b], out, len) = past_head([a, b], out, len, head);
    let block = BLOCK_VECTORS * W::LANES;
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut i = 0;
    if len >= flagged_from::<W>() {
        let (mut x, mut y) = (a, b);
        let callers = flagged::read_fenced(&mut x, &mut y);
        // Flush-to-zero and denormals-are-zero void the proof; a held voiding flag, below
        // the form's length, costs more to clear and put back than the window check.
        let window_only = match window_if_held {
            true => FLUSH_TO_ZERO | DENORMALS_ARE_ZERO | VOIDING,
            false => FLUSH_TO_ZERO | DENORMALS_ARE_ZERO,
        };
        if callers & window_only == 0 {
            // An exact zero sum is -0 only under round-down: elsewhere the cheaper step.
            let rounds_down =
                callers & ROUNDING_CONTROL == u32::from(DOWN) << ROUNDING_CONTROL_SHIFT;
            /// The chunks with the step `$step` (the two steps' closures differ in type).
            macro_rules! chunks_with {
                ($step:ident) => {
                    flagged_chunks(
                        w,
                        (x, y),
                        out,
                        len,
                        Some(callers),
                        voiding::<V>(),
                        &CHUNK_BACKOFF,
                        #[inline(always)]
                        |x, y| $step(x, y, w.div(x, y)),
                        &slow,
                    )
                };
            }
            // SAFETY: the caller's guarantees, which `flagged_chunks` asks for.
            i = unsafe {
                match rounds_down {
                    true => chunks_with!(fast),
                    false => chunks_with!(fast_plus_zero),
                }
            };
        }
    }
    let mut backoff = RegionBackoff::load(&BACKOFF);
    while i + block <= len {
        // Blocks from i to go to `slow`: a failing one, then the back-off's.
        let mut failed = 0;
        if backoff.skip() == 0 {
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
                i += block;
                continue;
            }
            backoff.failed();
            failed = 1;
        }
        // A failing block and the back-off's blocks after it in one region: one MXCSR write
        // and restore (per bound) for them all, not one for the block and one for the rest.
        let skipped = (backoff.skip() as usize).min((len - i) / block - failed);
        // skipped <= skip, a u32.
        backoff.skipped(skipped as u32);
        let blocks = failed + skipped;
        // `blocks` whole blocks from i: inside every slice.
        slow(
            a.wrapping_add(i),
            b.wrapping_add(i),
            at(i),
            blocks * BLOCK_VECTORS,
        );
        i += blocks * block;
    }
    backoff.store(&BACKOFF);
    if whole_ends && len >= W::LANES {
        // The tail as the head: whole vectors, the last ending at the slice's end.
        while i + W::LANES <= len {
            // SAFETY: i + LANES <= len; the caller's guarantees.
            unsafe { overlapping_vector(w, a, b, out, i, vector) };
            i += W::LANES;
        }
        if i < len {
            // SAFETY: LANES <= len: one vector ending at len is inside every slice.
            unsafe { overlapping_vector(w, a, b, out, len - W::LANES, vector) };
        }
        return;
    }
    // SAFETY: i <= len; the caller's guarantees.
    unsafe { vector_by_vector(w, a, b, out, i, len, vector) }
}

/// One whole vector from `at` by `vector`: a head or tail of the eight-lane directed loops,
/// which may overlap lanes the loop divides (again) beside it.
///
/// # Safety
/// `a` and `b` readable and every output writable for `LANES` floats from `at`.
#[inline(always)]
unsafe fn overlapping_vector<W: Vector, const OUTS: usize>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    at: usize,
    vector: impl Fn(W::F, W::F) -> [W::F; OUTS],
) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let v = vector(w.load(a.add(at)), w.load(b.add(at)));
        for (o, v) in out.into_iter().zip(v) {
            w.store(o.add(at), v);
        }
    }
}

/// Elements `from..len` one vector at a time by `vector` (which takes any lanes), the last
/// few lanes padded with 1/1 (inside the window): the directed loops' tails.
///
/// # Safety
/// `from <= len`; `a` and `b` readable and every output writable for `len` floats.
#[inline(always)]
pub(super) unsafe fn vector_by_vector<W: Vector, const OUTS: usize>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    from: usize,
    len: usize,
    vector: impl Fn(W::F, W::F) -> [W::F; OUTS],
) {
    let mut i = from;
    while i < len {
        let n = (len - i).min(W::LANES);
        // SAFETY: n elements from i are inside both inputs and every output.
        unsafe {
            let v = vector(
                w.load_partial(a.add(i), n, 1.0),
                w.load_partial(b.add(i), n, 1.0),
            );
            for (o, v) in out.map(|o| o.add(i)).into_iter().zip(v) {
                w.store_partial(o, n, v);
            }
        }
        i += n;
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` (not [`NEAREST`]: `div` is that), for
/// `len` elements; the loop with the head to the output's vector boundary where `HEAD`
/// ([`takes_head`] from [`rounded_head_from`]).
///
/// # Safety
/// `a` and `b` readable and `out` writable for `len` floats; `out` overlaps neither input.
/// With `HEAD`, `len >= LANES`.
#[inline(always)]
pub unsafe fn div_rounded_raw<W: Vector, const MODE: u8, const V: u8, const HEAD: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; the region gets whole vectors inside the slices.
    unsafe {
        directed_loop::<W, 1, V, HEAD>(
            w,
            a,
            b,
            [out],
            len,
            BoundsForm::DEFAULT.window_if_flags_held_below,
            #[inline(always)]
            |x, y, q| [round_from::<W, MODE, V>(w, x, y, q)],
            #[inline(always)]
            |x, y, q| [round_from_plus_zero::<W, MODE, V>(w, x, y, q)],
            #[inline(always)]
            |x, y, [o], vectors| w.div_in_mode_region::<MODE>(x, y, o, vectors),
            #[inline(always)]
            |x, y| [div_rounded_vector::<W, MODE, V>(w, x, y)],
        )
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` for `len` elements: one division
/// and the directed step, or (with embedded rounding, from `form.two_passes_from` elements;
/// `form` the CPU's [`BoundsForm`] as the caller looks it up) two divider passes, one per
/// direction. The step loop with the head to the lower bounds' vector boundary where `HEAD`
/// ([`takes_head`] from the form's [`BoundsForm::head_from`]), and with the window check
/// where the caller holds a voiding flag below [`BoundsForm::window_if_flags_held_below`]
/// elements.
///
/// # Safety
/// `a` and `b` readable and `lo`, `hi` writable for `len` floats; no output overlaps an
/// input or the other output. With `HEAD`, `len >= LANES`.
#[inline(always)]
pub unsafe fn div_bounds_raw<W: Vector, const V: u8, const HEAD: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
    form: BoundsForm,
) {
    if W::EMBEDDED_ROUNDING && len >= form.two_passes_from {
        // SAFETY: the caller's guarantees.
        unsafe {
            div_in_mode_raw::<W, DOWN>(w, a, b, lo, len);
            div_in_mode_raw::<W, UP>(w, a, b, hi, len);
        }
        return;
    }
    // SAFETY: the caller's guarantees; the region gets whole vectors inside the slices.
    unsafe {
        directed_loop::<W, 2, V, HEAD>(
            w,
            a,
            b,
            [lo, hi],
            len,
            form.window_if_flags_held_below,
            #[inline(always)]
            |x, y, q| {
                let (l, h) = bounds_from::<W, V>(w, x, y, q);
                [l, h]
            },
            #[inline(always)]
            |x, y, q| {
                let (l, h) = bounds_from_plus_zero::<W, V>(w, x, y, q);
                [l, h]
            },
            #[inline(always)]
            |x, y, [l, h], vectors| {
                w.div_in_mode_region::<DOWN>(x, y, l, vectors);
                w.div_in_mode_region::<UP>(x, y, h, vectors);
            },
            #[inline(always)]
            |x, y| {
                let (l, h) = div_bounds_vector::<W, V>(w, x, y);
                [l, h]
            },
        )
    }
}

/// `vdivps` rounded in direction `MODE` over the whole slice: with embedded rounding the
/// divider loop's shape ([`super::divider::divider_in_mode`]: MXCSR untouched); otherwise
/// MXCSR set once, the last few lanes by [`div_rounded_vector`]. How
/// `div_rounded(.., Nearest)` divides where MXCSR holds another mode, and `div_rounded` in
/// a directed mode where [`one_pass`] says so.
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
    if W::EMBEDDED_ROUNDING {
        // SAFETY: the caller's guarantees.
        return unsafe { super::divider::divider_in_mode::<W, MODE>(w, a, b, out, len) };
    }
    let full = len / W::LANES;
    // SAFETY: `full` whole vectors inside the slices (the caller's guarantee).
    unsafe { w.div_in_mode_region::<MODE>(a, b, out, full) };
    let i = full * W::LANES;
    if i < len {
        let n = len - i;
        // SAFETY: n < LANES elements from i are inside the slices; padded lanes are 1/1.
        unsafe {
            let (x, y) = (
                w.load_partial(a.add(i), n, 1.0),
                w.load_partial(b.add(i), n, 1.0),
            );
            // The directed step where the lanes allow: no second MXCSR write.
            let q = div_rounded_vector::<W, MODE, SHIPPED>(w, x, y);
            w.store_partial(out.add(i), n, q);
        }
    }
}

/// Slices this long and longer are rounded by one divider pass under the mode
/// ([`div_in_mode_raw`]) rather than the directed step, where the direction costs an MXCSR
/// write (and the `stmxcsr` that keeps the pass's flags, which waits for its last division).
/// Measured on family 0x19 against the build with the step at every size, three
/// alternating rounds each (`scripts/rounding_ab.py`, `docs/bench/0x19-rounding-one-pass-ab.txt`),
/// as fractions of a plain divider pass's speed (median of the rounds): 0.40 → 0.66 at 256,
/// 0.58 → 0.74 at 512, 0.79 → 0.83 at 1K, 0.82 → 0.91 at 4K, 0.91 → 0.94 at 16K
/// (round-down; the same pair run before gave 0.77 → 0.94 at 1K); at 128 the two were level
/// (0.42 and 0.46, and 0.44 and 0.42 before), below it the step. On family 6 model 0xcf the
/// step measured 0.91× a pass at 1K–16K (BENCHMARKS, "Directed rounding").
pub const ONE_PASS_FROM: usize = 256;

/// With embedded rounding, `div_bounds` from this many elements runs two divider passes
/// instead of one division and the step: on family 6 model 0xcf a 512-bit sketch of the
/// step ran at 1.72–1.75× two embedded-rounding passes at 256–1K but 0.72–0.87× at 4K–64K
/// (the cause not found). On family 0x19 model 0x11 (Zen 4, where `div_bounds` keeps eight
/// lanes by default) the shipped step, its move a masked add, measured 1.46-1.50x two passes
/// at 4K-16K, where the passes run at 0.99x (`docs/bench/0x19-0x11-masked-step-ab.txt`), and
/// on family 6 model 0xcf itself, natively, 1.69-1.79x at 4K-16K
/// (`docs/bench/0x6-0xcf-bounds-step-only-ab.txt`): both records take the step at every
/// length, and the threshold is what a family without a record runs.
pub const TWO_PASSES_FROM: usize = 4096;

/// Whether `div_rounded` over `len` elements runs one divider pass under the mode (see
/// [`ONE_PASS_FROM`]): always with embedded rounding, where the pass costs what a plain
/// division does and the step's six operations are pure overhead.
#[inline(always)]
pub const fn one_pass<W: Vector>(len: usize) -> bool {
    W::EMBEDDED_ROUNDING || len >= ONE_PASS_FROM
}
