//! Two products checked by the floating-point exception flags instead of lane by lane.
//!
//! The per-vector range check of the two-products sequence costs as much as the sequence
//! itself. The hardware already records, in MXCSR's sticky flags, everything that check
//! looks for: an operation that underflowed with a loss of accuracy (UE), overflowed
//! (OE) or was invalid (IE: ∞ - ∞, a signaling NaN). So a chunk of dividends runs the
//! bare sequence, and the flags decide: clear before and after it, the chunk is proven;
//! otherwise the divider redoes the chunk.
//!
//! Why no flag means an exact quotient, for `q = fma(a, zh, RN(a·zl))` with `zh`, `zl`
//! normal (as a proven [`super::Divisor`] makes them):
//! - `a` finite and nonzero: without UE, `RN(a·zl)` is normal or exact and `q` is normal
//!   or exact; without OE both are finite. That is all the two-products proof (module
//!   `divisor`) needs; an exact subnormal `q` is `a/b` itself, as the sum is within 2^-47
//!   of it in relative terms while the grid spacing there is 2^-149.
//! - `a` infinite: both products are infinite; with equal signs the sum is the correctly
//!   signed infinity, with opposite signs it is ∞ - ∞ and raises IE.
//! - `a` a quiet NaN: every operation returns `a` itself, as the divider does; a signaling
//!   NaN raises IE.
//! - `a` zero: both products are zeros, and the sum has the quotient's sign unless `zh` and
//!   `zl` differ in sign (then `+0 + -0 = +0`; [`super::Divisor::new`] takes `zh = RZ(1/b)`
//!   to avoid that where it is proven, module `divisor`, "Which `zh`": 6.5% of divisors
//!   still have it). [`ZeroSign`] repairs those with one OR of
//!   a correctly signed value: the sign of `a` when `b > 0`, of `RN(a·zh)` when `b < 0`
//!   (both are `a`'s own sign for a NaN `a`, so NaNs keep their bits).
//!
//! Rust promises nothing about MXCSR around its own floating-point operations (they may
//! be moved), so the sequence and the flag read that judges it are one `asm!` block, as
//! `core::arch`'s `_mm_getcsr` documentation asks. The state before the block needs no
//! read of its own: the flags are sticky and only this module clears them, so a reading
//! that found them clear (at the start of the call, after clearing them, or at the end of
//! the previous chunk) stays a valid start. Anything run in between, ours or the
//! compiler's, can only set flags, and so only void a chunk, never prove one. The caller's
//! flags are put back before returning, with those the divider raised in redone chunks:
//! after a call MXCSR holds every flag it held before, and a voided attempt leaves none of
//! its own (the bare sequence can underflow in `a·zl` where the quotient is normal).

use core::arch::asm;
use core::arch::x86_64::*;

use super::Proven;
use super::lanes::{TWO_PRODUCTS, divide_by_divider_in, divide_loop};
use crate::arch::x86_64::avx2::{Avx2Fma, LANES};
use crate::arch::x86_64::mode::{
    ALL_FLAGS, VOIDING, drop_voiding_flags, read_mxcsr, take_flags, write_flags,
};
use crate::backoff::Backoff;
use crate::bits::SIGN_MASK;

/// Dividends per flag read: a chunk that meets one special dividend is redone, so it
/// stays small; the read (`stmxcsr` waits for every operation in flight) must stay a few
/// percent of it.
const CHUNK: usize = 4096;
/// Shorter slices take the lane-checked loop: the flag reads (each waits for every
/// operation in flight) cost about as much as checking a few hundred dividends.
pub(super) const MIN_LEN: usize = CHUNK / 8;

/// After a voided chunk, the divider runs 1, 2, 4, ... up to 64 chunks (or partial
/// chunks: calls) before the bare sequence is tried again: data full of specials costs one
/// extra chunk in 64, clean data loses nothing.
type ChunkBackoff = Backoff<1, 64>;

/// Blocks of the probe that starts a chunk after a voided one (32 dividends).
const PROBE_BLOCKS: usize = 1;

std::thread_local! {
    /// The back-off, kept between calls on this thread: a stream of short slices full of
    /// specials does not pay a voided chunk per call.
    static BACKOFF: core::cell::Cell<ChunkBackoff> =
        const { core::cell::Cell::new(ChunkBackoff::CLEAR) };
}

/// How zero dividends get the quotient's sign (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ZeroSign {
    /// `zh` and `zl` have one sign: the sum of the two zero products is already right.
    Exact,
    /// `b > 0`, `zl < 0`: OR the sign of `a`.
    OfDividend,
    /// `b < 0`, `zl > 0`: OR the sign of `RN(a·zh)`.
    OfProduct,
}

