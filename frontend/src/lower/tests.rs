//! Lowering tests: representative WGSL, structural facts about the result, the verifier.

use super::lower_module;
use crate::ir::*;
use crate::text::module_text;
use crate::{Diagnostic, Parsed};
use naga::valid::{Capabilities, ValidationFlags, Validator};

/// Parses and validates `src` with naga directly (the project's parser is tested elsewhere).
fn parsed(src: &str) -> Parsed {
    let module = match naga::front::wgsl::parse_str(src) {
        Ok(m) => m,
        Err(e) => panic!("parse error: {}", e.emit_to_string(src)),
    };
    let caps = Capabilities::SHADER_FLOAT16
        | Capabilities::SUBGROUP
        | Capabilities::SUBGROUP_BARRIER
        | Capabilities::COOPERATIVE_MATRIX;
    let info = match Validator::new(ValidationFlags::all(), caps).validate(&module) {
        Ok(i) => i,
        Err(e) => panic!("validation error: {}", e.emit_to_string(src)),
    };
    Parsed {
        module,
        info,
        enables: Default::default(),
        file_name: "test.wgsl".into(),
        source: src.into(),
        sgm: None,
    }
}

/// Lowers `src`, checks the invariants every lowered module keeps, and returns it.
fn lower(src: &str) -> Module {
    let p = parsed(src);
    let m = match lower_module(&p) {
        Ok(m) => m,
        Err(ds) => panic!("lowering failed: {ds:#?}"),
    };
    if let Err(d) = crate::verifier::verify(&m) {
        panic!("verifier rejected the lowered module: {d:#?}\n{}", module_text(&m));
    }
    for f in &m.functions {
        assert!(
            matches!(
                f.body.term,
                Terminator::Return(_) | Terminator::Unreachable | Terminator::Discard
            ),
            "{}: body ends in {:?}",
            f.name,
            f.body.term
        );
        visit(&f.body, &mut |i| {
            assert!(!i.span.is_unknown(), "{}: no span on {:?}", f.name, i.op);
        });
    }
    m
}

/// Lowering errors for `src`.
fn lower_err(src: &str) -> Vec<Diagnostic> {
    match lower_module(&parsed(src)) {
        Ok(m) => panic!("expected an error, got\n{}", module_text(&m)),
        Err(ds) => ds,
    }
}

/// Calls `f` on every instruction, nested ones included.
fn visit(b: &Block, f: &mut impl FnMut(&Inst)) {
    for i in &b.insts {
        f(i);
        for nb in i.op.blocks() {
            visit(nb, f);
        }
    }
}

/// Every instruction of function `name`.
fn insts<'a>(m: &'a Module, name: &str) -> Vec<&'a Inst> {
    let f = m.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no fn {name}"));
    let mut out = Vec::new();
    fn go<'a>(b: &'a Block, out: &mut Vec<&'a Inst>) {
        for i in &b.insts {
            out.push(i);
            for nb in i.op.blocks() {
                go(nb, out);
            }
        }
    }
    go(&f.body, &mut out);
    out
}

fn count(m: &Module, name: &str, pred: impl Fn(&Op) -> bool) -> usize {
    insts(m, name).iter().filter(|i| pred(&i.op)).count()
}

fn text_has(m: &Module, needles: &[&str]) {
    let t = module_text(m);
    for n in needles {
        assert!(t.contains(n), "missing `{n}` in\n{t}");
    }
}

const DOUBLING: &str = r#"
@group(0) @binding(0) var<storage, read_write> 数据: array<u32>;

@compute @workgroup_size(4)
fn 加倍(@builtin(global_invocation_id) 序: vec3<u32>) {
    let i = 序.x;
    if i < arrayLength(&数据) {
        数据[i] = 数据[i] * 2u;
    }
}
"#;

#[test]
fn doubling_kernel() {
    let m = lower(DOUBLING);
    assert_eq!(m.entry_points.len(), 1);
    let e = &m.entry_points[0];
    assert_eq!(e.name, "加倍");
    assert_eq!(e.stage, Stage::Compute);
    assert_eq!(e.workgroup_size, [4, 1, 1]);
    let f = m.function(e.function);
    assert_eq!(f.name, "加倍");
    assert_eq!(f.params.len(), 1);
    assert_eq!(f.params[0].name, "序");
    assert_eq!(f.params[0].binding, Some(IoBinding::BuiltIn(BuiltIn::GlobalInvocationId)));
    assert_eq!(m.globals.len(), 1);
    let g = &m.globals[0];
    assert_eq!(g.name, "数据");
    assert_eq!(g.space, AddressSpace::Storage { writable: true });
    assert_eq!(g.binding, Some(ResourceBinding { group: 0, binding: 0 }));
    let u32_t = m.types.find(&Type::Scalar(Scalar::U32)).expect("u32 type");
    assert_eq!(*m.types.get(g.ty), Type::Array { base: u32_t, len: None, stride: 4 });
    assert_eq!(count(&m, "加倍", |o| matches!(o, Op::ArrayLength(_))), 1);
    assert_eq!(count(&m, "加倍", |o| matches!(o, Op::Store { .. })), 1);
    assert_eq!(count(&m, "加倍", |o| matches!(o, Op::If { .. })), 1);
    assert_eq!(count(&m, "加倍", |o| matches!(o, Op::Binary(BinaryOperator::Multiply, ..))), 1);
    // naga appends `return` to both arms of a trailing `if`, so the body ends unreachable.
    assert_eq!(f.body.term, Terminator::Unreachable);
    let Some(Inst { op: Op::If { then_, else_, .. }, .. }) = f.body.insts.last() else {
        panic!("last instruction is not the if")
    };
    assert_eq!(then_.term, Terminator::Return(None));
    assert_eq!(else_.term, Terminator::Return(None));
    text_has(
        &m,
        &[
            "global g0 数据: array<u32>/*stride 4*/ storage(read_write) @group(0) @binding(0)",
            "entry 加倍 compute @workgroup_size(4, 1, 1) = f0",
            "fn f0 加倍(%0.序: vec3<u32> @builtin(GlobalInvocationId))",
            ".i: u32 = extract %0.序, 0",
            "const 2u",
        ],
    );
}

