//! Reciprocals of arrays: `1 / b` elementwise, the bits of ndarray's `1.0 / &b`, by the
//! plan's `recip` loops ([`crate::recip`]).
//!
//! The quotients' paths, `b` the divisors: a `b` contiguous in some memory order takes one
//! call for the whole array, into a fresh output of that order; short rows go a group of
//! whole rows at a time (`short_rows`); a transposed `b` tile by tile (`tiles`, the
//! dividends a broadcast one); otherwise `b` is walked lane by lane along the output's most
//! contiguous axis, contiguous lanes straight from `b`, others (views with steps) gathered
//! a piece at a time. In place (`recip_assign`), the same but for the tiles: a view has no
//! other operand to be transposed against.

use std::mem::MaybeUninit;

use ::ndarray::{
    Array, ArrayBase, ArrayView, ArrayView1, ArrayViewMut, Axis, Data, DataMut, Dimension,
    ShapeError, Zip,
};

use super::{PIECE, Pieces, lane_axis, output_shape, same_shape, scatter, short_rows, tiles};
use crate::slices::recip_disjoint;

/// `1 / b` elementwise into a new array of `b`'s shape (and memory order, where `b` is
/// contiguous in Fortran order): the bits of ndarray's `1.0 / &b`.
///
/// ```
/// let b = ndarray::array![[3.0f32, -0.0], [0.99999994, f32::INFINITY]];
/// let r = fmadiv::ndarray::recip(&b);
/// assert_eq!(r[[0, 0]].to_bits(), (1.0f32 / 3.0).to_bits());
/// assert_eq!(r[[0, 1]], f32::NEG_INFINITY);
/// assert_eq!(r, 1.0 / &b);
/// ```
#[must_use]
pub fn recip<S, D>(b: &ArrayBase<S, D>) -> Array<f32, D>
where
    S: Data<Elem = f32>,
    D: Dimension,
{
    let mut fresh = Array::<f32, D>::uninit(output_shape(b));
    if reciprocals_fresh(b.view(), fresh.view_mut()) {
        // SAFETY: `reciprocals_fresh` wrote every element.
        return unsafe { fresh.assume_init() };
    }
    // A transposed `b` (its tiles divide initialised memory): zeroed memory, as `div`'s.
    let shape = output_shape(b);
    drop(fresh);
    let mut out = Array::zeros(shape);
    reciprocals(b.view(), out.view_mut());
    out
}

/// `out = 1 / b` elementwise; `out` must have `b`'s shape. Nothing is written on error.
///
/// # Errors
/// A [`ShapeError`] if `out` does not have `b`'s shape; nothing is written then.
///
/// ```
/// let b = ndarray::Array2::from_elem((2, 3), 4.0f32);
/// let mut out = ndarray::Array2::zeros((3, 2)).reversed_axes(); // Fortran order
/// fmadiv::ndarray::recip_to(&b, &mut out).unwrap();
/// assert!(out.iter().all(|&r| r == 0.25));
/// assert!(fmadiv::ndarray::recip_to(&b, &mut ndarray::Array2::zeros((3, 2))).is_err());
/// ```
pub fn recip_to<S1, S2, D>(
    b: &ArrayBase<S1, D>,
    out: &mut ArrayBase<S2, D>,
) -> Result<(), ShapeError>
where
    S1: Data<Elem = f32>,
    S2: DataMut<Elem = f32>,
    D: Dimension,
{
    same_shape(out.shape(), b.shape())?;
    reciprocals(b.view(), out.view_mut());
    Ok(())
}

/// `b = 1 / b` elementwise, in place: the bits of ndarray's `b.mapv_inplace(|y| 1.0 / y)`.
///
/// ```
/// let mut b = ndarray::array![[3.0f32, -0.0], [0.99999994, f32::INFINITY]];
/// let want = 1.0 / &b;
/// fmadiv::ndarray::recip_assign(&mut b);
/// assert_eq!(b, want);
/// ```
pub fn recip_assign<S, D>(b: &mut ArrayBase<S, D>)
where
    S: DataMut<Elem = f32>,
    D: Dimension,
{
    reciprocals_in_place(b.view_mut());
}

