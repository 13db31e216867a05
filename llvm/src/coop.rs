//! Cooperative matrices.

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{TypeId, ValueId};

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// `coopLoad`/`coopLoadT`.
    pub(crate) fn coop_load(
        &mut self,
        ty: TypeId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
    ) -> R<Vec<V<'ctx>>> {
        let _ = (ty, ptr, stride, row_major);
        Err(self.err_unsupported("cooperative matrices"))
    }
    /// `coopStore`/`coopStoreT`.
    pub(crate) fn coop_store(
        &mut self,
        value: ValueId,
        ptr: ValueId,
        stride: ValueId,
        row_major: bool,
    ) -> R<()> {
        let _ = (value, ptr, stride, row_major);
        Err(self.err_unsupported("cooperative matrices"))
    }
    /// `coopMultiplyAdd(a, b, c)`.
    pub(crate) fn coop_mma(&mut self, a: ValueId, b: ValueId, c: ValueId) -> R<Vec<V<'ctx>>> {
        let _ = (a, b, c);
        Err(self.err_unsupported("cooperative matrices"))
    }
}
