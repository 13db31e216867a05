//! Times each stage of the checks over programs `FROM..TO` (development aid).
use dianran_fuzz::{check, gen};
use std::time::Instant;
fn main() {
    let argv: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (from, to) = (argv.first().copied().unwrap_or(0), argv.get(1).copied().unwrap_or(20));
    let all = check::Options::available();
    let mut base = all.clone();
    base.executors.clear();
    base.ptxas = None;
    base.clang = None;
    let mut tot = std::collections::BTreeMap::new();
    for seed in from..to {
        let p = gen::generate(seed);
        let text = p.wgsl();
        let mut time = |name: &str, o: &check::Options| {
            let t = Instant::now();
            let _ = check::check("p.wgsl", &text, p.dispatch, p.runtime_len, seed, o);
            *tot.entry(name.to_string()).or_insert(0.0) += t.elapsed().as_secs_f64();
        };
        time("base (naga, frontend, ptx, msl, wgsl, interp)", &base);
        let mut o = base.clone();
        o.ptxas = all.ptxas.clone();
        time("+ptxas", &o);
        let mut o = base.clone();
        o.clang = all.clang.clone();
        time("+clang", &o);
        for e in all
            .executors
            .iter()
            .filter(|e| std::env::var("NOLAVA").is_err() || !e.name().starts_with("lava"))
        {
            let mut o = base.clone();
            o.executors = vec![*e];
            time(&format!("+{}", e.name()), &o);
        }
    }
    let n = (to - from) as f64;
    for (k, v) in tot {
        println!("{k}: {:.1} ms", v / n * 1000.0);
    }
}
