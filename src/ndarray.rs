//! Exact division of `ndarray` arrays (feature `ndarray`).
//!
//! `b` may be any array that broadcasts to `a`'s shape (a row, a column, a scalar array):
//! the usual case of normalising rows or columns. Any layout works — standard or
//! Fortran order, transposed, sliced with steps, broadcast views — and every quotient has
//! the bits of `/`:
//!
//! - when `a`, `b` and the output share one memory layout and are contiguous in it, one
//!   call of [`crate::div`] divides all of it;
//! - in rows (along the innermost axis of the output's memory order) shorter than 64
//!   elements (256 by one row for all, `a / row`), each stepping by one in `a` and the
//!   output: a group of whole rows at a time, 1024 elements, their divisors gathered into
//!   one buffer (once for all by one row), their dividends too and their quotients written
//!   back row by row where the rows are not contiguous with one another (a few columns of
//!   a wider matrix; `short_rows`);
//! - where an operand is transposed (more contiguous across the output's most contiguous
//!   axis than along it: `a.t() / b`), tile by tile (`tiles`): 4096 elements of each
//!   operand gathered reading whole cache lines, then divided in one call;
//! - otherwise the arrays are walked lane by lane along the output's most contiguous axis:
//!   contiguous lanes go to [`crate::div`], lanes whose divisor is broadcast along them
//!   (a column divisor) to [`crate::div_scalar`], other lanes (views with steps) through two
//!   small buffers, a piece at a time; `div` and `try_div` write such lanes straight into
//!   the fresh output, never zeroed first.
//!
//! [`recip`] and [`recip_to`] take `1 / b` (the bits of ndarray's `1.0 / &b`) by the same
//! paths, with the plan's `recip` loops: one call where `b` is contiguous, short rows a group
//! at a time, a transposed `b` tile by tile, otherwise lane by lane (`reciprocals`);
//! [`recip_assign`] writes them over `b`: one call where `b` is contiguous, short rows of a
//! wider matrix a group at a time through a buffer, otherwise lane by lane.
//!
//! With the `rayon` feature too, [`par_div`], [`try_par_div`], [`par_div_to`], [`par_div_assign`],
//! [`par_recip`], [`par_recip_to`] and [`par_recip_assign`] cut an array of 2^18 elements or more
//! into blocks along its outermost axis and divide them on rayon's threads, each block as above
//! (`parallel`).
//!
//! ```
//! use ndarray::{Array2, array};
//! let a: Array2<f32> = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let row_sums = a.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1));
//! let q = fmadiv::ndarray::div(&a, &row_sums); // every row divided by its sum
//! assert_eq!(q[[0, 1]].to_bits(), (2.0f32 / 6.0).to_bits());
//! let q = fmadiv::ndarray::div(&a, &array![1.0f32, 3.0, 7.0]); // every row by one row
//! assert_eq!(q[[1, 2]].to_bits(), (6.0f32 / 7.0).to_bits());
//! ```

use std::mem::MaybeUninit;

use ::ndarray::{
    Array, ArrayBase, ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Data, DataMut,
    Dimension, Shape, ShapeBuilder, ShapeError, Zip,
};

#[cfg(feature = "rayon")]
mod parallel;
mod reciprocals;
mod short_rows;
mod tiles;

pub use reciprocals::{recip, recip_assign, recip_to};

#[cfg(feature = "rayon")]
pub use parallel::{
    par_div, par_div_assign, par_div_to, par_recip, par_recip_assign, par_recip_to, try_par_div,
};

/// Elements per gathered piece of a strided lane (on the stack).
const PIECE: usize = 256;

/// `a / b` elementwise into a new array of `a`'s shape (and memory order, where `a` is
/// contiguous in Fortran order), `b` broadcast to that shape.
///
/// # Panics
/// If `b` does not broadcast to `a`'s shape ([`try_div`] returns the error instead).
#[must_use]
pub fn div<S1, S2, D, E>(a: &ArrayBase<S1, D>, b: &ArrayBase<S2, E>) -> Array<f32, D>
where
    S1: Data<Elem = f32>,
    S2: Data<Elem = f32>,
    D: Dimension,
    E: Dimension,
{
    try_div(a, b).unwrap_or_else(|e| panic!("fmadiv::ndarray::div: {e}"))
}

