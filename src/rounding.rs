//! Directed rounding: `a / b` rounded down, up, toward zero or to nearest, with the bits of
//! `vdivps` under that MXCSR rounding mode, whatever mode MXCSR holds.

use crate::{Error, Rounding};

/// Whether the mode in force is round-to-nearest (always, off x86).
#[inline]
pub(crate) fn nearest_in_force() -> bool {
    #[cfg(fmadiv_x86)]
    return crate::arch::x86_64::mode::rounds_to_nearest();
    #[cfg(not(fmadiv_x86))]
    true
}

/// `out[i] = a[i] / b[i]` rounded in direction `mode`: bit-identical to `vdivps` with MXCSR's
/// rounding field set to `mode` (its flush-to-zero and denormals-are-zero bits as they are),
/// whatever mode MXCSR holds.
///
/// How, in a directed mode: slices of 256 elements and more take one divider pass under the
/// mode — on AVX2, MXCSR's rounding field set once and restored inside one `asm!` block; on
/// the 16-lane backend, AVX-512's embedded rounding (`vdivps` with `{rd-sae}`, `{ru-sae}` or
/// `{rz-sae}`; MXCSR untouched), for slices of every length. Shorter slices on AVX2 take the
/// round-to-nearest quotient of the divider, its exact residual `a - q·b` (one FMA), and a
/// step of one ulp toward the exact quotient where the residual says it lies on the other
/// side ([`crate::kernel_notes`] has the proof; `fmadiv verify mantissa --rounding` checks
/// it pair by pair), for vectors whose lanes lie inside the kernel's input window; the
/// others (zeros, infinities, NaNs, subnormals, quotients that may under- or overflow) take
/// `vdivps` under the mode. (Measured on family 0x19, `fmadiv bench --rounding`: the pass
/// is the faster from 256 elements, level at 128, the step below.)
///
/// Flags: bits, not exception flags, are what this promises. MXCSR's control bits and the
/// flags it held are as they were. On AVX2 the call adds the flags of the divisions it ran
/// (under the mode, or, where the step is kept, those of the round-to-nearest divider, which
/// can differ from `vdivps` under `mode` in the inexact and overflow flags of a few edge
/// quotients); on the 16-lane backend embedded rounding suppresses every exception, so the
/// pass raises **no flag** ([`crate::Backend::embedded_rounding`]), except in a build
/// without optimisation, which runs an `asm!` divider loop under the mode and raises its
/// flags.
///
/// Which backend runs: [`crate::backend_of`]`(EntryPoint::DivRounded)` — the forced one, or
/// the 16-lane one on a CPU family whose record names `div_rounded`
/// ([`crate::AVX512_FAMILIES`]) where it is on, else the eight-lane one.
///
/// [`Rounding::Nearest`] is [`crate::div`] where MXCSR rounds to nearest.
///
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
///
/// ```
/// use fmadiv::Rounding;
/// let (a, b) = ([1.0f32, -1.0, 6.0], [3.0f32, 3.0, 3.0]);
/// let (mut down, mut up) = ([0.0f32; 3], [0.0f32; 3]);
/// fmadiv::div_rounded(&a, &b, &mut down, Rounding::Down);
/// fmadiv::div_rounded(&a, &b, &mut up, Rounding::Up);
/// assert!(f64::from(down[0]) < 1.0 / 3.0 && 1.0 / 3.0 < f64::from(up[0]));
/// assert_eq!(up[0].to_bits(), down[0].to_bits() + 1);
/// assert_eq!((down[2], up[2]), (2.0, 2.0)); // exact quotients are exact
/// ```
pub fn div_rounded(a: &[f32], b: &[f32], out: &mut [f32], mode: Rounding) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), out.len()) {
        e.panic_in("div_rounded");
    }
    if mode == Rounding::Nearest && nearest_in_force() {
        return crate::div(a, b, out);
    }
    #[cfg(fmadiv_x86)]
    {
        use crate::arch::simd::directed::SHIPPED;
        use crate::arch::x86_64::mode as mxcsr;
        if cfg!(fmadiv_unoptimized) {
            // No backend is chosen here: a setting it cannot honour still panics.
            crate::dispatch::check_environment();
            // Without optimisation, the `asm!` loop under the mode (the generic loops would
            // call every intrinsic as a function).
            return mxcsr::div_in_mode_sse(a, b, out, mode.control());
        }
        let (x, y, o, n) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: the directed backend is in use (its features present); a and b are
        // readable and out writable for n floats, and out (a unique borrow) overlaps neither.
        if !unsafe {
            div_rounded_by::<SHIPPED>(
                crate::backend_of(crate::EntryPoint::DivRounded),
                x,
                y,
                o,
                n,
                mode,
            )
        } {
            mxcsr::div_in_mode_sse(a, b, out, mode.control());
        }
    }
    #[cfg(not(fmadiv_x86))]
    {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = crate::arch::portable::div_rounded_one(x, y, mode);
        }
    }
}

