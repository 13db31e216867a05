//! Locating external tools (ptxas, clang++, lavapipe) and the strict-mode rule under CI.
