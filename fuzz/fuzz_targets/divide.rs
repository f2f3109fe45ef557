//! Compares every division entry point of fmadiv with `/` on arbitrary bytes: values
//! (any bit patterns), lengths and offsets.
//!
//! Input layout: byte 0 and 1 are the offsets of the dividends and divisors (mod 8),
//! byte 2 picks a divisor for `Divisor`, the rest are little-endian f32s, split in half.

#![no_main]

use libfuzzer_sys::fuzz_target;

fn check(what: &str, a: &[f32], b: &[f32], got: &[f32], want: impl Fn(f32, f32) -> f32) {
    for i in 0..got.len() {
        let w = want(a[i], b[i % b.len()]);
        assert_eq!(
            got[i].to_bits(),
            w.to_bits(),
            "{what}: {:#010x} / {:#010x}",
            a[i].to_bits(),
            b[i % b.len()].to_bits()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (off_a, off_b, pick) = (data[0] as usize % 8, data[1] as usize % 8, data[2] as usize);
    let floats: Vec<f32> =
        data[3..].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let half = floats.len() / 2;
    // Offsets past the data leave empty slices at the start.
    let (off_a, off_b) = if off_a.max(off_b) < half { (off_a, off_b) } else { (0, 0) };
    let len = half - off_a.max(off_b);
    let a = &floats[off_a..off_a + len];
    let b = &floats[half + off_b..half + off_b + len];
    let div = |x: f32, y: f32| x / y;

    let mut out = vec![0.0f32; len];
    fmadiv::div(a, b, &mut out);
    check("div", a, b, &out, div);

    let mut out2 = vec![f32::from_bits(0x7fc0_dead); len + 1];
    assert!(fmadiv::try_div(a, b, &mut out2).is_err());
    assert!(out2.iter().all(|x| x.to_bits() == 0x7fc0_dead), "try_div wrote on error");
    fmadiv::try_div(a, b, &mut out2[..len]).unwrap();
    check("try_div", a, b, &out2[..len], div);

    let mut inplace = floats.clone();
    fmadiv::div_in_place(&mut inplace[off_a..off_a + len], b);
    check("div_in_place", a, b, &inplace[off_a..off_a + len], div);

    fmadiv::par_div(a, b, &mut out);
    check("par_div", a, b, &out, div);

    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let q = fmadiv::div_f32x8(
            wide::f32x8::new(x.try_into().unwrap()),
            wide::f32x8::new(y.try_into().unwrap()),
        );
        check("div_f32x8", x, y, &q.to_array(), div);
    }

    if !b.is_empty() {
        let y = b[pick % b.len()];
        let d = fmadiv::Divisor::new(y);
        d.divide_slice(a, &mut out);
        check("Divisor::divide_slice", a, &[y], &out, div);
        for &x in a {
            assert_eq!(d.divide(x).to_bits(), (x / y).to_bits(), "Divisor::divide {x:e} / {y:e}");
        }
    }

    fmadiv::recip(b, &mut out);
    check("recip", b, b, &out, |y, _| 1.0 / y);
});
