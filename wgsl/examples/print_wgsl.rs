//! Prints the normalized WGSL of a file: `cargo run -p dianran-wgsl --example print_wgsl FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: print_wgsl FILE");
        std::process::exit(2);
    };
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    match dianran_frontend::compile(&path, &src, &Default::default()) {
        Ok(m) => match dianran_wgsl::write_module(&m, &Default::default()) {
            Ok(t) => print!("{t}"),
            Err(ds) => {
                for d in ds {
                    eprintln!("{}", d.message);
                }
                std::process::exit(1);
            }
        },
        Err(d) => {
            eprint!("{d}");
            std::process::exit(1);
        }
    }
}
