//! `fmadiv::div` and the divider's grouped loop (`Schedule::Divider` forced) over every
//! placement of the output modulo 4 KiB, in steps of 64 bytes: `aliasing N B` prints, for
//! N-element slices whose divisors lie B bytes past a 4 KiB boundary, the median and the
//! largest time per call over the 64 placements (`scripts/aliasing.sh`).

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().expect("a length").parse().expect("a number");
    let b_offset: usize = args.next().expect("an offset").parse().expect("a number");
    let mut buf = vec![0f32; 4 * n + 8192];
    // Floats to the first 4 KiB boundary in the buffer.
    let align = (4096 - buf.as_ptr() as usize % 4096) % 4096 / 4;
    for (i, x) in buf.iter_mut().enumerate() {
        *x = 1.0 + (i % 1000) as f32 * 0.37;
    }
    let calls = (4_000_000 / (n + 64)).max(200);
    let (mut plan, mut grouped) = (Vec::new(), Vec::new());
    for out_offset in (0..4096).step_by(64) {
        let a0 = align;
        let b0 = align + n + 1024 + b_offset / 4;
        let o0 = align + 2 * n + 2048 + out_offset / 4;
        let (head, rest) = buf.split_at_mut(o0);
        let (a, b, out) = (&head[a0..a0 + n], &head[b0..b0 + n], &mut rest[..n]);
        let mut time = |forced: bool, out: &mut [f32]| {
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                for _ in 0..calls {
                    if forced {
                        let s = fmadiv::Schedule::Divider;
                        fmadiv::verify::run_schedule(s, Some(black_box(a)), black_box(b), black_box(&mut *out));
                    } else {
                        fmadiv::div(black_box(a), black_box(b), black_box(&mut *out));
                    }
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            best / calls as f64 * 1e9
        };
        plan.push(time(false, out));
        grouped.push(time(true, out));
    }
    let summary = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        format!("{:.0} | {:.0}", v[v.len() / 2], v[v.len() - 1])
    };
    println!("| {n} | {b_offset} | {} | {} |", summary(&mut plan), summary(&mut grouped));
}
