//! The door to the kernels for the verification crate (`fmadiv-verify`: the sweeps, the
//! digests, the benchmark methods) and the tests: feature `verify`, off by default.
//!
//! **Not part of the user-facing API**: what is here may change in any release, and some of
//! it is wrong on purpose — the weakened kernel variants ([`Kernel::Newton`],
//! [`Kernel::Published`]), the directed step that ignores the divisor's sign, the loops
//! without the rounding-mode guard — so that the sweeps and tests can show they catch it.
//! A default build compiles none of it: the weakened variants are instantiated only here.
//!
//! What it offers:
//! - the variants and the loops that run one on every lane ([`div_with`], [`recip_with`]);
//! - every schedule whatever the plan says ([`run_schedule`], [`run_schedule_in_place`];
//!   [`run_entry`]: an entry point with its rounding-mode guard or without;
//!   [`run_schedule_divisor_window_only_on`], [`run_recip_schedule_published_on`]: a
//!   schedule's loop, from the plan's own table of them, with a weakened kernel whose lanes
//!   show, to test which lanes the loop gives the kernel; [`run_plan_weakened_on`]: the
//!   loop a plan of given choices runs for a length, its kernel weakened so) and the
//!   directed loop with either step ([`div_rounded_with`]); the checked loops' blocks,
//!   chunks and back-offs ([`MIXED_BLOCK_VECTORS`], [`FLAG_CHUNK`],
//!   [`DIRECTED_BLOCK_VECTORS`] and the like), which those tests hold the loops to;
//! - a `Divisor`'s paths whatever the plan says ([`divisor`]); the in-register token's
//!   kernel switch ([`token_with_kernel`]) and both tokens' choice between the kernel and
//!   `vdivps`, run with a weakened kernel whose lanes show it
//!   ([`token_div_divisor_window_only`], [`token16_recip_published`] and the like);
//! - the kernel's steps for the sweeps, which run them on chosen seeds and compare them pair
//!   by pair (`x86`), the named bit patterns ([`bits`]), the portable path ([`portable`]),
//!   and the `rcpps` sample check on any table ([`rcp_sample_check`]).

// The x86 tokens these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

pub use crate::variant::{Kernel, Variant};

/// The named bit patterns of binary32 the kernels use.
pub mod bits {
    pub use crate::bits::*;
}

/// The portable path: one quotient with x86's bits, in every rounding direction.
pub mod portable {
    pub use crate::arch::portable::{div_in_place, div_one, div_rounded_one, div_slices};
}

/// Whether this build of the library is unoptimised (opt-level 0, a user's dev profile):
/// its slice functions, the directed ones and the `Divisor`'s divider loop then run `asm!`
/// divider loops that need no inlining, not the plan's loops.
pub const UNOPTIMIZED: bool = cfg!(fmadiv_unoptimized);

/// Below this many elements the rayon forms (`par_div`, `par_div_in_place`, `par_recip`) stay
/// on the calling thread.
#[cfg(feature = "rayon")]
pub const PAR_MIN_LEN: usize = crate::parallel::PAR_MIN_LEN;

/// The rayon forms' chunks on the pool at every length, [`PAR_MIN_LEN`] and the caller's
/// MXCSR set aside: what `examples/parallel_by_length.rs` times to show where the threshold
/// belongs. Each panics where the lengths differ.
#[cfg(feature = "rayon")]
pub mod par {
    use crate::parallel::on_pool;

    /// `out[i] = a[i] / b[i]` on rayon's pool.
    pub fn div(a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(
            a.len() == out.len() && b.len() == out.len(),
            "lengths differ"
        );
        on_pool::div(a, b, out);
    }

    /// `a[i] = a[i] / b[i]` on rayon's pool.
    pub fn div_in_place(a: &mut [f32], b: &[f32]) {
        assert_eq!(a.len(), b.len(), "lengths differ");
        on_pool::div_in_place(a, b);
    }

