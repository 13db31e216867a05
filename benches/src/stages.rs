//! dianran's WGSL -> PTX pipeline stage by stage, for the `stages` benchmark: the same work as
//! [`crate::pipeline::wgsl_to_ptx`] (sm_80, default options), with the time of each stage.

use std::time::{Duration, Instant};

use crate::pipeline::first_line;
use dianran_ptx::codegen::{compile_module, Options};

/// One stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// naga parse + validate, dianran's extra checks and overrides (`dianran_frontend::parse`).
    Parse,
    /// Lowering naga's module to the SSA form.
    Lower,
    /// The SSA passes as `dianran_frontend::compile` runs them by default
    /// (`dianran_frontend::run_passes`: optimization, the bounds policy, contraction).
    Optimize,
    /// Inlining user functions into each entry point.
    Inline,
    /// PTX instruction selection.
    Select,
    /// regalloc2.
    Regalloc,
    /// Writing PTX text.
    Print,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 7] = [
        Stage::Parse,
        Stage::Lower,
        Stage::Optimize,
        Stage::Inline,
        Stage::Select,
        Stage::Regalloc,
        Stage::Print,
    ];

    /// A short description for tables.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Parse => "parse + validate (naga, checks)",
            Stage::Lower => "lower to SSA",
            Stage::Optimize => "SSA passes",
            Stage::Inline => "inline calls",
            Stage::Select => "instruction selection",
            Stage::Regalloc => "register allocation",
            Stage::Print => "print PTX",
        }
    }
}

/// The time of each stage of one compile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTimes([Duration; 7]);

impl StageTimes {
    /// The time of `stage`.
    pub fn get(&self, stage: Stage) -> Duration {
        self.0[stage as usize]
    }

    /// All stages together.
    pub fn total(&self) -> Duration {
        self.0.iter().sum()
    }

    /// The smaller of each stage's two times (best-of-N measurements).
    pub fn min(&self, other: &StageTimes) -> StageTimes {
        let mut out = *self;
        for (o, t) in out.0.iter_mut().zip(other.0) {
            *o = (*o).min(t);
        }
        out
    }
}

/// naga's own parse + validate of `source` (after dianran's preprocessing, which only blanks
/// the `enable` directives naga does not know), with every validation flag and capability:
/// the yardstick. Returns whether it validated.
pub fn naga_parse_validate(source: &str) -> bool {
    let text = dianran_frontend::source::preprocess(source).0;
    let Ok(module) = naga::front::wgsl::parse_str(&text) else { return false };
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .is_ok()
}

/// Compiles `source` to PTX (sm_80) and returns each stage's time; an error when any stage
/// fails or the codegen reports a diagnostic.
pub fn run(name: &str, source: &str) -> Result<StageTimes, String> {
    let mut t = StageTimes::default();
    let start = Instant::now();
    let parsed = dianran_frontend::parse(name, source, &Default::default())
        .map_err(|d| format!("frontend: {}", first_line(&d.to_string())))?;
    t.0[Stage::Parse as usize] = start.elapsed();
    let start = Instant::now();
    let mut module = dianran_frontend::lower(&parsed)
        .map_err(|d| format!("lowering: {}", first_line(&d.to_string())))?;
    t.0[Stage::Lower as usize] = start.elapsed();
    let start = Instant::now();
    dianran_frontend::run_passes(&mut module, &Default::default())
        .map_err(|d| format!("passes: {}", d.message))?;
    t.0[Stage::Optimize as usize] = start.elapsed();
    let out = compile_module(&module, &Options { sm: 80, ..Options::default() });
    if let Some(d) = out.diagnostics.first() {
        return Err(format!("PTX codegen: {}", d.message));
    }
    if out.entries.is_empty() {
        return Err("no compute entry point".into());
    }
    t.0[Stage::Inline as usize] = out.times.inline;
    t.0[Stage::Select as usize] = out.times.select;
    t.0[Stage::Regalloc as usize] = out.times.regalloc;
    t.0[Stage::Print as usize] = out.times.print;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_every_stage_of_a_kernel() {
        let src = "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n\
                   @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) \
                   { d[g.x] = d[g.x] * 2u; }";
        assert!(naga_parse_validate(src));
        let t = run("t.wgsl", src).expect("compiles");
        assert!(t.get(Stage::Parse) > Duration::ZERO);
        assert!(t.total() >= t.get(Stage::Select));
        assert!(run("bad.wgsl", "fn main( {").is_err());
        assert!(!naga_parse_validate("fn main( {"));
    }
}
