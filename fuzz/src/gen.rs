//! The random program generator: valid WGSL compute kernels, deterministic per seed, whose
//! results every executor must agree on.
//!
//! How the programs stay deterministic and comparable:
//!
//! * **Outputs.** Invocation `idx` (its linear index in the dispatch) writes only the slots
//!   `idx * 4 .. idx * 4 + 4` of each output array, and its own `out_s[idx]`, or a slot past
//!   the end of the array, where WebGPU's bounds policy drops the store (docs/bounds.md).
//!   Inputs are read anywhere, with indices mostly reduced `% arrayLength` and sometimes out
//!   of range (a zero under the bounds policy); atomics sometimes target a slot past the end
//!   (dropped, result zero).
//! * **Workgroup memory** is used in one phase at the top of the entry point (uniform control
//!   flow): every invocation writes its own slot, a barrier, reads of other slots, a barrier.
//!   `workgroupUniformLoad` reads a variable invocation 0 wrote.
//! * **Atomics.** Shared slots get one commutative operation each for the whole program (add,
//!   max, min, or, and, xor) with the result unused, so the final value does not depend on
//!   the order; every invocation also has its own slot, where every operation (exchange,
//!   compare-exchange, loads) is deterministic.
//! * **Subgroup operations and cooperative matrices** sit at the top level of the entry point
//!   (uniform control flow) with workgroup sizes that are whole subgroups; shuffle indices are
//!   masked by `subgroup_size - 1`. Results that depend on the subgroup size are compared at
//!   each executor's own size (`verify` runs the reference at lavapipe's size for lavapipe).
//! * **Integers** use every operator and builtin freely: their WGSL semantics (division by zero,
//!   `i32::MIN / -1`, shift masking, wrapping) are exact on every executor. An operation never
//!   has only constant operands, so naga's constant evaluation never sees an overflow.
//! * **Floats** stay within [-4, 4]: every float expression is built to keep that bound (clamps,
//!   scaled products, math functions on bounded domains away from their poles and branch
//!   cuts), so the executors' last-bit differences stay below `verify`'s bounds. Discontinuous
//!   operations (comparisons, `floor`, `fract`, conversions to integers, `bitcast`, `step`,
//!   `quantizeToF16`, packing) only see *exact* floats: small multiples of 1/8 built from
//!   integers and literals with exact operations, identical on every executor.
//! * **Loops** run a bounded number of times: a counter that the body cannot assign.

use crate::ast::{
    Case, Expr, ExprKind, Function, Global, Program, Role, Stmt, StructDef, Ty, ENTRY, S,
};
use crate::rng::Rng;

mod sgm;
mod tile;
pub use sgm::{Shape as SgmShape, SHAPES as SGM_SHAPES};

/// Elements each invocation owns in every output array.
pub const SLOTS: u32 = 4;

/// Which optional features a program uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    /// `enable f16;` and f16 values.
    pub f16: bool,
    /// Subgroup builtins.
    pub subgroups: bool,
    /// Cooperative matrices (implies f16 and subgroup-sized workgroups).
    pub coop: bool,
    /// Dawn's subgroup matrices: the product's shape and types (implies f16 and
    /// subgroup-sized workgroups; never with `coop`).
    pub sgm: Option<SgmShape>,
    /// Storage and workgroup atomics.
    pub atomics: bool,
    /// The workgroup-memory phase with barriers.
    pub workgroup: bool,
    /// Matrices.
    pub matrices: bool,
    /// dianran's workgroup matrices (implies f16 and workgroups of 128).
    pub tile: bool,
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    /// Can be assigned (a `var`, a private global, a pointer parameter's target).
    mutable: bool,
    /// How to read it (`*p` for pointer parameters).
    read: Expr,
}

/// Where statements are being generated.
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    /// Loop nesting depth.
    loops: u32,
    /// Whether `break`/`continue` may appear (inside a loop body, not in `continuing`).
    breakable: bool,
    /// Generating the entry point (the builtins and outputs are in scope).
    entry: bool,
    /// Inside a `continuing` block (no `return` there).
    continuing: bool,
}

/// Generates the program for `seed`.
pub fn generate(seed: u64) -> Program {
    Gen::new(seed).program()
}

struct Gen {
    rng: Rng,
    seed: u64,
    next: u32,
    f: Features,
    structs: Vec<StructDef>,
    globals: Vec<Global>,
    functions: Vec<Function>,
    scopes: Vec<Vec<Var>>,
    /// Helper functions callable so far: (name, parameter types, return type).
    helpers: Vec<(String, Vec<Ty>, Ty)>,
    /// The current function's return type.
    ret: Option<Ty>,
    /// Statements left in the current function.
    budget: i32,
    /// Nesting of input-array indices being generated.
    in_index: u32,
    /// Calls generated so far, by helper.
    calls: std::collections::HashMap<String, u32>,
    /// Workgroup size and dispatch.
    wg: [u32; 3],
    dispatch: [u32; 3],
    /// The runtime array length the subgroup-matrix phase reads and writes within.
    sgm_len: u32,
    /// The runtime array length the tile phase reads and writes within.
    tile_len: u32,
}

/// Value types that locals can have.
const SCALARS: [S; 4] = [S::I32, S::U32, S::F32, S::Bool];

/// Binary integer operators (WGSL defines every one for all operands).
const INT_ARITH: [&str; 8] = ["+", "-", "*", "/", "%", "&", "|", "^"];
/// Compound assignments on integers.
const INT_COMPOUND: [&str; 8] = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="];
/// Shifts (amounts masked as WGSL says).
const SHIFTS: [&str; 2] = ["<<", ">>"];
/// One-operand integer builtins.
const INT_BITS: [&str; 7] = [
    "countOneBits",
    "countLeadingZeros",
    "countTrailingZeros",
    "firstLeadingBit",
    "firstTrailingBit",
    "reverseBits",
    "abs",
];
/// Comparisons (of integers and exact floats).
const COMPARISONS: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];
/// Discontinuous one-operand float builtins, applied to exact floats only.
const EXACT_ROUNDING: [&str; 7] = ["floor", "ceil", "round", "trunc", "fract", "abs", "sign"];
/// The math builtins `float_expr` and `float_math` write (on bounded domains away from poles).
const FLOAT_MATH: [&str; 28] = [
    "sin",
    "cos",
    "tanh",
    "atan",
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "inverseSqrt",
    "pow",
    "tan",
    "asin",
    "acos",
    "atan2",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "smoothstep",
    "saturate",
    "radians",
    "degrees",
    "abs",
    "clamp",
    "min",
    "max",
];

const INTS: &[S] = &[S::I32, S::U32];
const FLOATS: &[S] = &[S::F32, S::F16];
const ALL_WIDTHS: &[u8] = &[1, 2, 3, 4];
const VECTORS: &[u8] = &[2, 3, 4];
const SCALAR: &[u8] = &[1];

