//! The trial kernels of `examples/`, checked against f64 references.

#[path = "../examples/hello_world.rs"]
#[allow(unused)]
mod hello_world;

#[path = "../examples/sum_cores.rs"]
#[allow(unused)]
mod sum_cores;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{assert_close, Tolerance};

#[test]
fn sum_on_48_cores_through_the_workspace() {
    for (len, cores, soc) in
        [(1_000_003usize, 48u32, Soc::Ascend910B), (48 * 4096, 48, Soc::Ascend310B), (5, 8, Soc::Ascend910B)]
    {
        let x: Vec<f32> = random_vec(len, 3, -1.0, 1.0);
        let (sum, stats) = sum_cores::run_sum(soc, &x, cores).unwrap();
        assert_eq!(stats.block_dim, cores);
        let exact: f64 = x.iter().map(|&v| f64::from(v)).sum();
        // A sum of n values of magnitude <= 1 in f32: absolute error well below n * 2^-24.
        assert_close(&[sum], &[exact], Tolerance::new(0.0, len as f64 * 6e-8 + 1e-6, 0.0));
    }
}

#[test]
fn sum_of_ones_is_exact() {
    let (sum, _) = sum_cores::run_sum(Soc::Ascend910B, &vec![1.0f32; 48 * 1000 + 7], 48).unwrap();
    assert_eq!(sum, 48_007.0);
}

#[test]
fn hello_world_prints_the_vendor_lines_in_core_order() {
    let (result, out) = Launch::new(Soc::Ascend910B).block_dim(8).capture_output(hello_world::hello_world);
    result.unwrap();
    let want: String = (0..8).map(|i| format!("[AIV Block {i}/8] Hello World!!!\n")).collect();
    assert_eq!(out.text(), want);
}
