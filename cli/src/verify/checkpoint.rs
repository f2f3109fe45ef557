//! Checkpoints of a mantissa sweep: which work units are done and what they found.
//!
//! Written atomically (temporary file, then rename), so a kill at any moment leaves either
//! the previous checkpoint or the new one. A checksum over the contents catches files
//! damaged by other means; a checkpoint from other arguments is refused.

use std::path::Path;

use fmadiv_verify::sweep::Tally;
use serde::{Deserialize, Serialize};

use crate::files;
use crate::hex_pair::HexPair;

const CHECKPOINT_FORMAT: &str = "fmadiv-checkpoint-2";

/// What a checkpoint belongs to: resuming with anything else would mix two runs.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct RunKey {
    pub kernel: String,
    /// The kernel digest: a checkpoint of another kernel's arithmetic must not resume.
    pub kernel_digest: String,
    /// brute-force or pruned.
    pub sweep_mode: String,
    /// The dividend mantissas this run covers (after sharding).
    pub from: u32,
    pub to: u32,
    pub rcp_fingerprint: String,
    /// Empty: this CPU's table (`rcp_fingerprint`); otherwise the every-table sweep's
    /// bound and the digest of its rows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rcp_tables: String,
    /// Empty: round to nearest (the division kernel); otherwise the directed rounding the
    /// sweep checks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rounding: String,
}

impl RunKey {
    /// The key in words, for messages.
    pub fn describe(&self) -> String {
        let tables = if self.rcp_tables.is_empty() {
            format!("rcp table {}", self.rcp_fingerprint)
        } else {
            format!("rcp tables: {}", self.rcp_tables)
        };
        let rounding = if self.rounding.is_empty() {
            String::new()
        } else {
            format!(", rounding {}", self.rounding)
        };
        format!(
            "{} kernel, digest {}, {}, mantissas [{:#x}, {:#x}), {tables}{rounding}",
            self.kernel, self.kernel_digest, self.sweep_mode, self.from, self.to
        )
    }
}

#[derive(Serialize, Deserialize, Clone, Debug)]
struct File {
    format: String,
    key: RunKey,
    units: usize,
    /// One bit per work unit, hex, lowest unit first.
    units_done: String,
    pairs_compared: u64,
    pairs_proven: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pairs_by_divider: u64,
    mismatches: u64,
    counterexamples: Vec<HexPair>,
    elapsed_seconds: f64,
    /// FNV-1a 64 of the file with this field empty.
    checksum: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The state of a sweep that a checkpoint holds.
#[derive(Clone, Debug)]
pub struct State {
    pub key: RunKey,
    pub done: Vec<bool>,
    pub tally: Tally,
    pub elapsed_seconds: f64,
}

/// FNV-1a 64 of the file's JSON with the checksum empty. Computed over a JSON value, so
/// that anyone can recompute it from the file: parse, empty the field, serialise compactly.
fn checksum(file: &File) -> String {
    let mut copy = file.clone();
    copy.checksum = String::new();
    let value = serde_json::to_value(&copy).expect("serialisable");
    fnv1a_hex(&value.to_string())
}

/// FNV-1a 64 of a text, as 16 hex digits.
pub fn fnv1a_hex(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn encode(done: &[bool]) -> String {
    done.chunks(4)
        .map(|c| {
            let nibble = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &d)| n | (u32::from(d) << i));
            char::from_digit(nibble, 16).expect("nibble")
        })
        .collect()
}

fn decode(text: &str, units: usize) -> Option<Vec<bool>> {
    if text.len() != units.div_ceil(4) {
        return None;
    }
    let mut done = Vec::with_capacity(units);
    for ch in text.chars() {
        let nibble = ch.to_digit(16)?;
        done.extend((0..4).map(|i| nibble >> i & 1 == 1));
    }
    done.truncate(units);
    Some(done)
}

