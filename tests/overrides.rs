//! A backend setting this process cannot honour (`FMADIV_BACKEND`, `FMADIV_FORCE_PORTABLE`)
//! panics at the first call of every entry point that runs a backend's code, in every build:
//! the runtime-detecting one, the one with AVX2 and FMA enabled at compile time, the
//! portable-only one and the unoptimised one. Never a silent choice. What runs no backend's
//! code reads no setting: `div_f32x8` and `recip_f32x8` (`wide`'s division with x86's NaN
//! bits) and, in optimised x86 builds, slices below 16 elements (32 by one divisor), which
//! divide with SSE's `divps` on every backend (README, "AVX-512").
//!
//! Each case is a fresh process (this test binary running [`one_entry_point`] alone, the
//! setting in its environment): a process checks the environment once.

use std::process::Command;

use fmadiv::{Divisor, Rounding};
use wide::f32x8;

/// The environment variable that names the entry point [`one_entry_point`] calls.
const ENTRY_ENV: &str = "FMADIV_TEST_ENTRY_POINT";

/// Lengths of the slices: below the short loops' bound (16), and above every vector loop's
/// head.
const LENGTHS: [usize; 2] = [4, 100];

/// The loops an entry point's short slices run in x86 builds, where they run no backend's
/// code (SSE's `divps` whatever the backend) and so read no setting.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Short {
    /// None: every call reads the setting.
    No,
    /// The short loops in optimised builds (unoptimised ones run their divider loop, which
    /// reads it).
    Optimised,
    /// The short loops by one divisor, in every x86 build.
    Always,
}

/// Every entry point [`call`] knows, each called first in its own process, with the loops
/// its short slices run.
const ENTRY_POINTS: &[(&str, Short)] = &[
    ("div", Short::Optimised),
    ("try_div", Short::Optimised),
    ("div_in_place", Short::Optimised),
    ("try_div_in_place", Short::Optimised),
    ("recip", Short::Optimised),
    ("try_recip", Short::Optimised),
    ("div_scalar", Short::Always),
    ("Divisor::divide_slice", Short::Always),
    ("Divisor::divide_in_place", Short::Always),
    ("Divisor::divide", Short::No),
    ("Divisor::divide_f32x8", Short::No),
    ("div_rounded", Short::No),
    ("div_bounds", Short::No),
    ("simd::div_rounded_f32x8", Short::No),
    ("simd::div_bounds_f32x8", Short::No),
    #[cfg(feature = "rayon")]
    ("par_div", Short::Optimised),
    #[cfg(feature = "rayon")]
    ("par_recip", Short::Optimised),
];

/// Whether the first call of an entry point whose short slices run `short` reads the
/// backend setting on `len` elements.
fn reads_the_setting(short: Short, len: usize) -> bool {
    let short_loops = match short {
        Short::No => false,
        Short::Optimised => !cfg!(fmadiv_unoptimized),
        Short::Always => true,
    };
    !(cfg!(fmadiv_x86) && len < LENGTHS[1] && short_loops)
}

/// The backend this build runs whatever the environment asks, where it is fixed when the
/// crate is compiled; and one the environment may name that it cannot honour.
const FIXED: Option<(&str, &str)> = if cfg!(fmadiv_static_avx2_fma) {
    Some(("avx2", "portable"))
} else if cfg!(fmadiv_x86) {
    None
} else {
    Some(("portable", "avx2"))
};

/// Calls `entry` once on `len` elements (in-register functions: one vector).
fn call(entry: &str, len: usize) {
    let a: Vec<f32> = (0..len).map(|i| i as f32 + 1.5).collect();
    let b: Vec<f32> = (0..len).map(|i| i as f32 * 0.25 + 3.0).collect();
    let mut out = vec![0.0f32; len];
    let mut hi = vec![0.0f32; len];
    let (va, vb) = (f32x8::splat(1.5), f32x8::splat(3.0));
    let d = || Divisor::new(3.0);
    match entry {
        "div" => fmadiv::div(&a, &b, &mut out),
        "try_div" => fmadiv::try_div(&a, &b, &mut out).unwrap(),
        "div_in_place" => fmadiv::div_in_place(&mut out, &b),
        "try_div_in_place" => fmadiv::try_div_in_place(&mut out, &b).unwrap(),
        "recip" => fmadiv::recip(&b, &mut out),
        "try_recip" => fmadiv::try_recip(&b, &mut out).unwrap(),
        "div_scalar" => fmadiv::div_scalar(&a, 3.0, &mut out),
        "Divisor::divide_slice" => d().divide_slice(&a, &mut out),
        "Divisor::divide_in_place" => d().divide_in_place(&mut out),
        "Divisor::divide" => out.push(d().divide(1.5)),
        "Divisor::divide_f32x8" => out.push(d().divide_f32x8(va).to_array()[0]),
        "div_rounded" => fmadiv::div_rounded(&a, &b, &mut out, Rounding::Up),
        "div_bounds" => fmadiv::div_bounds(&a, &b, &mut out, &mut hi),
        "simd::div_rounded_f32x8" => {
            out.push(fmadiv::simd::div_rounded_f32x8(va, vb, Rounding::Down).to_array()[0])
        }
        "simd::div_bounds_f32x8" => {
            out.push(fmadiv::simd::div_bounds_f32x8(va, vb).0.to_array()[0])
        }
        #[cfg(feature = "rayon")]
        "par_div" => fmadiv::par_div(&a, &b, &mut out),
        #[cfg(feature = "rayon")]
        "par_recip" => fmadiv::par_recip(&b, &mut out),
        other => panic!("no entry point {other:?} in this test"),
    }
    std::hint::black_box(&out);
}

