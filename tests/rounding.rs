//! Directed rounding: `div_rounded`, `div_bounds`, `Divisor::divide_rounded` and the
//! eight-lane forms give the bits of `vdivps` under each MXCSR rounding mode, on Berkeley
//! TestFloat's level-1 `f32_div` vectors of all four modes (`tests/data/f32_div-level1.txt`),
//! edge values, powers of two and random bit patterns; the portable path too; and a step
//! weakened on purpose is caught.

mod common;

#[cfg(fmadiv_x86)]
use common::{SplitMix64, edge_pairs};
#[cfg(fmadiv_x86)]
use fmadiv::verify::DirectedStep;
use fmadiv::{Divisor, Rounding};

/// The TestFloat vectors: inputs and the expected quotient in each mode of
/// [`Rounding::ALL`] (nearest, down, up, toward zero).
struct Vectors {
    a: Vec<f32>,
    b: Vec<f32>,
    want: [Vec<f32>; 4],
}

fn testfloat() -> Vectors {
    let text = include_str!("data/f32_div-level1.txt");
    let mut v = Vectors {
        a: Vec::new(),
        b: Vec::new(),
        want: Default::default(),
    };
    let hex = |w: &str| f32::from_bits(u32::from_str_radix(w, 16).unwrap());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(w.len(), 6, "{line}");
        v.a.push(hex(w[0]));
        v.b.push(hex(w[1]));
        for (k, want) in v.want.iter_mut().enumerate() {
            want.push(hex(w[2 + k]));
        }
    }
    assert_eq!(v.a.len(), 46_464);
    v
}

/// The index of `mode` in [`Rounding::ALL`].
fn index(mode: Rounding) -> usize {
    Rounding::ALL.iter().position(|&m| m == mode).unwrap()
}

/// The first pair whose result differs, described.
fn first_difference(what: &str, a: &[f32], b: &[f32], got: &[f32], want: &[f32]) -> Option<String> {
    (0..got.len())
        .find(|&i| got[i].to_bits() != want[i].to_bits())
        .map(|i| {
            format!(
                "{what}: {:#010x} / {:#010x}: got {:#010x}, want {:#010x}",
                a[i].to_bits(),
                b[i].to_bits(),
                got[i].to_bits(),
                want[i].to_bits()
            )
        })
}

/// How many of `got`'s bit patterns differ from `want`'s.
#[cfg(fmadiv_x86)]
fn mismatches(got: &[f32], want: &[f32]) -> usize {
    got.iter()
        .zip(want)
        .filter(|(g, w)| g.to_bits() != w.to_bits())
        .count()
}

/// Every way in to the directed functions, on `a`, `b`, in `mode`: (name, results).
fn every_entry_point(a: &[f32], b: &[f32], mode: Rounding) -> Vec<(String, Vec<f32>)> {
    let n = a.len();
    let mut results = Vec::new();
    let mut out = vec![0.0f32; n];
    fmadiv::div_rounded(a, b, &mut out, mode);
    results.push(("div_rounded".to_string(), out.clone()));
    // Every length up to 40 from every offset up to 8, and a slice that ends off a block.
    let mut pieces = vec![0.0f32; n];
    let mut i = 0;
    let mut len = 0;
    while i < n {
        let m = (len % 41).min(n - i);
        let (x, y) = (&a[i..i + m], &b[i..i + m]);
        fmadiv::div_rounded(x, y, &mut pieces[i..i + m], mode);
        i += m;
        len += 7;
    }
    results.push(("div_rounded in pieces of 0..=40".to_string(), pieces));
    // One pass under the mode from 256 elements: pieces just past that, with every tail.
    let mut pieces = vec![0.0f32; n];
    let (mut i, mut len) = (0, 0);
    while i < n {
        let m = (256 + len % 16).min(n - i);
        fmadiv::div_rounded(&a[i..i + m], &b[i..i + m], &mut pieces[i..i + m], mode);
        i += m;
        len += 3;
    }
    results.push(("div_rounded in pieces of 256..=271".to_string(), pieces));
    let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
    fmadiv::div_bounds(a, b, &mut lo, &mut hi);
    match mode {
        Rounding::Down => results.push(("div_bounds lo".to_string(), lo)),
        Rounding::Up => results.push(("div_bounds hi".to_string(), hi)),
        _ => {}
    }
    let one: Vec<f32> = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| Divisor::new(y).divide_rounded(x, mode))
        .collect();
    results.push(("Divisor::divide_rounded".to_string(), one));
    let eight = |v: &[f32], k: usize| {
        wide::f32x8::from(<[f32; 8]>::try_from(&v[8 * k..8 * k + 8]).unwrap())
    };
    let free: Vec<f32> = (0..n / 8)
        .flat_map(|k| fmadiv::simd::div_rounded_f32x8(eight(a, k), eight(b, k), mode).to_array())
        .collect();
    results.push(("simd::div_rounded_f32x8".to_string(), free));
    let sixteen = |v: &[f32], k: usize| {
        wide::f32x16::from(<[f32; 16]>::try_from(&v[16 * k..16 * k + 16]).unwrap())
    };
    let free16: Vec<f32> = (0..n / 16)
        .flat_map(|k| {
            let (x, y) = (sixteen(a, k), sixteen(b, k));
            match mode {
                Rounding::Down => fmadiv::simd::div_bounds_f32x16(x, y).0,
                Rounding::Up => fmadiv::simd::div_bounds_f32x16(x, y).1,
                _ => fmadiv::simd::div_rounded_f32x16(x, y, mode),
            }
            .to_array()
        })
        .collect();
    results.push((
        "simd::div_rounded_f32x16 / div_bounds_f32x16".to_string(),
        free16,
    ));
    #[cfg(fmadiv_x86)]
    if let Some(simd) = fmadiv::simd::Avx2Fma::new() {
        let token: Vec<f32> = simd.vectorize(|s| {
            (0..n / 8)
                .flat_map(|k| {
                    let (x, y) = (eight(a, k), eight(b, k));
                    match mode {
                        Rounding::Down => s.div_bounds_f32x8(x, y).0,
                        Rounding::Up => s.div_bounds_f32x8(x, y).1,
                        _ => s.div_rounded_f32x8(x, y, mode),
                    }
                    .to_array()
                })
                .collect()
        });
        results.push(("the token's directed methods".to_string(), token));
    }
    let software: Vec<f32> = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| fmadiv::verify::portable::div_rounded_one(x, y, mode))
        .collect();
    results.push(("the portable software path".to_string(), software));
    results
}