/// `out[i] = a[i] / b[i]` rounded as `mode` says, as [`div_rounded`], or an error (and
/// nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::LengthMismatch`] if the three slices' lengths differ; nothing is written then.
///
/// ```
/// let mut q = [0.0f32; 2];
/// let e = fmadiv::try_div_rounded(&[1.0, 2.0], &[3.0], &mut q, fmadiv::Rounding::Up);
/// assert_eq!(
///     e,
///     Err(fmadiv::Error::LengthMismatch { dividends: 2, divisors: 1, out: 2 })
/// );
/// assert_eq!(q, [0.0, 0.0]);
/// ```
pub fn try_div_rounded(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    mode: Rounding,
) -> Result<(), crate::Error> {
    Error::check_lengths(a.len(), b.len(), out.len())?;
    div_rounded(a, b, out, mode);
    Ok(())
}

/// Both bounds of every quotient: `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])`,
/// bit-identical to `vdivps` under round-down and round-up (as [`div_rounded`]): the
/// interval `[lo[i], hi[i]]` holds the exact quotient, and is one point exactly where the
/// quotient is exact.
///
/// How: one round-to-nearest division and the directed step of [`div_rounded`] give both bounds (in
/// slices of 32 vectors and more, 256 elements at eight lanes and 512 at sixteen, every lane of a
/// chunk of 4096 that raised no underflow, overflow or invalid flag, MXCSR read once per chunk; in
/// shorter ones, lanes inside the kernel's input window; the others take `vdivps` under each mode).
/// On the 16-lane backend, from 4096 elements, two passes of embedded rounding instead (one per
/// bound: on family 6 model 0xcf a 512-bit sketch of the step measured 1.72–1.75× two such passes
/// at 256–1K and 0.72–0.87× at 4K–64K), except on a CPU family whose record says
/// [`crate::Avx512Family::bounds_step_only`] (family 0x19 model 0x11, where the step measured
/// 1.46–1.50× two passes at 4K–16K, and family 6 model 0xcf, 1.69–1.79×): the step at every length
/// there. At eight lanes, where the CPU's record gives a length
/// ([`crate::Avx512Family::bounds_eight_lane_head_from`], Zen 4: 640), the step loop first divides
/// the elements before the lower bounds' next 32-byte boundary and ends with whole vectors (no
/// split or masked stores). Which backend runs: [`crate::backend_of`]`(EntryPoint::DivBounds)`.
/// Flags: those of the round-to-nearest divisions the step starts from (on either backend), none
/// from the embedded-rounding passes or from the vectors they redo (as [`div_rounded`]'s).
///
/// # Panics
/// If the four slices do not have the same length (nothing is written then).
///
/// ```
/// let (a, b) = ([1.0f32, 10.0], [3.0f32, 4.0]);
/// let (mut lo, mut hi) = ([0.0f32; 2], [0.0f32; 2]);
/// fmadiv::div_bounds(&a, &b, &mut lo, &mut hi);
/// assert!(f64::from(lo[0]) < 1.0 / 3.0 && 1.0 / 3.0 < f64::from(hi[0]));
/// assert_eq!((lo[1], hi[1]), (2.5, 2.5));
/// ```
pub fn div_bounds(a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]) {
    if let Err(e) = Error::check_bounds(a.len(), b.len(), lo.len(), hi.len()) {
        e.panic_in("div_bounds");
    }
    #[cfg(fmadiv_x86)]
    {
        use crate::arch::simd::directed::SHIPPED;
        use crate::arch::x86_64::mode as mxcsr;
        if cfg!(fmadiv_unoptimized) {
            // No backend is chosen here: a setting it cannot honour still panics.
            crate::dispatch::check_environment();
            // Without optimisation, two `asm!` loops under the modes (see `div_rounded`).
            mxcsr::div_in_mode_sse(a, b, lo, Rounding::Down.control());
            return mxcsr::div_in_mode_sse(a, b, hi, Rounding::Up.control());
        }
        let (x, y, n) = (a.as_ptr(), b.as_ptr(), a.len());
        let (l, h) = (lo.as_mut_ptr(), hi.as_mut_ptr());
        // SAFETY: the directed backend is in use (its features present); a and b are
        // readable and lo, hi writable for n floats; lo and hi are unique borrows,
        // overlapping nothing.
        if !unsafe {
            div_bounds_by::<SHIPPED>(
                crate::backend_of(crate::EntryPoint::DivBounds),
                x,
                y,
                l,
                h,
                n,
                crate::dispatch::bounds_form(),
            )
        } {
            mxcsr::div_in_mode_sse(a, b, lo, Rounding::Down.control());
            mxcsr::div_in_mode_sse(a, b, hi, Rounding::Up.control());
        }
    }
    #[cfg(not(fmadiv_x86))]
    {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        for (((l, h), &x), &y) in lo.iter_mut().zip(hi.iter_mut()).zip(a).zip(b) {
            *l = crate::arch::portable::div_rounded_one(x, y, Rounding::Down);
            *h = crate::arch::portable::div_rounded_one(x, y, Rounding::Up);
        }
    }
}

