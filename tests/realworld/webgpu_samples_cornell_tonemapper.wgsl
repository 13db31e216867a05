// Source: https://github.com/webgpu/webgpu-samples
// Path: src/sample/cornell/tonemapper.wgsl
// Commit: 7ec9fc2f765b225e33366568ba7a685e05ac7f69
// License: BSD-3-Clause
// Changes: the TS template's `{OUTPUT_FORMAT}` instantiated as rgba8unorm (the sample
// substitutes the canvas format; rgba8unorm is one of the two it can be).
// Kind: Reinhard tonemap: textureLoad of a framebuffer, pow gamma, textureStore
// to an rgba8unorm storage texture.
// The sample's input is an rgba16float framebuffer of linear light (never negative); the
// test reads an rgba8unorm one instead, because random rgba16float texels lie in [-1, 1) and
// `pow` of a negative base is indeterminate in WGSL (lavapipe stored such channels as 255,
// the interpreter and the emulator as 0).
// dispatch: 2,2,1
// texture: 0:0=32x32:rgba8unorm
// texture: 0:1=32x32:rgba8unorm
// The linear-light input framebuffer
@group(0) @binding(0) var input  : texture_2d<f32>;

// The tonemapped, gamma-corrected output framebuffer
@group(0) @binding(1) var output : texture_storage_2d<rgba8unorm, write>;

const TonemapExposure = 0.5;

const Gamma = 2.2;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) invocation_id : vec3u) {
  let color = textureLoad(input, invocation_id.xy, 0).rgb;
  let tonemapped = reinhard_tonemap(color);
  textureStore(output, invocation_id.xy, vec4f(tonemapped, 1));
}

fn reinhard_tonemap(linearColor: vec3f) -> vec3f {
  let color = linearColor * TonemapExposure;
  let mapped = color / (1+color);
  return pow(mapped, vec3f(1 / Gamma));
}
