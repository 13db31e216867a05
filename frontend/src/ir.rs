//! The structured SSA form every target prints from (docs/targets.md).
//!
//! # Shape
//!
//! A [`Module`] owns interned [`Type`]s, module-scope [`Global`]s, named [`Constant`]s,
//! [`Function`]s and [`EntryPoint`]s. Everything is referenced by typed `u32` handles
//! ([`TypeId`], [`GlobalId`], [`FuncId`], [`ValueId`], [`LocalId`]).
//!
//! A function body is a tree of [`Block`]s. A block is a list of [`Inst`]s followed by one
//! [`Terminator`]. Control flow is structured, MLIR `scf` style: the region instructions
//! [`Op::If`], [`Op::Switch`], [`Op::Loop`] and [`Op::Inline`] own their blocks and define
//! their `results` when control leaves them normally.
//!
//! # Values
//!
//! Every [`ValueId`] is defined exactly once: as a function parameter, a block parameter
//! (loop body and continuing blocks), the `result` of an instruction, or one of the `results`
//! of a region instruction. A value may be used by any instruction it dominates. In the
//! structured form that means: later in the same block, or anywhere inside a region nested in
//! that block. The continuing block of a loop may also use values defined at the top level of
//! the loop body (WGSL guarantees no `continue` skips such a definition).
//!
//! # Terminators and their targets
//!
//! | terminator | leaves | arguments become |
//! |---|---|---|
//! | `Yield(args)` in an `If`/`Switch` arm | the region | the region's `results` |
//! | `Yield(args)` at the end of a loop body | the body | the continuing block's params |
//! | `Yield(args)` at the end of a loop's continuing | the iteration | the body's params (next iteration) or, when `break_if` is true, the loop's `results` |
//! | `Yield(args)` at the end of an `Inline` body | the region | the region's `results` |
//! | `Break(args)` | the innermost enclosing `Loop` or `Switch` | its `results` |
//! | `Continue(args)` | to the innermost loop's continuing block | its params |
//! | `Return(v)` | the innermost `Inline` region, else the function | that region's results / the function result |
//! | `Discard` | the invocation (fragment only) | — |
//! | `Unreachable` | never executed (every path before it left the block) | — |
//!
//! A loop's body params, continuing params and results all have the same types: the loop
//! carries one tuple of state. The top-level function body ends in `Return`, never `Yield`.
//!
//! Memory: function-local variables the mem2reg pass could not promote are [`Local`]s addressed
//! with [`Op::LocalAddr`]; module-scope variables are addressed with [`Op::GlobalAddr`]. Pointers
//! are ordinary values of [`Type::Pointer`].
//!
//! Layout: struct member offsets, array strides and sizes are WGSL's host-shareable layout
//! (naga's `proc::Layouter`), so buffer bytes mean the same on every target.

pub use naga::{
    Barrier, BinaryOperator, BuiltIn, CollectiveOperation, DerivativeAxis, DerivativeControl,
    Direction, ImageClass, ImageDimension, Interpolation, MathFunction, RelationalFunction,
    Sampling, ScalarKind, StorageFormat, SubgroupOperation, UnaryOperator,
};

macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The handle as an index into its arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

handle!(
    /// A type in [`Module::types`].
    TypeId,
    "t"
);
handle!(
    /// A module-scope variable in [`Module::globals`].
    GlobalId,
    "g"
);
handle!(
    /// A function in [`Module::functions`].
    FuncId,
    "f"
);
handle!(
    /// A value in [`Function::values`].
    ValueId,
    "%"
);
handle!(
    /// A function-local memory variable in [`Function::locals`].
    LocalId,
    "l"
);
handle!(
    /// A named constant in [`Module::constants`].
    ConstId,
    "c"
);

/// A byte range in the source file (naga's span).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// Whether the span points nowhere (generated code).
    pub fn is_unknown(self) -> bool {
        self.start == 0 && self.end == 0
    }
}

impl From<naga::Span> for Span {
    fn from(s: naga::Span) -> Self {
        match s.to_range() {
            Some(r) => Span { start: r.start as u32, end: r.end as u32 },
            None => Span::default(),
        }
    }
}

/// Scalar types. WGSL's abstract numbers are concretized by naga before lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `f32`
    F32,
    /// `f16`
    F16,
    /// `i64` (naga's `SHADER_INT64` capability)
    I64,
    /// `u64`
    U64,
    /// `f64` (naga's `FLOAT64` capability)
    F64,
}

impl Scalar {
    /// Size in bytes in memory (`bool` is stored as 4 bytes in workgroup memory).
    pub fn size(self) -> u32 {
        match self {
            Scalar::F16 => 2,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
            Scalar::Bool | Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
        }
    }
    /// Whether the scalar is `f32`, `f16` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F16 | Scalar::F64)
    }
    /// Whether the scalar is `i32`, `u32`, `i64` or `u64`.
    pub fn is_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
    }
    /// Whether the scalar is one of the 64-bit types (`i64`, `u64`, `f64`).
    pub fn is_64(self) -> bool {
        matches!(self, Scalar::I64 | Scalar::U64 | Scalar::F64)
    }
    /// Whether the scalar is a signed integer (`i32`, `i64`).
    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }
    /// WGSL spelling.
    pub fn wgsl_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F16 => "f16",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
            Scalar::F64 => "f64",
        }
    }
}

/// WGSL address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    /// Function-local memory (`var` in a function).
    Function,
    /// Per-invocation module-scope memory (`var<private>`).
    Private,
    /// Per-workgroup memory (`var<workgroup>`).
    Workgroup,
    /// Uniform buffer.
    Uniform,
    /// Storage buffer; `writable` is false for `read` access.
    Storage {
        /// `read_write` (true) or `read` (false).
        writable: bool,
    },
    /// Textures and samplers.
    Handle,
    /// Immediate data (`var<immediate>`, Vulkan's push constants): a small read-only block
    /// the host passes with each dispatch instead of in a buffer (docs/immediates.md).
    Immediate,
}

impl AddressSpace {
    /// Whether nothing changes this memory while a dispatch runs: uniform buffers, read-only
    /// storage and immediate data. WebGPU forbids binding a buffer read-only and writable in
    /// one dispatch, and docs/abi.md asks the same of CUDA hosts, so every load from such
    /// memory reads the same value wherever and whenever it runs (CSE merges equal loads,
    /// LICM hoists them). The one predicate both passes read.
    pub fn is_launch_constant(self) -> bool {
        matches!(
            self,
            AddressSpace::Uniform
                | AddressSpace::Immediate
                | AddressSpace::Storage { writable: false }
        )
    }
}