    /// `out[i] = 1 / b[i]` on rayon's pool.
    pub fn recip(b: &[f32], out: &mut [f32]) {
        assert_eq!(b.len(), out.len(), "lengths differ");
        on_pool::recip(b, out);
    }
}

/// Whether the x86 kernels exist in this build and a SIMD backend is in use (AVX2+FMA,
/// AVX-512F, or the 16-lane model): [`div_with`], [`recip_with`] and [`div_rounded_with`]
/// run that backend's loops.
pub fn has_kernel() -> bool {
    crate::backend() != crate::Backend::Portable
}

/// The forced-kernel loop of variant `V` of `backend`, or `None` for the portable path.
#[cfg(fmadiv_x86)]
fn kernel_entry<const V: u8, const RECIP: bool>(
    backend: crate::Backend,
) -> Option<crate::schedule::RawFn> {
    macro_rules! kernel_of {
        ($entry:path) => {{
            use $entry as entry;
            Some(entry::kernel::<V, RECIP> as crate::schedule::RawFn)
        }};
    }
    crate::dispatch::with_entry!(backend, kernel_of, None)
}

/// Runs the loop `pick` gives for `backend` on `a`, `b` and `out`: `None` (nothing written)
/// where the backend does not run here or `pick` gives none. Panics if the lengths differ.
#[cfg(fmadiv_x86)]
fn run_pairwise(
    backend: crate::Backend,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    pick: impl FnOnce() -> Option<crate::schedule::RawFn>,
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    if !backend.runs_here() {
        return None;
    }
    let f = pick()?;
    // SAFETY: the backend runs here; a and b readable and out writable for its length, out
    // a unique borrow.
    unsafe { f(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Some(())
}

/// `out[i] = a[i] / b[i]` by the given kernel variant on every lane (no divider vectors mixed
/// in, no fallback for whole blocks: every lane the fast path accepts is the kernel's) of
/// the backend in use (see [`has_kernel`]), or `None` (nothing written) without one. Panics
/// if the lengths differ.
pub fn div_with(kernel: Kernel, a: &[f32], b: &[f32], out: &mut [f32]) -> Option<()> {
    div_with_on(crate::backend(), kernel, a, b, out)
}

/// [`div_with`] on a given backend: `None` (nothing written) for the portable path or a
/// backend this CPU cannot run. Panics if the lengths differ.
pub fn div_with_on(
    backend: crate::Backend,
    kernel: Kernel,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, a, b, out, || match kernel {
        Kernel::Shipped => kernel_entry::<{ Variant::SHIPPED }, false>(backend),
        Kernel::Newton => kernel_entry::<{ Variant::NEWTON }, false>(backend),
        Kernel::Published => kernel_entry::<{ Variant::PUBLISHED }, false>(backend),
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, kernel, a, b, out);
        None
    }
}

/// `out[i] = a[i] / b[i]` by the shipped arithmetic on every lane of `backend`, its window
/// checked on the divisor alone (weakened on purpose: zeros, infinities, NaNs, huge and tiny
/// dividends pass the check): `None` (nothing written) as [`div_with_on`]. Panics if the
/// lengths differ.
pub fn div_divisor_window_only_on(
    backend: crate::Backend,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, a, b, out, || {
        kernel_entry::<{ Variant::DIVISOR_WINDOW_ONLY }, false>(backend)
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, a, b, out);
        None
    }
}

/// Kernel vectors per block of the plan's mixed loops: a step of schedule `mix-d` is one
/// block through the kernel, then `d` divider vectors (the kernel alone: `d = 0`).
#[cfg(fmadiv_x86)]
pub const MIXED_BLOCK_VECTORS: usize = crate::arch::simd::loops::BLOCK_VECTORS;

