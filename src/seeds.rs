//! The one property of the CPU the kernels rely on: `rcpps` within its documented bound.
//!
//! The kernels are proven exact for every table whose seeds satisfy
//! `|1 - b·rcp(b)| <= 1.5·2^-12` (Intel's SDM and AMD's APM) inside the input window: the
//! every-table sweeps of the verification crate (`fmadiv verify mantissa --rcp any`). Before
//! the plan lets a kernel run, [`this_cpu`] checks that this CPU's `rcpps` keeps the bound on
//! a sample of 16 384 inputs (every end of every 2^-12-wide interval of mantissas, where a
//! table that is piecewise constant has its largest errors, at exponent 0 and at eight
//! exponents and signs across the window): microseconds, once per process. A CPU outside
//! the bound (a broken emulator, say) runs the divider. `fmadiv fingerprint` checks every
//! input of the window.

// Only the x86 check reads the sample; elsewhere there is no `rcpps` and no kernel.
#![cfg_attr(not(fmadiv_x86), allow(dead_code))]

use core::fmt;

/// The documented bound of `rcpps`/`vrcpps` (Intel's SDM, AMD's APM): `|1 - b·r| <= 1.5·2^-12`.
pub(crate) const RCPPS_BOUND: f64 = 1.5 / 4096.0;
/// The bound as reports write it.
const RCPPS_BOUND_TEXT: &str = "1.5*2^-12";

/// Whether `r` is a seed of `b` within `bound`: `|1 - b·r| <= bound`, exactly (`b·r` has at
/// most 48 significant bits, and `1 - b·r` is then exact by Sterbenz's lemma whenever `b·r`
/// lies within a factor two of 1; anything farther off, NaN included, fails).
fn conforms(b: f32, r: f32, bound: f64) -> bool {
    (1.0 - f64::from(b) * f64::from(r)).abs() <= bound
}

/// An input where `rcpps` breaks the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutOfBound {
    /// The input's bits.
    pub input: u32,
    /// The seed the CPU returned for it.
    pub seed: u32,
}

impl fmt::Display for OutOfBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rcpps({:#010x}) = {:#010x} breaks the documented |1 - b*rcp(b)| <= {RCPPS_BOUND_TEXT}",
            self.input, self.seed
        )
    }
}

/// Mantissas sampled: both ends of each of the 4096 intervals of width 2^-12 in [1, 2).
const SAMPLE_MANTISSAS: u32 = 8192;
/// Exponents and signs the sample also visits (every eighth sampled mantissa each): both
/// ends of the window, its middle, and a few between.
const SAMPLE_SCALES: [(i32, bool); 8] = [
    (-63, false),
    (-63, true),
    (-30, true),
    (-1, true),
    (1, false),
    (30, false),
    (62, false),
    (62, true),
];

/// The `i`-th sampled mantissa (both ends of interval `i / 2`).
fn sample_mantissa(i: u32) -> u32 {
    let interval = i / 2;
    (interval << 11) | if i.is_multiple_of(2) { 0 } else { 0x7ff }
}

/// The inputs of the sample, eight at a time.
fn sample_inputs() -> impl Iterator<Item = [f32; 8]> {
    // Computed from the index, not collected: the check runs in every process before the
    // first division, where fresh pages would cost more than the check itself.
    (0..SAMPLE_LEN / 8)
        .map(|v| core::array::from_fn(|l| f32::from_bits(sample_input(v * 8 + l as u32))))
}

/// Inputs in the sample: every sampled mantissa at exponent 0, and every eighth at each of
/// [`SAMPLE_SCALES`].
const SAMPLE_LEN: u32 = SAMPLE_MANTISSAS + SAMPLE_SCALES.len() as u32 * (SAMPLE_MANTISSAS / 8);

