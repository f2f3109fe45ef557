//! Exhaustive comparison of a kernel with the hardware divider, tile by tile.
//!
//! A tile is a block of dividend mantissas against a block of divisor mantissas, all in
//! [1, 2): `a = 1.ma`, `b = 1.mb`. Eight divisors fill the eight lanes and each dividend
//! is broadcast; the divisor-only work (rcp, Halley, the input check, which for dividends
//! in [1, 2) depends on the divisor alone) is done once per eight divisors, and each pair
//! then costs the kernel's dividend-dependent steps (`q = y·a`, the residual, the
//! correction) plus the reference `vdivps` and a compare.
//!
//! Two modes:
//! - **brute force**: every pair is compared with the hardware;
//! - **pruned**: a divisor row whose refined reciprocal `y` satisfies `|1 - b·y| < 2^-25`
//!   (checked exactly, in double precision) is *proven* by Markstein's theorem for all
//!   dividends (see [`fmadiv::kernel_notes`]) and not compared; every other row is compared
//!   pair by pair as in brute force.
//!
//! Both modes hold for this CPU's `rcpps` table. [`conforming`] proves the kernel for
//! every table the documentation allows instead.

pub mod conforming;
pub mod directed;

use fmadiv::verify::Kernel;

/// Dividend mantissas per tile.
pub const DIVIDEND_TILE: u32 = 1024;
/// Divisor mantissas per tile: the 2^23 divisors are split into 8 tiles.
pub const DIVISOR_TILE: u32 = 1 << 20;
/// Number of mantissas in [1, 2).
pub const MANTISSAS: u32 = 1 << 23;
/// How many counterexamples a tally keeps: the smallest by (dividend, divisor).
pub const MAX_COUNTEREXAMPLES: usize = 100;

/// One wrong quotient, as bit patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Counterexample {
    /// Dividend bits.
    pub a: u32,
    /// Divisor bits.
    pub b: u32,
    /// What the kernel returned.
    pub got: u32,
    /// What the hardware returned.
    pub want: u32,
    /// The `rcpps` seed that gives the wrong quotient, where the sweep chose the seed
    /// (every-table sweeps); `None` when the seed is this CPU's own.
    pub seed: Option<u32>,
}

/// Pairs compared, pairs proven, mismatches, and the first counterexamples in (a, b)
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Pairs compared with the hardware.
    pub pairs: u64,
    /// Pairs proven correctly rounded by Markstein's theorem, not compared (pruned mode).
    pub proven: u64,
    /// Pairs whose lanes the kernel sends to the hardware divider whatever the seed (the
    /// near-all-ones divisors, in every-table sweeps): correct by construction, neither
    /// compared nor proven.
    pub by_divider: u64,
    /// Pairs whose bits differed.
    pub mismatches: u64,
    /// The smallest [`MAX_COUNTEREXAMPLES`] mismatches by (a, b), sorted.
    pub counterexamples: Vec<Counterexample>,
}

impl Tally {
    /// Records one mismatch.
    pub fn record(&mut self, c: Counterexample) {
        self.mismatches += 1;
        self.counterexamples.push(c);
        if self.counterexamples.len() > 2 * MAX_COUNTEREXAMPLES {
            self.trim();
        }
    }

    /// Adds another tally (order does not matter: the result is the same).
    pub fn merge(&mut self, other: &Tally) {
        self.pairs += other.pairs;
        self.proven += other.proven;
        self.by_divider += other.by_divider;
        self.mismatches += other.mismatches;
        self.counterexamples
            .extend_from_slice(&other.counterexamples);
        self.trim();
    }

    /// Pairs covered: compared, proven, or the divider's.
    pub fn covered(&self) -> u64 {
        self.pairs + self.proven + self.by_divider
    }

    /// Sorts the counterexamples and keeps the smallest.
    pub fn trim(&mut self) {
        self.counterexamples.sort_unstable();
        self.counterexamples.dedup();
        self.counterexamples.truncate(MAX_COUNTEREXAMPLES);
    }
}

/// How a mantissa tile is covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every pair compared with the hardware.
    BruteForce,
    /// Rows proven by Markstein's theorem skipped; the rest compared.
    Pruned,
}

