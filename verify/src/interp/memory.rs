//! Memory regions and typed loads and stores in WGSL's host-shareable layout.
//!
//! A pointer value is `[region, byte offset]`. Regions: the invocation's function-local stack,
//! the invocation's private globals, the workgroup's shared memory, and one region per bound
//! buffer. Every access is bounds-checked against its region; nothing is clamped.

use super::value::{internal, runtime, type_name, unsupported};
use dianran_frontend::ir::{CoopElem, Scalar, Type, TypeId, Types};
use dianran_frontend::Diagnostic;

/// Region of function-local variables (per invocation).
pub(crate) const REGION_STACK: u32 = 0;
/// Region of `var<private>` globals (per invocation).
pub(crate) const REGION_PRIVATE: u32 = 1;
/// Region of `var<workgroup>` globals (per workgroup).
pub(crate) const REGION_WORKGROUP: u32 = 2;
/// First buffer region; buffer `i` of [`Memory::buffers`] is region `REGION_BUFFER0 + i`.
pub(crate) const REGION_BUFFER0: u32 = 3;
/// The byte offset of a pointer made with an index out of range: no access through it is in
/// bounds, and the error says why.
pub(crate) const POISON: u32 = u32::MAX;

/// All memory an executing workgroup can reach.
pub(crate) struct Memory {
    /// Function-local stacks, one per invocation.
    pub stacks: Vec<Vec<u8>>,
    /// Private globals, one block per invocation.
    pub privates: Vec<Vec<u8>>,
    /// Workgroup memory.
    pub workgroup: Vec<u8>,
    /// Bound buffers.
    pub buffers: Vec<Vec<u8>>,
    /// Buffer descriptions for messages: `'name' (@group(g) @binding(b))`.
    pub buffer_names: Vec<String>,
    /// Whether each buffer may be written.
    pub buffer_writable: Vec<bool>,
}

impl Memory {
    /// Human-readable name of a region.
    pub(crate) fn region_name(&self, region: u32) -> String {
        match region {
            REGION_STACK => "function memory".to_string(),
            REGION_PRIVATE => "private memory".to_string(),
            REGION_WORKGROUP => "workgroup memory".to_string(),
            r => match self.buffer_names.get((r - REGION_BUFFER0) as usize) {
                Some(n) => format!("buffer {n}"),
                None => format!("unknown region {r}"),
            },
        }
    }

    /// Byte length of a region as seen by `lane`.
    pub(crate) fn region_len(&self, lane: usize, region: u32) -> usize {
        self.bytes(lane, region).map_or(0, |b| b.len())
    }

    fn bytes(&self, lane: usize, region: u32) -> Option<&[u8]> {
        match region {
            REGION_STACK => self.stacks.get(lane).map(|v| v.as_slice()),
            REGION_PRIVATE => self.privates.get(lane).map(|v| v.as_slice()),
            REGION_WORKGROUP => Some(&self.workgroup),
            r => self.buffers.get((r - REGION_BUFFER0) as usize).map(|v| v.as_slice()),
        }
    }

    fn bytes_mut(&mut self, lane: usize, region: u32) -> Option<&mut Vec<u8>> {
        match region {
            REGION_STACK => self.stacks.get_mut(lane),
            REGION_PRIVATE => self.privates.get_mut(lane),
            REGION_WORKGROUP => Some(&mut self.workgroup),
            r => self.buffers.get_mut((r - REGION_BUFFER0) as usize),
        }
    }

    fn check(
        &self,
        lane: usize,
        ptr: [u32; 2],
        size: u32,
        what: &str,
    ) -> Result<usize, Diagnostic> {
        let len = self.region_len(lane, ptr[0]);
        if ptr[1] == POISON {
            return Err(runtime(format!(
                "{what} through an index out of bounds in {} outside the bounds policy's guard",
                self.region_name(ptr[0])
            )));
        }
        let start = ptr[1] as usize;
        if start + size as usize > len {
            return Err(runtime(format!(
                "out-of-bounds {what} of {size} bytes at byte offset {start} in {}, which holds {len} bytes",
                self.region_name(ptr[0])
            )));
        }
        Ok(start)
    }

