//! The parser: reads the printer's output back into the same [`Module`], and the common
//! constructs of NVRTC and LLVM (NVPTX back end) output for the same instruction subset.
//!
//! Registers are renumbered into the four files of the model: each `.reg` declaration gets
//! the next free numbers of its width, in declaration order. The printer's own declarations
//! (`.reg .b32 %r<N>;` first and alone in its width) therefore keep their numbers, and
//! NVRTC's `%f<5>` or `%fd<3>` become further `%r` / `%rd` registers, as do registers
//! declared inside nested `{ }` blocks (LLVM's `.reg .b32 temp;`, named without `%`).
//! Nested blocks stay in the body as [`Statement::BlockStart`] / [`Statement::BlockEnd`],
//! with their `.param` declarations ([`Statement::Decl`]), so that call sequences
//! round-trip. `.func` definitions and declarations become [`Func`]s; `.pragma` inside a
//! body is kept ([`Statement::Pragma`]). Debug directives (`.file`, `.loc`, `.section`) and
//! module-level `.pragma` are skipped; `.callprototype` (indirect calls) and `.extern`
//! variables are rejected as unsupported.

pub mod lexer;

use crate::error::{PtxError, PtxErrorKind};
use crate::model::types::float_bits_from_hex;
use crate::model::{
    AddrBase, Address, Entry, Func, Guard, Instruction, Linkage, Modifier, Module, Opcode, Operand,
    Param, Reg, RegKind, SpecialReg, StateSpace, Statement, Target, Type, VarDecl, Version,
};
use lexer::{lex, Tok, Token};
use std::collections::HashMap;

/// Parses PTX text into a [`Module`].
pub fn parse_module(text: &str) -> Result<Module, PtxError> {
    let tokens = lex(text)?;
    let last_line = tokens.last().map_or(1, |t| t.line);
    Parser { toks: tokens, pos: 0, last_line }.module()
}

/// Parses one instruction, `;` included, whose registers carry the printer's names (`%r7` is
/// number 7 of the `.b32` file) and need no declaration: `@%p1 add.s32 %r3, %r1, 4;`.
pub fn parse_instruction(text: &str) -> Result<Instruction, PtxError> {
    let tokens = lex(text)?;
    let last_line = tokens.last().map_or(1, |t| t.line);
    let mut scope = Scope::default();
    for k in RegKind::ALL {
        scope.ranges.insert(k.prefix().to_string(), (k, 0, u32::MAX));
    }
    let regs = Regs { scopes: vec![scope], next: [0; 4] };
    let mut p = Parser { toks: tokens, pos: 0, last_line };
    let inst = p.instruction(&regs)?;
    match p.peek() {
        None => Ok(inst),
        t => Err(syntax(p.line(), format!("expected the end after ';', found {}", describe(t)))),
    }
}

/// Register names declared in one `{ }` scope.
#[derive(Default)]
struct Scope {
    /// `%r<10>`: prefix -> (kind, first number, count).
    ranges: HashMap<String, (RegKind, u32, u32)>,
    /// `.reg .b32 %x;`: full name -> register.
    singles: HashMap<String, Reg>,
    /// `.reg .b32 temp;` (a name without `%`) -> register.
    words: HashMap<String, Reg>,
}

/// Register state of the entry being parsed.
struct Regs {
    scopes: Vec<Scope>,
    next: [u32; 4],
}

impl Regs {
    fn lookup(&self, name: &str) -> Option<Reg> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, num) = name.split_at(name.len() - digits);
        for s in self.scopes.iter().rev() {
            if let Some(r) = s.singles.get(name) {
                return Some(*r);
            }
            if digits > 0 && !prefix.is_empty() {
                if let Some(&(kind, base, count)) = s.ranges.get(prefix) {
                    let n: u32 = num.parse().ok()?;
                    if n < count {
                        return Some(Reg { kind, num: base.checked_add(n)? });
                    }
                }
            }
        }
        None
    }

    /// A register declared by a name without `%`.
    fn word(&self, name: &str) -> Option<Reg> {
        self.scopes.iter().rev().find_map(|s| s.words.get(name).copied())
    }

    fn alloc(&mut self, kind: RegKind, count: u32) -> Option<u32> {
        let slot = &mut self.next[kind.index()];
        let base = *slot;
        *slot = slot.checked_add(count)?;
        Some(base)
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    last_line: u32,
}

