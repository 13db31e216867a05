//! The reference interpreter: runs a compute entry point of the SSA form with WGSL semantics.
