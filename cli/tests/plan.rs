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
//! that fresh processes in the same conditions choose the same wherever the best candidate
//! is clearly above or below the threshold, and that a choice other than the divider does
//! not lose to it when measured again. Where a candidate measures at the threshold (a near
//! tie) the side a process lands on is noise, and either choice costs little: the test
//! prints such slots rather than requiring them to agree.

use std::process::{Command, Output};

fn fmadiv(args: &[&str], env: Option<(&str, &str)>) -> Output {
    fmadiv_on(None, args, env)
}

/// The binary, pinned to logical CPU `cpu` if given (and `taskset` is installed).
fn fmadiv_on(cpu: Option<usize>, args: &[&str], env: Option<(&str, &str)>) -> Output {
    fmadiv_with(cpu, args, env.as_slice())
}

/// The binary, pinned to `cpu` if given, with the environment variables `env` set.
fn fmadiv_with(cpu: Option<usize>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = match cpu {
        Some(cpu) => {
            let mut c = Command::new("taskset");
            c.args(["-c", &cpu.to_string(), env!("CARGO_BIN_EXE_fmadiv")]);
            c
        }
        None => Command::new(env!("CARGO_BIN_EXE_fmadiv")),
    };
    cmd.args(args);
    cmd.envs(env.iter().copied());
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

/// The four slots of a plan: every operation and size class.
const SLOTS: [(&str, &str); 4] = [
    ("div", "small"),
    ("div", "large"),
    ("recip", "small"),
    ("recip", "large"),
];

/// The schedules of a plan, one per slot, as one comparable value.
fn schedules(v: &serde_json::Value) -> Vec<String> {
    SLOTS
        .iter()
        .map(|(op, class)| v[op][class].as_str().unwrap().to_string())
        .collect()
}

/// The half-width of the band around the threshold, as a fraction of it, inside which a
/// slot's best candidate counts as a near tie: on these VMs the same loop measures ±10–30%
/// apart from one minute to the next (neighbours load the core), so where a candidate
/// lands in this band in some fresh processes and not in others, which side of the
/// threshold a process chooses is the machine's state, not the plan's; and either choice
/// costs less than the band against the other.
const NEAR_TIE: f64 = 0.10;

/// The best candidate's ratio to the divider in one slot of one process: the confirmed
/// median where a candidate was confirmed, else the best screened one.
fn best_ratio(v: &serde_json::Value, op: &str, class: &str) -> f64 {
    let rows = v["measurements"].as_array().unwrap();
    // The class lengths (the short-slice rows time the small class's choice again).
    let timed = rows
        .iter()
        .filter(|m| m["phase"] != "short")
        .map(|m| m["len"].as_u64().unwrap());
    let len = match class {
        "small" => timed.min(),
        _ => timed.max(),
    };
    let slot = || {
        rows.iter()
            .filter(move |m| m["op"] == op && m["len"].as_u64() == len)
    };
    let ratio = |m: &serde_json::Value| m["vs_divider"].as_f64().unwrap();
    match slot().find(|m| m["phase"] == "confirmation") {
        Some(m) => ratio(m),
        None => slot()
            .filter(|m| m["schedule"] != "divider")
            .map(ratio)
            .fold(0.0, f64::max),
    }
}

/// The logical CPU this process runs on now (field 39 of /proc/self/stat), if known.
fn this_cpu() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing paren.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(36)?.parse().ok()
}

