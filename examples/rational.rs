//! A `wide` kernel that divides: tanh(x) by its [7/6] Padé approximant `p(x) / q(x)` over
//! 64K floats, written plainly with `wide`'s `/` and with fmadiv's token (the whole loop
//! compiled for AVX2+FMA by `vectorize`, the division inlined). Checks that both give the
//! same bits, then times them alternately.
//!
//! ```sh
//! cargo run --release --example rational
//! ```

use wide::f32x8;

const N: usize = 1 << 16;

/// `(p(x), q(x))` of the approximant (Horner in x², plain multiplies and adds: the same
/// bits in every build and context; Rust never fuses them).
#[inline(always)]
fn numerator_denominator(x: f32x8) -> (f32x8, f32x8) {
    let x2 = x * x;
    let p = x
        * (f32x8::splat(135_135.0)
            + x2 * (f32x8::splat(17_325.0) + x2 * (f32x8::splat(378.0) + x2)));
    let q = f32x8::splat(135_135.0)
        + x2 * (f32x8::splat(62_370.0) + x2 * (f32x8::splat(3_150.0) + x2 * f32x8::splat(28.0)));
    (p, q)
}

/// The plain loop: `wide`'s own `/`.
fn plain(x: &[f32x8], out: &mut [f32x8]) {
    for (o, &x) in out.iter_mut().zip(x) {
        let (p, q) = numerator_denominator(x);
        *o = p / q;
    }
}

/// The same loop through fmadiv's token, if this CPU has AVX2+FMA.
#[cfg(fmadiv_x86)]
fn with_token(simd: fmadiv::simd::Avx2Fma, x: &[f32x8], out: &mut [f32x8]) {
    simd.vectorize(|simd| {
        for (o, &x) in out.iter_mut().zip(x) {
            let (p, q) = numerator_denominator(x);
            *o = simd.div_f32x8(p, q);
        }
    });
}

fn main() {
    // x in [-4, 4), with both ends and the signed zeros.
    let mut xs: Vec<f32> = (0..N).map(|i| -4.0 + 8.0 * i as f32 / N as f32).collect();
    xs[1] = -0.0;
    xs[2] = 0.0;
    let x: Vec<f32x8> = xs
        .chunks_exact(8)
        .map(|c| f32x8::from(<[f32; 8]>::try_from(c).unwrap()))
        .collect();
    let mut want = vec![f32x8::ZERO; x.len()];
    plain(&x, &mut want);

    #[cfg(fmadiv_x86)]
    let Some(simd) = fmadiv::simd::Avx2Fma::new() else {
        println!("rational: this CPU lacks AVX2+FMA; the token is not available");
        return;
    };
    #[cfg(not(fmadiv_x86))]
    println!("rational: the token is x86-64 only");

    #[cfg(fmadiv_x86)]
    {
        let mut got = vec![f32x8::ZERO; x.len()];
        with_token(simd, &x, &mut got);
        let (w, g): (Vec<f32>, Vec<f32>) = (
            want.iter().flat_map(|v| v.to_array()).collect(),
            got.iter().flat_map(|v| v.to_array()).collect(),
        );
        for i in 0..N {
            assert_eq!(g[i].to_bits(), w[i].to_bits(), "tanh({}) differs", xs[i]);
        }
        // The approximant itself is good to ~1e-6 on [-1, 1]: a sanity check of the example.
        assert!((w[N / 2 + N / 16] - 0.5f32.tanh()).abs() < 1e-5);

        let rounds = 31;
        let (mut t_plain, mut t_token) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let mut run = |token: bool| {
                let t = std::time::Instant::now();
                if token {
                    with_token(
                        simd,
                        std::hint::black_box(&x),
                        std::hint::black_box(&mut got),
                    );
                } else {
                    plain(std::hint::black_box(&x), std::hint::black_box(&mut got));
                }
                t.elapsed().as_secs_f64()
            };
            let (a, b) = if round % 2 == 0 {
                (run(false), run(true))
            } else {
                let b = run(true);
                (run(false), b)
            };
            t_plain.push(a);
            t_token.push(b);
        }
        let mut ratios: Vec<f64> = t_plain.iter().zip(&t_token).map(|(p, t)| p / t).collect();
        ratios.sort_by(f64::total_cmp);
        t_plain.sort_by(f64::total_cmp);
        t_token.sort_by(f64::total_cmp);
        let per = |t: &[f64]| t[t.len() / 2] * 1e9 / N as f64;
        println!(
            "rational: tanh by a [7/6] Padé approximant over {N} floats, bits equal to the plain loop"
        );
        println!(
            "  plain wide loop {:.3} ns/float, token loop {:.3} ns/float (the token {}): \
             {:.2}x the plain loop (median of {rounds} alternating rounds; range {:.2}..{:.2})",
            per(&t_plain),
            per(&t_token),
            if simd.uses_kernel() {
                "divides by the FMA kernel"
            } else {
                "divides by vdivps"
            },
            ratios[rounds / 2],
            ratios[0],
            ratios[rounds - 1]
        );
    }
}
