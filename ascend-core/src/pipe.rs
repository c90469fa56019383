//! `TPipe` and the buffers it carves out of the core's Unified Buffer: queues (`TQue`,
//! `TQueBind`) and plain buffers (`TBuf`).

use core::marker::PhantomData;
use std::cell::Cell;
use std::rc::Rc;

use crate::ctx::with_core;
use crate::element::{Element, BLOCK_BYTES};
use crate::error::{check, ensure, fail};
use crate::position::{Position, TPosition};
use crate::tensor::LocalTensor;
use crate::ub::Ub;

/// Most buffers one pipe can hand out.
pub const MAX_PIPE_BUFFERS: usize = 64;

/// The memory manager of one core (AscendC `TPipe`): a bump allocator over the Unified Buffer.
/// One pipe may be alive per core at a time.
///
/// The usual double-buffered flow: a `VECIN` and a `VECOUT` queue with two buffers each, so
/// that copying tile `i + 1` in overlaps computing tile `i` on the hardware.
///
/// ```
/// use ascend_core::prelude::*;
///
/// const TILE: usize = 64; // f32 elements per tile
/// const BUFFER_NUM: usize = 2;
/// let x: Vec<f32> = (0..4 * TILE).map(|i| i as f32).collect();
/// let x_gm_region = GmRegion::from_bytes(bytemuck::cast_slice(&x));
/// let y_gm_region = GmRegion::zeroed(x.len() * 4);
/// let mut x_gm = GlobalTensor::<f32>::new();
/// x_gm.set_global_buffer(x_gm_region.addr(), x.len());
/// let mut y_gm = GlobalTensor::<f32>::new();
/// y_gm.set_global_buffer(y_gm_region.addr(), x.len());
///
/// let mut pipe = TPipe::new();
/// let mut in_q = TQue::<VecIn, 2>::new();
/// let mut out_q = TQue::<VecOut, 2>::new();
/// pipe.init_buffer(&mut in_q, BUFFER_NUM, TILE * 4);
/// pipe.init_buffer(&mut out_q, BUFFER_NUM, TILE * 4);
/// for i in 0..4 {
///     // CopyIn
///     let x_local = in_q.alloc_tensor::<f32>();
///     data_copy(&x_local, &x_gm.view(i * TILE), TILE);
///     in_q.enque(x_local);
///     // Compute
///     let x_local = in_q.deque::<f32>();
///     let y_local = out_q.alloc_tensor::<f32>();
///     for j in 0..TILE {
///         y_local.set_value(j, x_local.get_value(j) * 2.0);
///     }
///     out_q.enque(y_local);
///     in_q.free_tensor(x_local);
///     // CopyOut
///     let y_local = out_q.deque::<f32>();
///     data_copy(&y_gm.view(i * TILE), &y_local, TILE);
///     out_q.free_tensor(y_local);
/// }
/// assert_eq!(y_gm.get_value(255), 510.0);
/// assert!(!in_q.has_tensor_in_que() && in_q.has_idle_buffer());
/// ```
pub struct TPipe {
    ub: Rc<Ub>,
    /// Next free byte.
    cur: usize,
    /// Buffers handed out so far.
    buffers: usize,
    /// Bumped by `reset` and on drop: queues given buffers under an older value are stale.
    epoch: Rc<Cell<u64>>,
}

impl TPipe {
    /// Creates the core's pipe over an empty Unified Buffer.
    ///
    /// # Panics
    /// Panics if another `TPipe` is alive on this core.
    #[track_caller]
    pub fn new() -> TPipe {
        let ub = with_core(|c| {
            if c.allocator_alive.get() {
                fail(
                    "TPipe",
                    "a LocalMemAllocator<Ub> is alive on this core; AscendC does not mix it with TPipe",
                );
            }
            if c.pipe_alive.replace(true) {
                fail("TPipe", "a TPipe is already alive on this core; AscendC allows one at a time");
            }
            Rc::clone(&c.ub)
        });
        TPipe { ub, cur: 0, buffers: 0, epoch: Rc::new(Cell::new(0)) }
    }

