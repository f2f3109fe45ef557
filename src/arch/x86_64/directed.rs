//! Directed rounding of a quotient from a faithful one and its exact residual, eight lanes
//! at a time, with no write to MXCSR.
//!
//! Given `q`, a faithful rounding of `a/b` (the round-to-nearest quotient of the divider or
//! of the kernel), the residual `r = a - q·b` is exact inside the input window (one FMA;
//! [`crate::kernel_notes`] has the proof), so its sign and the divisor's say on which side
//! of `q` the exact quotient lies: `sign(a/b - q) = sign(r) · sign(b)`, and `r = +0` exactly
//! when `q` is exact. The directed result is `q` or its neighbour one ulp away; inside the
//! window `q` is normal and so is that neighbour, so the step is `±1` on the bit pattern.
//!
//! Everything after the residual is integer arithmetic: on family 0x19 a vector FMA beside
//! `vdivps` costs most of a cycle, an integer operation much less (`examples/rounding.rs`).

use core::arch::x86_64::*;
use core::cell::Cell;

use super::avx2::{InputCheck, LANES};
use crate::backoff::Backoff;
use crate::bits::SIGN_MASK;

/// The rounding directions, numbered as MXCSR's rounding-control field numbers them.
pub const NEAREST: u8 = 0;
/// Toward −∞.
pub const DOWN: u8 = 1;
/// Toward +∞.
pub const UP: u8 = 2;
/// Toward zero.
pub const TOWARD_ZERO: u8 = 3;

/// The shipped step.
pub const SHIPPED: u8 = 0;
/// Weakened on purpose (for the tests): the residual's sign taken as the side of the exact
/// quotient, the divisor's sign ignored — wrong for negative divisors.
pub const DIVISOR_SIGN_IGNORED: u8 = 1;

/// Broadcasts a bit pattern.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn splat(bits: u32) -> __m256i {
    _mm256_set1_epi32(bits as i32)
}

/// Where the exact quotient lies: `s` has the sign of `a/b - q` and is `0` or `SIGN_MASK`
/// (a zero's bits) exactly when `q` is exact.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn side<const V: u8>(a: __m256, b: __m256, q: __m256) -> __m256i {
    // a - q·b, exact inside the window; +0 (never -0) when q is exact, in round-to-nearest.
    let r = _mm256_castps_si256(_mm256_fnmadd_ps(q, b, a));
    if V == DIVISOR_SIGN_IGNORED {
        return r;
    }
    // sign(a/b - q) = sign(r)·sign(b): fold b's sign bit into r's.
    _mm256_xor_si256(
        r,
        _mm256_and_si256(_mm256_castps_si256(b), splat(SIGN_MASK)),
    )
}

/// All-ones where `a/b > q`: `s > 0` as a signed integer (a zero's bits are not).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn above(s: __m256i) -> __m256i {
    _mm256_cmpgt_epi32(s, _mm256_setzero_si256())
}

/// All-ones where `a/b < q`: `s < 0` other than `-0`'s bits, i.e. `-s > 0` (the negation
/// of `SIGN_MASK` wraps to itself, which is not positive).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn below(s: __m256i) -> __m256i {
    _mm256_cmpgt_epi32(
        _mm256_sub_epi32(_mm256_setzero_si256(), s),
        _mm256_setzero_si256(),
    )
}

/// One ulp toward +∞ as a change of the bit pattern of a nonzero finite `q`: `+1` where
/// `q > 0`, `-1` where `q < 0` (the magnitude shrinks).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn up_step(q: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_srai_epi32::<31>(q), splat(1))
}

/// `a / b` rounded in direction `MODE` ([`NEAREST`] returns `q`), from `q`, a faithful
/// rounding of `a / b` (round-to-nearest from the divider or the kernel).
///
/// Exact for lanes whose inputs lie inside the kernel's input window
/// ([`super::avx2::InputCheck::window_of`]); other lanes are meaningless and must be
/// recomputed.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn round_from<const MODE: u8, const V: u8>(a: __m256, b: __m256, q: __m256) -> __m256 {
    if MODE == NEAREST {
        return q;
    }
    let s = side::<V>(a, b, q);
    let qi = _mm256_castps_si256(q);
    let bits = match MODE {
        // Down a step where the exact quotient lies below q.
        DOWN => _mm256_sub_epi32(qi, _mm256_and_si256(up_step(qi), below(s))),
        // Up a step where it lies above.
        UP => _mm256_add_epi32(qi, _mm256_and_si256(up_step(qi), above(s))),
        // Toward zero where it lies between zero and q: sign(a/b - q) differs from q's. The
        // magnitude shrinks by one ulp: the bit pattern by one, whatever the sign, so the
        // all-ones lanes of the mask are the step itself.
        _ => {
            let toward = below(_mm256_xor_si256(s, _mm256_and_si256(qi, splat(SIGN_MASK))));
            _mm256_add_epi32(qi, toward)
        }
    };
    _mm256_castsi256_ps(bits)
}

