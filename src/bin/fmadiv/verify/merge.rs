//! `fmadiv verify merge`: combine shard reports, checking exact coverage.

use std::path::PathBuf;
use std::process::ExitCode;

use fmadiv::sweep::{MANTISSAS, Tally};

use super::finish;
use crate::report::{MantissaRange, Report};

pub fn run(paths: &[PathBuf], out: Option<&PathBuf>) -> Result<ExitCode, String> {
    if let Some(path) = out {
        crate::files::check_writable(path)?;
    }
    let mut reports = Vec::new();
    for path in paths {
        let r = Report::read(path)?;
        if r.mode != "mantissa" {
            return Err(format!(
                "{}: a {} report; only mantissa sweeps merge",
                path.display(),
                r.mode
            ));
        }
        let range = r
            .range
            .ok_or_else(|| format!("{}: no range", path.display()))?;
        if r.pairs_checked != r.pairs_expected
            || r.pairs_expected != u64::from(range.to - range.from) * u64::from(MANTISSAS)
        {
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
    for (path, r, _) in &reports {
        if r.kernel != first.kernel {
            return Err(format!(
                "{}: {} kernel, but {} is {}",
                path.display(),
                r.kernel,
                paths[0].display(),
                first.kernel
            ));
        }
        if r.kernel_digest != first.kernel_digest {
            return Err(format!(
                "{}: kernel digest {} differs from {} in {}: the reports checked different \
                 kernel arithmetic",
                path.display(),
                r.kernel_digest,
                first.kernel_digest,
                paths[0].display()
            ));
        }
        if r.sweep_mode != first.sweep_mode {
            return Err(format!(
                "{}: a {} sweep, but {} is {}: merge reports of one mode",
                path.display(),
                r.sweep_mode.as_deref().unwrap_or("?"),
                paths[0].display(),
                first.sweep_mode.as_deref().unwrap_or("?")
            ));
        }
        if r.machine.rcp_fingerprint != first.machine.rcp_fingerprint {
            return Err(format!(
                "{}: rcp table {} differs from {} in {}: a verification holds for one table",
                path.display(),
                r.machine.rcp_fingerprint,
                first.machine.rcp_fingerprint,
                paths[0].display()
            ));
        }
    }
    reports.sort_by_key(|(_, _, range)| (range.from, range.to));
    let mut tally = Tally::default();
    let mut wall = 0.0f64;
    let mut thread_seconds = 0.0f64;
    let mut threads = 0;
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
    for (_, r, _) in &reports {
        tally.merge(&r.tally()?);
        wall += r.wall_seconds;
        thread_seconds += r.wall_seconds * r.threads as f64;
        threads = threads.max(r.threads);
    }
    let range = MantissaRange {
        from: reports[0].2.from,
        to: reports[reports.len() - 1].2.to,
    };
    let expected = u64::from(range.to - range.from) * u64::from(MANTISSAS);
    let machine = first.machine;
    let kernel = first.kernel;
    let params = serde_json::json!({
        "merged": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "note": "wall_seconds sums the shards; threads is the largest shard's; the per-thread rate is pairs per thread-second",
    });
    let mode = match first.sweep_mode.as_deref() {
        Some("pruned") => fmadiv::sweep::Mode::Pruned,
        _ => fmadiv::sweep::Mode::BruteForce,
    };
    let mut report = Report::new(
        "merge",
        &kernel,
        &first.kernel_digest,
        Some(mode),
        Some(range),
        None,
        params,
        expected,
        &tally,
        machine,
        threads,
        wall,
        tally.pairs + tally.proven,
    );
    report.pairs_per_second_per_thread =
        (tally.pairs + tally.proven) as f64 / thread_seconds.max(1e-9);
    if range.from != 0 || range.to != MANTISSAS {
        println!(
            "note: the merged reports cover [{:#x}, {:#x}), not all 2^23 dividend mantissas",
            range.from, range.to
        );
    }
    finish(&report, out)
}
