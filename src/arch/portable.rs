//! The portable path: the same bits as x86's `divps` on any CPU.
//!
//! Finite and infinite results of `a / b` are fixed by IEEE-754 on every platform; only
//! NaN results differ between architectures (and are unspecified in Rust). They are made
//! explicit here with x86's rule: the first NaN operand, quieted; otherwise the negative
//! default NaN. On x86-64 without AVX2 the divisions run four at a time on SSE's `divps`
//! (baseline on x86-64, through `safe_arch`).

use crate::bits::{ABS_MASK, INFINITY_BITS, QUIET_NAN_BIT, X86_DEFAULT_NAN_BITS};
#[cfg(any(not(fmadiv_x86), feature = "verify", test))]
use crate::direction::Rounding;

/// Whether `x` is a NaN, by its bits: a float compare of a subnormal `x` would raise the
/// denormal-operand flag, which `/` does not raise beside a NaN operand.
#[inline]
fn is_nan(x: f32) -> bool {
    x.to_bits() & ABS_MASK > INFINITY_BITS
}

/// The NaN x86 returns for `a / b` when the result is NaN.
#[inline]
fn x86_nan(a: f32, b: f32) -> f32 {
    let propagated = if is_nan(a) {
        a
    } else if is_nan(b) {
        b
    } else {
        return f32::from_bits(X86_DEFAULT_NAN_BITS);
    };
    // Signalling NaNs come back quiet, payload and sign kept.
    f32::from_bits(propagated.to_bits() | QUIET_NAN_BIT)
}

/// One quotient with x86's bits.
#[inline]
pub fn div_one(a: f32, b: f32) -> f32 {
    let q = a / b;
    if is_nan(q) { x86_nan(a, b) } else { q }
}

/// `a · r` with x86's NaN bits (`r` is never NaN here): `a / b` when `r` is `b`'s exact
/// reciprocal.
#[inline]
pub fn mul_one(a: f32, r: f32) -> f32 {
    let q = a * r;
    if is_nan(q) { x86_nan(a, r) } else { q }
}

#[cfg(any(not(fmadiv_x86), feature = "verify", test))]
/// `a / b` rounded in direction `mode`, with x86's bits: what `vdivps` returns with MXCSR's
/// rounding field set to `mode` (flush-to-zero and denormals-are-zero off), in software.
///
/// Zeros, infinities and NaNs among the operands give results that are exact in every mode
/// ([`div_one`]'s). For finite nonzero `a` and `b`, with `q = RN64(a/b)` and `c = RN32(q)`:
/// - `q` is a binary32 value only where `a/b` is exact: otherwise `a - c·b` is a nonzero
///   multiple of `ulp(c)·ulp(b)`, which puts `a/b` at least 2^-48 (relative) from every
///   binary32 `c`, farther than `q` lies from `a/b` (2^-53);
/// - no binary32 value lies strictly between `a/b` and `q` (`q` is the binary64 value
///   nearest `a/b`, and every binary32 value is a binary64 value).
///
/// So `a/b` lies on the side of `c` that `q` does, and no farther than `c`'s neighbour
/// there: the directed rounding is `c`, or that neighbour where `q` lies on the wrong side
/// of `c` — overflow to the largest finite value, underflow to the smallest subnormal and
/// the signs of zero results included.
pub fn div_rounded_one(a: f32, b: f32, mode: Rounding) -> f32 {
    let exact_in_every_mode = !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0;
    if mode == Rounding::Nearest || exact_in_every_mode {
        return div_one(a, b);
    }
    let q = f64::from(a) / f64::from(b);
    let c = q as f32;
    let (down, up) = (f64::from(c) > q, f64::from(c) < q);
    let toward_negative = match mode {
        Rounding::Down => true,
        Rounding::Up => false,
        _ => q > 0.0,
    };
    if toward_negative && down {
        step_down(c)
    } else if !toward_negative && up {
        step_up(c)
    } else {
        c
    }
}

#[cfg(any(not(fmadiv_x86), feature = "verify", test))]
/// The next binary32 value toward −∞ (from a zero, the smallest negative subnormal).
fn step_down(c: f32) -> f32 {
    let bits = c.to_bits();
    f32::from_bits(match bits {
        0 => 0x8000_0001,
        b if b >> 31 == 0 => b - 1,
        b => b + 1,
    })
}

#[cfg(any(not(fmadiv_x86), feature = "verify", test))]
/// The next binary32 value toward +∞ (from a zero, the smallest positive subnormal).
fn step_up(c: f32) -> f32 {
    let bits = c.to_bits();
    f32::from_bits(match bits {
        0x8000_0000 => 1,
        b if b >> 31 == 0 => b + 1,
        b => b - 1,
    })
}

