//! A `Divisor`'s paths whatever the plan says, for tests of both and `fmadiv plan
//! --measure`.

use crate::{Divisor, Strategy};

pub use crate::divisor::Check;

/// `out[i] = a[i] / b` by the proven sequence (`true`; the proof made if it was not) or
/// the divider (`false`). Panics if the lengths differ.
pub fn divide_slice_by(d: &Divisor, sequence: bool, a: &[f32], out: &mut [f32]) {
    d.divide_slice_by(sequence, a, out)
}

/// [`divide_slice_by`] on a given backend: `None` (nothing written) for the portable
/// path or a backend this CPU cannot run (every backend off x86-64).
pub fn divide_slice_on(
    backend: crate::Backend,
    d: &Divisor,
    sequence: bool,
    a: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return d.divide_slice_on(backend, sequence, a, out);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, d, sequence, a, out);
        None
    }
}

/// `a[i] = a[i] / b` in place by the proven sequence (`true`) or the divider (`false`).
pub fn divide_in_place_by(d: &Divisor, sequence: bool, a: &mut [f32]) {
    d.divide_in_place_by(sequence, a)
}

/// [`divide_in_place_by`] on a given backend: `None` (nothing written) for the portable
/// path or a backend this CPU cannot run (every backend off x86-64).
pub fn divide_in_place_on(
    backend: crate::Backend,
    d: &Divisor,
    sequence: bool,
    a: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return d.divide_in_place_on(backend, sequence, a);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, d, sequence, a);
        None
    }
}

/// `out[i] = a[i] / b` by the proven sequence with the given check of the two-products
/// loop. Panics if the lengths differ.
pub fn divide_slice_checked_by(d: &Divisor, check: Check, a: &[f32], out: &mut [f32]) {
    d.divide_slice_checked_by(check, a, out)
}

/// `a[i] / b` by the proven sequence with the given check on `backend`, into `out`, or in
/// place where `out` is `None`: `None` (nothing written) for the portable path or a backend
/// this CPU cannot run (every backend off x86-64). Panics if the lengths differ.
pub fn divide_checked_on(
    backend: crate::Backend,
    d: &Divisor,
    check: Check,
    a: &mut [f32],
    out: Option<&mut [f32]>,
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return d.divide_checked_on(backend, check, a, out);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, d, check, a, out);
        None
    }
}

/// `b` prepared with `strategy`, without proof: anything but the proven choice may be
/// wrong (for tests that the proofs matter).
pub fn with_strategy(b: f32, strategy: Strategy) -> Divisor {
    Divisor::with_strategy(b, strategy)
}

/// [`with_strategy`] with `zh = RZ(1/b)` (one ulp toward zero from `RN(1/b)` where that
/// rounded away): Markstein's sequence, which needs `RN(1/b)`, is then wrong for some
/// dividends, so a test can read which lanes a loop gave it.
pub fn with_strategy_toward_zero(b: f32, strategy: Strategy) -> Divisor {
    Divisor::with_strategy_toward_zero(b, strategy)
}

/// Vectors per block of a `Divisor`'s lane-checked loop (the strategies' sequences on
/// every vector, each quotient range-checked; the flagged lanes redone by the divider).
#[cfg(fmadiv_x86)]
pub const LANE_BLOCK_VECTORS: usize = crate::divisor::LANE_LOOP.0;

/// The length from which a `Divisor`'s two products (not in place) run in flag-checked
/// chunks; shorter slices, and slices divided in place, take the window-checked loop
/// (blocks of [`LANE_BLOCK_VECTORS`] vectors, the head to the output's line where the
/// backend aligns its stores).
#[cfg(fmadiv_x86)]
pub const FLAG_CHECKED_FROM: usize = crate::divisor::FLAG_CHECKED_FROM;

/// [`FLAG_CHECKED_FROM`] where the chunks are compiled (x86-64), `None` elsewhere: for code
/// built on every target.
#[must_use]
pub const fn flag_checked_from() -> Option<usize> {
    #[cfg(fmadiv_x86)]
    return Some(FLAG_CHECKED_FROM);
    #[cfg(not(fmadiv_x86))]
    None
}

/// The blocks the lane-checked loop gives the divider alone after a block with flagged
/// lanes in two or more vectors, doubling after each further one with no passing
/// block between, up to the second.
#[cfg(fmadiv_x86)]
pub const LANE_BLOCKS_AFTER_FAILURE: (u32, u32) = crate::divisor::LANE_LOOP.1;

/// The elements a `Divisor`'s flag-checked two products on `backend` (slices of 512
/// elements and more, not in place) divide first, on the divider,
/// when writing to `out`: [`super::line_head`] where the backend aligns its stores; at
/// eight lanes those before `out`'s next vector boundary (one whole vector from the
/// start, its lanes past them divided again by the chunks); 0 for the portable path.
/// The chunks count from there.
#[cfg(fmadiv_x86)]
pub fn two_products_head(backend: crate::Backend, out: &[f32]) -> usize {
    match super::blocks::aligns_stores(backend) {
        Some(true) => super::line_head(backend, out),
        Some(false) => super::blocks::vector_head(backend, out, 0),
        None => 0,
    }
}

/// Whether the divisor's proof has been made.
pub fn is_proven(d: &Divisor) -> bool {
    d.is_proven()
}

/// The zero-sign repair class of a two-products divisor (0 none, 1 the dividend's sign,
/// 2 the product's; makes the proof); `None` for other strategies.
pub fn two_products_repair_class(d: &Divisor) -> Option<usize> {
    d.two_products_repair_class()
}
