//! Division by an invariant divisor: precompute once, divide many times.
//!
//! [`Divisor::new`] decides which sequence is proven exact for its divisor:
//!
//! | strategy | per element | when |
//! |---|---|---|
//! | [`Strategy::Reciprocal`] | `a·(1/b)` | `b` and `1/b` normal, `1/b` exact (`b = ±2^k`, `-126 <= k <= 126`) |
//! | [`Strategy::TwoProducts`] | `fma(a, zh, RN(a·zl))` | the divisor passes the Brisebarre–Muller–Raina test |
//! | [`Strategy::Markstein`] | `q = a·y`, `r = a - q·b`, `q + r·y` | `|1 - b·y| < 2^-25` |
//! | [`Strategy::Hardware`] | `a / b` | everything else (zero, inf, NaN, subnormal, huge, rare rest) |
//!
//! The FMA sequences are exact only while their intermediate values stay normal and
//! finite. [`Divisor::divide_slice`] knows that in one of three ways:
//! - two products, slices of 512 or more: chunks of 4096 dividends run the bare sequence
//!   and MXCSR's underflow, overflow and invalid flags, read once per chunk, void a chunk,
//!   which the divider then redoes (module `flagged` has the proof, including the sign of
//!   zero quotients);
//! - two products otherwise (shorter slices, in place, and, below the plan's length, a
//!   slice whose caller holds one of those flags, which the chunks would clear and put back
//!   at every call: [`crate::plan::DivisorChoices::window_if_flags_held_below`]), and
//!   Markstein's sequence at every length: each block's dividends are checked against the
//!   divisor's precomputed window before the sequence runs, so that every operation of it
//!   is normal and finite (`dividend_window`, `markstein_window`); a vector with a dividend
//!   outside goes to the divider. It raises no flag but inexact;
//! - the reciprocal of a power of two, and the scalar and in-register forms: each vector's
//!   quotients are checked: lanes whose quotient is zero, subnormal, below the divisor's
//!   precomputed bound, infinite or NaN are recomputed by the hardware divider.
//!
//! **Two products** (Brisebarre, Muller, Raina, IEEE Trans. Computers 53(8), 2004): with
//! `zh` within one ulp of `1/b`, `rho = 1 - b·zh` (exact, one FMA), `zl = RN(rho/b)` and
//! `T = RN(a·zl)`, the sum `S = a·zh + T` differs from `a/b` by
//! `(T - a·zl) + a·(zl - rho/b)`, two rounding errors. For `a, b` in [1,2) and
//! `zh` in [1/2, 1) (ulp 2^-24), `|rho/b| < 2^-24` makes `|zl - rho/b| <= 2^-49` and
//! `|a·zl| < 2^-23` makes `|T - a·zl| <= 2^-48`, so `|S - a/b| < 2^-47`, and `RN(S)` can
//! differ from `RN(a/b)` only where a rounding midpoint `X/2^s` (s = 25 below 1, 24 above)
//! lies that close. Writing `a = A·2^-23`, `b = B·2^-23` with integer significands, that
//! means `2^s·A - B·X = N` with `|N| < 2^(s-47)·B`: `|N| <= 3` below 1, `|N| = 1` above.
//! For each `N` the congruence `B·X = -N (mod 2^s)` fixes `X` up to the multiples of `2^s`
//! that stay below `2^25`, hence the only candidate dividends `A`. `new` solves it with a
//! modular inverse and runs the sequence on each candidate; if all are exact, every
//! dividend is.
//!
//! **Which `zh`.** The bound holds for `RN(1/b)` and for `RZ(1/b)` alike (both are within
//! one ulp of `1/b`). Where `RN(1/b)` lies farther from zero than `1/b`, `zl` has the
//! opposite sign, and a zero dividend gives `+0 + -0 = +0` whatever its sign: the
//! flag-checked loop must then repair the sign of zero quotients (two or three more
//! operations per vector, module `flagged`). There `new` first tries `zh = RZ(1/b)`, the
//! float next to `RN(1/b)` toward zero, whose `zl` has `zh`'s sign, so zero quotients come
//! out signed right. Over all 2^23 significands, `RZ(1/b)` is proven for 86% of the
//! divisors whose `RN(1/b)` would need the repair; the others keep `RN(1/b)` and the repair.
//!
//! **Markstein**: with `y = RN(1/b)` and `|1 - b·y| < 2^-25`, `q = RN(a·y)` is within one
//! ulp of `a/b` for every `a`, and Markstein's lemma makes `q + r·y` correctly rounded.
//!
//! Cost: the proof takes about 60 ns (a few candidate checks, for one or both
//! roundings of `zh`), made on first need;
//! BENCHMARKS.md has the speed of `divide_slice` and what `div_scalar` (construct + divide)
//! and a `Divisor` per row cost.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::Error;
use crate::arch::portable;
use crate::bits::{ABS_MASK, QUOTIENT_MAX_BITS, pow2};

/// Which exact sequence a [`Divisor`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// One multiplication by the exact reciprocal (powers of two).
    Reciprocal,
    /// Two operations: `fma(a, zh, RN(a·zl))`.
    TwoProducts,
    /// Three operations: Markstein's correction of `a·y`.
    Markstein,
    /// The hardware divider.
    Hardware,
}

