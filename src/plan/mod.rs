//! The per-CPU plan: which [`Schedule`] the slice functions run, per size class.
//!
//! Whether the FMA kernel beats the hardware divider, alone or beside it, depends on the
//! CPU (on some the divider and the FMA pipes overlap, on others their times add; dividers
//! differ in speed) and on where the operands live (in L1 or farther out). So the plan is
//! not a table of known CPUs but a short calibration on the CPU found, at the first
//! division: for two size classes — operands that fit in this CPU's L1 data cache and
//! larger ones — every candidate divides the same normal inputs, alternately, over buffers
//! whose relative offsets change from round to round (so that no one layout of the three
//! arrays decides). The best screened candidate is then timed against the divider alone in
//! confirmation rounds, and chosen only if it is at least [`THRESHOLD`] times as fast with
//! 99% confidence: the lower confidence bound of the median of the per-round ratios (a
//! sign test, whatever their distribution) must reach it. Where the machine is noisy the
//! bound is wide and a close call stays with the divider, the same in every process.
//! Every schedule gives identical bits, so the plan changes speed, never results.
//!
//! Before any schedule with the kernel is allowed, this CPU's `rcpps` is checked against
//! its documented bound (module `seeds`): the kernels are proven for every table within
//! it, and a CPU outside it runs the divider.
//!
//! `FMADIV_SCHEDULE=divider|kernel|mix-D|portable` forces a schedule for `div` and `recip`
//! (for benchmarks and bug reports); a value that names no schedule is reported (in the
//! plan's `Display`, `fmadiv plan`, and once on stderr) and otherwise ignored.
//! `FMADIV_FORCE_PORTABLE=1` forces the portable path for everything.
//!
//! `FMADIV_PLAN_FILE=PATH` keeps one calibration for later processes on the same CPU: the
//! first writes the plan there, the next ones read it instead of calibrating, so that
//! every process runs the same schedules (module `saved`).

use core::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[cfg(fmadiv_x86)]
mod calibration;
mod saved;

pub use saved::PLAN_FILE_ENV;
use saved::{FileUse, NotLoaded, Saved};

use crate::schedule::{RawFn, Schedule, raw_fn, raw_fn_disjoint};
use crate::seeds::OutOfBound;

/// The environment variable that forces a [`Schedule`] (read once, at the first division).
pub const SCHEDULE_ENV: &str = "FMADIV_SCHEDULE";

/// A schedule other than the divider alone is chosen only if it is at least this many
/// times as fast as the divider, with 99% confidence (the lower confidence bound of the
/// median ratio of the confirmation rounds).
pub const THRESHOLD: f64 = 1.10;

/// The lane-checked loop redoes the chunks the flags void only where it measured at least
/// this much faster than the divider. It is timed on normal dividends, but it runs on
/// chunks that hold specials: on family 0x19, in processes where it calibrated at
/// 1.20–1.33x, `Divisor::divide_slice` over 1%-special data measured 0.75–1.21x the
/// divider with it (the divider redo: 0.96–1.02x), so a modest calibrated gain is not
/// enough.
const LANES_WIN: f64 = 1.5;

/// The two operations a plan chooses schedules for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a / b`: [`crate::div`], [`crate::try_div`], [`crate::div_in_place`],
    /// [`crate::par_div`].
    Div,
    /// `1 / b`: [`crate::recip`].
    Recip,
}

impl Op {
    /// Both operations.
    pub const ALL: [Op; 2] = [Op::Div, Op::Recip];

    /// The operation's index in the plan's per-operation arrays.
    #[inline]
    const fn index(self) -> usize {
        match self {
            Op::Div => 0,
            Op::Recip => 1,
        }
    }

    /// `"div"` or `"recip"`.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Div => "div",
            Op::Recip => "recip",
        }
    }
}

/// The schedules this process runs, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Slices shorter than this are the small class.
    small_below: usize,
    /// `div`'s schedule for the small and the large class.
    div: [Schedule; 2],
    /// `recip`'s schedule for the small and the large class.
    recip: [Schedule; 2],
    /// For `div` and `recip`: slices shorter than this run the divider although the small
    /// class's schedule is another, because that schedule measured slower than the divider
    /// at these lengths (a few steps of its loop do not overlap the kernel and the divider
    /// as a long slice does); 0 where the small class's schedule runs at every length.
    short_below: [usize; 2],
    /// How the plan was chosen.
    reason: Reason,
    /// A value of `FMADIV_SCHEDULE` that names no schedule, ignored.
    ignored: Option<String>,
    /// From how many dividends a `Divisor` pays for its proof, and what that came from.
    divisor: DivisorBreakEven,
    /// Microseconds it took to make the plan: the seeds check, the calibration of the
    /// schedules and of `Divisor`'s break-even.
    made_in_micros: u64,
    /// Of which `Divisor`'s break-even.
    divisor_micros: u64,
    /// The loops of `div` and `recip`, per length class: a call is one load and one
    /// indirect call.
    runs: Runs,
    /// What became of the plan file, where `FMADIV_PLAN_FILE` named one.
    file: Option<FileUse>,
}

