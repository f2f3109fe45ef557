//! The per-CPU plan: which [`Schedule`] the slice functions run, and when a
//! [`crate::Divisor`] runs its proven sequence.
//!
//! **Estimate, don't measure.** The plan is a function of the CPU's identity (vendor,
//! family, model; the L1 data cache for the size classes): one row of a committed table
//! (module `table`), whose choices each cite their evidence — measurements committed in
//! the repository, or `llvm-mca`'s predictions discounted by the error measured where both
//! exist. Every process on one CPU runs the same plan, made in microseconds at its first
//! division (module `make`), with no timing at start-up. A CPU in no row runs the divider
//! for `div` and `recip`.
//!
//! Why not a calibration at start-up (0.3.0 timed the schedules at the first division): on
//! shared machines whose timings drift by 10–30% from one moment to the next, a millisecond
//! of timing decides a close call by chance. On family 0x19, ten fresh processes chose
//! `recip`'s schedule four different ways and `Divisor`'s windows differently in nearly
//! every one, so the crate's largest gain (the two-product sequence, 1.3–2x) was off in
//! some processes and on in others. Timing is still available, on request: `fmadiv plan
//! --measure` measures every choice on the machine at hand (medians over rotating buffer
//! layouts, as the benchmarks do) and writes a plan file, which `FMADIV_PLAN_FILE=PATH` makes
//! later processes read (module `file`); that is FFTW's "estimate by default, measure and
//! keep wisdom on request".
//!
//! Before any schedule with the kernel is allowed, this CPU's `rcpps` is checked against its
//! documented bound (module `seeds`): the kernels are proven for every table within it,
//! and a CPU outside it runs the divider (the `Divisor` uses no `rcpps` and is not
//! affected).
//!
//! `FMADIV_SCHEDULE=divider|kernel|mix-D|portable` forces a schedule for `div` and `recip`
//! (for benchmarks and bug reports); a value that names no schedule is reported (in the
//! plan's `Display`, `fmadiv plan`, and once on stderr) and otherwise ignored.
//! `FMADIV_FORCE_PORTABLE=1` forces the portable path for everything.
//!
//! Layering: the plan sits below the slice functions, `Divisor` and the in-register API,
//! which read it; it imports only the CPU identity, the schedules and the `rcpps` check.

use core::fmt;
use std::path::PathBuf;

mod file;
mod make;
mod table;

pub use file::PLAN_FILE_ENV;
pub(crate) use make::made;
pub use make::plan;
pub use table::{GAIN, PREDICTION_DISCOUNT};

use crate::cpu::Cpu;
use crate::schedule::{RawFn, Schedule, disjoint_variant_fn_on, variant_fn_on};
pub use crate::seeds::OutOfBound;
use crate::variant::Variant;

/// The environment variable that forces a [`Schedule`] (read once, at the first division).
pub const SCHEDULE_ENV: &str = "FMADIV_SCHEDULE";

/// What a plan chooses: one row of the table, or what a plan file holds.
///
/// ```
/// let c = fmadiv::plan().choices();
/// println!("div below L1: {}, beyond: {}", c.div[0].name(), c.div[1].name());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Choices {
    /// `div`'s (and `try_div`, `div_in_place`, `par_div`'s) schedule for slices whose three
    /// arrays fit in L1 ([`Plan::small_below`]) and for longer ones.
    pub div: [Schedule; 2],
    /// `recip`'s schedule for the two size classes.
    pub recip: [Schedule; 2],
    /// When a [`crate::Divisor`] runs its proven sequence.
    pub divisor: DivisorChoices,
}

/// When a [`crate::Divisor`] (and [`crate::div_scalar`]) runs its proven sequence rather
/// than the divider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DivisorChoices {
    /// Slices at least this long run the sequence (the flag-checked loop from 512 on);
    /// shorter ones do not win back its fixed costs.
    pub sequence_from: usize,
    /// A divisor's first slice makes the proof (about 60 ns) only from this length,
    /// where the proof is a few per cent of the slice's division: a `Divisor` made per row
    /// costs no more than dividing the row on the divider. A divisor used again makes it
    /// wherever the sequence runs.
    pub first_proof_from: usize,
    /// In place (`divide_in_place`), the sequence runs from this length (`usize::MAX`:
    /// never).
    pub in_place_from: usize,
    /// Below this length, a slice long enough for the flag-checked chunks runs the
    /// window-checked loop instead where the caller's MXCSR holds a flag that voids a chunk
    /// (underflow, overflow or invalid: sticky, so a program that once underflowed holds
    /// it): the chunks would clear the flags and put them back, two MXCSR writes a call,
    /// which only a long slice repays. 0: the chunks whatever the caller holds.
    pub window_if_flags_held_below: usize,
}

