//! Work judged by MXCSR's exception flags, a chunk at a time: the engine of every
//! flag-checked loop generic over the vector width (the directed functions at eight and
//! sixteen lanes, the sixteen-lane `Divisor`'s two products). The eight-lane `Divisor`'s
//! two products keep their own chunks in assembly (`divisor::flagged`), measured and
//! proven as they are.

use core::cell::Cell;
use std::thread::LocalKey;

use super::Vector;
use crate::arch::x86_64::mode::{ALL_FLAGS, drop_voiding_flags, read_mxcsr, write_flags};
use crate::backoff::Backoff;

/// Vectors per block: each block's loads ahead of its stores.
const BLOCK_VECTORS: usize = 4;

/// Elements per flag read: a voided chunk is redone in the control-word region, so it stays
/// small; the read must stay a few per cent of it.
pub const FLAG_CHUNK: usize = 4096;
/// Elements of the first try after a voided chunk: special-rich data makes the divider slow
/// (subnormal operands and results take microcode assists), so a failing try is kept short.
pub const FLAG_PROBE: usize = 256;

/// After a voided chunk, this many chunks go straight to the control-word region, doubling
/// with each further failure up to 64.
pub type ChunkBackoff = Backoff<1, 64>;

/// MXCSR, read after every store before this call, with the input pointers handed back
/// through the same `asm!` block: the loads after it depend on its outputs, so neither
/// they nor the divisions of what they load can be moved above it (the block may also
/// write memory, so no store before it can be moved below it). So the flags it reads judge
/// exactly the work between two such reads.
#[inline(always)]
pub fn read_fenced(a: &mut *const f32, b: &mut *const f32) -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr stores MXCSR to the local; the pointers pass through unchanged.
    unsafe {
        core::arch::asm!(
            "stmxcsr [{csr}] /* {a} {b} */",
            csr = in(reg) &mut csr,
            a = inout(reg) *a,
            b = inout(reg) *b,
            options(nostack, preserves_flags),
        )
    };
    csr
}

/// Clears MXCSR's exception flags (its control bits kept), fenced as [`read_fenced`];
/// returns the flags it cleared.
#[inline(always)]
fn clear_flags_fenced(a: &mut *const f32, b: &mut *const f32) -> u32 {
    let was = read_fenced(a, b);
    let csr = was & !ALL_FLAGS;
    // SAFETY: only the sticky status flags change; rounding, masks, FTZ and DAZ are
    // written back as they were. The pointers pass through unchanged.
    unsafe {
        core::arch::asm!(
            "ldmxcsr [{csr}] /* {a} {b} */",
            csr = in(reg) &csr,
            a = inout(reg) *a,
            b = inout(reg) *b,
            options(nostack, preserves_flags),
        )
    };
    was & ALL_FLAGS
}

/// The whole vectors of a slice, [`FLAG_CHUNK`] elements at a time, judged by MXCSR's
/// exception flags instead of lane by lane: `fast` maps a vector of each input to the
/// outputs with no check at all; the `voiding` flags (some of underflow, overflow and
/// invalid), clear before the chunk, judge it after; a chunk that raised one is redone by
/// `slow`, whose bits are right for any input. Why no flag means every lane is right is
/// the caller's proof (`kernel_notes`: the directed step; `divisor`: two products).
/// `callers` is MXCSR as the call found it; the flags it held are put back at the end, with
/// those `slow` raised. `backoff` is the caller's thread-local back-off: after a voided
/// chunk, the next go straight to `slow` (1, 2, 4 … up to 64), and the first try after
/// them is [`FLAG_PROBE`] elements. Returns the elements done (the slice's whole vectors).
///
/// One engine for both widths and both users: the directed functions (`fast` the divider
/// and the step, `slow` the divider under the mode) and the sixteen-lane `Divisor` (`fast`
/// two products, `slow` the divider). An input that is not needed is passed as the other
/// one (the same loads).
///
/// # Safety
/// `a` and `b` readable and every output writable for `len` floats, the outputs
/// overlapping neither input nor each other; `slow` is called only with whole vectors
/// inside the slices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn flagged_chunks<W: Vector, const OUTS: usize>(
    w: W,
    (mut a, mut b): (*const f32, *const f32),
    out: [*mut f32; OUTS],
    len: usize,
    callers: u32,
    voiding: u32,
    backoff_of: &'static LocalKey<Cell<ChunkBackoff>>,
    fast: impl Fn(W::F, W::F) -> [W::F; OUTS],
    slow: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
) -> usize {
    let full = len - len % W::LANES;
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut clean = callers & voiding == 0;
    let mut cleared = false;
    // The flags raised before each clearing (the caller's, the divider's in voided
    // chunks, the inexact flag of kept ones): put back at the end.
    let mut raised = 0;
    let mut backoff = ChunkBackoff::load(backoff_of);
    let mut i = 0;
    while i < full {
        let attempt = backoff.skip() == 0;
        let n = match attempt && backoff.after_failure() {
            true => FLAG_PROBE,
            false => FLAG_CHUNK,
        }
        .min(full - i);
        let vectors = n / W::LANES;
        if attempt {
            if !clean {
                raised |= clear_flags_fenced(&mut a, &mut b);
                cleared = true;
            }
            // Blocks of vectors, each block's loads ahead of its stores (as in the
            // window-checked loop), then the chunk's last few vectors one at a time.
            let blocks = vectors / BLOCK_VECTORS;
            for v in (0..blocks * BLOCK_VECTORS).step_by(BLOCK_VECTORS) {
                let k = |j: usize| i + (v + j) * W::LANES;
                // SAFETY: the block's vectors end at k(BLOCK_VECTORS) <= full <= len:
                // inside both inputs and every output.
                unsafe {
                    let x: [W::F; BLOCK_VECTORS] =
                        super::array_of(w.splat(0.0), |j| w.load(a.add(k(j))));
                    let y: [W::F; BLOCK_VECTORS] =
                        super::array_of(w.splat(0.0), |j| w.load(b.add(k(j))));
                    for j in 0..BLOCK_VECTORS {
                        for (o, r) in at(k(j)).into_iter().zip(fast(x[j], y[j])) {
                            w.store(o, r);
                        }
                    }
                }
            }
            for v in blocks * BLOCK_VECTORS..vectors {
                let k = i + v * W::LANES;
                // SAFETY: k + LANES <= full <= len: inside both inputs and every output.
                unsafe {
                    let (x, y) = (w.load(a.add(k)), w.load(b.add(k)));
                    for (o, r) in at(k).into_iter().zip(fast(x, y)) {
                        w.store(o, r);
                    }
                }
            }
            let after = read_fenced(&mut a, &mut b);
            clean = after & voiding == 0;
            if clean {
                backoff.passed();
                i += n;
                continue;
            }
            backoff.failed();
            // The attempt's voiding flags go (`min`/`max` raise invalid for a NaN lane that
            // `vdivps` passes quietly): the region raises the divider's own.
            drop_voiding_flags(after);
            cleared = true;
        } else {
            backoff.skipped(1);
        }
        // `vectors` whole vectors from i: inside every slice.
        slow(a.wrapping_add(i), b.wrapping_add(i), at(i), vectors);
        // The region keeps the flags its divisions raised.
        clean = false;
        i += n;
    }
    backoff.store(backoff_of);
    if cleared {
        write_flags(read_mxcsr() | callers | raised);
    }
    full
}
