//! `fmadiv plan --measure`: every choice of the plan measured on the machine at hand, and
//! written to a plan file that `FMADIV_PLAN_FILE` makes later processes read.
//!
//! Each comparison runs the candidate and the divider alternately, round after round, over
//! buffers whose relative offsets rotate (as the floors benchmark does), and keeps the
//! median of the per-round ratios with a 95% sign-test interval. A schedule other than the
//! divider is chosen where its median reaches the table's bar ([`fmadiv::plan::GAIN`]) and
//! its interval lies above 1.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use fmadiv::plan::{Choices, GAIN};
use fmadiv::verify::divisor::{Check, divide_slice_checked_by, flag_checked_from};
use fmadiv::{Backend, Divisor, Schedule};
use fmadiv_verify::samples::{Layouts, SplitMix64};

/// Rounds of every comparison.
const ROUNDS: usize = 41;
/// Target time of one timed sample, as the floors benchmark's; the calls per sample are
/// counted from the baseline's measured time (dividers differ by 2x between CPUs), not
/// assumed.
const SAMPLE_SECONDS: f64 = 250e-6;
/// `Divisor` lengths timed, shortest first: in L1 to streaming from L2.
const DIVISOR_LENS: [usize; 8] = [128, 256, 512, 1024, 2048, 4096, 8192, 16384];
/// Calls timed for the divider's time per element at the longest length (about a
/// millisecond at 0.15-0.27 ns per element).
const DIVIDER_TIMING_CALLS: usize = 256;
/// MXCSR's sticky underflow flag: where the caller's MXCSR holds it (or overflow or
/// invalid), every flag-checked call clears the flags and puts them back, two `ldmxcsr`
/// (60-90 ns a call on family 6 model 0xa7: `examples/dirty_flags.rs`).
const UNDERFLOW_FLAG: u32 = 1 << 4;
/// MXCSR's sticky exception flags now (none off x86-64, where no flag-checked loop runs).
fn exception_flags() -> u32 {
    #[cfg(target_arch = "x86_64")]
    return fmadiv_verify::mxcsr::read_mxcsr() & fmadiv_verify::mxcsr::ALL_FLAGS;
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// MXCSR with exactly `flags` of its sticky exception flags set, its control bits kept
/// (nothing off x86-64).
fn set_exception_flags(flags: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        use fmadiv_verify::mxcsr::{ALL_FLAGS, read_mxcsr, write_mxcsr};
        write_mxcsr((read_mxcsr() & !ALL_FLAGS) | flags);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = flags;
}

/// Lengths the `Divisor` in place is timed at, shortest first: in L1, both arrays of the
/// longest still there.
const IN_PLACE_LENS: [usize; 2] = [1024, 4096];
/// A first slice makes the proof where it costs at most this share of the divider's time.
const FIRST_PROOF_SHARE: f64 = 0.02;
/// Divisors of the three zero-sign classes of the flag-checked loop (none, the dividend's
/// sign, the product's sign), each proven to take two products: 3 and ±0x1.a25bcep+0
/// (whose `RZ(1/b)` is not proven, so it keeps `RN(1/b)` and the repair).
const CLASS_DIVISORS: [f32; 3] = [3.0, 1.634_213_3, -1.634_213_3];

/// A median and its 95% interval (sign test) of per-round ratios.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Ratio {
    fn of(mut v: Vec<f64>) -> Ratio {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        // Ranks of the 95% interval of the median: n/2 ± 0.98·sqrt(n).
        let half = (0.98 * (n as f64).sqrt()).ceil() as usize;
        Ratio {
            median: v[n / 2],
            low: v[(n / 2).saturating_sub(half)],
            high: v[(n / 2 + half).min(n - 1)],
        }
    }

    /// A gain the plan takes: the median at the bar, the interval above 1.
    fn clears(self) -> bool {
        self.median >= GAIN && self.low > 1.0
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2} [{:.2}, {:.2}]", self.median, self.low, self.high)
    }
}

/// `n` values of [`SplitMix64::next_normal`].
fn normals(n: usize, rng: &mut SplitMix64) -> Vec<f32> {
    (0..n).map(|_| rng.next_normal()).collect()
}

