//! The FMA kernel over one vector: exact quotients where the input check accepts a lane.
//!
//! Steps (the proofs are in [`crate::kernel_notes`]):
//! 1. `r = rcp(b)`, about 12 bits;
//! 2. one Halley step, all FMA: `e = 1 - b·r`, `e2 = e + e·e`, `y = r + r·e2`;
//! 3. `q = y·a`, the exact residual `res = a - q·b`, `q' = q + y·res` (Markstein);
//! 4. the check, from the inputs alone: both |a| and |b| inside the window
//!    [2^-63, 2^63) (there every step is the mantissa pair's step scaled by a power of two,
//!    so no mantissa/scale split is needed) and `b` not one of the near-all-ones divisors.
//!    Lanes outside are recomputed by the hardware divider.
//!
//! The check depends on the inputs only, so it runs beside the arithmetic, off its
//! dependency chain. Over a slice it is folded into two running unsigned maxima and tested
//! once per block of vectors (`loops`).

use super::Vector;
use crate::bits::{INPUT_WINDOW_LO, INPUT_WINDOW_SPAN, near_all_ones_field};
#[cfg(feature = "verify")]
use crate::bits::{NEAR_ALL_ONES_DIVISORS, RCP14_NEAR_ALL_ONES_DIVISORS};
use crate::variant::{NearAllOnes, Variant};

/// The variant's refined reciprocal `y ≈ 1/b` from this CPU's `rcpps` (what the sweeps
/// compare rows with).
#[cfg(feature = "verify")]
#[inline(always)]
pub fn reciprocal<W: Vector, const V: u8>(w: W, b: W::F) -> W::F {
    refine::<W, V>(w, b, w.rcp(b))
}

/// The variant's refinement of a seed `r ≈ 1/b`: everything the reciprocal does after
/// `rcpps`, Halley (cubic) or Newton (quadratic). Split from the seed so that the
/// every-table sweep runs this very code on every seed the documentation allows.
#[inline(always)]
pub fn refine<W: Vector, const V: u8>(w: W, b: W::F, r: W::F) -> W::F {
    let one = w.splat(1.0);
    // e = 1 - b·r, one rounding (exact for AMD's 12-bit seeds; the proofs do not need it).
    let e = w.neg_mul_add(b, r, one);
    if Variant::of(V).halley {
        // y = r·(1 + e + e²): Halley's step, cubic convergence.
        let e2 = w.mul_add(e, e, e);
        w.mul_add(r, e2, r)
    } else {
        // y = r·(1 + e): a Newton step, which leaves up to ~2^-22 relative error.
        w.mul_add(r, e, r)
    }
}

/// `1/b` by the reciprocal kernel from a seed `r ≈ 1/b` (this CPU's `rcpps`, or any seed
/// the every-table sweep chooses): the variant's refined reciprocal `y` (Halley's step, as in
/// division), then Markstein's correction with the dividend 1: `y + y·(1 - b·y)`. Five
/// FMA-pipe operations and `rcpps`: the division kernel with `a = 1`, whose `q = y·a` is `y`
/// itself. Hence the same proof: for every conforming `rcpps` table, `|1 - b·y| < 2^-24` for
/// every divisor the kernel keeps (measured over all divisors and all seeds the
/// documentation allows, `fmadiv verify mantissa --rcp any`), `y` is within one ulp of
/// `1/b`, and Markstein's lemma makes the result `RN(1/b)`; the reciprocal sweep (`fmadiv
/// verify reciprocals --rcp any`) checks it by exhaustion too. (Crate 0.2.0 used one Newton
/// step here: exact on AMD's table, wrong for 30 divisors under other seeds the
/// documentation allows.)
#[inline(always)]
pub fn reciprocal_quotient_from<W: Vector, const V: u8>(w: W, b: W::F, r: W::F) -> W::F {
    let y = refine::<W, V>(w, b, r);
    // 1 - b·y is the residual of q = y·1; one FMA corrects y (Markstein).
    w.mul_add(y, w.neg_mul_add(b, y, w.splat(1.0)), y)
}

/// The kernel's quotient from a given seed `r ≈ 1/b` instead of this CPU's `rcpps`: what a
/// CPU whose table gives `r` computes. The division kernel, or with `RECIP` (where `a` is
/// 1.0) the reciprocal kernel.
#[inline(always)]
pub fn kernel_quotient_from<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: W::F,
    b: W::F,
    r: W::F,
) -> W::F {
    if RECIP {
        reciprocal_quotient_from::<W, V>(w, b, r)
    } else {
        corrected_quotient(w, a, b, refine::<W, V>(w, b, r))
    }
}

/// The kernel's quotient of one vector from this CPU's `rcpps`.
#[inline(always)]
pub fn kernel_quotient<W: Vector, const V: u8, const RECIP: bool>(w: W, a: W::F, b: W::F) -> W::F {
    kernel_quotient_from::<W, V, RECIP>(w, a, b, w.rcp(b))
}

/// Markstein's correction: `q = y·a`, `res = a - q·b` (exact), `q' = q + y·res`.
#[inline(always)]
pub fn corrected_quotient<W: Vector>(w: W, a: W::F, b: W::F, y: W::F) -> W::F {
    let q = w.mul(y, a);
    let res = w.neg_mul_add(q, b, a);
    w.mul_add(y, res, q)
}

/// How far `x` lies above the input window's lower edge, as an unsigned number that is
/// below [`INPUT_WINDOW_SPAN`] exactly inside the window: shifting the sign out leaves the
/// biased exponent in the top eight bits, and the subtraction wraps exponents below the
/// window around to huge values.
#[inline(always)]
fn excess<W: Vector>(w: W, x: W::F) -> W::I {
    w.sub(w.shift_left_1(w.bits(x)), w.splat_bits(INPUT_WINDOW_LO))
}

