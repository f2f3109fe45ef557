//! Shared test helpers: a seeded bit-pattern generator, the edge-value table, and checks
//! that compare bits with the hardware's `a / b`.
#![allow(dead_code)]

/// SplitMix64: small, seeded, good enough to draw bit patterns.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn next_f32_bits(&mut self) -> f32 {
        f32::from_bits(self.next_u64() as u32)
    }
}

/// The seed for random tests: `FMADIV_TEST_SEED` or a fixed default, printed either way.
pub fn seed() -> u64 {
    let seed = std::env::var("FMADIV_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_f00d_1234_5678);
    eprintln!("random seed: {seed} (set FMADIV_TEST_SEED to change)");
    seed
}

/// Positive edge values; `edge_values` adds the negatives.
const EDGE_BITS: &[u32] = &[
    0x0000_0000, // 0
    0x0000_0001, // smallest subnormal
    0x0000_0002,
    0x0040_0000, // 2^-127 (subnormal)
    0x007f_fffe,
    0x007f_ffff, // largest subnormal
    0x0080_0000, // MIN_POSITIVE = 2^-126
    0x0080_0001,
    0x0080_0002,
    0x00ff_ffff, // all-ones mantissa at 2^-126
    0x0100_0000, // 2^-125
    0x0100_0001,
    0x3f7f_fffe,
    0x3f7f_ffff, // 1 - 2^-24
    0x3f80_0000, // 1
    0x3f80_0001,
    0x3f80_0002,
    0x3fc0_0000, // 1.5
    0x3fff_7fff, // just below the near-all-ones divisors
    0x3fff_8000, // first near-all-ones divisor
    0x3fff_fffd,
    0x3fff_fffe,
    0x3fff_ffff, // 0x1.fffffep+0: the all-ones divisor
    0x4000_0000, // 2
    0x4040_0000, // 3
    0x3dcc_cccd, // 0.1
    0x3eaa_aaab, // 1/3
    0x4b7f_ffff, // 2^24 - 1
    0x7e00_0000, // 2^125
    0x7e7f_ffff, // just below 2^126
    0x7e80_0000, // 2^126
    0x7e80_0001,
    0x7eff_ffff, // all-ones mantissa at 2^126
    0x7f00_0000, // 2^127
    0x7f00_0001,
    0x7f7f_fffe,
    0x7f7f_ffff, // MAX
    0x7f80_0000, // inf
    0x7f80_0001, // signalling NaN, smallest payload
    0x7fa0_0000, // signalling NaN
    0x7fbf_ffff, // signalling NaN, largest payload
    0x7fc0_0000, // quiet NaN
    0x7fc1_2345, // quiet NaN with payload
    0x7fff_ffff, // quiet NaN, all payload bits
];

/// Both signs of every edge value.
pub fn edge_values() -> Vec<f32> {
    EDGE_BITS
        .iter()
        .flat_map(|&b| [f32::from_bits(b), f32::from_bits(b | 0x8000_0000)])
        .collect()
}

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
