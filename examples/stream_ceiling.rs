//! How far any division loop can get past the divider at each length on this CPU: the
//! widest plain divider loop (the benchmarks' baseline) against a loop that only multiplies,
//! `a[i] * b[i]` in plain Rust compiled for the same vectors (the compiler's unrolled loop),
//! the same loads and stores. The multiply costs under a cycle per vector, so what limits
//! the multiply loop is the memory its arrays fill: its ratio to the divider loop is the
//! ceiling of any loop of that shape. Where it runs no faster than the divider loop, the
//! memory, not the divider, limits it, and no schedule (FMA kernel, mix or divider) can beat
//! the divider loop there (BENCHMARKS.md, "What the memory allows").
//!
//! ```sh
//! cargo run --release --example stream_ceiling [LENGTH ...]   # 256 to 256K by default
//! ```
//!
//! For `div` (three arrays: two read, one written) and `recip` (two: one read, one written),
//! per length: the arrays' bytes and the cache level they fit in (this CPU's sizes, from
//! sysfs), the divider loop's Gelem/s, then the median [lowest, highest] over [`ROUNDS`]
//! rounds of per-round ratios to it: the multiply loop's (the ceiling), the entry point's as
//! dispatched (`fmadiv::div`, `fmadiv::recip`) and, for `div` where the CPU has AVX-512F,
//! the compiler's own 512-bit `a[i] / b[i]` (is the baseline the best plain divider loop at
//! that length?). All of them run in turn in each round, over the benchmarks' layouts and
//! allocations (`Layouts`, one per round). The entry points' bits are checked against `/`
//! once per length, and the multiply loops' against `*`.

mod common;

use std::hint::black_box;
use std::time::Instant;

use fmadiv_verify::methods::{self, Kind, Method};
use fmadiv_verify::samples::Layouts;
use fmadiv_verify::widest;

/// Rounds; each times every loop once, in turn.
const ROUNDS: usize = 21;
/// Elements computed per timing.
const ELEMENTS_PER_TIMING: usize = 1 << 23;

/// One operation's loops: the divider baseline, its multiply twin (the ceiling) and the
/// loops compared with both.
struct Probe {
    label: &'static str,
    /// Arrays the loops touch per element (inputs read and the output written).
    arrays: usize,
    baseline: Method,
    ceiling: Method,
    /// The entry point first.
    others: Vec<Method>,
}

impl Probe {
    fn loops(&self) -> impl Iterator<Item = &Method> {
        [&self.baseline, &self.ceiling]
            .into_iter()
            .chain(&self.others)
    }
}

fn main() {
    let lengths = common::lengths_or("stream_ceiling", &[256, 1024, 4096, 16384, 65536, 262144]);
    let probes = [
        Probe {
            label: "div",
            arrays: 3,
            baseline: widest::widest(methods::HARDWARE),
            ceiling: widest::widest(methods::PLAIN_MULTIPLY),
            others: [methods::FMADIV, widest::PLAIN]
                .into_iter()
                .filter(|m| (m.available)())
                .collect(),
        },
        Probe {
            label: "recip",
            arrays: 2,
            baseline: widest::widest(methods::HARDWARE_RECIP),
            ceiling: widest::widest(methods::PLAIN_MULTIPLY_RECIP),
            others: vec![methods::RECIP],
        },
    ];
    if !probes.iter().all(|p| p.loops().all(|m| (m.available)())) {
        println!("stream_ceiling: this CPU has no AVX, so no plain vector loop to time");
        return;
    }
    let caches = data_caches();
    println!(
        "stream_ceiling: {}; div on {}, recip on {} ({}); per-round ratios to the divider \
         loop, median [lowest, highest] of {ROUNDS} rounds",
        common::cpu(),
        fmadiv::backend_of(fmadiv::EntryPoint::Div).name(),
        fmadiv::backend_of(fmadiv::EntryPoint::Recip).name(),
        describe(&caches),
    );
    for probe in &probes {
        println!(
            "\n{}: ratios to `{}`; the ceiling `{}`",
            probe.label, probe.baseline.name, probe.ceiling.name
        );
        let others: String = probe
            .others
            .iter()
            .map(|m| format!(" {:>24}", short(m.name)))
            .collect();
        println!(
            "{:>7} {:>9} {:>4} {:>13} {:>20}{others}",
            "n", "bytes", "fits", "divider Gel/s", "ceiling"
        );
        for &n in &lengths {
            row(probe, n, &caches);
        }
    }
}

