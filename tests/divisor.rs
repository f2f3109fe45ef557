//! Division by an invariant divisor and the reciprocal: bit-exact for every dividend.

mod common;

use common::{assert_quotients, edge_values};
use fmadiv::verify::divisor::Check as DivisorCheck;
use fmadiv::{Divisor, Strategy};
use rayon::prelude::*;

/// Mismatches of `d` over every `stride`-th of the 2^32 dividend bit patterns.
fn dividend_mismatches(d: &Divisor, stride: u64) -> (u64, Option<String>) {
    dividend_mismatches_checked_by(d, DivisorCheck::Flags, stride)
}

/// As [`dividend_mismatches`], with the given check of the two-products loop.
fn dividend_mismatches_checked_by(
    d: &Divisor,
    check: DivisorCheck,
    stride: u64,
) -> (u64, Option<String>) {
    const CHUNK: u64 = 1 << 20;
    let b = d.divisor();
    let count = (1u64 << 32).div_ceil(stride);
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let a: Vec<f32> = (c * CHUNK..((c + 1) * CHUNK).min(count))
                .map(|k| f32::from_bits((k * stride) as u32))
                .collect();
            let mut out = vec![0.0f32; a.len()];
            fmadiv::verify::divisor::divide_slice_checked_by(d, check, &a, &mut out);
            let mut n = 0;
            let mut first = None;
            for (&x, &q) in a.iter().zip(&out) {
                if q.to_bits() != (x / b).to_bits() {
                    n += 1;
                    first.get_or_insert_with(|| common::describe(x, b, q, x / b));
                }
            }
            (n, first)
        })
        .reduce(|| (0, None), |x, y| (x.0 + y.0, x.1.or(y.1)))
}

/// A divisor whose `RN(1/b)` rounds away from zero and whose `RZ(1/b)` two products fail
/// on one dividend, with a quotient above 1 ([`the_proof_finds_candidates_above_one`]): it
/// keeps `RN(1/b)` and the repair of zero quotients' sign (the dividend's for `b`, the
/// product's for `-b`).
const REPAIRED: u32 = 0x3fd1_2de7;
/// The smallest significand for which neither `RN(1/b)` nor `RZ(1/b)` gives exact two
/// products.
const HARD: u32 = 0x3fa1_6c5f;

/// Divisors the issue names: 3, 0.1, all-ones, powers of two, the smallest subnormal, MAX,
/// 0, inf, NaN; `HARD` (fails two products) and `±REPAIRED`, so that every zero-sign repair
/// of the flag-checked loop is here (see `zero_sign`).
fn named_divisors() -> Vec<f32> {
    vec![
        3.0,
        -3.0,
        1.1,
        0.1,
        f32::from_bits(HARD),
        f32::from_bits(REPAIRED),
        -f32::from_bits(REPAIRED),
        -f32::from_bits(0x3fff_ffff),
        1.0,
        0.5,
        2f32.powi(-127),
        2f32.powi(100),
        f32::from_bits(1),
        f32::MAX,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NAN,
        7.0e-39,
        1.0e38,
        // Small normal divisors: huge dividends overflow, and so can a·zl.
        f32::from_bits(0x00ff_ffff),
        f32::from_bits(0x00c0_0001),
        f32::from_bits(0x0d4c_cccd),
    ]
}

/// Asserts that `Divisor::new(b)` is exact on every `stride`-th dividend, for each `b`,
/// with every check of the two-products loop. The check chooses among the two-products loops
/// only: another strategy, and the portable path (every quotient from the divider), run one
/// loop whatever the check, and one pass is all there is to test there.
fn assert_exact(divisors: &[f32], stride: u64) {
    let portable = fmadiv::backend() == fmadiv::Backend::Portable;
    for &b in divisors {
        let d = Divisor::new(b);
        let checks: &[DivisorCheck] = if portable || d.strategy() != Strategy::TwoProducts {
            &[DivisorCheck::Flags]
        } else {
            &[
                DivisorCheck::Flags,
                DivisorCheck::Lanes,
                DivisorCheck::Window,
            ]
        };
        for &check in checks {
            let (n, first) = dividend_mismatches_checked_by(&d, check, stride);
            assert_eq!(
                n,
                0,
                "divisor {b:e} ({}, {check:?}): {first:?}",
                d.strategy()
            );
        }
    }
}

