//! The kernels proven for every `rcpps` table the documentation allows, not only this CPU's.
//!
//! The only operation of the kernels that IEEE-754 does not define is the seed
//! `r = rcp(b)`. Intel and AMD document it by a bound alone: `|1 - b·r| <= 1.5·2^-12`
//! ([`SeedBound::RCPPS`]). Everything after it (FMAs, a multiply) is correctly rounded and
//! the same on every CPU. So instead of this CPU's seeds, the sweep takes **every** float
//! the bound allows:
//!
//! - for each divisor mantissa `b` in [1, 2), the allowed seeds are one run of consecutive
//!   floats ([`seed_range`]: the real interval `|1 - b·r| <= bound`, decided exactly in
//!   binary64), some 6 000 to 12 000 of them;
//! - each seed goes through the kernel's own refinement (`avx2::refine`, the very code
//!   `div` runs); Halley's step is cubic, so they collapse onto one or two refined
//!   reciprocals `y`: the set `Y(b)` of every `y` any conforming CPU can produce for `b`;
//! - each row `(b, y)` is proven for all 2^23 dividends by the row lemma
//!   (`|1 - b·y| < 2^-25`, exact; see [`fmadiv::kernel_notes`]) or compared with `vdivps`
//!   pair by pair, `y` fixed ([`compare_rows`]); rows of divisors the kernel sends to the
//!   divider (near-all-ones) need neither;
//! - the reciprocal kernel has one input: each allowed seed of each divisor goes through
//!   its sequence and must give `RN(1/b)` ([`reciprocal_tile`]).
//!
//! Why mantissas suffice whatever a table does with exponents and signs: inside the input
//! window a conforming `rcp(±m·2^e)`, times `±2^e`, is itself a conforming seed of `m`
//! (the bound is on the relative error, and scaling by a power of two is exact there), and
//! every later step scales and mirrors exactly. So a table need not scale exactly; the
//! check of that property (`super::check_rcp_scaling`) stays a fingerprint fact, and the
//! own-table sweeps still use it.
//!
//! What a sweep with another bound covers: `--rcp-bound 2^-14` (the bound documented for
//! AVX-512's `vrcp14ps`) proves the eight-lane code's arithmetic under such seeds, and with
//! `--kernel vrcp14` the sixteen-lane backend's near-all-ones rule (2^5 divisors to the
//! divider, not 2^15) with it; the sixteen-lane plumbing (masks, 512-bit loads, blends) is
//! held to the eight-lane code's lanes by the model and the native tests.

use core::ops::Range;

#[cfg(fmadiv_x86)]
use super::markstein_row_proven;
use super::{MANTISSAS, Tally};
pub use crate::seeds::{SeedBound, conforms, seed_range};
use fmadiv::verify::Kernel;
#[cfg(fmadiv_x86)]
use fmadiv::verify::bits::ONE_BITS;

/// What an every-table sweep found out about seeds and refined reciprocals, over a range
/// of divisor mantissas. Counts add up over disjoint ranges ([`SeedStats::merge`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeedStats {
    /// Divisor mantissas covered.
    pub divisors: u64,
    /// Allowed seeds over all of them: `(b, r)` pairs run through the refinement.
    pub seeds: u64,
    /// Fewest allowed seeds of one divisor (0 when no divisor was covered).
    pub seeds_min: u64,
    /// Most allowed seeds of one divisor.
    pub seeds_max: u64,
    /// How many divisors have 1, 2, 3, or 4 or more distinct refined reciprocals.
    pub refinements: [u64; 4],
    /// `(b, y)` rows of divisors the kernel keeps (not sent to the divider).
    pub rows: u64,
    /// Of those, rows the lemma proves for every dividend.
    pub rows_proven: u64,
    /// Of those, rows compared pair by pair.
    pub rows_compared: u64,
    /// Divisors the kernel sends to the divider (near-all-ones), whatever their seed.
    pub divisors_by_divider: u64,
    /// Largest `|1 - b·y|` over kept rows, in units of 2^-24 (Markstein's lemma needs < 1).
    pub max_error_kept: f64,
    /// Kept rows with `|1 - b·y| >= 2^-24`: outside Markstein's hypothesis.
    pub kept_rows_over_bound: u64,
    /// Largest `|1 - b·y|` over the divider's divisors' rows, in units of 2^-24.
    pub max_error_by_divider: f64,
    /// Rows of the divider's divisors with `|1 - b·y| >= 2^-24`.
    pub divider_rows_over_bound: u64,
}

