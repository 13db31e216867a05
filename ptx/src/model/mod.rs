//! The PTX model: modules, entries, declarations, statements and instructions.

pub mod build;
pub mod check;
pub mod inst;
pub mod types;

pub use inst::{
    AddrBase, Address, AtomOp, BoolOp, CacheOp, CmpOp, Flag, Flags, Guard, Instruction, Layout,
    MemSem, Modifier, Opcode, Operand, PrmtMode, Rounding, Scope, ShflMode, TestpOp, TexComp,
    TexGeom, TexQuery, VoteMode,
};
pub use types::{Dim, Reg, RegKind, RegPool, SpecialReg, StateSpace, Type};

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `.target sm_NN` (`sm_90a` when `arch_specific`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The SM number: 80 for `sm_80`.
    pub sm: u32,
    /// The `a` suffix (architecture-specific features).
    pub arch_specific: bool,
}

impl Target {
    /// The bit of an `sm` number (`codegen::Options::sm`, the CLI's `--sm`) that asks for
    /// the architecture-specific target: `SM_90A` is `90 | ARCH_SPECIFIC`.
    pub const ARCH_SPECIFIC: u32 = 1 << 16;

    /// The target an `sm` number names (`80`, `90`, or [`SM_90A`]).
    pub fn from_sm(sm: u32) -> Target {
        Target { sm: sm & !Target::ARCH_SPECIFIC, arch_specific: sm & Target::ARCH_SPECIFIC != 0 }
    }

    /// The `sm` number of this target (the inverse of [`Target::from_sm`]).
    pub fn to_sm(self) -> u32 {
        self.sm | if self.arch_specific { Target::ARCH_SPECIFIC } else { 0 }
    }

    /// The name ptxas and `.target` use: `sm_80`, `sm_90a`.
    pub fn name(self) -> String {
        format!("sm_{}{}", self.sm, if self.arch_specific { "a" } else { "" })
    }
}

/// `sm_90a`: Hopper with its architecture-specific instructions (`wgmma`), as an `sm` number.
pub const SM_90A: u32 = 90 | Target::ARCH_SPECIFIC;

/// The name of an `sm` number: `sm_80`, `sm_90`, `sm_90a`.
pub fn sm_name(sm: u32) -> String {
    Target::from_sm(sm).name()
}

/// A memory variable: `.shared .align 16 .b8 ys_tile[1024];`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VarDecl {
    /// `Shared`, `Global`, `Local` or `Const`.
    pub space: StateSpace,
    /// `.align A`, when given.
    pub align: Option<u32>,
    /// Element type.
    pub ty: Type,
    /// The PTX name (a valid identifier).
    pub name: String,
    /// `Some(n)`: an array `[n]`; `None`: a scalar.
    pub len: Option<u64>,
    /// `= {v0, v1, ...}` (or `= v` for a scalar): the first elements' bit patterns
    /// (integers as written, two's complement for negative ones; floats as `0f`/`0d`
    /// bits); empty for no initializer. Only `.global` and `.const` variables have one.
    pub init: Vec<u64>,
}

impl VarDecl {
    /// `.shared .align A .b8 NAME[bytes]` (docs/abi.md workgroup variables).
    pub fn shared_bytes(name: impl Into<String>, align: u32, bytes: u64) -> VarDecl {
        VarDecl {
            space: StateSpace::Shared,
            align: Some(align),
            ty: Type::B8,
            name: name.into(),
            len: Some(bytes),
            init: Vec::new(),
        }
    }

