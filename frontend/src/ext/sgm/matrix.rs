//! Subgroup matrix types as the extension spells them, and the opaque structs naga sees.

use crate::ir::{CoopElem, CoopRole};

/// Which operand of a product a matrix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `subgroup_matrix_left` (M rows × K columns).
    Left,
    /// `subgroup_matrix_right` (K rows × N columns).
    Right,
    /// `subgroup_matrix_result` (M rows × N columns).
    Result,
}

impl Kind {
    /// The kind a type name spells.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "subgroup_matrix_left" => Kind::Left,
            "subgroup_matrix_right" => Kind::Right,
            "subgroup_matrix_result" => Kind::Result,
            _ => return None,
        })
    }
    /// The word after `subgroup_matrix_`.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Left => "left",
            Kind::Right => "right",
            Kind::Result => "result",
        }
    }
    /// The IR role.
    pub fn role(self) -> CoopRole {
        match self {
            Kind::Left => CoopRole::A,
            Kind::Right => CoopRole::B,
            Kind::Result => CoopRole::C,
        }
    }
}

/// `subgroup_matrix_<kind><elem, cols, rows>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatTy {
    /// Left, right or result.
    pub kind: Kind,
    /// Element type.
    pub elem: CoopElem,
    /// Columns (the first size argument).
    pub cols: u8,
    /// Rows (the second size argument).
    pub rows: u8,
}

impl MatTy {
    /// The type as the user writes it.
    pub fn wgsl(&self) -> String {
        format!(
            "subgroup_matrix_{}<{}, {}, {}>",
            self.kind.word(),
            self.elem.name(),
            self.cols,
            self.rows
        )
    }
    /// The opaque struct naga sees in its place (reserved prefix, see `names.rs`).
    pub fn struct_name(&self) -> String {
        format!("_dr_sgm_{}_{}_{}x{}", self.kind.word(), self.elem.name(), self.cols, self.rows)
    }
    /// The struct's declaration: words enough to give it the matrix's size, so naga's layout
    /// of arrays and structs of matrices matches the IR's.
    pub fn struct_decl(&self) -> String {
        let bytes = u32::from(self.cols) * u32::from(self.rows) * self.elem.size();
        format!(
            "struct {} {{ _dr_sgm_words: array<u32, {}> }}\n",
            self.struct_name(),
            bytes.div_ceil(4).max(1)
        )
    }
    /// Elements along a stored row (`row_major`) or column.
    pub fn minor(&self, row_major: bool) -> u32 {
        u32::from(if row_major { self.cols } else { self.rows })
    }
}
