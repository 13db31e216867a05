//! Interpreter tests: hand-built IR for the control-flow machinery, then small WGSL kernels
//! compiled by the frontend. Expected values come from plain Rust written from WGSL's rules.

use super::*;
use crate::buffers::{default_buffers, entry_bindings};
use dianran_frontend::ir::*;
use dianran_frontend::DiagKind;
use half::f16;

// ---------------------------------------------------------------------------------------
// Helpers

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    u32s(b).into_iter().map(|x| x as i32).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    u32s(b).into_iter().map(f32::from_bits).collect()
}

fn bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_f16(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| f16::from_f32(*x).to_le_bytes()).collect()
}

fn compile(src: &str) -> Module {
    compile_with(src, &Default::default())
}

fn compile_with(src: &str, opts: &dianran_frontend::Options) -> Module {
    match dianran_frontend::compile("test.wgsl", src, opts) {
        Ok(m) => m,
        Err(d) => panic!("frontend failed:\n{d}"),
    }
}

/// Runs `main` of `src` with group-0 buffers given as (binding, bytes).
fn run_wgsl(
    src: &str,
    dispatch: [u32; 3],
    bufs: Vec<(u32, Vec<u8>)>,
    subgroup_size: u32,
) -> Result<Buffers, Diagnostic> {
    run_compiled(&compile(src), dispatch, bufs, subgroup_size)
}

fn run_compiled(
    m: &Module,
    dispatch: [u32; 3],
    bufs: Vec<(u32, Vec<u8>)>,
    subgroup_size: u32,
) -> Result<Buffers, Diagnostic> {
    let mut b: Buffers = bufs.into_iter().map(|(k, v)| ((0, k), v)).collect();
    let opts = InterpOptions { subgroup_size, ..InterpOptions::default() };
    run(m, "main", dispatch, &mut b, &opts)?;
    Ok(b)
}

/// Runs `main` of `src` over one workgroup (subgroups of 32) expecting a runtime error. The
/// module is compiled without the bounds policy, so that an index out of range is one of
/// those errors (the sanitizer of `dianran run --sanitize`) instead of a zero or a clamp.
fn runtime_error(src: &str, bufs: Vec<(u32, Vec<u8>)>) -> Diagnostic {
    let unchecked = dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    };
    let e = run_compiled(&compile_with(src, &unchecked), [1, 1, 1], bufs, 32).unwrap_err();
    assert_eq!(e.kind, DiagKind::Runtime, "{e:?}");
    e
}

/// The source text under the span of `e`.
fn spanned<'a>(src: &'a str, e: &Diagnostic) -> &'a str {
    let span = e.span.expect("span");
    &src[span.start as usize..span.end as usize]
}

fn ok(r: Result<Buffers, Diagnostic>) -> Buffers {
    match r {
        Ok(b) => b,
        Err(d) => panic!("interpreter failed: {d:?}"),
    }
}

fn out(b: &Buffers, binding: u32) -> &[u8] {
    b.get(&(0, binding)).map(|v| v.as_slice()).unwrap_or(&[])
}

/// Hand-built IR: one entry function with a runtime `array<u32>` output at @group(0)
/// @binding(0) and the global invocation id as its only parameter.
struct Fb {
    m: Module,
    f: Function,
    u32_t: TypeId,
    bool_t: TypeId,
    out_ptr: ValueId,
    x: ValueId,
}

const SP: Span = Span { start: 10, end: 20 };

/// An instruction without a result.
fn stmt(op: Op) -> Inst {
    Inst { result: None, op, span: SP }
}

/// A region: `params`, then `insts`, then `term`.
fn block(params: Vec<ValueId>, insts: Vec<Inst>, term: Terminator) -> Block {
    Block { params, insts, term }
}

impl Fb {
    /// The builder and the entry block's instructions so far (the output address and `x`,
    /// the invocation's global x index).
    fn new() -> (Self, Vec<Inst>) {
        let mut insts = Vec::new();
        let mut m = Module::default();
        let u32_t = m.types.scalar(Scalar::U32);
        let bool_t = m.types.scalar(Scalar::Bool);
        let v3 = m.types.intern(Type::Vector { size: 3, scalar: Scalar::U32 });
        let arr = m.types.intern(Type::Array { base: u32_t, len: None, stride: 4 });
        let space = AddressSpace::Storage { writable: true };
        let arr_ptr = m.types.intern(Type::Pointer { base: arr, space });
        m.globals.push(Global {
            name: "out".into(),
            space,
            ty: arr,
            binding: Some(ResourceBinding { group: 0, binding: 0 }),
            init: None,
            span: SP,
        });
        let mut f = Function {
            name: "main".into(),
            params: Vec::new(),
            result: None,
            values: Vec::new(),
            locals: Vec::new(),
            body: Block::default(),
            bounds: Default::default(),
            span: SP,
        };
        let gid = f.new_value(v3, None);
        f.params.push(Param {
            name: "gid".into(),
            value: gid,
            binding: Some(IoBinding::BuiltIn(BuiltIn::GlobalInvocationId)),
        });
        let mut fb = Fb { m, f, u32_t, bool_t, out_ptr: gid, x: gid };
        fb.out_ptr = fb.op(&mut insts, arr_ptr, Op::GlobalAddr(GlobalId(0)));
        fb.x = fb.op(&mut insts, u32_t, Op::Extract(gid, 0));
        (fb, insts)
    }

