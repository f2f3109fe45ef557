//! The contract of `Vector` — what the generic kernel, loops and directed step ask of a
//! backend — checked method by method and lane by lane: each method against a plain
//! statement of its documentation, on edge values, NaNs with payloads and random bit
//! patterns, under every MXCSR rounding mode with and without FTZ and DAZ, with the sticky
//! flags it raises. The quotient tests see a backend only through what the kernel makes of
//! its instructions; this sees each instruction, so a native run of the 512-bit backend
//! (`scripts/native-avx512.sh`) holds the real instructions to the statements the model was
//! written from, and a model that drifts from them is caught on every machine.
//!
//! What the statements take from x86 (Intel's SDM): a packed operation raises the flags its
//! lanes raise as scalar SSE instructions under the same MXCSR; the divider's NaN bits are
//! `divss`'s (the crate promises `a / b`'s bits); a NaN from a multiply or an FMA is compared
//! as a NaN only (which NaN operand propagates follows the instruction form the compiler
//! picks, and the kernel never lets one through); `rcp` keeps the bound the kernels are
//! proven for inside their window and raises no flag; a quiet compare raises invalid for a
//! signalling NaN, a signalling compare and `minps`/`maxps` for any NaN, and each of them
//! denormal for a subnormal operand unless DAZ reads it as zero; embedded rounding raises
//! no flag at all.

use std::hint::black_box;

use fmadiv::verify::bits::{INPUT_EXPONENT_MIN, INPUT_EXPONENTS};
use fmadiv::verify::x86::Vector;

use crate::common::{ALL_FLAGS, SplitMix64, edge_values, read_mxcsr, write_mxcsr};
use crate::{DAZ, FTZ, RC, RC_SHIFT};

/// MXCSR's invalid-operation flag.
const INVALID: u32 = 1 << 0;
/// MXCSR's denormal-operand flag.
const DENORMAL: u32 = 1 << 1;
/// The bound every `rcp` keeps inside the kernels' input window (`rcpps`'s documented
/// `1.5·2^-12`; `vrcp14ps` keeps `2^-14`).
const RCP_BOUND: f64 = 1.5 / 4096.0;
/// Random vectors per check and MXCSR setting.
const ROUNDS: usize = 256;

/// Every MXCSR setting the checks run under: each rounding mode, with and without FTZ
/// and DAZ.
fn controls() -> impl Iterator<Item = u32> {
    (0..16u32).map(|k| {
        ((k & 3) << RC_SHIFT) | if k & 4 != 0 { FTZ } else { 0 } | if k & 8 != 0 { DAZ } else { 0 }
    })
}

/// `f()` under MXCSR `control` (rounding field, FTZ, DAZ; flags clear) and the flags it
/// raised, MXCSR as it was afterwards. Not inlined, so that nothing else runs under
/// `control`. Panics if `f` changed MXCSR's control bits.
#[inline(never)]
fn under<R>(control: u32, f: impl FnOnce() -> R) -> (R, u32) {
    let saved = read_mxcsr();
    let set = (saved & !(RC | FTZ | DAZ | ALL_FLAGS)) | control;
    write_mxcsr(set);
    let r = black_box(f());
    let after = read_mxcsr();
    write_mxcsr(saved);
    assert_eq!(after & !ALL_FLAGS, set, "MXCSR's control bits changed");
    (r, after & ALL_FLAGS)
}

