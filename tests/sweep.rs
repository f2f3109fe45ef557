//! The mantissa sweep's two modes agree: pruning by Markstein's theorem hides no mismatch.
#![cfg(target_arch = "x86_64")]

mod common;

use fmadiv::internal::Kernel;
use fmadiv::sweep::{DIVIDEND_TILE, MANTISSAS, Mode, Tally, mantissa_tile};
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
    if fmadiv::internal::avx2::Avx2Fma::new().is_some() {
        return true;
    }
    common::skipped_once("the mantissa sweep (needs AVX2+FMA)");
    false
}

#[test]
fn pruned_and_brute_force_find_the_same_mismatches_on_8192_rows() {
    if !has_kernel() {
        return;
    }
    let rows = 0..8192;
    let pairs = 8192u64 << 23;
    for kernel in Kernel::ALL {
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
            // The weakened kernels are caught by both modes.
            _ => assert!(brute.mismatches > 0, "{kernel} must be caught"),
        }
    }
}

#[test]
fn proven_rows_compared_pair_by_pair_have_no_mismatch() {
    if !has_kernel() {
        return;
    }
    // 256 blocks of eight divisors spread over [1, 2), every dividend.
    let mut rng = common::SplitMix64(common::seed());
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
    fmadiv::sweep::check_rcp_scaling().unwrap();
}