/// [`div`], or an error if `b` does not broadcast to `a`'s shape.
///
/// # Errors
/// The [`ShapeError`] of a `b` that does not broadcast to `a`'s shape.
pub fn try_div<S1, S2, D, E>(
    a: &ArrayBase<S1, D>,
    b: &ArrayBase<S2, E>,
) -> Result<Array<f32, D>, ShapeError>
where
    S1: Data<Elem = f32>,
    S2: Data<Elem = f32>,
    D: Dimension,
    E: Dimension,
{
    let b = broadcast(b, a.raw_dim())?;
    let mut fresh = Array::<f32, D>::uninit(output_shape(a));
    if divide_fresh(a.view(), b.view(), fresh.view_mut()) {
        // SAFETY: `divide_fresh` wrote every element.
        return Ok(unsafe { fresh.assume_init() });
    }
    // Other layouts: zeroed memory (from the allocator, usually without a pass over it),
    // then lane by lane. The unused fresh array goes first: two live output-sized
    // allocations would keep the allocator from reusing either.
    let shape = output_shape(a);
    drop(fresh);
    let mut out = Array::zeros(shape);
    divide(a.view(), b, out.view_mut());
    Ok(out)
}

/// The shape of `a`'s quotient: Fortran order where `a` is contiguous in it (so that the
/// flat path applies), else standard order.
fn output_shape<S: Data<Elem = f32>, D: Dimension>(a: &ArrayBase<S, D>) -> Shape<D> {
    let fortran = a.ndim() > 1 && !a.is_standard_layout() && a.t().is_standard_layout();
    a.raw_dim().set_f(fortran)
}

/// `out = a / b` for views of one shape into uninitialised memory, written without being
/// read, where the layout allows it: `false`, and nothing written, where it does not (a
/// transposed operand's tiles and a divisor broadcast along the lanes, whose paths take
/// initialised memory).
fn divide_fresh<D: Dimension>(
    a: ArrayView<f32, D>,
    b: ArrayView<f32, D>,
    mut out: ArrayViewMut<MaybeUninit<f32>, D>,
) -> bool {
    // Both operands contiguous in the output's memory order: one flat division (zeroing
    // the output first would be a whole extra pass over it).
    if a.strides() == out.strides()
        && b.strides() == out.strides()
        && let (Some(x), Some(y)) = (a.as_slice_memory_order(), b.as_slice_memory_order())
        && let Some(o) = out.as_slice_memory_order_mut()
    {
        // SAFETY: x and y are readable and o writable for o.len() == x.len() == y.len()
        // elements (one shape, one memory order), and o, a unique borrow of memory the
        // operands cannot alias (it is not yet initialised), overlaps neither;
        // `div_disjoint` only writes `o`.
        unsafe {
            crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), o.as_mut_ptr().cast(), o.len())
        };
        return true;
    }
    // Short rows: many rows to a call.
    if short_rows::divide_fresh(a.view(), b.view(), out.view_mut()) {
        return true;
    }
    if out.ndim() == 0 {
        return false;
    }
    // Lanes along the output's most contiguous axis: contiguous lanes straight from their
    // operands, strided ones (a view with steps) gathered a piece at a time.
    let axis = lane_axis(out.strides(), out.shape());
    let long = out.len_of(axis) > 1;
    let unit = out.strides()[axis.index()] == 1 || !long;
    let column = long && b.strides()[axis.index()] == 0;
    let strides = [out.strides(), a.strides(), b.strides()];
    if !unit || column || tiles::cross_axis(axis, out.shape(), &strides).is_some() {
        return false;
    }
    let mut pieces = Pieces::new();
    Zip::from(out.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(b.lanes(axis))
        .for_each(|mut o, x, y| {
            // SAFETY: the lane o has unit stride and x's length, so it is writable for
            // that many elements; not yet initialised, it overlaps neither operand, and
            // `divide_lane_into` only writes it.
            unsafe { divide_lane_into(x, y, o.as_mut_ptr().cast(), &mut pieces) };
        });
    // The lanes along `axis` cover every element.
    true
}