/// Length classes of the loops: below the operation's `short_below`, the small class, the
/// large class.
const LEN_CLASSES: usize = 3;

/// The loops of the chosen schedules per length class ([`LEN_CLASSES`]): `div` in place,
/// `div` into a separate output, and `recip` (always into a separate output).
#[derive(Clone, Copy)]
struct Runs([RawFn; 3 * LEN_CLASSES]);

/// The schedules of one operation's [`LEN_CLASSES`], from its small and large class's
/// schedules and its `short_below` (the divider below it, where it is not 0).
fn len_class_schedules(classes: [Schedule; 2], short_below: usize) -> [Schedule; LEN_CLASSES] {
    let short = if short_below > 0 {
        Schedule::Divider
    } else {
        classes[0]
    };
    [short, classes[0], classes[1]]
}

impl Runs {
    fn of(div: [Schedule; 2], recip: [Schedule; 2], short_below: [usize; 2]) -> Runs {
        let d = len_class_schedules(div, short_below[0]);
        let r = len_class_schedules(recip, short_below[1]);
        Runs([
            raw_fn::<false>(d[0]),
            raw_fn::<false>(d[1]),
            raw_fn::<false>(d[2]),
            raw_fn_disjoint::<false>(d[0]),
            raw_fn_disjoint::<false>(d[1]),
            raw_fn_disjoint::<false>(d[2]),
            raw_fn_disjoint::<true>(r[0]),
            raw_fn_disjoint::<true>(r[1]),
            raw_fn_disjoint::<true>(r[2]),
        ])
    }
}

/// The loops follow from the schedules, which `Plan`'s equality compares.
impl PartialEq for Runs {
    fn eq(&self, _: &Runs) -> bool {
        true
    }
}

impl fmt::Debug for Runs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Runs(the schedules' loops)")
    }
}

/// When a [`crate::Divisor`]'s proof pays: measured here once, like the schedules.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DivisorBreakEven {
    /// Per repair class of the flag-checked loop (`divisor::NO_REPAIR` …): a divisor's
    /// first slice makes the proof if its length is in `[from, to)`; others take the
    /// divider (`usize::MAX`: never, or no end).
    pub(crate) proof: [(usize, usize); 3],
    /// Per repair class: slices with a length in `[from, to)` run a proven sequence;
    /// others take the divider even when the proof is made (shorter ones do not win back
    /// a call's fixed cost; longer ones stream from farther caches, where the divider is
    /// as fast).
    pub(crate) sequence: [(usize, usize); 3],
    /// Per repair class: the lengths, inside `sequence`, on which the proven sequence also
    /// runs in place (measured in place, where the sequence runs the lane-checked loop).
    pub(crate) in_place: [(usize, usize); 3],
    /// The shortest start of the `sequence` windows: shorter slices take the divider
    /// after one comparison.
    pub(crate) shortest_sequence: usize,
    /// The shortest start of the `proof` windows.
    pub(crate) first_proof_min: usize,
    /// Nanoseconds of one proof, where measured.
    pub(crate) measured: Option<f64>,
    /// Per repair class: the divider's time over the proven sequence's, per call, at each
    /// length measured.
    pub(crate) ratios: [Vec<(usize, f64)>; 3],
    /// The divider's time over the proven sequence's in place (the lane-checked loop, a
    /// copy of the dividends included), where some `sequence` window made it worth
    /// measuring.
    pub(crate) in_place_ratio: Option<f64>,
    /// The divider's time over the lane-checked loop's on normal dividends, where
    /// measured: above `LANES_WIN` the lane-checked loop redoes the chunks the flags
    /// void, otherwise the divider does.
    pub(crate) lanes_ratio: Option<f64>,
}

impl DivisorBreakEven {
    /// Sets `shortest_sequence` and `first_proof_min` from the windows: the earliest start
    /// among the classes' (`usize::MAX`: none has one).
    pub(crate) fn set_earliest(&mut self) {
        let earliest = |windows: &[(usize, usize); 3]| windows.iter().map(|w| w.0).min();
        self.shortest_sequence = earliest(&self.sequence).unwrap_or(usize::MAX);
        self.first_proof_min = earliest(&self.proof).unwrap_or(usize::MAX);
    }

