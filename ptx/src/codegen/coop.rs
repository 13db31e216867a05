//! Cooperative matrices on tensor cores: `coop_mat16x16` with `mma.sync.m16n8k16`.
//!
//! A 16x16 matrix is spread over the 32 lanes of a warp as 8 elements per lane in the
//! fragment layout of `mma.m16n8k16` (PTX ISA "Matrix Fragments for mma.m16n8k16 with floating
//! point type"; `g = laneid >> 2`, `t = laneid % 4`), the 16 columns as two 8-column n-tiles:
//!
//! | role | element `i` | row | column |
//! |---|---|---|---|
//! | A (M x K, f16) | 0..8 | `g + 8*((i>>1)&1)` | `2t + (i&1) + 8*(i>>2)` |
//! | B (K x N, f16) | tile `i>>2`, `j = i&3` | `2t + (j&1) + 8*(j>>1)` | `g + 8*tile` |
//! | C (M x N, f32/f16) | tile `i>>2`, `j = i&3` | `g + 8*(j>>1)` | `2t + (j&1) + 8*tile` |
//!
//! `coopLoad`/`coopStore` move each lane's 8 elements one by one (element (r, c) at element
//! offset `c*stride + r`, or `r*stride + c` for the `T` forms); `coopMultiplyAdd` packs the f16
//! pairs and issues two `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, one per n-tile,
//! accumulating in f32 (an f16 accumulator is widened and rounded once, as the reference
//! interpreter does).
//!
//! PTX has no exact f32 tensor-core product, so f32 A/B matrices are a diagnostic unless
//! [`super::Options::tf32`] is set. Then they use the layout of `mma.m16n8k8` with `.tf32`
//! (PTX ISA "Matrix Fragments for mma.m16n8k8", `.tf32`), as two 8-wide k-steps:
//!
//! | role | element `i` | row | column |
//! |---|---|---|---|
//! | A (M x K, f32) | k-step `i>>2`, `j = i&3` | `g + 8*(j&1)` | `t + 4*(j>>1) + 8*(i>>2)` |
//! | B (K x N, f32) | tile `i>>2`, k-step `(i>>1)&1` | `t + 4*(i&1) + 8*((i>>1)&1)` | `g + 8*tile` |
//!
//! and a product is four `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` (2 k-steps x
//! 2 n-tiles) on operands rounded with `cvt.rna.tf32.f32`.

use super::layout::kind_of;
use super::lower::Lower;
use super::regalloc::{RegKind, VRegId};
use dianran_frontend::ir::{CoopRole, Scalar, Type, TypeId, ValueId};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// Row and column offsets of element `i` of a lane's fragment, relative to the lane's base
/// (`(g, 2t)` for A and C, `(2t, g)` for B; with `tf32`, `(g, t)` for A and `(t, g)` for B).
fn elem_coords(role: CoopRole, tf32: bool, i: u32) -> (u32, u32) {
    // (8x8 matrices use the C layout with i < 2: (0, i).)
    match role {
        CoopRole::A if tf32 => {
            let j = i & 3;
            (8 * (j & 1), 4 * (j >> 1) + 8 * (i >> 2))
        }
        CoopRole::B if tf32 => (4 * (i & 1) + 8 * ((i >> 1) & 1), 8 * (i >> 2)),
        CoopRole::A => (8 * ((i >> 1) & 1), (i & 1) + 8 * (i >> 2)),
        CoopRole::B => {
            let j = i & 3;
            ((j & 1) + 8 * (j >> 1), 8 * (i >> 2))
        }
        CoopRole::C => {
            let j = i & 3;
            (8 * (j >> 1), (j & 1) + 8 * (i >> 2))
        }
    }
}

/// Where a lane's fragment lives in memory.
#[derive(Clone, Copy)]
struct Frag {
    /// Address of the matrix's first element.
    ptr: VRegId,
    /// The lane's element offset of its element 0 ([`Lower::coop_lane_base`]).
    base: VRegId,
    /// Stride in elements.
    stride: VRegId,
    /// Fragment layout.
    role: CoopRole,
    /// `T` form (row-major).
    row_major: bool,
    /// The TF32 layout of f32 A/B matrices.
    tf32: bool,
    /// Element size in bytes.
    size: u32,
}

