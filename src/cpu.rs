//! The CPU's identity, from `cpuid`: what the plan's table is keyed on.

use core::fmt;
use std::sync::OnceLock;

/// Who made the CPU, as its `cpuid` vendor string says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Vendor {
    /// "AuthenticAMD".
    Amd,
    /// "GenuineIntel".
    Intel,
    /// Any other vendor, or not an x86 CPU.
    Other,
}

/// The CPU a plan is made for: vendor, family, model and stepping (`cpuid` leaf 1, display
/// values), brand string, the L1 data cache, and the features the kernels use.
///
/// ```
/// let cpu = fmadiv::plan().cpu();
/// println!("{cpu}: family {:#x}, model {:#x}", cpu.family(), cpu.model());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    vendor_id: String,
    family: u32,
    model: u32,
    stepping: u32,
    l1d_bytes: Option<usize>,
    avx2_fma: bool,
    avx512f: bool,
}

impl Cpu {
    /// A CPU described, not detected: for the tests of choices made by identity.
    #[cfg(test)]
    pub(crate) fn described(
        vendor_id: &str,
        (family, model): (u32, u32),
        avx2_fma: bool,
        avx512f: bool,
    ) -> Cpu {
        Cpu {
            vendor_id: vendor_id.into(),
            family,
            model,
            stepping: 0,
            l1d_bytes: None,
            avx2_fma,
            avx512f,
        }
    }

    /// The CPU this process runs on (read at the first call, then kept).
    #[must_use]
    pub fn this() -> Cpu {
        this_cpu().clone()
    }

    /// The vendor.
    #[must_use]
    pub fn vendor(&self) -> Vendor {
        match self.vendor_id.as_str() {
            "AuthenticAMD" => Vendor::Amd,
            "GenuineIntel" => Vendor::Intel,
            _ => Vendor::Other,
        }
    }

    /// The vendor string, e.g. "AuthenticAMD".
    #[must_use]
    pub fn vendor_id(&self) -> &str {
        &self.vendor_id
    }

    /// The brand string, e.g. "AMD EPYC 7B13": read at its first use (three `cpuid` calls,
    /// each a trap to the hypervisor on a virtual machine, and no choice of the plan needs
    /// it), then kept, like the rest (every `Cpu` is this process's).
    pub fn brand(&self) -> &str {
        static BRAND: OnceLock<String> = OnceLock::new();
        BRAND.get_or_init(|| {
            #[cfg(fmadiv_x86)]
            return x86::brand();
            #[cfg(not(fmadiv_x86))]
            "unknown".into()
        })
    }

    /// The family (base plus extended, as the vendors number them: 0x19 for Zen 3 and 4).
    #[must_use]
    pub fn family(&self) -> u32 {
        self.family
    }

    /// The model (with the extended model bits).
    #[must_use]
    pub fn model(&self) -> u32 {
        self.model
    }

    /// The stepping.
    #[must_use]
    pub fn stepping(&self) -> u32 {
        self.stepping
    }

    /// Whether the CPU's `(vendor id, family, model)` is one of `families`' (the form of
    /// the dispatch layer's records of CPU families, `AVX512_FAMILIES`).
    #[must_use]
    pub fn is_one_of(&self, families: &[(&str, u32, u32)]) -> bool {
        families.iter().any(|&(vendor, family, model)| {
            self.vendor_id() == vendor && self.family == family && self.model == model
        })
    }

    /// `family/model/stepping` in hex, e.g. `0x19/0x1/0x1`: how reports name the CPU.
    #[must_use]
    pub fn signature(&self) -> String {
        format!("{:#x}/{:#x}/{:#x}", self.family, self.model, self.stepping)
    }

    /// The size of one core's L1 data cache in bytes, where `cpuid` tells it.
    #[must_use]
    pub fn l1d_bytes(&self) -> Option<usize> {
        self.l1d_bytes
    }

    /// Whether the CPU has AVX2 and FMA (and the operating system saves their registers).
    #[must_use]
    pub fn has_avx2_fma(&self) -> bool {
        self.avx2_fma
    }

    /// Whether the CPU has AVX-512F (and the operating system saves its opmask and ZMM
    /// state).
    #[must_use]
    pub fn has_avx512f(&self) -> bool {
        self.avx512f
    }
}

