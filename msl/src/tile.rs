//! Workgroup matrices (`docs/workgroup-matrix.md`) on Metal 4's tensor operations.
//!
//! The frontend lowers every workgroup-matrix call to a helper function whose body is the
//! portable form, and records what each helper stands for (`ir::Module::tiles`). By default
//! this printer replaces those bodies with Metal 4 code (Metal Performance Primitives'
//! `matmul2d`, run by the four simdgroups of the 128-thread threadgroup together):
//!
//! * the tile type `_dr_wgm_tile` becomes the operation's destination cooperative tensor
//!   (`float`), which each thread holds its share of; the module declares the operation
//!   (`_dr_wgm_op`) and its operand tensor types (`_dr_wgm_left`, `_dr_wgm_right`) once;
//! * a product builds `tensor_inline` views of the two operands (offset and stride as the call
//!   gives them; `transpose_left`/`transpose_right` from the majorness) and runs the operation
//!   into the accumulator when every operand element lies inside its array; otherwise (the
//!   bounds policy of `docs/bounds.md`) each valid element of the accumulator is computed in
//!   the reference order, reading under the policy;
//! * fills, loads and stores walk the thread's valid elements through
//!   `get_multidimensional_index` (`[0]` the column, `[1]` the row), honour the (columns,
//!   rows) bound and the bounds policy element by element, and convert `half` exactly.
//!
//! The destination type depends on the descriptor and the operand types, so a module has one
//! product configuration (K, majorness, element types and address spaces of both operands);
//! a second one is a diagnostic that points to `--no-metal4`.
//!
//! With `--no-metal4` ([`crate::Options::no_metal4`]) the tile is built from Metal 3's
//! `simdgroup_matrix` 8 × 8 pieces instead ([`simdgroup_body`]), for GPUs without Metal 4:
//! simdgroup `s` (`local_invocation_index / 32`; Apple GPUs run simdgroups of 32 consecutive
//! threads) holds rows `16s .. 16s + 15` as 2 × 8 `simdgroup_float8x8`s, `m[8i + j]` being
//! rows `16s + 8i ..`, columns `8j ..`. A product loads 8 × 8 operand pieces with
//! `simdgroup_load` (transposed for the other majorness) and runs
//! `simdgroup_multiply_accumulate` per 8-deep step; loads, stores and products whose operands
//! are not all inside their arrays go through the simdgroup's staging slot in threadgroup
//! memory (`_coop_stage`, as cooperative matrices do), element by element under the bounds
//! policy.

use crate::module::Writer;
use dianran_frontend::ir::{self, AddressSpace, FuncId, Scalar, TileArray, TileOp, Type, TypeId};
use dianran_frontend::names::escape;
use std::fmt::Write;

/// The includes Metal 4's tensor operations need, and the host's side of the contract.
pub(crate) const HEADER: &str = "#include <metal_tensor>\n#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n// Metal 4: compile as MSL 4.0 (MTLLanguageVersion4_0) for a device in MTLGPUFamilyMetal4\n// (Apple10: M5, A19); dispatch threadgroups of threadExecutionWidth x 4 = 128 threads.\n";

/// The one product configuration of a module printed on Metal 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Product {
    k: u32,
    left: Operand,
    right: Operand,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Operand {
    row_major: bool,
    elem: Scalar,
    workgroup: bool,
}

impl Operand {
    fn of(m: &ir::Module, a: &TileArray, row_major: bool) -> Operand {
        let workgroup =
            m.globals.get(a.global.index()).map(|g| g.space) == Some(AddressSpace::Workgroup);
        Operand { row_major, elem: a.elem, workgroup }
    }

    fn tensor_type(&self) -> String {
        let space = if self.workgroup { "threadgroup" } else { "device" };
        let elem = if self.elem == Scalar::F16 { "half" } else { "float" };
        format!("metal::tensor<{space} {elem}, metal::dextents<int32_t, 2>, metal::tensor_inline>")
    }
}

/// How workgroup matrices print.
#[derive(Clone, Debug)]
pub(crate) enum Form {
    /// Metal 4's `matmul2d` with the module's one product configuration.
    Metal4(Product),
    /// `simdgroup_matrix` 8 × 8 pieces (`--no-metal4`).
    Simdgroup,
}

