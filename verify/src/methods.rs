//! The division methods that benchmarks compare: one definition each, shared by the
//! criterion benches and `fmadiv bench`.

use fmadiv::Schedule;

/// What a method computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `out[i] = a[i] / b[i]`.
    Pairwise,
    /// `out[i] = a[i] / b[0]`: one divisor for the whole slice.
    ByScalar,
    /// `out[i] = 1 / b[i]` (`a` is ignored).
    Reciprocal,
    /// Rows of `len` elements, each divided by its own divisor, the first element of the
    /// same row of `b`: `out[i] = a[i] / b[i - i % len]`.
    Rows {
        /// Elements per row.
        len: usize,
    },
}

impl Kind {
    /// The quotient a method of this kind must return for element `i`.
    pub fn expected(self, a: &[f32], b: &[f32], i: usize) -> f32 {
        match self {
            Kind::Pairwise => a[i] / b[i],
            Kind::ByScalar => a[i] / b[0],
            Kind::Reciprocal => 1.0 / b[i],
            Kind::Rows { len } => a[i] / b[i - i % len],
        }
    }
}

/// A way of computing a quotient for every element (see [`Kind`]).
#[derive(Clone, Copy)]
pub struct Method {
    /// Short name for tables.
    pub name: &'static str,
    /// What it computes.
    pub kind: Kind,
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

#[cfg(fmadiv_x86)]
fn has_avx() -> bool {
    is_x86_feature_detected!("avx")
}

#[cfg(fmadiv_x86)]
fn has_avx2_fma() -> bool {
    fmadiv::verify::x86::Avx2Fma::new().is_some()
}

#[cfg(not(fmadiv_x86))]
fn has_avx() -> bool {
    false
}

#[cfg(not(fmadiv_x86))]
fn has_avx2_fma() -> bool {
    false
}

/// `fmadiv::div`.
pub const FMADIV: Method = Method {
    kind: Kind::Pairwise,
    name: "fmadiv::div",
    exact: true,
    available: always,
    run: fmadiv::div,
};

/// `fmadiv::par_div`.
pub const PAR_DIV: Method = Method {
    kind: Kind::Pairwise,
    name: "fmadiv::par_div",
    exact: true,
    available: always,
    run: fmadiv::par_div,
};

/// A plain `_mm256_div_ps` loop: the hardware divider, the baseline of every ratio.
pub const HARDWARE: Method = Method {
    kind: Kind::Pairwise,
    name: "_mm256_div_ps loop",
    exact: true,
    available: has_avx,
    run: hardware_div,
};

/// `wide::f32x8` `/`, eight lanes at a time.
pub const WIDE: Method = Method {
    kind: Kind::Pairwise,
    name: "wide::f32x8 /",
    exact: true,
    available: always,
    run: wide_div,
};

/// A scalar `a[i] / b[i]` loop (the compiler may vectorise it).
pub const SCALAR: Method = Method {
    kind: Kind::Pairwise,
    name: "scalar a[i] / b[i]",
    exact: true,
    available: always,
    run: scalar_div,
};

/// rcp + one Newton step, no correction: fast and NOT correctly rounded (the price of
/// exactness).
pub const APPROX: Method = Method {
    kind: Kind::Pairwise,
    name: "approx rcp+Newton (inexact)",
    exact: false,
    available: has_avx2_fma,
    run: approx_div,
};

/// A `_mm256_div_ps` loop dividing by one broadcast divisor.
pub const HARDWARE_BY_SCALAR: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm256_div_ps by scalar",
    exact: true,
    available: has_avx,
    run: |a, b, out| hardware_div_by(a, b[0], out),
};

/// A `_mm256_div_ps` loop by a divisor held as [`DIVISOR`] holds its `Divisor` (looked up
/// the same way, so that the harness costs both the same): the baseline of [`DIVISOR`].
pub const HARDWARE_BY_HELD: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm256_div_ps by a held scalar",
    exact: true,
    available: has_avx,
    run: |a, b, out| with_cached_divisor(b[0], |d| hardware_div_by(a, d.divisor(), out)),
};

