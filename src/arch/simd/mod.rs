//! The kernels and loops, written once over the operations of one vector width.
//!
//! [`Vector`] is what they need of a SIMD backend: loads and stores (partial ones for the
//! tails), `div`, `rcp`, FMA, the integer operations of the input check and the directed
//! step, lane masks, and `vdivps` under a given rounding mode. A backend (AVX2+FMA's eight
//! lanes, `x86_64::avx2`) implements it in one file; [`kernel`], [`loops`] and [`directed`]
//! are generic over it, `#[inline(always)]`, and compiled for the backend's features by its
//! `#[target_feature]` entry points (memchr's generic `Vector` over its per-ISA files is the
//! model). A new width is one such file, one variant of `crate::Backend` with its detection
//! (`crate::dispatch`), and one arm where the backend is chosen: the plan's loops
//! (`crate::schedule::variant_fn_on`, `disjoint_variant_fn_on`), the directed functions
//! (`crate::rounding`) and the `Divisor`'s loops (`crate::divisor`: lane-checked, and
//! flag-checked on the engine of [`flagged`]).
//!
//! Lane masks are a type of the backend's own ([`Vector::M`]): AVX2's are integer vectors
//! whose lanes are all ones or all zeros, AVX-512's are `k` registers (one bit a lane).
//! The generic code combines them only through the trait, so neither width converts; where
//! it needs a mask as numbers (the directed step's `±1`), [`Vector::mask_lanes`] makes them,
//! free on AVX2.

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

pub mod directed;
#[cfg(feature = "verify")]
pub mod directed_mixed;
pub mod divider;
pub mod flagged;
pub mod kernel;
pub mod loops;

/// `[f(0), …, f(N - 1)]` by a plain loop over an array first filled with `fill`.
/// `core::array::from_fn` is not reliably inlined into the backends' `#[target_feature]`
/// entry points, and out of line its closure runs without their features: one call per
/// vector (`div_in_place` measured at a quarter of the divider's speed that way).
#[inline(always)]
pub fn array_of<T: Copy, const N: usize>(fill: T, mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [fill; N];
    for (k, o) in out.iter_mut().enumerate() {
        *o = f(k);
    }
    out
}

