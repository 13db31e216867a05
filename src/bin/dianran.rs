//! The `dianran` command-line tool; the commands live in `dianran::cli`.

fn main() -> std::process::ExitCode {
    dianran::cli::main()
}
