//! The system workspace: the global memory the framework and the high-level APIs (`Matmul`)
//! use behind the kernel's back (AscendC `SetSysWorkspace`, `GetSysWorkSpacePtr`,
//! `GetUserWorkspace`, and the host's `PlatformAscendC::GetLibApiWorkSpaceSize`).
//!
//! The host allocates one workspace of the user's bytes plus the system's
//! ([`get_lib_api_workspace_size`]) and passes it to the kernel; the kernel hands it to
//! [`set_sys_workspace`] (the vendor's `SetSysWorkSpace` page: needed for `Matmul` whenever the
//! framework does not set it itself), and finds its own part with [`get_user_workspace`],
//! which lies [`reserved_workspace`] bytes in.
//!
//! **Vendor behaviour** (`include/basic_api/kernel_operator_swap_mem_intf.h`,
//! `impl/basic_api/dav_c220/kernel_operator_common_impl.h`,
//! `impl/basic_api/utils/kernel_utils_constants.h`):
//! - the system workspace pointer is per core (`__BLOCK_LOCAL__ g_sysWorkspaceReserved`), null
//!   until set; `SetSysWorkspace` sets it only while it is null (the first call wins) and the CPU
//!   debug build asserts a non-null argument;
//! - `GetUserWorkspace(workspace)` is `g_sysWorkspaceReserved + RESERVED_WORKSPACE` (the argument
//!   is ignored on the device); here, before any `SetSysWorkspace`, it is `workspace +
//!   RESERVED_WORKSPACE`, what the framework's launch stub (`SetSysWorkspaceForce(workspace)`)
//!   makes of it;
//! - `RESERVED_WORKSPACE` is 16 MiB on Ascend910B (`__NPU_ARCH__` 2201) and Ascend310B (3002),
//!   2 MiB on Ascend910 (1001) and Ascend310P (2002). The emulator takes it as
//!   `GetLibApiWorkSpaceSize()` too: the user's part starts right after the system's.
//! - The pages list Atlas 200I/500 A2 (Ascend310B) as not supported: an error here.

use crate::kernel::ctx::with_core;
use crate::kernel::error::ensure;
use crate::memory::tensor::GmAddr;
use crate::scalar::sys_var::require_chip;
use crate::Soc;

/// The chips with the workspace APIs.
const CHIPS: &[Soc] = &[Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P];

/// The bytes the system reserves at the start of the workspace on `soc` (the vendor's
/// `RESERVED_WORKSPACE`): 16 MiB on Ascend910B and Ascend310B, 2 MiB on Ascend910 and
/// Ascend310P.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(reserved_workspace(Soc::Ascend910B), 16 << 20);
/// assert_eq!(reserved_workspace(Soc::Ascend310P), 2 << 20);
/// ```
pub const fn reserved_workspace(soc: Soc) -> usize {
    match soc {
        Soc::Ascend910B | Soc::Ascend310B => 16 * 1024 * 1024,
        Soc::Ascend910 | Soc::Ascend310P => 2 * 1024 * 1024,
    }
}

/// The system workspace the AscendC APIs need, in bytes (the host's
/// `PlatformAscendC::GetLibApiWorkSpaceSize()`): [`reserved_workspace`] of the chip, the
/// offset at which [`get_user_workspace`] puts the user's part. A host allocates the user's
/// bytes plus these.
///
/// ```
/// use ascend_core::prelude::*;
/// let usr_size = 256;
/// let total = usr_size + get_lib_api_workspace_size(Soc::Ascend910B) as usize;
/// assert_eq!(total, 256 + 16 * 1024 * 1024);
/// ```
pub const fn get_lib_api_workspace_size(soc: Soc) -> u32 {
    reserved_workspace(soc) as u32
}

/// Sets this core's system workspace pointer to `workspace`, the kernel's workspace argument
/// (AscendC `SetSysWorkspace(workspace)`), unless it is set already: the first call wins, as
/// on the device.
///
/// ```
/// use ascend_core::prelude::*;
/// let ws = GmRegion::zeroed(get_lib_api_workspace_size(Soc::Ascend910B) as usize + 1024);
/// assert!(get_sys_workspace_ptr().is_none());
/// set_sys_workspace(ws.addr());
/// assert_eq!(get_sys_workspace_ptr(), Some(ws.addr()));
/// // The user's part starts after the system's 16 MiB.
/// assert_eq!(get_user_workspace(ws.addr()).remaining_bytes(), 1024);
/// ```
///
/// # Panics
/// Panics on Ascend310B (not supported), or if the region has fewer than
/// [`get_lib_api_workspace_size`] bytes from `workspace` on (the host must allocate them).
#[track_caller]
pub fn set_sys_workspace(workspace: GmAddr) {
    let api = "SetSysWorkspace";
    let soc = require_chip(api, CHIPS);
    let need = reserved_workspace(soc);
    ensure(workspace.remaining_bytes() >= need, api, || {
        format!(
            "workspace has {} bytes from here, fewer than the system workspace of {need} bytes on {soc} \
             (GetLibApiWorkSpaceSize()): the host allocates the user's bytes plus GetLibApiWorkSpaceSize()",
            workspace.remaining_bytes()
        )
    });
    with_core(|c| {
        if c.sys_workspace.get().is_none() {
            c.sys_workspace.set(Some(workspace));
        }
    });
}

/// This core's system workspace pointer (AscendC `GetSysWorkSpacePtr()`): `None` (the vendor's
/// `nullptr`) until [`set_sys_workspace`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sys_workspace_ptr(), None);
/// ```
///
/// # Panics
/// Panics on Ascend310B (not supported).
#[track_caller]
pub fn get_sys_workspace_ptr() -> Option<GmAddr> {
    require_chip("GetSysWorkSpacePtr", CHIPS);
    with_core(|c| c.sys_workspace.get())
}

/// The user's part of the workspace (AscendC `GetUserWorkspace(workspace)`): the system
/// workspace plus [`reserved_workspace`] bytes; before any [`set_sys_workspace`], `workspace`
/// plus those bytes (what the framework's launch stub makes of it).
///
/// ```
/// use ascend_core::prelude::*;
/// let ws = GmRegion::zeroed(2 * 1024 * 1024 + 64);
/// let cfg = CoreConfig::single(Soc::Ascend310P);
/// run_on_core(cfg, || assert_eq!(get_user_workspace(ws.addr()).remaining_bytes(), 64));
/// ```
///
/// # Panics
/// Panics on Ascend310B (not supported), or if the user's part would start beyond the region.
#[track_caller]
pub fn get_user_workspace(workspace: GmAddr) -> GmAddr {
    let api = "GetUserWorkspace";
    let soc = require_chip(api, CHIPS);
    let base = with_core(|c| c.sys_workspace.get()).unwrap_or(workspace);
    let need = reserved_workspace(soc);
    ensure(base.remaining_bytes() >= need, api, || {
        format!(
            "the workspace has {} bytes from the system workspace on, fewer than the {need} bytes the system \
             reserves on {soc} before the user's part (GetLibApiWorkSpaceSize())",
            base.remaining_bytes()
        )
    });
    base.add::<u8>(need)
}
