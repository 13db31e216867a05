//! Tabulates the special-function unit's approximate instructions (`dianran_verify::mufu`,
//! `docs/math.md`, "Tabulating the special-function unit"): every f32 input of `ex2`, `lg2`,
//! `rcp`, `rsqrt`, `sin` and `cos` (`.approx.ftz.f32`) through the CUDA driver, a report per
//! instruction, and `ex2`'s 2^24-point grid as byte deltas from the correctly rounded value.
//!
//! ```text
//! cargo run --release -p dianran-verify --example mufu_tables -- OUT_DIR
//! cargo run --release -p dianran-verify --example mufu_tables -- OUT_DIR --emulator
//! ```
//!
//! Writes `OUT_DIR/summary.txt` and, for `ex2`, `ex2_grid_even.i8` and `ex2_grid_odd.i8`
//! (byte `k` of each is grid point `2k` or `2k + 1`; `-128` marks a difference that does not
//! fit, counted in the summary). `--emulator` is a sparse dry run on the PTX emulator (every
//! 2^20-th input, a 2^8-point grid in `ex2_grid.i8`); `--step N` and `--grid-bits G` override
//! the sweep. Without a CUDA device it prints `skipped: no CUDA device` and exits 0.

use dianran_verify::mufu::{self, Approx, Sweep, Unit};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mufu_tables: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let (mut emulator, mut step, mut grid_bits) = (false, None, None);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> Result<u32, String> {
            args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{what} takes a number"))
        };
        match a.as_str() {
            "--emulator" => emulator = true,
            "--step" => step = Some(num("--step")?.max(1)),
            "--grid-bits" => grid_bits = Some(num("--grid-bits")?.clamp(1, 24)),
            _ if out.is_none() && !a.starts_with('-') => out = Some(PathBuf::from(a)),
            _ => return Err(format!("unexpected argument {a:?} (usage: OUT_DIR [--emulator] [--step N] [--grid-bits G])")),
        }
    }
    let out = out.ok_or("usage: mufu_tables OUT_DIR [--emulator] [--step N] [--grid-bits G]")?;
    let mut unit: Box<dyn Unit> = if emulator {
        Box::new(mufu::Emulator)
    } else {
        match driver() {
            Ok(d) => d,
            Err(why) => {
                println!("skipped: {why}");
                return Ok(());
            }
        }
    };
    let sweep = if emulator {
        Sweep { step: step.unwrap_or(1 << 20), chunk: 1 << 12, grid_bits: grid_bits.unwrap_or(8) }
    } else {
        Sweep { step: step.unwrap_or(1), chunk: 1 << 24, grid_bits: grid_bits.unwrap_or(24) }
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, bytes: &[u8]| {
        let p = out.join(name);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut summary = format!(
        "unit: {}\nsweep: every {} input(s), {} per launch; ex2 grid k * 2^-{}\n",
        unit.name(),
        sweep.step,
        sweep.chunk,
        sweep.grid_bits
    );
    print!("{summary}");
    for op in Approx::ALL {
        let start = std::time::Instant::now();
        let t = mufu::tabulate(unit.as_mut(), op, sweep)?;
        let mut lines = mufu::report(&t);
        if let Some(grid) = &t.grid {
            let (d, escaped) = mufu::grid_deltas(grid, sweep.grid_bits);
            let bytes: Vec<u8> = d.iter().map(|&v| v as u8).collect();
            if sweep.grid_bits == 24 {
                let even: Vec<u8> = bytes.iter().step_by(2).copied().collect();
                let odd: Vec<u8> = bytes.iter().skip(1).step_by(2).copied().collect();
                write("ex2_grid_even.i8", &even)?;
                write("ex2_grid_odd.i8", &odd)?;
            } else {
                write("ex2_grid.i8", &bytes)?;
            }
            let mut hist = [0u64; 5];
            for &v in d.iter().filter(|&&v| v != i8::MIN) {
                hist[(v.clamp(-2, 2) + 2) as usize] += 1;
            }
            lines.push_str(&format!(
                "  grid: {} points, steps from the correctly rounded 2^f: <=-2 {}, -1 {}, 0 {}, +1 {}, >=+2 {} ({escaped} do not fit a byte)\n",
                d.len(),
                hist[0],
                hist[1],
                hist[2],
                hist[3],
                hist[4]
            ));
        }
        lines.push_str(&format!("  ({:.1} s)\n", start.elapsed().as_secs_f64()));
        print!("{lines}");
        summary.push_str(&lines);
        // After each instruction, so a run stopped by a time limit keeps what it measured.
        write("summary.txt", summary.as_bytes())?;
    }
    Ok(())
}

#[cfg(feature = "cuda")]
fn driver() -> Result<Box<dyn Unit>, String> {
    Ok(Box::new(mufu::Driver::open()?))
}

#[cfg(not(feature = "cuda"))]
fn driver() -> Result<Box<dyn Unit>, String> {
    Err("no CUDA device (built without the `cuda` feature)".into())
}
