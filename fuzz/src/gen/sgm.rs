//! Dawn's subgroup matrices (`chromium_experimental_subgroup_matrix`, docs/subgroup-matrix.md)
//! in generated programs: one product per program, of a shape and element types drawn from
//! [`SHAPES`], with operands loaded from the input buffers in every layout and form Dawn
//! accepts, and the result stored to `out_m`.
//!
//! Determinism (the rules of the parent module): the phase sits at the top level of the entry
//! point, in workgroups of whole subgroups. Subgroup `csg = idx / 32` reads a region of the
//! inputs and writes its own region of `out_m`; where a runtime has subgroups of 8
//! (lavapipe), the four subgroups with one `csg` compute and write the same values. Loads may
//! run past the end of their arrays (those elements read zero) and a store may start near the
//! end of `out_m` (the elements past it are dropped), as the bounds policy defines.

use super::Gen;
use crate::ast::{Expr, Stmt, Ty, S};

/// A product `result<R, N, M> = left<T, K, M> × right<T, N, K>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Rows of the left operand and of the result.
    pub m: u32,
    /// Columns of the right operand and of the result.
    pub n: u32,
    /// Columns of the left operand, rows of the right one.
    pub k: u32,
    /// The operands' element type.
    pub elem: &'static str,
    /// The result's element type.
    pub result: &'static str,
}

const fn sh(m: u32, n: u32, k: u32, elem: &'static str, result: &'static str) -> Shape {
    Shape { m, n, k, elem, result }
}

/// Every shape and type pair the generator writes (M × N × K): the 8 × 8 × 8 matrices of every
/// element type with every result type Dawn allows for it, 8 × 16 × 16 and 16 × 16 × 16 `f16`,
/// 8 × 16 × 32 and 16 × 16 × 32 int8 (docs/subgroup-matrix.md, "Targets").
pub const SHAPES: &[Shape] = &[
    sh(8, 8, 8, "f16", "f16"),
    sh(8, 8, 8, "f16", "f32"),
    sh(8, 8, 8, "f32", "f32"),
    sh(8, 8, 8, "i8", "i32"),
    sh(8, 8, 8, "i8", "u32"),
    sh(8, 8, 8, "i8", "i8"),
    sh(8, 8, 8, "i8", "u8"),
    sh(8, 8, 8, "u8", "u32"),
    sh(8, 8, 8, "u8", "i32"),
    sh(8, 8, 8, "u8", "u8"),
    sh(8, 8, 8, "u8", "i8"),
    sh(8, 8, 8, "i32", "i32"),
    sh(8, 8, 8, "i32", "u32"),
    sh(8, 8, 8, "u32", "u32"),
    sh(8, 8, 8, "u32", "i32"),
    sh(8, 16, 16, "f16", "f16"),
    sh(8, 16, 16, "f16", "f32"),
    sh(8, 16, 32, "i8", "i32"),
    sh(8, 16, 32, "u8", "u8"),
    sh(8, 16, 32, "u8", "i32"),
    sh(8, 16, 32, "i8", "i8"),
    sh(16, 16, 16, "f16", "f16"),
    sh(16, 16, 16, "f16", "f32"),
    sh(16, 16, 32, "i8", "i32"),
    sh(16, 16, 32, "i8", "u32"),
    sh(16, 16, 32, "i8", "i8"),
    sh(16, 16, 32, "u8", "u32"),
    sh(16, 16, 32, "u8", "u8"),
    sh(16, 16, 32, "u8", "i32"),
];

/// Bytes of one matrix element.
fn size(elem: &str) -> u32 {
    match elem {
        "i8" | "u8" => 1,
        "f16" => 2,
        _ => 4,
    }
}

/// The scalar type shader code uses for a matrix element (`i8` is `i32`).
fn scalar(elem: &str) -> S {
    match elem {
        "f16" => S::F16,
        "f32" => S::F32,
        "i8" | "i32" => S::I32,
        _ => S::U32,
    }
}

