//! Semantic tests: small WGSL kernels through the frontend and the code generator, executed by
//! a tiny interpreter of the emitted PTX text (the subset these kernels use), with expected
//! buffers computed by plain Rust code.

use super::*;
use std::collections::HashMap;

/// Interprets one entry of `ptx` for each thread id in `0..threads` (x dimension only, one
/// thread per block, so `%ctaid.x` is the thread id), with `bufs[i]` bound to parameter `i`.
fn run(ptx: &str, threads: u32, bufs: &mut [Vec<u8>]) {
    run_blocks(ptx, threads, 1, bufs);
}

/// Runs one workgroup of 32 invocations (one warp, `%tid.x` = lane) in lockstep. Control flow
/// must be uniform across the warp (the tests below only use uniform branches).
fn run_warp(ptx: &str, bufs: &mut [Vec<u8>]) {
    run_blocks(ptx, 1, 32, bufs);
}

/// The entry of a PTX text, ready to step through.
struct Kernel<'a> {
    /// Trimmed lines from `.visible .entry` on.
    body: Vec<&'a str>,
    /// Parameter names, in order.
    params: Vec<String>,
    /// Label name to its line in `body`.
    labels: HashMap<&'a str, usize>,
}

impl<'a> Kernel<'a> {
    fn parse(ptx: &'a str) -> Self {
        let lines: Vec<&str> = ptx.lines().collect();
        let start = lines.iter().position(|l| l.starts_with(".visible .entry")).expect("entry");
        let body: Vec<&str> = lines[start..].iter().map(|l| l.trim()).collect();
        let params = body
            .iter()
            .filter_map(|l| l.strip_prefix(".param .u64 "))
            .map(|p| p.trim_end_matches(',').to_string())
            .collect();
        let labels = body
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.strip_suffix(':').map(|n| (n, i)))
            .collect();
        Kernel { body, params, labels }
    }
}

/// Interprets `blocks` blocks (x dimension only) of `lanes` threads each, one block after
/// the other, the lanes of a block in lockstep; `bufs[i]` is bound to parameter `i`. A buffer
/// after the parameters is the local depot, refilled with 0xAB for each block (so kernels
/// with local memory run with one lane per block). Control flow must be uniform in a block.
fn run_blocks(ptx: &str, blocks: u32, lanes: u32, bufs: &mut [Vec<u8>]) {
    let kernel = Kernel::parse(ptx);
    let depot = kernel.params.len();
    assert!(lanes == 1 || bufs.len() <= depot, "a local depot needs one lane per block");
    for block in 0..blocks {
        let mut regs: Vec<HashMap<String, u64>> = vec![HashMap::new(); lanes as usize];
        for r in &mut regs {
            r.insert("__local_depot".into(), ((depot as u64) + 1) << 40);
        }
        if let Some(d) = bufs.get_mut(depot) {
            d.iter_mut().for_each(|b| *b = 0xAB);
        }
        run_block(&kernel, block, &mut regs, bufs);
    }
}

