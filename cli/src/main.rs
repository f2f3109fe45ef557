//! `fmadiv`: self-check, exhaustive verification and benchmarks of the fmadiv kernel.
//!
//! Each module imports only from layers below its own (`scripts/layers.py` checks it):
//!
//! ```text
//! layers (top first):
//! 5 commands    selfcheck floors plan_measure verify
//! 4 tables      bench rounding_bench
//! 3 resumable   verify::runner
//! 2 records     report progress verify::checkpoint
//! 1 ground      files hex_pair
//! ```

mod bench;
mod files;
mod floors;
mod hex_pair;
mod plan_measure;
mod progress;
mod report;
// MXCSR regions and `vdivps` passes written in x86 assembly.
#[cfg(target_arch = "x86_64")]
mod rounding_bench;
mod selfcheck;
mod verify;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Exact f32 division with AVX2+FMA and AVX-512F: check it, verify it, measure it.
///
/// Without a command: a quick self-check on this CPU and a throughput summary against
/// the hardware divider. Exit status: 0 no mismatch, 1 mismatches, 2 bad usage or I/O.
#[derive(Parser)]
#[command(version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Compare the kernel with the hardware divider, exhaustively or on chosen inputs.
    #[command(subcommand)]
    Verify(verify::VerifyCommand),
    /// CPU vendor and model, and a fingerprint of its rcpps table (verifications hold
    /// for one table).
    Fingerprint {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The schedules `div` and `recip` run on this CPU, and why: a row of the committed
    /// table, looked up from the CPU's identity (`FMADIV_SCHEDULE` forces a schedule;
    /// `FMADIV_PLAN_FILE=PATH` reads a plan measured with --measure).
    Plan {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Measure every choice on this machine (schedules against the divider, the
        /// Divisor's lengths) and write them to a plan file (--file, or FMADIV_PLAN_FILE).
        #[arg(long, conflicts_with = "json")]
        measure: bool,
        /// With --measure: the plan file to write.
        #[arg(long, requires = "measure", value_name = "PATH")]
        file: Option<std::path::PathBuf>,
    },
    /// Throughput of fmadiv and its peers, as a table (or JSON).
    Bench {
        /// Fewer sizes and rounds: well under 30 seconds.
        #[arg(long)]
        quick: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Every schedule the plan chooses from, against the divider loop, from operands in
        /// L1 to operands in memory, over rotating buffer layouts.
        #[arg(long, conflicts_with = "quick")]
        schedules: bool,
        /// Every entry point against the plain divider loop doing the same job (8 to 64K,
        /// four input kinds, and per-row division), over rotating buffer layouts.
        #[arg(long, conflicts_with = "schedules")]
        floors: bool,
        /// With --floors or --schedules: only the methods whose name contains this text
        /// (e.g. "div_in_place"), to measure a few cells again.
        #[arg(long, value_name = "TEXT")]
        only: Option<String>,
        /// Directed rounding: div_bounds and div_rounded against divider passes in an
        /// MXCSR-set region and per-vector ldmxcsr, and the rounding-mode guard's cost.
        #[arg(long, conflicts_with_all = ["floors", "schedules", "quick", "only"])]
        rounding: bool,
        /// `Divisor::new(b).divide_slice` against the broadcast divider loop for six
        /// divisors (3.7, 3, 1.1, 0.7071, 12345.678, 1e-3) at 1K, 2K, 4K and 16K, over rotating
        /// buffer layouts.
        #[arg(long, conflicts_with_all = ["floors", "schedules", "quick", "only", "rounding"])]
        divisors: bool,
        /// With --floors, --schedules, --divisors or --rounding: every array this many bytes
        /// past a cache line's start, not on one (0 to 60, a multiple of 4; 16 is where the
        /// system allocator puts a `Vec<f32>`). The per-row matrices of --floors stay.
        #[arg(long, value_name = "BYTES")]
        past_line: Option<usize>,
    },
}

/// Exit statuses.
pub const EXIT_MISMATCH: u8 = 1;
const EXIT_USAGE: u8 = 2;

/// Said in `--help` of a build without optimisation, where timings mean little.
const UNOPTIMISED_NOTE: &str = "Note: this fmadiv was built without optimisation (opt-level 0): \
its timings are not the crate's. Build with --release, or add `[profile.dev.package.fmadiv] \
opt-level = 3` to a dev profile (README, \"Debug builds\").";

fn main() -> ExitCode {
    let mut command = Cli::command();
    if fmadiv::build_info::PROFILE.contains("opt-level 0") {
        command = command.after_help(UNOPTIMISED_NOTE);
    }
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // A bad backend override is a usage error, said before anything runs.
    if let Err(message) = fmadiv::backend_override() {
        eprintln!("{message}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        None => default_run(),
        Some(Command::Bench {
            quick,
            json,
            schedules,
            floors,
            only,
            rounding,
            divisors,
            past_line,
        }) => 'bench: {
            let placed = floors || schedules || divisors || rounding;
            if let Some(bytes) = past_line {
                if !placed {
                    break 'bench Err("--past-line places the arrays of --floors, --schedules, \
                                      --divisors or --rounding"
                        .into());
                }
                if let Err(message) = fmadiv_verify::samples::check_past_line(bytes) {
                    break 'bench Err(format!("--past-line: {message}"));
                }
            }
            let past_line_arg = past_line.map_or(String::new(), |b| format!(" --past-line {b}"));
            let past_line = past_line.unwrap_or(0);
            if rounding {
                run_rounding_bench(json, past_line, &past_line_arg)
            } else if floors || schedules || divisors {
                let plan = if divisors {
                    floors::Plan::divisors()
                } else if schedules {
                    floors::Plan::schedules()
                } else if quick {
                    floors::Plan::quick()
                } else {
                    floors::Plan::full()
                };
                let command = if divisors {
                    "fmadiv bench --divisors --json"
                } else if schedules {
                    "fmadiv bench --schedules --json"
                } else {
                    "fmadiv bench --floors --json"
                };
                let plan = floors::Plan { past_line, ..plan };
                run_floors(
                    plan,
                    &format!("{command}{past_line_arg}"),
                    json,
                    only.as_deref(),
                )
            } else if only.is_some() {
                Err("--only selects among the methods of --floors or --schedules".into())
            } else {
                run_bench(quick, json)
            }
        }
        Some(Command::Verify(cmd)) => verify::run(cmd),
        Some(Command::Fingerprint { json }) => fingerprint(json),
        Some(Command::Plan {
            json,
            measure,
            file,
        }) => {
            if measure {
                measure_plan(file)
            } else {
                show_plan(json)
            }
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("fmadiv: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn print_header() {
    println!(
        "fmadiv {} on {} (cpuid family/model/stepping {})",
        fmadiv::build_info::VERSION,
        cpu_model(),
        fmadiv_verify::fingerprint::cpu().signature
    );
    println!("  backend: {}", fmadiv::backend());
    for (entry, backend) in other_backends() {
        println!("  {entry}: {backend}");
    }
    println!("  plan:    {}", fmadiv::plan());
    println!(
        "  build:   {} [{}], {}, {}",
        fmadiv::build_info::TARGET,
        fmadiv::build_info::FEATURES,
        fmadiv::build_info::PROFILE,
        fmadiv::build_info::DISPATCH
    );
}

/// The CPU's model name from /proc/cpuinfo, where there is one.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn default_run() -> Result<ExitCode, String> {
    print_header();
    println!("\nself-check (bits compared with the hardware's a / b):");
    let ok = selfcheck::report();
    println!("\nthroughput, 4K and 64K elements (median of alternating rounds):");
    let plan = bench::Plan {
        sizes: vec![4096, 1 << 16],
        rounds: 7,
        ..bench::Plan::quick()
    };
    let rows = bench::run(&plan, |_, _| {})?;
    bench::print_table(&rows);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_MISMATCH)
    })
}