    /// Empties the allocator (AscendC `TPipe::Reset`): later `init_buffer` calls start again at
    /// the beginning of the Unified Buffer. Queues that got their buffers before the reset
    /// lose them: using one fails until it is given buffers again with
    /// [`init_buffer`](Self::init_buffer).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 2, 1024);
    /// assert_eq!(pipe.used_bytes(), 2048);
    /// pipe.reset();
    /// assert_eq!(pipe.used_bytes(), 0);
    /// pipe.init_buffer(&mut q, 1, 4096); // the same queue may be given buffers again
    /// assert_eq!(q.alloc_tensor::<f32>().get_size(), 1024);
    /// ```
    pub fn reset(&mut self) {
        self.cur = 0;
        self.buffers = 0;
        self.epoch.set(self.epoch.get() + 1);
        crate::sanitizer::on_pipe_release(crate::sanitizer::Release::Reset);
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
        let ub_size = self.ub.size();
        // Checked: `len` comes from the kernel and may be anything up to `usize::MAX`.
        let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
        let total = rounded.and_then(|r| r.checked_mul(num));
        let fits = total.and_then(|t| t.checked_add(self.cur)).is_some_and(|end| end <= ub_size);
        ensure(fits, api, || {
            match (rounded, total) {
            (Some(rounded), Some(total)) => format!(
                "{num} buffer(s) of {len} bytes (rounded to {rounded}) need {total} bytes, but only {} of the \
                 Unified Buffer's {ub_size} bytes are free ({} already used)",
                ub_size - self.cur,
                self.cur
            ),
            _ => format!(
                "num = {num} buffer(s) of len = {len} bytes overflow the address space; the Unified Buffer has \
                 {ub_size} bytes ({} free)",
                ub_size - self.cur
            ),
        }
        });
        let (rounded, total) = (rounded.unwrap_or(0), total.unwrap_or(0));
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
        // Like a queue, the buffer is only valid until the pipe is reset or dropped.
        buf.epoch = Some((Rc::clone(&self.epoch), self.epoch.get()));
    }

    /// Gives the queue `que` `num` buffers (1..=64; 2 = double buffering) of `len` bytes each,
    /// `len` rounded up to a multiple of 32 (AscendC `TPipe::InitBuffer(que, num, len)`). The
    /// buffers are carved contiguously from the Unified Buffer by the pipe's bump allocator.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 2>::new();
    /// pipe.init_buffer(&mut q, 2, 1000);
    /// assert_eq!(pipe.used_bytes(), 2 * 1024);
    /// assert_eq!(q.alloc_tensor::<u8>().get_size(), 1024);
    /// ```
    ///
    /// # Panics
    /// Panics if `num` is outside `1..=64`, `len` is 0, the pipe would hand out more than 64
    /// buffers in all, the buffers do not fit in the rest of the Unified Buffer (the message
    /// gives the sizes), the queue already has buffers from this pipe (since its last
    /// [`reset`](Self::reset)), or the queue's source position is not in the Unified Buffer.
    #[track_caller]
    pub fn init_buffer<Q: InitBuffer>(&mut self, que: &mut Q, num: usize, len: usize) {
        let api = "TPipe::InitBuffer";
        let src = que.src_position();
        ensure(src.is_ub(), api, || {
            format!(
                "the queue's position is {src}: only VECIN, VECOUT and VECCALC queues (Unified Buffer) are \
                 emulated"
            )
        });
        if let Some(core) = que.core_ref() {
            ensure(
                !(Rc::ptr_eq(&core.epoch, &self.epoch) && core.epoch_at_init == self.epoch.get()),
                api,
                || {
                    format!(
                    "the queue already has {} buffer(s) of {} bytes from this pipe; a queue gets its buffers \
                     once (call TPipe::reset first to carve again)",
                    core.states.len(),
                    core.buf_len
                )
                },
            );
        }
        let (base, rounded) = self.carve(api, num, len);
        let san = crate::sanitizer::on_init_queue(base, rounded, num, src);
        que.attach(QueCore {
            ub: Rc::clone(&self.ub),
            epoch: Rc::clone(&self.epoch),
            epoch_at_init: self.epoch.get(),
            base,
            buf_len: rounded,
            states: vec![BufState::Free; num],
            cursor: 0,
            fifo: [0; MAX_PIPE_BUFFERS],
            head: 0,
            queued: 0,
            depth: que.depth(),
            busy: 0,
            recip: reciprocal(rounded),
            san,
        });
    }
}

impl Default for TPipe {
    fn default() -> Self {
        TPipe::new()
    }
}

