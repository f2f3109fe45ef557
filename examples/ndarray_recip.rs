//! `fmadiv::ndarray::recip` against ndarray's own `1.0 / &b`, `recip_to` against an `azip!`
//! of `1.0 / y` into the same output, and `recip_assign` against `mapv_inplace(|y| 1.0 / y)`
//! (both on one array of the case's layout), over the layouts that take a path of their
//! own: contiguous (one call; in L2 at 256² and in L3 at 1024²), a transposed view (one
//! call, into a Fortran-order output), the first 1000 of 1024 columns (lane by lane),
//! every other row's every third element (lanes with steps, gathered a piece at a time)
//! and the first 3 of 4 columns (lanes of three). Bits checked first, then timed in
//! alternating rounds in one process: the median and range of the ratios (ndarray's time
//! over fmadiv's) of 21 rounds.
//!
//! ```sh
//! cargo run --release --example ndarray_recip --features ndarray
//! ```

mod common;

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, azip, s};

const ROUNDS: usize = 21;

/// The median, smallest and largest ratio of `plain`'s time over `fmadiv`'s in alternating
/// rounds (each round's first side alternating too), and each side's median in µs.
fn race(plain: &dyn Fn(), fmadiv: &dyn Fn()) -> [f64; 5] {
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e6
    };
    let (mut ratios, mut plain_us, mut fmadiv_us) = (vec![], vec![], vec![]);
    for round in 0..ROUNDS {
        let (p, f) = if round % 2 == 0 {
            (time(plain), time(fmadiv))
        } else {
            let f = time(fmadiv);
            (time(plain), f)
        };
        ratios.push(p / f);
        plain_us.push(p);
        fmadiv_us.push(f);
    }
    for v in [&mut ratios, &mut plain_us, &mut fmadiv_us] {
        v.sort_by(f64::total_cmp);
    }
    let mid = ROUNDS / 2;
    [
        ratios[mid],
        ratios[0],
        ratios[ROUNDS - 1],
        plain_us[mid],
        fmadiv_us[mid],
    ]
}

fn check(what: &str, got: &Array2<f32>, b: &ArrayView2<f32>) {
    for (g, y) in got.iter().zip(b) {
        assert_eq!(g.to_bits(), (1.0 / y).to_bits(), "{what}: bits differ");
    }
}

/// A case's layout of its array, the same for a view and for a mutable view.
#[derive(Clone, Copy)]
enum Layout {
    Whole,
    Transposed,
    Columns(usize),
    Steps,
}

impl Layout {
    fn view(self, a: &Array2<f32>) -> ArrayView2<'_, f32> {
        match self {
            Layout::Whole => a.view(),
            Layout::Transposed => a.t(),
            Layout::Columns(n) => a.slice(s![.., ..n]),
            Layout::Steps => a.slice(s![..;2, ..;3]),
        }
    }

    fn view_mut(self, a: &mut Array2<f32>) -> ArrayViewMut2<'_, f32> {
        match self {
            Layout::Whole => a.view_mut(),
            Layout::Transposed => a.view_mut().reversed_axes(),
            Layout::Columns(n) => a.slice_mut(s![.., ..n]),
            Layout::Steps => a.slice_mut(s![..;2, ..;3]),
        }
    }
}

fn main() {
    let mut normal = common::normal_values();
    let small = Array2::from_shape_simple_fn((256, 256), &mut normal);
    let big = Array2::from_shape_simple_fn((1024, 1024), &mut normal);
    let wide = Array2::from_shape_simple_fn((2048, 3072), &mut normal);
    let fours = Array2::from_shape_simple_fn((1024 * 1024 / 3, 4), &mut normal);
    let cases: [(&str, &Array2<f32>, Layout); 6] = [
        ("256² contiguous (256 KiB, L2)", &small, Layout::Whole),
        ("1024² contiguous (4 MiB, L3)", &big, Layout::Whole),
        ("1024² transposed view", &big, Layout::Transposed),
        ("1000 of 1024 columns", &big, Layout::Columns(1000)),
        ("every other row's every third", &wide, Layout::Steps),
        ("3 of 4 columns", &fours, Layout::Columns(3)),
    ];
    println!(
        "ndarray_recip: {}; ndarray's time over fmadiv's, median (range) of {ROUNDS} \
         alternating rounds, and the median times",
        common::cpu()
    );
    for (what, owner, layout) in cases {
        let b = layout.view(owner);
        check(what, &fmadiv::ndarray::recip(&b), &b);
        let fresh = race(&|| drop(black_box(1.0 / &b)), &|| {
            drop(black_box(fmadiv::ndarray::recip(&b)))
        });
        let mut out = Array2::zeros(b.raw_dim());
        fmadiv::ndarray::recip_to(&b, &mut out).unwrap();
        check(what, &out, &b);
        let out = RefCell::new(out);
        let into = race(
            &|| azip!((r in &mut *out.borrow_mut(), &y in &b) *r = 1.0 / y),
            &|| fmadiv::ndarray::recip_to(&b, &mut *out.borrow_mut()).unwrap(),
        );
        // In place, both sides on one copy of the array, its values turning into their
        // reciprocals and back round after round (with a copy each, the two copies of the
        // largest array outgrew the last-level cache and each side paid for writing back
        // the other's lines: 0.77-0.82x for the views with steps, 1.11-1.12x on one copy;
        // docs/bench/0x19-0x11-ndarray-recip-assign.txt).
        let mut mine = owner.clone();
        fmadiv::ndarray::recip_assign(&mut layout.view_mut(&mut mine));
        check(what, &layout.view(&mine).to_owned(), &b);
        let mine = RefCell::new(mine);
        let in_place = race(
            &|| {
                layout
                    .view_mut(&mut mine.borrow_mut())
                    .mapv_inplace(|y| 1.0 / y)
            },
            &|| fmadiv::ndarray::recip_assign(&mut layout.view_mut(&mut mine.borrow_mut())),
        );
        let ways = [
            ("recip", fresh),
            ("recip_to", into),
            ("recip_assign", in_place),
        ];
        for (way, [ratio, min, max, plain, fm]) in ways {
            println!(
                "  {what:32} {way:12} {ratio:.2}x ({min:.2}..{max:.2}); {plain:.0} us and {fm:.0} us"
            );
        }
    }
}
