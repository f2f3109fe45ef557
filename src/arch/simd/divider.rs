//! The divider's slice loops over one vector width: the hardware divider alone (`div` and
//! `recip` where the plan says so, the tails and failed blocks of the mixed loops), with
//! the direction in the instruction for the embedded-rounding pass, laid out against 4K
//! aliasing and, where a vector is a cache line, storing whole lines.
//!
//! Every function is `#[inline(always)]` and generic over the backend's [`Vector`]; the
//! backend's `#[target_feature]` entry points instantiate them.

use super::Vector;

/// Divider vectors loaded and divided together before their stores (see
/// [`divider_vectors`]).
const DIVIDER_GROUP: usize = 4;

/// Loads the dividends at `i`, or the constant 1.0 for reciprocals.
///
/// # Safety
/// Unless `RECIP`, `a + i .. a + i + LANES` must be readable.
#[inline(always)]
pub unsafe fn load_a<W: Vector, const RECIP: bool>(w: W, a: *const f32, i: usize) -> W::F {
    if RECIP {
        w.splat(1.0)
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { w.load(a.add(i)) }
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) by the hardware divider alone, with
/// the same tail handling as [`super::loops::div_raw`]; from the end where the layout asks for it
/// ([`runs_backward`]).
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a`, or with `RECIP`
///   exactly `b` (same address).
#[inline(always)]
pub unsafe fn divider_raw<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees.
    unsafe { divider_raw_by::<W, RECIP>(w, a, b, out, len, |x, y| w.div(x, y)) }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` by a divider that takes the direction
/// in the instruction ([`Vector::EMBEDDED_ROUNDING`]: MXCSR neither read nor written):
/// [`divider_raw`]'s loop, `div_in_mode` for `div`: the 4K-aliasing layouts and the output's
/// line matter to it as to the plain pass. One vector a step, forward whatever the layout
/// and unaligned, it measured 0.68–0.75× the plain 256-bit pass on the benchmarks' layout 0
/// (the output 64 bytes past an input modulo 4 KiB) at 16K–256K on family 0x19 model 0x11,
/// and 0.96–1.01× this way (`docs/bench/0x19-0x11-line-head-ab.txt`).
///
/// # Safety
/// As [`divider_raw`] (with `RECIP` false); `W::EMBEDDED_ROUNDING`.
#[inline(always)]
pub unsafe fn divider_in_mode<W: Vector, const MODE: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    debug_assert!(W::EMBEDDED_ROUNDING, "the direction in the instruction");
    // SAFETY: the caller's guarantees.
    unsafe { divider_raw_by::<W, false>(w, a, b, out, len, |x, y| w.div_in_mode(x, y, MODE)) }
}

/// [`divider_raw`] with `divide` for the division: the head to the output's line
/// ([`line_head_by`]), the groups (from the end where the layout asks for it), then the rest.
///
/// # Safety
/// As [`divider_raw`].
#[inline(always)]
unsafe fn divider_raw_by<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
    divide: impl Fn(W::F, W::F) -> W::F + Copy,
) {
    // SAFETY: the caller's guarantees.
    let head = unsafe { line_head_by::<W, RECIP>(w, a, b, out, len, divide) };
    let ([a, b], [out], len) = past_head([a, b], [out], len, head);
    let group = DIVIDER_GROUP * W::LANES;
    let groups_end = len - len % group;
    if runs_backward(out, [if RECIP { b } else { a }, b], len) {
        // The same groups from the last (see `runs_backward`), then the rest.
        for i in (0..groups_end).step_by(group).rev() {
            // SAFETY: i + group <= groups_end <= len; the caller's guarantees otherwise.
            unsafe { group_by::<W, RECIP>(w, a, b, out, i, divide) };
        }
        // SAFETY: the caller's guarantees, passed on; groups_end <= len.
        return unsafe { divider_vectors_by::<W, RECIP>(w, a, b, out, groups_end, len, divide) };
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
        unsafe { group_by::<W, RECIP>(w, a, b, out, i, divide) };
        mca_region!(end);
        i += group;
    }
    // SAFETY: the caller's guarantees, passed on; i <= len.
    unsafe { divider_vectors_by::<W, RECIP>(w, a, b, out, i, len, divide) }
}

