//! What a `try_` function returns when its slices' lengths disagree (it writes nothing then),
//! the checks that make it, and the panic of the panicking forms with the same error.

use core::fmt;

/// What went wrong with the arguments of a `try_` function. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The slices do not all have the same length (a function of dividends, divisors and
    /// one output: [`crate::try_div`], [`crate::try_div_in_place`], whose output is its
    /// dividends, `try_par_div`, [`crate::try_div_rounded`]).
    LengthMismatch {
        /// Length of the dividends.
        dividends: usize,
        /// Length of the divisors.
        divisors: usize,
        /// Length of the output.
        out: usize,
    },
    /// The input and the output differ in length (a function of one input slice:
    /// [`crate::try_recip`], whose input is its divisors; [`crate::try_div_scalar`] and
    /// [`crate::Divisor::try_divide_slice`], whose input is their dividends).
    OutputMismatch {
        /// Length of the input.
        input: usize,
        /// Length of the output.
        out: usize,
    },
    /// The four slices of [`crate::try_div_bounds`] do not all have the same length.
    BoundsMismatch {
        /// Length of the dividends.
        dividends: usize,
        /// Length of the divisors.
        divisors: usize,
        /// Length of the lower bounds.
        lower: usize,
        /// Length of the upper bounds.
        upper: usize,
    },
}

impl Error {
    /// `Ok` where the dividends, the divisors and the output have one length, else
    /// [`Error::LengthMismatch`].
    pub(crate) fn check_lengths(
        dividends: usize,
        divisors: usize,
        out: usize,
    ) -> Result<(), Error> {
        match dividends == divisors && divisors == out {
            true => Ok(()),
            false => Err(Error::LengthMismatch {
                dividends,
                divisors,
                out,
            }),
        }
    }

    /// `Ok` where the four slices of [`crate::div_bounds`] have one length, else
    /// [`Error::BoundsMismatch`].
    pub(crate) fn check_bounds(
        dividends: usize,
        divisors: usize,
        lower: usize,
        upper: usize,
    ) -> Result<(), Error> {
        match [divisors, lower, upper].iter().all(|&n| n == dividends) {
            true => Ok(()),
            false => Err(Error::BoundsMismatch {
                dividends,
                divisors,
                lower,
                upper,
            }),
        }
    }

    /// `Ok` where the input and the output have one length, else [`Error::OutputMismatch`].
    pub(crate) fn check_output(input: usize, out: usize) -> Result<(), Error> {
        match input == out {
            true => Ok(()),
            false => Err(Error::OutputMismatch { input, out }),
        }
    }

    /// The panic of the panicking form `function` of a `try_` function: the same error, so
    /// the message is the `try_` form's. Cold and out of line: the callers' hot path keeps no
    /// stack frame.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub(crate) fn panic_in(self, function: &str) -> ! {
        panic!("fmadiv::{function}: {self}")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LengthMismatch {
                dividends,
                divisors,
                out,
            } => write!(
                f,
                "length mismatch: {dividends} dividends, {divisors} divisors, output of {out}"
            ),
            Error::OutputMismatch { input, out } => {
                write!(f, "length mismatch: input of {input}, output of {out}")
            }
            Error::BoundsMismatch {
                dividends,
                divisors,
                lower,
                upper,
            } => write!(
                f,
                "length mismatch: {dividends} dividends, {divisors} divisors, lower bounds of \
                 {lower}, upper bounds of {upper}"
            ),
        }
    }
}

impl std::error::Error for Error {}