/// `out = 1 / b` for views of one shape into uninitialised memory, every element written
/// and none read, where the layout allows it: `false`, and nothing written, where it does
/// not (a transposed `b`, whose tiles take initialised memory).
pub(super) fn reciprocals_fresh<D: Dimension>(
    b: ArrayView<f32, D>,
    mut out: ArrayViewMut<MaybeUninit<f32>, D>,
) -> bool {
    // `b` contiguous in the output's memory order: one call for all of it.
    if b.strides() == out.strides()
        && let Some(y) = b.as_slice_memory_order()
        && let Some(o) = out.as_slice_memory_order_mut()
    {
        // SAFETY: y is readable and o writable for o.len() == y.len() elements (one shape,
        // one memory order); o, not yet initialised, cannot overlap y.
        unsafe { recip_disjoint(y.as_ptr(), o.as_mut_ptr().cast(), o.len()) };
        return true;
    }
    if short_rows::reciprocals_fresh(b.view(), out.view_mut()) {
        return true;
    }
    if out.ndim() == 0 {
        out.zip_mut_with(&b, |r, &y| {
            r.write(crate::arch::portable::div_one(1.0, y));
        });
        return true;
    }
    let axis = lane_axis(out.strides(), out.shape());
    if tiles::cross_axis(axis, out.shape(), &[out.strides(), b.strides()]).is_some() {
        return false;
    }
    let mut pieces = Pieces::new();
    Zip::from(out.lanes_mut(axis))
        .and(b.lanes(axis))
        .for_each(|mut o, y| match o.as_slice_mut() {
            // SAFETY: o is writable for its length, y's, and (not yet initialised) overlaps
            // nothing `y` reads; `lane_into` writes every element of it.
            Some(o) => unsafe { lane_into(y, o.as_mut_ptr().cast(), &mut pieces) },
            // Lanes that do not step by one: none in a fresh array of one memory order or a
            // block of one (its lanes run along the axis that steps by one); element by
            // element, for any other view.
            None => Zip::from(o).and(y).for_each(|r, &y| {
                r.write(crate::arch::portable::div_one(1.0, y));
            }),
        });
    true
}

/// `out = 1 / b` for views of one shape, `out` initialised (its values unread).
pub(super) fn reciprocals<D: Dimension>(b: ArrayView<f32, D>, mut out: ArrayViewMut<f32, D>) {
    if b.strides() == out.strides()
        && let Some(y) = b.as_slice_memory_order()
        && let Some(o) = out.as_slice_memory_order_mut()
    {
        crate::recip(y, o);
        return;
    }
    if short_rows::reciprocals(b.view(), out.view_mut()) {
        return;
    }
    if out.ndim() == 0 {
        out.zip_mut_with(&b, |r, &y| *r = crate::arch::portable::div_one(1.0, y));
        return;
    }
    let axis = lane_axis(out.strides(), out.shape());
    if let Some(cross) = tiles::cross_axis(axis, out.shape(), &[out.strides(), b.strides()]) {
        // Tile by tile, the dividends ones (a scalar broadcast: each tile's row a fill).
        let one = ::ndarray::arr0(1.0f32);
        let ones = one.broadcast(out.raw_dim()).expect("a scalar broadcasts");
        let (ones, b) = (Some(ones.into_dyn()), b.into_dyn());
        return tiles::divide(out.into_dyn(), ones, b, axis, cross);
    }
    let mut pieces = Pieces::new();
    Zip::from(out.lanes_mut(axis))
        .and(b.lanes(axis))
        .for_each(|mut o, y| {
            if let Some(o) = o.as_slice_mut() {
                // SAFETY: o is writable for its length, y's, and as a unique borrow overlaps
                // nothing `y` reads.
                return unsafe { lane_into(y, o.as_mut_ptr(), &mut pieces) };
            }
            // A strided output lane: a piece at a time through the buffers.
            let chunks = o.axis_chunks_iter_mut(Axis(0), PIECE);
            for (mut o, y) in chunks.zip(y.axis_chunks_iter(Axis(0), PIECE)) {
                let (r, y) = pieces.load_divisors(&y);
                crate::recip(y, r);
                scatter(r, &mut o);
            }
        });
}

/// `b = 1 / b` for a view: one call where it is contiguous in some memory order, short
/// rows a group at a time, otherwise lane by lane along its most contiguous axis (lanes
/// with steps gathered a piece at a time).
pub(super) fn reciprocals_in_place<D: Dimension>(mut b: ArrayViewMut<f32, D>) {
    if let Some(y) = b.as_slice_memory_order_mut() {
        return crate::recip_in_place(y);
    }
    if short_rows::reciprocals_in_place(b.view_mut()) {
        return;
    }
    // Not contiguous, so not a single element: it has an axis.
    let axis = lane_axis(b.strides(), b.shape());
    let mut pieces = Pieces::new();
    for mut y in b.lanes_mut(axis) {
        if let Some(y) = y.as_slice_mut() {
            crate::recip_in_place(y);
            continue;
        }
        for mut y in y.axis_chunks_iter_mut(Axis(0), PIECE) {
            let (r, divisors) = pieces.load_divisors(&y.view());
            crate::recip(divisors, r);
            scatter(r, &mut y);
        }
    }
}