impl TPipe {
    /// Releases the pipe's buffers (AscendC `TPipe::Destroy`): the same as dropping it. The
    /// free event of every free buffer is waited for, then every pipe
    /// (`PipeBarrier<PIPE_ALL>`), so a later `TPipe` on the core may reuse the memory.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 256);
    /// pipe.destroy();
    /// let mut again = TPipe::new(); // one pipe alive at a time
    /// again.init_buffer(&mut q, 1, 256);
    /// ```
    pub fn destroy(self) {
        drop(self);
    }
}

impl Drop for TPipe {
    fn drop(&mut self) {
        self.epoch.set(self.epoch.get() + 1);
        crate::sanitizer::on_pipe_release(crate::sanitizer::Release::Drop);
        with_core(|c| c.pipe_alive.set(false));
    }
}

/// A plain buffer at position `P` (AscendC `TBuf<pos>`), for scratch space outside the queues.
pub struct TBuf<P: Position> {
    mem: Option<(Rc<Ub>, usize, usize)>,
    /// The pipe's epoch counter and its value when the memory was carved: after
    /// `TPipe::reset` (or the pipe's drop) the memory may belong to a queue, so `get` fails.
    epoch: Option<(Rc<Cell<u64>>, u64)>,
    _p: PhantomData<P>,
}

impl<P: Position> Default for TBuf<P> {
    fn default() -> Self {
        TBuf { mem: None, epoch: None, _p: PhantomData }
    }
}

impl<P: Position> TBuf<P> {
    /// An empty buffer; give it memory with [`TPipe::init_tbuf`].
    pub fn new() -> Self {
        Self::default()
    }

    #[track_caller]
    fn mem(&self, api: &'static str) -> (&Rc<Ub>, usize, usize) {
        if let Some((epoch, at_init)) = &self.epoch {
            ensure(epoch.get() == *at_init, api, || {
                "the TBuf's memory was released by TPipe::reset (or the pipe was dropped) and may now belong to \
                 another buffer; give it memory again with TPipe::init_tbuf"
                    .to_string()
            });
        }
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
        ensure(len.checked_mul(T::SIZE).is_some_and(|b| b <= bytes), "TBuf::Get", || {
            match len.checked_mul(T::SIZE) {
                Some(need) => {
                    format!("len = {len} {} elements needs {need} bytes; the buffer has {bytes}", T::DTYPE)
                }
                None => format!(
                    "len = {len} {} elements overflows the address space; the buffer has {bytes} bytes",
                    T::DTYPE
                ),
            }
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
            || {
                format!(
                    "offset = {offset} bytes plus len = {len} {} elements exceeds the buffer's {bytes} bytes",
                    T::DTYPE
                )
            },
        );
        LocalTensor::from_raw(Rc::clone(ub), off + offset, len, P::POS)
    }
}

/// The queue state machine; `pub` only so the sealed [`InitBuffer`] trait may name it.
mod que {
    use super::*;

    /// State of one queue buffer (AscendC `TBufState`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum BufState {
        Free,
        Occupied,
        Enque,
        Deque,
    }