/// Both bounds at once: `(RD(a/b), RU(a/b))` from a faithful `q`, with [`round_from`]'s
/// conditions.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn bounds_from<const V: u8>(a: __m256, b: __m256, q: __m256) -> (__m256, __m256) {
    let s = side::<V>(a, b, q);
    let qi = _mm256_castps_si256(q);
    let up = up_step(qi);
    let lo = _mm256_sub_epi32(qi, _mm256_and_si256(up, below(s)));
    let hi = _mm256_add_epi32(qi, _mm256_and_si256(up, above(s)));
    (_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi))
}

/// MXCSR's rounding-control field.
pub const ROUNDING_CONTROL: u32 = 0b11 << ROUNDING_CONTROL_SHIFT;
/// Its position.
pub const ROUNDING_CONTROL_SHIFT: u32 = 13;

/// Whether MXCSR rounds to nearest now. `1 + 0.75 ulp` and `-(1 + 0.75 ulp)` round to
/// `1 + ulp` and `-(1 + ulp)` under round-to-nearest only (down gives `1`, up `-1`, toward
/// zero both). One SSE addition of values hidden from the optimiser (so that it runs, under
/// the MXCSR in force), a compare and a branch: no `stmxcsr`, which waits for every
/// operation in flight (measured on family 0x19: 20–30% of a 64-element `div`; this probe:
/// about 5%). Flush-to-zero and denormals-are-zero do not touch these normal values.
#[inline(always)]
pub fn rounds_to_nearest() -> bool {
    // 0.75·2^-23: three quarters of an ulp of 1.
    const THREE_QUARTERS_ULP: f32 = 3.0 / (1u32 << 25) as f32;
    // SAFETY: SSE and SSE2 are part of every x86-64 CPU.
    unsafe {
        let mut x = _mm_setr_ps(1.0, -1.0, 0.0, 0.0);
        // SAFETY: the asm is empty; it only claims to read and write `x`'s register.
        core::arch::asm!("/* {0} */", inout(xmm_reg) x, options(pure, nomem, nostack, preserves_flags));
        let sum = _mm_add_ps(
            x,
            _mm_setr_ps(THREE_QUARTERS_ULP, -THREE_QUARTERS_ULP, 0.0, 0.0),
        );
        let nearest = _mm_castsi128_ps(_mm_setr_epi32(0x3f80_0001, 0xbf80_0001u32 as i32, 0, 0));
        let same = _mm_cmpeq_epi32(_mm_castps_si128(sum), _mm_castps_si128(nearest));
        _mm_movemask_ps(_mm_castsi128_ps(same)) == 0xf
    }
}

/// Eight quotients `vdivps(a, b)` under rounding direction `mode`, MXCSR's other bits as
/// they are (flush-to-zero, denormals-are-zero): MXCSR is read, set, and put back inside one
/// `asm!` block, as `core::arch`'s `_mm_setcsr` documentation requires of code that runs
/// under another mode. The sticky exception flags the division raises are kept. The slow
/// path of the directed functions, and the reference the sweeps compare with.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_in_mode(a: __m256, b: __m256, mode: u8) -> __m256 {
    let q: __m256;
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the block stores MXCSR to `saved`, loads the same control word with only the
    // rounding field changed, divides, and loads the saved control word back with the flags
    // the division raised OR-ed in; nothing else runs in between, and nothing after it sees
    // another rounding mode. The two locals are valid for the block's reads and writes.
    unsafe {
        core::arch::asm!(
            "vstmxcsr [{saved}]",
            "mov {tmp:e}, [{saved}]",
            "and {tmp:e}, {keep}",
            "or {tmp:e}, {rc:e}",
            "mov [{set}], {tmp:e}",
            "vldmxcsr [{set}]",
            "vdivps {q}, {a}, {b}",
            "vstmxcsr [{set}]",
            "mov {tmp:e}, [{set}]",
            "and {tmp:e}, 0x3f",
            "or [{saved}], {tmp:e}",
            "vldmxcsr [{saved}]",
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = in(reg) u32::from(mode) << ROUNDING_CONTROL_SHIFT,
            q = lateout(ymm_reg) q,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(nostack),
        );
    }
    q
}

