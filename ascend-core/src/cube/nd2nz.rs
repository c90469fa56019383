//! `DataCopy` from global memory to L1 with the ND → NZ conversion on the way (AscendC's
//! `DataCopy(LocalTensor, GlobalTensor, Nd2NzParams)`, pipe MTE2).
//!
//! The source is `ndNum` row-major (ND) matrices of `nValue` rows by `dValue` columns; the
//! destination gets each of them in the cube's NZ layout: the columns are cut into 32-byte
//! blocks of `C0 = 32 / size_of::<T>()` elements, and every block column becomes a "Z"
//! column whose rows are `dstNzNStride` blocks apart, the Z columns `dstNzC0Stride` blocks
//! apart:
//!
//! ```text
//! dst[nd * dstNzMatrixStride + (c / C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0 + c % C0]
//!     = src[nd * srcNdMatrixStride + r * srcDValue + c]      for nd < ndNum, r < nValue, c < dValue
//! ```
//!
//! When `dValue` is not a whole number of blocks, the last block of every row is completed
//! with zeros (columns `dValue..ceil(dValue / C0) * C0`). Nothing else of the destination is
//! written: rows beyond `nValue` (a Z column's padding up to a multiple of 16 rows) keep
//! their bytes. The matrices are written in order, so with `dstNzMatrixStride = 0` the last
//! one is what stays (the vendor documents that each matrix then overwrites the first).

use crate::cube::{check_operand, check_range};
use crate::element::{bf16, f16, Element, BLOCK_BYTES};
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::observe::sanitizer::GmRows;
use crate::position::Memory;
use crate::soc::Soc;
use crate::sync::event::pipe_t;

const API: &str = "DataCopy";

/// Parameters of [`data_copy_nd2nz`] (AscendC `Nd2NzParams`, with its Ascend910B field
/// types). Strides of the source and `dst_nz_matrix_stride` are in elements, the other two
/// destination strides in 32-byte blocks (`C0_SIZE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Nd2NzParams {
    /// Number of ND matrices, `0..=4095`; 0 copies nothing.
    pub nd_num: u16,
    /// Rows of each ND matrix, `0..=16384`; 0 copies nothing.
    pub n_value: u16,
    /// Columns of each ND matrix, `0..=65535`; 0 copies nothing.
    pub d_value: u16,
    /// Elements from the start of one source matrix to the next, `0..=65535` (0 reads the
    /// first matrix again for every one; unused when `nd_num = 1`).
    pub src_nd_matrix_stride: u16,
    /// Elements from one source row to the next, `1..=65535`.
    pub src_d_value: u16,
    /// 32-byte blocks from one Z column (block column) of the destination to the next,
    /// `1..=16384`.
    pub dst_nz_c0_stride: u16,
    /// 32-byte blocks from one row of a Z column to the next, `1..=16384`.
    pub dst_nz_n_stride: u16,
    /// Elements from the start of one destination NZ matrix to the next, `0..=16384`.
    pub dst_nz_matrix_stride: u16,
}

impl Nd2NzParams {
    /// The parameters in AscendC's constructor order.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        nd_num: u16,
        n_value: u16,
        d_value: u16,
        src_nd_matrix_stride: u16,
        src_d_value: u16,
        dst_nz_c0_stride: u16,
        dst_nz_n_stride: u16,
        dst_nz_matrix_stride: u16,
    ) -> Self {
        Nd2NzParams {
            nd_num,
            n_value,
            d_value,
            src_nd_matrix_stride,
            src_d_value,
            dst_nz_c0_stride,
            dst_nz_n_stride,
            dst_nz_matrix_stride,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type [`data_copy_nd2nz`] moves (Ascend910B: `int8_t`, `uint8_t`, `int16_t`,
/// `uint16_t`, `int32_t`, `uint32_t`, `half`, `bfloat16_t`, `float`). Sealed; the 64-bit
/// types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::nd2nz::{data_copy_nd2nz, Nd2NzParams};
/// fn f(d: &LocalTensor<u64>, s: &GlobalTensor<u64>) { data_copy_nd2nz(d, s, &Nd2NzParams::default()); }
/// ```
pub trait Nd2NzElement: Element + sealed::Sealed {}

macro_rules! nd2nz_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Nd2NzElement for $t {}
    )*};
}
nd2nz_elements!(i8, u8, i16, u16, i32, u32, f16, bf16, f32);

