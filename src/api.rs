//! The one-call facade: WGSL source in, WGSL + MSL + PTX texts and reflection out.
//!
//! ```
//! let src = "@group(0) @binding(0) var<storage, read_write> data: array<f32>;
//! @compute @workgroup_size(64) fn 加倍(@builtin(global_invocation_id) id: vec3<u32>) {
//!     if id.x < arrayLength(&data) { data[id.x] = data[id.x] * 2.0; }
//! }";
//! let out = dianran::compile("double.wgsl", src, &dianran::Options::default())
//!     .map_err(|d| d.render())?;
//! let entry = out.entry("加倍").ok_or("no entry")?;
//! assert_eq!(entry.ptx_name.as_deref(), Some("yy_e5_8a_a0_e5_80_8d"));
//! assert!(entry.ptx_uses_sizes);
//! assert!(out.ptx.as_ref().map_err(|d| d.render())?.contains(".entry yy_e5_8a_a0_e5_80_8d"));
//! assert!(out.msl.is_ok() && out.wgsl.is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::reflect::from_module::{self, PtxFacts};
use crate::reflect::{Binding, Entry};
use dianran_frontend::names::ModuleNames;
use dianran_frontend::{ir, BoundsChecks, DiagKind, Diagnostic, Diagnostics};

/// What to compile for. `Default` gives `sm_80`, no TF32, precise math, `enable subgroups;`
/// kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// PTX target architecture: 80 (`sm_80`) or 90 (`sm_90`); values between round down.
    pub sm: u32,
    /// Allow TF32 tensor-core math for `f32` cooperative-matrix multiplies (the CLI's
    /// `--tf32`): operands are rounded to TF32 (10-bit mantissa) and products accumulate in
    /// f32. Without it a 16x16 f32 product is a PTX diagnostic, as PTX has no exact f32
    /// tensor-core product, and an 8x8 one is computed exactly on the FMA units (f16
    /// products always use tensor cores).
    pub tf32: bool,
    /// Math builtins with the targets' fast approximations (the CLI's `--fast-math`): PTX's
    /// `.approx` instructions and `metal::fast::` in MSL. Off by default: PTX math is precise
    /// (dianran's own library, CUDA-library accuracy) and MSL calls `metal::precise::`
    /// (`docs/math.md`).
    pub fast_math: bool,
    /// Write `enable subgroups;` in the WGSL output when the source had it (Tint and Chrome
    /// want it; naga 30 and wgpu reject it). Subgroup builtins are printed either way.
    pub wgsl_subgroups_enable: bool,
    /// Values for `override` declarations (`--override NAME=VALUE`).
    pub overrides: Vec<(String, f64)>,
    /// Form no fused multiply-adds (the CLI's `--no-fma`, NVCC's `-fmad=false`): every float
    /// `*`, `+` and `-` rounds on its own on every target. Off by default: `a * b + c` with a
    /// product used once becomes one `fma` (`docs/math.md`, "Contraction").
    pub no_fma: bool,
    /// WebGPU's bounds policy (the CLI's `--bounds-checks`, `docs/bounds.md`):
    /// [`BoundsChecks::On`], the default, makes sure no access leaves its buffer or variable;
    /// [`BoundsChecks::Off`] leaves indices as written (an index out of range is then
    /// undefined behaviour on the GPU).
    pub bounds_checks: BoundsChecks,
    /// Print workgroup matrices in MSL on `simdgroup_matrix` 8 × 8 pieces (GPUs without
    /// Metal 4) rather than Metal 4's tensor operation (the CLI's `msl --no-metal4`,
    /// `docs/workgroup-matrix.md`).
    pub no_metal4: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sm: 80,
            tf32: false,
            fast_math: false,
            wgsl_subgroups_enable: true,
            overrides: Vec::new(),
            no_fma: false,
            bounds_checks: BoundsChecks::On,
            no_metal4: false,
        }
    }
}

/// A compiled module: each target's text (or why that target failed) and the reflection.
///
/// A target fails as a whole when it cannot express one of the entry points; the other
/// targets are unaffected.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The file name given to [`compile`] (diagnostics use it).
    pub name: String,
    /// The SSA module every target was printed from.
    pub module: ir::Module,
    /// Normalized WGSL.
    pub wgsl: Result<String, Diagnostics>,
    /// Metal Shading Language.
    pub msl: Result<String, Diagnostics>,
    /// PTX (ASCII) for `cuModuleLoadData`.
    pub ptx: Result<String, Diagnostics>,
    /// Every entry point, in source order.
    pub entries: Vec<Entry>,
    /// Every `@group @binding` resource of the module, sorted by (group, binding).
    pub bindings: Vec<Binding>,
    /// What the frontend warns about (the module's [`ir::Module::warnings`]), located in the
    /// source; empty when there is nothing to say.
    pub warnings: Diagnostics,
}

