//! The `backends` bench's table on its smallest pair: both dianran backends (the LLVM one with
//! the `llvm` feature) produce PTX, a time and, with ptxas, registers; NVRTC's cells are
//! numbers or `skipped`; a kernel a backend rejects gives a reason, not a panic.

use dianran_benches::backends::{self, Compiler, HEADER};
use dianran_benches::kernels::PAIRS;

/// The first pair: `double_unicode.wgsl`, the smallest kernel.
fn row() -> backends::Row {
    let pair = PAIRS.iter().find(|p| p.sample == "double_unicode.wgsl").expect("pair listed");
    backends::measure_pair(pair, 80, 1, backends::ptxas_available().is_ok())
}

#[test]
fn the_smallest_pair_makes_a_row() {
    let row = row();
    assert_eq!(row.kernel, "double_unicode");
    let ours = row.get(Compiler::Ours);
    assert!(ours.time.is_ok(), "{:?}", ours.time);
    let llvm = row.get(Compiler::Llvm);
    if cfg!(feature = "llvm") {
        assert!(llvm.time.is_ok(), "{:?}", llvm.time);
    } else {
        assert!(llvm.time.as_ref().is_err_and(|e| e.contains("without the llvm feature")));
    }
    match backends::ptxas_available() {
        Ok(()) => {
            let o = ours.ptxas.as_ref().expect("ptxas on our PTX");
            assert!(o.registers > 0 && o.spill_stores == 0);
            if cfg!(feature = "llvm") {
                let l = llvm.ptxas.as_ref().expect("ptxas on LLVM's PTX");
                assert!(l.registers > 0 && l.spill_stores == 0);
            }
        }
        Err(_) => {
            dianran_verify::tools::require_that(false, "ptxas not found");
        }
    }
    let nvrtc = row.get(Compiler::Nvrtc);
    if let Err(e) = &nvrtc.time {
        assert!(e.starts_with("skipped"), "{e}");
    }

    let cells = backends::cells(&row);
    assert_eq!(cells.len(), HEADER.len());
    let number = |c: &str| c.parse::<f64>().is_ok_and(|v| v > 0.0);
    assert!(number(&cells[2]), "{cells:?}");
    if cfg!(feature = "llvm") {
        assert!(number(&cells[3]), "{cells:?}");
        assert!(cells[5].ends_with('x'), "{cells:?}");
    } else {
        assert_eq!(cells[3], "skipped");
    }
    let table = backends::render(&[row]);
    assert!(table.starts_with("kernel"), "{table}");
    assert!(table.lines().nth(2).is_some_and(|l| l.starts_with("double_unicode  sm_80")));
}

#[test]
fn rejected_kernels_give_a_reason() {
    let bad = "fn main( {";
    let (ptx, time) = backends::time_median(3, || backends::compile_ours("bad.wgsl", bad, 80));
    assert!(ptx.is_err());
    let reason = time.expect_err("nothing to time");
    assert!(reason.starts_with("frontend"), "{reason}");
    assert!(!backends::short_reason(&reason).is_empty());
    let llvm = backends::compile_llvm("bad.wgsl", bad, 80);
    assert!(llvm.is_err());
}
