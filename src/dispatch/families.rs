//! The records of the CPU families whose 512-bit backend has one: which entry points it
//! serves by default there, how `div_bounds` runs, and the evidence.

#[cfg(fmadiv_x86)]
use crate::arch::simd::directed::BoundsForm;

use super::EntryPoint;

/// What the 512-bit backend does by default on one CPU family: which entry points it
/// serves there once the full test suite has run natively on the family, and how its
/// `div_bounds` runs. A family in no record ([`AVX512_FAMILIES`]) runs eight lanes unless
/// [`BACKEND_ENV`](super::BACKEND_ENV) asks for sixteen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512Family {
    /// The CPU's vendor id, family and model, as [`crate::Cpu`] reports them.
    pub vendor: &'static str,
    /// The cpuid family.
    pub family: u32,
    /// The cpuid model.
    pub model: u32,
    /// The committed output of `scripts/native-avx512.sh` on this family (`None`: none
    /// yet, and the backend is opt-in there whatever the measurements below say).
    pub native_run: Option<&'static str>,
    /// The entry points that run sixteen lanes by default once [`Avx512Family::native_run`]
    /// is in; the others keep the eight-lane backend.
    pub sixteen_lanes_for: &'static [EntryPoint],
    /// Whether `div_bounds` at sixteen lanes takes the directed step at every length;
    /// `false`: two embedded-rounding passes from `TWO_PASSES_FROM` (4096) elements, a
    /// threshold measured on Emerald Rapids, which is also what a family in no record runs
    /// when forced.
    pub bounds_step_only: bool,
    /// From how many elements `div_bounds` at eight lanes begins with the head to the lower
    /// bounds' first 32-byte boundary (whole vectors at both ends, no masked store); `None`:
    /// never, the loop as measured on Zen 3 and Emerald Rapids (a family in no record has
    /// none either).
    pub bounds_eight_lane_head_from: Option<usize>,
    /// Below how many elements `div_bounds`' step loop keeps the window check, not the
    /// flag-checked chunks, where the caller's MXCSR holds the underflow, overflow or
    /// invalid flag: the chunks clear those flags first and put them back after, two MXCSR
    /// writes a call. `None`: the chunks whatever the caller holds, as a family in no
    /// record runs.
    pub bounds_window_if_flags_held_below: Option<usize>,
    /// Why, with the committed measurements.
    pub evidence: &'static str,
}

impl Avx512Family {
    /// Whether `cpu` is of this family.
    #[must_use]
    pub fn is(&self, cpu: &crate::cpu::Cpu) -> bool {
        cpu.is_one_of(&[(self.vendor, self.family, self.model)])
    }

    /// The entry points that run sixteen lanes by default on `cpu`: this record's where the
    /// native run is in and `cpu` has AVX-512F, AVX2 and FMA; else none.
    pub(super) fn sixteen_lanes_on(&self, cpu: &crate::cpu::Cpu) -> &'static [EntryPoint] {
        let on = self.native_run.is_some() && cpu.has_avx512f() && cpu.has_avx2_fma();
        if on { self.sixteen_lanes_for } else { &[] }
    }
}

/// On Zen 4, `div_bounds` at eight lanes (its default there) begins with the head to the lower
/// bounds' 32-byte boundary from this many elements (80 vectors), its first and last vectors
/// whole (no masked store). `examples/bounds_past_line.rs`, four alternating rounds of the
/// loop with the head from 264 elements against the loop without one
/// (`docs/bench/0x19-0x11-bounds-eight-lane-head.txt`): with the arrays 16 bytes past a line
/// 1.15x at 700, 1.08x at 768, 1.10x at 1K, 1.13x at 2K and 1.19-1.21x at 4K-16K, on a line
/// 0.99-1.03x; at 640 1.00x on every layout, at 384-576 0.96-0.99x.
pub const ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM: usize = 640;