/// `out = a / b` elementwise, `b` broadcast to `a`'s shape; `out` must have `a`'s shape.
/// Nothing is written on error.
///
/// # Errors
/// A [`ShapeError`] if `b` does not broadcast to `a`'s shape or `out` does not have it;
/// nothing is written then.
pub fn div_to<S1, S2, S3, D, E>(
    a: &ArrayBase<S1, D>,
    b: &ArrayBase<S2, E>,
    out: &mut ArrayBase<S3, D>,
) -> Result<(), ShapeError>
where
    S1: Data<Elem = f32>,
    S2: Data<Elem = f32>,
    S3: DataMut<Elem = f32>,
    D: Dimension,
    E: Dimension,
{
    let b = broadcast(b, a.raw_dim())?;
    same_shape(out.shape(), a.shape())?;
    divide(a.view(), b, out.view_mut());
    Ok(())
}

/// `a = a / b` elementwise, `b` broadcast to `a`'s shape. Nothing is written on error.
///
/// # Errors
/// A [`ShapeError`] if `b` does not broadcast to `a`'s shape; nothing is written then.
pub fn div_assign<S1, S2, D, E>(
    a: &mut ArrayBase<S1, D>,
    b: &ArrayBase<S2, E>,
) -> Result<(), ShapeError>
where
    S1: DataMut<Elem = f32>,
    S2: Data<Elem = f32>,
    D: Dimension,
    E: Dimension,
{
    let b = broadcast(b, a.raw_dim())?;
    divide_in_place(a.view_mut(), b);
    Ok(())
}

/// `a = a / b` for views of one shape.
fn divide_in_place<D: Dimension>(mut a: ArrayViewMut<f32, D>, b: ArrayView<f32, D>) {
    if a.strides() == b.strides()
        && let Some(y) = b.to_slice_memory_order()
        && let Some(x) = a.as_slice_memory_order_mut()
    {
        crate::div_in_place(x, y);
        return;
    }
    if short_rows::divide_in_place(a.view_mut(), b.view()) {
        return;
    }
    let axis = lane_axis(a.strides(), a.shape());
    if let Some(cross) = tiles::cross_axis(axis, a.shape(), &[a.strides(), b.strides()]) {
        return tiles::divide(a.into_dyn(), None, b.into_dyn(), axis, cross);
    }
    let mut pieces = Pieces::new();
    Zip::from(a.lanes_mut(axis))
        .and(b.lanes(axis))
        .for_each(|mut x, y| {
            if let (Some(xs), Some(ys)) = (x.as_slice_mut(), y.as_slice()) {
                crate::div_in_place(xs, ys);
                return;
            }
            let chunks = x.axis_chunks_iter_mut(Axis(0), PIECE);
            for (mut x, y) in chunks.zip(y.axis_chunks_iter(Axis(0), PIECE)) {
                let (dividends, divisors) = pieces.load(&x.view(), &y);
                crate::div_in_place(dividends, divisors);
                scatter(dividends, &mut x);
            }
        });
}

/// `Ok` where an output's shape is its input's, else the error ndarray gives for
/// incompatible shapes.
fn same_shape(out: &[usize], input: &[usize]) -> Result<(), ShapeError> {
    match out == input {
        true => Ok(()),
        false => Err(ShapeError::from_kind(
            ::ndarray::ErrorKind::IncompatibleShape,
        )),
    }
}

/// `b` as a view of shape `shape`, or the error ndarray gives for incompatible shapes.
fn broadcast<S, E, D>(b: &ArrayBase<S, E>, shape: D) -> Result<ArrayView<'_, f32, D>, ShapeError>
where
    S: Data<Elem = f32>,
    E: Dimension,
    D: Dimension,
{
    b.broadcast(shape)
        .ok_or_else(|| ShapeError::from_kind(::ndarray::ErrorKind::IncompatibleShape))
}

