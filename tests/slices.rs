//! The slice API: every length and offset, in place, errors that write nothing.

mod common;

use common::{SplitMix64, assert_quotients};

fn random_inputs(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    inputs_with_specials(n, seed, 7)
}

/// Ordinary values with one lane in `one_in` (on average) an arbitrary bit pattern
/// (`u64::MAX`: none), so both paths run.
fn inputs_with_specials(n: usize, seed: u64, one_in: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng = SplitMix64(seed);
    let mut draw = || {
        let r = rng.next_u64();
        if r.is_multiple_of(one_in) {
            f32::from_bits((r >> 32) as u32)
        } else {
            ((r >> 11) as f32) * 1e-9 - 3.0
        }
    };
    let a = (0..n).map(|_| draw()).collect();
    let b = (0..n).map(|_| draw()).collect();
    (a, b)
}

#[test]
fn every_length_and_offset() {
    let (a, b) = random_inputs(64, 1);
    for len in 0..=40 {
        for off in 0..8 {
            let (sa, sb) = (&a[off..off + len], &b[(off * 3) % 8..(off * 3) % 8 + len]);
            // The output sits at its own offset inside a guarded buffer: nothing outside
            // [off, off + len) may change.
            let mut buf = vec![f32::from_bits(0x7fc0_dead); len + 16];
            fmadiv::div(sa, sb, &mut buf[off..off + len]);
            assert_quotients("div", sa, sb, &buf[off..off + len]);
            assert!(
                buf[..off]
                    .iter()
                    .chain(&buf[off + len..])
                    .all(|x| x.to_bits() == 0x7fc0_dead)
            );

            let mut inplace = a.clone();
            fmadiv::div_in_place(&mut inplace[off..off + len], sb);
            assert_quotients("div_in_place", sa, sb, &inplace[off..off + len]);
            assert_eq!(&inplace[..off], &a[..off]);
            assert!(
                inplace[off + len..]
                    .iter()
                    .zip(&a[off + len..])
                    .all(|(x, y)| x.to_bits() == y.to_bits())
            );

            let mut out = vec![0.0; len];
            fmadiv::par_div(sa, sb, &mut out);
            assert_quotients("par_div", sa, sb, &out);
            out.copy_from_slice(sa);
            fmadiv::par_div_in_place(&mut out, sb);
            assert_quotients("par_div_in_place", sa, sb, &out);
            fmadiv::par_recip(sb, &mut out);
            assert_quotients("par_recip", &vec![1.0; len], sb, &out);

            let mut inplace = b.clone();
            let (ones, sb) = (vec![1.0; len], &b[off..off + len]);
            fmadiv::recip_in_place(&mut inplace[off..off + len]);
            assert_quotients("recip_in_place", &ones, sb, &inplace[off..off + len]);
            let same = |(x, y): (&f32, &f32)| x.to_bits() == y.to_bits();
            assert!(inplace[..off].iter().zip(&b[..off]).all(same));
            assert!(inplace[off + len..].iter().zip(&b[off + len..]).all(same));
            out.copy_from_slice(sb);
            fmadiv::par_recip_in_place(&mut out);
            assert_quotients("par_recip_in_place", &ones, sb, &out);
        }
    }
}

