//! The divider baselines at this CPU's widest vectors. A user compares `fmadiv` with what
//! their own `o[i] = a[i] / b[i]` compiles to with `-C target-cpu=native`: where AVX-512F
//! exists, a 512-bit `vdivps` loop. So wherever it exists the floors, the schedules and the
//! throughput table compare with these 512-bit loops (their names say `_mm512`), and the
//! table shows the 256-bit loop and a plain Rust loop compiled for AVX-512F beside them;
//! elsewhere every baseline is the 256-bit loop of [`methods`], as before. The per-row
//! baselines stay 256-bit (row lengths of 256–4096, where both widths run whole vectors).

use crate::methods::{self, Kind, Method};

/// Whether this CPU has AVX-512F (the standard library's detection: the tooling's, not the
/// library's own).
pub fn has_avx512f() -> bool {
    #[cfg(target_arch = "x86_64")]
    return is_x86_feature_detected!("avx512f");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A plain `_mm512_div_ps` loop, masked tail: what a native build of `o[i] = a[i] / b[i]`
/// runs on an AVX-512 CPU.
pub const HARDWARE: Method = Method {
    kind: Kind::Pairwise,
    name: "_mm512_div_ps loop",
    exact: true,
    available: has_avx512f,
    run: |a, b, out| zmm::divide(Some(a), b, out, None),
};

/// The 512-bit loop in place, on a copy of the dividends (as `methods::HARDWARE_IN_PLACE`).
pub const HARDWARE_IN_PLACE: Method = Method {
    kind: Kind::Pairwise,
    name: "_mm512_div_ps in place (+copy)",
    exact: true,
    available: has_avx512f,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        zmm::divide_in_place(out, b);
    },
};

/// `x[i] /= b[i]` by the widest plain divider loop in place (512-bit, else 256-bit), with
/// no copy: for harnesses that keep their dividends in range themselves. Panics if the
/// lengths differ.
pub fn divide_in_place(x: &mut [f32], b: &[f32]) {
    assert_eq!(x.len(), b.len(), "widest::divide_in_place: length mismatch");
    match has_avx512f() {
        true => zmm::divide_in_place(x, b),
        false => methods::hardware_in_place::<false>(x, b),
    }
}

/// The 512-bit loop computing `1 / x[i]` in place, on a copy of the divisors (as
/// `methods::HARDWARE_RECIP_IN_PLACE`).
pub const HARDWARE_RECIP_IN_PLACE: Method = Method {
    kind: Kind::Reciprocal,
    name: "_mm512_div_ps 1/b in place (+copy)",
    exact: true,
    available: has_avx512f,
    run: |_, b, out| {
        crate::samples::restore(out, b);
        zmm::recip_in_place(out);
    },
};

/// The 512-bit loop computing `1 / b[i]`.
pub const HARDWARE_RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "_mm512_div_ps 1/b",
    exact: true,
    available: has_avx512f,
    run: |_, b, out| zmm::divide(None, b, out, None),
};

/// The 512-bit loop by one broadcast divisor.
pub const HARDWARE_BY_SCALAR: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm512_div_ps by scalar",
    exact: true,
    available: has_avx512f,
    run: |a, b, out| zmm::divide(Some(a), &[], out, Some(b[0])),
};

/// The 512-bit loop by a divisor held as `methods::DIVISOR` holds its `Divisor`.
pub const HARDWARE_BY_HELD: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm512_div_ps by a held scalar",
    exact: true,
    available: has_avx512f,
    run: |a, b, out| {
        methods::with_cached_divisor(b[0], |d| zmm::divide(Some(a), &[], out, Some(d.divisor())))
    },
};

/// The 512-bit loop by a held divisor, in place, on a copy of the dividends.
pub const HARDWARE_BY_HELD_IN_PLACE: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm512_div_ps by a held scalar in place (+copy)",
    exact: true,
    available: has_avx512f,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        methods::with_cached_divisor(b[0], |d| zmm::divide_by_in_place(out, d.divisor()));
    },
};

/// `o[i] = a[i] / b[i]` in plain Rust, compiled for AVX-512F: the loop a user's native
/// build writes, as the compiler vectorises it.
pub const PLAIN: Method = Method {
    kind: Kind::Pairwise,
    name: "a[i] / b[i], avx512f build",
    exact: true,
    available: has_avx512f,
    run: zmm::plain,
};

/// Not a division: `out[i] = a[i] * b[i]`, plain Rust compiled for AVX-512F (as
/// `methods::PLAIN_MULTIPLY`): the ceiling of every division loop at a length.
pub const PLAIN_MULTIPLY: Method = Method {
    kind: Kind::Pairwise,
    name: "a[i] * b[i], avx512f build (ref)",
    exact: false,
    available: has_avx512f,
    run: |a, b, out| zmm::plain_multiply(Some(a), b, out),
};