    fn v(&mut self, ty: TypeId) -> ValueId {
        self.f.new_value(ty, None)
    }

    /// A fresh `u32` value (a region parameter or result).
    fn u(&mut self) -> ValueId {
        let t = self.u32_t;
        self.v(t)
    }

    fn op(&mut self, insts: &mut Vec<Inst>, ty: TypeId, op: Op) -> ValueId {
        let v = self.v(ty);
        insts.push(Inst { result: Some(v), op, span: SP });
        v
    }

    fn c(&mut self, insts: &mut Vec<Inst>, x: u32) -> ValueId {
        let t = self.u32_t;
        self.op(insts, t, Op::Const(ConstValue::U32(x)))
    }

    fn bin(
        &mut self,
        insts: &mut Vec<Inst>,
        op: BinaryOperator,
        a: ValueId,
        b: ValueId,
    ) -> ValueId {
        let t = if matches!(
            op,
            BinaryOperator::Less
                | BinaryOperator::GreaterEqual
                | BinaryOperator::Greater
                | BinaryOperator::Equal
        ) {
            self.bool_t
        } else {
            self.u32_t
        };
        self.op(insts, t, Op::Binary(op, a, b))
    }

    /// `loop (i, acc) = (0, 0) { acc = body(i, acc) } continuing { i += 1; break if i <cmp>
    /// bound }` appended to `insts`; returns the final `acc`. `body` appends its instructions
    /// to the vector it gets and returns the next `acc`.
    fn counting_loop(
        &mut self,
        insts: &mut Vec<Inst>,
        cmp: BinaryOperator,
        bound: ValueId,
        body: impl FnOnce(&mut Fb, &mut Vec<Inst>, ValueId, ValueId) -> ValueId,
    ) -> ValueId {
        let zero = self.c(insts, 0);
        let (bi, bacc) = (self.u(), self.u());
        let mut body_insts = Vec::new();
        let next = body(self, &mut body_insts, bi, bacc);
        let (ci, cacc) = (self.u(), self.u());
        let mut cont = Vec::new();
        let one = self.c(&mut cont, 1);
        let i2 = self.bin(&mut cont, BinaryOperator::Add, ci, one);
        let brk = self.bin(&mut cont, cmp, i2, bound);
        let (ri, racc) = (self.u(), self.u());
        insts.push(stmt(Op::Loop {
            init: vec![zero, zero],
            body: block(vec![bi, bacc], body_insts, Terminator::Yield(vec![bi, next])),
            continuing: block(vec![ci, cacc], cont, Terminator::Yield(vec![i2, cacc])),
            break_if: Some(brk),
            results: vec![ri, racc],
        }));
        racc
    }

    /// `out[x] = v`, then return; builds the module with a workgroup of `wg` invocations.
    fn finish(mut self, mut insts: Vec<Inst>, v: ValueId, wg: u32) -> Module {
        let ep = self.m.types.intern(Type::Pointer {
            base: self.u32_t,
            space: AddressSpace::Storage { writable: true },
        });
        let (op, x) = (self.out_ptr, self.x);
        let p = self.op(&mut insts, ep, Op::Access(op, x));
        insts.push(stmt(Op::Store { ptr: p, value: v }));
        self.f.body = block(Vec::new(), insts, Terminator::Return(None));
        self.m.functions.push(self.f);
        self.m.entry_points.push(EntryPoint {
            name: "main".into(),
            stage: Stage::Compute,
            workgroup_size: [wg, 1, 1],
            early_depth_test: false,
            function: FuncId(0),
        });
        self.m
    }

    /// Finishes as [`Fb::finish`] does, runs `n` invocations in workgroups of `wg` and checks
    /// `out[x] == want(x)` for every invocation.
    fn check(self, insts: Vec<Inst>, v: ValueId, wg: u32, n: u32, want: impl Fn(u32) -> u32) {
        let m = self.finish(insts, v, wg);
        let got = run_module(&m, n, wg).unwrap();
        assert_eq!(got, (0..n).map(want).collect::<Vec<u32>>());
    }
}

