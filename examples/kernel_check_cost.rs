//! What the kernel's input check costs, at eight lanes (AVX2+FMA) and at sixteen (AVX-512F):
//! the mixed loops with the check as shipped, with parts of it left out, and with none, timed
//! against the divider loop on data every variant divides exactly.
//!
//! ```sh
//! cargo run --release --example kernel_check_cost [LENGTH ...]   # 1K, 4K and 16K by default
//! cargo run --release --example kernel_check_cost -- --model     # bits only, 16 lanes modelled
//! cargo run --release --example kernel_check_cost -- --normal    # divisors near all ones too
//! ```
//!
//! The check (`InputCheck` in `src/arch/simd/kernel.rs`) is integer work beside the kernel's seven
//! arithmetic operations per vector (the seed and six FMA-pipe ones): both operands' window (a
//! shift and a subtraction each, a maximum of the two and one into the block's) and the divisor's
//! near-all-ones field (an AND and a maximum), eight operations per vector. Where the CPU runs wide
//! vectors on few ports (two for 512-bit operations on Intel's server cores) that may be what holds
//! the kernel back beside the divider. This measures it: the harness loop below is the library's
//! mixed loop (blocks of four kernel vectors, each followed by `D` divider vectors, the block's
//! check reduced and branched on once) without the back-off and the line head, built with each of
//!
//! - `full`: the shipped check (both windows, the near-all-ones rule);
//! - `windows`: both windows, no near-all-ones rule;
//! - `divisor`: the divisor's window and the near-all-ones rule (no dividend window);
//! - `none`: no check at all, the lower bound of any check;
//! - `rule-2^15`: the shipped check with the eight-lane near-all-ones rule (2^15 divisors to
//!   the divider), whatever the width: at sixteen lanes, the check before that backend had a
//!   rule of its own;
//! - `rule-2^5`: the shipped check with the sixteen-lane rule (2^5 divisors), whatever the
//!   width: at eight lanes a probe only (for `rcpps`' bound the sweep finds wrong rows among
//!   `k = 33 ..= 64`; on this data the comparison with `/` below still holds it to the bits);
//!
//! and the library's own loop of the same schedule (`library`: the harness's `full` should
//! run as fast). Each is timed as the kernel alone (`D = 0`) and with 4 and 8 divider vectors
//! per block (the plan's `mix-4` and `mix-8`), alternately in one process with the
//! library's divider loop of that width, over rounds; printed: divider time over variant time
//! (above 1: faster than the divider), median [lowest, highest] of the per-round ratios.
//!
//! The operands are normal, inside the input window, and no divisor is near all ones (none
//! of the 2^15), so every variant's quotients are the divider's bits; each loop's output is
//! compared with `/` before it is timed. With `--normal` the fractions are random, so one
//! divisor in 256 is among the 2^15: what the near-all-ones rule costs on normal data (a
//! block of 32 lanes holds one in 8.5, of 64 lanes in 4.5; one of the 2^5 in 2^18). Then
//! `windows` and `none` may differ from `/` in principle (never seen: the wrong pairs are
//! one dividend per divisor row), and the comparison would say so. That comparison can
//! fail: on a second set with a zero dividend, an infinite one and a near-all-ones divisor
//! `0x1.fffffep+0` (`rcp(b)` exactly 0.5 on AMD's and Intel's tables: the kernel's quotient
//! is one ulp low there), the `full` loops must match `/` and the `none` loops must not.
//! `--model` runs both comparisons at sixteen lanes through the software model (no timing),
//! for CPUs without AVX-512F.
//!
//! Arrays: the floors' first layout (`fmadiv_verify::samples::Layouts`), each on a line's
//! start, so the output's stores fall inside one line each; three arrays of
//! 1K elements are in L1d, 4K at its edge (48 KiB) or in L2 (32 KiB L1d), 16K in L2.

mod common;

