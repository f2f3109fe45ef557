//! Which kernel runs: detected once, cached, then one relaxed load per call.

use core::fmt;

/// The kernel that [`crate::div`] and friends run on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// The AVX2+FMA kernel: rcp seed, Halley step, Markstein correction, exact slow path.
    Avx2Fma,
    /// The same kernel and loops sixteen lanes at a time with AVX-512F (`vrcp14ps` seed, `k`
    /// masks, masked tails) for the slice functions and directed rounding; the rest runs
    /// the AVX2+FMA code. Opt-in (`FMADIV_BACKEND=avx512`) until the full test suite has
    /// run natively on a CPU family ([`avx512_by_default`]; on some families it then serves
    /// the directed functions only, [`directed_backend`]).
    Avx512,
    /// Hardware division lane by lane (SSE `divps` on x86-64), with x86's NaN bits.
    Portable,
    /// The software model of the sixteen-lane instructions (feature `verify`, for tests),
    /// with the given `vrcp14ps` table: the 512-bit paths run on it, the others on AVX2+FMA
    /// where the CPU has it.
    #[cfg(all(fmadiv_x86, feature = "verify"))]
    Avx512Model(crate::arch::x86_64::avx512_model::Seeds),
}

impl Backend {
    /// The name `FMADIV_BACKEND` takes: `avx512`, `avx2`, `portable` (and, with the
    /// feature `verify`, `avx512-model`, `avx512-model-low`, `avx512-model-high`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx2Fma => "avx2",
            Backend::Avx512 => "avx512",
            Backend::Portable => "portable",
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(seeds) => {
                use crate::arch::x86_64::avx512_model::Seeds;
                match seeds {
                    Seeds::Intel => "avx512-model",
                    Seeds::Low => "avx512-model-low",
                    Seeds::High => "avx512-model-high",
                }
            }
        }
    }

    /// Lanes per vector of the backend's loops: 16 for AVX-512F and its model, 8 for
    /// AVX2+FMA, 1 for the portable path.
    pub fn lanes(self) -> usize {
        match self {
            Backend::Avx512 => 16,
            Backend::Avx2Fma => 8,
            Backend::Portable => 1,
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(_) => 16,
        }
    }

    /// Whether the backend's directed division (`div_rounded`, `div_bounds` from 4096
    /// elements, `div_rounded(.., Nearest)` under another MXCSR mode) is AVX-512's embedded
    /// rounding, which raises no exception flag: the 16-lane backend and its model. The
    /// others raise the flags of the divisions they run.
    pub fn embedded_rounding(self) -> bool {
        match self {
            Backend::Avx512 => true,
            Backend::Avx2Fma | Backend::Portable => false,
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(_) => true,
        }
    }

    /// Every backend this build knows, by [`Backend::name`].
    pub fn all() -> Vec<Backend> {
        #[allow(unused_mut)]
        let mut all = vec![Backend::Avx512, Backend::Avx2Fma, Backend::Portable];
        #[cfg(all(fmadiv_x86, feature = "verify"))]
        all.extend(
            crate::arch::x86_64::avx512_model::Seeds::ALL
                .into_iter()
                .map(Backend::Avx512Model),
        );
        all
    }

    /// Parses [`Backend::name`]; anything else is an error that lists the names.
    pub fn from_name(name: &str) -> Result<Backend, String> {
        Backend::all()
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Backend::all().into_iter().map(Backend::name).collect();
                format!("{name:?} names no backend (one of: {})", names.join(", "))
            })
    }

    /// Whether this CPU can run the backend (the model runs on every x86-64 CPU).
    pub fn runs_here(self) -> bool {
        match self {
            Backend::Portable => true,
            Backend::Avx2Fma => crate::cpu::Cpu::this().has_avx2_fma(),
            Backend::Avx512 => {
                let cpu = crate::cpu::Cpu::this();
                cpu.has_avx512f() && cpu.has_avx2_fma()
            }
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(_) => true,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Avx2Fma => f.write_str(
                "avx2+fma: exact FMA kernel (rcp + Halley + Markstein correction) and divider; fmadiv::plan() says which schedule runs",
            ),
            Backend::Avx512 => f.write_str(
                "avx512: 16-lane FMA kernel (vrcp14 + Halley + Markstein correction) and 512-bit divider for the slice functions and directed rounding, avx2+fma for the rest",
            ),
            Backend::Portable => f.write_str("portable (hardware divide per lane, x86 NaN rules)"),
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(seeds) => write!(
                f,
                "avx512 software model ({} vrcp14 table; for tests): the 512-bit paths emulated, avx2+fma for the rest",
                seeds.name()
            ),
        }
    }
}

