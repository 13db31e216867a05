//! Lowering steps both PTX backends share: instruction selection in [`crate::codegen`] and the
//! LLVM backend (`dianran-llvm`) hold SSA values as lists of scalar components in
//! [`layout::leaves`] order, and what they do with those lists (composites, dynamic indexing,
//! pointer bookkeeping, cooperative-matrix shapes) does not depend on the target. It is written
//! once here, over [`ScalarLowering`], so that a fix reaches both backends; each backend keeps
//! only how a single component operation is emitted.

use crate::abi::layout;
use crate::codegen::align::lowbit;
use crate::model::ShflMode;
use dianran_frontend::ir::{
    CoopElem, CoopRole, Direction, GatherMode, GlobalId, Op, Scalar, Type, TypeId, Types, ValueId,
};
use dianran_frontend::{DiagKind, Diagnostic};

mod frames;
mod inst;
mod subgroup;
pub use inst::{
    coop_product, entry_input, entry_prologue, global_home, lower_inst, ArrayLength, CoopAccess,
    CoopLowering, FragForm, GlobalHome, InstLowering, PtrOf, Val, ValOf,
};

pub use frames::{Exit, Frame, Frames};
pub use subgroup::{subgroup_op, SubgroupLowering};

type R<T> = Result<T, Diagnostic>;

/// What a backend provides so that the shared steps can lower a value operation: access to
/// its values and types, its diagnostics, and the two component operations the composite
/// steps emit (an index comparison and a select).
pub trait ScalarLowering {
    /// One scalar component of a value (a virtual register, an LLVM value).
    type Value: Copy;
    /// An address (a 64-bit register, an LLVM pointer).
    type Addr: Copy;
    /// The memory an address points into.
    type Space: Copy;
    /// A predicate (the result of a comparison).
    type Pred: Copy;

    /// The module's types (mutable: member offsets are computed and cached on demand).
    fn types_mut(&mut self) -> &mut Types;
    /// The IR type of `v`.
    fn value_ty(&self, v: ValueId) -> TypeId;
    /// The components of `v`.
    fn value_comps(&self, v: ValueId) -> R<Vec<Self::Value>>;
    /// The components of `args`, one after another.
    fn flatten(&self, args: &[ValueId]) -> R<Vec<Self::Value>> {
        let mut out = Vec::new();
        for &a in args {
            out.extend(self.value_comps(a)?);
        }
        Ok(out)
    }
    /// A diagnostic of `kind` (internal or unsupported) about `what`, at the current
    /// instruction, worded for the backend.
    fn diagnostic(&self, kind: DiagKind, what: &str) -> Diagnostic;
    /// An internal-error diagnostic at the current instruction.
    fn internal(&self, what: &str) -> Diagnostic {
        self.diagnostic(DiagKind::Internal, what)
    }
    /// An "unsupported" diagnostic at the current instruction.
    fn unsupported(&self, what: &str) -> Diagnostic {
        self.diagnostic(DiagKind::Unsupported, what)
    }
    /// The fragment layout of cooperative matrix type `ty` (an unsupported one is an error,
    /// [`coop_shape`]).
    fn coop_layout(&self, ty: TypeId) -> R<CoopShape>;
    /// A boolean component used as a predicate.
    fn as_pred(&self, v: Self::Value) -> Self::Pred;
    /// `i == e` for a `u32` component `i`.
    fn index_is(&mut self, i: Self::Value, e: u32) -> R<Self::Pred>;
    /// `a * b` for components of scalar type `s`.
    fn mul_comp(&mut self, s: Scalar, a: Self::Value, b: Self::Value) -> R<Self::Value>;
    /// The dot product of `a` and `b` (components of scalar type `s`), each product and sum
    /// rounded on its own for floats (`dot` is contracted in the SSA, `docs/math.md`).
    fn dot_comps(&mut self, s: Scalar, a: &[Self::Value], b: &[Self::Value]) -> R<Self::Value>;
    /// The zero of scalar type `s` as a component (an immediate where the backend has them).
    fn zero_comp(&mut self, s: Scalar) -> Self::Value;
    /// `p ? a : b` for components of scalar type `s`.
    fn select_comp(
        &mut self,
        s: Scalar,
        p: Self::Pred,
        a: Self::Value,
        b: Self::Value,
    ) -> R<Self::Value>;
}

/// The single component of a scalar value.
fn scalar<L: ScalarLowering>(l: &L, v: ValueId) -> R<L::Value> {
    l.value_comps(v)?.first().copied().ok_or_else(|| l.internal("empty scalar value"))
}

