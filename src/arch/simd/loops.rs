//! The mixed schedules' slice loops over one vector width: blocks of kernel vectors beside
//! divider vectors (the divider's own loops are [`super::divider`]'s).
//!
//! Every function is `#[inline(always)]` and generic over the backend's [`Vector`]; the
//! backend's `#[target_feature]` entry points instantiate them (so the code is compiled for
//! its instructions) and the plan calls those.

use core::cell::Cell;

use super::Vector;
use super::divider::{divider_step, divider_vectors, line_head, load_a, past_head};
#[cfg(feature = "verify")]
use super::kernel::div_vector_of;
use super::kernel::{InputCheck, kernel_quotient};
use crate::backoff::Backoff;

/// Kernel vectors per block: the check is reduced and branched on once per block.
pub const BLOCK_VECTORS: usize = 4;
/// After a kernel block failed its check with a lane outside the input window (a block
/// failed by a near-all-ones divisor alone is redone and costs nothing more), this many
/// steps run on the divider alone: data
/// full of special values (random bit patterns) would otherwise pay a mispredicted branch
/// and a wasted kernel block each time. Each further failure with no pass between doubles
/// it (see [`crate::backoff`]) ...
const STEPS_AFTER_SLOW: u32 = 8;
/// ... up to this many: random bit patterns then waste one kernel block per this many
/// steps, and data that turns clean runs at most this many steps without the kernel.
const MAX_STEPS_AFTER_SLOW: u32 = 128;

/// The mixed loops' back-off (a unit: one step).
pub type MixBackoff = Backoff<STEPS_AFTER_SLOW, MAX_STEPS_AFTER_SLOW>;