const LOOPS: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn loops() {
    var total = 0;
    for (var i = 0; i < 10; i++) {
        if i == 3 { continue; }
        if i == 8 { break; }
        total += i;
    }
    var j = 0u;
    while j < 5u {
        j += 1u;
    }
    var k = 0;
    loop {
        k += 2;
        if k > 100 { break; }
        continuing {
            k += 1;
            break if k > 50;
        }
    }
    loop {
        k -= 1;
        continuing {
            break if k < 0;
        }
    }
    out[0] = total;
    out[1] = i32(j);
    out[2] = k;
}
"#;

#[test]
fn loops_of_every_form() {
    let m = lower(LOOPS);
    let loops: Vec<&Inst> =
        insts(&m, "loops").into_iter().filter(|i| matches!(i.op, Op::Loop { .. })).collect();
    assert_eq!(loops.len(), 4);
    for l in &loops {
        let Op::Loop { init, body, continuing, results, .. } = &l.op else { unreachable!() };
        assert!(init.is_empty() && results.is_empty() && body.params.is_empty());
        assert!(continuing.params.is_empty());
        assert_eq!(body.term, Terminator::Yield(vec![]), "body falls to continuing");
        assert_eq!(continuing.term, Terminator::Yield(vec![]));
    }
    // The third loop's `break if` is computed in its continuing block.
    let Op::Loop { continuing, break_if: Some(b), .. } = &loops[2].op else {
        panic!("third loop has no break_if")
    };
    assert!(continuing.insts.iter().any(|i| i.result == Some(*b)), "break_if not in continuing");
    let t = module_text(&m);
    assert!(t.contains("continue"), "{t}");
    assert!(t.contains("break"), "{t}");
    assert!(t.contains("break_if"), "{t}");
    // Locals: total, i, j, k, each stored once at the top before any loop.
    let f = &m.functions[0];
    let names: Vec<&str> = f.locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["total", "i", "j", "k"]);
    let first_loop = f.body.insts.iter().position(|i| matches!(i.op, Op::Loop { .. })).unwrap();
    let top_stores =
        f.body.insts[..first_loop].iter().filter(|i| matches!(i.op, Op::Store { .. })).count();
    assert!(top_stores >= 4, "{t}");
}

const SWITCH: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn sw(@builtin(global_invocation_id) id: vec3<u32>) {
    var r = 0u;
    switch id.x {
        case 0u: { r = 10u; }
        case 1u, 2u: { r = 20u; }
        case 3u, default: { r = 30u; }
        case 7u: { if id.y == 0u { break; } r = 70u; }
    }
    switch i32(id.y) {
        case -1: { return; }
        default: { return; }
    }
    out[0] = r;
}
"#;

#[test]
fn switch_merges_fall_through_cases() {
    let m = lower(SWITCH);
    let sws: Vec<&Inst> =
        insts(&m, "sw").into_iter().filter(|i| matches!(i.op, Op::Switch { .. })).collect();
    assert_eq!(sws.len(), 2);
    let Op::Switch { cases, .. } = &sws[0].op else { unreachable!() };
    let sel: Vec<(Vec<i64>, bool)> = cases.iter().map(|c| (c.values.clone(), c.default)).collect();
    assert_eq!(sel, [(vec![0], false), (vec![1, 2], false), (vec![3], true), (vec![7], false)]);
    let Op::Switch { cases, .. } = &sws[1].op else { unreachable!() };
    assert_eq!(cases[0].values, [-1]);
    assert!(cases[1].default);
    // Both arms of the second switch return, so the store after it is dropped.
    let f = &m.functions[0];
    assert_eq!(f.body.term, Terminator::Unreachable);
    assert!(!matches!(f.body.insts.last().map(|i| &i.op), Some(Op::Store { .. })));
    text_has(&m, &["case 1, 2 {", "case 3, default {", "break"]);
}

const STRUCTS: &str = r#"
struct Particle {
    pos: vec3<f32>,
    mass: f32,
    vel: vec2<f32>,
    flags: u32,
}

struct Params {
    dt: f32,
    count: u32,
    scale: vec4<f32>,
    m: mat4x4<f32>,
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= params.count { return; }
    var p = particles[i];
    p.pos += vec3<f32>(p.vel, 0.0) * params.dt;
    let v4 = params.m * vec4<f32>(p.pos, 1.0);
    let s = v4 * 2.0;
    p.mass = s.w + params.scale.x;
    particles[i] = p;
    particles[i].flags = particles[i].flags | 1u;
}
"#;

#[test]
fn structs_in_storage_and_uniform_buffers() {
    let m = lower(STRUCTS);
    let particle = m
        .types
        .iter()
        .find_map(|(_, t)| match t {
            Type::Struct { name, members, size, align } if name == "Particle" => {
                Some((members.clone(), *size, *align))
            }
            _ => None,
        })
        .expect("Particle struct");
    let offsets: Vec<u32> = particle.0.iter().map(|m| m.offset).collect();
    // WGSL layout by hand: vec3 at 0 (align 16), f32 at 12, vec2 at 16, u32 at 24; size 32.
    assert_eq!(offsets, [0, 12, 16, 24]);
    assert_eq!((particle.1, particle.2), (32, 16));
    let g = &m.globals[1];
    assert_eq!(g.space, AddressSpace::Uniform);
    assert_eq!(g.binding, Some(ResourceBinding { group: 0, binding: 1 }));
    let Type::Array { stride, len: None, .. } = m.types.get(m.globals[0].ty) else {
        panic!("particles is not a runtime array")
    };
    assert_eq!(*stride, 32);
    // vec3 * f32 splats the scalar; mat4x4 * vec4 keeps the linear-algebra form.
    assert!(count(&m, "step", |o| matches!(o, Op::Splat(_))) >= 2);
    let f = &m.functions[0];
    let mat_mul = insts(&m, "step").into_iter().any(|i| match i.op {
        Op::Binary(BinaryOperator::Multiply, a, _) => {
            matches!(m.types.get(f.ty(a)), Type::Matrix { .. })
        }
        _ => false,
    });
    assert!(mat_mul);
    assert!(count(&m, "step", |o| matches!(o, Op::AccessIndex(..))) >= 2);
    assert!(count(&m, "step", |o| matches!(o, Op::Extract(..))) >= 2);
    text_has(&m, &["struct t", "Particle size 32 align 16", "@12 mass: f32"]);
}

