//! Parser tests: round trips of printed modules and NVRTC-style input.

use super::*;
use crate::model::build;
use crate::model::{CmpOp, Dim, Flag, ShflMode};
use crate::print::print_module;

fn round_trip(m: &Module) {
    let text = print_module(m).map_err(|e| e.to_string());
    let Ok(text) = text else {
        panic!("print failed: {text:?}");
    };
    let back = parse_module(&text).map_err(|e| e.to_string());
    assert_eq!(back.as_ref(), Ok(m), "text was:\n{text}");
}

/// A tiny deterministic generator (xorshift) so the property test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Every modifier spelling the parser knows, to be read back in an opcode's context.
const SPELLINGS: &[&str] = &[
    "u32",
    "s32",
    "f32",
    "f64",
    "b16",
    "f16",
    "f16x2",
    "pred",
    "u64",
    "s8",
    "bf16",
    "global",
    "shared",
    "local",
    "param",
    "const",
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "rzi",
    "rmi",
    "rpi",
    "eq",
    "ne",
    "lt",
    "neu",
    "lo",
    "hi",
    "hs",
    "nan",
    "num",
    "and",
    "or",
    "xor",
    "add",
    "min",
    "max",
    "exch",
    "cas",
    "inc",
    "cta",
    "gpu",
    "sys",
    "gl",
    "relaxed",
    "acquire",
    "acq_rel",
    "sc",
    "ca",
    "cg",
    "up",
    "down",
    "bfly",
    "idx",
    "all",
    "any",
    "uni",
    "ballot",
    "finite",
    "notanumber",
    "f4e",
    "row",
    "col",
    "v2",
    "v4",
    "x1",
    "x4",
    "m16n8k16",
    "m16n8k8",
    "m8n8",
    "ftz",
    "sat",
    "satfinite",
    "approx",
    "full",
    "wide",
    "sync",
    "aligned",
    "trans",
    "to",
    "nc",
    "volatile",
    "NaN",
    "noftz",
    "warp",
    "xorsign",
    "abs",
    "cc",
    "wrap",
    "clamp",
    "l",
    "r",
];

const NAMES: &[&str] = &["p_g0_b0", "ys_tile", "$L__BB0_2", "L1", "_x"];

fn gen_reg(r: &mut Rng) -> Reg {
    Reg { kind: *r.pick(&RegKind::ALL), num: r.below(40) as u32 }
}

fn gen_operand(r: &mut Rng, depth: u32) -> Operand {
    match r.below(if depth == 0 { 12 } else { 7 }) {
        0 | 1 => Operand::Reg(gen_reg(r)),
        2 => Operand::Imm(r.next() as i64 >> r.below(64)),
        3 => Operand::ImmHex(r.next() >> r.below(64)),
        4 => Operand::ImmF32(r.next() as u32),
        5 => Operand::ImmF64(r.next()),
        6 => Operand::Special(*r.pick(&[
            SpecialReg::Tid(Dim::X),
            SpecialReg::Ctaid(Dim::Z),
            SpecialReg::Laneid,
            SpecialReg::Clock64,
        ])),
        7 => Operand::Symbol(r.pick(NAMES).to_string()),
        8 => {
            let base = if r.below(2) == 0 {
                AddrBase::Reg(gen_reg(r))
            } else {
                AddrBase::Symbol(r.pick(NAMES).to_string())
            };
            Operand::Address(Address { base, offset: (r.next() as i64) >> (r.below(60) + 4) })
        }
        9 => Operand::Vector((0..1 + r.below(4)).map(|_| gen_operand(r, depth + 1)).collect()),
        10 => Operand::Not(gen_reg(r)),
        11 if r.below(2) == 0 => Operand::List(
            (0..r.below(3)).map(|_| Operand::Symbol(r.pick(NAMES).to_string())).collect(),
        ),
        _ => match r.below(2) {
            0 => Operand::Pair(gen_reg(r), gen_reg(r)),
            _ => Operand::Sink,
        },
    }
}

