//! Cache preloads (AscendC `DataCachePreload`, `ICachePreLoad`, `GetICachePreloadStatus`).
//!
//! A preload only makes later accesses faster, and the emulator models no timing: the
//! scalar data cache exists here only as the sanitizer's model of when scalar writes reach
//! other cores (see [`data_cache_clean_and_invalid`](crate::gm_api::data_cache_clean_and_invalid)),
//! which a preload does not change, and there is no instruction cache. So the preloads have no
//! observable effect; they check their chip and arguments as the vendor's pages constrain
//! them, and `GetICachePreloadStatus` reports every preload as finished.
//!
//! | API | Ascend910 | Ascend910B | Ascend310P | Ascend310B |
//! | --- | --- | --- | --- | --- |
//! | `DataCachePreload` | – | yes | yes | yes |
//! | `ICachePreLoad` | – | `preFetchLen` in `[0, 8)` | any `preFetchLen` (ignored) | – |
//! | `GetICachePreloadStatus` | – | 0 (done) | – | – |

use crate::kernel::error::ensure;
use crate::memory::tensor::GlobalTensor;
use crate::scalar::sys_var::require_chip;
use crate::soc::Soc;

/// The unit of `ICachePreLoad`'s `preFetchLen` on Atlas A2, in bytes.
const ICACHE_PRELOAD_UNIT: i64 = 2048;
/// A vector core's instruction cache on Atlas A2, in bytes (a cube core's is 32 KB).
const AIV_ICACHE_BYTES: i64 = 16 * 1024;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i64 {}
}

/// The type of [`data_cache_preload`]'s `cacheOffset`: `int16_t` or `int64_t`, as the vendor's
/// implementations accept. Others do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(gm: &GlobalTensor<u64>) { data_cache_preload(gm, 0i32) }
/// ```
pub trait CacheOffset: sealed::Sealed {
    /// The offset as `i64`.
    #[doc(hidden)]
    fn to_i64(self) -> i64;
}
impl CacheOffset for i16 {
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
}
impl CacheOffset for i64 {
    fn to_i64(self) -> i64 {
        self
    }
}

/// Loads the cache line holding the byte `cache_offset` bytes after `src`'s first element
/// into the scalar data cache (AscendC `DataCachePreload(src, cacheOffset)`). No effect here
/// (see the [module](self) documentation). The vendor advises at most 4 back-to-back calls
/// (more congest the reservation station and stall the scalar pipe); that costs only time,
/// so it is not checked.
///
/// The address must lie in global memory: `src` must be bound, and the byte must lie inside
/// the global buffer `src` was bound in (`cache_offset` may be negative or reach beyond
/// `src`'s own elements, but not out of the buffer). The pages do not say what the chip does
/// with another address; the emulator treats it as a bug in the kernel.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::zeroed(1024);
/// let mut gm = GlobalTensor::<u64>::new();
/// gm.set_global_buffer(region.addr().add::<u64>(64), 8);
/// data_cache_preload(&gm, 0i64);
/// data_cache_preload(&gm, 64i16); // the next line, past gm's 64 bytes but in the buffer
/// data_cache_preload(&gm, -512i64); // the buffer's first byte
/// ```
///
/// # Panics
/// Panics on Ascend910 (not supported), if `src` is unbound, or if the byte lies outside
/// `src`'s global buffer.
#[track_caller]
pub fn data_cache_preload<T: CacheOffset>(src: &GlobalTensor<u64>, cache_offset: T) {
    let api = "DataCachePreload";
    require_chip(api, &[Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B]);
    let _ = src.base_ptr(api);
    let size = src.region_arc().map_or(0, |r| r.size());
    let start = src.byte_offset();
    let offset = cache_offset.to_i64();
    let at = start as i128 + i128::from(offset);
    ensure((0..size as i128).contains(&at), api, || {
        format!(
            "cacheOffset = {offset} bytes from src (at byte {start:#x} of its global buffer) is byte {at} of the \
             buffer, outside its {size} bytes"
        )
    });
}

/// Loads the instructions that follow into the instruction cache (AscendC
/// `ICachePreLoad(preFetchLen)`). No effect here (see the [module](self) documentation).
///
/// On Ascend910B `pre_fetch_len` counts 2 KB units and must be below the instruction cache's
/// size in those units: a vector core's cache is 16 KB, so `0 <= pre_fetch_len < 8`. On
/// Ascend310P the chip ignores it (it always loads 128 bytes), so any value is accepted.
///
/// ```
/// use ascend_core::prelude::*;
/// icache_preload(2);
/// assert_eq!(get_icache_preload_status(), 0);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there), and on Ascend910B if
/// `pre_fetch_len` is outside `[0, 8)`.
#[track_caller]
pub fn icache_preload(pre_fetch_len: i64) {
    let api = "ICachePreLoad";
    let soc = require_chip(api, &[Soc::Ascend910B, Soc::Ascend310P]);
    if soc == Soc::Ascend910B {
        let units = AIV_ICACHE_BYTES / ICACHE_PRELOAD_UNIT;
        ensure((0..units).contains(&pre_fetch_len), api, || {
            format!(
                "preFetchLen = {pre_fetch_len} (units of {ICACHE_PRELOAD_UNIT} bytes) must lie in [0, {units}) on \
                 {soc}: below the vector core's {AIV_ICACHE_BYTES}-byte instruction cache / {ICACHE_PRELOAD_UNIT}"
            )
        });
    }
}

/// Whether the last [`icache_preload`] is still running (AscendC `GetICachePreloadStatus()`):
/// 0 when finished, 1 while running. Always 0 here: a preload has nothing to load.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_icache_preload_status(), 0);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the vendor lists Atlas A2, and chips not modelled).
#[track_caller]
pub fn get_icache_preload_status() -> i64 {
    require_chip("GetICachePreloadStatus", &[Soc::Ascend910B]);
    0
}
