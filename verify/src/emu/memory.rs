//! Emulated memory: host buffers as global memory, shared memory per CTA, local memory per
//! thread, and the generic address space that maps onto all three.

use dianran_ptx::StateSpace;

/// Generic address of shared offset 0 (the window is 256 MiB).
pub const SHARED_WINDOW: u64 = 0x1000_0000;
/// Generic address of local offset 0 (the window is 256 MiB).
pub const LOCAL_WINDOW: u64 = 0x2000_0000;
/// The size of the shared and local windows of the generic address space.
pub(crate) const WINDOW: u64 = 0x1000_0000;

/// Global (and generic) address of the module's `.global` and `.const` variables (one
/// region, laid out in declaration order, initialized from their initializers).
pub const MODULE_BASE: u64 = 0x7FFF_0000_0000_0000;

/// `.param` address of byte 0 of a thread's own parameter memory: the parameters and
/// results of device functions and the argument variables of call sequences. Smaller
/// `.param` addresses are the kernel's parameters, common to all threads.
pub(crate) const THREAD_PARAM: u64 = 1 << 40;

/// Global (and generic) address of byte 0 of parameter buffer `i`.
pub fn global_base(i: usize) -> u64 {
    (i as u64 + 1) << 32
}

/// The memory a CTA sees.
pub(crate) struct Mem<'a> {
    pub global: &'a mut [Vec<u8>],
    /// The texture or surface object each parameter names (`None`: a buffer); may be shorter
    /// than the parameter list.
    pub textures: &'a mut [Option<super::texture::TexObject>],
    /// The module's `.global`/`.const` variables at [`MODULE_BASE`].
    pub module: Vec<u8>,
    pub shared: Vec<u8>,
    /// Every thread's local bytes, `local_size` each.
    pub local: Vec<u8>,
    pub local_size: usize,
    /// The kernel's parameters as the entry reads them (`.param` addresses from 0).
    pub kparams: Vec<u8>,
    /// Every thread's function parameter bytes, `tparam_size` each (from [`THREAD_PARAM`]).
    pub tparams: Vec<u8>,
    pub tparam_size: usize,
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
            StateSpace::Param if off >= THREAD_PARAM => {
                let len = self.tparam_size;
                let start = off - THREAD_PARAM;
                match usize::try_from(start).ok().and_then(|s| Some(s..s.checked_add(size)?)) {
                    Some(r) if r.end <= len => {
                        let base = t * len;
                        self.tparams.get_mut(base + r.start..base + r.end).ok_or_else(String::new)
                    }
                    _ => Err(format!(
                        "function parameter offset {start} ({size} bytes) is outside the {len} bytes of parameters"
                    )),
                }
            }
            StateSpace::Param => {
                let len = self.kparams.len();
                match range(len) {
                    Some(r) => self.kparams.get_mut(r).ok_or_else(String::new),
                    None => Err(format!(
                        "kernel parameter offset {off} ({size} bytes) is outside the {len} bytes of parameters"
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
        if space == StateSpace::Param && addr < THREAD_PARAM {
            return Err(format!("kernel parameter offset {addr} is read-only"));
        }
        let b = self.bytes(space, addr, size, t)?;
        b.copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(())
    }

    /// Copies `size` bytes of thread `t`'s parameter memory from `src` to `dst` (both
    /// `.param` addresses): call arguments and results.
    pub fn copy_param(&mut self, src: u64, dst: u64, size: usize, t: usize) -> Result<(), String> {
        let v = self.bytes(StateSpace::Param, src, size, t)?.to_vec();
        if dst < THREAD_PARAM {
            return Err(format!("kernel parameter offset {dst} is read-only"));
        }
        self.bytes(StateSpace::Param, dst, size, t)?.copy_from_slice(&v);
        Ok(())
    }
}