/// Both bounds of every quotient as [`div_bounds`], or an error (and nothing written) if the
/// lengths differ.
///
/// # Errors
/// [`Error::BoundsMismatch`] if the four slices' lengths differ; nothing is written then.
///
/// ```
/// let (mut lo, mut hi) = ([0.0f32; 2], [0.0f32; 1]);
/// let e = fmadiv::try_div_bounds(&[1.0, 2.0], &[3.0, 4.0], &mut lo, &mut hi).unwrap_err();
/// assert_eq!(
///     e,
///     fmadiv::Error::BoundsMismatch { dividends: 2, divisors: 2, lower: 2, upper: 1 }
/// );
/// assert_eq!((lo, hi), ([0.0; 2], [0.0]));
/// ```
pub fn try_div_bounds(
    a: &[f32],
    b: &[f32],
    lo: &mut [f32],
    hi: &mut [f32],
) -> Result<(), crate::Error> {
    Error::check_bounds(a.len(), b.len(), lo.len(), hi.len())?;
    div_bounds(a, b, lo, hi);
    Ok(())
}

/// [`div_rounded`]'s loops on `backend`, with directed step variant `STEP` (the shipped
/// one; a weakened one from the `verify` door, whose lanes show which ones the step took):
/// one divider pass under the mode where the backend's `one_pass` says so, the directed
/// loop below that. `false` (nothing written) for a backend without entry points.
///
/// # Safety
/// `backend` runs here; `a` and `b` readable and `out` writable for `len` floats, `out`
/// overlapping neither.
#[cfg(fmadiv_x86)]
#[inline(always)] // no frame between the public function and its entry point
pub(crate) unsafe fn div_rounded_by<const STEP: u8>(
    backend: crate::Backend,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
    mode: Rounding,
) -> bool {
    use crate::arch::x86_64::mode as mxcsr;
    let (x, y, o, n) = (a, b, out, len); // short names: the match below fits its lines
    /// The directed loop of the backend whose entry points `$entry` names.
    macro_rules! rounded_with {
        ($entry:path) => {{
            use $entry as entry;
            /// The step loop in mode `$m`, with the head where the width takes one (never
            /// at eight lanes, a constant: no code for it there).
            macro_rules! step {
                ($m:expr) => {
                    match entry::rounded_takes_head(n) {
                        true => entry::div_rounded::<{ $m }, STEP, true>(x, y, o, n),
                        false => entry::div_rounded::<{ $m }, STEP, false>(x, y, o, n),
                    }
                };
            }
            // SAFETY: the caller's guarantees.
            unsafe {
                match (mode, entry::one_pass(n)) {
                    (Rounding::Nearest, _) => entry::div_in_mode::<{ mxcsr::NEAREST }>(x, y, o, n),
                    (Rounding::Down, true) => entry::div_in_mode::<{ mxcsr::DOWN }>(x, y, o, n),
                    (Rounding::Up, true) => entry::div_in_mode::<{ mxcsr::UP }>(x, y, o, n),
                    (Rounding::TowardZero, true) => {
                        entry::div_in_mode::<{ mxcsr::TOWARD_ZERO }>(x, y, o, n)
                    }
                    (Rounding::Down, false) => step!(mxcsr::DOWN),
                    (Rounding::Up, false) => step!(mxcsr::UP),
                    (Rounding::TowardZero, false) => step!(mxcsr::TOWARD_ZERO),
                }
            }
        }};
    }
    crate::dispatch::with_entry!(backend, rounded_with, return false);
    true
}

/// [`div_bounds`]' loop on `backend` in `form` (the CPU's, `crate::dispatch::bounds_form`;
/// another from the `verify` door), with directed step variant `STEP` (as
/// [`div_rounded_by`]). `false` (nothing written) for a backend without entry points.
///
/// # Safety
/// `backend` runs here; `a` and `b` readable and `lo`, `hi` writable for `len` floats; no
/// output overlaps an input or the other output.
#[cfg(fmadiv_x86)]
#[inline(always)] // no frame between the public function and its entry point
pub(crate) unsafe fn div_bounds_by<const STEP: u8>(
    backend: crate::Backend,
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
    form: crate::arch::simd::directed::BoundsForm,
) -> bool {
    /// Both bounds by the backend whose entry points `$entry` names.
    macro_rules! bounds_with {
        ($entry:path) => {{
            use $entry as entry;
            // SAFETY: the caller's guarantees; the head only where `bounds_takes_head`
            // says so (which holds only where len >= LANES).
            unsafe {
                match entry::bounds_takes_head(len, form) {
                    true => entry::div_bounds::<STEP, true>(a, b, lo, hi, len, form),
                    false => entry::div_bounds::<STEP, false>(a, b, lo, hi, len, form),
                }
            }
        }};
    }
    crate::dispatch::with_entry!(backend, bounds_with, return false);
    true
}

/// `a / b` rounded in direction `mode` for one pair (as [`div_rounded`]).
#[inline]
pub(crate) fn div_rounded_one(a: f32, b: f32, mode: Rounding) -> f32 {
    let mut out = [0.0f32];
    div_rounded(&[a], &[b], &mut out, mode);
    out[0]
}
