//! Static-tensor allocation without a pipe (AscendC `LocalMemAllocator<Hardware::UB>`, and
//! `<Hardware::L1>`, `<Hardware::L0A>`, `<Hardware::L0B>`, `<Hardware::L0C>` for the cube).
//!
//! The allocator hands out consecutive pieces of one of the core's memories from address 0,
//! exactly `len * size_of::<T>()` bytes each (no rounding, as AscendC's `Alloc` advances its
//! head by the tensor's bytes): a tensor whose length is not a whole number of 32-byte blocks
//! leaves the next one unaligned, which the instructions that need alignment then report.
//! One allocator per memory and core at a time, and never together with a
//! [`TPipe`](crate::pipe::TPipe).

use core::marker::PhantomData;
use std::rc::Rc;

use crate::element::Element;
use crate::kernel::ctx::with_core;
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::position::{Co1, Memory, Position, TPosition, VecCalc, A1, A2, B2};

mod sealed {
    pub trait Sealed {}
}

/// A physical memory an allocator can manage (AscendC `Hardware`).
pub trait Hardware: sealed::Sealed + 'static {
    /// The position `alloc` gives tensors when none is named (AscendC `GetDefaultPosition`).
    type DefaultPos: Position;
    /// The memory.
    const MEM: Memory;
}

macro_rules! hardware {
    ($($(#[$doc:meta])* $name:ident => $mem:ident, $pos:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Hardware for $name {
            type DefaultPos = $pos;
            const MEM: Memory = Memory::$mem;
        }
    )*};
}

hardware! {
    /// `Hardware::UB`, the Unified Buffer (default position `VECCALC`).
    Ub => Ub, VecCalc;
    /// `Hardware::L1`, the cube's L1 buffer (default position `A1`).
    L1 => L1, A1;
    /// `Hardware::L0A`, the cube's left-matrix buffer (default position `A2`).
    L0A => L0A, A2;
    /// `Hardware::L0B`, the cube's right-matrix buffer (default position `B2`).
    L0B => L0B, B2;
    /// `Hardware::L0C`, the cube's result buffer (default position `CO1`).
    L0C => L0C, Co1;
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
    ub: Rc<crate::memory::ub::Ub>,
    head: usize,
    _h: PhantomData<H>,
}

impl<H: Hardware> LocalMemAllocator<H> {
    /// An allocator starting at address 0 of the core's memory `H`.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut l1 = LocalMemAllocator::<L1>::new();
    /// let a = l1.alloc::<f16>(16 * 16);
    /// let b = l1.alloc_at::<B1, f16>(16 * 16);
    /// assert_eq!((a.get_position(), b.get_position(), b.get_phy_addr()), (TPosition::A1, TPosition::B1, 512));
    /// ```
    ///
    /// # Panics
    /// Panics if another `LocalMemAllocator<H>` or a `TPipe` is alive on this core, or the core
    /// has no such memory (see [`KernelType`](crate::ctx::KernelType)).
    #[track_caller]
    pub fn new() -> Self {
        let api = "LocalMemAllocator";
        let loc = core::panic::Location::caller();
        let ub = with_core(|c| {
            crate::kernel::error::ensure_at(!c.pipe_alive.get(), api, loc, || {
                "a TPipe is alive on this core; AscendC does not mix LocalMemAllocator with TPipe".to_string()
            });
            let arena = c.arena(H::MEM, api, loc);
            let bit = 1u8 << H::MEM as u8;
            if c.allocators.get() & bit != 0 {
                crate::kernel::error::fail_at(
                    api,
                    format!(
                        "a LocalMemAllocator<{}> is already alive on this core; AscendC allows one per memory",
                        H::MEM.hardware_name()
                    ),
                    loc,
                );
            }
            c.allocators.set(c.allocators.get() | bit);
            arena
        });
        LocalMemAllocator { ub, head: 0, _h: PhantomData }
    }

    /// The first free byte address (AscendC `GetCurAddr`).
    pub fn get_cur_addr(&self) -> usize {
        self.head
    }

    /// `len` elements of `T` at the default position (`VECCALC` for the UB, `A1` for L1, `A2`
    /// for L0A, `B2` for L0B, `CO1` for L0C) (AscendC `Alloc<T>(tileSize)` and
    /// `Alloc<T, tileSize>()`).
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
    /// Panics if `P` is not a position of this memory on the core's chip (for the UB: `VecIn`,
    /// `VecOut`, `VecCalc`; for L1: `A1`, `B1`, and `C1` except on Ascend910 and Ascend310P)
    /// or the tensor does not fit in the rest of the memory.
    #[track_caller]
    pub fn alloc_at<P: Position, T: Element>(&mut self, len: usize) -> LocalTensor<T> {
        let pos = P::POS;
        let soc = crate::kernel::ctx::get_soc();
        ensure(pos.memory(soc) == Some(H::MEM), "LocalMemAllocator::Alloc", || {
            let at = pos.memory(soc).map_or("not in an on-chip memory this emulator models", Memory::name);
            format!("pos = {pos} is not in {} on {soc} ({pos} is {at})", H::MEM.name())
        });
        self.take::<T>(pos, len)
    }

    #[track_caller]
    fn take<T: Element>(&mut self, pos: TPosition, len: usize) -> LocalTensor<T> {
        let size = self.ub.size();
        let end = len.checked_mul(T::SIZE).and_then(|b| b.checked_add(self.head));
        ensure(end.is_some_and(|e| e <= size), "LocalMemAllocator::Alloc", || {
            format!(
                "tileSize = {len} {} elements ({} bytes) exceeds the {} bytes left of {}'s {size} (current address \
                 {})",
                T::DTYPE,
                len.saturating_mul(T::SIZE),
                size - self.head,
                H::MEM.name(),
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
        with_core(|c| c.allocators.set(c.allocators.get() & !(1u8 << H::MEM as u8)));
    }
}
