//! The verification and benchmark tooling of `fmadiv`, apart from the library its users
//! build: the exhaustive sweeps ([`sweep`]), the digests that name the arithmetic a report
//! checked ([`digest`]), the CPU's `rcpps` fingerprint ([`fingerprint`]), documented seed
//! bounds ([`seeds`]), the seeded samples and buffer layouts the tests and benchmarks share
//! ([`samples`]), the hardware's quotient under each rounding mode ([`mxcsr`]), and the
//! division methods the benchmarks compare ([`methods`]), with the divider baselines at
//! the CPU's widest vectors ([`widest`]).
//!
//! It reaches the kernels, their weakened variants included, through the library's
//! feature-gated door `fmadiv::verify`; nothing here is part of `fmadiv`'s API.
//!
//! Each module imports only from layers below its own (`scripts/layers.py` checks it):
//!
//! ```text
//! layers (top first):
//! 5 baselines   widest
//! 4 benchmarks  methods
//! 3 naming      fingerprint digest
//! 2 sweeps      sweep
//! 1 ground      samples seeds mxcsr
//! ```

/// `$body` with `$v` bound to `$kernel`'s variant id as a constant (a `const u8` the
/// kernels take as a generic argument): one instantiation per variant, chosen at run time.
#[cfg(fmadiv_x86)]
macro_rules! with_variant {
    ($kernel:expr, $v:ident => $body:expr) => {{
        use fmadiv::verify::{Kernel, Variant};
        match $kernel {
            Kernel::Shipped => {
                const $v: u8 = Variant::SHIPPED;
                $body
            }
            Kernel::Newton => {
                const $v: u8 = Variant::NEWTON;
                $body
            }
            Kernel::Published => {
                const $v: u8 = Variant::PUBLISHED;
                $body
            }
            Kernel::Vrcp14 => {
                const $v: u8 = Variant::RCP14_RULE;
                $body
            }
            Kernel::Vrcp14Narrowed => {
                const $v: u8 = Variant::RCP14_RULE_NARROWED;
                $body
            }
        }
    }};
}

pub mod digest;
pub mod fingerprint;
pub mod methods;
pub mod mxcsr;
pub mod samples;
pub mod seeds;
pub mod sweep;
pub mod widest;
