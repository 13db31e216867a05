//! What the generator writes: every program passes naga's validation, the same seed gives the
//! same text, and the features the fuzzing issue names appear in most programs.

use dianran_fuzz::gen::generate;
use dianran_fuzz::rng::program_seed;

const PROGRAMS: u64 = 300;

/// Each feature, and how to spot it in a program's text.
const FEATURES: [(&str, &[&str]); 9] = [
    ("loops", &["loop {", "for (", "while ("]),
    ("switches", &["switch ("]),
    ("barriers", &["workgroupBarrier()", "storageBarrier()"]),
    ("atomics", &["atomic"]),
    ("subgroup operations", &["subgroup", "quad"]),
    ("calls with pointers", &["ptr<"]),
    ("cooperative matrices", &["coopMultiplyAdd"]),
    ("matrices", &["mat2x", "mat3x", "mat4x"]),
    ("f16", &["enable f16;"]),
];

#[test]
fn programs_are_valid_deterministic_and_cover_the_features() {
    let mut seen = vec![0u64; FEATURES.len()];
    let mut rich = 0;
    for i in 0..PROGRAMS {
        let seed = program_seed(1, i);
        let text = generate(seed).wgsl();
        assert_eq!(text, generate(seed).wgsl(), "seed {seed} is not deterministic");
        if let Err(d) = dianran_frontend::parse("gen.wgsl", &text, &Default::default()) {
            panic!("seed {seed}: naga rejects the program:\n{d}\n{text}");
        }
        let mut n = 0;
        for (k, (_, marks)) in FEATURES.iter().enumerate() {
            if marks.iter().any(|m| text.contains(m)) {
                seen[k] += 1;
                n += 1;
            }
        }
        // Loops, switches, barriers, atomics, subgroups, pointer calls, cooperative matrices:
        // a program with four of the first seven is a rich one.
        let first7 = FEATURES[..7]
            .iter()
            .filter(|(_, marks)| marks.iter().any(|m| text.contains(m)))
            .count();
        if first7 >= 4 {
            rich += 1;
        }
        let _ = n;
    }
    let share = |k: usize| seen[k] as f64 / PROGRAMS as f64;
    let report: Vec<String> = FEATURES
        .iter()
        .enumerate()
        .map(|(k, (name, _))| format!("{name} {:.0}%", 100.0 * share(k)))
        .collect();
    println!("features over {PROGRAMS} programs: {}; rich: {rich}", report.join(", "));
    // Every feature shows up often enough to be exercised in a short campaign.
    let floors = [0.8, 0.5, 0.5, 0.5, 0.4, 0.4, 0.1, 0.3, 0.3];
    for (k, (name, _)) in FEATURES.iter().enumerate() {
        assert!(share(k) >= floors[k], "{name} in only {:.0}% of programs", 100.0 * share(k));
    }
    assert!(
        rich * 2 > PROGRAMS,
        "only {rich} of {PROGRAMS} programs have four of the named features"
    );
}