/// The divider's loops run backward where the output lies a little past an input modulo
/// 4 KiB (4K aliasing): every placement of the output in 16-byte steps, so both directions
/// and every group/tail split run, for `div`, `div_in_place`, `recip`, `recip_in_place` and
/// the divider forced, out of place and in place.
#[test]
fn every_placement_modulo_4k() {
    for (n, b_offset) in [(1000usize, 0usize), (37, 16), (4096 + 13, 48), (300, 4000)] {
        let (a, b) = random_inputs(n, 9 + n as u64);
        // a at 0, b at a 4 KiB boundary plus `b_offset` bytes, the output after them.
        let b_at = (n + 1024).next_multiple_of(1024) + b_offset / 4;
        let out_base = (b_at + n + 1024).next_multiple_of(1024);
        let mut buf = vec![0.0f32; out_base + n + 2048];
        let base_mod = (buf.as_ptr() as usize / 4) % 1024;
        let shift = (1024 - base_mod) % 1024; // floats to a 4 KiB boundary
        buf[shift..shift + n].copy_from_slice(&a);
        buf[shift + b_at..shift + b_at + n].copy_from_slice(&b);
        for step in 0..256 {
            let out_at = shift + out_base + step * 4;
            let (inputs, rest) = buf.split_at_mut(out_at);
            let (sa, sb) = (
                &inputs[shift..shift + n],
                &inputs[shift + b_at..shift + b_at + n],
            );
            let out = &mut rest[..n];
            fmadiv::div(sa, sb, out);
            assert_quotients("div", sa, sb, out);
            fmadiv::recip(sb, out);
            let ones = vec![1.0f32; n];
            assert_quotients("recip", &ones, sb, out);
            let divider = fmadiv::Schedule::Divider;
            if fmadiv::verify::run_schedule(divider, Some(sa), sb, out).is_some() {
                assert_quotients("divider forced", sa, sb, out);
            } else {
                common::skipped_once(
                    "the divider's loops forced (need AVX2+FMA, not forced portable)",
                );
            }
            out.copy_from_slice(sa);
            fmadiv::div_in_place(out, sb);
            assert_quotients("div_in_place", sa, sb, out);
            out.copy_from_slice(sa);
            if fmadiv::verify::run_schedule_in_place(divider, out, sb).is_some() {
                assert_quotients("divider forced, in place", sa, sb, out);
            }
            out.copy_from_slice(sb);
            fmadiv::recip_in_place(out);
            assert_quotients("recip_in_place", &ones, sb, out);
        }
    }
}

/// Every schedule, at every length up to two of its longest steps (kernel block plus 16
/// divider vectors) and several offsets, out of place and in place (division and
/// reciprocals), with guards; over
/// inputs with specials in most kernel blocks (the divider's paths and the back-off after
/// a failed block, which calls then start in) and over inputs with none (the kernel's
/// stores).
#[test]
fn every_schedule_every_length() {
    for one_in in [7, u64::MAX] {
        every_schedule_every_length_of(inputs_with_specials(400, 3, one_in));
    }
}

fn every_schedule_every_length_of((a, b): (Vec<f32>, Vec<f32>)) {
    use fmadiv::verify::{run_recip_schedule_in_place, run_schedule, run_schedule_in_place};
    const GUARD: u32 = 0x7fc0_dead;
    for s in fmadiv::Schedule::CANDIDATES
        .into_iter()
        .chain([fmadiv::Schedule::Portable])
    {
        for len in 0..=330 {
            for off in [0, 1, 5] {
                let (sa, sb) = (&a[off..off + len], &b[7 - off..7 - off + len]);
                let mut buf = vec![f32::from_bits(GUARD); len + 16];
                if run_schedule(s, Some(sa), sb, &mut buf[off..off + len]).is_none() {
                    common::skipped_once(&format!("schedule {} (needs AVX2+FMA)", s.name()));
                    break;
                }
                let what = format!("schedule {} len {len} offset {off}", s.name());
                assert_quotients(&what, sa, sb, &buf[off..off + len]);
                let untouched = |x: &f32| x.to_bits() == GUARD;
                assert!(
                    buf[..off].iter().chain(&buf[off + len..]).all(untouched),
                    "{what}"
                );

                let mut inplace = a.clone();
                run_schedule_in_place(s, &mut inplace[off..off + len], sb).unwrap();
                assert_quotients(&what, sa, sb, &inplace[off..off + len]);
                assert_eq!(inplace[..off], a[..off]);
                let same = |(x, y): (&f32, &f32)| x.to_bits() == y.to_bits();
                assert!(inplace[off + len..].iter().zip(&a[off + len..]).all(same));

                // Reciprocals in place, the divisors at the dividends' offset.
                let (mut inplace, sb) = (b.clone(), &b[off..off + len]);
                run_recip_schedule_in_place(s, &mut inplace[off..off + len]).unwrap();
                let ones = vec![1.0; len];
                let what = format!("recip {what}, in place");
                assert_quotients(&what, &ones, sb, &inplace[off..off + len]);
                assert!(inplace[..off].iter().zip(&b[..off]).all(same), "{what}");
                assert!(inplace[off + len..].iter().zip(&b[off + len..]).all(same));
            }
        }
    }
}