    /// `.local .align A .b8 NAME[bytes]` (arrays indexed at run time).
    pub fn local_bytes(name: impl Into<String>, align: u32, bytes: u64) -> VarDecl {
        VarDecl { space: StateSpace::Local, ..VarDecl::shared_bytes(name, align, bytes) }
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()).saturating_mul(self.len.unwrap_or(1))
    }

    /// The initial contents, little-endian, `size_bytes` long (zeros past the initializer).
    pub fn init_bytes(&self) -> Vec<u8> {
        let size = usize::try_from(self.size_bytes()).unwrap_or(0);
        let w = self.ty.bytes().clamp(1, 8) as usize;
        let mut out = vec![0u8; size];
        for (i, v) in self.init.iter().enumerate() {
            if let Some(dst) = out.get_mut(i * w..i * w + w) {
                dst.copy_from_slice(&v.to_le_bytes()[..w]);
            }
        }
        out
    }
}

/// An entry or function parameter: `.param .u64 p_g0_b0`, or a byte array
/// `.param .align 16 .b8 f_param_1[8]` (aggregates passed by value).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// Parameter type (`.u64` for device pointers; the element type of an array).
    pub ty: Type,
    /// The PTX name.
    pub name: String,
    /// `.align A`, when given.
    pub align: Option<u32>,
    /// `Some(n)`: an array `[n]`; `None`: a scalar.
    pub len: Option<u64>,
}

impl Param {
    /// `.param .u64 NAME`: a device pointer.
    pub fn pointer(name: impl Into<String>) -> Param {
        Param::scalar(Type::U64, name)
    }

    /// `.param .TY NAME`.
    pub fn scalar(ty: Type, name: impl Into<String>) -> Param {
        Param { ty, name: name.into(), align: None, len: None }
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()).saturating_mul(self.len.unwrap_or(1))
    }

    /// Whether the emulator and launchers pass it as a device pointer: a 64-bit integer
    /// scalar (`.u64`, `.b64`, `.s64`).
    pub fn is_pointer(&self) -> bool {
        self.len.is_none() && matches!(self.ty, Type::U64 | Type::B64 | Type::S64)
    }
}

/// One line of an entry body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Statement {
    /// `NAME:` (a branch target).
    Label(String),
    /// An instruction.
    Inst(Instruction),
    /// `// text` on its own line (ASCII, no line breaks).
    Comment(String),
    /// `{`: opens a nested scope (LLVM's call sequences and inline assembly). Registers
    /// declared inside are renumbered into the body's files by the parser; `.param`
    /// declarations ([`Statement::Decl`]) are visible up to the matching
    /// [`Statement::BlockEnd`].
    BlockStart,
    /// `}`: closes the scope of the last [`Statement::BlockStart`].
    BlockEnd,
    /// A variable declared among the statements: `.param .b32 param0;` (call arguments
    /// and results, inside a block).
    Decl(VarDecl),
    /// `.pragma "text";` (`"nounroll"`); the text without quotes.
    Pragma(String),
}

impl From<Instruction> for Statement {
    fn from(i: Instruction) -> Statement {
        Statement::Inst(i)
    }
}

/// A `.visible .entry` kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The PTX name (see [`crate::names::entry_name`]).
    pub name: String,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// `.reqntid X, Y, Z`: the exact CTA size.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid X, Y, Z` (read from NVRTC output; the project writes `reqntid`).
    pub maxntid: Option<[u32; 3]>,
    /// Variables declared inside the body (`.shared`, `.local`).
    pub vars: Vec<VarDecl>,
    /// Labels, instructions and comments in order. Registers are declared by the printer.
    pub body: Vec<Statement>,
}

/// How a `.func` is linked: the word before `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    /// No word: visible in this module only.
    #[default]
    Internal,
    /// `.visible`.
    Visible,
    /// `.weak`.
    Weak,
    /// `.extern`: defined elsewhere (a declaration only).
    Extern,
}

impl Linkage {
    /// The directive with its dot (`""` for internal).
    pub fn directive(self) -> &'static str {
        match self {
            Linkage::Internal => "",
            Linkage::Visible => ".visible",
            Linkage::Weak => ".weak",
            Linkage::Extern => ".extern",
        }
    }
}