impl Choices {
    /// The text of a plan file holding these choices for `cpu` (what `fmadiv plan
    /// --measure` writes), with `note` as comment lines; see [`PLAN_FILE_ENV`].
    #[must_use]
    pub fn to_plan_file(&self, cpu: &Cpu, note: &str) -> String {
        file::render(self, cpu, note)
    }

    /// The portable path: no FMA sequence, a `Divisor` on the divider at every length.
    fn portable() -> Choices {
        Choices::uniform(Schedule::Portable, table::DIVISOR_NEVER)
    }

    /// Everything on one schedule, the `Divisor` as the table says.
    fn uniform(s: Schedule, divisor: DivisorChoices) -> Choices {
        Choices {
            div: [s; 2],
            recip: [s; 2],
            divisor,
        }
    }
}

/// Where a plan's choices come from.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Origin {
    /// A row of the committed table.
    Table {
        /// The microarchitecture.
        row: &'static str,
        /// What the row's choices rest on (for `recip` too, unless `recip_evidence`).
        evidence: &'static str,
        /// What `recip`'s choices rest on where it runs another width than `div`
        /// ([`crate::backend_of`]): the row's column for that width.
        recip_evidence: Option<&'static str>,
    },
    /// No row matches this CPU: the divider for `div` and `recip`.
    NotInTable,
    /// A plan file measured on this CPU (`fmadiv plan --measure`).
    File(PathBuf),
    /// `FMADIV_SCHEDULE`.
    Forced,
    /// No AVX2+FMA on this CPU, or `FMADIV_FORCE_PORTABLE=1`.
    NoKernel,
    /// This CPU's `rcpps` breaks its documented bound: the kernels are not proven here.
    SeedsOutOfBound(OutOfBound),
}

/// Where the choices come from, in a few words (the end of `fmadiv plan`'s line).
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Table { row, .. } => write!(f, "table row {row:?}"),
            Origin::NotInTable => f.write_str("this CPU is in no row of the table"),
            Origin::File(path) => write!(f, "plan file {:?}", path.display().to_string()),
            Origin::Forced => write!(f, "forced by {SCHEDULE_ENV}"),
            Origin::NoKernel => f.write_str("no AVX2+FMA kernel here, or forced portable"),
            Origin::SeedsOutOfBound(e) => write!(f, "no kernel proven for this rcpps: {e}"),
        }
    }
}

/// The schedules this process runs, and why.
#[derive(Clone, Debug)]
pub struct Plan {
    cpu: Cpu,
    /// Slices shorter than this are the small class.
    small_below: usize,
    choices: Choices,
    origin: Origin,
    /// A value of `FMADIV_SCHEDULE` that names no schedule, ignored.
    ignored: Option<String>,
    /// Why `FMADIV_PLAN_FILE`'s file was not used, where one was named and not loaded.
    file_unused: Option<String>,
    /// Microseconds it took to make the plan (the `rcpps` check included).
    made_in_micros: u64,
    /// The backends whose loops `runs` holds: `div`'s, `recip`'s.
    backends: [crate::Backend; 2],
    /// Whether one vector at a time (the eight-lane in-register token) runs the kernel for
    /// `div` and for `recip`: where the small class's schedule at eight lanes is the kernel
    /// alone. From a table row, its eight-lane column's, whatever width the slice functions
    /// run (a sixteen-lane column's choices were measured over sixteen-lane loops).
    in_register: [bool; 2],
    /// The loops of the chosen schedules, per size class (small, large), indexed by
    /// [`DIV_IN_PLACE`], [`DIV`], [`RECIP`], [`RECIP_IN_PLACE`]. A call is one load and one
    /// indirect call.
    runs: [[RawFn; 2]; 4],
    /// `recip`'s short slices at eight lanes, where its width is sixteen by default.
    short_recip: ShortRecip,
}

