//! Criterion benchmarks: every method of `fmadiv_verify::methods` on every input
//! distribution, sizes 8 to 16M, throughput in elements per second.
//!
//! `cargo bench` (in the workspace, or `-p fmadiv-verify`) runs all of them (long);
//! `cargo bench -- 4096/normal` picks some.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fmadiv_verify::methods::{self, Inputs};

const SIZES: [usize; 7] = [8, 64, 1024, 4096, 1 << 16, 1 << 20, 1 << 24];

fn division(c: &mut Criterion) {
    for size in SIZES {
        for inputs in Inputs::ALL {
            let (a, b) = inputs.generate(size, 0x5eed ^ size as u64);
            let mut out = vec![0.0f32; size];
            let mut group =
                c.benchmark_group(format!("{size}/{}", inputs.name().replace(' ', "_")));
            group.throughput(Throughput::Elements(size as u64));
            if size >= 1 << 20 {
                group.sample_size(10);
            }
            for m in methods::ALL.iter().filter(|m| (m.available)()) {
                group.bench_function(BenchmarkId::from_parameter(m.name), |bench| {
                    bench.iter(|| (m.run)(black_box(&a), black_box(&b), black_box(&mut out)))
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, division);
criterion_main!(benches);
