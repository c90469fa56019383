//! Every integration test of this crate in one binary: one link instead of one per file.
//! A file added under `tests/` must be listed here (`tests_are_registered` checks it).
//! Each file still loads the shared helpers of `common/` with its own `#[path]` module, as it
//! did as a binary of its own; hence the allowance below.

#![allow(clippy::duplicate_mod)]

mod bench_smoke;
mod dequant_launch;
mod error_locations;
mod kernels_e2e;
mod matmul_api;
mod matmul_float_nz;
mod perf_guide;
mod profiler;
mod sanitizer;
mod sanitizer_cube;
mod sanitizer_recycle;
mod sanitizer_robustness;
mod soundness;
mod trial_kernels;

#[test]
fn tests_are_registered() {
    let main = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let separate = [];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" && !separate.contains(&stem) {
            assert!(main.contains(&format!("mod {stem};")), "tests/{stem}.rs is not listed in tests/main.rs");
        }
    }
}
