//! [`GmAddr`], AscendC's `GM_ADDR`: plain data, in a file of its own so the kernel layer can
//! keep one (the system workspace) without importing the tensors; its methods are in
//! [`crate::tensor`].

use core::fmt;

/// An untyped global-memory address (AscendC's `GM_ADDR`): what a kernel receives for each
/// of its tensors. A plain `Copy` value — the region's id, an offset and the region's size —
/// so `move` closures capture it without `.clone()`. It does not keep the region alive:
/// binding a [`GlobalTensor`](crate::tensor::GlobalTensor) to it resolves the region (once per bind) and fails with a clear
/// error if the region was freed; the bound tensor then keeps it alive.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GmAddr {
    /// The region's id in the registry of live regions.
    pub(crate) id: u64,
    /// The byte offset in the region.
    pub(crate) off: usize,
    /// The region's size in bytes.
    pub(crate) size: usize,
}

impl fmt::Debug for GmAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GmAddr(region #{} +{:#x} of {} bytes)", self.id, self.off, self.size)
    }
}
