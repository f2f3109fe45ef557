//! Shared test helpers: a seeded bit-pattern generator, the edge-value table, and checks
//! that compare bits with the hardware's `a / b`.
#![allow(dead_code, unused_imports)]

#[cfg(target_arch = "x86_64")]
pub use fmadiv_verify::mxcsr::{ALL_FLAGS, flags_of, read_mxcsr, write_mxcsr};
pub use fmadiv_verify::samples::{SplitMix64, edge_pairs, edge_values, seed, skipped_once};
/// The hardware's `a[i] / b[i]` at the widest divider (the per-lane IEEE quotient, as `a / b`).
pub use fmadiv_verify::widest::quotients;

/// Floats past a cache line's start where [`LineOutput`] puts its first: 16 bytes, where
/// the system allocator puts a `Vec<f32>`. The sixteen-lane loops divide the elements before
/// the output's next line first from `LINE_HEAD_FROM` elements (`fmadiv::verify::line_head`);
/// a test that reads which lanes a loop gave its kernel places the output so, the same on
/// every run.
pub const OUTPUT_PAST_LINE: usize = 4;

/// A zeroed output of some floats, the first [`OUTPUT_PAST_LINE`] floats past a line.
pub struct LineOutput {
    buf: Vec<f32>,
    start: usize,
    len: usize,
}

impl LineOutput {
    /// `len` zeroed floats.
    pub fn new(len: usize) -> LineOutput {
        let buf = vec![0.0f32; len + 16 + OUTPUT_PAST_LINE];
        let start = buf.as_ptr().align_offset(64) + OUTPUT_PAST_LINE;
        LineOutput { buf, start, len }
    }

    /// The floats as a vector of their own (wherever that lies).
    pub fn to_vec(&self) -> Vec<f32> {
        self.buf[self.start..self.start + self.len].to_vec()
    }
}