    /// Loads a value of type `ty` from `ptr`, appending its words to `out`.
    pub(crate) fn load(
        &self,
        types: &Types,
        lane: usize,
        ptr: [u32; 2],
        ty: TypeId,
        out: &mut Vec<u32>,
    ) -> Result<(), Diagnostic> {
        let size = sized(types, ty)?;
        let start = self.check(lane, ptr, size, "read")?;
        let bytes = self.bytes(lane, ptr[0]).unwrap_or(&[]);
        decode(types, bytes, start, ty, out)
    }

    /// Stores `words` (a value of type `ty`) to `ptr`.
    pub(crate) fn store(
        &mut self,
        types: &Types,
        lane: usize,
        ptr: [u32; 2],
        ty: TypeId,
        words: &[u32],
    ) -> Result<(), Diagnostic> {
        let (bytes, start) = self.writable(lane, ptr, sized(types, ty)?)?;
        let mut pos = 0;
        encode(types, bytes, start, ty, words, &mut pos)
    }

    /// Reads one scalar of `s` at `ptr` (atomics).
    pub(crate) fn load_scalar(
        &self,
        lane: usize,
        ptr: [u32; 2],
        s: Scalar,
    ) -> Result<u32, Diagnostic> {
        let start = self.check(lane, ptr, s.size(), "read")?;
        let bytes = self.bytes(lane, ptr[0]).unwrap_or(&[]);
        Ok(read_scalar(bytes, start, s))
    }

    /// Writes one scalar of `s` at `ptr` (atomics).
    pub(crate) fn store_scalar(
        &mut self,
        lane: usize,
        ptr: [u32; 2],
        s: Scalar,
        w: u32,
    ) -> Result<(), Diagnostic> {
        let (bytes, start) = self.writable(lane, ptr, s.size())?;
        write_scalar(bytes, start, s, w);
        Ok(())
    }

    /// Reads one cooperative-matrix element at `ptr`, as its shader scalar's word (a byte
    /// element sign- or zero-extended).
    pub(crate) fn load_elem(
        &self,
        lane: usize,
        ptr: [u32; 2],
        e: CoopElem,
    ) -> Result<u32, Diagnostic> {
        let start = self.check(lane, ptr, e.size(), "read")?;
        let bytes = self.bytes(lane, ptr[0]).unwrap_or(&[]);
        Ok(read_elem(bytes, start, e))
    }

    /// Writes one cooperative-matrix element at `ptr` (a byte element's low byte).
    pub(crate) fn store_elem(
        &mut self,
        lane: usize,
        ptr: [u32; 2],
        e: CoopElem,
        w: u32,
    ) -> Result<(), Diagnostic> {
        let (bytes, start) = self.writable(lane, ptr, e.size())?;
        write_elem(bytes, start, e, w);
        Ok(())
    }

    /// The bytes of `ptr`'s region and the offset of a `size`-byte write at `ptr`, checked
    /// in range and writable.
    fn writable(
        &mut self,
        lane: usize,
        ptr: [u32; 2],
        size: u32,
    ) -> Result<(&mut [u8], usize), Diagnostic> {
        let start = self.check(lane, ptr, size, "write")?;
        if ptr[0] >= REGION_BUFFER0
            && !self
                .buffer_writable
                .get((ptr[0] - REGION_BUFFER0) as usize)
                .copied()
                .unwrap_or(false)
        {
            return Err(runtime(format!("write to read-only {}", self.region_name(ptr[0]))));
        }
        match self.bytes_mut(lane, ptr[0]) {
            Some(b) => Ok((b, start)),
            None => Err(internal("store to a missing memory region")),
        }
    }
}

