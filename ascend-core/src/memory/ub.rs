//! The on-chip memories of one AI core (the Unified Buffer, and L1/L0A/L0B/L0C for the cube):
//! each a 64-byte aligned arena of the chip's size for it, tagged with the memory it is.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::Cell;
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
    /// The id of the core (`CoreState::id`) this arena belongs to now (0: none): a tensor in
    /// it may be used on that core only (see `ctx::check_tensor`).
    owner: Cell<u64>,
    /// That core, for messages.
    owner_info: Cell<Owner>,
}

/// The core an arena belongs to, as messages name it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Owner {
    pub(crate) block_idx: u32,
    pub(crate) block_num: u32,
    /// A core of a launch (`run_on_core`), not a thread's default core.
    pub(crate) launched: bool,
    /// The core's kernel has returned (its state was freed while a tensor kept the arena).
    pub(crate) ended: bool,
}

impl Owner {
    /// "core 2 of 8 (…)" or "the host thread's default core".
    pub(crate) fn describe(&self) -> String {
        match (self.launched, self.ended) {
            (false, _) => "a host thread's default core (outside any launch)".to_string(),
            (true, false) => format!("core {} of {} of a launch", self.block_idx, self.block_num),
            (true, true) => {
                format!("core {} of {} of a launch that has returned", self.block_idx, self.block_num)
            }
        }
    }
}

impl Ub {
    /// A zero-filled arena of `size` bytes (`size > 0`) for the memory `mem`.
    pub(crate) fn new(size: usize, mem: Memory) -> Ub {
        let layout = Layout::from_size_align(size, UB_ALIGN).expect("UB layout");
        assert!(size > 0, "UB size must be positive");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let base = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Ub { base, size, mem, owner: Cell::new(0), owner_info: Cell::new(Owner::default()) }
    }

    /// The id of the core the arena belongs to (0: none).
    #[inline(always)]
    pub(crate) fn owner(&self) -> u64 {
        self.owner.get()
    }

    /// The core the arena belongs to, for messages.
    pub(crate) fn owner_info(&self) -> Owner {
        self.owner_info.get()
    }

    /// Hands the arena to core `id`.
    pub(crate) fn set_owner(&self, id: u64, info: Owner) {
        self.owner.set(id);
        self.owner_info.set(info);
    }

    /// Core `id` ended: if the arena is still its, messages say so.
    pub(crate) fn owner_ended(&self, id: u64) {
        if self.owner.get() == id {
            self.owner_info.set(Owner { ended: true, ..self.owner_info.get() });
        }
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