    impl BufState {
        pub(crate) fn name(self) -> &'static str {
            match self {
                BufState::Free => "FREE",
                BufState::Occupied => "OCCUPIED",
                BufState::Enque => "ENQUE",
                BufState::Deque => "DEQUE",
            }
        }
    }

    /// The buffers of one queue and their state machine, shared by every `TQueBind` instance.
    pub struct QueCore {
        pub(crate) ub: Rc<Ub>,
        /// The pipe's epoch counter and its value when the buffers were carved.
        pub(crate) epoch: Rc<Cell<u64>>,
        pub(crate) epoch_at_init: u64,
        /// Byte offset of buffer 0; buffer `i` starts at `base + i * buf_len`.
        pub(crate) base: usize,
        pub(crate) buf_len: usize,
        pub(crate) states: Vec<BufState>,
        /// Round-robin allocation cursor, as in AscendC's `AllocBuffer`.
        pub(crate) cursor: usize,
        /// Queued buffer indices, a ring: `queued` of them from `fifo[head]` on. A buffer is
        /// queued at most once at a time, so at most `states.len() <= MAX_PIPE_BUFFERS` are.
        pub(crate) fifo: [u8; MAX_PIPE_BUFFERS],
        pub(crate) head: usize,
        pub(crate) queued: usize,
        pub(crate) depth: usize,
        /// Buffers not FREE.
        pub(crate) busy: usize,
        /// `reciprocal(buf_len)`, so that `index_of` divides by a multiplication.
        pub(crate) recip: u64,
        /// The sanitizer's handle on this queue's buffer records, as
        /// [`on_init_queue`](crate::sanitizer::on_init_queue) returned it.
        pub(crate) san: crate::sanitizer::QueSan,
    }

    /// With `m = ceil(2^40 / d)`, `(x * m) >> 40 == x / d` for all `x, d <= 2^20`: writing
    /// `m * d = 2^40 + e` with `0 <= e < d`, the product is `x / d + x * e / (d * 2^40)` and
    /// `x * e < 2^40` keeps the error below `1 / d`; `x * m < 2^60` does not overflow.
    const RECIP_SHIFT: u32 = 40;

    /// `ceil(2^40 / d)` for a divisor `1 <= d <= 2^20`.
    pub(crate) fn reciprocal(d: usize) -> u64 {
        debug_assert!((1..=1 << 20).contains(&d));
        (1u64 << RECIP_SHIFT).div_ceil(d as u64)
    }

    /// `x / d` for `x <= 2^20`, given `recip = reciprocal(d)`.
    #[inline(always)]
    pub(crate) fn quotient(x: usize, recip: u64) -> usize {
        debug_assert!(x <= 1 << 20);
        ((x as u64 * recip) >> RECIP_SHIFT) as usize
    }
    /// Every chip's Unified Buffer (and so every offset within it) is at most `2^20` bytes.
    const _: () = {
        let mut i = 0;
        while i < crate::soc::Soc::ALL.len() {
            assert!(crate::soc::Soc::ALL[i].ub_size() <= 1 << 20);
            i += 1;
        }
    };

    impl QueCore {
        #[track_caller]
        #[inline(always)]
        pub(crate) fn check_live(&self, api: &'static str) {
            ensure(self.epoch.get() == self.epoch_at_init, api, || {
                "the queue's buffers were released by TPipe::reset (or the pipe was dropped); give it buffers \
                 again with TPipe::init_buffer"
                    .to_string()
            });
        }

        /// Buffer `idx` (`< states.len()`) whole, as a tensor of `T`.
        #[inline]
        pub(crate) fn tensor<T: Element>(&self, idx: usize, pos: TPosition) -> LocalTensor<T> {
            debug_assert!(idx < self.states.len());
            // SAFETY: `TPipe::carve` checked that the queue's `states.len()` buffers of
            // `buf_len` bytes from `base` lie inside `ub`, and `idx` is one of them.
            unsafe {
                LocalTensor::from_raw_unchecked(
                    Rc::clone(&self.ub),
                    self.base + idx * self.buf_len,
                    self.buf_len / T::SIZE,
                    pos,
                )
            }
        }

        /// The index of the buffer holding the tensor, by UB address.
        #[track_caller]
        #[inline(always)]
        pub(crate) fn index_of<T: Element>(&self, api: &'static str, t: &LocalTensor<T>) -> usize {
            let addr = t.get_phy_addr();
            let end = self.base + self.states.len() * self.buf_len;
            // `wrapping_sub`: an address below `base` becomes huge and fails the range check.
            let rel = addr.wrapping_sub(self.base);
            let (n, buf_len, base) = (self.states.len(), self.buf_len, self.base);
            check!(
                Rc::ptr_eq(t.ub(), &self.ub) && rel < end - base,
                api,
                "tensor at UB address {addr:#x} is not a buffer of this queue (its {n} buffer(s) of {buf_len} bytes \
                 span [{base:#x}, {end:#x}))"
            );
            // `rel < end - base <= ub.size() <= 2^20` (checked above, and at compile time).
            let idx = quotient(rel, self.recip);
            debug_assert_eq!(idx, rel / self.buf_len);
            idx
        }

        #[track_caller]
        #[inline(always)]
        pub(crate) fn alloc(&mut self, api: &'static str) -> usize {
            self.check_live(api);
            let n = self.states.len();
            if self.busy == n {
                self.no_free_buffer(api)
            }
            loop {
                let i = self.cursor;
                self.cursor = if i + 1 == n { 0 } else { i + 1 };
                if self.states[i] == BufState::Free {
                    self.states[i] = BufState::Occupied;
                    self.busy += 1;
                    return i;
                }
            }
        }

        #[cold]
        #[track_caller]
        fn no_free_buffer(&self, api: &'static str) -> ! {
            let n = self.states.len();
            let count = |s: BufState| self.states.iter().filter(|&&x| x == s).count();
            fail(
                api,
                format!(
                    "no FREE buffer: all {n} of {n} buffers are in use (OCCUPIED {}, ENQUE {}, DEQUE {}); \
                     FreeTensor one first (on hardware this hangs)",
                    count(BufState::Occupied),
                    count(BufState::Enque),
                    count(BufState::Deque)
                ),
            )
        }

        /// EnQue of buffer `idx` (from `index_of`, after `check_live`).
        #[track_caller]
        #[inline(always)]
        pub(crate) fn enque(&mut self, api: &'static str, idx: usize, addr: usize) {
            let (queued, depth) = (self.queued, self.depth);
            check!(
                queued < depth,
                api,
                "{queued} tensor(s) already queued: the queue's depth = {depth} is the limit; DeQue one first"
            );
            let st = self.states[idx];
            check!(
                matches!(st, BufState::Occupied | BufState::Deque),
                api,
                "buffer {idx} (UB address {addr:#x}) is {}: EnQue takes a buffer from AllocTensor (OCCUPIED) or \
                 DeQue (DEQUE)",
                st.name()
            );
            self.states[idx] = BufState::Enque;
            // Fits: `idx` was not queued (its state was not ENQUE), so fewer than all are.
            self.fifo[(self.head + self.queued) % MAX_PIPE_BUFFERS] = idx as u8;
            self.queued += 1;
        }

        #[track_caller]
        #[inline(always)]
        pub(crate) fn deque(&mut self, api: &'static str) -> usize {
            self.check_live(api);
            let depth = self.depth;
            check!(
                self.queued > 0,
                api,
                "the queue is empty: 0 tensors queued (depth = {depth}); EnQue one first"
            );
            let idx = usize::from(self.fifo[self.head]);
            self.head = (self.head + 1) % MAX_PIPE_BUFFERS;
            self.queued -= 1;
            self.states[idx] = BufState::Deque;
            idx
        }

        /// FreeTensor of buffer `idx` (from `index_of`, after `check_live`).
        #[track_caller]
        #[inline(always)]
        pub(crate) fn free(&mut self, api: &'static str, idx: usize, addr: usize) {
            let st = self.states[idx];
            check!(
                matches!(st, BufState::Occupied | BufState::Deque),
                api,
                "buffer {idx} (UB address {addr:#x}) is {} ({})",
                st.name(),
                if st == BufState::Free {
                    "already freed or never allocated"
                } else {
                    "still queued: DeQue it first"
                }
            );
            self.states[idx] = BufState::Free;
            self.busy -= 1;
        }
    }
}
use que::{reciprocal, BufState, QueCore};