/// Which zero-sign repair the flag-checked loop uses for `b` (a two-products divisor).
fn zero_sign(b: f32) -> &'static str {
    match fmadiv::verify::divisor::two_products_repair_class(&Divisor::new(b)) {
        Some(0) => "none",
        Some(1) => "sign of a",
        Some(_) => "sign of a*zh",
        None => "not two products",
    }
}

#[test]
fn named_divisors_cover_every_zero_sign_repair() {
    let two_products: Vec<f32> = named_divisors()
        .into_iter()
        .filter(|&b| Divisor::new(b).strategy() == Strategy::TwoProducts)
        .collect();
    for repair in ["none", "sign of a", "sign of a*zh"] {
        assert!(
            two_products.iter().any(|&b| zero_sign(b) == repair),
            "no named two-products divisor needs the repair {repair:?}"
        );
    }
}

/// Specials that void a chunk of the flag-checked loop (or, for zeros, must not).
fn chunk_specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signaling NaN
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        -f32::from_bits(0x0040_0000),
        1e-38, // a·zl underflows
        -3e38, // the quotient overflows for small divisors, and so can a·zl
        f32::MAX,
    ]
}

#[test]
fn flag_checked_chunks_around_specials() {
    // Slices over several 4096-element chunks, a special at each chunk edge or nowhere,
    // divided in a row so that the back-off between calls is exercised too.
    let mut rng = common::SplitMix64(common::seed());
    // Tiny divisors of both zero-sign repairs: a·zl overflows, and with zl's sign flipped
    // against zh's an unflagged overflow would turn the infinite quotient's sign.
    let repaired = f32::from_bits(REPAIRED);
    let divisors = [
        3.0f32,
        -3.0,
        repaired,
        -repaired,
        1e-30,
        -1e-30,
        repaired * 2f32.powi(-100),
        -repaired * 2f32.powi(-100),
        3e30,
        f32::from_bits(0x0d4c_cccd),
    ];
    assert!(
        divisors
            .iter()
            .any(|&b| b.abs() < 1e-29 && zero_sign(b) != "none")
    );
    for b in divisors {
        let d = Divisor::new(b);
        for len in [31, 32, 4095, 4096, 4097, 3 * 4096 + 45] {
            for special_at in [None, Some(0), Some(4095), Some(4096), Some(len - 1)] {
                for special in chunk_specials() {
                    let mut a = common::in_window_dividends(&mut rng, len);
                    if let Some(i) = special_at.filter(|&i| i < len) {
                        a[i] = special;
                    }
                    let mut out = vec![0.0f32; len];
                    d.divide_slice(&a, &mut out);
                    let bs = vec![b; len];
                    assert_quotients(&format!("divide_slice by {b:e}, len {len}"), &a, &bs, &out);
                }
            }
        }
    }
}

#[test]
fn named_divisors_sampled_dividends() {
    // Every 61st of the 2^32 dividend patterns (70 million per divisor); the exhaustive
    // version is `exhaustive_named_divisors` below.
    assert_exact(&named_divisors(), 61);
}

#[test]
fn every_dividend_over_three_and_a_hard_divisor() {
    // 3 and ±REPAIRED: the three zero-sign repairs of the flag-checked loop.
    let repaired = f32::from_bits(REPAIRED);
    assert_exact(&[3.0, repaired, -repaired, f32::from_bits(HARD)], 1);
}

/// `RZ(1/b)`'s two products for `b = REPAIRED` fail at one dividend whose quotient lies
/// above 1: the proof must enumerate the midpoints `X/2^24` in [1, 2) (numerators `X` from
/// 2^24 to 2^25), reject `RZ(1/b)` there, and keep `RN(1/b)` with the repair.
#[test]
fn the_proof_finds_candidates_above_one() {
    let (a, b) = (f32::from_bits(0x3ff6_6d68), f32::from_bits(REPAIRED));
    let nearest = 1.0 / b;
    assert!(
        (-b).mul_add(nearest, 1.0) < 0.0,
        "RN(1/b) rounds away from zero"
    );
    let zh = f32::from_bits(nearest.to_bits() - 1);
    let zl = (-b).mul_add(zh, 1.0) / b;
    assert!(a / b > 1.0);
    assert_ne!(
        a.mul_add(zh, a * zl).to_bits(),
        (a / b).to_bits(),
        "RZ(1/b)'s two products are wrong for this dividend"
    );
    for divisor in [b, -b] {
        let d = Divisor::new(divisor);
        assert_eq!(d.strategy(), Strategy::TwoProducts);
        assert_ne!(
            zero_sign(divisor),
            "none",
            "{divisor:e} keeps RN(1/b) and a repair"
        );
        assert_eq!(d.divide(a).to_bits(), (a / divisor).to_bits());
    }
}

