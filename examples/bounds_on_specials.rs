//! `div_bounds` on data with specials, where its flag-checked chunks back off.
//!
//! `cargo run --release --example bounds_on_specials`
//!
//! From 32 vectors (256 elements at eight lanes) `div_bounds` judges chunks of its step by
//! MXCSR's flags; on data with specials nearly every chunk is voided and redone under the
//! modes, and the back-off sends the next ones straight there. Shorter slices take the
//! window-checked blocks, where a block with a special and the back-off's blocks after it
//! go to the divider under the modes. This times, alternating in one process over rotating
//! buffer layouts, `div_bounds` against `div_rounded` down then up (each one divider pass
//! under its mode from 256 elements: no chunks, no back-off; below 256 the same
//! window-checked blocks as `div_bounds`), and both against two plain divider passes with
//! MXCSR untouched (the benchmarks' `_mm256_div_ps` loop: the same code in every build of
//! the library, so two builds compare through it), at 64 to 16K elements of the
//! benchmarks' "1% specials" and "random bits" data and of normal data. Every result's bits
//! are checked against the divider under each mode first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::Rounding;
    use fmadiv_verify::methods::Inputs;
    use fmadiv_verify::samples::Layouts;

    const ROUNDS: usize = 41;
    const SAMPLE_SECONDS: f64 = 250e-6;
    /// The two passes the bounds are compared with.
    fn two_passes(a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]) {
        fmadiv::div_rounded(a, b, lo, Rounding::Down);
        fmadiv::div_rounded(a, b, hi, Rounding::Up);
    }
    /// The plain divider twice, MXCSR untouched: the yardstick that no build changes.
    fn plain(a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]) {
        (fmadiv_verify::methods::HARDWARE.run)(a, b, lo);
        (fmadiv_verify::methods::HARDWARE.run)(a, b, hi);
    }
    type Job = fn(&[f32], &[f32], &mut [f32], &mut [f32]);
    let jobs: [(&str, Job); 3] = [
        ("two passes", two_passes),
        ("div_bounds", fmadiv::div_bounds),
        ("plain", plain),
    ];
    /// Median [range of the middle half] of sorted ratios.
    fn summary(ratios: &mut [f64]) -> String {
        ratios.sort_by(f64::total_cmp);
        let (n, q) = (ratios.len(), ratios.len() / 4);
        format!(
            "{:.2} [{:.2}, {:.2}]",
            ratios[n / 2],
            ratios[q],
            ratios[n - 1 - q]
        )
    }

    println!("{} ({})", fmadiv::plan(), common::cpu());
    println!("median ratio [range of the middle half] over {ROUNDS} alternating rounds (higher");
    println!("is faster): div_bounds against div_rounded down then up; each of the two against");
    println!("two plain divider passes (MXCSR untouched)");
    println!(
        "{:>12} {:>6}  {:<20}  {:<20}  {:<20}",
        "data", "n", "bounds / two passes", "bounds / plain", "two passes / plain"
    );
    for inputs in [
        Inputs::Normal,
        Inputs::OnePercentSpecials,
        Inputs::RandomBits,
    ] {
        for n in [64usize, 128, 192, 256, 512, 1024, 2048, 4096, 16384] {
            let (a, b) = inputs.generate(n, 0x626f_756e + n as u64);
            let down = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, Rounding::Down);
            let up = fmadiv_verify::mxcsr::divide_in_mode(&a, &b, Rounding::Up);
            for (name, job) in &jobs[..2] {
                let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
                job(&a, &b, &mut lo, &mut hi);
                for (got, want) in [(&lo, &down), (&hi, &up)] {
                    for i in 0..n {
                        assert_eq!(got[i].to_bits(), want[i].to_bits(), "{name}: lane {i}");
                    }
                }
            }
            let mut layouts = Layouts::new(a, b);
            let mut hi = vec![0.0f32; n];
            let mut time = |job: Job, k: usize, calls: usize| {
                let (a, b, lo) = layouts.arrays(k);
                let t = Instant::now();
                for _ in 0..calls {
                    job(black_box(a), black_box(b), black_box(&mut *lo), &mut hi);
                }
                t.elapsed().as_secs_f64()
            };
            let once = time(jobs[0].1, 0, 16) / 16.0;
            let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
            let [mut bounds, mut bounds_plain, mut two_plain] =
                [(); 3].map(|()| Vec::with_capacity(ROUNDS));
            for k in 0..ROUNDS {
                let mut t = [0.0; 3];
                for j in 0..3 {
                    let which = (j + k) % 3; // rotate the order
                    t[which] = time(jobs[which].1, k, calls);
                }
                bounds.push(t[0] / t[1]);
                bounds_plain.push(t[2] / t[1]);
                two_plain.push(t[2] / t[0]);
            }
            println!(
                "{:>12} {n:>6}  {:<20}  {:<20}  {:<20}",
                inputs.name(),
                summary(&mut bounds),
                summary(&mut bounds_plain),
                summary(&mut two_plain)
            );
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: not x86-64");
}