/// Every operator and builtin the generator writes on scalars and vectors, with the scalar
/// types and widths (1: a scalar) of the first operand it writes each with. Prefix operators
/// are spelled `-x`, `~x`, `!x`; compound assignments by their operator (`%=`). The coverage
/// test (`fuzz/tests/coverage.rs`) generates programs and names every (operation, type) pair
/// of this table that none of them holds. Matrices, atomics, subgroup and cooperative-matrix
/// builtins are checked there as features.
pub const SUPPORTED: &[(&[&str], &[S], &[u8])] = &[
    (&INT_ARITH, INTS, ALL_WIDTHS),
    (&INT_COMPOUND, INTS, ALL_WIDTHS),
    (&SHIFTS, INTS, ALL_WIDTHS),
    (&["~x"], INTS, ALL_WIDTHS),
    (&["-x"], &[S::I32, S::F32, S::F16], ALL_WIDTHS),
    (&INT_BITS, INTS, ALL_WIDTHS),
    (&["min", "max", "clamp", "select", "extractBits", "insertBits"], INTS, ALL_WIDTHS),
    (&["dot"], &[S::I32, S::U32, S::F32, S::F16], VECTORS),
    (&["pack4xI8", "pack4xI8Clamp"], &[S::I32], &[4]),
    (&["pack4xU8", "pack4xU8Clamp"], &[S::U32], &[4]),
    (&["pack4x8snorm", "pack4x8unorm"], &[S::F32], &[4]),
    (&["pack2x16snorm", "pack2x16unorm", "pack2x16float"], &[S::F32], &[2]),
    (&["dot4I8Packed", "dot4U8Packed", "unpack2x16snorm", "unpack2x16unorm"], &[S::U32], SCALAR),
    (&["unpack4x8snorm", "unpack4x8unorm"], &[S::U32], SCALAR),
    (&COMPARISONS, &[S::I32, S::U32, S::F32], ALL_WIDTHS),
    (&["!x", "&", "|", "==", "!="], &[S::Bool], ALL_WIDTHS),
    (&["&&", "||"], &[S::Bool], SCALAR),
    (&["any", "all"], &[S::Bool], VECTORS),
    (&["+", "-", "*", "/", "%"], FLOATS, ALL_WIDTHS),
    (&["fma", "mix", "select"], FLOATS, ALL_WIDTHS),
    (&FLOAT_MATH, FLOATS, ALL_WIDTHS),
    (&["length", "distance", "normalize"], FLOATS, VECTORS),
    (&EXACT_ROUNDING, FLOATS, ALL_WIDTHS),
    (&["step"], FLOATS, ALL_WIDTHS),
    (&["quantizeToF16"], &[S::F32], ALL_WIDTHS),
];

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut rng = Rng::new(seed);
        let coop = rng.chance(20);
        let sgm = if !coop && rng.chance(18) { Some(*rng.pick(SGM_SHAPES)) } else { None };
        let subgroups = coop || sgm.is_some() || rng.chance(55);
        let f = Features {
            f16: coop || sgm.is_some() || rng.chance(35),
            subgroups,
            coop,
            sgm,
            atomics: rng.chance(65),
            workgroup: rng.chance(65),
            matrices: rng.chance(45),
            tile: false,
        };
        // Subgroup operations and cooperative matrices want whole subgroups of 32 (PTX) and
        // of 8 (lavapipe); other programs get any shape.
        let wg = if subgroups {
            // One-dimensional: naga has no subgroup invocation ids otherwise.
            *rng.pick(&[[32, 1, 1], [64, 1, 1], [128, 1, 1]])
        } else {
            *rng.pick(&[
                [1, 1, 1],
                [4, 1, 1],
                [8, 2, 1],
                [7, 1, 1],
                [4, 4, 2],
                [32, 1, 1],
                [64, 1, 1],
                [3, 3, 1],
            ])
        };
        let dispatch = *rng.pick(&[[1, 1, 1], [2, 1, 1], [1, 2, 1], [3, 1, 1], [2, 2, 1]]);
        // Workgroup matrices are drawn from a generator of their own, so that every program
        // without them is the one the seed made before they existed.
        let mut f = f;
        let mut wg = wg;
        let mut tile_rng = Rng::new(seed ^ 0x7469_6c65);
        if tile_rng.chance(6) {
            f.tile = true;
            f.f16 = true;
            wg = if subgroups || tile_rng.chance(50) { [128, 1, 1] } else { [64, 2, 1] };
        }
        Gen {
            rng,
            seed,
            next: 0,
            f,
            structs: Vec::new(),
            globals: Vec::new(),
            functions: Vec::new(),
            scopes: vec![Vec::new()],
            helpers: Vec::new(),
            ret: None,
            budget: 0,
            in_index: 0,
            calls: std::collections::HashMap::new(),
            wg,
            dispatch,
            sgm_len: 0,
            tile_len: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        loop {
            self.next += 1;
            let name = format!("{prefix}{}", self.next);
            // `f16`, `i32`, ...: a local or function of that name would hide the type.
            if !matches!(
                name.as_str(),
                "f16" | "f32" | "i32" | "u32" | "i8" | "u8" | "f64" | "i64" | "u64"
            ) {
                return name;
            }
        }
    }

    fn threads(&self) -> u32 {
        self.wg.iter().product::<u32>()
    }

    fn invocations(&self) -> u32 {
        self.threads() * self.dispatch.iter().product::<u32>()
    }

    // ---- program structure ----

    fn program(mut self) -> Program {
        let mut enables = Vec::new();
        if self.f.f16 {
            enables.push("f16");
        }
        if self.f.subgroups {
            enables.push("subgroups");
        }
        if self.f.coop {
            enables.push("wgpu_cooperative_matrix");
        }
        if self.f.sgm.is_some() {
            enables.push("chromium_experimental_subgroup_matrix");
        }
        if self.f.tile {
            enables.push("dianran_workgroup_matrix");
        }
        self.declare_types_and_buffers();
        let n_helpers = 1 + self.rng.below(2);
        for _ in 0..n_helpers {
            self.helper();
        }
        self.entry();
        // Cooperative loads of subgroup `csg` read 16 rows of up to 24 elements from element
        // `8 csg + 3`: 379 past the last subgroup's start.
        let runtime_len = if self.f.coop {
            (self.invocations() * 8 + 384).max(self.tile_len)
        } else {
            // A multiple of 4: a runtime array of f16 then fills whole words of its buffer,
            // so `arrayLength` is the same on every executor.
            (self.invocations() * SLOTS)
                .max(256)
                .max(self.sgm_len)
                .max(self.tile_len)
                .next_multiple_of(4)
        };
        Program {
            seed: self.seed,
            enables,
            structs: self.structs,
            globals: self.globals,
            functions: self.functions,
            dispatch: self.dispatch,
            runtime_len,
        }
    }

    fn buffer(&mut self, space: &'static str, name: &str, ty: Ty, binding: (u32, u32)) {
        self.globals.push(Global {
            space,
            name: name.into(),
            ty,
            binding: Some(binding),
            init: None,
        });
    }

    fn declare_types_and_buffers(&mut self) {
        // Structs: one host-shareable input, one output, one for locals.
        self.structs.push(StructDef {
            name: "In".into(),
            fields: vec![
                ("a".into(), Ty::S(S::F32)),
                ("b".into(), Ty::Vec(3, S::F32)),
                ("c".into(), Ty::S(S::U32)),
                ("d".into(), Ty::Vec(2, S::I32)),
            ],
        });
        let mut out_fields = vec![
            ("x".into(), Ty::Vec(2, S::F32)),
            ("n".into(), Ty::S(S::I32)),
            ("v".into(), Ty::Vec(3, S::U32)),
        ];
        if self.f.matrices {
            out_fields.push(("m".into(), Ty::Mat(2, 2, S::F32)));
        }
        self.structs.push(StructDef { name: "Out".into(), fields: out_fields });
        let mut local_fields = vec![
            ("p".into(), Ty::S(S::F32)),
            ("q".into(), Ty::Vec(2, S::U32)),
            ("r".into(), Ty::Array(Box::new(Ty::S(S::I32)), 3)),
            ("s".into(), Ty::S(S::Bool)),
        ];
        if self.f.f16 {
            local_fields.push(("h".into(), Ty::Vec(2, S::F16)));
        }
        self.structs.push(StructDef { name: "Loc".into(), fields: local_fields });
        self.structs.push(StructDef {
            name: "Uni".into(),
            fields: vec![
                ("k".into(), Ty::S(S::U32)),
                ("f".into(), Ty::S(S::F32)),
                ("v".into(), Ty::Vec(4, S::F32)),
                ("i".into(), Ty::S(S::I32)),
            ],
        });
        let rt = |t: Ty| Ty::RtArray(Box::new(t));
        self.buffer("storage, read", "in_f", rt(Ty::S(S::F32)), (0, 0));
        self.buffer("storage, read", "in_u", rt(Ty::S(S::U32)), (0, 1));
        self.buffer("storage, read", "in_i", rt(Ty::Vec(4, S::I32)), (0, 2));
        self.buffer("storage, read", "in_s", rt(Ty::Struct("In".into())), (0, 3));
        self.buffer("uniform", "uni", Ty::Struct("Uni".into()), (0, 4));
        if self.f.f16 {
            self.buffer("storage, read", "in_h", rt(Ty::S(S::F16)), (0, 5));
        }
        self.buffer("storage, read_write", "out_u", rt(Ty::S(S::U32)), (1, 0));
        self.buffer("storage, read_write", "out_f", rt(Ty::S(S::F32)), (1, 1));
        self.buffer("storage, read_write", "out_v", rt(Ty::Vec(4, S::F32)), (1, 2));
        self.buffer("storage, read_write", "out_s", rt(Ty::Struct("Out".into())), (1, 3));
        if self.f.f16 {
            self.buffer("storage, read_write", "out_h", rt(Ty::S(S::F16)), (1, 4));
        }
        if self.f.atomics {
            self.buffer("storage, read_write", "at_u", rt(Ty::Atomic(S::U32)), (1, 5));
            self.buffer("storage, read_write", "at_i", rt(Ty::Atomic(S::I32)), (1, 6));
        }
        if self.f.coop {
            self.buffer("storage, read_write", "out_c", rt(Ty::S(S::F32)), (1, 7));
        }
        if let Some(shape) = self.f.sgm {
            self.buffer("storage, read", "in_si", rt(Ty::S(S::I32)), (0, 6));
            let (s, _) = sgm::out_array(shape.result);
            self.buffer("storage, read_write", "out_m", rt(Ty::S(s)), (1, 7));
        }
        if self.f.tile {
            self.buffer("storage, read_write", "out_t", rt(Ty::S(S::F32)), (1, 8));
        }
        // Private variables with constant initializers.
        for _ in 0..self.rng.below(3) {
            let ty = self.local_ty();
            let name = self.fresh("pv");
            let init = self.const_value(&ty);
            self.globals.push(Global {
                space: "private",
                name: name.clone(),
                ty: ty.clone(),
                binding: None,
                init,
            });
            self.scopes[0].push(Var { ty: ty.clone(), mutable: true, read: Expr::name(name, ty) });
        }
    }

    /// A constant value of `ty` (literals only) for a private initializer, or none (zero).
    fn const_value(&mut self, ty: &Ty) -> Option<Expr> {
        if self.rng.chance(30) {
            return None;
        }
        Some(match ty {
            Ty::S(s) => self.literal(*s),
            Ty::Vec(n, s) => {
                let parts = (0..*n).map(|_| self.literal(*s)).collect();
                Expr::call(ty.wgsl(), parts, ty.clone())
            }
            Ty::Array(t, n) => {
                let parts =
                    (0..*n).map(|_| self.const_value(t).unwrap_or_else(|| zero(t))).collect();
                Expr::call(ty.wgsl(), parts, ty.clone())
            }
            _ => return None,
        })
    }

    // ---- types ----

    fn scalar(&mut self) -> S {
        if self.f.f16 && self.rng.chance(15) {
            S::F16
        } else {
            *self.rng.pick(&SCALARS)
        }
    }

    fn value_ty(&mut self) -> Ty {
        let s = self.scalar();
        match self.rng.below(10) {
            0..=4 => Ty::S(s),
            5..=8 => Ty::Vec(self.rng.range(2, 4) as u8, s),
            _ if self.f.matrices => {
                let fs = if self.f.f16 && self.rng.chance(30) { S::F16 } else { S::F32 };
                Ty::Mat(self.rng.range(2, 4) as u8, self.rng.range(2, 4) as u8, fs)
            }
            _ => Ty::S(s),
        }
    }

    /// A type for a local variable (values, arrays, the local struct).
    fn local_ty(&mut self) -> Ty {
        match self.rng.below(10) {
            0 => Ty::Array(Box::new(Ty::S(self.scalar())), *self.rng.pick(&[2, 4, 5])),
            1 => Ty::Array(Box::new(Ty::Vec(2, *self.rng.pick(&[S::F32, S::U32]))), 3),
            2 => Ty::Struct("Loc".into()),
            _ => self.value_ty(),
        }
    }

    // ---- scope ----

    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    fn declare(&mut self, name: &str, ty: &Ty, mutable: bool) {
        let read = Expr::name(name, ty.clone());
        if let Some(s) = self.scopes.last_mut() {
            s.push(Var { ty: ty.clone(), mutable, read });
        }
    }

    fn vars(&self) -> impl Iterator<Item = &Var> {
        self.scopes.iter().flatten()
    }

    /// A readable variable of type `ty`, if any.
    fn var_of(&mut self, ty: &Ty) -> Option<Expr> {
        let found: Vec<Expr> =
            self.vars().filter(|v| &v.ty == ty).map(|v| v.read.clone()).collect();
        if found.is_empty() {
            None
        } else {
            Some(self.rng.pick(&found).clone())
        }
    }

    // ---- leaves ----

    fn literal(&mut self, s: S) -> Expr {
        let text = match s {
            S::Bool => if self.rng.chance(50) { "true" } else { "false" }.to_string(),
            S::I32 => {
                let v = match self.rng.below(8) {
                    0 => *self.rng.pick(&[0i64, 1, -1, 2147483647, 31, 32, 33, -32]),
                    _ => self.rng.range(-40, 40),
                };
                if v < 0 {
                    format!("({v}i)")
                } else {
                    format!("{v}i")
                }
            }
            S::U32 => {
                let v = match self.rng.below(8) {
                    0 => *self.rng.pick(&[0u64, 1, 4294967295, 31, 32, 33, 0x80000000]),
                    _ => self.rng.range(0, 70) as u64,
                };
                format!("{v}u")
            }
            S::F32 | S::F16 => {
                let v = self.rng.range(-16, 16) as f64 / 8.0;
                let suffix = if s == S::F32 { "f" } else { "h" };
                if v < 0.0 {
                    format!("({v:?}{suffix})")
                } else {
                    format!("{v:?}{suffix}")
                }
            }
        };
        Expr::lit(text, Ty::S(s))
    }

    /// A runtime `u32` that is never a constant expression.
    fn runtime_u32(&mut self) -> Expr {
        let u = Ty::S(S::U32);
        let mut options: Vec<Expr> =
            self.vars().filter(|v| v.ty == u).map(|v| v.read.clone()).collect();
        options.push(Expr::call(
            "arrayLength",
            vec![Expr::addr(Expr::name("in_u", Ty::RtArray(Box::new(u.clone()))), "storage")],
            u.clone(),
        ));
        options.push(Expr::member(Expr::name("uni", Ty::Struct("Uni".into())), "k", u.clone()));
        self.rng.pick(&options).clone()
    }

    /// An element of input array `name` (element type `t`) at a reduced index.
    fn input(&mut self, name: &str, t: Ty) -> Expr {
        let arr = Expr::name(name, Ty::RtArray(Box::new(t.clone())));
        let len =
            Expr::call("arrayLength", vec![Expr::addr(arr.clone(), "storage")], Ty::S(S::U32));
        // Indices are small expressions, and an index inside an index is a plain value: the
        // programs stay quick to compile without losing their variety.
        self.in_index += 1;
        let i = if self.in_index > 1 { self.runtime_u32() } else { self.int_expr(S::U32, 1, 2) };
        self.in_index -= 1;
        // Sometimes as it is: a runtime index out of range reads zero under the bounds policy
        // (docs/bounds.md), the same on every executor. (A constant one stays reduced: naga
        // folds nothing there, but a constant index reads the same element everywhere anyway.)
        if !is_const(&i) && self.rng.chance(15) {
            return Expr::index(arr, i, t);
        }
        let idx = Expr::bin("%", i, len, Ty::S(S::U32));
        Expr::index(arr, idx, t)
    }

    /// An index past the end of runtime-sized array `arr`: `arrayLength(&arr) + (x & 0xffffu)`
    /// for a runtime `x`. A store or atomic there is dropped and a load gives zero under the
    /// bounds policy (docs/bounds.md); the sum never wraps for the buffers programs get.
    fn past_the_end(&mut self, arr: &Expr) -> Expr {
        let u = Ty::S(S::U32);
        let len = Expr::call("arrayLength", vec![Expr::addr(arr.clone(), "storage")], u.clone());
        let x = self.runtime_u32();
        let off = Expr::bin("&", x, Expr::lit("0xffffu", u.clone()), u.clone());
        Expr::bin("+", len, off, u)
    }

    // ---- expressions ----

    /// A value of type `ty` (any of the generated value types).
    fn expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        match ty {
            Ty::S(s) | Ty::Vec(_, s) => {
                let n = ty.width();
                match s {
                    S::Bool => self.bool_expr(n, depth),
                    S::I32 | S::U32 => self.int_expr(*s, n, depth),
                    S::F32 | S::F16 => self.float_expr(*s, n, depth),
                }
            }
            Ty::Mat(c, r, s) => self.mat_expr(*c, *r, *s, depth),
            Ty::Array(t, n) => {
                if let Some(v) = self.rng.chance(40).then(|| self.var_of(ty)).flatten() {
                    return v;
                }
                let parts = (0..*n).map(|_| self.expr(t, depth + 1)).collect();
                Expr::call(ty.wgsl(), parts, ty.clone())
            }
            Ty::Struct(name) if name == "Loc" => {
                if let Some(v) = self.rng.chance(40).then(|| self.var_of(ty)).flatten() {
                    return v;
                }
                let fields = self
                    .structs
                    .iter()
                    .find(|s| &s.name == name)
                    .map(|s| s.fields.clone())
                    .unwrap_or_default();
                let parts = fields.iter().map(|(_, t)| self.expr(t, depth + 1)).collect();
                Expr::call(name.clone(), parts, ty.clone())
            }
            _ => zero(ty),
        }
    }

    fn vec_of(&mut self, s: S, n: u8, mut part: impl FnMut(&mut Gen) -> Expr) -> Expr {
        let ty = Ty::Vec(n, s);
        match self.rng.below(3) {
            0 => {
                let p = part(self);
                Expr::call(ty.wgsl(), vec![p], ty)
            }
            _ => {
                let parts = (0..n).map(|_| part(self)).collect();
                Expr::call(ty.wgsl(), parts, ty)
            }
        }
    }

    /// A swizzle of a wider vector variable to `n` components, if one is in scope.
    fn swizzle(&mut self, s: S, n: u8) -> Option<Expr> {
        let cands: Vec<Expr> = self
            .vars()
            .filter(|v| matches!(v.ty, Ty::Vec(m, vs) if vs == s && m >= n))
            .map(|v| v.read.clone())
            .collect();
        if cands.is_empty() {
            return None;
        }
        let base = self.rng.pick(&cands).clone();
        let m = base.ty.width();
        let letters = ['x', 'y', 'z', 'w'];
        let sw: String = (0..n).map(|_| letters[self.rng.below(u32::from(m)) as usize]).collect();
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        Some(Expr::member(base, sw, ty))
    }

    fn int_expr(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        let leaf = depth >= 3 || self.rng.chance(35 + depth * 25);
        if leaf {
            return self.int_leaf(s, n);
        }
        match self.rng.below(14) {
            0..=4 => {
                let op = *self.rng.pick(&INT_ARITH);
                let a = self.int_expr(s, n, depth + 1);
                let mut b = self.int_expr(s, n, depth + 1);
                // naga rejects a constant zero divisor; a runtime zero is defined in WGSL.
                if matches!(op, "/" | "%") && has_const_part(&b) {
                    b = self.divisor(s, n, depth);
                }
                let (a, b) = self.not_both_const(a, b);
                Expr::bin(op, a, b, ty)
            }
            5 => {
                let op = *self.rng.pick(&SHIFTS);
                let a = self.runtime_int(s, n, depth);
                let mut b = self.int_expr(S::U32, n, depth + 1);
                // naga rejects shift amounts it can fold to 32 or more (even one constant
                // component of a vector); runtime ones are masked, as WGSL says.
                let bt = if n == 1 { Ty::S(S::U32) } else { Ty::Vec(n, S::U32) };
                if is_const(&b) {
                    let k = Expr::lit(format!("{}u", self.rng.below(32)), Ty::S(S::U32));
                    b = self.splat(k, &bt);
                } else if has_literal(&b) {
                    let m = self.splat(Expr::lit("31u", Ty::S(S::U32)), &bt);
                    b = Expr::bin("&", b, m, bt);
                }
                Expr::bin(op, a, b, ty)
            }
            6 => {
                let a = self.runtime_int(s, n, depth);
                match s {
                    S::I32 => Expr::un(self.rng.pick::<&str>(&["-", "~"]), a, ty),
                    _ => Expr::un("~", a, ty),
                }
            }
            7 => {
                let f = *self.rng.pick(&INT_BITS);
                let a = self.runtime_int(s, n, depth);
                Expr::call(f, vec![a], ty)
            }
            8 => {
                let f = *self.rng.pick(&["min", "max"]);
                let a = self.runtime_int(s, n, depth);
                let b = self.int_expr(s, n, depth + 1);
                Expr::call(f, vec![a, b], ty)
            }
            9 => {
                let a = self.runtime_int(s, n, depth);
                let lo = self.int_expr(s, n, depth + 1);
                let hi = self.int_expr(s, n, depth + 1);
                if self.rng.chance(50) {
                    let (lo, hi) = ordered(lo, hi);
                    Expr::call("clamp", vec![a, lo, hi], ty)
                } else {
                    let cond = self.bool_expr(n, depth + 1);
                    Expr::call("select", vec![lo, a, cond], ty)
                }
            }
            10 => {
                // extractBits / insertBits with arbitrary offsets and counts.
                let a = self.runtime_int(s, n, depth);
                let off = self.int_expr(S::U32, 1, depth + 1);
                let cnt = self.int_expr(S::U32, 1, depth + 1);
                if self.rng.chance(50) {
                    Expr::call("extractBits", vec![a, off, cnt], ty)
                } else {
                    let b = self.int_expr(s, n, depth + 1);
                    Expr::call("insertBits", vec![a, b, off, cnt], ty)
                }
            }
            11 => {
                // Conversions and bitcasts from the other integer type and from exact floats.
                let other = if s == S::I32 { S::U32 } else { S::I32 };
                match self.rng.below(4) {
                    0 => {
                        let a = self.runtime_int(other, n, depth);
                        Expr::call(ty.wgsl(), vec![a], ty)
                    }
                    1 => {
                        let a = self.runtime_int(other, n, depth);
                        Expr::call(format!("bitcast<{}>", ty.wgsl()), vec![a], ty)
                    }
                    2 => {
                        let f = if self.f.f16 && self.rng.chance(30) { S::F16 } else { S::F32 };
                        let a = self.exact_float(f, n, depth + 1);
                        Expr::call(ty.wgsl(), vec![a], ty)
                    }
                    _ => {
                        let a = self.exact_float(S::F32, n, depth + 1);
                        Expr::call(format!("bitcast<{}>", ty.wgsl()), vec![a], ty)
                    }
                }
            }
            12 if n == 1 => {
                // Reductions of vectors and the packing builtins.
                match self.rng.below(5) {
                    0 => {
                        let m = self.rng.range(2, 4) as u8;
                        let a = self.runtime_int(s, m, depth);
                        let b = self.int_expr(s, m, depth + 1);
                        Expr::call("dot", vec![a, b], ty)
                    }
                    1 if s == S::U32 => {
                        let f = *self.rng.pick(&[
                            "pack4xI8",
                            "pack4xU8",
                            "pack4xI8Clamp",
                            "pack4xU8Clamp",
                        ]);
                        let src = if f.contains("I8") { S::I32 } else { S::U32 };
                        let a = self.runtime_int(src, 4, depth);
                        Expr::call(f, vec![a], ty)
                    }
                    2 if s == S::U32 => {
                        let f = *self.rng.pick(&[
                            "pack4x8snorm",
                            "pack4x8unorm",
                            "pack2x16snorm",
                            "pack2x16unorm",
                            "pack2x16float",
                        ]);
                        let w = if f.starts_with("pack4") { 4 } else { 2 };
                        // Exact inputs in [-1, 1]: multiples of 1/8.
                        let a = self.unit_exact(w, depth);
                        Expr::call(f, vec![a], ty)
                    }
                    3 => {
                        let f = if s == S::I32 { "dot4I8Packed" } else { "dot4U8Packed" };
                        let a = self.runtime_int(S::U32, 1, depth);
                        let b = self.int_expr(S::U32, 1, depth + 1);
                        Expr::call(f, vec![a, b], ty)
                    }
                    _ => self.int_leaf(s, n),
                }
            }
            _ => self.int_leaf(s, n),
        }
    }

    /// Exact floats in (-1, 1) for the packing builtins: multiples of 5/32, whose scaled
    /// values (127x, 255x, 32767x, 65535x) are never halfway between integers. WGSL rounds
    /// ties as `floor(0.5 + v)`, Vulkan leaves them to the implementation (lavapipe rounds
    /// -63.5 to -64), so the generator keeps away from them.
    fn unit_exact(&mut self, n: u8, depth: u32) -> Expr {
        let ty = Ty::Vec(n, S::F32);
        let parts = (0..n)
            .map(|_| {
                let i = self.runtime_int(S::I32, 1, depth + 1);
                let m = Expr::bin("%", i, Expr::lit("7i", Ty::S(S::I32)), Ty::S(S::I32));
                let f = Expr::call("f32", vec![m], Ty::S(S::F32));
                Expr::bin("*", f, Expr::lit("0.15625f", Ty::S(S::F32)), Ty::S(S::F32))
            })
            .collect();
        Expr::call(ty.wgsl(), parts, ty)
    }

    /// A divisor naga accepts: no constant part that could be zero (naga rejects a constant
    /// zero, also as one component of a vector constructor).
    fn divisor(&mut self, s: S, n: u8, depth: u32) -> Expr {
        for _ in 0..8 {
            let e = self.runtime_int(s, n, depth);
            if !has_const_part(&e) {
                return e;
            }
        }
        let one = self.runtime_u32();
        let one = convert_int(one, s);
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        self.splat(one, &ty)
    }

    /// An integer expression that is certainly not a constant expression.
    fn runtime_int(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let e = self.int_expr(s, n, depth + 1);
        if !is_const(&e) {
            return e;
        }
        let r = self.runtime_u32();
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        let r = if s == S::U32 { r } else { Expr::call("i32", vec![r], Ty::S(S::I32)) };
        let r = if n == 1 { r } else { Expr::call(ty.wgsl(), vec![r], ty.clone()) };
        Expr::bin("^", e, r, ty)
    }

    /// Rewrites `(a, b)` so that not both are constant expressions.
    fn not_both_const(&mut self, a: Expr, b: Expr) -> (Expr, Expr) {
        if is_const(&a) && is_const(&b) {
            let s = a.ty.scalar().unwrap_or(S::U32);
            let n = a.ty.width();
            (self.runtime_int(s, n, 3), b)
        } else {
            (a, b)
        }
    }

    fn int_leaf(&mut self, s: S, n: u8) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        match self.rng.below(10) {
            0..=3 => {
                if let Some(v) = self.var_of(&ty) {
                    return v;
                }
                if let Some(v) = self.swizzle(s, n) {
                    return v;
                }
                self.int_leaf_fallback(s, n)
            }
            4 | 5 => self.int_leaf_fallback(s, n),
            6 => {
                if n == 1 {
                    self.literal(s)
                } else {
                    self.vec_of(s, n, |g| g.literal(s))
                }
            }
            _ => self.int_leaf_fallback(s, n),
        }
    }

    /// Inputs, uniforms and builtins.
    fn int_leaf_fallback(&mut self, s: S, n: u8) -> Expr {
        let u = Ty::S(S::U32);
        let i = Ty::S(S::I32);
        let one: Expr = match self.rng.below(5) {
            0 => self.input("in_u", u.clone()),
            1 => {
                let v = self.input("in_i", Ty::Vec(4, S::I32));
                let c = *self.rng.pick(&["x", "y", "z", "w"]);
                Expr::member(v, c, i.clone())
            }
            2 => {
                let st = self.input("in_s", Ty::Struct("In".into()));
                Expr::member(st, "c", u.clone())
            }
            3 => {
                let uni = Expr::name("uni", Ty::Struct("Uni".into()));
                if self.rng.chance(50) {
                    Expr::member(uni, "k", u.clone())
                } else {
                    Expr::member(uni, "i", i.clone())
                }
            }
            _ => self.runtime_u32(),
        };
        let one = convert_int(one, s);
        if n == 1 {
            one
        } else {
            let ty = Ty::Vec(n, s);
            if self.rng.chance(50) {
                Expr::call(ty.wgsl(), vec![one], ty)
            } else {
                let mut parts = vec![one];
                for _ in 1..n {
                    parts.push(self.int_expr(s, 1, 3));
                }
                Expr::call(ty.wgsl(), parts, ty)
            }
        }
    }

    // ---- floats ----

    /// A float literal of scalar `s` (`value` is a multiple of 1/8).
    fn flit(&self, s: S, value: f64) -> Expr {
        let suffix = if s == S::F16 { "h" } else { "f" };
        let text =
            if value < 0.0 { format!("({value:?}{suffix})") } else { format!("{value:?}{suffix}") };
        Expr::lit(text, Ty::S(s))
    }

    /// `e` scaled by the constant `k` (a vector times a scalar is fine in WGSL).
    fn scale(&self, e: Expr, k: f64) -> Expr {
        let s = match e.ty {
            Ty::Mat(_, _, s) => s,
            _ => e.ty.scalar().unwrap_or(S::F32),
        };
        let ty = e.ty.clone();
        let k = self.flit(s, k);
        Expr::bin("*", e, k, ty)
    }

    /// `clamp(e, lo, hi)` with scalar bounds splatted to `e`'s type.
    fn fclamp(&self, e: Expr, lo: f64, hi: f64) -> Expr {
        let s = e.ty.scalar().unwrap_or(S::F32);
        let ty = e.ty.clone();
        let (l, h) = (self.splat(self.flit(s, lo), &ty), self.splat(self.flit(s, hi), &ty));
        Expr::call("clamp", vec![e, l, h], ty)
    }

    /// A scalar expression as a value of `ty` (splatted for vectors).
    fn splat(&self, e: Expr, ty: &Ty) -> Expr {
        match ty {
            Ty::Vec(..) => Expr::call(ty.wgsl(), vec![e], ty.clone()),
            _ => e,
        }
    }

    /// A float expression of scalar `s` and width `n` whose components stay within [-4, 4].
    fn float_expr(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        if depth >= 3 || self.rng.chance(30 + depth * 25) {
            return self.float_leaf(s, n);
        }
        match self.rng.below(20) {
            0 | 1 => {
                let (x, y) = (self.float_expr(s, n, depth + 1), self.float_expr(s, n, depth + 1));
                let op = *self.rng.pick(&["+", "-"]);
                let e = Expr::bin(op, x, y, ty.clone());
                if self.rng.chance(50) {
                    self.fclamp(e, -4.0, 4.0)
                } else {
                    self.scale(e, 0.5)
                }
            }
            2 => {
                let (x, y) = (self.float_expr(s, n, depth + 1), self.float_expr(s, n, depth + 1));
                let e = Expr::bin("*", x, y, ty.clone());
                self.scale(e, 0.25)
            }
            3 => {
                // x / (|y| + 1)
                let (x, y) = (self.float_expr(s, n, depth + 1), self.float_expr(s, n, depth + 1));
                let one = self.splat(self.flit(s, 1.0), &ty);
                let d = Expr::bin("+", Expr::call("abs", vec![y], ty.clone()), one, ty.clone());
                Expr::bin("/", x, d, ty)
            }
            4 => {
                let x = self.float_expr(s, n, depth + 1);
                let f = *self.rng.pick(&["-", "abs"]);
                if f == "-" {
                    Expr::un("-", x, ty)
                } else {
                    Expr::call("abs", vec![x], ty)
                }
            }
            5 => {
                let f = *self.rng.pick(&["min", "max"]);
                let (x, y) = (self.float_expr(s, n, depth + 1), self.float_expr(s, n, depth + 1));
                Expr::call(f, vec![x, y], ty)
            }
            6 => {
                // fma and mix stay bounded with a scale / a saturated weight.
                let (x, y, z) = (
                    self.float_expr(s, n, depth + 1),
                    self.float_expr(s, n, depth + 1),
                    self.float_expr(s, n, depth + 1),
                );
                if self.rng.chance(50) {
                    let e = Expr::call("fma", vec![x, y, z], ty.clone());
                    self.scale(e, 0.2)
                } else {
                    let t = Expr::call("saturate", vec![z], ty.clone());
                    Expr::call("mix", vec![x, y, t], ty)
                }
            }
            7 => {
                let (x, lo, hi) = (
                    self.float_expr(s, n, depth + 1),
                    self.float_expr(s, n, depth + 1),
                    self.float_expr(s, n, depth + 1),
                );
                if self.rng.chance(50) {
                    let (lo, hi) = ordered(lo, hi);
                    Expr::call("clamp", vec![x, lo, hi], ty)
                } else {
                    let c = self.bool_expr(n, depth + 1);
                    Expr::call("select", vec![lo, hi, c], ty)
                }
            }
            8..=13 => self.float_math(s, n, depth),
            14 if n == 1 => self.float_reduce(s, depth),
            15 if self.f.matrices && n > 1 => self.mat_vec(s, n, depth),
            16 => {
                // An exact float, clamped into range.
                let e = self.exact_float(s, n, depth + 1);
                self.fclamp(e, -4.0, 4.0)
            }
            17 if s == S::F32 && n > 1 => {
                // Unpacking builtins give values in [-1, 1].
                let u = self.int_expr(S::U32, 1, depth + 1);
                let f = match n {
                    2 => *self.rng.pick(&["unpack2x16snorm", "unpack2x16unorm"]),
                    4 => *self.rng.pick(&["unpack4x8snorm", "unpack4x8unorm"]),
                    _ => return self.float_leaf(s, n),
                };
                Expr::call(f, vec![u], ty)
            }
            18 => self.float_rem(s, n, depth),
            _ => self.float_leaf(s, n),
        }
    }

    /// `x % y` (WGSL: `x - y * trunc(x / y)`, the sign of `x`) on an exact runtime `x` and a
    /// divisor whose components are powers of two of either sign: `x / y` and the result are
    /// exact on every executor, and the signs of the two operands vary per component, so a
    /// lowering that rounds the quotient any way but toward zero gives other values. The
    /// result is below `|y| <= 4` in magnitude.
    fn float_rem(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        let mut x = self.exact_float(s, n, depth + 1);
        if is_const(&x) {
            // naga folds constant operands: keep the operation for the backends.
            x = Expr::bin("+", x, self.float_leaf_input(s, n), ty.clone());
        }
        let part = |g: &mut Gen| {
            let v = *g.rng.pick(&[0.5, 1.0, 2.0, 4.0]);
            let v = if g.rng.chance(50) { -v } else { v };
            g.flit(s, v)
        };
        let y = if n == 1 { part(self) } else { self.vec_of(s, n, part) };
        Expr::bin("%", x, y, ty)
    }

    /// Math builtins on domains away from poles, branch cuts and overflow; results in [-4, 4].
    fn float_math(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        let x = self.math_arg(s, n, depth);
        let call = |f: &str, args: Vec<Expr>| Expr::call(f, args, ty.clone());
        match self.rng.below(22) {
            0 => call("sin", vec![x]),
            1 => call("cos", vec![x]),
            2 => call("tanh", vec![x]),
            3 => call("atan", vec![x]),
            4 => {
                let c = self.fclamp(x, -4.0, 1.3);
                call("exp", vec![c])
            }
            5 => {
                let c = self.fclamp(x, -4.0, 2.0);
                call("exp2", vec![c])
            }
            6 | 7 => {
                let f = if self.rng.chance(50) { "log" } else { "log2" };
                let half = self.splat(self.flit(s, 0.5), &ty);
                let a = Expr::bin("+", call("abs", vec![x]), half, ty.clone());
                call(f, vec![a])
            }
            8 => call("sqrt", vec![call("abs", vec![x])]),
            9 => {
                let q = self.splat(self.flit(s, 0.25), &ty);
                let a = Expr::bin("+", call("abs", vec![x]), q, ty.clone());
                call("inverseSqrt", vec![a])
            }
            10 => {
                // pow with a positive base and a bounded exponent.
                let b = self.fclamp(call("abs", vec![x]), 0.5, 2.0);
                let e = self.math_arg(s, n, depth);
                let e = self.fclamp(e, -2.0, 2.0);
                call("pow", vec![b, e])
            }
            11 => {
                // pow of a possibly negative base with an integral exponent (C99 semantics
                // on PTX, NaN on some Vulkan drivers: verify leaves those values out there).
                let k = *self.rng.pick(&[2.0, 3.0, 1.0, -1.0]);
                // naga evaluates a constant negative base and rejects it: keep it runtime.
                let x = if is_const(&x) { self.float_leaf_input(s, n) } else { x };
                let base = if k < 0.0 {
                    let one = self.splat(self.flit(s, 1.0), &ty);
                    Expr::bin("+", call("abs", vec![x]), one, ty.clone())
                } else {
                    self.scale(x, 0.5)
                };
                let e = self.splat(self.flit(s, k), &ty);
                call("pow", vec![base, e])
            }
            12 => {
                let c = self.fclamp(x, -1.2, 1.2);
                call("tan", vec![c])
            }
            13 => {
                let f = if self.rng.chance(50) { "asin" } else { "acos" };
                let c = self.fclamp(x, -0.9, 0.9);
                call(f, vec![c])
            }
            14 => {
                let y = self.math_arg(s, n, depth);
                let half = self.splat(self.flit(s, 0.5), &ty);
                let d = Expr::bin("+", call("abs", vec![y]), half, ty.clone());
                call("atan2", vec![x, d])
            }
            15 => {
                let f = if self.rng.chance(50) { "sinh" } else { "cosh" };
                let c = self.fclamp(x, -2.0, 2.0);
                call(f, vec![c])
            }
            16 => call("asinh", vec![x]),
            17 => {
                let k = self.splat(self.flit(s, 1.125), &ty);
                let a = Expr::bin("+", call("abs", vec![x]), k, ty.clone());
                call("acosh", vec![a])
            }
            18 => {
                let c = self.fclamp(x, -0.875, 0.875);
                call("atanh", vec![c])
            }
            19 => {
                let lo = self.splat(self.flit(s, -2.0), &ty);
                let hi = self.splat(self.flit(s, 2.0), &ty);
                call("smoothstep", vec![lo, hi, x])
            }
            20 => {
                let f = if self.rng.chance(50) { "saturate" } else { "radians" };
                call(f, vec![x])
            }
            _ => {
                let e = call("degrees", vec![x]);
                self.scale(e, 0.015625)
            }
        }
    }

    /// The argument of a math builtin. For `f16` it is exact: a math result may differ by an
    /// ulp between executors (each within its bound), and in `f16` a second function (or a
    /// cancellation) can amplify that past the 2-ulp comparison bound.
    fn math_arg(&mut self, s: S, n: u8, depth: u32) -> Expr {
        if s == S::F16 {
            let e = self.exact_float(s, n, depth + 1);
            self.fclamp(e, -4.0, 4.0)
        } else {
            self.float_expr(s, n, depth + 1)
        }
    }

    /// Vector reductions to a scalar: dot, length, distance.
    fn float_reduce(&mut self, s: S, depth: u32) -> Expr {
        let m = self.rng.range(2, 4) as u8;
        let (a, b) = (self.float_expr(s, m, depth + 1), self.float_expr(s, m, depth + 1));
        let ty = Ty::S(s);
        match self.rng.below(4) {
            0 => {
                let d = Expr::call("dot", vec![a, b], ty);
                self.scale(d, 0.0625)
            }
            1 => {
                let l = Expr::call("length", vec![a], ty);
                self.scale(l, 0.5)
            }
            2 => {
                let l = Expr::call("distance", vec![a, b], ty);
                self.scale(l, 0.25)
            }
            _ => {
                // A component of a normalized vector whose first component is at least 0.5.
                let vt = Ty::Vec(m, s);
                let off: Vec<Expr> =
                    (0..m).map(|i| self.flit(s, if i == 0 { 4.5 } else { 0.0 })).collect();
                let shifted = Expr::bin("+", a, Expr::call(vt.wgsl(), off, vt.clone()), vt.clone());
                let nv = Expr::call("normalize", vec![shifted], vt);
                Expr::member(nv, *self.rng.pick(&["x", "y"]), Ty::S(s))
            }
        }
    }

    fn float_leaf(&mut self, s: S, n: u8) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        if self.rng.chance(45) {
            if let Some(v) = self.var_of(&ty) {
                return v;
            }
            if let Some(v) = self.swizzle(s, n) {
                return v;
            }
        }
        if self.rng.chance(25) {
            let v = self.rng.range(-16, 16) as f64 / 8.0;
            return self.splat(self.flit(s, v), &ty);
        }
        let one = self.float_input(s);
        if n == 1 {
            one
        } else if self.rng.chance(40) {
            Expr::call(ty.wgsl(), vec![one], ty)
        } else {
            let mut parts = vec![one];
            for _ in 1..n {
                parts.push(self.float_expr(s, 1, 3));
            }
            Expr::call(ty.wgsl(), parts, ty)
        }
    }

    /// An input float of width `n` (every component from the inputs).
    fn float_leaf_input(&mut self, s: S, n: u8) -> Expr {
        let one = self.float_input(s);
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        self.splat(one, &ty)
    }

    /// An input float (identical on every executor), in [-1, 1].
    fn float_input(&mut self, s: S) -> Expr {
        let f = Ty::S(S::F32);
        if s == S::F16 {
            if self.rng.chance(70) {
                return self.input("in_h", Ty::S(S::F16));
            }
            let e = self.float_input(S::F32);
            return Expr::call("f16", vec![e], Ty::S(S::F16));
        }
        match self.rng.below(5) {
            0 | 1 => self.input("in_f", f),
            2 => {
                let st = self.input("in_s", Ty::Struct("In".into()));
                if self.rng.chance(50) {
                    Expr::member(st, "a", f)
                } else {
                    let b = Expr::member(st, "b", Ty::Vec(3, S::F32));
                    Expr::member(b, *self.rng.pick(&["x", "y", "z"]), f)
                }
            }
            3 => Expr::member(Expr::name("uni", Ty::Struct("Uni".into())), "f", f),
            _ => {
                let v = Expr::member(
                    Expr::name("uni", Ty::Struct("Uni".into())),
                    "v",
                    Ty::Vec(4, S::F32),
                );
                Expr::member(v, *self.rng.pick(&["x", "y", "z", "w"]), f)
            }
        }
    }

    /// An exact float: the same bits on every executor (multiples of 1/8, inputs, and results
    /// of exact operations on them), at most 1024 in magnitude.
    fn exact_float(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
        if depth >= 3 || self.rng.chance(35) {
            return match self.rng.below(3) {
                0 => {
                    let v = self.rng.range(-64, 64) as f64 / 8.0;
                    self.splat(self.flit(s, v), &ty)
                }
                1 => {
                    // A small integer, converted.
                    let i = self.runtime_int(S::I32, n, depth);
                    let it = if n == 1 { Ty::S(S::I32) } else { Ty::Vec(n, S::I32) };
                    let m =
                        Expr::bin("%", i, self.splat(Expr::lit("512i", Ty::S(S::I32)), &it), it);
                    Expr::call(ty.wgsl(), vec![m], ty)
                }
                _ => {
                    // Inputs exactly as stored (no conversion, whose rounding mode Vulkan
                    // leaves open).
                    let one = if s == S::F16 {
                        self.input("in_h", Ty::S(S::F16))
                    } else {
                        self.float_input(S::F32)
                    };
                    self.splat(one, &ty)
                }
            };
        }
        let a = self.exact_float(s, n, depth + 1);
        match self.rng.below(7) {
            0 => {
                let b = self.exact_float(s, n, depth + 1);
                let op = *self.rng.pick(&["+", "-"]);
                let e = Expr::bin(op, a, b, ty.clone());
                self.fclamp(e, -1024.0, 1024.0)
            }
            1 => {
                let k = *self.rng.pick(&[0.5, 2.0, 0.25, 4.0, -1.0]);
                let e = self.scale(a, k);
                self.fclamp(e, -1024.0, 1024.0)
            }
            2 => {
                let f = *self.rng.pick(&EXACT_ROUNDING);
                Expr::call(f, vec![a], ty)
            }
            3 => {
                let b = self.exact_float(s, n, depth + 1);
                let f = *self.rng.pick(&["min", "max"]);
                Expr::call(f, vec![a, b], ty)
            }
            4 => {
                let b = self.exact_float(s, n, depth + 1);
                let f = *self.rng.pick(&["step", "min"]);
                Expr::call(f, vec![a, b], ty)
            }
            5 if s == S::F32 => Expr::call("quantizeToF16", vec![self.fclamp(a, -32.0, 32.0)], ty),
            _ => {
                let b = self.exact_float(s, n, depth + 1);
                let c = self.bool_expr(n, depth + 1);
                Expr::call("select", vec![a, b, c], ty)
            }
        }
    }

    // ---- booleans ----

    fn bool_expr(&mut self, n: u8, depth: u32) -> Expr {
        let ty = if n == 1 { Ty::S(S::Bool) } else { Ty::Vec(n, S::Bool) };
        if depth >= 3 || self.rng.chance(15) {
            if let Some(v) = self.var_of(&ty) {
                return v;
            }
        }
        match self.rng.below(8) {
            0..=2 => {
                let s = *self.rng.pick(&[S::I32, S::U32]);
                let (a, b) = (self.int_expr(s, n, depth + 1), self.int_expr(s, n, depth + 1));
                let op = *self.rng.pick(&COMPARISONS);
                Expr::bin(op, a, b, ty)
            }
            3 => {
                let (a, b) = (
                    self.exact_float(S::F32, n, depth + 1),
                    self.exact_float(S::F32, n, depth + 1),
                );
                let op = *self.rng.pick(&COMPARISONS);
                Expr::bin(op, a, b, ty)
            }
            4 => {
                let a = self.bool_expr(n, depth + 1);
                Expr::un("!", a, ty)
            }
            5 => {
                let (a, b) = (self.bool_expr(n, depth + 1), self.bool_expr(n, depth + 1));
                let op = if n == 1 {
                    *self.rng.pick(&["&&", "||", "&", "|", "==", "!="])
                } else {
                    *self.rng.pick(&["&", "|", "==", "!="])
                };
                Expr::bin(op, a, b, ty)
            }
            6 if n == 1 => {
                let m = self.rng.range(2, 4) as u8;
                let v = self.bool_expr(m, depth + 1);
                Expr::call(*self.rng.pick(&["any", "all"]), vec![v], ty)
            }
            _ => {
                if n == 1 {
                    self.literal(S::Bool)
                } else {
                    self.vec_of(S::Bool, n, |g| g.literal(S::Bool))
                }
            }
        }
    }

    // ---- matrices ----

    /// A matrix with entries in [-4, 4].
    fn mat_expr(&mut self, c: u8, r: u8, s: S, depth: u32) -> Expr {
        let ty = Ty::Mat(c, r, s);
        if depth >= 2 || self.rng.chance(30) {
            if let Some(v) = self.var_of(&ty) {
                return v;
            }
            let cols = (0..c).map(|_| self.float_expr(s, r, depth + 1)).collect();
            return Expr::call(ty.wgsl(), cols, ty);
        }
        match self.rng.below(7) {
            0 => {
                let cols = (0..c).map(|_| self.float_expr(s, r, depth + 1)).collect();
                Expr::call(ty.wgsl(), cols, ty)
            }
            1 => {
                let (a, b) = (self.mat_expr(c, r, s, depth + 1), self.mat_expr(c, r, s, depth + 1));
                let op = *self.rng.pick(&["+", "-"]);
                let sum = Expr::bin(op, a, b, ty.clone());
                self.scale(sum, 0.5)
            }
            2 => {
                // (c x k) * (k x r)... as WGSL: matKxR * matCxK = matCxR.
                let k = self.rng.range(2, 4) as u8;
                let (a, b) = (self.mat_expr(k, r, s, depth + 1), self.mat_expr(c, k, s, depth + 1));
                let p = Expr::bin("*", a, b, ty.clone());
                self.scale(p, 1.0 / (4.0 * f64::from(k)))
            }
            3 => {
                let t = self.mat_expr(r, c, s, depth + 1);
                Expr::call("transpose", vec![t], ty)
            }
            4 => {
                // Identity constructor and conversion from the other float type.
                let other = if s == S::F32 { S::F16 } else { S::F32 };
                if self.f.f16 && s == S::F16 {
                    let m = self.mat_expr(c, r, other, depth + 1);
                    Expr::call(ty.wgsl(), vec![m], ty)
                } else if self.f.f16 && self.rng.chance(50) {
                    // f16 -> f32 only from exact f16 values (inputs and literals).
                    let oty = Ty::Mat(c, r, S::F16);
                    let cols = (0..c)
                        .map(|_| {
                            let parts = (0..r)
                                .map(|_| {
                                    if self.rng.chance(50) {
                                        self.input("in_h", Ty::S(S::F16))
                                    } else {
                                        self.literal(S::F16)
                                    }
                                })
                                .collect();
                            Expr::call(Ty::Vec(r, S::F16).wgsl(), parts, Ty::Vec(r, S::F16))
                        })
                        .collect();
                    let m = Expr::call(oty.wgsl(), cols, oty);
                    Expr::call(ty.wgsl(), vec![m], ty)
                } else {
                    let m = self.mat_expr(c, r, s, depth + 1);
                    Expr::call(ty.wgsl(), vec![m], ty)
                }
            }
            5 => {
                let m = self.mat_expr(c, r, s, depth + 1);
                let k = self.float_expr(s, 1, depth + 1);
                let k = self.scale(k, 0.25);
                Expr::bin("*", m, k, ty)
            }
            _ => {
                let cols = (0..c).map(|_| self.float_expr(s, r, depth + 1)).collect();
                Expr::call(ty.wgsl(), cols, ty)
            }
        }
    }

    /// A vector from a matrix: `m * v`, `v * m`, a column, or a determinant splat.
    fn mat_vec(&mut self, s: S, n: u8, depth: u32) -> Expr {
        let ty = Ty::Vec(n, s);
        match self.rng.below(4) {
            0 => {
                let c = self.rng.range(2, 4) as u8;
                let m = self.mat_expr(c, n, s, depth + 1);
                let v = self.float_expr(s, c, depth + 1);
                let p = Expr::bin("*", m, v, ty.clone());
                self.scale(p, 1.0 / (4.0 * f64::from(c)))
            }
            1 => {
                let r = self.rng.range(2, 4) as u8;
                let m = self.mat_expr(n, r, s, depth + 1);
                let v = self.float_expr(s, r, depth + 1);
                let p = Expr::bin("*", v, m, ty.clone());
                self.scale(p, 1.0 / (4.0 * f64::from(r)))
            }
            2 => {
                let c = self.rng.range(2, 4) as u8;
                let m = self.mat_expr(c, n, s, depth + 1);
                let i = self.int_expr(S::U32, 1, depth + 1);
                let last = Expr::lit(format!("{}u", c - 1), Ty::S(S::U32));
                let i = Expr::call("min", vec![i, last], Ty::S(S::U32));
                Expr::index(m, i, ty)
            }
            _ => {
                let k = self.rng.range(2, 3) as u8;
                let m = self.mat_expr(k, k, s, depth + 1);
                let m = self.scale(m, 0.25);
                let d = Expr::call("determinant", vec![m], Ty::S(s));
                self.splat(d, &ty)
            }
        }
    }

    // ---- statements ----

    /// An assignable place of a value type, with its type: a `var`, a private variable, a
    /// pointer parameter's target, a field, an element or a component of one, or (in the entry
    /// point) one of this invocation's output slots.
    fn lvalue(&mut self, ctx: Ctx) -> Option<Expr> {
        let vars: Vec<Var> = self.vars().filter(|v| v.mutable).cloned().collect();
        if ctx.entry && (vars.is_empty() || self.rng.chance(30)) {
            return Some(self.output_slot());
        }
        if vars.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vars).clone();
        let base = v.read.clone();
        Some(match &v.ty {
            Ty::Vec(n, s) if self.rng.chance(30) => {
                let c = ["x", "y", "z", "w"][self.rng.below(u32::from(*n)) as usize];
                Expr::member(base, c, Ty::S(*s))
            }
            Ty::Mat(c, r, s) if self.rng.chance(40) => {
                let i = self.rng.below(u32::from(*c));
                Expr::index(base, Expr::lit(format!("{i}u"), Ty::S(S::U32)), Ty::Vec(*r, *s))
            }
            Ty::Array(t, n) => {
                let i = self.int_expr(S::U32, 1, 2);
                let last = Expr::lit(format!("{}u", n - 1), Ty::S(S::U32));
                let i = Expr::call("min", vec![i, last], Ty::S(S::U32));
                Expr::index(base, i, (**t).clone())
            }
            Ty::Struct(name) if name == "Loc" && self.rng.chance(70) => {
                let fields = self
                    .structs
                    .iter()
                    .find(|s| &s.name == name)
                    .map(|s| s.fields.clone())
                    .unwrap_or_default();
                let (f, t) = self.rng.pick(&fields).clone();
                Expr::member(base, f, t)
            }
            _ => base,
        })
    }

    /// `out_X[base + k]` of this invocation, or a field of its `out_s[idx]`.
    fn output_slot(&mut self) -> Expr {
        let u = Ty::S(S::U32);
        let idx = Expr::name("idx", u.clone());
        let k = self.rng.below(SLOTS);
        let slot = Expr::bin(
            "+",
            Expr::bin("*", idx.clone(), Expr::lit(format!("{SLOTS}u"), u.clone()), u.clone()),
            Expr::lit(format!("{k}u"), u.clone()),
            u.clone(),
        );
        let mut outs: Vec<(&str, Ty)> = vec![
            ("out_u", u.clone()),
            ("out_f", Ty::S(S::F32)),
            ("out_v", Ty::Vec(4, S::F32)),
            ("out_s", Ty::Struct("Out".into())),
        ];
        if self.f.f16 {
            outs.push(("out_h", Ty::S(S::F16)));
        }
        let (name, t) = self.rng.pick(&outs).clone();
        let arr = Expr::name(name, Ty::RtArray(Box::new(t.clone())));
        // Now and then past the end: the store is dropped (docs/bounds.md).
        if name != "out_s" && self.rng.chance(5) {
            let i = self.past_the_end(&arr);
            return Expr::index(arr, i, t);
        }
        if name == "out_s" {
            let st = Expr::index(arr, idx, t);
            let fields = self
                .structs
                .iter()
                .find(|s| s.name == "Out")
                .map(|s| s.fields.clone())
                .unwrap_or_default();
            let (f, ft) = self.rng.pick(&fields).clone();
            return Expr::member(st, f, ft);
        }
        Expr::index(arr, slot, t)
    }

    /// A list of statements.
    fn block(&mut self, ctx: Ctx, max: u32) -> Vec<Stmt> {
        self.push_scope();
        let n = self.rng.range(1, i64::from(max.max(1))) as u32;
        let mut out = Vec::new();
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.budget -= 1;
            out.extend(self.stmt(ctx));
        }
        self.pop_scope();
        out
    }

    /// One statement (sometimes with the declarations it needs before it).
    fn stmt(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let nested = ctx.loops < 2;
        match self.rng.below(27) {
            // Extra switches and loops: programs are short, and these are where control-flow
            // bugs live.
            24 => self.switch(ctx),
            25 | 26 if nested => self.looping(ctx),
            0..=3 => {
                let ty = self.local_ty();
                let name = self.fresh("v");
                let init = self.expr(&ty, 0);
                // A `let` of a constant expression is a constant to naga, which then rejects
                // a division by it when it is zero: such values get a `var`.
                let mutable = self.rng.chance(60)
                    || matches!(ty, Ty::Array(..) | Ty::Struct(_))
                    || is_const(&init);
                let st = if mutable {
                    Stmt::Var(name.clone(), ty.clone(), Some(init))
                } else {
                    Stmt::Let(name.clone(), init)
                };
                self.declare(&name, &ty, mutable);
                vec![st]
            }
            4..=8 => {
                let Some(place) = self.lvalue(ctx) else { return Vec::new() };
                let ty = place.ty.clone();
                match ty.scalar() {
                    Some(s) if s.is_int() && self.rng.chance(40) => {
                        let op = *self.rng.pick(&INT_COMPOUND);
                        let mut e = self.int_expr(s, ty.width(), 1);
                        // naga rejects a constant zero divisor; a runtime zero is defined.
                        if matches!(op, "/=" | "%=") && has_const_part(&e) {
                            e = self.divisor(s, ty.width(), 1);
                        }
                        vec![Stmt::Assign(place, op, e)]
                    }
                    Some(s) if s.is_int() && self.rng.chance(20) => {
                        if ty.width() == 1 {
                            vec![Stmt::Step(place, self.rng.pick::<&str>(&["++", "--"]))]
                        } else {
                            let e = self.int_expr(s, ty.width(), 1);
                            vec![Stmt::Assign(place, "=", e)]
                        }
                    }
                    _ => {
                        let e = self.expr(&ty, 0);
                        vec![Stmt::Assign(place, "=", e)]
                    }
                }
            }
            9 | 10 => {
                let c = self.bool_expr(1, 0);
                let t = self.block(ctx, 3);
                let e = if self.rng.chance(50) { self.block(ctx, 3) } else { Vec::new() };
                vec![Stmt::If(c, t, e)]
            }
            11 => self.switch(ctx),
            12..=14 if nested => self.looping(ctx),
            15 if ctx.breakable => {
                let c = self.bool_expr(1, 1);
                let st = if self.rng.chance(50) { Stmt::Break } else { Stmt::Continue };
                vec![Stmt::If(c, vec![st], Vec::new())]
            }
            16 | 17 => self.call_helper(),
            18 if self.f.atomics => self.atomic_stmt(ctx),
            19 if self.ret.is_some() && !ctx.entry && !ctx.continuing => {
                // Early return from a helper.
                let c = self.bool_expr(1, 1);
                let r = self.ret.clone().unwrap_or(Ty::S(S::U32));
                let e = self.expr(&r, 1);
                vec![Stmt::If(c, vec![Stmt::Return(Some(e))], Vec::new())]
            }
            20 => {
                let body = self.block(ctx, 3);
                vec![Stmt::Block(body)]
            }
            21 => {
                // A pointer to a local variable, written through.
                let vars: Vec<Var> = self
                    .scopes
                    .last()
                    .map(|s| {
                        s.iter()
                            .filter(|v| {
                                v.mutable
                                    && v.ty.constructible()
                                    && matches!(v.read.kind.as_ref(), ExprKind::Name(_))
                            })
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                if vars.is_empty() {
                    return Vec::new();
                }
                let v = self.rng.pick(&vars).clone();
                let p = self.fresh("p");
                let ptr = Expr::addr(v.read.clone(), "function");
                let pe = Expr::name(p.clone(), ptr.ty.clone());
                let e = self.expr(&v.ty, 1);
                vec![Stmt::Let(p, ptr), Stmt::Assign(Expr::deref(pe), "=", e)]
            }
            _ => {
                let Some(place) = self.lvalue(ctx) else { return Vec::new() };
                let e = self.expr(&place.ty.clone(), 0);
                vec![Stmt::Assign(place, "=", e)]
            }
        }
    }

    fn switch(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let s = *self.rng.pick(&[S::I32, S::U32]);
        let e = self.int_expr(s, 1, 1);
        let e = if is_const(&e) { self.runtime_int(s, 1, 1) } else { e };
        let suffix = if s == S::I32 { "i" } else { "u" };
        let mut used = Vec::new();
        let mut cases = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let mut sel = Vec::new();
            for _ in 0..self.rng.range(1, 2) {
                let v = self.rng.range(0, 6);
                if !used.contains(&v) {
                    used.push(v);
                    sel.push(format!("{v}{suffix}"));
                }
            }
            if sel.is_empty() {
                continue;
            }
            if cases.is_empty() && self.rng.chance(30) {
                sel.push("default".into());
            }
            let body = self.block(Ctx { breakable: false, ..ctx }, 3);
            cases.push(Case { selectors: sel, body });
        }
        if !cases.iter().any(|c| c.selectors.iter().any(|x| x == "default")) {
            let body = self.block(Ctx { breakable: false, ..ctx }, 2);
            cases.push(Case { selectors: vec!["default".into()], body });
        }
        vec![Stmt::Switch(e, cases)]
    }

    /// A loop that runs a bounded number of times: `for`, `while` or `loop` with `continuing`
    /// and `break if`, around a counter the body cannot assign.
    fn looping(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let u = Ty::S(S::U32);
        let c = self.fresh("i");
        let bound = if self.rng.chance(60) {
            Expr::lit(format!("{}u", self.rng.range(1, 4)), u.clone())
        } else {
            // A data-dependent trip count of at most 3.
            let e = self.runtime_int(S::U32, 1, 1);
            Expr::bin("&", e, Expr::lit("3u", u.clone()), u.clone())
        };
        let ce = Expr::name(c.clone(), u.clone());
        let inner = Ctx { loops: ctx.loops + 1, breakable: true, ..ctx };
        self.push_scope();
        // The counter is readable in the body, but not a `var` the body may assign.
        if let Some(s) = self.scopes.last_mut() {
            s.push(Var { ty: u.clone(), mutable: false, read: ce.clone() });
        }
        let out = match self.rng.below(3) {
            0 => {
                let body = self.block(inner, 4);
                vec![Stmt::For {
                    init: Box::new(Stmt::Var(
                        c.clone(),
                        u.clone(),
                        Some(Expr::lit("0u", u.clone())),
                    )),
                    cond: Expr::bin("<", ce.clone(), bound, Ty::S(S::Bool)),
                    update: Box::new(Stmt::Step(ce.clone(), "++")),
                    body,
                }]
            }
            1 => {
                let mut body = vec![Stmt::Step(ce.clone(), "++")];
                body.extend(self.block(inner, 4));
                vec![
                    Stmt::Var(c.clone(), u.clone(), Some(Expr::lit("0u", u.clone()))),
                    Stmt::While(Expr::bin("<", ce.clone(), bound, Ty::S(S::Bool)), body),
                ]
            }
            _ => {
                let body = self.block(inner, 4);
                let cont = self.block(Ctx { breakable: false, continuing: true, ..inner }, 1);
                let mut continuing = cont;
                continuing.push(Stmt::Step(ce.clone(), "++"));
                vec![
                    Stmt::Var(c.clone(), u.clone(), Some(Expr::lit("0u", u.clone()))),
                    Stmt::Loop {
                        body,
                        continuing,
                        break_if: Some(Expr::bin(">=", ce.clone(), bound, Ty::S(S::Bool))),
                    },
                ]
            }
        };
        self.pop_scope();
        out
    }

    /// A call of a helper function: its result assigned or discarded; pointer arguments are
    /// fresh variables (or private variables).
    fn call_helper(&mut self) -> Vec<Stmt> {
        if self.helpers.is_empty() {
            return Vec::new();
        }
        let (name, params, ret) = self.rng.pick(&self.helpers.clone()).clone();
        // Calls are inlined: two of each helper exercise that without doubling the program.
        let calls = self.calls.entry(name.clone()).or_insert(0);
        if *calls >= 2 {
            return Vec::new();
        }
        *calls += 1;
        let mut pre = Vec::new();
        let mut args = Vec::new();
        for p in &params {
            match p {
                Ty::Ptr("function", t) => {
                    let v = self.fresh("a");
                    let init = self.expr(t, 1);
                    pre.push(Stmt::Var(v.clone(), (**t).clone(), Some(init)));
                    self.declare(&v, t, true);
                    args.push(Expr::addr(Expr::name(v, (**t).clone()), "function"));
                }
                Ty::Ptr(space, t) => {
                    let privs: Vec<String> = self
                        .globals
                        .iter()
                        .filter(|g| g.space == "private" && g.ty == **t)
                        .map(|g| g.name.clone())
                        .collect();
                    let Some(g) = privs.first().cloned() else { return Vec::new() };
                    args.push(Expr::addr(Expr::name(g, (**t).clone()), space));
                }
                t => args.push(self.expr(t, 1)),
            }
        }
        let call = Expr::call(name, args, ret.clone());
        let v = self.fresh("r");
        pre.push(Stmt::Let(v.clone(), call));
        self.declare(&v, &ret, false);
        pre
    }

    fn atomic_stmt(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let s = *self.rng.pick(&[S::U32, S::I32]);
        let (arr, t) =
            if s == S::U32 { ("at_u", Ty::Atomic(S::U32)) } else { ("at_i", Ty::Atomic(S::I32)) };
        let a = Expr::name(arr, Ty::RtArray(Box::new(t.clone())));
        let v = self.int_expr(s, 1, 1);
        let u = Ty::S(S::U32);
        if !ctx.entry || self.rng.chance(50) {
            // A shared slot, one commutative operation per slot, result unused.
            let (slot, f) = *self.rng.pick(&[
                (0u32, "atomicAdd"),
                (0, "atomicSub"),
                (1, "atomicMax"),
                (2, "atomicMin"),
                (3, "atomicOr"),
                (4, "atomicAnd"),
                (5, "atomicXor"),
            ]);
            let p = Expr::addr(Expr::index(a, Expr::lit(format!("{slot}u"), u), t), "storage");
            return vec![Stmt::Phony(Expr::call(f, vec![p, v], Ty::S(s)))];
        }
        // This invocation's own slot: any operation, results used. Now and then a slot past
        // the end instead: the operation is dropped and gives zero (docs/bounds.md).
        let own = if self.rng.chance(10) {
            self.past_the_end(&a)
        } else {
            Expr::bin("+", Expr::name("idx", u.clone()), Expr::lit("8u", u.clone()), u.clone())
        };
        let p = Expr::addr(Expr::index(a, own, t), "storage");
        let r = self.fresh("at");
        let st = match self.rng.below(5) {
            0 => Stmt::Let(r.clone(), Expr::call("atomicExchange", vec![p, v], Ty::S(s))),
            1 => {
                let cmp = self.int_expr(s, 1, 1);
                let res =
                    Expr::call("atomicCompareExchangeWeak", vec![p, cmp, v], Ty::CasResult(s));
                let pick = if self.rng.chance(50) {
                    Expr::member(res, "old_value", Ty::S(s))
                } else {
                    let b = Expr::member(res, "exchanged", Ty::S(S::Bool));
                    let (one, zero) = (
                        if s == S::U32 { "1u" } else { "1i" },
                        if s == S::U32 { "0u" } else { "0i" },
                    );
                    Expr::call(
                        "select",
                        vec![Expr::lit(zero, Ty::S(s)), Expr::lit(one, Ty::S(s)), b],
                        Ty::S(s),
                    )
                };
                Stmt::Let(r.clone(), pick)
            }
            2 => Stmt::Let(r.clone(), Expr::call("atomicLoad", vec![p], Ty::S(s))),
            3 => {
                return vec![Stmt::Call("atomicStore".into(), vec![p, v])];
            }
            _ => {
                let f = *self.rng.pick(&[
                    "atomicAdd",
                    "atomicSub",
                    "atomicMax",
                    "atomicMin",
                    "atomicAnd",
                    "atomicOr",
                    "atomicXor",
                ]);
                Stmt::Let(r.clone(), Expr::call(f, vec![p, v], Ty::S(s)))
            }
        };
        self.declare(&r, &Ty::S(s), false);
        vec![st]
    }

    // ---- functions ----

    /// A helper function: value and pointer parameters, a body, a return.
    fn helper(&mut self) {
        let name = self.fresh("f");
        let mut params = Vec::new();
        let mut ptys = Vec::new();
        self.scopes.push(Vec::new());
        // A u32 parameter first, so the body has a runtime value.
        let n = self.rng.range(1, 3);
        for k in 0..n {
            let ty = if k == 0 { Ty::S(S::U32) } else { self.value_ty() };
            let pn = self.fresh("x");
            self.declare(&pn, &ty, false);
            params.push((String::new(), pn, ty.clone()));
            ptys.push(ty);
        }
        if self.rng.chance(50) {
            let t = self.local_ty();
            let pn = self.fresh("ptr");
            let pty = Ty::Ptr("function", Box::new(t.clone()));
            let read = Expr::deref(Expr::name(pn.clone(), pty.clone()));
            if let Some(s) = self.scopes.last_mut() {
                s.push(Var { ty: t.clone(), mutable: true, read });
            }
            params.push((String::new(), pn, pty.clone()));
            ptys.push(pty);
        }
        if self.rng.chance(25) {
            let privs: Vec<Ty> = self
                .globals
                .iter()
                .filter(|g| g.space == "private")
                .map(|g| g.ty.clone())
                .collect();
            if let Some(t) = privs.first().cloned() {
                let pn = self.fresh("pp");
                let pty = Ty::Ptr("private", Box::new(t.clone()));
                let read = Expr::deref(Expr::name(pn.clone(), pty.clone()));
                if let Some(s) = self.scopes.last_mut() {
                    s.push(Var { ty: t, mutable: true, read });
                }
                params.push((String::new(), pn, pty.clone()));
                ptys.push(pty);
            }
        }
        let ret = self.value_ty();
        self.ret = Some(ret.clone());
        self.budget = 6;
        let ctx = Ctx::default();
        let mut body = self.block(ctx, 5);
        let e = self.expr(&ret, 0);
        body.push(Stmt::Return(Some(e)));
        self.ret = None;
        self.scopes.pop();
        self.functions.push(Function {
            name: name.clone(),
            params,
            ret: Some(ret.clone()),
            body,
            workgroup_size: None,
        });
        self.helpers.push((name, ptys, ret));
    }

    /// The entry point: index computation, the uniform phase (workgroup memory, subgroups,
    /// cooperative matrices), random statements, and writes of every output slot.
    fn entry(&mut self) {
        let u = Ty::S(S::U32);
        let v3 = Ty::Vec(3, S::U32);
        let mut params = vec![
            ("@builtin(global_invocation_id)".to_string(), "gid".to_string(), v3.clone()),
            ("@builtin(local_invocation_index)".into(), "lid".into(), u.clone()),
            ("@builtin(workgroup_id)".into(), "wid".into(), v3.clone()),
            ("@builtin(local_invocation_id)".into(), "lid3".into(), v3.clone()),
            ("@builtin(num_workgroups)".into(), "nwg".into(), v3.clone()),
        ];
        if self.f.subgroups {
            params.push(("@builtin(subgroup_invocation_id)".into(), "sid".into(), u.clone()));
            params.push(("@builtin(subgroup_size)".into(), "ssz".into(), u.clone()));
        }
        self.scopes = vec![self.scopes[0].clone(), Vec::new()];
        for (_, n, t) in &params {
            self.declare(n, t, false);
        }
        let [dx, dy, _] = self.dispatch;
        let t = self.threads();
        let mut body = Vec::new();
        // idx: this invocation's linear index in the dispatch.
        let wl = format!("((wid.x + wid.y * {dx}u + wid.z * {}u) * {t}u + lid)", dx * dy);
        body.push(Stmt::Let("idx".into(), Expr::lit(wl, u.clone())));
        self.declare("idx", &u, false);
        let ctx = Ctx { entry: true, ..Ctx::default() };
        // First: workgroup matrices are called in uniform control flow.
        if self.f.tile {
            let (stmts, len) = self.tile_phase();
            body.extend(stmts);
            self.tile_len = len;
        }
        if self.f.workgroup {
            body.extend(self.workgroup_phase());
        }
        if self.f.subgroups {
            body.extend(self.subgroup_phase());
        }
        if self.f.coop {
            body.extend(self.coop_phase());
        }
        if let Some(shape) = self.f.sgm {
            let (stmts, len) = self.sgm_phase(shape);
            body.extend(stmts);
            self.sgm_len = len;
        }
        self.budget = 14;
        body.extend(self.block(ctx, 8));
        // Every output slot of this invocation is written at the end.
        let idx = Expr::name("idx", u.clone());
        let base = |k: u32| {
            Expr::bin(
                "+",
                Expr::bin("*", idx.clone(), Expr::lit(format!("{SLOTS}u"), u.clone()), u.clone()),
                Expr::lit(format!("{k}u"), u.clone()),
                u.clone(),
            )
        };
        let mut outs: Vec<(&str, Ty)> =
            vec![("out_u", u.clone()), ("out_f", Ty::S(S::F32)), ("out_v", Ty::Vec(4, S::F32))];
        if self.f.f16 {
            outs.push(("out_h", Ty::S(S::F16)));
        }
        for (name, ty) in outs {
            for k in 0..SLOTS {
                if self.rng.chance(55) {
                    continue;
                }
                let arr = Expr::name(name, Ty::RtArray(Box::new(ty.clone())));
                let e = self.expr(&ty, 1);
                body.push(Stmt::Assign(Expr::index(arr, base(k), ty.clone()), "=", e));
            }
        }
        if self.rng.chance(70) {
            let st = Ty::Struct("Out".into());
            let fields = self
                .structs
                .iter()
                .find(|s| s.name == "Out")
                .map(|s| s.fields.clone())
                .unwrap_or_default();
            let parts = fields.iter().map(|(_, t)| self.expr(t, 1)).collect();
            let arr = Expr::name("out_s", Ty::RtArray(Box::new(st.clone())));
            body.push(Stmt::Assign(
                Expr::index(arr, idx, st.clone()),
                "=",
                Expr::call("Out", parts, st),
            ));
        }
        let wg = self.wg;
        self.functions.push(Function {
            name: ENTRY.into(),
            params,
            ret: None,
            body,
            workgroup_size: Some(wg),
        });
    }

    /// Workgroup memory at the top of the entry point: own slots, a barrier, other slots, a
    /// uniform load and a workgroup atomic.
    fn workgroup_phase(&mut self) -> Vec<Stmt> {
        let u = Ty::S(S::U32);
        let t = self.threads();
        let et = self
            .rng
            .pick(&[Ty::S(S::F32), Ty::Vec(2, S::U32), Ty::S(S::I32), Ty::Struct("Loc".into())])
            .clone();
        let arr_ty = Ty::Array(Box::new(et.clone()), t);
        let wa = self.fresh("wg");
        self.globals.push(Global {
            space: "workgroup",
            name: wa.clone(),
            ty: arr_ty.clone(),
            binding: None,
            init: None,
        });
        let wu = self.fresh("wgu");
        self.globals.push(Global {
            space: "workgroup",
            name: wu.clone(),
            ty: u.clone(),
            binding: None,
            init: None,
        });
        let lid = Expr::name("lid", u.clone());
        let arr = Expr::name(wa.clone(), arr_ty);
        let mut out = Vec::new();
        let v = self.expr(&et, 0);
        out.push(Stmt::Assign(Expr::index(arr.clone(), lid.clone(), et.clone()), "=", v));
        let w = self.int_expr(S::U32, 1, 1);
        out.push(Stmt::If(
            Expr::bin("==", lid.clone(), Expr::lit("0u", u.clone()), Ty::S(S::Bool)),
            vec![Stmt::Assign(Expr::name(wu.clone(), u.clone()), "=", w)],
            Vec::new(),
        ));
        let mut at = None;
        if self.f.atomics {
            let an = self.fresh("wga");
            self.globals.push(Global {
                space: "workgroup",
                name: an.clone(),
                ty: Ty::Atomic(S::U32),
                binding: None,
                init: None,
            });
            let f = *self.rng.pick(&["atomicAdd", "atomicMax", "atomicOr", "atomicXor"]);
            let v = self.int_expr(S::U32, 1, 1);
            let p = Expr::addr(Expr::name(an.clone(), Ty::Atomic(S::U32)), "workgroup");
            out.push(Stmt::Phony(Expr::call(f, vec![p.clone(), v], u.clone())));
            at = Some(p);
        }
        out.push(Stmt::Call(
            if self.rng.chance(80) { "workgroupBarrier" } else { "storageBarrier" }.into(),
            Vec::new(),
        ));
        if matches!(out.last(), Some(Stmt::Call(f, _)) if f == "storageBarrier") {
            out.push(Stmt::Call("workgroupBarrier".into(), Vec::new()));
        }
        let k = self.rng.range(1, i64::from(t.max(2)) - 1);
        let other = Expr::bin(
            "%",
            Expr::bin("+", lid, Expr::lit(format!("{k}u"), u.clone()), u.clone()),
            Expr::lit(format!("{t}u"), u.clone()),
            u.clone(),
        );
        let r = self.fresh("w");
        out.push(Stmt::Let(r.clone(), Expr::index(arr, other, et.clone())));
        self.declare(&r, &et, false);
        let r2 = self.fresh("w");
        let ul = Expr::call(
            "workgroupUniformLoad",
            vec![Expr::addr(Expr::name(wu, u.clone()), "workgroup")],
            u.clone(),
        );
        out.push(Stmt::Let(r2.clone(), ul));
        self.declare(&r2, &u, false);
        if let Some(p) = at {
            let r3 = self.fresh("w");
            out.push(Stmt::Let(r3.clone(), Expr::call("atomicLoad", vec![p], u.clone())));
            self.declare(&r3, &u, false);
        }
        out.push(Stmt::Call("workgroupBarrier".into(), Vec::new()));
        out
    }

    /// Subgroup operations in uniform control flow.
    fn subgroup_phase(&mut self) -> Vec<Stmt> {
        let u = Ty::S(S::U32);
        let ssz = Expr::name("ssz", u.clone());
        let mask = Expr::bin("-", ssz, Expr::lit("1u", u.clone()), u.clone());
        let mut out = Vec::new();
        for _ in 0..self.rng.range(1, 4) {
            let s = *self.rng.pick(&[S::U32, S::I32, S::F32]);
            let n = if self.rng.chance(25) { self.rng.range(2, 4) as u8 } else { 1 };
            let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
            let x = self.expr(&ty, 1);
            let e = match self.rng.below(9) {
                0 | 1 => {
                    let ops: &[&str] = if s == S::F32 {
                        &[
                            "subgroupAdd",
                            "subgroupMin",
                            "subgroupMax",
                            "subgroupExclusiveAdd",
                            "subgroupInclusiveAdd",
                        ]
                    } else {
                        &[
                            "subgroupAdd",
                            "subgroupMul",
                            "subgroupMin",
                            "subgroupMax",
                            "subgroupAnd",
                            "subgroupOr",
                            "subgroupXor",
                            "subgroupExclusiveAdd",
                            "subgroupInclusiveAdd",
                            "subgroupExclusiveMul",
                            "subgroupInclusiveMul",
                        ]
                    };
                    let f = *self.rng.pick(ops);
                    let r = Expr::call(f, vec![x], ty.clone());
                    // Float sums of up to 32 values in [-4, 4]: scale back into range.
                    if s == S::F32 && f.contains("Add") {
                        self.fclamp(self.scale(r, 0.125), -4.0, 4.0)
                    } else {
                        r
                    }
                }
                2 => {
                    let lane = Expr::lit(format!("{}u", self.rng.below(8)), u.clone());
                    Expr::call("subgroupBroadcast", vec![x, lane], ty.clone())
                }
                3 => Expr::call("subgroupBroadcastFirst", vec![x], ty.clone()),
                4 => {
                    let i = self.int_expr(S::U32, 1, 1);
                    let i = Expr::bin("&", i, mask.clone(), u.clone());
                    Expr::call("subgroupShuffle", vec![x, i], ty.clone())
                }
                5 => {
                    let i = self.int_expr(S::U32, 1, 1);
                    let i = Expr::bin("&", i, mask.clone(), u.clone());
                    Expr::call("subgroupShuffleXor", vec![x, i], ty.clone())
                }
                6 => {
                    // Up/down by a small delta, keeping only the lanes whose source exists (as
                    // kernels do): a source past the ends is indeterminate, and verify can
                    // only estimate which results depend on it.
                    let f = *self.rng.pick(&["subgroupShuffleUp", "subgroupShuffleDown"]);
                    let k = self.rng.range(1, 3);
                    let d = Expr::lit(format!("{k}u"), u.clone());
                    let e = Expr::call(f, vec![x, d], ty.clone());
                    {
                        let sid = Expr::name("sid", u.clone());
                        let ssz = Expr::name("ssz", u.clone());
                        let kk = Expr::lit(format!("{k}u"), u.clone());
                        let exists = if f == "subgroupShuffleUp" {
                            Expr::bin(">=", sid, kk, Ty::S(S::Bool))
                        } else {
                            Expr::bin("<", Expr::bin("+", sid, kk, u.clone()), ssz, Ty::S(S::Bool))
                        };
                        Expr::call("select", vec![zero(&ty), e, exists], ty.clone())
                    }
                }
                7 => {
                    let f = *self.rng.pick(&["quadSwapX", "quadSwapY", "quadSwapDiagonal"]);
                    if self.rng.chance(50) {
                        Expr::call(f, vec![x], ty.clone())
                    } else {
                        let l = Expr::lit(format!("{}u", self.rng.below(4)), u.clone());
                        Expr::call("quadBroadcast", vec![x, l], ty.clone())
                    }
                }
                _ => {
                    let b = self.bool_expr(1, 1);
                    let r = self.fresh("sb");
                    let (f, rt) = self
                        .rng
                        .pick(&[
                            ("subgroupAll", Ty::S(S::Bool)),
                            ("subgroupAny", Ty::S(S::Bool)),
                            ("subgroupBallot", Ty::Vec(4, S::U32)),
                        ])
                        .clone();
                    out.push(Stmt::Let(r.clone(), Expr::call(f, vec![b], rt.clone())));
                    self.declare(&r, &rt, false);
                    continue;
                }
            };
            let r = self.fresh("sg");
            out.push(Stmt::Let(r.clone(), e));
            self.declare(&r, &ty, false);
        }
        out
    }

    /// Cooperative-matrix load, multiply-add and store per subgroup of 32.
    fn coop_phase(&mut self) -> Vec<Stmt> {
        let u = Ty::S(S::U32);
        let h = Ty::S(S::F16);
        let f = Ty::S(S::F32);
        let mut out = Vec::new();
        // The subgroup's region: uniform within each subgroup of 32.
        out.push(Stmt::Let("csg".into(), Expr::lit("(idx / 32u)", u.clone())));
        let csg = Expr::name("csg", u.clone());
        let in_h = Expr::name("in_h", Ty::RtArray(Box::new(h.clone())));
        let in_f = Expr::name("in_f", Ty::RtArray(Box::new(f.clone())));
        let stride = *self.rng.pick(&[16u32, 17, 24]);
        let at = |arr: &Expr, off: u32, t: &Ty| {
            let i = Expr::bin(
                "+",
                Expr::bin("*", csg.clone(), Expr::lit("8u", u.clone()), u.clone()),
                Expr::lit(format!("{off}u"), u.clone()),
                u.clone(),
            );
            Expr::addr(Expr::index(arr.clone(), i, t.clone()), "storage")
        };
        let sl = Expr::lit(format!("{stride}u"), u.clone());
        let (la, lb) = (
            if self.rng.chance(50) { "coopLoad" } else { "coopLoadT" },
            if self.rng.chance(50) { "coopLoad" } else { "coopLoadT" },
        );
        let ta = Ty::Coop(16, S::F16, Role::A);
        let tb = Ty::Coop(16, S::F16, Role::B);
        let tc = Ty::Coop(16, S::F32, Role::C);
        out.push(Stmt::Let(
            "ca".into(),
            Expr::call(format!("{la}<{}>", ta.wgsl()), vec![at(&in_h, 0, &h), sl.clone()], ta),
        ));
        out.push(Stmt::Let(
            "cb".into(),
            Expr::call(
                format!("{lb}<{}>", tb.wgsl()),
                vec![at(&in_h, 3, &h), sl.clone()],
                tb.clone(),
            ),
        ));
        out.push(Stmt::Let(
            "cc".into(),
            Expr::call(
                format!("coopLoad<{}>", tc.wgsl()),
                vec![at(&in_f, 1, &f), sl.clone()],
                tc.clone(),
            ),
        ));
        let d = Expr::call(
            "coopMultiplyAdd",
            vec![
                Expr::name("ca", Ty::Coop(16, S::F16, Role::A)),
                Expr::name("cb", tb),
                Expr::name("cc", tc.clone()),
            ],
            tc.clone(),
        );
        out.push(Stmt::Let("cd".into(), d));
        let out_c = Expr::name("out_c", Ty::RtArray(Box::new(f.clone())));
        let dst = Expr::addr(
            Expr::index(out_c, Expr::bin("*", csg, Expr::lit("256u", u.clone()), u.clone()), f),
            "storage",
        );
        let store = if self.rng.chance(50) { "coopStore" } else { "coopStoreT" };
        out.push(Stmt::Call(
            store.into(),
            vec![Expr::name("cd", tc), dst, Expr::lit("16u", u.clone())],
        ));
        out
    }
}