/// `per_class` random divisors of each zero-sign class and as many that do not take two
/// products (signs and significands from `seed`), each over every dividend significand in
/// [1, 2) (the proof's whole domain; other exponents scale it): whichever `zh` and check the
/// proof picks, every quotient must be exact.
fn assert_random_divisors_exact(per_class: u32, mut seed: u64) {
    let dividends: Vec<f32> = (0..1u32 << 23)
        .map(|m| f32::from_bits(0x3f80_0000 | m))
        .collect();
    let mut seen = [0u32; 4];
    let divisors: Vec<f32> = core::iter::from_fn(|| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // A random sign and significand.
        Some(f32::from_bits(0x3f80_0000 | (seed as u32 & 0x807f_ffff)))
    })
    .filter(|&b| {
        // The repair class (0, 1, 2), or 3 where the divisor takes no two products.
        let class = fmadiv::verify::divisor::two_products_repair_class(&Divisor::new(b));
        let class = class.unwrap_or(3);
        seen[class] += 1;
        seen[class] <= per_class
    })
    .take(4 * per_class as usize)
    .collect();
    let mismatches: Vec<String> = divisors
        .par_iter()
        .filter_map(|&b| {
            let d = Divisor::new(b);
            let mut out = vec![0.0f32; dividends.len()];
            d.divide_slice(&dividends, &mut out);
            let wrong = dividends
                .iter()
                .zip(&out)
                .filter(|&(&x, q)| q.to_bits() != (x / b).to_bits())
                .count();
            (wrong > 0).then(|| format!("{b:e} ({}): {wrong} wrong", zero_sign(b)))
        })
        .collect();
    assert!(mismatches.is_empty(), "{mismatches:?}");
}

#[test]
fn random_divisors_every_dividend_significand() {
    assert_random_divisors_exact(16, 0x2545_f491_4f6c_dd1d);
}

#[test]
#[ignore = "4096 random divisors, every dividend significand: about a minute in release"]
fn many_random_divisors_every_dividend_significand() {
    // FMADIV_DIVISORS_PER_CLASS asks for more (a machine with many cores).
    let per_class = match std::env::var("FMADIV_DIVISORS_PER_CLASS") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("FMADIV_DIVISORS_PER_CLASS={v:?} is not a count")),
        Err(_) => 1024,
    };
    eprintln!("{} random divisors", 4 * per_class);
    assert_random_divisors_exact(per_class, 0x9e37_79b9_7f4a_7c15);
}

#[test]
#[ignore = "all 2^32 dividends for 23 divisors, both checks: a few minutes in release"]
fn exhaustive_named_divisors() {
    assert_exact(&named_divisors(), 1);
}

#[test]
fn two_products_for_every_divisor_is_caught() {
    // HARD is the smallest significand for which two products are exact with neither
    // rounding of 1/b: `new` must not choose them, and forcing them must produce a mismatch.
    let b = f32::from_bits(HARD);
    assert_ne!(Divisor::new(b).strategy(), Strategy::TwoProducts);
    if fmadiv::backend() == fmadiv::Backend::Portable {
        eprintln!("skipped: the portable path divides by the hardware whatever the strategy");
        return;
    }
    let weakened = fmadiv::verify::divisor::with_strategy(b, Strategy::TwoProducts);
    let (n, first) = dividend_mismatches(&weakened, 1);
    eprintln!("forced two products for {b:e}: {n} mismatches, first {first:?}");
    assert!(n > 0, "the weakened divisor must be caught");
}

