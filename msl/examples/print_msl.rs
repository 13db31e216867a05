//! Prints the MSL of a file: `cargo run -p dianran-msl --example print_msl FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: print_msl FILE");
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
        Ok(m) => {
            let out = dianran_msl::write_module(&m);
            print!("{}", out.text);
            for d in &out.errors {
                eprintln!("error: {}", d.message);
            }
        }
        Err(d) => {
            eprint!("{d}");
            std::process::exit(1);
        }
    }
}