/// Run by the cases in a process of its own: calls the entry point `ENTRY_ENV` names
/// (`NAME LENGTH`); nothing where it is unset (a plain run of the test suite).
#[test]
fn one_entry_point() {
    if let Ok(asked) = std::env::var(ENTRY_ENV) {
        let (entry, len) = asked.rsplit_once(' ').expect("NAME LENGTH");
        call(entry, len.parse().expect("a length"));
        println!("{asked}: returned");
    }
}

/// Runs `entry` on `len` elements first in a fresh process with the environment `env`
/// (the two variables removed first): whether it returned, and what it printed.
fn first_call(entry: &str, len: usize, env: &[(&str, &str)]) -> (bool, String) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new(exe);
    child
        .args([
            "--exact",
            "one_entry_point",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ENTRY_ENV, format!("{entry} {len}"))
        .env_remove(fmadiv::BACKEND_ENV)
        .env_remove(fmadiv::FORCE_PORTABLE_ENV);
    for (k, v) in env {
        child.env(k, v);
    }
    let output = child.output().expect("the test binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// Every entry point panics at its first call with the setting's message, at both lengths
/// where it reads the setting ([`reads_the_setting`]); where it does not, it returns.
fn every_entry_point_panics(env: &[(&str, &str)], message: &str) {
    let mut silent = Vec::new();
    for &(entry, short) in ENTRY_POINTS {
        for len in LENGTHS {
            let (returned, text) = first_call(entry, len, env);
            let reads = reads_the_setting(short, len);
            if returned == reads || (reads && !text.contains(message)) {
                let expected = if reads { "a panic" } else { "no panic" };
                silent.push(format!(
                    "{entry} on {len} ({expected} expected): {}",
                    text.trim()
                ));
            }
        }
    }
    assert!(
        silent.is_empty(),
        "{env:?}, {message:?}:\n{}",
        silent.join("\n")
    );
}

#[test]
fn a_name_that_is_no_backend_panics_at_every_first_call() {
    every_entry_point_panics(&[(fmadiv::BACKEND_ENV, "avx1024")], "names no backend");
}

#[test]
fn force_portable_other_than_one_or_zero_panics() {
    let env = [(fmadiv::FORCE_PORTABLE_ENV, "yes")];
    let (returned, text) = first_call("div", 100, &env);
    assert!(
        !returned && text.contains("FMADIV_FORCE_PORTABLE=\"yes\""),
        "{text}"
    );
    // 0 and an empty value are the variable unset.
    for off in ["0", ""] {
        let (returned, text) = first_call("div", 100, &[(fmadiv::FORCE_PORTABLE_ENV, off)]);
        assert!(returned, "FMADIV_FORCE_PORTABLE={off:?}: {text}");
    }
}

#[test]
fn force_portable_beside_another_backend_panics() {
    let env = [
        (fmadiv::FORCE_PORTABLE_ENV, "1"),
        (fmadiv::BACKEND_ENV, "recip=avx2"),
    ];
    let (returned, text) = first_call("recip", 100, &env);
    assert!(!returned && text.contains("unset one of them"), "{text}");
    // Beside a setting that agrees, it runs (where the build can choose the portable path).
    let agrees = [
        (fmadiv::FORCE_PORTABLE_ENV, "1"),
        (fmadiv::BACKEND_ENV, "portable"),
    ];
    let (returned, text) = first_call("recip", 100, &agrees);
    assert_eq!(
        returned,
        FIXED.is_none_or(|(fixed, _)| fixed == "portable"),
        "{text}"
    );
}

/// In a build whose backend is fixed when it is compiled, naming another one panics (it
/// would otherwise be ignored); where backends are chosen at run time, both run.
#[test]
fn a_backend_the_build_cannot_choose_panics() {
    match FIXED {
        Some((fixed, other)) => {
            let message = format!("this build runs {fixed} for every entry point");
            every_entry_point_panics(&[(fmadiv::BACKEND_ENV, other)], &message);
            let (returned, text) = first_call("div", 100, &[(fmadiv::BACKEND_ENV, fixed)]);
            assert!(returned, "{fixed}: {text}");
        }
        None => {
            for name in ["portable", "avx2"] {
                let can = fmadiv::Backend::from_name(name).unwrap().runs_here();
                let (returned, text) = first_call("div", 100, &[(fmadiv::BACKEND_ENV, name)]);
                assert_eq!(returned, can, "{name}: {text}");
            }
        }
    }
}