/// An array a matrix of `elem` can be read from: (buffer, bytes per element).
fn sources(elem: &str) -> &'static [(&'static str, u32)] {
    match elem {
        "f16" => &[("in_h", 2)],
        "f32" => &[("in_f", 4)],
        // Integers read words of `array<u32>` or `array<i32>`, or whole `vec4<i32>` elements
        // (Dawn counts offsets and strides in the array's elements).
        _ => &[("in_u", 4), ("in_si", 4), ("in_i", 16)],
    }
}

/// The array the deprecated forms (offsets in matrix elements, a `bool col_major`) read a
/// matrix of `elem` from: Dawn wants an array of the element's shader type.
fn deprecated_source(elem: &str) -> (&'static str, u32) {
    match scalar(elem) {
        S::F16 => ("in_h", 2),
        S::F32 => ("in_f", 4),
        S::I32 => ("in_si", 4),
        _ => ("in_u", 4),
    }
}

/// The element type of `out_m` for results of `elem`, and its bytes.
pub fn out_array(elem: &str) -> (S, u32) {
    match elem {
        "f16" => (S::F16, 2),
        "f32" => (S::F32, 4),
        "i8" | "i32" => (S::I32, 4),
        _ => (S::U32, 4),
    }
}

/// How a tile lies in its array.
struct Place {
    /// Array elements per matrix element's byte size: how many matrix elements one array
    /// element holds (Dawn's scale).
    scale: u32,
    /// The stride in array elements.
    stride: u32,
    /// Array elements from the tile's first to past its last.
    extent: u32,
}

impl Gen {
    /// The statements of the subgroup-matrix phase, and the runtime array length they need.
    pub(super) fn sgm_phase(&mut self, shape: Shape) -> (Vec<Stmt>, u32) {
        let u = Ty::S(S::U32);
        let mut out = vec![Stmt::Let("csg".into(), Expr::lit("(idx / 32u)", u.clone()))];
        let subgroups = self.invocations() / 32;
        let mut need = 0u32;
        let left = format!("subgroup_matrix_left<{}, {}, {}>", shape.elem, shape.k, shape.m);
        let right = format!("subgroup_matrix_right<{}, {}, {}>", shape.elem, shape.n, shape.k);
        let result = format!("subgroup_matrix_result<{}, {}, {}>", shape.result, shape.n, shape.m);
        let (sa, na) = self.sgm_load(&left, shape.elem, (shape.k, shape.m), subgroups);
        let (sb, nb) = self.sgm_load(&right, shape.elem, (shape.n, shape.k), subgroups);
        need = need.max(na).max(nb);
        out.push(Stmt::Let("sm_a".into(), sa));
        out.push(Stmt::Let("sm_b".into(), sb));
        let mut a = Expr::name("sm_a", Ty::Sgm(left.clone()));
        let mut b = Expr::name("sm_b", Ty::Sgm(right.clone()));
        // Scalar arithmetic on the operands, now and then.
        if self.rng.chance(25) {
            a = self.sgm_scalar_op(a, shape.elem);
        }
        if self.rng.chance(15) {
            b = self.sgm_scalar_op(b, shape.elem);
        }
        let rt = Ty::Sgm(result.clone());
        let d = if self.rng.chance(30) {
            Expr::call(format!("subgroupMatrixMultiply<{}>", shape.result), vec![a, b], rt.clone())
        } else {
            let init = match self.rng.below(3) {
                0 => Expr::call(result.clone(), vec![], rt.clone()),
                1 => {
                    let s = self.sgm_scalar(shape.result);
                    Expr::call(result.clone(), vec![s], rt.clone())
                }
                _ => {
                    let (c, nc) =
                        self.sgm_load(&result, shape.result, (shape.n, shape.m), subgroups);
                    need = need.max(nc);
                    c
                }
            };
            // The accumulator lives in a `var` half of the time (assigned, then read back).
            if self.rng.chance(50) {
                out.push(Stmt::Var("sm_c".into(), rt.clone(), Some(init)));
                let c = Expr::name("sm_c", rt.clone());
                let mma = Expr::call(
                    "subgroupMatrixMultiplyAccumulate",
                    vec![a, b, c.clone()],
                    rt.clone(),
                );
                out.push(Stmt::Assign(c.clone(), "=", mma));
                c
            } else {
                Expr::call("subgroupMatrixMultiplyAccumulate", vec![a, b, init], rt.clone())
            }
        };
        out.push(Stmt::Let("sm_d".into(), d));
        let mut d = Expr::name("sm_d", rt.clone());
        if self.rng.chance(30) {
            d = self.sgm_scalar_op(d, shape.result);
        }
        let (store, nd) = self.sgm_store(d, shape, subgroups);
        need = need.max(nd);
        out.push(store);
        (out, need)
    }

