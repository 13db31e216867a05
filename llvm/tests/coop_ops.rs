//! Cooperative matrices through the LLVM backend: every orientation and form of
//! `verify/tests/coop_forms.rs` (`D = A * B + C` on one warp, A/B from storage buffers or
//! from `var<workgroup>` arrays with aligned and misaligned offsets and strides, known at
//! compile time or only at run time; D stored with `coopStore` and `coopStoreT`), run on the
//! PTX emulator and checked against plain Rust arithmetic and, bit for bit, against our own
//! backend's PTX on the emulator (same fragments, same `mma`/`ldmatrix`/FMA sequences).
//! The coop samples run the same way against the interpreter and our backend. LLVM's PTX is
//! assembled with ptxas for sm_80 and sm_90 where ptxas is installed.

use dianran_frontend::ir::{self, Scalar, Type, TypeId};
use dianran_ptx::codegen::EntryInfo;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::executors::ptx_params;
use dianran_verify::interp::{self, Buffers, InterpOptions};
use dianran_verify::{ptxas, tools};
use half::f16;

/// xorshift32.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    /// Uniform in `[lo, hi)`.
    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// Element type of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F16,
    F32,
}

impl Ty {
    fn wgsl(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::F32 => "f32",
        }
    }
    fn round(self, x: f32) -> f32 {
        match self {
            Ty::F16 => f16::from_f32(x).to_f32(),
            Ty::F32 => x,
        }
    }
    fn bytes(self, v: &[f32]) -> Vec<u8> {
        let mut out: Vec<u8> = match self {
            Ty::F16 => v.iter().flat_map(|x| f16::from_f32(*x).to_le_bytes()).collect(),
            Ty::F32 => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        out.resize(out.len().next_multiple_of(4), 0);
        out
    }
    fn get(self, b: &[u8], i: usize) -> f32 {
        match self {
            Ty::F16 => f16::from_le_bytes([b[2 * i], b[2 * i + 1]]).to_f32(),
            Ty::F32 => f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]),
        }
    }
}

/// Where A and B are loaded from, and their placement (in elements) there.
#[derive(Clone, Copy, Debug)]
enum Mem {
    /// Storage buffers; A at offset 0 with stride N, B at offset 3 with stride N + 5.
    Storage,
    /// Copied into `var<workgroup>` arrays; offsets and stride are WGSL constants.
    Workgroup { off_a: u32, off_b: u32, stride: u32 },
    /// Like `Workgroup`, but offsets and stride come from a uniform at run time.
    WorkgroupRuntime { off_a: u32, off_b: u32, stride: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Case {
    n: u32,
    ab: Ty,
    acc: Ty,
    a_row: bool,
    b_row: bool,
    mem: Mem,
}

/// Element (r, c) at `off + c * stride + r` (column-major) or `off + r * stride + c`.
#[derive(Clone, Copy, Debug)]
struct Place {
    off: u32,
    stride: u32,
    row_major: bool,
}

impl Place {
    fn index(self, r: u32, c: u32) -> usize {
        let (major, minor) = if self.row_major { (r, c) } else { (c, r) };
        (self.off + major * self.stride + minor) as usize
    }
    fn len(self, n: u32) -> usize {
        (self.off + n * self.stride) as usize
    }
    fn load(self) -> &'static str {
        if self.row_major {
            "coopLoadT"
        } else {
            "coopLoad"
        }
    }
}

impl Case {
    fn name(&self) -> String {
        let o = |row| if row { "row" } else { "col" };
        format!(
            "{n}x{n} {ab}*{ab}+{acc} A {} B {} {:?}",
            o(self.a_row),
            o(self.b_row),
            self.mem,
            n = self.n,
            ab = self.ab.wgsl(),
            acc = self.acc.wgsl()
        )
    }
    fn places(&self) -> (Place, Place) {
        let n = self.n;
        let (a, b) = match self.mem {
            Mem::Storage => ((0, n), (3, n + 5)),
            Mem::Workgroup { off_a, off_b, stride }
            | Mem::WorkgroupRuntime { off_a, off_b, stride } => ((off_a, stride), (off_b, stride)),
        };
        (
            Place { off: a.0, stride: a.1, row_major: self.a_row },
            Place { off: b.0, stride: b.1, row_major: self.b_row },
        )
    }
    fn c_place(&self) -> Place {
        Place { off: 0, stride: self.n, row_major: self.a_row }
    }
    fn d_place(&self, row_major: bool) -> Place {
        Place { off: 0, stride: self.n + 2, row_major }
    }

