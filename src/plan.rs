//! The per-CPU plan: which schedule of kernel and divider vectors the slice functions run.
//!
//! Whether the FMA kernel beats the hardware divider, alone or beside it, depends on the
//! CPU: on some the divider and the FMA pipes overlap, on others their times add, and the
//! divider's speed differs by microarchitecture. So the plan is not a table of known CPUs
//! but a short calibration on the CPU found: on the first division each candidate
//! [`Schedule`] divides the same in-cache slice of normal inputs, alternately, a few
//! rounds, and the fastest wins, provided it beats the divider alone by a margin. It costs
//! well under a millisecond, once per process. Every schedule gives identical bits, so the
//! plan changes speed, never results.
//!
//! `FMADIV_SCHEDULE=divider|kernel|mix-D|portable` forces a schedule for `div` and
//! `recip` (for benchmarks and bug reports); `FMADIV_FORCE_PORTABLE=1` forces the portable
//! path for everything.

use core::fmt;
use std::sync::OnceLock;

/// The environment variable that forces a [`Schedule`] (read once, at the first division).
pub const SCHEDULE_ENV: &str = "FMADIV_SCHEDULE";

/// How a slice function spreads its vectors between the FMA kernel and the hardware divider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Schedule {
    /// No AVX2+FMA (or forced): hardware division lane by lane, x86 NaN rules.
    Portable,
    /// `vdivps` on every vector: the divider alone.
    Divider,
    /// Blocks of four kernel vectors, each followed by this many divider vectors.
    Mixed(u8),
    /// The FMA kernel on every vector (lanes it cannot guarantee go to the divider).
    Kernel,
}

/// The divider vectors per kernel block of the mixed schedules the plan tries: from one
/// divider vector per four kernel vectors to four per one (geometric, so that two
/// candidates are rarely within noise of each other).
pub const MIXES: [u8; 5] = [1, 2, 4, 8, 16];

/// The schedules a calibration tries, in order of preference on ties: fewer kernel vectors
/// first (the divider alone is the reference every other schedule must clearly beat).
pub const CANDIDATES: [Schedule; 7] = [
    Schedule::Divider,
    Schedule::Mixed(MIXES[4]),
    Schedule::Mixed(MIXES[3]),
    Schedule::Mixed(MIXES[2]),
    Schedule::Mixed(MIXES[1]),
    Schedule::Mixed(MIXES[0]),
    Schedule::Kernel,
];

impl Schedule {
    /// The name `FMADIV_SCHEDULE` takes.
    pub fn name(self) -> String {
        match self {
            Schedule::Portable => "portable".into(),
            Schedule::Divider => "divider".into(),
            Schedule::Mixed(d) => format!("mix-{d}"),
            Schedule::Kernel => "kernel".into(),
        }
    }

    /// Parses [`Schedule::name`]; mixed schedules must be one of [`MIXES`].
    pub fn from_name(name: &str) -> Option<Schedule> {
        match name {
            "portable" => Some(Schedule::Portable),
            "divider" => Some(Schedule::Divider),
            "kernel" => Some(Schedule::Kernel),
            _ => {
                let d: u8 = name.strip_prefix("mix-")?.parse().ok()?;
                MIXES.contains(&d).then_some(Schedule::Mixed(d))
            }
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Portable => f.write_str("portable (hardware divide per lane)"),
            Schedule::Divider => f.write_str("divider alone (vdivps on every vector)"),
            Schedule::Mixed(d) => write!(f, "mix-{d} (4 kernel vectors, then {d} on the divider)"),
            Schedule::Kernel => f.write_str("kernel alone (FMA kernel on every vector)"),
        }
    }
}

/// One candidate's calibration result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trial {
    /// The schedule timed.
    pub schedule: Schedule,
    /// Its speed relative to the divider alone (higher is faster), median of the rounds.
    pub vs_divider: f64,
}

/// Why the plan is what it is.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// No AVX2+FMA on this CPU, or `FMADIV_FORCE_PORTABLE=1`.
    NoKernel,
    /// Set by `FMADIV_SCHEDULE`.
    Forced,
    /// Measured here: each candidate's speed for `div` and for `recip`, and the time the
    /// calibration took.
    Calibrated {
        /// Candidates for `a / b`, in [`CANDIDATES`] order.
        div: Vec<Trial>,
        /// Candidates for `1 / b`, in [`CANDIDATES`] order.
        recip: Vec<Trial>,
        /// Microseconds the whole calibration took.
        micros: u64,
    },
}