/// Where `recip` runs sixteen lanes by its CPU family's default (not forced) and its row's
/// sixteen-lane column was measured to lose on short slices: the row's eight-lane choices
/// on the eight-lane backend below `below` elements.
#[derive(Clone, Copy, Debug)]
struct ShortRecip {
    /// Slices shorter than this run the eight lanes (0: none).
    below: usize,
    /// The eight-lane schedules per size class.
    schedules: [Schedule; 2],
    /// Their loops on the eight-lane backend (AVX2+FMA, which the sixteen-lane backend's
    /// CPUs have): `recip`'s into another slice, then in place (indexed by the loop's
    /// constant less [`RECIP`]).
    runs: [[RawFn; 2]; 2],
}

impl ShortRecip {
    /// No short slices: `recip` runs one width at every length.
    fn none() -> ShortRecip {
        ShortRecip {
            below: 0,
            schedules: [Schedule::Divider; 2],
            runs: [[Schedule::Portable; 2].map(|s| {
                variant_fn_on::<{ Variant::SHIPPED }, true, true>(crate::Backend::Portable, s)
            }); 2],
        }
    }

    /// The eight-lane `recip` of `schedules` (with kernel variant `V`) below `below`.
    fn eight_lanes<const V: u8>(below: usize, schedules: [Schedule; 2]) -> ShortRecip {
        ShortRecip {
            below,
            schedules,
            runs: [
                schedules.map(|s| disjoint_variant_fn_on::<V, true>(crate::Backend::Avx2Fma, s)),
                schedules.map(|s| variant_fn_on::<V, true, true>(crate::Backend::Avx2Fma, s)),
            ],
        }
    }
}

/// [`Plan::run`]'s loops: `div` whose output may be its dividends, `div` into an output that
/// overlaps no input, `recip` into an output separate from the input, and `recip` whose
/// output is its input.
pub(crate) const DIV_IN_PLACE: usize = 0;
pub(crate) const DIV: usize = 1;
pub(crate) const RECIP: usize = 2;
pub(crate) const RECIP_IN_PLACE: usize = 3;

impl Plan {
    /// The schedule `div`, `try_div`, `div_in_place` and `par_div`'s chunks run for a slice
    /// of `len` elements.
    #[inline]
    #[must_use]
    pub fn div(&self, len: usize) -> Schedule {
        self.choices.div[self.class(len)]
    }

    /// The schedule `recip` runs for a slice of `len` elements (on
    /// [`Plan::recip_backend`]`(len)`).
    #[inline]
    #[must_use]
    pub fn recip(&self, len: usize) -> Schedule {
        match len < self.short_recip.below {
            true => self.short_recip.schedules[self.class(len)],
            false => self.choices.recip[self.class(len)],
        }
    }

    /// The backend whose loop `recip` runs for a slice of `len` elements: its entry point's
    /// ([`crate::backend_of`]), but the eight-lane one below the length from which the table
    /// measured the sixteen lanes to pay, where they are this CPU family's default.
    #[must_use]
    pub fn recip_backend(&self, len: usize) -> crate::Backend {
        match len < self.short_recip.below {
            true => crate::Backend::Avx2Fma,
            false => self.backends[1],
        }
    }

    /// Below how many elements `recip` runs eight lanes where its backend is sixteen lanes
    /// wide by default (0: it runs its backend at every length).
    #[must_use]
    pub fn recip_eight_lanes_below(&self) -> usize {
        self.short_recip.below
    }

    /// Everything the plan chose.
    #[must_use]
    pub fn choices(&self) -> &Choices {
        &self.choices
    }

    /// Where the choices come from.
    #[must_use]
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The CPU the plan was made for (this one).
    #[must_use]
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// Slices shorter than this many elements are the small class (their three arrays fit
    /// in this CPU's L1 data cache; 32 KiB assumed where `cpuid` does not say).
    #[must_use]
    pub fn small_below(&self) -> usize {
        self.small_below
    }

    /// The size class of `len` elements: 0 small, 1 large.
    #[inline]
    fn class(&self, len: usize) -> usize {
        usize::from(len >= self.small_below)
    }

