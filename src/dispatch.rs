//! Which kernel runs: detected once, cached, then one relaxed load per call.

use core::fmt;
use core::sync::atomic::{AtomicBool, Ordering};

mod families;

#[cfg(fmadiv_x86)]
pub(crate) use families::bounds_form;
use families::family_of;
pub use families::{AVX512_FAMILIES, Avx512Family, avx512_family};

/// The kernel that [`crate::div`] and friends run on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// The AVX2+FMA kernel: rcp seed, Halley step, Markstein correction, exact slow path.
    Avx2Fma,
    /// The same kernel and loops sixteen lanes at a time with AVX-512F (`vrcp14ps` seed, `k`
    /// masks, masked tails) for the slice functions and directed rounding; the rest runs
    /// the AVX2+FMA code. Opt-in (`FMADIV_BACKEND=avx512`) until the full test suite has
    /// run natively on a CPU family; then it serves the entry points the family's record
    /// names ([`AVX512_FAMILIES`], [`backend_of`]).
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
    #[must_use]
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
    #[must_use]
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
    /// others raise the flags of the divisions they run, and so does every backend in a
    /// build without optimisation, whose directed functions run an `asm!` divider loop
    /// under the mode (`verify::UNOPTIMIZED`).
    #[must_use]
    pub fn embedded_rounding(self) -> bool {
        match self {
            Backend::Avx512 => true,
            Backend::Avx2Fma | Backend::Portable => false,
            #[cfg(all(fmadiv_x86, feature = "verify"))]
            Backend::Avx512Model(_) => true,
        }
    }

    /// Every backend this build knows, by [`Backend::name`].
    #[must_use]
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
    ///
    /// # Errors
    /// A message that lists the names, for any other name.
    pub fn from_name(name: &str) -> Result<Backend, String> {
        Backend::all()
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Backend::all().into_iter().map(Backend::name).collect();
                format!("{name:?} names no backend (one of: {})", names.join(", "))
            })
    }

    /// Whether this CPU can run the backend (the model runs on every x86-64 CPU). Two
    /// loads: the harnesses ask it on every call they time.
    #[must_use]
    pub fn runs_here(self) -> bool {
        // The kept identity by reference: `Cpu::this()` clones its vendor string.
        let cpu = crate::cpu::this_cpu();
        match self {
            Backend::Portable => true,
            Backend::Avx2Fma => cpu.has_avx2_fma(),
            Backend::Avx512 => cpu.has_avx512f() && cpu.has_avx2_fma(),
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
/// path on any CPU (for comparisons; the bits are the same). `0` or an empty value is the
/// same as unset; any other value, or `1` beside a [`BACKEND_ENV`] that forces another
/// backend, panics at the first division with a message saying so ([`backend_override`]).
pub const FORCE_PORTABLE_ENV: &str = "FMADIV_FORCE_PORTABLE";

/// Set this environment variable to a [`Backend::name`] before the first division to force
/// that backend for every entry point; to `ENTRY=NAME` ([`EntryPoint::name`]) to force one
/// entry point's; or to a list of both, separated by commas (`avx2,recip=avx512`: every
/// entry point on AVX2+FMA but `recip`). A name that is no backend's or entry point's, a
/// backend this CPU cannot run, or, in a build whose backend is fixed when it is compiled
/// (AVX2 and FMA enabled for the whole crate without AVX-512F: `avx2`; no x86 SIMD code:
/// `portable`), any other backend, panics with a message saying so at the first call that
/// runs a backend's code (in every build; not `div_f32x8` and `recip_f32x8`, nor the
/// optimised builds' slices below 16 elements, 32 by one divisor, which run SSE's `divps`
/// whatever the backend): an override that cannot be honoured is never silently dropped.
pub const BACKEND_ENV: &str = "FMADIV_BACKEND";

/// The entry points whose backend a CPU family chooses one by one ([`backend_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryPoint {
    /// `div`, `div_in_place`, `try_div`, `par_div`, the [`crate::Divisor`] and
    /// `div_scalar`, and their ndarray forms: [`backend`].
    Div,
    /// `recip` and its parallel and ndarray forms.
    Recip,
    /// `div_rounded`.
    DivRounded,
    /// `div_bounds`.
    DivBounds,
}

impl EntryPoint {
    /// Every entry point, each once.
    pub const ALL: [EntryPoint; 4] = [
        EntryPoint::Div,
        EntryPoint::Recip,
        EntryPoint::DivRounded,
        EntryPoint::DivBounds,
    ];

    /// The function's name (`div` for the group it stands for).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EntryPoint::Div => "div",
            EntryPoint::Recip => "recip",
            EntryPoint::DivRounded => "div_rounded",
            EntryPoint::DivBounds => "div_bounds",
        }
    }

    /// Its place in [`EntryPoint::ALL`].
    const fn index(self) -> usize {
        self as usize
    }

    /// Parses [`EntryPoint::name`]; anything else is an error that lists the names.
    ///
    /// # Errors
    /// A message that lists the names, for any other name.
    pub fn from_name(name: &str) -> Result<EntryPoint, String> {
        EntryPoint::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = EntryPoint::ALL.into_iter().map(EntryPoint::name).collect();
                format!(
                    "{name:?} names no entry point (one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// The default backend of each entry point on `cpu` (in the order of [`EntryPoint::ALL`])
/// with the records `families`: the 16-lane one for the entry points its family's record
/// names, where the record has a native run and `cpu` AVX-512F, AVX2 and FMA; else AVX2+FMA,
/// else the portable path.
#[cfg_attr(
    not(all(fmadiv_x86, not(fmadiv_static_avx2_fma))),
    allow(dead_code, reason = "the backends are fixed by the build there")
)]
fn defaults(cpu: &crate::cpu::Cpu, families: &[Avx512Family]) -> [Backend; 4] {
    let eight = match cpu.has_avx2_fma() {
        true => Backend::Avx2Fma,
        false => Backend::Portable,
    };
    let sixteen = family_of(cpu, families).map_or(&[][..], |f| f.sixteen_lanes_on(cpu));
    EntryPoint::ALL.map(|e| match sixteen.contains(&e) {
        true => Backend::Avx512,
        false => eight,
    })
}