/// The schedules this process runs, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// What `div`, `try_div`, `div_in_place` and `par_div`'s chunks run.
    pub div: Schedule,
    /// What `recip` runs.
    pub recip: Schedule,
    /// How the plan was chosen.
    pub reason: Reason,
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "div: {}; recip: {}", self.div.name(), self.recip.name())?;
        match &self.reason {
            Reason::NoKernel => f.write_str(" (no AVX2+FMA kernel here, or forced portable)"),
            Reason::Forced => write!(f, " (forced by {SCHEDULE_ENV})"),
            Reason::Calibrated { div, recip, micros } => {
                let list = |trials: &[Trial]| {
                    trials
                        .iter()
                        .map(|t| format!("{} {:.2}", t.schedule.name(), t.vs_divider))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                write!(
                    f,
                    " (calibrated in {micros} us; speed vs the divider alone at \
                     {CALIBRATION_LEN} elements: div [{}], recip [{}]; another schedule must \
                     be {:.0}% faster)",
                    list(div),
                    list(recip),
                    (1.0 / (1.0 - MARGIN) - 1.0) * 100.0
                )
            }
        }
    }
}

/// A schedule other than the divider alone is chosen only if it takes at least this
/// fraction less time than the divider (is at least 1.43× as fast): noise must not pick a
/// schedule that is not really faster, and the choice must be the same in every process.
/// Measured on AMD EPYC family 0x19, the best mixed schedule for `recip` runs at about
/// 1.0× in some fresh processes and 1.25× in others (its 48 KiB working set streams from
/// L2, where the placement of physical pages differs per process): a threshold must lie
/// clear of both.
const MARGIN: f64 = 0.3;
/// Among the schedules within this fraction of the fastest, the first in [`CANDIDATES`]
/// order wins, so that near-ties resolve the same way in every process.
const TIE: f64 = 0.04;

static PLAN: OnceLock<Plan> = OnceLock::new();

/// The plan of this process: detected and calibrated at the first call, then cached.
#[inline]
pub fn plan() -> &'static Plan {
    PLAN.get_or_init(choose)
}

fn choose() -> Plan {
    if crate::backend() == crate::Backend::Portable {
        return Plan {
            div: Schedule::Portable,
            recip: Schedule::Portable,
            reason: Reason::NoKernel,
        };
    }
    if let Some(forced) = std::env::var(SCHEDULE_ENV)
        .ok()
        .and_then(|s| Schedule::from_name(s.trim()))
    {
        return Plan {
            div: forced,
            recip: forced,
            reason: Reason::Forced,
        };
    }
    calibrate()
}

/// Times the candidates and picks a schedule per operation.
#[cfg(target_arch = "x86_64")]
fn calibrate() -> Plan {
    use std::time::Instant;
    let start = Instant::now();
    let mut buffer = vec![0.0f32; 3 * CALIBRATION_LEN + 3 * LAYOUT_GAP + CACHE_LINE_FLOATS];
    // Where the three arrays lie relative to cache lines and 4 KiB pages changes their
    // speed (split loads, 4K aliasing of loads with stores): fix it so that every process
    // measures the same layout. Start at a cache line; separate the arrays by one line more
    // than a multiple of 4 KiB.
    let skip = buffer
        .as_ptr()
        .align_offset(CACHE_LINE_FLOATS * 4)
        .min(CACHE_LINE_FLOATS);
    let (a, rest) = buffer[skip..].split_at_mut(CALIBRATION_LEN + LAYOUT_GAP);
    let (b, out) = rest.split_at_mut(CALIBRATION_LEN + LAYOUT_GAP);
    let (a, b) = (&mut a[..CALIBRATION_LEN], &mut b[..CALIBRATION_LEN]);
    let out = &mut out[..CALIBRATION_LEN];
    fill_calibration_inputs(a, b);
    let (a, b) = (&*a, &*b);
    let div = measure(
        |s, out| crate::slices::run_schedule(s, Some(a), b, out),
        out,
    );
    let recip = measure(|s, out| crate::slices::run_schedule(s, None, b, out), out);
    let micros = start.elapsed().as_micros() as u64;
    Plan {
        div: pick(&div),
        recip: pick(&recip),
        reason: Reason::Calibrated { div, recip, micros },
    }
}

/// No kernel to calibrate on other architectures.
#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Plan {
    Plan {
        div: Schedule::Portable,
        recip: Schedule::Portable,
        reason: Reason::NoKernel,
    }
}