/// On Intel family 6 model 0xa7, `div_bounds` keeps the window check below this many
/// elements where the caller's MXCSR holds a voiding flag. `examples/dirty_flags.rs`, the
/// underflow flag set, the window check against the chunks (which clear the flags and put
/// them back, about 85 ns a call), six processes at sixteen lanes (its default):
/// 1.69-1.80x at 512 elements, 1.41-1.45x at 1K, 1.21x at 2K, 1.07-1.09x at 4K, 0.97-1.05x
/// at 8K and 0.95-0.98x at 16K-64K (in memory, 256K, 1.06-1.09x); two at eight lanes
/// (forced): 1.07-2.36x at 256-4K, 0.95-1.00x at 8K
/// (`docs/bench/0x6-0xa7-bounds-flags-held.txt`).
pub const A7_BOUNDS_WINDOW_IF_FLAGS_HELD_BELOW: usize = 8192;

/// The CPU families whose 512-bit backend has a record: what it serves by default and why.
///
/// - AMD family 0x19 model 0x11 (Zen 4): every native check passed
///   (`docs/bench/native-0x19-0x11-*`, the latest in `native_run`). `recip` (from 256 elements) and
///   `div_rounded` take sixteen lanes by default; `div` and its kin, the `Divisor` and `div_bounds`
///   stay at eight. The sixteen-lane rule for near-all-ones divisors (2^5, not 2^15) changed
///   none of that: with it `div`'s best schedule at sixteen lanes ran 0.99-1.01x the 512-bit loop
///   at 4K-16K, median of nine processes (`docs/bench/native-0x19-0x11-ed90c65/summary.txt`).
///   Its 512-bit divider is no faster per lane than the 256-bit one (the eight-lane divider
///   schedule 1.00-1.01x the 512-bit loop at 256-16K). `div` and its kin lost at sixteen
///   lanes (24 of 248 floor cells under 0.97x, against 1 at eight: the `Divisor` made per row,
///   `div` with 1% specials at 1K), and so did `div_bounds` (0.83-0.97x the eight-lane one on
///   normal data at 64-16K, `docs/bench/0x19-0x11-bounds-step-only-ab.txt`). The two that gained on
///   the benchmarks' cache-line-aligned layouts first lost where users' arrays often are:
///   `div_rounded` (embedded rounding, 1.03-2.15x the eight-lane one at 8-4K,
///   `docs/bench/0x19-0x11-per-entry-rounding-ab.txt`) fell to 0.75-0.92x the plain pass where its
///   output sat 64-192 bytes past an input modulo 4 KiB, 0.34x in one layout at 256 elements (4K
///   aliasing; consecutive allocations of one length sit 16-32 bytes apart), where the eight-lane
///   pass held 0.86-0.98x; `recip` (mix-8, 1.27-1.31x the plain 512-bit loop at 256-64K on the
///   aligned layouts against 1.00-1.01x, `docs/bench/0x19-0x11-per-entry-floors-ab.txt`) ran at
///   0.82-0.98x the eight-lane one at 1K-64K with its arrays 16 bytes past a cache line, as the
///   system allocator places a `Vec<f32>` (`examples/aliasing_by_width.rs`,
///   `docs/bench/0x19-0x11-aliasing-by-width.txt`). With the sixteen-lane loops' head to the
///   output's cache line and the embedded-rounding pass grouped against 4K aliasing both gain on
///   those layouts too (the record's `evidence`, `docs/bench/0x19-0x11-line-head-ab.txt`); below
///   256 elements `recip` runs the eight-lane loops, where sixteen lanes lost on users' layouts
///   (`fmadiv::Plan::recip_eight_lanes_below`, `docs/bench/0x19-0x11-recip-by-length.txt`). Forced
///   to sixteen lanes, its `div_bounds` takes the step at every length (1.46-1.50x two passes at
///   4K-16K, where the passes run at 0.99x: `docs/bench/0x19-0x11-masked-step-ab.txt`). Its
///   eight-lane `div_bounds` takes the head to the lower bounds' vector boundary from 640 elements
///   (`ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM`, with its evidence).
/// - Intel family 6 model 0xcf (Emerald Rapids): every native check passed in each native
///   run (`docs/bench/native-0x6-0xcf-*`, the latest in `native_run`; the first,
///   `native-0x6-0xcf-710bc47`, found its `vrcp14ps` Intel's reference table on all 2^32
///   inputs). Every entry point takes sixteen lanes; `recip` below 1024 elements the eight-lane
///   loops.
///   - Why sixteen lanes: its 512-bit divider is no faster per lane than the 256-bit one on
///     normal data (1.02-1.06x, `docs/bench/0x6-0xcf-wide-divider.txt`), so the gains come from
///     the FMA kernel beside it; on random bit patterns the 512-bit divider is the faster. At
///     eight lanes `div` and its kin ran 0.72-0.89x the plain 512-bit loop on random bits at
///     64-64K and, with the arrays 16 bytes past a cache line (where a `Vec<f32>` lies),
///     0.79-0.99x on normal data at 4K-64K in most runs; at sixteen lanes 0.97-1.02x and
///     1.23-1.38x: 272 of 276 floor cells at 0.97x or above on the aligned layouts against 236
///     (`docs/bench/0x6-0xcf-sixteen-floors-ab.txt`).
///   - `div` and its kin: mix-4, 1.56-1.67x the plain 512-bit loop at 256-64K on normal data on
///     both layouts, where mix-8 ran 1.33-1.50x (`docs/bench/0x6-0xcf-div-mix4-ab.txt`). The price
///     16 bytes past a line: the head to the output's line is one more divider vector where the
///     divider bounds the loop, 0.80x at 64 elements and 0.94x at 256 for them and the `Divisor`
///     (measured before slices under `LINE_HEAD_FROM`, 1024 elements, stopped taking the head; not
///     measured since).
///   - `recip`: mix-4 at sixteen lanes ran 1.26-1.60x the plain 256-bit pass on every layout at
///     256-256K where the eight-lane loops ran 0.86-1.47x (`examples/aliasing_by_width.rs`,
///     `docs/bench/0x6-0xcf-aliasing-by-width.txt`); below 1024 elements the eight-lane loops
///     won with the arrays 16 bytes past a line (`docs/bench/0x6-0xcf-recip-by-length.txt`), and
///     with the short step they reach 1.60x the 512-bit loop at 256
///     (`docs/bench/0x6-0xcf-short-step-ab.txt`).
///   - `div_rounded` (an embedded-rounding pass) ran 0.74-0.99x the plain pass at 8-128 elements
///     where eight lanes ran 0.49-0.82x, the same from 256 (`fmadiv bench --rounding`,
///     `docs/bench/0x6-0xcf-rounding-by-width.txt`).
///   - `div_bounds` ran 0.88-1.80x two divider passes at 8-1K where eight lanes ran 0.75-1.77x,
///     and takes the step at every length: 1.69-1.79x two embedded passes at 4K-16K, where the
///     passes from `TWO_PASSES_FROM` run at 1.00x (`fmadiv bench --rounding`, three alternating
///     processes each); layout by layout 0.53-0.60 of one plain pass at 4K-64K on a line and
///     0.87-0.92 16 bytes past one, where the passes run 0.50 (the eight-lane step 0.58-0.60 and
///     0.39-0.45), but 0.45-0.46 in memory (256K) where the passes ran 0.49-0.59
///     (`docs/bench/0x6-0xcf-bounds-step-only-ab.txt`).
/// - Intel family 6 model 0xa7: Rocket Lake's signature, measured on a KVM guest that reports
///   it with features Rocket Lake lacks (AMX, AVX512-FP16, 480 MiB of L3: a server core).
///   Every native check passed (`docs/bench/native-0x6-0xa7-8ffbbb8`, before the record, its
///   `vrcp14ps` Intel's reference table; `docs/bench/native-0x6-0xa7-0965806`, with the
///   record and `LINE_HEAD_FROM`; `docs/bench/native-0x6-0xa7-feded8a`, with `div_in_place`
///   timed with no copy; `docs/bench/native-0x6-0xa7-778dbce`, with `div_bounds`' window
///   check for held flags; `docs/bench/native-0x6-0xa7-787ac48`, with the `Divisor`'s two
///   products window-checked; `docs/bench/native-0x6-0xa7-139760d`, with the `Divisor` in
///   place from 4096 elements; `docs/bench/native-0x6-0xa7-2972452`, in place from 1024
///   and the window for held flags; `docs/bench/native-0x6-0xa7-6ef5e44`, the latest in
///   `native_run`, `recip`'s eight-lane blocks fixed vector by vector). `div`, its kin, the
///   `Divisor` and the directed functions take sixteen lanes; `recip` keeps eight (the record's
///   `evidence`). Its 512-bit divider is no faster per lane than the 256-bit one on normal
///   data (the eight-lane divider schedule 1.00-1.04x the 512-bit loop at 256-64K,
///   `docs/bench/0x6-0xa7-schedules.txt`) and, as on Emerald Rapids, faster on random bit
///   patterns. Left below the floor: the `Divisor` and `div_scalar` made
///   per row of 256 elements, 0.90-0.93x the 256-bit per-row loop. Where the caller's MXCSR
///   holds the underflow, overflow or invalid flag, `div_bounds` keeps the window check below
///   8K elements (`A7_BOUNDS_WINDOW_IF_FLAGS_HELD_BELOW`, with its evidence). A Rocket Lake
///   desktop has the same signature and was not measured.
pub const AVX512_FAMILIES: &[Avx512Family] = &[
    Avx512Family {
        vendor: "AuthenticAMD",
        family: 0x19,
        model: 0x11,
        native_run: Some("docs/bench/native-0x19-0x11-55efccf"),
        sixteen_lanes_for: &[EntryPoint::Recip, EntryPoint::DivRounded],
        bounds_step_only: true,
        bounds_eight_lane_head_from: Some(ZEN4_BOUNDS_EIGHT_LANE_HEAD_FROM),
        bounds_window_if_flags_held_below: None,
        evidence: "Zen 4: div, the Divisor and div_bounds measured slower at sixteen lanes; \
            recip and div_rounded faster, on the benchmarks' aligned layouts and, with the \
            head to the output's cache line and the embedded-rounding pass grouped against \
            4K aliasing, on users' layouts too (arrays on a line or 16 bytes past one, the \
            output 0-1024 bytes past the divisors modulo 4 KiB, 256-256K elements: recip \
            1.04-1.46x the plain 256-bit pass where eight lanes run 1.00-1.17x, div_rounded \
            0.95-1.12x where they run 0.86-1.01x; docs/bench/0x19-0x11-line-head-ab.txt). \
            Not everywhere: on the floors with every array 16 bytes past a line, recip at 64 \
            elements ran 7.8 G divisions/s where eight lanes ran 9.7, and with 1% specials or \
            random bits at 256 about 4.0 where they ran 5.5 \
            (docs/bench/0x19-0x11-recip-past-line-ab.txt): timed by length, sixteen lanes \
            lost below 256 elements there for every kind of input, so recip runs the \
            eight-lane loops below 256 (the table row's sixteen-lane column, \
            docs/bench/0x19-0x11-recip-by-length.txt). div_bounds at eight lanes from 640 \
            elements begins with the head to the lower bounds' 32-byte boundary: 1.08-1.21x \
            at 700-16K with its arrays 16 bytes past a line, 0.98-1.03x on a line \
            (docs/bench/0x19-0x11-bounds-eight-lane-head.txt)",
    },
    Avx512Family {
        vendor: "GenuineIntel",
        family: 6,
        model: 0xcf,
        native_run: Some("docs/bench/native-0x6-0xcf-434b3fa"),
        sixteen_lanes_for: &EntryPoint::ALL,
        bounds_step_only: true,
        bounds_eight_lane_head_from: None,
        bounds_window_if_flags_held_below: None,
        evidence: "Emerald Rapids: every entry point at sixteen lanes, 272 of 276 floor cells \
            at 0.97x or above on the benchmarks' layouts against 236 at eight (random bit \
            patterns: 0.97-1.02x of the 512-bit loop against 0.72-0.89x), with the arrays 16 \
            bytes past a line div 1.23-1.38x at 4K-64K against 0.79-0.99x in most runs, but \
            0.80x at 64 elements and 0.94x at 256 there (the head to the output's line: one \
            more divider vector; docs/bench/0x6-0xcf-sixteen-floors-ab.txt); recip with mix-4 \
            1.26-1.60x the plain 256-bit pass on every layout at 256-256K against the \
            eight-lane loops' 0.86-1.47x (docs/bench/0x6-0xcf-aliasing-by-width.txt), the \
            eight-lane loops below 1024 elements (docs/bench/0x6-0xcf-recip-by-length.txt); \
            div_rounded and div_bounds at least as fast at sixteen lanes on users' layouts \
            (docs/bench/0x6-0xcf-rounding-by-width.txt), div_bounds with the step at every \
            length 1.69-1.79x two embedded passes at 4K-16K, where the passes gain nothing \
            (docs/bench/0x6-0xcf-bounds-step-only-ab.txt)",
    },
    Avx512Family {
        vendor: "GenuineIntel",
        family: 6,
        model: 0xa7,
        native_run: Some("docs/bench/native-0x6-0xa7-6ef5e44"),
        sixteen_lanes_for: &[
            EntryPoint::Div,
            EntryPoint::DivRounded,
            EntryPoint::DivBounds,
        ],
        bounds_step_only: true,
        bounds_eight_lane_head_from: None,
        bounds_window_if_flags_held_below: Some(A7_BOUNDS_WINDOW_IF_FLAGS_HELD_BELOW),
        evidence: "family 6 model 0xa7 (a KVM guest of that signature): div, its kin and the \
            Divisor at sixteen lanes, 269 of 276 floor cells at 0.97x or above on the \
            benchmarks' layouts and 261 with the arrays 16 bytes past a line, against 239 and \
            239 at eight (random bits: 0.92-1.05x of the 512-bit loop against 0.74-0.96x; \
            docs/bench/0x6-0xa7-sixteen-floors-ab.txt); recip at eight lanes, where sixteen \
            ran 0.97-1.10x the eight-lane speed on normal data but 0.82-0.90x with 1% specials \
            from 1K, 0.89-0.95x on random bits and 0.81-0.84x at 64 elements; div_rounded at \
            least as fast at sixteen lanes (0.77-1.00x one plain pass at 8-128 elements against \
            0.69-0.84x), div_bounds with the step at every length 1.72-1.84x two embedded \
            passes at 256-16K on both layouts, where eight lanes ran 1.28-1.45x at 4K-16K 16 \
            bytes past a line (docs/bench/0x6-0xa7-rounding-by-width.txt); div_bounds keeps \
            the window check below 8K where the caller holds a voiding flag, 1.07-1.80x the \
            chunks that clear and restore it at 512-4K (docs/bench/0x6-0xa7-bounds-flags-held.txt)",
    },
];

