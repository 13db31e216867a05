//! Checks naga's validator misses (cooperative matrices; see dependencies.md).
