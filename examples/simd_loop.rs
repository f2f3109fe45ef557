//! A SIMD user's loop: 512 `wide::f32x8` pairs (4096 normal inputs) divided one vector at
//! a time, written five ways, timed alternately in one process, bits checked against `/`.
//!
//! ```sh
//! cargo run --release --example simd_loop                                   # default build
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example simd_loop  # AVX2 at compile time
//! ```
//!
//! Prints each way's median time per vector and its ratio to `wide`'s own `/` (and, for
//! the token loop, to the same loop with `_mm256_div_ps`). `--rounds N` sets the rounds.

mod common;

use std::hint::black_box;
use std::time::Instant;

use wide::f32x8;

const VECTORS: usize = 512;

/// The ways to divide, each over the whole buffer.
type Way = fn(&[f32x8], &[f32x8], &mut [f32x8]);

fn wide_div(a: &[f32x8], b: &[f32x8], q: &mut [f32x8]) {
    for ((q, &x), &y) in q.iter_mut().zip(a).zip(b) {
        *q = x / y;
    }
}

fn fmadiv_div_f32x8(a: &[f32x8], b: &[f32x8], q: &mut [f32x8]) {
    for ((q, &x), &y) in q.iter_mut().zip(a).zip(b) {
        *q = fmadiv::div_f32x8(x, y);
    }
}

fn fmadiv_div_slices(a: &[f32x8], b: &[f32x8], q: &mut [f32x8]) {
    fmadiv::div(bytemuck_slice(a), bytemuck_slice(b), bytemuck_slice_mut(q));
}

#[cfg(fmadiv_x86)]
mod x86 {
    use core::arch::x86_64::{__m256, _mm256_div_ps};

    use fmadiv::simd::Avx2Fma;
    use wide::f32x8;

    pub fn token() -> Avx2Fma {
        *TOKEN.get_or_init(|| Avx2Fma::new().expect("this example needs AVX2+FMA"))
    }
    static TOKEN: std::sync::OnceLock<Avx2Fma> = std::sync::OnceLock::new();

    /// The user's loop inside `vectorize`, dividing with the token.
    pub fn token_loop(a: &[f32x8], b: &[f32x8], q: &mut [f32x8]) {
        let simd = token();
        simd.vectorize(|simd| {
            for ((q, &x), &y) in q.iter_mut().zip(a).zip(b) {
                *q = simd.div_f32x8(x, y);
            }
        });
    }

    /// The same loop inside `vectorize`, dividing with `_mm256_div_ps` directly.
    pub fn intrinsic_loop(a: &[f32x8], b: &[f32x8], q: &mut [f32x8]) {
        let simd = token();
        simd.vectorize(|_| {
            for ((q, &x), &y) in q.iter_mut().zip(a).zip(b) {
                let (x, y): (__m256, __m256) = (cast(x), cast(y));
                // SAFETY: the token proves AVX (the closure runs in an AVX2+FMA function,
                // but a closure does not inherit target features syntactically).
                *q = cast(unsafe { _mm256_div_ps(x, y) });
            }
        });
    }

    fn cast<A: Copy, B: Copy>(a: A) -> B {
        const { assert!(size_of::<A>() == size_of::<B>()) };
        // SAFETY: f32x8 and __m256 are eight f32 lanes in memory order, 32 bytes.
        unsafe { core::mem::transmute_copy(&a) }
    }
}

fn bytemuck_slice(v: &[f32x8]) -> &[f32] {
    // SAFETY: f32x8 is eight f32 in memory order (repr(C)); the slice covers 8·len floats.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), v.len() * 8) }
}