const ATOMICS: &str = r#"
struct Counters { hits: atomic<u32>, low: atomic<i32> }
@group(0) @binding(0) var<storage, read_write> c: Counters;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> local_count: atomic<u32>;

@compute @workgroup_size(32)
fn count(@builtin(local_invocation_index) li: u32) {
    let old = atomicAdd(&c.hits, 1u);
    atomicSub(&c.hits, 1u);
    atomicMin(&c.low, -5);
    atomicMax(&c.low, 5);
    atomicAnd(&c.hits, 0xffu);
    atomicOr(&c.hits, 1u);
    atomicXor(&c.hits, 2u);
    let prev = atomicExchange(&c.hits, 7u);
    let r = atomicCompareExchangeWeak(&c.hits, 7u, 8u);
    atomicStore(&local_count, 0u);
    workgroupBarrier();
    atomicAdd(&local_count, 1u);
    workgroupBarrier();
    let n = atomicLoad(&local_count);
    if r.exchanged { out[li] = old + prev + n + r.old_value; }
}
"#;

#[test]
fn atomics() {
    let m = lower(ATOMICS);
    let ops: Vec<AtomicOp> = insts(&m, "count")
        .into_iter()
        .filter_map(|i| match i.op {
            Op::Atomic { op, .. } => Some(op),
            _ => None,
        })
        .collect();
    use AtomicOp::*;
    assert_eq!(ops, [Add, Sub, Min, Max, And, Or, Xor, Exchange, Add]);
    // Every atomic defines its old value, used or not.
    for i in insts(&m, "count") {
        if matches!(i.op, Op::Atomic { .. } | Op::AtomicCompareExchange { .. }) {
            assert!(i.result.is_some());
        }
    }
    let cx: Vec<&Inst> = insts(&m, "count")
        .into_iter()
        .filter(|i| matches!(i.op, Op::AtomicCompareExchange { .. }))
        .collect();
    assert_eq!(cx.len(), 1);
    let f = &m.functions[0];
    let Type::Struct { name, members, .. } = m.types.get(f.ty(cx[0].result.unwrap())) else {
        panic!("compare-exchange result is not a struct")
    };
    assert!(name.starts_with("__atomic_compare_exchange_result"), "{name}");
    assert_eq!(members[0].name, "old_value");
    assert_eq!(members[1].name, "exchanged");
    assert_eq!(count(&m, "count", |o| matches!(o, Op::Barrier(b) if *b == Barrier::WORK_GROUP)), 2);
    assert_eq!(m.globals[2].space, AddressSpace::Workgroup);
    text_has(&m, &["atomic add", "atomic_cmpxchg", "barrier"]);
}

const CALLS: &str = r#"
var<private> seed: u32 = 12345u;
var<private> table: array<f32, 4> = array<f32, 4>(1.0, 2.0, 3.0, 4.0);
const SCALE: f32 = 0.5;
const OFFSETS = vec2<i32>(1, -1);
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

fn bump(p: ptr<function, u32>, by: u32) {
    *p = *p + by;
}

fn next_random() -> u32 {
    seed = seed * 1103515245u + 12345u;
    return seed;
}

fn pick(i: u32) -> f32 {
    var t = table;
    return t[i % 4u] * SCALE;
}

@compute @workgroup_size(8, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = gid.x;
    bump(&x, 3u);
    next_random();
    let r = next_random();
    out[gid.x] = pick(x + r) + f32(OFFSETS.x);
}
"#;

#[test]
fn user_functions_private_globals_and_constants() {
    let m = lower(CALLS);
    assert_eq!(m.entry_points[0].workgroup_size, [8, 2, 1]);
    // Regular functions first, entry points after.
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["bump", "next_random", "pick", "main"]);
    assert_eq!(m.entry_points[0].function, FuncId(3));
    let bump = &m.functions[0];
    assert!(matches!(
        m.types.get(bump.ty(bump.params[0].value)),
        Type::Pointer { space: AddressSpace::Function, .. }
    ));
    assert_eq!(count(&m, "main", |o| matches!(o, Op::Call(FuncId(0), _))), 1);
    assert_eq!(count(&m, "main", |o| matches!(o, Op::Call(FuncId(1), a) if a.is_empty())), 2);
    // Calls define a result exactly when the callee returns one, used or not.
    for i in insts(&m, "main") {
        if let Op::Call(callee, _) = i.op {
            assert_eq!(i.result.is_some(), m.function(callee).result.is_some());
        }
    }
    assert_eq!(m.globals[0].space, AddressSpace::Private);
    assert_eq!(m.globals[0].init, Some(ConstValue::U32(12345)));
    let Some(ConstValue::Composite(_, parts)) = &m.globals[1].init else {
        panic!("table has no composite init")
    };
    assert_eq!(parts.len(), 4);
    assert_eq!(parts[2], ConstValue::F32(3.0f32.to_bits()));
    let scale = m.constants.iter().find(|c| c.name == "SCALE").expect("SCALE kept");
    assert_eq!(scale.value, ConstValue::F32(0.5f32.to_bits()));
    // Uses of SCALE are inlined as constants.
    assert!(count(&m, "pick", |o| *o == Op::Const(ConstValue::F32(0.5f32.to_bits()))) >= 1);
    // The runtime-indexed array copy is a local accessed through its address.
    assert!(count(&m, "pick", |o| matches!(o, Op::LocalAddr(_))) >= 1);
    text_has(&m, &["global g0 seed: u32 private = 12345u", "const c0 SCALE: f32 = 0.5f"]);
}

