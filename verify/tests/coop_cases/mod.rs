//! The cooperative-matrix cases shared by `verify/tests/coop_forms.rs` (our backend, the
//! interpreter, the emulator, CUDA) and `llvm/tests/coop_ops.rs` (the LLVM backend, which
//! includes this file by path): `D = A * B + C` on one warp in every orientation, with A/B
//! from storage buffers or `var<workgroup>` arrays, the WGSL kernel of each, and the groups
//! of cases the tests run, their inputs and expected outputs and the check of a run's
//! outputs. One definition, so both backends are checked on the same forms.

// Each includer uses its own part of the cases' helpers.
#![allow(dead_code)]

use dianran_verify::interp::Buffers;
use half::f16;

/// xorshift32 (the seeds are never 0).
pub struct Rng(pub u32);

impl Rng {
    /// Next raw 32-bit value.
    pub fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    /// Uniform in `[lo, hi)`.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// Element type of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    F16,
    F32,
}

impl Ty {
    pub fn wgsl(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::F32 => "f32",
        }
    }
    /// `x` rounded to this type.
    pub fn round(self, x: f32) -> f32 {
        match self {
            Ty::F16 => f16::from_f32(x).to_f32(),
            Ty::F32 => x,
        }
    }
    /// Little-endian bytes of `v`, padded to a multiple of 4 bytes.
    pub fn bytes(self, v: &[f32]) -> Vec<u8> {
        let mut out: Vec<u8> = match self {
            Ty::F16 => v.iter().flat_map(|x| f16::from_f32(*x).to_le_bytes()).collect(),
            Ty::F32 => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        out.resize(out.len().next_multiple_of(4), 0);
        out
    }
    /// Element `i` of a buffer of this type.
    pub fn get(self, b: &[u8], i: usize) -> f32 {
        match self {
            Ty::F16 => f16::from_le_bytes([b[2 * i], b[2 * i + 1]]).to_f32(),
            Ty::F32 => f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]),
        }
    }
}

/// Where A and B are loaded from, and their placement (in elements) there.
#[derive(Clone, Copy, Debug)]
pub enum Mem {
    /// Storage buffers; A at offset 0 with stride N, B at offset 3 with stride N + 5.
    Storage,
    /// Copied into `var<workgroup>` arrays; offsets and stride are WGSL constants.
    Workgroup { off_a: u32, off_b: u32, stride: u32 },
    /// Like `Workgroup`, but offsets and stride come from a uniform at run time.
    WorkgroupRuntime { off_a: u32, off_b: u32, stride: u32 },
}

/// One kernel: `N`x`N` matrices, A/B of type `ab`, C/D of type `acc`.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub n: u32,
    pub ab: Ty,
    pub acc: Ty,
    pub a_row: bool,
    pub b_row: bool,
    pub mem: Mem,
    /// Compiled with `--tf32` (f32 A/B on TF32 tensor cores).
    pub tf32: bool,
}

/// A matrix's place in a buffer: element (r, c) at `off + c * stride + r` (column-major) or
/// `off + r * stride + c` (row-major).
#[derive(Clone, Copy, Debug)]
pub struct Place {
    pub off: u32,
    pub stride: u32,
    pub row_major: bool,
}

impl Place {
    pub fn index(self, r: u32, c: u32) -> usize {
        let (major, minor) = if self.row_major { (r, c) } else { (c, r) };
        (self.off + major * self.stride + minor) as usize
    }
    /// Elements a buffer needs to hold an `n`x`n` matrix here.
    pub fn len(self, n: u32) -> usize {
        (self.off + n * self.stride) as usize
    }
    pub fn load(self) -> &'static str {
        if self.row_major {
            "coopLoadT"
        } else {
            "coopLoad"
        }
    }
}

