//! Slices too short for the vector loops to win back their call: SSE's `divps`, four lanes at
//! a time. SSE is part of every x86-64 CPU, so these loops inline into the caller with no
//! feature check and no call into a `#[target_feature]` function; `divps` and `divss` give
//! the bits of `vdivps` (x86's NaN rules, the same MXCSR), so the results do not change.

use core::arch::asm;
use core::arch::x86_64::{__m128, _mm_div_ps, _mm_loadu_ps, _mm_set1_ps, _mm_storeu_ps};

/// Lanes of an SSE vector.
const LANES: usize = 4;

/// `v`, hidden from the optimiser. These loops inline into the caller, where the operands
/// may be constants; LLVM would then fold the division at compile time, and its folding
/// does not give x86's NaN bits (a signalling NaN dividend stays signalling). With the
/// divisor opaque, `divps` and `divss` run, and their bits are the hardware's. (The unit
/// test `public_functions_agree_with_the_portable_path` caught `Divisor::divide_slice`
/// returning a signalling NaN unquieted this way, when it was inlined whole; with rustc
/// 1.95 a constant `sNaN / 3.0` folds to the payload-less quiet NaN, where `divss` keeps
/// the payload.)
#[inline(always)]
fn opaque(mut v: __m128) -> __m128 {
    // SAFETY: the asm is empty; it only claims to read and write `v`'s register.
    unsafe { asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack)) };
    v
}

/// A scalar divisor, hidden from the optimiser (see [`opaque`]).
#[inline(always)]
fn opaque_ss(mut x: f32) -> f32 {
    // SAFETY: the asm is empty; it only claims to read and write `x`'s register.
    unsafe { asm!("/* {0} */", inout(xmm_reg) x, options(pure, nomem, nostack)) };
    x
}

/// Slices shorter than this take these loops (`div`, `recip`).
pub(crate) const SHORT: usize = 16;
/// Division by one divisor (`Divisor`) takes them below this: its vector path looks up the
/// plan and the divisor's proof first, which a short slice does not win back. At 16 the
/// vector path lost at 16-28 elements on Zen 3 and won at 24-31 on Zen 4
/// (`docs/bench/0x19-divisor-short-bound.txt`, `docs/bench/0x19-0x11-short-tail-probe.txt`).
pub(crate) const SHORT_BY: usize = 32;

/// `out[i] = a[i] / b[i]`, or `1 / b[i]` without `a`; `out` may be `a` itself (without
/// `a`, `b`).
///
/// # Safety
/// `a` (if given) and `b` readable and `out` writable for `len` floats; `out` overlaps `a`
/// only by being `a`, and `b` only by being `b` where `a` is not given.
#[inline(always)]
pub(crate) unsafe fn div_raw(a: Option<*const f32>, b: *const f32, out: *mut f32, len: usize) {
    let full = len - len % LANES;
    // SAFETY: SSE is part of every x86-64 CPU (the target's baseline).
    let one = unsafe { _mm_set1_ps(1.0) };
    let mut i = 0;
    while i < full {
        // SAFETY: SSE is baseline on x86-64; i + LANES <= len: inside every slice; each
        // vector is loaded before its store, so `out == a` (or `b`) is fine.
        unsafe {
            let x: __m128 = match a {
                Some(a) => _mm_loadu_ps(a.add(i)),
                None => one,
            };
            _mm_storeu_ps(out.add(i), _mm_div_ps(x, opaque(_mm_loadu_ps(b.add(i)))));
        }
        i += LANES;
    }
    while i < len {
        // SAFETY: i < len, inside every slice; `divss` has `vdivps`'s bits.
        unsafe { *out.add(i) = a.map_or(1.0, |a| *a.add(i)) / opaque_ss(*b.add(i)) };
        i += 1;
    }
}