/// `rounds` ratios of `baseline`'s time to `candidate`'s, alternating, the layout changing
/// every round; each runs enough calls per sample to fill [`SAMPLE_SECONDS`] of the
/// baseline's time.
fn ratios(
    layouts: &mut Layouts,
    mut baseline: impl FnMut(&[f32], &[f32], &mut [f32]),
    mut candidate: impl FnMut(&[f32], &[f32], &mut [f32]),
) -> Ratio {
    let mut time = |layouts: &mut Layouts, k: usize, which: bool, calls: usize| {
        let (a, b, out) = layouts.arrays(k);
        let t = Instant::now();
        for _ in 0..calls {
            if which {
                candidate(black_box(a), b, black_box(&mut *out));
            } else {
                baseline(black_box(a), b, black_box(&mut *out));
            }
        }
        t.elapsed().as_secs_f64()
    };
    time(layouts, 0, true, WARM_UP_CALLS);
    let once = time(layouts, 0, false, WARM_UP_CALLS) / WARM_UP_CALLS as f64;
    let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
    let r = (0..ROUNDS)
        .map(|k| {
            let first = k % 2 == 0;
            let t1 = time(layouts, k, !first, calls);
            let t2 = time(layouts, k, first, calls);
            let (base, cand) = if first { (t1, t2) } else { (t2, t1) };
            base / cand.max(f64::MIN_POSITIVE)
        })
        .collect();
    Ratio::of(r)
}

/// Calls of each side before timing starts; the baseline's time over them sets the
/// calls per sample.
const WARM_UP_CALLS: usize = 4;

/// What was measured, for the table printed and the file's comment lines.
pub struct Measured {
    pub choices: Choices,
    pub lines: Vec<String>,
}

/// Measures every choice of the plan on this CPU.
pub fn measure() -> Result<Measured, String> {
    if fmadiv::backend() == fmadiv::Backend::Portable {
        return Err("no SIMD kernel here: every schedule is the portable path".into());
    }
    let plan = fmadiv::plan();
    let mut choices = *plan.choices();
    let mut lines = Vec::new();
    let small = plan.small_below();
    let half = (small / 2).max(64);
    let lens = [
        1usize << (usize::BITS - 1 - half.leading_zeros()),
        (4 * small).next_multiple_of(256),
    ];
    let mut rng = SplitMix64(0x6d65_6173);
    for (op, recip) in [("div", false), ("recip", true)] {
        for (class, &len) in lens.iter().enumerate() {
            let mut layouts = Layouts::new(normals(len, &mut rng), normals(len, &mut rng));
            let run = |s: Schedule| {
                move |a: &[f32], b: &[f32], out: &mut [f32]| {
                    let a = if recip { None } else { Some(a) };
                    fmadiv::verify::run_schedule(s, a, b, out).expect("AVX2+FMA checked");
                }
            };
            let mut best: Option<(Schedule, Ratio)> = None;
            let mut row = Vec::new();
            for s in Schedule::CANDIDATES.into_iter().skip(1) {
                let r = ratios(&mut layouts, run(Schedule::Divider), run(s));
                row.push(format!("{} {r}", s.name()));
                // The most divider vectors among those within 5% of the best median.
                let better = best.is_none_or(|(_, b)| r.median > b.median * 1.05);
                if r.clears() && better {
                    best = Some((s, r));
                }
            }
            let chosen = best.map_or(Schedule::Divider, |(s, _)| s);
            if recip {
                choices.recip[class] = chosen;
            } else {
                choices.div[class] = chosen;
            }
            lines.push(format!(
                "{op} at {len} elements vs the divider schedule: {}; chosen {}",
                row.join(", "),
                chosen.name()
            ));
        }
    }
    measure_divisor(&mut choices, &mut lines, &mut rng);
    Ok(Measured { choices, lines })
}

/// `out[i] = a[i] / b` by `d`'s sequence (`true`) or the divider, on `backend`: the
/// `Divisor`'s own backend, so that a sixteen-lane one is measured at its width.
fn divisor_slice(backend: Backend, d: &Divisor, sequence: bool, a: &[f32], out: &mut [f32]) {
    use fmadiv::verify::divisor::{divide_slice_by, divide_slice_on};
    if divide_slice_on(backend, d, sequence, a, out).is_none() {
        divide_slice_by(d, sequence, a, out);
    }
}

/// [`divisor_slice`] in place.
fn divisor_in_place(backend: Backend, d: &Divisor, sequence: bool, a: &mut [f32]) {
    use fmadiv::verify::divisor::{divide_in_place_by, divide_in_place_on};
    if divide_in_place_on(backend, d, sequence, a).is_none() {
        divide_in_place_by(d, sequence, a);
    }
}

/// The `Divisor`'s lengths, on the backend it runs (`fmadiv::backend_of(EntryPoint::Div)`):
/// where its sequence beats the divider by the bar, with the caller's flags clear and with
/// its underflow flag set, what a proof costs, and in place.
fn measure_divisor(choices: &mut Choices, lines: &mut Vec<String>, rng: &mut SplitMix64) {
    // From clear exception flags, whatever earlier work left (the sequence is also timed
    // with the underflow flag set, on purpose). Put back after.
    let callers = exception_flags();
    set_exception_flags(0);
    measure_divisor_from_clear_flags(choices, lines, rng);
    set_exception_flags(exception_flags() | callers);
}

