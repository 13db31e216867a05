//! Runs ptxas on PTX built through the model: the vector-add example and a kernel holding
//! every instruction form the constructors produce. Skipped (with a message) when ptxas is
//! not installed, except under `CI=true`.

use crate::build;
use crate::model::*;
use std::path::PathBuf;
use std::process::Command;

#[allow(dead_code)]
mod example {
    include!("../examples/assemble.rs");
}

#[allow(dead_code)]
mod mma_example {
    include!("../examples/mma_tile.rs");
}

/// ptxas from `$PTXAS`, the workspace's `.tools` venv, or `PATH`.
fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS").map(PathBuf::from) {
        if p.is_file() {
            return Some(p);
        }
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas");
    if venv.is_file() {
        return Some(venv);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// Assembles `module` for `sm`; `Ok(false)` when ptxas is missing outside CI.
fn assemble(module: &Module, sm: u32, tag: &str) -> Result<bool, String> {
    let Some(ptxas) = find_ptxas() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err("ptxas not found (CI=true)".into());
        }
        println!("skipped: ptxas not found");
        return Ok(false);
    };
    let mut m = module.clone();
    m.target.sm = sm;
    let text = m.to_ptx().map_err(|e| e.to_string())?;
    assert!(text.is_ascii());
    let dir = std::env::temp_dir().join(format!("dianran-ptx-{}-{tag}-{sm}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join("k.ptx");
    std::fs::write(&src, &text).map_err(|e| e.to_string())?;
    let out = Command::new(&ptxas)
        .arg(format!("-arch={}", crate::model::sm_name(sm)))
        .arg(&src)
        .arg("-o")
        .arg(dir.join("k.cubin"))
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(true)
    } else {
        Err(format!("ptxas rejected:\n{}\n{text}", String::from_utf8_lossy(&out.stderr)))
    }
}

#[test]
fn ptxas_accepts_the_example() {
    let m = example::build_vadd();
    assert_eq!(m.validate(), Ok(()));
    for sm in [80, 90] {
        assert_eq!(assemble(&m, sm, "vadd").map(|_| ()), Ok(()));
    }
    // The example's text reads back into the same model.
    let text = m.to_ptx().unwrap_or_default();
    assert_eq!(crate::parse_module(&text).ok(), Some(m));
}

#[test]
fn ptxas_accepts_the_mma_example() {
    let mut m = mma_example::build_mma_tile();
    assert_eq!(m.validate(), Ok(()));
    for sm in [80, 90] {
        m.target.sm = sm;
        assert_eq!(assemble(&m, sm, "mma_tile").map(|_| ()), Ok(()));
    }
    let text = m.to_ptx().unwrap_or_default();
    assert_eq!(crate::parse_module(&text).ok(), Some(m));
}