/// The theorem the pruned mode proves rows with, as reports name it.
pub const PRUNING_THEOREM: &str = "Markstein's theorem (ACL2 RTL markstein-lemma): for \
    24-bit a, b in [1,2), y with |1 - b*y| < 2^-25 makes q = RN(a*y) faithful for every a, \
    and then RN(q + y*(a - b*q)) = RN(a/b); |1 - b*y| is computed exactly in binary64";

/// A tile's mantissa ranges: inside the 2^23 mantissas, the divisors' bounds multiples of
/// 8 (a tile divides eight divisors at a time). Panics otherwise.
pub(crate) fn assert_tile_bounds(
    dividends: &core::ops::Range<u32>,
    divisors: &core::ops::Range<u32>,
) {
    assert!(dividends.end <= MANTISSAS && divisors.end <= MANTISSAS);
    assert!(
        divisors.start.is_multiple_of(8) && divisors.end.is_multiple_of(8),
        "divisor bounds must be multiples of 8"
    );
}

/// Compares the kernel with `_mm256_div_ps` on dividends `1.ma`, `ma` in `dividends`,
/// against divisors `1.mb`, `mb` in `divisors` (whose bounds must be multiples of 8), in
/// the given mode. Returns `None` if this CPU lacks AVX2+FMA.
pub fn mantissa_tile(
    kernel: Kernel,
    mode: Mode,
    dividends: core::ops::Range<u32>,
    divisors: core::ops::Range<u32>,
) -> Option<Tally> {
    assert_tile_bounds(&dividends, &divisors);
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        let prune = mode == Mode::Pruned;
        // SAFETY: `k` proves AVX2 and FMA, the features `tile` is compiled for.
        let tally = unsafe { with_variant!(kernel, V => tile::<V>(k, prune, dividends, divisors)) };
        Some(tally)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (kernel, mode, dividends, divisors);
        None
    }
}

/// Whether Markstein's theorem proves the row of divisor `b` for every dividend in [1, 2):
/// `|1 - b·y| < 2^-25`, exact in binary64 (b·y has at most 48 significant bits, and
/// 1 - b·y is then exact because b·y is within a factor 2 of 1).
pub fn markstein_row_proven(b: f32, y: f32) -> bool {
    let e = 1.0 - f64::from(b) * f64::from(y);
    e.abs() < MARKSTEIN_ROW_BOUND
}

/// 2^-25: the bound on `|1 - b·y|` that makes `RN(y·a)` faithful for every dividend.
pub const MARKSTEIN_ROW_BOUND: f64 = 1.0 / (1u64 << 25) as f64;

#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn tile<const V: u8>(
    k: fmadiv::verify::x86::Avx2Fma,
    prune: bool,
    dividends: core::ops::Range<u32>,
    divisors: core::ops::Range<u32>,
) -> Tally {
    use core::arch::x86_64::*;
    use fmadiv::verify::bits::ONE_BITS;
    use fmadiv::verify::x86::reciprocal;

    let rows = u64::from(dividends.len() as u32);
    let mut tally = Tally::default();
    let lane_offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // Divisors whose rows are compared pair by pair: all of them, or the unproven ones.
    let mut compared: Vec<u32> = Vec::new();
    for mb in divisors.clone().step_by(8) {
        let b_bits = _mm256_add_epi32(_mm256_set1_epi32((ONE_BITS | mb) as i32), lane_offsets);
        if !prune {
            compare_rows::<V>(k, &mut tally, b_bits, 8, dividends.clone());
            continue;
        }
        let b = _mm256_castsi256_ps(b_bits);
        let (bs, ys, flagged) = (
            lanes(b),
            lanes(reciprocal::<_, V>(k, b)),
            lanes(flags::<V>(k, b)),
        );
        for k in 0..8 {
            // Flagged lanes are the divider's (correct by construction) and compared.
            if flagged[k] == 0 && markstein_row_proven(f32::from_bits(bs[k]), f32::from_bits(ys[k]))
            {
                tally.proven += rows;
            } else {
                compared.push(mb + k as u32);
            }
        }
    }
    for chunk in compared.chunks(8) {
        // The last vector may be short: pad it by repeating a divisor; only the first
        // `chunk.len()` lanes are counted and recorded.
        let mut bits = [ONE_BITS | chunk[chunk.len() - 1]; 8];
        for (lane, &mb) in bits.iter_mut().zip(chunk) {
            *lane = ONE_BITS | mb;
        }
        // SAFETY: `bits` is an array of eight u32.
        let b_bits = unsafe { _mm256_loadu_si256(bits.as_ptr().cast()) };
        compare_rows::<V>(k, &mut tally, b_bits, chunk.len(), dividends.clone());
    }
    tally.trim();
    tally
}

