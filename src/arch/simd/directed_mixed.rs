//! Directed rounding from the mixed schedules' quotients: each step of the loop takes a
//! block of [`BLOCK_VECTORS`] kernel vectors and `d` divider vectors, as the mixed division
//! loops do ([`super::loops::div_raw`]), and rounds every quotient in the direction asked
//! for by the residual's sign ([`super::directed`]'s step). Where the divider bounds the
//! directed functions (`vdivps` once per vector, or twice for both bounds by embedded
//! rounding), the kernel's FMA-pipe work can run beside it.
//!
//! Built to be measured before any CPU's plan chooses it (feature `verify`: `fmadiv bench
//! --rounding` times it against the shipped forms, `tests/backends.rs` checks its bits on
//! every backend, the model's three `vrcp14ps` tables included).
//!
//! Why it is exact: for every lane its input check accepts, the kernel's quotient is
//! `RN(a/b)` ([`crate::kernel_notes`]), hence faithful; that check holds the directed
//! step's input window; and from a faithful quotient the step is exact inside the window.
//! The kernel gives `RN(a/b)` only where MXCSR rounds to nearest, so the loop runs only
//! there (MXCSR read once per call, as `div`'s guard does) and the call runs the shipped
//! directed form elsewhere; there an exact residual is `+0`, so the cheaper step
//! ([`round_from_plus_zero`]) serves. Each divider vector takes the divider's quotient and
//! the step where its lanes lie inside the window, or `vdivps` under the mode; with embedded
//! rounding, `div_rounded`'s divider vectors are `vdivps` under the mode outright (one
//! instruction, exact for every lane). A kernel block whose check fails goes the divider
//! vectors' way, vector by vector; where a lane lies outside the window (not merely a
//! near-all-ones divisor), the next steps run the shipped directed form (the mixed loops'
//! back-off).

use core::cell::Cell;

use super::Vector;
use super::directed::{
    BoundsForm, bounds_from_plus_zero, div_bounds_raw, div_in_mode_raw, div_rounded_raw, one_pass,
    round_from_plus_zero, rounded_head_from, takes_head, vector_by_vector,
};
use super::kernel::{InputCheck, kernel_quotient};
use super::loops::{BLOCK_VECTORS, MixBackoff};
use crate::arch::x86_64::mode::{DOWN, UP, rounds_to_nearest};

std::thread_local! {
    /// The loop's back-off, kept between calls on this thread.
    static BACKOFF: Cell<MixBackoff> = const { Cell::new(MixBackoff::CLEAR) };
}

