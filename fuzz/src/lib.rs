//! Differential fuzzing of dianran: a generator of random valid WGSL compute kernels
//! ([`gen`]), the checks every program goes through ([`check`]), automatic reduction of a
//! failing program ([`reduce`]), mutation of real kernels through the command line
//! ([`mutate`]), and the campaign that drives them ([`campaign`], `dianran fuzz`).

pub mod ast;
pub mod campaign;
pub mod check;
pub mod gen;
pub mod mutate;
pub mod reduce;
pub mod rng;
