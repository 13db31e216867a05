//! naga parsing, validation and override processing, with every error as a [`Diagnostic`].
//!
//! The pipeline: [`crate::source::preprocess`] (strip `enable subgroups;`), naga's WGSL
//! parser, naga's validator with the capabilities dianran supports, [`crate::checks`] (what
//! the validator misses), then `process_overrides` with the `--override` values and a second
//! validation of the result.

use crate::ir::Span;
use crate::{checks, ext, source, DiagKind, Diagnostic, Diagnostics, Options, Parsed};
use naga::valid::{Capabilities, ModuleInfo, ValidationError, ValidationFlags, Validator};
use std::error::Error as _;

/// The validator capabilities dianran accepts: f16, f64, i64/u64 with their atomics,
/// subgroups, cooperative matrices, f32 atomics (`atomicAdd`/`atomicSub`/`atomicExchange` on
/// `atomic<f32>` in storage memory), immediate data (`var<immediate>`, docs/immediates.md) and
/// cube-array textures (`texture_cube_array`, `texture_depth_cube_array`: core WebGPU, in
/// naga's default set).
/// Tests that re-validate printed WGSL use the same set.
pub const CAPABILITIES: Capabilities = Capabilities::SHADER_FLOAT16
    .union(Capabilities::SHADER_FLOAT16_IN_FLOAT32)
    .union(Capabilities::FLOAT64)
    .union(Capabilities::SHADER_INT64)
    .union(Capabilities::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(Capabilities::SHADER_INT64_ATOMIC_ALL_OPS)
    .union(Capabilities::SUBGROUP)
    .union(Capabilities::SUBGROUP_BARRIER)
    .union(Capabilities::COOPERATIVE_MATRIX)
    .union(Capabilities::SHADER_FLOAT32_ATOMIC)
    .union(Capabilities::IMMEDIATES)
    .union(Capabilities::CUBE_ARRAY_TEXTURES);

fn validator() -> Validator {
    Validator::new(ValidationFlags::all(), CAPABILITIES)
}

/// Parses and validates `source`, runs the extra checks and resolves overrides.
pub fn parse(file_name: &str, source: &str, opts: &Options) -> Result<Parsed, Diagnostics> {
    let fail = |list: Vec<Diagnostic>| Diagnostics::new(file_name, source, list);
    let (text, enables) = source::preprocess(source);
    // Dawn's subgroup matrices and dianran's workgroup matrices: rewritten into WGSL naga
    // reads, with a source map.
    let exts =
        ext::sgm::Exts { subgroup: enables.subgroup_matrix, workgroup: enables.workgroup_matrix };
    let sgm = match exts.subgroup || exts.workgroup {
        true => Some(ext::sgm::rewrite(&text, exts).map_err(fail)?),
        false => None,
    };
    let text = sgm.as_ref().map_or(text, |r| r.text.clone());
    let longest = source::longest_statement(&text);
    if let Some(d) = source::limit_error(longest) {
        return Err(fail(vec![d]));
    }
    // naga recurses about once per operator of a statement: run it here when this thread's
    // stack has room for that, on a parser thread with a big stack otherwise.
    let ops = longest.0;
    let need = STACK_BASE + ops * STACK_PER_OPERATOR;
    let result = if stacker::remaining_stack().is_some_and(|left| left >= need) {
        catch_naga_panic(|| naga_front(&text, opts))
    } else {
        let owned = (text.clone(), opts.clone());
        run_with_big_stack(move || naga_front(&owned.0, &owned.1))
    };
    let (module, info) = result.map_err(|mut list| {
        // Name the function an error is in when naga did not.
        for d in &mut list {
            if let (None, Some(span)) = (&d.context, d.span) {
                d.context = source::enclosing_function(&text, span.start as usize);
            }
            if let Some(r) = &sgm {
                ext::sgm::user_facing(d, r);
            }
        }
        fail(list)
    })?;
    let mut module = module;
    if let Some(r) = &sgm {
        ext::naga_spans::remap(&mut module, &r.map);
    }
    Ok(Parsed {
        module,
        info,
        enables,
        file_name: file_name.to_string(),
        source: source.to_string(),
        sgm,
    })
}

/// Stack for naga: its parser and validator recurse over expression trees, which a long
/// operator chain makes deep. The memory is reserved, and only touched pages are used.
const NAGA_STACK: usize = 256 << 20;

/// Stack naga needs besides its recursion over a statement, and per operator of the longest
/// statement. Measured (naga 30, parse and validate): about 0.6 KiB per operator of an
/// `a + a + ...` chain in a release build, 7 KiB unoptimized; nested blocks and parentheses,
/// whose depth naga caps itself, took at most 0.6 MiB optimized and 2.5 MiB unoptimized.
const STACK_BASE: usize = 4 << 20;
const STACK_PER_OPERATOR: usize = 8 << 10;

/// Runs `f`, turning a panic in naga into an internal-error diagnostic.
fn catch_naga_panic<T>(
    f: impl FnOnce() -> Result<T, Vec<Diagnostic>>,
) -> Result<T, Vec<Diagnostic>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|p| Err(naga_panicked(p)))
}