/// The rayon forms over a slice long enough to be split (and not a whole number of chunks).
#[test]
fn long_slices_in_parallel() {
    let (a, b) = random_inputs(300_001, 2);
    let mut out = vec![0.0; a.len()];
    fmadiv::par_div(&a, &b, &mut out);
    assert_quotients("par_div", &a, &b, &out);
    out.copy_from_slice(&a);
    fmadiv::par_div_in_place(&mut out, &b);
    assert_quotients("par_div_in_place", &a, &b, &out);
    fmadiv::par_recip(&b, &mut out);
    assert_quotients("par_recip", &vec![1.0; b.len()], &b, &out);
    out.copy_from_slice(&b);
    fmadiv::par_recip_in_place(&mut out);
    assert_quotients("par_recip_in_place", &vec![1.0; b.len()], &b, &out);
}

#[test]
fn try_div_writes_nothing_on_mismatch() {
    let mut out = [7.0f32; 3];
    let err = fmadiv::try_div(&[1.0, 2.0, 3.0], &[1.0, 2.0], &mut out).unwrap_err();
    assert_eq!(out, [7.0; 3]);
    assert_eq!(
        err,
        fmadiv::Error::LengthMismatch {
            dividends: 3,
            divisors: 2,
            out: 3
        }
    );
    assert_eq!(
        err.to_string(),
        "length mismatch: 3 dividends, 2 divisors, output of 3"
    );
    assert!(fmadiv::try_div(&[], &[], &mut []).is_ok());
}

/// Each of the three lengths disagreeing alone (the output shorter or longer than two
/// inputs that agree, too): an error naming all three, and nothing written.
#[test]
fn try_div_checks_every_length() {
    for (dividends, divisors, out_len) in [
        (40, 40, 39),
        (40, 40, 41),
        (40, 39, 40),
        (39, 40, 40),
        (40, 39, 39),
        (0, 0, 1),
    ] {
        let (a, b) = (vec![3.0f32; dividends], vec![2.0f32; divisors]);
        let mut out = vec![7.0f32; out_len];
        let err = fmadiv::try_div(&a, &b, &mut out).unwrap_err();
        assert_eq!(
            err,
            fmadiv::Error::LengthMismatch {
                dividends,
                divisors,
                out: out_len
            }
        );
        assert!(
            out.iter().all(|&x| x == 7.0),
            "{dividends}, {divisors}, {out_len}"
        );
    }
}

