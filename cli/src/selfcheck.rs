//! The quick self-check `fmadiv` runs with no arguments.

use std::time::Instant;

use fmadiv_verify::samples::{SplitMix64, edge_pairs};

/// One line of the self-check.
pub struct Check {
    pub name: String,
    pub pairs: u64,
    pub mismatches: u64,
    pub first: Option<String>,
}

fn describe(a: f32, b: f32, got: f32) -> String {
    format!(
        "{:#010x} / {:#010x}: got {:#010x}, want {:#010x}",
        a.to_bits(),
        b.to_bits(),
        got.to_bits(),
        (a / b).to_bits()
    )
}

/// Compares `f` with `a / b` on the given pairs.
fn compare(name: &str, a: &[f32], b: &[f32], f: impl Fn(&[f32], &[f32], &mut [f32])) -> Check {
    let want: Vec<f32> = a.iter().zip(b).map(|(&x, &y)| x / y).collect();
    compare_with(name, a, b, &want, f)
}

/// Compares `f` with `want` on the given pairs.
fn compare_with(
    name: &str,
    a: &[f32],
    b: &[f32],
    want: &[f32],
    f: impl Fn(&[f32], &[f32], &mut [f32]),
) -> Check {
    let mut out = vec![0.0f32; a.len()];
    f(a, b, &mut out);
    let mut check = Check {
        name: name.into(),
        pairs: a.len() as u64,
        mismatches: 0,
        first: None,
    };
    for i in 0..a.len() {
        if out[i].to_bits() != want[i].to_bits() {
            check.mismatches += 1;
            check.first.get_or_insert_with(|| {
                format!(
                    "{} (want {:#010x})",
                    describe(a[i], b[i], out[i]),
                    want[i].to_bits()
                )
            });
        }
    }
    check
}

/// Dividend `1.m` against all 2^23 divisors in [1,2).
fn mantissa_row(m: u32) -> (Vec<f32>, Vec<f32>) {
    let b: Vec<f32> = (0..1u32 << 23)
        .map(|d| f32::from_bits(0x3f80_0000 | d))
        .collect();
    (vec![f32::from_bits(0x3f80_0000 | m); b.len()], b)
}

/// Runs the checks; the bool says whether the weakened kernels were caught as expected.
pub fn run() -> (Vec<Check>, Vec<Check>) {
    let mut checks = Vec::new();

    let (a, b) = edge_pairs();
    checks.push(compare("edge values, all pairs", &a, &b, fmadiv::div));
    push_kernel_check(&mut checks, "edge values, kernel on every lane", &a, &b);

    let mut rng = SplitMix64(0x5e1f_c4ec);
    let a: Vec<f32> = (0..10_000_000).map(|_| rng.next_f32_bits()).collect();
    let b: Vec<f32> = (0..10_000_000).map(|_| rng.next_f32_bits()).collect();
    let (a_random, b_random) = (a.clone(), b.clone());
    checks.push(compare("random bit patterns", &a, &b, fmadiv::par_div));
    push_kernel_check(
        &mut checks,
        "random bit patterns, kernel on every lane",
        &a,
        &b,
    );
    let ones = vec![1.0f32; b.len()];
    checks.push(compare(
        "reciprocals of random bit patterns",
        &ones,
        &b,
        |_, b, o| fmadiv::recip(b, o),
    ));
    checks.push(compare(
        "reciprocals in place, random bit patterns",
        &ones,
        &b,
        |_, b, o| {
            o.copy_from_slice(b);
            fmadiv::par_recip_in_place(o);
        },
    ));
    if fmadiv::verify::has_kernel() {
        checks.push(compare(
            "reciprocals, reciprocal kernel on every lane",
            &ones,
            &b,
            |_, b, o| fmadiv::verify::recip_with(fmadiv::verify::Kernel::Shipped, b, o).unwrap(),
        ));
    }

    // Every rounding mode: div_rounded against vdivps under that mode, on the edge values,
    // a million random bit patterns (nearly all on the slow path: a lane outside the
    // window sends its block there) and a million normal pairs of random signs (the fast
    // path: what the weakened step gets wrong).
    let (mut a, mut b) = edge_pairs();
    a.extend(a_random.iter().take(1_000_000));
    b.extend(b_random.iter().take(1_000_000));
    for _ in 0..1_000_000 {
        a.push(rng.next_normal());
        b.push(rng.next_normal());
    }
    let mut weakened = Vec::new();
    push_rounding_checks(&mut checks, &mut weakened, &a, &b);

    // Row 0 holds 1 / 0x1.fffffep+0 (the published algorithm's failure on AMD EPYC), row
    // 0x2f the pair that a single Newton step gets wrong.
    for row in [0u32, 0x2f] {
        let (a, b) = mantissa_row(row);
        let name = format!("mantissa row {row:#x} x 2^23 divisors");
        checks.push(compare(&name, &a, &b, fmadiv::div));
        push_kernel_check(&mut checks, &format!("{name}, kernel"), &a, &b);
        for kernel in [
            fmadiv::verify::Kernel::Newton,
            fmadiv::verify::Kernel::Published,
        ] {
            use fmadiv::verify::div_with;
            if fmadiv::verify::has_kernel() {
                let name = format!("{name}, {kernel} kernel");
                weakened.push(compare(&name, &a, &b, |a, b, o| {
                    div_with(kernel, a, b, o).unwrap()
                }));
            }
        }
    }
    (checks, weakened)
}

