//! A user's crate calling every public entry point of fmadiv at 4096 elements, timed: built
//! by `scripts/debug_builds.sh` in the dev profile, the dev profile with fmadiv optimised,
//! and release. Prints one line per entry point: its name and the median, lowest and
//! highest nanoseconds per call over rounds that alternate the entry points (each about
//! 20 ms).

use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const ROUNDS: usize = 7;

/// The operands and outputs every entry point works on.
struct Data {
    a: Vec<f32>,
    b: Vec<f32>,
    q: Vec<f32>,
    lo: Vec<f32>,
    hi: Vec<f32>,
    work: Vec<f32>,
    d: fmadiv::Divisor,
    aa: ndarray::Array1<f32>,
    bb: ndarray::Array1<f32>,
}

/// A user's own loop: what `fmadiv::div` replaces.
#[inline(never)]
fn own_loop(a: &[f32], b: &[f32], q: &mut [f32]) {
    for i in 0..a.len() {
        q[i] = a[i] / b[i];
    }
}

/// `div_f32x8` over the slices, eight lanes at a time.
fn f32x8_loop(a: &[f32], b: &[f32], q: &mut [f32]) {
    for ((x, y), o) in a.chunks_exact(8).zip(b.chunks_exact(8)).zip(q.chunks_exact_mut(8)) {
        let x = wide::f32x8::from(<[f32; 8]>::try_from(x).unwrap());
        let y = wide::f32x8::from(<[f32; 8]>::try_from(y).unwrap());
        o.copy_from_slice(&fmadiv::div_f32x8(black_box(x), y).to_array());
    }
}

type Entry = (&'static str, fn(&mut Data));

const ENTRIES: [Entry; 12] = [
    ("own loop q[i] = a[i] / b[i]", |d| own_loop(black_box(&d.a), &d.b, &mut d.q)),
    ("div", |d| fmadiv::div(black_box(&d.a), &d.b, &mut d.q)),
    ("try_div", |d| fmadiv::try_div(black_box(&d.a), &d.b, &mut d.q).unwrap()),
    ("div_in_place", |d| {
        d.work.copy_from_slice(&d.a);
        fmadiv::div_in_place(black_box(&mut d.work), &d.b)
    }),
    ("par_div", |d| fmadiv::par_div(black_box(&d.a), &d.b, &mut d.q)),
    ("recip", |d| fmadiv::recip(black_box(&d.b), &mut d.q)),
    ("Divisor::divide_slice (3.7)", |d| d.d.divide_slice(black_box(&d.a), &mut d.q)),
    ("div_scalar (3.7)", |d| fmadiv::div_scalar(black_box(&d.a), 3.7, &mut d.q)),
    ("div_rounded (down)", |d| {
        fmadiv::div_rounded(black_box(&d.a), &d.b, &mut d.q, fmadiv::Rounding::Down)
    }),
    ("div_bounds", |d| fmadiv::div_bounds(black_box(&d.a), &d.b, &mut d.lo, &mut d.hi)),
    ("div_f32x8 loop", |d| f32x8_loop(black_box(&d.a), &d.b, &mut d.q)),
    ("ndarray::div", |d| {
        black_box(fmadiv::ndarray::div(black_box(&d.aa), &d.bb));
    }),
];

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
    let mut data = Data {
        q: vec![0.0; N],
        lo: vec![0.0; N],
        hi: vec![0.0; N],
        work: a.clone(),
        d: fmadiv::Divisor::new(3.7),
        aa: ndarray::Array1::from(a.clone()),
        bb: ndarray::Array1::from(b.clone()),
        a,
        b,
    };
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); ENTRIES.len()];
    for _ in 0..ROUNDS {
        for (k, (_, f)) in ENTRIES.iter().enumerate() {
            f(&mut data);
            // Calls per round: about 20 ms, at least 3.
            let start = Instant::now();
            let mut calls = 0u32;
            while calls < 3 || start.elapsed().as_millis() < 20 {
                f(&mut data);
                calls += 1;
            }
            times[k].push(start.elapsed().as_nanos() as f64 / f64::from(calls));
        }
    }
    for ((name, _), t) in ENTRIES.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        println!("{name}\t{:.0}\t{:.0}\t{:.0}", t[ROUNDS / 2], t[0], t[ROUNDS - 1]);
    }
}
