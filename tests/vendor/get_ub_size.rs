//! Line-by-line port of the vendor's `get_ub_size` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/09_utils/get_ub_size`), both scenarios: the tile
//! length of an `Abs` over `half` data is half the UB in `half` elements, the UB size read
//! with `GetUBSizeInBytes()` (scenario 1, 16384 elements) or `GetRuntimeUBSize()` (scenario
//! 2, 126976 elements); two static tensors at UB addresses 0 and `tileLength * 2`, and one
//! event id per hand-off.
//!
//! The example is built for Ascend 950PR/950DT (`dav-3510`) only, and both queries exist
//! there only: on every modelled chip the kernel fails at the query, with an error naming the
//! chip (`ascend_core::ub_size`). What the example computes on its chip is checked too:
//! with the 248 KiB both queries return there (tile lengths 16384 × 1 tile and 63488 × 2
//! tiles), the rest of the kernel (`process`, the vendor's lines from `tileNum = …` on) runs
//! on the modelled chips whose 256 KiB UB holds its two tiles, with the sanitizer on, and
//! matches the golden of `gen_data.py` (`np.abs(x)`) bit for bit; Ascend910B's 192 KiB UB
//! does not hold them.

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

use crate::gm_of;

/// `totalLength` of scenario 1 / scenario 2.
const fn total_length_of(scenario_num: u32) -> u32 {
    if scenario_num == 1 {
        16384
    } else {
        126976
    }
}

/// `get_ub_size_custom` with `scenarioNum` (the vendor's `-DSCENARIO_NUM`) as a const
/// parameter.
fn get_ub_size_custom<const SCENARIO_NUM: u32>(x: GmAddr, z: GmAddr) {
    init_soc_state();
    let total_length: u32 = total_length_of(SCENARIO_NUM);
    let mut tile_length: u32 = 0;
    if SCENARIO_NUM == 1 {
        // Scenario 1: GetUBSizeInBytes, a compile-time constant.
        if total_length as usize > get_ub_size_in_bytes() as usize / size_of::<f16>() / 2 {
            tile_length = (get_ub_size_in_bytes() as usize / size_of::<f16>() / 2) as u32;
        } else {
            tile_length = total_length;
        }
    } else if SCENARIO_NUM == 2 {
        // Scenario 2: GetRuntimeUBSize, read at run time.
        if total_length as usize > get_runtime_ub_size() as usize / size_of::<f16>() / 2 {
            tile_length = (get_runtime_ub_size() as usize / size_of::<f16>() / 2) as u32;
        } else {
            tile_length = total_length;
        }
    }
    process(x, z, total_length, tile_length);
}

/// The vendor kernel's lines after the tile length is known.
fn process(x: GmAddr, z: GmAddr, total_length: u32, tile_length: u32) {
    let tile_num = total_length.div_ceil(tile_length);

    let x_gm = gm_of::<f16>(x);
    let z_gm = gm_of::<f16>(z);
    // Static addresses.
    let x_addr: u64 = 0;
    let z_addr: u64 = x_addr + tile_length as u64 * size_of::<f16>() as u64;
    let x_local = LocalTensor::<f16>::new(TPosition::VECIN, x_addr as usize, tile_length as usize);
    let z_local = LocalTensor::<f16>::new(TPosition::VECOUT, z_addr as usize, tile_length as usize);

    for i in 0..tile_num {
        let cur_length = if i + 1 == tile_num { total_length - i * tile_length } else { tile_length };
        // GM -> UB on MTE2.
        data_copy(&x_local, &x_gm.view((i * tile_length) as usize), cur_length as usize);
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        // Vector: Abs.
        abs(&z_local, &x_local, cur_length as usize);
        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        set_flag::<HardEvent::V_MTE2>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE2>(EVENT_ID0);
        // UB -> GM on MTE3.
        data_copy(&z_gm.view((i * tile_length) as usize), &z_local, cur_length as usize);
        set_flag::<HardEvent::MTE3_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE3_V>(EVENT_ID0);
    }

    pipe_barrier::<PIPE_ALL>();
}