#[test]
fn strategy_counts_over_all_significands() {
    let counts = (0..1u32 << 23)
        .into_par_iter()
        .map(|m| {
            let s = Divisor::new(f32::from_bits(0x3f80_0000 | m)).strategy();
            let mut c = [0u64; 4];
            c[match s {
                Strategy::Reciprocal => 0,
                Strategy::TwoProducts => 1,
                Strategy::Markstein => 2,
                _ => 3,
            }] = 1;
            c
        })
        .reduce(|| [0; 4], |x, y| core::array::from_fn(|i| x[i] + y[i]));
    eprintln!(
        "reciprocal {}, two products {}, Markstein {}, hardware {}",
        counts[0], counts[1], counts[2], counts[3]
    );
    assert_eq!(counts[0], 1, "only 1.0 has an exact reciprocal among [1,2)");
    assert!(counts[1] as f64 > 0.98 * f64::from(1u32 << 23));
}

#[test]
fn divide_and_div_scalar_agree_with_slices() {
    let values = edge_values();
    for &b in &values {
        let d = Divisor::new(b);
        let mut out = vec![0.0f32; values.len()];
        d.divide_slice(&values, &mut out);
        let bs = vec![b; values.len()];
        assert_quotients(&format!("divide_slice by {b:e}"), &values, &bs, &out);
        let one: Vec<f32> = values.iter().map(|&a| d.divide(a)).collect();
        assert_quotients(&format!("divide by {b:e}"), &values, &bs, &one);
        fmadiv::div_scalar(&values, b, &mut out);
        assert_quotients(&format!("div_scalar by {b:e}"), &values, &bs, &out);
    }
}

/// In place, and through the `/` operators for `f32`, `wide::f32x8` and `wide::f32x16`:
/// every edge value and a million random bit patterns, over every edge divisor and every
/// named divisor (all four strategies), at lengths around the vector blocks.
#[test]
fn in_place_and_operators_match_the_divider() {
    // The dividends the by-value operators take (a whole number of sixteen-lane vectors,
    // the edge values among them).
    const BY_VALUE: usize = 4096;
    let mut rng = common::SplitMix64(common::seed());
    let mut dividends = edge_values();
    dividends.extend((0..(1 << 20) - dividends.len() % 8).map(|_| rng.next_f32_bits()));
    // A divisor of the rare Markstein strategy (1 671 significands of 2^23, the README's table).
    let markstein = (0..1u32 << 23)
        .map(|m| f32::from_bits(0x3f80_0000 | m))
        .find(|&b| Divisor::new(b).strategy() == Strategy::Markstein)
        .expect("some significand takes the Markstein strategy");
    let divisors: Vec<f32> = edge_values()
        .into_iter()
        .chain(named_divisors())
        .chain([markstein, -markstein * 1e20])
        .collect();
    let mut strategies = std::collections::HashSet::new();
    for &b in &divisors {
        let d = Divisor::new(b);
        strategies.insert(d.strategy());
        let bs = vec![b; dividends.len()];
        for len in [dividends.len(), 1, 7, 8, 31, 33, 300] {
            let mut x = dividends[..len].to_vec();
            d.divide_in_place(&mut x);
            assert_quotients(
                &format!("divide_in_place by {b:e}"),
                &dividends[..len],
                &bs[..len],
                &x,
            );
        }
        let q: Vec<f32> = dividends.iter().map(|&a| a / &d).collect();
        assert_quotients(&format!("f32 / Divisor({b:e})"), &dividends, &bs, &q);
        // The by-value operators (on a clone each time) over a short stretch.
        let few = &dividends[..BY_VALUE];
        let q: Vec<f32> = few.iter().map(|&a| a / d.clone()).collect();
        assert_quotients(
            &format!("f32 / Divisor({b:e}) by value"),
            few,
            &bs[..BY_VALUE],
            &q,
        );
        let q8 = few.chunks_exact(8).flat_map(|c| {
            (wide::f32x8::from(<[f32; 8]>::try_from(c).unwrap()) / d.clone()).to_array()
        });
        let q16 = few.chunks_exact(16).flat_map(|c| {
            (wide::f32x16::from(<[f32; 16]>::try_from(c).unwrap()) / d.clone()).to_array()
        });
        for (what, q) in [
            ("f32x8", q8.collect::<Vec<f32>>()),
            ("f32x16", q16.collect()),
        ] {
            assert_quotients(
                &format!("{what} / Divisor({b:e}) by value"),
                few,
                &bs[..BY_VALUE],
                &q,
            );
        }
        let q: Vec<f32> = dividends
            .chunks_exact(8)
            .flat_map(|c| (wide::f32x8::from(<[f32; 8]>::try_from(c).unwrap()) / &d).to_array())
            .collect();
        assert_quotients(&format!("f32x8 / Divisor({b:e})"), &dividends, &bs, &q);
        let q: Vec<f32> = dividends
            .chunks_exact(16)
            .flat_map(|c| (wide::f32x16::from(<[f32; 16]>::try_from(c).unwrap()) / &d).to_array())
            .collect();
        let whole = q.len();
        assert_quotients(
            &format!("f32x16 / Divisor({b:e})"),
            &dividends[..whole],
            &bs[..whole],
            &q,
        );
    }
    assert_eq!(strategies.len(), 4, "{strategies:?}");
}

