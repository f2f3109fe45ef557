//! Division of arrays with a transposed operand (one more contiguous across the output's
//! lanes than along them: `a.t() / b`, say), tile by tile: each tile of the plane of the
//! lanes' axis and that cross axis is gathered into two buffers along each operand's more
//! contiguous axis, divided by one call of [`crate::div_in_place`], and written back the
//! same way. Walking one lane at a time instead reads the transposed operand one float per
//! cache line (and per page, for rows of 1024 floats or more); a tile reads whole lines of
//! it and keeps them until they are used.

use std::array;

use ::ndarray::{
    ArrayBase, ArrayView2, ArrayViewD, ArrayViewMut2, ArrayViewMutD, Axis, Ix2, IxDyn, RawData, s,
};

/// Elements in one tile: two buffers of it (16 KiB each) stay in a 32 KiB L1 data cache
/// while the operands' lines stream through.
const TILE: usize = 4096;

/// Lanes one tile spans at most: 64 floats along the cross axis are four whole cache lines
/// of an operand that is contiguous there.
const TILE_LANES: usize = 64;

/// Columns of a transposed tile read side by side: eight streams of loads in flight, and
/// eight lines that share one L1 set (columns 4 KiB apart, rows of 1024 floats) still fit
/// its eight ways, so each line stays until its sixteen floats are read.
const BAND: usize = 8;

/// The axis across the lanes along which an operand is more contiguous than along the
/// lanes themselves (a transposed operand: walking its lanes reads one float per cache
/// line), the one where the smallest such stride is; `None` where no operand is, and tiles
/// would only add a pass. Strides of zero (broadcasts) read nothing new either way.
pub(super) fn cross_axis(lane: Axis, shape: &[usize], strides: &[&[isize]]) -> Option<Axis> {
    let along = |s: &[isize]| s[lane.index()].unsigned_abs();
    (0..shape.len())
        .filter(|&i| i != lane.index() && shape[i] > 1)
        .filter_map(|i| {
            let across = strides
                .iter()
                .filter(|s| s[i] != 0 && s[i].unsigned_abs() < along(s))
                .map(|s| s[i].unsigned_abs())
                .min()?;
            Some((across, i))
        })
        .min()
        .map(|(_, i)| Axis(i))
}

/// `out = a / b` elementwise (`a` = `None`: `out` holds the dividends), the three of one
/// shape, tile by tile in the planes of `cross` and `lane`.
pub(super) fn divide(
    out: ArrayViewMutD<f32>,
    a: Option<ArrayViewD<f32>>,
    b: ArrayViewD<f32>,
    lane: Axis,
    cross: Axis,
) {
    // The other axes first, then the cross axis, then the lanes': the planes are the last two.
    let order: Vec<usize> = (0..out.ndim())
        .filter(|&i| i != lane.index() && i != cross.index())
        .chain([cross.index(), lane.index()])
        .collect();
    // No tile is larger than the array: a small one allocates (and zeroes) only its size.
    let size = TILE.min(out.len());
    let mut buffers = Buffers {
        x: vec![0.0; size],
        y: vec![0.0; size],
    };
    planes(
        out.permuted_axes(IxDyn(&order)),
        a.map(|a| a.permuted_axes(IxDyn(&order))),
        b.permuted_axes(IxDyn(&order)),
        &mut buffers,
    );
}

/// The two tile buffers, allocated once per call (a tile's size at most).
struct Buffers {
    x: Vec<f32>,
    y: Vec<f32>,
}

/// Every plane (the last two axes: cross, lanes) of the three views, one after another.
fn planes(
    mut out: ArrayViewMutD<f32>,
    a: Option<ArrayViewD<f32>>,
    b: ArrayViewD<f32>,
    buffers: &mut Buffers,
) {
    if out.ndim() == 2 {
        return plane(two(out), a.map(two), two(b), buffers);
    }
    for i in 0..out.len_of(Axis(0)) {
        let x = a.as_ref().map(|a| a.index_axis(Axis(0), i));
        planes(
            out.index_axis_mut(Axis(0), i),
            x,
            b.index_axis(Axis(0), i),
            buffers,
        );
    }
}

/// A view of two axes as such.
fn two<S: RawData<Elem = f32>>(v: ArrayBase<S, IxDyn>) -> ArrayBase<S, Ix2> {
    v.into_dimensionality().expect("a plane has two axes")
}

/// One plane (axis 0 the cross axis, axis 1 the lanes'), tile by tile.
fn plane(
    mut out: ArrayViewMut2<f32>,
    a: Option<ArrayView2<f32>>,
    b: ArrayView2<f32>,
    buffers: &mut Buffers,
) {
    let (across, along) = out.dim();
    let lanes = across.min(TILE_LANES);
    let length = TILE / lanes;
    for l in (0..along).step_by(length) {
        for k in (0..across).step_by(lanes) {
            let tile = s![k..(k + lanes).min(across), l..(l + length).min(along)];
            let n = out.slice(tile).len();
            let (x, y) = (&mut buffers.x[..n], &mut buffers.y[..n]);
            match &a {
                Some(a) => gather(a.slice(tile), x),
                None => gather(out.slice(tile), x),
            }
            gather(b.slice(tile), y);
            crate::div_in_place(x, y);
            scatter(x, out.slice_mut(tile));
        }
    }
}

