//! `div_in_place` against the widest plain divider loop in place, with no copy in the timed
//! calls: what the floors' `div_in_place (+copy)` row measures once the copy that both of its
//! sides pay is taken out.
//!
//! `cargo run --release --example in_place_alone [LENGTH ...]` (256 to 64K by default)
//!
//! The floors restore the dividends before every in-place call (a 128-bit copy loop, the same on
//! both sides), so their ratio is (copy + divider) / (copy + `fmadiv`), smaller than the division's
//! own. Here each call divides by `b` and the next by `c`, where `c[i] = 1 / b[i]` rounded: the
//! dividends stay normal and near where they started (each division is rounded once; checked each
//! round: within a factor of two), so every call sees normal data inside the kernel's input window,
//! and nothing is copied. Both sides run the same calls on the same values, alternately in one
//! process, over the floors' four layouts in turn (one per round); both end on the same bits,
//! checked each round. Printed per length: ns per call of the divider loop and of `div_in_place`,
//! and of the floors' `(+copy)` pair and the copy alone for comparison; then the medians and ranges
//! over the rounds of the ratios (divider / `div_in_place`, with and without the copy).

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv_verify::{methods, samples, widest};

    /// Rounds (each times every side once, in turn) and elements divided per timing.
    const ROUNDS: usize = 21;
    const ELEMENTS_PER_TIMING: usize = 1 << 24;

    let lengths = common::lengths_or("in_place_alone", &[256, 1024, 4096, 16384, 65536]);
    println!(
        "(div_in_place on {} with {}, {}; the baseline `{}` without its copy)",
        fmadiv::backend_of(fmadiv::EntryPoint::Div).name(),
        fmadiv::plan().div(lengths[0]),
        common::cpu(),
        widest::HARDWARE_IN_PLACE.name,
    );
    println!(
        "{:>6}  {:>10} {:>10} {:>12} {:>12} {:>8}   {:<22} {:<22}",
        "n",
        "loop ns",
        "fmadiv ns",
        "loop+copy",
        "fmadiv+copy",
        "copy",
        "ratio alone",
        "ratio +copy"
    );
    for n in lengths {
        let mut next = common::normal_values();
        let a: Vec<f32> = (0..n).map(|_| next()).collect();
        let b: Vec<f32> = (0..n).map(|_| next()).collect();
        let c: Vec<f32> = b.iter().map(|&y| 1.0 / black_box(y)).collect();
        // The layouts' three arrays: b, c and the dividends' buffer `x`.
        let mut layouts = samples::Layouts::new(b, c);
        let pairs = (ELEMENTS_PER_TIMING / n / 2).max(1);
        type Side = fn(&mut [f32], &[f32]);
        let sides: [Side; 2] = [widest::divide_in_place, fmadiv::div_in_place];
        let with_copy = [widest::HARDWARE_IN_PLACE, methods::DIV_IN_PLACE];
        let mut ns = [(); 5].map(|()| Vec::with_capacity(ROUNDS));
        let mut spare = vec![0.0f32; n];
        for round in 0..ROUNDS {
            let (b, c, x) = layouts.arrays(round);
            let mut ends = [Vec::new(), Vec::new()];
            for (k, side) in sides.iter().enumerate() {
                x.copy_from_slice(&a);
                let start = Instant::now();
                for _ in 0..pairs {
                    side(black_box(&mut *x), b);
                    side(black_box(&mut *x), c);
                }
                ns[k].push(start.elapsed().as_secs_f64() * 1e9 / (2 * pairs) as f64);
                ends[k] = x.to_vec();
            }
            let same = ends[0]
                .iter()
                .zip(&ends[1])
                .all(|(p, q)| p.to_bits() == q.to_bits());
            assert!(
                same,
                "n = {n}: div_in_place and the divider loop ended apart"
            );
            // Dividends still near where they started, so inside the input window.
            let drifted = ends[1]
                .iter()
                .zip(&a)
                .any(|(e, s)| !(0.5..=2.0).contains(&(e / s)));
            assert!(!drifted, "n = {n}: the dividends drifted");
            for (k, m) in with_copy.iter().enumerate() {
                let start = Instant::now();
                for _ in 0..2 * pairs {
                    (m.run)(black_box(&a), b, x);
                }
                ns[2 + k].push(start.elapsed().as_secs_f64() * 1e9 / (2 * pairs) as f64);
            }
            let start = Instant::now();
            for _ in 0..2 * pairs {
                samples::restore(black_box(&mut spare), &a);
            }
            ns[4].push(start.elapsed().as_secs_f64() * 1e9 / (2 * pairs) as f64);
        }
        let ratio = |base: &[f64], ours: &[f64]| {
            let mut r: Vec<f64> = base.iter().zip(ours).map(|(p, q)| p / q).collect();
            r.sort_by(f64::total_cmp);
            format!("{:.2} [{:.2}, {:.2}]", r[r.len() / 2], r[0], r[r.len() - 1])
        };
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "{n:>6}  {:>10.0} {:>10.0} {:>12.0} {:>12.0} {:>8.0}   {:<22} {:<22}",
            median(&ns[0]),
            median(&ns[1]),
            median(&ns[2]),
            median(&ns[3]),
            median(&ns[4]),
            ratio(&ns[0], &ns[1]),
            ratio(&ns[2], &ns[3]),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("in_place_alone: x86-64 only");
}
