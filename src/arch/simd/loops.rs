//! The slice loops over one vector width: the divider alone, and the mixed schedules that
//! run blocks of kernel vectors beside divider vectors.
//!
//! Every function is `#[inline(always)]` and generic over the backend's [`Vector`]; the
//! backend's `#[target_feature]` entry points instantiate them (so the code is compiled for
//! its instructions) and the plan calls those.

use core::cell::Cell;

use super::Vector;
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

/// Divider vectors loaded and divided together before their stores (see
/// [`divider_vectors`]).
const DIVIDER_GROUP: usize = 4;

/// Marks the start or end of a code region for `llvm-mca` (`scripts/mca.sh`) in builds with
/// `--cfg fmadiv_mca`; nothing otherwise. The marker is an assembly comment: it emits no
/// instruction.
macro_rules! mca_region {
    (begin, $name:literal $(, $arg:ident = $value:expr)*) => {
        #[cfg(fmadiv_mca)]
        // SAFETY: an assembly comment; it touches no register, memory or flag.
        unsafe {
            core::arch::asm!(
                concat!("# LLVM-MCA-BEGIN ", $name)
                $(, $arg = const $value)*,
                options(nomem, nostack, preserves_flags)
            );
        }
    };
    (end) => {
        #[cfg(fmadiv_mca)]
        // SAFETY: as above.
        unsafe {
            core::arch::asm!("# LLVM-MCA-END", options(nomem, nostack, preserves_flags));
        }
    };
}

