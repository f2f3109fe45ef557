//! What operations beside `vdivps` cost: the one-vector divider loop, written in assembly
//! and starting a 64-byte line (so placement does not move it), against the same loop with
//! the FMA residual `a - q·b` after the division, with the residual plus three more
//! operations of one kind on the quotient (independent of one another and of the last
//! iteration: no chain), and with the directed steps of the flag-checked chunks.
//! The ratios are bare loop time over variant time (1.00: free; lower: slower), medians of
//! per-round ratios with the two alternating; 1024 elements (in L1) unless the first
//! argument says otherwise. Single samples on a shared VM are noisy: read the medians.
//!
//! ```sh
//! cargo build --release --example beside_divider
//! taskset -c 0 target/release/examples/beside_divider [ELEMENTS]
//! ```
//!
//! It bounds how fast any directed step built on the residual can be on a CPU: the FMA
//! and a few operations to read its sign are the least such a step needs (BENCHMARKS,
//! "Directed rounding").

use std::hint::black_box;
use std::time::Instant;

/// Elements per call by default (three arrays of 4 KiB: in L1); the first argument sets it.
const SIZE: usize = 1024;
/// Alternating rounds.
const ROUNDS: usize = 21;
/// Calls per timed sample.
const CALLS: usize = 2000;

type Run = fn(&[f32], &[f32], &mut [f32]);

/// A divider loop with `$op`s after the division: in the loop `ymm0` is `a`, `ymm4` is `b`,
/// `ymm1` is the quotient (stored), `ymm3` all ones, `ymm6` the sign mask, `ymm7` zero,
/// `ymm11` ones (the integer 1).
#[cfg(target_arch = "x86_64")]
macro_rules! divider_loop {
    ($name:ident $(, $op:expr)*) => {
        pub fn $name(a: &[f32], b: &[f32], out: &mut [f32]) {
            let bytes = a.len().min(b.len()).min(out.len()) / 8 * 32;
            if bytes == 0 {
                return;
            }
            // SAFETY: AVX2 and FMA are present (checked in `main` before any loop runs);
            // the loop reads `a` and `b` and writes `out` at byte offsets below `bytes`,
            // inside all three; unaligned access is allowed; no stack; the registers it
            // writes are declared.
            unsafe {
                core::arch::asm!(
                    "xor {i}, {i}",
                    "vpcmpeqd ymm3, ymm3, ymm3",
                    "vpslld ymm6, ymm3, 31",
                    "vxorps ymm7, ymm7, ymm7",
                    "vpsrld ymm11, ymm3, 31",
                    "jmp 3f",
                    ".p2align 6",
                    "3:",
                    "vmovups ymm0, [{a} + {i}]",
                    "vmovups ymm4, [{b} + {i}]",
                    "vdivps ymm1, ymm0, ymm4",
                    $($op,)*
                    "vmovups [{out} + {i}], ymm1",
                    "add {i}, 32",
                    "cmp {i}, {end}",
                    "jb 3b",
                    a = in(reg) a.as_ptr(),
                    b = in(reg) b.as_ptr(),
                    out = in(reg) out.as_mut_ptr(),
                    end = in(reg) bytes,
                    i = out(reg) _,
                    out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                    out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                    out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                    options(nostack),
                );
            }
        }
    };
}

/// The residual `r = a - q·b` into `ymm2` (a copy of `a`, then the FMA).
#[cfg(target_arch = "x86_64")]
macro_rules! residual {
    () => {
        concat!("vmovaps ymm2, ymm0\n", "vfnmadd231ps ymm2, ymm1, ymm4")
    };
}

/// Three operations `$op dst, ymm1, ymm4` into ymm8–ymm10.
#[cfg(target_arch = "x86_64")]
macro_rules! three {
    ($op:literal) => {
        concat!(
            $op,
            " ymm8, ymm1, ymm4\n",
            $op,
            " ymm9, ymm1, ymm4\n",
            $op,
            " ymm10, ymm1, ymm4"
        )
    };
}

