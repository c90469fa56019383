//! `TPipe` and the buffers it carves out of the core's Unified Buffer: queues (`TQue`,
//! `TQueBind`) and plain buffers (`TBuf`).

use core::marker::PhantomData;
use std::rc::Rc;

use crate::ctx::with_core;
use crate::element::{Element, BLOCK_BYTES};
use crate::error::{ensure, fail};
use crate::position::Position;
use crate::tensor::LocalTensor;
use crate::ub::Ub;

/// Most buffers one pipe can hand out.
pub const MAX_PIPE_BUFFERS: usize = 64;

/// The memory manager of one core (AscendC `TPipe`): a bump allocator over the Unified Buffer.
/// One pipe may be alive per core at a time.
pub struct TPipe {
    ub: Rc<Ub>,
    /// Next free byte.
    cur: usize,
    /// Buffers handed out so far.
    buffers: usize,
}

impl TPipe {
    /// Creates the core's pipe over an empty Unified Buffer.
    ///
    /// # Panics
    /// Panics if another `TPipe` is alive on this core.
    #[track_caller]
    pub fn new() -> TPipe {
        let ub = with_core(|c| {
            if c.pipe_alive.replace(true) {
                fail("TPipe", "a TPipe is already alive on this core; AscendC allows one at a time");
            }
            Rc::clone(&c.ub)
        });
        TPipe { ub, cur: 0, buffers: 0 }
    }

    /// Empties the allocator (AscendC `TPipe::Reset`): later `init_buffer` calls start again at
    /// the beginning of the Unified Buffer.
    pub fn reset(&mut self) {
        self.cur = 0;
        self.buffers = 0;
    }

    /// Bytes handed out so far.
    pub fn used_bytes(&self) -> usize {
        self.cur
    }

    /// Carves `num` buffers of `len` bytes (rounded up to 32) out of the UB; returns the byte
    /// offset of the first and the rounded length.
    #[track_caller]
    pub(crate) fn carve(&mut self, api: &'static str, num: usize, len: usize) -> (usize, usize) {
        ensure((1..=MAX_PIPE_BUFFERS).contains(&num), api, || {
            format!("num = {num} is out of range [1, {MAX_PIPE_BUFFERS}]")
        });
        ensure(len > 0, api, || "len = 0: a buffer needs at least one byte".to_string());
        ensure(self.buffers + num <= MAX_PIPE_BUFFERS, api, || {
            format!(
                "num = {num} more buffers would make {} in this pipe; the limit is {MAX_PIPE_BUFFERS}",
                self.buffers + num
            )
        });
        let rounded = len.div_ceil(BLOCK_BYTES) * BLOCK_BYTES;
        let total = rounded * num;
        let ub_size = self.ub.size();
        ensure(self.cur + total <= ub_size, api, || {
            format!(
                "{num} buffer(s) of {len} bytes (rounded to {rounded}) need {total} bytes, but only {} of the \
                 Unified Buffer's {ub_size} bytes are free ({} already used)",
                ub_size - self.cur,
                self.cur
            )
        });
        let start = self.cur;
        self.cur += total;
        self.buffers += num;
        (start, rounded)
    }

    /// Gives the plain buffer `buf` one buffer of `len` bytes, rounded up to a multiple of 32
    /// (AscendC `TPipe::InitBuffer(TBuf&, len)`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut buf = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut buf, 1000);
    /// assert_eq!(buf.get::<f32>().get_size(), 1024 / 4);
    /// ```
    ///
    /// # Panics
    /// Panics if the Unified Buffer or the pipe's 64 buffers are exhausted, or `len` is 0.
    #[track_caller]
    pub fn init_tbuf<P: Position>(&mut self, buf: &mut TBuf<P>, len: usize) {
        let (off, rounded) = self.carve("TPipe::InitBuffer", 1, len);
        buf.mem = Some((Rc::clone(&self.ub), off, rounded));
    }

    pub(crate) fn ub(&self) -> &Rc<Ub> {
        &self.ub
    }
}

impl Default for TPipe {
    fn default() -> Self {
        TPipe::new()
    }
}

impl Drop for TPipe {
    fn drop(&mut self) {
        with_core(|c| c.pipe_alive.set(false));
    }
}

/// A plain buffer at position `P` (AscendC `TBuf<pos>`), for scratch space outside the queues.
pub struct TBuf<P: Position> {
    mem: Option<(Rc<Ub>, usize, usize)>,
    _p: PhantomData<P>,
}

impl<P: Position> Default for TBuf<P> {
    fn default() -> Self {
        TBuf { mem: None, _p: PhantomData }
    }
}

impl<P: Position> TBuf<P> {
    /// An empty buffer; give it memory with [`TPipe::init_tbuf`].
    pub fn new() -> Self {
        Self::default()
    }

    #[track_caller]
    fn mem(&self, api: &'static str) -> (&Rc<Ub>, usize, usize) {
        match &self.mem {
            Some((ub, off, len)) => (ub, *off, *len),
            None => fail(api, "the TBuf has no memory: call TPipe::init_tbuf first"),
        }
    }

    /// The whole buffer as a tensor of `T` (AscendC `TBuf::Get<T>()`).
    ///
    /// # Panics
    /// Panics if the buffer was not initialised.
    #[track_caller]
    pub fn get<T: Element>(&self) -> LocalTensor<T> {
        let (ub, off, len) = self.mem("TBuf::Get");
        LocalTensor::from_raw(Rc::clone(ub), off, len / T::SIZE, P::POS)
    }

    /// The first `len` elements of the buffer (AscendC `TBuf::Get<T>(len)`).
    ///
    /// # Panics
    /// Panics if the buffer was not initialised or holds fewer than `len` elements.
    #[track_caller]
    pub fn get_with_len<T: Element>(&self, len: usize) -> LocalTensor<T> {
        let (ub, off, bytes) = self.mem("TBuf::Get");
        ensure(len.saturating_mul(T::SIZE) <= bytes, "TBuf::Get", || {
            format!("len = {len} {} elements needs {} bytes; the buffer has {bytes}", T::DTYPE, len * T::SIZE)
        });
        LocalTensor::from_raw(Rc::clone(ub), off, len, P::POS)
    }

    /// `len` elements starting `offset` bytes into the buffer (AscendC `GetWithOffset`).
    ///
    /// # Panics
    /// Panics if the buffer was not initialised, `offset` is not 32-byte aligned, or the
    /// range exceeds the buffer.
    #[track_caller]
    pub fn get_with_offset<T: Element>(&self, len: usize, offset: usize) -> LocalTensor<T> {
        let api = "TBuf::GetWithOffset";
        let (ub, off, bytes) = self.mem(api);
        ensure(offset % BLOCK_BYTES == 0, api, || format!("offset = {offset} bytes is not 32-byte aligned"));
        ensure(
            len.checked_mul(T::SIZE).and_then(|b| b.checked_add(offset)).is_some_and(|e| e <= bytes),
            api,
            || format!("offset = {offset} bytes plus len = {len} {} elements exceeds the buffer's {bytes} bytes", T::DTYPE),
        );
        LocalTensor::from_raw(Rc::clone(ub), off + offset, len, P::POS)
    }
}
