//! Which pages a benchmark's buffer lands on changes its speed, and a process keeps its
//! pages: one buffer layout (the floors' first: three arrays on cache lines' starts, 64
//! bytes apart past the length) in [`BUFFERS`] allocations in one process, each timed in
//! [`ROUNDS`] rounds with the benchmarks' plain divider loop (the widest this CPU has) and
//! `fmadiv::div` as dispatched.
//!
//! ```sh
//! cargo run --release --example page_placement [LENGTH ...]   # 256, 1K and 4K by default
//! setarch -R target/release/examples/page_placement            # the same addresses each run
//! ```
//!
//! Prints, per length and buffer, the arrays' offset in their page and the nanoseconds per
//! call of each loop in every round, then how many buffers were slow (over [`SLOW`] times
//! the buffers' median) in every round and how many in some only. A buffer slow in every
//! round is slow for where it lies, not for when it was timed. A buffer's page offset is
//! the same in every process (the allocations come in the same order), and with `setarch
//! -R` so is its whole virtual address: if the slow buffers still move from one process to
//! the next, the physical pages under them decide. A process whose benchmark buffer lands
//! on such pages is slow in all its rounds, so one process is one sample (BENCHMARKS.md,
//! "One process is one sample").

mod common;

use std::hint::black_box;
use std::time::Instant;

use fmadiv_verify::samples::Layouts;

/// Buffers allocated, each one layout of three arrays.
const BUFFERS: usize = 12;
/// Rounds; each times every buffer once with each loop.
const ROUNDS: usize = 3;
/// Elements divided per timing.
const ELEMENTS_PER_TIMING: usize = 1 << 22;
/// A buffer is slow in a round where its plain loop takes this many times the median of
/// the buffers' plain loops in that round.
const SLOW: f64 = 1.25;

fn main() {
    let lengths = common::lengths_or("page_placement", &[256, 1024, 4096]);
    let plain = fmadiv_verify::widest::widest(fmadiv_verify::methods::HARDWARE);
    if !(plain.available)() {
        println!("page_placement: this CPU has no AVX, so no plain vector loop to time");
        return;
    }
    println!(
        "page_placement: {}; {BUFFERS} buffers of one layout, ns per call in each of \
         {ROUNDS} rounds: `{}` / fmadiv::div",
        common::cpu(),
        plain.name
    );
    for n in lengths {
        let mut next = common::normal_values();
        let a: Vec<f32> = (0..n).map(|_| next()).collect();
        let b: Vec<f32> = (0..n).map(|_| next()).collect();
        let mut buffers: Vec<Layouts> = (0..BUFFERS)
            .map(|_| Layouts::new(a.clone(), b.clone()))
            .collect();
        for layouts in &mut buffers {
            let (x, y, out) = layouts.arrays(0);
            fmadiv::div(x, y, out);
            let exact = x
                .iter()
                .zip(y)
                .zip(out.iter())
                .all(|((p, q), r)| (p / q).to_bits() == r.to_bits());
            assert!(exact, "fmadiv::div differs from / at {n} elements");
        }
        let calls = (ELEMENTS_PER_TIMING / n).max(1);
        let time = |f: &dyn Fn(&mut [f32]), out: &mut [f32]| {
            let start = Instant::now();
            for _ in 0..calls {
                f(black_box(&mut *out));
            }
            start.elapsed().as_secs_f64() / calls as f64 * 1e9
        };
        // times[buffer][round]: (the plain loop, fmadiv::div)
        let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); BUFFERS];
        for _ in 0..ROUNDS {
            for (k, layouts) in buffers.iter_mut().enumerate() {
                let (x, y, out) = layouts.arrays(0);
                let p = time(&|o| (plain.run)(x, y, o), out);
                let d = time(&|o| fmadiv::div(x, y, o), out);
                times[k].push((p, d));
            }
        }
        let medians: Vec<f64> = (0..ROUNDS)
            .map(|r| {
                let mut v: Vec<f64> = times.iter().map(|t| t[r].0).collect();
                v.sort_by(f64::total_cmp);
                v[BUFFERS / 2]
            })
            .collect();
        println!("\n{n} elements");
        let (mut always, mut sometimes) = (0, 0);
        for (k, layouts) in buffers.iter_mut().enumerate() {
            let (x, _, _) = layouts.arrays(0);
            let slow = (0..ROUNDS)
                .filter(|&r| times[k][r].0 > SLOW * medians[r])
                .count();
            match slow {
                0 => {}
                s if s == ROUNDS => always += 1,
                _ => sometimes += 1,
            }
            let rounds: Vec<String> = times[k]
                .iter()
                .map(|(p, d)| format!("{p:>6.0} / {d:<6.0}"))
                .collect();
            println!(
                "  buffer {k:>2} (page offset {:#05x}): {}{}",
                x.as_ptr() as usize % 4096,
                rounds.join("  "),
                if slow > 0 { "  slow" } else { "" }
            );
        }
        println!(
            "  slow (plain loop over {SLOW}x the buffers' median): {always} of {BUFFERS} \
             buffers in every round, {sometimes} in some only"
        );
    }
}
