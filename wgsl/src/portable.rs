//! Cooperative matrices in plain WGSL ([`crate::MatrixSpelling::Portable`]), for executors
//! without them (lavapipe through naga).
//!
//! A matrix is an `array<S, rows * columns>` of its shader scalar, row-major (`i8`/`u8`
//! elements packed four to a `u32`, read out sign- or zero-extended to `i32`/`u32`:
//! [`portable_array`]), and every invocation holds the whole matrix. Each operation is an ordinary loop every invocation runs alike, so the result does
//! not depend on the subgroup size: a load reads every element, a store writes every element
//! (each invocation the same values, whole array components at a time), a product is the
//! triple loop. The operations keep the IR's semantics exactly as the reference interpreter
//! states them (`ir::Op::CoopMultiplyAdd`: float products summed in `f32` from zero in `k`
//! order, then the accumulator added and rounded once; integer sums wrapping; 8-bit results
//! and scalar operands clamped or wrapped to their range) and the bounds policy's `limit`
//! (`docs/bounds.md`): elements at or past it read zero and are not written.
//!
//! Memory is read in the array's own element type and the matrix elements are taken out of
//! its components' bits, so `i8` matrices load from `array<u32>` or `array<vec4<u32>>` as
//! Dawn's do. An element wider than the array's component, or a byte from an `f16` array, is
//! a diagnostic.

use crate::expr::{FnWriter, Res, TILE_NOT_IN_ARRAY};
use dianran_frontend::ir::{self, CoopElem, Op, Scalar, Type, TypeId, ValueId};
use dianran_frontend::ir::{Block, Function, Module};
use dianran_frontend::printer::operands::Operands;
use dianran_frontend::printer::syntax::Syntax;

/// Why portable WGSL cannot express a tile in an array of padded vectors.
const PADDED: &str = "a matrix tile in an array of padded vectors (`vec3`): portable WGSL \
                      cannot read or write the padding bytes the tile's addresses cover";

/// Whether array elements of type `elem`, `stride` bytes apart, leave bytes no WGSL access
/// reaches (`vec3`'s padding).
fn padded(types: &ir::Types, elem: TypeId, stride: u32) -> bool {
    match *types.get(elem) {
        Type::Vector { scalar, size } => u32::from(size) * scalar.size() != stride,
        _ => false,
    }
}

/// Why [`crate::Options::portable_matrices`] cannot print `m`, if it cannot: a matrix tile
/// loaded from or stored to an array of padded vectors (the tile's element addresses cover the
/// padding, which the IR's semantics read and write as bytes and WGSL cannot reach). Executors
/// that run the portable form skip such modules with this reason instead of failing.
pub fn portable_blocker(m: &Module) -> Option<String> {
    fn walk(m: &Module, f: &Function, b: &Block) -> bool {
        b.insts.iter().any(|i| {
            let ptr = match i.op {
                Op::CoopLoad { ptr, .. } | Op::CoopStore { ptr, .. } => Some(ptr),
                _ => None,
            };
            ptr.is_some_and(|p| tile_in_padded(m, f, p))
                || i.op.blocks().into_iter().any(|nb| walk(m, f, nb))
        })
    }
    m.functions.iter().any(|f| walk(m, f, &f.body)).then(|| PADDED.to_string())
}

/// Whether tile pointer `p` of `f` points into an array of padded vectors.
fn tile_in_padded(m: &Module, f: &Function, p: ValueId) -> bool {
    let mut base = None;
    find_def(&f.body, p, &mut base);
    let Some(base) = base else { return false };
    let Some(v) = f.values.get(base.index()) else { return false };
    let Type::Pointer { base: arr, .. } = *m.types.get(v.ty) else { return false };
    match *m.types.get(arr) {
        Type::Array { base: elem, stride, .. } => padded(&m.types, elem, stride),
        _ => false,
    }
}