/// The backend `entry` runs by default on `cpu` in this build (what [`backend_of`] gives
/// where [`BACKEND_ENV`] forces nothing): AVX2+FMA in a build with them enabled at compile
/// time, the portable path in one without x86 SIMD.
#[must_use]
pub fn default_backend_of(cpu: &crate::cpu::Cpu, entry: EntryPoint) -> Backend {
    #[cfg(fmadiv_static_avx2_fma)]
    {
        let _ = (cpu, entry);
        Backend::Avx2Fma
    }
    #[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
    {
        defaults(cpu, AVX512_FAMILIES)[entry.index()]
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = (cpu, entry);
        Backend::Portable
    }
}

/// The backends the environment forces (`FMADIV_FORCE_PORTABLE=1` or [`BACKEND_ENV`]), one
/// per entry point in the order of [`EntryPoint::ALL`] (`None` where it forces none): `Err`
/// with the message the first division would panic with, for a setting this process cannot
/// honour. A program can call it first to report a bad setting its own way (the `fmadiv`
/// tool exits 2 with the message).
///
/// # Errors
/// The message the first division would panic with: for a value that names no backend or
/// entry point, or names one twice; a [`FORCE_PORTABLE_ENV`] other than `1`, `0` or empty,
/// or `1` beside a [`BACKEND_ENV`] that forces another backend; a backend this CPU cannot
/// run; or, in a build whose backend is fixed when it is compiled (AVX2 and FMA enabled
/// for the whole crate, or no x86 SIMD code), any backend but that one.
pub fn backend_override() -> Result<[Option<Backend>; 4], String> {
    let force_portable = std::env::var_os(FORCE_PORTABLE_ENV);
    let value = std::env::var_os(BACKEND_ENV);
    let value = value.as_deref().map(std::ffi::OsStr::to_string_lossy);
    let forced = read_override(force_portable.as_deref(), value.as_deref())?;
    // What asked for the backend refused, for the message.
    let asked = || match (force_portable.as_deref().and_then(|v| v.to_str()), &value) {
        (Some("1"), _) | (_, None) => format!("{FORCE_PORTABLE_ENV}=1"),
        (_, Some(v)) => format!("{BACKEND_ENV}={v}"),
    };
    if let Some((fixed, why)) = FIXED_BACKEND
        && let Some(b) = forced.iter().flatten().find(|&&b| b != fixed)
    {
        return Err(format!(
            "fmadiv: {} asks for {}, but this build runs {} for every entry point ({why}): \
             no other backend can be chosen at run time",
            asked(),
            b.name(),
            fixed.name()
        ));
    }
    if let Some(b) = forced.iter().flatten().find(|b| !b.runs_here()) {
        return Err(format!(
            "fmadiv: {} asks for a backend this CPU cannot run ({}: {})",
            asked(),
            b.name(),
            crate::cpu::Cpu::this()
        ));
    }
    Ok(forced)
}