    /// The loop `LOOP` ([`DIV_IN_PLACE`], [`DIV`], [`RECIP`] or [`RECIP_IN_PLACE`]) of the
    /// plan's schedule for `len` elements.
    #[inline]
    pub(crate) fn run<const LOOP: usize>(&self, len: usize) -> RawFn {
        if LOOP >= RECIP && len < self.short_recip.below {
            return self.short_recip.runs[LOOP - RECIP][self.class(len)];
        }
        self.runs[LOOP][self.class(len)]
    }

    /// Whether one vector at a time (the in-register token) runs the kernel rather than
    /// the divider: only where the kernel alone is the small class's schedule.
    #[inline]
    #[must_use]
    pub fn in_register_kernel(&self) -> bool {
        self.in_register[0]
    }

    /// Whether one vector at a time runs the reciprocal kernel rather than the divider.
    #[inline]
    #[must_use]
    pub fn in_register_recip_kernel(&self) -> bool {
        self.in_register[1]
    }

    /// Microseconds it took to make the plan: the CPU's identity, the `rcpps` check, the
    /// table (or the plan file).
    #[must_use]
    pub fn made_in_micros(&self) -> u64 {
        self.made_in_micros
    }

    /// The value of `FMADIV_SCHEDULE` that was ignored because it names no schedule.
    #[must_use]
    pub fn ignored_setting(&self) -> Option<&str> {
        self.ignored.as_deref()
    }

    /// Why the file `FMADIV_PLAN_FILE` named was not used, where it was not.
    #[must_use]
    pub fn plan_file_unused(&self) -> Option<&str> {
        self.file_unused.as_deref()
    }

    /// What the choices rest on, in words: the table row's evidence, or where they come from.
    #[must_use]
    pub fn evidence(&self) -> String {
        match &self.origin {
            Origin::Table {
                row,
                evidence,
                recip_evidence: None,
            } => format!("{row}: {evidence}"),
            Origin::Table {
                row,
                evidence,
                recip_evidence: Some(recip),
            } => format!(
                "{row}: {evidence}; recip at {} lanes: {recip}",
                self.backends[1].lanes()
            ),
            other => other.to_string(),
        }
    }

    /// The plan for `choices`, its loops those of the backends of `div` and `recip`.
    fn with(cpu: Cpu, choices: Choices, origin: Origin) -> Plan {
        let w = make::Widths::here();
        Plan::on::<{ Variant::SHIPPED }>(cpu, choices, origin, [w.div, w.recip])
    }

    /// The plan for `choices` with the loops of `backends` (`div`'s, `recip`'s) and kernel
    /// variant `V` in the kernel's blocks.
    fn on<const V: u8>(
        cpu: Cpu,
        choices: Choices,
        origin: Origin,
        backends: [crate::Backend; 2],
    ) -> Plan {
        let small_below = small_class_limit(cpu.l1d_bytes().unwrap_or(ASSUMED_L1D));
        Plan {
            cpu,
            small_below,
            runs: loops_of::<V>(backends, &choices),
            short_recip: ShortRecip::none(),
            backends,
            in_register: in_register_of(&choices),
            choices,
            origin,
            ignored: None,
            file_unused: None,
            made_in_micros: 0,
        }
    }
}

/// [`Plan::in_register_kernel`] and [`Plan::in_register_recip_kernel`] for eight-lane
/// `choices`: the kernel where it alone is the small class's schedule.
fn in_register_of(choices: &Choices) -> [bool; 2] {
    [choices.div[0], choices.recip[0]].map(|s| s == Schedule::Kernel)
}

/// The loops of `choices` on `backends` (`div`'s, `recip`'s), as [`Plan::run`] indexes
/// them, with kernel variant `V` in the kernel's blocks: the shipped one for a plan, a
/// weakened one for the tests that read which lanes the plan's loops give the kernel
/// ([`Plan::weakened_on`]).
fn loops_of<const V: u8>([div, recip]: [crate::Backend; 2], choices: &Choices) -> [[RawFn; 2]; 4] {
    let (d, r) = (choices.div, choices.recip);
    [
        d.map(|s| variant_fn_on::<V, false, true>(div, s)),
        d.map(|s| disjoint_variant_fn_on::<V, false>(div, s)),
        r.map(|s| disjoint_variant_fn_on::<V, true>(recip, s)),
        r.map(|s| variant_fn_on::<V, true, true>(recip, s)),
    ]
}

