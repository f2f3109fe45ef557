//! The door to the kernels for the verification crate (`fmadiv-verify`: the sweeps, the
//! digests, the benchmark methods) and the tests: feature `verify`, off by default.
//!
//! **Not part of the user-facing API**: what is here may change in any release, and some of
//! it is wrong on purpose — the weakened kernel variants ([`Kernel::Newton`],
//! [`Kernel::Published`]), the directed step that ignores the divisor's sign, the loops
//! without the rounding-mode guard — so that the sweeps and tests can show they catch it.
//! A default build compiles none of it: the weakened variants are instantiated only here.
//!
//! What it offers:
//! - the variants and the loops that run one on every lane ([`div_with`], [`recip_with`]);
//! - every schedule whatever the plan says ([`run_schedule`], [`run_schedule_in_place`],
//!   [`run_recip_schedule_in_place`];
//!   [`run_entry`]: an entry point with its rounding-mode guard or without;
//!   [`run_schedule_divisor_window_only_on`], [`run_recip_schedule_published_on`]: a
//!   schedule's loop, from the plan's own table of them, with a weakened kernel whose lanes
//!   show, to test which lanes the loop gives the kernel; [`run_plan_weakened_on`]: the
//!   loop a plan of given choices runs for a length, its kernel weakened so) and the
//!   directed loop with either step ([`div_rounded_with`]); the checked loops' blocks,
//!   chunks and back-offs ([`MIXED_BLOCK_VECTORS`], [`FLAG_CHUNK`],
//!   [`DIRECTED_BLOCK_VECTORS`] and the like), which those tests hold the loops to;
//! - a `Divisor`'s paths whatever the plan says ([`divisor`]); the in-register token's
//!   kernel switch ([`token_with_kernel`]) and both tokens' choice between the kernel and
//!   `vdivps`, run with a weakened kernel whose lanes show it
//!   ([`token_div_divisor_window_only`], [`token16_recip_published`] and the like);
//! - the kernel's steps for the sweeps, which run them on chosen seeds and compare them pair
//!   by pair (`x86`), the named bit patterns ([`bits`]), the portable path ([`portable`]),
//!   and the `rcpps` sample check on any table ([`rcp_sample_check`]).
//!
//! One file per kind (`kernels`, `schedules`, `directed`, `blocks`, `tokens`, [`divisor`]),
//! all of it named from here: `fmadiv::verify::div_with`, not by its file.

// The x86 tokens these docs link to do not exist in a portable-only build.
#![cfg_attr(not(fmadiv_x86), allow(rustdoc::broken_intra_doc_links))]

pub use crate::variant::{Kernel, Variant};

mod blocks;
mod directed;
pub mod divisor;
mod kernels;
mod schedules;
#[cfg(fmadiv_x86)]
mod tokens;

pub use blocks::*;
pub use directed::*;
pub use kernels::*;
pub use schedules::*;
#[cfg(fmadiv_x86)]
pub use tokens::*;

/// The named bit patterns of binary32 the kernels use.
pub mod bits {
    pub use crate::bits::*;
}

/// The portable path: one quotient with x86's bits, in every rounding direction.
pub mod portable {
    pub use crate::arch::portable::{div_in_place, div_one, div_rounded_one, div_slices};
}

/// Whether this build of the library is unoptimised (opt-level 0, a user's dev profile):
/// its slice functions, the directed ones and the `Divisor`'s divider loop then run `asm!`
/// divider loops that need no inlining, not the plan's loops.
pub const UNOPTIMIZED: bool = cfg!(fmadiv_unoptimized);

/// Below this many elements the rayon forms (`par_div`, `par_div_in_place`, `par_recip`) stay
/// on the calling thread.
#[cfg(feature = "rayon")]
pub const PAR_MIN_LEN: usize = crate::parallel::PAR_MIN_LEN;