/// Element type of a cooperative matrix: a shader scalar, or one byte (Dawn's `i8`/`u8`,
/// which exist only inside matrices and are `i32`/`u32` in shader code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoopElem {
    /// `f16`
    F16,
    /// `f32`
    F32,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// A signed byte.
    I8,
    /// An unsigned byte.
    U8,
}

impl CoopElem {
    /// The element type a WGSL name spells.
    pub fn parse(name: &str) -> Option<CoopElem> {
        Some(match name {
            "f16" => CoopElem::F16,
            "f32" => CoopElem::F32,
            "i32" => CoopElem::I32,
            "u32" => CoopElem::U32,
            "i8" => CoopElem::I8,
            "u8" => CoopElem::U8,
            _ => return None,
        })
    }
    /// WGSL spelling.
    pub fn name(self) -> &'static str {
        match self {
            CoopElem::F16 => "f16",
            CoopElem::F32 => "f32",
            CoopElem::I32 => "i32",
            CoopElem::U32 => "u32",
            CoopElem::I8 => "i8",
            CoopElem::U8 => "u8",
        }
    }
    /// The shader scalar type that holds one element.
    pub fn scalar(self) -> Scalar {
        match self {
            CoopElem::F16 => Scalar::F16,
            CoopElem::F32 => Scalar::F32,
            CoopElem::I32 | CoopElem::I8 => Scalar::I32,
            CoopElem::U32 | CoopElem::U8 => Scalar::U32,
        }
    }
    /// WGSL spelling of [`CoopElem::scalar`].
    pub fn scalar_name(self) -> &'static str {
        match self.scalar() {
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::I32 => "i32",
            _ => "u32",
        }
    }
    /// The element for a shader scalar (`None` for scalars matrices cannot hold).
    pub fn of_scalar(s: Scalar) -> Option<CoopElem> {
        Some(match s {
            Scalar::F16 => CoopElem::F16,
            Scalar::F32 => CoopElem::F32,
            Scalar::I32 => CoopElem::I32,
            Scalar::U32 => CoopElem::U32,
            _ => return None,
        })
    }
    /// Bytes per element in memory.
    pub fn size(self) -> u32 {
        match self {
            CoopElem::I8 | CoopElem::U8 => 1,
            CoopElem::F16 => 2,
            _ => 4,
        }
    }
    /// One byte per element.
    pub fn is_byte(self) -> bool {
        matches!(self, CoopElem::I8 | CoopElem::U8)
    }
    /// A floating-point element.
    pub fn is_float(self) -> bool {
        matches!(self, CoopElem::F16 | CoopElem::F32)
    }
}

/// Role of a cooperative matrix in `a·b + c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoopRole {
    /// Left operand.
    A,
    /// Right operand.
    B,
    /// Accumulator.
    C,
}

/// Interned type. Sizes of composite types are WGSL host-shareable sizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A scalar.
    Scalar(Scalar),
    /// `vecN<T>`, N in 2..=4.
    Vector {
        /// Component count.
        size: u8,
        /// Component type.
        scalar: Scalar,
    },
    /// `matCxR<T>`: `columns` column vectors of `rows` components.
    Matrix {
        /// Column count.
        columns: u8,
        /// Row count (components per column).
        rows: u8,
        /// `f32` or `f16`.
        scalar: Scalar,
    },
    /// `array<T, N>` (`len` = Some) or runtime-sized `array<T>` (`len` = None).
    Array {
        /// Element type.
        base: TypeId,
        /// Element count; `None` for runtime-sized.
        len: Option<u32>,
        /// Byte distance between elements.
        stride: u32,
    },
    /// A struct with laid-out members.
    Struct {
        /// Source name.
        name: String,
        /// Members in declaration order.
        members: Vec<Member>,
        /// Size in bytes (rounded up to the alignment).
        size: u32,
        /// Alignment in bytes.
        align: u32,
    },
    /// `atomic<T>`, T = i32 or u32.
    Atomic(Scalar),
    /// A pointer into an address space.
    Pointer {
        /// Pointee type.
        base: TypeId,
        /// Address space.
        space: AddressSpace,
    },
    /// A texture.
    Image {
        /// 1D, 2D, 3D, cube.
        dim: ImageDimension,
        /// Array texture.
        arrayed: bool,
        /// Sampled, depth or storage.
        class: ImageClass,
    },
    /// `sampler` or `sampler_comparison`.
    Sampler {
        /// `sampler_comparison`.
        comparison: bool,
    },
    /// `coop_matNxN<T, R>` or Dawn's `subgroup_matrix_*<T, C, R>`; columns first.
    CoopMatrix {
        /// Columns.
        columns: u8,
        /// Rows.
        rows: u8,
        /// Element type.
        elem: CoopElem,
        /// Operand role.
        role: CoopRole,
    },
}

/// A struct member.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// Source name.
    pub name: String,
    /// Member type.
    pub ty: TypeId,
    /// Byte offset in the struct.
    pub offset: u32,
    /// Shader-stage I/O binding when the struct is an entry-point argument or result.
    pub binding: Option<IoBinding>,
}

/// How an entry-point argument or result is connected to the pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IoBinding {
    /// `@builtin(...)`.
    BuiltIn(BuiltIn),
    /// `@location(n)` with interpolation.
    Location {
        /// Location index.
        location: u32,
        /// `@interpolate` type.
        interpolation: Option<Interpolation>,
        /// `@interpolate` sampling.
        sampling: Option<Sampling>,
        /// `@blend_src`.
        blend_src: Option<u32>,
    },
}

/// The interned type table.
#[derive(Clone, Debug, Default)]
pub struct Types {
    list: Vec<Type>,
    map: std::collections::HashMap<Type, TypeId>,
}

