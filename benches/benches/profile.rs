//! The PTX emulator's counters for every kernel pair, ours against NVRTC's on the same inputs
//! and launch (`dianran_benches::profile`): warp instructions, global requests, sectors and
//! sector efficiency, shared wavefronts and bank conflicts (`ldmatrix`'s apart), `mma`,
//! `ldmatrix`, barriers, local requests. Counts, not times: the same on every machine.
//! Without NVRTC the CUDA rows say `not run: nvrtc not found`.

use dianran_benches::kernels::PAIRS;
use dianran_benches::profile::{columns, profile_pair, rows};
use dianran_benches::table::Table;

fn main() {
    let mut header = vec!["kernel", "compiler"];
    header.extend(columns().into_iter().map(|(title, _)| title));
    let mut t = Table::new(&header);
    let mut notes = Vec::new();
    for pair in PAIRS {
        for row in rows(pair, &profile_pair(pair, 80), &mut notes) {
            t.row(row);
        }
    }
    println!("PTX emulator counters per launch (sm_80 PTX; sizes: see benches/src/profile.rs)\n");
    print!("{}", t.render());
    for (k, n) in notes.iter().enumerate() {
        println!("[{}] {n}", k + 1);
    }
}