/// A backend's entry points, `pub mod entry` in the invoking file: the generic loops of
/// [`loops`] and [`directed`] instantiated for the proof type `$W` and compiled with
/// `#[target_feature(enable = $features)]`, the features `$W` proves. The plan's schedules
/// and the directed functions call these (as function pointers or directly); they are the
/// same for every width, so a backend writes none of them by hand.
macro_rules! entry_points {
    ($W:ident, $features:literal) => {
        /// The plan's loops and the directed loops compiled for this backend (see
        /// [`crate::arch::simd::entry_points`]). Each has the safety conditions of the
        /// generic loop it runs, and runs only where the backend's features are present.
        pub mod entry {
            use super::$W;
            use crate::arch::simd::{Vector, directed, divider, loops};

            /// [`Vector::ALIGNS_STORES`] of this backend: whether its slice loops begin
            /// with the head to the output's cache line ([`divider::line_head`]; read by
            /// the verification door).
            #[cfg(feature = "verify")]
            pub const ALIGNS_STORES: bool = <$W as Vector>::ALIGNS_STORES;

            /// [`divider::divider_raw`].
            ///
            /// # Safety
            /// The backend's features; [`divider::divider_raw`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn divider<const RECIP: bool>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: this function runs only where the features are present; the
                // caller's pointers.
                unsafe { divider::divider_raw::<$W, RECIP>($W::assume(), a, b, out, len) }
            }

            /// [`divider::divider_disjoint`].
            ///
            /// # Safety
            /// The backend's features; [`divider::divider_disjoint`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn divider_disjoint<const RECIP: bool>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe { divider::divider_disjoint::<$W, RECIP>($W::assume(), a, b, out, len) }
            }

            /// [`loops::kernel_raw`]: the kernel of variant `V` on every lane (the
            /// sweeps' and tests' forced kernel).
            ///
            /// # Safety
            /// The backend's features; [`loops::kernel_raw`]'s conditions.
            #[cfg(feature = "verify")]
            #[target_feature(enable = $features)]
            pub unsafe fn kernel<const V: u8, const RECIP: bool>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe { loops::kernel_raw::<$W, V, RECIP>($W::assume(), a, b, out, len) }
            }

            /// [`loops::div_raw_guarded`] (`GUARDED`) or [`loops::div_raw`].
            ///
            /// # Safety
            /// The backend's features; [`loops::div_raw`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn mixed<
                const V: u8,
                const D: usize,
                const RECIP: bool,
                const GUARDED: bool,
            >(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe {
                    let w = $W::assume();
                    if GUARDED {
                        loops::div_raw_guarded::<$W, V, D, RECIP>(w, a, b, out, len)
                    } else {
                        loops::div_raw::<$W, V, D, RECIP>(w, a, b, out, len)
                    }
                }
            }

            /// [`directed::div_rounded_raw`] without the head to the output's vector
            /// boundary (`HEAD` false) or with it (true, where [`directed::takes_head`] says
            /// so for [`directed::rounded_head_from`]): one entry point each.
            ///
            /// # Safety
            /// The backend's features; [`directed::div_rounded_raw`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn div_rounded<const MODE: u8, const V: u8, const HEAD: bool>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe {
                    directed::div_rounded_raw::<$W, MODE, V, HEAD>($W::assume(), a, b, out, len)
                }
            }

            /// Whether `div_rounded`'s step loop over `len` elements takes the head.
            pub const fn rounded_takes_head(len: usize) -> bool {
                directed::takes_head::<$W>(len, directed::rounded_head_from::<$W>())
            }

            /// [`directed::one_pass`] for this backend: whether `div_rounded` over `len`
            /// elements takes [`div_in_mode`] rather than [`div_rounded`] (two functions, so
            /// that the short calls keep the step's small frame).
            #[inline(always)]
            pub const fn one_pass(len: usize) -> bool {
                directed::one_pass::<$W>(len)
            }

            /// [`directed::div_bounds_raw`] without the head to the lower bounds' vector
            /// boundary (`HEAD` false) or with it (true, where [`bounds_takes_head`] says so):
            /// one entry point each.
            ///
            /// # Safety
            /// The backend's features; [`directed::div_bounds_raw`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn div_bounds<const V: u8, const HEAD: bool>(
                a: *const f32,
                b: *const f32,
                lo: *mut f32,
                hi: *mut f32,
                len: usize,
                form: directed::BoundsForm,
            ) {
                // SAFETY: as in `divider`.
                unsafe {
                    let w = $W::assume();
                    directed::div_bounds_raw::<$W, V, HEAD>(w, a, b, lo, hi, len, form)
                }
            }

            /// Whether `div_bounds`' step loop over `len` elements in `form` takes the head.
            pub const fn bounds_takes_head(len: usize, form: directed::BoundsForm) -> bool {
                directed::takes_head::<$W>(len, form.head_from::<$W>())
            }

            /// [`crate::arch::simd::directed_mixed::div_rounded_mixed_raw`]: kernel variant
            /// `V`, step variant `S`, `d` divider vectors per kernel block.
            ///
            /// # Safety
            /// The backend's features;
            /// [`crate::arch::simd::directed_mixed::div_rounded_mixed_raw`]'s conditions.
            #[cfg(feature = "verify")]
            #[target_feature(enable = $features)]
            pub unsafe fn div_rounded_mixed<const MODE: u8, const V: u8, const S: u8>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
                d: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe {
                    crate::arch::simd::directed_mixed::div_rounded_mixed_raw::<$W, MODE, V, S>(
                        $W::assume(),
                        a,
                        b,
                        out,
                        len,
                        d,
                    )
                }
            }

            /// [`crate::arch::simd::directed_mixed::div_bounds_mixed_raw`]: kernel variant
            /// `V`, step variant `S`, `d` divider vectors per kernel block, `form` the CPU's
            /// form of the shipped `div_bounds` (where it takes that).
            ///
            /// # Safety
            /// The backend's features;
            /// [`crate::arch::simd::directed_mixed::div_bounds_mixed_raw`]'s conditions.
            #[cfg(feature = "verify")]
            #[target_feature(enable = $features)]
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn div_bounds_mixed<const V: u8, const S: u8>(
                a: *const f32,
                b: *const f32,
                lo: *mut f32,
                hi: *mut f32,
                len: usize,
                d: usize,
                form: directed::BoundsForm,
            ) {
                // SAFETY: as in `divider`.
                unsafe {
                    crate::arch::simd::directed_mixed::div_bounds_mixed_raw::<$W, V, S>(
                        $W::assume(),
                        a,
                        b,
                        lo,
                        hi,
                        len,
                        d,
                        form,
                    )
                }
            }

            /// [`directed::div_in_mode_raw`].
            ///
            /// # Safety
            /// The backend's features; [`directed::div_in_mode_raw`]'s conditions.
            #[target_feature(enable = $features)]
            pub unsafe fn div_in_mode<const MODE: u8>(
                a: *const f32,
                b: *const f32,
                out: *mut f32,
                len: usize,
            ) {
                // SAFETY: as in `divider`.
                unsafe { directed::div_in_mode_raw::<$W, MODE>($W::assume(), a, b, out, len) }
            }
        }
    };
}
pub(crate) use entry_points;

