//! The public slice and vector functions.

use crate::Error;
#[cfg(fmadiv_x86)]
use crate::arch::x86_64::short::{
    self,
    Operand::{Slice, Splat},
};
use crate::plan::{self, Plan};

/// `out[i] = a[i] / b[i]`, bit-identical to `/` on x86.
///
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
///
/// ```
/// let mut q = [0.0f32; 3];
/// fmadiv::div(&[1.0, 6.0, 0.0], &[3.0, 2.0, 0.0], &mut q);
/// assert_eq!(q[0], 1.0 / 3.0);
/// assert!(q[2].is_nan());
/// ```
#[inline]
pub fn div(a: &[f32], b: &[f32], out: &mut [f32]) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), out.len()) {
        e.panic_in("div");
    }
    // SAFETY: a and b are readable and out writable for out.len() elements, and out (a
    // unique borrow) cannot overlap them.
    unsafe { div_disjoint(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
}

/// `out[i] = a[i] / b[i]`, or an error (and nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::LengthMismatch`] if the three slices' lengths differ; nothing is written then.
///
/// ```
/// let mut q = [0.0f32; 2];
/// assert!(fmadiv::try_div(&[1.0], &[2.0, 3.0], &mut q).is_err());
/// assert_eq!(q, [0.0, 0.0]);
/// ```
#[inline]
pub fn try_div(a: &[f32], b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    Error::check_lengths(a.len(), b.len(), out.len())?;
    // SAFETY: a and b are readable and out writable for out.len() elements, and out (a
    // unique borrow) cannot overlap them.
    unsafe { div_disjoint(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Ok(())
}

/// `out[i] = a[i] / b[i]` for `len` elements through the plan, writing `out` without
/// reading it (so it may be uninitialised memory: `fmadiv::ndarray` divides into a fresh
/// array that way, with no pass to zero it first).
///
/// # Safety
/// `a` and `b` readable and `out` writable for `len` floats; `out` overlaps neither.
#[inline]
pub(crate) unsafe fn div_disjoint(a: *const f32, b: *const f32, out: *mut f32, len: usize) {
    #[cfg(fmadiv_x86)]
    if cfg!(fmadiv_unoptimized) {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        // SAFETY: the caller's guarantees.
        unsafe { short::div_unoptimized(Slice(a), Slice(b), out, len) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if len < crate::arch::x86_64::short::SHORT {
        // SAFETY: the caller's guarantees.
        unsafe { crate::arch::x86_64::short::div_raw(Some(a), b, out, len) };
        return;
    }
    // SAFETY: the caller's guarantees, as the disjoint loop requires; the plan chooses a
    // kernel schedule only where AVX2+FMA are in use.
    unsafe { run_planned(Plan::run::<{ plan::DIV }>, a, b, out, len) };
}

/// `a[i] = a[i] / b[i]`, bit-identical to `/` on x86.
///
/// # Panics
/// If the slices do not have the same length (nothing is written then).
#[inline]
pub fn div_in_place(a: &mut [f32], b: &[f32]) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), a.len()) {
        e.panic_in("div_in_place");
    }
    #[cfg(fmadiv_x86)]
    if cfg!(fmadiv_unoptimized) {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        let p = a.as_mut_ptr();
        // SAFETY: `a` is readable and writable and b readable for a.len() elements; the
        // loop allows out == a.
        unsafe { short::div_unoptimized(Slice(p), Slice(b.as_ptr()), p, a.len()) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if a.len() < crate::arch::x86_64::short::SHORT {
        let p = a.as_mut_ptr();
        // SAFETY: `a` is readable and writable and b readable for a.len() elements; the
        // short loop allows out == a.
        unsafe { crate::arch::x86_64::short::div_raw(Some(p), b.as_ptr(), p, a.len()) };
        return;
    }
    let ptr = a.as_mut_ptr();
    // SAFETY: `out` is exactly `a`, which every schedule allows (each vector is loaded
    // before it is stored); b is readable for a.len() elements; the plan chooses a kernel
    // schedule only where AVX2+FMA are in use.
    unsafe {
        run_planned(
            Plan::run::<{ plan::DIV_IN_PLACE }>,
            ptr,
            b.as_ptr(),
            ptr,
            a.len(),
        )
    };
}

/// `a[i] = a[i] / b[i]`, or an error (and nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::LengthMismatch`] (its output the dividends) if the two slices' lengths differ;
/// nothing is written then.
///
/// ```
/// let mut a = [1.0f32, 6.0];
/// let e = fmadiv::try_div_in_place(&mut a, &[3.0]).unwrap_err();
/// assert_eq!(e, fmadiv::Error::LengthMismatch { dividends: 2, divisors: 1, out: 2 });
/// assert_eq!(a, [1.0, 6.0]);
/// ```
#[inline]
pub fn try_div_in_place(a: &mut [f32], b: &[f32]) -> Result<(), Error> {
    Error::check_lengths(a.len(), b.len(), a.len())?;
    div_in_place(a, b);
    Ok(())
}

/// `out[i] = 1 / b[i]`, bit-identical to `1.0 / b` on x86.
///
/// # Panics
/// If the lengths differ (nothing is written then).
///
/// ```
/// let mut r = [0.0f32; 3];
/// fmadiv::recip(&[3.0, 0.99999994, -0.0], &mut r);
/// assert_eq!(r[0], 1.0 / 3.0);
/// assert_eq!(r[2], f32::NEG_INFINITY);
/// ```
pub fn recip(b: &[f32], out: &mut [f32]) {
    if let Err(e) = Error::check_output(b.len(), out.len()) {
        e.panic_in("recip");
    }
    crate::slices::recip_slices(b, out);
}

/// `out[i] = 1 / b[i]` as [`recip`], or an error (and nothing written) if the lengths
/// differ.
///
/// # Errors
/// [`Error::OutputMismatch`] if the divisors' and the output's lengths differ; nothing is
/// written then.
///
/// ```
/// let mut r = [0.0f32; 3];
/// let e = fmadiv::try_recip(&[3.0, 4.0], &mut r).unwrap_err();
/// assert_eq!(e, fmadiv::Error::OutputMismatch { input: 2, out: 3 });
/// assert_eq!(r, [0.0; 3]);
/// ```
pub fn try_recip(b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    Error::check_output(b.len(), out.len())?;
    recip(b, out);
    Ok(())
}

/// `b[i] = 1 / b[i]`, bit-identical to `1.0 / b` on x86: [`recip`] with the output its
/// input, by the same schedules.
///
/// ```
/// let mut b = [3.0f32, 0.99999994, -0.0];
/// fmadiv::recip_in_place(&mut b);
/// assert_eq!(b[0], 1.0 / 3.0);
/// assert_eq!(b[2], f32::NEG_INFINITY);
/// ```
#[inline]
pub fn recip_in_place(b: &mut [f32]) {
    let (p, len) = (b.as_mut_ptr(), b.len());
    #[cfg(fmadiv_x86)]
    if cfg!(fmadiv_unoptimized) {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        // SAFETY: `b` is readable and writable for its length; the loop allows out == b
        // where the dividends are a splat.
        unsafe { short::div_unoptimized(Splat(1.0), Slice(p), p, len) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if len < crate::arch::x86_64::short::SHORT {
        // SAFETY: `b` is readable and writable for its length; the short loop allows
        // out == b without dividends.
        unsafe { crate::arch::x86_64::short::div_raw(None, p, p, len) };
        return;
    }
    // SAFETY: `out` is exactly `b`, which every schedule's reciprocal loop allows (each
    // vector is loaded before it is stored); `a` is never read for reciprocals; the plan
    // chooses a kernel schedule only where AVX2+FMA are in use.
    unsafe {
        run_planned(
            Plan::run::<{ plan::RECIP_IN_PLACE }>,
            core::ptr::null(),
            p,
            p,
            len,
        )
    };
}

/// `out[i] = 1 / b[i]` by the recip schedule of the plan. Lengths must be equal.
#[inline]
pub(crate) fn recip_slices(b: &[f32], out: &mut [f32]) {
    assert_eq!(b.len(), out.len());
    // SAFETY: b is readable and out writable for out.len() elements, and as a unique borrow
    // out overlaps nothing else.
    unsafe { recip_disjoint(b.as_ptr(), out.as_mut_ptr(), out.len()) };
}

/// `out[i] = 1 / b[i]` for `len` elements by the recip schedule of the plan, writing `out`
/// without reading it (so it may be uninitialised memory, as [`div_disjoint`]'s).
///
/// # Safety
/// `b` readable and `out` writable for `len` floats; they do not overlap.
#[inline]
pub(crate) unsafe fn recip_disjoint(b: *const f32, out: *mut f32, len: usize) {
    #[cfg(fmadiv_x86)]
    if cfg!(fmadiv_unoptimized) {
        // No backend is chosen here: a setting it cannot honour still panics.
        crate::dispatch::check_environment();
        // SAFETY: the caller's guarantees.
        unsafe { short::div_unoptimized(Splat(1.0), Slice(b), out, len) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if len < crate::arch::x86_64::short::SHORT {
        // SAFETY: the caller's guarantees.
        unsafe { crate::arch::x86_64::short::div_raw(None, b, out, len) };
        return;
    }
    // SAFETY: the caller's guarantees; `a` is never read for reciprocals; the plan chooses
    // a kernel schedule only where AVX2+FMA are in use.
    unsafe { run_planned(Plan::run::<{ plan::RECIP }>, core::ptr::null(), b, out, len) };
}

/// The loop `pick` of the plan for `len` elements, run on the operands. The first call
/// in a process makes the plan out of line, by a tail call: the hot path keeps no frame
/// (no registers to save across a call).
///
/// # Safety
/// The loop's own requirements: the operands valid for `len` floats as `pick`'s loop
/// needs them.
#[inline(always)]
unsafe fn run_planned(pick: Pick, a: *const f32, b: *const f32, out: *mut f32, len: usize) {
    match crate::plan::made() {
        // SAFETY: the caller's guarantees; the plan chooses a kernel schedule only where
        // AVX2+FMA are in use.
        Some(plan) => unsafe { pick(plan, len)(a, b, out, len) },
        // SAFETY: the caller's guarantees.
        None => unsafe { run_first(pick, a, b, out, len) },
    }
}

/// Which of the plan's loops to run for a length.
type Pick = fn(&Plan, usize) -> crate::schedule::RawFn;

/// [`run_planned`] in the first call of a process: makes the plan, then runs the loop.
///
/// # Safety
/// As [`run_planned`].
#[cold]
#[inline(never)]
unsafe fn run_first(pick: Pick, a: *const f32, b: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees; the plan chooses a kernel schedule only where
    // AVX2+FMA are in use.
    unsafe { pick(crate::plan::plan(), len)(a, b, out, len) }
}