/// Set this environment variable to `1` before the first division to force the portable
/// path on any CPU (for comparisons; the bits are the same).
pub const FORCE_PORTABLE_ENV: &str = "FMADIV_FORCE_PORTABLE";

/// Set this environment variable to a [`Backend::name`] before the first division to force
/// that backend. A name that is no backend's, or a backend this CPU cannot run, panics at
/// the first division with a message saying so: an override that cannot be honoured is
/// never silently dropped.
pub const BACKEND_ENV: &str = "FMADIV_BACKEND";

/// The CPU families on which the 512-bit backend is on by default: those where the full
/// test suite ran natively with it (`scripts/native-avx512.sh`; output committed under
/// `docs/bench/native-*` or given in the project's shared native folder), as `(vendor,
/// family, model)`. There it serves every entry point ([`avx512_by_default`]) if the
/// family's row of the plan's table has sixteen-lane choices (a test in `plan::table`
/// holds the two together), or only the directed functions if the family is in
/// [`AVX512_DIRECTED_ONLY`]. None yet: everywhere else the backend is opt-in through
/// [`BACKEND_ENV`]. AMD family 0x19 model 0x11 (Zen 4) passed every native check
/// (`docs/bench/native-0x19-0x11-9825303`, `-99f539c`) and stays out on measurement
/// (BENCHMARKS, "Sixteen lanes on Zen 4"): its 512-bit divider is no faster per lane than
/// the 256-bit one (the eight-lane divider schedule 1.00-1.01x the 512-bit loop at 256-16K);
/// at sixteen lanes `recip` gains (mix-8, 1.24-1.31x that loop at 256-64K) and so does
/// `div_rounded` below 4K (1.10-2.09x the eight-lane one at 64-1K), but `div_bounds` on
/// normal data runs 0.83-0.97x the eight-lane one at 64-16K
/// (`docs/bench/0x19-0x11-bounds-step-only-ab.txt`) and 24 of 248 floor cells fell below
/// 0.97x against 1 at eight lanes (the rows of a `Divisor` made per row, `div` with 1%
/// specials at 1K: `docs/bench/0x19-0x11-sixteen-floors-ab.txt`).
pub const AVX512_NATIVE_EVIDENCE: &[(&str, u32, u32)] = &[];

/// The CPU families whose 512-bit backend, once on ([`AVX512_NATIVE_EVIDENCE`]), serves only
/// the directed functions ([`directed_backend`]: `div_rounded`, `div_bounds`), the slice
/// functions and the `Divisor` keeping the eight-lane backend. Intel family 6 model 0xcf
/// (Emerald Rapids): its 512-bit divider is no faster per lane than its 256-bit one
/// (1.02-1.06x, `docs/bench/0x6-0xcf-wide-divider.txt`) and no sixteen-lane mix is measured,
/// so `div` and `recip` keep their 256-bit `mix-8`; but a `{rd-sae}` pass there ran at
/// 1.22-1.76x the eight-lane `div_rounded` of the time at 1K-16K
/// (`docs/bench/0x6-0xcf-embedded-rounding.txt`), and the sixteen-lane step under two
/// passes (the 512-bit quotient, its residual, a step by its sign) at 1.72-1.75x two
/// embedded passes at 256-1K (a sketch measured there, reported in the project's issue 46),
/// where the eight-lane `div_bounds` ran at 1.09x two passes at 1K and 0.83x at 4K (the
/// same file).
pub const AVX512_DIRECTED_ONLY: &[(&str, u32, u32)] = &[("GenuineIntel", 6, 0xcf)];