/// The diagnostic for a panic in naga, with its message.
fn naga_panicked(payload: Box<dyn std::any::Any + Send>) -> Vec<Diagnostic> {
    let what = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string());
    vec![Diagnostic::error(DiagKind::Internal, format!("naga panicked: {what}"))
        .help("this is a bug in naga or dianran; please report it with the shader")]
}

/// A job for a parser thread: runs on the big stack and reports through its own channel.
type Job = Box<dyn FnOnce() + Send>;

/// Idle parser threads, each with a [`NAGA_STACK`]-byte stack, waiting for a job. Starting a
/// thread with such a stack costs more than naga's whole parse of a typical kernel (0.1-4 ms
/// measured, against about 0.1 ms), so threads are kept and reused: one per concurrent caller.
static IDLE: std::sync::Mutex<Vec<std::sync::mpsc::Sender<Job>>> =
    std::sync::Mutex::new(Vec::new());

/// Starts a parser thread and returns its job queue.
fn start_parser_thread() -> std::io::Result<std::sync::mpsc::Sender<Job>> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::Builder::new().name("dianran-naga".into()).stack_size(NAGA_STACK).spawn(
        move || {
            // Ends when every sender is gone.
            while let Ok(job) = rx.recv() {
                job();
            }
        },
    )?;
    Ok(tx)
}

/// Runs `f` on a parser thread with [`NAGA_STACK`] bytes of stack; a panic in naga becomes an
/// internal-error diagnostic instead of taking the caller down.
fn run_with_big_stack<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Vec<Diagnostic>> + Send + 'static,
) -> Result<T, Vec<Diagnostic>> {
    let idle = IDLE.lock().unwrap_or_else(|p| p.into_inner()).pop();
    let worker = match idle {
        Some(w) => w,
        None => start_parser_thread().map_err(|e| {
            vec![Diagnostic::error(DiagKind::Limit, format!("cannot start the parser thread: {e}"))
                .help("free some memory and try again")]
        })?,
    };
    let (done, result) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = done.send(r);
    });
    let outcome = match worker.send(job) {
        Ok(()) => result.recv().ok(),
        Err(_) => None,
    };
    match outcome {
        Some(Ok(r)) => {
            IDLE.lock().unwrap_or_else(|p| p.into_inner()).push(worker);
            r
        }
        Some(Err(payload)) => {
            // The thread survives a caught panic; naga's state is per call, so it is reused.
            IDLE.lock().unwrap_or_else(|p| p.into_inner()).push(worker);
            Err(naga_panicked(payload))
        }
        None => Err(vec![Diagnostic::error(DiagKind::Internal, "the parser thread stopped")
            .help("this is a bug in dianran; please report it with the shader")]),
    }
}

/// naga's part: parse, validate, the extra checks, overrides.
fn naga_front(text: &str, opts: &Options) -> Result<(naga::Module, ModuleInfo), Vec<Diagnostic>> {
    let module = naga::front::wgsl::parse_str(text).map_err(|e| vec![parse_error(&e, text)])?;
    let info =
        validator().validate(&module).map_err(|e| vec![validation_error(&e, &module, text)])?;
    let found = checks::check_module(&module, &info, text);
    if !found.is_empty() {
        return Err(found);
    }
    resolve_overrides(module, info, opts, text)
}

/// Converts a naga span (undefined spans become unknown ones).
pub(crate) fn span_of(span: naga::Span) -> Span {
    match span.to_range() {
        Some(r) => Span { start: r.start as u32, end: r.end as u32 },
        None => Span { start: 0, end: 0 },
    }
}

/// A naga parse error as a diagnostic: the first label is the location, the others are
/// secondary labels.
fn parse_error(e: &naga::front::wgsl::ParseError, text: &str) -> Diagnostic {
    if e.notes().any(|n| n.contains("recursion limit")) {
        // naga's "internal error" without a location: say what it is and where.
        let mut d = Diagnostic::error(DiagKind::Limit, "expressions or blocks are nested too deeply")
            .help("split the expression into several `let` declarations, or move nested blocks into functions");
        if let Some(at) = source::deepest_nesting(text) {
            d = d.at(Span { start: at as u32, end: at as u32 + 1 });
        }
        return d;
    }
    let mut message = clean_message(e.message());
    if message.contains("found \"/*") {
        // naga's lexer reports an unclosed comment as an unexpected token.
        message = "unterminated block comment `/*`".to_string();
    }
    let help = parse_help(&message);
    let mut d = Diagnostic::error(DiagKind::Parse, message).help(help);
    for (i, (span, text)) in e.labels().enumerate() {
        if i == 0 {
            d = d.at(span_of(span));
            if !text.is_empty() {
                d = d.note(text.to_string());
            }
        } else {
            d = d.label(span_of(span), text.to_string());
        }
    }
    for n in e.notes() {
        d = d.note(n.to_string());
    }
    d
}