/// How a module's workgroup matrices print.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The tile type (`_dr_wgm_tile`).
    pub ty: TypeId,
    /// The form, or why Metal 4 fits no configuration that serves every call.
    pub product: Result<Form, String>,
}

/// The plan of `m`, when it has workgroup matrices: Metal 4 unless `no_metal4`.
pub(crate) fn plan(m: &ir::Module, no_metal4: bool) -> Option<Plan> {
    let ty = m.tiles.iter().find_map(|t| m.functions.get(t.function.index())?.result.as_ref())?.ty;
    if no_metal4 {
        return Some(Plan { ty, product: Ok(Form::Simdgroup) });
    }
    let mut product: Option<Product> = None;
    for t in m.tiles.iter().filter(|t| t.op == TileOp::MultiplyAccumulate) {
        let (Some(a), Some(b), Some(&ra), Some(&rb)) =
            (t.arrays.first(), t.arrays.get(1), t.row_major.first(), t.row_major.get(1))
        else {
            continue;
        };
        let p = Product { k: t.k, left: Operand::of(m, a, ra), right: Operand::of(m, b, rb) };
        match &product {
            None => product = Some(p),
            Some(q) if *q == p => {}
            Some(q) => {
                return Some(Plan {
                    ty,
                    product: Err(format!(
                        "as the accumulator's type depends on the operation; this one has {} \
                         and {}",
                        describe(q),
                        describe(&p)
                    )),
                })
            }
        }
    }
    // Without a product any configuration types the accumulator: f16 x f16 in threadgroup
    // memory, K = 16.
    let h = Operand { row_major: true, elem: Scalar::F16, workgroup: true };
    let product = product.unwrap_or(Product { k: 16, left: h.clone(), right: h });
    Some(Plan { ty, product: Ok(Form::Metal4(product)) })
}

fn describe(p: &Product) -> String {
    let side = |o: &Operand| {
        format!(
            "{} {} {}",
            if o.row_major { "row-major" } else { "column-major" },
            if o.elem == Scalar::F16 { "f16" } else { "f32" },
            if o.workgroup { "workgroup" } else { "storage" }
        )
    };
    format!("K = {}, {} x {}", p.k, side(&p.left), side(&p.right))
}

/// The declarations that replace the portable tile struct: the operation, the operand types,
/// the tile type and `_dr_wgm_splat` (a tile with every element `v`).
pub(crate) fn declarations(p: &Product, fast_math: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Workgroup matrices on Metal 4 (docs/workgroup-matrix.md): one 64 x 64 float \
         accumulator per\n// threadgroup of 4 simdgroups (128 threads)."
    );
    let _ = writeln!(
        out,
        "using _dr_wgm_op = mpp::tensor_ops::matmul2d<mpp::tensor_ops::matmul2d_descriptor(64, \
         64, {}, {}, {}, {}, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate), \
         metal::execution_simdgroups<4>>;",
        p.k, !p.left.row_major, !p.right.row_major, fast_math
    );
    let _ = writeln!(out, "using _dr_wgm_left = {};", p.left.tensor_type());
    let _ = writeln!(out, "using _dr_wgm_right = {};", p.right.tensor_type());
    out.push_str(
        "using _dr_wgm_tile = _dr_wgm_op::cooperative_tensor_destination_t<_dr_wgm_left, \
         _dr_wgm_right, float>;\n\n",
    );
    out.push_str(
        "_dr_wgm_tile _dr_wgm_splat(float v) {\n    _dr_wgm_op op;\n    _dr_wgm_tile t = \
         op.get_destination_cooperative_tensor<_dr_wgm_left, _dr_wgm_right, float>();\n",
    );
    out.push_str(&each_element("t", "        t[_dr_wgm_i] = v;\n"));
    out.push_str("    return t;\n}\n\n");
    out
}

/// A loop over the thread's valid elements of cooperative tensor `t`, with `c` and `r` the
/// element's column and row, running `body` (indented by 8).
fn each_element(t: &str, body: &str) -> String {
    format!(
        "    for (uint16_t _dr_wgm_i = 0; _dr_wgm_i < {t}.get_capacity(); ++_dr_wgm_i) {{\n        if (!{t}.is_valid_element(_dr_wgm_i)) {{\n            continue;\n        }}\n        const auto _dr_wgm_ix = {t}.get_multidimensional_index(_dr_wgm_i);\n        const uint _dr_wgm_c = uint(_dr_wgm_ix[0]);\n        const uint _dr_wgm_r = uint(_dr_wgm_ix[1]);\n        (void)_dr_wgm_c;\n        (void)_dr_wgm_r;\n{body}    }}\n"
    )
}

