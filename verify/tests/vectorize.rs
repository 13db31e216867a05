//! Vectorized memory accesses and packed f16 arithmetic (`dianran_ptx::codegen`'s
//! `vectorize` pass, issue #15 item 4): small kernels whose PTX must (or must not) use
//! `.v2`/`.v4` accesses and `.f16x2` forms, assembled by ptxas when it is installed, and run
//! by the PTX emulator and by the reference interpreter on the same buffers, compared byte
//! for byte.

use dianran_verify::buffers::{default_buffers, entry_bindings, Buffers};
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::interp::{self, InterpOptions};

/// A small deterministic generator (xorshift32).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

/// What the bytes of a buffer hold, for seeding it with ordinary (non-NaN) values.
#[derive(Clone, Copy)]
enum Fill {
    /// f32 multiples of 1/8 in [-4, 4).
    F32,
    /// f16 multiples of 1/8 in [-2, 2), two per word.
    F16,
}

/// Compiles `src`, returns its PTX after checking it with ptxas (when installed).
fn ptx_of(src: &str) -> (dianran_frontend::ir::Module, dianran_ptx::codegen::CompiledPtx) {
    let module = dianran_frontend::compile("t.wgsl", src, &unchecked()).expect("frontend");
    let compiled = dianran_ptx::codegen::compile_module(&module, &Default::default());
    assert!(compiled.diagnostics.is_empty(), "{:?}", compiled.diagnostics);
    match dianran_verify::ptxas::check(&compiled.text, 80) {
        Ok(_) | Err(dianran_verify::ptxas::PtxasError::NotFound) => {}
        Err(e) => panic!("ptxas rejects the PTX: {e}\n{}", compiled.text),
    }
    (module, compiled)
}