mod sealed {
    pub trait Sealed {
        fn src_position(&self) -> super::TPosition;
        fn depth(&self) -> usize;
        fn core_ref(&self) -> Option<&super::QueCore>;
        fn attach(&mut self, core: super::QueCore);
    }
}

/// A queue that [`TPipe::init_buffer`] can give buffers to ([`TQueBind`] and so [`TQue`]).
/// Sealed: it cannot be implemented outside this crate.
pub trait InitBuffer: sealed::Sealed {}

/// A queue moving tensors from position `Src` to position `Dst` (AscendC `TQueBind<src, dst,
/// depth>`); [`TQue`] is the common case `Src == Dst`.
///
/// The queue owns the buffers [`TPipe::init_buffer`] gives it. Each buffer goes
/// FREE → [`alloc_tensor`](Self::alloc_tensor) → OCCUPIED → [`enque`](Self::enque) → ENQUE →
/// [`deque`](Self::deque) (first in, first out) → DEQUE → [`free_tensor`](Self::free_tensor)
/// → FREE. Every step out of order fails with a message naming the buffer and its state,
/// where the hardware would hang or corrupt data. A tensor's buffer is found from its UB
/// address, so a view into a buffer (`t.view(k)`) stands for the whole buffer.
///
/// `DEPTH` is the queue depth: how many tensors may be enqueued and not yet dequeued at
/// once. It is independent of the number of buffers: the usual double-buffered kernel uses
/// `DEPTH` 1 or 2 with 2 buffers. AscendC's depth 0 (in-place mode, with the
/// `AllocTensor(LocalTensor&)` / `DeQue(LocalTensor&)` variants) is not modelled: `DEPTH = 0`
/// is a compile error.
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut q = TQue::<VecIn, 0>::new();
/// let _ = q.alloc_tensor::<f32>();
/// ```
pub struct TQueBind<Src: Position, Dst: Position, const DEPTH: usize> {
    core: Option<QueCore>,
    _p: PhantomData<(Src, Dst)>,
}