/// The bits of the `k`-th input of the sample.
fn sample_input(k: u32) -> u32 {
    use crate::bits::{ONE_BITS, SIGN_MASK};
    if k < SAMPLE_MANTISSAS {
        return ONE_BITS | sample_mantissa(k);
    }
    let j = k - SAMPLE_MANTISSAS;
    let per_scale = SAMPLE_MANTISSAS / 8;
    let (e, negative) = SAMPLE_SCALES[(j / per_scale) as usize];
    let biased = (127 + e) as u32;
    (biased << 23) | sample_mantissa(j % per_scale * 8) | if negative { SIGN_MASK } else { 0 }
}

/// Checks a reciprocal approximation on the sample: the first input whose seed breaks the
/// documented bound, if any. `rcp` maps eight inputs to their seeds.
#[cfg(test)]
pub(crate) fn check_sample(rcp: impl FnMut([f32; 8]) -> [f32; 8]) -> Result<(), OutOfBound> {
    check_sample_within(RCPPS_BOUND, rcp)
}

/// The sample's check against any bound: the first input whose seed from `rcp` breaks it.
pub(crate) fn check_sample_within(
    bound: f64,
    mut rcp: impl FnMut([f32; 8]) -> [f32; 8],
) -> Result<(), OutOfBound> {
    for x in sample_inputs() {
        let r = rcp(x);
        for (&x, &r) in x.iter().zip(&r) {
            if !conforms(x, r, bound) {
                return Err(OutOfBound {
                    input: x.to_bits(),
                    seed: r.to_bits(),
                });
            }
        }
    }
    Ok(())
}

/// This CPU's `rcpps` on the sample (see the module docs), or `None` without AVX2+FMA (no
/// kernel to allow then). The same verdict as [`check_sample_within`] at [`RCPPS_BOUND`]
/// with this CPU's `rcpps`, computed eight inputs at a time (a few microseconds, once per
/// process: the plan waits for it).
pub fn this_cpu() -> Option<Result<(), OutOfBound>> {
    #[cfg(fmadiv_x86)]
    {
        if !crate::cpu::has_avx2_fma() {
            return None;
        }
        // SAFETY: AVX2 and FMA are present (checked above).
        let first_bad = unsafe { sample_x86(RCPPS_BOUND) };
        Some(match first_bad {
            None => Ok(()),
            // The failing vector again, lane by lane, for the report.
            Some(x) => {
                let r = rcp8_x86(x);
                let lane = (0..8)
                    .find(|&l| !conforms(x[l], r[l], RCPPS_BOUND))
                    .unwrap_or(0);
                Err(OutOfBound {
                    input: x[lane].to_bits(),
                    seed: r[lane].to_bits(),
                })
            }
        })
    }
    #[cfg(not(fmadiv_x86))]
    None
}

/// `rcpps` of eight inputs.
#[cfg(fmadiv_x86)]
fn rcp8_x86(x: [f32; 8]) -> [f32; 8] {
    #[target_feature(enable = "avx")]
    fn rcp8(x: [f32; 8]) -> [f32; 8] {
        use core::arch::x86_64::*;
        let mut r = [0.0f32; 8];
        // SAFETY: both arrays hold exactly eight floats.
        unsafe { _mm256_storeu_ps(r.as_mut_ptr(), _mm256_rcp_ps(_mm256_loadu_ps(x.as_ptr()))) };
        r
    }
    // SAFETY: only called where AVX2 was detected (`this_cpu`).
    unsafe { rcp8(x) }
}

