//! `fmadiv`: self-check, exhaustive verification and benchmarks of the fmadiv kernel.

mod bench;
mod selfcheck;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exact f32 division with AVX2+FMA: check it, verify it, measure it.
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
    /// Throughput of fmadiv and its peers, as a table (or JSON).
    Bench {
        /// Fewer sizes and rounds: well under 30 seconds.
        #[arg(long)]
        quick: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Exit statuses.
const EXIT_MISMATCH: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => default_run(),
        Some(Command::Bench { quick, json }) => run_bench(quick, json),
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
    println!("fmadiv {} on {}", fmadiv::build_info::VERSION, cpu_model());
    println!("  backend: {}", fmadiv::backend());
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
        let doc = serde_json::json!({
            "cpu": cpu_model(),
            "backend": fmadiv::backend().to_string(),
            "build": {
                "version": fmadiv::build_info::VERSION,
                "target": fmadiv::build_info::TARGET,
                "features": fmadiv::build_info::FEATURES,
                "profile": fmadiv::build_info::PROFILE,
                "rustc": fmadiv::build_info::RUSTC,
            },
            "rows": rows,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        bench::print_table(&rows);
    }
    Ok(ExitCode::SUCCESS)
}
