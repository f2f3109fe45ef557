//! The committed table: the schedules each known microarchitecture runs, and the evidence.
//!
//! A row is chosen by the CPU's identity alone (vendor, family, model), so every process on
//! one CPU runs the same plan. Each row says where its choices come from:
//!
//! - **measured**, with the command and the committed output (family 0x19: Zen 3 and Zen 4;
//!   Intel family 6 models 0xcf and 0xa7);
//! - **measured** by 0.3.0's per-process calibration, as recorded in the issue tracker
//!   (family 0x1a: no JSON of that CPU is committed);
//! - **predicted** by `llvm-mca` (`docs/bench/mca-llvm14.md`, `docs/bench/mca-llvm19.md`,
//!   `scripts/mca.sh`), discounted: a predicted gain is taken only where LLVM 14 and LLVM 19
//!   both model the CPU and the smaller of their two predictions for one schedule, divided
//!   by [`PREDICTION_DISCOUNT`], still reaches [`GAIN`].
//!
//! Why the discount: on the two CPUs where both a prediction and a measurement exist,
//! `llvm-mca` over-predicts the mixes — on family 0x19 LLVM 14 `div` `mix-16` 1.16×
//! against a measured 0.97–1.08×, LLVM 19 `recip` `mix-8` 1.47× against 1.03–1.20×; on
//! Intel family 6 model 0xcf LLVM 14 (`sapphirerapids`, the same figures as its `skylake`)
//! `recip` `mix-4` 1.76× against 1.12–1.13× and `div` `mix-8` 1.50× against 1.11–1.13× at 4K
//! (`docs/bench/0x6-0xcf-schedules.json`) — because the kernel's FMAs and `vdivps` overlap
//! less than the models assume. With that discount the predictions for Skylake to Tiger
//! Lake (`div` mix-8 1.50×, `recip` mix-4 1.76×), Zen 2 (`recip` mix-4 1.42–1.97×) and
//! Zen and Zen+ (`recip` mix-8 1.47–1.48×) no longer clear the bar: those CPUs run the
//! divider, as a CPU in no row does. Where the two LLVM
//! versions disagree about a CPU's divider by a large factor (Zen 1 and 2: 17–19 cycles per
//! vector in LLVM 14, 5–6 in LLVM 19; Sapphire Rapids and Alder Lake: 5 and 1), neither is
//! evidence. A CPU in no row runs the divider for `div` and `recip`.
//!
//! The rows' measurements predate one change to the mixed loops: a kernel block failed by a
//! near-all-ones divisor alone no longer sends the next steps to the divider (only a lane
//! outside the window does; `simd::loops`). Where a row chose a mix, that mix beat the
//! divider with up to about half of its steps on the divider alone, so its own steps beat
//! the divider's and running more of them cannot cost it; family 0x19's `recip` `mix-16`
//! was measured again across the change (`docs/bench/0x19-backoff-window-only-ab.txt`),
//! the other rows were not.

use super::{Choices, DivisorChoices};
use crate::Schedule;
use crate::cpu::{Cpu, Vendor};
use crate::schedule::mixed;

/// A predicted ratio is divided by this before it counts: the largest over-prediction
/// measured (LLVM 14, `recip` `mix-4` on Intel family 6 model 0xcf: 1.76× predicted,
/// 1.12–1.13× measured at 4K in two rounds; on family 0x19 the largest is 1.4, LLVM 19's
/// `recip` `mix-8`: 1.47× against 1.03×).
pub const PREDICTION_DISCOUNT: f64 = 1.6;
/// The gain a choice other than the divider must show (measured, or predicted and
/// discounted): 0.3.0's calibration threshold.
pub const GAIN: f64 = 1.10;

/// One microarchitecture's choices.
pub(super) struct Row {
    /// The microarchitecture, as `fmadiv plan` names it.
    pub name: &'static str,
    pub vendor: Vendor,
    pub family: u32,
    /// Inclusive ranges of models.
    pub models: &'static [(u32, u32)],
    pub choices: Choices,
    /// Where the choices come from.
    pub evidence: &'static str,
    /// The choices where the sixteen-lane (AVX-512F) backend runs, and where they come
    /// from (for the entry points its family's record in `dispatch::AVX512_FAMILIES` gives
    /// sixteen lanes, or all where forced); `None`: this family's slice functions and
    /// `Divisor` keep the eight-lane backend by default whatever native evidence arrives
    /// (its directed functions may take sixteen lanes), and a forced sixteen-lane backend
    /// runs [`SIXTEEN_UNMEASURED`].
    pub sixteen: Option<Column>,
}