impl ZeroSign {
    fn of(d: &Proven) -> ZeroSign {
        match super::repair_class(d.zh, d.zl) {
            super::NO_REPAIR => ZeroSign::Exact,
            super::SIGN_OF_DIVIDEND => ZeroSign::OfDividend,
            _ => ZeroSign::OfProduct,
        }
    }
}

/// One vector of the bare sequence at byte offset `$off` of the block, with registers
/// `$x` (the dividends) and `$t` (the quotients), and the zero-sign repair of `$zero`.
macro_rules! vector {
    ($zero:ident, $x:literal, $t:literal, $off:literal) => {
        concat!(
            "vmovups {", $x, "}, [{a} + {i} + ", $off, "]\n",
            "vmulps {", $t, "}, {", $x, "}, {zl}\n",         // RN(a·zl)
            "vfmadd231ps {", $t, "}, {", $x, "}, {zh}\n",    // q = RN(a·zh + RN(a·zl))
            vector!(@repair $zero, $x, $t),
            "vmovups [{o} + {i} + ", $off, "], {", $t, "}\n",
        )
    };
    // Nothing to repair (the comment names the sign register every variant is given).
    (@repair Exact, $x:literal, $t:literal) => { "/* {sign} */\n" };
    // q |= a & SIGN
    (@repair OfDividend, $x:literal, $t:literal) => {
        concat!("vandps {", $x, "}, {", $x, "}, {sign}\n", "vorps {", $t, "}, {", $t, "}, {", $x, "}\n")
    };
    // q |= RN(a·zh) & SIGN
    (@repair OfProduct, $x:literal, $t:literal) => {
        concat!(
            "vmulps {", $x, "}, {", $x, "}, {zh}\n",
            "vandps {", $x, "}, {", $x, "}, {sign}\n",
            "vorps {", $t, "}, {", $t, "}, {", $x, "}\n",
        )
    };
}

/// The bare sequence over `blocks` blocks of four vectors, then MXCSR as it stands after
/// them (one read: it waits for every operation before it, so it is paid per chunk).
macro_rules! bare_blocks {
    ($zero:ident, $a:expr, $out:expr, $blocks:expr, $zh:expr, $zl:expr, $sign:expr) => {{
        let bytes = ($blocks * BLOCK * 4) as isize;
        let mut after = 0u32;
        // SAFETY: (caller) a readable and out writable for `blocks` blocks; the loop
        // addresses [end - bytes, end) of both with a negative index counting up to 0.
        unsafe {
            asm!(
                "2:",
                vector!($zero, "x0", "t0", "0"),
                vector!($zero, "x1", "t1", "32"),
                vector!($zero, "x2", "t2", "64"),
                vector!($zero, "x3", "t3", "96"),
                "add {i}, 128",
                "jnz 2b",
                "stmxcsr [{after}]",
                a = in(reg) $a.byte_offset(bytes),
                o = in(reg) $out.byte_offset(bytes),
                i = inout(reg) -bytes => _,
                zh = in(ymm_reg) $zh,
                zl = in(ymm_reg) $zl,
                sign = in(ymm_reg) $sign,
                x0 = out(ymm_reg) _,
                x1 = out(ymm_reg) _,
                x2 = out(ymm_reg) _,
                x3 = out(ymm_reg) _,
                t0 = out(ymm_reg) _,
                t1 = out(ymm_reg) _,
                t2 = out(ymm_reg) _,
                t3 = out(ymm_reg) _,
                after = in(reg) &mut after,
                options(nostack),
            );
        }
        after
    }};
}

/// Floats per unrolled block of the bare loop.
const BLOCK: usize = 4 * LANES;

/// Runs the bare sequence on `blocks` blocks of 32 dividends; MXCSR after it.
///
/// # Safety
/// AVX2+FMA; `a` readable and `out` writable for `blocks * 32` floats; `blocks > 0`.
#[target_feature(enable = "avx2,fma")]
unsafe fn bare(zero: ZeroSign, d: &Proven, a: *const f32, out: *mut f32, blocks: usize) -> u32 {
    debug_assert!(blocks > 0);
    let zh = _mm256_set1_ps(d.zh);
    let zl = _mm256_set1_ps(d.zl);
    let sign = _mm256_castsi256_ps(_mm256_set1_epi32(SIGN_MASK as i32));
    match zero {
        ZeroSign::Exact => bare_blocks!(Exact, a, out, blocks, zh, zl, sign),
        ZeroSign::OfDividend => bare_blocks!(OfDividend, a, out, blocks, zh, zl, sign),
        ZeroSign::OfProduct => bare_blocks!(OfProduct, a, out, blocks, zh, zl, sign),
    }
}

