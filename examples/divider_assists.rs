//! What subnormal lanes cost the divider, and why random-bits cells move with where the
//! divider's code is rather than with the crate's choices (`fmadiv bench --divisors` at 2K,
//! below 1 with the divider on both sides; `recip` at 256 and 1K on sixteen lanes).
//!
//! `cargo run --release --example divider_assists`
//!
//! `vdivps` with a subnormal operand or result (MXCSR's FTZ and DAZ off, as Rust leaves
//! them) takes a microcode assist on some CPUs. This times, in one process over the
//! benchmarks' rotating buffer layouts, the benchmark's divider loop by a held divisor
//! (one broadcast divisor) over 2048 normal dividends, then with a few
//! dividends made subnormal, or a few made so small that their quotient is: the extra time
//! per vector holding such a lane is the assist's price here. Then the benchmark's own
//! random-bits data at 2K for each of its divisors, `Divisor::divide_slice` against that
//! loop, as it is and with the lanes that are subnormal on either side replaced by 1.5.
//! Then the floors benchmark's random-bits data for `recip` at 256, 1K and 4K, where the
//! sixteen-lane loops send nearly everything to the divider: `fmadiv::recip` against the
//! plain reciprocal loop, as it is and with the divisors that are subnormal or have a
//! subnormal reciprocal replaced by 1.5 (the two sides' assists, and nothing else, apart).
//! The divider loops are the widest this CPU has (512-bit with AVX-512F). Every output's
//! bits are checked first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv_verify::methods::{self, Inputs, Method};
    use fmadiv_verify::samples::Layouts;

    /// The size of the benchmark's cells that this explains (2K: in L1 on every CPU).
    const N: usize = 2048;
    const LANES: usize = 8;
    const ROUNDS: usize = 41;
    const SAMPLE_SECONDS: f64 = 250e-6;
    /// The divisor of the first part: a quotient is subnormal where the dividend is below
    /// `3·2^-126`.
    const D: f32 = 3.0;
    /// The lengths of the third part: the sixteen-lane `recip` cells on random bits.
    const RECIP_SIZES: [usize; 3] = [256, 1024, 4096];
    /// A normal dividend whose quotient by [`D`] is subnormal (2^-125 / 3).
    const SUBNORMAL_QUOTIENT: f32 = f32::from_bits(0x0100_0000);
    /// A subnormal dividend.
    const SUBNORMAL: f32 = f32::from_bits(0x0000_1234);

    fn check(m: &Method, a: &[f32], b: &[f32]) {
        let mut out = vec![0.0f32; a.len()];
        (m.run)(a, b, &mut out);
        for i in 0..a.len() {
            let want = m.kind.expected(black_box(a), b, i);
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "{}: {:e} / {:e}",
                m.name,
                a[i],
                b[i]
            );
        }
    }
    fn time(m: &Method, a: &[f32], b: &[f32], out: &mut [f32], calls: usize) -> f64 {
        let t = Instant::now();
        for _ in 0..calls {
            (m.run)(black_box(a), black_box(b), black_box(&mut *out));
        }
        t.elapsed().as_secs_f64() / calls as f64
    }
    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
    /// Median seconds per call of each method, alternating in every round over rotating
    /// layouts (the first method's speed sets the calls per sample).
    fn medians(ms: &[Method], a: &[f32], b: &[f32]) -> Vec<f64> {
        for m in ms {
            check(m, a, b);
        }
        let mut layouts = Layouts::new(a.to_vec(), b.to_vec());
        let (x, y, out) = layouts.arrays(0);
        let once = time(&ms[0], x, y, out, 4).max(1e-9);
        let calls = ((SAMPLE_SECONDS / once) as usize).clamp(1, 1 << 20);
        let mut t = vec![Vec::with_capacity(ROUNDS); ms.len()];
        for round in 0..ROUNDS {
            let (x, y, out) = layouts.arrays(round);
            for k in 0..ms.len() {
                let k = (k + round) % ms.len();
                t[k].push(time(&ms[k], x, y, out, calls));
            }
        }
        t.iter_mut().map(|v| median(v)).collect()
    }
    let gdiv = |s: f64| N as f64 / s / 1e9;

    let _ = fmadiv::plan();
    let divider = fmadiv_verify::widest::widest(methods::HARDWARE_BY_HELD);
    println!("{} ({})", fmadiv::plan(), common::cpu());
    println!(
        "{} over {N} dividends by {D}, medians of {ROUNDS} rounds:",
        divider.name
    );
    let (normal, _) = Inputs::Normal.generate(N, 0xa551);
    let b = vec![D; N];
    let base = medians(&[divider], &normal, &b)[0];
    println!(
        "  normal dividends              {:7.0} ns  {:5.2} G/s",
        base * 1e9,
        gdiv(base)
    );
    for (what, lane) in [
        ("subnormal dividends", SUBNORMAL),
        ("subnormal quotients", SUBNORMAL_QUOTIENT),
    ] {
        for k in [1usize, 8, 64] {
            // One such lane in each of `k` vectors spread over the slice.
            let mut a = normal.clone();
            for v in 0..k {
                a[v * (N / LANES / k) * LANES + v % LANES] = lane;
            }
            let t = medians(&[divider], &a, &b)[0];
            println!(
                "  {k:2} {what}       {:7.0} ns  {:5.2} G/s  (+{:.1} ns a vector holding one)",
                t * 1e9,
                gdiv(t),
                (t - base) * 1e9 / k as f64
            );
        }
    }

    println!();
    println!("`fmadiv bench --divisors`' random bits at {N}: Divisor::divide_slice against");
    println!("{} (ratio > 1: the Divisor faster), and", divider.name);
    println!("with every lane subnormal as dividend or quotient replaced by 1.5:");
    let (bits, _) = Inputs::RandomBits.generate(N, 0x5eed ^ N as u64);
    for &d in &methods::DIVISORS {
        let b = vec![d; N];
        let subnormal = |x: f32| x.is_subnormal() || (black_box(x) / d).is_subnormal();
        let cleaned: Vec<f32> = bits
            .iter()
            .map(|&x| if subnormal(x) { 1.5 } else { x })
            .collect();
        let lanes = bits.iter().filter(|&&x| subnormal(x)).count();
        let mut cells = Vec::new();
        for a in [&bits, &cleaned] {
            let t = medians(&[divider, methods::DIVISOR], a, &b);
            cells.push(format!("{:.3} ({:4.2} G/s)", t[0] / t[1], gdiv(t[0])));
        }
        println!(
            "  by {d:<10} {lanes:3} subnormal lanes: {}   replaced: {}",
            cells[0], cells[1]
        );
    }

    let recip_divider = fmadiv_verify::widest::widest(methods::HARDWARE_RECIP);
    println!();
    println!("`fmadiv bench --floors`' random bits: fmadiv::recip against");
    println!("{} (ratio > 1: recip faster), and", recip_divider.name);
    println!("with every divisor subnormal or of subnormal reciprocal replaced by 1.5:");
    for n in RECIP_SIZES {
        let (a, bits) = Inputs::RandomBits.generate(n, 0x5eed ^ n as u64);
        let subnormal = |y: f32| y.is_subnormal() || (1.0 / black_box(y)).is_subnormal();
        let cleaned: Vec<f32> = bits
            .iter()
            .map(|&y| if subnormal(y) { 1.5 } else { y })
            .collect();
        let lanes = bits.iter().filter(|&&y| subnormal(y)).count();
        let mut cells = Vec::new();
        for b in [&bits, &cleaned] {
            let t = medians(&[recip_divider, methods::RECIP], &a, b);
            let g = n as f64 / t[0] / 1e9;
            cells.push(format!("{:.3} ({g:4.2} G/s)", t[0] / t[1]));
        }
        println!(
            "  {n:5} elements {lanes:3} subnormal lanes: {}   replaced: {}",
            cells[0], cells[1]
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("x86-64 only: the divider's assists are an x86 matter");
}