/// What the tests of a `Divisor`'s public slices read them with.
#[cfg(fmadiv_x86)]
struct PublicSlices {
    /// The backend in use.
    backend: fmadiv::Backend,
    /// The plan's lengths for the `Divisor`.
    lens: fmadiv::plan::DivisorChoices,
    /// A divisor forced to two products where they are wrong, and the dividends they get
    /// wrong (`common::two_products_where_wrong`).
    b: f32,
    weakened: Divisor,
    wrong: Vec<f32>,
}

/// [`PublicSlices`] on the backend in use; `None`, said once, on the portable backend, whose
/// `Divisor` takes the divider at every length.
#[cfg(fmadiv_x86)]
fn public_slices() -> Option<PublicSlices> {
    let backend = fmadiv::backend();
    if backend == fmadiv::Backend::Portable {
        common::skipped_once("a Divisor's sequence (no SIMD backend: the divider always)");
        return None;
    }
    let (b, weakened, wrong) = common::two_products_where_wrong();
    Some(PublicSlices {
        backend,
        lens: fmadiv::plan().choices().divisor,
        b,
        weakened,
        wrong,
    })
}

/// A `Divisor`'s public slices run what the plan chooses at each length, on the backend in
/// use, read from a divisor forced to two products where they are wrong
/// (`common::two_products_where_wrong`, its proof already made) and from one given
/// Markstein's sequence with a reciprocal it needs not (`common::markstein_where_wrong`):
/// below the plan's length every lane is the divider's; from it, every lane of the whole
/// vectors (two products' flag-checked chunks) or blocks (the window-checked loop) after
/// the head to the output's cache line is the sequence's (a clean slice voids no chunk); in
/// place the same from `in_place_from`. Bits alone
/// cannot show this: the divider gives the same ones.
#[cfg(fmadiv_x86)]
#[test]
fn the_divisors_slices_run_the_plans_choice_by_length() {
    const LONGEST: usize = 1 << 16;
    let Some(p) = public_slices() else { return };
    let (backend, lens) = (p.backend, p.lens);
    let weakened_divisors = [
        ((p.b, p.weakened, p.wrong), false),
        (common::markstein_where_wrong(), true),
    ];
    for ((b, weakened, wrong), markstein) in weakened_divisors {
        let a: Vec<f32> = wrong.iter().copied().cycle().take(LONGEST).collect();
        // The lanes a call on the first `n` dividends gave the sequence (on a thread of its
        // own: the flag-checked chunks' back-off is the thread's), the output (or the slice
        // divided in place) a `LineOutput`; every other lane the divider's.
        let sequence_lanes = |n: usize, in_place: bool| -> Vec<bool> {
            let x = &a[..n];
            let out = common::on_a_fresh_thread(|| {
                let mut out = common::LineOutput::new(n);
                out.copy_from_slice(x);
                match in_place {
                    true => weakened.divide_in_place(&mut out),
                    false => weakened.divide_slice(x, &mut out),
                }
                out.to_vec()
            });
            common::sequence_lanes(&format!("over {n}"), x, b, &weakened, &out)
        };
        let paths = [
            ("divide_slice", lens.sequence_from, false),
            ("divide_in_place", lens.in_place_from, true),
        ];
        for (what, from, in_place) in paths {
            let below = from.saturating_sub(1).min(LONGEST);
            let got = sequence_lanes(below, in_place);
            assert!(
                got.iter().all(|&s| !s),
                "{what} over {below} elements (the plan: the sequence from {from}): lane {} is \
             the sequence's",
                got.iter().position(|&s| s).unwrap_or(0)
            );
            if from > LONGEST {
                let when = match from {
                    usize::MAX => "never".to_string(),
                    _ => format!("from {from} elements"),
                };
                eprintln!("{what}: the plan runs the sequence {when}: not read above {below}");
                continue;
            }
            let got = sequence_lanes(from, in_place);
            // The head to the output's line (or, at eight lanes, vector) boundary goes to the
            // divider, as do the lanes after the whole vectors past it; in place and below the
            // flag-checked chunks the window-checked loop takes its head where stores are
            // aligned only, and runs whole blocks of vectors.
            let out = common::LineOutput::new(from);
            let windowed =
                markstein || in_place || from < fmadiv::verify::divisor::FLAG_CHECKED_FROM;
            let (head, unit) = match windowed {
                true => (
                    fmadiv::verify::line_head(backend, &out),
                    fmadiv::verify::divisor::LANE_BLOCK_VECTORS * backend.lanes(),
                ),
                false => (
                    fmadiv::verify::divisor::two_products_head(backend, &out),
                    backend.lanes(),
                ),
            };
            let whole = from - (from - head) % unit;
            let want: Vec<bool> = (head..from).map(|i| i < whole).collect();
            let want = [vec![false; head], want].concat();
            if let Some(i) = (0..from).find(|&i| got[i] != want[i]) {
                panic!(
                    "{what} by {} over {from} elements (the plan's length for the sequence): lane \
                 {i} is {}",
                    weakened.strategy(),
                    if got[i] {
                        "the sequence's"
                    } else {
                        "the divider's"
                    }
                );
            }
        }
    }
}