fn gen_instruction(r: &mut Rng) -> Instruction {
    let op = *r.pick(Opcode::ALL);
    let mut mods = Vec::new();
    for _ in 0..r.below(5) {
        let spelling: &&str = r.pick(SPELLINGS);
        if let Some(m) = Modifier::parse(op, spelling) {
            mods.push(m);
        }
    }
    let operands = (0..r.below(5)).map(|_| gen_operand(r, 0)).collect();
    let mut i = Instruction::new(op, mods, operands);
    if r.below(3) == 0 {
        i = i.guarded(Reg::pred(r.below(5) as u32), r.below(2) == 0);
    }
    i
}

#[test]
fn random_modules_round_trip() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..200 {
        let mut m = Module::new(if case % 2 == 0 { 80 } else { 90 });
        if case % 3 == 0 {
            m.comments.push(format!("case {case}"));
            m.comments.push(String::new());
        }
        if case % 4 == 0 {
            m.globals.push(VarDecl::shared_bytes("ys_g", 16, 64));
        }
        for k in 0..1 + r.below(3) {
            let mut e = Entry::new(format!("k{k}"));
            for p in 0..r.below(4) {
                e.params.push(Param::pointer(format!("p_g0_b{p}")));
            }
            if r.below(2) == 0 {
                e.reqntid = Some([1 + r.below(256) as u32, 1 + r.below(4) as u32, 1]);
            }
            if r.below(4) == 0 {
                e.vars.push(VarDecl::local_bytes("ys_l", 16, 32));
            }
            for _ in 0..r.below(30) {
                match r.below(10) {
                    0 => e.label(r.pick(NAMES).to_string()),
                    1 => e.comment(format!("  note {} ;{{}}", r.below(100))),
                    _ => e.push(gen_instruction(&mut r)),
                }
            }
            m.entries.push(e);
        }
        // Functions: declarations and definitions with blocks, `.param` declarations and
        // pragmas.
        for k in 0..r.below(3) {
            let mut f = crate::model::Func::new(format!("f{k}"));
            f.linkage = *r.pick(&[
                crate::model::Linkage::Internal,
                crate::model::Linkage::Visible,
                crate::model::Linkage::Weak,
                crate::model::Linkage::Extern,
            ]);
            f.defined = f.linkage != crate::model::Linkage::Extern && r.below(4) != 0;
            if r.below(2) == 0 {
                f.rets.push(Param::scalar(Type::B32, "func_retval0"));
            }
            for p in 0..r.below(3) {
                let mut param = Param::scalar(
                    *r.pick(&[Type::B32, Type::B64, Type::F32]),
                    format!("f_param_{p}"),
                );
                if r.below(3) == 0 {
                    param = Param {
                        ty: Type::B8,
                        align: Some(16),
                        len: Some(1 + r.below(32) as u64),
                        ..param
                    };
                }
                f.def.params.push(param);
            }
            if f.defined {
                let mut depth = 0;
                for _ in 0..r.below(30) {
                    match r.below(12) {
                        0 => f.def.label(r.pick(NAMES).to_string()),
                        1 => {
                            depth += 1;
                            f.def.body.push(Statement::BlockStart);
                            let v = VarDecl {
                                space: StateSpace::Param,
                                ..VarDecl::shared_bytes("param0", 8, 8)
                            };
                            f.def.body.push(Statement::Decl(v));
                        }
                        2 if depth > 0 => {
                            depth -= 1;
                            f.def.body.push(Statement::BlockEnd);
                        }
                        3 => f.def.body.push(Statement::Pragma("nounroll".into())),
                        _ => f.def.push(gen_instruction(&mut r)),
                    }
                }
                for _ in 0..depth {
                    f.def.body.push(Statement::BlockEnd);
                }
            }
            m.funcs.push(f);
        }
        round_trip(&m);
    }
}

