//! The `Divisor`'s unit tests: its in-place sequence, and every public slice function
//! against the portable path.

#[cfg(fmadiv_x86)]
mod x86 {
    use super::super::*;

    /// The proven sequence in place, whatever the plan says, for every strategy, at lengths
    /// around the flag-checked chunk (4096), over normal dividends with specials in every
    /// chunk: a flag-checked loop run in place would redo a voided chunk from quotients
    /// instead of dividends, which this catches.
    #[test]
    fn the_proven_sequence_in_place_gives_the_bits_of_the_divider() {
        let Some(k) = crate::dispatch::avx2_fma() else {
            eprintln!("SKIPPED on this CPU: the proven in-place sequence (needs AVX2+FMA)");
            return;
        };
        const CHUNK: usize = 4096;
        let len = 3 * CHUNK + 77;
        let a: Vec<f32> = (0..len)
            .map(|i| match i % CHUNK {
                1000 => f32::INFINITY,
                2000 => 0.0,
                j => 1.0 + (i as f32) * 0.37 + (j as f32) * 1e-3,
            })
            .collect();
        let mut strategies = Vec::new();
        for b in [3.0f32, 1.1, 0.1, 3.7, 1.0 / 3.0, 4.0, 1e-30] {
            let p = Proven::new(b);
            strategies.push(p.strategy);
            for n in [8, 511, 512, CHUNK, CHUNK + 1, len] {
                let mut x = a[..n].to_vec();
                // SAFETY: AVX2+FMA (`k`); x is readable and writable for n floats.
                unsafe { x86::divide_raw_in_place(k, &p, x.as_mut_ptr(), n) };
                for (i, (&q, &a)) in x.iter().zip(&a).enumerate() {
                    assert_eq!(
                        q.to_bits(),
                        (a / b).to_bits(),
                        "{a:e} / {b:e} at {i} of {n}"
                    );
                }
            }
        }
        assert!(
            strategies.contains(&Strategy::TwoProducts),
            "{strategies:?}"
        );
    }
}

mod portable_agreement {
    //! Every public slice function against the portable path (small enough for Miri:
    //! `cargo +nightly miri test --lib --no-default-features`).

    #[test]
    fn public_functions_agree_with_the_portable_path() {
        // The portable path is checked against x86's rule in its own tests. Under Miri (no
        // AVX2 detected) these run the portable path themselves. The operands
        // are constants the optimiser sees through the inlined short-slice loops: this test
        // fails (a signalling NaN left unquieted by a compile-time fold) if those loops do
        // not hide their divisor.
        let a = [
            1.0f32,
            -0.0,
            f32::INFINITY,
            f32::from_bits(0x7f80_0001),
            3.0,
            1e-40,
            7.0,
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
