//! Static-tensor allocation without a pipe (AscendC `LocalMemAllocator<Hardware::UB>`).
//!
//! The allocator hands out consecutive pieces of the core's Unified Buffer from address 0,
//! exactly `len * size_of::<T>()` bytes each (no rounding, as AscendC's `Alloc` advances its
//! head by the tensor's bytes): a tensor whose length is not a whole number of 32-byte blocks
//! leaves the next one unaligned, which the instructions that need alignment then report.
//! One allocator per core at a time, and never together with a [`TPipe`](crate::pipe::TPipe).

use core::marker::PhantomData;
use std::rc::Rc;

use crate::ctx::with_core;
use crate::element::Element;
use crate::error::{ensure, fail};
use crate::position::{Position, TPosition, VecCalc};
use crate::tensor::LocalTensor;

mod sealed {
    pub trait Sealed {}
}

/// A physical memory an allocator can manage (AscendC `Hardware`). Only the Unified Buffer
/// is emulated.
pub trait Hardware: sealed::Sealed + 'static {
    /// The position `alloc` gives tensors when none is named (AscendC `GetDefaultPosition`).
    type DefaultPos: Position;
}

/// `Hardware::UB`, the Unified Buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ub;
impl sealed::Sealed for Ub {}
impl Hardware for Ub {
    type DefaultPos = VecCalc;
}

/// A bump allocator over one physical memory (AscendC `LocalMemAllocator<hard>`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// assert_eq!(ub.get_cur_addr(), 0);
/// let x = ub.alloc::<f32>(64);
/// let y = ub.alloc_at::<VecOut, f32>(64);
/// assert_eq!((x.get_phy_addr(), x.get_position()), (0, TPosition::VECCALC));
/// assert_eq!((y.get_phy_addr(), y.get_position()), (256, TPosition::VECOUT));
/// duplicate(&x, 1.5, 64);
/// add(&y, &x, &x, 64);
/// assert_eq!(y.get_value(63), 3.0);
/// assert_eq!(ub.get_cur_addr(), 512);
/// ```
pub struct LocalMemAllocator<H: Hardware> {
    ub: Rc<crate::ub::Ub>,
    head: usize,
    _h: PhantomData<H>,
}

impl<H: Hardware> LocalMemAllocator<H> {
    /// An allocator starting at address 0 of the core's Unified Buffer.
    ///
    /// # Panics
    /// Panics if another `LocalMemAllocator` or a `TPipe` is alive on this core.
    #[track_caller]
    pub fn new() -> Self {
        let api = "LocalMemAllocator";
        let ub = with_core(|c| {
            ensure(!c.pipe_alive.get(), api, || {
                "a TPipe is alive on this core; AscendC does not mix LocalMemAllocator with TPipe".to_string()
            });
            if c.allocator_alive.replace(true) {
                fail(
                    api,
                    "a LocalMemAllocator<Ub> is already alive on this core; AscendC allows one per memory",
                );
            }
            Rc::clone(&c.ub)
        });
        LocalMemAllocator { ub, head: 0, _h: PhantomData }
    }

    /// The first free byte address (AscendC `GetCurAddr`).
    pub fn get_cur_addr(&self) -> usize {
        self.head
    }

    /// `len` elements of `T` at the default position (`VECCALC` for the UB) (AscendC
    /// `Alloc<T>(tileSize)` and `Alloc<T, tileSize>()`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let a = ub.alloc::<f16>(10); // 20 bytes: the next tensor starts unaligned
    /// assert_eq!(ub.alloc::<u8>(12).get_phy_addr(), 20);
    /// assert_eq!(a.get_size(), 10);
    /// ```
    ///
    /// # Panics
    /// Panics if the tensor does not fit in the rest of the memory.
    #[track_caller]
    pub fn alloc<T: Element>(&mut self, len: usize) -> LocalTensor<T> {
        self.take::<T>(<H::DefaultPos as Position>::POS, len)
    }

    /// `len` elements of `T` at position `P` (AscendC `Alloc<pos, T>(tileSize)`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut ub = LocalMemAllocator::<Ub>::new();
    /// let x = ub.alloc_at::<VecIn, i32>(8);
    /// assert_eq!(x.get_position(), TPosition::VECIN);
    /// ```
    ///
    /// # Panics
    /// Panics if `P` is not a position of this memory (for the UB: `VecIn`, `VecOut`,
    /// `VecCalc`) or the tensor does not fit in the rest of the memory.
    #[track_caller]
    pub fn alloc_at<P: Position, T: Element>(&mut self, len: usize) -> LocalTensor<T> {
        let pos = P::POS;
        ensure(pos.is_ub(), "LocalMemAllocator::Alloc", || {
            format!("pos = {pos} is not in the Unified Buffer (VECIN, VECOUT or VECCALC)")
        });
        self.take::<T>(pos, len)
    }

    #[track_caller]
    fn take<T: Element>(&mut self, pos: TPosition, len: usize) -> LocalTensor<T> {
        let size = self.ub.size();
        let end = len.checked_mul(T::SIZE).and_then(|b| b.checked_add(self.head));
        ensure(end.is_some_and(|e| e <= size), "LocalMemAllocator::Alloc", || {
            format!(
                "tileSize = {len} {} elements ({} bytes) exceeds the {} bytes left of the Unified Buffer's {size} \
                 (current address {})",
                T::DTYPE,
                len.saturating_mul(T::SIZE),
                size - self.head,
                self.head
            )
        });
        ensure(self.head % T::SIZE == 0, "LocalMemAllocator::Alloc", || {
            format!(
                "the current address {} is not aligned to size_of::<{}>() = {}: allocate whole elements of the \
                 larger types first",
                self.head,
                T::DTYPE,
                T::SIZE
            )
        });
        let t = LocalTensor::from_raw(Rc::clone(&self.ub), self.head, len, pos);
        self.head = end.unwrap_or(size);
        t
    }
}

impl<H: Hardware> Default for LocalMemAllocator<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H: Hardware> Drop for LocalMemAllocator<H> {
    fn drop(&mut self) {
        with_core(|c| c.allocator_alive.set(false));
    }
}
