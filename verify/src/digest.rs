//! The kernel digest: a hash of what the kernel computes, so that a verification report or
//! checkpoint names the exact arithmetic it checked.
//!
//! The crate version and build say little: a change to a step of the kernel (a Newton step
//! for Halley's, another input window, a different fix for the near-all-ones divisors)
//! changes what the sweep's verdict is about without changing either. The digest hashes
//! the fast path's quotients and lane flags, and the lane-by-lane kernel's results, over
//! a fixed set of about 2.2 million pairs chosen to exercise every step:
//!
//! - mantissa pairs in [1, 2): 32 dividends (the ends of [1, 2), neighbours of 1 and 2,
//!   and random mantissas) against 65 536 divisors (every 256th mantissa, which visits
//!   every `rcp` table entry several times, and all 32 768 near-all-ones mantissas);
//! - one pair with random signs and mantissas for every pair of exponent fields (0..=255
//!   each): the input window's edges, zeros, subnormals, infinities and NaNs.
//!
//! The digest depends on the CPU's `rcp` table too (the fast path starts from it), which
//! reports record separately as the rcp fingerprint: two CPUs with the same table give
//! the same digest for the same kernel. It takes a few milliseconds.

use crate::samples::SplitMix64;
use fmadiv::verify::Kernel;

/// Dividend mantissas of the digest's mantissa pairs.
const DIGEST_DIVIDENDS: usize = 32;
/// Every this many divisor mantissas one joins the digest's divisors.
const DIVISOR_STRIDE: u32 = 256;

/// How many divisor mantissas the digest's mantissa pairs use.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
fn divisor_count() -> usize {
    use fmadiv::verify::bits::{MANTISSA_MASK, NEAR_ALL_ONES_MANTISSA_MIN};
    (NEAR_ALL_ONES_MANTISSA_MIN / DIVISOR_STRIDE + (MANTISSA_MASK + 1 - NEAR_ALL_ONES_MANTISSA_MIN))
        as usize
}

#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
/// The digest's input pairs, as two arrays of equal length (a multiple of 8).
fn digest_pairs() -> (Vec<f32>, Vec<f32>) {
    use fmadiv::verify::bits::{MANTISSA_MASK, NEAR_ALL_ONES_MANTISSA_MIN, ONE_BITS};
    let mut rng = SplitMix64(0xd16e_57ed);
    let fixed = [
        0,
        1,
        2,
        3,
        MANTISSA_MASK - 2,
        MANTISSA_MASK - 1,
        MANTISSA_MASK,
        0x40_0000,
    ];
    let mut dividends: Vec<u32> = fixed.to_vec();
    while dividends.len() < DIGEST_DIVIDENDS {
        dividends.push(rng.next_u64() as u32 & MANTISSA_MASK);
    }
    let divisors: Vec<u32> = (0..NEAR_ALL_ONES_MANTISSA_MIN)
        .step_by(DIVISOR_STRIDE as usize)
        .chain(NEAR_ALL_ONES_MANTISSA_MIN..=MANTISSA_MASK)
        .collect();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &ma in &dividends {
        for &mb in &divisors {
            a.push(f32::from_bits(ONE_BITS | ma));
            b.push(f32::from_bits(ONE_BITS | mb));
        }
    }
    // Every pair of exponent fields, with random signs and mantissas.
    for ea in 0..=255u32 {
        for eb in 0..=255u32 {
            let r = rng.next_u64();
            let (sa, sb) = ((r as u32) & 0x8000_0000, (r >> 32) as u32 & 0x8000_0000);
            a.push(f32::from_bits(sa | ea << 23 | (r as u32 & MANTISSA_MASK)));
            b.push(f32::from_bits(
                sb | eb << 23 | ((r >> 32) as u32 & MANTISSA_MASK),
            ));
        }
    }
    (a, b)
}

/// FNV-1a over 32-bit words: enough to tell kernels apart (this is no security hash).
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
struct Fnv(u64);