/// A naga validation error as a diagnostic, with the error chain, the function or entry
/// point naga names, and naga's spans (the most specific first).
pub(crate) fn validation_error(
    e: &naga::WithSpan<ValidationError>,
    module: &naga::Module,
    text: &str,
) -> Diagnostic {
    let inner = e.as_inner();
    let context = match inner {
        ValidationError::Function { name, .. } | ValidationError::EntryPoint { name, .. } => {
            Some(name.clone())
        }
        _ => None,
    };
    // The chain from the outermost error to the most specific one. The outermost only says
    // "function 'f' is invalid" when the context names the function, so it is left out then.
    let mut chain: Vec<String> = Vec::new();
    if context.is_none() {
        chain.push(clean_message(&inner.to_string()));
    }
    let mut cur: Option<&dyn std::error::Error> = e.source();
    while let Some(err) = cur {
        chain.push(clean_message(&err.to_string()));
        cur = err.source();
    }
    if chain.is_empty() {
        chain.push(clean_message(&inner.to_string()));
    }
    chain.dedup();
    for link in &mut chain {
        *link = friendly(link);
    }
    // The most specific reason is the message; the outer steps become a note.
    let mut message = chain.last().cloned().unwrap_or_default();
    if let Some(better) = specific_message(inner, module) {
        message = better;
    }
    let help = validation_help(&format!("{message}: {}", chain.join(": ")));
    let mut d = Diagnostic::error(DiagKind::Validation, message).help(help);
    if chain.len() > 1 {
        d = d.note(format!("naga: {}", chain.join(": ")));
    }
    if let Some(name) = context {
        d = d.in_fn(name);
    }
    // naga's spans, known ones only; the smallest is the most specific and becomes the
    // location. A span naga labels as the whole function adds nothing next to the context.
    let mut spans: Vec<(Span, String)> =
        e.spans().map(|(s, t)| (span_of(*s), t.clone())).filter(|(s, _)| !s.is_unknown()).collect();
    if spans.is_empty() {
        if let ValidationError::Type { handle, .. } = inner {
            // naga keeps no span for some types (f64): point at the first place the type is
            // written instead.
            use naga::common::wgsl::TypeContext;
            let mut s = span_of(module.types.get_span(*handle));
            if s.is_unknown() {
                let whole = Span { start: 0, end: text.len() as u32 };
                let found = name_span(text, whole, &module.types.type_to_string(*handle));
                if found != whole {
                    s = found;
                }
            }
            spans.push((s, String::new()));
        }
    }
    let mut primary = spans.iter().map(|(s, _)| *s).min_by_key(|s| s.end - s.start);
    match better_span(inner, module, text) {
        Some((s, true)) => primary = Some(s),
        Some((s, false)) if primary.is_none() => primary = Some(s),
        _ => {}
    }
    if let Some(p) = primary {
        d = d.at(p);
    }
    for (s, t) in spans {
        if Some(s) == primary || t.contains("ir::Function") {
            continue;
        }
        let text = if t.starts_with("naga::") { String::new() } else { clean_message(&t) };
        d = d.label(s, text);
    }
    d
}

/// A more precise location than naga's for some errors: the `return` statement of a wrong
/// return value, the end of a function missing its `return`, the `@workgroup_size` of an
/// entry point; the flag says whether the span is precise (better than naga's) or only a
/// fallback (the entry point's name) for when naga gives none.
fn better_span(inner: &ValidationError, module: &naga::Module, text: &str) -> Option<(Span, bool)> {
    use naga::valid::{EntryPointError, FunctionError};
    match inner {
        ValidationError::Function {
            handle,
            source: FunctionError::InvalidReturnType { expression, .. },
            ..
        } => {
            let f = module.functions.try_get(*handle).ok()?;
            let s = match expression {
                Some(e) => find_return(&f.body, *e),
                None => {
                    // The function can end without a `return`: point at its closing brace.
                    let whole = span_of(module.functions.get_span(*handle));
                    (!whole.is_unknown() && whole.end > whole.start)
                        .then(|| Span { start: whole.end - 1, end: whole.end })
                }
            };
            s.map(|s| (s, true))
        }
        ValidationError::EntryPoint { name, source, .. } => {
            let ep = module.entry_points.iter().find(|ep| ep.name == *name)?;
            if let EntryPointError::Function(FunctionError::InvalidReturnType {
                expression: Some(e),
                ..
            }) = source
            {
                return find_return(&ep.function.body, *e).map(|s| (s, true));
            }
            let whole = Span { start: 0, end: text.len() as u32 };
            let fn_name = name_span(text, whole, name);
            if fn_name == whole {
                return None;
            }
            if matches!(source, EntryPointError::OutOfRangeWorkgroupSize) {
                // The attribute written before the function's name.
                let before = text.get(..fn_name.start as usize)?;
                let at = before.rfind("workgroup_size")?;
                return Some((
                    Span { start: at as u32, end: (at + "workgroup_size".len()) as u32 },
                    true,
                ));
            }
            Some((fn_name, false))
        }
        _ => None,
    }
}

