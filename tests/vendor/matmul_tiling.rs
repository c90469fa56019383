//! `MultiCoreMatmulTiling::get_tiling` against the tiling results the vendor documents for
//! Ascend910B (`mirror-cann/asc-devkit`). The vendor's algorithm is not ported (see
//! `ascend_core::adv::matmul_tiling`); these are the documented cases its fitted rule must
//! reproduce. Paths are relative to `docs/zh/guide/算子实践参考/优秀实践/Matmul性能调优案例/` unless
//! they start with `examples/`.

use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
use ascend_runtime::prelude::*;

/// Half A/B in GM (ND), float C, no bias: the documented cases' types.
fn half_tiling(dim: i32, m: i32, n: i32, k: i32) -> TCubeTiling {
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_dim(dim);
    api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.set_org_shape(m, n, k);
    api.set_shape(m, n, k);
    api.set_buffer_space(-1, -1, -1);
    api.get_tiling().unwrap()
}

fn single(t: &TCubeTiling) -> (i32, i32, i32) {
    (t.singleCoreM, t.singleCoreN, t.singleCoreK)
}
fn base(t: &TCubeTiling) -> (i32, i32, i32) {
    (t.baseM, t.baseN, t.baseK)
}
fn l1(t: &TCubeTiling) -> (i32, i32, i32, i32, i32, i32) {
    (t.stepM, t.stepN, t.stepKa, t.stepKb, t.depthA1, t.depthB1)
}

/// `Matmul高阶API使能MDL模板.md`: M=128, N=30720, K=1024 on 24 AIC: singleCore 128 × 1280 ×
/// 1024, base 128 × 256 × 64, stepM=1, stepN=1, stepKa=4, stepKb=4, depthA1=8, depthB1=8.
#[test]
fn tiling_mdl_case() {
    let t = half_tiling(24, 128, 30720, 1024);
    assert_eq!(single(&t), (128, 1280, 1024));
    assert_eq!(base(&t), (128, 256, 64));
    assert_eq!(l1(&t), (1, 1, 4, 4, 8, 8));
    assert_eq!((t.usedCoreNum, t.M, t.N, t.Ka, t.Kb), (24, 128, 30720, 1024, 1024));
}

/// `Matmul高阶API使能UnitFlag.md`: M=128, N=30720, K=64 on 20 AIC: singleCore 128 × 1536 × 64,
/// base 128 × 256 × 64, stepM=1, stepN=1, stepKa=4, stepKb=4, depthA1=8, depthB1=8.
#[test]
fn tiling_unit_flag_case() {
    let t = half_tiling(20, 128, 30720, 64);
    assert_eq!(single(&t), (128, 1536, 64));
    assert_eq!(base(&t), (128, 256, 64));
    assert_eq!(l1(&t), (1, 1, 4, 4, 8, 8));
    assert_eq!(t.usedCoreNum, 20);
}

/// `Matmul高阶API使能纯Cube模式.md`: M=128, N=30720, K=64: MIX on 48 AIV gives singleCore
/// 128 × 640 × 64, pure Cube on 24 AIC 128 × 1280 × 64; base 128 × 256 × 64, steps 1/1/4/4,
/// depths 8/8 (the same numbers as `Matmul高阶API使能Tiling全量常量化.md`).
#[test]
fn tiling_pure_cube_and_mix_cases() {
    let mix = half_tiling(48, 128, 30720, 64);
    assert_eq!(single(&mix), (128, 640, 64));
    assert_eq!(base(&mix), (128, 256, 64));
    let cube = half_tiling(24, 128, 30720, 64);
    assert_eq!(single(&cube), (128, 1280, 64));
    assert_eq!(base(&cube), (128, 256, 64));
    assert_eq!(l1(&cube), (1, 1, 4, 4, 8, 8));
}

/// `examples/01_simd_cpp_api/00_introduction/02_matrix/matmul_advanced_api/README.md`: M=512,
/// N=512, K=128 with `SetDim(2)`: M split in two, singleCoreM=256, singleCoreN=512,
/// singleCoreK=128, Ka = Kb = 128.
#[test]
fn tiling_matmul_advanced_api_case() {
    let t = half_tiling(2, 512, 512, 128);
    assert_eq!(single(&t), (256, 512, 128));
    assert_eq!((t.Ka, t.Kb, t.usedCoreNum), (128, 128, 2));
}

/// `examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_advanced_api/
/// matmul_leakyrelu_advanced_api.asc` (comments of the kernel): M=512, N=128, K=128,
/// `SetDim(2)`, `SetFixSplit(128, 64, 128)`, bias: N split in two, each core 512 × 64, base
/// 128 × 64 × 128.
#[test]
fn tiling_leakyrelu_case() {
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_dim(2);
    api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.set_c_type(TPos::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
    api.set_bias_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.set_org_shape(512, 128, 128);
    api.set_shape(512, 128, 128);
    api.enable_bias(true);
    api.set_fix_split(128, 64, 128);
    let t = api.get_tiling().unwrap();
    assert_eq!(single(&t), (512, 64, 128));
    assert_eq!(base(&t), (128, 64, 128));
    assert_eq!((t.isBias, t.usedCoreNum), (1, 2));
}

/// `Matmul高阶API使能MTE2-Preload.md`: M=128, N=24576, K=512 on 24 cores: singleCore 128 × 1024
/// × 512 (reproduced). The page's base block 128 × 128 × 64 and stepKa = stepKb = 8 are NOT
/// what the fitted rule gives (128 × 256 × 64, 4): that case's tiling is not reproduced.
#[test]
fn tiling_preload_case_single_shape() {
    let t = half_tiling(24, 128, 24576, 512);
    assert_eq!(single(&t), (128, 1024, 512));
    assert_ne!(base(&t), (128, 128, 64), "if this now matches, update the module docs");
}

/// Errors instead of -1: no shape, a fixed base not a multiple of 16, inputs not in GM.
#[test]
fn tiling_errors() {
    let api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    assert!(api.get_tiling().unwrap_err().to_string().contains("must be set and positive"));
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_org_shape(64, 64, 64).set_fix_split(24, -1, -1);
    assert!(api.get_tiling().unwrap_err().to_string().contains("baseM = 24"));
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_org_shape(64, 64, 64).set_a_type(TPos::TSCM, CubeFormat::NZ, DataType::DT_FLOAT16, false);
    assert!(api.get_tiling().unwrap_err().to_string().contains("only GM inputs are supported here"));
    // NZ inputs take the same tiling as ND (the fitted rule does not depend on the format).
    let mut nd = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    nd.set_org_shape(64, 64, 64);
    let mut nz = nd.clone();
    nz.set_a_type(TPos::GM, CubeFormat::NZ, DataType::DT_FLOAT16, false);
    nz.set_b_type(TPos::GM, CubeFormat::NZ, DataType::DT_FLOAT16, false);
    assert_eq!(nz.get_tiling().unwrap(), nd.get_tiling().unwrap());
}
