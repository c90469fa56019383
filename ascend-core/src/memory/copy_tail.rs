//! GM ↔ UB copies of any length: [`data_copy_tail`], the `copy_in` / `copy_out` step of a
//! kernel whose tiles may end in a partial 32-byte block.
//!
//! AscendC kernels that handle tails write the same two branches every time: `DataCopy` when
//! the length is whole 32-byte blocks, `DataCopyPad` (one row of `count` elements) when it
//! is not. `data_copy_tail` is that choice, made per call:
//!
//! | length | GM → UB | UB → GM |
//! | --- | --- | --- |
//! | whole 32-byte blocks | `DataCopy(dst, src, count)` | `DataCopy(dst, src, count)` |
//! | a partial block (Ascend910B, Ascend310B) | `DataCopyPad`, the rest of the last UB block zero-filled | `DataCopyPad`, exactly `count` elements written |
//! | a partial block (Ascend910, Ascend310P) | error naming the chip | error naming the chip |

use crate::element::{Element, BLOCK_BYTES};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::fail;
use crate::memory::copy::{
    data_copy, data_copy_pad, data_copy_pad_to_gm, DataCopyExtParams, DataCopyPadExtParams,
};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::soc::Soc;

/// A pair of tensors [`data_copy_tail`] copies between: UB ← GM or GM ← UB.
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(a: &LocalTensor<f32>, b: &LocalTensor<f32>) { data_copy_tail(a, b, 8) } // UB → UB
/// ```
pub trait DataCopyTail<Src> {
    /// Copies `count` elements from `src` to `self`.
    #[track_caller]
    fn copy_tail_from(&self, src: &Src, count: usize);
}

/// Whether `count` elements of `T` are a whole number of 32-byte blocks.
///
/// ```
/// use ascend_core::copy_tail::is_block_aligned;
/// assert!(is_block_aligned::<half::f16>(16) && !is_block_aligned::<f32>(7));
/// ```
pub const fn is_block_aligned<T: Element>(count: usize) -> bool {
    count * T::SIZE % BLOCK_BYTES == 0
}

#[track_caller]
fn check_tail_chip<T: Element>(count: usize) {
    let soc = get_soc();
    if !matches!(soc, Soc::Ascend910B | Soc::Ascend310B) {
        fail(
            "DataCopyTail",
            format!(
                "count = {count} {} elements is {} bytes, not whole 32-byte blocks, and {soc} ({}) has no \
                 DataCopyPad: make the length a multiple of {} elements on this chip",
                T::DTYPE,
                count * T::SIZE,
                soc.product_line(),
                BLOCK_BYTES / T::SIZE
            ),
        );
    }
}

fn one_row<T: Element>(count: usize) -> DataCopyExtParams {
    DataCopyExtParams::new(1, (count * T::SIZE) as u32, 0, 0)
}

impl<T: Element> DataCopyTail<GlobalTensor<T>> for LocalTensor<T> {
    #[track_caller]
    fn copy_tail_from(&self, src: &GlobalTensor<T>, count: usize) {
        if is_block_aligned::<T>(count) {
            data_copy(self, src, count);
        } else {
            check_tail_chip::<T>(count);
            data_copy_pad(self, src, &one_row::<T>(count), &DataCopyPadExtParams::new(true, 0, 0, T::ZERO));
        }
    }
}

impl<T: Element> DataCopyTail<LocalTensor<T>> for GlobalTensor<T> {
    #[track_caller]
    fn copy_tail_from(&self, src: &LocalTensor<T>, count: usize) {
        if is_block_aligned::<T>(count) {
            data_copy(self, src, count);
        } else {
            check_tail_chip::<T>(count);
            data_copy_pad_to_gm(self, src, &one_row::<T>(count));
        }
    }
}

/// Copies `count` elements GM → UB or UB → GM, whatever the length: `DataCopy` for whole
/// 32-byte blocks, `DataCopyPad` for a partial last block (GM → UB zero-fills the rest of the
/// last UB block; UB → GM writes exactly `count` elements). The tail-safe `copy_in` /
/// `copy_out` of a kernel: `DataCopy(xLocal, xGm[off], len)` becomes
/// `data_copy_tail(&x_local, &x_gm.view(off), len)`.
///
/// ```
/// use ascend_core::prelude::*;
///
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0]));
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 5);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let ub = buf.get::<f32>();
/// duplicate(&ub, 9.0f32, 8);
/// data_copy_tail(&ub, &gm, 5); // 20 bytes: DataCopyPad, the block's other 3 lanes zeroed
/// assert_eq!(ub.to_vec(), [1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0]);
/// adds_like_double(&ub);
/// data_copy_tail(&gm, &ub, 5); // exactly 5 elements written back
/// assert_eq!(bytemuck::cast_slice::<u8, f32>(&region.to_bytes()), [2.0, 4.0, 6.0, 8.0, 10.0]);
/// # fn adds_like_double(t: &LocalTensor<f32>) { add(t, t, t, 8) }
/// ```
///
/// # Panics
/// As `data_copy` / `data_copy_pad` / `data_copy_pad_to_gm`; a partial block on a chip
/// without `DataCopyPad` (Ascend910, Ascend310P) fails as `DataCopyTail`, naming the chip
/// and the multiple the length needs there.
#[track_caller]
pub fn data_copy_tail<D: DataCopyTail<S>, S>(dst: &D, src: &S, count: usize) {
    dst.copy_tail_from(src, count);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ctx::{run_on_core, CoreConfig};
    use crate::memory::tensor::GmRegion;
    use crate::position::VecCalc;
    use crate::sync::pipe::{TBuf, TPipe};

    #[test]
    fn partial_block_needs_data_copy_pad() {
        let r = std::panic::catch_unwind(|| {
            run_on_core(CoreConfig::single(Soc::Ascend310P), || {
                let region = GmRegion::zeroed(64);
                let mut gm = GlobalTensor::<f32>::new();
                gm.set_global_buffer(region.addr(), 16);
                let mut pipe = TPipe::new();
                let mut buf = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut buf, 64);
                let ub = buf.get::<f32>();
                data_copy_tail(&ub, &gm, 8); // whole block: fine
                data_copy_tail(&gm, &ub, 3);
            })
        });
        let msg = *r.unwrap_err().downcast::<String>().unwrap();
        assert!(
            msg.contains("DataCopyTail: count = 3 float elements is 12 bytes, not whole 32-byte blocks, and Ascend310P"),
            "{msg}"
        );
        assert!(msg.contains("a multiple of 8 elements"), "{msg}");
    }
}