    /// `subgroupMatrixLoad` of a `ty` matrix (`cols` × `rows` of `elem`) from an input buffer,
    /// in a random layout and form; returns the call and the array length it reads within.
    fn sgm_load(
        &mut self,
        ty: &str,
        elem: &'static str,
        (cols, rows): (u32, u32),
        subgroups: u32,
    ) -> (Expr, u32) {
        let deprecated = self.rng.chance(25);
        let (array, astride) =
            if deprecated { deprecated_source(elem) } else { *self.rng.pick(sources(elem)) };
        let col_major = self.rng.chance(50);
        let p = self.sgm_place(astride, elem, (cols, rows), col_major);
        let spread = *self.rng.pick(&[0u32, 3, p.extent]);
        let c = self.rng.below(5);
        let u = Ty::S(S::U32);
        // A tile that ends past the array now and then (its outside elements read zero).
        let off = self.sgm_offset(array, p.extent, (spread, c), 12);
        let need = subgroups * spread + c + p.extent;
        let stride = self.sgm_stride(p.stride);
        let ptr = Expr::lit(format!("&{array}"), u.clone());
        let call = if deprecated {
            // The deprecated form: offset and stride in matrix elements, then a bool.
            let major = if col_major { "true" } else { "false" };
            Expr::call(
                format!("subgroupMatrixLoad<{ty}>"),
                vec![
                    ptr,
                    Expr::lit(format!("({off} * {}u)", p.scale), u.clone()),
                    Expr::lit(major, Ty::S(S::Bool)),
                    Expr::lit(format!("({stride} * {}u)", p.scale), u.clone()),
                ],
                Ty::Sgm(ty.into()),
            )
        } else {
            let layout = if col_major { "col_major" } else { "row_major" };
            Expr::call(
                format!("subgroupMatrixLoad<{ty}, {layout}>"),
                vec![ptr, Expr::lit(off, u.clone()), Expr::lit(stride, u)],
                Ty::Sgm(ty.into()),
            )
        };
        (call, need)
    }

    /// The stride and extent of a `cols` × `rows` tile of `elem` in an array of `astride`
    /// bytes per element.
    fn sgm_place(
        &mut self,
        astride: u32,
        elem: &str,
        (cols, rows): (u32, u32),
        col_major: bool,
    ) -> Place {
        let scale = astride / size(elem);
        let (major, minor) = if col_major { (cols, rows) } else { (rows, cols) };
        let least = minor.div_ceil(scale);
        let stride = least + self.rng.below(3);
        Place { scale, stride, extent: (major - 1) * stride + least }
    }

    /// The offset of subgroup `csg`'s tile (`extent` array elements long) in `array`:
    /// `csg * step + c`, or, one time in `100 / percent`, a start `1..extent` elements before
    /// the end of the array (plus `csg * step`), so the tile runs past the end.
    fn sgm_offset(
        &mut self,
        array: &str,
        extent: u32,
        (step, c): (u32, u32),
        percent: u32,
    ) -> String {
        if self.rng.chance(percent) {
            let back = 1 + self.rng.below(extent.max(2) - 1);
            format!("(arrayLength(&{array}) - {back}u + csg * {step}u)")
        } else {
            format!("(csg * {step}u + {c}u)")
        }
    }