#[cfg(test)]
impl Plan {
    /// The plan of `choices` for this CPU (whatever the table says), for tests.
    pub(crate) fn of_choices(choices: Choices) -> Plan {
        Plan::with(Cpu::this(), choices, Origin::Forced)
    }
}

#[cfg(all(fmadiv_x86, feature = "verify"))]
impl Plan {
    /// The plan of `choices` for this CPU, its loops those of `backend` with kernel variant
    /// `V` (weakened: for the verification door only).
    pub(crate) fn weakened_on<const V: u8>(backend: crate::Backend, choices: Choices) -> Plan {
        Plan::on::<V>(Cpu::this(), choices, Origin::Forced, [backend; 2])
    }

    /// [`Plan::weakened_on`] whose `recip` runs the eight-lane backend with the schedules
    /// `eight` below `below` elements, as a table row's sixteen-lane column may say.
    pub(crate) fn weakened_by_width_on<const V: u8>(
        backend: crate::Backend,
        choices: Choices,
        eight: [Schedule; 2],
        below: usize,
    ) -> Plan {
        let mut plan = Plan::weakened_on::<V>(backend, choices);
        plan.short_recip = ShortRecip::eight_lanes::<V>(below, eight);
        plan
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_class = |s: &[Schedule; 2]| match s[0] == s[1] {
            true => s[0].name(),
            false => format!(
                "{} below {} elements, {} from there",
                s[0].name(),
                self.small_below,
                s[1].name()
            ),
        };
        let length = |n| match n {
            usize::MAX => "never".to_string(),
            n => format!("from {n}"),
        };
        let d = &self.choices.divisor;
        let recip_width = match self.backends {
            [div, recip] if div.lanes() != recip.lanes() => {
                format!(" at {} lanes", recip.lanes())
            }
            _ => String::new(),
        };
        // Only where held flags change the loop.
        let held = match d.window_if_flags_held_below {
            0 => String::new(),
            below => format!(", window-checked below {below} if flags are held"),
        };
        let short = &self.short_recip;
        let short_recip = match short.below {
            0 => String::new(),
            below => format!(
                "{} at {} lanes below {below} elements, from there ",
                // Only the size classes the short slices reach.
                match below <= self.small_below {
                    true => short.schedules[0].name(),
                    false => per_class(&short.schedules),
                },
                crate::Backend::Avx2Fma.lanes()
            ),
        };
        write!(
            f,
            "div: {}; recip: {short_recip}{}{recip_width}; Divisor: sequence {} (first slice {}, in place {}{held}) -- {}",
            per_class(&self.choices.div),
            per_class(&self.choices.recip),
            length(d.sequence_from),
            length(d.first_proof_from),
            length(d.in_place_from),
            self.origin,
        )?;
        if let Some(value) = &self.ignored {
            write!(
                f,
                "; {SCHEDULE_ENV}={value:?} ignored: it names no schedule"
            )?;
        }
        if let Some(why) = &self.file_unused {
            write!(f, "; {PLAN_FILE_ENV} not used: {why}")?;
        }
        Ok(())
    }
}

/// The L1 data cache assumed where `cpuid` does not say.
const ASSUMED_L1D: usize = 32 * 1024;

/// Slices shorter than this keep their three arrays (dividends, divisors, output) in an L1
/// data cache of `l1` bytes.
fn small_class_limit(l1: usize) -> usize {
    l1 / (3 * core::mem::size_of::<f32>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::mixed;

    #[test]
    fn one_vector_at_a_time_takes_the_small_classs_kernel() {
        use Schedule::{Divider, Kernel};
        for (div, recip) in [
            ([Kernel, Divider], [Divider, Kernel]),
            ([Divider, Kernel], [Kernel, Divider]),
            ([mixed(4), Kernel], [Kernel, Kernel]),
        ] {
            let plan = Plan::of_choices(Choices {
                div,
                recip,
                ..table::FALLBACK
            });
            let what = format!("div {div:?}, recip {recip:?}");
            assert_eq!(plan.in_register_kernel(), div[0] == Kernel, "{what}");
            assert_eq!(
                plan.in_register_recip_kernel(),
                recip[0] == Kernel,
                "{what}"
            );
        }
    }

    #[test]
    fn classes_follow_the_l1_size() {
        assert_eq!(small_class_limit(32 * 1024), 2730);
        assert_eq!(small_class_limit(48 * 1024), 4096);
    }
}
