//! The baseline question on a CPU with AVX-512F: is the 512-bit `vdivps` loop faster than
//! the 256-bit one every floor of this crate is measured against, and where does
//! `fmadiv::div` stand against it?
//!
//! ```sh
//! cargo run --release --example wide_divider
//! ```
//!
//! Plain loops `out[i] = a[i] / b[i]` over normal operands, alternating in one process,
//! the median of 41 per-round ratios (higher: the first is faster). Says so and stops on a
//! CPU without AVX-512F.

use std::hint::black_box;
use std::time::Instant;

use fmadiv_verify::samples::{Layouts, SplitMix64};

const ROUNDS: usize = 41;
/// Calls per timed sample are chosen to fill about this much time.
const SAMPLE_SECONDS: f64 = 200e-6;

#[cfg(target_arch = "x86_64")]
mod loops {
    use core::arch::x86_64::*;

    /// `out = a / b` by `vdivps zmm`, the scalar tail by `/`.
    #[target_feature(enable = "avx512f")]
    pub fn zmm(a: &[f32], b: &[f32], out: &mut [f32]) {
        let n = out.len().min(a.len()).min(b.len());
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n, inside all three slices.
            unsafe {
                let q = _mm512_div_ps(
                    _mm512_loadu_ps(a.as_ptr().add(i)),
                    _mm512_loadu_ps(b.as_ptr().add(i)),
                );
                _mm512_storeu_ps(out.as_mut_ptr().add(i), q);
            }
            i += 16;
        }
        for k in i..n {
            out[k] = a[k] / b[k];
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    if !is_x86_feature_detected!("avx512f") {
        println!("SKIPPED on this CPU: no AVX-512F, so the 256-bit divider loop is the baseline");
        return;
    }
    type Loop = fn(&[f32], &[f32], &mut [f32]);
    // The crate's reference loop: `vdivps ymm`, the scalar tail by `/`.
    let ymm: Loop = fmadiv_verify::methods::HARDWARE.run;
    // SAFETY: AVX-512F was detected above.
    let zmm: Loop = |a, b, o| unsafe { loops::zmm(a, b, o) };
    let fmadiv: Loop = |a, b, o| fmadiv::div(a, b, o);
    println!("{}", fmadiv::plan());
    println!("size  zmm loop / ymm loop  fmadiv::div / zmm loop  fmadiv::div / ymm loop");
    let mut rng = SplitMix64(0x7769_6465);
    for n in [256usize, 1024, 4096, 16384, 65536] {
        let mut inputs = || (0..n).map(|_| rng.next_normal()).collect::<Vec<f32>>();
        let mut layouts = Layouts::new(inputs(), inputs());
        let time = |f: Loop, layouts: &mut Layouts, k: usize, calls: usize| {
            let (a, b, out) = layouts.arrays(k);
            let t = Instant::now();
            for _ in 0..calls {
                f(black_box(a), black_box(b), black_box(&mut *out));
            }
            t.elapsed().as_secs_f64()
        };
        let once = time(ymm, &mut layouts, 0, 16) / 16.0;
        let calls = ((SAMPLE_SECONDS / once.max(1e-9)) as usize).clamp(1, 1 << 20);
        let mut ratios = [Vec::new(), Vec::new(), Vec::new()];
        for k in 0..ROUNDS {
            let mut t = [0.0; 3];
            for j in 0..3 {
                let which = (j + k) % 3; // rotate the order
                t[which] = time([ymm, zmm, fmadiv][which], &mut layouts, k, calls);
            }
            ratios[0].push(t[0] / t[1]);
            ratios[1].push(t[1] / t[2]);
            ratios[2].push(t[0] / t[2]);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "{n:>5}  {:>20.2}  {:>22.2}  {:>22.2}",
            median(&mut ratios[0]),
            median(&mut ratios[1]),
            median(&mut ratios[2])
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("SKIPPED: not x86-64");
}