/// Runs entry `main` of `src` on `groups` workgroups with the interpreter and the emulator
/// (buffers of `len` runtime-array elements, seeded per `fill`); asserts equal bytes.
fn agree(src: &str, groups: u32, len: u32, fill: Fill) -> String {
    let (module, compiled) = ptx_of(src);
    let mut bufs: Buffers = default_buffers(&module, "main", len).expect("buffers");
    let mut rng = Rng(0x1234_5678);
    for buf in bufs.values_mut() {
        for w in buf.chunks_mut(4) {
            let r = rng.next();
            let v = match fill {
                Fill::F32 => (((r % 64) as f32 - 32.0) / 8.0).to_bits(),
                Fill::F16 => {
                    let h = |x: u32| half::f16::from_f32((x % 32) as f32 / 8.0 - 2.0).to_bits();
                    u32::from(h(r)) | u32::from(h(r >> 8)) << 16
                }
            };
            let n = w.len();
            w.copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
    let input = bufs.clone();
    let dispatch = [groups, 1, 1];
    let opts = InterpOptions { max_steps: 1 << 26, ..InterpOptions::default() };
    interp::run(&module, "main", dispatch, &mut bufs, &opts).expect("interpreter");
    let info = compiled.entries.iter().find(|e| e.name == "main").expect("entry");
    let keys: Vec<(u32, u32)> = entry_bindings(&module, "main")
        .expect("bindings")
        .iter()
        .map(|b| (b.group, b.binding))
        .collect();
    let mut params: Vec<Vec<u8>> = info
        .params
        .iter()
        .map(|p| {
            let key = dianran_ptx::abi::param_binding(p).expect("buffer parameter");
            input.get(&key).cloned().unwrap_or_default()
        })
        .collect();
    let eo = EmuOptions { max_steps: 1 << 26, ..Default::default() };
    emu::run(&compiled.text, &info.ptx_name, &mut params, dispatch, info.workgroup_size, &eo)
        .expect("emulator");
    for (p, name) in params.iter().zip(&info.params) {
        let key = dianran_ptx::abi::param_binding(name).expect("buffer parameter");
        assert!(keys.contains(&key));
        assert_eq!(Some(p), bufs.get(&key), "buffer {key:?} differs\n{}", compiled.text);
    }
    compiled.text
}

/// How many instruction lines start with `prefix` (after the tab indent).
fn count(ptx: &str, prefix: &str) -> usize {
    ptx.lines().filter(|l| l.trim_start().starts_with(prefix)).count()
}

const VEC4_SCALE: &str = "
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    b[g.x] = a[g.x] * 2.0;
}
";

#[test]
fn vec4_of_f32_moves_as_one_16_byte_access() {
    let ptx = agree(VEC4_SCALE, 2, 128, Fill::F32);
    // Before: four `ld.global.u32` and four `st.global.u32`.
    assert_eq!(count(&ptx, "ld.global.v4.u32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.global.v4.u32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "ld.global.u32"), 0, "{ptx}");
    assert_eq!(count(&ptx, "st.global.u32"), 0, "{ptx}");
}

/// The GEMM staging pattern: 16 bytes of halves from global memory, stored as eight f16
/// elements into a workgroup array at `8 * l + k`, read back after a barrier.
const F16_STAGE: &str = "
enable f16;
struct Row { lo: vec4<f16>, hi: vec4<f16>, pad: vec4<u32> }
@group(0) @binding(0) var<storage, read> a: array<Row>;
@group(0) @binding(1) var<storage, read_write> o: array<vec2<f16>>;
var<workgroup> tile: array<f16, 512>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>) {
    let lo = a[w.x * 64u + l].lo;
    let hi = a[w.x * 64u + l].hi;
    let base = l * 8u;
    tile[base] = lo.x;
    tile[base + 1u] = lo.y;
    tile[base + 2u] = lo.z;
    tile[base + 3u] = lo.w;
    tile[base + 4u] = hi.x;
    tile[base + 5u] = hi.y;
    tile[base + 6u] = hi.z;
    tile[base + 7u] = hi.w;
    workgroupBarrier();
    // Another invocation's halves, swapped in pairs: four 2-byte loads, 8-byte aligned
    // (`r` is a multiple of 8 halves), become one `ld.shared.v2.b32`.
    let r = (63u - l) * 8u;
    let x = vec2<f16>(tile[r + 1u], tile[r]);
    let y = vec2<f16>(tile[r + 3u], tile[r + 2u]);
    o[(w.x * 64u + l) * 2u] = x;
    o[(w.x * 64u + l) * 2u + 1u] = y;
}
";

#[test]
fn eight_f16_stores_to_workgroup_memory_become_one_st_shared_v4() {
    let ptx = agree(F16_STAGE, 2, 256, Fill::F16);
    assert_eq!(count(&ptx, "ld.global.v4.b32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.shared.v4.b32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.shared.b16"), 0, "{ptx}");
    // The reads of `tile[r..r+4]` (8-byte aligned: `r` is a multiple of 8 halves).
    assert_eq!(count(&ptx, "ld.shared.v2.b32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "ld.shared.b16"), 0, "{ptx}");
}

/// `array<f32>` promises only 4-byte alignment (a host may bind an offset slice), so four
/// adjacent elements stay four accesses.
const F32_ARRAY: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x * 4u;
    b[i] = a[i] + a[i + 1u];
    b[i + 1u] = a[i + 2u] + a[i + 3u];
}
";

#[test]
fn unproven_alignment_keeps_scalar_accesses() {
    let ptx = agree(F32_ARRAY, 2, 512, Fill::F32);
    assert_eq!(count(&ptx, "ld.global.v"), 0, "{ptx}");
    assert_eq!(count(&ptx, "st.global.v"), 0, "{ptx}");
    assert_eq!(count(&ptx, "ld.global.u32"), 4, "{ptx}");
}

/// A store between two loads of one vector may alias the second load; a barrier between two
/// stores separates them: neither pair merges.
const ALIASING: &str = "
@group(0) @binding(0) var<storage, read_write> a: array<vec2<f32>>;
var<workgroup> s: array<vec2<f32>, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let i = g.x * 2u;
    let x = a[i].x;
    a[i + 1u].x = 5.0;
    let y = a[i].y;
    s[l].x = x;
    workgroupBarrier();
    s[l].y = y;
    workgroupBarrier();
    a[i] = s[63u - l];
}
";

#[test]
fn no_merging_across_possible_aliases_or_barriers() {
    let ptx = agree(ALIASING, 2, 256, Fill::F32);
    // Only the final read of `s[63 - l]` and the final store of `a[g.x]` merge.
    assert_eq!(count(&ptx, "ld.global.v"), 0, "{ptx}");
    assert_eq!(count(&ptx, "st.shared.v"), 0, "{ptx}");
    assert_eq!(count(&ptx, "ld.shared.v2.u32"), 1, "{ptx}");
    assert_eq!(count(&ptx, "st.global.v2.u32"), 1, "{ptx}");
}

/// The GEMM prefetch pattern: 16 bytes of halves, or zeros past the end, selected before a
/// join and carried around a loop, then staged with one 16-byte store per piece.
const F16_SELECT_CARRY: &str = "
enable f16;
struct Half8 { @align(16) lo: vec4<f16>, hi: vec4<f16> }
@group(0) @binding(0) var<storage, read> a: array<Half8>;
@group(0) @binding(1) var<storage, read_write> o: array<Half8>;
var<workgroup> tile: array<f16, 512>;
fn fetch(inside: bool, i: u32) -> Half8 {
    var v: Half8;
    if (inside) {
        v = a[i];
    }
    return v;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>) {
    // Pieces at and past `n` are outside (zeros).
    let n = 100u;
    var r = fetch(w.x * 64u + l < n, w.x * 64u + l);
    for (var t = 0u; t < 3u; t++) {
        let at = l * 8u;
        tile[at] = r.lo.x;
        tile[at + 1u] = r.lo.y;
        tile[at + 2u] = r.lo.z;
        tile[at + 3u] = r.lo.w;
        tile[at + 4u] = r.hi.x;
        tile[at + 5u] = r.hi.y;
        tile[at + 6u] = r.hi.z;
        tile[at + 7u] = r.hi.w;
        // Workgroup 1 reads pieces 64..159: the ones from 100 on are zeros.
        let i = w.x * 64u + (l + 17u * (t + 1u)) % 64u + (t & 1u) * 32u;
        if (t < 2u) {
            r = fetch(i < n, i);
        }
        workgroupBarrier();
        let s = (63u - l) * 8u;
        let k = (w.x * 64u + l) * 3u + t;
        o[k].lo = vec4<f16>(tile[s], tile[s + 1u], tile[s + 2u], tile[s + 3u]);
        o[k].hi = vec4<f16>(tile[s + 4u], tile[s + 5u], tile[s + 6u], tile[s + 7u]);
        workgroupBarrier();
    }
}
";

#[test]
fn f16_pieces_selected_across_joins_and_carried_by_a_loop_stay_packed() {
    // 384 pieces of o: every invocation's pieces, the zeros past piece 100 of `a` included,
    // must agree with the interpreter.
    let ptx = agree(F16_SELECT_CARRY, 2, 384, Fill::F16);
    // Before: each half of the loaded and the zero pieces was an f16 register
    // (`mov.b32 {%h, %h}, %r` after the load, `mov.b16 %h, 0x0` for zeros, repacked with
    // `mov.b32 %r, {%h, %h}` before the store).
    assert_eq!(count(&ptx, "mov.b16"), 0, "{ptx}");
    assert!(!ptx.contains("%h"), "{ptx}");
    // One store of the eight pieces per trip of the (unrolled) three-trip loop.
    assert_eq!(count(&ptx, "st.shared.v4.b32"), 3, "{ptx}");
}

/// Frontend options without the bounds policy: the merging rules on unguarded accesses; the bounds policy's cost is measured by `cargo bench --bench bounds`.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