/// A queue at one position (AscendC `TQue<pos, depth>`): a [`TQueBind`] whose source and
/// destination are the same.
pub type TQue<P, const DEPTH: usize> = TQueBind<P, P, DEPTH>;

impl<Src: Position, Dst: Position, const DEPTH: usize> Default for TQueBind<Src, Dst, DEPTH> {
    fn default() -> Self {
        TQueBind { core: None, _p: PhantomData }
    }
}

impl<Src: Position, Dst: Position, const DEPTH: usize> sealed::Sealed for TQueBind<Src, Dst, DEPTH> {
    fn src_position(&self) -> TPosition {
        Src::POS
    }
    fn depth(&self) -> usize {
        DEPTH
    }
    fn core_ref(&self) -> Option<&QueCore> {
        self.core.as_ref()
    }
    fn attach(&mut self, core: QueCore) {
        self.core = Some(core);
    }
}

impl<Src: Position, Dst: Position, const DEPTH: usize> InitBuffer for TQueBind<Src, Dst, DEPTH> {}

impl<Src: Position, Dst: Position, const DEPTH: usize> TQueBind<Src, Dst, DEPTH> {
    const DEPTH_OK: () = assert!(DEPTH >= 1, "TQue depth 0 (in-place mode) is not supported: use DEPTH >= 1");

