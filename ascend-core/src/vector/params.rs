//! Repeat parameters: the block and repeat strides of each operand, in 32-byte blocks.

/// Strides of a one-source instruction (AscendC `UnaryRepeatParams`), in AscendC's field order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnaryRepeatParams {
    /// Blocks between consecutive blocks of one repeat of `dst`.
    pub dst_blk_stride: u16,
    /// Blocks between consecutive blocks of one repeat of `src`.
    pub src_blk_stride: u16,
    /// Blocks between the starts of consecutive repeats of `dst`.
    pub dst_rep_stride: u8,
    /// Blocks between the starts of consecutive repeats of `src`.
    pub src_rep_stride: u8,
}

impl Default for UnaryRepeatParams {
    fn default() -> Self {
        UnaryRepeatParams { dst_blk_stride: 1, src_blk_stride: 1, dst_rep_stride: 8, src_rep_stride: 8 }
    }
}

impl UnaryRepeatParams {
    /// `{dstBlkStride, srcBlkStride, dstRepStride, srcRepStride}`.
    pub const fn new(
        dst_blk_stride: u16,
        src_blk_stride: u16,
        dst_rep_stride: u8,
        src_rep_stride: u8,
    ) -> Self {
        UnaryRepeatParams { dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride }
    }
}

/// Strides of a two-source instruction (AscendC `BinaryRepeatParams`), in AscendC's field
/// order; the default is `{1, 1, 1, 8, 8, 8}` (contiguous).
///
/// ```
/// use ascend_core::prelude::*;
/// let p: BinaryRepeatParams = [1, 1, 1, 8, 8, 8].into();
/// assert_eq!(p, BinaryRepeatParams::default());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BinaryRepeatParams {
    /// Blocks between consecutive blocks of one repeat of `dst`.
    pub dst_blk_stride: u8,
    /// Blocks between consecutive blocks of one repeat of `src0`.
    pub src0_blk_stride: u8,
    /// Blocks between consecutive blocks of one repeat of `src1`.
    pub src1_blk_stride: u8,
    /// Blocks between the starts of consecutive repeats of `dst`.
    pub dst_rep_stride: u8,
    /// Blocks between the starts of consecutive repeats of `src0`.
    pub src0_rep_stride: u8,
    /// Blocks between the starts of consecutive repeats of `src1`.
    pub src1_rep_stride: u8,
}

impl Default for BinaryRepeatParams {
    fn default() -> Self {
        BinaryRepeatParams::new(1, 1, 1, 8, 8, 8)
    }
}

impl BinaryRepeatParams {
    /// `{dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride}`.
    pub const fn new(
        dst_blk_stride: u8,
        src0_blk_stride: u8,
        src1_blk_stride: u8,
        dst_rep_stride: u8,
        src0_rep_stride: u8,
        src1_rep_stride: u8,
    ) -> Self {
        BinaryRepeatParams {
            dst_blk_stride,
            src0_blk_stride,
            src1_blk_stride,
            dst_rep_stride,
            src0_rep_stride,
            src1_rep_stride,
        }
    }
}

impl From<[u8; 6]> for BinaryRepeatParams {
    fn from(a: [u8; 6]) -> Self {
        BinaryRepeatParams::new(a[0], a[1], a[2], a[3], a[4], a[5])
    }
}
