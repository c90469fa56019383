//! Tiling data in global memory, the AscendC way: the host fills a plain struct (AscendC's
//! `BEGIN_TILING_DATA_DEF` … `END_TILING_DATA_DEF`), copies its bytes to a GM buffer and passes
//! the buffer's address as the kernel's last argument; the kernel reads it back with
//! [`get_tiling_data`] (AscendC `GET_TILING_DATA(tilingData, tiling)`).
//!
//! Here the struct is any `#[repr(C)]` type that is [`bytemuck::Pod`] (fixed-size integer and
//! float fields, no padding, no pointers), and the host side is
//! `GmBuffer::from_tiling(&data)` in `ascend_runtime`.
//!
//! ```
//! use ascend_core::prelude::*;
//! use bytemuck::{Pod, Zeroable};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
//! struct AddTiling {
//!     total_length: u32,
//!     tile_num: u32,
//! }
//!
//! let host = AddTiling { total_length: 16384, tile_num: 8 };
//! let gm = GmRegion::from_bytes(bytemuck::bytes_of(&host)); // GmBuffer::from_tiling(&host)
//! let tiling: AddTiling = get_tiling_data(gm.addr()); // in the kernel
//! assert_eq!(tiling, host);
//! ```

use crate::kernel::error::ensure;
use crate::memory::tensor::{GlobalTensor, GmAddr};

/// Reads the tiling struct `T` the host wrote at `tiling` (AscendC `GET_TILING_DATA`).
///
/// # Panics
/// Panics if fewer than `size_of::<T>()` bytes lie between `tiling` and the end of its
/// buffer (a tiling buffer of another struct, or the wrong argument).
#[track_caller]
pub fn get_tiling_data<T: bytemuck::Pod>(tiling: GmAddr) -> T {
    let size = core::mem::size_of::<T>();
    ensure(tiling.remaining_bytes() >= size, "GET_TILING_DATA", || {
        format!(
            "the tiling buffer holds {} bytes, the tiling struct {} needs {size}",
            tiling.remaining_bytes(),
            core::any::type_name::<T>()
        )
    });
    let mut gm = GlobalTensor::<u8>::new();
    gm.set_global_buffer(tiling, size);
    let bytes: Vec<u8> = (0..size).map(|i| gm.get_value(i)).collect();
    bytemuck::pod_read_unaligned(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::tensor::GmRegion;

    #[test]
    #[should_panic(
        expected = "GET_TILING_DATA: the tiling buffer holds 4 bytes, the tiling struct [u32; 2] needs 8"
    )]
    fn too_small_a_buffer() {
        let gm = GmRegion::from_bytes(&[0; 4]);
        let _: [u32; 2] = get_tiling_data(gm.addr());
    }

    #[test]
    fn unaligned_offsets_read() {
        let gm = GmRegion::from_bytes(&[9, 1, 0, 0, 0, 2, 0, 0, 0]);
        let v: [u32; 2] = get_tiling_data(gm.addr().add::<u8>(1));
        assert_eq!(v, [1, 2]);
    }
}