impl core::ops::Deref for LineOutput {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl core::ops::DerefMut for LineOutput {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// Formats a mismatch for a failure message.
pub fn describe(a: f32, b: f32, got: f32, want: f32) -> String {
    format!(
        "a = {:#010x} ({a:e}), b = {:#010x} ({b:e}): got {:#010x} ({got:e}), want {:#010x} ({want:e})",
        a.to_bits(),
        b.to_bits(),
        got.to_bits(),
        want.to_bits()
    )
}

/// Asserts `got[i]` has the bits of `a[i] / b[i]` for every i (by [`quotients`]).
#[track_caller]
pub fn assert_quotients(what: &str, a: &[f32], b: &[f32], got: &[f32]) {
    assert_eq!(a.len(), got.len());
    let mut want = vec![0.0f32; a.len()];
    quotients(a, &b[..a.len()], &mut want);
    for i in 0..a.len() {
        if got[i].to_bits() != want[i].to_bits() {
            panic!("{what}: {}", describe(a[i], b[i], got[i], want[i]));
        }
    }
}

/// Counts the mismatches of `f` against `a / b` over all pairs of `dividends × divisors`,
/// returning the count and the first mismatch.
pub fn count_mismatches(
    dividends: &[f32],
    divisors: &[f32],
    f: impl Fn(&[f32], &[f32], &mut [f32]),
) -> (u64, Option<String>) {
    let mut a = vec![0.0f32; divisors.len()];
    let mut out = vec![0.0f32; divisors.len()];
    let mut want = vec![0.0f32; divisors.len()];
    let mut count = 0;
    let mut first = None;
    for &x in dividends {
        a.fill(x);
        f(&a, divisors, &mut out);
        quotients(&a, divisors, &mut want);
        for ((&y, &q), &want) in divisors.iter().zip(&out).zip(&want) {
            if q.to_bits() != want.to_bits() {
                count += 1;
                first.get_or_insert_with(|| describe(x, y, q, want));
            }
        }
    }
    (count, first)
}

/// The 2^23 divisors 1.m in [1, 2).
pub fn all_mantissas() -> Vec<f32> {
    (0..1u32 << 23)
        .map(|m| f32::from_bits(0x3f80_0000 | m))
        .collect()
}

/// Dividends 1.m for m in `range`, against all 2^23 divisors in [1,2), in parallel.
/// Returns the number of pairs, the number of mismatches and the first mismatch.
pub fn mantissa_rows(
    range: std::ops::Range<u32>,
    f: impl Fn(&[f32], &[f32], &mut [f32]) + Sync,
) -> (u64, u64, Option<String>) {
    use rayon::prelude::*;
    let divisors = all_mantissas();
    let results: Vec<(u64, Option<String>)> = range
        .clone()
        .into_par_iter()
        .map(|m| {
            let dividend = [f32::from_bits(0x3f80_0000 | m)];
            count_mismatches(&dividend, &divisors, &f)
        })
        .collect();
    let pairs = (range.len() as u64) << 23;
    let mismatches = results.iter().map(|r| r.0).sum();
    let first = results.into_iter().find_map(|r| r.1);
    (pairs, mismatches, first)
}

/// Runs `a / b` and `1 / b` under every schedule the plan can choose (those this CPU can
/// run; the others are reported once) and compares the bits with the hardware.
#[track_caller]
pub fn assert_every_schedule(a: &[f32], b: &[f32]) {
    use fmadiv::Schedule;
    let mut out = vec![0.0f32; a.len()];
    for s in Schedule::CANDIDATES.into_iter().chain([Schedule::Portable]) {
        out.fill(0.0);
        if fmadiv::verify::run_schedule(s, Some(a), b, &mut out).is_none() {
            skipped_once(&format!("schedule {} (needs AVX2+FMA)", s.name()));
            continue;
        }
        assert_quotients(&format!("schedule {}", s.name()), a, b, &out);
        out.fill(0.0);
        fmadiv::verify::run_schedule(s, None, b, &mut out).unwrap();
        let ones = vec![1.0f32; b.len()];
        assert_quotients(&format!("recip schedule {}", s.name()), &ones, b, &out);
    }
}

/// Pairs for the directed functions' flag-checked chunks (slices of 512 and more keep every
/// lane of a chunk that raised no underflow, overflow or invalid flag): first, 3 × 4096
/// normal pairs with quotients that raise none of those flags in `vdivps` sprinkled in —
/// quiet NaNs (the `min`/`max` of down and up raise invalid for them, so those chunks go to
/// the divider; toward zero keeps them), zeros, exact quotients (subnormal ones too),
/// subnormal dividends, quotients near both ends of the normal range — which the step
/// itself must get right; then 8 × 4096 normal
/// pairs with four quotients that underflow inexactly in each 4096 (a few units of 2^-149
/// over divisors in (0.5, 1): the residual can round to zero there), which only the
/// underflow flag sends to the divider.
pub fn flag_chunk_pairs() -> (Vec<f32>, Vec<f32>) {
    const QUIET: [(u32, u32); 24] = [
        (0x7fc0_1234, 0x4040_0000), // quiet NaN / 3
        (0xbfc0_0000, 0xffc0_4321), // -1.5 / quiet NaN
        (0x3f80_0000, 0xffc0_0abc), // 1 / negative quiet NaN: the NaN's sign is not a's
        (0xc000_0000, 0x7fc0_0def), // -2 / quiet NaN
        (0x7fc0_0001, 0xffc0_0002), // NaN / NaN
        (0x0000_0000, 0x406c_cccd), // +0 / 3.7
        (0x8000_0000, 0x406c_cccd), // -0 / 3.7
        (0x0000_0000, 0xc020_0000), // +0 / -2.5
        (0x8000_0000, 0x9e3c_e508), // -0 / -1e-20
        (0x40c0_0000, 0x4040_0000), // 6 / 3
        (0xbfc0_0000, 0x3f40_0000), // -1.5 / 0.75
        (0x3f80_0000, 0x0d80_0000), // 1 / 2^-100
        (0x7180_0000, 0xb200_0000), // 2^100 / -2^-27
        (0x0440_0000, 0x4480_0000), // 1.5·2^-119 / 2^10: exact subnormal
        (0x8100_0000, 0x4080_0000), // -2^-125 / 4: exact subnormal
        (0x0000_1234, 0x3f80_0000), // subnormal / 1
        (0x8040_0000, 0x3f00_0000), // -2^-127 / 0.5: exact normal from a subnormal
        (0x7eff_c99e, 0x3f19_999a), // 1.7e38 / 0.6
        (0xff61_b1e6, 0x3fc0_0000), // -3e38 / 1.5
        (0x7f7f_ffff, 0x3f80_0000), // MAX / 1
        (0x7f7f_ffff, 0x3f80_0001), // MAX / (1 + 2^-23)
        (0x0d80_0000, 0x4c00_0000), // 2^-100 / 2^25: 2^-125, exact
        (0x0db2_5d5a, 0x4be4_e1c0), // 1.1e-30 / 3e7: inexact, still normal
        (0xff7f_ffff, 0xbf80_0001), // -MAX / -(1 + 2^-23)
    ];
    let mut rng = SplitMix64(0x666c_6167);
    let mut a: Vec<f32> = (0..11 * 4096).map(|_| rng.next_normal()).collect();
    let mut b: Vec<f32> = (0..a.len()).map(|_| rng.next_normal()).collect();
    for (k, i) in (17..3 * 4096).step_by(97).enumerate() {
        let (x, y) = QUIET[k % QUIET.len()];
        (a[i], b[i]) = (f32::from_bits(x), f32::from_bits(y));
    }
    for chunk in 3..11 {
        for _ in 0..4 {
            let r = rng.next_u64();
            let i = chunk * 4096 + (r % 4096) as usize;
            // A few units of 2^-149 over a divisor in (0.5, 1), random signs.
            let units = 1 + (r >> 16) as u32 % 64;
            let divisor = 0x3f00_0001 + (r >> 40) as u32 % 0x7f_fffe;
            a[i] = f32::from_bits(units | ((r >> 32) as u32 & 0x8000_0000));
            b[i] = f32::from_bits(divisor | ((r >> 15) as u32 & 1) << 31);
        }
    }
    (a, b)
}

/// The seed of `x` the kernels of `entry`'s backend start from (entry points may run
/// different widths: `fmadiv::backend_of`): `vrcp14ps` (this CPU's, or the model's table) on
/// the sixteen-lane backends, this CPU's `rcpps` elsewhere.
#[cfg(fmadiv_x86)]
pub fn seed_in_use(entry: fmadiv::EntryPoint, x: f32) -> f32 {
    match fmadiv::backend_of(entry) {
        fmadiv::Backend::Avx512 => fmadiv::verify::native_rcp14([x; 8]).expect("AVX-512F")[0],
        fmadiv::Backend::Avx512Model(seeds) => fmadiv::verify::avx512_model::rcp14(seeds, x, 0),
        _ => {
            use core::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
            // SAFETY: SSE is baseline on x86-64.
            unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))) }
        }
    }
}