fn is_nan(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

fn is_signalling(x: u32) -> bool {
    is_nan(x) && x & 0x0040_0000 == 0
}

fn is_subnormal(x: u32) -> bool {
    x & 0x7f80_0000 == 0 && x & 0x007f_ffff != 0
}

/// `x` as an operation reads it under `control`: a subnormal is a zero of its sign under DAZ.
fn as_read(x: u32, control: u32) -> f32 {
    if control & DAZ != 0 && is_subnormal(x) {
        f32::from_bits(x & 0x8000_0000)
    } else {
        f32::from_bits(x)
    }
}

/// The flags a lane of a compare or of `minps`/`maxps` raises on `operands` under
/// `control`: invalid for a NaN that `raises` (all for a signalling compare, signalling ones
/// for a quiet one); else, a NaN aside, denormal for a subnormal operand unless DAZ. (A NaN
/// operand takes precedence over the denormal-operand exception: SDM vol. 1, 4.9.2.)
fn compare_flags(operands: &[u32], control: u32, raises: fn(u32) -> bool) -> u32 {
    if operands.iter().any(|&x| raises(x)) {
        INVALID
    } else if operands.iter().any(|&x| is_nan(x)) {
        0
    } else if control & DAZ == 0 && operands.iter().any(|&x| is_subnormal(x)) {
        DENORMAL
    } else {
        0
    }
}

/// The lanes the checks draw from: the edge values of the samples (both signs), NaNs with
/// payloads, quiet and signalling, integers that matter to the integer operations, and
/// random bit patterns and in-window floats.
struct Lanes {
    rng: SplitMix64,
    edges: Vec<u32>,
}

impl Lanes {
    fn new(seed: u64) -> Lanes {
        let mut edges: Vec<u32> = edge_values().iter().map(|x| x.to_bits()).collect();
        edges.extend([
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            0xff80_4321,
            0x7fbf_ffff,
            0x0000_0001,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
        ]);
        Lanes {
            rng: SplitMix64(seed),
            edges,
        }
    }

    /// One lane: an edge value, random bits or a random in-window float, a third each.
    fn lane(&mut self) -> u32 {
        let r = self.rng.next_u64();
        match r % 3 {
            0 => self.edges[(r >> 8) as usize % self.edges.len()],
            1 => (r >> 32) as u32,
            _ => {
                let exponent = INPUT_EXPONENT_MIN + (r >> 40) as u32 % INPUT_EXPONENTS;
                ((r >> 8) as u32 & 0x807f_ffff) | exponent << 23
            }
        }
    }

    /// `n` lanes.
    fn vector(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.lane()).collect()
    }

    /// `n` lanes, each a copy of `x`'s with probability 1/4: equal lanes for the compares.
    fn vector_near(&mut self, x: &[u32]) -> Vec<u32> {
        x.iter()
            .map(|&v| {
                if self.rng.next_u64().is_multiple_of(4) {
                    v
                } else {
                    self.lane()
                }
            })
            .collect()
    }
}

/// A backend under check, with the conversions between its registers and lanes. A float
/// register is read by `store`, an integer one through `float`, a mask through
/// `mask_lanes` and, as a cross-check, `blend`: the conversions are checked first.
struct Contract<W: Vector> {
    w: W,
    name: &'static str,
}

