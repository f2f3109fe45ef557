//! The AVX2+FMA kernel: eight exact quotients per vector.
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
//! once per block of [`BLOCK_VECTORS`] vectors: one branch per 32 lanes.

use core::arch::x86_64::*;

use core::cell::Cell;

use crate::backoff::Backoff;
use crate::bits::{INPUT_WINDOW_LO, INPUT_WINDOW_SPAN, NEAR_ALL_ONES_FIELD};
use crate::variant::Variant;

/// Lanes per vector.
pub const LANES: usize = 8;
/// Kernel vectors per block: the check is reduced and branched on once per block.
pub const BLOCK_VECTORS: usize = 4;
/// After a kernel block failed its check, this many steps run on the divider alone: data
/// full of special values (random bit patterns) would otherwise pay a mispredicted branch
/// and a wasted kernel block each time. Each further failure with no pass between doubles
/// it (see [`crate::backoff`]) ...
const STEPS_AFTER_SLOW: u32 = 8;
/// ... up to this many: random bit patterns then waste one kernel block per this many
/// steps, and data that turns clean runs at most this many steps without the kernel.
const MAX_STEPS_AFTER_SLOW: u32 = 128;

/// The mixed loop's back-off.
type MixBackoff = Backoff<STEPS_AFTER_SLOW, MAX_STEPS_AFTER_SLOW>;

std::thread_local! {
    /// The mixed loop's back-off, kept between calls on this thread (`div` and `recip`, every
    /// schedule: a step of any of them is a kernel block and its divider vectors).
    static MIX_BACKOFF: Cell<MixBackoff> = const { Cell::new(MixBackoff::CLEAR) };
}

/// Divider vectors loaded and divided together before their stores (see
/// `divider_vectors`).
const DIVIDER_GROUP: usize = 4;

/// Marks the start or end of a code region for `llvm-mca` (`scripts/mca.sh`) in builds with
/// `--cfg fmadiv_mca`; nothing otherwise. The marker is an assembly comment: it emits no
/// instruction.
macro_rules! mca_region {
    (begin, $name:literal $(, $arg:ident = $value:expr)*) => {
        #[cfg(fmadiv_mca)]
        // SAFETY: an assembly comment; it touches no register, memory or flag.
        unsafe {
            core::arch::asm!(
                concat!("# LLVM-MCA-BEGIN ", $name)
                $(, $arg = const $value)*,
                options(nomem, nostack, preserves_flags)
            );
        }
    };
    (end) => {
        #[cfg(fmadiv_mca)]
        // SAFETY: as above.
        unsafe {
            core::arch::asm!("# LLVM-MCA-END", options(nomem, nostack, preserves_flags));
        }
    };
}

/// Proof that the CPU has AVX2 and FMA: the only way to reach the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2Fma(());

impl Avx2Fma {
    /// Returns the proof if this CPU supports AVX2 and FMA.
    #[inline]
    pub fn new() -> Option<Self> {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            Some(Avx2Fma(()))
        } else {
            None
        }
    }

    /// Returns the proof without checking.
    ///
    /// # Safety
    /// The CPU running the program must support AVX2 and FMA.
    #[inline]
    pub const unsafe fn new_unchecked() -> Self {
        Avx2Fma(())
    }

    #[cfg(feature = "verify")]
    /// Eight quotients `a / b`, bit-identical to `_mm256_div_ps`.
    #[inline]
    pub fn div8(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves that the CPU has AVX2 and FMA.
        unsafe { div8::<{ Variant::SHIPPED }>(a, b) }
    }

    #[cfg(feature = "verify")]
    /// `out[i] = a[i] / b[i]` with kernel variant `V` on every lane (see [`kernel_raw`]).
    ///
    /// # Panics
    /// If the three lengths differ.
    #[inline]
    pub fn kernel_slices<const V: u8>(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(a.len() == b.len() && b.len() == out.len());
        // SAFETY: the CPU has AVX2+FMA (`self`); a and b are readable and out writable for
        // `out.len()` elements, and `out` (a unique borrow) cannot overlap a or b.
        unsafe { kernel_raw::<V, false>(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) }
    }

    #[cfg(feature = "verify")]
    /// `out[i] = 1 / b[i]` with the reciprocal kernel (fix of variant `V`) on every lane.
    ///
    /// # Panics
    /// If the lengths differ.
    #[inline]
    pub fn recip_kernel_slices<const V: u8>(self, b: &[f32], out: &mut [f32]) {
        assert!(b.len() == out.len());
        // SAFETY: the CPU has AVX2+FMA (`self`); b is readable and out writable for
        // `out.len()` elements and cannot overlap; `a` is not read for reciprocals.
        unsafe { kernel_raw::<V, true>(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len()) }
    }
}