/// A row's choices for one vector width (its eight-lane ones, or `sixteen`), and where they
/// come from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Column {
    pub choices: Choices,
    /// Where `recip` runs this column by its CPU family's default (not forced), slices
    /// shorter than this run the row's eight-lane choices on the eight-lane backend (0: none
    /// do). Set where the wider loops were measured to lose on short slices.
    pub recip_from: usize,
    pub evidence: &'static str,
}

/// Where nothing was measured at sixteen lanes: the 512-bit divider for `div` and `recip`
/// (the plain loop a native build runs there), the `Divisor` as the row says.
pub(super) const SIXTEEN_UNMEASURED: &str = "the sixteen-lane backend, forced: nothing \
    measured at sixteen lanes for this row, so `div` and `recip` run the 512-bit divider";

impl Row {
    fn matches(&self, cpu: &Cpu) -> bool {
        cpu.vendor() == self.vendor
            && cpu.family() == self.family
            && self
                .models
                .iter()
                .any(|&(lo, hi)| (lo..=hi).contains(&cpu.model()))
    }
}

/// The divider for `div` and `recip`.
const DIVIDER: [Schedule; 2] = [Schedule::Divider; 2];

/// `Divisor`'s sequence from 1024 elements (a first slice from 16384), never in place: as
/// measured on family 0x19 (its row's evidence), and taken where nothing was measured: the
/// two-product sequence replaces one `vdivps` by two FMA-pipe operations, cheaper on every
/// x86 CPU with FMA (the divider's throughput is 2.4 to 14 cycles per vector, two FMAs take
/// one), once a slice is long enough to pay the flag-checked loop's fixed costs; a divisor's
/// first slice makes the proof (about 60 ns) only where it is at most a few per cent
/// of the slice's division. The chunks whatever flags the caller holds: on Zen 3 the window
/// won only at 512 elements, below the sequence's 1024, and the chunks from 2048
/// (`docs/bench/0x19-held-flags.txt`); family 6 model 0xa7's rows take the window below
/// 1024 and 2048.
pub(super) const DIVISOR_DEFAULT: DivisorChoices = DivisorChoices {
    sequence_from: 1024,
    first_proof_from: 16384,
    in_place_from: usize::MAX,
    window_if_flags_held_below: 0,
};

/// `Divisor` where no FMA sequence runs (the portable path): the divider at every length.
pub(super) const DIVISOR_NEVER: DivisorChoices = DivisorChoices {
    sequence_from: usize::MAX,
    first_proof_from: usize::MAX,
    in_place_from: usize::MAX,
    window_if_flags_held_below: 0,
};

/// The plan of a CPU in no row.
pub(super) const FALLBACK: Choices = Choices {
    div: DIVIDER,
    recip: DIVIDER,
    divisor: DIVISOR_DEFAULT,
};

/// `Divisor` on family 0x1a, as 0.3.0's calibration measured it there (at eight lanes; the
/// sixteen-lane column takes it unmeasured).
const ZEN5_DIVISOR: DivisorChoices = DivisorChoices {
    sequence_from: 512,
    first_proof_from: 24576,
    in_place_from: usize::MAX,
    window_if_flags_held_below: 0,
};

/// `Divisor` on Zen 4 (family 0x19 model 0x11's `plan --measure` and `bench --divisors`):
/// the sequence from 2048 elements (at 1024 it lost on data with specials), a first slice
/// from 32768 (a proof of 71-75 ns, twice Zen 3's).
const ZEN4_DIVISOR: DivisorChoices = DivisorChoices {
    sequence_from: 2048,
    first_proof_from: 32768,
    in_place_from: usize::MAX,
    window_if_flags_held_below: 0,
};

