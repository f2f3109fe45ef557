//! The calibration behind the plan: every candidate schedule timed on this CPU, per size
//! class and operation, over buffers whose layout changes from round to round; the best
//! screened candidate confirmed against the divider alone (see the parent module).

use super::{
    Calibration, DivisorBreakEven, Op, Plan, Reason, THRESHOLD, Trials, l1_data_bytes,
    small_class_limit,
};
use crate::schedule::{CANDIDATES, Schedule};

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
const CONFIRMATION_ROUNDS: usize = 48;
/// How near the threshold a median is a close call that earns more rounds.
const CLOSE_CALL: f64 = 0.03;
/// The one-sided normal quantile of the confidence in a choice: 99%.
const CONFIDENCE_Z: f64 = 2.326;
/// Target time of one timed sample: many calls at small sizes, few at large ones.
const SAMPLE_NANOS: f64 = 1_500.0;

/// Times the candidates and picks a schedule per operation and class.
pub(super) fn calibrate() -> Plan {
    use std::time::Instant;
    let start = Instant::now();
    let l1 = l1_data_bytes();
    let small_below = small_class_limit(l1.0);
    let lens = class_lens(small_below);
    let mut trials = Vec::new();
    let mut div = [Schedule::Divider; 2];
    let mut recip = [Schedule::Divider; 2];
    let mut short_below = [0; 2];
    for (class, &len) in lens.iter().enumerate() {
        let mut arena = Arena::new(len);
        for (k, op) in Op::ALL.into_iter().enumerate() {
            let mut t = calibrate_one(&mut arena, op, class);
            let chosen = match t.confirmation {
                Some((s, _, lower_bound, _)) if lower_bound >= THRESHOLD => s,
                _ => Schedule::Divider,
            };
            if class == 0 && chosen != Schedule::Divider {
                (t.short, short_below[k]) = short_slices(op, chosen, len);
            }
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
        short_below,
        divisor: DivisorBreakEven::never(),
        made_in_micros: 0,
        divisor_micros: 0,
        runs: super::Runs::of(div, recip, short_below),
        reason: Reason::Calibrated(Calibration {
            lens,
            trials,
            micros: start.elapsed().as_micros() as u64,
            l1_bytes: l1,
        }),
        ignored: None,
        file: None,
    }
}

/// The three arrays of a calibration at several layouts ([`crate::samples::Layouts`]),
/// normal values throughout.
struct Arena(crate::samples::Layouts);

impl Arena {
    fn new(len: usize) -> Arena {
        let mut rng = crate::samples::SplitMix64(0xca1b_4a7e);
        Arena(crate::samples::Layouts::new(len, || {
            let r = rng.next_u64();
            f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
        }))
    }

    /// The three arrays of layout `k`: dividends, divisors, output.
    fn arrays(&mut self, k: usize) -> (&[f32], &[f32], &mut [f32]) {
        let (a, b, out) = self.0.arrays(k);
        (a, b, out)
    }
}

/// Screens every candidate for one operation and class, then confirms the best.
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
        if (lower_bound(&mut rounds) - THRESHOLD).abs() < CLOSE_CALL {
            rounds.extend(confirm(arena, op, s, calls, CONFIRMATION_ROUNDS));
        }
        (
            s,
            median(&mut rounds),
            lower_bound(&mut rounds),
            rounds.len(),
        )
    });
    Trials {
        op,
        class,
        screening,
        confirmation,
        short: Vec::new(),
    }
}

/// Steps of a schedule's loop at which the small class's choice is timed again: one step
/// (its kernel block and divider vectors, once) and four.
const SHORT_STEPS: [usize; 2] = [1, 4];
/// Alternating rounds of each short-slice measurement.
const SHORT_ROUNDS: usize = 24;