impl core::fmt::Display for Strategy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Strategy::Reciprocal => "reciprocal (1 op)",
            Strategy::TwoProducts => "two products (2 ops)",
            Strategy::Markstein => "Markstein (3 ops)",
            Strategy::Hardware => "hardware divider",
        })
    }
}

/// How [`Divisor::divide_slice`] knows that a two-products quotient is exact (the
/// verification door, `fmadiv::verify`, names it to test each check). The portable path
/// divides by `/` and checks nothing.
#[cfg(any(fmadiv_x86, feature = "verify"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Chunks run the bare sequence; MXCSR's exception flags void a chunk, which the
    /// divider redoes, as it does the chunks of the back-off that follows.
    Flags,
    /// As [`Check::Flags`], but a slice shorter than `below` runs the window check
    /// ([`Check::Window`]) where the caller's MXCSR holds a flag that voids a chunk
    /// (underflow, overflow, invalid: sticky, so a program that once underflowed holds it),
    /// read where the chunks would start: the chunks would clear the flags before their
    /// first read and put them back after, two MXCSR writes a call, which a long slice
    /// repays. What the slice paths run, `below` from the plan
    /// ([`crate::plan::DivisorChoices::window_if_flags_held_below`]).
    FlagsUnlessHeld {
        /// The length from which held flags no longer send the slice to the window check.
        below: usize,
    },
    /// Every vector's quotients are range-checked.
    // Only the verification door (`fmadiv::verify`, feature "verify") asks for it.
    #[cfg_attr(not(feature = "verify"), allow(dead_code))]
    Lanes,
    /// Every block's dividends are checked against the divisor's dividend window before the
    /// sequence runs: no flag read, none raised but inexact.
    // The slice paths choose the window by strategy; only the door names it.
    #[cfg_attr(not(feature = "verify"), allow(dead_code))]
    Window,
}

#[cfg(any(fmadiv_x86, feature = "verify"))]
impl Check {
    /// Where the check runs the flag-checked chunks (on slices long enough for them, not in
    /// place): `Some(below)`, the length below which a held voiding flag sends the slice to
    /// the window check instead (0: never); `None` for the other checks.
    #[cfg_attr(not(fmadiv_x86), allow(dead_code))]
    pub(crate) const fn flag_checked(self) -> Option<usize> {
        match self {
            Check::Flags => Some(0),
            Check::FlagsUnlessHeld { below } => Some(below),
            Check::Lanes | Check::Window => None,
        }
    }
}

/// A divisor prepared for fast exact division: construct once, divide many times.
///
/// One `Divisor` may be shared by threads (it is `Send` and `Sync`: a `&Divisor` in rayon's
/// closures, an `Arc`): its proof is made once, by the first call that needs it on a thread
/// whose MXCSR rounds to nearest, and each call gives the bits of `/` under its own thread's
/// MXCSR (the FMA sequences run only where that rounds to nearest).
///
/// ```
/// let d = fmadiv::Divisor::new(3.0);
/// assert_eq!(d.divide(1.0).to_bits(), (1.0f32 / 3.0).to_bits());
/// let mut out = [0.0f32; 4];
/// d.divide_slice(&[1.0, 2.0, -0.0, f32::INFINITY], &mut out);
/// assert_eq!(out[1], 2.0 / 3.0);
/// ```
#[derive(Debug)]
pub struct Divisor {
    b: f32,
    /// The proof and the constants of the sequence it allows, made on first need: by a
    /// slice that pays for it (see [`Divisor::divide_slice`]), or by [`Divisor::divide`],
    /// [`Divisor::strategy`], [`Divisor::divide_f32x8`].
    proven: OnceLock<Proven>,
    /// Whether a slice was divided by this divisor before: a divisor used again is being
    /// reused, and its proof pays over its calls.
    used: AtomicBool,
}

impl Clone for Divisor {
    fn clone(&self) -> Divisor {
        Divisor {
            b: self.b,
            proven: self.proven.clone(),
            used: AtomicBool::new(self.used.load(Relaxed)),
        }
    }
}

/// A divisor's proven sequence and its constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proven {
    b: f32,
    strategy: Strategy,
    /// `1/b` rounded: `RN(1/b)`, or for two products `RZ(1/b)` where that is proven (module
    /// docs, "Which `zh`").
    zh: f32,
    /// `RN(RN(1 - b·zh)/b)`, the tail of the reciprocal (two products only).
    zl: f32,
    /// Smallest |quotient| bit pattern the FMA sequence is exact for.
    min_quotient_bits: u32,
    /// The dividends' magnitudes, as bit patterns `lo..=hi`, for which every operation of
    /// the two-products or Markstein sequence has normal, finite operands and results (an
    /// empty range for the other strategies): [`dividend_window`], [`markstein_window`].
    #[cfg_attr(not(fmadiv_x86), allow(dead_code))]
    dividend_window: (u32, u32),
}

/// `out[i] = a[i] / b` lane by lane with x86's bits (no AVX2+FMA here). Out of line: the
/// fast paths need not set up this loop's frame.
#[inline(never)]
fn portable_divide(a: &[f32], b: f32, out: &mut [f32]) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = portable::div_one(x, b);
    }
}