/// Runs block `block` with one register file per lane in `regs`.
fn run_block(k: &Kernel, block: u32, regs: &mut [HashMap<String, u64>], bufs: &mut [Vec<u8>]) {
    let lanes = regs.len();
    let val = |regs: &[HashMap<String, u64>], lane: usize, a: &str| -> u64 {
        special(block, lanes, lane, a).unwrap_or_else(|| operand(&regs[lane], a))
    };
    let set_all = |regs: &mut [HashMap<String, u64>], reg: &str, v: u64| {
        regs.iter_mut().for_each(|r| {
            r.insert(reg.to_string(), v);
        })
    };
    let full_warp = |op: &str| assert_eq!(lanes, 32, "emulator: {op} needs a full warp");
    let mut pc = 0;
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 1_000_000, "runaway");
        let line = k.body[pc];
        pc += 1;
        if line == "}" {
            break;
        }
        if line.is_empty()
            || line.starts_with('.')
            || line.ends_with(':')
            || line == "{"
            || line == ")"
        {
            continue;
        }
        let line = line.trim_end_matches(';');
        let (guard, line) = match line.strip_prefix('@') {
            Some(rest) => {
                let (g, r) = rest.split_once(' ').expect("guard");
                (Some(g), r)
            }
            None => (None, line),
        };
        if let Some(g) = guard {
            let (g, negated) = match g.strip_prefix('!') {
                Some(p) => (p, true),
                None => (g, false),
            };
            let taken: Vec<bool> = regs.iter().map(|r| (r[g] != 0) != negated).collect();
            assert!(taken.iter().all(|&t| t == taken[0]), "divergent branch in a block");
            if !taken[0] {
                continue;
            }
        }
        let (op, args) = line.split_once(' ').unwrap_or((line, ""));
        let args = split_args(args);
        let parts: Vec<&str> = op.split('.').collect();
        match parts[0] {
            "ret" => break,
            "bra" => {
                pc = k.labels[args[0].as_str()];
                continue;
            }
            "bar" => {}
            "activemask" => {
                full_warp(op);
                set_all(regs, &args[0], 0xffff_ffff);
            }
            "shfl" => {
                full_warp(op);
                let srcs: Vec<u64> = (0..32).map(|l| val(regs, l, &args[1])).collect();
                for l in 0..32usize {
                    let b = val(regs, l, &args[2]) as usize;
                    let from = match parts[2] {
                        "idx" => b & 31,
                        "bfly" => (l ^ b) & 31,
                        "up" => l.checked_sub(b).unwrap_or(l),
                        _ => {
                            if l + b < 32 {
                                l + b
                            } else {
                                l
                            }
                        }
                    };
                    regs[l].insert(args[0].clone(), srcs[from]);
                }
            }
            "redux" => {
                full_warp(op);
                let xs: Vec<u64> = (0..32).map(|l| val(regs, l, &args[1])).collect();
                let r = match parts[2] {
                    "add" => xs.iter().fold(0u32, |a, &x| a.wrapping_add(x as u32)),
                    "min" if parts[3] == "s32" => {
                        xs.iter().map(|&x| x as u32 as i32).min().unwrap_or(0) as u32
                    }
                    "max" if parts[3] == "s32" => {
                        xs.iter().map(|&x| x as u32 as i32).max().unwrap_or(0) as u32
                    }
                    "min" => xs.iter().map(|&x| x as u32).min().unwrap_or(0),
                    "max" => xs.iter().map(|&x| x as u32).max().unwrap_or(0),
                    "and" => xs.iter().fold(u32::MAX, |a, &x| a & x as u32),
                    "or" => xs.iter().fold(0, |a, &x| a | x as u32),
                    _ => xs.iter().fold(0, |a, &x| a ^ x as u32),
                };
                set_all(regs, &args[0], r as u64);
            }
            "vote" => {
                // vote.sync.all.pred over a full warp.
                full_warp(op);
                let all = (0..32).all(|l| val(regs, l, &args[1]) != 0);
                set_all(regs, &args[0], all as u64);
            }
            "ld" if parts[1] == "param" => {
                let name = args[1].trim_matches(|c| c == '[' || c == ']');
                let i = k.params.iter().position(|p| p == name).expect("param");
                set_all(regs, &args[0], ((i as u64) + 1) << 40);
            }
            "mov" if args[0].starts_with('{') || args.len() != 2 => panic!("emulator: {line}"),
            "ld" | "st" => {
                // Registers of a `.v2` access arrive as "{%r1" and "%r2}".
                let ld = parts[0] == "ld";
                let (addr_s, rs): (&String, Vec<String>) = match (ld, parts.contains(&"v2")) {
                    (true, false) => (&args[1], vec![args[0].clone()]),
                    (false, false) => (&args[0], vec![args[1].clone()]),
                    (true, true) => (&args[2], args[..2].to_vec()),
                    (false, true) => (&args[0], args[1..].to_vec()),
                };
                let rs: Vec<String> = rs
                    .iter()
                    .map(|r| r.trim_matches(|c| c == '{' || c == '}').to_string())
                    .collect();
                let inner = addr_s.trim_matches(|c| c == '[' || c == ']');
                let (r, off) = inner.split_once('+').unwrap_or((inner, "0"));
                let off = off.parse::<u64>().expect("offset");
                for l in 0..lanes {
                    let addr = regs[l][r] + off;
                    let buf = &mut bufs[((addr >> 40) - 1) as usize];
                    let o = (addr & 0xff_ffff_ffff) as usize;
                    for (k, reg) in rs.iter().enumerate() {
                        let o = o + 4 * k;
                        if ld {
                            let v = u32::from_le_bytes(buf[o..o + 4].try_into().expect("4 bytes"));
                            regs[l].insert(reg.clone(), v as u64);
                        } else {
                            let v = val(regs, l, reg) as u32;
                            buf[o..o + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                }
            }
            "cvta" | "mov" => {
                for l in 0..lanes {
                    let v = val(regs, l, &args[1]);
                    regs[l].insert(args[0].clone(), v);
                }
            }
            _ => {
                for l in 0..lanes {
                    let srcs: Vec<u64> = args[1..].iter().map(|a| val(regs, l, a)).collect();
                    let v = alu(&parts, &srcs);
                    regs[l].insert(args[0].clone(), v);
                }
            }
        }
    }
}

fn split_args(s: &str) -> Vec<String> {
    s.split(", ").map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect()
}

/// A special register's value for `lane` of block `block` (blocks of `lanes` threads along x).
fn special(block: u32, lanes: usize, lane: usize, a: &str) -> Option<u64> {
    Some(match a {
        "%tid.x" | "%laneid" => lane as u64,
        "%ntid.x" => lanes as u64,
        "%ctaid.x" => block as u64,
        "%ntid.y" | "%ntid.z" => 1,
        "%tid.y" | "%tid.z" | "%ctaid.y" | "%ctaid.z" => 0,
        _ => return None,
    })
}

/// A register's value or an immediate.
fn operand(regs: &HashMap<String, u64>, a: &str) -> u64 {
    if let Some(v) = regs.get(a) {
        return *v;
    }
    if let Some(h) = a.strip_prefix("0f") {
        u32::from_str_radix(h, 16).expect("f32 imm") as u64
    } else if let Some(h) = a.strip_prefix("0x") {
        u32::from_str_radix(h, 16).expect("hex imm") as u64
    } else {
        a.parse::<i64>().unwrap_or_else(|_| panic!("operand {a}")) as u32 as u64
    }
}

fn alu(p: &[&str], s: &[u64]) -> u64 {
    let i = |k: usize| s[k] as u32 as i32;
    let u = |k: usize| s[k] as u32;
    let f = |k: usize| f32::from_bits(s[k] as u32);
    let ty = *p.last().expect("type");
    let fb = |x: f32| x.to_bits() as u64;
    match (p[0], ty) {
        ("add", "s64" | "u64") => s[0].wrapping_add(s[1]),
        ("add", "f32") => fb(f(0) + f(1)),
        ("add", _) => u(0).wrapping_add(u(1)) as u64,
        ("sub", "f32") => fb(f(0) - f(1)),
        ("sub", _) => u(0).wrapping_sub(u(1)) as u64,
        ("mul", "f32") => fb(f(0) * f(1)),
        ("mul", _) if p[1] == "wide" => u(0) as u64 * u(1) as u64,
        ("mul", "u32") if p[1] == "hi" => (u(0) as u64 * u(1) as u64) >> 32,
        ("mul", "s32") if p[1] == "hi" => ((i(0) as i64 * i(1) as i64) >> 32) as u32 as u64,
        ("mul", _) if p[1] == "lo" => u(0).wrapping_mul(u(1)) as u64,
        ("mad", _) => u(0).wrapping_mul(u(1)).wrapping_add(u(2)) as u64,
        ("div", "f32") => fb(f(0) / f(1)),
        ("div", "s32") => i(0).wrapping_div(i(1)) as u32 as u64,
        ("div", _) => (u(0) / u(1)) as u64,
        ("rem", "s32") => i(0).wrapping_rem(i(1)) as u32 as u64,
        ("rem", _) => (u(0) % u(1)) as u64,
        ("neg", "f32") => fb(-f(0)),
        ("neg", _) => (u(0) as i32).wrapping_neg() as u32 as u64,
        ("and", "pred") | ("and", "b32") => s[0] & s[1],
        ("or", _) => s[0] | s[1],
        ("xor", _) => s[0] ^ s[1],
        ("not", "pred") => (s[0] == 0) as u64,
        ("not", _) => (!u(0)) as u64,
        ("shl", _) => (u(0) << u(1)) as u64,
        ("shr", "s32") => (i(0) >> u(1)) as u32 as u64,
        ("shr", _) => (u(0) >> u(1)) as u64,
        ("selp", _) => {
            if s[2] != 0 {
                s[0]
            } else {
                s[1]
            }
        }
        ("min", "s32") => i(0).min(i(1)) as u32 as u64,
        ("min", _) => u(0).min(u(1)) as u64,
        ("max", "s32") => i(0).max(i(1)) as u32 as u64,
        ("max", _) => u(0).max(u(1)) as u64,
        ("setp", t) => {
            let c = p[1];
            let r = match t {
                "s32" => cmp(c, i(0).partial_cmp(&i(1))),
                "f32" => cmp(c, f(0).partial_cmp(&f(1))),
                _ => cmp(c, u(0).partial_cmp(&u(1))),
            };
            r as u64
        }
        ("cvt", _) if p[1] == "u32" && p[2] == "u64" => s[0] & 0xffff_ffff,
        ("cvt", _) if p[1] == "rzi" && p[2] == "f32" => fb(f(0).trunc()),
        ("cvt", _) if p[1] == "rzi" && p[2] == "s32" => (f(0) as i32) as u32 as u64,
        ("cvt", _) if p[1] == "rzi" && p[2] == "u32" => (f(0) as u32) as u64,
        ("cvt", _) if p[1] == "rn" && p[2] == "f32" && p[3] == "s32" => fb(i(0) as f32),
        ("cvt", _) if p[1] == "rn" && p[2] == "f32" && p[3] == "u32" => fb(u(0) as f32),
        _ => panic!("emulator: unsupported {}", p.join(".")),
    }
}

fn cmp(c: &str, o: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (c, o) {
        ("neu", None) => true,
        (_, None) => false,
        ("eq", Some(o)) => o == Equal,
        ("ne" | "neu", Some(o)) => o != Equal,
        ("lt", Some(o)) => o == Less,
        ("le", Some(o)) => o != Greater,
        ("gt", Some(o)) => o == Greater,
        ("ge", Some(o)) => o != Less,
        _ => panic!("cmp {c}"),
    }
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn unwords(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect()
}

fn compile(src: &str) -> String {
    let m = dianran_frontend::compile("t.wgsl", src, &unchecked()).expect("frontend");
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    out.text
}

#[test]
fn integer_division_follows_wgsl() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    o[4u * i] = a[i] / b[i];
    o[4u * i + 1u] = a[i] % b[i];
    o[4u * i + 2u] = bitcast<i32>(bitcast<u32>(a[i]) / bitcast<u32>(b[i]));
    o[4u * i + 3u] = bitcast<i32>(bitcast<u32>(a[i]) % bitcast<u32>(b[i]));
}";
    let ptx = compile(src);
    let a = [7i32, -7, 7, i32::MIN, i32::MIN, 5, -9, 0];
    let b = [2i32, 2, 0, -1, 0, -3, 4, 0];
    let mut bufs =
        vec![words(&a.map(|x| x as u32)), words(&b.map(|x| x as u32)), vec![0; 4 * 4 * a.len()]];
    run(&ptx, a.len() as u32, &mut bufs);
    let got = unwords(&bufs[2]);
    for k in 0..a.len() {
        // WGSL: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0.
        let (x, y) = (a[k], b[k]);
        let (q, r) = if y == 0 || (x == i32::MIN && y == -1) { (x, 0) } else { (x / y, x % y) };
        let (ux, uy) = (x as u32, y as u32);
        let (uq, ur) = (ux.checked_div(uy).unwrap_or(ux), ux.checked_rem(uy).unwrap_or(0));
        assert_eq!(got[4 * k..4 * k + 4], [q as u32, r as u32, uq, ur], "a={x} b={y}");
    }
}

