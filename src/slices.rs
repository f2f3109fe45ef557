//! The public slice and vector functions.

use core::fmt;

/// What went wrong with the arguments of a `try_` function. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The slices do not all have the same length.
    LengthMismatch {
        /// Length of the dividends.
        dividends: usize,
        /// Length of the divisors.
        divisors: usize,
        /// Length of the output.
        out: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LengthMismatch {
                dividends,
                divisors,
                out,
            } => write!(
                f,
                "length mismatch: {dividends} dividends, {divisors} divisors, output of {out}"
            ),
        }
    }
}

impl std::error::Error for Error {}

fn check_lengths(a: usize, b: usize, out: usize) -> Result<(), Error> {
    if a == b && b == out {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            dividends: a,
            divisors: b,
            out,
        })
    }
}

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
    if let Err(e) = try_div(a, b, out) {
        panic!("fmadiv::div: {e}");
    }
}

/// `out[i] = a[i] / b[i]`, or an error (and nothing written) if the lengths differ.
///
/// ```
/// let mut q = [0.0f32; 2];
/// assert!(fmadiv::try_div(&[1.0], &[2.0, 3.0], &mut q).is_err());
/// assert_eq!(q, [0.0, 0.0]);
/// ```
#[inline]
pub fn try_div(a: &[f32], b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    check_lengths(a.len(), b.len(), out.len())?;
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
    if len < crate::arch::x86_64::short::SHORT {
        // SAFETY: the caller's guarantees.
        unsafe { crate::arch::x86_64::short::div_raw(Some(a), b, out, len) };
        return;
    }
    // SAFETY: the caller's guarantees, as the disjoint loop requires; the plan chooses a
    // kernel schedule only where AVX2+FMA are in use.
    unsafe { plan().div_run_disjoint(len)(a, b, out, len) };
}

/// `a[i] = a[i] / b[i]`, bit-identical to `/` on x86.
///
/// # Panics
/// If the slices do not have the same length (nothing is written then).
#[inline]
pub fn div_in_place(a: &mut [f32], b: &[f32]) {
    if let Err(e) = check_lengths(a.len(), b.len(), a.len()) {
        panic!("fmadiv::div_in_place: {e}");
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
    unsafe { plan().div_run(a.len())(ptr, b.as_ptr(), ptr, a.len()) };
}

/// `out[i] = 1 / b[i]` by the recip schedule of the plan. Lengths must be equal.
#[inline]
pub(crate) fn recip_slices(b: &[f32], out: &mut [f32]) {
    assert_eq!(b.len(), out.len());
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
        plan().recip_run(out.len())(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len())
    };
}

/// The plan, cached after the first call.
#[inline]
fn plan() -> &'static crate::plan::Plan {
    crate::plan::plan()
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
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
#[cfg(feature = "rayon")]
pub fn par_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    if let Err(e) = check_lengths(a.len(), b.len(), out.len()) {
        panic!("fmadiv::par_div: {e}");
    }
    if out.len() < PAR_MIN_LEN {
        return div(a, b, out);
    }
    use rayon::prelude::*;
    out.par_chunks_mut(PAR_CHUNK)
        .zip(a.par_chunks(PAR_CHUNK))
        .zip(b.par_chunks(PAR_CHUNK))
        .for_each(|((o, a), b)| div(a, b, o));
}