/// The components of a vector, matrix or fixed-size array value, split per element, and the
/// element type.
pub fn elements<L: ScalarLowering>(l: &mut L, v: ValueId) -> R<(Vec<Vec<L::Value>>, TypeId)> {
    let c = l.value_comps(v)?;
    let vty = l.value_ty(v);
    let (_, ety, len) = layout::element_stride(l.types_mut(), vty)
        .ok_or_else(|| l.internal("dynamic index into a non-indexable value"))?;
    let n = len.ok_or_else(|| l.internal("runtime-sized value"))? as usize;
    let per = layout::leaf_count(l.types_mut(), ety);
    if per * n != c.len() || n == 0 {
        return Err(l.internal("composite shape"));
    }
    Ok((c.chunks(per).map(|x| x.to_vec()).collect(), ety))
}

/// Lowers the composite operations (`select`, compose, splat, extract, swizzle, insert and
/// their dynamic-index forms) producing a value of type `ty`; `None` for any other operation.
pub fn composite_op<L: ScalarLowering>(l: &mut L, op: &Op, ty: TypeId) -> Option<R<Vec<L::Value>>> {
    Some(match op {
        Op::Select { cond, accept, reject } => select(l, *cond, *accept, *reject),
        Op::Compose(parts) => compose(l, parts, ty),
        Op::Splat(a) => scalar(l, *a).map(|v| vec![v; layout::leaf_count(l.types_mut(), ty)]),
        Op::Extract(a, i) => extract(l, *a, *i),
        Op::Swizzle(a, pat) => swizzle(l, *a, pat),
        Op::Insert { base, index, value } => insert(l, *base, *index, *value),
        Op::ExtractDyn(a, idx) => extract_dyn(l, *a, *idx),
        Op::InsertDyn { base, index, value } => insert_dyn(l, *base, *index, *value),
        _ => return None,
    })
}

/// `select(reject, accept, cond)`, component by component (a scalar `cond` serves all).
pub fn select<L: ScalarLowering>(
    l: &mut L,
    cond: ValueId,
    accept: ValueId,
    reject: ValueId,
) -> R<Vec<L::Value>> {
    let c = l.value_comps(cond)?;
    let a = l.value_comps(accept)?;
    let r = l.value_comps(reject)?;
    let aty = l.value_ty(accept);
    let s = l.types_mut().scalar_of(aty).unwrap_or(Scalar::U32);
    let mut out = Vec::new();
    for (i, &ai) in a.iter().enumerate() {
        let p = if c.len() == 1 {
            c[0]
        } else {
            *c.get(i).ok_or_else(|| l.internal("select shape"))?
        };
        let rr = *r.get(i).ok_or_else(|| l.internal("select shape"))?;
        let p = l.as_pred(p);
        out.push(l.select_comp(s, p, ai, rr)?);
    }
    Ok(out)
}

fn compose<L: ScalarLowering>(l: &mut L, parts: &[ValueId], ty: TypeId) -> R<Vec<L::Value>> {
    let mut out = Vec::new();
    for p in parts {
        out.extend(l.value_comps(*p)?);
    }
    if out.len() != layout::leaf_count(l.types_mut(), ty) {
        return Err(l.internal("compose shape"));
    }
    Ok(out)
}

fn extract<L: ScalarLowering>(l: &mut L, a: ValueId, i: u32) -> R<Vec<L::Value>> {
    let c = l.value_comps(a)?;
    let aty = l.value_ty(a);
    let (r, _) =
        layout::member_range(l.types_mut(), aty, i).ok_or_else(|| l.internal("extract index"))?;
    c.get(r).map(|s| s.to_vec()).ok_or_else(|| l.internal("extract range"))
}

fn swizzle<L: ScalarLowering>(l: &mut L, a: ValueId, pat: &[u8]) -> R<Vec<L::Value>> {
    let c = l.value_comps(a)?;
    pat.iter()
        .map(|&i| c.get(i as usize).copied().ok_or_else(|| l.internal("swizzle index")))
        .collect()
}

fn insert<L: ScalarLowering>(
    l: &mut L,
    base: ValueId,
    index: u32,
    value: ValueId,
) -> R<Vec<L::Value>> {
    let mut c = l.value_comps(base)?;
    let v = l.value_comps(value)?;
    let bty = l.value_ty(base);
    let (r, _) = layout::member_range(l.types_mut(), bty, index)
        .ok_or_else(|| l.internal("insert index"))?;
    if r.len() != v.len() || r.end > c.len() {
        return Err(l.internal("insert shape"));
    }
    c.splice(r, v);
    Ok(c)
}