/// `out = a / b` for views of one shape.
fn divide<D: Dimension>(a: ArrayView<f32, D>, b: ArrayView<f32, D>, mut out: ArrayViewMut<f32, D>) {
    let strides = out.strides().to_vec();
    if a.strides() == strides.as_slice()
        && b.strides() == strides.as_slice()
        && let (Some(x), Some(y)) = (a.as_slice_memory_order(), b.as_slice_memory_order())
    {
        let o = out
            .as_slice_memory_order_mut()
            .expect("same strides as a contiguous view");
        crate::div(x, y, o);
        return;
    }
    if short_rows::divide(a.view(), b.view(), out.view_mut()) {
        return;
    }
    if out.ndim() == 0 {
        Zip::from(&mut out)
            .and(&a)
            .and(&b)
            .for_each(|o, &x, &y| *o = crate::arch::portable::div_one(x, y));
        return;
    }
    let axis = lane_axis(out.strides(), out.shape());
    let strides = [out.strides(), a.strides(), b.strides()];
    if let Some(cross) = tiles::cross_axis(axis, out.shape(), &strides) {
        let (a, b) = (Some(a.into_dyn()), b.into_dyn());
        return tiles::divide(out.into_dyn(), a, b, axis, cross);
    }
    let mut pieces = Pieces::new();
    Zip::from(out.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(b.lanes(axis))
        .for_each(|o, x, y| divide_lane(o, x, y, &mut pieces));
}

/// One lane: a broadcast divisor by `div_scalar`, a contiguous output through
/// [`divide_lane_into`], anything else a piece at a time through `pieces`.
fn divide_lane(
    mut out: ArrayViewMut1<f32>,
    a: ArrayView1<f32>,
    b: ArrayView1<f32>,
    pieces: &mut Pieces,
) {
    if let Some(o) = out.as_slice_mut() {
        if let Some(x) = a.as_slice()
            && b.strides()[0] == 0
            && !o.is_empty()
        {
            crate::div_scalar(x, b[0], o);
            return;
        }
        // SAFETY: o is writable for its length, a's, and as a unique borrow overlaps
        // neither operand.
        unsafe { divide_lane_into(a, b, o.as_mut_ptr(), pieces) };
        return;
    }
    let chunks = out.axis_chunks_iter_mut(Axis(0), PIECE);
    let operands = a
        .axis_chunks_iter(Axis(0), PIECE)
        .zip(b.axis_chunks_iter(Axis(0), PIECE));
    for (mut o, (x, y)) in chunks.zip(operands) {
        let (dividends, divisors) = pieces.load(&x, &y);
        crate::div_in_place(dividends, divisors);
        scatter(dividends, &mut o);
    }
}

/// `out = a / b` for one lane into contiguous memory, written without being read: the
/// operands' slices where they are contiguous, else a piece at a time through `pieces`.
///
/// # Safety
/// `out` writable for `a.len()` floats and overlapping neither operand; `b` has `a`'s
/// length.
unsafe fn divide_lane_into(
    a: ArrayView1<f32>,
    b: ArrayView1<f32>,
    out: *mut f32,
    pieces: &mut Pieces,
) {
    if let (Some(x), Some(y)) = (a.as_slice(), b.as_slice()) {
        // SAFETY: the caller's guarantees, x and y readable for their (common) length.
        unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), out, x.len()) };
        return;
    }
    let operands = a
        .axis_chunks_iter(Axis(0), PIECE)
        .zip(b.axis_chunks_iter(Axis(0), PIECE));
    for (i, (x, y)) in operands.enumerate() {
        let (x, y) = pieces.load(&x, &y);
        // SAFETY: piece i starts i * PIECE elements into the lane and holds x.len() of
        // them, within the caller's writable `out`; the buffers are `pieces`' own.
        unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), out.add(i * PIECE), x.len()) };
    }
}

/// Buffers for one piece of a lane with steps: its dividends and its divisors, gathered.
/// Made at a call's first such piece, then reused: zeroing them for every lane cost a tenth
/// of a stepped division, and calls with no such lane need none.
struct Pieces(Option<[[f32; PIECE]; 2]>);

impl Pieces {
    fn new() -> Pieces {
        Pieces(None)
    }

    /// The two buffers, made at the first call.
    fn buffers(&mut self) -> &mut [[f32; PIECE]; 2] {
        self.0.get_or_insert([[0.0; PIECE]; 2])
    }

    /// The piece's divisors (at most `PIECE` of them) gathered into one buffer, and the
    /// other buffer for their reciprocals, of the same length.
    fn load_divisors(&mut self, b: &ArrayView1<f32>) -> (&mut [f32], &[f32]) {
        let [x, y] = self.buffers();
        let (x, y) = (&mut x[..b.len()], &mut y[..b.len()]);
        gather(b, y);
        (x, y)
    }

