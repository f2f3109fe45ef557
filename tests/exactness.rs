//! Bit-exactness of `div` against the hardware's `a / b`: edge values, random bit patterns,
//! every exponent pair, every subnormal dividend.

mod common;

use common::{SplitMix64, assert_quotients, count_mismatches, edge_values, seed};
use fmadiv::verify::portable;

/// Checks a batch through every public entry point and the portable path.
fn check_all_paths(a: &[f32], b: &[f32]) {
    let mut out = vec![0.0f32; a.len()];
    fmadiv::div(a, b, &mut out);
    assert_quotients("div", a, b, &out);

    out.fill(0.0);
    fmadiv::try_div(a, b, &mut out).unwrap();
    assert_quotients("try_div", a, b, &out);

    let mut inplace = a.to_vec();
    fmadiv::div_in_place(&mut inplace, b);
    assert_quotients("div_in_place", a, b, &inplace);

    out.fill(0.0);
    fmadiv::par_div(a, b, &mut out);
    assert_quotients("par_div", a, b, &out);

    for (ca, cb) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let q = fmadiv::div_f32x8(
            wide::f32x8::new(ca.try_into().unwrap()),
            wide::f32x8::new(cb.try_into().unwrap()),
        );
        assert_quotients("div_f32x8", ca, cb, &q.to_array());
    }

    out.fill(0.0);
    portable::div_slices(a, b, &mut out);
    assert_quotients("portable", a, b, &out);

    // `div` runs the plan's schedule; every other schedule must give the same bits, and
    // the kernel must be exact on every lane it accepts.
    #[cfg(fmadiv_x86)]
    if fmadiv::verify::div_with(fmadiv::verify::Kernel::Shipped, a, b, &mut out).is_some() {
        assert_quotients("kernel on every lane", a, b, &out);
    }
    common::assert_every_schedule(a, b);
}

/// The FMA kernel on every lane where it can run (`div` mixes in hardware vectors), else
/// `div`.
fn kernel_alone(a: &[f32], b: &[f32], out: &mut [f32]) {
    #[cfg(fmadiv_x86)]
    if fmadiv::verify::div_with(fmadiv::verify::Kernel::Shipped, a, b, out).is_some() {
        return;
    }
    fmadiv::div(a, b, out);
}

/// All pairs of `xs × ys` as two flat slices.
fn pairs(xs: &[f32], ys: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let a = xs.iter().flat_map(|&x| ys.iter().map(move |_| x)).collect();
    let b = xs.iter().flat_map(|_| ys.iter().copied()).collect();
    (a, b)
}

#[test]
fn edge_value_pairs() {
    let edges = edge_values();
    // Each edge value and its neighbours one ulp either side.
    let mut values: Vec<f32> = edges
        .iter()
        .flat_map(|x| {
            let b = x.to_bits();
            [b.wrapping_sub(1), b, b.wrapping_add(1)].map(f32::from_bits)
        })
        .collect();
    values.sort_by_key(|x| x.to_bits());
    values.dedup_by_key(|x| x.to_bits());
    let (a, b) = pairs(&values, &values);
    assert!(a.len() > 25_000, "{} pairs", a.len());
    check_all_paths(&a, &b);
}

#[test]
fn the_all_ones_divisor() {
    // The published algorithm returns 1.0 here on AMD Zen 3 (rcp(0x1.fffffep+0) = 0.5).
    let a = [1.0f32; 8];
    let b = [f32::from_bits(0x3f7f_ffff); 8];
    check_all_paths(&a, &b);
    // Every power-of-two dividend over every all-ones divisor in the fast-path range.
    let powers: Vec<f32> = (1..255u32).map(|e| f32::from_bits(e << 23)).collect();
    let all_ones: Vec<f32> = (1..255u32)
        .map(|e| f32::from_bits(e << 23 | 0x7f_ffff))
        .collect();
    let (a, b) = pairs(&powers, &all_ones);
    check_all_paths(&a, &b);
}

#[test]
fn random_bit_patterns() {
    // 10^8 pairs of arbitrary bit patterns, in batches through `div`.
    const PAIRS: usize = 100_000_000;
    const BATCH: usize = 1 << 16;
    let mut rng = SplitMix64(seed());
    let mut a = vec![0.0f32; BATCH];
    let mut b = vec![0.0f32; BATCH];
    let mut out = vec![0.0f32; BATCH];
    for _ in 0..PAIRS / BATCH + 1 {
        for (x, y) in a.iter_mut().zip(&mut b) {
            *x = rng.next_f32_bits();
            *y = rng.next_f32_bits();
        }
        fmadiv::div(&a, &b, &mut out);
        assert_quotients("div (random bits)", &a, &b, &out);
        kernel_alone(&a, &b, &mut out);
        assert_quotients("kernel alone (random bits)", &a, &b, &out);
    }
}

#[test]
fn random_fast_path_pairs() {
    // Normal dividends and divisors whose quotient stays in the normal range: the lanes
    // the fast path handles. 2·10^7 pairs with random signs, mantissas and exponents.
    let mut rng = SplitMix64(seed() ^ 0xfa57);
    let mut a = vec![0.0f32; 1 << 16];
    let mut b = vec![0.0f32; 1 << 16];
    let mut out = vec![0.0f32; 1 << 16];
    for _ in 0..300 {
        for (x, y) in a.iter_mut().zip(&mut b) {
            let r = rng.next_u64();
            let ea = 64 + (r as u32 >> 8) % 128;
            let eb = 64 + (r >> 40) as u32 % 128;
            *x = f32::from_bits((r as u32 & 0x807f_ffff) | ea << 23);
            *y = f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | eb << 23);
        }
        kernel_alone(&a, &b, &mut out);
        assert_quotients("kernel alone (fast-path range)", &a, &b, &out);
    }
}

