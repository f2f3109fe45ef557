//! What a caller's sticky MXCSR flags cost `Divisor::divide_slice` and `div_bounds`.
//!
//! `cargo run --release --example dirty_flags [LENGTH ...]` (1K, 2K, 4K and 16K by default)
//!
//! The flag-checked two-products loop judges each chunk by MXCSR's underflow, overflow and
//! invalid flags. Those flags are sticky: a program that ever underflowed, overflowed or
//! made a NaN holds them until something clears them. This times, alternating in one
//! process over rotating buffer layouts, `Divisor(3.7)::divide_slice` on normal dividends
//! with the flags clear and with the underflow flag set before the call, against the
//! broadcast divider loop (`Divisor::divide_slice_by(.., false)`, which reads no flags);
//! and the lane-checked loop, which reads no flags either, for comparison. Every method's
//! bits are checked against `/` first, and the caller's underflow flag is checked to be
//! still set after a call. Then `div_bounds` (flag-checked chunks from 32 vectors) with the
//! flags clear and with the underflow flag set, in ns per call (the ratio clear / set:
//! below 1 is what the flags cost), and with the underflow flag set both ways its CPU's
//! record may choose (the chunks, which clear and put back the flags, or the window check:
//! `Avx512Family::bounds_window_if_flags_held_below`), its bits checked against `divss` under
//! each mode.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::Divisor;
    use fmadiv::Rounding;
    use fmadiv::verify::divisor::{Check, divide_slice_by, divide_slice_checked_by};
    use fmadiv_verify::mxcsr::{ALL_FLAGS, divide_in_mode, read_mxcsr, write_mxcsr};
    use fmadiv_verify::samples::{Layouts, SplitMix64};

    if !fmadiv::verify::has_kernel() {
        println!("SKIPPED on this CPU: no AVX2+FMA, so no FMA sequence runs");
        return;
    }
    const ROUNDS: usize = 41;
    const SAMPLE_SECONDS: f64 = 200e-6;
    const UNDERFLOW: u32 = 1 << 4;
    /// MXCSR's six exception flags.
    fn flags() -> u32 {
        read_mxcsr() & ALL_FLAGS
    }
    /// MXCSR with only the underflow flag of the six set (or none), everything else as it is.
    fn set_underflow(set: bool) {
        write_mxcsr((read_mxcsr() & !ALL_FLAGS) | if set { UNDERFLOW } else { 0 });
    }
    let d = Divisor::new(3.7);
    type Job<'a> = (&'a str, bool, &'a dyn Fn(&[f32], &mut [f32]));
    let held = [3.7f32];
    let jobs: [Job; 5] = [
        ("divider loop", false, &|a, o| {
            divide_slice_by(&d, false, a, o)
        }),
        ("divide_slice, flags clear", false, &|a, o| {
            d.divide_slice(a, o)
        }),
        ("divide_slice, UE set", true, &|a, o| d.divide_slice(a, o)),
        ("lane-checked loop", true, &|a, o| {
            divide_slice_checked_by(&d, Check::Lanes, a, o)
        }),
        ("bench's baseline", false, &|a, o| {
            (fmadiv_verify::methods::HARDWARE_BY_HELD.run)(a, &held, o)
        }),
    ];
    println!("{}", fmadiv::plan());
    println!("median ratio to the divider loop over {ROUNDS} rounds (higher is faster)");
    print!("{:>6}", "n");
    for (name, ..) in &jobs[1..] {
        print!("  {name:>26}");
    }
    println!();
    let mut rng = SplitMix64(0x6469_7274);
    let lengths = common::lengths_or("dirty_flags", &[1024, 2048, 4096, 16384]);
    for &n in &lengths {
        let a: Vec<f32> = (0..n).map(|_| rng.next_normal()).collect();
        // Every job's bits against `/`, and the caller's underflow flag still set after a
        // call that cleared it for its chunks.
        let mut out = vec![0.0f32; n];
        for job in &jobs {
            set_underflow(job.1);
            (job.2)(&a, &mut out);
            let kept = flags() & UNDERFLOW != 0;
            set_underflow(false);
            for (&q, &x) in out.iter().zip(&a) {
                assert_eq!(
                    q.to_bits(),
                    (x / 3.7f32).to_bits(),
                    "{}: {x:e} / 3.7",
                    job.0
                );
            }
            assert!(
                !job.1 || kept,
                "{}: the caller's underflow flag was lost",
                job.0
            );
        }
        let mut layouts = Layouts::new(a.clone(), a);
        let mut time = |job: &Job, k: usize, calls: usize| {
            let (a, _, out) = layouts.arrays(k);
            set_underflow(job.1);
            let t = Instant::now();
            for _ in 0..calls {
                (job.2)(black_box(a), black_box(&mut *out));
            }
            let s = t.elapsed().as_secs_f64();
            set_underflow(false);
            s
        };
        let once = time(&jobs[0], 0, 16) / 16.0;
        let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
        let mut ratios = vec![Vec::new(); jobs.len() - 1];
        for k in 0..ROUNDS {
            let mut t = [0.0; 5];
            for j in 0..jobs.len() {
                let which = (j + k) % jobs.len(); // rotate the order
                t[which] = time(&jobs[which], k, calls);
            }
            for (r, &ti) in ratios.iter_mut().zip(&t[1..]) {
                r.push(t[0] / ti);
            }
        }
        print!("{n:>6}");
        for r in &mut ratios {
            r.sort_by(f64::total_cmp);
            print!("  {:>26.2}", r[r.len() / 2]);
        }
        println!();
    }

    // `div_bounds`, whose flag-checked chunks (from 32 vectors) clear and restore the
    // caller's flags the same way, unless its CPU's record keeps the window check where the
    // caller holds a voiding flag: as shipped with the flags clear and with the underflow
    // flag set, and with that flag set both ways (the chunks, the window check) through the
    // `verify` door, alternating; the bits against `divss` under each mode first.
    use fmadiv::verify::{DirectedStep, run_div_bounds_if_flags_held_on};
    let bounds_on = fmadiv::backend_of(fmadiv::EntryPoint::DivBounds);
    type Bounds<'a> = (
        &'a str,
        bool,
        &'a dyn Fn(&[f32], &[f32], &mut [f32], &mut [f32]),
    );
    // The window check where the caller holds a voiding flag below `below` elements.
    let either = |below: usize| {
        move |a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]| {
            let step = DirectedStep::Shipped;
            run_div_bounds_if_flags_held_on(bounds_on, step, below, a, b, lo, hi)
                .expect("div_bounds' backend runs here");
        }
    };
    let (chunks, window) = (either(0), either(usize::MAX));
    let bounds: [Bounds; 4] = [
        ("flags clear", false, &|a, b, lo, hi| {
            fmadiv::div_bounds(a, b, lo, hi)
        }),
        ("UE set", true, &|a, b, lo, hi| {
            fmadiv::div_bounds(a, b, lo, hi)
        }),
        ("UE set, chunks", true, &chunks),
        ("UE set, window", true, &window),
    ];
    println!(
        "div_bounds on {}: median ns per call over {ROUNDS} rounds; the ratios are speeds \
         (clear / set as shipped: below 1 is what the flags cost; window / chunks with UE set)",
        bounds_on.name()
    );
    print!("{:>6}", "n");
    for (name, ..) in &bounds {
        print!("  {name:>15}");
    }
    println!("  {:>11}  {:>15}", "clear/set", "window/chunks");
    for &n in &lengths {
        let a: Vec<f32> = (0..n).map(|_| rng.next_normal()).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.next_normal()).collect();
        let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
        let want = [Rounding::Down, Rounding::Up].map(|m| divide_in_mode(&a, &b, m));
        for (name, set, run) in &bounds {
            set_underflow(*set);
            run(&a, &b, &mut lo, &mut hi);
            let kept = flags() & UNDERFLOW != 0;
            set_underflow(false);
            for (got, want) in [&lo, &hi].into_iter().zip(&want) {
                let same = got
                    .iter()
                    .zip(want)
                    .all(|(p, q)| p.to_bits() == q.to_bits());
                assert!(
                    same,
                    "div_bounds, {name}, at {n}: not the bits of the directed divider"
                );
            }
            assert!(
                !set || kept,
                "div_bounds, {name}: the caller's underflow flag was lost"
            );
        }
        let mut time = |job: &Bounds, calls: usize| {
            set_underflow(job.1);
            let t = Instant::now();
            for _ in 0..calls {
                (job.2)(black_box(&a), &b, &mut lo, &mut hi);
            }
            let s = t.elapsed().as_secs_f64();
            set_underflow(false);
            s
        };
        let once = time(&bounds[0], 16) / 16.0;
        let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
        let mut ns = vec![Vec::new(); bounds.len()];
        for k in 0..ROUNDS {
            for j in 0..bounds.len() {
                let which = (j + k) % bounds.len(); // rotate the order
                ns[which].push(time(&bounds[which], calls) * 1e9 / calls as f64);
            }
        }
        let median: Vec<f64> = ns
            .into_iter()
            .map(|mut v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
            .collect();
        print!("{n:>6}");
        for m in &median {
            print!("  {m:>15.1}");
        }
        println!(
            "  {:>11.2}  {:>15.2}",
            median[0] / median[1],
            median[2] / median[3]
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: not x86-64");
}