/// `Divisor` on Zen 3: the default lengths out of place; in place from 1024 elements, where
/// the window-checked two products (a rejected block to the divider whole) beat the
/// divider in place on every kind of input (`fmadiv bench --floors --only
/// Divisor::divide_in_place` with a plan file setting only this length, six alternating
/// processes, `docs/bench/0x19-divisor-in-place-1k.txt`): at 1K-64K 0.98-1.29x on normal
/// data, 1.02-1.31x with 1% specials, 0.96-1.04x with 50% zeros and 0.97-1.05x on random
/// bits, where the divider in place ran 0.96-1.07x. Below 1024 the window loop in place ran
/// 0.77-0.97x at 256 and 0.85-1.25x at 512 (`examples/divisor_window.rs`,
/// `docs/bench/0x19-divisor-window-zeros.txt`).
const ZEN3_DIVISOR: DivisorChoices = DivisorChoices {
    in_place_from: 1024,
    ..DIVISOR_DEFAULT
};

/// `Divisor` at eight lanes on family 6 model 0xa7: the default lengths, and below 1024
/// elements the window-checked loop where the caller holds a voiding flag
/// (`examples/divisor_window.rs`, three processes, the underflow flag held,
/// docs/bench/0x6-0xa7-divisor-flags-held.txt): at 512 it ran 2.48-2.52x the divider loop on
/// normal data and 0.94-0.96x with 50% zeros, where the flag-checked chunks ran 0.85-0.86x
/// and 0.81-0.82x; at 1K the two tied on normal data and the chunks won with zeros
/// (1.71-1.79x against 0.94x). Below the sequence's 1024 elements that changes nothing
/// unless a plan file lowers it.
const A7_DIVISOR: DivisorChoices = DivisorChoices {
    window_if_flags_held_below: 1024,
    ..DIVISOR_DEFAULT
};

/// `Divisor` at sixteen lanes on family 6 model 0xa7: the default lengths out of place; in
/// place from 1024 elements, where the window-checked two products beat the 512-bit divider
/// in place on every kind of input (`fmadiv bench --floors --only Divisor::divide`, three
/// alternating processes per plan file, docs/bench/0x6-0xa7-divisor-in-place-1k.txt: at 1K
/// 2.22-2.23x on normal data, 1.59-1.60x with 50% zeros, 1.81x with 1% specials, 1.06-1.07x
/// on random bits, where the divider ran 0.99-1.01x; at 256 in place they ran 1.09-1.21x
/// but 0.97x on random bits, so shorter slices keep the divider). Below 2048 elements the
/// window-checked loop where the caller holds a voiding flag (`examples/divisor_window.rs`,
/// the underflow flag held, docs/bench/0x6-0xa7-divisor-flags-held.txt): at 512 and 1K it ran
/// 2.83-3.19x the 512-bit divider loop on normal data and 1.85-1.96x with 50% zeros, where the
/// flag-checked chunks ran 0.80x and 1.42-1.45x; at 2K the chunks won with zeros (2.36-2.37x
/// against 1.92x). `fmadiv plan --measure` chose the same two lengths.
const A7_SIXTEEN_DIVISOR: DivisorChoices = DivisorChoices {
    in_place_from: 1024,
    window_if_flags_held_below: 2048,
    ..DIVISOR_DEFAULT
};

/// `recip` on Zen 4 runs its sixteen-lane choices from 256 elements and the eight-lane row
/// below (`examples/recip_by_length.rs`, eight alternating processes per width,
/// `docs/bench/0x19-0x11-recip-by-length.txt`): with the arrays 16 bytes past a cache line,
/// as the system allocator places a `Vec<f32>`, sixteen lanes ran 0.60-0.94x the eight-lane
/// time at 16-192 elements for every kind of input, 1.04x at 256 on normal data (0.98x with
/// 1% specials, 0.85-0.86x on random bits) and 1.10-1.28x from 384 on normal data.
const ZEN4_RECIP_SIXTEEN_FROM: usize = 256;