/// `a[idx]` as a select chain: an out-of-range index gives the last element.
fn extract_dyn<L: ScalarLowering>(l: &mut L, a: ValueId, idx: ValueId) -> R<Vec<L::Value>> {
    let (elems, ety) = elements(l, a)?;
    let i = scalar(l, idx)?;
    let s = l.types_mut().scalar_of(ety).unwrap_or(Scalar::U32);
    let el = layout::leaves(l.types_mut(), ety).unwrap_or_default();
    let Some(mut out) = elems.last().cloned() else {
        return Err(l.internal("empty composite"));
    };
    for e in (0..elems.len().saturating_sub(1)).rev() {
        let p = l.index_is(i, e as u32)?;
        for j in 0..out.len() {
            let sj = el.get(j).map_or(s, |leaf| leaf.scalar);
            out[j] = l.select_comp(sj, p, elems[e][j], out[j])?;
        }
    }
    Ok(out)
}

/// `base` with element `index` replaced by `value`: each element selects between its old
/// components and the new ones.
fn insert_dyn<L: ScalarLowering>(
    l: &mut L,
    base: ValueId,
    index: ValueId,
    value: ValueId,
) -> R<Vec<L::Value>> {
    let (elems, ety) = elements(l, base)?;
    let i = scalar(l, index)?;
    let v = l.value_comps(value)?;
    let el = layout::leaves(l.types_mut(), ety).unwrap_or_default();
    let mut out = Vec::new();
    for (e, comps) in elems.iter().enumerate() {
        let p = l.index_is(i, e as u32)?;
        for (j, &c) in comps.iter().enumerate() {
            let sj = el.get(j).map_or(Scalar::U32, |leaf| leaf.scalar);
            let nv = *v.get(j).ok_or_else(|| l.internal("insert shape"))?;
            out.push(l.select_comp(sj, p, nv, c)?);
        }
    }
    Ok(out)
}

/// `transpose(m)`: the components of a column-major matrix value `m` reordered to its
/// transpose's columns.
pub fn transpose<L: ScalarLowering>(l: &mut L, m: ValueId) -> R<Vec<L::Value>> {
    let a = l.value_comps(m)?;
    let mty = l.value_ty(m);
    let Type::Matrix { columns, rows, .. } = *l.types_mut().get(mty) else {
        return Err(l.internal("transpose of a non-matrix"));
    };
    let (c, r) = (columns as usize, rows as usize);
    if a.len() != c * r {
        return Err(l.internal("transpose shape"));
    }
    Ok((0..r).flat_map(|i| (0..c).map(move |k| k * r + i)).map(|j| a[j]).collect())
}

/// A pointer value: an address `A` in a space `S`, the pointee type and what is known about
/// where it points.
#[derive(Clone, Copy, Debug)]
pub struct Ptr<A, S> {
    /// The address.
    pub addr: A,
    /// The memory it points into.
    pub space: S,
    /// The type pointed to.
    pub pointee: TypeId,
    /// The buffer the pointer points into (for `arrayLength`).
    pub root: Option<GlobalId>,
    /// Byte offset from the root when it is static.
    pub static_off: Option<u32>,
    /// A power of two known to divide the address ([`crate::codegen::align`]).
    pub align: u32,
}

impl<A, S: Copy> Ptr<A, S> {
    /// A pointer to the start of a variable of type `ty` (`root`: the buffer, if it is one).
    pub fn start(addr: A, space: S, ty: TypeId, root: Option<GlobalId>, align: u32) -> Self {
        Ptr { addr, space, pointee: ty, root, static_off: Some(0), align }
    }

    /// This pointer moved to `addr`, an element of type `ety` at an index known only at run
    /// time; `align` is what the backend proved about the element's address.
    pub fn element(&self, addr: A, ety: TypeId, align: u32) -> Self {
        Ptr { addr, space: self.space, pointee: ety, root: self.root, static_off: None, align }
    }

    /// This pointer moved `off` bytes forward to `addr`, pointing at a value of type `ty`.
    pub fn offset<B>(&self, addr: B, off: u32, ty: TypeId) -> Ptr<B, S> {
        Ptr {
            addr,
            space: self.space,
            pointee: ty,
            root: self.root,
            static_off: self.static_off.map(|s| s + off),
            align: self.align.min(lowbit(off)),
        }
    }
}

/// Applies `f` to each component of `a`, with the components' scalar type (unary operators,
/// conversions).
pub fn per_component<L: ScalarLowering>(
    l: &mut L,
    a: ValueId,
    mut f: impl FnMut(&mut L, Scalar, L::Value) -> R<L::Value>,
) -> R<Vec<L::Value>> {
    let ty = l.value_ty(a);
    let s = l.types_mut().scalar_of(ty).ok_or_else(|| l.internal("not a scalar type"))?;
    let c = l.value_comps(a)?;
    c.into_iter().map(|v| f(l, s, v)).collect()
}