/// `out[i] = vdivps(a[i], b[i])` under rounding direction `MODE` for `vectors` whole vectors:
/// MXCSR's rounding field set once for them and put back (with the flags the divisions
/// raised) inside one `asm!` block, as in [`div_in_mode`]. The slow path of stretches of
/// special-rich data.
///
/// # Safety
/// AVX; `a` and `b` readable and `out` writable for `vectors · 8` floats; `out` does not
/// overlap `a` or `b`, or is exactly `a`.
#[target_feature(enable = "avx2,fma")]
unsafe fn region<const MODE: u8>(a: *const f32, b: *const f32, out: *mut f32, vectors: usize) {
    if vectors == 0 {
        return;
    }
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the loop reads and writes `vectors` vectors from the three pointers (the
    // caller's guarantee), each loaded before its quotient is stored; MXCSR is read, set and
    // restored inside the block, as in `div_in_mode`; the locals are valid.
    unsafe {
        core::arch::asm!(
            "vstmxcsr [{saved}]",
            "mov {tmp:e}, [{saved}]",
            "and {tmp:e}, {keep}",
            "or {tmp:e}, {rc}",
            "mov [{set}], {tmp:e}",
            "vldmxcsr [{set}]",
            "2:",
            "vmovups {t}, [{a}]",
            "vdivps {t}, {t}, [{b}]",
            "vmovups [{out}], {t}",
            "add {a}, 32",
            "add {b}, 32",
            "add {out}, 32",
            "dec {n}",
            "jnz 2b",
            "vstmxcsr [{set}]",
            "mov {tmp:e}, [{set}]",
            "and {tmp:e}, 0x3f",
            "or [{saved}], {tmp:e}",
            "vldmxcsr [{saved}]",
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = const (MODE as u32) << ROUNDING_CONTROL_SHIFT,
            a = inout(reg) a => _,
            b = inout(reg) b => _,
            out = inout(reg) out => _,
            n = inout(reg) vectors => _,
            t = out(ymm_reg) _,
            options(nostack),
        );
    }
}

/// Eight quotients rounded in direction `MODE`, whatever the lanes hold: the directed
/// step from `vdivps`'s quotient inside the input window, `vdivps` under that mode (one
/// `asm!` block) for the vector where a lane lies outside. Bit-identical to `vdivps` with
/// MXCSR's rounding field set to `MODE`, its other bits as they are.
///
/// # Safety
/// Outside an AVX2+FMA context, the caller must ensure the CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_rounded8<const MODE: u8, const V: u8>(a: __m256, b: __m256) -> __m256 {
    if MODE == NEAREST {
        return if rounds_to_nearest() {
            _mm256_div_ps(a, b)
        } else {
            div_in_mode(a, b, NEAREST)
        };
    }
    let q = _mm256_div_ps(a, b);
    if InputCheck::window_of(a, b).all_accepted() {
        round_from::<MODE, V>(a, b, q)
    } else {
        div_in_mode(a, b, MODE)
    }
}

/// `(RD(a/b), RU(a/b))` of eight lanes, whatever they hold (as [`div_rounded8`]).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn div_bounds8<const V: u8>(a: __m256, b: __m256) -> (__m256, __m256) {
    let q = _mm256_div_ps(a, b);
    if InputCheck::window_of(a, b).all_accepted() {
        bounds_from::<V>(a, b, q)
    } else {
        (div_in_mode(a, b, DOWN), div_in_mode(a, b, UP))
    }
}

/// Vectors per block: the window check is reduced and branched on once per block.
const BLOCK_VECTORS: usize = 4;
/// Elements per block.
const BLOCK: usize = BLOCK_VECTORS * LANES;

/// After a block with a lane outside the window, this many blocks go straight to the
/// control-word region, doubling with each further failure up to 64 (special-rich data pays
/// one failed block in 64; see `crate::backoff`).
type RegionBackoff = Backoff<1, 64>;

std::thread_local! {
    /// The directed loops' back-off, kept between calls on this thread.
    static BACKOFF: Cell<RegionBackoff> = const { Cell::new(RegionBackoff::CLEAR) };
}

/// Loads a vector.
///
/// # Safety
/// `p` readable for eight floats.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load(p: *const f32) -> __m256 {
    // SAFETY: the caller's guarantee; unaligned loads accept any address.
    unsafe { _mm256_loadu_ps(p) }
}

