//! The Unified Buffer size queries: AscendC `GetUBSizeInBytes()` and `GetRuntimeUBSize()`.
//!
//! Both exist on Ascend 950PR/950DT only, a chip the emulator does not model, so on every
//! [`Soc`] here they are run-time errors naming the chip. The sources, per chip:
//!
//! - The API pages (`GetUBSizeInBytes`, `GetRuntimeUBSize`, "系统资源与变量") list Ascend
//!   950PR/950DT as supported and every other product as "不支持" (not supported): Atlas A3,
//!   Atlas A2 (our [`Soc::Ascend910B`]), Atlas 200I/500 A2 ([`Soc::Ascend310B`]), Atlas
//!   inference AI Core and Vector Core ([`Soc::Ascend310P`]) and Atlas training
//!   ([`Soc::Ascend910`]).
//! - The implementation (`kernel_operator_sys_var_intf.h`) returns the architecture's
//!   `TOTAL_UB_SIZE` only for the 950-generation architectures and `0` for every other one,
//!   ours included — a value no kernel can tile by (the example's `totalLength / tileLength`
//!   would divide by zero), so the emulator fails at the call instead of returning it.
//! - On Ascend 950PR/950DT both return 248 KiB (the 256 KiB UB less an 8 KiB system
//!   reserve): `GetUBSizeInBytes` always (a compile-time constant), `GetRuntimeUBSize` outside
//!   SIMD/SIMT mixed kernels (at most 216 KiB in them, SIMT's data cache taking 32 KiB more).
//!   Stated in each error message, for information.
//!
//! A kernel that wants the size of the modelled chip's UB reads
//! [`get_soc`]`().`[`ub_size`](Soc::ub_size)`()`: the whole UB, with no
//! reserve (the emulator keeps none).

use crate::kernel::ctx::get_soc;
use crate::kernel::error::fail;
use crate::soc::Soc;

/// What both queries return on Ascend 950PR/950DT outside SIMD/SIMT mixed kernels, in bytes:
/// the API pages and the example's README (a 256 KiB UB less an 8 KiB system reserve), and the
/// `TOTAL_UB_SIZE` of that architecture in the implementation's constants.
const ASCEND950_UB_SIZE_IN_BYTES: u32 = 248 * 1024;

/// The error of a query on a chip without it.
#[track_caller]
fn unsupported(api: &'static str) -> ! {
    let soc: Soc = get_soc();
    fail(
        api,
        format!(
            "not supported on {soc} ({}): the vendor documents it for Ascend 950PR/950DT only (a chip not \
             modelled, where it returns {ASCEND950_UB_SIZE_IN_BYTES} bytes); use get_soc().ub_size() = {} for \
             this chip's Unified Buffer",
            soc.product_line(),
            soc.ub_size()
        ),
    )
}

/// The Unified Buffer bytes a kernel may use, a compile-time constant in AscendC (AscendC
/// `GetUBSizeInBytes()`; 248 KiB on Ascend 950PR/950DT, the only chip that has it).
///
/// No modelled chip has it: the vendor's API page lists every one of them as not supported
/// and its implementation returns `0` there (see the [module](self) documentation), so the
/// call fails, naming the chip. It is provided so that ports of 950 kernels fail at the call
/// with that reason rather than at a division by zero.
///
/// ```
/// use ascend_core::prelude::*;
/// use std::panic::{catch_unwind, AssertUnwindSafe};
/// for soc in Soc::ALL {
///     let r = catch_unwind(AssertUnwindSafe(|| {
///         run_on_core(CoreConfig::single(soc), || get_ub_size_in_bytes())
///     }));
///     assert!(r.is_err());
///     let fault = ascend_core::take_last_fault().unwrap();
///     assert_eq!(fault.api, "GetUBSizeInBytes");
///     assert!(fault.message.contains(&format!("not supported on {soc}")));
/// }
/// ```
///
/// # Panics
/// Always, on every modelled chip (Ascend910, Ascend910B, Ascend310P, Ascend310B), with a
/// fault naming the chip.
#[track_caller]
pub fn get_ub_size_in_bytes() -> u32 {
    unsupported("GetUBSizeInBytes")
}

/// The Unified Buffer bytes a kernel may use, read at run time (AscendC
/// `GetRuntimeUBSize()`; on Ascend 950PR/950DT, the only chip that has it, 248 KiB, or at
/// most 216 KiB in a SIMD/SIMT mixed kernel).
///
/// No modelled chip has it: the vendor's API page lists every one of them as not supported
/// and its implementation returns `0` there (see the [module](self) documentation), so the
/// call fails, naming the chip.
///
/// ```
/// use ascend_core::prelude::*;
/// use std::panic::{catch_unwind, AssertUnwindSafe};
/// let r = catch_unwind(AssertUnwindSafe(|| {
///     run_on_core(CoreConfig::single(Soc::Ascend910B), || get_runtime_ub_size())
/// }));
/// assert!(r.is_err());
/// let fault = ascend_core::take_last_fault().unwrap();
/// assert_eq!(fault.api, "GetRuntimeUBSize");
/// assert!(fault.message.contains("not supported on Ascend910B"));
/// ```
///
/// # Panics
/// Always, on every modelled chip (Ascend910, Ascend910B, Ascend310P, Ascend310B), with a
/// fault naming the chip.
#[track_caller]
pub fn get_runtime_ub_size() -> u32 {
    unsupported("GetRuntimeUBSize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ctx::{run_on_core, CoreConfig};
    use crate::kernel::error::take_last_fault;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    fn fault_of(soc: Soc, f: fn() -> u32) -> crate::kernel::error::Fault {
        let r = catch_unwind(AssertUnwindSafe(|| run_on_core(CoreConfig::single(soc), f)));
        assert!(r.is_err(), "{soc}: the query must fail");
        take_last_fault().expect("a recorded fault")
    }

    #[test]
    fn both_queries_fail_on_every_modelled_chip_naming_it() {
        for soc in Soc::ALL {
            for (api, f) in [
                ("GetUBSizeInBytes", get_ub_size_in_bytes as fn() -> u32),
                ("GetRuntimeUBSize", get_runtime_ub_size as fn() -> u32),
            ] {
                let fault = fault_of(soc, f);
                assert_eq!(fault.api, api);
                let m = &fault.message;
                assert!(m.contains(&format!("not supported on {soc} ({})", soc.product_line())), "{m}");
                assert!(m.contains("Ascend 950PR/950DT"), "{m}");
                assert!(m.contains("253952 bytes"), "{m}");
                assert!(m.contains(&format!("get_soc().ub_size() = {}", soc.ub_size())), "{m}");
                assert!(fault.file.ends_with("ub_size.rs"), "the fault points at the call: {}", fault.file);
            }
        }
    }

    #[test]
    fn the_950_value_is_248_kib() {
        assert_eq!(ASCEND950_UB_SIZE_IN_BYTES, 253_952);
    }
}
