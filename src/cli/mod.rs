//! The `dianran` command-line interface.
//!
//! One module per command (`check`, `ssa`, `run`, `emit` for `wgsl`/`msl`/`ptx`, `verify`,
//! `generate`, `fuzz`); each has an `Args` struct (clap derive) and an `execute` function returning
//! the text for stdout or a [`Failure`]. [`main`] maps the result to the exit status: 0 on
//! success, 1 on an error in the input or at run time (the diagnostic goes to stderr), 2 on
//! a usage error (clap's own). A new command is a new module plus one variant of
//! [`Command`].

pub mod check;
pub mod emit;
pub mod fuzz;
pub mod generate;
pub mod input;
pub mod isolated;
pub mod run;
pub mod ssa;
pub mod verify;

use clap::{Parser, Subcommand};
use dianran_frontend::Diagnostics;
use std::io::Write;
use std::process::ExitCode;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "dianran",
    version,
    about = "WGSL to PTX, MSL and WGSL: one GPU kernel source, three targets"
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse, validate and lower FILE; print its entry points (name, stage, workgroup size).
    Check(check::Args),
    /// Print the SSA form of FILE after the standard passes.
    Ssa(ssa::Args),
    /// Run a compute entry point of FILE on the reference interpreter or another executor
    /// (`--profile`: the PTX emulator's counters of the launch on stderr).
    Run(run::Args),
    /// Print FILE as normalized WGSL.
    Wgsl(emit::WgslArgs),
    /// Print FILE as Metal Shading Language.
    Msl(emit::MslArgs),
    /// Compile FILE's compute entry points to PTX (entry table on stderr).
    Ptx(emit::PtxArgs),
    /// Run one compute entry on every available executor and compare with the interpreter.
    Verify(verify::Args),
    /// Print the Rust module `dianran::build` generates for FILE (texts, entries, bindings).
    Generate(generate::Args),
    /// Differential fuzzing: random WGSL programs through every target and executor, reduced
    /// on failure; mutated real kernels through every command.
    Fuzz(fuzz::Args),
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Problems in the input (or found while running it), with source locations.
    Diagnostics(Diagnostics),
    /// A problem with no source location (a file that cannot be read, a bad option value).
    Message(String),
}

impl Failure {
    /// The text for stderr.
    pub fn render(&self) -> String {
        match self {
            Failure::Diagnostics(d) => d.render(),
            Failure::Message(m) => format!("error: {m}\n"),
        }
    }
}

impl From<Diagnostics> for Failure {
    fn from(d: Diagnostics) -> Self {
        Failure::Diagnostics(d)
    }
}

/// Runs one parsed command; `Ok` holds what goes to stdout.
pub fn execute(command: &Command) -> Result<String, Failure> {
    match command {
        Command::Check(a) => check::execute(a),
        Command::Ssa(a) => ssa::execute(a),
        Command::Run(a) => run::execute(a),
        Command::Generate(a) => generate::execute(a),
        Command::Wgsl(a) => emit::wgsl(a),
        Command::Msl(a) => emit::msl(a),
        Command::Ptx(a) => emit::ptx(a),
        Command::Verify(a) => verify::execute(a),
        Command::Fuzz(a) => fuzz::execute(a),
    }
}

/// The tool's entry point: parses the arguments, runs the command, prints, and returns the
/// exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(&cli.command) {
        Ok(out) => {
            // A closed stdout (`dianran ssa f | head`) is not an error worth a panic.
            let _ = std::io::stdout().lock().write_all(out.as_bytes());
            ExitCode::SUCCESS
        }
        Err(f) => {
            let _ = std::io::stderr().lock().write_all(f.render().as_bytes());
            ExitCode::from(1)
        }
    }
}
