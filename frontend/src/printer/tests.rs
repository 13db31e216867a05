//! The shared walk printed in a toy syntax, on hand-built IR; the expected texts are written
//! out by hand from the walk's rules (state variables, param copies, skipped self-copies).

use super::operands::Operands;
use super::syntax::{AtomicAccess, BarrierKind, Syntax};
use super::walk::Walk;
use super::Body;
use crate::ir::{
    BinaryOperator, Block, CollectiveOperation, ConstValue, FnResult, Function, Inst, Local,
    Module, Op, Param, Scalar, Span, SubgroupOperation, SwitchCase, Terminator, Type, TypeId,
    ValueId,
};
use crate::names::ModuleNames;
use crate::{DiagKind, Diagnostic};

/// A C-like toy language; `first` puts the continuing block before the body, as MSL does.
struct Toy<'a> {
    b: Body<'a>,
    first: bool,
    loops: u32,
}

impl<'a> Syntax<'a> for Toy<'a> {
    fn body(&self) -> &Body<'a> {
        &self.b
    }
    fn body_mut(&mut self) -> &mut Body<'a> {
        &mut self.b
    }
    fn unsupported(&self, what: &str, _span: Span) -> Box<Diagnostic> {
        Box::new(Diagnostic::error(DiagKind::Unsupported, what))
    }
    fn ty(&self, t: TypeId) -> String {
        match self.b.types.get(t) {
            Type::Scalar(Scalar::U32) => "u32".into(),
            Type::Scalar(Scalar::Bool) => "bool".into(),
            other => format!("{other:?}"),
        }
    }
    fn constant(&self, c: &ConstValue) -> String {
        match c {
            ConstValue::U32(x) => format!("{x}u"),
            other => format!("{other:?}"),
        }
    }
    fn deref(&self, pointer: &str) -> String {
        format!("*{pointer}")
    }
    fn address_of(&self, place: String) -> String {
        format!("&{place}")
    }
    fn let_decl(&self, name: &str, value: &str) -> String {
        format!("let {name} = {value};")
    }
    fn var_decl(&self, name: &str, ty: TypeId, init: Option<&str>) -> String {
        match init {
            Some(init) => format!("var {name}: {} = {init};", self.ty(ty)),
            None => format!("var {name}: {};", self.ty(ty)),
        }
    }
    fn copy_decl(&self, name: &str, value: &str) -> String {
        format!("var {name} = {value};")
    }
    fn local_decl(&self, name: &str, ty: TypeId) -> String {
        self.var_decl(name, ty, None)
    }
    fn condition(&self, expr: &str) -> String {
        format!("({expr})")
    }
    fn case_labels(&self, case: &SwitchCase, _unsigned: bool) -> Vec<String> {
        let mut labels: Vec<String> = case.values.iter().map(|v| format!("case {v}:")).collect();
        if case.default {
            labels.push("default:".into());
        }
        labels.push("{".into());
        labels
    }
    fn case_falls_through(&self) -> bool {
        self.first
    }
    fn loop_open(&mut self, depth: usize, _has_continuing: bool) -> String {
        self.b.line(depth, "loop {");
        self.loops += 1;
        format!("L{}", self.loops - 1)
    }
    fn continuing_first(&self) -> bool {
        self.first
    }
    fn continuing_open(&self, label: &str) -> String {
        format!("continuing {label} {{")
    }
    fn continuing_close(&self, label: &str) -> Option<String> {
        self.first.then(|| format!("{label} = false;"))
    }
    fn break_if(&self, cond: &str) -> String {
        format!("break if {cond};")
    }
    fn return_value(&self, v: ValueId) -> String {
        format!("return {};", self.val(v))
    }
    fn discard(&self) -> &'static str {
        "discard;"
    }
    fn barrier(&self, _kind: BarrierKind) -> &'static str {
        "barrier;"
    }
    fn atomic(&self, access: AtomicAccess, place: &str, operands: &[String]) -> String {
        format!("{access:?}({place}, {})", operands.join(", "))
    }
    fn subgroup_name(&self, _: SubgroupOperation, _: CollectiveOperation) -> Option<&'static str> {
        None
    }
    fn statement(&mut self, _inst: &Inst, _depth: usize) -> Result<bool, Box<Diagnostic>> {
        Ok(false)
    }
    fn expr(
        &self,
        op: &Op,
        _result: Option<ValueId>,
        span: Span,
    ) -> Result<String, Box<Diagnostic>> {
        match op {
            Op::Binary(BinaryOperator::Add, a, b) => {
                Ok(format!("({} + {})", self.val(*a), self.val(*b)))
            }
            Op::Binary(BinaryOperator::GreaterEqual, a, b) => {
                Ok(format!("({} >= {})", self.val(*a), self.val(*b)))
            }
            other => Err(self.unsupported(&format!("{other:?}"), span)),
        }
    }
}

fn inst(result: Option<ValueId>, op: Op) -> Inst {
    Inst { result, op, span: Span::default() }
}

fn block(params: Vec<ValueId>, insts: Vec<Inst>, term: Terminator) -> Block {
    Block { params, insts, term }
}