#[test]
fn shifts_mask_and_float_ne_is_unordered() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    let x = a[i];
    o[4u * i] = x << (i * 7u);
    o[4u * i + 1u] = x >> (i * 7u);
    o[4u * i + 2u] = bitcast<u32>(bitcast<i32>(x) >> (i * 7u));
    let f = bitcast<f32>(x);
    o[4u * i + 3u] = select(0u, 1u, f != f);
}";
    let ptx = compile(src);
    let a = [
        0x8000_0001u32,
        0x7fc0_0000,
        0xdead_beef,
        0x3f80_0000,
        0xffff_ffff,
        0x1234_5678,
        0xffc0_0001,
    ];
    let mut bufs = vec![words(&a), vec![0; 16 * a.len()]];
    run(&ptx, a.len() as u32, &mut bufs);
    let got = unwords(&bufs[1]);
    for (k, &x) in a.iter().enumerate() {
        let sh = (k as u32 * 7) & 31;
        let f = f32::from_bits(x);
        let want = [x << sh, x >> sh, ((x as i32) >> sh) as u32, f.is_nan() as u32];
        assert_eq!(got[4 * k..4 * k + 4], want, "x={x:#x}");
    }
}

#[test]
fn loops_switch_and_continuing() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let x = a[g.x];
    var acc = 0u;
    var i = 0u;
    loop {
        if i % 3u == 0u { continue; }
        switch (i + x) % 4u {
            case 0u, 1u: { acc += i; }
            case 2u: { acc ^= i * 7u; }
            default: { acc = acc * 3u + 1u; }
        }
        continuing {
            i += 1u;
            break if i >= x;
        }
    }
    var a2 = x;
    var b2 = 1u;
    for (var k = 0u; k < 5u; k++) {
        let t = a2;
        a2 = b2;
        b2 = t + k;
    }
    o[2u * g.x] = acc;
    o[2u * g.x + 1u] = a2 * 1000u + b2;
}";
    let ptx = compile(src);
    let a = [1u32, 2, 5, 9, 17, 30];
    let mut bufs = vec![words(&a), vec![0; 8 * a.len()]];
    run(&ptx, a.len() as u32, &mut bufs);
    let got = unwords(&bufs[1]);
    for (k, &x) in a.iter().enumerate() {
        let mut acc = 0u32;
        let mut i = 0u32;
        loop {
            if !i.is_multiple_of(3) {
                match (i + x) % 4 {
                    0 | 1 => acc = acc.wrapping_add(i),
                    2 => acc ^= i.wrapping_mul(7),
                    _ => acc = acc.wrapping_mul(3).wrapping_add(1),
                }
            }
            i += 1;
            if i >= x {
                break;
            }
        }
        let (mut a2, mut b2) = (x, 1u32);
        for kk in 0..5 {
            let t = a2;
            a2 = b2;
            b2 = t + kk;
        }
        assert_eq!(got[2 * k..2 * k + 2], [acc, a2 * 1000 + b2], "x={x}");
    }
}

