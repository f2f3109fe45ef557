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
    use std::time::Instant;

    use fmadiv_verify::methods::Inputs;

    /// Samples per cell, and rounds of the windows per sample.
    const SAMPLES: usize = 200;
    const ROUNDS: usize = 12;
    /// Windows of the pool a sample runs in turn.
    const WINDOWS: usize = 8;
    /// Floats per 4 KiB page, and per cache line.
    const PAGE: usize = 1024;
    const LINE: usize = 16;
    /// The output's start past the divisors' modulo 4 KiB, in floats (2 KiB).
    const OUTPUT_APART: usize = PAGE / 2;
    const KINDS: [Inputs; 3] = [
        Inputs::Normal,
        Inputs::OnePercentSpecials,
        Inputs::RandomBits,
    ];

    let parsed: Result<Vec<usize>, _> = std::env::args().skip(1).map(|s| s.parse()).collect();
    let lengths = match parsed {
        Ok(v) if !v.is_empty() && !v.contains(&0) => v,
        Ok(v) if v.is_empty() => vec![16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048],
        Ok(_) => {
            eprintln!("recip_by_length: a length of 0 times nothing");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("recip_by_length: lengths are whole numbers ({e})");
            std::process::exit(2);
        }
    };
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
        let stride = n.next_multiple_of(LINE);
        let pool = stride * WINDOWS;
        let span = (pool + OUTPUT_APART + LINE).next_multiple_of(PAGE) + PAGE;
        let mut buffer = vec![0.0f32; 2 * span + PAGE];
        let page = buffer.as_ptr().align_offset(PAGE * 4);
        let mut row = Vec::new();
        for past in [0, 16 / 4] {
            let (b_at, out_at) = (page + past, page + span + OUTPUT_APART + past);
            assert!(
                [b_at, out_at]
                    .iter()
                    .all(|&i| (buffer.as_ptr() as usize + 4 * i) % (LINE * 4) == past * 4)
            );
            let (head, rest) = buffer.split_at_mut(out_at);
            let out = &mut rest[..pool];
            for (kind_at, kind) in KINDS.into_iter().enumerate() {
                let (_, drawn) = kind.generate(pool, 0x5eed + kind_at as u64);
                let b = &mut head[b_at..b_at + pool];
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
                let mut best = f64::MAX;
                for _ in 0..SAMPLES {
                    let t = Instant::now();
                    for _ in 0..ROUNDS {
                        for w in 0..WINDOWS {
                            let r = window(w);
                            fmadiv::recip(black_box(&b[r.clone()]), black_box(&mut out[r]));
                        }
                    }
                    best = best.min(t.elapsed().as_secs_f64() / (ROUNDS * WINDOWS) as f64);
                }
                row.push(format!("{:>w$.1}", best * 1e9, w = heads[row.len()].len()));
            }
        }
        println!("{n:>6}  {}", row.join("  "));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("recip_by_length: x86-64 only");
}
