use std::hint::black_box;
use std::time::Instant;
fn main() {
    let d = fmadiv::Divisor::new(3.7);
    let a: Vec<f32> = (0..4096).map(|i| 1.0 + i as f32 / 4096.0).collect();
    let mut out = vec![0.0f32; 4096];
    for n in [256usize, 1024, 4096] {
        for _ in 0..3 {
            let t = Instant::now();
            for _ in 0..20_000 {
                d.divide_slice_checked_by(
                    fmadiv::DivisorCheck::Lanes,
                    black_box(&a[..n]),
                    black_box(&mut out[..n]),
                );
            }
            let lanes = t.elapsed().as_secs_f64() / 2e4 * 1e9;
            let t = Instant::now();
            for _ in 0..20_000 {
                d.divide_slice(black_box(&a[..n]), black_box(&mut out[..n]));
            }
            let flags = t.elapsed().as_secs_f64() / 2e4 * 1e9;
            let t = Instant::now();
            for _ in 0..20_000 {
                fmadiv::div(
                    black_box(&a[..n]),
                    black_box(&a[..n]),
                    black_box(&mut out[..n]),
                );
            }
            let dv = t.elapsed().as_secs_f64() / 2e4 * 1e9;
            println!("n={n}: lanes {lanes:.1} ns, default {flags:.1} ns, div {dv:.1} ns");
        }
    }
}