/// A kernel with every constructor and the instruction forms docs/ptx.md relies on.
fn all_forms() -> Module {
    let mut m = Module::new(80);
    m.globals.push(VarDecl::shared_bytes("ys_tile", 16, 1024));
    let mut e = Entry::new("all_forms");
    e.params.push(Param::pointer("p_g0_b0"));
    e.reqntid = Some([32, 2, 1]);
    e.vars.push(VarDecl::local_bytes("ys_loc", 16, 64));
    let (r, h, rd, p) = (Reg::b32, Reg::b16, Reg::b64, Reg::pred);
    let f = |fl: Flag| Modifier::Flag(fl);
    let rnd = Modifier::Round;
    let i = Operand::imm;
    let ga = |off| Operand::addr(rd(2), off);
    let mut v: Vec<Instruction> = vec![
        build::ld_param(Type::U64, rd(1), "p_g0_b0"),
        build::cvta_to(StateSpace::Global, rd(2), rd(1)),
        build::mov(Type::U32, r(1), SpecialReg::Tid(Dim::X)),
        build::mov(Type::U32, r(2), SpecialReg::Laneid),
        build::mov(Type::F32, r(3), Operand::f32(1.0)),
        build::mov(Type::F64, rd(3), Operand::f64(0.5)),
        build::mov(Type::B16, h(1), Operand::f16_bits(0x3C00)),
        build::pack(Type::B32, r(4), &[h(1), h(1)]),
        build::unpack(Type::B32, &[h(2), h(3)], r(4)),
        build::add(Type::S32, r(5), r(1), i(3)),
        build::sub(Type::S32, r(5), r(5), r(2)),
        build::mul_lo(Type::S32, r(6), r(5), r(5)),
        build::binary(Opcode::Mul, &[f(Flag::Hi)], Type::U32, r(6), r(6), r(5)),
        build::mul_wide(Type::U32, rd(4), r(1), i(4)),
        build::mad_lo(Type::S32, r(7), r(5), r(6), r(1)),
        build::fma_rn(Type::F32, r(8), r(3), r(3), Operand::f32(-2.0)),
        build::binary(Opcode::Add, &[], Type::F16, h(4), h(2), h(3)),
        build::binary(Opcode::Mul, &[rnd(Rounding::Rn)], Type::F16x2, r(9), r(4), r(4)),
        build::binary(Opcode::Div, &[rnd(Rounding::Rn)], Type::F32, r(9), r(8), r(3)),
        build::binary(Opcode::Div, &[f(Flag::Approx)], Type::F32, r(9), r(8), r(3)),
        build::binary(Opcode::Div, &[f(Flag::Full)], Type::F32, r(9), r(8), r(3)),
        build::binary(Opcode::Div, &[], Type::S32, r(10), r(7), r(5)),
        build::binary(Opcode::Div, &[], Type::U32, r(10), r(7), r(5)),
        build::binary(Opcode::Rem, &[], Type::S32, r(10), r(7), r(5)),
        build::binary(Opcode::Div, &[rnd(Rounding::Rn)], Type::F64, rd(5), rd(3), rd(3)),
        build::unary(Opcode::Neg, &[], Type::F32, r(11), r(9)),
        build::unary(Opcode::Neg, &[], Type::S32, r(11), r(10)),
        build::unary(Opcode::Abs, &[], Type::F32, r(11), r(9)),
        build::binary(Opcode::Min, &[], Type::F32, r(12), r(9), r(11)),
        build::binary(Opcode::Max, &[f(Flag::NaN)], Type::F32, r(12), r(9), r(11)),
        build::binary(Opcode::Max, &[], Type::S32, r(12), r(10), r(11)),
        build::unary(Opcode::Not, &[], Type::B32, r(13), r(12)),
        build::binary(Opcode::And, &[], Type::B32, r(13), r(13), i(255)),
        build::binary(Opcode::Or, &[], Type::B32, r(13), r(13), r(1)),
        build::binary(Opcode::Xor, &[], Type::B32, r(13), r(13), r(2)),
        build::binary(Opcode::Shl, &[], Type::B32, r(13), r(13), i(3)),
        build::binary(Opcode::Shr, &[], Type::U32, r(13), r(13), r(2)),
        build::binary(Opcode::Shr, &[], Type::S32, r(13), r(13), r(2)),
        build::setp(CmpOp::Lt, Type::S32, p(1), r(13), i(7)),
        build::setp(CmpOp::Neu, Type::F32, p(2), r(9), r(11)),
        build::setp_combine(CmpOp::Lt, BoolOp::And, Type::F32, p(3), r(9), r(11), p(1)),
        build::setp_combine(CmpOp::Ge, BoolOp::Or, Type::U32, p(4), r(1), r(2), Operand::Not(p(2))),
        build::binary(Opcode::And, &[], Type::Pred, p(5), p(3), p(4)),
        build::selp(Type::B32, r(14), r(13), i(0), p(5)),
        Instruction::new(
            Opcode::Set,
            vec![Modifier::Cmp(CmpOp::Lt), Modifier::Type(Type::U32), Modifier::Type(Type::F32)],
            vec![r(14).into(), r(9).into(), r(3).into()],
        ),
        build::cvt(Some(Rounding::Rn), false, Type::F32, Type::S32, r(15), r(14)),
        build::cvt(Some(Rounding::Rzi), false, Type::S32, Type::F32, r(15), r(9)),
        build::cvt(Some(Rounding::Rmi), false, Type::F32, Type::F32, r(15), r(9)),
        build::cvt(Some(Rounding::Rpi), false, Type::F32, Type::F32, r(15), r(9)),
        build::cvt(Some(Rounding::Rni), false, Type::F32, Type::F32, r(15), r(9)),
        build::cvt(None, true, Type::F32, Type::F32, r(15), r(9)),
        build::cvt(Some(Rounding::Rn), false, Type::F16, Type::F32, h(5), r(15)),
        build::cvt(None, false, Type::F32, Type::F16, r(15), h(5)),
        build::cvt(None, false, Type::U64, Type::U32, rd(6), r(15)),
        build::cvt(None, false, Type::F64, Type::F32, rd(6), r(15)),
        build::cvt(Some(Rounding::Rn), false, Type::F32, Type::F64, r(15), rd(6)),
        build::cvt(Some(Rounding::Rzi), true, Type::U32, Type::F32, r(15), r(9)),
        build::cvta(StateSpace::Shared, rd(7), Operand::sym("ys_tile")),
        build::cvta_to(StateSpace::Shared, rd(8), rd(7)),
        build::mov(Type::U64, rd(9), Operand::sym("ys_tile")),
        build::ld(StateSpace::Global, Type::F32, r(16), ga(4)),
        build::ld_vec(StateSpace::Global, Type::F32, &[r(16), r(17)], ga(8)),
        build::ld_vec(StateSpace::Global, Type::U32, &[r(16), r(17), r(18), r(19)], ga(16)),
        Instruction::new(
            Opcode::Ld,
            vec![Modifier::Space(StateSpace::Global), f(Flag::Nc), Modifier::Type(Type::F32)],
            vec![r(16).into(), ga(-4)],
        ),
        Instruction::new(
            Opcode::Ld,
            vec![f(Flag::Volatile), Modifier::Space(StateSpace::Global), Modifier::Type(Type::U32)],
            vec![r(16).into(), ga(0)],
        ),
        build::ld_relaxed(StateSpace::Global, Type::U32, r(16), ga(0)),
        build::st_relaxed(StateSpace::Global, Type::U32, ga(0), r(16)),
        build::st_vec(StateSpace::Global, Type::F32, ga(32), &[r(16), r(17), r(18), r(19)]),
        build::ld(StateSpace::Shared, Type::U32, r(20), Operand::sym_addr("ys_tile", 4)),
        build::st(StateSpace::Shared, Type::U32, Operand::sym_addr("ys_tile", 0), r(20)),
        build::st(StateSpace::Shared, Type::B16, Operand::addr(rd(8), 2), h(5)),
        build::st(StateSpace::Local, Type::U32, Operand::sym_addr("ys_loc", 8), r(20)),
        build::ld(StateSpace::Local, Type::U32, r(20), Operand::sym_addr("ys_loc", 8)),
        build::ld(StateSpace::Generic, Type::U32, r(20), Operand::addr(rd(7), 0)),
        build::atom(StateSpace::Global, AtomOp::Add, Type::U32, r(21), ga(0), i(1)),
        build::atom(StateSpace::Global, AtomOp::Add, Type::F32, r(21), ga(0), r(9)),
        build::atom(
            StateSpace::Shared,
            AtomOp::Max,
            Type::S32,
            r(21),
            Operand::addr(rd(8), 0),
            r(5),
        ),
        build::atom(StateSpace::Global, AtomOp::Min, Type::U32, r(21), ga(0), r(5)),
        build::atom(StateSpace::Global, AtomOp::And, Type::B32, r(21), ga(0), r(5)),
        build::atom(StateSpace::Global, AtomOp::Or, Type::B32, r(21), ga(0), r(5)),
        build::atom(StateSpace::Global, AtomOp::Xor, Type::B32, r(21), ga(0), r(5)),
        build::atom(StateSpace::Global, AtomOp::Exch, Type::B32, r(21), ga(0), r(5)),
        build::atom(StateSpace::Global, AtomOp::Inc, Type::U32, r(21), ga(0), r(5)),
        build::atom_cas(StateSpace::Global, Type::B32, r(21), ga(0), r(5), r(6)),
        build::atom_cas(StateSpace::Shared, Type::B32, r(21), Operand::addr(rd(8), 0), r(5), r(6)),
        build::red(StateSpace::Global, AtomOp::Add, Type::U32, ga(0), r(5)),
        build::bar_sync(0),
        build::bar_red_and(p(7), p(1)),
        build::membar(Scope::Gl),
        build::membar(Scope::Cta),
        build::fence(MemSem::AcqRel, Scope::Gpu),
        build::fence(MemSem::Sc, Scope::Cta),
        build::activemask(r(22)),
        build::shfl_sync(ShflMode::Up, r(23), r(9), i(1), i(0), r(22)),
        build::shfl_sync(ShflMode::Down, r(23), r(9), i(1), i(31), r(22)),
        build::shfl_sync(ShflMode::Bfly, Operand::Pair(r(23), p(6)), r(9), i(4), i(31), r(22)),
        build::shfl_sync(ShflMode::Idx, r(23), r(9), r(2), i(31), Operand::ImmHex(0xFFFF_FFFF)),
        build::vote_sync(VoteMode::All, p(7), p(1), r(22)),
        build::vote_sync(VoteMode::Any, p(7), Operand::Not(p(1)), r(22)),
        build::vote_sync(VoteMode::Uni, p(7), p(1), r(22)),
        build::vote_sync(VoteMode::Ballot, r(24), p(1), r(22)),
        build::redux_sync(AtomOp::Add, Type::U32, r(24), r(1), r(22)),
        build::redux_sync(AtomOp::Min, Type::S32, r(24), r(1), r(22)),
        build::redux_sync(AtomOp::Xor, Type::B32, r(24), r(1), r(22)),
        build::unary(Opcode::Popc, &[], Type::B32, r(25), r(24)),
        build::unary(Opcode::Clz, &[], Type::B32, r(25), r(24)),
        build::unary(Opcode::Brev, &[], Type::B32, r(25), r(24)),
        build::ternary(Opcode::Bfe, &[], Type::U32, r(25), r(24), i(8), i(4)),
        Instruction::new(
            Opcode::Bfi,
            vec![Modifier::Type(Type::B32)],
            vec![r(25).into(), r(24).into(), r(1).into(), i(8), i(4)],
        ),
        build::ternary(Opcode::Prmt, &[], Type::B32, r(25), r(24), r(1), Operand::ImmHex(0x3210)),
        Instruction::new(
            Opcode::Lop3,
            vec![Modifier::Type(Type::B32)],
            vec![r(25).into(), r(24).into(), r(1).into(), r(2).into(), Operand::ImmHex(0x96)],
        ),
        build::unary(Opcode::Sqrt, &[rnd(Rounding::Rn)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Sqrt, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Rsqrt, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Ex2, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Ex2, &[f(Flag::Approx), f(Flag::Ftz)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Lg2, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Sin, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Cos, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Tanh, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Rcp, &[rnd(Rounding::Rn)], Type::F32, r(26), r(9)),
        build::unary(Opcode::Rcp, &[f(Flag::Approx)], Type::F32, r(26), r(9)),
        build::binary(Opcode::Copysign, &[], Type::F32, r(26), r(9), r(3)),
        build::testp(TestpOp::Finite, Type::F32, p(8), r(26)),
        build::testp(TestpOp::NotANumber, Type::F32, p(8), r(26)),
        build::ldmatrix(false, &[r(30), r(31), r(32), r(33)], Operand::addr(rd(9), 0)),
        build::ldmatrix(true, &[r(34), r(35)], Operand::addr(rd(9), 0)),
        build::ldmatrix(false, &[r(36)], Operand::sym_addr("ys_tile", 16)),
        build::mma_sync(
            (16, 8, 16),
            [Type::F32, Type::F16, Type::F16, Type::F32],
            &[r(40), r(41), r(42), r(43)],
            &[r(30), r(31), r(32), r(33)],
            &[r(34), r(35)],
            &[r(40), r(41), r(42), r(43)],
        ),
        build::mma_sync(
            (16, 8, 8),
            [Type::F32, Type::F16, Type::F16, Type::F32],
            &[r(40), r(41), r(42), r(43)],
            &[r(30), r(31)],
            &[r(34)],
            &[r(40), r(41), r(42), r(43)],
        ),
        build::st_vec(StateSpace::Global, Type::F32, ga(64), &[r(40), r(41), r(42), r(43)]),
        build::bra_uni("$L_join").guarded(p(8), true),
        build::trap(),
    ];
    for inst in v.drain(..) {
        e.push(inst);
    }
    e.label("$L_join");
    e.push(build::exit().guarded(p(7), false));
    e.comment("end of the form list");
    e.push(build::ret());
    m.entries.push(e);
    m
}

#[test]
fn ptxas_accepts_every_form() {
    let m = all_forms();
    assert_eq!(m.validate(), Ok(()));
    for sm in [80, 90] {
        assert_eq!(assemble(&m, sm, "forms").map(|_| ()), Ok(()));
    }
    let text = m.to_ptx().unwrap_or_default();
    assert_eq!(crate::parse_module(&text).ok(), Some(m));
}