    /// No proven sequence runs here (no AVX2+FMA kernel).
    pub(crate) fn never() -> DivisorBreakEven {
        DivisorBreakEven {
            proof: [(usize::MAX, usize::MAX); 3],
            sequence: [(usize::MAX, usize::MAX); 3],
            in_place: [(usize::MAX, usize::MAX); 3],
            shortest_sequence: usize::MAX,
            first_proof_min: usize::MAX,
            measured: None,
            ratios: [Vec::new(), Vec::new(), Vec::new()],
            in_place_ratio: None,
            lanes_ratio: None,
        }
    }
}

/// Why the plan is what it is.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
#[derive(Clone, Debug, PartialEq)]
enum Reason {
    /// No AVX2+FMA on this CPU, or `FMADIV_FORCE_PORTABLE=1`.
    NoKernel,
    /// Set by `FMADIV_SCHEDULE`.
    Forced,
    /// This CPU's `rcpps` breaks its documented bound: the kernels are not proven here.
    SeedsOutOfBound(OutOfBound),
    /// Measured here.
    Calibrated(Calibration),
    /// Read from the plan file: measured by an earlier process on this CPU, at these
    /// lengths of the two classes.
    Loaded { lens: [usize; 2] },
}

/// What the calibration measured.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
#[derive(Clone, Debug, PartialEq)]
struct Calibration {
    /// The lengths timed for the small and the large class.
    lens: [usize; 2],
    /// Per class and operation: each candidate's screening ratio to the divider, then the
    /// confirmation of the best one (its median ratio and the rounds it won, of how many).
    trials: Vec<Trials>,
    /// Microseconds the whole calibration took.
    micros: u64,
    /// The L1 data cache size the classes were derived from, and whether cpuid told it.
    l1_bytes: (usize, bool),
}

/// One class and operation of a calibration.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
#[derive(Clone, Debug, PartialEq)]
struct Trials {
    op: Op,
    class: usize,
    /// Every candidate's median ratio to the divider in the screening rounds.
    screening: Vec<(Schedule, f64)>,
    /// The best screened candidate, if any beat the divider: its median ratio in the
    /// confirmation rounds, its 99% lower confidence bound, and the rounds.
    confirmation: Option<(Schedule, f64, f64, usize)>,
    /// For the small class's choice other than the divider: its median ratio to the
    /// divider at one step of its loop and at four, (length, ratio).
    short: Vec<(usize, f64)>,
}

impl Plan {
    /// The schedule `div`, `try_div`, `div_in_place` and `par_div`'s chunks run for a slice
    /// of `len` elements.
    #[inline]
    pub fn div(&self, len: usize) -> Schedule {
        len_class_schedules(self.div, self.short_below[0])[self.len_class(Op::Div, len)]
    }

    /// The schedule `recip` runs for a slice of `len` elements.
    #[inline]
    pub fn recip(&self, len: usize) -> Schedule {
        len_class_schedules(self.recip, self.short_below[1])[self.len_class(Op::Recip, len)]
    }

    /// Slices shorter than this run the divider for `op`, although the small class's
    /// schedule is another: that schedule measured slower than the divider at these
    /// lengths. 0 where the small class's schedule runs at every length.
    pub fn short_below(&self, op: Op) -> usize {
        self.short_below[op.index()]
    }

    /// The length class of `len` elements for `op`: the index of its loop among the
    /// operation's [`LEN_CLASSES`].
    #[inline]
    fn len_class(&self, op: Op, len: usize) -> usize {
        usize::from(len >= self.short_below[op.index()]) + usize::from(len >= self.small_below)
    }

    /// The loop of [`Plan::div`] for `len` elements, whose output may be its dividends.
    #[inline]
    pub(crate) fn div_run(&self, len: usize) -> RawFn {
        self.runs.0[self.len_class(Op::Div, len)]
    }

    /// The loop of [`Plan::div`] for `len` elements, whose output overlaps no input.
    #[inline]
    pub(crate) fn div_run_disjoint(&self, len: usize) -> RawFn {
        self.runs.0[LEN_CLASSES + self.len_class(Op::Div, len)]
    }

    /// The loop of [`Plan::recip`] for `len` elements (output separate from the input).
    #[inline]
    pub(crate) fn recip_run(&self, len: usize) -> RawFn {
        self.runs.0[2 * LEN_CLASSES + self.len_class(Op::Recip, len)]
    }

    /// Whether one vector at a time (`div_f32x8`, the in-register API) runs the kernel
    /// rather than the divider: only where the kernel alone is the small class's schedule.
    #[inline]
    pub fn in_register_kernel(&self) -> bool {
        self.div[0] == Schedule::Kernel
    }

    /// Whether one vector at a time (`recip_f32x8`, the in-register API) runs the
    /// reciprocal kernel rather than the divider.
    #[inline]
    pub fn in_register_recip_kernel(&self) -> bool {
        self.recip[0] == Schedule::Kernel
    }