/// Greatest common divisor.
const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Whether two blocks of one destination NZ matrix coincide: the block of row `r`, block
/// column `j` starts at block `r * n_stride + j * c0_stride` (`r < rows`, `j < cols`).
///
/// Two blocks collide iff `dr * n_stride = dj * c0_stride` for some `0 < dr < rows` and
/// `0 < dj < cols` (`dr = 0` forces `dj = 0` as both strides are positive, and the signs of
/// `dr` and `dj` agree). With `g = gcd(n_stride, c0_stride)` the positive solutions are the
/// multiples of `(dr, dj) = (c0_stride / g, n_stride / g)`, so they exist iff the smallest one
/// fits: `c0_stride / g < rows` and `n_stride / g < cols`.
pub(crate) const fn blocks_collide(rows: u64, cols: u64, n_stride: u64, c0_stride: u64) -> bool {
    let g = gcd(n_stride, c0_stride);
    c0_stride / g < rows && n_stride / g < cols
}

/// Copies `params.nd_num` ND matrices from global memory into the L1 buffer in NZ layout
/// (AscendC `DataCopy(dst, src, Nd2NzParams)`, pipe MTE2): see the [module](self) for the
/// layout. `C0 = 32 / size_of::<T>()` elements.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::nd2nz::{data_copy_nd2nz, Nd2NzParams};
/// // a 2 x 20 half matrix: columns 0..16 form the first Z column, 16..20 (+ 12 zeros) the second
/// let src: Vec<f16> = (0..40).map(|i| f16::from_f32(i as f32)).collect();
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&src));
/// let mut gm = GlobalTensor::<f16>::new();
/// gm.set_global_buffer(region.addr(), 40);
/// let mut l1 = LocalMemAllocator::<L1>::new();
/// let a1 = l1.alloc::<f16>(2 * 16 * 16);
/// // rows 1 block apart, Z columns 16 blocks (one 16 x 16 fractal) apart
/// data_copy_nd2nz(&a1, &gm, &Nd2NzParams::new(1, 2, 20, 0, 20, 16, 1, 0));
/// let nz = a1.to_vec();
/// assert_eq!(nz[16].to_f32(), 20.0); // row 1, column 0
/// assert_eq!(nz[256 + 3].to_f32(), 19.0); // row 0, column 19
/// assert_eq!(nz[256 + 4].to_f32(), 0.0); // padding of row 0's last block
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B (Ascend310P has the instruction but stages it through
/// 8 KiB of the Unified Buffer, which is not modelled; Ascend910 and Ascend310B lack it),
/// `dst` is not in the L1 buffer or not 32-byte aligned, `src` is unbound, a parameter is
/// outside its range (`nd_num <= 4095`, `n_value <= 16384`, `src_d_value >= 1`,
/// `dst_nz_c0_stride` and `dst_nz_n_stride` in `1..=16384`, `dst_nz_matrix_stride <= 16384`),
/// the destination or the source extent exceeds its tensor, or two blocks of one destination
/// matrix coincide (the hardware would write them in no defined order).
#[track_caller]
pub fn data_copy_nd2nz<T: Nd2NzElement>(dst: &LocalTensor<T>, src: &GlobalTensor<T>, params: &Nd2NzParams) {
    crate::kernel::ctx::check_cancel();
    let soc = crate::kernel::ctx::get_soc();
    if soc == Soc::Ascend310P {
        fail(
            API,
            "DataCopy with Nd2NzParams (GM to L1, ND to NZ) is not modelled on Ascend310P (there it stages the data \
             through an 8 KiB scratch area of the Unified Buffer); it is modelled on Ascend910B",
        );
    }
    crate::cube::check_chip(API, &[Soc::Ascend910B]);
    check_operand(dst, API, "dst", &[Memory::L1], BLOCK_BYTES);
    let src_base = src.base_ptr(API);
    let p = *params;
    check_range(API, "ndNum", p.nd_num.into(), 0, 4095);
    check_range(API, "nValue", p.n_value.into(), 0, 16384);
    check_range(API, "srcDValue", p.src_d_value.into(), 1, 65535);
    check_range(API, "dstNzC0Stride", p.dst_nz_c0_stride.into(), 1, 16384);
    check_range(API, "dstNzNStride", p.dst_nz_n_stride.into(), 1, 16384);
    check_range(API, "dstNzMatrixStride", p.dst_nz_matrix_stride.into(), 0, 16384);
    if p.nd_num == 0 || p.n_value == 0 || p.d_value == 0 {
        return;
    }
    let c0 = (BLOCK_BYTES / T::SIZE) as u64;
    let (nd, rows, d) = (u64::from(p.nd_num), u64::from(p.n_value), u64::from(p.d_value));
    let cols = d.div_ceil(c0);
    let (c0_stride, n_stride) = (u64::from(p.dst_nz_c0_stride), u64::from(p.dst_nz_n_stride));
    let (m_stride, src_m_stride, src_d) =
        (u64::from(p.dst_nz_matrix_stride), u64::from(p.src_nd_matrix_stride), u64::from(p.src_d_value));
    // Extents in elements, from the largest offsets (u64: no overflow from u16 inputs).
    let dst_end = (nd - 1) * m_stride + (cols - 1) * c0_stride * c0 + (rows - 1) * n_stride * c0 + c0;
    let src_end = (nd - 1) * src_m_stride + (rows - 1) * src_d + d;
    ensure(dst_end <= dst.get_size() as u64, API, || {
        format!(
            "the NZ destination spans {dst_end} {} elements (ndNum = {nd}, nValue = {rows}, dValue = {d} in {} \
             block columns, dstNzC0Stride = {c0_stride}, dstNzNStride = {n_stride}, dstNzMatrixStride = {m_stride}), but dst \
             has {} elements",
            T::DTYPE,
            cols,
            dst.get_size()
        )
    });
    ensure(src_end <= src.get_size() as u64, API, || {
        format!(
            "the ND source spans {src_end} {} elements (ndNum = {nd}, srcNdMatrixStride = {src_m_stride}, nValue = \
             {rows}, srcDValue = {src_d}, dValue = {d}), but src has {} elements",
            T::DTYPE,
            src.get_size()
        )
    });
    ensure(!blocks_collide(rows, cols, n_stride, c0_stride), API, || {
        let g = gcd(n_stride, c0_stride);
        format!(
            "dstNzNStride = {n_stride} and dstNzC0Stride = {c0_stride} blocks make row {} of block column 0 and row 0 \
             of block column {} land on the same 32-byte block (nValue = {rows}, {cols} block columns): overlapping \
             L1 writes have no defined order",
            c0_stride / g,
            n_stride / g
        )
    });

    let (c0, cols, rows) = (c0 as usize, cols as usize, rows as usize);
    let (c0_stride, n_stride) = (c0_stride as usize * c0, n_stride as usize * c0);
    let (d, src_d) = (d as usize, src_d as usize);
    if crate::observe::events::is_on() {
        let sz = T::SIZE;
        let gm: Vec<GmRows> = (0..nd as usize)
            .map(|m| GmRows::of(src, m * usize::from(p.src_nd_matrix_stride) * sz, rows, d * sz, src_d * sz))
            .collect();
        // The 32-byte blocks written: per matrix and block column, `rows` blocks `n_stride`
        // apart (one run when they touch).
        let blk = c0 * sz;
        let per_col = if n_stride == c0 { 1 } else { rows };
        let mat = usize::from(p.dst_nz_matrix_stride);
        let runs = (0..nd as usize).flat_map(|m| {
            (0..cols).flat_map(move |j| {
                let col = (m * mat + j * c0_stride) * sz;
                (0..per_col).map(move |r| {
                    if per_col == 1 {
                        (col, rows * blk)
                    } else {
                        (col + r * n_stride * sz, blk)
                    }
                })
            })
        });
        let l1 = crate::observe::sanitizer::spans_of(
            dst,
            nd as usize * cols * per_col,
            runs,
            dst_end as usize * sz,
        );
        crate::observe::events::on_cube(API, pipe_t::PIPE_MTE2, &gm, &[], &l1, &[], false);
    }
    // One source row, zero-padded to whole blocks (the padding is never overwritten).
    let mut row = vec![T::ZERO; cols * c0];
    let dst_base = dst.ptr();
    for m in 0..nd as usize {
        let s_mat = m * usize::from(p.src_nd_matrix_stride);
        let d_mat = m * usize::from(p.dst_nz_matrix_stride);
        for r in 0..rows {
            // SAFETY: the source extent was checked against the bound tensor (`src_end`);
            // `row` is a host buffer of at least `d` elements.
            unsafe {
                crate::memory::gm_io::load(
                    row.as_mut_ptr().cast::<u8>(),
                    src_base.add(s_mat + r * src_d).cast::<u8>(),
                    d * T::SIZE,
                )
            };
            let d_row = d_mat + r * n_stride;
            for (j, block) in row.chunks_exact(c0).enumerate() {
                // SAFETY: the block ends at or before `dst_end` (checked) inside `dst`; the
                // host buffer cannot overlap the L1 arena.
                unsafe {
                    std::ptr::copy_nonoverlapping(block.as_ptr(), dst_base.add(d_row + j * c0_stride), c0);
                }
            }
        }
    }
}
