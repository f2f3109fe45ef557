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
    /// Which divisors with a near-all-ones mantissa go to the slow path.
    pub near_all_ones: NearAllOnes,
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
    /// The shipped arithmetic with the near-all-ones rule of seeds within 2^-14
    /// (`vrcp14ps`, the sixteen-lane backend's) on whatever backend runs it: how the
    /// eight-lane sweeps check the sixteen-lane kernel.
    #[cfg(feature = "verify")]
    pub const RCP14_RULE: u8 = 5;
    /// [`Variant::RCP14_RULE`] with half as many near-all-ones divisors sent to the
    /// divider: wrong for some seeds within 2^-14 (the row of `0x1.ffffdep+0`, among others).
    #[cfg(feature = "verify")]
    pub const RCP14_RULE_NARROWED: u8 = 6;
    /// The shipped arithmetic with the eight-lane (`rcpps`) near-all-ones rule on whatever
    /// backend runs it: what the sixteen-lane backend ran before its own rule (timed against
    /// it by `examples/kernel_check_cost.rs`).
    #[cfg(feature = "verify")]
    pub const RCPPS_RULE: u8 = 7;

    /// The flags of a variant id (the x86 kernels read them; the portable path has no
    /// variants).
    #[cfg(any(fmadiv_x86, feature = "verify"))]
    pub const fn of(id: u8) -> Variant {
        match id {
            #[cfg(feature = "verify")]
            Variant::NEWTON => Variant {
                halley: false,
                near_all_ones: NearAllOnes::OfSeed,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::PUBLISHED => Variant {
                halley: true,
                near_all_ones: NearAllOnes::Off,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::DIVISOR_WINDOW_ONLY => Variant {
                halley: true,
                near_all_ones: NearAllOnes::OfSeed,
                dividend_window: false,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::NO_WINDOW => Variant {
                halley: true,
                near_all_ones: NearAllOnes::OfSeed,
                dividend_window: false,
                window: false,
            },
            #[cfg(feature = "verify")]
            Variant::RCP14_RULE => Variant {
                halley: true,
                near_all_ones: NearAllOnes::Rcp14,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::RCP14_RULE_NARROWED => Variant {
                halley: true,
                near_all_ones: NearAllOnes::Rcp14Halved,
                dividend_window: true,
                window: true,
            },
            #[cfg(feature = "verify")]
            Variant::RCPPS_RULE => Variant {
                halley: true,
                near_all_ones: NearAllOnes::Rcpps,
                dividend_window: true,
                window: true,
            },
            _ => Variant {
                halley: true,
                near_all_ones: NearAllOnes::OfSeed,
                dividend_window: true,
                window: true,
            },
        }
    }
}

/// Which divisors just below 2 (mantissas `2^23 - k`, `k = 1 ..= n`, all exponents and
/// signs) a variant sends to the divider: those Markstein's correction may round wrongly
/// after Halley's step from some seed within the backend's bound (see
/// [`crate::kernel_notes`]; the counts are `crate::bits`').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// The portable-only build has no kernel to read it.
#[cfg_attr(not(any(fmadiv_x86, feature = "verify")), allow(dead_code))]
pub enum NearAllOnes {
    /// None (the published algorithm; wrong for some).
    #[cfg(feature = "verify")]
    Off,
    /// As many as the backend's seed needs: [`crate::arch::simd::Vector`]'s
    /// `NEAR_ALL_ONES_DIVISORS` (the shipped rule).
    OfSeed,
    /// `rcpps`' 2^15 (`NEAR_ALL_ONES_DIVISORS`), whatever the backend.
    #[cfg(feature = "verify")]
    Rcpps,
    /// `vrcp14ps`' 2^5 (`RCP14_NEAR_ALL_ONES_DIVISORS`), whatever the backend: how the
    /// eight-lane sweeps check the sixteen-lane rule.
    #[cfg(feature = "verify")]
    Rcp14,
    /// Half of `vrcp14ps`' (2^4): too few, on purpose.
    #[cfg(feature = "verify")]
    Rcp14Halved,
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
    /// The shipped arithmetic with the sixteen-lane backend's near-all-ones rule (seeds
    /// within 2^-14, `vrcp14ps`): the kernel the AVX-512F backend runs, checked by the
    /// eight-lane sweeps.
    Vrcp14,
    /// [`Kernel::Vrcp14`] with half its near-all-ones divisors kept: wrong for some seeds
    /// within 2^-14.
    Vrcp14Narrowed,
}

#[cfg(feature = "verify")]
impl Kernel {
    /// Every variant.
    pub const ALL: [Kernel; 5] = [
        Kernel::Shipped,
        Kernel::Newton,
        Kernel::Published,
        Kernel::Vrcp14,
        Kernel::Vrcp14Narrowed,
    ];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Shipped => "shipped",
            Kernel::Newton => "newton",
            Kernel::Published => "published",
            Kernel::Vrcp14 => "vrcp14",
            Kernel::Vrcp14Narrowed => "vrcp14-narrowed",
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