/// The CPU this process runs on, read once: every `cpuid` is a trap to the hypervisor on a
/// virtual machine (4.5–9 µs each on the one this crate is measured on), so the library asks
/// four leaves once and keeps the answers, the features included (the standard library's
/// `is_x86_feature_detected!` asks about eight more: BENCHMARKS, "The plan").
pub(crate) fn this_cpu() -> &'static Cpu {
    static THIS: OnceLock<Cpu> = OnceLock::new();
    THIS.get_or_init(|| {
        #[cfg(fmadiv_x86)]
        return x86::this();
        #[cfg(not(fmadiv_x86))]
        Cpu {
            vendor_id: "unknown".into(),
            family: 0,
            model: 0,
            stepping: 0,
            l1d_bytes: None,
            avx2_fma: false,
            avx512f: false,
        }
    })
}

/// Whether this CPU has AVX2 and FMA and the operating system saves their registers: what
/// the library's AVX2+FMA token and backend are checked against.
#[cfg(fmadiv_x86)]
#[inline]
pub fn has_avx2_fma() -> bool {
    // Enabled at compile time: a CPU without them could not run this build at all.
    (cfg!(target_feature = "avx2") && cfg!(target_feature = "fma")) || this_cpu().avx2_fma
}

/// Whether this CPU has AVX-512F and the operating system saves its opmask and ZMM state:
/// what the library's AVX-512 backend is checked against.
#[cfg(fmadiv_x86)]
#[inline]
pub fn has_avx512f() -> bool {
    // Enabled at compile time: a CPU without it could not run this build at all.
    cfg!(target_feature = "avx512f") || this_cpu().avx512f
}

impl fmt::Display for Cpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, cpuid family/model/stepping {})",
            self.brand(),
            self.vendor_id,
            self.signature()
        )
    }
}

#[cfg(fmadiv_x86)]
mod x86 {
    use core::arch::x86_64::{__cpuid_count, CpuidResult};

    use super::Cpu;

    /// `cpuid` leaf `leaf`, subleaf `sub`.
    fn cpuid(leaf: u32, sub: u32) -> CpuidResult {
        #[allow(unused_unsafe)]
        // SAFETY: cpuid exists on every x86-64 CPU; leaves above the maximum return zeros or
        // the highest leaf's values, which the callers check against the maximum leaf.
        unsafe {
            __cpuid_count(leaf, sub)
        }
    }

    /// Register words as text (cpuid's vendor and brand strings), NULs and spaces trimmed.
    fn text(words: &[u32]) -> String {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        String::from_utf8_lossy(&bytes)
            .trim_matches(char::from(0))
            .trim()
            .to_string()
    }

    /// The brand string (leaves 0x8000_0002 to 0x8000_0004), or "unknown".
    pub(super) fn brand() -> String {
        if cpuid(0x8000_0000, 0).eax < 0x8000_0004 {
            return "unknown".into();
        }
        let words: Vec<u32> = (0x8000_0002..=0x8000_0004)
            .map(|leaf| cpuid(leaf, 0))
            .flat_map(|r| [r.eax, r.ebx, r.ecx, r.edx])
            .collect();
        text(&words)
    }

    pub(super) fn this() -> Cpu {
        let leaf0 = cpuid(0, 0);
        let vendor_id = text(&[leaf0.ebx, leaf0.edx, leaf0.ecx]);
        let leaf1 = cpuid(1, 0);
        let eax = leaf1.eax;
        let base_family = (eax >> 8) & 0xf;
        let family = if base_family == 0xf {
            base_family + ((eax >> 20) & 0xff)
        } else {
            base_family
        };
        let model = if base_family >= 0x6 {
            ((eax >> 4) & 0xf) | ((eax >> 12) & 0xf0)
        } else {
            (eax >> 4) & 0xf
        };
        let l1d_bytes = l1_data_bytes(&vendor_id, leaf0.eax);
        let (avx2_fma, avx512f) = features(leaf0.eax, leaf1.ecx);
        Cpu {
            vendor_id,
            family,
            model,
            stepping: eax & 0xf,
            l1d_bytes,
            avx2_fma,
            avx512f,
        }
    }