/// A method's name up to its first comma, for a column's head.
fn short(name: &str) -> &str {
    name.split(',').next().unwrap_or(name)
}

/// Times `probe`'s loops at `n` elements and prints their row.
fn row(probe: &Probe, n: usize, caches: &[(u32, usize)]) {
    let mut next = common::normal_values();
    let a: Vec<f32> = (0..n).map(|_| next()).collect();
    let b: Vec<f32> = (0..n).map(|_| next()).collect();
    let mut layouts = Layouts::new(a, b);
    check(probe, &mut layouts);
    let calls = (ELEMENTS_PER_TIMING / n).max(1);
    let loops: Vec<&Method> = probe.loops().collect();
    // ns[loop][round], per call
    let mut ns = vec![Vec::with_capacity(ROUNDS); loops.len()];
    for round in 0..ROUNDS {
        let (x, y, out) = layouts.arrays(round);
        for (k, m) in loops.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..calls {
                (m.run)(black_box(x), black_box(y), black_box(&mut *out));
            }
            ns[k].push(start.elapsed().as_secs_f64() * 1e9 / calls as f64);
        }
    }
    let ratio = |k: usize| {
        let mut r: Vec<f64> = ns[0].iter().zip(&ns[k]).map(|(d, t)| d / t).collect();
        r.sort_by(f64::total_cmp);
        format!("{:.2} [{:.2}, {:.2}]", r[ROUNDS / 2], r[0], r[ROUNDS - 1])
    };
    let mut divider = ns[0].clone();
    divider.sort_by(f64::total_cmp);
    let bytes = probe.arrays * 4 * n;
    let others: String = (2..loops.len())
        .map(|k| format!(" {:>24}", ratio(k)))
        .collect();
    println!(
        "{n:>7} {:>9} {:>4} {:>13.2} {:>20}{others}",
        size(bytes),
        fits(bytes, caches),
        n as f64 / divider[ROUNDS / 2],
        ratio(1),
    );
}

/// The loops' bits: the divider loops' and the entry point's against `/`, the multiply
/// loop's against `*` (a loop that computes something else is not timed).
fn check(probe: &Probe, layouts: &mut Layouts) {
    let (x, y, out) = layouts.arrays(0);
    for m in probe.loops().filter(|m| m.exact) {
        (m.run)(x, y, out);
        let exact = (0..out.len()).all(|i| out[i].to_bits() == m.kind.expected(x, y, i).to_bits());
        assert!(exact, "{} differs from / at {} elements", m.name, x.len());
    }
    (probe.ceiling.run)(x, y, out);
    let product = |i: usize| match probe.ceiling.kind {
        Kind::Reciprocal => y[i] * y[i],
        _ => x[i] * y[i],
    };
    let products = (0..out.len()).all(|i| out[i].to_bits() == product(i).to_bits());
    assert!(products, "{} computed something else", probe.ceiling.name);
}

/// This CPU's data caches as (level, bytes), smallest first, from sysfs (empty where it
/// has none).
fn data_caches() -> Vec<(u32, usize)> {
    let dir = "/sys/devices/system/cpu/cpu0/cache";
    let read = |index: usize, file: &str| {
        std::fs::read_to_string(format!("{dir}/index{index}/{file}"))
            .map(|s| s.trim().to_string())
            .ok()
    };
    let mut caches: Vec<(u32, usize)> = (0..8)
        .filter_map(|k| {
            if read(k, "type")? == "Instruction" {
                return None;
            }
            let level = read(k, "level")?.parse().ok()?;
            let size = read(k, "size")?;
            let kib: usize = size.strip_suffix('K')?.parse().ok()?;
            Some((level, kib * 1024))
        })
        .collect();
    caches.sort();
    caches
}

/// The caches as "L1d 32 KiB, L2 1024 KiB, ...".
fn describe(caches: &[(u32, usize)]) -> String {
    match caches {
        [] => "cache sizes unknown".into(),
        _ => caches
            .iter()
            .map(|&(level, bytes)| {
                let name = if level == 1 {
                    "L1d"
                } else {
                    &format!("L{level}")
                };
                format!("{name} {}", size(bytes))
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The smallest cache `bytes` fit in ("L1", "L2", ...), or "mem".
fn fits(bytes: usize, caches: &[(u32, usize)]) -> String {
    caches
        .iter()
        .find(|&&(_, size)| bytes <= size)
        .map_or("mem".into(), |(level, _)| format!("L{level}"))
}

/// `bytes` in KiB or MiB.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b.div_ceil(1024)),
    }
}
