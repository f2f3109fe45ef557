//! `fmadiv bench --floors`: every entry point against the plain divider loop that does the
//! same job, measured alternately in one process over buffers whose relative offsets
//! change from round to round (layout must not decide a ratio).

use std::hint::black_box;
use std::time::Instant;

use fmadiv_verify::methods::{self, DIVISORS, Inputs, Kind, Method};
use fmadiv_verify::widest;
use serde::Serialize;

/// One cell: an entry point against its baseline at one size and input kind.
#[derive(Serialize)]
pub struct Row {
    pub method: &'static str,
    pub baseline: &'static str,
    pub inputs: &'static str,
    /// The divisor of every element (`--divisors`); otherwise the inputs' own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divisor: Option<f32>,
    /// That divisor's `Divisor` strategy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    pub size: usize,
    /// Median over rounds of the baseline's time over the method's (higher is faster).
    pub vs_baseline: f64,
    /// A 95% confidence interval of that median (sign test: order statistics of the
    /// rounds' ratios).
    pub vs_baseline_low: f64,
    pub vs_baseline_high: f64,
    pub vs_baseline_min: f64,
    pub vs_baseline_max: f64,
    /// Median billions of quotients per second of the method.
    pub gdiv_per_s: f64,
    pub rounds: usize,
}

/// What to measure.
pub struct Plan {
    /// Each method and the baseline it is measured against.
    pub pairs: Vec<(Method, Method)>,
    /// Per-row pairs, measured on `rows` rows of their own length.
    pub row_pairs: Vec<(Method, Method)>,
    pub sizes: Vec<usize>,
    pub inputs: Vec<Inputs>,
    pub rounds: usize,
    /// Target seconds of one timed sample.
    pub sample: f64,
    /// Rows per matrix for the per-row pairs.
    pub rows: usize,
    /// Each size and input kind measured once per divisor here, every element divided by
    /// it; none: the inputs' own divisors.
    pub divisors: Vec<f32>,
    /// Bytes past a cache line's start where the rotated layouts put every array (0: on
    /// one; `--past-line`). The per-row pairs' matrices are not moved.
    pub past_line: usize,
}

impl Plan {
    /// Every entry point against the divider loop doing the same job.
    pub fn full() -> Plan {
        Plan {
            pairs: widest::floors(),
            row_pairs: methods::ROW_FLOORS.to_vec(),
            sizes: vec![8, 64, 256, 1024, 4096, 1 << 14, 1 << 16],
            inputs: Inputs::ALL.to_vec(),
            rounds: 41,
            sample: 250e-6,
            rows: 512,
            divisors: Vec::new(),
            past_line: 0,
        }
    }

    pub fn quick() -> Plan {
        Plan {
            sizes: vec![8, 256, 4096, 1 << 16],
            rounds: 9,
            sample: 30e-6,
            rows: 128,
            ..Plan::full()
        }
    }

    /// Keeps only the methods whose name contains `text`; an error if none does.
    pub fn keep_methods(&mut self, text: &str) -> Result<(), String> {
        let keep = |pairs: &mut Vec<(Method, Method)>| pairs.retain(|(m, _)| m.name.contains(text));
        keep(&mut self.pairs);
        keep(&mut self.row_pairs);
        if self.pairs.is_empty() && self.row_pairs.is_empty() {
            return Err(format!("--only {text:?}: no method's name contains it"));
        }
        Ok(())
    }

    /// Every schedule the plan chooses from against the divider loop, `a / b` and `1 / b`,
    /// from operands in L1 to operands in memory: whether the best schedule depends on
    /// the size.
    pub fn schedules() -> Plan {
        let div = methods::SCHEDULES
            .iter()
            .map(|&m| (m, widest::widest(methods::HARDWARE)));
        let recip = methods::RECIP_SCHEDULES
            .iter()
            .map(|&m| (m, widest::widest(methods::HARDWARE_RECIP)));
        Plan {
            pairs: div.chain(recip).collect(),
            row_pairs: Vec::new(),
            sizes: vec![256, 1024, 2048, 4096, 1 << 14, 1 << 16, 1 << 20],
            inputs: vec![Inputs::Normal],
            rounds: 21,
            sample: 100e-6,
            rows: 0,
            divisors: Vec::new(),
            past_line: 0,
        }
    }