    fn wgsl(&self) -> String {
        let (n, ab, acc) = (self.n, self.ab.wgsl(), self.acc.wgsl());
        let (pa, pb) = self.places();
        let (mut decls, mut body) = (String::new(), String::new());
        let (src_a, src_b, off_a, off_b, stride_a, stride_b) = match self.mem {
            Mem::Storage => {
                let s = |p: Place| (p.off.to_string(), format!("{}u", p.stride));
                let ((oa, sa), (ob, sb)) = (s(pa), s(pb));
                ("a", "b", oa, ob, sa, sb)
            }
            Mem::Workgroup { .. } | Mem::WorkgroupRuntime { .. } => {
                let (len_a, len_b) = (pa.len(n), pb.len(n));
                decls += &format!("var<workgroup> wa: array<{ab}, {len_a}>;\n");
                decls += &format!("var<workgroup> wb: array<{ab}, {len_b}>;\n");
                body +=
                    &format!("    for (var i = lid; i < {len_a}u; i += 32u) {{ wa[i] = a[i]; }}\n");
                body +=
                    &format!("    for (var i = lid; i < {len_b}u; i += 32u) {{ wb[i] = b[i]; }}\n");
                body += "    workgroupBarrier();\n";
                if matches!(self.mem, Mem::Workgroup { .. }) {
                    let s = format!("{}u", pa.stride);
                    ("wa", "wb", pa.off.to_string(), pb.off.to_string(), s.clone(), s)
                } else {
                    decls += "@group(0) @binding(5) var<uniform> p: vec4<u32>;\n";
                    let s = "p.z".to_string();
                    ("wa", "wb", "p.x".into(), "p.y".into(), s.clone(), s)
                }
            }
        };
        let (pc, d) = (self.c_place(), self.d_place(false));
        format!(
            "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<{ab}>;
@group(0) @binding(1) var<storage, read> b: array<{ab}>;
@group(0) @binding(2) var<storage, read> c: array<{acc}>;
@group(0) @binding(3) var<storage, read_write> d_col: array<{acc}>;
@group(0) @binding(4) var<storage, read_write> d_row: array<{acc}>;
{decls}
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
{body}    let am = {la}<coop_mat{n}x{n}<{ab}, A>>(&{src_a}[{off_a}], {stride_a});
    let bm = {lb}<coop_mat{n}x{n}<{ab}, B>>(&{src_b}[{off_b}], {stride_b});
    let cm = {lc}<coop_mat{n}x{n}<{acc}, C>>(&c[0], {n}u);
    let dm = coopMultiplyAdd(am, bm, cm);
    coopStore(dm, &d_col[0], {ds}u);
    coopStoreT(dm, &d_row[0], {ds}u);
}}
",
            la = pa.load(),
            lb = pb.load(),
            lc = pc.load(),
            ds = d.stride,
        )
    }
}

