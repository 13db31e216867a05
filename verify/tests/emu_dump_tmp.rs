#[test]
fn dump() {
    let name = std::env::var("SAMPLE").unwrap_or_default();
    let src = std::fs::read_to_string(format!("{}/../tests/samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let m = dianran_frontend::compile(&name, &src, &Default::default()).unwrap();
    let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
    std::fs::write(format!("/tmp/dumpptx/{name}.ptx"), &c.text).unwrap();
}
