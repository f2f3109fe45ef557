//! Exhaustive comparison of a kernel with the hardware divider, tile by tile.
//!
//! A tile is a block of dividend mantissas against a block of divisor mantissas, all in
//! [1, 2): `a = 1.ma`, `b = 1.mb`. Eight consecutive divisors fill the eight lanes and each
//! dividend is broadcast, so the kernel runs as in `div` (the same `fast_path` and the same
//! slow-path blend), with the divisor-only work (rcp, Halley) hoisted out of the inner loop
//! by the compiler.

use crate::variant::Kernel;

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
}

/// Pairs checked, mismatches, and the first counterexamples in (a, b) order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Pairs compared.
    pub pairs: u64,
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
        self.mismatches += other.mismatches;
        self.counterexamples
            .extend_from_slice(&other.counterexamples);
        self.trim();
    }

    /// Sorts the counterexamples and keeps the smallest.
    pub fn trim(&mut self) {
        self.counterexamples.sort_unstable();
        self.counterexamples.dedup();
        self.counterexamples.truncate(MAX_COUNTEREXAMPLES);
    }
}

/// Compares the kernel with `_mm256_div_ps` on dividends `1.ma`, `ma` in `dividends`,
/// against divisors `1.mb`, `mb` in `divisors` (whose bounds must be multiples of 8).
/// Returns `None` if this CPU lacks AVX2+FMA.
pub fn mantissa_tile(
    kernel: Kernel,
    dividends: core::ops::Range<u32>,
    divisors: core::ops::Range<u32>,
) -> Option<Tally> {
    assert!(dividends.end <= MANTISSAS && divisors.end <= MANTISSAS);
    assert!(
        divisors.start.is_multiple_of(8) && divisors.end.is_multiple_of(8),
        "divisor bounds must be multiples of 8"
    );
    #[cfg(target_arch = "x86_64")]
    {
        use crate::variant::Variant;
        let k = crate::arch::x86_64::avx2::Avx2Fma::new()?;
        // SAFETY: `k` proves AVX2 and FMA, the features `tile` is compiled for.
        let tally = unsafe {
            match kernel {
                Kernel::Shipped => tile::<{ Variant::SHIPPED }>(k, dividends, divisors),
                Kernel::Newton => tile::<{ Variant::NEWTON }>(k, dividends, divisors),
                Kernel::Published => tile::<{ Variant::PUBLISHED }>(k, dividends, divisors),
            }
        };
        Some(tally)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (kernel, dividends, divisors);
        None
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn tile<const V: u8>(
    _proof: crate::arch::x86_64::avx2::Avx2Fma,
    dividends: core::ops::Range<u32>,
    divisors: core::ops::Range<u32>,
) -> Tally {
    use crate::arch::x86_64::avx2::fast_path;
    use crate::bits::ONE_BITS;
    use core::arch::x86_64::*;

    let mut tally = Tally {
        pairs: u64::from(dividends.len() as u32) * u64::from(divisors.len() as u32),
        ..Tally::default()
    };
    let lane_offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for mb in divisors.step_by(8) {
        // Eight consecutive divisors 1.mb .. 1.(mb+7).
        let b_bits = _mm256_add_epi32(_mm256_set1_epi32((ONE_BITS | mb) as i32), lane_offsets);
        let b = _mm256_castsi256_ps(b_bits);
        for ma in dividends.clone() {
            let a = _mm256_castsi256_ps(_mm256_set1_epi32((ONE_BITS | ma) as i32));
            // `div8` is `fast_path` plus, for flagged lanes, a blend with the hardware
            // quotient; here that quotient is the reference itself, so the blend is done
            // directly and one branch per vector is saved.
            let (fast, flagged) = fast_path::<V>(a, b);
            let want = _mm256_div_ps(a, b);
            let got = _mm256_blendv_ps(fast, want, flagged);
            let equal = _mm256_cmpeq_epi32(_mm256_castps_si256(got), _mm256_castps_si256(want));
            if _mm256_movemask_ps(_mm256_castsi256_ps(equal)) != 0xff {
                record_lanes(&mut tally, a, b, got, want);
            }
        }
    }
    tally.trim();
    tally
}

#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn record_lanes(
    tally: &mut Tally,
    a: core::arch::x86_64::__m256,
    b: core::arch::x86_64::__m256,
    got: core::arch::x86_64::__m256,
    want: core::arch::x86_64::__m256,
) {
    let lanes = |v: core::arch::x86_64::__m256| -> [u32; 8] {
        // SAFETY: __m256 and [u32; 8] have the same size and no invalid bit patterns.
        unsafe { core::mem::transmute(v) }
    };
    let (a, b, got, want) = (lanes(a), lanes(b), lanes(got), lanes(want));
    for i in 0..8 {
        if got[i] != want[i] {
            tally.record(Counterexample {
                a: a[i],
                b: b[i],
                got: got[i],
                want: want[i],
            });
        }
    }
}

/// Compares `div` (or a kernel variant) with `a / b` over arbitrary pairs.
pub fn compare_pairs(kernel: Kernel, a: &[f32], b: &[f32], scratch: &mut Vec<f32>) -> Tally {
    scratch.clear();
    scratch.resize(a.len(), 0.0);
    match kernel {
        Kernel::Shipped => crate::div(a, b, scratch),
        #[cfg(target_arch = "x86_64")]
        _ => {
            crate::internal::div_with(kernel, a, b, scratch).expect("kernel variants need AVX2+FMA")
        }
        #[cfg(not(target_arch = "x86_64"))]
        _ => panic!("kernel variants need AVX2+FMA"),
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
            });
        }
    }
    tally.trim();
    tally
}
