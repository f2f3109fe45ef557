//! Schedules: how a slice's vectors are spread between the FMA kernel and the hardware
//! divider, and the one place that maps each schedule to its loop.
//!
//! Below both the plan (which times the schedules) and the slice functions (which run the
//! plan's choice): neither needs the other to run a schedule.

use core::fmt;

use crate::arch::portable;

/// How a slice function spreads its vectors between the FMA kernel and the hardware divider.
///
/// Every schedule gives the same bits; they differ in speed, which depends on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Schedule {
    /// No AVX2+FMA (or forced): hardware division lane by lane, x86 NaN rules.
    Portable,
    /// `vdivps` on every vector: the divider alone.
    Divider,
    /// Blocks of four kernel vectors, each followed by [`Mix::divider_vectors`] divider
    /// vectors.
    Mixed(Mix),
    /// The FMA kernel on every vector (lanes it cannot guarantee go to the divider).
    Kernel,
}

/// The divider vectors that follow each block of four kernel vectors in a mixed schedule:
/// one of [`Mix::ALL`] (no other mix exists, so none can be asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mix(u8);

impl Mix {
    /// Every mix, from one divider vector per four kernel vectors to four per one
    /// (geometric, so that two mixes are rarely within noise of each other).
    pub const ALL: [Mix; 5] = [Mix(1), Mix(2), Mix(4), Mix(8), Mix(16)];

    /// The mix with this many divider vectors per kernel block, if it is one of
    /// [`Mix::ALL`].
    #[must_use]
    pub fn new(divider_vectors: u8) -> Option<Mix> {
        Mix::ALL.into_iter().find(|m| m.0 == divider_vectors)
    }

    /// Divider vectors per block of four kernel vectors.
    #[must_use]
    pub fn divider_vectors(self) -> u8 {
        self.0
    }
}

/// The mixed schedule with `divider_vectors` per kernel block, for constants (a mix not in
/// [`Mix::ALL`] does not compile where it is used in a constant).
pub(crate) const fn mixed(divider_vectors: u8) -> Schedule {
    assert!(
        matches!(divider_vectors, 1 | 2 | 4 | 8 | 16),
        "not a mix of Mix::ALL"
    );
    Schedule::Mixed(Mix(divider_vectors))
}

/// Every schedule a plan may choose on a CPU with AVX2+FMA, in order of preference
/// on ties: more divider vectors first (the divider alone is the reference every other
/// schedule must beat).
pub(crate) const CANDIDATES: [Schedule; 7] = [
    Schedule::Divider,
    Schedule::Mixed(Mix(16)),
    Schedule::Mixed(Mix(8)),
    Schedule::Mixed(Mix(4)),
    Schedule::Mixed(Mix(2)),
    Schedule::Mixed(Mix(1)),
    Schedule::Kernel,
];

impl Schedule {
    /// Every schedule: the portable path and the [`Schedule::CANDIDATES`].
    pub const ALL: [Schedule; 8] = [
        Schedule::Portable,
        CANDIDATES[0],
        CANDIDATES[1],
        CANDIDATES[2],
        CANDIDATES[3],
        CANDIDATES[4],
        CANDIDATES[5],
        CANDIDATES[6],
    ];

    /// The schedules a plan chooses from on a CPU with AVX2+FMA.
    pub const CANDIDATES: [Schedule; 7] = CANDIDATES;

    /// The name `FMADIV_SCHEDULE` takes: `portable`, `divider`, `kernel` or `mix-D`.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Schedule::Portable => "portable".into(),
            Schedule::Divider => "divider".into(),
            Schedule::Mixed(m) => format!("mix-{}", m.0),
            Schedule::Kernel => "kernel".into(),
        }
    }

    /// Parses [`Schedule::name`]; anything else is an error that lists the names.
    ///
    /// # Errors
    /// [`UnknownSchedule`], which lists the names, for any other name.
    pub fn from_name(name: &str) -> Result<Schedule, UnknownSchedule> {
        Schedule::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| UnknownSchedule(name.to_string()))
    }

    /// Whether the schedule runs the FMA kernel on some vectors.
    #[must_use]
    pub fn uses_kernel(self) -> bool {
        matches!(self, Schedule::Mixed(_) | Schedule::Kernel)
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Portable => f.write_str("portable (hardware divide per lane)"),
            Schedule::Divider => f.write_str("divider alone (vdivps on every vector)"),
            Schedule::Mixed(m) => write!(
                f,
                "mix-{} (4 kernel vectors, then {} on the divider)",
                m.0, m.0
            ),
            Schedule::Kernel => f.write_str("kernel alone (FMA kernel on every vector)"),
        }
    }
}