/// The backend a build runs for every entry point whatever the environment asks, and why,
/// where it is fixed when the crate is compiled.
const FIXED_BACKEND: Option<(Backend, &str)> = if cfg!(fmadiv_static_avx2_fma) {
    Some((
        Backend::Avx2Fma,
        "AVX2 and FMA enabled at compile time without AVX-512F",
    ))
} else if cfg!(fmadiv_x86) {
    None
} else {
    Some((Backend::Portable, "a build without x86 SIMD code"))
};

/// The two variables read: [`FORCE_PORTABLE_ENV`]'s value (`1` forces the portable path;
/// `0` or empty is the same as unset; anything else is an error) and [`BACKEND_ENV`]'s
/// ([`parse_override`]). Both set, they must agree: `1` beside a value that forces another
/// backend for some entry point is an error, not a silent choice of one of them.
fn read_override(
    force_portable: Option<&std::ffi::OsStr>,
    value: Option<&str>,
) -> Result<[Option<Backend>; 4], String> {
    let portable = match force_portable.map(|v| v.to_string_lossy()) {
        None => false,
        Some(v) => match &*v {
            "1" => true,
            "0" | "" => false,
            other => {
                return Err(format!(
                    "fmadiv: {FORCE_PORTABLE_ENV}={other:?}: 1 forces the portable path, 0 or \
                     an empty value does not; nothing else is read"
                ));
            }
        },
    };
    let forced = match value {
        None => [None; 4],
        Some(v) => parse_override(v).map_err(|e| format!("fmadiv: {BACKEND_ENV}={v}: {e}"))?,
    };
    if !portable {
        return Ok(forced);
    }
    let other = EntryPoint::ALL
        .into_iter()
        .zip(forced)
        .find(|&(_, b)| b.is_some_and(|b| b != Backend::Portable));
    match (other, value) {
        (Some((entry, Some(b))), Some(v)) => Err(format!(
            "fmadiv: {FORCE_PORTABLE_ENV}=1 forces the portable path, and {BACKEND_ENV}={v} \
             asks for {} for {}: unset one of them",
            b.name(),
            entry.name()
        )),
        _ => Ok([Some(Backend::Portable); 4]),
    }
}

/// Panics with [`backend_override`]'s message if the environment asks for what this process
/// cannot honour, in builds and on paths that choose no backend at run time (where
/// [`backend_of`] detects, its first call panics so): checked by the first call, one
/// relaxed load after that. Not on the optimised builds' short slice loops, which run no
/// backend's code (SSE's `divps` on every backend) and so read no setting: a load there
/// moved those calls by more than it could cost (BENCHMARKS, "The backend setting's check").
#[inline]
pub(crate) fn check_environment() {
    static CHECKED: AtomicBool = AtomicBool::new(false);
    if !CHECKED.load(Ordering::Relaxed) {
        check_environment_now(&CHECKED);
    }
}

/// [`check_environment`]'s first call, out of line.
#[cold]
#[inline(never)]
fn check_environment_now(checked: &AtomicBool) {
    if let Err(message) = backend_override() {
        panic!("{message}");
    }
    checked.store(true, Ordering::Relaxed);
}

/// Whether the environment forces `entry`'s backend ([`backend_override`]); `false` for a
/// setting that cannot be honoured (the first division panics with its message).
pub(crate) fn is_forced(entry: EntryPoint) -> bool {
    backend_override().is_ok_and(|forced| forced[entry.index()].is_some())
}

/// [`BACKEND_ENV`]'s value read: a bare name for every entry point, `ENTRY=NAME` for one
/// (which wins over a bare name wherever it stands), items separated by commas; blank items
/// are none. Naming one entry point twice, or two bare names, is an error: one of the two
/// would be dropped.
fn parse_override(value: &str) -> Result<[Option<Backend>; 4], String> {
    let (mut every, mut each) = (None, [None; 4]);
    for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        match item.split_once('=') {
            None => match every {
                None => every = Some(Backend::from_name(item)?),
                Some(_) => return Err(format!("two backends for every entry point ({item:?})")),
            },
            Some((entry, name)) => {
                let e = EntryPoint::from_name(entry.trim())?;
                match each[e.index()] {
                    None => each[e.index()] = Some(Backend::from_name(name.trim())?),
                    Some(_) => return Err(format!("{} named twice", e.name())),
                }
            }
        }
    }
    Ok(each.map(|b| b.or(every)))
}

