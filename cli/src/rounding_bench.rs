//! `fmadiv bench --rounding`: the directed functions against the ways x86 code gets the same
//! bits by setting MXCSR, and what the rounding-mode guard costs the entry points it sits in.
//!
//! Baselines (written here, independent of the library): a divider pass inside one
//! MXCSR-set region (`ldmxcsr` once, `vdivps` over the slice, restore), two such passes for
//! both bounds, and the per-vector approach (set, divide, restore for every vector). Every
//! comparison runs alternately in one process over buffers whose relative offsets rotate
//! (as `bench --floors` does); bits are checked against the hardware first. The guard's
//! rows call the guarded and the unguarded entry point by one call path
//! (`verify::run_entry`): with the guarded one called through `verify::run_schedule`, the
//! comparison measured 0.83 at 64 elements with the probe replaced by a constant as well,
//! which was the path's cost, not the guard's.

use std::hint::black_box;
use std::time::Instant;

use fmadiv::verify::{DirectedStep, Kernel};
use fmadiv::{Divisor, Rounding, Schedule};
use fmadiv_verify::methods;
use fmadiv_verify::samples::{Layouts, SplitMix64};
use serde::Serialize;

/// One comparison at one size.
#[derive(Serialize)]
pub struct Row {
    pub method: &'static str,
    pub baseline: &'static str,
    pub size: usize,
    /// Median over rounds of the baseline's time over the method's (higher is faster).
    pub vs_baseline: f64,
    /// A 95% interval of that median (sign test).
    pub vs_baseline_low: f64,
    pub vs_baseline_high: f64,
    pub rounds: usize,
}

/// A timed job: reads the first two arrays, writes the last two.
type Job = Box<dyn Fn(&[f32], &[f32], &mut [f32], &mut [f32])>;

const ROUNDS: usize = 41;
const SAMPLE_SECONDS: f64 = 100e-6;
/// The sizes: in L1 (8 to 1K: where a call's fixed costs, such as MXCSR writes, show) and
/// in L2 (4K: three arrays of 16 KiB; 16K).
pub const SIZES: [usize; 10] = [8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384];

/// `div_bounds` from the quotients of these schedules (`verify::div_bounds_from_schedule_on`):
/// the kernel alone and the mixes of one divider vector per two kernel vectors to two per
/// one (the range where a sixteen-lane sketch of the mixes beat the 512-bit divider on
/// Intel family 6 model 0xcf, issue 47).
const FROM_SCHEDULE_BOUNDS: [(&str, &str); 4] = [
    ("div_bounds from kernel quotients", "kernel"),
    ("div_bounds from mix-2 quotients", "mix-2"),
    ("div_bounds from mix-4 quotients", "mix-4"),
    ("div_bounds from mix-8 quotients", "mix-8"),
];
/// `div_rounded` (down) from the quotients of these schedules.
const FROM_SCHEDULE_DOWN: [(&str, &str); 2] = [
    ("div_rounded (down) from kernel quotients", "kernel"),
    ("div_rounded (down) from mix-4 quotients", "mix-4"),
];

/// MXCSR's rounding-control field.
const RC: u32 = 0b11 << 13;

/// The control words the baselines load with `ldmxcsr`, on a cache line of their own.
#[repr(align(64))]
struct Words([u32; 16]);