/// The cases of `coop_forms.rs` (without its `--tf32` group, an option this backend does not
/// have): (a) 16x16 f16 with f32 C from storage; (b) the same from workgroup memory, 16-byte
/// aligned (constant and run-time) and not; (c) 16x16 f16 with f16 C; (d) 8x8 f16 with f32 and
/// f16 C; (e) 8x8 f32 (exact, on the FMA units).
fn cases(group: char) -> Vec<Case> {
    use Mem::*;
    use Ty::*;
    let mems16 = [
        Workgroup { off_a: 8, off_b: 16, stride: 24 },
        Workgroup { off_a: 3, off_b: 8, stride: 17 },
        WorkgroupRuntime { off_a: 8, off_b: 16, stride: 24 },
        WorkgroupRuntime { off_a: 3, off_b: 8, stride: 17 },
        WorkgroupRuntime { off_a: 8, off_b: 5, stride: 16 },
    ];
    let mems8 = [
        Storage,
        Workgroup { off_a: 8, off_b: 16, stride: 16 },
        WorkgroupRuntime { off_a: 8, off_b: 24, stride: 8 },
        WorkgroupRuntime { off_a: 5, off_b: 8, stride: 11 },
    ];
    let (shapes, mems): (&[(u32, Ty, Ty)], &[Mem]) = match group {
        'a' => (&[(16, F16, F32)], &[Storage]),
        'b' => (&[(16, F16, F32)], &mems16),
        'c' => (&[(16, F16, F16)], &[Storage, mems16[0], mems16[3]]),
        'd' => (&[(8, F16, F32), (8, F16, F16)], &mems8),
        _ => (&[(8, F32, F32)], &[Storage, mems8[1], mems8[3]]),
    };
    let mut out = Vec::new();
    for &(n, ab, acc) in shapes {
        for &mem in mems {
            for (a_row, b_row) in [(false, false), (false, true), (true, false), (true, true)] {
                out.push(Case { n, ab, acc, a_row, b_row, mem });
            }
        }
    }
    out
}

/// Value an output element starts as (exact in f16).
const SENTINEL: f32 = -77.25;

struct Data {
    input: Buffers,
    /// Per output buffer (binding 3: column-major, 4: row-major): expected value and allowed
    /// difference of every element.
    expect: [Vec<(f32, f32)>; 2],
}

