//! The one property of the CPU the kernels rely on: `rcpps` within its documented bound.
//!
//! The kernels are proven exact for every table whose seeds satisfy
//! `|1 - b·rcp(b)| <= 1.5·2^-12` (Intel's SDM and AMD's APM; [`SeedBound::RCPPS`]) inside
//! the input window: the every-table sweeps in `sweep::conforming`. Before the plan lets a
//! kernel run, [`this_cpu`] checks that this CPU's `rcpps` keeps the bound on a sample of
//! 16 384 inputs (every end of every 2^-12-wide interval of mantissas, where a table that
//! is piecewise constant has its largest errors, at exponent 0 and at eight exponents and
//! signs across the window): a few tens of microseconds, once per process. A CPU outside
//! the bound (a broken emulator, say) runs the divider. `fmadiv fingerprint` checks every
//! input of the window.

use core::fmt;
use core::ops::RangeInclusive;

/// A documented bound on a seed's relative error, `|1 - b·r| <= mantissa·2^exponent`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeedBound {
    mantissa: f64,
    exponent: i32,
}

impl SeedBound {
    /// `rcpps`/`vrcpps` in Intel's SDM and AMD's APM: `|relative error| <= 1.5·2^-12`.
    pub const RCPPS: SeedBound = SeedBound {
        mantissa: 1.5,
        exponent: -12,
    };
    /// `vrcp14ps` (AVX-512F) in Intel's SDM: relative error below `2^-14`.
    pub const RCP14: SeedBound = SeedBound {
        mantissa: 1.0,
        exponent: -14,
    };

    /// The bound as a number (exact: a short mantissa times a power of two).
    pub fn value(self) -> f64 {
        self.mantissa * 2f64.powi(self.exponent)
    }

    /// Parses `M*2^E` or `2^E` (`1.5*2^-12`, `2^-14`). The bound must lie in
    /// `[2^-30, 2^-8]`: wider seeds are not an `rcp`, narrower ones are a division.
    pub fn parse(text: &str) -> Result<SeedBound, String> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (mantissa, power) = match t.split_once('*') {
            Some((m, p)) => (
                m.parse::<f64>()
                    .map_err(|e| format!("bound {text:?}: {m:?} is not a number: {e}"))?,
                p,
            ),
            None => (1.0, t.as_str()),
        };
        let exponent = power
            .strip_prefix("2^")
            .and_then(|e| e.parse::<i32>().ok())
            .ok_or_else(|| format!("bound {text:?} is not M*2^E or 2^E (e.g. 1.5*2^-12)"))?;
        let bound = SeedBound { mantissa, exponent };
        let v = bound.value();
        if !(mantissa > 0.0 && (2f64.powi(-30)..=2f64.powi(-8)).contains(&v)) {
            return Err(format!(
                "bound {text:?} = {v:e} is outside [2^-30, 2^-8]: not a reciprocal seed's"
            ));
        }
        // The exact comparison in `conforms` needs the bound itself to be exact in binary64
        // with few bits: a mantissa of at most 8 significant bits.
        if (mantissa * 256.0).fract() != 0.0 || mantissa >= 256.0 {
            return Err(format!(
                "bound {text:?}: use a mantissa with at most 8 bits"
            ));
        }
        Ok(bound)
    }
}

impl core::fmt::Display for SeedBound {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.mantissa == 1.0 {
            write!(f, "2^{}", self.exponent)
        } else {
            write!(f, "{}*2^{}", self.mantissa, self.exponent)
        }
    }
}

/// Whether `r` is a seed of `b` the bound allows: `|1 - b·r| <= bound`, exactly (`b·r`
/// has at most 48 significant bits, and `1 - b·r` is exact by Sterbenz's lemma whenever
/// `b·r` lies within a factor two of 1; anything farther off, NaN included, fails).
pub fn conforms(b: f32, r: f32, bound: SeedBound) -> bool {
    (1.0 - f64::from(b) * f64::from(r)).abs() <= bound.value()
}