/// The span of the `return` statement returning `value`, searched through nested blocks.
fn find_return(block: &naga::Block, value: naga::Handle<naga::Expression>) -> Option<Span> {
    use naga::Statement as S;
    for (stmt, span) in block.span_iter() {
        let found = match stmt {
            S::Return { value: Some(v) } if *v == value => Some(span_of(*span)),
            S::Block(b) => find_return(b, value),
            S::If { accept, reject, .. } => {
                find_return(accept, value).or_else(|| find_return(reject, value))
            }
            S::Switch { cases, .. } => cases.iter().find_map(|c| find_return(&c.body, value)),
            S::Loop { body, continuing, .. } => {
                find_return(body, value).or_else(|| find_return(continuing, value))
            }
            _ => None,
        };
        if let Some(s) = found.filter(|s| !s.is_unknown()) {
            return Some(s);
        }
    }
    None
}

/// Rewrites naga's capability wording ("requires the `naga::valid::Capabilities::FLOAT64`
/// flag") into what it means for a dianran user.
fn friendly(message: &str) -> String {
    if message.starts_with("the pointer doesn't relate to a valid destination for a store") {
        return "cannot store through this pointer: the memory is read-only".to_string();
    }
    match message.find(" requires the `naga::valid::Capabilities::") {
        Some(i) => format!("{} is not supported by dianran", &message[..i]),
        None => message.to_string(),
    }
}

/// A clearer message than naga's for errors whose text is mostly handles.
fn specific_message(inner: &ValidationError, module: &naga::Module) -> Option<String> {
    use naga::common::wgsl::TypeContext;
    use naga::valid::{EntryPointError, FunctionError};
    if let ValidationError::EntryPoint { source: EntryPointError::BindingCollision(g), .. } = inner
    {
        let var = module.global_variables.try_get(*g).ok()?;
        let name = var.name.clone().unwrap_or_default();
        return Some(match var.binding {
            Some(b) => format!(
                "`{name}` uses @group({}) @binding({}), which another resource of this entry point uses too",
                b.group, b.binding
            ),
            None => format!("the binding of `{name}` conflicts with another resource"),
        });
    }
    let source = match inner {
        ValidationError::Function { source, .. } => source,
        ValidationError::EntryPoint {
            source: naga::valid::EntryPointError::Function(source),
            ..
        } => source,
        _ => return None,
    };
    match source {
        FunctionError::InvalidReturnType { expected_ty: Some(ty), expression: Some(_) } => {
            Some(format!(
                "the returned value does not have the declared return type `{}`",
                module.types.type_to_string(*ty)
            ))
        }
        FunctionError::InvalidReturnType { expected_ty: Some(ty), expression: None } => {
            Some(format!(
                "missing return value: the function returns `{}`",
                module.types.type_to_string(*ty)
            ))
        }
        FunctionError::InvalidCall { function, error } => {
            use naga::valid::CallError;
            let callee = module.functions.try_get(*function).ok()?.name.clone().unwrap_or_default();
            match error {
                CallError::ArgumentCount { required, seen } => Some(format!(
                    "`{callee}` takes {required} argument{}, but {seen} {} given",
                    if *required == 1 { "" } else { "s" },
                    if *seen == 1 { "is" } else { "are" }
                )),
                CallError::ArgumentType { index, required, .. } => Some(format!(
                    "argument {} of `{callee}` must be `{}`",
                    index + 1,
                    module.types.type_to_string(*required)
                )),
                _ => None,
            }
        }
        FunctionError::InvalidReturnType { expected_ty: None, expression: Some(_) } => {
            Some("the function returns a value but declares no return type".to_string())
        }
        _ => None,
    }
}

