//! Moves every span of a naga module parsed from rewritten text back into the user's text.
//!
//! naga's arenas do not hand out their spans mutably, so each arena is rebuilt in order
//! (handles stay the same: an arena's handles are its insertion order, and a unique arena's
//! values are already unique).

use super::srcmap::SourceMap;
use crate::parse::span_of;

fn map(m: &SourceMap, s: naga::Span) -> naga::Span {
    if s.to_range().is_none() {
        return s;
    }
    let r = m.span(span_of(s));
    naga::Span::new(r.start, r.end)
}

fn arena<T>(a: &mut naga::Arena<T>, m: &SourceMap) {
    let items: Vec<(T, naga::Span)> = a.drain().map(|(_, v, s)| (v, map(m, s))).collect();
    for (v, s) in items {
        a.append(v, s);
    }
}

fn block(b: &mut naga::Block, m: &SourceMap) {
    for (st, span) in b.span_iter_mut() {
        if let Some(span) = span {
            *span = map(m, *span);
        }
        match st {
            naga::Statement::Block(inner) => block(inner, m),
            naga::Statement::If { accept, reject, .. } => {
                block(accept, m);
                block(reject, m);
            }
            naga::Statement::Switch { cases, .. } => {
                for c in cases {
                    block(&mut c.body, m);
                }
            }
            naga::Statement::Loop { body, continuing, .. } => {
                block(body, m);
                block(continuing, m);
            }
            _ => {}
        }
    }
}

fn function(f: &mut naga::Function, m: &SourceMap) {
    arena(&mut f.expressions, m);
    arena(&mut f.local_variables, m);
    block(&mut f.body, m);
}

/// Rewrites every span of `module` through `m`.
pub fn remap(module: &mut naga::Module, m: &SourceMap) {
    let mut types = naga::UniqueArena::new();
    for (h, t) in module.types.iter() {
        types.insert(t.clone(), map(m, module.types.get_span(h)));
    }
    module.types = types;
    arena(&mut module.constants, m);
    arena(&mut module.overrides, m);
    arena(&mut module.global_variables, m);
    arena(&mut module.global_expressions, m);
    let funcs: Vec<(naga::Function, naga::Span)> =
        module.functions.drain().map(|(_, f, s)| (f, map(m, s))).collect();
    for (mut f, s) in funcs {
        function(&mut f, m);
        module.functions.append(f, s);
    }
    for ep in &mut module.entry_points {
        function(&mut ep.function, m);
    }
}