/// `len` random dividends of either sign with exponent fields 100 to 155 (about 2^-27 to
/// 2^28): inside the dividend window of divisors of moderate magnitude (3 and 0x3fd12de7,
/// either sign), so that a window-checked loop runs the sequence on them.
pub fn in_window_dividends(rng: &mut SplitMix64, len: usize) -> Vec<f32> {
    (0..len)
        .map(|_| {
            let r = rng.next_u64();
            f32::from_bits((r as u32 & 0x807f_ffff) | (100 + (r >> 32) as u32 % 56) << 23)
        })
        .collect()
}

/// A divisor forced to two products where they are wrong (significand 0x216c5f:
/// `Divisor::new` never chooses them there), and the dividends they get wrong (the
/// significands in [1, 2) whose quotient is wrong, at exponents -20..20, both signs: the
/// error does not change with the dividend's exponent inside the window). Every lane such a
/// divisor's sequence computes is wrong, every lane of the divider right: the output shows
/// which lanes a loop gave the sequence.
pub fn two_products_where_wrong() -> (f32, fmadiv::Divisor, Vec<f32>) {
    let b = f32::from_bits(0x3fa1_6c5f);
    let weakened = fmadiv::verify::divisor::with_strategy(b, fmadiv::Strategy::TwoProducts);
    let wrong = dividends_where_wrong(b, &weakened);
    (b, weakened, wrong)
}