#[test]
fn built_forms_round_trip() {
    let mut m = Module::new(80);
    let mut e = Entry::new("all_forms");
    e.params.push(Param::pointer("p_g0_b0"));
    e.reqntid = Some([32, 1, 1]);
    let r = Reg::b32;
    let rd = Reg::b64;
    e.push(build::ld_param(Type::U64, rd(1), "p_g0_b0"));
    e.push(build::cvta_to(StateSpace::Global, rd(2), rd(1)));
    e.push(build::mov(Type::F32, r(1), Operand::f32(-0.5)));
    e.push(build::mov(Type::F64, rd(3), Operand::f64(1e300)));
    e.push(build::mov(Type::B16, Reg::b16(1), Operand::f16_bits(0x3C00)));
    e.push(build::pack(Type::B32, r(2), &[Reg::b16(1), Reg::b16(2)]));
    e.push(build::unpack(Type::B32, &[Reg::b16(3), Reg::b16(4)], r(2)));
    e.push(build::setp(CmpOp::Neu, Type::F32, Reg::pred(1), r(1), r(2)));
    e.push(build::binary(
        Opcode::Div,
        &[Modifier::Round(crate::model::Rounding::Rn)],
        Type::F32,
        r(3),
        r(1),
        r(2),
    ));
    e.push(build::unary(Opcode::Ex2, &[Modifier::Flag(Flag::Approx)], Type::F32, r(3), r(3)));
    e.push(build::shfl_sync(
        ShflMode::Down,
        Operand::Pair(r(4), Reg::pred(2)),
        r(3),
        Operand::imm(16),
        Operand::imm(31),
        Operand::ImmHex(0xFFFF_FFFF),
    ));
    e.push(build::st(StateSpace::Global, Type::F32, Operand::addr(rd(2), -8), r(3)));
    e.push(build::bra_uni("$L__BB0_1").guarded(Reg::pred(1), true));
    e.label("$L__BB0_1");
    e.push(build::ret());
    m.entries.push(e);
    round_trip(&m);
}

const NVRTC: &str = r#"//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-34097967
//

.version 8.4
.target sm_80
.address_size 64

	// .globl	vadd

.visible .entry vadd(
	.param .u64 vadd_param_0,
	.param .u64 .ptr .global .align 4 vadd_param_1,
	.param .u32 vadd_param_2
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b16 	%rs<3>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<7>;
	.loc	1 5 0

	ld.param.u64 	%rd1, [vadd_param_0];
	ld.param.u32 	%r2, [vadd_param_2];
	mov.u32 	%r3, %ctaid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5; // trailing comment
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd4, %rd1;
	ld.global.nc.f32 	%f1, [%rd4+-4];
	{
	.reg .b16 %temp;
	mov.b32 	{%temp, %rs1}, %f1;
	}
	st.global.f32 	[%rd4], %f3;

$L__BB0_2:
	ret;

}
"#;

#[test]
fn reads_nvrtc_output() {
    let m = parse_module(NVRTC).map_err(|e| e.to_string());
    let Ok(m) = m else {
        panic!("{m:?}");
    };
    assert_eq!(m.version, Version { major: 8, minor: 4 });
    assert_eq!(m.comments[1], "Generated by NVIDIA NVVM Compiler");
    let e = &m.entries[0];
    assert_eq!(e.name, "vadd");
    assert_eq!(e.params.len(), 3);
    assert_eq!(e.params[1], Param::pointer("vadd_param_1"));
    assert_eq!(e.maxntid, Some([256, 1, 1]));
    let insts: Vec<&Instruction> = e.instructions().collect();
    // %r<6> takes %r0..%r5, %f<4> the next four: %f1 = %r7.
    let f1 = Reg::b32(7);
    assert_eq!(insts[2].operands[1], Operand::Special(SpecialReg::Ctaid(Dim::X)));
    assert_eq!(insts[5].guard, Some(Guard { reg: Reg::pred(1), negated: false }));
    assert_eq!(insts[5].operands[0], Operand::sym("$L__BB0_2"));
    assert_eq!(insts[7].operands, vec![Operand::Reg(f1), Operand::addr(Reg::b64(4), -4)]);
    assert!(insts[7].has_flag(Flag::Nc));
    // %rs<3> takes %h0..%h2; the scoped %temp is %h3.
    assert_eq!(insts[8].operands[0], Operand::vector(&[Reg::b16(3), Reg::b16(1)]));
    assert!(e.body.contains(&Statement::Label("$L__BB0_2".into())));
    assert_eq!(m.validate(), Ok(()));
    // Re-printing gives canonical registers that parse to the same model.
    round_trip(&m);
}

