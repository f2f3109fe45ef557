//! Interval division with `fmadiv::div_bounds`: for intervals `x = [x_lo, x_hi]` and
//! `y = [y_lo, y_hi]` with `0` outside `y`, the quotient `x / y` lies in
//! `[min RD(x_i / y_j), max RU(x_i / y_j)]` over the four corners. One call of `div_bounds`
//! per corner gives both roundings from one division each, with no change of MXCSR.
//!
//! ```sh
//! cargo run --release --example interval
//! ```
//!
//! The example checks its enclosures against the exact quotients (binary64 holds every
//! corner quotient of two binary32 values to within 2^-53, and tells whether each bound is
//! on the right side) and prints a few.

use fmadiv::div_bounds;

/// Intervals as two arrays of lower and upper ends.
struct Intervals {
    lo: Vec<f32>,
    hi: Vec<f32>,
}

/// `x / y` element by element; every `y` interval must exclude zero.
fn divide(x: &Intervals, y: &Intervals) -> Intervals {
    let n = x.lo.len();
    let mut out = Intervals {
        lo: vec![f32::INFINITY; n],
        hi: vec![f32::NEG_INFINITY; n],
    };
    let (mut down, mut up) = (vec![0.0f32; n], vec![0.0f32; n]);
    for xs in [&x.lo, &x.hi] {
        for ys in [&y.lo, &y.hi] {
            div_bounds(xs, ys, &mut down, &mut up);
            for i in 0..n {
                out.lo[i] = out.lo[i].min(down[i]);
                out.hi[i] = out.hi[i].max(up[i]);
            }
        }
    }
    out
}

fn main() {
    // Some intervals of every sign, the divisors away from zero.
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 100_000;
    let mut x = Intervals {
        lo: vec![],
        hi: vec![],
    };
    let mut y = Intervals {
        lo: vec![],
        hi: vec![],
    };
    for _ in 0..n {
        let (c, w) = ((next() - 0.5) * 100.0, next());
        x.lo.push((c - w) as f32);
        x.hi.push((c + w) as f32);
        let sign = if next() < 0.5 { -1.0 } else { 1.0 };
        let (c, w) = (sign * (0.5 + next() * 10.0), next() * 0.4);
        y.lo.push(f64::min(c - w, c + w) as f32);
        y.hi.push(f64::max(c - w, c + w) as f32);
    }
    let q = divide(&x, &y);

    // Every exact corner quotient lies inside, and each end is the binary32 value nearest
    // the extreme corner on the outside (one step in would cut an exact quotient off).
    let mut tight = 0;
    for i in 0..n {
        let corners = [
            f64::from(x.lo[i]) / f64::from(y.lo[i]),
            f64::from(x.lo[i]) / f64::from(y.hi[i]),
            f64::from(x.hi[i]) / f64::from(y.lo[i]),
            f64::from(x.hi[i]) / f64::from(y.hi[i]),
        ];
        let (min, max) = corners
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &c| {
                (a.min(c), b.max(c))
            });
        assert!(
            f64::from(q.lo[i]) <= min && max <= f64::from(q.hi[i]),
            "interval {i}: [{}, {}] does not hold [{min}, {max}]",
            q.lo[i],
            q.hi[i]
        );
        let inward = |v: f32, up: bool| {
            let b = v.to_bits();
            f32::from_bits(if (v > 0.0) == up { b + 1 } else { b - 1 })
        };
        let lo_tight = f64::from(q.lo[i]) == min || f64::from(inward(q.lo[i], true)) > min;
        let hi_tight = f64::from(q.hi[i]) == max || f64::from(inward(q.hi[i], false)) < max;
        tight += usize::from(lo_tight && hi_tight);
    }
    assert_eq!(tight, n, "some enclosure is wider than one rounding");
    for i in 0..4 {
        println!(
            "[{:>12.6e}, {:>12.6e}] / [{:>12.6e}, {:>12.6e}] = [{:>14.8e}, {:>14.8e}]",
            x.lo[i], x.hi[i], y.lo[i], y.hi[i], q.lo[i], q.hi[i]
        );
    }
    println!(
        "{n} interval quotients: every one encloses its exact corners, each end within one rounding"
    );
}