/// The backends of this process, one per entry point (in the order of
/// [`EntryPoint::ALL`]): the forced ones, else what this CPU has by default.
#[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
fn choose() -> [Backend; 4] {
    match backend_override() {
        Ok(forced) => {
            let defaults = defaults(&crate::cpu::Cpu::this(), AVX512_FAMILIES);
            EntryPoint::ALL.map(|e| forced[e.index()].unwrap_or(defaults[e.index()]))
        }
        Err(message) => panic!("{message}"),
    }
}

#[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
mod cache {
    use super::{Backend, EntryPoint};
    use core::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const AVX2_FMA: u8 = 1;
    const PORTABLE: u8 = 2;
    const AVX512: u8 = 3;
    #[cfg(feature = "verify")]
    const MODEL: u8 = 4;

    /// Each entry point's backend, by [`EntryPoint::index`]; `div`'s (index 0) is stored
    /// last, so that [`known`] implies all are.
    static BACKENDS: [AtomicU8; 4] = [const { AtomicU8::new(UNKNOWN) }; 4];

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
    pub fn backend_of(entry: EntryPoint) -> Backend {
        let i = entry.index();
        decode(BACKENDS[i].load(Ordering::Relaxed)).unwrap_or_else(|| detect()[i])
    }

    /// `div`'s backend if it is detected already (no detection): for hot paths that have a
    /// slower correct way when it is not.
    #[inline]
    pub fn known() -> Option<Backend> {
        decode(BACKENDS[EntryPoint::Div.index()].load(Ordering::Relaxed))
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
    fn detect() -> [Backend; 4] {
        let backends = super::choose();
        // Racing first calls all store the same values; `div`'s last.
        for (slot, &b) in BACKENDS.iter().zip(&backends).rev() {
            slot.store(encode(b), Ordering::Relaxed);
        }
        backends
    }
}

/// The backend of `div` and its kin ([`EntryPoint::Div`]): the one [`backend_of`] gives
/// for them.
#[inline]
#[must_use]
pub fn backend() -> Backend {
    backend_of(EntryPoint::Div)
}

/// The backend that runs `entry` in this process: the one [`BACKEND_ENV`] forces for
/// every entry point, else this CPU's default ([`default_backend_of`]: sixteen lanes for
/// the entry points its family's record in [`AVX512_FAMILIES`] names, where the record has
/// a native run). [`Backend::embedded_rounding`] says whether the directed functions'
/// backend raises exception flags.
#[inline]
#[must_use]
pub fn backend_of(entry: EntryPoint) -> Backend {
    #[cfg(fmadiv_static_avx2_fma)]
    {
        let _ = entry;
        check_environment();
        Backend::Avx2Fma
    }
    #[cfg(all(fmadiv_x86, not(fmadiv_static_avx2_fma)))]
    {
        cache::backend_of(entry)
    }
    #[cfg(not(fmadiv_x86))]
    {
        let _ = entry;
        check_environment();
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
    use Backend::{Avx2Fma, Avx512, Portable};

    const EMERALD_RAPIDS: (&str, u32, u32) = ("GenuineIntel", 6, 0xcf);
    const ZEN_5: (&str, u32, u32) = ("AuthenticAMD", 0x1a, 0x44);

    fn cpu((vendor, family, model): (&str, u32, u32), avx512f: bool) -> Cpu {
        Cpu::described(vendor, (family, model), true, avx512f)
    }

    /// A record for `(vendor, family, model)` with a native run, serving `entries`.
    fn record(
        (vendor, family, model): (&'static str, u32, u32),
        entries: &'static [EntryPoint],
    ) -> Avx512Family {
        Avx512Family {
            vendor,
            family,
            model,
            native_run: Some("a test"),
            sixteen_lanes_for: entries,
            bounds_step_only: false,
            bounds_eight_lane_head_from: None,
            bounds_window_if_flags_held_below: None,
            evidence: "a test",
        }
    }

    #[test]
    fn a_native_run_turns_the_sixteen_lanes_on_for_the_entry_points_its_record_names() {
        use EntryPoint::{DivBounds, DivRounded};
        let both = [
            record(EMERALD_RAPIDS, &[DivRounded, DivBounds]),
            record(ZEN_5, &EntryPoint::ALL),
        ];
        // Emerald Rapids: the directed functions only; Zen 5: every entry point.
        let er = cpu(EMERALD_RAPIDS, true);
        assert_eq!(defaults(&er, &both), [Avx2Fma, Avx2Fma, Avx512, Avx512]);
        assert_eq!(defaults(&cpu(ZEN_5, true), &both), [Avx512; 4]);
        // One entry point alone, whichever it is.
        for (i, e) in EntryPoint::ALL.into_iter().enumerate() {
            let one = [record(ZEN_5, core::slice::from_ref(&EntryPoint::ALL[i]))];
            let got = defaults(&cpu(ZEN_5, true), &one);
            for (j, b) in got.into_iter().enumerate() {
                assert_eq!(b == Avx512, i == j, "{e:?}: {got:?}");
            }
        }
        // No native run, no record, or no AVX-512F: the eight lanes everywhere.
        let unrun = [Avx512Family {
            native_run: None,
            ..record(ZEN_5, &EntryPoint::ALL)
        }];
        assert_eq!(defaults(&cpu(ZEN_5, true), &unrun), [Avx2Fma; 4]);
        assert_eq!(defaults(&er, &both[1..]), [Avx2Fma; 4]);
        assert_eq!(defaults(&cpu(ZEN_5, false), &both), [Avx2Fma; 4]);
        let other_model = cpu(("GenuineIntel", 6, 0x8f), true);
        assert_eq!(defaults(&other_model, &both), [Avx2Fma; 4]);
        // No AVX2+FMA: the portable path, whatever the records.
        let old = Cpu::described("GenuineIntel", (6, 0xcf), false, true);
        assert_eq!(defaults(&old, &both), [Portable; 4]);
    }

    #[test]
    fn the_shipped_records_give_what_was_measured() {
        // Zen 4's native run is in: `recip` and `div_rounded` measured best at sixteen
        // lanes, the rest at eight. Emerald Rapids': every entry point. Family 6 model 0xa7's:
        // every one but `recip`.
        let zen4 = cpu(("AuthenticAMD", 0x19, 0x11), true);
        assert_eq!(
            defaults(&zen4, AVX512_FAMILIES),
            [Avx2Fma, Avx512, Avx512, Avx2Fma]
        );
        let emr = cpu(EMERALD_RAPIDS, true);
        assert_eq!(defaults(&emr, AVX512_FAMILIES), [Avx512; 4]);
        let model_a7 = cpu(("GenuineIntel", 6, 0xa7), true);
        assert_eq!(
            defaults(&model_a7, AVX512_FAMILIES),
            [Avx512, Avx2Fma, Avx512, Avx512]
        );
        // A record's entry points are distinct (that its native run is a committed folder is
        // tests/docs.rs's to check: the published package holds no evidence).
        for f in AVX512_FAMILIES {
            let entries = f.sixteen_lanes_for;
            assert!((1..entries.len()).all(|i| !entries[..i].contains(&entries[i])));
        }
    }

    #[test]
    fn the_override_names_a_backend_for_all_or_one_per_entry_point() {
        use EntryPoint::{Div, DivBounds, DivRounded, Recip};
        let at = |forced: [Option<Backend>; 4], e: EntryPoint| forced[e.index()];
        assert_eq!(parse_override("avx2"), Ok([Some(Avx2Fma); 4]));
        assert_eq!(parse_override(" , "), Ok([None; 4]));
        let mixed = parse_override("recip=avx512, avx2 ,div_bounds = portable").unwrap();
        assert_eq!(at(mixed, Div), Some(Avx2Fma));
        assert_eq!(at(mixed, Recip), Some(Avx512));
        assert_eq!(at(mixed, DivRounded), Some(Avx2Fma));
        assert_eq!(at(mixed, DivBounds), Some(Portable));
        let one = parse_override("div_rounded=portable").unwrap();
        assert_eq!(one.iter().filter(|b| b.is_some()).count(), 1);
        assert_eq!(at(one, DivRounded), Some(Portable));
        // Nothing that cannot be honoured is dropped quietly.
        for bad in [
            "avx3",
            "recip=avx3",
            "rcp=avx2",
            "avx2,portable",
            "recip=avx2,recip=avx512",
            "recip",
        ] {
            let e = parse_override(bad).expect_err(bad);
            assert!(
                e.contains("names no") || e.contains("two") || e.contains("twice"),
                "{e}"
            );
        }
    }

    #[test]
    fn force_portable_is_one_zero_or_empty_and_agrees_with_the_backend_setting() {
        use std::ffi::OsStr;
        let read =
            |flag: Option<&str>, value: Option<&str>| read_override(flag.map(OsStr::new), value);
        assert_eq!(read(None, None), Ok([None; 4]));
        assert_eq!(read(Some("1"), None), Ok([Some(Portable); 4]));
        for off in ["0", ""] {
            assert_eq!(read(Some(off), None), Ok([None; 4]));
            assert_eq!(read(Some(off), Some("avx2")), Ok([Some(Avx2Fma); 4]));
        }
        // Beside a setting that forces the portable path or nothing more, the flag stands.
        for agrees in ["portable", "recip=portable", " , "] {
            assert_eq!(
                read(Some("1"), Some(agrees)),
                Ok([Some(Portable); 4]),
                "{agrees}"
            );
        }
        // Anything else is said, not read as one of them.
        for (flag, value) in [
            (Some("yes"), None),
            (Some("true"), None),
            (Some(" 1"), None),
            (Some("1"), Some("avx2")),
            (Some("1"), Some("div_bounds=avx512")),
            (Some("1"), Some("avx1024")),
        ] {
            let e = read(flag, value).expect_err(&format!("{flag:?} {value:?}"));
            assert!(e.starts_with("fmadiv: FMADIV_"), "{e}");
        }
    }

    /// `div_bounds` takes two embedded-rounding passes from `TWO_PASSES_FROM` except where
    /// the CPU's record says the step at every length, the head at eight lanes only where
    /// the record gives a length, and the window check for a caller's held flags only where
    /// the record says so.
    #[cfg(fmadiv_x86)]
    #[test]
    fn bounds_form_follows_the_record() {
        use super::families::{ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM, bounds_form_on};
        use crate::arch::simd::directed::BoundsForm;
        // Zen 4 (family 0x19 model 0x11): the step at every length, as measured there, and
        // the head at eight lanes from its length.
        let zen_4 = cpu(("AuthenticAMD", 0x19, 0x11), true);
        let expected = BoundsForm {
            two_passes_from: usize::MAX,
            eight_lane_head_from: ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM,
            window_if_flags_held_below: 0,
        };
        assert_eq!(bounds_form_on(&zen_4, AVX512_FAMILIES), expected);
        // Emerald Rapids: the step at every length too, and no head at eight lanes.
        let emerald_rapids = bounds_form_on(&cpu(EMERALD_RAPIDS, true), AVX512_FAMILIES);
        assert_eq!(
            emerald_rapids,
            BoundsForm {
                two_passes_from: usize::MAX,
                ..BoundsForm::DEFAULT
            }
        );
        // Family 6 model 0xa7: the step at every length, and the window check where the
        // caller holds a voiding flag below its length.
        assert_eq!(
            bounds_form_on(&cpu(("GenuineIntel", 6, 0xa7), true), AVX512_FAMILIES),
            BoundsForm {
                two_passes_from: usize::MAX,
                window_if_flags_held_below: super::families::A7_BOUNDS_WINDOW_IF_FLAGS_HELD_BELOW,
                ..BoundsForm::DEFAULT
            }
        );
        // Zen 5, a Zen 4 of another model, a CPU without AVX-512F (Zen 3).
        for (family, avx512f) in [
            (ZEN_5, true),
            (("AuthenticAMD", 0x19, 0x61), true),
            (("AuthenticAMD", 0x19, 0x01), false),
        ] {
            let form = bounds_form_on(&cpu(family, avx512f), AVX512_FAMILIES);
            assert_eq!(form, BoundsForm::DEFAULT);
        }
        assert_eq!(
            BoundsForm::DEFAULT,
            BoundsForm {
                two_passes_from: crate::arch::simd::directed::TWO_PASSES_FROM,
                eight_lane_head_from: usize::MAX,
                window_if_flags_held_below: 0,
            }
        );
    }
}