    /// A stride of at least `stride`'s value: the constant, or now and then a runtime value
    /// (a uniform's field), which Dawn checks only at run time.
    fn sgm_stride(&mut self, stride: u32) -> String {
        if self.rng.chance(20) {
            format!("(uni.k % 1u + {stride}u)")
        } else {
            format!("{stride}u")
        }
    }

    /// `subgroupMatrixStore` of `d` to this subgroup's region of `out_m`; returns the statement
    /// and the array length it writes within.
    fn sgm_store(&mut self, d: Expr, shape: Shape, subgroups: u32) -> (Stmt, u32) {
        let (_, astride) = out_array(shape.result);
        let col_major = self.rng.chance(50);
        let p = self.sgm_place(astride, shape.result, (shape.n, shape.m), col_major);
        let c = self.rng.below(4);
        // Regions of different subgroups never overlap: each starts `extent + c` past the
        // last.
        let region = p.extent + c;
        let u = Ty::S(S::U32);
        // Now and then subgroup 0's tile is cut by the end of `out_m`; the others start past
        // it.
        let off = self.sgm_offset("out_m", p.extent, (region, c), 10);
        let stride = self.sgm_stride(p.stride);
        let ptr = Expr::lit("&out_m", u.clone());
        let stmt = if self.rng.chance(25) {
            let major = if col_major { "true" } else { "false" };
            Stmt::Call(
                "subgroupMatrixStore".into(),
                vec![
                    ptr,
                    Expr::lit(format!("({off} * {}u)", p.scale), u.clone()),
                    d,
                    Expr::lit(major, Ty::S(S::Bool)),
                    Expr::lit(format!("({stride} * {}u)", p.scale), u),
                ],
            )
        } else {
            let layout = if col_major { "col_major" } else { "row_major" };
            Stmt::Call(
                format!("subgroupMatrixStore<{layout}>"),
                vec![ptr, Expr::lit(off, u.clone()), d, Expr::lit(stride, u)],
            )
        };
        (stmt, subgroups * region + c)
    }

    /// `subgroupMatrixScalarAdd/Subtract/Multiply(m, s)` with a scalar of `elem`'s type.
    fn sgm_scalar_op(&mut self, m: Expr, elem: &str) -> Expr {
        let f = *self.rng.pick(&[
            "subgroupMatrixScalarAdd",
            "subgroupMatrixScalarSubtract",
            "subgroupMatrixScalarMultiply",
        ]);
        let s = self.sgm_scalar(elem);
        let ty = m.ty.clone();
        Expr::call(f, vec![m, s], ty)
    }

    /// A scalar for a matrix of `elem`: small exact floats (products stay inside the
    /// comparison bounds), any integer (8-bit elements clamp it first).
    fn sgm_scalar(&mut self, elem: &str) -> Expr {
        let s = scalar(elem);
        let text = match s {
            S::F16 => format!("{}h", self.rng.pick(&["0.5", "-1.0", "0.25", "2.0", "-0.75"])),
            S::F32 => {
                if self.rng.chance(50) {
                    "f32(uni.k % 4u) * 0.25".to_string()
                } else {
                    format!("{}f", self.rng.pick(&["0.5", "-1.5", "0.125"]))
                }
            }
            S::I32 => {
                if self.rng.chance(50) {
                    "uni.i".to_string()
                } else {
                    format!("{}i", self.rng.pick(&["-3", "127", "-200", "5"]))
                }
            }
            _ => {
                if self.rng.chance(50) {
                    "uni.k".to_string()
                } else {
                    format!("{}u", self.rng.pick(&["3", "255", "300", "0"]))
                }
            }
        };
        Expr::lit(text, Ty::S(s))
    }
}
