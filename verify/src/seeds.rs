//! Documented bounds on reciprocal seeds, the seeds a bound allows, and the check of this
//! CPU's `rcpps` on every input of the window.
//!
//! The kernels are proven exact for every table within the documented bound
//! (`crate::sweep::conforming`); the library checks a sample of this CPU's `rcpps` against
//! it before any kernel runs; `fmadiv fingerprint` checks every input of the window
//! ([`check_window`]).

use core::fmt;
use core::ops::RangeInclusive;

/// A documented bound on a seed's relative error, `|1 - b·r| <= mantissa·2^exponent`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeedBound {
    mantissa: f64,
    exponent: i32,
}

/// `2^e`, exactly, from its exponent field (`f64::powi`'s precision is unspecified): zero
/// below the normal powers, infinity above, which every bound's range check refuses.
fn pow2(e: i32) -> f64 {
    match e {
        // The biased exponent in its field, a zero fraction: the bits of 2^e.
        -1022..=1023 => f64::from_bits(((e + 1023) as u64) << 52),
        e if e < 0 => 0.0,
        _ => f64::INFINITY,
    }
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
        self.mantissa * pow2(self.exponent)
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
        if !(mantissa > 0.0 && (pow2(-30)..=pow2(-8)).contains(&v)) {
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

/// An input where `rcpps` breaks the bound that was checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutOfBound {
    /// The input's bits.
    pub input: u32,
    /// The seed the CPU returned for it.
    pub seed: u32,
    /// The bound it breaks.
    pub bound: SeedBound,
}

impl fmt::Display for OutOfBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rcpps({:#010x}) = {:#010x} breaks |1 - b*rcp(b)| <= {}",
            self.input, self.seed, self.bound
        )
    }
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
    use core::arch::x86_64::*;
    use fmadiv::verify::bits::{
        INPUT_EXPONENT_MIN, INPUT_EXPONENTS, MANTISSA_MASK, ONE_BITS, SIGN_MASK,
    };
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
                                bound,
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
}
