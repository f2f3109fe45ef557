//! A software model of the sixteen-lane AVX-512F instructions the generic code uses, in plain
//! Rust: vectors are `[f32; 16]` and `[u32; 16]`, masks `u16`, the divider `/`, FMA
//! `f32::mul_add`. It implements [`Vector`], so the generic kernel, loops, directed step and
//! the `Divisor`'s lane-checked loops run on it unchanged, on any x86-64 CPU: the way the
//! 512-bit code is tested where no AVX-512F CPU is at hand, and the one way to run it with
//! seed tables no real CPU has.
//!
//! What it shares with the real instructions: every lane operation is an x86 scalar SSE
//! instruction of the same IEEE operation (`divss`, `mulss`, `vfmadd` or glibc's `fmaf`), so
//! MXCSR's rounding field, flush-to-zero, denormals-are-zero and the sticky flags act on it as
//! on the packed forms, and NaN operands propagate by x86's rules; the signaling compares and
//! `minps`/`maxps` raise invalid on a NaN as those instructions do (and the denormal flag
//! only where no NaN takes precedence in the lane); `vrcp14ps` raises no flag; directed
//! division runs `divss` under the mode ([`super::mode::div_in_mode_sse`]) and raises none.
//! `tests/backends/contract.rs` holds every method, lanes and flags, to the same statements
//! as the native backends. What it does not model: exceptions unmasked (they trap on the
//! real instructions; the crate never unmasks them), and the speed.
//!
//! `vrcp14ps` takes its seed table as the type's parameter ([`Seeds`]): Intel's published
//! reference algorithm for VRCP14 (Intel's "Reference Implementations for IA Approximation
//! Instructions VRCP14, VRSQRT14, VRCP28, VRSQRT28, and VEXP2", 2015: a linear
//! interpolation on 64 intervals), which Emerald Rapids (family 6 model 0xcf) matched on all
//! 2^32 inputs (DESIGN §4; `tests/avx512.rs` checks this transcription against the facts
//! measured there), and the two worst tables the documented bound allows, every seed at the
//! low or the high edge of `|1 − b·r| <= 2^-14`, which no real CPU would exercise.

use super::mode::{
    ALL_FLAGS, DENORMALS_ARE_ZERO, FLUSH_TO_ZERO, INVALID, div_in_mode_sse, read_mxcsr, write_flags,
};
use crate::arch::simd::Vector;
use crate::bits::{ABS_MASK, INFINITY_BITS, MANTISSA_MASK, ONE_BITS, QUIET_NAN_BIT, SIGN_MASK};

/// Lanes per vector, as the real 512-bit registers.
pub const LANES: usize = 16;

/// Which `vrcp14ps` the model computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seeds {
    /// Intel's published reference algorithm for VRCP14 (Emerald Rapids' table).
    Intel,
    /// Every seed of a normal input at the low edge of the bound: the smallest `r` with
    /// `1 − m·r <= 2^-14` for the input's significand `m`, scaled by its exponent.
    Low,
    /// Every seed at the high edge: the largest `r` with `m·r − 1 <= 2^-14`.
    High,
}

impl Seeds {
    /// Every table the model has.
    pub const ALL: [Seeds; 3] = [Seeds::Intel, Seeds::Low, Seeds::High];

    /// The name `FMADIV_BACKEND` and the reports use: `intel`, `low`, `high`.
    pub const fn name(self) -> &'static str {
        match self {
            Seeds::Intel => "intel",
            Seeds::Low => "low",
            Seeds::High => "high",
        }
    }

    /// The table of a type parameter.
    const fn of(id: u8) -> Seeds {
        match id {
            LOW => Seeds::Low,
            HIGH => Seeds::High,
            _ => Seeds::Intel,
        }
    }
}

/// [`Seeds::Intel`] as the model's type parameter.
pub const INTEL: u8 = 0;
/// [`Seeds::Low`] as the model's type parameter.
pub const LOW: u8 = 1;
/// [`Seeds::High`] as the model's type parameter.
pub const HIGH: u8 = 2;

