//! Exact division of `ndarray` arrays (feature `ndarray`).
//!
//! `b` may be any array that broadcasts to `a`'s shape (a row, a column, a scalar array):
//! the usual case of normalising rows or columns. Any layout works — standard or
//! Fortran order, transposed, sliced with steps, broadcast views — and every quotient has
//! the bits of `/`:
//!
//! - when `a`, `b` and the output share one memory layout and are contiguous in it, one
//!   call of [`crate::div`] divides all of it;
//! - where an operand is transposed (more contiguous across the output's most contiguous
//!   axis than along it: `a.t() / b`), tile by tile (`tiles`): 4096 elements of each
//!   operand gathered reading whole cache lines, then divided in one call;
//! - otherwise the arrays are walked lane by lane along the output's most contiguous axis:
//!   contiguous lanes go to [`crate::div`], lanes whose divisor is broadcast along them
//!   (a column divisor) to [`crate::div_scalar`], other lanes through a small buffer.
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

use ::ndarray::{
    Array, ArrayBase, ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Data, DataMut,
    Dimension, ShapeBuilder, ShapeError, Zip,
};

mod tiles;

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
    // Fortran-ordered inputs get a Fortran-ordered output so the flat path applies.
    let fortran = a.ndim() > 1 && !a.is_standard_layout() && a.t().is_standard_layout();
    let shape = a.raw_dim();
    let shape = if fortran {
        shape.f()
    } else {
        shape.into_shape_with_order()
    };
    // Both operands contiguous in the output's memory order: one flat division into fresh,
    // uninitialised memory (zeroing it first would be a whole extra pass over the output).
    let mut fresh = Array::<f32, D>::uninit(shape.clone());
    if a.strides() == fresh.strides()
        && b.strides() == fresh.strides()
        && let (Some(x), Some(y)) = (a.as_slice_memory_order(), b.as_slice_memory_order())
        && let Some(o) = fresh.as_slice_memory_order_mut()
    {
        // SAFETY: x and y are readable and o writable for o.len() == x.len() == y.len()
        // elements (one shape, one memory order), and o, freshly allocated, overlaps
        // neither; `div_disjoint` only writes `o`.
        unsafe {
            crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), o.as_mut_ptr().cast(), o.len())
        };
        // SAFETY: every element was written just above.
        return Ok(unsafe { fresh.assume_init() });
    }
    // Every lane along the output's most contiguous axis contiguous in all three (a row
    // broadcast along the other axes, say): lane by lane, still into fresh memory.
    if fresh.ndim() > 0 {
        let axis = lane_axis(fresh.strides(), fresh.shape());
        let unit = |strides: &[isize]| strides[axis.index()] == 1 || fresh.len_of(axis) <= 1;
        if unit(a.strides()) && unit(b.strides()) && unit(fresh.strides()) {
            Zip::from(fresh.lanes_mut(axis))
                .and(a.lanes(axis))
                .and(b.lanes(axis))
                .for_each(|mut o, x, y| {
                    let (x, y) = (x.as_ptr(), y.as_ptr());
                    // SAFETY: the three lanes have one length and unit stride, so x and y
                    // are readable and o writable for o.len() elements; o, freshly
                    // allocated, overlaps neither, and `div_disjoint` only writes it.
                    unsafe { crate::slices::div_disjoint(x, y, o.as_mut_ptr().cast(), o.len()) };
                });
            // SAFETY: the lanes along `axis` cover every element, each written above.
            return Ok(unsafe { fresh.assume_init() });
        }
    }
    // Other layouts: zeroed memory (from the allocator, usually without a pass over it),
    // then lane by lane. The unused fresh array goes first: two live output-sized
    // allocations would keep the allocator from reusing either.
    drop(fresh);
    let mut out = Array::zeros(shape);
    divide(a.view(), b, out.view_mut());
    Ok(out)
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
    if out.shape() != a.shape() {
        return Err(ShapeError::from_kind(
            ::ndarray::ErrorKind::IncompatibleShape,
        ));
    }
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
    if a.strides() == b.strides()
        && let Some(y) = b.to_slice_memory_order()
        && let Some(x) = a.as_slice_memory_order_mut()
    {
        crate::div_in_place(x, y);
        return Ok(());
    }
    let axis = lane_axis(a.strides(), a.shape());
    if let Some(cross) = tiles::cross_axis(axis, a.shape(), &[a.strides(), b.strides()]) {
        tiles::divide(a.view_mut().into_dyn(), None, b.into_dyn(), axis, cross);
        return Ok(());
    }
    Zip::from(a.lanes_mut(axis))
        .and(b.lanes(axis))
        .for_each(|mut x, y| {
            if let (Some(xs), Some(ys)) = (x.as_slice_mut(), y.as_slice()) {
                crate::div_in_place(xs, ys);
                return;
            }
            for (mut x, y) in x
                .axis_chunks_iter_mut(Axis(0), PIECE)
                .zip(y.axis_chunks_iter(Axis(0), PIECE))
            {
                let len = x.len();
                let (xs, ys) = (gather(&x.view()), gather(&y));
                let mut q = [0.0f32; PIECE];
                crate::div(&xs[..len], &ys[..len], &mut q[..len]);
                scatter(&q[..len], &mut x);
            }
        });
    Ok(())
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
    Zip::from(out.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(b.lanes(axis))
        .for_each(divide_lane);
}

/// One lane: slices where the lanes are contiguous, a broadcast divisor by `div_scalar`,
/// anything else through a buffer, a piece at a time.
fn divide_lane(mut out: ArrayViewMut1<f32>, a: ArrayView1<f32>, b: ArrayView1<f32>) {
    if let (Some(x), Some(o)) = (a.as_slice(), out.as_slice_mut()) {
        if let Some(y) = b.as_slice() {
            crate::div(x, y, o);
            return;
        }
        if b.strides()[0] == 0 && !o.is_empty() {
            crate::div_scalar(x, b[0], o);
            return;
        }
    }
    let pieces = out
        .axis_chunks_iter_mut(Axis(0), PIECE)
        .zip(a.axis_chunks_iter(Axis(0), PIECE))
        .zip(b.axis_chunks_iter(Axis(0), PIECE));
    for ((mut o, x), y) in pieces {
        let len = o.len();
        let (xs, ys) = (gather(&x), gather(&y));
        match o.as_slice_mut() {
            Some(o) => crate::div(&xs[..len], &ys[..len], o),
            None => {
                let mut q = [0.0f32; PIECE];
                crate::div(&xs[..len], &ys[..len], &mut q[..len]);
                scatter(&q[..len], &mut o);
            }
        }
    }
}

/// A piece of at most `PIECE` elements, into a buffer (one copy where it is contiguous).
fn gather(v: &ArrayView1<f32>) -> [f32; PIECE] {
    let mut buf = [0.0f32; PIECE];
    match v.as_slice() {
        Some(s) => buf[..s.len()].copy_from_slice(s),
        None => buf.iter_mut().zip(v).for_each(|(d, s)| *d = *s),
    }
    buf
}

/// Writes `q` into a piece of a lane.
fn scatter(q: &[f32], v: &mut ArrayViewMut1<f32>) {
    v.iter_mut().zip(q).for_each(|(d, s)| *d = *s);
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
