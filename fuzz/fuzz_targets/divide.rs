//! Compares every division entry point of fmadiv with the hardware's divider on arbitrary
//! bytes: values (any bit patterns), lengths, offsets and the caller's MXCSR (rounding
//! mode, flush-to-zero, denormals-are-zero). The functions that divide in the caller's mode
//! must give `divss`'s bits under that MXCSR; the directed ones (`div_rounded`,
//! `div_bounds`, `Divisor::divide_rounded`, the in-register forms) its bits with the
//! rounding field set to their mode, FTZ and DAZ as the caller has them.
//!
//! The caller's sticky exception flags are part of the input too: every entry point must keep
//! those the caller holds (README, "Exception flags"), and those README names as raising at
//! least the flags `/` raises (`div`, `div_in_place`, `recip`, `div_f32x8`, `div_scalar` and
//! the `Divisor`'s forms) must raise the divider's flags for their lanes under that MXCSR.
//! Each entry point starts from the caller's flags alone and is judged on the flags it leaves.
//!
//! Input layout: bytes 0 and 1 are the offsets of the dividends and divisors (mod 8), byte 2
//! picks a divisor for `Divisor`, byte 3 is the caller's MXCSR (bits 0-1 the rounding
//! field, bit 2 FTZ, bit 3 DAZ, bits 4-7 the flags held: invalid, overflow, underflow, and
//! the other three together), the rest are little-endian f32s, split in half.
//!
//! The backend is the one a program gets: `FMADIV_BACKEND` chooses another, the AVX-512
//! model's tables included (`avx512-model`, `avx512-model-low`, `avx512-model-high`: this
//! crate enables fmadiv's `verify` feature for them).

#![no_main]

use std::hint::black_box;

use fmadiv::{Divisor, Rounding};
use libfuzzer_sys::fuzz_target;
use wide::{f32x8, f32x16};

/// The rounding-control field and its position.
const RC_SHIFT: u32 = 13;
const RC: u32 = 0b11 << RC_SHIFT;
/// Flush-to-zero: tiny results become zero.
const FTZ: u32 = 1 << 15;
/// Denormals-are-zero: subnormal inputs read as zero.
const DAZ: u32 = 1 << 6;
/// MXCSR's sticky exception flags, bits 0-5.
const INVALID: u32 = 1 << 0;
const DENORMAL: u32 = 1 << 1;
const DIVIDE_BY_ZERO: u32 = 1 << 2;
const OVERFLOW: u32 = 1 << 3;
const UNDERFLOW: u32 = 1 << 4;
const INEXACT: u32 = 1 << 5;
const FLAGS: u32 = INVALID | DENORMAL | DIVIDE_BY_ZERO | OVERFLOW | UNDERFLOW | INEXACT;

/// The flags the caller holds, from bits 4-7 of the layout's MXCSR byte: the three that void
/// a flag-checked chunk one by one (the paths that read them differ for each), the rest as
/// one.
fn held_flags(byte: u8) -> u32 {
    [
        (0x10, INVALID),
        (0x20, OVERFLOW),
        (0x40, UNDERFLOW),
        (0x80, DENORMAL | DIVIDE_BY_ZERO | INEXACT),
    ]
    .into_iter()
    .filter(|&(bit, _)| byte & bit != 0)
    .fold(0, |held, (_, flags)| held | flags)
}

/// MXCSR now.
fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr only stores the control register to the given, valid address.
    unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack)) };
    csr
}

/// Loads `csr`: the harness sets another mode only around non-inlined arithmetic and
/// restores it before any other floating-point code runs.
fn write_mxcsr(csr: u32) {
    // SAFETY: ldmxcsr loads a valid control word (the harness's own, with only its rounding
    // field, FTZ, DAZ and the sticky flags changed).
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack)) };
}

/// `a / b` lane by lane under the MXCSR in force: `/` compiles to `divss`, which rounds as
/// MXCSR says; non-inlined, on values the compiler cannot see, so nothing is folded at
/// compile time in the default mode.
#[inline(never)]
fn hardware(a: &[f32], b: &[f32]) -> Vec<f32> {
    let (a, b) = (black_box(a), black_box(b));
    a.iter()
        .zip(b)
        .map(|(&x, &y)| black_box(x) / black_box(y))
        .collect()
}

