//! The rayon forms (features `ndarray` and `rayon`): the array cut into blocks along its
//! outermost axis, each block divided on rayon's threads by the one-thread code, with the
//! same bits.
//!
//! As for the slice forms ([`crate::par_div`]), an array shorter than 2^18 elements, or a
//! calling thread whose MXCSR is not the default one, is divided on the calling thread.

use std::mem::MaybeUninit;

use ::ndarray::ShapeError;
use ::ndarray::{Array, ArrayBase, ArrayView, ArrayViewMut, Axis, Data, DataMut, Dimension};

use super::reciprocals::{reciprocals, reciprocals_fresh, reciprocals_in_place};
use super::{broadcast, divide, divide_fresh, divide_in_place, output_shape, same_shape, tiles};
use crate::parallel::{PAR_CHUNK, stays_on_caller};

/// [`super::div`] spread over rayon's thread pool, for large arrays.
///
/// # Panics
/// If `b` does not broadcast to `a`'s shape ([`try_par_div`] returns the error instead).
///
/// ```
/// let a = ndarray::Array2::<f32>::from_elem((1024, 512), 1.0);
/// let q = fmadiv::ndarray::par_div(&a, &ndarray::arr1(&[3.0f32]));
/// assert!(q.iter().all(|v| v.to_bits() == (1.0f32 / 3.0).to_bits()));
/// ```
#[must_use]
pub fn par_div<S1, S2, D, E>(a: &ArrayBase<S1, D>, b: &ArrayBase<S2, E>) -> Array<f32, D>
where
    S1: Data<Elem = f32>,
    S2: Data<Elem = f32>,
    D: Dimension,
    E: Dimension,
{
    try_par_div(a, b).unwrap_or_else(|e| panic!("fmadiv::ndarray::par_div: {e}"))
}

/// [`par_div`], or an error if `b` does not broadcast to `a`'s shape.
///
/// # Errors
/// The [`ShapeError`] of a `b` that does not broadcast to `a`'s shape.
pub fn try_par_div<S1, S2, D, E>(
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
    if stays_on_caller(a.len()) {
        return super::try_div(a, &b);
    }
    // Each block into fresh memory, as `try_div` writes the whole: written without being
    // read where its layout allows, else zeroed (in the block's own thread) and divided.
    let mut fresh = Array::<f32, D>::uninit(output_shape(a));
    in_blocks(fresh.view_mut(), Some(a.view()), b, &|mut out, a, b| {
        let a = a.expect("dividends given");
        if !divide_fresh(a.view(), b.view(), out.view_mut()) {
            out.fill(MaybeUninit::new(0.0));
            // SAFETY: every element was initialised just above.
            let out = unsafe { out.assume_init() };
            divide(a, b, out);
        }
    });
    // SAFETY: the blocks cover every element, each written above.
    Ok(unsafe { fresh.assume_init() })
}

/// [`super::div_to`] spread over rayon's thread pool, for large arrays. Nothing is written
/// on error.
///
/// # Errors
/// A [`ShapeError`] if `b` does not broadcast to `a`'s shape or `out` does not have it;
/// nothing is written then.
pub fn par_div_to<S1, S2, S3, D, E>(
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
    if stays_on_caller(a.len()) {
        divide(a.view(), b, out.view_mut());
        return Ok(());
    }
    in_blocks(out.view_mut(), Some(a.view()), b, &|out, a, b| {
        divide(a.expect("dividends given"), b, out);
    });
    Ok(())
}

/// [`super::div_assign`] spread over rayon's thread pool, for large arrays. Nothing is
/// written on error.
///
/// # Errors
/// A [`ShapeError`] if `b` does not broadcast to `a`'s shape; nothing is written then.
pub fn par_div_assign<S1, S2, D, E>(
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
    if stays_on_caller(a.len()) {
        divide_in_place(a.view_mut(), b);
        return Ok(());
    }
    in_blocks(a.view_mut(), None, b, &|a, _, b| divide_in_place(a, b));
    Ok(())
}

/// [`super::recip`] spread over rayon's thread pool, for large arrays.
///
/// ```
/// let b = ndarray::Array2::<f32>::from_elem((1024, 512), 3.0);
/// let r = fmadiv::ndarray::par_recip(&b);
/// assert!(r.iter().all(|v| v.to_bits() == (1.0f32 / 3.0).to_bits()));
/// ```
#[must_use]
pub fn par_recip<S, D>(b: &ArrayBase<S, D>) -> Array<f32, D>
where
    S: Data<Elem = f32>,
    D: Dimension,
{
    if stays_on_caller(b.len()) {
        return super::recip(b);
    }
    let mut fresh = Array::<f32, D>::uninit(output_shape(b));
    in_blocks(fresh.view_mut(), None, b.view(), &|mut out, _, b| {
        if !reciprocals_fresh(b.view(), out.view_mut()) {
            out.fill(MaybeUninit::new(0.0));
            // SAFETY: every element was initialised just above.
            reciprocals(b, unsafe { out.assume_init() });
        }
    });
    // SAFETY: the blocks cover every element, each written above.
    unsafe { fresh.assume_init() }
}

