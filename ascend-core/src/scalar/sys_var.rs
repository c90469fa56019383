//! System variables and `Trap` (AscendC `GetSubBlockIdx`, `GetSubBlockNum`, `GetTaskRatio`,
//! `GetDataBlockSizeInBytes`, `GetArchVersion`, `Trap`).
//!
//! **What a launch here is.** Every core of a launch is one vector core (AIV) running a
//! vector-only kernel: AscendC's `__vector__` kernels, `KERNEL_TYPE_AIV_ONLY`. On Atlas A2
//! ([`Soc::Ascend910B`], the separated architecture: a logical AI core is one cube core and
//! two vector cores) such a kernel makes each AIV its own logical core: the vendor's tables
//! for `GetSubBlockNum` and `GetTaskRatio` give 1 for an AIV in an `AIV_ONLY` kernel, and the
//! A2 implementation computes `GetBlockIdx()` as `block_idx * GetTaskRatio() +
//! GetSubBlockIdx()`, which is the launch index only with a sub-block index of 0. So on
//! Ascend910B `GetSubBlockIdx()` is 0, `GetSubBlockNum()` 1 and `GetTaskRatio()` 1 on every
//! core. In a mixed kernel ([`crate::KernelType::MixAic1_1`], [`crate::KernelType::MixAic1_2`]) they
//! follow the same implementation per core type: on an AIV `GetSubBlockIdx()` is its index in
//! the block and `GetSubBlockNum()` = `GetTaskRatio()` the AIVs per block (1 or 2); on an AIC
//! 0, 1 and 1 (see [`crate::KernelType`]). On Atlas inference AI Core ([`Soc::Ascend310P`], the coupled architecture) the
//! vendor fixes `GetTaskRatio()` at 1.
//!
//! **Chips**, from each API's page (an API a chip lacks is a run-time error naming it):
//!
//! | API | Ascend910 | Ascend910B | Ascend310P | Ascend310B |
//! | --- | --- | --- | --- | --- |
//! | `GetSubBlockIdx` | – | 0 | – | – |
//! | `GetSubBlockNum` | – | 1 | – | – |
//! | `GetTaskRatio` | – | 1 | 1 | – |
//! | `GetDataBlockSizeInBytes` | 32 | 32 | 32 | – |
//! | `GetArchVersion` | – | `0x220` | `0x200` | – |
//! | `Trap` | – | stops the core | stops the core | – |
//!
//! **`GetArchVersion`.** The implementation reads bits 32..44 of the chip's architecture
//! version register; the vendor does not publish the values, only that they are hexadecimal
//! codes to print with `%x`. The emulator's choice: the architecture's name in hex digits,
//! `0x220` on Ascend910B (`dav-c220`, `__NPU_ARCH__` 2201) and `0x200` on Ascend310P
//! (`dav-m200`, 2002).

use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::{ensure, fail};
use crate::soc::Soc;

/// Fails for `api` unless the current core's chip is one of `chips`.
#[track_caller]
pub(crate) fn require_chip(api: &'static str, chips: &[Soc]) -> Soc {
    let soc = get_soc();
    ensure(chips.contains(&soc), api, || {
        let names: Vec<String> = chips.iter().map(|c| c.to_string()).collect();
        format!(
            "not supported on {soc} ({}); it exists on {} (and on chips not modelled)",
            soc.product_line(),
            names.join(" and ")
        )
    });
    soc
}

/// The index of this core inside its logical AI core (AscendC `GetSubBlockIdx()`): 0 in a
/// vector-only or cube-only launch (each core is a logical core of its own) and on the AIC
/// of a mixed kernel; on an AIV of a mixed kernel its index among the block's AIVs (0 or 1
/// in `MixAic1_2`). See the [module](self) documentation.
///
/// ```
/// use ascend_core::prelude::*;
/// // The calling thread's default core is an Ascend910B core.
/// assert_eq!(get_sub_block_idx(), 0);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the vendor lists Atlas A2, and chips not modelled).
#[track_caller]
pub fn get_sub_block_idx() -> i64 {
    require_chip("GetSubBlockIdx", &[Soc::Ascend910B]);
    with_core(|c| i64::from(c.role().sub))
}

