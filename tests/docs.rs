//! The figures in README.md and BENCHMARKS.md against the JSON they are generated from:
//! `scripts/bench_report.py --check` regenerates every marked table and compares, and
//! refuses a measured ratio written by hand in the prose (of TESTING.md too).

use std::process::Command;

#[test]
fn readme_and_benchmarks_agree_with_their_json() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = match Command::new("python3")
        .arg(format!("{root}/scripts/bench_report.py"))
        .arg("--check")
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            eprintln!("SKIPPED: python3 is not available ({e}); the figures were not checked");
            return;
        }
    };
    assert!(
        output.status.success(),
        "the documents disagree with docs/bench/ or docs/verification/:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