/// The model with seed table `SEEDS` ([`INTEL`], [`LOW`] or [`HIGH`]). Every x86-64 CPU can
/// run it: a value proves nothing but SSE2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512Model<const SEEDS: u8>(());

impl<const SEEDS: u8> Avx512Model<SEEDS> {
    /// The model (any x86-64 CPU runs it).
    pub const fn new() -> Self {
        Avx512Model(())
    }
}

impl<const SEEDS: u8> Default for Avx512Model<SEEDS> {
    fn default() -> Self {
        Self::new()
    }
}

/// The relative bound every seed of the model keeps (`vrcp14ps`'s documented `2^-14`).
pub const RCP14_BOUND: f64 = 1.0 / 16384.0;

/// Intel's reference coefficients for VRCP14, one pair per interval `i` of the top six
/// fraction bits: `(a, b)` with the seed `≈ (a − 2^8·b·(x − y_i)) / 2^18` at
/// `y_i = 1 + 1/128 + i/64`, the centre of the interval.
const RCP14_COEFFICIENTS: [(u32, u32); 64] = [
    (260119, 1009),
    (256148, 977),
    (252296, 949),
    (248558, 921),
    (244929, 893),
    (241405, 869),
    (237981, 843),
    (234652, 821),
    (231416, 797),
    (228266, 777),
    (225202, 755),
    (222220, 735),
    (219314, 717),
    (216485, 699),
    (213727, 681),
    (211038, 663),
    (208417, 647),
    (205859, 631),
    (203364, 617),
    (200929, 601),
    (198551, 587),
    (196229, 573),
    (193960, 561),
    (191743, 547),
    (189576, 535),
    (187458, 523),
    (185387, 513),
    (183360, 501),
    (181377, 491),
    (179439, 479),
    (177540, 469),
    (175681, 459),
    (173860, 451),
    (172077, 441),
    (170330, 433),
    (168618, 423),
    (166940, 415),
    (165295, 407),
    (163682, 399),
    (162101, 391),
    (160550, 385),
    (159027, 377),
    (157535, 369),
    (156069, 363),
    (154631, 357),
    (153219, 349),
    (151832, 343),
    (150470, 337),
    (149133, 331),
    (147819, 325),
    (146528, 319),
    (145260, 315),
    (144012, 309),
    (142787, 303),
    (141582, 299),
    (140397, 293),
    (139232, 289),
    (138085, 285),
    (136959, 279),
    (135853, 275),
    (134763, 271),
    (133689, 267),
    (132631, 263),
    (131589, 259),
];

/// The biased exponent of `1.0`.
const EXPONENT_BIAS: u32 = 127;
/// The largest biased exponent of a finite float.
const EXPONENT_MAX: u32 = 254;
/// The implicit leading bit of a normal significand.
const HIDDEN_BIT: u32 = 1 << 23;
/// Subnormals up to this magnitude have a reciprocal beyond `f32::MAX`: an infinity.
const SMALL_SUBNORMAL_MAX: u32 = 0x0020_0000;

/// Intel's reference `vrcp14` of the significand `1.f` for a fraction `f != 0`: the seed in
/// `[1/2, 1)`, as bits.
fn rcp14_significand(fraction: u32) -> u32 {
    let interval = fraction >> 17;
    let (a, b) = RCP14_COEFFICIENTS[interval as usize];
    // x truncated to 16 fraction bits, less the interval's centre y = 1 + 2^-7 + i·2^-6, in
    // units of 2^-23: an integer in [-2^16, 2^16).
    let x_minus_y = i64::from(fraction & !0x7f) - i64::from((interval << 17) | (1 << 16));
    // (a − 2^8·b·(x − y))·2^15, exact: the seed times 2^33, in [2^32, 2^33).
    let scaled = (i64::from(a) << 15) - i64::from(b) * x_minus_y;
    // Truncated to 17 significant bits (16 fraction bits): the seed times 2^17.
    let seed = (scaled >> 16) as u32;
    debug_assert!((1 << 16..1 << 17).contains(&seed));
    ((EXPONENT_BIAS - 1) << 23) | ((seed - (1 << 16)) << 7)
}

