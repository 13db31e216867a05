//! build.rs integration: compile shaders at build time into Rust constants.
//!
//! In the build script (with `dianran` as a build-dependency):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), dianran::build::BuildError> {
//!     dianran::build::Shaders::new().file("shaders/double.wgsl").compile()?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate (with `dianran` as a dependency too, for the [`crate::reflect`] types):
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/dianran_shaders.rs"));
//!
//! let ptx: &str = double::PTX;
//! let entry: &dianran::reflect::Entry = &double::加倍;
//! ```
//!
//! The one generated file, `$OUT_DIR/dianran_shaders.rs`, holds one module per shader file,
//! named after the file stem (`shaders/double.wgsl` → `mod double`), with:
//!
//! * `pub const WGSL: &str`, `MSL`, `PTX`: the three texts. A target that cannot express one
//!   of the entry points gets a one-line comment saying why instead, and the build prints a
//!   `cargo:warning` for it;
//! * `pub const SOURCE: &str`: the path of the shader file as given;
//! * `pub const BINDINGS: &[Binding]`: every resource with its layout;
//! * one `pub const <entry>: Entry` per entry point (named as in WGSL; see [`rust_ident`])
//!   and `pub const ENTRIES: &[Entry]` listing them in source order.
//!
//! A shader with a syntax or type error fails the build: [`BuildError`]'s `Debug` output (what
//! `fn main() -> Result<..>` prints) is the rendered diagnostic with its source snippet.
//! Cargo is told `rerun-if-changed` for every shader file; nothing else is printed or written,
//! and the output depends only on the shader texts and options, so an unchanged input gives
//! a byte-identical file (which is not even rewritten).

mod host;

use crate::api::{self, Compiled, Options};
use crate::reflect::{Binding, Entry, Field, Layout, PtxParam};
use dianran_frontend::{Diagnostic, Diagnostics};
use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// The file [`Shaders::compile`] writes into `$OUT_DIR`.
pub const OUTPUT_FILE: &str = "dianran_shaders.rs";

/// A set of shader files to compile in a build script.
#[derive(Clone, Debug)]
pub struct Shaders {
    files: Vec<PathBuf>,
    options: Options,
    launchers: bool,
}

impl Default for Shaders {
    fn default() -> Self {
        Shaders {
            files: Vec::new(),
            options: Options::default(),
            launchers: cfg!(feature = "cuda"),
        }
    }
}

/// Why a build-time compile failed.
pub enum BuildError {
    /// A shader file could not be read (or is not UTF-8).
    Read {
        /// The path as given.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A shader has syntax or type errors.
    Shader(Diagnostics),
    /// Two shader files would become modules of the same name.
    DuplicateModule {
        /// The Rust module name.
        module: String,
        /// The first file.
        first: PathBuf,
        /// The second file.
        second: PathBuf,
    },
    /// An environment variable Cargo sets for build scripts is missing (not run by Cargo?).
    Env(&'static str),
    /// The output file could not be written.
    Write {
        /// The output path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Read { path, message } => {
                write!(f, "cannot read shader '{}': {message}", path.display())
            }
            BuildError::Shader(d) => f.write_str(d.render().trim_end()),
            BuildError::DuplicateModule { module, first, second } => write!(
                f,
                "shaders '{}' and '{}' would both become `mod {module}`; rename one of them",
                first.display(),
                second.display()
            ),
            BuildError::Env(var) => write!(
                f,
                "environment variable {var} is not set; dianran::build::Shaders::compile must run \
                 inside a Cargo build script"
            ),
            BuildError::Write { path, message } => {
                write!(f, "cannot write '{}': {message}", path.display())
            }
        }
    }
}

/// `Debug` shows the rendered message, because a build script returning `Result` from `main`
/// prints the error with `Debug`, and the user should see the source snippet, not a struct.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "dianran could not compile the shaders:")?;
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

/// The generated Rust text and what the build should say about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The contents of `dianran_shaders.rs`.
    pub code: String,
    /// One line per target that failed for a shader (`cargo:warning` lines, without prefix).
    pub warnings: Vec<String>,
}

