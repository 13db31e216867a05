//! Cooperative matrices as Metal `simdgroup_matrix` 8×8 tiles; a 16×16 matrix is a struct of
//! 2×2 tiles.

use crate::body::{FnWriter, Res};
use dianran_frontend::ir::{self, Scalar, Type, TypeId, ValueId};
use dianran_frontend::printer::operands::Operands;
use dianran_frontend::printer::syntax::Syntax;

impl FnWriter<'_> {
    /// Number of 8×8 tiles per side (1 or 2) and the scalar of a cooperative matrix type.
    pub(crate) fn coop_shape(&self, t: TypeId, span: ir::Span) -> Res<(usize, Scalar)> {
        match self.w.m.types.get(t) {
            Type::CoopMatrix { columns: 8, rows: 8, scalar, .. } => Ok((1, *scalar)),
            Type::CoopMatrix { columns: 16, rows: 16, scalar, .. } => {
                self.helper(if *scalar == Scalar::F16 {
                    "dr_coop16_half"
                } else {
                    "dr_coop16_float"
                });
                Ok((2, *scalar))
            }
            _ => {
                Err(self
                    .unsupported("a cooperative matrix of this shape (Metal has 8x8 tiles)", span))
            }
        }
    }

    /// Declares the matrix `r` (filled by the statements that follow); returns its name and
    /// tiles per side.
    fn declare_matrix(&mut self, r: ValueId, depth: usize, span: ir::Span) -> Res<(String, usize)> {
        let name = self.b.new_name(r);
        let (tiles, _) = self.coop_shape(self.b.ty(r), span)?;
        let text = self.var_decl(&name, self.b.ty(r), None);
        self.b.line(depth, &text);
        Ok((name, tiles))
    }

    /// `r = coopLoad(ptr, stride)`: one `simdgroup_load` per tile.
    pub(crate) fn coop_load(
        &mut self,
        r: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        self.tile_accesses("simdgroup_load", &name, tiles, ptr, stride, row_major, depth);
        Ok(())
    }

    /// `coopStore(value, ptr, stride)`: one `simdgroup_store` per tile.
    pub(crate) fn coop_store(
        &mut self,
        value: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (tiles, _) = self.coop_shape(self.b.ty(value), span)?;
        let m = self.val(value);
        self.tile_accesses("simdgroup_store", &m, tiles, ptr, stride, row_major, depth);
        Ok(())
    }

    /// Prints `f(tile, address, stride, ...)` for each tile of `matrix` (a 16×16 matrix's
    /// tiles are its members `t[i][j]`).
    #[allow(clippy::too_many_arguments)]
    fn tile_accesses(
        &mut self,
        f: &str,
        matrix: &str,
        tiles: usize,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        depth: usize,
    ) {
        let (base, s) = (format!("&{}", self.place(ptr)), self.val(stride));
        for (i, j, off) in coop_tiles(tiles, row_major, &s) {
            let tile =
                if tiles == 1 { matrix.to_string() } else { format!("{matrix}.t[{i}][{j}]") };
            let text =
                format!("{f}({tile}, {base} + {off}, ulong({s}), ulong2(0), {});", !row_major);
            self.b.line(depth, &text);
        }
    }

    /// `r = coopMultiplyAdd(a, b, c)`: `simdgroup_multiply_accumulate` per tile, two per tile
    /// of a 16×16 result.
    pub(crate) fn coop_multiply_add(
        &mut self,
        r: ValueId,
        [a, b, c]: [ValueId; 3],
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        let (a, b, c) = (self.val(a), self.val(b), self.val(c));
        if tiles == 1 {
            self.b.line(depth, &format!("simdgroup_multiply_accumulate({name}, {a}, {b}, {c});"));
            return Ok(());
        }
        // D(i,j) = A(i,0)·B(0,j) + C(i,j), then += A(i,1)·B(1,j).
        for i in 0..2 {
            for j in 0..2 {
                self.b.line(depth, &format!(
                    "simdgroup_multiply_accumulate({name}.t[{i}][{j}], {a}.t[{i}][0], {b}.t[0][{j}], {c}.t[{i}][{j}]);"
                ));
                self.b.line(depth, &format!(
                    "simdgroup_multiply_accumulate({name}.t[{i}][{j}], {a}.t[{i}][1], {b}.t[1][{j}], {name}.t[{i}][{j}]);"
                ));
            }
        }
        Ok(())
    }
}

/// The 8×8 tiles of a `tiles`×`tiles` grid with the element offset of each tile's first
/// element: row-major memory puts tile (i, j) at `8i·stride + 8j`, column-major at
/// `8j·stride + 8i` (and is loaded transposed).
fn coop_tiles(tiles: usize, row_major: bool, stride: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for i in 0..tiles {
        for j in 0..tiles {
            let (major, minor) = if row_major { (i, j) } else { (j, i) };
            out.push((i, j, format!("({}u * {stride} + {}u)", 8 * major, 8 * minor)));
        }
    }
    out
}
