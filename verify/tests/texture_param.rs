//! `tests/samples/texture_param.wgsl`: textures and samplers passed to helper functions (PTX
//! inlines the helpers, and each call's texture operand must resolve to the global it was
//! called with). The expected outputs come from plain Rust over the texels built here; the
//! interpreter and our PTX on the emulator must both produce them bit for bit.

mod common;

use common::*;
use dianran_verify::buffers::Buffers;
use dianran_verify::executors::{Executor, Job};
use dianran_verify::texture::{
    AddressMode, Filter, SamplerDesc, TexDim, TexelFormat, TextureBindings, TextureData,
};

const NAME: &str = "texture_param.wgsl";

/// Two 8x8 rgba32float textures of values in [-1, 1), and the sample's two samplers.
fn bindings() -> (Vec<[f32; 4]>, Vec<[f32; 4]>, TextureBindings) {
    let mut rng = Rng::new(24);
    let a: Vec<[f32; 4]> = rng.vec(64, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let b: Vec<[f32; 4]> = rng.vec(64, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let mut t = TextureBindings::default();
    for (binding, texels) in [(0, &a), (1, &b)] {
        let bytes = f32_bytes(&texels.iter().flatten().copied().collect::<Vec<_>>());
        let data =
            TextureData::with_data(TexDim::D2, TexelFormat::Rgba32Float, [8, 8, 1], 1, bytes)
                .expect("texture shape");
        t.textures.insert((0, binding), data);
    }
    t.samplers.insert((0, 2), SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Nearest));
    t.samplers.insert((0, 3), SamplerDesc::uniform(AddressMode::Repeat, Filter::Nearest));
    (a, b, t)
}

/// The sample's outputs by hand: invocation `i` handles texel `c = (i % 8, i / 8)`; `blend`
/// samples at the center of texel `floor(uv * 8) = 2c - 4`, which clamp-to-edge clamps to
/// [0, 7] and repeat wraps modulo 8.
fn expected(a: &[[f32; 4]], b: &[[f32; 4]]) -> Vec<f32> {
    let at = |t: &[[f32; 4]], x: i64, y: i64| t[(y * 8 + x) as usize];
    let mut want = Vec::new();
    for i in 0..64i64 {
        let (x, y) = (i % 8, i / 8);
        let (u, v) = (2 * x - 4, 2 * y - 4);
        let clamped = at(a, u.clamp(0, 7), v.clamp(0, 7));
        let wrapped = at(b, u.rem_euclid(8), v.rem_euclid(8));
        let (ta, tb, tb7) = (at(a, x, y), at(b, x, y), at(b, 7 - x, 7 - y));
        want.extend(ta);
        want.extend(tb);
        want.extend((0..4).map(|k| tb[k] + tb7[k]));
        want.extend((0..4).map(|k| clamped[k] * 0.5 + wrapped[k] * 2.0));
        want.extend([8.0; 4]);
    }
    want
}

fn input() -> Buffers {
    group0(vec![(4, zeros(64 * 5 * 16))])
}

#[test]
fn texture_and_sampler_arguments_on_the_interpreter() {
    let (a, b, mut t) = bindings();
    let bufs = run_textured(NAME, input(), &mut t);
    check_eq("outputs", &f32s(out(&bufs, 4)), &expected(&a, &b));
}

#[test]
fn texture_and_sampler_arguments_on_the_emulator() {
    let (a, b, t) = bindings();
    let src = std::fs::read_to_string(sample_path(NAME)).expect("cannot read sample");
    let (dispatch, entry) = sample_header(&src);
    let module = dianran_frontend::compile(NAME, &src, &Default::default()).expect("compiles");
    let job = Job::new(NAME, &src, &module, &entry, dispatch);
    let (bufs, _) = dianran_verify::textured::run_textured(Executor::Emu, &job, &input(), &t)
        .unwrap_or_else(|e| panic!("{NAME} on the emulator: {e}"));
    check_eq("outputs", &f32s(out(&bufs, 4)), &expected(&a, &b));
}

/// The PTX passes ptxas (where it is installed).
#[test]
fn texture_and_sampler_arguments_pass_ptxas() {
    let src = std::fs::read_to_string(sample_path(NAME)).expect("cannot read sample");
    let module = dianran_frontend::compile(NAME, &src, &Default::default()).expect("compiles");
    let ptx = dianran_ptx::codegen::compile_module(&module, &Default::default());
    assert!(ptx.diagnostics.is_empty(), "{:?}", ptx.diagnostics);
    match dianran_verify::ptxas::check(&ptx.text, 80) {
        Ok(_) => {}
        Err(dianran_verify::ptxas::PtxasError::NotFound) => eprintln!("ptxas not found: skipped"),
        Err(e) => panic!("ptxas rejects the PTX: {e}\n{}", ptx.text),
    }
}