impl Types {
    /// Returns the handle of `ty`, adding it when new.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        if let Some(&id) = self.map.get(&ty) {
            return id;
        }
        let id = TypeId(self.list.len() as u32);
        self.list.push(ty.clone());
        self.map.insert(ty, id);
        id
    }
    /// The type behind a handle.
    pub fn get(&self, id: TypeId) -> &Type {
        &self.list[id.index()]
    }
    /// Looks a type up without adding it.
    pub fn find(&self, ty: &Type) -> Option<TypeId> {
        self.map.get(ty).copied()
    }
    /// All types with their handles, in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &Type)> {
        self.list.iter().enumerate().map(|(i, t)| (TypeId(i as u32), t))
    }
    /// Number of types.
    pub fn len(&self) -> usize {
        self.list.len()
    }
    /// Whether there are no types.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// Shorthand for a scalar type.
    pub fn scalar(&mut self, s: Scalar) -> TypeId {
        self.intern(Type::Scalar(s))
    }
    /// The scalar (component) type of a scalar, vector, matrix, atomic or cooperative matrix.
    pub fn scalar_of(&self, id: TypeId) -> Option<Scalar> {
        match *self.get(id) {
            Type::Scalar(s) | Type::Atomic(s) => Some(s),
            Type::Vector { scalar, .. } | Type::Matrix { scalar, .. } => Some(scalar),
            Type::CoopMatrix { elem, .. } => Some(elem.scalar()),
            _ => None,
        }
    }
    /// Matrix elements per element of what a cooperative load or store's pointer (of type
    /// `ptr`) points to: 1 for the matrix's own scalar; Dawn's loads read a matrix of one
    /// element type from an array of another (`i8` from `vec4<u32>`: 16). A tile's stride
    /// counts pointee elements, so in matrix elements it is `stride * scale`.
    pub fn coop_scale(&self, ptr: TypeId, matrix: TypeId) -> u32 {
        let Type::Pointer { base, .. } = *self.get(ptr) else { return 1 };
        let Type::CoopMatrix { elem, .. } = *self.get(matrix) else { return 1 };
        let (size, align) = self.size_align(base);
        let align = align.max(1);
        (size.div_ceil(align) * align / elem.size()).max(1)
    }
    /// The offset, in matrix elements, of a cooperative matrix's last element from its first
    /// when stored through a pointer of type `ptr` with row stride (column stride when not
    /// `row_major`) `stride` pointee elements: `(major - 1) * stride * scale + minor - 1`
    /// ([`Types::coop_scale`]). `None` for other types.
    pub fn coop_last_offset(
        &self,
        id: TypeId,
        ptr: TypeId,
        row_major: bool,
        stride: u64,
    ) -> Option<u64> {
        let Type::CoopMatrix { columns, rows, .. } = *self.get(id) else { return None };
        let (major, minor) = if row_major { (rows, columns) } else { (columns, rows) };
        let (major, minor) =
            (u64::from(major.saturating_sub(1)), u64::from(minor.saturating_sub(1)));
        let stride = stride.checked_mul(u64::from(self.coop_scale(ptr, id)))?;
        major.checked_mul(stride)?.checked_add(minor)
    }
    /// WGSL host-shareable (size, alignment) of a type; pointers and handles are (8, 8).
    pub fn size_align(&self, id: TypeId) -> (u32, u32) {
        match *self.get(id) {
            Type::Scalar(s) | Type::Atomic(s) => (s.size(), s.size()),
            Type::Vector { size, scalar } => {
                let n = if size == 2 { 2 } else { 4 };
                (scalar.size() * size as u32, scalar.size() * n)
            }
            Type::Matrix { columns, rows, scalar } => {
                let n = if rows == 2 { 2 } else { 4 };
                let col_align = scalar.size() * n;
                (col_align * columns as u32, col_align)
            }
            Type::Array { base, len, stride } => {
                let (_, a) = self.size_align(base);
                (stride * len.unwrap_or(0), a)
            }
            Type::Struct { size, align, .. } => (size, align),
            Type::CoopMatrix { columns, rows, elem, .. } => {
                (columns as u32 * rows as u32 * elem.size(), elem.size())
            }
            Type::Pointer { .. } | Type::Image { .. } | Type::Sampler { .. } => (8, 8),
        }
    }
}

/// A compile-time constant value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstValue {
    /// `bool`
    Bool(bool),
    /// `i32`
    I32(i32),
    /// `u32`
    U32(u32),
    /// `f32` by bit pattern (so constants can be hashed and compared exactly).
    F32(u32),
    /// `f16` by bit pattern.
    F16(u16),
    /// `i64`
    I64(i64),
    /// `u64`
    U64(u64),
    /// `f64` by bit pattern.
    F64(u64),
    /// A vector, matrix (columns), array or struct (fields) of constants.
    Composite(TypeId, Vec<ConstValue>),
    /// The zero value of a type.
    Zero(TypeId),
}

impl ConstValue {
    /// An f32 constant.
    pub fn f32(v: f32) -> Self {
        ConstValue::F32(v.to_bits())
    }
    /// An f16 constant.
    pub fn f16(v: half::f16) -> Self {
        ConstValue::F16(v.to_bits())
    }
    /// An f64 constant.
    pub fn f64(v: f64) -> Self {
        ConstValue::F64(v.to_bits())
    }
}

/// A named module-scope constant, kept for the printers (uses are inlined as [`Op::Const`]).
#[derive(Clone, Debug)]
pub struct Constant {
    /// Source name.
    pub name: String,
    /// Type.
    pub ty: TypeId,
    /// Value.
    pub value: ConstValue,
}

/// A module-scope variable: a resource, a workgroup variable or a private variable.
#[derive(Clone, Debug)]
pub struct Global {
    /// Source name.
    pub name: String,
    /// Address space.
    pub space: AddressSpace,
    /// Type of the variable (not the pointer).
    pub ty: TypeId,
    /// `@group(g) @binding(b)` for resources.
    pub binding: Option<ResourceBinding>,
    /// Initial value (private variables); `None` means zero.
    pub init: Option<ConstValue>,
    /// Declaration site.
    pub span: Span,
}

/// `@group(group) @binding(binding)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceBinding {
    /// Bind group.
    pub group: u32,
    /// Binding within the group.
    pub binding: u32,
}

/// A function-local memory variable (not promoted by mem2reg).
#[derive(Clone, Debug)]
pub struct Local {
    /// Source name.
    pub name: String,
    /// Type of the variable.
    pub ty: TypeId,
    /// Declaration site.
    pub span: Span,
}

/// Per-value data.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// The value's type.
    pub ty: TypeId,
    /// A source name, when the value came from a named `let`/`var`/parameter.
    pub name: Option<String>,
}

/// A function parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Source name.
    pub name: String,
    /// The SSA value holding the argument.
    pub value: ValueId,
    /// Entry-point I/O binding (builtins, locations); structs carry them per member.
    pub binding: Option<IoBinding>,
}

/// A function result.
#[derive(Clone, Debug)]
pub struct FnResult {
    /// Result type.
    pub ty: TypeId,
    /// Entry-point I/O binding.
    pub binding: Option<IoBinding>,
}

/// A function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Source name.
    pub name: String,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Result, if any.
    pub result: Option<FnResult>,
    /// Every value defined in the function, indexed by [`ValueId`].
    pub values: Vec<ValueData>,
    /// Memory variables, indexed by [`LocalId`].
    pub locals: Vec<Local>,
    /// The body; it ends in `Return` (or `Unreachable`/`Discard`).
    pub body: Block,
    /// What the bounds pass did here (zero before it runs or with checks off).
    pub bounds: crate::passes::BoundsCounts,
    /// Declaration site.
    pub span: Span,
}

