//! Instructions: an opcode, a list of typed modifiers (printed in order, each after a dot),
//! an optional guard predicate and operands.

use super::types::{Reg, SpecialReg, StateSpace, Type};
use std::fmt;

/// Declares a plain enum whose variants print as fixed strings, with a name table.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident => $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var),* }
        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// The PTX spelling (without a dot).
            pub fn name(self) -> &'static str {
                match self { $($name::$var => $s),* }
            }
            /// Parses the PTX spelling.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$var),)* _ => None }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// The instruction opcodes the model covers.
    #[allow(missing_docs)]
    Opcode {
        Mov => "mov", Add => "add", Sub => "sub", Mul => "mul", Mad => "mad", Fma => "fma",
        Div => "div", Rem => "rem", Neg => "neg", Abs => "abs", Min => "min", Max => "max",
        Not => "not", Cnot => "cnot", And => "and", Or => "or", Xor => "xor", Shl => "shl",
        Shr => "shr", Selp => "selp", Setp => "setp", Set => "set", Cvt => "cvt", Cvta => "cvta",
        Ld => "ld", St => "st", Atom => "atom", Red => "red", Bar => "bar", Barrier => "barrier",
        Membar => "membar", Fence => "fence", Bra => "bra", Ret => "ret", Exit => "exit",
        Trap => "trap", Shfl => "shfl", Vote => "vote", Redux => "redux",
        Activemask => "activemask", Popc => "popc", Clz => "clz", Bfind => "bfind", Brev => "brev", Bfe => "bfe",
        Bfi => "bfi", Prmt => "prmt", Lop3 => "lop3", Sqrt => "sqrt", Rsqrt => "rsqrt",
        Ex2 => "ex2", Lg2 => "lg2", Sin => "sin", Cos => "cos", Tanh => "tanh", Rcp => "rcp",
        Copysign => "copysign", Dp4a => "dp4a", Testp => "testp", Mma => "mma", Ldmatrix => "ldmatrix",
        Call => "call", Shf => "shf", Addc => "addc", Subc => "subc", Madc => "madc",
        Tex => "tex", Tld4 => "tld4", Txq => "txq", Suld => "suld", Sust => "sust", Suq => "suq",
        Wgmma => "wgmma", Cp => "cp",
    }
}

named_enum! {
    /// Rounding modifiers (float rounding and round-to-integer forms).
    #[allow(missing_docs)]
    Rounding { Rn => "rn", Rz => "rz", Rm => "rm", Rp => "rp", Rna => "rna",
               Rni => "rni", Rzi => "rzi", Rmi => "rmi", Rpi => "rpi" }
}

named_enum! {
    /// `setp`/`set` comparisons; the `u` forms are unordered (true when either is NaN).
    #[allow(missing_docs)]
    CmpOp { Eq => "eq", Ne => "ne", Lt => "lt", Le => "le", Gt => "gt", Ge => "ge",
            Lo => "lo", Ls => "ls", Hi => "hi", Hs => "hs",
            Equ => "equ", Neu => "neu", Ltu => "ltu", Leu => "leu", Gtu => "gtu", Geu => "geu",
            Num => "num", Nan => "nan" }
}

named_enum! {
    /// How `setp`/`set` combine the comparison with a third predicate operand.
    #[allow(missing_docs)]
    BoolOp { And => "and", Or => "or", Xor => "xor" }
}

named_enum! {
    /// `atom` / `red` / `redux.sync` operations.
    #[allow(missing_docs)]
    AtomOp { Add => "add", Min => "min", Max => "max", And => "and", Or => "or", Xor => "xor",
             Exch => "exch", Cas => "cas", Inc => "inc", Dec => "dec" }
}

named_enum! {
    /// Memory scopes (`membar.gl` spells the GPU scope `gl`).
    #[allow(missing_docs)]
    Scope { Cta => "cta", Cluster => "cluster", Gpu => "gpu", Sys => "sys", Gl => "gl" }
}

named_enum! {
    /// Memory-ordering semantics of `ld`/`st`/`atom`/`fence`.
    #[allow(missing_docs)]
    MemSem { Relaxed => "relaxed", Acquire => "acquire", Release => "release",
             AcqRel => "acq_rel", Sc => "sc", Weak => "weak" }
}

named_enum! {
    /// Cache operators of `ld`/`st`.
    #[allow(missing_docs)]
    CacheOp { Ca => "ca", Cg => "cg", Cs => "cs", Lu => "lu", Cv => "cv", Wb => "wb", Wt => "wt" }
}

named_enum! {
    /// `shfl.sync` modes.
    #[allow(missing_docs)]
    ShflMode { Up => "up", Down => "down", Bfly => "bfly", Idx => "idx" }
}

named_enum! {
    /// `vote.sync` modes.
    #[allow(missing_docs)]
    VoteMode { All => "all", Any => "any", Uni => "uni", Ballot => "ballot" }
}

named_enum! {
    /// `testp` properties.
    #[allow(missing_docs)]
    TestpOp { Finite => "finite", Infinite => "infinite", Number => "number",
              NotANumber => "notanumber", Normal => "normal", Subnormal => "subnormal" }
}

named_enum! {
    /// `prmt` modes other than the default.
    #[allow(missing_docs)]
    PrmtMode { F4e => "f4e", B4e => "b4e", Rc8 => "rc8", Ecl => "ecl", Ecr => "ecr", Rc16 => "rc16" }
}