/// One array argument of a helper as MSL: how to name an element, how many elements the
/// array has, and the bounds policy that applies to it.
struct ArrayAccess {
    /// The array as an lvalue (`c`, `buf.member`), indexable with `[i]`.
    place: String,
    /// The element type's MSL name.
    elem: &'static str,
    /// The element count as an expression (`None`: bounds checks are off).
    len: Option<String>,
    /// Out-of-range indices clamp to the last element (function, private and workgroup
    /// memory) rather than reading zero / dropping the store (buffers).
    clamps: bool,
    /// A read-only buffer (its pointer is `const device`).
    read_only: bool,
}

impl ArrayAccess {
    fn new(w: &Writer<'_>, func: FuncId, a: &TileArray) -> Result<ArrayAccess, String> {
        let g = w.m.globals.get(a.global.index()).ok_or("an unknown array")?;
        let mut place = w.names.globals.get(a.global.index()).cloned().ok_or("an unnamed array")?;
        let mut ty = g.ty;
        let mut offset = 0u32;
        for &k in &a.members {
            let Type::Struct { members, .. } = w.m.types.get(ty) else {
                return Err("a member path through a non-struct".into());
            };
            let mem = members.get(k as usize).ok_or("a missing member")?;
            let _ = write!(place, ".{}", escape(&mem.name));
            offset += mem.offset;
            ty = mem.ty;
        }
        let Type::Array { len, stride, .. } = w.m.types.get(ty) else {
            return Err("an array argument that is not an array".into());
        };
        let elem = if a.elem == Scalar::F16 { "half" } else { "float" };
        let clamps = !matches!(g.space, AddressSpace::Storage { .. } | AddressSpace::Uniform);
        let len = match (w.m.bounds_checked, len) {
            (false, _) => None,
            (true, Some(n)) => Some(format!("{n}u")),
            (true, None) => {
                if !w.uses_sizes.get(func.index()).copied().unwrap_or(false) {
                    return Err("a runtime-sized array without the sizes buffer".into());
                }
                let (idx, _) = w
                    .metal_index(a.global)
                    .map_err(|d| d.message)?
                    .ok_or("a runtime-sized array without a binding")?;
                Some(crate::module::buffer_elements(idx, offset, *stride))
            }
        };
        let read_only = g.space == AddressSpace::Storage { writable: false };
        Ok(ArrayAccess { place, elem, len, clamps, read_only })
    }

    /// The element at index `at` (an expression) as `float`, read under the bounds policy.
    fn read(&self, at: &str) -> String {
        match (&self.len, self.clamps) {
            (None, _) => format!("float({}[{at}])", self.place),
            (Some(n), true) => format!("float({}[min({at}, {n} - 1u)])", self.place),
            (Some(n), false) => {
                format!("(({at}) < {n} ? float({}[{at}]) : 0.0f)", self.place)
            }
        }
    }

    /// A statement storing `value` (a `float`) at index `at` under the bounds policy.
    fn write(&self, at: &str, value: &str) -> String {
        let v = format!("{}({value})", self.elem);
        match (&self.len, self.clamps) {
            (None, _) => format!("{}[{at}] = {v};", self.place),
            (Some(n), true) => format!("{}[min({at}, {n} - 1u)] = {v};", self.place),
            (Some(n), false) => format!("if (({at}) < {n}) {{ {}[{at}] = {v}; }}", self.place),
        }
    }

    /// A pointer to the element at index `at`, without `const` (tensors take mutable
    /// pointers; the operation only reads its operands).
    fn pointer(&self, at: &str) -> String {
        let p = format!("&{}[{at}]", self.place);
        if self.read_only {
            format!("const_cast<device {}*>({p})", self.elem)
        } else {
            p
        }
    }
}

/// The index of element (`row`, `col`) of a tile stored at `off` with `stride`.
fn index(row_major: bool, off: &str, stride: &str, row: &str, col: &str) -> String {
    if row_major {
        format!("{off} + {row} * {stride} + {col}")
    } else {
        format!("{off} + {col} * {stride} + {row}")
    }
}