impl Function {
    /// Creates a new value of type `ty`.
    pub fn new_value(&mut self, ty: TypeId, name: Option<String>) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ValueData { ty, name });
        id
    }
    /// The type of a value.
    pub fn ty(&self, v: ValueId) -> TypeId {
        self.values[v.index()].ty
    }
    /// How many times each value is used (operands, terminator arguments), over the whole
    /// body, indexed by [`ValueId`].
    pub fn use_counts(&self) -> Vec<u32> {
        fn walk(b: &Block, n: &mut [u32]) {
            for inst in &b.insts {
                inst.op.for_each_operand(|v| n[v.index()] += 1);
                for nb in inst.op.blocks() {
                    walk(nb, n);
                }
            }
            for v in b.term.args() {
                n[v.index()] += 1;
            }
        }
        let mut n = vec![0; self.values.len()];
        walk(&self.body, &mut n);
        n
    }
}

/// A straight-line list of instructions ending in a terminator.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// Block parameters (loop body and continuing blocks only).
    pub params: Vec<ValueId>,
    /// Instructions in order.
    pub insts: Vec<Inst>,
    /// How control leaves the block.
    pub term: Terminator,
}

impl Block {
    /// For a loop body: how many of its leading instructions run on every path to the
    /// continuing block, i.e. come before the first instruction that may `continue`. Only their
    /// values are visible in the continuing block (WGSL forbids a `continue` that skips a
    /// declaration the continuing block uses).
    pub fn insts_before_continue(&self) -> usize {
        fn may_continue(b: &Block) -> bool {
            matches!(b.term, Terminator::Continue(_))
                || b.insts.iter().any(|i| match &i.op {
                    // A nested loop's `continue` is its own; an `Inline` region cannot be left
                    // by `continue`.
                    Op::Loop { .. } | Op::Inline { .. } => false,
                    op => op.blocks().into_iter().any(may_continue),
                })
        }
        self.insts
            .iter()
            .position(|i| match &i.op {
                Op::Loop { .. } | Op::Inline { .. } => false,
                op => op.blocks().into_iter().any(may_continue),
            })
            .unwrap_or(self.insts.len())
    }
}

/// How control leaves a [`Block`]; see the module doc for targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Terminator {
    /// Normal end of a region body.
    #[default]
    Unreachable,
    /// Leave the region normally with these values.
    Yield(Vec<ValueId>),
    /// Leave the innermost loop or switch.
    Break(Vec<ValueId>),
    /// Go to the innermost loop's continuing block.
    Continue(Vec<ValueId>),
    /// Leave the innermost `Inline` region or the function.
    Return(Option<ValueId>),
    /// Fragment `discard`.
    Discard,
}

