//! Where a loop's machine code sits changes its speed: the plain divider loop, compiled as
//! several copies that differ only in one constant that never binds (so the compiler
//! cannot merge them; each is the same one-vector-per-iteration loop at its own address),
//! timed alternately in one process over the floors benchmark's rotating buffer layouts,
//! beside `fmadiv::div` and the floors' own baseline (the same loop, unrolled by four).
//!
//! ```sh
//! cargo run --release --example code_placement
//! ```
//!
//! Prints the median nanoseconds per call of each, per size, and the spread of the copies:
//! the range a plain loop written by a user can land in on this CPU, against which the
//! floors' cells at 64 and 256 elements are read (see BENCHMARKS.md, "Code placement").

use std::hint::black_box;
use std::time::Instant;

use fmadiv::methods::{HARDWARE, Inputs};
use fmadiv::samples::Layouts;

/// Copies of the plain loop.
const COPIES: usize = 6;
/// Timed rounds per size and layout (the order of the methods rotates).
const ROUNDS: usize = 21;
/// Buffer layouts rotated through (as the floors benchmark does).
const LAYOUTS: usize = 4;

type Run = fn(&[f32], &[f32], &mut [f32]);

/// The plain `_mm256_div_ps` loop, one vector per iteration (as compiled here); `K` only
/// caps the length at a huge constant of its own, so that each copy is distinct code
/// placed at its own address.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn plain<const K: usize>(a: &[f32], b: &[f32], out: &mut [f32]) {
    use core::arch::x86_64::*;
    #[target_feature(enable = "avx")]
    fn run<const K: usize>(a: &[f32], b: &[f32], out: &mut [f32]) {
        let n = out
            .len()
            .min(a.len())
            .min(b.len())
            .min((usize::MAX >> 8) - K);
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n, inside all three slices; unaligned access is allowed.
            unsafe {
                let q = _mm256_div_ps(
                    _mm256_loadu_ps(a.as_ptr().add(i)),
                    _mm256_loadu_ps(b.as_ptr().add(i)),
                );
                _mm256_storeu_ps(out.as_mut_ptr().add(i), q);
            }
            i += 8;
        }
        for j in i..n {
            out[j] = a[j] / b[j];
        }
    }
    assert!(is_x86_feature_detected!("avx"), "the plain loop needs AVX");
    // SAFETY: AVX is present (checked above).
    unsafe { run::<K>(a, b, out) }
}

#[cfg(target_arch = "x86_64")]
fn copies() -> [(String, Run); COPIES] {
    let runs: [Run; COPIES] = [
        plain::<1>, plain::<2>, plain::<3>, plain::<4>, plain::<5>, plain::<6>,
    ];
    let mut k = 0;
    runs.map(|r| {
        k += 1;
        (format!("plain loop, copy {k}"), r)
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn copies() -> [(String, Run); 0] {
    []
}

fn main() {
    let mut methods: Vec<(String, Run)> = vec![
        ("fmadiv::div".to_string(), fmadiv::div as Run),
        (format!("floors baseline ({})", HARDWARE.name), HARDWARE.run),
    ];
    methods.extend(copies());
    let _ = fmadiv::plan();
    println!(
        "median ns per call over {ROUNDS} rounds x {LAYOUTS} buffer layouts (normal inputs); \
         CPU: {}",
        {
            let cpu = fmadiv::fingerprint::cpu();
            format!(
                "{} {}, family/model/stepping {}",
                cpu.vendor, cpu.model, cpu.signature
            )
        }
    );
    for n in [64usize, 256, 1024, 4096] {
        let (a0, b0) = Inputs::Normal.generate(n, 0x5eed ^ n as u64);
        let mut layouts = Layouts::new(n, || 0.0);
        let calls = (200_000 / n).max(1) * 8;
        let mut times = vec![Vec::new(); methods.len()];
        for round in 0..ROUNDS * LAYOUTS {
            let (a, b, out) = layouts.arrays(round);
            a.copy_from_slice(&a0);
            b.copy_from_slice(&b0);
            let (a, b) = (&*a, &*b);
            for j in 0..methods.len() {
                let m = (j + round) % methods.len();
                let run = methods[m].1;
                let start = Instant::now();
                for _ in 0..calls {
                    run(black_box(a), black_box(b), black_box(&mut *out));
                }
                times[m].push(start.elapsed().as_secs_f64() / calls as f64 * 1e9);
            }
        }
        let medians: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(f64::total_cmp);
                t[t.len() / 2]
            })
            .collect();
        println!("\n{n} elements:");
        for ((name, _), m) in methods.iter().zip(&medians) {
            println!("  {name:<48} {m:8.2}");
        }
        let copies = &medians[2..];
        if !copies.is_empty() {
            let lo = copies.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = copies.iter().copied().fold(0.0, f64::max);
            println!(
                "  copies of the plain loop span {lo:.2} to {hi:.2} ({:.0}%)",
                (hi / lo - 1.0) * 100.0
            );
        }
    }
}