/// The number of cores of this core's type per logical AI core in this launch (AscendC
/// `GetSubBlockNum()`): 1 in a vector-only or cube-only kernel and on an AIC; on an AIV of
/// a mixed kernel the AIVs per block (2 in `MixAic1_2`).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sub_block_num(), 1);
/// assert!(get_sub_block_idx() < get_sub_block_num());
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the vendor lists Atlas A2, and chips not modelled).
#[track_caller]
pub fn get_sub_block_num() -> i64 {
    require_chip("GetSubBlockNum", &[Soc::Ascend910B]);
    with_core(|c| i64::from(c.role().ratio))
}

/// The ratio of the launched cores of this core's type to the logical AI cores (AscendC
/// `GetTaskRatio()`): on Ascend910B 1 on every core of a vector-only or cube-only kernel and
/// on an AIC, the AIVs per block on an AIV of a mixed kernel (2 in `MixAic1_2`); on
/// Ascend310P (coupled architecture) always 1.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_task_ratio(), 1);
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn get_task_ratio() -> i64 {
    match require_chip("GetTaskRatio", &[Soc::Ascend910B, Soc::Ascend310P]) {
        Soc::Ascend910B => with_core(|c| i64::from(c.role().ratio)),
        _ => 1,
    }
}

/// The bytes of one data block, the unit of the vector instructions' block strides (AscendC
/// `GetDataBlockSizeInBytes()`): 32.
///
/// ```
/// use ascend_core::prelude::*;
/// let block = get_data_block_size_in_bytes();
/// assert_eq!(block, 32);
/// // A repeat is 8 blocks: 128 half elements.
/// assert_eq!(8 * block as usize / 2, 128);
/// ```
///
/// # Panics
/// Panics on Ascend310B (its page lists it as not supported).
#[track_caller]
pub fn get_data_block_size_in_bytes() -> i16 {
    require_chip("GetDataBlockSizeInBytes", &[Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P]);
    32
}

/// The AI core's architecture version, a hexadecimal code (AscendC
/// `GetArchVersion(coreVersion)`, returned instead of written through a reference): `0x220`
/// on Ascend910B, `0x200` on Ascend310P — the emulator's choice, the vendor does not publish
/// the values (see the [module](self) documentation).
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(format!("{:x}", get_arch_version()), "220");
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310B (not supported there).
#[track_caller]
pub fn get_arch_version() -> u32 {
    match require_chip("GetArchVersion", &[Soc::Ascend910B, Soc::Ascend310P]) {
        Soc::Ascend310P => 0x200,
        _ => 0x220,
    }
}

/// Stops the core (AscendC `Trap()`: the hardware interrupts the AI core; the vendor's CPU
/// mode treats it as a failed assertion): the kernel fails here with a fault naming the core
/// and `Trap`, which the launch reports as its error.
///
/// ```
/// use ascend_core::prelude::*;
/// use std::panic::{catch_unwind, AssertUnwindSafe};
/// let cfg = CoreConfig { block_idx: 2, block_num: 4, ..CoreConfig::single(Soc::Ascend910B) };
/// let r = catch_unwind(AssertUnwindSafe(|| run_on_core(cfg, || trap())));
/// assert!(r.is_err());
/// let fault = ascend_core::take_last_fault().unwrap();
/// assert_eq!((fault.core, fault.api), (2, "Trap"));
/// assert_eq!(fault.message, "core 2 of 4 stopped by Trap()");
/// ```
///
/// # Panics
/// Always: on Ascend910B and Ascend310P with the trap's fault, on Ascend910 and Ascend310B
/// with an error naming the chip (no `Trap` there).
#[track_caller]
pub fn trap() -> ! {
    let api = "Trap";
    require_chip(api, &[Soc::Ascend910B, Soc::Ascend310P]);
    let (idx, num, mix) =
        with_core(|c| (c.block_idx, c.block_num, c.kernel_type.is_some_and(|k| k.is_mix())));
    if mix {
        let name = with_core(|c| c.role().name());
        fail(api, format!("core {idx} of {num} ({name}) stopped by Trap()"))
    }
    fail(api, format!("core {idx} of {num} stopped by Trap()"))
}