/// The elements `backend`'s slice loops (the divider's, the mixed schedules', the
/// embedded-rounding pass of `div_rounded` and `div_bounds`, the `Divisor`'s) divide first
/// when writing to `out`: those before its first cache-line boundary, as one partial vector,
/// where the backend aligns its stores (a vector a line: the sixteen-lane backend and its
/// model); 0 elsewhere. A mixed loop's steps and kernel blocks count from there. (The
/// directed loops take it from a length on: [`directed_line_head`]; the `Divisor`'s
/// flag-checked two products take one at eight lanes too: [`divisor::two_products_head`].)
#[cfg(fmadiv_x86)]
pub fn line_head(backend: crate::Backend, out: &[f32]) -> usize {
    let aligns = aligns_stores(backend).unwrap_or(false);
    crate::arch::simd::divider::line_head_len(aligns, out.as_ptr(), out.len())
}

/// Whether `backend` aligns its stores (`Vector::ALIGNS_STORES`); `None` for a backend
/// without entry points.
#[cfg(fmadiv_x86)]
fn aligns_stores(backend: crate::Backend) -> Option<bool> {
    macro_rules! aligns_of {
        ($entry:path) => {{
            use $entry as entry;
            Some(entry::ALIGNS_STORES)
        }};
    }
    crate::dispatch::with_entry!(backend, aligns_of, None)
}

/// The elements the directed loops (`div_rounded`'s and `div_bounds`' step) divide first
/// when their first output is `out`: [`line_head`] for slices of
/// `(DIRECTED_FLAGGED_FROM_VECTORS + 1)` vectors and more, 0 for shorter ones. Their blocks
/// and chunks count from there.
#[cfg(fmadiv_x86)]
pub fn directed_line_head(backend: crate::Backend, out: &[f32]) -> usize {
    match out.len() >= crate::arch::simd::directed::head_from(backend.lanes()) {
        true => line_head(backend, out),
        false => 0,
    }
}

/// From how many elements `div_bounds` at eight lanes begins with the head to the lower
/// bounds' vector boundary on this CPU (`usize::MAX`: never): its family's record,
/// [`crate::Avx512Family::bounds_eight_lane_head_from`].
pub fn bounds_eight_lane_head_from() -> usize {
    #[cfg(fmadiv_x86)]
    return crate::dispatch::bounds_form().eight_lane_head_from;
    #[cfg(not(fmadiv_x86))]
    usize::MAX
}

/// The elements `div_bounds`' step loop on `backend` divides first when its lower bounds
/// are `out`, at eight lanes from `eight_lane_head_from` elements
/// ([`bounds_eight_lane_head_from`] as shipped): those before `out`'s first vector boundary
/// (fewer than a vector; 0 for the portable path). Its blocks and chunks count from there.
/// A width that aligns its stores takes [`directed_line_head`].
#[cfg(fmadiv_x86)]
pub fn bounds_head(backend: crate::Backend, out: &[f32], eight_lane_head_from: usize) -> usize {
    match aligns_stores(backend) {
        Some(true) => directed_line_head(backend, out),
        Some(false) => vector_head(backend, out, eight_lane_head_from),
        None => 0,
    }
}

/// The head a loop whose stores the width does not align takes from `from` elements on (and
/// never below a vector): the elements before `out`'s first vector boundary, by one whole
/// vector from the start.
#[cfg(fmadiv_x86)]
fn vector_head(backend: crate::Backend, out: &[f32], from: usize) -> usize {
    let lanes = backend.lanes();
    match out.len() >= from.max(lanes) {
        true => crate::arch::simd::divider::floats_to_boundary(out.as_ptr(), lanes * 4),
        false => 0,
    }
}

/// The steps a mixed loop gives the divider alone after a kernel block that failed its
/// check with a lane outside the input window, doubling after each further failure with no
/// passing block between, up to the second.
#[cfg(fmadiv_x86)]
pub const MIXED_STEPS_AFTER_FAILURE: (u32, u32) = crate::arch::simd::loops::MixBackoff::RULE;