/// Every seed the bound allows for a divisor `b` in [1, 2), as a run of bit patterns: the
/// allowed reals form an interval, and positive floats are ordered like their bits.
pub fn seed_range(b: f32, bound: SeedBound) -> RangeInclusive<u32> {
    let ok = |bits: u32| conforms(b, f32::from_bits(bits), bound);
    let b64 = f64::from(b);
    // Start from the interval's ends rounded to floats, then step to the exact edge.
    let mut lo = (((1.0 - bound.value()) / b64) as f32).to_bits();
    while ok(lo - 1) {
        lo -= 1;
    }
    while !ok(lo) {
        lo += 1;
    }
    let mut hi = (((1.0 + bound.value()) / b64) as f32).to_bits();
    while ok(hi + 1) {
        hi += 1;
    }
    while !ok(hi) {
        hi -= 1;
    }
    lo..=hi
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
            "rcpps({:#010x}) = {:#010x} breaks the documented |1 - b*rcp(b)| <= {}",
            self.input,
            self.seed,
            SeedBound::RCPPS
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

/// Checks a reciprocal approximation on the sample: the first input whose seed breaks
/// [`SeedBound::RCPPS`], if any. `rcp` maps eight inputs to their seeds.
pub fn check_sample(rcp: impl FnMut([f32; 8]) -> [f32; 8]) -> Result<(), OutOfBound> {
    check_sample_within(SeedBound::RCPPS, rcp)
}

/// [`check_sample`] against any bound.
fn check_sample_within(
    bound: SeedBound,
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
/// kernel to allow then). The same verdict as [`check_sample`] with this CPU's `rcpps`,
/// computed eight inputs at a time (a few microseconds, once per process: the plan waits
/// for it).
pub fn this_cpu() -> Option<Result<(), OutOfBound>> {
    #[cfg(fmadiv_x86)]
    {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            return None;
        }
        // SAFETY: AVX2 and FMA are present (checked above).
        let first_bad = unsafe { sample_x86(SeedBound::RCPPS) };
        Some(match first_bad {
            None => Ok(()),
            // The failing vector again, lane by lane, for the report.
            Some(x) => {
                let r = rcp8_x86(x);
                let lane = (0..8)
                    .find(|&l| !conforms(x[l], r[l], SeedBound::RCPPS))
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

/// The first vector of the sample in which `rcpps` breaks [`SeedBound::RCPPS`], if any:
/// `|1 - x·rcp(x)|` in binary64 four lanes at a time (exact: `x·r` has at most 48
/// significant bits and lies within a factor two of 1 wherever the bound can hold, so
/// Sterbenz's lemma makes the FMA's `1 - x·r` exact; anything farther off fails anyway).
#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2,fma")]
fn sample_x86(bound: SeedBound) -> Option<[f32; 8]> {
    use core::arch::x86_64::*;
    let bound = _mm256_set1_pd(bound.value());
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

/// This CPU's `rcpps` on every input of the window, `±[2^-63, 2^63)` (2.1·10^9 inputs,
/// about a second): the first that breaks `bound`, or `None` without AVX2.
pub fn check_window(bound: SeedBound) -> Option<Result<(), OutOfBound>> {
    #[cfg(fmadiv_x86)]
    {
        if !is_x86_feature_detected!("avx2") {
            return None;
        }
        // SAFETY: AVX2 is present (checked above).
        Some(unsafe { window_x86(bound) })
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = bound;
        None
    }
}

#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx2")]
fn window_x86(bound: SeedBound) -> Result<(), OutOfBound> {
    use crate::bits::{INPUT_EXPONENT_MIN, INPUT_EXPONENTS, MANTISSA_MASK, ONE_BITS, SIGN_MASK};
    use core::arch::x86_64::*;
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for m in (0..=MANTISSA_MASK).step_by(8) {
        // The allowed seeds of the eight mantissas, as bit ranges.
        let ranges: [core::ops::RangeInclusive<u32>; 8] =
            core::array::from_fn(|l| seed_range(f32::from_bits(ONE_BITS | (m + l as u32)), bound));
        let vector = |bits: [u32; 8]| {
            // SAFETY: eight u32 are one vector's worth of bits.
            unsafe { _mm256_loadu_si256(bits.as_ptr().cast()) }
        };
        let lo = vector(core::array::from_fn(|l| *ranges[l].start()));
        let hi = vector(core::array::from_fn(|l| *ranges[l].end()));
        let base = _mm256_add_epi32(_mm256_set1_epi32((ONE_BITS | m) as i32), lane);
        let mut ok = _mm256_set1_epi32(-1);
        for field in INPUT_EXPONENT_MIN..INPUT_EXPONENT_MIN + INPUT_EXPONENTS {
            // Moving the exponent field by `shift` scales x by 2^shift; moving the seed's
            // back by the same amount gives the seed of the mantissa the bound speaks of.
            let shift = _mm256_set1_epi32(((field as i32) - 127) << 23);
            for sign in [0, SIGN_MASK as i32] {
                let s = _mm256_set1_epi32(sign);
                let x = _mm256_or_si256(_mm256_add_epi32(base, shift), s);
                let r = _mm256_castps_si256(_mm256_rcp_ps(_mm256_castsi256_ps(x)));
                // The seed must carry the input's sign; without it, its scaled magnitude
                // must lie in [lo, hi] (unsigned compares by max/min).
                let same_sign =
                    _mm256_cmpeq_epi32(_mm256_and_si256(r, _mm256_set1_epi32(SIGN_MASK as i32)), s);
                let scaled = _mm256_add_epi32(
                    _mm256_andnot_si256(_mm256_set1_epi32(SIGN_MASK as i32), r),
                    shift,
                );
                let above = _mm256_cmpeq_epi32(_mm256_max_epu32(scaled, lo), scaled);
                let below = _mm256_cmpeq_epi32(_mm256_min_epu32(scaled, hi), scaled);
                ok = _mm256_and_si256(
                    ok,
                    _mm256_and_si256(same_sign, _mm256_and_si256(above, below)),
                );
            }
        }
        if _mm256_movemask_ps(_mm256_castsi256_ps(ok)) != 0xff {
            // Find the input again, one at a time (rare: a table out of bounds).
            for l in 0..8u32 {
                for field in INPUT_EXPONENT_MIN..INPUT_EXPONENT_MIN + INPUT_EXPONENTS {
                    for sign in [0, SIGN_MASK] {
                        let x = f32::from_bits(sign | field << 23 | (m + l));
                        let r = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
                        if !conforms(x, r, bound) {
                            return Err(OutOfBound {
                                input: x.to_bits(),
                                seed: r.to_bits(),
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_parse_and_print() {
        assert_eq!(SeedBound::parse("1.5*2^-12"), Ok(SeedBound::RCPPS));
        assert_eq!(SeedBound::parse(" 2^-14 "), Ok(SeedBound::RCP14));
        assert_eq!(SeedBound::RCPPS.to_string(), "1.5*2^-12");
        assert_eq!(SeedBound::RCP14.to_string(), "2^-14");
        assert_eq!(SeedBound::RCPPS.value(), 1.5 / 4096.0);
        for bad in [
            "",
            "1.5",
            "2^x",
            "1.5*2^-2",
            "2^-40",
            "0*2^-12",
            "1.1*2^-12",
            "-1*2^-12",
        ] {
            assert!(SeedBound::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
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
    fn the_sample_covers_the_window_ends_and_both_signs() {
        let inputs: Vec<f32> = sample_inputs().flatten().collect();
        assert_eq!(inputs.len(), 16384);
        assert!(
            inputs
                .iter()
                .any(|&x| x == -f32::from_bits(0x3f80_0000 - (63 << 23)))
        );
        assert!(inputs.iter().any(|&x| x.abs() >= 2f32.powi(62) && x < 0.0));
        assert!(
            inputs
                .iter()
                .all(|x| x.abs() >= 2f32.powi(-63) && x.abs() < 2f32.powi(63))
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
        for bound in [SeedBound::RCPPS, SeedBound::parse("2^-13").unwrap()] {
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
