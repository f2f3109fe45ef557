//! Foreign floating-point state: every MXCSR rounding mode with every flush-to-zero /
//! denormals-are-zero combination (16 in all).
//!
//! C and Fortran callers set MXCSR's rounding mode with `fesetround`, and libraries built
//! with fast-math set FTZ and DAZ. Every entry point must give the bits `vdivps` gives under
//! the MXCSR in force; the directed functions (`div_rounded`, `div_bounds`) the bits of
//! `vdivps` with the rounding field set to their mode, FTZ and DAZ as they are. Rust assumes
//! the default environment, so this test keeps the change contained: it sets MXCSR, calls
//! non-inlined functions that do all the arithmetic (the results and the hardware's
//! reference, both under the same MXCSR), restores MXCSR, and only then compares.
#![cfg(fmadiv_x86)]

mod common;

use std::hint::black_box;

use common::{ALL_FLAGS, SplitMix64, edge_pairs, edge_values, flags_of, read_mxcsr, write_mxcsr};
use fmadiv::{Divisor, Rounding, Schedule};

/// Flush-to-zero: tiny results become zero.
const FTZ: u32 = 1 << 15;
/// Denormals-are-zero: subnormal inputs read as zero.
const DAZ: u32 = 1 << 6;
/// The rounding-control field.
const RC: u32 = 0b11 << 13;
/// MXCSR's exception flags, one by one.
const INVALID: u32 = 1 << 0;
const DENORMAL: u32 = 1 << 1;
const OVERFLOW: u32 = 1 << 3;
const UNDERFLOW: u32 = 1 << 4;
const INEXACT: u32 = 1 << 5;

/// `vdivps` over slices under the MXCSR in force: the reference (non-inlined, so that it
/// runs where MXCSR is set).
#[inline(never)]
fn hardware(a: &[f32], b: &[f32]) -> Vec<f32> {
    #[target_feature(enable = "avx")]
    fn run(a: &[f32], b: &[f32], out: &mut [f32]) {
        use core::arch::x86_64::*;
        for ((o, x), y) in out.chunks_mut(8).zip(a.chunks(8)).zip(b.chunks(8)) {
            let (mut tx, mut ty) = ([1.0f32; 8], [1.0f32; 8]);
            tx[..x.len()].copy_from_slice(x);
            ty[..y.len()].copy_from_slice(y);
            let mut q = [0.0f32; 8];
            // SAFETY: the three arrays hold eight floats each.
            unsafe {
                let v = _mm256_div_ps(_mm256_loadu_ps(tx.as_ptr()), _mm256_loadu_ps(ty.as_ptr()));
                _mm256_storeu_ps(q.as_mut_ptr(), v);
            }
            o.copy_from_slice(&q[..o.len()]);
        }
    }
    let mut out = vec![0.0f32; a.len()];
    // SAFETY: AVX is present (the test returns early without AVX2).
    unsafe { run(black_box(a), black_box(b), &mut out) };
    out
}

/// Every entry point's results on `a`, `b` (and by the scalars `divisors`), computed in one
/// go under the MXCSR in force, each with its reference: (name, results, reference).
#[inline(never)]
fn compute(
    a: &[f32],
    b: &[f32],
    divisors: &[f32],
    made_before: &[Divisor],
) -> Vec<(String, Vec<f32>, Vec<f32>)> {
    let (a, b) = (black_box(a), black_box(b));
    let n = a.len();
    let want = hardware(a, b);
    let ones = vec![1.0f32; n];
    let want_recip = hardware(&ones, b);
    let mut rows = Vec::new();
    let mut push =
        |name: &str, got: Vec<f32>, want: &[f32]| rows.push((name.to_string(), got, want.to_vec()));

    let mut out = vec![0.0f32; n];
    fmadiv::div(a, b, &mut out);
    push("div", out.clone(), &want);
    fmadiv::try_div(a, b, &mut out).unwrap();
    push("try_div", out.clone(), &want);
    fmadiv::par_div(a, b, &mut out);
    push("par_div", out.clone(), &want);
    let mut x = a.to_vec();
    fmadiv::div_in_place(&mut x, b);
    push("div_in_place", x, &want);
    let mut x = a.to_vec();
    fmadiv::par_div_in_place(&mut x, b);
    push("par_div_in_place", x, &want);
    fmadiv::recip(b, &mut out);
    push("recip", out.clone(), &want_recip);
    fmadiv::par_recip(b, &mut out);
    push("par_recip", out.clone(), &want_recip);
    let mut y = b.to_vec();
    fmadiv::recip_in_place(&mut y);
    push("recip_in_place", y, &want_recip);
    let mut y = b.to_vec();
    fmadiv::par_recip_in_place(&mut y);
    push("par_recip_in_place", y, &want_recip);
    for s in Schedule::ALL {
        if fmadiv::verify::run_schedule(s, Some(a), b, &mut out).is_some() {
            push(&format!("schedule {}", s.name()), out.clone(), &want);
            fmadiv::verify::run_schedule(s, None, b, &mut out).unwrap();
            push(
                &format!("recip schedule {}", s.name()),
                out.clone(),
                &want_recip,
            );
            let mut x = a.to_vec();
            fmadiv::verify::run_schedule_in_place(s, &mut x, b).unwrap();
            push(&format!("in place schedule {}", s.name()), x, &want);
            let mut y = b.to_vec();
            fmadiv::verify::run_recip_schedule_in_place(s, &mut y).unwrap();
            push(
                &format!("in place recip schedule {}", s.name()),
                y,
                &want_recip,
            );
        }
    }
    #[cfg(feature = "ndarray")]
    {
        let (x, y) = in_window_pairs(a, b);
        let ones = vec![1.0f32; y.len()];
        let wants = [hardware(&x, &y), hardware(&ones, &y)];
        ndarray_layouts(&x, &y, &wants, &mut push);
    }
    let whole = n / 8 * 8;
    let eight = |v: &[f32], k: usize| {
        wide::f32x8::from(<[f32; 8]>::try_from(&v[8 * k..8 * k + 8]).unwrap())
    };
    let free: Vec<f32> = (0..whole / 8)
        .flat_map(|k| fmadiv::div_f32x8(eight(a, k), eight(b, k)).to_array())
        .collect();
    push("div_f32x8", free, &want[..whole]);
    if let Some(simd) = fmadiv::simd::Avx2Fma::new() {
        // Both tokens: the divider's and the kernel's (which must fall back to the divider
        // under a mode other than to nearest).
        for kernel in [false, true] {
            let t = fmadiv::verify::token_with_kernel(simd, kernel);
            let q: Vec<f32> = t.vectorize(|s| {
                (0..whole / 8)
                    .flat_map(|k| s.div_f32x8(eight(a, k), eight(b, k)).to_array())
                    .collect()
            });
            push(
                &format!("token (kernel {kernel}) vectorize div_f32x8"),
                q,
                &want[..whole],
            );
            let r: Vec<f32> = t.vectorize(|s| {
                (0..whole / 8)
                    .flat_map(|k| s.recip_f32x8(eight(b, k)).to_array())
                    .collect()
            });
            push(
                &format!("token (kernel {kernel}) vectorize recip_f32x8"),
                r,
                &want_recip[..whole],
            );
            let q: Vec<f32> = (0..whole / 8)
                .flat_map(|k| t.div_f32x8(eight(a, k), eight(b, k)).to_array())
                .collect();
            push(
                &format!("token (kernel {kernel}) div_f32x8 outside vectorize"),
                q,
                &want[..whole],
            );
        }
    }
    for (&y, before) in divisors.iter().zip(made_before) {
        let ys = vec![y; n];
        let want_by = hardware(a, &ys);
        let d = Divisor::new(black_box(y));
        // A first slice, then a reused divisor (the proof made, under this mode or not).
        for pass in ["first slice", "reused"] {
            d.divide_slice(a, &mut out);
            push(&format!("Divisor({y:e}) {pass}"), out.clone(), &want_by);
        }
        before.divide_slice(a, &mut out);
        push(
            &format!("Divisor({y:e}) proven before"),
            out.clone(),
            &want_by,
        );
        let mut x = a.to_vec();
        before.divide_in_place(&mut x);
        push(
            &format!("Divisor({y:e}) proven before, in place"),
            x,
            &want_by,
        );
        let mut x = a.to_vec();
        Divisor::new(y).divide_in_place(&mut x);
        push(&format!("Divisor({y:e}) in place"), x, &want_by);
        fmadiv::div_scalar(a, y, &mut out);
        push(&format!("div_scalar({y:e})"), out.clone(), &want_by);
        let one: Vec<f32> = a.iter().map(|&x| x / before).collect();
        push(
            &format!("f32 / Divisor({y:e}) proven before"),
            one,
            &want_by,
        );
        let one: Vec<f32> = a.iter().map(|&x| d.divide(x)).collect();
        push(&format!("Divisor({y:e})::divide"), one, &want_by);
        let eights: Vec<f32> = (0..whole / 8)
            .flat_map(|k| (eight(a, k) / before).to_array())
            .collect();
        push(
            &format!("f32x8 / Divisor({y:e}) proven before"),
            eights,
            &want_by[..whole],
        );
    }
    rows
}