/// Bytes per cache line.
const LINE_BYTES: usize = 64;

/// Where `W` aligns its stores ([`Vector::ALIGNS_STORES`]) and the slice has at least
/// [`LINE_HEAD_FROM`] elements: the elements before `out`'s first cache-line boundary (fewer
/// than a vector) divided as one partial vector on the divider; returns how many (0
/// elsewhere). The caller's loop then
/// runs over the rest ([`past_head`]), each of its whole vectors stored inside one line.
///
/// # Safety
/// As [`divider_raw`].
#[inline(always)]
pub unsafe fn line_head<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) -> usize {
    // SAFETY: the caller's guarantees.
    unsafe { line_head_by::<W, RECIP>(w, a, b, out, len, |x, y| w.div(x, y)) }
}

/// [`line_head`] with `divide` for the division.
///
/// # Safety
/// As [`divider_raw`].
#[inline(always)]
unsafe fn line_head_by<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
    divide: impl Fn(W::F, W::F) -> W::F,
) -> usize {
    let head = line_head_len(W::ALIGNS_STORES, out, len);
    debug_assert!(head < W::LANES, "a line is at most a vector");
    if head > 0 {
        // SAFETY: `head` < LANES elements from 0, inside the slices (the caller's).
        unsafe { tail_by::<W, RECIP>(w, a, b, out, 0, head, divide) }
    }
    head
}

/// Slices of at least this many elements begin with [`line_head`] where stores are aligned;
/// shorter ones take none: there the head is one more divider vector where the divider bounds
/// the loop, and the split stores it saves cost less in L1. On family 6 model 0xa7 with every
/// array 16 bytes past a line (`fmadiv bench --floors --past-line 16`, four alternating
/// rounds, `docs/bench/0x6-0xa7-line-head-from.txt`): `div` and its kin at 64 elements 1.00x
/// the plain 512-bit loop without the head where they ran 0.80x with it, at 256 on normal
/// data 1.55x against 1.23x (random bits 0.93x against 1.00x), 255 of 276 floor cells at 0.97x
/// or above against 220, the same on a line (270 against 269); Emerald Rapids measured the
/// same price of the head (0.80x at 64 elements, 0.94x at 256,
/// `docs/bench/0x6-0xcf-sixteen-floors-ab.txt`), and on Zen 4 `recip` at 256 elements ran
/// 1.28x the plain pass without it and 1.25x with it (`docs/bench/0x19-0x11-line-head-ab.txt`).
pub const LINE_HEAD_FROM: usize = 1024;

/// The elements [`line_head`] divides where stores are aligned (`aligns`) and the slice is
/// [`LINE_HEAD_FROM`] elements or longer: those before `out`'s first cache-line boundary; 0
/// otherwise.
#[inline(always)]
pub fn line_head_len(aligns: bool, out: *const f32, len: usize) -> usize {
    if !aligns || len < LINE_HEAD_FROM {
        return 0;
    }
    floats_to_boundary(out, LINE_BYTES).min(len)
}

/// The floats from `out` to its next multiple of `bytes` (a power of two; 0 on one): where
/// a head ends so that the stores after it start on a line or a vector boundary.
#[inline(always)]
pub fn floats_to_boundary(out: *const f32, bytes: usize) -> usize {
    // The bytes to the next multiple (the address's negation modulo `bytes`), as floats: an
    // `f32` pointer is a multiple of 4.
    (out as usize).wrapping_neg() % bytes / 4
}

