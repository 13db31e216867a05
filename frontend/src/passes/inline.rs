//! Inlining: replaces every call by an `Inline` region holding a renumbered copy of the callee.
//!
//! Backends without functions (PTX here) call [`inline_calls`] per entry point. The callee's
//! values get fresh ids in the caller, its locals are appended to the caller's locals, and
//! `Return` inside the copy leaves the `Inline` region (see [`crate::ir`]). Value parameters
//! become the region body's params bound to the call's arguments; pointer parameters are
//! replaced by the argument itself (it dominates the region), so a caller's local passed by
//! pointer is accessed directly and mem2reg can promote it after inlining.

use crate::ir::*;
use crate::{DiagKind, Diagnostic};

/// Calls nested deeper than this are rejected (WGSL forbids recursion; this guards bad IR).
const MAX_DEPTH: u32 = 64;
/// Total instructions copied for one function before inlining gives up.
const MAX_INSTS: usize = 2_000_000;
/// Regions nested deeper than this after inlining are rejected: every pass walks the region
/// tree recursively, and the callee bodies' nesting adds up along a call chain.
const MAX_NEST: u32 = 256;

/// Returns a copy of function `f` with every call, transitively, replaced by an `Inline`
/// region. Errors: `Limit` when calls nest deeper than 64, regions deeper than 256, or the
/// result grows past two million instructions; `Internal` for a call of a missing function or
/// with the wrong argument count.
pub fn inline_calls(m: &Module, f: FuncId) -> Result<Function, Diagnostic> {
    let Some(src) = m.functions.get(f.index()) else {
        return Err(Diagnostic::error(
            DiagKind::Internal,
            format!("inline_calls: no function {f} in the module"),
        ));
    };
    let mut out = src.clone();
    let mut body = std::mem::take(&mut out.body);
    let mut inl = Inliner { m, caller: &mut out, copied: 0, root: src.name.clone() };
    inl.block(&mut body, 0, 0)?;
    out.body = body;
    Ok(out)
}

struct Inliner<'a> {
    m: &'a Module,
    caller: &'a mut Function,
    copied: usize,
    root: String,
}

impl Inliner<'_> {
    /// `depth`: calls being inlined around `b`; `nest`: regions around `b`.
    fn block(&mut self, b: &mut Block, depth: u32, nest: u32) -> Result<(), Diagnostic> {
        if nest > MAX_NEST {
            return Err(Diagnostic::error(
                DiagKind::Limit,
                format!("inlining nests control flow deeper than {MAX_NEST} levels"),
            )
            .at(b.insts.first().map(|i| i.span).unwrap_or_default())
            .in_fn(self.root.clone())
            .help("move some nested blocks into separate, less deeply called functions"));
        }
        for inst in &mut b.insts {
            for nb in inst.op.blocks_mut() {
                self.block(nb, depth, nest + 1)?;
            }
            let Op::Call(g, args) = &inst.op else { continue };
            let (g, args) = (*g, args.clone());
            if depth >= MAX_DEPTH {
                return Err(Diagnostic::error(
                    DiagKind::Limit,
                    format!("calls nest deeper than {MAX_DEPTH} levels (recursion?)"),
                )
                .at(inst.span)
                .in_fn(self.root.clone())
                .help("WGSL does not allow recursion; reduce the call depth"));
            }
            let m = self.m;
            let Some(callee) = m.functions.get(g.index()) else {
                return Err(Diagnostic::error(
                    DiagKind::Internal,
                    format!("call of missing function {g}"),
                )
                .at(inst.span)
                .in_fn(self.root.clone()));
            };
            if callee.params.len() != args.len() {
                return Err(Diagnostic::error(
                    DiagKind::Internal,
                    format!(
                        "call of '{}' with {} arguments, it takes {}",
                        callee.name,
                        args.len(),
                        callee.params.len()
                    ),
                )
                .at(inst.span)
                .in_fn(self.root.clone()));
            }
            self.copied += count(&callee.body);
            if self.copied > MAX_INSTS {
                return Err(Diagnostic::error(
                    DiagKind::Limit,
                    format!("inlining grows the function past {MAX_INSTS} instructions"),
                )
                .at(inst.span)
                .in_fn(self.root.clone())
                .help("call large functions from fewer places"));
            }
            let mut map: Vec<Option<ValueId>> = vec![None; callee.values.len()];
            let mut params = Vec::new();
            let mut inline_args = Vec::new();
            for (p, &a) in callee.params.iter().zip(&args) {
                let Some(d) = callee.values.get(p.value.index()) else { continue };
                if matches!(m.types.get(d.ty), Type::Pointer { .. }) {
                    map[p.value.index()] = Some(a);
                } else {
                    let nv = self.caller.new_value(d.ty, d.name.clone());
                    map[p.value.index()] = Some(nv);
                    params.push(nv);
                    inline_args.push(a);
                }
            }
            let base = self.caller.locals.len() as u32;
            self.caller.locals.extend(callee.locals.iter().cloned());
            let mut body = callee.body.clone();
            {
                let caller = &mut *self.caller;
                let mut rn = |v: ValueId| -> ValueId {
                    match map.get(v.index()) {
                        Some(Some(n)) => *n,
                        Some(None) => {
                            let d = &callee.values[v.index()];
                            let n = caller.new_value(d.ty, d.name.clone());
                            map[v.index()] = Some(n);
                            n
                        }
                        // Out of range in the callee: keep an id that the verifier reports.
                        None => ValueId(u32::MAX),
                    }
                };
                renumber(&mut body, &mut rn, base);
            }
            body.params = params;
            self.block(&mut body, depth + 1, nest + 1)?;
            let results: Vec<ValueId> = inst.result.into_iter().collect();
            inst.op = Op::Inline { callee: g, body, args: inline_args, results };
            inst.result = None;
        }
        Ok(())
    }
}