/// The lanes the fast path flags for divisor `b` and a dividend in [1, 2) (inside the
/// input window, so the flags depend on the divisor alone), as all-ones lanes.
#[cfg(fmadiv_x86)]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn flags<const V: u8>(
    k: fmadiv::verify::x86::Avx2Fma,
    b: core::arch::x86_64::__m256,
) -> core::arch::x86_64::__m256 {
    use core::arch::x86_64::*;
    use fmadiv::verify::x86::InputCheck;
    let accepted = InputCheck::of::<V, false>(k, _mm256_set1_ps(1.0), b).accepted(k);
    _mm256_castsi256_ps(_mm256_xor_si256(accepted, _mm256_set1_epi32(-1)))
}

/// Compares the rows of the divisors in `b_bits` (the first `valid` lanes count) against
/// every dividend mantissa in `dividends`, with this CPU's seeds.
#[cfg(fmadiv_x86)]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn compare_rows<const V: u8>(
    k: fmadiv::verify::x86::Avx2Fma,
    tally: &mut Tally,
    b_bits: core::arch::x86_64::__m256i,
    valid: usize,
    dividends: core::ops::Range<u32>,
) {
    use core::arch::x86_64::*;
    use fmadiv::verify::x86::reciprocal;

    let b = _mm256_castsi256_ps(b_bits);
    let rows = Rows {
        b,
        y: reciprocal::<_, V>(k, b),
        // Flagged lanes take the divider's quotient, which is the reference itself: they
        // compare equal by construction, as in `div8`'s blend.
        flagged: _mm256_castps_si256(flags::<V>(k, b)),
        seeds: None,
        valid,
    };
    compare_rows_with(k, tally, &rows, dividends);
}

/// Eight divisor rows as the comparison sees them: each lane's divisor, its refined
/// reciprocal, whether the kernel flags it, and (every-table sweeps) the seed behind `y`.
#[cfg(fmadiv_x86)]
pub(crate) struct Rows {
    pub b: core::arch::x86_64::__m256,
    pub y: core::arch::x86_64::__m256,
    pub flagged: core::arch::x86_64::__m256i,
    pub seeds: Option<[u32; 8]>,
    /// The first `valid` lanes count.
    pub valid: usize,
}