named_enum! {
    /// Matrix layouts of `mma`.
    #[allow(missing_docs)]
    Layout { Row => "row", Col => "col" }
}

named_enum! {
    /// Texture and surface geometries (`tex.2d`, `suld.b.a2d`): `a` marks layered (array)
    /// forms, whose coordinate vectors start with the layer index.
    #[allow(missing_docs)]
    TexGeom { D1 => "1d", D2 => "2d", D3 => "3d", A1d => "a1d", A2d => "a2d", Cube => "cube",
              Acube => "acube" }
}

named_enum! {
    /// The component `tld4` gathers (`tld4.r`).
    #[allow(missing_docs)]
    TexComp { R => "r", G => "g", B => "b", A => "a" }
}

named_enum! {
    /// `txq`/`suq` queries.
    #[allow(missing_docs)]
    TexQuery { Width => "width", Height => "height", Depth => "depth",
               ArraySize => "array_size", NumMipmapLevels => "num_mipmap_levels",
               NumSamples => "num_samples" }
}

named_enum! {
    /// Modifiers without a payload.
    Flag {
        /// `.ftz`: flush subnormals to zero.
        Ftz => "ftz",
        /// `.noftz` (`atom.add.noftz.f16`).
        NoFtz => "noftz",
        /// `.sat`: clamp (floats to [0, 1], integers to the type's range).
        Sat => "sat",
        /// `.satfinite` (mma).
        SatFinite => "satfinite",
        /// `.approx`.
        Approx => "approx",
        /// `.full` (`div.full.f32`).
        Full => "full",
        /// `.lo`: low half of the product.
        Lo => "lo",
        /// `.hi`: high half of the product.
        Hi => "hi",
        /// `.wide`: double-width product.
        Wide => "wide",
        /// `.uni`: non-divergent branch.
        Uni => "uni",
        /// `.sync`.
        Sync => "sync",
        /// `.aligned`.
        Aligned => "aligned",
        /// `.trans` (ldmatrix).
        Trans => "trans",
        /// `.to` (`cvta.to.global`).
        To => "to",
        /// `.nc`: non-coherent (read-only) global load.
        Nc => "nc",
        /// `.volatile`.
        Volatile => "volatile",
        /// `.NaN` (min/max propagate NaN).
        NaN => "NaN",
        /// `.xorsign` (min/max).
        XorSign => "xorsign",
        /// `.abs` (min/max with absolute value).
        Abs => "abs",
        /// `.warp` (`bar.warp.sync mask`).
        Warp => "warp",
        /// `.cc`: write the carry flag (`add.cc`, `mad.lo.cc`).
        Cc => "cc",
        /// `.l` (`shf.l`: funnel shift left).
        L => "l",
        /// `.r` (`shf.r`: funnel shift right).
        R => "r",
        /// `.wrap` (`shf`: shift amount modulo 32).
        Wrap => "wrap",
        /// `.clamp` (`shf`: shift amount clamped to 32; `suld`/`sust`: out-of-range
        /// coordinates clamped to the edge).
        Clamp => "clamp",
        /// `.level` (`tex.level`: explicit level of detail; `txq.level`: query of one level).
        Level => "level",
        /// `.grad` (`tex.grad`: level of detail from explicit gradients).
        Grad => "grad",
        /// `.b` (`suld.b`/`sust.b`: unformatted surface access, x coordinate in bytes).
        B => "b",
        /// `.zero` (`suld`/`sust`: out-of-range loads return zero, stores are dropped).
        Zero => "zero",
        /// `.red`: a barrier that also reduces a predicate over the CTA (`bar.red.and.pred`).
        Red => "red",
        /// `.mma_async` (`wgmma.mma_async`: a warpgroup product from shared-memory
        /// descriptors, completed by `wgmma.wait_group`).
        MmaAsync => "mma_async",
        /// `.fence` (`wgmma.fence`: orders register accesses before `wgmma.mma_async`).
        WgFence => "fence",
        /// `.commit_group` (`wgmma.commit_group`, `cp.async.commit_group`).
        CommitGroup => "commit_group",
        /// `.wait_group` (`wgmma.wait_group N`, `cp.async.wait_group N`).
        WaitGroup => "wait_group",
        /// `.proxy` (`fence.proxy.async`).
        Proxy => "proxy",
        /// `.async` (`fence.proxy.async`: generic-proxy writes visible to the async proxy;
        /// `cp.async`: a copy from global to shared memory completed by a later wait).
        Async => "async",
        /// `.shared::cta` (`fence.proxy.async.shared::cta`: the fence covers the CTA's shared
        /// memory only, `MEMBAR.ALL.CTA` where the unqualified fence is `MEMBAR.ALL.GPU`).
        SharedCta => "shared::cta",
        /// `.wait_all` (`cp.async.wait_all`: commits and completes every copy in flight).
        WaitAll => "wait_all",
    }
}

impl Opcode {
    /// Whether the first operand is written (a destination) rather than read. Stores,
    /// reductions, barriers, fences and control flow write no register; of `wgmma`, only
    /// `.mma_async` does ([`Instruction::writes_first_operand`]).
    pub fn writes_first_operand(self) -> bool {
        !matches!(
            self,
            Opcode::St
                | Opcode::Red
                | Opcode::Bar
                | Opcode::Barrier
                | Opcode::Membar
                | Opcode::Fence
                | Opcode::Bra
                | Opcode::Ret
                | Opcode::Exit
                | Opcode::Trap
                | Opcode::Call
                | Opcode::Sust
                | Opcode::Wgmma
                | Opcode::Cp
        )
    }
}

