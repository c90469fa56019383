//! The public constants AscendC kernels use, under the vendor's names and with the vendor's
//! types (asc-devkit `impl/basic_api/utils/kernel_utils_constants.h`, the device side of it:
//! `ONE_BLK_SIZE` is a `uint16_t` there).
//!
//! ```
//! use ascend_core::prelude::*;
//! // A block of floats, a repeat of halves, the default strides.
//! assert_eq!(ONE_BLK_SIZE as usize / size_of::<f32>(), 8);
//! assert_eq!(ONE_REPEAT_BYTE_SIZE as usize / size_of::<f16>(), 128);
//! let p = UnaryRepeatParams::new(DEFAULT_BLK_STRIDE as u16, 1, DEFAULT_REPEAT_STRIDE, DEFAULT_REPEAT_STRIDE);
//! assert_eq!(p, UnaryRepeatParams::default());
//! ```

/// Bytes of a data block (`uint16_t ONE_BLK_SIZE = 32`).
pub const ONE_BLK_SIZE: u16 = 32;
/// Bytes one repeat of a vector instruction reads (`int32_t ONE_REPEAT_BYTE_SIZE = 256`).
pub const ONE_REPEAT_BYTE_SIZE: i32 = 256;
/// Blocks of one repeat (`int32_t DEFAULT_BLK_NUM = 8`).
pub const DEFAULT_BLK_NUM: i32 = 8;
/// The default block stride, in blocks (`int32_t DEFAULT_BLK_STRIDE = 1`).
pub const DEFAULT_BLK_STRIDE: i32 = 1;
/// The default repeat stride, in blocks: repeats back to back (`uint8_t DEFAULT_REPEAT_STRIDE = 8`).
pub const DEFAULT_REPEAT_STRIDE: u8 = 8;
/// Half the default repeat stride (`uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4`).
pub const HALF_DEFAULT_REPEAT_STRIDE: u8 = 4;
/// The most repeats one instruction takes (`int32_t MAX_REPEAT_TIMES = 255`).
pub const MAX_REPEAT_TIMES: i32 = 255;
/// All 64 lanes of one mask word (`uint64_t FULL_MASK`).
pub const FULL_MASK: u64 = u64::MAX;
/// Lanes of a 16-bit repeat, both mask words (`int32_t FULL_MASK_LEN = 128`).
pub const FULL_MASK_LEN: i32 = 128;
/// Lanes of one mask word (`int32_t HALF_MASK_LEN = 64`).
pub const HALF_MASK_LEN: i32 = 64;
/// `int32_t HALF_FACTOR = 2`.
pub const HALF_FACTOR: i32 = 2;
/// Bits of a byte (`int32_t ONE_BYTE_BIT_SIZE = 8`).
pub const ONE_BYTE_BIT_SIZE: i32 = 8;
/// `int32_t DEFAULT_C0_SIZE = 32`.
pub const DEFAULT_C0_SIZE: i32 = 32;
/// `int32_t DEFAULT_BLOCK_SIZE = 256`.
pub const DEFAULT_BLOCK_SIZE: i32 = 256;
/// The cube's fractal side (`int32_t BLOCK_CUBE = 16`).
pub const BLOCK_CUBE: i32 = 16;
/// Results per repeat of the reductions' default destination stride
/// (`int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1`).
pub const DEFAULT_REDUCE_DST_REP_STRIDE: i32 = 1;
/// `uint8_t B8_BYTE_SIZE = 1`.
pub const B8_BYTE_SIZE: u8 = 1;
/// `uint8_t B16_BYTE_SIZE = 2`.
pub const B16_BYTE_SIZE: u8 = 2;
/// `uint8_t B32_BYTE_SIZE = 4`.
pub const B32_BYTE_SIZE: u8 = 4;
/// `uint8_t B64_BYTE_SIZE = 8`.
pub const B64_BYTE_SIZE: u8 = 8;
/// Floats of one repeat (`uint32_t ONE_REPEAT_FLOAT_SIZE = 64`).
pub const ONE_REPEAT_FLOAT_SIZE: u32 = ONE_REPEAT_BYTE_SIZE as u32 / B32_BYTE_SIZE as u32;
/// Halves of one repeat (`uint32_t ONE_REPEAT_HALF_SIZE = 128`).
pub const ONE_REPEAT_HALF_SIZE: u32 = ONE_REPEAT_BYTE_SIZE as u32 / B16_BYTE_SIZE as u32;
/// Halves of one block (`uint32_t ONE_BLK_HALF_NUM = 16`).
pub const ONE_BLK_HALF_NUM: u32 = ONE_BLK_SIZE as u32 / B16_BYTE_SIZE as u32;
/// Floats of one block (`uint32_t ONE_BLK_FLOAT_NUM = 8`).
pub const ONE_BLK_FLOAT_NUM: u32 = ONE_BLK_SIZE as u32 / B32_BYTE_SIZE as u32;
/// Elements `Brcb` broadcasts each source element to (`uint32_t BRCB_BROADCAST_NUMBER = 8`).
pub const BRCB_BROADCAST_NUMBER: u32 = 8;

/// `g_coreType` of a core that runs both units (`AscendC::MIX`, 0): every core of Ascend910,
/// Ascend310P and Ascend310B. The values are the vendor's (its unit tests set them with
/// `SetGCoreType(0 | 1 | 2)`: 0 the default, 2 for the vector core).
pub const MIX: i32 = 0;
/// `g_coreType` of a cube core (`AscendC::AIC`, 1): an `AicOnly` kernel's core on Ascend910B.
pub const AIC: i32 = 1;
/// `g_coreType` of a vector core (`AscendC::AIV`, 2): an `AivOnly` kernel's core on Ascend910B.
pub const AIV: i32 = 2;