/// WGSL's matrix products `x * y` (`xt`, `yt` their types; components column-major): matrix
/// times scalar, vector or matrix, and vector or scalar times matrix. Any other pair is an
/// internal error.
pub fn linear_mul<L: ScalarLowering>(
    l: &mut L,
    x: ValueId,
    y: ValueId,
    xt: &Type,
    yt: &Type,
) -> R<Vec<L::Value>> {
    let a = l.value_comps(x)?;
    let b = l.value_comps(y)?;
    let xty = l.value_ty(x);
    let s = l.types_mut().scalar_of(xty);
    let s = s.ok_or_else(|| l.internal("not a scalar type"))?;
    let shape_err = |l: &L| l.internal("matrix product shapes");
    match (xt, yt) {
        (Type::Matrix { .. }, Type::Scalar(_)) => {
            let k = *b.first().ok_or_else(|| shape_err(l))?;
            a.into_iter().map(|v| l.mul_comp(s, v, k)).collect()
        }
        (Type::Scalar(_), Type::Matrix { .. }) => {
            let k = *a.first().ok_or_else(|| shape_err(l))?;
            b.into_iter().map(|v| l.mul_comp(s, k, v)).collect()
        }
        // Component i of M * v is row i of M (stride r in column-major order) dot v.
        (Type::Matrix { columns, rows, .. }, Type::Vector { size, .. }) => {
            let (c, r) = (*columns as usize, *rows as usize);
            if *size as usize != c || a.len() != c * r {
                return Err(shape_err(l));
            }
            (0..r)
                .map(|i| {
                    let row: Vec<L::Value> = (0..c).map(|k| a[k * r + i]).collect();
                    l.dot_comps(s, &row, &b)
                })
                .collect()
        }
        // Component k of v * M is v dot column k.
        (Type::Vector { size, .. }, Type::Matrix { columns, rows, .. }) => {
            let (c, r) = (*columns as usize, *rows as usize);
            if *size as usize != r || b.len() != c * r {
                return Err(shape_err(l));
            }
            b.chunks(r).map(|col| l.dot_comps(s, &a, col)).collect()
        }
        (
            Type::Matrix { columns: k1, rows: r1, .. },
            Type::Matrix { columns: c2, rows: k2, .. },
        ) => {
            let (k, r, c) = (*k1 as usize, *r1 as usize, *c2 as usize);
            if *k2 as usize != k || a.len() != k * r || b.len() != c * k {
                return Err(shape_err(l));
            }
            let mut out = Vec::with_capacity(r * c);
            for col in b.chunks(k) {
                for i in 0..r {
                    let row: Vec<L::Value> = (0..k).map(|q| a[q * r + i]).collect();
                    out.push(l.dot_comps(s, &row, col)?);
                }
            }
            Ok(out)
        }
        _ => Err(shape_err(l)),
    }
}

/// The fragment layout of cooperative matrix type `ty` ([`CoopShape::of`]); an unsupported
/// type is an "unsupported" diagnostic, with `exact_f32_help` as the help of an f32 product
/// the backend cannot compute exactly.
pub fn coop_shape<L: ScalarLowering>(
    l: &L,
    types: &Types,
    ty: TypeId,
    tf32: bool,
    exact_f32_help: &str,
) -> R<CoopShape> {
    CoopShape::of(types, ty, tf32).map_err(|e| {
        let d = l.unsupported(e.what());
        if e == CoopShapeError::ExactF32 {
            d.help(exact_f32_help)
        } else {
            d
        }
    })
}

/// The parameter of buffer `g`: `buffers[i]` is the buffer passed as parameter `i`, `params[i]`
/// its address (`None` where unused).
pub fn buffer_param<A: Copy>(
    buffers: &[Option<GlobalId>],
    params: &[Option<A>],
    g: GlobalId,
) -> Option<A> {
    let idx = buffers.iter().position(|b| *b == Some(g));
    idx.and_then(|i| params.get(i).copied().flatten())
}

/// The alignment a buffer binding of type `ty` promises: only the type's own, since a host may
/// pass an offset slice.
pub fn buffer_align(types: &Types, ty: TypeId) -> u32 {
    types.size_align(ty).1.max(1)
}

/// The alignment of a workgroup variable of type `ty`: both backends declare it at least
/// 16-byte aligned.
pub fn shared_align(types: &Types, ty: TypeId) -> u32 {
    types.size_align(ty).1.max(16)
}

/// The factor `radians` (`true`) or `degrees` multiplies by.
pub fn angle_factor(radians: bool) -> f64 {
    if radians {
        std::f64::consts::PI / 180.0
    } else {
        180.0 / std::f64::consts::PI
    }
}

