//! Wrong quotients under MXCSR's rounding modes, per schedule: the table of the issue that
//! asked for the guard, measured again. 200,000 random normal dividends divided by ± powers
//! of two (exact quotients) and by 3.0, under round-down, round-up and round-toward-zero set
//! with `ldmxcsr` around one non-inlined function (restored before anything is compared),
//! through every schedule (`div`'s loop forced), `recip`, and `div_scalar`, each compared
//! with `vdivps` under the same mode. Every count should be 0.
//!
//! ```sh
//! cargo run --release --example rounding_modes
//! ```

#[cfg(fmadiv_x86)]
mod common;

#[cfg(not(fmadiv_x86))]
fn main() {
    println!("no x86 here: the rounding modes this example sets are MXCSR's");
}

#[cfg(fmadiv_x86)]
fn main() {
    x86::main();
}

#[cfg(fmadiv_x86)]
mod x86 {
    use std::hint::black_box;

    use fmadiv::Schedule;

    use crate::common::{read_mxcsr, write_mxcsr};

    /// MXCSR's rounding-control field.
    const RC: u32 = 0b11 << 13;

    /// What one run under one mode computes: each result with the hardware's.
    struct Run {
        schedules: Vec<(Schedule, Vec<f32>, Vec<f32>)>,
        /// The kernel's loops without the rounding-mode guard: what the guard prevents.
        unguarded: Vec<(Schedule, Vec<f32>)>,
        recip: (Vec<f32>, Vec<f32>),
        by_three: (Vec<f32>, Vec<f32>),
    }

    /// Everything divided under the MXCSR in force (non-inlined: it runs where MXCSR is set).
    #[inline(never)]
    fn compute(a: &[f32], b: &[f32]) -> Run {
        let (a, b) = (black_box(a), black_box(b));
        let hw: Vec<f32> = a.iter().zip(b).map(|(&x, &y)| black_box(x) / y).collect();
        let mut schedules = Vec::new();
        for s in Schedule::CANDIDATES {
            let mut out = vec![0.0f32; a.len()];
            if fmadiv::verify::run_schedule(s, Some(a), b, &mut out).is_some() {
                schedules.push((s, out, hw.clone()));
            }
        }
        let mut unguarded = Vec::new();
        for s in Schedule::CANDIDATES.into_iter().filter(|s| s.uses_kernel()) {
            let mut out = vec![0.0f32; a.len()];
            if fmadiv::verify::run_entry(s, false, a, b, &mut out).is_some() {
                unguarded.push((s, out));
            }
        }
        let mut out = vec![0.0f32; b.len()];
        fmadiv::recip(b, &mut out);
        let hw_recip: Vec<f32> = b.iter().map(|&y| black_box(1.0f32) / y).collect();
        let mut by3 = vec![0.0f32; a.len()];
        fmadiv::div_scalar(a, black_box(3.0), &mut by3);
        let hw3: Vec<f32> = a.iter().map(|&x| x / black_box(3.0f32)).collect();
        Run {
            schedules,
            unguarded,
            recip: (out, hw_recip),
            by_three: (by3, hw3),
        }
    }

    fn wrong(got: &[f32], want: &[f32]) -> usize {
        got.iter()
            .zip(want)
            .filter(|(g, w)| g.to_bits() != w.to_bits())
            .count()
    }

    pub fn main() {
        let mut state = 0x0dd_ba11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        let n = 200_000;
        let a: Vec<f32> = (0..n)
            .map(|_| {
                let r = next();
                f32::from_bits(
                    ((r >> 33) as u32 & 0x807f_ffff) | (100 + (r >> 20) as u32 % 50) << 23,
                )
            })
            .collect();
        let b: Vec<f32> = (0..n)
            .map(|_| {
                let r = next();
                let sign = if r >> 63 == 1 { -1.0 } else { 1.0 };
                sign * 2f32.powi((r >> 40) as i32 % 40 - 20)
            })
            .collect();
        let original = read_mxcsr();
        let modes = [("down", 1u32), ("up", 2), ("toward zero", 3)];
        let runs: Vec<Run> = modes
            .iter()
            .map(|&(_, rc)| {
                write_mxcsr((original & !RC) | rc << 13);
                let run = compute(&a, &b);
                write_mxcsr(original);
                run
            })
            .collect();
        println!(
            "{} ({}), plan: {}",
            fmadiv::plan().cpu(),
            fmadiv::backend(),
            fmadiv::plan()
        );
        println!(
            "{n} random normal dividends by ± powers of two and by 3.0; wrong quotients against vdivps under the mode (down / up / toward zero):"
        );
        println!("| schedule | div | recip | div_scalar(a, 3.0) |");
        println!("|---|---|---|---|");
        let counts = |f: &dyn Fn(&Run) -> usize| {
            runs.iter()
                .map(f)
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let schedules: Vec<Schedule> = runs[0].schedules.iter().map(|(s, _, _)| *s).collect();
        let mut total = 0;
        for (k, s) in schedules.iter().enumerate() {
            let div = counts(&|r: &Run| wrong(&r.schedules[k].1, &r.schedules[k].2));
            total += runs
                .iter()
                .map(|r| wrong(&r.schedules[k].1, &r.schedules[k].2))
                .sum::<usize>();
            println!("| {} (forced) | {div} | | |", s.name());
        }
        let recip = counts(&|r: &Run| wrong(&r.recip.0, &r.recip.1));
        let three = counts(&|r: &Run| wrong(&r.by_three.0, &r.by_three.1));
        total += runs
            .iter()
            .map(|r| wrong(&r.recip.0, &r.recip.1) + wrong(&r.by_three.0, &r.by_three.1))
            .sum::<usize>();
        println!("| the plan's | | {recip} | {three} |");
        for (k, (s, _)) in runs[0].unguarded.iter().enumerate() {
            let div = counts(&|r: &Run| wrong(&r.unguarded[k].1, &r.schedules[0].2));
            println!("| {} without the guard | {div} | | |", s.name());
        }
        assert_eq!(read_mxcsr(), original);
        assert_eq!(total, 0, "wrong quotients under a rounding mode");
    }
}
