//! The rounding directions of IEEE-754 division, as x86's MXCSR numbers them: a plain type
//! at the bottom of the crate, so that the portable path and the directed functions both
//! name it without importing each other.

use core::fmt;

/// A rounding direction of IEEE-754 division, as x86's MXCSR names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to even: `/` in Rust's default environment.
    Nearest,
    /// Toward −∞ (`RD`).
    Down,
    /// Toward +∞ (`RU`).
    Up,
    /// Toward zero (`RZ`, truncation).
    TowardZero,
}

impl Rounding {
    /// Every direction.
    pub const ALL: [Rounding; 4] = [
        Rounding::Nearest,
        Rounding::Down,
        Rounding::Up,
        Rounding::TowardZero,
    ];

    /// The value of MXCSR's rounding-control field (bits 13–14) for this direction.
    #[must_use]
    pub const fn control(self) -> u8 {
        match self {
            Rounding::Nearest => 0,
            Rounding::Down => 1,
            Rounding::Up => 2,
            Rounding::TowardZero => 3,
        }
    }

    /// The direction of a rounding-control field value (only its two low bits count).
    #[must_use]
    pub const fn from_control(field: u8) -> Rounding {
        match field & 0b11 {
            0 => Rounding::Nearest,
            1 => Rounding::Down,
            2 => Rounding::Up,
            _ => Rounding::TowardZero,
        }
    }

    /// `nearest`, `down`, `up` or `toward-zero`: how reports and the command line name it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rounding::Nearest => "nearest",
            Rounding::Down => "down",
            Rounding::Up => "up",
            Rounding::TowardZero => "toward-zero",
        }
    }

    /// Parses [`Rounding::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Rounding> {
        Rounding::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
