//! `dianran generate FILE`: print the Rust module that `dianran::build` generates for FILE
//! (WGSL, MSL and PTX texts as constants, the entry table and binding reflection).
//!
//! A target that cannot express an entry point becomes a one-line comment in the output and
//! a `warning:` line on stderr, as the build integration does with `cargo:warning`.

use super::input::SourceArgs;
use super::Failure;
use crate::api::{self, Options};
use crate::build;

/// Arguments of `generate`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// PTX target architecture: 80 or 90 (`sm_80`, `sm_90` also accepted).
    #[arg(long, value_name = "SM", default_value = "80", value_parser = parse_sm)]
    pub sm: u32,
    /// Compile f32 x f32 cooperative-matrix products on TF32 tensor cores (inputs rounded to
    /// a 10-bit mantissa, f32 accumulation). Without it 16x16 ones are a diagnostic and 8x8
    /// ones are computed exactly on the FMA units.
    #[arg(long)]
    pub tf32: bool,
    /// Fast approximate math builtins (PTX `.approx` instructions, `metal::fast::`).
    #[arg(long)]
    pub fast_math: bool,
    /// Leave `enable subgroups;` out of the WGSL (naga and wgpu reject it).
    #[arg(long)]
    pub no_subgroups_enable: bool,
}

/// Parses `80`, `90`, `90a` (with or without `sm_`): the `sm` number of
/// `dianran_ptx::codegen::Options` (`90a` is [`dianran_ptx::model::SM_90A`]).
pub fn parse_sm(s: &str) -> Result<u32, String> {
    match s.trim().trim_start_matches("sm_") {
        "80" => Ok(80),
        "90" => Ok(90),
        "90a" => Ok(dianran_ptx::model::SM_90A),
        _ => Err(format!("'{s}' is not a supported target; use 80, 90 or 90a")),
    }
}

/// Compiles FILE and returns the generated module text.
pub fn execute(args: &Args) -> Result<String, Failure> {
    let src = args.source.read()?;
    let opts = Options {
        sm: args.sm,
        tf32: args.tf32,
        fast_math: args.fast_math,
        wgsl_subgroups_enable: !args.no_subgroups_enable,
        overrides: args.source.overrides.clone(),
        no_fma: args.source.no_fma,
        bounds_checks: args.source.bounds_checks,
        no_metal4: false,
    };
    let compiled = api::compile(&src.name, &src.text, &opts)?;
    let generated = build::generate_one(&src.name, &compiled);
    for w in &generated.warnings {
        eprintln!("warning: {w}");
    }
    Ok(generated.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_what_the_build_generates() {
        let dir = std::env::temp_dir().join(format!("dianran-generate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("加倍.wgsl");
        std::fs::write(&file, "@compute @workgroup_size(4) fn 加倍() {}").unwrap();
        let args = Args {
            source: SourceArgs {
                file: file.clone(),
                overrides: Vec::new(),
                no_fma: false,
                bounds_checks: Default::default(),
            },
            sm: 80,
            tf32: false,
            fast_math: false,
            no_subgroups_enable: false,
        };
        let printed = execute(&args).unwrap_or_else(|f| panic!("{}", f.render()));
        let built = build::Shaders::new().file(&file).generate().unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(printed, built.code);
        assert!(printed.contains("pub mod 加倍 {"));
        assert!(printed.contains("pub const 加倍: ::dianran::reflect::Entry"));
    }

    #[test]
    fn sm_values() {
        assert_eq!(parse_sm("80"), Ok(80));
        assert_eq!(parse_sm("sm_90"), Ok(90));
        assert!(parse_sm("75").is_err());
        assert_eq!(parse_sm("90a"), Ok(dianran_ptx::model::SM_90A));
        assert_eq!(dianran_ptx::model::sm_name(parse_sm("sm_90a").unwrap_or(0)), "sm_90a");
    }
}
