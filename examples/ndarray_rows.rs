//! `fmadiv::ndarray` on a 1024×1024 `f32` matrix: elementwise `a / b`, every row divided
//! by one row (`a / row`), every row by its own sum (a column broadcast), a transposed
//! operand either side (divided tile by tile) and in place, and every other row's every
//! third element (a strided view, lane by lane); and as many elements in short rows (of 8
//! by one row and by their sums, of 3 by a column: divided a group of rows at a time), the
//! same short rows as columns of wider matrices (8 of 16, 3 of 4: gathered a group at a
//! time), and both operands such columns (8 of 16 by 8 of 16, 3 of 4 by 3 of 4: both
//! gathered), each against ndarray's own `/` — bits checked, then timed alternately in one
//! process.
//!
//! ```sh
//! cargo run --release --example ndarray_rows --features ndarray
//! cargo run --release --example ndarray_rows --features ndarray -- stepped  # that case only
//! ```

mod common;

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array1, Array2, Axis, s};

const N: usize = 1024;

fn check(what: &str, got: &Array2<f32>, want: &Array2<f32>) {
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.to_bits(), w.to_bits(), "{what}: bits differ");
    }
}

/// What a case measured: the median ratio (ndarray time / fmadiv time) of alternating
/// rounds, its range, and each side's median time in microseconds.
struct Race {
    ratio: f64,
    min: f64,
    max: f64,
    ndarray_us: f64,
    fmadiv_us: f64,
}

fn race(ndarray_way: impl Fn() -> Array2<f32>, fmadiv_way: impl Fn() -> Array2<f32>) -> Race {
    let rounds = 21;
    let (mut ratios, mut ndarray_us, mut fmadiv_us) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let time = |f: &dyn Fn() -> Array2<f32>| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64() * 1e6
        };
        let (n, f) = if round % 2 == 0 {
            (time(&ndarray_way), time(&fmadiv_way))
        } else {
            let f = time(&fmadiv_way);
            (time(&ndarray_way), f)
        };
        ratios.push(n / f);
        ndarray_us.push(n);
        fmadiv_us.push(f);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[rounds / 2]
    };
    Race {
        ratio: median(&mut ratios),
        min: ratios[0],
        max: ratios[rounds - 1],
        ndarray_us: median(&mut ndarray_us),
        fmadiv_us: median(&mut fmadiv_us),
    }
}