/// The byte size of a type that can be loaded or stored as a whole.
fn sized(types: &Types, ty: TypeId) -> Result<u32, Diagnostic> {
    match types.get(ty) {
        Type::Array { len: None, .. } => {
            Err(internal("a runtime-sized array cannot be loaded or stored as a whole"))
        }
        Type::Struct { members, .. } => {
            if let Some(last) = members.last() {
                if matches!(types.get(last.ty), Type::Array { len: None, .. }) {
                    return Err(internal("a struct with a runtime-sized array cannot be loaded"));
                }
            }
            Ok(types.size_align(ty).0)
        }
        Type::Pointer { .. } | Type::Image { .. } | Type::Sampler { .. } => Err(unsupported(
            format!("the interpreter cannot keep a {} in memory", type_name(types, ty)),
        )),
        // A matrix in function or private memory: its elements, row-major, each at its
        // element size (the same bytes for every lane's copy).
        Type::CoopMatrix { .. } => Ok(types.size_align(ty).0),
        _ => Ok(types.size_align(ty).0),
    }
}

/// A cooperative-matrix element at `at`, as its shader scalar's word (bytes sign- or
/// zero-extended).
fn read_elem(bytes: &[u8], at: usize, e: CoopElem) -> u32 {
    let byte = bytes.get(at).copied().unwrap_or(0);
    match e {
        CoopElem::I8 => byte as i8 as i32 as u32,
        CoopElem::U8 => u32::from(byte),
        _ => read_scalar(bytes, at, e.scalar()),
    }
}

/// Writes a cooperative-matrix element (a byte element's low byte).
fn write_elem(bytes: &mut [u8], at: usize, e: CoopElem, w: u32) {
    if e.is_byte() {
        if let Some(x) = bytes.get_mut(at) {
            *x = w as u8;
        }
    } else {
        write_scalar(bytes, at, e.scalar(), w);
    }
}

fn read_scalar(bytes: &[u8], at: usize, s: Scalar) -> u32 {
    match s {
        Scalar::F16 => match bytes.get(at..at + 2) {
            Some(b) => u32::from(u16::from_le_bytes([b[0], b[1]])),
            None => 0,
        },
        _ => {
            let w = match bytes.get(at..at + 4) {
                Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                None => 0,
            };
            if s == Scalar::Bool {
                u32::from(w != 0)
            } else {
                w
            }
        }
    }
}

fn write_scalar(bytes: &mut [u8], at: usize, s: Scalar, w: u32) {
    match s {
        Scalar::F16 => {
            if let Some(b) = bytes.get_mut(at..at + 2) {
                b.copy_from_slice(&(w as u16).to_le_bytes());
            }
        }
        _ => {
            if let Some(b) = bytes.get_mut(at..at + 4) {
                b.copy_from_slice(&w.to_le_bytes());
            }
        }
    }
}

/// Byte distance between matrix columns: a column is aligned like a vector of `rows`.
pub(crate) fn column_stride(rows: u8, scalar: Scalar) -> u32 {
    scalar.size() * if rows == 2 { 2 } else { 4 }
}

