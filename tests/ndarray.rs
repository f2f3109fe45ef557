//! `fmadiv::ndarray` against `/` over every layout: owned arrays, views, transposed,
//! strided, Fortran order, 3-D, 0-D, empty, and broadcast rows, columns and scalars.
#![cfg(feature = "ndarray")]

mod common;

use common::{SplitMix64, seed};
use ndarray::{
    Array, Array2, ArrayD, ArrayView, ArrayViewMut, AxisDescription, Dimension, IxDyn,
    ShapeBuilder, Slice, arr0, s,
};

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

/// `div`, `div_to` and `div_assign` of `a` by `b` (broadcast), and their rayon forms,
/// checked against `/`.
#[track_caller]
fn all_ways<D: Dimension, E: Dimension>(what: &str, a: ArrayView<f32, D>, b: ArrayView<f32, E>) {
    one_thread_ways(what, a.view(), b.view());
    rayon_ways(what, a, b);
}

/// `div`, `div_to` (into standard, Fortran-order and strided outputs) and `div_assign`.
#[track_caller]
fn one_thread_ways<D: Dimension, E: Dimension>(
    what: &str,
    a: ArrayView<f32, D>,
    b: ArrayView<f32, E>,
) {
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
    // Into a view with steps (every other element of every axis, the last one reversed):
    // the elements between are left as they were.
    const UNTOUCHED: u32 = 0x7fc0_5eed;
    let mut twice = a.raw_dim();
    twice.slice_mut().iter_mut().for_each(|n| *n *= 2);
    let mut spaced = Array::from_elem(twice, f32::from_bits(UNTOUCHED));
    let last = spaced.ndim().saturating_sub(1);
    let mut out_s = spaced.slice_each_axis_mut(|ax| {
        Slice::new(0, None, if ax.axis.index() == last { -2 } else { 2 })
    });
    fmadiv::ndarray::div_to(&a, &b, &mut out_s).unwrap();
    check(
        &format!("{what}: div_to, output with steps"),
        &a,
        &wide,
        &out_s.view(),
    );
    out_s.fill(f32::from_bits(UNTOUCHED));
    assert!(
        spaced.iter().all(|q| q.to_bits() == UNTOUCHED),
        "{what}: div_to wrote between the steps of its output"
    );
    let mut x = a.to_owned();
    fmadiv::ndarray::div_assign(&mut x, &b).unwrap();
    check(&format!("{what}: div_assign"), &a, &wide, &x.view());
    // Into the middle of wider rows (each row steps by one, the rows apart: a few columns of
    // a wider matrix), and in place there; the padding is left as it was.
    let mut wider = a.raw_dim();
    if let Some(n) = wider.slice_mut().last_mut() {
        *n += 3;
    }
    let middle = |ax: AxisDescription| match ax.axis.index() == last {
        true => Slice::from(1..1 + ax.len - 3),
        false => Slice::from(..),
    };
    let mut padded = Array::from_elem(wider, f32::from_bits(UNTOUCHED));
    let mut out_m = padded.slice_each_axis_mut(middle);
    fmadiv::ndarray::div_to(&a, &b, &mut out_m).unwrap();
    check(
        &format!("{what}: div_to, columns of a wider output"),
        &a,
        &wide,
        &out_m.view(),
    );
    out_m.assign(&a);
    fmadiv::ndarray::div_assign(&mut out_m, &b).unwrap();
    check(
        &format!("{what}: div_assign, columns of a wider array"),
        &a,
        &wide,
        &out_m.view(),
    );
    out_m.fill(f32::from_bits(UNTOUCHED));
    assert!(
        padded.iter().all(|q| q.to_bits() == UNTOUCHED),
        "{what}: div_to or div_assign wrote beside the columns"
    );
}

