//! Subgroup operations over the active lanes of one subgroup.
//!
//! Every function gets the active lanes of one subgroup in increasing order of
//! `subgroup_invocation_id` (`ids`), their operand words (`n` words per lane, concatenated)
//! and appends one result per lane, in the same order, to `out`.
//!
//! Lane exchanges whose source lane is outside the subgroup or inactive return the reading
//! lane's own value (what `shfl.sync` does for an out-of-range source, and what the PTX
//! emulator returns for an inactive one), or `fill` when given
//! ([`super::InterpOptions::inactive_read`]): WGSL leaves that result indeterminate, and
//! `dianran verify` runs the interpreter with a fill to find the values that depend on it.

use super::value::{fget, fput, internal};
use dianran_frontend::ir::Direction;
use dianran_frontend::ir::{CollectiveOperation, GatherMode, Scalar, SubgroupOperation};
use dianran_frontend::Diagnostic;

/// `subgroupBallot`: bit `id` set for every active lane whose predicate is true.
pub(crate) fn ballot(ids: &[u32], preds: &[bool]) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (&id, &p) in ids.iter().zip(preds) {
        if p && id < 128 {
            w[(id / 32) as usize] |= 1 << (id % 32);
        }
    }
    w
}

fn identity(op: SubgroupOperation, s: Scalar) -> u32 {
    use SubgroupOperation as O;
    match (op, s) {
        (O::Add | O::Or | O::Xor | O::Any, Scalar::F32) => 0f32.to_bits(),
        (O::Add | O::Or | O::Xor | O::Any, _) => 0,
        (O::Mul, Scalar::F32) => 1f32.to_bits(),
        (O::Mul, Scalar::F16) => fput(Scalar::F16, 1.0),
        (O::Mul, _) => 1,
        (O::Min, Scalar::F32) => f32::INFINITY.to_bits(),
        (O::Min, Scalar::F16) => fput(Scalar::F16, f32::INFINITY),
        (O::Min, Scalar::I32) => i32::MAX as u32,
        (O::Min, _) => u32::MAX,
        (O::Max, Scalar::F32) => f32::NEG_INFINITY.to_bits(),
        (O::Max, Scalar::F16) => fput(Scalar::F16, f32::NEG_INFINITY),
        (O::Max, Scalar::I32) => i32::MIN as u32,
        (O::Max, _) => 0,
        (O::And | O::All, Scalar::Bool) => 1,
        (O::And | O::All, _) => u32::MAX,
    }
}

fn combine(op: SubgroupOperation, s: Scalar, x: u32, y: u32) -> Result<u32, Diagnostic> {
    use SubgroupOperation as O;
    Ok(match (op, s) {
        (O::Add, Scalar::F32 | Scalar::F16) => fput(s, fget(s, x) + fget(s, y)),
        (O::Add, _) => x.wrapping_add(y),
        (O::Mul, Scalar::F32 | Scalar::F16) => fput(s, fget(s, x) * fget(s, y)),
        (O::Mul, _) => x.wrapping_mul(y),
        (O::Min, Scalar::F32 | Scalar::F16) => fput(s, fget(s, x).min(fget(s, y))),
        (O::Min, Scalar::I32) => (x as i32).min(y as i32) as u32,
        (O::Min, _) => x.min(y),
        (O::Max, Scalar::F32 | Scalar::F16) => fput(s, fget(s, x).max(fget(s, y))),
        (O::Max, Scalar::I32) => (x as i32).max(y as i32) as u32,
        (O::Max, _) => x.max(y),
        (O::And | O::All, Scalar::Bool | Scalar::I32 | Scalar::U32) => x & y,
        (O::Or | O::Any, Scalar::Bool | Scalar::I32 | Scalar::U32) => x | y,
        (O::Xor, Scalar::I32 | Scalar::U32) => x ^ y,
        _ => return Err(internal(format!("subgroup {op:?} on {}", s.wgsl_name()))),
    })
}

/// Reductions and scans (per component for vectors).
pub(crate) fn collective(
    op: SubgroupOperation,
    kind: CollectiveOperation,
    s: Scalar,
    n: usize,
    vals: &[u32],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let lanes = vals.len().checked_div(n).unwrap_or(0);
    let start = out.len();
    out.resize(start + lanes * n, 0);
    for k in 0..n {
        let mut acc = identity(op, s);
        for l in 0..lanes {
            let x = vals[l * n + k];
            let before = acc;
            acc = combine(op, s, acc, x)?;
            out[start + l * n + k] = match kind {
                CollectiveOperation::Reduce | CollectiveOperation::InclusiveScan => acc,
                CollectiveOperation::ExclusiveScan => before,
            };
        }
        if kind == CollectiveOperation::Reduce {
            for l in 0..lanes {
                out[start + l * n + k] = acc;
            }
        }
    }
    Ok(())
}

/// Lane exchanges. `index` holds each lane's lane/delta/mask operand (empty when the mode
/// takes none). Returns how many lanes read an inactive or nonexistent source.
pub(crate) fn gather(
    mode: GatherMode,
    ids: &[u32],
    n: usize,
    vals: &[u32],
    index: &[u32],
    (subgroup_size, fill): (u32, Option<u32>),
    out: &mut Vec<u32>,
) -> u64 {
    // Position in `ids` of the lane with a given subgroup invocation id.
    let pos = |id: u32| ids.binary_search(&id).ok();
    let mut missing = 0;
    for (l, &id) in ids.iter().enumerate() {
        let idx = index.get(l).copied().unwrap_or(0);
        let src: Option<u32> = match mode {
            GatherMode::BroadcastFirst => ids.first().copied(),
            GatherMode::Broadcast | GatherMode::Shuffle => Some(idx),
            GatherMode::ShuffleDown => id.checked_add(idx),
            GatherMode::ShuffleUp => id.checked_sub(idx),
            GatherMode::ShuffleXor => Some(id ^ idx),
            GatherMode::QuadBroadcast => Some((id & !3) + (idx & 3)),
            GatherMode::QuadSwap(d) => Some(match d {
                Direction::X => id ^ 1,
                Direction::Y => id ^ 2,
                Direction::Diagonal => id ^ 3,
            }),
        };
        match (src.filter(|&s| s < subgroup_size).and_then(pos), fill) {
            (Some(from), _) => out.extend_from_slice(&vals[from * n..from * n + n]),
            (None, Some(w)) => {
                missing += 1;
                out.extend(std::iter::repeat_n(w, n))
            }
            (None, None) => {
                missing += 1;
                out.extend_from_slice(&vals[l * n..l * n + n])
            }
        }
    }
    missing
}
