//! Host buffers by (group, binding), laid out by WGSL's host-shareable rules.

/// Buffer contents by (group, binding).
pub type Buffers = std::collections::BTreeMap<(u32, u32), Vec<u8>>;