/// `par_div`, `par_div_to` (into a standard and a Fortran-order output) and
/// `par_div_assign` (on a copy and on a view with steps).
#[track_caller]
fn rayon_ways<D: Dimension, E: Dimension>(what: &str, a: ArrayView<f32, D>, b: ArrayView<f32, E>) {
    let wide = b.broadcast(a.raw_dim()).unwrap();
    let q = fmadiv::ndarray::par_div(&a, &b);
    check(&format!("{what}: par_div"), &a, &wide, &q.view());
    for fortran in [false, true] {
        let mut out = Array::zeros(a.raw_dim().set_f(fortran));
        fmadiv::ndarray::par_div_to(&a, &b, &mut out).unwrap();
        check(
            &format!("{what}: par_div_to (Fortran {fortran})"),
            &a,
            &wide,
            &out.view(),
        );
    }
    let mut x = a.to_owned();
    fmadiv::ndarray::par_div_assign(&mut x, &b).unwrap();
    check(&format!("{what}: par_div_assign"), &a, &wide, &x.view());
    let mut twice = a.raw_dim();
    twice.slice_mut().iter_mut().for_each(|n| *n *= 2);
    let mut spaced = Array::zeros(twice);
    let mut x = spaced.slice_each_axis_mut(|_| Slice::new(0, None, 2));
    x.assign(&a);
    fmadiv::ndarray::par_div_assign(&mut x, &b).unwrap();
    check(
        &format!("{what}: par_div_assign, with steps"),
        &a,
        &wide,
        &x.view(),
    );
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
    // Transposed beside standard over several tiles each way (64 lanes by 64 elements),
    // partial tiles at both ends, and a 1-D step over many gathered pieces.
    let big: Array2<f32> = random((150, 200), &mut rng);
    let big_b: Array2<f32> = random((200, 150), &mut rng);
    all_ways("standard by transposed, many tiles", big.view(), big_b.t());
    all_ways("transposed by standard, many tiles", big_b.t(), big.view());
    all_ways(
        "reversed by transposed and reversed",
        big.slice(s![..;-1, ..]),
        big_b.slice(s![..;-1, ..]).reversed_axes(),
    );
    let line: Array<f32, _> = random(3 * 9001, &mut rng);
    let line_b: Array<f32, _> = random(2 * 9001, &mut rng);
    all_ways(
        "1-D steps of 3 by 2",
        line.slice(s![..;3]),
        line_b.slice(s![..;2]),
    );
    let cube: Array<f32, _> = random((3, 70, 90), &mut rng);
    let cube_b: Array<f32, _> = random((3, 90, 70), &mut rng);
    all_ways(
        "3-D, planes transposed",
        cube.view(),
        cube_b.view().permuted_axes([0, 2, 1]),
    );
    all_ways(
        "3-D, axes rotated",
        cube.view().permuted_axes([1, 2, 0]),
        cube_b.view().permuted_axes([2, 1, 0]),
    );
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
    let no_columns = Array2::<f32>::zeros((5, 0));
    all_ways("empty rows", no_columns.view(), no_columns.view());
    // One row or one column with steps: the lane is the only long axis.
    let tall: Array2<f32> = random((600, 3), &mut rng);
    let tall_b: Array2<f32> = random((600, 3), &mut rng);
    all_ways(
        "one row with steps",
        tall.t().slice(s![1..2, ..;2]),
        tall_b.t().slice(s![2..3, ..;-2]),
    );
    all_ways(
        "one column with steps",
        tall.slice(s![..;2, 1..2]),
        tall_b.slice(s![..;-2, 0..1]),
    );
}