impl Lower<'_> {
    /// The (role, scalar, size) of a supported cooperative matrix type: 16x16 with f16 A/B
    /// (f32 A/B with [`Lower::tf32`]) and f16/f32 C (tensor cores), or 8x8 of f16/f32 in any
    /// role (shuffles and FMA units).
    fn coop_shape(&self, ty: TypeId) -> R<(CoopRole, Scalar, u32)> {
        match self.types.get(ty) {
            Type::CoopMatrix { columns: 16, rows: 16, scalar, role } => {
                let ok = match role {
                    CoopRole::A | CoopRole::B => {
                        *scalar == Scalar::F16 || (*scalar == Scalar::F32 && self.tf32)
                    }
                    CoopRole::C => matches!(scalar, Scalar::F16 | Scalar::F32),
                };
                if ok {
                    return Ok((*role, *scalar, 16));
                }
                if *scalar == Scalar::F32 {
                    return Err(self
                        .err_unsupported(
                            "exact f32 x f32 cooperative-matrix products (coop_mat16x16<f32, A/B>)",
                        )
                        .help("pass --tf32 to use TF32 tensor cores (10-bit mantissa products)"));
                }
                Err(self.err_unsupported(
                    "cooperative matrices other than coop_mat16x16 with f16 A/B and f16/f32 C",
                ))
            }
            Type::CoopMatrix {
                columns: 8,
                rows: 8,
                scalar: s @ (Scalar::F16 | Scalar::F32),
                role,
            } => Ok((*role, *s, 8)),
            _ => Err(self.err_unsupported("this cooperative matrix type")),
        }
    }

    /// Each lane's element offset of its fragment's element 0: row-major `row*S + col`,
    /// column-major `col*S + row`, with (row, col) the lane's base.
    fn coop_lane_base(
        &mut self,
        role: CoopRole,
        tf32: bool,
        stride: VRegId,
        row_major: bool,
    ) -> VRegId {
        let lane = self.op1(RegKind::B32, "mov.u32 {d0}, %laneid", vec![]);
        let g = self.op1(RegKind::B32, "shr.u32 {d0}, {u0}, 2", vec![lane]);
        let t = self.op1(RegKind::B32, "and.b32 {d0}, {u0}, 3", vec![lane]);
        let t2 = if tf32 { t } else { self.op1(RegKind::B32, "shl.b32 {d0}, {u0}, 1", vec![t]) };
        let (br, bc) = if role == CoopRole::B { (t2, g) } else { (g, t2) };
        let (hi, lo) = if row_major { (br, bc) } else { (bc, br) };
        self.op1(RegKind::B32, "mad.lo.s32 {d0}, {u0}, {u1}, {u2}", vec![hi, stride, lo])
    }

    /// Byte address of element `i` of the lane's fragment.
    fn coop_elem_addr(&mut self, f: &Frag, i: u32) -> VRegId {
        let Frag { ptr, base, stride, role, row_major, tf32, size } = *f;
        let (r, c) = elem_coords(role, tf32, i);
        let (hi, lo) = if row_major { (r, c) } else { (c, r) };
        let k = self.op1(RegKind::B32, format!("mul.lo.s32 {{d0}}, {{u0}}, {hi}"), vec![stride]);
        let e = self.op1(RegKind::B32, format!("add.s32 {{d0}}, {{u0}}, {lo}"), vec![k]);
        let e = self.op1(RegKind::B32, "add.s32 {d0}, {u0}, {u1}", vec![e, base]);
        let off = self.op1(RegKind::B64, format!("mul.wide.u32 {{d0}}, {{u0}}, {size}"), vec![e]);
        self.op1(RegKind::B64, "add.s64 {d0}, {u0}, {u1}", vec![ptr, off])
    }

    /// `coopLoad` / `coopLoadT`.
    pub(crate) fn coop_load(
        &mut self,
        ty: TypeId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
    ) -> R<Vec<VRegId>> {
        let (role, s, n) = self.coop_shape(ty)?;
        // 8x8 fragments all use the accumulator layout (row g, columns 2t, 2t+1).
        let role = if n == 8 { CoopRole::C } else { role };
        let tf32 = tf32_layout(role, s, n);
        let p = self.ptr(ptr)?;
        let st = self.scalar(stride)?;
        let base = self.coop_lane_base(role, tf32, st, row_major);
        let sp = p.space.name();
        let mut out = Vec::new();
        for i in 0..n * n / 32 {
            let frag =
                Frag { ptr: p.addr, base, stride: st, role, row_major, tf32, size: s.size() };
            let a = self.coop_elem_addr(&frag, i);
            let text = if s == Scalar::F16 {
                format!("ld.{sp}.b16 {{d0}}, [{{u0}}+0]")
            } else {
                format!("ld.{sp}.u32 {{d0}}, [{{u0}}+0]")
            };
            out.push(self.op1(kind_of(s), text, vec![a]));
        }
        Ok(out)
    }

    /// `coopStore` / `coopStoreT`.
    pub(crate) fn coop_store(
        &mut self,
        value: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
    ) -> R<()> {
        let vty = self.ty(value);
        let (role, s, n) = self.coop_shape(vty)?;
        let role = if n == 8 { CoopRole::C } else { role };
        let v = self.comps(value)?;
        if v.len() as u32 != n * n / 32 {
            return Err(self.err_internal("cooperative matrix fragment size"));
        }
        let tf32 = tf32_layout(role, s, n);
        let p = self.ptr(ptr)?;
        let st = self.scalar(stride)?;
        let base = self.coop_lane_base(role, tf32, st, row_major);
        let sp = p.space.name();
        for (i, &x) in v.iter().enumerate() {
            let frag =
                Frag { ptr: p.addr, base, stride: st, role, row_major, tf32, size: s.size() };
            let a = self.coop_elem_addr(&frag, i as u32);
            let text = if s == Scalar::F16 {
                format!("st.{sp}.b16 [{{u0}}+0], {{u1}}")
            } else {
                format!("st.{sp}.u32 [{{u0}}+0], {{u1}}")
            };
            self.emit(text, vec![], vec![a, x]);
        }
        Ok(())
    }

    /// `coopMultiplyAdd(a, b, c)` = a·b + c with two `mma.sync` (one per 8-column n-tile).
    pub(crate) fn coop_mma(&mut self, a: ValueId, b: ValueId, c: ValueId) -> R<Vec<VRegId>> {
        let (ra, sa, na) = self.coop_shape(self.ty(a))?;
        let (rb, sb, nb) = self.coop_shape(self.ty(b))?;
        let (rc, sc, nc) = self.coop_shape(self.ty(c))?;
        if (ra, rb, rc) != (CoopRole::A, CoopRole::B, CoopRole::C) || na != nb || nb != nc {
            return Err(self.err_internal("coopMultiplyAdd operand roles"));
        }
        if na == 8 {
            return self.coop_mma8(a, sa, b, sb, c, sc);
        }
        let (av, bv, cv) = (self.comps(a)?, self.comps(b)?, self.comps(c)?);
        if av.len() != 8 || bv.len() != 8 || cv.len() != 8 {
            return Err(self.err_internal("cooperative matrix fragment size"));
        }
        if sa != sb {
            return Err(self.err_unsupported("cooperative-matrix products of f16 by f32"));
        }
        if sa == Scalar::F32 {
            return Ok(self.coop_mma_tf32(&av, &bv, &cv, sc));
        }
        let pack = |l: &mut Self, x: VRegId, y: VRegId| {
            l.op1(RegKind::B32, "mov.b32 {d0}, {{u0}, {u1}}", vec![x, y])
        };
        let mut areg = Vec::new();
        for j in 0..4 {
            areg.push(pack(self, av[2 * j], av[2 * j + 1]));
        }
        let mut out = Vec::new();
        for tile in 0..2 {
            let b0 = pack(self, bv[4 * tile], bv[4 * tile + 1]);
            let b1 = pack(self, bv[4 * tile + 2], bv[4 * tile + 3]);
            let cs: Vec<VRegId> =
                cv[4 * tile..4 * tile + 4].iter().map(|&x| self.widen_f16(sc, x)).collect();
            let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
            let mut uses = areg.clone();
            uses.extend([b0, b1]);
            uses.extend(cs);
            self.emit(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{d0}, {d1}, {d2}, {d3}}, \
                 {{u0}, {u1}, {u2}, {u3}}, {{u4}, {u5}}, {{u6}, {u7}, {u8}, {u9}}",
                d.clone(),
                uses,
            );
            for x in d {
                out.push(self.narrow_f16(sc, x));
            }
        }
        Ok(out)
    }
}