/// Every other `try_` function, each of its lengths disagreeing alone (shorter and longer):
/// the error naming them all, and every output as it was; with one length, every output
/// written with the bits of the panicking form (long enough for the vector loops, and off a
/// multiple of sixteen).
#[test]
fn every_try_function_checks_every_length_and_writes_nothing() {
    use fmadiv::{Error, Rounding};
    const N: usize = 1027;
    let (a, b) = random_inputs(N + 1, 29);
    let (a, b) = (&a[..], &b[..]);
    /// The slices' lengths, the output's (or outputs') last.
    type Lengths<'l> = &'l [usize];
    /// A call with the given lengths: what it returned, and each output after and before it.
    type Call<'c> = Box<dyn Fn(Lengths) -> (Result<(), Error>, Vec<[Vec<f32>; 2]>) + 'c>;
    /// The error a function returns for the given lengths.
    type ErrorFor<'e> = &'e dyn Fn(Lengths) -> Error;
    /// A `try_` form that divides its first slice in place.
    type InPlace<'f> = &'f dyn Fn(&mut [f32], &[f32]) -> Result<(), Error>;
    let fresh = |n: usize| vec![7.0f32; n];
    let one_out = |n: usize, f: &dyn Fn(&mut [f32]) -> Result<(), Error>| {
        let mut out = fresh(n);
        (f(&mut out), vec![[out, fresh(n)]])
    };
    // An in-place form: the dividends it was given, and what they held before.
    let in_place_call = |n: Lengths, f: InPlace| {
        let (mut x, before) = (a[..n[0]].to_vec(), a[..n[0]].to_vec());
        (f(&mut x, &b[..n[1]]), vec![[x, before]])
    };
    let three = |n: Lengths| Error::LengthMismatch {
        dividends: n[0],
        divisors: n[1],
        out: n[2],
    };
    let output = |n: Lengths| Error::OutputMismatch {
        input: n[0],
        out: n[1],
    };
    let in_place = |n: Lengths| three(&[n[0], n[1], n[0]]);
    let divisor = fmadiv::Divisor::new(3.7);
    let quotients: Vec<f32> = a.iter().zip(b).map(|(&x, &y)| x / y).collect();
    let by_divisor: Vec<f32> = a.iter().map(|&x| x / 3.7).collect();
    let reciprocals: Vec<f32> = b.iter().map(|&y| 1.0 / y).collect();
    let (mut lo, mut hi) = (fresh(N), fresh(N));
    fmadiv::div_bounds(&a[..N], &b[..N], &mut lo, &mut hi);
    // Each function: its call, its error for the lengths, and its outputs' bits at N.
    let mut functions: Vec<(String, Call, ErrorFor, Vec<Vec<f32>>)> = vec![
        (
            "try_div_in_place".into(),
            Box::new(|n| in_place_call(n, &fmadiv::try_div_in_place)),
            &in_place,
            vec![quotients[..N].to_vec()],
        ),
        (
            "try_par_div".into(),
            Box::new(|n| one_out(n[2], &|o| fmadiv::try_par_div(&a[..n[0]], &b[..n[1]], o))),
            &three,
            vec![quotients[..N].to_vec()],
        ),
        (
            "try_par_div_in_place".into(),
            Box::new(|n| in_place_call(n, &fmadiv::try_par_div_in_place)),
            &in_place,
            vec![quotients[..N].to_vec()],
        ),
        (
            "try_recip".into(),
            Box::new(|n| one_out(n[1], &|o| fmadiv::try_recip(&b[..n[0]], o))),
            &output,
            vec![reciprocals[..N].to_vec()],
        ),
        (
            "try_par_recip".into(),
            Box::new(|n| one_out(n[1], &|o| fmadiv::try_par_recip(&b[..n[0]], o))),
            &output,
            vec![reciprocals[..N].to_vec()],
        ),
        (
            "try_div_scalar".into(),
            Box::new(|n| one_out(n[1], &|o| fmadiv::try_div_scalar(&a[..n[0]], 3.7, o))),
            &output,
            vec![by_divisor[..N].to_vec()],
        ),
        (
            "Divisor::try_divide_slice".into(),
            Box::new(|n| one_out(n[1], &|o| divisor.try_divide_slice(&a[..n[0]], o))),
            &output,
            vec![by_divisor[..N].to_vec()],
        ),
        (
            "try_div_bounds".into(),
            Box::new(|n| {
                let (mut l, mut h) = (fresh(n[2]), fresh(n[3]));
                let r = fmadiv::try_div_bounds(&a[..n[0]], &b[..n[1]], &mut l, &mut h);
                (r, vec![[l, fresh(n[2])], [h, fresh(n[3])]])
            }),
            &|n| Error::BoundsMismatch {
                dividends: n[0],
                divisors: n[1],
                lower: n[2],
                upper: n[3],
            },
            vec![lo, hi],
        ),
    ];
    for mode in Rounding::ALL {
        let mut want = fresh(N);
        fmadiv::div_rounded(&a[..N], &b[..N], &mut want, mode);
        functions.push((
            format!("try_div_rounded({mode:?})"),
            Box::new(move |n| {
                let f = |o: &mut [f32]| fmadiv::try_div_rounded(&a[..n[0]], &b[..n[1]], o, mode);
                one_out(n[2], &f)
            }),
            &three,
            vec![want],
        ));
    }
    let same = |x: &[f32], y: &[f32]| x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits());
    for (what, call, error, want) in &functions {
        // As many lengths as the error names: the inputs, then the outputs.
        let slices = match error(&[1, 2, 3, 4]) {
            Error::OutputMismatch { .. } => 2,
            Error::BoundsMismatch { .. } => 4,
            _ => 3,
        };
        // The in-place forms have no output of their own.
        let own = if what.ends_with("_in_place") {
            2
        } else {
            slices
        };
        for alone in 0..own {
            for len in [N - 1, N + 1] {
                let mut n = vec![N; slices];
                n[alone] = len;
                let (got, outs) = call(&n);
                assert_eq!(got, Err(error(&n)), "{what} with lengths {n:?}");
                for [after, before] in &outs {
                    assert!(same(after, before), "{what} with lengths {n:?}: written to");
                }
            }
        }
        let (got, outs) = call(&vec![N; slices]);
        assert_eq!(got, Ok(()), "{what}");
        for ([after, _], want) in outs.iter().zip(want) {
            assert!(
                same(after, want),
                "{what}: not the bits of its panicking form"
            );
        }
    }
    assert_eq!(
        Error::OutputMismatch { input: 2, out: 3 }.to_string(),
        "length mismatch: input of 2, output of 3"
    );
    let bounds = Error::BoundsMismatch {
        dividends: 2,
        divisors: 2,
        lower: 2,
        upper: 1,
    };
    assert_eq!(
        bounds.to_string(),
        "length mismatch: 2 dividends, 2 divisors, lower bounds of 2, upper bounds of 1"
    );
}

