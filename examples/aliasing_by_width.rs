//! `div_rounded`, `recip`, `div_bounds` and a `Divisor`'s slices against one plain divider
//! pass, layout by layout: what 4K aliasing and lines split by stores cost each width.
//!
//! `cargo run --release --example aliasing_by_width [ENTRY ...]` (the entries by the names
//! printed, `div_rounded`, `recip`, `div_bounds`, `Divisor`; all without one), and again
//! with `FMADIV_BACKEND=avx2` and `FMADIV_BACKEND=avx512`, alternating processes, to
//! compare the widths (`scripts/aliasing_ab.py` runs them so).
//!
//! Which width each entry point takes is chosen per CPU family (`fmadiv::AVX512_FAMILIES`).
//! This times, alternating in one process, each of the two against one pass of the
//! benchmarks' plain `_mm256_div_ps` loop with MXCSR untouched (the same code in every
//! build and process, so two processes compare through it), on normal data:
//!
//! 1. at 256 to 256K elements over the four buffer layouts the benchmarks rotate (their
//!    arrays at different offsets modulo 4 KiB), the median ratio per layout and over all:
//!    a loss that only some layouts show is the layout's, one that all show is the loop's;
//! 2. at 1K to 64K with the output placed `d` bytes past the divisors modulo 4 KiB (the
//!    dividends 2 KiB away from both), `d` from 0 to 1024: where a store of the output
//!    shares its page offset with a load of the divisors a few vectors later (4K aliasing;
//!    three vectors of one length allocated one after another sit 16 or 32 bytes apart),
//!    with all three arrays on a cache line's start and again 16 bytes past it (where the
//!    system allocator puts a `Vec<f32>`: a 64-byte vector then spans two lines).
//!
//! The bits are checked against the divider first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::{EntryPoint, Rounding};
    use fmadiv_verify::methods::{HARDWARE, Inputs};
    use fmadiv_verify::samples::Layouts;

    /// Rounds per layout or offset.
    const ROUNDS: usize = 15;
    /// The layouts `Layouts` rotates through.
    const LAYOUTS: usize = 4;
    const SAMPLE_SECONDS: f64 = 250e-6;
    /// Floats per 4 KiB page.
    const PAGE: usize = 1024;
    /// The output's offsets past the divisors modulo 4 KiB, in bytes.
    const OFFSETS: [usize; 9] = [0, 64, 128, 192, 256, 320, 384, 512, 1024];

    /// The `Divisor`'s divisor: one its proof gives two products.
    const DIVISOR: f32 = 3.7;
    std::thread_local! {
        /// `div_bounds`' upper bounds: a vector of their own, as a caller's would be.
        static UPPER: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
        static BY: fmadiv::Divisor = fmadiv::Divisor::new(DIVISOR);
    }

    type Job = fn(&[f32], &[f32], &mut [f32]);
    let all: [(&str, EntryPoint, Job); 4] = [
        ("div_rounded down", EntryPoint::DivRounded, |a, b, o| {
            fmadiv::div_rounded(a, b, o, Rounding::Down)
        }),
        ("recip", EntryPoint::Recip, |_, b, o| fmadiv::recip(b, o)),
        ("div_bounds", EntryPoint::DivBounds, |a, b, o| {
            UPPER.with_borrow_mut(|hi| {
                hi.resize(o.len(), 0.0);
                fmadiv::div_bounds(a, b, o, hi)
            })
        }),
        ("Divisor", EntryPoint::Div, |a, _, o| {
            BY.with(|d| d.divide_slice(a, o))
        }),
    ];
    let asked: Vec<String> = std::env::args().skip(1).collect();
    for name in &asked {
        if !all
            .iter()
            .any(|(n, ..)| n.split(' ').next() == Some(name.as_str()))
        {
            let names: Vec<&str> = all
                .iter()
                .map(|(n, ..)| n.split(' ').next().unwrap())
                .collect();
            eprintln!(
                "aliasing_by_width: {name:?} names no entry (one of: {})",
                names.join(", ")
            );
            std::process::exit(2);
        }
    }
    let entries = all.into_iter().filter(|(n, ..)| {
        asked.is_empty()
            || asked
                .iter()
                .any(|a| n.split(' ').next() == Some(a.as_str()))
    });
    /// Median of `ratios` (sorted in place).
    fn median(ratios: &mut [f64]) -> f64 {
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    }
    /// Seconds of `calls` calls of `job`.
    fn time(job: Job, a: &[f32], b: &[f32], o: &mut [f32], calls: usize) -> f64 {
        let t = Instant::now();
        for _ in 0..calls {
            job(black_box(a), black_box(b), black_box(&mut *o));
        }
        t.elapsed().as_secs_f64()
    }
    /// The calls of `job` that take about `SAMPLE_SECONDS`.
    fn calls_for(job: Job, a: &[f32], b: &[f32], o: &mut [f32]) -> usize {
        let once = time(job, a, b, o, 4) / 4.0;
        ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20)
    }
    /// `job`'s bits against the divider's.
    fn check(name: &str, job: Job, a: &[f32], b: &[f32]) {
        let want = match name {
            "recip" => b.iter().map(|y| 1.0 / y).collect(),
            "Divisor" => a.iter().map(|x| x / DIVISOR).collect(),
            // div_rounded down, or div_bounds' lower bounds.
            _ => fmadiv_verify::mxcsr::divide_in_mode(a, b, Rounding::Down),
        };
        let mut got = vec![0.0f32; a.len()];
        job(a, b, &mut got);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "{name}: lane {i}");
        }
    }

    println!("({})", common::cpu());
    for (name, entry, job) in entries {
        let backend = fmadiv::backend_of(entry);
        if name == "Divisor" {
            BY.with(|d| println!("(Divisor({DIVISOR}): {:?})", d.strategy()));
        }
        println!(
            "{name} on {} ({} lanes): median ratio over {ROUNDS} alternating rounds (higher is \
             faster) against one plain divider pass (MXCSR untouched), normal data",
            backend.name(),
            backend.lanes()
        );
        println!(
            "{:>7}  {:>6} {:>6} {:>6} {:>6}  {:>6}",
            "n", "lay 0", "lay 1", "lay 2", "lay 3", "all"
        );
        for n in [256usize, 1024, 4096, 16384, 65536, 262144] {
            let (a, b) = Inputs::Normal.generate(n, 0x726f_756e + n as u64);
            check(name, job, &a, &b);
            let mut layouts = Layouts::new(a, b);
            let calls = {
                let (a, b, o) = layouts.arrays(0);
                calls_for(job, a, b, o)
            };
            let mut per_layout: Vec<Vec<f64>> =
                (0..LAYOUTS).map(|_| Vec::with_capacity(ROUNDS)).collect();
            for round in 0..ROUNDS * LAYOUTS {
                let k = round % LAYOUTS;
                let mut t = [0.0; 2];
                for j in 0..2 {
                    let which = (j + round) % 2; // alternate the order
                    let (a, b, o) = layouts.arrays(k);
                    t[which] = time([job, HARDWARE.run][which], a, b, o, calls);
                }
                per_layout[k].push(t[1] / t[0]);
            }
            let mut all: Vec<f64> = per_layout.concat();
            let medians: Vec<String> = per_layout
                .iter_mut()
                .map(|r| format!("{:>6.2}", median(r)))
                .collect();
            println!("{n:>7}  {}  {:>6.2}", medians.join(" "), median(&mut all));
        }
        for misaligned in [0usize, 16] {
            println!(
                "{name}: the output d bytes past the divisors modulo 4 KiB (dividends 2 KiB from \
             both), the arrays {misaligned} bytes past a cache line"
            );
            let header: Vec<String> = OFFSETS.iter().map(|d| format!("{d:>5}")).collect();
            println!("{:>7}  {}", "n \\ d", header.join(" "));
            for n in [1024usize, 4096, 16384, 65536] {
                let (a, b) = Inputs::Normal.generate(n, 0x6f66_6673 + n as u64);
                let span = n.div_ceil(PAGE) * PAGE;
                let mut row = Vec::new();
                for d in OFFSETS {
                    // a at 0, b 2 KiB further modulo 4 KiB, the output d bytes past b.
                    let (b_at, out_at) = (span + PAGE / 2, 2 * span + PAGE / 2 + d / 4);
                    let mut whole = vec![0.0f32; out_at + n + 32];
                    // The first float on a cache line's start, then `misaligned` bytes on.
                    let line = whole.as_ptr().align_offset(64);
                    let buf = &mut whole[line + misaligned / 4..];
                    buf[..n].copy_from_slice(&a);
                    buf[b_at..b_at + n].copy_from_slice(&b);
                    let (head, out) = buf.split_at_mut(out_at);
                    let (x, y, o) = (&head[..n], &head[b_at..b_at + n], &mut out[..n]);
                    let calls = calls_for(job, x, y, o);
                    let mut ratios = Vec::with_capacity(ROUNDS);
                    for round in 0..ROUNDS {
                        let mut t = [0.0; 2];
                        for j in 0..2 {
                            let which = (j + round) % 2;
                            t[which] = time([job, HARDWARE.run][which], x, y, o, calls);
                        }
                        ratios.push(t[1] / t[0]);
                    }
                    row.push(format!("{:>5.2}", median(&mut ratios)));
                }
                println!("{n:>7}  {}", row.join(" "));
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: not x86-64");
}