/// One SIMD width's operations. An implementor is a zero-sized proof that the CPU has the
/// instructions its methods use: a value exists only where they were detected or enabled
/// at compile time, so the methods taking `self` are safe to call; those taking pointers
/// are `unsafe` for the memory they touch.
///
/// # Safety
/// Implementing it promises that no value of the type exists unless the CPU has every
/// instruction the methods execute.
pub unsafe trait Vector: Copy {
    /// Lanes per vector.
    const LANES: usize;
    /// Whether the divider takes a rounding direction in the instruction (AVX-512's
    /// embedded rounding, which suppresses every exception): then a directed division needs
    /// no MXCSR write and costs what a plain one does, and raises no flag.
    const EMBEDDED_ROUNDING: bool;
    /// Whether the slice loops first divide the elements before the output's first cache
    /// line boundary (one partial vector; from `divider::LINE_HEAD_FROM` elements), so that
    /// every whole vector after them is stored inside one line: where a vector is a whole
    /// line, an output on no line's start (a `Vec<f32>` from the system allocator sits 16
    /// bytes past one) makes every store write two (the head: `divider::line_head`).
    const ALIGNS_STORES: bool;
    /// How many divisor mantissas just below 2 the shipped kernel sends to the divider on
    /// this backend: as many as Markstein's correction may round wrongly after Halley's step
    /// from some seed within the bound of the backend's `rcp` (`crate::bits`'
    /// `NEAR_ALL_ONES_DIVISORS` for `rcpps`, `RCP14_NEAR_ALL_ONES_DIVISORS` for
    /// `vrcp14ps`; [`crate::kernel_notes`]).
    const NEAR_ALL_ONES_DIVISORS: u32;
    /// `LANES` f32 lanes.
    type F: Copy;
    /// `LANES` 32-bit lanes of bit patterns.
    type I: Copy;
    /// A mask of lanes: which lanes a compare found true.
    type M: Copy;

    /// Loads `LANES` floats from `p`.
    ///
    /// # Safety
    /// `p` readable for `LANES` floats (any alignment).
    unsafe fn load(self, p: *const f32) -> Self::F;
    /// Stores `LANES` floats at `p`.
    ///
    /// # Safety
    /// `p` writable for `LANES` floats (any alignment).
    unsafe fn store(self, p: *mut f32, v: Self::F);
    /// The first `n <= LANES` floats at `p`, the other lanes `pad`: nothing past them is
    /// touched.
    ///
    /// # Safety
    /// `p` readable for `n` floats.
    unsafe fn load_partial(self, p: *const f32, n: usize, pad: f32) -> Self::F;
    /// Stores the first `n <= LANES` lanes of `v` at `p`, touching nothing past them.
    ///
    /// # Safety
    /// `p` writable for `n` floats.
    unsafe fn store_partial(self, p: *mut f32, n: usize, v: Self::F);

