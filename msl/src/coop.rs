//! Cooperative matrices as Metal `simdgroup_matrix` 8×8 tiles; a 16×16 matrix is a struct of
//! 2×2 tiles, Dawn's 8-row, 16-column one a struct of 1×2.

use crate::body::{FnWriter, Res};
use dianran_frontend::ir::{self, Scalar, Type, TypeId, ValueId};
use dianran_frontend::printer::operands::Operands;
use dianran_frontend::printer::syntax::Syntax;

/// A cooperative load's or store's tiles and where they are in memory.
struct Tile<'a> {
    /// The matrix's name in the output.
    matrix: &'a str,
    /// 8x8 tiles down and across.
    tiles: Grid,
    scalar: Scalar,
    ptr: ValueId,
    stride: ValueId,
    /// Matrix elements per stride unit (`ir::Types::coop_scale`).
    scale: u32,
    row_major: bool,
}

/// A matrix's 8×8 tiles: (rows of tiles, columns of tiles).
type Grid = (usize, usize);

/// The name of tile (i, j) of matrix `m` with `grid` tiles: `m` itself when it is one tile,
/// else its member `t[i][j]`.
fn tile_of(m: &str, grid: Grid, i: usize, j: usize) -> String {
    if grid == (1, 1) {
        m.to_string()
    } else {
        format!("{m}.t[{i}][{j}]")
    }
}

impl Tile<'_> {
    /// The name of tile (i, j): the matrix itself when it is one 8×8 tile, else its member
    /// `t[i][j]`.
    fn tile(&self, i: usize, j: usize) -> String {
        tile_of(self.matrix, self.tiles, i, j)
    }
}