/// Elements of the calibration slice: 48 KiB for the three arrays, the size the speed
/// goals name. In L1 on some CPUs, just beyond it on others: the plan is for slices that
/// are not tiny, and tiny ones lose little either way.
pub const CALIBRATION_LEN: usize = 4096;
/// Calls per timed sample: a few microseconds, long enough to dwarf the clock's overhead.
const CALLS_PER_SAMPLE: usize = 2;
/// Rounds over all candidates, alternating (odd: the median is one of them).
const ROUNDS: usize = 7;

/// Floats per 64-byte cache line.
const CACHE_LINE_FLOATS: usize = 16;
/// Floats between the calibration arrays: one cache line.
const LAYOUT_GAP: usize = CACHE_LINE_FLOATS;

/// Normal dividends and divisors with exponents within ±30, like the benchmarks' "normal".
#[cfg(target_arch = "x86_64")]
fn fill_calibration_inputs(a: &mut [f32], b: &mut [f32]) {
    let mut rng = crate::samples::SplitMix64(0xca1b_4a7e);
    let mut normal = || {
        let r = rng.next_u64();
        f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
    };
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        (*x, *y) = (normal(), normal());
    }
}

/// Times every candidate, alternating, and returns each one's speed relative to the
/// divider alone: the median over the rounds of the divider's time in that round over the
/// candidate's, so that a slow moment of the machine affects both sides of a ratio.
#[cfg(target_arch = "x86_64")]
fn measure(run: impl Fn(Schedule, &mut [f32]), out: &mut [f32]) -> Vec<Trial> {
    use std::hint::black_box;
    use std::time::Instant;
    let mut ratios = [[0.0f64; CANDIDATES.len()]; ROUNDS];
    // One untimed round warms the caches, the branch predictors and the clock.
    for s in CANDIDATES {
        run(s, out);
    }
    for (round, row) in ratios.iter_mut().enumerate() {
        let mut secs = [0.0f64; CANDIDATES.len()];
        for k in 0..CANDIDATES.len() {
            // Rotate the order so no candidate always runs right after another.
            let i = (k + round) % CANDIDATES.len();
            let t = Instant::now();
            for _ in 0..CALLS_PER_SAMPLE {
                run(CANDIDATES[i], black_box(&mut *out));
            }
            secs[i] = t.elapsed().as_secs_f64();
        }
        for (r, t) in row.iter_mut().zip(secs) {
            *r = secs[0] / t.max(f64::MIN_POSITIVE);
        }
    }
    CANDIDATES
        .iter()
        .enumerate()
        .map(|(i, &schedule)| {
            let mut r: [f64; ROUNDS] = core::array::from_fn(|round| ratios[round][i]);
            r.sort_by(f64::total_cmp);
            Trial {
                schedule,
                vs_divider: r[ROUNDS / 2],
            }
        })
        .collect()
}

/// The fastest schedule, if it beats the divider alone by [`MARGIN`]; near-ties go to the
/// earliest candidate.
fn pick(trials: &[Trial]) -> Schedule {
    let fastest = trials.iter().map(|t| t.vs_divider).fold(0.0, f64::max);
    let clear_win = 1.0 / (1.0 - MARGIN);
    trials
        .iter()
        .find(|t| t.vs_divider >= clear_win && t.vs_divider >= fastest * (1.0 - TIE))
        .map_or(Schedule::Divider, |t| t.schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trials(speeds: [f64; 7]) -> Vec<Trial> {
        CANDIDATES
            .iter()
            .zip(speeds)
            .map(|(&schedule, vs_divider)| Trial {
                schedule,
                vs_divider,
            })
            .collect()
    }

    #[test]
    fn the_divider_wins_unless_clearly_beaten() {
        assert_eq!(
            pick(&trials([1.0, 0.9, 0.95, 1.40, 0.8, 0.7, 0.5])),
            Schedule::Divider
        );
        assert_eq!(
            pick(&trials([1.0, 0.9, 0.95, 1.50, 1.2, 0.7, 0.5])),
            Schedule::Mixed(4)
        );
    }

    #[test]
    fn near_ties_go_to_the_earlier_candidate() {
        assert_eq!(
            pick(&trials([1.0, 1.1, 1.46, 1.50, 1.2, 0.7, 0.5])),
            Schedule::Mixed(8)
        );
    }

    #[test]
    fn names_round_trip() {
        for s in CANDIDATES.into_iter().chain([Schedule::Portable]) {
            assert_eq!(Schedule::from_name(&s.name()), Some(s));
        }
        assert_eq!(Schedule::from_name("mix-3"), None);
        assert_eq!(Schedule::from_name("fast"), None);
    }
}