/// Below which length a slice whose caller holds a voiding flag runs the window-checked
/// loop: from the flag-checked chunks' shortest length up, as long as the window beats the
/// chunks with the underflow flag held, on normal dividends and on half zeros, for a
/// divisor of each zero-sign class (0: the chunks whatever the caller holds).
fn measure_window_if_flags_held(
    lines: &mut Vec<String>,
    normal: &mut Layouts,
    rng: &mut SplitMix64,
) -> usize {
    let Some(chunks_from) = flag_checked_from() else {
        return 0;
    };
    let longest = DIVISOR_LENS[DIVISOR_LENS.len() - 1];
    let half_zeros: Vec<f32> = normals(longest, rng)
        .into_iter()
        .map(|x| {
            if rng.next_u64().is_multiple_of(2) {
                0.0
            } else {
                x
            }
        })
        .collect();
    let mut zeros = Layouts::new(half_zeros.clone(), half_zeros);
    let mut below = usize::MAX;
    for b in CLASS_DIVISORS {
        let d = Divisor::new(b);
        let mut row = Vec::new();
        let mut wins_below = chunks_from;
        for &len in DIVISOR_LENS.iter().filter(|&&n| n >= chunks_from) {
            set_exception_flags(UNDERFLOW_FLAG);
            let [n, z] = [&mut *normal, &mut zeros].map(|layouts| {
                ratios(
                    layouts,
                    |a, _, out| {
                        divide_slice_checked_by(&d, Check::Flags, &a[..len], &mut out[..len])
                    },
                    |a, _, out| {
                        divide_slice_checked_by(&d, Check::Window, &a[..len], &mut out[..len])
                    },
                )
            });
            set_exception_flags(0);
            row.push(format!("{len} {n} (half zeros {z})"));
            if n.median <= 1.0 || z.median <= 1.0 {
                break;
            }
            // The lengths double: the window up to the next one.
            wins_below = len * 2;
        }
        lines.push(format!(
            "Divisor({b}) with underflow held, window vs flag-checked chunks: {}",
            row.join(", ")
        ));
        below = below.min(wins_below);
    }
    let below = if below <= chunks_from { 0 } else { below };
    lines.push(format!(
        "Divisor with a flag held: the window below {below} elements (0: the chunks always)"
    ));
    below
}

