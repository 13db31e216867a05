//! Emulated memory: host buffers as global memory, shared memory per CTA, local memory per
//! thread, and the generic address space that maps onto all three.

use dianran_ptx::StateSpace;

/// Generic address of shared offset 0 (the window is 256 MiB).
pub const SHARED_WINDOW: u64 = 0x1000_0000;
/// Generic address of local offset 0 (the window is 256 MiB).
pub const LOCAL_WINDOW: u64 = 0x2000_0000;
const WINDOW: u64 = 0x1000_0000;

/// Global (and generic) address of the module's `.global` and `.const` variables (one
/// region, laid out in declaration order, initialized from their initializers).
pub const MODULE_BASE: u64 = 0x7FFF_0000_0000_0000;

/// Global (and generic) address of byte 0 of parameter buffer `i`.
pub fn global_base(i: usize) -> u64 {
    (i as u64 + 1) << 32
}

/// The memory a CTA sees.
pub(crate) struct Mem<'a> {
    pub global: &'a mut [Vec<u8>],
    /// The module's `.global`/`.const` variables at [`MODULE_BASE`].
    pub module: Vec<u8>,
    pub shared: Vec<u8>,
    /// Every thread's local bytes, `local_size` each.
    pub local: Vec<u8>,
    pub local_size: usize,
}

/// Where an address points, in words for messages.
fn describe(space: StateSpace, addr: u64) -> String {
    match space {
        StateSpace::Generic => format!("generic address {addr:#x}"),
        s => format!("{} address {addr:#x}", s.name()),
    }
}

impl Mem<'_> {
    /// The `size` bytes at `addr` of `space` for thread `t`, or a message saying why the
    /// access is outside every buffer.
    pub fn bytes(
        &mut self,
        space: StateSpace,
        addr: u64,
        size: usize,
        t: usize,
    ) -> Result<&mut [u8], String> {
        let (space, off) = match space {
            StateSpace::Generic => {
                if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&addr) {
                    (StateSpace::Shared, addr - SHARED_WINDOW)
                } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&addr) {
                    (StateSpace::Local, addr - LOCAL_WINDOW)
                } else {
                    (StateSpace::Global, addr)
                }
            }
            s => (s, addr),
        };
        let range = |len: usize| -> Option<std::ops::Range<usize>> {
            let start = usize::try_from(off).ok()?;
            let end = start.checked_add(size)?;
            (end <= len).then_some(start..end)
        };
        if matches!(space, StateSpace::Global | StateSpace::Const) && off >= MODULE_BASE {
            let len = self.module.len();
            let start = usize::try_from(off - MODULE_BASE).ok();
            return match start.and_then(|s| Some(s..s.checked_add(size)?)).filter(|r| r.end <= len)
            {
                Some(r) => self.module.get_mut(r).ok_or_else(String::new),
                None => Err(format!(
                    "{} ({size} bytes) is outside the {len} bytes of the module's variables",
                    describe(space, addr)
                )),
            };
        }
        match space {
            StateSpace::Global => {
                let idx = (off >> 32).checked_sub(1).map(|i| i as usize);
                let inner = off & 0xffff_ffff;
                let n = self.global.len();
                match idx.and_then(|i| self.global.get_mut(i).map(|b| (i, b))) {
                    Some((i, buf)) => {
                        let len = buf.len();
                        let start = inner as usize;
                        match start.checked_add(size).filter(|&e| e <= len) {
                            Some(end) => buf.get_mut(start..end).ok_or_else(String::new),
                            None => Err(format!(
                                "{} ({size} bytes) is outside buffer {i} (parameter {i}, {len} bytes): offset {inner}",
                                describe(space, addr)
                            )),
                        }
                    }
                    None => Err(format!(
                        "{} ({size} bytes) is not in any of the {n} buffers",
                        describe(space, addr)
                    )),
                }
            }
            StateSpace::Shared => {
                let len = self.shared.len();
                match range(len) {
                    Some(r) => self.shared.get_mut(r).ok_or_else(String::new),
                    None => Err(format!(
                        "shared offset {off} ({size} bytes) is outside the {len} bytes of shared memory"
                    )),
                }
            }
            StateSpace::Local => {
                let len = self.local_size;
                match range(len) {
                    Some(r) => {
                        let base = t * len;
                        self.local.get_mut(base + r.start..base + r.end).ok_or_else(String::new)
                    }
                    None => Err(format!(
                        "local offset {off} ({size} bytes) is outside the {len} bytes of local memory"
                    )),
                }
            }
            s => {
                Err(format!("loads and stores in .{} are not supported by the emulator", s.name()))
            }
        }
    }

    /// Reads `size` (1, 2, 4, 8) bytes little-endian.
    pub fn load(
        &mut self,
        space: StateSpace,
        addr: u64,
        size: usize,
        t: usize,
    ) -> Result<u64, String> {
        let b = self.bytes(space, addr, size, t)?;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    }

    /// Writes the low `size` bytes of `value` little-endian.
    pub fn store(
        &mut self,
        space: StateSpace,
        addr: u64,
        size: usize,
        value: u64,
        t: usize,
    ) -> Result<(), String> {
        let b = self.bytes(space, addr, size, t)?;
        b.copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(())
    }
}