/// Elements per chunk of the flag-checked loops (the directed functions from
/// [`DIRECTED_FLAGGED_FROM_VECTORS`] vectors, the `Divisor`'s two products from 512
/// elements): each chunk is judged by MXCSR's flags as a whole.
#[cfg(fmadiv_x86)]
pub const FLAG_CHUNK: usize = crate::arch::simd::flagged::FLAG_CHUNK;

/// The chunks a flag-checked loop gives the divider alone after a voided chunk, doubling
/// after each further failure with no passing chunk between, up to the second. Counted in
/// elements ([`FLAG_CHUNK`] a chunk): a call shorter than a chunk uses up its own length.
#[cfg(fmadiv_x86)]
pub const FLAG_CHUNKS_AFTER_FAILURE: (u32, u32) = {
    let (first, most) = crate::arch::simd::flagged::ChunkBackoff::RULE;
    (first / FLAG_CHUNK as u32, most / FLAG_CHUNK as u32)
};

/// The directed loops below [`DIRECTED_FLAGGED_FROM_VECTORS`] vectors (or under
/// flush-to-zero or denormals-are-zero) check the window in blocks of this many vectors ...
#[cfg(fmadiv_x86)]
pub const DIRECTED_BLOCK_VECTORS: usize = crate::arch::simd::directed::BLOCK_VECTORS;

/// ... and give the divider alone this many blocks after one with a lane outside the
/// window, doubling after each further failure with no passing block between, up to the
/// second.
#[cfg(fmadiv_x86)]
pub const DIRECTED_BLOCKS_AFTER_FAILURE: (u32, u32) =
    crate::arch::simd::directed::RegionBackoff::RULE;

/// From this many vectors of the backend's width (256 elements at eight lanes, 512 at
/// sixteen) the directed loops run the flag-checked chunks (where MXCSR flushes and zeroes
/// nothing).
#[cfg(fmadiv_x86)]
pub const DIRECTED_FLAGGED_FROM_VECTORS: usize = crate::arch::simd::directed::FLAGGED_FROM_VECTORS;

/// `div_rounded` takes one divider pass under the mode from this many elements (with
/// embedded rounding at every length), the directed loop below.
#[cfg(fmadiv_x86)]
pub const DIRECTED_ONE_PASS_FROM: usize = crate::arch::simd::directed::ONE_PASS_FROM;

/// With embedded rounding, `div_bounds` takes two divider passes (one per bound) from this
/// many elements where the CPU says nothing else ([`directed_two_passes_from`]).
#[cfg(fmadiv_x86)]
pub const DIRECTED_TWO_PASSES_FROM: usize = crate::arch::simd::directed::TWO_PASSES_FROM;

/// With embedded rounding, `div_bounds` takes two divider passes (one per bound) from this
/// many elements on this CPU, the directed loop below (`usize::MAX`, never, on a family
/// whose record says [`crate::Avx512Family::bounds_step_only`]).
#[cfg(fmadiv_x86)]
pub fn directed_two_passes_from() -> usize {
    crate::dispatch::bounds_form().two_passes_from
}

/// `out[i] = a[i] / b[i]` by schedule `s`'s loop of `backend` as the plan runs it (the
/// rounding-mode guard, the block check, the back-off, the divider vectors), with the
/// weakened kernel of [`div_divisor_window_only_on`] in its blocks: an infinite dividend
/// over a divisor inside the window passes that kernel's check and comes out NaN where the
/// divider gives an infinity, so the output shows which lanes the loop gave the kernel.
/// `None` (nothing written) for a schedule without the kernel or a backend this CPU cannot
/// run. Panics if the lengths differ.
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