/// This CPU's record in `families`, if it has one.
pub(super) fn family_of<'a>(
    cpu: &crate::cpu::Cpu,
    families: &'a [Avx512Family],
) -> Option<&'a Avx512Family> {
    families.iter().find(|f| f.is(cpu))
}

/// This CPU's record in [`AVX512_FAMILIES`], if it has one.
#[must_use]
pub fn avx512_family(cpu: &crate::cpu::Cpu) -> Option<&'static Avx512Family> {
    family_of(cpu, AVX512_FAMILIES)
}

/// How `div_bounds` runs on this CPU ([`BoundsForm`]): two divider passes with embedded
/// rounding from `TWO_PASSES_FROM` elements, or never where its family's record says
/// [`Avx512Family::bounds_step_only`]; at eight lanes the head to the lower bounds' vector
/// boundary from the record's [`Avx512Family::bounds_eight_lane_head_from`], else never;
/// the window check where the caller holds a voiding flag below the record's
/// [`Avx512Family::bounds_window_if_flags_held_below`], else never. Looked up once.
#[cfg(fmadiv_x86)]
#[inline]
pub(crate) fn bounds_form() -> BoundsForm {
    static FORM: std::sync::OnceLock<BoundsForm> = std::sync::OnceLock::new();
    *FORM.get_or_init(|| bounds_form_on(&crate::cpu::Cpu::this(), AVX512_FAMILIES))
}

/// [`bounds_form`] on `cpu`, with the records `families`.
#[cfg(fmadiv_x86)]
pub(super) fn bounds_form_on(cpu: &crate::cpu::Cpu, families: &[Avx512Family]) -> BoundsForm {
    let Some(family) = family_of(cpu, families) else {
        return BoundsForm::DEFAULT;
    };
    BoundsForm {
        two_passes_from: match family.bounds_step_only {
            true => usize::MAX,
            false => BoundsForm::DEFAULT.two_passes_from,
        },
        eight_lane_head_from: family
            .bounds_eight_lane_head_from
            .unwrap_or(BoundsForm::DEFAULT.eight_lane_head_from),
        window_if_flags_held_below: family.bounds_window_if_flags_held_below.unwrap_or(0),
    }
}