/// The CPU families whose sixteen-lane `div_bounds` takes the directed step at every length,
/// where elsewhere it runs two embedded-rounding passes from `TWO_PASSES_FROM` (4096)
/// elements, a threshold measured on Emerald Rapids alone: AMD family 0x19 model 0x11
/// (Zen 4), where the step measured 1.46-1.50x two passes at 4K-16K and the passes 0.99x
/// (`docs/bench/0x19-0x11-masked-step-ab.txt`). As `(vendor, family, model)`.
pub const AVX512_BOUNDS_STEP_ONLY: &[(&str, u32, u32)] = &[("AuthenticAMD", 0x19, 0x11)];

/// From how many elements `div_bounds` on a backend with embedded rounding runs two
/// divider passes on this CPU: `usize::MAX` (never) on a family in
/// [`AVX512_BOUNDS_STEP_ONLY`], else `TWO_PASSES_FROM`. Looked up once; one load after.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn bounds_two_passes_from() -> usize {
    use core::sync::atomic::{AtomicUsize, Ordering};
    /// 0 until looked up.
    static FROM: AtomicUsize = AtomicUsize::new(0);
    match FROM.load(Ordering::Relaxed) {
        0 => {
            let from = two_passes_from_on(&crate::cpu::Cpu::this());
            FROM.store(from, Ordering::Relaxed);
            from
        }
        from => from,
    }
}

/// [`bounds_two_passes_from`] on `cpu`.
#[cfg(fmadiv_x86)]
fn two_passes_from_on(cpu: &crate::cpu::Cpu) -> usize {
    match cpu.is_one_of(AVX512_BOUNDS_STEP_ONLY) {
        true => usize::MAX,
        false => crate::arch::simd::directed::TWO_PASSES_FROM,
    }
}

/// The default backends of `cpu`, for every entry point and for the directed functions,
/// where `evidence` lists the families with a native run: the 16-lane one where it is on
/// (AVX-512F, AVX2+FMA, the family in `evidence`; for the directed functions only where the
/// family is in [`AVX512_DIRECTED_ONLY`]), else AVX2+FMA, else the portable path.
fn defaults(cpu: &crate::cpu::Cpu, evidence: &[(&str, u32, u32)]) -> (Backend, Backend) {
    let eight = match cpu.has_avx2_fma() {
        true => Backend::Avx2Fma,
        false => Backend::Portable,
    };
    let on = cpu.has_avx512f() && cpu.has_avx2_fma() && cpu.is_one_of(evidence);
    let every = on && !cpu.is_one_of(AVX512_DIRECTED_ONLY);
    let sixteen_where = |on: bool| if on { Backend::Avx512 } else { eight };
    (sixteen_where(every), sixteen_where(on))
}

/// Whether the 512-bit backend is on by default on this CPU for the directed functions: it
/// has AVX-512F and its family is in [`AVX512_NATIVE_EVIDENCE`].
pub fn avx512_directed_by_default(cpu: &crate::cpu::Cpu) -> bool {
    defaults(cpu, AVX512_NATIVE_EVIDENCE).1 == Backend::Avx512
}

/// Whether the 512-bit backend is this CPU's default for every entry point: on by default
/// ([`avx512_directed_by_default`]) and its family not in [`AVX512_DIRECTED_ONLY`].
pub fn avx512_by_default(cpu: &crate::cpu::Cpu) -> bool {
    defaults(cpu, AVX512_NATIVE_EVIDENCE).0 == Backend::Avx512
}