    /// The piece's operands (at most `PIECE` elements each, one length), gathered.
    fn load(&mut self, a: &ArrayView1<f32>, b: &ArrayView1<f32>) -> (&mut [f32], &[f32]) {
        let [x, y] = self.buffers();
        let (x, y) = (&mut x[..a.len()], &mut y[..b.len()]);
        let steps = |v: &ArrayView1<f32>| v.as_slice().is_none() && v.strides()[0] != 0;
        if steps(a) && steps(b) {
            // Both operands with steps: one pass reading both, so that their lines are
            // fetched together (one pass each left the reads waiting on one stream at a time:
            // a 1024² division of such views took a fifth to a quarter longer).
            Zip::from(&mut *x)
                .and(&mut *y)
                .and(a)
                .and(b)
                .for_each(|x, y, &a, &b| (*x, *y) = (a, b));
            return (x, y);
        }
        gather(a, x);
        gather(b, y);
        (x, y)
    }
}

/// `v` into `buf` (of its length), one copy where `v` is contiguous; the tiles' rows too.
fn gather(v: &ArrayView1<f32>, buf: &mut [f32]) {
    match v.as_slice() {
        Some(s) => buf.copy_from_slice(s),
        // A broadcast element (a column divisor's row): one value.
        None if v.strides()[0] == 0 => buf.fill(v[0]),
        None => Zip::from(buf).and(v).for_each(|d, &s| *d = s),
    }
}

/// `q` into `v` (of its length), one copy where `v` is contiguous; the tiles' rows too.
fn scatter(q: &[f32], v: &mut ArrayViewMut1<f32>) {
    match v.as_slice_mut() {
        Some(d) => d.copy_from_slice(q),
        None => Zip::from(v).and(q).for_each(|d, &s| *d = s),
    }
}

/// The axis along which lanes are walked: the one of smallest stride among those longer than
/// one element (the last on ties), so that lanes are as contiguous as the layout allows.
fn lane_axis(strides: &[isize], shape: &[usize]) -> Axis {
    let n = shape.len();
    let best = (0..n)
        .rev()
        .filter(|&i| shape[i] > 1)
        .min_by_key(|&i| strides[i].unsigned_abs())
        .unwrap_or(n.saturating_sub(1));
    Axis(best)
}

#[cfg(test)]
mod tests {
    use ::ndarray::{Array, Array1, Array2, s};

    use super::{PIECE, div, div_assign, div_to};

    /// Whether the two arrays hold the same bits, element by element (the submodules' tests
    /// too).
    pub(super) fn same_bits<D: ::ndarray::Dimension>(
        got: &Array<f32, D>,
        want: &Array<f32, D>,
    ) -> bool {
        got.iter()
            .zip(want)
            .all(|(g, w)| g.to_bits() == w.to_bits())
    }

    /// Lanes with steps, longer than a piece (so the second piece lands `PIECE` elements
    /// in): into fresh memory, into a strided output and in place, with the bits of `/`
    /// (also what Miri runs through the raw writes of the pieces).
    #[test]
    fn lanes_with_steps_divide_piece_by_piece_as_slash_does() {
        let n = PIECE + 37;
        let line = Array1::from_shape_fn(3 * n, |i| 1.0 + i as f32 / 64.0);
        let line_b = Array1::from_shape_fn(2 * n, |i| 3.0 - i as f32 / 1024.0);
        let (a, b) = (line.slice(s![..;3]), line_b.slice(s![..;-2]));
        let want = &a / &b;
        assert!(same_bits(&div(&a, &b), &want));
        let mut spaced = Array1::from_elem(2 * n, -1.0f32);
        div_to(&a, &b, &mut spaced.slice_mut(s![1..;2])).unwrap();
        assert!(same_bits(&spaced.slice(s![1..;2]).to_owned(), &want));
        assert!(spaced.slice(s![..;2]).iter().all(|&v| v == -1.0));
        let mut x = line.clone();
        div_assign(&mut x.slice_mut(s![..;3]), &b).unwrap();
        assert!(same_bits(&x.slice(s![..;3]).to_owned(), &want));
        let rows = Array2::from_shape_fn((3, 2 * n), |(i, j)| (i * 7 + j) as f32 + 0.25);
        let stepped = rows.slice(s![..;2, ..;2]);
        let by = Array2::from_shape_fn((2, n), |(i, j)| 1.5 + (i + j) as f32 / 8.0);
        assert!(same_bits(&div(&stepped, &by), &(&stepped / &by)));
    }
}