/// A tile into `buf`, row by row (a row: one lane's piece), read along whichever axis of
/// the tile is the more contiguous in memory.
fn gather(tile: ArrayView2<f32>, buf: &mut [f32]) {
    let (rows, columns) = tile.dim();
    assert_eq!(buf.len(), rows * columns, "a buffer of the tile's size");
    if along_rows(tile.shape(), tile.strides()) {
        for (src, dst) in tile.rows().into_iter().zip(buf.chunks_exact_mut(columns)) {
            super::gather(&src, dst);
        }
    } else {
        gather_down_columns(tile, buf);
    }
}

/// A tile more contiguous down its columns than along its rows (a transposed operand's)
/// into `buf` row by row: `BAND` columns at a time, each row's `BAND` elements read from
/// their `BAND` columns and written side by side. Column after column instead kept one
/// stream of loads in flight, with nine instructions to a float: a 1024² `div_to(&a,
/// &b.t(), ...)` spent 60% of its time in that loop, and takes 0.5–0.8 of its time this way.
fn gather_down_columns(tile: ArrayView2<f32>, buf: &mut [f32]) {
    let columns = tile.ncols();
    let (down, across) = (tile.strides()[0], tile.strides()[1]);
    let origin = tile.as_ptr();
    let mut c0 = 0;
    while columns - c0 >= BAND {
        // SAFETY: c0 + k < columns: the first element of the tile's column c0 + k.
        let heads: [*const f32; BAND] =
            array::from_fn(|k| unsafe { origin.offset((c0 + k) as isize * across) });
        for (r, row) in buf.chunks_exact_mut(columns).enumerate() {
            // SAFETY: r < the tile's rows (the buffer holds them, `columns` floats each):
            // element (r, c0 + k) of the tile, r steps of `down` below its column's head.
            let band: [f32; BAND] =
                array::from_fn(|k| unsafe { *heads[k].offset(r as isize * down) });
            row[c0..c0 + BAND].copy_from_slice(&band);
        }
        c0 += BAND;
    }
    // The last columns (fewer than a band), one at a time.
    for c in c0..columns {
        for (r, d) in buf[c..].iter_mut().step_by(columns).enumerate() {
            // SAFETY: r < the tile's rows (the buffer holds them, `columns` floats each) and
            // c < columns.
            *d = unsafe { *tile.uget((r, c)) };
        }
    }
}

/// `buf` (a tile row by row, as [`gather`] fills it) into `tile`, written along whichever
/// axis of the tile is the more contiguous in memory.
fn scatter(buf: &[f32], mut tile: ArrayViewMut2<f32>) {
    let (rows, columns) = tile.dim();
    assert_eq!(buf.len(), rows * columns, "a buffer of the tile's size");
    if along_rows(tile.shape(), tile.strides()) {
        for (mut dst, src) in tile.rows_mut().into_iter().zip(buf.chunks_exact(columns)) {
            super::scatter(src, &mut dst);
        }
    } else {
        for c in 0..columns {
            for (r, &s) in buf[c..].iter().step_by(columns).enumerate() {
                // SAFETY: r < rows (the buffer holds rows × columns) and c < columns.
                unsafe { *tile.uget_mut((r, c)) = s };
            }
        }
    }
}

/// Whether a tile of this shape and these strides (cross axis, lanes) is walked best row by
/// row: it has one row, or its lanes are at least as contiguous as its cross axis (and it
/// has more than one column).
fn along_rows(shape: &[usize], strides: &[isize]) -> bool {
    shape[0] == 1 || (shape[1] > 1 && strides[1].unsigned_abs() <= strides[0].unsigned_abs())
}

#[cfg(test)]
mod tests {
    use ::ndarray::{Array2, Array3, s};

    use crate::ndarray::tests::same_bits;
    use crate::ndarray::{div, div_assign};

    /// Distinct, inexact quotients: one bit pattern per element.
    fn filled(rows: usize, columns: usize, salt: u32) -> Array2<f32> {
        Array2::from_shape_fn((rows, columns), |(i, j)| {
            1.0 + ((i * 131 + j * 7) as u32 ^ salt) as f32 / 1024.0
        })
    }

    /// Across tile boundaries both ways (64 lanes by 64 elements: 66 lanes of 67 elements
    /// leave partial tiles of 2 and 3), out of place and in place, by a transposed operand
    /// with negative steps, and a plane inside a third axis: the bits of `/` (also what Miri
    /// runs through the unchecked reads and writes).
    #[test]
    fn a_transposed_operand_divides_tile_by_tile_as_slash_does() {
        let a = filled(66, 67, 0);
        let b = filled(67, 66, 0x55);
        let want = &a / &b.t();
        assert!(same_bits(&div(&a, &b.t()), &want));
        let mut x = a.clone();
        div_assign(&mut x, &b.t()).unwrap();
        assert!(same_bits(&x, &want));
        // Transposed, every other row reversed: the bands' pointers step back, two rows apart.
        let tall = filled(134, 66, 0x33);
        let back = tall.slice(s![..;-2, ..]);
        let want = &a / &back.t();
        assert!(same_bits(&div(&a, &back.t()), &want));
        let cube = Array3::from_shape_fn((2, 3, 66), |(i, j, k)| (i + j * 5 + k) as f32 + 0.5);
        let rotated = cube.view().permuted_axes([0, 2, 1]).to_owned();
        let by = cube.mapv(|v| v * 0.75 + 1.0).permuted_axes([0, 2, 1]);
        assert!(same_bits(&div(&rotated, &by), &(&rotated / &by)));
    }
}