/// One instruction: an operation, the value it defines (if any) and where it came from.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The defined value, for operations that produce one.
    pub result: Option<ValueId>,
    /// What it does.
    pub op: Op,
    /// Source location.
    pub span: Span,
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomicAdd`
    Add,
    /// `atomicSub`
    Sub,
    /// `atomicAnd`
    And,
    /// `atomicOr`
    Or,
    /// `atomicXor`
    Xor,
    /// `atomicMin`
    Min,
    /// `atomicMax`
    Max,
    /// `atomicExchange`
    Exchange,
}

/// Lane-exchange operations of subgroups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GatherMode {
    /// `subgroupBroadcastFirst(x)`
    BroadcastFirst,
    /// `subgroupBroadcast(x, lane)` (lane is `index`)
    Broadcast,
    /// `subgroupShuffle(x, lane)`
    Shuffle,
    /// `subgroupShuffleDown(x, delta)`
    ShuffleDown,
    /// `subgroupShuffleUp(x, delta)`
    ShuffleUp,
    /// `subgroupShuffleXor(x, mask)`
    ShuffleXor,
    /// `quadBroadcast(x, id)`
    QuadBroadcast,
    /// `quadSwapX/Y/Diagonal(x)`
    QuadSwap(Direction),
}

/// Level-of-detail selection for texture sampling.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleLevel {
    /// Implicit derivatives (`textureSample`).
    Auto,
    /// `textureSampleLevel(.., 0)` on depth textures etc.
    Zero,
    /// Explicit level.
    Exact(ValueId),
    /// Bias added to the implicit level.
    Bias(ValueId),
    /// Explicit gradients.
    Gradient {
        /// d/dx
        x: ValueId,
        /// d/dy
        y: ValueId,
    },
}

/// Texture queries.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageQuery {
    /// `textureDimensions(t [, level])`
    Size {
        /// Mip level.
        level: Option<ValueId>,
    },
    /// `textureNumLevels`
    NumLevels,
    /// `textureNumLayers`
    NumLayers,
    /// `textureNumSamples`
    NumSamples,
}

/// Operations. Operand order follows WGSL. Arithmetic on vectors is component-wise; the
/// frontend splats scalar operands so both sides of a component-wise binary op have the same
/// shape, except the linear-algebra forms of `Mul` (matrix×matrix, matrix×vector,
/// vector×matrix, matrix×scalar) and the shift amount, which always matches the shape of the
/// left operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    // ---- pure values ----
    /// A constant.
    Const(ConstValue),
    /// `-x`, `!x`, `~x`.
    Unary(UnaryOperator, ValueId),
    /// A binary operator with WGSL semantics (integer division by zero, shift masking, ...).
    Binary(BinaryOperator, ValueId, ValueId),
    /// `select(reject, accept, cond)`; `cond` is a bool or a bool vector of the same size.
    Select {
        /// Condition.
        cond: ValueId,
        /// Value when true.
        accept: ValueId,
        /// Value when false.
        reject: ValueId,
    },
    /// Builds a vector (from scalars/vectors, flattened), matrix (from columns), array or struct.
    Compose(Vec<ValueId>),
    /// A vector with every component equal to a scalar.
    Splat(ValueId),
    /// Component / column / element / field `index` of a composite value.
    Extract(ValueId, u32),
    /// Component / column / element of a vector, matrix or array value by a runtime index.
    /// An out-of-range index is a sanitizer error in the interpreter.
    ExtractDyn(ValueId, ValueId),
    /// A copy of a composite with member `index` replaced.
    Insert {
        /// The composite.
        base: ValueId,
        /// Static index.
        index: u32,
        /// The new member.
        value: ValueId,
    },
    /// A copy of a vector/matrix/array value with the element at a runtime index replaced.
    InsertDyn {
        /// The composite.
        base: ValueId,
        /// Runtime index.
        index: ValueId,
        /// The new element.
        value: ValueId,
    },
    /// Vector swizzle; `pattern` holds component indices (0..4), length 2..=4 (1 is `Extract`).
    Swizzle(ValueId, Vec<u8>),
    /// Numeric conversion to `to` per component (WGSL's rules: float→int saturates).
    Convert(ValueId, Scalar),
    /// Reinterprets the bits as the result type (same total size).
    Bitcast(ValueId),
    /// A WGSL builtin function (`abs`, `dot`, `pack2x16float`, ...) with its arguments.
    Math(MathFunction, Vec<ValueId>),
    /// `all`, `any`, `isNan`, `isInf`.
    Relational(RelationalFunction, ValueId),
    /// `dpdx` etc. (fragment only).
    Derivative(DerivativeAxis, DerivativeControl, ValueId),

    // ---- memory ----
    /// Pointer to a module-scope variable.
    GlobalAddr(GlobalId),
    /// Pointer to a function-local memory variable.
    LocalAddr(LocalId),
    /// Pointer to member `index` of the pointee (vector component, matrix column, array
    /// element, struct field).
    AccessIndex(ValueId, u32),
    /// Pointer to element `index` (runtime) of the pointee (vector, matrix, array).
    Access(ValueId, ValueId),
    /// Loads through a pointer (plain and atomic pointers: `atomicLoad` is a `Load`).
    Load(ValueId),
    /// Stores through a pointer (`atomicStore` is a `Store` to an atomic pointer). No result.
    Store {
        /// Destination.
        ptr: ValueId,
        /// Stored value.
        value: ValueId,
    },
    /// Atomic read-modify-write returning the old value.
    Atomic {
        /// Pointer to an atomic.
        ptr: ValueId,
        /// Operation.
        op: AtomicOp,
        /// Operand.
        value: ValueId,
    },
    /// `atomicCompareExchangeWeak(ptr, cmp, value)`; the result is the
    /// `__atomic_compare_exchange_result` struct `{ old_value, exchanged }`.
    AtomicCompareExchange {
        /// Pointer to an atomic.
        ptr: ValueId,
        /// Expected old value.
        compare: ValueId,
        /// New value.
        value: ValueId,
    },
    /// `arrayLength(ptr)`: element count of the runtime-sized array `ptr` points to.
    ArrayLength(ValueId),
    /// `workgroupBarrier`, `storageBarrier`, `subgroupBarrier`, `textureBarrier`.
    Barrier(Barrier),
    /// `workgroupUniformLoad(ptr)`: barrier, load, barrier.
    WorkgroupUniformLoad(ValueId),
    /// Whether the bool operand is true on every invocation of the workgroup; a workgroup
    /// barrier (execution only). No WGSL spells it: loop versioning (`passes::version_loops`)
    /// makes its decision with it, so it only appears in PTX/LLVM's inlined functions.
    WorkgroupAll(ValueId),

    // ---- subgroups ----
    /// `subgroupBallot([pred])`: `vec4<u32>` of active lanes (with `pred` true).
    SubgroupBallot(Option<ValueId>),
    /// Reductions and scans over active lanes.
    SubgroupCollective {
        /// Add, Mul, Min, Max, And, Or, Xor, All, Any.
        op: SubgroupOperation,
        /// Reduce, inclusive scan or exclusive scan.
        kind: CollectiveOperation,
        /// Operand.
        arg: ValueId,
    },
    /// Reads another lane's value.
    SubgroupGather {
        /// How the source lane is chosen.
        mode: GatherMode,
        /// Operand.
        arg: ValueId,
        /// Lane / delta / mask operand, for the modes that take one.
        index: Option<ValueId>,
    },

    // ---- textures ----
    /// `textureSample*`, `textureGather*`.
    ImageSample {
        /// Texture.
        image: ValueId,
        /// Sampler.
        sampler: ValueId,
        /// Coordinates.
        coordinate: ValueId,
        /// Array layer.
        array_index: Option<ValueId>,
        /// Constant texel offset.
        offset: Option<ValueId>,
        /// LOD selection.
        level: SampleLevel,
        /// Depth reference (`textureSampleCompare`).
        depth_ref: Option<ValueId>,
        /// Gather component (`textureGather`).
        gather: Option<u8>,
    },
    /// `textureLoad`.
    ImageLoad {
        /// Texture.
        image: ValueId,
        /// Integer coordinates.
        coordinate: ValueId,
        /// Array layer.
        array_index: Option<ValueId>,
        /// Sample index (multisampled).
        sample: Option<ValueId>,
        /// Mip level.
        level: Option<ValueId>,
    },
    /// `textureStore`. No result.
    ImageStore {
        /// Texture.
        image: ValueId,
        /// Integer coordinates.
        coordinate: ValueId,
        /// Array layer.
        array_index: Option<ValueId>,
        /// Texel.
        value: ValueId,
    },
    /// `textureDimensions` and friends.
    ImageQuery(ValueId, ImageQuery),

    // ---- cooperative matrices ----
    /// `coopLoad`/`coopLoadT`: loads a matrix of the result type from `ptr` (pointer to the
    /// first element). `row_major` is true for the `T` forms; `stride` counts elements of
    /// `ptr`'s pointee, which is the matrix's scalar for naga's forms and may be another
    /// scalar or vector for Dawn's ([`Types::coop_scale`] matrix elements each).
    CoopLoad {
        /// Pointer to the first element.
        ptr: ValueId,
        /// Elements between consecutive rows (row-major) or columns (column-major).
        stride: ValueId,
        /// `coopLoadT`.
        row_major: bool,
        /// How many elements from `ptr` on lie inside the array `ptr` indexes (a `u32`),
        /// when the bounds pass could not prove the whole tile inside it: an element at
        /// offset `limit` or beyond reads zero (`docs/bounds.md`).
        limit: Option<ValueId>,
    },
    /// `coopStore`/`coopStoreT`. No result.
    CoopStore {
        /// The matrix.
        value: ValueId,
        /// Pointer to the first element.
        ptr: ValueId,
        /// Elements between consecutive rows (row-major) or columns (column-major).
        stride: ValueId,
        /// `coopStoreT`.
        row_major: bool,
        /// As [`Op::CoopLoad`]'s: an element at offset `limit` or beyond is not written.
        limit: Option<ValueId>,
    },
    /// `coopMultiplyAdd(a, b, c)` = a·b + c. The result has `c`'s type; the operands' element
    /// types may differ from it (Dawn's `i8` products with `i32` results, `f16` with `f32`).
    /// Integer products and sums wrap to the result's width; float products are exact and
    /// summed in `f32`, rounded once to the result's type.
    CoopMultiplyAdd(ValueId, ValueId, ValueId),
    /// A matrix of the result type with every element set to the scalar operand (of the
    /// matrix's shader scalar type), clamped first to an 8-bit element's range.
    CoopFill(ValueId),
    /// `subgroupMatrixScalarAdd/Subtract/Multiply(m, s)`: `op` (`Add`, `Subtract` or
    /// `Multiply`) applied to every element and `s`, which is first clamped to an 8-bit
    /// element's range; integer results wrap to the element's width.
    CoopScalar {
        /// The operation.
        op: BinaryOperator,
        /// The matrix.
        matrix: ValueId,
        /// The scalar.
        scalar: ValueId,
    },

    // ---- calls and regions ----
    /// Calls a user function; `result` is set when the callee returns a value.
    Call(FuncId, Vec<ValueId>),
    /// `if cond { then } else { else_ }`; both arms end in `Yield` or leave by another terminator.
    If {
        /// Condition (bool).
        cond: ValueId,
        /// True arm.
        then_: Block,
        /// False arm.
        else_: Block,
        /// Values the arms yield.
        results: Vec<ValueId>,
    },
    /// `switch`; `Break` inside an arm leaves the switch.
    Switch {
        /// Selector (i32 or u32).
        selector: ValueId,
        /// Arms in source order; exactly one has `default`.
        cases: Vec<SwitchCase>,
        /// Values the arms yield.
        results: Vec<ValueId>,
    },
    /// `loop { body continuing { continuing break if cond } }` carrying `init` as state.
    Loop {
        /// Initial values of the carried state (the body's params on the first iteration).
        init: Vec<ValueId>,
        /// The body; its params are the carried state.
        body: Block,
        /// The continuing block; its params are the state at the end of the body/`continue`.
        continuing: Block,
        /// `break if`: evaluated after the continuing block; a value defined in it.
        break_if: Option<ValueId>,
        /// The state when the loop is left.
        results: Vec<ValueId>,
    },
    /// A callee body inlined in place: `Return` inside leaves this region.
    Inline {
        /// The function the body came from (for diagnostics and printing).
        callee: FuncId,
        /// The body, whose params are bound to `args`.
        body: Block,
        /// Arguments bound to the body's params.
        args: Vec<ValueId>,
        /// The returned value (zero or one).
        results: Vec<ValueId>,
    },
}

/// One arm of a switch.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// Selector values; empty when only `default`.
    pub values: Vec<i64>,
    /// Whether `default` is among this arm's selectors.
    pub default: bool,
    /// The arm's code.
    pub body: Block,
}

impl PartialEq for Block {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params
            && self.term == other.term
            && self.insts.len() == other.insts.len()
            && self
                .insts
                .iter()
                .zip(&other.insts)
                .all(|(a, b)| a.result == b.result && a.op == b.op)
    }
}

/// The pipeline stage of an entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `@compute`
    Compute,
    /// `@vertex`
    Vertex,
    /// `@fragment`
    Fragment,
}

impl Stage {
    /// Lower-case name used in entry tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// An entry point.
#[derive(Clone, Debug)]
pub struct EntryPoint {
    /// Source name.
    pub name: String,
    /// Stage.
    pub stage: Stage,
    /// `@workgroup_size` (compute), overrides resolved; `[0; 3]` otherwise.
    pub workgroup_size: [u32; 3],
    /// `@early_depth_test` (fragment).
    pub early_depth_test: bool,
    /// The function implementing it.
    pub function: FuncId,
}

/// Enable-extensions the source used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Enables {
    /// `enable f16;`
    pub f16: bool,
    /// `enable subgroups;` was present (the frontend strips it before naga sees it).
    pub subgroups: bool,
    /// `enable wgpu_cooperative_matrix;`
    pub cooperative_matrix: bool,
    /// `enable chromium_experimental_subgroup_matrix;` or `enable subgroup_matrix;` (Dawn's
    /// subgroup matrices, read by the frontend's extension layer).
    pub subgroup_matrix: bool,
    /// `enable dianran_workgroup_matrix;` (dianran's workgroup matrices, read by the
    /// frontend's extension layer, `docs/workgroup-matrix.md`).
    pub workgroup_matrix: bool,
    /// The severity of a `diagnostic(SEVERITY, chromium.subgroup_matrix_uniformity);`
    /// directive (`off`, `info`, `warning` or `error`), kept so that printed Dawn WGSL says
    /// the same to Dawn (dianran does not run that analysis).
    pub subgroup_matrix_uniformity: Option<&'static str>,
}

/// A lowered module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Interned types.
    pub types: Types,
    /// Named constants (uses are already inlined).
    pub constants: Vec<Constant>,
    /// Module-scope variables.
    pub globals: Vec<Global>,
    /// Functions, entry-point functions included.
    pub functions: Vec<Function>,
    /// Entry points in source order.
    pub entry_points: Vec<EntryPoint>,
    /// Enable-extensions.
    pub enables: Enables,
    /// Whether the bounds pass has made every access safe (`passes::bounds`,
    /// docs/bounds.md): executors may then form pointers from indices out of range, which
    /// the pass's guards never let a load or store use.
    pub bounds_checked: bool,
    /// Warnings the frontend found (Dawn's uniformity rule at severity `warning` or `info`),
    /// for the tools to print; the module compiles as written.
    pub warnings: Vec<crate::Diagnostic>,
    /// dianran's workgroup matrices: the extension layer's helper functions and what each
    /// stands for (`docs/workgroup-matrix.md`). Their bodies are the portable form; a backend
    /// with a native form lowers calls to them itself.
    pub tiles: Vec<TileHelper>,
}

/// A workgroup-matrix operation (`docs/workgroup-matrix.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileOp {
    /// The filled constructor `workgroup_matrix_result<f32, 64, 64>(v)`: `(value) -> tile`.
    Fill,
    /// `workgroupMatrixLoad`: `(offset, stride, columns, rows) -> tile`.
    Load,
    /// `workgroupMatrixStore`: `(offset, tile, stride, columns, rows)`.
    Store,
    /// `workgroupMatrixMultiplyAccumulate`: `(left offset, left stride, right offset, right
    /// stride, accumulator) -> tile`.
    MultiplyAccumulate,
}

