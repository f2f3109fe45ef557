//! The plan's schedules and loops whatever the plan says, with a weakened kernel in their
//! blocks whose lanes show which loop ran.

// The x86 items these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

#[cfg(fmadiv_x86)]
use super::Variant;
#[cfg(fmadiv_x86)]
use super::kernels::run_pairwise;

/// `out[i] = a[i] / b[i]` by schedule `s`'s loop of `backend` as the plan runs it (the
/// rounding-mode guard, the block check, the back-off, the divider vectors), with the weakened
/// kernel of [`div_divisor_window_only_on`](super::div_divisor_window_only_on) in its blocks: an
/// infinite dividend over a divisor inside the window passes that kernel's check and comes out NaN
/// where the divider gives an infinity, so the output shows which lanes the loop gave the kernel.
/// `None` (nothing written) for a schedule without the kernel or a backend this CPU cannot run.
/// Panics if the lengths differ.
pub fn run_schedule_divisor_window_only_on(
    backend: crate::Backend,
    s: crate::Schedule,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, a, b, out, || {
        // The plan's own table of loops, the weakened kernel in them.
        let with_kernel = s.uses_kernel() && backend != crate::Backend::Portable;
        with_kernel.then(|| {
            crate::schedule::variant_fn_on::<{ Variant::DIVISOR_WINDOW_ONLY }, false, true>(
                backend, s,
            )
        })
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, a, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by schedule `s`'s loop of `backend` as the plan runs `recip`, with the
/// published kernel ([`Kernel::Published`](super::Kernel::Published): no near-all-ones rule) in its
/// blocks: where the backend's seed of `2 - 2^-23` is exactly 0.5, as on AMD's `rcpps` and Intel's
/// reference `vrcp14ps`, a divisor `±0x1.fffffep+e` inside the window passes that kernel's check
/// and comes out one ulp low (the tie of `kernel_notes`), so the output shows which lanes the loop
/// gave the kernel. `None` as [`run_schedule_divisor_window_only_on`]. Panics if the lengths
/// differ.
pub fn run_recip_schedule_published_on(
    backend: crate::Backend,
    s: crate::Schedule,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_recip_schedule_variant_on::<{ Variant::PUBLISHED }>(backend, s, b, out);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, b, out);
        None
    }
}