fn run_module(m: &Module, n: u32, wg: u32) -> Result<Vec<u32>, Diagnostic> {
    let mut bufs = default_buffers(m, "main", n)?;
    run(m, "main", [n / wg, 1, 1], &mut bufs, &InterpOptions::default())?;
    Ok(u32s(out(&bufs, 0)))
}

/// `main(x) { out[x] = x }` with workgroups of 4.
fn store_x_module() -> Module {
    let (fb, top) = Fb::new();
    let x = fb.x;
    fb.finish(top, x, 4)
}

// ---------------------------------------------------------------------------------------
// Hand-built IR: control flow

#[test]
fn loop_state_and_break_if() {
    // acc = 0; i = 0; loop { acc += i; continuing { i += 1; break if i > x } } -> x(x+1)/2
    let (mut fb, mut top) = Fb::new();
    let x = fb.x;
    let acc = fb.counting_loop(&mut top, BinaryOperator::Greater, x, |fb, body, i, acc| {
        fb.bin(body, BinaryOperator::Add, acc, i)
    });
    fb.check(top, acc, 8, 16, |x| x * (x + 1) / 2);
}

#[test]
fn switch_break_continue_with_state() {
    // loop (i, acc) { s = switch i % 3 { 0: acc + 10, 1: break-from-switch acc + 1,
    // default: continue with acc + 100 }; yield (i, s) } continuing { i += 1; break if i >= 3 + x % 4 }
    let (mut fb, mut top) = Fb::new();
    let x = fb.x;
    let three = fb.c(&mut top, 3);
    let four = fb.c(&mut top, 4);
    let xm = fb.bin(&mut top, BinaryOperator::Modulo, x, four);
    let bound = fb.bin(&mut top, BinaryOperator::Add, three, xm);
    let acc =
        fb.counting_loop(&mut top, BinaryOperator::GreaterEqual, bound, |fb, body, i, acc| {
            let r = fb.bin(body, BinaryOperator::Modulo, i, three);
            // Case `k` adds `add` to `acc` and leaves the switch with `term`.
            let mut case =
                |values: Vec<i64>, add: u32, term: &dyn Fn(Vec<ValueId>) -> Terminator| {
                    let mut insts = Vec::new();
                    let k = fb.c(&mut insts, add);
                    let sum = fb.bin(&mut insts, BinaryOperator::Add, acc, k);
                    let default = values.is_empty();
                    SwitchCase { values, default, body: block(vec![], insts, term(vec![sum])) }
                };
            let cases = vec![
                case(vec![0], 10, &Terminator::Yield),
                case(vec![1], 1, &Terminator::Break),
                case(vec![], 100, &|v| Terminator::Continue(vec![i, v[0]])),
            ];
            let s = fb.u();
            body.push(stmt(Op::Switch { selector: r, cases, results: vec![s] }));
            s
        });
    fb.check(top, acc, 4, 8, |x| {
        let (mut i, mut acc) = (0u32, 0u32);
        loop {
            acc += match i % 3 {
                0 => 10,
                1 => 1,
                _ => 100,
            };
            i += 1;
            if i >= 3 + x % 4 {
                break acc;
            }
        }
    });
}

#[test]
fn inline_region_early_return() {
    // inline(p = x) { if p > 2 { return p * 2 } ; return p + 100 }
    let (mut fb, mut top) = Fb::new();
    let x = fb.x;
    let p = fb.u();
    let mut body = Vec::new();
    let two = fb.c(&mut body, 2);
    let gt = fb.bin(&mut body, BinaryOperator::Greater, p, two);
    let mut then_ = Vec::new();
    let p2 = fb.bin(&mut then_, BinaryOperator::Multiply, p, two);
    body.push(stmt(Op::If {
        cond: gt,
        then_: block(vec![], then_, Terminator::Return(Some(p2))),
        else_: block(vec![], vec![], Terminator::Yield(vec![])),
        results: vec![],
    }));
    let h = fb.c(&mut body, 100);
    let ph = fb.bin(&mut body, BinaryOperator::Add, p, h);
    let r = fb.u();
    top.push(stmt(Op::Inline {
        callee: FuncId(0),
        body: block(vec![p], body, Terminator::Return(Some(ph))),
        args: vec![x],
        results: vec![r],
    }));
    fb.check(top, r, 4, 8, |x| if x > 2 { x * 2 } else { x + 100 });
}