#[cfg(fmadiv_x86)]
mod harness {
    use fmadiv::verify::Variant;
    use fmadiv::verify::x86::{InputCheck, Vector, kernel_quotient_from};

    /// Kernel vectors per block, as in the library's mixed loops.
    const BLOCK: usize = 4;

    /// The checks a harness loop runs (see the module's documentation).
    pub const FULL: u8 = 0;
    pub const WINDOWS: u8 = 1;
    pub const DIVISOR: u8 = 2;
    pub const NONE: u8 = 3;
    pub const RULE_RCPPS: u8 = 4;
    pub const RULE_RCP14: u8 = 5;

    /// Check `C` of one vector of operands; `None` for no check.
    #[inline(always)]
    fn check_of<W: Vector, const C: u8>(w: W, a: W::F, b: W::F) -> Option<InputCheck<W>> {
        match C {
            FULL => Some(InputCheck::of::<{ Variant::SHIPPED }, false>(w, a, b)),
            WINDOWS => Some(InputCheck::window_of(w, a, b)),
            DIVISOR => Some(InputCheck::of::<{ Variant::DIVISOR_WINDOW_ONLY }, false>(
                w, a, b,
            )),
            RULE_RCPPS => Some(InputCheck::of::<{ Variant::RCPPS_RULE }, false>(w, a, b)),
            RULE_RCP14 => Some(InputCheck::of::<{ Variant::RCP14_RULE }, false>(w, a, b)),
            _ => None,
        }
    }

    /// `out[i] = a[i] / b[i]`: blocks of [`BLOCK`] kernel vectors with check `C`, each
    /// followed by `D` divider vectors; a block whose check fails is redone by the divider;
    /// what does not fill a step goes to the divider.
    ///
    /// # Safety
    /// `a`, `b` readable and `out` writable for `len` floats; `out` overlaps neither.
    #[inline(always)]
    pub unsafe fn mixed<W: Vector, const C: u8, const D: usize>(
        w: W,
        a: *const f32,
        b: *const f32,
        out: *mut f32,
        len: usize,
    ) {
        let kernel_len = BLOCK * W::LANES;
        let step = kernel_len + D * W::LANES;
        let mut i = 0;
        while i + step <= len {
            // SAFETY: every element touched is below i + step <= len (the caller's
            // guarantees); the block is loaded before any store.
            unsafe {
                let mut quotients = [w.splat(0.0); BLOCK];
                let mut check: Option<InputCheck<W>> = None;
                for (k, q) in quotients.iter_mut().enumerate() {
                    let j = i + k * W::LANES;
                    let (x, y) = (w.load(a.add(j)), w.load(b.add(j)));
                    *q = kernel_quotient_from::<W, { Variant::SHIPPED }, false>(w, x, y, w.rcp(y));
                    if let Some(c) = check_of::<W, C>(w, x, y) {
                        check = Some(check.map_or(c, |acc| acc.merge(w, c)));
                    }
                }
                for k in 0..D {
                    let j = i + kernel_len + k * W::LANES;
                    w.store(out.add(j), w.div(w.load(a.add(j)), w.load(b.add(j))));
                }
                if check.is_none_or(|c| c.all_accepted(w)) {
                    for (k, q) in quotients.iter().enumerate() {
                        w.store(out.add(i + k * W::LANES), *q);
                    }
                } else {
                    w.cold(
                        #[inline(always)]
                        || divider(w, a, b, out, i, i + kernel_len),
                    );
                }
            }
            i += step;
        }
        // SAFETY: i <= len; the caller's guarantees.
        unsafe { divider(w, a, b, out, i, len) };
    }