/// Lower-cases the first letter, drops naga's arena handles (`[3]`) and trailing periods, so
/// messages read like the rest of dianran's.
pub(crate) fn clean_message(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut rest = m;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let digits = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        if digits > 0 && tail[digits..].starts_with(']') {
            // `Expression [12] is invalid` -> `Expression is invalid`
            rest = &tail[digits + 1..];
            if out.ends_with(' ') && rest.starts_with(' ') {
                rest = &rest[1..];
            }
        } else {
            out.push('[');
            rest = tail;
        }
    }
    out.push_str(rest);
    let out = out
        .replace("Handle(", "(")
        .replace(" '' ", " ")
        .replace("all to is invalid", "all is invalid");
    let out = out.trim().trim_end_matches('.').to_string();
    let mut chars = out.chars();
    match chars.next() {
        // Keep acronyms (`SPIR-V`) and type names (`Add`) that start with two capitals.
        Some(c) if c.is_uppercase() && !chars.next().is_some_and(char::is_uppercase) => {
            c.to_lowercase().chain(chars_after_first(&out)).collect()
        }
        _ => out,
    }
}

fn chars_after_first(s: &str) -> std::str::Chars<'_> {
    let mut c = s.chars();
    c.next();
    c
}

/// What to do about a parse error, by its message.
fn parse_help(message: &str) -> String {
    let m = message.to_ascii_lowercase();
    let h = if m.contains("no definition in scope for identifier") {
        "declare the name before using it (a `let`, `var`, `const`, function or global), or check its spelling; WGSL names are case-sensitive"
    } else if m.contains("the `f16` enable extension is not enabled") || m.contains("`f16` enable")
    {
        "add `enable f16;` at the top of the file, before any declaration"
    } else if m.contains("wgpu_cooperative_matrix") || m.contains("cooperative_matrix") {
        "add `enable wgpu_cooperative_matrix;` at the top of the file"
    } else if m.contains("enable extension is not enabled") {
        "add the named `enable` directive at the top of the file, before any declaration"
    } else if m.contains("wrong number of arguments") || m.contains("too many arguments") {
        "pass exactly the parameters the function declares, in order"
    } else if m.contains("unknown attribute") {
        "use a WGSL attribute such as @compute, @workgroup_size(x, y, z), @group(n), @binding(n), @builtin(name) or @location(n)"
    } else if m.contains("unknown builtin") {
        "use a WGSL builtin such as global_invocation_id, local_invocation_id, local_invocation_index, workgroup_id, num_workgroups, subgroup_invocation_id or subgroup_size"
    } else if m.contains("unknown scalar type") || m.contains("unknown type") {
        "use a WGSL type: bool, i32, u32, f32, f16 (with `enable f16;`), vecN<T>, matCxR<T>, array<T, N> or a struct"
    } else if m.contains("unknown enable-extension") {
        "dianran accepts `enable f16;`, `enable subgroups;` and `enable wgpu_cooperative_matrix;`"
    } else if m.contains("invalid field accessor") || m.contains("swizzle") {
        "vector components are x, y, z, w (or r, g, b, a), at most four, not mixing the two sets, and only up to the vector's size"
    } else if m.contains("is not constructible") {
        "only constructible types (scalars, vectors, matrices, fixed-size arrays and structs of them) can be built with T(...); atomics and runtime-sized arrays cannot"
    } else if m.contains("is recursive") || m.contains("is cyclic") {
        "WGSL forbids recursion: rewrite the recursive function or declaration as a loop"
    } else if m.contains("redefinition of") {
        "give each declaration in a scope its own name"
    } else if m.contains("reserved keyword") {
        "choose another name; this word is reserved in WGSL"
    } else if m.contains("invalid left-hand side of assignment")
        || m.contains("must be a reference")
    {
        "only a `var` (or a memory location reached through one) can be assigned; a `let` is immutable: declare it with `var` instead"
    } else if m.contains("workgroup size is missing") {
        "add `@workgroup_size(x, y, z)` to the compute entry point"
    } else if m.contains("does not return any value") {
        "return a value of the declared type, or drop the return type"
    } else if m.contains("automatic conversion")
        || m.contains("type mismatch")
        || m.contains("type of")
    {
        "convert explicitly, e.g. f32(x), u32(x) or i32(x); WGSL never converts between concrete types implicitly"
    } else if m.contains("unterminated block comment") || m.contains("found \"/*") {
        "close the comment with `*/`"
    } else if m.contains("must be non-negative") || m.contains("must be positive") {
        "use a positive constant here"
    } else if m.contains("brace nesting limit") {
        "reduce the nesting depth: move inner blocks into functions"
    } else if m.contains("expected") {
        "fix the syntax at the marked spot: a token is missing or misplaced (check for a missing `;`, `)` or `}` just before it)"
    } else {
        "fix the WGSL at the marked spot; see the WGSL specification for the construct"
    };
    h.to_string()
}

