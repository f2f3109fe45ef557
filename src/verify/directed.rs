//! The directed loops of `div_rounded` and `div_bounds` with either step, and the directed
//! forms from a schedule's quotients.

// The x86 items these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

use super::Kernel;
#[cfg(fmadiv_x86)]
use super::Variant;

/// Which directed step [`div_rounded_with`] runs: the shipped one, or one weakened on
/// purpose (the tests and the self-check must catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectedStep {
    /// The step `div_rounded` runs.
    Shipped,
    /// The residual's sign taken as the side of the exact quotient, the divisor's sign
    /// ignored: wrong for negative divisors.
    DivisorSignIgnored,
    /// The shipped step, but a flag-checked chunk that raised the underflow flag is kept:
    /// wrong where a quotient underflows inexactly inside an otherwise clean chunk.
    UnderflowIgnored,
}

/// `$body` with `$m` the MXCSR rounding field of directed `$mode` as a constant (for the
/// loops' const parameter); returns `None` from the function for `Nearest`.
#[cfg(fmadiv_x86)]
macro_rules! with_mode {
    ($mode:expr, $m:ident => $body:expr) => {{
        use crate::Rounding;
        use crate::arch::x86_64::mode::{DOWN, TOWARD_ZERO, UP};
        match $mode {
            Rounding::Nearest => return None,
            Rounding::Down => {
                const $m: u8 = DOWN;
                $body
            }
            Rounding::Up => {
                const $m: u8 = UP;
                $body
            }
            Rounding::TowardZero => {
                const $m: u8 = TOWARD_ZERO;
                $body
            }
        }
    }};
}

/// `$body` with `$s` the directed step variant `$step` names as a constant (for the loops'
/// const parameter).
#[cfg(fmadiv_x86)]
macro_rules! with_step {
    ($step:expr, $s:ident => $body:expr) => {{
        use crate::arch::simd::directed::{DIVISOR_SIGN_IGNORED, SHIPPED, UNDERFLOW_IGNORED};
        match $step {
            DirectedStep::Shipped => {
                const $s: u8 = SHIPPED;
                $body
            }
            DirectedStep::DivisorSignIgnored => {
                const $s: u8 = DIVISOR_SIGN_IGNORED;
                $body
            }
            DirectedStep::UnderflowIgnored => {
                const $s: u8 = UNDERFLOW_IGNORED;
                $body
            }
        }
    }};
}

/// `out[i] = a[i] / b[i]` rounded in direction `mode` by the directed loop of the directed
/// `div_rounded`'s backend ([`crate::backend_of`]), with the given step. `None` (nothing
/// written) without one or for `Nearest`. Panics if the lengths differ.
pub fn div_rounded_with(
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    mode: crate::Rounding,
) -> Option<()> {
    div_rounded_on(
        crate::backend_of(crate::EntryPoint::DivRounded),
        step,
        a,
        b,
        out,
        mode,
    )
}