/// An array a workgroup-matrix helper reads or writes: a module-scope variable, or a member
/// (path) of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileArray {
    /// The variable.
    pub global: GlobalId,
    /// Member indices from the variable to the array (empty: the variable is the array).
    pub members: Vec<u32>,
    /// The element type (`f32` or `f16`).
    pub elem: Scalar,
}

/// What one helper function of the workgroup-matrix extension stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileHelper {
    /// The helper.
    pub function: FuncId,
    /// The operation; its arguments are the helper's parameters (see [`TileOp`]).
    pub op: TileOp,
    /// K of a product, 0 otherwise.
    pub k: u32,
    /// The arrays (left then right for a product), in argument order.
    pub arrays: Vec<TileArray>,
    /// The majorness of each array's tile.
    pub row_major: Vec<bool>,
}

impl Module {
    /// What function `f` stands for, when it is a workgroup-matrix helper.
    pub fn tile_helper(&self, f: FuncId) -> Option<&TileHelper> {
        self.tiles.iter().find(|t| t.function == f)
    }

    /// A function by handle.
    pub fn function(&self, f: FuncId) -> &Function {
        &self.functions[f.index()]
    }
    /// A global by handle.
    pub fn global(&self, g: GlobalId) -> &Global {
        &self.globals[g.index()]
    }
    /// Finds an entry point by name.
    pub fn entry_point(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// Whether any function uses a subgroup operation or takes a subgroup builtin (directly or
    /// as a member of a struct parameter).
    pub fn uses_subgroups(&self) -> bool {
        self.functions.iter().any(|f| self.function_uses_subgroups(f))
    }

    /// Whether `f` (a function of this module, or one built from them such as an entry with
    /// its calls inlined) uses a subgroup operation or takes a subgroup builtin.
    pub fn function_uses_subgroups(&self, f: &Function) -> bool {
        fn block(b: &Block) -> bool {
            b.insts.iter().any(|i| {
                matches!(
                    i.op,
                    Op::SubgroupBallot(_)
                        | Op::SubgroupCollective { .. }
                        | Op::SubgroupGather { .. }
                ) || i.op.blocks().into_iter().any(block)
            })
        }
        let builtin = |b: &Option<IoBinding>| {
            matches!(
                b,
                Some(IoBinding::BuiltIn(
                    BuiltIn::SubgroupId
                        | BuiltIn::SubgroupSize
                        | BuiltIn::SubgroupInvocationId
                        | BuiltIn::NumSubgroups
                ))
            )
        };
        block(&f.body)
            || f.params.iter().any(|p| {
                builtin(&p.binding)
                    || matches!(self.types.get(f.ty(p.value)), Type::Struct { members, .. }
                        if members.iter().any(|mem| builtin(&mem.binding)))
            })
    }

    /// Whether the module has a cooperative-matrix type.
    pub fn uses_cooperative_matrices(&self) -> bool {
        self.types.iter().any(|(_, t)| matches!(t, Type::CoopMatrix { .. }))
    }
}

impl Op {
    /// Calls `f` on every value operand (not inside nested blocks; region ops report only
    /// their own operands: `cond`, `selector`, `init`, `break_if`, `args`).
    pub fn for_each_operand(&self, mut f: impl FnMut(ValueId)) {
        use Op::*;
        match self {
            Const(_) | GlobalAddr(_) | LocalAddr(_) | Barrier(_) => {}
            Unary(_, a) | Extract(a, _) | Swizzle(a, _) | Convert(a, _) | Bitcast(a) => f(*a),
            Relational(_, a) | Derivative(_, _, a) | Load(a) | AccessIndex(a, _) => f(*a),
            ArrayLength(a) | WorkgroupUniformLoad(a) | WorkgroupAll(a) | Splat(a) => f(*a),
            Binary(_, a, b) | ExtractDyn(a, b) | Access(a, b) => {
                f(*a);
                f(*b)
            }
            Select { cond, accept, reject } => {
                f(*cond);
                f(*accept);
                f(*reject)
            }
            Compose(v) | Math(_, v) | Call(_, v) => v.iter().copied().for_each(f),
            Insert { base, value, .. } => {
                f(*base);
                f(*value)
            }
            InsertDyn { base, index, value } => {
                f(*base);
                f(*index);
                f(*value)
            }
            Store { ptr, value } | Atomic { ptr, value, .. } => {
                f(*ptr);
                f(*value)
            }
            AtomicCompareExchange { ptr, compare, value } => {
                f(*ptr);
                f(*compare);
                f(*value)
            }
            SubgroupBallot(p) => p.iter().copied().for_each(f),
            SubgroupCollective { arg, .. } => f(*arg),
            SubgroupGather { arg, index, .. } => {
                f(*arg);
                index.iter().copied().for_each(f)
            }
            ImageSample {
                image,
                sampler,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                ..
            } => {
                f(*image);
                f(*sampler);
                f(*coordinate);
                array_index.iter().chain(offset).chain(depth_ref).copied().for_each(&mut f);
                match level {
                    SampleLevel::Auto | SampleLevel::Zero => {}
                    SampleLevel::Exact(v) | SampleLevel::Bias(v) => f(*v),
                    SampleLevel::Gradient { x, y } => {
                        f(*x);
                        f(*y)
                    }
                }
            }
            ImageLoad { image, coordinate, array_index, sample, level } => {
                f(*image);
                f(*coordinate);
                array_index.iter().chain(sample).chain(level).copied().for_each(f)
            }
            ImageStore { image, coordinate, array_index, value } => {
                f(*image);
                f(*coordinate);
                array_index.iter().copied().for_each(&mut f);
                f(*value)
            }
            ImageQuery(img, q) => {
                f(*img);
                if let self::ImageQuery::Size { level: Some(l) } = q {
                    f(*l)
                }
            }
            CoopLoad { ptr, stride, limit, .. } => {
                f(*ptr);
                f(*stride);
                if let Some(l) = limit {
                    f(*l)
                }
            }
            CoopStore { value, ptr, stride, limit, .. } => {
                f(*value);
                f(*ptr);
                f(*stride);
                if let Some(l) = limit {
                    f(*l)
                }
            }
            CoopMultiplyAdd(a, b, c) => {
                f(*a);
                f(*b);
                f(*c)
            }
            CoopFill(x) => f(*x),
            CoopScalar { matrix, scalar, .. } => {
                f(*matrix);
                f(*scalar)
            }
            If { cond, .. } => f(*cond),
            Switch { selector, .. } => f(*selector),
            Loop { init, .. } => init.iter().copied().for_each(f),
            Inline { args, .. } => args.iter().copied().for_each(f),
        }
    }

