//! The per-CPU plan: stable across fresh processes, forced by the environment, and the
//! same bits under every schedule (the exactness of each schedule is in `exactness` and
//! `slices`). Alone in its test binary, so no other test loads the CPU while the plan
//! calibrates.
#![cfg(feature = "cli")]

use std::process::{Command, Output};

fn fmadiv(args: &[&str], env: Option<(&str, &str)>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fmadiv"));
    cmd.args(args);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    cmd.output().expect("the fmadiv binary runs")
}

fn plan_of(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_plan_is_the_same_in_nine_of_ten_fresh_processes() {
    let plans: Vec<(String, String)> = (0..10)
        .map(|_| {
            let v = plan_of(&fmadiv(&["plan", "--json"], None));
            eprintln!("{}", v["why"].as_str().unwrap());
            (
                v["div"].as_str().unwrap().to_string(),
                v["recip"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let most = plans
        .iter()
        .map(|p| plans.iter().filter(|q| *q == p).count())
        .max()
        .unwrap();
    assert!(most >= 9, "plans of 10 processes: {plans:?}");
    // Afterwards, not beside it: a second test would load the CPU while these calibrate.
    the_environment_forces_a_schedule();
}

fn the_environment_forces_a_schedule() {
    for name in ["divider", "kernel", "mix-4", "portable"] {
        let v = plan_of(&fmadiv(
            &["plan", "--json"],
            Some(("FMADIV_SCHEDULE", name)),
        ));
        let why = v["why"].as_str().unwrap();
        if v["div"] == "portable" && name != "portable" {
            // No AVX2+FMA here: the portable path is all there is.
            assert!(why.contains("no AVX2+FMA"), "{why}");
            continue;
        }
        assert_eq!(v["div"], name, "{why}");
        assert_eq!(v["recip"], name, "{why}");
        assert!(why.contains("forced by FMADIV_SCHEDULE"), "{why}");
    }
    let v = plan_of(&fmadiv(
        &["plan", "--json"],
        Some(("FMADIV_FORCE_PORTABLE", "1")),
    ));
    assert_eq!(v["div"], "portable");
}
