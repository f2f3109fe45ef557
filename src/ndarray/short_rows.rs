//! Division of arrays in short rows (along the innermost axis of the output's memory order,
//! under `SHORT_ROW` elements), a group of whole rows at a time: a call of the slice
//! functions per row cost more than the row's division. Each group's divisors are gathered
//! into one buffer (once for all where the divisor is one row); its dividends are a slice of
//! `a` where `a` is contiguous, else gathered from the matrix of `a`'s rows; its quotients
//! go straight into a contiguous output, else through a buffer into the matrix of the
//! output's rows (a few columns of a wider matrix, say).

use std::mem::MaybeUninit;
use std::slice;

use ::ndarray::{
    ArrayBase, ArrayView, ArrayView2, ArrayViewMut, ArrayViewMut2, Axis, Dimension, Ix2, RawData,
    Slice,
};

use super::gather;

/// Rows shorter than this go many to a call: with a call per row, rows of 8 by one row ran
/// at under half of ndarray's own `/`, rows of 3 by a column at two thirds (family 0x19,
/// `docs/bench/0x19-ndarray-short-rows.txt`).
const SHORT_ROW: usize = 64;

/// Elements per group of short rows (whole rows): their divisors gathered into one buffer,
/// 4 KiB.
pub(super) const ROW_GROUP: usize = 1024;

/// Elements of a group whose divisors' buffer is on the stack (1 KiB, zeroed in less time
/// than an allocation takes): allocated, it was about a quarter of a 4×4 array's call
/// (family 0x19, `docs/bench/0x19-ndarray-tiny.txt`).
const SMALL_GROUP: usize = 256;

/// `out = a / b` into uninitialised memory, a group of rows at a time, where the rows are
/// short and the output contiguous: `false`, and nothing written, where they are not.
pub(super) fn divide_fresh<D: Dimension>(
    a: ArrayView<f32, D>,
    b: ArrayView<f32, D>,
    out: ArrayViewMut<MaybeUninit<f32>, D>,
) -> bool {
    let Some(reversed) = order(&out.view(), &a, &b) else {
        return false;
    };
    let (Some(mut x), Some(o)) = (
        Gathered::new(orient(a, reversed)),
        orient(out, reversed).into_slice(),
    ) else {
        return false;
    };
    in_row_groups(orient(b, reversed), |start, y| {
        let x = x.group(start, y.len());
        let o = o[start..start + y.len()].as_mut_ptr().cast::<f32>();
        // SAFETY: x and y are readable and o writable for y.len() elements (the group's,
        // from `start`, within the output), and o, a unique borrow of memory the operands
        // cannot alias (it is not yet initialised), overlaps neither; `div_disjoint` only
        // writes `o`.
        unsafe { crate::slices::div_disjoint(x.as_ptr(), y.as_ptr(), o, y.len()) };
    });
    true
}

/// `out = a / b`, a group of rows at a time, where the rows are short: `false`, and nothing
/// written, where they are not.
pub(super) fn divide<D: Dimension>(
    a: ArrayView<f32, D>,
    b: ArrayView<f32, D>,
    out: ArrayViewMut<f32, D>,
) -> bool {
    let Some(reversed) = order(&out.view(), &a, &b) else {
        return false;
    };
    let Some(mut x) = Gathered::new(orient(a, reversed)) else {
        return false;
    };
    let (b, mut out) = (orient(b, reversed), orient(out, reversed));
    if let Some(o) = out.view_mut().into_slice() {
        in_row_groups(b, |start, y| {
            let range = start..start + y.len();
            crate::div(x.group(start, y.len()), y, &mut o[range]);
        });
        return true;
    }
    let Some(mut rows) = Scattered::new(out) else {
        return false;
    };
    in_row_groups(b, |start, y| {
        let q = rows.buffer(y.len());
        crate::div(x.group(start, y.len()), y, q);
        rows.write(start);
    });
    true
}

