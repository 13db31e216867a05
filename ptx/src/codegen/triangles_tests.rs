//! Diamonds of a computation and constants become triangles, on hand-built statements.

use super::*;
use crate::model::{build, StateSpace, Type};

fn label(s: &str) -> Statement {
    Statement::Label(s.to_string())
}

fn inst(i: Instruction) -> Statement {
    Statement::Inst(i)
}

/// `@%p bra T; bra Z; T: ld {r1, r2}; bra J; Z: mov r1, 0; mov r2, 0; bra J; J: st r1`, with
/// `z_extra` added to Z.
fn diamond(z_extra: Option<Instruction>) -> Vec<Statement> {
    let (p, a) = (Reg::pred(1), Reg::b64(1));
    let (r1, r2) = (Reg::b32(1), Reg::b32(2));
    let mut z = vec![
        label("Z"),
        inst(build::mov(Type::B32, r1, Operand::ImmHex(0))),
        inst(build::mov(Type::B32, r2, Operand::ImmHex(0))),
    ];
    z.extend(z_extra.map(inst));
    z.push(inst(build::bra("J")));
    let mut v = vec![
        inst(build::bra("T").guarded(p, false)),
        inst(build::bra("Z")),
        label("T"),
        inst(build::ld_vec(StateSpace::Global, Type::B32, &[r1, r2], Operand::addr(a, 0))),
        inst(build::bra("J")),
    ];
    v.extend(z);
    v.extend([
        label("J"),
        inst(build::st(StateSpace::Global, Type::B32, Operand::addr(a, 8), r1)),
        inst(build::ret()),
    ]);
    v
}

fn text(v: &[Statement]) -> Vec<String> {
    v.iter()
        .map(|s| match s {
            Statement::Label(l) => format!("{l}:"),
            Statement::Inst(i) => i.to_string().split_whitespace().collect::<Vec<_>>().join(" "),
            _ => String::new(),
        })
        .collect()
}

#[test]
fn zeros_first_then_a_branch_around_the_load() {
    let out = fold_constant_else(diamond(None));
    assert_eq!(
        text(&out),
        [
            "mov.b32 %r1, 0x0;",
            "mov.b32 %r2, 0x0;",
            "@!%p1 bra J;",
            "ld.global.v2.b32 {%r1, %r2}, [%rd1];",
            "bra J;",
            "J:",
            "st.global.b32 [%rd1+8], %r1;",
            "ret;"
        ]
    );
}

#[test]
fn a_constant_the_load_does_not_overwrite_keeps_the_diamond() {
    // %r3 = 7 only on the Z path: hoisting it would clobber %r3 on the load path.
    let extra = build::mov(Type::B32, Reg::b32(3), Operand::Imm(7));
    let input = diamond(Some(extra));
    assert_eq!(text(&fold_constant_else(input.clone())), text(&input));
}

#[test]
fn a_second_way_into_the_zero_block_keeps_the_diamond() {
    let mut input = diamond(None);
    input.insert(0, inst(build::bra("Z").guarded(Reg::pred(2), false)));
    assert_eq!(text(&fold_constant_else(input.clone())), text(&input));
}
