//! The system-variable queries (`GetSubBlockIdx`, `GetSubBlockNum`, `GetTaskRatio`,
//! `GetDataBlockSizeInBytes`, `GetArchVersion`), `Trap`, and the cache preloads
//! (`DataCachePreload`, `ICachePreLoad`, `GetICachePreloadStatus`): each value on each chip,
//! each argument check at its limits, and each chip error, message for message.

use crate::common::util;

use ascend_core::prelude::*;
use util::{fault, fault_on, on};

/// A core `idx` of `num` on `soc`.
fn core(soc: Soc, idx: u32, num: u32) -> CoreConfig {
    CoreConfig { block_idx: idx, block_num: num, ..CoreConfig::single(soc) }
}

/// The error of an API missing on `soc`, which has it on `chips`.
fn unsupported(soc: Soc, chips: &str) -> String {
    format!(
        "not supported on {soc} ({}); it exists on {chips} (and on chips not modelled)",
        soc.product_line()
    )
}

/// Checks that `call` fails on every chip outside `chips` with the error naming the chip, and
/// returns nothing on the others.
#[track_caller]
fn only_on(api: &str, chips: &[Soc], call: fn()) {
    let names = chips.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" and ");
    for soc in Soc::ALL {
        if chips.contains(&soc) {
            on(soc, call);
        } else {
            let f = fault(soc, call);
            assert_eq!((f.api, f.message), (api, unsupported(soc, &names)), "{soc}");
            assert!(f.file.ends_with("tests/sys_var.rs"), "the fault points at the call: {}", f.file);
        }
    }
}

// ---- system variables ------------------------------------------------------------------------

#[test]
fn the_values_of_a_vector_only_launch_on_each_chip() {
    for idx in [0, 3, 7] {
        run_on_core(core(Soc::Ascend910B, idx, 8), || {
            assert_eq!(get_sub_block_idx(), 0);
            assert_eq!(get_sub_block_num(), 1);
            assert_eq!(get_task_ratio(), 1);
            // The A2 implementation's GetBlockIdx: block_idx * GetTaskRatio() + GetSubBlockIdx().
            assert_eq!(i64::from(get_block_idx()), i64::from(idx) * get_task_ratio() + get_sub_block_idx());
            assert_eq!(get_data_block_size_in_bytes(), 32);
            assert_eq!(get_arch_version(), 0x220);
        });
    }
    on(Soc::Ascend310P, || {
        assert_eq!(get_task_ratio(), 1);
        assert_eq!(get_data_block_size_in_bytes(), 32);
        assert_eq!(get_arch_version(), 0x200);
        assert_eq!(format!("{:x}", get_arch_version()), "200");
    });
    on(Soc::Ascend910, || assert_eq!(get_data_block_size_in_bytes(), 32));
}

#[test]
fn each_query_fails_on_the_chips_without_it() {
    let b = [Soc::Ascend910B];
    let bp = [Soc::Ascend910B, Soc::Ascend310P];
    only_on("GetSubBlockIdx", &b, || {
        let _ = get_sub_block_idx();
    });
    only_on("GetSubBlockNum", &b, || {
        let _ = get_sub_block_num();
    });
    only_on("GetTaskRatio", &bp, || {
        let _ = get_task_ratio();
    });
    only_on("GetArchVersion", &bp, || {
        let _ = get_arch_version();
    });
    only_on("GetDataBlockSizeInBytes", &[Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P], || {
        let _ = get_data_block_size_in_bytes();
    });
    only_on("GetICachePreloadStatus", &b, || {
        let _ = get_icache_preload_status();
    });
    only_on("ICachePreLoad", &bp, || icache_preload(1));
    only_on("DataCachePreload", &[Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B], || {
        let region = GmRegion::zeroed(64);
        let mut gm = GlobalTensor::<u64>::new();
        gm.set_global_buffer(region.addr(), 8);
        data_cache_preload(&gm, 0i64);
    });
}

// ---- Trap ------------------------------------------------------------------------------------