/// The base of the access that defines `p`, if an access defines it.
fn find_def(b: &Block, p: ValueId, out: &mut Option<ValueId>) {
    for i in &b.insts {
        if i.result == Some(p) {
            if let Op::Access(base, _) | Op::AccessIndex(base, _) = i.op {
                *out = Some(base);
            }
            return;
        }
        for nb in i.op.blocks() {
            find_def(nb, p, out);
        }
    }
}

/// The plain WGSL type a matrix of `len` `elem`s is held in: its elements
/// row-major, each in its shader scalar, except 8-bit elements, which are packed four to a
/// `u32` (element `i` in bits `8 * (i % 4)` of word `i / 4`) so the arrays stay small:
/// lavapipe's compile time grows faster than linearly with a function's array sizes.
pub(crate) fn portable_array(elem: CoopElem, len: u32) -> String {
    match elem {
        CoopElem::I8 | CoopElem::U8 => format!("array<u32, {}>", len.div_ceil(4)),
        _ => format!("array<{}, {len}>", elem.scalar_name()),
    }
}

/// A matrix type's rows, columns and element.
#[derive(Clone, Copy)]
struct Mat {
    rows: u32,
    cols: u32,
    elem: CoopElem,
}

impl Mat {
    fn len(self) -> u32 {
        self.rows * self.cols
    }
    /// The WGSL name of the scalar the elements are held in.
    fn scalar(self) -> &'static str {
        self.elem.scalar_name()
    }
    /// Whether elements are bytes, held four to a `u32` word ([`portable_array`]).
    fn packed(self) -> bool {
        matches!(self.elem, CoopElem::I8 | CoopElem::U8)
    }
    /// Element `i` (a `u32` expression) of matrix variable `arr`, as its shader scalar.
    fn get(self, arr: &str, i: &str) -> String {
        match self.elem {
            CoopElem::I8 => {
                format!("extractBits(bitcast<i32>({arr}[({i}) / 4u]), ({i}) % 4u * 8u, 8u)")
            }
            CoopElem::U8 => format!("extractBits({arr}[({i}) / 4u], ({i}) % 4u * 8u, 8u)"),
            _ => format!("{arr}[{i}]"),
        }
    }
    /// The statement setting element `i` of matrix variable `arr` to `x`.
    fn set(self, arr: &str, i: &str, x: &str) -> String {
        if self.packed() {
            let w = format!("{arr}[({i}) / 4u]");
            format!("{w} = insertBits({w}, bitcast<u32>({x}), ({i}) % 4u * 8u, 8u);")
        } else {
            format!("{arr}[{i}] = {x};")
        }
    }
    /// `x` (of the element's shader scalar) clamped to an 8-bit element's range.
    fn clamp(self, x: &str) -> String {
        match self.elem {
            CoopElem::I8 => format!("clamp({x}, -128i, 127i)"),
            CoopElem::U8 => format!("min({x}, 255u)"),
            _ => x.to_string(),
        }
    }
    /// `x` wrapped to an 8-bit element's width.
    fn wrap(self, x: &str) -> String {
        match self.elem {
            CoopElem::I8 => format!("extractBits({x}, 0u, 8u)"),
            CoopElem::U8 => format!("({x} & 255u)"),
            _ => x.to_string(),
        }
    }
}

/// The names and bounds of a load's or store's loop ([`FnWriter::open_tile_loop`]).
struct TileLoop<'a> {
    i: &'a str,
    count: u32,
    hi: &'a str,
    lo: &'a str,
    per: u32,
    b: &'a str,
    offset: String,
}

/// Where a tile lies: an array, the index of the tile's first element in it, and the
/// array element's layout.
struct Place {
    /// The array, as a place (`buf.data`).
    array: String,
    /// The index of the tile's first element (a `u32` expression).
    first: String,
    /// The array element's scalar (the component type of a vector).
    comp: Scalar,
    /// Whether the array element is a vector (components are indexed).
    vector: bool,
    /// Bytes between array elements.
    elem_bytes: u32,
}