/// How the flag-checked loop gives zero quotients their sign, which decides what it costs
/// per vector (module `flagged`): no repair (`zh` and `zl` have one sign), ...
#[cfg(any(fmadiv_x86, feature = "verify"))]
pub(crate) const NO_REPAIR: usize = 0;
/// ... OR the sign of the dividend (`b > 0`, `zl < 0`), ...
#[cfg(any(fmadiv_x86, feature = "verify"))]
pub(crate) const SIGN_OF_DIVIDEND: usize = 1;
/// ... or OR the sign of `RN(a·zh)` (`b < 0`, `zl > 0`).
#[cfg(any(fmadiv_x86, feature = "verify"))]
pub(crate) const SIGN_OF_PRODUCT: usize = 2;

/// The zero-sign repair class of a two-products divisor with constants `zh`, `zl`.
#[cfg(any(fmadiv_x86, feature = "verify"))]
pub(crate) fn repair_class(zh: f32, zl: f32) -> usize {
    if zh.is_sign_negative() == zl.is_sign_negative() {
        NO_REPAIR
    } else if zh.is_sign_positive() {
        SIGN_OF_DIVIDEND
    } else {
        SIGN_OF_PRODUCT
    }
}

/// The proof compiled with the FMA instructions, for CPUs that have them: its `mul_add`s
/// are then one instruction each, not calls into the C library's `fmaf` (about 7 ns each
/// on family 0x19; a proof makes several). Both are
/// correctly rounded, so the bits are the same either way. Everything these call that
/// computes in floating point is `#[inline(always)]`, so it is compiled here too.
#[cfg(fmadiv_x86)]
mod fused {
    use super::Proven;

    #[target_feature(enable = "fma")]
    pub(super) fn prove(b: f32) -> Proven {
        Proven::prove_here(b)
    }
}

/// Smallest normal, as the bits of |x|.
const MIN_NORMAL_BITS: u32 = 0x0080_0000;

/// A dividend window no magnitude falls in: `abs - lo` is never 0 when `lo` has the sign bit.
const EMPTY_WINDOW: (u32, u32) = (1 << 31, 1 << 31);

/// The magnitudes of `a`, as bits `lo..=hi`, for which the two products `fma(a, zh,
/// RN(a·zl))` see only normal, finite operands and results, and whose quotient lies
/// inside the range the sequence is proven for (`[min_quotient, MAX]`): `|a|` at least
/// twice the smallest normal and `|a/b|` twice the smallest quotient (`4·2^-126/|rho|`, so
/// `|a·zl| ≈ |a/b|·|rho|` is at least eight times the smallest normal, and `|a/b|` is
/// normal), `|a·zh|` and `|a/b|` at most half of `f32::MAX`. The factors of two cover every
/// rounding of the f64 arithmetic here and of the sequence's products (each within 2^-23
/// of its value), so an accepted dividend's quotient passes the lane check of the proven
/// sequence: its bits are `a / b`, and its only flag is inexact. Zeros, subnormals,
/// infinities and NaNs are outside. Empty ([`EMPTY_WINDOW`]) where no `a` qualifies.
///
/// Markstein's sequence `q = RN(a·zh)`, `r = a - q·b`, `RN(q + r·zh)` ([`markstein_window`])
/// has the same upper end; its lower end keeps `q` and the residual normal instead.
fn dividend_window(b: f32, zh: f32, min_quotient_bits: u32) -> (u32, u32) {
    let min_normal = f64::from(f32::MIN_POSITIVE);
    let lo = |b: f64, _zh: f64, min_quotient: f64| 2.0 * min_normal.max(min_quotient * b);
    window_from(b, zh, min_quotient_bits, lo)
}

/// The smallest `|a|` whose Markstein residual `r = a - RN(a·zh)·b` is normal or zero:
/// `r` is a multiple of the exact product's last place, `2^(e_q + e_b - 46)`, and `e_q +
/// e_b >= e_a - 1`, so from `|a| >= 2^-78` that place is at least `2^-125` (the residual,
/// exact, enters the last FMA as an operand: a subnormal one would raise the
/// denormal-operand flag).
const MARKSTEIN_RESIDUAL_NORMAL_FROM: f64 = pow2(-78) as f64;

/// [`dividend_window`] for Markstein's sequence: `|a·zh|` at least twice the smallest normal
/// (`q` normal), `|a/b|` twice the smallest quotient, `|a|` at least
/// [`MARKSTEIN_RESIDUAL_NORMAL_FROM`] (the residual normal or zero; exact, as `|a/b|` is
/// above the smallest quotient), so the last FMA's operands and result are normal too;
/// `|a·zh|` and `|a/b|` at most half of `f32::MAX`. An accepted dividend's only flag is
/// inexact, and its quotient passes the lane check.
fn markstein_window(b: f32, zh: f32, min_quotient_bits: u32) -> (u32, u32) {
    let min_normal = f64::from(f32::MIN_POSITIVE);
    let lo = |b: f64, zh: f64, min_quotient: f64| {
        (2.0 * (min_normal / zh).max(min_quotient * b)).max(MARKSTEIN_RESIDUAL_NORMAL_FROM)
    };
    window_from(b, zh, min_quotient_bits, lo)
}

