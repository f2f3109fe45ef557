//! The proof behind [`super::Divisor::new`]: which sequence is exact for a divisor (the
//! module docs of `divisor` have the argument), by the modular solver of the two-products
//! candidates.

use super::{Proven, Strategy};
use crate::bits::{MANTISSA_MASK, ONE_BITS, pow2};

/// How the two-products sequence's `zh` rounds `1/b` (module docs, "Which `zh`").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reciprocal {
    /// `zh = RN(1/b)`.
    Nearest,
    /// `zh = RZ(1/b)`: `RN(1/b)`, or its neighbour toward zero where it rounded away.
    TowardZero,
}

impl Reciprocal {
    /// `zh` and `rho = 1 - b·zh` (one FMA, exact).
    #[inline(always)]
    pub(super) fn of(self, b: f32) -> (f32, f32) {
        let zh = 1.0 / b;
        let rho = (-b).mul_add(zh, 1.0);
        // rho < 0 means b·zh > 1, i.e. |zh| > |1/b|: RN rounded away from zero. One less
        // on the pattern is one ulp toward zero for either sign (rho < 0: zh is nonzero).
        if self == Reciprocal::TowardZero && rho < 0.0 {
            let zh = f32::from_bits(zh.to_bits() - 1);
            return (zh, (-b).mul_add(zh, 1.0));
        }
        (zh, rho)
    }
}

/// The proof-carrying choice of [`Divisor::new`](crate::Divisor::new): the strategy, and for two
/// products the rounding of `zh`.
#[inline(always)]
pub(super) fn choose(b: f32) -> (Strategy, Reciprocal) {
    let zh = 1.0 / b;
    // 1/b exact: a single rounding of a·(1/b) is the rounding of a/b, for every a.
    // b and zh must be normal too: denormals-are-zero reads a subnormal one as zero, where
    // the divider divides by zero (b = ±2^-127, whose 1/b = 2^127 is exact) or still
    // divides (zh = ±2^-127 for b = ±2^127).
    if b.is_normal() && zh.is_normal() && (-b).mul_add(zh, 1.0) == 0.0 {
        return (Strategy::Reciprocal, Reciprocal::Nearest);
    }
    // The FMA sequences need normal b with normal 1/b, and a normal tail.
    let abs = b.abs();
    if !(abs >= f32::MIN_POSITIVE && abs < pow2(100)) {
        return (Strategy::Hardware, Reciprocal::Nearest);
    }
    let significand = (b.to_bits() & MANTISSA_MASK) | (MANTISSA_MASK + 1);
    let unit = f32::from_bits(ONE_BITS | (b.to_bits() & MANTISSA_MASK));
    let rho = (-unit).mul_add(1.0 / unit, 1.0);
    // Where RN(1/b) rounded away from zero, RZ(1/b) first: no zero-sign repair.
    let roundings: &[Reciprocal] = match rho < 0.0 {
        true => &[Reciprocal::TowardZero, Reciprocal::Nearest],
        false => &[Reciprocal::Nearest],
    };
    for &reciprocal in roundings {
        // The proof is for b in [1,2); it scales to b while the tail zl stays normal.
        let tail = Proven::with_reciprocal(b, Strategy::TwoProducts, reciprocal)
            .zl
            .abs();
        if tail >= f32::MIN_POSITIVE && two_products_exact(significand, unit, reciprocal) {
            return (Strategy::TwoProducts, reciprocal);
        }
    }
    if rho.abs() < pow2(-25) {
        return (Strategy::Markstein, Reciprocal::Nearest);
    }
    (Strategy::Hardware, Reciprocal::Nearest)
}

/// The inverse of odd `x` modulo 2^32 (Newton's iteration doubles the correct bits).
fn inverse_mod_2_32(x: u32) -> u32 {
    debug_assert!(x % 2 == 1);
    let mut inv = x; // correct to 3 bits for odd x
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(x.wrapping_mul(inv)));
    }
    inv
}

/// The midpoints' numerators `X` (of `X/2^25` below 1, `X/2^24` above) lie below this power
/// of two.
const MIDPOINT_BITS: u32 = 25;

/// Candidate dividend significands `A` with `2^s·A - B·X = n` for odd `X` below
/// 2^[`MIDPOINT_BITS`] (see the module docs), in `range`: calls `found` for each.
#[inline(always)]
fn candidates(b: u32, s: u32, n: i64, range: core::ops::Range<u32>, mut found: impl FnMut(u32)) {
    let v = b.trailing_zeros();
    // X odd means B·X has exactly v trailing zeros, and so must n.
    if n == 0 || n.unsigned_abs().trailing_zeros() != v {
        return;
    }
    let modulus_bits = s - v;
    let odd_b = b >> v;
    // The remainder modulo 2^modulus_bits, as a mask (two's complement makes it the
    // Euclidean one for negative values too).
    let rhs = ((-(n >> v)) & ((1i64 << modulus_bits) - 1)) as u64;
    let x0 = (rhs * u64::from(inverse_mod_2_32(odd_b))) & ((1u64 << modulus_bits) - 1);
    // Every X = x0 (mod 2^modulus_bits) below 2^MIDPOINT_BITS: above 1 (s = 24), that is
    // x0 + 2^24 too, the midpoints in [1, 2).
    for k in 0..(1u64 << (MIDPOINT_BITS - modulus_bits)) {
        let x = x0 + (k << modulus_bits);
        // B < 2^24 and X < 2^25: B·X + n fits easily in 64 bits.
        let numerator = i64::from(b) * x as i64 + n;
        // A multiple of 2^s (a mask, not a remainder: no 128-bit division).
        if numerator > 0 && numerator & ((1i64 << s) - 1) == 0 {
            let a = numerator >> s;
            if a >= i64::from(range.start) && a < i64::from(range.end) {
                found(a as u32);
            }
        }
    }
}

/// Whether `fma(a, zh, RN(a·zl))`, `zh` rounded by `reciprocal`, is exact for every
/// dividend, for the divisor with integer significand `b` (and value `unit` in [1,2)).
#[inline(always)]
fn two_products_exact(b: u32, unit: f32, reciprocal: Reciprocal) -> bool {
    // At most 2^v + 1 candidates per offset with v trailing zeros, and only offsets with
    // v trailing zeros count: a handful. More would mean a flaw here, and prove nothing.
    let mut found = [0u32; 16];
    let mut count = 0;
    let mut push = |a: u32| {
        if let Some(slot) = found.get_mut(count) {
            *slot = a;
        }
        count += 1;
    };
    let lowest = MANTISSA_MASK + 1;
    // Quotients below 1: midpoints X/2^25, |N| <= 3.
    for n in [-3, -2, -1, 1, 2, 3] {
        candidates(b, 25, n, lowest..b, &mut push);
    }
    // Quotients in [1, 2): midpoints X/2^24, |N| = 1.
    for n in [-1, 1] {
        candidates(b, 24, n, b..2 * lowest, &mut push);
    }
    if count > found.len() {
        return false;
    }
    // The floating-point checks here, not in the closure: this function is inlined into
    // the proof's FMA context, a closure need not be.
    let d = Proven::with_reciprocal(unit, Strategy::TwoProducts, reciprocal);
    found[..count].iter().all(|&a| {
        let a = f32::from_bits(ONE_BITS | (a & MANTISSA_MASK));
        a.mul_add(d.zh, a * d.zl).to_bits() == (a / unit).to_bits()
    })
}
