//! The rayon forms against their one-thread forms by length: where spreading a slice over
//! rayon's pool starts to pay (`par_div`, `par_div_in_place` and `par_recip` stay on the
//! calling thread below `fmadiv::verify::PAR_MIN_LEN` elements, 2^18).
//!
//! `cargo run --release --example parallel_by_length [LENGTH ...]` (64K to 16M by default).
//! For each length, each form and its one-thread form are timed alternately, over normal
//! data (values in [1, 4)), in rounds of calls filling about 20 ms; prints the median and the
//! range of the per-round ratios (one-thread time over rayon time: above 1, the pool pays).
//! The one-thread forms are the library's own (`div`, `div_in_place`, `recip`); the rayon
//! forms are called through `fmadiv::verify`'s door with the threshold set aside, so that
//! lengths below it are measured on the pool too. The bits are checked against `/` first.

mod common;

fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::verify::par;

    const ROUNDS: usize = 15;
    let lengths = common::lengths_or(
        "parallel_by_length",
        &[
            1 << 16,
            1 << 17,
            1 << 18,
            1 << 19,
            1 << 20,
            1 << 22,
            1 << 24,
        ],
    );
    println!(
        "(rayon forms against the one-thread forms on {}, {} threads; median and range of {ROUNDS} \
         rounds' ratios, one thread's time over the pool's)",
        common::cpu(),
        rayon::current_num_threads(),
    );
    /// A form: what it writes into `out` from `a` and `b` (in place forms copy `a` first).
    type Form = fn(&[f32], &[f32], &mut [f32]);
    let forms: [(&str, Form, Form); 3] = [
        (
            "div",
            |a, b, o| fmadiv::div(a, b, o),
            |a, b, o| par::div(a, b, o),
        ),
        (
            "div_in_place (+copy)",
            |a, b, o| {
                o.copy_from_slice(a);
                fmadiv::div_in_place(o, b)
            },
            |a, b, o| {
                o.copy_from_slice(a);
                par::div_in_place(o, b)
            },
        ),
        (
            "recip",
            |_, b, o| fmadiv::recip(b, o),
            |_, b, o| par::recip(b, o),
        ),
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut draw = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        1.0 + (state >> 40) as f32 / (1u64 << 24) as f32 * 3.0
    };
    for &n in &lengths {
        let a: Vec<f32> = (0..n).map(|_| draw()).collect();
        let b: Vec<f32> = (0..n).map(|_| draw()).collect();
        let mut out = vec![0.0f32; n];
        for (name, one, pool) in forms {
            pool(&a, &b, &mut out);
            let want: Vec<f32> = if name == "recip" {
                b.iter().map(|&y| 1.0 / y).collect()
            } else {
                a.iter().zip(&b).map(|(&x, &y)| x / y).collect()
            };
            assert!(
                out.iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits()),
                "{name} on the pool: not the bits of /"
            );
            // Calls per round: about 20 ms of the one-thread form.
            let start = Instant::now();
            one(&a, &b, &mut out);
            let once = start.elapsed().as_secs_f64().max(1e-7);
            let calls = ((0.02 / once) as usize).clamp(1, 10_000);
            let time = |f: Form, out: &mut [f32]| {
                let start = Instant::now();
                for _ in 0..calls {
                    f(black_box(&a), black_box(&b), black_box(&mut *out));
                }
                start.elapsed().as_secs_f64()
            };
            let mut ratios: Vec<f64> = (0..ROUNDS)
                .map(|_| time(one, &mut out) / time(pool, &mut out))
                .collect();
            ratios.sort_by(f64::total_cmp);
            println!(
                "{name:<22} {n:>9}: {:.2} ({:.2}..{:.2})",
                ratios[ROUNDS / 2],
                ratios[0],
                ratios[ROUNDS - 1]
            );
        }
    }
}