/// Intel's reference `vrcp14ps` of one lane, MXCSR's denormals-are-zero and flush-to-zero
/// applied as the instruction applies them (rounding control does not act on it).
pub fn rcp14_reference(x: u32, mxcsr: u32) -> u32 {
    let sign = x & SIGN_MASK;
    let magnitude = x & ABS_MASK;
    let exponent = magnitude >> 23;
    let fraction = magnitude & MANTISSA_MASK;
    let flush = |r: u32| {
        // A subnormal result is a zero of the same sign under flush-to-zero.
        if mxcsr & FLUSH_TO_ZERO != 0 && r & ABS_MASK < HIDDEN_BIT {
            r & SIGN_MASK
        } else {
            r
        }
    };
    if magnitude > INFINITY_BITS {
        return x | QUIET_NAN_BIT;
    }
    if magnitude == INFINITY_BITS {
        return sign;
    }
    if magnitude == 0
        || (exponent == 0 && mxcsr & DENORMALS_ARE_ZERO != 0)
        || (exponent == 0 && magnitude <= SMALL_SUBNORMAL_MAX)
    {
        return sign | INFINITY_BITS;
    }
    if exponent == 0 {
        // A subnormal whose reciprocal is finite: normalised to 1.f·2^-(126 + shift).
        let shift = fraction.leading_zeros() - 8;
        let normalised = (fraction << shift) & MANTISSA_MASK;
        let seed = if normalised == 0 {
            ONE_BITS
        } else {
            rcp14_significand(normalised)
        };
        // 1.0 has exponent 127, a seed in [1/2, 1) exponent 126: the result's exponent
        // follows the seed's.
        let result_exponent = (seed >> 23) + 126 + shift;
        return sign | (result_exponent << 23) | (seed & MANTISSA_MASK);
    }
    if fraction == 0 {
        // A power of two: the exact reciprocal, subnormal (2^-127) for 2^127.
        return flush(if exponent == EXPONENT_MAX {
            sign | (HIDDEN_BIT >> 1)
        } else {
            sign | ((2 * EXPONENT_BIAS - exponent) << 23)
        });
    }
    let seed = rcp14_significand(fraction);
    let significand = HIDDEN_BIT | (seed & MANTISSA_MASK);
    flush(match exponent {
        // Reciprocals below 2^-126: the seed's significand shifted into a subnormal
        // (truncated, as the reference does).
        EXPONENT_MAX => sign | (significand >> 2),
        253 => sign | (significand >> 1),
        _ => sign | ((253 - exponent) << 23) | (seed & MANTISSA_MASK),
    })
}

/// A seed at the edge of `|1 − m·r| <= 2^-14` for the significand `m` (`HIGH`: the largest
/// such `r`, else the smallest), scaled by the input's exponent; Intel's reference where
/// the input or the scaled seed is not a normal number.
pub fn rcp14_edge(x: u32, mxcsr: u32, high: bool) -> u32 {
    let reference = rcp14_reference(x, mxcsr);
    let exponent = (x & ABS_MASK) >> 23;
    if exponent == 0 || exponent > EXPONENT_MAX {
        return reference;
    }
    let m = f64::from(f32::from_bits(ONE_BITS | (x & MANTISSA_MASK)));
    // m·r has at most 48 significant bits and 1 − m·r is then exact (Sterbenz): the test
    // is exact.
    let inside = |r: f32| (1.0 - m * f64::from(r)).abs() <= RCP14_BOUND;
    let target = if high {
        1.0 + RCP14_BOUND
    } else {
        1.0 - RCP14_BOUND
    } / m;
    // Start at the float nearest the edge, step outward while still inside, then inward
    // until inside: the last seed inside the bound on that side.
    let (out, into) = if high { (1i32, -1i32) } else { (-1, 1) };
    let step = |r: f32, d: i32| f32::from_bits(r.to_bits().wrapping_add_signed(d));
    let mut r = target as f32;
    while inside(step(r, out)) {
        r = step(r, out);
    }
    while !inside(r) {
        r = step(r, into);
    }
    // r(m·2^e) = r(m)·2^-e: the seed's exponent field moves by 127 − e.
    let scaled = i64::from(r.to_bits() >> 23) + i64::from(EXPONENT_BIAS) - i64::from(exponent);
    if !(1..=i64::from(EXPONENT_MAX)).contains(&scaled) {
        return reference;
    }
    (x & SIGN_MASK) | ((scaled as u32) << 23) | (r.to_bits() & MANTISSA_MASK)
}