/// `fn count(n: u32) -> u32`: a loop counting `i` up from 0 that leaves when `i >= n` (a
/// `break` in the body) or `i + 1 >= n` (`break if`), then a switch on the result.
fn counting_module() -> Module {
    let mut m = Module::default();
    let u32_t = m.types.intern(Type::Scalar(Scalar::U32));
    let bool_t = m.types.intern(Type::Scalar(Scalar::Bool));
    let mut f = Function {
        name: "count".into(),
        params: Vec::new(),
        result: Some(FnResult { ty: u32_t, binding: None }),
        values: Vec::new(),
        locals: vec![Local { name: "scratch".into(), ty: u32_t, span: Span::default() }],
        body: Block::default(),
        bounds: Default::default(),
        span: Span::default(),
    };
    let n = f.new_value(u32_t, Some("n".into()));
    let zero = f.new_value(u32_t, None);
    let one = f.new_value(u32_t, None);
    let i = f.new_value(u32_t, Some("i".into()));
    let done = f.new_value(bool_t, None);
    let j = f.new_value(u32_t, Some("i".into()));
    let next = f.new_value(u32_t, Some("next".into()));
    let last = f.new_value(bool_t, None);
    let result = f.new_value(u32_t, None);
    let s = f.new_value(u32_t, Some("s".into()));
    f.params.push(Param { name: "n".into(), value: n, binding: None });
    let body = block(
        vec![i],
        vec![
            inst(Some(done), Op::Binary(BinaryOperator::GreaterEqual, i, n)),
            inst(
                None,
                Op::If {
                    cond: done,
                    then_: block(vec![], vec![], Terminator::Break(vec![i])),
                    else_: Block { term: Terminator::Yield(vec![]), ..Block::default() },
                    results: vec![],
                },
            ),
        ],
        Terminator::Yield(vec![i]),
    );
    let continuing = block(
        vec![j],
        vec![
            inst(Some(next), Op::Binary(BinaryOperator::Add, j, one)),
            inst(Some(last), Op::Binary(BinaryOperator::GreaterEqual, next, n)),
        ],
        Terminator::Yield(vec![next]),
    );
    let cases = vec![
        SwitchCase {
            values: vec![0],
            default: false,
            body: block(vec![], vec![], Terminator::Yield(vec![one])),
        },
        SwitchCase {
            values: vec![],
            default: true,
            body: block(vec![], vec![], Terminator::Yield(vec![result])),
        },
    ];
    f.body = block(
        vec![],
        vec![
            inst(Some(zero), Op::Const(ConstValue::U32(0))),
            inst(Some(one), Op::Const(ConstValue::U32(1))),
            inst(
                None,
                Op::Loop {
                    init: vec![zero],
                    body,
                    continuing,
                    break_if: Some(last),
                    results: vec![result],
                },
            ),
            inst(None, Op::Switch { selector: result, cases, results: vec![s] }),
        ],
        Terminator::Return(Some(s)),
    );
    m.functions.push(f);
    m
}

/// Prints the locals and body of the module's only function in the toy syntax.
fn print(m: &Module, first: bool) -> Result<String, Box<Diagnostic>> {
    let names = ModuleNames::new(m);
    let f = &m.functions[0];
    let mut toy = Toy { b: Body::new(f, &m.types, &names), first, loops: 0 };
    for p in &f.params {
        let name = toy.b.namer.name(&p.name);
        toy.b.names.insert(p.value, name);
    }
    toy.function_body()?;
    Ok(toy.b.out)
}

const SWITCH: &str = "    var s: u32;
    switch (i) {
        case 0:
        {
            s = 1u;
        }
        default:
        {
            s = i;
        }
    }
    return s;
}
";

#[test]
fn continuing_after_the_body() {
    let expected = "    var scratch: u32;
    var i: u32 = 0u;
    loop {
        let i_1 = i;
        let v4 = (i_1 >= n);
        if (v4) {
            break;
        }
        continuing L0 {
            let i_2 = i;
            let next = (i_2 + 1u);
            let v7 = (next >= n);
            i = next;
            break if v7;
        }
    }
";
    let text = print(&counting_module(), false).map_err(|d| d.message).unwrap_or_else(|e| e);
    assert_eq!(text, format!("{expected}{SWITCH}"));
}

#[test]
fn continuing_first_with_falling_cases() {
    let expected = "    var scratch: u32;
    var i: u32 = 0u;
    loop {
        continuing L0 {
            let i_1 = i;
            let next = (i_1 + 1u);
            let v7 = (next >= n);
            i = next;
            break if v7;
        }
        L0 = false;
        let i_2 = i;
        let v4 = (i_2 >= n);
        if (v4) {
            break;
        }
    }
";
    let switch =
        SWITCH.replace("            s = 1u;\n", "            s = 1u;\n            break;\n");
    let switch = switch.replace("            s = i;\n", "            s = i;\n            break;\n");
    let text = print(&counting_module(), true).map_err(|d| d.message).unwrap_or_else(|e| e);
    assert_eq!(text, format!("{expected}{switch}"));
}

/// An `if` with an empty `then` arm prints its `else` arm under the negated condition.
#[test]
fn empty_then_arm_negates_the_condition() {
    let mut m = counting_module();
    let f = &mut m.functions[0];
    let Some(Op::Loop { body, .. }) = f.body.insts.get_mut(2).map(|i| &mut i.op) else {
        panic!("the loop is the third instruction");
    };
    if let Some(Op::If { then_, else_, .. }) = body.insts.get_mut(1).map(|i| &mut i.op) {
        std::mem::swap(then_, else_);
    }
    let text = print(&m, false).map_err(|d| d.message).unwrap_or_else(|e| e);
    assert!(text.contains("        if (!(v4)) {\n            break;\n        }\n"), "{text}");
}

/// A `Yield` with values at function level has nowhere to go.
#[test]
fn yield_at_function_level_is_a_diagnostic() {
    let mut m = counting_module();
    let s = ValueId(9);
    m.functions[0].body.term = Terminator::Yield(vec![s]);
    let err = print(&m, false).err().map(|d| d.message);
    assert_eq!(err.as_deref(), Some("a yield at function level"));
}
