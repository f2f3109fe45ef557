//! The resumable part of every long sweep: work units across threads, a checkpoint that
//! says which are done, and the final check that every pair was covered exactly once.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fmadiv_verify::sweep::Tally;
use rayon::prelude::*;

use super::checkpoint::{RunKey, State};
use super::pool;
use crate::files;
use crate::progress::Progress;
use crate::report::{Machine, MantissaRange, Report, Shard};

/// A sweep cut into independent units.
pub struct Units<'a> {
    /// What a checkpoint of this sweep belongs to.
    pub key: RunKey,
    /// How many units.
    pub count: usize,
    /// Pairs all units cover together (compared, proven or the divider's).
    pub expected: u64,
    /// Runs unit `u`.
    pub run: &'a (dyn Fn(usize) -> Tally + Sync),
}

/// What a run of [`Units`] leaves: the tally of all units (earlier runs included), the
/// seconds of all runs, this run's seconds, the pairs covered before it, the threads.
pub struct Outcome {
    pub tally: Tally,
    pub elapsed_seconds: f64,
    pub run_seconds: f64,
    pub covered_before: u64,
    pub threads: usize,
}

impl Outcome {
    /// The report of this run: its tally and times, and the rate of this process alone
    /// (pairs it covered over its run time; the pairs of a resumed checkpoint excluded).
    #[allow(clippy::too_many_arguments)]
    pub fn report(
        &self,
        mode: &str,
        kernel: &str,
        kernel_digest: &str,
        sweep_mode: Option<fmadiv_verify::sweep::Mode>,
        range: MantissaRange,
        shard: Option<(u32, u32)>,
        parameters: serde_json::Value,
        pairs_expected: u64,
        machine: Machine,
    ) -> Report {
        Report::new(
            mode,
            kernel,
            kernel_digest,
            sweep_mode,
            Some(range),
            shard.map(|(index, count)| Shard { index, count }),
            parameters,
            pairs_expected,
            &self.tally,
            machine,
            self.threads,
            self.elapsed_seconds,
            0,
        )
        .with_rate(
            self.tally.covered() - self.covered_before,
            self.run_seconds,
            self.threads,
        )
    }
}

/// Options every resumable sweep takes.
pub struct Options<'a> {
    pub checkpoint: Option<&'a Path>,
    pub threads: Option<usize>,
    pub checkpoint_every: Duration,
}

struct Shared {
    state: State,
    last_save: Instant,
    run_start: Instant,
    elapsed_before: f64,
    progress: Progress,
    error: Option<String>,
}

/// Runs the units not yet done (per the checkpoint, which must belong to `units.key`),
/// saving the checkpoint every `checkpoint_every` and at the end, even after an error.
pub fn run(units: &Units, options: &Options) -> Result<Outcome, String> {
    let state = match options.checkpoint {
        Some(path) if path.exists() => {
            let state = State::load(path, &units.key, units.count)?;
            eprintln!(
                "resuming from {}: {} of {} units done",
                path.display(),
                state.done.iter().filter(|&&d| d).count(),
                units.count
            );
            state
        }
        Some(path) => {
            files::check_writable(path)?;
            State::new(units.key.clone(), units.count)
        }
        None => State::new(units.key.clone(), units.count),
    };
    let (pool, threads) = pool(options.threads)?;
    let pending: Vec<usize> = (0..units.count).filter(|&u| !state.done[u]).collect();
    let covered_before = state.tally.covered();
    let shared = Mutex::new(Shared {
        progress: Progress::new(units.expected, covered_before),
        elapsed_before: state.elapsed_seconds,
        state,
        last_save: Instant::now(),
        run_start: Instant::now(),
        error: None,
    });

    pool.install(|| {
        pending.par_iter().for_each(|&u| {
            let failed = shared
                .lock()
                .expect("no panics while locked")
                .error
                .is_some();
            if failed {
                return;
            }
            let tally = (units.run)(u);
            let mut s = shared.lock().expect("no panics while locked");
            s.state.done[u] = true;
            s.state.tally.merge(&tally);
            s.progress.add(tally.covered());
            if let Some(path) = options.checkpoint
                && s.last_save.elapsed() >= options.checkpoint_every
            {
                s.state.elapsed_seconds = s.elapsed_before + s.run_start.elapsed().as_secs_f64();
                if let Err(e) = s.state.save(path) {
                    s.error = Some(e);
                }
                s.last_save = Instant::now();
            }
        })
    });

    let mut s = shared.into_inner().expect("no panics while locked");
    s.progress.finish();
    let run_seconds = s.run_start.elapsed().as_secs_f64();
    s.state.elapsed_seconds = s.elapsed_before + run_seconds;
    if let Some(path) = options.checkpoint {
        // Saved even after an error elsewhere: the work done so far is not lost.
        s.state.save(path)?;
    }
    if let Some(e) = s.error {
        return Err(e);
    }
    let covered = s.state.tally.covered();
    if covered != units.expected {
        return Err(format!(
            "internal error: covered {covered} pairs, expected {}",
            units.expected
        ));
    }
    Ok(Outcome {
        tally: s.state.tally,
        elapsed_seconds: s.state.elapsed_seconds,
        run_seconds,
        covered_before,
        threads,
    })
}
