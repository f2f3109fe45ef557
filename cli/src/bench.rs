//! `fmadiv bench` and the table of `fmadiv` with no arguments: throughput of each method,
//! measured alternately in one process over buffers whose relative offsets rotate from
//! round to round (as `bench --floors` does): on a shared VM one fixed layout measured the
//! same divider loop at 0.84–0.99x of itself from run to run, and one layout must not decide
//! a ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use fmadiv_verify::methods::{self, Inputs, Method};
use fmadiv_verify::widest;

use serde::Serialize;

/// One cell of the table.
#[derive(Serialize)]
pub struct Row {
    pub method: &'static str,
    pub exact: bool,
    pub inputs: &'static str,
    pub size: usize,
    /// Median billions of divisions per second.
    pub gdiv_per_s: f64,
    /// Median of the per-round ratios to the hardware loop of the same kind (higher is
    /// faster).
    pub vs_hardware: f64,
}

/// What to measure.
pub struct Plan {
    pub sizes: Vec<usize>,
    pub inputs: Vec<Inputs>,
    pub methods: Vec<Method>,
    pub rounds: usize,
    /// Target duration of one timed sample.
    pub sample: Duration,
}

impl Plan {
    pub fn quick() -> Plan {
        Plan {
            sizes: vec![4096, 1 << 16, 1 << 20],
            inputs: Inputs::ALL.to_vec(),
            methods: available(
                &[
                    &widest::all()[..],
                    // The kernel alone, whatever the plan chose: what the FMA path costs here.
                    &[methods::SCHEDULES[6]],
                    &methods::BY_SCALAR.map(widest::widest),
                    &methods::RECIPROCAL.map(widest::widest),
                    &[methods::RECIP_SCHEDULES[6]],
                ]
                .concat(),
            ),
            rounds: 9,
            sample: Duration::from_millis(15),
        }
    }

    pub fn full() -> Plan {
        Plan {
            sizes: vec![8, 64, 256, 1024, 4096, 1 << 16, 1 << 20, 1 << 24],
            rounds: 11,
            sample: Duration::from_millis(30),
            ..Plan::quick()
        }
    }
}

pub fn available(all: &[Method]) -> Vec<Method> {
    all.iter().copied().filter(|m| (m.available)()).collect()
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Checks every exact method against `a / b` bit for bit before it is timed.
fn check_exact(m: &Method, a: &[f32], b: &[f32], out: &mut [f32]) -> Result<(), String> {
    if !m.exact {
        return Ok(());
    }
    (m.run)(a, b, out);
    for i in 0..a.len() {
        if out[i].to_bits() != m.kind.expected(a, b, i).to_bits() {
            return Err(format!(
                "{} is not exact: {:#010x} / {:#010x} gave {:#010x}",
                m.name,
                a[i].to_bits(),
                b[i].to_bits(),
                out[i].to_bits()
            ));
        }
    }
    Ok(())
}

/// Seconds per call of `m`, over enough calls to fill `sample`.
fn time(m: &Method, a: &[f32], b: &[f32], out: &mut [f32], reps: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        (m.run)(black_box(a), black_box(b), black_box(&mut *out));
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// Runs the plan; `progress` is told each finished (size, inputs).
pub fn run(plan: &Plan, mut progress: impl FnMut(usize, Inputs)) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    // Each method's ratio is to the first method of its kind (the hardware loops come first).
    let baseline: Vec<usize> = plan
        .methods
        .iter()
        .map(|m| {
            plan.methods
                .iter()
                .position(|h| h.kind == m.kind)
                .expect("itself")
        })
        .collect();
    for &size in &plan.sizes {
        for &inputs in &plan.inputs {
            let (a, b) = inputs.generate(size, 0x5eed ^ size as u64);
            let mut out = vec![0.0f32; size];
            for m in &plan.methods {
                check_exact(m, &a, &b, &mut out)?;
            }
            let mut layouts = fmadiv_verify::samples::Layouts::new(a, b);
            let (a, b, out) = layouts.arrays(0);
            let (a, b) = (a.to_vec(), b.to_vec());
            // Warm up (caches, clocks, rayon's threads) and calibrate calls per sample.
            let reps: Vec<usize> = plan
                .methods
                .iter()
                .map(|m| {
                    let mut calls = 1;
                    let warm = Instant::now();
                    while warm.elapsed() < plan.sample {
                        time(m, &a, &b, out, calls);
                        calls *= 2;
                    }
                    let per_call = time(m, &a, &b, out, calls).max(1e-12);
                    ((plan.sample.as_secs_f64() / per_call) as usize).clamp(1, 1 << 24)
                })
                .collect();
            let n = plan.methods.len();
            let mut secs = vec![Vec::with_capacity(plan.rounds); n];
            let mut ratios = vec![Vec::with_capacity(plan.rounds); n];
            for round in 0..plan.rounds {
                let mut this = vec![0.0; n];
                let (a, b, out) = layouts.arrays(round);
                // Rotate the order each round so no method always runs first or last.
                for k in 0..n {
                    let i = (k + round) % n;
                    this[i] = time(&plan.methods[i], a, b, out, reps[i]);
                }
                for i in 0..n {
                    secs[i].push(this[i]);
                    ratios[i].push(this[baseline[i]] / this[i]);
                }
            }
            for (i, m) in plan.methods.iter().enumerate() {
                let t = median(&mut secs[i]);
                rows.push(Row {
                    method: m.name,
                    exact: m.exact,
                    inputs: inputs.name(),
                    size,
                    gdiv_per_s: size as f64 / t / 1e9,
                    vs_hardware: median(&mut ratios[i]),
                });
            }
            progress(size, inputs);
        }
    }
    Ok(rows)
}

pub fn size_name(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}M", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{}K", n >> 10),
        n => n.to_string(),
    }
}

/// A plain-text table: one block per (size, inputs).
pub fn print_table(rows: &[Row]) {
    println!(
        "{:<30} {:>6} {:>12} {:>9} {:>9}",
        "method", "size", "inputs", "Gdiv/s", "vs hw"
    );
    println!(
        "vs hw: against the divider loop of the same kind, the widest this CPU has ({})",
        widest::widest(methods::HARDWARE).name
    );
    let mut last = None;
    for r in rows {
        let key = (r.size, r.inputs);
        if last.is_some_and(|k| k != key) {
            println!();
        }
        last = Some(key);
        println!(
            "{:<30} {:>6} {:>12} {:>9.3} {:>8.2}x",
            r.method,
            size_name(r.size),
            r.inputs,
            r.gdiv_per_s,
            r.vs_hardware
        );
    }
}

/// Median nanoseconds of one `Divisor::new` over a spread of divisors (the cost that
/// `div_scalar` pays per call).
pub fn divisor_new_ns() -> f64 {
    let mut rng = fmadiv_verify::samples::SplitMix64(0xd1_5015);
    let divisors: Vec<f32> = (0..4096)
        .map(|_| f32::from_bits((rng.next_u64() as u32 & 0x807f_ffff) | 127 << 23))
        .collect();
    let mut rounds: Vec<f64> = (0..11)
        .map(|_| {
            let start = Instant::now();
            for &d in &divisors {
                black_box(fmadiv::Divisor::new(black_box(d)));
            }
            start.elapsed().as_secs_f64() * 1e9 / divisors.len() as f64
        })
        .collect();
    median(&mut rounds)
}
