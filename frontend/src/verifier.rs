//! The SSA verifier.