/// `a = a / b`, a group of rows at a time, where the rows are short: `false`, and nothing
/// written, where they are not.
pub(super) fn divide_in_place<D: Dimension>(a: ArrayViewMut<f32, D>, b: ArrayView<f32, D>) -> bool {
    let Some(reversed) = order(&a.view(), &a.view(), &b) else {
        return false;
    };
    let (mut a, b) = (orient(a, reversed), orient(b, reversed));
    if let Some(x) = a.view_mut().into_slice() {
        in_row_groups(b, |start, y| {
            crate::div_in_place(&mut x[start..start + y.len()], y);
        });
        return true;
    }
    let Some(mut rows) = Scattered::new(a) else {
        return false;
    };
    in_row_groups(b, |start, y| {
        let x = rows.gathered(start, y.len());
        crate::div_in_place(x, y);
        rows.write(start);
    });
    true
}

/// `out = 1 / b` into uninitialised memory, a group of rows at a time, where the rows are
/// short and the output contiguous: `false`, and nothing written, where they are not.
pub(super) fn reciprocals_fresh<D: Dimension>(
    b: ArrayView<f32, D>,
    out: ArrayViewMut<MaybeUninit<f32>, D>,
) -> bool {
    // No dividends: the output stands in for them in `order` (its rows checked twice).
    let Some(reversed) = order(&out.view(), &out.view(), &b) else {
        return false;
    };
    let Some(o) = orient(out, reversed).into_slice() else {
        return false;
    };
    in_row_groups(orient(b, reversed), |start, y| {
        let o = o[start..start + y.len()].as_mut_ptr().cast::<f32>();
        // SAFETY: y is readable and o writable for y.len() elements (the group's, from
        // `start`, within the output), and o, not yet initialised, cannot overlap y;
        // `recip_disjoint` only writes `o`.
        unsafe { crate::slices::recip_disjoint(y.as_ptr(), o, y.len()) };
    });
    true
}

/// `out = 1 / b`, a group of rows at a time, where the rows are short: `false`, and nothing
/// written, where they are not.
pub(super) fn reciprocals<D: Dimension>(b: ArrayView<f32, D>, out: ArrayViewMut<f32, D>) -> bool {
    // No dividends: the output stands in for them in `order`, as above.
    let Some(reversed) = order(&out.view(), &out.view(), &b) else {
        return false;
    };
    let (b, mut out) = (orient(b, reversed), orient(out, reversed));
    if let Some(o) = out.view_mut().into_slice() {
        in_row_groups(b, |start, y| {
            crate::recip(y, &mut o[start..start + y.len()])
        });
        return true;
    }
    let Some(mut rows) = Scattered::new(out) else {
        return false;
    };
    in_row_groups(b, |start, y| {
        crate::recip(y, rows.buffer(y.len()));
        rows.write(start);
    });
    true
}

/// `b = 1 / b` where `b` is in short rows that are not contiguous with one another (a few
/// columns of a wider matrix), a group of whole rows at a time through a buffer: `false`,
/// and nothing written, where they are not.
pub(super) fn reciprocals_in_place<D: Dimension>(b: ArrayViewMut<f32, D>) -> bool {
    // One array: it stands in for the output, the dividends and the divisors in `order`.
    let Some(reversed) = order(&b.view(), &b.view(), &b.view()) else {
        return false;
    };
    let b = orient(b, reversed);
    let (row, total) = (b.len_of(Axis(b.ndim() - 1)), b.len());
    let Some(mut rows) = Scattered::new(b) else {
        return false;
    };
    let group = ROW_GROUP / row * row;
    for start in (0..total).step_by(group) {
        crate::recip_in_place(rows.gathered(start, group.min(total - start)));
        rows.write(start);
    }
    true
}