/// Where the caller's MXCSR holds a voiding flag (underflow here), a `Divisor`'s public
/// slices take the window-checked loop below the plan's `window_if_flags_held_below` and the
/// flag-checked chunks from it, on the backend in use: read from a divisor forced to two
/// products where they are wrong, with a quiet NaN mid-slice (the chunks keep its vector,
/// the sequence's; the window loop sends it to the divider). Lengths where the plan runs
/// neither (below its `sequence_from` or the chunks' 512) are said and not read.
#[cfg(fmadiv_x86)]
#[test]
fn the_divisors_slices_take_the_window_where_the_caller_holds_a_flag_below_the_plans_length() {
    use fmadiv::verify::divisor::FLAG_CHECKED_FROM;
    const UNDERFLOW: u32 = 1 << 4;
    let Some(p) = public_slices() else { return };
    let (backend, lens, b, weakened, wrong) = (p.backend, p.lens, p.b, p.weakened, p.wrong);
    let lanes = backend.lanes();
    let shortest = lens.sequence_from.max(FLAG_CHECKED_FROM);
    let below = lens.window_if_flags_held_below;
    // The shortest slice of each kind the plan has, a NaN mid-slice: (length, window).
    let mut cases = vec![];
    if shortest < below {
        cases.push((shortest + 3, true));
    } else {
        eprintln!(
            "no slice takes the window for a held flag: the chunks from {shortest}, the window \
             below {below}"
        );
    }
    if below.max(shortest) <= 1 << 16 {
        cases.push((below.max(shortest) + 3, false));
    }
    for (len, window) in cases {
        let nan = len / 2 + 1;
        let mut a: Vec<f32> = wrong.iter().copied().cycle().take(len).collect();
        a[nan] = f32::NAN;
        let (out, after) = common::on_a_fresh_thread(|| {
            let mut out = vec![0.0f32; len];
            let saved = common::read_mxcsr();
            common::write_mxcsr((saved & !common::ALL_FLAGS) | UNDERFLOW);
            weakened.divide_slice(&a, &mut out);
            let after = common::read_mxcsr();
            common::write_mxcsr(saved);
            (out, after)
        });
        let divided = (nan + 1 - lanes..nan + lanes)
            .filter(|&i| i != nan && out[i].to_bits() == (a[i] / b).to_bits())
            .count();
        let what = format!(
            "divide_slice over {len} with underflow held (the plan: the window below {below})"
        );
        assert_eq!(
            divided,
            if window { lanes - 1 } else { 0 },
            "{what}: the NaN's vector-mates on the divider"
        );
        assert!(after & UNDERFLOW != 0, "{what}: the caller's flag was lost");
    }
}