/// The small class's choice `s` (confirmed at `class_len` elements) timed against the
/// divider on slices of [`SHORT_STEPS`] steps of its loop, where a few steps cannot overlap
/// the kernel and the divider as a long slice does. Returns the measurements, (length,
/// median ratio), and the length below which the divider runs instead: 0 where `s` keeps
/// up with the divider at one step (shorter slices are on the divider in every schedule),
/// four steps where only there, else `class_len`.
fn short_slices(op: Op, s: Schedule, class_len: usize) -> (Vec<(usize, f64)>, usize) {
    let mut rows = Vec::new();
    let mut below = class_len;
    // From the longest down: stop at the first length where `s` loses.
    for steps in SHORT_STEPS.into_iter().rev() {
        let len = steps * s.step_len();
        if len >= class_len {
            continue;
        }
        let mut arena = Arena::new(len);
        let calls = calls_per_sample(&mut arena, op);
        let ratio = median(&mut confirm(&mut arena, op, s, calls, SHORT_ROUNDS));
        rows.push((len, ratio));
        if ratio < 1.0 {
            break;
        }
        // Keeping up at one step covers every length: shorter slices are all divider.
        below = if steps == SHORT_STEPS[0] { 0 } else { len };
    }
    rows.reverse();
    (rows, below)
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
fn calls_per_sample(arena: &mut Arena, op: Op) -> usize {
    let once = time(arena, op, Schedule::Divider, 0, 1);
    let once = time(arena, op, Schedule::Divider, 0, 1).min(once);
    ((SAMPLE_NANOS * 1e-9 / once.max(1e-9)) as usize).clamp(1, 64)
}

/// Seconds for `calls` runs of schedule `s` over layout `layout`.
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

/// A lower confidence bound of the median of `v` (sorts `v`): the order statistic of rank
/// `n/2 - z·sqrt(n)/2`, above which the true median lies with probability at least 99%, whatever
/// the distribution of the rounds (a sign test: each round falls either side of the median
/// with probability one half).
fn lower_bound(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let rank = (n / 2.0 - CONFIDENCE_Z * n.sqrt() / 2.0).floor().max(0.0) as usize;
    v.get(rank).copied().unwrap_or(0.0)
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

/// `rounds` ratios of the divider's time to `s`'s for `op` at `len` elements, on buffers
/// of their own (not the calibration's), alternating, over rotating layouts: an
/// independent measurement of a choice, afterwards.
pub(super) fn measure_against_divider(op: Op, len: usize, s: Schedule, rounds: usize) -> Vec<f64> {
    let mut arena = Arena::new(len);
    let calls = calls_per_sample(&mut arena, op) * 4;
    confirm(&mut arena, op, s, calls, rounds)
}

/// Dividends of the `Divisor` measurement: 32 KiB of dividends and of quotients, reused by
/// the shorter lengths.
const DIVISOR_LEN: usize = 1 << 13;
/// Dividends per timed sample (at least one call).
const DIVISOR_SAMPLE: usize = 1 << 12;
/// The lengths at which a proven `Divisor` is timed against the divider, per call (fixed
/// costs included), shortest first: from in L1 to streaming from L2.
const DIVISOR_LENS: [usize; 6] = [128, 512, 1024, 2048, 4096, 8192];
/// Divisors tried for the cost of a proof and for the two measured ones.
const PROOF_DIVISORS: usize = 32;
/// A divisor's first slice makes the proof only if the proof costs at most this share of
/// the divider's time for it: a `Divisor` made per row of a matrix in memory divides
/// data the divider is as fast on (the sequence's gain there measured 0.94-1.05x on
/// family 0x19, rows of 1024 and 4096 over 2 and 8 MiB), so the proof must be small
/// beside the job itself, not just beside the gain measured in L1.
const FIRST_PROOF_SHARE: f64 = 0.02;
/// The proven sequence starts where it is at least this much faster than the divider (the
/// schedules' threshold: a median of five rounds that merely ties is noise, and the floors
/// benchmark measured slices at 0.85x the divider where a 1.05 median had chosen the
/// sequence)...
pub(super) const SEQUENCE_WIN: f64 = super::THRESHOLD;
/// ...and runs up to the first longer length where it is less than this fast (beyond L1
/// both are bound by the cache's bandwidth, and a sequence that only ties there is not
/// worth the risk of losing).
const SEQUENCE_HOLD: f64 = 1.03;
/// The length at which the lane-checked loop is timed against the divider.
const LANES_LEN: usize = 2048;
/// Rounds of each `Divisor` comparison (odd: the median is one of them).
const DIVISOR_ROUNDS: usize = 5;

/// When a `Divisor` pays on this CPU, per repair class of the flag-checked loop (what the
/// zero quotients' sign costs: nothing, an OR of `a`'s sign, or a multiply more; known
/// from `zh` and `zl` before the proof), from measurements on normal dividends,
/// alternating, medians: the cost of a proof, and at each of `DIVISOR_LENS` the time per
/// call of a proven two-products divisor of that class and of the divider. See
/// [`DivisorBreakEven`] for what the thresholds mean.
pub(super) fn divisor_break_even() -> DivisorBreakEven {
    use std::hint::black_box;
    use std::time::Instant;

    use crate::Divisor;
    let mut rng = crate::samples::SplitMix64(0xd1_5015);
    let mut normal = || {
        let r = rng.next_u64();
        f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
    };
    let divisors: Vec<f32> = (0..PROOF_DIVISORS).map(|_| normal()).collect();
    // Normal dividends, their quotients' array at the rotating layouts of the schedules'
    // calibration (layout must not decide).
    let mut arena = Arena::new(DIVISOR_LEN);
    // The cost of a proof, per divisor (`strategy` makes it).
    let mut proofs: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            for &b in &divisors {
                black_box(Divisor::new(black_box(b)).strategy());
            }
            t.elapsed().as_secs_f64() * 1e9 / PROOF_DIVISORS as f64
        })
        .collect();
    let proof = median(&mut proofs);
    let mut result = DivisorBreakEven::never();
    result.measured = Some(proof);
    for side in 0..3 {
        // A two-products divisor of this repair class.
        let Some(sequence) = divisors
            .iter()
            .map(|&b| Divisor::new(b))
            .find(|d| d.two_products_repair_class() == Some(side))
        else {
            continue;
        };
        // Nanoseconds per call over the first `len` dividends of layout `layout`, by the
        // proven sequence or the divider (`divide_slice_by` never asks the plan, which is
        // being made); in place, on a copy of the dividends made in the same call.
        let time =
            |arena: &mut Arena, layout: usize, by_sequence: bool, in_place: bool, len: usize| {
                let (a, _, out) = arena.arrays(layout);
                let calls = (DIVISOR_SAMPLE / len).max(1);
                let t = Instant::now();
                for _ in 0..calls {
                    if in_place {
                        let x = black_box(&mut out[..len]);
                        crate::samples::restore(x, &a[..len]);
                        sequence.divide_in_place_by(by_sequence, x);
                    } else {
                        sequence.divide_slice_by(
                            by_sequence,
                            black_box(&a[..len]),
                            black_box(&mut out[..len]),
                        );
                    }
                }
                t.elapsed().as_secs_f64() * 1e9 / calls as f64
            };
        // (divider, sequence) nanoseconds per call at each length, alternately, the
        // layout changing every round.
        let per_call = |arena: &mut Arena, in_place: bool, lens: &[usize]| -> Vec<(f64, f64)> {
            lens.iter()
                .map(|&len| {
                    time(arena, 0, true, in_place, len);
                    time(arena, 0, false, in_place, len);
                    let (mut on_divider, mut by_sequence) = (Vec::new(), Vec::new());
                    for round in 0..DIVISOR_ROUNDS {
                        let mut run = |s: bool| time(arena, round, s, in_place, len);
                        if round % 2 == 0 {
                            on_divider.push(run(false));
                            by_sequence.push(run(true));
                        } else {
                            by_sequence.push(run(true));
                            on_divider.push(run(false));
                        }
                    }
                    (median(&mut on_divider), median(&mut by_sequence))
                })
                .collect()
        };
        let slices = per_call(&mut arena, false, &DIVISOR_LENS);
        let hold = |d: f64, s: f64| d >= SEQUENCE_HOLD * s;
        let wins = |d: f64, s: f64| d >= SEQUENCE_WIN * s;
        let sequence = window(&DIVISOR_LENS, &slices, &wins, &hold);
        result.sequence[side] = sequence;
        // A first slice makes the proof where the sequence then runs and the proof is at
        // most FIRST_PROOF_SHARE of the divider's time: from the length where the
        // divider's time per element at the longest length measured (the cheapest per
        // element: fixed costs spread widest) makes it so.
        let longest = DIVISOR_LENS.len() - 1;
        let per_element = slices[longest].0 / DIVISOR_LENS[longest] as f64;
        let first = (proof / (FIRST_PROOF_SHARE * per_element)).ceil() as usize;
        let from = sequence.0.max(first);
        result.proof[side] = if from < sequence.1 {
            (from, sequence.1)
        } else {
            (usize::MAX, usize::MAX)
        };
        result.ratios[side] = ratios(&DIVISOR_LENS, &slices);
        // In place (the lane-checked loop, whatever the class), only where the sequence
        // wins on slices, and only if it wins in place too: measured once, at one length.
        if sequence.0 != usize::MAX {
            let in_place = *result.in_place_ratio.get_or_insert_with(|| {
                let (d, s) = per_call(&mut arena, true, &[LANES_LEN])[0];
                d / s
            });
            if wins(in_place, 1.0) {
                result.in_place[side] = sequence;
            }
        }
    }
    result.set_earliest();
    // How the flag-checked loop redoes voided chunks matters only where it runs.
    if result.shortest_sequence != usize::MAX {
        result.lanes_ratio = lanes_ratio(&divisors, &mut arena);
    }
    result
}