/// The window `lo(|b|, |zh|, min_quotient)..=hi` with the upper end both sequences share
/// (`|a·zh|` and `|a/b|` at most half of `f32::MAX`), as bits; [`EMPTY_WINDOW`] where no
/// quotient is proven or no `a` qualifies.
fn window_from(
    b: f32,
    zh: f32,
    min_quotient_bits: u32,
    lo: impl Fn(f64, f64, f64) -> f64,
) -> (u32, u32) {
    let (b, zh) = (f64::from(b.abs()), f64::from(zh.abs()));
    let min_quotient = f64::from(f32::from_bits(min_quotient_bits));
    // No quotient proven (`u32::MAX`, a NaN's bits): no window.
    if !min_quotient.is_finite() {
        return EMPTY_WINDOW;
    }
    let max = f64::from(f32::MAX);
    let lo = lo(b, zh, min_quotient);
    let hi = 0.5 * (max / zh).min(max * b);
    if lo > hi.min(max) {
        return EMPTY_WINDOW;
    }
    // Both converted inside f32's range, so the proof raises no overflow flag; rounded to
    // nearest: the factors of two leave room.
    ((lo as f32).to_bits(), (hi.min(max) as f32).to_bits())
}

/// The biased exponents of the divisors whose proof raises no flag but inexact: normal `b`
/// with `|b| < 2^78`. There every intermediate is normal or zero: `1/b` lies in
/// `(2^-78, 2^126]`; `rho = 1 - b·zh` is a multiple of 2^-48 (`b·zh` is a product of two
/// 24-bit significands whose exponents sum to -2, -1 or 0), so the tail `zl = rho/b` is zero
/// or above 2^-126, and two products' smallest quotient `2^-124/|rho|` lies between 2^-102 and
/// 2^-76; Markstein's bound compares `b` before it divides; the candidate test works on
/// `b`'s significand alone (`tests/mxcsr.rs` runs all 2^23 of them).
#[cfg(fmadiv_x86)]
const QUIET_PROOF_EXPONENTS: core::ops::RangeInclusive<u32> = 1..=127 + 77;

impl Divisor {
    /// Takes `b`. Nothing is computed yet: the proof of which sequence is exact for `b`
    /// (about 60 ns) is made on first need and kept. A first slice makes it only
    /// where it is small beside the slice's division, so a `Divisor` made per row costs
    /// no more than dividing the row on the divider; a divisor used again makes it
    /// wherever its sequence runs (see [`Divisor::divide_slice`]).
    #[inline]
    #[must_use]
    pub fn new(b: f32) -> Divisor {
        // Without x86 SIMD code no path of a divisor reads the backend setting: a setting
        // the build cannot honour panics here (elsewhere the first path that runs a
        // backend's code panics).
        #[cfg(not(fmadiv_x86))]
        crate::dispatch::check_environment();
        Divisor {
            b,
            proven: OnceLock::new(),
            used: AtomicBool::new(false),
        }
    }

    /// The proven sequence, made now if it was not yet.
    #[inline]
    fn proven(&self) -> &Proven {
        self.proven.get_or_init(|| Proven::new(self.b))
    }

    /// The proven sequence to divide with now, or `None` (then the divider): the proof is
    /// made only where MXCSR rounds to nearest (its constants are rounded in the mode in
    /// force, and are proven for round-to-nearest), and the FMA sequences run only there
    /// (they give `vdivps`'s bits under that mode alone); one multiplication by an exact
    /// reciprocal rounds once, as the divider does, in every mode.
    #[inline]
    fn proven_for_now(&self) -> Option<&Proven> {
        let nearest = crate::rounding::nearest_in_force();
        let p = match self.proven.get() {
            Some(p) => p,
            None if nearest => self.proven(),
            None => return None,
        };
        (nearest || matches!(p.strategy, Strategy::Reciprocal | Strategy::Hardware)).then_some(p)
    }

    /// The divisor.
    #[must_use]
    pub fn divisor(&self) -> f32 {
        self.b
    }

    /// The sequence this divisor uses (makes the proof if it was not made yet). Under a
    /// rounding mode other than to nearest, where no proof is made and the FMA sequences do
    /// not run, the divider: [`Strategy::Hardware`] until a proof is made. (Not `#[must_use]`:
    /// a caller may call it to make the proof ahead of the slices.)
    pub fn strategy(&self) -> Strategy {
        match self.proven.get() {
            Some(p) => p.strategy,
            None => self
                .proven_for_now()
                .map_or(Strategy::Hardware, |p| p.strategy),
        }
    }

    /// `a / b`, bit-identical to `/` on x86 (under the MXCSR rounding mode in force).
    #[inline]
    #[must_use]
    pub fn divide(&self, a: f32) -> f32 {
        match self.proven_for_now() {
            Some(p) => p.divide(a),
            None => portable::div_one(a, self.b),
        }
    }

    /// `a / b` rounded in direction `mode`: bit-identical to `vdivps` with MXCSR's rounding
    /// field set to `mode` (see [`crate::div_rounded`]), whatever mode MXCSR holds.
    ///
    /// ```
    /// use fmadiv::{Divisor, Rounding};
    /// let d = Divisor::new(3.0);
    /// let (lo, hi) = (d.divide_rounded(1.0, Rounding::Down), d.divide_rounded(1.0, Rounding::Up));
    /// assert!(f64::from(lo) < 1.0 / 3.0 && 1.0 / 3.0 < f64::from(hi));
    /// ```
    #[inline]
    #[must_use]
    pub fn divide_rounded(&self, a: f32, mode: crate::Rounding) -> f32 {
        crate::rounding::div_rounded_one(a, self.b, mode)
    }

