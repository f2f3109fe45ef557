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

    use fmadiv_verify::methods::Inputs;

    /// Samples per cell, and rounds of the windows per sample.
    const SAMPLES: usize = 300;
    const ROUNDS: usize = 12;
    /// Windows of the pool a sample runs in turn.
    const WINDOWS: usize = 8;
    /// The divisor: no power of two, so the divider does the work.
    const DIVISOR: f32 = 3.7;

    let lengths = common::lengths_or(
        "divisor_by_length",
        &[
            8, 15, 16, 24, 31, 32, 47, 48, 63, 64, 100, 127, 128, 255, 256, 1023, 1024, 2047,
        ],
    );
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
        let stride = n.next_multiple_of(common::LINE);
        let pool = stride * WINDOWS;
        let mut arrays = common::Apart::new(pool);
        let (_, drawn) = Inputs::Normal.generate(pool, 0x5eed);
        let mut row = Vec::new();
        for past in [0, 16 / 4] {
            let (a, out) = arrays.arrays(past);
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
            let best = common::best_ns_per_call(SAMPLES, ROUNDS, WINDOWS, |w| {
                let r = window(w);
                d.divide_slice(black_box(&a[r.clone()]), black_box(&mut out[r]));
            });
            row.push(format!("{best:>9.1}"));
        }
        println!("{n:>6}  {}", row.join("  "));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("divisor_by_length: x86-64 only");
}
