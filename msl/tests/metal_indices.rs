//! Metal resource indices are `group × 16 + binding`; an index past Metal's argument table
//! (buffers 0-29 here, 30 being `_buffer_sizes`) or one that overflows is a diagnostic for that
//! entry, never a panic or a wrapped index.

fn print(group: u32, binding: u32) -> dianran_msl::MslOutput {
    let src = format!(
        "@group({group}) @binding({binding}) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(1) fn k() {{ b[0] = arrayLength(&b); }}
"
    );
    let m = dianran_frontend::compile("i.wgsl", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    dianran_msl::write_module(&m)
}

#[test]
fn indices_in_range_print() {
    let out = print(1, 13);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    // Hand-computed: 1 × 16 + 13 = 29, for the parameter and for its size lookup.
    assert!(out.text.contains("[[buffer(29)]]"), "{}", out.text);
    assert!(out.text.contains("_buffer_sizes[29]"), "{}", out.text);
}

#[test]
fn indices_out_of_range_are_diagnostics() {
    for (group, binding, index) in [
        (1, 14, "30".to_string()),
        (2, 0, "32".to_string()),
        (u32::MAX, 0, format!("above {}", u32::MAX)),
    ] {
        let out = print(group, binding);
        assert!(out.entries.is_empty(), "group {group}: {}", out.text);
        let [d] = out.errors.as_slice() else { panic!("{:?}", out.errors) };
        assert_eq!(d.kind, dianran_frontend::DiagKind::Limit);
        assert!(d.message.contains(&format!("buffer index {index};")), "{}", d.message);
        assert!(d.message.contains("0-29"), "{}", d.message);
        assert_eq!(d.context.as_deref(), Some("k"));
        assert!(d.span.is_some());
    }
}
