//! How the ratio the plan decides on moves while one process runs: a schedule timed
//! against the divider again and again, 20 ms apart, in one process. On a shared machine the
//! ratio follows the load that neighbours put on the core, so a choice made near the
//! threshold can differ between fresh processes started a moment apart (see
//! `cli/tests/plan.rs`).
//!
//! `cargo run --release --example plan_drift [SCHEDULE] [LEN]` (default mix-16, 1024).

mod common;

/// Measurements per run, and the pause between them.
const MEASUREMENTS: usize = 30;
const PAUSE: std::time::Duration = std::time::Duration::from_millis(20);
/// Alternating rounds of each measurement (its median is printed).
const ROUNDS: usize = 41;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "mix-16".into());
    let len: usize = args
        .next()
        .map_or(1024, |l| l.parse().expect("LEN is a number"));
    let s = fmadiv::Schedule::from_name(&name).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "{name} vs the divider, a / b at {len} elements, {}; {MEASUREMENTS} medians of \
         {ROUNDS} alternating rounds, {PAUSE:?} apart, in one process:",
        common::cpu()
    );
    let medians: Vec<String> = (0..MEASUREMENTS)
        .map(|k| {
            if k > 0 {
                std::thread::sleep(PAUSE);
            }
            let mut r =
                fmadiv::plan::measure_against_divider(fmadiv::plan::Op::Div, len, s, ROUNDS);
            if r.is_empty() {
                eprintln!("no AVX2+FMA here: nothing to measure");
                std::process::exit(0);
            }
            r.sort_by(f64::total_cmp);
            format!("{:.2}", r[r.len() / 2])
        })
        .collect();
    println!("{}", medians.join(" "));
}