/// A divisor given Markstein's sequence with `zh = RZ(1/b)` where `RN(1/b)` rounded away
/// (significand 0x2e78b5, a two-products divisor: the sequence needs `RN(1/b)`), and the
/// dividends it gets wrong (two significands in [1, 2), at exponents -20..20, both signs),
/// as [`two_products_where_wrong`]: the output shows which lanes a loop gave the sequence.
/// (With `RN(1/b)` Markstein's sequence is right far more often than the proof can say: no
/// dividend of [1, 2) was wrong for the forty hardware divisors of [1, 2) with the largest
/// `|1 - b·RN(1/b)|`.)
pub fn markstein_where_wrong() -> (f32, fmadiv::Divisor, Vec<f32>) {
    let b = f32::from_bits(0x3fae_78b5);
    let weakened =
        fmadiv::verify::divisor::with_strategy_toward_zero(b, fmadiv::Strategy::Markstein);
    let wrong = dividends_where_wrong(b, &weakened);
    (b, weakened, wrong)
}

/// Which lanes of `got`, the quotients of `x` by `b` from a loop run with `weakened` (one
/// of the divisors above), its sequence computed: every lane must be `/`'s or the
/// sequence's (`weakened.divide`), and on the dividends where the sequence is wrong those
/// differ. Panics, naming `what` and the lane, on a lane that is neither.
pub fn sequence_lanes(
    what: &str,
    x: &[f32],
    b: f32,
    weakened: &fmadiv::Divisor,
    got: &[f32],
) -> Vec<bool> {
    (0..x.len())
        .map(|i| {
            let (g, right) = (got[i].to_bits(), (x[i] / b).to_bits());
            let sequence = weakened.divide(x[i]).to_bits();
            assert!(
                g == right || g == sequence,
                "{what}: lane {i} of {} is neither the sequence's nor the divider's",
                x.len()
            );
            g != right
        })
        .collect()
}

/// The dividends `weakened` gets wrong over `b`: the significands of [1, 2), at exponents
/// -20..20, both signs (inside the window of both sequences, whose error does not change
/// with the dividend's exponent there). Panics if there are none.
fn dividends_where_wrong(b: f32, weakened: &fmadiv::Divisor) -> Vec<f32> {
    let wrong: Vec<f32> = (0..1u32 << 23)
        .map(|m| f32::from_bits(0x3f80_0000 | m))
        .filter(|&x| weakened.divide(x).to_bits() != (x / b).to_bits())
        .flat_map(|x| (-20..20).flat_map(move |e| [x, -x].map(|x| x * 2f32.powi(e))))
        .collect();
    assert!(
        !wrong.is_empty(),
        "{} is wrong for some dividend over {b:e}",
        weakened.strategy()
    );
    wrong
}

