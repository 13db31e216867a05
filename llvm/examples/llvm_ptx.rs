//! Prints the LLVM IR and PTX the LLVM backend makes of a WGSL file:
//! `cargo run -p dianran-llvm --example llvm_ptx -- FILE [--ir]`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: llvm_ptx FILE [--ir]")?;
    let src = std::fs::read_to_string(path)?;
    let m =
        dianran_frontend::compile(path, &src, &Default::default()).map_err(|d| d.to_string())?;
    let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
    if args.iter().any(|a| a == "--ir") {
        println!("{}", out.ir);
    }
    print!("{}", out.text);
    for d in &out.diagnostics {
        eprintln!("error: {}", d.message);
    }
    Ok(())
}
