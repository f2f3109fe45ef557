//! Counterexamples as reports and checkpoints write them: bit patterns in hex.

use fmadiv_verify::sweep::Counterexample;
use serde::{Deserialize, Serialize};

/// A pair the kernel got wrong: dividend, divisor, the kernel's quotient and the divider's,
/// as `0x`-prefixed hex bit patterns.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HexPair {
    pub a: String,
    pub b: String,
    pub got: String,
    pub want: String,
    /// Every-table sweeps: the `rcpps` seed for `b` under which the kernel is wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
}

impl HexPair {
    pub fn from(c: &Counterexample) -> HexPair {
        HexPair {
            a: hex(c.a),
            b: hex(c.b),
            got: hex(c.got),
            want: hex(c.want),
            seed: c.seed.map(hex),
        }
    }

    pub fn parse(&self) -> Result<Counterexample, String> {
        Ok(Counterexample {
            a: parse_hex(&self.a)?,
            b: parse_hex(&self.b)?,
            got: parse_hex(&self.got)?,
            want: parse_hex(&self.want)?,
            seed: self.seed.as_deref().map(parse_hex).transpose()?,
        })
    }
}

pub fn hex(bits: u32) -> String {
    format!("{bits:#010x}")
}

pub fn parse_hex(s: &str) -> Result<u32, String> {
    s.strip_prefix("0x")
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("not a 0x-prefixed hex bit pattern: {s:?}"))
}