fn err_of(text: &str) -> (PtxErrorKind, Option<u32>) {
    match parse_module(text) {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => (e.kind, e.line),
    }
}

#[test]
fn typed_errors_with_lines() {
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n";
    assert_eq!(
        err_of(&format!("{head}.extern .shared .align 4 .b8 dyn[];\n")),
        (PtxErrorKind::Unsupported, Some(4))
    );
    assert_eq!(
        err_of(&format!(
            "{head}.visible .entry k()\n{{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r2, 1;\n}}\n"
        )),
        (PtxErrorKind::UndeclaredRegister, Some(7))
    );
    assert_eq!(
        err_of(&format!("{head}.visible .entry k()\n{{\n\tfrob.u32 1;\n}}\n")),
        (PtxErrorKind::Unsupported, Some(6))
    );
    assert_eq!(
        err_of(&format!("{head}.visible .entry k()\n{{\n\tadd.bogus 1;\n}}\n")),
        (PtxErrorKind::Unsupported, Some(6))
    );
    assert_eq!(
        err_of(&format!("{head}.visible .entry k()\n{{\n\tret\n}}\n")),
        (PtxErrorKind::Syntax, Some(7))
    );
    assert_eq!(err_of(&format!("{head}.visible .entry k()\n{{\n\tret;\n")).0, PtxErrorKind::Syntax);
    assert_eq!(err_of(".target sm_80\n").0, PtxErrorKind::Syntax);
    let deep =
        format!("{head}.visible .entry k()\n{{\n\tmov.b32 _, {};\n}}\n", "{".repeat(100_000));
    assert_eq!(err_of(&deep).0, PtxErrorKind::Syntax);
    assert_eq!(
        err_of(&format!("{head}.visible .entry k()\n{{\n\t.maxnreg 4;\n}}\n")),
        (PtxErrorKind::Unsupported, Some(6))
    );
    assert_eq!(
        err_of(&format!(
            "{head}.visible .entry k()\n{{\n\t.reg .b32 %r<2>;\n\tmov.f32 %r1, 1.5;\n}}\n"
        ))
        .0,
        PtxErrorKind::Syntax
    );
}

#[test]
fn numbers() {
    assert_eq!(number("0f3F800000", 1), Ok(Operand::ImmF32(0x3F80_0000)));
    assert_eq!(number("0d3FF0000000000000", 1), Ok(Operand::ImmF64(0x3FF0_0000_0000_0000)));
    assert_eq!(number("0x3C00", 1), Ok(Operand::ImmHex(0x3C00)));
    assert_eq!(number("0xFFFFFFFFU", 1), Ok(Operand::ImmHex(0xFFFF_FFFF)));
    assert_eq!(number("42", 1), Ok(Operand::Imm(42)));
    assert_eq!(number("010", 1), Ok(Operand::Imm(8)));
    assert_eq!(number("0b101", 1), Ok(Operand::Imm(5)));
    assert_eq!(number("18446744073709551615", 1), Ok(Operand::ImmHex(u64::MAX)));
    assert!(number("0f3F80", 1).is_err());
}

#[test]
fn never_panics_on_garbage() {
    for text in [NVRTC, LLVM] {
        mutations_never_panic(text);
        mutations_never_panic(
            &print_module(&parse_module(text).unwrap_or_default()).unwrap_or_default(),
        );
    }
}

/// Truncations and byte mutations of a valid file must give Ok or a typed error.
fn mutations_never_panic(text: &str) {
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) {
            let _ = parse_module(&text[..cut]);
        }
    }
    let mut r = Rng(12345);
    let bytes = text.as_bytes();
    for _ in 0..300 {
        let mut b = bytes.to_vec();
        let i = r.below(b.len());
        b[i] = *r.pick(b"{}[]<>;,|!@%-+.0_ \n/");
        if let Ok(s) = std::str::from_utf8(&b) {
            let _ = parse_module(s);
        }
    }
}