/// `div_rounded` in every mode against `divss` under that mode (MXCSR set around it), and
/// the step that ignores the divisor's sign where the kernel exists.
#[cfg(target_arch = "x86_64")]
fn push_rounding_checks(checks: &mut Vec<Check>, weakened: &mut Vec<Check>, a: &[f32], b: &[f32]) {
    for mode in fmadiv::Rounding::ALL {
        let want = fmadiv_verify::mxcsr::divide_in_mode(a, b, mode);
        let name = format!("div_rounded ({mode}) vs vdivps in that mode");
        checks.push(compare_with(&name, a, b, &want, |a, b, o| {
            fmadiv::div_rounded(a, b, o, mode)
        }));
        if mode != fmadiv::Rounding::Nearest && fmadiv::verify::has_kernel() {
            let name = format!("div_rounded ({mode}), divisor's sign ignored");
            weakened.push(compare_with(&name, a, b, &want, |a, b, o| {
                fmadiv::verify::div_rounded_with(
                    fmadiv::verify::DirectedStep::DivisorSignIgnored,
                    a,
                    b,
                    o,
                    mode,
                )
                .unwrap()
            }));
        }
    }
}

/// Elsewhere there is no MXCSR to set: the reference in each mode is x86's `divss`.
#[cfg(not(target_arch = "x86_64"))]
fn push_rounding_checks(_: &mut Vec<Check>, _: &mut Vec<Check>, _: &[f32], _: &[f32]) {
    println!("  skipped  div_rounded in each mode: the reference is x86's divss under MXCSR");
}

/// The shipped kernel on every lane (the plan may run the divider instead), where this
/// CPU has it.
fn push_kernel_check(checks: &mut Vec<Check>, name: &str, a: &[f32], b: &[f32]) {
    if fmadiv::verify::has_kernel() {
        checks.push(compare(name, a, b, |a, b, o| {
            fmadiv::verify::div_with(fmadiv::verify::Kernel::Shipped, a, b, o).unwrap()
        }));
        return;
    }
    println!("  skipped  {name}: this CPU (or build) has no AVX2+FMA kernel");
}

/// Prints the self-check; returns false if the shipped kernel had a mismatch.
pub fn report() -> bool {
    let start = Instant::now();
    let (checks, weakened) = run();
    let mut ok = true;
    for c in &checks {
        let verdict = if c.mismatches == 0 { "ok" } else { "MISMATCH" };
        println!("  {verdict:<8} {:<48} {:>11} pairs", c.name, c.pairs);
        if let Some(first) = &c.first {
            println!("           first: {first}");
            ok = false;
        }
    }
    for c in &weakened {
        println!(
            "  {:<8} {:<48} {:>11} mismatches (weakened on purpose)",
            "info", c.name, c.mismatches
        );
    }
    // A weakened variant (what follows the last comma of a check's name) none of whose
    // checks found a mismatch.
    let variant = |name: &str| name.rsplit(", ").next().unwrap_or(name).to_string();
    let missed = weakened.iter().any(|c| {
        weakened
            .iter()
            .filter(|d| variant(&d.name) == variant(&c.name))
            .all(|d| d.mismatches == 0)
    });
    if missed {
        let table = fmadiv_verify::fingerprint::rcp_fingerprint().map_or("none".into(), |f| f.hash);
        println!(
            "  note     a weakened variant went unnoticed: rows 0x0 and 0x2f expose both kernels on \
             AMD's rcpps table ({}), not on every table (this CPU's: {table}); \
             `fmadiv verify mantissa --rcp any --kernel newton|published` checks every \
             conforming table",
            fmadiv_verify::fingerprint::AMD_RCP_TABLE
        );
    }
    println!("  self-check took {:.1} s", start.elapsed().as_secs_f64());
    ok
}
