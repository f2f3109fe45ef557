//! JSON reports of verification runs, and what every report says about its machine.

use std::path::Path;

use fmadiv_verify::sweep::Tally;
use serde::{Deserialize, Serialize};

use crate::files;
use crate::hex_pair::HexPair;

/// The format tag of reports this version writes and reads.
pub const REPORT_FORMAT: &str = "fmadiv-report-2";

/// The digest of `kernel` on this CPU (see `fmadiv::digest`), or "none" where the kernel
/// cannot run (the portable path then gives the shipped kernel's bits).
pub fn digest_of(kernel: fmadiv::verify::Kernel) -> String {
    fmadiv_verify::digest::kernel_digest(kernel).unwrap_or_else(|| "none".into())
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
        let cpu = fmadiv_verify::fingerprint::cpu();
        let fingerprint = fmadiv_verify::fingerprint::rcp_fingerprint()
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

/// What an every-table sweep assumed and found (absent: the report holds for the table
/// named by `machine.rcp_fingerprint` only).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct EveryTable {
    /// The one assumption on the CPU: every seed satisfies |1 - b*rcp(b)| <= this.
    pub seed_bound: String,
    /// What the report shows, in words.
    pub claim: String,
    /// The digest of the arithmetic after `rcpps` (and of the lane check), the same on
    /// every CPU: what merge requires to be equal (`kernel_digest` is this CPU's).
    pub arithmetic_digest: String,
    /// Division sweeps: FNV-1a of the compared rows (b, y, seed), the same in every shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_digest: Option<String>,
    pub stats: SeedStatsJson,
}

/// [`fmadiv_verify::sweep::conforming::SeedStats`] as reports write it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SeedStatsJson {
    pub divisors: u64,
    pub seeds: u64,
    pub seeds_per_divisor_min: u64,
    pub seeds_per_divisor_max: u64,
    /// Divisors with exactly 1, 2, 3, and 4 or more distinct refined reciprocals y.
    pub divisors_by_distinct_y: [u64; 4],
    pub rows: u64,
    pub rows_proven: u64,
    pub rows_compared: u64,
    pub divisors_by_divider: u64,
    /// Largest |1 - b*y| over kept rows, in units of 2^-24 (Markstein needs < 1).
    pub max_error_kept_units_2_24: f64,
    pub kept_rows_at_or_over_2_24: u64,
    pub max_error_by_divider_units_2_24: f64,
    pub divider_rows_at_or_over_2_24: u64,
}

impl SeedStatsJson {
    pub fn from(s: &fmadiv_verify::sweep::conforming::SeedStats) -> SeedStatsJson {
        SeedStatsJson {
            divisors: s.divisors,
            seeds: s.seeds,
            seeds_per_divisor_min: s.seeds_min,
            seeds_per_divisor_max: s.seeds_max,
            divisors_by_distinct_y: s.refinements,
            rows: s.rows,
            rows_proven: s.rows_proven,
            rows_compared: s.rows_compared,
            divisors_by_divider: s.divisors_by_divider,
            max_error_kept_units_2_24: s.max_error_kept,
            kept_rows_at_or_over_2_24: s.kept_rows_over_bound,
            max_error_by_divider_units_2_24: s.max_error_by_divider,
            divider_rows_at_or_over_2_24: s.divider_rows_over_bound,
        }
    }