#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
impl Fnv {
    fn word(&mut self, w: u32) {
        self.0 = (self.0 ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn floats(&mut self, xs: &[f32]) {
        for x in xs {
            self.word(x.to_bits());
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The digest of `kernel` on this CPU, as 16 hex digits, or `None` without AVX2+FMA.
pub fn kernel_digest(kernel: Kernel) -> Option<String> {
    #[cfg(fmadiv_x86)]
    {
        use fmadiv::verify::x86::Avx2Fma;
        let k = Avx2Fma::new()?;
        let (a, b) = digest_pairs();
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        // SAFETY: `k` proves AVX2 and FMA.
        unsafe { with_variant!(kernel, V => hash_fast_path::<V>(k, &a, &b, &mut h)) }
        let mut out = vec![0.0f32; a.len()];
        fmadiv::verify::div_with(kernel, &a, &b, &mut out)?;
        h.floats(&out);
        Some(h.hex())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = kernel;
        None
    }
}

/// The digest of the reciprocal kernel (`recip`'s own sequence) with `kernel`'s
/// near-all-ones fix, over the digest's divisors and dividends taken as divisors: what
/// `fmadiv verify reciprocals` reports name. `None` without AVX2+FMA.
pub fn reciprocal_digest(kernel: Kernel) -> Option<String> {
    #[cfg(fmadiv_x86)]
    {
        let (a, b) = digest_pairs();
        let mut h = Fnv(0x6c62_272e_07bb_0142);
        let mut out = vec![0.0f32; a.len()];
        for inputs in [&b, &a] {
            fmadiv::verify::recip_with(kernel, inputs, &mut out)?;
            h.floats(&out);
        }
        Some(h.hex())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = kernel;
        None
    }
}

/// The table-independent digest of `kernel` (with `recip`: of the reciprocal kernel with
/// its fix): what every-table reports name, the same on every CPU that runs this code.
///
/// It hashes, for the digest's pairs, the lane flags and the accepted lanes' refined
/// reciprocal `y` and quotient, with seeds from fixed software rules instead of `rcpps`:
/// `1/b` rounded then cut to 12 fraction bits (always within 1.5·2^-12); for the mantissa
/// pairs also the smallest and the largest seed the bound allows; and seeds far outside
/// it (relative errors of 2^-5 to 2^-8). Exact sequences agree on correctly rounded
/// quotients, so the first two alone could not tell two exact sequences apart (a Newton
/// and a Halley reciprocal, say); from poor seeds every sequence gives its own wrong
/// answers, and any change to the arithmetic after `rcpps` changes them. This CPU's
/// table does not enter it. `None` without AVX2+FMA.
pub fn arithmetic_digest(kernel: Kernel, recip: bool) -> Option<String> {
    #[cfg(fmadiv_x86)]
    {
        use crate::sweep::conforming::{SeedBound, seed_range};
        use fmadiv::verify::bits::MANTISSA_MASK;
        use fmadiv::verify::x86::Avx2Fma;
        let k = Avx2Fma::new()?;
        let (a, b) = digest_pairs();
        // Cutting the fraction leaves an error below 2^-12 (plus 2^-24 from the rounding).
        const CUT_TO_12_BITS: u32 = !0x7ff;
        let mut seeds: Vec<f32> = b
            .iter()
            .map(|&y| f32::from_bits((1.0 / y).to_bits() & CUT_TO_12_BITS))
            .collect();
        let mut h = Fnv(if recip {
            0x2545_f491_4f6c_dd1d
        } else {
            0x9e37_79b9_7f4a_7c15
        });
        let mut hash = |a: &[f32], b: &[f32], seeds: &[f32]| {
            // SAFETY: `k` proves AVX2 and FMA.
            unsafe {
                with_variant!(kernel, V => if recip {
                    hash_seeded::<V, true>(k, a, b, seeds, &mut h)
                } else {
                    hash_seeded::<V, false>(k, a, b, seeds, &mut h)
                })
            }
        };
        hash(&a, &b, &seeds);
        // The extreme seeds, over the mantissa pairs (the first part of the pairs).
        let mantissa_pairs = DIGEST_DIVIDENDS * divisor_count();
        for end in [false, true] {
            for (s, &y) in seeds[..mantissa_pairs].iter_mut().zip(&b) {
                debug_assert!(y.to_bits() & !MANTISSA_MASK == fmadiv::verify::bits::ONE_BITS);
                let range = seed_range(y, SeedBound::RCPPS);
                *s = f32::from_bits(if end { *range.end() } else { *range.start() });
            }
            hash(
                &a[..mantissa_pairs],
                &b[..mantissa_pairs],
                &seeds[..mantissa_pairs],
            );
        }
        // Poor seeds: what the sequence does far from the proven region.
        for error in [1.0 / 32.0, -1.0 / 64.0, 1.0 / 128.0, -1.0 / 256.0] {
            for (s, &y) in seeds[..mantissa_pairs].iter_mut().zip(&b) {
                *s = (1.0 + error) / y;
            }
            hash(
                &a[..mantissa_pairs],
                &b[..mantissa_pairs],
                &seeds[..mantissa_pairs],
            );
        }
        Some(h.hex())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (kernel, recip);
        None
    }
}

/// The digest of the directed-rounding step for `mode` on this CPU, as 16 hex digits, or
/// `None` without AVX2+FMA: over the digest's pairs, the step's results from `div`'s kernel
/// quotient, and the input-window mask that says which lanes the step may keep. Names what a
/// `verify mantissa --rounding` report checked; `nearest` is the kernel's own digest.
pub fn directed_digest(mode: fmadiv::Rounding) -> Option<String> {
    #[cfg(fmadiv_x86)]
    {
        use fmadiv::Rounding;
        use fmadiv::verify::x86::Avx2Fma;
        use fmadiv::verify::x86::{DOWN, SHIPPED, TOWARD_ZERO, UP};
        if mode == Rounding::Nearest {
            return kernel_digest(Kernel::Shipped);
        }
        let k = Avx2Fma::new()?;
        let (a, b) = digest_pairs();
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.word(u32::from(mode.control()));
        // SAFETY: `k` proves AVX2 and FMA.
        unsafe {
            match mode {
                Rounding::Down => hash_directed::<DOWN, SHIPPED, false>(k, &a, &b, &mut h),
                Rounding::Up => hash_directed::<UP, SHIPPED, false>(k, &a, &b, &mut h),
                _ => hash_directed::<TOWARD_ZERO, SHIPPED, false>(k, &a, &b, &mut h),
            }
        }
        Some(h.hex())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = mode;
        None
    }
}

/// Hashes the directed step's results from the kernel's quotient, and the window mask: the
/// general step's, or with `PLUS_ZERO` the form the flag-checked chunks run where MXCSR
/// does not round down (the same bits inside the window: the same hash).
#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn hash_directed<const MODE: u8, const V: u8, const PLUS_ZERO: bool>(
    k: fmadiv::verify::x86::Avx2Fma,
    a: &[f32],
    b: &[f32],
    h: &mut Fnv,
) {
    use core::arch::x86_64::*;
    use fmadiv::verify::Variant;
    use fmadiv::verify::x86::{InputCheck, div_vector_of, round_from, round_from_plus_zero};
    for (ca, cb) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        // SAFETY: each chunk holds exactly eight floats.
        let (va, vb) = unsafe { (_mm256_loadu_ps(ca.as_ptr()), _mm256_loadu_ps(cb.as_ptr())) };
        let q = div_vector_of::<_, { Variant::SHIPPED }, false>(k, va, vb);
        let inside = InputCheck::window_of(k, va, vb).accepted(k);
        let step = match PLUS_ZERO {
            true => round_from_plus_zero::<_, MODE, V>(k, va, vb, q),
            false => round_from::<_, MODE, V>(k, va, vb, q),
        };
        let got = _mm256_and_si256(_mm256_castps_si256(step), inside);
        let mut words = [0u32; 16];
        // SAFETY: 16 u32 hold the two vectors.
        unsafe {
            _mm256_storeu_si256(words.as_mut_ptr().cast(), got);
            _mm256_storeu_si256(words.as_mut_ptr().add(8).cast(), inside);
        }
        for w in words {
            h.word(w);
        }
    }
}

/// Hashes lane flags and accepted quotients of the kernel started from the given seeds.
#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn hash_seeded<const V: u8, const RECIP: bool>(
    k: fmadiv::verify::x86::Avx2Fma,
    a: &[f32],
    b: &[f32],
    seeds: &[f32],
    h: &mut Fnv,
) {
    use core::arch::x86_64::*;
    use fmadiv::verify::x86::{InputCheck, kernel_quotient_from, refine};
    let chunks = a
        .chunks_exact(8)
        .zip(b.chunks_exact(8))
        .zip(seeds.chunks_exact(8));
    for ((ca, cb), cs) in chunks {
        // SAFETY: each chunk holds exactly eight floats.
        let (va, vb, vs) = unsafe {
            (
                _mm256_loadu_ps(ca.as_ptr()),
                _mm256_loadu_ps(cb.as_ptr()),
                _mm256_loadu_ps(cs.as_ptr()),
            )
        };
        let va = if RECIP { _mm256_set1_ps(1.0) } else { va };
        let accepted = InputCheck::of::<V, RECIP>(k, va, vb).accepted(k);
        let keep = |v: __m256| _mm256_and_si256(_mm256_castps_si256(v), accepted);
        let q = keep(kernel_quotient_from::<_, V, RECIP>(k, va, vb, vs));
        let y = keep(refine::<_, V>(k, vb, vs));
        let mut words = [0u32; 24];
        // SAFETY: 24 u32 hold the three vectors.
        unsafe {
            _mm256_storeu_si256(words.as_mut_ptr().cast(), q);
            _mm256_storeu_si256(words.as_mut_ptr().add(8).cast(), y);
            _mm256_storeu_si256(words.as_mut_ptr().add(16).cast(), accepted);
        }
        for w in words {
            h.word(w);
        }
    }
}

/// Hashes the fast path's quotient and flag bits of every vector of pairs.
#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn hash_fast_path<const V: u8>(k: fmadiv::verify::x86::Avx2Fma, a: &[f32], b: &[f32], h: &mut Fnv) {
    use core::arch::x86_64::*;
    use fmadiv::verify::x86::fast_path_of;
    for (ca, cb) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        // SAFETY: each chunk holds exactly eight floats.
        let (va, vb) = unsafe { (_mm256_loadu_ps(ca.as_ptr()), _mm256_loadu_ps(cb.as_ptr())) };
        let (quotient, flagged) = fast_path_of::<_, V, false>(k, va, vb);
        let mut words = [0u32; 16];
        // SAFETY: 16 u32 hold the two vectors.
        unsafe {
            _mm256_storeu_ps(words.as_mut_ptr().cast(), quotient);
            _mm256_storeu_si256(words.as_mut_ptr().add(8).cast(), flagged);
        }
        for w in words {
            h.word(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "2.2 million pairs: too slow under Miri")]
    fn arithmetic_digests_tell_every_variant_apart() {
        let digests: Vec<String> = [false, true]
            .into_iter()
            .flat_map(|recip| Kernel::ALL.map(|k| arithmetic_digest(k, recip)))
            .collect::<Option<_>>()
            .unwrap_or_default();
        if digests.is_empty() {
            eprintln!("SKIPPED on this CPU: arithmetic digests (need AVX2+FMA)");
            return;
        }
        // Newton's reciprocal kernel is crate 0.2.0's shipped one, exact on AMD's table and
        // in the same quotients on the digest's conforming seeds: poor seeds tell it apart.
        for (i, x) in digests.iter().enumerate() {
            for y in &digests[i + 1..] {
                assert_ne!(x, y, "{digests:?}");
            }
        }
    }

    /// The flag-checked chunks' form of the step (exact residuals `+0`) gives the general
    /// step's bits on every pair inside the window: the same directed digests, so reports
    /// of either name the same arithmetic. A form that differed would change them.
    #[test]
    #[cfg(fmadiv_x86)]
    #[cfg_attr(miri, ignore = "2.2 million pairs: too slow under Miri")]
    fn both_forms_of_the_directed_step_hash_alike() {
        use fmadiv::verify::x86::{Avx2Fma, DOWN, SHIPPED, TOWARD_ZERO, UP};
        let Some(k) = Avx2Fma::new() else {
            eprintln!("SKIPPED on this CPU: directed digests (need AVX2+FMA)");
            return;
        };
        let (a, b) = digest_pairs();
        let hash = |f: unsafe fn(Avx2Fma, &[f32], &[f32], &mut Fnv)| {
            let mut h = Fnv(0xcbf2_9ce4_8422_2325);
            // SAFETY: `k` proves AVX2 and FMA.
            unsafe { f(k, &a, &b, &mut h) };
            h.hex()
        };
        type Hash = unsafe fn(Avx2Fma, &[f32], &[f32], &mut Fnv);
        let forms: [(Hash, Hash); 3] = [
            (
                hash_directed::<DOWN, SHIPPED, false>,
                hash_directed::<DOWN, SHIPPED, true>,
            ),
            (
                hash_directed::<UP, SHIPPED, false>,
                hash_directed::<UP, SHIPPED, true>,
            ),
            (
                hash_directed::<TOWARD_ZERO, SHIPPED, false>,
                hash_directed::<TOWARD_ZERO, SHIPPED, true>,
            ),
        ];
        for (general, plus_zero) in forms {
            assert_eq!(hash(general), hash(plus_zero));
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "2.2 million pairs: too slow under Miri")]
    fn the_pairs_fill_whole_vectors() {
        let (a, b) = digest_pairs();
        assert_eq!(a.len(), b.len());
        // The mantissa pairs come first: DIGEST_DIVIDENDS rows of divisor_count() divisors.
        let n = DIGEST_DIVIDENDS * divisor_count();
        assert!(b[..n].iter().all(|y| (1.0..2.0).contains(y)));
        assert!(!(1.0..2.0).contains(&b[n]) || !(1.0..2.0).contains(&a[n]));
        assert!(a.len().is_multiple_of(8) && a.len() > 2_000_000);
    }
}