/// The pairs whose operands are both inside the kernel's window, in order: data on which the
/// kernel runs (under the default mode) block after block, not only the divider.
fn in_window_pairs(a: &[f32], b: &[f32]) -> (Vec<f32>, Vec<f32>) {
    a.iter()
        .zip(b)
        .filter(|&(&x, &y)| inside_window(x) && inside_window(y))
        .unzip()
}

/// `fmadiv::ndarray` over the first `ROWS`×`COLUMNS` pairs as a matrix (`wants`: their
/// quotients and the divisors' reciprocals by the hardware) in each layout that takes a
/// path of its own (one flat division, Fortran order, a transposed divisor's tiles, views
/// with steps a piece at a time, into a strided output, in place, short rows a group at a
/// time, contiguous or a few columns of a wider matrix; reciprocals flat, with steps, into
/// a strided output and in place: flat, with steps, short rows of a wider matrix), under the
/// MXCSR in force: each result in row-major order, the
/// pairs' order. Skipped for fewer pairs.
#[cfg(feature = "ndarray")]
fn ndarray_layouts(
    a: &[f32],
    b: &[f32],
    [want, want_recip]: &[Vec<f32>; 2],
    push: &mut impl FnMut(&str, Vec<f32>, &[f32]),
) {
    use fmadiv::ndarray::{div, div_assign, div_to, recip, recip_assign, recip_to};
    use ndarray::{Array2, ShapeBuilder, s};
    // Lanes longer than a gathered piece (256) and several tiles (64 by 64) each way; few
    // enough for an unoptimised build's data.
    const ROWS: usize = 70;
    const COLUMNS: usize = 300;
    let m = ROWS * COLUMNS;
    if a.len() < m {
        return;
    }
    let matrix = |v: &[f32]| Array2::from_shape_vec((ROWS, COLUMNS), v[..m].to_vec()).unwrap();
    let (x, y) = (matrix(a), matrix(b));
    let fortran = |v: &Array2<f32>| {
        let mut f = Array2::zeros((ROWS, COLUMNS).f());
        f.assign(v);
        f
    };
    // Every other row's every third element holds the matrix.
    let spaced = |v: &Array2<f32>| {
        let mut w = Array2::zeros((2 * ROWS, 3 * COLUMNS));
        w.slice_mut(s![..;2, ..;3]).assign(v);
        w
    };
    let order = |q: &Array2<f32>| q.iter().copied().collect::<Vec<f32>>();
    let (want, want_recip) = (&want[..m], &want_recip[..m]);
    push("ndarray div", order(&div(&x, &y)), want);
    let (xf, yf) = (fortran(&x), fortran(&y));
    push("ndarray div, Fortran order", order(&div(&xf, &yf)), want);
    push(
        "ndarray div by a transposed divisor",
        order(&div(&x, &yf)),
        want,
    );
    let (xs, ys) = (spaced(&x), spaced(&y));
    let (xv, yv) = (xs.slice(s![..;2, ..;3]), ys.slice(s![..;2, ..;3]));
    push("ndarray div, views with steps", order(&div(&xv, &yv)), want);
    push("ndarray recip", order(&recip(&y)), want_recip);
    push(
        "ndarray recip, a view with steps",
        order(&recip(&yv)),
        want_recip,
    );
    let mut out = Array2::zeros((2 * ROWS, 3 * COLUMNS));
    recip_to(&y, &mut out.slice_mut(s![..;2, ..;3])).unwrap();
    let r = out.slice(s![..;2, ..;3]).to_owned();
    push(
        "ndarray recip_to into a view with steps",
        order(&r),
        want_recip,
    );
    let mut z = y.clone();
    recip_assign(&mut z);
    push("ndarray recip_assign", order(&z), want_recip);
    let mut z = ys.clone();
    recip_assign(&mut z.slice_mut(s![..;2, ..;3]));
    let r = z.slice(s![..;2, ..;3]).to_owned();
    push(
        "ndarray recip_assign, a view with steps",
        order(&r),
        want_recip,
    );
    let mut out = Array2::zeros((2 * ROWS, 3 * COLUMNS));
    div_to(&x, &y, &mut out.slice_mut(s![..;2, ..;3])).unwrap();
    let q = out.slice(s![..;2, ..;3]).to_owned();
    push("ndarray div_to into a view with steps", order(&q), want);
    let mut z = xs.clone();
    div_assign(&mut z.slice_mut(s![..;2, ..;3]), &yv).unwrap();
    let q = z.slice(s![..;2, ..;3]).to_owned();
    push("ndarray div_assign, views with steps", order(&q), want);
    let mut z = x.clone();
    div_assign(&mut z, &yf).unwrap();
    push(
        "ndarray div_assign by a transposed divisor",
        order(&z),
        want,
    );
    // Short rows (of 6), the divisors a Fortran-order copy (gathered row by row): a group
    // of whole rows at a time.
    let short = |v: &[f32]| Array2::from_shape_vec((m / 6, 6), v[..m].to_vec()).unwrap();
    let (xr, yr) = (short(a), short(b));
    let mut yrf = Array2::zeros((m / 6, 6).f());
    yrf.assign(&yr);
    push("ndarray div, short rows", order(&div(&xr, &yrf)), want);
    let mut z = xr.clone();
    div_assign(&mut z, &yrf).unwrap();
    push("ndarray div_assign, short rows", order(&z), want);
    // The same rows as six columns of a wider matrix (rows gathered, quotients written back
    // row by row).
    let mut wider = Array2::zeros((m / 6, 9));
    wider.slice_mut(s![.., 2..8]).assign(&xr);
    let xc = wider.slice(s![.., 2..8]);
    push(
        "ndarray div, short rows of a wider matrix",
        order(&div(&xc, &yrf)),
        want,
    );
    let mut out = Array2::zeros((m / 6, 9));
    div_to(&xc, &yrf, &mut out.slice_mut(s![.., 1..7])).unwrap();
    let q = out.slice(s![.., 1..7]).to_owned();
    push(
        "ndarray div_to into short rows of a wider matrix",
        order(&q),
        want,
    );
    let mut z = wider.clone();
    div_assign(&mut z.slice_mut(s![.., 2..8]), &yrf).unwrap();
    let q = z.slice(s![.., 2..8]).to_owned();
    push(
        "ndarray div_assign, short rows of a wider matrix",
        order(&q),
        want,
    );
    let mut z = Array2::zeros((m / 6, 9));
    z.slice_mut(s![.., 2..8]).assign(&yr);
    recip_assign(&mut z.slice_mut(s![.., 2..8]));
    let r = z.slice(s![.., 2..8]).to_owned();
    push(
        "ndarray recip_assign, short rows of a wider matrix",
        order(&r),
        want_recip,
    );
}