/// A device function: `.func (.param .b32 func_retval0) f(.param .b32 f_param_0) { .. }`,
/// or its declaration (prototype) when [`Func::defined`] is false. Functions are called
/// with `call` ([`crate::Opcode::Call`]): arguments and results travel in `.param`
/// variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Func {
    /// `.visible`, `.weak`, `.extern` or none.
    pub linkage: Linkage,
    /// Return parameters (`func_retval0`), in order; empty for none.
    pub rets: Vec<Param>,
    /// The name, parameters, variables and body; `reqntid` and `maxntid` are unused.
    pub def: Entry,
    /// `false`: a prototype ending in `;` (the body is empty).
    pub defined: bool,
}

impl Func {
    /// An empty internal function definition named `name`.
    pub fn new(name: impl Into<String>) -> Func {
        Func { linkage: Linkage::Internal, rets: Vec::new(), def: Entry::new(name), defined: true }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }
}

impl Entry {
    /// An empty entry with no parameters and no launch bounds.
    pub fn new(name: impl Into<String>) -> Entry {
        Entry {
            name: name.into(),
            params: Vec::new(),
            reqntid: None,
            maxntid: None,
            vars: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Appends an instruction.
    pub fn push(&mut self, inst: Instruction) {
        self.body.push(Statement::Inst(inst));
    }

    /// Appends a label.
    pub fn label(&mut self, name: impl Into<String>) {
        self.body.push(Statement::Label(name.into()));
    }

    /// Appends a comment line.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.body.push(Statement::Comment(text.into()));
    }

    /// How many registers of each kind the printer declares (`.reg .b32 %r<N>`):
    /// N = highest number used + 1, 0 when the kind is unused. Indexed by [`RegKind::index`].
    pub fn reg_counts(&self) -> [u32; 4] {
        let mut n = [0u32; 4];
        for s in &self.body {
            if let Statement::Inst(i) = s {
                i.for_each_reg(|r| {
                    let slot = &mut n[r.kind.index()];
                    *slot = (*slot).max(r.num.saturating_add(1));
                });
            }
        }
        n
    }

    /// Renames symbol `from` to `to` in the parameters and in every operand of the body
    /// (`ld.param.u64 %rd1, [k_param_0]`): how a back end gives LLVM's parameter names
    /// (`k_param_0`) its own. Returns how many places changed. `.param` declarations inside
    /// blocks are not renamed (they shadow the name within their block).
    pub fn rename_symbol(&mut self, from: &str, to: &str) -> usize {
        let mut n = 0;
        for p in self.params.iter_mut().filter(|p| p.name == from) {
            p.name = to.to_string();
            n += 1;
        }
        fn rename(o: &mut Operand, from: &str, to: &str, n: &mut usize) {
            match o {
                Operand::Symbol(s)
                | Operand::Address(Address { base: AddrBase::Symbol(s), .. })
                    if s == from =>
                {
                    *s = to.to_string();
                    *n += 1;
                }
                Operand::Vector(v) | Operand::List(v) => {
                    v.iter_mut().for_each(|o| rename(o, from, to, n))
                }
                _ => {}
            }
        }
        let mut depth = 0usize;
        let mut shadowed_at = None;
        for s in &mut self.body {
            match s {
                Statement::BlockStart => depth += 1,
                Statement::BlockEnd => {
                    if shadowed_at == Some(depth) {
                        shadowed_at = None;
                    }
                    depth = depth.saturating_sub(1);
                }
                Statement::Decl(v) if v.name == from && shadowed_at.is_none() => {
                    shadowed_at = Some(depth)
                }
                Statement::Inst(i) if shadowed_at.is_none() => {
                    i.operands.iter_mut().for_each(|o| rename(o, from, to, &mut n))
                }
                _ => {}
            }
        }
        n
    }

    /// Each label and the index in [`Entry::body`] of the statement it names (the first
    /// definition wins; [`check::check_entry`] rejects duplicates).
    pub fn labels(&self) -> std::collections::HashMap<&str, usize> {
        let mut map = std::collections::HashMap::new();
        for (i, s) in self.body.iter().enumerate() {
            if let Statement::Label(l) = s {
                map.entry(l.as_str()).or_insert(i);
            }
        }
        map
    }

    /// The instructions of the body, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.body.iter().filter_map(|s| match s {
            Statement::Inst(i) => Some(i),
            _ => None,
        })
    }
}