#[test]
fn infinite_loop_hits_step_limit() {
    let (mut fb, mut top) = Fb::new();
    let x = fb.x;
    top.push(stmt(Op::Loop {
        init: vec![],
        body: block(vec![], vec![], Terminator::Yield(vec![])),
        continuing: block(vec![], vec![], Terminator::Yield(vec![])),
        break_if: None,
        results: vec![],
    }));
    let _ = fb.u();
    let m = fb.finish(top, x, 1);
    let mut bufs = default_buffers(&m, "main", 1).unwrap();
    let opts = InterpOptions { max_steps: 10_000, ..Default::default() };
    let e = run(&m, "main", [1, 1, 1], &mut bufs, &opts).unwrap_err();
    assert_eq!(e.kind, DiagKind::Runtime);
    assert!(e.message.contains("step limit exceeded"), "{}", e.message);
    assert_eq!(e.span, Some(SP));
}

#[test]
fn out_of_bounds_store_is_reported() {
    // out[x] with x up to 7 but a buffer of 6 elements.
    let mut bufs: Buffers = [((0, 0), vec![0u8; 24])].into_iter().collect();
    let m = store_x_module();
    let e = run(&m, "main", [2, 1, 1], &mut bufs, &InterpOptions::default()).unwrap_err();
    assert_eq!(e.kind, DiagKind::Runtime);
    assert!(e.message.contains("index 6") && e.message.contains("'out'"), "{}", e.message);
    assert_eq!(e.span, Some(SP));
    // Stores before the fault stay visible: workgroup 0 completed; in workgroup 1 the
    // faulting `Access` runs for every lane (lockstep) before any of its stores.
    assert_eq!(u32s(out(&bufs, 0)), vec![0, 1, 2, 3, 0, 0]);
}

#[test]
fn missing_buffer_is_reported() {
    let m = store_x_module();
    let mut bufs = Buffers::new();
    let e = run(&m, "main", [1, 1, 1], &mut bufs, &InterpOptions::default()).unwrap_err();
    assert!(e.message.contains("missing buffer 'out'"), "{}", e.message);
    let e = run(&m, "nope", [1, 1, 1], &mut bufs, &InterpOptions::default()).unwrap_err();
    assert!(e.message.contains("no entry point named 'nope'"), "{}", e.message);
}

// ---------------------------------------------------------------------------------------
// WGSL kernels

#[test]
fn integer_division_and_shifts() {
    let src = r#"
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    o[i * 6u + 0u] = x / y;
    o[i * 6u + 1u] = x % y;
    o[i * 6u + 2u] = i32(u32(x) / u32(y));
    o[i * 6u + 3u] = i32(u32(x) % u32(y));
    o[i * 6u + 4u] = x << u32(y);
    o[i * 6u + 5u] = x >> u32(y);
}
"#;
    let a = [7, -7, 7, i32::MIN, i32::MIN, 5, -1, 123456];
    let b = [2, 2, 0, -1, 0, 33, 31, -3];
    let bufs = ok(run_wgsl(
        src,
        [1, 1, 1],
        vec![
            (0, bytes_u32(&a.map(|x| x as u32))),
            (1, bytes_u32(&b.map(|x| x as u32))),
            (2, vec![0; 8 * 6 * 4]),
        ],
        32,
    ));
    let mut want = Vec::new();
    for (&x, &y) in a.iter().zip(&b) {
        // WGSL: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0; shifts mask by 31.
        want.push(if y == 0 { x } else { x.wrapping_div(y) });
        want.push(if y == 0 { 0 } else { x.wrapping_rem(y) });
        let (ux, uy) = (x as u32, y as u32);
        want.push(ux.checked_div(uy).unwrap_or(ux) as i32);
        want.push((if uy == 0 { 0 } else { ux % uy }) as i32);
        want.push(((x as u32) << (uy & 31)) as i32);
        want.push(x >> (uy & 31));
    }
    assert_eq!(i32s(out(&bufs, 2)), want);
}

#[test]
fn f16_arithmetic_rounds_each_op() {
    let src = r#"
enable f16;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = a[gid.x];
    o[gid.x * 2u] = x * x + x / 3.0h;
    o[gid.x * 2u + 1u] = f16(f32(x) * 1000.0);
}
"#;
    let a = [1.5f32, -2.25, 0.1, 300.0];
    let bufs = ok(run_wgsl(src, [1, 1, 1], vec![(0, bytes_f16(&a)), (1, vec![0; 16])], 32));
    let got: Vec<f16> =
        out(&bufs, 1).chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]])).collect();
    let mut want = Vec::new();
    for &x in &a {
        let h = f16::from_f32(x);
        let sq = f16::from_f32(h.to_f32() * h.to_f32());
        let d = f16::from_f32(h.to_f32() / 3.0);
        want.push(f16::from_f32(sq.to_f32() + d.to_f32()));
        want.push(f16::from_f32(h.to_f32() * 1000.0));
    }
    assert_eq!(got, want);
    // 300 * 1000 overflows f16 to infinity.
    assert!(got[7].is_infinite());
}

