//! Helpers shared by this crate's integration tests, compiled once for the one test binary:
//! a file uses them as `use crate::common::util;` (and `prop`, `seed_data`). The separate
//! `fuzz_soundness` binary still includes `util.rs` with a `#[path]` module.

pub mod prop;
pub mod seed_data;
pub mod util;