    /// What a slice of `len` dividends runs: the proven sequence where the plan runs it at
    /// that length ([`crate::plan::DivisorChoices`]) and the proof is made or pays (then it is
    /// made); `None`: the divider.
    ///
    /// When the proof pays: a divisor's first slice makes it only from the plan's
    /// `first_proof_from`, where the proof is small beside the slice's division: a `Divisor`
    /// made per row of a large matrix is used once, often on data the divider is as fast
    /// on. A divisor used again is being reused: its next slice makes the proof wherever
    /// the sequence runs, and the proof is paid once over its calls.
    #[cfg(fmadiv_x86)]
    #[inline]
    fn for_slice(&self, len: usize, in_place: bool) -> Option<&Proven> {
        let d = crate::plan().choices().divisor;
        let from = if in_place {
            d.in_place_from
        } else {
            d.sequence_from
        };
        if len < from {
            return None;
        }
        if self.proven.get().is_none() {
            // Plain load and store, no read-modify-write: racing first calls may both count
            // as first, which only delays the proof.
            if !self.used.load(Relaxed) {
                self.used.store(true, Relaxed);
                if len < d.first_proof_from {
                    return None;
                }
            }
        }
        self.proven_for_now().filter(|p| p.runs_sequence())
    }
}

impl Proven {
    /// Decides which sequence is proven exact for `b`, leaving MXCSR's exception flags as
    /// they were but for inexact: the proof is the crate's bookkeeping, not a division the
    /// caller asked for. A divisor in [`QUIET_PROOF_EXPONENTS`] raises nothing else by
    /// construction; any other may (invalid from `0·∞` for an infinite divisor, overflow of
    /// `1/b` for a tiny one, underflow of a huge one's tail), so its proof puts the caller's
    /// flags back (`stmxcsr` waits for every operation in flight: about 20 ns on family
    /// 0x19, a third of the proof).
    fn new(b: f32) -> Proven {
        #[cfg(fmadiv_x86)]
        if !QUIET_PROOF_EXPONENTS.contains(&((b.to_bits() >> 23) & 0xff)) {
            return Self::prove_keeping_flags(b);
        }
        Self::prove_fastest(b)
    }

    /// The proof with the FMA instructions where they are in use, else in the caller's.
    #[inline(always)]
    fn prove_fastest(b: f32) -> Proven {
        #[cfg(fmadiv_x86)]
        if crate::dispatch::avx2_fma().is_some() {
            // SAFETY: AVX2+FMA are in use, so this CPU has FMA.
            return unsafe { fused::prove(b) };
        }
        Self::prove_here(b)
    }

    /// [`Proven::prove_fastest`] between a read of MXCSR and a write of the flags it held
    /// (the write only where the proof raised one the caller had not set).
    #[cfg(fmadiv_x86)]
    #[cold]
    #[inline(never)]
    fn prove_keeping_flags(b: f32) -> Proven {
        use crate::arch::x86_64::mode::{read_mxcsr, write_flags};
        let callers = read_mxcsr();
        // `black_box` orders the proof between the two MXCSR accesses: its input comes out
        // of an `asm!` block after the read, its result goes into one before the write (the
        // arithmetic alone could move across either).
        let proven = core::hint::black_box(Self::prove_fastest(core::hint::black_box(b)));
        if read_mxcsr() != callers {
            write_flags(callers);
        }
        proven
    }

    /// [`Proven::new`] in the caller's instruction set.
    #[inline(always)]
    fn prove_here(b: f32) -> Proven {
        let (strategy, reciprocal) = choose(b);
        Self::with_reciprocal(b, strategy, reciprocal)
    }

    /// `b` with a given strategy and `zh = RN(1/b)` (see [`Divisor::with_strategy`]).
    #[cfg(feature = "verify")]
    #[inline(always)]
    fn with_strategy(b: f32, strategy: Strategy) -> Proven {
        Self::with_reciprocal(b, strategy, Reciprocal::Nearest)
    }

    /// `b` with a given strategy and `zh = RZ(1/b)` (see
    /// [`Divisor::with_strategy_toward_zero`]).
    #[cfg(feature = "verify")]
    #[inline(always)]
    fn with_strategy_toward_zero(b: f32, strategy: Strategy) -> Proven {
        Self::with_reciprocal(b, strategy, Reciprocal::TowardZero)
    }

    /// `b` with a given strategy and reciprocal rounding.
    #[inline(always)]
    fn with_reciprocal(b: f32, strategy: Strategy, reciprocal: Reciprocal) -> Proven {
        let (zh, rho) = reciprocal.of(b);
        let zl = rho / b;
        // The smallest |q| for which the sequence's products stay normal.
        let min_quotient = match strategy {
            // a·zl must be normal: |a·zl| ~ |q|·|rho|.
            Strategy::TwoProducts => pow2(-126) / rho.abs() * 4.0,
            // The residual a - q·b is exact while e_b + e_q >= -103 (Boldo–Daumas).
            // Compared before dividing: no underflow for a huge b.
            Strategy::Markstein if b.abs() <= pow2(25) => pow2(-100) / b.abs(),
            _ => pow2(-125),
        };
        let min_quotient_bits = if min_quotient.is_finite() {
            min_quotient.to_bits().max(MIN_NORMAL_BITS + 1)
        } else {
            u32::MAX
        };
        let dividend_window = match strategy {
            Strategy::TwoProducts => dividend_window(b, zh, min_quotient_bits),
            Strategy::Markstein => markstein_window(b, zh, min_quotient_bits),
            _ => EMPTY_WINDOW,
        };
        Proven {
            b,
            strategy,
            zh,
            zl,
            min_quotient_bits,
            dividend_window,
        }
    }

