//! The per-CPU plan: which [`Schedule`] the slice functions run, and when a
//! [`crate::Divisor`] runs its proven sequence.
//!
//! **Estimate, don't measure.** The plan is a function of the CPU's identity (vendor,
//! family, model; the L1 data cache for the size classes): one row of a committed table
//! (module `table`), whose choices each cite their evidence — measurements committed in
//! the repository, or `llvm-mca`'s predictions discounted by the error measured where both
//! exist. Every process on one CPU runs the same plan, made in microseconds, with no
//! timing at start-up. A CPU in no row runs the divider for `div` and `recip`.
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
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod file;
mod table;

pub use file::PLAN_FILE_ENV;
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
    /// [`DIV_IN_PLACE`], [`DIV`], [`RECIP`]. A call is one load and one indirect call.
    runs: [[RawFn; 2]; 3],
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
    /// CPUs have).
    runs: [RawFn; 2],
}

impl ShortRecip {
    /// No short slices: `recip` runs one width at every length.
    fn none() -> ShortRecip {
        ShortRecip {
            below: 0,
            schedules: [Schedule::Divider; 2],
            runs: [Schedule::Portable; 2].map(|s| {
                variant_fn_on::<{ Variant::SHIPPED }, true, true>(crate::Backend::Portable, s)
            }),
        }
    }

    /// The eight-lane `recip` of `schedules` (with kernel variant `V`) below `below`.
    fn eight_lanes<const V: u8>(below: usize, schedules: [Schedule; 2]) -> ShortRecip {
        ShortRecip {
            below,
            schedules,
            runs: schedules.map(|s| disjoint_variant_fn_on::<V, true>(crate::Backend::Avx2Fma, s)),
        }
    }
}

