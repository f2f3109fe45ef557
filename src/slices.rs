//! The public slice and vector functions.

use core::fmt;

use rayon::prelude::*;
use wide::f32x8;

use crate::arch::portable;
use crate::dispatch;
use crate::plan::Schedule;
#[cfg(target_arch = "x86_64")]
use crate::variant::Variant;

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
    // unique borrow) cannot overlap a or b.
    unsafe {
        run_raw::<false>(
            plan().div,
            a.as_ptr(),
            b.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    };
    Ok(())
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
    let ptr = a.as_mut_ptr();
    // SAFETY: `out` is exactly `a`, which every schedule allows (each vector is loaded
    // before it is stored); b is readable for a.len() elements.
    unsafe { run_raw::<false>(plan().div, ptr, b.as_ptr(), ptr, a.len()) };
}

/// `out[i] = 1 / b[i]` by the recip schedule of the plan. Lengths must be equal.
#[inline]
pub(crate) fn recip_slices(b: &[f32], out: &mut [f32]) {
    assert_eq!(b.len(), out.len());
    // SAFETY: b is readable and out writable for out.len() elements and cannot overlap;
    // `a` is never read for reciprocals.
    unsafe {
        run_raw::<true>(
            plan().recip,
            core::ptr::null(),
            b.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    };
}

/// The plan, cached after the first call.
#[inline]
fn plan() -> &'static crate::plan::Plan {
    crate::plan::plan()
}

/// Runs schedule `s` over whole slices: `out[i] = a[i] / b[i]`, or `1 / b[i]` without `a`.
/// For the calibration and the tests of every schedule.
///
/// # Panics
/// If the lengths differ.
pub(crate) fn run_schedule(s: Schedule, a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
    assert_eq!(b.len(), out.len());
    match a {
        Some(a) => {
            assert_eq!(a.len(), out.len());
            // SAFETY: lengths checked; out is a unique borrow.
            unsafe { run_raw::<false>(s, a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) }
        }
        // SAFETY: lengths checked; `a` is not read for reciprocals.
        None => unsafe {
            run_raw::<true>(
                s,
                core::ptr::null(),
                b.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
            )
        },
    }
}

/// Runs schedule `s` in place: `a[i] = a[i] / b[i]`.
///
/// # Panics
/// If the lengths differ.
pub(crate) fn run_schedule_in_place(s: Schedule, a: &mut [f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    let ptr = a.as_mut_ptr();
    // SAFETY: lengths checked; `out` is exactly `a`, which every schedule allows.
    unsafe { run_raw::<false>(s, ptr, b.as_ptr(), ptr, a.len()) }
}

/// The one place that maps a schedule to its loop.
///
/// # Safety
/// - `a` (unless `RECIP`) and `b` valid for reads, `out` for writes of `len` floats;
/// - `out` either disjoint from `a` and `b` or exactly `a`;
/// - a schedule other than [`Schedule::Portable`] only where AVX2 and FMA are present
///   (the plan chooses one only then).
#[inline]
unsafe fn run_raw<const RECIP: bool>(
    s: Schedule,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::arch::x86_64::avx2::{div_raw, divider_raw};
        const SHIPPED: u8 = Variant::SHIPPED;
        // SAFETY: the caller's guarantees; the kernels need AVX2+FMA, which every
        // schedule but Portable implies.
        unsafe {
            match s {
                Schedule::Divider => return divider_raw::<RECIP>(a, b, out, len),
                Schedule::Kernel => return div_raw::<SHIPPED, 0, RECIP>(a, b, out, len),
                Schedule::Mixed(1) => return div_raw::<SHIPPED, 1, RECIP>(a, b, out, len),
                Schedule::Mixed(2) => return div_raw::<SHIPPED, 2, RECIP>(a, b, out, len),
                Schedule::Mixed(4) => return div_raw::<SHIPPED, 4, RECIP>(a, b, out, len),
                Schedule::Mixed(8) => return div_raw::<SHIPPED, 8, RECIP>(a, b, out, len),
                Schedule::Mixed(16) => return div_raw::<SHIPPED, 16, RECIP>(a, b, out, len),
                _ => {}
            }
        }
    }
    // SAFETY: the caller's guarantees.
    unsafe { portable::div_raw::<RECIP>(a, b, out, len) }
}

/// Eight quotients `a / b`, bit-identical to `/` lane by lane.
///
/// ```
/// use wide::f32x8;
/// let q = fmadiv::div_f32x8(f32x8::splat(1.0), f32x8::splat(3.0));
/// assert_eq!(q.to_array(), [1.0f32 / 3.0; 8]);
/// ```
#[inline]
pub fn div_f32x8(a: f32x8, b: f32x8) -> f32x8 {
    let (a, b) = (a.to_array(), b.to_array());
    let mut out = [0.0f32; 8];
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = dispatch::avx2_fma() {
        use core::arch::x86_64::{_mm256_loadu_ps, _mm256_storeu_ps};
        // SAFETY: each pointer is to a local array of exactly 8 floats.
        unsafe {
            let q = k.div8(_mm256_loadu_ps(a.as_ptr()), _mm256_loadu_ps(b.as_ptr()));
            _mm256_storeu_ps(out.as_mut_ptr(), q);
        }
        return f32x8::new(out);
    }
    portable::div_slices(&a, &b, &mut out);
    f32x8::new(out)
}

/// Below this many elements [`par_div`] stays on the calling thread: waking workers costs
/// more than dividing (measured break-even on 2 cores: between 64K and 1M elements).
pub(crate) const PAR_MIN_LEN: usize = 1 << 18;
/// Elements per rayon task: 128 KiB of each input, large enough to amortise the task,
/// small enough to balance.
pub(crate) const PAR_CHUNK: usize = 1 << 15;

/// [`div`] spread over rayon's thread pool, for long slices.
///
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
pub fn par_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    if let Err(e) = check_lengths(a.len(), b.len(), out.len()) {
        panic!("fmadiv::par_div: {e}");
    }
    if out.len() < PAR_MIN_LEN {
        return div(a, b, out);
    }
    out.par_chunks_mut(PAR_CHUNK)
        .zip(a.par_chunks(PAR_CHUNK))
        .zip(b.par_chunks(PAR_CHUNK))
        .for_each(|((o, a), b)| div(a, b, o));
}