/// The source lane operand of a subgroup gather's `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherLane<V> {
    /// The lowest active lane.
    FirstActive,
    /// The gather's index operand as it is (a lane, a delta or a lane mask).
    Index(V),
    /// Lane `index` of this lane's quad: `(laneid & !3) + index`.
    InQuad(V),
    /// A constant (the lane mask of a quad swap).
    Const(u32),
}

/// How a subgroup gather reads another lane: the `shfl.sync` mode, its source lane operand
/// and its clamp operand; `None` for a mode that needs an index and has none.
pub fn gather_plan<V>(
    mode: GatherMode,
    index: Option<V>,
) -> Option<(ShflMode, GatherLane<V>, u32)> {
    use GatherMode as G;
    Some(match (mode, index) {
        (G::BroadcastFirst, _) => (ShflMode::Idx, GatherLane::FirstActive, 31),
        (G::Broadcast | G::Shuffle, Some(i)) => (ShflMode::Idx, GatherLane::Index(i), 31),
        (G::ShuffleDown, Some(i)) => (ShflMode::Down, GatherLane::Index(i), 31),
        (G::ShuffleUp, Some(i)) => (ShflMode::Up, GatherLane::Index(i), 0),
        (G::ShuffleXor, Some(i)) => (ShflMode::Bfly, GatherLane::Index(i), 31),
        (G::QuadBroadcast, Some(i)) => (ShflMode::Idx, GatherLane::InQuad(i), 31),
        (G::QuadSwap(d), _) => {
            let k = match d {
                Direction::X => 1,
                Direction::Y => 2,
                Direction::Diagonal => 3,
            };
            (ShflMode::Bfly, GatherLane::Const(k), 31)
        }
        _ => return None,
    })
}

/// One cooperative matrix type as the fragments lay it out (the `mma` fragment layouts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopShape {
    /// A, B or C.
    pub role: CoopRole,
    /// The element type.
    pub elem: CoopElem,
    /// Rows = columns: 8 or 16 (for a `packed` matrix, M or N = 16 with K = 32).
    pub n: u32,
    /// The TF32 layout (f32 A/B products on TF32 tensor cores).
    pub tf32: bool,
    /// An i8/u8 A (16 rows x 32 columns) or B (32 x 16) in the layout of `mma.m16n8k32`:
    /// 16 elements per lane, held as 4 words of 4 bytes each (the `mma` operand registers).
    pub packed: bool,
    /// Dawn's M = 8 shapes: an A or C of 8 rows, held as the rows 0..8 of the 16-row
    /// fragment ([`CoopShape::full`]); a product pads rows 8..16 with zeros and keeps rows
    /// 0..8 of the result ([`coop_product`]), so backends multiply full shapes only.
    pub short: bool,
}

/// Why a cooperative matrix type has no [`CoopShape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoopShapeError {
    /// `coop_mat16x16<f32, A/B>` without TF32: no exact tensor-core product.
    ExactF32,
    /// Another 16x16 matrix (element type or role).
    Other16,
    /// Not a supported cooperative matrix type.
    Unsupported,
}

impl CoopShapeError {
    /// The diagnostic's text ("unsupported: ...").
    pub fn what(self) -> &'static str {
        match self {
            CoopShapeError::ExactF32 => {
                "exact f32 x f32 cooperative-matrix products (coop_mat16x16<f32, A/B>)"
            }
            CoopShapeError::Other16 => {
                "cooperative matrices other than coop_mat16x16 with f16 A/B and f16/f32 C"
            }
            CoopShapeError::Unsupported => "this cooperative matrix type",
        }
    }
}

impl CoopShape {
    /// The shader scalar that holds one element in a register.
    pub fn scalar(self) -> Scalar {
        self.elem.scalar()
    }

