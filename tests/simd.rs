//! The in-register API: `div_f32x8`, `recip_f32x8`, `div_f32x16`, `recip_f32x16`, the
//! `Avx2Fma` token and the sixteen-lane `Avx512` token, on every path
//! (kernel and divider, inside `vectorize` and outside), bit for bit against `/`.

mod common;

use common::{SplitMix64, assert_quotients, seed};
use fmadiv_verify::samples::edge_pairs;
use wide::f32x8;

/// Edge pairs, then random bit patterns: dividends and divisors, a multiple of 8 long.
fn inputs() -> (Vec<f32>, Vec<f32>) {
    let (mut a, mut b) = edge_pairs();
    let mut rng = SplitMix64(seed());
    while a.len() % 8 != 0 || a.len() < 1 << 20 {
        a.push(rng.next_f32_bits());
        b.push(rng.next_f32_bits());
    }
    (a, b)
}

fn vectors(x: &[f32]) -> Vec<f32x8> {
    x.chunks_exact(8)
        .map(|c| f32x8::from(<[f32; 8]>::try_from(c).unwrap()))
        .collect()
}

fn lanes(v: &[f32x8]) -> Vec<f32> {
    v.iter().flat_map(|v| v.to_array()).collect()
}

#[test]
fn div_f32x16_and_recip_f32x16_match_the_divider() {
    use wide::f32x16;
    let (a, b) = inputs();
    let sixteen = |x: &[f32]| -> Vec<f32x16> {
        x.chunks_exact(16)
            .map(|c| f32x16::from(<[f32; 16]>::try_from(c).unwrap()))
            .collect()
    };
    let (va, vb) = (sixteen(&a), sixteen(&b));
    let n = va.len() * 16;
    let q: Vec<f32> = va
        .iter()
        .zip(&vb)
        .flat_map(|(&x, &y)| fmadiv::simd::div_f32x16(x, y).to_array())
        .collect();
    assert_quotients("div_f32x16", &a[..n], &b[..n], &q);
    let r: Vec<f32> = vb
        .iter()
        .flat_map(|&y| fmadiv::simd::recip_f32x16(y).to_array())
        .collect();
    assert_quotients("recip_f32x16", &vec![1.0; n], &b[..n], &r);
}

#[test]
fn div_f32x8_and_recip_f32x8_match_the_divider() {
    let (a, b) = inputs();
    let (va, vb) = (vectors(&a), vectors(&b));
    let q: Vec<f32x8> = va
        .iter()
        .zip(&vb)
        .map(|(&x, &y)| fmadiv::div_f32x8(x, y))
        .collect();
    assert_quotients("div_f32x8", &a, &b, &lanes(&q));
    let r: Vec<f32x8> = vb.iter().map(|&y| fmadiv::recip_f32x8(y)).collect();
    assert_quotients("recip_f32x8", &vec![1.0; b.len()], &b, &lanes(&r));
}

#[cfg(fmadiv_x86)]
mod token {
    use core::arch::x86_64::__m256;

    use super::*;
    use fmadiv::simd::Avx2Fma;

    fn token() -> Option<Avx2Fma> {
        let t = Avx2Fma::new();
        if t.is_none() {
            common::skipped_once("the Avx2Fma token (needs AVX2+FMA)");
        }
        t
    }

    /// Every method of the token on both paths, inside `vectorize` (inlined, compiled for
    /// AVX2+FMA) and outside it.
    #[test]
    fn every_method_on_both_paths_matches_the_divider() {
        let Some(simd) = token() else { return };
        let (a, b) = inputs();
        let (va, vb) = (vectors(&a), vectors(&b));
        let ones = vec![1.0f32; b.len()];
        for kernel in [true, false] {
            let t = fmadiv::verify::token_with_kernel(simd, kernel);
            assert_eq!(t.uses_kernel(), kernel);
            let mut q = vec![f32x8::ZERO; va.len()];
            let mut r = vec![f32x8::ZERO; va.len()];
            t.vectorize(|t| {
                for (((q, r), &x), &y) in q.iter_mut().zip(&mut r).zip(&va).zip(&vb) {
                    *q = t.div_f32x8(x, y);
                    *r = t.recip_f32x8(y);
                }
            });
            let what = format!("token (kernel {kernel}) in vectorize");
            assert_quotients(&format!("{what}: div_f32x8"), &a, &b, &lanes(&q));
            assert_quotients(&format!("{what}: recip_f32x8"), &ones, &b, &lanes(&r));

            // Outside vectorize, and through the other vector types.
            let to_m256 = |v: f32x8| -> __m256 { bytemuck_cast(v) };
            let from_m256 = |v: __m256| -> f32x8 { bytemuck_cast(v) };
            let q: Vec<f32x8> = va
                .iter()
                .zip(&vb)
                .map(|(&x, &y)| from_m256(t.div_ps(to_m256(x), to_m256(y))))
                .collect();
            assert_quotients(
                &format!("token (kernel {kernel}): div_ps"),
                &a,
                &b,
                &lanes(&q),
            );
            let q: Vec<f32x8> = va
                .iter()
                .zip(&vb)
                .map(|(&x, &y)| {
                    let m = t.div_m256(safe_arch::m256(to_m256(x)), safe_arch::m256(to_m256(y)));
                    from_m256(m.0)
                })
                .collect();
            assert_quotients(
                &format!("token (kernel {kernel}): div_m256"),
                &a,
                &b,
                &lanes(&q),
            );
            let r: Vec<f32x8> = vb
                .iter()
                .map(|&y| from_m256(t.recip_m256(safe_arch::m256(to_m256(y))).0))
                .collect();
            assert_quotients(
                &format!("token (kernel {kernel}): recip_m256"),
                &ones,
                &b,
                &lanes(&r),
            );
            let r: Vec<f32x8> = vb
                .iter()
                .map(|&y| from_m256(t.recip_ps(to_m256(y))))
                .collect();
            assert_quotients(
                &format!("token (kernel {kernel}): recip_ps"),
                &ones,
                &b,
                &lanes(&r),
            );
        }
    }

