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

/// `out[i] = 1 / b[i]` by the recip schedule of the plan. Lengths must be equal.
#[inline]
pub(crate) fn recip_slices(b: &[f32], out: &mut [f32]) {
    assert_eq!(b.len(), out.len());
    #[cfg(fmadiv_x86)]
    if cfg!(fmadiv_unoptimized) {
        let (x, o, n) = (b.as_ptr(), out.as_mut_ptr(), out.len());
        // SAFETY: b is readable and out writable for n elements and cannot overlap.
        unsafe { short::div_unoptimized(Splat(1.0), Slice(x), o, n) };
        return;
    }
    #[cfg(fmadiv_x86)]
    if out.len() < crate::arch::x86_64::short::SHORT {
        // SAFETY: b is readable and out writable for out.len() elements and cannot overlap.
        unsafe {
            crate::arch::x86_64::short::div_raw(None, b.as_ptr(), out.as_mut_ptr(), out.len())
        };
        return;
    }
    // SAFETY: b is readable and out writable for out.len() elements and cannot overlap;
    // `a` is never read for reciprocals; the plan chooses a kernel schedule only where
    // AVX2+FMA are in use.
    unsafe {
        run_planned(
            Plan::run::<{ plan::RECIP }>,
            core::ptr::null(),
            b.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    };
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

/// Below this many elements [`par_div`] stays on the calling thread: waking workers costs
/// more than dividing (measured break-even on 2 cores: between 64K and 1M elements).
#[cfg(feature = "rayon")]
pub(crate) const PAR_MIN_LEN: usize = 1 << 18;
/// Elements per rayon task: 128 KiB of each input, large enough to amortise the task,
/// small enough to balance.
#[cfg(feature = "rayon")]
pub(crate) const PAR_CHUNK: usize = 1 << 15;

/// [`div`] spread over rayon's thread pool, for long slices.
///
/// MXCSR (the rounding mode, flush-to-zero, denormals-are-zero) belongs to each thread, and
/// the pool's threads hold the default one: where the calling thread's is not the default
/// (a caller in C set it, say), the slice is divided on the calling thread, under its mode,
/// as `/` there would be.
///
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
#[cfg(feature = "rayon")]
pub fn par_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), out.len()) {
        e.panic_in("par_div");
    }
    if out.len() < PAR_MIN_LEN || !default_float_environment() {
        return div(a, b, out);
    }
    par_div_chunks(a, b, out);
}

/// [`par_div`], or an error (and nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::LengthMismatch`] if the three slices' lengths differ; nothing is written then.
///
/// ```
/// let mut q = [0.0f32; 2];
/// assert!(fmadiv::try_par_div(&[1.0, 2.0], &[3.0, 4.0, 5.0], &mut q).is_err());
/// assert_eq!(q, [0.0, 0.0]);
/// ```
#[cfg(feature = "rayon")]
pub fn try_par_div(a: &[f32], b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    Error::check_lengths(a.len(), b.len(), out.len())?;
    par_div(a, b, out);
    Ok(())
}

/// Whether this thread's MXCSR is the default one (all exceptions masked, round to nearest,
/// no flush-to-zero or denormals-are-zero), whatever its sticky flags: the state rayon's
/// threads start with. Always true off x86.
#[cfg(feature = "rayon")]
fn default_float_environment() -> bool {
    #[cfg(fmadiv_x86)]
    {
        /// MXCSR's control bits (everything but the six sticky flags).
        const CONTROL: u32 = 0xffc0;
        /// Their default: all exceptions masked, round to nearest, FTZ and DAZ off.
        const DEFAULT: u32 = 0x1f80;
        let mut csr = 0u32;
        // SAFETY: stmxcsr stores the 32-bit register to the given local.
        unsafe {
            core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags))
        };
        csr & CONTROL == DEFAULT
    }
    #[cfg(not(fmadiv_x86))]
    true
}

/// [`par_div`]'s chunks over the thread pool (lengths checked): a function of its own, so
/// that a short slice does not pay for setting up rayon's frame on its way to [`div`].
#[cfg(feature = "rayon")]
#[inline(never)]
fn par_div_chunks(a: &[f32], b: &[f32], out: &mut [f32]) {
    use rayon::prelude::*;
    out.par_chunks_mut(PAR_CHUNK)
        .zip(a.par_chunks(PAR_CHUNK))
        .zip(b.par_chunks(PAR_CHUNK))
        .for_each(|((o, a), b)| div(a, b, o));
}