/// `Divisor::new(b)` once, then `divide_slice`.
pub const DIVISOR: Method = Method {
    kind: Kind::ByScalar,
    name: "Divisor::divide_slice",
    exact: true,
    available: always,
    run: |a, b, out| with_cached_divisor(b[0], |d| d.divide_slice(a, out)),
};

/// `divide_slice` with every vector's quotients range-checked (no exception flags).
pub const DIVISOR_LANES: Method = Method {
    kind: Kind::ByScalar,
    name: "Divisor, lane-checked",
    exact: true,
    available: always,
    run: |a, b, out| {
        with_cached_divisor(b[0], |d| {
            fmadiv::verify::divisor::divide_slice_checked_by(
                d,
                fmadiv::verify::divisor::Check::Lanes,
                a,
                out,
            )
        })
    },
};

/// `Divisor::new(b)`, made once per divisor and thread and proven before it is timed
/// (benchmarks time the division, not the proof): `f` runs with it.
pub fn with_cached_divisor<R>(b: f32, f: impl FnOnce(&fmadiv::Divisor) -> R) -> R {
    thread_local!(static CACHE: core::cell::RefCell<Option<fmadiv::Divisor>> = const { core::cell::RefCell::new(None) });
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref()
            .is_none_or(|d| d.divisor().to_bits() != b.to_bits())
        {
            let d = fmadiv::Divisor::new(b);
            d.strategy();
            *c = Some(d);
        }
        f(c.as_ref().expect("set above"))
    })
}

/// `div_scalar`: constructs the `Divisor` on every call.
pub const DIV_SCALAR: Method = Method {
    kind: Kind::ByScalar,
    name: "div_scalar (new each call)",
    exact: true,
    available: always,
    run: |a, b, out| fmadiv::div_scalar(a, b[0], out),
};

/// A `_mm256_div_ps` loop computing `1 / b[i]`.
pub const HARDWARE_RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "_mm256_div_ps 1/b",
    exact: true,
    available: has_avx,
    run: |_, b, out| hardware_recip(b, out),
};

/// Not a division: `out[i] = a[i] * b[i]`, plain Rust compiled for AVX (the compiler's
/// unrolled 256-bit loop), the same loads and stores as [`HARDWARE`]. The multiply costs
/// less than a cycle per vector, so the memory limits this loop: its throughput is the
/// ceiling of every division loop at that length (`examples/stream_ceiling.rs`).
pub const PLAIN_MULTIPLY: Method = Method {
    kind: Kind::Pairwise,
    name: "a[i] * b[i], avx build (ref)",
    exact: false,
    available: has_avx,
    run: |a, b, out| plain_multiply(Some(a), b, out),
};

/// Not a reciprocal: `out[i] = b[i] * b[i]` (not `1 * b[i]`, which the compiler may fold
/// into a copy), the ceiling of the reciprocal loops as [`PLAIN_MULTIPLY`] is of the
/// division loops.
pub const PLAIN_MULTIPLY_RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "b[i] * b[i], avx build (ref)",
    exact: false,
    available: has_avx,
    run: |_, b, out| plain_multiply(None, b, out),
};

/// `out[i] = a[i] * b[i]`, or without `a` `b[i] * b[i]`, plain Rust compiled for AVX where
/// the CPU has it.
fn plain_multiply(a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
    #[cfg(fmadiv_x86)]
    {
        #[target_feature(enable = "avx")]
        fn run(a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
            multiply(a, b, out)
        }
        assert!(has_avx(), "the plain multiply loop is built for AVX");
        // SAFETY: AVX is present (asserted).
        unsafe { run(a, b, out) }
    }
    #[cfg(not(fmadiv_x86))]
    multiply(a, b, out)
}

/// [`plain_multiply`]'s loops, inlined into the function built for the vectors.
#[inline(always)]
pub(crate) fn multiply(a: Option<&[f32]>, b: &[f32], out: &mut [f32]) {
    match a {
        Some(a) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = x * y;
            }
        }
        None => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = y * y;
            }
        }
    }
}