const WORKGROUP: &str = r#"
var<workgroup> tile: array<f32, 64>;
var<workgroup> done: bool;
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;

@compute @workgroup_size(64)
fn reduce(@builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(workgroup_id) wid: vec3<u32>) {
    tile[lid.x] = input[wid.x * 64u + lid.x];
    if lid.x == 0u { done = false; }
    workgroupBarrier();
    for (var s = 32u; s > 0u; s >>= 1u) {
        if lid.x < s { tile[lid.x] += tile[lid.x + s]; }
        workgroupBarrier();
    }
    storageBarrier();
    let flag = workgroupUniformLoad(&done);
    if lid.x == 0u && !flag { sums[wid.x] = tile[0]; }
}
"#;

#[test]
fn workgroup_arrays_and_barriers() {
    let m = lower(WORKGROUP);
    assert_eq!(m.globals[0].space, AddressSpace::Workgroup);
    let f32_t = m.types.find(&Type::Scalar(Scalar::F32)).unwrap();
    assert_eq!(
        *m.types.get(m.globals[0].ty),
        Type::Array { base: f32_t, len: Some(64), stride: 4 }
    );
    assert_eq!(*m.types.get(m.globals[1].ty), Type::Scalar(Scalar::Bool));
    assert_eq!(m.globals[2].space, AddressSpace::Storage { writable: false });
    assert_eq!(
        count(&m, "reduce", |o| matches!(o, Op::Barrier(b) if *b == Barrier::WORK_GROUP)),
        2
    );
    assert_eq!(count(&m, "reduce", |o| matches!(o, Op::Barrier(b) if *b == Barrier::STORAGE)), 1);
    assert_eq!(count(&m, "reduce", |o| matches!(o, Op::WorkgroupUniformLoad(_))), 1);
    // `s >>= 1u` shifts a scalar by a scalar.
    assert!(count(&m, "reduce", |o| matches!(o, Op::Binary(BinaryOperator::ShiftRight, ..))) == 1);
    // naga short-circuits `&&` through an unnamed bool local and an `if`.
    let f = &m.functions[0];
    assert_eq!(f.locals.len(), 2);
    assert_eq!(*m.types.get(f.locals[1].ty), Type::Scalar(Scalar::Bool));
}

const SUBGROUPS: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> fout: array<f32>;

@compute @workgroup_size(32)
fn sg(@builtin(global_invocation_id) gid: vec3<u32>,
      @builtin(subgroup_invocation_id) lane: u32,
      @builtin(subgroup_size) size: u32) {
    let x = f32(gid.x);
    let total = subgroupAdd(x);
    let prefix = subgroupExclusiveAdd(gid.x);
    let incl = subgroupInclusiveMul(x);
    let mx = subgroupMax(i32(lane));
    let every = subgroupAll(lane < size);
    let ballot = subgroupBallot(lane % 2u == 0u);
    let first = subgroupBroadcastFirst(gid.x);
    let b3 = subgroupBroadcast(gid.x, 3u);
    let sh = subgroupShuffle(x, lane ^ 1u);
    let dn = subgroupShuffleDown(gid.x, 1u);
    let up = subgroupShuffleUp(gid.x, 1u);
    let xr = subgroupShuffleXor(gid.x, 4u);
    subgroupBarrier();
    out[gid.x] = prefix + ballot.x + first + b3 + dn + up + xr + u32(mx) + u32(every);
    fout[gid.x] = total + incl + sh;
}
"#;

#[test]
fn subgroup_operations() {
    let m = lower(SUBGROUPS);
    let f = &m.functions[0];
    assert_eq!(f.params[1].binding, Some(IoBinding::BuiltIn(BuiltIn::SubgroupInvocationId)));
    assert_eq!(f.params[2].binding, Some(IoBinding::BuiltIn(BuiltIn::SubgroupSize)));
    let coll: Vec<(SubgroupOperation, CollectiveOperation)> = insts(&m, "sg")
        .into_iter()
        .filter_map(|i| match i.op {
            Op::SubgroupCollective { op, kind, .. } => Some((op, kind)),
            _ => None,
        })
        .collect();
    use CollectiveOperation::*;
    assert_eq!(
        coll,
        [
            (SubgroupOperation::Add, Reduce),
            (SubgroupOperation::Add, ExclusiveScan),
            (SubgroupOperation::Mul, InclusiveScan),
            (SubgroupOperation::Max, Reduce),
            (SubgroupOperation::All, Reduce),
        ]
    );
    let ballots: Vec<&Inst> = insts(&m, "sg")
        .into_iter()
        .filter(|i| matches!(i.op, Op::SubgroupBallot(Some(_))))
        .collect();
    assert_eq!(ballots.len(), 1);
    assert_eq!(
        *m.types.get(f.ty(ballots[0].result.unwrap())),
        Type::Vector { size: 4, scalar: Scalar::U32 }
    );
    let modes: Vec<(GatherMode, bool)> = insts(&m, "sg")
        .into_iter()
        .filter_map(|i| match i.op {
            Op::SubgroupGather { mode, index, .. } => Some((mode, index.is_some())),
            _ => None,
        })
        .collect();
    use GatherMode as G;
    assert_eq!(
        modes,
        [
            (G::BroadcastFirst, false),
            (G::Broadcast, true),
            (G::Shuffle, true),
            (G::ShuffleDown, true),
            (G::ShuffleUp, true),
            (G::ShuffleXor, true),
        ]
    );
    assert_eq!(count(&m, "sg", |o| matches!(o, Op::Barrier(b) if *b == Barrier::SUB_GROUP)), 1);
}

const F16: &str = r#"
enable f16;
@group(0) @binding(0) var<storage, read_write> h: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;

@compute @workgroup_size(16)
fn half(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = h[gid.x];
    let a = abs(v) * 2.0h + vec2<f16>(1.5h, -0.25h);
    let s = sqrt(max(a, vec2<f16>(0.0h)));
    let f = f32(s.x) + f32(dot(s, v));
    h[gid.x] = clamp(s, vec2(0.0h), vec2(1.0h));
    w[gid.x] = bitcast<u32>(f) ^ u32(bitcast<i32>(f)) ^ pack4x8unorm(vec4<f32>(f));
}
"#;