    /// Slices shorter than this many elements are the small class (their operands fit in
    /// this CPU's L1 data cache); the rest are the large class.
    pub fn small_below(&self) -> usize {
        self.small_below
    }

    /// The lengths of a [`crate::Divisor`]'s first slice that make the proof of a divisor
    /// of `b` (and take its proven sequence; by the cost of its zero-sign repair, two
    /// products assumed): where the sequence wins and the proof costs at most
    /// 2% of the divider's time for the slice, so that `Divisor::new` + `divide_slice` per
    /// row costs no more than the divider even on rows streaming from memory (where the
    /// sequence gains little). A divisor used again makes the proof wherever its sequence
    /// runs ([`Plan::divisor_sequence_lens`]). Measured once per process; empty where the
    /// sequence never pays.
    pub fn divisor_proof_lens(&self, b: f32) -> core::ops::Range<usize> {
        self.divisor_proof_lens_of_class(crate::divisor::repair_class_of(b))
    }

    /// The shortest slice on which any proven `Divisor` may run its sequence: shorter ones
    /// always take the divider (one comparison, before anything else is looked at).
    #[cfg(fmadiv_x86)]
    #[inline]
    pub(crate) fn divisor_shortest_sequence(&self) -> usize {
        self.divisor.shortest_sequence
    }

    /// The shortest first slice that makes a proof, whatever the class.
    #[cfg(fmadiv_x86)]
    #[inline]
    pub(crate) fn divisor_first_proof_min(&self) -> usize {
        self.divisor.first_proof_min
    }

    #[inline]
    pub(crate) fn divisor_proof_lens_of_class(&self, class: usize) -> core::ops::Range<usize> {
        let (from, to) = self.divisor.proof[class];
        from..to
    }

    /// The lengths of slice on which a proven two-products [`crate::Divisor`] of `b` runs
    /// its sequence rather than the divider: shorter ones do not win back the sequence's
    /// fixed cost per call on this CPU, longer ones stream from caches where the divider is
    /// as fast. Measured once per process; empty where the sequence never wins.
    pub fn divisor_sequence_lens(&self, b: f32) -> core::ops::Range<usize> {
        self.divisor_sequence_lens_of_class(crate::divisor::repair_class_of(b))
    }

    #[inline]
    pub(crate) fn divisor_sequence_lens_of_class(&self, class: usize) -> core::ops::Range<usize> {
        let (from, to) = self.divisor.sequence[class];
        from..to
    }

    /// How the flag-checked `Divisor` loop redoes the chunks the flags void: by the
    /// lane-checked loop where it measured faster than the divider, else by the divider.
    #[cfg(fmadiv_x86)]
    #[inline]
    pub(crate) fn divisor_check(&self) -> crate::divisor::Check {
        match self.divisor.lanes_ratio {
            Some(r) if r >= LANES_WIN => crate::divisor::Check::FlagsThenLanes,
            _ => crate::divisor::Check::Flags,
        }
    }

    /// The lengths of slice on which [`crate::Divisor::divide_in_place`] by `b` runs the
    /// proven sequence (inside [`Plan::divisor_sequence_lens`], measured in place); empty
    /// where it never wins.
    pub fn divisor_in_place_lens(&self, b: f32) -> core::ops::Range<usize> {
        self.divisor_in_place_lens_of_class(crate::divisor::repair_class_of(b))
    }

    #[inline]
    pub(crate) fn divisor_in_place_lens_of_class(&self, class: usize) -> core::ops::Range<usize> {
        let (from, to) = self.divisor.in_place[class];
        from..to
    }

    /// Microseconds it took to make the plan (the `rcpps` check, the calibration of the
    /// schedules, `Divisor`'s break-even), where anything was measured.
    pub fn calibration_micros(&self) -> Option<u64> {
        let made = matches!(self.reason, Reason::Calibrated(_) | Reason::Loaded { .. });
        (self.divisor.measured.is_some() || made).then_some(self.made_in_micros)
    }

    /// What became of the plan file named by [`PLAN_FILE_ENV`] (loaded, saved, or why
    /// not), as the plan's `Display` says it; `None` where none was named.
    pub fn plan_file(&self) -> Option<String> {
        self.file.as_ref().map(ToString::to_string)
    }

    /// Whether the plan was read from the plan file rather than calibrated here.
    pub fn is_loaded(&self) -> bool {
        matches!(self.reason, Reason::Loaded { .. })
    }

    /// The value of `FMADIV_SCHEDULE` that was ignored because it names no schedule.
    pub fn ignored_setting(&self) -> Option<&str> {
        self.ignored.as_deref()
    }