/// [`Plan::run`]'s loops: `div` whose output may be its dividends, `div` into an output that
/// overlaps no input, and `recip` (output separate from the input).
pub(crate) const DIV_IN_PLACE: usize = 0;
pub(crate) const DIV: usize = 1;
pub(crate) const RECIP: usize = 2;

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

    /// The loop `LOOP` ([`DIV_IN_PLACE`], [`DIV`] or [`RECIP`]) of the plan's schedule for
    /// `len` elements.
    #[inline]
    pub(crate) fn run<const LOOP: usize>(&self, len: usize) -> RawFn {
        if LOOP == RECIP && len < self.short_recip.below {
            return self.short_recip.runs[self.class(len)];
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
        let w = Widths::here();
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
fn loops_of<const V: u8>([div, recip]: [crate::Backend; 2], choices: &Choices) -> [[RawFn; 2]; 3] {
    let (d, r) = (choices.div, choices.recip);
    [
        d.map(|s| variant_fn_on::<V, false, true>(div, s)),
        d.map(|s| disjoint_variant_fn_on::<V, false>(div, s)),
        r.map(|s| disjoint_variant_fn_on::<V, true>(recip, s)),
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
        let short = &self.short_recip;
        let short_recip = match short.below {
            0 => String::new(),
            below => format!(
                "{} at {} lanes below {below} elements, from there ",
                per_class(&short.schedules),
                crate::Backend::Avx2Fma.lanes()
            ),
        };
        write!(
            f,
            "div: {}; recip: {short_recip}{}{recip_width}; Divisor: sequence {} (first slice {}, in place {}) -- {}",
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

static PLAN: OnceLock<Plan> = OnceLock::new();

/// The plan if it is made already (inline, no call: for the short slices' check).
#[inline]
pub(crate) fn made() -> Option<&'static Plan> {
    PLAN.get()
}

/// The plan of this process: made at the first call from the CPU's identity, then cached.
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
        let start = std::time::Instant::now();
        let setting = std::env::var(SCHEDULE_ENV).ok();
        let file = std::env::var_os(PLAN_FILE_ENV).filter(|p| !p.is_empty());
        let seeds = seeds_in_use;
        let file_path = file.as_deref().map(Path::new);
        let mut plan = choose(Cpu::this(), setting.as_deref(), seeds, file_path);
        plan.made_in_micros = start.elapsed().as_micros() as u64;
        if let Some(value) = &plan.ignored {
            let why = Schedule::from_name(value).err().map(|e| e.to_string());
            eprintln!(
                "fmadiv: {SCHEDULE_ENV}={value:?} names no schedule and is ignored ({})",
                why.unwrap_or_default()
            );
        }
        if let (Some(why), Some(path)) = (&plan.file_unused, &file)
            && Path::new(path).exists()
        {
            eprintln!("fmadiv: {PLAN_FILE_ENV}={path:?} not used: {why}");
        }
        plan
    })
}

/// The seed check of the backends of `div` and `recip` (one check per backend), and of the
/// eight-lane one where `recip` gives way to it on short slices: the first that fails, or
/// `None` without a kernel.
fn seeds_in_use() -> Option<Result<(), OutOfBound>> {
    let w = Widths::here();
    let short_recip =
        (w.recip.lanes() == 16 && w.recip_by_default).then_some(crate::Backend::Avx2Fma);
    let mut backends = vec![w.div];
    for b in [Some(w.recip), short_recip].into_iter().flatten() {
        if !backends.contains(&b) {
            backends.push(b);
        }
    }
    let checks: Vec<_> = backends.into_iter().filter_map(seeds_of).collect();
    // The first error, else `Ok`, where any backend has a kernel.
    (!checks.is_empty()).then(|| checks.into_iter().collect())
}

/// The seed check of `backend`: `rcpps` for AVX2+FMA, `vrcp14ps` (the CPU's, or the
/// model's table) for the sixteen-lane backends, against the bound the kernels are proven
/// for; `None` without a kernel.
fn seeds_of(backend: crate::Backend) -> Option<Result<(), OutOfBound>> {
    #[cfg(fmadiv_x86)]
    use crate::seeds::{RCPPS_BOUND, check_sample_within};
    match backend {
        #[cfg(fmadiv_x86)]
        crate::Backend::Avx512 => {
            let k = crate::arch::x86_64::avx512::Avx512::new()?;
            Some(check_sample_within(RCPPS_BOUND, |x| k.rcp8(x)))
        }
        #[cfg(all(fmadiv_x86, feature = "verify"))]
        crate::Backend::Avx512Model(seeds) => {
            use crate::arch::x86_64::{avx512_model::rcp14, mode::read_mxcsr};
            let mxcsr = read_mxcsr();
            Some(check_sample_within(RCPPS_BOUND, |x| {
                x.map(|v| rcp14(seeds, v, mxcsr))
            }))
        }
        _ => crate::seeds::this_cpu(),
    }
}

/// The plan for `cpu`, a `FMADIV_SCHEDULE` setting, a check of the seeds (injected, so
/// that tests can simulate a CPU whose `rcpps` breaks its bound) and a plan file.
fn choose(
    cpu: Cpu,
    setting: Option<&str>,
    seeds: impl FnOnce() -> Option<Result<(), OutOfBound>>,
    file: Option<&Path>,
) -> Plan {
    let (forced, ignored) = match setting.map(str::trim).filter(|s| !s.is_empty()) {
        None => (None, None),
        Some(name) => match Schedule::from_name(name) {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e.0)),
        },
    };
    let row = table::row_of(&cpu);
    let divisor = row.map_or(table::FALLBACK, |r| r.choices).divisor;
    let everything = |s| Choices::uniform(s, divisor);
    let mut plan = if forced == Some(Schedule::Portable) {
        Plan::with(cpu, Choices::portable(), Origin::Forced)
    } else if crate::backend() == crate::Backend::Portable {
        Plan::with(cpu, Choices::portable(), Origin::NoKernel)
    } else {
        match (seeds(), forced) {
            (None, _) => Plan::with(cpu, Choices::portable(), Origin::NoKernel),
            (Some(Err(e)), _) => Plan::with(
                cpu,
                everything(Schedule::Divider),
                Origin::SeedsOutOfBound(e),
            ),
            (Some(Ok(())), Some(s)) => Plan::with(cpu, everything(s), Origin::Forced),
            (Some(Ok(())), None) => from_file_or_row(cpu, file, row),
        }
    };
    plan.ignored = ignored;
    plan
}

/// The backends a plan's loops run: `div`'s and `recip`'s, and whether `recip`'s is its
/// CPU family's default rather than forced (only a default width gives way to eight lanes
/// on short slices, [`Plan::recip_eight_lanes_below`]).
#[derive(Clone, Copy, Debug)]
struct Widths {
    div: crate::Backend,
    recip: crate::Backend,
    recip_by_default: bool,
}

impl Widths {
    /// This process's.
    fn here() -> Widths {
        use crate::EntryPoint;
        Widths {
            div: crate::backend(),
            recip: crate::backend_of(EntryPoint::Recip),
            recip_by_default: !crate::dispatch::is_forced(EntryPoint::Recip),
        }
    }
}