/// The mixed directed loop, `OUTS` outputs per element, kernel variant `V`, `d` divider
/// vectors a step. `step` maps a kernel vector's inputs and round-to-nearest quotient to the
/// outputs (inside the window); `vector` does one vector whatever its lanes hold; `shipped`
/// runs the shipped directed form over a stretch of elements (the back-off's).
///
/// # Safety
/// MXCSR rounds to nearest. `a` and `b` readable and every output writable for `len` floats;
/// the outputs overlap neither the inputs nor each other.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn mixed_loop<W: Vector, const OUTS: usize, const V: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    len: usize,
    d: usize,
    step: impl Fn(W::F, W::F, W::F) -> [W::F; OUTS],
    vector: impl Fn(W::F, W::F) -> [W::F; OUTS],
    shipped: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
) {
    let kernel_len = BLOCK_VECTORS * W::LANES;
    let step_len = kernel_len + d * W::LANES;
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut i = 0;
    let mut backoff = MixBackoff::load(&BACKOFF);
    while i + step_len <= len {
        if backoff.skip() > 0 {
            let steps = ((len - i) / step_len).min(backoff.skip() as usize);
            // `steps` whole steps from i: inside every slice.
            let (x, y, o) = (a.wrapping_add(i), b.wrapping_add(i), at(i));
            w.cold(
                #[inline(always)]
                || shipped(x, y, o, steps * step_len),
            );
            // `steps <= skip`, a u32.
            backoff.skipped(steps as u32);
            i += steps * step_len;
            continue;
        }
        // The kernel block: quotients and the merged check, nothing stored yet.
        // SAFETY: i + step_len <= len: the loads are inside both inputs.
        let (x, y): ([W::F; BLOCK_VECTORS], [W::F; BLOCK_VECTORS]) = unsafe {
            (
                super::array_of(w.splat(0.0), |k| load_pair(w, a, b, i + k * W::LANES).0),
                super::array_of(w.splat(0.0), |k| load_pair(w, a, b, i + k * W::LANES).1),
            )
        };
        let q: [W::F; BLOCK_VECTORS] = super::array_of(w.splat(0.0), |k| {
            kernel_quotient::<W, V, false>(w, x[k], y[k])
        });
        let mut check = InputCheck::of::<V, false>(w, x[0], y[0]);
        for k in 1..BLOCK_VECTORS {
            check = check.merge(w, InputCheck::of::<V, false>(w, x[k], y[k]));
        }
        // The divider vectors, each whatever it holds.
        for k in 0..d {
            let j = i + kernel_len + k * W::LANES;
            // SAFETY: j + LANES <= i + step_len <= len: inside the inputs and outputs.
            unsafe {
                let (x, y) = load_pair(w, a, b, j);
                store_all(w, at(j), vector(x, y));
            }
        }
        if check.all_accepted(w) {
            backoff.passed();
            for k in 0..BLOCK_VECTORS {
                // SAFETY: inside the outputs (i + step_len <= len).
                unsafe { store_all(w, at(i + k * W::LANES), step(x[k], y[k], q[k])) };
            }
        } else {
            // The block's vectors one by one: the divider's quotient and the step where the
            // lanes lie in the window. Only lanes outside it back off: a near-all-ones
            // divisor (one in 256 random divisors: a block of 32 lanes in 8.5, of 64 in 4.5)
            // costs its block's kernel work, not the next steps'.
            let outside = w.cold(
                #[inline(always)]
                || {
                    let mut outside = false;
                    for k in 0..BLOCK_VECTORS {
                        outside |= !InputCheck::window_of(w, x[k], y[k]).all_accepted(w);
                        // SAFETY: inside the outputs (i + step_len <= len).
                        unsafe { store_all(w, at(i + k * W::LANES), vector(x[k], y[k])) };
                    }
                    outside
                },
            );
            if outside {
                backoff.failed();
            }
        }
        i += step_len;
    }
    backoff.store(&BACKOFF);
    // Less than a step: vector by vector.
    // SAFETY: i <= len; the caller's guarantees.
    unsafe { vector_by_vector(w, a, b, out, i, len, vector) }
}

/// The inputs' vectors at element `i`.
///
/// # Safety
/// `a` and `b` readable for `i + LANES` floats.
#[inline(always)]
unsafe fn load_pair<W: Vector>(w: W, a: *const f32, b: *const f32, i: usize) -> (W::F, W::F) {
    // SAFETY: the caller's guarantee.
    unsafe { (w.load(a.add(i)), w.load(b.add(i))) }
}

/// Stores one vector to each output.
///
/// # Safety
/// Every output writable for `LANES` floats.
#[inline(always)]
unsafe fn store_all<W: Vector, const OUTS: usize>(w: W, out: [*mut f32; OUTS], v: [W::F; OUTS]) {
    for (o, v) in out.into_iter().zip(v) {
        // SAFETY: the caller's guarantee.
        unsafe { w.store(o, v) };
    }
}

/// [`div_bounds_raw`] with the head or without, as [`takes_head`] says: both loops inline
/// here (the backends have an entry point for each).
///
/// # Safety
/// As [`div_bounds_raw`].
#[inline(always)]
unsafe fn div_bounds_either<W: Vector, const V: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
    form: BoundsForm,
) {
    // SAFETY: the caller's guarantees; the head only where len >= LANES.
    unsafe {
        match takes_head::<W>(len, form.head_from::<W>()) {
            true => div_bounds_raw::<W, V, true>(w, a, b, lo, hi, len, form),
            false => div_bounds_raw::<W, V, false>(w, a, b, lo, hi, len, form),
        }
    }
}

