//! Cooperative-matrix tiles under the bounds policy (docs/bounds.md, "Cooperative-matrix
//! tiles"): a tile that runs past the end of its storage array reads zero for the elements
//! outside and drops the stores to them, element by element. Each case loads a tile from a
//! short array at an offset and stride known only at run time (a uniform) and copies it out
//! whole, and stores a full tile into another short array; the interpreter, our PTX on the
//! emulator and LLVM's (when built) must give what plain Rust computes from the rule, and
//! the emulator, which stops on any address outside a buffer, shows that no dropped store
//! reaches memory. Offsets are computed in 64 bits: a stride whose `r * stride` wraps a
//! `u32` names an element far outside, not one near the start.

use dianran_verify::executors::{self, ExecError, Executor, Job};
use dianran_verify::interp::Buffers;
use dianran_verify::{ptxas, tools};
use half::f16;

/// One load and one store of an `n` x `n` tile.
#[derive(Clone, Copy, Debug)]
struct Case {
    n: u32,
    f16: bool,
    load_row_major: bool,
    src_len: u32,
    src_off: u32,
    src_stride: u32,
    store_row_major: bool,
    dst_len: u32,
    dst_off: u32,
    dst_stride: u32,
}

const CASES: [Case; 6] = [
    // Cut in the middle of row 5: the rest of it and rows 6, 7 read zero; the store keeps
    // rows 0..2 and 5 elements of row 3 (column-major: columns).
    Case {
        n: 8,
        f16: false,
        load_row_major: true,
        src_len: 3 + 5 * 9 + 4,
        src_off: 3,
        src_stride: 9,
        store_row_major: false,
        dst_len: 10 + 3 * 8 + 5,
        dst_off: 10,
        dst_stride: 8,
    },
    Case {
        n: 16,
        f16: true,
        load_row_major: false,
        src_len: 2 + 11 * 20 + 8,
        src_off: 2,
        src_stride: 20,
        store_row_major: true,
        dst_len: 16 * 9 + 6,
        dst_off: 0,
        dst_stride: 16,
    },
    // The tile starts past the end (all zero); the store's stride wraps a `u32` at row 8
    // (8 * 2^29 = 2^32), which must not land on element 1 again.
    Case {
        n: 16,
        f16: false,
        load_row_major: true,
        src_len: 40,
        src_off: 45,
        src_stride: 16,
        store_row_major: true,
        dst_len: 40,
        dst_off: 1,
        dst_stride: 1 << 29,
    },
    // Exactly inside: the last element is the array's last (no element is lost).
    Case {
        n: 16,
        f16: true,
        load_row_major: true,
        src_len: 6 + 15 * 18 + 16,
        src_off: 6,
        src_stride: 18,
        store_row_major: false,
        dst_len: 4 + 15 * 17 + 16,
        dst_off: 4,
        dst_stride: 17,
    },
    // One element short on both.
    Case {
        n: 8,
        f16: true,
        load_row_major: false,
        src_len: 8 * 8 - 2,
        src_off: 0,
        src_stride: 8,
        store_row_major: true,
        dst_len: 2 + 7 * 10 + 8 - 2,
        dst_off: 2,
        dst_stride: 10,
    },
    // A stride that wraps a `u32` on the load (column 1 starts at 5 + 2^32 - 1, which wraps
    // to element 4), the store wholly past the end.
    Case {
        n: 8,
        f16: false,
        load_row_major: false,
        src_len: 20,
        src_off: 5,
        src_stride: u32::MAX,
        store_row_major: false,
        dst_len: 30,
        dst_off: 30,
        dst_stride: 8,
    },
];

/// Junk in the destination that a dropped store must leave.
const SENTINEL: f32 = -7.0;