impl SeedStats {
    /// Adds the statistics of a disjoint range of divisors.
    pub fn merge(&mut self, other: &SeedStats) {
        if other.divisors == 0 {
            return;
        }
        self.seeds_min = if self.divisors == 0 {
            other.seeds_min
        } else {
            self.seeds_min.min(other.seeds_min)
        };
        self.divisors += other.divisors;
        self.seeds += other.seeds;
        self.seeds_max = self.seeds_max.max(other.seeds_max);
        for (s, o) in self.refinements.iter_mut().zip(other.refinements) {
            *s += o;
        }
        self.rows += other.rows;
        self.rows_proven += other.rows_proven;
        self.rows_compared += other.rows_compared;
        self.divisors_by_divider += other.divisors_by_divider;
        self.max_error_kept = self.max_error_kept.max(other.max_error_kept);
        self.kept_rows_over_bound += other.kept_rows_over_bound;
        self.max_error_by_divider = self.max_error_by_divider.max(other.max_error_by_divider);
        self.divider_rows_over_bound += other.divider_rows_over_bound;
    }

    #[cfg(fmadiv_x86)]
    fn add_divisor(&mut self, seeds: u64) {
        self.seeds_min = if self.divisors == 0 {
            seeds
        } else {
            self.seeds_min.min(seeds)
        };
        self.divisors += 1;
        self.seeds += seeds;
        self.seeds_max = self.seeds_max.max(seeds);
    }
}

/// A row the lemma does not prove: a divisor, a refined reciprocal some conforming table
/// gives it, and the first seed (in bit order) that leads there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Row {
    /// Divisor bits, in [1, 2).
    pub b: u32,
    /// Refined reciprocal bits.
    pub y: u32,
    /// A seed that gives `y`.
    pub seed: u32,
}

/// `|1 - b·y|` in units of 2^-24, exact before the final scaling (as in `conforms`).
#[cfg(fmadiv_x86)]
fn error_units(b: f32, y: f32) -> f64 {
    (1.0 - f64::from(b) * f64::from(y)).abs() * (1u64 << 24) as f64
}

/// Every `(b, y)` row of the divisor mantissas in `divisors` under every table within
/// `bound`, for `kernel`'s refinement and check: the rows to compare with [`compare_rows`]
/// (with `prune`, those the lemma does not prove; otherwise every row the kernel keeps),
/// and the statistics. `None` without AVX2+FMA.
pub fn divisor_rows(
    kernel: Kernel,
    bound: SeedBound,
    divisors: Range<u32>,
    prune: bool,
) -> Option<(Vec<Row>, SeedStats)> {
    assert!(divisors.end <= MANTISSAS);
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        let mut rows = Vec::new();
        let mut stats = SeedStats::default();
        let mut ys = Vec::new();
        for mb in divisors {
            let b = f32::from_bits(ONE_BITS | mb);
            let seeds = seed_range(b, bound);
            stats.add_divisor(u64::from(seeds.end() - seeds.start()) + 1);
            // SAFETY: `k` proves AVX2 and FMA.
            let flagged =
                unsafe { with_variant!(kernel, V => x86::refinements::<V>(k, b, seeds, &mut ys)) };
            stats.refinements[(ys.len() - 1).min(3)] += 1;
            if flagged {
                stats.divisors_by_divider += 1;
            }
            for &(y, seed) in &ys {
                let err = error_units(b, f32::from_bits(y));
                if flagged {
                    stats.max_error_by_divider = stats.max_error_by_divider.max(err);
                    stats.divider_rows_over_bound += u64::from(err >= 1.0);
                    continue;
                }
                stats.rows += 1;
                stats.max_error_kept = stats.max_error_kept.max(err);
                stats.kept_rows_over_bound += u64::from(err >= 1.0);
                if prune && markstein_row_proven(b, f32::from_bits(y)) {
                    stats.rows_proven += 1;
                } else {
                    stats.rows_compared += 1;
                    rows.push(Row {
                        b: b.to_bits(),
                        y,
                        seed,
                    });
                }
            }
        }
        Some((rows, stats))
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (kernel, bound, divisors, prune);
        None
    }
}

