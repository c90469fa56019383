//! The on-chip memories of one AI core (the Unified Buffer, and L1/L0A/L0B/L0C for the cube):
//! each a 64-byte aligned arena of the chip's size for it, tagged with the memory it is.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

use crate::position::Memory;

/// Alignment of the arena; every LocalTensor address is relative to its base, so any
/// alignment ≥ 32 makes "32-byte aligned relative to the UB base" also hold in host memory.
pub(crate) const UB_ALIGN: usize = 64;

/// One core's Unified Buffer. Memory is only ever touched through raw pointers derived
/// from `base`, so tensors that alias (as AscendC tensors do) never create aliasing
/// Rust references.
pub(crate) struct Ub {
    base: NonNull<u8>,
    size: usize,
    mem: Memory,
}

impl Ub {
    /// A zero-filled arena of `size` bytes (`size > 0`) for the memory `mem`.
    pub(crate) fn new(size: usize, mem: Memory) -> Ub {
        let layout = Layout::from_size_align(size, UB_ALIGN).expect("UB layout");
        assert!(size > 0, "UB size must be positive");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let base = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Ub { base, size, mem }
    }

    /// The memory this arena is.
    #[inline(always)]
    pub(crate) fn mem(&self) -> Memory {
        self.mem
    }

    /// Size in bytes.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The base pointer; valid for `size` bytes of reads and writes while `self` lives.
    #[inline(always)]
    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }
}

impl Drop for Ub {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.size, UB_ALIGN).expect("UB layout");
        // SAFETY: `base` was allocated in `new` with this same layout and is freed once.
        unsafe { dealloc(self.base.as_ptr(), layout) }
    }
}