#[test]
fn fresh_processes_make_the_same_plan_save_near_ties_and_no_false_choice() {
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
    let docs: Vec<serde_json::Value> = (0..10)
        .map(|_| {
            let v = plan_of(&fmadiv_on(cpu, &["plan", "--json", "--check"], None));
            eprintln!("{}", v["why"].as_str().unwrap());
            // The calibration's cost, printed: the goal is at most 2 ms.
            if let Some(us) = v["calibration_us"].as_u64() {
                assert!(us < 20_000, "calibration took {us} us");
            }
            v
        })
        .collect();
    if docs[0]["measurements"].as_array().unwrap().is_empty() {
        eprintln!("note: no calibration on this CPU (no AVX2+FMA): no plan to compare");
        the_environment_forces_a_schedule();
        a_plan_file_gives_every_process_the_same_plan(cpu);
        return;
    }
    let threshold = docs[0]["threshold"].as_f64().unwrap();
    let plans: Vec<Vec<String>> = docs.iter().map(schedules).collect();
    for (k, &(op, class)) in SLOTS.iter().enumerate() {
        let choices: Vec<&str> = plans.iter().map(|p| p[k].as_str()).collect();
        let most = choices
            .iter()
            .map(|c| choices.iter().filter(|d| *d == c).count())
            .max()
            .unwrap();
        if most >= 9 {
            continue;
        }
        // The choices differ: only where the best candidate's ratios over the processes
        // reach into the band around the threshold, from both sides.
        let best: Vec<f64> = docs.iter().map(|v| best_ratio(v, op, class)).collect();
        let (low, high) = best
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
        let band = (threshold * (1.0 - NEAR_TIE), threshold * (1.0 + NEAR_TIE));
        let ratios: Vec<String> = best.iter().map(|r| format!("{r:.2}")).collect();
        assert!(
            low <= band.1 && high >= band.0,
            "{op} {class}: the choices differ, {choices:?}, yet the best candidate measured \
             [{}]x the divider, never within {NEAR_TIE} of the threshold {threshold:.2}",
            ratios.join(", ")
        );
        eprintln!(
            "note: {op} {class} is a near tie (best candidate [{}]x the divider, threshold \
             {threshold:.2}): the choices differ, {choices:?}",
            ratios.join(", ")
        );
    }
    // Every choice other than the divider, measured again in its process on fresh buffers
    // (`--check`): losing to the divider there is a false choice. The goal is a rate of at
    // most one in ten (one is allowed among fewer than twenty): the machine's state can
    // change between calibration and check.
    let checked: Vec<&serde_json::Value> = docs
        .iter()
        .flat_map(|v| v["checked"].as_array().unwrap())
        .collect();
    let false_choices: Vec<_> = checked
        .iter()
        .filter(|c| c["false_choice"] == true)
        .collect();
    eprintln!(
        "{} choices other than the divider measured again, {} false",
        checked.len(),
        false_choices.len()
    );
    assert!(
        false_choices.len() * 10 <= checked.len().max(10),
        "false choices: {false_choices:?}"
    );
    // Afterwards, not beside it: a second test would load the CPU while these calibrate.
    the_environment_forces_a_schedule();
    a_plan_file_gives_every_process_the_same_plan(cpu);
}

/// With `FMADIV_PLAN_FILE`, the first fresh process calibrates and saves the plan; every
/// later one reads it (no calibration) and runs the same schedules and `Divisor` windows.
/// A forced schedule neither reads nor writes the file; a file that is not a plan is
/// reported once on stderr and left as it is.
fn a_plan_file_gives_every_process_the_same_plan(cpu: Option<usize>) {
    let dir = std::env::temp_dir().join(format!("fmadiv-plan-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan");
    let file = path.to_str().unwrap();
    let env = [("FMADIV_PLAN_FILE", file)];
    let docs: Vec<serde_json::Value> = (0..10)
        .map(|_| plan_of(&fmadiv_with(cpu, &["plan", "--json"], &env)))
        .collect();
    let note = |v: &serde_json::Value| v["plan_file"].as_str().unwrap().to_string();
    if docs[0]["measurements"].as_array().unwrap().is_empty() {
        // No kernel to calibrate: the file has nothing to keep.
        assert!(note(&docs[0]).contains("not used"), "{}", docs[0]);
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    assert_eq!(docs[0]["loaded"], false, "{}", docs[0]);
    assert!(note(&docs[0]).ends_with(": saved"), "{}", note(&docs[0]));
    let same =
        |v: &serde_json::Value| (schedules(v), v["divisor"].clone(), v["small_below"].clone());
    let mut micros = Vec::new();
    for v in &docs[1..] {
        assert_eq!(v["loaded"], true, "{}", v["why"]);
        assert!(note(v).ends_with(": loaded"), "{}", note(v));
        assert!(v["measurements"].as_array().unwrap().is_empty(), "{v}");
        assert_eq!(same(v), same(&docs[0]), "{}", v["why"]);
        let us = v["calibration_us"].as_u64().unwrap();
        assert!(us < 20_000, "reading the plan took {us} us");
        micros.push(us);
    }
    micros.sort_unstable();
    eprintln!(
        "with {}: 10 of 10 fresh processes ran the first one's plan ({:?}); the plan read \
         in {}..{} us",
        env[0].0,
        schedules(&docs[0]),
        micros[0],
        micros[micros.len() - 1]
    );
    let forced = plan_of(&fmadiv_with(
        None,
        &["plan", "--json"],
        &[env[0], ("FMADIV_SCHEDULE", "kernel")],
    ));
    assert!(
        note(&forced).contains("not used: the schedules are forced"),
        "{forced}"
    );
    assert!(schedules(&forced).iter().all(|s| s == "kernel"), "{forced}");
    let not_a_plan = "div: kernel kernel\n";
    std::fs::write(&path, not_a_plan).unwrap();
    let out = fmadiv_with(cpu, &["plan", "--json"], &env);
    let v = plan_of(&out);
    assert_eq!(v["loaded"], false, "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("left as it is").count(), 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), not_a_plan);
    std::fs::remove_dir_all(&dir).unwrap();
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