    /// The layout of a supported cooperative matrix type: 16x16 with f16 A/B (f32 A/B when
    /// `tf32`) and f16/f32 C, or 8x8 of f16/f32 in any role (f32 A/B in the TF32 layout when
    /// `tf32`).
    pub fn of(types: &Types, ty: TypeId, tf32: bool) -> Result<CoopShape, CoopShapeError> {
        match types.get(ty) {
            Type::CoopMatrix { columns: 16, rows: 16, elem, role } if elem.is_float() => {
                let scalar = &elem.scalar();
                let ok = match role {
                    CoopRole::A | CoopRole::B => {
                        *scalar == Scalar::F16 || (*scalar == Scalar::F32 && tf32)
                    }
                    CoopRole::C => matches!(scalar, Scalar::F16 | Scalar::F32),
                };
                if ok {
                    let tf32 = *scalar == Scalar::F32 && *role != CoopRole::C;
                    return Ok(CoopShape {
                        role: *role,
                        elem: *elem,
                        n: 16,
                        tf32,
                        packed: false,
                        short: false,
                    });
                }
                if *scalar == Scalar::F32 {
                    return Err(CoopShapeError::ExactF32);
                }
                Err(CoopShapeError::Other16)
            }
            Type::CoopMatrix { columns: 8, rows: 8, elem, role } => {
                let tf32 = *elem == CoopElem::F32 && *role != CoopRole::C && tf32;
                Ok(CoopShape { role: *role, elem: *elem, n: 8, tf32, packed: false, short: false })
            }
            // Integer tensor cores: 16x16 results of 16x32 by 32x16 byte matrices.
            Type::CoopMatrix { columns: 16, rows: 16, elem, role: CoopRole::C } => Ok(CoopShape {
                role: CoopRole::C,
                elem: *elem,
                n: 16,
                tf32: false,
                packed: false,
                short: false,
            }),
            Type::CoopMatrix { columns, rows, elem, role }
                if elem.is_byte()
                    && matches!(
                        (role, columns, rows),
                        (CoopRole::A, 32, 16) | (CoopRole::B, 16, 32)
                    ) =>
            {
                Ok(CoopShape {
                    role: *role,
                    elem: *elem,
                    n: 16,
                    tf32: false,
                    packed: true,
                    short: false,
                })
            }
            // Dawn's M = 8 shapes (8x16x16 f16, 8x16x32 i8/u8): the top half of a 16-row A
            // or C.
            Type::CoopMatrix { columns: 16, rows: 8, elem: CoopElem::F16, role: CoopRole::A } => {
                let (role, elem) = (CoopRole::A, CoopElem::F16);
                Ok(CoopShape { role, elem, n: 16, tf32: false, packed: false, short: true })
            }
            Type::CoopMatrix { columns: 32, rows: 8, elem, role: CoopRole::A }
                if elem.is_byte() =>
            {
                let (role, elem) = (CoopRole::A, *elem);
                Ok(CoopShape { role, elem, n: 16, tf32: false, packed: true, short: true })
            }
            Type::CoopMatrix { columns: 16, rows: 8, elem, role: CoopRole::C } => {
                let (role, elem) = (CoopRole::C, *elem);
                Ok(CoopShape { role, elem, n: 16, tf32: false, packed: false, short: true })
            }
            _ => Err(CoopShapeError::Unsupported),
        }
    }

    /// The 16-row shape a short one is the top half of (itself when not short).
    pub fn full(self) -> CoopShape {
        CoopShape { short: false, ..self }
    }

    /// For a short shape: the register components of the full fragment that its components
    /// are, in order (the full fragment's components that hold rows 0..8).
    pub fn short_slots(self) -> Vec<usize> {
        // Row 8 + g is bit 1 of an element index (bit 0 of a packed word's).
        let b = if self.packed { 0 } else { 1 };
        (0..self.count()).map(|j| (insert_zero_bit(j, b)) as usize).collect()
    }

    /// Register components per lane: [`CoopShape::elems`], or 4 words for `packed` (2 when
    /// `short`).
    pub fn count(self) -> u32 {
        if self.packed {
            if self.short {
                2
            } else {
                4
            }
        } else {
            self.elems()
        }
    }

    /// Elements per lane.
    pub fn elems(self) -> u32 {
        let (rows, cols) = self.dims();
        rows * cols / 32
    }

    /// (rows, columns) of the matrix.
    pub fn dims(self) -> (u32, u32) {
        let (rows, cols) = match (self.packed, self.role) {
            (true, CoopRole::A) => (16, 32),
            (true, _) => (32, 16),
            _ => (self.n, self.n),
        };
        (if self.short { 8 } else { rows }, cols)
    }

    /// The lane's base (row, column) is `(g, u*t)` (A and C) or `(u*t, g)` (B) for this `u`:
    /// 4 for `packed`, 1 for TF32 A/B, 2 otherwise.
    pub fn lane_step(self) -> u32 {
        if self.packed {
            4
        } else if self.tf32 {
            1
        } else {
            2
        }
    }

    /// Whether a lane's elements `2p` and `2p + 1` are neighbours in memory: the pair runs
    /// along the row for A and C and along the column for B, so it is contiguous when that is
    /// the stored (minor) direction.
    pub fn pairs_contiguous(self, row_major: bool) -> bool {
        !self.tf32 && (self.role == CoopRole::B) != row_major
    }

    /// Whether a `packed` lane's words (elements `4w..4w + 4`) are 4 neighbouring bytes in
    /// memory: along the row for A, along the column for B.
    pub fn words_contiguous(self, row_major: bool) -> bool {
        self.packed && (self.role == CoopRole::B) != row_major
    }

