//! The portable path gives the same bits as the AVX2 kernel and as the hardware.

mod common;

use common::{SplitMix64, assert_quotients, edge_values, seed};
use fmadiv::verify::portable;

#[test]
fn portable_matches_hardware_and_kernel() {
    let mut rng = SplitMix64(seed() ^ 0x9047);
    let edges = edge_values();
    let mut a: Vec<f32> = (0..1 << 20).map(|_| rng.next_f32_bits()).collect();
    let mut b: Vec<f32> = (0..1 << 20).map(|_| rng.next_f32_bits()).collect();
    for (i, &x) in edges.iter().enumerate() {
        for (j, &y) in edges.iter().enumerate() {
            a[i * edges.len() + j] = x;
            b[i * edges.len() + j] = y;
        }
    }
    let mut from_portable = vec![0.0f32; a.len()];
    portable::div_slices(&a, &b, &mut from_portable);
    assert_quotients("portable", &a, &b, &from_portable);

    let mut from_div = vec![0.0f32; a.len()];
    fmadiv::div(&a, &b, &mut from_div);
    for i in 0..a.len() {
        assert_eq!(
            from_portable[i].to_bits(),
            from_div[i].to_bits(),
            "a={:e} b={:e}",
            a[i],
            b[i]
        );
    }

    let mut inplace = a.clone();
    portable::div_in_place(&mut inplace, &b);
    assert_quotients("portable in place", &a, &b, &inplace);
}

#[test]
fn portable_nan_rules() {
    // x86: the first NaN operand, quieted; otherwise the negative default NaN.
    let snan = f32::from_bits(0x7f80_0001);
    let qnan = f32::from_bits(0xffc1_2345);
    assert_eq!(portable::div_one(snan, qnan).to_bits(), 0x7fc0_0001);
    assert_eq!(portable::div_one(1.0, snan).to_bits(), 0x7fc0_0001);
    assert_eq!(portable::div_one(qnan, 2.0).to_bits(), 0xffc1_2345);
    assert_eq!(portable::div_one(0.0, 0.0).to_bits(), 0xffc0_0000);
    assert_eq!(
        portable::div_one(f32::INFINITY, f32::NEG_INFINITY).to_bits(),
        0xffc0_0000
    );
}