/// A helper's parameters and arrays, as both forms read them.
struct Call<'h> {
    h: &'h ir::TileHelper,
    params: &'h [String],
    arrays: Vec<ArrayAccess>,
}

impl Call<'_> {
    /// Parameter `i`'s name.
    fn arg(&self, i: usize) -> Result<String, String> {
        self.params.get(i).cloned().ok_or_else(|| "a helper with too few parameters".into())
    }

    /// Whether array `i`'s tile is row-major.
    fn major(&self, i: usize) -> bool {
        self.h.row_major.get(i).copied().unwrap_or(true)
    }

    /// A product's two arrays.
    fn operands(&self) -> Result<(&ArrayAccess, &ArrayAccess), String> {
        match (self.arrays.first(), self.arrays.get(1)) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err("a product without two arrays".into()),
        }
    }

    /// The tests (joined with `&&`, uniform over the workgroup) that every element of a
    /// product's operands lies inside its array, computed in 64 bits so no index wraps:
    /// `offset + last < length`, `last` the offset of the operand's last element from its
    /// first. Empty when bounds checks are off.
    fn operands_inside(&self, k: u32, [ao, as_, bo, bs]: [&str; 4]) -> Result<Vec<String>, String> {
        let (a, b) = self.operands()?;
        // A is 64 x K, B is K x 64; the major dimension's last index times the stride.
        let last = |row_major: bool, major: u32, minor: u32, stride: &str| {
            if row_major {
                format!("{}ul * ulong({stride}) + {}ul", major - 1, minor - 1)
            } else {
                format!("{}ul * ulong({stride}) + {}ul", minor - 1, major - 1)
            }
        };
        let a_last = last(self.major(0), 64, k, as_);
        let b_last = last(self.major(1), k, 64, bs);
        Ok([(a, ao, a_last), (b, bo, b_last)]
            .iter()
            .filter_map(|(arr, off, last)| {
                arr.len.as_ref().map(|n| format!("ulong({off}) + {last} < ulong({n})"))
            })
            .collect())
    }
}

/// The body (from `{` on) of tile helper `h` in `form`, its parameters named `params`.
pub(crate) fn helper_body(
    w: &Writer<'_>,
    form: &Form,
    h: &ir::TileHelper,
    params: &[String],
) -> Result<String, String> {
    let arrays: Vec<ArrayAccess> =
        h.arrays.iter().map(|a| ArrayAccess::new(w, h.function, a)).collect::<Result<_, _>>()?;
    let call = Call { h, params, arrays };
    match form {
        Form::Metal4(p) => metal4_body(p, &call),
        Form::Simdgroup => simdgroup_body(&call),
    }
}

