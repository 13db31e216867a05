//! Writes the generated programs for seeds `FROM..TO` as `DIR/seed-N.wgsl` (a corpus for
//! comparing compiler outputs before and after a refactoring).
use dianran_fuzz::gen;
fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let dir = argv.first().cloned().unwrap_or_else(|| "/tmp/fz-corpus".into());
    let from: u64 = argv.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let to: u64 = argv.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    std::fs::create_dir_all(&dir).expect("create the output directory");
    for seed in from..to {
        let p = gen::generate(seed);
        std::fs::write(format!("{dir}/seed-{seed}.wgsl"), p.wgsl()).expect("write a program");
    }
}
