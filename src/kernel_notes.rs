//! Why the kernel is exact (documentation only).
//!
//! # The fast path
//!
//! For eight lanes at once, with `b` the divisor and `a = ±1.f·2^ea` the dividend:
//!
//! 1. `r = rcp(b)`: `vrcpps`, about 12 bits. Subnormal inputs act as zero and tiny results
//!    flush to zero, which later turns every such lane into a zero, inf or NaN quotient.
//! 2. Halley's step: `e = 1 - b·r`, `e2 = e + e·e`, `y = r + r·e2` (three FMAs). The error
//!    of `y` before its last rounding is about `e³` plus the roundings of `e2`.
//! 3. `m = 1.f` in [1, 2) and `scale = ±2^ea`, by bit operations on `a`.
//! 4. `q = y·m`, `res = m - q·b` (exact by FMA), `q' = q + y·res`.
//! 5. `quotient = q'·scale`, exact while the result is normal.
//! 6. A lane is accepted when `|quotient|` is in `[0x1.000002p-126, f32::MAX]`, or when
//!    `a` is ±0 and the quotient is a zero, and `b`'s top eight fraction bits are not all
//!    ones. Everything else — zeros, subnormal inputs or results, overflow, infinities,
//!    NaNs, the exact smallest normal (possibly a subnormal rounded twice), and the
//!    near-all-ones divisors — is recomputed by `vdivps`, whose bits we promise.
//!
//! # Why the accepted lanes are correctly rounded
//!
//! Markstein's lemma (checked as `markstein-lemma` in the ACL2 RTL library): for p-bit
//! `m, b` in [1,2) and a p-bit `q` within one ulp of `m/b`, if `|1 - b·y| < 2^-p` then
//! `RN(q + y·(m - b·q)) = RN(m/b)`, and the residual is exact. With p = 24:
//!
//! - Inside the accepted range the result depends only on the two mantissas: `rcp`
//!   depends on `b`'s fraction and exponent only, every later step is exact under scaling
//!   by powers of two while nothing under- or overflows. So the 2^46 mantissa pairs of
//!   [1,2) × [1,2), which `fmadiv verify mantissa` compares with the hardware, cover it.
//! - **The near-all-ones divisors.** Harrison's lemma (same library): if `y = RN(y_p)` and
//!   `|1 - b·y_p| <= ep < 2^-25`, then `|1 - b·y| < 2^-24` except possibly for divisors
//!   `b = 2 - k·2^-23`, `k = 1 ..= ceil(2^48·ep)`. For any `rcpps` within its specified
//!   `1.5·2^-12`, the Halley step gives `ep < 6.4·2^-36`, so `k <= 26 140`; measured on AMD
//!   EPYC (table fingerprint `877ee81e5312491d`), `ep = 2^-33.96` and only `k = 1` really
//!   misses: there `rcp(0x1.fffffep+0)` is exactly 0.5, Halley's `y` lands on a tie and
//!   rounds back to 0.5, `|1 - b·y| = 2^-24`, and the final correction of
//!   `1 / 0x1.fffffep+0` is an exact tie that rounds to even: `0x1p-1` instead of
//!   `0x1.000002p-1`. The kernel sends every divisor whose top eight fraction bits are ones
//!   (`k <= 2^15`, 0.4% of mantissas) to the slow path: a bound that holds for every table
//!   within the specification, not only this one.
//! - For every other divisor `|1 - b·y| < 2^-24` holds; when moreover `|1 - b·y| < 2^-25`
//!   (69% of divisors here), `q = RN(y·m)` is within one ulp for every dividend and the
//!   lemma proves the whole row. The remaining rows are what the exhaustive sweep is for.
//! - A single Newton step (`y = r + r·e`) leaves `|1 - b·y|` up to about `2^-22`; 312 010
//!   divisor rows miss the bound and the sweep finds wrong quotients (58 in dividend
//!   mantissas [0, 8192), the first 0x1.00005ep+0 / 0x1.e65e58p+0).
//!
//! # Zero dividends
//!
//! `0/b` for a normal `b` gives `0·q' = ±0` with the right sign (q' carries `b`'s sign, the
//! scale `a`'s), and NaN whenever `b` is zero, subnormal, infinite or NaN (`q'` is then NaN).
//! So a zero quotient of a zero dividend is accepted; any other zero is an underflow.
//!
//! # Rounding modes and MXCSR
//!
//! The fast path assumes round-to-nearest-even. Under another rounding mode, or with
//! flush-to-zero / denormals-are-zero set, accepted lanes still hold only normal inputs and
//! normal results, but their last roundings follow the mode: results then may differ from
//! `vdivps` in the last bit (see the README).