/// [`measure_divisor`] once MXCSR's exception flags are clear.
fn measure_divisor_from_clear_flags(
    choices: &mut Choices,
    lines: &mut Vec<String>,
    rng: &mut SplitMix64,
) {
    let backend = fmadiv::backend_of(fmadiv::EntryPoint::Div);
    lines.push(format!(
        "Divisor on {} ({} lanes)",
        backend.name(),
        backend.lanes()
    ));
    let longest = DIVISOR_LENS[DIVISOR_LENS.len() - 1];
    let mut layouts = Layouts::new(normals(longest, rng), normals(longest, rng));
    let held_below = measure_window_if_flags_held(lines, &mut layouts, rng);
    choices.divisor.window_if_flags_held_below = held_below;
    // The sequence as the slices run it with a flag held: the window below `held_below`.
    let held_check = Check::FlagsUnlessHeld { below: held_below };
    let mut sequence_from = 0;
    let mut divider_ns_per_element = f64::MAX;
    for b in CLASS_DIVISORS {
        let d = Divisor::new(b);
        let mut row = Vec::new();
        let mut from = usize::MAX;
        for &len in DIVISOR_LENS.iter().rev() {
            let mut compare = || {
                ratios(
                    &mut layouts,
                    |a, _, out| divisor_slice(backend, &d, false, &a[..len], &mut out[..len]),
                    |a, _, out| divisor_slice(backend, &d, true, &a[..len], &mut out[..len]),
                )
            };
            let r = compare();
            // Again with the caller's underflow flag set, as a program that ever underflowed
            // holds it: the flag-checked chunks then clear and restore it in every call, from
            // `held_below` on.
            set_exception_flags(UNDERFLOW_FLAG);
            let dirty = ratios(
                &mut layouts,
                |a, _, out| divisor_slice(backend, &d, false, &a[..len], &mut out[..len]),
                |a, _, out| divide_slice_checked_by(&d, held_check, &a[..len], &mut out[..len]),
            );
            set_exception_flags(0);
            row.push(format!("{len} {r} (underflow set {dirty})"));
            // From the longest down: the sequence runs from the shortest length where it
            // clears the bar both ways with every longer one at least even.
            if r.median < 1.0 || dirty.median < 1.0 {
                break;
            }
            if r.clears() && dirty.clears() {
                from = len;
            }
        }
        row.reverse();
        lines.push(format!(
            "Divisor({b}) ({}) sequence vs divider: {}",
            d.strategy(),
            row.join(", ")
        ));
        sequence_from = sequence_from.max(from);
        // The divider's time per element at the longest length (fixed costs spread widest).
        let (a, _, out) = layouts.arrays(0);
        let calls = DIVIDER_TIMING_CALLS;
        let t = Instant::now();
        for _ in 0..calls {
            divisor_slice(
                backend,
                &d,
                false,
                black_box(&a[..longest]),
                black_box(&mut out[..longest]),
            );
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / (calls * longest) as f64;
        divider_ns_per_element = divider_ns_per_element.min(ns);
    }
    choices.divisor.sequence_from = sequence_from;
    // The cost of a proof (`strategy` makes it), median of rounds over 64 divisors.
    let divisors: Vec<f32> = (0..64).map(|_| rng.next_normal()).collect();
    let mut proofs: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            for &b in &divisors {
                black_box(Divisor::new(black_box(b)).strategy());
            }
            t.elapsed().as_secs_f64() * 1e9 / divisors.len() as f64
        })
        .collect();
    proofs.sort_by(f64::total_cmp);
    let proof_ns = proofs[proofs.len() / 2];
    let first = (proof_ns / (FIRST_PROOF_SHARE * divider_ns_per_element)).ceil() as usize;
    choices.divisor.first_proof_from = match first.max(sequence_from).checked_next_power_of_two() {
        Some(n) if sequence_from != usize::MAX => n,
        _ => usize::MAX,
    };
    lines.push(format!(
        "Divisor proof {proof_ns:.0} ns, divider {divider_ns_per_element:.3} ns per element: a \
         first slice proves from {} elements (the proof at most {:.0}% of its division)",
        length(choices.divisor.first_proof_from),
        FIRST_PROOF_SHARE * 100.0
    ));
    // In place, on a copy of the dividends made in the same call (both sides): from the
    // shortest of these lengths where it clears the bar with every longer one.
    let d = Divisor::new(CLASS_DIVISORS[0]);
    let mut in_place_from = usize::MAX;
    for len in IN_PLACE_LENS.into_iter().rev() {
        let in_place = ratios(
            &mut layouts,
            |a, _, out| {
                fmadiv_verify::samples::restore(&mut out[..len], &a[..len]);
                divisor_in_place(backend, &d, false, &mut out[..len]);
            },
            |a, _, out| {
                fmadiv_verify::samples::restore(&mut out[..len], &a[..len]);
                divisor_in_place(backend, &d, true, &mut out[..len]);
            },
        );
        lines.push(format!(
            "Divisor in place at {len} vs the divider in place (copy included): {in_place}"
        ));
        if !in_place.clears() {
            break;
        }
        in_place_from = len;
    }
    choices.divisor.in_place_from = match sequence_from {
        usize::MAX => usize::MAX,
        from => from.max(in_place_from),
    };
}

/// A length as `fmadiv plan` prints it: `never` for `usize::MAX`.
fn length(n: usize) -> String {
    match n {
        usize::MAX => "never".to_string(),
        n => n.to_string(),
    }
}

/// Measures, prints, and writes the plan file at `path`.
pub fn run(path: &Path) -> Result<(), String> {
    crate::files::check_writable(path)?;
    let plan = fmadiv::plan();
    println!("measuring the plan's choices on {} ...", plan.cpu());
    let measured = measure()?;
    for line in &measured.lines {
        println!("  {line}");
    }
    let note = format!(
        "Measured by `fmadiv plan --measure` ({} rounds per comparison, medians over rotating \
         layouts); the table's row: {}.\n{}",
        ROUNDS,
        match plan.origin() {
            fmadiv::plan::Origin::Table { row, .. } => row,
            _ => "none",
        },
        measured.lines.join("\n")
    );
    let text = measured.choices.to_plan_file(plan.cpu(), &note);
    crate::files::write_atomic(path, text.as_bytes())?;
    let c = &measured.choices;
    println!(
        "wrote {}: div {}/{}, recip {}/{}, Divisor sequence from {}, first slice from {}",
        path.display(),
        c.div[0].name(),
        c.div[1].name(),
        c.recip[0].name(),
        c.recip[1].name(),
        length(c.divisor.sequence_from),
        length(c.divisor.first_proof_from)
    );
    println!(
        "processes started with {}={} run these choices",
        fmadiv::plan::PLAN_FILE_ENV,
        path.display()
    );
    Ok(())
}
