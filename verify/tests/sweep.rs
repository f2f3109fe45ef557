//! The mantissa sweep's two modes agree: pruning by Markstein's theorem hides no mismatch.
#![cfg(fmadiv_x86)]

use fmadiv::verify::Kernel;
use fmadiv_verify::sweep::{DIVIDEND_TILE, MANTISSAS, Mode, Tally, mantissa_tile};
use rayon::prelude::*;

/// Dividend mantissas `dividends` against every divisor, in tiles across all cores.
fn sweep(kernel: Kernel, mode: Mode, dividends: std::ops::Range<u32>) -> Tally {
    let tiles: Vec<u32> = dividends.clone().step_by(DIVIDEND_TILE as usize).collect();
    let parts: Vec<Tally> = tiles
        .par_iter()
        .map(|&from| {
            let to = (from + DIVIDEND_TILE).min(dividends.end);
            mantissa_tile(kernel, mode, from..to, 0..MANTISSAS).unwrap()
        })
        .collect();
    let mut total = Tally::default();
    for p in &parts {
        total.merge(p);
    }
    total
}

fn has_kernel() -> bool {
    if fmadiv::verify::x86::Avx2Fma::new().is_some() {
        return true;
    }
    fmadiv_verify::samples::skipped_once("the mantissa sweep (needs AVX2+FMA)");
    false
}

#[test]
fn pruned_and_brute_force_find_the_same_mismatches_on_8192_rows() {
    if !has_kernel() {
        return;
    }
    let rows = 0..8192;
    let pairs = 8192u64 << 23;
    // The eight-lane kernels (the sixteen-lane rule's, exact on AMD's table whatever their
    // rule: `the_sixteen_lane_rule_covers_every_vrcp14_seed_and_no_fewer_divisors_do`).
    for kernel in [Kernel::Shipped, Kernel::Newton, Kernel::Published] {
        let brute = sweep(kernel, Mode::BruteForce, rows.clone());
        let pruned = sweep(kernel, Mode::Pruned, rows.clone());
        eprintln!(
            "{kernel}: brute force {} mismatches; pruned {} mismatches, {} proven, {} compared",
            brute.mismatches, pruned.mismatches, pruned.proven, pruned.pairs
        );
        assert_eq!(brute.pairs, pairs);
        assert_eq!(brute.proven, 0);
        assert_eq!(pruned.pairs + pruned.proven, pairs);
        assert_eq!(pruned.mismatches, brute.mismatches, "{kernel}");
        assert_eq!(pruned.counterexamples, brute.counterexamples, "{kernel}");
        match kernel {
            Kernel::Shipped => {
                assert_eq!(brute.mismatches, 0);
                // About 69% of divisor rows are proven on AMD's rcp table.
                assert!(pruned.proven > pairs / 2, "{} proven", pruned.proven);
            }
            // The weakened kernels are caught by both modes where this CPU's table exposes
            // them in these rows (AMD's does; Intel 0x6/0xcf's exposes the Newton step
            // 104 times and the published kernel not at all).
            _ => {
                if fmadiv_verify::fingerprint::has_amd_rcp_table(
                    "the weakened kernels caught in 8192 mantissa rows on this CPU",
                ) {
                    assert!(brute.mismatches > 0, "{kernel} must be caught");
                }
            }
        }
    }
}

#[test]
fn proven_rows_compared_pair_by_pair_have_no_mismatch() {
    if !has_kernel() {
        return;
    }
    // 256 blocks of eight divisors spread over [1, 2), every dividend.
    let mut rng = fmadiv_verify::samples::SplitMix64(fmadiv_verify::samples::seed());
    let blocks: Vec<u32> = (0..256)
        .map(|_| (rng.next_u64() as u32 % (MANTISSAS / 8)) * 8)
        .collect();
    let (proven, compared, mismatches) = blocks
        .par_iter()
        .map(|&mb| {
            let pruned =
                mantissa_tile(Kernel::Shipped, Mode::Pruned, 0..MANTISSAS, mb..mb + 8).unwrap();
            let brute =
                mantissa_tile(Kernel::Shipped, Mode::BruteForce, 0..MANTISSAS, mb..mb + 8).unwrap();
            (pruned.proven, brute.pairs, brute.mismatches)
        })
        .reduce(|| (0, 0, 0), |x, y| (x.0 + y.0, x.1 + y.1, x.2 + y.2));
    eprintln!("{proven} proven pairs among {compared} compared: {mismatches} mismatches");
    assert!(proven > 0, "the sample must contain proven rows");
    assert_eq!(mismatches, 0);
}