    /// Row and column offsets of element `i` of a lane's fragment, relative to the lane's base
    /// (`(g, 2t)` for A and C, `(2t, g)` for B; with `tf32`, `(g, t)` for A and `(t, g)` for
    /// B).
    pub fn elem_coords(self, i: u32) -> (u32, u32) {
        if self.short {
            // Element i of the top half is element i' of the full fragment, with the row-8 bit
            // (bit 2 of a packed fragment's element, bit 1 otherwise) clear.
            return self.full().elem_coords(insert_zero_bit(i, if self.packed { 2 } else { 1 }));
        }
        if self.packed {
            // PTX ISA, mma.m16n8k32 .s8/.u8: A a_i at (g + 8*((i>>2)&1), 4t + (i&3) +
            // 16*(i>>3)); B (per 8-column n-tile i>>3, j = i&7) at (4t + (j&3) + 16*(j>>2), g).
            return if self.role == CoopRole::A {
                (8 * ((i >> 2) & 1), (i & 3) + 16 * (i >> 3))
            } else {
                let j = i & 7;
                ((j & 3) + 16 * (j >> 2), 8 * (i >> 3))
            };
        }
        match (self.n, self.role, self.tf32) {
            (8, CoopRole::A, true) => (0, 4 * i),
            (8, CoopRole::B, true) => (4 * i, 0),
            (8, CoopRole::B, false) => (i, 0),
            (8, _, _) => (0, i),
            (_, CoopRole::A, true) => {
                let j = i & 3;
                (8 * (j & 1), 4 * (j >> 1) + 8 * (i >> 2))
            }
            (_, CoopRole::B, true) => (4 * (i & 1) + 8 * ((i >> 1) & 1), 8 * (i >> 2)),
            (_, CoopRole::A, false) => (8 * ((i >> 1) & 1), (i & 1) + 8 * (i >> 2)),
            (_, CoopRole::B, false) => {
                let j = i & 3;
                ((j & 1) + 8 * (j >> 1), 8 * (i >> 2))
            }
            (_, CoopRole::C, _) => {
                let j = i & 3;
                (8 * (j >> 1), (j & 1) + 8 * (i >> 2))
            }
        }
    }
}

/// `x` with a zero bit inserted at bit `b` (the bits from `b` up move one place left).
fn insert_zero_bit(x: u32, b: u32) -> u32 {
    (x & ((1 << b) - 1)) | ((x >> b) << (b + 1))
}

/// A short fragment's components in the full fragment ([`CoopShape::short_slots`]), `zero`
/// in the components of rows 8..16.
pub fn pad_short<V: Copy>(shape: CoopShape, comps: &[V], zero: V) -> Vec<V> {
    let mut out = vec![zero; shape.full().count() as usize];
    for (&k, &c) in shape.short_slots().iter().zip(comps) {
        out[k] = c;
    }
    out
}

/// The components of rows 0..8 of a full fragment of short shape `shape`'s full shape.
pub fn cut_short<V: Copy>(shape: CoopShape, comps: &[V]) -> Vec<V> {
    shape.short_slots().iter().filter_map(|&k| comps.get(k).copied()).collect()
}

/// The shape of cooperative matrix value `v` and its lane fragment, checked to hold
/// [`CoopShape::count`] components.
pub fn coop_fragment<L: ScalarLowering>(l: &L, v: ValueId) -> R<(CoopShape, Vec<L::Value>)> {
    let shape = l.coop_layout(l.value_ty(v))?;
    let comps = l.value_comps(v)?;
    if comps.len() as u32 != shape.count() {
        return Err(l.internal("cooperative matrix fragment size"));
    }
    Ok((shape, comps))
}

/// The operands of `coopMultiplyAdd(a, b, c)` ([`mma_operands`]).
pub struct MmaOperands<V> {
    /// A's shape (B's is the same but for its role).
    pub a: CoopShape,
    /// C's shape.
    pub c: CoopShape,
    /// The lane fragments of A, B and C.
    pub frags: [Vec<V>; 3],
}

