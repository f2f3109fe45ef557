//! Foreign floating-point state: the four flush-to-zero / denormals-are-zero combinations.
//!
//! Libraries built with fast-math set MXCSR's FTZ and DAZ bits. Rust assumes the default
//! environment, so this test keeps the change contained: it sets MXCSR, calls
//! non-inlined functions that do all the arithmetic (the results and the hardware's
//! reference, both under the same flags), restores MXCSR, and only then compares. Every
//! function must give the bits `vdivps` gives under the same flags.
#![cfg(fmadiv_x86)]

mod common;

use std::hint::black_box;

use common::{SplitMix64, edge_pairs};
use fmadiv::methods::{HARDWARE, HARDWARE_BY_SCALAR, HARDWARE_RECIP};

/// Flush-to-zero: tiny results become zero.
const FTZ: u32 = 1 << 15;
/// Denormals-are-zero: subnormal inputs read as zero.
const DAZ: u32 = 1 << 6;

fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr only stores the control register to the given, valid address.
    unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack)) };
    csr
}

fn write_mxcsr(csr: u32) {
    // SAFETY: ldmxcsr loads a valid control word (the default one with FTZ/DAZ bits set or
    // cleared); the test restores the original before returning.
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack)) };
}

/// By one divisor: via a Divisor made under the flags, via div_scalar, via a Divisor made
/// before the flags were set, and the hardware's quotients.
struct ByScalar {
    via_divisor: Vec<f32>,
    via_div_scalar: Vec<f32>,
    via_earlier: Vec<f32>,
    want: Vec<f32>,
}

/// Every result the test compares, computed in one go under the current MXCSR.
struct Results {
    div: Vec<f32>,
    div_f32x8: Vec<f32>,
    reference: Vec<f32>,
    by_scalar: Vec<ByScalar>,
    recip: Vec<f32>,
    recip_reference: Vec<f32>,
}

#[inline(never)]
fn compute(a: &[f32], b: &[f32], divisors: &[f32], made_before: &[fmadiv::Divisor]) -> Results {
    let (a, b) = (black_box(a), black_box(b));
    let n = a.len();
    let mut div = vec![0.0; n];
    fmadiv::div(a, b, &mut div);
    let mut reference = vec![0.0; n];
    (HARDWARE.run)(a, b, &mut reference);
    let mut div_f32x8 = vec![0.0; n];
    for ((o, x), y) in div_f32x8
        .chunks_exact_mut(8)
        .zip(a.chunks_exact(8))
        .zip(b.chunks_exact(8))
    {
        let q = fmadiv::div_f32x8(
            wide::f32x8::new(x.try_into().unwrap()),
            wide::f32x8::new(y.try_into().unwrap()),
        );
        o.copy_from_slice(&q.to_array());
    }
    let by_scalar = divisors
        .iter()
        .zip(made_before)
        .map(|(&y, before)| {
            let mut via_divisor = vec![0.0; n];
            let d = fmadiv::Divisor::new(black_box(y));
            d.divide_slice(a, &mut via_divisor);
            let mut via_div_scalar = vec![0.0; n];
            fmadiv::div_scalar(a, y, &mut via_div_scalar);
            let mut via_earlier = vec![0.0; n];
            before.divide_slice(a, &mut via_earlier);
            let mut want = vec![0.0; n];
            (HARDWARE_BY_SCALAR.run)(a, &[y], &mut want);
            ByScalar {
                via_divisor,
                via_div_scalar,
                via_earlier,
                want,
            }
        })
        .collect();
    let mut recip = vec![0.0; n];
    fmadiv::recip(b, &mut recip);
    let mut recip_reference = vec![0.0; n];
    (HARDWARE_RECIP.run)(a, b, &mut recip_reference);
    Results {
        div,
        div_f32x8,
        reference,
        by_scalar,
        recip,
        recip_reference,
    }
}

fn first_difference(
    what: &str,
    flags: &str,
    a: &[f32],
    b: &[f32],
    got: &[f32],
    want: &[f32],
) -> Option<String> {
    (0..got.len())
        .find(|&i| got[i].to_bits() != want[i].to_bits())
        .map(|i| {
            format!(
                "{what} under {flags}: {:#010x} / {:#010x}: got {:#010x}, hardware {:#010x}",
                a[i].to_bits(),
                b[i % b.len()].to_bits(),
                got[i].to_bits(),
                want[i].to_bits()
            )
        })
}