fn count(b: &Block) -> usize {
    b.insts.iter().map(|i| 1 + i.op.blocks().iter().map(|nb| count(nb)).sum::<usize>()).sum()
}

/// Renames every value in `b` (definitions and uses) and shifts local ids by `base`.
fn renumber(b: &mut Block, rn: &mut impl FnMut(ValueId) -> ValueId, base: u32) {
    for p in &mut b.params {
        *p = rn(*p);
    }
    for inst in &mut b.insts {
        inst.op.map_operands(&mut *rn);
        if let Op::LocalAddr(l) = &mut inst.op {
            l.0 += base;
        }
        if let Some(r) = &mut inst.result {
            *r = rn(*r);
        }
        match &mut inst.op {
            Op::If { results, .. }
            | Op::Switch { results, .. }
            | Op::Loop { results, .. }
            | Op::Inline { results, .. } => {
                for r in results.iter_mut() {
                    *r = rn(*r);
                }
            }
            _ => {}
        }
        for nb in inst.op.blocks_mut() {
            renumber(nb, rn, base);
        }
    }
    for a in b.term.args_mut() {
        *a = rn(*a);
    }
}

/// Splices every `Inline` region that returns only at the end of its body into the enclosing
/// block: its params become the arguments and its results the returned (or yielded) values.
/// Afterwards stores into the caller's locals made by the callee are ordinary stores in the
/// caller, so mem2reg can promote those locals. Regions with an early `Return` stay.
pub(crate) fn splice_inlines(f: &mut Function) {
    splice_inlines_except(f, &|_, _| false);
}

/// [`splice_inlines`], keeping the regions for which `keep(callee, body)` holds.
pub(crate) fn splice_inlines_except(f: &mut Function, keep: &dyn Fn(FuncId, &Block) -> bool) {
    let mut subst = super::util::Subst::default();
    splice_block(&mut f.body, &mut subst, keep);
    if !subst.is_empty() {
        subst.apply_block(&mut f.body);
    }
}

fn has_nested_return(b: &Block) -> bool {
    b.insts.iter().any(|i| match &i.op {
        // Returns inside a nested inline region leave that region only.
        Op::Inline { .. } => false,
        op => op
            .blocks()
            .iter()
            .any(|nb| matches!(nb.term, Terminator::Return(_)) || has_nested_return(nb)),
    })
}

/// Whether `b` holds (at any depth) an instruction with an effect beyond its result: a
/// store, an atomic, a barrier, a subgroup or cooperative operation, an image write.
pub(crate) fn acts(b: &Block) -> bool {
    b.insts.iter().any(|i| {
        let blocks = i.op.blocks();
        if blocks.is_empty() {
            i.op.has_side_effects()
        } else {
            blocks.into_iter().any(acts)
        }
    })
}