/// Stores a vector.
///
/// # Safety
/// `p` writable for eight floats.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store(p: *mut f32, v: __m256) {
    // SAFETY: the caller's guarantee; unaligned stores accept any address.
    unsafe { _mm256_storeu_ps(p, v) }
}

/// The directed loop over a slice, `OUTS` outputs per element: `out[0][i] = RD/RU/RZ(a/b)`
/// for `div_rounded`, or `(out[0][i], out[1][i]) = (RD, RU)` for `div_bounds`. `fast` maps
/// a block's vectors and their quotients to the outputs; `slow` fills the outputs of whole
/// vectors through the control-word region.
///
/// # Safety
/// AVX2+FMA; `a` and `b` readable and every output writable for `len` floats; the outputs
/// overlap neither the inputs nor each other.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn directed_loop<const OUTS: usize>(
    a: *const f32,
    b: *const f32,
    out: [*mut f32; OUTS],
    len: usize,
    fast: impl Fn(__m256, __m256, __m256) -> [__m256; OUTS],
    slow: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
    vector: impl Fn(__m256, __m256) -> [__m256; OUTS],
) {
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut i = 0;
    let mut backoff = RegionBackoff::load(&BACKOFF);
    while i + BLOCK <= len {
        if backoff.skip() > 0 {
            let blocks = (backoff.skip() as usize).min((len - i) / BLOCK);
            // `blocks` whole blocks from i: inside every slice.
            slow(
                a.wrapping_add(i),
                b.wrapping_add(i),
                at(i),
                blocks * BLOCK_VECTORS,
            );
            backoff.skipped(blocks as u32);
            i += blocks * BLOCK;
            continue;
        }
        // SAFETY: i + BLOCK <= len: inside both inputs.
        let (x, y): ([__m256; BLOCK_VECTORS], [__m256; BLOCK_VECTORS]) = unsafe {
            (
                core::array::from_fn(|k| load(a.add(i + k * LANES))),
                core::array::from_fn(|k| load(b.add(i + k * LANES))),
            )
        };
        let mut check = InputCheck::window_of(x[0], y[0]);
        for k in 1..BLOCK_VECTORS {
            check = check.merge(InputCheck::window_of(x[k], y[k]));
        }
        if check.all_accepted() {
            backoff.passed();
            for k in 0..BLOCK_VECTORS {
                let q = _mm256_div_ps(x[k], y[k]);
                for (o, v) in at(i + k * LANES).into_iter().zip(fast(x[k], y[k], q)) {
                    // SAFETY: inside every output (i + BLOCK <= len).
                    unsafe { store(o, v) };
                }
            }
        } else {
            backoff.failed();
            slow(a.wrapping_add(i), b.wrapping_add(i), at(i), BLOCK_VECTORS);
        }
        i += BLOCK;
    }
    backoff.store(&BACKOFF);
    // Whole vectors, then the last few lanes padded with 1/1 (inside the window).
    while i < len {
        let n = (len - i).min(LANES);
        let (mut ta, mut tb) = ([1.0f32; LANES], [1.0f32; LANES]);
        // SAFETY: n elements from i are inside both inputs; the arrays are local.
        unsafe {
            core::ptr::copy_nonoverlapping(a.add(i), ta.as_mut_ptr(), n);
            core::ptr::copy_nonoverlapping(b.add(i), tb.as_mut_ptr(), n);
        }
        // SAFETY: both arrays hold eight floats.
        let v = unsafe { vector(load(ta.as_ptr()), load(tb.as_ptr())) };
        for (o, v) in at(i).into_iter().zip(v) {
            let mut t = [0.0f32; LANES];
            // SAFETY: `t` holds eight floats; n elements from i are inside the output.
            unsafe {
                _mm256_storeu_ps(t.as_mut_ptr(), v);
                core::ptr::copy_nonoverlapping(t.as_ptr(), o, n);
            }
        }
        i += n;
    }
}

/// `out[i] = a[i] / b[i]` rounded in direction `MODE` (not [`NEAREST`]: `div` is that), for
/// `len` elements.
///
/// # Safety
/// AVX2+FMA; `a` and `b` readable and `out` writable for `len` floats; `out` overlaps
/// neither input.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_rounded_raw<const MODE: u8, const V: u8>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; `region` gets whole vectors inside the slices.
    unsafe {
        directed_loop::<1>(
            a,
            b,
            [out],
            len,
            |x, y, q| [round_from::<MODE, V>(x, y, q)],
            |x, y, [o], vectors| region::<MODE>(x, y, o, vectors),
            |x, y| [div_rounded8::<MODE, V>(x, y)],
        )
    }
}