/// `div_rounded`'s shipped form: one divider pass under the mode, or the step from the
/// divider's quotient ([`one_pass`]) with the head or without, as [`takes_head`] says (both
/// loops inline here; the backends have an entry point for each).
///
/// # Safety
/// As [`div_rounded_raw`].
#[inline(always)]
unsafe fn shipped_rounded<W: Vector, const MODE: u8, const S: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; the head only where len >= LANES.
    unsafe {
        if one_pass::<W>(len) {
            div_in_mode_raw::<W, MODE>(w, a, b, out, len)
        } else if takes_head::<W>(len, rounded_head_from::<W>()) {
            div_rounded_raw::<W, MODE, S, true>(w, a, b, out, len)
        } else {
            div_rounded_raw::<W, MODE, S, false>(w, a, b, out, len)
        }
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` (not to nearest) from kernel variant
/// `V`'s quotients and step variant `S`, `d` divider vectors per kernel block; where MXCSR
/// does not round to nearest, the shipped form ([`div_rounded_raw`] or one pass under the
/// mode).
///
/// # Safety
/// `a` and `b` readable and `out` writable for `len` floats; `out` overlaps neither input.
#[inline(always)]
pub unsafe fn div_rounded_mixed_raw<W: Vector, const MODE: u8, const V: u8, const S: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
    d: usize,
) {
    // SAFETY: the caller's guarantees, which the shipped form and (with MXCSR rounding to
    // nearest) the loop ask for.
    unsafe {
        if !rounds_to_nearest() {
            return shipped_rounded::<W, MODE, S>(w, a, b, out, len);
        }
        mixed_loop::<W, 1, V>(
            w,
            a,
            b,
            [out],
            len,
            d,
            #[inline(always)]
            |x, y, q| [round_from_plus_zero::<W, MODE, S>(w, x, y, q)],
            #[inline(always)]
            |x, y| {
                if W::EMBEDDED_ROUNDING {
                    return [w.div_in_mode(x, y, MODE)];
                }
                let q = w.div(x, y);
                match InputCheck::window_of(w, x, y).all_accepted(w) {
                    true => [round_from_plus_zero::<W, MODE, S>(w, x, y, q)],
                    false => [w.div_in_mode(x, y, MODE)],
                }
            },
            #[inline(always)]
            |x, y, [o], n| shipped_rounded::<W, MODE, S>(w, x, y, o, n),
        )
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` from kernel variant `V`'s quotients
/// and step variant `S`, `d` divider vectors per kernel block (each one division and the
/// step); where MXCSR does not round to nearest, and for the tail, the shipped form
/// ([`div_bounds_raw`], with `form`, the CPU's, as `div_bounds` passes it).
///
/// # Safety
/// `a` and `b` readable and `lo`, `hi` writable for `len` floats; no output overlaps an
/// input or the other output.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn div_bounds_mixed_raw<W: Vector, const V: u8, const S: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
    d: usize,
    form: BoundsForm,
) {
    // SAFETY: the caller's guarantees, which the shipped form and (with MXCSR rounding to
    // nearest) the loop ask for.
    unsafe {
        if !rounds_to_nearest() {
            return div_bounds_either::<W, S>(w, a, b, lo, hi, len, form);
        }
        mixed_loop::<W, 2, V>(
            w,
            a,
            b,
            [lo, hi],
            len,
            d,
            #[inline(always)]
            |x, y, q| {
                let (l, h) = bounds_from_plus_zero::<W, S>(w, x, y, q);
                [l, h]
            },
            #[inline(always)]
            |x, y| {
                let q = w.div(x, y);
                match InputCheck::window_of(w, x, y).all_accepted(w) {
                    true => {
                        let (l, h) = bounds_from_plus_zero::<W, S>(w, x, y, q);
                        [l, h]
                    }
                    false => [w.div_in_mode(x, y, DOWN), w.div_in_mode(x, y, UP)],
                }
            },
            #[inline(always)]
            |x, y, [l, h], n| div_bounds_either::<W, S>(w, x, y, l, h, n, form),
        )
    }
}