/// The zero value of a constructible type (`T()`).
fn zero(ty: &Ty) -> Expr {
    Expr::zero(ty).unwrap_or_else(|| Expr::lit("0u", Ty::S(S::U32)))
}

/// Whether an expression is made of literals only (a constant expression for naga).
fn is_const(e: &Expr) -> bool {
    match &*e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Name(_) | ExprKind::Index(..) | ExprKind::AddrOf(_) | ExprKind::Deref(_) => false,
        ExprKind::Call(f, _) if f == "arrayLength" => false,
        _ => e.children().iter().all(|c| is_const(c)),
    }
}

/// Whether an expression is constant or a vector constructor with a constant component
/// (what naga checks a divisor for).
fn has_const_part(e: &Expr) -> bool {
    is_const(e)
        || matches!(&*e.kind, ExprKind::Call(f, args) if f.starts_with("vec") && args.iter().any(has_const_part))
}

/// Whether any literal occurs in an expression.
fn has_literal(e: &Expr) -> bool {
    matches!(&*e.kind, ExprKind::Lit(_)) || e.children().iter().any(|c| has_literal(c))
}

/// `(lo, hi)` for `clamp`: when both are constant, `(min(lo, hi), max(lo, hi))`, since naga
/// rejects a constant `low` above `high`.
fn ordered(lo: Expr, hi: Expr) -> (Expr, Expr) {
    if is_const(&lo) && is_const(&hi) {
        let t = lo.ty.clone();
        (
            Expr::call("min", vec![lo.clone(), hi.clone()], t.clone()),
            Expr::call("max", vec![lo, hi], t),
        )
    } else {
        (lo, hi)
    }
}

/// An integer expression converted to scalar `s` (same bits for i32 and u32).
fn convert_int(e: Expr, s: S) -> Expr {
    if e.ty == Ty::S(s) {
        e
    } else {
        Expr::call(s.name(), vec![e], Ty::S(s))
    }
}
