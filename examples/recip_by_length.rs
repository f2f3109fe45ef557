//! `recip` by length, on a cache line or 16 bytes past one, for three kinds of input: where
//! the sixteen-lane loops start to pay over the eight-lane ones.
//!
//! `cargo run --release --example recip_by_length [LENGTH ...]` (16 to 2048 by default), once
//! with `FMADIV_BACKEND=recip=avx2` and once with `FMADIV_BACKEND=recip=avx512` (or as
//! shipped), in alternating processes: each width's own time, as the two run different loops.
//!
//! The divisors and the output each sit in a span of their own, 2 KiB apart modulo 4 KiB (no
//! 4K aliasing between them), both on a line's start or both 16 bytes past one (where the
//! system allocator puts a `Vec<f32>`). A sample runs `recip` on eight windows of a pool
//! drawn by `fmadiv_verify::methods::Inputs` in turn, so that the few specials of a short
//! slice fall in different blocks from window to window (the eight windows of both arrays stay
//! in a 32 KiB L1d up to 256 elements, and reach L2 from 1K). Prints the best of 200 samples, in
//! ns per call, per length, layout and kind. The bits are checked against the divider first.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;

    use fmadiv_verify::methods::Inputs;

    /// Samples per cell, and rounds of the windows per sample.
    const SAMPLES: usize = 200;
    const ROUNDS: usize = 12;
    /// Windows of the pool a sample runs in turn.
    const WINDOWS: usize = 8;
    const KINDS: [Inputs; 3] = [
        Inputs::Normal,
        Inputs::OnePercentSpecials,
        Inputs::RandomBits,
    ];

    let lengths = common::lengths_or(
        "recip_by_length",
        &[16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048],
    );
    println!(
        "(recip on {}, {}; ns per call, best of {SAMPLES} samples of {ROUNDS} x {WINDOWS} calls)",
        fmadiv::backend_of(fmadiv::EntryPoint::Recip).name(),
        common::cpu()
    );
    let heads: Vec<String> = ["on a line", "+16 bytes"]
        .iter()
        .flat_map(|at| KINDS.map(|k| format!("{at} {}", k.name())))
        .collect();
    println!("{:>6}  {}", "n", heads.join("  "));
    for n in lengths {
        // Windows one after another, each starting on a line as the first does.
        let stride = n.next_multiple_of(common::LINE);
        let pool = stride * WINDOWS;
        let mut arrays = common::Apart::new(pool);
        let mut row = Vec::new();
        for past in [0, 16 / 4] {
            let (b, out) = arrays.arrays(past);
            for (kind_at, kind) in KINDS.into_iter().enumerate() {
                let (_, drawn) = kind.generate(pool, 0x5eed + kind_at as u64);
                b.copy_from_slice(&drawn);
                let b = &*b;
                let window = |w: usize| w * stride..w * stride + n;
                for w in 0..WINDOWS {
                    fmadiv::recip(&b[window(w)], &mut out[window(w)]);
                    for i in window(w) {
                        let want = 1.0 / black_box(b[i]);
                        assert_eq!(out[i].to_bits(), want.to_bits(), "1 / {:e} at {i}", b[i]);
                    }
                }
                let best = common::best_ns_per_call(SAMPLES, ROUNDS, WINDOWS, |w| {
                    let r = window(w);
                    fmadiv::recip(black_box(&b[r.clone()]), black_box(&mut out[r]));
                });
                row.push(format!("{best:>w$.1}", w = heads[row.len()].len()));
            }
        }
        println!("{n:>6}  {}", row.join("  "));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("recip_by_length: x86-64 only");
}