impl Lower<'_> {
    /// 16x16 f32 `a·b + c` on TF32 tensor cores: operands rounded with `cvt.rna.tf32.f32`, then
    /// per n-tile two chained `mma.m16n8k8` (k-steps 0 and 1), accumulating in f32.
    fn coop_mma_tf32(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        sc: Scalar,
    ) -> Vec<VRegId> {
        self.used_tf32 = true;
        let cvt = "cvt.rna.tf32.f32 {d0}, {u0}";
        let at: Vec<VRegId> = av.iter().map(|&x| self.op1(RegKind::B32, cvt, vec![x])).collect();
        let bt: Vec<VRegId> = bv.iter().map(|&x| self.op1(RegKind::B32, cvt, vec![x])).collect();
        let mut out = Vec::new();
        for (tile, c4) in cv.chunks(4).enumerate() {
            let mut acc: Vec<VRegId> = c4.iter().map(|&x| self.widen_f16(sc, x)).collect();
            for (ks, a4) in at.chunks(4).enumerate() {
                let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
                let mut uses = a4.to_vec();
                uses.extend(bt.iter().skip(4 * tile + 2 * ks).take(2));
                uses.extend(acc);
                self.emit(
                    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{d0}, {d1}, {d2}, {d3}}, \
                     {{u0}, {u1}, {u2}, {u3}}, {{u4}, {u5}}, {{u6}, {u7}, {u8}, {u9}}",
                    d.clone(),
                    uses,
                );
                acc = d;
            }
            for x in acc {
                out.push(self.narrow_f16(sc, x));
            }
        }
        out
    }

    /// 8x8 `a·b + c` without tensor cores: lane (g, t) owns D[g][2t + e]; it gathers row g of
    /// A and columns 2t, 2t+1 of B with `shfl.sync.idx` and accumulates like the reference
    /// interpreter: products summed in order from 0 with unfused `mul.rn`/`add.rn`, then C.
    fn coop_mma8(
        &mut self,
        a: ValueId,
        sa: Scalar,
        b: ValueId,
        sb: Scalar,
        c: ValueId,
        sc: Scalar,
    ) -> R<Vec<VRegId>> {
        let (av, bv, cv) = (self.comps(a)?, self.comps(b)?, self.comps(c)?);
        if av.len() != 2 || bv.len() != 2 || cv.len() != 2 {
            return Err(self.err_internal("cooperative matrix fragment size"));
        }
        let av: Vec<VRegId> = av.iter().map(|&x| self.widen_f16(sa, x)).collect();
        let bv: Vec<VRegId> = bv.iter().map(|&x| self.widen_f16(sb, x)).collect();
        let lane = self.op1(RegKind::B32, "mov.u32 {d0}, %laneid", vec![]);
        let g = self.op1(RegKind::B32, "shr.u32 {d0}, {u0}, 2", vec![lane]);
        let t = self.op1(RegKind::B32, "and.b32 {d0}, {u0}, 3", vec![lane]);
        let g4 = self.op1(RegKind::B32, "shl.b32 {d0}, {u0}, 2", vec![g]);
        let shfl = "shfl.sync.idx.b32 {d0}, {u0}, {u1}, 31, -1";
        // A[g][k] lives in lane 4g + k/2, element k%2.
        let mut arow = Vec::new();
        for k in 0..8u32 {
            let src =
                self.op1(RegKind::B32, format!("add.s32 {{d0}}, {{u0}}, {}", k >> 1), vec![g4]);
            arow.push(self.op1(RegKind::B32, shfl, vec![av[(k & 1) as usize], src]));
        }
        let mut out = Vec::new();
        for (e, &ce) in cv.iter().enumerate() {
            let mut acc = self.imm_f32(0.0);
            for (k, &ak) in arow.iter().enumerate() {
                // B[k][2t + e] lives in lane 4k + t, element e.
                let src =
                    self.op1(RegKind::B32, format!("add.s32 {{d0}}, {{u0}}, {}", 4 * k), vec![t]);
                let bk = self.op1(RegKind::B32, shfl, vec![bv[e], src]);
                let p = self.op1(RegKind::B32, "mul.rn.f32 {d0}, {u0}, {u1}", vec![ak, bk]);
                acc = self.op1(RegKind::B32, "add.rn.f32 {d0}, {u0}, {u1}", vec![acc, p]);
            }
            let cw = self.widen_f16(sc, ce);
            let r = self.op1(RegKind::B32, "add.rn.f32 {d0}, {u0}, {u1}", vec![acc, cw]);
            out.push(self.narrow_f16(sc, r));
        }
        Ok(out)
    }
}

