//! Kernel variants: the shipped kernel, and (feature `verify`) deliberately weakened ones.
//!
//! The kernels take a variant as a `const u8`, so each compiles separately and only the
//! variants a build names exist in it: a default build names the shipped one alone. The
//! weakened variants let the tests and `fmadiv verify` show that they are able to fail.

/// A kernel variant, passed to the kernels as a `const u8` so each compiles separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Halley's step (cubic) for the reciprocal; `false`: one Newton step (quadratic).
    pub halley: bool,
    /// Send divisors with a near-all-ones mantissa to the slow path.
    pub all_ones_fix: bool,
    /// Check the dividend's window too (`false`: the divisor's alone).
    pub dividend_window: bool,
    /// Check the input window at all (`false`: every lane but a near-all-ones divisor's is
    /// accepted).
    pub window: bool,
}

impl Variant {
    /// The kernel `div` runs.
    pub const SHIPPED: u8 = 0;
    /// One Newton step instead of Halley's, everything else as shipped.
    #[cfg(feature = "verify")]
    pub const NEWTON: u8 = 1;
    /// The algorithm as published: Halley's step, no fix for near-all-ones divisors.
    #[cfg(feature = "verify")]
    pub const PUBLISHED: u8 = 2;
    /// The shipped arithmetic with the window checked on the divisor alone: zeros,
    /// infinities, NaNs and huge or tiny dividends then pass the check (wrong for them).
    #[cfg(feature = "verify")]
    pub const DIVISOR_WINDOW_ONLY: u8 = 3;
    /// The shipped arithmetic with no input window: a zero divisor then passes the check
    /// and comes out NaN (`1 - 0·∞`), under every rounding mode. What shows which lanes a
    /// reciprocal loop gave the kernel under a directed mode, where inside the window every
    /// weakened reciprocal kernel measured gives the divider's bits (2^20 random divisors,
    /// each of the four modes).
    #[cfg(feature = "verify")]
    pub const NO_WINDOW: u8 = 4;

    /// The flags of a variant id (the x86 kernels read them; the portable path has no
    /// variants).
    #[cfg(any(fmadiv_x86, feature = "verify"))]
    pub const fn of(id: u8) -> Variant {
        match id {
            #[cfg(feature = "verify")]
            Variant::NEWTON => Variant {
                halley: false,
                all_ones_fix: true,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::PUBLISHED => Variant {
                halley: true,
                all_ones_fix: false,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::DIVISOR_WINDOW_ONLY => Variant {
                halley: true,
                all_ones_fix: true,
                dividend_window: false,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::NO_WINDOW => Variant {
                halley: true,
                all_ones_fix: true,
                dividend_window: false,
                window: false,
            },
            _ => Variant {
                halley: true,
                all_ones_fix: true,
                dividend_window: true,
                window: true,
            },
        }
    }
}

/// A kernel variant by name, for tests and the command line.
#[cfg(feature = "verify")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// The kernel `div` runs.
    Shipped,
    /// One Newton step instead of Halley's: wrong for some pairs.
    Newton,
    /// Without the near-all-ones divisor fix: wrong where `rcp(0x1.fffffep+0)` is exactly
    /// 0.5, as on AMD EPYC (1.0 / 0x1.fffffep-1).
    Published,
}

#[cfg(feature = "verify")]
impl Kernel {
    /// Every variant.
    pub const ALL: [Kernel; 3] = [Kernel::Shipped, Kernel::Newton, Kernel::Published];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Shipped => "shipped",
            Kernel::Newton => "newton",
            Kernel::Published => "published",
        }
    }

    /// Parses a name from [`Kernel::name`].
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }
}

#[cfg(feature = "verify")]
impl core::fmt::Display for Kernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
