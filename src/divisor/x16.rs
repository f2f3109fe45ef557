//! The sixteen-lane entry points: the lane-checked loop of [`lanes`] and the divider's loop,
//! compiled for the AVX-512F backend or run on its software model.
//!
//! Only the reciprocal strategy (`a·(1/b)`, one rounding, the divider's flags) runs its
//! sequence here; the two-products and Markstein sequences go to the 512-bit divider. Their
//! lane-checked form gives the right bits but raises MXCSR flags the divider would not (an
//! underflow of `a·zl` under an exact quotient: `tests/mxcsr.rs` caught it through the
//! model), and the flag-checked chunks that keep the eight-lane path's flags those of the
//! divider are AVX2 assembly with no sixteen-lane form yet.

use super::{Proven, Strategy, lanes};
use crate::Backend;

/// `out[i] = a[i] / b` on `backend` (a sixteen-lane one): by the proven sequence `p` where
/// it is the reciprocal one (see the module docs), else the divider.
///
/// # Safety
/// `backend` is in use (its features present); `a` readable and `out` writable for
/// `len` floats; `out` is `a` or does not overlap it.
pub unsafe fn divide(
    backend: Backend,
    b: f32,
    p: Option<&Proven>,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    /// The two loops compiled for one backend's proof type and features.
    macro_rules! compiled {
        ($W:ty, $features:literal) => {{
            #[target_feature(enable = $features)]
            unsafe fn run(b: f32, p: Option<&Proven>, a: *const f32, out: *mut f32, len: usize) {
                // SAFETY: this function runs only where the backend's features are
                // present; the caller's pointers.
                unsafe {
                    let w = <$W as crate::arch::simd::Vector>::assume();
                    match p {
                        Some(p) if p.strategy == Strategy::Reciprocal => {
                            lanes::divide(w, p, a, out, len)
                        }
                        _ => lanes::divide_by_divider_in(w, b, a, out, len),
                    }
                }
            }
            // SAFETY: the caller's guarantees; the backend is in use.
            unsafe { run(b, p, a, out, len) }
        }};
    }
    match backend {
        Backend::Avx512 => compiled!(crate::arch::x86_64::avx512::Avx512, "avx512f,avx2,fma"),
        #[cfg(feature = "verify")]
        Backend::Avx512Model(seeds) => {
            use crate::arch::x86_64::avx512_model::Avx512Model as M;
            use crate::arch::x86_64::avx512_model::{HIGH, INTEL, LOW, Seeds};
            match seeds {
                Seeds::Intel => compiled!(M<INTEL>, "sse2"),
                Seeds::Low => compiled!(M<LOW>, "sse2"),
                Seeds::High => compiled!(M<HIGH>, "sse2"),
            }
        }
        _ => unreachable!("x16::divide runs only on a sixteen-lane backend"),
    }
}