#[test]
fn workgroup_tree_reduction_with_barriers() {
    let src = r#"
var<workgroup> s: array<u32, 64>;
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>,
        @builtin(global_invocation_id) g: vec3<u32>) {
    s[l] = inp[g.x];
    workgroupBarrier();
    for (var k = 32u; k > 0u; k = k / 2u) {
        if (l < k) { s[l] = s[l] + s[l + k]; }
        workgroupBarrier();
    }
    if (l == 0u) { o[w.x] = s[0]; }
}
"#;
    let inp: Vec<u32> = (0..192u32).map(|i| i.wrapping_mul(2654435761) >> 20).collect();
    let bufs = ok(run_wgsl(src, [3, 1, 1], vec![(0, bytes_u32(&inp)), (1, vec![0; 12])], 32));
    let want: Vec<u32> = inp.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(u32s(out(&bufs, 1)), want);
}

#[test]
fn non_uniform_barrier_is_reported() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) l: u32) {
    if (o[l] == 0u) {
        storageBarrier();
    }
    o[l] = 1u;
}
"#;
    let mut data = vec![0u32; 8];
    data[3] = 5;
    let e = runtime_error(src, vec![(0, bytes_u32(&data))]);
    assert!(e.message.contains("non-uniform control flow"), "{}", e.message);
    assert!(e.message.contains("7 of 8"), "{}", e.message);
    assert_eq!(spanned(src, &e), "storageBarrier");
}

#[test]
fn runtime_array_out_of_bounds_names_buffer_and_index() {
    let src = r#"
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    o[g.x] = inp[g.x + 2u];
}
"#;
    let e = runtime_error(src, vec![(0, vec![0; 16]), (1, vec![0; 16])]);
    assert!(e.message.contains("index 4") && e.message.contains("'inp'"), "{}", e.message);
    assert!(e.notes.iter().any(|n| n.contains("local_invocation_index 2")), "{:?}", e.notes);
    assert_eq!(spanned(src, &e), "inp[g.x + 2u]");
}

#[test]
fn dynamic_index_into_vector_value_is_checked() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main() {
    let v = vec3<u32>(1u, 2u, 3u);
    let i = o[0];
    o[1] = v[i];
}
"#;
    let ok_run = ok(run_wgsl(src, [1, 1, 1], vec![(0, bytes_u32(&[2, 0]))], 32));
    assert_eq!(u32s(out(&ok_run, 0)), vec![2, 3]);
    let e = runtime_error(src, vec![(0, bytes_u32(&[3, 0]))]);
    assert!(e.message.contains("index 3"), "{}", e.message);
}

fn subgroup_src() -> &'static str {
    r#"
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32) {
    let v = inp[l];
    o[l * 6u + 0u] = subgroupAdd(v);
    o[l * 6u + 1u] = subgroupExclusiveAdd(v);
    o[l * 6u + 2u] = subgroupInclusiveAdd(v) + subgroupMax(v) * 1000u;
    o[l * 6u + 3u] = subgroupShuffleXor(v, 1u);
    o[l * 6u + 4u] = subgroupBallot(v > 50u).x;
    var odd = 0u;
    if ((l & 1u) == 1u) { odd = subgroupAdd(v); }
    o[l * 6u + 5u] = odd;
}
"#
}

fn subgroup_check(sg: usize) {
    let inp: Vec<u32> = (0..64u32).map(|i| (i * 37 + 11) % 100).collect();
    let bufs = ok(run_wgsl(
        subgroup_src(),
        [1, 1, 1],
        vec![(0, bytes_u32(&inp)), (1, vec![0; 64 * 6 * 4])],
        sg as u32,
    ));
    let got = u32s(out(&bufs, 1));
    let mut want = Vec::new();
    for l in 0..64 {
        let base = l / sg * sg;
        let g = &inp[base..base + sg];
        let me = l - base;
        want.push(g.iter().sum::<u32>());
        want.push(g[..me].iter().sum::<u32>());
        want.push(g[..=me].iter().sum::<u32>() + g.iter().max().unwrap_or(&0) * 1000);
        want.push(g[me ^ 1]);
        let mut ballot = 0u32;
        for (k, &x) in g.iter().enumerate().take(32) {
            if x > 50 {
                ballot |= 1 << k;
            }
        }
        want.push(ballot);
        // Only the odd lanes are active in the branch.
        want.push(if l & 1 == 1 { g.iter().skip(1).step_by(2).sum() } else { 0 });
    }
    assert_eq!(got, want, "subgroup size {sg}");
}