/// Compares the kernel's correction with `vdivps` for every row in `rows` (eight rows a
/// vector, each lane with its own `b` and `y`) against every dividend mantissa in
/// `dividends`. Counterexamples carry the row's seed. `None` without AVX2+FMA.
pub fn compare_rows(rows: &[Row], dividends: Range<u32>) -> Option<Tally> {
    assert!(dividends.end <= MANTISSAS);
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        let mut tally = Tally::default();
        for chunk in rows.chunks(8) {
            // SAFETY: `k` proves AVX2 and FMA.
            unsafe { x86::compare_chunk(k, &mut tally, chunk, dividends.clone()) };
        }
        tally.trim();
        Some(tally)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (rows, dividends);
        None
    }
}

/// The seeds of the divisor mantissas in `divisors` and which of them the reciprocal
/// kernel (with `kernel`'s fix) sends to the divider: the statistics of a reciprocal sweep,
/// known before it runs. `None` without AVX2+FMA.
pub fn reciprocal_seed_stats(
    kernel: Kernel,
    bound: SeedBound,
    divisors: Range<u32>,
) -> Option<SeedStats> {
    assert!(divisors.end <= MANTISSAS);
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        let mut stats = SeedStats::default();
        for mb in divisors {
            let b = f32::from_bits(ONE_BITS | mb);
            let seeds = seed_range(b, bound);
            stats.add_divisor(u64::from(seeds.end() - seeds.start()) + 1);
            // SAFETY: `k` proves AVX2 and FMA.
            if unsafe { x86::reciprocal_flagged(k, kernel, b) } {
                stats.divisors_by_divider += 1;
            }
        }
        Some(stats)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (kernel, bound, divisors);
        None
    }
}

/// The reciprocal kernel (with `kernel`'s near-all-ones fix) on every allowed seed of every
/// divisor mantissa in `divisors`, compared with `1 / b` from `vdivps`: one pair per
/// `(b, r)`. The seeds of divisors the kernel sends to the divider count as `by_divider`.
/// `None` without AVX2+FMA.
pub fn reciprocal_tile(kernel: Kernel, bound: SeedBound, divisors: Range<u32>) -> Option<Tally> {
    assert!(divisors.end <= MANTISSAS);
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        let mut tally = Tally::default();
        for mb in divisors {
            let b = f32::from_bits(ONE_BITS | mb);
            let seeds = seed_range(b, bound);
            let count = u64::from(seeds.end() - seeds.start()) + 1;
            // SAFETY: `k` proves AVX2 and FMA.
            unsafe {
                if x86::reciprocal_flagged(k, kernel, b) {
                    tally.by_divider += count;
                    continue;
                }
                with_variant!(kernel, V => x86::reciprocals::<V>(k, &mut tally, b, seeds))
            }
            tally.pairs += count;
        }
        tally.trim();
        Some(tally)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (kernel, bound, divisors);
        None
    }
}

#[cfg(fmadiv_x86)]
mod x86 {
    use core::arch::x86_64::*;
    use core::ops::{Range, RangeInclusive};

