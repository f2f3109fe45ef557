//! The directed functions against AVX-512's embedded rounding, on a CPU with AVX-512F:
//! `vdivps zmm` with `{rd-sae}`, `{ru-sae}` or `{rz-sae}` divides in a chosen direction
//! without MXCSR, 16 lanes at a time.
//!
//! ```sh
//! cargo run --release --example embedded_rounding
//! ```
//!
//! 1. Bits: `fmadiv::div_rounded` (down, up, toward zero) and `fmadiv::div_bounds` against
//!    `_mm512_div_round_ps` in the same direction, on every pair of the edge values, 2^24
//!    pairs of random bit patterns and 2^24 of random normal numbers. Any difference is
//!    printed and the example exits 1.
//! 2. Speed: over normal operands in L1 (1K) and L2 (4K, 16K), the embedded-rounding loop
//!    against `div_rounded`, and one loop computing both bounds (two `vdivps zmm` per
//!    vector) against `div_bounds`: the median of 41 alternating per-round ratios over
//!    rotating buffer layouts (higher: the embedded loop is faster).
//!
//! `{sae}` suppresses every exception, so the embedded loops raise no MXCSR flag, where
//! `vdivps` under the mode (and the crate's directed functions) raise the flags of the
//! divisions. Says so and stops on a CPU without AVX-512F.

use std::hint::black_box;
use std::time::Instant;

use fmadiv::Rounding;
use fmadiv_verify::samples::{Layouts, SplitMix64, edge_pairs};

const ROUNDS: usize = 41;
/// Calls per timed sample are chosen to fill about this much time.
const SAMPLE_SECONDS: f64 = 200e-6;
/// Random pairs per kind (bit patterns, normal numbers).
const RANDOM_PAIRS: usize = 1 << 24;

#[cfg(target_arch = "x86_64")]
mod embedded {
    use core::arch::x86_64::*;

    use fmadiv::Rounding;

    /// `out = a / b` rounded by `R` (an `_MM_FROUND_TO_*` constant) by `vdivps zmm` with
    /// embedded rounding; the last lanes through a masked load and store.
    #[target_feature(enable = "avx512f")]
    fn divide<const R: i32>(a: &[f32], b: &[f32], out: &mut [f32]) {
        let n = out.len().min(a.len()).min(b.len());
        let mut i = 0;
        while i < n {
            let left = (n - i).min(16);
            // All ones in the low `left` bits: the lanes inside the slices.
            let k: __mmask16 = (((1u32 << left) - 1) & 0xffff) as u16;
            // SAFETY: the masked loads and stores touch lanes i..i + left only, inside all
            // three slices; masked-off lanes are neither read nor written (and fault-free).
            unsafe {
                let x = _mm512_maskz_loadu_ps(k, a.as_ptr().add(i));
                let y = _mm512_mask_loadu_ps(_mm512_set1_ps(1.0), k, b.as_ptr().add(i));
                let q = _mm512_div_round_ps::<R>(x, y);
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), k, q);
            }
            i += left;
        }
    }

    /// `out = a / b` rounded in direction `mode` by embedded rounding.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    pub unsafe fn div_rounded(a: &[f32], b: &[f32], out: &mut [f32], mode: Rounding) {
        const NO_EXC: i32 = _MM_FROUND_NO_EXC;
        // SAFETY: AVX-512F (the caller's guarantee).
        unsafe {
            match mode {
                Rounding::Nearest => divide::<{ _MM_FROUND_TO_NEAREST_INT | NO_EXC }>(a, b, out),
                Rounding::Down => divide::<{ _MM_FROUND_TO_NEG_INF | NO_EXC }>(a, b, out),
                Rounding::Up => divide::<{ _MM_FROUND_TO_POS_INF | NO_EXC }>(a, b, out),
                Rounding::TowardZero => divide::<{ _MM_FROUND_TO_ZERO | NO_EXC }>(a, b, out),
            }
        }
    }

    /// `lo = RD(a / b)`, `hi = RU(a / b)`: two `vdivps zmm` per vector (whole vectors; the
    /// sizes timed are multiples of 16).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn div_bounds(a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]) {
        const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
        let n = a.len().min(b.len()).min(lo.len()).min(hi.len());
        assert!(n.is_multiple_of(16));
        for i in (0..n).step_by(16) {
            // SAFETY: i + 16 <= n, inside all four slices.
            unsafe {
                let x = _mm512_loadu_ps(a.as_ptr().add(i));
                let y = _mm512_loadu_ps(b.as_ptr().add(i));
                _mm512_storeu_ps(lo.as_mut_ptr().add(i), _mm512_div_round_ps::<DOWN>(x, y));
                _mm512_storeu_ps(hi.as_mut_ptr().add(i), _mm512_div_round_ps::<UP>(x, y));
            }
        }
    }
}

/// The pairs compared: every pair of edge values, random bit patterns, random normals.
fn pairs() -> (Vec<f32>, Vec<f32>) {
    let (mut a, mut b) = edge_pairs();
    let mut rng = SplitMix64(0x656d_6265_6464);
    for _ in 0..RANDOM_PAIRS {
        a.push(rng.next_f32_bits());
        b.push(rng.next_f32_bits());
    }
    for _ in 0..RANDOM_PAIRS {
        a.push(rng.next_normal());
        b.push(rng.next_normal());
    }
    (a, b)
}

