//! Cooperative matrices as whole mathematical matrices.
//!
//! Orientation (decided here, checked by tests against a plain matmul): naga's
//! `coop_matCxR` has `C` columns and `R` rows (columns first). A value holds its `R x C`
//! elements in row-major order: element (row `r`, column `c`) is word `r * C + c`.
//! `coopMultiplyAdd(a, b, c)` is the matrix product `a · b + c`, with `a` of `R x K`
//! (`K` = its columns), `b` of `K x C` (`K` = its rows) and `c` of `R x C`.
//! Memory: `coopLoad`/`coopStore` (column-major) put element (r, c) at element offset
//! `c * stride + r` from the pointer; the `T` forms (row-major) at `r * stride + c`. An element
//! occupies its element type's size (1 byte for `i8`/`u8`, 2 for `f16`, 4 otherwise) from the
//! pointer's byte address, whatever the pointer's own type (Dawn's loads reinterpret the
//! array: the frontend has already turned the stride into matrix elements).
//! A value holds each element as its shader scalar's word (`i8` sign-extended, `u8`
//! zero-extended).
//! Float products are accumulated in `f32` in order (k = 0, 1, ..., then the accumulator)
//! and rounded once to the result's type. Integer products and sums are exact modulo 2^32
//! and wrap to the result's width (`i8`/`u8` results keep the low byte, sign- or
//! zero-extended), as Vulkan's `OpCooperativeMatrixMulAddKHR` computes in the result type.

use super::memory::Memory;
use super::value::{fget, fput, internal, runtime};
use dianran_frontend::ir::{BinaryOperator, CoopElem};
use dianran_frontend::Diagnostic;

/// Shape of a cooperative matrix value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Element type.
    pub elem: CoopElem,
}

/// The word of a byte element: `w`'s low byte, sign- or zero-extended; other words as is.
fn narrow(e: CoopElem, w: u32) -> u32 {
    match e {
        CoopElem::I8 => w as u8 as i8 as i32 as u32,
        CoopElem::U8 => w & 0xff,
        _ => w,
    }
}

/// A scalar operand clamped to a byte element's range (Dawn's rule for fills and scalar
/// arithmetic); other elements take it as is.
pub(crate) fn clamp_scalar(e: CoopElem, w: u32) -> u32 {
    match e {
        CoopElem::I8 => (w as i32).clamp(-128, 127) as u32,
        CoopElem::U8 => w.min(255),
        _ => w,
    }
}

fn elem_offset(r: u32, c: u32, stride: u64, row_major: bool) -> Option<u64> {
    let (major, minor) = if row_major { (r, c) } else { (c, r) };
    u64::from(major).checked_mul(stride)?.checked_add(u64::from(minor))
}

fn elem_ptr(ptr: [u32; 2], e: u64, s: CoopElem) -> Result<[u32; 2], Diagnostic> {
    let off = e
        .checked_mul(u64::from(s.size()))
        .and_then(|b| b.checked_add(u64::from(ptr[1])))
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| runtime("cooperative matrix access past the end of the address space"))?;
    Ok([ptr[0], off])
}

/// The element offset of tile element (r, c) when the access happens: `None` for an element
/// at or past `limit` (the bounds policy's per-element rule: zero read, store dropped; an
/// offset that overflows is past any limit). Without a limit an overflow is an error.
fn checked_offset(
    r: u32,
    c: u32,
    stride: u64,
    row_major: bool,
    limit: Option<u32>,
) -> Result<Option<u64>, Diagnostic> {
    match (elem_offset(r, c, stride, row_major), limit) {
        (Some(e), Some(l)) => Ok((e < u64::from(l)).then_some(e)),
        (Some(e), None) => Ok(Some(e)),
        (None, Some(_)) => Ok(None),
        (None, None) => Err(runtime("cooperative matrix stride overflows")),
    }
}

/// A stride of `stride` pointee elements in matrix elements (`scale` each), exact in 64 bits.
pub(crate) fn matrix_stride(stride: u32, scale: u32) -> u64 {
    u64::from(stride) * u64::from(scale)
}

/// Where a tile is in memory: the first element, the stride in matrix elements, the orientation
/// and the bounds policy's `limit` (elements from the first one to the end of its array).
#[derive(Clone, Copy)]
pub(crate) struct Tile {
    pub ptr: [u32; 2],
    pub stride: u64,
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
                Some(e) => mem.load_elem(lane, elem_ptr(t.ptr, e, sh.elem)?, sh.elem)?,
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
                mem.store_elem(lane, elem_ptr(t.ptr, e, sh.elem)?, sh.elem, w)?;
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
            if sc.elem.is_float() {
                let (ta, tb, tc) = (sa.elem.scalar(), sb.elem.scalar(), sc.elem.scalar());
                let mut acc = 0.0f32;
                for x in 0..k {
                    acc += fget(ta, a[r * k + x]) * fget(tb, b[x * cols + col]);
                }
                acc += fget(tc, c[r * cols + col]);
                out.push(fput(tc, acc));
            } else {
                let mut acc = 0u32;
                for x in 0..k {
                    acc = acc.wrapping_add(a[r * k + x].wrapping_mul(b[x * cols + col]));
                }
                out.push(narrow(sc.elem, acc.wrapping_add(c[r * cols + col])));
            }
        }
    }
    Ok(())
}

/// `subgroupMatrixScalarAdd/Subtract/Multiply(m, s)`: `op` on every element and the (clamped)
/// scalar, in the element's type.
pub(crate) fn scalar_op(
    op: BinaryOperator,
    m: &[u32],
    sh: Shape,
    scalar: u32,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let s = clamp_scalar(sh.elem, scalar);
    for &w in m {
        let r = if sh.elem.is_float() {
            // f32 holds an f16 sum, difference or product exactly enough that rounding it
            // to f16 afterwards is correctly rounded (24 >= 2 * 11 + 2 bits).
            let t = sh.elem.scalar();
            let (x, y) = (fget(t, w), fget(t, s));
            fput(
                t,
                match op {
                    BinaryOperator::Add => x + y,
                    BinaryOperator::Subtract => x - y,
                    _ => x * y,
                },
            )
        } else {
            narrow(
                sh.elem,
                match op {
                    BinaryOperator::Add => w.wrapping_add(s),
                    BinaryOperator::Subtract => w.wrapping_sub(s),
                    _ => w.wrapping_mul(s),
                },
            )
        };
        out.push(r);
    }
    Ok(())
}
