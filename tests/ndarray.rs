//! `fmadiv::ndarray` against `/` over every layout: owned arrays, views, transposed,
//! strided, Fortran order, 3-D, 0-D, empty, and broadcast rows, columns and scalars.
#![cfg(feature = "ndarray")]

mod common;

use common::{SplitMix64, seed};
use ndarray::{Array, Array2, ArrayD, ArrayView, Dimension, IxDyn, ShapeBuilder, arr0, s};

/// Random bit patterns half the time, normal values otherwise: specials in every lane kind.
fn random<Sh: ShapeBuilder>(shape: Sh, rng: &mut SplitMix64) -> Array<f32, Sh::Dim> {
    Array::from_shape_simple_fn(shape, || {
        let r = rng.next_u64();
        if r >> 63 == 0 {
            f32::from_bits(r as u32)
        } else {
            f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23)
        }
    })
}

/// Asserts `q == a / b` bit for bit, `b` broadcast to `a`'s shape.
#[track_caller]
fn check<D: Dimension>(
    what: &str,
    a: &ArrayView<f32, D>,
    b: &ArrayView<f32, D>,
    q: &ArrayView<f32, D>,
) {
    assert_eq!(q.shape(), a.shape(), "{what}");
    for ((idx, &x), (&y, &got)) in a.indexed_iter().zip(b.iter().zip(q.iter())) {
        let want = x / y;
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{what} at {idx:?}: {:#010x} / {:#010x} gave {:#010x}, want {:#010x}",
            x.to_bits(),
            y.to_bits(),
            got.to_bits(),
            want.to_bits()
        );
    }
}

/// `div`, `div_to` and `div_assign` of `a` by `b` (broadcast), checked against `/`.
#[track_caller]
fn all_ways<D: Dimension, E: Dimension>(what: &str, a: ArrayView<f32, D>, b: ArrayView<f32, E>) {
    let wide = b.broadcast(a.raw_dim()).unwrap();
    let q = fmadiv::ndarray::div(&a, &b);
    check(&format!("{what}: div"), &a, &wide, &q.view());
    let mut out = Array::zeros(a.raw_dim());
    fmadiv::ndarray::div_to(&a, &b, &mut out).unwrap();
    check(&format!("{what}: div_to"), &a, &wide, &out.view());
    // Into a transposed (Fortran-order) output too.
    let mut out_f = Array::zeros(a.raw_dim().f());
    fmadiv::ndarray::div_to(&a, &b, &mut out_f).unwrap();
    check(
        &format!("{what}: div_to, Fortran output"),
        &a,
        &wide,
        &out_f.view(),
    );
    let mut x = a.to_owned();
    fmadiv::ndarray::div_assign(&mut x, &b).unwrap();
    check(&format!("{what}: div_assign"), &a, &wide, &x.view());
}

#[test]
fn every_layout_matches_the_divider() {
    let mut rng = SplitMix64(seed());
    let a: Array2<f32> = random((67, 131), &mut rng);
    let b: Array2<f32> = random((67, 131), &mut rng);
    all_ways("standard layout", a.view(), b.view());
    let (af, bf) = (a.t().to_owned(), b.t().to_owned());
    all_ways("transposed copies", af.view(), bf.view());
    all_ways("transposed views", a.t(), b.t());
    all_ways("standard by transposed", a.view(), bf.t());
    let fortran = {
        let mut f = Array2::zeros((67, 131).f());
        f.assign(&a);
        f
    };
    all_ways("Fortran order", fortran.view(), b.view());
    all_ways(
        "strided",
        a.slice(s![..;2, 1..;3]),
        b.slice(s![..;-2, ..;3]),
    );
    all_ways("reversed", a.slice(s![..;-1, ..]), b.slice(s![.., ..;-1]));
    // Long rows that pass a vector block, and a short one.
    let long: Array2<f32> = random((3, 4099), &mut rng);
    let long_b: Array2<f32> = random((3, 4099), &mut rng);
    all_ways("long rows", long.view(), long_b.view());
    let three: Array<f32, _> = random((5, 7, 9), &mut rng);
    let three_b: Array<f32, _> = random((5, 7, 9), &mut rng);
    all_ways("3-D", three.view(), three_b.view());
    all_ways(
        "3-D permuted",
        three.view().permuted_axes([2, 0, 1]),
        three_b.view().permuted_axes([2, 0, 1]),
    );
    let dynamic: ArrayD<f32> = random(IxDyn(&[4, 3, 2, 5]), &mut rng);
    all_ways("dynamic dimension", dynamic.view(), dynamic.view());
    all_ways("0-D", arr0(6.0f32).view(), arr0(0.99999994f32).view());
    let empty = Array2::<f32>::zeros((0, 5));
    all_ways("empty", empty.view(), empty.view());
}

#[test]
fn broadcast_rows_columns_and_scalars_match_the_divider() {
    let mut rng = SplitMix64(seed() ^ 1);
    let a: Array2<f32> = random((300, 1031), &mut rng);
    let row: Array<f32, _> = random(1031, &mut rng);
    let column: Array2<f32> = random((300, 1), &mut rng);
    all_ways("by a row", a.view(), row.view());
    all_ways(
        "by a (1, n) row",
        a.view(),
        row.view().insert_axis(ndarray::Axis(0)),
    );
    all_ways("by a column", a.view(), column.view());
    all_ways(
        "transposed by a column",
        a.t(),
        row.view().insert_axis(ndarray::Axis(1)),
    );
    all_ways("by a scalar array", a.view(), arr0(3.0f32).view());
    all_ways(
        "strided by a column",
        a.slice(s![..;3, ..;2]),
        column.slice(s![..;3, ..]),
    );
    // Columns of normal divisors over long rows take `div_scalar`'s Divisor path.
    let normal: Array2<f32> =
        Array::from_shape_fn((16, 4096), |(i, j)| (i * 4096 + j) as f32 + 0.5);
    let sums = normal
        .sum_axis(ndarray::Axis(1))
        .insert_axis(ndarray::Axis(1));
    all_ways("row normalisation", normal.view(), sums.view());
}

#[test]
fn shapes_that_do_not_broadcast_are_errors_and_write_nothing() {
    let a = Array2::<f32>::ones((4, 5));
    let b = Array2::<f32>::ones((5, 4));
    assert!(fmadiv::ndarray::try_div(&a, &b).is_err());
    let mut out = Array2::<f32>::from_elem((4, 5), 7.0);
    assert!(fmadiv::ndarray::div_to(&a, &b, &mut out).is_err());
    assert!(out.iter().all(|&x| x == 7.0));
    let mut wrong = Array2::<f32>::from_elem((5, 5), 7.0);
    assert!(fmadiv::ndarray::div_to(&a, &a, &mut wrong).is_err());
    assert!(wrong.iter().all(|&x| x == 7.0));
    let mut x = a.clone();
    assert!(fmadiv::ndarray::div_assign(&mut x, &b).is_err());
    assert_eq!(x, a);
    let panicked = std::panic::catch_unwind(|| fmadiv::ndarray::div(&a, &b));
    assert!(panicked.is_err());
}
