//! `fmadiv verify ...`: exhaustive and targeted comparisons with the hardware divider.

pub mod checkpoint;
pub mod conforming;
pub mod mantissa;
pub mod merge;
pub mod pairs;
pub mod runner;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use fmadiv::verify::Kernel;
use fmadiv_verify::sweep::conforming::SeedBound;

use crate::report::Report;

#[derive(Subcommand)]
pub enum VerifyCommand {
    /// Every dividend mantissa in [FROM, TO) against all 2^23 divisor mantissas, in [1,2).
    Mantissa(MantissaArgs),
    /// Every exponent pair with edge mantissas, all specials, and the exponent ranges
    /// where the scaling under- or overflows: what the mantissa sweep does not cover.
    Edges(CommonArgs),
    /// Random bit patterns from a seeded generator.
    Random {
        /// Number of pairs.
        #[arg(long, default_value_t = 1_000_000_000)]
        count: u64,
        /// Generator seed (printed and reported).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        common: CommonArgs,
    },
    /// All 2^32 dividend bit patterns against one divisor.
    Dividends {
        /// The divisor: a decimal float (0.1, -inf, nan) or bits in hex (0x3dcccccd).
        #[arg(long, allow_hyphen_values = true)]
        divisor: String,
        #[command(flatten)]
        common: CommonArgs,
    },
    /// All 2^32 inputs through the reciprocal kernel (`recip`'s own sequence) on every
    /// lane, against the hardware's 1 / b: exhaustive for `recip` on this CPU. With
    /// `--rcp any`: every divisor mantissa with every seed any conforming table may give.
    Reciprocals(ReciprocalArgs),
    /// Combine shard reports of `verify mantissa`: checks that they cover their range
    /// exactly once, and prints the combined verdict.
    Merge {
        /// Reports to combine.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Write the combined report here.
        #[arg(long)]
        report: Option<PathBuf>,
    },
}

/// Kernel variants on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum KernelArg {
    /// The kernel `div` runs.
    Shipped,
    /// One Newton step instead of Halley's: wrong on purpose.
    Newton,
    /// The published algorithm without the near-all-ones divisor fix.
    Published,
    /// The shipped arithmetic with the AVX-512F backend's near-all-ones rule (2^5 divisors,
    /// for `vrcp14ps` seeds within 2^-14): the sixteen-lane kernel, on eight lanes.
    Vrcp14,
    /// `vrcp14` with half those divisors kept: wrong on purpose (under `--rcp-bound 2^-14`).
    Vrcp14Narrowed,
}

impl KernelArg {
    pub fn kernel(self) -> Kernel {
        match self {
            KernelArg::Shipped => Kernel::Shipped,
            KernelArg::Newton => Kernel::Newton,
            KernelArg::Published => Kernel::Published,
            KernelArg::Vrcp14 => Kernel::Vrcp14,
            KernelArg::Vrcp14Narrowed => Kernel::Vrcp14Narrowed,
        }
    }
}

#[derive(Args, Clone)]
pub struct CommonArgs {
    /// Kernel variant to check.
    #[arg(long, value_enum, default_value = "shipped")]
    pub kernel: KernelArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write a JSON report here (atomically).
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// Rounding directions on the command line.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoundingArg {
    /// To nearest, ties to even: the division kernel itself.
    Nearest,
    /// Toward -infinity.
    Down,
    /// Toward +infinity.
    Up,
    /// Toward zero.
    TowardZero,
}

impl RoundingArg {
    pub fn rounding(self) -> fmadiv::Rounding {
        match self {
            RoundingArg::Nearest => fmadiv::Rounding::Nearest,
            RoundingArg::Down => fmadiv::Rounding::Down,
            RoundingArg::Up => fmadiv::Rounding::Up,
            RoundingArg::TowardZero => fmadiv::Rounding::TowardZero,
        }
    }
}

/// Which `rcpps` tables a sweep covers.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RcpArg {
    /// This CPU's table (the report names its fingerprint).
    ThisCpu,
    /// Every table within the documented bound (`--rcp-bound`), whatever this CPU's is.
    Any,
}

/// The options of the every-table sweeps.
#[derive(Args, Clone)]
pub struct RcpArgs {
    /// Whose `rcpps` seeds: this CPU's, or every seed the documentation allows.
    #[arg(long, value_enum, default_value = "this-cpu")]
    pub rcp: RcpArg,
    /// With `--rcp any`: the documented bound on |1 - b*rcp(b)|, as M*2^E or 2^E
    /// (1.5*2^-12 for rcpps; 2^-14 for AVX-512's vrcp14ps).
    #[arg(long, default_value = "1.5*2^-12", value_parser = parse_bound)]
    pub rcp_bound: SeedBound,
}

fn parse_bound(s: &str) -> Result<SeedBound, String> {
    SeedBound::parse(s)
}

/// Checkpoints, shards and the range of a resumable sweep.
#[derive(Args)]
pub struct ResumeArgs {
    /// Resume from and save progress to this file (atomically, at least every 30 s).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Run only part I of N (0 <= I < N) of [FROM, TO): for job arrays and clusters.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(u32, u32)>,
    /// Seconds between checkpoints (default 30; 0 saves after every work unit).
    #[arg(long, default_value_t = 30, hide = true)]
    pub checkpoint_every: u64,
}