#[test]
fn f16_math() {
    let m = lower(F16);
    let v2h = m.types.find(&Type::Vector { size: 2, scalar: Scalar::F16 }).expect("vec2<f16>");
    assert!(
        matches!(m.types.get(m.globals[0].ty), Type::Array { base, stride: 4, .. } if *base == v2h)
    );
    let maths: Vec<MathFunction> = insts(&m, "half")
        .into_iter()
        .filter_map(|i| match &i.op {
            Op::Math(f, _) => Some(*f),
            _ => None,
        })
        .collect();
    use MathFunction as M;
    for want in [M::Abs, M::Sqrt, M::Max, M::Dot, M::Clamp, M::Pack4x8unorm] {
        assert!(maths.contains(&want), "{want:?} missing from {maths:?}");
    }
    // The constant vector is one constant: 1.5h is 0x3e00 (sign 0, exponent 15, mantissa
    // 0x200), -0.25h is 0xb400 (sign 1, exponent 13, mantissa 0).
    let pair = ConstValue::Composite(v2h, vec![ConstValue::F16(0x3e00), ConstValue::F16(0xb400)]);
    assert_eq!(count(&m, "half", |o| *o == Op::Const(pair.clone())), 1);
    // So are the splatted zeros of `max(a, vec2<f16>(0.0h))` and `clamp(s, vec2(0.0h), ..)`.
    let zeros = ConstValue::Composite(v2h, vec![ConstValue::F16(0); 2]);
    assert_eq!(count(&m, "half", |o| *o == Op::Const(zeros.clone())), 2);
    assert_eq!(count(&m, "half", |o| matches!(o, Op::Bitcast(_))), 2);
    assert!(count(&m, "half", |o| matches!(o, Op::Convert(_, Scalar::F32))) >= 2);
    // `abs(v) * 2.0h` splats the scalar operand.
    assert!(count(&m, "half", |o| matches!(o, Op::Splat(_))) >= 1);
}

const GRAPHICS: &str = r#"
struct VertexIn {
    @location(0) pos: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @builtin(vertex_index) vi: u32,
}
struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) layer: u32,
}
struct Globals { tint: vec4<f32>, transform: mat3x3<f32> }

@group(0) @binding(0) var<uniform> globals: Globals;
@group(1) @binding(0) var tex: texture_2d<f32>;
@group(1) @binding(1) var samp: sampler;
@group(1) @binding(2) var depth: texture_depth_2d;
@group(1) @binding(3) var cmp: sampler_comparison;
@group(1) @binding(4) var storage_tex: texture_storage_2d<rgba8unorm, write>;

@vertex
fn vs(input: VertexIn) -> VertexOut {
    var out: VertexOut;
    let p = globals.transform * vec3<f32>(input.pos, 1.0);
    out.clip = vec4<f32>(p.xy, 0.0, 1.0);
    out.uv = input.uv;
    out.layer = input.vi % 2u;
    return out;
}

@fragment
fn fs(v: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    if v.uv.x < 0.0 { discard; }
    let c = textureSample(tex, samp, v.uv);
    let l = textureSampleLevel(tex, samp, v.uv, 2.0);
    let b = textureSampleBias(tex, samp, v.uv, 0.5);
    let g = textureSampleGrad(tex, samp, v.uv, dpdx(v.uv), dpdy(v.uv));
    let d = textureSampleCompare(depth, cmp, v.uv, 0.5);
    let gathered = textureGather(1, tex, samp, v.uv);
    let texel = textureLoad(tex, vec2<i32>(1, 2), 0);
    let dims = textureDimensions(tex);
    let levels = textureNumLevels(tex);
    let w = fwidth(v.uv.x);
    textureStore(storage_tex, vec2<u32>(0u, 0u), c);
    var color = (c + l + b + g + gathered + texel) * globals.tint * d;
    if !front { color = color.bgra; }
    return color * f32(dims.x + levels) * w;
}
"#;

