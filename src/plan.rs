//! The per-CPU plan: which [`Schedule`] the slice functions run, per size class.
//!
//! Whether the FMA kernel beats the hardware divider, alone or beside it, depends on the
//! CPU (on some the divider and the FMA pipes overlap, on others their times add; dividers
//! differ in speed) and on where the operands live (in L1 or farther out). So the plan is
//! not a table of known CPUs but a short calibration on the CPU found, at the first
//! division: for two size classes — operands that fit in this CPU's L1 data cache and
//! larger ones — every candidate divides the same normal inputs, alternately, over buffers
//! whose relative offsets change from round to round (so that no one layout of the three
//! arrays decides). A schedule other than the divider is chosen only when a confirmation
//! round against the divider alone measures it at least [`THRESHOLD`] times as fast, in
//! most rounds. Every schedule gives identical bits, so the plan changes speed, never
//! results.
//!
//! Before any schedule with the kernel is allowed, this CPU's `rcpps` is checked against
//! its documented bound (module `seeds`): the kernels are proven for every table within
//! it, and a CPU outside it runs the divider.
//!
//! `FMADIV_SCHEDULE=divider|kernel|mix-D|portable` forces a schedule for `div` and `recip`
//! (for benchmarks and bug reports); a value that names no schedule is reported (in the
//! plan's `Display`, `fmadiv plan`, and once on stderr) and otherwise ignored.
//! `FMADIV_FORCE_PORTABLE=1` forces the portable path for everything.

use core::fmt;
use std::sync::OnceLock;

use crate::schedule::{CANDIDATES, Schedule};
use crate::seeds::OutOfBound;

/// The environment variable that forces a [`Schedule`] (read once, at the first division).
pub const SCHEDULE_ENV: &str = "FMADIV_SCHEDULE";

/// A schedule other than the divider alone is chosen only if it is at least this many
/// times as fast as the divider in the confirmation rounds (median), and faster in most of
/// them.
pub const THRESHOLD: f64 = 1.10;

/// The two operations a plan chooses for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Div,
    Recip,
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
    /// How the plan was chosen.
    reason: Reason,
    /// A value of `FMADIV_SCHEDULE` that names no schedule, ignored.
    ignored: Option<String>,
}

/// Why the plan is what it is.
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
}

/// What the calibration measured.
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
#[derive(Clone, Debug, PartialEq)]
struct Trials {
    op: Op,
    class: usize,
    /// Every candidate's median ratio to the divider in the screening rounds.
    screening: Vec<(Schedule, f64)>,
    /// The best screened candidate, if any beat the divider: its median ratio in the
    /// confirmation rounds, the rounds it won, and the rounds.
    confirmation: Option<(Schedule, f64, usize, usize)>,
}

impl Plan {
    /// The schedule `div`, `try_div`, `div_in_place` and `par_div`'s chunks run for a slice
    /// of `len` elements.
    #[inline]
    pub fn div(&self, len: usize) -> Schedule {
        self.div[usize::from(len >= self.small_below)]
    }

    /// The schedule `recip` runs for a slice of `len` elements.
    #[inline]
    pub fn recip(&self, len: usize) -> Schedule {
        self.recip[usize::from(len >= self.small_below)]
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

    /// Microseconds the calibration took, where the plan was calibrated.
    pub fn calibration_micros(&self) -> Option<u64> {
        match &self.reason {
            Reason::Calibrated(c) => Some(c.micros),
            _ => None,
        }
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
            let op = match t.op {
                Op::Div => "div",
                Op::Recip => "recip",
            };
            for &(s, r) in &t.screening {
                rows.push((op, c.lens[t.class], s.name(), "screening", r));
            }
            if let Some((s, r, _, _)) = t.confirmation {
                rows.push((op, c.lens[t.class], s.name(), "confirmation", r));
            }
        }
        rows
    }

