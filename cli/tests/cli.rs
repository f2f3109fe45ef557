//! The `fmadiv` binary: verification verdicts, resume after SIGKILL, shards and merge, and
//! bad arguments (exit 2, nothing written or damaged).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::temp_dir;

fn fmadiv() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fmadiv"))
}

/// Whether the kernel exists here; says once when it does not (never a silent pass).
fn has_kernel() -> bool {
    if fmadiv::verify::has_kernel() {
        return true;
    }
    use std::io::Write;
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED on this CPU: the verification tests of cli/tests/cli.rs (need the AVX2+FMA kernel)"
        );
    });
    false
}

fn run(args: &[&str]) -> Output {
    fmadiv().args(args).output().expect("the binary runs")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The parts of a report that must not depend on how the run was split or interrupted.
fn verdict(report: &serde_json::Value) -> serde_json::Value {
    serde_json::json!([
        report["kernel"],
        report["range"],
        report["pairs_checked"],
        report["pairs_expected"],
        report["mismatches"],
        report["counterexamples"],
        report["verdict"]
    ])
}

#[test]
fn newton_is_caught_and_shipped_passes_on_64_rows() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("rows");
    let newton = dir.join("newton.json");
    let out = run(&[
        "verify",
        "mantissa",
        "--to",
        "64",
        "--kernel",
        "newton",
        "--report",
        newton.to_str().unwrap(),
    ]);
    let r = json(&newton);
    assert_eq!(r["pairs_checked"], 64u64 << 23);
    assert!(r["machine"]["rcp_fingerprint"].as_str().unwrap().len() == 16);
    // Exit status 1 exactly when the report counts mismatches, on any table.
    let mismatches = r["mismatches"].as_u64().unwrap();
    assert_eq!(
        code(&out),
        i32::from(mismatches > 0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if fmadiv_verify::fingerprint::has_amd_rcp_table(
        "the Newton step caught by `fmadiv verify` in 64 rows",
    ) {
        assert!(mismatches >= 1);
        assert_eq!(r["counterexamples"][0]["a"], "0x3f80002f");
        assert_eq!(r["counterexamples"][0]["want"], "0x3f06bf0f");
    }

    let shipped = dir.join("shipped.json");
    let out = run(&[
        "verify",
        "mantissa",
        "--to",
        "64",
        "--report",
        shipped.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&shipped)["mismatches"], 0);
    assert_eq!(json(&shipped)["verdict"], "pass");
}

#[test]
fn resume_after_sigkill_gives_the_same_report() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("resume");
    let (ckpt, killed_report, full_report) = (
        dir.join("ckpt.json"),
        dir.join("resumed.json"),
        dir.join("full.json"),
    );
    // Newton on [0, 3072): about 2.6·10^10 pairs, several seconds, with mismatches to keep.
    let args = [
        "verify",
        "mantissa",
        "--to",
        "3072",
        "--kernel",
        "newton",
        "--checkpoint-every",
        "0",
    ];
    let mut child = fmadiv()
        .args(args)
        .args([
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--report",
            killed_report.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it mid-run, once a checkpoint exists.
    let mut waited = Duration::ZERO;
    while !ckpt.exists() && waited < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    std::thread::sleep(Duration::from_millis(700));
    let finished_early = child.try_wait().unwrap().is_some();
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert!(ckpt.exists(), "no checkpoint was written");
    let partial = json(&ckpt);
    if !finished_early {
        assert!(
            !killed_report.exists(),
            "a killed run must not leave a report"
        );
        assert!(partial["pairs_compared"].as_u64().unwrap() < 3072u64 << 23);
    }

    let out = fmadiv()
        .args(args)
        .args([
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--report",
            killed_report.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));

    let out = fmadiv()
        .args(args)
        .args(["--report", full_report.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(verdict(&json(&killed_report)), verdict(&json(&full_report)));
}

#[test]
fn shards_merge_to_the_whole_and_gaps_or_overlaps_are_refused() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("shards");
    let whole = dir.join("whole.json");
    assert_eq!(
        code(&run(&[
            "verify",
            "mantissa",
            "--to",
            "100",
            "--kernel",
            "newton",
            "--report",
            whole.to_str().unwrap()
        ])),
        1
    );
    let shards: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shard{i}.json"))).collect();
    for (i, path) in shards.iter().enumerate() {
        let shard = format!("{i}/3");
        let out = run(&[
            "verify",
            "mantissa",
            "--to",
            "100",
            "--kernel",
            "newton",
            "--shard",
            &shard,
            "--report",
            path.to_str().unwrap(),
        ]);
        assert!(code(&out) <= 1, "{}", String::from_utf8_lossy(&out.stderr));
    }
    let merged = dir.join("merged.json");
    let mut args: Vec<&str> = vec!["verify", "merge", "--report", merged.to_str().unwrap()];
    args.extend(shards.iter().rev().map(|p| p.to_str().unwrap()));
    assert_eq!(code(&run(&args)), 1);
    assert_eq!(verdict(&json(&merged)), verdict(&json(&whole)));

    let gap = run(&[
        "verify",
        "merge",
        shards[0].to_str().unwrap(),
        shards[2].to_str().unwrap(),
    ]);
    assert_eq!(code(&gap), 2);
    assert!(String::from_utf8_lossy(&gap.stderr).contains("gap"));
    let overlap = run(&[
        "verify",
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        whole.to_str().unwrap(),
    ]);
    assert_eq!(code(&overlap), 2);
    assert!(String::from_utf8_lossy(&overlap.stderr).contains("overlap"));
}

#[test]
fn bad_arguments_exit_2_and_write_nothing() {
    let dir = temp_dir("bad");
    let report = dir.join("r.json");
    let r = report.to_str().unwrap();
    for args in [
        vec![
            "verify", "mantissa", "--from", "10", "--to", "5", "--report", r,
        ],
        vec!["verify", "mantissa", "--to", "8388609", "--report", r],
        vec![
            "verify", "mantissa", "--to", "8", "--shard", "0/0", "--report", r,
        ],
        vec![
            "verify", "mantissa", "--to", "8", "--shard", "3/3", "--report", r,
        ],
        vec![
            "verify", "mantissa", "--to", "8", "--kernel", "bogus", "--report", r,
        ],
        vec![
            "verify",
            "mantissa",
            "--to",
            "8",
            "--threads",
            "0",
            "--report",
            r,
        ],
        vec!["verify", "random", "--count", "x", "--report", r],
        vec!["verify", "dividends", "--divisor", "pi", "--report", r],
        vec!["verify", "merge", "/nonexistent/report.json"],
        vec!["frobnicate"],
        // --past-line: off a float's alignment, a whole line, or without a benchmark that
        // places arrays (each refused before anything is measured).
        vec!["bench", "--floors", "--past-line", "18"],
        vec!["bench", "--rounding", "--past-line", "64"],
        vec!["bench", "--past-line", "16"],
    ] {
        let out = run(&args);
        assert_eq!(
            code(&out),
            2,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty(), "{args:?} gave no message");
        assert!(!report.exists(), "{args:?} wrote a report");
    }
    let out = run(&[
        "verify",
        "mantissa",
        "--to",
        "8",
        "--report",
        "/nonexistent/dir/r.json",
    ]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "no stray temporary files"
    );
}

#[test]
fn corrupt_or_foreign_checkpoints_are_refused_and_left_untouched() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("ckpt");
    let ckpt = dir.join("c.json");
    let c = ckpt.to_str().unwrap();
    assert_eq!(
        code(&run(&[
            "verify",
            "mantissa",
            "--to",
            "16",
            "--checkpoint",
            c
        ])),
        0
    );
    let good = std::fs::read(&ckpt).unwrap();

    // Other arguments: refused, file unchanged.
    let out = run(&["verify", "mantissa", "--to", "32", "--checkpoint", c]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("another run"));
    assert_eq!(std::fs::read(&ckpt).unwrap(), good);

    // A flipped digit: the checksum catches it.
    let text = String::from_utf8(good.clone()).unwrap().replacen(
        "\"pairs_compared\": 1",
        "\"pairs_compared\": 2",
        1,
    );
    std::fs::write(&ckpt, &text).unwrap();
    let out = run(&["verify", "mantissa", "--to", "16", "--checkpoint", c]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("corrupt"));
    assert_eq!(std::fs::read_to_string(&ckpt).unwrap(), text);

    // Unreadable: a directory where the checkpoint file should be.
    let dir_as_file = dir.join("a-directory");
    std::fs::create_dir_all(&dir_as_file).unwrap();
    let out = run(&[
        "verify",
        "mantissa",
        "--to",
        "16",
        "--checkpoint",
        dir_as_file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read checkpoint"));
    assert!(dir_as_file.is_dir());

    // Truncated JSON.
    std::fs::write(&ckpt, &good[..good.len() / 2]).unwrap();
    let out = run(&["verify", "mantissa", "--to", "16", "--checkpoint", c]);
    assert_eq!(code(&out), 2);
    assert_eq!(std::fs::read(&ckpt).unwrap(), &good[..good.len() / 2]);

    // A valid checkpoint of another kernel's arithmetic (another digest, checksum
    // recomputed): refused, untouched.
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["key"]["kernel_digest"] = "0123456789abcdef".into();
    v["checksum"] = "".into();
    v["checksum"] = fnv1a_hex(&v.to_string()).into();
    let foreign = serde_json::to_string_pretty(&v).unwrap();
    std::fs::write(&ckpt, &foreign).unwrap();
    let out = run(&["verify", "mantissa", "--to", "16", "--checkpoint", c]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another run") && err.contains("0123456789abcdef"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&ckpt).unwrap(), foreign);

    // The same file with the real digest back resumes (so the refusal above was the
    // digest's doing, not the checksum's).
    v["key"]["kernel_digest"] = json_digest_of_good(&good).into();
    v["checksum"] = "".into();
    v["checksum"] = fnv1a_hex(&v.to_string()).into();
    std::fs::write(&ckpt, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = run(&["verify", "mantissa", "--to", "16", "--checkpoint", c]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
}

fn json_digest_of_good(good: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(good).unwrap();
    v["key"]["kernel_digest"].as_str().unwrap().to_string()
}

/// The checkpoint checksum, as documented: FNV-1a 64 of the compact JSON with the
/// checksum field empty.
fn fnv1a_hex(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[test]
fn merge_refuses_reports_of_different_kernel_digests() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("digests");
    let (r1, r2) = (dir.join("r1.json"), dir.join("r2.json"));
    for (from, to, path) in [("0", "8", &r1), ("8", "16", &r2)] {
        let out = run(&[
            "verify",
            "mantissa",
            "--from",
            from,
            "--to",
            to,
            "--report",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), 0);
    }
    let merged = dir.join("merged.json");
    let args = |m: &std::path::Path| {
        [
            "verify".to_string(),
            "merge".into(),
            r1.display().to_string(),
            r2.display().to_string(),
            "--report".into(),
            m.display().to_string(),
        ]
    };
    let out = fmadiv().args(args(&merged)).output().unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let m = json(&merged);
    assert_eq!(m["kernel_digest"], json(&r1)["kernel_digest"]);
    assert_eq!(m["pairs_checked"].as_u64().unwrap(), 16u64 << 23);

    let mut v = json(&r2);
    v["kernel_digest"] = "0123456789abcdef".into();
    std::fs::write(&r2, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let refused = dir.join("refused.json");
    let out = fmadiv().args(args(&refused)).output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kernel digest"));
    assert!(!refused.exists());
}

#[test]
fn fingerprint_and_other_modes_run() {
    if !has_kernel() {
        return;
    }
    let out = run(&["fingerprint", "--json"]);
    assert_eq!(code(&out), 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rcp_fingerprint"].as_str().unwrap().len(), 16);
    let digests = &v["kernel_digests"];
    assert_eq!(digests["shipped"].as_str().unwrap().len(), 16);
    assert_ne!(digests["shipped"], digests["newton"]);
    assert_ne!(digests["shipped"], digests["published"]);
    assert_eq!(
        code(&run(&[
            "verify", "random", "--count", "3000000", "--seed", "5"
        ])),
        0
    );
    assert_eq!(code(&run(&["verify", "edges"])), 0);
}

/// The README's GNU parallel example, run as written on this machine (`HOSTS=:` is the
/// local host for `parallel -S`), with 4 shards of dividend mantissas [0, 64). Where
/// `parallel` is not installed, the same shard and merge sequence runs as background
/// processes, and the test says so.
#[test]
fn the_readme_cluster_example_runs() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("cluster");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_fmadiv")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if has_parallel {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
        let block = readme
            .split("<!-- cluster-example:begin -->")
            .nth(1)
            .and_then(|r| r.split("<!-- cluster-example:end -->").next())
            .expect("the README marks its cluster example");
        let script: String = block
            .lines()
            .filter(|l| !l.starts_with("```"))
            .map(|l| {
                l.replace("HOSTS=host1,host2,host3 SHARDS=64", "HOSTS=: SHARDS=4")
                    .replace("fmadiv verify mantissa ", "fmadiv verify mantissa --to 64 ")
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(script.contains("HOSTS=: SHARDS=4") && script.contains("--to 64"));
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    } else {
        eprintln!(
            "SKIPPED on this machine: GNU parallel (not installed); the same shards run as background processes"
        );
        std::fs::create_dir_all(dir.join("reports")).unwrap();
        let children: Vec<_> = (0..4)
            .map(|i| {
                fmadiv()
                    .args([
                        "verify",
                        "mantissa",
                        "--to",
                        "64",
                        "--shard",
                        &format!("{i}/4"),
                    ])
                    .args(["--report", &format!("reports/{i}.json")])
                    .current_dir(&dir)
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
        let reports: Vec<String> = (0..4).map(|i| format!("reports/{i}.json")).collect();
        let out = fmadiv()
            .args(["verify", "merge"])
            .args(&reports)
            .args(["--report", "all.json"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    }
    let all = json(&dir.join("all.json"));
    assert_eq!(all["mode"], "merge");
    assert_eq!(all["verdict"], "pass");
    assert_eq!(all["pairs_checked"].as_u64().unwrap(), 64u64 << 23);
}

/// Under AVX-512's `vrcp14ps` bound (2^-14), the any-table sweep still catches the two
/// shorter arithmetics (a seed four times closer does not make them exact), on rows where the
/// shipped kernel passes.
#[test]
fn the_sweep_under_the_vrcp14_bound_catches_the_shorter_arithmetics() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("vrcp14-bound");
    let report = dir.join("newton.json");
    let sweep = |kernel: &str, from: &str, to: &str, report: Option<&Path>| {
        let mut args = vec![
            "verify",
            "mantissa",
            "--rcp",
            "any",
            "--rcp-bound",
            "2^-14",
            "--prune",
            "--kernel",
            kernel,
            "--from",
            from,
            "--to",
            to,
        ];
        if let Some(path) = report {
            args.extend(["--report", path.to_str().unwrap()]);
        }
        run(&args)
    };
    // One Newton step: dividend mantissa 222 (0x3f8000de) over 0x3ffee17f with the
    // conforming seed 0x3f008de0 gives 0x3f0090c0 for 0x3f0090c1.
    let out = sweep("newton", "222", "223", Some(&report));
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
    let r = json(&report);
    assert_eq!(r["every_table"]["seed_bound"], "2^-14");
    assert_eq!(r["counterexamples"][0]["b"], "0x3ffee17f");
    // Without the near-all-ones rule: 1 over the largest significand.
    let out = sweep("published", "0", "1", None);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0x3fffffff"));
    // The shipped kernel on both dividends' rows.
    for (from, to) in [("0", "1"), ("222", "223")] {
        let out = sweep("shipped", from, to, None);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    }
    // The sixteen-lane near-all-ones rule halved: dividend mantissa 0x787868 over
    // 0x3fffffef (2 - 17·2^-23) with the low edge's seed 0x3efffc11 comes out one ulp low;
    // the rule itself (2^5 divisors) passes there and on the largest significand's row.
    let out = sweep("vrcp14-narrowed", "7895144", "7895145", None);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0x3fffffef"));
    for (from, to) in [("0", "1"), ("7895144", "7895145")] {
        let out = sweep("vrcp14", from, to, None);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn every_table_sweeps_report_shard_merge_and_refuse_mixtures() {
    if !has_kernel() {
        return;
    }
    let dir = temp_dir("every-table");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();

    // The division kernel over every conforming table, 4 dividend mantissas.
    let out = run(&[
        "verify",
        "mantissa",
        "--rcp",
        "any",
        "--prune",
        "--to",
        "4",
        "--report",
        &p("div.json"),
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let r = json(&dir.join("div.json"));
    let t = &r["every_table"];
    assert_eq!(t["seed_bound"], "1.5*2^-12");
    assert_eq!(t["arithmetic_digest"].as_str().unwrap().len(), 16);
    assert_eq!(t["stats"]["divisors"], 1u64 << 23);
    assert_eq!(t["stats"]["kept_rows_at_or_over_2_24"], 0);
    let rows = t["stats"]["rows_proven"].as_u64().unwrap()
        + t["stats"]["rows_compared"].as_u64().unwrap()
        + t["stats"]["divisors_by_divider"].as_u64().unwrap();
    assert_eq!(r["pairs_checked"], 4 * rows);
    assert_eq!(r["pairs_checked"], r["pairs_expected"]);

    // The published kernel (no near-all-ones fix) fails for some conforming table.
    let out = run(&[
        "verify",
        "mantissa",
        "--rcp",
        "any",
        "--to",
        "1",
        "--kernel",
        "published",
    ]);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0x3fffffff"));

    // The reciprocal sweep in two shards of divisors, merged: Newton's sequence is caught
    // in the shard that holds 0x3f869913.
    for shard in ["0/2", "1/2"] {
        let name = format!("recip-{}.json", &shard[..1]);
        let out = run(&[
            "verify",
            "reciprocals",
            "--rcp",
            "any",
            "--kernel",
            "newton",
            "--from",
            "0x69800",
            "--to",
            "0x69a00",
            "--shard",
            shard,
            "--report",
            &p(&name),
        ]);
        let want = if shard == "0/2" { 0 } else { 1 };
        assert_eq!(code(&out), want, "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = run(&[
        "verify",
        "merge",
        &p("recip-0.json"),
        &p("recip-1.json"),
        "--report",
        &p("recip.json"),
    ]);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));
    let m = json(&dir.join("recip.json"));
    assert_eq!(m["every_table"]["stats"]["divisors"], 0x200);
    assert_eq!(m["counterexamples"][0]["b"], "0x3f869913");
    assert!(m["counterexamples"][0]["seed"].is_string());

    // Merge refuses an every-table report beside this CPU's table's.
    let out = run(&[
        "verify",
        "mantissa",
        "--prune",
        "--from",
        "4",
        "--to",
        "8",
        "--report",
        &p("own2.json"),
    ]);
    assert_eq!(code(&out), 0);
    let out = run(&["verify", "merge", &p("div.json"), &p("own2.json")]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("rcp tables"));

    // Bad bounds and options that need --rcp any exit 2 and write nothing.
    for args in [
        &[
            "verify",
            "mantissa",
            "--rcp",
            "any",
            "--rcp-bound",
            "3",
            "--to",
            "1",
        ][..],
        &[
            "verify",
            "mantissa",
            "--rcp",
            "any",
            "--rcp-bound",
            "2^-40",
            "--to",
            "1",
        ],
        &["verify", "reciprocals", "--from", "5"],
    ] {
        let mut args = args.to_vec();
        let report = p("never.json");
        args.extend(["--report", &report]);
        let out = run(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(!dir.join("never.json").exists());
    }

    // A checkpoint of another bound is refused and left as it was.
    let ckpt = p("recip.ckpt");
    let args = [
        "verify",
        "reciprocals",
        "--rcp",
        "any",
        "--to",
        "0x2000",
        "--checkpoint",
        &ckpt,
    ];
    assert_eq!(code(&run(&args)), 0);
    let before = std::fs::read(&ckpt).unwrap();
    let mut other = args.to_vec();
    other.extend(["--rcp-bound", "2^-14"]);
    let out = run(&other);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("belongs to another run"));
    assert_eq!(std::fs::read(&ckpt).unwrap(), before);
    // The same arguments resume: nothing left to do, the same verdict.
    let out = run(&args);
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("resuming"));
}