impl Shaders {
    /// An empty set with default [`Options`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a shader file; a relative path is relative to the package root (where Cargo runs
    /// build scripts). The module is named after the file stem.
    pub fn file(mut self, path: impl AsRef<Path>) -> Self {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Sets the compile options for every file.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Whether each module gets `Kernels`, its typed CUDA launchers (docs/host.md). On by
    /// default when this build dependency has the `cuda` feature; the crate including the
    /// file then needs `dianran` with `cuda` too.
    pub fn cuda_launchers(mut self, on: bool) -> Self {
        self.launchers = on;
        self
    }

    /// Compiles every file and renders the Rust module text, without printing or writing
    /// anything.
    pub fn generate(&self) -> Result<Generated, BuildError> {
        let mut modules = Vec::new();
        let mut warnings = Vec::new();
        let mut taken: Vec<(String, PathBuf)> = Vec::new();
        for path in &self.files {
            let module = module_name(path);
            if let Some((_, first)) = taken.iter().find(|(m, _)| *m == module) {
                return Err(BuildError::DuplicateModule {
                    module,
                    first: first.clone(),
                    second: path.clone(),
                });
            }
            taken.push((module.clone(), path.clone()));
            let source = read_source(path)?;
            let display = path_text(path);
            let compiled =
                api::compile(&display, &source, &self.options).map_err(BuildError::Shader)?;
            let (text, w) = render_module(&module, &display, &compiled, self.launchers);
            modules.push(text);
            warnings.extend(w);
        }
        Ok(Generated { code: render_file(&modules), warnings })
    }

    /// Compiles every file and writes `$OUT_DIR/dianran_shaders.rs` (only when its contents
    /// changed), printing `cargo:rerun-if-changed` for each file and a `cargo:warning` for
    /// each target that failed. Returns the path written.
    pub fn compile(self) -> Result<PathBuf, BuildError> {
        for path in &self.files {
            // Printed first, so Cargo re-runs the script after the user fixes a broken shader.
            println!("cargo:rerun-if-changed={}", path_text(path));
        }
        let out_dir = std::env::var_os("OUT_DIR").ok_or(BuildError::Env("OUT_DIR"))?;
        let generated = self.generate()?;
        for w in &generated.warnings {
            println!("cargo:warning={w}");
        }
        let out = PathBuf::from(out_dir).join(OUTPUT_FILE);
        let unchanged = std::fs::read(&out).is_ok_and(|old| old == generated.code.as_bytes());
        if !unchanged {
            std::fs::write(&out, &generated.code)
                .map_err(|e| BuildError::Write { path: out.clone(), message: e.to_string() })?;
        }
        Ok(out)
    }
}

fn read_source(path: &Path) -> Result<String, BuildError> {
    let bytes = std::fs::read(path)
        .map_err(|e| BuildError::Read { path: path.to_path_buf(), message: e.to_string() })?;
    String::from_utf8(bytes).map_err(|e| BuildError::Read {
        path: path.to_path_buf(),
        message: format!(
            "not UTF-8 text (invalid byte at offset {}); WGSL sources must be UTF-8",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// The path as the user wrote it, with `/` separators so the output is the same on every OS.
fn path_text(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The Rust module name for a shader file: its stem as a Rust identifier.
pub fn module_name(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    rust_ident(&stem)
}

/// Rust's strict and reserved keywords (2015–2024 editions).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers (`r#self` is an error); they get a trailing `_`.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// A Rust identifier for `name`: kept as written when Rust allows it (Unicode included, as
/// WGSL identifiers are Unicode XID identifiers like Rust's); a keyword becomes a raw
/// identifier (`r#loop`), or gets a trailing `_` where Rust has no raw form (`self_`); any
/// other character that cannot appear in an identifier becomes `_`.
pub fn rust_ident(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        let ok = if i == 0 {
            c == '_' || unicode_ident::is_xid_start(c)
        } else {
            unicode_ident::is_xid_continue(c)
        };
        if ok {
            out.push(c);
        } else if i == 0 && unicode_ident::is_xid_continue(c) {
            // A leading digit: keep it behind an underscore.
            out.push('_');
            out.push(c);
        } else {
            out.push('_');
        }
    }
    if out.is_empty() || out == "_" {
        return "__".to_string();
    }
    if NOT_RAW.contains(&out.as_str()) {
        out.push('_');
    } else if RUST_KEYWORDS.contains(&out.as_str()) {
        out.insert_str(0, "r#");
    }
    out
}

/// Wraps modules into the generated file.
fn render_file(modules: &[String]) -> String {
    let mut out = String::new();
    out.push_str("// Generated by dianran ");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str(" (dianran::build). Do not edit: edit the shaders instead.\n");
    for m in modules {
        out.push('\n');
        out.push_str(m);
    }
    out
}

/// The generated file for one compiled shader, as `dianran generate FILE` prints it.
pub fn generate_one(path_display: &str, compiled: &Compiled) -> Generated {
    let module = module_name(Path::new(path_display));
    let (text, warnings) = render_module(&module, path_display, compiled, cfg!(feature = "cuda"));
    Generated { code: render_file(&[text]), warnings }
}

/// Names the module itself defines; an entry point with one of these names gets a `_`.
const MODULE_ITEMS: &[&str] = &["WGSL", "MSL", "PTX", "SOURCE", "BINDINGS", "ENTRIES", "Kernels"];

fn render_module(module: &str, path: &str, c: &Compiled, launchers: bool) -> (String, Vec<String>) {
    let mut warnings: Vec<String> =
        c.warnings.list.iter().map(|w| one_line(&c.warnings, w)).collect();
    let mut text_const = |target: &str, r: &Result<String, Diagnostics>| match r {
        Ok(t) => t.clone(),
        Err(d) => {
            for diag in &d.list {
                warnings.push(format!("{path}: {target}: {}", one_line(d, diag)));
            }
            let first = d.list.first().map(|diag| one_line(d, diag)).unwrap_or_default();
            let more = match d.list.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            format!("// {target} is not available: {first}{more}\n")
        }
    };
    let wgsl = text_const("WGSL", &c.wgsl);
    let msl = text_const("MSL", &c.msl);
    let ptx = text_const("PTX", &c.ptx);

    let mut o = String::new();
    let _ = writeln!(o, "/// Shaders compiled by dianran from `{}`.", doc_text(path));
    o.push_str(
        "#[allow(non_upper_case_globals, non_snake_case, dead_code, clippy::too_many_arguments)]\n",
    );
    let _ = writeln!(o, "pub mod {module} {{");
    let _ = writeln!(o, "    /// The shader file, as given to the build.");
    let _ = writeln!(o, "    pub const SOURCE: &str = {};", str_lit(path));
    let _ = writeln!(o, "    /// Normalized WGSL.");
    let _ = writeln!(o, "    pub const WGSL: &str = {};", str_lit(&wgsl));
    let _ = writeln!(o, "    /// Metal Shading Language.");
    let _ = writeln!(o, "    pub const MSL: &str = {};", str_lit(&msl));
    let _ = writeln!(o, "    /// PTX for `cuModuleLoadData`.");
    let _ = writeln!(o, "    pub const PTX: &str = {};", str_lit(&ptx));
    let _ = writeln!(o, "    /// Every `@group @binding` resource, sorted by (group, binding).");
    let _ = write!(o, "    pub const BINDINGS: &[::dianran::reflect::Binding] = &[");
    for b in &c.bindings {
        o.push_str("\n        ");
        binding_expr(&mut o, b, 2);
        o.push(',');
    }
    o.push_str(if c.bindings.is_empty() { "];\n" } else { "\n    ];\n" });

    let mut used: BTreeSet<String> = MODULE_ITEMS.iter().map(|s| s.to_string()).collect();
    let mut idents = Vec::new();
    for e in &c.entries {
        let mut ident = rust_ident(&e.name);
        while used.contains(ident.trim_start_matches("r#")) {
            ident.push('_');
        }
        used.insert(ident.trim_start_matches("r#").to_string());
        idents.push(ident.clone());
        let _ = writeln!(o, "    /// Entry point `{}`: {}.", doc_text(&e.name), entry_summary(e));
        let _ = write!(o, "    pub const {ident}: ::dianran::reflect::Entry = ");
        entry_expr(&mut o, e);
        o.push_str(";\n");
    }
    let _ = writeln!(o, "    /// Every entry point, in source order.");
    let _ = writeln!(
        o,
        "    pub const ENTRIES: &[::dianran::reflect::Entry] = &[{}];",
        idents.join(", ")
    );
    let structs = host::structs(&mut o, &c.module, &mut used);
    if launchers {
        host::launchers(&mut o, c, &structs, &idents);
    }
    o.push_str("}\n");
    (o, warnings)
}

/// `file:line:col: message (in 'entry')` on one line.
fn one_line(d: &Diagnostics, diag: &Diagnostic) -> String {
    let mut s = format!("{}: {}", d.location(diag), diag.message);
    if let Some(ctx) = &diag.context {
        let _ = write!(s, " (in '{ctx}')");
    }
    s.replace(['\n', '\r'], " ")
}

fn entry_summary(e: &Entry) -> String {
    let [x, y, z] = e.workgroup_size;
    let mut s = e.stage.name().to_string();
    if e.stage == crate::reflect::Stage::Compute {
        let _ = write!(s, ", workgroup size ({x}, {y}, {z})");
    }
    match &e.ptx_name {
        Some(p) => {
            let _ = write!(s, ", PTX `{p}`");
        }
        None => s.push_str(", not in the PTX"),
    }
    s
}

/// Text safe inside a `///` comment line.
fn doc_text(s: &str) -> String {
    s.replace(['\n', '\r'], " ").replace('`', "'")
}

/// A Rust string literal for `s`: a raw string when possible (readable generated code).
fn str_lit(s: &str) -> String {
    if s.contains('\r') {
        return format!("{s:?}");
    }
    let mut hashes = 0;
    while s.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{s}\"{h}")
}

fn text_expr(s: &str) -> String {
    format!("::std::borrow::Cow::Borrowed({s:?})")
}

fn entry_expr(o: &mut String, e: &Entry) {
    let stage = match e.stage {
        crate::reflect::Stage::Compute => "Compute",
        crate::reflect::Stage::Vertex => "Vertex",
        crate::reflect::Stage::Fragment => "Fragment",
    };
    let [x, y, z] = e.workgroup_size;
    o.push_str("::dianran::reflect::Entry {\n");
    let _ = writeln!(o, "        name: {},", text_expr(&e.name));
    let _ = writeln!(o, "        wgsl_name: {},", text_expr(&e.wgsl_name));
    let _ = writeln!(o, "        stage: ::dianran::reflect::Stage::{stage},");
    let _ = writeln!(o, "        workgroup_size: [{x}, {y}, {z}],");
    match &e.ptx_name {
        Some(p) => {
            let _ = writeln!(o, "        ptx_name: ::std::option::Option::Some({}),", text_expr(p));
        }
        None => o.push_str("        ptx_name: ::std::option::Option::None,\n"),
    }
    o.push_str("        ptx_params: ::std::borrow::Cow::Borrowed(&[");
    for p in e.ptx_params.iter() {
        o.push_str("\n            ");
        param_expr(o, p);
        o.push(',');
    }
    o.push_str(if e.ptx_params.is_empty() { "]),\n" } else { "\n        ]),\n" });
    let _ = writeln!(o, "        ptx_uses_sizes: {},", e.ptx_uses_sizes);
    let _ = writeln!(o, "        ptx_immediates: {},", e.ptx_immediates);
    let _ = writeln!(o, "        msl_uses_sizes: {},", e.msl_uses_sizes);
    o.push_str("        bindings: ::std::borrow::Cow::Borrowed(&[");
    for b in e.bindings.iter() {
        o.push_str("\n            ");
        binding_expr(o, b, 3);
        o.push(',');
    }
    o.push_str(if e.bindings.is_empty() { "]),\n" } else { "\n        ]),\n" });
    o.push_str("    }");
}

fn param_expr(o: &mut String, p: &PtxParam) {
    let sampler = match p.sampler {
        Some((g, b)) => format!("::std::option::Option::Some(({g}, {b}))"),
        None => "::std::option::Option::None".to_string(),
    };
    let _ = write!(
        o,
        "::dianran::reflect::PtxParam {{ name: {}, group: {}, binding: {}, used: {}, sampler: {}, compare: {} }}",
        text_expr(&p.name),
        p.group,
        p.binding,
        p.used,
        sampler,
        p.compare
    );
}

fn binding_expr(o: &mut String, b: &Binding, depth: usize) {
    let pad = "    ".repeat(depth + 1);
    let end = "    ".repeat(depth);
    let kind = format!("{:?}", b.kind);
    let access = format!("{:?}", b.access);
    o.push_str("::dianran::reflect::Binding {\n");
    let _ = writeln!(o, "{pad}name: {},", text_expr(&b.name));
    let _ = writeln!(o, "{pad}group: {},", b.group);
    let _ = writeln!(o, "{pad}binding: {},", b.binding);
    let _ = writeln!(o, "{pad}kind: ::dianran::reflect::BindingKind::{kind},");
    let _ = writeln!(o, "{pad}access: ::dianran::reflect::Access::{access},");
    match &b.layout {
        Some(l) => {
            let _ = write!(o, "{pad}layout: ::std::option::Option::Some(");
            layout_expr(o, l, depth + 1);
            o.push_str("),\n");
        }
        None => {
            let _ = writeln!(o, "{pad}layout: ::std::option::Option::None,");
        }
    }
    let _ = write!(o, "{end}}}");
}

fn layout_expr(o: &mut String, l: &Layout, depth: usize) {
    let pad = "    ".repeat(depth + 1);
    let end = "    ".repeat(depth);
    o.push_str("::dianran::reflect::Layout {\n");
    let _ = writeln!(o, "{pad}type_name: {},", text_expr(&l.type_name));
    let _ = writeln!(o, "{pad}size: {},", l.size);
    let _ = writeln!(o, "{pad}align: {},", l.align);
    match l.runtime_stride {
        Some(s) => {
            let _ = writeln!(o, "{pad}runtime_stride: ::std::option::Option::Some({s}),");
        }
        None => {
            let _ = writeln!(o, "{pad}runtime_stride: ::std::option::Option::None,");
        }
    }
    let _ = write!(o, "{pad}fields: ::std::borrow::Cow::Borrowed(&[");
    for f in l.fields.iter() {
        let _ = write!(o, "\n{pad}    ");
        field_expr(o, f);
        o.push(',');
    }
    if l.fields.is_empty() {
        o.push_str("]),\n");
    } else {
        let _ = writeln!(o, "\n{pad}]),");
    }
    let _ = write!(o, "{end}}}");
}

fn field_expr(o: &mut String, f: &Field) {
    let _ = write!(
        o,
        "::dianran::reflect::Field {{ name: {}, type_name: {}, offset: {}, size: {}, align: {} }}",
        text_expr(&f.name),
        text_expr(&f.type_name),
        f.offset,
        f.size,
        f.align
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(rust_ident("double"), "double");
        assert_eq!(rust_ident("加倍"), "加倍");
        assert_eq!(rust_ident("loop"), "r#loop");
        assert_eq!(rust_ident("self"), "self_");
        assert_eq!(rust_ident("my-shader.v2"), "my_shader_v2");
        assert_eq!(rust_ident("2d_blur"), "_2d_blur");
        assert_eq!(rust_ident(""), "__");
        assert_eq!(rust_ident("_"), "__");
        assert_eq!(rust_ident("a b€"), "a_b_");
        assert_eq!(module_name(Path::new("shaders/double.wgsl")), "double");
        assert_eq!(module_name(Path::new("shaders/加倍.wgsl")), "加倍");
    }

    #[test]
    fn raw_string_literals_pick_enough_hashes() {
        assert_eq!(str_lit("a\nb"), "r\"a\nb\"");
        assert_eq!(str_lit("say \"hi\""), "r#\"say \"hi\"\"#");
        assert_eq!(str_lit("x\"#y"), "r##\"x\"#y\"##");
        assert_eq!(str_lit("a\rb"), "\"a\\rb\"");
    }

    #[test]
    fn module_text_has_constants_and_comment_for_failed_target() {
        // A multisampled texture is not PTX (docs/textures.md).
        let src = "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
            @group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
            @compute @workgroup_size(1) fn WGSL() { out[0] = textureLoad(t, vec2<i32>(0), 0); }";
        let c = api::compile("shaders/blur.wgsl", src, &Options::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let g = generate_one("shaders/blur.wgsl", &c);
        assert!(g.code.contains("pub mod blur {"), "{}", g.code);
        // The entry named like a module item is renamed, and listed in ENTRIES.
        assert!(g.code.contains("pub const WGSL_: ::dianran::reflect::Entry"), "{}", g.code);
        assert!(g.code.contains("pub const ENTRIES: &[::dianran::reflect::Entry] = &[WGSL_];"));
        let ptx_line = g.code.lines().find(|l| l.contains("pub const PTX")).unwrap_or_default();
        assert!(ptx_line.contains("// PTX is not available: shaders/blur.wgsl:"), "{ptx_line}");
        assert_eq!(g.warnings.len(), 1);
        assert!(g.warnings[0].starts_with("shaders/blur.wgsl: PTX: shaders/blur.wgsl:"));
        assert!(!g.warnings[0].contains('\n'));
    }

    #[test]
    fn module_text_describes_compare_words() {
        let src = "@group(0) @binding(0) var t: texture_depth_2d;
            @group(0) @binding(2) var s: sampler_comparison;
            @group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
            @compute @workgroup_size(1) fn shade() {
                out[0] = vec4<f32>(textureSampleCompareLevel(t, s, vec2<f32>(0.5), 0.5)); }";
        let c = api::compile("shaders/shadow.wgsl", src, &Options::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let g = generate_one("shaders/shadow.wgsl", &c);
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert!(g.code.contains(".param .u32 p_g0_b0_s0_b2_cmp"), "{}", g.code);
        assert!(
            g.code.contains(
                "name: ::std::borrow::Cow::Borrowed(\"p_g0_b0_s0_b2_cmp\"), group: 0, binding: 0, \
                 used: true, sampler: ::std::option::Option::Some((0, 2)), compare: true }"
            ),
            "{}",
            g.code
        );
    }
}
