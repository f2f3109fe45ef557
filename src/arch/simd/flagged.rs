//! Work judged by MXCSR's exception flags, a chunk at a time: the engine of every
//! flag-checked loop, generic over the vector width (the directed functions and the
//! `Divisor`'s two products, at eight and sixteen lanes).

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
/// Elements of a chunk judged first after a voided chunk, the rest run only if they pass:
/// special-rich data makes the bare work slow (subnormal operands and results take
/// microcode assists), so a failing try is kept short. A passing probe does not end the
/// back-off (only a whole chunk does): on data with a special every few hundred elements
/// it would, and each restart would pay a failing chunk (11-15% of the divider's speed
/// lost on the `Divisor`'s 1%-specials bench, `docs/bench/0x19-divisor-engine-ab.txt`).
pub const FLAG_PROBE: usize = 256;

/// After a voided chunk, one chunk's worth of elements goes straight to the control-word
/// region, doubling with each further failure up to 64 chunks' worth. Counted in elements,
/// not calls: a stream of calls shorter than a chunk waits as long between tries as a long
/// slice does. (A try costs about two 2K calls on special-rich data: counted per call, on
/// family 0x19 model 0x11 with 1% specials, the `Divisor`'s 2K slices lost 1-4% to the
/// divider and `div_bounds` at 1K 17% to two passes under the modes,
/// `docs/bench/0x19-0x11-divisors-2k.txt` and `-bounds-on-specials.txt`.)
pub type ChunkBackoff = Backoff<{ FLAG_CHUNK as u32 }, { 64 * FLAG_CHUNK as u32 }>;

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
/// `callers` is MXCSR as the call found it, if the caller read it; else the engine reads it
/// before the first chunk it tries (a call that only runs `slow`, inside the back-off,
/// reads nothing: `stmxcsr` waits for every operation in flight, the previous call's
/// divisions too). The flags it held are put back at the end, with those `slow` raised.
/// `backoff` is the caller's thread-local back-off: after a voided chunk, the next elements
/// go straight to `slow` (1, 2, 4 … up to 64 chunks' worth, a shorter call counting its
/// length), and the first try after them judges its first [`FLAG_PROBE`] elements before
/// it runs the rest; a call wholly inside the back-off is one `slow`. Returns the elements
/// done (the slice's whole vectors).
///
/// One engine for both widths and both users: the directed functions (`fast` the divider
/// and the step, `slow` the divider under the mode) and the `Divisor` at both widths (`fast`
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
    callers: Option<u32>,
    voiding: u32,
    backoff_of: &'static LocalKey<Cell<ChunkBackoff>>,
    fast: impl Fn(W::F, W::F) -> [W::F; OUTS],
    slow: impl Fn(*const f32, *const f32, [*mut f32; OUTS], usize),
) -> usize {
    let full = len - len % W::LANES;
    let at = |i: usize| out.map(|o| o.wrapping_add(i));
    let mut callers = callers;
    let mut clean = callers.is_some_and(|c| c & voiding == 0);
    let mut cleared = false;
    // The flags raised before each clearing (the caller's, the divider's in voided
    // chunks, the inexact flag of kept ones): put back at the end.
    let mut raised = 0;
    let mut backoff = ChunkBackoff::load(backoff_of);
    if backoff.skip() as usize >= full {
        // The whole call is in the back-off: one `slow` over it, nothing else (no flag read).
        // full <= skip, a u32.
        backoff.skipped(full as u32);
        backoff.store(backoff_of);
        slow(a, b, out, full / W::LANES);
        return full;
    }
    let mut i = 0;
    while i < full {
        let n = FLAG_CHUNK.min(full - i);
        let vectors = n / W::LANES;
        if backoff.skip() == 0 {
            if callers.is_none() {
                let c = read_fenced(&mut a, &mut b);
                callers = Some(c);
                clean = c & voiding == 0;
            }
            if !clean {
                raised |= clear_flags_fenced(&mut a, &mut b);
                cleared = true;
            }
            // After a voided chunk, a probe of the chunk's first FLAG_PROBE elements is
            // judged first, and the rest runs only if it passed: a failing try costs a
            // fraction of a chunk. Only the whole chunk passing ends the back-off.
            let probe = match backoff.after_failure() {
                true => (FLAG_PROBE / W::LANES).min(vectors),
                false => vectors,
            };
            // SAFETY: the probe's vectors, inside every slice (the caller's guarantees).
            unsafe { run_vectors(w, (a.add(i), b.add(i)), at(i), (0, probe), &fast) };
            let mut after = read_fenced(&mut a, &mut b);
            if after & voiding == 0 && probe < vectors {
                // SAFETY: the chunk's other vectors, inside every slice.
                unsafe { run_vectors(w, (a.add(i), b.add(i)), at(i), (probe, vectors), &fast) };
                after = read_fenced(&mut a, &mut b);
            }
            clean = after & voiding == 0;
            if clean {
                backoff.passed();
                i += n;
                continue;
            }
            backoff.failed();
            // The attempt's voiding and denormal-operand flags go (`min`/`max` raise invalid
            // for a NaN lane that `vdivps` passes quietly; an operation reading a subnormal
            // intermediate raises the denormal flag): the region raises the divider's own.
            drop_voiding_flags(after);
            cleared = true;
        } else {
            // n <= FLAG_CHUNK, a u32.
            backoff.skipped(n as u32);
        }
        // `vectors` whole vectors from i: inside every slice.
        slow(a.wrapping_add(i), b.wrapping_add(i), at(i), vectors);
        // The region keeps the flags its divisions raised.
        clean = false;
        i += n;
    }
    backoff.store(backoff_of);
    // `cleared` only after an attempt, which read `callers` if the caller had not.
    if let (true, Some(callers)) = (cleared, callers) {
        write_flags(read_mxcsr() | callers | raised);
    }
    full
}

