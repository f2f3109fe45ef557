//! What the tests' reference `a / b` costs by width, on subnormal and on normal dividends:
//! why the long checks take it from the widest divider loop (`fmadiv_verify::widest::quotients`).
//!
//! `cargo run --release --example reference_width`
//!
//! With FTZ and DAZ off (as Rust leaves them) a division with a subnormal operand takes a
//! microcode assist on some CPUs, once per instruction whatever its width. This times one
//! scalar division per element, the 256-bit divider loop and, where AVX-512F exists, the
//! 512-bit one, over 2^22 dividends (all subnormal, then all normal) by 0.75: the best of
//! five passes of each, in ns per element. Every output's bits are checked against `/`.

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv_verify::{methods, widest};

    /// Elements per pass: 16 MiB per array, past L2.
    const N: usize = 1 << 22;
    const PASSES: usize = 5;
    /// The divisor: normal, and its quotients of normal dividends too.
    const DIVISOR: f32 = 0.75;

    /// A loop writing `a[i] / b[i]` into `out`.
    type Loop = fn(&[f32], &[f32], &mut [f32]);
    /// One scalar division per element: `black_box` keeps the compiler from vectorising it.
    fn scalar(a: &[f32], b: &[f32], out: &mut [f32]) {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = black_box(x) / y;
        }
    }
    let mut loops: Vec<(&str, Loop)> = vec![("scalar", scalar)];
    for m in [methods::HARDWARE, widest::HARDWARE] {
        if (m.available)() && !loops.iter().any(|(name, _)| *name == m.name) {
            loops.push((m.name, m.run));
        }
    }
    let b = vec![DIVISOR; N];
    let kinds: [(&str, Vec<f32>); 2] = [
        // Every positive subnormal from the smallest on.
        ("subnormal", (1..=N as u32).map(f32::from_bits).collect()),
        // 1.m for the first 2^22 significands.
        (
            "normal",
            (0..N as u32)
                .map(|m| f32::from_bits(0x3f80_0000 | m))
                .collect(),
        ),
    ];
    let mut out = vec![0.0f32; N];
    println!("ns per element, best of {PASSES} passes over {N} dividends by {DIVISOR}");
    for (kind, a) in &kinds {
        for (name, run) in &loops {
            run(a, &b, &mut out);
            for i in 0..N {
                let want = black_box(a[i]) / b[i];
                assert_eq!(out[i].to_bits(), want.to_bits(), "{name}: {:e}", a[i]);
            }
            let best = (0..PASSES)
                .map(|_| {
                    let t = Instant::now();
                    run(black_box(a), black_box(&b), black_box(&mut out));
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            println!("{kind:>10}  {name:<22} {:6.2}", best * 1e9 / N as f64);
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("reference_width times x86 divider loops: nothing to time on this architecture");
}