#[test]
fn vertex_and_fragment_with_textures() {
    let m = lower(GRAPHICS);
    let stages: Vec<(&str, Stage)> =
        m.entry_points.iter().map(|e| (e.name.as_str(), e.stage)).collect();
    assert_eq!(stages, [("vs", Stage::Vertex), ("fs", Stage::Fragment)]);
    assert_eq!(m.entry_points[0].workgroup_size, [0, 0, 0]);
    // Struct I/O: bindings on the members.
    let vin = m.functions[0].params[0].value;
    let Type::Struct { members, .. } = m.types.get(m.functions[0].ty(vin)) else {
        panic!("vertex input is not a struct")
    };
    assert_eq!(
        members[0].binding,
        Some(IoBinding::Location {
            location: 0,
            interpolation: Some(Interpolation::Perspective),
            sampling: Some(Sampling::Center),
            blend_src: None
        })
    );
    assert_eq!(members[2].binding, Some(IoBinding::BuiltIn(BuiltIn::VertexIndex)));
    let vs_res = m.functions[0].result.as_ref().expect("vs result");
    let Type::Struct { members, .. } = m.types.get(vs_res.ty) else { panic!("vs result") };
    assert!(matches!(members[0].binding, Some(IoBinding::BuiltIn(BuiltIn::Position { .. }))));
    assert!(matches!(
        members[2].binding,
        Some(IoBinding::Location { location: 1, interpolation: Some(Interpolation::Flat), .. })
    ));
    let fs = &m.functions[1];
    assert_eq!(fs.params[1].binding, Some(IoBinding::BuiltIn(BuiltIn::FrontFacing)));
    assert!(matches!(
        fs.result.as_ref().and_then(|r| r.binding.clone()),
        Some(IoBinding::Location { location: 0, .. })
    ));
    // Textures and samplers are handle values, not pointers.
    let tex_addr = insts(&m, "fs")
        .into_iter()
        .find(|i| i.op == Op::GlobalAddr(GlobalId(1)))
        .and_then(|i| i.result)
        .expect("texture address");
    assert!(matches!(
        m.types.get(fs.ty(tex_addr)),
        Type::Image { dim: ImageDimension::D2, arrayed: false, .. }
    ));
    assert_eq!(m.globals[1].space, AddressSpace::Handle);
    assert_eq!(*m.types.get(m.globals[2].ty), Type::Sampler { comparison: false });
    let levels: Vec<String> = insts(&m, "fs")
        .into_iter()
        .filter_map(|i| match &i.op {
            Op::ImageSample { level, depth_ref, gather, .. } => Some(format!(
                "{}{}{}",
                match level {
                    SampleLevel::Auto => "auto",
                    SampleLevel::Zero => "zero",
                    SampleLevel::Exact(_) => "exact",
                    SampleLevel::Bias(_) => "bias",
                    SampleLevel::Gradient { .. } => "grad",
                },
                if depth_ref.is_some() { "+ref" } else { "" },
                gather.map(|g| format!("+gather{g}")).unwrap_or_default()
            )),
            _ => None,
        })
        .collect();
    assert_eq!(levels, ["auto", "exact", "bias", "grad", "auto+ref", "zero+gather1"]);
    assert_eq!(count(&m, "fs", |o| matches!(o, Op::ImageLoad { level: Some(_), .. })), 1);
    assert_eq!(count(&m, "fs", |o| matches!(o, Op::ImageStore { .. })), 1);
    assert_eq!(
        count(&m, "fs", |o| matches!(o, Op::ImageQuery(_, ImageQuery::Size { level: None }))),
        1
    );
    assert_eq!(count(&m, "fs", |o| matches!(o, Op::ImageQuery(_, ImageQuery::NumLevels))), 1);
    assert!(count(&m, "fs", |o| matches!(o, Op::Derivative(..))) >= 3);
    assert_eq!(count(&m, "fs", |o| matches!(o, Op::Swizzle(_, p) if p == &[2, 1, 0, 3])), 1);
    // `discard` inside an if.
    let discards = insts(&m, "fs")
        .into_iter()
        .filter(|i| matches!(&i.op, Op::If { then_, .. } if then_.term == Terminator::Discard))
        .count();
    assert_eq!(discards, 1);
    text_has(&m, &["entry vs vertex = f0", "entry fs fragment = f1", "@builtin(FrontFacing)"]);
}

const COOP: &str = r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(32)
fn mma() {
    let ma = coopLoadT<coop_mat16x16<f16, A>>(&a[0], 16u);
    let mb = coopLoad<coop_mat16x16<f16, B>>(&b[0]);
    var acc = coopLoadT<coop_mat16x16<f32, C>>(&c[0], 16u);
    acc = coopMultiplyAdd(ma, mb, acc);
    coopStoreT(acc, &c[0], 16u);
}
"#;

