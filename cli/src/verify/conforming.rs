//! `fmadiv verify mantissa --rcp any` and `fmadiv verify reciprocals --rcp any`: the
//! kernels checked for every `rcpps` table within the documented bound (see
//! `fmadiv_verify::sweep::conforming`).

use std::process::ExitCode;
use std::time::Instant;

use fmadiv::verify::Kernel;
use fmadiv_verify::sweep::conforming::{
    Row, SeedBound, SeedStats, compare_rows, divisor_rows, reciprocal_seed_stats, reciprocal_tile,
};
use fmadiv_verify::sweep::{DIVIDEND_TILE, MANTISSAS, Mode, Tally};
use rayon::prelude::*;

use super::checkpoint::RunKey;
use super::runner::{self, Units};
use super::{CommonArgs, MantissaArgs, ReciprocalArgs, finish, pool};
use crate::files;
use crate::report::{EveryTable, Machine, MantissaRange, SeedStatsJson};

/// Divisor mantissas per task when the rows and statistics are computed up front.
const DIVISOR_SLICE: u32 = 1 << 15;
/// Compared rows are split into this many chunks per dividend tile (the work units).
const ROW_CHUNKS: usize = 8;
/// Divisor mantissas per work unit of the reciprocal sweep.
const RECIPROCAL_UNIT: u32 = 1 << 13;

/// Checks what both sweeps need and returns the table-independent digest.
fn prepare(common: &CommonArgs, recip: bool) -> Result<(Kernel, String, Machine), String> {
    if let Some(path) = &common.report {
        files::check_writable(path)?;
    }
    let kernel = common.kernel.kernel();
    let digest = fmadiv_verify::digest::arithmetic_digest(kernel, recip)
        .ok_or("this CPU lacks AVX2+FMA: there is no kernel to verify")?;
    Ok((kernel, digest, Machine::here()?))
}

/// The claim a passing report makes, in words.
fn claim(recip: bool, bound: SeedBound) -> String {
    let what = if recip {
        "the reciprocal kernel returns RN(1/b) for every divisor mantissa in the range"
    } else {
        "the division kernel returns RN(a/b) for every dividend mantissa in the range and \
         every divisor mantissa"
    };
    format!(
        "{what}, on every CPU whose seed (rcpps; vrcp14ps under 2^-14) for the divisor \
         satisfies |1 - b*r| <= {bound} \
         (inside the input window this covers every exponent and sign; other lanes are the \
         divider's)"
    )
}

pub fn division(args: &MantissaArgs, lo: u32, hi: u32) -> Result<ExitCode, String> {
    let (kernel, digest, machine) = prepare(&args.common, false)?;
    let bound = args.rcp.rcp_bound;
    let mode = if args.prune {
        Mode::Pruned
    } else {
        Mode::BruteForce
    };
    eprintln!(
        "every rcpps table with |1 - b*r| <= {bound}: refining every allowed seed of all 2^23 \
         divisors ({} kernel) ...",
        kernel.name()
    );
    let start = Instant::now();
    let (pool, _) = pool(args.common.threads)?;
    let parts: Vec<(Vec<Row>, SeedStats)> = pool.install(|| {
        (0..MANTISSAS / DIVISOR_SLICE)
            .into_par_iter()
            .map(|i| {
                let divisors = i * DIVISOR_SLICE..(i + 1) * DIVISOR_SLICE;
                divisor_rows(kernel, bound, divisors, args.prune).expect("AVX2+FMA checked")
            })
            .collect()
    });
    let mut rows = Vec::new();
    let mut stats = SeedStats::default();
    for (r, s) in parts {
        rows.extend(r);
        stats.merge(&s);
    }
    let rows_digest = rows_digest(&rows);
    eprintln!(
        "  {} seeds, {} rows kept ({} proven, {} to compare), {} divisors to the divider, \
         in {:.1} s",
        stats.seeds,
        stats.rows,
        stats.rows_proven,
        stats.rows_compared,
        stats.divisors_by_divider,
        start.elapsed().as_secs_f64()
    );

    let key = RunKey {
        kernel: kernel.name().into(),
        kernel_digest: digest.clone(),
        sweep_mode: crate::report::mode_name(mode).into(),
        from: lo,
        to: hi,
        rcp_fingerprint: "any".into(),
        rounding: String::new(),
        rcp_tables: format!("every table within |1 - b*r| <= {bound}, rows {rows_digest}"),
    };
    let chunk_len = rows.len().div_ceil(ROW_CHUNKS).max(1);
    let tiles = (hi - lo).div_ceil(DIVIDEND_TILE) as usize;
    let run_unit = |u: usize| {
        let (tile, chunk) = (u / ROW_CHUNKS, u % ROW_CHUNKS);
        let a0 = lo + tile as u32 * DIVIDEND_TILE;
        let dividends = a0..(a0 + DIVIDEND_TILE).min(hi);
        let n = u64::from(dividends.end - dividends.start);
        let from = (chunk * chunk_len).min(rows.len());
        let to = ((chunk + 1) * chunk_len).min(rows.len());
        let mut tally = compare_rows(&rows[from..to], dividends).expect("AVX2+FMA checked");
        if chunk == 0 {
            // The rows proven by the lemma and the divider's divisors cover these
            // dividends without comparison: counted once per tile.
            tally.proven += n * stats.rows_proven;
            tally.by_divider += n * stats.divisors_by_divider;
        }
        tally
    };
    let units = Units {
        key,
        count: tiles * ROW_CHUNKS,
        expected: u64::from(hi - lo)
            * (stats.rows_proven + stats.rows_compared + stats.divisors_by_divider),
        run: &run_unit,
    };
    let outcome = runner::run(&units, &args.resume.options(&args.common))?;
    let report = outcome
        .report(
            "mantissa",
            kernel.name(),
            &crate::report::digest_of(kernel),
            Some(mode),
            MantissaRange { from: lo, to: hi },
            args.resume.shard,
            serde_json::json!({ "from": args.from, "to": args.to, "rcp": "any" }),
            units.expected,
            machine,
        )
        .with_every_table(EveryTable {
            seed_bound: bound.to_string(),
            claim: claim(false, bound),
            arithmetic_digest: digest,
            rows_digest: Some(rows_digest),
            stats: SeedStatsJson::from(&stats),
        });
    finish(&report, args.common.report.as_ref())
}