    /// Whether a slice runs the proven sequence: every strategy but the divider's.
    /// (Markstein's slices took the divider's own loop until they ran the window-checked
    /// one: BENCHMARKS.md, "Markstein's divisors in the public slices".)
    #[cfg(fmadiv_x86)]
    fn runs_sequence(&self) -> bool {
        self.strategy != Strategy::Hardware
    }

    /// `a / b`, bit-identical to `/` on x86.
    #[inline]
    fn divide(&self, a: f32) -> f32 {
        let q = match self.strategy {
            Strategy::Reciprocal => return portable::mul_one(a, self.zh),
            Strategy::TwoProducts => a.mul_add(self.zh, a * self.zl),
            Strategy::Markstein => {
                let q = a * self.zh;
                let r = (-q).mul_add(self.b, a);
                r.mul_add(self.zh, q)
            }
            Strategy::Hardware => return portable::div_one(a, self.b),
        };
        if self.in_range(q.to_bits()) {
            q
        } else {
            portable::div_one(a, self.b)
        }
    }

    #[inline]
    fn in_range(&self, q_bits: u32) -> bool {
        let abs = q_bits & ABS_MASK;
        abs >= self.min_quotient_bits && abs <= QUOTIENT_MAX_BITS
    }
}

impl Divisor {
    /// `out[i] = a[i] / b`.
    ///
    /// Runs the proven sequence where the plan runs it on this CPU for a slice of this
    /// length ([`crate::plan::DivisorChoices::sequence_from`]), making the proof if it was not
    /// made and it pays: on the divisor's first slice, only where the proof is small beside
    /// the slice ([`crate::plan::DivisorChoices::first_proof_from`]); on a later one, wherever the
    /// sequence runs. The divider otherwise.
    ///
    /// # Panics
    /// If the lengths differ (nothing is written then).
    #[inline]
    pub fn divide_slice(&self, a: &[f32], out: &mut [f32]) {
        if let Err(e) = Error::check_output(a.len(), out.len()) {
            e.panic_in("Divisor::divide_slice");
        }
        #[cfg(fmadiv_x86)]
        if out.len() < crate::arch::x86_64::short::SHORT_BY {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: a is readable and out writable for n elements, disjoint.
            unsafe { crate::arch::x86_64::short::div_by_raw(x, self.b, o, n) };
            return;
        }
        #[cfg(fmadiv_x86)]
        if let Some(divider) = divider_only(out.len(), false) {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: a is readable and out writable for n elements and cannot overlap
            // (out is a unique borrow).
            unsafe { divider.divide(self.b, x, o, n) };
            return;
        }
        self.divide_vectors(a, out);
    }

    /// `out[i] = a[i] / b` as [`Divisor::divide_slice`], or an error (and nothing written) if
    /// the lengths differ.
    ///
    /// # Errors
    /// [`Error::OutputMismatch`] if the dividends' and the output's lengths differ; nothing is
    /// written then.
    ///
    /// ```
    /// let d = fmadiv::Divisor::new(3.0);
    /// let mut q = [0.0f32; 2];
    /// let e = d.try_divide_slice(&[1.0], &mut q).unwrap_err();
    /// assert_eq!(e, fmadiv::Error::OutputMismatch { input: 1, out: 2 });
    /// assert_eq!(q, [0.0, 0.0]);
    /// ```
    #[inline]
    pub fn try_divide_slice(&self, a: &[f32], out: &mut [f32]) -> Result<(), Error> {
        Error::check_output(a.len(), out.len())?;
        self.divide_slice(a, out);
        Ok(())
    }

    /// [`Divisor::divide_slice`] past the short slices, out of line (the short path keeps
    /// no frame).
    #[inline(never)]
    fn divide_vectors(&self, a: &[f32], out: &mut [f32]) {
        #[cfg(fmadiv_x86)]
        if let Some(k) = crate::dispatch::avx2_fma_backend() {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: the CPU has AVX2+FMA (`k`); a is readable and out writable for n
            // elements and cannot overlap (out is a unique borrow).
            unsafe {
                match self.for_slice(n, false) {
                    Some(p) => x86::divide_raw(k, p, slice_check(), x, o, n),
                    None => x86::divide_by_divider(k, self.b, x, o, n),
                }
            }
            return;
        }
        #[cfg(fmadiv_x86)]
        if crate::backend() != crate::Backend::Portable {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: a sixteen-lane backend is in use; a is readable and out writable for
            // n elements and cannot overlap (out is a unique borrow).
            unsafe {
                x16::divide(
                    crate::backend(),
                    self.b,
                    self.for_slice(n, false),
                    slice_check(),
                    x,
                    o,
                    n,
                )
            };
            return;
        }
        portable_divide(a, self.b, out);
    }
}

