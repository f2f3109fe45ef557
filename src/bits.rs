//! Named bit patterns of IEEE-754 binary32 used by the kernels.
// Most are the x86 kernels' alone: unused where they are compiled out.
#![cfg_attr(not(fmadiv_x86), allow(dead_code))]

/// The sign bit.
pub const SIGN_MASK: u32 = 0x8000_0000;
/// Everything but the sign bit: `bits & ABS_MASK` is `|x|`.
pub const ABS_MASK: u32 = 0x7fff_ffff;
/// The 23 stored fraction bits.
pub const MANTISSA_MASK: u32 = 0x007f_ffff;
/// The bits of 1.0: OR-ing a fraction into them gives `1.f` in [1, 2).
pub const ONE_BITS: u32 = 0x3f80_0000;

/// Largest finite |quotient|: 0x1.fffffep+127 (f32::MAX); anything above is an overflow,
/// an infinity or a NaN (the `Divisor` sequences check their quotients against it).
pub const QUOTIENT_MAX_BITS: u32 = 0x7f7f_ffff;
/// `+∞`'s bits: `|x|`'s bits are greater exactly for NaNs.
pub const INFINITY_BITS: u32 = 0x7f80_0000;

/// How many divisor mantissas just below 2 go to the slow path where the seed is `rcpps`
/// (the eight-lane backend): 2^15, those whose top eight fraction bits are all ones.
/// Harrison's lemma allows Halley's reciprocal to miss Markstein's bound
/// |1 - b·y| < 2^-24 only for mantissas 2^23 - k, k <= 2^48·ep; for any
/// `rcpps` within its specified 1.5·2^-12, ep < 6.4·2^-36 gives k <= 26 140 (on AMD EPYC,
/// families 0x19 and 0x1a, measured ep = 2^-33.96: k <= 16 799, and only k = 1 actually
/// misses). See [`crate::kernel_notes`].
pub const NEAR_ALL_ONES_DIVISORS: u32 = 1 << 15;
/// How many divisor mantissas just below 2 go to the slow path where the seed is
/// `vrcp14ps` (relative error below 2^-14, the sixteen-lane backend): 2^5, those whose top
/// eighteen fraction bits are all ones. The any-table sweep under that bound
/// (`fmadiv verify mantissa --rcp any --rcp-bound 2^-14 --kernel vrcp14`) finds Markstein's
/// hypothesis missed only for odd `k <= 31` and wrong quotients only for odd `k <= 27`;
/// half as many (`k <= 16`) leaves the row of `0x1.ffffdep+0` (`k = 17`) wrong for a seed.
pub const RCP14_NEAR_ALL_ONES_DIVISORS: u32 = 1 << 5;
/// Divisors whose stored fraction is at or above this go to the slow path (eight lanes).
#[cfg(feature = "verify")]
pub const NEAR_ALL_ONES_MANTISSA_MIN: u32 = MANTISSA_MASK + 1 - NEAR_ALL_ONES_DIVISORS;

/// The fast path's input window, on `bits << 1` (sign shifted out, biased exponent in the
/// top eight bits): both |a| and |b| must have a biased exponent in
/// `[INPUT_EXPONENT_MIN, INPUT_EXPONENT_MIN + INPUT_EXPONENTS)`, i.e. lie in
/// `[2^-63, 2^63)`. Then every intermediate of the kernel and the quotient are normal, the
/// residual is exact, and the lanes compute the mantissa pair's result scaled by a power of
/// two (see [`crate::kernel_notes`]). Zeros, subnormals, infinities and NaNs fall outside.
pub const INPUT_EXPONENT_MIN: u32 = 127 - 63;
/// How many biased exponents the input window holds: unbiased -63 ..= 62.
pub const INPUT_EXPONENTS: u32 = 126;
/// `(bits << 1) - INPUT_WINDOW_LO` is below [`INPUT_WINDOW_SPAN`] (unsigned) exactly for
/// inputs inside the window: smaller exponents wrap around to huge values.
pub const INPUT_WINDOW_LO: u32 = INPUT_EXPONENT_MIN << 24;
/// The width of the window on `bits << 1`.
pub const INPUT_WINDOW_SPAN: u32 = INPUT_EXPONENTS << 24;
/// The top eight stored fraction bits: a divisor whose bits here are all ones is one of the
/// [`NEAR_ALL_ONES_DIVISORS`].
#[cfg(feature = "verify")]
pub const NEAR_ALL_ONES_FIELD: u32 = near_all_ones_field(NEAR_ALL_ONES_DIVISORS);

/// The top fraction bits that are all ones exactly for the `divisors` mantissas just below
/// 2 (a power of two, at most 2^23): the mantissas `2^23 - divisors ..= 2^23 - 1`. Zero for
/// no divisors.
#[must_use]
pub const fn near_all_ones_field(divisors: u32) -> u32 {
    // 2^23 - n, for n a power of two, has ones exactly in the bits from log2(n) to 22.
    (MANTISSA_MASK + 1 - divisors) & MANTISSA_MASK
}

/// `2^e`, exactly, for a normal power (`-126 <= e <= 127`), from its exponent field:
/// `f32::powi`'s precision is unspecified (Miri perturbs it), and the bounds built from
/// these powers must be exact.
#[must_use]
pub const fn pow2(e: i32) -> f32 {
    assert!(-126 <= e && e <= 127, "not a normal power of two");
    // The biased exponent in its field, a zero fraction: the bits of 2^e.
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The default NaN x86 returns for invalid operations (0/0, inf/inf): negative, quiet.
pub const X86_DEFAULT_NAN_BITS: u32 = 0xffc0_0000;
/// The quiet bit of a NaN's payload.
pub const QUIET_NAN_BIT: u32 = 0x0040_0000;