/// `fmadiv::recip`.
pub const RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "fmadiv::recip",
    exact: true,
    available: always,
    run: |_, b, out| fmadiv::recip(b, out),
};

/// `fmadiv::recip_in_place` on a copy of the divisors (the copy is part of every call, as in
/// [`HARDWARE_RECIP_IN_PLACE`]).
pub const RECIP_IN_PLACE: Method = Method {
    kind: Kind::Reciprocal,
    name: "fmadiv::recip_in_place (+copy)",
    exact: true,
    available: always,
    run: |_, b, out| {
        crate::samples::restore(out, b);
        fmadiv::recip_in_place(out);
    },
};

/// A `_mm256_div_ps` loop computing `1 / x[i]` in place, on a copy of the divisors: the
/// baseline of [`RECIP_IN_PLACE`].
pub const HARDWARE_RECIP_IN_PLACE: Method = Method {
    kind: Kind::Reciprocal,
    name: "_mm256_div_ps 1/b in place (+copy)",
    exact: true,
    available: has_avx,
    run: |_, b, out| {
        crate::samples::restore(out, b);
        hardware_in_place::<true>(out, &[]);
    },
};

/// `fmadiv::par_recip`.
pub const PAR_RECIP: Method = Method {
    kind: Kind::Reciprocal,
    name: "fmadiv::par_recip",
    exact: true,
    available: always,
    run: |_, b, out| fmadiv::par_recip(b, out),
};

/// Not a division: `out[i] = a[i] + b[i]` on all cores, the same memory traffic as a
/// division. Its throughput is the memory-bandwidth limit `par_div` is measured against.
pub const STREAM: Method = Method {
    kind: Kind::Pairwise,
    name: "stream a+b, all cores (ref)",
    exact: false,
    available: always,
    run: stream_add,
};

/// `fmadiv::try_div`.
pub const TRY_DIV: Method = Method {
    kind: Kind::Pairwise,
    name: "fmadiv::try_div",
    exact: true,
    available: always,
    run: |a, b, out| fmadiv::try_div(a, b, out).expect("equal lengths"),
};

/// `fmadiv::div_in_place` on a copy of the dividends (the copy is part of every call, as in
/// [`HARDWARE_IN_PLACE`]).
pub const DIV_IN_PLACE: Method = Method {
    kind: Kind::Pairwise,
    name: "fmadiv::div_in_place (+copy)",
    exact: true,
    available: always,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        fmadiv::div_in_place(out, b);
    },
};

/// A `_mm256_div_ps` loop in place, on a copy of the dividends: the baseline of
/// [`DIV_IN_PLACE`].
pub const HARDWARE_IN_PLACE: Method = Method {
    kind: Kind::Pairwise,
    name: "_mm256_div_ps in place (+copy)",
    exact: true,
    available: has_avx,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        hardware_in_place::<false>(out, b);
    },
};

/// `Divisor::divide_in_place` on a copy of the dividends.
pub const DIVISOR_IN_PLACE: Method = Method {
    kind: Kind::ByScalar,
    name: "Divisor::divide_in_place (+copy)",
    exact: true,
    available: always,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        with_cached_divisor(b[0], |d| d.divide_in_place(out));
    },
};

/// A `_mm256_div_ps` loop by one broadcast divisor held as [`DIVISOR_IN_PLACE`] holds its
/// `Divisor`, in place, on a copy of the dividends.
pub const HARDWARE_BY_HELD_IN_PLACE: Method = Method {
    kind: Kind::ByScalar,
    name: "_mm256_div_ps by a held scalar in place (+copy)",
    exact: true,
    available: has_avx,
    run: |a, b, out| {
        crate::samples::restore(out, a);
        let p = out.as_mut_ptr();
        with_cached_divisor(b[0], |d| {
            // SAFETY: in place over `out`'s own elements, which the loop allows.
            unsafe { hardware_div_by_raw(p, d.divisor(), p, out.len()) }
        });
    },
};