#[test]
fn subgroup_ops_size_32() {
    subgroup_check(32);
}

#[test]
fn subgroup_ops_size_8() {
    subgroup_check(8);
}

#[test]
fn atomics_are_exact() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>, 4>;
@group(0) @binding(1) var<storage, read_write> olds: array<u32>;
var<workgroup> wmax: atomic<i32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    olds[g.x] = atomicAdd(&c[0], g.x + 1u);
    atomicMax(&wmax, i32(l) - 8);
    atomicOr(&c[1], 1u << (g.x % 32u));
    let r = atomicCompareExchangeWeak(&c[2], g.x, g.x + 1u);
    workgroupBarrier();
    if (l == 0u) { atomicAdd(&c[3], u32(atomicLoad(&wmax))); }
}
"#;
    let bufs = ok(run_wgsl(src, [2, 1, 1], vec![(0, vec![0; 16]), (1, vec![0; 32 * 4])], 32));
    let c = u32s(out(&bufs, 0));
    // Sum of 1..=32; bits 0..31; the CAS chain advances once per invocation in lane order;
    // each workgroup's max is 7.
    assert_eq!(c, vec![(1..=32).sum::<u32>(), u32::MAX, 32, 14]);
    let olds = u32s(out(&bufs, 1));
    let want: Vec<u32> = (0..32u32).map(|i| (1..=i).sum()).collect();
    assert_eq!(olds, want);
}

#[test]
fn functions_pointers_and_private_globals() {
    let src = r#"
var<private> counter: u32 = 5u;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
fn bump(p: ptr<function, u32>, by: u32) -> u32 {
    *p = *p + by;
    counter += 1u;
    if (*p > 10u) { return 1u; }
    return 0u;
}
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var x = g.x * 4u;
    var hits = 0u;
    for (var i = 0u; i < 3u; i++) {
        hits += bump(&x, g.x);
    }
    o[g.x * 3u] = x;
    o[g.x * 3u + 1u] = hits;
    o[g.x * 3u + 2u] = counter;
}
"#;
    let bufs = ok(run_wgsl(src, [2, 1, 1], vec![(0, vec![0; 8 * 3 * 4])], 32));
    let mut want = Vec::new();
    for g in 0..8u32 {
        let mut x = g * 4;
        let mut hits = 0;
        for _ in 0..3 {
            x += g;
            hits += u32::from(x > 10);
        }
        want.extend([x, hits, 8]);
    }
    assert_eq!(u32s(out(&bufs, 0)), want);
}

fn coop_src(transposed: bool) -> String {
    let (ld, st) = if transposed { ("coopLoadT", "coopStoreT") } else { ("coopLoad", "coopStore") };
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(32)
fn main() {{
    let am = {ld}<coop_mat8x8<f16, A>>(&a[0], 8u);
    let bm = {ld}<coop_mat8x8<f16, B>>(&b[0], 8u);
    var acc = {ld}<coop_mat8x8<f32, C>>(&c[0], 8u);
    acc = coopMultiplyAdd(am, bm, acc);
    {st}(acc, &c[0], 8u);
}}
"#
    )
}

fn coop_check(transposed: bool) {
    // a[i][j] and b[i][j] in math (row, column) terms; memory order per orientation.
    let am: Vec<f32> = (0..64).map(|k| ((k * 7) % 11) as f32 - 5.0).collect();
    let bm: Vec<f32> = (0..64).map(|k| ((k * 5) % 13) as f32 * 0.5).collect();
    let cm: Vec<f32> = (0..64).map(|k| k as f32).collect();
    let idx = |r: usize, c: usize| if transposed { r * 8 + c } else { c * 8 + r };
    let lay = |m: &[f32]| -> Vec<f32> {
        let mut v = vec![0.0; 64];
        for r in 0..8 {
            for c in 0..8 {
                v[idx(r, c)] = m[r * 8 + c];
            }
        }
        v
    };
    let bufs = ok(run_wgsl(
        &coop_src(transposed),
        [1, 1, 1],
        vec![(0, bytes_f16(&lay(&am))), (1, bytes_f16(&lay(&bm))), (2, bytes_f32(&lay(&cm)))],
        32,
    ));
    let got = f32s(out(&bufs, 2));
    for r in 0..8 {
        for c in 0..8 {
            let want: f32 =
                (0..8).map(|k| am[r * 8 + k] * bm[k * 8 + c]).sum::<f32>() + cm[r * 8 + c];
            assert_eq!(got[idx(r, c)], want, "element ({r}, {c}), transposed = {transposed}");
        }
    }
}

#[test]
fn coop_matmul_row_major() {
    coop_check(true);
}