/// A `Divisor`'s first slice makes the proof only from the plan's `first_proof_from` (where
/// the proof is small beside the job itself: a `Divisor` made per row must not pay it); a
/// divisor used again makes it wherever its sequence runs (`sequence_from`). Every path
/// gives the bits of `/`, in place too, for every edge divisor and random bit patterns; and
/// the proof, once made, is kept.
#[test]
fn the_proof_is_made_when_it_pays_and_both_paths_are_exact() {
    let lens = fmadiv::plan().choices().divisor;
    let mut rng = common::SplitMix64(common::seed());
    let (mut proven_first, mut proven_reused) = (false, false);
    // The longest first slice the sequence would run on but that makes no proof, and a
    // first slice that makes it.
    let short = lens.first_proof_from.saturating_sub(1).min(1 << 15);
    let long = lens.first_proof_from.max(lens.sequence_from).min(1 << 16);
    let a: Vec<f32> = (0..long.max(short)).map(|_| rng.next_f32_bits()).collect();
    for b in edge_values().into_iter().chain([3.0, -3.0, 3.7, 1.1, 0.1]) {
        let bs = vec![b; a.len()];
        let mut out = vec![0.0f32; a.len()];
        let check = |what: &str, n: usize, out: &[f32]| {
            assert_quotients(
                &format!("{what}, {n} by {b:e}"),
                &a[..n],
                &bs[..n],
                &out[..n],
            )
        };

        // A first slice below `first_proof_from`: the divider, no proof.
        let d = Divisor::new(b);
        if short >= lens.sequence_from {
            d.divide_slice(&a[..short], &mut out[..short]);
            check("unproven", short, &out);
            assert!(
                !fmadiv::verify::divisor::is_proven(&d),
                "a first slice of {short} (first_proof_from {}) made the proof ({b:e})",
                lens.first_proof_from
            );
            let mut x = a[..short].to_vec();
            Divisor::new(b).divide_in_place(&mut x);
            check("unproven in place", short, &x);
            // A clone of a used divisor is a used divisor too.
            let c = d.clone();
            // Used again, where its sequence runs: the proof is made now.
            let n = lens.sequence_from;
            for (what, d) in [("reused", &d), ("a clone, reused", &c)] {
                d.divide_slice(&a[..n], &mut out[..n]);
                check(what, n, &out);
                assert!(
                    fmadiv::verify::divisor::is_proven(d),
                    "{what}: the divisor did not make the proof ({b:e})"
                );
            }
            proven_reused = true;
        }

        // A first slice from `first_proof_from` makes the proof.
        if lens.first_proof_from <= long {
            let d = Divisor::new(b);
            d.divide_slice(&a[..long], &mut out[..long]);
            assert!(
                fmadiv::verify::divisor::is_proven(&d),
                "a first slice of {long} did not make the proof ({b:e})"
            );
            proven_first = true;
            check("proven", long, &out);
            let mut x = a[..long].to_vec();
            Divisor::new(b).divide_in_place(&mut x);
            check("proven in place", long, &x);
            // Once made, the proof serves short slices too (they may still take the
            // divider), and a clone keeps it.
            d.divide_slice(&a[..7], &mut out[..7]);
            check("proven", 7, &out);
            let c = d.clone();
            assert!(
                fmadiv::verify::divisor::is_proven(&c),
                "a clone of a proven divisor lost its proof ({b:e})"
            );
            c.divide_slice(&a[..long], &mut out[..long]);
            check("a proven divisor's clone", long, &out);
        }
    }
    if !proven_first {
        common::skipped_once("a Divisor proven by its first slice (the plan never proves one)");
    }
    if !proven_reused {
        common::skipped_once("a Divisor proven when reused (no sequence on this CPU)");
    }
    // Both paths, whatever the plan says.
    let a: Vec<f32> = (0..20_000).map(|_| rng.next_f32_bits()).collect();
    for b in [3.0f32, -3.0, 1.1, 0.1, 1.0e-30] {
        let d = Divisor::new(b);
        let bs = vec![b; a.len()];
        let mut out = vec![0.0f32; a.len()];
        for sequence in [true, false] {
            fmadiv::verify::divisor::divide_slice_by(&d, sequence, &a, &mut out);
            assert_quotients(&format!("sequence {sequence} by {b:e}"), &a, &bs, &out);
            let mut x = a.clone();
            fmadiv::verify::divisor::divide_in_place_by(&d, sequence, &mut x);
            assert_quotients(
                &format!("in place, sequence {sequence}, by {b:e}"),
                &a,
                &bs,
                &x,
            );
        }
    }
}