/// One `vdivps` pass over the slice with MXCSR's rounding field set to `mode` once, inside
/// one `asm!` block (whole vectors; the sizes measured are multiples of 8).
#[target_feature(enable = "avx")]
fn region_pass(a: &[f32], b: &[f32], out: &mut [f32], mode: Rounding) {
    assert!(
        a.len() == b.len()
            && b.len() == out.len()
            && out.len().is_multiple_of(8)
            && !out.is_empty()
    );
    let mut words = Words([0; 16]);
    let [saved, set, ..] = &mut words.0;
    // SAFETY: whole vectors of three slices of the same length; MXCSR read, set and
    // restored inside the block.
    unsafe {
        core::arch::asm!(
            fmadiv_verify::under_rounding!(
                "v";
                // At the start of a 64-byte line, where the loop runs fastest on family 0x19
                // (a fifth faster than across a line: `examples/code_placement`).
                ".p2align 6",
                "2:",
                "vmovups {x}, [{a}]",
                "vdivps {x}, {x}, [{b}]",
                "vmovups [{o}], {x}",
                "add {a}, 32",
                "add {b}, 32",
                "add {o}, 32",
                "dec {n}",
                "jnz 2b",
            ),
            saved = in(reg) saved,
            set = in(reg) set,
            tmp = out(reg) _,
            keep = const !RC,
            rc = in(reg) u32::from(mode.control()) << 13,
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            o = inout(reg) out.as_mut_ptr() => _,
            n = inout(reg) out.len() / 8 => _,
            x = out(ymm_reg) _,
            options(nostack),
        );
    }
}

/// One `vdivps zmm` pass with embedded rounding (`R`: an `_MM_FROUND_TO_*` constant with
/// `_MM_FROUND_NO_EXC`): the direction in the instruction, MXCSR untouched, no flag raised,
/// the tail masked. What AVX-512 code in a chosen direction is written as.
#[target_feature(enable = "avx512f")]
fn embedded_pass<const R: i32>(a: &[f32], b: &[f32], out: &mut [f32]) {
    use core::arch::x86_64::*;
    assert!(a.len() == b.len() && b.len() == out.len());
    let n = out.len();
    let mut i = 0;
    while i < n {
        let lanes = (n - i).min(16);
        let m = ((1u32 << lanes) - 1) as __mmask16;
        // SAFETY: masked accesses to the `lanes` elements from i, inside the three slices.
        unsafe {
            let q = _mm512_div_round_ps::<R>(
                _mm512_maskz_loadu_ps(m, a.as_ptr().add(i)),
                _mm512_maskz_loadu_ps(m, b.as_ptr().add(i)),
            );
            _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), m, q);
        }
        i += lanes;
    }
}

/// Round-down and round-up by embedded rounding.
const EMBEDDED_DOWN: i32 =
    core::arch::x86_64::_MM_FROUND_TO_NEG_INF | core::arch::x86_64::_MM_FROUND_NO_EXC;
const EMBEDDED_UP: i32 =
    core::arch::x86_64::_MM_FROUND_TO_POS_INF | core::arch::x86_64::_MM_FROUND_NO_EXC;

/// The per-vector approach: for every vector, set the mode, divide, restore (both bounds:
/// set down, divide, set up, divide, restore).
#[target_feature(enable = "avx")]
fn per_vector(a: &[f32], b: &[f32], lo: &mut [f32], hi: Option<&mut [f32]>, mode: Rounding) {
    assert!(
        a.len() == b.len() && b.len() == lo.len() && lo.len().is_multiple_of(8) && !lo.is_empty()
    );
    let mut words = Words([0; 16]);
    let [saved, first, second, ..] = &mut words.0;
    // SAFETY: stores MXCSR to a local.
    unsafe { core::arch::asm!("vstmxcsr [{}]", in(reg) &mut *saved, options(nostack)) };
    let word = |m: Rounding| (*saved & !RC) | u32::from(m.control()) << 13;
    (*first, *second) = (word(mode), word(Rounding::Up));
    let (saved, first, second) = (&*saved, &*first, &*second);
    let hi_ptr = hi.map(|h| {
        assert_eq!(h.len(), lo.len());
        h.as_mut_ptr()
    });
    for k in 0..lo.len() / 8 {
        // SAFETY: vector k of every slice is inside it; each block sets MXCSR and puts it
        // back before it ends.
        unsafe {
            let (x, y, o) = (
                a.as_ptr().add(8 * k),
                b.as_ptr().add(8 * k),
                lo.as_mut_ptr().add(8 * k),
            );
            match hi_ptr {
                None => core::arch::asm!(
                    "vldmxcsr [{m}]",
                    "vmovups {t}, [{x}]",
                    "vdivps {t}, {t}, [{y}]",
                    "vldmxcsr [{s}]",
                    "vmovups [{o}], {t}",
                    m = in(reg) first, s = in(reg) saved, x = in(reg) x, y = in(reg) y,
                    o = in(reg) o, t = out(ymm_reg) _, options(nostack),
                ),
                Some(h) => core::arch::asm!(
                    "vmovups {u}, [{x}]",
                    "vmovups {w}, [{y}]",
                    "vldmxcsr [{m}]",
                    "vdivps {t}, {u}, {w}",
                    "vldmxcsr [{m2}]",
                    "vdivps {u}, {u}, {w}",
                    "vldmxcsr [{s}]",
                    "vmovups [{o}], {t}",
                    "vmovups [{h}], {u}",
                    m = in(reg) first, m2 = in(reg) second, s = in(reg) saved,
                    x = in(reg) x, y = in(reg) y, o = in(reg) o, h = in(reg) h.add(8 * k),
                    t = out(ymm_reg) _, u = out(ymm_reg) _, w = out(ymm_reg) _,
                    options(nostack),
                ),
            }
        }
    }
}