/// What both queries return on Ascend 950PR/950DT (the example's README and the API pages).
const ASCEND950_UB_SIZE: u32 = 248 * 1024;

/// `gen_data.py`: `np.random.uniform(finfo(float16).min, finfo(float16).max, n)` as `half`.
fn input(n: usize) -> Vec<f16> {
    random_vec(n, 0x0b5, f64::from(f16::MIN), f64::from(f16::MAX))
}

/// `gen_data.py`'s golden: `np.abs(x)`.
fn golden(x: &[f16]) -> Vec<f16> {
    x.iter().map(|v| f16::from_bits(v.to_bits() & 0x7fff)).collect()
}

#[test]
fn both_scenarios_fail_at_the_query_on_every_modelled_chip() {
    for soc in Soc::ALL {
        for scenario_num in [1u32, 2] {
            let n = total_length_of(scenario_num) as usize;
            let xg = GmBuffer::from_vec(input(n));
            let zg = GmBuffer::<f16>::zeroed(n);
            let r = Launch::new(soc).block_dim(1).run(|| {
                if scenario_num == 1 {
                    get_ub_size_custom::<1>(xg.addr(), zg.addr())
                } else {
                    get_ub_size_custom::<2>(xg.addr(), zg.addr())
                }
            });
            let e = r.expect_err("no modelled chip has the UB size queries");
            let f = e.primary().expect("a fault");
            let api = if scenario_num == 1 { "GetUBSizeInBytes" } else { "GetRuntimeUBSize" };
            assert_eq!(f.api, api, "{soc}, scenario {scenario_num}: {f}");
            assert!(f.message.contains(&format!("not supported on {soc}")), "{f}");
            assert!(f.file.ends_with("get_ub_size.rs"), "the fault points at the kernel's call: {f}");
            assert!(zg.to_vec().iter().all(|v| v.to_bits() == 0), "{soc}: nothing was written");
        }
    }
}

/// The tile length the vendor's kernel computes from `ub_size` bytes.
fn tile_length_of(total_length: u32, ub_size: u32) -> u32 {
    let half_ub = ub_size / size_of::<f16>() as u32 / 2;
    if total_length > half_ub {
        half_ub
    } else {
        total_length
    }
}

#[test]
fn both_scenarios_with_the_950_ub_size_match_the_golden() {
    // Scenario 1: 16384 ≤ 63488 elements: one tile; scenario 2: 126976 = 2 × 63488.
    assert_eq!(tile_length_of(total_length_of(1), ASCEND950_UB_SIZE), 16384);
    assert_eq!(tile_length_of(total_length_of(2), ASCEND950_UB_SIZE), 63488);
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        for scenario_num in [1u32, 2] {
            let total_length = total_length_of(scenario_num);
            let tile_length = tile_length_of(total_length, ASCEND950_UB_SIZE);
            let x = input(total_length as usize);
            let xg = GmBuffer::from_vec(x.clone());
            let zg = GmBuffer::<f16>::zeroed(total_length as usize);
            Launch::new(soc)
                .block_dim(1)
                .run(|| process(xg.addr(), zg.addr(), total_length, tile_length))
                .unwrap_or_else(|e| panic!("{soc}, scenario {scenario_num}: {e}"));
            assert_bits_eq(&zg.to_vec(), &golden(&x));
        }
    }
}

#[test]
fn the_950_tiles_do_not_fit_the_ascend910b_ub() {
    // Two tiles of 63488 halves are 253952 bytes: more than Ascend910B's 196608.
    let total_length = total_length_of(2);
    let tile_length = tile_length_of(total_length, ASCEND950_UB_SIZE);
    let xg = GmBuffer::from_vec(input(total_length as usize));
    let zg = GmBuffer::<f16>::zeroed(total_length as usize);
    let e = Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| process(xg.addr(), zg.addr(), total_length, tile_length))
        .expect_err("253952 bytes of tiles in a 196608-byte UB");
    let f = e.primary().expect("a fault");
    assert_eq!(f.api, "LocalTensor", "{f}");
}
