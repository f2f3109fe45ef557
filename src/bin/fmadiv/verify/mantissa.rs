//! `fmadiv verify mantissa`: the exhaustive sweep over [1,2) × [1,2), resumable.

use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fmadiv::sweep::{DIVIDEND_TILE, DIVISOR_TILE, MANTISSAS, Mode, Tally, mantissa_tile};
use rayon::prelude::*;

use super::checkpoint::{RunKey, State};
use super::{MantissaArgs, finish, pool};
use crate::files;
use crate::progress::Progress;
use crate::report::{Machine, MantissaRange, Report, Shard};

/// Divisor tiles per dividend tile.
const DIVISOR_TILES: u32 = MANTISSAS / DIVISOR_TILE;

/// The dividend range of shard `index` of `count` over [from, to): contiguous, disjoint,
/// and together exactly [from, to).
pub fn shard_range(from: u32, to: u32, index: u32, count: u32) -> (u32, u32) {
    let len = u64::from(to - from);
    let at = |i: u32| from + (len * u64::from(i) / u64::from(count)) as u32;
    (at(index), at(index + 1))
}

/// Work unit `u`: (dividend range, divisor range).
fn unit_ranges(from: u32, to: u32, u: usize) -> (std::ops::Range<u32>, std::ops::Range<u32>) {
    let tile = u as u32 / DIVISOR_TILES;
    let d = u as u32 % DIVISOR_TILES;
    let a0 = from + tile * DIVIDEND_TILE;
    (
        a0..(a0 + DIVIDEND_TILE).min(to),
        d * DIVISOR_TILE..(d + 1) * DIVISOR_TILE,
    )
}

struct Shared {
    state: State,
    last_save: Instant,
    run_start: Instant,
    elapsed_before: f64,
    progress: Progress,
    error: Option<String>,
}

pub fn run(args: MantissaArgs) -> Result<ExitCode, String> {
    let (from, to) = (args.from, args.to);
    if to > MANTISSAS || from > MANTISSAS {
        return Err(format!(
            "mantissas run from 0 to 2^23 = {MANTISSAS}; got --from {from} --to {to}"
        ));
    }
    if from > to {
        return Err(format!("--from {from} is above --to {to}"));
    }
    let (lo, hi) = match args.shard {
        Some((i, n)) => shard_range(from, to, i, n),
        None => (from, to),
    };
    let kernel = args.common.kernel.kernel();
    if let Some(path) = &args.common.report {
        files::check_writable(path)?;
    }
    let mode = if args.prune {
        Mode::Pruned
    } else {
        Mode::BruteForce
    };
    if mantissa_tile(kernel, mode, 0..0, 0..8).is_none() {
        return Err("this CPU lacks AVX2+FMA: there is no kernel to verify".into());
    }
    if let Err(e) = fmadiv::sweep::check_rcp_scaling() {
        return Err(format!(
            "the mantissa sweep does not cover this CPU's kernel: {e}"
        ));
    }
    let machine = Machine::here()?;
    let digest = crate::report::digest_of(kernel);
    let key = RunKey {
        kernel: kernel.name().into(),
        kernel_digest: digest.clone(),
        sweep_mode: crate::report::mode_name(mode).into(),
        from: lo,
        to: hi,
        rcp_fingerprint: machine.rcp_fingerprint.clone(),
    };
    let units = ((hi - lo).div_ceil(DIVIDEND_TILE) * DIVISOR_TILES) as usize;
    let state = match &args.checkpoint {
        Some(path) if path.exists() => {
            let state = State::load(path, &key, units)?;
            eprintln!(
                "resuming from {}: {} of {units} units done",
                path.display(),
                state.done.iter().filter(|&&d| d).count()
            );
            state
        }
        Some(path) => {
            files::check_writable(path)?;
            State::new(key, units)
        }
        None => State::new(key, units),
    };
    let (pool, threads) = pool(args.common.threads)?;
    let checkpoint_interval = Duration::from_secs(args.checkpoint_every);
    let expected = u64::from(hi - lo) * u64::from(MANTISSAS);
    let pending: Vec<usize> = (0..units).filter(|&u| !state.done[u]).collect();
    let pairs_before = state.tally.pairs + state.tally.proven;
    let shared = Mutex::new(Shared {
        progress: Progress::new(expected, pairs_before),
        elapsed_before: state.elapsed_seconds,
        state,
        last_save: Instant::now(),
        run_start: Instant::now(),
        error: None,
    });

    pool.install(|| {
        pending.par_iter().for_each(|&u| {
            if shared
                .lock()
                .expect("no panics while locked")
                .error
                .is_some()
            {
                return;
            }
            let (dividends, divisors) = unit_ranges(lo, hi, u);
            let tally =
                mantissa_tile(kernel, mode, dividends, divisors).expect("AVX2+FMA checked above");
            let mut s = shared.lock().expect("no panics while locked");
            s.state.done[u] = true;
            s.state.tally.merge(&tally);
            s.progress.add(tally.pairs + tally.proven);
            if let Some(path) = &args.checkpoint {
                if s.last_save.elapsed() >= checkpoint_interval {
                    s.state.elapsed_seconds =
                        s.elapsed_before + s.run_start.elapsed().as_secs_f64();
                    if let Err(e) = s.state.save(path) {
                        s.error = Some(e);
                    }
                    s.last_save = Instant::now();
                }
            }
        })
    });

    let mut s = shared.into_inner().expect("no panics while locked");
    s.progress.finish();
    let run_seconds = s.run_start.elapsed().as_secs_f64();
    s.state.elapsed_seconds = s.elapsed_before + run_seconds;
    if let Some(path) = &args.checkpoint {
        // Saved even after an error elsewhere: the work done so far is not lost.
        s.state.save(path)?;
    }
    if let Some(e) = s.error {
        return Err(e);
    }
    let tally: &Tally = &s.state.tally;
    let covered = tally.pairs + tally.proven;
    if covered != expected {
        return Err(format!(
            "internal error: covered {covered} pairs, expected {expected}"
        ));
    }
    let report = Report::new(
        "mantissa",
        kernel.name(),
        &digest,
        Some(mode),
        Some(MantissaRange { from: lo, to: hi }),
        args.shard.map(|(index, count)| Shard { index, count }),
        serde_json::json!({ "from": from, "to": to }),
        expected,
        tally,
        machine,
        threads,
        s.state.elapsed_seconds,
        covered - pairs_before,
    )
    .with_rate(covered - pairs_before, run_seconds, threads);
    finish(&report, args.common.report.as_ref())
}