impl Case {
    fn elem(&self) -> &'static str {
        if self.f16 {
            "f16"
        } else {
            "f32"
        }
    }

    fn wgsl(&self) -> String {
        let (n, t) = (self.n, self.elem());
        let load = if self.load_row_major { "coopLoadT" } else { "coopLoad" };
        let store = if self.store_row_major { "coopStoreT" } else { "coopStore" };
        format!(
            "enable f16;
enable wgpu_cooperative_matrix;
struct P {{ src_off: u32, src_stride: u32, dst_off: u32, dst_stride: u32 }}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<{t}>;
@group(0) @binding(2) var<storage, read_write> copy: array<{t}>;
@group(0) @binding(3) var<storage, read> full: array<{t}>;
@group(0) @binding(4) var<storage, read_write> dst: array<{t}>;
@compute @workgroup_size(32) fn main() {{
    let m = {load}<coop_mat{n}x{n}<{t}, C>>(&src[p.src_off], p.src_stride);
    coopStoreT(m, &copy[0], {n}u);
    let f = coopLoadT<coop_mat{n}x{n}<{t}, C>>(&full[0], {n}u);
    {store}(f, &dst[p.dst_off], p.dst_stride);
}}
"
        )
    }

    /// Element (r, c)'s offset from the tile's first element.
    fn offset(n_row_major: bool, stride: u32, r: u32, c: u32) -> u64 {
        let (major, minor) = if n_row_major { (r, c) } else { (c, r) };
        u64::from(major) * u64::from(stride) + u64::from(minor)
    }

    fn bytes(&self, v: &[f32]) -> Vec<u8> {
        if self.f16 {
            v.iter().flat_map(|&x| f16::from_f32(x).to_le_bytes()).collect()
        } else {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
    }

    fn values(&self, b: &[u8]) -> Vec<f32> {
        if self.f16 {
            b.chunks(2).map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()
        } else {
            b.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        }
    }

    /// Source values (all nonzero and exact in f16) and the full tile's.
    fn src(&self) -> Vec<f32> {
        (0..self.src_len).map(|i| (i % 251) as f32 + 1.0).collect()
    }

    fn full(&self) -> Vec<f32> {
        (0..self.n * self.n).map(|i| -((i % 97) as f32) - 100.0).collect()
    }

    fn input(&self) -> Buffers {
        let words = [self.src_off, self.src_stride, self.dst_off, self.dst_stride];
        let n2 = (self.n * self.n) as usize;
        [
            ((0, 0), words.iter().flat_map(|w| w.to_le_bytes()).collect()),
            ((0, 1), self.bytes(&self.src())),
            ((0, 2), self.bytes(&vec![-9.0; n2])),
            ((0, 3), self.bytes(&self.full())),
            ((0, 4), self.bytes(&vec![SENTINEL; self.dst_len as usize])),
        ]
        .into_iter()
        .collect()
    }

    /// `copy` and `dst` by the rule.
    fn expected(&self) -> (Vec<f32>, Vec<f32>) {
        let n = self.n;
        let (src, full) = (self.src(), self.full());
        let mut copy = vec![0.0; (n * n) as usize];
        let mut dst = vec![SENTINEL; self.dst_len as usize];
        for r in 0..n {
            for c in 0..n {
                let o = u64::from(self.src_off)
                    + Self::offset(self.load_row_major, self.src_stride, r, c);
                copy[(r * n + c) as usize] =
                    if o < u64::from(self.src_len) { src[o as usize] } else { 0.0 };
                let o = u64::from(self.dst_off)
                    + Self::offset(self.store_row_major, self.dst_stride, r, c);
                if o < u64::from(self.dst_len) {
                    dst[o as usize] = full[(r * n + c) as usize];
                }
            }
        }
        (copy, dst)
    }
}

#[test]
fn tiles_past_the_end_read_zero_and_drop_stores_everywhere() {
    let ptxas_found = tools::require("ptxas", tools::ptxas()).is_some();
    let mut execs = vec![Executor::Interp, Executor::Emu];
    if cfg!(feature = "llvm") {
        execs.push(Executor::LlvmEmu);
    }
    let mut failures = Vec::new();
    for case in CASES {
        let src = case.wgsl();
        let module = dianran_frontend::compile("coop_bounds.wgsl", &src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}\n{src}"));
        assert!(module.bounds_checked);
        let text = dianran_frontend::text::module_text(&module);
        // The load from `src`, the store to `dst` and the two from `copy`/`full` (lengths
        // known only at run time) each carry a limit.
        assert_eq!(text.matches(", limit %").count(), 4, "{text}");
        let (want_copy, want_dst) = case.expected();
        let job = Job::new("coop_bounds.wgsl", &src, &module, "main", [1, 1, 1]);
        for exec in &execs {
            let out = match executors::run(*exec, &job, &case.input()) {
                Ok(b) => b,
                Err(ExecError::Skipped(why)) if *exec == Executor::LlvmEmu => {
                    println!("skipped: llvm-emu: {why}");
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{case:?} on {}: {e}", exec.name()));
                    continue;
                }
            };
            let name = exec.name();
            if case.values(&out[&(0, 2)]) != want_copy {
                failures.push(format!("{case:?} on {name}: the loaded tile differs"));
            }
            if case.values(&out[&(0, 4)]) != want_dst {
                failures.push(format!("{case:?} on {name}: the stored array differs"));
            }
        }
        if ptxas_found {
            let ptx = dianran_ptx::codegen::compile_module(&module, &Default::default());
            if let Err(e) = ptxas::check(&ptx.text, 80) {
                failures.push(format!("{case:?}: ptxas sm_80 rejects the PTX: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The expected values are not trivial: every case but the exact fit loses elements on the
/// load or the store, and the exact fit loses none.
#[test]
fn the_cases_cut_tiles() {
    for (i, case) in CASES.iter().enumerate() {
        let (copy, dst) = case.expected();
        let zeros = copy.iter().filter(|&&x| x == 0.0).count();
        let kept = dst.iter().filter(|&&x| x != SENTINEL).count();
        let n2 = (case.n * case.n) as usize;
        if i == 3 {
            assert_eq!((zeros, kept), (0, n2), "{case:?}");
        } else {
            assert!(zeros > 0 || kept < n2, "{case:?}");
        }
    }
}
