//! What `scripts/outlined.sh` disassembles: a user's program that calls every slice
//! function of the crate and the `Divisor`'s (default features off, so not `par_div`), each
//! at a length that takes the short loops and one that takes the long ones (the directed
//! functions' flag-checked chunks start at 512 elements), so that every generic loop the
//! library inlines into its entry points is compiled into this binary.

use std::hint::black_box;

use fmadiv::Rounding;

fn main() {
    for n in [64usize, 4096] {
        let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.37).collect();
        let b: Vec<f32> = (0..n).map(|i| 3.0 + i as f32 * 0.11).collect();
        let (mut out, mut hi) = (vec![0f32; n], vec![0f32; n]);
        let (a, b) = (black_box(&a[..]), black_box(&b[..]));
        fmadiv::div(a, b, &mut out);
        fmadiv::try_div(a, b, &mut out).expect("equal lengths");
        fmadiv::recip(b, &mut out);
        fmadiv::div_scalar(a, black_box(3.7), &mut out);
        for mode in Rounding::ALL {
            fmadiv::div_rounded(a, b, &mut out, black_box(mode));
        }
        fmadiv::div_bounds(a, b, &mut out, &mut hi);
        let d = fmadiv::Divisor::new(black_box(3.7));
        d.divide_slice(a, &mut out);
        d.divide_in_place(&mut out);
        black_box(d.divide_rounded(a[0], black_box(Rounding::Down)));
        out.copy_from_slice(a);
        fmadiv::div_in_place(&mut out, b);
        black_box((&out, &hi));
    }
}
