//! The directed-rounding sweep: the step from the round-to-nearest quotient to the
//! quotient rounded down, up or toward zero, compared with `vdivps` under that rounding
//! mode, over mantissa pairs in [1, 2) × [1, 2).
//!
//! Our side is the library's own step applied to the kernel's round-to-nearest quotient (the
//! divider's for the near-all-ones divisors, as in `div`), in both its forms:
//! `fmadiv::verify::x86::round_from`, which the short slices and the eight-lane functions
//! run, and `round_from_plus_zero`, which the flag-checked chunks run wherever MXCSR does not
//! round down; a pair is a mismatch if either form is wrong. The kernel's quotient is the
//! one the round-to-nearest sweeps prove. The reference is `vdivps` with
//! MXCSR's rounding field set to the mode and put back inside one `asm!` block, a block of
//! dividends at a time, written to a buffer that our side, computed afterwards in the
//! default environment, is compared with.
//!
//! Signs: inside the window the step acts on signs through bit operations only, so the
//! sweep gives each pair one of the four sign combinations, by the parity of the two
//! mantissas (a dividend mantissa `ma` is negative when odd, a divisor `mb` likewise): over
//! any eight consecutive divisors and two dividends every combination occurs. The input
//! window scales every pair by powers of two, as in the round-to-nearest sweep.

use fmadiv::Rounding;

use super::Tally;

/// Dividends whose references one `asm!` block computes (per eight divisors).
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
const REFERENCE_BLOCK: usize = 256;

/// Compares the directed step for `mode` with `vdivps` under that mode on dividends `1.ma`,
/// `ma` in `dividends`, against divisors `1.mb`, `mb` in `divisors` (bounds multiples of 8),
/// signs by parity. `None` without AVX2+FMA. `mode` nearest compares `div`'s own kernel.
/// With `weakened`, the step ignores the divisor's sign (wrong on purpose: the sweep must
/// catch it).
pub fn directed_tile(
    mode: Rounding,
    weakened: bool,
    dividends: core::ops::Range<u32>,
    divisors: core::ops::Range<u32>,
) -> Option<Tally> {
    super::assert_tile_bounds(&dividends, &divisors);
    #[cfg(fmadiv_x86)]
    {
        use fmadiv::verify::x86::{DIVISOR_SIGN_IGNORED, DOWN, NEAREST, SHIPPED, TOWARD_ZERO, UP};
        let k = fmadiv::verify::x86::Avx2Fma::new()?;
        macro_rules! run {
            ($mode:expr) => {
                if weakened {
                    x86::tile::<{ $mode }, DIVISOR_SIGN_IGNORED>(k, dividends, divisors)
                } else {
                    x86::tile::<{ $mode }, SHIPPED>(k, dividends, divisors)
                }
            };
        }
        // SAFETY: `k` proves AVX2 and FMA, the features `tile` is compiled for.
        let tally = unsafe {
            match mode {
                Rounding::Nearest => run!(NEAREST),
                Rounding::Down => run!(DOWN),
                Rounding::Up => run!(UP),
                Rounding::TowardZero => run!(TOWARD_ZERO),
            }
        };
        Some(tally)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (mode, weakened, dividends, divisors);
        None
    }
}

/// The sign a mantissa's pair member gets: negative for odd mantissas.
#[cfg_attr(not(fmadiv_x86), allow(dead_code))]
fn signed(mantissa: u32) -> u32 {
    fmadiv::verify::bits::ONE_BITS | mantissa | (mantissa & 1) << 31
}

#[cfg(fmadiv_x86)]
mod x86 {
    use core::arch::x86_64::*;

    use super::{REFERENCE_BLOCK, signed};
    use crate::sweep::{Counterexample, Tally, flags, lanes};
    use fmadiv::verify::Variant;
    use fmadiv::verify::x86::{Avx2Fma, corrected_quotient, reciprocal};
    use fmadiv::verify::x86::{round_from, round_from_plus_zero};

    /// `vdivps(a[j], b)` under rounding direction `MODE` for every `j`, into `out`: MXCSR
    /// set once for the block and put back inside the same `asm!` block.
    #[target_feature(enable = "avx2,fma")]
    fn references<const MODE: u8>(b: __m256, a: &[f32], out: &mut [__m256]) {
        assert!(a.len() == out.len() && !a.is_empty());
        let mut saved = 0u32;
        let mut set = 0u32;
        // SAFETY: the block reads `a.len()` floats of `a` and writes as many vectors of
        // `out` (equal lengths, checked); it sets only MXCSR's rounding field and loads the
        // saved word back at its end, before any code of ours runs (the flags the divisions
        // raise are dropped: the sweep does not read them). The locals are valid.
        unsafe {
            core::arch::asm!(
                crate::under_rounding!(
                    "v";
                    "2:",
                    "vbroadcastss {t}, [{a}]",
                    "vdivps {t}, {t}, {b}",
                    "vmovups [{out}], {t}",
                    "add {a}, 4",
                    "add {out}, 32",
                    "dec {n}",
                    "jnz 2b",
                ),
                saved = in(reg) &mut saved,
                set = in(reg) &mut set,
                tmp = out(reg) _,
                keep = const !fmadiv::verify::x86::ROUNDING_CONTROL,
                rc = in(reg) (MODE as u32) << fmadiv::verify::x86::ROUNDING_CONTROL_SHIFT,
                a = inout(reg) a.as_ptr() => _,
                out = inout(reg) out.as_mut_ptr() => _,
                n = inout(reg) a.len() => _,
                b = in(ymm_reg) b,
                t = out(ymm_reg) _,
                options(nostack),
            );
        }
    }

