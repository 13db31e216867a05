//! Shared machinery of the structured text printers (WGSL and MSL).
//!
//! Both printers walk the region tree the same way: SSA values become named constants, the
//! results of an `if`/`switch` become variables declared before it and assigned where its arms
//! yield, and loop-carried state is one variable per carried value that `Yield`, `Continue` and
//! `Break` assign. [`Body`] holds that bookkeeping (names, definitions, break/continue targets,
//! the output text); [`walk::Walk`] is the walk itself and [`operands::Operands`] prints
//! operands, both written once over a [`syntax::Syntax`] that each printer implements with its
//! own spelling (as naga's back ends own their syntax while control flow follows the IR).

pub mod operands;
pub mod syntax;
pub mod walk;

#[cfg(test)]
mod tests;

use crate::ir::{AddressSpace, Block, Function, Op, Type, TypeId, Types, ValueId};
use crate::names::{ModuleNames, Namer};
use std::collections::HashMap;

/// What a block's `Yield` means where it is printed.
#[derive(Clone, Debug)]
pub enum Ctx {
    /// Function body: `Yield` passes nothing.
    Body,
    /// An `if` or `switch` arm: assign the region's result variables.
    Arm(Vec<String>),
    /// A loop body or continuing block: assign the loop's state variables.
    Loop(Vec<String>),
}

/// An enclosing construct `break` / `continue` can target, with the variables it assigns.
#[derive(Clone, Debug)]
pub enum Target {
    /// A loop and its state variables.
    Loop(Vec<String>),
    /// A switch and its result variables.
    Switch(Vec<String>),
}

/// Per-function printing state.
pub struct Body<'a> {
    /// The function being printed.
    pub f: &'a Function,
    /// The module's types.
    pub types: &'a Types,
    /// The module's item names (globals and functions are printed by name).
    pub module_names: &'a ModuleNames,
    /// Names in use (module names included).
    pub namer: Namer,
    /// The printed name of each named value.
    pub names: HashMap<ValueId, String>,
    /// The operation defining each instruction result.
    pub defs: HashMap<ValueId, &'a Op>,
    /// Parameter names by value.
    pub params: HashMap<ValueId, String>,
    /// Names of the function's memory locals, by `LocalId` index.
    pub locals: Vec<String>,
    /// Enclosing loops and switches, innermost last.
    pub targets: Vec<Target>,
    /// Constant names that hold an unchanged copy of a loop state variable (assigning the
    /// variable its own copy is skipped).
    pub copy_of: HashMap<String, String>,
    /// Values of a loop body that the loop's continuing block uses, where the syntax prints
    /// the continuing block before the body: the variable (declared before the loop) each is
    /// copied into right after its definition.
    pub carry: HashMap<ValueId, String>,
    /// Negations printed inside the `if` they decide (`if !(x)`), not bound first: the
    /// negation's value and `x` ([`syntax::Syntax::inlines_negated_conditions`]).
    pub negated: HashMap<ValueId, ValueId>,
    /// The text printed so far.
    pub out: String,
}

impl<'a> Body<'a> {
    /// State for printing `f` of a module with these types and item names; the function's
    /// names are taken after the module's.
    pub fn new(f: &'a Function, types: &'a Types, module_names: &'a ModuleNames) -> Self {
        let mut defs = HashMap::new();
        collect_defs(&f.body, &mut defs);
        Body {
            f,
            types,
            module_names,
            namer: module_names.namer.clone(),
            names: HashMap::new(),
            defs,
            params: HashMap::new(),
            locals: Vec::new(),
            targets: Vec::new(),
            copy_of: HashMap::new(),
            carry: HashMap::new(),
            negated: HashMap::new(),
            out: String::new(),
        }
    }

    /// Fills [`Body::negated`]: each `v = !x` used once, as the condition of an `if` whose
    /// `else` arm is empty and `then` arm is not.
    pub fn find_negated_conditions(&mut self) {
        fn conds_of(b: &Block, conds: &mut Vec<ValueId>) {
            for i in &b.insts {
                if let Op::If { cond, then_, else_, .. } = &i.op {
                    if !is_trivial(then_) && is_trivial(else_) {
                        conds.push(*cond);
                    }
                }
                for nb in i.op.blocks() {
                    conds_of(nb, conds);
                }
            }
        }
        let uses = self.f.use_counts();
        let mut conds = Vec::new();
        conds_of(&self.f.body, &mut conds);
        for c in conds {
            if let (Some(Op::Unary(crate::ir::UnaryOperator::LogicalNot, x)), Some(1)) =
                (self.defs.get(&c), uses.get(c.index()))
            {
                self.negated.insert(c, *x);
            }
        }
    }

    /// Appends one line indented by `depth` levels of four spaces.
    pub fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The type of a value.
    pub fn ty(&self, v: ValueId) -> TypeId {
        self.f.ty(v)
    }

    /// Gives `v` a fresh name from its source name (or `v<N>`) and records it.
    pub fn new_name(&mut self, v: ValueId) -> String {
        let hint = self.f.values.get(v.index()).and_then(|d| d.name.clone());
        let name = match hint {
            Some(h) => self.namer.name(&h),
            None => self.namer.name(&format!("v{}", v.0)),
        };
        self.names.insert(v, name.clone());
        name
    }

    /// The pointee type and address space when `v` is a pointer.
    pub fn pointer(&self, v: ValueId) -> Option<(TypeId, AddressSpace)> {
        match self.types.get(self.ty(v)) {
            Type::Pointer { base, space } => Some((*base, *space)),
            _ => None,
        }
    }

    /// Prints `target = value;` for each pair, skipping a variable assigned its own unchanged
    /// copy. `values` are the printed operands.
    pub fn assign(&mut self, depth: usize, targets: &[String], values: &[String]) {
        for (t, value) in targets.iter().zip(values) {
            if self.copy_of.get(value) == Some(t) {
                continue;
            }
            self.line(depth, &format!("{t} = {value};"));
        }
    }

    /// The variables a `break` assigns: the innermost loop's or switch's.
    pub fn break_vars(&self) -> Vec<String> {
        match self.targets.last() {
            Some(Target::Loop(v)) | Some(Target::Switch(v)) => v.clone(),
            None => Vec::new(),
        }
    }

    /// The variables a `continue` assigns: the innermost loop's.
    pub fn continue_vars(&self) -> Vec<String> {
        self.targets
            .iter()
            .rev()
            .find_map(|t| match t {
                Target::Loop(v) => Some(v.clone()),
                Target::Switch(_) => None,
            })
            .unwrap_or_default()
    }
}

fn collect_defs<'a>(b: &'a Block, defs: &mut HashMap<ValueId, &'a Op>) {
    for inst in &b.insts {
        if let Some(r) = inst.result {
            defs.insert(r, &inst.op);
        }
        for nested in inst.op.blocks() {
            collect_defs(nested, defs);
        }
    }
}

/// Whether a block does nothing and yields nothing (an `if` arm that need not be printed).
pub fn is_trivial(b: &Block) -> bool {
    b.insts.is_empty() && matches!(&b.term, crate::ir::Terminator::Yield(a) if a.is_empty())
}
