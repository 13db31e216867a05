//! Generates and checks programs `FROM..TO`, printing failures (`sgm`: only those with
//! Dawn's subgroup matrices); `reduce SEED` shrinks one (development aid).
use dianran_fuzz::{check, gen, reduce};
fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let opts = check::Options::available();
    if argv.first().map(String::as_str) == Some("reduce") {
        let seed: u64 = argv.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let p = gen::generate(seed);
        let run = |p: &dianran_fuzz::ast::Program, o: &check::Options| {
            check::check("r.wgsl", &p.wgsl(), p.dispatch, p.runtime_len, seed, o).err()
        };
        let Some(f) = run(&p, &opts) else {
            println!("seed {seed} passes");
            return;
        };
        println!("failure: {:?} at {}", f.kind, f.stage);
        let narrow = opts.narrowed(&f);
        let (small, kept) =
            reduce::reduce(&p, &f, std::time::Duration::from_secs(120), |c| run(c, &narrow));
        println!("kept {kept} edits: {} -> {} statements", reduce::size(&p), reduce::size(&small));
        std::fs::write(format!("/tmp/fz/reduced-{seed}.wgsl"), small.wgsl()).ok();
        println!("{}", small.wgsl());
        if let Some(f) = run(&small, &opts) {
            println!("{}", f.detail);
        }
        return;
    }
    if argv.first().map(String::as_str) == Some("reduce-crash") {
        // Shrinks a program on which `dianran run --executor lavapipe` dies on a signal.
        let seed: u64 = argv.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let p = gen::generate(seed);
        let dies = |c: &dianran_fuzz::ast::Program| {
            std::fs::write("/tmp/fz/crash-candidate.wgsl", c.wgsl()).ok();
            let [x, y, z] = c.dispatch;
            let st = std::process::Command::new("target/release/dianran")
                .args([
                    "run",
                    "/tmp/fz/crash-candidate.wgsl",
                    "--entry",
                    "main",
                    "--dispatch",
                    &format!("{x},{y},{z}"),
                    "--len",
                    &c.runtime_len.to_string(),
                    "--executor",
                    "lavapipe",
                ])
                .stderr(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .status()
                .ok();
            st.is_some_and(|s| s.code().is_none()).then(|| check::Failure {
                kind: check::Kind::Crash,
                stage: "lavapipe".into(),
                detail: String::new(),
            })
        };
        let Some(f) = dies(&p) else {
            println!("seed {seed} does not crash");
            return;
        };
        let (small, kept) = reduce::reduce(&p, &f, std::time::Duration::from_secs(300), dies);
        println!("kept {kept} edits: {} -> {} statements", reduce::size(&p), reduce::size(&small));
        std::fs::write(format!("/tmp/fz/crash-reduced-{seed}.wgsl"), small.wgsl()).ok();
        println!("{}", small.wgsl());
        return;
    }
    let args: Vec<u64> = argv.iter().filter_map(|a| a.parse().ok()).collect();
    let (from, to) = (args.first().copied().unwrap_or(0), args.get(1).copied().unwrap_or(20));
    let start = std::time::Instant::now();
    let mut counts = std::collections::BTreeMap::new();
    let only_sgm = argv.iter().any(|a| a == "sgm");
    for seed in from..to {
        let p = gen::generate(seed);
        let text = p.wgsl();
        if only_sgm && !text.contains("subgroup_matrix") {
            continue;
        }
        eprintln!("seed {seed}");
        std::fs::write("/tmp/fz/current.wgsl", &text).ok();
        let r =
            check::check(&format!("p{seed}.wgsl"), &text, p.dispatch, p.runtime_len, seed, &opts);
        if let Err(f) = r {
            *counts.entry(format!("{}:{}", f.kind.name(), f.stage)).or_insert(0) += 1;
            let path = format!("/tmp/fz/fail-{seed}.wgsl");
            std::fs::write(&path, &text).ok();
            println!(
                "seed {seed}: {} at {}: {}",
                f.kind.name(),
                f.stage,
                f.detail.lines().take(6).collect::<Vec<_>>().join(" | ")
            );
        }
    }
    println!("{counts:?} in {:?}", start.elapsed());
}
