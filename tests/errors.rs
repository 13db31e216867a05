//! Bad inputs in `tests/errors/*.wgsl` and the diagnostic each must produce.
//!
//! Every `NAME.wgsl` has a `NAME.expected`: lines that must each appear in the rendered
//! diagnostics (`error: MESSAGE`, `at NAME.wgsl:LINE:COLUMN`, `help: ...`). The `at` line
//! pins the location. `DIANRAN_BLESS=1 cargo test --test errors` rewrites the files from the
//! first diagnostic.

use std::path::{Path, PathBuf};

fn error_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "wgsl"));
    files.sort();
    files
}

/// The blessed lines for the first diagnostic: message, location, help.
fn blessed(ds: &dianran::Diagnostics) -> String {
    let Some(d) = ds.list.first() else { return String::new() };
    let context = d.context.as_ref().map(|c| format!(" (in '{c}')")).unwrap_or_default();
    let mut out = format!("error: {}{context}\nat {}\n", d.message, ds.location(d));
    if let Some(h) = &d.help {
        out.push_str(&format!("help: {h}\n"));
    }
    out
}

#[test]
fn error_samples_report_location_message_and_help() {
    let files = error_files();
    assert!(files.len() >= 20, "expected at least 20 error samples, found {}", files.len());
    let bless = std::env::var_os("DIANRAN_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let src = std::fs::read_to_string(path).expect("error samples are UTF-8");
        let diags = match dianran::compile(&name, &src, &dianran::Options::default()) {
            Ok(_) => {
                failures.push(format!("{name}: compiled without error"));
                continue;
            }
            Err(d) => d,
        };
        let rendered = diags.render();
        let expected_path = path.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, blessed(&diags)).expect("write .expected");
            continue;
        }
        let expected = match std::fs::read_to_string(&expected_path) {
            Ok(e) => e,
            Err(_) => {
                failures.push(format!(
                    "{name}: no {} (run with DIANRAN_BLESS=1)",
                    expected_path.display()
                ));
                continue;
            }
        };
        let lines: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        if !lines.iter().any(|l| l.starts_with(&format!("at {name}:"))) {
            failures.push(format!("{name}: .expected has no `at {name}:LINE:COL` line"));
        }
        if !lines.iter().any(|l| l.starts_with("help: ")) {
            failures.push(format!("{name}: .expected has no `help:` line"));
        }
        for l in lines {
            if !rendered.contains(l) {
                failures.push(format!("{name}: missing line {l:?} in\n{rendered}"));
            }
        }
        // The location must also be the first diagnostic's own, and carry a caret.
        if let Some(d) = diags.list.first() {
            if d.span.is_none() {
                failures.push(format!("{name}: first diagnostic has no location"));
            }
            if !rendered.contains('^') {
                failures.push(format!("{name}: no caret in\n{rendered}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}