#[cfg(target_arch = "x86_64")]
mod loops {
    divider_loop!(bare);
    divider_loop!(with_residual, residual!());
    divider_loop!(
        fma,
        residual!(),
        "vmovaps ymm8, ymm0\nvfnmadd231ps ymm8, ymm1, ymm4\nvmovaps ymm9, ymm0\nvfnmadd231ps ymm9, ymm1, ymm4\nvmovaps ymm10, ymm0\nvfnmadd231ps ymm10, ymm1, ymm4"
    );
    divider_loop!(minps, residual!(), three!("vminps"));
    divider_loop!(cmpps, residual!(), three!("vcmpltps"));
    divider_loop!(psignd, residual!(), three!("vpsignd"));
    divider_loop!(
        blendv,
        residual!(),
        "vblendvps ymm8, ymm1, ymm4, ymm3\nvblendvps ymm9, ymm1, ymm4, ymm3\nvblendvps ymm10, ymm1, ymm4, ymm3"
    );
    divider_loop!(
        psrad,
        residual!(),
        "vpsrad ymm8, ymm1, 31\nvpsrad ymm9, ymm1, 31\nvpsrad ymm10, ymm1, 31"
    );
    divider_loop!(paddd, residual!(), three!("vpaddd"));
    divider_loop!(pxor, residual!(), three!("vpxor"));
    divider_loop!(pand, residual!(), three!("vpand"));
    divider_loop!(pcmpgtd, residual!(), three!("vpcmpgtd"));
    divider_loop!(pminsd, residual!(), three!("vpminsd"));
    divider_loop!(addps, residual!(), three!("vaddps"));
    // The shipped steps of the flag-checked chunks (`directed::round_from_plus_zero`):
    // down (two psignd, an add, min) and toward zero (and, xor, signaling compare, add).
    divider_loop!(
        step_down,
        residual!(),
        "vpsignd ymm5, ymm0, ymm2\nvpsignd ymm5, ymm11, ymm5\nvpaddd ymm5, ymm5, ymm1\nvminps ymm1, ymm1, ymm5"
    );
    divider_loop!(
        step_toward_zero,
        residual!(),
        "vpand ymm5, ymm0, ymm6\nvpxor ymm5, ymm5, ymm2\nvcmpps ymm5, ymm5, ymm7, 1\nvpaddd ymm1, ymm1, ymm5"
    );
}

/// Median of the sorted values, and the lowest and highest.
fn summary(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn time(run: Run, a: &[f32], b: &[f32], out: &mut [f32]) -> f64 {
    let start = Instant::now();
    for _ in 0..CALLS * SIZE / a.len().max(1) {
        run(black_box(a), black_box(b), black_box(&mut *out));
    }
    start.elapsed().as_secs_f64()
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            println!("SKIPPED on this CPU: the loops need AVX2 and FMA");
            return;
        }
        let cpu = fmadiv::Cpu::this();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            1.0 + (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let size: usize = std::env::args()
            .nth(1)
            .map_or(SIZE, |s| s.parse().expect("a number of elements"));
        let a: Vec<f32> = (0..size).map(|_| next()).collect();
        let b: Vec<f32> = (0..size).map(|_| next()).collect();
        let mut out = vec![0.0f32; size];
        loops::bare(&a, &b, &mut out);
        assert!(
            out.iter()
                .zip(a.iter().zip(&b))
                .all(|(o, (x, y))| *o == x / y)
        );
        let variants: [(&str, Run); 16] = [
            ("bare loop, timed against itself", loops::bare),
            ("+ FMA residual", loops::with_residual),
            ("+ residual + 3 FMA", loops::fma),
            ("+ residual + 3 vminps", loops::minps),
            ("+ residual + 3 vcmpps", loops::cmpps),
            ("+ residual + 3 vpsignd", loops::psignd),
            ("+ residual + 3 vblendvps", loops::blendv),
            ("+ residual + 3 vpsrad", loops::psrad),
            ("+ residual + 3 vpaddd", loops::paddd),
            ("+ residual + 3 vpxor", loops::pxor),
            ("+ residual + 3 vpand", loops::pand),
            ("+ residual + 3 vpcmpgtd", loops::pcmpgtd),
            ("+ residual + 3 vpminsd", loops::pminsd),
            ("+ residual + 3 vaddps", loops::addps),
            ("the directed step, down (+0 form)", loops::step_down),
            (
                "the directed step, toward zero (+0 form)",
                loops::step_toward_zero,
            ),
        ];
        println!(
            "{cpu}: bare divider loop time / variant time, {size} elements, median (lowest..highest) of {ROUNDS} alternating rounds"
        );
        for (name, run) in variants {
            let ratios: Vec<f64> = (0..ROUNDS)
                .map(|_| {
                    let bare = time(loops::bare, &a, &b, &mut out);
                    bare / time(run, &a, &b, &mut out)
                })
                .collect();
            let (median, low, high) = summary(ratios);
            println!("  {name:42} {median:.3} ({low:.3}..{high:.3})");
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("SKIPPED: the loops are x86-64 assembly");
}