/// `recip` on Emerald Rapids runs its sixteen-lane choices from 1024 elements and the
/// eight-lane row below (`examples/recip_by_length.rs`, six alternating processes per loop,
/// `docs/bench/0x6-0xcf-recip-by-length.txt`): sixteen lanes with mix-4 ran 0.68-0.98x the
/// eight-lane time at 16-256 elements with the arrays 16 bytes past a cache line (most kinds
/// of input), 0.99-1.10x at 384-512, and 1.36-1.40x at 1K-2K on normal data there (1.16-1.19x
/// on a line), 0.90-0.97x with 1% specials. Again at b428a42, six alternating processes
/// (`docs/bench/0x6-0xcf-recip-by-length-b428a42.txt`): at 256 elements 0.98-1.05x on normal
/// data, 0.79-0.81x with 1% specials, 0.93-0.95x on random bits; from 384 1.10-1.63x on
/// normal data, 0.78-0.94x with 1% specials.
const EMERALD_RAPIDS_RECIP_SIXTEEN_FROM: usize = 1024;

/// Predicted rows: the Divisor as where nothing was measured.
const fn predicted(div: Schedule, recip: Schedule) -> Choices {
    Choices {
        div: [div, div],
        recip: [recip, recip],
        divisor: DIVISOR_DEFAULT,
    }
}