/// Broadcasts a bit pattern.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn splat(bits: u32) -> __m256i {
    _mm256_set1_epi32(bits as i32)
}

#[cfg(feature = "verify")]
/// The refined reciprocal `y ≈ 1/b` of the variant: Halley (cubic) or Newton (quadratic).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn reciprocal<const V: u8>(b: __m256) -> __m256 {
    refine::<V>(b, _mm256_rcp_ps(b))
}

/// The variant's refinement of a seed `r ≈ 1/b`: everything [`reciprocal`] does after
/// `rcpps`. Split out so that the every-table sweep ([`crate::sweep::conforming`]) runs
/// this very code on every seed the documentation allows, not only on this CPU's.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn refine<const V: u8>(b: __m256, r: __m256) -> __m256 {
    let one = _mm256_set1_ps(1.0);
    // e = 1 - b·r, one rounding (exact for AMD's 12-bit seeds; the proofs do not need it).
    let e = _mm256_fnmadd_ps(b, r, one);
    if Variant::of(V).halley {
        // y = r·(1 + e + e²): Halley's step, cubic convergence.
        let e2 = _mm256_fmadd_ps(e, e, e);
        _mm256_fmadd_ps(r, e2, r)
    } else {
        // y = r·(1 + e): a Newton step, which leaves up to ~2^-22 relative error.
        _mm256_fmadd_ps(r, e, r)
    }
}

/// `1/b` by the reciprocal kernel from a seed `r ≈ 1/b` (this CPU's `rcpps`, or any seed the
/// every-table sweep chooses): the variant's refined reciprocal `y` (Halley's step,
/// as in division), then Markstein's correction with the dividend 1: `y + y·(1 - b·y)`.
/// Five FMA-pipe operations and `rcpps`: the division kernel with `a = 1`, whose `q = y·a`
/// is `y` itself. Hence the same proof: for every conforming `rcpps` table,
/// `|1 - b·y| < 2^-24` for every divisor the kernel keeps (measured over all divisors and
/// all seeds the documentation allows, `fmadiv verify mantissa --rcp any`), `y` is within
/// one ulp of `1/b`, and Markstein's lemma makes the result `RN(1/b)`; the reciprocal
/// sweep (`fmadiv verify reciprocals --rcp any`) checks it by exhaustion too. (Crate
/// 0.2.0 used one Newton step here: exact on AMD's table, wrong for 30 divisors under
/// other seeds the documentation allows.)
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn reciprocal_quotient_from<const V: u8>(b: __m256, r: __m256) -> __m256 {
    let y = refine::<V>(b, r);
    // 1 - b·y is the residual of q = y·1; one FMA corrects y (Markstein).
    _mm256_fmadd_ps(y, _mm256_fnmadd_ps(b, y, _mm256_set1_ps(1.0)), y)
}

/// The kernel's quotient of one vector: the division kernel, or with `RECIP` (where `a`
/// is 1.0) the reciprocal kernel.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn kernel_quotient<const V: u8, const RECIP: bool>(a: __m256, b: __m256) -> __m256 {
    kernel_quotient_from::<V, RECIP>(a, b, _mm256_rcp_ps(b))
}

/// [`kernel_quotient`] from a given seed `r ≈ 1/b` instead of this CPU's `rcpps`: what a
/// CPU whose table gives `r` computes (for the table-independent digest and sweeps).
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn kernel_quotient_from<const V: u8, const RECIP: bool>(
    a: __m256,
    b: __m256,
    r: __m256,
) -> __m256 {
    if RECIP {
        reciprocal_quotient_from::<V>(b, r)
    } else {
        corrected_quotient(a, b, refine::<V>(b, r))
    }
}