#[test]
fn cooperative_matrices() {
    let m = lower(COOP);
    let f = &m.functions[0];
    let loads: Vec<(bool, Type)> = insts(&m, "mma")
        .into_iter()
        .filter_map(|i| match i.op {
            Op::CoopLoad { row_major, .. } => {
                Some((row_major, m.types.get(f.ty(i.result.unwrap())).clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        loads,
        [
            (
                true,
                Type::CoopMatrix { columns: 16, rows: 16, elem: CoopElem::F16, role: CoopRole::A }
            ),
            (
                false,
                Type::CoopMatrix { columns: 16, rows: 16, elem: CoopElem::F16, role: CoopRole::B }
            ),
            (
                true,
                Type::CoopMatrix { columns: 16, rows: 16, elem: CoopElem::F32, role: CoopRole::C }
            ),
        ]
    );
    assert_eq!(count(&m, "mma", |o| matches!(o, Op::CoopMultiplyAdd(..))), 1);
    assert_eq!(count(&m, "mma", |o| matches!(o, Op::CoopStore { row_major: true, .. })), 1);
    // The default stride of the plain load is a constant (the row count).
    assert!(count(&m, "mma", |o| *o == Op::Const(ConstValue::U32(16))) >= 1);
}

#[test]
fn unsupported_inputs_are_diagnostics() {
    // Task/mesh entry points need naga capabilities the validator here does not grant, so the
    // unsupported paths are reached through hand-edited modules.
    let mut p = parsed(DOUBLING);
    p.module.entry_points[0].stage = naga::ShaderStage::Mesh;
    let ds = lower_module(&p).expect_err("mesh stage must be rejected");
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].kind, crate::DiagKind::Unsupported);
    assert_eq!(ds[0].context.as_deref(), Some("加倍"));
    assert!(ds[0].span.is_some() && ds[0].help.is_some());

    // A 16-bit integer literal in a function.
    let mut p = parsed(DOUBLING);
    let f = &mut p.module.entry_points[0].function;
    let lit = f
        .expressions
        .iter()
        .find_map(|(h, e)| {
            matches!(e, naga::Expression::Literal(naga::Literal::U32(2))).then_some(h)
        })
        .expect("2u literal");
    f.expressions[lit] = naga::Expression::Literal(naga::Literal::U16(2));
    let ds = lower_module(&p).expect_err("u16 must be rejected");
    assert_eq!(ds[0].kind, crate::DiagKind::Unsupported);
    assert!(ds[0].message.contains("narrower than 32 bits"), "{}", ds[0].message);
    assert!(ds[0].span.is_some());
    assert_eq!(ds[0].context.as_deref(), Some("加倍"));

    // An unresolved override.
    let mut p = parsed(DOUBLING);
    let u32_ty = p.module.types.iter().find(|(_, t)| t.name.is_none()).unwrap().0;
    let o = p.module.overrides.append(
        naga::Override { name: Some("N".into()), id: None, ty: u32_ty, init: None },
        naga::Span::UNDEFINED,
    );
    p.module.entry_points[0].function.expressions[lit] = naga::Expression::Override(o);
    let ds = lower_err_parsed(&p);
    assert_eq!(ds[0].kind, crate::DiagKind::Override);

    // Push constants (immediates) lower to their own address space, without a binding.
    let m = crate::compile(
        "t.wgsl",
        "var<immediate> k: u32;
        @group(0) @binding(0) var<storage, read_write> o: array<u32>;
        @compute @workgroup_size(1) fn main() { o[0] = k; }",
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let k = m.globals.iter().find(|g| g.name == "k").expect("the immediate global");
    assert_eq!((k.space, k.binding), (AddressSpace::Immediate, None));
    // Mesh-shading task payloads stay unsupported.
    let ds = lower_err_with(DOUBLING, |m| {
        let (h, _) = m.global_variables.iter().next().unwrap();
        m.global_variables[h].space = naga::AddressSpace::TaskPayload;
        m.global_variables[h].binding = None;
    });
    assert_eq!(ds[0].kind, crate::DiagKind::Unsupported);
    assert!(ds[0].message.contains("task payloads"), "{}", ds[0].message);
    assert!(ds[0].span.is_some());

    // textureSampleBaseClampToEdge.
    let ds = lower_err(
        r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment fn f(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return textureSampleBaseClampToEdge(t, s, uv);
}
"#,
    );
    assert_eq!(ds[0].kind, crate::DiagKind::Unsupported);
    assert_eq!(ds[0].context.as_deref(), Some("f"));
    assert!(ds[0].span.is_some());
}

fn lower_err_parsed(p: &Parsed) -> Vec<Diagnostic> {
    match lower_module(p) {
        Ok(m) => panic!("expected an error, got\n{}", module_text(&m)),
        Err(ds) => ds,
    }
}

fn lower_err_with(src: &str, edit: impl FnOnce(&mut naga::Module)) -> Vec<Diagnostic> {
    let mut p = parsed(src);
    edit(&mut p.module);
    lower_err_parsed(&p)
}

#[test]
fn spans_point_at_the_source() {
    let m = lower(DOUBLING);
    let f = &m.functions[0];
    let store =
        insts(&m, "加倍").into_iter().find(|i| matches!(i.op, Op::Store { .. })).expect("store");
    let text = &DOUBLING[store.span.start as usize..store.span.end as usize];
    assert!(text.starts_with("数据[i] = 数据[i] * 2u"), "{text}");
    assert!(!f.span.is_unknown());
    assert!(!m.globals[0].span.is_unknown());
}

const DEAD_ENDS: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

fn forever(x: i32) -> i32 {
    var i = x;
    loop {
        i += 1;
        if i > 10 { return i; }
    }
    return -1;
}

fn both(x: i32) -> i32 {
    if x > 0 { return 1; } else { return 2; }
}

fn switch_in_loop(x: i32) -> i32 {
    var n = 0;
    loop {
        switch x {
            case 0: { break; }
            default: { n += 1; if n > 3 { return n; } continue; }
        }
        n += 10;
    }
    return -1;
}

@compute @workgroup_size(1)
fn main() {
    out[0] = forever(1) + both(2) + switch_in_loop(3);
}
"#;

#[test]
fn blocks_that_cannot_fall_through_end_unreachable() {
    let m = lower(DEAD_ENDS);
    // A loop with no `break` never completes: the `return -1` after it is dropped and the
    // body ends unreachable.
    let forever = &m.functions[0];
    assert_eq!(forever.body.term, Terminator::Unreachable);
    assert!(matches!(forever.body.insts.last().map(|i| &i.op), Some(Op::Loop { .. })));
    // Both arms return.
    let both = &m.functions[1];
    assert_eq!(both.body.term, Terminator::Unreachable);
    // `break` in a switch leaves the switch, not the loop: the loop still never completes.
    let sil = &m.functions[2];
    assert_eq!(sil.body.term, Terminator::Unreachable);
    let Some(Inst { op: Op::Loop { body, .. }, .. }) = sil.body.insts.last() else {
        panic!("no loop")
    };
    let Some(Inst { op: Op::Switch { cases, .. }, .. }) =
        body.insts.iter().find(|i| matches!(i.op, Op::Switch { .. }))
    else {
        panic!("no switch")
    };
    assert_eq!(cases[0].body.term, Terminator::Break(vec![]));
    assert_eq!(cases[1].body.term, Terminator::Continue(vec![]));
    // The statement after the switch is kept: the `break` case falls out of the switch.
    assert_eq!(body.term, Terminator::Yield(vec![]));
    assert_eq!(m.functions[3].body.term, Terminator::Return(None));
}

const MISC: &str = r#"
const N = 4;
const TABLE = array<u32, 4>(10u, 20u, 30u, 40u);
struct Pair { a: u32, b: f32 }
const P = Pair(1u, 2.0);
struct Buf { count: u32, data: array<vec4<f32>> }
@group(0) @binding(0) var<storage, read_write> buf: Buf;
var<private> acc: vec4<f32>;

fn touch(p: ptr<private, vec4<f32>>, i: u32) -> f32 {
    (*p)[i] += 1.0;
    return (*p).x;
}

@compute @workgroup_size(N)
fn misc(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&buf.data);
    let t = TABLE[gid.x % 4u];
    let m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
    let ms = m * 2.0;
    let vm = vec2<f32>(1.0, 1.0) * m;
    let sh = vec2<u32>(1u, 2u) << vec2<u32>(3u);
    let sel = select(vec2<f32>(0.0), vec2<f32>(1.0), gid.x > 2u);
    let parts = modf(1.5);
    let b = bool(gid.y);
    let k = N * 2;
    let q = P.b + f32(P.a);
    let v = vec4<f32>(f32(t) + f32(k) + q + parts.fract + touch(&acc, 1u));
    acc = v + vec4(ms[0], vm) + vec4(sel, vec2<f32>(sh));
    if b { buf.data[gid.x] = acc; }
    buf.count = n;
}
"#;

#[test]
fn emitted_constant_initializer_is_hoisted() {
    // naga emits `vec2<f32>(0.0, -1.0e30)` in an `Emit` range and also names it as the
    // local's initializer, which the lowering stores at the top of the body.
    let m = lower(
        r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec2<f32>>;
@compute @workgroup_size(1)
fn main() {
    var acc = vec2<f32>(0.0, -1.0e30);
    acc.x += 1.0;
    out[0] = acc;
}
"#,
    );
    let f = &m.functions[0];
    let store = f.body.insts.iter().find(|i| matches!(i.op, Op::Store { .. })).unwrap();
    let Op::Store { value, .. } = store.op else { unreachable!() };
    let def = f.body.insts.iter().find(|i| i.result == Some(value)).unwrap();
    let Op::Const(ConstValue::Composite(_, parts)) = &def.op else {
        panic!("initializer is not a constant: {:?}", def.op)
    };
    assert_eq!(parts, &[ConstValue::F32(0), ConstValue::F32((-1.0e30f32).to_bits())]);
}

#[test]
fn constants_linear_algebra_and_builtins() {
    let m = lower(MISC);
    // `const N = 4` is abstract: naga inlines it and it has no IR type.
    let names: Vec<&str> = m.constants.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["TABLE", "P"]);
    assert_eq!(m.entry_points[0].workgroup_size, [4, 1, 1]);
    let f = m.functions.iter().find(|f| f.name == "misc").unwrap();
    // Indexing a constant array by a runtime value extracts from the constant.
    let dyn_from_const = insts(&m, "misc").into_iter().any(|i| match i.op {
        Op::ExtractDyn(a, _) => insts(&m, "misc")
            .into_iter()
            .any(|d| d.result == Some(a) && matches!(d.op, Op::Const(ConstValue::Composite(..)))),
        _ => false,
    });
    assert!(dyn_from_const);
    // matrix * scalar and vector * matrix keep their linear-algebra forms.
    let muls: Vec<(Type, Type)> = insts(&m, "misc")
        .into_iter()
        .filter_map(|i| match i.op {
            Op::Binary(BinaryOperator::Multiply, a, b) => {
                Some((m.types.get(f.ty(a)).clone(), m.types.get(f.ty(b)).clone()))
            }
            _ => None,
        })
        .collect();
    let mat = Type::Matrix { columns: 2, rows: 2, scalar: Scalar::F32 };
    let v2 = Type::Vector { size: 2, scalar: Scalar::F32 };
    assert!(muls.contains(&(mat.clone(), Type::Scalar(Scalar::F32))), "{muls:?}");
    assert!(muls.contains(&(v2, mat)), "{muls:?}");
    assert_eq!(count(&m, "misc", |o| matches!(o, Op::Convert(_, Scalar::Bool))), 1);
    assert_eq!(count(&m, "misc", |o| matches!(o, Op::Math(MathFunction::Modf, _))), 1);
    assert_eq!(count(&m, "misc", |o| matches!(o, Op::Select { .. })), 1);
    // arrayLength of a struct's trailing runtime array goes through the member's address.
    assert_eq!(count(&m, "misc", |o| matches!(o, Op::ArrayLength(_))), 1);
    text_has(&m, &["struct t", "__modf_result_f32 size 8 align 4", "@16 data: array<vec4<f32>>"]);
    let touch = &m.functions[0];
    assert!(matches!(
        m.types.get(touch.ty(touch.params[0].value)),
        Type::Pointer { space: AddressSpace::Private, .. }
    ));
}

/// Every sample kernel of the repository that the parser accepts lowers to IR the verifier
/// accepts (the parser is another module's; its rejections are its tests' business).
#[test]
fn repository_samples_lower_and_verify() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut lowered = 0;
    for path in paths {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let name = path.display().to_string();
        let Ok(p) = crate::parse(&name, &src, &crate::Options::default()) else { continue };
        match lower_module(&p) {
            Ok(m) => {
                lowered += 1;
                if let Err(d) = crate::verifier::verify(&m) {
                    failures.push(format!("{name}: verifier: {d:?}"));
                }
                for f in &m.functions {
                    visit(&f.body, &mut |i| {
                        if i.span.is_unknown() {
                            failures.push(format!("{name}: {}: no span on {:?}", f.name, i.op));
                        }
                    });
                }
            }
            Err(ds) => failures.push(format!("{name}: {ds:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("lowered {lowered} samples");
}

/// Prints every test module's text (`cargo test -p dianran-frontend dump -- --ignored
/// --nocapture`), for reading the lowering's output by eye.
#[test]
#[ignore]
fn dump() {
    for src in [
        DOUBLING, LOOPS, SWITCH, STRUCTS, ATOMICS, CALLS, WORKGROUP, SUBGROUPS, F16, GRAPHICS,
        COOP, DEAD_ENDS, MISC,
    ] {
        eprintln!("{}", module_text(&lower(src)));
    }
}

#[test]
fn sixty_four_bit_scalars_lower_with_their_literals() {
    let m = crate::compile(
        "t.wgsl",
        "@group(0) @binding(0) var<storage, read_write> a: array<i64>;
         @group(0) @binding(1) var<storage, read_write> f: array<f64>;
         @group(0) @binding(2) var<storage, read_write> u: array<u64>;
         @compute @workgroup_size(1) fn main() {
             a[0] = a[1] + 5000000000li;
             f[0] = f[1] * 0.1lf;
             u[0] = u[1] ^ 18446744073709551615lu;
         }",
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let text = crate::text::module_text(&m);
    assert!(text.contains("5000000000li"), "{text}");
    assert!(text.contains("0.1lf /*0x3fb999999999999a*/"), "{text}");
    assert!(text.contains("18446744073709551615lu"), "{text}");
    assert!(text.contains("array<i64>") || text.contains("i64"), "{text}");
    // 8-byte scalars: a runtime array of them has stride 8.
    let stride = m.types.iter().find_map(|(_, t)| match t {
        Type::Array { base, stride, .. } if *m.types.get(*base) == Type::Scalar(Scalar::F64) => {
            Some(*stride)
        }
        _ => None,
    });
    assert_eq!(stride, Some(8));
}