/// `out[i] = 1 / b[i]` by schedule `s`'s loop of `backend` as the plan runs `recip`, with
/// the published kernel ([`Kernel::Published`]: no near-all-ones rule) in its blocks: where
/// the backend's seed of `2 - 2^-23` is exactly 0.5, as on AMD's `rcpps` and Intel's
/// reference `vrcp14ps`, a divisor `±0x1.fffffep+e` inside the window passes that kernel's
/// check and comes out one ulp low (the tie of `kernel_notes`), so the output shows which
/// lanes the loop gave the kernel. `None` as [`run_schedule_divisor_window_only_on`].
/// Panics if the lengths differ.
pub fn run_recip_schedule_published_on(
    backend: crate::Backend,
    s: crate::Schedule,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    {
        assert!(b.len() == out.len());
        if !(s.uses_kernel() && backend != crate::Backend::Portable && backend.runs_here()) {
            return None;
        }
        // The plan's own table of loops, the weakened kernel in them.
        let f = crate::schedule::variant_fn_on::<{ Variant::PUBLISHED }, true, true>(backend, s);
        // SAFETY: the backend runs here; b readable and out writable for its length, out a
        // unique borrow; `a` is not read for reciprocals.
        unsafe { f(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s, b, out);
        None
    }
}

/// Which of a plan's loops [`run_plan_weakened_on`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanLoop {
    /// `div_in_place`'s (the output may be the dividends).
    DivInPlace,
    /// `div`'s, `try_div`'s and `par_div`'s chunks' (an output that overlaps no input).
    Div,
    /// `recip`'s.
    Recip,
}