/// The pairs where `got` and `want` differ in their bits, the first few printed.
fn differences(what: &str, a: &[f32], b: &[f32], got: &[f32], want: &[f32]) -> usize {
    let mut n = 0;
    for i in 0..a.len() {
        if got[i].to_bits() != want[i].to_bits() {
            if n < 5 {
                println!(
                    "  {what}: {:#010x} / {:#010x}: fmadiv {:#010x}, embedded {:#010x}",
                    a[i].to_bits(),
                    b[i].to_bits(),
                    got[i].to_bits(),
                    want[i].to_bits()
                );
            }
            n += 1;
        }
    }
    n
}

/// A timed job: reads two arrays, writes one or two.
type Job<'a> = &'a dyn Fn(&[f32], &[f32], &mut [f32], &mut [f32]);

/// Median over rounds of `t(baseline) / t(method)`, alternating and rotating layouts.
fn ratio(method: Job, baseline: Job, n: usize, rng: &mut SplitMix64) -> f64 {
    let mut inputs = || (0..n).map(|_| rng.next_normal()).collect::<Vec<f32>>();
    let mut layouts = Layouts::new(inputs(), inputs());
    let mut second = vec![0.0f32; n];
    let mut time = |f: Job, k: usize, calls| {
        let (a, b, out) = layouts.arrays(k);
        let t = Instant::now();
        for _ in 0..calls {
            f(
                black_box(a),
                black_box(b),
                black_box(&mut *out),
                &mut second,
            );
        }
        t.elapsed().as_secs_f64()
    };
    let once = time(baseline, 0, 16) / 16.0;
    let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|k| {
            if k % 2 == 0 {
                let tb = time(baseline, k, calls);
                tb / time(method, k, calls)
            } else {
                let tm = time(method, k, calls);
                time(baseline, k, calls) / tm
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ROUNDS / 2]
}

#[cfg(target_arch = "x86_64")]
fn main() {
    if !is_x86_feature_detected!("avx512f") {
        println!("SKIPPED on this CPU: no AVX-512F, so no embedded rounding to compare with");
        return;
    }
    let cpu = fmadiv::plan().cpu().to_string();
    println!("{cpu}");
    let (a, b) = pairs();
    println!(
        "bits: {} pairs per direction (edges, random bits, random normals)",
        a.len()
    );
    let mut wrong = 0;
    let (mut got, mut want) = (vec![0.0f32; a.len()], vec![0.0f32; a.len()]);
    for mode in [Rounding::Down, Rounding::Up, Rounding::TowardZero] {
        fmadiv::div_rounded(&a, &b, &mut got, mode);
        // SAFETY: AVX-512F was detected above.
        unsafe { embedded::div_rounded(&a, &b, &mut want, mode) };
        let n = differences(&format!("div_rounded {mode:?}"), &a, &b, &got, &want);
        println!("  div_rounded ({mode:?}) against {{{mode:?}-sae}}: {n} differences");
        wrong += n;
    }
    let mut hi = vec![0.0f32; a.len()];
    fmadiv::div_bounds(&a, &b, &mut got, &mut hi);
    for (mode, ours) in [(Rounding::Down, &got), (Rounding::Up, &hi)] {
        // SAFETY: AVX-512F was detected above.
        unsafe { embedded::div_rounded(&a, &b, &mut want, mode) };
        let n = differences(&format!("div_bounds {mode:?}"), &a, &b, ours, &want);
        println!("  div_bounds ({mode:?} bound) against {{{mode:?}-sae}}: {n} differences");
        wrong += n;
    }

    println!(
        "speed, normal operands, median of {ROUNDS} per-round ratios (higher: the embedded loop is faster):"
    );
    println!("size  {{rd-sae}} zmm / div_rounded(Down)  {{rd,ru-sae}} zmm / div_bounds");
    let mut rng = SplitMix64(0x0073_7065_6564);
    for n in [1024usize, 4096, 16384] {
        let zmm_down = |a: &[f32], b: &[f32], o: &mut [f32], _: &mut [f32]| {
            // SAFETY: AVX-512F was detected above.
            unsafe { embedded::div_rounded(a, b, o, Rounding::Down) }
        };
        let ours_down = |a: &[f32], b: &[f32], o: &mut [f32], _: &mut [f32]| {
            fmadiv::div_rounded(a, b, o, Rounding::Down)
        };
        let zmm_bounds = |a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]| {
            // SAFETY: AVX-512F was detected above.
            unsafe { embedded::div_bounds(a, b, lo, hi) }
        };
        let ours_bounds =
            |a: &[f32], b: &[f32], lo: &mut [f32], hi: &mut [f32]| fmadiv::div_bounds(a, b, lo, hi);
        let rounded = ratio(&zmm_down, &ours_down, n, &mut rng);
        let bounds = ratio(&zmm_bounds, &ours_bounds, n, &mut rng);
        println!("{n:>5}  {rounded:>33.2}  {bounds:>29.2}");
    }
    if wrong > 0 {
        std::process::exit(1);
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: not x86-64");
}
