//! Cooperative matrices as whole mathematical matrices.
//!
//! Orientation (decided here, checked by tests against a plain matmul): naga's
//! `coop_matCxR` has `C` columns and `R` rows (columns first). A value holds its `R x C`
//! elements in row-major order: element (row `r`, column `c`) is word `r * C + c`.
//! `coopMultiplyAdd(a, b, c)` is the matrix product `a · b + c`, with `a` of `R x K`
//! (`K` = its columns), `b` of `K x C` (`K` = its rows) and `c` of `R x C`.
//! Memory: `coopLoad`/`coopStore` (column-major) put element (r, c) at element offset
//! `c * stride + r` from the pointer; the `T` forms (row-major) at `r * stride + c`. An element
//! occupies its scalar's size (2 bytes for `f16`, 4 for `f32`): the pointer points into an
//! array of scalars.
//! Products are accumulated in `f32` and rounded once to the result's scalar type.

use super::memory::Memory;
use super::value::{fget, fput, internal, runtime};
use dianran_frontend::ir::Scalar;
use dianran_frontend::Diagnostic;

/// Shape of a cooperative matrix value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Element type.
    pub scalar: Scalar,
}

fn elem_offset(r: u32, c: u32, stride: u32, row_major: bool) -> Option<u32> {
    let e = if row_major {
        r.checked_mul(stride)?.checked_add(c)?
    } else {
        c.checked_mul(stride)?.checked_add(r)?
    };
    Some(e)
}

fn elem_ptr(ptr: [u32; 2], e: u32, s: Scalar) -> Result<[u32; 2], Diagnostic> {
    let off = e
        .checked_mul(s.size())
        .and_then(|b| b.checked_add(ptr[1]))
        .ok_or_else(|| runtime("cooperative matrix access past the end of the address space"))?;
    Ok([ptr[0], off])
}

/// The element offset of tile element (r, c) when the access happens: `None` for an element
/// at or past `limit` (the bounds policy's per-element rule: zero read, store dropped; an
/// offset that overflows is past any limit). Without a limit an overflow is an error.
fn checked_offset(
    r: u32,
    c: u32,
    stride: u32,
    row_major: bool,
    limit: Option<u32>,
) -> Result<Option<u32>, Diagnostic> {
    match (elem_offset(r, c, stride, row_major), limit) {
        (Some(e), Some(l)) => Ok((e < l).then_some(e)),
        (Some(e), None) => Ok(Some(e)),
        (None, Some(_)) => Ok(None),
        (None, None) => Err(runtime("cooperative matrix stride overflows")),
    }
}

/// Where a tile is in memory: the first element, the stride in elements, the orientation
/// and the bounds policy's `limit` (elements from the first one to the end of its array).
#[derive(Clone, Copy)]
pub(crate) struct Tile {
    pub ptr: [u32; 2],
    pub stride: u32,
    pub row_major: bool,
    pub limit: Option<u32>,
}

/// `coopLoad`/`coopLoadT` for one lane.
pub(crate) fn load(
    mem: &Memory,
    lane: usize,
    t: Tile,
    sh: Shape,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    for r in 0..sh.rows {
        for c in 0..sh.cols {
            out.push(match checked_offset(r, c, t.stride, t.row_major, t.limit)? {
                Some(e) => mem.load_scalar(lane, elem_ptr(t.ptr, e, sh.scalar)?, sh.scalar)?,
                None => 0,
            });
        }
    }
    Ok(())
}

/// `coopStore`/`coopStoreT` for one lane.
pub(crate) fn store(
    mem: &mut Memory,
    lane: usize,
    value: &[u32],
    t: Tile,
    sh: Shape,
) -> Result<(), Diagnostic> {
    for r in 0..sh.rows {
        for c in 0..sh.cols {
            let w = value
                .get((r * sh.cols + c) as usize)
                .copied()
                .ok_or_else(|| internal("cooperative matrix value too short"))?;
            if let Some(e) = checked_offset(r, c, t.stride, t.row_major, t.limit)? {
                mem.store_scalar(lane, elem_ptr(t.ptr, e, sh.scalar)?, sh.scalar, w)?;
            }
        }
    }
    Ok(())
}

/// `a · b + c`.
pub(crate) fn multiply_add(
    a: &[u32],
    sa: Shape,
    b: &[u32],
    sb: Shape,
    c: &[u32],
    sc: Shape,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    if sa.cols != sb.rows || sa.rows != sc.rows || sb.cols != sc.cols {
        return Err(internal(format!(
            "coopMultiplyAdd shapes do not agree: a is {}x{}, b is {}x{}, c is {}x{} (rows x columns)",
            sa.rows, sa.cols, sb.rows, sb.cols, sc.rows, sc.cols
        )));
    }
    let need = |v: &[u32], s: Shape| v.len() == (s.rows * s.cols) as usize;
    if !need(a, sa) || !need(b, sb) || !need(c, sc) {
        return Err(internal("cooperative matrix value of the wrong size"));
    }
    let k = sa.cols as usize;
    let (rows, cols) = (sc.rows as usize, sc.cols as usize);
    for r in 0..rows {
        for col in 0..cols {
            let mut acc = 0.0f32;
            for x in 0..k {
                acc += fget(sa.scalar, a[r * k + x]) * fget(sb.scalar, b[x * cols + col]);
            }
            acc += fget(sc.scalar, c[r * cols + col]);
            out.push(fput(sc.scalar, acc));
        }
    }
    Ok(())
}
