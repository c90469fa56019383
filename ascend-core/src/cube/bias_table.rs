//! The bias table (BT, position `C2` on Ascend910B): `DataCopy` from L1 into it (AscendC
//! `DataCopy(dst C2, src C1, DataCopyParams)`, the "DataCopy（L1ToBiasTable Buffer数据搬运）"
//! page; pipe MTE1), read by [`mmad_with_bias`](super::mmad::mmad_with_bias).
//!
//! The copy moves `block_count` rows; row `r` reads `block_len × 64` bytes of `src` from byte
//! `r × (block_len × 64 + src_stride × 32)` and writes them, converted to the destination
//! type, at byte `r × (row_out + dst_stride × 64)` of `dst`, where `row_out = block_len × 64
//! × size_of::<D>() / size_of::<S>()`. The page gives `blockLen` and `dstGap` in 64-byte units
//! on Atlas A2/A3 and `srcGap` in 32-byte blocks, without saying which side `blockLen`
//! measures when the types differ; the vendor's Matmul (`load_bias_to_c2.h`: `lenBurst =
//! (dataLen × oneDataLen × 2 + 63) / 64`, one half or float bias per `dataLen`) counts the
//! source's bytes, and so does this.
//!
//! | `src` (L1) | `dst` (BT) | conversion |
//! | --- | --- | --- |
//! | `float` | `float` | none |
//! | `int32_t` | `int32_t` | none |
//! | `half` | `float` | exact (every `half` is a `float`) |
//!
//! The count form `DataCopy(dst, src, count)` is not provided (the vendor's samples and its
//! Matmul use this one).

use crate::cube::{check_chip, check_operand, check_range};
use crate::element::{f16, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::{DataCopyParams, MAX_BLOCK_COUNT};
use crate::memory::tensor::LocalTensor;
use crate::observe::sanitizer::Span;
use crate::position::Memory;
use crate::soc::Soc;
use crate::sync::event::pipe_t;

const API: &str = "DataCopy (L1 -> BiasTable)";

mod sealed {
    pub trait Sealed<S> {}
}

/// A bias-table element type `Self` that [`data_copy_bias`] writes from L1 elements of type
/// `S` (Atlas A2/A3: `float` from `float` or `half`, `int32_t` from `int32_t`). Sealed; other
/// pairs do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::bias_table::data_copy_bias;
/// fn f(d: &LocalTensor<f16>, s: &LocalTensor<f16>) { data_copy_bias(d, s, &DataCopyParams::default()); }
/// ```
pub trait BiasTableOut<S: Element>: Element + sealed::Sealed<S> {}

macro_rules! pairs {
    ($($d:ty, $s:ty;)*) => {$(
        impl sealed::Sealed<$s> for $d {}
        impl BiasTableOut<$s> for $d {}
    )*};
}
pairs! { f32, f32; i32, i32; f32, f16; }

/// Copies bias rows from L1 (`src`, position `C1`/`A1`/`B1`) into the bias table (`dst`,
/// position `C2`), `half` widened to `float` on the way (AscendC `DataCopy(dst, src,
/// DataCopyParams)` with a `C2` destination, pipe MTE1): see the [module](self) for the
/// layout and units.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::bias_table::data_copy_bias;
/// let l1 = LocalTensor::<f16>::new(TPosition::C1, 0, 64);
/// l1.copy_from_slice(&(0..64).map(|i| f16::from_f32(i as f32 * 0.5)).collect::<Vec<_>>());
/// let bt = LocalTensor::<f32>::new(TPosition::C2, 0, 64);
/// // two 64-byte blocks of half: 64 values, 256 bytes of float in the table
/// data_copy_bias(&bt, &l1, &DataCopyParams::new(1, 2, 0, 0));
/// assert_eq!(bt.to_vec()[63], 31.5);
/// ```
///
/// # Panics
/// Panics if the chip is not Ascend910B (the page: Atlas A2/A3 only; the bias table of
/// Ascend310B is not modelled), `dst` is not in the bias table or not 64-byte aligned, `src`
/// is not in L1 or not 32-byte aligned, `block_count > 4095`, or a side's rows do not fit in
/// its tensor.
#[track_caller]
pub fn data_copy_bias<D: BiasTableOut<S>, S: Element>(
    dst: &LocalTensor<D>,
    src: &LocalTensor<S>,
    params: &DataCopyParams,
) {
    check_chip(API, &[Soc::Ascend910B]);
    check_operand(dst, API, "dst", &[Memory::BiasTable], 64);
    check_operand(src, API, "src", &[Memory::L1], 32);
    let DataCopyParams { block_count, block_len, src_stride, dst_stride } = *params;
    check_range(API, "blockCount", block_count.into(), 0, MAX_BLOCK_COUNT.into());
    if block_count == 0 || block_len == 0 {
        return;
    }
    let rows = usize::from(block_count);
    let s_row = usize::from(block_len) * 64;
    let d_row = s_row / S::SIZE * D::SIZE;
    let s_pitch = s_row + usize::from(src_stride) * 32;
    let d_pitch = d_row + usize::from(dst_stride) * 64;
    let (s_span, d_span) = ((rows - 1) * s_pitch + s_row, (rows - 1) * d_pitch + d_row);
    for (name, gap, span, have) in
        [("src", "srcGap", s_span, src.get_length()), ("dst", "dstGap", d_span, dst.get_length())]
    {
        ensure(span <= have, API, || {
            let stride = if name == "src" { src_stride } else { dst_stride };
            format!(
                "blockCount = {block_count}, blockLen = {block_len} (64-byte units of src), {gap} = {stride} span \
                 {span} bytes of {name}, which has {have} bytes"
            )
        });
    }
    if crate::observe::events::is_on() {
        let reads = Span::of(src, 0).runs((0..rows).map(|r| (r * s_pitch, s_row)));
        let writes = Span::of(dst, 0).runs((0..rows).map(|r| (r * d_pitch, d_row)));
        crate::observe::events::on_cube(API, pipe_t::PIPE_MTE1, &[], &reads, &writes, &[], false);
    }
    let (ps, pd) = (src.ptr() as *const S, dst.ptr());
    if S::SIZE == D::SIZE {
        for r in 0..rows {
            // SAFETY: row `r` lies inside both tensors (the spans were checked); L1 and the
            // bias table are distinct arenas. Same-size pairs are same-type pairs (bits moved).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    ps.cast::<u8>().add(r * s_pitch),
                    pd.cast::<u8>().add(r * d_pitch),
                    s_row,
                )
            };
        }
        return;
    }
    // `half` -> `float`: exact through `f64`.
    let (n, s_pitch, d_pitch) = (s_row / S::SIZE, s_pitch / S::SIZE, d_pitch / D::SIZE);
    for r in 0..rows {
        for i in 0..n {
            // SAFETY: row `r`'s `n` elements lie inside both tensors (the spans were checked);
            // L1 and the bias table are distinct arenas.
            unsafe { pd.add(r * d_pitch + i).write(D::from_f64(ps.add(r * s_pitch + i).read().to_f64())) };
        }
    }
}
