//! The vendor's public AscendC examples (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/`),
//! ported line by line: the kernels keep the vendor's structure, calls, events, ids and
//! constants, with the AscendC names in snake_case. They are correct kernels, so every launch
//! keeps the synchronisation sanitizer on and must succeed, and each output is compared with
//! the example's golden computation, bit for bit. Each module says which examples (and
//! scenarios) it ports and which it leaves out, and why.

use ascend_runtime::prelude::*;

mod add_high_performance;
mod adv_activation;
mod adv_antiquant;
mod adv_layernorm;
mod adv_math;
mod adv_math_ext;
mod adv_math_more;
mod adv_math_power;
mod adv_norm_more;
mod adv_normalization;
mod adv_pad;
mod adv_quant;
mod adv_reduce;
mod adv_reduce_xy;
mod adv_sigmoid;
mod adv_softmax;
mod adv_softmax_flash;
mod adv_softmax_more;
mod adv_sort;
mod adv_transpose;
mod adv_welford;
mod compare_transpose;
mod copy;
mod create_vec_index;
mod cross_core;
mod ctrl_spr;
mod data_copy_practice;
mod get_ub_size;
mod gm_by_dcache;
mod gm_by_pass_dcache;
mod group_barrier;
mod inter_core;
mod l0c_accumulate;
mod matmul_advanced;
mod matmul_basic_api;
mod matmul_tiling;
mod memory;
mod mmad_gemv;
mod mmad_unitflag;
mod ms_sanitizer;
mod slice_pool;
mod sort;
mod sync;
mod vector_elementwise;
mod vector_reduce;

/// The advanced-API examples' `CompareResult`: each output within 1e-4 of its golden, absolute
/// or relative (their numpy goldens are not the chip's arithmetic in the last bits).
#[track_caller]
fn compare_result(out: &[f32], golden: &[f64]) {
    assert_eq!(out.len(), golden.len());
    for (i, (&a, &b)) in out.iter().zip(golden).enumerate() {
        let ae = (f64::from(a) - b).abs();
        assert!(ae <= 1e-4 || ae / b.abs() <= 1e-4, "element {i}: output {a}, golden {b}");
    }
}

/// `GlobalTensor<T>::SetGlobalBuffer((__gm__ T*)addr)` (no length: to the end of the region).
fn gm_of<T: Element>(addr: GmAddr) -> GlobalTensor<T> {
    let mut g = GlobalTensor::<T>::new();
    g.set_global_buffer_addr(addr);
    g
}
