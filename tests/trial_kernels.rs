//! The trial kernels of `examples/`, checked against f64 references.

#[path = "../examples/abs_diff.rs"]
#[allow(unused)]
mod abs_diff;

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

#[test]
fn abs_diff_on_48_cores_with_an_unaligned_tail() {
    for (len, soc) in
        [(48 * 2048 + 7, Soc::Ascend910B), (1000, Soc::Ascend310B), (48 * 4096, Soc::Ascend310P)]
    {
        let (x, y): (Vec<f16>, Vec<f16>) =
            (random_vec(len, 5, -60000.0, 60000.0), random_vec(len, 6, -100.0, 100.0));
        let (z, _) = abs_diff::run_abs_diff(soc, &x, &y, 48).unwrap();
        // Sub rounds once to half; Abs is exact: the result is |x - y| rounded once, bit for bit
        // (inf where the difference overflows, unless the chip saturates).
        let sat = soc != Soc::Ascend910B;
        let want: Vec<f16> = x
            .iter()
            .zip(&y)
            .map(|(a, b)| {
                let d = f16::from_f32(a.to_f32() - b.to_f32()).to_f32().abs();
                f16::from_f32(if sat { d.min(65504.0) } else { d })
            })
            .collect();
        ascend_runtime::testing::assert_bits_eq(&z, &want);
    }
}

#[test]
fn abs_diff_tail_needs_data_copy_pad() {
    let x = vec![f16::ONE; 48 * 16 + 3];
    let e = abs_diff::run_abs_diff(Soc::Ascend310P, &x, &x, 48).unwrap_err();
    assert!(e.to_string().contains("DataCopyTail") && e.to_string().contains("Ascend310P"), "{e}");
}
