//! `fmadiv verify merge`: combine shard reports, checking exact coverage.

use std::path::PathBuf;
use std::process::ExitCode;

use fmadiv_verify::sweep::conforming::SeedStats;
use fmadiv_verify::sweep::{MANTISSAS, Tally};

use super::finish;
use crate::report::{MantissaRange, Report, SeedStatsJson};

/// What must be equal in every report of a merge, with its name for messages.
fn identity(r: &Report) -> Vec<(&'static str, String)> {
    let mut id = vec![
        ("mode", r.mode.clone()),
        ("kernel", r.kernel.clone()),
        ("sweep mode", r.sweep_mode.clone().unwrap_or_default()),
        (
            "rounding",
            r.rounding.clone().unwrap_or_else(|| "nearest".into()),
        ),
    ];
    match &r.every_table {
        // One table: the kernel digest and the table must agree.
        None => {
            id.push(("rcp tables", "this CPU's".into()));
            id.push(("kernel digest", r.kernel_digest.clone()));
            id.push(("rcp table", r.machine.rcp_fingerprint.clone()));
        }
        // Every table: the arithmetic and the bound must agree; the CPUs may differ.
        Some(t) => {
            id.push(("rcp tables", "every conforming table".into()));
            id.push(("seed bound", t.seed_bound.clone()));
            id.push(("arithmetic digest", t.arithmetic_digest.clone()));
            id.push(("rows digest", t.rows_digest.clone().unwrap_or_default()));
        }
    }
    id
}

pub fn run(paths: &[PathBuf], out: Option<&PathBuf>) -> Result<ExitCode, String> {
    if let Some(path) = out {
        crate::files::check_writable(path)?;
    }
    let mut reports = Vec::new();
    for path in paths {
        let r = Report::read(path)?;
        let ranged = r.mode == "mantissa" || (r.mode == "reciprocals" && r.every_table.is_some());
        if !ranged {
            return Err(format!(
                "{}: a {} report; only mantissa sweeps and every-table reciprocal sweeps merge",
                path.display(),
                r.mode
            ));
        }
        let range = r
            .range
            .ok_or_else(|| format!("{}: no range", path.display()))?;
        let whole_rows = r.every_table.is_some()
            || r.pairs_expected == u64::from(range.to - range.from) * u64::from(MANTISSAS);
        if r.pairs_checked != r.pairs_expected || !whole_rows {
            return Err(format!(
                "{}: incomplete ({} of {} pairs)",
                path.display(),
                r.pairs_checked,
                r.pairs_expected
            ));
        }
        reports.push((path, r, range));
    }
    let first = reports[0].1.clone();
    let first_id = identity(&first);
    for (path, r, _) in &reports {
        for ((what, mine), (_, theirs)) in identity(r).iter().zip(&first_id) {
            if mine != theirs {
                return Err(format!(
                    "{}: {what} {mine}, but {} has {theirs}: {}",
                    path.display(),
                    paths[0].display(),
                    match *what {
                        "kernel digest" | "arithmetic digest" =>
                            "the reports checked different kernel arithmetic",
                        "rcp table" => "a verification holds for one table",
                        _ => "merge reports of one sweep",
                    }
                ));
            }
        }
    }
    reports.sort_by_key(|(_, _, range)| (range.from, range.to));
    for pair in reports.windows(2) {
        let (pa, _, a) = &pair[0];
        let (pb, _, b) = &pair[1];
        if b.from < a.to {
            return Err(format!(
                "overlap: {} covers [{:#x}, {:#x}) and {} covers [{:#x}, {:#x})",
                pa.display(),
                a.from,
                a.to,
                pb.display(),
                b.from,
                b.to
            ));
        }
        if b.from > a.to {
            return Err(format!(
                "gap: nothing covers [{:#x}, {:#x}) between {} and {}",
                a.to,
                b.from,
                pa.display(),
                pb.display()
            ));
        }
    }
    let mut tally = Tally::default();
    let mut wall = 0.0f64;
    let mut thread_seconds = 0.0f64;
    let mut threads = 0;
    let mut expected = 0;
    let mut seeds = SeedStats::default();
    for (_, r, _) in &reports {
        tally.merge(&r.tally()?);
        wall += r.wall_seconds;
        thread_seconds += r.wall_seconds * r.threads as f64;
        threads = threads.max(r.threads);
        expected += r.pairs_expected;
        if let Some(t) = &r.every_table {
            seeds.merge(&t.stats.stats());
        }
    }
    let range = MantissaRange {
        from: reports[0].2.from,
        to: reports[reports.len() - 1].2.to,
    };
    let what = if first.mode == "reciprocals" {
        "divisor"
    } else {
        "dividend"
    };
    let params = serde_json::json!({
        "merged": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "of": first.mode,
        "cpus": reports.iter().map(|(_, r, _)| format!("{} ({}), rcp table {}", r.machine.cpu_model, r.machine.cpu_signature, r.machine.rcp_fingerprint)).collect::<std::collections::BTreeSet<_>>(),
        "note": "wall_seconds sums the shards; threads is the largest shard's; the per-thread rate is pairs per thread-second",
    });
    let mode = match first.sweep_mode.as_deref() {
        Some("pruned") => fmadiv_verify::sweep::Mode::Pruned,
        _ => fmadiv_verify::sweep::Mode::BruteForce,
    };
    let mut report = Report::new(
        "merge",
        &first.kernel,
        &first.kernel_digest,
        Some(mode),
        Some(range),
        None,
        params,
        expected,
        &tally,
        first.machine.clone(),
        threads,
        wall,
        tally.covered(),
    );
    report.pairs_per_second_per_thread = tally.covered() as f64 / thread_seconds.max(1e-9);
    report.rounding = first.rounding.clone();
    if let Some(mut t) = first.every_table.clone() {
        // A division sweep's shards split dividends and each saw every divisor row (the
        // rows digest is equal); a reciprocal sweep's shards split divisors: add them.
        if first.mode == "reciprocals" {
            t.stats = SeedStatsJson::from(&seeds);
        }
        report = report.with_every_table(t);
    }
    if range.from != 0 || range.to != MANTISSAS {
        println!(
            "note: the merged reports cover [{:#x}, {:#x}), not all 2^23 {what} mantissas",
            range.from, range.to
        );
    }
    finish(&report, out)
}
