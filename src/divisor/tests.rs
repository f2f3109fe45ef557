//! The `Divisor`'s unit tests: every public slice function against the portable path (its
//! sequences in place on every backend: `tests/backends.rs`).

mod portable_agreement {
    //! Every public slice function against the portable path (small enough for Miri:
    //! `cargo +nightly miri test --lib --no-default-features`).

    #[test]
    fn public_functions_agree_with_the_portable_path() {
        // The portable path is checked against x86's rule in its own tests. Under Miri (no
        // AVX2 detected) these run the portable path themselves. The operands are constants,
        // signalling NaNs among them in the short loops' vector lanes and in their scalar
        // tail: a division the compiler folds gives other NaN bits (with rustc 1.95, LLVM 22,
        // a constant `sNaN / 3.0` folds to the payload-less quiet NaN where `divss` keeps the
        // payload). This test caught such a fold when `Divisor::divide_slice` was inlined
        // whole; the short loops have hidden their divisor since. With rustc 1.95 no entry
        // point is inlined that far, here or into a caller's crate: with the hiding taken
        // out, this test and the same calls from an integration test gave the right bits.
        let a = [
            1.0f32,
            -0.0,
            f32::INFINITY,
            f32::from_bits(0x7f80_0001),
            3.0,
            1e-40,
            f32::from_bits(0x7f80_0005),
        ];
        let b = [
            3.0f32,
            5.0,
            -2.0,
            1.0,
            f32::from_bits(0x3f7f_ffff),
            0.5,
            0.0,
        ];
        let mut out = [0.0f32; 7];
        crate::div(&a, &b, &mut out);
        for i in 0..a.len() {
            assert_eq!(
                out[i].to_bits(),
                crate::arch::portable::div_one(a[i], b[i]).to_bits()
            );
        }
        let d = crate::Divisor::new(3.0);
        d.divide_slice(&a, &mut out);
        for i in 0..a.len() {
            assert_eq!(
                out[i].to_bits(),
                crate::arch::portable::div_one(a[i], 3.0).to_bits()
            );
        }
        crate::recip(&b, &mut out);
        for i in 0..b.len() {
            assert_eq!(
                out[i].to_bits(),
                crate::arch::portable::div_one(1.0, b[i]).to_bits()
            );
        }
    }
}
