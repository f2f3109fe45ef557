//! The division methods that benchmarks compare: one definition each, shared by the
//! criterion benches and `fmadiv bench`.

/// A way of computing `out[i] = a[i] / b[i]`.
#[derive(Clone, Copy)]
pub struct Method {
    /// Short name for tables.
    pub name: &'static str,
    /// Whether every result is the correctly rounded quotient.
    pub exact: bool,
    /// Whether the method is available on this CPU.
    pub available: fn() -> bool,
    /// The method; only call it when `available()` is true.
    pub run: fn(&[f32], &[f32], &mut [f32]),
}

fn always() -> bool {
    true
}

#[cfg(target_arch = "x86_64")]
fn has_avx() -> bool {
    is_x86_feature_detected!("avx")
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    crate::arch::x86_64::avx2::Avx2Fma::new().is_some()
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2_fma() -> bool {
    false
}

/// `fmadiv::div`.
pub const FMADIV: Method = Method {
    name: "fmadiv::div",
    exact: true,
    available: always,
    run: crate::div,
};

/// `fmadiv::par_div`.
pub const PAR_DIV: Method = Method {
    name: "fmadiv::par_div",
    exact: true,
    available: always,
    run: crate::par_div,
};

/// A plain `_mm256_div_ps` loop: the hardware divider, the baseline of every ratio.
pub const HARDWARE: Method = Method {
    name: "_mm256_div_ps loop",
    exact: true,
    available: has_avx,
    run: hardware_div,
};

/// `wide::f32x8` `/`, eight lanes at a time.
pub const WIDE: Method = Method {
    name: "wide::f32x8 /",
    exact: true,
    available: always,
    run: wide_div,
};

/// A scalar `a[i] / b[i]` loop (the compiler may vectorise it).
pub const SCALAR: Method = Method {
    name: "scalar a[i] / b[i]",
    exact: true,
    available: always,
    run: scalar_div,
};

/// rcp + one Newton step, no correction: fast and NOT correctly rounded (the price of
/// exactness).
pub const APPROX: Method = Method {
    name: "approx rcp+Newton (inexact)",
    exact: false,
    available: has_avx2_fma,
    run: approx_div,
};

/// Every method, baseline first.
pub const ALL: [Method; 6] = [HARDWARE, FMADIV, PAR_DIV, WIDE, SCALAR, APPROX];

fn scalar_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x / y;
    }
}

fn wide_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    use wide::f32x8;
    let mut oc = out.chunks_exact_mut(8);
    for ((o, x), y) in (&mut oc).zip(a.chunks_exact(8)).zip(b.chunks_exact(8)) {
        let q = f32x8::new(x.try_into().unwrap()) / f32x8::new(y.try_into().unwrap());
        o.copy_from_slice(&q.to_array());
    }
    let done = a.len() - a.len() % 8;
    scalar_div(&a[done..], &b[done..], oc.into_remainder());
}

#[cfg(target_arch = "x86_64")]
fn hardware_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    use core::arch::x86_64::*;
    #[target_feature(enable = "avx")]
    fn run(a: &[f32], b: &[f32], out: &mut [f32]) {
        let n = out.len().min(a.len()).min(b.len());
        let full = n - n % 8;
        let mut i = 0;
        while i < full {
            // SAFETY: i + 8 <= n, inside all three slices; unaligned access is allowed.
            unsafe {
                let q = _mm256_div_ps(
                    _mm256_loadu_ps(a.as_ptr().add(i)),
                    _mm256_loadu_ps(b.as_ptr().add(i)),
                );
                _mm256_storeu_ps(out.as_mut_ptr().add(i), q);
            }
            i += 8;
        }
        scalar_div(&a[full..n], &b[full..n], &mut out[full..n]);
    }
    assert!(has_avx(), "the hardware loop needs AVX");
    // SAFETY: AVX is present (checked above).
    unsafe { run(a, b, out) }
}

#[cfg(not(target_arch = "x86_64"))]
fn hardware_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    scalar_div(a, b, out)
}