    /// `(AVX2 and FMA, AVX-512F)` as usable here: the CPU has them (leaf 1's ECX, leaf 7's
    /// EBX) and the operating system saves their registers (XCR0, read where leaf 1 says
    /// OSXSAVE): the test `is_x86_feature_detected!` makes, from one more leaf.
    fn features(max_basic: u32, leaf1_ecx: u32) -> (bool, bool) {
        const FMA: u32 = 1 << 12;
        const OSXSAVE: u32 = 1 << 27;
        const AVX: u32 = 1 << 28;
        // Leaf 7, subleaf 0, EBX.
        const AVX2: u32 = 1 << 5;
        const AVX512F: u32 = 1 << 16;
        // XCR0: SSE and AVX (YMM) state; AVX-512's opmask, ZMM_Hi256 and Hi16_ZMM state.
        const XCR0_AVX: u64 = 0b110;
        const XCR0_AVX512: u64 = 0b1110_0000;
        if leaf1_ecx & (OSXSAVE | AVX) != OSXSAVE | AVX || max_basic < 7 {
            return (false, false);
        }
        // SAFETY: leaf 1 says OSXSAVE: XGETBV is enabled.
        let xcr0 = unsafe { xcr0() };
        if xcr0 & XCR0_AVX != XCR0_AVX {
            return (false, false);
        }
        let leaf7 = cpuid(7, 0).ebx;
        (
            leaf1_ecx & FMA != 0 && leaf7 & AVX2 != 0,
            leaf7 & AVX512F != 0 && xcr0 & XCR0_AVX512 == XCR0_AVX512,
        )
    }

    /// XCR0, the state the operating system saves.
    ///
    /// # Safety
    /// The CPU has XSAVE and the operating system enabled it (leaf 1's OSXSAVE).
    #[target_feature(enable = "xsave")]
    unsafe fn xcr0() -> u64 {
        // SAFETY: the caller's guarantee; XCR0 (register 0) always exists with XSAVE.
        unsafe { core::arch::x86_64::_xgetbv(0) }
    }

    /// One core's L1 data cache in bytes: Intel's leaf 4, AMD's leaf 0x8000_0005.
    fn l1_data_bytes(vendor_id: &str, max_basic: u32) -> Option<usize> {
        let plausible = |bytes: usize| (4096..=1 << 20).contains(&bytes).then_some(bytes);
        if vendor_id == "GenuineIntel" && max_basic >= 4 {
            for sub in 0..16 {
                let r = cpuid(4, sub);
                let (kind, level) = (r.eax & 0x1f, (r.eax >> 5) & 0x7);
                if kind == 0 {
                    break;
                }
                // Type 1 is a data cache.
                if kind == 1 && level == 1 {
                    let ways = ((r.ebx >> 22) & 0x3ff) as usize + 1;
                    let partitions = ((r.ebx >> 12) & 0x3ff) as usize + 1;
                    let line = (r.ebx & 0xfff) as usize + 1;
                    let sets = r.ecx as usize + 1;
                    return plausible(ways * partitions * line * sets);
                }
            }
        }
        // AMD's leaf without asking the maximum extended leaf first (one trap fewer): every
        // AMD64 CPU has it, and AMD returns zeros for a leaf beyond the maximum, which
        // `plausible` rejects.
        if vendor_id == "AuthenticAMD" || cpuid(0x8000_0000, 0).eax >= 0x8000_0005 {
            // ECX[31:24]: L1 data cache size in KiB (AMD).
            let ecx = cpuid(0x8000_0005, 0).ecx;
            return plausible(((ecx >> 24) as usize) * 1024);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The features read from `cpuid` and XCR0 are the standard library's.
    #[test]
    fn the_features_are_the_standard_librarys() {
        let cpu = Cpu::this();
        #[cfg(fmadiv_x86)]
        {
            let std_avx2_fma =
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
            assert_eq!(cpu.has_avx2_fma(), std_avx2_fma, "{cpu}");
            assert_eq!(has_avx2_fma(), std_avx2_fma);
            assert_eq!(
                cpu.has_avx512f(),
                std::is_x86_feature_detected!("avx512f"),
                "{cpu}"
            );
        }
        #[cfg(not(fmadiv_x86))]
        assert!(!cpu.has_avx2_fma() && !cpu.has_avx512f());
    }

    #[test]
    fn this_cpu_names_itself() {
        let cpu = Cpu::this();
        let shown = cpu.to_string();
        assert!(shown.contains(&cpu.signature()), "{shown}");
        if cfg!(fmadiv_x86) {
            assert_ne!(cpu.family(), 0, "{shown}");
            assert_ne!(cpu.vendor_id(), "", "{shown}");
        }
    }
}
