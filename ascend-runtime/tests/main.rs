//! Every integration test of this crate in one binary: one link instead of one per file.
//! A file added under `tests/` must be listed here (`tests_are_registered` checks it).
//! Each file still loads the shared helpers of `common/` with its own `#[path]` module, as it
//! did as a binary of its own; hence the allowance below.

#![allow(clippy::duplicate_mod)]

mod atomics;
mod debug_output;
mod gm;
mod golden;
mod inter_core;
mod launch;
mod mixed_kernels;
mod mixed_sync_all;
mod pooled_sync;
mod pooled_threads;

#[test]
fn tests_are_registered() {
    let main = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let separate = ["hook"];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" && !separate.contains(&stem) {
            assert!(main.contains(&format!("mod {stem};")), "tests/{stem}.rs is not listed in tests/main.rs");
        }
    }
}