/// The rayon forms over arrays long enough for rayon's threads (at least 2^18 elements, cut
/// into blocks of 2^15 to 2^16 along the outermost axis): every layout's path runs block by
/// block, with blocks that end mid-tile and mid-row, and short rows a group at a time in
/// each block. (`all_ways` runs them on every smaller case too, where they divide on the
/// calling thread.)
#[test]
fn the_rayon_forms_match_the_divider_block_by_block() {
    let mut rng = SplitMix64(seed() ^ 2);
    let a: Array2<f32> = random((515, 523), &mut rng);
    let b: Array2<f32> = random((515, 523), &mut rng);
    let bt: Array2<f32> = random((523, 515), &mut rng);
    let row: Array<f32, _> = random(523, &mut rng);
    let column: Array2<f32> = random((515, 1), &mut rng);
    rayon_ways("standard", a.view(), b.view());
    rayon_ways("transposed views", a.t(), b.t());
    rayon_ways("standard by transposed", a.view(), bt.t());
    rayon_ways("transposed by standard", bt.t(), a.view());
    rayon_ways("by a row", a.view(), row.view());
    rayon_ways("by a column", a.view(), column.view());
    rayon_ways("transposed by a column", bt.t(), column.view());
    let wide: Array2<f32> = random((1030, 1569), &mut rng);
    rayon_ways(
        "views with steps",
        wide.slice(s![..;2, ..;3]),
        wide.slice(s![1..;2, ..;-3]),
    );
    let line: Array<f32, _> = random(300_007, &mut rng);
    rayon_ways("1-D", line.view(), line.slice(s![..;-1]));
    let cube: Array<f32, _> = random((7, 200, 201), &mut rng);
    let cube_t: Array<f32, _> = random((7, 201, 200), &mut rng);
    let cube_r: Array<f32, _> = random((200, 201, 7), &mut rng);
    rayon_ways(
        "3-D, planes transposed",
        cube.view(),
        cube_t.view().permuted_axes([0, 2, 1]),
    );
    rayon_ways(
        "3-D, axes rotated",
        cube_r.view().permuted_axes([2, 0, 1]),
        cube.view(),
    );
    let points: Array2<f32> = random((90_001, 3), &mut rng);
    let weights: Array2<f32> = random((90_001, 1), &mut rng);
    rayon_ways("short rows by a column", points.view(), weights.view());
    rayon_ways("short rows by a row", points.view(), points.row(7));
    let one_row: Array2<f32> = random((1, 270_001), &mut rng);
    rayon_ways("one long row", one_row.view(), one_row.slice(s![.., ..;-1]));
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

/// Short rows (fewer than 64 elements; up to 255 by one row for all), divided a group of
/// 1024 elements' whole rows at a time: by a row, a column, a scalar, a full divisor in
/// another layout (gathered row by row) and a transposed one; in Fortran order, in 3-D,
/// rows of one element, groups that end mid-array, and one row of a group's quarter either
/// side of the limit; small arrays either side of the stack buffer's 256 elements; and
/// dividends that are columns of a wider matrix (rows not contiguous with one another).
#[test]
fn short_rows_match_the_divider() {
    let mut rng = SplitMix64(seed() ^ 3);
    for columns in [1, 3, 8, 63, 64, 100, 255, 256] {
        let a: Array2<f32> = random((700, columns), &mut rng);
        let row: Array<f32, _> = random(columns, &mut rng);
        let column: Array2<f32> = random((700, 1), &mut rng);
        let full_t: Array2<f32> = random((columns, 700), &mut rng);
        let what = |w: &str| format!("rows of {columns} {w}");
        all_ways(&what("by a row"), a.view(), row.view());
        all_ways(&what("by a column"), a.view(), column.view());
        all_ways(&what("by a scalar"), a.view(), arr0(3.0f32).view());
        all_ways(&what("by a transposed divisor"), a.view(), full_t.t());
        all_ways(
            &what("by a divisor with steps"),
            a.view(),
            full_t.t().slice(s![..;-1, ..]),
        );
        let mut fortran = Array2::zeros((700, columns).f());
        fortran.assign(&a);
        all_ways(
            &what("in Fortran order by a column"),
            fortran.view(),
            column.view(),
        );
        all_ways(
            &what("in Fortran order by a row"),
            fortran.view(),
            row.view(),
        );
    }
    // Small arrays, whose divisors' buffer is on the stack up to 256 elements: each side of
    // that, and the smallest.
    for (rows, columns) in [(2, 3), (4, 4), (16, 16), (3, 85), (2, 129), (1, 5)] {
        let a: Array2<f32> = random((rows, columns + 2), &mut rng);
        let row: Array<f32, _> = random(columns, &mut rng);
        let column: Array2<f32> = random((rows, 1), &mut rng);
        let what = |w: &str| format!("a small {rows}x{columns} array {w}");
        let a_columns = a.slice(s![.., 1..=columns]);
        all_ways(&what("by a row"), a_columns.to_owned().view(), row.view());
        all_ways(
            &what("by a column"),
            a_columns.to_owned().view(),
            column.view(),
        );
        all_ways(&what("of columns, by a row"), a_columns, row.view());
    }
    // Dividends that are a few columns of a wider matrix: rows gathered a group at a time.
    let wider: Array2<f32> = random((700, 520), &mut rng);
    for columns in [1, 3, 8, 63, 64, 255] {
        let a = wider.slice(s![.., 5..5 + columns]);
        let row: Array<f32, _> = random(columns, &mut rng);
        let column: Array2<f32> = random((700, 1), &mut rng);
        let full: Array2<f32> = random((700, columns), &mut rng);
        let full_t: Array2<f32> = random((columns, 700), &mut rng);
        let what = |w: &str| format!("{columns} columns of a wider matrix {w}");
        all_ways(&what("by a row"), a, row.view());
        all_ways(&what("by a column"), a, column.view());
        all_ways(&what("by a full divisor"), a, full.view());
        all_ways(&what("by a transposed divisor"), a, full_t.t());
        all_ways(&what("in Fortran order by a column"), a.t(), column.t());
        let stepped = wider.slice(s![.., 5..5 + 2 * columns;2]);
        all_ways(&what("every other one, by a row"), stepped, row.view());
    }
    let cube: Array<f32, _> = random((9, 11, 5), &mut rng);
    let plane: Array<f32, _> = random((11, 5), &mut rng);
    let pillars: Array<f32, _> = random((9, 11, 1), &mut rng);
    all_ways("3-D rows of 5 by a plane", cube.view(), plane.view());
    all_ways(
        "3-D rows of 5 by a column per row",
        cube.view(),
        pillars.view(),
    );
    let mut cube_f = Array::zeros((9, 11, 5).f());
    cube_f.assign(&cube);
    all_ways("3-D Fortran order by a plane", cube_f.view(), plane.view());
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
    // The rayon forms, over an array long enough for the pool.
    let long = Array2::<f32>::from_elem((600, 500), 5.0);
    let crosswise = Array2::<f32>::ones((500, 600));
    assert!(fmadiv::ndarray::try_par_div(&long, &crosswise).is_err());
    let mut out = Array2::<f32>::from_elem((600, 500), 7.0);
    assert!(fmadiv::ndarray::par_div_to(&long, &crosswise, &mut out).is_err());
    let mut wrong = Array2::<f32>::from_elem((500, 600), 7.0);
    assert!(fmadiv::ndarray::par_div_to(&long, &long, &mut wrong).is_err());
    assert!(out.iter().chain(&wrong).all(|&x| x == 7.0));
    let mut x = long.clone();
    assert!(fmadiv::ndarray::par_div_assign(&mut x, &crosswise).is_err());
    assert_eq!(x, long);
    let panicked = std::panic::catch_unwind(|| fmadiv::ndarray::par_div(&long, &crosswise));
    assert!(panicked.is_err());
}

/// Every path of `fmadiv::ndarray` that reaches the slice functions runs the plan's loop there, not
/// a `/` of its own (which gives the same bits): read through the mixed loop's back-off
/// (`common::PlansLoops`). The paths: one flat division into fresh memory (contiguous operands),
/// fresh rows divided lane by lane (a broadcast row divisor), a strided operand gathered a piece at
/// a time, a transposed one a tile at a time, `div_to` flat, lane by lane and into a strided
/// output, and `div_assign` flat, lane by lane, strided and by a transposed divisor; and short rows
/// a group at a time (`div`, `div_to`, `div_assign`; contiguous, and as columns of a wider matrix).
/// A column divisor goes to `div_scalar`: [`a_column_divisor_runs_the_divisors_chunks`] reads that
/// path.
#[cfg(fmadiv_x86)]
#[test]
fn every_path_runs_the_plans_loop() {
    const NAME: &str = "every_path_runs_the_plans_loop";
    // The elements `fmadiv::ndarray` gathers from a strided lane at a time (256), and from
    // each of two lanes by a transposed divisor into a tile (2048): a step longer than that
    // runs on the divider, as it should.
    const PIECE: usize = 256;
    const TILE_LANE: usize = 2048;
    // The elements of a group of short rows (whole rows of them).
    const ROW_GROUP: usize = 1024;
    let Some(probe) = common::PlansLoops::of_this_process(NAME, fmadiv::EntryPoint::Div) else {
        return;
    };
    let (x, y) = probe.failing_step();
    let n = x.len();
    let (a, b) = (Array::from(x.clone()), Array::from(y.clone()));
    // Two rows of one step each over one row, and the step's operands every other element.
    let rows = Array2::from_shape_fn((2, n), |(_, j)| x[j]);
    let every_other = |v: &[f32]| Array::from_shape_fn(2 * n, |i| v[i / 2]);
    let (a_wide, b_wide) = (every_other(&x), every_other(&y));
    let (a_strided, b_strided) = (a_wide.slice(s![..;2]), b_wide.slice(s![..;2]));
    assert!(a_strided.as_slice().is_none() && b_strided.as_slice().is_none());
    // The divisor row twice, as a transposed view: stride 2 along the rows.
    let columns = Array2::from_shape_fn((n, 2), |(i, _)| y[i]);
    let transposed = columns.t();
    // The step as short rows (of 8, or fewer where 8 does not divide it), its divisors a
    // transposed view: gathered a group of rows at a time, the step one group.
    let short = [8, 4, 2, 1].into_iter().find(|r| n % r == 0).unwrap();
    let short_a = Array2::from_shape_vec((n / short, short), x.clone()).unwrap();
    let short_b_t = Array2::from_shape_fn((short, n / short), |(j, i)| y[i * short + j]);
    let short_b = short_b_t.t();
    // The same short rows as columns of a wider matrix: gathered, and written back row by
    // row.
    let mut short_wide = Array2::zeros((n / short, short + 2));
    short_wide.slice_mut(s![.., 1..=short]).assign(&short_a);
    let short_columns = short_wide.slice(s![.., 1..=short]);
    type Call<'a> = &'a (dyn Fn() + Sync);
    let calls: [(&str, Call); 17] = [
        ("div, contiguous", &|| drop(fmadiv::ndarray::div(&a, &b))),
        ("div, rows by a row", &|| {
            drop(fmadiv::ndarray::div(&rows, &b))
        }),
        ("div, strided", &|| {
            drop(fmadiv::ndarray::div(&a_strided, &b_strided))
        }),
        ("div_to, contiguous", &|| {
            fmadiv::ndarray::div_to(&a, &b, &mut Array::zeros(n)).unwrap()
        }),
        ("div_to, rows by a row", &|| {
            let mut out = Array2::zeros((2, n));
            fmadiv::ndarray::div_to(&rows, &b, &mut out).unwrap();
        }),
        ("div_assign, contiguous", &|| {
            fmadiv::ndarray::div_assign(&mut a.clone(), &b).unwrap()
        }),
        ("div_to, into a strided output", &|| {
            let mut wide = Array::zeros(2 * n);
            fmadiv::ndarray::div_to(&a, &b, &mut wide.slice_mut(s![..;2])).unwrap();
        }),
        ("div_assign, rows by a row", &|| {
            fmadiv::ndarray::div_assign(&mut rows.clone(), &b).unwrap()
        }),
        ("div_assign, strided", &|| {
            let mut wide = a_wide.clone();
            fmadiv::ndarray::div_assign(&mut wide.slice_mut(s![..;2]), &b).unwrap();
        }),
        ("div, by a transposed divisor", &|| {
            drop(fmadiv::ndarray::div(&rows, &transposed))
        }),
        ("div_assign, by a transposed divisor", &|| {
            fmadiv::ndarray::div_assign(&mut rows.clone(), &transposed).unwrap()
        }),
        ("div, short rows", &|| {
            drop(fmadiv::ndarray::div(&short_a, &short_b))
        }),
        ("div_to, short rows", &|| {
            let mut out = Array2::zeros(short_a.raw_dim());
            fmadiv::ndarray::div_to(&short_a, &short_b, &mut out).unwrap();
        }),
        ("div_assign, short rows", &|| {
            fmadiv::ndarray::div_assign(&mut short_a.clone(), &short_b).unwrap()
        }),
        ("div, columns as short rows", &|| {
            drop(fmadiv::ndarray::div(&short_columns, &short_b))
        }),
        ("div_to, into columns as short rows", &|| {
            let mut out = short_wide.clone();
            let mut columns = out.slice_mut(s![.., 1..=short]);
            fmadiv::ndarray::div_to(&short_a, &short_b, &mut columns).unwrap();
        }),
        ("div_assign, columns as short rows", &|| {
            let mut x = short_wide.clone();
            fmadiv::ndarray::div_assign(&mut x.slice_mut(s![.., 1..=short]), &short_b).unwrap();
        }),
    ];
    for (what, call) in calls {
        let tile = match what {
            w if w.contains("strided") => PIECE,
            w if w.ends_with("transposed divisor") => TILE_LANE,
            w if w.ends_with("short rows") && short > 1 => ROW_GROUP / short * short,
            _ => usize::MAX,
        };
        if n > tile {
            eprintln!(
                "{what}: SKIPPED, a gathered lane ({tile}) is shorter than the probe's slice ({n})"
            );
            continue;
        }
        probe.assert_runs_the_plans_loop(what, call);
    }
}

/// A column divisor goes to `div_scalar`, which divides a lane as long as the plan's first
/// slice by a `Divisor`'s flag-checked chunks: read through their back-off, which belongs to
/// the thread (`common::two_products_where_wrong` shows a chunk's lanes: wrong where the
/// sequence ran, right where the divider did). Dividends whose quotients underflow void
/// every chunk of the public call, so the thread's next chunk goes to the divider, where a
/// fresh thread's runs the sequence. A lane divided by a `/` of its own leaves no back-off.
#[cfg(fmadiv_x86)]
#[test]
fn a_column_divisor_runs_the_divisors_chunks() {
    use fmadiv::verify::FLAG_CHUNK;
    if fmadiv::backend() == fmadiv::Backend::Portable {
        common::skipped_once("a Divisor's chunks (no SIMD backend: the divider always)");
        return;
    }
    let lens = fmadiv::plan().choices().divisor;
    let lane = lens.first_proof_from.max(lens.sequence_from);
    if lane > 1 << 18 {
        eprintln!(
            "a_column_divisor_runs_the_divisors_chunks: SKIPPED, the plan proves no first slice"
        );
        return;
    }
    let (b, weakened, wrong) = common::two_products_where_wrong();
    let x: Vec<f32> = wrong
        .iter()
        .copied()
        .cycle()
        .take(FLAG_CHUNK.max(lens.sequence_from))
        .collect();
    let backend = fmadiv::backend();
    let first_chunk_is_the_sequences = || {
        let mut out = vec![0.0f32; x.len()];
        weakened.divide_slice(&x, &mut out);
        // The first chunk: its whole vectors after the head to the output's boundary, which
        // the divider takes.
        let head = fmadiv::verify::divisor::two_products_head(backend, &out);
        let whole = (x.len() - head) / backend.lanes() * backend.lanes();
        let chunk = head..head + FLAG_CHUNK.min(whole);
        let sequence = chunk
            .clone()
            .filter(|&i| out[i].to_bits() != (x[i] / b).to_bits())
            .count();
        assert!(
            sequence == 0 || sequence == chunk.len(),
            "{sequence} of the first chunk's {} lanes",
            chunk.len()
        );
        sequence == chunk.len()
    };
    assert!(
        common::on_a_fresh_thread(first_chunk_is_the_sequences),
        "a fresh thread's first chunk"
    );
    // Two rows of a first slice's length, each over its own divisor (3, two products).
    let tiny = f32::from_bits(3);
    let a = Array2::from_elem((2, lane), tiny);
    let column = Array2::from_elem((2, 1), 3.0f32);
    assert_eq!((tiny / 3.0).to_bits(), 1, "an underflowing quotient");
    let backed_off = common::on_a_fresh_thread(|| {
        let q = fmadiv::ndarray::div(&a, &column);
        assert!(q.iter().all(|q| q.to_bits() == 1));
        !first_chunk_is_the_sequences()
    });
    assert!(
        backed_off,
        "div by a column ({lane} elements a row): no back-off left, so not a Divisor's chunks"
    );
}

/// Asserts `r == 1 / b` bit for bit.
#[track_caller]
fn check_recip<D: Dimension>(what: &str, b: &ArrayView<f32, D>, r: &ArrayView<f32, D>) {
    assert_eq!(r.shape(), b.shape(), "{what}");
    for ((idx, &y), &got) in b.indexed_iter().zip(r.iter()) {
        let want = 1.0 / y;
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{what} at {idx:?}: 1 / {:#010x} gave {:#010x}, want {:#010x}",
            y.to_bits(),
            got.to_bits(),
            want.to_bits()
        );
    }
}

/// `recip` and `recip_to` (into standard, Fortran-order and strided outputs, and into
/// columns of a wider one), `recip_assign` in those four layouts, and their rayon forms,
/// checked against `1 / b`; the elements between and beside a strided output's are left as
/// they were.
#[track_caller]
fn recip_ways<D: Dimension>(what: &str, b: ArrayView<f32, D>) {
    const UNTOUCHED: u32 = 0x7fc0_5eed;
    let r = fmadiv::ndarray::recip(&b);
    check_recip(&format!("{what}: recip"), &b, &r.view());
    let r = fmadiv::ndarray::par_recip(&b);
    check_recip(&format!("{what}: par_recip"), &b, &r.view());
    for fortran in [false, true] {
        let mut out = Array::zeros(b.raw_dim().set_f(fortran));
        fmadiv::ndarray::recip_to(&b, &mut out).unwrap();
        check_recip(
            &format!("{what}: recip_to (Fortran {fortran})"),
            &b,
            &out.view(),
        );
        let mut out = Array::zeros(b.raw_dim().set_f(fortran));
        fmadiv::ndarray::par_recip_to(&b, &mut out).unwrap();
        check_recip(
            &format!("{what}: par_recip_to (Fortran {fortran})"),
            &b,
            &out.view(),
        );
        in_place_ways(&format!("{what} (Fortran {fortran})"), &b, out.view_mut());
    }
    let last = b.ndim().saturating_sub(1);
    let mut twice = b.raw_dim();
    twice.slice_mut().iter_mut().for_each(|n| *n *= 2);
    let mut spaced = Array::from_elem(twice, f32::from_bits(UNTOUCHED));
    let mut out_s = spaced.slice_each_axis_mut(|ax| {
        Slice::new(0, None, if ax.axis.index() == last { -2 } else { 2 })
    });
    fmadiv::ndarray::recip_to(&b, &mut out_s).unwrap();
    check_recip(
        &format!("{what}: recip_to, output with steps"),
        &b,
        &out_s.view(),
    );
    in_place_ways(&format!("{what}, with steps"), &b, out_s.view_mut());
    out_s.fill(f32::from_bits(UNTOUCHED));
    let mut wider = b.raw_dim();
    if let Some(n) = wider.slice_mut().last_mut() {
        *n += 3;
    }
    let mut padded = Array::from_elem(wider, f32::from_bits(UNTOUCHED));
    let mut out_m = padded.slice_each_axis_mut(|ax| match ax.axis.index() == last {
        true => Slice::from(1..1 + ax.len - 3),
        false => Slice::from(..),
    });
    fmadiv::ndarray::par_recip_to(&b, &mut out_m).unwrap();
    check_recip(
        &format!("{what}: par_recip_to, columns of a wider output"),
        &b,
        &out_m.view(),
    );
    in_place_ways(
        &format!("{what}, columns of a wider array"),
        &b,
        out_m.view_mut(),
    );
    out_m.fill(f32::from_bits(UNTOUCHED));
    assert!(
        spaced
            .iter()
            .chain(&padded)
            .all(|r| r.to_bits() == UNTOUCHED),
        "{what}: recip_to or recip_assign wrote between or beside the elements of its output"
    );
}

/// `recip_assign` and `par_recip_assign` on `place` (an array or view of `b`'s shape),
/// holding `b`'s values first, checked against `1 / b`.
#[track_caller]
fn in_place_ways<D: Dimension>(what: &str, b: &ArrayView<f32, D>, mut place: ArrayViewMut<f32, D>) {
    place.assign(b);
    fmadiv::ndarray::recip_assign(&mut place);
    check_recip(&format!("{what}: recip_assign"), b, &place.view());
    place.assign(b);
    fmadiv::ndarray::par_recip_assign(&mut place);
    check_recip(&format!("{what}: par_recip_assign"), b, &place.view());
}

/// `recip` and its forms over every layout: contiguous in either order, transposed, with
/// steps either way, broadcast, 3-D and dynamic, 0-D and empty, over random bit patterns
/// (every special) and normal values; and, long enough for rayon's threads (2^18 elements
/// and more), block by block.
#[test]
fn reciprocals_match_the_divider_in_every_layout() {
    let mut rng = SplitMix64(seed() ^ 3);
    let b: Array2<f32> = random((67, 131), &mut rng);
    recip_ways("standard layout", b.view());
    recip_ways("transposed view", b.t());
    let fortran = b.t().to_owned().reversed_axes();
    recip_ways("Fortran order", fortran.view());
    recip_ways("columns of a wider matrix", b.slice(s![.., 3..70]));
    recip_ways("strided", b.slice(s![..;-2, 1..;3]));
    recip_ways("reversed", b.slice(s![.., ..;-1]));
    recip_ways(
        "transposed with steps",
        b.slice(s![..;2, ..]).reversed_axes(),
    );
    let line: Array<f32, _> = random(3 * 9001, &mut rng);
    recip_ways("1-D steps of 3 over many pieces", line.slice(s![..;-3]));
    recip_ways("1-D", line.view());
    let row: Array<f32, _> = random(131, &mut rng);
    recip_ways("a row broadcast", row.broadcast((67, 131)).unwrap());
    let column: Array2<f32> = random((67, 1), &mut rng);
    recip_ways("a column broadcast", column.broadcast((67, 131)).unwrap());
    let cube: Array<f32, _> = random((3, 70, 90), &mut rng);
    recip_ways("3-D", cube.view());
    recip_ways("3-D, axes rotated", cube.view().permuted_axes([1, 2, 0]));
    recip_ways("3-D, planes with steps", cube.slice(s![.., ..;3, 1..;2]));
    let dynamic: ArrayD<f32> = random(IxDyn(&[4, 3, 2, 5]), &mut rng);
    recip_ways("dynamic dimension", dynamic.view());
    recip_ways("0-D", arr0(0.99999994f32).view());
    recip_ways("empty", Array2::<f32>::zeros((0, 5)).view());
    recip_ways("empty rows", Array2::<f32>::zeros((5, 0)).view());
    let tall: Array2<f32> = random((600, 3), &mut rng);
    recip_ways("short rows", tall.view());
    recip_ways("short rows, two columns of three", tall.slice(s![.., 1..]));
    recip_ways("short rows with steps", tall.slice(s![..;3, ..;-2]));
    recip_ways("short rows, Fortran order", tall.t());
    recip_ways(
        "short rows, one row broadcast",
        tall.row(5).broadcast((700, 3)).unwrap(),
    );
    let weights: Array2<f32> = random((600, 1), &mut rng);
    recip_ways(
        "short rows, a column broadcast",
        weights.broadcast((600, 3)).unwrap(),
    );
    recip_ways("one row with steps", tall.t().slice(s![1..2, ..;-2]));
    recip_ways("one column with steps", tall.slice(s![..;2, 1..2]));
    let specials = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        -f32::INFINITY,
        f32::NAN,
        -f32::NAN,
    ];
    let specials = Array::from_shape_fn(4096, |i| match i % 7 {
        0..=5 => specials[i % 7],
        _ => f32::from_bits(0x7fa0_0001 + i as u32), // a signalling NaN's payload
    });
    recip_ways("specials", specials.view());
    // Long enough for the pool.
    let big: Array2<f32> = random((515, 523), &mut rng);
    recip_ways("standard, on the pool", big.view());
    recip_ways("transposed, on the pool", big.t());
    let wide: Array2<f32> = random((1030, 1569), &mut rng);
    recip_ways("with steps, on the pool", wide.slice(s![..;2, ..;-3]));
    let cube: Array<f32, _> = random((7, 200, 201), &mut rng);
    recip_ways(
        "3-D rotated, on the pool",
        cube.view().permuted_axes([2, 0, 1]),
    );
    let points: Array2<f32> = random((90_001, 4), &mut rng);
    recip_ways("short rows, on the pool", points.slice(s![.., ..3]));
}

