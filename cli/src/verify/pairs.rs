//! `verify edges`, `verify random`, `verify dividends`: batches of pairs through `div`.

use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use fmadiv::verify::Kernel;
use fmadiv_verify::samples::SplitMix64;
use fmadiv_verify::sweep::{Tally, compare_pairs, compare_reciprocals};
use rayon::prelude::*;

use super::{CommonArgs, finish, pool};
use crate::files;
use crate::progress::Progress;
use crate::report::{Machine, Report};

/// Pairs per rayon task.
const BATCH: u64 = 1 << 20;

/// What a batch compares: `div` (or a kernel variant) on pairs, or the reciprocal kernel on
/// divisors.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    Quotients,
    Reciprocals,
}

/// Runs `batches` batches of pairs made by `make(batch, &mut a, &mut b)` and compares them.
fn run_batches(
    mode: &str,
    common: &CommonArgs,
    parameters: serde_json::Value,
    total: u64,
    batches: u64,
    make: impl Fn(u64, &mut Vec<f32>, &mut Vec<f32>) + Sync,
) -> Result<ExitCode, String> {
    run_checks(
        mode,
        Check::Quotients,
        common,
        parameters,
        total,
        batches,
        make,
    )
}

/// [`run_batches`] with a choice of what is compared.
fn run_checks(
    mode: &str,
    check: Check,
    common: &CommonArgs,
    parameters: serde_json::Value,
    total: u64,
    batches: u64,
    make: impl Fn(u64, &mut Vec<f32>, &mut Vec<f32>) + Sync,
) -> Result<ExitCode, String> {
    if let Some(path) = &common.report {
        files::check_writable(path)?;
    }
    let kernel: Kernel = common.kernel.kernel();
    let has_kernel = fmadiv::verify::has_kernel();
    if (kernel != Kernel::Shipped || check == Check::Reciprocals) && !has_kernel {
        return Err(format!("the {kernel} kernel needs AVX2+FMA"));
    }
    let machine = Machine::here()?;
    let (pool, threads) = pool(common.threads)?;
    let start = Instant::now();
    let progress = Mutex::new(Progress::new(total, 0));
    let tally = pool.install(|| {
        (0..batches)
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new(), Vec::new()),
                |(a, b, scratch), i| {
                    a.clear();
                    b.clear();
                    make(i, a, b);
                    let t = match check {
                        Check::Quotients => compare_pairs(kernel, a, b, scratch),
                        Check::Reciprocals => compare_reciprocals(kernel, b, scratch),
                    };
                    progress
                        .lock()
                        .expect("no panics while locked")
                        .add(t.pairs);
                    t
                },
            )
            .reduce(Tally::default, |mut x, y| {
                x.merge(&y);
                x
            })
    });
    progress
        .into_inner()
        .expect("no panics while locked")
        .finish();
    if tally.pairs != total {
        return Err(format!(
            "internal error: checked {} pairs, expected {total}",
            tally.pairs
        ));
    }
    let secs = start.elapsed().as_secs_f64();
    let report = Report::new(
        mode,
        kernel.name(),
        &match check {
            Check::Quotients => crate::report::digest_of(kernel),
            Check::Reciprocals => {
                fmadiv_verify::digest::reciprocal_digest(kernel).unwrap_or_else(|| "none".into())
            }
        },
        None,
        None,
        None,
        parameters,
        total,
        &tally,
        machine,
        threads,
        secs,
        tally.pairs,
    );
    finish(&report, common.report.as_ref())
}

/// Edge mantissas used with every exponent: zero, one ulp, halves, thirds, and the
/// near-all-ones patterns that broke the published kernel.
const EDGE_MANTISSAS: [u32; 16] = [
    0, 1, 2, 0x00_0fff, 0x15_5555, 0x2a_aaab, 0x40_0000, 0x40_0001, 0x55_5555, 0x7f_7fff,
    0x7f_8000, 0x7f_fff0, 0x7f_fffd, 0x7f_fffe, 0x7f_ffff, 0x3f_ffff,
];

/// Exponent differences (biased ea - eb) near which the quotient crosses into subnormals
/// (about -126) or overflows (about +128).
fn boundary_differences() -> impl Iterator<Item = i32> {
    (-131..=-120).chain(123..=131)
}