#[test]
fn trap_stops_the_core_naming_it() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for (idx, num) in [(0, 1), (5, 8), (47, 48)] {
            let mut after = false;
            let f = fault_on(core(soc, idx, num), || {
                trap();
                #[allow(unreachable_code)]
                {
                    after = true;
                }
            });
            assert!(!after, "nothing runs after Trap");
            assert_eq!(f.core, idx);
            assert_eq!(f.api, "Trap");
            assert_eq!(f.message, format!("core {idx} of {num} stopped by Trap()"));
            assert!(f.file.ends_with("tests/sys_var.rs"), "{}", f.file);
            assert_eq!(
                f.to_string(),
                format!("core {idx}: Trap: core {idx} of {num} stopped by Trap() (at {}:{})", f.file, f.line)
            );
        }
    }
}

#[test]
fn trap_on_chips_without_it_names_the_chip() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let f = fault_on(core(soc, 2, 4), || trap());
        assert_eq!((f.core, f.api), (2, "Trap"));
        assert_eq!(f.message, unsupported(soc, "Ascend910B and Ascend310P"));
    }
}

// ---- cache preloads --------------------------------------------------------------------------

#[test]
fn icache_preload_takes_lengths_below_the_vector_cores_cache() {
    on(Soc::Ascend910B, || {
        for len in 0..8 {
            icache_preload(len);
            assert_eq!(get_icache_preload_status(), 0);
        }
    });
    for len in [8, 9, 16, -1, i64::MIN, i64::MAX] {
        let f = fault(Soc::Ascend910B, || icache_preload(len));
        assert_eq!(f.api, "ICachePreLoad");
        assert_eq!(
            f.message,
            format!(
                "preFetchLen = {len} (units of 2048 bytes) must lie in [0, 8) on Ascend910B: below the vector \
                 core's 16384-byte instruction cache / 2048"
            )
        );
    }
    // Ascend310P ignores the length (it always loads 128 bytes).
    on(Soc::Ascend310P, || {
        for len in [-5, 0, 8, 1 << 40] {
            icache_preload(len);
        }
    });
}

#[test]
fn data_cache_preload_takes_any_byte_of_the_buffer() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            let region = GmRegion::zeroed(1024);
            let mut gm = GlobalTensor::<u64>::new();
            // 8 elements at byte 512.
            gm.set_global_buffer(region.addr().add::<u64>(64), 8);
            for off in [0i64, 63, 64, 511, -512, -1] {
                data_cache_preload(&gm, off);
            }
            for off in [0i16, 100, -512, 511] {
                data_cache_preload(&gm, off);
            }
        });
    }
}

#[test]
fn data_cache_preload_rejects_bytes_outside_the_buffer() {
    let cases: [(i64, i128); 4] =
        [(512, 1024), (-513, -1), (i64::MAX, 512 + i64::MAX as i128), (i64::MIN, 512 + i64::MIN as i128)];
    for (off, at) in cases {
        let f = fault(Soc::Ascend910B, || {
            let region = GmRegion::zeroed(1024);
            let mut gm = GlobalTensor::<u64>::new();
            gm.set_global_buffer(region.addr().add::<u64>(64), 8);
            data_cache_preload(&gm, off);
        });
        assert_eq!(f.api, "DataCachePreload");
        assert_eq!(
            f.message,
            format!(
                "cacheOffset = {off} bytes from src (at byte 0x200 of its global buffer) is byte {at} of the buffer, \
                 outside its 1024 bytes"
            )
        );
    }
    // An i16 offset beyond a small buffer.
    let f = fault(Soc::Ascend310P, || {
        let region = GmRegion::zeroed(64);
        let mut gm = GlobalTensor::<u64>::new();
        gm.set_global_buffer(region.addr(), 8);
        data_cache_preload(&gm, 64i16);
    });
    assert_eq!(
        f.message,
        "cacheOffset = 64 bytes from src (at byte 0x0 of its global buffer) is byte 64 of the buffer, outside its 64 bytes"
    );
}

#[test]
fn data_cache_preload_of_an_unbound_tensor_fails() {
    let f = fault(Soc::Ascend910B, || data_cache_preload(&GlobalTensor::<u64>::new(), 0i64));
    assert_eq!(f.api, "DataCachePreload");
    assert!(f.message.starts_with("the GlobalTensor is not bound"), "{}", f.message);
}
