//! Subgroup operations both PTX backends share: which lanes a gather reads, ballots as
//! `vec4<u32>`, and vectors reduced or shuffled component by component. A backend provides
//! the warp primitives ([`SubgroupLowering`]).

use super::{gather_plan, GatherLane, ScalarLowering};
use crate::model::ShflMode;
use dianran_frontend::ir::{CollectiveOperation, Op, Scalar, SubgroupOperation, ValueId};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// The warp primitives [`subgroup_op`] needs; every one takes the member mask of the
/// active lanes that [`SubgroupLowering::active_mask`] returned.
pub trait SubgroupLowering: ScalarLowering {
    /// The member mask of the lanes executing the operation (`activemask`).
    fn active_mask(&mut self) -> R<Self::Value>;
    /// A `u32` constant.
    fn const_u32(&mut self, v: u32) -> Self::Value;
    /// The ballot word of predicate `p` (`None`: every active lane votes true).
    fn ballot(&mut self, p: Option<Self::Value>, mask: Self::Value) -> R<Self::Value>;
    /// The source-lane operand of a gather reading `from`.
    fn gather_lane(&mut self, from: GatherLane<Self::Value>, mask: Self::Value) -> R<Self::Value>;
    /// `shfl.sync.MODE` of one component `x` of scalar type `s`.
    fn shuffle(
        &mut self,
        s: Scalar,
        mode: ShflMode,
        x: Self::Value,
        src: Self::Value,
        clamp: u32,
        mask: Self::Value,
    ) -> R<Self::Value>;
    /// One component of a reduction or scan.
    fn collective(
        &mut self,
        op: SubgroupOperation,
        kind: CollectiveOperation,
        s: Scalar,
        x: Self::Value,
        mask: Self::Value,
    ) -> R<Self::Value>;
}

/// Lowers a subgroup ballot, gather or collective.
pub fn subgroup_op<L: SubgroupLowering>(l: &mut L, op: &Op) -> R<Vec<L::Value>> {
    let mask = l.active_mask()?;
    match op {
        // `vec4<u32>`: a warp has 32 lanes, so the upper three words are zero.
        Op::SubgroupBallot(p) => {
            let p = match p {
                Some(p) => Some(super::scalar(l, *p)?),
                None => None,
            };
            let b = l.ballot(p, mask)?;
            let z = l.const_u32(0);
            Ok(vec![b, z, z, z])
        }
        Op::SubgroupGather { mode, arg, index } => {
            let s = scalar_of(l, *arg)?;
            let idx = match index {
                Some(i) => Some(super::scalar(l, *i)?),
                None => None,
            };
            let (kind, from, clamp) = gather_plan(*mode, idx)
                .ok_or_else(|| l.internal("subgroup gather without index"))?;
            let src = l.gather_lane(from, mask)?;
            let comps = l.value_comps(*arg)?;
            comps.into_iter().map(|x| l.shuffle(s, kind, x, src, clamp, mask)).collect()
        }
        // Vectors reduce component by component (`subgroupAdd(vec4<f32>)`).
        Op::SubgroupCollective { op: sop, kind, arg } => {
            let s = scalar_of(l, *arg)?;
            let comps = l.value_comps(*arg)?;
            comps.into_iter().map(|x| l.collective(*sop, *kind, s, x, mask)).collect()
        }
        _ => Err(l.internal("not a subgroup op")),
    }
}

/// The scalar type of `v` (of a vector's components).
fn scalar_of<L: ScalarLowering>(l: &mut L, v: ValueId) -> R<Scalar> {
    let ty = l.value_ty(v);
    let s = l.types_mut().scalar_of(ty);
    s.ok_or_else(|| l.internal("not a scalar type"))
}