/// One entry point's results on dividends `a` and divisors `b`, the rounding its reference
/// divides in (the caller's, `None`, or a directed mode's) and the flags MXCSR held after it
/// (it started from the caller's alone).
struct Row {
    name: String,
    a: Vec<f32>,
    b: Vec<f32>,
    got: Vec<f32>,
    mode: Option<Rounding>,
    flags: u32,
}

/// The entry points README's "Exception flags" holds to raising at least `/`'s flags.
const RAISE_THE_DIVIDERS_FLAGS: [&str; 5] =
    ["div", "div_in_place", "recip", "div_f32x8", "div_scalar"];

/// Whether the row's entry point raises at least the flags `/` raises on its lanes: those
/// named above and the `Divisor`'s forms in the caller's mode.
fn raises_the_dividers_flags(row: &Row) -> bool {
    RAISE_THE_DIVIDERS_FLAGS.contains(&row.name.as_str())
        || (row.name.starts_with("Divisor (") && row.mode.is_none())
}

/// Groups of `N` lanes of `v` (the whole groups only).
fn vectors<const N: usize>(v: &[f32]) -> impl Iterator<Item = [f32; N]> + '_ {
    v.chunks_exact(N).map(|c| c.try_into().unwrap())
}

/// Every entry point on `a`, `b` and by the divisor `y`, under the MXCSR in force, which holds
/// the caller's flags `held` alone (no arithmetic of this crate's own: only fmadiv's and
/// `wide`'s, which must honour it); `nearest`: that MXCSR rounds to nearest. After each
/// entry point the flags are read into its row and put back to `held`.
#[inline(never)]
fn compute(
    a: &[f32],
    b: &[f32],
    y: Option<f32>,
    made_before: Option<&Divisor>,
    nearest: bool,
    held: u32,
) -> Vec<Row> {
    let (a, b) = (black_box(a), black_box(b));
    let n = a.len();
    let mut rows = Vec::new();
    let mut push = |name: &str, a: &[f32], b: &[f32], got: Vec<f32>, mode: Option<Rounding>| {
        let csr = read_mxcsr();
        write_mxcsr(csr & !FLAGS | held);
        let m = got.len();
        rows.push(Row {
            name: name.to_string(),
            a: a[..m].to_vec(),
            b: b[..m].to_vec(),
            got,
            mode,
            flags: csr & FLAGS,
        })
    };
    let ones = vec![1.0f32; n];

    let mut out = vec![0.0f32; n];
    fmadiv::div(a, b, &mut out);
    push("div", a, b, out.clone(), None);
    fmadiv::try_div(a, b, &mut out).unwrap();
    push("try_div", a, b, out.clone(), None);
    let mut x = a.to_vec();
    fmadiv::div_in_place(&mut x, b);
    push("div_in_place", a, b, x, None);
    fmadiv::par_div(a, b, &mut out);
    push("par_div", a, b, out.clone(), None);
    let mut x = a.to_vec();
    fmadiv::par_div_in_place(&mut x, b);
    push("par_div_in_place", a, b, x, None);
    fmadiv::recip(b, &mut out);
    push("recip", &ones, b, out.clone(), None);
    fmadiv::par_recip(b, &mut out);
    push("par_recip", &ones, b, out.clone(), None);

    let eights: Vec<f32> = vectors::<8>(a)
        .zip(vectors::<8>(b))
        .flat_map(|(x, y)| fmadiv::div_f32x8(f32x8::from(x), f32x8::from(y)).to_array())
        .collect();
    push("div_f32x8", a, b, eights, None);
    let eights: Vec<f32> = vectors::<8>(b)
        .flat_map(|y| fmadiv::recip_f32x8(f32x8::from(y)).to_array())
        .collect();
    push("recip_f32x8", &ones, b, eights, None);
    let sixteens: Vec<f32> = vectors::<16>(a)
        .zip(vectors::<16>(b))
        .flat_map(|(x, y)| fmadiv::simd::div_f32x16(f32x16::from(x), f32x16::from(y)).to_array())
        .collect();
    push("simd::div_f32x16", a, b, sixteens, None);
    if let Some(t) = fmadiv::simd::Avx2Fma::new() {
        let eights: Vec<f32> = t.vectorize(|t| {
            vectors::<8>(a)
                .zip(vectors::<8>(b))
                .flat_map(|(x, y)| t.div_f32x8(f32x8::from(x), f32x8::from(y)).to_array())
                .collect()
        });
        push("Avx2Fma::div_f32x8", a, b, eights, None);
    }

    for mode in Rounding::ALL {
        fmadiv::div_rounded(a, b, &mut out, mode);
        push(
            &format!("div_rounded {mode}"),
            a,
            b,
            out.clone(),
            Some(mode),
        );
        let eights: Vec<f32> = vectors::<8>(a)
            .zip(vectors::<8>(b))
            .flat_map(|(x, y)| {
                fmadiv::simd::div_rounded_f32x8(f32x8::from(x), f32x8::from(y), mode).to_array()
            })
            .collect();
        push(
            &format!("simd::div_rounded_f32x8 {mode}"),
            a,
            b,
            eights,
            Some(mode),
        );
        let sixteens: Vec<f32> = vectors::<16>(a)
            .zip(vectors::<16>(b))
            .flat_map(|(x, y)| {
                fmadiv::simd::div_rounded_f32x16(f32x16::from(x), f32x16::from(y), mode).to_array()
            })
            .collect();
        push(
            &format!("simd::div_rounded_f32x16 {mode}"),
            a,
            b,
            sixteens,
            Some(mode),
        );
    }
    let (mut lo, mut hi) = (vec![0.0f32; n], vec![0.0f32; n]);
    fmadiv::div_bounds(a, b, &mut lo, &mut hi);
    push("div_bounds lo", a, b, lo, Some(Rounding::Down));
    push("div_bounds hi", a, b, hi, Some(Rounding::Up));
    let (lo, hi): (Vec<[f32; 8]>, Vec<[f32; 8]>) = vectors::<8>(a)
        .zip(vectors::<8>(b))
        .map(|(x, y)| {
            let (l, h) = fmadiv::simd::div_bounds_f32x8(f32x8::from(x), f32x8::from(y));
            (l.to_array(), h.to_array())
        })
        .unzip();
    push(
        "simd::div_bounds_f32x8 lo",
        a,
        b,
        lo.concat(),
        Some(Rounding::Down),
    );
    push(
        "simd::div_bounds_f32x8 hi",
        a,
        b,
        hi.concat(),
        Some(Rounding::Up),
    );

    if let (Some(y), Some(before)) = (y, made_before) {
        let ys = vec![y; n];
        let d = Divisor::new(black_box(y));
        for (how, d) in [("made under the mode", &d), ("made before", before)] {
            d.divide_slice(a, &mut out);
            push(
                &format!("Divisor ({how})::divide_slice"),
                a,
                &ys,
                out.clone(),
                None,
            );
            // The proven sequence whatever the plan (the flag-checked chunks from 512
            // elements, the lane-checked loop below): the plan runs it only from a length of
            // its own, past what most inputs hold. Only to nearest, where the proof is made
            // and holds (made under another mode, its constants would be that mode's).
            let run = |out: &mut [f32]| {
                fmadiv::verify::divisor::divide_slice_on(fmadiv::backend(), d, true, a, out)
            };
            if nearest && run(&mut out).is_some() {
                push(
                    &format!("Divisor ({how}), its sequence whatever the plan"),
                    a,
                    &ys,
                    out.clone(),
                    None,
                );
            }
            let mut x = a.to_vec();
            d.divide_in_place(&mut x);
            push(
                &format!("Divisor ({how})::divide_in_place"),
                a,
                &ys,
                x,
                None,
            );
            // The same in place: the window-checked loop with the output its input, which
            // the plan may never choose (Zen 4's row divides in place on the divider).
            let mut x = a.to_vec();
            let run = |x: &mut [f32]| {
                fmadiv::verify::divisor::divide_in_place_on(fmadiv::backend(), d, true, x)
            };
            if nearest && run(&mut x).is_some() {
                push(
                    &format!("Divisor ({how}) in place, its sequence whatever the plan"),
                    a,
                    &ys,
                    x,
                    None,
                );
            }
            let one: Vec<f32> = a.iter().map(|&x| d.divide(x)).collect();
            push(&format!("Divisor ({how})::divide"), a, &ys, one, None);
            let eights: Vec<f32> = vectors::<8>(a)
                .flat_map(|x| d.divide_f32x8(f32x8::from(x)).to_array())
                .collect();
            push(
                &format!("Divisor ({how})::divide_f32x8"),
                a,
                &ys,
                eights,
                None,
            );
            let sixteens: Vec<f32> = vectors::<16>(a)
                .flat_map(|x| (f32x16::from(x) / d).to_array())
                .collect();
            push(&format!("f32x16 / Divisor ({how})"), a, &ys, sixteens, None);
            for mode in Rounding::ALL {
                let one: Vec<f32> = a.iter().map(|&x| d.divide_rounded(x, mode)).collect();
                push(
                    &format!("Divisor ({how})::divide_rounded {mode}"),
                    a,
                    &ys,
                    one,
                    Some(mode),
                );
            }
        }
        fmadiv::div_scalar(a, y, &mut out);
        push("div_scalar", a, &ys, out.clone(), None);
    }
    rows
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (off_a, off_b, pick) = (data[0] as usize % 8, data[1] as usize % 8, data[2] as usize);
    let caller = u32::from(data[3] & 0b11) << RC_SHIFT
        | if data[3] & 0b100 != 0 { FTZ } else { 0 }
        | if data[3] & 0b1000 != 0 { DAZ } else { 0 };
    let held = held_flags(data[3]);
    let floats: Vec<f32> = data[4..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let half = floats.len() / 2;
    // Offsets past the data leave empty slices at the start.
    let (off_a, off_b) = if off_a.max(off_b) < half {
        (off_a, off_b)
    } else {
        (0, 0)
    };
    let len = half - off_a.max(off_b);
    let a = &floats[off_a..off_a + len];
    let b = &floats[half + off_b..half + off_b + len];
    let y = (!b.is_empty()).then(|| b[pick % b.len()]);
    let before = y.map(Divisor::new);

    // A length mismatch is an error that writes nothing.
    let mut out = vec![f32::from_bits(0x7fc0_dead); len + 1];
    assert!(fmadiv::try_div(a, b, &mut out).is_err());
    assert!(
        out.iter().all(|x| x.to_bits() == 0x7fc0_dead),
        "try_div wrote on error"
    );

    let original = read_mxcsr();
    let base = original & !(RC | FTZ | DAZ | FLAGS);
    write_mxcsr(base | caller | held);
    let rows = compute(a, b, y, before.as_ref(), caller & RC == 0, held);
    // Each reference from clear flags: the flags `/` raises on the row's lanes.
    let references: Vec<(Vec<f32>, u32)> = rows
        .iter()
        .map(|r| {
            let rc = r
                .mode
                .map_or(caller & RC, |m| u32::from(m.control()) << RC_SHIFT);
            write_mxcsr(base | (caller & !RC) | rc);
            let quotients = hardware(&r.a, &r.b);
            (quotients, read_mxcsr() & FLAGS)
        })
        .collect();
    write_mxcsr(original);

    for (r, (want, dividers_flags)) in rows.iter().zip(&references) {
        assert!(
            r.flags & held == held,
            "{} under MXCSR {:#06x} cleared the caller's flags {:#04x} (left {:#04x})",
            r.name,
            base | caller | held,
            held & !r.flags,
            r.flags
        );
        assert!(
            !raises_the_dividers_flags(r) || r.flags & dividers_flags == *dividers_flags,
            "{} under MXCSR {:#06x} left {:#04x}, short of the divider's {:#04x} on its lanes",
            r.name,
            base | caller | held,
            r.flags,
            dividers_flags
        );
        if let Some(i) = (0..r.got.len()).find(|&i| r.got[i].to_bits() != want[i].to_bits()) {
            panic!(
                "{} under MXCSR {:#06x}: {:#010x} / {:#010x} gave {:#010x}, the divider {:#010x}",
                r.name,
                base | caller | held,
                r.a[i].to_bits(),
                r.b[i].to_bits(),
                r.got[i].to_bits(),
                want[i].to_bits()
            );
        }
    }
});