fn decode(
    types: &Types,
    bytes: &[u8],
    at: usize,
    ty: TypeId,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    // A 64-bit scalar is two words read as two u32 halves, low first.
    let read = |out: &mut Vec<u32>, at: usize, s: Scalar| {
        if s.is_64() {
            out.push(read_scalar(bytes, at, Scalar::U32));
            out.push(read_scalar(bytes, at + 4, Scalar::U32));
        } else {
            out.push(read_scalar(bytes, at, s));
        }
    };
    match types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => read(out, at, *s),
        Type::Vector { size, scalar } => {
            for i in 0..*size as usize {
                read(out, at + i * scalar.size() as usize, *scalar);
            }
        }
        Type::Matrix { columns, rows, scalar } => {
            let cs = column_stride(*rows, *scalar) as usize;
            for c in 0..*columns as usize {
                for r in 0..*rows as usize {
                    read(out, at + c * cs + r * scalar.size() as usize, *scalar);
                }
            }
        }
        Type::Array { base, len: Some(n), stride } => {
            for i in 0..*n as usize {
                decode(types, bytes, at + i * *stride as usize, *base, out)?;
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                decode(types, bytes, at + m.offset as usize, m.ty, out)?;
            }
        }
        Type::CoopMatrix { columns, rows, elem, .. } => {
            for i in 0..usize::from(*columns) * usize::from(*rows) {
                out.push(read_elem(bytes, at + i * elem.size() as usize, *elem));
            }
        }
        _ => return Err(internal(format!("cannot load a {}", type_name(types, ty)))),
    }
    Ok(())
}

fn encode(
    types: &Types,
    bytes: &mut [u8],
    at: usize,
    ty: TypeId,
    words: &[u32],
    pos: &mut usize,
) -> Result<(), Diagnostic> {
    let next = |pos: &mut usize| -> Result<u32, Diagnostic> {
        let w = words.get(*pos).copied().ok_or_else(|| internal("stored value is too short"))?;
        *pos += 1;
        Ok(w)
    };
    // A 64-bit scalar is two words written as two u32 halves, low first.
    let write = |bytes: &mut [u8], at: usize, s: Scalar, pos: &mut usize| {
        if s.is_64() {
            write_scalar(bytes, at, Scalar::U32, next(pos)?);
            write_scalar(bytes, at + 4, Scalar::U32, next(pos)?);
        } else {
            write_scalar(bytes, at, s, next(pos)?);
        }
        Ok::<(), Diagnostic>(())
    };
    match types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => write(bytes, at, *s, pos)?,
        Type::Vector { size, scalar } => {
            for i in 0..*size as usize {
                write(bytes, at + i * scalar.size() as usize, *scalar, pos)?;
            }
        }
        Type::Matrix { columns, rows, scalar } => {
            let cs = column_stride(*rows, *scalar) as usize;
            for c in 0..*columns as usize {
                for r in 0..*rows as usize {
                    write(bytes, at + c * cs + r * scalar.size() as usize, *scalar, pos)?;
                }
            }
        }
        Type::Array { base, len: Some(n), stride } => {
            for i in 0..*n as usize {
                encode(types, bytes, at + i * *stride as usize, *base, words, pos)?;
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                encode(types, bytes, at + m.offset as usize, m.ty, words, pos)?;
            }
        }
        Type::CoopMatrix { columns, rows, elem, .. } => {
            for i in 0..usize::from(*columns) * usize::from(*rows) {
                write_elem(bytes, at + i * elem.size() as usize, *elem, next(pos)?);
            }
        }
        _ => return Err(internal(format!("cannot store a {}", type_name(types, ty)))),
    }
    Ok(())
}

/// Packs the words of a value of type `ty` tightly (each scalar at its memory size, no
/// padding), for `bitcast`.
pub(crate) fn pack_tight(types: &Types, ty: TypeId, words: &[u32], out: &mut Vec<u8>) {
    let s = types.scalar_of(ty).unwrap_or(Scalar::U32);
    for &w in words {
        if s == Scalar::F16 {
            out.extend_from_slice(&(w as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

/// Reads a tightly packed value of type `ty` (see [`pack_tight`]).
pub(crate) fn unpack_tight(types: &Types, ty: TypeId, n: usize, bytes: &[u8], out: &mut Vec<u32>) {
    let s = types.scalar_of(ty).unwrap_or(Scalar::U32);
    for i in 0..n {
        out.push(if s == Scalar::F16 {
            read_scalar(bytes, i * 2, Scalar::F16)
        } else {
            read_scalar(bytes, i * 4, Scalar::U32)
        });
    }
}