/// The entry points whose backend is not `div`'s ([`fmadiv::backend`]), with theirs in
/// words: its name and width, and where `recip` gives way to eight lanes on short slices.
fn other_backends() -> Vec<(&'static str, String)> {
    fmadiv::EntryPoint::ALL
        .into_iter()
        .map(|e| (e, fmadiv::backend_of(e)))
        .filter(|&(_, b)| b != fmadiv::backend())
        .map(|(e, b)| {
            let below = fmadiv::plan().recip_eight_lanes_below();
            let width = match (e, below) {
                (fmadiv::EntryPoint::Recip, 1..) => format!(
                    "{} lanes from {below} elements, {} below",
                    b.lanes(),
                    fmadiv::plan().recip_backend(0).name()
                ),
                _ => format!("{} lanes", b.lanes()),
            };
            (e.name(), format!("{} ({width})", b.name()))
        })
        .collect()
}

/// Each entry point's backend by name, as JSON.
fn backends_json() -> serde_json::Value {
    fmadiv::EntryPoint::ALL
        .into_iter()
        .map(|e| (e.name().to_string(), fmadiv::backend_of(e).name().into()))
        .collect::<serde_json::Map<String, serde_json::Value>>()
        .into()
}

/// What every benchmark JSON document says about where it was measured.
fn machine_json() -> serde_json::Value {
    serde_json::json!({
        "cpu": cpu_model(),
        "cpu_signature": fmadiv_verify::fingerprint::cpu().signature,
        "backend": fmadiv::backend().to_string(),
        "backends": backends_json(),
        "plan": fmadiv::plan().to_string(),
        "build": {
            "version": fmadiv::build_info::VERSION,
            "target": fmadiv::build_info::TARGET,
            "features": fmadiv::build_info::FEATURES,
            "profile": fmadiv::build_info::PROFILE,
            "rustc": fmadiv::build_info::RUSTC,
        },
    })
}