/// A PTX module (one `.ptx` file).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Module {
    /// Comment lines printed before `.version`.
    pub comments: Vec<String>,
    /// `.version` (8.0 by default).
    pub version: Version,
    /// `.target` (sm_80 by default).
    pub target: Target,
    /// `.address_size` (64).
    pub address_size: u32,
    /// Module-scope variables (`.shared`, `.global`, `.const`).
    pub globals: Vec<VarDecl>,
    /// Device functions and their declarations, in order; printed after the globals and
    /// before the kernels (a function is declared before any call to it).
    pub funcs: Vec<Func>,
    /// Kernels in order.
    pub entries: Vec<Entry>,
}

impl Default for Module {
    fn default() -> Self {
        Module::new(80)
    }
}

impl Module {
    /// An empty module with docs/ptx.md's header: `.version 8.0`, `.target sm_<sm>`
    /// (`sm_90a` for [`SM_90A`]), `.address_size 64`.
    pub fn new(sm: u32) -> Module {
        Module {
            comments: Vec::new(),
            version: Version { major: 8, minor: 0 },
            target: Target::from_sm(sm),
            address_size: 64,
            globals: Vec::new(),
            funcs: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The function definition named `name` (declarations without a body are skipped).
    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.defined && f.def.name == name)
    }

    /// Prints the module (see [`crate::print::print_module`]).
    pub fn to_ptx(&self) -> Result<String, crate::PtxError> {
        crate::print::print_module(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reg_counts_take_the_highest_number() {
        let mut e = Entry::new("k");
        e.push(build::mov(Type::U32, Reg::b32(4), Reg::b32(1)));
        e.push(build::bra(".x").guarded(Reg::pred(0), false));
        e.push(build::ld(
            StateSpace::Global,
            Type::F32,
            Reg::b32(2),
            Operand::addr(Reg::b64(9), 4),
        ));
        assert_eq!(e.reg_counts(), [1, 0, 5, 10]);
        e.label("L");
        assert_eq!(e.labels().get("L"), Some(&3));
    }

    #[test]
    fn renames_parameters_and_their_uses() {
        let mut e = Entry::new("k");
        e.params.push(Param::pointer("k_param_0"));
        e.push(build::ld_param(Type::U64, Reg::b64(1), "k_param_0"));
        e.body.push(Statement::BlockStart);
        e.body.push(Statement::Decl(VarDecl {
            space: StateSpace::Param,
            ..VarDecl::shared_bytes("k_param_0", 8, 8)
        }));
        e.push(build::st(
            StateSpace::Param,
            Type::U64,
            Operand::sym_addr("k_param_0", 0),
            Reg::b64(1),
        ));
        e.body.push(Statement::BlockEnd);
        e.push(build::mov(Type::U64, Reg::b64(2), Operand::sym("k_param_0")));
        assert_eq!(e.rename_symbol("k_param_0", "p_g0_b0"), 3);
        assert_eq!(e.params[0].name, "p_g0_b0");
        let text: Vec<String> = e.instructions().map(|i| i.to_string()).collect();
        assert_eq!(
            text,
            [
                "ld.param.u64 \t%rd1, [p_g0_b0];",
                "st.param.u64 \t[k_param_0], %rd1;",
                "mov.u64 \t%rd2, p_g0_b0;"
            ]
        );
    }

    #[test]
    fn var_sizes() {
        assert_eq!(VarDecl::shared_bytes("ys_a", 16, 64).size_bytes(), 64);
        let v = VarDecl {
            space: StateSpace::Global,
            align: None,
            ty: Type::F32,
            name: "g".into(),
            len: None,
            init: Vec::new(),
        };
        assert_eq!(v.size_bytes(), 4);
    }
}