/// The operands of `coopMultiplyAdd(a, b, c)`, checked to be A, B and C of one size with A
/// and B of one element type.
pub fn mma_operands<L: ScalarLowering>(
    l: &L,
    a: ValueId,
    b: ValueId,
    c: ValueId,
) -> R<MmaOperands<L::Value>> {
    let sa = l.coop_layout(l.value_ty(a))?;
    let sb = l.coop_layout(l.value_ty(b))?;
    let sc = l.coop_layout(l.value_ty(c))?;
    if (sa.role, sb.role, sc.role) != (CoopRole::A, CoopRole::B, CoopRole::C)
        || sa.n != sb.n
        || sb.n != sc.n
        || sa.packed != sb.packed
        || sa.short != sc.short
        || sb.short
    {
        return Err(l.internal("coopMultiplyAdd operand roles"));
    }
    if sa.scalar() != sb.scalar() {
        return Err(l.unsupported("cooperative-matrix products of f16 by f32"));
    }
    let (av, bv, cv) = (l.value_comps(a)?, l.value_comps(b)?, l.value_comps(c)?);
    let counts = [sa.count(), sb.count(), sc.count()].map(|n| n as usize);
    if [av.len(), bv.len(), cv.len()] != counts {
        return Err(l.internal("cooperative matrix fragment size"));
    }
    Ok(MmaOperands { a: sa, c: sc, frags: [av, bv, cv] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_offsets_keep_the_root_and_narrow_the_alignment() {
        let p = Ptr::start(0u64, (), TypeId(0), Some(GlobalId(2)), 16);
        let q = p.offset(12u64, 12, TypeId(1));
        assert_eq!(
            (q.root, q.static_off, q.align, q.pointee),
            (Some(GlobalId(2)), Some(12), 4, TypeId(1))
        );
        // A zero offset proves nothing new: the alignment stays.
        assert_eq!(q.offset(12u64, 0, TypeId(1)).align, 4);
        assert_eq!(p.offset(0u64, 32, TypeId(0)).align, 16);
    }

    #[test]
    fn gathers_read_the_lanes_of_the_ptx_shfl_modes() {
        // `shfl.sync.up` takes clamp 0, the other modes 31 (PTX ISA, shfl.sync).
        assert_eq!(
            gather_plan(GatherMode::ShuffleUp, Some(7)),
            Some((ShflMode::Up, GatherLane::Index(7), 0))
        );
        assert_eq!(
            gather_plan(GatherMode::QuadBroadcast, Some(2)),
            Some((ShflMode::Idx, GatherLane::InQuad(2), 31))
        );
        // quadSwapDiagonal exchanges lanes 0<->3 and 1<->2 of a quad: xor 3.
        assert_eq!(
            gather_plan::<u32>(GatherMode::QuadSwap(Direction::Diagonal), None),
            Some((ShflMode::Bfly, GatherLane::Const(3), 31))
        );
        assert_eq!(gather_plan::<u32>(GatherMode::Shuffle, None), None);
    }

    #[test]
    fn a_fragment_of_m16n8k16_matches_the_ptx_layout() {
        // PTX ISA, mma.m16n8k16 .f16 A: a0,a1 at (g, 2t..), a2,a3 at (g+8, 2t..), a4,a5 at
        // (g, 2t+8..), a6,a7 at (g+8, 2t+8..).
        let sh = CoopShape {
            role: CoopRole::A,
            elem: CoopElem::F16,
            n: 16,
            tf32: false,
            packed: false,
            short: false,
        };
        let want = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)];
        let got: Vec<(u32, u32)> = (0..8).map(|i| sh.elem_coords(i)).collect();
        assert_eq!(got, want);
        assert_eq!(sh.count(), 8);
    }

    /// An 8-row (short) A or C: every element of its 8 rows is owned by exactly one (lane,
    /// element) pair; its components are the full fragment's components of rows 0..8
    /// (the ISA's positions written out here: f16 A and C a0,a1,a4,a5; int8 A words 0 and 2);
    /// padding puts them back in place with zeros between.
    #[test]
    fn short_fragments_are_the_top_rows_of_the_full_ones() {
        let short =
            |role, elem, packed| CoopShape { role, elem, n: 16, tf32: false, packed, short: true };
        let cases = [
            (short(CoopRole::A, CoopElem::F16, false), (8, 16), 2, vec![0, 1, 4, 5]),
            (short(CoopRole::C, CoopElem::F32, false), (8, 16), 2, vec![0, 1, 4, 5]),
            (short(CoopRole::A, CoopElem::I8, true), (8, 32), 4, vec![0, 2]),
        ];
        for (sh, dims, step, slots) in cases {
            assert_eq!(sh.dims(), dims);
            assert_eq!(sh.short_slots(), slots);
            let mut seen = vec![vec![0u32; dims.1 as usize]; dims.0 as usize];
            for lane in 0..32u32 {
                let (g, t) = (lane >> 2, lane % 4);
                for i in 0..sh.elems() {
                    let (r, c) = sh.elem_coords(i);
                    seen[(g + r) as usize][(step * t + c) as usize] += 1;
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{sh:?}: {seen:?}");
            let padded = pad_short(sh, &(1..=slots.len()).collect::<Vec<_>>(), 0);
            assert_eq!(padded.len(), sh.full().count() as usize);
            assert_eq!(cut_short(sh, &padded), (1..=slots.len()).collect::<Vec<_>>());
            assert_eq!(padded.iter().filter(|&&x| x == 0).count(), padded.len() - slots.len());
        }
    }
}
