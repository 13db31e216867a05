//! Values that depend on a subgroup exchange reading past the subgroup's ends are
//! indeterminate in WGSL and left out of every comparison (`executors::excuses`).
//!
//! Regression (found by `dianran fuzz`): the interpreter looked for such values with three
//! fills (all ones, 0, 1), and a value that only a negative fill changes (`i32(x) < -1000`)
//! slipped through, so lavapipe's arbitrary read was reported as a disagreement. Six fills now
//! include the sign bit.

use dianran_verify::executors::{self, Executor, Job};
use dianran_verify::interp::{self, Buffers, InterpOptions};

const SRC: &str = "enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32, 64>;
@compute @workgroup_size(32)
fn main(@builtin(subgroup_invocation_id) sid: u32, @builtin(local_invocation_index) li: u32) {
    let up = subgroupShuffleUp(sid, 3u);
    out[li] = u32(i32(up) < -1000);
    out[32u + li] = sid * 2u;
}
";

#[test]
fn reads_past_the_subgroup_are_excused_and_nothing_else() {
    let m = dianran_frontend::compile("past.wgsl", SRC, &Default::default())
        .unwrap_or_else(|d| panic!("{d:?}"));
    let mut input = Buffers::new();
    input.insert((0, 0), vec![0u8; 256]);
    let job = Job { subgroup_size: 8, ..Job::new("past.wgsl", SRC, &m, "main", [1, 1, 1]) };
    let mut reference = input.clone();
    let opts = InterpOptions { subgroup_size: 8, ..Default::default() };
    let stats = interp::run_counted(&m, "main", [1, 1, 1], &mut reference, &opts)
        .unwrap_or_else(|d| panic!("{d:?}"));
    // Lanes 0..3 of each subgroup of 8 read past the start: 4 subgroups x 3 lanes.
    assert_eq!(stats.indeterminate_reads, 12);
    let e = executors::excuses(Executor::Lavapipe, &job, &input, &reference)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let want: Vec<u32> = (0..32u32).filter(|s| s % 8 < 3).map(|s| 4 * s).collect();
    let got: Vec<u32> = e.indeterminate.iter().map(|&(_, at)| at).collect();
    assert_eq!(got, want, "exactly the lanes whose source does not exist");
    // A driver that returns i32::MIN there agrees, with a note; a wrong value elsewhere is
    // still reported.
    let mut result = reference.clone();
    for s in (0..32).filter(|s| s % 8 < 3) {
        result.get_mut(&(0, 0)).unwrap()[4 * s] = 1;
    }
    let note =
        executors::compare_excused(Executor::Lavapipe, &job, &input, &reference, &result, &e)
            .unwrap_or_else(|d| panic!("{d:?}"));
    assert!(note.is_some_and(|n| n.contains("12 values depend on subgroup reads")));
    result.get_mut(&(0, 0)).unwrap()[4 * 40] = 7;
    assert!(executors::compare_excused(Executor::Lavapipe, &job, &input, &reference, &result, &e)
        .is_err());
}
