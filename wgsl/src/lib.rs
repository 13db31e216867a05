//! Prints WGSL from dianran's SSA form (docs/targets.md: "normalized WGSL printed back from the SSA").
//!
//! The printer is structured: regions become `if` / `switch` / `loop` with `continuing` and
//! `break if`. SSA values become `let`s; the results of a region become `var`s declared before
//! it and assigned where the region's arms yield. Loop-carried state is one `var` per carried
//! value: `Yield`, `Continue` and `Break` assign it, the loop body and continuing block read it
//! into `let`s at their tops (so an assignment never reads a variable an earlier one in the same
//! move overwrote), and after the loop it holds the loop's results. The walk is shared with the
//! MSL printer ([`dianran_frontend::printer`]); this crate spells it.
//! Pointers are never bound to names: a pointer value is printed at each use as the place it
//! denotes (`buf.data[i]`), which WGSL evaluates to the same reference.
//!
//! Declared names are kept (Unicode included) and escaped through the shared namer
//! ([`dianran_frontend::names`]), so WGSL and MSL agree on every identifier.

mod expr;
mod module;
mod portable;
mod types;
mod wide;

use dianran_frontend::{ir, DiagKind, Diagnostic};

pub use portable::portable_blocker;
pub use types::{type_name, MatrixSpelling};

/// Printer options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Leave out `enable subgroups;` (naga 30 and wgpu reject the directive; Tint and Chrome
    /// want it). Subgroup builtins are printed either way.
    pub omit_subgroups_enable: bool,
    /// Print cooperative matrices (naga's or Dawn's) as plain WGSL: arrays and loops every
    /// invocation runs alike (`portable` module), which any WGSL implementation runs, at
    /// any subgroup size. The bounds policy's limits are kept. dianran's workgroup matrices
    /// then print as the extension layer's helpers (their portable form) instead of the
    /// extension's own syntax (`docs/workgroup-matrix.md`).
    pub portable_matrices: bool,
}

/// Prints `m` as WGSL. Constructs WGSL cannot express (for example inlined regions, which only
/// the PTX path creates) are diagnostics naming the function.
pub fn write_module(m: &ir::Module, opts: &Options) -> Result<String, Vec<Diagnostic>> {
    if opts.portable_matrices {
        return module::Writer::new(m, *opts).write();
    }
    match without_coop_limits(m) {
        Some(stripped) => module::Writer::new(&stripped, *opts).write(),
        None => module::Writer::new(m, *opts).write(),
    }
}

/// `m` without cooperative tiles' bounds limits and the code that only computed them, when
/// it has any. WGSL cannot express a limit (`docs/bounds.md`, "Cooperative-matrix tiles"):
/// the tile prints as written, and the limit's computation would be unused `let`s.
fn without_coop_limits(m: &ir::Module) -> Option<ir::Module> {
    fn strip(b: &mut ir::Block) {
        for inst in &mut b.insts {
            if let ir::Op::CoopLoad { limit, .. } | ir::Op::CoopStore { limit, .. } = &mut inst.op {
                *limit = None;
            }
            for nb in inst.op.blocks_mut() {
                strip(nb);
            }
        }
    }
    fn has(b: &ir::Block) -> bool {
        b.insts.iter().any(|inst| {
            matches!(
                inst.op,
                ir::Op::CoopLoad { limit: Some(_), .. } | ir::Op::CoopStore { limit: Some(_), .. }
            ) || inst.op.blocks().into_iter().any(has)
        })
    }
    if !m.functions.iter().any(|f| has(&f.body)) {
        return None;
    }
    let mut copy = m.clone();
    for f in &mut copy.functions {
        strip(&mut f.body);
    }
    dianran_frontend::passes::dce(&mut copy);
    Some(copy)
}

fn unsupported(what: impl Into<String>, span: ir::Span, func: &str) -> Diagnostic {
    Diagnostic::error(DiagKind::Unsupported, format!("WGSL output cannot express {}", what.into()))
        .at(span)
        .in_fn(func)
        .help("this construct only arises from other input languages; please report the input")
}