/// [`run_recip_schedule_published_on`] with the window-free kernel in the loop's blocks (the
/// shipped arithmetic, no input window): a zero divisor's lane comes out NaN where the kernel
/// computed it and `±∞` where the divider did, under every rounding mode. Inside the window
/// the reciprocal kernels gave the divider's bits under each directed mode wherever measured,
/// so this is what shows, under such a mode, whether the loop gave the kernel any lane.
pub fn run_recip_schedule_window_free_on(
    backend: crate::Backend,
    s: crate::Schedule,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_recip_schedule_variant_on::<{ Variant::NO_WINDOW }>(backend, s, b, out);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by schedule `s`'s `recip` loop of `backend` (the plan's own table of
/// loops) with kernel variant `V` in its blocks; `None` as
/// [`run_schedule_divisor_window_only_on`].
#[cfg(fmadiv_x86)]
fn run_recip_schedule_variant_on<const V: u8>(
    backend: crate::Backend,
    s: crate::Schedule,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    assert!(b.len() == out.len());
    if !(s.uses_kernel() && backend != crate::Backend::Portable && backend.runs_here()) {
        return None;
    }
    let f = crate::schedule::variant_fn_on::<V, true, true>(backend, s);
    // SAFETY: the backend runs here; b readable and out writable for its length, out a
    // unique borrow; `a` is not read for reciprocals.
    unsafe { f(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Some(())
}

/// Which of a plan's loops [`run_plan_weakened_on`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanLoop {
    /// `div_in_place`'s (the output may be the dividends).
    DivInPlace,
    /// `div`'s, `try_div`'s and `par_div`'s chunks' (an output that overlaps no input).
    Div,
    /// `recip`'s (an output that overlaps the divisors nowhere).
    Recip,
    /// `recip_in_place`'s: the divisors copied into the output, then the loop run on it.
    RecipInPlace,
}

/// `out = b`, then the loop `pick` gives run on `out` alone (`1 / b[i]` in place: `a`
/// unread): `None` (nothing written) where the backend does not run here or `pick` gives
/// no loop. Panics if the lengths differ.
#[cfg(fmadiv_x86)]
fn run_recip_in_place(
    backend: crate::Backend,
    b: &[f32],
    out: &mut [f32],
    pick: impl FnOnce() -> Option<crate::schedule::RawFn>,
) -> Option<()> {
    assert!(b.len() == out.len());
    if !backend.runs_here() {
        return None;
    }
    let f = pick()?;
    out.copy_from_slice(b);
    let p = out.as_mut_ptr();
    // SAFETY: the backend runs here; out is readable and writable for its length and is
    // both the divisors and the output, as the in-place loop allows; `a` is not read for
    // reciprocals.
    unsafe { f(core::ptr::null(), p, p, out.len()) };
    Some(())
}

/// `out[i] = a[i] / b[i]` (for the reciprocal loops, `1 / b[i]`, `a` unread) by the loop a
/// plan of `choices` runs for `out.len()` elements on `backend` — the plan's own size
/// classes, table of loops and `Plan::run` — with a weakened kernel in the kernel's
/// blocks: for division that of [`run_schedule_divisor_window_only_on`], for reciprocals
/// that of [`run_recip_schedule_published_on`], so the output shows which of the two size
/// classes' schedules ran. `None` (nothing written) for the portable path or a backend this
/// CPU cannot run. Panics if the lengths differ.
pub fn run_plan_weakened_on(
    backend: crate::Backend,
    choices: crate::plan::Choices,
    which: PlanLoop,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    {
        use crate::plan::{DIV, DIV_IN_PLACE, Plan, RECIP, RECIP_IN_PLACE};
        assert_eq!(a.len(), b.len());
        let len = b.len();
        let simd = backend != crate::Backend::Portable;
        let window_only =
            || Plan::weakened_on::<{ Variant::DIVISOR_WINDOW_ONLY }>(backend, choices);
        let published = || Plan::weakened_on::<{ Variant::PUBLISHED }>(backend, choices);
        if which == PlanLoop::RecipInPlace {
            let pick = || simd.then(|| published().run::<RECIP_IN_PLACE>(len));
            return run_recip_in_place(backend, b, out, pick);
        }
        run_pairwise(backend, a, b, out, || {
            simd.then(|| match which {
                PlanLoop::DivInPlace => window_only().run::<DIV_IN_PLACE>(len),
                PlanLoop::Div => window_only().run::<DIV>(len),
                PlanLoop::Recip | PlanLoop::RecipInPlace => published().run::<RECIP>(len),
            })
        })
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, choices, which, a, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by a reciprocal loop (`which`: [`PlanLoop::Recip`] or
/// [`PlanLoop::RecipInPlace`]) of a plan of `choices` on `backend`, as
/// [`run_plan_weakened_on`] runs it but with the window-free kernel of
/// [`run_recip_schedule_window_free_on`] in its blocks, whose zero divisors' lanes show
/// under every rounding mode. `None` as [`run_plan_weakened_on`]. Panics if the lengths
/// differ or `which` is a division's loop.
pub fn run_recip_plan_window_free_on(
    backend: crate::Backend,
    choices: crate::plan::Choices,
    which: PlanLoop,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    assert!(
        matches!(which, PlanLoop::Recip | PlanLoop::RecipInPlace),
        "{which:?} is not a reciprocal loop"
    );
    #[cfg(fmadiv_x86)]
    {
        use crate::plan::{Plan, RECIP, RECIP_IN_PLACE};
        let simd = backend != crate::Backend::Portable;
        let plan = || Plan::weakened_on::<{ Variant::NO_WINDOW }>(backend, choices);
        let len = b.len();
        if which == PlanLoop::RecipInPlace {
            let pick = || simd.then(|| plan().run::<RECIP_IN_PLACE>(len));
            return run_recip_in_place(backend, b, out, pick);
        }
        run_pairwise(backend, b, b, out, || {
            simd.then(|| plan().run::<RECIP>(len))
        })
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, choices, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by a reciprocal loop (`which`: [`PlanLoop::Recip`] or
/// [`PlanLoop::RecipInPlace`]) of a plan of `choices` on `backend` whose short slices, below
/// `eight_below` elements, run the eight-lane backend with the schedules `eight` (as a
/// table row's sixteen-lane column may say: `Plan::recip_eight_lanes_below`), with the
/// weakened kernel of [`run_recip_schedule_published_on`] in both widths' kernel blocks, so
/// the output shows which width's schedule ran. `None` (nothing written) for the portable
/// path, or where this CPU cannot run `backend` or lacks AVX2+FMA. Panics if the lengths
/// differ or `which` is a division's loop.
pub fn run_recip_plan_by_width_weakened_on(
    backend: crate::Backend,
    choices: crate::plan::Choices,
    eight: [crate::Schedule; 2],
    eight_below: usize,
    which: PlanLoop,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    assert!(
        matches!(which, PlanLoop::Recip | PlanLoop::RecipInPlace),
        "{which:?} is not a reciprocal loop"
    );
    #[cfg(fmadiv_x86)]
    {
        use crate::plan::{Plan, RECIP, RECIP_IN_PLACE};
        let eight_runs = crate::Backend::Avx2Fma.runs_here();
        let simd = backend != crate::Backend::Portable && eight_runs;
        let plan = || {
            Plan::weakened_by_width_on::<{ Variant::PUBLISHED }>(
                backend,
                choices,
                eight,
                eight_below,
            )
        };
        let len = b.len();
        if which == PlanLoop::RecipInPlace {
            let pick = || simd.then(|| plan().run::<RECIP_IN_PLACE>(len));
            return run_recip_in_place(backend, b, out, pick);
        }
        run_pairwise(backend, b, b, out, || {
            simd.then(|| plan().run::<RECIP>(len))
        })
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, choices, eight, eight_below, b, out);
        None
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` when `a` is `None`) by the given schedule, whatever
/// the plan chose. Returns `None` if the schedule needs AVX2+FMA and this CPU lacks it.
/// Panics if the lengths differ.
pub fn run_schedule(
    s: crate::Schedule,
    a: Option<&[f32]>,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    crate::schedule::run(s, a, b, out)
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` when `a` is `None`) by schedule `s` of a given
/// backend: `None` (nothing written) if this CPU cannot run it. `out` may not alias. Panics
/// if the lengths differ.
pub fn run_schedule_on(
    backend: crate::Backend,
    s: crate::Schedule,
    a: Option<&[f32]>,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    assert_eq!(b.len(), out.len());
    if !backend.runs_here()
        || (s != crate::Schedule::Portable && backend == crate::Backend::Portable)
    {
        return None;
    }
    let x = match a {
        Some(a) => {
            assert_eq!(a.len(), out.len());
            a.as_ptr()
        }
        None => core::ptr::null(),
    };
    let f = match a {
        Some(_) => crate::schedule::kernel_fn_on::<false, true>(backend, s),
        None => crate::schedule::kernel_fn_on::<true, true>(backend, s),
    };
    // SAFETY: lengths checked; out is a unique borrow; `a` is not read for reciprocals; the
    // backend runs here.
    unsafe { f(x, b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Some(())
}

/// `a[i] = a[i] / b[i]` by the given schedule (see [`run_schedule`]).
pub fn run_schedule_in_place(s: crate::Schedule, a: &mut [f32], b: &[f32]) -> Option<()> {
    crate::schedule::run_in_place(s, a, b)
}

/// `b[i] = 1 / b[i]` in place by the given schedule's reciprocal loop (see
/// [`run_schedule`]).
pub fn run_recip_schedule_in_place(s: crate::Schedule, b: &mut [f32]) -> Option<()> {
    crate::schedule::run_recip_in_place(s, b)
}

/// Schedule `s`'s entry point itself, with the rounding-mode guard of the kernel's schedules
/// (`guarded`) or without it (wrong under a rounding mode other than to nearest), by one call
/// path either way: for measuring what the guard costs.
pub fn run_entry(
    s: crate::Schedule,
    guarded: bool,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    if !crate::schedule::runs_here(s) {
        return None;
    }
    let f = if guarded {
        crate::schedule::kernel_fn::<false, true>(s)
    } else {
        crate::schedule::kernel_fn::<false, false>(s)
    };
    // SAFETY: the lengths are checked, out is a unique borrow, the schedule runs here.
    unsafe { f(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Some(())
}