/// A row of the contract: a method's name, a call of the backend's method, and the plain
/// statement of what it does, lane by lane.
type Op<Method, Statement> = (&'static str, Method, Statement);

/// An integer operation of two registers.
type IntOp<W> =
    Op<fn(W, <W as Vector>::I, <W as Vector>::I) -> <W as Vector>::I, fn(u32, u32) -> u32>;
/// An integer compare.
type IntCompare<W> =
    Op<fn(W, <W as Vector>::I, <W as Vector>::I) -> <W as Vector>::M, fn(u32, u32) -> bool>;
/// A float operation of up to three registers.
type FloatOp<W> = Op<
    fn(W, <W as Vector>::F, <W as Vector>::F, <W as Vector>::F) -> <W as Vector>::F,
    fn(f32, f32, f32) -> f32,
>;
/// A float compare with zero, with the lanes whose NaN raises invalid.
type FloatCompare<W> =
    Op<fn(W, <W as Vector>::F) -> <W as Vector>::M, (fn(f32) -> bool, fn(u32) -> bool)>;
/// `minimum` or `maximum`.
type Extreme<W> =
    Op<fn(W, <W as Vector>::F, <W as Vector>::F) -> <W as Vector>::F, fn(f32, f32) -> f32>;
/// `div_in_mode_region` in one direction.
type Region<W> = unsafe fn(W, *const f32, *const f32, *mut f32, usize);

/// [`Vector::div_in_mode_region`] in direction `MODE`, as a [`Region`].
///
/// # Safety
/// That of [`Vector::div_in_mode_region`].
unsafe fn region_in<W: Vector, const MODE: u8>(
    w: W,
    a: *const f32,
    b: *const f32,
    out: *mut f32,
    vectors: usize,
) {
    // SAFETY: this function's caller gives the region's guarantees.
    unsafe { w.div_in_mode_region::<MODE>(a, b, out, vectors) }
}

impl<W: Vector> Contract<W> {
    fn floats(&self, bits: &[u32]) -> W::F {
        let x: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(x.len(), W::LANES);
        // SAFETY: x holds LANES floats.
        unsafe { self.w.load(x.as_ptr()) }
    }

    fn read(&self, v: W::F) -> Vec<u32> {
        let mut out = vec![0.0f32; W::LANES];
        // SAFETY: out holds LANES floats.
        unsafe { self.w.store(out.as_mut_ptr(), v) };
        out.iter().map(|x| x.to_bits()).collect()
    }

    fn ints(&self, bits: &[u32]) -> W::I {
        self.w.bits(self.floats(bits))
    }

    fn read_ints(&self, v: W::I) -> Vec<u32> {
        self.read(self.w.float(v))
    }

    /// The mask of `lanes`, made by `equal`.
    fn mask(&self, lanes: &[bool]) -> W::M {
        let ones: Vec<u32> = lanes.iter().map(|&l| u32::from(l)).collect();
        self.w.equal(self.ints(&ones), self.w.splat_bits(1))
    }

    /// Which lanes `m` holds, by `mask_lanes` (every lane all ones or zero) and by `blend`.
    fn read_mask(&self, m: W::M) -> Vec<bool> {
        let by_lanes = self.read_ints(self.w.mask_lanes(m));
        let w = self.w;
        let by_blend = self.read(w.blend(w.splat(2.0), w.splat(3.0), m));
        let mut lanes = Vec::with_capacity(W::LANES);
        for l in 0..W::LANES {
            let set = match by_lanes[l] {
                u32::MAX => true,
                0 => false,
                other => panic!("{}: mask_lanes gave {other:#x} in lane {l}", self.name),
            };
            let blended = f32::from_bits(by_blend[l]);
            assert_eq!(
                blended == 3.0,
                set,
                "{}: blend and mask_lanes differ in lane {l}",
                self.name
            );
            assert!(
                blended == 2.0 || blended == 3.0,
                "{}: blend gave {blended}",
                self.name
            );
            lanes.push(set);
        }
        lanes
    }

    fn fail(&self, what: &str, detail: String) -> ! {
        panic!("{} breaks the Vector contract: {what}: {detail}", self.name)
    }

    /// Loads, stores, their partial forms, splats and the bit conversions keep every bit
    /// (NaN payloads and signalling NaNs included) and touch only the lanes they name.
    fn memory(&self, lanes: &mut Lanes) {
        let w = self.w;
        let n = W::LANES;
        for _ in 0..ROUNDS {
            let x = lanes.vector(n);
            let (got, flags) = under(0, || self.read(self.floats(&x)));
            if got != x || flags != 0 {
                self.fail(
                    "load, store",
                    format!("{x:08x?} gave {got:08x?}, flags {flags:#x}"),
                );
            }
            if self.read_ints(self.ints(&x)) != x {
                self.fail("bits, float", format!("{x:08x?}"));
            }
            let v = x[0];
            if self.read(w.splat(f32::from_bits(v))) != vec![v; n]
                || self.read_ints(w.splat_bits(v)) != vec![v; n]
            {
                self.fail("splat, splat_bits", format!("{v:#010x}"));
            }
            for k in 0..=n {
                for pad in [0x3f80_0000u32, 0x8000_0000, 0x7f80_0001] {
                    let src: Vec<f32> = x[..k].iter().map(|&b| f32::from_bits(b)).collect();
                    let (got, flags) = under(0, || {
                        // SAFETY: src holds k floats.
                        self.read(unsafe { w.load_partial(src.as_ptr(), k, f32::from_bits(pad)) })
                    });
                    let want: Vec<u32> = (0..n).map(|l| if l < k { x[l] } else { pad }).collect();
                    if got != want || flags != 0 {
                        self.fail(
                            "load_partial",
                            format!("{k} lanes, pad {pad:#x}: {got:08x?}, flags {flags:#x}"),
                        );
                    }
                }
                let sentinel = 0x5a5a_5a5a;
                let mut dst = vec![f32::from_bits(sentinel); n];
                let v = self.floats(&x);
                // SAFETY: dst holds n >= k floats.
                unsafe { w.store_partial(dst.as_mut_ptr(), k, v) };
                let got: Vec<u32> = dst.iter().map(|f| f.to_bits()).collect();
                let want: Vec<u32> = (0..n)
                    .map(|l| if l < k { x[l] } else { sentinel })
                    .collect();
                if got != want {
                    self.fail("store_partial", format!("{k} lanes: {got:08x?}"));
                }
            }
        }
    }

    /// The integer operations and compares against Rust's, lane by lane.
    fn integers(&self, lanes: &mut Lanes) {
        let ops: [IntOp<W>; 8] = [
            ("add", |w, a, b| w.add(a, b), u32::wrapping_add),
            ("sub", |w, a, b| w.sub(a, b), u32::wrapping_sub),
            ("and", |w, a, b| w.and(a, b), |a, b| a & b),
            ("xor", |w, a, b| w.xor(a, b), |a, b| a ^ b),
            ("or", |w, a, b| w.or(a, b), |a, b| a | b),
            ("shift_left_1", |w, a, _| w.shift_left_1(a), |a, _| a << 1),
            ("max_u32", |w, a, b| w.max_u32(a, b), |a, b| a.max(b)),
            (
                "min_signed",
                |w, a, b| w.min_signed(a, b),
                |a, b| (a as i32).min(b as i32) as u32,
            ),
        ];
        let compares: [IntCompare<W>; 2] = [
            ("equal", |w, a, b| w.equal(a, b), |a, b| a == b),
            (
                "greater",
                |w, a, b| w.greater(a, b),
                |a, b| (a as i32) > (b as i32),
            ),
        ];
        for _ in 0..ROUNDS {
            let a = lanes.vector(W::LANES);
            let b = lanes.vector_near(&a);
            let (x, y) = (self.ints(&a), self.ints(&b));
            for &(name, method, statement) in &ops {
                let got = self.read_ints(method(self.w, x, y));
                let want: Vec<u32> = (0..W::LANES).map(|l| statement(a[l], b[l])).collect();
                if got != want {
                    self.fail(
                        name,
                        format!("{a:08x?}, {b:08x?}: {got:08x?}, not {want:08x?}"),
                    );
                }
            }
            for &(name, method, statement) in &compares {
                let got = self.read_mask(method(self.w, x, y));
                let want: Vec<bool> = (0..W::LANES).map(|l| statement(a[l], b[l])).collect();
                if got != want {
                    self.fail(name, format!("{a:08x?}, {b:08x?}: {got:?}, not {want:?}"));
                }
            }
        }
    }

    /// The mask operations on every mask of eight or sixteen lanes, and on random pairs.
    fn masks(&self, lanes: &mut Lanes) {
        let w = self.w;
        let n = W::LANES;
        let of = |bits: u32| -> Vec<bool> { (0..n).map(|l| bits >> l & 1 == 1).collect() };
        if self.read_mask(w.no_lanes()) != vec![false; n] {
            self.fail("no_lanes", String::new());
        }
        for bits in 0..1u32 << n {
            let set = of(bits);
            let m = self.mask(&set);
            if self.read_mask(m) != set {
                self.fail("equal (making a mask)", format!("{bits:#x}"));
            }
            let not: Vec<bool> = set.iter().map(|&l| !l).collect();
            if self.read_mask(w.mask_not(m)) != not {
                self.fail("mask_not", format!("{bits:#x}"));
            }
            if w.all(m) != set.iter().all(|&l| l) || w.any(m) != set.iter().any(|&l| l) {
                self.fail("all, any", format!("{bits:#x}"));
            }
            let (a, b) = (lanes.vector(n), lanes.vector(n));
            let got = self.read(w.blend(self.floats(&a), self.floats(&b), m));
            let want: Vec<u32> = (0..n).map(|l| if set[l] { b[l] } else { a[l] }).collect();
            if got != want {
                self.fail(
                    "blend",
                    format!("mask {bits:#x}: {got:08x?}, not {want:08x?}"),
                );
            }
        }
        for _ in 0..ROUNDS * 16 {
            let r = lanes.rng.next_u64();
            let (p, q) = (of(r as u32), of((r >> 32) as u32));
            let (mp, mq) = (self.mask(&p), self.mask(&q));
            let and_not: Vec<bool> = (0..n).map(|l| !p[l] && q[l]).collect();
            let or: Vec<bool> = (0..n).map(|l| p[l] || q[l]).collect();
            if self.read_mask(w.mask_and_not(mp, mq)) != and_not
                || self.read_mask(w.mask_or(mp, mq)) != or
            {
                self.fail("mask_and_not, mask_or", format!("{r:#x}"));
            }
        }
        if w.cold(|| 7) != 7 {
            self.fail("cold", String::new());
        }
    }

    /// The divider, multiply and FMAs against SSE's scalar instructions under every MXCSR
    /// setting: the same bits (a NaN from a multiply or FMA only as a NaN), the same flags.
    fn arithmetic(&self, lanes: &mut Lanes) {
        let ops: [FloatOp<W>; 4] = [
            ("div", |w, a, b, _| w.div(a, b), |a, b, _| a / b),
            ("mul", |w, a, b, _| w.mul(a, b), |a, b, _| a * b),
            ("mul_add", |w, a, b, c| w.mul_add(a, b, c), f32::mul_add),
            (
                "neg_mul_add",
                |w, a, b, c| w.neg_mul_add(a, b, c),
                |a, b, c| (-a).mul_add(b, c),
            ),
        ];
        let n = W::LANES;
        let floats = |v: &[u32]| -> Vec<f32> { v.iter().map(|&x| f32::from_bits(x)).collect() };
        for control in controls() {
            for _ in 0..ROUNDS {
                let (a, b, c) = (lanes.vector(n), lanes.vector(n), lanes.vector(n));
                let (x, y, z) = (self.floats(&a), self.floats(&b), self.floats(&c));
                let (fa, fb, fc) = (floats(&a), floats(&b), floats(&c));
                for &(name, method, statement) in &ops {
                    let (got, flags) = under(control, || self.read(method(self.w, x, y, z)));
                    let (want, want_flags) = under(control, || {
                        let scalar = black_box(statement);
                        (0..n)
                            .map(|l| scalar(fa[l], fb[l], fc[l]).to_bits())
                            .collect::<Vec<u32>>()
                    });
                    // The divider's NaN bits are promised; the others' need only be NaNs.
                    let same = |l: usize| {
                        got[l] == want[l] || (name != "div" && is_nan(got[l]) && is_nan(want[l]))
                    };
                    if !(0..n).all(same) || flags != want_flags {
                        self.fail(
                            name,
                            format!(
                                "MXCSR control {control:#x}, a {a:08x?}, b {b:08x?}, c {c:08x?}: \
                                 {got:08x?} flags {flags:#x}, not {want:08x?} flags {want_flags:#x}"
                            ),
                        );
                    }
                }
            }
        }
    }

    /// `rcp`: the bound inside the kernels' window, the special values, no flag.
    fn reciprocal(&self, lanes: &mut Lanes) {
        let n = W::LANES;
        let window = INPUT_EXPONENT_MIN..INPUT_EXPONENT_MIN + INPUT_EXPONENTS;
        for control in controls() {
            for _ in 0..ROUNDS {
                let b = lanes.vector(n);
                let (r, flags) = under(control, || self.read(self.w.rcp(self.floats(&b))));
                if flags != 0 {
                    self.fail(
                        "rcp",
                        format!("raised {flags:#x} under {control:#x} on {b:08x?}"),
                    );
                }
                if control != 0 {
                    continue;
                }
                for l in 0..n {
                    let (x, s) = (b[l], r[l]);
                    let (fx, fs) = (f32::from_bits(x), f32::from_bits(s));
                    let ok = if is_nan(x) {
                        s == x | 0x0040_0000
                    } else if fx == 0.0 || fx.is_infinite() {
                        s == (x & 0x8000_0000) | if fx == 0.0 { 0x7f80_0000 } else { 0 }
                    } else if window.contains(&(x >> 23 & 0xff)) {
                        (1.0 - f64::from(fx) * f64::from(fs)).abs() <= RCP_BOUND
                    } else {
                        !fs.is_nan() && s & 0x8000_0000 == x & 0x8000_0000
                    };
                    if !ok {
                        self.fail("rcp", format!("rcp({x:#010x}) = {s:#010x}"));
                    }
                }
            }
        }
    }

    /// The divider in a given rounding direction, one vector and a region of three, against
    /// `divss` under that direction: its bits; the flags `divss` raises, or none with
    /// embedded rounding; MXCSR's own rounding field never consulted.
    fn directed(&self, lanes: &mut Lanes) {
        let n = W::LANES;
        let regions: [Region<W>; 4] = [
            region_in::<W, 0>,
            region_in::<W, 1>,
            region_in::<W, 2>,
            region_in::<W, 3>,
        ];
        for control in controls() {
            for round in 0..ROUNDS / 4 {
                let (a, b) = (lanes.vector(3 * n), lanes.vector(3 * n));
                let (fa, fb): (Vec<f32>, Vec<f32>) = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| (f32::from_bits(x), f32::from_bits(y)))
                    .unzip();
                for mode in 0..4u8 {
                    let in_mode = (control & !RC) | u32::from(mode) << RC_SHIFT;
                    let (want, divss_flags) = under(in_mode, || {
                        (0..3 * n)
                            .map(|l| black_box(black_box(fa[l]) / black_box(fb[l])).to_bits())
                            .collect::<Vec<u32>>()
                    });
                    let first_flags = under(in_mode, || {
                        (0..n).for_each(|l| {
                            black_box(black_box(fa[l]) / black_box(fb[l]));
                        })
                    })
                    .1;
                    let expect = |flags: u32| if W::EMBEDDED_ROUNDING { 0 } else { flags };
                    let (got, flags) = under(control, || {
                        self.read(self.w.div_in_mode(
                            self.floats(&a[..n]),
                            self.floats(&b[..n]),
                            mode,
                        ))
                    });
                    if got != want[..n] || flags != expect(first_flags) {
                        self.fail(
                            "div_in_mode",
                            format!(
                                "mode {mode} under {control:#x}: {:08x?} / {:08x?} gave {got:08x?} \
                                 flags {flags:#x}, not {:08x?} flags {:#x}",
                                &a[..n],
                                &b[..n],
                                &want[..n],
                                expect(first_flags)
                            ),
                        );
                    }
                    // Into another slice, or over the dividends (`out == a`).
                    let in_place = round % 2 == 1;
                    let mut out = if in_place {
                        fa.clone()
                    } else {
                        vec![0.0f32; 3 * n]
                    };
                    let region = regions[usize::from(mode)];
                    let a_ptr = if in_place { out.as_ptr() } else { fa.as_ptr() };
                    let o = out.as_mut_ptr();
                    // SAFETY: a (or out), b and out hold three vectors; out is a or apart.
                    let ((), flags) = under(control, || unsafe {
                        region(self.w, a_ptr, fb.as_ptr(), o, 3)
                    });
                    let got: Vec<u32> = out.iter().map(|x| x.to_bits()).collect();
                    if got != want || flags != expect(divss_flags) {
                        self.fail(
                            "div_in_mode_region",
                            format!("mode {mode} under {control:#x}, in place {in_place}: {got:08x?}, flags {flags:#x}"),
                        );
                    }
                }
            }
        }
    }

    /// The directed step's move, `step_by_signs` and `step_by_signs_plus_zero`: `q + 1`
    /// where the residual `r` and the dividend `a` have the same sign bit, `q - 1` where
    /// they differ, `q` where `r` reads as a zero or is a NaN; the flags of a quiet compare
    /// of `r` with zero. The `+0` form: the same lanes where `r` is not `-0`, not a NaN and
    /// read as it is, and no flag but the compare's.
    fn steps(&self, lanes: &mut Lanes) {
        let n = W::LANES;
        let step =
            |q: u32, r: u32, a: u32| q.wrapping_add(if (r ^ a) >> 31 == 1 { u32::MAX } else { 1 });
        for control in controls() {
            for _ in 0..ROUNDS {
                let (q, r, a) = (lanes.vector(n), lanes.vector(n), lanes.vector(n));
                let (qv, rv, av) = (self.ints(&q), self.floats(&r), self.floats(&a));
                let compare = r
                    .iter()
                    .fold(0, |f, &v| f | compare_flags(&[v], control, is_signalling));
                let (got, flags) =
                    under(control, || self.read_ints(self.w.step_by_signs(qv, rv, av)));
                let want: Vec<u32> = (0..n)
                    .map(|l| {
                        let read = as_read(r[l], control);
                        match read.is_nan() || read == 0.0 {
                            true => q[l],
                            false => step(q[l], r[l], a[l]),
                        }
                    })
                    .collect();
                // A zero dividend has no sign to step by (`psignd` reads `+0` as none).
                let a_zero = |l: usize| a[l] & 0x7fff_ffff == 0;
                let wrong_lane = (0..n).find(|&l| !a_zero(l) && got[l] != want[l]);
                if wrong_lane.is_some() || flags != compare {
                    self.fail(
                        "step_by_signs",
                        format!(
                            "under {control:#x}: q {q:08x?}, r {r:08x?}, a {a:08x?} gave \
                             {got:08x?} flags {flags:#x} (wrong lane {wrong_lane:?}; wanted \
                             {want:08x?} flags {compare:#x})"
                        ),
                    );
                }
                let (plus_zero, flags) = under(control, || {
                    self.read_ints(self.w.step_by_signs_plus_zero(qv, rv, av))
                });
                let wrong_lane = (0..n).find(|&l| {
                    let read = as_read(r[l], control);
                    let outside =
                        r[l] == 0x8000_0000 || read.is_nan() || read.to_bits() != r[l] || a_zero(l);
                    !outside && plus_zero[l] != want[l]
                });
                if wrong_lane.is_some() || flags & !compare != 0 {
                    self.fail(
                        "step_by_signs_plus_zero",
                        format!(
                            "under {control:#x}: q {q:08x?}, r {r:08x?}, a {a:08x?} gave \
                             {plus_zero:08x?} flags {flags:#x} (wrong lane {wrong_lane:?}; \
                             flags allowed {compare:#x})"
                        ),
                    );
                }
            }
        }
    }

    /// The float compares and `minimum`/`maximum`: their lanes as the inputs read under
    /// MXCSR (DAZ), their flags as the SDM gives them, lane by lane.
    fn compares(&self, lanes: &mut Lanes) {
        let compares: [FloatCompare<W>; 2] = [
            (
                "nonzero",
                |w, x| w.nonzero(x),
                (|v| !v.is_nan() && v != 0.0, is_signalling),
            ),
            (
                "negative_signaling",
                |w, x| w.negative_signaling(x),
                (|v| v < 0.0, is_nan),
            ),
        ];
        let extremes: [Extreme<W>; 2] = [
            ("minimum", |w, a, b| w.minimum(a, b), f32::min),
            ("maximum", |w, a, b| w.maximum(a, b), f32::max),
        ];
        let n = W::LANES;
        for control in controls() {
            for _ in 0..ROUNDS {
                let (a, b) = (lanes.vector(n), lanes.vector(n));
                let (x, y) = (self.floats(&a), self.floats(&b));
                for &(name, method, (holds, raises)) in &compares {
                    let (m, flags) = under(control, || method(self.w, x));
                    let got = self.read_mask(m);
                    let want: Vec<bool> = a.iter().map(|&v| holds(as_read(v, control))).collect();
                    let want_flags = a
                        .iter()
                        .fold(0, |f, &v| f | compare_flags(&[v], control, raises));
                    if got != want || flags != want_flags {
                        self.fail(
                            name,
                            format!(
                                "under {control:#x}: {a:08x?} gave {got:?} flags {flags:#x}, \
                                 not {want:?} flags {want_flags:#x}"
                            ),
                        );
                    }
                }
                let want_flags =
                    (0..n).fold(0, |f, l| f | compare_flags(&[a[l], b[l]], control, is_nan));
                for &(name, method, extreme) in &extremes {
                    let (got, flags) = under(control, || self.read(method(self.w, x, y)));
                    // The contract's domain: no NaN, not both zeros, no subnormal that DAZ
                    // reads as zero.
                    let wrong_lane = (0..n).find(|&l| {
                        let (p, q) = (as_read(a[l], control), as_read(b[l], control));
                        let outside = p.is_nan()
                            || q.is_nan()
                            || (p == 0.0 && q == 0.0)
                            || (p.to_bits(), q.to_bits()) != (a[l], b[l]);
                        !outside && got[l] != extreme(p, q).to_bits()
                    });
                    if wrong_lane.is_some() || flags != want_flags {
                        self.fail(
                            name,
                            format!(
                                "under {control:#x}: {a:08x?}, {b:08x?} gave {got:08x?} flags \
                                 {flags:#x} (wrong lane {wrong_lane:?}; flags wanted {want_flags:#x})"
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// Every check of the contract on backend `w`, named `name` in the failures.
pub fn check<W: Vector>(w: W, name: &'static str, seed: u64) {
    let c = Contract { w, name };
    let mut lanes = Lanes::new(seed);
    c.memory(&mut lanes);
    c.masks(&mut lanes);
    c.integers(&mut lanes);
    c.arithmetic(&mut lanes);
    c.reciprocal(&mut lanes);
    c.directed(&mut lanes);
    c.steps(&mut lanes);
    c.compares(&mut lanes);
}