#[test]
fn coop_matmul_column_major() {
    coop_check(false);
}

#[test]
fn bindings_and_default_buffers() {
    let src = r#"
struct P { n: u32, scale: f32 }
struct R { head: vec4<f32>, data: array<vec2<f32>> }
@group(0) @binding(2) var<uniform> p: P;
@group(1) @binding(0) var<storage, read_write> r: R;
@group(0) @binding(5) var<storage, read> unused: array<u32>;
fn helper() -> f32 { return p.scale; }
@compute @workgroup_size(1)
fn main() {
    r.data[arrayLength(&r.data) - 1u] = vec2<f32>(helper(), f32(arrayLength(&r.data)));
}
"#;
    let m = compile(src);
    let b = entry_bindings(&m, "main").unwrap();
    let keys: Vec<(u32, u32)> = b.iter().map(|b| (b.group, b.binding)).collect();
    assert_eq!(keys, vec![(0, 2), (1, 0)]);
    assert_eq!((b[1].size, b[1].runtime_stride), (16, Some(8)));
    let mut bufs = default_buffers(&m, "main", 3).unwrap();
    assert_eq!(bufs[&(1, 0)].len(), 16 + 3 * 8);
    bufs.insert((0, 2), bytes_f32(&[0.0, 2.5]));
    run(&m, "main", [1, 1, 1], &mut bufs, &InterpOptions::default()).unwrap();
    assert_eq!(&f32s(&bufs[&(1, 0)])[8..10], &[2.5, 3.0]);
}

#[test]
fn tiled_matmul_64_is_fast_enough() {
    let src = r#"
const N: u32 = 64u;
const T: u32 = 16u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {
    let row = w.y * T + l.y;
    let col = w.x * T + l.x;
    var acc = 0.0;
    for (var k0 = 0u; k0 < N; k0 += T) {
        ta[l.y * T + l.x] = a[row * N + k0 + l.x];
        tb[l.y * T + l.x] = b[(k0 + l.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < T; k++) {
            acc += ta[l.y * T + k] * tb[k * T + l.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = acc;
}
"#;
    let n = 64usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 3) % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 9) as f32 - 4.0).collect();
    let t = std::time::Instant::now();
    let bufs = ok(run_wgsl(
        src,
        [4, 4, 1],
        vec![(0, bytes_f32(&a)), (1, bytes_f32(&b)), (2, vec![0; n * n * 4])],
        32,
    ));
    let elapsed = t.elapsed();
    let got = f32s(out(&bufs, 2));
    for r in 0..n {
        for c in 0..n {
            let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + c]).sum();
            assert_eq!(got[r * n + c], want);
        }
    }
    // Generous bound: debug builds are slower than release.
    assert!(elapsed.as_secs_f64() < 10.0, "took {elapsed:?}");
}

#[test]
fn lane_exchanges_and_quads() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) l: u32) {
    let v = l * l + 3u;
    o[l * 6u + 0u] = subgroupShuffleDown(v, 1u);
    o[l * 6u + 1u] = subgroupShuffleUp(v, 2u);
    o[l * 6u + 2u] = quadSwapX(v);
    o[l * 6u + 3u] = quadBroadcast(v, 2u);
    o[l * 6u + 4u] = quadSwapDiagonal(v);
    var first = 0u;
    if (l >= 5u) { first = subgroupBroadcastFirst(v); }
    o[l * 6u + 5u] = first;
}
"#;
    let bufs = ok(run_wgsl(src, [1, 1, 1], vec![(0, vec![0; 16 * 6 * 4])], 8));
    let v = |l: usize| (l * l + 3) as u32;
    let mut want = Vec::new();
    for l in 0..16usize {
        let id = l % 8;
        // Out-of-range sources read the lane's own value (documented choice).
        want.push(if id + 1 < 8 { v(l + 1) } else { v(l) });
        want.push(if id >= 2 { v(l - 2) } else { v(l) });
        want.push(v(l ^ 1));
        want.push(v((l & !3) + 2));
        want.push(v(l ^ 3));
        // Lanes 5..7 are the active ones of subgroup 0; all of subgroup 1 is active.
        want.push(match l {
            0..=4 => 0,
            5..=7 => v(5),
            _ => v(8),
        });
    }
    assert_eq!(u32s(out(&bufs, 0)), want);
}