pub(super) const ROWS: &[Row] = &[
    Row {
        name: "AMD Zen 3",
        vendor: Vendor::Amd,
        family: 0x19,
        models: &[(0x00, 0x0f), (0x20, 0x2f), (0x40, 0x5f)],
        choices: Choices {
            div: DIVIDER,
            recip: [Schedule::Divider, mixed(16)],
            divisor: ZEN3_DIVISOR,
        },
        evidence: "measured on family 0x19 model 0x1: `fmadiv bench --schedules` in six \
            fresh processes and `fmadiv plan --measure` twice \
            (docs/bench/0x19-plan-measured-1.txt, -2.txt): no mix of `div` clears the divider \
            by 10% in L1 or L2 (mix-16 0.93-1.25x, moving between processes); `recip` mix-16 \
            1.07-1.25x of the divider from 4K to 64K in every `--schedules` process (0.96-1.00x \
            at 11K in the two `--measure` runs: the row is the schedules benchmark's), \
            0.8-1.3x at 256-1K; `Divisor`'s sequence 0.73-1.21x at 512, 1.20-1.54x at 1024, \
            1.33-1.98x from 2048; a proof of 34-53 ns pays for itself in a first slice from \
            12,000-19,000 elements (2% of the divider's 0.142 ns per element); in place \
            from 1024: the window-checked two products 0.96-1.31x the divider in place at \
            1K-64K on every kind of input in six `bench --floors` processes \
            (docs/bench/0x19-divisor-in-place-1k.txt; the flag-checked chunks in place had \
            measured 0.73-1.12x, docs/bench/0x19-divisor-in-place.json)",
        sixteen: None,
    },
    Row {
        name: "AMD Zen 4",
        vendor: Vendor::Amd,
        family: 0x19,
        models: &[(0x10, 0x1f), (0x60, 0x7f), (0xa0, 0xaf)],
        choices: Choices {
            div: DIVIDER,
            recip: DIVIDER,
            divisor: ZEN4_DIVISOR,
        },
        evidence: "measured on family 0x19 model 0x11 (AVX-512F hidden from that machine): \
            `fmadiv bench \
            --schedules` in three fresh processes (docs/bench/0x19-0x11-schedules.txt): \
            against the divider schedule `div` mix-16 0.84-1.02x and mix-8 0.67-0.88x from 256 \
            to 64K, `recip` mix-16 1.05-1.10x from 1K to 16K and 0.85-0.89x at 256: no mix \
            clears the divider by 10% (`div` checked again on later loops with AVX-512F \
            exposed, docs/bench/0x19-0x11-div-mix16-recheck.txt: mix-16 1.16-1.19x at 1K with \
            the arrays on a cache line, 1.02x 16 bytes past one, where a `Vec<f32>` lies); `fmadiv plan --measure` twice \
            (docs/bench/0x19-0x11-plan-measured-1.txt, -2.txt): `recip` mix-16 1.32x at 1024 \
            and 1.10-1.17x at 11008 there (the row is the schedules benchmark's, as Zen 3's), \
            `div` no mix above 1.03x; the Divisor's sequence \
            0.76-1.25x at 1024 and 1.14-1.88x from 2048, its proof 71-75 ns against the \
            divider's 0.131-0.133 ns per element (2% of a first slice's division from 32768 \
            elements), in place 0.88x at 4096; `fmadiv bench --divisors` three times \
            (docs/bench/0x19-0x11-divisors.txt): with the sequence from 1024, 1K slices with \
            1% specials or random bits at 0.90-0.97x of the divider (0.96-1.00x at 4K and \
            16K), so the sequence starts at 2048; there (docs/bench/0x19-0x11-divisors-2k.txt, \
            alternating processes whose plan files differ only there) it lost 1-4% with 1% \
            specials while the flag-checked chunks' back-off counted calls (0.96-0.99x, 9 of 18 \
            cells under 0.97), and keeps 0.98-1.02x with the back-off counted in elements \
            (normal data 1.44-1.95x), where 1K still drops to 0.91x; three runs with this row: \
            2K 1.92-1.95x on normal data and 1.01-1.02x with 1% specials, 1K 0.98-1.04x (the \
            divider), 4K 1.96-2.18x and 16K 1.39-1.42x on normal data and 1.00-1.01x with 1% \
            specials; 2K random bits by 3.7 and 3 at 0.92-0.95x, as with the divider on both \
            sides (0.90-0.92x in most runs: the benchmark's two divider loops on that data, \
            paying the divider's microcode assists for its few subnormal lanes where each is \
            placed: docs/bench/0x19-0x11-divider-assists.txt); with the row, `fmadiv bench \
            --floors` in three fresh processes (docs/bench/0x19-0x11-floors*.json): 237-240 \
            of 248 medians at least 0.97x of the plain divider loop doing the same job, the \
            rest divider against divider",
        sixteen: Some(Column {
            choices: Choices {
                div: DIVIDER,
                recip: [mixed(8), mixed(8)],
                divisor: ZEN4_DIVISOR,
            },
            recip_from: ZEN4_RECIP_SIXTEEN_FROM,
            evidence: "measured on family 0x19 model 0x11 with AVX-512F exposed (the native \
                run: docs/bench/native-0x19-0x11-9825303; used where sixteen lanes are \
                forced, see `dispatch::AVX512_FAMILIES`): `fmadiv bench \
                --schedules` against the \
                512-bit divider loop, `recip` mix-8 1.20, 1.28, 1.30, 1.29, 1.29x at 256, 1K, \
                4K, 16K, 64K (best or within 0.03 of it at each), `div` no mix clearing 1.10 \
                but at 1K (mix-8 0.98-1.15x from 256 to 64K, the kernel alone 0.62-0.72x), \
                and none can past L1d: a loop that only multiplies runs 1.01-1.04x the \
                divider loop at 4K-16K (examples/stream_ceiling.rs, \
                docs/bench/0x19-0x11-stream-ceiling.txt); `fmadiv plan --measure`, forced: `recip` mix-8 1.37x at 1024 and 1.27x at \
                11008, the Divisor's sequence 0.73-0.95x at 512, 1.29-1.92x at 2048, a proof \
                of 41 ns: the eight-lane row's Divisor; `fmadiv bench --floors` with these \
                choices (docs/bench/0x19-0x11-sixteen-floors-ab.txt): `recip` 1.24-1.31x of \
                the plain 512-bit loop at 256-64K on normal data; by default (not forced) \
                below 256 elements `recip` runs the eight-lane row, which beat these choices \
                there with the arrays 16 bytes past a cache line for every kind of input \
                (examples/recip_by_length.rs, docs/bench/0x19-0x11-recip-by-length.txt)",
        }),
    },
    Row {
        name: "AMD Zen 5",
        vendor: Vendor::Amd,
        family: 0x1a,
        models: &[(0x00, 0xff)],
        choices: Choices {
            div: DIVIDER,
            recip: DIVIDER,
            divisor: ZEN5_DIVISOR,
        },
        evidence: "measured by 0.3.0's calibration on family 0x1a (20 fresh processes, \
            recorded in the issue tracker): the divider for `div` and `recip` (a 256-bit \
            divider of 2.4 cycles per vector, kernel alone 0.33x), `Divisor`'s sequence from \
            512 elements (one process 1024), its proof paying for itself in a first slice from \
            20,395-23,519 elements; no AVX-512 code yet",
        sixteen: Some(Column {
            choices: Choices {
                div: DIVIDER,
                recip: DIVIDER,
                divisor: ZEN5_DIVISOR,
            },
            recip_from: 0,
            evidence: "reported from family 0x1a in issue 46 (not measured here): a `vdivps \
                zmm` loop 1.8-2.0x the `ymm` loop at 256-4K and 1.2-1.6x at 16K-64K; a \
                16-lane FMA-kernel sketch 0.6x the 512-bit divider, and mixes of one divider \
                vector with 1-4 kernel vectors 0.81-1.0x at 1K-4K: the divider is the limit \
                there, so `div` and `recip` run the 512-bit divider; the `Divisor` as at 8 \
                lanes (unmeasured at 16)",
        }),
    },
    Row {
        name: "Intel Emerald Rapids",
        vendor: Vendor::Intel,
        family: 6,
        models: &[(0xcf, 0xcf)],
        choices: Choices {
            div: [mixed(8), mixed(8)],
            recip: [mixed(8), mixed(4)],
            divisor: DIVISOR_DEFAULT,
        },
        evidence: "measured on family 6 model 0xcf (16 cores): `fmadiv bench --schedules` \
            (docs/bench/0x6-0xcf-schedules-8a0f08e.json): mix-8 1.33, 1.45, 1.23, 1.16, 1.19x of \
            the divider at 256, 1K, 4K, 16K, 64K for div and recip, best or within 0.1 of the best \
            at each size; `fmadiv bench --floors` alternating with the row before (the divider \
            below 4096; docs/bench/0x6-0xcf-floors-mix8-ab.txt): this row 1.30-1.45x at 256-1K on \
            normal data (div_in_place 1.18-1.29x) against 1.00x, recip 1.15x at 256 with 1% \
            specials (an earlier binary's mixes lost up to 0.68x there), 246 and 240 of 248 cell \
            medians at 0.97x or above in two batches of runs (the row before 247 in both; below: \
            1% specials at 256, 0.93-0.97x, and in one batch div_in_place with 50% zeros at 256, \
            0.90x); recip mix-8 at 16K-64K 1.15-1.19x against mix-4's 1.21-1.24x, and `plan \
            --measure` in three processes (0x6-0xcf-plan-measured-*.txt) div mix-8 1.18-1.23x, \
            recip mix-4 1.24-1.45x at 2K and 16K; `Divisor`: as where nothing was measured \
            (sequence 1.19-1.51x at 1024, proof 40-54 ns), against the broadcast loop 1.33-4.06x \
            on normal data at 1K-16K in 40 processes (0x6-0xcf-divisors*.json)",
        sixteen: Some(Column {
            choices: Choices {
                div: [mixed(4), mixed(4)],
                recip: [mixed(4), mixed(4)],
                divisor: DIVISOR_DEFAULT,
            },
            recip_from: EMERALD_RAPIDS_RECIP_SIXTEEN_FROM,
            evidence: "measured on family 6 model 0xcf with AVX-512F (2 vCPUs): `fmadiv bench \
                --schedules`, forced, against the 512-bit divider loop, ten processes of the \
                native run docs/bench/native-0x6-0xcf-d26c38b: `div` mix-4 1.53, 1.63, 1.66, \
                1.64, 1.65x at 256, 1K, 4K, 16K, 64K (the best at each; mix-8 1.33-1.50x, the \
                kernel alone 1.08-1.12x), `recip` mix-4 1.80-1.85x (mix-2 1.76-1.91x); \
                `fmadiv bench --floors`, three alternating rounds of div mix-4 against mix-8 \
                (docs/bench/0x6-0xcf-div-mix4-ab.txt): `div`, `try_div` and `par_div` \
                1.57-1.67x the plain 512-bit loop on normal data at 256-64K against \
                1.33-1.50x, 1.56-1.67x with the arrays 16 bytes past a line, the other inputs \
                and entry points level (271 of 276 cell medians at 0.97x or above in both); \
                earlier (the native run docs/bench/native-0x6-0xcf-710bc47) `fmadiv bench \
                --floors` with this column (`div` mix-8 then) against the eight-lane row \
                (docs/bench/0x6-0xcf-sixteen-floors-ab.txt, six alternating rounds): `div` \
                1.23-1.38x the plain 512-bit loop on normal data at 256-64K on every layout \
                where the eight-lane mix-8 ran 0.79-1.46x, and 0.97-1.02x on random bits where \
                it ran 0.72-0.89x; examples/aliasing_by_width.rs, alternating processes \
                (docs/bench/0x6-0xcf-aliasing-by-width.txt): `recip` at sixteen lanes with \
                mix-4 1.26-1.60x of the plain 256-bit pass at 256-256K on every layout, where \
                the eight-lane row ran 0.86-1.47x (0.86-0.94x at 16K-64K with the arrays 16 \
                bytes past a cache line); below 1024 elements `recip` runs the eight-lane row \
                (docs/bench/0x6-0xcf-recip-by-length.txt)",
        }),
    },
    Row {
        name: "Intel family 6 model 0xa7",
        vendor: Vendor::Intel,
        family: 6,
        models: &[(0xa7, 0xa7)],
        choices: Choices {
            div: [mixed(8), mixed(8)],
            recip: [mixed(4), mixed(4)],
            divisor: A7_DIVISOR,
        },
        evidence: "measured on family 6 model 0xa7, stepping 1 (Rocket Lake's signature, on a \
            KVM guest whose features Rocket Lake lacks: AMX, AVX512-FP16, 480 MiB of L3; 2 \
            vCPUs): `fmadiv bench --schedules` in three processes \
            (docs/bench/0x6-0xa7-schedules.txt): against the 512-bit divider loop `div` mix-8 \
            1.34-1.46x at 256-64K (the best at each; mix-4 1.31-1.43x), `recip` mix-4 \
            1.54-1.63x (the best at each); the `Divisor` (`fmadiv plan --measure`, two \
            processes, docs/bench/0x6-0xa7-plan-measure.txt): its two products 2.20-3.08x \
            the divider loop at 512 elements with the caller's flags clear but 0.79-0.86x \
            with its underflow flag set, 2.31-3.57x and 1.23-2.50x at 1K, a 36-40 ns \
            proof: the default lengths (sequence from 1024, a first slice from 16384; in \
            place 1.65-1.69x at 4K on normal data, not taken at this width, which `div` \
            does not run here by default); below 1024 the window where the caller holds a \
            voiding flag (docs/bench/0x6-0xa7-divisor-flags-held.txt)",
        sixteen: Some(Column {
            choices: Choices {
                div: [mixed(4), mixed(4)],
                recip: [mixed(2), mixed(2)],
                divisor: A7_SIXTEEN_DIVISOR,
            },
            recip_from: 0,
            evidence: "measured on family 6 model 0xa7 with AVX-512F (the native run \
                docs/bench/native-0x6-0xa7-8ffbbb8): `fmadiv bench --schedules`, forced, in \
                three processes against the 512-bit divider loop \
                (docs/bench/0x6-0xa7-schedules.txt): `div` mix-4 1.33-1.50x at 256-64K (best \
                or within 0.03 of it at each: mix-2 1.51x at 256), `recip` mix-2 1.56-1.75x \
                (best or within 0.03: mix-1 1.59x at 2K; mix-4 1.49-1.74x); the `Divisor` \
                at sixteen lanes (`fmadiv plan --measure`, forced, two processes, \
                docs/bench/0x6-0xa7-plan-measure.txt): its two products 2.95-3.60x the \
                512-bit divider loop at 512 elements with the caller's flags clear but \
                0.80-0.91x with its underflow flag set (docs/bench/0x6-0xa7-dirty-flags.txt: \
                the flag-checked chunks clear and restore the flags, 60-75 ns a call), \
                3.56-4.48x and 1.40-1.59x at 1K: the default lengths (sequence from 1024, a \
                first slice from 16384); in place from 1024, the window-checked two \
                products 1.64-2.26x the 512-bit divider in place at 1K-64K on normal data, \
                1.43-1.60x with 50% zeros, 1.44-1.81x with 1% specials \
                (docs/bench/0x6-0xa7-divisor-in-place-1k.txt); below 2048 the window where \
                the caller holds a voiding flag (docs/bench/0x6-0xa7-divisor-flags-held.txt)",
        }),
    },
    Row {
        name: "Intel Haswell",
        vendor: Vendor::Intel,
        family: 6,
        models: &[(0x3c, 0x3c), (0x3f, 0x3f), (0x45, 0x46)],
        choices: predicted(mixed(2), mixed(2)),
        evidence: "predicted (docs/bench/mca-llvm14.md, mca-llvm19.md): div mix-2 2.57x and \
            2.57x, recip mix-2 2.89x and 2.89x of the divider (14 cycles per vector); \
            discounted by 1.6: 1.61x and 1.81x",
        sixteen: None,
    },
    Row {
        name: "Intel Broadwell",
        vendor: Vendor::Intel,
        family: 6,
        models: &[(0x3d, 0x3d), (0x47, 0x47), (0x4f, 0x4f), (0x56, 0x56)],
        choices: predicted(mixed(4), mixed(2)),
        evidence: "predicted (docs/bench/mca-llvm14.md, mca-llvm19.md): div mix-4 1.90x and \
            1.90x, recip mix-2 2.34x and 2.34x of the divider (10 cycles per vector); \
            discounted by 1.6: 1.19x and 1.46x",
        sixteen: None,
    },
];