/// Where the output's rows — along the innermost axis of its memory order, standard or
/// Fortran (`true`: its axes reversed) — are shorter than `SHORT_ROW` (a quarter of
/// `ROW_GROUP` where `b` is one row for all), more than one, and step by one in the output
/// and in `a`: whether to walk them with the axes reversed. A transposed `b` is gathered
/// too: rows this short read it as that many streams.
fn order<T, U, D: Dimension>(
    out: &ArrayView<T, D>,
    a: &ArrayView<U, D>,
    b: &ArrayView<f32, D>,
) -> Option<bool> {
    let n = out.ndim();
    if n == 0 {
        return None;
    }
    // Fortran order where the output is contiguous in it, or where only its first axis
    // steps by one (a view of such an array).
    let strides = out.strides();
    let reversed = !out.is_standard_layout()
        && (out.t().is_standard_layout() || (strides[n - 1] != 1 && strides[0] == 1));
    let last = if reversed { 0 } else { n - 1 };
    let row = out.len_of(Axis(last));
    let by_one = |s: &[isize]| row == 1 || s[last] == 1;
    // One row for all (`a / row`) is gathered once: rows up to a quarter of a group gain.
    let limit = if one_row(&orient(b.view(), reversed)) {
        ROW_GROUP / 4
    } else {
        SHORT_ROW
    };
    (row < limit && out.len() > row && by_one(strides) && by_one(a.strides())).then_some(reversed)
}

/// `v` with its axes reversed where `reversed` (Fortran order, read as standard order).
fn orient<S: RawData, D: Dimension>(v: ArrayBase<S, D>, reversed: bool) -> ArrayBase<S, D> {
    if reversed { v.reversed_axes() } else { v }
}

/// Whether `b` (rows along its last axis) holds one row for all: it steps along no other
/// axis.
fn one_row<D: Dimension>(b: &ArrayView<f32, D>) -> bool {
    b.strides()[..b.ndim() - 1].iter().all(|&s| s == 0)
}

/// `v` (rows along its last axis) as the matrix of its rows, taken in standard order, where
/// its outer axes merge into one (always, for a matrix).
fn as_rows<S: RawData, D: Dimension>(mut v: ArrayBase<S, D>) -> Option<ArrayBase<S, Ix2>> {
    let n = v.ndim();
    for outer in (0..n.saturating_sub(2)).rev() {
        if !v.merge_axes(Axis(outer), Axis(n - 2)) {
            return None;
        }
    }
    // The merged axes are left of length 1: dropped.
    let mut v = v.into_dyn();
    while v.ndim() > 2 {
        v = v.index_axis_move(Axis(0), 0);
    }
    v.into_dimensionality().ok()
}

/// `divide(start, divisors)` for each group of whole rows of `b` (its last axis, taken in
/// standard order), `start` the group's first element: the rows' divisors gathered into one
/// buffer; where `b` is one row broadcast, once for every group; where it is one value per
/// row (a column), filled from the column's values.
fn in_row_groups<D: Dimension>(b: ArrayView<f32, D>, mut divide: impl FnMut(usize, &[f32])) {
    let last = Axis(b.ndim() - 1);
    let (row, total) = (b.len_of(last), b.len());
    let group = (ROW_GROUP / row * row).min(total);
    // On the stack for a small array; else no larger than the array, zeroed only to its
    // size.
    let (mut small, mut large);
    let buf: &mut [f32] = if group <= SMALL_GROUP {
        small = [0.0f32; SMALL_GROUP];
        &mut small[..group]
    } else {
        large = vec![0.0f32; group];
        &mut large
    };
    if one_row(&b) {
        // One row: gathered once, then copied, doubling, to fill the buffer.
        let first = b.lanes(last).into_iter().next().expect("a row");
        gather(&first, &mut buf[..row]);
        let mut filled = row;
        while filled < group {
            let n = filled.min(group - filled);
            buf.copy_within(..n, filled);
            filled += n;
        }
        for start in (0..total).step_by(group) {
            divide(start, &buf[..group.min(total - start)]);
        }
        return;
    }
    // Otherwise group by group: each row's divisors filled from its value (a column),
    // copied from the matrix of rows where they step by one (no view made for each: a
    // view and a `memcpy` call per row of three cost more than its division), else
    // gathered, in a loop of its own (its counters in registers, not in memory beside the
    // buffer).
    let column = b.strides()[last.index()] == 0;
    let by_one = row == 1 || b.strides()[last.index()] == 1;
    let matrix = if by_one { as_rows(b.view()) } else { None };
    let mut values = b.slice_axis(last, (..1).into()).into_iter();
    let mut rows = b.lanes(last).into_iter();
    let mut start = 0;
    while start < total {
        let filled = group.min(total - start);
        if let Some(matrix) = &matrix {
            copy(&rows_of(matrix.view(), start, filled), &mut buf[..filled]);
            divide(start, &buf[..filled]);
            start += filled;
            continue;
        }
        for d in buf[..filled].chunks_exact_mut(row) {
            if column {
                d.fill(*values.next().expect("a value per row"));
            } else {
                gather(&rows.next().expect("a row per row"), d);
            }
        }
        divide(start, &buf[..filled]);
        start += filled;
    }
}

