//! `Divisor::divide_slice` by length, on a cache line or 16 bytes past one: what the loop
//! below the proven sequence's length (the divider's, by a held divisor) costs, and what its
//! lanes past the last whole vector cost (lengths one short of a multiple of 16 leave the
//! most).
//!
//! `cargo run --release --example divisor_by_length [LENGTH ...]` (8 to 2047 by default),
//! with `FMADIV_BACKEND=avx2` or `=avx512` for either width, in alternating processes of the
//! builds compared.
//!
//! The dividends and the output each sit in a span of their own, 2 KiB apart modulo 4 KiB
//! (no 4K aliasing between them), both on a line's start or both 16 bytes past one (where
//! the system allocator puts a `Vec<f32>`). A sample divides eight windows of a pool of
//! normal dividends (`fmadiv_verify::methods::Inputs::Normal`) by 3.7 in turn (the windows
//! of both arrays stay in a 32 KiB L1d up to about 1K elements). Prints the best of 300
//! samples, in ns per call, per length and layout. The bits are checked against `/` first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv_verify::methods::Inputs;

    /// Samples per cell, and rounds of the windows per sample.
    const SAMPLES: usize = 300;
    const ROUNDS: usize = 12;
    /// Windows of the pool a sample runs in turn.
    const WINDOWS: usize = 8;
    /// Floats per 4 KiB page, and per cache line.
    const PAGE: usize = 1024;
    const LINE: usize = 16;
    /// The output's start past the dividends' modulo 4 KiB, in floats (2 KiB).
    const OUTPUT_APART: usize = PAGE / 2;
    /// The divisor: no power of two, so the divider does the work.
    const DIVISOR: f32 = 3.7;

    let parsed: Result<Vec<usize>, _> = std::env::args().skip(1).map(|s| s.parse()).collect();
    let lengths = match parsed {
        Ok(v) if !v.is_empty() && !v.contains(&0) => v,
        Ok(v) if v.is_empty() => vec![
            8, 15, 16, 24, 31, 32, 47, 48, 63, 64, 100, 127, 128, 255, 256, 1023, 1024, 2047,
        ],
        Ok(_) => {
            eprintln!("divisor_by_length: a length of 0 times nothing");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("divisor_by_length: lengths are whole numbers ({e})");
            std::process::exit(2);
        }
    };
    let d = fmadiv::Divisor::new(DIVISOR);
    println!(
        "(Divisor::new({DIVISOR}).divide_slice on {}, {}; ns per call, best of {SAMPLES} \
         samples of {ROUNDS} x {WINDOWS} calls)",
        fmadiv::backend_of(fmadiv::EntryPoint::Div).name(),
        common::cpu()
    );
    println!("{:>6}  {:>9}  {:>9}", "n", "on a line", "+16 bytes");
    for n in lengths {
        // Windows one after another, each starting on a line as the first does.
        let stride = n.next_multiple_of(LINE);
        let pool = stride * WINDOWS;
        let span = (pool + OUTPUT_APART + LINE).next_multiple_of(PAGE) + PAGE;
        let mut buffer = vec![0.0f32; 2 * span + PAGE];
        let page = buffer.as_ptr().align_offset(PAGE * 4);
        let (_, drawn) = Inputs::Normal.generate(pool, 0x5eed);
        let mut row = Vec::new();
        for past in [0, 16 / 4] {
            let (a_at, out_at) = (page + past, page + span + OUTPUT_APART + past);
            assert!(
                [a_at, out_at]
                    .iter()
                    .all(|&i| (buffer.as_ptr() as usize + 4 * i) % (LINE * 4) == past * 4)
            );
            let (head, rest) = buffer.split_at_mut(out_at);
            let out = &mut rest[..pool];
            let a = &mut head[a_at..a_at + pool];
            a.copy_from_slice(&drawn);
            let a = &*a;
            let window = |w: usize| w * stride..w * stride + n;
            for w in 0..WINDOWS {
                d.divide_slice(&a[window(w)], &mut out[window(w)]);
                for i in window(w) {
                    let want = a[i] / black_box(DIVISOR);
                    assert_eq!(out[i].to_bits(), want.to_bits(), "{:e} / 3.7 at {i}", a[i]);
                }
            }
            let mut best = f64::MAX;
            for _ in 0..SAMPLES {
                let t = Instant::now();
                for _ in 0..ROUNDS {
                    for w in 0..WINDOWS {
                        let r = window(w);
                        d.divide_slice(black_box(&a[r.clone()]), black_box(&mut out[r]));
                    }
                }
                best = best.min(t.elapsed().as_secs_f64() / (ROUNDS * WINDOWS) as f64);
            }
            row.push(format!("{:>9.1}", best * 1e9));
        }
        println!("{n:>6}  {}", row.join("  "));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("divisor_by_length: x86-64 only");
}
