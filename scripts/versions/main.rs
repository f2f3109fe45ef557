//! Per-call time of the library's functions, for comparing two versions of the crate built
//! from two revisions (`scripts/versions.sh`): `versions FUNCTION N` prints the best of
//! five timings, in nanoseconds per call, of many calls on N normal floats (in-place
//! functions on a fresh copy each call).

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().expect("a function");
    let n: usize = args.next().expect("a length").parse().expect("a number");
    let calls = (4_000_000 / (n + 64)).max(1000);
    let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.37).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 + i as f32 * 0.11).collect();
    let mut out = vec![0f32; n];
    let d = fmadiv::Divisor::new(3.7);
    let run = |out: &mut Vec<f32>| {
        for _ in 0..calls {
            match what.as_str() {
                "div" => fmadiv::div(black_box(&a), black_box(&b), black_box(&mut *out)),
                // In place on a fresh copy of the dividends (as `bench --floors`): dividing
                // the same buffer again and again would drive it into subnormals.
                "div_in_place" => {
                    out.copy_from_slice(&a);
                    fmadiv::div_in_place(black_box(&mut *out), black_box(&b))
                }
                "recip" => fmadiv::recip(black_box(&b), black_box(&mut *out)),
                "div_scalar" => fmadiv::div_scalar(black_box(&a), black_box(3.7), black_box(&mut *out)),
                "Divisor::divide_slice" => d.divide_slice(black_box(&a), black_box(&mut *out)),
                "Divisor::divide_in_place" => {
                    out.copy_from_slice(&a);
                    d.divide_in_place(black_box(&mut *out))
                }
                other => panic!("no function {other}"),
            }
        }
    };
    run(&mut out);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        run(&mut out);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{:.2}", best / calls as f64 * 1e9);
    black_box(&out);
}
