//! Shared test helpers: a seeded bit-pattern generator, the edge-value table, and checks
//! that compare bits with the hardware's `a / b`.
#![allow(dead_code, unused_imports)]

pub use fmadiv_verify::samples::{SplitMix64, edge_pairs, edge_values, seed, skipped_once};

/// Formats a mismatch for a failure message.
pub fn describe(a: f32, b: f32, got: f32, want: f32) -> String {
    format!(
        "a = {:#010x} ({a:e}), b = {:#010x} ({b:e}): got {:#010x} ({got:e}), want {:#010x} ({want:e})",
        a.to_bits(),
        b.to_bits(),
        got.to_bits(),
        want.to_bits()
    )
}

/// Asserts `got[i]` has the bits of `a[i] / b[i]` for every i.
#[track_caller]
pub fn assert_quotients(what: &str, a: &[f32], b: &[f32], got: &[f32]) {
    assert_eq!(a.len(), got.len());
    for i in 0..a.len() {
        let want = a[i] / b[i];
        if got[i].to_bits() != want.to_bits() {
            panic!("{what}: {}", describe(a[i], b[i], got[i], want));
        }
    }
}

/// Counts the mismatches of `f` against `a / b` over all pairs of `dividends × divisors`,
/// returning the count and the first mismatch.
pub fn count_mismatches(
    dividends: &[f32],
    divisors: &[f32],
    f: impl Fn(&[f32], &[f32], &mut [f32]),
) -> (u64, Option<String>) {
    let mut a = vec![0.0f32; divisors.len()];
    let mut out = vec![0.0f32; divisors.len()];
    let mut count = 0;
    let mut first = None;
    for &x in dividends {
        a.fill(x);
        f(&a, divisors, &mut out);
        for (&y, &q) in divisors.iter().zip(&out) {
            let want = x / y;
            if q.to_bits() != want.to_bits() {
                count += 1;
                first.get_or_insert_with(|| describe(x, y, q, want));
            }
        }
    }
    (count, first)
}

/// The 2^23 divisors 1.m in [1, 2).
pub fn all_mantissas() -> Vec<f32> {
    (0..1u32 << 23)
        .map(|m| f32::from_bits(0x3f80_0000 | m))
        .collect()
}

/// Dividends 1.m for m in `range`, against all 2^23 divisors in [1,2), in parallel.
/// Returns the number of pairs, the number of mismatches and the first mismatch.
pub fn mantissa_rows(
    range: std::ops::Range<u32>,
    f: impl Fn(&[f32], &[f32], &mut [f32]) + Sync,
) -> (u64, u64, Option<String>) {
    use rayon::prelude::*;
    let divisors = all_mantissas();
    let results: Vec<(u64, Option<String>)> = range
        .clone()
        .into_par_iter()
        .map(|m| {
            let dividend = [f32::from_bits(0x3f80_0000 | m)];
            count_mismatches(&dividend, &divisors, &f)
        })
        .collect();
    let pairs = (range.len() as u64) << 23;
    let mismatches = results.iter().map(|r| r.0).sum();
    let first = results.into_iter().find_map(|r| r.1);
    (pairs, mismatches, first)
}

/// Runs `a / b` and `1 / b` under every schedule the plan can choose (those this CPU can
/// run; the others are reported once) and compares the bits with the hardware.
#[track_caller]
pub fn assert_every_schedule(a: &[f32], b: &[f32]) {
    use fmadiv::Schedule;
    let mut out = vec![0.0f32; a.len()];
    for s in Schedule::CANDIDATES.into_iter().chain([Schedule::Portable]) {
        out.fill(0.0);
        if fmadiv::verify::run_schedule(s, Some(a), b, &mut out).is_none() {
            skipped_once(&format!("schedule {} (needs AVX2+FMA)", s.name()));
            continue;
        }
        assert_quotients(&format!("schedule {}", s.name()), a, b, &out);
        out.fill(0.0);
        fmadiv::verify::run_schedule(s, None, b, &mut out).unwrap();
        let ones = vec![1.0f32; b.len()];
        assert_quotients(&format!("recip schedule {}", s.name()), &ones, b, &out);
    }
}