bitflags::bitflags! {
    /// The payload-free modifiers of an instruction as a set ([`Instruction::flags`]): what
    /// an executor asks about (`.ftz`, `.sat`, `.approx`, ...) in one test instead of a scan
    /// of the modifier list. One bit per [`Flag`], in [`Flag::ALL`] order.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Flags: u64 {
        /// `.ftz`.
        const FTZ = 1 << 0;
        /// `.noftz`.
        const NOFTZ = 1 << 1;
        /// `.sat`.
        const SAT = 1 << 2;
        /// `.satfinite`.
        const SATFINITE = 1 << 3;
        /// `.approx`.
        const APPROX = 1 << 4;
        /// `.full`.
        const FULL = 1 << 5;
        /// `.lo`.
        const LO = 1 << 6;
        /// `.hi`.
        const HI = 1 << 7;
        /// `.wide`.
        const WIDE = 1 << 8;
        /// `.uni`.
        const UNI = 1 << 9;
        /// `.sync`.
        const SYNC = 1 << 10;
        /// `.aligned`.
        const ALIGNED = 1 << 11;
        /// `.trans`.
        const TRANS = 1 << 12;
        /// `.to`.
        const TO = 1 << 13;
        /// `.nc`.
        const NC = 1 << 14;
        /// `.volatile`.
        const VOLATILE = 1 << 15;
        /// `.NaN`.
        const NAN = 1 << 16;
        /// `.xorsign`.
        const XORSIGN = 1 << 17;
        /// `.abs`.
        const ABS = 1 << 18;
        /// `.warp`.
        const WARP = 1 << 19;
        /// `.cc`.
        const CC = 1 << 20;
        /// `.l`.
        const L = 1 << 21;
        /// `.r`.
        const R = 1 << 22;
        /// `.wrap`.
        const WRAP = 1 << 23;
        /// `.clamp`.
        const CLAMP = 1 << 24;
        /// `.level`.
        const LEVEL = 1 << 25;
        /// `.grad`.
        const GRAD = 1 << 26;
        /// `.b`.
        const B = 1 << 27;
        /// `.zero`.
        const ZERO = 1 << 28;
        /// `.red`.
        const RED = 1 << 29;
        /// `.mma_async`.
        const MMA_ASYNC = 1 << 30;
        /// `.fence` (`wgmma.fence`).
        const WG_FENCE = 1 << 31;
        /// `.commit_group`.
        const COMMIT_GROUP = 1 << 32;
        /// `.wait_group`.
        const WAIT_GROUP = 1 << 33;
        /// `.proxy`.
        const PROXY = 1 << 34;
        /// `.async`.
        const ASYNC = 1 << 35;
        /// `.shared::cta` (`fence.proxy.async`).
        const SHARED_CTA = 1 << 36;
        /// `.wait_all` (`cp.async.wait_all`).
        const WAIT_ALL = 1 << 37;
    }
}

impl Flag {
    /// This flag's bit in [`Flags`].
    pub fn bit(self) -> Flags {
        let pos = Flag::ALL.iter().position(|&f| f == self).unwrap_or(0);
        Flags::from_bits_truncate(1u64 << pos)
    }
}

/// A typed modifier; printed as `.` followed by its spelling, in the order stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// A type (`.u32`); `cvt` and `set` carry two (destination first).
    Type(Type),
    /// A state space (`.global`); never `Reg` or `Generic`.
    Space(StateSpace),
    /// A rounding mode.
    Round(Rounding),
    /// A comparison (`setp`, `set`).
    Cmp(CmpOp),
    /// A boolean combine (`setp.lt.and`).
    Bool(BoolOp),
    /// An atomic / reduction operation.
    Atom(AtomOp),
    /// A memory scope.
    Scope(Scope),
    /// Memory-ordering semantics.
    Sem(MemSem),
    /// A cache operator.
    Cache(CacheOp),
    /// A shuffle mode.
    Shfl(ShflMode),
    /// A vote mode.
    Vote(VoteMode),
    /// A `testp` property.
    Testp(TestpOp),
    /// A `prmt` mode.
    Prmt(PrmtMode),
    /// A matrix layout.
    Layout(Layout),
    /// `.v2`, `.v4` (vector width of `ld`/`st`).
    Vec(u8),
    /// `.x1`, `.x2`, `.x4` (ldmatrix count).
    Num(u8),
    /// A matrix shape: `.m16n8k16`; `k == 0` prints `.m8n8`.
    Shape {
        /// Rows.
        m: u8,
        /// Columns.
        n: u8,
        /// Depth (0: none).
        k: u8,
    },
    /// A texture or surface geometry (`.2d`, `.a2d`, `.cube`).
    Geom(TexGeom),
    /// The component of `tld4` (`.r`).
    Comp(TexComp),
    /// The query of `txq`/`suq` (`.width`).
    Query(TexQuery),
    /// A payload-free modifier.
    Flag(Flag),
}

/// `impl From<X> for Modifier` for each payload type, so constructors can take `T.into()`.
macro_rules! modifier_from {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Modifier {
            fn from(x: $t) -> Modifier {
                Modifier::$v(x)
            }
        }
    )*};
}