fn bytemuck_slice_mut(v: &mut [f32x8]) -> &mut [f32] {
    // SAFETY: as in `bytemuck_slice`, and the borrow is unique.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), v.len() * 8) }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip_while(|a| a != "--rounds")
        .nth(1)
        .map(|n| n.parse().expect("--rounds N"))
        .unwrap_or(41);
    // Normal inputs: random signs and mantissas, exponents within ±30.
    let mut normal = common::normal_values();
    let a: Vec<f32x8> = (0..VECTORS)
        .map(|_| f32x8::from([(); 8].map(|_| normal())))
        .collect();
    let b: Vec<f32x8> = (0..VECTORS)
        .map(|_| f32x8::from([(); 8].map(|_| normal())))
        .collect();

    #[cfg_attr(not(fmadiv_x86), allow(unused_mut))]
    let mut ways: Vec<(&str, Way)> = vec![
        ("wide's / (baseline)", wide_div),
        ("fmadiv::div_f32x8", fmadiv_div_f32x8),
        ("fmadiv::div on the slices", fmadiv_div_slices),
    ];
    #[cfg(fmadiv_x86)]
    if fmadiv::simd::Avx2Fma::new().is_some() {
        ways.push(("token loop (vectorize + div_f32x8)", x86::token_loop));
        ways.push(("same loop, _mm256_div_ps", x86::intrinsic_loop));
    }

    // Where the compiler made the two loops one function (it does in a native build: the
    // same instructions, merged), their ratio is the harness's noise of timing one
    // function against itself.
    if wide_div as Way as usize == fmadiv_div_f32x8 as Way as usize {
        println!(
            "wide's / and fmadiv::div_f32x8 compiled to one function here (the same machine \
             code): their ratio below is the timing's noise"
        );
    }

    // Bits first: every way against `/` lane by lane.
    let mut q = vec![f32x8::ZERO; VECTORS];
    for (name, way) in &ways {
        way(&a, &b, &mut q);
        for i in 0..VECTORS {
            let (x, y, got) = (a[i].to_array(), b[i].to_array(), q[i].to_array());
            for l in 0..8 {
                assert_eq!(got[l].to_bits(), (x[l] / y[l]).to_bits(), "{name}");
            }
        }
    }

    // Timing: rounds of every way, rotating the order; calls per sample fill ~20 µs.
    let calls = 32;
    let mut secs = vec![Vec::new(); ways.len()];
    for round in 0..rounds {
        for k in 0..ways.len() {
            let i = (k + round) % ways.len();
            let t = Instant::now();
            for _ in 0..calls {
                (ways[i].1)(black_box(&a), black_box(&b), black_box(&mut q));
            }
            secs[i].push(t.elapsed().as_secs_f64() / (calls * VECTORS) as f64);
        }
    }
    let ratios = |i: usize, base: usize| {
        let mut r: Vec<f64> = secs[base]
            .iter()
            .zip(&secs[i])
            .map(|(b, t)| b / t)
            .collect();
        let mut sorted = r.clone();
        sorted.sort_by(f64::total_cmp);
        (median(&mut r), sorted[0], sorted[sorted.len() - 1])
    };
    let cpu = common::cpu();
    let build = if cfg!(target_feature = "avx2") {
        "AVX2 at compile time"
    } else {
        "default build"
    };
    let json = std::env::args().any(|a| a == "--json");
    let rows: Vec<(&str, f64, (f64, f64, f64))> = ways
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (*name, median(&mut secs[i].clone()) * 1e9, ratios(i, 0)))
        .collect();
    let token = (ways.len() > 4).then(|| ratios(3, 4));
    if json {
        // One JSON object (hand-written: examples take no serialisation dependency).
        let rows: Vec<String> = rows
            .iter()
            .map(|(name, t, (m, lo, hi))| {
                format!(
                    r#"{{"way":"{name}","ns_per_vector":{t:.4},"vs_wide":{m:.4},"min":{lo:.4},"max":{hi:.4}}}"#
                )
            })
            .collect();
        let token = token.map_or("null".into(), |(m, lo, hi)| {
            format!(r#"{{"median":{m:.4},"min":{lo:.4},"max":{hi:.4}}}"#)
        });
        println!(
            r#"{{"example":"simd_loop","vectors":{VECTORS},"rounds":{rounds},"build":"{build}","cpu":"{cpu}","rows":[{}],"token_vs_intrinsic":{token}}}"#,
            rows.join(",")
        );
        return;
    }
    println!("simd_loop: {VECTORS} f32x8 pairs, {rounds} rounds, {build}, {cpu}");
    println!("plan: {}", fmadiv::plan());
    println!(
        "{:<38} {:>10} {:>26}",
        "way", "ns/vector", "vs wide's / (min..max)"
    );
    for (name, t, (m, lo, hi)) in &rows {
        println!("{name:<38} {t:>10.2} {m:>12.2}x ({lo:.2}..{hi:.2})");
    }
    if let Some((m, lo, hi)) = token {
        println!("token loop vs the same loop with _mm256_div_ps: {m:.2}x ({lo:.2}..{hi:.2})");
    }
}