fn syntax(line: u32, msg: impl Into<String>) -> PtxError {
    PtxError::at_line(PtxErrorKind::Syntax, line, msg)
}

fn unsupported(line: u32, msg: impl Into<String>) -> PtxError {
    PtxError::at_line(PtxErrorKind::Unsupported, line, msg)
}

fn describe(t: Option<&Tok>) -> String {
    match t {
        None => "end of file".into(),
        Some(Tok::Word(w)) => format!("'{w}'"),
        Some(Tok::Reg(r)) => format!("'%{r}'"),
        Some(Tok::Num(n)) => format!("'{n}'"),
        Some(Tok::Str(s)) => format!("\"{s}\""),
        Some(Tok::Punct(c)) => format!("'{c}'"),
        Some(Tok::Comment(..)) => "a comment".into(),
    }
}

/// Parses a number into an immediate operand (`0f`, `0d`, `0x`, `0b`, octal, decimal; `U`).
fn number(s: &str, line: u32) -> Result<Operand, PtxError> {
    let bad = || syntax(line, format!("bad number '{s}'"));
    let lower = s.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        return match float_bits_from_hex(h) {
            Some(b) if h.len() == 8 => Ok(Operand::ImmF32(b as u32)),
            _ => Err(bad()),
        };
    }
    if let Some(h) = lower.strip_prefix("0d") {
        return match float_bits_from_hex(h) {
            Some(b) if h.len() == 16 => Ok(Operand::ImmF64(b)),
            _ => Err(bad()),
        };
    }
    let body = lower.strip_suffix('u').unwrap_or(&lower);
    if let Some(h) = body.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).map(Operand::ImmHex).map_err(|_| bad());
    }
    let v = if let Some(bits) = body.strip_prefix("0b") {
        u64::from_str_radix(bits, 2).map_err(|_| bad())?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).map_err(|_| bad())?
    } else if body.contains('.') || body.contains('e') {
        return Err(syntax(
            line,
            format!("decimal float literal '{s}'; write 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX"),
        ));
    } else {
        body.parse::<u64>().map_err(|_| bad())?
    };
    // Values above i64::MAX keep their bits as a hex immediate.
    Ok(i64::try_from(v).map_or(Operand::ImmHex(v), Operand::Imm))
}

