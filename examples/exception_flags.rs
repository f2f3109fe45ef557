//! Which MXCSR exception flags each entry point leaves, beside what `/` leaves.
//!
//! `cargo run --release --example exception_flags`
//!
//! The crate promises the bits of `/`, not its sticky flags. This prints, for a few inputs
//! that tell the paths apart, the flags (MXCSR bits 0–5: IE DE ZE OE UE PE) after each call
//! made with the flags clear: `div` over 4096 pairs with one such pair among normal ones,
//! `Divisor::divide_slice` and `divide_in_place` over 4096 dividends, the scalar
//! `Divisor::divide` and `divide_f32x8`, each next to `/` over the same data. Every
//! quotient's bits are checked against `/` on the way.

mod common;

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::hint::black_box;

    use common::flags_of;

    const N: usize = 4096;
    /// The lane of the telling pair.
    const AT: usize = 100;

    fn check(a: &[f32], b: &[f32], out: &[f32]) {
        for ((x, y), q) in a.iter().zip(b).zip(out) {
            assert_eq!(q.to_bits(), (x / y).to_bits(), "{x:e} / {y:e}");
        }
    }

    println!(
        "exception flags after one call, flags clear before ({})",
        common::cpu()
    );
    println!(
        "backend {}; plan: {}",
        fmadiv::backend().name(),
        fmadiv::plan()
    );
    println!(
        "| a / b | div | `/` | divide_slice | divide_in_place | `/` | divide | divide_f32x8 | `/` |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let cases: [(&str, f32, f32); 6] = [
        ("inf / 3", f32::INFINITY, 3.0),
        ("1e-7 / 1e30", 1e-7, 1e30),
        ("6 / 3", 6.0, 3.0),
        ("1e38 / 1e-3", 1e38, 1e-3),
        ("1e-40 / 1e-5", 1e-40, 1e-5),
        ("NaN / 3", f32::NAN, 3.0),
    ];
    for (name, x, y) in cases {
        // `div`: exact multiples of 3 over 3, the telling pair at AT.
        let mut a: Vec<f32> = (0..N).map(|i| 6.0 + (i % 7) as f32 * 3.0).collect();
        let mut b = vec![3.0f32; N];
        (a[AT], b[AT]) = (x, y);
        let mut out = vec![0.0f32; N];
        let div = flags_of(|| fmadiv::div(black_box(&a), black_box(&b), &mut out));
        check(&a, &b, &out);
        let plain = flags_of(|| {
            for i in 0..N {
                out[i] = black_box(a[i]) / black_box(b[i]);
            }
        });
        // The `Divisor` of y: exact multiples of y, the telling dividend at AT.
        let d = fmadiv::Divisor::new(y);
        let mut s: Vec<f32> = (0..N).map(|i| (2 + i % 7) as f32 * y).collect();
        s[AT] = x;
        let ys = vec![y; N];
        d.divide_slice(&s, &mut out); // a first slice may make the proof
        let slice = flags_of(|| d.divide_slice(black_box(&s), &mut out));
        check(&s, &ys, &out);
        let mut in_place = s.clone();
        let place = flags_of(|| d.divide_in_place(black_box(&mut in_place)));
        check(&s, &ys, &in_place);
        let plain_d = flags_of(|| {
            for i in 0..N {
                out[i] = black_box(s[i]) / black_box(y);
            }
        });
        let mut q = 0.0f32;
        let one = flags_of(|| q = d.divide(black_box(x)));
        check(&[x], &[y], &[q]);
        let mut v = wide::f32x8::splat(0.0);
        let eight = flags_of(|| v = d.divide_f32x8(black_box(wide::f32x8::splat(x))));
        check(&[x; 8], &[y; 8], &v.to_array());
        let plain_1 = flags_of(|| q = black_box(x) / black_box(y));
        println!(
            "| {name} ({:?}) | {div:#04x} | {plain:#04x} | {slice:#04x} | {place:#04x} | {plain_d:#04x} | {one:#04x} | {eight:#04x} | {plain_1:#04x} |",
            d.strategy()
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("MXCSR is x86's: nothing to show here");
}