/// Compares every entry point with `want` (the whole of `a`, or its first whole vectors).
fn check_all(what: &str, a: &[f32], b: &[f32], mode: Rounding, want: &[f32]) -> Vec<String> {
    every_entry_point(a, b, mode)
        .into_iter()
        .filter_map(|(name, got)| {
            let n = got.len();
            first_difference(
                &format!("{what}, {mode}, {name}"),
                &a[..n],
                &b[..n],
                &got,
                &want[..n],
            )
        })
        .collect()
}

#[test]
fn testfloat_level_1_in_every_mode() {
    let v = testfloat();
    let mut failures = Vec::new();
    for mode in Rounding::ALL {
        let want = &v.want[index(mode)];
        // TestFloat agrees with the hardware under that mode (the hardware stays the
        // reference: the two are independent).
        #[cfg(fmadiv_x86)]
        failures.extend(first_difference(
            &format!("vdivps under {mode} against TestFloat"),
            &v.a,
            &v.b,
            &fmadiv_verify::mxcsr::divide_in_mode(&v.a, &v.b, mode),
            want,
        ));
        failures.extend(check_all("TestFloat", &v.a, &v.b, mode, want));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Edge values against each other, exact quotients (powers of two), and random bit
/// patterns, against the hardware under each mode (on x86; elsewhere the portable path is
/// the library's, checked against TestFloat above).
#[cfg(fmadiv_x86)]
#[test]
fn edges_powers_of_two_and_random_bits_in_every_mode() {
    let (mut a, mut b) = edge_pairs();
    let mut rng = SplitMix64(common::seed());
    for _ in 0..300_000 {
        let r = rng.next_u64();
        a.push(f32::from_bits(r as u32));
        b.push(f32::from_bits((r >> 32) as u32));
        // Exact quotients: a normal dividend over ± a power of two.
        a.push(f32::from_bits(
            r as u32 & 0x807f_ffff | (64 + (r >> 40) as u32 % 128) << 23,
        ));
        b.push(f32::from_bits(
            (r >> 32) as u32 & 0x8000_0000 | (64 + (r >> 48) as u32 % 128) << 23,
        ));
    }
    let mut failures = Vec::new();
    for mode in Rounding::ALL {
        let want = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, mode);
        failures.extend(check_all(
            "edges, powers of two, random bits",
            &a,
            &b,
            mode,
            &want,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The directed step with the divisor's sign ignored (wrong for negative divisors) is
/// caught: on random normal pairs it disagrees with the hardware, in every directed mode.
#[cfg(fmadiv_x86)]
#[test]
fn a_step_that_ignores_the_divisors_sign_is_caught() {
    let mut rng = SplitMix64(common::seed());
    let n = 4096;
    let normal =
        |r: u64| f32::from_bits((r as u32 & 0x807f_ffff) | (100 + (r >> 32) as u32 % 50) << 23);
    let a: Vec<f32> = (0..n).map(|_| normal(rng.next_u64())).collect();
    let b: Vec<f32> = (0..n).map(|_| normal(rng.next_u64())).collect();
    for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
        let want = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, mode);
        let mut out = vec![0.0f32; n];
        if fmadiv::verify::div_rounded_with(
            DirectedStep::DivisorSignIgnored,
            &a,
            &b,
            &mut out,
            mode,
        )
        .is_none()
        {
            common::skipped_once("the weakened directed step (needs AVX2+FMA)");
            return;
        }
        let wrong = mismatches(&out, &want);
        assert!(
            wrong > n / 8,
            "{mode}: the weakened step is wrong only {wrong} times"
        );
        fmadiv::verify::div_rounded_with(DirectedStep::Shipped, &a, &b, &mut out, mode).unwrap();
        assert!(first_difference("shipped", &a, &b, &out, &want).is_none());
    }
}

/// The flag-checked chunks keep every lane of a chunk that raised no underflow, overflow or
/// invalid flag, with no window check: quotients that raise none must come out right from
/// the step itself, in every mode, through every entry point and through the directed loop
/// itself (`div_rounded` and the mixed directed loop's fallback run one pass under the mode
/// from 256 elements instead, so only `div_bounds` and the forced loop of
/// `fmadiv::verify::div_rounded_with` reach the chunks); chunks with quotients that
/// underflow inexactly must go to the divider under the mode. A loop that kept those
/// chunks despite the underflow flag is caught in every directed mode.
#[cfg(fmadiv_x86)]
#[test]
fn flag_checked_chunks_keep_only_what_the_flags_prove() {
    let (a, b) = common::flag_chunk_pairs();
    let mut failures = Vec::new();
    for mode in Rounding::ALL {
        let want = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, mode);
        failures.extend(check_all("quiet specials, underflows", &a, &b, mode, &want));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
        let want = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, mode);
        // The directed loop itself (above, `div_rounded` ran one pass under the mode): the
        // shipped step must be right in the chunks...
        let Some(out) = rounded_on_a_new_thread(DirectedStep::Shipped, &a, &b, mode) else {
            common::skipped_once("the directed loop's chunks (needs AVX2+FMA)");
            return;
        };
        failures.extend(first_difference(
            &format!("the directed loop, {mode}"),
            &a,
            &b,
            &out,
            &want,
        ));
        // ...and a loop that keeps chunks despite the underflow flag is caught.
        let out = rounded_on_a_new_thread(DirectedStep::UnderflowIgnored, &a, &b, mode).unwrap();
        let wrong = mismatches(&out, &want);
        assert!(
            wrong > 0,
            "{mode}: ignoring the underflow flag went unnoticed"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `fmadiv::verify::div_rounded_with(step, ..)` on a thread of its own: calls before it
/// leave their thread's back-off sending chunks straight to the divider, which would hide
/// what the step does in the chunks. `None` without the directed loop.
#[cfg(fmadiv_x86)]
fn rounded_on_a_new_thread(
    step: DirectedStep,
    a: &[f32],
    b: &[f32],
    mode: Rounding,
) -> Option<Vec<f32>> {
    let (a, b) = (a.to_vec(), b.to_vec());
    std::thread::spawn(move || {
        let mut out = vec![0.0f32; a.len()];
        fmadiv::verify::div_rounded_with(step, &a, &b, &mut out, mode).map(|()| out)
    })
    .join()
    .unwrap()
}

#[test]
fn length_mismatches_panic_and_write_nothing() {
    let mut out = [7.0f32; 2];
    let r = std::panic::catch_unwind(move || {
        fmadiv::div_rounded(&[1.0], &[2.0, 3.0], &mut out, Rounding::Down);
        out
    });
    assert!(r.is_err());
    let (mut lo, mut hi) = ([7.0f32; 2], [7.0f32; 3]);
    let r = std::panic::catch_unwind(move || {
        fmadiv::div_bounds(&[1.0, 1.0], &[2.0, 3.0], &mut lo, &mut hi);
        (lo, hi)
    });
    assert!(r.is_err());
}

/// The sixteen-lane free functions on in-window pairs (every lane inside the step's window,
/// so the step, not the divider, gives their bits), in every directed mode.
#[cfg(fmadiv_x86)]
#[test]
fn sixteen_lane_free_functions_on_in_window_pairs() {
    use wide::f32x16;
    let mut rng = SplitMix64(common::seed());
    let n = 16 * 256;
    let normal =
        |r: u64| f32::from_bits((r as u32 & 0x807f_ffff) | (100 + (r >> 32) as u32 % 50) << 23);
    let a: Vec<f32> = (0..n).map(|_| normal(rng.next_u64())).collect();
    let b: Vec<f32> = (0..n).map(|_| normal(rng.next_u64())).collect();
    let sixteen =
        |v: &[f32], k: usize| f32x16::from(<[f32; 16]>::try_from(&v[16 * k..16 * k + 16]).unwrap());
    for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
        let want = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, mode);
        let got: Vec<f32> = (0..n / 16)
            .flat_map(|k| {
                let (x, y) = (sixteen(&a, k), sixteen(&b, k));
                let (lo, hi) = fmadiv::simd::div_bounds_f32x16(x, y);
                let one = fmadiv::simd::div_rounded_f32x16(x, y, mode);
                let bound = if mode == Rounding::Up { hi } else { lo };
                if mode != Rounding::TowardZero {
                    assert_eq!(
                        one.to_array().map(f32::to_bits),
                        bound.to_array().map(f32::to_bits)
                    );
                }
                one.to_array()
            })
            .collect();
        let wrong = first_difference(&format!("in-window pairs, {mode}"), &a, &b, &got, &want);
        assert!(wrong.is_none(), "{wrong:?}");
    }
}