modifier_from! {
    Type => Type, StateSpace => Space, Rounding => Round, CmpOp => Cmp, BoolOp => Bool,
    AtomOp => Atom, Scope => Scope, MemSem => Sem, CacheOp => Cache, ShflMode => Shfl,
    VoteMode => Vote, TestpOp => Testp, PrmtMode => Prmt, Layout => Layout, Flag => Flag,
    TexGeom => Geom, TexComp => Comp, TexQuery => Query,
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Modifier::Type(t) => write!(f, "{t}"),
            Modifier::Space(s) => f.write_str(s.name()),
            Modifier::Round(r) => write!(f, "{r}"),
            Modifier::Cmp(c) => write!(f, "{c}"),
            Modifier::Bool(b) => write!(f, "{b}"),
            Modifier::Atom(a) => write!(f, "{a}"),
            Modifier::Scope(s) => write!(f, "{s}"),
            Modifier::Sem(s) => write!(f, "{s}"),
            Modifier::Cache(c) => write!(f, "{c}"),
            Modifier::Shfl(s) => write!(f, "{s}"),
            Modifier::Vote(v) => write!(f, "{v}"),
            Modifier::Testp(t) => write!(f, "{t}"),
            Modifier::Prmt(p) => write!(f, "{p}"),
            Modifier::Layout(l) => write!(f, "{l}"),
            Modifier::Vec(n) => write!(f, "v{n}"),
            Modifier::Num(n) => write!(f, "x{n}"),
            Modifier::Shape { m, n, k: 0 } => write!(f, "m{m}n{n}"),
            Modifier::Shape { m, n, k } => write!(f, "m{m}n{n}k{k}"),
            Modifier::Flag(fl) => write!(f, "{fl}"),
            Modifier::Geom(g) => write!(f, "{g}"),
            Modifier::Comp(c) => write!(f, "{c}"),
            Modifier::Query(q) => write!(f, "{q}"),
        }
    }
}

impl Modifier {
    /// Parses one modifier spelling (without the dot) for `op`. The opcode decides the
    /// spellings that mean different things in different instructions: `.and` is a boolean
    /// combine in `setp` and an operation in `atom`; `.lo` a comparison in `setp` and the low
    /// half in `mul`; `.uni` a vote mode in `vote` and a branch hint in `bra`.
    pub fn parse(op: Opcode, s: &str) -> Option<Modifier> {
        let compare = matches!(op, Opcode::Setp | Opcode::Set);
        let reduce = matches!(op, Opcode::Atom | Opcode::Red | Opcode::Redux);
        // Texture spellings first: `.r`/`.b` are components of `tld4`, not `shf.r`/`sust.b`.
        if op == Opcode::Tld4 {
            if let Some(c) = TexComp::from_name(s) {
                return Some(Modifier::Comp(c));
            }
        }
        if matches!(op, Opcode::Tex | Opcode::Tld4 | Opcode::Suld | Opcode::Sust) {
            if let Some(g) = TexGeom::from_name(s) {
                return Some(Modifier::Geom(g));
            }
        }
        if matches!(op, Opcode::Txq | Opcode::Suq) {
            if let Some(q) = TexQuery::from_name(s) {
                return Some(Modifier::Query(q));
            }
        }
        if compare {
            if let Some(c) = CmpOp::from_name(s) {
                return Some(Modifier::Cmp(c));
            }
            if let Some(b) = BoolOp::from_name(s) {
                return Some(Modifier::Bool(b));
            }
        }
        if reduce {
            if let Some(a) = AtomOp::from_name(s) {
                return Some(Modifier::Atom(a));
            }
        }
        // `bar.red.and`/`.or` combine predicates as `setp`'s `.and` does (no comparison).
        if op == Opcode::Bar {
            if let Some(b) = BoolOp::from_name(s) {
                return Some(Modifier::Bool(b));
            }
        }
        if op == Opcode::Vote {
            if let Some(v) = VoteMode::from_name(s) {
                return Some(Modifier::Vote(v));
            }
        }
        if op == Opcode::Shfl {
            if let Some(m) = ShflMode::from_name(s) {
                return Some(Modifier::Shfl(m));
            }
        }
        if op == Opcode::Testp {
            if let Some(t) = TestpOp::from_name(s) {
                return Some(Modifier::Testp(t));
            }
        }
        if op == Opcode::Prmt {
            if let Some(p) = PrmtMode::from_name(s) {
                return Some(Modifier::Prmt(p));
            }
        }
        if op == Opcode::Fence && s == "shared::cta" {
            return Some(Modifier::Flag(Flag::SharedCta));
        }
        if let Some(t) = Type::from_name(s) {
            return Some(Modifier::Type(t));
        }
        if let Some(sp) = StateSpace::from_name(s) {
            if !matches!(sp, StateSpace::Reg | StateSpace::Generic) {
                return Some(Modifier::Space(sp));
            }
        }
        if let Some(r) = Rounding::from_name(s) {
            return Some(Modifier::Round(r));
        }
        if let Some(fl) = Flag::from_name(s) {
            return Some(Modifier::Flag(fl));
        }
        if let Some(sc) = Scope::from_name(s) {
            return Some(Modifier::Scope(sc));
        }
        if let Some(m) = MemSem::from_name(s) {
            return Some(Modifier::Sem(m));
        }
        if matches!(op, Opcode::Ld | Opcode::St | Opcode::Cp) {
            if let Some(c) = CacheOp::from_name(s) {
                return Some(Modifier::Cache(c));
            }
        }
        if let Some(l) = Layout::from_name(s) {
            return Some(Modifier::Layout(l));
        }
        if let Some(n) = s.strip_prefix('v').and_then(|n| n.parse::<u8>().ok()) {
            if matches!(n, 2 | 4 | 8) {
                return Some(Modifier::Vec(n));
            }
        }
        if let Some(n) = s.strip_prefix('x').and_then(|n| n.parse::<u8>().ok()) {
            if matches!(n, 1 | 2 | 4) {
                return Some(Modifier::Num(n));
            }
        }
        parse_shape(s)
    }
}