    fn uniform(s: Schedule, reason: Reason, ignored: Option<String>) -> Plan {
        Plan {
            small_below: small_class_limit(l1_data_bytes().0),
            div: [s; 2],
            recip: [s; 2],
            reason,
            ignored,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_class = |s: &[Schedule; 2]| {
            if s[0] == s[1] {
                s[0].name()
            } else {
                format!(
                    "{} below {} elements, {} from there",
                    s[0].name(),
                    self.small_below,
                    s[1].name()
                )
            }
        };
        write!(
            f,
            "div: {}; recip: {}",
            per_class(&self.div),
            per_class(&self.recip)
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
                    let op = match t.op {
                        Op::Div => "div",
                        Op::Recip => "recip",
                    };
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
                    if let Some((s, r, won, of)) = t.confirmation {
                        write!(f, ", confirmed {} {r:.2} ({won}/{of} rounds won)", s.name())?;
                    }
                }
                f.write_str(")")?;
            }
        }
        if let Some(value) = &self.ignored {
            write!(
                f,
                "; {SCHEDULE_ENV}={value:?} ignored: it names no schedule"
            )?;
        }
        Ok(())
    }
}

static PLAN: OnceLock<Plan> = OnceLock::new();

/// The plan of this process: detected and calibrated at the first call, then cached.
#[inline]
pub fn plan() -> &'static Plan {
    PLAN.get_or_init(|| {
        let setting = std::env::var(SCHEDULE_ENV).ok();
        let plan = choose(setting.as_deref(), crate::seeds::this_cpu);
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

/// The plan for a `FMADIV_SCHEDULE` setting and a check of the seeds (injected, so that
/// tests can simulate a CPU whose `rcpps` breaks its bound).
fn choose(setting: Option<&str>, seeds: impl FnOnce() -> Option<Result<(), OutOfBound>>) -> Plan {
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
    let mut plan = calibrate();
    plan.ignored = ignored;
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

/// The lengths timed for the two classes: a power of two that fills half the small class
/// (the three arrays in half of L1), and four times the class limit (they stream from L2).
fn class_lens(small_below: usize) -> [usize; 2] {
    let half = (small_below / 2).max(64);
    let small = 1 << (usize::BITS - 1 - half.leading_zeros());
    [small, (4 * small_below).next_multiple_of(256)]
}

/// Screening rounds over every candidate.
const SCREENING_ROUNDS: usize = 5;
/// Confirmation rounds of the best candidate against the divider (doubled for a close
/// call: a median within [`CLOSE_CALL`] of the threshold).
const CONFIRMATION_ROUNDS: usize = 24;
/// How near the threshold a median is a close call that earns more rounds.
const CLOSE_CALL: f64 = 0.05;
/// The fraction of confirmation rounds a candidate must win against the divider.
const MAJORITY: f64 = 0.75;
/// Target time of one timed sample: many calls at small sizes, few at large ones.
const SAMPLE_NANOS: f64 = 1_500.0;
/// Floats per 64-byte cache line.
const CACHE_LINE_FLOATS: usize = 16;
/// Gaps between the arrays, in floats: cache-line aligned, and different modulo 4 KiB (1024
/// floats), so that the loads and stores of the three arrays meet at different offsets of
/// their pages from round to round (4K aliasing changes these loops' speed by 10–30%).
const LAYOUT_GAPS: [(usize, usize); 4] = [(16, 16), (272, 528), (528, 784), (784, 272)];

/// Times the candidates and picks a schedule per operation and class.
#[cfg(target_arch = "x86_64")]
fn calibrate() -> Plan {
    use std::time::Instant;
    let start = Instant::now();
    let l1 = l1_data_bytes();
    let small_below = small_class_limit(l1.0);
    let lens = class_lens(small_below);
    let mut trials = Vec::new();
    let mut div = [Schedule::Divider; 2];
    let mut recip = [Schedule::Divider; 2];
    for (class, &len) in lens.iter().enumerate() {
        let mut arena = Arena::new(len);
        for op in [Op::Div, Op::Recip] {
            let t = calibrate_one(&mut arena, op, class);
            let chosen = match t.confirmation {
                Some((s, median, won, of))
                    if median >= THRESHOLD && won as f64 >= MAJORITY * of as f64 =>
                {
                    s
                }
                _ => Schedule::Divider,
            };
            match op {
                Op::Div => div[class] = chosen,
                Op::Recip => recip[class] = chosen,
            }
            trials.push(t);
        }
    }
    Plan {
        small_below,
        div,
        recip,
        reason: Reason::Calibrated(Calibration {
            lens,
            trials,
            micros: start.elapsed().as_micros() as u64,
            l1_bytes: l1,
        }),
        ignored: None,
    }
}

/// No kernel to calibrate on other architectures.
#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Plan {
    Plan::uniform(Schedule::Portable, Reason::NoKernel, None)
}

/// One buffer holding the three arrays of a calibration at several layouts.
#[cfg(target_arch = "x86_64")]
struct Arena {
    buffer: Vec<f32>,
    len: usize,
    /// Offset of the first cache line in `buffer`.
    skip: usize,
}

#[cfg(target_arch = "x86_64")]
impl Arena {
    fn new(len: usize) -> Arena {
        let widest = LAYOUT_GAPS.iter().map(|(g, h)| g + h).max().unwrap_or(0);
        let buffer = vec![1.0f32; 3 * len + widest + CACHE_LINE_FLOATS];
        let skip = buffer
            .as_ptr()
            .align_offset(CACHE_LINE_FLOATS * 4)
            .min(CACHE_LINE_FLOATS);
        let mut arena = Arena { buffer, len, skip };
        // Every layout's arrays overlap the others' regions: fill the whole buffer with
        // normal values, so that any window is normal inputs.
        let mut rng = crate::samples::SplitMix64(0xca1b_4a7e);
        for x in arena.buffer.iter_mut() {
            let r = rng.next_u64();
            *x = f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23);
        }
        arena
    }

    /// The three arrays of layout `k`: dividends, divisors, output.
    fn arrays(&mut self, k: usize) -> (&[f32], &[f32], &mut [f32]) {
        let (gap_b, gap_out) = LAYOUT_GAPS[k % LAYOUT_GAPS.len()];
        let len = self.len;
        let rest = &mut self.buffer[self.skip..];
        let (a, rest) = rest.split_at_mut(len + gap_b);
        let (b, rest) = rest.split_at_mut(len + gap_out);
        (&a[..len], &b[..len], &mut rest[..len])
    }
}

/// Screens every candidate for one operation and class, then confirms the best.
#[cfg(target_arch = "x86_64")]
fn calibrate_one(arena: &mut Arena, op: Op, class: usize) -> Trials {
    let calls = calls_per_sample(arena, op);
    // One untimed pass warms the caches, the branch predictors and the clock.
    for (k, s) in CANDIDATES.into_iter().enumerate() {
        time(arena, op, s, k, 1);
    }
    let mut ratios = vec![Vec::with_capacity(SCREENING_ROUNDS); CANDIDATES.len()];
    for round in 0..SCREENING_ROUNDS {
        let mut secs = [0.0f64; CANDIDATES.len()];
        for k in 0..CANDIDATES.len() {
            // Rotate the order so no candidate always runs right after another.
            let i = (k + round) % CANDIDATES.len();
            secs[i] = time(arena, op, CANDIDATES[i], round, calls);
        }
        for (r, t) in ratios.iter_mut().zip(secs) {
            r.push(secs[0] / t.max(f64::MIN_POSITIVE));
        }
    }
    let screening: Vec<(Schedule, f64)> = CANDIDATES
        .iter()
        .zip(ratios.iter_mut())
        .map(|(&s, r)| (s, median(r)))
        .collect();
    let confirmation = screened_best(&screening).map(|s| {
        let mut rounds = confirm(arena, op, s, calls, CONFIRMATION_ROUNDS);
        if (median(&mut rounds) - THRESHOLD).abs() < CLOSE_CALL {
            rounds.extend(confirm(arena, op, s, calls, CONFIRMATION_ROUNDS));
        }
        let won = rounds.iter().filter(|&&r| r > 1.0).count();
        (s, median(&mut rounds), won, rounds.len())
    });
    Trials {
        op,
        class,
        screening,
        confirmation,
    }
}

/// The candidate to confirm: among those that beat the divider in screening and lie within
/// [`TIE`] of the fastest, the first in [`CANDIDATES`] order (the most divider vectors), so
/// that two mixes within noise of each other resolve the same way in every process.
fn screened_best(screening: &[(Schedule, f64)]) -> Option<Schedule> {
    let fastest = screening.iter().map(|&(_, r)| r).fold(0.0, f64::max);
    screening
        .iter()
        .find(|&&(s, r)| s != Schedule::Divider && r > 1.0 && r >= fastest * (1.0 - TIE))
        .map(|&(s, _)| s)
}

/// Screening ratios within this fraction of the fastest count as a tie.
const TIE: f64 = 0.05;

/// `rounds` ratios of the divider's time to `s`'s, alternating, over rotating layouts.
#[cfg(target_arch = "x86_64")]
fn confirm(arena: &mut Arena, op: Op, s: Schedule, calls: usize, rounds: usize) -> Vec<f64> {
    (0..rounds)
        .map(|round| {
            let (first, second) = if round % 2 == 0 {
                (Schedule::Divider, s)
            } else {
                (s, Schedule::Divider)
            };
            let t1 = time(arena, op, first, round, calls);
            let t2 = time(arena, op, second, round, calls);
            let (divider, other) = if round % 2 == 0 { (t1, t2) } else { (t2, t1) };
            divider / other.max(f64::MIN_POSITIVE)
        })
        .collect()
}

/// Calls per timed sample: enough to fill [`SAMPLE_NANOS`] on the divider.
#[cfg(target_arch = "x86_64")]
fn calls_per_sample(arena: &mut Arena, op: Op) -> usize {
    let once = time(arena, op, Schedule::Divider, 0, 1);
    let once = time(arena, op, Schedule::Divider, 0, 1).min(once);
    ((SAMPLE_NANOS * 1e-9 / once.max(1e-9)) as usize).clamp(1, 64)
}

/// Seconds for `calls` runs of schedule `s` over layout `layout`.
#[cfg(target_arch = "x86_64")]
fn time(arena: &mut Arena, op: Op, s: Schedule, layout: usize, calls: usize) -> f64 {
    use std::hint::black_box;
    use std::time::Instant;
    let (a, b, out) = arena.arrays(layout);
    let a = match op {
        Op::Div => Some(a),
        Op::Recip => None,
    };
    let t = Instant::now();
    for _ in 0..calls {
        crate::schedule::run(s, a, b, black_box(&mut *out)).expect("the plan runs on AVX2+FMA");
    }
    t.elapsed().as_secs_f64()
}

/// The median (sorts `v`).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_whose_rcp_breaks_the_bound_keeps_the_divider() {
        let bad = OutOfBound {
            input: 0x3fc0_0000,
            seed: 0x3f30_0000,
        };
        for setting in [None, Some("kernel"), Some("mix-4"), Some("divider")] {
            let plan = choose(setting, || Some(Err(bad)));
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
        let plan = choose(Some("mix-3"), || Some(Ok(())));
        assert_eq!(plan.ignored_setting(), Some("mix-3"));
        assert!(plan.to_string().contains("\"mix-3\" ignored"), "{plan}");
        let plan = choose(Some("kernel"), || Some(Ok(())));
        assert_eq!(plan.ignored_setting(), None);
    }

    #[test]
    fn near_ties_in_screening_go_to_more_divider_vectors() {
        let screened = |ratios: [f64; 7]| -> Vec<(Schedule, f64)> {
            CANDIDATES.iter().copied().zip(ratios).collect()
        };
        // mix-8 fastest, mix-16 within 5%: mix-16.
        assert_eq!(
            screened_best(&screened([1.0, 1.02, 1.04, 0.9, 0.8, 0.7, 0.6])),
            Some(CANDIDATES[1])
        );
        // The kernel clearly fastest: the kernel.
        assert_eq!(
            screened_best(&screened([1.0, 1.02, 1.04, 1.1, 1.2, 1.3, 1.5])),
            Some(Schedule::Kernel)
        );
        // Nothing beats the divider: nothing to confirm.
        assert_eq!(
            screened_best(&screened([1.0, 0.99, 0.9, 0.9, 0.8, 0.7, 0.6])),
            None
        );
    }

    #[test]
    fn classes_follow_the_l1_size() {
        assert_eq!(small_class_limit(32 * 1024), 2730);
        assert_eq!(class_lens(2730), [1024, 11_008]);
        assert_eq!(class_lens(small_class_limit(48 * 1024)), [2048, 16_384]);
    }
}
