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

/// A token's `div` (with `kernel`: a kernel token, else a divider one): `(kernel, a, b, q)`.
#[cfg(fmadiv_x86)]
type TokenDiv<'a> = &'a dyn Fn(bool, &[f32], &[f32], &mut [f32]);
/// A token's `recip`: `(kernel, b, r)`.
#[cfg(fmadiv_x86)]
type TokenRecip<'a> = &'a dyn Fn(bool, &[f32], &mut [f32]);

/// A token's choice between the kernel and `vdivps`, read lane by lane (bits alone cannot
/// show it: both give the same ones) through a caller's loop in `vectorize` with a weakened
/// kernel where the token takes the kernel (`div`: the kernel with the divisor's window
/// alone, NaN for an infinite dividend; `recip`: the published kernel, one ulp low for
/// `±0x1.fffffep+e` where `backend`'s seed of `2 - 2^-23` is 0.5): a kernel token's lanes
/// are all the kernel's and a divider token's all `vdivps`'s; under round-down a kernel
/// token divides with `vdivps`.
#[cfg(fmadiv_x86)]
fn choice_shows_lane_by_lane(
    what: &str,
    backend: fmadiv::Backend,
    div: TokenDiv,
    recip: TokenRecip,
) {
    use std::hint::black_box;

    use common::{read_mxcsr, write_mxcsr};
    /// MXCSR's rounding field, and round-down in it.
    const RC: u32 = 0b11 << 13;
    const DOWN: u32 = 0b01 << 13;
    let n = 16 * 64;
    // Infinite dividends over divisors in [1, 1.5): inside the window, none near all ones
    // (the kernel refuses those).
    let a: Vec<f32> = (0..n)
        .map(|i| f32::INFINITY.copysign(if i % 3 == 0 { -1.0 } else { 1.0 }))
        .collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 / (2 * n) as f32).collect();
    let near_all_ones = common::near_all_ones_divisors(n, 12);
    let recip_readable = common::recip_lanes_readable(backend);
    for kernel in [true, false] {
        let mut q = vec![0.0f32; n];
        div(kernel, &a, &b, &mut q);
        for i in 0..n {
            match kernel {
                true => assert!(q[i].is_nan(), "{what} (kernel): lane {i} is {}", q[i]),
                false => assert_eq!(q[i], a[i], "{what} (divider): lane {i}"),
            }
        }
        // Under round-down the quotients are the same infinities, none the kernel's NaN.
        let saved = read_mxcsr();
        write_mxcsr((saved & !RC) | DOWN);
        div(kernel, &a, &b, &mut q);
        write_mxcsr(saved);
        for i in 0..n {
            assert_eq!(
                q[i], a[i],
                "{what} (kernel {kernel}) under round-down: lane {i}"
            );
        }
        if recip_readable {
            let mut r = vec![0.0f32; n];
            recip(kernel, &near_all_ones, &mut r);
            for i in 0..n {
                let want = (black_box(1.0f32) / near_all_ones[i]).to_bits();
                let want = if kernel { want - 1 } else { want };
                assert_eq!(
                    r[i].to_bits(),
                    want,
                    "{what} (kernel {kernel}) recip: lane {i}"
                );
            }
        }
    }
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

    /// The token's choice, read lane by lane (see [`super::choice_shows_lane_by_lane`]).
    #[test]
    fn the_tokens_choice_shows_lane_by_lane() {
        use fmadiv::verify::{token_div_divisor_window_only, token_recip_published};
        let Some(simd) = token() else { return };
        let with = |kernel| fmadiv::verify::token_with_kernel(simd, kernel);
        super::choice_shows_lane_by_lane(
            "Avx2Fma",
            fmadiv::Backend::Avx2Fma,
            &|kernel, a, b, q| token_div_divisor_window_only(with(kernel), a, b, q),
            &|kernel, b, r| token_recip_published(with(kernel), b, r),
        );
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

    /// The sixteen-lane token's choice, read lane by lane (see
    /// [`super::choice_shows_lane_by_lane`]). Natively only, as the token.
    #[test]
    fn the_sixteen_lane_tokens_choice_shows_lane_by_lane() {
        use fmadiv::verify::{token16_div_divisor_window_only, token16_recip_published};
        let Some(simd) = Avx512::new() else {
            common::skipped_once("the Avx512 token (needs AVX-512F)");
            return;
        };
        super::choice_shows_lane_by_lane(
            "Avx512",
            fmadiv::Backend::Avx512,
            &|kernel, a, b, q| token16_div_divisor_window_only(simd.with_kernel(kernel), a, b, q),
            &|kernel, b, r| token16_recip_published(simd.with_kernel(kernel), b, r),
        );
    }
}