/// Parses `m16n8k16` / `m8n8`.
fn parse_shape(s: &str) -> Option<Modifier> {
    let rest = s.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = match rest.split_once('k') {
        Some((n, k)) => (n, k.parse::<u8>().ok()?),
        None => (rest, 0),
    };
    let m = m.parse::<u8>().ok()?;
    let n = n.parse::<u8>().ok()?;
    if m == 0 || n == 0 {
        return None;
    }
    // Reject a leading `+` or zero padding so the spelling round-trips.
    let canon = Modifier::Shape { m, n, k };
    (canon.to_string() == s).then_some(canon)
}

/// The base of a memory operand: a register or a symbol (parameter, variable).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// `[%rd1]`.
    Reg(Reg),
    /// `[p_g0_b0]`, `[ys_tile+16]`.
    Symbol(String),
}

/// A memory operand `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// Register or symbol.
    pub base: AddrBase,
    /// Byte offset (printed `+N`, or `+-N` when negative, as LLVM writes it).
    pub offset: i64,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// A decimal integer immediate.
    Imm(i64),
    /// A hexadecimal integer immediate, `0x3C00` (f16 bit patterns, masks).
    ImmHex(u64),
    /// An f32 immediate by its bits, printed `0fXXXXXXXX`.
    ImmF32(u32),
    /// An f64 immediate by its bits, printed `0dXXXXXXXXXXXXXXXX`.
    ImmF64(u64),
    /// A symbol: a label (branch target), a variable or parameter name.
    Symbol(String),
    /// A memory operand.
    Address(Address),
    /// A brace list `{%h1, %h2}` (vector loads/stores, packing moves, mma fragments).
    Vector(Vec<Operand>),
    /// A special register.
    Special(SpecialReg),
    /// The sink `_` (result discarded).
    Sink,
    /// A negated predicate `!%p1` (setp combine operand).
    Not(Reg),
    /// Two destinations `%r1|%p1` (`shfl.sync` value and validity, `setp` p and !p).
    Pair(Reg, Reg),
    /// A parenthesized list `(param0, param1)`: the return and argument lists of `call`.
    List(Vec<Operand>),
    /// A texture or surface access `[%rd1, {%r2, %r3}]`: the object handle (a `.u64`
    /// texture or surface object) and the coordinate vector.
    Texel(Reg, Vec<Operand>),
}

impl Operand {
    /// An f32 immediate, bit-exact (`0f3F800000` for 1.0).
    pub fn f32(v: f32) -> Operand {
        Operand::ImmF32(v.to_bits())
    }
    /// An f64 immediate, bit-exact.
    pub fn f64(v: f64) -> Operand {
        Operand::ImmF64(v.to_bits())
    }
    /// An f16 immediate by its bit pattern (`0x3C00` for 1.0); PTX has no f16 literals.
    pub fn f16_bits(bits: u16) -> Operand {
        Operand::ImmHex(u64::from(bits))
    }
    /// A decimal integer immediate.
    pub fn imm(v: i64) -> Operand {
        Operand::Imm(v)
    }
    /// `[reg+offset]`.
    pub fn addr(base: Reg, offset: i64) -> Operand {
        Operand::Address(Address { base: AddrBase::Reg(base), offset })
    }
    /// `[symbol+offset]`.
    pub fn sym_addr(name: impl Into<String>, offset: i64) -> Operand {
        Operand::Address(Address { base: AddrBase::Symbol(name.into()), offset })
    }
    /// A symbol or label.
    pub fn sym(name: impl Into<String>) -> Operand {
        Operand::Symbol(name.into())
    }
    /// A brace list of registers.
    pub fn vector(regs: &[Reg]) -> Operand {
        Operand::Vector(regs.iter().map(|r| Operand::Reg(*r)).collect())
    }

    /// Calls `f` on every register named by this operand.
    pub fn for_each_reg(&self, f: &mut impl FnMut(Reg)) {
        match self {
            Operand::Reg(r) | Operand::Not(r) => f(*r),
            Operand::Pair(a, b) => {
                f(*a);
                f(*b);
            }
            Operand::Address(Address { base: AddrBase::Reg(r), .. }) => f(*r),
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| o.for_each_reg(f)),
            Operand::Texel(h, v) => {
                f(*h);
                v.iter().for_each(|o| o.for_each_reg(f));
            }
            _ => {}
        }
    }

    /// Calls `f` on every register named by this operand, mutably, in the order of
    /// [`Operand::for_each_reg`].
    pub fn for_each_reg_mut(&mut self, f: &mut impl FnMut(&mut Reg)) {
        match self {
            Operand::Reg(r) | Operand::Not(r) => f(r),
            Operand::Pair(a, b) => {
                f(a);
                f(b);
            }
            Operand::Address(Address { base: AddrBase::Reg(r), .. }) => f(r),
            Operand::Vector(v) | Operand::List(v) => {
                v.iter_mut().for_each(|o| o.for_each_reg_mut(f))
            }
            Operand::Texel(h, v) => {
                f(h);
                v.iter_mut().for_each(|o| o.for_each_reg_mut(f));
            }
            _ => {}
        }
    }

    /// Calls `f` on every symbol named by this operand (for name checks).
    pub fn for_each_symbol(&self, f: &mut impl FnMut(&str)) {
        match self {
            Operand::Symbol(s) => f(s),
            Operand::Address(Address { base: AddrBase::Symbol(s), .. }) => f(s),
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| o.for_each_symbol(f)),
            _ => {}
        }
    }
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}