/// The Metal 4 body (from `{` on) of a helper.
fn metal4_body(p: &Product, c: &Call<'_>) -> Result<String, String> {
    let (h, arrays) = (c.h, &c.arrays);
    let arg = |i: usize| c.arg(i);
    let major = |i: usize| c.major(i);
    let mut out = String::from(" {\n");
    match h.op {
        TileOp::Fill => {
            let _ = writeln!(out, "    return _dr_wgm_splat({});", arg(0)?);
        }
        TileOp::Load => {
            let (off, stride, cols, rows) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?);
            let a = arrays.first().ok_or("a load without an array")?;
            let at = index(major(0), &off, &stride, "_dr_wgm_r", "_dr_wgm_c");
            out.push_str("    _dr_wgm_tile _dr_wgm_res = _dr_wgm_splat(0.0f);\n");
            out.push_str(&each_element(
                "_dr_wgm_res",
                &format!(
                    "        if (_dr_wgm_c < {cols} && _dr_wgm_r < {rows}) {{\n            _dr_wgm_res[_dr_wgm_i] = {};\n        }}\n",
                    a.read(&format!("({at})"))
                ),
            ));
            out.push_str("    return _dr_wgm_res;\n");
        }
        TileOp::Store => {
            let (off, tile, stride, cols, rows) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?, arg(4)?);
            let a = arrays.first().ok_or("a store without an array")?;
            let at = index(major(0), &off, &stride, "_dr_wgm_r", "_dr_wgm_c");
            out.push_str(&each_element(
                &tile,
                &format!(
                    "        if (_dr_wgm_c < {cols} && _dr_wgm_r < {rows}) {{\n            const uint _dr_wgm_at = {at};\n            {}\n        }}\n",
                    a.write("_dr_wgm_at", &format!("{tile}[_dr_wgm_i]"))
                ),
            ));
        }
        TileOp::MultiplyAccumulate => {
            let (ao, as_, bo, bs, acc) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?, arg(4)?);
            let (a, b) = c.operands()?;
            let k = p.k;
            // Extents: dimension 0 is the contiguous one. A is 64 x K (rows outer when
            // row-major), B is K x 64 (columns contiguous when row-major).
            let a_ext = if p.left.row_major { format!("{k}, 64") } else { format!("64, {k}") };
            let b_ext = if p.right.row_major { format!("64, {k}") } else { format!("{k}, 64") };
            let inside = c.operands_inside(k, [&ao, &as_, &bo, &bs])?;
            let run = format!(
                "_dr_wgm_left _dr_wgm_a({}, metal::dextents<int32_t, 2>({a_ext}), metal::array<int32_t, 2>{{1, int32_t({as_})}});\n        _dr_wgm_right _dr_wgm_b({}, metal::dextents<int32_t, 2>({b_ext}), metal::array<int32_t, 2>{{1, int32_t({bs})}});\n        _dr_wgm_op _dr_wgm_mm;\n        _dr_wgm_mm.run(_dr_wgm_a, _dr_wgm_b, {acc});\n        return {acc};\n",
                a.pointer(&ao),
                b.pointer(&bo)
            );
            if inside.is_empty() {
                let _ = write!(out, "    {{\n        {run}    }}\n");
                out.push_str("}\n");
                return Ok(out);
            }
            let _ = write!(
                out,
                "    // Every operand element inside its array: the tensor operation.\n    if ({}) {{\n        {run}    }}\n",
                inside.join(" && ")
            );
            out.push_str(
                "    // Otherwise the reference order, each operand element read under the bounds policy.\n",
            );
            let ai = index(p.left.row_major, &ao, &as_, "_dr_wgm_r", "_dr_wgm_k");
            let bi = index(p.right.row_major, &bo, &bs, "_dr_wgm_k", "_dr_wgm_c");
            out.push_str(&each_element(
                &acc,
                &format!(
                    "        float _dr_wgm_s = {acc}[_dr_wgm_i];\n        for (uint _dr_wgm_k = 0u; _dr_wgm_k < {k}u; ++_dr_wgm_k) {{\n            _dr_wgm_s = fma({}, {}, _dr_wgm_s);\n        }}\n        {acc}[_dr_wgm_i] = _dr_wgm_s;\n",
                    a.read(&format!("({ai})")),
                    b.read(&format!("({bi})"))
                ),
            ));
            let _ = writeln!(out, "    return {acc};");
        }
    }
    out.push_str("}\n");
    Ok(out)
}

/// The declarations of the `simdgroup_matrix` form: the tile struct and `_dr_wgm_splat`.
pub(crate) fn simdgroup_declarations() -> String {
    "// Workgroup matrices on simdgroup matrices (docs/workgroup-matrix.md): simdgroup s holds rows\n\
     // 16s .. 16s + 15 of the 64 x 64 accumulator, m[8i + j] being rows 16s + 8i.., columns 8j...\n\
     struct _dr_wgm_tile {\n    simdgroup_float8x8 m[16];\n};\n\n\
     _dr_wgm_tile _dr_wgm_splat(float v) {\n    _dr_wgm_tile t;\n    \
     for (uint i = 0u; i < 16u; ++i) {\n        \
     t.m[i] = make_filled_simdgroup_matrix<float, 8, 8>(v);\n    }\n    return t;\n}\n\n"
        .to_string()
}

/// A loop over the 8 × 8 piece `piece` (an expression), each lane taking elements
/// `_coop_lane` and `_coop_lane + 32` (row `_dr_wgm_e / 8`, column `_dr_wgm_e % 8`), with
/// the piece's first row and column; `body` indented by 8.
fn each_piece_element(row0: &str, col0: &str, body: &str) -> String {
    use crate::body::LANE;
    format!(
        "        for (uint _dr_wgm_e = {LANE}; _dr_wgm_e < 64u; _dr_wgm_e += 32u) {{\n            const uint _dr_wgm_r = {row0} + _dr_wgm_e / 8u;\n            const uint _dr_wgm_c = {col0} + _dr_wgm_e % 8u;\n{body}        }}\n"
    )
}