    /// Rewrites every value operand in place (same coverage as [`Op::for_each_operand`];
    /// `Loop::break_if` is not an operand of the loop instruction itself, it belongs to the
    /// continuing block, and is rewritten too).
    pub fn map_operands(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        use Op::*;
        let mut m = |v: &mut ValueId| *v = f(*v);
        match self {
            Const(_) | GlobalAddr(_) | LocalAddr(_) | Barrier(_) => {}
            Unary(_, a) | Extract(a, _) | Swizzle(a, _) | Convert(a, _) | Bitcast(a) => m(a),
            Relational(_, a) | Derivative(_, _, a) | Load(a) | AccessIndex(a, _) => m(a),
            ArrayLength(a) | WorkgroupUniformLoad(a) | WorkgroupAll(a) | Splat(a) => m(a),
            Binary(_, a, b) | ExtractDyn(a, b) | Access(a, b) => {
                m(a);
                m(b)
            }
            Select { cond, accept, reject } => {
                m(cond);
                m(accept);
                m(reject)
            }
            Compose(v) | Math(_, v) | Call(_, v) => v.iter_mut().for_each(m),
            Insert { base, value, .. } => {
                m(base);
                m(value)
            }
            InsertDyn { base, index, value } => {
                m(base);
                m(index);
                m(value)
            }
            Store { ptr, value } | Atomic { ptr, value, .. } => {
                m(ptr);
                m(value)
            }
            AtomicCompareExchange { ptr, compare, value } => {
                m(ptr);
                m(compare);
                m(value)
            }
            SubgroupBallot(p) => p.iter_mut().for_each(m),
            SubgroupCollective { arg, .. } => m(arg),
            SubgroupGather { arg, index, .. } => {
                m(arg);
                index.iter_mut().for_each(m)
            }
            ImageSample {
                image,
                sampler,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                ..
            } => {
                m(image);
                m(sampler);
                m(coordinate);
                array_index.iter_mut().for_each(&mut m);
                offset.iter_mut().for_each(&mut m);
                depth_ref.iter_mut().for_each(&mut m);
                match level {
                    SampleLevel::Auto | SampleLevel::Zero => {}
                    SampleLevel::Exact(v) | SampleLevel::Bias(v) => m(v),
                    SampleLevel::Gradient { x, y } => {
                        m(x);
                        m(y)
                    }
                }
            }
            ImageLoad { image, coordinate, array_index, sample, level } => {
                m(image);
                m(coordinate);
                array_index.iter_mut().for_each(&mut m);
                sample.iter_mut().for_each(&mut m);
                level.iter_mut().for_each(&mut m)
            }
            ImageStore { image, coordinate, array_index, value } => {
                m(image);
                m(coordinate);
                array_index.iter_mut().for_each(&mut m);
                m(value)
            }
            ImageQuery(img, q) => {
                m(img);
                if let self::ImageQuery::Size { level: Some(l) } = q {
                    m(l)
                }
            }
            CoopLoad { ptr, stride, limit, .. } => {
                m(ptr);
                m(stride);
                if let Some(l) = limit {
                    m(l)
                }
            }
            CoopStore { value, ptr, stride, limit, .. } => {
                m(value);
                m(ptr);
                m(stride);
                if let Some(l) = limit {
                    m(l)
                }
            }
            CoopMultiplyAdd(a, b, c) => {
                m(a);
                m(b);
                m(c)
            }
            CoopFill(x) => m(x),
            CoopScalar { matrix, scalar, .. } => {
                m(matrix);
                m(scalar)
            }
            If { cond, .. } => m(cond),
            Switch { selector, .. } => m(selector),
            Loop { init, break_if, .. } => {
                init.iter_mut().for_each(&mut m);
                break_if.iter_mut().for_each(m)
            }
            Inline { args, .. } => args.iter_mut().for_each(m),
        }
    }