/// Where the second output (`div_bounds`' upper bounds) starts in its buffer, in floats, for
/// each of the layouts the rounds rotate through: cache-line aligned and different modulo
/// 4 KiB, so that it meets the other three arrays at a different offset in each, as they
/// meet each other.
const HI_OFFSETS: [usize; 4] = [0, 400, 144, 656];

/// The second output of `n` floats at every offset of [`HI_OFFSETS`], each `past` floats
/// past a cache line's start as the other arrays are (`--past-line`).
struct HiOutputs {
    buffer: Vec<f32>,
    n: usize,
    past: usize,
}

impl HiOutputs {
    fn new(n: usize, past_line_bytes: usize) -> HiOutputs {
        let room = n + HI_OFFSETS.iter().max().unwrap_or(&0) + 32;
        let buffer = vec![0.0f32; room];
        let past = past_line_bytes / 4;
        HiOutputs { buffer, n, past }
    }

    /// The second output of layout `k`.
    fn of(&mut self, k: usize) -> &mut [f32] {
        let line = self.buffer.as_ptr().align_offset(64).min(15);
        let at = line + self.past + HI_OFFSETS[k % HI_OFFSETS.len()];
        &mut self.buffer[at..][..self.n]
    }
}

/// Measures `method` against `baseline` at `n` elements.
fn compare(
    method: (&'static str, &Job),
    baseline: (&'static str, &Job),
    n: usize,
    layouts: &mut Layouts,
    hi_outputs: &mut HiOutputs,
) -> Row {
    let calls = {
        let (a, b, out) = layouts.arrays(0);
        let hi = hi_outputs.of(0);
        (baseline.1)(a, b, out, hi);
        let t = Instant::now();
        for _ in 0..8 {
            (baseline.1)(black_box(a), b, black_box(&mut *out), black_box(&mut *hi));
        }
        ((SAMPLE_SECONDS / (t.elapsed().as_secs_f64() / 8.0).max(1e-9)) as usize).clamp(1, 1 << 16)
    };
    let mut time = |job: &Job, k: usize| {
        let (a, b, out) = layouts.arrays(k);
        let hi = hi_outputs.of(k);
        let t = Instant::now();
        for _ in 0..calls {
            job(black_box(a), b, black_box(&mut *out), black_box(&mut *hi));
        }
        t.elapsed().as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|k| {
            if k % 2 == 0 {
                let tb = time(baseline.1, k);
                tb / time(method.1, k).max(1e-12)
            } else {
                let tm = time(method.1, k).max(1e-12);
                time(baseline.1, k) / tm
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let k = ((ROUNDS as f64 - 1.96 * (ROUNDS as f64).sqrt()) / 2.0).floor() as usize;
    Row {
        method: method.0,
        baseline: baseline.0,
        size: n,
        vs_baseline: ratios[ROUNDS / 2],
        vs_baseline_low: ratios[k],
        vs_baseline_high: ratios[ROUNDS - 1 - k],
        rounds: ROUNDS,
    }
}

/// Checks that `job`'s first output (and second, where `second` is given) has the bits of
/// `vdivps` under `mode` (and `second`).
fn check(
    name: &str,
    job: &Job,
    a: &[f32],
    b: &[f32],
    mode: Rounding,
    second: Option<Rounding>,
) -> Result<(), String> {
    let n = a.len();
    let (mut x, mut y) = (vec![0.0f32; n], vec![0.0f32; n]);
    job(a, b, &mut x, &mut y);
    let mut want = vec![0.0f32; n];
    for (got, m) in [(Some(&x), Some(mode)), (second.map(|_| &y), second)] {
        if let (Some(got), Some(m)) = (got, m) {
            // SAFETY: AVX (run checks the AVX2+FMA backend before any check).
            unsafe { region_pass(a, b, &mut want, m) };
            if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
                return Err(format!("{name} is not exact at {i} ({m})"));
            }
        }
    }
    Ok(())
}

/// Every comparison at every size, every array `past_line` bytes past a cache line's start
/// (0: on one).
pub fn run(past_line: usize) -> Result<Vec<Row>, String> {
    if fmadiv::backend() == fmadiv::Backend::Portable || !fmadiv::Cpu::this().has_avx2_fma() {
        return Err("the rounding benchmark needs AVX2+FMA".into());
    }
    let mix16 = Schedule::from_name("mix-16").expect("a schedule");
    let d = std::rc::Rc::new(Divisor::new(3.7));
    let d2 = d.clone();
    let jobs: Vec<(&'static str, Job)> = vec![
        ("div_bounds", Box::new(fmadiv::div_bounds)),
        (
            "two divider passes in an MXCSR region (down, up)",
            Box::new(|a, b, lo, hi| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe {
                    region_pass(a, b, lo, Rounding::Down);
                    region_pass(a, b, hi, Rounding::Up);
                }
            }),
        ),
        // The plain `_mm256_div_ps` loop of every other ratio, MXCSR untouched: what a region
        // pass costs at best, without its control-word writes (whose cost moved with this
        // binary's code placement; BENCHMARKS, "Directed rounding").
        (
            "two divider passes, MXCSR untouched",
            Box::new(|a, b, lo, hi| {
                (methods::HARDWARE.run)(a, b, lo);
                (methods::HARDWARE.run)(a, b, hi);
            }),
        ),
        (
            "one divider pass, MXCSR untouched",
            Box::new(|a, b, o, _| (methods::HARDWARE.run)(a, b, o)),
        ),
        (
            "per-vector ldmxcsr, both bounds",
            Box::new(|a, b, lo, hi| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe { per_vector(a, b, lo, Some(hi), Rounding::Down) }
            }),
        ),
        (
            "div_rounded (down)",
            Box::new(|a, b, o, _| fmadiv::div_rounded(a, b, o, Rounding::Down)),
        ),
        (
            "one divider pass in an MXCSR region (down)",
            Box::new(|a, b, o, _| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe { region_pass(a, b, o, Rounding::Down) }
            }),
        ),
        (
            "div_rounded (up)",
            Box::new(|a, b, o, _| fmadiv::div_rounded(a, b, o, Rounding::Up)),
        ),
        (
            "one divider pass in an MXCSR region (up)",
            Box::new(|a, b, o, _| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe { region_pass(a, b, o, Rounding::Up) }
            }),
        ),
        (
            "div_rounded (toward zero)",
            Box::new(|a, b, o, _| fmadiv::div_rounded(a, b, o, Rounding::TowardZero)),
        ),
        (
            "one divider pass in an MXCSR region (toward zero)",
            Box::new(|a, b, o, _| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe { region_pass(a, b, o, Rounding::TowardZero) }
            }),
        ),
        (
            "per-vector ldmxcsr (down)",
            Box::new(|a, b, o, _| {
                // SAFETY: AVX (run checks the AVX2+FMA backend first).
                unsafe { per_vector(a, b, o, None, Rounding::Down) }
            }),
        ),
        (
            "div mix-16, guarded",
            Box::new(move |a, b, o, _| {
                fmadiv::verify::run_entry(mix16, true, a, b, o);
            }),
        ),
        (
            "div mix-16, unguarded",
            Box::new(move |a, b, o, _| {
                fmadiv::verify::run_entry(mix16, false, a, b, o);
            }),
        ),
        (
            "div kernel, guarded",
            Box::new(move |a, b, o, _| {
                fmadiv::verify::run_entry(Schedule::Kernel, true, a, b, o);
            }),
        ),
        (
            "div kernel, unguarded",
            Box::new(move |a, b, o, _| {
                fmadiv::verify::run_entry(Schedule::Kernel, false, a, b, o);
            }),
        ),
        (
            "Divisor(3.7)::divide_slice, guarded",
            Box::new(move |a, _, o, _| d.divide_slice(a, o)),
        ),
        (
            "Divisor(3.7) sequence, unguarded",
            Box::new(move |a, _, o, _| fmadiv::verify::divisor::divide_slice_by(&d2, true, a, o)),
        ),
    ];
    // Directed rounding from the kernel's and the mixes' quotients (measured before any
    // plan chooses it), on the backends of `div_bounds` and `div_rounded`.
    let mut jobs = jobs;
    for (name, schedule) in FROM_SCHEDULE_BOUNDS {
        let s = Schedule::from_name(schedule).expect("a schedule");
        jobs.push((
            name,
            Box::new(move |a, b, lo, hi| {
                let (backend, kernel, step) = (
                    fmadiv::backend_of(fmadiv::EntryPoint::DivBounds),
                    Kernel::Shipped,
                    DirectedStep::Shipped,
                );
                fmadiv::verify::div_bounds_from_schedule_on(backend, s, kernel, step, a, b, lo, hi);
            }),
        ));
    }
    for (name, schedule) in FROM_SCHEDULE_DOWN {
        let s = Schedule::from_name(schedule).expect("a schedule");
        jobs.push((
            name,
            Box::new(move |a, b, o, _| {
                let backend = fmadiv::backend_of(fmadiv::EntryPoint::DivRounded);
                fmadiv::verify::div_rounded_from_schedule_on(backend, s, a, b, o, Rounding::Down);
            }),
        ));
    }
    // Where AVX-512F exists: what a user writes there, embedded-rounding passes.
    let avx512 = fmadiv_verify::widest::has_avx512f();
    if avx512 {
        jobs.push((
            "one embedded-rounding pass, zmm {rd-sae}",
            Box::new(|a, b, o, _| {
                // SAFETY: AVX-512F (checked above).
                unsafe { embedded_pass::<EMBEDDED_DOWN>(a, b, o) }
            }),
        ));
        jobs.push((
            "two embedded-rounding passes, zmm {rd,ru-sae}",
            Box::new(|a, b, lo, hi| {
                // SAFETY: AVX-512F (checked above).
                unsafe {
                    embedded_pass::<EMBEDDED_DOWN>(a, b, lo);
                    embedded_pass::<EMBEDDED_UP>(a, b, hi);
                }
            }),
        ));
    }
    let job = |name: &str| &jobs.iter().find(|(n, _)| *n == name).expect("a job").1;
    let pairs = [
        (
            "div_bounds",
            "two divider passes in an MXCSR region (down, up)",
        ),
        ("div_bounds", "two divider passes, MXCSR untouched"),
        ("div_bounds", "per-vector ldmxcsr, both bounds"),
        (
            "div_rounded (down)",
            "one divider pass in an MXCSR region (down)",
        ),
        ("div_rounded (down)", "one divider pass, MXCSR untouched"),
        ("div_rounded (down)", "per-vector ldmxcsr (down)"),
        (
            "div_rounded (up)",
            "one divider pass in an MXCSR region (up)",
        ),
        (
            "div_rounded (toward zero)",
            "one divider pass in an MXCSR region (toward zero)",
        ),
        (
            "div_rounded (toward zero)",
            "one divider pass, MXCSR untouched",
        ),
        ("div mix-16, guarded", "div mix-16, unguarded"),
        ("div kernel, guarded", "div kernel, unguarded"),
        (
            "Divisor(3.7)::divide_slice, guarded",
            "Divisor(3.7) sequence, unguarded",
        ),
    ];
    let mut pairs = pairs.to_vec();
    pairs.extend(FROM_SCHEDULE_BOUNDS.map(|(name, _)| (name, "div_bounds")));
    pairs.extend(FROM_SCHEDULE_DOWN.map(|(name, _)| (name, "div_rounded (down)")));
    if avx512 {
        for (name, _) in FROM_SCHEDULE_BOUNDS {
            pairs.push((name, "two embedded-rounding passes, zmm {rd,ru-sae}"));
        }
        pairs.push((
            "div_bounds",
            "two embedded-rounding passes, zmm {rd,ru-sae}",
        ));
        pairs.push((
            "div_rounded (down)",
            "one embedded-rounding pass, zmm {rd-sae}",
        ));
    }
    let mut rng = SplitMix64(0x0d1e_c7ed);
    let mut rows = Vec::new();
    for n in SIZES {
        let mut inputs = || (0..n).map(|_| rng.next_normal()).collect::<Vec<f32>>();
        let mut layouts = Layouts::past_line(inputs(), inputs(), past_line);
        let mut hi = HiOutputs::new(n, past_line);
        {
            let (a, b, _) = layouts.arrays(0);
            let (a, b) = (a.to_vec(), b.to_vec());
            check(
                "div_bounds",
                job("div_bounds"),
                &a,
                &b,
                Rounding::Down,
                Some(Rounding::Up),
            )?;
            check(
                "per-vector bounds",
                job("per-vector ldmxcsr, both bounds"),
                &a,
                &b,
                Rounding::Down,
                Some(Rounding::Up),
            )?;
            check(
                "div_rounded",
                job("div_rounded (down)"),
                &a,
                &b,
                Rounding::Down,
                None,
            )?;
            for (name, mode) in [
                ("div_rounded (up)", Rounding::Up),
                ("div_rounded (toward zero)", Rounding::TowardZero),
            ] {
                check(name, job(name), &a, &b, mode, None)?;
            }
            check(
                "per-vector",
                job("per-vector ldmxcsr (down)"),
                &a,
                &b,
                Rounding::Down,
                None,
            )?;
            for (name, _) in FROM_SCHEDULE_BOUNDS {
                check(name, job(name), &a, &b, Rounding::Down, Some(Rounding::Up))?;
            }
            for (name, _) in FROM_SCHEDULE_DOWN {
                check(name, job(name), &a, &b, Rounding::Down, None)?;
            }
            if avx512 {
                let (down, both) = (pairs[pairs.len() - 1].1, pairs[pairs.len() - 2].1);
                check(down, job(down), &a, &b, Rounding::Down, None)?;
                check(both, job(both), &a, &b, Rounding::Down, Some(Rounding::Up))?;
            }
        }
        for &(m, base) in &pairs {
            // The Divisor's sequence runs from its plan length; shorter slices measure the
            // divider against the sequence, which says nothing about the guard.
            if m.starts_with("Divisor") && n < fmadiv::plan().choices().divisor.sequence_from {
                continue;
            }
            rows.push(compare(
                (m, job(m)),
                (base, job(base)),
                n,
                &mut layouts,
                &mut hi,
            ));
        }
    }
    Ok(rows)
}

/// A plain-text table.
pub fn print_table(rows: &[Row]) {
    println!(
        "{:<42} {:<50} {:>6} {:>20}",
        "method", "against", "size", "ratio (95% CI)"
    );
    for r in rows {
        println!(
            "{:<42} {:<50} {:>6} {:>6.3}x ({:.3}..{:.3})",
            r.method, r.baseline, r.size, r.vs_baseline, r.vs_baseline_low, r.vs_baseline_high
        );
    }
}
