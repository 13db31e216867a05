//! PTX for dianran: a typed model of PTX modules, a printer that only writes ASCII, a parser
//! for the same text, docs/abi.md names, and code generation from the SSA IR ([`codegen`]), which
//! builds the same model: [`print_module`] is the only code that writes PTX text.
//!
//! This crate is also an assembler on its own: a program that builds PTX through the
//! [`model`] gets correctly declared registers (the printer declares `.reg .b32 %r<N>;` from
//! what the body uses) and valid syntax (constructors in [`build`] put modifiers in ISA
//! order; names and comments are checked to be ASCII identifiers and ASCII text).
//!
//! ```
//! use dianran_ptx::{build, parse_module, CmpOp, Dim, Entry, Module, Operand, Param, RegKind,
//!                   RegPool, SpecialReg, StateSpace, Type};
//!
//! let mut m = Module::new(80); // .version 8.0, .target sm_80, .address_size 64
//! let mut e = Entry::new("scale");
//! e.params.push(Param::pointer("p_g0_b0"));
//! e.reqntid = Some([64, 1, 1]);
//! let mut regs = RegPool::new();
//! let (p, g) = (regs.fresh(RegKind::B64), regs.fresh(RegKind::B64));
//! e.push(build::ld_param(Type::U64, p, "p_g0_b0"));
//! e.push(build::cvta_to(StateSpace::Global, g, p));
//! let tid = regs.fresh(RegKind::B32);
//! e.push(build::mov(Type::U32, tid, SpecialReg::Tid(Dim::X)));
//! let done = regs.fresh(RegKind::Pred);
//! e.push(build::setp(CmpOp::Ge, Type::U32, done, tid, Operand::imm(60)));
//! e.push(build::bra("$L_end").guarded(done, false));
//! let (off, addr) = (regs.fresh(RegKind::B64), regs.fresh(RegKind::B64));
//! e.push(build::mul_wide(Type::U32, off, tid, Operand::imm(4)));
//! e.push(build::add(Type::S64, addr, g, off));
//! let x = regs.fresh(RegKind::B32);
//! e.push(build::ld(StateSpace::Global, Type::F32, x, Operand::addr(addr, 0)));
//! e.push(build::binary(dianran_ptx::Opcode::Mul, &[], Type::F32, x, x, Operand::f32(2.0)));
//! e.push(build::st(StateSpace::Global, Type::F32, Operand::addr(addr, 0), x));
//! e.label("$L_end");
//! e.push(build::ret());
//! m.entries.push(e);
//!
//! m.validate()?; // operand forms, register widths, branch targets
//! let text = m.to_ptx()?;
//! assert!(text.contains("\t.reg .b32 \t%r<3>;"));   // %r1, %r2 used
//! // Float add/sub/mul get an explicit `.rn`, so ptxas contracts nothing (docs/math.md).
//! assert!(text.contains("\tmul.rn.f32 \t%r2, %r2, 0f40000000;"));
//! assert!(text.contains("\t@%p1 bra \t$L_end;"));
//! assert!(text.is_ascii());
//! assert_eq!(parse_module(&text)?, m);                 // the parser reads it back
//! # Ok::<(), dianran_ptx::PtxError>(())
//! ```
//!
//! `examples/assemble.rs` builds a complete vector-add kernel the same way, and
//! `examples/mma_tile.rs` a tensor-core kernel: a loop over K that stages tiles in `.shared`
//! memory, `bar.sync`, and `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
//! (`cargo run -p dianran-ptx --example mma_tile`).
//!
//! Modules: [`model`] (types, instructions, [`build`] constructors, [`model::check`]),
//! [`print`](mod@print), [`parse`](mod@parse), [`names`] (entry and workgroup-variable
//! names), [`error`].

// Lets the test module include `examples/assemble.rs`, which names the crate.
#[cfg(test)]
extern crate self as dianran_ptx;

pub mod abi;
pub mod codegen;
pub mod error;
pub mod lowering_common;
pub mod math;
pub mod model;
pub mod names;
pub mod parse;
pub mod print;
#[cfg(test)]
mod ptxas_check;

pub use error::{PtxError, PtxErrorKind};
pub use model::build;
pub use model::{
    AddrBase, Address, AtomOp, BoolOp, CacheOp, CmpOp, Dim, Entry, Flag, Flags, Func, Guard,
    Instruction, Layout, Linkage, MemSem, Modifier, Module, Opcode, Operand, Param, PrmtMode, Reg,
    RegKind, RegPool, Rounding, Scope, ShflMode, SpecialReg, StateSpace, Statement, Target,
    TestpOp, TexComp, TexGeom, TexQuery, Type, VarDecl, Version, VoteMode,
};
pub use parse::{parse_instruction, parse_module};
pub use print::{print_module, print_module_lines};
