//! A kernel variant on every lane of a backend: the forced-kernel loops, the weakened
//! variants among them.

// The x86 items these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

use super::Kernel;
#[cfg(fmadiv_x86)]
use super::Variant;

/// The forced-kernel loop of variant `V` of `backend`, or `None` for the portable path.
#[cfg(fmadiv_x86)]
fn kernel_entry<const V: u8, const RECIP: bool>(
    backend: crate::Backend,
) -> Option<crate::schedule::RawFn> {
    macro_rules! kernel_of {
        ($entry:path) => {{
            use $entry as entry;
            Some(entry::kernel::<V, RECIP> as crate::schedule::RawFn)
        }};
    }
    crate::dispatch::with_entry!(backend, kernel_of, None)
}

/// Runs the loop `pick` gives for `backend` on `a`, `b` and `out`: `None` (nothing written)
/// where the backend does not run here or `pick` gives none. Panics if the lengths differ.
#[cfg(fmadiv_x86)]
pub(super) fn run_pairwise(
    backend: crate::Backend,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    pick: impl FnOnce() -> Option<crate::schedule::RawFn>,
) -> Option<()> {
    assert!(a.len() == b.len() && b.len() == out.len());
    if !backend.runs_here() {
        return None;
    }
    let f = pick()?;
    // SAFETY: the backend runs here; a and b readable and out writable for its length, out
    // a unique borrow.
    unsafe { f(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    Some(())
}

/// `out[i] = a[i] / b[i]` by the given kernel variant on every lane (no divider vectors mixed in,
/// no fallback for whole blocks: every lane the fast path accepts is the kernel's) of the backend
/// in use (see [`has_kernel`](super::has_kernel)), or `None` (nothing written) without one. Panics
/// if the lengths differ.
pub fn div_with(kernel: Kernel, a: &[f32], b: &[f32], out: &mut [f32]) -> Option<()> {
    div_with_on(crate::backend(), kernel, a, b, out)
}

/// [`div_with`] on a given backend: `None` (nothing written) for the portable path or a
/// backend this CPU cannot run. Panics if the lengths differ.
pub fn div_with_on(
    backend: crate::Backend,
    kernel: Kernel,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, a, b, out, || match kernel {
        Kernel::Shipped => kernel_entry::<{ Variant::SHIPPED }, false>(backend),
        Kernel::Newton => kernel_entry::<{ Variant::NEWTON }, false>(backend),
        Kernel::Published => kernel_entry::<{ Variant::PUBLISHED }, false>(backend),
        Kernel::Vrcp14 => kernel_entry::<{ Variant::RCP14_RULE }, false>(backend),
        Kernel::Vrcp14Narrowed => kernel_entry::<{ Variant::RCP14_RULE_NARROWED }, false>(backend),
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, kernel, a, b, out);
        None
    }
}

/// `out[i] = a[i] / b[i]` by the shipped arithmetic on every lane of `backend`, its window
/// checked on the divisor alone (weakened on purpose: zeros, infinities, NaNs, huge and tiny
/// dividends pass the check): `None` (nothing written) as [`div_with_on`]. Panics if the
/// lengths differ.
pub fn div_divisor_window_only_on(
    backend: crate::Backend,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    return run_pairwise(backend, a, b, out, || {
        kernel_entry::<{ Variant::DIVISOR_WINDOW_ONLY }, false>(backend)
    });
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, a, b, out);
        None
    }
}

/// `out[i] = 1 / b[i]` by the reciprocal kernel with the given variant's near-all-ones fix
/// (or without it, for `Published`) on every lane of `recip`'s backend, or `None` (nothing
/// written) without one. Panics if the lengths differ.
pub fn recip_with(kernel: Kernel, b: &[f32], out: &mut [f32]) -> Option<()> {
    recip_with_on(crate::backend_of(crate::EntryPoint::Recip), kernel, b, out)
}

/// [`recip_with`] on a given backend (see [`div_with_on`]).
pub fn recip_with_on(
    backend: crate::Backend,
    kernel: Kernel,
    b: &[f32],
    out: &mut [f32],
) -> Option<()> {
    #[cfg(fmadiv_x86)]
    {
        assert!(b.len() == out.len());
        if !backend.runs_here() {
            return None;
        }
        let f = match kernel {
            Kernel::Shipped => kernel_entry::<{ Variant::SHIPPED }, true>(backend),
            Kernel::Newton => kernel_entry::<{ Variant::NEWTON }, true>(backend),
            Kernel::Published => kernel_entry::<{ Variant::PUBLISHED }, true>(backend),
            Kernel::Vrcp14 => kernel_entry::<{ Variant::RCP14_RULE }, true>(backend),
            Kernel::Vrcp14Narrowed => {
                kernel_entry::<{ Variant::RCP14_RULE_NARROWED }, true>(backend)
            }
        }?;
        // SAFETY: the backend is in use; b readable and out writable for its length; `a`
        // is not read for reciprocals.
        unsafe { f(core::ptr::null(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
        Some(())
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (backend, kernel, b, out);
        None
    }
}
