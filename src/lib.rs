//! dianran facade
