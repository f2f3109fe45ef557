//! The per-CPU plan: stable across fresh processes, forced by the environment, and the
//! same bits under every schedule (the exactness of each schedule is in `exactness` and
//! `slices`). Alone in its test binary, so no other test loads the CPU while the plan
//! calibrates.
//!
//! The fresh processes are pinned to one CPU (with `taskset`, where it is installed): on
//! a shared machine two logical CPUs can differ in how the kernel compares with the divider
//! (their hyperthread neighbours load the divider or the FMA units differently; measured
//! on the 2-vCPU VMs this project runs on: up to 0.3x apart), so that a choice that is
//! right on one is wrong on the other. What the plan controls, and this test checks, is
//! that fresh processes in the same conditions choose the same.

use std::process::{Command, Output};

fn fmadiv(args: &[&str], env: Option<(&str, &str)>) -> Output {
    fmadiv_on(None, args, env)
}

/// The binary, pinned to logical CPU `cpu` if given (and `taskset` is installed).
fn fmadiv_on(cpu: Option<usize>, args: &[&str], env: Option<(&str, &str)>) -> Output {
    let mut cmd = match cpu {
        Some(cpu) => {
            let mut c = Command::new("taskset");
            c.args(["-c", &cpu.to_string(), env!("CARGO_BIN_EXE_fmadiv")]);
            c
        }
        None => Command::new(env!("CARGO_BIN_EXE_fmadiv")),
    };
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

/// The schedules of a plan, every operation and size class, as one comparable value.
fn schedules(v: &serde_json::Value) -> Vec<String> {
    ["div", "recip"]
        .iter()
        .flat_map(|op| ["small", "large"].map(|class| v[op][class].as_str().unwrap().to_string()))
        .collect()
}

/// The logical CPU this process runs on now (field 39 of /proc/self/stat), if known.
fn this_cpu() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing paren.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(36)?.parse().ok()
}

#[test]
fn the_plan_is_the_same_in_nine_of_ten_fresh_processes() {
    let taskset = Command::new("taskset").arg("--version").output().is_ok();
    let cpu = if taskset { this_cpu() } else { None };
    match cpu {
        Some(cpu) => eprintln!("fresh processes pinned to logical CPU {cpu}"),
        None => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "note: taskset or /proc unavailable: the fresh processes are not pinned"
            );
        }
    }
    let plans: Vec<Vec<String>> = (0..10)
        .map(|_| {
            let v = plan_of(&fmadiv_on(cpu, &["plan", "--json"], None));
            eprintln!("{}", v["why"].as_str().unwrap());
            // The calibration's cost, printed: the goal is at most 2 ms.
            if let Some(us) = v["calibration_us"].as_u64() {
                assert!(us < 20_000, "calibration took {us} us");
            }
            schedules(&v)
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
        if v["div"]["large"] == "portable" && name != "portable" {
            // No AVX2+FMA here: the portable path is all there is.
            assert!(why.contains("no AVX2+FMA"), "{why}");
            continue;
        }
        assert!(schedules(&v).iter().all(|s| s == name), "{why}");
        assert!(why.contains("forced by FMADIV_SCHEDULE"), "{why}");
    }
    let v = plan_of(&fmadiv(
        &["plan", "--json"],
        Some(("FMADIV_FORCE_PORTABLE", "1")),
    ));
    assert!(schedules(&v).iter().all(|s| s == "portable"), "{v}");
    // A value that names no schedule is reported, on stderr and in the plan, never
    // silently dropped.
    for typo in ["mix-3", "Kernel", "fast"] {
        let out = fmadiv(&["plan", "--json"], Some(("FMADIV_SCHEDULE", typo)));
        let v = plan_of(&out);
        assert_eq!(v["ignored_setting"], typo, "{v}");
        assert!(v["why"].as_str().unwrap().contains("ignored"), "{v}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches("names no schedule").count(), 1, "{stderr}");
        let out = fmadiv(&["plan"], Some(("FMADIV_SCHEDULE", typo)));
        assert!(String::from_utf8_lossy(&out.stdout).contains("ignored"));
    }
}
