//! What `Divisor`'s proof costs: `Divisor::new(b).strategy()` (the proof is made on first
//! need, here) over 2^17 divisor significands, split by whether `RN(1/b)` rounds toward zero
//! (one test: `zh = RN(1/b)`) or away from it (`zh = RZ(1/b)` tried first, then `RN(1/b)`
//! where that fails). Median and range of 21 passes, nanoseconds per divisor. Each
//! divisor's quotients are checked against `/` on a few dividends first.
//!
//!   taskset -c 0 cargo run --release --example proof_cost

use std::hint::black_box;
use std::time::Instant;

use fmadiv::{Divisor, Strategy};

/// Timed passes over the divisors of one kind.
const PASSES: usize = 21;

fn main() {
    let all: Vec<f32> = (0..1u32 << 17)
        .map(|i| f32::from_bits(0x3f80_0000 | (i.wrapping_mul(2_654_435_761) >> 9)))
        .collect();
    // rho = 1 - b·RN(1/b) (exact): negative where RN(1/b) lies farther from zero than 1/b.
    let rho = |b: f32| (-b).mul_add(1.0 / b, 1.0);
    let toward: Vec<f32> = all.iter().copied().filter(|&b| rho(b) > 0.0).collect();
    let away: Vec<f32> = all.iter().copied().filter(|&b| rho(b) < 0.0).collect();
    for &b in all.iter().step_by(997) {
        let d = Divisor::new(b);
        for a in [1.0f32, -0.0, 1.5, 3.0e-20, 7.0e30] {
            assert_eq!(d.divide(a).to_bits(), (a / b).to_bits(), "{a:e} / {b:e}");
        }
    }
    for (kind, divisors) in [
        ("RN(1/b) toward zero", &toward),
        ("RN(1/b) away from zero", &away),
    ] {
        let mut times: Vec<f64> = (0..PASSES)
            .map(|_| {
                let t = Instant::now();
                let two_products = divisors
                    .iter()
                    .filter(|&&b| Divisor::new(black_box(b)).strategy() == Strategy::TwoProducts)
                    .count();
                black_box(two_products);
                t.elapsed().as_nanos() as f64 / divisors.len() as f64
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{kind}: {} divisors, proof median {:.1} ns, range {:.1}-{:.1}",
            divisors.len(),
            times[PASSES / 2],
            times[0],
            times[PASSES - 1]
        );
    }
}