/// Rows of `LEN`: `div_scalar` per row (the `Divisor` built for each row).
pub const fn rows_div_scalar<const LEN: usize>() -> Method {
    Method {
        kind: Kind::Rows { len: LEN },
        name: match LEN {
            256 => "div_scalar per row of 256",
            1024 => "div_scalar per row of 1024",
            _ => "div_scalar per row of 4096",
        },
        exact: true,
        available: always,
        run: |a, b, out| {
            for ((x, y), o) in a.chunks(LEN).zip(b.chunks(LEN)).zip(out.chunks_mut(LEN)) {
                fmadiv::div_scalar(x, y[0], o);
            }
        },
    }
}

/// Rows of `LEN`: `Divisor::new(divisor)` then `divide_slice`, per row.
pub const fn rows_divisor<const LEN: usize>() -> Method {
    Method {
        kind: Kind::Rows { len: LEN },
        name: match LEN {
            256 => "Divisor::new + divide_slice per row of 256",
            1024 => "Divisor::new + divide_slice per row of 1024",
            _ => "Divisor::new + divide_slice per row of 4096",
        },
        exact: true,
        available: always,
        run: |a, b, out| {
            for ((x, y), o) in a.chunks(LEN).zip(b.chunks(LEN)).zip(out.chunks_mut(LEN)) {
                fmadiv::Divisor::new(y[0]).divide_slice(x, o);
            }
        },
    }
}

/// Rows of `LEN`: a `_mm256_div_ps` loop by each row's broadcast divisor.
pub const fn rows_hardware<const LEN: usize>() -> Method {
    Method {
        kind: Kind::Rows { len: LEN },
        name: "_mm256_div_ps by scalar per row",
        exact: true,
        available: has_avx,
        run: |a, b, out| {
            for ((x, y), o) in a.chunks(LEN).zip(b.chunks(LEN)).zip(out.chunks_mut(LEN)) {
                hardware_div_by(x, y[0], o);
            }
        },
    }
}

/// Every entry point and the plain divider loop that does the same job: the floors
/// `fmadiv bench --floors` measures (each pair alternately).
pub const FLOORS: [(Method, Method); 9] = [
    (FMADIV, HARDWARE),
    (TRY_DIV, HARDWARE),
    (PAR_DIV, HARDWARE),
    (DIV_IN_PLACE, HARDWARE_IN_PLACE),
    (RECIP, HARDWARE_RECIP),
    (RECIP_IN_PLACE, HARDWARE_RECIP_IN_PLACE),
    (DIV_SCALAR, HARDWARE_BY_SCALAR),
    (DIVISOR, HARDWARE_BY_HELD),
    (DIVISOR_IN_PLACE, HARDWARE_BY_HELD_IN_PLACE),
];

/// Row normalisation: every row divided by its own divisor, per row, against the divider.
pub const ROW_FLOORS: [(Method, Method); 6] = [
    (rows_div_scalar::<256>(), rows_hardware::<256>()),
    (rows_div_scalar::<1024>(), rows_hardware::<1024>()),
    (rows_div_scalar::<4096>(), rows_hardware::<4096>()),
    (rows_divisor::<256>(), rows_hardware::<256>()),
    (rows_divisor::<1024>(), rows_hardware::<1024>()),
    (rows_divisor::<4096>(), rows_hardware::<4096>()),
];

/// Every pairwise method, baseline first.
pub const ALL: [Method; 7] = [HARDWARE, FMADIV, PAR_DIV, WIDE, SCALAR, APPROX, STREAM];

/// `div`'s loop under one forced schedule, whatever the plan chose.
macro_rules! schedule_method {
    ($name:literal, $schedule:expr, $kind:expr) => {
        Method {
            kind: $kind,
            name: $name,
            exact: true,
            available: has_avx2_fma,
            run: |a, b, out| {
                let a = if $kind == Kind::Reciprocal {
                    None
                } else {
                    Some(a)
                };
                fmadiv::verify::run_schedule($schedule, a, b, out).expect("needs AVX2+FMA");
            },
        }
    };
}