/// The model's `vrcp14ps` of one lane under table `seeds` and control word `mxcsr`.
pub fn rcp14(seeds: Seeds, x: f32, mxcsr: u32) -> f32 {
    let x = x.to_bits();
    f32::from_bits(match seeds {
        Seeds::Intel => rcp14_reference(x, mxcsr),
        Seeds::Low => rcp14_edge(x, mxcsr, false),
        Seeds::High => rcp14_edge(x, mxcsr, true),
    })
}

/// Sets MXCSR's invalid flag where a lane was a NaN: what `minps`, `maxps` and the
/// signaling compares do on the real instructions (a Rust `<` need not).
fn invalid_if(nan: bool) {
    if nan {
        super::mode::write_flags(read_mxcsr() | INVALID);
    }
}

/// Whether any of `lanes` is a NaN, read from the bits: a float compare would raise the
/// denormal-operand flag for a subnormal beside a NaN, where the instructions raise invalid
/// alone (a NaN operand takes precedence).
fn any_nan<'a>(lanes: impl IntoIterator<Item = &'a f32>) -> bool {
    lanes
        .into_iter()
        .any(|x| x.to_bits() & ABS_MASK > INFINITY_BITS)
}

/// `f` of every lane.
#[inline(always)]
fn lanes<T: Copy, const N: usize>(f: impl FnMut(usize) -> T) -> [T; N] {
    core::array::from_fn(f)
}