impl From<SpecialReg> for Operand {
    fn from(s: SpecialReg) -> Operand {
        Operand::Special(s)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::ImmHex(v) => write!(f, "0x{v:X}"),
            Operand::ImmF32(b) => f.write_str(&super::types::f32_bits_text(*b)),
            Operand::ImmF64(b) => f.write_str(&super::types::f64_bits_text(*b)),
            Operand::Symbol(s) => f.write_str(s),
            Operand::Address(a) => {
                match &a.base {
                    AddrBase::Reg(r) => write!(f, "[{r}")?,
                    AddrBase::Symbol(s) => write!(f, "[{s}")?,
                }
                if a.offset != 0 {
                    write!(f, "+{}", a.offset)?;
                }
                f.write_str("]")
            }
            Operand::Vector(v) | Operand::List(v) => {
                let (open, close) =
                    if matches!(self, Operand::List(_)) { ("(", ")") } else { ("{", "}") };
                f.write_str(open)?;
                for (i, o) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{o}")?;
                }
                f.write_str(close)
            }
            Operand::Special(s) => write!(f, "{s}"),
            Operand::Sink => f.write_str("_"),
            Operand::Not(r) => write!(f, "!{r}"),
            Operand::Pair(a, b) => write!(f, "{a}|{b}"),
            Operand::Texel(h, v) => {
                write!(f, "[{h}, {}]", Operand::Vector(v.clone()))
            }
        }
    }
}

/// A guard predicate: `@%p1` or `@!%p1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub reg: Reg,
    /// `@!%p`: execute when the predicate is false.
    pub negated: bool,
}

/// One PTX instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// Optional guard predicate.
    pub guard: Option<Guard>,
    /// The opcode.
    pub op: Opcode,
    /// Modifiers in PTX order (`cvt.rn.f32.s32`: `Round(Rn)`, `Type(F32)`, `Type(S32)`).
    pub mods: Vec<Modifier>,
    /// Operands, destination(s) first, as PTX writes them.
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// An unguarded instruction.
    pub fn new(op: Opcode, mods: Vec<Modifier>, operands: Vec<Operand>) -> Instruction {
        Instruction { guard: None, op, mods, operands }
    }

    /// The same instruction executed only when `reg` is true (`negated`: when false).
    pub fn guarded(mut self, reg: Reg, negated: bool) -> Instruction {
        self.guard = Some(Guard { reg, negated });
        self
    }

    /// The opcode with its modifiers: `ld.global.v4.f32`.
    pub fn opcode_text(&self) -> String {
        let mut s = self.op.name().to_string();
        for m in &self.mods {
            s.push('.');
            s.push_str(&m.to_string());
        }
        s
    }

    /// Calls `f` on every register the instruction names (guard included).
    pub fn for_each_reg(&self, mut f: impl FnMut(Reg)) {
        if let Some(g) = self.guard {
            f(g.reg);
        }
        for o in &self.operands {
            o.for_each_reg(&mut f);
        }
    }

    /// Whether the first operand is a destination: [`Opcode::writes_first_operand`], and the
    /// reducing barriers (`bar.red.and.pred d, 0, p`) that the opcode alone does not tell.
    pub fn writes_first_operand(&self) -> bool {
        self.op.writes_first_operand()
            || (matches!(self.op, Opcode::Bar | Opcode::Barrier) && self.has_flag(Flag::Red))
            || (self.op == Opcode::Wgmma && self.has_flag(Flag::MmaAsync))
    }

    /// Calls `f` on every register the instruction names, in the order of
    /// [`Instruction::for_each_reg`], with whether the instruction writes it (registers of a
    /// destination operand) or reads it (the guard, sources and address bases).
    pub fn for_each_reg_access(&self, mut f: impl FnMut(Reg, bool)) {
        if let Some(g) = self.guard {
            f(g.reg, false);
        }
        let writes = self.writes_first_operand();
        for (i, o) in self.operands.iter().enumerate() {
            let def = writes && i == 0;
            o.for_each_reg(&mut |r| f(r, def));
        }
    }

    /// Calls `f` on every register the instruction names, mutably, in the order of
    /// [`Instruction::for_each_reg`] (register allocation rewrites them in place).
    pub fn for_each_reg_mut(&mut self, mut f: impl FnMut(&mut Reg)) {
        if let Some(g) = &mut self.guard {
            f(&mut g.reg);
        }
        for o in &mut self.operands {
            o.for_each_reg_mut(&mut f);
        }
    }

    /// The types among the modifiers, in order (`cvt` has two, `mma` four).
    pub fn types(&self) -> impl Iterator<Item = Type> + '_ {
        self.mods.iter().filter_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// Whether `m` is among the modifiers.
    pub fn has(&self, m: Modifier) -> bool {
        self.mods.contains(&m)
    }

    /// Whether flag `fl` is among the modifiers.
    pub fn has_flag(&self, fl: Flag) -> bool {
        self.flags().intersects(fl.bit())
    }

    /// The payload-free modifiers as a set.
    pub fn flags(&self) -> Flags {
        self.mods.iter().fold(Flags::empty(), |acc, m| match m {
            Modifier::Flag(f) => acc | f.bit(),
            _ => acc,
        })
    }

    /// The first modifier `f` maps to a value (a generic accessor for emulators).
    pub fn find_mod<T>(&self, f: impl Fn(&Modifier) -> Option<T>) -> Option<T> {
        self.mods.iter().find_map(f)
    }

    /// The rounding modifier, if any.
    pub fn rounding(&self) -> Option<Rounding> {
        self.find_mod(|m| if let Modifier::Round(r) = m { Some(*r) } else { None })
    }

    /// The comparison of `setp`/`set`.
    pub fn cmp_op(&self) -> Option<CmpOp> {
        self.find_mod(|m| if let Modifier::Cmp(c) = m { Some(*c) } else { None })
    }

    /// The boolean combine of `setp`/`set`.
    pub fn bool_op(&self) -> Option<BoolOp> {
        self.find_mod(|m| if let Modifier::Bool(b) = m { Some(*b) } else { None })
    }

    /// The operation of `atom`/`red`/`redux`.
    pub fn atom_op(&self) -> Option<AtomOp> {
        self.find_mod(|m| if let Modifier::Atom(a) = m { Some(*a) } else { None })
    }

    /// The mode of `shfl`.
    pub fn shfl_mode(&self) -> Option<ShflMode> {
        self.find_mod(|m| if let Modifier::Shfl(x) = m { Some(*x) } else { None })
    }

    /// The mode of `vote`.
    pub fn vote_mode(&self) -> Option<VoteMode> {
        self.find_mod(|m| if let Modifier::Vote(x) = m { Some(*x) } else { None })
    }

    /// The property of `testp`.
    pub fn testp_op(&self) -> Option<TestpOp> {
        self.find_mod(|m| if let Modifier::Testp(x) = m { Some(*x) } else { None })
    }

    /// The memory-ordering semantics (`.relaxed`, `.acq_rel`, ...).
    pub fn sem(&self) -> Option<MemSem> {
        self.find_mod(|m| if let Modifier::Sem(x) = m { Some(*x) } else { None })
    }

    /// The memory scope (`.gpu`, `.cta`, ...).
    pub fn scope(&self) -> Option<Scope> {
        self.find_mod(|m| if let Modifier::Scope(x) = m { Some(*x) } else { None })
    }

    /// The vector width of `ld`/`st` (`.v2` -> 2), 1 when scalar.
    pub fn vec_width(&self) -> u8 {
        self.find_mod(|m| if let Modifier::Vec(n) = m { Some(*n) } else { None }).unwrap_or(1)
    }

    /// The state space among the modifiers (`Generic` when none).
    pub fn space(&self) -> StateSpace {
        self.mods
            .iter()
            .find_map(|m| match m {
                Modifier::Space(s) => Some(*s),
                _ => None,
            })
            .unwrap_or(StateSpace::Generic)
    }
}