/// Whether a fragment uses the TF32 layout: 16x16 f32 A and B matrices.
fn tf32_layout(role: CoopRole, s: Scalar, n: u32) -> bool {
    n == 16 && s == Scalar::F32 && role != CoopRole::C
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (row, column) of a 16x16 matrix is owned by exactly one (lane, element) pair, for
    /// each role, with the PTX ISA's formulas written out independently here.
    #[test]
    fn fragments_cover_the_matrix_once() {
        for role in [CoopRole::A, CoopRole::B, CoopRole::C] {
            let mut seen = [[0u32; 16]; 16];
            for lane in 0..32u32 {
                let (g, t) = (lane >> 2, lane % 4);
                for i in 0..8 {
                    let (r, c) = elem_coords(role, false, i);
                    let (row, col) =
                        if role == CoopRole::B { (2 * t + r, g + c) } else { (g + r, 2 * t + c) };
                    seen[row as usize][col as usize] += 1;
                    // Independent statement of the ISA tables.
                    let want = match role {
                        CoopRole::A => {
                            let row = if matches!(i, 0 | 1 | 4 | 5) { g } else { g + 8 };
                            let col = if i < 4 { 2 * t + (i & 1) } else { 2 * t + (i & 1) + 8 };
                            (row, col)
                        }
                        CoopRole::B => {
                            let j = i % 4;
                            let k = if j < 2 { 2 * t + (j & 1) } else { 2 * t + (j & 1) + 8 };
                            (k, g + 8 * (i / 4))
                        }
                        CoopRole::C => {
                            let j = i % 4;
                            let row = if j < 2 { g } else { g + 8 };
                            (row, 2 * t + (j & 1) + 8 * (i / 4))
                        }
                    };
                    assert_eq!((row, col), want, "{role:?} lane {lane} element {i}");
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{role:?}");
        }
    }

    /// The TF32 layout: per k-step `ks` and n-tile, the ISA's m16n8k8 `.tf32` table
    /// (A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B: b0 (t, g), b1 (t+4, g)),
    /// and every element owned once.
    #[test]
    fn tf32_fragments_cover_the_matrix_once() {
        for role in [CoopRole::A, CoopRole::B] {
            let mut seen = [[0u32; 16]; 16];
            for lane in 0..32u32 {
                let (g, t) = (lane >> 2, lane % 4);
                for i in 0..8 {
                    let (r, c) = elem_coords(role, true, i);
                    let (row, col) =
                        if role == CoopRole::B { (t + r, g + c) } else { (g + r, t + c) };
                    seen[row as usize][col as usize] += 1;
                    let want = if role == CoopRole::A {
                        let (ks, a) = (i / 4, i % 4);
                        let tab = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)];
                        (tab[a as usize].0, tab[a as usize].1 + 8 * ks)
                    } else {
                        let (tile, ks, b) = (i / 4, (i / 2) % 2, i % 2);
                        let tab = [(t, g), (t + 4, g)];
                        (tab[b as usize].0 + 8 * ks, tab[b as usize].1 + 8 * tile)
                    };
                    assert_eq!((row, col), want, "{role:?} lane {lane} element {i}");
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{role:?}");
        }
    }
}