    /// Every measured ratio, as (operation, class length, schedule, phase, ratio to the
    /// divider): for `fmadiv plan --json` and the benchmarks.
    #[doc(hidden)]
    pub fn measurements(&self) -> Vec<(&'static str, usize, String, &'static str, f64)> {
        let Reason::Calibrated(c) = &self.reason else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for t in &c.trials {
            let op = t.op.name();
            for &(s, r) in &t.screening {
                rows.push((op, c.lens[t.class], s.name(), "screening", r));
            }
            if let Some((s, r, _, _)) = t.confirmation {
                rows.push((op, c.lens[t.class], s.name(), "confirmation", r));
                for &(len, r) in &t.short {
                    rows.push((op, len, s.name(), "short", r));
                }
            }
        }
        rows
    }

    /// The lengths the calibration timed for the small and the large class.
    #[doc(hidden)]
    pub fn timed_lens(&self) -> Option<[usize; 2]> {
        match &self.reason {
            Reason::Calibrated(c) => Some(c.lens),
            Reason::Loaded { lens } => Some(*lens),
            _ => None,
        }
    }

    fn uniform(s: Schedule, reason: Reason, ignored: Option<String>) -> Plan {
        Plan {
            small_below: small_class_limit(l1_data_bytes().0),
            div: [s; 2],
            recip: [s; 2],
            short_below: [0; 2],
            reason,
            ignored,
            divisor: DivisorBreakEven::never(),
            made_in_micros: 0,
            divisor_micros: 0,
            runs: Runs::of([s; 2], [s; 2], [0; 2]),
            file: None,
        }
    }

    /// The plan a plan file holds.
    fn loaded(saved: Saved, path: PathBuf, ignored: Option<String>) -> Plan {
        Plan {
            small_below: saved.small_below,
            div: saved.div,
            recip: saved.recip,
            short_below: saved.short_below,
            reason: Reason::Loaded { lens: saved.lens },
            ignored,
            divisor: saved.divisor,
            made_in_micros: 0,
            divisor_micros: 0,
            runs: Runs::of(saved.div, saved.recip, saved.short_below),
            file: Some(FileUse::Loaded(path)),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_class = |s: &[Schedule; 2], short: usize| {
            let short = match short {
                0 => String::new(),
                n => format!("divider below {n} elements, "),
            };
            if s[0] == s[1] {
                format!("{short}{}", s[0].name())
            } else {
                format!(
                    "{short}{} below {} elements, {} from there",
                    s[0].name(),
                    self.small_below,
                    s[1].name()
                )
            }
        };
        write!(
            f,
            "div: {}; recip: {}",
            per_class(&self.div, self.short_below[0]),
            per_class(&self.recip, self.short_below[1])
        )?;
        match &self.reason {
            Reason::NoKernel => f.write_str(" (no AVX2+FMA kernel here, or forced portable)")?,
            Reason::Forced => write!(f, " (forced by {SCHEDULE_ENV})")?,
            Reason::SeedsOutOfBound(e) => write!(
                f,
                " (the kernels are not proven on this CPU: {e}; the divider runs everything)"
            )?,
            Reason::Calibrated(c) => {
                write!(
                    f,
                    " (calibrated in {} us at {} and {} elements, L1d {} KiB{}; another \
                     schedule must measure at least {THRESHOLD:.2}x the divider",
                    c.micros,
                    c.lens[0],
                    c.lens[1],
                    c.l1_bytes.0 / 1024,
                    if c.l1_bytes.1 { "" } else { " assumed" }
                )?;
                for t in &c.trials {
                    let op = t.op.name();
                    let screened: Vec<String> = t
                        .screening
                        .iter()
                        .map(|(s, r)| format!("{} {r:.2}", s.name()))
                        .collect();
                    write!(
                        f,
                        "; {op} at {}: [{}]",
                        c.lens[t.class],
                        screened.join(", ")
                    )?;
                    if let Some((s, r, lb, n)) = t.confirmation {
                        write!(
                            f,
                            ", confirmed {} {r:.2} (99% lower bound {lb:.2}, {n} rounds)",
                            s.name()
                        )?;
                    }
                    if !t.short.is_empty() {
                        let short: Vec<String> =
                            t.short.iter().map(|(n, r)| format!("{n} {r:.2}")).collect();
                        write!(f, ", short slices: [{}]", short.join(", "))?;
                    }
                }
                f.write_str(")")?;
            }
            Reason::Loaded { lens } => write!(
                f,
                " (read from the plan file: calibrated on this CPU by an earlier process, at \
                 {} and {} elements; another schedule had to measure at least \
                 {THRESHOLD:.2}x the divider)",
                lens[0], lens[1]
            )?,
        }
        if let Some(proof) = self.divisor.measured {
            let lens = |(from, to): (usize, usize)| match (from, to) {
                (usize::MAX, _) => "never".to_string(),
                (from, usize::MAX) => format!("from {from}"),
                (from, to) => format!("{from}..{to}"),
            };
            write!(f, "; Divisor: proof {proof:.0} ns")?;
            if let Some(r) = self.divisor.in_place_ratio {
                write!(f, ", in place vs the divider {r:.2} (copy included)")?;
            }
            if let Some(r) = self.divisor.lanes_ratio {
                let by = if r >= LANES_WIN {
                    "the lane-checked loop"
                } else {
                    "the divider"
                };
                write!(
                    f,
                    ", voided chunks redone by {by} (lane-checked loop vs the divider {r:.2})"
                )?;
            }
            for (side, sign) in ["no repair", "sign of a", "sign of a*zh"]
                .iter()
                .enumerate()
            {
                let ratios: Vec<String> = self.divisor.ratios[side]
                    .iter()
                    .map(|(n, r)| format!("{n} {r:.2}"))
                    .collect();
                write!(
                    f,
                    ", {sign}: sequence {}, proof {} (vs the divider per call: {})",
                    lens(self.divisor.sequence[side]),
                    lens(self.divisor.proof[side]),
                    ratios.join(", ")
                )?;
                if self.divisor.in_place_ratio.is_some() {
                    write!(f, ", in place {}", lens(self.divisor.in_place[side]))?;
                }
            }
        }
        if let Some(us) = self.calibration_micros() {
            write!(f, "; plan made in {us} us")?;
            if self.divisor.measured.is_some() && !self.is_loaded() {
                write!(f, " (of which Divisor {} us)", self.divisor_micros)?;
            }
        }
        if let Some(value) = &self.ignored {
            write!(
                f,
                "; {SCHEDULE_ENV}={value:?} ignored: it names no schedule"
            )?;
        }
        if let Some(file) = &self.file {
            write!(f, "; {file}")?;
        }
        Ok(())
    }
}

static PLAN: OnceLock<Plan> = OnceLock::new();

/// The plan if it is made already (no calibration, inline: for the short slices' check).
#[inline]
pub(crate) fn made() -> Option<&'static Plan> {
    PLAN.get()
}

