//! Every integration test of this crate in one binary: one link instead of one per file.
//! A file added under `tests/` must be listed here (`tests_are_registered` checks it).
//! The shared helpers of `common/` are one module, compiled once (`use crate::common::util;`).

mod common;

mod adv_activation;
mod adv_activation_gelu;
mod adv_activation_glu;
mod adv_antiquant;
mod adv_batchnorm;
mod adv_digamma;
mod adv_dropout;
mod adv_groupnorm;
mod adv_layernorm;
mod adv_layernorm_grad;
mod adv_lgamma;
mod adv_math;
mod adv_math_ext;
mod adv_math_more;
mod adv_math_power;
mod adv_math_trig;
mod adv_norm_more;
mod adv_normalization;
mod adv_normalize;
mod adv_pad;
mod adv_quant;
mod adv_reduce;
mod adv_reduce_xy;
mod adv_select;
mod adv_softmax;
mod adv_softmax_flash;
mod adv_softmax_flash_v1;
mod adv_softmax_flash_v3;
mod adv_softmax_more;
mod adv_sort;
mod adv_transdata;
mod adv_transpose;
mod adv_welford_update;
mod chip_rules;
mod cube_bias;
mod cube_copy;
mod cube_fixpipe_quant;
mod cube_memory;
mod cube_mmad;
mod cube_queue;
mod data_copy;
mod data_copy_slice;
mod element_bool;
mod gm_api;
mod int4_data_copy;
mod layers;
mod mask_state;
mod pipe_queue;
mod profiler_cost;
mod scalar_compute;
mod select_mask_types;
mod store_atomic;
mod sys_var;
mod tbuf_pool;
mod vector_arith;
mod vector_bilinear;
mod vector_binary;
mod vector_cast;
mod vector_cast_int4;
mod vector_compare;
mod vector_compound;
mod vector_copy;
mod vector_dequant;
mod vector_duplicate;
mod vector_engine;
mod vector_gather;
mod vector_reduce;
mod vector_reduction;
mod vector_select;
mod vector_sort;
mod vector_transpose;

#[test]
fn tests_are_registered() {
    let main = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let separate = ["fuzz_soundness"];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" && !separate.contains(&stem) {
            assert!(main.contains(&format!("mod {stem};")), "tests/{stem}.rs is not listed in tests/main.rs");
        }
    }
}