/// `out[i] = a[i] / b[i]` (for [`PlanLoop::Recip`], `1 / b[i]`, `a` unread) by the loop a
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
    return run_pairwise(backend, a, b, out, || {
        use crate::plan::{DIV, DIV_IN_PLACE, Plan, RECIP};
        // The lengths are equal (run_pairwise checks them first).
        let len = b.len();
        let simd = backend != crate::Backend::Portable;
        let window_only =
            || Plan::weakened_on::<{ Variant::DIVISOR_WINDOW_ONLY }>(backend, choices);
        simd.then(|| match which {
            PlanLoop::DivInPlace => window_only().run::<DIV_IN_PLACE>(len),
            PlanLoop::Div => window_only().run::<DIV>(len),
            PlanLoop::Recip => {
                Plan::weakened_on::<{ Variant::PUBLISHED }>(backend, choices).run::<RECIP>(len)
            }
        })
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, choices, which, a, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by the `recip` loop of a plan of `choices` on `backend` whose short
/// slices, below `eight_below` elements, run the eight-lane backend with the schedules
/// `eight` (as a table row's sixteen-lane column may say: `Plan::recip_eight_lanes_below`),
/// with the weakened kernel of [`run_recip_schedule_published_on`] in both widths' kernel
/// blocks, so the output shows which width's schedule ran. `None` (nothing written) for the
/// portable path, or where this CPU cannot run `backend` or lacks AVX2+FMA. Panics if the
/// lengths differ.
pub fn run_recip_plan_by_width_weakened_on(
    backend: crate::Backend,
    choices: crate::plan::Choices,
    eight: [crate::Schedule; 2],
    eight_below: usize,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, b, b, out, || {
        use crate::plan::{Plan, RECIP};
        let eight_runs = crate::Backend::Avx2Fma.runs_here();
        let simd = backend != crate::Backend::Portable && eight_runs;
        let published = Plan::weakened_by_width_on::<{ Variant::PUBLISHED }>;
        simd.then(|| published(backend, choices, eight, eight_below).run::<RECIP>(b.len()))
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, choices, eight, eight_below, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by the reciprocal kernel with the given variant's near-all-ones fix
/// (or without it, for `Published`) on every lane of `recip`'s backend, or `None` (nothing
/// written) without one. Panics if the lengths differ.
pub fn recip_with(kernel: Kernel, b: &[f32], out: &mut [f32]) -> Option<()> {
    recip_with_on(crate::backend_of(crate::EntryPoint::Recip), kernel, b, out)
}

/// [`recip_with`] on a given backend (see [`div_with_on`]).
pub fn recip_with_on(
    backend: crate::Backend,
    kernel: Kernel,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    {
        assert!(b.len() == out.len());
        if !backend.runs_here() {
            return None;
        }
        let f = match kernel {
            Kernel::Shipped => kernel_entry::<{ Variant::SHIPPED }, true>(backend),
            Kernel::Newton => kernel_entry::<{ Variant::NEWTON }, true>(backend),
            Kernel::Published => kernel_entry::<{ Variant::PUBLISHED }, true>(backend),
        }?;
        // SAFETY: the backend is in use; b readable and out writable for its length; `a`
        // is not read for reciprocals.
        unsafe { f(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, kernel, b, out);
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
    let from = bounds_eight_lane_head_from();
    run_div_bounds_with_head_on(backend, step, from, a, b, lo, hi)
}

/// [`run_div_bounds_on`] with the step loop at eight lanes taking the head to the lower
/// bounds' vector boundary from `eight_lane_head_from` elements (`usize::MAX`: never)
/// rather than from this CPU's [`bounds_eight_lane_head_from`]: the head, and the whole
/// vectors that end the slice with it, on any CPU. A width that aligns its stores takes its
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
    assert!(a.len() == b.len() && b.len() == lo.len() && lo.len() == hi.len());
    #[cfg(fmadiv_x86)]
    {
        let form = crate::arch::simd::directed::BoundsForm {
            eight_lane_head_from,
            ..crate::dispatch::bounds_form()
        };
        if !backend.runs_here() {
            return None;
        }
        let (x, y, n) = (a.as_ptr(), b.as_ptr(), a.len());
        let (l, h) = (lo.as_mut_ptr(), hi.as_mut_ptr());
        // SAFETY: the backend runs here; a and b readable and lo, hi writable for n floats,
        // each a unique borrow.
        with_step!(step, S => unsafe { crate::rounding::div_bounds_by::<S>(backend, x, y, l, h, n, form) })
            .then_some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, step, a, b, lo, hi, eight_lane_head_from);
        None
    }
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
/// [`DirectedStep::UnderflowIgnored`] (this loop has no flag-checked chunks). Panics if the
/// lengths differ.
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

/// A `Divisor`'s paths whatever the plan says, for tests of both and `fmadiv plan
/// --measure`.
pub mod divisor {
    use crate::{Divisor, Strategy};

    pub use crate::divisor::Check;

    /// `out[i] = a[i] / b` by the proven sequence (`true`; the proof made if it was not) or
    /// the divider (`false`). Panics if the lengths differ.
    pub fn divide_slice_by(d: &Divisor, sequence: bool, a: &[f32], out: &mut [f32]) {
        d.divide_slice_by(sequence, a, out)
    }

    /// [`divide_slice_by`] on a given backend: `None` (nothing written) for the portable
    /// path or a backend this CPU cannot run.
    #[cfg(fmadiv_x86)]
    pub fn divide_slice_on(
        backend: crate::Backend,
        d: &Divisor,
        sequence: bool,
        a: &[f32],
        out: &mut [f32],
    ) -> Option<()> {
        d.divide_slice_on(backend, sequence, a, out)
    }

    /// `a[i] = a[i] / b` in place by the proven sequence (`true`) or the divider (`false`).
    pub fn divide_in_place_by(d: &Divisor, sequence: bool, a: &mut [f32]) {
        d.divide_in_place_by(sequence, a)
    }

    /// [`divide_in_place_by`] on a given backend: `None` (nothing written) for the portable
    /// path or a backend this CPU cannot run.
    #[cfg(fmadiv_x86)]
    pub fn divide_in_place_on(
        backend: crate::Backend,
        d: &Divisor,
        sequence: bool,
        a: &mut [f32],
    ) -> Option<()> {
        d.divide_in_place_on(backend, sequence, a)
    }

    /// `out[i] = a[i] / b` by the proven sequence with the given check of the two-products
    /// loop. Panics if the lengths differ.
    pub fn divide_slice_checked_by(d: &Divisor, check: Check, a: &[f32], out: &mut [f32]) {
        d.divide_slice_checked_by(check, a, out)
    }

    /// `b` prepared with `strategy`, without proof: anything but the proven choice may be
    /// wrong (for tests that the proofs matter).
    pub fn with_strategy(b: f32, strategy: Strategy) -> Divisor {
        Divisor::with_strategy(b, strategy)
    }

    /// Vectors per block of a `Divisor`'s lane-checked loop (the strategies' sequences on
    /// every vector, each quotient range-checked; the flagged lanes redone by the divider).
    #[cfg(fmadiv_x86)]
    pub const LANE_BLOCK_VECTORS: usize = crate::divisor::LANE_LOOP.0;

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
        match super::aligns_stores(backend) {
            Some(true) => super::line_head(backend, out),
            Some(false) => super::vector_head(backend, out, 0),
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
}

/// The in-register token dividing by the kernel (`true`) or `vdivps` (`false`) whatever the
/// plan says (the bits are the same).
#[cfg(fmadiv_x86)]
pub fn token_with_kernel(token: crate::simd::Avx2Fma, kernel: bool) -> crate::simd::Avx2Fma {
    token.with_kernel(kernel)
}

/// `out[i] = a[i] / b[i]` eight lanes at a time by `token.div_ps` inside its `vectorize`,
/// as a caller's loop runs it (the token's choice of the kernel or `vdivps`, both rounding-
/// mode checks), with the weakened kernel of [`div_divisor_window_only_on`] where it takes
/// the kernel: an infinite dividend over a divisor inside the window comes out NaN there
/// (an infinity from `vdivps`), so the output shows which the token took. Panics unless the
/// three lengths are one multiple of 8.
#[cfg(fmadiv_x86)]
pub fn token_div_divisor_window_only(
    token: crate::simd::Avx2Fma,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) {
    token.vectorize(|t| {
        vector_loop(a, b, out, |x, y| {
            t.div_ps_by::<{ Variant::DIVISOR_WINDOW_ONLY }>(x, y)
        })
    });
}

/// `out[i] = 1 / b[i]` eight lanes at a time by `token.recip_ps` inside its `vectorize`,
/// with the published kernel where it takes the kernel (see
/// [`run_recip_schedule_published_on`]: one ulp low for `±0x1.fffffep+e` where the seed of
/// `2 - 2^-23` is 0.5). Panics unless the two lengths are one multiple of 8.
#[cfg(fmadiv_x86)]
pub fn token_recip_published(token: crate::simd::Avx2Fma, b: &[f32], out: &mut [f32]) {
    token.vectorize(|t| vector_loop(b, b, out, |_, y| t.recip_ps_by::<{ Variant::PUBLISHED }>(y)));
}

/// [`token_div_divisor_window_only`] by the sixteen-lane token (`token.div_ps` inside its
/// `vectorize`, sixteen lanes at a time). Panics unless the three lengths are one multiple
/// of 16.
#[cfg(fmadiv_x86)]
pub fn token16_div_divisor_window_only(
    token: crate::simd::Avx512,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) {
    token.vectorize(|t| {
        vector_loop(a, b, out, |x, y| {
            t.div_ps_by::<{ Variant::DIVISOR_WINDOW_ONLY }>(x, y)
        })
    });
}

/// [`token_recip_published`] by the sixteen-lane token. Panics unless the two lengths are
/// one multiple of 16.
#[cfg(fmadiv_x86)]
pub fn token16_recip_published(token: crate::simd::Avx512, b: &[f32], out: &mut [f32]) {
    token.vectorize(|t| vector_loop(b, b, out, |_, y| t.recip_ps_by::<{ Variant::PUBLISHED }>(y)));
}

/// A `core::arch` vector of `LANES` `f32` lanes in memory order, `4 * LANES` bytes, every
/// bit pattern valid.
#[cfg(fmadiv_x86)]
trait F32Lanes: Copy {
    const LANES: usize;
}

#[cfg(fmadiv_x86)]
impl F32Lanes for core::arch::x86_64::__m256 {
    const LANES: usize = 8;
}

#[cfg(fmadiv_x86)]
impl F32Lanes for core::arch::x86_64::__m512 {
    const LANES: usize = 16;
}

/// A caller's loop over vectors `V`: `out`'s from `f` of `a`'s and `b`'s. Panics unless the
/// three lengths are one multiple of `V::LANES`.
#[cfg(fmadiv_x86)]
#[inline(always)]
fn vector_loop<V: F32Lanes>(a: &[f32], b: &[f32], out: &mut [f32], f: impl Fn(V, V) -> V) {
    const { assert!(size_of::<V>() == 4 * V::LANES) };
    let n = V::LANES;
    assert!(a.len() == b.len() && b.len() == out.len() && out.len().is_multiple_of(n));
    let groups = out.chunks_exact_mut(n).zip(a.chunks_exact(n));
    for ((o, x), y) in groups.zip(b.chunks_exact(n)) {
        // SAFETY: each chunk holds `V::LANES` floats, the bytes of one `V` (its size checked
        // above), whose every bit pattern is valid; unaligned reads and writes.
        unsafe {
            let load = |v: &[f32]| core::ptr::read_unaligned(v.as_ptr().cast::<V>());
            core::ptr::write_unaligned(o.as_mut_ptr().cast::<V>(), f(load(x), load(y)));
        }
    }
}

/// The first input of the `rcpps` sample whose seed from `rcp` breaks `|1 - x·r| <= bound`:
/// the library's check before any kernel runs, on a table of the caller's (a simulated CPU).
pub fn rcp_sample_check(
    bound: f64,
    rcp: impl FnMut([f32; 8]) -> [f32; 8],
) -> Result<(), crate::plan::OutOfBound> {
    crate::seeds::check_sample_within(bound, rcp)
}

/// This CPU's `vrcp14ps` of eight inputs, or `None` without AVX-512F (to compare the model's
/// table with the real one).
#[cfg(fmadiv_x86)]
pub fn native_rcp14(x: [f32; 8]) -> Option<[f32; 8]> {
    Some(crate::arch::x86_64::avx512::Avx512::new()?.rcp8(x))
}

/// The software model of the sixteen-lane instructions: its `vrcp14ps` tables, and its
/// [`Vector`](x86::Vector) type with each table (the backend that runs it is
/// [`crate::Backend::Avx512Model`]).
#[cfg(fmadiv_x86)]
pub mod avx512_model {
    pub use crate::arch::x86_64::avx512_model::{
        Avx512Model, HIGH, INTEL, LANES, LOW, RCP14_BOUND, Seeds, rcp14, rcp14_edge,
        rcp14_reference,
    };
}

/// The kernel's steps and the directed step (x86-64), for the sweeps that run them on seeds
/// of their choosing: every item is the library's own, generic over the vector width
/// ([`Vector`](x86::Vector)) and the variant; [`Avx2Fma`](x86::Avx2Fma) is the eight-lane
/// width, [`Avx512`](x86::Avx512) the sixteen-lane one (a value only where AVX-512F is
/// present; [`avx512_model::Avx512Model`] runs the same operations anywhere).
#[cfg(fmadiv_x86)]
pub mod x86 {
    pub use crate::arch::simd::Vector;
    pub use crate::arch::simd::directed::{
        DIVISOR_SIGN_IGNORED, SHIPPED, round_from, round_from_plus_zero,
    };
    pub use crate::arch::simd::kernel::{
        InputCheck, corrected_quotient, div_vector_of, fast_path_of, kernel_quotient_from,
        reciprocal, reciprocal_quotient_from, refine,
    };
    pub use crate::arch::x86_64::avx2::{Avx2Fma, LANES};
    pub use crate::arch::x86_64::avx512::Avx512;
    pub use crate::arch::x86_64::mode::{
        DOWN, NEAREST, ROUNDING_CONTROL, ROUNDING_CONTROL_SHIFT, TOWARD_ZERO, UP,
    };
}