/// `out[i] = a[i] / d`; `out` may be `a` itself.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; `out` is `a` or does not overlap it.
#[inline(always)]
pub(crate) unsafe fn div_by_raw(a: *const f32, d: f32, out: *mut f32, len: usize) {
    let full = len - len % LANES;
    // SAFETY: SSE is part of every x86-64 CPU (the target's baseline).
    let vd = opaque(unsafe { _mm_set1_ps(d) });
    let d = opaque_ss(d);
    let mut i = 0;
    while i < full {
        // SAFETY: SSE is baseline on x86-64; i + LANES <= len: inside both; loaded before
        // stored.
        unsafe { _mm_storeu_ps(out.add(i), _mm_div_ps(_mm_loadu_ps(a.add(i)), vd)) };
        i += LANES;
    }
    while i < len {
        // SAFETY: i < len, inside both; `divss` has `vdivps`'s bits.
        unsafe { *out.add(i) = *a.add(i) / d };
        i += 1;
    }
}

/// The operands of [`div_unoptimized`]: a slice, or one value for every element.
#[derive(Clone, Copy)]
pub(crate) enum Operand {
    /// `len` floats from this address.
    Slice(*const f32),
    /// This value for every element.
    Splat(f32),
}

/// `out[i] = a[i] / b[i]` (either operand may be one value for every element) by SSE's
/// `divps` and `divss` in one `asm!` block: what the slice functions run in a build without
/// optimisation (`build.rs` sets `fmadiv_unoptimized` at opt-level 0), where every intrinsic
/// of the other loops would be a function call of its own (a hundred times slower than
/// release, and slower than a user's own `for` loop). The same bits: `divps` is the
/// divider, with `vdivps`'s NaN rules and the MXCSR in force. `out` may be `a` itself (or,
/// where `a` is a splat, `b`).
///
/// # Safety
/// The slices given readable and `out` writable for `len` floats; `out` overlaps `a` only
/// by being `a`, and `b` only by being `b` where `a` is a splat.
pub(crate) unsafe fn div_unoptimized(a: Operand, b: Operand, out: *mut f32, len: usize) {
    // A splat is read from four copies at the same place every time: its step is zero.
    let (a_splat, b_splat) = (splat_of(a), splat_of(b));
    let (a, a_step) = pointer_and_step(a, &a_splat);
    let (b, b_step) = pointer_and_step(b, &b_splat);
    // SAFETY: the loop reads `len` floats from each slice operand (or the four copies of a
    // splat again and again) and writes `len` to `out`, loading each group before storing
    // it; unaligned loads (`movups`, `movss`) accept any address; MXCSR is untouched.
    unsafe {
        asm!(
            "2:",
            "cmp {n}, 4",
            "jb 3f",
            "movups {x}, [{a}]",
            "movups {y}, [{b}]",
            "divps {x}, {y}",
            "movups [{out}], {x}",
            "add {a}, {a_step}",
            "add {b}, {b_step}",
            "add {out}, 16",
            "sub {n}, 4",
            "jmp 2b",
            "3:",
            "shr {a_step}, 2",
            "shr {b_step}, 2",
            "4:",
            "test {n}, {n}",
            "jz 5f",
            "movss {x}, [{a}]",
            "movss {y}, [{b}]",
            "divss {x}, {y}",
            "movss [{out}], {x}",
            "add {a}, {a_step}",
            "add {b}, {b_step}",
            "add {out}, 4",
            "dec {n}",
            "jmp 4b",
            "5:",
            a = inout(reg) a => _,
            b = inout(reg) b => _,
            out = inout(reg) out => _,
            n = inout(reg) len => _,
            a_step = inout(reg) a_step => _,
            b_step = inout(reg) b_step => _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            options(nostack),
        );
    }
}

/// Four copies of a splat operand's value (unused for a slice).
#[inline(always)]
fn splat_of(x: Operand) -> [f32; LANES] {
    match x {
        Operand::Splat(v) => [v; LANES],
        Operand::Slice(_) => [0.0; LANES],
    }
}

/// The address the loop reads an operand from and its step per four elements, in bytes.
#[inline(always)]
fn pointer_and_step(x: Operand, splat: &[f32; LANES]) -> (*const f32, usize) {
    match x {
        Operand::Slice(p) => (p, 4 * LANES),
        Operand::Splat(_) => (splat.as_ptr(), 0),
    }
}
