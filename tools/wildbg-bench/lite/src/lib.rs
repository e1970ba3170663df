//! wildbg's `position` and `dice` modules, copied in by `../run.sh`.
#![allow(dead_code)]
pub mod dice;
pub mod position;
