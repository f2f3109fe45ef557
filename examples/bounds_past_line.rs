//! `div_bounds` by length with its arrays on a cache line or 16 bytes past one: what the
//! head to the output's line costs or saves the directed step loop.
//!
//! `cargo run --release --example bounds_past_line -- [--upper-at=FLOATS] [LENGTH ...]` (64
//! to 4096 by default), with `FMADIV_BACKEND=avx512` for the sixteen-lane loop, one build
//! against another in alternating processes (the library's own timing, nothing to compare
//! against inside one process: the two builds differ in the loop itself).
//!
//! The four arrays (dividends, divisors, lower and upper bounds) sit in one buffer, each in a
//! page of its own at a different offset modulo 4 KiB (no two meet by 4K aliasing), all on
//! a line's start, all 16 bytes past one (where the system allocator puts a `Vec<f32>`),
//! the inputs 16 bytes past one and the outputs on one, or the other way round.
//! `--upper-at` moves the upper bounds' start in its page (384 floats, 1.5 KiB, by default; a
//! whole number of lines, none of the others'): where an output lies modulo 4 KiB decides
//! whether one of its stores crosses a page boundary, which costs a call several ns
//! (`docs/bench/0x19-0x11-bounds-640-probe.txt`, third probe).
//! Prints the best of 200 samples of 100 calls each, in ns per call, per length and layout.
//! The bits are checked against the divider under each mode first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::Rounding;

    /// Samples per cell, and calls per sample.
    const SAMPLES: usize = 200;
    const CALLS: usize = 100;
    use common::{LINE, PAGE};

    /// Where each array starts in its own span, in floats past a page: a different cache
    /// line of the page for each, so that no two arrays alias modulo 4 KiB (the upper
    /// bounds' as `--upper-at` says).
    const STARTS: [usize; 4] = [0, 128, 256, 384];

    let (lengths, options) = common::lengths_and_options(
        "bounds_past_line",
        &["upper-at"],
        &[64, 128, 256, 512, 528, 768, 1024, 2048, 4096],
    );
    let mut starts = STARTS;
    if let Some(upper) = options[0] {
        if upper % LINE != 0 || upper >= PAGE || STARTS[..3].contains(&upper) {
            eprintln!(
                "bounds_past_line: --upper-at={upper}: a whole number of lines ({LINE} floats) \
                 below {PAGE}, none of {:?}",
                &STARTS[..3]
            );
            std::process::exit(2);
        }
        starts[3] = upper;
    }
    println!(
        "(div_bounds on {}; ns per call, best of {SAMPLES} x {CALLS} calls; upper bounds at \
         {} B in their page)",
        fmadiv::backend_of(fmadiv::EntryPoint::DivBounds).name(),
        starts[3] * 4
    );
    println!(
        "{:>6}  {:>9}  {:>9}  {:>9}  {:>9}",
        "n", "on a line", "+16 bytes", "in+16", "out+16"
    );
    /// Floats past a line of the inputs and of the outputs, per layout.
    const LAYOUTS: [(usize, usize); 4] = [(0, 0), (4, 4), (4, 0), (0, 4)];
    for n in lengths {
        let span = (n + starts.iter().max().unwrap() + LINE).div_ceil(PAGE) * PAGE;
        let mut buffer = vec![0.0f32; 4 * span + 2 * PAGE];
        let page = buffer.as_ptr().align_offset(PAGE * 4);
        let mut row = Vec::new();
        for (inputs, outputs) in LAYOUTS {
            let past = [inputs, inputs, outputs, outputs];
            let at: Vec<usize> = (0..4)
                .map(|k| page + k * span + starts[k] + past[k])
                .collect();
            assert!(
                (0..4).all(|k| (buffer.as_ptr() as usize + 4 * at[k]) % (LINE * 4) == past[k] * 4)
            );
            let (head, rest) = buffer.split_at_mut(at[2]);
            let (lo, hi) = rest.split_at_mut(at[3] - at[2]);
            for i in 0..n {
                head[at[0] + i] = 1.0 + i as f32 * 1e-3;
                head[at[1] + i] = 1.5 + i as f32 * 7e-4;
            }
            let (a, b) = (&head[at[0]..at[0] + n], &head[at[1]..at[1] + n]);
            let (lo, hi) = (&mut lo[..n], &mut hi[..n]);
            fmadiv::div_bounds(a, b, lo, hi);
            let down = fmadiv_verify::mxcsr::divide_in_mode(a, b, Rounding::Down);
            let up = fmadiv_verify::mxcsr::divide_in_mode(a, b, Rounding::Up);
            for i in 0..n {
                assert_eq!(lo[i].to_bits(), down[i].to_bits(), "lower bound {i} of {n}");
                assert_eq!(hi[i].to_bits(), up[i].to_bits(), "upper bound {i} of {n}");
            }
            let mut best = f64::MAX;
            for _ in 0..SAMPLES {
                let t = Instant::now();
                for _ in 0..CALLS {
                    fmadiv::div_bounds(black_box(a), black_box(b), black_box(&mut *lo), &mut *hi);
                }
                best = best.min(t.elapsed().as_secs_f64() / CALLS as f64);
            }
            row.push(format!("{:>9.1}", best * 1e9));
        }
        println!("{n:>6}  {}", row.join("  "));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("bounds_past_line: x86-64 only");
}