pub fn edges(common: CommonArgs) -> Result<ExitCode, String> {
    let values: Vec<f32> = (0..256u32)
        .flat_map(|e| EDGE_MANTISSAS.iter().map(move |&m| e << 23 | m))
        .flat_map(|bits| [f32::from_bits(bits), f32::from_bits(bits | 0x8000_0000)])
        .collect();
    let n = values.len() as u64;
    // Part 1: every pair of edge values (every exponent pair, both signs).
    let grid_batches = n;
    // Part 2: for each exponent pair at a boundary difference, 4096 random mantissa pairs.
    let boundary: Vec<(u32, u32)> = boundary_differences()
        .flat_map(|d| {
            (0..256i32).filter_map(move |ea| {
                let eb = ea - d;
                (0..256).contains(&eb).then_some((ea as u32, eb as u32))
            })
        })
        .collect();
    const PER_EXPONENT_PAIR: usize = 4096;
    let total = n * n + (boundary.len() * PER_EXPONENT_PAIR) as u64;
    let batches = grid_batches + boundary.len() as u64;
    let params = serde_json::json!({
        "edge_mantissas": EDGE_MANTISSAS.iter().map(|m| format!("{m:#08x}")).collect::<Vec<_>>(),
        "boundary_exponent_pairs": boundary.len(),
        "random_mantissa_pairs_per_boundary_exponent_pair": PER_EXPONENT_PAIR,
    });
    run_batches("edges", &common, params, total, batches, |i, a, b| {
        if i < grid_batches {
            let x = values[i as usize];
            a.extend(std::iter::repeat_n(x, values.len()));
            b.extend_from_slice(&values);
        } else {
            let (ea, eb) = boundary[(i - grid_batches) as usize];
            let mut rng = SplitMix64(0xed9e ^ i);
            for _ in 0..PER_EXPONENT_PAIR {
                let r = rng.next_u64();
                a.push(f32::from_bits((r as u32 & 0x807f_ffff) | ea << 23));
                b.push(f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | eb << 23));
            }
        }
    })
}

pub fn random(count: u64, seed: u64, common: CommonArgs) -> Result<ExitCode, String> {
    eprintln!("random bit patterns, seed {seed}");
    let batches = count.div_ceil(BATCH);
    let params = serde_json::json!({ "count": count, "seed": seed });
    run_batches("random", &common, params, count, batches, |i, a, b| {
        // Each batch has its own stream: the pairs do not depend on the thread count.
        let mut rng = SplitMix64(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let n = BATCH.min(count - i * BATCH);
        for _ in 0..n {
            let r = rng.next_u64();
            a.push(f32::from_bits(r as u32));
            b.push(f32::from_bits((r >> 32) as u32));
        }
    })
}

/// Parses a divisor: decimal (Rust syntax, inf, nan) or hex bits.
pub fn parse_divisor(s: &str) -> Result<f32, String> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if let Some(h) = body.strip_prefix("0x") {
        let bits = u32::from_str_radix(h, 16).map_err(|e| format!("divisor {s:?}: {e}"))?;
        return Ok(f32::from_bits(if neg { bits ^ 0x8000_0000 } else { bits }));
    }
    t.parse::<f32>()
        .map_err(|e| format!("divisor {s:?} is not a float or 0x bits: {e}"))
}

pub fn dividends(divisor: &str, common: CommonArgs) -> Result<ExitCode, String> {
    let y = parse_divisor(divisor)?;
    eprintln!("all 2^32 dividends / {y:e} ({:#010x})", y.to_bits());
    let total = 1u64 << 32;
    let params = serde_json::json!({ "divisor": format!("{:#010x}", y.to_bits()) });
    run_batches(
        "dividends",
        &common,
        params,
        total,
        total / BATCH,
        |i, a, b| {
            a.extend(every_float(i));
            b.extend(std::iter::repeat_n(y, BATCH as usize));
        },
    )
}

pub fn reciprocals(common: CommonArgs) -> Result<ExitCode, String> {
    eprintln!("all 2^32 inputs through the reciprocal kernel, against 1 / b");
    let total = 1u64 << 32;
    let params = serde_json::json!({ "dividend": "0x3f800000" });
    run_checks(
        "reciprocals",
        Check::Reciprocals,
        &common,
        params,
        total,
        total / BATCH,
        |i, _, b| b.extend(every_float(i)),
    )
}

/// Batch `i` of all 2^32 bit patterns, in order.
fn every_float(i: u64) -> impl Iterator<Item = f32> {
    let first = (i * BATCH) as u32;
    (0..BATCH as u32).map(move |k| f32::from_bits(first + k))
}