    /// `Divisor::new(b).divide_slice` against the broadcast divider loop, for divisors of
    /// every zero-sign class and magnitude, from L1 to L2: where the proven two-product
    /// sequence runs, and what it gains.
    pub fn divisors() -> Plan {
        Plan {
            pairs: vec![(methods::DIVISOR, widest::widest(methods::HARDWARE_BY_HELD))],
            row_pairs: Vec::new(),
            sizes: vec![1024, 2048, 4096, 1 << 14],
            inputs: vec![
                Inputs::Normal,
                Inputs::OnePercentSpecials,
                Inputs::RandomBits,
            ],
            rounds: 41,
            sample: 250e-6,
            rows: 0,
            divisors: DIVISORS.to_vec(),
            past_line: 0,
        }
    }
}

/// The floor every entry point must keep against the divider loop doing the same job.
pub const FLOOR: f64 = 0.97;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// z of a two-sided 95% interval.
const Z_95: f64 = 1.96;

/// The 95% confidence interval of the median of `sorted` (ascending): the order statistics
/// `k` and `n - 1 - k` with `k = (n - z·√n) / 2` (the sign test's normal approximation).
fn median_interval(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len();
    let k = ((n as f64 - Z_95 * (n as f64).sqrt()) / 2.0)
        .floor()
        .max(0.0) as usize;
    let k = k.min(n.saturating_sub(1) / 2);
    (sorted[k], sorted[n - 1 - k])
}

/// Bits of `m` on `(a, b)` against `/`.
fn check(m: &Method, a: &[f32], b: &[f32]) -> Result<(), String> {
    let mut out = vec![0.0f32; a.len()];
    (m.run)(a, b, &mut out);
    for i in 0..a.len() {
        let want = m.kind.expected(a, b, i);
        if out[i].to_bits() != want.to_bits() {
            return Err(format!(
                "{} is not exact: {:#010x} / {:#010x} gave {:#010x}, want {:#010x}",
                m.name,
                a[i].to_bits(),
                b[i].to_bits(),
                out[i].to_bits(),
                want.to_bits()
            ));
        }
    }
    Ok(())
}

/// Seconds per call of `m`, over `calls` calls.
fn time(m: &Method, a: &[f32], b: &[f32], out: &mut [f32], calls: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..calls {
        (m.run)(black_box(a), black_box(b), black_box(&mut *out));
    }
    t.elapsed().as_secs_f64() / calls as f64
}

/// Measures `pairs` on inputs of `n` elements: every pair alternately in every round,
/// the layout rotating between rounds.
fn measure(
    plan: &Plan,
    pairs: &[(Method, Method)],
    inputs: Inputs,
    n: usize,
    divisor: Option<f32>,
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    let (a, mut b) = inputs.generate(n, 0x5eed ^ n as u64);
    if let Some(d) = divisor {
        b.fill(d);
    }
    for (m, base) in pairs {
        check(m, &a, &b)?;
        check(base, &a, &b)?;
    }
    let mut layouts =
        fmadiv_verify::samples::Layouts::past_line(a.clone(), b.clone(), plan.past_line);
    // Calls per sample from the baseline's speed, after a warm-up of every method.
    let calls: Vec<usize> = pairs
        .iter()
        .map(|(m, base)| {
            let (x, y, out) = layouts.arrays(0);
            time(m, x, y, out, 4);
            let once = time(base, x, y, out, 4).max(1e-9);
            ((plan.sample / once) as usize).clamp(1, 1 << 20)
        })
        .collect();
    let mut ratios = vec![Vec::with_capacity(plan.rounds); pairs.len()];
    let mut speeds = vec![Vec::with_capacity(plan.rounds); pairs.len()];
    for round in 0..plan.rounds {
        let (x, y, out) = layouts.arrays(round);
        for (p, (m, base)) in pairs.iter().enumerate() {
            // Alternate which of the two runs first.
            let (t_base, t_m) = if round % 2 == 0 {
                let tb = time(base, x, y, out, calls[p]);
                (tb, time(m, x, y, out, calls[p]))
            } else {
                let tm = time(m, x, y, out, calls[p]);
                (time(base, x, y, out, calls[p]), tm)
            };
            ratios[p].push(t_base / t_m.max(1e-12));
            speeds[p].push(n as f64 / t_m.max(1e-12) / 1e9);
        }
    }
    for (p, (m, base)) in pairs.iter().enumerate() {
        let r = &mut ratios[p];
        let med = median(r);
        let (low, high) = median_interval(r);
        rows.push(Row {
            method: m.name,
            baseline: base.name,
            inputs: inputs.name(),
            divisor,
            strategy: divisor.map(|d| fmadiv::Divisor::new(d).strategy().to_string()),
            size: n,
            vs_baseline: med,
            vs_baseline_low: low,
            vs_baseline_high: high,
            vs_baseline_min: r[0],
            vs_baseline_max: r[r.len() - 1],
            gdiv_per_s: median(&mut speeds[p]),
            rounds: plan.rounds,
        });
    }
    Ok(())
}