/// The inputs' and outputs' pointers and the length past a head of `head` elements, which
/// the caller divided already: addresses moved without a claim on memory (`recip`'s `a` may
/// be dangling). The one place a loop steps past its head: the divider's, the mixed loops',
/// the directed step loop's and the `Divisor`'s two products'.
#[inline(always)]
pub fn past_head<const INS: usize, const OUTS: usize>(
    ins: [*const f32; INS],
    outs: [*mut f32; OUTS],
    len: usize,
    head: usize,
) -> ([*const f32; INS], [*mut f32; OUTS], usize) {
    (
        ins.map(|p| p.wrapping_add(head)),
        outs.map(|p| p.wrapping_add(head)),
        len - head,
    )
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
    // SAFETY: the caller's guarantees.
    let head = unsafe { line_head::<W, RECIP>(w, a, b, out, len) };
    let ([a, b], [out], len) = past_head([a, b], [out], len, head);
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
        unsafe { tail_by::<W, RECIP>(w, a, b, out, full, len - full, |x, y| w.div(x, y)) }
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
    // SAFETY: the caller's guarantees.
    unsafe { divider_vectors_by::<W, RECIP>(w, a, b, out, from, len, |x, y| w.div(x, y)) }
}

/// [`divider_vectors`] with `divide` for the division.
///
/// # Safety
/// As [`divider_vectors`].
#[inline(always)]
unsafe fn divider_vectors_by<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    len: usize,
    divide: impl Fn(W::F, W::F) -> W::F + Copy,
) {
    let mut i = from;
    // Four vectors are loaded and divided before any of them is stored: later loads then
    // need not wait behind earlier stores (which the CPU may mistake for a dependency when
    // the arrays' addresses agree modulo 4 KiB), as in a loop over non-aliasing slices.
    // Every load of a group precedes its stores, so `out == a` (or `b`) stays correct.
    while i + DIVIDER_GROUP * W::LANES <= len {
        // SAFETY: i + DIVIDER_GROUP·LANES <= len: inside the inputs and the output.
        unsafe { group_by::<W, RECIP>(w, a, b, out, i, divide) };
        i += DIVIDER_GROUP * W::LANES;
    }
    while i + W::LANES <= len {
        // SAFETY: i + LANES <= len: inside the inputs and the output; each vector is loaded
        // before its store, so `out == a` (or `b`) is fine.
        unsafe {
            let q = divide(load_a::<W, RECIP>(w, a, i), w.load(b.add(i)));
            w.store(out.add(i), q);
        }
        i += W::LANES;
    }
    if i < len {
        // SAFETY: the caller's guarantees; `len - i` < LANES elements remain at i.
        unsafe { tail_by::<W, RECIP>(w, a, b, out, i, len - i, divide) }
    }
}

/// [`DIVIDER_GROUP`] vectors from element `i` through `divide`: all loaded and divided
/// before any is stored (see [`divider_vectors`]).
///
/// # Safety
/// As [`divider_raw`], with `i + DIVIDER_GROUP * LANES <= len`.
#[inline(always)]
unsafe fn group_by<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
    divide: impl Fn(W::F, W::F) -> W::F,
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let q: [W::F; DIVIDER_GROUP] = super::array_of(w.splat(0.0), |k| {
            let j = i + k * W::LANES;
            divide(load_a::<W, RECIP>(w, a, j), w.load(b.add(j)))
        });
        for (k, q) in q.iter().enumerate() {
            w.store(out.add(i + k * W::LANES), *q);
        }
    }
}

/// The last `rest < LANES` elements through `divide`: partial loads and stores touch only
/// them, and the lanes beyond are padded with 1/1 so that no spurious exception flag is
/// raised.
///
/// # Safety
/// As [`divider_raw`], with `from + rest <= len` and `rest < LANES`.
#[inline(always)]
unsafe fn tail_by<W: Vector, const RECIP: bool>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    rest: usize,
    divide: impl Fn(W::F, W::F) -> W::F,
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
        w.store_partial(out.add(from), rest, divide(va, vb));
    }
}

/// The `D` divider vectors of a mixed step from element `i`: whole groups, then single
/// vectors; a trip count known at compile time, so the compiler unrolls it.
///
/// # Safety
/// As [`divider_raw`], with `i + D * LANES <= len`.
#[inline(always)]
pub unsafe fn divider_step<W: Vector, const RECIP: bool, const D: usize>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
) {
    let mut k = 0;
    while k + DIVIDER_GROUP <= D {
        // SAFETY: k + DIVIDER_GROUP <= D: inside the step.
        unsafe { group_by::<W, RECIP>(w, a, b, out, i + k * W::LANES, |x, y| w.div(x, y)) };
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