    /// Elements `from..to` on the divider: whole vectors, then one partial vector.
    ///
    /// # Safety
    /// As [`mixed`], with `from <= to <= len`.
    #[inline(always)]
    unsafe fn divider<W: Vector>(
        w: W,
        a: *const f32,
        b: *const f32,
        out: *mut f32,
        from: usize,
        to: usize,
    ) {
        let mut i = from;
        // SAFETY: every access is below `to` (the caller's guarantees).
        unsafe {
            while i + W::LANES <= to {
                w.store(out.add(i), w.div(w.load(a.add(i)), w.load(b.add(i))));
                i += W::LANES;
            }
            if i < to {
                let n = to - i;
                let q = w.div(
                    w.load_partial(a.add(i), n, 1.0),
                    w.load_partial(b.add(i), n, 1.0),
                );
                w.store_partial(out.add(i), n, q);
            }
        }
    }

    /// A harness loop: `out[i] = a[i] / b[i]`, the lengths equal.
    ///
    /// # Safety
    /// The CPU has the loop's width's features (none for the model's loops).
    pub type Loop = unsafe fn(&[f32], &[f32], &mut [f32]);

    /// The harness loops of one width: `$name::<C, D>`, compiled for the width's features.
    macro_rules! width {
        ($name:ident, $W:ty, $features:literal) => {
            /// # Safety
            /// The CPU has the width's features.
            #[target_feature(enable = $features)]
            pub unsafe fn $name<const C: u8, const D: usize>(
                a: &[f32],
                b: &[f32],
                out: &mut [f32],
            ) {
                let len = out.len();
                assert!(a.len() == len && b.len() == len);
                // SAFETY: the caller's guarantee is the proof `assume` takes; the lengths are
                // equal and `out`, a unique borrow, overlaps neither input.
                unsafe {
                    mixed::<$W, C, D>(
                        <$W>::assume(),
                        a.as_ptr(),
                        b.as_ptr(),
                        out.as_mut_ptr(),
                        len,
                    )
                }
            }
        };
    }

    width!(eight, fmadiv::verify::x86::Avx2Fma, "avx2,fma");
    width!(sixteen, fmadiv::verify::x86::Avx512, "avx512f,avx2,fma");

    /// The sixteen-lane harness loops on the software model (any x86-64 CPU): bits only.
    pub fn modelled<const C: u8, const D: usize>(a: &[f32], b: &[f32], out: &mut [f32]) {
        use fmadiv::verify::avx512_model::{Avx512Model, INTEL};
        let len = out.len();
        assert!(a.len() == len && b.len() == len);
        // SAFETY: the model runs scalar SSE operations, present on every x86-64 CPU; the
        // lengths are equal and `out` overlaps neither input.
        unsafe {
            mixed::<Avx512Model<INTEL>, C, D>(
                <Avx512Model<INTEL> as Vector>::assume(),
                a.as_ptr(),
                b.as_ptr(),
                out.as_mut_ptr(),
                len,
            )
        }
    }
}

