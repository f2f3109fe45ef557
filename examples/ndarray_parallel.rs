//! `fmadiv::ndarray`'s rayon forms by size: `par_div` against the one-thread `div` and
//! against ndarray's own `/`, on N×N `f32` matrices, over four layouts (contiguous, a
//! transposed divisor's tiles, a column divisor's `div_scalar` and views with steps). The
//! three are timed in rotating order in one process; bits checked against `/` first.
//!
//! ```sh
//! cargo run --release --features ndarray --example ndarray_parallel        # N = 512 to 4096
//! cargo run --release --features ndarray --example ndarray_parallel -- 2048  # that N only
//! ```
//!
//! Prints, for each size and layout, the medians and ranges of the per-round ratios `div`'s
//! time over `par_div`'s (above 1, the pool pays) and ndarray's `/` over `par_div`, and the
//! three median times.

mod common;

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array2, Axis, s};

/// Alternating rounds per size and layout.
const ROUNDS: usize = 11;

/// One layout: its name, then ndarray's `/`, the one-thread form and the rayon form.
type Case<'c> = (
    &'c str,
    &'c dyn Fn() -> Array2<f32>,
    &'c dyn Fn() -> Array2<f32>,
    &'c dyn Fn() -> Array2<f32>,
);

fn main() {
    let sides = common::lengths_or("ndarray_parallel", &[512, 1024, 2048, 4096]);
    println!(
        "ndarray_parallel: fmadiv::ndarray::par_div against div and ndarray's / on {}, {} \
         threads; median (range) of {ROUNDS} rotating rounds' ratios",
        common::cpu(),
        rayon::current_num_threads()
    );
    let mut normal = common::normal_values();
    for n in sides {
        let a = Array2::from_shape_simple_fn((n, n), &mut normal);
        let b = Array2::from_shape_simple_fn((n, n), &mut normal);
        let sums = a.mapv(f32::abs).sum_axis(Axis(1)).insert_axis(Axis(1));
        let wide = Array2::from_shape_simple_fn((2 * n, 3 * n), &mut normal);
        let (xs, ys) = (wide.slice(s![..;2, ..;3]), wide.slice(s![1..;2, ..;-3]));
        let cases: [Case; 4] = [
            (
                "a / b",
                &|| &a / &b,
                &|| fmadiv::ndarray::div(&a, &b),
                &|| fmadiv::ndarray::par_div(&a, &b),
            ),
            (
                "a / transposed b",
                &|| &a / &b.t(),
                &|| fmadiv::ndarray::div(&a, &b.t()),
                &|| fmadiv::ndarray::par_div(&a, &b.t()),
            ),
            (
                "rows / their sums",
                &|| &a / &sums,
                &|| fmadiv::ndarray::div(&a, &sums),
                &|| fmadiv::ndarray::par_div(&a, &sums),
            ),
            (
                "views with steps",
                &|| &xs / &ys,
                &|| fmadiv::ndarray::div(&xs, &ys),
                &|| fmadiv::ndarray::par_div(&xs, &ys),
            ),
        ];
        for (what, slash, one, pool) in cases {
            let want = slash();
            for got in [one(), pool()] {
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.to_bits() == w.to_bits());
                assert!(same, "{what} at {n}: bits differ from /");
            }
            let mut times = [Vec::new(), Vec::new(), Vec::new()];
            let ways = [slash, one, pool];
            for round in 0..ROUNDS {
                for k in 0..3 {
                    let way = (round + k) % 3;
                    let t = Instant::now();
                    black_box(ways[way]());
                    times[way].push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            let ratio = |over: usize| {
                let mut r: Vec<f64> = (0..ROUNDS).map(|i| times[over][i] / times[2][i]).collect();
                r.sort_by(f64::total_cmp);
                format!("{:.2} ({:.2}..{:.2})", r[ROUNDS / 2], r[0], r[ROUNDS - 1])
            };
            let median = |k: usize| {
                let mut t = times[k].clone();
                t.sort_by(f64::total_cmp);
                t[ROUNDS / 2]
            };
            println!(
                "{n:>5}x{n:<5} {what:<18} div/par_div {}  ndarray/par_div {}  medians: / {:.0} us, \
                 div {:.0} us, par_div {:.0} us",
                ratio(1),
                ratio(0),
                median(0),
                median(1),
                median(2)
            );
        }
    }
}