/// A name that is not a [`Schedule`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSchedule(pub String);

impl fmt::Display for UnknownSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = Schedule::ALL.iter().map(|s| s.name()).collect();
        write!(
            f,
            "{:?} is not a schedule (one of: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownSchedule {}

#[cfg(feature = "verify")]
/// Whether schedule `s` can run on this CPU: the portable path always, the others with a
/// SIMD backend in use.
pub(crate) fn runs_here(s: Schedule) -> bool {
    s == Schedule::Portable || crate::backend() != crate::Backend::Portable
}

#[cfg(feature = "verify")]
/// Runs schedule `s` over whole slices: `out[i] = a[i] / b[i]`, or `1 / b[i]` without `a`.
/// `None` (nothing written) if the schedule cannot run here.
///
/// # Panics
/// If the lengths differ.
pub(crate) fn run(s: Schedule, a: Option<&[f32]>, b: &[f32], out: &mut [f32]) -> Option<()> {
    assert_eq!(b.len(), out.len());
    if !runs_here(s) {
        return None;
    }
    match a {
        Some(a) => {
            assert_eq!(a.len(), out.len());
            // SAFETY: lengths checked; out is a unique borrow; the schedule runs here.
            unsafe { run_raw::<false>(s, a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) }
        }
        // SAFETY: lengths checked; `a` is not read for reciprocals; the schedule runs here.
        None => unsafe {
            run_raw::<true>(
                s,
                core::ptr::null(),
                b.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
            )
        },
    }
    Some(())
}

#[cfg(feature = "verify")]
/// Runs schedule `s` in place: `a[i] = a[i] / b[i]`. `None` (nothing written) if the
/// schedule cannot run here.
///
/// # Panics
/// If the lengths differ.
pub(crate) fn run_in_place(s: Schedule, a: &mut [f32], b: &[f32]) -> Option<()> {
    assert_eq!(a.len(), b.len());
    if !runs_here(s) {
        return None;
    }
    let ptr = a.as_mut_ptr();
    // SAFETY: lengths checked; `out` is exactly `a`, which every schedule allows; the
    // schedule runs here.
    unsafe { run_raw::<false>(s, ptr, b.as_ptr(), ptr, a.len()) };
    Some(())
}

#[cfg(feature = "verify")]
/// Runs schedule `s`'s reciprocal loop in place: `b[i] = 1 / b[i]`. `None` (nothing written)
/// if the schedule cannot run here.
pub(crate) fn run_recip_in_place(s: Schedule, b: &mut [f32]) -> Option<()> {
    if !runs_here(s) {
        return None;
    }
    let ptr = b.as_mut_ptr();
    // SAFETY: `out` is exactly `b`, which every schedule's reciprocal loop allows; `a` is
    // not read for reciprocals; the schedule runs here.
    unsafe { run_raw::<true>(s, core::ptr::null(), ptr, ptr, b.len()) };
    Some(())
}

/// A schedule's loop: `out[i] = a[i] / b[i]` (or `1 / b[i]`) for `len` elements, with
/// [`run_raw`]'s safety conditions.
pub(crate) type RawFn = unsafe fn(*const f32, *const f32, *mut f32, usize);

/// The loop of schedule `s` on the backend of `div` (or, `RECIP`, of `recip`), as a
/// function pointer: what the verification door runs for a schedule it is asked for (the
/// plan takes its loops from [`variant_fn_on`] and [`disjoint_variant_fn_on`] once, so that a
/// call costs one indirect call, not a match). The kernel's schedules are guarded: under an
/// MXCSR rounding mode other than to nearest they run the divider (see
/// `simd::loops::div_raw_guarded`).
#[cfg(feature = "verify")]
pub(crate) fn raw_fn<const RECIP: bool>(s: Schedule) -> RawFn {
    kernel_fn::<RECIP, true>(s)
}

/// [`raw_fn`], with the mode guard (`GUARDED`) or without (for measuring what it costs).
///
/// The backend table: each SIMD backend's row names its entry points (see
/// `crate::arch::simd::entry_points`); the portable path runs everything else.
#[cfg(feature = "verify")]
pub(crate) fn kernel_fn<const RECIP: bool, const GUARDED: bool>(s: Schedule) -> RawFn {
    let entry = match RECIP {
        true => crate::EntryPoint::Recip,
        false => crate::EntryPoint::Div,
    };
    kernel_fn_on::<RECIP, GUARDED>(crate::backend_of(entry), s)
}

/// [`kernel_fn`] on a given backend, which the caller knows this CPU runs.
#[cfg(feature = "verify")]
pub(crate) fn kernel_fn_on<const RECIP: bool, const GUARDED: bool>(
    backend: crate::Backend,
    s: Schedule,
) -> RawFn {
    variant_fn_on::<{ crate::variant::Variant::SHIPPED }, RECIP, GUARDED>(backend, s)
}

/// [`kernel_fn_on`] with kernel variant `V` in the kernel's blocks: the weakened variants
/// let the tests read which lanes a schedule's loop gives the kernel through this very
/// table (`fmadiv::verify::run_schedule_divisor_window_only_on`).
pub(crate) fn variant_fn_on<const V: u8, const RECIP: bool, const GUARDED: bool>(
    backend: crate::Backend,
    s: Schedule,
) -> RawFn {
    /// Schedule `s`'s loop among one backend's entry points.
    #[cfg(fmadiv_x86)]
    macro_rules! loop_of {
        ($entry:path) => {{
            use $entry as entry;
            match s {
                Schedule::Portable => portable::div_raw::<RECIP>,
                Schedule::Divider => entry::divider::<RECIP>,
                Schedule::Kernel => entry::mixed::<V, 0, RECIP, GUARDED>,
                Schedule::Mixed(Mix(1)) => entry::mixed::<V, 1, RECIP, GUARDED>,
                Schedule::Mixed(Mix(2)) => entry::mixed::<V, 2, RECIP, GUARDED>,
                Schedule::Mixed(Mix(4)) => entry::mixed::<V, 4, RECIP, GUARDED>,
                Schedule::Mixed(Mix(8)) => entry::mixed::<V, 8, RECIP, GUARDED>,
                Schedule::Mixed(Mix(16)) => entry::mixed::<V, 16, RECIP, GUARDED>,
                Schedule::Mixed(Mix(other)) => {
                    unreachable!("Mix::new makes only the mixes of Mix::ALL, not {other}")
                }
            }
        }};
    }
    #[cfg(fmadiv_x86)]
    return crate::dispatch::with_entry!(backend, loop_of, portable::div_raw::<RECIP>);
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, s);
        portable::div_raw::<RECIP>
    }
}