#[cfg(test)]
mod tests {
    /// Locals declared without an initializer print without the frontend's zero stores, so
    /// printing the printed text gives it back.
    #[test]
    fn zero_initialized_locals_print_as_declarations_only() {
        let src = "struct S { a: f32 }\n\
            @group(0) @binding(0) var<storage, read_write> o: array<f32, 4>;\n\
            fn f(p: ptr<function, S>, q: ptr<function, array<f32, 4>>) { o[0] = (*p).a + (*q)[1]; }\n\
            @compute @workgroup_size(1) fn main() { var s: S; var a: array<f32, 4>; f(&s, &a); }\n";
        let print = |src: &str| {
            let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
                .unwrap_or_else(|d| panic!("{}", d.render()));
            crate::write_module(&m, &Default::default()).unwrap_or_else(|d| panic!("{d:?}"))
        };
        let first = print(src);
        assert!(first.contains("var s: S;") && !first.contains("s = S()"), "{first}");
        assert_eq!(print(&first), first);
    }

    fn print(src: &str) -> String {
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        crate::write_module(&m, &Default::default()).unwrap_or_else(|d| panic!("{d:?}"))
    }

    /// A `for` loop's exit test prints as `if !(c) { break; }`, which reads back as an `if` on
    /// a negation with an empty `else`: it prints the same way, not as `let v = !(c);` first.
    #[test]
    fn negated_conditions_print_inside_their_if() {
        let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32, 8>;\n\
            @compute @workgroup_size(1) fn main() {\n\
              for (var i = 0u; i < o[0]; i++) { o[1] += i; }\n\
              let d = o[2] == 3u;\n\
              if (!d) { o[3] = 1u; }\n\
              o[4] = 2u;\n\
            }\n";
        let first = print(src);
        assert!(!first.contains("= !("), "{first}");
        assert_eq!(print(&first), first);
    }

    /// Dawn's uniformity rule for subgroup matrices, set by a directive, is printed back with
    /// the extension (not in the portable form, which has no subgroup matrices).
    #[test]
    fn dawn_uniformity_directive_prints_back() {
        let src = "enable chromium_experimental_subgroup_matrix;\n\
            diagnostic(off, chromium.subgroup_matrix_uniformity);\n\
            @group(0) @binding(0) var<storage, read_write> o: array<f32>;\n\
            @compute @workgroup_size(32) fn main() {\n\
              let m = subgroupMatrixLoad<subgroup_matrix_left<f32, 8, 8>, row_major>(&o, 0u, 8u);\n\
              subgroupMatrixStore<row_major>(&o, 64u, m, 8u);\n\
            }\n";
        let first = print(src);
        assert!(first.contains("diagnostic(off, chromium.subgroup_matrix_uniformity);"), "{first}");
        assert_eq!(print(&first), first);
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("compiles");
        let opts = crate::Options { portable_matrices: true, ..Default::default() };
        let portable = crate::write_module(&m, &opts).expect("prints");
        assert!(!portable.contains("diagnostic"), "{portable}");
    }

    /// A struct the source only builds in an expression the passes fold away is not declared:
    /// the printed text would not name it, and reading it back would drop it.
    #[test]
    fn structs_print_only_when_the_text_names_them() {
        let src = "struct S { a: f32, b: f32 }\n\
            struct T { x: u32 }\n\
            @group(0) @binding(0) var<storage, read_write> o: array<f32, 4>;\n\
            @group(0) @binding(1) var<storage, read_write> t: T;\n\
            @compute @workgroup_size(1) fn main() { o[0] = S(1.0, 2.0).b; t.x = 1u; }\n";
        let first = print(src);
        assert!(!first.contains("struct S") && first.contains("struct T"), "{first}");
        assert_eq!(print(&first), first);
    }
}