/// The mask of the lanes where `f` holds.
#[inline(always)]
fn mask_where(f: impl Fn(usize) -> bool) -> u16 {
    (0..LANES).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

// The lane operations are out of line (`#[inline(never)]`). Inlined, every generic loop,
// instantiated for each of the three tables, unrolled sixteen scalar lanes per operation:
// 6.8 MB of the tool's 8.1 MB of this crate's code (2.9 MB out of line), and a clean
// `cargo test --release --no-run` took 396 s, 267 s of them compiling this library with its
// one codegen unit (191 s and 89 s out of line; family 0x19, 2 cores). The model's suites
// run about 15% longer; its speed is not what it models.
//
// SAFETY: the model executes only SSE2, which every x86-64 CPU has; its pointer methods
// touch exactly the floats their contracts name.
unsafe impl<const SEEDS: u8> Vector for Avx512Model<SEEDS> {
    const LANES: usize = LANES;
    const EMBEDDED_ROUNDING: bool = true;
    /// As the backend it models: the loops run the same blocks over the same lanes.
    const ALIGNS_STORES: bool = true;
    /// As the backend it models: its seeds are `vrcp14ps`' (any table of the model's is
    /// within 2^-14).
    const NEAR_ALL_ONES_DIVISORS: u32 = crate::bits::RCP14_NEAR_ALL_ONES_DIVISORS;
    type F = [f32; LANES];
    type I = [u32; LANES];
    /// One bit a lane, as a `k` register.
    type M = u16;

    #[inline(never)]
    unsafe fn load(self, p: *const f32) -> [f32; LANES] {
        // SAFETY: the caller's guarantee: LANES floats readable (any alignment).
        unsafe { core::ptr::read_unaligned(p.cast()) }
    }

    #[inline(never)]
    unsafe fn store(self, p: *mut f32, v: [f32; LANES]) {
        // SAFETY: the caller's guarantee: LANES floats writable (any alignment).
        unsafe { core::ptr::write_unaligned(p.cast(), v) }
    }

    #[inline(never)]
    unsafe fn load_partial(self, p: *const f32, n: usize, pad: f32) -> [f32; LANES] {
        // SAFETY: only the first `n` floats are read (the caller's guarantee).
        lanes(|l| if l < n { unsafe { *p.add(l) } } else { pad })
    }

    #[inline(never)]
    unsafe fn store_partial(self, p: *mut f32, n: usize, v: [f32; LANES]) {
        for (l, &x) in v.iter().enumerate().take(n) {
            // SAFETY: l < n: writable (the caller's guarantee).
            unsafe { *p.add(l) = x };
        }
    }

    fn splat(self, x: f32) -> [f32; LANES] {
        [x; LANES]
    }

    #[inline(never)]
    fn div(self, a: [f32; LANES], b: [f32; LANES]) -> [f32; LANES] {
        lanes(|l| a[l] / b[l])
    }

    #[inline(never)]
    fn mul(self, a: [f32; LANES], b: [f32; LANES]) -> [f32; LANES] {
        lanes(|l| a[l] * b[l])
    }

    #[inline(never)]
    fn mul_add(self, a: [f32; LANES], b: [f32; LANES], c: [f32; LANES]) -> [f32; LANES] {
        lanes(|l| a[l].mul_add(b[l], c[l]))
    }

    #[inline(never)]
    fn neg_mul_add(self, a: [f32; LANES], b: [f32; LANES], c: [f32; LANES]) -> [f32; LANES] {
        // -(a·b) + c with one rounding: negating an operand is exact.
        lanes(|l| (-a[l]).mul_add(b[l], c[l]))
    }

    #[inline(never)]
    fn rcp(self, b: [f32; LANES]) -> [f32; LANES] {
        let mxcsr = read_mxcsr();
        let r = b.map(|x| rcp14(Seeds::of(SEEDS), x, mxcsr));
        // `vrcp14ps` raises no flag; the edge tables' search in binary64 raises inexact.
        write_flags(mxcsr & ALL_FLAGS);
        r
    }

    #[inline(never)]
    fn div_in_mode(self, a: [f32; LANES], b: [f32; LANES], mode: u8) -> [f32; LANES] {
        // Embedded rounding: `divss` under the mode, then MXCSR's flags as they were
        // (suppress-all-exceptions raises none).
        let flags = read_mxcsr() & ALL_FLAGS;
        let mut q = [0.0; LANES];
        div_in_mode_sse(&a, &b, &mut q, mode);
        write_flags(flags);
        q
    }

    #[inline(never)]
    unsafe fn div_in_mode_region<const MODE: u8>(
        self,
        a: *const f32,
        b: *const f32,
        out: *mut f32,
        vectors: usize,
    ) {
        for v in 0..vectors {
            let i = v * LANES;
            // SAFETY: vector v < vectors lies inside the three (the caller's guarantee),
            // loaded before its store (so `out == a` is fine).
            unsafe {
                let q = self.div_in_mode(self.load(a.add(i)), self.load(b.add(i)), MODE);
                self.store(out.add(i), q);
            }
        }
    }

    #[inline(never)]
    fn bits(self, x: [f32; LANES]) -> [u32; LANES] {
        x.map(f32::to_bits)
    }

    #[inline(never)]
    fn float(self, x: [u32; LANES]) -> [f32; LANES] {
        x.map(f32::from_bits)
    }

    #[inline(never)]
    fn splat_bits(self, bits: u32) -> [u32; LANES] {
        [bits; LANES]
    }

    #[inline(never)]
    fn add(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l].wrapping_add(b[l]))
    }

    #[inline(never)]
    fn sub(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l].wrapping_sub(b[l]))
    }

    #[inline(never)]
    fn and(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l] & b[l])
    }

    #[inline(never)]
    fn xor(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l] ^ b[l])
    }

    #[inline(never)]
    fn or(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l] | b[l])
    }

    #[inline(never)]
    fn shift_left_1(self, a: [u32; LANES]) -> [u32; LANES] {
        a.map(|x| x << 1)
    }

    #[inline(never)]
    fn max_u32(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        lanes(|l| a[l].max(b[l]))
    }

    #[inline(never)]
    fn equal(self, a: [u32; LANES], b: [u32; LANES]) -> u16 {
        mask_where(|l| a[l] == b[l])
    }

    #[inline(never)]
    fn greater(self, a: [u32; LANES], b: [u32; LANES]) -> u16 {
        // Signed, as `vpcmpgtd`: the bits reinterpreted.
        mask_where(|l| (a[l] as i32) > (b[l] as i32))
    }

    #[inline(never)]
    fn min_signed(self, a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
        // Signed, as `vpminsd`: the bits reinterpreted.
        lanes(|l| (a[l] as i32).min(b[l] as i32) as u32)
    }

    #[inline(never)]
    fn step_by_signs(self, q: [u32; LANES], r: [f32; LANES], a: [f32; LANES]) -> [u32; LANES] {
        // As the masked add: the compare's lanes (and flags), then +1 or -1 by the signs'
        // xor (an arithmetic shift of it, or-ed with 1).
        let inexact = self.nonzero(r);
        lanes(|l| {
            let one_way = (((r[l].to_bits() ^ a[l].to_bits()) as i32) >> 31) | 1;
            match inexact >> l & 1 {
                1 => q[l].wrapping_add(one_way as u32),
                _ => q[l],
            }
        })
    }

    #[inline(never)]
    fn step_by_signs_plus_zero(
        self,
        q: [u32; LANES],
        r: [f32; LANES],
        a: [f32; LANES],
    ) -> [u32; LANES] {
        // As the 512-bit backend: the general form.
        self.step_by_signs(q, r, a)
    }

    #[inline(never)]
    fn nonzero(self, x: [f32; LANES]) -> u16 {
        // Ordered not-equal (quiet): false for zeros and NaNs, no flag.
        mask_where(|l| !x[l].is_nan() && x[l] != 0.0)
    }

    #[inline(never)]
    fn negative_signaling(self, x: [f32; LANES]) -> u16 {
        invalid_if(any_nan(&x));
        mask_where(|l| x[l] < 0.0)
    }

    #[inline(never)]
    fn minimum(self, a: [f32; LANES], b: [f32; LANES]) -> [f32; LANES] {
        invalid_if(any_nan(a.iter().chain(&b)));
        // `minps`: the first operand where it is less, else the second (NaNs, equal zeros).
        lanes(|l| if a[l] < b[l] { a[l] } else { b[l] })
    }

    #[inline(never)]
    fn maximum(self, a: [f32; LANES], b: [f32; LANES]) -> [f32; LANES] {
        invalid_if(any_nan(a.iter().chain(&b)));
        // `maxps`: the first operand where it is greater, else the second.
        lanes(|l| if a[l] > b[l] { a[l] } else { b[l] })
    }

    fn no_lanes(self) -> u16 {
        0
    }

    fn mask_and_not(self, a: u16, b: u16) -> u16 {
        !a & b
    }

    fn mask_or(self, a: u16, b: u16) -> u16 {
        a | b
    }

    fn mask_not(self, m: u16) -> u16 {
        !m
    }

    #[inline(never)]
    fn mask_lanes(self, m: u16) -> [u32; LANES] {
        lanes(|l| if m >> l & 1 == 1 { u32::MAX } else { 0 })
    }

    fn all(self, m: u16) -> bool {
        m == u16::MAX
    }

    fn any(self, m: u16) -> bool {
        m != 0
    }

    #[inline(never)]
    fn blend(self, a: [f32; LANES], b: [f32; LANES], m: u16) -> [f32; LANES] {
        lanes(|l| if m >> l & 1 == 1 { b[l] } else { a[l] })
    }

    fn cold<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }

    unsafe fn assume() -> Self {
        Avx512Model(())
    }
}

/// The model's entry points with Intel's reference seeds.
pub mod intel {
    /// The model with Intel's reference `vrcp14ps`.
    pub type Model = super::Avx512Model<{ super::INTEL }>;
    crate::arch::simd::entry_points!(Model, "sse2");
}

/// The model's entry points with every seed at the bound's low edge.
pub mod low {
    /// The model with the low-edge table.
    pub type Model = super::Avx512Model<{ super::LOW }>;
    crate::arch::simd::entry_points!(Model, "sse2");
}

/// The model's entry points with every seed at the bound's high edge.
pub mod high {
    /// The model with the high-edge table.
    pub type Model = super::Avx512Model<{ super::HIGH }>;
    crate::arch::simd::entry_points!(Model, "sse2");
}
