//! WGSL math builtins.

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{MathFunction, TypeId, ValueId};

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// The math builtin `f` applied to `args`, producing a value of type `ty`.
    pub(crate) fn math(
        &mut self,
        f: MathFunction,
        args: &[ValueId],
        ty: TypeId,
    ) -> R<Vec<V<'ctx>>> {
        let _ = (args, ty);
        Err(self.err_unsupported(&format!("the math builtin {f:?}")))
    }
}
