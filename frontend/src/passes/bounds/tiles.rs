//! Cooperative-matrix tiles under the bounds policy (`docs/bounds.md`, "Cooperative-matrix
//! tiles").
//!
//! A `coopLoad`/`coopStore` names one element, `&a[i]`, but touches a whole tile from there:
//! element (r, c) at `r * stride + c` (row-major) or `c * stride + r`. The rule is the buffer
//! rule applied per element: an element past the end of the array reads zero, a store to it is
//! dropped. The pass does not guard the operation (cooperative operations must stay in uniform
//! control flow, and a whole-tile guard would lose the elements that are in range); it gives
//! the operation a `limit`, the number of elements from `&a[i]` to the end of the array, and
//! each backend and the interpreter mask the elements at offsets `>= limit`.
//!
//! Nested fixed-size arrays of scalars (`array<array<f16, 16>, 16>`, `&t[i][j]`) are one
//! array of their scalars, in memory order, so a tile may run across the inner rows as its
//! stride says. Each index on the way must be inside its own array (else `limit` is zero, the
//! whole tile is outside); outer indices of workgroup and function memory have already been
//! clamped by the element rule. A pointer that is not an array element (`&x` of a lone
//! scalar, a struct member) bounds the tile to that one element. A pointer a function
//! receives as a parameter is not known here and is left unchecked (`docs/bounds.md`).
//!
//! No limit is needed (the check is "eliminated") when the stride is a constant and every
//! index has a known largest value that keeps the whole tile inside a fixed-size array.

use super::*;

/// An index on the way to a tile's first element.
#[derive(Clone, Copy)]
enum Index {
    /// A runtime value.
    Value(ValueId),
    /// A constant (`AccessIndex`, or 0 for a lone scalar).
    Const(u64),
}

/// One array level on the way to a tile's first element: `index` into an array of `len`
/// elements of `elems` scalars each.
struct Level {
    index: Index,
    len: Bound,
    elems: u64,
}

