//! The `Divisor`'s two products with the dividends window-checked before the sequence
//! (`Check::Window`: no flag read, none raised but inexact) against the flag-checked
//! chunks (with the caller's flags clear and with its underflow flag held) and the
//! divider's loop, at both widths, out of place and in place.
//!
//! `cargo run --release --example divisor_window [--zeros-percent=P] [--markstein]
//! [LENGTH ...]` (64 to 64K by default)
//!
//! `Divisor(3.7)` (with `--markstein`, the first divisor of [1, 2) whose strategy is
//! Markstein's: every form but the divider and "lanes" then runs the window-checked loop,
//! which that strategy's slices take whatever the check) on normal dividends (each a zero
//! with probability P%, 0 by default); each width's forms alternate in one process over
//! rotating buffer layouts (dividends and output 2 KiB apart modulo 4 KiB), 41 rounds of
//! about 200 us each; prints the median ratio of the width's divider loop (out of place, or
//! in place for the in-place forms) to each form: above 1 is faster. On the backend the
//! process's `Divisor` runs (`fmadiv::backend()`), also the public `divide_slice` and
//! `divide_in_place`, which run what the plan chooses at each length. Every form's bits are
//! checked against `/` first, and the caller's underflow flag is checked to be kept.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::verify::divisor::{Check, divide_checked_on, divide_slice_on};
    use fmadiv::{Backend, Divisor, Strategy};
    use fmadiv_verify::mxcsr::{ALL_FLAGS, read_mxcsr, write_mxcsr};
    use fmadiv_verify::samples::{Layouts, SplitMix64};

    const ROUNDS: usize = 41;
    const SAMPLE_SECONDS: f64 = 200e-6;
    const UNDERFLOW: u32 = 1 << 4;
    const TWO_PRODUCTS_DIVISOR: f32 = 3.7;
    // What the slices run where the plan sends every slice whose caller holds a voiding
    // flag to the window check: the chunks if the flags are clear.
    const UNLESS_HELD: Check = Check::FlagsUnlessHeld { below: usize::MAX };
    fn set_underflow(set: bool) {
        write_mxcsr((read_mxcsr() & !ALL_FLAGS) | if set { UNDERFLOW } else { 0 });
    }
    println!("{}", common::cpu());
    let (lengths, options, flags) = common::lengths_options_and_flags(
        "divisor_window",
        &["zeros-percent"],
        &["markstein"],
        &[64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536],
    );
    let divisor = if flags[0] {
        (0..1u32 << 23)
            .map(|m| f32::from_bits(0x3f80_0000 | m))
            .find(|&b| Divisor::new(b).strategy() == Strategy::Markstein)
            .expect("some significand takes the Markstein strategy")
    } else {
        TWO_PRODUCTS_DIVISOR
    };
    let d = Divisor::new(divisor);
    // In place, each call divides by `d` and then by `e`: the dividends stay where they
    // were, within a few units in the last place, call after call.
    let e = Divisor::new(1.0 / divisor);
    println!("divisor {divisor:e}: {}", d.strategy());
    let zeros_percent = options[0].unwrap_or(0) as u64;
    if zeros_percent > 100 {
        eprintln!("divisor_window: --zeros-percent={zeros_percent} is not a percentage");
        std::process::exit(2);
    }
    println!("dividends: normal, {zeros_percent}% zeros");
    let mut rng = SplitMix64(0x7769_6e64);
    for backend in [Backend::Avx2Fma, Backend::Avx512] {
        if !backend.runs_here() {
            println!("{backend:?}: SKIPPED, not on this CPU");
            continue;
        }
        /// A form: its name, whether the caller holds the underflow flag, whether in
        /// place, and the call.
        type Form<'a> = (&'a str, bool, bool, &'a dyn Fn(&mut [f32], &mut [f32]));
        let every: [Form; 10] = [
            ("divider", false, false, &|a, o| {
                divide_slice_on(backend, &d, false, a, o).unwrap()
            }),
            ("flags, clear", false, false, &|a, o| {
                divide_checked_on(backend, &d, Check::Flags, a, Some(o)).unwrap()
            }),
            ("flags, UE held", true, false, &|a, o| {
                divide_checked_on(backend, &d, Check::Flags, a, Some(o)).unwrap()
            }),
            ("unless held, clr", false, false, &|a, o| {
                divide_checked_on(backend, &d, UNLESS_HELD, a, Some(o)).unwrap()
            }),
            ("unless held, UE", true, false, &|a, o| {
                divide_checked_on(backend, &d, UNLESS_HELD, a, Some(o)).unwrap()
            }),
            ("window", true, false, &|a, o| {
                divide_checked_on(backend, &d, Check::Window, a, Some(o)).unwrap()
            }),
            ("lanes", true, false, &|a, o| {
                divide_checked_on(backend, &d, Check::Lanes, a, Some(o)).unwrap()
            }),
            ("divider in place", false, true, &|a, _| {
                use fmadiv::verify::divisor::divide_in_place_on;
                divide_in_place_on(backend, &d, false, a).unwrap();
                divide_in_place_on(backend, &e, false, a).unwrap()
            }),
            ("lanes in place", false, true, &|a, _| {
                divide_checked_on(backend, &d, Check::Lanes, a, None).unwrap();
                divide_checked_on(backend, &e, Check::Lanes, a, None).unwrap()
            }),
            ("window in place", false, true, &|a, _| {
                divide_checked_on(backend, &d, Check::Window, a, None).unwrap();
                divide_checked_on(backend, &e, Check::Window, a, None).unwrap()
            }),
        ];
        let public = |a: &mut [f32], o: &mut [f32]| d.divide_slice(a, o);
        let public_in_place = |a: &mut [f32], _: &mut [f32]| {
            d.divide_in_place(a);
            e.divide_in_place(a)
        };
        let mut forms = every.to_vec();
        if backend == fmadiv::backend() {
            forms.push(("public", false, false, &public));
            forms.push(("public in place", false, true, &public_in_place));
        }
        let in_place_base = forms
            .iter()
            .position(|f| f.0 == "divider in place")
            .expect("a form");
        println!(
            "{backend:?}: median ratio of the divider's loop to each form over {ROUNDS} rounds"
        );
        print!("{:>6}", "n");
        for (name, ..) in &forms[1..] {
            print!("  {name:>16}");
        }
        println!();
        for &n in &lengths {
            let a: Vec<f32> = (0..n)
                .map(|_| {
                    let x = rng.next_normal();
                    if rng.next_u64() % 100 < zeros_percent {
                        0.0
                    } else {
                        x
                    }
                })
                .collect();
            for form in &forms {
                let mut x = a.clone();
                let mut out = vec![0.0f32; n];
                set_underflow(form.1);
                (form.3)(&mut x, &mut out);
                let kept = read_mxcsr() & UNDERFLOW != 0;
                set_underflow(false);
                let got = if form.2 { &x } else { &out };
                for (&q, &x) in got.iter().zip(&a) {
                    let want = if form.2 {
                        x / divisor / (1.0 / divisor)
                    } else {
                        x / divisor
                    };
                    assert_eq!(q.to_bits(), want.to_bits(), "{}: {x:e}", form.0);
                }
                assert!(
                    !form.1 || kept,
                    "{}: the caller's underflow flag was lost",
                    form.0
                );
            }
            let mut layouts = Layouts::new(a.clone(), a.clone());
            let mut time = |form: &Form, k: usize, calls: usize| {
                let (x, _, out) = layouts.arrays(k);
                let mut x = x.to_vec();
                set_underflow(form.1);
                let t = Instant::now();
                for _ in 0..calls {
                    (form.3)(black_box(&mut x), black_box(&mut *out));
                }
                let s = t.elapsed().as_secs_f64();
                set_underflow(false);
                s
            };
            let once = time(&forms[0], 0, 16) / 16.0;
            let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
            let mut ratios = vec![Vec::new(); forms.len() - 1];
            for k in 0..ROUNDS {
                let mut t = vec![0.0; forms.len()];
                for j in 0..forms.len() {
                    let which = (j + k) % forms.len();
                    t[which] = time(&forms[which], k, calls);
                }
                for (j, r) in ratios.iter_mut().enumerate() {
                    let base = if forms[j + 1].2 {
                        t[in_place_base]
                    } else {
                        t[0]
                    };
                    r.push(base / t[j + 1]);
                }
            }
            print!("{n:>6}");
            for r in &mut ratios {
                r.sort_by(f64::total_cmp);
                print!("  {:>16.2}", r[r.len() / 2]);
            }
            println!();
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: x86-64 only");
}
