// Builds a vector-add kernel through the PTX model (no WGSL involved) and prints it.
//
// ```text
// cargo run -p dianran-ptx --example assemble > vadd.ptx
// ptxas -arch=sm_80 vadd.ptx -o vadd.cubin
// ```
//
// The kernel computes `c[i] = a[i] + b[i]` for `i < 1024`, where `i` is the global
// invocation id, with 64 threads per block. Registers come from a [`RegPool`] and are
// declared by the printer.

use dianran_ptx::build;
use dianran_ptx::{
    CmpOp, Dim, Entry, Modifier, Module, Opcode, Operand, Param, PtxError, Reg, RegKind, RegPool,
    Rounding, SpecialReg, StateSpace, Type,
};

/// The vector-add module.
pub fn build_vadd() -> Module {
    let mut module = Module::new(80);
    module.comments.push("vector add, assembled with dianran-ptx".into());
    let mut e = Entry::new("vadd");
    for name in ["p_g0_b0", "p_g0_b1", "p_g0_b2"] {
        e.params.push(Param::pointer(name));
    }
    e.reqntid = Some([64, 1, 1]);
    let mut regs = RegPool::new();
    let r32 = |regs: &mut RegPool| regs.fresh(RegKind::B32);
    let r64 = |regs: &mut RegPool| regs.fresh(RegKind::B64);

    // Prologue: parameters to global addresses.
    let mut bufs: Vec<Reg> = Vec::new();
    for p in &["p_g0_b0", "p_g0_b1", "p_g0_b2"] {
        let generic = r64(&mut regs);
        e.push(build::ld_param(Type::U64, generic, p));
        let global = r64(&mut regs);
        e.push(build::cvta_to(StateSpace::Global, global, generic));
        bufs.push(global);
    }

    // i = ctaid.x * ntid.x + tid.x
    let (ctaid, ntid, tid, i) = (r32(&mut regs), r32(&mut regs), r32(&mut regs), r32(&mut regs));
    e.push(build::mov(Type::U32, ctaid, SpecialReg::Ctaid(Dim::X)));
    e.push(build::mov(Type::U32, ntid, SpecialReg::Ntid(Dim::X)));
    e.push(build::mov(Type::U32, tid, SpecialReg::Tid(Dim::X)));
    e.push(build::mad_lo(Type::U32, i, ctaid, ntid, tid));

    // if (i >= 1024) return;
    let out_of_range = regs.fresh(RegKind::Pred);
    e.push(build::setp(CmpOp::Ge, Type::U32, out_of_range, i, Operand::imm(1024)));
    e.push(build::bra("$L_end").guarded(out_of_range, false));

    // byte offset = i * 4; c[i] = a[i] + b[i]
    let offset = r64(&mut regs);
    e.push(build::mul_wide(Type::U32, offset, i, Operand::imm(4)));
    let mut addrs = Vec::new();
    for buf in &bufs {
        let a = r64(&mut regs);
        e.push(build::add(Type::S64, a, *buf, offset));
        addrs.push(a);
    }
    let (x, y, sum) = (r32(&mut regs), r32(&mut regs), r32(&mut regs));
    e.push(build::ld(StateSpace::Global, Type::F32, x, Operand::addr(addrs[0], 0)));
    e.push(build::ld(StateSpace::Global, Type::F32, y, Operand::addr(addrs[1], 0)));
    e.push(build::binary(Opcode::Add, &[Modifier::Round(Rounding::Rn)], Type::F32, sum, x, y));
    e.push(build::st(StateSpace::Global, Type::F32, Operand::addr(addrs[2], 0), sum));
    e.label("$L_end");
    e.push(build::ret());
    module.entries.push(e);
    module
}

fn main() -> Result<(), PtxError> {
    let ptx = build_vadd().to_ptx()?;
    print!("{ptx}");
    Ok(())
}