/// The lane-checked loop of a two-products `Divisor` against the divider on normal
/// dividends, at `LANES_LEN`, alternating, median of `DIVISOR_ROUNDS`: the divider's time
/// over the loop's.
fn lanes_ratio(divisors: &[f32], arena: &mut Arena) -> Option<f64> {
    use std::hint::black_box;
    use std::time::Instant;
    let d = divisors
        .iter()
        .map(|&b| crate::Divisor::new(b))
        .find(|d| d.two_products_repair_class().is_some())?;
    let mut time = |layout: usize, lanes: bool| {
        let (a, _, out) = arena.arrays(layout);
        let (a, out) = (&a[..LANES_LEN], &mut out[..LANES_LEN]);
        let t = Instant::now();
        for _ in 0..(DIVISOR_SAMPLE / LANES_LEN).max(1) {
            if lanes {
                d.divide_slice_checked_by(crate::DivisorCheck::Lanes, black_box(a), black_box(out));
            } else {
                d.divide_slice_by(false, black_box(a), black_box(out));
            }
        }
        t.elapsed().as_secs_f64()
    };
    time(0, true);
    time(0, false);
    let mut ratios: Vec<f64> = (0..DIVISOR_ROUNDS)
        .map(|round| {
            if round % 2 == 0 {
                let d = time(round, false);
                d / time(round, true)
            } else {
                let l = time(round, true);
                time(round, false) / l
            }
        })
        .collect();
    Some(median(&mut ratios))
}