/// [`super::recip_to`] spread over rayon's thread pool, for large arrays. Nothing is
/// written on error.
///
/// # Errors
/// A [`ShapeError`] if `out` does not have `b`'s shape; nothing is written then.
pub fn par_recip_to<S1, S2, D>(
    b: &ArrayBase<S1, D>,
    out: &mut ArrayBase<S2, D>,
) -> Result<(), ShapeError>
where
    S1: Data<Elem = f32>,
    S2: DataMut<Elem = f32>,
    D: Dimension,
{
    same_shape(out.shape(), b.shape())?;
    if stays_on_caller(b.len()) {
        reciprocals(b.view(), out.view_mut());
        return Ok(());
    }
    in_blocks(out.view_mut(), None, b.view(), &|out, _, b| {
        reciprocals(b, out);
    });
    Ok(())
}

/// [`super::recip_assign`] spread over rayon's thread pool, for large arrays.
///
/// ```
/// let mut b = ndarray::Array2::<f32>::from_elem((1024, 512), 3.0);
/// fmadiv::ndarray::par_recip_assign(&mut b);
/// assert!(b.iter().all(|v| v.to_bits() == (1.0f32 / 3.0).to_bits()));
/// ```
pub fn par_recip_assign<S, D>(b: &mut ArrayBase<S, D>)
where
    S: DataMut<Elem = f32>,
    D: Dimension,
{
    if stays_on_caller(b.len()) {
        return reciprocals_in_place(b.view_mut());
    }
    // The output holds the divisors: a broadcast one (which no block reads, and whose zero
    // strides neither cut nor tile anything) stands in for the divisors' view.
    let one = ::ndarray::arr0(1.0f32);
    let ones = one.broadcast(b.raw_dim()).expect("a scalar broadcasts");
    in_blocks(b.view_mut(), None, ones, &|b, _, _| reciprocals_in_place(b));
}

/// Indices a block with a transposed operand keeps along the outermost axis before the
/// longest is cut instead: the tiles span this many lanes (`tiles::TILE_LANES`), reading
/// four whole cache lines at a time of an operand contiguous across the lanes (blocks of
/// 16 rows of a 2048×2048 `a / b.t()` ran at two thirds of one thread's speed).
const THICK: usize = 64;

/// What one block does: its output (`a` = `None`: the output holds the dividends), its
/// dividends and its divisors, one shape.
type Block<'w, T, D> =
    dyn Fn(ArrayViewMut<T, D>, Option<ArrayView<f32, D>>, ArrayView<f32, D>) + Sync + 'w;

/// `work` on blocks of `out` and the same blocks of `a` and `b`, on rayon's threads: the
/// views halved along the output's outermost axis (its largest stride: a block of a
/// contiguous array stays contiguous) until a block holds fewer than twice `PAR_CHUNK`
/// elements (the slice forms' task size) — where an operand is transposed, only while
/// that leaves `THICK` indices on it, then along the longest axis.
fn in_blocks<T: Send, D: Dimension>(
    out: ArrayViewMut<T, D>,
    a: Option<ArrayView<f32, D>>,
    b: ArrayView<f32, D>,
    work: &Block<T, D>,
) {
    let transposed = {
        let axis = super::lane_axis(out.strides(), out.shape());
        let mut strides = vec![out.strides(), b.strides()];
        strides.extend(a.as_ref().map(|a| a.strides()));
        out.ndim() > 0 && tiles::cross_axis(axis, out.shape(), &strides).is_some()
    };
    cut(out, a, b, if transposed { THICK } else { 1 }, work);
}

/// [`in_blocks`]' halving, keeping `thick` indices along the outermost axis.
fn cut<T: Send, D: Dimension>(
    out: ArrayViewMut<T, D>,
    a: Option<ArrayView<f32, D>>,
    b: ArrayView<f32, D>,
    thick: usize,
    work: &Block<T, D>,
) {
    if out.len() < 2 * PAR_CHUNK {
        return work(out, a, b);
    }
    let (shape, strides) = (out.shape(), out.strides());
    let outermost = (0..out.ndim()).max_by_key(|&i| (shape[i] > 1, strides[i].unsigned_abs()));
    let longest = (0..out.ndim()).max_by_key(|&i| shape[i]);
    let Some(i) = outermost.filter(|&i| shape[i] >= 2 * thick).or(longest) else {
        return work(out, a, b);
    };
    let (axis, half) = (Axis(i), shape[i] / 2);
    let (o1, o2) = out.split_at(axis, half);
    let (a1, a2) = a.map(|a| a.split_at(axis, half)).unzip();
    let (b1, b2) = b.split_at(axis, half);
    rayon::join(
        || cut(o1, a1, b1, thick, work),
        || cut(o2, a2, b2, thick, work),
    );
}