fn run_floors(
    mut plan: floors::Plan,
    command: &str,
    json: bool,
    only: Option<&str>,
) -> Result<ExitCode, String> {
    if let Some(text) = only {
        plan.keep_methods(text)?;
    }
    if !json {
        print_header();
    }
    let rows = floors::run(&plan, |size, inputs| {
        if !json {
            eprintln!("  measured {} {}", bench::size_name(size), inputs.name());
        }
    })?;
    if json {
        let mut doc = machine_json();
        doc["command"] = match only {
            Some(text) => format!("{command} --only {text:?}"),
            None => command.to_string(),
        }
        .into();
        doc["rows"] = serde_json::to_value(&rows).map_err(|e| e.to_string())?;
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        floors::print_table(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(target_arch = "x86_64"))]
fn run_rounding_bench(_json: bool, _past_line: usize, _arg: &str) -> Result<ExitCode, String> {
    Err("bench --rounding times x86's MXCSR rounding modes and `vdivps`: x86-64 only".into())
}

#[cfg(target_arch = "x86_64")]
/// `bench --rounding`, every array `past_line` bytes past a cache line's start (`arg`: the
/// option as given, for the JSON's command).
fn run_rounding_bench(json: bool, past_line: usize, arg: &str) -> Result<ExitCode, String> {
    if !json {
        print_header();
    }
    let rows = rounding_bench::run(past_line)?;
    if json {
        let mut doc = machine_json();
        doc["command"] = format!("fmadiv bench --rounding --json{arg}").into();
        doc["rows"] = serde_json::to_value(&rows).map_err(|e| e.to_string())?;
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        rounding_bench::print_table(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

fn run_bench(quick: bool, json: bool) -> Result<ExitCode, String> {
    let plan = if quick {
        bench::Plan::quick()
    } else {
        bench::Plan::full()
    };
    if !json {
        print_header();
    }
    let rows = bench::run(&plan, |size, inputs| {
        if !json {
            eprintln!("  measured {} {}", bench::size_name(size), inputs.name());
        }
    })?;
    if json {
        let mut doc = machine_json();
        doc["divisor_new_ns"] = bench::divisor_new_ns().into();
        doc["rows"] = serde_json::to_value(&rows).map_err(|e| e.to_string())?;
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        bench::print_table(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

/// `fmadiv plan --measure`: the file named by --file, else by `FMADIV_PLAN_FILE`.
fn measure_plan(file: Option<std::path::PathBuf>) -> Result<ExitCode, String> {
    let env = std::env::var_os(fmadiv::plan::PLAN_FILE_ENV).filter(|p| !p.is_empty());
    let path = file.or(env.map(Into::into)).ok_or_else(|| {
        format!(
            "--measure writes a plan file: name it with --file PATH or {}",
            fmadiv::plan::PLAN_FILE_ENV
        )
    })?;
    plan_measure::run(&path)?;
    Ok(ExitCode::SUCCESS)
}

/// The plan as JSON: every choice, where it comes from, and what it rests on.
fn plan_json(plan: &fmadiv::Plan) -> serde_json::Value {
    let c = plan.choices();
    let length = |n: usize| -> serde_json::Value {
        if n == usize::MAX {
            serde_json::Value::Null
        } else {
            n.into()
        }
    };
    let origin = match plan.origin() {
        fmadiv::plan::Origin::Table { row, .. } => format!("table row {row}"),
        fmadiv::plan::Origin::NotInTable => "not in the table".into(),
        fmadiv::plan::Origin::File(path) => format!("plan file {}", path.display()),
        fmadiv::plan::Origin::Forced => "forced".into(),
        fmadiv::plan::Origin::NoKernel => "no kernel".into(),
        fmadiv::plan::Origin::SeedsOutOfBound(_) => "rcpps out of bound".into(),
        _ => "other".into(),
    };
    serde_json::json!({
        "cpu": plan.cpu().brand(),
        "cpu_signature": plan.cpu().signature(),
        "origin": origin,
        "small_below": plan.small_below(),
        "div": { "small": c.div[0].name(), "large": c.div[1].name() },
        "recip": { "small": c.recip[0].name(), "large": c.recip[1].name() },
        "recip_short": match plan.recip_eight_lanes_below() {
            0 => serde_json::Value::Null,
            below => serde_json::json!({
                "below": below,
                "backend": plan.recip_backend(0).name(),
                "small": plan.recip(0).name(),
                // The large class's, where the short slices reach into it.
                "large": (below > plan.small_below()).then(|| plan.recip(below - 1).name()),
            }),
        },
        "in_register": if plan.in_register_kernel() { "kernel" } else { "divider" },
        "divisor": {
            "sequence_from": length(c.divisor.sequence_from),
            "first_proof_from": length(c.divisor.first_proof_from),
            "in_place_from": length(c.divisor.in_place_from),
        },
        "made_in_us": plan.made_in_micros(),
        "backend": fmadiv::backend().name(),
        "backends": backends_json(),
        "avx512": avx512_status(),
        "ignored_setting": plan.ignored_setting(),
        "plan_file_unused": plan.plan_file_unused(),
        "why": plan.to_string(),
        "evidence": plan.evidence(),
    })
}

/// Whether the 512-bit backend runs here, and why (or why not).
fn avx512_status() -> String {
    let cpu = fmadiv::Cpu::this();
    if !cpu.has_avx512f() {
        return "this CPU has no AVX-512F: the 512-bit code runs only through the software \
                model (tests)"
            .into();
    }
    let sixteen: Vec<&str> = fmadiv::EntryPoint::ALL
        .into_iter()
        .filter(|&e| fmadiv::default_backend_of(&cpu, e) == fmadiv::Backend::Avx512)
        .map(fmadiv::EntryPoint::name)
        .collect();
    let opt_in = format!("opt-in ({}=avx512)", fmadiv::BACKEND_ENV);
    match fmadiv::avx512_family(&cpu) {
        Some(f) => match f.native_run {
            Some(run) if sixteen.len() == fmadiv::EntryPoint::ALL.len() => format!(
                "the default here for every entry point (the full test suite ran natively on \
                 this CPU family: {run}): {}",
                f.evidence
            ),
            Some(run) if !sixteen.is_empty() => format!(
                "the default here for {} (the full test suite ran natively on this CPU family: \
                 {run}); the rest keeps eight lanes by measurement, {opt_in} for all: {}",
                sixteen.join(", "),
                f.evidence
            ),
            Some(run) => format!(
                "{opt_in} here: the full test suite ran natively on this CPU family ({run}), \
                 and every entry point measured best at eight lanes: {}",
                f.evidence
            ),
            None => format!(
                "{opt_in} here: no native run of the full test suite on this CPU family is \
                 committed yet (fmadiv::AVX512_FAMILIES; {MAKE_THE_RUN}); once one is, it \
                 serves {}: {}",
                f.sixteen_lanes_for
                    .iter()
                    .map(|e| e.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                f.evidence
            ),
        },
        None => format!(
            "{opt_in} here: this CPU family has no record in fmadiv::AVX512_FAMILIES (no \
             native run of the full test suite committed; {MAKE_THE_RUN}); the 256-bit \
             choices stay ({}=avx512 fmadiv plan: what sixteen lanes would run here)",
            fmadiv::BACKEND_ENV
        ),
    }
}

/// How a CPU family's native run is made, for the words of [`avx512_status`].
const MAKE_THE_RUN: &str = "scripts/native-avx512.sh on this CPU makes it, with the \
    measurements that choose the entry points";

fn show_plan(json: bool) -> Result<ExitCode, String> {
    let plan = fmadiv::plan();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&plan_json(plan)).map_err(|e| e.to_string())?
        );
    } else {
        println!("backend: {}", fmadiv::backend());
        for (entry, b) in other_backends() {
            println!("{entry}: {b}");
        }
        println!("avx512: {}", avx512_status());
        println!("{plan}");
        println!("evidence: {}", plan.evidence());
        println!(
            "made in {} us (the rcpps check included)",
            plan.made_in_micros()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn fingerprint(json: bool) -> Result<ExitCode, String> {
    let cpu = fmadiv_verify::fingerprint::cpu();
    let f = fmadiv_verify::fingerprint::rcp_fingerprint()
        .ok_or("this CPU has no AVX: no rcpps table")?;
    let samples: Vec<String> = f
        .samples
        .iter()
        .map(|(x, r)| format!("rcp({:#010x}) = {:#010x}", x, r))
        .collect();
    let digests: Vec<(fmadiv::verify::Kernel, serde_json::Value)> = fmadiv::verify::Kernel::ALL
        .into_iter()
        .map(|k| (k, report::digest_of(k).into()))
        .collect();
    // The shipped kernel's (eight lanes) and the sixteen-lane rule's (`--kernel vrcp14`).
    let arithmetic_of = |kernel| {
        [false, true].map(|recip| {
            fmadiv_verify::digest::arithmetic_digest(kernel, recip).unwrap_or_else(|| "none".into())
        })
    };
    let arithmetic = arithmetic_of(fmadiv::verify::Kernel::Shipped);
    let sixteen = arithmetic_of(fmadiv::verify::Kernel::Vrcp14);
    let bound = fmadiv_verify::seeds::SeedBound::RCPPS;
    let window = match fmadiv_verify::seeds::check_window(bound) {
        Some(Ok(())) => "yes".to_string(),
        Some(Err(e)) => format!("NO: {e}"),
        None => "not checked (needs AVX2)".to_string(),
    };
    let scaling = match fmadiv_verify::sweep::check_rcp_scaling() {
        Ok(()) => "yes".to_string(),
        Err(e) => format!("no: {e}"),
    };
    if json {
        let doc = serde_json::json!({
            "cpu_vendor": cpu.vendor,
            "cpu_model": cpu.model,
            "cpu_signature": cpu.signature,
            "rcp_fingerprint": f.hash,
            "kernel_digests": digests.iter().map(|(k, d)| (k.name().to_string(), d.clone())).collect::<serde_json::Map<_, _>>(),
            "samples": samples,
            "input_fraction_bits": f.input_bits,
            "output_fraction_bits": f.output_bits,
            "max_error_units_of_2^-12": f.max_error,
            "seed_bound": bound.to_string(),
            "every_window_input_within_bound": window,
            "scales_exactly_across_window": scaling,
            "arithmetic_digests": { "division": arithmetic[0], "reciprocal": arithmetic[1] },
            "sixteen_lane_arithmetic_digests": { "division": sixteen[0], "reciprocal": sixteen[1] },
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "cpu:             {} / {} (family/model/stepping {})",
            cpu.vendor, cpu.model, cpu.signature
        );
        println!("rcp fingerprint: {}", f.hash);
        for (k, d) in &digests {
            println!("kernel digest:   {} ({k})", d.as_str().unwrap_or("none"));
        }
        println!("  {}", samples.join(", "));
        println!(
            "  result depends on the top {} fraction bits, carries {} fraction bits, max |1 - b*rcp(b)| = {:.4} * 2^-12",
            f.input_bits, f.output_bits, f.max_error
        );
        println!(
            "every input of the window (+-[2^-63, 2^63)) within the documented |1 - b*rcp(b)| <= {bound}: {window}"
        );
        println!(
            "rcp(+-m*2^e) = +-rcp(m)*2^-e across the window: {scaling} (a fact of this table; no proof needs it for --rcp any)"
        );
        println!(
            "arithmetic digests (no table enters them: the same on every CPU): division {}, reciprocal {}",
            arithmetic[0], arithmetic[1]
        );
        println!(
            "  with the sixteen-lane near-all-ones rule (vrcp14ps seeds, --kernel vrcp14): division {}, reciprocal {}",
            sixteen[0], sixteen[1]
        );
    }
    Ok(ExitCode::SUCCESS)
}