impl Compiled {
    /// The entry point named `name` (its WGSL source name).
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Compiles WGSL `source` (named `name` in diagnostics) to every target.
///
/// `Err` means the source itself is wrong (syntax, types, a missing override): no target can
/// be printed. Problems that only one target has are in that target's `Result`.
pub fn compile(name: &str, source: &str, opts: &Options) -> Result<Compiled, Diagnostics> {
    let fopts = dianran_frontend::Options {
        overrides: opts.overrides.clone(),
        no_fma: opts.no_fma,
        bounds_checks: opts.bounds_checks,
    };
    let module = dianran_frontend::compile(name, source, &fopts)?;
    let diags = |list: Vec<Diagnostic>| Diagnostics::new(name, source, list);

    let wgsl_opts = dianran_wgsl::Options {
        omit_subgroups_enable: !opts.wgsl_subgroups_enable,
        ..Default::default()
    };
    let wgsl = dianran_wgsl::write_module(&module, &wgsl_opts).map_err(diags);

    let msl_out = dianran_msl::write_module_with(
        &module,
        &dianran_msl::Options { fast_math: opts.fast_math, no_metal4: opts.no_metal4 },
    );
    let msl_sizes: Vec<(String, bool)> =
        msl_out.entries.iter().map(|e| (e.name.clone(), e.uses_sizes)).collect();
    let msl = if msl_out.errors.is_empty() { Ok(msl_out.text) } else { Err(diags(msl_out.errors)) };

    let (ptx, facts) = match compile_ptx(&module, opts) {
        Ok((text, facts)) => (Ok(text), facts),
        Err(list) => (Err(diags(list)), Vec::new()),
    };

    let names = ModuleNames::new(&module);
    let bindings = from_module::module_bindings(&module, &names);
    let entries = from_module::entry_table(
        &module,
        &names,
        &bindings,
        &|n| facts.iter().find(|(name, _)| name == n).map(|(_, f)| f.clone()),
        &|n| msl_sizes.iter().any(|(name, sizes)| name == n && *sizes),
    );
    let warnings = diags(module.warnings.clone());
    Ok(Compiled { name: name.to_string(), module, wgsl, msl, ptx, entries, bindings, warnings })
}

/// PTX text and, per compiled entry (by source name), what the reflection needs.
type PtxTable = (String, Vec<(String, PtxFacts)>);

/// The adapter to the PTX code generator: its text and, per compiled entry (by source name),
/// the PTX name, the buffer parameters as (name, group, binding) and the sizes flag. Any
/// per-entry diagnostic fails the whole target.
fn compile_ptx(m: &ir::Module, opts: &Options) -> Result<PtxTable, Vec<Diagnostic>> {
    let out = dianran_ptx::codegen::compile_module(
        m,
        &dianran_ptx::codegen::Options {
            sm: opts.sm,
            tf32: opts.tf32,
            fast_math: opts.fast_math,
            ..Default::default()
        },
    );
    if !out.diagnostics.is_empty() {
        return Err(out.diagnostics);
    }
    let mut facts = Vec::with_capacity(out.entries.len());
    let mut errors = Vec::new();
    for e in &out.entries {
        match from_module::ptx_facts(m, e, Some(&out.module)) {
            Ok(f) => facts.push((e.name.clone(), f)),
            Err(why) => errors.push(
                Diagnostic::error(DiagKind::Internal, why)
                    .in_fn(e.name.clone())
                    .help("this is a bug in dianran; please report it with the shader"),
            ),
        }
    }
    if errors.is_empty() {
        Ok((out.text, facts))
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::PtxParam;

    #[test]
    fn group_zero_placeholders_and_sizes() {
        let src = "@group(0) @binding(0) var<storage, read> a: array<f32>;
            @group(0) @binding(1) var<storage, read> unused: array<f32>;
            @group(0) @binding(2) var<storage, read_write> out: array<f32>;
            @compute @workgroup_size(8, 2, 1) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
                if id.x < arrayLength(&out) { out[id.x] = a[id.x]; }
            }";
        let c = compile("t.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        let e = c.entry("main").unwrap();
        // `main` is an MSL reserved name: the shared namer escapes it for WGSL and MSL.
        assert_eq!(e.wgsl_name, "main_");
        assert_eq!(e.ptx_name.as_deref(), Some("main"));
        assert_eq!(e.workgroup_size, [8, 2, 1]);
        let params: Vec<(&str, u32, u32, bool)> =
            e.ptx_params.iter().map(|p| (p.name.as_ref(), p.group, p.binding, p.used)).collect();
        assert_eq!(
            params,
            [("p_g0_b0", 0, 0, true), ("p_g0_b1", 0, 1, false), ("p_g0_b2", 0, 2, true)]
        );
        assert!(e.ptx_uses_sizes && e.msl_uses_sizes);
        assert_eq!(e.bindings.iter().map(|b| b.binding).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(c.bindings.len(), 3);
        assert!(c.ptx.as_ref().unwrap().contains(".reqntid 8, 2, 1"));
    }

    #[test]
    fn one_target_failing_leaves_the_others() {
        // A multisampled texture is not PTX (docs/textures.md); WGSL and MSL still print.
        let src = "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
            @group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
            @compute @workgroup_size(1) fn blur() { out[0] = textureLoad(t, vec2<i32>(0), 0); }";
        let c = compile("blur.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        let err = c.ptx.as_ref().unwrap_err();
        assert!(err.render().contains("blur.wgsl:"), "{}", err.render());
        assert!(c.wgsl.is_ok() && c.msl.is_ok());
        let e = c.entry("blur").unwrap();
        assert_eq!(e.ptx_name, None);
        assert_eq!(e.ptx_params.as_ref(), &[] as &[PtxParam]);
    }

    #[test]
    fn texture_parameters_in_the_entry_table() {
        let src = "@group(0) @binding(0) var t: texture_2d<f32>;
            @group(0) @binding(1) var s: sampler;
            @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
            @group(0) @binding(3) var img: texture_storage_2d<r32float, write>;
            @compute @workgroup_size(1) fn k() {
                out[0] = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0);
                textureStore(img, vec2<i32>(0), vec4<f32>(1.0)); }";
        let c = compile("k.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        let e = c.entry("k").unwrap();
        let got: Vec<_> = e
            .ptx_params
            .iter()
            .map(|p| (p.name.as_ref(), p.group, p.binding, p.used, p.sampler))
            .collect();
        assert_eq!(
            got,
            [
                ("p_g0_b0", 0, 0, false, None),
                ("p_g0_b1", 0, 1, false, None),
                ("p_g0_b2", 0, 2, true, None),
                ("p_g0_b3", 0, 3, true, None),
                ("p_g0_b0_s0_b1", 0, 0, true, Some((0, 1))),
            ]
        );
    }

    #[test]
    fn compare_words_in_the_entry_table() {
        let src = "@group(0) @binding(0) var t: texture_depth_2d;
            @group(0) @binding(1) var s: sampler_comparison;
            @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
            @compute @workgroup_size(1) fn k() {
                out[0] = textureGatherCompare(t, s, vec2<f32>(0.5), 0.5); }";
        let c = compile("k.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        let e = c.entry("k").unwrap();
        let got: Vec<_> = e
            .ptx_params
            .iter()
            .map(|p| (p.name.as_ref(), p.group, p.binding, p.used, p.sampler, p.compare))
            .collect();
        assert_eq!(
            got,
            [
                ("p_g0_b0", 0, 0, false, None, false),
                ("p_g0_b1", 0, 1, false, None, false),
                ("p_g0_b2", 0, 2, true, None, false),
                ("p_g0_b0_s0_b1", 0, 0, true, Some((0, 1)), false),
                ("p_g0_b0_s0_b1_cmp", 0, 0, true, Some((0, 1)), true),
            ]
        );
    }

    #[test]
    fn source_errors_render_with_snippets() {
        let d =
            compile("bad.wgsl", "fn f() -> i32 { return 1.5 }", &Options::default()).unwrap_err();
        let r = d.render();
        assert!(r.contains("bad.wgsl:1:"), "{r}");
        assert!(r.contains("return 1.5"), "{r}");
    }

    #[test]
    fn subgroups_enable_is_optional_in_wgsl() {
        let src = "enable subgroups;
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(32) fn k(@builtin(local_invocation_index) i: u32) {
                out[i] = subgroupAdd(i);
            }";
        let with = compile("s.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        assert!(with.wgsl.unwrap().contains("enable subgroups;"));
        let opts = Options { wgsl_subgroups_enable: false, ..Options::default() };
        let without = compile("s.wgsl", src, &opts).unwrap_or_else(|d| panic!("{d}"));
        assert!(!without.wgsl.unwrap().contains("enable subgroups"));
    }

    #[test]
    fn sm_option_reaches_ptx() {
        let src = "@compute @workgroup_size(1) fn k() {}";
        let opts = Options { sm: 90, ..Options::default() };
        let c = compile("k.wgsl", src, &opts).unwrap_or_else(|d| panic!("{d}"));
        assert!(c.ptx.unwrap().contains(".target sm_90"));
    }

    #[test]
    fn tf32_option_reaches_ptx() {
        let src = "enable wgpu_cooperative_matrix;
            @group(0) @binding(0) var<storage, read_write> c: array<f32>;
            @compute @workgroup_size(32) fn k() {
                let a = coopLoad<coop_mat16x16<f32, A>>(&c[0], 16u);
                let b = coopLoad<coop_mat16x16<f32, B>>(&c[256], 16u);
                let acc = coopLoad<coop_mat16x16<f32, C>>(&c[512], 16u);
                coopStore(coopMultiplyAdd(a, b, acc), &c[512], 16u);
            }";
        let plain = compile("t.wgsl", src, &Options::default()).unwrap_or_else(|d| panic!("{d}"));
        assert!(plain.ptx.is_err());
        let opts = Options { tf32: true, ..Options::default() };
        let c = compile("t.wgsl", src, &opts).unwrap_or_else(|d| panic!("{d}"));
        assert!(c.ptx.unwrap().contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
    }
}