#[test]
fn rcp_scales_exactly_inside_the_input_window() {
    if !has_kernel() {
        return;
    }
    fmadiv_verify::sweep::check_rcp_scaling().unwrap();
}

// Every conforming rcpps table (`fmadiv_verify::sweep::conforming`): the proof that does not
// depend on this CPU's table, and the weakened kernels it must catch.

use fmadiv_verify::sweep::conforming::{
    SeedBound, compare_rows, divisor_rows, reciprocal_seed_stats, reciprocal_tile,
};

/// A divisor whose reciprocal the Newton sequence (crate 0.2.0's `recip`) gets wrong
/// under some conforming seeds, though never under AMD's.
const NEWTON_RECIPROCAL_DIVISOR: u32 = 0x06_9913;

#[test]
fn every_table_division_rows_over_all_divisors_and_64_dividends() {
    if !has_kernel() {
        return;
    }
    let bound = SeedBound::RCPPS;
    // All 2^23 divisors, in parallel slices, as `verify mantissa --rcp any` does.
    let parts: Vec<_> = (0..64u32)
        .into_par_iter()
        .map(|i| divisor_rows(Kernel::Shipped, bound, i << 17..(i + 1) << 17, true).unwrap())
        .collect();
    let mut stats = fmadiv_verify::sweep::conforming::SeedStats::default();
    let mut rows = Vec::new();
    for (r, s) in parts {
        rows.extend(r);
        stats.merge(&s);
    }
    eprintln!("{stats:?}");
    assert_eq!(stats.divisors, u64::from(MANTISSAS));
    // Markstein's hypothesis |1 - b·y| < 2^-24 holds for every row the kernel keeps, under
    // every conforming table; only near-all-ones divisors (the divider's) break it.
    assert_eq!(stats.kept_rows_over_bound, 0);
    assert!(stats.max_error_kept < 1.0);
    assert!(stats.divider_rows_over_bound > 0);
    assert_eq!(stats.divisors_by_divider, 1 << 15);
    // Halley's step collapses ~8 500 seeds per divisor onto one or two reciprocals.
    assert_eq!(stats.refinements[2] + stats.refinements[3], 0);
    assert!(stats.refinements[1] > 0);
    assert_eq!(stats.rows, stats.rows_proven + stats.rows_compared);
    assert_eq!(rows.len() as u64, stats.rows_compared);
    // The compared rows against 64 dividends, in parallel chunks.
    let tally = rows
        .par_chunks(1 << 15)
        .map(|chunk| compare_rows(chunk, 0..64).unwrap())
        .reduce(Tally::default, |mut x, y| {
            x.merge(&y);
            x
        });
    assert_eq!(tally.pairs, 64 * stats.rows_compared);
    assert_eq!(tally.mismatches, 0, "{:?}", tally.counterexamples);
}

#[test]
fn every_table_sweep_catches_the_weakened_kernels_in_both_modes() {
    if !has_kernel() {
        return;
    }
    let bound = SeedBound::RCPPS;
    // Newton's y misses for 1.0 / 0x1.0d3226p+0 under some conforming seed; the published
    // kernel (no near-all-ones fix) for 1.0 / 0x1.fffffep+0, with a seed other than AMD's.
    let cases = [
        (
            Kernel::Newton,
            NEWTON_RECIPROCAL_DIVISOR & !0xff,
            0x3f86_9913u32,
        ),
        (Kernel::Published, 0x7f_ff00, 0x3fff_ffff),
        (Kernel::Shipped, NEWTON_RECIPROCAL_DIVISOR & !0xff, 0),
        (Kernel::Shipped, 0x7f_ff00, 0),
    ];
    for (kernel, from, wrong_divisor) in cases {
        let found: Vec<u64> = [true, false]
            .into_iter()
            .map(|prune| {
                let (rows, stats) = divisor_rows(kernel, bound, from..from + 256, prune).unwrap();
                let tally = compare_rows(&rows, 0..16).unwrap();
                eprintln!(
                    "{kernel}, divisors {from:#x}+256, prune {prune}: {} rows compared, {} proven, {} mismatches",
                    stats.rows_compared, stats.rows_proven, tally.mismatches
                );
                if wrong_divisor != 0 {
                    let c = tally.counterexamples[0];
                    assert_eq!((c.a, c.b), (0x3f80_0000, wrong_divisor), "{kernel}");
                    // The seed that breaks it conforms, and is not this CPU's.
                    let seed = f32::from_bits(c.seed.unwrap());
                    assert!(fmadiv_verify::seeds::conforms(f32::from_bits(c.b), seed, bound));
                }
                tally.mismatches
            })
            .collect();
        // Pruning hides nothing: both modes find the same mismatches.
        assert_eq!(found[0], found[1], "{kernel}");
        assert_eq!(found[0] > 0, wrong_divisor != 0, "{kernel}");
    }
}