#[test]
fn recip_of_every_float() {
    const CHUNK: u64 = 1 << 20;
    let n: u64 = (0..(1u64 << 32) / CHUNK)
        .into_par_iter()
        .map(|c| {
            let b: Vec<f32> = (0..CHUNK as u32)
                .map(|k| f32::from_bits((c * CHUNK) as u32 + k))
                .collect();
            let wrong = |out: &[f32]| {
                b.iter()
                    .zip(out)
                    .filter(|(y, q)| q.to_bits() != (1.0 / **y).to_bits())
                    .count() as u64
            };
            let mut out = vec![0.0f32; b.len()];
            fmadiv::recip(&b, &mut out);
            let mut n = wrong(&out);
            // The reciprocal kernel on every lane, whatever schedule the plan chose: an
            // exhaustive proof of its sequence on this CPU's rcp table.
            if fmadiv::verify::recip_with(fmadiv::verify::Kernel::Shipped, &b, &mut out).is_some() {
                n += wrong(&out);
            }
            n
        })
        .sum();
    assert_eq!(n, 0);
}

/// Without the near-all-ones fix the reciprocal kernel is wrong for 1 / 0x1.fffffep+0
/// scaled into every exponent of the input window, both signs: the check can fail.
#[test]
#[cfg(fmadiv_x86)]
fn recip_without_the_all_ones_fix_is_caught() {
    let b: Vec<f32> = (0..=255u32)
        .flat_map(|e| [e << 23 | 0x7f_ffff, 0x8000_0000 | e << 23 | 0x7f_ffff])
        .map(f32::from_bits)
        .collect();
    let mut out = vec![0.0f32; b.len()];
    if fmadiv::verify::recip_with(fmadiv::verify::Kernel::Published, &b, &mut out).is_none() {
        eprintln!("SKIPPED on this CPU: the reciprocal kernel (needs AVX2+FMA)");
        return;
    }
    let wrong = b
        .iter()
        .zip(&out)
        .filter(|(y, q)| q.to_bits() != (1.0 / **y).to_bits())
        .count();
    // Only where the seed of 0x1.fffffep+0 is exactly 0.5 (AMD's `rcpps`, Intel's reference
    // `vrcp14ps`) does the tie appear: the seed of the backend in use.
    let rcp_of_all_ones =
        common::seed_in_use(fmadiv::EntryPoint::Recip, f32::from_bits(0x3fff_ffff));
    if rcp_of_all_ones == 0.5 {
        assert_eq!(wrong, 252, "126 window exponents x 2 signs");
    }
    fmadiv::verify::recip_with(fmadiv::verify::Kernel::Shipped, &b, &mut out).unwrap();
    assert!(
        b.iter()
            .zip(&out)
            .all(|(y, q)| q.to_bits() == (1.0 / *y).to_bits())
    );
}

#[test]
#[should_panic(
    expected = "fmadiv::Divisor::divide_slice: length mismatch: input of 2, output of 1"
)]
fn divide_slice_panics_on_mismatch() {
    Divisor::new(3.0).divide_slice(&[1.0, 2.0], &mut [0.0]);
}

#[test]
#[should_panic(expected = "fmadiv::recip: length mismatch")]
fn recip_panics_on_mismatch() {
    fmadiv::recip(&[1.0, 2.0], &mut [0.0]);
}