/// Each panicking form panics with the error its `try_` form returns for the same lengths:
/// `fmadiv::{function}: {error}`, one message whichever form a caller uses.
#[test]
fn every_panicking_form_panics_with_its_try_forms_error() {
    use fmadiv::{Divisor, Rounding};
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let message = |f: &dyn Fn()| -> String {
        let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("no panic");
        payload
            .downcast_ref::<String>()
            .expect("a formatted panic")
            .clone()
    };
    let (two, one) = ([1.0f32, 2.0], [3.0f32]);
    let zeros = |n: usize| vec![0.0f32; n];
    let d = Divisor::new(3.7);
    let mode = Rounding::Up;
    let cases: [(&str, &dyn Fn(), fmadiv::Error); 10] = [
        (
            "div",
            &|| fmadiv::div(&two, &one, &mut zeros(2)),
            fmadiv::try_div(&two, &one, &mut zeros(2)).unwrap_err(),
        ),
        (
            "div_in_place",
            &|| fmadiv::div_in_place(&mut two.clone(), &one),
            fmadiv::try_div_in_place(&mut two.clone(), &one).unwrap_err(),
        ),
        (
            "par_div",
            &|| fmadiv::par_div(&two, &two, &mut zeros(3)),
            fmadiv::try_par_div(&two, &two, &mut zeros(3)).unwrap_err(),
        ),
        (
            "par_div_in_place",
            &|| fmadiv::par_div_in_place(&mut two.clone(), &one),
            fmadiv::try_par_div_in_place(&mut two.clone(), &one).unwrap_err(),
        ),
        (
            "par_recip",
            &|| fmadiv::par_recip(&two, &mut zeros(3)),
            fmadiv::try_par_recip(&two, &mut zeros(3)).unwrap_err(),
        ),
        (
            "recip",
            &|| fmadiv::recip(&two, &mut zeros(1)),
            fmadiv::try_recip(&two, &mut zeros(1)).unwrap_err(),
        ),
        (
            "div_scalar",
            &|| fmadiv::div_scalar(&one, 3.7, &mut zeros(2)),
            fmadiv::try_div_scalar(&one, 3.7, &mut zeros(2)).unwrap_err(),
        ),
        (
            "Divisor::divide_slice",
            &|| d.divide_slice(&two, &mut zeros(3)),
            d.try_divide_slice(&two, &mut zeros(3)).unwrap_err(),
        ),
        (
            "div_rounded",
            &|| fmadiv::div_rounded(&one, &two, &mut zeros(2), mode),
            fmadiv::try_div_rounded(&one, &two, &mut zeros(2), mode).unwrap_err(),
        ),
        (
            "div_bounds",
            &|| fmadiv::div_bounds(&two, &two, &mut zeros(2), &mut zeros(1)),
            fmadiv::try_div_bounds(&two, &two, &mut zeros(2), &mut zeros(1)).unwrap_err(),
        ),
    ];
    for (function, panicking, error) in cases {
        assert_eq!(message(panicking), format!("fmadiv::{function}: {error}"));
    }
}

#[test]
#[should_panic(expected = "fmadiv::div: length mismatch: 2 dividends, 2 divisors, output of 1")]
fn div_panics_on_mismatch() {
    fmadiv::div(&[1.0, 2.0], &[1.0, 2.0], &mut [0.0]);
}

