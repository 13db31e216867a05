//! Per-kernel facts read from a cubin (the ELF file `ptxas` writes) with the `object` crate,
//! instead of scraping `ptxas -v` text.
//!
//! Where each fact lives (checked against `ptxas -v` on every sample by
//! `verify/tests/cubin_stats.rs`):
//! * `.text.<kernel>`: the machine code; its size is the code size. The top byte of the
//!   section header's `sh_info` is the register count per thread in most cubins (the low bits
//!   are the kernel's symbol index), but it is 0 in some, so `EIATTR_REGCOUNT` wins.
//! * `.nv.shared.<kernel>`: static shared memory (a `NOBITS` section; its size). In cubins
//!   that also hold a `.nv.shared.reserved.*` section (sm_90), the first 1 KiB of it is the
//!   system's reservation (`.nv.reservedSmem.offset0`), not the kernel's data.
//! * `.nv.info`: attribute records `format:u8, attribute:u8, ...`. Format 4 (`EIFMT_SVAL`)
//!   is followed by a `u16` length and that many bytes; per-kernel values there are
//!   `(symbol index: u32, value: u32)`. Attribute 0x11 (`EIATTR_FRAME_SIZE`) is the stack
//!   frame in bytes (local arrays and spills), 0x2f (`EIATTR_REGCOUNT`) the register count.
//!   Formats 1 (`NVAL`), 2 (`BVAL`) and 3 (`HVAL`) carry two more bytes.

use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::{Endianness, Object, ObjectSection, ObjectSymbol};
use std::collections::BTreeMap;

/// What one kernel of a cubin uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelFacts {
    /// The entry's name.
    pub kernel: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory in bytes: the kernel's own `.shared` data, what `ptxas -v` calls
    /// `smem`.
    pub shared_bytes: u64,
    /// Shared memory the cubin reserves for the system in front of the kernel's own (1 KiB in
    /// sm_90 cubins whose kernel uses shared memory; 0 otherwise).
    pub reserved_shared_bytes: u64,
    /// Stack frame in bytes (`.local` arrays and register spills).
    pub stack_bytes: u32,
    /// Machine code in bytes.
    pub code_bytes: u64,
}

/// `EIATTR_FRAME_SIZE`.
const ATTR_FRAME_SIZE: u8 = 0x11;
/// `EIATTR_REGCOUNT`.
const ATTR_REGCOUNT: u8 = 0x2f;
/// The system's shared-memory reservation in front of a kernel's own (sm_90 cubins).
const RESERVED_SHARED: u64 = 1024;
/// `EIFMT_SVAL`: a record with a length and a payload.
const FMT_SVAL: u8 = 4;

/// The kernels of `cubin` in section order, or why it could not be read.
pub fn read(cubin: &[u8]) -> Result<Vec<KernelFacts>, String> {
    let elf = ElfFile64::<Endianness>::parse(cubin).map_err(|e| format!("not an ELF file: {e}"))?;
    let endian = elf.elf_header().endian().map_err(|e| format!("bad ELF header: {e}"))?;
    let mut kernels: Vec<KernelFacts> = Vec::new();
    let mut shared: BTreeMap<String, u64> = BTreeMap::new();
    let mut frames: BTreeMap<u32, u32> = BTreeMap::new();
    let mut regcounts: BTreeMap<u32, u32> = BTreeMap::new();
    let mut reserved = false;
    for section in elf.sections() {
        let name = section.name().map_err(|e| format!("section name: {e}"))?;
        if let Some(k) = name.strip_prefix(".text.") {
            let info = section.elf_section_header().sh_info(endian);
            kernels.push(KernelFacts {
                kernel: k.to_string(),
                registers: info >> 24,
                code_bytes: section.size(),
                ..Default::default()
            });
        } else if name.starts_with(".nv.shared.reserved.") {
            reserved = true;
        } else if let Some(k) = name.strip_prefix(".nv.shared.") {
            shared.insert(k.to_string(), section.size());
        } else if name == ".nv.info" {
            let data = section.data().map_err(|e| format!(".nv.info: {e}"))?;
            for (attr, payload) in records(data)? {
                let (Some(sym), Some(value)) = (word(payload, 0), word(payload, 4)) else {
                    continue;
                };
                match attr {
                    ATTR_FRAME_SIZE => {
                        frames.insert(sym, value);
                    }
                    ATTR_REGCOUNT => {
                        regcounts.insert(sym, value);
                    }
                    _ => {}
                }
            }
        }
    }
    // Per-kernel attributes name the kernel by its symbol.
    let mut by_name: BTreeMap<String, u32> = BTreeMap::new();
    for sym in elf.symbols() {
        if let Ok(n) = sym.name() {
            by_name.insert(n.to_string(), sym.index().0 as u32);
        }
    }
    for k in &mut kernels {
        let total = shared.get(&k.kernel).copied().unwrap_or(0);
        k.reserved_shared_bytes =
            if reserved && total > 0 { RESERVED_SHARED.min(total) } else { 0 };
        k.shared_bytes = total - k.reserved_shared_bytes;
        if let Some(sym) = by_name.get(&k.kernel) {
            k.stack_bytes = frames.get(sym).copied().unwrap_or(0);
            // The attribute when present: the header's byte is 0 in some cubins (seen for
            // sm_90 kernels).
            if let Some(&r) = regcounts.get(sym) {
                k.registers = r;
            }
        }
    }
    Ok(kernels)
}

/// The `(attribute, payload)` records of an `.nv.info` section.
fn records(mut data: &[u8]) -> Result<Vec<(u8, &[u8])>, String> {
    let mut out = Vec::new();
    while data.len() >= 4 {
        let (format, attr) = (data[0], data[1]);
        if format == FMT_SVAL {
            let len = usize::from(u16::from_le_bytes([data[2], data[3]]));
            let payload = data.get(4..4 + len).ok_or(".nv.info record runs past its section")?;
            out.push((attr, payload));
            data = &data[4 + len..];
        } else {
            out.push((attr, &data[2..4]));
            data = &data[4..];
        }
    }
    Ok(out)
}

/// The little-endian u32 at byte `at` of `b`.
fn word(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// The facts as a tab-separated table: one line per kernel, after a header.
pub fn table(kernels: &[KernelFacts]) -> String {
    let mut out = String::from(
        "KERNEL\tREGISTERS\tSHARED_BYTES\tRESERVED_SHARED_BYTES\tSTACK_BYTES\tCODE_BYTES\n",
    );
    for k in kernels {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            k.kernel,
            k.registers,
            k.shared_bytes,
            k.reserved_shared_bytes,
            k.stack_bytes,
            k.code_bytes
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_each_format() {
        // SVAL frame size for symbol 6 (32 bytes), then an HVAL record, then a truncated one.
        let data = [
            4, 0x11, 8, 0, 6, 0, 0, 0, 32, 0, 0, 0, //
            3, 0x1b, 0xff, 0, //
        ];
        let r = records(&data).expect("reads");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0, ATTR_FRAME_SIZE);
        assert_eq!((word(r[0].1, 0), word(r[0].1, 4)), (Some(6), Some(32)));
        assert_eq!(r[1], (0x1b, &[0xff, 0][..]));
        assert!(records(&[4, 0x11, 8, 0, 1]).is_err());
        assert!(read(b"not elf").is_err());
    }
}
