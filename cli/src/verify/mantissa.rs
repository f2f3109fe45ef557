//! `fmadiv verify mantissa`: the exhaustive sweep over [1,2) × [1,2), resumable.

use std::process::ExitCode;

use fmadiv_verify::sweep::{DIVIDEND_TILE, DIVISOR_TILE, MANTISSAS, Mode, mantissa_tile};

use super::checkpoint::RunKey;
use super::runner::{self, Units};
use super::{MantissaArgs, RcpArg, finish};
use crate::files;
use crate::report::{Machine, MantissaRange};

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

pub fn run(args: MantissaArgs) -> Result<ExitCode, String> {
    let (lo, hi) = args.dividend_range()?;
    let rounding = args.rounding.rounding();
    if rounding != fmadiv::Rounding::Nearest {
        if args.prune || args.rcp.rcp == RcpArg::Any {
            return Err(format!(
                "--rounding {rounding} compares every pair with this CPU's vdivps: no --prune, \
                 no --rcp any (the step's proof needs no table)"
            ));
        }
        if !matches!(args.common.kernel, super::KernelArg::Shipped) {
            return Err(format!(
                "--rounding {rounding} checks the step from the shipped kernel's quotient: no \
                 --kernel"
            ));
        }
    }
    if args.rcp.rcp == RcpArg::Any {
        return super::conforming::division(&args, lo, hi);
    }
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
    if let Err(e) = fmadiv_verify::sweep::check_rcp_scaling() {
        return Err(format!(
            "the mantissa sweep does not cover this CPU's kernel: {e} \
             (`--rcp any` does not need this property)"
        ));
    }
    let machine = Machine::here()?;
    let digest = if rounding == fmadiv::Rounding::Nearest {
        crate::report::digest_of(kernel)
    } else {
        fmadiv_verify::digest::directed_digest(rounding).unwrap_or_else(|| "none".into())
    };
    let key = RunKey {
        kernel: kernel.name().into(),
        kernel_digest: digest.clone(),
        sweep_mode: crate::report::mode_name(mode).into(),
        from: lo,
        to: hi,
        rcp_fingerprint: machine.rcp_fingerprint.clone(),
        rcp_tables: String::new(),
        rounding: match rounding {
            fmadiv::Rounding::Nearest => String::new(),
            r => r.name().into(),
        },
    };
    let run_unit = |u: usize| {
        let (dividends, divisors) = unit_ranges(lo, hi, u);
        match rounding {
            fmadiv::Rounding::Nearest => mantissa_tile(kernel, mode, dividends, divisors),
            r => fmadiv_verify::sweep::directed::directed_tile(r, false, dividends, divisors),
        }
        .expect("AVX2+FMA checked above")
    };
    let units = Units {
        key,
        count: ((hi - lo).div_ceil(DIVIDEND_TILE) * DIVISOR_TILES) as usize,
        expected: u64::from(hi - lo) * u64::from(MANTISSAS),
        run: &run_unit,
    };
    let outcome = runner::run(&units, &args.resume.options(&args.common))?;
    let report = outcome
        .report(
            "mantissa",
            kernel.name(),
            &digest,
            Some(mode),
            MantissaRange { from: lo, to: hi },
            args.resume.shard,
            serde_json::json!({ "from": args.from, "to": args.to }),
            units.expected,
            machine,
        )
        .with_rounding(rounding);
    finish(&report, args.common.report.as_ref())
}