    /// A queue without buffers; give it some with [`TPipe::init_buffer`].
    pub fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::DEPTH_OK;
        Self::default()
    }

    #[track_caller]
    #[inline]
    fn core_mut(&mut self, api: &'static str) -> &mut QueCore {
        #[allow(clippy::let_unit_value)]
        let () = Self::DEPTH_OK;
        match &mut self.core {
            Some(c) => c,
            None => fail(api, "the queue has no buffers: call TPipe::init_buffer first"),
        }
    }

    #[track_caller]
    fn core(&self, api: &'static str) -> &QueCore {
        match &self.core {
            Some(c) => {
                c.check_live(api);
                c
            }
            None => fail(api, "the queue has no buffers: call TPipe::init_buffer first"),
        }
    }

    /// Takes a FREE buffer (round-robin, as AscendC does) and returns it whole as a tensor
    /// of `T` at position `Src` (AscendC `AllocTensor<T>()`). Its contents are whatever the
    /// buffer held before.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 2, 256);
    /// let a = q.alloc_tensor::<f16>();
    /// let b = q.alloc_tensor::<f16>();
    /// assert_eq!((a.get_size(), a.get_position()), (128, TPosition::VECIN));
    /// assert_eq!(b.get_phy_addr(), a.get_phy_addr() + 256);
    /// assert!(!q.has_idle_buffer());
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers (no `init_buffer`, or the pipe was reset) or none
    /// is FREE.
    #[track_caller]
    pub fn alloc_tensor<T: Element>(&mut self) -> LocalTensor<T> {
        let core = self.core_mut("TQue::AllocTensor");
        let idx = core.alloc("TQue::AllocTensor");
        let q = const { crate::sanitizer::que_pipes(Src::POS, Dst::POS) };
        let tag = crate::sanitizer::on_alloc(core.san, core.base, core.buf_len, idx, Src::POS, q);
        core.tensor::<T>(idx, Src::POS).with_tag(tag)
    }

    /// Puts an allocated (or dequeued) tensor at the tail of the queue (AscendC `EnQue`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecOut, 2>::new();
    /// pipe.init_buffer(&mut q, 2, 64);
    /// let t = q.alloc_tensor::<i32>();
    /// q.enque(t);
    /// assert_eq!(q.get_tensor_count_in_que(), 1);
    /// ```
    ///
    /// # Panics
    /// Panics if `DEPTH` tensors are already queued, or the tensor is not a buffer of this
    /// queue in state OCCUPIED or DEQUE (AscendC accepts both), or the queue has no buffers.
    #[track_caller]
    pub fn enque<T: Element>(&mut self, t: LocalTensor<T>) {
        self.enque_at::<T, Src, Dst>(t)
    }

    /// `enque` with the positions whose hardware event the queue sets (the sanitizer's view).
    #[track_caller]
    fn enque_at<T: Element, S: Position, D: Position>(&mut self, t: LocalTensor<T>) {
        let api = "TQue::EnQue";
        let core = self.core_mut(api);
        core.check_live(api);
        let idx = core.index_of(api, &t);
        core.enque(api, idx, t.get_phy_addr());
        let q = const { crate::sanitizer::que_pipes(S::POS, D::POS) };
        crate::sanitizer::on_enque(core.san, core.base, core.buf_len, idx, q);
    }

    /// Takes the tensor at the head of the queue (first in, first out), whole, as a tensor of
    /// `T` at position `Src` (AscendC `DeQue<T>()`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 2>::new();
    /// pipe.init_buffer(&mut q, 2, 32);
    /// let (a, b) = (q.alloc_tensor::<u32>(), q.alloc_tensor::<u32>());
    /// let first = a.get_phy_addr();
    /// q.enque(a);
    /// q.enque(b);
    /// assert_eq!(q.deque::<u32>().get_phy_addr(), first);
    /// ```
    ///
    /// # Panics
    /// Panics if the queue is empty or has no buffers.
    #[track_caller]
    pub fn deque<T: Element>(&mut self) -> LocalTensor<T> {
        self.deque_at::<T, Src, Dst>()
    }

    /// `deque` with the positions whose hardware event the queue waits for.
    #[track_caller]
    fn deque_at<T: Element, S: Position, D: Position>(&mut self) -> LocalTensor<T> {
        let core = self.core_mut("TQue::DeQue");
        let idx = core.deque("TQue::DeQue");
        let q = const { crate::sanitizer::que_pipes(S::POS, D::POS) };
        let tag = crate::sanitizer::on_deque(core.san, core.base, core.buf_len, idx, q);
        core.tensor::<T>(idx, Src::POS).with_tag(tag)
    }

    /// Returns the tensor's buffer to the FREE state (AscendC `FreeTensor`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 32);
    /// let t = q.alloc_tensor::<f32>();
    /// assert!(!q.has_idle_buffer());
    /// q.free_tensor(t);
    /// assert!(q.has_idle_buffer());
    /// ```
    ///
    /// # Panics
    /// Panics if the tensor is not a buffer of this queue, its buffer is FREE already, or it
    /// is still queued (ENQUE: dequeue it first), or the queue has no buffers.
    #[track_caller]
    pub fn free_tensor<T: Element>(&mut self, t: LocalTensor<T>) {
        let api = "TQue::FreeTensor";
        let core = self.core_mut(api);
        core.check_live(api);
        let idx = core.index_of(api, &t);
        core.free(api, idx, t.get_phy_addr());
        let q = const { crate::sanitizer::que_pipes(Src::POS, Dst::POS) };
        crate::sanitizer::on_free(api, core.san, core.base, core.buf_len, idx, t.tag, q);
    }

    /// Whether another tensor may be enqueued: fewer than `DEPTH` are queued (AscendC
    /// `VacantInQue`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 2, 32);
    /// assert!(q.vacant_in_que());
    /// let t = q.alloc_tensor::<u8>();
    /// q.enque(t);
    /// assert!(!q.vacant_in_que());
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers.
    #[track_caller]
    pub fn vacant_in_que(&self) -> bool {
        let c = self.core("TQue::VacantInQue");
        c.queued < c.depth
    }

    /// Whether at least one tensor is queued (AscendC `HasTensorInQue`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 32);
    /// assert!(!q.has_tensor_in_que());
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers.
    #[track_caller]
    pub fn has_tensor_in_que(&self) -> bool {
        self.core("TQue::HasTensorInQue").queued > 0
    }

    /// Number of tensors queued and not yet dequeued (AscendC `GetTensorCountInQue`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 2>::new();
    /// pipe.init_buffer(&mut q, 2, 32);
    /// assert_eq!(q.get_tensor_count_in_que(), 0);
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers.
    #[track_caller]
    pub fn get_tensor_count_in_que(&self) -> usize {
        self.core("TQue::GetTensorCountInQue").queued
    }

    /// Whether a buffer is FREE, so [`alloc_tensor`](Self::alloc_tensor) would succeed
    /// (AscendC `HasIdleBuffer`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 32);
    /// assert!(q.has_idle_buffer());
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers.
    #[track_caller]
    pub fn has_idle_buffer(&self) -> bool {
        let c = self.core("TQue::HasIdleBuffer");
        c.busy < c.states.len()
    }
}