/// The rayon forms' chunks on the pool at every length, [`PAR_MIN_LEN`] and the caller's
/// MXCSR set aside: what `examples/parallel_by_length.rs` times to show where the threshold
/// belongs. Each panics where the lengths differ.
#[cfg(feature = "rayon")]
pub mod par {
    use crate::parallel::on_pool;

    /// `out[i] = a[i] / b[i]` on rayon's pool.
    pub fn div(a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(
            a.len() == out.len() && b.len() == out.len(),
            "lengths differ"
        );
        on_pool::div(a, b, out);
    }

    /// `a[i] = a[i] / b[i]` on rayon's pool.
    pub fn div_in_place(a: &mut [f32], b: &[f32]) {
        assert_eq!(a.len(), b.len(), "lengths differ");
        on_pool::div_in_place(a, b);
    }

    /// `out[i] = 1 / b[i]` on rayon's pool.
    pub fn recip(b: &[f32], out: &mut [f32]) {
        assert_eq!(b.len(), out.len(), "lengths differ");
        on_pool::recip(b, out);
    }
}

/// Whether the x86 kernels exist in this build and a SIMD backend is in use (AVX2+FMA,
/// AVX-512F, or the 16-lane model): [`div_with`], [`recip_with`] and [`div_rounded_with`]
/// run that backend's loops.
pub fn has_kernel() -> bool {
    crate::backend() != crate::Backend::Portable
}

/// The first input of the `rcpps` sample whose seed from `rcp` breaks `|1 - x·r| <= bound`:
/// the library's check before any kernel runs, on a table of the caller's (a simulated CPU).
pub fn rcp_sample_check(
    bound: f64,
    rcp: impl FnMut([f32; 8]) -> [f32; 8],
) -> Result<(), crate::plan::OutOfBound> {
    crate::seeds::check_sample_within(bound, rcp)
}

/// This CPU's `vrcp14ps` of eight inputs, or `None` without AVX-512F (to compare the model's
/// table with the real one).
#[cfg(fmadiv_x86)]
pub fn native_rcp14(x: [f32; 8]) -> Option<[f32; 8]> {
    Some(crate::arch::x86_64::avx512::Avx512::new()?.rcp8(x))
}

/// The software model of the sixteen-lane instructions: its `vrcp14ps` tables, and its
/// [`Vector`](x86::Vector) type with each table (the backend that runs it is
/// [`crate::Backend::Avx512Model`]).
#[cfg(fmadiv_x86)]
pub mod avx512_model {
    pub use crate::arch::x86_64::avx512_model::{
        Avx512Model, HIGH, INTEL, LANES, LOW, RCP14_BOUND, Seeds, rcp14, rcp14_edge,
        rcp14_reference,
    };
}

/// The kernel's steps and the directed step (x86-64), for the sweeps that run them on seeds
/// of their choosing: every item is the library's own, generic over the vector width
/// ([`Vector`](x86::Vector)) and the variant; [`Avx2Fma`](x86::Avx2Fma) is the eight-lane
/// width, [`Avx512`](x86::Avx512) the sixteen-lane one (a value only where AVX-512F is
/// present; [`avx512_model::Avx512Model`] runs the same operations anywhere).
#[cfg(fmadiv_x86)]
pub mod x86 {
    pub use crate::arch::simd::Vector;
    pub use crate::arch::simd::directed::{
        DIVISOR_SIGN_IGNORED, SHIPPED, round_from, round_from_plus_zero,
    };
    pub use crate::arch::simd::kernel::{
        InputCheck, corrected_quotient, div_vector_of, fast_path_of, kernel_quotient_from,
        reciprocal, reciprocal_quotient_from, refine,
    };
    pub use crate::arch::x86_64::avx2::{Avx2Fma, LANES};
    pub use crate::arch::x86_64::avx512::Avx512;
    pub use crate::arch::x86_64::mode::{
        DOWN, NEAREST, ROUNDING_CONTROL, ROUNDING_CONTROL_SHIFT, TOWARD_ZERO, UP,
    };
}