#[test]
fn inlined_calls_local_arrays_and_privates() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
var<private> counter: u32 = 5u;
fn bump(p: ptr<function, u32>, k: u32) -> u32 {
    *p = *p + k;
    counter += 1u;
    return *p * 2u;
}
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let x = a[g.x];
    var arr: array<u32, 8>;
    for (var i = 0u; i < 8u; i++) {
        arr[i] = i * x;
    }
    var v = x;
    let r = bump(&v, 3u);
    let j = x % 8u;
    arr[j] = arr[j] + r;
    o[3u * g.x] = arr[j];
    o[3u * g.x + 1u] = v;
    o[3u * g.x + 2u] = counter;
}";
    let ptx = compile(src);
    let a = [0u32, 3, 9, 14];
    let mut bufs = vec![words(&a), vec![0; 12 * a.len()], vec![0; 4096]];
    run(&ptx, a.len() as u32, &mut bufs);
    let got = unwords(&bufs[1]);
    for (k, &x) in a.iter().enumerate() {
        let v = x + 3;
        let r = v * 2;
        let j = x % 8;
        assert_eq!(got[3 * k..3 * k + 3], [j * x + r, v, 6], "x={x}");
    }
}

#[test]
fn float_modulo_and_saturating_conversions() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let x = a[2u * g.x];
    let y = a[2u * g.x + 1u];
    o[4u * g.x] = bitcast<u32>(x % y);
    o[4u * g.x + 1u] = bitcast<u32>(i32(x));
    o[4u * g.x + 2u] = u32(x);
    o[4u * g.x + 3u] = bitcast<u32>(f32(i32(y)) + f32(u32(y)));
}";
    let ptx = compile(src);
    let a = [5.5f32, 2.0, -7.25, 2.5, 3e9, 1.0, -3e9, -1.5, f32::NAN, 4.0, 1e-3, 7.0];
    let mut bufs = vec![words(&a.map(f32::to_bits)), vec![0; 16 * a.len() / 2]];
    run(&ptx, a.len() as u32 / 2, &mut bufs);
    let got = unwords(&bufs[1]);
    for k in 0..a.len() / 2 {
        let (x, y) = (a[2 * k], a[2 * k + 1]);
        let m = x - (x / y).trunc() * y;
        // Rust's `as` saturates and maps NaN to 0, as WGSL (and PTX cvt.rzi) do.
        let want = [
            m.to_bits(),
            (x as i32) as u32,
            x as u32,
            ((y as i32) as f32 + (y as u32) as f32).to_bits(),
        ];
        assert_eq!(got[4 * k..4 * k + 4], want, "x={x} y={y}");
    }
}

