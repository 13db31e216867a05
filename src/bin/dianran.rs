//! The `dianran` command-line tool; the commands live in `dianran::cli`.

fn main() -> std::process::ExitCode {
    // Mesa prints a warning about an unset XDG_RUNTIME_DIR for every Vulkan instance; set it
    // while the process is still single-threaded.
    #[cfg(feature = "lavapipe")]
    dianran::verify::lavapipe::quiet_mesa_warnings();
    dianran::cli::main()
}