/// The lane-checked loop, for the leftovers of a chunk.
///
/// # Safety
/// As [`two_products`].
#[target_feature(enable = "avx2,fma")]
unsafe fn checked(k: Avx2Fma, d: &Proven, a: *const f32, out: *mut f32, len: usize) {
    // SAFETY: the caller's guarantees are `divide_loop`'s.
    unsafe { divide_loop::<Avx2Fma, TWO_PRODUCTS>(k, d, a, out, len) }
}

/// `out[i] = a[i] / d` for a two-products divisor, chunk by chunk under the flags; voided
/// chunks and the back-off's run the divider.
///
/// # Safety
/// `a` readable and `out` writable for `len` floats; they must not overlap.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn two_products(
    k: Avx2Fma,
    d: &Proven,
    a: *const f32,
    out: *mut f32,
    len: usize,
) {
    let zero = ZeroSign::of(d);
    // The caller's flags, read before the first bare chunk (a call that only redoes
    // chunks of the back-off reads nothing: a read waits for every operation in flight).
    let mut callers: Option<u32> = None;
    // Whether the voiding flags are known clear now. Operations outside the asm blocks
    // can only set flags, never clear them, so a clear reading stays a valid start.
    let mut clean = false;
    let mut cleared = false;
    // The flags raised since the call began and cleared before a chunk (the divider's in
    // voided chunks, the inexact flag of kept ones): put back at the end with the caller's.
    let mut raised = 0;
    let mut backoff = ChunkBackoff::load(&BACKOFF);
    let chunks = len.div_ceil(CHUNK);
    if backoff.skip() as usize >= chunks {
        // The whole call is in the back-off: one divider loop, nothing else.
        // chunks <= skip, a u32.
        backoff.skipped(chunks as u32);
        backoff.store(&BACKOFF);
        // SAFETY: the caller's guarantees.
        return unsafe { divide_by_divider_in(k, d.b, a, out, len) };
    }
    let mut i = 0;
    while i < len {
        let n = CHUNK.min(len - i);
        let blocks = n / BLOCK;
        // SAFETY: [i, i + n) is inside both slices (the caller's guarantee).
        let (x, o) = unsafe { (a.add(i), out.add(i)) };
        i += n;
        if backoff.skip() == 0 && blocks > 0 {
            if callers.is_none() {
                let flags = read_mxcsr() & ALL_FLAGS;
                callers = Some(flags);
                clean = flags & VOIDING == 0;
            }
            if !clean {
                raised |= take_flags();
                cleared = true;
            }
            // After a voided chunk, a short probe first: the bare sequence over special-rich
            // data is slow (subnormal operands and results take microcode assists), so a
            // failing attempt should cost a fraction of a chunk.
            let first = if backoff.after_failure() {
                blocks.min(PROBE_BLOCKS)
            } else {
                blocks
            };
            // SAFETY: AVX2+FMA (`k`), `first * 32 <= n` floats inside both slices.
            let mut after = unsafe { bare(zero, d, x, o, first) };
            if after & VOIDING == 0 && first < blocks {
                let at = first * BLOCK;
                // SAFETY: the chunk's remaining `blocks - first` blocks, inside both slices.
                after = unsafe { bare(zero, d, x.add(at), o.add(at), blocks - first) };
            }
            clean = after & VOIDING == 0;
            if clean {
                backoff.passed();
                let done = blocks * BLOCK;
                if done < n {
                    // SAFETY: the chunk's last n - done floats, inside both slices.
                    unsafe { checked(k, d, x.add(done), o.add(done), n - done) };
                    clean = false;
                }
                continue;
            }
            // Voided: the divider redoes this chunk and the back-off's. The attempt's voiding
            // flags are the bare sequence's (it can underflow where the quotient does not):
            // they go, and the divider raises its own.
            backoff.failed();
            drop_voiding_flags(after);
            cleared = true;
        } else {
            backoff.skipped(1);
        }
        // SAFETY: the chunk, inside both slices.
        unsafe { divide_by_divider_in(k, d.b, x, o, n) };
        // The divider may raise flags of its own.
        clean = false;
    }
    backoff.store(&BACKOFF);
    if let (true, Some(callers)) = (cleared, callers) {
        write_flags(read_mxcsr() | callers | raised);
    }
}
