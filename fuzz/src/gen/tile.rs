//! dianran's workgroup matrices (`enable dianran_workgroup_matrix;`, docs/workgroup-matrix.md)
//! in generated programs: one tile per workgroup, started as zero, filled or loaded from an
//! input buffer (now and then with a bound), multiplied once or twice with operands from
//! `in_f` and `in_h` in every majorness, and stored to the workgroup's own region of `out_t`
//! (now and then with a bound).
//!
//! Determinism: the phase runs first in the entry point (uniform control flow, workgroups of
//! 128), with offsets and strides from constants, the uniform buffer and the workgroup id,
//! so the rules of the extension hold. Regions of different workgroups in `out_t` do not
//! overlap (strides are at least 64). Operands may run past the end of their arrays (those
//! elements read zero, as the bounds policy defines); values are small so sums stay exact
//! enough for the comparison bounds.

use super::Gen;
use crate::ast::{Expr, Stmt, Ty, S};

/// The type as programs spell it.
const TILE: &str = "workgroup_matrix_result<f32, 64, 64>";

impl Gen {
    /// The statements of the tile phase, and the runtime array length they need.
    pub(super) fn tile_phase(&mut self) -> (Vec<Stmt>, u32) {
        let u = Ty::S(S::U32);
        let tt = Ty::Sgm(TILE.into());
        let [dx, dy, _] = self.dispatch;
        let mut out = vec![Stmt::Let(
            "twg".into(),
            Expr::lit(format!("(wid.x + wid.y * {dx}u + wid.z * {}u)", dx * dy), u.clone()),
        )];
        let mut need = 0u32;
        let init = match self.rng.below(3) {
            0 => Expr::call(TILE, vec![], tt.clone()),
            1 => {
                let v = *self.rng.pick(&["0.5f", "-1.25f", "f32(uni.k % 4u) * 0.25"]);
                Expr::call(TILE, vec![Expr::lit(v, Ty::S(S::F32))], tt.clone())
            }
            _ => {
                let (array, row_major, stride, extent) = self.tile_place();
                need = need.max(extent);
                let mut args = vec![
                    Expr::lit(format!("&{array}"), u.clone()),
                    Expr::lit(format!("{}u", self.rng.below(5)), u.clone()),
                    Expr::lit(stride, u.clone()),
                ];
                args.extend(self.tile_bound());
                Expr::call(format!("workgroupMatrixLoad<{}>", major(row_major)), args, tt.clone())
            }
        };
        out.push(Stmt::Var("wt".into(), tt.clone(), Some(init)));
        let acc = Expr::name("wt", tt.clone());
        for _ in 0..1 + self.rng.below(2) {
            let k = *self.rng.pick(&[16u32, 32]);
            let mut args = Vec::new();
            let mut majors = Vec::new();
            // Left: 64 x K; right: K x 64.
            for (rows, cols) in [(64, k), (k, 64)] {
                let array = *self.rng.pick(&["in_f", "in_h"]);
                let row_major = self.rng.chance(50);
                let minor = if row_major { cols } else { rows };
                let major_len = if row_major { rows } else { cols };
                let stride = minor + self.rng.below(3);
                let off = self.rng.below(7);
                need = need.max(off + (major_len - 1) * stride + minor);
                let stride = if self.rng.chance(20) {
                    format!("(uni.k % 1u + {stride}u)")
                } else {
                    format!("{stride}u")
                };
                args.push(Expr::lit(format!("&{array}"), u.clone()));
                args.push(Expr::lit(format!("{off}u"), u.clone()));
                args.push(Expr::lit(stride, u.clone()));
                majors.push(major(row_major));
            }
            args.push(acc.clone());
            let f = format!("workgroupMatrixMultiplyAccumulate<{k}, {}, {}>", majors[0], majors[1]);
            out.push(Stmt::Assign(acc.clone(), "=", Expr::call(f, args, tt.clone())));
        }
        // Each workgroup's region of `out_t`: stride at least 64 and a gap, so regions never
        // overlap; the last one may be cut by the end of the array.
        let row_major = self.rng.chance(50);
        let stride = 64 + self.rng.below(3);
        let region = 63 * stride + 64 + self.rng.below(4);
        let workgroups: u32 = self.dispatch.iter().product();
        need = need.max(workgroups * region);
        let mut args = vec![
            Expr::lit("&out_t", u.clone()),
            Expr::lit(format!("twg * {region}u"), u.clone()),
            acc,
            Expr::lit(format!("{stride}u"), u.clone()),
        ];
        args.extend(self.tile_bound());
        out.push(Stmt::Call(format!("workgroupMatrixStore<{}>", major(row_major)), args));
        (out, need)
    }

    /// A tile's place in an input array: (array, row-major, stride text, extent).
    fn tile_place(&mut self) -> (&'static str, bool, String, u32) {
        let array = *self.rng.pick(&["in_f", "in_h"]);
        let row_major = self.rng.chance(50);
        let stride = 64 + self.rng.below(3);
        (array, row_major, format!("{stride}u"), 63 * stride + 64 + 4)
    }

    /// No bound, or a (columns, rows) bound of constants or uniform values.
    fn tile_bound(&mut self) -> Vec<Expr> {
        if self.rng.chance(50) {
            return Vec::new();
        }
        let u = Ty::S(S::U32);
        let one = |g: &mut Gen| {
            if g.rng.chance(30) {
                Expr::lit("(uni.k % 64u + 1u)", u.clone())
            } else {
                Expr::lit(format!("{}u", 1 + g.rng.below(70)), u.clone())
            }
        };
        let c = one(self);
        let r = one(self);
        vec![c, r]
    }
}

fn major(row_major: bool) -> &'static str {
    if row_major {
        "row_major"
    } else {
        "col_major"
    }
}