/// Markstein's correction: `q = y·a`, `res = a - q·b` (exact), `q' = q + y·res`.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn corrected_quotient(a: __m256, b: __m256, y: __m256) -> __m256 {
    let q = _mm256_mul_ps(y, a);
    let res = _mm256_fnmadd_ps(q, b, a);
    _mm256_fmadd_ps(y, res, q)
}

/// How far `x` lies above the input window's lower edge, as an unsigned number that is
/// below [`INPUT_WINDOW_SPAN`] exactly inside the window: shifting the sign out leaves the
/// biased exponent in the top eight bits, and the subtraction wraps exponents below the
/// window around to huge values.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn excess(x: __m256) -> __m256i {
    _mm256_sub_epi32(
        _mm256_slli_epi32::<1>(_mm256_castps_si256(x)),
        splat(INPUT_WINDOW_LO),
    )
}

/// What the fast path must know about its inputs, as two unsigned quantities per lane that
/// can be combined over many vectors with a running maximum.
#[derive(Clone, Copy)]
pub struct InputCheck {
    /// `max((|a| bits << 1) - LO, (|b| bits << 1) - LO)`: at most `SPAN - 1` exactly when
    /// both inputs are inside the window (see [`crate::bits::INPUT_WINDOW_LO`]).
    window: __m256i,
    /// `b & NEAR_ALL_ONES_FIELD`: equal to the field exactly for near-all-ones divisors
    /// (zero for variants without that fix).
    all_ones: __m256i,
}

impl InputCheck {
    /// The check of one vector of inputs; with `RECIP` the dividend is the constant 1.0,
    /// which is inside the window and not tested.
    ///
    /// # Safety
    /// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn of<const V: u8, const RECIP: bool>(a: __m256, b: __m256) -> InputCheck {
        let window = if RECIP {
            excess(b)
        } else {
            _mm256_max_epu32(excess(a), excess(b))
        };
        let all_ones = if Variant::of(V).all_ones_fix {
            _mm256_and_si256(_mm256_castps_si256(b), splat(NEAR_ALL_ONES_FIELD))
        } else {
            _mm256_setzero_si256()
        };
        InputCheck { window, all_ones }
    }

    /// The input window alone, for both inputs (no near-all-ones test): what the directed
    /// step needs of a quotient from the divider.
    ///
    /// # Safety
    /// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn window_of(a: __m256, b: __m256) -> InputCheck {
        InputCheck {
            window: _mm256_max_epu32(excess(a), excess(b)),
            all_ones: _mm256_setzero_si256(),
        }
    }

    /// Both checks of two vectors at once: a lane-wise maximum keeps every failure.
    ///
    /// # Safety
    /// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn merge(self, other: InputCheck) -> InputCheck {
        InputCheck {
            window: _mm256_max_epu32(self.window, other.window),
            all_ones: _mm256_max_epu32(self.all_ones, other.all_ones),
        }
    }

    /// All-ones in the lanes the fast path guarantees.
    ///
    /// # Safety
    /// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn accepted(self) -> __m256i {
        let last = splat(INPUT_WINDOW_SPAN - 1);
        // Unsigned `window <= SPAN - 1`, as max(window, SPAN - 1) == SPAN - 1.
        let inside = _mm256_cmpeq_epi32(_mm256_max_epu32(self.window, last), last);
        let near_all_ones = _mm256_cmpeq_epi32(self.all_ones, splat(NEAR_ALL_ONES_FIELD));
        _mm256_andnot_si256(near_all_ones, inside)
    }

    /// Whether every lane is guaranteed.
    ///
    /// # Safety
    /// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub fn all_accepted(self) -> bool {
        // testc: 1 when every bit of the all-ones vector is set in `accepted`.
        _mm256_testc_si256(self.accepted(), _mm256_set1_epi32(-1)) == 1
    }
}

#[cfg(feature = "verify")]
/// Eight quotients by the fast path, and the mask of lanes it cannot guarantee.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn fast_path<const V: u8>(a: __m256, b: __m256) -> (__m256, __m256) {
    fast_path_of::<V, false>(a, b)
}