/// The plan of this process: detected and calibrated at the first call, then cached.
#[inline]
pub fn plan() -> &'static Plan {
    match PLAN.get() {
        Some(plan) => plan,
        None => make_plan(),
    }
}

/// [`plan`]'s first call, out of line: callers on the hot path keep a small frame.
#[cold]
#[inline(never)]
fn make_plan() -> &'static Plan {
    PLAN.get_or_init(|| {
        let setting = std::env::var(SCHEDULE_ENV).ok();
        let file = std::env::var_os(PLAN_FILE_ENV).filter(|p| !p.is_empty());
        let plan = choose(
            setting.as_deref(),
            crate::seeds::this_cpu,
            file.as_deref().map(Path::new),
        );
        if let Some(file) = plan.file.as_ref().filter(|f| f.is_problem()) {
            eprintln!("fmadiv: {file}");
        }
        if let Some(value) = &plan.ignored {
            eprintln!(
                "fmadiv: {SCHEDULE_ENV}={value:?} names no schedule and is ignored ({})",
                crate::schedule::Schedule::from_name(value)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            );
        }
        plan
    })
}

/// `rounds` ratios of the divider's time to schedule `s`'s for `op` at `len` normal
/// elements, measured now on buffers of their own, alternating,
/// over rotating layouts: how `fmadiv plan --check` tests a choice independently of the
/// calibration that made it. Empty without the x86 kernels.
#[doc(hidden)]
pub fn measure_against_divider(op: Op, len: usize, s: Schedule, rounds: usize) -> Vec<f64> {
    #[cfg(fmadiv_x86)]
    if crate::backend() == crate::Backend::Avx2Fma && s != Schedule::Portable {
        return calibration::measure_against_divider(op, len, s, rounds);
    }
    let _ = (op, len, s, rounds);
    Vec::new()
}