/// Appends `v` in decimal (the printer's hot path avoids `fmt`).
pub(crate) fn push_u64(out: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // ASCII digits: always valid UTF-8.
    out.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
}

/// Appends `v` in decimal, with a `-` when negative.
fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

impl Reg {
    /// Appends the register's name (`%r12`).
    pub fn write_to(&self, out: &mut String) {
        out.push('%');
        out.push_str(self.kind.prefix());
        push_u64(out, u64::from(self.num));
    }
}

impl Modifier {
    /// Appends the modifier's spelling without the dot.
    pub fn write_to(&self, out: &mut String) {
        let name = match self {
            Modifier::Type(t) => t.name(),
            Modifier::Space(s) => s.name(),
            Modifier::Round(r) => r.name(),
            Modifier::Cmp(c) => c.name(),
            Modifier::Bool(b) => b.name(),
            Modifier::Atom(a) => a.name(),
            Modifier::Scope(s) => s.name(),
            Modifier::Sem(s) => s.name(),
            Modifier::Cache(c) => c.name(),
            Modifier::Shfl(m) => m.name(),
            Modifier::Vote(v) => v.name(),
            Modifier::Testp(t) => t.name(),
            Modifier::Prmt(p) => p.name(),
            Modifier::Layout(l) => l.name(),
            Modifier::Flag(f) => f.name(),
            Modifier::Geom(g) => g.name(),
            Modifier::Comp(c) => c.name(),
            Modifier::Query(q) => q.name(),
            Modifier::Vec(_) | Modifier::Num(_) | Modifier::Shape { .. } => {
                out.push_str(&self.to_string());
                return;
            }
        };
        out.push_str(name);
    }
}

impl Operand {
    /// Appends the operand as PTX writes it.
    pub fn write_to(&self, out: &mut String) {
        match self {
            Operand::Reg(r) => r.write_to(out),
            Operand::Imm(v) => push_i64(out, *v),
            Operand::Address(a) => {
                out.push('[');
                match &a.base {
                    AddrBase::Reg(r) => r.write_to(out),
                    AddrBase::Symbol(s) => out.push_str(s),
                }
                if a.offset != 0 {
                    out.push('+');
                    push_i64(out, a.offset);
                }
                out.push(']');
            }
            Operand::Vector(v) | Operand::List(v) => {
                let list = matches!(self, Operand::List(_));
                out.push(if list { '(' } else { '{' });
                for (i, o) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    o.write_to(out);
                }
                out.push(if list { ')' } else { '}' });
            }
            Operand::Symbol(s) => out.push_str(s),
            Operand::Not(r) => {
                out.push('!');
                r.write_to(out);
            }
            Operand::Pair(a, b) => {
                a.write_to(out);
                out.push('|');
                b.write_to(out);
            }
            Operand::Sink => out.push('_'),
            Operand::Texel(h, v) => {
                out.push('[');
                h.write_to(out);
                out.push_str(", {");
                for (i, o) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    o.write_to(out);
                }
                out.push_str("}]");
            }
            other => out.push_str(&other.to_string()),
        }
    }
}