/// `out = 1 / b` for one lane into contiguous memory, written without being read: `b`'s
/// slice where it is contiguous, else a piece at a time gathered through `pieces`.
///
/// # Safety
/// `out` writable for `b.len()` floats and overlapping `b` nowhere.
unsafe fn lane_into(b: ArrayView1<f32>, out: *mut f32, pieces: &mut Pieces) {
    if let Some(y) = b.as_slice() {
        // SAFETY: the caller's guarantees, y readable for its length.
        unsafe { recip_disjoint(y.as_ptr(), out, y.len()) };
        return;
    }
    for (i, y) in b.axis_chunks_iter(Axis(0), PIECE).enumerate() {
        let (_, y) = pieces.load_divisors(&y);
        // SAFETY: piece i starts i * PIECE elements into the lane and holds y.len() of them,
        // within the caller's writable `out`; the buffer is `pieces`' own.
        unsafe { recip_disjoint(y.as_ptr(), out.add(i * PIECE), y.len()) };
    }
}

#[cfg(test)]
mod tests {
    use ::ndarray::{Array1, Array2, s};

    use super::{PIECE, recip, recip_assign, recip_to};
    use crate::ndarray::tests::same_bits;

    /// Lanes with steps longer than a piece (so the second lands `PIECE` elements in), rows
    /// of three a group at a time (columns of a wider matrix, fresh and into such columns),
    /// and a transposed view with steps (tile by tile): the bits of `1.0 / &b` (also what
    /// Miri runs through the raw writes and the rows' copies).
    #[test]
    fn every_layout_takes_reciprocals_as_slash_does() {
        let n = PIECE + 37;
        let line = Array1::from_shape_fn(3 * n, |i| 1.0 + i as f32 / 64.0);
        let b = line.slice(s![..;-3]);
        assert!(same_bits(&recip(&b), &(1.0 / &b)));
        let mut spaced = Array1::from_elem(2 * n, -1.0f32);
        recip_to(&b, &mut spaced.slice_mut(s![1..;2])).unwrap();
        assert!(same_bits(&spaced.slice(s![1..;2]).to_owned(), &(1.0 / &b)));
        assert!(spaced.slice(s![..;2]).iter().all(|&v| v == -1.0));
        let fours = Array2::from_shape_fn((700, 4), |(i, j)| (i * 4 + j) as f32 + 0.5);
        let threes = fours.slice(s![.., 1..]);
        let want = 1.0 / &threes;
        assert!(same_bits(&recip(&threes), &want));
        let mut wider = Array2::from_elem((700, 5), -1.0f32);
        recip_to(&threes, &mut wider.slice_mut(s![.., ..3])).unwrap();
        assert!(same_bits(&wider.slice(s![.., ..3]).to_owned(), &want));
        assert!(wider.slice(s![.., 3..]).iter().all(|&v| v == -1.0));
        let tall = Array2::from_shape_fn((140, 67), |(i, j)| (i * 67 + j) as f32 + 0.25);
        let transposed = tall.slice(s![..;2, ..]).reversed_axes();
        assert!(same_bits(&recip(&transposed), &(1.0 / &transposed)));
    }

    /// In place: lanes with steps longer than a piece, rows of three a group at a time
    /// (columns of a wider matrix), a transposed view with steps, each with the bits of
    /// `1.0 / &b` and nothing beside it written (also what Miri runs through the buffers).
    #[test]
    fn every_layout_takes_reciprocals_in_place_as_slash_does() {
        let n = PIECE + 37;
        let mut line = Array1::from_shape_fn(3 * n, |i| 1.0 + i as f32 / 64.0);
        let want = 1.0 / &line.slice(s![..;-3]);
        recip_assign(&mut line.slice_mut(s![..;-3]));
        assert!(same_bits(&line.slice(s![..;-3]).to_owned(), &want));
        assert!(line.slice(s![1..;3]).iter().all(|&v| v > 1.0));
        let mut fours = Array2::from_shape_fn((700, 4), |(i, j)| (i * 4 + j) as f32 + 0.5);
        let want = 1.0 / &fours.slice(s![.., 1..]);
        recip_assign(&mut fours.slice_mut(s![.., 1..]));
        assert!(same_bits(&fours.slice(s![.., 1..]).to_owned(), &want));
        assert!(fours.column(0).iter().all(|&v| v >= 0.5));
        let mut tall = Array2::from_shape_fn((140, 67), |(i, j)| (i * 67 + j) as f32 + 0.25);
        let want = 1.0 / &tall.slice(s![..;2, ..]).reversed_axes();
        recip_assign(&mut tall.slice_mut(s![..;2, ..]).reversed_axes());
        assert!(same_bits(
            &tall.slice(s![..;2, ..]).reversed_axes().to_owned(),
            &want
        ));
        assert!(tall.row(1).iter().all(|&v| v > 1.0));
    }
}