/// The backend the environment asks for (`FMADIV_FORCE_PORTABLE=1` or [`BACKEND_ENV`]), if
/// any: `Err` with the message the first division would panic with, for a value that names
/// no backend or one this CPU cannot run. A program can call it first to report a bad
/// setting its own way (the `fmadiv` tool exits 2 with the message).
pub fn backend_override() -> Result<Option<Backend>, String> {
    if std::env::var_os(FORCE_PORTABLE_ENV).is_some_and(|v| v == "1") {
        return Ok(Some(Backend::Portable));
    }
    let Some(value) = std::env::var_os(BACKEND_ENV) else {
        return Ok(None);
    };
    let name = value.to_string_lossy();
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    let backend = Backend::from_name(name).map_err(|e| format!("fmadiv: {BACKEND_ENV}={e}"))?;
    if !backend.runs_here() {
        return Err(format!(
            "fmadiv: {BACKEND_ENV}={name} asks for a backend this CPU cannot run ({})",
            crate::cpu::Cpu::this()
        ));
    }
    Ok(Some(backend))
}

/// The backends of this process, for every entry point and for the directed functions: the
/// forced one for both, else what this CPU has by default.
#[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
fn choose() -> (Backend, Backend) {
    match backend_override() {
        Ok(Some(b)) => (b, b),
        Ok(None) => defaults(&crate::cpu::Cpu::this(), AVX512_NATIVE_EVIDENCE),
        Err(message) => panic!("{message}"),
    }
}

#[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
mod cache {
    use super::Backend;
    use core::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const AVX2_FMA: u8 = 1;
    const PORTABLE: u8 = 2;
    const AVX512: u8 = 3;
    #[cfg(feature = "verify")]
    const MODEL: u8 = 4;

    static BACKEND: AtomicU8 = AtomicU8::new(UNKNOWN);
    /// The directed functions' backend, stored before [`BACKEND`].
    static DIRECTED: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// The backend a stored code stands for.
    #[inline]
    fn decode(code: u8) -> Option<Backend> {
        match code {
            AVX2_FMA => Some(Backend::Avx2Fma),
            PORTABLE => Some(Backend::Portable),
            AVX512 => Some(Backend::Avx512),
            #[cfg(feature = "verify")]
            c if c >= MODEL => {
                let seeds = crate::arch::x86_64::avx512_model::Seeds::ALL;
                seeds
                    .get(usize::from(c - MODEL))
                    .map(|&s| Backend::Avx512Model(s))
            }
            _ => None,
        }
    }

    #[inline]
    pub fn backend() -> Backend {
        decode(BACKEND.load(Ordering::Relaxed)).unwrap_or_else(|| detect().0)
    }

    #[inline]
    pub fn directed() -> Backend {
        decode(DIRECTED.load(Ordering::Relaxed)).unwrap_or_else(|| detect().1)
    }

    /// The backend if it is detected already (no detection): for hot paths that have a
    /// slower correct way when it is not.
    #[inline]
    pub fn known() -> Option<Backend> {
        decode(BACKEND.load(Ordering::Relaxed))
    }

    /// The code that stands for a backend.
    fn encode(backend: Backend) -> u8 {
        match backend {
            Backend::Avx2Fma => AVX2_FMA,
            Backend::Portable => PORTABLE,
            Backend::Avx512 => AVX512,
            #[cfg(feature = "verify")]
            Backend::Avx512Model(s) => {
                let seeds = crate::arch::x86_64::avx512_model::Seeds::ALL;
                // Three tables: the index fits a u8.
                MODEL + seeds.iter().position(|&t| t == s).unwrap_or(0) as u8
            }
        }
    }

    #[cold]
    fn detect() -> (Backend, Backend) {
        let (every, directed) = super::choose();
        // Racing first calls all store the same values.
        DIRECTED.store(encode(directed), Ordering::Relaxed);
        BACKEND.store(encode(every), Ordering::Relaxed);
        (every, directed)
    }
}