/// The plan for a `FMADIV_SCHEDULE` setting, a check of the seeds (injected, so that
/// tests can simulate a CPU whose `rcpps` breaks its bound) and a plan file.
fn choose(
    setting: Option<&str>,
    seeds: impl FnOnce() -> Option<Result<(), OutOfBound>>,
    file: Option<&Path>,
) -> Plan {
    let start = std::time::Instant::now();
    // What a plan file must be made for (computed once: it is read, then maybe written).
    let file = file.map(|path| (path, saved::this_identity()));
    let mut plan = choose_schedules(setting, seeds, file.as_ref());
    if let (Some((path, _)), None) = (&file, &plan.file) {
        // Not a calibration (forced, no kernel, kernels unproven): the file is not touched.
        let why = match plan.reason {
            Reason::Forced => "the schedules are forced",
            Reason::SeedsOutOfBound(_) => "the kernels are not proven on this CPU",
            _ => "there is no AVX2+FMA kernel to calibrate",
        };
        plan.file = Some(FileUse::Unused {
            path: path.to_path_buf(),
            why,
        });
    }
    if crate::backend() == crate::Backend::Avx2Fma && !plan.is_loaded() {
        let divisor_start = std::time::Instant::now();
        plan.divisor = divisor_break_even();
        plan.divisor_micros = divisor_start.elapsed().as_micros() as u64;
    }
    plan.runs = Runs::of(plan.div, plan.recip, plan.short_below);
    if let (Some(FileUse::Saved { path, .. }), Some((_, identity))) = (&plan.file, &file) {
        let text = Saved::of(&plan).map(|s| saved::render(&s, identity));
        if let Some(Err(why)) = text.map(|text| saved::store(path, &text)) {
            plan.file = Some(FileUse::NotSaved {
                path: path.clone(),
                why,
            });
        }
    }
    plan.made_in_micros = start.elapsed().as_micros() as u64;
    plan
}

/// `Divisor`'s break-even, where the x86 kernels exist.
#[cfg(fmadiv_x86)]
fn divisor_break_even() -> DivisorBreakEven {
    calibration::divisor_break_even()
}

#[cfg(not(fmadiv_x86))]
fn divisor_break_even() -> DivisorBreakEven {
    DivisorBreakEven::never()
}

/// The schedules for a setting, a check of the seeds and a plan file (with what it must
/// be made for): the file is read, and what is to become of it set, only where a
/// calibration would run.
fn choose_schedules(
    setting: Option<&str>,
    seeds: impl FnOnce() -> Option<Result<(), OutOfBound>>,
    file: Option<&(&Path, String)>,
) -> Plan {
    let setting = setting.map(str::trim).filter(|s| !s.is_empty());
    let (forced, ignored) = match setting.map(Schedule::from_name) {
        None => (None, None),
        Some(Ok(s)) => (Some(s), None),
        Some(Err(e)) => (None, Some(e.0)),
    };
    if crate::backend() == crate::Backend::Portable || forced == Some(Schedule::Portable) {
        let reason = if forced == Some(Schedule::Portable) {
            Reason::Forced
        } else {
            Reason::NoKernel
        };
        return Plan::uniform(Schedule::Portable, reason, ignored);
    }
    match seeds() {
        Some(Ok(())) => {}
        Some(Err(e)) => {
            return Plan::uniform(Schedule::Divider, Reason::SeedsOutOfBound(e), ignored);
        }
        None => return Plan::uniform(Schedule::Portable, Reason::NoKernel, ignored),
    }
    if let Some(s) = forced {
        return Plan::uniform(s, Reason::Forced, ignored);
    }
    let file = file.map(|&(path, ref identity)| (path, saved::load(path, identity)));
    let file_use = match file {
        None => None,
        Some((path, Ok(saved))) => return Plan::loaded(saved, path.to_path_buf(), ignored),
        Some((path, Err(NotLoaded::Missing))) => Some(FileUse::Saved {
            path: path.to_path_buf(),
            replaced: None,
        }),
        Some((path, Err(NotLoaded::Foreign(why)))) => Some(FileUse::Saved {
            path: path.to_path_buf(),
            replaced: Some(why),
        }),
        Some((path, Err(NotLoaded::Unreadable(why)))) => Some(FileUse::Kept {
            path: path.to_path_buf(),
            why,
        }),
    };
    let mut plan = calibrate();
    plan.ignored = ignored;
    plan.file = file_use;
    plan
}

/// The L1 data cache size, and whether cpuid reported it (32 KiB assumed otherwise).
fn l1_data_bytes() -> (usize, bool) {
    match crate::fingerprint::l1_data_bytes() {
        Some(bytes) => (bytes, true),
        None => (32 * 1024, false),
    }
}

/// Slices shorter than this keep their three arrays (dividends, divisors, output) in an
/// L1 data cache of `l1` bytes.
fn small_class_limit(l1: usize) -> usize {
    l1 / (3 * core::mem::size_of::<f32>())
}

/// Times the candidates and picks a schedule per operation and class.
#[cfg(fmadiv_x86)]
fn calibrate() -> Plan {
    calibration::calibrate()
}