#[cfg(target_arch = "x86_64")]
fn approx_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    use core::arch::x86_64::*;
    #[target_feature(enable = "avx2,fma")]
    fn run(a: &[f32], b: &[f32], out: &mut [f32]) {
        let n = out.len().min(a.len()).min(b.len());
        let full = n - n % 8;
        let one = _mm256_set1_ps(1.0);
        let mut i = 0;
        while i < full {
            // SAFETY: i + 8 <= n, inside all three slices; unaligned access is allowed.
            unsafe {
                let x = _mm256_loadu_ps(a.as_ptr().add(i));
                let y = _mm256_loadu_ps(b.as_ptr().add(i));
                let r = _mm256_rcp_ps(y);
                let r = _mm256_fmadd_ps(r, _mm256_fnmadd_ps(y, r, one), r);
                _mm256_storeu_ps(out.as_mut_ptr().add(i), _mm256_mul_ps(x, r));
            }
            i += 8;
        }
        scalar_div(&a[full..n], &b[full..n], &mut out[full..n]);
    }
    assert!(has_avx2_fma(), "the approximation needs AVX2+FMA");
    // SAFETY: AVX2 and FMA are present (checked above).
    unsafe { run(a, b, out) }
}

#[cfg(not(target_arch = "x86_64"))]
fn approx_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    scalar_div(a, b, out)
}

/// The input distributions benchmarks report, all of them, so none is picked to flatter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// Random signs, mantissas and exponents with normal quotients: the fast path.
    Normal,
    /// As `Normal`, with half of the dividends zero (sparse data, ReLU outputs).
    HalfZeros,
    /// As `Normal`, with 1% of the lanes inf, NaN or subnormal.
    OnePercentSpecials,
    /// Arbitrary bit patterns: about half the lanes are special in some way.
    RandomBits,
}

impl Inputs {
    /// Every distribution.
    pub const ALL: [Inputs; 4] = [
        Inputs::Normal,
        Inputs::HalfZeros,
        Inputs::OnePercentSpecials,
        Inputs::RandomBits,
    ];

    /// Short name for tables.
    pub const fn name(self) -> &'static str {
        match self {
            Inputs::Normal => "normal",
            Inputs::HalfZeros => "50% zeros",
            Inputs::OnePercentSpecials => "1% specials",
            Inputs::RandomBits => "random bits",
        }
    }

    /// `n` dividends and divisors drawn from a seeded generator.
    pub fn generate(self, n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut rng = crate::samples::SplitMix64(seed);
        let mut next = move || rng.next_u64();
        // Exponents within ±30 of 1 keep every quotient normal.
        let normal =
            |r: u64| f32::from_bits((r as u32 & 0x807f_ffff) | (97 + (r >> 32) as u32 % 61) << 23);
        const SPECIALS: [u32; 6] = [
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_1234,
            0x8040_0000,
            0x0000_0000,
        ];
        let mut a = Vec::with_capacity(n);
        let mut b = Vec::with_capacity(n);
        for _ in 0..n {
            let (ra, rb) = (next(), next());
            let (x, y) = match self {
                Inputs::Normal => (normal(ra), normal(rb)),
                Inputs::HalfZeros => (if ra >> 63 == 0 { 0.0 } else { normal(ra) }, normal(rb)),
                Inputs::OnePercentSpecials => {
                    let special =
                        |r: u64| f32::from_bits(SPECIALS[(r >> 40) as usize % SPECIALS.len()]);
                    let x = if (ra >> 48) % 200 == 0 {
                        special(ra)
                    } else {
                        normal(ra)
                    };
                    let y = if (rb >> 48) % 200 == 0 {
                        special(rb)
                    } else {
                        normal(rb)
                    };
                    (x, y)
                }
                Inputs::RandomBits => (f32::from_bits(ra as u32), f32::from_bits(rb as u32)),
            };
            a.push(x);
            b.push(y);
        }
        (a, b)
    }
}
