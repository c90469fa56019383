//! Host-owned global memory: [`GmBuffer`], a typed buffer whose address kernels receive.

use core::fmt;
use core::marker::PhantomData;
use std::sync::Arc;

use ascend_core::{Element, GlobalTensor, GmAddr, GmAllocError, GmRegion};

/// A typed buffer in global memory, owned by the host.
///
/// The host fills it ([`from_slice`](Self::from_slice), [`zeroed`](Self::zeroed),
/// [`write_from`](Self::write_from)), hands its [`addr`](Self::addr) to a kernel (AscendC's
/// `GM_ADDR`), and reads the result back with [`to_vec`](Self::to_vec) after the launch.
/// The memory lives as long as the buffer or any [`GmAddr`] taken from it.
///
/// ```
/// use ascend_runtime::prelude::*;
///
/// let x = GmBuffer::from_slice(&[1.0f32, 2.0, 3.0]);
/// assert_eq!(x.len(), 3);
/// x.write_from(&[7.0]);
/// assert_eq!(x.to_vec(), [7.0, 2.0, 3.0]);
/// ```
pub struct GmBuffer<T: Element> {
    region: Arc<GmRegion>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Element> GmBuffer<T> {
    /// A buffer holding a copy of `data`.
    pub fn from_slice(data: &[T]) -> Self {
        GmBuffer {
            region: GmRegion::from_bytes(bytemuck::cast_slice(data)),
            len: data.len(),
            _t: PhantomData,
        }
    }

    /// A buffer holding the elements of `data`.
    pub fn from_vec(data: Vec<T>) -> Self {
        Self::from_slice(&data)
    }

    /// A buffer of `len` zero elements.
    ///
    /// # Panics
    /// Panics (with a message; never an abort) if `len` elements of `T` overflow the address
    /// space or cannot be allocated; [`try_zeroed`](Self::try_zeroed) returns the error instead.
    #[track_caller]
    pub fn zeroed(len: usize) -> Self {
        Self::try_zeroed(len).unwrap_or_else(|e| panic!("GmBuffer::<{}>::zeroed(len = {len}): {e}", T::DTYPE))
    }

    /// A buffer of `len` zero elements, or an error if the memory cannot be had.
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    /// assert!(GmBuffer::<f32>::try_zeroed(1 << 60).is_err());
    /// assert_eq!(GmBuffer::<f32>::try_zeroed(4).unwrap().len(), 4);
    /// ```
    ///
    /// # Errors
    /// [`GmAllocError`] if the size overflows or the allocator refuses it.
    pub fn try_zeroed(len: usize) -> Result<Self, GmAllocError> {
        let bytes = len.checked_mul(T::SIZE).ok_or(GmAllocError { bytes: None })?;
        Ok(GmBuffer { region: GmRegion::try_zeroed(bytes)?, len, _t: PhantomData })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the elements out.
    ///
    /// Call it after the launch has returned: while a kernel runs, cores may be writing.
    pub fn to_vec(&self) -> Vec<T> {
        let mut v = vec![T::ZERO; self.len];
        self.region.read_bytes(0, bytemuck::cast_slice_mut(&mut v));
        v
    }

    /// Copies `data` into the first `data.len()` elements; the rest keep their values.
    ///
    /// # Panics
    /// Panics if `data` is longer than the buffer.
    pub fn write_from(&self, data: &[T]) {
        assert!(
            data.len() <= self.len,
            "GmBuffer::write_from: data length = {} exceeds the buffer's {} elements",
            data.len(),
            self.len
        );
        self.region.write_bytes(0, bytemuck::cast_slice(data));
    }

    /// The address of element 0, for passing to a kernel (AscendC `GM_ADDR`).
    pub fn addr(&self) -> GmAddr {
        self.region.addr()
    }

    /// The untyped region behind the buffer.
    pub fn region(&self) -> &Arc<GmRegion> {
        &self.region
    }

    /// A [`GlobalTensor`] bound to the whole buffer (a host-side convenience; kernels build
    /// theirs from the [`addr`](Self::addr) with `set_global_buffer`).
    pub fn global_tensor(&self) -> GlobalTensor<T> {
        let mut g = GlobalTensor::new();
        g.set_global_buffer(self.addr(), self.len);
        g
    }
}

impl GmBuffer<u8> {
    /// A GM buffer holding the bytes of a tiling struct, for the kernel to read with
    /// `get_tiling_data` (the host half of AscendC's tiling data; see
    /// `ascend_core::tiling_data`).
    ///
    /// ```
    /// use ascend_runtime::prelude::*;
    ///
    /// #[repr(C)]
    /// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    /// struct Tiling { block_length: u32, tile_length: u32 }
    ///
    /// let tiling = GmBuffer::from_tiling(&Tiling { block_length: 2048, tile_length: 128 });
    /// // One 64-byte line (16 u32) per core: scalar writes go back to GM a line at a time.
    /// let out = GmBuffer::<u32>::zeroed(4 * 16);
    /// let (t, o) = (tiling.addr(), out.addr());
    /// launch(Soc::Ascend910B, 4, move || {
    ///     let td: Tiling = get_tiling_data(t);
    ///     let mut gm = GlobalTensor::<u32>::new();
    ///     gm.set_global_buffer(o, 4 * 16);
    ///     gm.set_value(get_block_idx() as usize * 16, td.block_length / td.tile_length);
    /// })
    /// .unwrap();
    /// assert_eq!(out.to_vec().iter().step_by(16).copied().collect::<Vec<_>>(), [16; 4]);
    /// ```
    pub fn from_tiling<S: bytemuck::Pod>(tiling: &S) -> Self {
        GmBuffer::from_slice(bytemuck::bytes_of(tiling))
    }
}

impl<T: Element> From<Vec<T>> for GmBuffer<T> {
    fn from(data: Vec<T>) -> Self {
        Self::from_vec(data)
    }
}

impl<T: Element> From<&[T]> for GmBuffer<T> {
    fn from(data: &[T]) -> Self {
        Self::from_slice(data)
    }
}

impl<T: Element> fmt::Debug for GmBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GmBuffer<{}>({} elements)", T::DTYPE, self.len)
    }
}