/// `lo[i] = RD(a[i] / b[i])`, `hi[i] = RU(a[i] / b[i])` for `len` elements, one division.
///
/// # Safety
/// AVX2+FMA; `a` and `b` readable and `lo`, `hi` writable for `len` floats; no output
/// overlaps an input or the other output.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_bounds_raw<const V: u8>(
    a: *const f32,
    b: *const f32,
    lo: *mut f32,
    hi: *mut f32,
    len: usize,
) {
    // SAFETY: the caller's guarantees; `region` gets whole vectors inside the slices.
    unsafe {
        directed_loop::<2>(
            a,
            b,
            [lo, hi],
            len,
            |x, y, q| {
                let (l, h) = bounds_from::<V>(x, y, q);
                [l, h]
            },
            |x, y, [l, h], vectors| {
                region::<DOWN>(x, y, l, vectors);
                region::<UP>(x, y, h, vectors);
            },
            |x, y| {
                let (l, h) = div_bounds8::<V>(x, y);
                [l, h]
            },
        )
    }
}

/// `vdivps` under rounding direction `MODE` over the whole slice, MXCSR set once: how
/// `div_rounded(.., Nearest)` divides where MXCSR holds another mode, and the baseline the
/// benchmarks compare with ("two divider passes inside an MXCSR-set region").
///
/// # Safety
/// AVX2+FMA; `a` and `b` readable and `out` writable for `len` floats; `out` overlaps
/// neither input.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn div_in_mode_raw<const MODE: u8>(
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    len: usize,
) {
    let full = len / LANES;
    // SAFETY: `full` whole vectors inside the slices (the caller's guarantee).
    unsafe { region::<MODE>(a, b, out, full) };
    let i = full * LANES;
    if i < len {
        let n = len - i;
        let (mut ta, mut tb) = ([1.0f32; LANES], [1.0f32; LANES]);
        // SAFETY: n < 8 elements from i are inside the slices; the arrays are local.
        unsafe {
            core::ptr::copy_nonoverlapping(a.add(i), ta.as_mut_ptr(), n);
            core::ptr::copy_nonoverlapping(b.add(i), tb.as_mut_ptr(), n);
            let q = div_in_mode(
                _mm256_loadu_ps(ta.as_ptr()),
                _mm256_loadu_ps(tb.as_ptr()),
                MODE,
            );
            _mm256_storeu_ps(ta.as_mut_ptr(), q);
            core::ptr::copy_nonoverlapping(ta.as_ptr(), out.add(i), n);
        }
    }
}

/// `out[i] = a[i] / b[i]` by SSE's `divss` under rounding direction `mode`, MXCSR set once
/// and put back inside one `asm!` block (SSE is part of every x86-64 CPU): the directed
/// functions where AVX2+FMA is missing or not in use. Panics if the lengths differ.
pub fn div_in_mode_sse(a: &[f32], b: &[f32], out: &mut [f32], mode: u8) {
    assert!(a.len() == b.len() && b.len() == out.len());
    if out.is_empty() {
        return;
    }
    let mut saved = 0u32;
    let mut set = 0u32;
    // SAFETY: the loop reads `len` floats of `a` and `b` and writes `len` floats of `out`,
    // all of that length (checked); MXCSR is read, set and restored inside the block, with
    // the flags the divisions raised kept; the locals are valid.
    unsafe {
        core::arch::asm!(
            "stmxcsr [{saved}]",
            "mov {tmp:e}, [{saved}]",
            "and {tmp:e}, {keep}",
            "or {tmp:e}, {rc:e}",
            "mov [{set}], {tmp:e}",
            "ldmxcsr [{set}]",
            "2:",
            "movss {t}, [{a}]",
            "divss {t}, [{b}]",
            "movss [{out}], {t}",
            "add {a}, 4",
            "add {b}, 4",
            "add {out}, 4",
            "dec {n}",
            "jnz 2b",
            "stmxcsr [{set}]",
            "mov {tmp:e}, [{set}]",
            "and {tmp:e}, 0x3f",
            "or [{saved}], {tmp:e}",
            "ldmxcsr [{saved}]",
            saved = in(reg) &mut saved,
            set = in(reg) &mut set,
            tmp = out(reg) _,
            keep = const !ROUNDING_CONTROL,
            rc = in(reg) u32::from(mode) << ROUNDING_CONTROL_SHIFT,
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            out = inout(reg) out.as_mut_ptr() => _,
            n = inout(reg) out.len() => _,
            t = out(xmm_reg) _,
            options(nostack),
        );
    }
}
