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
    assert_eq!(e.params[1], Param { ty: Type::U64, name: "vadd_param_1".into() });
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
    assert_eq!(err_of(&format!("{head}.func f()\n{{\n}}\n")), (PtxErrorKind::Unsupported, Some(4)));
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
    // Truncations and byte mutations of a valid file must give Ok or a typed error.
    let text = print_module(&parse_module(NVRTC).unwrap_or_default()).unwrap_or_default();
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
