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

pub mod digest;
pub mod fingerprint;
pub mod methods;
pub mod mxcsr;
pub mod samples;
pub mod seeds;
pub mod sweep;
pub mod widest;
