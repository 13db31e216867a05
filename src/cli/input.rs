//! What every command that reads a WGSL file shares: the FILE argument, `--override`,
//! `--no-fma`, `--bounds-checks`, and reading and compiling the file.

use super::Failure;
use dianran_frontend::{ir, BoundsChecks, Options};
use std::path::PathBuf;

/// FILE, `--override NAME=VALUE`, `--no-fma` and `--bounds-checks` options.
#[derive(Clone, Debug, clap::Args)]
pub struct SourceArgs {
    /// The WGSL source file.
    pub file: PathBuf,
    /// Value for an `override` declaration (repeatable); `true`/`false` for bool overrides.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = parse_override)]
    pub overrides: Vec<(String, f64)>,
    /// Form no fused multiply-adds: every float `*`, `+` and `-` rounds on its own (NVCC's
    /// `-fmad=false`; `docs/math.md`, "Contraction").
    #[arg(long)]
    pub no_fma: bool,
    /// WebGPU's bounds policy (`docs/bounds.md`): `on`, the default, makes every access safe
    /// (buffer reads out of range give zero, writes are dropped, other indices are clamped);
    /// `off` leaves indices as written, so an index out of range is undefined behaviour.
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = parse_bounds)]
    pub bounds_checks: BoundsChecks,
}

/// Parses `on` or `off` for `--bounds-checks`.
pub fn parse_bounds(s: &str) -> Result<BoundsChecks, String> {
    match s {
        "on" => Ok(BoundsChecks::On),
        "off" => Ok(BoundsChecks::Off),
        _ => Err(format!("expected `on` or `off`, found `{s}`")),
    }
}

/// A loaded source file.
#[derive(Clone, Debug)]
pub struct Source {
    /// The name diagnostics show (the path as given).
    pub name: String,
    /// The text.
    pub text: String,
}

impl SourceArgs {
    /// Reads FILE as UTF-8 text.
    pub fn read(&self) -> Result<Source, Failure> {
        let name = self.file.display().to_string();
        let bytes = std::fs::read(&self.file)
            .map_err(|e| Failure::Message(format!("cannot read '{name}': {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Failure::Message(format!(
                "'{name}' is not UTF-8 text (invalid byte at offset {}); WGSL sources must be UTF-8",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Ok(Source { name, text })
    }

    /// The frontend options these arguments give.
    pub fn options(&self) -> Options {
        Options {
            overrides: self.overrides.clone(),
            no_fma: self.no_fma,
            bounds_checks: self.bounds_checks,
        }
    }

    /// Reads and compiles FILE (parse, validate, lower, standard passes).
    pub fn compile(&self) -> Result<(Source, ir::Module), Failure> {
        let src = self.read()?;
        let module = dianran_frontend::compile(&src.name, &src.text, &self.options())?;
        if !module.warnings.is_empty() {
            let list = module.warnings.clone();
            eprint!("{}", dianran_frontend::Diagnostics::new(&src.name, &src.text, list).render());
        }
        Ok((src, module))
    }
}

/// Parses `NAME=VALUE` (VALUE a number, `true` or `false`).
pub fn parse_override(s: &str) -> Result<(String, f64), String> {
    let (name, value) =
        s.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, got '{s}'"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("missing override name in '{s}'"));
    }
    let value = value.trim();
    let v = match value {
        "true" => 1.0,
        "false" => 0.0,
        _ => value
            .parse::<f64>()
            .map_err(|_| format!("'{value}' is not a number (nor true/false)"))?,
    };
    if !v.is_finite() {
        return Err(format!("override value '{value}' is not finite"));
    }
    Ok((name.to_string(), v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_values() {
        assert_eq!(parse_override("n=64"), Ok(("n".to_string(), 64.0)));
        assert_eq!(parse_override("scale = -0.5"), Ok(("scale".to_string(), -0.5)));
        assert_eq!(parse_override("flag=true"), Ok(("flag".to_string(), 1.0)));
        assert!(parse_override("n").is_err());
        assert!(parse_override("=3").is_err());
        assert!(parse_override("n=abc").is_err());
        assert!(parse_override("n=inf").is_err());
    }
}