/// [`variant_fn_on`] (guarded) for an output that overlaps neither input (`div`, `try_div`,
/// `recip`): the divider alone then runs a loop the compiler knows to be alias-free.
pub(crate) fn disjoint_variant_fn_on<const V: u8, const RECIP: bool>(
    backend: crate::Backend,
    s: Schedule,
) -> RawFn {
    /// The alias-free divider loop of a backend's entry points.
    #[cfg(fmadiv_x86)]
    macro_rules! disjoint_of {
        ($entry:path) => {{
            use $entry as entry;
            entry::divider_disjoint::<RECIP> as RawFn
        }};
    }
    let shared = || variant_fn_on::<V, RECIP, true>(backend, s);
    match s {
        #[cfg(fmadiv_x86)]
        Schedule::Divider => crate::dispatch::with_entry!(backend, disjoint_of, shared()),
        _ => shared(),
    }
}

#[cfg(feature = "verify")]
/// Runs schedule `s`'s loop.
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` valid for reads, `out` for writes of `len` floats;
/// - `out` either disjoint from `a` and `b`, or exactly `a`, or with `RECIP` exactly `b`;
/// - a schedule other than [`Schedule::Portable`] only where [`runs_here`] says so.
#[inline]
pub(crate) unsafe fn run_raw<const RECIP: bool>(
    s: Schedule,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees are the loop's.
    unsafe { raw_fn::<RECIP>(s)(a, b, out, len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        for s in Schedule::ALL {
            assert_eq!(Schedule::from_name(&s.name()), Ok(s));
        }
        for bad in ["mix-3", "mix-0", "mix-", "fast", "", "Divider", " kernel"] {
            let e = Schedule::from_name(bad).unwrap_err();
            assert!(e.to_string().contains("mix-16"), "{e}");
        }
        assert_eq!(Mix::new(3), None);
        assert_eq!(Mix::new(8).map(Mix::divider_vectors), Some(8));
    }
}