/// The plan a plan file holds, where `file` names one made for `cpu`; else the table's.
fn from_file_or_row(cpu: Cpu, file: Option<&Path>, row: Option<&'static table::Row>) -> Plan {
    let file_unused = match file.map(|path| (path, file::load(path, &cpu))) {
        Some((path, Ok(choices))) => {
            return Plan::with(cpu, choices, Origin::File(path.to_path_buf()));
        }
        Some((_, Err(why))) => Some(why.to_string()),
        None => None,
    };
    let mut plan = from_row(cpu, row, Widths::here());
    plan.file_unused = file_unused;
    plan
}

/// The plan of `row` (the fallback without one) for loops of `widths`.
fn from_row(cpu: Cpu, row: Option<&'static table::Row>, widths: Widths) -> Plan {
    // The row's column for each width: `div` and the `Divisor` from `div`'s, `recip` from
    // its own backend's.
    let column = |r: &'static table::Row, sixteen_lanes: bool| match sixteen_lanes {
        true => r.sixteen.unwrap_or(table::Column {
            choices: Choices::uniform(Schedule::Divider, r.choices.divisor),
            recip_from: 0,
            evidence: table::SIXTEEN_UNMEASURED,
        }),
        false => table::Column {
            choices: r.choices,
            recip_from: 0,
            evidence: r.evidence,
        },
    };
    let div_sixteen = widths.div.lanes() == 16;
    let recip_sixteen = widths.recip.lanes() == 16;
    let Some(r) = row else {
        let backends = [widths.div, widths.recip];
        let fallback = Plan::on::<{ Variant::SHIPPED }>;
        return fallback(cpu, table::FALLBACK, Origin::NotInTable, backends);
    };
    let (div, recip) = (column(r, div_sixteen), column(r, recip_sixteen));
    let choices = Choices {
        recip: recip.choices.recip,
        ..div.choices
    };
    let origin = Origin::Table {
        row: r.name,
        evidence: div.evidence,
        recip_evidence: (recip_sixteen != div_sixteen).then_some(recip.evidence),
    };
    let backends = [widths.div, widths.recip];
    let mut plan = Plan::on::<{ Variant::SHIPPED }>(cpu, choices, origin, backends);
    plan.in_register = in_register_of(&r.choices);
    if recip_sixteen && widths.recip_by_default && recip.recip_from > 0 {
        let eight = r.choices.recip;
        plan.short_recip = ShortRecip::eight_lanes::<{ Variant::SHIPPED }>(recip.recip_from, eight);
    }
    plan
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

    const BAD: OutOfBound = OutOfBound {
        input: 0x3fc0_0000,
        seed: 0x3f30_0000,
    };

    #[test]
    fn the_same_cpu_gets_the_same_plan() {
        let a = choose(Cpu::this(), None, || Some(Ok(())), None);
        let b = choose(Cpu::this(), None, || Some(Ok(())), None);
        assert_eq!((a.choices(), a.origin()), (b.choices(), b.origin()));
        assert_eq!(a.to_string(), b.to_string());
    }

    #[test]
    fn a_cpu_whose_rcp_breaks_the_bound_keeps_the_divider() {
        for setting in [None, Some("kernel"), Some("mix-4"), Some("divider")] {
            let plan = choose(Cpu::this(), setting, || Some(Err(BAD)), None);
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
            assert!(text.contains("no kernel proven for this rcpps"), "{text}");
            assert!(text.contains("0x3fc00000"), "{text}");
        }
    }

    #[test]
    fn a_setting_that_names_no_schedule_is_reported() {
        let plan = choose(Cpu::this(), Some("mix-3"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), Some("mix-3"));
        assert!(plan.to_string().contains("\"mix-3\" ignored"), "{plan}");
        let plan = choose(Cpu::this(), Some("kernel"), || Some(Ok(())), None);
        assert_eq!(plan.ignored_setting(), None);
    }

    #[test]
    fn a_plan_file_is_read_only_after_the_rcpps_check() {
        if crate::backend() == crate::Backend::Portable {
            eprintln!("note: no AVX2+FMA here: a plan file is never read (nothing to run)");
            return;
        }
        let cpu = Cpu::this();
        let path = std::env::temp_dir().join(format!("fmadiv-plan-{}", std::process::id()));
        let kernel = Choices {
            div: [Schedule::Kernel; 2],
            recip: [mixed(4); 2],
            ..table::FALLBACK
        };
        std::fs::write(&path, kernel.to_plan_file(&cpu, "a test")).unwrap();
        // This CPU's table conforms: the file's schedules run.
        let plan = choose(cpu.clone(), None, || Some(Ok(())), Some(&path));
        assert_eq!(plan.origin(), &Origin::File(path.clone()));
        assert_eq!(plan.div(4096), Schedule::Kernel);
        assert_eq!(plan.recip(100).name(), "mix-4");
        // A table out of bound: the file is not read, the divider runs everything.
        let plan = choose(cpu.clone(), None, || Some(Err(BAD)), Some(&path));
        assert_eq!(plan.div(4096), Schedule::Divider);
        // A forced schedule wins over the file.
        let plan = choose(cpu.clone(), Some("divider"), || Some(Ok(())), Some(&path));
        assert_eq!(
            (plan.div(4096), plan.origin()),
            (Schedule::Divider, &Origin::Forced)
        );
        // A file that is not a plan: reported, the table row runs.
        std::fs::write(&path, "not a plan\n").unwrap();
        let plan = choose(cpu, None, || Some(Ok(())), Some(&path));
        assert!(!matches!(plan.origin(), Origin::File(_)));
        assert!(
            plan.to_string().contains("not used: its first line"),
            "{plan}"
        );
        std::fs::remove_file(&path).unwrap();
    }

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
    fn one_vector_at_a_time_follows_the_rows_eight_lane_column_at_either_width() {
        use Schedule::{Divider, Kernel};
        // The kernel alone for one vector of `div` at eight lanes and not for `recip`; the
        // sixteen-lane column the other way round: whichever width this process's slice
        // functions run (eight by default, sixteen where forced or a family's record says
        // so), the eight-lane token follows the eight-lane column.
        static ROW: table::Row = table::Row {
            name: "a row whose columns disagree",
            vendor: crate::cpu::Vendor::Amd,
            family: 0,
            models: &[],
            choices: Choices {
                div: [Kernel, Divider],
                recip: [Divider, Kernel],
                ..table::FALLBACK
            },
            evidence: "a test",
            sixteen: Some(table::Column {
                choices: Choices {
                    div: [Divider, Kernel],
                    recip: [Kernel, Divider],
                    ..table::FALLBACK
                },
                recip_from: 0,
                evidence: "a test",
            }),
        };
        let plan = from_file_or_row(Cpu::this(), None, Some(&ROW));
        assert!(plan.in_register_kernel());
        assert!(!plan.in_register_recip_kernel());
    }

    #[test]
    fn recip_gives_way_to_eight_lanes_below_its_columns_bound_only_by_default() {
        use crate::Backend::{Avx2Fma, Avx512};
        // Zen 4's row: the sixteen-lane `recip` from 256 elements, the eight-lane row's
        // divider below, where its family's record gives it sixteen lanes.
        let zen_4 = Cpu::described("AuthenticAMD", (0x19, 0x11), true, true);
        let row = table::row_of(&zen_4);
        let by_default = Widths {
            div: Avx2Fma,
            recip: Avx512,
            recip_by_default: true,
        };
        let plan = from_row(zen_4.clone(), row, by_default);
        assert_eq!(plan.recip_eight_lanes_below(), 256);
        for (len, schedule, backend) in [
            (0, Schedule::Divider, Avx2Fma),
            (255, Schedule::Divider, Avx2Fma),
            (256, mixed(8), Avx512),
            (1 << 20, mixed(8), Avx512),
        ] {
            assert_eq!(plan.recip(len), schedule, "{len}");
            assert_eq!(plan.recip_backend(len), backend, "{len}");
        }
        assert_eq!(plan.div(100), Schedule::Divider);
        let text = plan.to_string();
        assert!(
            text.contains(
                "recip: divider at 8 lanes below 256 elements, from there mix-8 at 16 lanes"
            ),
            "{text}"
        );
        // Forced to sixteen lanes, or at eight, `recip` runs one width at every length.
        for widths in [
            Widths {
                recip_by_default: false,
                ..by_default
            },
            Widths {
                recip: Avx2Fma,
                ..by_default
            },
        ] {
            let plan = from_row(zen_4.clone(), row, widths);
            assert_eq!(plan.recip_eight_lanes_below(), 0, "{widths:?}");
            assert_eq!(plan.recip_backend(8), widths.recip, "{widths:?}");
            assert_eq!(plan.recip(8), plan.choices().recip[0], "{widths:?}");
        }
    }

    #[test]
    fn classes_follow_the_l1_size() {
        assert_eq!(small_class_limit(32 * 1024), 2730);
        assert_eq!(small_class_limit(48 * 1024), 4096);
    }
}