#[test]
fn every_exponent_pair() {
    // All 256 × 256 exponent pairs, both signs, with mantissas that stress rounding and
    // the near-all-ones divisors.
    const MANTISSAS: [u32; 8] = [
        0, 1, 0x40_0000, 0x2a_aaab, 0x7f_7fff, 0x7f_8000, 0x7f_fffe, 0x7f_ffff,
    ];
    let values: Vec<f32> = (0..256u32)
        .flat_map(|e| MANTISSAS.iter().map(move |&m| e << 23 | m))
        .flat_map(|bits| [f32::from_bits(bits), f32::from_bits(bits | 0x8000_0000)])
        .collect();
    let (mismatches, first) = count_mismatches(&values, &values, fmadiv::div);
    assert_eq!(mismatches, 0, "first: {first:?}");
    let (mismatches, first) = count_mismatches(&values, &values, kernel_alone);
    assert_eq!(mismatches, 0, "kernel alone, first: {first:?}");
}

#[test]
fn every_subnormal_dividend() {
    // All 2^23 - 1 positive and negative subnormal dividends over a set of divisors. Through
    // the software model every lane is one scalar division (no block of these is in the
    // kernel's window): there every 64th significand and the largest (93 s down to 1 s on
    // family 0x19).
    // (By name: the model's variant exists only on x86 with the feature `verify`.)
    let model = fmadiv::backend().name().starts_with("avx512-model");
    // The kernel alone does not follow `FMADIV_SCHEDULE`: with only the schedule forced (CI
    // runs five such suites) it is the default run's kernel again, so there every 64th
    // significand runs through it and through the public `div` under that schedule.
    let schedule_only = std::env::var_os("FMADIV_SCHEDULE").is_some()
        && std::env::var_os("FMADIV_BACKEND").is_none();
    // A build with AVX2 on at compile time (CI's static step) runs the same kernel and guard
    // as the default run, which checked every significand; the guard's decision here turns on
    // the dividend's exponent field (0 for every subnormal), which every 64th one covers.
    let static_build = cfg!(target_feature = "avx2");
    // The portable path (forced, or compiled alone) divides every lane by `/` and has no
    // guard at all: every 64th significand there too.
    let portable = fmadiv::backend() == fmadiv::Backend::Portable;
    let step = match model || schedule_only || static_build || portable {
        true => 64,
        false => 1,
    };
    let dividends: Vec<f32> = (1..1u32 << 23)
        .step_by(step)
        .chain([0x7f_ffff])
        .flat_map(|m| [f32::from_bits(m), f32::from_bits(m | 0x8000_0000)])
        .collect();
    let mut divisors = edge_values();
    divisors.extend([0.5f32, 0.75, 1e-30, 1e30, 2.0f32.powi(-24), 0.999_999_9]);
    let mut out = vec![0.0f32; dividends.len()];
    for &y in &divisors {
        let b = vec![y; dividends.len()];
        kernel_alone(&dividends, &b, &mut out);
        assert_quotients("kernel alone (subnormal dividends)", &dividends, &b, &out);
        if schedule_only {
            fmadiv::div(&dividends, &b, &mut out);
            assert_quotients("div, schedule forced (subnormals)", &dividends, &b, &out);
        }
    }
}

#[test]
fn divisors_around_every_binade_boundary() {
    // Divisors with near-all-ones and near-zero mantissas at every exponent, against
    // dividends with the same and with random mantissas.
    let mut rng = SplitMix64(seed() ^ 0xb0);
    let mut divisors = Vec::new();
    for e in 0..256u32 {
        for m in (0x7f_fff0..=0x7f_ffff)
            .chain(0x7f_7ff8..0x7f_8008)
            .chain(0..8)
        {
            divisors.push(f32::from_bits(e << 23 | m));
        }
    }
    let dividends: Vec<f32> = (0..64)
        .map(|_| f32::from_bits(rng.next_u64() as u32 & 0x7fff_ffff))
        .collect();
    let (mismatches, first) = count_mismatches(&dividends, &divisors, kernel_alone);
    assert_eq!(mismatches, 0, "first: {first:?}");
}

#[test]
fn quotients_next_to_the_smallest_normal() {
    // a = (1.m ∓ ulp)·2^(e-126), b = 1.m·2^e: quotients just below and above 2^-126, where
    // a 24-bit quotient of 1 - 2^-24 scaled into the subnormals would round twice (to
    // 2^-126) while the correct quotient is the largest subnormal.
    let mut a = Vec::new();
    let mut b = Vec::new();
    for m in (0..0x80_0000u32).step_by(61) {
        for e in [127u32, 140, 200, 252] {
            for (da, sign) in [(-1i32, 0u32), (1, 0), (-1, 0x8000_0000), (-2, 0), (2, 0)] {
                let divisor = e << 23 | m;
                let dividend = divisor.wrapping_add_signed(da) - (126 << 23);
                a.push(f32::from_bits(dividend | sign));
                b.push(f32::from_bits(divisor));
            }
        }
    }
    let mut out = vec![0.0f32; a.len()];
    kernel_alone(&a, &b, &mut out);
    assert_quotients("kernel alone (around 2^-126)", &a, &b, &out);
    fmadiv::div(&a, &b, &mut out);
    assert_quotients("div (around 2^-126)", &a, &b, &out);
}