#[test]
fn every_table_reciprocals_over_all_divisors() {
    if !has_kernel() {
        return;
    }
    let bound = SeedBound::RCPPS;
    let slices: Vec<u32> = (0..MANTISSAS).step_by(1 << 16).collect();
    let (tally, seeds) = slices
        .par_iter()
        .map(|&from| {
            let range = from..from + (1 << 16);
            let tally = reciprocal_tile(Kernel::Shipped, bound, range.clone()).unwrap();
            let stats = reciprocal_seed_stats(Kernel::Shipped, bound, range).unwrap();
            (tally, stats.seeds)
        })
        .reduce(
            || (Tally::default(), 0),
            |(mut x, a), (y, b)| {
                x.merge(&y);
                (x, a + b)
            },
        );
    assert_eq!(tally.covered(), seeds);
    assert!(tally.by_divider > 0);
    assert_eq!(tally.mismatches, 0, "{:?}", tally.counterexamples);
    // The Newton sequence (crate 0.2.0's recip) is caught, though exact on AMD's table.
    let around = NEWTON_RECIPROCAL_DIVISOR & !0xff;
    let newton = reciprocal_tile(Kernel::Newton, bound, around..around + 256).unwrap();
    assert!(newton.mismatches > 0);
    assert_eq!(newton.counterexamples[0].b, 0x3f86_9913);
}

/// The mantissas of the `k`s in `ks`: `2^23 - k`, the divisors just below 2.
fn near_two(ks: &[u32]) -> Vec<u32> {
    ks.iter().map(|k| 0x3f80_0000 | (MANTISSAS - k)).collect()
}

/// The divisors (bits) of `kernel`'s mismatches over the 64 mantissas just below 2 against
/// every dividend, under `bound`; every row compared (no pruning).
fn near_two_mismatches(kernel: Kernel, bound: SeedBound) -> Vec<u32> {
    let (rows, stats) = divisor_rows(kernel, bound, MANTISSAS - 64..MANTISSAS, false).unwrap();
    let tally = rows
        .par_chunks(8)
        .map(|chunk| compare_rows(chunk, 0..MANTISSAS).unwrap())
        .reduce(Tally::default, |mut x, y| {
            x.merge(&y);
            x
        });
    assert_eq!(tally.pairs, u64::from(MANTISSAS) * stats.rows_compared);
    let mut divisors: Vec<u32> = tally.counterexamples.iter().map(|c| c.b).collect();
    divisors.sort_unstable();
    divisors.dedup();
    divisors
}

#[test]
fn the_sixteen_lane_rule_covers_every_vrcp14_seed_and_no_fewer_divisors_do() {
    if !has_kernel() {
        return;
    }
    // Under 2^-14 (`vrcp14ps`), Markstein's correction rounds wrongly after Halley's step
    // only for these divisors 2 - k·2^-23, each with some seed at the bound's low edge.
    let wrong = near_two(&[27, 25, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1]);
    let bound = SeedBound::RCP14;
    assert_eq!(near_two_mismatches(Kernel::Published, bound), wrong);
    // The sixteen-lane rule (2^5 divisors to the divider) leaves none of them ...
    assert_eq!(near_two_mismatches(Kernel::Vrcp14, bound), []);
    // ... half of it leaves those above 16.
    assert_eq!(
        near_two_mismatches(Kernel::Vrcp14Narrowed, bound),
        near_two(&[27, 25, 21, 19, 17])
    );
    // And `rcpps`' looser bound needs more than the sixteen-lane rule: the eight-lane
    // kernel keeps 2^15.
    assert!(!near_two_mismatches(Kernel::Vrcp14, SeedBound::RCPPS).is_empty());
}