#[test]
fn subgroup_reductions_and_scans_full_warp() {
    let src = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = a[i];
    let f = f32(x);
    o[6u * i] = subgroupAdd(x);
    o[6u * i + 1u] = subgroupInclusiveAdd(x);
    o[6u * i + 2u] = subgroupExclusiveAdd(x);
    o[6u * i + 3u] = u32(subgroupMax(f));
    o[6u * i + 4u] = u32(subgroupExclusiveMul(f32(x % 3u + 1u)));
    o[6u * i + 5u] = subgroupShuffleXor(x, 5u) + subgroupBroadcast(x, 7u);
}";
    let ptx = compile(src);
    let a: Vec<u32> = (0..32u32).map(|k| k.wrapping_mul(2_654_435_761) >> 20).collect();
    let mut bufs = vec![words(&a), vec![0; 6 * 4 * 32]];
    run_warp(&ptx, &mut bufs);
    let got = unwords(&bufs[1]);
    let total: u32 = a.iter().sum();
    let maxf = a.iter().map(|&x| x as f32).fold(f32::NEG_INFINITY, f32::max);
    for l in 0..32usize {
        let incl: u32 = a[..=l].iter().sum();
        let excl: u32 = a[..l].iter().sum();
        let prod: f32 = a[..l].iter().map(|&x| (x % 3 + 1) as f32).product();
        let want = [total, incl, excl, maxf as u32, prod as u32, a[l ^ 5] + a[7]];
        assert_eq!(got[6 * l..6 * l + 6], want, "lane {l}");
    }
}