/// No kernel to calibrate without the x86 kernels.
#[cfg(not(fmadiv_x86))]
fn calibrate() -> Plan {
    Plan::uniform(Schedule::Portable, Reason::NoKernel, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_shorter_than_short_below_run_the_divider() {
        let mix = Schedule::Mixed(crate::schedule::Mix::new(4).unwrap());
        let mut plan = Plan::uniform(mix, Reason::Forced, None);
        plan.short_below = [256, 0];
        plan.runs = Runs::of(plan.div, plan.recip, plan.short_below);
        let large = plan.small_below();
        assert!(large > 256);
        assert_eq!(plan.div(255), Schedule::Divider);
        assert_eq!(plan.div(256), mix);
        assert_eq!(plan.div(large), mix);
        assert_eq!(plan.recip(16), mix);
        // The loops follow: the divider's class below 256 for `div`, none for `recip`.
        assert_eq!(
            [255, 256, large].map(|n| plan.len_class(Op::Div, n)),
            [0, 1, 2]
        );
        assert_eq!(
            [16, 256, large].map(|n| plan.len_class(Op::Recip, n)),
            [1, 1, 2]
        );
        assert!(
            plan.to_string()
                .starts_with("div: divider below 256 elements, mix-4;")
        );
        // With no short length every class runs the small class's schedule from 0.
        plan.short_below = [0, 0];
        assert_eq!(plan.div(0), mix);
        assert_eq!(plan.len_class(Op::Div, 0), 1);
    }

    #[test]
    fn a_cpu_whose_rcp_breaks_the_bound_keeps_the_divider() {
        let bad = OutOfBound {
            input: 0x3fc0_0000,
            seed: 0x3f30_0000,
        };
        for setting in [None, Some("kernel"), Some("mix-4"), Some("divider")] {
            let plan = choose(setting, || Some(Err(bad)), None);
            if crate::backend() == crate::Backend::Portable {
                assert_eq!(plan.div(4096), Schedule::Portable);
                continue;
            }
            for len in [8, 1024, 1 << 20] {
                assert_eq!(plan.div(len), Schedule::Divider, "{setting:?}");
                assert_eq!(plan.recip(len), Schedule::Divider, "{setting:?}");
            }
            assert!(!plan.in_register_kernel());
            let text = plan.to_string();
            assert!(text.contains("not proven on this CPU"), "{text}");
            assert!(text.contains("0x3fc00000"), "{text}");
        }
    }

    #[test]
    fn a_setting_that_names_no_schedule_is_reported() {
        let plan = choose(Some("mix-3"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), Some("mix-3"));
        assert!(plan.to_string().contains("\"mix-3\" ignored"), "{plan}");
        let plan = choose(Some("kernel"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), None);
    }

    /// A plan file that runs the kernel for `div` and `mix-4` for `recip`, made for this
    /// CPU and version, at a path of its own.
    fn kernel_plan_file(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("fmadiv-{name}-{}", std::process::id()));
        let mix = Schedule::Mixed(crate::schedule::Mix::new(4).unwrap());
        let saved = Saved {
            small_below: small_class_limit(l1_data_bytes().0),
            div: [Schedule::Kernel; 2],
            recip: [mix; 2],
            short_below: [0, 256],
            lens: [1024, 11008],
            divisor: DivisorBreakEven::never(),
        };
        saved::store(&path, &saved::render(&saved, &saved::this_identity())).unwrap();
        path
    }

    #[test]
    fn a_plan_file_is_read_only_after_the_rcpps_check() {
        if crate::backend() == crate::Backend::Portable {
            eprintln!("note: no AVX2+FMA here: a plan file is never read (nothing to run)");
            return;
        }
        let path = kernel_plan_file("read-after-check");
        // This CPU's table conforms: the file's schedules run, with no calibration.
        let plan = choose(None, || Some(Ok(())), Some(&path));
        assert!(plan.is_loaded(), "{plan}");
        assert_eq!(plan.div(4096), Schedule::Kernel);
        assert_eq!(plan.recip(100), Schedule::Divider, "below its short_below");
        assert_eq!(plan.recip(4096).name(), "mix-4");
        assert!(plan.to_string().contains(": loaded"), "{plan}");
        // A table out of bound: the file is not read, the divider runs everything.
        let bad = OutOfBound {
            input: 0x3fc0_0000,
            seed: 0x3f30_0000,
        };
        let plan = choose(None, || Some(Err(bad)), Some(&path));
        assert!(!plan.is_loaded());
        assert_eq!(plan.div(4096), Schedule::Divider);
        let note = plan.plan_file().unwrap();
        assert!(
            note.contains("not used: the kernels are not proven"),
            "{note}"
        );
        // A forced schedule neither: and the file is left as it was.
        let before = std::fs::read_to_string(&path).unwrap();
        let plan = choose(Some("divider"), || Some(Ok(())), Some(&path));
        assert!(plan.plan_file().unwrap().contains("forced"), "{plan}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn classes_follow_the_l1_size() {
        assert_eq!(small_class_limit(32 * 1024), 2730);
        assert_eq!(small_class_limit(48 * 1024), 4096);
    }
}
