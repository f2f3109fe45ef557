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
//! floors' cells at 64 and 256 elements are read (see BENCHMARKS.md, "Where the floor is
//! missed").
//!
//! Beside them, the one-vector loop written in assembly and placed at a fixed offset from a
//! 64-byte boundary (0, 16, 32, 48), to tell loop alignment from other placement: its
//! bytes and alignment are the same in every build. The clock is estimated with a chain
//! of dependent additions (one per cycle), so the times are also printed as cycles per
//! vector.

use std::hint::black_box;
use std::time::Instant;

use fmadiv_verify::methods::{HARDWARE, Inputs};
use fmadiv_verify::samples::Layouts;

/// Copies of the plain loop.
const COPIES: usize = 6;
/// Timed rounds per size and layout (the order of the methods rotates).
const ROUNDS: usize = 21;
/// Buffer layouts rotated through (as the floors benchmark does).
const LAYOUTS: usize = 4;
/// Lanes of one vector.
const LANES: usize = 8;
/// Dependent additions timed to estimate the clock.
const CLOCK_ADDS: u64 = 400_000_000;

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

/// The one-vector divider loop in assembly, its first instruction `OFFSET` bytes past a
/// 64-byte boundary; a scalar tail as in [`plain`].
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn aligned<const OFFSET: usize>(a: &[f32], b: &[f32], out: &mut [f32]) {
    assert!(is_x86_feature_detected!("avx"), "the loop needs AVX");
    let n = out.len().min(a.len()).min(b.len());
    let bytes = n / LANES * LANES * 4;
    if bytes > 0 {
        // SAFETY: AVX is present (checked above); the loop reads `a` and `b` and writes
        // `out` at byte offsets below `bytes`, inside all three slices; unaligned access
        // is allowed; it touches no stack and clobbers only the declared registers.
        unsafe {
            core::arch::asm!(
                "xor {i}, {i}",
                "jmp 3f",
                // The loop's first instruction OFFSET bytes past a 64-byte boundary; the
                // padding (single-byte NOPs) is jumped over.
                ".p2align 6",
                ".fill {offset}, 1, 0x90",
                "3:",
                "vmovups ymm0, [{a} + {i}]",
                "vdivps ymm0, ymm0, [{b} + {i}]",
                "vmovups [{out} + {i}], ymm0",
                "add {i}, 32",
                "cmp {i}, {end}",
                "jb 3b",
                a = in(reg) a.as_ptr(),
                b = in(reg) b.as_ptr(),
                out = in(reg) out.as_mut_ptr(),
                end = in(reg) bytes,
                i = out(reg) _,
                out("ymm0") _,
                offset = const OFFSET,
                options(nostack),
            );
        }
    }
    for j in n / LANES * LANES..n {
        out[j] = a[j] / b[j];
    }
}

#[cfg(target_arch = "x86_64")]
fn aligned_copies() -> [(String, Run); 4] {
    let runs: [(usize, Run); 4] = [
        (0, aligned::<0>),
        (16, aligned::<16>),
        (32, aligned::<32>),
        (48, aligned::<48>),
    ];
    runs.map(|(offset, r)| (format!("assembly loop at 64-byte boundary + {offset}"), r))
}

/// Cycles per nanosecond, from a chain of dependent additions (one cycle each); the best
/// of three.
#[cfg(target_arch = "x86_64")]
fn clock_ghz() -> Option<f64> {
    let mut best: f64 = 0.0;
    for _ in 0..3 {
        let start = Instant::now();
        // SAFETY: register arithmetic only; no memory, no stack.
        unsafe {
            core::arch::asm!(
                "2:",
                "add {x}, 1",
                "add {x}, 1",
                "add {x}, 1",
                "add {x}, 1",
                "sub {n}, 4",
                "jnz 2b",
                x = inout(reg) 0u64 => _,
                n = inout(reg) CLOCK_ADDS => _,
                options(nomem, nostack),
            );
        }
        best = best.max(CLOCK_ADDS as f64 / (start.elapsed().as_secs_f64() * 1e9));
    }
    Some(best)
}

#[cfg(not(target_arch = "x86_64"))]
fn copies() -> [(String, Run); 0] {
    []
}

#[cfg(not(target_arch = "x86_64"))]
fn aligned_copies() -> [(String, Run); 0] {
    []
}

#[cfg(not(target_arch = "x86_64"))]
fn clock_ghz() -> Option<f64> {
    None
}

/// The lowest and highest of some medians, and the spread between them in percent.
fn span(medians: &[f64]) -> (f64, f64, f64) {
    let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = medians.iter().copied().fold(0.0, f64::max);
    (lo, hi, (hi / lo - 1.0) * 100.0)
}

fn main() {
    let mut methods: Vec<(String, Run)> = vec![
        ("fmadiv::div".to_string(), fmadiv::div as Run),
        (format!("floors baseline ({})", HARDWARE.name), HARDWARE.run),
    ];
    methods.extend(copies());
    let compiled = 2..methods.len();
    methods.extend(aligned_copies());
    let assembled = compiled.end..methods.len();
    let _ = fmadiv::plan();
    let ghz = clock_ghz();
    if let Some(ghz) = ghz {
        println!("clock from dependent additions: {ghz:.2} GHz");
    }
    println!(
        "median ns per call over {ROUNDS} rounds x {LAYOUTS} buffer layouts (normal inputs); \
         CPU: {}",
        {
            let cpu = fmadiv_verify::fingerprint::cpu();
            format!(
                "{} {}, family/model/stepping {}",
                cpu.vendor, cpu.model, cpu.signature
            )
        }
    );
    for n in [64usize, 256, 1024, 4096] {
        let (a0, b0) = Inputs::Normal.generate(n, 0x5eed ^ n as u64);
        let mut layouts = Layouts::new(a0, b0);
        let calls = (200_000 / n).max(1) * 8;
        let mut times = vec![Vec::new(); methods.len()];
        for round in 0..ROUNDS * LAYOUTS {
            let (a, b, out) = layouts.arrays(round);
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
            match ghz {
                Some(ghz) => println!(
                    "  {name:<48} {m:8.2}  ({:.2} cycles per vector)",
                    m * ghz / (n / LANES) as f64
                ),
                None => println!("  {name:<48} {m:8.2}"),
            }
        }
        for (what, range) in [
            ("copies of the plain loop", compiled.clone()),
            ("assembly loops", assembled.clone()),
        ] {
            if !range.is_empty() {
                let (lo, hi, percent) = span(&medians[range]);
                println!("  {what} span {lo:.2} to {hi:.2} ({percent:.0}%)");
            }
        }
    }
}