impl Pass<'_> {
    /// The pointer and `limit` a cooperative load or store of a matrix of type `matrix` at
    /// `ptr` runs with, emitting the limit's computation into `out`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tile_limit(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        ptr: ValueId,
        (matrix, row_major): (TypeId, bool),
        stride: ValueId,
        facts: &[Fact],
        span: Span,
    ) -> (ValueId, Option<ValueId>) {
        let raw = self.tile_ptrs.get(&ptr).copied().unwrap_or(ptr);
        let Some((levels, outer)) = self.tile_levels(values, raw) else {
            return (raw, None);
        };
        let base_cond = self.conds.get(&outer).copied();
        let ptr_ty = values[raw.index()].ty;
        let scale = u64::from(self.types.coop_scale(ptr_ty, matrix));
        if base_cond.is_none() {
            let last = self
                .max_of(values, stride)
                .filter(|_| self.is_const(stride))
                .and_then(|s| self.types.coop_last_offset(matrix, ptr_ty, row_major, s));
            if let (Some(last), Some(total), Some(first)) =
                (last, total_const(&levels), self.max_flat(values, &levels, facts))
            {
                let (first, total) = (first.saturating_mul(scale), total.saturating_mul(scale));
                if first.checked_add(last).is_some_and(|e| e < total) {
                    self.counts.eliminated += 1;
                    return (raw, None);
                }
            }
        }
        self.counts.emitted += 1;
        let limit = self.emit_limit(values, out, &levels, base_cond, facts, span);
        let limit = self.scale_limit(values, out, limit, scale, span);
        (raw, Some(limit))
    }

    /// `min(limit, u32::MAX / scale) * scale`: the limit in matrix elements (saturating, so
    /// a tile in a buffer beyond 4 GiB of elements counts the far part as outside).
    fn scale_limit(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        limit: ValueId,
        scale: u64,
        span: Span,
    ) -> ValueId {
        if scale <= 1 {
            return limit;
        }
        let u32t = self.u32t;
        let cap = self.constant(values, out, u64::from(u32::MAX) / scale, false, span);
        let capped =
            self.emit(values, out, u32t, Op::Math(MathFunction::Min, vec![limit, cap]), span);
        let k = self.constant(values, out, scale, false, span);
        self.emit(values, out, u32t, Op::Binary(B::Multiply, capped, k), span)
    }

    /// The array levels from `ptr` outwards, innermost first, and the pointer they start
    /// from; a pointer to a lone scalar is one level of one element. `None` when `ptr`'s
    /// definition is not known here (a function parameter).
    fn tile_levels(&self, values: &[ValueData], ptr: ValueId) -> Option<(Vec<Level>, ValueId)> {
        let array_step = |p: ValueId| -> Option<(ValueId, Index, Bound, TypeId)> {
            let (base, index) = match self.defs.get(&p)? {
                Op::Access(b, i) => (*b, Index::Value(*i)),
                Op::AccessIndex(b, k) => (*b, Index::Const(u64::from(*k))),
                _ => return None,
            };
            let Type::Pointer { base: pointee, .. } = self.types.get(values[base.index()].ty)
            else {
                return None;
            };
            let Type::Array { base: elem, len, .. } = self.types.get(*pointee) else {
                return None;
            };
            let len = match len {
                Some(n) => Bound::Const(u64::from(*n)),
                None => Bound::Len(base),
            };
            Some((base, index, len, *elem))
        };
        let Some((mut base, index, len, _)) = array_step(ptr) else {
            return match self.defs.get(&ptr) {
                Some(Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::AccessIndex(..)) => {
                    let lone = Level { index: Index::Const(0), len: Bound::Const(1), elems: 1 };
                    Some((vec![lone], ptr))
                }
                _ => None,
            };
        };
        let mut levels = vec![Level { index, len, elems: 1 }];
        while let Some((outer, index, len, elem)) = array_step(base) {
            // Only arrays whose elements are contiguous arrays of scalars flatten; a
            // runtime-sized one only when its elements are scalars (its total would not fit
            // a `u32` otherwise).
            let Some(elems) = contiguous_scalars(self.types, elem) else { break };
            if matches!(len, Bound::Len(_)) && elems > 1 {
                break;
            }
            levels.push(Level { index, len, elems });
            base = outer;
        }
        Some((levels, base))
    }

    /// The largest flat element index of the tile's first element, when every level's index
    /// has a known largest value below its array's length.
    fn max_flat(&self, values: &[ValueData], levels: &[Level], facts: &[Fact]) -> Option<u64> {
        let mut sum: u64 = 0;
        for l in levels {
            let Bound::Const(n) = l.len else { return None };
            let max = match l.index {
                Index::Const(k) => k,
                Index::Value(v) => self
                    .max_of(values, v)
                    .into_iter()
                    .chain(self.upper(values, v, facts, 0))
                    .min()?,
            };
            if max >= n {
                return None;
            }
            sum = sum.checked_add(max.checked_mul(l.elems)?)?;
        }
        Some(sum)
    }

    /// `select(0u, total - flat, cond)`: the elements from the tile's first element to the
    /// end of the flattened array, zero when an index is outside its array (`cond` joins
    /// those comparisons and the checks of the indices above the array, `base_cond`).
    fn emit_limit(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        levels: &[Level],
        base_cond: Option<ValueId>,
        facts: &[Fact],
        span: Span,
    ) -> ValueId {
        let u32t = self.u32t;
        let mut cond = base_cond;
        let mut flat: Option<ValueId> = None;
        for l in levels {
            let index = match l.index {
                Index::Const(k) => self.constant(values, out, k, false, span),
                Index::Value(v) => {
                    if !self.proven(values, v, l.len, facts) {
                        let c = self.in_range(values, out, v, l.len, span);
                        cond = Some(self.and(values, out, cond, c, span));
                    }
                    let (u, wide) = self.unsigned(values, out, v, span);
                    if wide {
                        // Exact wherever the condition holds (the index is below a `u32`
                        // length there).
                        self.emit(values, out, u32t, Op::Convert(u, Scalar::U32), span)
                    } else {
                        u
                    }
                }
            };
            let term = if l.elems == 1 {
                index
            } else {
                let k = self.constant(values, out, l.elems, false, span);
                self.emit(values, out, u32t, Op::Binary(B::Multiply, index, k), span)
            };
            flat = Some(match flat {
                Some(f) => self.emit(values, out, u32t, Op::Binary(B::Add, f, term), span),
                None => term,
            });
        }
        let total = match levels.last().map(|l| (l.len, l.elems)) {
            Some((Bound::Len(p), _)) => self.emit(values, out, u32t, Op::ArrayLength(p), span),
            Some((Bound::Const(n), elems)) => {
                self.constant(values, out, n.saturating_mul(elems), false, span)
            }
            None => self.constant(values, out, 0, false, span),
        };
        let flat = match flat {
            Some(f) => f,
            None => self.constant(values, out, 0, false, span),
        };
        let diff = self.emit(values, out, u32t, Op::Binary(B::Subtract, total, flat), span);
        match cond {
            Some(c) => {
                let zero = self.constant(values, out, 0, false, span);
                let op = Op::Select { cond: c, accept: diff, reject: zero };
                self.emit(values, out, u32t, op, span)
            }
            None => diff,
        }
    }
}

/// The total element count of the flattened array, when every level is fixed-size and it
/// fits a `u32`.
fn total_const(levels: &[Level]) -> Option<u64> {
    let outer = levels.last()?;
    let Bound::Const(n) = outer.len else { return None };
    n.checked_mul(outer.elems).filter(|&t| t <= u64::from(u32::MAX))
}

/// The scalar count of `t` when it is a scalar or a fixed-size array of such, nested, with
/// no padding between elements (so its scalars are contiguous in memory).
fn contiguous_scalars(types: &Types, t: TypeId) -> Option<u64> {
    match types.get(t) {
        Type::Scalar(_) => Some(1),
        Type::Array { base, len: Some(n), stride } => {
            let inner = contiguous_scalars(types, *base)?;
            let (size, _) = types.size_align(*base);
            if *stride == size {
                inner.checked_mul(u64::from(*n))
            } else {
                None
            }
        }
        _ => None,
    }
}