/// The lengths from the shortest of `lens` where `start` holds for its (divider, sequence)
/// times, through every longer one where `hold` does, up to (not including) the first
/// measured length where it fails; `usize::MAX` for never, or no end.
fn window(
    lens: &[usize],
    per_call: &[(f64, f64)],
    start: &dyn Fn(f64, f64) -> bool,
    hold: &dyn Fn(f64, f64) -> bool,
) -> (usize, usize) {
    let Some(k0) = (0..lens.len()).find(|&k| start(per_call[k].0, per_call[k].1)) else {
        return (usize::MAX, usize::MAX);
    };
    let end = (k0..lens.len())
        .find(|&k| !hold(per_call[k].0, per_call[k].1))
        .map_or(usize::MAX, |k| lens[k]);
    (lens[k0], end)
}

/// The divider's time over the sequence's at each length.
fn ratios(lens: &[usize], per_call: &[(f64, f64)]) -> Vec<(usize, f64)> {
    lens.iter()
        .zip(per_call)
        .map(|(&len, &(d, s))| (len, d / s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_timed_lengths_follow_the_class_limit() {
        assert_eq!(class_lens(2730), [1024, 11_008]);
        assert_eq!(class_lens(small_class_limit(48 * 1024)), [2048, 16_384]);
    }
}