    /// The token follows the plan's in-register choice.
    #[test]
    fn the_token_follows_the_plan() {
        let Some(simd) = token() else { return };
        assert_eq!(simd.uses_kernel(), fmadiv::plan().in_register_kernel());
    }

    /// Eight lanes as another 32-byte vector type of eight `f32` lanes.
    fn bytemuck_cast<A: Copy, B: Copy>(a: A) -> B {
        assert_eq!(size_of::<A>(), size_of::<B>());
        // SAFETY: both are 32-byte vectors of eight f32 lanes in memory order, and every
        // bit pattern is valid in each.
        unsafe { core::mem::transmute_copy(&a) }
    }
}

#[cfg(fmadiv_x86)]
mod token16 {
    use wide::f32x16;

    use super::*;
    use fmadiv::Rounding;
    use fmadiv::simd::Avx512;
    use fmadiv_verify::mxcsr::divide_in_mode;

    fn sixteen(x: &[f32]) -> Vec<f32x16> {
        x.chunks_exact(16)
            .map(|c| f32x16::from(<[f32; 16]>::try_from(c).unwrap()))
            .collect()
    }

    fn lanes16(v: &[f32x16]) -> Vec<f32> {
        v.iter().flat_map(|v| v.to_array()).collect()
    }

    /// Every method of the sixteen-lane token, divider and kernel, inside `vectorize`;
    /// the directed ones against `divss` under the mode. Natively only: the token exists
    /// only on a CPU with AVX-512F (the model tests the same kernel code on every machine,
    /// `tests/backends.rs`).
    #[test]
    fn every_method_of_the_sixteen_lane_token_matches_the_divider() {
        let Some(simd) = Avx512::new() else {
            common::skipped_once("the Avx512 token (needs AVX-512F)");
            return;
        };
        let (a, b) = inputs();
        let n = a.len() / 16 * 16;
        let (a, b) = (&a[..n], &b[..n]);
        let (va, vb) = (sixteen(a), sixteen(b));
        let ones = vec![1.0f32; n];
        for kernel in [false, true] {
            let t = simd.with_kernel(kernel);
            assert_eq!(t.uses_kernel(), kernel);
            let (mut q, mut r) = (vec![f32x16::ZERO; va.len()], vec![f32x16::ZERO; va.len()]);
            t.vectorize(|t| {
                for (((q, r), &x), &y) in q.iter_mut().zip(&mut r).zip(&va).zip(&vb) {
                    *q = t.div_f32x16(x, y);
                    *r = t.recip_f32x16(y);
                }
            });
            assert_quotients(
                &format!("Avx512 (kernel {kernel}): div_f32x16"),
                a,
                b,
                &lanes16(&q),
            );
            assert_quotients(
                &format!("Avx512 (kernel {kernel}): recip_f32x16"),
                &ones,
                b,
                &lanes16(&r),
            );
        }
        for mode in [
            Rounding::Down,
            Rounding::Up,
            Rounding::TowardZero,
            Rounding::Nearest,
        ] {
            let want = divide_in_mode(a, b, mode);
            let got: Vec<f32x16> = simd.vectorize(|t| {
                va.iter()
                    .zip(&vb)
                    .map(|(&x, &y)| t.div_rounded_f32x16(x, y, mode))
                    .collect()
            });
            let got = lanes16(&got);
            let i = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits());
            assert!(i.is_none(), "div_rounded_f32x16 {mode} at {i:?}");
        }
        let (lo, hi): (Vec<f32x16>, Vec<f32x16>) = va
            .iter()
            .zip(&vb)
            .map(|(&x, &y)| simd.div_bounds_f32x16(x, y))
            .unzip();
        assert_eq!(
            lanes16(&lo).iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            divide_in_mode(a, b, Rounding::Down)
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            lanes16(&hi).iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            divide_in_mode(a, b, Rounding::Up)
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        );
    }
}