fn data(case: &Case, seed: u32) -> Data {
    let n = case.n;
    let mut rng = Rng(seed);
    let (pa, pb) = case.places();
    let pc = case.c_place();
    // Matrices as [row][col], values in [-1, 1) exact in their types; buffers full of junk.
    let mut matrix = |ty: Ty, place: Place, buf: &mut Vec<f32>| {
        buf.resize(place.len(n).max(buf.len()), 0.0);
        for x in buf.iter_mut() {
            *x = ty.round(rng.f32_in(2.0, 3.0) * if rng.below(2) == 0 { 1.0 } else { -1.0 });
        }
        let m: Vec<Vec<f32>> =
            (0..n).map(|_| (0..n).map(|_| ty.round(rng.f32_in(-1.0, 1.0))).collect()).collect();
        for r in 0..n {
            for c in 0..n {
                buf[place.index(r, c)] = m[r as usize][c as usize];
            }
        }
        m
    };
    let (mut ba, mut bb, mut bc) = (Vec::new(), Vec::new(), Vec::new());
    let (a, b, c) =
        (matrix(case.ab, pa, &mut ba), matrix(case.ab, pb, &mut bb), matrix(case.acc, pc, &mut bc));
    let mut input: Buffers =
        [(0, case.ab.bytes(&ba)), (1, case.ab.bytes(&bb)), (2, case.acc.bytes(&bc))]
            .into_iter()
            .map(|(k, v)| ((0, k), v))
            .collect();
    if let Mem::WorkgroupRuntime { off_a, off_b, stride } = case.mem {
        let p: Vec<u8> = [off_a, off_b, stride, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
        input.insert((0, 5), p);
    }
    let mut expect = [Vec::new(), Vec::new()];
    for (slot, row_major) in [(0usize, false), (1, true)] {
        let pd = case.d_place(row_major);
        let mut want = vec![(SENTINEL, 0.0); pd.len(n)];
        for r in 0..n as usize {
            for col in 0..n as usize {
                let terms = (0..n as usize).map(|k| a[r][k] as f64 * b[k][col] as f64);
                let exact: f64 = terms.clone().sum::<f64>() + c[r][col] as f64;
                let size: f64 = terms.map(f64::abs).sum::<f64>() + (c[r][col] as f64).abs();
                let mut tol = size * (2.0f64).powi(-19);
                if case.acc == Ty::F16 {
                    tol += f16_ulp(exact.abs() as f32) as f64;
                }
                want[pd.index(r as u32, col as u32)] = (exact as f32, tol as f32);
            }
        }
        expect[slot] = want;
    }
    input.insert((0, 3), case.acc.bytes(&vec![SENTINEL; expect[0].len()]));
    input.insert((0, 4), case.acc.bytes(&vec![SENTINEL; expect[1].len()]));
    Data { input, expect }
}

fn f16_ulp(x: f32) -> f32 {
    let h = f16::from_f32(x.abs());
    f16::from_bits(h.to_bits() + 1).to_f32() - h.to_f32()
}

fn check(case: &Case, who: &str, data: &Data, out: &Buffers, failures: &mut Vec<String>) {
    for (slot, binding, what) in [(0, 3, "coopStore (column-major)"), (1, 4, "coopStoreT")] {
        let Some(buf) = out.get(&(0, binding)) else {
            failures.push(format!("{} on {who}: output binding {binding} missing", case.name()));
            continue;
        };
        let mut bad = 0;
        for (i, &(want, tol)) in data.expect[slot].iter().enumerate() {
            let got = case.acc.get(buf, i);
            if (got - want).abs() <= tol || got == want {
                continue;
            }
            bad += 1;
            if bad <= 3 {
                failures.push(format!(
                    "{} on {who}: {what} element {i}: expected {want} (within {tol:e}), got {got}",
                    case.name()
                ));
            }
        }
        if bad > 3 {
            failures.push(format!("{} on {who}: {what}: {bad} elements differ", case.name()));
        }
    }
}

/// Runs `info` of PTX `text` on the emulator with `input`; returns the buffers after.
fn run_emu(
    text: &str,
    info: &EntryInfo,
    input: &Buffers,
    grid: [u32; 3],
) -> Result<Buffers, String> {
    let mut p = ptx_params(info, input).map_err(|e| e.to_string())?;
    let opts = EmuOptions { max_steps: 1 << 24, undefined_registers: Some(0x9e37_79b9_7f4a_7c15) };
    emu::run(text, &info.ptx_name, &mut p.buffers, grid, info.workgroup_size, &opts)
        .map_err(|e| e.to_string())?;
    Ok(p.bindings.into_iter().zip(p.buffers).filter_map(|(k, b)| Some((k?, b))).collect())
}

/// How [`llvm_ptx`] says that a kernel only needs math builtins the backend lacks so far.
const SKIP: &str = "skip: ";

/// The LLVM backend's PTX and entry `main` of `m`, or why there is none; ptxas (sm_80 and
/// sm_90) checks the PTX where it is installed.
fn llvm_ptx(m: &ir::Module) -> Result<(String, EntryInfo), String> {
    let out = dianran_llvm::compile_module(m, &dianran_llvm::Options::default());
    let d = &out.diagnostics;
    if !d.is_empty() && d.iter().all(|d| d.message.contains("math builtin")) {
        // Math builtins are another part of the backend.
        return Err(format!("{SKIP}{}", d[0].message));
    }
    if !d.is_empty() {
        return Err(format!("{d:#?}"));
    }
    let info = out.entries.iter().find(|e| e.name == "main").cloned().ok_or("no entry main")?;
    if tools::require("ptxas", tools::ptxas()).is_some() {
        for sm in [80, 90] {
            ptxas::check(&out.text, sm)
                .map_err(|e| format!("ptxas sm_{sm} rejects LLVM's PTX: {e}\n{}", out.text))?;
        }
    }
    Ok((out.text, info))
}

/// Our backend's PTX of `m` on the emulator.
fn ours(m: &ir::Module, input: &Buffers, grid: [u32; 3]) -> Result<Buffers, String> {
    let c = dianran_ptx::codegen::compile_module(m, &Default::default());
    let info = c.entries.iter().find(|e| e.name == "main").ok_or(format!("{:?}", c.diagnostics))?;
    run_emu(&c.text, info, input, grid)
}

/// Bitwise comparison of the bindings both runs produced.
fn same_bits(who: &str, got: &Buffers, want: &Buffers, failures: &mut Vec<String>) {
    for (key, w) in want {
        let Some(g) = got.get(key) else { continue };
        if g != w {
            let first = g.iter().zip(w).position(|(x, y)| x != y).unwrap_or(0);
            failures.push(format!("{who}: binding {key:?} differs from byte {first} on"));
        }
    }
}

fn run_case(case: &Case, seed: u32) -> Vec<String> {
    let mut failures = Vec::new();
    let name = case.name();
    let src = case.wgsl();
    let m = match dianran_frontend::compile("coop_ops.wgsl", &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => return vec![format!("{name}: frontend failed:\n{d}\n{src}")],
    };
    let data = data(case, seed);
    let (text, info) = match llvm_ptx(&m) {
        Ok(x) => x,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let got = match run_emu(&text, &info, &data.input, [1, 1, 1]) {
        Ok(b) => b,
        Err(e) => return vec![format!("{name}: LLVM's PTX on the emulator: {e}\n{text}")],
    };
    check(case, "llvm-emu", &data, &got, &mut failures);
    match ours(&m, &data.input, [1, 1, 1]) {
        Ok(o) => same_bits(&format!("{name}: llvm-emu vs ours-emu"), &got, &o, &mut failures),
        Err(e) => failures.push(format!("{name}: our backend: {e}")),
    }
    failures
}

fn run_group(group: char) {
    let list = cases(group);
    assert!(!list.is_empty());
    let mut failures = Vec::new();
    for (i, case) in list.iter().enumerate() {
        failures.extend(run_case(case, 0x5eed_0000 + i as u32 * 7919));
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_16x16_f16_f32_acc_from_storage() {
    run_group('a');
}

#[test]
fn b_16x16_f16_f32_acc_from_workgroup_memory() {
    run_group('b');
}

#[test]
fn c_16x16_f16_f16_acc() {
    run_group('c');
}

#[test]
fn d_8x8_f16_f32_and_f16_acc() {
    run_group('d');
}

#[test]
fn e_8x8_f32_exact() {
    run_group('e');
}

/// 16x16 f32 A/B matrices stay a diagnostic (our backend computes them only with `--tf32`),
/// for loads and products alike, and never a panic; other entries of the module still
/// compile.
#[test]
fn f32_16x16_is_a_diagnostic() {
    let case =
        Case { n: 16, ab: Ty::F32, acc: Ty::F32, a_row: true, b_row: false, mem: Mem::Storage };
    let src = case.wgsl()
        + "
@compute @workgroup_size(32)
fn other(@builtin(local_invocation_index) lid: u32) { d_row[lid] = c[lid]; }
";
    let m = dianran_frontend::compile("f32.wgsl", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
    assert_eq!(out.diagnostics.len(), 1, "{:#?}", out.diagnostics);
    let d = &out.diagnostics[0];
    assert!(d.message.contains("exact f32 x f32 cooperative-matrix products"), "{}", d.message);
    assert!(d.message.contains("'main'"), "{}", d.message);
    assert_eq!(out.entries.len(), 1);
    assert_eq!(out.entries[0].name, "other");
}

/// The f16 forms use the NVVM tensor-core intrinsics (`ldmatrix` from workgroup memory,
/// `mma.m16n8k16`/`m16n8k8`), and there are as many run-time alignment tests (`vote.sync.all`)
/// as in our backend's PTX: none for A and B at offsets and strides known to be 16-byte
/// aligned, one each when they are known only at run time (C and D in storage buffers test
/// theirs in both backends: a binding only promises its element alignment).
#[test]
fn intrinsics_and_alignment_tests_where_ours_has_them() {
    use Mem::*;
    let forms: [(u32, Mem, &[&str]); 3] = [
        (
            16,
            Workgroup { off_a: 8, off_b: 16, stride: 24 },
            &[
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            ],
        ),
        (16, WorkgroupRuntime { off_a: 8, off_b: 16, stride: 24 }, &["ldmatrix", "m16n8k16"]),
        (
            8,
            Workgroup { off_a: 8, off_b: 16, stride: 16 },
            &["ldmatrix.sync.aligned.m8n8.x1", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"],
        ),
    ];
    for (n, mem, needles) in forms {
        for (a_row, b_row) in [(false, false), (true, false), (false, true), (true, true)] {
            let case = Case { n, ab: Ty::F16, acc: Ty::F32, a_row, b_row, mem };
            let m = dianran_frontend::compile("forms.wgsl", &case.wgsl(), &Default::default())
                .unwrap_or_else(|d| panic!("{d}"));
            let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
            assert!(out.diagnostics.is_empty(), "{:#?}", out.diagnostics);
            if a_row && b_row {
                for needle in needles {
                    assert!(
                        out.text.contains(needle),
                        "{}: {needle} missing\n{}",
                        case.name(),
                        out.text
                    );
                }
            }
            let ours = dianran_ptx::codegen::compile_module(&m, &Default::default());
            assert_eq!(
                out.ir.matches("call i1 @llvm.nvvm.vote.all.sync(").count(),
                ours.text.matches("vote.sync.all").count(),
                "{}\n{}",
                case.name(),
                out.ir
            );
        }
    }
}

/// What a 4-byte word of a buffer holds, for comparisons with the interpreter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    F32,
    F16,
}

/// Fills `buf[at..]` with values of type `ty` (f32 multiples of 1/8 in [-4, 4), f16 in
/// [-2, 2)) and records each word's kind.
fn fill(m: &ir::Module, ty: TypeId, at: usize, buf: &mut [u8], kinds: &mut [Kind], rng: &mut Rng) {
    let mut scalar = |s: Scalar, at: usize, buf: &mut [u8], kinds: &mut [Kind]| {
        let r = rng.next();
        let (bytes, kind): (Vec<u8>, Kind) = match s {
            Scalar::F32 => ((((r % 64) as f32 - 32.0) / 8.0).to_le_bytes().to_vec(), Kind::F32),
            Scalar::F16 => {
                (f16::from_f32(((r % 32) as f32 - 16.0) / 8.0).to_le_bytes().to_vec(), Kind::F16)
            }
            _ => ((r % 64).to_le_bytes().to_vec(), Kind::Int),
        };
        if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
            if let Some(k) = kinds.get_mut(at / 4) {
                *k = kind;
            }
        }
    };
    match m.types.get(ty) {
        Type::Scalar(s) => scalar(*s, at, buf, kinds),
        Type::Array { base, len, stride } => {
            let n = match len {
                Some(n) => *n as usize,
                None => buf.len().saturating_sub(at) / (*stride).max(1) as usize,
            };
            for e in 0..n {
                fill(m, *base, at + e * *stride as usize, buf, kinds, rng);
            }
        }
        _ => {}
    }
}

/// Runs a coop sample (entry `main`) on LLVM's PTX, our PTX and (`vs_interp`) the
/// interpreter; `uniform` gives the words of a uniform binding the random fill must not touch.
fn run_sample(path: &str, uniform: Option<((u32, u32), &[u32])>, vs_interp: bool) -> Vec<String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = std::fs::read_to_string(root.join(path)).expect("sample");
    let header = dianran_verify::samples::header(&src).expect("header");
    let grid = header.dispatch.expect("dispatch");
    let m = dianran_frontend::compile(path, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{path}: {d}"));
    let bindings = dianran_verify::buffers::entry_bindings(&m, "main").expect("bindings");
    let mut input = dianran_verify::buffers::default_buffers(&m, "main", 1 << 14)
        .unwrap_or_else(|d| panic!("{path}: {}", d.message));
    let mut rng = Rng(0x1234_5678);
    let mut kinds = std::collections::BTreeMap::new();
    for b in &bindings {
        let key = (b.group, b.binding);
        if let Some(buf) = input.get_mut(&key) {
            let mut k = vec![Kind::Int; buf.len().div_ceil(4)];
            fill(&m, b.ty, 0, buf, &mut k, &mut rng);
            kinds.insert(key, k);
        }
    }
    if let Some((key, words)) = uniform {
        input.insert(key, words.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    let mut failures = Vec::new();
    let (text, info) = match llvm_ptx(&m) {
        Ok(x) => x,
        // Run the kernel once the math builtins it needs lower.
        Err(e) if e.starts_with(SKIP) => {
            println!("skipped: {path}: {}", &e[SKIP.len()..]);
            return Vec::new();
        }
        Err(e) => return vec![format!("{path}: {e}")],
    };
    let got = match run_emu(&text, &info, &input, grid) {
        Ok(b) => b,
        Err(e) => return vec![format!("{path}: LLVM's PTX on the emulator: {e}")],
    };
    match ours(&m, &input, grid) {
        Ok(o) => same_bits(&format!("{path}: llvm-emu vs ours-emu"), &got, &o, &mut failures),
        Err(e) => failures.push(format!("{path}: our backend: {e}")),
    }
    if !vs_interp {
        return failures;
    }
    let mut want = input.clone();
    if let Err(d) = interp::run(&m, "main", grid, &mut want, &InterpOptions::default()) {
        failures.push(format!("{path}: interpreter: {}", d.message));
        return failures;
    }
    for (key, w) in &want {
        let Some(g) = got.get(key) else { continue };
        let kind = |i: usize| kinds.get(key).and_then(|k| k.get(i).copied()).unwrap_or(Kind::Int);
        let mut bad = 0;
        for (i, (a, b)) in g.chunks(4).zip(w.chunks(4)).enumerate() {
            let word = |x: &[u8]| u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
            let (x, y) = (word(a), word(b));
            let ok = x == y
                || match kind(i) {
                    Kind::F32 => {
                        let (p, q) = (f32::from_bits(x), f32::from_bits(y));
                        (p - q).abs() <= 1e-3 * (1.0 + q.abs())
                    }
                    Kind::F16 => [0, 16].iter().all(|&s| {
                        let p = f16::from_bits((x >> s) as u16).to_f32();
                        let q = f16::from_bits((y >> s) as u16).to_f32();
                        (p - q).abs() <= 1e-2 * (1.0 + q.abs())
                    }),
                    Kind::Int => false,
                };
            if !ok {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!(
                        "{path} vs interp: binding {key:?} word {i}: got {x:#010x}, expected {y:#010x}"
                    ));
                }
            }
        }
        if bad > 3 {
            failures.push(format!("{path} vs interp: binding {key:?}: {bad} words differ"));
        }
    }
    failures
}

#[test]
fn coop_samples() {
    let mut failures = Vec::new();
    failures.extend(run_sample("tests/samples/coop_matmul_8.wgsl", None, true));
    failures.extend(run_sample("tests/samples/coop_matmul_16.wgsl", None, true));
    // M = 80, N = 112, K = 48 (the sample header's dispatch fits them).
    failures.extend(run_sample(
        "tests/samples/gemm_tiled_f16.wgsl",
        Some(((0, 0), &[80, 112, 48, 0])),
        true,
    ));
    // M = 8, N = 96, K = 160 and M = 48, N = 80, K = 64, as verify/tests/gemm.rs runs them.
    failures.extend(run_sample(
        "tests/samples/gemm_small_m.wgsl",
        Some(((0, 0), &[8, 96, 160, 0])),
        true,
    ));
    failures.extend(run_sample(
        "tests/samples/gemm_bias_relu.wgsl",
        Some(((0, 0), &[48, 80, 64, 0])),
        true,
    ));
    // M = N = K = stride = 16. Its workgroup of 8x8 is two warps that both load, update and
    // store the same C tile, a race the interpreter (lockstep) and the emulator (one warp
    // after the other) resolve differently; the two PTX texts still agree bit for bit.
    failures.extend(run_sample(
        "tests/realworld/wgpu_cooperative_matrix.wgsl",
        Some(((0, 3), &[16, 16, 16, 16])),
        false,
    ));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
