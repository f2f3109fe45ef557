//! A user's crate calling every public entry point of fmadiv at 4096 elements, timed: built
//! by `scripts/debug_builds.sh` in the dev profile, the dev profile with fmadiv optimised,
//! and release. Prints one line per entry point: its name and the median nanoseconds per
//! call over rounds that alternate the entry points (each round about 20 ms).

use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const ROUNDS: usize = 7;

/// A user's own loop: what `fmadiv::div` replaces.
#[inline(never)]
fn own_loop(a: &[f32], b: &[f32], q: &mut [f32]) {
    for i in 0..a.len() {
        q[i] = a[i] / b[i];
    }
}

fn main() {
    // Normal operands in [1, 4): the kernel's window (SplitMix64, fixed seed).
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        1.0 + 3.0 * ((z >> 40) as f32 / (1u64 << 24) as f32)
    };
    let a: Vec<f32> = (0..N).map(|_| next()).collect();
    let b: Vec<f32> = (0..N).map(|_| next()).collect();
    let (mut q, mut lo, mut hi) = (vec![0.0f32; N], vec![0.0f32; N], vec![0.0f32; N]);
    let mut work = a.clone();
    let d = fmadiv::Divisor::new(3.7);
    let aa = ndarray::Array1::from(a.clone());
    let bb = ndarray::Array1::from(b.clone());
    type Entry<'a> = (&'static str, Box<dyn FnMut() + 'a>);
    let mut entries: Vec<Entry> = vec![
        ("own loop q[i] = a[i] / b[i]", Box::new(|| own_loop(black_box(&a), &b, &mut q))),
        ("div", Box::new(|| fmadiv::div(black_box(&a), &b, &mut q))),
        ("try_div", Box::new(|| fmadiv::try_div(black_box(&a), &b, &mut q).unwrap())),
        ("div_in_place", Box::new(|| {
            work.copy_from_slice(&a);
            fmadiv::div_in_place(black_box(&mut work), &b)
        })),
        ("par_div", Box::new(|| fmadiv::par_div(black_box(&a), &b, &mut q))),
        ("recip", Box::new(|| fmadiv::recip(black_box(&b), &mut q))),
        ("Divisor::divide_slice (3.7)", Box::new(|| d.divide_slice(black_box(&a), &mut q))),
        ("div_scalar (3.7)", Box::new(|| fmadiv::div_scalar(black_box(&a), 3.7, &mut q))),
        ("div_rounded (down)", Box::new(|| {
            fmadiv::div_rounded(black_box(&a), &b, &mut q, fmadiv::Rounding::Down)
        })),
        ("div_bounds", Box::new(|| fmadiv::div_bounds(black_box(&a), &b, &mut lo, &mut hi))),
        ("div_f32x8 loop", Box::new(|| {
            for ((x, y), o) in a.chunks_exact(8).zip(b.chunks_exact(8)).zip(q.chunks_exact_mut(8)) {
                let x = wide::f32x8::from(<[f32; 8]>::try_from(x).unwrap());
                let y = wide::f32x8::from(<[f32; 8]>::try_from(y).unwrap());
                o.copy_from_slice(&fmadiv::div_f32x8(black_box(x), y).to_array());
            }
        })),
        ("ndarray::div", Box::new(|| {
            black_box(fmadiv::ndarray::div(black_box(&aa), &bb));
        })),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); entries.len()];
    for _ in 0..ROUNDS {
        for (k, (_, f)) in entries.iter_mut().enumerate() {
            f();
            // Calls per round: about 20 ms of the slowest builds, at least 3.
            let start = Instant::now();
            let mut calls = 0u32;
            while calls < 3 || start.elapsed().as_millis() < 20 {
                f();
                calls += 1;
            }
            times[k].push(start.elapsed().as_nanos() as f64 / f64::from(calls));
        }
    }
    for ((name, _), t) in entries.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        println!("{name}\t{:.0}\t{:.0}\t{:.0}", t[ROUNDS / 2], t[0], t[ROUNDS - 1]);
    }
}