    /// Dividends compared per branch.
    const GROUP: usize = 4;

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn tile<const MODE: u8, const V: u8>(
        k: Avx2Fma,
        dividends: core::ops::Range<u32>,
        divisors: core::ops::Range<u32>,
    ) -> Tally {
        const SHIPPED: u8 = Variant::SHIPPED;
        let mut tally = Tally {
            pairs: u64::from(dividends.len() as u32) * u64::from(divisors.len() as u32),
            ..Tally::default()
        };
        let lane_offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let odd_lanes = _mm256_setr_epi32(0, i32::MIN, 0, i32::MIN, 0, i32::MIN, 0, i32::MIN);
        let mut a_block = [0.0f32; REFERENCE_BLOCK];
        let mut want = [_mm256_setzero_ps(); REFERENCE_BLOCK];
        for mb in divisors.step_by(8) {
            // Divisor mantissas mb..mb+8 (mb even): the odd lanes negative.
            let b_bits = _mm256_or_si256(
                _mm256_add_epi32(_mm256_set1_epi32(signed(mb) as i32), lane_offsets),
                odd_lanes,
            );
            let b = _mm256_castsi256_ps(b_bits);
            let y = reciprocal::<_, SHIPPED>(k, b);
            // The near-all-ones divisors: `div` takes their quotients from the divider.
            let flagged = flags::<SHIPPED>(k, b);
            let any_flagged = _mm256_movemask_ps(flagged) != 0;
            let mut ma = dividends.start;
            while ma < dividends.end {
                let n = (dividends.end - ma).min(REFERENCE_BLOCK as u32) as usize;
                for (j, x) in a_block[..n].iter_mut().enumerate() {
                    *x = f32::from_bits(signed(ma + j as u32));
                }
                references::<MODE>(b, &a_block[..n], &mut want[..n]);
                let equal = |got: __m256, want: __m256| {
                    _mm256_cmpeq_epi32(_mm256_castps_si256(got), _mm256_castps_si256(want))
                };
                // Both steps' results: the general one's where it differs from `want`,
                // else the +0-residual one's (so a lane counts once, wrong if either is).
                let ours = |j: usize, want: __m256| {
                    let a = _mm256_set1_ps(a_block[j]);
                    let mut q = corrected_quotient(k, a, b, y);
                    if any_flagged {
                        q = _mm256_blendv_ps(q, _mm256_div_ps(a, b), flagged);
                    }
                    let general = round_from::<_, MODE, V>(k, a, b, q);
                    let plus_zero = round_from_plus_zero::<_, MODE, V>(k, a, b, q);
                    let right = _mm256_castsi256_ps(equal(general, want));
                    (a, _mm256_blendv_ps(general, plus_zero, right))
                };
                let check = |tally: &mut Tally, j: usize, want: __m256| {
                    let (a, got) = ours(j, want);
                    if _mm256_movemask_ps(_mm256_castsi256_ps(equal(got, want))) != 0xff {
                        record(tally, a, b, got, want);
                    }
                };
                // Four dividends per test and branch; a failed group is checked one by one.
                let groups = n - n % GROUP;
                for (g, wants) in want[..groups].chunks_exact(GROUP).enumerate() {
                    let j = g * GROUP;
                    let all: [__m256i; GROUP] =
                        core::array::from_fn(|k| equal(ours(j + k, wants[k]).1, wants[k]));
                    let same = _mm256_and_si256(
                        _mm256_and_si256(all[0], all[1]),
                        _mm256_and_si256(all[2], all[3]),
                    );
                    if _mm256_movemask_ps(_mm256_castsi256_ps(same)) != 0xff {
                        for (k, &w) in wants.iter().enumerate() {
                            check(&mut tally, j + k, w);
                        }
                    }
                }
                for (k, &w) in want[groups..n].iter().enumerate() {
                    check(&mut tally, groups + k, w);
                }
                ma += n as u32;
            }
        }
        tally.trim();
        tally
    }

    #[cold]
    #[inline(never)]
    fn record(tally: &mut Tally, a: __m256, b: __m256, got: __m256, want: __m256) {
        let (a, b, got, want) = (lanes(a), lanes(b), lanes(got), lanes(want));
        for i in 0..8 {
            if got[i] != want[i] {
                tally.record(Counterexample {
                    a: a[i],
                    b: b[i],
                    got: got[i],
                    want: want[i],
                    seed: None,
                });
            }
        }
    }
}

#[cfg(all(test, fmadiv_x86))]
mod tests {
    use super::*;

    #[test]
    fn every_mode_passes_a_slice_and_the_weakened_step_is_caught() {
        if fmadiv::verify::has_kernel() {
            for mode in Rounding::ALL {
                let t = directed_tile(mode, false, 0..64, 0..4096).unwrap();
                assert_eq!(t.mismatches, 0, "{mode}: {:?}", t.counterexamples.first());
                assert_eq!(t.pairs, 64 * 4096);
                let weak = directed_tile(mode, true, 0..64, 0..4096).unwrap();
                if mode == Rounding::Nearest {
                    assert_eq!(weak.mismatches, 0, "nearest takes no step");
                } else {
                    assert!(weak.mismatches > 0, "{mode}: the weakened step passed");
                }
            }
        } else {
            eprintln!("SKIPPED on this CPU: the directed sweep (needs AVX2+FMA)");
        }
    }
}