impl Divisor {
    /// `a[i] = a[i] / b`, in place (row normalisation without a copy per row).
    ///
    /// ```
    /// let mut row = [1.0f32, 2.0, 3.0, 4.0];
    /// let sum: f32 = row.iter().sum();
    /// fmadiv::Divisor::new(sum).divide_in_place(&mut row);
    /// assert_eq!(row[2].to_bits(), (3.0f32 / 10.0).to_bits());
    /// ```
    #[inline]
    pub fn divide_in_place(&self, a: &mut [f32]) {
        #[cfg(fmadiv_x86)]
        if a.len() < crate::arch::x86_64::short::SHORT_BY {
            let p = a.as_mut_ptr();
            // SAFETY: `a` is readable and writable for its length; in place is allowed.
            unsafe { crate::arch::x86_64::short::div_by_raw(p, self.b, p, a.len()) };
            return;
        }
        #[cfg(fmadiv_x86)]
        if let Some(divider) = divider_only(a.len(), false) {
            let (x, n) = (a.as_mut_ptr(), a.len());
            // SAFETY: `a` is readable and writable for its length, which the divider loop
            // allows in place.
            unsafe { divider.divide(self.b, x, x, n) };
            return;
        }
        self.divide_vectors_in_place(a);
    }

    /// [`Divisor::divide_in_place`] past the short slices, out of line.
    fn divide_vectors_in_place(&self, a: &mut [f32]) {
        #[cfg(fmadiv_x86)]
        if crate::dispatch::avx2_fma_backend().is_none()
            && crate::backend() != crate::Backend::Portable
        {
            let (x, n) = (a.as_mut_ptr(), a.len());
            // SAFETY: a sixteen-lane backend is in use; `a` is readable and writable for n,
            // which both of its loops allow in place.
            unsafe {
                x16::divide(
                    crate::backend(),
                    self.b,
                    self.for_slice(n, true),
                    Check::Flags,
                    x,
                    x,
                    n,
                )
            };
            return;
        }
        #[cfg(fmadiv_x86)]
        if let Some(k) = crate::dispatch::avx2_fma() {
            let (x, n) = (a.as_mut_ptr(), a.len());
            match self.for_slice(n, true) {
                // SAFETY: the CPU has AVX2+FMA (`k`); `a` is readable and writable for n.
                Some(p) => unsafe { x86::divide_raw_in_place(k, p, x, n) },
                // SAFETY: the CPU has AVX2+FMA (`k`); `a` is readable and writable for its
                // length, which the divider loop allows in place.
                None => unsafe { x86::divide_by_divider(k, self.b, x, x, n) },
            }
            return;
        }
        for x in a.iter_mut() {
            *x = portable::div_one(*x, self.b);
        }
    }

    /// Eight quotients `a / b`, bit-identical to `/` lane by lane (also `a / divisor`).
    ///
    /// ```
    /// use wide::f32x8;
    /// let d = fmadiv::Divisor::new(3.0);
    /// assert_eq!((f32x8::splat(1.0) / d).to_array(), [1.0f32 / 3.0; 8]);
    /// ```
    #[must_use]
    pub fn divide_f32x8(&self, a: wide::f32x8) -> wide::f32x8 {
        #[cfg(fmadiv_x86)]
        if let (Some(k), Some(p)) = (crate::dispatch::avx2_fma(), self.proven_for_now()) {
            use core::arch::x86_64::__m256;
            // SAFETY: f32x8 and __m256 are eight f32 lanes in memory order, 32 bytes, every
            // bit pattern valid in both; the CPU has AVX2+FMA (`k`).
            return unsafe {
                let q = x86::divide_vector(k, p, core::mem::transmute::<wide::f32x8, __m256>(a));
                core::mem::transmute::<__m256, wide::f32x8>(q)
            };
        }
        wide::f32x8::from(a.to_array().map(|x| self.divide(x)))
    }

    /// Sixteen quotients `a / b`, bit-identical to `/` lane by lane (also `a / divisor`): two
    /// eight-lane halves by [`Divisor::divide_f32x8`] (a `Divisor`'s sequence is eight-lane
    /// code on every backend).
    ///
    /// ```
    /// use wide::f32x16;
    /// let d = fmadiv::Divisor::new(3.0);
    /// assert_eq!((f32x16::splat(1.0) / d).to_array(), [1.0f32 / 3.0; 16]);
    /// ```
    #[must_use]
    pub fn divide_f32x16(&self, a: wide::f32x16) -> wide::f32x16 {
        let a = a.to_array();
        let half = |h: usize| {
            let lanes: [f32; 8] = core::array::from_fn(|i| a[8 * h + i]);
            self.divide_f32x8(wide::f32x8::from(lanes)).to_array()
        };
        let (lo, hi) = (half(0), half(1));
        wide::f32x16::from(core::array::from_fn::<f32, 16, _>(|i| {
            if i < 8 { lo[i] } else { hi[i - 8] }
        }))
    }
}