/// Compares the kernel's correction `q + y·(a - q·b)`, `q = y·a`, for the rows' `b` and
/// `y` with `vdivps` against every dividend mantissa in `dividends`.
#[cfg(fmadiv_x86)]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn compare_rows_with(
    k: fmadiv::verify::x86::Avx2Fma,
    tally: &mut Tally,
    rows: &Rows,
    dividends: core::ops::Range<u32>,
) {
    use core::arch::x86_64::*;
    use fmadiv::verify::bits::ONE_BITS;
    use fmadiv::verify::x86::corrected_quotient;

    let (b, y, flagged, valid) = (rows.b, rows.y, rows.flagged, rows.valid);
    tally.pairs += valid as u64 * u64::from(dividends.len() as u32);
    let one_pair = |ma: u32| {
        let a = _mm256_castsi256_ps(_mm256_set1_epi32((ONE_BITS | ma) as i32));
        let got = corrected_quotient(k, a, b, y);
        let want = _mm256_div_ps(a, b);
        let equal = _mm256_or_si256(
            _mm256_cmpeq_epi32(_mm256_castps_si256(got), _mm256_castps_si256(want)),
            flagged,
        );
        (a, got, want, equal)
    };
    let check = |tally: &mut Tally, ma: u32| {
        let (a, got, want, equal) = one_pair(ma);
        if _mm256_movemask_ps(_mm256_castsi256_ps(equal)) != 0xff {
            let got = _mm256_blendv_ps(got, want, _mm256_castsi256_ps(flagged));
            record_lanes(tally, a, b, got, want, valid, rows.seeds);
        }
    };
    // Four dividends per test and branch; a failed group is checked again one by one.
    const GROUP: u32 = 4;
    let groups_end = dividends.end - dividends.len() as u32 % GROUP;
    let mut ma = dividends.start;
    while ma < groups_end {
        let all = [0, 1, 2, 3].map(|k| one_pair(ma + k).3);
        let equal = _mm256_and_si256(
            _mm256_and_si256(all[0], all[1]),
            _mm256_and_si256(all[2], all[3]),
        );
        if _mm256_movemask_ps(_mm256_castsi256_ps(equal)) != 0xff {
            for k in 0..GROUP {
                check(tally, ma + k);
            }
        }
        ma += GROUP;
    }
    for ma in groups_end..dividends.end {
        check(tally, ma);
    }
}

/// The eight lanes of a vector as bit patterns.
#[cfg(fmadiv_x86)]
pub(crate) fn lanes(v: core::arch::x86_64::__m256) -> [u32; 8] {
    // SAFETY: __m256 and [u32; 8] have the same size and no invalid bit patterns.
    unsafe { core::mem::transmute(v) }
}

#[cfg(fmadiv_x86)]
#[cold]
#[inline(never)]
fn record_lanes(
    tally: &mut Tally,
    a: core::arch::x86_64::__m256,
    b: core::arch::x86_64::__m256,
    got: core::arch::x86_64::__m256,
    want: core::arch::x86_64::__m256,
    valid: usize,
    seeds: Option<[u32; 8]>,
) {
    let (a, b, got, want) = (lanes(a), lanes(b), lanes(got), lanes(want));
    for i in 0..valid {
        if got[i] != want[i] {
            tally.record(Counterexample {
                a: a[i],
                b: b[i],
                got: got[i],
                want: want[i],
                seed: seeds.map(|s| s[i]),
            });
        }
    }
}

/// Compares the reciprocal kernel (with `kernel`'s near-all-ones fix) on every lane with
/// `1 / b`. Panics without AVX2+FMA.
pub fn compare_reciprocals(kernel: Kernel, b: &[f32], scratch: &mut Vec<f32>) -> Tally {
    scratch.clear();
    scratch.resize(b.len(), 0.0);
    #[cfg(fmadiv_x86)]
    let ran = fmadiv::verify::recip_with(kernel, b, scratch).is_some();
    #[cfg(not(fmadiv_x86))]
    let ran = false;
    assert!(ran, "the reciprocal kernel needs AVX2+FMA ({kernel})");
    let mut tally = Tally {
        pairs: b.len() as u64,
        ..Tally::default()
    };
    for (&y, &q) in b.iter().zip(scratch.iter()) {
        let want = 1.0 / y;
        if q.to_bits() != want.to_bits() {
            tally.record(Counterexample {
                a: 1.0f32.to_bits(),
                b: y.to_bits(),
                got: q.to_bits(),
                want: want.to_bits(),
                seed: None,
            });
        }
    }
    tally.trim();
    tally
}

/// Compares a kernel variant on every lane (whatever schedule the plan chose for `div`)
/// with `a / b` over arbitrary pairs; without AVX2+FMA the shipped "kernel" is `div`'s
/// portable path.
pub fn compare_pairs(kernel: Kernel, a: &[f32], b: &[f32], scratch: &mut Vec<f32>) -> Tally {
    scratch.clear();
    scratch.resize(a.len(), 0.0);
    #[cfg(fmadiv_x86)]
    let ran = fmadiv::verify::div_with(kernel, a, b, scratch).is_some();
    #[cfg(not(fmadiv_x86))]
    let ran = false;
    if !ran {
        assert!(kernel == Kernel::Shipped, "kernel variants need AVX2+FMA");
        fmadiv::div(a, b, scratch);
    }
    let mut tally = Tally {
        pairs: a.len() as u64,
        ..Tally::default()
    };
    for ((&x, &y), &q) in a.iter().zip(b).zip(scratch.iter()) {
        let want = x / y;
        if q.to_bits() != want.to_bits() {
            tally.record(Counterexample {
                a: x.to_bits(),
                b: y.to_bits(),
                got: q.to_bits(),
                want: want.to_bits(),
                seed: None,
            });
        }
    }
    tally.trim();
    tally
}