/// Whether the lanes of `recip`'s kernel on `backend` can be read with the published
/// reciprocal kernel (no near-all-ones rule): it is one ulp low for `1 / (2 - 2^-23)` where
/// the seed of that is exactly 0.5 (AMD's `rcpps`, Intel's reference `vrcp14ps`, the
/// model's low table). Says so where it cannot.
#[cfg(target_arch = "x86_64")]
pub fn recip_lanes_readable(backend: fmadiv::Backend) -> bool {
    let marker = f32::from_bits(0x3fff_ffff);
    let mut probe = [0.0f32; 1];
    let published = fmadiv::verify::Kernel::Published;
    fmadiv::verify::recip_with_on(backend, published, &[marker], &mut probe).unwrap();
    let readable = probe[0] != std::hint::black_box(1.0f32) / marker;
    if !readable {
        eprintln!(
            "{}: recip SKIPPED, the published reciprocal kernel is right for 1 / (2 - 2^-23) \
             on this table, so no lane can be read",
            backend.name()
        );
    }
    readable
}

/// Divisors `±0x1.fffffep+e` for exponents across the window: the published reciprocal
/// kernel's one-ulp error where [`recip_lanes_readable`].
pub fn near_all_ones_divisors(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    (0..len)
        .map(|_| {
            let r = rng.next_u64();
            let exponent = 127 - 60 + (r >> 32) as u32 % 120;
            f32::from_bits((r as u32 & 0x8000_0000) | exponent << 23 | 0x7f_ffff)
        })
        .collect()
}

/// Reads whether a public call ran the plan's mixed loop, through that loop's back-off,
/// which belongs to the thread: a call of one step whose kernel block fails (a zero
/// divisor) leaves the thread's next mixed-loop steps to the divider, so a following run of
/// the plan's loop with a weakened kernel shows the divider where, on a thread with no such
/// call, it shows the kernel. A call that divided elsewhere (the short loop, the divider, a
/// plain `/`) leaves no back-off — as the unoptimised build's slice functions must, which
/// run the `asm!` divider loop (`verify::UNOPTIMIZED`).
#[cfg(fmadiv_x86)]
pub struct PlansLoops {
    backend: fmadiv::Backend,
    schedule: fmadiv::Schedule,
    lanes: usize,
    block: usize,
    /// Elements of one step of the plan's loop (a kernel block and its divider vectors).
    step: usize,
}

#[cfg(fmadiv_x86)]
impl PlansLoops {
    /// The schedule a test forces where this process's plan runs none it can read.
    const FORCED: &str = "mix-4";

    /// The reader for this process's plan of `entry` (`Div` or `Recip`), on its backend
    /// (`fmadiv::backend_of`). `None` where the test `name` ran itself again with
    /// `FMADIV_SCHEDULE=mix-4` instead (the plan runs no kernel schedule for one step of
    /// `entry`: bits cannot show which loop ran) or skips, saying so.
    pub fn of_this_process(name: &str, entry: fmadiv::EntryPoint) -> Option<Self> {
        if !fmadiv::verify::has_kernel() {
            skipped_once("the plan's kernel loops (needs a SIMD backend)");
            return None;
        }
        let mut backend = fmadiv::backend_of(entry);
        let block = fmadiv::verify::MIXED_BLOCK_VECTORS * backend.lanes();
        if entry == fmadiv::EntryPoint::Recip && block < fmadiv::plan().recip_eight_lanes_below() {
            // Short slices of `recip` run the eight-lane loops below a table row's bound
            // (`Plan::recip_eight_lanes_below`), and the probe's are short.
            backend = fmadiv::Backend::Avx2Fma;
        }
        let lanes = backend.lanes();
        let block = fmadiv::verify::MIXED_BLOCK_VECTORS * lanes;
        let schedule = match entry {
            fmadiv::EntryPoint::Recip => fmadiv::plan().recip(block),
            _ => fmadiv::plan().div(block),
        };
        if !schedule.uses_kernel() {
            if std::env::var_os("FMADIV_SCHEDULE").is_some() {
                eprintln!("{name}: SKIPPED, the forced plan runs no kernel schedule ({schedule})");
                return None;
            }
            let exe = std::env::current_exe().expect("the test binary");
            let status = std::process::Command::new(exe)
                .args(["--exact", name, "--nocapture"])
                .env("FMADIV_SCHEDULE", Self::FORCED)
                .status()
                .expect("the test binary runs");
            assert!(
                status.success(),
                "{name} under FMADIV_SCHEDULE={}",
                Self::FORCED
            );
            return None;
        }
        let divider_vectors = match schedule {
            fmadiv::Schedule::Mixed(m) => usize::from(m.divider_vectors()),
            _ => 0,
        };
        let probe = Self {
            backend,
            schedule,
            lanes,
            block,
            step: block + divider_vectors * lanes,
        };
        assert!(
            on_a_fresh_thread(|| probe.first_block_is_the_kernels()),
            "{schedule}: a fresh thread's first block"
        );
        Some(probe)
    }