/// Module variables with initializers (CUDA's math tables are `.global .b8 t[24] = {...}`):
/// parsed, printed back, and laid out little-endian.
#[test]
fn variable_initializers() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .global .align 4 .b8 tbl[6] = {65, 144, -1, 0x3c};\n\
        .const .align 4 .u32 words[2] = {1, 4294967295};\n\
        .const .f32 one = 0f3F800000;\n";
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.globals[0].init, vec![65, 144, 255, 0x3c]);
    assert_eq!(m.globals[0].init_bytes(), vec![65, 144, 255, 0x3c, 0, 0]);
    assert_eq!(m.globals[1].init_bytes(), vec![1, 0, 0, 0, 255, 255, 255, 255]);
    assert_eq!(m.globals[2].init, vec![0x3F80_0000]);
    round_trip(&m);
    let printed = print_module(&m).unwrap_or_default();
    assert!(printed.contains(".global .align 4 .b8 tbl[6] = {65, 144, 255, 60};"), "{printed}");
    assert!(printed.contains(".const .f32 one = 0f3F800000;"), "{printed}");
    // Too many elements, or an initializer on a .shared variable, is rejected.
    let mut bad = m.clone();
    bad.globals[0].init = vec![0; 7];
    assert!(print_module(&bad).is_err());
    let mut bad = m;
    bad.globals[0].space = StateSpace::Shared;
    assert!(print_module(&bad).is_err());
}

/// LLVM's NVPTX output: `.func` definitions and `.extern` declarations with return
/// parameters and byte-array parameters, call sequences in scoped blocks with `.param`
/// declarations, registers named without `%`, `.pragma`, carry arithmetic and `shf`.
const LLVM: &str = r#"//
// Generated by LLVM NVPTX Back-End
//

.version 8.0
.target sm_80
.address_size 64

	// .globl	k
.extern .func  (.param .b32 func_retval0) ext
(
	.param .b32 ext_param_0
)
;
.func  (.param .align 16 .b8 func_retval0[16]) pair(
	.param .b32 pair_param_0,
	.param .align 16 .b8 pair_param_1[8]
)                                       // -- Begin function pair
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<2>;

// %bb.0:
	ld.param.u32 	%r1, [pair_param_0];
	ld.param.v2.u32 	{%r2, %r3}, [pair_param_1];
	{ .reg .b32 tmp; mov.b64 {tmp, %r1}, %rd1; }
	st.param.b32 	[func_retval0+0], %r1;
	ret;
                                        // -- End function
}
	// .globl	k                       // -- Begin function k
.visible .entry k(
	.param .u64 k_param_0
)                                       // @k
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<3>;

$L__BB1_1:                              // =>This Inner Loop Header: Depth=1
	.pragma "nounroll";
	mad.lo.cc.u32   %r3, %r1, %r2, %r4;
	madc.hi.u32     %r4, %r1, %r2,  0;
	shf.l.wrap.b32 	%r5, %r1, %r2, %r3;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .align 16 .b8 param1[8];
	st.param.v2.b32 	[param1+0], {%r1, %r2};
	.param .align 16 .b8 retval0[16];
	call.uni (retval0), 
	pair, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r6, [retval0+0];
	} // callseq 0
	{
	.reg .b64 %lhs;
	shl.b64 	%lhs, %rd1, 13;
	add.u64 	%rd2, %lhs, %rd1;
	}
	@!%p1 bra 	$L__BB1_1;
	ret;
                                        // -- End function
}
"#;