/// The directed functions under the MXCSR in force, and their references: `vdivps` with the
/// rounding field set to each mode (FTZ and DAZ as they are), computed by the caller.
#[inline(never)]
fn compute_directed(a: &[f32], b: &[f32]) -> Vec<(Rounding, String, Vec<f32>)> {
    let (a, b) = (black_box(a), black_box(b));
    let n = a.len();
    let mut rows = Vec::new();
    for mode in Rounding::ALL {
        let mut out = vec![0.0f32; n];
        fmadiv::div_rounded(a, b, &mut out, mode);
        rows.push((mode, "div_rounded".to_string(), out));
        let d: Vec<f32> = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| Divisor::new(y).divide_rounded(x, mode))
            .collect();
        rows.push((mode, "Divisor::divide_rounded".to_string(), d));
    }
    let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
    fmadiv::div_bounds(a, b, &mut lo, &mut hi);
    rows.push((Rounding::Down, "div_bounds lo".to_string(), lo));
    rows.push((Rounding::Up, "div_bounds hi".to_string(), hi));
    rows
}

/// Every caller mode: the rounding field (0 to 3), MXCSR `original` with FTZ and DAZ set as
/// the mode says and no rounding field, and the mode's name.
fn caller_modes(original: u32) -> impl Iterator<Item = (u32, u32, String)> {
    let ftz_daz = [
        ("", 0),
        (" FTZ", FTZ),
        (" DAZ", DAZ),
        (" FTZ+DAZ", FTZ | DAZ),
    ];
    (0..4u32).flat_map(move |rc| {
        ftz_daz.into_iter().map(move |(flags, bits)| {
            let under = format!("{}{flags}", Rounding::from_control(rc as u8));
            (rc, (original & !(FTZ | DAZ | RC)) | bits, under)
        })
    })
}

/// The directed functions under MXCSR `base` with rounding field `rc` against `vdivps`
/// under each mode with `base`'s FTZ and DAZ: the first mismatch of each function. MXCSR
/// is as it was afterwards.
fn directed_against_hardware(a: &[f32], b: &[f32], base: u32, rc: u32, under: &str) -> Vec<String> {
    let original = read_mxcsr();
    write_mxcsr(base | rc << 13);
    let directed = compute_directed(a, b);
    let references: Vec<Vec<f32>> = (0..4u32)
        .map(|m| {
            write_mxcsr(base | m << 13);
            hardware(a, b)
        })
        .collect();
    write_mxcsr(original);
    directed
        .iter()
        .filter_map(|(m, name, got)| {
            let want = &references[m.control() as usize];
            first_difference(&format!("{name} ({m}) under {under}"), a, b, got, want)
        })
        .collect()
}

fn first_difference(what: &str, a: &[f32], b: &[f32], got: &[f32], want: &[f32]) -> Option<String> {
    (0..got.len())
        .find(|&i| got[i].to_bits() != want[i].to_bits())
        .map(|i| {
            format!(
                "{what}: {:#010x} / {:#010x}: got {:#010x}, hardware {:#010x}",
                a[i].to_bits(),
                b[i].to_bits(),
                got[i].to_bits(),
                want[i].to_bits()
            )
        })
}

#[test]
fn same_bits_as_the_hardware_under_every_rounding_mode_and_ftz_daz() {
    if fmadiv::verify::x86::Avx2Fma::new().is_none() {
        common::skipped_once("the MXCSR test (needs AVX2+FMA)");
        return;
    }
    let (mut a, mut b) = edge_pairs();
    // Random bit patterns, quotients near the subnormal range, exact quotients (powers of
    // two), and normal pairs (the kernels' fast paths).
    let mut rng = SplitMix64(common::seed());
    // A tenth of them in an unoptimised build (CI's opt-level-0 run, which is there for the
    // debug build's code paths: 79 s for this test with all of them on family 0x19).
    let rounds = if cfg!(debug_assertions) {
        5_000
    } else {
        50_000
    };
    for _ in 0..rounds {
        let r = rng.next_u64();
        a.push(f32::from_bits(r as u32));
        b.push(f32::from_bits((r >> 32) as u32));
        let ea = 1 + (r >> 8) as u32 % 40;
        let eb = 100 + (r >> 16) as u32 % 60;
        a.push(f32::from_bits((r as u32 & 0x807f_ffff) | ea << 23));
        b.push(f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | eb << 23));
        a.push(f32::from_bits(
            r as u32 & 0x807f_ffff | (64 + (r >> 40) as u32 % 128) << 23,
        ));
        b.push(f32::from_bits(
            (r >> 32) as u32 & 0x8000_0000 | (64 + (r >> 48) as u32 % 128) << 23,
        ));
        for _ in 0..5 {
            let r = rng.next_u64();
            a.push(f32::from_bits(
                (r as u32 & 0x807f_ffff) | (97 + (r >> 24) as u32 % 61) << 23,
            ));
            b.push(f32::from_bits(
                ((r >> 32) as u32 & 0x807f_ffff) | (97 + (r >> 56) as u32 % 61) << 23,
            ));
        }
    }
    a.truncate(a.len() / 32 * 32 + 13);
    b.truncate(a.len());
    let divisors = [
        3.0f32,
        -3.0,
        1.1,
        0.1,
        4.0,
        2f32.powi(127),
        2f32.powi(-126),
        f32::from_bits(0x3f9f_0237),
        1.5e38,
        f32::from_bits(0x00ff_ffff),
        1e-39,
        // A subnormal power of two: its reciprocal 2^127 is exact, but DAZ reads it as zero.
        f32::from_bits(0x0040_0000),
    ];
    let failures = under_every_mode(&a, &b, &divisors);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every entry point over `a` and `b`, and every `Divisor` form over `a` by each of
/// `divisors` (made under the mode and made before it), under each of the sixteen caller
/// modes: the differences from the hardware under the same mode.
fn under_every_mode(a: &[f32], b: &[f32], divisors: &[f32]) -> Vec<String> {
    // Divisors proven in the default environment and used under the other modes, too.
    let made_before: Vec<Divisor> = divisors.iter().map(|&y| Divisor::new(y)).collect();
    for d in &made_before {
        black_box(d.strategy());
    }
    let original = read_mxcsr();
    let mut failures = Vec::new();
    for (rc, base, under) in caller_modes(original) {
        write_mxcsr(base | rc << 13);
        let rows = compute(a, b, divisors, &made_before);
        write_mxcsr(original);
        failures.extend(directed_against_hardware(a, b, base, rc, &under));
        for (name, got, want) in &rows {
            let n = got.len();
            // Rows divided by one scalar name it; their pairs' b is not the divisor. ndarray's
            // rows divide the pairs inside the kernel's window.
            let (xs, bs): (Vec<f32>, Vec<f32>) = match name
                .split_once("Divisor(")
                .or(name.split_once("div_scalar("))
            {
                Some((_, rest)) => (
                    a[..n].to_vec(),
                    vec![rest.split(')').next().unwrap().parse().unwrap(); n],
                ),
                None if name.starts_with("ndarray") => in_window_pairs(a, b),
                None => (a[..n].to_vec(), b[..n].to_vec()),
            };
            failures.extend(first_difference(
                &format!("{name} under {under}"),
                &xs[..n],
                &bs[..n],
                got,
                &want[..n],
            ));
        }
    }
    assert_eq!(read_mxcsr(), original);
    failures
}