impl State {
    pub fn new(key: RunKey, units: usize) -> State {
        State {
            key,
            done: vec![false; units],
            tally: Tally::default(),
            elapsed_seconds: 0.0,
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut file = File {
            format: CHECKPOINT_FORMAT.into(),
            key: self.key.clone(),
            units: self.done.len(),
            units_done: encode(&self.done),
            pairs_compared: self.tally.pairs,
            pairs_proven: self.tally.proven,
            pairs_by_divider: self.tally.by_divider,
            mismatches: self.tally.mismatches,
            counterexamples: self
                .tally
                .counterexamples
                .iter()
                .map(HexPair::from)
                .collect(),
            elapsed_seconds: self.elapsed_seconds,
            checksum: String::new(),
        };
        file.checksum = checksum(&file);
        let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
        files::write_atomic(path, format!("{text}\n").as_bytes())
    }

    /// Loads a checkpoint for `key`; refuses corrupt files and files of other runs.
    pub fn load(path: &Path, key: &RunKey, units: usize) -> Result<State, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read checkpoint {shown}: {e}"))?;
        let file: File = serde_json::from_str(&text).map_err(|e| {
            format!(
                "checkpoint {shown} is corrupt (not valid checkpoint JSON: {e}); left untouched"
            )
        })?;
        if file.format != CHECKPOINT_FORMAT {
            return Err(format!(
                "checkpoint {shown} has unknown format {:?}; left untouched",
                file.format
            ));
        }
        if checksum(&file) != file.checksum {
            return Err(format!(
                "checkpoint {shown} is corrupt (checksum mismatch); left untouched"
            ));
        }
        if &file.key != key || file.units != units {
            return Err(format!(
                "checkpoint {shown} belongs to another run ({}); this run is {}. Use another file or \
                 the same arguments (a different digest means the kernel's arithmetic changed: \
                 start afresh); left untouched",
                file.key.describe(),
                key.describe()
            ));
        }
        let done = decode(&file.units_done, units).ok_or_else(|| {
            format!("checkpoint {shown} is corrupt (unit bitmap); left untouched")
        })?;
        let counterexamples = file
            .counterexamples
            .iter()
            .map(HexPair::parse)
            .collect::<Result<_, _>>()?;
        Ok(State {
            key: file.key,
            done,
            tally: Tally {
                pairs: file.pairs_compared,
                proven: file.pairs_proven,
                by_divider: file.pairs_by_divider,
                mismatches: file.mismatches,
                counterexamples,
            },
            elapsed_seconds: file.elapsed_seconds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> RunKey {
        RunKey {
            kernel: "shipped".into(),
            kernel_digest: "0123456789abcdef".into(),
            sweep_mode: "brute-force".into(),
            from: 0,
            to: 1 << 23,
            rcp_fingerprint: "fedcba9876543210".into(),
            rcp_tables: String::new(),
            rounding: "down".into(),
        }
    }

    /// A checkpoint must load back whatever its elapsed time: this one was written by a
    /// real sweep and refused on resume while serde_json parsed floats approximately
    /// (the value read back printed differently, so the checksum differed).
    #[test]
    fn a_saved_checkpoint_loads_back_whatever_its_elapsed_time() {
        let dir = std::env::temp_dir().join(format!("fmadiv-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.ckpt");
        let units = 64;
        for elapsed in [
            11261.111926589001,
            0.1,
            1e-7,
            2.0f64.sqrt() * 1e4,
            12345.678901234567,
        ] {
            let mut state = State::new(key(), units);
            state.done[3] = true;
            state.elapsed_seconds = elapsed;
            state.save(&path).unwrap();
            let back = State::load(&path, &key(), units)
                .unwrap_or_else(|e| panic!("elapsed {elapsed:?}: {e}"));
            assert_eq!(back.elapsed_seconds.to_bits(), elapsed.to_bits());
            assert_eq!(back.done, state.done);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