/// The first vector of the sample in which `rcpps` breaks `bound`, if any:
/// `|1 - x·rcp(x)|` in binary64 four lanes at a time (exact: `x·r` has at most 48
/// significant bits and lies within a factor two of 1 wherever the bound can hold, so
/// Sterbenz's lemma makes the FMA's `1 - x·r` exact; anything farther off fails anyway).
#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn sample_x86(bound: f64) -> Option<[f32; 8]> {
    use core::arch::x86_64::*;
    let bound = _mm256_set1_pd(bound);
    let one = _mm256_set1_pd(1.0);
    let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
    for x in sample_inputs() {
        // SAFETY: `x` holds exactly eight floats.
        let v = unsafe { _mm256_loadu_ps(x.as_ptr()) };
        let r = _mm256_rcp_ps(v);
        let ok = |lo: bool| {
            let half = |w: __m256| {
                if lo {
                    _mm256_cvtps_pd(_mm256_castps256_ps128(w))
                } else {
                    _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(w))
                }
            };
            let e = _mm256_and_pd(_mm256_fnmadd_pd(half(v), half(r), one), abs);
            // Ordered compare: a NaN error (a NaN seed) fails.
            _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(e, bound))
        };
        if ok(true) != 0xf || ok(false) != 0xf {
            return Some(x);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::pow2;

    #[test]
    // Safe arithmetic over the whole sample, several times: 30-55 s each under Miri.
    #[cfg_attr(miri, ignore)]
    fn exact_reciprocals_and_a_12_bit_table_pass_and_a_loose_one_fails() {
        let exact = |x: [f32; 8]| x.map(|x| 1.0 / x);
        assert_eq!(check_sample(exact), Ok(()));
        // A table of 12-bit seeds (1/x cut to 12 fraction bits): error below 2^-12.
        let cut = |x: [f32; 8]| x.map(|x| f32::from_bits((1.0 / x).to_bits() & !0x7ff));
        assert_eq!(check_sample(cut), Ok(()));
        // Seeds off by 1.6·2^-12 for inputs near 1.5 only: the sample must still see it.
        let loose = |x: [f32; 8]| {
            x.map(|x| {
                let m = x.abs().to_bits() & crate::bits::MANTISSA_MASK;
                let r = 1.0 / x;
                if (0x40_0000..0x40_1000).contains(&m) {
                    r * (1.0 + 1.6 / 4096.0)
                } else {
                    r
                }
            })
        };
        let e = check_sample(loose).unwrap_err();
        assert_eq!(e.input & crate::bits::MANTISSA_MASK, 0x40_0000);
        assert!(e.to_string().contains("1.5*2^-12"), "{e}");
        // A seed that is NaN or zero fails too.
        assert!(check_sample(|x: [f32; 8]| x.map(|_| f32::NAN)).is_err());
        assert!(check_sample(|x: [f32; 8]| x.map(|_| 0.0)).is_err());
    }

    #[test]
    // Safe arithmetic over the whole sample, several times: 30-55 s each under Miri.
    #[cfg_attr(miri, ignore)]
    fn the_sample_covers_the_window_ends_and_both_signs() {
        let inputs: Vec<f32> = sample_inputs().flatten().collect();
        assert_eq!(inputs.len(), 16384);
        assert!(
            inputs
                .iter()
                .any(|&x| x == -f32::from_bits(0x3f80_0000 - (63 << 23)))
        );
        assert!(inputs.iter().any(|&x| x.abs() >= pow2(62) && x < 0.0));
        assert!(
            inputs
                .iter()
                .all(|x| x.abs() >= pow2(-63) && x.abs() < pow2(63))
        );
    }

    /// The vectorized check gives the verdict of the lane-by-lane one, under the documented
    /// bound and under one this CPU's table breaks (AMD's reaches 1.29·2^-12).
    #[test]
    #[cfg(fmadiv_x86)]
    fn the_vectorized_sample_check_agrees_with_the_plain_one() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            eprintln!("SKIPPED on this CPU: the vectorized rcpps check (needs AVX2+FMA)");
            return;
        }
        for bound in [RCPPS_BOUND, 1.0 / 8192.0] {
            // SAFETY: AVX2 and FMA are present (checked above).
            let fast = unsafe { sample_x86(bound) };
            let plain = check_sample_within(bound, rcp8_x86);
            assert_eq!(fast.is_none(), plain.is_ok(), "{bound}");
            if let (Some(x), Err(e)) = (fast, plain) {
                assert!(x.contains(&f32::from_bits(e.input)), "{bound}: {e}");
            }
        }
    }

    #[test]
    fn this_cpus_rcp_passes() {
        match this_cpu() {
            Some(verdict) => assert_eq!(verdict, Ok(())),
            None => eprintln!("SKIPPED on this CPU: the rcpps sample check (needs AVX)"),
        }
    }
}