const SG_BARRIER: &str = "simdgroup_barrier(mem_flags::mem_threadgroup);";

/// The `simdgroup_matrix` body (from `{` on) of a helper (the function also takes the
/// staging slot `_coop_stage` and `_coop_lane`).
fn simdgroup_body(c: &Call<'_>) -> Result<String, String> {
    use crate::body::STAGE;
    let (h, arrays) = (c.h, &c.arrays);
    let arg = |i: usize| c.arg(i);
    let major = |i: usize| c.major(i);
    let mut out = String::from(" {\n");
    if h.op == TileOp::Fill {
        let _ = writeln!(out, "    return _dr_wgm_splat({});\n}}", arg(0)?);
        return Ok(out);
    }
    out.push_str("    const uint _dr_wgm_row0 = 16u * (_dr_wgm_lid / 32u);\n");
    // Piece `_dr_wgm_p` of the simdgroup's 16: its first row and column.
    let piece = "        const uint _dr_wgm_r0 = _dr_wgm_row0 + 8u * (_dr_wgm_p / 8u);\n        const uint _dr_wgm_c0 = 8u * (_dr_wgm_p % 8u);\n";
    match h.op {
        TileOp::Fill => {}
        TileOp::Load => {
            let (off, stride, cols, rows) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?);
            let a = arrays.first().ok_or("a load without an array")?;
            let at = index(major(0), &off, &stride, "_dr_wgm_r", "_dr_wgm_c");
            out.push_str("    _dr_wgm_tile _dr_wgm_res;\n");
            out.push_str("    for (uint _dr_wgm_p = 0u; _dr_wgm_p < 16u; ++_dr_wgm_p) {\n");
            out.push_str(piece);
            out.push_str(&each_piece_element(
                "_dr_wgm_r0",
                "_dr_wgm_c0",
                &format!(
                    "            {STAGE}[_dr_wgm_e] = (_dr_wgm_c < {cols} && _dr_wgm_r < {rows}) ? {} : 0.0f;\n",
                    a.read(&format!("({at})"))
                ),
            ));
            let _ = writeln!(out, "        {SG_BARRIER}");
            let _ = writeln!(out, "        simdgroup_load(_dr_wgm_res.m[_dr_wgm_p], {STAGE}, 8);");
            let _ = writeln!(out, "        {SG_BARRIER}");
            out.push_str("    }\n    return _dr_wgm_res;\n");
        }
        TileOp::Store => {
            let (off, tile, stride, cols, rows) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?, arg(4)?);
            let a = arrays.first().ok_or("a store without an array")?;
            let at = index(major(0), &off, &stride, "_dr_wgm_r", "_dr_wgm_c");
            out.push_str("    for (uint _dr_wgm_p = 0u; _dr_wgm_p < 16u; ++_dr_wgm_p) {\n");
            out.push_str(piece);
            let _ = writeln!(out, "        simdgroup_store({tile}.m[_dr_wgm_p], {STAGE}, 8);");
            let _ = writeln!(out, "        {SG_BARRIER}");
            out.push_str(&each_piece_element(
                "_dr_wgm_r0",
                "_dr_wgm_c0",
                &format!(
                    "            if (_dr_wgm_c < {cols} && _dr_wgm_r < {rows}) {{\n                const uint _dr_wgm_at = {at};\n                {}\n            }}\n",
                    a.write("_dr_wgm_at", &format!("{STAGE}[_dr_wgm_e]"))
                ),
            ));
            let _ = writeln!(out, "        {SG_BARRIER}");
            out.push_str("    }\n");
        }
        TileOp::MultiplyAccumulate => {
            let (ao, as_, bo, bs, acc) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?, arg(4)?);
            let (a, b) = c.operands()?;
            let k = h.k;
            let (ra, rb) = (major(0), major(1));
            let inside = c.operands_inside(k, [&ao, &as_, &bo, &bs])?;
            let sg_ty = |x: &ArrayAccess| {
                if x.elem == "half" {
                    "simdgroup_half8x8"
                } else {
                    "simdgroup_float8x8"
                }
            };
            // A's piece i (rows _dr_wgm_row0 + 8i, columns _dr_wgm_k..) and B's piece j
            // (rows _dr_wgm_k.., columns 8j): offsets of their first elements.
            let a_at =
                |i: &str| index(ra, &ao, &as_, &format!("(_dr_wgm_row0 + 8u * {i})"), "_dr_wgm_k");
            let b_at = |j: &str| index(rb, &bo, &bs, "_dr_wgm_k", &format!("(8u * {j})"));
            let mac = format!(
                "                simdgroup_multiply_accumulate({acc}.m[8u * _dr_wgm_i + _dr_wgm_j], _dr_wgm_x[_dr_wgm_i], _dr_wgm_y, {acc}.m[8u * _dr_wgm_i + _dr_wgm_j]);\n"
            );
            let direct = format!(
                "    for (uint _dr_wgm_k = 0u; _dr_wgm_k < {k}u; _dr_wgm_k += 8u) {{\n        {} _dr_wgm_x[2];\n        for (uint _dr_wgm_i = 0u; _dr_wgm_i < 2u; ++_dr_wgm_i) {{\n            simdgroup_load(_dr_wgm_x[_dr_wgm_i], &{}[{}], ulong({as_}), ulong2(0), {});\n        }}\n        for (uint _dr_wgm_j = 0u; _dr_wgm_j < 8u; ++_dr_wgm_j) {{\n            {} _dr_wgm_y;\n            simdgroup_load(_dr_wgm_y, &{}[{}], ulong({bs}), ulong2(0), {});\n            for (uint _dr_wgm_i = 0u; _dr_wgm_i < 2u; ++_dr_wgm_i) {{\n{mac}            }}\n        }}\n    }}\n    return {acc};\n",
                sg_ty(a),
                a.place,
                a_at("_dr_wgm_i"),
                !ra,
                sg_ty(b),
                b.place,
                b_at("_dr_wgm_j"),
                !rb,
            );
            if inside.is_empty() {
                out.push_str(&direct);
                out.push_str("}\n");
                return Ok(out);
            }
            let _ = writeln!(
                out,
                "    // Every operand element inside its array: pieces straight from memory.\n    if ({}) {{",
                inside.join(" && ")
            );
            out.push_str(&direct.replace("\n    ", "\n        ").replacen(
                "    for",
                "        for",
                1,
            ));
            out.push_str("    }\n");
            out.push_str("    // Otherwise each piece through the staging slot, read under the bounds policy.\n");
            let stage_a = each_piece_element(
                "(_dr_wgm_row0 + 8u * _dr_wgm_i)",
                "_dr_wgm_k",
                &format!(
                    "            {STAGE}[_dr_wgm_e] = {};\n",
                    a.read(&format!("({})", index(ra, &ao, &as_, "_dr_wgm_r", "_dr_wgm_c")))
                ),
            );
            let stage_b = each_piece_element(
                "_dr_wgm_k",
                "(8u * _dr_wgm_j)",
                &format!(
                    "            {STAGE}[_dr_wgm_e] = {};\n",
                    b.read(&format!("({})", index(rb, &bo, &bs, "_dr_wgm_r", "_dr_wgm_c")))
                ),
            );
            let indent = |t: &str, n: usize| {
                t.lines().map(|l| format!("{}{l}\n", " ".repeat(n))).collect::<String>()
            };
            let _ = write!(
                out,
                "    for (uint _dr_wgm_k = 0u; _dr_wgm_k < {k}u; _dr_wgm_k += 8u) {{\n        simdgroup_float8x8 _dr_wgm_x[2];\n        for (uint _dr_wgm_i = 0u; _dr_wgm_i < 2u; ++_dr_wgm_i) {{\n{}            {SG_BARRIER}\n            simdgroup_load(_dr_wgm_x[_dr_wgm_i], {STAGE}, 8);\n            {SG_BARRIER}\n        }}\n        for (uint _dr_wgm_j = 0u; _dr_wgm_j < 8u; ++_dr_wgm_j) {{\n            simdgroup_float8x8 _dr_wgm_y;\n{}            {SG_BARRIER}\n            simdgroup_load(_dr_wgm_y, {STAGE}, 8);\n            {SG_BARRIER}\n            for (uint _dr_wgm_i = 0u; _dr_wgm_i < 2u; ++_dr_wgm_i) {{\n{mac}            }}\n        }}\n    }}\n    return {acc};\n",
                indent(&stage_a, 4),
                indent(&stage_b, 4),
            );
        }
    }
    out.push_str("}\n");
    Ok(out)
}