impl Case {
    pub fn name(&self) -> String {
        let o = |row| if row { "row" } else { "col" };
        format!(
            "{n}x{n} {ab}*{ab}+{acc}{} A {} B {} {:?}",
            if self.tf32 { " (tf32)" } else { "" },
            o(self.a_row),
            o(self.b_row),
            self.mem,
            n = self.n,
            ab = self.ab.wgsl(),
            acc = self.acc.wgsl()
        )
    }
    pub fn places(&self) -> (Place, Place) {
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
    /// C is loaded in A's orientation; D is stored at offset 0 with stride N + 2.
    pub fn c_place(&self) -> Place {
        Place { off: 0, stride: self.n, row_major: self.a_row }
    }
    pub fn d_place(&self, row_major: bool) -> Place {
        Place { off: 0, stride: self.n + 2, row_major }
    }

    pub fn wgsl(&self) -> String {
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

/// Every case: (a) 16x16 f16 with f32 C from storage; (b) the same from workgroup memory,
/// 16-byte-aligned (constant and run-time) and not (run-time, and a constant stride of 17);
/// (c) 16x16 f16 with f16 C; (d) 8x8 f16 with f32 and f16 C from storage and workgroup memory;
/// (e) 8x8 f32 (exact); (f) 16x16 and 8x8 f32 with `--tf32`.
pub fn cases(group: char) -> Vec<Case> {
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
        'e' => (&[(8, F32, F32)], &[Storage, mems8[1], mems8[3]]),
        _ => (&[(16, F32, F32), (8, F32, F32)], &[Storage, mems8[1]]),
    };
    let tf32 = group == 'f';
    let mut out = Vec::new();
    for &(n, ab, acc) in shapes {
        for &mem in mems {
            for (a_row, b_row) in [(false, false), (false, true), (true, false), (true, true)] {
                out.push(Case { n, ab, acc, a_row, b_row, mem, tf32 });
            }
        }
    }
    out
}

/// Value an output element starts as (exact in f16).
pub const SENTINEL: f32 = -77.25;

/// The inputs of a case, the buffers holding them, and the expected outputs.
pub struct Data {
    pub input: Buffers,
    /// Per output buffer (binding 3: column-major, 4: row-major): expected value, allowed
    /// difference and `sum |a*b|` of every element.
    pub expect: [Vec<(f32, f32, f32)>; 2],
}

pub fn data(case: &Case, seed: u32) -> Data {
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
        let mut want = vec![(SENTINEL, 0.0, 0.0); pd.len(n)];
        for r in 0..n as usize {
            for col in 0..n as usize {
                let terms = (0..n as usize).map(|k| a[r][k] as f64 * b[k][col] as f64);
                let exact: f64 = terms.clone().sum::<f64>() + c[r][col] as f64;
                let size: f64 = terms.map(f64::abs).sum::<f64>() + (c[r][col] as f64).abs();
                // f32 accumulation: at most 2N+1 roundings of 2^-24, each relative to the sum
                // of |terms| (f16 products are exact in f32; f32 products round once).
                let mut tol = size * (2.0f64).powi(-19);
                if case.acc == Ty::F16 {
                    // One rounding to f16, which the accumulation error may tip: 1 ulp.
                    tol += f16_ulp(exact.abs() as f32) as f64;
                }
                want[pd.index(r as u32, col as u32)] = (exact as f32, tol as f32, size as f32);
            }
        }
        expect[slot] = want;
    }
    input.insert((0, 3), case.acc.bytes(&vec![SENTINEL; expect[0].len()]));
    input.insert((0, 4), case.acc.bytes(&vec![SENTINEL; expect[1].len()]));
    Data { input, expect }
}

pub fn f16_ulp(x: f32) -> f32 {
    let h = f16::from_f32(x.abs());
    f16::from_bits(h.to_bits() + 1).to_f32() - h.to_f32()
}

/// Differences of `out` from `data.expect`, each naming the case, the executor and the element.
/// PTX executors of a `tf32` case get `2^-9 * sum |a*b|` more: TF32 rounds each input to a
/// 10-bit mantissa (relative error at most 2^-11), so each product is off by about 2^-10.
pub fn check(case: &Case, who: &str, data: &Data, out: &Buffers, failures: &mut Vec<String>) {
    let tf32 = case.tf32 && who != "interp";
    for (slot, binding, what) in [(0, 3, "coopStore (column-major)"), (1, 4, "coopStoreT")] {
        let Some(buf) = out.get(&(0, binding)) else {
            failures.push(format!("{} on {who}: output binding {binding} missing", case.name()));
            continue;
        };
        let mut bad = 0;
        for (i, &(want, tol, size)) in data.expect[slot].iter().enumerate() {
            let tol = if tf32 { tol + size / 512.0 } else { tol };
            let got = case.acc.get(buf, i);
            if (got - want).abs() <= tol || got == want {
                continue;
            }
            bad += 1;
            if bad <= 3 {
                let place = case.d_place(slot == 1);
                let (major, minor) = (i as u32 / place.stride, i as u32 % place.stride);
                let (r, c) = if slot == 1 { (major, minor) } else { (minor, major) };
                let at = if minor < case.n { format!("D[{r}][{c}]") } else { "padding".into() };
                failures.push(format!(
                    "{} on {who}: {what} element {i} ({at}): expected {want} (within {tol:e}), got {got}",
                    case.name()
                ));
            }
        }
        if bad > 3 {
            failures.push(format!("{} on {who}: {what}: {bad} elements differ", case.name()));
        }
    }
}