/// [`fast_path`] of the division kernel, or with `RECIP` (`a` = 1.0) of the reciprocal
/// kernel.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn fast_path_of<const V: u8, const RECIP: bool>(a: __m256, b: __m256) -> (__m256, __m256) {
    let quotient = kernel_quotient::<V, RECIP>(a, b);
    let accepted = InputCheck::of::<V, RECIP>(a, b).accepted();
    let flagged = _mm256_xor_si256(accepted, _mm256_set1_epi32(-1));
    (quotient, _mm256_castsi256_ps(flagged))
}

/// Eight quotients, bit-identical to `_mm256_div_ps(a, b)`.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div8<const V: u8>(a: __m256, b: __m256) -> __m256 {
    div8_of::<V, false>(a, b)
}

/// [`div8`] of the division kernel, or with `RECIP` (`a` = 1.0) of the reciprocal kernel.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div8_of<const V: u8, const RECIP: bool>(a: __m256, b: __m256) -> __m256 {
    let (quotient, flagged) = fast_path_of::<V, RECIP>(a, b);
    if _mm256_testz_ps(flagged, flagged) == 1 {
        quotient
    } else {
        // The slow path: the hardware divider defines the bits we promise (NaN
        // propagation, signed zeros, subnormals, MXCSR flags).
        _mm256_blendv_ps(quotient, _mm256_div_ps(a, b), flagged)
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) by the hardware divider alone, with
/// the same tail handling as [`div_raw`].
///
/// # Safety
/// - The CPU must support AVX2 and FMA.
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a` (same address).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn divider_raw<const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let mut i = 0;
    while i + DIVIDER_GROUP * LANES <= len {
        mca_region!(begin, "divider recip={r}", r = RECIP as usize);
        // SAFETY: i + DIVIDER_GROUP·LANES <= len: inside the inputs and the output; the
        // caller's guarantees otherwise.
        unsafe { divider_group::<RECIP>(a, b, out, i) };
        mca_region!(end);
        i += DIVIDER_GROUP * LANES;
    }
    // SAFETY: the caller's guarantees, passed on; i <= len.
    unsafe { divider_vectors::<RECIP>(a, b, out, i, len) }
}

/// [`divider_raw`] where `out` does not overlap `a` or `b`: the plain loop over slices, so
/// the compiler knows they do not alias and schedules loads and stores freely (as a loop
/// written over `&[f32]` and `&mut [f32]` by hand would be), then the masked tail.
///
/// # Safety
/// - The CPU must support AVX2 and FMA.
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats, and `out` must not overlap `a` or `b`.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn divider_disjoint<const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees: valid for `len` floats, `out` disjoint from both.
    let (bs, os) = unsafe {
        (
            core::slice::from_raw_parts(b, len),
            core::slice::from_raw_parts_mut(out, len),
        )
    };
    let full = len - len % LANES;
    if RECIP {
        let one = _mm256_set1_ps(1.0);
        for (o, y) in os[..full]
            .chunks_exact_mut(LANES)
            .zip(bs.chunks_exact(LANES))
        {
            // SAFETY: each chunk holds exactly LANES floats.
            unsafe {
                _mm256_storeu_ps(
                    o.as_mut_ptr(),
                    _mm256_div_ps(one, _mm256_loadu_ps(y.as_ptr())),
                )
            };
        }
    } else {
        // SAFETY: the caller's guarantee for `a`.
        let xs = unsafe { core::slice::from_raw_parts(a, len) };
        let chunks = os[..full]
            .chunks_exact_mut(LANES)
            .zip(xs.chunks_exact(LANES))
            .zip(bs.chunks_exact(LANES));
        for ((o, x), y) in chunks {
            // SAFETY: each chunk holds exactly LANES floats.
            unsafe {
                let q = _mm256_div_ps(_mm256_loadu_ps(x.as_ptr()), _mm256_loadu_ps(y.as_ptr()));
                _mm256_storeu_ps(o.as_mut_ptr(), q);
            }
        }
    }
    if full < len {
        // SAFETY: the caller's guarantees; `len - full` < LANES elements remain at `full`.
        unsafe { divider_tail::<RECIP>(a, b, out, full, len - full) }
    }
}

/// Divides element `from` up to `len` on the divider: whole vectors, then a masked tail.
///
/// # Safety
/// As [`divider_raw`], with `from <= len`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_vectors<const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    len: usize,
) {
    let mut i = from;
    // Four vectors are loaded and divided before any of them is stored: later loads then
    // need not wait behind earlier stores (which the CPU may mistake for a dependency when
    // the arrays' addresses agree modulo 4 KiB), as in a loop over non-aliasing slices.
    // Every load of a group precedes its stores, so `out == a` stays correct.
    while i + DIVIDER_GROUP * LANES <= len {
        // SAFETY: i + DIVIDER_GROUP·LANES <= len: inside the inputs and the output.
        unsafe { divider_group::<RECIP>(a, b, out, i) };
        i += DIVIDER_GROUP * LANES;
    }
    while i + LANES <= len {
        // SAFETY: i + LANES <= len: inside the inputs and the output; unaligned access is
        // allowed; each vector is loaded before its store, so `out == a` is fine.
        unsafe {
            let q = _mm256_div_ps(load_a::<RECIP>(a, i), _mm256_loadu_ps(b.add(i)));
            _mm256_storeu_ps(out.add(i), q);
        }
        i += LANES;
    }
    if i < len {
        // SAFETY: the caller's guarantees; `len - i` < LANES elements remain at i.
        unsafe { divider_tail::<RECIP>(a, b, out, i, len - i) }
    }
}

/// [`DIVIDER_GROUP`] vectors from element `i` through the divider: all loaded and divided
/// before any is stored (see [`divider_vectors`]).
///
/// # Safety
/// As [`divider_raw`], with `i + DIVIDER_GROUP * LANES <= len`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_group<const RECIP: bool>(a: *const f32, b: *const f32, out: *mut f32, i: usize) {
    // SAFETY: the caller's guarantees; unaligned access is allowed.
    unsafe {
        let q: [__m256; DIVIDER_GROUP] = core::array::from_fn(|k| {
            let j = i + k * LANES;
            _mm256_div_ps(load_a::<RECIP>(a, j), _mm256_loadu_ps(b.add(j)))
        });
        for (k, q) in q.iter().enumerate() {
            _mm256_storeu_ps(out.add(i + k * LANES), *q);
        }
    }
}

/// The `D` divider vectors of a mixed step from element `i`: whole groups, then single
/// vectors; a trip count known at compile time, so the compiler unrolls it.
///
/// # Safety
/// As [`divider_raw`], with `i + D * LANES <= len`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_step<const RECIP: bool, const D: usize>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
) {
    let mut k = 0;
    while k + DIVIDER_GROUP <= D {
        // SAFETY: k + DIVIDER_GROUP <= D: inside the step.
        unsafe { divider_group::<RECIP>(a, b, out, i + k * LANES) };
        k += DIVIDER_GROUP;
    }
    while k < D {
        let j = i + k * LANES;
        // SAFETY: k < D: inside the step; each vector is loaded before its store.
        unsafe {
            let q = _mm256_div_ps(load_a::<RECIP>(a, j), _mm256_loadu_ps(b.add(j)));
            _mm256_storeu_ps(out.add(j), q);
        }
        k += 1;
    }
}

/// The last `rest < 8` elements: masked loads and stores touch only them, and the lanes
/// beyond are padded with 1/1 so that no spurious exception flag is raised.
///
/// # Safety
/// As [`divider_raw`], with `from + rest <= len` and `rest < LANES`.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_tail<const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    from: usize,
    rest: usize,
) {
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // All-ones in the first `rest` lanes.
    let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(rest as i32), lanes);
    let one = _mm256_set1_ps(1.0);
    let pad = |v: __m256| _mm256_blendv_ps(one, v, _mm256_castsi256_ps(mask));
    // SAFETY: masked loads and stores access only the lanes in `mask`, which are the
    // `rest` elements from `from`, inside the slices; masked-off lanes never fault.
    unsafe {
        let va = if RECIP {
            one
        } else {
            pad(_mm256_maskload_ps(a.add(from), mask))
        };
        let vb = pad(_mm256_maskload_ps(b.add(from), mask));
        _mm256_maskstore_ps(out.add(from), mask, _mm256_div_ps(va, vb));
    }
}

/// Loads eight dividends at `i`, or the constant 1.0 for reciprocals.
///
/// # Safety
/// Unless `RECIP`, `a + i .. a + i + 8` must be readable.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load_a<const RECIP: bool>(a: *const f32, i: usize) -> __m256 {
    if RECIP {
        _mm256_set1_ps(1.0)
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { _mm256_loadu_ps(a.add(i)) }
    }
}

/// `out[i] = a[i] / b[i]` (or `1 / b[i]` with `RECIP`) for `len` elements; `out` may be
/// `a` itself.
///
/// Each step takes a block of [`BLOCK_VECTORS`] vectors through the FMA kernel and `D`
/// further vectors through the hardware divider: the divider and the FMA pipes are separate
/// resources, so on CPUs that overlap them the two run side by side (`D = 0`: the kernel
/// alone). The kernel block's quotients are stored only when its input check passes;
/// otherwise the block is recomputed by the divider and the following steps use the
/// divider alone (a back-off kept between calls on this thread: `MIX_BACKOFF`). What
/// does not fill a step goes to the divider.
///
/// # Safety
/// - The CPU must support AVX2 and FMA.
/// - `a` (unless `RECIP`) and `b` must be valid for reads and `out` for writes of `len`
///   floats.
/// - `out` must either not overlap `a` and `b` at all, or be exactly `a` (same address).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_raw<const V: u8, const D: usize, const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let kernel_len = BLOCK_VECTORS * LANES;
    let step = kernel_len + D * LANES;
    let mut i = 0;
    if len >= step {
        let mut backoff = MixBackoff::load(&MIX_BACKOFF);
        while i + step <= len {
            if backoff.skip() > 0 {
                // SAFETY: i + step <= len; the caller's guarantees otherwise.
                let (end, steps) =
                    unsafe { divider_stretch::<RECIP>(a, b, out, i, step, len, backoff.skip()) };
                backoff.skipped(steps);
                i = end;
                continue;
            }
            mca_region!(begin, "mix-{d} recip={r}", d = D, r = RECIP as usize);
            // SAFETY: every access below is to an element < i + step <= len; unaligned loads
            // and stores accept any address; the kernel block is loaded before anything in
            // it is stored, and each divider vector is loaded before its store, so
            // `out == a` is fine.
            unsafe {
                let (quotients, check) = kernel_block::<V, RECIP>(a, b, i);
                divider_step::<RECIP, D>(a, b, out, i + kernel_len);
                if check.all_accepted() {
                    store_block(out, i, &quotients);
                    backoff.passed();
                } else {
                    backoff.failed();
                    divider_block::<RECIP>(a, b, out, i);
                }
            }
            mca_region!(end);
            i += step;
        }
        backoff.store(&MIX_BACKOFF);
    }
    // Less than a step remains: the divider takes it.
    // SAFETY: i <= len; the caller's guarantees.
    unsafe { divider_vectors::<RECIP>(a, b, out, i, len) }
}

/// [`div_raw`] where MXCSR rounds to nearest; elsewhere the divider, which obeys the mode
/// in force (the kernel's FMAs give the bits of `vdivps` under round-to-nearest only). What
/// the plan runs for the kernel's schedules: the check costs one addition per call, and
/// none for slices shorter than one step of the loop (those run on the divider anyway).
///
/// # Safety
/// As [`div_raw`].
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_raw_guarded<const V: u8, const D: usize, const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let step = (BLOCK_VECTORS + D) * LANES;
    // SAFETY: the caller's guarantees are both loops'.
    unsafe {
        if len < step || super::directed::rounds_to_nearest() {
            div_raw::<V, D, RECIP>(a, b, out, len)
        } else {
            divider_vectors::<RECIP>(a, b, out, 0, len)
        }
    }
}

/// The slow path of a kernel block that failed its check: its vectors on the divider.
///
/// # Safety
/// As [`div_raw`], with `i + BLOCK_VECTORS * LANES <= len`.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_block<const RECIP: bool>(a: *const f32, b: *const f32, out: *mut f32, i: usize) {
    // SAFETY: the caller's guarantees.
    unsafe { divider_vectors::<RECIP>(a, b, out, i, i + BLOCK_VECTORS * LANES) }
}

/// After a failed block: up to `steps` steps from element `i` on the divider alone (fewer
/// if less than a step remains); returns where the next step starts and how many steps
/// ran.
///
/// # Safety
/// As [`div_raw`], with `i + step <= len`.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
unsafe fn divider_stretch<const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    i: usize,
    step: usize,
    len: usize,
    steps: u32,
) -> (usize, u32) {
    let whole = ((len - i) / step).min(steps as usize);
    let end = i + whole * step;
    // SAFETY: end <= len; the caller's guarantees otherwise.
    unsafe { divider_vectors::<RECIP>(a, b, out, i, end) };
    // `whole <= steps`, a u32.
    (end, whole as u32)
}

/// The kernel on one block of [`BLOCK_VECTORS`] vectors from element `i`: the quotients
/// and the merged input check, nothing stored.
///
/// # Safety
/// AVX2+FMA; `a` (unless `RECIP`) and `b` readable for `i + BLOCK_VECTORS * LANES`
/// elements.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn kernel_block<const V: u8, const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    i: usize,
) -> ([__m256; BLOCK_VECTORS], InputCheck) {
    let mut quotients = [_mm256_setzero_ps(); BLOCK_VECTORS];
    let mut check: Option<InputCheck> = None;
    for (k, q) in quotients.iter_mut().enumerate() {
        let j = i + k * LANES;
        // SAFETY: j + LANES <= i + BLOCK_VECTORS * LANES, readable (the caller's guarantee).
        let (va, vb) = unsafe { (load_a::<RECIP>(a, j), _mm256_loadu_ps(b.add(j))) };
        *q = kernel_quotient::<V, RECIP>(va, vb);
        let c = InputCheck::of::<V, RECIP>(va, vb);
        check = Some(check.map_or(c, |acc| acc.merge(c)));
    }
    // BLOCK_VECTORS > 0, so the check was set.
    (quotients, check.expect("a block has vectors"))
}

/// Stores a kernel block's quotients at element `i`.
///
/// # Safety
/// `out` writable for `i + BLOCK_VECTORS * LANES` elements.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store_block(out: *mut f32, i: usize, quotients: &[__m256; BLOCK_VECTORS]) {
    for (k, q) in quotients.iter().enumerate() {
        // SAFETY: inside the output (the caller's guarantee).
        unsafe { _mm256_storeu_ps(out.add(i + k * LANES), *q) };
    }
}

#[cfg(feature = "verify")]
/// The kernel variant `V` (with `RECIP`: the reciprocal kernel) on every lane, for
/// verification: blocks as in [`div_raw`], but a
/// flagged block, the vectors that do not fill a block and the tail (padded with 1/1) go
/// lane by lane through [`div8`], so every lane the fast path accepts is computed by the
/// kernel; there is no fallback to the divider for whole blocks.
///
/// # Safety
/// As [`div_raw`].
#[target_feature(enable = "avx2,fma")]
pub unsafe fn kernel_raw<const V: u8, const RECIP: bool>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let block = BLOCK_VECTORS * LANES;
    let mut i = 0;
    while i + block <= len {
        // SAFETY: i + block <= len: inside the slices; each vector is loaded before it is
        // stored.
        unsafe {
            let (quotients, check) = kernel_block::<V, RECIP>(a, b, i);
            if check.all_accepted() {
                store_block(out, i, &quotients);
            } else {
                for k in 0..BLOCK_VECTORS {
                    let j = i + k * LANES;
                    let q = div8_of::<V, RECIP>(load_a::<RECIP>(a, j), _mm256_loadu_ps(b.add(j)));
                    _mm256_storeu_ps(out.add(j), q);
                }
            }
        }
        i += block;
    }
    while i < len {
        let n = (len - i).min(LANES);
        let (mut ta, mut tb) = ([1.0f32; LANES], [1.0f32; LANES]);
        // SAFETY: n elements from i are inside the slices; the arrays are local.
        unsafe {
            if !RECIP {
                core::ptr::copy_nonoverlapping(a.add(i), ta.as_mut_ptr(), n);
            }
            core::ptr::copy_nonoverlapping(b.add(i), tb.as_mut_ptr(), n);
            let q = div8_of::<V, RECIP>(_mm256_loadu_ps(ta.as_ptr()), _mm256_loadu_ps(tb.as_ptr()));
            _mm256_storeu_ps(ta.as_mut_ptr(), q);
            core::ptr::copy_nonoverlapping(ta.as_ptr(), out.add(i), n);
        }
        i += n;
    }
}