/// The dividends a group of whole rows at a time: slices of `a` where it is contiguous,
/// else copied from the matrix of its rows into a buffer.
enum Gathered<'s> {
    Contiguous(&'s [f32]),
    Rows(ArrayView2<'s, f32>, Vec<f32>),
}

impl<'s> Gathered<'s> {
    /// `None` where `a` is neither contiguous nor a matrix of rows.
    fn new<D: Dimension>(a: ArrayView<'s, f32, D>) -> Option<Gathered<'s>> {
        match a.to_slice() {
            Some(x) => Some(Gathered::Contiguous(x)),
            None => Some(Gathered::Rows(as_rows(a)?, Vec::new())),
        }
    }

    /// The `len` elements (whole rows) from `start`.
    fn group(&mut self, start: usize, len: usize) -> &[f32] {
        match self {
            Gathered::Contiguous(x) => &x[start..start + len],
            Gathered::Rows(rows, buf) => {
                let part = rows_of(rows.view(), start, len);
                buf.resize(len, 0.0);
                copy(&part, buf);
                buf
            }
        }
    }
}

/// The output's rows where they are not contiguous with one another (a view with steps
/// between rows), as a matrix: a group's quotients computed into a buffer (or, for division
/// in place, its elements gathered into it), then copied into the group's rows.
struct Scattered<'s> {
    rows: ArrayViewMut2<'s, f32>,
    buf: Vec<f32>,
}

impl<'s> Scattered<'s> {
    /// `None` where `out` is not a matrix of rows.
    fn new<D: Dimension>(out: ArrayViewMut<'s, f32, D>) -> Option<Scattered<'s>> {
        let rows = as_rows(out)?;
        Some(Scattered {
            rows,
            buf: Vec::new(),
        })
    }

    /// Room for a group's `len` quotients.
    fn buffer(&mut self, len: usize) -> &mut [f32] {
        self.buf.resize(len, 0.0);
        &mut self.buf
    }

    /// The group's `len` elements (whole rows) from `start`, in the buffer.
    fn gathered(&mut self, start: usize, len: usize) -> &mut [f32] {
        self.buf.resize(len, 0.0);
        copy(&rows_of(self.rows.view(), start, len), &mut self.buf);
        &mut self.buf
    }

    /// The buffer into the group's rows, from element `start`.
    fn write(&mut self, start: usize) {
        let columns = self.rows.ncols();
        let shape = (self.buf.len() / columns, columns);
        let first = start / columns;
        let part = Slice::from(first..first + shape.0);
        write(&self.buf, self.rows.slice_axis_mut(Axis(0), part));
    }
}

/// The rows holding the `len` elements from `start` (whole rows) of a matrix of rows.
fn rows_of(rows: ArrayView2<f32>, start: usize, len: usize) -> ArrayView2<f32> {
    let columns = rows.ncols();
    rows.slice_axis_move(
        Axis(0),
        Slice::from(start / columns..(start + len) / columns),
    )
}

/// `part` (whole rows, each stepping by one) into `buf`, in standard order: row by row,
/// without a view made for each.
fn copy(part: &ArrayView2<f32>, buf: &mut [f32]) {
    let (step, columns) = (part.strides()[0], part.ncols());
    for (i, d) in buf.chunks_exact_mut(columns).enumerate() {
        // SAFETY: row i of `part` starts i * step elements past its first and holds
        // `columns` elements stepping by one (`order` took only such rows of dividends and
        // outputs, `in_row_groups` only such divisors; merging the outer axes kept them): all
        // within the view.
        let row =
            unsafe { slice::from_raw_parts(part.as_ptr().offset(i as isize * step), columns) };
        copy_short(row, d);
    }
}

/// `buf` (whole rows, in standard order) into `part`'s rows, each stepping by one.
fn write(buf: &[f32], mut part: ArrayViewMut2<f32>) {
    let (step, columns) = (part.strides()[0], part.ncols());
    for (i, q) in buf.chunks_exact(columns).enumerate() {
        // SAFETY: as in `copy`, row i of the view, writable through its unique borrow.
        let row = unsafe {
            slice::from_raw_parts_mut(part.as_mut_ptr().offset(i as isize * step), columns)
        };
        copy_short(q, row);
    }
}

/// `from` into `to` (of one length, a short row): eight floats at a time and an overlapping
/// last eight (four, under eight; single floats under four), so that no row costs a call
/// of `memcpy`.
#[inline(always)]
fn copy_short(from: &[f32], to: &mut [f32]) {
    let n = from.len();
    let mut chunk =
        |width: usize, at: usize| to[at..at + width].copy_from_slice(&from[at..at + width]);
    match n {
        8.. => {
            for at in (0..n - 8).step_by(8) {
                chunk(8, at);
            }
            chunk(8, n - 8);
        }
        4..8 => {
            chunk(4, 0);
            chunk(4, n - 4);
        }
        // One to three floats: the first, the middle and the last (n = 3: all; fewer: some
        // twice).
        1..4 => {
            for at in [0, n / 2, n - 1] {
                chunk(1, at);
            }
        }
        0 => {}
    }
}

#[cfg(test)]
mod tests {
    use ::ndarray::{Array1, Array2, s};

    use super::ROW_GROUP;
    use crate::ndarray::tests::same_bits;
    use crate::ndarray::{div, div_assign, div_to};

    /// Short rows over three groups (the last partial), by one row, a column and a
    /// transposed divisor, fresh and in place; and rows that are not contiguous with one
    /// another (three columns of a wider matrix, two groups): gathered, written into the
    /// columns of a wider output and in place there. The bits of `/` (also what Miri runs
    /// through the groups' raw writes into fresh memory).
    #[test]
    fn short_rows_divide_a_group_at_a_time_as_slash_does() {
        let rows = 2 * ROW_GROUP / 3 + 5;
        let a = Array2::from_shape_fn((rows, 3), |(i, j)| 1.0 + (i * 3 + j) as f32 / 64.0);
        let row = Array1::from_shape_fn(3, |j| 3.0 - j as f32 / 7.0);
        let column = Array2::from_shape_fn((rows, 1), |(i, _)| 1.5 + i as f32 / 512.0);
        let full = Array2::from_shape_fn((3, rows), |(j, i)| 2.0 + (i ^ j) as f32 / 256.0);
        assert!(same_bits(&div(&a, &row), &(&a / &row)));
        assert!(same_bits(&div(&a, &column), &(&a / &column)));
        assert!(same_bits(&div(&a, &full.t()), &(&a / &full.t())));
        let mut x = a.clone();
        div_assign(&mut x, &column).unwrap();
        assert!(same_bits(&x, &(&a / &column)));

        // Two groups (the second partial) here: Miri's time grows with the rows.
        let (rows, column) = (ROW_GROUP / 3 + 5, column.slice(s![..ROW_GROUP / 3 + 5, ..]));
        let wide = Array2::from_shape_fn((rows, 5), |(i, j)| 1.0 + (i * 5 + j) as f32 / 32.0);
        let columns = wide.slice(s![.., 1..4]);
        let want = &columns / &column;
        assert!(same_bits(&div(&columns, &column), &want));
        let mut spaced = Array2::from_elem((rows, 5), -1.0f32);
        div_to(&columns, &column, &mut spaced.slice_mut(s![.., 2..5])).unwrap();
        assert!(same_bits(&spaced.slice(s![.., 2..5]).to_owned(), &want));
        assert!(spaced.slice(s![.., ..2]).iter().all(|&v| v == -1.0));
        let mut x = wide.clone();
        div_assign(&mut x.slice_mut(s![.., 1..4]), &column).unwrap();
        assert!(same_bits(&x.slice(s![.., 1..4]).to_owned(), &want));
        assert!(same_bits(
            &x.slice(s![.., 4..]).to_owned(),
            &wide.slice(s![.., 4..]).to_owned()
        ));
    }
}