/// What to do about a validation error, by its message chain.
fn validation_help(chain: &str) -> String {
    let m = chain.to_ascii_lowercase();
    let h = if m.contains("int16") || m.contains("`i16`") || m.contains("`u16`") {
        "dianran targets do not support 16-bit integers: use i32 or u32"
    } else if m.contains("recursi")
        || m.contains("call to") && m.contains("is invalid") && m.contains("before")
    {
        "WGSL forbids recursion: rewrite it as a loop"
    } else if m.contains("index") && (m.contains("out of bounds") || m.contains("bound")) {
        "use an index inside the array, vector or matrix bounds (the first element is 0)"
    } else if m.contains("return") && (m.contains("missing") || m.contains("must return")) {
        "make every path through the function end in `return` with a value of the declared type"
    } else if m.contains("the value") && m.contains("return") || m.contains("returned") {
        "return a value of the function's declared return type"
    } else if m.contains("invalid operand for cooperative op") {
        "coopMultiplyAdd(a, b, c) takes matrices of roles A, B and C in that order (e.g. coop_mat16x16<f16, A>, coop_mat16x16<f16, B>, coop_mat16x16<f32, C>)"
    } else if m.contains("condition") && m.contains("boolean") {
        "use a `bool` condition, e.g. `x != 0u`; WGSL does not treat numbers as booleans"
    } else if m.contains("missing return value") {
        "end every path through the function with `return` and a value of the declared type"
    } else if m.contains("arguments, but")
        || m.contains("argument") && (m.contains("count") || m.contains("number"))
    {
        "pass exactly the parameters the function declares, in order"
    } else if m.contains("argument") && (m.contains("type") || m.contains("must be")) {
        "pass a value of the parameter's declared type; convert explicitly, e.g. f32(x)"
    } else if m.contains("cannot store through")
        || m.contains("destination for a store")
        || m.contains("store") && (m.contains("not permitted") || m.contains("access"))
        || m.contains("writing to this location")
    {
        "this memory is read-only: declare the buffer `var<storage, read_write>` or write to a `var`"
    } else if m.contains("another resource")
        || m.contains("binding")
            && (m.contains("collision") || m.contains("already") || m.contains("conflict"))
    {
        "give each resource of an entry point its own @group/@binding pair"
    } else if m.contains("workgroup size") || m.contains("workgroup_size") {
        "use positive sizes whose product is at most the device limit (1024 on CUDA)"
    } else if m.contains("uniform") && m.contains("control flow") {
        "call barriers and derivatives only from control flow that is the same for the whole workgroup"
    } else if m.contains("operation") && m.contains("can't work with")
        || m.contains("mismatch")
        || m.contains("type")
    {
        "make the operand types agree; WGSL never converts between concrete types implicitly, so convert explicitly (f32(x), u32(x), i32(x))"
    } else if m.contains("capability") || m.contains("capabilities") {
        "this feature is outside what dianran supports (f16, subgroups, cooperative matrices, f32 atomics and immediates are); rewrite without it"
    } else {
        "fix the marked code so naga's validator accepts it; the note shows naga's full reason"
    };
    h.to_string()
}