impl FnWriter<'_> {
    /// The 8×8 tiles (down, across) and the scalar of a cooperative matrix type.
    pub(crate) fn coop_shape(&self, t: TypeId, span: ir::Span) -> Res<(Grid, Scalar)> {
        let other =
            || self.unsupported("a cooperative matrix of this shape (Metal has 8x8 tiles)", span);
        let Type::CoopMatrix { columns, rows, elem, .. } = *self.w.m.types.get(t) else {
            return Err(other());
        };
        if !elem.is_float() {
            return Err(self.unsupported(
                "integer subgroup matrices (Metal's simdgroup matrices hold half and float)",
                span,
            ));
        }
        // Larger shapes are structs of tiles (`types::coop_type` names them): 16x16, and
        // Dawn's M = 8 shapes (8x16x16: 8 rows, 16 columns).
        let (grid, helper) = match (columns, rows) {
            (8, 8) => ((1, 1), None),
            (16, 16) => ((2, 2), Some(["dr_coop16_float", "dr_coop16_half"])),
            (16, 8) => ((1, 2), Some(["dr_coop8x16_float", "dr_coop8x16_half"])),
            _ => return Err(other()),
        };
        let scalar = elem.scalar();
        if let Some(names) = helper {
            self.helper(names[usize::from(scalar == Scalar::F16)]);
        }
        Ok((grid, scalar))
    }

    /// Declares the matrix `r` (filled by the statements that follow); returns its name and
    /// tiles.
    fn declare_matrix(&mut self, r: ValueId, depth: usize, span: ir::Span) -> Res<(String, Grid)> {
        let name = self.b.new_name(r);
        let (tiles, _) = self.coop_shape(self.b.ty(r), span)?;
        let text = self.var_decl(&name, self.b.ty(r), None);
        self.b.line(depth, &text);
        Ok((name, tiles))
    }

    /// `r = coopLoad(ptr, stride)`: one `simdgroup_load` per tile. Under the bounds
    /// policy's `limit`, the loads run as they are when the whole matrix lies inside its array
    /// (`simd_all`, so the branch is uniform); otherwise each tile goes through the
    /// simdgroup's staging slot in threadgroup memory: every lane copies two of its 64
    /// elements there (zero for an offset at or past `limit`), then one `simdgroup_load` reads
    /// the slot. Metal documents no per-element access to a `simdgroup_matrix`, so the slot
    /// is how the per-element rule (`docs/bounds.md`) is kept.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn coop_load(
        &mut self,
        r: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        limit: Option<ValueId>,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        let (_, scalar) = self.coop_shape(self.b.ty(r), span)?;
        let scale = self.w.m.types.coop_scale(self.b.ty(ptr), self.b.ty(r));
        let t = Tile { matrix: &name, tiles, scalar, ptr, stride, scale, row_major };
        self.tile_access(true, &t, limit, depth);
        Ok(())
    }

    /// `coopStore(value, ptr, stride)`: one `simdgroup_store` per tile; under a `limit`,
    /// as it is when the whole matrix lies inside its array, otherwise through the staging
    /// slot, each lane storing its two elements whose offsets are below `limit` (see
    /// [`FnWriter::coop_load`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn coop_store(
        &mut self,
        value: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        limit: Option<ValueId>,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (tiles, scalar) = self.coop_shape(self.b.ty(value), span)?;
        let m = self.val(value);
        let scale = self.w.m.types.coop_scale(self.b.ty(ptr), self.b.ty(value));
        let t = Tile { matrix: &m, tiles, scalar, ptr, stride, scale, row_major };
        self.tile_access(false, &t, limit, depth);
        Ok(())
    }

    /// Loads (`load`) or stores the tiles of `t`: as they are without a `limit`; with one,
    /// as they are when the whole matrix lies inside its array, else through the staging
    /// slot ([`FnWriter::tile_staged`]).
    fn tile_access(&mut self, load: bool, t: &Tile<'_>, limit: Option<ValueId>, depth: usize) {
        let f = if load { "simdgroup_load" } else { "simdgroup_store" };
        let Some(limit) = limit else {
            self.tile_accesses(f, t, depth);
            return;
        };
        let inside = self.tile_inside(t, limit);
        self.b.line(depth, &format!("if ({inside}) {{"));
        self.tile_accesses(f, t, depth + 1);
        self.b.line(depth, "} else {");
        self.tile_staged(load, t, limit, depth + 1);
        self.b.line(depth, "}");
    }

    /// Loads (`load`) or stores each 8x8 tile of `t` through the simdgroup's staging slot,
    /// element by element under the limit. Lane `l` handles the tile's elements `l` and
    /// `l + 32` (row `e / 8`, column `e % 8`); simdgroup barriers order the lanes' slot
    /// accesses around the collective `simdgroup_load`/`simdgroup_store`.
    fn tile_staged(&mut self, load: bool, t: &Tile<'_>, limit: ValueId, depth: usize) {
        use crate::body::{LANE, STAGE};
        let ty = if t.scalar == Scalar::F16 { "half" } else { "float" };
        let (base, s, lim) =
            (format!("({})", self.tile_base(t)), self.tile_stride(t), self.val(limit));
        let d = depth;
        self.b.line(d, &format!("threadgroup {ty}* _coop_s = (threadgroup {ty}*){STAGE};"));
        for i in 0..t.tiles.0 {
            for j in 0..t.tiles.1 {
                let tile = t.tile(i, j);
                let (row, col) =
                    (format!("{}u + _coop_e / 8u", 8 * i), format!("{}u + _coop_e % 8u", 8 * j));
                let (major, minor) = if t.row_major { (row, col) } else { (col, row) };
                let offset = format!("ulong({major}) * ulong({s}) + ulong({minor})");
                let barrier = "simdgroup_barrier(mem_flags::mem_threadgroup);";
                // Lane `l`'s elements `l` and `l + 32` of the slot, `body` with each one's
                // offset `_coop_o` in memory.
                let each = |w: &mut Self, body: &str| {
                    let head =
                        format!("for (uint _coop_e = {LANE}; _coop_e < 64u; _coop_e += 32u) {{");
                    w.b.line(d, &head);
                    w.b.line(d + 1, &format!("const ulong _coop_o = {offset};"));
                    w.b.line(d + 1, body);
                    w.b.line(d, "}");
                };
                if load {
                    let copy = format!(
                        "_coop_s[_coop_e] = _coop_o < ulong({lim}) ? {base}[_coop_o] : {ty}(0);"
                    );
                    each(self, &copy);
                    self.b.line(d, barrier);
                    self.b.line(d, &format!("simdgroup_load({tile}, _coop_s, 8);"));
                    self.b.line(d, barrier);
                } else {
                    self.b.line(d, &format!("simdgroup_store({tile}, _coop_s, 8);"));
                    self.b.line(d, barrier);
                    let copy = format!(
                        "if (_coop_o < ulong({lim})) {{ {base}[_coop_o] = _coop_s[_coop_e]; }}"
                    );
                    each(self, &copy);
                    self.b.line(d, barrier);
                }
            }
        }
    }

    /// `simd_all(last < limit)`: the matrix's last element, `(major - 1) * stride + minor -
    /// 1`, lies inside its array (in 64 bits, so no stride wraps).
    fn tile_inside(&self, t: &Tile<'_>, limit: ValueId) -> String {
        let (rows, cols) = (8 * t.tiles.0 - 1, 8 * t.tiles.1 - 1);
        let (major, minor) = if t.row_major { (rows, cols) } else { (cols, rows) };
        format!(
            "simd_all(ulong({}) * {major}ul + {minor}ul < ulong({}))",
            self.tile_stride(t),
            self.val(limit)
        )
    }

    /// The address of the tile's first element as a pointer to matrix elements: a Dawn load
    /// from an array of another element type (`f32` matrices from `array<vec2<f16>>`, `f16`
    /// ones from `array<u32>`) casts it.
    fn tile_base(&self, t: &Tile<'_>) -> String {
        let place = self.place(t.ptr);
        let types = &self.w.m.types;
        let own = matches!(types.get(self.b.ty(t.ptr)),
            Type::Pointer { base, .. } if *types.get(*base) == Type::Scalar(t.scalar));
        if t.scale == 1 && own {
            return format!("&{place}");
        }
        let q = match types.get(self.b.ty(t.ptr)) {
            Type::Pointer { space: ir::AddressSpace::Workgroup, .. } => "threadgroup",
            Type::Pointer { space: ir::AddressSpace::Storage { writable: false }, .. } => {
                "const device"
            }
            _ => "device",
        };
        let ty = if t.scalar == Scalar::F16 { "half" } else { "float" };
        format!("reinterpret_cast<{q} {ty}*>(&{place})")
    }

    /// The stride in matrix elements.
    fn tile_stride(&self, t: &Tile<'_>) -> String {
        let s = self.val(t.stride);
        if t.scale == 1 {
            s
        } else {
            format!("({s} * {}u)", t.scale)
        }
    }

    /// Prints `f(tile, address, stride, ...)` for each tile of `t`.
    fn tile_accesses(&mut self, f: &str, t: &Tile<'_>, depth: usize) {
        let (base, s) = (self.tile_base(t), self.tile_stride(t));
        for (i, j, off) in coop_tiles(t.tiles, t.row_major, &s) {
            let tile = t.tile(i, j);
            let text =
                format!("{f}({tile}, {base} + {off}, ulong({s}), ulong2(0), {});", !t.row_major);
            self.b.line(depth, &text);
        }
    }

    /// `r = fill(v)`: every tile `make_filled_simdgroup_matrix`.
    pub(crate) fn coop_fill(
        &mut self,
        r: ValueId,
        v: ValueId,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        let (_, scalar) = self.coop_shape(self.b.ty(r), span)?;
        let ty = if scalar == Scalar::F16 { "half" } else { "float" };
        let fill = format!("make_filled_simdgroup_matrix<{ty}, 8, 8>({ty}({}))", self.val(v));
        for i in 0..tiles.0 {
            for j in 0..tiles.1 {
                let t = tile_of(&name, tiles, i, j);
                self.b.line(depth, &format!("{t} = {fill};"));
            }
        }
        Ok(())
    }

    /// `r = m op s` for every element, with Metal's matrix operations as Dawn maps them:
    /// `m · I + fill(±s)` for `+`/`-`, `m · diag(s)` for `*`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn coop_scalar(
        &mut self,
        r: ValueId,
        op: ir::BinaryOperator,
        m: ValueId,
        s: ValueId,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        let (_, scalar) = self.coop_shape(self.b.ty(r), span)?;
        let ty = if scalar == Scalar::F16 { "half" } else { "float" };
        let (m, s) = (self.val(m), self.val(s));
        let diag = |x: &str| format!("simdgroup_matrix<{ty}, 8, 8>({ty}({x}))");
        let filled = |x: &str| format!("make_filled_simdgroup_matrix<{ty}, 8, 8>({ty}({x}))");
        for i in 0..tiles.0 {
            for j in 0..tiles.1 {
                let (d, x) = (tile_of(&name, tiles, i, j), tile_of(&m, tiles, i, j));
                let text = match op {
                    ir::BinaryOperator::Add => format!(
                        "simdgroup_multiply_accumulate({d}, {x}, {}, {});",
                        diag("1"),
                        filled(&s)
                    ),
                    ir::BinaryOperator::Subtract => format!(
                        "simdgroup_multiply_accumulate({d}, {x}, {}, {});",
                        diag("1"),
                        filled(&format!("-{s}"))
                    ),
                    _ => format!("simdgroup_multiply({d}, {x}, {});", diag(&s)),
                };
                self.b.line(depth, &text);
            }
        }
        Ok(())
    }

    /// `r = coopMultiplyAdd(a, b, c)`: `simdgroup_multiply_accumulate` per tile of the result
    /// and 8-wide step of K (one for 8×8, two per tile of a 16×16 or 8×16 result).
    pub(crate) fn coop_multiply_add(
        &mut self,
        r: ValueId,
        [a, b, c]: [ValueId; 3],
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let (name, tiles) = self.declare_matrix(r, depth, span)?;
        let (ta, _) = self.coop_shape(self.b.ty(a), span)?;
        let (tb, _) = self.coop_shape(self.b.ty(b), span)?;
        let (a, b, c) = (self.val(a), self.val(b), self.val(c));
        // D(i,j) = A(i,0)·B(0,j) + C(i,j), then += A(i,k)·B(k,j) for each further k.
        for i in 0..tiles.0 {
            for j in 0..tiles.1 {
                let d = tile_of(&name, tiles, i, j);
                for k in 0..ta.1 {
                    let acc = if k == 0 { tile_of(&c, tiles, i, j) } else { d.clone() };
                    let (x, y) = (tile_of(&a, ta, i, k), tile_of(&b, tb, k, j));
                    self.b.line(
                        depth,
                        &format!("simdgroup_multiply_accumulate({d}, {x}, {y}, {acc});"),
                    );
                }
            }
        }
        Ok(())
    }
}

/// The 8×8 tiles of a grid with the element offset of each tile's first element: row-major
/// memory puts tile (i, j) at `8i·stride + 8j`, column-major at `8j·stride + 8i` (and is
/// loaded transposed).
fn coop_tiles(tiles: Grid, row_major: bool, stride: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for i in 0..tiles.0 {
        for j in 0..tiles.1 {
            let (major, minor) = if row_major { (i, j) } else { (j, i) };
            out.push((i, j, format!("({}u * {stride} + {}u)", 8 * major, 8 * minor)));
        }
    }
    out
}