/// `fast` over the vectors `from..to` of the slices at `a`, `b` and `out` (the chunk's
/// start): blocks of [`BLOCK_VECTORS`], each block's loads ahead of its stores (as in the
/// window-checked loop), then the last few vectors one at a time.
///
/// # Safety
/// Vectors `from..to` of both inputs readable and of every output writable.
#[inline(always)]
unsafe fn run_vectors<W: Vector, const OUTS: usize>(
    w: W,
    (a, b): (*const f32, *const f32),
    out: [*mut f32; OUTS],
    (from, to): (usize, usize),
    fast: &impl Fn(W::F, W::F) -> [W::F; OUTS],
) {
    let at = |k: usize| out.map(|o| o.wrapping_add(k));
    let blocks = (to - from) / BLOCK_VECTORS;
    let blocks_end = from + blocks * BLOCK_VECTORS;
    for v in (from..blocks_end).step_by(BLOCK_VECTORS) {
        let k = |j: usize| (v + j) * W::LANES;
        // SAFETY: the block's vectors end at `blocks_end <= to`: inside both inputs and
        // every output (the caller's guarantee).
        unsafe {
            let x: [W::F; BLOCK_VECTORS] = super::array_of(w.splat(0.0), |j| w.load(a.add(k(j))));
            let y: [W::F; BLOCK_VECTORS] = super::array_of(w.splat(0.0), |j| w.load(b.add(k(j))));
            for j in 0..BLOCK_VECTORS {
                for (o, r) in at(k(j)).into_iter().zip(fast(x[j], y[j])) {
                    w.store(o, r);
                }
            }
        }
    }
    for v in blocks_end..to {
        let k = v * W::LANES;
        // SAFETY: v < to: inside both inputs and every output.
        unsafe {
            let (x, y) = (w.load(a.add(k)), w.load(b.add(k)));
            for (o, r) in at(k).into_iter().zip(fast(x, y)) {
                w.store(o, r);
            }
        }
    }
}