/// Checks the override values and applies them with naga's `process_overrides`.
fn resolve_overrides(
    module: naga::Module,
    info: ModuleInfo,
    opts: &Options,
    text: &str,
) -> Result<(naga::Module, ModuleInfo), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in &opts.overrides {
        let found = module.overrides.iter().find(|(_, o)| {
            o.name.as_deref() == Some(name.as_str())
                || o.id.is_some_and(|id| id.to_string() == *name)
        });
        let Some((h, o)) = found else {
            let declared: Vec<String> =
                module.overrides.iter().filter_map(|(_, o)| o.name.clone()).collect();
            let help = if declared.is_empty() {
                "this file declares no `override`; remove the --override option".to_string()
            } else {
                format!("the overrides this file declares are: {}", declared.join(", "))
            };
            errors.push(
                Diagnostic::error(
                    DiagKind::Override,
                    format!("--override names unknown override `{name}`"),
                )
                .help(help),
            );
            continue;
        };
        // naga looks an override with `@id(N)` up by N only.
        let key = o.id.map_or_else(|| name.clone(), |id| id.to_string());
        let at = name_span(
            text,
            span_of(module.overrides.get_span(h)),
            o.name.as_deref().unwrap_or(name),
        );
        if constants.contains_key(&key) {
            errors.push(
                Diagnostic::error(DiagKind::Override, format!("--override {name} is given twice"))
                    .at(at)
                    .help("pass each override once"),
            );
            continue;
        }
        if let Some(problem) = value_problem(&module.types[o.ty].inner, *value) {
            errors.push(
                Diagnostic::error(
                    DiagKind::Override,
                    format!("--override {name}={value}: {problem}"),
                )
                .at(at)
                .help("give a value the override's type can hold"),
            );
            continue;
        }
        constants.insert(key, *value);
    }
    for (h, o) in module.overrides.iter() {
        let given = match o.id {
            Some(id) => constants.contains_key(&id.to_string()),
            None => o.name.as_ref().is_some_and(|n| constants.contains_key(n)),
        };
        if o.init.is_none() && !given {
            let name = o.name.clone().unwrap_or_else(|| "?".to_string());
            errors.push(
                Diagnostic::error(DiagKind::Override, format!("override `{name}` has no value"))
                    .at(name_span(text, span_of(module.overrides.get_span(h)), &name))
                    .help(format!(
                        "pass --override {name}=VALUE, or give it a default: `override {name}: T = VALUE;`"
                    )),
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if module.overrides.is_empty() {
        return Ok((module, info));
    }
    let (new_module, _) =
        naga::back::pipeline_constants::process_overrides(&module, &info, None, &constants)
            .map_err(|e| vec![override_error(&e, &module, text)])?;
    let new_module = new_module.into_owned();
    // Validate again: values can make a module invalid (a zero workgroup size, an index out
    // of range); the info must describe the new module anyway.
    let new_info = validator()
        .validate_resolved_overrides(&new_module)
        .map_err(|e| vec![validation_error(&e, &new_module, text)])?;
    Ok((new_module, new_info))
}

/// Why `value` cannot be given to an override of type `ty` (naga would truncate a fraction
/// silently, or fail without naming the override), or `None` when it can.
fn value_problem(ty: &naga::TypeInner, value: f64) -> Option<String> {
    use naga::{ScalarKind as K, TypeInner as T};
    if !value.is_finite() {
        return Some("the value is not finite".to_string());
    }
    let T::Scalar(scalar) = *ty else { return None };
    let (lo, hi, integer, ty) = match (scalar.kind, scalar.width) {
        (K::Uint, 4) => (0.0, f64::from(u32::MAX), true, "u32"),
        (K::Sint, 4) => (f64::from(i32::MIN), f64::from(i32::MAX), true, "i32"),
        (K::Float, 4) => (-f64::from(f32::MAX), f64::from(f32::MAX), false, "f32"),
        (K::Float, 2) => (-65504.0, 65504.0, false, "f16"),
        _ => return None,
    };
    if integer && value.fract() != 0.0 {
        return Some(format!("`{ty}` needs an integer"));
    }
    if value < lo || value > hi {
        return Some(format!("the value does not fit `{ty}` ({lo}..={hi})"));
    }
    None
}

/// The span of the first whole-word `name` inside `within`, or `within` itself.
pub(crate) fn name_span(text: &str, within: Span, name: &str) -> Span {
    let (a, b) = (within.start as usize, within.end as usize);
    let Some(region) = text.get(a..b) else { return within };
    let ident = |c: char| c == '_' || c.is_alphanumeric();
    let mut from = 0;
    while let Some(i) = region.get(from..).and_then(|r| r.find(name)).map(|i| i + from) {
        let end = i + name.len();
        let before_ok = !region[..i].chars().next_back().is_some_and(ident);
        let after_ok = !region[end..].chars().next().is_some_and(ident);
        if before_ok && after_ok && !name.is_empty() {
            return Span { start: (a + i) as u32, end: (a + end) as u32 };
        }
        from = end.max(i + 1);
        while from < region.len() && !region.is_char_boundary(from) {
            from += 1;
        }
    }
    within
}

/// A `process_overrides` failure as a diagnostic.
fn override_error(
    e: &naga::back::pipeline_constants::PipelineConstantError,
    module: &naga::Module,
    text: &str,
) -> Diagnostic {
    use naga::back::pipeline_constants::PipelineConstantError as E;
    match e {
        E::ValidationError(v) => {
            let mut d = validation_error(v, module, text);
            d.kind = DiagKind::Override;
            d
        }
        other => {
            let message = clean_message(&other.to_string());
            let mut d = Diagnostic::error(DiagKind::Override, message.clone()).help(
                "check the --override values: integers must fit the override's type and workgroup sizes must be positive",
            );
            let mut cur = other.source();
            while let Some(s) = cur {
                d = d.note(clean_message(&s.to_string()));
                cur = s.source();
            }
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> Diagnostics {
        match parse("t.wgsl", src, &Options::default()) {
            Ok(_) => panic!("accepted: {src}"),
            Err(e) => e,
        }
    }

    #[test]
    fn clean_message_drops_handles_and_capital() {
        assert_eq!(clean_message("Expression [12] is invalid."), "expression is invalid");
        assert_eq!(clean_message("SPIR-V thing"), "SPIR-V thing");
        assert_eq!(clean_message("a[b]"), "a[b]");
    }

    #[test]
    fn validation_errors_name_the_function_and_point_at_the_code() {
        let e = err("fn f() -> f32 {\n    return 1i;\n}");
        let d = &e.list[0];
        assert_eq!(d.kind, DiagKind::Validation);
        assert_eq!(d.context.as_deref(), Some("f"));
        assert_eq!(e.location(d), "t.wgsl:2:5");
        assert!(d.message.contains("`f32`"), "{}", d.message);

        // A type behind a capability dianran does not grant (16-bit integers).
        let e = err(
            "enable wgpu_int16;\n@compute @workgroup_size(1) fn main() {\n    var a: i16 = i16(1i);\n}",
        );
        let d = &e.list[0];
        assert_eq!(e.location(d), "t.wgsl:3:12");
        assert!(d.message.contains("i16") && d.message.contains("not supported"), "{}", d.message);
        assert_eq!(d.context.as_deref(), Some("main"));
    }

    #[test]
    fn deep_nesting_is_a_limit_not_a_crash() {
        let src = format!("fn f() -> i32 {{ return {}1{}; }}", "(".repeat(300), ")".repeat(300));
        assert_eq!(err(&src).list[0].kind, DiagKind::Limit);
        let src = format!("fn f() -> i32 {{ return 1{}; }}", " + 1".repeat(20_000));
        assert_eq!(err(&src).list[0].kind, DiagKind::Limit);
        // Just under the limit, on this test thread's small stack: naga runs on its own.
        let src = format!("fn f() -> i32 {{ return 1{}; }}", " + 1".repeat(4000));
        assert!(parse("t.wgsl", &src, &Options::default()).is_ok());
    }

    #[test]
    fn unknown_identifier_has_location_and_help() {
        let e = err("fn f() -> i32 {\n  return xyz;\n}");
        let d = &e.list[0];
        assert_eq!(d.kind, DiagKind::Parse);
        assert_eq!(e.location(d), "t.wgsl:2:10");
        assert!(d.message.contains("xyz"), "{}", d.message);
        assert!(d.help.as_deref().unwrap_or("").contains("declare"));
    }

    #[test]
    fn override_without_value() {
        let src = "override block: u32;\n@compute @workgroup_size(block) fn main() {}";
        let e = err(src);
        let d = &e.list[0];
        assert_eq!(d.kind, DiagKind::Override);
        assert_eq!(e.location(d), "t.wgsl:1:10");
        assert!(d.help.as_deref().unwrap_or("").contains("--override block=VALUE"));
        let opts = Options { overrides: vec![("block".into(), 64.0)], ..Default::default() };
        let p = parse("t.wgsl", src, &opts).map_err(|e| e.render()).unwrap();
        assert_eq!(p.module.entry_points[0].workgroup_size, [64, 1, 1]);
    }

    #[test]
    fn override_values_are_checked_against_the_type() {
        let src = "override n: u32 = 1u;\n@id(7) override k: i32 = 0;\n@compute @workgroup_size(n) fn main() { _ = k; }";
        let with = |o: &[(&str, f64)]| {
            let opts = Options {
                overrides: o.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
                ..Default::default()
            };
            parse("t.wgsl", src, &opts)
        };
        for bad in [
            &[("n", -1.0)][..],
            &[("n", 1.5)],
            &[("n", 4294967296.0)],
            &[("n", 2.0), ("n", 3.0)],
            &[("k", 3e9)],
        ] {
            let e = with(bad).err().map(|e| e.list).unwrap_or_default();
            assert_eq!(e.len(), 1, "{bad:?}: {e:?}");
            assert_eq!(e[0].kind, DiagKind::Override);
            assert!(e[0].span.is_some());
        }
        // An @id override answers to its name and to its id.
        assert!(with(&[("k", -5.0), ("n", 64.0)]).is_ok());
        assert!(with(&[("7", 2.0)]).is_ok());
    }

    #[test]
    fn unknown_override_name() {
        let opts = Options { overrides: vec![("nope".into(), 1.0)], ..Default::default() };
        let e = parse("t.wgsl", "override a: u32 = 1;", &opts).err().unwrap();
        assert_eq!(e.list[0].kind, DiagKind::Override);
        assert!(e.list[0].message.contains("nope"));
        assert!(e.list[0].help.as_deref().unwrap_or("").contains("a"));
    }

    #[test]
    fn subgroups_enable_is_accepted() {
        let src = "enable f16, subgroups;\n@compute @workgroup_size(32) fn main(@builtin(subgroup_invocation_id) l: u32) { let h: f16 = 1.0h; }";
        let p = parse("t.wgsl", src, &Options::default()).map_err(|e| e.render()).unwrap();
        assert!(p.enables.f16 && p.enables.subgroups);
        assert_eq!(p.source, src);
    }
}