/// Every edge value as a `Divisor` (the test above holds a dozen), over the edge values and
/// a few thousand normal dividends and random bit patterns, under every caller mode: each
/// divisor's strategy must hold under flush-to-zero and denormals-are-zero as made (2^-127
/// took the reciprocal strategy once, which DAZ defeats).
#[test]
fn every_edge_divisor_under_every_mode() {
    if fmadiv::verify::x86::Avx2Fma::new().is_none() {
        common::skipped_once("the MXCSR test (needs AVX2+FMA)");
        return;
    }
    let mut a = edge_values();
    let mut rng = SplitMix64(common::seed() ^ 0xed9e);
    a.extend((0..2048).flat_map(|_| {
        let r = rng.next_u64();
        let normal = (r as u32 & 0x807f_ffff) | (1 + (r >> 32) as u32 % 254) << 23;
        [f32::from_bits(normal), f32::from_bits((r >> 32) as u32)]
    }));
    let b = vec![3.0f32; a.len()];
    let failures = under_every_mode(&a, &b, &edge_values());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The directed functions' flag-checked chunks (slices of 512 and more) under every caller
/// mode: exact quotients in chunks nothing voids (`exact_quotient_pairs`), quiet specials in
/// clean chunks and inexact underflows (`common::flag_chunk_pairs`), with MXCSR's rounding
/// field, flush-to-zero and denormals-are-zero set by the caller.
#[test]
fn flag_checked_directed_chunks_under_every_mode() {
    if fmadiv::verify::x86::Avx2Fma::new().is_none() {
        common::skipped_once("the MXCSR test (needs AVX2+FMA)");
        return;
    }
    let original = read_mxcsr();
    let mut failures = Vec::new();
    // The exact quotients first, while this thread's back-off is clear (nothing in them
    // voids a chunk, so every chunk keeps the step's lanes).
    for (a, b) in [exact_quotient_pairs(), common::flag_chunk_pairs()] {
        for (rc, base, under) in caller_modes(original) {
            failures.extend(directed_against_hardware(&a, &b, base, rc, &under));
        }
    }
    assert_eq!(read_mxcsr(), original);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Two flag chunks of normal pairs, every fourth quotient exact (both factors with 11-bit
/// fractions, so `a = q·b` is exact) and every 128th dividend `+0`: nothing raises
/// underflow, overflow or invalid, so the flag-checked chunks keep the step's lanes
/// (`div_bounds` under every caller mode), and an exact residual is `-0` where the caller
/// rounds down. (In `common::flag_chunk_pairs` every chunk holds a NaN or an underflow,
/// which sends the bounds to the divider; and a `-0` dividend here would void its chunk
/// under the `+0`-residual step wrongly run under round-down, hiding that step's error.)
fn exact_quotient_pairs() -> (Vec<f32>, Vec<f32>) {
    /// A normal float with an 11-bit fraction from random bits, exponent field 100 to 163.
    fn short(r: u64) -> f32 {
        let sign = (r as u32 & 1) << 31;
        let exponent = 100 + (r >> 8) as u32 % 64;
        let fraction = (r >> 20) as u32 & 0x7ff;
        f32::from_bits(sign | exponent << 23 | fraction << 12)
    }
    let mut rng = SplitMix64(0x6578_6163);
    let n = 2 * 4096;
    let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (x, y) = match i % 4 {
            0 => {
                let (q, y) = (short(rng.next_u64()), short(rng.next_u64()));
                // 12-bit significands: the 24-bit product is exact.
                (q * y, y)
            }
            _ => (rng.next_normal(), rng.next_normal()),
        };
        let x = if i % 128 == 1 { 0.0 } else { x };
        a.push(x);
        b.push(y);
    }
    (a, b)
}

/// `div_rounded` and `div_bounds` over 4 × 4096 pairs, flags clear before: the flags after.
#[inline(never)]
fn directed_flags(a: &[f32], b: &[f32]) -> [u32; 2] {
    let mut out = vec![0.0f32; a.len()];
    let (mut lo, mut hi) = (vec![0.0f32; a.len()], vec![0.0f32; a.len()]);
    let original = read_mxcsr();
    write_mxcsr(original & !ALL_FLAGS);
    fmadiv::div_rounded(black_box(a), black_box(b), &mut out, Rounding::Up);
    let rounded = read_mxcsr() & ALL_FLAGS;
    write_mxcsr(original & !ALL_FLAGS);
    fmadiv::div_bounds(black_box(a), black_box(b), &mut lo, &mut hi);
    let bounds = read_mxcsr() & ALL_FLAGS;
    write_mxcsr(original);
    [rounded, bounds]
}

/// The directed functions over 4 × 4096 pairs raise what the divider raises and nothing it
/// does not: an overflow leaves the overflow flag set (on AVX2, `div_bounds`' flag-checked
/// chunks redo the first chunk by the divider, and the clean chunks that follow clear the
/// flags before they run; `div_rounded` runs one pass under the mode); a quiet NaN, which
/// `min`/`max` meet and `vdivps` passes quietly, leaves no invalid flag; a subnormal
/// quotient of normal inputs leaves the underflow flag and no denormal-operand flag (the
/// voided attempt's residual read the subnormal quotient). With embedded
/// rounding (the 16-lane backend and its model) both run passes that raise no flag at all,
/// `div_bounds` where it takes two passes at this length (not on a family whose step runs
/// at every length, `fmadiv::Avx512Family::bounds_step_only`: there its clean chunks raise
/// the divider's flags, and a voided one none, being redone by embedded rounding). Each
/// function by its own backend (`fmadiv::backend_of`).
#[test]
fn directed_functions_raise_the_dividers_flags() {
    use fmadiv::EntryPoint;
    // A build without optimisation runs the `asm!` loop under the mode on every backend.
    let embedded = |e| !fmadiv::verify::UNOPTIMIZED && fmadiv::backend_of(e).embedded_rounding();
    let (rounded_embedded, bounds_embedded) = (
        embedded(EntryPoint::DivRounded),
        embedded(EntryPoint::DivBounds),
    );
    let bounds_by_passes =
        bounds_embedded && 4 * 4096 >= fmadiv::verify::directed_two_passes_from();
    let a: Vec<f32> = (0..4 * 4096).map(|i| 1.0 + i as f32 * 1e-4).collect();
    let b = vec![3.0f32; a.len()];
    let (mut over_a, mut nan_a, mut tiny_a) = (a.clone(), a.clone(), a.clone());
    over_a[100] = 3e38;
    let mut over_b = b.clone();
    over_b[100] = 1e-3;
    nan_a[100] = f32::NAN;
    tiny_a[2 * 4096 + 100] = 3e-30;
    let mut tiny_b = b.clone();
    tiny_b[2 * 4096 + 100] = 1e10;
    for (what, a, b, set, clear) in [
        ("an overflow", &over_a, &over_b, OVERFLOW, 0),
        ("a quiet NaN", &nan_a, &b, 0, INVALID),
        // The residual step reads the subnormal quotient: its denormal flag is not the divider's.
        (
            "a subnormal quotient",
            &tiny_a,
            &tiny_b,
            UNDERFLOW,
            DENORMAL,
        ),
    ] {
        for (((name, flags), passes), embedded) in ["div_rounded", "div_bounds"]
            .iter()
            .zip(directed_flags(a, b))
            .zip([rounded_embedded, bounds_by_passes])
            .zip([rounded_embedded, bounds_embedded])
        {
            // With embedded rounding a chunk voided by a flag is redone by passes that raise
            // none, so the divider's flags need not stay.
            let set = if embedded { 0 } else { set };
            if passes {
                assert_eq!(
                    flags, 0,
                    "{name} with {what} by embedded rounding: flags {flags:#x}"
                );
            }
            assert_eq!(flags & set, set, "{name} with {what}: flags {flags:#x}");
            assert_eq!(flags & clear, 0, "{name} with {what}: flags {flags:#x}");
        }
    }
}

/// `Divisor::divide_slice` over `a` (4 × 4096 dividends, its flag-checked chunks), flags
/// clear before: the flags after (the divisor's first slice, which may make its proof, is
/// divided before).
#[inline(never)]
fn divisor_flags(a: &[f32], d: f32) -> u32 {
    let divisor = Divisor::new(d);
    let mut out = vec![0.0f32; a.len()];
    divisor.divide_slice(a, &mut out);
    let original = read_mxcsr();
    write_mxcsr(original & !ALL_FLAGS);
    divisor.divide_slice(black_box(a), &mut out);
    let flags = read_mxcsr() & ALL_FLAGS;
    write_mxcsr(original);
    for (&x, &q) in a.iter().zip(&out) {
        assert_eq!(q.to_bits(), (x / d).to_bits(), "{x:e} / {d:e}");
    }
    flags
}

/// The `Divisor`'s flag-checked chunks raise what the divider raises and nothing the bare
/// sequence raised in a voided attempt: an overflowing quotient in the first chunk, redone
/// by the divider, leaves the overflow flag set after the clean chunks that follow (each
/// clears the flags before it runs); a dividend whose product with the divisor's low part
/// underflows while its quotient is normal (`1e-7 / 1e30`), in the last chunk, leaves no
/// underflow flag and no denormal-operand flag (the subnormal product, read by the FMA,
/// raised it); a subnormal dividend leaves both, as the divider does.
#[test]
fn divisor_chunks_raise_the_dividers_flags() {
    let a: Vec<f32> = (0..4 * 4096).map(|i| 1.0 + i as f32 * 1e-4).collect();
    let mut subnormal = a.clone();
    subnormal[3 * 4096 + 100] = 1e-40;
    let mut over = a.clone();
    over[100] = 3e38;
    let mut tiny = a.clone();
    tiny[3 * 4096 + 100] = 1e-7;
    let d = 1e30f32;
    assert!(((1e-7f32 / d).is_normal()));
    for (what, a, d, set, clear) in [
        (
            "an overflow in the first chunk",
            &over,
            1e-3f32,
            OVERFLOW,
            0,
        ),
        (
            "an underflow of the sequence alone, last chunk",
            &tiny,
            d,
            0,
            UNDERFLOW | DENORMAL,
        ),
        (
            "a subnormal dividend and quotient, last chunk",
            &subnormal,
            3.0,
            UNDERFLOW | DENORMAL,
            0,
        ),
    ] {
        assert_eq!(
            Divisor::new(d).strategy(),
            fmadiv::Strategy::TwoProducts,
            "{what}: the divisor {d:e} runs the sequence"
        );
        let flags = divisor_flags(a, d);
        assert_eq!(flags & set, set, "{what}: flags {flags:#x}");
        assert_eq!(flags & clear, 0, "{what}: flags {flags:#x}");
    }
}

/// Divides clean and special-laden data by divisors of every zero-sign repair, in a
/// non-inlined function (the flags it leaves are what the caller sees).
#[inline(never)]
fn divide_mixed_data() {
    let mut a: Vec<f32> = (0..10_000).map(|i| 1.0 + i as f32 * 1e-4).collect();
    a[5_000] = f32::NAN;
    a[7_000] = 1e-45;
    a[9_000] = f32::MAX;
    let mut out = vec![0.0; a.len()];
    // 3 and ±0x1.a25bcep+0: every zero-sign repair of the flag-checked loop.
    for y in [3.0f32, 1.634_213_3, -1.634_213_3, 1e-30] {
        Divisor::new(black_box(y)).divide_slice(black_box(&a), &mut out);
        black_box(&out);
        fmadiv::div_rounded(black_box(&a), &[y; 10_000], &mut out, Rounding::Down);
        black_box(&out);
    }
}

#[test]
fn divide_slice_and_div_rounded_keep_the_callers_exception_flags_and_mode() {
    let original = read_mxcsr();
    for rc in 0..4u32 {
        for flags in [0, 1, 1 << 3, 1 << 4, ALL_FLAGS] {
            let set = (original & !(ALL_FLAGS | RC)) | flags | rc << 13;
            write_mxcsr(set);
            divide_mixed_data();
            let after = read_mxcsr();
            write_mxcsr(original);
            assert_eq!(after & !ALL_FLAGS, set & !ALL_FLAGS, "control bits changed");
            assert_eq!(
                after & flags,
                flags,
                "flags {flags:#x} set before the call were cleared"
            );
        }
    }
}

/// `/` lane by lane: the flags the entry points must raise at least.
#[inline(never)]
fn dividers_flags(a: &[f32], b: &[f32]) -> u32 {
    flags_of(|| {
        for (&x, &y) in a.iter().zip(b) {
            black_box(black_box(x) / black_box(y));
        }
    })
}

// Beyond `/`'s flags (README, "Exception flags"): inexact anywhere (an FMA sequence may
// raise it for an exact quotient); underflow and denormal-operand in the `Divisor`'s scalar
// and in-register forms, where the product `a·zl` underflows under a normal quotient;
// invalid in the `Divisor`'s lane-checked sequences for an infinite dividend (`∞ − ∞`
// inside the sequence; the lane is redone by the divider); and:
/// What a kernel block or vector discarded for a lane outside the input window may leave:
/// its arithmetic's invalid, overflow, underflow and denormal-operand flags (never
/// divide-by-zero: the kernel does not divide).
const DISCARDED_KERNEL: u32 = INVALID | OVERFLOW | UNDERFLOW | DENORMAL;

/// Whether `x` lies in the kernel's input window `[2^-63, 2^63)` (`src/bits.rs`).
fn inside_window(x: f32) -> bool {
    let biased_exponent = (x.to_bits() >> 23) & 0xff;
    (64..190).contains(&biased_exponent)
}

/// The flags beyond `/`'s that the division kernel may leave for a pair among its data.
fn kernel_extra(x: f32, y: f32) -> u32 {
    match inside_window(x) && inside_window(y) {
        true => INEXACT,
        false => INEXACT | DISCARDED_KERNEL,
    }
}

/// The flags beyond `/`'s that a `Divisor`'s lane-checked form may raise for `dividends`.
fn divisor_extra(dividends: &[f32], scalar: bool) -> u32 {
    let invalid = match dividends.iter().any(|x| x.is_infinite()) {
        true => INVALID,
        false => 0,
    };
    let tails = match scalar {
        true => UNDERFLOW | DENORMAL,
        false => 0,
    };
    INEXACT | invalid | tails
}

/// One entry point's call: the flags it left, the flags `/` leaves over the same data, and
/// the flags beyond those that README's "Exception flags" allows it.
struct FlagsLeft {
    what: String,
    got: u32,
    divider: u32,
    allowed_extra: u32,
}

/// Every entry point that divides on the calling thread, each call with the flags clear:
/// every edge pair one at a time through the scalar and in-register forms and a slice of 21
/// (whole vectors and a tail), and slices of in-window data of four chunks of 4096 and a
/// tail of 7, with one edge pair at the same place in each chunk, through the slice
/// functions (`par_div` is left out: rayon's threads raise its flags, not the caller's).
fn flags_left_by_the_entry_points() -> Vec<FlagsLeft> {
    let (ea, eb) = edge_pairs();
    let mut calls = Vec::new();
    let mut record = |what: String, got: u32, divider: u32, allowed_extra: u32| {
        calls.push(FlagsLeft {
            what,
            got,
            divider,
            allowed_extra,
        });
    };
    for (&x, &y) in ea.iter().zip(&eb) {
        let want = dividers_flags(&[x], &[y]);
        let d = Divisor::new(y);
        record(
            format!("Divisor::new({y:e}).divide({x:e})"),
            flags_of(|| {
                black_box(d.divide(black_box(x)));
            }),
            want,
            divisor_extra(&[x], true),
        );
        record(
            format!("Divisor::new({y:e}).divide_f32x8({x:e})"),
            flags_of(|| {
                black_box(d.divide_f32x8(black_box(wide::f32x8::splat(x))));
            }),
            want,
            divisor_extra(&[x], true),
        );
        record(
            format!("div_f32x8({x:e}, {y:e})"),
            flags_of(|| {
                black_box(fmadiv::div_f32x8(
                    black_box(wide::f32x8::splat(x)),
                    wide::f32x8::splat(y),
                ));
            }),
            want,
            kernel_extra(x, y),
        );
        let mut out = [0.0f32; 21];
        record(
            format!("div of 21 × {x:e} / {y:e}"),
            flags_of(|| fmadiv::div(black_box(&[x; 21]), black_box(&[y; 21]), &mut out)),
            want,
            kernel_extra(x, y),
        );
    }
    let mut rng = SplitMix64(0xf1a9);
    let n = 4 * 4096 + 7;
    for (&x, &y) in ea.iter().zip(&eb).step_by(7) {
        let mut a: Vec<f32> = (0..n)
            .map(|_| 1.0 + (rng.next_u64() % 1000) as f32 * 0.37)
            .collect();
        let mut b: Vec<f32> = (0..n)
            .map(|_| 0.5 + (rng.next_u64() % 1000) as f32 * 0.11)
            .collect();
        let at = (rng.next_u64() % 4096) as usize;
        for chunk in 0..4 {
            (a[chunk * 4096 + at], b[chunk * 4096 + at]) = (x, y);
        }
        let mut out = vec![0.0f32; n];
        let want = dividers_flags(&a, &b);
        record(
            format!("div with {x:e} / {y:e}"),
            flags_of(|| fmadiv::div(black_box(&a), black_box(&b), &mut out)),
            want,
            kernel_extra(x, y),
        );
        let mut in_place = a.clone();
        record(
            format!("div_in_place with {x:e} / {y:e}"),
            flags_of(|| fmadiv::div_in_place(black_box(&mut in_place), black_box(&b))),
            want,
            kernel_extra(x, y),
        );
        let ones = vec![1.0f32; n];
        record(
            format!("recip with {y:e}"),
            flags_of(|| fmadiv::recip(black_box(&b), &mut out)),
            dividers_flags(&ones, &b),
            kernel_extra(1.0, y),
        );
        let mut in_place = b.clone();
        record(
            format!("recip_in_place with {y:e}"),
            flags_of(|| fmadiv::recip_in_place(black_box(&mut in_place))),
            dividers_flags(&ones, &b),
            kernel_extra(1.0, y),
        );
        let d = Divisor::new(y);
        let by = vec![y; n];
        record(
            format!("Divisor::new({y:e}).divide_slice with {x:e}"),
            flags_of(|| d.divide_slice(black_box(&a), &mut out)),
            dividers_flags(&a, &by),
            divisor_extra(&a, false),
        );
        let mut in_place = a.clone();
        record(
            format!("Divisor::new({y:e}).divide_in_place with {x:e}"),
            flags_of(|| d.divide_in_place(black_box(&mut in_place))),
            dividers_flags(&a, &by),
            divisor_extra(&a, false),
        );
        record(
            format!("div_scalar by {y:e} with {x:e}"),
            flags_of(|| fmadiv::div_scalar(black_box(&a), black_box(y), &mut out)),
            dividers_flags(&a, &by),
            divisor_extra(&a, false),
        );
    }
    calls
}

/// Every flag `/` raises, the entry points that divide on the calling thread raise too
/// (they may raise more: README, "Exception flags"): a lane the fast paths accept has a
/// normal quotient, whose inexactness their last rounding raises, and every other lane is
/// `/`'s.
#[test]
fn entry_points_raise_every_flag_the_divider_raises() {
    let misses: Vec<String> = flags_left_by_the_entry_points()
        .into_iter()
        .filter(|c| c.got & c.divider != c.divider)
        .map(|c| format!("{}: {:#04x}, `/` {:#04x}", c.what, c.got, c.divider))
        .collect();
    assert!(
        misses.is_empty(),
        "{} misses:\n{}",
        misses.len(),
        misses.join("\n")
    );
}

/// And no flag beyond `/`'s but those README's "Exception flags" names: inexact anywhere;
/// underflow and denormal-operand in the `Divisor`'s scalar and in-register forms; invalid
/// in its lane-checked sequences for an infinite dividend; the arithmetic's flags of a
/// kernel block or vector discarded for a lane outside the window. So nothing but inexact
/// for pairs inside the window, and never a divide-by-zero `/` does not raise (a tail is
/// padded with `1 / 1`; the proof of a `Divisor` made in the call leaves only inexact).
#[test]
fn entry_points_raise_no_flag_beyond_the_documented_ones() {
    let extras: Vec<String> = flags_left_by_the_entry_points()
        .into_iter()
        .filter(|c| c.got & !(c.divider | c.allowed_extra) != 0)
        .map(|c| format!("{}: {:#04x}, `/` {:#04x}", c.what, c.got, c.divider))
        .collect();
    assert!(
        extras.is_empty(),
        "{} calls raised more:\n{}",
        extras.len(),
        extras.join("\n")
    );
}

/// A `Divisor`'s proof, made on first need inside the call that needs it, leaves MXCSR's
/// flags as the caller had them: its arithmetic (`1/b`, the tail `zl`, the candidate test)
/// raised invalid for an infinite divisor, overflow for a tiny one and underflow for a huge
/// one inside `divide` and `divide_slice` before its flags were put back. (The inexact flag
/// may stay: the probe of MXCSR's rounding mode, one addition, raises it.) Divisors below
/// 2^78 run the proof without that guard, as raising nothing by construction: every one of
/// the 2^23 significands in `[1, 2)` (the candidate test sees only the significand), those
/// that take Markstein's sequence and every 4099th at every exponent, the edge values; each
/// proof made with the flags clear, and the edge values' with all six set too.
#[test]
fn making_a_proof_leaves_the_callers_flags() {
    let mut failures = Vec::new();
    let check = |b: f32, failures: &mut Vec<String>| {
        let left = flags_of(|| {
            black_box(Divisor::new(black_box(b)).strategy());
        });
        if left & !INEXACT != 0 && failures.len() < 20 {
            failures.push(format!("Divisor::new({b:e}): proof left {left:#04x}"));
        }
    };
    let mut markstein = Vec::new();
    for significand in 0..1u32 << 23 {
        let b = f32::from_bits(0x3f80_0000 | significand);
        check(b, &mut failures);
        if Divisor::new(b).strategy() == fmadiv::Strategy::Markstein {
            markstein.push(significand);
        }
    }
    assert!(!markstein.is_empty());
    for exponent in 0..=255u32 {
        let sampled = (0..1u32 << 23)
            .step_by(4099)
            .chain(markstein.iter().copied());
        for significand in sampled {
            check(f32::from_bits(exponent << 23 | significand), &mut failures);
            check(
                f32::from_bits(1 << 31 | exponent << 23 | significand),
                &mut failures,
            );
        }
    }
    for b in edge_values() {
        check(b, &mut failures);
        let original = read_mxcsr();
        write_mxcsr(original | ALL_FLAGS);
        black_box(Divisor::new(black_box(b)).strategy());
        let kept = read_mxcsr() & ALL_FLAGS;
        write_mxcsr(original);
        if kept != ALL_FLAGS {
            failures.push(format!("Divisor::new({b:e}): proof cleared to {kept:#04x}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rayon forms (`par_div`, `par_div_in_place`, `par_recip`, `par_recip_in_place`, and
/// `fmadiv::ndarray`'s `par_div`, `par_div_to`, `par_div_assign`, `par_recip_assign`) divide a long
/// slice or array on rayon's threads and a short one on the calling thread, as their documentation
/// says: read from the caller's inexact flag (MXCSR is each thread's own, so quotients computed
/// elsewhere leave the caller's flags clear). At `PAR_MIN_LEN` elements of `1 / 3` the caller's
/// flags stay clear; one element fewer, and under a caller's MXCSR that is not the default one
/// (round-down) at any length, the caller divides and raises it. Bits alone cannot show where the
/// work ran.
#[test]
fn rayon_forms_divide_long_slices_on_rayons_threads() {
    let long = fmadiv::verify::PAR_MIN_LEN;
    let (a, b) = (vec![1.0f32; long], vec![3.0f32; long]);
    /// A rayon form dividing the first `n` elements into (or, in place, within) `out`.
    type Form<'f> = &'f dyn Fn(usize, &mut [f32]);
    let forms: [(&str, Form); 4] = [
        ("par_div", &|n, out| {
            fmadiv::par_div(black_box(&a[..n]), black_box(&b[..n]), out)
        }),
        ("par_div_in_place", &|n, out| {
            out.copy_from_slice(&a[..n]);
            fmadiv::par_div_in_place(black_box(out), black_box(&b[..n]))
        }),
        ("par_recip", &|n, out| {
            fmadiv::par_recip(black_box(&b[..n]), out)
        }),
        ("par_recip_in_place", &|n, out| {
            out.copy_from_slice(&b[..n]);
            fmadiv::par_recip_in_place(black_box(out))
        }),
    ];
    // The ndarray forms, over a matrix of two rows by a column divisor (tiles' and
    // `div_scalar`'s blocks are zeroed first, in their own threads) and over a line.
    #[cfg(feature = "ndarray")]
    let arrays: [(&str, Form); 5] = {
        use ndarray::{ArrayView1, ArrayView2, ArrayViewMut1};
        const COLUMN: [f32; 2] = [3.0; 2];
        [
            ("ndarray::par_div", &|n, out| {
                let (x, by) = (
                    ArrayView2::from_shape((2, n / 2), &a[..n / 2 * 2]).unwrap(),
                    ArrayView2::from_shape((2, 1), &COLUMN).unwrap(),
                );
                let q = fmadiv::ndarray::par_div(black_box(&x), black_box(&by));
                out[..q.len()].copy_from_slice(q.as_slice().unwrap());
            }),
            ("ndarray::par_div_to", &|n, out| {
                let (x, y) = (ArrayView1::from(&a[..n]), ArrayView1::from(&b[..n]));
                let mut o = ArrayViewMut1::from(out);
                fmadiv::ndarray::par_div_to(black_box(&x), black_box(&y), &mut o).unwrap();
            }),
            ("ndarray::par_div_assign", &|n, out| {
                out.copy_from_slice(&a[..n]);
                let mut x = ArrayViewMut1::from(out);
                let y = ArrayView1::from(&b[..n]);
                fmadiv::ndarray::par_div_assign(black_box(&mut x), black_box(&y)).unwrap();
            }),
            ("ndarray::par_recip_assign", &|n, out| {
                out.copy_from_slice(&b[..n]);
                fmadiv::ndarray::par_recip_assign(black_box(&mut ArrayViewMut1::from(out)));
            }),
            ("ndarray::par_div, transposed", &|n, out| {
                let x = ArrayView2::from_shape((2, n / 2), &a[..n / 2 * 2]).unwrap();
                let y = ArrayView2::from_shape((n / 2, 2), &b[..n / 2 * 2]).unwrap();
                let q = fmadiv::ndarray::par_div(black_box(&x), black_box(&y.t()));
                out[..q.len()].copy_from_slice(q.as_slice().unwrap());
            }),
        ]
    };
    #[cfg(not(feature = "ndarray"))]
    let arrays: [(&str, Form); 0] = [];
    let mut out = vec![0.0f32; long];
    for (name, form) in forms.into_iter().chain(arrays) {
        // The plan and rayon's pool made first: their set-up raises no flag in the runs
        // below.
        form(long, &mut out);
        let mut raised = |n: usize| flags_of(|| form(n, &mut out[..n])) & INEXACT;
        assert_eq!(raised(long), 0, "{name} of {long}: the caller divided");
        assert_eq!(
            raised(long - 1),
            INEXACT,
            "{name} of {}: not the caller",
            long - 1
        );
        let saved = read_mxcsr();
        write_mxcsr((saved & !RC) | 1 << 13);
        let under_round_down = raised(long);
        write_mxcsr(saved);
        assert_eq!(
            under_round_down, INEXACT,
            "{name} of {long} under round-down: not the caller"
        );
    }
}

/// The `Divisor`'s sixteen-lane loops first divide the elements before the output's next
/// cache line, as one partial vector on the divider, padded with a dividend that raises no
/// flag over any divisor: the call's flags are the divider's over the elements alone. Read
/// on every backend this CPU runs (the sixteen-lane ones natively or through the model),
/// into a `LineOutput` (a head of 12 elements at sixteen lanes, none at eight) and in place
/// on one, by divisors whose reciprocal raises what no quotient of the data does:
/// `f32::MAX` (`1/b` underflows; dividends from 8 up give normal quotients) and a
/// subnormal (`1/b` overflows; dividends from 1e-10 up give finite quotients), over short
/// slices and slices long enough for the flag-checked chunks. Both divisors take the
/// divider, whose loop the two products' chunks also take their head from, and whose lanes
/// past its last whole vector (nine of both lengths here) are one partial vector padded as
/// the head. A head or that last vector padded with 1.0 is caught.
#[test]
fn the_divisors_head_raises_no_flag_of_its_padding() {
    use common::LineOutput;
    use fmadiv::verify::divisor::{divide_in_place_on, divide_slice_on};
    let backends = fmadiv::Backend::all()
        .into_iter()
        .filter(|b| *b != fmadiv::Backend::Portable && b.runs_here());
    let mut failures = Vec::new();
    for backend in backends {
        for (y, smallest) in [(f32::MAX, 8.0f32), (1e-39, 1e-10)] {
            let d = Divisor::new(y);
            for n in [21, 4096 + 21] {
                let a: Vec<f32> = (0..n).map(|i| smallest * (1.0 + i as f32 * 0.01)).collect();
                let by = vec![y; n];
                let (want, want_flags) = (hardware(&a, &by), dividers_flags(&a, &by));
                let mut out = LineOutput::new(n);
                let flags = flags_of(|| {
                    divide_slice_on(backend, &d, false, black_box(&a), &mut out).expect("runs");
                });
                let mut in_place = LineOutput::new(n);
                in_place.copy_from_slice(&a);
                let flags_in_place = flags_of(|| {
                    divide_in_place_on(backend, &d, false, black_box(&mut in_place)).expect("runs");
                });
                for (how, got, flags) in [("", out, flags), (" in place", in_place, flags_in_place)]
                {
                    let what = format!("{} Divisor({y:e}) over {n}{how}", backend.name());
                    failures.extend(first_difference(&what, &a, &by, &got, &want));
                    if flags & !want_flags != 0 {
                        failures.push(format!("{what}: flags {flags:#04x}, `/` {want_flags:#04x}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `d.divide_slice(a)` twice (a first slice and a reused divisor: where the proof is made if
/// it is to be) under the calling thread's MXCSR with rounding field `rc`, and `vdivps` by
/// `d` under the same MXCSR: the two slices' quotients, each with the divider's.
#[inline(never)]
fn divide_twice_under(rc: u32, d: &Divisor, a: &[f32]) -> [(Vec<f32>, Vec<f32>); 2] {
    let original = read_mxcsr();
    write_mxcsr((original & !RC) | rc << 13);
    let mut first = vec![0.0f32; a.len()];
    d.divide_slice(black_box(a), &mut first);
    let mut reused = vec![0.0f32; a.len()];
    d.divide_slice(black_box(a), &mut reused);
    let want = hardware(a, &vec![d.divisor(); a.len()]);
    write_mxcsr(original);
    [(first, want.clone()), (reused, want)]
}

/// One `Divisor` shared by threads whose MXCSRs round differently (MXCSR is per thread): a
/// thread under a directed mode uses it first (the proof must not be made there: its
/// constants would be rounded in that mode), then a thread rounding to nearest (which makes
/// the proof and runs the sequence), then the first mode again; and two threads at once,
/// one per mode. Each call gives the bits of `/` under its own thread's MXCSR. In-window
/// dividends, long enough for a first slice's proof: the divisors' sequences run.
#[test]
fn a_divisor_shared_by_threads_in_different_modes_gives_each_its_own_bits() {
    if fmadiv::verify::x86::Avx2Fma::new().is_none() {
        common::skipped_once("the shared-divisor MXCSR test (needs AVX2+FMA)");
        return;
    }
    let mut rng = SplitMix64(common::seed());
    let a: Vec<f32> = (0..16_384 + 13)
        .map(|_| {
            let r = rng.next_u64();
            f32::from_bits((r as u32 & 0x807f_ffff) | (107 + (r >> 32) as u32 % 40) << 23)
        })
        .collect();
    // Divisors of each strategy that runs an FMA sequence, told apart on a divisor of their
    // own (`strategy` makes the proof).
    let mut divisors = vec![3.0f32, 0.999_999_94, 10.0, 0.25];
    let (mut two, mut markstein) = (0, 0);
    while two < 3 || markstein < 2 {
        let y = f32::from_bits(0x3f80_0000 | (rng.next_u64() as u32 & 0x007f_ffff));
        match Divisor::new(y).strategy() {
            fmadiv::Strategy::TwoProducts if two < 3 => two += 1,
            fmadiv::Strategy::Markstein if markstein < 2 => markstein += 1,
            _ => continue,
        }
        divisors.push(y);
    }
    let nearest = Rounding::Nearest.control() as u32;
    // Where a thread rounding to nearest runs the sequence over `a`, and so makes the proof.
    let sequence_runs = fmadiv::backend() != fmadiv::Backend::Portable
        && fmadiv::plan().choices().divisor.sequence_from <= a.len();
    let mut failures = Vec::new();
    let mut check = |what: String, y: f32, slices: [(Vec<f32>, Vec<f32>); 2]| {
        let by = vec![y; a.len()];
        for ((got, want), slice) in slices.iter().zip(["first slice", "reused"]) {
            failures.extend(first_difference(
                &format!("{what}, {slice}"),
                &a,
                &by,
                got,
                want,
            ));
        }
    };
    for &y in &divisors {
        for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
            let rc = mode.control() as u32;
            let d = Divisor::new(y);
            for (step, rc) in [(1, rc), (2, nearest), (3, rc)] {
                let got = common::on_a_fresh_thread(|| divide_twice_under(rc, &d, &a));
                let under = Rounding::from_control(rc as u8);
                check(
                    format!("Divisor({y:e}), {mode} first, step {step} ({under})"),
                    y,
                    got,
                );
                let proven = fmadiv::verify::divisor::is_proven(&d);
                let what = format!("Divisor({y:e}) after step {step} ({mode} first)");
                assert!(step > 1 || !proven, "{what}: proven under {mode}");
                assert!(step == 1 || proven || !sequence_runs, "{what}: not proven");
            }
            let d = Divisor::new(y);
            let barrier = std::sync::Barrier::new(2);
            let [one, other] = std::thread::scope(|t| {
                [rc, nearest]
                    .map(|rc| {
                        let (d, a, barrier) = (&d, &a, &barrier);
                        t.spawn(move || {
                            barrier.wait();
                            divide_twice_under(rc, d, a)
                        })
                    })
                    .map(|h| h.join().expect("the thread finished"))
            });
            check(
                format!("Divisor({y:e}), at once: the {mode} thread"),
                y,
                one,
            );
            check(
                format!("Divisor({y:e}), at once: the nearest thread"),
                y,
                other,
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `Divisor`'s window-checked two products (its slices shorter than the flag-checked
/// chunks take, and those divided in place; `Check::Window` through the `verify` door) and
/// Markstein's sequence (its slices), on every backend, over divisors of every size and,
/// one slice per exponent field, dividends of every magnitude (64 random significands of
/// each sign; a slice of each is two sixteen-lane blocks): `/`'s bits, and no flag `/` does
/// not raise but inexact. The two-products window's lower end is where `a·zl` would turn
/// subnormal under a normal quotient, Markstein's where the residual could (2^-78, or
/// where `a·zh` or the quotient would be too small for a tiny or huge divisor); the upper
/// end where `a·zh` would overflow under a finite one. A lower end sixteen times lower
/// raises underflow that `/` does not (mutation 189; eight times lower is still exact: the
/// end keeps a margin); a window with no upper end raises overflow (mutation 190; the upper
/// end is conservative, so widening it sixteen times is not caught).
#[test]
fn the_divisors_window_raises_no_flag_beyond_the_dividers_at_its_edges() {
    use fmadiv::verify::divisor::{Check, divide_checked_on};
    if !fmadiv::verify::has_kernel() {
        eprintln!("SKIPPED on this CPU: no AVX2+FMA, so no FMA sequence runs");
        return;
    }
    let mut rng = SplitMix64(0x6564_6765);
    let mut divisors = vec![3.7f32, -1.1, 1e-30, -3e-36, 1e30, -3e37, 1.7e38, 5e-38];
    while divisors.len() < 40 {
        let y = f32::from_bits(rng.next_u64() as u32);
        if y.is_normal() {
            divisors.push(y);
        }
    }
    // Markstein's divisors of every size: the first of [1, 2) scaled, both signs.
    let markstein = f32::from_bits(0x3fca_d903);
    for e in [-126, -100, -60, -20, 0, 20, 60, 99] {
        let y = markstein * 2f32.powi(e);
        divisors.extend([y, -y]);
    }
    let backends: Vec<fmadiv::Backend> = fmadiv::Backend::all()
        .into_iter()
        .filter(|b| *b != fmadiv::Backend::Portable && b.runs_here())
        .collect();
    let mut failures = Vec::new();
    let (mut two_products, mut markstein) = (0, 0);
    for &y in &divisors {
        let d = Divisor::new(y);
        match d.strategy() {
            fmadiv::Strategy::TwoProducts => two_products += 1,
            fmadiv::Strategy::Markstein => markstein += 1,
            _ => continue,
        }
        for field in 0..=255u32 {
            let a: Vec<f32> = (0..128)
                .map(|i| {
                    let sign = (i as u32 & 1) << 31;
                    f32::from_bits(sign | field << 23 | (rng.next_u64() as u32 & 0x7f_ffff))
                })
                .collect();
            let by = vec![y; a.len()];
            let (want, want_flags) = (hardware(&a, &by), dividers_flags(&a, &by));
            for &backend in &backends {
                let mut x = a.clone();
                let mut out = vec![0.0f32; a.len()];
                let flags = flags_of(|| {
                    divide_checked_on(
                        backend,
                        &d,
                        Check::Window,
                        black_box(&mut x),
                        Some(&mut out),
                    )
                    .expect("runs here");
                });
                let what = format!("{} Divisor({y:e}), exponent field {field}", backend.name());
                if let Some(i) = (0..a.len()).find(|&i| out[i].to_bits() != want[i].to_bits()) {
                    failures.push(format!(
                        "{what}: {}",
                        common::describe(a[i], y, out[i], want[i])
                    ));
                }
                if flags & !(want_flags | INEXACT) != 0 {
                    failures.push(format!("{what}: flags {flags:#04x}, `/` {want_flags:#04x}"));
                }
            }
        }
    }
    assert!(
        two_products >= 20 && markstein == 16,
        "only {two_products} two-products and {markstein} Markstein divisors"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