/// `out[i] = a[i] / b[i]` with x86's bits. The lengths must be equal.
pub fn div_slices(a: &[f32], b: &[f32], out: &mut [f32]) {
    assert!(a.len() == b.len() && b.len() == out.len());
    #[cfg(fmadiv_x86)]
    {
        use safe_arch::div_m128;
        let mut oc = out.chunks_exact_mut(4);
        for ((ac, bc), o) in a.chunks_exact(4).zip(b.chunks_exact(4)).zip(&mut oc) {
            let va = safe_arch::m128::from([ac[0], ac[1], ac[2], ac[3]]);
            let vb = safe_arch::m128::from([bc[0], bc[1], bc[2], bc[3]]);
            o.copy_from_slice(&div_m128(va, vb).to_array());
            // A NaN result has NaN operands or is 0/0, inf/inf: fix its bits explicitly.
            // Told by the bits: a float compare of a subnormal quotient would raise the
            // denormal-operand flag.
            if o.iter().any(|&q| is_nan(q)) {
                for ((o, &x), &y) in o.iter_mut().zip(ac).zip(bc) {
                    *o = div_one(x, y);
                }
            }
        }
        let done = a.len() - a.len() % 4;
        for ((o, &x), &y) in out[done..].iter_mut().zip(&a[done..]).zip(&b[done..]) {
            *o = div_one(x, y);
        }
    }
    #[cfg(not(fmadiv_x86))]
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = div_one(x, y);
    }
}

/// `a[i] = a[i] / b[i]` with x86's bits. The lengths must be equal.
pub fn div_in_place(a: &mut [f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (x, &y) in a.iter_mut().zip(b) {
        *x = div_one(*x, y);
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) with x86's bits, on raw pointers:
/// the portable schedule of the slice functions.
///
/// # Safety
/// `a` (unless `RECIP`) and `b` valid for reads and `out` for writes of `len` floats; `out`
/// either disjoint from `a` and `b`, or exactly `a`, or with `RECIP` exactly `b`.
pub unsafe fn div_raw<const RECIP: bool>(a: *const f32, b: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees: out is writable for len floats.
    let out = unsafe { core::slice::from_raw_parts_mut(out, len) };
    if RECIP && core::ptr::eq(b, out.as_ptr()) {
        // In place: the output is the divisors, read through it alone.
        for o in out.iter_mut() {
            *o = div_one(1.0, *o);
        }
        return;
    }
    // SAFETY: the caller's guarantees: b is readable for len floats and, not the output's
    // address, disjoint from it.
    let b = unsafe { core::slice::from_raw_parts(b, len) };
    if RECIP {
        for (o, &y) in out.iter_mut().zip(b) {
            *o = div_one(1.0, y);
        }
    } else if core::ptr::eq(a, out.as_ptr()) {
        div_in_place(out, b);
    } else {
        // SAFETY: a is readable for len floats and disjoint from out (the caller's
        // guarantee, and not the same address).
        div_slices(unsafe { core::slice::from_raw_parts(a, len) }, b, out);
    }
}

#[cfg(test)]
mod tests {
    //! Small enough for Miri: `cargo +nightly miri test --lib --no-default-features`.

    use super::*;

    /// Every pair of a few edge values: both zeros, subnormals, the smallest normal, one,
    /// the largest finite, infinities, quiet and signalling NaNs with payloads and signs.
    /// (The whole edge table is the verification crate's, which unit tests cannot use.)
    fn edge_pairs() -> (Vec<f32>, Vec<f32>) {
        let values = [
            0x0000_0000u32,
            0x8000_0000,
            0x0000_0001,
            0x807f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0xbf80_0001,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            0xff80_4321,
        ]
        .map(f32::from_bits);
        let a = values.iter().flat_map(|&x| values.map(|_| x)).collect();
        let b = values.iter().flat_map(|_| values).collect();
        (a, b)
    }

    /// x86's NaN rule written out independently of `x86_nan`.
    fn expected(a: f32, b: f32) -> u32 {
        match (a.is_nan(), b.is_nan()) {
            (true, _) => a.to_bits() | 0x0040_0000,
            (false, true) => b.to_bits() | 0x0040_0000,
            _ => {
                let q = a / b;
                if q.is_nan() { 0xffc0_0000 } else { q.to_bits() }
            }
        }
    }

    #[test]
    fn every_edge_pair_has_x86_bits() {
        let (a, b) = edge_pairs();
        let mut out = vec![0.0f32; a.len()];
        div_slices(&a, &b, &mut out);
        for i in 0..a.len() {
            assert_eq!(
                out[i].to_bits(),
                expected(a[i], b[i]),
                "{:e} / {:e}",
                a[i],
                b[i]
            );
            assert_eq!(div_one(a[i], b[i]).to_bits(), expected(a[i], b[i]));
        }
        let mut inplace = a.clone();
        div_in_place(&mut inplace, &b);
        assert!(
            inplace
                .iter()
                .zip(&out)
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
    }

    /// The raw loop's reciprocals into another slice and in place (the output the divisors'
    /// own address, read through it alone: what Miri checks).
    #[test]
    fn raw_reciprocals_in_place_and_not_have_x86_bits() {
        let (_, b) = edge_pairs();
        let mut out = vec![0.0f32; b.len()];
        // SAFETY: b readable and out writable for b.len() floats, disjoint; `a` unread.
        unsafe { div_raw::<true>(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), b.len()) };
        let mut inplace = b.clone();
        let p = inplace.as_mut_ptr();
        // SAFETY: inplace readable and writable for its length, the output exactly the
        // divisors, which the loop allows for reciprocals.
        unsafe { div_raw::<true>(core::ptr::null(), p, p, b.len()) };
        for (i, &y) in b.iter().enumerate() {
            assert_eq!(out[i].to_bits(), expected(1.0, y), "1 / {y:e}");
            assert_eq!(inplace[i].to_bits(), expected(1.0, y), "1 / {y:e} in place");
        }
    }
}
