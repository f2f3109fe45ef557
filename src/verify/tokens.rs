//! The in-register tokens' choice between the kernel and `vdivps`, with a weakened kernel
//! whose lanes show which they took.

use super::Variant;

/// The in-register token dividing by the kernel (`true`) or `vdivps` (`false`) whatever the
/// plan says (the bits are the same).
pub fn token_with_kernel(token: crate::simd::Avx2Fma, kernel: bool) -> crate::simd::Avx2Fma {
    token.with_kernel(kernel)
}

/// `out[i] = a[i] / b[i]` eight lanes at a time by `token.div_ps` inside its `vectorize`, as a
/// caller's loop runs it (the token's choice of the kernel or `vdivps`, both rounding-mode
/// checks), with the weakened kernel of
/// [`div_divisor_window_only_on`](super::div_divisor_window_only_on) where it takes the kernel: an
/// infinite dividend over a divisor inside the window comes out NaN there (an infinity from
/// `vdivps`), so the output shows which the token took. Panics unless the three lengths are one
/// multiple of 8.
pub fn token_div_divisor_window_only(
    token: crate::simd::Avx2Fma,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) {
    token.vectorize(|t| {
        vector_loop(a, b, out, |x, y| {
            t.div_ps_by::<{ Variant::DIVISOR_WINDOW_ONLY }>(x, y)
        })
    });
}

/// `out[i] = 1 / b[i]` eight lanes at a time by `token.recip_ps` inside its `vectorize`, with the
/// published kernel where it takes the kernel (see
/// [`run_recip_schedule_published_on`](super::run_recip_schedule_published_on): one ulp low for
/// `±0x1.fffffep+e` where the seed of `2 - 2^-23` is 0.5). Panics unless the two lengths are one
/// multiple of 8.
pub fn token_recip_published(token: crate::simd::Avx2Fma, b: &[f32], out: &mut [f32]) {
    token.vectorize(|t| vector_loop(b, b, out, |_, y| t.recip_ps_by::<{ Variant::PUBLISHED }>(y)));
}

/// [`token_div_divisor_window_only`] by the sixteen-lane token (`token.div_ps` inside its
/// `vectorize`, sixteen lanes at a time). Panics unless the three lengths are one multiple
/// of 16.
pub fn token16_div_divisor_window_only(
    token: crate::simd::Avx512,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
) {
    token.vectorize(|t| {
        vector_loop(a, b, out, |x, y| {
            t.div_ps_by::<{ Variant::DIVISOR_WINDOW_ONLY }>(x, y)
        })
    });
}

/// [`token_recip_published`] by the sixteen-lane token. Panics unless the two lengths are
/// one multiple of 16.
pub fn token16_recip_published(token: crate::simd::Avx512, b: &[f32], out: &mut [f32]) {
    token.vectorize(|t| vector_loop(b, b, out, |_, y| t.recip_ps_by::<{ Variant::PUBLISHED }>(y)));
}

/// A `core::arch` vector of `LANES` `f32` lanes in memory order, `4 * LANES` bytes, every
/// bit pattern valid.
trait F32Lanes: Copy {
    const LANES: usize;
}

impl F32Lanes for core::arch::x86_64::__m256 {
    const LANES: usize = 8;
}

impl F32Lanes for core::arch::x86_64::__m512 {
    const LANES: usize = 16;
}

/// A caller's loop over vectors `V`: `out`'s from `f` of `a`'s and `b`'s. Panics unless the
/// three lengths are one multiple of `V::LANES`.
#[inline(always)]
fn vector_loop<V: F32Lanes>(a: &[f32], b: &[f32], out: &mut [f32], f: impl Fn(V, V) -> V) {
    const { assert!(size_of::<V>() == 4 * V::LANES) };
    let n = V::LANES;
    assert!(a.len() == b.len() && b.len() == out.len() && out.len().is_multiple_of(n));
    let groups = out.chunks_exact_mut(n).zip(a.chunks_exact(n));
    for ((o, x), y) in groups.zip(b.chunks_exact(n)) {
        // SAFETY: each chunk holds `V::LANES` floats, the bytes of one `V` (its size checked
        // above), whose every bit pattern is valid; unaligned reads and writes.
        unsafe {
            let load = |v: &[f32]| core::ptr::read_unaligned(v.as_ptr().cast::<V>());
            core::ptr::write_unaligned(o.as_mut_ptr().cast::<V>(), f(load(x), load(y)));
        }
    }
}