/// Not a reciprocal: `out[i] = b[i] * b[i]`, plain Rust compiled for AVX-512F (as
/// `methods::PLAIN_MULTIPLY_RECIP`).
pub const PLAIN_MULTIPLY_RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "b[i] * b[i], avx512f build (ref)",
    exact: false,
    available: has_avx512f,
    run: |_, b, out| zmm::plain_multiply(None, b, out),
};

/// `m`'s 512-bit twin where this CPU has AVX-512F (for the 256-bit divider baselines of
/// [`methods`]), else `m` itself.
pub fn widest(m: Method) -> Method {
    if !has_avx512f() {
        return m;
    }
    let twins = [
        (methods::HARDWARE, HARDWARE),
        (methods::HARDWARE_IN_PLACE, HARDWARE_IN_PLACE),
        (methods::HARDWARE_RECIP, HARDWARE_RECIP),
        (methods::HARDWARE_RECIP_IN_PLACE, HARDWARE_RECIP_IN_PLACE),
        (methods::PLAIN_MULTIPLY, PLAIN_MULTIPLY),
        (methods::PLAIN_MULTIPLY_RECIP, PLAIN_MULTIPLY_RECIP),
        (methods::HARDWARE_BY_SCALAR, HARDWARE_BY_SCALAR),
        (methods::HARDWARE_BY_HELD, HARDWARE_BY_HELD),
        (
            methods::HARDWARE_BY_HELD_IN_PLACE,
            HARDWARE_BY_HELD_IN_PLACE,
        ),
    ];
    twins
        .into_iter()
        .find(|(narrow, _)| narrow.name == m.name)
        .map_or(m, |(_, wide)| wide)
}

/// `out[i] = a[i] / b[i]` by the widest divider loop this CPU has (512-bit, 256-bit, else
/// the scalar loop): the tests' reference, the IEEE quotient of every lane under the MXCSR
/// in force whatever the width. Wide because on Intel a subnormal operand costs a microcode
/// assist per instruction, not per lane: 33 ns per scalar division on family 6 model 0xa7
/// against 2.9 ns per lane at 512 bits (`examples/reference_width.rs`,
/// `docs/bench/0x6-0xa7-reference-width.txt`). Panics if the lengths differ.
pub fn quotients(a: &[f32], b: &[f32], out: &mut [f32]) {
    assert!(a.len() == out.len() && b.len() == out.len());
    let widest_loop = [widest(methods::HARDWARE), methods::SCALAR]
        .into_iter()
        .find(|m| (m.available)())
        .expect("the scalar loop runs everywhere");
    (widest_loop.run)(a, b, out)
}

/// [`methods::FLOORS`] with each baseline at the widest vectors.
pub fn floors() -> Vec<(Method, Method)> {
    methods::FLOORS
        .iter()
        .map(|&(m, baseline)| (m, widest(baseline)))
        .collect()
}

/// The throughput table's methods, the widest divider loop first (every ratio's baseline),
/// then `methods::ALL`'s others; where AVX-512F exists, also the 256-bit loop and [`PLAIN`].
pub fn all() -> Vec<Method> {
    let baseline = widest(methods::HARDWARE);
    let mut all = vec![baseline];
    all.extend(
        methods::ALL
            .iter()
            .copied()
            .filter(|m| m.name != methods::HARDWARE.name),
    );
    if baseline.name != methods::HARDWARE.name {
        all.extend([methods::HARDWARE, PLAIN]);
    }
    all
}

#[cfg(target_arch = "x86_64")]
mod zmm {
    use core::arch::x86_64::*;