/// The row for `cpu`, if any.
pub(super) fn row_of(cpu: &Cpu) -> Option<&'static Row> {
    ROWS.iter().find(|row| row.matches(cpu))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_do_not_overlap_and_predicted_gains_clear_the_bar() {
        for (i, a) in ROWS.iter().enumerate() {
            for b in &ROWS[i + 1..] {
                let overlap = a.vendor == b.vendor
                    && a.family == b.family
                    && a.models
                        .iter()
                        .any(|&(lo, hi)| b.models.iter().any(|&(l, h)| lo <= h && l <= hi));
                assert!(!overlap, "{} and {} share a model", a.name, b.name);
            }
            for &(lo, hi) in a.models {
                assert!(lo <= hi, "{}", a.name);
            }
            assert!(!a.evidence.is_empty());
        }
        // A family whose record gives `div` or `recip` sixteen lanes has a row with
        // sixteen-lane choices for them to run.
        use crate::dispatch::{AVX512_FAMILIES, EntryPoint};
        for f in AVX512_FAMILIES {
            let cpu = Cpu::described(f.vendor, (f.family, f.model), true, true);
            let slices = [EntryPoint::Div, EntryPoint::Recip];
            let serves_slices = slices.iter().any(|e| f.sixteen_lanes_for.contains(e));
            assert!(
                !serves_slices || row_of(&cpu).is_some_and(|r| r.sixteen.is_some()),
                "{}/{:#x}/{:#x}: sixteen lanes for {:?}, and no sixteen-lane column",
                f.vendor,
                f.family,
                f.model,
                f.sixteen_lanes_for
            );
        }
        // The lowest prediction a row takes (Broadwell's div mix-4, 1.90x) clears the bar.
        const { assert!((1.90 / PREDICTION_DISCOUNT) >= GAIN) };
    }

    #[test]
    fn each_measured_cpu_finds_its_row() {
        let name = |vendor, family_model| {
            row_of(&Cpu::described(vendor, family_model, true, false)).map(|r| r.name)
        };
        let amd = "AuthenticAMD";
        // The CPUs the rows' measurements ran on, and a client part of each AMD core.
        for (family_model, want) in [
            ((0x19, 0x01), "AMD Zen 3"),
            ((0x19, 0x21), "AMD Zen 3"),
            ((0x19, 0x11), "AMD Zen 4"),
            ((0x19, 0x61), "AMD Zen 4"),
            ((0x1a, 0x02), "AMD Zen 5"),
        ] {
            assert_eq!(name(amd, family_model), Some(want), "{family_model:x?}");
        }
        assert_eq!(
            name("GenuineIntel", (6, 0xcf)),
            Some("Intel Emerald Rapids")
        );
        assert_eq!(
            name("GenuineIntel", (6, 0xa7)),
            Some("Intel family 6 model 0xa7")
        );
        // Family 0x19 past the models named (Zen 3's and Zen 4's ranges): no row.
        assert_eq!(name(amd, (0x19, 0xb0)), None);
        assert_eq!(name("GenuineIntel", (0x19, 0x11)), None);
    }
}