/// `recip_to` and `par_recip_to` into an output of another shape: an error, nothing written.
#[test]
fn reciprocals_into_another_shape_are_errors_and_write_nothing() {
    let b = Array2::from_elem((4, 6), 3.0f32);
    for shape in [(6, 4), (4, 5), (1, 6)] {
        let mut out = Array2::from_elem(shape, 7.0f32);
        assert!(
            fmadiv::ndarray::recip_to(&b, &mut out).is_err(),
            "{shape:?}"
        );
        assert!(
            fmadiv::ndarray::par_recip_to(&b, &mut out).is_err(),
            "{shape:?}"
        );
        assert!(out.iter().all(|&v| v == 7.0), "{shape:?}: written");
    }
}

/// Every path of `recip`, `recip_to` and `recip_assign` runs the plan's `recip` loop (read
/// as in [`every_path_runs_the_plans_loop`]): flat, short rows a group at a time, lane by
/// lane (rows of a wider matrix), a view with steps gathered a piece at a time, and into an
/// output with steps.
#[cfg(fmadiv_x86)]
#[test]
fn every_reciprocal_path_runs_the_plans_loop() {
    const NAME: &str = "every_reciprocal_path_runs_the_plans_loop";
    // The elements gathered from a lane with steps at a time.
    const PIECE: usize = 256;
    let Some(probe) = common::PlansLoops::of_this_process(NAME, fmadiv::EntryPoint::Recip) else {
        return;
    };
    let (_, y) = probe.failing_step();
    let n = y.len();
    let b = Array::from(y.clone());
    // Two rows of the step, the first columns of a wider matrix: each row contiguous.
    let wider = Array2::from_shape_fn((2, n + 3), |(_, j)| y.get(j).copied().unwrap_or(1.0));
    let rows = wider.slice(s![.., ..n]);
    let every_other = Array::from_shape_fn(2 * n, |i| y[i / 2]);
    let strided = every_other.slice(s![..;2]);
    assert!(rows.as_slice().is_none() && strided.as_slice().is_none());
    // The step as short rows (of 8, or fewer where 8 does not divide it), columns of a
    // wider matrix: gathered a group of rows at a time, the step one group.
    let short = [8, 4, 2, 1].into_iter().find(|r| n % r == 0).unwrap();
    let mut short_wide = Array2::zeros((n / short, short + 2));
    for (i, v) in short_wide
        .slice_mut(s![.., 1..=short])
        .iter_mut()
        .enumerate()
    {
        *v = y[i];
    }
    let short_columns = short_wide.slice(s![.., 1..=short]);
    type Call<'a> = &'a (dyn Fn() + Sync);
    let calls: [(&str, Call); 11] = [
        ("recip, contiguous", &|| drop(fmadiv::ndarray::recip(&b))),
        ("recip, columns as short rows", &|| {
            drop(fmadiv::ndarray::recip(&short_columns))
        }),
        ("recip_to, into columns as short rows", &|| {
            let mut out = short_wide.clone();
            let mut columns = out.slice_mut(s![.., 1..=short]);
            fmadiv::ndarray::recip_to(&short_columns, &mut columns).unwrap();
        }),
        ("recip, rows of a wider matrix", &|| {
            drop(fmadiv::ndarray::recip(&rows))
        }),
        ("recip, strided", &|| drop(fmadiv::ndarray::recip(&strided))),
        ("recip_to, contiguous", &|| {
            fmadiv::ndarray::recip_to(&b, &mut Array::zeros(n)).unwrap()
        }),
        ("recip_to, into a strided output", &|| {
            let mut wide = Array::zeros(2 * n);
            fmadiv::ndarray::recip_to(&b, &mut wide.slice_mut(s![..;2])).unwrap();
        }),
        ("recip_assign, contiguous", &|| {
            fmadiv::ndarray::recip_assign(&mut b.clone())
        }),
        ("recip_assign, columns as short rows", &|| {
            let mut all = short_wide.clone();
            fmadiv::ndarray::recip_assign(&mut all.slice_mut(s![.., 1..=short]));
        }),
        ("recip_assign, rows of a wider matrix", &|| {
            fmadiv::ndarray::recip_assign(&mut wider.clone().slice_mut(s![.., ..n]))
        }),
        ("recip_assign, strided", &|| {
            fmadiv::ndarray::recip_assign(&mut every_other.clone().slice_mut(s![..;2]))
        }),
    ];
    for (what, call) in calls {
        let group = match what {
            w if w.contains("strided") => PIECE,
            w if w.ends_with("short rows") && short > 1 => 1024 / short * short,
            _ => usize::MAX,
        };
        if n > group {
            eprintln!(
                "{what}: SKIPPED, a gathered group ({group}) is shorter than the probe's slice ({n})"
            );
            continue;
        }
        probe.assert_runs_the_plans_loop(what, call);
    }
}