#[cfg(fmadiv_x86)]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    use fmadiv::verify::bits::NEAR_ALL_ONES_FIELD;
    use fmadiv::verify::run_schedule_on;
    use fmadiv::{Backend, Mix, Schedule};
    use fmadiv_verify::samples;
    use harness::{
        DIVISOR, FULL, Loop, NONE, RULE_RCP14, RULE_RCPPS, WINDOWS, eight, modelled, sixteen,
    };

    /// Rounds (each times every loop once, in turn) and elements divided per timing.
    const ROUNDS: usize = 15;
    const ELEMENTS_PER_TIMING: usize = 1 << 24;
    /// The divider vectors per kernel block timed: the kernel alone, `mix-4`, `mix-8`.
    const DIVIDERS: [usize; 3] = [0, 4, 8];
    /// Elements of each comparison with `/`: several steps of every loop at either width.
    const COMPARED: usize = 1024;
    /// The checks' names, in the order of the rows of [`loops_of`].
    const CHECKS: [&str; 6] = [
        "full",
        "windows",
        "divisor",
        "none",
        "rule-2^15",
        "rule-2^5",
    ];

    /// A width's harness loops by check and divider vectors, in the order of [`CHECKS`] and
    /// [`DIVIDERS`].
    macro_rules! loops_of {
        ($f:ident) => {
            [
                [$f::<FULL, 0>, $f::<FULL, 4>, $f::<FULL, 8>],
                [$f::<WINDOWS, 0>, $f::<WINDOWS, 4>, $f::<WINDOWS, 8>],
                [$f::<DIVISOR, 0>, $f::<DIVISOR, 4>, $f::<DIVISOR, 8>],
                [$f::<NONE, 0>, $f::<NONE, 4>, $f::<NONE, 8>],
                [
                    $f::<RULE_RCPPS, 0>,
                    $f::<RULE_RCPPS, 4>,
                    $f::<RULE_RCPPS, 8>,
                ],
                [
                    $f::<RULE_RCP14, 0>,
                    $f::<RULE_RCP14, 4>,
                    $f::<RULE_RCP14, 8>,
                ],
            ] as [[Loop; 3]; 6]
        };
    }

    /// Whether `out` holds the bits of `a / b`.
    fn exact(a: &[f32], b: &[f32], out: &[f32]) -> bool {
        a.iter()
            .zip(b)
            .zip(out)
            .all(|((x, y), q)| (x / y).to_bits() == q.to_bits())
    }

    /// The checks' two comparisons for one width's loops: on [`COMPARED`] elements of the timed
    /// kind of data every loop matches `/`; on the data with a zero, an infinity and a
    /// near-all-ones divisor the `full` loops match and the `none` loops do not. Panics otherwise.
    fn compare(width: &str, loops: &[[Loop; 3]; 6], (a, b): (&[f32], &[f32])) {
        let mut out = vec![0.0f32; a.len()];
        for (name, row) in CHECKS.iter().zip(loops) {
            for (d, f) in DIVIDERS.iter().zip(row) {
                // SAFETY: `main` passes only the loops of widths this CPU has (or the model's).
                unsafe { f(a, b, &mut out) };
                assert!(
                    exact(a, b, &out),
                    "{width}: {name} D={d} differs from / on normal data"
                );
            }
        }
        let (mut x, mut y) = (a.to_vec(), b.to_vec());
        // All three in the first kernel block at either width (its first 32 elements).
        x[1] = 0.0;
        x[5] = f32::INFINITY; // the kernel's residual is NaN: wrong on every table
        (x[20], y[20]) = (1.0, f32::from_bits(0x3fff_ffff)); // 1 / 0x1.fffffep+0
        for (d, f) in DIVIDERS.iter().zip(&loops[0]) {
            // SAFETY: as above.
            unsafe { f(&x, &y, &mut out) };
            assert!(
                exact(&x, &y, &out),
                "{width}: full D={d} differs from / on specials"
            );
        }
        for (d, f) in DIVIDERS.iter().zip(&loops[3]) {
            // SAFETY: as above.
            unsafe { f(&x, &y, &mut out) };
            assert!(
                !exact(&x, &y, &out),
                "{width}: none D={d} matched / on specials: the comparison would not see a \
                 missing check"
            );
        }
        println!(
            "{width}: every loop gives the bits of / on normal data; on the specials `full` does and `none` does not"
        );
    }

    let (lengths, _, flags) = common::lengths_options_and_flags(
        "kernel_check_cost",
        &[],
        &["model", "normal"],
        &[1024, 4096, 16384],
    );
    let (model, normal) = (flags[0], flags[1]);

    let data = |n: usize| {
        let mut next = common::normal_values();
        let a: Vec<f32> = (0..n).map(|_| next()).collect();
        let b: Vec<f32> = (0..n)
            .map(|_| {
                loop {
                    // Near-all-ones divisors would fail blocks of the checks with a rule only.
                    let y = next();
                    if normal || y.to_bits() & NEAR_ALL_ONES_FIELD != NEAR_ALL_ONES_FIELD {
                        break y;
                    }
                }
            })
            .collect();
        (a, b)
    };

    let (a, b) = data(COMPARED);
    if model {
        compare("16 lanes (model)", &loops_of!(modelled), (&a, &b));
        return;
    }

    let mut widths: Vec<(&str, Backend, [[Loop; 3]; 6])> = Vec::new();
    if fmadiv::verify::x86::Avx2Fma::new().is_some() {
        widths.push(("8 lanes", Backend::Avx2Fma, loops_of!(eight)));
    }
    if fmadiv::verify::x86::Avx512::new().is_some() {
        widths.push(("16 lanes", Backend::Avx512, loops_of!(sixteen)));
    } else {
        println!("(no AVX-512F here: sixteen lanes not timed; --model checks their bits)");
    }
    println!(
        "kernel_check_cost: {}; divider time / variant time, median [lowest, highest] of {ROUNDS} rounds",
        common::cpu()
    );
    println!(
        "data: normal operands inside the window, {}",
        if normal {
            "random fractions (--normal: one divisor in 256 among the 2^15 near all ones)"
        } else {
            "no divisor among the 2^15 near all ones"
        }
    );
    for (width, backend, loops) in &widths {
        compare(width, loops, (&a, &b));
        let schedule = |d: usize| match d {
            0 => Schedule::Kernel,
            d => Schedule::Mixed(Mix::new(d as u8).expect("a mix of Mix::ALL")),
        };
        for &n in &lengths {
            let (a, b) = data(n);
            // The floors' first layout: each array on a line's start, 64 bytes apart past
            // the length (no 4K aliasing between them).
            let mut layouts = samples::Layouts::new(a, b);
            let (a, b, out) = layouts.arrays(0);
            let calls = (ELEMENTS_PER_TIMING / n).max(1);
            let time = |f: &dyn Fn(&mut [f32]), out: &mut [f32]| {
                let start = Instant::now();
                for _ in 0..calls {
                    f(black_box(&mut *out));
                }
                start.elapsed().as_secs_f64()
            };
            let library = |s: Schedule| {
                move |out: &mut [f32]| {
                    run_schedule_on(*backend, s, Some(a), b, out).expect("the backend runs here");
                }
            };
            // Per round: the divider, then every variant, each against that round's divider.
            let mut ratios = vec![vec![Vec::new(); DIVIDERS.len()]; CHECKS.len() + 1];
            for _ in 0..ROUNDS {
                let divider = time(&library(Schedule::Divider), out);
                for (k, &d) in DIVIDERS.iter().enumerate() {
                    let t = time(&library(schedule(d)), out);
                    ratios[0][k].push(divider / t);
                    for (c, row) in loops.iter().enumerate() {
                        let f = row[k];
                        // SAFETY: `widths` holds the loops of the widths this CPU has.
                        let run = |o: &mut [f32]| unsafe { f(a, b, o) };
                        ratios[c + 1][k].push(divider / time(&run, out));
                    }
                }
            }
            println!(
                "\n{width}, {n} elements: {}'s divider loop = 1.00",
                backend.name()
            );
            println!(
                "{:<10} {:>20} {:>20} {:>20}",
                "check", "kernel", "mix-4", "mix-8"
            );
            let names = std::iter::once("library").chain(CHECKS);
            for (name, row) in names.zip(&mut ratios) {
                let cells: Vec<String> = row
                    .iter_mut()
                    .map(|r| {
                        r.sort_by(f64::total_cmp);
                        format!("{:.2} [{:.2}, {:.2}]", r[r.len() / 2], r[0], r[r.len() - 1])
                    })
                    .collect();
                println!(
                    "{name:<10} {:>20} {:>20} {:>20}",
                    cells[0], cells[1], cells[2]
                );
            }
        }
    }
}

#[cfg(not(fmadiv_x86))]
fn main() {
    println!("kernel_check_cost: the x86-64 kernels are not in this build");
}