impl FnWriter<'_> {
    fn mat(&self, t: TypeId, span: ir::Span) -> Res<Mat> {
        match *self.w.m.types.get(t) {
            Type::CoopMatrix { columns, rows, elem, .. } => {
                Ok(Mat { rows: u32::from(rows), cols: u32::from(columns), elem })
            }
            _ => Err(self.unsupported("a matrix operation on a value that is not a matrix", span)),
        }
    }

    /// A fresh name for a helper variable.
    fn temp(&mut self, hint: &str) -> String {
        self.b.namer.name(hint)
    }

    /// Matrix value `v` in memory, as a `var`'s name: naga indexes arrays dynamically only in
    /// memory. A value already in its own `var` is used in place; others are copied.
    fn in_memory(&mut self, v: ValueId, depth: usize) -> String {
        let src = self.val(v);
        if self.matrix_vars.contains(&v) {
            return src;
        }
        let name = self.temp("m");
        self.b.line(depth, &format!("var {name} = {src};"));
        name
    }

    /// Declares `r`'s variable (zero-initialized) and returns its name and matrix.
    fn declare(&mut self, r: ValueId, depth: usize, span: ir::Span) -> Res<(String, Mat)> {
        let m = self.mat(self.b.ty(r), span)?;
        let name = self.b.new_name(r);
        let ty = portable_array(m.elem, m.len());
        let text = format!("var {name}: {ty};");
        self.b.line(depth, &text);
        self.matrix_vars.insert(r);
        Ok((name, m))
    }

    fn place_of(&self, ptr: ValueId, span: ir::Span) -> Res<Place> {
        let types = &self.w.m.types;
        let bad = |what: &str| self.unsupported(what, span);
        let Some((base, array, first)) = self.tile_start(ptr) else {
            return Err(bad(TILE_NOT_IN_ARRAY));
        };
        let Type::Array { base: elem, stride, .. } = types.get(array) else {
            return Err(bad(TILE_NOT_IN_ARRAY));
        };
        let (comp, lanes) = match *types.get(*elem) {
            Type::Scalar(s) => (s, 1),
            Type::Vector { scalar, size } => (scalar, u32::from(size)),
            _ => return Err(bad("a matrix tile in an array of neither scalars nor vectors")),
        };
        if padded(types, *elem, *stride) {
            return Err(bad(PADDED));
        }
        Ok(Place { array: self.place(base), first, comp, vector: lanes > 1, elem_bytes: *stride })
    }

    /// The component holding byte `b` (a `u32` expression, counted from the tile's start),
    /// as a place.
    fn component(&self, p: &Place, b: &str) -> String {
        let (xs, cs) = (p.elem_bytes, p.comp.size());
        let elem = format!("{}[{} + {b} / {xs}u]", p.array, p.first);
        if p.vector {
            format!("{elem}[({b} % {xs}u) / {cs}u]")
        } else {
            elem
        }
    }

    /// Checks that elements of `m` can be taken from components of `p`.
    fn check_fits(&self, m: Mat, p: &Place, span: ir::Span) -> Res<()> {
        let (es, cs) = (m.elem.size(), p.comp.size());
        if es > cs || (es == 1 && cs == 2) {
            return Err(self.unsupported(
                format!(
                    "in portable WGSL, a {} matrix in an array of {}",
                    m.elem.name(),
                    p.comp.wgsl_name()
                )
                .as_str(),
                span,
            ));
        }
        Ok(())
    }

    /// The element of `m` at byte `sub` (a `u32` expression) of component `w`.
    fn element_of(&self, m: Mat, comp: Scalar, w: &str, sub: &str) -> String {
        let s = m.scalar();
        match (m.elem.size(), comp.size()) {
            (es, cs) if es == cs && comp.wgsl_name() == s => w.to_string(),
            (es, cs) if es == cs => format!("bitcast<{s}>({w})"),
            // `w` holds the word's halves as `vec2<f32>` ([`FnWriter::portable_load`]).
            (2, _) => format!("f16({w}[{sub} / 2u])"),
            _ => format!("extractBits(bitcast<{s}>({w}), {sub} * 8u, 8u)"),
        }
    }

    /// Opens the loop of a load or store: `walk.i` counts to `walk.count`, split into
    /// `walk.hi` and `walk.lo` (`walk.per` to one `hi`), and `walk.b` is the byte offset
    /// from the tile's start; with a `limit`, the body is guarded by it (counted in array
    /// elements of `xs` bytes). Returns the body's depth.
    fn open_tile_loop(
        &mut self,
        depth: usize,
        walk: &TileLoop<'_>,
        limit: Option<&str>,
        xs: u32,
    ) -> usize {
        let TileLoop { i, count, hi, lo, per, b, offset } = walk;
        let d = depth + 1;
        self.b.line(depth, &format!("for (var {i} = 0u; {i} < {count}u; {i} = {i} + 1u) {{"));
        self.b.line(d, &format!("let {hi} = {i} / {per}u;"));
        self.b.line(d, &format!("let {lo} = {i} % {per}u;"));
        self.b.line(d, &format!("let {b} = {offset};"));
        match limit {
            Some(l) => {
                self.b.line(d, &format!("if {b} / {xs}u < {l} {{"));
                d + 1
            }
            None => d,
        }
    }

    /// Closes what [`FnWriter::open_tile_loop`] opened at `depth`, from body depth `d`.
    fn close_tile_loop(&mut self, d: usize, depth: usize) {
        for level in (depth..d).rev() {
            self.b.line(level, "}");
        }
    }

    /// `r = load(ptr, stride)`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn portable_load(
        &mut self,
        r: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        limit: Option<ValueId>,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let p = self.place_of(ptr, span)?;
        let (name, m) = self.declare(r, depth, span)?;
        self.check_fits(m, &p, span)?;
        let stride = self.u32_operand(stride);
        let limit = limit.map(|l| self.u32_operand(l));
        let [e, row, col, b, w] = ["e", "row", "col", "b", "w"].map(|h| self.temp(h));
        let (len, cols, es, xs) = (m.len(), m.cols, m.elem.size(), p.elem_bytes);
        let (major, minor) = if row_major { (&row, &col) } else { (&col, &row) };
        let offset = format!("{major} * ({stride} * {xs}u) + {minor} * {es}u");
        let walk = TileLoop { i: &e, count: len, hi: &row, lo: &col, per: cols, b: &b, offset };
        let d = self.open_tile_loop(depth, &walk, limit.as_deref(), xs);
        let cs = p.comp.size();
        let comp = self.component(&p, &b);
        if m.elem.size() == 2 && cs == 4 {
            // naga mistypes `bitcast<vec2<f16>>`; the halves are exact in f32.
            self.b.line(d, &format!("let {w} = unpack2x16float(bitcast<u32>({comp}));"));
        } else {
            self.b.line(d, &format!("let {w} = {comp};"));
        }
        let sub = format!("{b} % {cs}u");
        let value = self.element_of(m, p.comp, &w, &sub);
        self.b.line(d, &m.set(&name, &e, &value));
        self.close_tile_loop(d, depth);
        Ok(())
    }

    /// `store(value, ptr, stride)`: whole components at a time, so invocations writing the
    /// same matrix never interleave partial updates of one word.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn portable_store(
        &mut self,
        value: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
        limit: Option<ValueId>,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let p = self.place_of(ptr, span)?;
        let m = self.mat(self.b.ty(value), span)?;
        self.check_fits(m, &p, span)?;
        let src = self.in_memory(value, depth);
        let stride = self.u32_operand(stride);
        let limit = limit.map(|l| self.u32_operand(l));
        let (es, cs, xs) = (m.elem.size(), p.comp.size(), p.elem_bytes);
        let per = cs / es;
        let (majors, minors) = if row_major { (m.rows, m.cols) } else { (m.cols, m.rows) };
        // Rows (columns) hold whole components: 8-bit matrices have 8 or more columns.
        let comps = minors * es / cs;
        let [q, j, k, b] = ["q", "j", "k", "b"].map(|h| self.temp(h));
        let offset = format!("{j} * ({stride} * {xs}u) + {k} * {cs}u");
        let count = majors * comps;
        let walk = TileLoop { i: &q, count, hi: &j, lo: &k, per: comps, b: &b, offset };
        let d = self.open_tile_loop(depth, &walk, limit.as_deref(), xs);
        let element = |t: u32| {
            let minor = format!("({k} * {per}u + {t}u)");
            let (row, col) = if row_major { (j.clone(), minor) } else { (minor, j.clone()) };
            m.get(&src, &format!("{row} * {}u + {col}", m.cols))
        };
        let c = p.comp.wgsl_name();
        let bits = match (es, cs) {
            (es, cs) if es == cs && m.scalar() == c => element(0),
            (es, cs) if es == cs => format!("bitcast<{c}>({})", element(0)),
            // f16 values are exact in f32, so packing them rounds nothing.
            (2, _) => format!(
                "bitcast<{c}>(pack2x16float(vec2<f32>(f32({}), f32({}))))",
                element(0),
                element(1)
            ),
            _ => {
                let bytes: Vec<String> = (0..per)
                    .map(|t| {
                        let byte = format!("(bitcast<u32>({}) & 255u)", element(t));
                        if t == 0 {
                            byte
                        } else {
                            format!("({byte} << {}u)", 8 * t)
                        }
                    })
                    .collect();
                format!("bitcast<{c}>({})", bytes.join(" | "))
            }
        };
        self.b.line(d, &format!("{} = {bits};", self.component(&p, &b)));
        self.close_tile_loop(d, depth);
        Ok(())
    }

    /// `r = a * b + c`, in the interpreter's order.
    pub(crate) fn portable_multiply_add(
        &mut self,
        r: ValueId,
        [a, b, c]: [ValueId; 3],
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let ma = self.mat(self.b.ty(a), span)?;
        let [va, vb, vc] = [a, b, c].map(|v| self.in_memory(v, depth));
        let (name, mc) = self.declare(r, depth, span)?;
        let [e, row, col, acc, k] = ["e", "row", "col", "acc", "k"].map(|h| self.temp(h));
        let (len, n, kk) = (mc.len(), mc.cols, ma.cols);
        let float = mc.elem.is_float();
        let s = mc.scalar();
        let (acc_ty, zero) =
            if float { ("f32", "0.0f") } else { (s, if s == "i32" { "0i" } else { "0u" }) };
        let cast = |x: String| format!("{acc_ty}({x})");
        let d = depth + 1;
        self.b.line(depth, &format!("for (var {e} = 0u; {e} < {len}u; {e} = {e} + 1u) {{"));
        self.b.line(d, &format!("let {row} = {e} / {n}u;"));
        self.b.line(d, &format!("let {col} = {e} % {n}u;"));
        self.b.line(d, &format!("var {acc}: {acc_ty} = {zero};"));
        self.b.line(d, &format!("for (var {k} = 0u; {k} < {kk}u; {k} = {k} + 1u) {{"));
        let mb = self.mat(self.b.ty(b), span)?;
        let x = cast(ma.get(&va, &format!("{row} * {kk}u + {k}")));
        let y = cast(mb.get(&vb, &format!("{k} * {n}u + {col}")));
        self.b.line(d + 1, &format!("{acc} = {acc} + {x} * {y};"));
        self.b.line(d, "}");
        let sum = format!("{acc} + {}", cast(mc.get(&vc, &e)));
        let result = if float { format!("{s}({sum})") } else { mc.wrap(&format!("({sum})")) };
        self.b.line(d, &mc.set(&name, &e, &result));
        self.b.line(depth, "}");
        Ok(())
    }

    /// `r` = every element `x`.
    pub(crate) fn portable_fill(
        &mut self,
        r: ValueId,
        x: ValueId,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let x = self.val(x);
        let (name, m) = self.declare(r, depth, span)?;
        let e = self.temp("e");
        let value = m.clamp(&x);
        let len = m.len();
        self.b.line(depth, &format!("for (var {e} = 0u; {e} < {len}u; {e} = {e} + 1u) {{"));
        self.b.line(depth + 1, &m.set(&name, &e, &value));
        self.b.line(depth, "}");
        Ok(())
    }

    /// `r` = `op` applied to every element of `matrix` and `scalar`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn portable_scalar(
        &mut self,
        r: ValueId,
        op: naga::BinaryOperator,
        matrix: ValueId,
        scalar: ValueId,
        depth: usize,
        span: ir::Span,
    ) -> Res<()> {
        let sym = match op {
            naga::BinaryOperator::Add => "+",
            naga::BinaryOperator::Subtract => "-",
            naga::BinaryOperator::Multiply => "*",
            _ => return Err(self.unsupported(&format!("a matrix-scalar {op:?}"), span)),
        };
        let (src, x) = (self.val(matrix), self.val(scalar));
        let m = self.mat(self.b.ty(r), span)?;
        let name = self.b.new_name(r);
        self.b.line(depth, &format!("var {name} = {src};"));
        self.matrix_vars.insert(r);
        let [e, s] = ["e", "s"].map(|h| self.temp(h));
        self.b.line(depth, &format!("let {s} = {};", m.clamp(&x)));
        let len = m.len();
        self.b.line(depth, &format!("for (var {e} = 0u; {e} < {len}u; {e} = {e} + 1u) {{"));
        let value = m.wrap(&format!("({} {sym} {s})", m.get(&name, &e)));
        self.b.line(depth + 1, &m.set(&name, &e, &value));
        self.b.line(depth, "}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(src: &str) -> Module {
        match dianran_frontend::compile("t.wgsl", src, &Default::default()) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render()),
        }
    }

    /// A module copying an 8x8 `m` tile from `v: array<elem, 64>` (rows `stride` elements
    /// apart) to an `out: array<out>` (rows 8 `out`s apart, or 2 for bytes in words).
    fn copy_kernel(m: &str, elem: &str, stride: u32, out: &str) -> Module {
        let out_stride = if m == "i8" { 2 } else { 8 };
        compile(&format!(
            "enable chromium_experimental_subgroup_matrix;\n\
             @group(0) @binding(0) var<storage, read_write> out: array<{out}>;\n\
             @group(0) @binding(1) var<storage> v: array<{elem}, 64>;\n\
             @compute @workgroup_size(32) fn main() {{\n\
             let m = subgroupMatrixLoad<subgroup_matrix_left<{m}, 8, 8>, row_major>(&v, 0, {stride});\n\
             subgroupMatrixStore<row_major>(&out, 0, m, {out_stride});\n}}\n"
        ))
    }

    #[test]
    fn byte_matrices_are_packed_four_to_a_word() {
        let m = copy_kernel("i8", "u32", 2, "u32");
        let opts = crate::Options { portable_matrices: true, ..Default::default() };
        let text = crate::write_module(&m, &opts).unwrap_or_else(|d| panic!("{d:?}"));
        assert!(text.contains("var m: array<u32, 16>;"), "{text}");
        assert!(text.contains("insertBits(m[(e) / 4u]"), "{text}");
        // Stored straight from the loaded variable, not from a copy.
        assert!(!text.contains("var m_1 = m;"), "{text}");
    }

    #[test]
    fn tiles_over_vec3_padding_are_named_and_refused() {
        let m = copy_kernel("f32", "vec3f", 8, "f32");
        assert_eq!(portable_blocker(&m).as_deref(), Some(PADDED));
        let opts = crate::Options { portable_matrices: true, ..Default::default() };
        assert!(crate::write_module(&m, &opts).is_err());
    }

    #[test]
    fn tiles_in_scalar_and_vec4_arrays_print() {
        let m = copy_kernel("f32", "vec4f", 2, "f32");
        assert_eq!(portable_blocker(&m), None);
        let opts = crate::Options { portable_matrices: true, ..Default::default() };
        let text = crate::write_module(&m, &opts).unwrap_or_else(|d| panic!("{d:?}"));
        assert!(text.contains("array<f32, 64>"), "{text}");
        assert!(!text.contains("subgroup_matrix"), "{text}");
    }
}