fn main() {
    let mut normal = common::normal_values();
    let a = Array2::from_shape_simple_fn((N, N), &mut normal);
    let b = Array2::from_shape_simple_fn((N, N), &mut normal);
    let row = Array1::from_shape_simple_fn(N, &mut normal);
    let positive = a.mapv(f32::abs);
    let sums = positive.sum_axis(Axis(1)).insert_axis(Axis(1));

    check("a / b", &fmadiv::ndarray::div(&a, &b), &(&a / &b));
    check("a / row", &fmadiv::ndarray::div(&a, &row), &(&a / &row));
    check(
        "rows / their sums",
        &fmadiv::ndarray::div(&positive, &sums),
        &(&positive / &sums),
    );
    check(
        "transposed a / b",
        &fmadiv::ndarray::div(&a.t(), &b),
        &(&a.t() / &b),
    );
    check(
        "a / transposed b",
        &fmadiv::ndarray::div(&a, &b.t()),
        &(&a / &b.t()),
    );
    let in_place = |x: &Array2<f32>| {
        let mut x = x.clone();
        fmadiv::ndarray::div_assign(&mut x, &b.t()).unwrap();
        x
    };
    let in_place_ndarray = |x: &Array2<f32>| {
        let mut x = x.clone();
        x /= &b.t();
        x
    };
    check("a /= transposed b", &in_place(&a), &in_place_ndarray(&a));
    let stepped = |m: &Array2<f32>| m.slice(s![..;2, ..;3]).to_owned();
    let (a_stepped, b_stepped) = (a.slice(s![..;2, ..;3]), b.slice(s![..;2, ..;3]));
    check(
        "stepped a / b",
        &fmadiv::ndarray::div(&a_stepped, &b_stepped),
        &(&stepped(&a) / &stepped(&b)),
    );

    // Short rows, as many elements as the matrices: rows of 8 by one row (features scaled)
    // and by their sums, rows of 3 by a column (points by their weights).
    let eights = Array2::from_shape_simple_fn((N * N / 8, 8), &mut normal);
    let eight = Array1::from_shape_simple_fn(8, &mut normal);
    let eight_sums = eights.mapv(f32::abs).sum_axis(Axis(1)).insert_axis(Axis(1));
    let threes = Array2::from_shape_simple_fn((N * N / 3, 3), &mut normal);
    let weights = Array2::from_shape_simple_fn((N * N / 3, 1), &mut normal);
    check(
        "rows of 8 / row",
        &fmadiv::ndarray::div(&eights, &eight),
        &(&eights / &eight),
    );
    check(
        "rows of 8 / their sums",
        &fmadiv::ndarray::div(&eights, &eight_sums),
        &(&eights / &eight_sums),
    );
    check(
        "rows of 3 / a column",
        &fmadiv::ndarray::div(&threes, &weights),
        &(&threes / &weights),
    );

    // The same rows as columns of wider matrices (rows not contiguous with one another):
    // the first 8 of 16 columns by one row, the first 3 of 4 (x, y, z of x, y, z, w) by a
    // column.
    let sixteens = Array2::from_shape_simple_fn((N * N / 8, 16), &mut normal);
    let eights_of_16 = sixteens.slice(s![.., ..8]);
    let fours = Array2::from_shape_simple_fn((N * N / 3, 4), &mut normal);
    let threes_of_4 = fours.slice(s![.., ..3]);
    // Divisors in such columns too: the other half of a second matrix, the last 3 of 4.
    let sixteens_b = Array2::from_shape_simple_fn((N * N / 8, 16), &mut normal);
    let other_eights_of_16 = sixteens_b.slice(s![.., 8..]);
    let fours_b = Array2::from_shape_simple_fn((N * N / 3, 4), &mut normal);
    let other_threes_of_4 = fours_b.slice(s![.., 1..]);
    check(
        "8 of 16 columns / 8 of 16",
        &fmadiv::ndarray::div(&eights_of_16, &other_eights_of_16),
        &(&eights_of_16 / &other_eights_of_16),
    );
    check(
        "3 of 4 columns / 3 of 4",
        &fmadiv::ndarray::div(&threes_of_4, &other_threes_of_4),
        &(&threes_of_4 / &other_threes_of_4),
    );
    check(
        "8 of 16 columns / row",
        &fmadiv::ndarray::div(&eights_of_16, &eight),
        &(&eights_of_16 / &eight),
    );
    check(
        "3 of 4 columns / a column",
        &fmadiv::ndarray::div(&threes_of_4, &weights),
        &(&threes_of_4 / &weights),
    );

    let cpu = common::cpu();
    let json = std::env::args().any(|a| a == "--json");
    let mut rows = Vec::new();
    // A word on the command line runs only the cases whose names hold it (for a profiler).
    let only = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let mut show = |what: &str, run: &dyn Fn() -> Race| {
        if only.as_ref().is_some_and(|o| !what.contains(o.as_str())) {
            return;
        }
        let r = run();
        let (m, lo, hi) = (r.ratio, r.min, r.max);
        if json {
            rows.push(format!(
                r#"{{"case":"{what}","vs_ndarray":{m:.4},"min":{lo:.4},"max":{hi:.4}}}"#
            ));
        } else {
            let (n, f) = (r.ndarray_us, r.fmadiv_us);
            println!(
                "  {what:<40} {m:.2}x ndarray's own / (range {lo:.2}..{hi:.2}, 21 rounds; \
                 medians {n:.0} us and {f:.0} us)"
            );
        }
    };
    if !json {
        println!("ndarray_rows: {N}x{N} f32, bits equal to ndarray's / in every case; {cpu}");
    }
    show("a / b", &|| {
        race(|| &a / &b, || fmadiv::ndarray::div(&a, &b))
    });
    show("a / row (row broadcast)", &|| {
        race(|| &a / &row, || fmadiv::ndarray::div(&a, &row))
    });
    show("rows / their sums (column bcast)", &|| {
        race(
            || &positive / &sums,
            || fmadiv::ndarray::div(&positive, &sums),
        )
    });
    show("transposed a / b", &|| {
        race(|| &a.t() / &b, || fmadiv::ndarray::div(&a.t(), &b))
    });
    show("a / transposed b", &|| {
        race(|| &a / &b.t(), || fmadiv::ndarray::div(&a, &b.t()))
    });
    show("a /= transposed b (a copy of a each)", &|| {
        race(|| in_place_ndarray(&a), || in_place(&a))
    });
    show("stepped a / b (rows ..;2, columns ..;3)", &|| {
        race(
            || &a_stepped / &b_stepped,
            || fmadiv::ndarray::div(&a_stepped, &b_stepped),
        )
    });
    show("short rows: 131072x8 / row", &|| {
        race(
            || &eights / &eight,
            || fmadiv::ndarray::div(&eights, &eight),
        )
    });
    show("short rows: 131072x8 / their sums", &|| {
        race(
            || &eights / &eight_sums,
            || fmadiv::ndarray::div(&eights, &eight_sums),
        )
    });
    show("short rows: 349525x3 / a column", &|| {
        race(
            || &threes / &weights,
            || fmadiv::ndarray::div(&threes, &weights),
        )
    });
    show("short columns: 8 of 16 / row", &|| {
        race(
            || &eights_of_16 / &eight,
            || fmadiv::ndarray::div(&eights_of_16, &eight),
        )
    });
    show("short columns: 3 of 4 / a column", &|| {
        race(
            || &threes_of_4 / &weights,
            || fmadiv::ndarray::div(&threes_of_4, &weights),
        )
    });
    show("short columns: 8 of 16 / 8 of 16", &|| {
        race(
            || &eights_of_16 / &other_eights_of_16,
            || fmadiv::ndarray::div(&eights_of_16, &other_eights_of_16),
        )
    });
    show("short columns: 3 of 4 / 3 of 4", &|| {
        race(
            || &threes_of_4 / &other_threes_of_4,
            || fmadiv::ndarray::div(&threes_of_4, &other_threes_of_4),
        )
    });
    if json {
        println!(
            r#"{{"example":"ndarray_rows","n":{N},"rounds":21,"cpu":"{cpu}","rows":[{}]}}"#,
            rows.join(",")
        );
    }
}