/// `out[i] = a[i] / b` through a [`Divisor`].
///
/// # Panics
/// If the lengths differ (nothing is written then).
#[inline]
pub fn div_scalar(a: &[f32], b: f32, out: &mut [f32]) {
    if let Err(e) = Error::check_output(a.len(), out.len()) {
        e.panic_in("div_scalar");
    }
    #[cfg(fmadiv_x86)]
    if out.len() < crate::arch::x86_64::short::SHORT_BY {
        let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: a is readable and out writable for n elements, disjoint.
        unsafe { crate::arch::x86_64::short::div_by_raw(x, b, o, n) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if let Some(divider) = divider_only(out.len(), true) {
        let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: a is readable and out writable for n elements and cannot overlap (out
        // is a unique borrow).
        unsafe { divider.divide(b, x, o, n) };
        return;
    }
    div_scalar_vectors(a, b, out);
}

/// [`div_scalar`] past the short slices, out of line (the short path keeps no frame).
#[inline(never)]
fn div_scalar_vectors(a: &[f32], b: f32, out: &mut [f32]) {
    Divisor::new(b).divide_vectors(a, out);
}

/// The divider loop a slice too short for the proven sequence goes to straight from the
/// caller, one call as for the divider's own loop: the loop of the backend in use, at its
/// width (a sixteen-lane backend taking the long way lost up to a third at 64 elements on
/// family 0x19 model 0x11: BENCHMARKS, "Sixteen lanes on Zen 4").
/// (The eight-lane loop on a sixteen-lane CPU, family 6 model 0xa7: up to 7% faster at 256
/// elements on normal data, 0.77-0.89x on random bits against the 512-bit loop:
/// `docs/bench/0x6-0xa7-not-shipped.txt`.)
#[cfg(fmadiv_x86)]
#[derive(Clone, Copy)]
enum DividerLoop {
    Eight(crate::arch::x86_64::avx2::Avx2Fma),
    Sixteen(crate::arch::x86_64::avx512::Avx512),
}

#[cfg(fmadiv_x86)]
impl DividerLoop {
    /// `out[i] = a[i] / b` on this loop's divider.
    ///
    /// # Safety
    /// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
    #[inline(always)]
    unsafe fn divide(self, b: f32, a: *const f32, out: *mut f32, len: usize) {
        // SAFETY: each proof's features are present; the caller's pointers.
        unsafe {
            match self {
                DividerLoop::Eight(k) => x86::divide_by_divider(k, b, a, out, len),
                DividerLoop::Sixteen(k) => x16::divide_by_divider(k, b, a, out, len),
            }
        }
    }
}

/// The check of two products in a public slice: the flag-checked chunks, but the window
/// check below the plan's length where the caller holds a voiding flag
/// ([`crate::plan::DivisorChoices::window_if_flags_held_below`]).
#[cfg(fmadiv_x86)]
#[inline(always)]
fn slice_check() -> Check {
    Check::FlagsUnlessHeld {
        below: crate::plan().choices().divisor.window_if_flags_held_below,
    }
}

/// The divider loop when a slice of `len` dividends is too short for the proven sequence
/// on this CPU (the plan made, a native SIMD backend in use and detected). Two loads (three
/// for the sixteen-lane backend) and no call (nothing detected here: `None` sends the first
/// calls the long way), so that the
/// caller's short path keeps no frame. `once`: the divisor divides this one slice
/// ([`div_scalar`]'s), so the sequence runs only from where a first slice makes the proof.
#[cfg(fmadiv_x86)]
#[inline(always)]
fn divider_only(len: usize, once: bool) -> Option<DividerLoop> {
    let d = crate::plan::made()?.choices().divisor;
    let from = if once {
        d.sequence_from.max(d.first_proof_from)
    } else {
        d.sequence_from
    };
    if len >= from {
        return None;
    }
    match crate::dispatch::avx2_fma_backend_known() {
        Some(k) => Some(DividerLoop::Eight(k)),
        None => crate::dispatch::avx512_backend_known().map(DividerLoop::Sixteen),
    }
}

/// `out[i] = a[i] / b` as [`div_scalar`], or an error (and nothing written) if the lengths
/// differ.
///
/// # Errors
/// [`Error::OutputMismatch`] if the dividends' and the output's lengths differ; nothing is
/// written then.
///
/// ```
/// let mut q = [0.0f32; 1];
/// assert!(fmadiv::try_div_scalar(&[1.0, 2.0], 3.0, &mut q).is_err());
/// assert_eq!(q, [0.0]);
/// ```
#[inline]
pub fn try_div_scalar(a: &[f32], b: f32, out: &mut [f32]) -> Result<(), Error> {
    Error::check_output(a.len(), out.len())?;
    div_scalar(a, b, out);
    Ok(())
}

#[cfg(feature = "verify")]
mod door;
mod ops;
mod proof;

use proof::{Reciprocal, choose};

#[cfg(fmadiv_x86)]
mod flagged;

#[cfg(fmadiv_x86)]
mod lanes;

/// The lane-checked loop's vectors per block and its back-off in blocks (first, most), for
/// the verification door's tests of which lanes the loop gives the sequence.
#[cfg(all(fmadiv_x86, feature = "verify"))]
pub(crate) const LANE_LOOP: (usize, (u32, u32)) = (lanes::UNROLL, lanes::LanesBackoff::RULE);

/// The length from which two products (not in place) run in flag-checked chunks, for the
/// verification door's tests of which loop a slice takes.
#[cfg(all(fmadiv_x86, feature = "verify"))]
pub(crate) const FLAG_CHECKED_FROM: usize = flagged::FROM;

#[cfg(fmadiv_x86)]
mod x86;

#[cfg(fmadiv_x86)]
mod x16;

#[cfg(test)]
mod tests;