/// `[from, to)` of mantissas, checked, then this shard's part of it.
fn shard_of(from: u32, to: u32, shard: Option<(u32, u32)>) -> Result<(u32, u32), String> {
    let max = fmadiv_verify::sweep::MANTISSAS;
    if to > max || from > max {
        return Err(format!(
            "mantissas run from 0 to 2^23 = {max}; got --from {from} --to {to}"
        ));
    }
    if from > to {
        return Err(format!("--from {from} is above --to {to}"));
    }
    Ok(match shard {
        Some((i, n)) => mantissa::shard_range(from, to, i, n),
        None => (from, to),
    })
}

#[derive(Args)]
pub struct ReciprocalArgs {
    /// With `--rcp any`: first divisor mantissa (0 to 2^23).
    #[arg(long, default_value_t = 0, value_parser = parse_u32)]
    pub from: u32,
    /// With `--rcp any`: one past the last divisor mantissa (0 to 2^23).
    #[arg(long, default_value_t = fmadiv_verify::sweep::MANTISSAS, value_parser = parse_u32)]
    pub to: u32,
    #[command(flatten)]
    pub resume: ResumeArgs,
    #[command(flatten)]
    pub rcp: RcpArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

impl ReciprocalArgs {
    /// The divisor range of this shard (every-table sweep).
    pub fn divisor_range(&self) -> Result<(u32, u32), String> {
        shard_of(self.from, self.to, self.resume.shard)
    }

    /// Whether any option of the every-table sweep was given (they need `--rcp any`).
    pub fn uses_range_options(&self) -> bool {
        self.from != 0
            || self.to != fmadiv_verify::sweep::MANTISSAS
            || self.resume.shard.is_some()
            || self.resume.checkpoint.is_some()
    }
}

#[derive(Args)]
pub struct MantissaArgs {
    /// First dividend mantissa (0 to 2^23).
    #[arg(long, default_value_t = 0, value_parser = parse_u32)]
    pub from: u32,
    /// One past the last dividend mantissa (0 to 2^23).
    #[arg(long, default_value_t = fmadiv_verify::sweep::MANTISSAS, value_parser = parse_u32)]
    pub to: u32,
    #[command(flatten)]
    pub resume: ResumeArgs,
    /// Prove the divisor rows Markstein's theorem covers (|1 - b*y| < 2^-25, checked
    /// exactly) instead of comparing them; compare the other rows pair by pair.
    #[arg(long)]
    pub prune: bool,
    /// Check the directed-rounding step instead: the quotient rounded down, up or toward
    /// zero from the kernel's, against `vdivps` under that MXCSR rounding mode (signs by the
    /// mantissas' parity; brute force, this CPU's table).
    #[arg(long, value_enum, default_value = "nearest")]
    pub rounding: RoundingArg,
    #[command(flatten)]
    pub rcp: RcpArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

impl MantissaArgs {
    /// The dividend range of this shard.
    pub fn dividend_range(&self) -> Result<(u32, u32), String> {
        shard_of(self.from, self.to, self.resume.shard)
    }
}

impl ResumeArgs {
    /// The runner's options.
    pub fn options<'a>(&'a self, common: &CommonArgs) -> runner::Options<'a> {
        runner::Options {
            checkpoint: self.checkpoint.as_deref(),
            threads: common.threads,
            checkpoint_every: std::time::Duration::from_secs(self.checkpoint_every),
        }
    }
}

fn parse_u32(s: &str) -> Result<u32, String> {
    let parsed = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    parsed.map_err(|e| format!("{s:?} is not a number: {e}"))
}

fn parse_shard(s: &str) -> Result<(u32, u32), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("shard {s:?} is not I/N"))?;
    let (i, n) = (parse_u32(i)?, parse_u32(n)?);
    if n == 0 {
        return Err("shard count N must be at least 1".into());
    }
    if i >= n {
        return Err(format!(
            "shard index {i} must be below the count {n} (shards are 0..N-1)"
        ));
    }
    Ok((i, n))
}

/// The thread pool for a run.
pub fn pool(threads: Option<usize>) -> Result<(rayon::ThreadPool, usize), String> {
    let n = threads.unwrap_or_else(num_cpus::get);
    if n == 0 {
        return Err("--threads must be at least 1".into());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| e.to_string())?;
    Ok((pool, n))
}

/// Ends a run: write the report if asked, print it, exit 0 (pass) or 1 (mismatches).
pub fn finish(report: &Report, path: Option<&PathBuf>) -> Result<ExitCode, String> {
    if let Some(path) = path {
        report.write(path)?;
    }
    report.print_summary();
    Ok(if report.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_MISMATCH)
    })
}

pub fn run(cmd: VerifyCommand) -> Result<ExitCode, String> {
    match cmd {
        VerifyCommand::Mantissa(args) => mantissa::run(args),
        VerifyCommand::Edges(common) => pairs::edges(common),
        VerifyCommand::Random {
            count,
            seed,
            common,
        } => pairs::random(count, seed, common),
        VerifyCommand::Dividends { divisor, common } => pairs::dividends(&divisor, common),
        VerifyCommand::Reciprocals(args) => match args.rcp.rcp {
            RcpArg::Any => conforming::reciprocals(&args),
            RcpArg::ThisCpu if args.uses_range_options() => Err(
                "--from, --to, --shard and --checkpoint need --rcp any (the all-2^32 check of \
                 this CPU's table takes seconds)"
                    .into(),
            ),
            RcpArg::ThisCpu => pairs::reciprocals(args.common),
        },
        VerifyCommand::Merge { reports, report } => merge::run(&reports, report.as_ref()),
    }
}
