//! The suite can fail: weakened kernels are caught, and the shipped kernel passes the same
//! checks. Runs only where the AVX2+FMA kernel can run; the facts of AMD's `rcpps` table
//! only where the backend in use seeds with `rcpps` (the sixteen-lane backends' weakened
//! kernels are caught in `tests/backends.rs`, on the model with each `vrcp14ps` table).
#![cfg(fmadiv_x86)]

mod common;

use common::mantissa_rows;
use fmadiv::verify::{Kernel, div_with};
use fmadiv_verify::fingerprint::has_amd_rcp_table;

fn has_kernel() -> bool {
    fmadiv::verify::x86::Avx2Fma::new().is_some()
}

/// Whether the kernels in use seed with this CPU's `rcpps` and it is AMD's table, whose
/// facts the checks below name; says why not once otherwise.
fn on_amd_rcpps(what: &str) -> bool {
    let backend = fmadiv::backend();
    if backend != fmadiv::Backend::Avx2Fma {
        common::skipped_once(&format!(
            "{what}: a fact of rcpps, and the backend in use ({}) does not seed with it",
            backend.name()
        ));
        return false;
    }
    has_amd_rcp_table(what)
}

fn one(kernel: Kernel, a: f32, b: f32) -> f32 {
    let mut out = [0.0f32];
    div_with(kernel, &[a], &[b], &mut out).unwrap();
    out[0]
}

#[test]
fn known_counterexamples() {
    if !has_kernel() {
        eprintln!("skipped: no AVX2+FMA");
        return;
    }
    // A single Newton step: 0x1.00005ep+0 / 0x1.e65e58p+0 = 0x1.0d7e1ep-1, not ...1cp-1.
    let a = f32::from_bits(0x3f80_002f);
    let b = f32::from_bits(0x3ff3_2f2c);
    assert_eq!((a / b).to_bits(), 0x3f06_bf0f);
    assert_eq!(one(Kernel::Shipped, a, b).to_bits(), 0x3f06_bf0f);
    if on_amd_rcpps("the Newton step's known counterexample on this CPU") {
        assert_eq!(one(Kernel::Newton, a, b).to_bits(), 0x3f06_bf0e);
    }

    // The published algorithm without the near-all-ones fix: 1.0 / 0x1.fffffep-1.
    let b = f32::from_bits(0x3f7f_ffff);
    assert_eq!((1.0f32 / b).to_bits(), 0x3f80_0001);
    assert_eq!(one(Kernel::Shipped, 1.0, b).to_bits(), 0x3f80_0001);
    // Where the seed of 0x1.fffffep+0 is exactly 0.5 (AMD's `rcpps`, Intel's reference
    // `vrcp14ps`), Halley's step lands on a tie and the published algorithm returns 1.0:
    // the check must see it.
    if common::seed_in_use(fmadiv::EntryPoint::Div, f32::from_bits(0x3fff_ffff)) == 0.5 {
        assert_eq!(one(Kernel::Published, 1.0, b).to_bits(), 0x3f80_0000);
    }
}

#[test]
fn mantissa_rows_catch_the_newton_step_and_pass_the_shipped_kernel() {
    if !has_kernel() {
        eprintln!("skipped: no AVX2+FMA");
        return;
    }
    // Dividend mantissas [0, 96) × all 2^23 divisor mantissas: 805 million pairs.
    let rows = 0..96;
    let (pairs, shipped, first) = mantissa_rows(rows.clone(), |a, b, o| {
        div_with(Kernel::Shipped, a, b, o).unwrap()
    });
    assert_eq!(pairs, 96 << 23);
    assert_eq!(shipped, 0, "shipped kernel wrong: {first:?}");

    let (_, newton, first) =
        mantissa_rows(rows, |a, b, o| div_with(Kernel::Newton, a, b, o).unwrap());
    eprintln!("newton: {newton} mismatches, first {first:?}");
    if on_amd_rcpps("the Newton step caught in 96 mantissa rows on this CPU") {
        assert!(newton > 0, "the Newton variant must be caught");
    }
}
