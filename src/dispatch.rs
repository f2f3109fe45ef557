//! Which kernel runs: detected once, cached, then one relaxed load per call.

use core::fmt;

/// The kernel that [`crate::div`] and friends run on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// The AVX2+FMA kernel: rcp seed, Halley step, Markstein correction, exact slow path.
    Avx2Fma,
    /// Hardware division lane by lane (SSE `divps` on x86-64), with x86's NaN bits.
    Portable,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Avx2Fma => {
                "avx2+fma: exact FMA kernel (rcp + Halley + Markstein correction) and divider; fmadiv::plan() says which schedule runs"
            }
            Backend::Portable => "portable (hardware divide per lane, x86 NaN rules)",
        })
    }
}

/// Set this environment variable to `1` before the first division to force the portable
/// path on any CPU (for comparisons; the bits are the same).
pub const FORCE_PORTABLE_ENV: &str = "FMADIV_FORCE_PORTABLE";

#[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
mod cache {
    use super::{Backend, FORCE_PORTABLE_ENV};
    use crate::arch::x86_64::avx2::Avx2Fma;
    use core::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const AVX2_FMA: u8 = 1;
    const PORTABLE: u8 = 2;

    static BACKEND: AtomicU8 = AtomicU8::new(UNKNOWN);

    #[inline]
    pub fn backend() -> Backend {
        match BACKEND.load(Ordering::Relaxed) {
            AVX2_FMA => Backend::Avx2Fma,
            PORTABLE => Backend::Portable,
            _ => detect(),
        }
    }

    /// The backend if it is detected already (no detection): for hot paths that have a
    /// slower correct way when it is not.
    #[inline]
    pub fn known() -> Option<Backend> {
        match BACKEND.load(Ordering::Relaxed) {
            AVX2_FMA => Some(Backend::Avx2Fma),
            PORTABLE => Some(Backend::Portable),
            _ => None,
        }
    }

    #[cold]
    fn detect() -> Backend {
        let forced = std::env::var_os(FORCE_PORTABLE_ENV).is_some_and(|v| v == "1");
        let choice = if !forced && Avx2Fma::new().is_some() {
            AVX2_FMA
        } else {
            PORTABLE
        };
        // Racing first calls all store the same value.
        BACKEND.store(choice, Ordering::Relaxed);
        backend()
    }
}

/// The kernel in use on this CPU.
#[inline]
pub fn backend() -> Backend {
    #[cfg(fmadiv_static_avx2_fma)]
    {
        Backend::Avx2Fma
    }
    #[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
    {
        cache::backend()
    }
    #[cfg(not(fmadiv_x86))]
    {
        Backend::Portable
    }
}

/// The AVX2+FMA proof if that kernel is the one in use and already detected (`None` before
/// the first detection): one load, with no detection call on the caller's path.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx2_fma_known() -> Option<crate::arch::x86_64::avx2::Avx2Fma> {
    #[cfg(fmadiv_static_avx2_fma)]
    let known = Some(Backend::Avx2Fma);
    #[cfg(not(fmadiv_static_avx2_fma))]
    let known = cache::known();
    match known? {
        // SAFETY: the backend is Avx2Fma only when the features were detected or enabled
        // at compile time.
        Backend::Avx2Fma => Some(unsafe { crate::arch::x86_64::avx2::Avx2Fma::new_unchecked() }),
        Backend::Portable => None,
    }
}

/// The AVX2+FMA proof, if that kernel is the one in use.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx2_fma() -> Option<crate::arch::x86_64::avx2::Avx2Fma> {
    match backend() {
        // SAFETY: `backend()` returns Avx2Fma only when the features were detected or
        // enabled at compile time.
        Backend::Avx2Fma => Some(unsafe { crate::arch::x86_64::avx2::Avx2Fma::new_unchecked() }),
        Backend::Portable => None,
    }
}
