//! Source preprocessing before naga sees the text (`enable subgroups;`).