    /// The nested blocks of a region instruction, in execution-text order.
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            Op::If { then_, else_, .. } => vec![then_, else_],
            Op::Switch { cases, .. } => cases.iter().map(|c| &c.body).collect(),
            Op::Loop { body, continuing, .. } => vec![body, continuing],
            Op::Inline { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// Mutable access to the nested blocks of a region instruction.
    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            Op::If { then_, else_, .. } => vec![then_, else_],
            Op::Switch { cases, .. } => cases.iter_mut().map(|c| &mut c.body).collect(),
            Op::Loop { body, continuing, .. } => vec![body, continuing],
            Op::Inline { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// Values a region instruction defines when control leaves it normally.
    pub fn region_results(&self) -> &[ValueId] {
        match self {
            Op::If { results, .. }
            | Op::Switch { results, .. }
            | Op::Loop { results, .. }
            | Op::Inline { results, .. } => results,
            _ => &[],
        }
    }

    /// Whether the operation has an effect besides its result (memory writes, barriers,
    /// subgroup and cooperative operations, calls, regions, derivatives). Such instructions are
    /// never removed, moved or merged by the passes, even when their result is unused.
    pub fn has_side_effects(&self) -> bool {
        use Op::*;
        matches!(
            self,
            Store { .. }
                | Atomic { .. }
                | AtomicCompareExchange { .. }
                | Barrier(_)
                | WorkgroupUniformLoad(_)
                | WorkgroupAll(_)
                | SubgroupBallot(_)
                | SubgroupCollective { .. }
                | SubgroupGather { .. }
                | ImageStore { .. }
                | CoopLoad { .. }
                | CoopStore { .. }
                | CoopMultiplyAdd(..)
                | CoopFill(..)
                | CoopScalar { .. }
                | Call(..)
                | If { .. }
                | Switch { .. }
                | Loop { .. }
                | Inline { .. }
                | Derivative(..)
                | ImageSample { .. }
        )
    }

    /// Whether the operation reads memory (so it may not be merged across stores or moved).
    /// `arrayLength` does not: a buffer's size is fixed for the whole dispatch.
    pub fn reads_memory(&self) -> bool {
        matches!(self, Op::Load(_) | Op::ImageLoad { .. } | Op::ImageQuery(..))
    }
}

impl Terminator {
    /// The values the terminator passes on.
    pub fn args(&self) -> &[ValueId] {
        match self {
            Terminator::Yield(v) | Terminator::Break(v) | Terminator::Continue(v) => v,
            Terminator::Return(Some(v)) => std::slice::from_ref(v),
            _ => &[],
        }
    }
    /// Mutable access to the values the terminator passes on.
    pub fn args_mut(&mut self) -> &mut [ValueId] {
        match self {
            Terminator::Yield(v) | Terminator::Break(v) | Terminator::Continue(v) => v,
            Terminator::Return(Some(v)) => std::slice::from_mut(v),
            _ => &mut [],
        }
    }
}