/// [`InputCheck`]'s field where no divisor goes to the divider: a lane of zeros (the
/// `all_ones` of such a check) never equals it.
const NO_FIELD: u32 = u32::MAX;

/// How many divisor mantissas just below 2 `rule` sends to the divider on backend `W`.
#[inline(always)]
const fn near_all_ones_divisors<W: Vector>(rule: NearAllOnes) -> u32 {
    match rule {
        #[cfg(feature = "verify")]
        NearAllOnes::Off => 0,
        NearAllOnes::OfSeed => W::NEAR_ALL_ONES_DIVISORS,
        #[cfg(feature = "verify")]
        NearAllOnes::Rcpps => NEAR_ALL_ONES_DIVISORS,
        #[cfg(feature = "verify")]
        NearAllOnes::Rcp14 => RCP14_NEAR_ALL_ONES_DIVISORS,
        #[cfg(feature = "verify")]
        NearAllOnes::Rcp14Halved => RCP14_NEAR_ALL_ONES_DIVISORS / 2,
    }
}

/// What the fast path must know about its inputs, as two unsigned quantities per lane that
/// can be combined over many vectors with a running maximum.
#[derive(Clone, Copy)]
pub struct InputCheck<W: Vector> {
    /// `max((|a| bits << 1) - LO, (|b| bits << 1) - LO)`: at most `SPAN - 1` exactly when
    /// both inputs are inside the window (see [`crate::bits::INPUT_WINDOW_LO`]).
    window: W::I,
    /// `b & field`: equal to the field exactly for near-all-ones divisors (zero for
    /// variants without that fix).
    all_ones: W::I,
    /// The near-all-ones field (`crate::bits::near_all_ones_field`) of the variant on this
    /// backend's seed; a constant once inlined.
    field: u32,
}

impl<W: Vector> InputCheck<W> {
    /// The check of one vector of inputs; with `RECIP` the dividend is the constant 1.0,
    /// which is inside the window and not tested.
    #[inline(always)]
    pub fn of<const V: u8, const RECIP: bool>(w: W, a: W::F, b: W::F) -> InputCheck<W> {
        let window = if !Variant::of(V).window {
            // No window (a weakened variant): every lane inside it.
            w.splat_bits(0)
        } else if RECIP || !Variant::of(V).dividend_window {
            excess(w, b)
        } else {
            w.max_u32(excess(w, a), excess(w, b))
        };
        let divisors = near_all_ones_divisors::<W>(Variant::of(V).near_all_ones);
        let (all_ones, field) = if divisors > 0 {
            let field = near_all_ones_field(divisors);
            (w.and(w.bits(b), w.splat_bits(field)), field)
        } else {
            (w.splat_bits(0), NO_FIELD)
        };
        InputCheck {
            window,
            all_ones,
            field,
        }
    }

    /// The input window alone, for both inputs (no near-all-ones test): what the directed
    /// step needs of a quotient from the divider.
    #[inline(always)]
    pub fn window_of(w: W, a: W::F, b: W::F) -> InputCheck<W> {
        InputCheck {
            window: w.max_u32(excess(w, a), excess(w, b)),
            all_ones: w.splat_bits(0),
            field: NO_FIELD,
        }
    }

    /// Both checks of two vectors at once (of one variant): a lane-wise maximum keeps every
    /// failure.
    #[inline(always)]
    pub fn merge(self, w: W, other: InputCheck<W>) -> InputCheck<W> {
        debug_assert_eq!(self.field, other.field, "checks of one variant");
        InputCheck {
            window: w.max_u32(self.window, other.window),
            all_ones: w.max_u32(self.all_ones, other.all_ones),
            field: self.field,
        }
    }

    /// The lanes the fast path guarantees.
    #[inline(always)]
    pub fn accepted(self, w: W) -> W::M {
        let last = w.splat_bits(INPUT_WINDOW_SPAN - 1);
        // Unsigned `window <= SPAN - 1`, as max(window, SPAN - 1) == SPAN - 1.
        let inside = w.equal(w.max_u32(self.window, last), last);
        let near_all_ones = w.equal(self.all_ones, w.splat_bits(self.field));
        w.mask_and_not(near_all_ones, inside)
    }

    /// Whether every lane is guaranteed.
    #[inline(always)]
    pub fn all_accepted(self, w: W) -> bool {
        w.all(self.accepted(w))
    }
}

/// The kernel's quotients of one vector, and the mask of lanes it cannot guarantee: the
/// division kernel, or with `RECIP` (`a` = 1.0) the reciprocal kernel.
#[inline(always)]
pub fn fast_path_of<W: Vector, const V: u8, const RECIP: bool>(
    w: W,
    a: W::F,
    b: W::F,
) -> (W::F, W::M) {
    let quotient = kernel_quotient::<W, V, RECIP>(w, a, b);
    let accepted = InputCheck::of::<V, RECIP>(w, a, b).accepted(w);
    let flagged = w.mask_not(accepted);
    (quotient, flagged)
}

/// One vector's quotients, bit-identical to the divider's: the kernel where it is exact,
/// the divider's quotient in the flagged lanes.
#[inline(always)]
pub fn div_vector_of<W: Vector, const V: u8, const RECIP: bool>(w: W, a: W::F, b: W::F) -> W::F {
    let (quotient, flagged) = fast_path_of::<W, V, RECIP>(w, a, b);
    if !w.any(flagged) {
        quotient
    } else {
        // The slow path: the hardware divider defines the bits we promise (NaN
        // propagation, signed zeros, subnormals, MXCSR flags).
        w.blend(quotient, w.div(a, b), flagged)
    }
}