    /// Dividends 1.5 over divisors in the window for one step after any head to the
    /// output's cache line (`fmadiv::verify::line_head`: fewer than a vector, where the
    /// caller's output lies is not known here), its kernel block failed by zero divisors
    /// in two of its vectors (the eight-lane reciprocal loops back off from a lone special
    /// only at its second failure), at the first lane of the block's second half and one
    /// vector on, whatever the head: the loop of half the width (no head) finds them among
    /// its divider vectors (every mix has some) or past its step and leaves no back-off, so
    /// the probe tells the width too.
    pub fn failing_step(&self) -> (Vec<f32>, Vec<f32>) {
        let len = self.step + self.lanes - 1;
        let mut b = Self::divisors(len);
        b[self.block / 2] = 0.0;
        b[self.block / 2 + self.lanes] = 0.0;
        (vec![1.5; len], b)
    }

    /// Asserts that `call`, run on a fresh thread, ran the plan's mixed loop there (it leaves
    /// a back-off); in an unoptimised build, that it did not (its `asm!` loop leaves none).
    #[track_caller]
    pub fn assert_runs_the_plans_loop(&self, what: &str, call: &(dyn Fn() + Sync)) {
        let backed_off = on_a_fresh_thread(|| {
            call();
            !self.first_block_is_the_kernels()
        });
        let plans_loop = !fmadiv::verify::UNOPTIMIZED;
        assert!(
            backed_off == plans_loop,
            "{what} ({} on {}): {}",
            self.schedule,
            self.backend.name(),
            match plans_loop {
                true => "no back-off left, so not the plan's loop",
                false => "a back-off left in an unoptimised build, so not the asm! loop",
            }
        );
    }

    /// `n` divisors in [1, 1.25): inside the window, none near all ones.
    fn divisors(n: usize) -> Vec<f32> {
        (0..n).map(|i| 1.0 + (i % 64) as f32 / 256.0).collect()
    }

    /// Whether the first block of the plan's loop with a weakened kernel (the divisor's
    /// window only) is the kernel's on this thread: NaN from that kernel for infinite
    /// dividends over divisors in the window, an infinity from the divider. (`div`'s loop
    /// of the schedule on the probe's backend: the back-off is one per thread, shared by
    /// `div` and `recip` and both widths.)
    fn first_block_is_the_kernels(&self) -> bool {
        let n = 4 * self.step;
        let a: Vec<f32> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    f32::INFINITY
                } else {
                    -f32::INFINITY
                }
            })
            .collect();
        let b = Self::divisors(n);
        let mut out = LineOutput::new(n);
        fmadiv::verify::run_schedule_divisor_window_only_on(
            self.backend,
            self.schedule,
            &a,
            &b,
            &mut out,
        )
        .expect("a kernel schedule on the backend in use");
        let head = fmadiv::verify::line_head(self.backend, &out);
        let first_block = &out[head..head + self.block];
        let kernel = first_block.iter().filter(|q| q.is_nan()).count();
        assert!(
            kernel == 0 || kernel == self.block,
            "{kernel} of the first block's lanes"
        );
        kernel == self.block
    }
}

/// `f` on a thread of its own: no back-off left by an earlier call of the test's thread.
pub fn on_a_fresh_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|t| t.spawn(f).join().expect("the thread finished"))
}