/// Checks the one property of the CPU's `rcpps` that the mantissa sweep relies on to cover
/// every input of the fast path: inside the input window, `rcp(±m·2^e) = ±rcp(m)·2^-e` for
/// every mantissa `m` in [1, 2), every exponent `e` of the window and both signs. (Every
/// later step of the kernel scales exactly by IEEE-754 while nothing under- or overflows;
/// see [`fmadiv::kernel_notes`].) About 2·10^9 reciprocals, a fraction of a second.
///
/// Returns the first input that breaks it, or an error without AVX2+FMA.
pub fn check_rcp_scaling() -> Result<(), String> {
    #[cfg(fmadiv_x86)]
    {
        let k = fmadiv::verify::x86::Avx2Fma::new().ok_or("no AVX2+FMA")?;
        // SAFETY: `k` proves AVX2 and FMA.
        match unsafe { rcp_scaling_counterexample(k) } {
            None => Ok(()),
            Some(x) => Err(format!(
                "rcp({:#010x}) is not rcp of its mantissa scaled by a power of two",
                x
            )),
        }
    }
    #[cfg(not(fmadiv_x86))]
    Err("no AVX2+FMA".into())
}

#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn rcp_scaling_counterexample(_proof: fmadiv::verify::x86::Avx2Fma) -> Option<u32> {
    use core::arch::x86_64::*;
    use fmadiv::verify::bits::{INPUT_EXPONENT_MIN, INPUT_EXPONENTS, ONE_BITS, SIGN_MASK};
    let lane_offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for m in (0..MANTISSAS).step_by(8) {
        let base = _mm256_add_epi32(_mm256_set1_epi32((ONE_BITS | m) as i32), lane_offsets);
        let r = _mm256_castps_si256(_mm256_rcp_ps(_mm256_castsi256_ps(base)));
        let mut all_equal = _mm256_set1_epi32(-1);
        for field in INPUT_EXPONENT_MIN..INPUT_EXPONENT_MIN + INPUT_EXPONENTS {
            // Moving the exponent field by `shift` scales x by 2^shift; its reciprocal
            // must move by -shift.
            let shift = _mm256_set1_epi32(((field as i32) - 127) << 23);
            let x = _mm256_add_epi32(base, shift);
            let want = _mm256_sub_epi32(r, shift);
            for sign in [0, SIGN_MASK] {
                let s = _mm256_set1_epi32(sign as i32);
                let got = _mm256_rcp_ps(_mm256_castsi256_ps(_mm256_or_si256(x, s)));
                let same = _mm256_cmpeq_epi32(_mm256_castps_si256(got), _mm256_or_si256(want, s));
                all_equal = _mm256_and_si256(all_equal, same);
            }
        }
        if _mm256_movemask_ps(_mm256_castsi256_ps(all_equal)) != 0xff {
            // Find the input again, lane by lane (rare: a broken table).
            for lane in 0..8 {
                let b = ONE_BITS | (m + lane);
                for field in INPUT_EXPONENT_MIN..INPUT_EXPONENT_MIN + INPUT_EXPONENTS {
                    let shift = ((field as i32) - 127) << 23;
                    for sign in [0, SIGN_MASK] {
                        let x = (b as i32 + shift) as u32 | sign;
                        let r1 = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(f32::from_bits(b))));
                        let rx = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(f32::from_bits(x))));
                        if rx.to_bits() != ((r1.to_bits() as i32 - shift) as u32 | sign) {
                            return Some(x);
                        }
                    }
                }
            }
        }
    }
    None
}