fn reg_kind_of(ty: Type) -> Option<RegKind> {
    match ty {
        Type::B8 | Type::U8 | Type::S8 => None,
        t => RegKind::for_type(t),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn line(&self) -> u32 {
        self.toks.get(self.pos).map_or(self.last_line, |t| t.line)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.tok.clone());
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn expect_punct(&mut self, c: char, after: &str) -> Result<(), PtxError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(syntax(
                self.line(),
                format!("expected '{c}' {after}, found {}", describe(self.peek())),
            ))
        }
    }

    fn expect_word(&mut self, what: &str) -> Result<String, PtxError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            t => Err(syntax(self.line(), format!("expected {what}, found {}", describe(t)))),
        }
    }

    fn expect_u64(&mut self, what: &str) -> Result<u64, PtxError> {
        let line = self.line();
        match self.next() {
            Some(Tok::Num(n)) => match number(&n, line)? {
                Operand::Imm(v) => {
                    u64::try_from(v).map_err(|_| syntax(line, format!("bad {what}")))
                }
                Operand::ImmHex(v) => Ok(v),
                _ => Err(syntax(line, format!("expected an integer {what}, found '{n}'"))),
            },
            t => Err(syntax(line, format!("expected {what}, found {}", describe(t.as_ref())))),
        }
    }

    fn expect_u32(&mut self, what: &str) -> Result<u32, PtxError> {
        let line = self.line();
        let v = self.expect_u64(what)?;
        u32::try_from(v).map_err(|_| syntax(line, format!("{what} {v} is too large")))
    }

    fn expect_type(&mut self) -> Result<Type, PtxError> {
        let line = self.line();
        let w = self.expect_word("a type")?;
        w.strip_prefix('.')
            .and_then(Type::from_name)
            .ok_or_else(|| syntax(line, format!("expected a type such as .u32, found '{w}'")))
    }

    /// Skips the rest of the current line (`.file`, `.loc` have no `;`).
    fn skip_line(&mut self, line: u32) {
        while self.toks.get(self.pos).is_some_and(|t| t.line == line) {
            self.pos += 1;
        }
    }

    /// Skips up to and including the next `;`.
    fn skip_statement(&mut self) {
        while let Some(t) = self.next() {
            if t == Tok::Punct(';') {
                break;
            }
        }
    }

    /// Skips a balanced `{ ... }` (`.section` bodies).
    fn skip_braces(&mut self) -> Result<(), PtxError> {
        let line = self.line();
        self.expect_punct('{', "to open the section")?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.next() {
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                Some(_) => {}
                None => return Err(syntax(line, "unterminated '{'")),
            }
        }
        Ok(())
    }

    fn module(mut self) -> Result<Module, PtxError> {
        let mut m = Module::new(80);
        let (mut version, mut target) = (None, None);
        let mut address_size = None;
        // `.visible`, `.weak` or `.extern` read before the declaration it applies to.
        let mut linkage: Option<Linkage> = None;
        while let Some(tok) = self.peek().cloned() {
            let line = self.line();
            if linkage.is_some()
                && !matches!(&tok, Tok::Comment(..))
                && !matches!(&tok, Tok::Word(w) if matches!(w.as_str(), ".func" | ".entry" | ".global" | ".const" | ".shared" | ".local"))
            {
                return Err(syntax(line, "expected a declaration after the linkage directive"));
            }
            match tok {
                Tok::Comment(text, own_line) => {
                    self.pos += 1;
                    // Only the header comment block is kept; the rest is NVRTC chatter.
                    if version.is_none() && own_line {
                        m.comments.push(text.strip_prefix(' ').unwrap_or(&text).to_string());
                    }
                }
                Tok::Word(w) => {
                    self.pos += 1;
                    match w.as_str() {
                        ".version" => {
                            let n = match self.next() {
                                Some(Tok::Num(n)) => n,
                                t => {
                                    return Err(syntax(
                                        line,
                                        format!(
                                            "expected a version, found {}",
                                            describe(t.as_ref())
                                        ),
                                    ))
                                }
                            };
                            let parsed = n
                                .split_once('.')
                                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                            let Some((major, minor)) = parsed else {
                                return Err(syntax(line, format!("bad version '{n}'")));
                            };
                            version = Some(Version { major, minor });
                        }
                        ".target" => {
                            let t = self.expect_word("a target such as sm_80")?;
                            let (digits, arch_specific) = match t.strip_prefix("sm_") {
                                Some(d) => match d.strip_suffix('a') {
                                    Some(d) => (d, true),
                                    None => (d, false),
                                },
                                None => {
                                    return Err(unsupported(
                                        line,
                                        format!("target '{t}'; expected sm_NN"),
                                    ))
                                }
                            };
                            let sm = digits
                                .parse()
                                .map_err(|_| syntax(line, format!("bad target '{t}'")))?;
                            target = Some(Target { sm, arch_specific });
                            // `.target sm_80, debug`: extra options are ignored.
                            while self.eat_punct(',') {
                                self.expect_word("a target option")?;
                            }
                        }
                        ".address_size" => address_size = Some(self.expect_u32("address size")?),
                        ".file" | ".loc" => self.skip_line(line),
                        ".section" => {
                            self.expect_word("a section name")?;
                            self.skip_braces()?;
                        }
                        ".pragma" => self.skip_statement(),
                        ".visible" => linkage = Some(Linkage::Visible),
                        ".weak" => linkage = Some(Linkage::Weak),
                        ".extern" => linkage = Some(Linkage::Extern),
                        ".func" => {
                            let f = self.func(linkage.take().unwrap_or_default(), line)?;
                            m.funcs.push(f);
                        }
                        ".entry" => {
                            if matches!(linkage.take(), Some(Linkage::Extern)) {
                                return Err(unsupported(line, "'.extern .entry' declarations"));
                            }
                            let e = self.entry()?;
                            m.entries.push(e);
                        }
                        ".shared" | ".global" | ".const" | ".local" => {
                            // `.visible` and `.weak` change nothing within one module;
                            // an `.extern` variable (dynamic shared memory) has no size.
                            if matches!(linkage.take(), Some(Linkage::Extern)) {
                                return Err(unsupported(
                                    line,
                                    "'.extern' variables (dynamic shared memory) are not supported",
                                ));
                            }
                            let v = self.var_decl(&w, line)?;
                            m.globals.push(v);
                        }
                        _ => return Err(syntax(line, format!("unexpected '{w}' at module level"))),
                    }
                }
                t => {
                    return Err(syntax(
                        line,
                        format!("unexpected {} at module level", describe(Some(&t))),
                    ))
                }
            }
        }
        if linkage.is_some() {
            return Err(syntax(self.last_line, "a linkage directive ends the module"));
        }
        m.version = version.ok_or_else(|| syntax(1, "missing .version directive"))?;
        m.target = target.ok_or_else(|| syntax(1, "missing .target directive"))?;
        // PTX's default address size is 32 when the directive is absent.
        m.address_size = address_size.unwrap_or(32);
        Ok(m)
    }

    /// `.shared .align 16 .b8 name[64];` after the space word.
    fn var_decl(&mut self, space_word: &str, line: u32) -> Result<VarDecl, PtxError> {
        let space = space_word
            .strip_prefix('.')
            .and_then(StateSpace::from_name)
            .ok_or_else(|| syntax(line, format!("unknown state space '{space_word}'")))?;
        let mut align = None;
        if self.peek() == Some(&Tok::Word(".align".into())) {
            self.pos += 1;
            align = Some(self.expect_u32("alignment")?);
        }
        let ty = self.expect_type()?;
        let name = self.expect_word("a variable name")?;
        let mut len = None;
        if self.eat_punct('[') {
            if self.is_punct(']') {
                return Err(unsupported(line, format!("unsized array '{name}'")));
            }
            len = Some(self.expect_u64("array length")?);
            self.expect_punct(']', "after the array length")?;
        }
        let mut init = Vec::new();
        if self.eat_punct('=') {
            let braced = self.eat_punct('{');
            loop {
                init.push(self.init_value(ty, line)?);
                if !braced || !self.eat_punct(',') {
                    break;
                }
            }
            if braced {
                self.expect_punct('}', "after the initializer")?;
            }
        }
        self.expect_punct(';', "after the variable declaration")?;
        Ok(VarDecl { space, align, ty, name, len, init })
    }

    /// One initializer element of a `ty` variable, as its bit pattern.
    fn init_value(&mut self, ty: Type, line: u32) -> Result<u64, PtxError> {
        let neg = self.eat_punct('-');
        let op = match self.next() {
            Some(Tok::Num(n)) => number(&n, line)?,
            t => {
                return Err(syntax(
                    line,
                    format!("expected an initializer element, found {}", describe(t.as_ref())),
                ))
            }
        };
        let bits = match op {
            Operand::Imm(v) => (if neg { v.wrapping_neg() } else { v }) as u64,
            Operand::ImmHex(v) => {
                if neg {
                    v.wrapping_neg()
                } else {
                    v
                }
            }
            Operand::ImmF32(b) if !neg => u64::from(b),
            Operand::ImmF64(b) if !neg => b,
            _ => return Err(syntax(line, "an initializer element must be a number")),
        };
        let w = ty.bytes().clamp(1, 8) * 8;
        Ok(if w == 64 { bits } else { bits & ((1u64 << w) - 1) })
    }

    fn dims(&mut self) -> Result<[u32; 3], PtxError> {
        let mut d = [1u32; 3];
        d[0] = self.expect_u32("a thread count")?;
        for slot in d.iter_mut().skip(1) {
            if !self.eat_punct(',') {
                break;
            }
            *slot = self.expect_u32("a thread count")?;
        }
        Ok(d)
    }

    fn entry(&mut self) -> Result<Entry, PtxError> {
        let name = self.expect_word("the entry name")?;
        let mut e = Entry::new(name);
        self.expect_punct('(', "after the entry name")?;
        e.params = self.param_list()?;
        // Performance directives up to the body.
        loop {
            let line = self.line();
            match self.peek().cloned() {
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    break;
                }
                Some(Tok::Comment(..)) => self.pos += 1,
                Some(Tok::Word(w)) => {
                    self.pos += 1;
                    match w.as_str() {
                        ".reqntid" => e.reqntid = Some(self.dims()?),
                        ".maxntid" => e.maxntid = Some(self.dims()?),
                        ".minnctapersm" | ".maxnreg" | ".maxnctapersm" => {
                            self.expect_u32("a count")?;
                        }
                        ".pragma" => self.skip_statement(),
                        _ => {
                            return Err(syntax(
                                line,
                                format!("unexpected '{w}' before the entry body"),
                            ))
                        }
                    }
                }
                t => {
                    return Err(syntax(
                        line,
                        format!("expected '{{', found {}", describe(t.as_ref())),
                    ))
                }
            }
        }
        self.body(&mut e)?;
        Ok(e)
    }

    /// Parameters after `(` up to and including `)`.
    fn param_list(&mut self) -> Result<Vec<Param>, PtxError> {
        let mut params = Vec::new();
        while matches!(self.peek(), Some(Tok::Comment(..))) {
            self.pos += 1;
        }
        if self.eat_punct(')') {
            return Ok(params);
        }
        loop {
            params.push(self.param()?);
            if self.eat_punct(')') {
                return Ok(params);
            }
            self.expect_punct(',', "between parameters")?;
        }
    }

    /// `.func [(rets)] name[(params)]` followed by `;` (a declaration) or a body.
    fn func(&mut self, linkage: Linkage, line: u32) -> Result<Func, PtxError> {
        let mut rets = Vec::new();
        if self.eat_punct('(') {
            rets = self.param_list()?;
        }
        let name = self.expect_word("the function name")?;
        let mut f = Func { linkage, rets, def: Entry::new(name), defined: true };
        if self.eat_punct('(') {
            f.def.params = self.param_list()?;
        }
        loop {
            match self.peek().cloned() {
                Some(Tok::Comment(..)) => self.pos += 1,
                Some(Tok::Punct(';')) => {
                    self.pos += 1;
                    f.defined = false;
                    return Ok(f);
                }
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    if linkage == Linkage::Extern {
                        return Err(syntax(
                            line,
                            format!("'.extern' function '{}' has a body", f.def.name),
                        ));
                    }
                    self.body(&mut f.def)?;
                    return Ok(f);
                }
                t => {
                    return Err(unsupported(
                        self.line(),
                        format!(
                            "{} after the parameters of function '{}'; expected ';' or '{{'",
                            describe(t.as_ref()),
                            f.def.name
                        ),
                    ))
                }
            }
        }
    }

    /// `.param .u64 name` (LLVM may add `.ptr .global .align N`), or a byte array
    /// `.param .align 16 .b8 name[16]`.
    fn param(&mut self) -> Result<Param, PtxError> {
        let line = self.line();
        let w = self.expect_word("'.param'")?;
        if w == ".reg" {
            return Err(unsupported(line, "register parameters (.reg) of a function"));
        }
        if w != ".param" {
            return Err(syntax(line, format!("expected '.param', found '{w}'")));
        }
        let mut align = None;
        let mut ty = None;
        loop {
            match self.peek() {
                Some(Tok::Word(w))
                    if w == ".ptr"
                        || w == ".global"
                        || w == ".shared"
                        || w == ".const"
                        || w == ".local" =>
                {
                    self.pos += 1
                }
                Some(Tok::Word(w)) if w == ".align" => {
                    self.pos += 1;
                    align = Some(self.expect_u32("alignment")?);
                }
                Some(Tok::Word(w)) if w.starts_with('.') && ty.is_none() => {
                    ty = Some(self.expect_type()?);
                }
                _ => break,
            }
        }
        let ty = ty.ok_or_else(|| syntax(line, "parameter without a type"))?;
        let name = self.expect_word("a parameter name")?;
        let mut len = None;
        if self.eat_punct('[') {
            if self.is_punct(']') {
                return Err(unsupported(line, format!("unsized array parameter '{name}'")));
            }
            len = Some(self.expect_u64("array length")?);
            self.expect_punct(']', "after the array length")?;
        }
        // `.ptr .global .align N` after a pointer's type says where it points; the
        // alignment kept is that of a byte array.
        if len.is_none() && ty.bits() != 8 {
            align = None;
        }
        Ok(Param { ty, name, align, len })
    }

    /// The statements of a body after its opening `{`, up to and including the matching `}`.
    fn body(&mut self, e: &mut Entry) -> Result<(), PtxError> {
        let mut regs = Regs { scopes: vec![Scope::default()], next: [0; 4] };
        let open_line = self.line();
        loop {
            let line = self.line();
            let Some(tok) = self.peek().cloned() else {
                return Err(syntax(open_line, format!("'{}' has no closing '}}'", e.name)));
            };
            match tok {
                Tok::Punct('}') => {
                    self.pos += 1;
                    regs.scopes.pop();
                    if regs.scopes.is_empty() {
                        return Ok(());
                    }
                    e.body.push(Statement::BlockEnd);
                }
                Tok::Punct('{') => {
                    self.pos += 1;
                    regs.scopes.push(Scope::default());
                    e.body.push(Statement::BlockStart);
                }
                Tok::Comment(text, own_line) => {
                    self.pos += 1;
                    if own_line {
                        e.body.push(Statement::Comment(
                            text.strip_prefix(' ').unwrap_or(&text).to_string(),
                        ));
                    }
                }
                Tok::Word(w) if w == ".reg" => {
                    self.pos += 1;
                    self.reg_decl(&mut regs, line)?;
                }
                Tok::Word(w)
                    if matches!(w.as_str(), ".shared" | ".local" | ".global" | ".const") =>
                {
                    self.pos += 1;
                    let v = self.var_decl(&w, line)?;
                    e.vars.push(v);
                }
                Tok::Word(w) if w == ".param" => {
                    self.pos += 1;
                    let v = self.var_decl(&w, line)?;
                    e.body.push(Statement::Decl(v));
                }
                Tok::Word(w) if w == ".loc" || w == ".file" => self.skip_line(line),
                Tok::Word(w) if w == ".pragma" => {
                    self.pos += 1;
                    let text = match self.next() {
                        Some(Tok::Str(s)) => s,
                        t => {
                            return Err(syntax(
                                line,
                                format!("expected a quoted pragma, found {}", describe(t.as_ref())),
                            ))
                        }
                    };
                    self.expect_punct(';', "after the pragma")?;
                    e.body.push(Statement::Pragma(text));
                }
                Tok::Word(w) if self.peek_at(1) == Some(&Tok::Punct(':')) => {
                    if self.peek_at(2) == Some(&Tok::Word(".callprototype".into())) {
                        return Err(unsupported(
                            line,
                            format!("'.callprototype' '{w}': indirect calls are not supported"),
                        ));
                    }
                    self.pos += 2;
                    e.body.push(Statement::Label(w));
                }
                Tok::Word(w) if w.starts_with('.') => {
                    return Err(unsupported(line, format!("directive '{w}' inside '{}'", e.name)))
                }
                Tok::Word(_) | Tok::Punct('@') => {
                    let i = self.instruction(&regs)?;
                    e.body.push(Statement::Inst(i));
                }
                t => {
                    return Err(syntax(
                        line,
                        format!("unexpected {} in '{}'", describe(Some(&t)), e.name),
                    ))
                }
            }
        }
    }

    /// `.reg .b32 %r<10>;` or `.reg .b32 %a, %b;` after `.reg` (LLVM also declares names
    /// without `%`: `.reg .b32 temp;`).
    fn reg_decl(&mut self, regs: &mut Regs, line: u32) -> Result<(), PtxError> {
        let ty = self.expect_type()?;
        let kind = reg_kind_of(ty).ok_or_else(|| {
            unsupported(line, format!("registers of type .{ty}; use 16, 32 or 64 bits"))
        })?;
        loop {
            let (name, bare) = match self.next() {
                Some(Tok::Reg(n)) => (n, false),
                Some(Tok::Word(n)) if !n.starts_with('.') && n != "_" => (n, true),
                t => {
                    return Err(syntax(
                        line,
                        format!("expected a register name, found {}", describe(t.as_ref())),
                    ))
                }
            };
            let overflow = || unsupported(line, "too many registers");
            if bare {
                if self.is_punct('<') {
                    return Err(unsupported(
                        line,
                        format!("register range '{name}<..>' without '%'"),
                    ));
                }
                let base = regs.alloc(kind, 1).ok_or_else(overflow)?;
                if let Some(s) = regs.scopes.last_mut() {
                    s.words.insert(name, Reg { kind, num: base });
                }
            } else if self.eat_punct('<') {
                let count = self.expect_u32("register count")?;
                self.expect_punct('>', "after the register count")?;
                let base = regs.alloc(kind, count).ok_or_else(overflow)?;
                if let Some(s) = regs.scopes.last_mut() {
                    s.ranges.insert(name, (kind, base, count));
                }
            } else {
                let base = regs.alloc(kind, 1).ok_or_else(overflow)?;
                if let Some(s) = regs.scopes.last_mut() {
                    s.singles.insert(name, Reg { kind, num: base });
                }
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';', "after the register declaration")
    }

    fn register(&self, regs: &Regs, name: &str, line: u32) -> Result<Reg, PtxError> {
        regs.lookup(name).ok_or_else(|| {
            PtxError::at_line(
                PtxErrorKind::UndeclaredRegister,
                line,
                format!("register '%{name}' is not declared"),
            )
        })
    }

    fn instruction(&mut self, regs: &Regs) -> Result<Instruction, PtxError> {
        let line = self.line();
        let mut guard = None;
        if self.eat_punct('@') {
            let negated = self.eat_punct('!');
            let reg = match self.next() {
                Some(Tok::Reg(n)) => self.register(regs, &n, line)?,
                t => {
                    return Err(syntax(
                        line,
                        format!("expected a predicate after '@', found {}", describe(t.as_ref())),
                    ))
                }
            };
            guard = Some(Guard { reg, negated });
        }
        let word = self.expect_word("an instruction")?;
        let mut parts = word.split('.');
        let op_name = parts.next().unwrap_or("");
        let op = Opcode::from_name(op_name).ok_or_else(|| {
            unsupported(line, format!("instruction '{op_name}' is not in the supported subset"))
        })?;
        let mut mods = Vec::new();
        for p in parts {
            let m = Modifier::parse(op, p)
                .ok_or_else(|| unsupported(line, format!("modifier '.{p}' of '{op_name}'")))?;
            mods.push(m);
        }
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand(regs)?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',', "between operands")?;
            }
        }
        Ok(Instruction { guard, op, mods, operands })
    }

    fn operand(&mut self, regs: &Regs) -> Result<Operand, PtxError> {
        let line = self.line();
        match self.next() {
            Some(Tok::Punct('!')) => match self.next() {
                Some(Tok::Reg(n)) => Ok(Operand::Not(self.register(regs, &n, line)?)),
                t => Err(syntax(
                    line,
                    format!("expected a predicate after '!', found {}", describe(t.as_ref())),
                )),
            },
            Some(Tok::Reg(n)) => {
                if let Some(s) = SpecialReg::from_name(&n) {
                    return Ok(Operand::Special(s));
                }
                let r = self.register(regs, &n, line)?;
                if self.eat_punct('|') {
                    return match self.next() {
                        Some(Tok::Reg(n2)) => Ok(Operand::Pair(r, self.register(regs, &n2, line)?)),
                        t => Err(syntax(
                            line,
                            format!(
                                "expected a register after '|', found {}",
                                describe(t.as_ref())
                            ),
                        )),
                    };
                }
                Ok(Operand::Reg(r))
            }
            Some(Tok::Punct('{')) => {
                let mut v = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        // PTX brace lists are flat; refusing nesting also bounds recursion.
                        if self.is_punct('{') || self.is_punct('(') || self.is_punct('[') {
                            return Err(syntax(line, "brace lists cannot be nested"));
                        }
                        v.push(self.operand(regs)?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',', "between vector elements")?;
                    }
                }
                Ok(Operand::Vector(v))
            }
            Some(Tok::Punct('(')) => {
                let mut v = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        if self.is_punct('(') || self.is_punct('{') {
                            return Err(syntax(line, "parenthesized lists cannot be nested"));
                        }
                        v.push(self.operand(regs)?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',', "between list elements")?;
                    }
                }
                Ok(Operand::List(v))
            }
            Some(Tok::Punct('[')) => {
                let base = match self.next() {
                    Some(Tok::Reg(n)) => AddrBase::Reg(self.register(regs, &n, line)?),
                    Some(Tok::Word(w)) => match regs.word(&w) {
                        Some(r) => AddrBase::Reg(r),
                        None => AddrBase::Symbol(w),
                    },
                    t => {
                        return Err(unsupported(
                            line,
                            format!(
                                "address base {}; expected a register or a name",
                                describe(t.as_ref())
                            ),
                        ))
                    }
                };
                // `[%rd1, {%r1, %r2}]`: a texture or surface object and its coordinates.
                if self.eat_punct(',') {
                    let AddrBase::Reg(handle) = base else {
                        return Err(unsupported(line, "a texture named by a symbol"));
                    };
                    return match self.operand(regs)? {
                        Operand::Vector(c) => {
                            self.expect_punct(']', "to close the texture access")?;
                            Ok(Operand::Texel(handle, c))
                        }
                        _ => Err(syntax(line, "expected coordinates in braces after the object")),
                    };
                }
                let mut offset = 0i64;
                if self.is_punct('+') || self.is_punct('-') {
                    let mut neg = self.eat_punct('-');
                    if !neg {
                        self.pos += 1;
                        neg = self.eat_punct('-');
                    }
                    offset = match self.next() {
                        Some(Tok::Num(n)) => match number(&n, line)? {
                            Operand::Imm(v) => v,
                            Operand::ImmHex(v) => i64::try_from(v)
                                .map_err(|_| syntax(line, "address offset too large"))?,
                            _ => return Err(syntax(line, format!("bad address offset '{n}'"))),
                        },
                        t => {
                            return Err(syntax(
                                line,
                                format!("expected an offset, found {}", describe(t.as_ref())),
                            ))
                        }
                    };
                    if neg {
                        offset = -offset;
                    }
                }
                self.expect_punct(']', "to close the address")?;
                Ok(Operand::Address(Address { base, offset }))
            }
            Some(Tok::Punct('-')) => match self.next() {
                Some(Tok::Num(n)) => {
                    let magnitude = match number(&n, line)? {
                        Operand::Imm(v) => i128::from(v),
                        Operand::ImmHex(v) => i128::from(v),
                        _ => return Err(syntax(line, format!("cannot negate '{n}'"))),
                    };
                    i64::try_from(-magnitude)
                        .map(Operand::Imm)
                        .map_err(|_| syntax(line, format!("'-{n}' does not fit in 64 bits")))
                }
                t => Err(syntax(
                    line,
                    format!("expected a number after '-', found {}", describe(t.as_ref())),
                )),
            },
            Some(Tok::Num(n)) => number(&n, line),
            Some(Tok::Word(w)) if w == "_" => Ok(Operand::Sink),
            Some(Tok::Word(w)) if !w.starts_with('.') => match regs.word(&w) {
                // A register declared without `%` (`.reg .b32 temp;`).
                Some(r) => Ok(Operand::Reg(r)),
                None => Ok(Operand::Symbol(w)),
            },
            t => Err(syntax(line, format!("expected an operand, found {}", describe(t.as_ref())))),
        }
    }
}

#[cfg(test)]
mod tests;