#[test]
#[should_panic(expected = "fmadiv::div_in_place: length mismatch")]
fn div_in_place_panics_on_mismatch() {
    fmadiv::div_in_place(&mut [1.0, 2.0], &[1.0]);
}

#[test]
#[should_panic(expected = "fmadiv::par_div: length mismatch")]
fn par_div_panics_on_mismatch() {
    fmadiv::par_div(&[1.0], &[1.0], &mut [0.0, 0.0]);
}

/// Each entry point runs the backend the environment forces for it (`FMADIV_BACKEND`, for
/// all or per entry point), else its default: sixteen lanes where its CPU family's record
/// names it and has a native run, else AVX2+FMA (where the CPU has it).
#[test]
fn backend_names_the_kernel() {
    let backend = fmadiv::backend();
    let forced = fmadiv::backend_override().expect("the test runs with a valid setting");
    let cpu = fmadiv::Cpu::this();
    #[cfg(fmadiv_x86)]
    let sixteen = fmadiv::avx512_family(&cpu)
        .filter(|f| f.native_run.is_some() && cpu.has_avx512f())
        .map_or(&[][..], |f| f.sixteen_lanes_for);
    for (entry, forced) in fmadiv::EntryPoint::ALL.into_iter().zip(forced) {
        let default = fmadiv::default_backend_of(&cpu, entry);
        assert_eq!(
            fmadiv::backend_of(entry),
            forced.unwrap_or(default),
            "{entry:?}"
        );
        #[cfg(fmadiv_x86)]
        if cpu.has_avx2_fma() {
            let want = match sixteen.contains(&entry) {
                true => fmadiv::Backend::Avx512,
                false => fmadiv::Backend::Avx2Fma,
            };
            assert_eq!(default, want, "{entry:?}");
        }
    }
    assert_eq!(fmadiv::backend_of(fmadiv::EntryPoint::Div), backend);
    assert!(!backend.to_string().is_empty());
}

/// The public slice functions run the plan's loop for their length, read through the mixed
/// loop's back-off (`common::PlansLoops`): a call of one step whose kernel block fails
/// leaves it, a function that divided elsewhere (the short loop, the divider) does not, as
/// the unoptimised build's must (its slice functions run the `asm!` divider loop). Where
/// this process's plan runs no kernel schedule, the test runs itself again with
/// `FMADIV_SCHEDULE=mix-4` (bits cannot show which loop ran).
#[cfg(fmadiv_x86)]
#[test]
fn the_public_slice_functions_run_the_plans_loops() {
    const NAME: &str = "the_public_slice_functions_run_the_plans_loops";
    use fmadiv::EntryPoint;
    let Some(probe) = common::PlansLoops::of_this_process(NAME, EntryPoint::Div) else {
        return;
    };
    let Some(recip) = common::PlansLoops::of_this_process(NAME, EntryPoint::Recip) else {
        return;
    };
    let (x, y) = probe.failing_step();
    let out = || vec![0.0f32; x.len()];
    type Call<'a> = &'a (dyn Fn() + Sync);
    let calls: [(&str, Call); 4] = [
        ("div", &|| fmadiv::div(&x, &y, &mut out())),
        ("try_div", &|| fmadiv::try_div(&x, &y, &mut out()).unwrap()),
        ("par_div", &|| fmadiv::par_div(&x, &y, &mut out())),
        ("div_in_place", &|| fmadiv::div_in_place(&mut x.clone(), &y)),
    ];
    for (what, call) in calls {
        probe.assert_runs_the_plans_loop(what, call);
    }
    // `recip` on its own backend's loop (sixteen lanes where its family's record says so).
    let (_, y) = recip.failing_step();
    let call = || fmadiv::recip(&y, &mut vec![0.0f32; y.len()]);
    recip.assert_runs_the_plans_loop("recip", &call);
    let call = || fmadiv::recip_in_place(&mut y.clone());
    recip.assert_runs_the_plans_loop("recip_in_place", &call);
    let call = || fmadiv::par_recip_in_place(&mut y.clone());
    recip.assert_runs_the_plans_loop("par_recip_in_place", &call);
}
