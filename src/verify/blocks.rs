//! Where the slice loops' heads, blocks and chunks fall, and their back-off rules: what the
//! tests hold the loops to.

// The x86 items these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

/// Kernel vectors per block of the plan's mixed loops: a step of schedule `mix-d` is one
/// block through the kernel, then `d` divider vectors (the kernel alone: `d = 0`).
#[cfg(fmadiv_x86)]
pub const MIXED_BLOCK_VECTORS: usize = crate::arch::simd::loops::BLOCK_VECTORS;

/// The elements `backend`'s slice loops (the divider's, the mixed schedules', the embedded-rounding
/// pass of `div_rounded` and `div_bounds`, the `Divisor`'s) divide first when writing to `out`:
/// those before its first cache-line boundary, as one partial vector, where the backend aligns its
/// stores (a vector a line: the sixteen-lane backend and its model) and `out` has at least
/// `LINE_HEAD_FROM` (1024) elements; 0 elsewhere. A mixed loop's
/// steps and kernel blocks count from there. (The directed loops take it from a length on:
/// [`directed_line_head`]; the `Divisor`'s flag-checked two products take one at eight lanes too:
/// [`divisor::two_products_head`](super::divisor::two_products_head).)
#[cfg(fmadiv_x86)]
pub fn line_head(backend: crate::Backend, out: &[f32]) -> usize {
    let aligns = aligns_stores(backend).unwrap_or(false);
    crate::arch::simd::divider::line_head_len(aligns, out.as_ptr(), out.len())
}

/// From how many elements the slice loops take [`line_head`] where the backend aligns its
/// stores: shorter slices take none.
#[cfg(fmadiv_x86)]
pub const LINE_HEAD_FROM: usize = crate::arch::simd::divider::LINE_HEAD_FROM;

/// Whether `backend` aligns its stores (`Vector::ALIGNS_STORES`); `None` for a backend
/// without entry points.
#[cfg(fmadiv_x86)]
pub(super) fn aligns_stores(backend: crate::Backend) -> Option<bool> {
    macro_rules! aligns_of {
        ($entry:path) => {{
            use $entry as entry;
            Some(entry::ALIGNS_STORES)
        }};
    }
    crate::dispatch::with_entry!(backend, aligns_of, None)
}

/// The elements the directed loops (`div_rounded`'s and `div_bounds`' step) divide first
/// when their first output is `out`: where the backend aligns its stores, the floats before
/// its first cache-line boundary for slices of `(DIRECTED_FLAGGED_FROM_VECTORS + 1)` vectors
/// and more (their own threshold, not [`LINE_HEAD_FROM`]), 0 for shorter ones. Their blocks
/// and chunks count from there.
#[cfg(fmadiv_x86)]
pub fn directed_line_head(backend: crate::Backend, out: &[f32]) -> usize {
    let aligns = aligns_stores(backend).unwrap_or(false);
    match aligns && out.len() >= crate::arch::simd::directed::head_from(backend.lanes()) {
        // The floats to the output's first vector boundary (a line where stores are
        // aligned), as the directed loop counts them.
        true => {
            let vector_bytes = backend.lanes() * core::mem::size_of::<f32>();
            crate::arch::simd::divider::floats_to_boundary(out.as_ptr(), vector_bytes)
                .min(out.len())
        }
        false => 0,
    }
}

/// From how many elements `div_bounds` at eight lanes begins with the head to the lower
/// bounds' vector boundary on this CPU (`usize::MAX`: never): its family's record,
/// [`crate::Avx512Family::bounds_eight_lane_head_from`].
pub fn bounds_eight_lane_head_from() -> usize {
    #[cfg(fmadiv_x86)]
    return crate::dispatch::bounds_form().eight_lane_head_from;
    #[cfg(not(fmadiv_x86))]
    usize::MAX
}

/// The elements `div_bounds`' step loop on `backend` divides first when its lower bounds
/// are `out`, at eight lanes from `eight_lane_head_from` elements
/// ([`bounds_eight_lane_head_from`] as shipped): those before `out`'s first vector boundary
/// (fewer than a vector; 0 for the portable path). Its blocks and chunks count from there.
/// A width that aligns its stores takes [`directed_line_head`].
#[cfg(fmadiv_x86)]
pub fn bounds_head(backend: crate::Backend, out: &[f32], eight_lane_head_from: usize) -> usize {
    match aligns_stores(backend) {
        Some(true) => directed_line_head(backend, out),
        Some(false) => vector_head(backend, out, eight_lane_head_from),
        None => 0,
    }
}