/// [`div_rounded_with`] on a given backend: `None` (nothing written) for the portable path,
/// a backend this CPU cannot run, or `Nearest`. Panics if the lengths differ.
pub fn div_rounded_on(
    backend: crate::Backend,
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    mode: crate::Rounding,
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    #[cfg(fmadiv_x86)]
    {
        if !backend.runs_here() {
            return None;
        }
        let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
        macro_rules! with {
            ($entry:path) => {{
                use $entry as entry;
                // SAFETY: the backend is in use; a and b readable and out writable for n
                // floats, out a unique borrow.
                with_mode!(mode, M => with_step!(step, S => unsafe {
                    match entry::rounded_takes_head(n) {
                        true => entry::div_rounded::<M, S, true>(x, y, o, n),
                        false => entry::div_rounded::<M, S, false>(x, y, o, n),
                    }
                }))
            }};
        }
        crate::dispatch::with_entry!(backend, with, return None);
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, step, a, b, out, mode);
        None
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `mode` as [`crate::div_rounded`] runs it on
/// `backend` (one divider pass under the mode where that backend takes one, the directed
/// loop below that), with the given step: a weakened step shows which lanes the public
/// function gave the step. `None` (nothing written) for the portable path, a backend this
/// CPU cannot run, or `Nearest`. Panics if the lengths differ.
pub fn run_div_rounded_on(
    backend: crate::Backend,
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    mode: crate::Rounding,
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    #[cfg(fmadiv_x86)]
    {
        if mode == crate::Rounding::Nearest || !backend.runs_here() {
            return None;
        }
        let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: the backend runs here; a and b readable and out writable for n floats,
        // out a unique borrow.
        with_step!(step, S => unsafe {
            crate::rounding::div_rounded_by::<S>(backend, x, y, o, n, mode)
        })
        .then_some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, step, a, b, out, mode);
        None
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` as [`crate::div_bounds`] runs them on
/// `backend`, with the given step (as [`run_div_rounded_on`]). `None` (nothing written) for
/// the portable path or a backend this CPU cannot run. Panics if the lengths differ.
pub fn run_div_bounds_on(
    backend: crate::Backend,
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    let from = super::bounds_eight_lane_head_from();
    run_div_bounds_with_head_on(backend, step, from, a, b, lo, hi)
}

/// [`run_div_bounds_on`] with the step loop at eight lanes taking the head to the lower bounds'
/// vector boundary from `eight_lane_head_from` elements (`usize::MAX`: never) rather than from this
/// CPU's [`bounds_eight_lane_head_from`](super::bounds_eight_lane_head_from): the head, and the
/// whole vectors that end the slice with it, on any CPU. A width that aligns its stores takes its
/// own head as `div_bounds` does.
pub fn run_div_bounds_with_head_on(
    backend: crate::Backend,
    step: DirectedStep,
    eight_lane_head_from: usize,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    let change = FormChange::EightLaneHeadFrom(eight_lane_head_from);
    div_bounds_changed_on(backend, step, change, a, b, lo, hi)
}

/// [`run_div_bounds_on`] with the step loop keeping the window check where the caller's
/// MXCSR holds the underflow, overflow or invalid flag below `window_if_flags_held_below`
/// elements (0: never, the flag-checked chunks whatever it holds; `usize::MAX`: at every
/// length), rather than below this CPU's record's
/// ([`crate::Avx512Family::bounds_window_if_flags_held_below`]): either answer to a
/// caller's sticky flags, on any CPU.
pub fn run_div_bounds_if_flags_held_on(
    backend: crate::Backend,
    step: DirectedStep,
    window_if_flags_held_below: usize,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    let change = FormChange::WindowIfFlagsHeldBelow(window_if_flags_held_below);
    div_bounds_changed_on(backend, step, change, a, b, lo, hi)
}

/// One field of this CPU's `div_bounds` form, set to another length.
// A portable-only build has no step loop, so nothing reads the lengths.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
#[derive(Clone, Copy)]
enum FormChange {
    /// `BoundsForm::eight_lane_head_from`.
    EightLaneHeadFrom(usize),
    /// `BoundsForm::window_if_flags_held_below`.
    WindowIfFlagsHeldBelow(usize),
}

/// Both bounds as `div_bounds` runs them on `backend` in this CPU's form with `change`, with
/// the given step: `None` (nothing written) for the portable path or a backend this CPU
/// cannot run. Panics if the lengths differ.
fn div_bounds_changed_on(
    backend: crate::Backend,
    step: DirectedStep,
    change: FormChange,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == lo.len() && lo.len() == hi.len());
    #[cfg(fmadiv_x86)]
    {
        let mut form = crate::dispatch::bounds_form();
        match change {
            FormChange::EightLaneHeadFrom(from) => form.eight_lane_head_from = from,
            FormChange::WindowIfFlagsHeldBelow(below) => form.window_if_flags_held_below = below,
        }
        div_bounds_in_form_on(backend, step, form, a, b, lo, hi)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, step, change, a, b, lo, hi);
        None
    }
}

/// Both bounds as `div_bounds` runs them on `backend` in `form`, with the given step;
/// `None` (nothing written) for a backend this CPU cannot run. The caller checked the
/// lengths.
#[cfg(fmadiv_x86)]
fn div_bounds_in_form_on(
    backend: crate::Backend,
    step: DirectedStep,
    form: crate::arch::simd::directed::BoundsForm,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    if !backend.runs_here() {
        return None;
    }
    let (x, y, n) = (a.as_ptr(), b.as_ptr(), a.len());
    let (l, h) = (lo.as_mut_ptr(), hi.as_mut_ptr());
    // SAFETY: the backend runs here; a and b readable and lo, hi writable for n floats (the
    // caller checked the lengths), each a unique borrow.
    with_step!(step, S => unsafe { crate::rounding::div_bounds_by::<S>(backend, x, y, l, h, n, form) })
        .then_some(())
}

/// The divider vectors per kernel block of schedule `s` if it runs the kernel (0 for the
/// kernel alone).
fn divider_vectors(s: crate::Schedule) -> Option<usize> {
    match s {
        crate::Schedule::Kernel => Some(0),
        crate::Schedule::Mixed(m) => Some(usize::from(m.divider_vectors())),
        _ => None,
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `mode` from schedule `s`'s quotients on
/// `backend`: blocks of the kernel's quotients and `s`'s divider vectors, each quotient
/// stepped by its residual's sign (`crate::arch::simd::directed_mixed`; the shipped
/// directed form where MXCSR does not round to nearest). Built to be measured against the
/// shipped forms (`fmadiv bench --rounding`); no plan chooses it yet. `None` (nothing
/// written) for `Nearest`, a schedule that runs no kernel, the portable path or a backend
/// this CPU cannot run. Panics if the lengths differ.
pub fn div_rounded_from_schedule_on(
    backend: crate::Backend,
    s: crate::Schedule,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    mode: crate::Rounding,
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    #[cfg(fmadiv_x86)]
    {
        use crate::arch::simd::directed::SHIPPED as STEP;
        const KERNEL: u8 = Variant::SHIPPED;
        let d = divider_vectors(s)?;
        if !backend.runs_here() {
            return None;
        }
        let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
        macro_rules! with {
            ($entry:path) => {{
                use $entry as entry;
                // SAFETY: the backend runs here; a and b readable and out writable for n
                // floats, out a unique borrow.
                with_mode!(mode, M => unsafe {
                    entry::div_rounded_mixed::<M, KERNEL, STEP>(x, y, o, n, d)
                })
            }};
        }
        crate::dispatch::with_entry!(backend, with, return None);
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, a, b, out, mode, divider_vectors);
        None
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` from schedule `s`'s quotients on
/// `backend` (as [`div_rounded_from_schedule_on`]), by the given kernel variant and step:
/// weakened ones must be caught. `None` (nothing written) as there, and for
/// [`DirectedStep::UnderflowIgnored`] (this loop has no flag-checked chunks) and the
/// kernels of the sixteen-lane rule on any backend ([`Kernel::Vrcp14`]: the shipped kernel of
/// a sixteen-lane backend runs it). Panics if the lengths differ.
#[allow(clippy::too_many_arguments)]
pub fn div_bounds_from_schedule_on(
    backend: crate::Backend,
    s: crate::Schedule,
    kernel: Kernel,
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == lo.len() && lo.len() == hi.len());
    #[cfg(fmadiv_x86)]
    {
        use crate::arch::simd::directed::{DIVISOR_SIGN_IGNORED, SHIPPED};
        let d = divider_vectors(s)?;
        if !backend.runs_here() {
            return None;
        }
        let (x, y, n) = (a.as_ptr(), b.as_ptr(), a.len());
        let (l, h) = (lo.as_mut_ptr(), hi.as_mut_ptr());
        let form = crate::dispatch::bounds_form();
        macro_rules! with {
            ($entry:path) => {{
                use $entry as entry;
                macro_rules! run {
                    ($kernel:expr, $step:expr) => {
                        // SAFETY: the backend runs here; a and b readable and lo, hi
                        // writable for n floats, unique borrows overlapping nothing.
                        unsafe {
                            entry::div_bounds_mixed::<{ $kernel }, { $step }>(
                                x, y, l, h, n, d, form,
                            )
                        }
                    };
                }
                match (kernel, step) {
                    (_, DirectedStep::UnderflowIgnored) => return None,
                    (Kernel::Shipped, DirectedStep::Shipped) => run!(Variant::SHIPPED, SHIPPED),
                    (Kernel::Newton, DirectedStep::Shipped) => run!(Variant::NEWTON, SHIPPED),
                    (Kernel::Published, DirectedStep::Shipped) => {
                        run!(Variant::PUBLISHED, SHIPPED)
                    }
                    (Kernel::Shipped, DirectedStep::DivisorSignIgnored) => {
                        run!(Variant::SHIPPED, DIVISOR_SIGN_IGNORED)
                    }
                    (_, DirectedStep::DivisorSignIgnored) => return None,
                    // The sixteen-lane backends' shipped kernel has that rule already.
                    (Kernel::Vrcp14 | Kernel::Vrcp14Narrowed, _) => return None,
                }
            }};
        }
        crate::dispatch::with_entry!(backend, with, return None);
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, kernel, step, a, b, lo, hi, divider_vectors);
        None
    }
}
