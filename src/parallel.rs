//! The rayon forms (feature `rayon`): the slice functions spread over rayon's thread pool
//! for long slices, the same bits as on one thread.
//!
//! MXCSR (the rounding mode, flush-to-zero, denormals-are-zero) belongs to each thread, and
//! the pool's threads hold the default one: where the calling thread's is not the default (a
//! caller in C set it, say), a slice is divided on the calling thread, under its mode, as `/`
//! there would be. Short slices stay on the calling thread too.

use crate::Error;
use crate::slices::{div, div_in_place, recip_in_place, recip_slices};

/// Below this many elements the rayon forms stay on the calling thread: waking workers costs
/// more than dividing. Not placed by a measurement on a machine with cores of its own; on a
/// 2-vCPU microVM (family 0x19 model 0x1) the pool lost to one thread up to 1M elements
/// and paid from 4M (`examples/parallel_by_length.rs`,
/// `docs/bench/0x19-parallel-by-length.txt`).
pub(crate) const PAR_MIN_LEN: usize = 1 << 18;
/// Elements per rayon task: 128 KiB of each input, large enough to amortise the task,
/// small enough to balance.
pub(crate) const PAR_CHUNK: usize = 1 << 15;

/// [`crate::div`] spread over rayon's thread pool, for long slices.
///
/// A slice shorter than 2^18 elements, or a calling thread whose MXCSR is not the default
/// one, is divided on the calling thread (the module's docs say why).
///
/// # Panics
/// If the three slices do not have the same length (nothing is written then).
pub fn par_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), out.len()) {
        e.panic_in("par_div");
    }
    if stays_on_caller(out.len()) {
        return div(a, b, out);
    }
    on_pool::div(a, b, out);
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
pub fn try_par_div(a: &[f32], b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    Error::check_lengths(a.len(), b.len(), out.len())?;
    par_div(a, b, out);
    Ok(())
}

/// [`crate::div_in_place`] spread over rayon's thread pool, for long slices (as
/// [`par_div`]).
///
/// # Panics
/// If the slices do not have the same length (nothing is written then).
pub fn par_div_in_place(a: &mut [f32], b: &[f32]) {
    if let Err(e) = Error::check_lengths(a.len(), b.len(), a.len()) {
        e.panic_in("par_div_in_place");
    }
    if stays_on_caller(a.len()) {
        return div_in_place(a, b);
    }
    on_pool::div_in_place(a, b);
}

/// [`par_div_in_place`], or an error (and nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::LengthMismatch`] (its output the dividends) if the two slices' lengths differ;
/// nothing is written then.
///
/// ```
/// let mut a = [1.0f32, 6.0];
/// let e = fmadiv::try_par_div_in_place(&mut a, &[3.0]).unwrap_err();
/// assert_eq!(e, fmadiv::Error::LengthMismatch { dividends: 2, divisors: 1, out: 2 });
/// assert_eq!(a, [1.0, 6.0]);
/// ```
pub fn try_par_div_in_place(a: &mut [f32], b: &[f32]) -> Result<(), Error> {
    Error::check_lengths(a.len(), b.len(), a.len())?;
    par_div_in_place(a, b);
    Ok(())
}

/// [`crate::recip`] spread over rayon's thread pool, for long slices (as [`par_div`]).
///
/// # Panics
/// If the lengths differ (nothing is written then).
pub fn par_recip(b: &[f32], out: &mut [f32]) {
    if let Err(e) = Error::check_output(b.len(), out.len()) {
        e.panic_in("par_recip");
    }
    if stays_on_caller(out.len()) {
        return recip_slices(b, out);
    }
    on_pool::recip(b, out);
}

/// [`par_recip`], or an error (and nothing written) if the lengths differ.
///
/// # Errors
/// [`Error::OutputMismatch`] if the divisors' and the output's lengths differ; nothing is
/// written then.
///
/// ```
/// let mut r = [0.0f32; 3];
/// let e = fmadiv::try_par_recip(&[3.0, 4.0], &mut r).unwrap_err();
/// assert_eq!(e, fmadiv::Error::OutputMismatch { input: 2, out: 3 });
/// assert_eq!(r, [0.0; 3]);
/// ```
pub fn try_par_recip(b: &[f32], out: &mut [f32]) -> Result<(), Error> {
    Error::check_output(b.len(), out.len())?;
    par_recip(b, out);
    Ok(())
}

/// [`crate::recip_in_place`] spread over rayon's thread pool, for long slices (as
/// [`par_div`]).
///
/// ```
/// let mut b = vec![3.0f32; 1 << 20];
/// fmadiv::par_recip_in_place(&mut b);
/// assert!(b.iter().all(|r| r.to_bits() == (1.0f32 / 3.0).to_bits()));
/// ```
pub fn par_recip_in_place(b: &mut [f32]) {
    if stays_on_caller(b.len()) {
        return recip_in_place(b);
    }
    on_pool::recip_in_place(b);
}

/// Whether a slice of `len` elements is divided on the calling thread: a short one, or any
/// where the caller's MXCSR is not the pool's.
pub(crate) fn stays_on_caller(len: usize) -> bool {
    len < PAR_MIN_LEN || !default_float_environment()
}

/// Whether this thread's MXCSR is the default one (all exceptions masked, round to nearest,
/// no flush-to-zero or denormals-are-zero), whatever its sticky flags: the state rayon's
/// threads start with. Always true off x86.
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

/// The chunk loops over the thread pool (lengths checked by the caller): functions of
/// their own, so that a short slice does not pay for setting up rayon's frame on its way to
/// the one-thread form.
pub(crate) mod on_pool {
    use rayon::prelude::*;

    use super::PAR_CHUNK;
    use crate::slices;

    /// [`super::par_div`]'s chunks.
    #[inline(never)]
    pub(crate) fn div(a: &[f32], b: &[f32], out: &mut [f32]) {
        out.par_chunks_mut(PAR_CHUNK)
            .zip(a.par_chunks(PAR_CHUNK))
            .zip(b.par_chunks(PAR_CHUNK))
            .for_each(|((o, a), b)| slices::div(a, b, o));
    }

    /// [`super::par_div_in_place`]'s chunks.
    #[inline(never)]
    pub(crate) fn div_in_place(a: &mut [f32], b: &[f32]) {
        a.par_chunks_mut(PAR_CHUNK)
            .zip(b.par_chunks(PAR_CHUNK))
            .for_each(|(a, b)| slices::div_in_place(a, b));
    }

    /// [`super::par_recip`]'s chunks.
    #[inline(never)]
    pub(crate) fn recip(b: &[f32], out: &mut [f32]) {
        out.par_chunks_mut(PAR_CHUNK)
            .zip(b.par_chunks(PAR_CHUNK))
            .for_each(|(o, b)| slices::recip_slices(b, o));
    }

    /// [`super::par_recip_in_place`]'s chunks.
    #[inline(never)]
    pub(crate) fn recip_in_place(b: &mut [f32]) {
        b.par_chunks_mut(PAR_CHUNK).for_each(slices::recip_in_place);
    }
}