/// A position `EnQue<srcUserPos, dstUserPos>` / `DeQue<srcUserPos, dstUserPos>` accept: `Gm`,
/// `VecIn`, `VecOut`, `VecCalc` (AscendC's implementation rejects the others at compile time):
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut q = TQue::<VecIn, 1>::new();
/// let _ = q.deque_with::<A1, VecIn, f32>();
/// ```
pub trait QueUserPosition: Position {}
impl QueUserPosition for crate::position::Gm {}
impl QueUserPosition for crate::position::VecIn {}
impl QueUserPosition for crate::position::VecOut {}
impl QueUserPosition for crate::position::VecCalc {}

struct UserPositions<S, D>(PhantomData<(S, D)>);
impl<S: QueUserPosition, D: QueUserPosition> UserPositions<S, D> {
    const OK: () = assert!(
        !matches!((S::POS, D::POS), (TPosition::GM, TPosition::GM)),
        "EnQue/DeQue: srcUserPos and dstUserPos cannot both be GM"
    );
}

impl<Src: Position, Dst: Position, const DEPTH: usize> TQueBind<Src, Dst, DEPTH> {
    /// `EnQue<srcUserPos, dstUserPos>(tensor)`: the user positions only choose which hardware
    /// event the queue waits on (GM→UB, UB→GM, UB→UB), so the queue behaves exactly as
    /// [`enque`](Self::enque). Both positions being `Gm` does not compile:
    ///
    /// ```compile_fail
    /// use ascend_core::prelude::*;
    /// let mut q = TQue::<VecIn, 1>::new();
    /// let t = q.alloc_tensor::<f32>();
    /// q.enque_with::<Gm, Gm, f32>(t);
    /// ```
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQueBind::<VecIn, VecOut, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 64);
    /// let t = q.alloc_tensor::<f32>();
    /// let addr = t.get_phy_addr();
    /// q.enque_with::<Gm, VecIn, f32>(t);
    /// assert_eq!(q.deque_with::<Gm, VecIn, f32>().get_phy_addr(), addr);
    /// ```
    ///
    /// # Panics
    /// As [`enque`](Self::enque).
    #[track_caller]
    pub fn enque_with<SrcUser: QueUserPosition, DstUser: QueUserPosition, T: Element>(
        &mut self,
        t: LocalTensor<T>,
    ) {
        #[allow(clippy::let_unit_value)]
        let () = UserPositions::<SrcUser, DstUser>::OK;
        self.enque_at::<T, SrcUser, DstUser>(t)
    }

    /// `DeQue<srcUserPos, dstUserPos, T>()`: as [`deque`](Self::deque) (see
    /// [`enque_with`](Self::enque_with)).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecOut, 2>::new();
    /// pipe.init_buffer(&mut q, 2, 32);
    /// let t = q.alloc_tensor::<i16>();
    /// q.enque_with::<VecOut, Gm, i16>(t);
    /// let t = q.deque_with::<VecOut, Gm, i16>();
    /// assert_eq!(t.get_size(), 16);
    /// ```
    ///
    /// # Panics
    /// As [`deque`](Self::deque).
    #[track_caller]
    pub fn deque_with<SrcUser: QueUserPosition, DstUser: QueUserPosition, T: Element>(
        &mut self,
    ) -> LocalTensor<T> {
        #[allow(clippy::let_unit_value)]
        let () = UserPositions::<SrcUser, DstUser>::OK;
        self.deque_at::<T, SrcUser, DstUser>()
    }
}

#[cfg(test)]
mod tests {
    use super::que::{quotient, reciprocal};

    /// The multiplication `index_of` divides by is exact for every buffer length the pipe can
    /// carve (a multiple of 32 up to the largest Unified Buffer) at every quotient boundary,
    /// and at the largest offset the bound allows.
    #[test]
    fn reciprocal_division_is_exact() {
        for d in (32..=262_144).step_by(32) {
            let r = reciprocal(d);
            for q in 1..=(1 << 20) / d {
                for x in [q * d - 1, q * d, (q * d + d - 1).min(1 << 20)] {
                    assert_eq!(quotient(x, r), x / d, "x = {x}, d = {d}");
                }
            }
            assert_eq!(quotient(1 << 20, r), (1 << 20) / d, "d = {d}");
        }
        // Odd divisors too (the proof does not need multiples of 32).
        for d in [1, 3, 7, 1000, 65_537, (1 << 20) - 1, 1 << 20] {
            let r = reciprocal(d);
            for x in [0, 1, d - 1, d, d + 1, (1 << 20) - 1, 1 << 20].into_iter().filter(|&x| x <= 1 << 20) {
                assert_eq!(quotient(x, r), x / d, "x = {x}, d = {d}");
            }
        }
    }
}