    use super::Row;
    use crate::sweep::{Counterexample, Rows, Tally, compare_rows_with, flags, lanes};
    use fmadiv::verify::Kernel;
    use fmadiv::verify::x86::{Avx2Fma, InputCheck, LANES, reciprocal_quotient_from, refine};

    /// Eight consecutive seeds from `first`, clamped to `last` (repeats are harmless).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn seeds_from(first: u32, last: u32) -> __m256 {
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let bits = _mm256_add_epi32(_mm256_set1_epi32(first as i32), lane);
        _mm256_castsi256_ps(_mm256_min_epu32(bits, _mm256_set1_epi32(last as i32)))
    }

    /// Collects into `ys` every distinct refined reciprocal of `b` over `seeds`, each with
    /// the first seed that gives it; returns whether the kernel flags `b`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn refinements<const V: u8>(
        k: Avx2Fma,
        b: f32,
        seeds: RangeInclusive<u32>,
        ys: &mut Vec<(u32, u32)>,
    ) -> bool {
        let (first, last) = (*seeds.start(), *seeds.end());
        let vb = _mm256_set1_ps(b);
        ys.clear();
        let y0 = lanes(refine::<_, V>(k, vb, _mm256_set1_ps(f32::from_bits(first))))[0];
        ys.push((y0, first));
        let common = _mm256_castsi256_ps(_mm256_set1_epi32(y0 as i32));
        let mut r = first;
        while r <= last {
            let seed = seeds_from(r, last);
            let y = refine::<_, V>(k, vb, seed);
            // Bitwise equality with the first y (an ordered compare would also do: these
            // are positive normal floats).
            let same = _mm256_cmpeq_epi32(_mm256_castps_si256(y), _mm256_castps_si256(common));
            if _mm256_movemask_ps(_mm256_castsi256_ps(same)) != 0xff {
                let (ys_here, rs) = (lanes(y), lanes(seed));
                for (yl, rl) in ys_here.into_iter().zip(rs) {
                    if !ys.iter().any(|&(known, _)| known == yl) {
                        ys.push((yl, rl));
                    }
                }
            }
            r = match r.checked_add(LANES as u32) {
                Some(next) => next,
                None => break,
            };
        }
        _mm256_movemask_ps(flags::<V>(k, vb)) != 0
    }

    /// Compares up to eight rows against `dividends`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn compare_chunk(
        k: Avx2Fma,
        tally: &mut Tally,
        chunk: &[Row],
        dividends: Range<u32>,
    ) {
        // Pad a short chunk by repeating its last row; only `valid` lanes count.
        let pick = |k: usize| chunk[k.min(chunk.len() - 1)];
        let b: [u32; 8] = core::array::from_fn(|k| pick(k).b);
        let y: [u32; 8] = core::array::from_fn(|k| pick(k).y);
        let seeds: [u32; 8] = core::array::from_fn(|k| pick(k).seed);
        let vector = |bits: [u32; 8]| {
            // SAFETY: `bits` is an array of eight u32, the size of a vector.
            _mm256_castsi256_ps(unsafe { _mm256_loadu_si256(bits.as_ptr().cast()) })
        };
        let rows = Rows {
            b: vector(b),
            y: vector(y),
            // Rows are only made for divisors the kernel keeps.
            flagged: _mm256_setzero_si256(),
            seeds: Some(seeds),
            valid: chunk.len(),
        };
        compare_rows_with(k, tally, &rows, dividends);
    }

    /// Whether the reciprocal kernel of variant `kernel` sends `b` to the divider.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn reciprocal_flagged(k: Avx2Fma, kernel: Kernel, b: f32) -> bool {
        let (one, vb) = (_mm256_set1_ps(1.0), _mm256_set1_ps(b));
        !with_variant!(kernel, V => InputCheck::of::<V, true>(k, one, vb)).all_accepted(k)
    }

    /// The reciprocal kernel on every seed of `b` (which it does not flag) against
    /// `vdivps`' `1 / b`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn reciprocals<const V: u8>(
        k: Avx2Fma,
        tally: &mut Tally,
        b: f32,
        seeds: RangeInclusive<u32>,
    ) {
        let one = _mm256_set1_ps(1.0);
        let vb = _mm256_set1_ps(b);
        let want = _mm256_div_ps(one, vb);
        let (first, last) = (*seeds.start(), *seeds.end());
        let mut r = first;
        while r <= last {
            let seed = seeds_from(r, last);
            let got = reciprocal_quotient_from::<_, V>(k, vb, seed);
            let same = _mm256_cmpeq_epi32(_mm256_castps_si256(got), _mm256_castps_si256(want));
            if _mm256_movemask_ps(_mm256_castsi256_ps(same)) != 0xff {
                record(tally, b, got, want, seed, r, last);
            }
            r = match r.checked_add(LANES as u32) {
                Some(next) => next,
                None => break,
            };
        }
    }

    /// Records the wrong lanes of one vector of seeds (each seed once: clamped lanes
    /// repeat the last).
    #[cold]
    #[inline(never)]
    fn record(
        tally: &mut Tally,
        b: f32,
        got: __m256,
        want: __m256,
        seed: __m256,
        r: u32,
        last: u32,
    ) {
        let (got, want, seed) = (lanes(got), lanes(want), lanes(seed));
        let fresh = (last - r + 1).min(LANES as u32) as usize;
        for k in 0..fresh {
            if got[k] != want[k] {
                tally.record(Counterexample {
                    a: 1.0f32.to_bits(),
                    b: b.to_bits(),
                    got: got[k],
                    want: want[k],
                    seed: Some(seed[k]),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmadiv::verify::bits::ONE_BITS;

    #[test]
    fn seed_ranges_are_exactly_the_conforming_floats() {
        for mb in [0u32, 1, 0x40_0000, 0x55_5555, 0x7f_fffe, 0x7f_ffff, 12345] {
            let b = f32::from_bits(ONE_BITS | mb);
            for bound in [SeedBound::RCPPS, SeedBound::RCP14] {
                let range = seed_range(b, bound);
                let (lo, hi) = (*range.start(), *range.end());
                assert!(conforms(b, f32::from_bits(lo), bound));
                assert!(conforms(b, f32::from_bits(hi), bound));
                assert!(!conforms(b, f32::from_bits(lo - 1), bound));
                assert!(!conforms(b, f32::from_bits(hi + 1), bound));
                // The interval [(1 - bound)/b, (1 + bound)/b], measured in the ulp of each
                // binade it crosses (2^-25 below 1/2, 2^-24 up to 1, 2^-23 above).
                let (x, z) = (
                    (1.0 - bound.value()) / f64::from(b),
                    (1.0 + bound.value()) / f64::from(b),
                );
                let part = |from: f64, to: f64, ulp: f64| (to.min(z) - from.max(x)).max(0.0) / ulp;
                let expected = part(0.25, 0.5, 2f64.powi(-25))
                    + part(0.5, 1.0, 2f64.powi(-24))
                    + part(1.0, 2.0, 2f64.powi(-23));
                let n = f64::from(hi - lo + 1);
                assert!(
                    (n - expected).abs() <= 2.0,
                    "{mb:#x}: {n} seeds, {expected}"
                );
            }
        }
    }

    #[test]
    fn amds_seeds_conform() {
        // The published samples of AMD's table (DESIGN.md): rcp(1.0), rcp(1.5),
        // rcp(0x1.fffffep+0) = 0.5.
        for (b, r) in [
            (0x3f80_0000u32, 0x3f7f_f000u32),
            (0x3fc0_0000, 0x3f2a_a800),
            (0x3fff_ffff, 0x3f00_0000),
        ] {
            let range = seed_range(f32::from_bits(b), SeedBound::RCPPS);
            assert!(range.contains(&r), "{b:#x}: {r:#x} not in {range:x?}");
        }
    }
}