/// The head a loop whose stores the width does not align takes from `from` elements on (and
/// never below a vector): the elements before `out`'s first vector boundary, by one whole
/// vector from the start.
#[cfg(fmadiv_x86)]
pub(super) fn vector_head(backend: crate::Backend, out: &[f32], from: usize) -> usize {
    let lanes = backend.lanes();
    match out.len() >= from.max(lanes) {
        true => crate::arch::simd::divider::floats_to_boundary(out.as_ptr(), lanes * 4),
        false => 0,
    }
}

/// The steps a mixed loop gives the divider alone after a kernel block that failed its
/// check with a lane outside the input window, doubling after each further failure with no
/// passing block between, up to the second.
#[cfg(fmadiv_x86)]
pub const MIXED_STEPS_AFTER_FAILURE: (u32, u32) = crate::arch::simd::loops::MixBackoff::RULE;

/// Elements per chunk of the flag-checked loops (the directed functions from
/// [`DIRECTED_FLAGGED_FROM_VECTORS`] vectors, the `Divisor`'s two products from 512
/// elements): each chunk is judged by MXCSR's flags as a whole.
#[cfg(fmadiv_x86)]
pub const FLAG_CHUNK: usize = crate::arch::simd::flagged::FLAG_CHUNK;

/// The chunks a flag-checked loop gives the divider alone after a voided chunk, doubling
/// after each further failure with no passing chunk between, up to the second. Counted in
/// elements ([`FLAG_CHUNK`] a chunk): a call shorter than a chunk uses up its own length.
#[cfg(fmadiv_x86)]
pub const FLAG_CHUNKS_AFTER_FAILURE: (u32, u32) = {
    let (first, most) = crate::arch::simd::flagged::ChunkBackoff::RULE;
    (first / FLAG_CHUNK as u32, most / FLAG_CHUNK as u32)
};

/// The directed loops below [`DIRECTED_FLAGGED_FROM_VECTORS`] vectors (or under
/// flush-to-zero or denormals-are-zero) check the window in blocks of this many vectors ...
#[cfg(fmadiv_x86)]
pub const DIRECTED_BLOCK_VECTORS: usize = crate::arch::simd::directed::BLOCK_VECTORS;

/// ... and give the divider alone this many blocks after one with a lane outside the
/// window, doubling after each further failure with no passing block between, up to the
/// second.
#[cfg(fmadiv_x86)]
pub const DIRECTED_BLOCKS_AFTER_FAILURE: (u32, u32) =
    crate::arch::simd::directed::RegionBackoff::RULE;

/// From this many vectors of the backend's width (256 elements at eight lanes, 512 at
/// sixteen) the directed loops run the flag-checked chunks (where MXCSR flushes and zeroes
/// nothing).
#[cfg(fmadiv_x86)]
pub const DIRECTED_FLAGGED_FROM_VECTORS: usize = crate::arch::simd::directed::FLAGGED_FROM_VECTORS;

/// `div_rounded` takes one divider pass under the mode from this many elements (with
/// embedded rounding at every length), the directed loop below.
#[cfg(fmadiv_x86)]
pub const DIRECTED_ONE_PASS_FROM: usize = crate::arch::simd::directed::ONE_PASS_FROM;

/// With embedded rounding, `div_bounds` takes two divider passes (one per bound) from this
/// many elements where the CPU says nothing else ([`directed_two_passes_from`]).
#[cfg(fmadiv_x86)]
pub const DIRECTED_TWO_PASSES_FROM: usize = crate::arch::simd::directed::TWO_PASSES_FROM;

/// With embedded rounding, `div_bounds` takes two divider passes (one per bound) from this
/// many elements on this CPU, the directed loop below (`usize::MAX`, never, on a family
/// whose record says [`crate::Avx512Family::bounds_step_only`]).
#[cfg(fmadiv_x86)]
pub fn directed_two_passes_from() -> usize {
    crate::dispatch::bounds_form().two_passes_from
}