/// The kernel in use on this CPU.
#[inline]
pub fn backend() -> Backend {
    #[cfg(fmadiv_static_avx2_fma)]
    {
        Backend::Avx2Fma
    }
    #[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
    {
        cache::backend()
    }
    #[cfg(not(fmadiv_x86))]
    {
        Backend::Portable
    }
}

/// The backend of the directed functions (`div_rounded`, `div_bounds`): [`backend`], except
/// on a CPU family whose 512-bit backend serves only them ([`AVX512_DIRECTED_ONLY`]) and is
/// on there ([`AVX512_NATIVE_EVIDENCE`]): then the 16-lane one, whose directed division is
/// embedded rounding ([`Backend::embedded_rounding`] says whether flags are raised). A
/// forced backend ([`BACKEND_ENV`]) is theirs too.
#[inline]
pub fn directed_backend() -> Backend {
    #[cfg(fmadiv_static_avx2_fma)]
    {
        Backend::Avx2Fma
    }
    #[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
    {
        cache::directed()
    }
    #[cfg(not(fmadiv_x86))]
    {
        Backend::Portable
    }
}

/// Runs `$with!(module)` with the entry points (`crate::arch::simd::entry_points`) of
/// `$backend` (a [`Backend`] the caller knows this CPU runs), or evaluates `$none` for the
/// portable path: the one place that maps a backend to its compiled loops.
#[cfg(fmadiv_x86)]
macro_rules! with_entry {
    ($backend:expr, $with:ident, $none:expr) => {{
        #[allow(unused_imports)]
        use crate::arch::x86_64::{avx2, avx512};
        match $backend {
            crate::Backend::Avx2Fma => $with!(avx2::entry),
            crate::Backend::Avx512 => $with!(avx512::entry),
            #[cfg(feature = "verify")]
            crate::Backend::Avx512Model(seeds) => {
                use crate::arch::x86_64::avx512_model::{Seeds, high, intel, low};
                match seeds {
                    Seeds::Intel => $with!(intel::entry),
                    Seeds::Low => $with!(low::entry),
                    Seeds::High => $with!(high::entry),
                }
            }
            _ => $none,
        }
    }};
}
#[cfg(fmadiv_x86)]
pub(crate) use with_entry;

/// Whether a backend in use proves AVX2+FMA: the 512-bit one does (its proof includes them);
/// the model does where the CPU has them.
#[cfg(fmadiv_x86)]
#[inline]
fn proves_avx2_fma(b: Backend) -> bool {
    match b {
        Backend::Avx2Fma | Backend::Avx512 => true,
        Backend::Portable => false,
        #[cfg(feature = "verify")]
        Backend::Avx512Model(_) => crate::cpu::has_avx2_fma(),
    }
}

/// The AVX2+FMA proof if the eight-lane backend itself is the one in use (not a
/// sixteen-lane one that also proves AVX2+FMA): for the paths that have a form of each width.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx2_fma_backend() -> Option<crate::arch::x86_64::avx2::Avx2Fma> {
    #[cfg(fmadiv_static_avx2_fma)]
    let eight = true;
    #[cfg(not(fmadiv_static_avx2_fma))]
    let eight = backend() == Backend::Avx2Fma;
    // SAFETY: the AVX2+FMA backend is in use only where its features were detected or
    // enabled at compile time.
    eight.then(|| unsafe { crate::arch::x86_64::avx2::Avx2Fma::new_unchecked() })
}

/// The AVX2+FMA proof if the eight-lane backend is in use and already detected (`None`
/// before the first detection): one load, with no detection call on the caller's path.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx2_fma_backend_known() -> Option<crate::arch::x86_64::avx2::Avx2Fma> {
    #[cfg(fmadiv_static_avx2_fma)]
    let eight = true;
    #[cfg(not(fmadiv_static_avx2_fma))]
    let eight = cache::known() == Some(Backend::Avx2Fma);
    // SAFETY: as in `avx2_fma_backend`.
    eight.then(|| unsafe { crate::arch::x86_64::avx2::Avx2Fma::new_unchecked() })
}

