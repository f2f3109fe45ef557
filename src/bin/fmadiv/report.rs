//! JSON reports of verification runs, and what every report says about its machine.

use std::path::Path;

use fmadiv::sweep::{Counterexample, Tally};
use serde::{Deserialize, Serialize};

use crate::files;

/// The format tag of reports this version writes and reads.
pub const REPORT_FORMAT: &str = "fmadiv-report-2";

/// The digest of `kernel` on this CPU (see `fmadiv::digest`), or "none" where the kernel
/// cannot run (the portable path then gives the shipped kernel's bits).
pub fn digest_of(kernel: fmadiv::internal::Kernel) -> String {
    fmadiv::digest::kernel_digest(kernel).unwrap_or_else(|| "none".into())
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HexPair {
    pub a: String,
    pub b: String,
    pub got: String,
    pub want: String,
}

impl HexPair {
    pub fn from(c: &Counterexample) -> HexPair {
        HexPair {
            a: hex(c.a),
            b: hex(c.b),
            got: hex(c.got),
            want: hex(c.want),
        }
    }

    pub fn parse(&self) -> Result<Counterexample, String> {
        Ok(Counterexample {
            a: parse_hex(&self.a)?,
            b: parse_hex(&self.b)?,
            got: parse_hex(&self.got)?,
            want: parse_hex(&self.want)?,
        })
    }
}

pub fn hex(bits: u32) -> String {
    format!("{bits:#010x}")
}

pub fn parse_hex(s: &str) -> Result<u32, String> {
    s.strip_prefix("0x")
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("not a 0x-prefixed hex bit pattern: {s:?}"))
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Machine {
    pub cpu_vendor: String,
    pub cpu_model: String,
    pub cpu_signature: String,
    pub rcp_fingerprint: String,
    pub crate_version: String,
    pub build_target: String,
    pub build_features: String,
    pub build_profile: String,
    pub build_rustc: String,
    pub backend: String,
}

impl Machine {
    pub fn here() -> Result<Machine, String> {
        let cpu = fmadiv::fingerprint::cpu();
        let fingerprint = fmadiv::fingerprint::rcp_fingerprint()
            .ok_or("this CPU has no AVX: there is no rcpps table to verify")?;
        Ok(Machine {
            cpu_vendor: cpu.vendor,
            cpu_model: cpu.model,
            cpu_signature: cpu.signature,
            rcp_fingerprint: fingerprint.hash,
            crate_version: fmadiv::build_info::VERSION.into(),
            build_target: fmadiv::build_info::TARGET.into(),
            build_features: fmadiv::build_info::FEATURES.into(),
            build_profile: fmadiv::build_info::PROFILE.into(),
            build_rustc: fmadiv::build_info::RUSTC.into(),
            backend: fmadiv::backend().to_string(),
        })
    }
}

/// Dividend mantissas [from, to) against all 2^23 divisor mantissas.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MantissaRange {
    pub from: u32,
    pub to: u32,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Report {
    pub format: String,
    /// mantissa, edges, random, dividends or merge.
    pub mode: String,
    pub kernel: String,
    /// What the kernel computes, hashed (changes whenever its results can change).
    pub kernel_digest: String,
    /// For mantissa sweeps: "brute-force" or "pruned".
    pub sweep_mode: Option<String>,
    /// For mantissa sweeps: the dividend mantissas covered.
    pub range: Option<MantissaRange>,
    pub shard: Option<Shard>,
    /// Mode-specific parameters (seed and count, divisor, merged files).
    pub parameters: serde_json::Value,
    pub pairs_expected: u64,
    /// Pairs covered: compared plus proven.
    pub pairs_checked: u64,
    /// Pairs compared bit for bit with the hardware divider.
    pub pairs_compared: u64,
    /// Pairs proven correctly rounded without comparison (pruned sweeps).
    pub pairs_proven: u64,
    /// The theorem that proved `pairs_proven`, if any.
    pub proof: Option<String>,
    pub mismatches: u64,
    /// The first (smallest by dividend, divisor) mismatches, at most 100.
    pub counterexamples: Vec<HexPair>,
    /// pass, fail.
    pub verdict: String,
    pub machine: Machine,
    pub threads: usize,
    pub wall_seconds: f64,
    pub pairs_per_second: f64,
    pub pairs_per_second_per_thread: f64,
}

impl Report {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mode: &str,
        kernel: &str,
        kernel_digest: &str,
        sweep_mode: Option<fmadiv::sweep::Mode>,
        range: Option<MantissaRange>,
        shard: Option<Shard>,
        parameters: serde_json::Value,
        pairs_expected: u64,
        tally: &Tally,
        machine: Machine,
        threads: usize,
        wall_seconds: f64,
        pairs_timed: u64,
    ) -> Report {
        let rate = pairs_timed as f64 / wall_seconds.max(1e-9);
        Report {
            format: REPORT_FORMAT.into(),
            mode: mode.into(),
            kernel: kernel.into(),
            kernel_digest: kernel_digest.into(),
            sweep_mode: sweep_mode.map(|m| mode_name(m).into()),
            range,
            shard,
            parameters,
            pairs_expected,
            pairs_checked: tally.pairs + tally.proven,
            pairs_compared: tally.pairs,
            pairs_proven: tally.proven,
            proof: (tally.proven > 0).then(|| fmadiv::sweep::PRUNING_THEOREM.into()),
            mismatches: tally.mismatches,
            counterexamples: tally.counterexamples.iter().map(HexPair::from).collect(),
            verdict: if tally.mismatches == 0 {
                "pass"
            } else {
                "fail"
            }
            .into(),
            machine,
            threads,
            wall_seconds,
            pairs_per_second: rate,
            pairs_per_second_per_thread: rate / threads.max(1) as f64,
        }
    }

    /// Sets the rates from the pairs checked in this process and its run time (a resumed
    /// run's wall time includes earlier runs, its rate only this one).
    pub fn with_rate(mut self, pairs: u64, seconds: f64, threads: usize) -> Report {
        self.pairs_per_second = pairs as f64 / seconds.max(1e-9);
        self.pairs_per_second_per_thread = self.pairs_per_second / threads.max(1) as f64;
        self
    }

    pub fn tally(&self) -> Result<Tally, String> {
        Ok(Tally {
            pairs: self.pairs_compared,
            proven: self.pairs_proven,
            mismatches: self.mismatches,
            counterexamples: self
                .counterexamples
                .iter()
                .map(HexPair::parse)
                .collect::<Result<_, _>>()?,
        })
    }

    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        files::write_atomic(path, format!("{text}\n").as_bytes())
    }

    pub fn read(path: &Path) -> Result<Report, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let report: Report = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a fmadiv report: {e}", path.display()))?;
        if report.format != REPORT_FORMAT {
            return Err(format!(
                "{}: unknown report format {:?}",
                path.display(),
                report.format
            ));
        }
        Ok(report)
    }

    /// The human summary printed at the end of a run.
    pub fn print_summary(&self) {
        let scope = match self.range {
            Some(r) => format!(
                " dividend mantissas [{:#x}, {:#x}) x all 2^23 divisors",
                r.from, r.to
            ),
            None => String::new(),
        };
        println!("verify {} ({} kernel){scope}", self.mode, self.kernel);
        println!(
            "  {} pairs checked, {} mismatches: {}",
            self.pairs_checked,
            self.mismatches,
            self.verdict.to_uppercase()
        );
        if self.pairs_proven > 0 {
            println!(
                "  of which {} compared with the hardware and {} proven by Markstein's theorem",
                self.pairs_compared, self.pairs_proven
            );
        }
        for c in self.counterexamples.iter().take(10) {
            println!("    {} / {}: got {}, want {}", c.a, c.b, c.got, c.want);
        }
        if self.counterexamples.len() > 10 {
            println!(
                "    ... ({} counterexamples kept in the report)",
                self.counterexamples.len()
            );
        }
        println!(
            "  {:.1} s, {:.3e} pairs/s ({:.3e} per thread, {} threads)",
            self.wall_seconds,
            self.pairs_per_second,
            self.pairs_per_second_per_thread,
            self.threads
        );
        println!(
            "  {} / {} ({}), rcp table {}, kernel digest {}",
            self.machine.cpu_vendor,
            self.machine.cpu_model,
            self.machine.cpu_signature,
            self.machine.rcp_fingerprint,
            self.kernel_digest
        );
    }
}

/// How reports and checkpoints name a sweep mode.
pub fn mode_name(mode: fmadiv::sweep::Mode) -> &'static str {
    match mode {
        fmadiv::sweep::Mode::BruteForce => "brute-force",
        fmadiv::sweep::Mode::Pruned => "pruned",
    }
}
