//! Identifying the CPU's `rcpps` table: verification results hold for one table.

/// CPU vendor, brand and cpuid signature, as reports write them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// Vendor string, e.g. "AuthenticAMD".
    pub vendor: String,
    /// Brand string, e.g. "AMD EPYC 7B13".
    pub model: String,
    /// Family, model and stepping as "family/model/stepping" (hex, display values).
    pub signature: String,
}

/// This CPU's vendor and model (the library's identity of the CPU, as reports name it).
pub fn cpu() -> Cpu {
    let cpu = fmadiv::Cpu::this();
    Cpu {
        vendor: cpu.vendor_id().to_string(),
        model: cpu.brand().to_string(),
        signature: cpu.signature(),
    }
}

/// What identifies an `rcpps` table.
#[derive(Clone, Debug, PartialEq)]
pub struct RcpFingerprint {
    /// FNV-1a 64 hash of `_mm256_rcp_ps` over all 2^23 mantissas of [1,2), then over
    /// edge inputs (both signs of zeros, subnormals, powers of two at every exponent,
    /// MAX, infinities, NaNs), as 16 hex digits.
    pub hash: String,
    /// rcp(1.0), rcp(1.5), rcp(0x1.fffffep+0) as bits.
    pub samples: [(u32, u32); 3],
    /// The number of leading fraction bits the result depends on (over [1,2)).
    pub input_bits: u32,
    /// The number of fraction bits the results carry (over [1,2)).
    pub output_bits: u32,
    /// max |1 - b·rcp(b)| over [1,2), in units of 2^-12.
    pub max_error: f64,
}

/// The `rcpps` table of AMD families 0x19 and 0x1a (Zen 3, Zen 5), on which the weakened
/// kernels' known counterexamples were found. Other tables (Intel family 6 model 0xcf's,
/// `90171169937c3fcd`) expose the weakened kernels elsewhere or not at all: the
/// every-table sweep catches them whatever the table.
pub const AMD_RCP_TABLE: &str = "877ee81e5312491d";

/// Whether this CPU's `rcpps` table is [`AMD_RCP_TABLE`]; where it is not, says once that
/// `what` (a check of that table's counterexamples) is skipped, and why.
pub fn has_amd_rcp_table(what: &str) -> bool {
    let hash = rcp_fingerprint().map(|f| f.hash);
    if hash.as_deref() == Some(AMD_RCP_TABLE) {
        return true;
    }
    crate::samples::skipped_once(&format!(
        "{what}: a fact of AMD's rcpps table {AMD_RCP_TABLE}, not of this CPU's ({}); the \
         every-table sweep tests catch the weakened kernels under every conforming table",
        hash.as_deref().unwrap_or("none")
    ));
    false
}

/// The fingerprint of this CPU's `_mm256_rcp_ps`, or `None` without AVX.
pub fn rcp_fingerprint() -> Option<RcpFingerprint> {
    #[cfg(fmadiv_x86)]
    {
        if !is_x86_feature_detected!("avx") {
            return None;
        }
        // SAFETY: AVX is present (checked above).
        Some(unsafe { fingerprint_avx() })
    }
    #[cfg(not(fmadiv_x86))]
    None
}

/// FNV-1a, 64 bits: simple, fixed, and the same everywhere.
#[cfg(fmadiv_x86)]
struct Fnv1a(u64);

#[cfg(fmadiv_x86)]
impl Fnv1a {
    fn write_u32(&mut self, x: u32) {
        for byte in x.to_le_bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx")]
fn rcp8(x: [u32; 8]) -> [u32; 8] {
    use core::arch::x86_64::*;
    // SAFETY: [u32; 8] and __m256 have the same size and any bits are valid in both.
    unsafe { core::mem::transmute(_mm256_rcp_ps(core::mem::transmute::<[u32; 8], __m256>(x))) }
}

#[cfg(fmadiv_x86)]
#[target_feature(enable = "avx")]
fn fingerprint_avx() -> RcpFingerprint {
    use fmadiv::verify::bits::{MANTISSA_MASK, ONE_BITS};
    let table: Vec<u32> = (0..(MANTISSA_MASK + 1) / 8)
        .flat_map(|i| rcp8(core::array::from_fn(|l| ONE_BITS | (i * 8 + l as u32))))
        .collect();
    let mut hash = Fnv1a(0xcbf2_9ce4_8422_2325);
    table.iter().for_each(|&r| hash.write_u32(r));
    let mut edges: Vec<u32> = crate::samples::EDGE_BITS.to_vec();
    edges.extend((0..256u32).map(|e| e << 23));
    edges.extend(
        edges
            .clone()
            .iter()
            .map(|b| b | fmadiv::verify::bits::SIGN_MASK),
    );
    edges.resize(edges.len().div_ceil(8) * 8, 0);
    for chunk in edges.chunks_exact(8) {
        rcp8(chunk.try_into().unwrap())
            .iter()
            .for_each(|&r| hash.write_u32(r));
    }

    // The fewest leading fraction bits that determine every result.
    let input_bits = (0..=23u32)
        .find(|&k| {
            let low = (1u32 << (23 - k)) - 1;
            (0..=MANTISSA_MASK).all(|m| table[m as usize] == table[(m & !low) as usize])
        })
        .unwrap_or(23);
    // Results in [1/2, 1] carry this many fraction bits (trailing zeros tell).
    let min_trailing = table
        .iter()
        .map(|r| (r & MANTISSA_MASK | 1 << 23).trailing_zeros())
        .min()
        .unwrap_or(0);
    let max_error = (0..=MANTISSA_MASK)
        .map(|m| {
            let b = f64::from(f32::from_bits(ONE_BITS | m));
            (1.0 - b * f64::from(f32::from_bits(table[m as usize]))).abs()
        })
        .fold(0.0, f64::max);
    let at = |m: u32| table[m as usize];
    RcpFingerprint {
        hash: format!("{:016x}", hash.0),
        samples: [
            (0x3f80_0000, at(0)),
            (0x3fc0_0000, at(0x40_0000)),
            (0x3fff_ffff, at(MANTISSA_MASK)),
        ],
        input_bits,
        output_bits: 23 - min_trailing,
        max_error: max_error * 4096.0,
    }
}