#[test]
fn coop_matrix_8x8_product() {
    let src = "
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(32)
fn main() {
    let am = coopLoadT<coop_mat8x8<f32, A>>(&a[0], 8u);
    let bm = coopLoad<coop_mat8x8<f32, B>>(&b[0], 8u);
    let cm = coopLoadT<coop_mat8x8<f32, C>>(&c[0], 8u);
    coopStoreT(coopMultiplyAdd(am, bm, cm), &c[0], 8u);
}";
    let ptx = compile(src);
    let a: Vec<f32> = (0..64).map(|k| (k % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..64).map(|k| (k % 5) as f32 * 0.5).collect();
    let c: Vec<f32> = (0..64).map(|k| k as f32).collect();
    let mut bufs = vec![
        words(&a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
        words(&b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
        words(&c.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
    ];
    run_warp(&ptx, &mut bufs);
    let got = unwords(&bufs[2]);
    for r in 0..8 {
        for col in 0..8 {
            // A row-major, B column-major (element (k, col) at col * 8 + k), C row-major.
            let mut acc = 0.0f32;
            for k in 0..8 {
                acc += a[r * 8 + k] * b[col * 8 + k];
            }
            acc += c[r * 8 + col];
            assert_eq!(f32::from_bits(got[r * 8 + col]), acc, "({r}, {col})");
        }
    }
}

/// Frontend options without the bounds policy: the hand-laid parameter lists hold the buffers only (no `p_sizes`); the bounds policy has its own tests.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
