//! Constants the MSL printer introduces carry the operand's type: Metal has no `double`, and a
//! bare floating literal would make `x * 57.29577951308232` a double (a `half` product too).

#[test]
fn degrees_and_radians_multiply_by_a_typed_factor() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/degrees_radians.wgsl");
    let src = std::fs::read_to_string(path).expect("sample");
    let m = dianran_frontend::compile("degrees_radians.wgsl", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let msl = dianran_msl::write_module(&m).text;
    for want in [
        "float(57.29577951308232)",
        "float(0.017453292519943295)",
        "half(57.29577951308232)",
        "half(0.017453292519943295)",
    ] {
        assert!(msl.contains(want), "no `{want}` in:\n{msl}");
    }
    assert!(
        !msl.contains("* 57.29577951308232)") && !msl.contains("* 0.017453292519943295)"),
        "{msl}"
    );
}
