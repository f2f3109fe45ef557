//! Random operands through every public entry point of the backend in use, compared bit for
//! bit with the divider: the long form of the other suites, for the backends the CPU cannot
//! run in CI's time — the 16-lane model with its worst `vrcp14ps` tables above all:
//!
//! ```sh
//! FMADIV_BACKEND=avx512-model-low FMADIV_SCHEDULE=kernel \
//!     cargo test --release --test random_patterns -- --ignored --nocapture
//! ```
//!
//! Per entry point, `FMADIV_PATTERNS` pairs (10^7 unless set) of random bit patterns, and
//! as many pairs whose dividends and divisors all lie inside the kernel's input window
//! (random bits there pass through the divider: the kernel's fast path is block-granular,
//! and a block of random patterns nearly always holds a lane outside the window). The
//! default test runs 2^16 of each on whatever backend is in force, as part of `cargo test`.

mod common;

use std::hint::black_box;

use common::SplitMix64;
use fmadiv::{Divisor, Rounding};
use fmadiv_verify::mxcsr::divide_in_mode;

/// Pairs per call: large enough for every loop's chunks and flag-checked stretches.
const BATCH: usize = 1 << 16;

/// Dividends and divisors inside the kernel's window (`|x|` in `[2^-40, 2^40)`, well inside
/// `[2^-63, 2^63)`), random signs and mantissas.
fn in_window(rng: &mut SplitMix64) -> f32 {
    let bits = rng.next_u64();
    let exponent = 127 - 40 + (bits >> 32) as u32 % 80;
    let sign = ((bits >> 31) & 1) as u32;
    f32::from_bits(sign << 31 | exponent << 23 | (bits as u32 & 0x7f_ffff))
}

/// The first pair where `got` differs from `want`, described.
fn first_difference(what: &str, a: &[f32], b: &[f32], got: &[f32], want: &[f32]) -> Option<String> {
    let i = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits())?;
    Some(format!(
        "{what}: {:#010x} / {:#010x}: got {:#010x}, want {:#010x}",
        a[i].to_bits(),
        b[i].to_bits(),
        got[i].to_bits(),
        want[i].to_bits()
    ))
}

/// Every entry point on one batch: the names of those that differ from the divider.
fn check_batch(a: &[f32], b: &[f32]) -> Vec<String> {
    let n = a.len();
    let want: Vec<f32> = a.iter().zip(b).map(|(&x, &y)| black_box(x) / y).collect();
    let mut failures = Vec::new();
    let mut out = vec![0.0f32; n];
    let mut check = |what: &str, got: &[f32], want: &[f32], a: &[f32], b: &[f32]| {
        if let Some(d) = first_difference(what, a, b, got, want) {
            failures.push(d);
        }
    };
    fmadiv::div(a, b, &mut out);
    check("div", &out, &want, a, b);
    out.fill(0.0);
    fmadiv::try_div(a, b, &mut out).unwrap();
    check("try_div", &out, &want, a, b);
    let mut in_place = a.to_vec();
    fmadiv::div_in_place(&mut in_place, b);
    check("div_in_place", &in_place, &want, a, b);
    out.fill(0.0);
    fmadiv::par_div(a, b, &mut out);
    check("par_div", &out, &want, a, b);
    let ones = vec![1.0f32; n];
    let want_recip: Vec<f32> = b.iter().map(|&y| black_box(1.0f32) / y).collect();
    fmadiv::recip(b, &mut out);
    check("recip", &out, &want_recip, &ones, b);
    // One divisor per 1024 dividends: div_scalar and a Divisor's slice loop (its proof
    // made on the first slice).
    for (k, (ca, oa)) in a.chunks(1024).zip(out.chunks_mut(1024)).enumerate() {
        let d = b[k * 1024];
        let want_d: Vec<f32> = ca.iter().map(|&x| black_box(x) / d).collect();
        let bs = vec![d; ca.len()];
        fmadiv::div_scalar(ca, d, oa);
        check("div_scalar", oa, &want_d, ca, &bs);
        let divisor = Divisor::new(d);
        divisor.divide_slice(ca, oa);
        divisor.divide_slice(ca, oa);
        check("Divisor::divide_slice", oa, &want_d, ca, &bs);
    }
    for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
        let want_mode = divide_in_mode(a, b, mode);
        fmadiv::div_rounded(a, b, &mut out, mode);
        check(&format!("div_rounded {mode}"), &out, &want_mode, a, b);
        // Short slices take the directed step (below 256 elements on AVX2).
        for (i, len) in (0..n).step_by(97).map(|i| (i, 97.min(n - i))) {
            fmadiv::div_rounded(&a[i..i + len], &b[i..i + len], &mut out[i..i + len], mode);
        }
        check(
            &format!("div_rounded {mode} in 97s"),
            &out,
            &want_mode,
            a,
            b,
        );
    }
    let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
    fmadiv::div_bounds(a, b, &mut lo, &mut hi);
    check(
        "div_bounds lo",
        &lo,
        &divide_in_mode(a, b, Rounding::Down),
        a,
        b,
    );
    check(
        "div_bounds hi",
        &hi,
        &divide_in_mode(a, b, Rounding::Up),
        a,
        b,
    );
    failures
}

/// `patterns` pairs of each kind through every entry point; panics with the differences.
fn run(patterns: usize) {
    let backend = fmadiv::backend();
    let plan = fmadiv::plan();
    eprintln!(
        "backend {}, div schedule at {BATCH}: {}, {patterns} pairs of each kind",
        backend.name(),
        plan.div(BATCH).name(),
    );
    let mut rng = SplitMix64(common::seed() ^ 0x7a77_e125);
    let mut failures = Vec::new();
    for (kind, window) in [("random bits", false), ("in the window", true)] {
        let mut done = 0;
        while done < patterns {
            let n = BATCH.min(patterns - done);
            let pair = |rng: &mut SplitMix64| match window {
                true => (in_window(rng), in_window(rng)),
                false => (rng.next_f32_bits(), rng.next_f32_bits()),
            };
            let (a, b): (Vec<f32>, Vec<f32>) = (0..n).map(|_| pair(&mut rng)).unzip();
            for f in check_batch(&a, &b) {
                failures.push(format!("{kind}: {f}"));
            }
            done += n;
        }
        eprintln!("{kind}: {done} pairs through every entry point");
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_patterns_through_every_entry_point() {
    run(BATCH);
}

#[test]
#[ignore = "10^7 pairs of each kind per entry point: minutes, longer on the model"]
fn ten_million_random_patterns_through_every_entry_point() {
    let patterns = match std::env::var("FMADIV_PATTERNS") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("FMADIV_PATTERNS={v:?} is not a count of pairs")),
        Err(_) => 10_000_000,
    };
    run(patterns);
}