#[test]
fn reads_llvm_functions_and_calls() {
    use crate::model::{Func, Linkage};
    let m = parse_module(LLVM).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.funcs.len(), 2);
    let ext: &Func = &m.funcs[0];
    assert_eq!((ext.linkage, ext.defined, ext.name()), (Linkage::Extern, false, "ext"));
    assert_eq!(ext.rets, vec![Param::scalar(Type::B32, "func_retval0")]);
    let pair = &m.funcs[1];
    assert_eq!((pair.linkage, pair.defined), (Linkage::Internal, true));
    let array = |name: &str, align, len| Param { ty: Type::B8, name: name.into(), align, len };
    assert_eq!(pair.rets, vec![array("func_retval0", Some(16), Some(16))]);
    assert_eq!(pair.def.params[1], array("pair_param_1", Some(16), Some(8)));
    assert_eq!(m.func("pair").map(Func::name), Some("pair"));
    assert_eq!(m.func("ext"), None, "a declaration has no body");
    // `tmp` follows %r<4>: it is %r4, inside a block.
    let unpack = pair.def.instructions().nth(2).cloned();
    assert_eq!(
        unpack.map(|i| i.operands[0].clone()),
        Some(Operand::vector(&[Reg::b32(4), Reg::b32(1)]))
    );
    assert_eq!(pair.def.body.iter().filter(|s| **s == Statement::BlockStart).count(), 1);
    let k = &m.entries[0];
    assert!(k.body.contains(&Statement::Pragma("nounroll".into())));
    let call = k.instructions().find(|i| i.op == Opcode::Call).cloned().unwrap_or_else(|| {
        panic!("no call in {:?}", k.body);
    });
    assert!(call.has_flag(Flag::Uni));
    assert_eq!(
        call.operands,
        vec![
            Operand::List(vec![Operand::sym("retval0")]),
            Operand::sym("pair"),
            Operand::List(vec![Operand::sym("param0"), Operand::sym("param1")]),
        ]
    );
    let decl = VarDecl {
        space: StateSpace::Param,
        align: Some(16),
        ty: Type::B8,
        name: "param1".into(),
        len: Some(8),
        init: Vec::new(),
    };
    assert!(k.body.contains(&Statement::Decl(decl)));
    let madc = k.instructions().nth(1).cloned();
    assert_eq!(madc.map(|i| i.opcode_text()), Some("madc.hi.u32".into()));
    assert!(k.instructions().next().is_some_and(|i| i.has_flag(Flag::Cc)));
    // %lhs follows %rd<3>.
    let shl = k.instructions().find(|i| i.op == Opcode::Shl).cloned();
    assert_eq!(shl.map(|i| i.operands[0].clone()), Some(Operand::Reg(Reg::b64(3))));
    assert_eq!(m.validate(), Ok(()));
    round_trip(&m);
    let text = print_module(&m).unwrap_or_default();
    for want in [
        ".extern .func (.param .b32 func_retval0) ext(\n\t.param .b32 ext_param_0\n);\n",
        ".func (.param .align 16 .b8 func_retval0[16]) pair(\n\t.param .b32 pair_param_0,\n",
        "\tcall.uni \t(retval0), pair, (param0, param1);\n",
        "\t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0], %r1;\n",
        "\t.pragma \"nounroll\";\n",
        "\tmadc.hi.u32 \t%r4, %r1, %r2, 0;\n",
        "\tshf.l.wrap.b32 \t%r5, %r1, %r2, %r3;\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn llvm_forms_outside_the_model_are_typed_errors() {
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let body = |b: &str| format!("{head}.visible .entry k()\n{{\n{b}\n}}\n");
    // Indirect calls.
    assert_eq!(
        err_of(&body(
            "\t.reg .b64 %rd<2>;\nprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);"
        )),
        (PtxErrorKind::Unsupported, Some(7))
    );
    // A register range named without `%`.
    assert_eq!(err_of(&body("\t.reg .b32 tmp<4>;")), (PtxErrorKind::Unsupported, Some(6)));
    // An `.extern` function with a body, and a linkage directive with nothing after it.
    assert_eq!(
        err_of(&format!("{head}.extern .func f()\n{{\n\tret;\n}}\n")).0,
        PtxErrorKind::Syntax
    );
    assert_eq!(err_of(&format!("{head}.visible\n")).0, PtxErrorKind::Syntax);
    assert_eq!(err_of(&format!("{head}.visible ret;\n")).0, PtxErrorKind::Syntax);
    // Nested lists.
    assert_eq!(err_of(&body("\tcall.uni (a), f, ((b));")).0, PtxErrorKind::Syntax);
}