/// Every schedule the plan chooses from, for `a / b`: the plan's candidates, measured
/// like the other methods (the divider alone is `div`'s own loop, not the baseline's).
pub const SCHEDULES: [Method; 7] = [
    schedule_method!("schedule divider", Schedule::CANDIDATES[0], Kind::Pairwise),
    schedule_method!("schedule mix-16", Schedule::CANDIDATES[1], Kind::Pairwise),
    schedule_method!("schedule mix-8", Schedule::CANDIDATES[2], Kind::Pairwise),
    schedule_method!("schedule mix-4", Schedule::CANDIDATES[3], Kind::Pairwise),
    schedule_method!("schedule mix-2", Schedule::CANDIDATES[4], Kind::Pairwise),
    schedule_method!("schedule mix-1", Schedule::CANDIDATES[5], Kind::Pairwise),
    schedule_method!("schedule kernel", Schedule::CANDIDATES[6], Kind::Pairwise),
];

/// The same schedules for `1 / b`.
pub const RECIP_SCHEDULES: [Method; 7] = [
    schedule_method!(
        "recip schedule divider",
        Schedule::CANDIDATES[0],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule mix-16",
        Schedule::CANDIDATES[1],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule mix-8",
        Schedule::CANDIDATES[2],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule mix-4",
        Schedule::CANDIDATES[3],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule mix-2",
        Schedule::CANDIDATES[4],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule mix-1",
        Schedule::CANDIDATES[5],
        Kind::Reciprocal
    ),
    schedule_method!(
        "recip schedule kernel",
        Schedule::CANDIDATES[6],
        Kind::Reciprocal
    ),
];

fn stream_add(a: &[f32], b: &[f32], out: &mut [f32]) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 15;
    let add = |o: &mut [f32], x: &[f32], y: &[f32]| {
        for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
            *o = x + y;
        }
    };
    if out.len() < fmadiv::verify::PAR_MIN_LEN {
        return add(out, a, b);
    }
    out.par_chunks_mut(CHUNK)
        .zip(a.par_chunks(CHUNK))
        .zip(b.par_chunks(CHUNK))
        .for_each(|((o, x), y)| add(o, x, y));
}
/// Division by one divisor, baseline first.
pub const BY_SCALAR: [Method; 4] = [HARDWARE_BY_SCALAR, DIVISOR, DIVISOR_LANES, DIV_SCALAR];
/// Reciprocals, baseline first.
pub const RECIPROCAL: [Method; 3] = [HARDWARE_RECIP, RECIP, PAR_RECIP];

fn hardware_div_by(a: &[f32], b: f32, out: &mut [f32]) {
    let n = out.len().min(a.len());
    // SAFETY: a is readable and out writable for n elements, and they do not overlap.
    unsafe { hardware_div_by_raw(a.as_ptr(), b, out.as_mut_ptr(), n) }
}

/// `out[i] = a[i] / b` for `n` elements by a plain `_mm256_div_ps` loop.
///
/// # Safety
/// `a` readable and `out` writable for `n` floats; `out` is `a` or does not overlap it.
unsafe fn hardware_div_by_raw(a: *const f32, b: f32, out: *mut f32, n: usize) {
    #[cfg(fmadiv_x86)]
    if has_avx() {
        use core::arch::x86_64::*;
        #[target_feature(enable = "avx")]
        unsafe fn run(a: *const f32, b: f32, out: *mut f32, n: usize) {
            let full = n - n % 8;
            let vb = _mm256_set1_ps(b);
            let mut i = 0;
            while i < full {
                // SAFETY: i + 8 <= n, inside both (the caller's guarantee); each vector is
                // loaded before it is stored.
                unsafe {
                    _mm256_storeu_ps(out.add(i), _mm256_div_ps(_mm256_loadu_ps(a.add(i)), vb));
                }
                i += 8;
            }
            for k in full..n {
                // SAFETY: k < n.
                unsafe { *out.add(k) = *a.add(k) / b };
            }
        }
        // SAFETY: AVX is present (checked above); the caller's guarantees.
        return unsafe { run(a, b, out, n) };
    }
    for k in 0..n {
        // SAFETY: k < n, the caller's guarantee.
        unsafe { *out.add(k) = *a.add(k) / b };
    }
}