/// The AVX-512F proof if the sixteen-lane backend itself is the one in use natively (not
/// its software model) and already detected (`None` before the first detection): one load,
/// as [`avx2_fma_backend_known`].
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx512_backend_known() -> Option<crate::arch::x86_64::avx512::Avx512> {
    #[cfg(fmadiv_static_avx2_fma)]
    let sixteen = false;
    #[cfg(not(fmadiv_static_avx2_fma))]
    let sixteen = cache::known() == Some(Backend::Avx512);
    // SAFETY: the sixteen-lane backend is in use only where AVX-512F, AVX2 and FMA were
    // detected.
    sixteen.then(|| unsafe { crate::arch::x86_64::avx512::Avx512::new_unchecked() })
}

/// The AVX2+FMA proof, if a backend that has it is the one in use.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn avx2_fma() -> Option<crate::arch::x86_64::avx2::Avx2Fma> {
    // SAFETY: as in `avx2_fma_known`.
    proves_avx2_fma(backend())
        .then(|| unsafe { crate::arch::x86_64::avx2::Avx2Fma::new_unchecked() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Cpu;

    const EMERALD_RAPIDS: (&str, u32, u32) = ("GenuineIntel", 6, 0xcf);
    const ZEN_5: (&str, u32, u32) = ("AuthenticAMD", 0x1a, 0x44);

    fn cpu((vendor, family, model): (&str, u32, u32), avx512f: bool) -> Cpu {
        Cpu::described(vendor, (family, model), true, avx512f)
    }

    #[test]
    fn a_native_run_turns_the_sixteen_lanes_on_for_what_the_family_lets_them_serve() {
        use Backend::{Avx2Fma, Avx512, Portable};
        let both = [EMERALD_RAPIDS, ZEN_5];
        // Emerald Rapids: the directed functions only; Zen 5: every entry point.
        assert_eq!(
            defaults(&cpu(EMERALD_RAPIDS, true), &both),
            (Avx2Fma, Avx512)
        );
        assert_eq!(defaults(&cpu(ZEN_5, true), &both), (Avx512, Avx512));
        // No native run of the family, or no AVX-512F: the eight lanes everywhere.
        assert_eq!(
            defaults(&cpu(EMERALD_RAPIDS, true), &[ZEN_5]),
            (Avx2Fma, Avx2Fma)
        );
        assert_eq!(defaults(&cpu(ZEN_5, true), &[]), (Avx2Fma, Avx2Fma));
        assert_eq!(defaults(&cpu(ZEN_5, false), &both), (Avx2Fma, Avx2Fma));
        let other_model = cpu(("GenuineIntel", 6, 0x8f), true);
        assert_eq!(defaults(&other_model, &both), (Avx2Fma, Avx2Fma));
        // No AVX2+FMA: the portable path, whatever the evidence.
        let old = Cpu::described("GenuineIntel", (6, 0xcf), false, true);
        assert_eq!(defaults(&old, &both), (Portable, Portable));
    }

    #[cfg(fmadiv_x86)]
    #[test]
    fn div_bounds_runs_two_passes_where_no_measurement_said_otherwise() {
        use crate::arch::simd::directed::TWO_PASSES_FROM;
        // Zen 4 (family 0x19 model 0x11): the step at every length, as measured there.
        assert_eq!(
            two_passes_from_on(&cpu(("AuthenticAMD", 0x19, 0x11), true)),
            usize::MAX
        );
        // Emerald Rapids (whose sketch set the threshold), Zen 5, a Zen 4 of another model.
        for family in [EMERALD_RAPIDS, ZEN_5, ("AuthenticAMD", 0x19, 0x61)] {
            assert_eq!(two_passes_from_on(&cpu(family, true)), TWO_PASSES_FROM);
        }
    }
}