/// FNV-1a 64 over the compared rows' words: two runs that compare different rows must not
/// mix in one checkpoint or merge.
fn rows_digest(rows: &[Row]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for word in rows.iter().flat_map(|r| [r.b, r.y, r.seed]) {
        for byte in word.to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

pub fn reciprocals(args: &ReciprocalArgs) -> Result<ExitCode, String> {
    let (lo, hi) = args.divisor_range()?;
    let (kernel, digest, machine) = prepare(&args.common, true)?;
    let bound = args.rcp.rcp_bound;
    let (pool, _) = pool(args.common.threads)?;
    let slices: Vec<u32> = (lo..hi).step_by(DIVISOR_SLICE as usize).collect();
    let parts: Vec<SeedStats> = pool.install(|| {
        slices
            .par_iter()
            .map(|&from| {
                let to = (from + DIVISOR_SLICE).min(hi);
                reciprocal_seed_stats(kernel, bound, from..to).expect("AVX2+FMA checked")
            })
            .collect()
    });
    let mut stats = SeedStats::default();
    parts.iter().for_each(|s| stats.merge(s));
    eprintln!(
        "every rcpps table with |1 - b*r| <= {bound}: the reciprocal kernel ({}) on {} seeds of \
         divisor mantissas [{lo:#x}, {hi:#x})",
        kernel.name(),
        stats.seeds
    );
    let key = RunKey {
        kernel: format!("{} reciprocal", kernel.name()),
        kernel_digest: digest.clone(),
        sweep_mode: crate::report::mode_name(Mode::BruteForce).into(),
        from: lo,
        to: hi,
        rcp_fingerprint: "any".into(),
        rounding: String::new(),
        rcp_tables: format!("every table within |1 - b*r| <= {bound}"),
    };
    let run_unit = |u: usize| -> Tally {
        let from = lo + u as u32 * RECIPROCAL_UNIT;
        let to = (from + RECIPROCAL_UNIT).min(hi);
        reciprocal_tile(kernel, bound, from..to).expect("AVX2+FMA checked")
    };
    let units = Units {
        key,
        count: (hi - lo).div_ceil(RECIPROCAL_UNIT) as usize,
        expected: stats.seeds,
        run: &run_unit,
    };
    let outcome = runner::run(&units, &args.resume.options(&args.common))?;
    let report = outcome.report(
        "reciprocals",
        kernel.name(),
        &fmadiv_verify::digest::reciprocal_digest(kernel).unwrap_or_else(|| "none".into()),
        Some(Mode::BruteForce),
        MantissaRange { from: lo, to: hi },
        args.resume.shard,
        serde_json::json!({ "from": args.from, "to": args.to, "rcp": "any", "dividend": "0x3f800000" }),
        units.expected,
        machine,
    )
    .with_every_table(EveryTable {
        seed_bound: bound.to_string(),
        claim: claim(true, bound),
        arithmetic_digest: digest,
        rows_digest: None,
        stats: SeedStatsJson::from(&stats),
    });
    finish(&report, args.common.report.as_ref())
}