fn hardware_recip(b: &[f32], out: &mut [f32]) {
    #[cfg(fmadiv_x86)]
    if has_avx() {
        use core::arch::x86_64::*;
        #[target_feature(enable = "avx")]
        fn run(b: &[f32], out: &mut [f32]) {
            let n = out.len().min(b.len());
            let full = n - n % 8;
            let one = _mm256_set1_ps(1.0);
            let mut i = 0;
            while i < full {
                // SAFETY: i + 8 <= n, inside both slices; unaligned access is allowed.
                unsafe {
                    _mm256_storeu_ps(
                        out.as_mut_ptr().add(i),
                        _mm256_div_ps(one, _mm256_loadu_ps(b.as_ptr().add(i))),
                    );
                }
                i += 8;
            }
            for (o, &y) in out[full..n].iter_mut().zip(&b[full..n]) {
                *o = 1.0 / y;
            }
        }
        // SAFETY: AVX is present (checked above).
        return unsafe { run(b, out) };
    }
    for (o, &y) in out.iter_mut().zip(b) {
        *o = 1.0 / y;
    }
}

/// `x[i] = x[i] / b[i]` by a plain `_mm256_div_ps` loop.
pub(crate) fn hardware_in_place<const RECIP: bool>(x: &mut [f32], b: &[f32]) {
    let n = if RECIP { x.len() } else { x.len().min(b.len()) };
    #[cfg(fmadiv_x86)]
    if has_avx() {
        use core::arch::x86_64::*;
        #[target_feature(enable = "avx")]
        fn run<const RECIP: bool>(x: &mut [f32], b: &[f32], n: usize) {
            let full = n - n % 8;
            let one = _mm256_set1_ps(1.0);
            let mut i = 0;
            while i < full {
                // SAFETY: i + 8 <= n, inside both slices (`b` read only for division);
                // loaded before stored.
                unsafe {
                    let p = x.as_mut_ptr().add(i);
                    let v = _mm256_loadu_ps(p);
                    let q = match RECIP {
                        true => _mm256_div_ps(one, v),
                        false => _mm256_div_ps(v, _mm256_loadu_ps(b.as_ptr().add(i))),
                    };
                    _mm256_storeu_ps(p, q);
                }
                i += 8;
            }
            tail_in_place::<RECIP>(&mut x[full..n], b.get(full..n).unwrap_or(&[]));
        }
        // SAFETY: AVX is present (checked above).
        return unsafe { run::<RECIP>(x, b, n) };
    }
    tail_in_place::<RECIP>(&mut x[..n], b.get(..n).unwrap_or(&[]));
}

/// `x[i] /= b[i]`, or with `RECIP` `x[i] = 1 / x[i]`, element by element.
fn tail_in_place<const RECIP: bool>(x: &mut [f32], b: &[f32]) {
    if RECIP {
        x.iter_mut().for_each(|v| *v = 1.0 / *v);
    } else {
        x.iter_mut().zip(b).for_each(|(v, &y)| *v /= y);
    }
}

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

#[cfg(fmadiv_x86)]
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

#[cfg(not(fmadiv_x86))]
fn hardware_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    scalar_div(a, b, out)
}

#[cfg(fmadiv_x86)]
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

#[cfg(not(fmadiv_x86))]
fn approx_div(a: &[f32], b: &[f32], out: &mut [f32]) {
    scalar_div(a, b, out)
}

/// The divisors of `fmadiv bench --divisors` (and `examples/divider_assists.rs`):
/// significands and magnitudes spread from 1e-3 to 12345.678 (the table says each one's
/// strategy).
// 0.7071 as a user writes it, not 1/sqrt(2) rounded: a divisor like any other.
#[allow(clippy::approx_constant)]
pub const DIVISORS: [f32; 6] = [3.7, 3.0, 1.1, 0.7071, 12345.678, 1e-3];

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
        let normal = crate::samples::normal_from;
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