fn splice_block(
    b: &mut Block,
    subst: &mut super::util::Subst,
    keep: &dyn Fn(FuncId, &Block) -> bool,
) {
    let old = std::mem::take(&mut b.insts);
    let mut out = Vec::with_capacity(old.len());
    for mut inst in old {
        for nb in inst.op.blocks_mut() {
            splice_block(nb, subst, keep);
        }
        if let Op::Inline { body, args, results, callee } = &mut inst.op {
            if keep(*callee, body) {
                out.push(inst);
                continue;
            }
            let exits: Option<Vec<ValueId>> = match &body.term {
                Terminator::Return(v) => Some(v.iter().copied().collect()),
                Terminator::Yield(v) => Some(v.clone()),
                _ => None,
            };
            if let Some(exits) = exits {
                if exits.len() == results.len()
                    && body.params.len() == args.len()
                    && !has_nested_return(body)
                {
                    for (&p, &a) in body.params.iter().zip(args.iter()) {
                        subst.set(p, a);
                    }
                    for (&r, &v) in results.iter().zip(&exits) {
                        subst.set(r, v);
                    }
                    out.append(&mut body.insts);
                    continue;
                }
            }
        }
        out.push(inst);
    }
    b.insts = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::{count_insts, run, Builder, Val};
    use crate::verifier::verify;
    use BinaryOperator as B;

    /// g(y) { var t = y * 2; return t }  f(x) { return g(x) + g(x + 1) }
    fn two_calls() -> Module {
        let mut b = Builder::new("g");
        let it = b.i32();
        b.result(it);
        let y = b.param(it);
        let t = b.var("t", it);
        let two = b.ci(2);
        let y2 = b.bin(B::Multiply, y, two);
        b.store(t, y2);
        let r = b.load(t);
        let (m, g) = b.finish(Terminator::Return(Some(r)));
        let mut b = Builder::next_function(m, "f");
        let it = b.i32();
        b.result(it);
        let x = b.param(it);
        let a = b.op(Op::Call(g, vec![x]), it);
        let one = b.ci(1);
        let x1 = b.bin(B::Add, x, one);
        let c = b.op(Op::Call(g, vec![x1]), it);
        let s = b.bin(B::Add, a, c);
        b.finish_entry(Terminator::Return(Some(s)))
    }

    #[test]
    fn calls_become_renumbered_inline_regions() {
        let mut m = two_calls();
        let f = FuncId(1);
        let inlined = inline_calls(&m, f).unwrap();
        assert_eq!(inlined.locals.len(), 2, "one copy of g's local per call");
        assert_eq!(count_insts(&inlined.body, &|o| matches!(o, Op::Call(..))), 0);
        assert_eq!(count_insts(&inlined.body, &|o| matches!(o, Op::Inline { .. })), 2);
        m.functions[1] = inlined;
        verify(&m).unwrap_or_else(|d| panic!("{d:?}\n{}", crate::text::module_text(&m)));
        // 2x + 2(x + 1)
        for x in [0, 5, -2] {
            assert_eq!(run(&m, f, vec![Val::I(x)]).unwrap(), Some(Val::I(4 * x + 2)));
        }
        crate::passes::optimize(&mut m).unwrap();
        assert!(m.functions[1].locals.is_empty());
        for x in [0, 5, -2] {
            assert_eq!(run(&m, f, vec![Val::I(x)]).unwrap(), Some(Val::I(4 * x + 2)));
        }
    }

    #[test]
    fn recursion_hits_the_depth_limit() {
        let mut b = Builder::new("r");
        b.stmt(Op::Call(FuncId(0), vec![]));
        let (m, f) = b.finish(Terminator::Return(None));
        let d = inline_calls(&m, f).unwrap_err();
        assert_eq!(d.kind, DiagKind::Limit);
        assert_eq!(d.context.as_deref(), Some("r"));
        assert!(inline_calls(&m, FuncId(9)).is_err());
    }

    /// After inlining for the PTX backend, a helper that only reads is spliced, so its loads
    /// of a read-only buffer merge across calls; a helper that stores keeps its region.
    #[test]
    fn reading_helpers_splice_and_writing_ones_stay() {
        let src = "@group(0) @binding(0) var<storage, read> size: vec2<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32, 64>;
fn index(x: u32, y: u32) -> u32 { return (y % size.y) * size.x + x % size.x; }
fn put(at: u32, v: u32) { o[at & 63u] = v; }
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    put(0u, index(g.x, g.y) + index(g.x + 1u, g.y));
    put(1u, 2u);
}";
        let parsed = crate::passes::testutil::parsed(src);
        let mut m = crate::lower::lower_module(&parsed).expect("lowers");
        crate::passes::optimize(&mut m).expect("optimizes");
        let id = m.entry_points[0].function;
        let mut f = inline_calls(&m, id).expect("inlines");
        crate::passes::optimize_inlined(&m, id, &mut f).expect("optimizes inlined");
        let inlines = count_insts(&f.body, &|o| matches!(o, Op::Inline { .. }));
        assert_eq!(inlines, 2, "the two `put`s");
        // size.x and size.y once each (before: once per `index` call).
        assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::Load(_))), 2);
        assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::Binary(B::Modulo, ..))), 3);
    }
}