    pub fn stats(&self) -> fmadiv_verify::sweep::conforming::SeedStats {
        fmadiv_verify::sweep::conforming::SeedStats {
            divisors: self.divisors,
            seeds: self.seeds,
            seeds_min: self.seeds_per_divisor_min,
            seeds_max: self.seeds_per_divisor_max,
            refinements: self.divisors_by_distinct_y,
            rows: self.rows,
            rows_proven: self.rows_proven,
            rows_compared: self.rows_compared,
            divisors_by_divider: self.divisors_by_divider,
            max_error_kept: self.max_error_kept_units_2_24,
            kept_rows_over_bound: self.kept_rows_at_or_over_2_24,
            max_error_by_divider: self.max_error_by_divider_units_2_24,
            divider_rows_over_bound: self.divider_rows_at_or_over_2_24,
        }
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
    /// Directed-rounding sweeps: down, up or toward-zero (absent: to nearest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounding: Option<String>,
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
    /// Pairs whose lanes the kernel gives to the divider whatever the seed (every-table
    /// sweeps: the near-all-ones divisors).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pairs_by_divider: u64,
    /// The theorem that proved `pairs_proven`, if any.
    pub proof: Option<String>,
    pub mismatches: u64,
    /// The first (smallest by dividend, divisor) mismatches, at most 100.
    pub counterexamples: Vec<HexPair>,
    /// pass, fail.
    pub verdict: String,
    /// Every-table sweeps: the seed bound assumed, the claim and the seed statistics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_table: Option<EveryTable>,
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
        sweep_mode: Option<fmadiv_verify::sweep::Mode>,
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
            rounding: None,
            shard,
            parameters,
            pairs_expected,
            pairs_checked: tally.covered(),
            pairs_compared: tally.pairs,
            pairs_proven: tally.proven,
            pairs_by_divider: tally.by_divider,
            proof: (tally.proven > 0).then(|| fmadiv_verify::sweep::PRUNING_THEOREM.into()),
            mismatches: tally.mismatches,
            counterexamples: tally.counterexamples.iter().map(HexPair::from).collect(),
            verdict: if tally.mismatches == 0 {
                "pass"
            } else {
                "fail"
            }
            .into(),
            every_table: None,
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

    /// Marks the report as a directed-rounding sweep's (nothing for nearest).
    pub fn with_rounding(mut self, rounding: fmadiv::Rounding) -> Report {
        self.rounding = (rounding != fmadiv::Rounding::Nearest).then(|| rounding.name().into());
        self
    }

    /// Marks the report as an every-table sweep's.
    pub fn with_every_table(mut self, every_table: EveryTable) -> Report {
        self.every_table = Some(every_table);
        self
    }

    pub fn tally(&self) -> Result<Tally, String> {
        Ok(Tally {
            pairs: self.pairs_compared,
            proven: self.pairs_proven,
            by_divider: self.pairs_by_divider,
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
        let of_reciprocals = self.mode == "reciprocals" || self.parameters["of"] == "reciprocals";
        let scope = match (self.range, of_reciprocals) {
            (Some(r), true) => {
                format!(" divisor mantissas [{:#x}, {:#x})", r.from, r.to)
            }
            (Some(r), false) => format!(
                " dividend mantissas [{:#x}, {:#x}) x all 2^23 divisors",
                r.from, r.to
            ),
            (None, _) => String::new(),
        };
        let rounding = match &self.rounding {
            Some(r) => format!(", rounded {r}"),
            None => String::new(),
        };
        println!(
            "verify {} ({} kernel{rounding}){scope}",
            self.mode, self.kernel
        );
        println!(
            "  {} pairs checked, {} mismatches: {}",
            self.pairs_checked,
            self.mismatches,
            self.verdict.to_uppercase()
        );
        if self.pairs_proven > 0 || self.pairs_by_divider > 0 {
            println!(
                "  of which {} compared with the hardware, {} proven by Markstein's theorem, \
                 {} the divider's whatever the seed",
                self.pairs_compared, self.pairs_proven, self.pairs_by_divider
            );
        }
        if let Some(t) = &self.every_table {
            let s = &t.stats;
            println!(
                "  every rcpps table with |1 - b*r| <= {}: {}",
                t.seed_bound, t.claim
            );
            println!(
                "  {} divisors, {} seeds ({} to {} per divisor)",
                s.divisors, s.seeds, s.seeds_per_divisor_min, s.seeds_per_divisor_max
            );
            if s.rows > 0 {
                println!(
                    "  distinct y per divisor: 1: {}, 2: {}, 3: {}, 4+: {}",
                    s.divisors_by_distinct_y[0],
                    s.divisors_by_distinct_y[1],
                    s.divisors_by_distinct_y[2],
                    s.divisors_by_distinct_y[3]
                );
            }
            if s.rows > 0 {
                println!(
                    "  rows (b, y) kept: {} ({} proven, {} compared); max |1 - b*y| = {:.4} * 2^-24 \
                     ({} rows at or over 2^-24); {} near-all-ones divisors to the divider \
                     (their rows: max {:.4} * 2^-24, {} at or over)",
                    s.rows,
                    s.rows_proven,
                    s.rows_compared,
                    s.max_error_kept_units_2_24,
                    s.kept_rows_at_or_over_2_24,
                    s.divisors_by_divider,
                    s.max_error_by_divider_units_2_24,
                    s.divider_rows_at_or_over_2_24
                );
            } else {
                println!("  {} divisors to the divider", s.divisors_by_divider);
            }
        }
        for c in self.counterexamples.iter().take(10) {
            let seed = c
                .seed
                .as_ref()
                .map(|r| format!(" (seed rcp(b) = {r})"))
                .unwrap_or_default();
            println!(
                "    {} / {}: got {}, want {}{seed}",
                c.a, c.b, c.got, c.want
            );
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
        if let Some(t) = &self.every_table {
            println!(
                "  arithmetic digest {} (the same on every CPU: the table does not enter it)",
                t.arithmetic_digest
            );
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How reports and checkpoints name a sweep mode.
pub fn mode_name(mode: fmadiv_verify::sweep::Mode) -> &'static str {
    match mode {
        fmadiv_verify::sweep::Mode::BruteForce => "brute-force",
        fmadiv_verify::sweep::Mode::Pruned => "pruned",
    }
}