/// Runs every floor of the plan; `progress` hears of each finished (size, inputs).
pub fn run(plan: &Plan, mut progress: impl FnMut(usize, Inputs)) -> Result<Vec<Row>, String> {
    let available = |pairs: &[(Method, Method)]| -> Vec<(Method, Method)> {
        pairs
            .iter()
            .copied()
            .filter(|(m, base)| (m.available)() && (base.available)())
            .collect()
    };
    let pairs = available(&plan.pairs);
    let row_pairs = available(&plan.row_pairs);
    let mut rows = Vec::new();
    let divisors: Vec<Option<f32>> = match plan.divisors.as_slice() {
        [] => vec![None],
        list => list.iter().copied().map(Some).collect(),
    };
    for &size in &plan.sizes {
        for &inputs in &plan.inputs {
            for &divisor in &divisors {
                measure(plan, &pairs, inputs, size, divisor, &mut rows)?;
            }
            progress(size, inputs);
        }
    }
    for pair in &row_pairs {
        let Kind::Rows { len } = pair.0.kind else {
            continue;
        };
        for &inputs in &plan.inputs {
            measure(
                plan,
                std::slice::from_ref(pair),
                inputs,
                plan.rows * len,
                None,
                &mut rows,
            )?;
        }
        progress(plan.rows * len, Inputs::Normal);
    }
    Ok(rows)
}

/// A plain-text table: one line per cell.
pub fn print_table(rows: &[Row]) {
    let name = |r: &Row| match r.divisor {
        Some(d) => format!(
            "{} by {d} ({})",
            r.method,
            r.strategy.as_deref().unwrap_or("?")
        ),
        None => r.method.to_string(),
    };
    let width = rows
        .iter()
        .map(|r| name(r).len())
        .max()
        .unwrap_or(0)
        .max(46);
    println!(
        "{:<width$} {:>7} {:>12} {:>9} {:>17}",
        "method (vs its divider loop)", "size", "inputs", "Gdiv/s", "ratio (95% CI)"
    );
    let mut baselines: Vec<&str> = rows.iter().map(|r| r.baseline).collect();
    baselines.sort_unstable();
    baselines.dedup();
    println!("divider loops compared with: {}", baselines.join("; "));
    for r in rows {
        println!(
            "{:<width$} {:>7} {:>12} {:>9.3} {:>6.2}x ({:.2}..{:.2})",
            name(r),
            crate::bench::size_name(r.size),
            r.inputs,
            r.gdiv_per_s,
            r.vs_baseline,
            r.vs_baseline_low,
            r.vs_baseline_high
        );
    }
    let below = |floor: f64| rows.iter().filter(|r| r.vs_baseline_high < floor).count();
    let medians = |floor: f64| rows.iter().filter(|r| r.vs_baseline < floor).count();
    println!(
        "{} cells; median below 0.97: {}; below 0.97 with 95% confidence (the whole \
         interval under it): {}",
        rows.len(),
        medians(FLOOR),
        below(FLOOR)
    );
}