#[test]
fn same_bits_as_the_hardware_under_every_ftz_daz_combination() {
    if fmadiv::internal::avx2::Avx2Fma::new().is_none() {
        return;
    }
    let (mut a, mut b) = edge_pairs();
    // Plus random bit patterns and pairs whose quotients land near the subnormal range.
    let mut rng = SplitMix64(common::seed());
    for _ in 0..200_000 {
        let r = rng.next_u64();
        a.push(f32::from_bits(r as u32));
        b.push(f32::from_bits((r >> 32) as u32));
        let ea = 1 + (r >> 8) as u32 % 40;
        let eb = 100 + (r >> 16) as u32 % 60;
        a.push(f32::from_bits((r as u32 & 0x807f_ffff) | ea << 23));
        b.push(f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | eb << 23));
    }
    a.truncate(a.len() / 8 * 8);
    b.truncate(a.len());
    let divisors = [
        3.0f32,
        -3.0,
        1.1,
        0.1,
        2f32.powi(127),
        2f32.powi(-126),
        f32::from_bits(0x3f9f_0237),
        1.5e38,
        f32::from_bits(0x00ff_ffff),
        1e-39,
    ];

    // Divisors made in the default environment and used under the flags, too.
    let made_before: Vec<fmadiv::Divisor> =
        divisors.iter().map(|&y| fmadiv::Divisor::new(y)).collect();
    let original = read_mxcsr();
    let mut failures = Vec::new();
    for (flags, bits) in [
        ("default", 0),
        ("FTZ", FTZ),
        ("DAZ", DAZ),
        ("FTZ+DAZ", FTZ | DAZ),
    ] {
        write_mxcsr((original & !(FTZ | DAZ)) | bits);
        let r = compute(&a, &b, &divisors, &made_before);
        write_mxcsr(original);
        failures.extend(first_difference("div", flags, &a, &b, &r.div, &r.reference));
        failures.extend(first_difference(
            "div_f32x8",
            flags,
            &a,
            &b,
            &r.div_f32x8,
            &r.reference,
        ));
        failures.extend(first_difference(
            "recip",
            flags,
            &b,
            &b,
            &r.recip,
            &r.recip_reference,
        ));
        for (&y, by) in divisors.iter().zip(&r.by_scalar) {
            let ByScalar {
                via_divisor,
                via_div_scalar,
                via_earlier,
                want,
            } = by;
            failures.extend(first_difference(
                "Divisor",
                flags,
                &a,
                &[y],
                via_divisor,
                want,
            ));
            failures.extend(first_difference(
                "Divisor made before",
                flags,
                &a,
                &[y],
                via_earlier,
                want,
            ));
            failures.extend(first_difference(
                "div_scalar",
                flags,
                &a,
                &[y],
                via_div_scalar,
                want,
            ));
        }
    }
    assert_eq!(read_mxcsr(), original);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Divides clean and special-laden data by divisors of every zero-sign repair, in a
/// non-inlined function (the flags it leaves are what the caller sees).
#[inline(never)]
fn divide_mixed_data() {
    let mut a: Vec<f32> = (0..10_000).map(|i| 1.0 + i as f32 * 1e-4).collect();
    a[5_000] = f32::NAN;
    a[7_000] = 1e-45;
    a[9_000] = f32::MAX;
    let mut out = vec![0.0; a.len()];
    for y in [3.0f32, -3.0, 1.1, 1e-30] {
        fmadiv::Divisor::new(black_box(y)).divide_slice(black_box(&a), &mut out);
        black_box(&out);
    }
}

#[test]
fn divide_slice_keeps_the_callers_exception_flags() {
    const ALL_FLAGS: u32 = 0x3f;
    let original = read_mxcsr();
    for flags in [0, 1, 1 << 3, 1 << 4, ALL_FLAGS] {
        write_mxcsr((original & !ALL_FLAGS) | flags);
        divide_mixed_data();
        let after = read_mxcsr();
        write_mxcsr(original);
        assert_eq!(
            after & !ALL_FLAGS,
            original & !ALL_FLAGS,
            "control bits changed"
        );
        assert_eq!(
            after & flags,
            flags,
            "flags {flags:#x} set before the call were cleared"
        );
    }
}