#[test]
fn bit_and_math_builtins() {
    let src = r#"
enable f16;
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;
@compute @workgroup_size(6)
fn main(@builtin(local_invocation_index) l: u32) {
    let x = a[l];
    let u = u32(x);
    o[l * 8u + 0u] = u32(firstLeadingBit(x));
    o[l * 8u + 1u] = firstLeadingBit(u);
    o[l * 8u + 2u] = firstTrailingBit(u);
    o[l * 8u + 3u] = u32(extractBits(x, 4u, 8u));
    o[l * 8u + 4u] = insertBits(u, 0x5u, 30u, 4u);
    o[l * 8u + 5u] = countOneBits(u) + (reverseBits(u) << 8u);
    o[l * 8u + 6u] = u32(dot4I8Packed(u, 0x01ff02feu));
    o[l * 8u + 7u] = pack4x8snorm(vec4<f32>(f32(x) / 100.0, -1.5, 0.5, -0.25));
    let fx = f32(x) + 0.5;
    f[l * 4u + 0u] = round(fx);
    f[l * 4u + 1u] = f32(f16(fx / 3.0));
    f[l * 4u + 2u] = determinant(mat2x2<f32>(fx, 1.0, 2.0, 3.0));
    f[l * 4u + 3u] = modf(fx / 4.0).fract + f32(frexp(fx).exp);
}
"#;
    let a = [0i32, -1, 1, 0x1234_5678, -0x1234_5678, i32::MIN];
    let bufs = ok(run_wgsl(
        src,
        [1, 1, 1],
        vec![
            (0, bytes_u32(&a.map(|x| x as u32))),
            (1, vec![0; 6 * 8 * 4]),
            (2, vec![0; 6 * 4 * 4]),
        ],
        32,
    ));
    let mut want = Vec::new();
    let mut wantf = Vec::new();
    for &x in &a {
        let u = x as u32;
        // firstLeadingBit(i32): the highest bit differing from the sign bit; -1 for 0 and -1.
        let flb_s = if x == 0 || x == -1 {
            u32::MAX
        } else if x < 0 {
            31 - (!u).leading_zeros()
        } else {
            31 - u.leading_zeros()
        };
        want.push(flb_s);
        want.push(if u == 0 { u32::MAX } else { 31 - u.leading_zeros() });
        want.push(if u == 0 { u32::MAX } else { u.trailing_zeros() });
        want.push((((x >> 4) << 24) >> 24) as u32);
        // Offset 30 with count 4 writes only 2 bits (count is clamped to 32 - offset).
        want.push((u & 0x3fff_ffff) | ((0x5 << 30) & 0xc000_0000));
        want.push(u.count_ones().wrapping_add(u.reverse_bits() << 8));
        // 0x01ff02fe as signed bytes, lowest first.
        let bytes_b = [-2i32, 2, -1, 1];
        let dp: i32 = (0..4).map(|k| ((u >> (8 * k)) as u8 as i8 as i32) * bytes_b[k]).sum();
        want.push(dp as u32);
        let sn = |v: f32| ((0.5 + 127.0 * v.clamp(-1.0, 1.0)).floor() as i32 as u32) & 0xff;
        want.push(sn(x as f32 / 100.0) | (sn(-1.5) << 8) | (sn(0.5) << 16) | (sn(-0.25) << 24));
        let fx = x as f32 + 0.5;
        wantf.push(fx.round_ties_even());
        wantf.push(f16::from_f32(fx / 3.0).to_f32());
        wantf.push(fx * 3.0 - 2.0 * 1.0);
        let q = fx / 4.0;
        let exp = if fx == 0.0 { 0 } else { (fx.abs().log2().floor() as i32) + 1 };
        wantf.push((q - q.trunc()) + exp as f32);
    }
    assert_eq!(u32s(out(&bufs, 1)), want);
    assert_eq!(f32s(out(&bufs, 2)), wantf);
}

#[test]
fn struct_builtins_and_fresh_workgroup_memory() {
    let src = r#"
struct In {
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
}
var<workgroup> count: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(2, 3)
fn main(inp: In, @builtin(global_invocation_id) g: vec3<u32>) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    let flat = g.x + g.y * (inp.nwg.x * 2u);
    o[flat * 2u] = atomicLoad(&count) * 100u + inp.lid.y * 10u + inp.wid.x;
    o[flat * 2u + 1u] = inp.nwg.x * 10u + inp.nwg.y;
}
"#;
    let bufs = ok(run_wgsl(src, [3, 2, 1], vec![(0, vec![0; 6 * 6 * 2 * 4])], 32));
    let got = u32s(out(&bufs, 0));
    for gy in 0..6u32 {
        for gx in 0..6u32 {
            let flat = (gx + gy * 6) as usize;
            // Every workgroup starts with count = 0, so each sees its own 6 invocations.
            assert_eq!(got[flat * 2], 600 + (gy % 3) * 10 + gx / 2, "({gx}, {gy})");
            assert_eq!(got[flat * 2 + 1], 32);
        }
    }
}