/// Loads the dividends at `i`, or the constant 1.0 for reciprocals.
///
/// # Safety
/// Unless `RECIP`, `a + i .. a + i + LANES` must be readable.
#[inline(always)]
unsafe fn load_a<W: Vector, const RECIP: bool>(w: W, a: *const f32, i: usize) -> W::F {
    if RECIP {
        w.splat(1.0)
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { w.load(a.add(i)) }
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) by the hardware divider alone, with
/// the same tail handling as [`div_raw`]; from the end where the layout asks for it
/// ([`runs_backward`]).
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a` (same address).
#[inline(always)]
pub unsafe fn divider_raw<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let group = DIVIDER_GROUP * W::LANES;
    let groups_end = len - len % group;
    if runs_backward(out, [if RECIP { b } else { a }, b], len) {
        // The same groups from the last (see `runs_backward`), then the rest.
        for i in (0..groups_end).step_by(group).rev() {
            // SAFETY: i + group <= groups_end <= len; the caller's guarantees otherwise.
            unsafe { divider_group::<W, RECIP>(w, a, b, out, i) };
        }
        // SAFETY: the caller's guarantees, passed on; groups_end <= len.
        return unsafe { divider_vectors::<W, RECIP>(w, a, b, out, groups_end, len) };
    }
    let mut i = 0;
    while i + group <= len {
        mca_region!(
            begin,
            "divider lanes={l} recip={r}",
            l = W::LANES,
            r = RECIP as usize
        );
        // SAFETY: i + DIVIDER_GROUP·LANES <= len: inside the inputs and the output; the
        // caller's guarantees otherwise.
        unsafe { divider_group::<W, RECIP>(w, a, b, out, i) };
        mca_region!(end);
        i += group;
    }
    // SAFETY: the caller's guarantees, passed on; i <= len.
    unsafe { divider_vectors::<W, RECIP>(w, a, b, out, i, len) }
}

/// [`divider_raw`] where `out` does not overlap `a` or `b`: run from the end where the
/// layout asks for it ([`runs_backward`]: forward only, the output 64 to 384 bytes past an
/// input modulo 4 KiB made it 3 times slower at 16K elements); forward, `recip` runs the
/// plain loop over slices (the compiler knows they do not alias and schedules loads and
/// stores freely, as a loop written over `&[f32]` and `&mut [f32]` by hand would be) and
/// `div` the grouped loop of [`divider_vectors`]; then the partial tail.
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats, and `out` must not overlap `a` or `b`.
#[inline(always)]
pub unsafe fn divider_disjoint<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees: valid for `len` floats, `out` disjoint from both.
    let (bs, os) = unsafe {
        (
            core::slice::from_raw_parts(b, len),
            core::slice::from_raw_parts_mut(out, len),
        )
    };
    let full = len - len % W::LANES;
    let a_or_b = if RECIP { b } else { a };
    if runs_backward(out, [a_or_b, b], len) {
        // SAFETY: the caller's guarantees (as for the forward loop below).
        unsafe { divider_disjoint_backward::<W, RECIP>(w, a, bs, os, full) };
    } else if RECIP {
        let one = w.splat(1.0);
        for (o, y) in os[..full]
            .chunks_exact_mut(W::LANES)
            .zip(bs.chunks_exact(W::LANES))
        {
            // SAFETY: each chunk holds exactly LANES floats.
            unsafe { w.store(o.as_mut_ptr(), w.div(one, w.load(y.as_ptr()))) };
        }
    } else {
        // Two inputs: four vectors loaded and divided before any is stored, so that a load
        // waits behind no store of the same group where the output lies a little past an
        // input modulo 4 KiB, as consecutive `Vec`s do (family 0x19, forward: 30 against
        // 34 ns at 256 elements over 64 placements of the output, `scripts/aliasing.sh`;
        // 120 against 127 ns at 1024 in the versions harness's layout). `recip`'s one input
        // keeps the plain loop: grouped, it measured 0.85 of the baseline at 256 elements
        // with special values against 1.00 (`bench --floors`).
        // SAFETY: the caller's guarantees, which the grouped loop (and its tail) needs.
        return unsafe { divider_vectors::<W, false>(w, a, b, out, 0, len) };
    }
    if full < len {
        // SAFETY: the caller's guarantees; `len - full` < LANES elements remain at `full`.
        unsafe { divider_tail::<W, RECIP>(w, a, b, out, full, len - full) }
    }
}

/// How far, in bytes, a divider loop's loads may run ahead of its stores on the CPUs
/// measured (family 0x19: loads from 64 to 384 bytes past the store's address modulo 4 KiB
/// slowed `div` by up to 7 times at 4K elements, `scripts/aliasing.sh`), with a margin.
const LOAD_REACH: usize = 1024;

/// Slices shorter than this run forward whatever their layout: on family 0x19 aliasing
/// cost nothing measurable up to 2048 elements (three arrays in L1; from 3072 it did), and
/// running backward measured slower on `recip` of 256 elements with special values
/// (`bench --floors`, 1% specials and random bits: 0.71–0.75 of the forward baseline loop,
/// 0.97–1.43 forward).
const BACKWARD_FROM: usize = 2048;

/// Whether a loop storing to `out` while loading from `inputs` should run from the end.
/// A load whose address agrees in its low 12 bits with an earlier store still in flight
/// waits for it (the CPU compares only those bits first: "4K aliasing"). Running forward,
/// the loads ahead of a store at `out + k` read `input + k + d`: they collide where `out`
/// lies a little past an input modulo 4 KiB (`d` in `(0, LOAD_REACH)`); running backward,
/// where it lies a little before. The direction that collides with neither input wins;
/// forward where neither or both collide, and for slices shorter than [`BACKWARD_FROM`].
#[inline(always)]
fn runs_backward(out: *mut f32, inputs: [*const f32; 2], len: usize) -> bool {
    if len < BACKWARD_FROM {
        return false;
    }
    // `x` modulo 4 KiB in (0, LOAD_REACH): `x - 1` wraps 0 around to 4095.
    let near = |x: usize| (x.wrapping_sub(1) & 4095) < LOAD_REACH - 1;
    let (o, [p, q]) = (out as usize, inputs.map(|p| p as usize));
    let forward_collides = near(o.wrapping_sub(p)) || near(o.wrapping_sub(q));
    let backward_collides = near(p.wrapping_sub(o)) || near(q.wrapping_sub(o));
    forward_collides && !backward_collides
}

/// [`divider_disjoint`]'s whole vectors from the last to the first.
///
/// # Safety
/// As [`divider_disjoint`]; `full` a multiple of `LANES`, at most the slices' length.
#[inline(always)]
unsafe fn divider_disjoint_backward<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    bs: &[f32],
    os: &mut [f32],
    full: usize,
) {
    let chunks = os[..full]
        .chunks_exact_mut(W::LANES)
        .zip(bs.chunks_exact(W::LANES))
        .enumerate()
        .rev();
    for (k, (o, y)) in chunks {
        // SAFETY: each chunk holds exactly LANES floats; `a` (read unless RECIP) holds
        // `full` floats (the caller's guarantee).
        unsafe {
            let x = if RECIP {
                w.splat(1.0)
            } else {
                w.load(a.add(k * W::LANES))
            };
            w.store(o.as_mut_ptr(), w.div(x, w.load(y.as_ptr())));
        }
    }
}

/// Divides element `from` up to `len` on the divider: whole vectors, then a partial tail.
///
/// # Safety
/// As [`divider_raw`], with `from <= len`.
#[inline(always)]
pub unsafe fn divider_vectors<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    len: usize,
) {
    let mut i = from;
    // Four vectors are loaded and divided before any of them is stored: later loads then
    // need not wait behind earlier stores (which the CPU may mistake for a dependency when
    // the arrays' addresses agree modulo 4 KiB), as in a loop over non-aliasing slices.
    // Every load of a group precedes its stores, so `out == a` stays correct.
    while i + DIVIDER_GROUP * W::LANES <= len {
        // SAFETY: i + DIVIDER_GROUP·LANES <= len: inside the inputs and the output.
        unsafe { divider_group::<W, RECIP>(w, a, b, out, i) };
        i += DIVIDER_GROUP * W::LANES;
    }
    while i + W::LANES <= len {
        // SAFETY: i + LANES <= len: inside the inputs and the output; each vector is loaded
        // before its store, so `out == a` is fine.
        unsafe {
            let q = w.div(load_a::<W, RECIP>(w, a, i), w.load(b.add(i)));
            w.store(out.add(i), q);
        }
        i += W::LANES;
    }
    if i < len {
        // SAFETY: the caller's guarantees; `len - i` < LANES elements remain at i.
        unsafe { divider_tail::<W, RECIP>(w, a, b, out, i, len - i) }
    }
}

/// [`DIVIDER_GROUP`] vectors from element `i` through the divider: all loaded and divided
/// before any is stored (see [`divider_vectors`]).
///
/// # Safety
/// As [`divider_raw`], with `i + DIVIDER_GROUP * LANES <= len`.
#[inline(always)]
unsafe fn divider_group<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let q: [W::F; DIVIDER_GROUP] = super::array_of(w.splat(0.0), |k| {
            let j = i + k * W::LANES;
            w.div(load_a::<W, RECIP>(w, a, j), w.load(b.add(j)))
        });
        for (k, q) in q.iter().enumerate() {
            w.store(out.add(i + k * W::LANES), *q);
        }
    }
}

/// The `D` divider vectors of a mixed step from element `i`: whole groups, then single
/// vectors; a trip count known at compile time, so the compiler unrolls it.
///
/// # Safety
/// As [`divider_raw`], with `i + D * LANES <= len`.
#[inline(always)]
unsafe fn divider_step<W: Vector, const RECIP: bool, const D: usize>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
) {
    let mut k = 0;
    while k + DIVIDER_GROUP <= D {
        // SAFETY: k + DIVIDER_GROUP <= D: inside the step.
        unsafe { divider_group::<W, RECIP>(w, a, b, out, i + k * W::LANES) };
        k += DIVIDER_GROUP;
    }
    while k < D {
        let j = i + k * W::LANES;
        // SAFETY: k < D: inside the step; each vector is loaded before its store.
        unsafe {
            let q = w.div(load_a::<W, RECIP>(w, a, j), w.load(b.add(j)));
            w.store(out.add(j), q);
        }
        k += 1;
    }
}

/// The last `rest < LANES` elements: partial loads and stores touch only them, and the
/// lanes beyond are padded with 1/1 so that no spurious exception flag is raised.
///
/// # Safety
/// As [`divider_raw`], with `from + rest <= len` and `rest < LANES`.
#[inline(always)]
unsafe fn divider_tail<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    rest: usize,
) {
    // SAFETY: partial loads and stores access only the `rest` elements from `from`, inside
    // the slices.
    unsafe {
        let va = if RECIP {
            w.splat(1.0)
        } else {
            w.load_partial(a.add(from), rest, 1.0)
        };
        let vb = w.load_partial(b.add(from), rest, 1.0);
        w.store_partial(out.add(from), rest, w.div(va, vb));
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) for `len` elements; `out` may be
/// `a` itself.
///
/// Each step takes a block of [`BLOCK_VECTORS`] vectors through the FMA kernel and `D`
/// further vectors through the hardware divider: the divider and the FMA pipes are separate
/// resources, so on CPUs that overlap them the two run side by side (`D = 0`: the kernel
/// alone). The kernel block's quotients are stored only when its input check passes;
/// otherwise the block is recomputed by the divider, and where a lane lies outside the input
/// window the following steps use the divider alone (a back-off kept between calls on this
/// thread: `MIX_BACKOFF`). What does not fill a step goes to the divider.
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a` (same address).
#[inline(always)]
pub unsafe fn div_raw<W: Vector, const V: u8, const D: usize, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
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
            mca_region!(
                begin,
                "mix-{d} lanes={l} recip={r}",
                d = D,
                l = W::LANES,
                r = RECIP as usize
            );
            // SAFETY: every access below is to an element < i + step <= len; unaligned loads
            // and stores accept any address; the kernel block is loaded before anything in
            // it is stored, and each divider vector is loaded before its store, so
            // `out == a` is fine.
            unsafe {
                let (quotients, check) = kernel_block::<W, V, RECIP>(w, a, b, i);
                divider_step::<W, RECIP, D>(w, a, b, out, i + kernel_len);
                if check.all_accepted(w) {
                    store_block(w, out, i, &quotients);
                    backoff.passed();
                } else if divider_block::<W, RECIP>(w, a, b, out, i) {
                    backoff.failed();
                }
            }
            mca_region!(end);
            i += step;
        }
        backoff.store(&MIX_BACKOFF);
    }
    // Less than a step remains: the divider takes it.
    // SAFETY: i <= len; the caller's guarantees.
    unsafe { divider_vectors::<W, RECIP>(w, a, b, out, i, len) }
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

/// The slow path of a kernel block that failed its check: its vectors on the divider (out
/// of line: the hot loop keeps a small body). Returns whether a lane lies outside the input
/// window, the failures the loop backs off from: a block that failed for a near-all-ones
/// divisor alone (inside the window: one random divisor in 256, so one block of 32 lanes in
/// 8.5 and of 64 in 4.5) costs itself, not the next steps' kernel work.
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
                // read before the divider stores over `a` where `out == a`.
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