std::thread_local! {
    /// The mixed loop's back-off, kept between calls on this thread (`div` and `recip`, every
    /// schedule: a step of any of them is a kernel block and its divider vectors).
    static MIX_BACKOFF: Cell<MixBackoff> = const { Cell::new(MixBackoff::CLEAR) };
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) for `len` elements; `out` may be
/// `a` itself (with `RECIP`, `b`).
///
/// Each step takes a block of [`BLOCK_VECTORS`] vectors through the FMA kernel and `D`
/// further vectors through the hardware divider: the divider and the FMA pipes are separate
/// resources, so on CPUs that overlap them the two run side by side (`D = 0`: the kernel
/// alone). The kernel block's quotients are stored only when its input check passes;
/// otherwise the block is recomputed by the divider, and where a lane lies outside the input
/// window the following steps use the divider alone (a back-off kept between calls on this
/// thread: `MIX_BACKOFF`). The eight-lane reciprocal loops fix a failed block vector by
/// vector instead, and back off from a lone special only at its second failure before a
/// pass ([`reciprocal_block_by_vectors`]). What does not fill a step goes to the divider,
/// but for a short step where it holds a kernel block and at least half the step's divider
/// vectors ([`short_step_from`]).
///
/// The steps run in [`kernel_run`]s, loops with no call in them, and the slow paths' calls
/// sit between runs: with those calls inside the loop the compiler re-broadcast three
/// constants from memory every step, and the sixteen-lane kernel alone ran 5-8% slower and
/// its mixes 2-6% slower in L1d on family 0x19 model 0x11
/// (`docs/bench/0x19-0x11-kernel-runs-ab.txt`).
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a`, or with `RECIP`
///   exactly `b` (same address).
#[inline(always)]
pub unsafe fn div_raw<W: Vector, const V: u8, const D: usize, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees.
    let head = unsafe { line_head::<W, RECIP>(w, a, b, out, len) };
    let ([a, b], [out], len) = past_head([a, b], [out], len, head);
    let kernel_len = BLOCK_VECTORS * W::LANES;
    let step = kernel_len + D * W::LANES;
    let mut i = 0;
    if len >= step {
        let mut backoff = MixBackoff::load(&MIX_BACKOFF);
        while i + step <= len {
            if backoff.skip() > 0 {
                // SAFETY: i + step <= len; the caller's guarantees otherwise.
                let (end, steps) = unsafe {
                    divider_stretch::<W, RECIP>(w, a, b, out, i, step, len, backoff.skip())
                };
                backoff.skipped(steps);
                i = end;
                continue;
            }
            // SAFETY: i + step <= len; the caller's guarantees otherwise.
            let (end, failed) = unsafe { kernel_run::<W, V, D, RECIP>(w, a, b, out, i, len) };
            if end > i {
                backoff.passed();
            }
            i = end;
            let Some(quotients) = failed else {
                break;
            };
            // SAFETY: the step at i failed its check and i + step <= len; its divider
            // vectors are stored, its kernel block is not; the caller's guarantees otherwise.
            unsafe { failed_block::<W, V, RECIP>(w, a, b, out, i, &quotients, &mut backoff) };
            i += step;
        }
        if len - i >= short_step_from::<W, D>() {
            if backoff.skip() > 0 {
                backoff.skipped(1);
            } else {
                // SAFETY: i + kernel_len <= short_step_from <= len - i; the caller's
                // guarantees otherwise.
                unsafe { short_step::<W, V, RECIP>(w, a, b, out, i, len, &mut backoff) };
                i = len;
            }
        }
        backoff.store(&MIX_BACKOFF);
    }
    // Less than a short step remains (or none, after one): the divider takes it.
    // SAFETY: i <= len; the caller's guarantees.
    unsafe { divider_vectors::<W, RECIP>(w, a, b, out, i, len) }
}

/// Steps of [`div_raw`] from element `i` while their kernel blocks pass the check: a loop
/// with no call in it, so its constants stay in registers (the slow paths run between runs).
/// Returns where the run stopped and, if the step there failed its check, that step's kernel
/// quotients (its divider vectors stored, its kernel block not).
///
/// # Safety
/// As [`div_raw`], past its head.
#[inline(always)]
unsafe fn kernel_run<W: Vector, const V: u8, const D: usize, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    mut i: usize,
    len: usize,
) -> (usize, Option<[W::F; BLOCK_VECTORS]>) {
    let kernel_len = BLOCK_VECTORS * W::LANES;
    let step = kernel_len + D * W::LANES;
    while i + step <= len {
        mca_region!(
            begin,
            "mix-{d} lanes={l} recip={r}",
            d = D,
            l = W::LANES,
            r = RECIP as usize
        );
        // SAFETY: every access below is to an element < i + step <= len; unaligned loads
        // and stores accept any address; the kernel block is loaded before anything in it
        // is stored, and each divider vector is loaded before its store, so `out == a`
        // (or, for reciprocals, `out == b`) is fine.
        unsafe {
            let (quotients, check) = kernel_block::<W, V, RECIP>(w, a, b, i);
            divider_step::<W, RECIP, D>(w, a, b, out, i + kernel_len);
            if !check.all_accepted(w) {
                return (i, Some(quotients));
            }
            store_block(w, out, i, &quotients);
        }
        mca_region!(end);
        i += step;
    }
    (i, None)
}

/// The fewest elements left after the whole steps that [`div_raw`] runs as a short step:
/// a kernel block and half the step's divider vectors (rounded up), so that the kernel's
/// block still runs beside the divider and the rest keeps about the step's share of the
/// kernel. Without it a step's worth of lanes short of a multiple goes to the divider
/// alone: `recip` at 256 elements in the eight-lane mix-8 (steps of 96) gave the divider
/// 192 lanes, not 160. Never less than a step's for `D` of 0 or 1, which then have none.
const fn short_step_from<W: Vector, const D: usize>() -> usize {
    (BLOCK_VECTORS + D.div_ceil(2)) * W::LANES
}

/// The last step of [`div_raw`], shorter than the others: a kernel block from element `i`
/// and the divider from the block's end up to `len`, then the block stored or, if it
/// failed its check, fixed as a failed step's is ([`failed_block`]).
///
/// # Safety
/// As [`div_raw`], past its head, with `i + BLOCK_VECTORS * LANES <= len`.
#[inline(always)]
unsafe fn short_step<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
    len: usize,
    backoff: &mut MixBackoff,
) {
    let block_end = i + BLOCK_VECTORS * W::LANES;
    // SAFETY: the block is inside the slices (the caller's guarantee) and loaded before
    // anything in it is stored; the divider stores only past it.
    unsafe {
        let (quotients, check) = kernel_block::<W, V, RECIP>(w, a, b, i);
        divider_vectors::<W, RECIP>(w, a, b, out, block_end, len);
        if check.all_accepted(w) {
            store_block(w, out, i, &quotients);
            backoff.passed();
        } else {
            failed_block::<W, V, RECIP>(w, a, b, out, i, &quotients, backoff);
        }
    }
}

/// A step's kernel block at element `i` that failed its check: fixed vector by vector
/// (the eight-lane reciprocal loops) or redone by the divider, and the back-off told.
///
/// # Safety
/// As [`div_raw`], with `i + BLOCK_VECTORS * LANES <= len`.
#[inline(always)]
unsafe fn failed_block<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
    quotients: &[W::F; BLOCK_VECTORS],
    backoff: &mut MixBackoff,
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        if RECIP && W::LANES < RECIPROCALS_BY_VECTOR_BELOW_LANES {
            match reciprocal_block_by_vectors::<W, V>(w, b, out, i, quotients) {
                // A near-all-ones divisor alone: as below.
                0 => {}
                1 => backoff.failed_sparsely(),
                _ => backoff.failed(),
            }
        } else if divider_block::<W, RECIP>(w, a, b, out, i) {
            backoff.failed();
        }
    }
}

/// [`div_raw`] where MXCSR rounds to nearest; elsewhere the divider, which obeys the mode
/// in force (the kernel's FMAs give the bits of `vdivps` under round-to-nearest only). What
/// the plan runs for the kernel's schedules: the check costs one addition per call, and
/// none for slices shorter than one step of the loop (those run on the divider anyway).
///
/// # Safety
/// As [`div_raw`].
#[inline(always)]
pub unsafe fn div_raw_guarded<W: Vector, const V: u8, const D: usize, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let step = (BLOCK_VECTORS + D) * W::LANES;
    // SAFETY: the caller's guarantees are both loops'.
    unsafe {
        if len < step || crate::arch::x86_64::mode::rounds_to_nearest() {
            div_raw::<W, V, D, RECIP>(w, a, b, out, len)
        } else {
            divider_vectors::<W, RECIP>(w, a, b, out, 0, len)
        }
    }
}

/// The vector width below which the reciprocal loops fix a failed block vector by vector
/// ([`reciprocal_block_by_vectors`]), where the seed is `rcpps`. With 1% special divisors
/// on family 6 model 0xa7 that ran 1.14-1.46x the 512-bit divider loop at 256-64K against
/// 1.05-1.33x with the block on the divider; at sixteen lanes (`vrcp14ps`, which gives a
/// subnormal divisor a finite reciprocal where `rcpps` gives an infinity) it ran 0.89-0.90x
/// against 1.04x at 1K (`docs/bench/0x6-0xa7-reciprocals-by-vector.txt`).
const RECIPROCALS_BY_VECTOR_BELOW_LANES: usize = 16;

/// The slow path of a reciprocal block that failed its check, vector by vector: a vector
/// the check accepts keeps the kernel's reciprocals, another takes the divider's in the
/// lanes refused. Returns how many vectors had a divisor outside the window: one is a
/// sparse failure (a lone special costs its own vector; only a second failure before a
/// pass backs off, [`crate::backoff::Backoff::failed_sparsely`]), more a failure. Inline:
/// with 1% specials a block in six or seven comes here, and an out-of-line call cost a
/// loop of one step per call 0.77-0.79x the divider against 0.88-0.92x inline.
///
/// # Safety
/// As [`div_raw`] with `RECIP`, with `i + BLOCK_VECTORS * LANES <= len`.
#[inline(always)]
unsafe fn reciprocal_block_by_vectors<W: Vector, const V: u8>(
    w: W,
    b: *const f32,
    out: *mut f32,
    i: usize,
    reciprocals: &[W::F; BLOCK_VECTORS],
) -> usize {
    let one = w.splat(1.0);
    let mut outside = 0;
    for (k, &r) in reciprocals.iter().enumerate() {
        let j = i + k * W::LANES;
        // SAFETY: j + LANES <= i + BLOCK_VECTORS * LANES: inside `b` (the caller's
        // guarantee), read before this vector's store (`out` may be `b`).
        let y = unsafe { w.load(b.add(j)) };
        let refused = w.mask_not(InputCheck::of::<V, true>(w, one, y).accepted(w));
        let r = if w.any(refused) {
            outside += usize::from(!InputCheck::window_of(w, one, y).all_accepted(w));
            w.blend(r, w.div(one, y), refused)
        } else {
            r
        };
        // SAFETY: inside the output (the caller's guarantee).
        unsafe { w.store(out.add(j), r) };
    }
    outside
}

/// The slow path of a kernel block that failed its check: its vectors on the divider (out
/// of line: the hot loop keeps a small body). Returns whether a lane lies outside the input
/// window, the failures the loop backs off from: a block that failed for a near-all-ones
/// divisor alone (inside the window: with `rcpps` one random divisor in 256, so one block
/// of 32 lanes in 8.5; at sixteen lanes one in 2^18, a block of 64 lanes in 4 100) costs
/// itself, not the next steps' kernel work.
/// (Division keeps this: fixed vector by vector, backing off only where several vectors
/// failed, its blocks lost with 1% specials on family 6 model 0xa7, `div` at sixteen lanes
/// 0.81-0.87x where this ran 1.01-1.02x; the skipped blocks' kernel work is what the
/// back-off saves, microcode assists on subnormal dividends likely among it:
/// `docs/bench/0x6-0xa7-not-shipped.txt`. The eight-lane reciprocal loops fix theirs by
/// vector, [`reciprocal_block_by_vectors`].)
///
/// # Safety
/// As [`div_raw`], with `i + BLOCK_VECTORS * LANES <= len`.
#[inline(always)]
unsafe fn divider_block<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
) -> bool {
    let end = i + BLOCK_VECTORS * W::LANES;
    w.cold(
        #[inline(always)]
        || {
            let mut outside = false;
            for j in (i..end).step_by(W::LANES) {
                // SAFETY: j + LANES <= end: inside the inputs (the caller's guarantee),
                // read before the divider stores over `a` (or `b`) where `out` is it.
                let (x, y) = unsafe { (load_a::<W, RECIP>(w, a, j), w.load(b.add(j))) };
                outside |= !InputCheck::window_of(w, x, y).all_accepted(w);
            }
            // SAFETY: the caller's guarantees.
            unsafe { divider_vectors::<W, RECIP>(w, a, b, out, i, end) };
            outside
        },
    )
}

/// After a failed block: up to `steps` steps from element `i` on the divider alone (fewer
/// if less than a step remains); returns where the next step starts and how many steps
/// ran.
///
/// # Safety
/// As [`div_raw`], with `i + step <= len`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn divider_stretch<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
    step: usize,
    len: usize,
    steps: u32,
) -> (usize, u32) {
    let whole = ((len - i) / step).min(steps as usize);
    let end = i + whole * step;
    // SAFETY: end <= len; the caller's guarantees otherwise.
    w.cold(
        #[inline(always)]
        || unsafe { divider_vectors::<W, RECIP>(w, a, b, out, i, end) },
    );
    // `whole <= steps`, a u32.
    (end, whole as u32)
}

/// The kernel on one block of [`BLOCK_VECTORS`] vectors from element `i`: the quotients
/// and the merged input check, nothing stored.
///
/// # Safety
/// `a` (unless `RECIP`) and `b` readable for `i + BLOCK_VECTORS * LANES` elements.
#[inline(always)]
unsafe fn kernel_block<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    i: usize,
) -> ([W::F; BLOCK_VECTORS], InputCheck<W>) {
    let mut quotients = [w.splat(0.0); BLOCK_VECTORS];
    let mut check: Option<InputCheck<W>> = None;
    for (k, q) in quotients.iter_mut().enumerate() {
        let j = i + k * W::LANES;
        // SAFETY: j + LANES <= i + BLOCK_VECTORS * LANES, readable (the caller's guarantee).
        let (va, vb) = unsafe { (load_a::<W, RECIP>(w, a, j), w.load(b.add(j))) };
        *q = kernel_quotient::<W, V, RECIP>(w, va, vb);
        let c = InputCheck::of::<V, RECIP>(w, va, vb);
        check = Some(check.map_or(c, |acc| acc.merge(w, c)));
    }
    // BLOCK_VECTORS > 0, so the check was set.
    (quotients, check.expect("a block has vectors"))
}

/// Stores a kernel block's quotients at element `i`.
///
/// # Safety
/// `out` writable for `i + BLOCK_VECTORS * LANES` elements.
#[inline(always)]
unsafe fn store_block<W: Vector>(w: W, out: *mut f32, i: usize, quotients: &[W::F; BLOCK_VECTORS]) {
    for (k, q) in quotients.iter().enumerate() {
        // SAFETY: inside the output (the caller's guarantee).
        unsafe { w.store(out.add(i + k * W::LANES), *q) };
    }
}

/// The kernel variant `V` (with `RECIP`: the reciprocal kernel) on every lane, for
/// verification: blocks as in [`div_raw`], but a flagged block, the vectors that do not
/// fill a block and the tail (padded with 1/1) go vector by vector through
/// [`div_vector_of`], so every lane the fast path accepts is computed by the kernel; there
/// is no fallback to the divider for whole blocks.
///
/// # Safety
/// As [`div_raw`].
#[cfg(feature = "verify")]
#[inline(always)]
pub unsafe fn kernel_raw<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let block = BLOCK_VECTORS * W::LANES;
    let mut i = 0;
    while i + block <= len {
        // SAFETY: i + block <= len: inside the slices; each vector is loaded before it is
        // stored.
        unsafe {
            let (quotients, check) = kernel_block::<W, V, RECIP>(w, a, b, i);
            if check.all_accepted(w) {
                store_block(w, out, i, &quotients);
            } else {
                for k in 0..BLOCK_VECTORS {
                    let j = i + k * W::LANES;
                    let q = div_vector_of::<W, V, RECIP>(
                        w,
                        load_a::<W, RECIP>(w, a, j),
                        w.load(b.add(j)),
                    );
                    w.store(out.add(j), q);
                }
            }
        }
        i += block;
    }
    while i < len {
        let n = (len - i).min(W::LANES);
        // SAFETY: n elements from i are inside the slices; padded lanes are 1/1.
        unsafe {
            let va = if RECIP {
                w.splat(1.0)
            } else {
                w.load_partial(a.add(i), n, 1.0)
            };
            let vb = w.load_partial(b.add(i), n, 1.0);
            w.store_partial(out.add(i), n, div_vector_of::<W, V, RECIP>(w, va, vb));
        }
        i += n;
    }
}
