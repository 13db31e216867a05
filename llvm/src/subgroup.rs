//! Subgroup operations.

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{Op, TypeId};

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// A subgroup ballot, collective or gather producing a value of type `ty`.
    pub(crate) fn subgroup(&mut self, op: &Op, ty: TypeId) -> R<Vec<V<'ctx>>> {
        let _ = (op, ty);
        Err(self.err_unsupported("subgroup operations"))
    }
}