    /// Every lane `x`.
    fn splat(self, x: f32) -> Self::F;
    /// `a / b`, correctly rounded in the MXCSR mode in force (the divider).
    fn div(self, a: Self::F, b: Self::F) -> Self::F;
    /// `a · b`.
    fn mul(self, a: Self::F, b: Self::F) -> Self::F;
    /// `a · b + c`, one rounding.
    fn mul_add(self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// `c − a · b`, one rounding.
    fn neg_mul_add(self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// The reciprocal seed `≈ 1/b` (`rcpps`: about 12 bits).
    fn rcp(self, b: Self::F) -> Self::F;
    /// `a / b` by the divider rounded in direction `mode` (MXCSR's numbering), flush-to-zero
    /// and denormals-are-zero as MXCSR holds them. Without [`Vector::EMBEDDED_ROUNDING`]:
    /// MXCSR's rounding field set for this division alone and restored inside one `asm!`
    /// block, the flags raised kept; with it: the direction in the instruction, MXCSR
    /// untouched and no flag raised.
    fn div_in_mode(self, a: Self::F, b: Self::F, mode: u8) -> Self::F;
    /// `out[i] = a[i] / b[i]` by the divider rounded in direction `MODE` for `vectors` whole
    /// vectors: MXCSR set once and restored inside one `asm!` block, or (with
    /// [`Vector::EMBEDDED_ROUNDING`]) the direction in every instruction, no flag raised.
    ///
    /// # Safety
    /// `a` and `b` readable and `out` writable for `vectors · LANES` floats; `out` overlaps
    /// neither input, or is exactly `a`.
    unsafe fn div_in_mode_region<const MODE: u8>(
        self,
        a: *const f32,
        b: *const f32,
        out: *mut f32,
        vectors: usize,
    );

    /// The lanes' bit patterns.
    fn bits(self, x: Self::F) -> Self::I;
    /// The floats of bit patterns.
    fn float(self, x: Self::I) -> Self::F;
    /// Every lane `bits`.
    fn splat_bits(self, bits: u32) -> Self::I;
    /// Lane-wise wrapping `a + b`.
    fn add(self, a: Self::I, b: Self::I) -> Self::I;
    /// Lane-wise wrapping `a − b`.
    fn sub(self, a: Self::I, b: Self::I) -> Self::I;
    /// `a & b`.
    fn and(self, a: Self::I, b: Self::I) -> Self::I;
    /// `a ^ b`.
    fn xor(self, a: Self::I, b: Self::I) -> Self::I;
    /// `a | b`.
    fn or(self, a: Self::I, b: Self::I) -> Self::I;
    /// `a << 1`.
    fn shift_left_1(self, a: Self::I) -> Self::I;
    /// Lane-wise unsigned maximum.
    fn max_u32(self, a: Self::I, b: Self::I) -> Self::I;
    /// The lanes where `a == b`.
    fn equal(self, a: Self::I, b: Self::I) -> Self::M;
    /// The lanes where `a > b` as signed integers.
    fn greater(self, a: Self::I, b: Self::I) -> Self::M;
    /// Lane-wise signed minimum.
    fn min_signed(self, a: Self::I, b: Self::I) -> Self::I;
    /// The directed step's move from a quotient's pattern `q` by its residual `r` and its
    /// dividend `a`: `q + 1` where `r` and `a` have the same sign, `q - 1` where they
    /// differ, `q` where `r` is a zero of either sign (or a NaN), wrapping; for `a` not a
    /// zero (the kernel's window holds none: `psignd` reads `+0` as no sign). Each width
    /// writes it its cheapest way: two `psignd` on AVX2, a masked add on AVX-512 (which
    /// has no `psignd`).
    fn step_by_signs(self, q: Self::I, r: Self::F, a: Self::F) -> Self::I;
    /// [`Vector::step_by_signs`] where the residual is never `-0` (MXCSR not rounding down,
    /// where an exact zero sum is `+0`): the same lanes wherever `r` is neither `-0` nor a
    /// NaN (nor a subnormal DAZ reads as zero), with no more flags; a width whose general
    /// form costs nothing more answers with it.
    fn step_by_signs_plus_zero(self, q: Self::I, r: Self::F, a: Self::F) -> Self::I;
    /// The lanes where `x` is not a zero of either sign (nor a NaN).
    fn nonzero(self, x: Self::F) -> Self::M;
    /// The lanes where `x < 0` (not `-0`), by a signaling compare: a NaN raises invalid.
    fn negative_signaling(self, x: Self::F) -> Self::M;
    /// Lane-wise `min(a, b)` of floats that are not NaNs, and not both zeros.
    fn minimum(self, a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `max(a, b)` of floats that are not NaNs, and not both zeros.
    fn maximum(self, a: Self::F, b: Self::F) -> Self::F;

    /// No lane.
    fn no_lanes(self) -> Self::M;
    /// The lanes of `b` that are not in `a`.
    fn mask_and_not(self, a: Self::M, b: Self::M) -> Self::M;
    /// The lanes of `a` or `b`.
    fn mask_or(self, a: Self::M, b: Self::M) -> Self::M;
    /// The lanes not in `m`.
    fn mask_not(self, m: Self::M) -> Self::M;
    /// `-1` (all ones) in the lanes of `m`, `0` elsewhere.
    fn mask_lanes(self, m: Self::M) -> Self::I;
    /// Whether every lane is in `m`.
    fn all(self, m: Self::M) -> bool;
    /// Whether any lane is in `m`.
    fn any(self, m: Self::M) -> bool;
    /// `b` in the lanes of `m`, `a` elsewhere.
    fn blend(self, a: Self::F, b: Self::F, m: Self::M) -> Self::F;

    /// Runs `f` out of line, in a function compiled for the backend's instructions (a
    /// generic function cannot name them): the slow paths the hot loops keep out of their
    /// bodies. `f` must be an `#[inline(always)]` closure: a closure is compiled without the
    /// caller's target features, and one the inliner leaves out of line calls every
    /// intrinsic as a function (`scripts/outlined.sh` checks that none is). Hot code is
    /// compiled for a backend differently: a `#[target_feature]` function of its own whose
    /// operands arrive in registers (the backend's `entry` points, `divisor::x86`) inlines
    /// the generic loops.
    fn cold<R>(self, f: impl FnOnce() -> R) -> R;

    /// The proof, without checking.
    ///
    /// # Safety
    /// The CPU running the program must have the backend's instructions.
    unsafe fn assume() -> Self;
}