    /// `out[i] = a[i] / b[i]` (`b` empty: by `by`), or `1 / b[i]` without `a`, by
    /// `_mm512_div_ps`, the tail masked. Panics if the lengths do not match.
    pub fn divide(a: Option<&[f32]>, b: &[f32], out: &mut [f32], by: Option<f32>) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        let n = out.len();
        assert!(a.is_none_or(|a| a.len() == n) && (by.is_some() || b.len() == n));
        // SAFETY: AVX-512F is present (asserted); every access below is inside the slices.
        unsafe { run(a, b, out, by) }
    }

    #[target_feature(enable = "avx512f")]
    fn run(a: Option<&[f32]>, b: &[f32], out: &mut [f32], by: Option<f32>) {
        let n = out.len();
        let one = _mm512_set1_ps(1.0);
        let mut i = 0;
        while i < n {
            // The lanes inside the slices: all 16, or the tail's.
            let lanes = (n - i).min(16);
            let m: __mmask16 = ((1u32 << lanes) - 1) as __mmask16;
            // SAFETY: masked loads and stores touch only the `lanes` elements from i, inside
            // every slice (lengths checked by `divide`).
            unsafe {
                let x = match a {
                    Some(a) => _mm512_maskz_loadu_ps(m, a.as_ptr().add(i)),
                    None => one,
                };
                let y = match by {
                    Some(d) => _mm512_set1_ps(d),
                    None => _mm512_maskz_loadu_ps(m, b.as_ptr().add(i)),
                };
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), m, _mm512_div_ps(x, y));
            }
            i += lanes;
        }
    }

    /// `x[i] /= b[i]` by `_mm512_div_ps`.
    pub fn divide_in_place(x: &mut [f32], b: &[f32]) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        assert_eq!(x.len(), b.len());
        // SAFETY: AVX-512F is present (asserted).
        unsafe { in_place::<false>(x, Some(b), 0.0) }
    }

    /// `x[i] /= d` by `_mm512_div_ps`.
    pub fn divide_by_in_place(x: &mut [f32], d: f32) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        // SAFETY: AVX-512F is present (asserted).
        unsafe { in_place::<false>(x, None, d) }
    }

    /// `x[i] = 1 / x[i]` by `_mm512_div_ps`.
    pub fn recip_in_place(x: &mut [f32]) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        // SAFETY: AVX-512F is present (asserted).
        unsafe { in_place::<true>(x, None, 0.0) }
    }

    /// `x[i] /= b[i]` (`b` given), `x[i] /= d`, or with `RECIP` `x[i] = 1 / x[i]`.
    #[target_feature(enable = "avx512f")]
    fn in_place<const RECIP: bool>(x: &mut [f32], b: Option<&[f32]>, d: f32) {
        let n = x.len();
        let one = _mm512_set1_ps(1.0);
        let mut i = 0;
        while i < n {
            let lanes = (n - i).min(16);
            let m: __mmask16 = ((1u32 << lanes) - 1) as __mmask16;
            // SAFETY: masked accesses to the `lanes` elements from i, inside both slices;
            // each vector is loaded before it is stored.
            unsafe {
                let p = x.as_mut_ptr().add(i);
                let v = _mm512_maskz_loadu_ps(m, p);
                let q = match (RECIP, b) {
                    (true, _) => _mm512_div_ps(one, v),
                    (false, Some(b)) => {
                        _mm512_div_ps(v, _mm512_maskz_loadu_ps(m, b.as_ptr().add(i)))
                    }
                    (false, None) => _mm512_div_ps(v, _mm512_set1_ps(d)),
                };
                _mm512_mask_storeu_ps(p, m, q);
            }
            i += lanes;
        }
    }

    /// `out[i] = a[i] * b[i]`, or without `a` `b[i] * b[i]`, plain Rust compiled for
    /// AVX-512F.
    pub fn plain_multiply(a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        #[target_feature(enable = "avx512f")]
        fn run(a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
            crate::methods::multiply(a, b, out)
        }
        // SAFETY: AVX-512F is present (asserted).
        unsafe { run(a, b, out) }
    }

    /// `out[i] = a[i] / b[i]`, plain Rust compiled for AVX-512F.
    pub fn plain(a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(super::has_avx512f(), "the 512-bit loops need AVX-512F");
        #[target_feature(enable = "avx512f")]
        fn run(a: &[f32], b: &[f32], out: &mut [f32]) {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = x / y;
            }
        }
        // SAFETY: AVX-512F is present (asserted).
        unsafe { run(a, b, out) }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod zmm {
    pub fn divide(_: Option<&[f32]>, _: &[f32], _: &mut [f32], _: Option<f32>) {
        unreachable!("no AVX-512F off x86-64")
    }
    pub fn divide_in_place(_: &mut [f32], _: &[f32]) {
        unreachable!("no AVX-512F off x86-64")
    }
    pub fn divide_by_in_place(_: &mut [f32], _: f32) {
        unreachable!("no AVX-512F off x86-64")
    }
    pub fn recip_in_place(_: &mut [f32]) {
        unreachable!("no AVX-512F off x86-64")
    }
    pub fn plain(_: &[f32], _: &[f32], _: &mut [f32]) {
        unreachable!("no AVX-512F off x86-64")
    }
    pub fn plain_multiply(_: Option<&[f32]>, _: &[f32], _: &mut [f32]) {
        unreachable!("no AVX-512F off x86-64")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ceiling loops at both widths compute the products they stand for, whole vectors
    /// and every tail: a loop that computed something else (or nothing) would time the wrong
    /// memory traffic.
    #[test]
    fn the_ceiling_loops_compute_their_products_at_every_length() {
        let loops = [
            methods::PLAIN_MULTIPLY,
            methods::PLAIN_MULTIPLY_RECIP,
            PLAIN_MULTIPLY,
            PLAIN_MULTIPLY_RECIP,
        ];
        let mut random = crate::samples::SplitMix64(7);
        for m in loops.iter().filter(|m| (m.available)()) {
            for n in 0..=70 {
                let a: Vec<f32> = (0..n).map(|_| random.next_normal()).collect();
                let b: Vec<f32> = (0..n).map(|_| random.next_normal()).collect();
                let mut out = vec![f32::NAN; n];
                (m.run)(&a, &b, &mut out);
                for i in 0..n {
                    let want = match m.kind {
                        Kind::Reciprocal => b[i] * b[i],
                        _ => a[i] * b[i],
                    };
                    assert_eq!(out[i].to_bits(), want.to_bits(), "{} at {i} of {n}", m.name);
                }
            }
        }
    }
}