impl Instruction {
    /// Appends the instruction as [`fmt::Display`] writes it (`@%p1 bra \t$L1;`).
    pub fn write_to(&self, out: &mut String) {
        if let Some(g) = self.guard {
            out.push_str(if g.negated { "@!" } else { "@" });
            g.reg.write_to(out);
            out.push(' ');
        }
        out.push_str(self.op.name());
        for m in &self.mods {
            out.push('.');
            m.write_to(out);
        }
        for (i, o) in self.operands.iter().enumerate() {
            out.push_str(if i == 0 { " \t" } else { ", " });
            o.write_to(out);
        }
        out.push(';');
    }
}

impl fmt::Display for Instruction {
    /// One line without indentation: `@%p1 bra \t$L1;`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(48);
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_bits_follow_the_flag_table() {
        assert_eq!(Flag::ALL.len(), Flags::all().iter().count());
        assert_eq!(Flag::Ftz.bit(), Flags::FTZ);
        assert_eq!(Flag::Warp.bit(), Flags::WARP);
        for (i, f) in Flag::ALL.iter().enumerate() {
            assert_eq!(f.bit().bits(), 1 << i, "{f}");
        }
        let i = Instruction::new(
            Opcode::Cvt,
            vec![Rounding::Rn.into(), Flag::Ftz.into(), Flag::Sat.into(), Type::F32.into()],
            vec![],
        );
        assert_eq!(i.flags(), Flags::FTZ | Flags::SAT);
        assert!(i.has_flag(Flag::Sat) && !i.has_flag(Flag::Approx));
    }

    #[test]
    fn modifier_context() {
        assert_eq!(Modifier::parse(Opcode::Setp, "and"), Some(Modifier::Bool(BoolOp::And)));
        assert_eq!(Modifier::parse(Opcode::Atom, "and"), Some(Modifier::Atom(AtomOp::And)));
        assert_eq!(Modifier::parse(Opcode::Bar, "and"), Some(Modifier::Bool(BoolOp::And)));
        assert_eq!(Modifier::parse(Opcode::Bar, "lt"), None);
        assert_eq!(Modifier::parse(Opcode::Setp, "lo"), Some(Modifier::Cmp(CmpOp::Lo)));
        assert_eq!(Modifier::parse(Opcode::Mul, "lo"), Some(Modifier::Flag(Flag::Lo)));
        assert_eq!(Modifier::parse(Opcode::Vote, "uni"), Some(Modifier::Vote(VoteMode::Uni)));
        assert_eq!(Modifier::parse(Opcode::Bra, "uni"), Some(Modifier::Flag(Flag::Uni)));
        assert_eq!(
            Modifier::parse(Opcode::Mma, "m16n8k16"),
            Some(Modifier::Shape { m: 16, n: 8, k: 16 })
        );
        assert_eq!(
            Modifier::parse(Opcode::Ldmatrix, "m8n8"),
            Some(Modifier::Shape { m: 8, n: 8, k: 0 })
        );
        assert_eq!(Modifier::parse(Opcode::Ldmatrix, "m08n8"), None);
        assert_eq!(Modifier::parse(Opcode::Ld, "v4"), Some(Modifier::Vec(4)));
        assert_eq!(Modifier::parse(Opcode::Ld, "v3"), None);
        assert_eq!(Modifier::parse(Opcode::Add, "bogus"), None);
    }

    #[test]
    fn operand_text() {
        assert_eq!(Operand::f32(1.0).to_string(), "0f3F800000");
        assert_eq!(Operand::f64(1.0).to_string(), "0d3FF0000000000000");
        assert_eq!(Operand::f16_bits(0x3C00).to_string(), "0x3C00");
        assert_eq!(Operand::addr(Reg::b64(2), 0).to_string(), "[%rd2]");
        assert_eq!(Operand::addr(Reg::b64(2), -4).to_string(), "[%rd2+-4]");
        assert_eq!(Operand::sym_addr("p", 8).to_string(), "[p+8]");
        assert_eq!(Operand::vector(&[Reg::b16(1), Reg::b16(2)]).to_string(), "{%h1, %h2}");
        assert_eq!(Operand::Pair(Reg::b32(1), Reg::pred(2)).to_string(), "%r1|%p2");
    }

    #[test]
    fn instruction_text() {
        let i = Instruction::new(
            Opcode::Cvt,
            vec![
                Modifier::Round(Rounding::Rn),
                Modifier::Type(Type::F32),
                Modifier::Type(Type::S32),
            ],
            vec![Reg::b32(1).into(), Reg::b32(2).into()],
        )
        .guarded(Reg::pred(1), true);
        assert_eq!(i.to_string(), "@!%p1 cvt.rn.f32.s32 \t%r1, %r2;");
        assert_eq!(Instruction::new(Opcode::Ret, vec![], vec![]).to_string(), "ret;");
        assert_eq!(i.rounding(), Some(Rounding::Rn));
        assert_eq!(i.types().collect::<Vec<_>>(), vec![Type::F32, Type::S32]);
        assert_eq!(i.vec_width(), 1);
        assert_eq!(i.cmp_op(), None);
    }
}
