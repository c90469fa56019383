//! `TPipe` and the buffers it carves out of the core's Unified Buffer: queues (`TQue`,
//! `TQueBind`), plain buffers (`TBuf`) and pools of memory handed out by hand (`TBufPool`).

use core::marker::PhantomData;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::element::{Element, TensorType, BLOCK_BYTES};
use crate::kernel::ctx::with_core;
use crate::kernel::error::{check, ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::memory::ub::Ub;
use crate::position::{Memory, Position, TPosition};

/// Bytes of the Unified Buffer's end a live `GroupBarrier` occupies (`ONE_BLK_SIZE ×
/// BARRIER_MAX_AIV`, see [`crate::group_barrier`]; here because the pipe refuses to hand
/// them out while one lives): 50 blocks of 32 bytes, one per core the protocol supports.
pub const GROUP_BARRIER_UB_BYTES: usize = 32 * 50;

/// Most buffers one pipe can hand out.
pub const MAX_PIPE_BUFFERS: usize = 64;

/// The memory manager of one core (AscendC `TPipe`): a bump allocator over the Unified Buffer,
/// and one over each of the cube's memories (L1, L0A, L0B, L0C) for queues and buffers at the
/// cube's positions.
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
    /// The allocators' state (shared with the handles [`get_tpipe_ptr`] gives out).
    alloc: Rc<PipeAlloc>,
    /// Bumped by `reset` and on drop: queues given buffers under an older value are stale.
    epoch: Rc<Cell<u64>>,
    /// The pools carved from this pipe (and from them) since its last reset.
    pools: Rc<PoolRegistry>,
    /// A view of the live pipe through [`TPipePtr`]: its drop releases nothing.
    handle: bool,
}

/// The bump allocators of a [`TPipe`].
#[derive(Default)]
pub(crate) struct PipeAlloc {
    /// Next free byte of the Unified Buffer.
    cur: Cell<usize>,
    /// Buffers handed out so far.
    buffers: Cell<usize>,
    /// Next free byte of each cube memory (L1, L0A, L0B, L0C, BT: `Memory as usize - 1`), for
    /// queues and buffers at the cube's positions.
    cube_cur: Cell<[usize; 5]>,
}

/// What the live [`TPipe`] of a core shares with the handles [`get_tpipe_ptr`] gives out
/// (kept in the core's state while the pipe lives).
#[derive(Clone)]
pub(crate) struct PipeShared {
    ub: Rc<Ub>,
    alloc: Rc<PipeAlloc>,
    epoch: Rc<Cell<u64>>,
    pools: Rc<PoolRegistry>,
}

/// The current core's pipe (AscendC `GetTPipePtr()`): a handle through which a kernel calls the
/// live [`TPipe`]'s methods — `fetch_event_id`, `alloc_event_id`, `release_event_id`,
/// `init_buffer`, `init_tbuf`, `reset` … — from code that was not handed the pipe (the
/// vendor's own library code does `GetTPipePtr()->FetchEventID(HardEvent::V_S)`). It shares the
/// pipe's allocators: a buffer given through it comes from the same Unified Buffer bytes as one
/// given through the pipe.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TQue::<VecIn, 1>::new();
/// get_tpipe_ptr().init_buffer(&mut q, 2, 256);
/// assert_eq!(pipe.used_bytes(), 512);
/// let id = get_tpipe_ptr().fetch_event_id::<HardEvent::V_S>();
/// set_flag::<HardEvent::V_S>(id);
/// wait_flag::<HardEvent::V_S>(id);
/// let a = get_tpipe_ptr().alloc_event_id::<HardEvent::MTE2_V>();
/// assert_eq!(pipe.fetch_event_id::<HardEvent::MTE2_V>(), a + 1);
/// # pipe.release_event_id::<HardEvent::MTE2_V>(a);
/// ```
///
/// # Panics
/// Panics if no `TPipe` is alive on this core (the vendor's returns a null pointer); a method
/// called through the handle panics if the pipe it points at was dropped since.
#[track_caller]
pub fn get_tpipe_ptr() -> TPipePtr {
    let shared =
        with_core(|c| c.pipe_shared.borrow().as_ref().and_then(|s| s.downcast_ref::<PipeShared>()).cloned());
    let Some(PipeShared { ub, alloc, epoch, pools }) = shared else {
        fail("GetTPipePtr", "no TPipe is alive on this core: create one with TPipe::new() first")
    };
    TPipePtr { pipe: TPipe { ub, alloc, epoch, pools, handle: true } }
}

/// The handle [`get_tpipe_ptr`] returns: dereferences to the core's live [`TPipe`] (the same
/// allocators and events). Dropping it does not drop the pipe.
pub struct TPipePtr {
    pipe: TPipe,
}

impl TPipePtr {
    #[track_caller]
    fn check_alive(&self) {
        let alive = with_core(|c| {
            c.pipe_shared
                .borrow()
                .as_ref()
                .and_then(|s| s.downcast_ref::<PipeShared>())
                .is_some_and(|s| Rc::ptr_eq(&s.alloc, &self.pipe.alloc))
        });
        if !alive {
            fail("GetTPipePtr", "the TPipe this handle points at was dropped; call get_tpipe_ptr() again");
        }
    }
}

impl core::ops::Deref for TPipePtr {
    type Target = TPipe;
    #[track_caller]
    fn deref(&self) -> &TPipe {
        self.check_alive();
        &self.pipe
    }
}

impl core::ops::DerefMut for TPipePtr {
    #[track_caller]
    fn deref_mut(&mut self) -> &mut TPipe {
        self.check_alive();
        &mut self.pipe
    }
}

impl TPipe {
    /// Creates the core's pipe over an empty Unified Buffer. On a cube core of Ascend910B and
    /// on Ascend310B it also allocates and sets the `M_MTE1` ids [`MATMUL_M_MTE1_IDS`], as the
    /// vendor's `TPipe::Init` does; its drop waits for and releases them.
    ///
    /// # Panics
    /// Panics if another `TPipe` is alive on this core.
    #[track_caller]
    pub fn new() -> TPipe {
        let loc = core::panic::Location::caller();
        let ub = with_core(|c| {
            if let Some(m) =
                crate::position::Memory::ALL.into_iter().find(|&m| c.allocators.get() >> m as u8 & 1 != 0)
            {
                crate::kernel::error::fail_at(
                    "TPipe",
                    format!(
                        "a LocalMemAllocator<{}> is alive on this core; AscendC does not mix it with TPipe",
                        m.hardware_name()
                    ),
                    loc,
                );
            }
            if c.pipe_alive.replace(true) {
                crate::kernel::error::fail_at(
                    "TPipe",
                    "a TPipe is already alive on this core; AscendC allows one at a time",
                    loc,
                );
            }
            Rc::clone(&c.ub)
        });
        let mut pipe = TPipe {
            ub,
            alloc: Rc::default(),
            epoch: Rc::new(Cell::new(0)),
            pools: Rc::default(),
            handle: false,
        };
        with_core(|c| {
            *c.pipe_shared.borrow_mut() = Some(Box::new(PipeShared {
                ub: Rc::clone(&pipe.ub),
                alloc: Rc::clone(&pipe.alloc),
                epoch: Rc::clone(&pipe.epoch),
                pools: Rc::clone(&pipe.pools),
            }))
        });
        if presets_m_mte1() {
            for want in MATMUL_M_MTE1_IDS {
                let id = pipe.alloc_event_id::<crate::sync::event::HardEvent::M_MTE1>();
                debug_assert_eq!(id, want);
                crate::sync::flags::set_flag::<crate::sync::event::HardEvent::M_MTE1>(id);
            }
        }
        pipe
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
        self.alloc.cur.set(0);
        self.alloc.cube_cur.set([0; 5]);
        with_core(|c| c.pipe_end.set(0));
        self.alloc.buffers.set(0);
        self.epoch.set(self.epoch.get() + 1);
        self.pools.0.borrow_mut().clear();
        crate::observe::events::on_pipe_release(crate::observe::sanitizer::Release::Reset);
    }

    /// Bytes of the Unified Buffer handed out so far (the cube memories' are not counted).
    pub fn used_bytes(&self) -> usize {
        self.alloc.cur.get()
    }

    /// Carves `num` buffers of `len` bytes (rounded up to 32) out of the UB; returns the byte
    /// offset of the first and the rounded length.
    #[track_caller]
    pub(crate) fn carve(&mut self, api: &'static str, num: usize, len: usize) -> (usize, usize) {
        self.check_count(api, num, len);
        let (start, rounded) = self.carve_bytes(api, num, len);
        self.alloc.buffers.set(self.alloc.buffers.get() + num);
        (start, rounded)
    }

    /// The checks of every carve of `num` buffers of `len` bytes: `num` in `1..=64`, `len`
    /// positive, and the pipe's 64 buffers (shared by all its memories, as AscendC's are).
    #[track_caller]
    fn check_count(&self, api: &'static str, num: usize, len: usize) {
        ensure((1..=MAX_PIPE_BUFFERS).contains(&num), api, || {
            format!("num = {num} is out of range [1, {MAX_PIPE_BUFFERS}]")
        });
        ensure(len > 0, api, || "len = 0: a buffer needs at least one byte".to_string());
        let buffers = self.alloc.buffers.get();
        ensure(buffers + num <= MAX_PIPE_BUFFERS, api, || {
            format!(
                "num = {num} more buffers would make {} in this pipe; the limit is {MAX_PIPE_BUFFERS}",
                buffers + num
            )
        });
    }

    /// [`carve`](Self::carve) in a cube memory (`mem` is not the UB): the arena, the byte
    /// offset of the first buffer and the rounded length. The pipe's 64 buffers are shared by
    /// all its memories, as AscendC's are.
    #[track_caller]
    fn carve_cube(
        &mut self,
        api: &'static str,
        mem: Memory,
        num: usize,
        len: usize,
    ) -> (Rc<Ub>, usize, usize) {
        self.check_count(api, num, len);
        let loc = core::panic::Location::caller();
        let arena = with_core(|c| c.arena(mem, api, loc));
        let (size, cur) = (arena.size(), self.alloc.cube_cur.get()[mem as usize - 1]);
        let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
        let total = rounded.and_then(|r| r.checked_mul(num));
        let fits = total.and_then(|t| t.checked_add(cur)).is_some_and(|end| end <= size);
        ensure(fits, api, || {
            match (rounded, total) {
            (Some(rounded), Some(total)) => format!(
                "{num} buffer(s) of {len} bytes (rounded to {rounded}) need {total} bytes, but only {} of the {} \
                 buffer's {size} bytes are free ({cur} already used)",
                size - cur,
                mem.hardware_name()
            ),
            _ => format!(
                "num = {num} buffer(s) of len = {len} bytes overflow the address space; the {} buffer has {size} \
                 bytes ({} free)",
                mem.hardware_name(),
                size - cur
            ),
        }
        });
        let (rounded, total) = (rounded.unwrap_or(0), total.unwrap_or(0));
        let mut cube_cur = self.alloc.cube_cur.get();
        cube_cur[mem as usize - 1] = cur + total;
        self.alloc.cube_cur.set(cube_cur);
        self.alloc.buffers.set(self.alloc.buffers.get() + num);
        (arena, cur, rounded)
    }

    /// The bytes of [`carve`](Self::carve), without counting buffers (a `TBufPool`'s memory).
    #[track_caller]
    fn carve_bytes(&mut self, api: &'static str, num: usize, len: usize) -> (usize, usize) {
        let ub_size = self.ub.size();
        // A live `GroupBarrier` of the core occupies the Unified Buffer's last bytes; a cube
        // core of a separated chip has no Unified Buffer (`arena` fails).
        let loc = core::panic::Location::caller();
        let reserved = with_core(|c| {
            c.require(crate::position::Memory::Ub, api, loc);
            if c.group_barriers.get() > 0 {
                GROUP_BARRIER_UB_BYTES
            } else {
                0
            }
        });
        let limit = ub_size - reserved;
        // Checked: `len` comes from the kernel and may be anything up to `usize::MAX`.
        let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
        let total = rounded.and_then(|r| r.checked_mul(num));
        let cur = self.alloc.cur.get();
        let fits = total.and_then(|t| t.checked_add(cur)).is_some_and(|end| end <= limit);
        ensure(fits, api, || {
            match (rounded, total) {
            _ if reserved > 0 => format!(
                "{num} buffer(s) of {len} bytes would reach past byte {limit} of the Unified Buffer, whose last \
                 {reserved} bytes a GroupBarrier of this core occupies ({} free before them)",
                limit.saturating_sub(cur)
            ),
            (Some(rounded), Some(total)) => format!(
                "{num} buffer(s) of {len} bytes (rounded to {rounded}) need {total} bytes, but only {} of the \
                 Unified Buffer's {ub_size} bytes are free ({} already used)",
                ub_size - cur,
                cur
            ),
            _ => format!(
                "num = {num} buffer(s) of len = {len} bytes overflow the address space; the Unified Buffer has \
                 {ub_size} bytes ({} free)",
                ub_size - cur
            ),
        }
        });
        let (rounded, total) = (rounded.unwrap_or(0), total.unwrap_or(0));
        let start = cur;
        self.alloc.cur.set(cur + total);
        with_core(|c| c.pipe_end.set(cur + total));
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
    /// Panics if the memory of `P` or the pipe's 64 buffers are exhausted, `len` is 0, `P` has
    /// no memory of the core on the chip (Ascend910B's `CO2` is global memory; Ascend310B's
    /// `C2`, its bias table, is not modelled), or the core lacks that memory (see `KernelType`).
    #[track_caller]
    pub fn init_tbuf<P: Position>(&mut self, buf: &mut TBuf<P>, len: usize) {
        let api = "TPipe::InitBuffer";
        let soc = crate::kernel::ctx::get_soc();
        let (arena, off, rounded) = match P::POS.memory(soc) {
            Some(Memory::Ub) => {
                let (off, rounded) = self.carve(api, 1, len);
                (Rc::clone(&self.ub), off, rounded)
            }
            Some(mem) => self.carve_cube(api, mem, 1, len),
            None => fail(
                api,
                format!(
                    "the TBuf's position is {} and on {soc} that is {}: a TBuf lives in a memory of the core",
                    P::POS,
                    no_memory(P::POS)
                ),
            ),
        };
        buf.san = crate::observe::events::on_init_tbuf(
            crate::observe::sanitizer::buf_key(arena.mem(), off),
            rounded,
            P::POS,
        );
        buf.mem = Some((arena, off, rounded));
        // Like a queue, the buffer is only valid until the pipe is reset or dropped.
        buf.epoch = Some((Rc::clone(&self.epoch), self.epoch.get()));
        buf.pool = None;
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
    /// [`reset`](Self::reset)), or the queue's buffers would not be in a memory of the core
    /// (Ascend910B's `TQue<CO2>`: global memory).
    ///
    /// A queue at a cube position takes its buffers from that memory's allocator:
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let (mut a1, mut a2) = (TQue::<A1, 1>::new(), TQue::<A2, 1>::new());
    /// pipe.init_buffer(&mut a1, 2, 512); // L1 [0, 1024)
    /// pipe.init_buffer(&mut a2, 1, 512); // L0A [0, 512)
    /// let t = a1.alloc_tensor::<f16>();
    /// assert_eq!((t.get_phy_addr(), t.memory()), (0, Memory::L1));
    /// assert_eq!(a2.alloc_tensor::<f16>().memory(), Memory::L0A);
    /// assert_eq!(pipe.used_bytes(), 0); // the Unified Buffer's
    /// ```
    #[track_caller]
    pub fn init_buffer<Q: InitBuffer>(&mut self, que: &mut Q, num: usize, len: usize) {
        let api = "TPipe::InitBuffer";
        let (src, dst) = (que.src_position(), que.dst_position());
        let soc = crate::kernel::ctx::get_soc();
        let Some(mem) = que_memory(soc, src, dst) else {
            let (s, d) = crate::position::que_path(src, dst).unwrap_or((src, dst));
            let at = if d == TPosition::GM || d == TPosition::CO2 { s } else { d };
            fail(
                api,
                format!(
                    "the queue {src} -> {dst} keeps its buffers at {at}, which on {soc} is {}: a queue's buffers \
                     live in a memory of the core",
                    no_memory(at)
                ),
            )
        };
        check_requeue(api, que, &self.epoch);
        if mem == Memory::Ub {
            let (base, rounded) = self.carve(api, num, len);
            attach_queue(que, &self.ub, &self.epoch, base, rounded, num, None);
        } else {
            let (arena, base, rounded) = self.carve_cube(api, mem, num, len);
            attach_queue(que, &arena, &self.epoch, base, rounded, num, None);
        }
    }
}

/// The memory a queue between `src` and `dst` keeps its buffers in on `soc` (the vendor's
/// `GetBufferPos` over the queue's logical positions: the destination's memory, or the
/// source's when the data leaves for GM or CO2), or `None` when that is global memory or a
/// memory this emulator does not model.
fn que_memory(soc: crate::soc::Soc, src: TPosition, dst: TPosition) -> Option<Memory> {
    let Some((s, d)) = crate::position::que_path(src, dst) else {
        return src.memory(soc); // VECCALC
    };
    let coupled = matches!(soc, crate::soc::Soc::Ascend910 | crate::soc::Soc::Ascend310P);
    let from_src = d == TPosition::GM || (d == TPosition::CO2 && (!coupled || s == TPosition::CO1));
    if from_src {
        s.memory(soc)
    } else {
        d.memory(soc)
    }
}

/// What position `pos` is on a chip where it has no memory of the core, for a message.
fn no_memory(pos: TPosition) -> &'static str {
    match pos {
        TPosition::C2 => "the bias table, which is not modelled on that chip",
        _ => "global memory",
    }
}

/// The pipes of the events of a queue between `S` and `D`: at compile time for the vector
/// positions (the same on every chip); on the chip of the running core for the cube's (see
/// `sanitizer::que_events_on`).
#[inline(always)]
fn que_pipes<S: Position, D: Position>() -> Option<crate::observe::sanitizer::QuePipes> {
    if const { crate::observe::sanitizer::que_chip_dependent(S::POS, D::POS) } {
        crate::observe::sanitizer::que_pipes_on(crate::kernel::ctx::get_soc(), S::POS, D::POS)
    } else {
        const { crate::observe::sanitizer::que_pipes(S::POS, D::POS) }
    }
}

/// Fails if `que` still has buffers from the pipe whose epoch counter is `epoch`: a queue gets
/// its buffers once — unless they came from a `TBufPool` reset since, and none is in use.
#[track_caller]
fn check_requeue<Q: InitBuffer>(api: &'static str, que: &Q, epoch: &Rc<Cell<u64>>) {
    let Some(core) = que.core_ref() else { return };
    if !(Rc::ptr_eq(&core.epoch, epoch) && core.epoch_at_init == epoch.get()) {
        return;
    }
    let released = core.pool.as_ref().is_some_and(|(p, at)| p.resets.get() != *at);
    ensure(released, api, || {
        format!(
            "the queue already has {} buffer(s) of {} bytes from this pipe; a queue gets its buffers once (call \
             TPipe::reset, or TBufPool::Reset of the pool they came from, first)",
            core.states.len(),
            core.buf_len
        )
    });
    ensure(core.busy == 0, api, || {
        format!(
            "the queue's pool was reset, but {} of its {} buffer(s) are in use since (allocated or queued): \
             FreeTensor them before giving the queue new buffers",
            core.busy,
            core.states.len()
        )
    });
}

/// Gives `que` its `num` buffers of `rounded` bytes from `base` (carved and checked by the
/// caller), registering them with the sanitizer.
#[track_caller]
fn attach_queue<Q: InitBuffer>(
    que: &mut Q,
    ub: &Rc<Ub>,
    epoch: &Rc<Cell<u64>>,
    base: usize,
    rounded: usize,
    num: usize,
    pool: Option<Rc<PoolNode>>,
) {
    let san_base = crate::observe::sanitizer::buf_key(ub.mem(), base);
    let san = crate::observe::events::on_init_queue(san_base, rounded, num, que.src_position());
    if let Some(p) = &pool {
        p.queues.borrow_mut().push((san, san_base, rounded, num));
    }
    que.attach(QueCore {
        ub: Rc::clone(ub),
        epoch: Rc::clone(epoch),
        epoch_at_init: epoch.get(),
        base,
        san_base,
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
        pool: pool.map(|p| {
            let at = p.resets.get();
            (p, at)
        }),
    });
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

/// The `M_MTE1` event ids the vendor's `TPipe` allocates and sets when it is created on a cube
/// core of Ascend910B and on Ascend310B, for its matmul framework (ids 0 and 1 for the L0
/// buffers, 2 for the bias), and waits for and releases when it is destroyed
/// (`kernel_tpipe_impl.h`, `TPipe::Init` and `TPipe::Destroy`).
pub const MATMUL_M_MTE1_IDS: [crate::sync::event::TEventID; 3] = [0, 1, 2];

/// Whether this core's `TPipe` presets [`MATMUL_M_MTE1_IDS`]: on a cube core (AIC) of
/// Ascend910B (a kernel launched with `KernelType::AicOnly`) and on every core of Ascend310B
/// (the vendor's `__NPU_ARCH__` 2201 under `ASCEND_IS_AIC`, and 3002).
fn presets_m_mte1() -> bool {
    with_core(|c| match c.soc {
        crate::soc::Soc::Ascend910B => c.kernel_type == Some(crate::kernel::ctx::KernelType::AicOnly),
        crate::soc::Soc::Ascend310B => true,
        _ => false,
    })
}

impl Drop for TPipe {
    fn drop(&mut self) {
        if self.handle {
            return;
        }
        if presets_m_mte1() && !std::thread::panicking() {
            self.release_matmul_events();
        }
        self.epoch.set(self.epoch.get() + 1);
        crate::observe::events::on_pipe_release(crate::observe::sanitizer::Release::Drop);
        with_core(|c| {
            c.pipe_alive.set(false);
            c.pipe_end.set(0);
            c.pipe_shared.borrow_mut().take();
        });
    }
}

/// A plain buffer at position `P` (AscendC `TBuf<pos>`), for scratch space outside the queues.
pub struct TBuf<P: Position> {
    mem: Option<(Rc<Ub>, usize, usize)>,
    /// The pipe's epoch counter and its value when the memory was carved: after
    /// `TPipe::reset` (or the pipe's drop) the memory may belong to a queue, so `get` fails.
    epoch: Option<(Rc<Cell<u64>>, u64)>,
    /// The `TBufPool` the memory came from, if any.
    pool: Option<Rc<PoolNode>>,
    /// The sanitizer's record of the memory (from `TPipe::InitBuffer`): its tensors carry its
    /// tag, so a tensor used after the pipe's reset or drop is a stale handle.
    san: crate::observe::sanitizer::TBufSan,
    _p: PhantomData<P>,
}

impl<P: Position> Default for TBuf<P> {
    fn default() -> Self {
        TBuf { mem: None, epoch: None, pool: None, san: (0, 0), _p: PhantomData }
    }
}

impl<P: Position> TBuf<P> {
    /// An empty buffer; give it memory with [`TPipe::init_tbuf`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The sanitizer tag of the tensors `get` hands out (see [`TBuf::san`]).
    #[inline(always)]
    fn tag(&self) -> u64 {
        crate::observe::sanitizer::tbuf_tag(self.san)
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
            Some((ub, off, len)) => {
                if let Some(pool) = &self.pool {
                    pool.use_bytes(api, *off, *len);
                }
                (ub, *off, *len)
            }
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
        LocalTensor::from_raw(Rc::clone(ub), off, len / T::SIZE, P::POS).with_tag(self.tag())
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
        LocalTensor::from_raw(Rc::clone(ub), off, len, P::POS).with_tag(self.tag())
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
        LocalTensor::from_raw(Rc::clone(ub), off + offset, len, P::POS).with_tag(self.tag())
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
        /// `base` as the sanitizer keys the buffers (see `sanitizer::buf_key`).
        pub(crate) san_base: usize,
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
        /// [`on_init_queue`](crate::events::on_init_queue) returned it.
        pub(crate) san: crate::observe::sanitizer::QueSan,
        /// The `TBufPool` the buffers came from, with its reset count then.
        pub(crate) pool: Option<(Rc<super::PoolNode>, u64)>,
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
    /// Every chip's Unified Buffer and cube memories (and so every offset within them) are at
    /// most `2^20` bytes.
    const _: () = {
        let mut i = 0;
        while i < crate::soc::Soc::ALL.len() {
            assert!(crate::soc::Soc::ALL[i].ub_size() <= 1 << 20);
            let mut m = 0;
            while m < Memory::ALL.len() {
                assert!(crate::soc::Soc::ALL[i].memory_size(Memory::ALL[m]) <= 1 << 20);
                m += 1;
            }
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
        pub(crate) fn tensor<T: TensorType>(&self, idx: usize, pos: TPosition) -> LocalTensor<T> {
            debug_assert!(idx < self.states.len());
            // SAFETY: `TPipe::carve` checked that the queue's `states.len()` buffers of
            // `buf_len` bytes from `base` lie inside `ub`, and `idx` is one of them.
            unsafe {
                LocalTensor::from_bytes_unchecked(
                    Rc::clone(&self.ub),
                    self.base + idx * self.buf_len,
                    self.buf_len,
                    pos,
                )
            }
        }

        /// The index of the buffer holding the tensor, by UB address.
        #[track_caller]
        #[inline(always)]
        pub(crate) fn index_of<T: TensorType>(&self, api: &'static str, t: &LocalTensor<T>) -> usize {
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

        /// The buffer [`alloc`](Self::alloc) would take, without taking it.
        pub(crate) fn peek_free(&self) -> Option<usize> {
            let n = self.states.len();
            (0..n).map(|k| (self.cursor + k) % n).find(|&i| self.states[i] == BufState::Free)
        }

        /// `AllocTensor` of a queue whose buffers came from a `TBufPool`, before
        /// [`alloc`](Self::alloc) takes the buffer: the pool's checks on the buffer it will
        /// take, and the pool's count of buffers in use (out of the common path, which has no
        /// pool; if `alloc` then fails, the core fails with it).
        #[cold]
        #[inline(never)]
        #[track_caller]
        pub(crate) fn pool_alloc(&self, api: &'static str) {
            let Some((pool, _)) = &self.pool else { return };
            self.check_live(api);
            if let Some(i) = self.peek_free() {
                pool.use_bytes(api, self.base + i * self.buf_len, self.buf_len);
            }
            pool.busy.set(pool.busy.get() + 1);
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
                depth == 0 || queued < depth,
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
            if depth == 0 {
                // In-place mode keeps no queue: the tensor's handle finds its buffer again.
                return;
            }
            // Fits: `idx` was not queued (its state was not ENQUE), so fewer than all are.
            self.fifo[(self.head + self.queued) % MAX_PIPE_BUFFERS] = idx as u8;
            self.queued += 1;
        }

        /// `DeQue(LocalTensor&)` of a depth-0 queue: buffer `idx` (from `index_of`, after
        /// `check_live`) must have been enqueued.
        #[track_caller]
        pub(crate) fn deque_in_place(&mut self, api: &'static str, idx: usize, addr: usize) {
            let st = self.states[idx];
            check!(
                st == BufState::Enque,
                api,
                "buffer {idx} (UB address {addr:#x}) is {}: DeQue takes a tensor EnQue queued (ENQUE)",
                st.name()
            );
            self.states[idx] = BufState::Deque;
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
        fn dst_position(&self) -> super::TPosition;
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
/// `DEPTH` 1 or 2 with 2 buffers.
///
/// **Depth 0** is AscendC's in-place mode (`impl/basic_api/kernel_tquebind_impl.h`): the queue
/// keeps no FIFO; a kernel allocates into its own handle with
/// [`alloc_tensor_in_place`](Self::alloc_tensor_in_place) (`AllocTensor(LocalTensor&)`),
/// [`enque`](Self::enque)s it (which sets the queue's event), waits for that event on the
/// same handle with [`deque_in_place`](Self::deque_in_place) (`DeQue(LocalTensor&)`) and frees
/// it. As in the vendor's `static_assert`s, the returning `alloc_tensor`/`deque`, the
/// user-position forms and the count queries do not compile at depth 0, and the in-place
/// forms do not compile at any other depth:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut q = TQue::<VecIn, 0>::new();
/// let _ = q.alloc_tensor::<f32>();
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut q = TQue::<VecIn, 1>::new();
/// let mut t = LocalTensor::<f32>::new(TPosition::VECIN, 0, 0); // any handle
/// q.alloc_tensor_in_place(&mut t);
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
    fn dst_position(&self) -> TPosition {
        Dst::POS
    }
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
    /// The vendor's `static_assert`s of the forms a depth-0 queue does not have.
    const NOT_IN_PLACE: () = assert!(
        DEPTH != 0,
        "a TQue of depth 0 (in-place mode) takes alloc_tensor_in_place / deque_in_place (AscendC: must use \
         AllocTensor<LocalTensor&> / DeQue<LocalTensor&> api while tque's depth is zero), and has no user-position \
         forms or count queries"
    );
    /// The vendor's `static_assert` of the in-place forms.
    const IN_PLACE: () = assert!(
        DEPTH == 0,
        "alloc_tensor_in_place / deque_in_place need a TQue of depth 0 (AscendC: can not AllocTensor / DeQue \
         tensor in place while tque's depth is non zero)"
    );

    /// A queue without buffers; give it some with [`TPipe::init_buffer`].
    pub fn new() -> Self {
        Self::default()
    }

    #[track_caller]
    #[inline]
    fn core_mut(&mut self, api: &'static str) -> &mut QueCore {
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
    /// `T` may be [`Int4b`](crate::element::Int4b): the buffer's bytes hold twice as many
    /// elements, as the vendor's `AllocTensor<int4b_t>` (`impl/basic_api/kernel_tquebind_impl.h`
    /// `Buf2Tensor`; `LocalTensor<int4b_t>::GetSize` is `dataLen * 2`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecOut, 1>::new();
    /// pipe.init_buffer(&mut q, 1, 64);
    /// let t = q.alloc_tensor::<Int4b>();
    /// assert_eq!(t.get_size(), 128);
    /// t.set_value(127, Int4b::new(-8));
    /// q.enque(t);
    /// let t = q.deque::<Int4b>();
    /// assert_eq!(t.reinterpret_cast::<u8>().get_value(63), 0x80);
    /// q.free_tensor(t);
    /// ```
    ///
    /// # Panics
    /// Panics if the queue has no buffers (no `init_buffer`, or the pipe was reset) or none
    /// is FREE.
    #[track_caller]
    pub fn alloc_tensor<T: TensorType>(&mut self) -> LocalTensor<T> {
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
        self.alloc_any()
    }

    /// [`alloc_tensor`](Self::alloc_tensor) at any depth.
    #[track_caller]
    fn alloc_any<T: TensorType>(&mut self) -> LocalTensor<T> {
        let core = self.core_mut("TQue::AllocTensor");
        if core.pool.is_some() {
            core.pool_alloc("TQue::AllocTensor");
        }
        let idx = core.alloc("TQue::AllocTensor");
        let q = que_pipes::<Src, Dst>();
        let tag = crate::observe::events::on_alloc(core.san, core.san_base, core.buf_len, idx, Src::POS, q);
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
    pub fn enque<T: TensorType>(&mut self, t: LocalTensor<T>) {
        self.enque_at::<T, Src, Dst>(t)
    }

    /// `enque` with the positions whose hardware event the queue sets (the sanitizer's view).
    #[track_caller]
    fn enque_at<T: TensorType, S: Position, D: Position>(&mut self, t: LocalTensor<T>) {
        let api = "TQue::EnQue";
        let core = self.core_mut(api);
        core.check_live(api);
        let idx = core.index_of(api, &t);
        core.enque(api, idx, t.get_phy_addr());
        let q = que_pipes::<S, D>();
        crate::observe::events::on_enque(core.san, core.san_base, core.buf_len, idx, q);
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
    pub fn deque<T: TensorType>(&mut self) -> LocalTensor<T> {
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
        self.deque_at::<T, Src, Dst>()
    }

    /// Allocates a FREE buffer into `t` (AscendC `AllocTensor(LocalTensor&)`, depth 0 only):
    /// as [`alloc_tensor`](Self::alloc_tensor), the kernel's handle now pointing at the buffer.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TQue::<VecIn, 0>::new();
    /// pipe.init_buffer(&mut q, 1, 256);
    /// let mut t = LocalTensor::<f32>::new(TPosition::VECIN, 0, 0); // any handle
    /// q.alloc_tensor_in_place(&mut t);
    /// duplicate(&t, 2.0, 64);
    /// q.enque(t.clone()); // sets the queue's event
    /// q.deque_in_place(&t); // waits for it
    /// assert_eq!(t.get_value(63), 2.0);
    /// q.free_tensor(t);
    /// ```
    ///
    /// # Panics
    /// As [`alloc_tensor`](Self::alloc_tensor). Does not compile unless `DEPTH` is 0.
    #[track_caller]
    pub fn alloc_tensor_in_place<T: TensorType>(&mut self, t: &mut LocalTensor<T>) {
        #[allow(clippy::let_unit_value)]
        let () = Self::IN_PLACE;
        *t = self.alloc_any();
    }

    /// Waits for the enque event of `t`'s buffer (AscendC `DeQue(LocalTensor&)`, depth 0 only):
    /// the handle then reads what the enqueuing pipe wrote. `t` must have been enqueued.
    ///
    /// # Panics
    /// Panics if `t` is not a buffer of this queue or its buffer was not enqueued (ENQUE), or
    /// the queue has no buffers. Does not compile unless `DEPTH` is 0.
    #[track_caller]
    pub fn deque_in_place<T: TensorType>(&mut self, t: &LocalTensor<T>) {
        #[allow(clippy::let_unit_value)]
        let () = Self::IN_PLACE;
        let api = "TQue::DeQue";
        let core = self.core_mut(api);
        core.check_live(api);
        let idx = core.index_of(api, t);
        core.deque_in_place(api, idx, t.get_phy_addr());
        let q = que_pipes::<Src, Dst>();
        crate::observe::events::on_deque(core.san, core.san_base, core.buf_len, idx, q);
    }

    /// `deque` with the positions whose hardware event the queue waits for.
    #[track_caller]
    fn deque_at<T: TensorType, S: Position, D: Position>(&mut self) -> LocalTensor<T> {
        let core = self.core_mut("TQue::DeQue");
        let idx = core.deque("TQue::DeQue");
        let q = que_pipes::<S, D>();
        let tag = crate::observe::events::on_deque(core.san, core.san_base, core.buf_len, idx, q);
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
    pub fn free_tensor<T: TensorType>(&mut self, t: LocalTensor<T>) {
        let api = "TQue::FreeTensor";
        let core = self.core_mut(api);
        core.check_live(api);
        let idx = core.index_of(api, &t);
        core.free(api, idx, t.get_phy_addr());
        if let Some((pool, _)) = &core.pool {
            pool.busy.set(pool.busy.get() - 1);
        }
        let q = que_pipes::<Src, Dst>();
        crate::observe::events::on_free(api, core.san, core.san_base, core.buf_len, idx, t.tag, q);
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
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
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
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
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
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
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
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
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
    pub fn enque_with<SrcUser: QueUserPosition, DstUser: QueUserPosition, T: TensorType>(
        &mut self,
        t: LocalTensor<T>,
    ) {
        #[allow(clippy::let_unit_value)]
        let () = UserPositions::<SrcUser, DstUser>::OK;
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
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
    pub fn deque_with<SrcUser: QueUserPosition, DstUser: QueUserPosition, T: TensorType>(
        &mut self,
    ) -> LocalTensor<T> {
        #[allow(clippy::let_unit_value)]
        let () = UserPositions::<SrcUser, DstUser>::OK;
        #[allow(clippy::let_unit_value)]
        let () = Self::NOT_IN_PLACE;
        self.deque_at::<T, SrcUser, DstUser>()
    }
}

// ---------------------------------------------------------------------------------------
// TBufPool
// ---------------------------------------------------------------------------------------

/// Most buffers one [`TBufPool`] can hand out (AscendC `QBUFPOOL_MAX_LEN`): the limit of its
/// `BUF_ID_SIZE`.
pub const QBUFPOOL_MAX_LEN: usize = 16;

/// The default `BUF_ID_SIZE` of a [`TBufPool`] (AscendC `defaultBufIDSize`).
pub const DEFAULT_BUF_ID_SIZE: usize = 4;

/// The pools of one pipe (since its last reset), for the in-use checks.
#[derive(Default)]
pub(crate) struct PoolRegistry(RefCell<Vec<Weak<PoolNode>>>);

/// The state of the memory one [`TBufPool`] was given, shared by the pool, the pools nested
/// in it (as their parent) and the queues and `TBuf`s it gave buffers to (which stay usable
/// after its `Reset`).
pub(crate) struct PoolNode {
    ub: Rc<Ub>,
    /// The pipe's epoch counter and its value when the pool got its memory.
    epoch: Rc<Cell<u64>>,
    epoch_at_init: u64,
    registry: Rc<PoolRegistry>,
    /// The pool it was carved from (`TBufPool::InitBufPool`), if any.
    parent: Option<Rc<PoolNode>>,
    pos: TPosition,
    /// The pool's `BUF_ID_SIZE`.
    id_size: usize,
    /// The UB bytes `[start, end)` the pool covers (kept after `Reset`, for the in-use checks).
    start: usize,
    end: usize,
    /// AscendC's `maxAddr_` (next free byte), `maxLen_` and `curBufSize_`; `Reset` zeroes the
    /// last two, as AscendC's `ResetPool` does.
    cur: Cell<usize>,
    max_len: Cell<usize>,
    buffers: Cell<usize>,
    /// AscendC's `!isReset_`: a buffer of the pool was allocated (or a `TBuf` of it taken)
    /// since it got its memory or was last reset.
    in_use: Cell<bool>,
    /// Buffers of the pool's queues not FREE.
    pub(crate) busy: Cell<usize>,
    /// `Reset`s so far.
    pub(crate) resets: Cell<u64>,
    /// The pool's queues: the sanitizer's handle, base, buffer length and count of each.
    queues: RefCell<Vec<(crate::observe::sanitizer::QueSan, usize, usize, usize)>>,
}

impl PoolNode {
    fn describe(&self) -> String {
        format!("TBufPool<{}> over UB [{:#x}, {:#x})", self.pos, self.start, self.end)
    }

    fn live(&self) -> bool {
        self.epoch.get() == self.epoch_at_init
    }

    /// Whether `self` is `other` or one of the pools `other` was carved from.
    fn contains(&self, other: &PoolNode) -> bool {
        let mut n = Some(other);
        while let Some(x) = n {
            if std::ptr::eq(x, self) {
                return true;
            }
            n = x.parent.as_deref();
        }
        false
    }

    /// A buffer of the pool, UB bytes `[addr, addr + len)`, is about to be used (AscendC's
    /// `AllocTensor`, `TBuf::Get`): no other pool sharing those bytes (other than the pools it
    /// was carved from and those carved from it) may be in use, as AscendC's CPU model checks
    /// (`AscendCTBufPoolResetCheck`). The pool is in use from now on.
    #[track_caller]
    pub(crate) fn use_bytes(&self, api: &'static str, addr: usize, len: usize) {
        for other in self.registry.0.borrow().iter().filter_map(Weak::upgrade) {
            let o = &*other;
            if !o.in_use.get() || !o.live() || o.end <= addr || addr + len <= o.start {
                continue;
            }
            if self.contains(o) || o.contains(self) {
                continue;
            }
            fail(
                api,
                format!(
                    "the buffer at UB [{addr:#x}, {:#x}) of {} shares its bytes with {}, which is in use (a buffer of \
                     it was used since it got its memory or was last reset): call TBufPool::Reset on that pool \
                     before switching to this one",
                    addr + len,
                    self.describe(),
                    o.describe()
                ),
            );
        }
        self.in_use.set(true);
    }
}

/// Fails unless `node` may hand out `need` more bytes and `num` more buffers.
#[track_caller]
fn check_pool_room(api: &'static str, node: &PoolNode, num: usize, len: usize) -> (usize, usize) {
    ensure(node.live(), api, || {
        "the pool's memory was released by TPipe::reset (or the pipe was dropped); give it memory again with \
         InitBufPool"
            .to_string()
    });
    ensure(node.max_len.get() > 0, api, || {
        format!(
            "{} was reset: TBufPool::Reset leaves it no memory to hand out (its buffers stay usable); give it memory \
             again with InitBufPool",
            node.describe()
        )
    });
    ensure(len > 0, api, || "len = 0: a buffer needs at least one byte".to_string());
    let ids = node.id_size;
    ensure(num >= 1 && node.buffers.get() + num <= ids, api, || {
        format!(
            "num = {num} buffer(s) would make {} in this TBufPool; its bufIDSize = {ids} is the limit (and num must be \
             at least 1)",
            node.buffers.get() + num
        )
    });
    let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
    let total = rounded.and_then(|r| r.checked_mul(num));
    let (cur, limit) = (node.cur.get(), node.start + node.max_len.get());
    ensure(total.and_then(|t| t.checked_add(cur)).is_some_and(|e| e <= limit), api, || {
        format!(
            "{num} buffer(s) of {len} bytes (rounded to a multiple of 32) need {} bytes, but only {} of the \
             TBufPool's {} bytes are free (Buffer Init length exceeds limit of BufPool)",
            total.map_or_else(|| "more than usize::MAX".to_string(), |t| t.to_string()),
            limit - cur,
            node.max_len.get()
        )
    });
    (rounded.unwrap_or(0), total.unwrap_or(0))
}

/// A pool of Unified Buffer memory carved from the [`TPipe`] (AscendC `TBufPool<pos,
/// bufIDSize>`), to hand out to queues, `TBuf`s and nested pools by hand, so that stages
/// that never run at the same time can reuse the same bytes.
///
/// [`TPipe::init_buf_pool`] gives it a fresh part of the Unified Buffer;
/// [`TPipe::init_buf_pool_shared`] gives it the same bytes as another pool;
/// [`init_buf_pool`](Self::init_buf_pool) / [`init_buf_pool_shared`](Self::init_buf_pool_shared)
/// carve nested pools from it. [`init_buffer`](Self::init_buffer) and
/// [`init_tbuf`](Self::init_tbuf) give queues and `TBuf`s buffers from it, bump-allocated as
/// the pipe does; they then behave exactly as the pipe's own (the same state machine, events
/// and sanitizer records). At most `BUF_ID_SIZE` buffers (4 by default, at most 16) come from
/// one pool.
///
/// Switching between pools that share bytes needs [`reset`](Self::reset) of the pool used
/// before (the docs' constraint 2): using a buffer of a pool (`AllocTensor`, `TBuf::Get`) while
/// another pool sharing its bytes is in use fails, naming both (the check AscendC's CPU model
/// makes). Only Unified Buffer positions (`VECIN`, `VECOUT`, `VECCALC`) are emulated; Ascend310B
/// has no `TBufPool`. Dropping a pool does what AscendC's destructor does: it waits for its
/// buffers' free events, as [`reset`](Self::reset), without the checks or the end of its use.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut pool1, mut pool2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
/// pipe.init_buf_pool(&mut pool1, 3 * 1024);
/// pipe.init_buf_pool_shared(&mut pool2, 3 * 1024, &pool1); // the same bytes
/// let (mut q1, mut q2) = (TQue::<VecIn, 1>::new(), TQue::<VecIn, 1>::new());
/// pool1.init_buffer(&mut q1, 1, 1024);
/// let t = q1.alloc_tensor::<f32>();
/// q1.free_tensor(t);
/// pool1.reset(); // stage 1 done
/// pool2.init_buffer(&mut q2, 1, 1024);
/// assert_eq!(q2.alloc_tensor::<f32>().get_phy_addr(), 0); // stage 2 reuses the bytes
/// ```
///
/// `BUF_ID_SIZE` must be in `1..=16`:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut pool = TBufPool::<VecCalc, 17>::new();
/// pipe.init_buf_pool(&mut pool, 1024);
/// ```
pub struct TBufPool<P: Position, const BUF_ID_SIZE: usize = DEFAULT_BUF_ID_SIZE> {
    node: Option<Rc<PoolNode>>,
    _p: PhantomData<P>,
}

impl<P: Position, const BUF_ID_SIZE: usize> Default for TBufPool<P, BUF_ID_SIZE> {
    fn default() -> Self {
        TBufPool { node: None, _p: PhantomData }
    }
}

impl<P: Position, const BUF_ID_SIZE: usize> Drop for TBufPool<P, BUF_ID_SIZE> {
    /// As AscendC's destructor: waits for the free event of every FREE buffer of the pool's
    /// queues (what the sanitizer sees) and leaves the pool nothing to hand out; its queues and
    /// `TBuf`s keep their buffers, and its in-use state is kept.
    fn drop(&mut self) {
        let Some(node) = &self.node else { return };
        if !node.live() {
            return;
        }
        if let Ok(queues) = node.queues.try_borrow() {
            crate::observe::events::on_pool_reset(&queues);
        }
        node.max_len.set(0);
        node.buffers.set(0);
    }
}

/// The checks every pool that gets memory goes through: the chip, the position, the length,
/// and that it does not hold memory already.
#[track_caller]
fn check_new_pool<P: Position, const N: usize>(api: &'static str, pool: &TBufPool<P, N>, len: usize) {
    let soc = crate::kernel::ctx::get_soc();
    ensure(soc != crate::soc::Soc::Ascend310B, api, || {
        format!("TBufPool is not supported on {soc} ({})", soc.product_line())
    });
    ensure(P::POS.is_ub(), api, || {
        format!(
            "the pool's position is {}: only VECIN, VECOUT and VECCALC pools (Unified Buffer) are emulated",
            P::POS
        )
    });
    ensure(len > 0, api, || "len = 0: a pool needs at least one byte".to_string());
    if let Some(n) = &pool.node {
        ensure(!n.live() || n.max_len.get() == 0, api, || {
            format!(
                "the pool already has its memory ({}); a pool gets its memory once (TBufPool::Reset it first)",
                n.describe()
            )
        });
    }
}

impl<P: Position, const BUF_ID_SIZE: usize> TBufPool<P, BUF_ID_SIZE> {
    const SIZE_OK: () = assert!(
        BUF_ID_SIZE >= 1 && BUF_ID_SIZE <= QBUFPOOL_MAX_LEN,
        "TBufPool: bufIDSize must be in 1..=16 (QBUFPOOL_MAX_LEN)"
    );

    /// A pool without memory (AscendC's constructor); give it some with
    /// [`TPipe::init_buf_pool`] or a parent pool's [`init_buf_pool`](Self::init_buf_pool).
    pub fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::SIZE_OK;
        Self::default()
    }

    #[track_caller]
    fn node(&self, api: &'static str) -> &Rc<PoolNode> {
        #[allow(clippy::let_unit_value)]
        let () = Self::SIZE_OK;
        match &self.node {
            Some(n) => n,
            None => fail(
                api,
                "the TBufPool has no memory: call TPipe::InitBufPool (or a pool's InitBufPool) first",
            ),
        }
    }

    /// Gives the pool a new node over `[start, start + max_len)` of the pipe's memory.
    #[allow(clippy::too_many_arguments)]
    fn attach(
        &mut self,
        ub: &Rc<Ub>,
        epoch: &Rc<Cell<u64>>,
        registry: &Rc<PoolRegistry>,
        parent: Option<Rc<PoolNode>>,
        start: usize,
        max_len: usize,
    ) {
        let node = Rc::new(PoolNode {
            ub: Rc::clone(ub),
            epoch: Rc::clone(epoch),
            epoch_at_init: epoch.get(),
            registry: Rc::clone(registry),
            parent,
            pos: P::POS,
            id_size: BUF_ID_SIZE,
            start,
            end: start + max_len,
            cur: Cell::new(start),
            max_len: Cell::new(max_len),
            buffers: Cell::new(0),
            in_use: Cell::new(false),
            busy: Cell::new(0),
            resets: Cell::new(0),
            queues: RefCell::new(Vec::new()),
        });
        let mut reg = registry.0.borrow_mut();
        reg.retain(|w| w.strong_count() > 0);
        reg.push(Rc::downgrade(&node));
        self.node = Some(node);
    }

    /// Gives the queue `que` `num` buffers of `len` bytes each (rounded up to a multiple of
    /// 32) from the pool (AscendC `TBufPool::InitBuffer(que, num, len)`), carved one after the
    /// other from the pool's next free byte. The queue then behaves exactly as one given its
    /// buffers by [`TPipe::init_buffer`].
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut pool = TBufPool::<VecCalc>::new();
    /// pipe.init_buf_pool(&mut pool, 4096);
    /// let (mut a, mut b) = (TQue::<VecIn, 1>::new(), TQue::<VecOut, 1>::new());
    /// pool.init_buffer(&mut a, 2, 1000); // two buffers of 1024 bytes
    /// pool.init_buffer(&mut b, 1, 2048);
    /// assert_eq!(b.alloc_tensor::<u8>().get_phy_addr(), 2048);
    /// ```
    ///
    /// # Panics
    /// Panics if the pool has no memory (or it was released by `TPipe::reset`, or the pool was
    /// reset), `num` is 0 or would make more than `BUF_ID_SIZE` buffers in the pool, `len` is
    /// 0, the buffers do not fit in the pool's free bytes, the queue's position is not in the
    /// Unified Buffer, or the queue already has buffers (unless they came from a pool reset
    /// since and none is in use).
    #[track_caller]
    pub fn init_buffer<Q: InitBuffer>(&mut self, que: &mut Q, num: usize, len: usize) {
        let api = "TBufPool::InitBuffer";
        let node = Rc::clone(self.node(api));
        let src = que.src_position();
        ensure(src.is_ub(), api, || {
            format!(
                "the queue's position is {src}: only VECIN, VECOUT and VECCALC queues (Unified Buffer) are \
                 emulated"
            )
        });
        let (rounded, total) = check_pool_room(api, &node, num, len);
        check_requeue(api, que, &node.epoch);
        let base = node.cur.get();
        node.cur.set(base + total);
        node.buffers.set(node.buffers.get() + num);
        attach_queue(que, &node.ub, &node.epoch, base, rounded, num, Some(Rc::clone(&node)));
    }

    /// Gives the plain buffer `buf` `len` bytes (rounded up to a multiple of 32) from the pool
    /// (AscendC `TBufPool::InitBuffer(TBuf&, len)`); it counts as one of the pool's buffers.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut pool = TBufPool::<VecCalc>::new();
    /// pipe.init_buf_pool(&mut pool, 1024);
    /// let mut buf = TBuf::<VecCalc>::new();
    /// pool.init_tbuf(&mut buf, 100);
    /// assert_eq!(buf.get::<f32>().get_size(), 128 / 4);
    /// ```
    ///
    /// # Panics
    /// As [`init_buffer`](Self::init_buffer) with `num = 1`; also if `B` is not a Unified
    /// Buffer position.
    #[track_caller]
    pub fn init_tbuf<B: Position>(&mut self, buf: &mut TBuf<B>, len: usize) {
        let api = "TBufPool::InitBuffer";
        let node = Rc::clone(self.node(api));
        ensure(B::POS.is_ub(), api, || {
            format!(
                "the TBuf's position is {}: a pool's buffers are in its physical memory, the Unified Buffer \
                 (VECIN, VECOUT, VECCALC)",
                B::POS
            )
        });
        let (rounded, _) = check_pool_room(api, &node, 1, len);
        let off = node.cur.get();
        node.cur.set(off + rounded);
        node.buffers.set(node.buffers.get() + 1);
        buf.mem = Some((Rc::clone(&node.ub), off, rounded));
        buf.epoch = Some((Rc::clone(&node.epoch), node.epoch_at_init));
        buf.pool = Some(node);
        buf.san = (0, 0);
    }

    /// Carves a nested pool of `len` bytes (rounded up to a multiple of 32) from this pool's
    /// next free byte (AscendC `TBufPool::InitBufPool(bufPool, len)`, the non-shared form).
    /// The nested pool's `BUF_ID_SIZE` may not exceed the buffers this pool has left.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let (mut outer, mut inner) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc, 2>::new());
    /// pipe.init_buf_pool(&mut outer, 4096);
    /// outer.init_buf_pool(&mut inner, 2048);
    /// let mut q = TQue::<VecIn, 1>::new();
    /// outer.init_buffer(&mut q, 1, 2048);
    /// assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 2048);
    /// ```
    ///
    /// # Panics
    /// Panics if this pool has no memory (or was reset), `len` is 0 or exceeds this pool's
    /// free bytes, `N` exceeds this pool's remaining buffers, `Q` is not a Unified Buffer
    /// position, or `pool` already has memory (and was not reset since).
    #[track_caller]
    pub fn init_buf_pool<Q: Position, const N: usize>(&mut self, pool: &mut TBufPool<Q, N>, len: usize) {
        let api = "TBufPool::InitBufPool";
        let node = Rc::clone(self.node(api));
        check_new_pool(api, pool, len);
        let left = BUF_ID_SIZE - node.buffers.get().min(BUF_ID_SIZE);
        ensure(N <= left, api, || {
            format!(
                "the new pool's bufIDSize = {N} exceeds the {left} buffer(s) this pool (bufIDSize = {BUF_ID_SIZE}) has \
                 left"
            )
        });
        let (rounded, _) = check_pool_room_bytes(api, &node, len);
        let start = node.cur.get();
        node.cur.set(start + rounded);
        pool.attach(&node.ub, &node.epoch, &node.registry, Some(Rc::clone(&node)), start, rounded);
    }

    /// Gives a nested pool the same bytes as `share` (AscendC `TBufPool::InitBufPool(bufPool,
    /// len, shareBuf)`, the shared form): its start and its length are `share`'s, and `len`
    /// (rounded up to a multiple of 32) may not exceed `share`'s length. Its `BUF_ID_SIZE` may
    /// not exceed this pool's.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut p0 = TBufPool::<VecCalc>::new();
    /// let (mut p1, mut p2) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    /// pipe.init_buf_pool(&mut p0, 4096);
    /// p0.init_buf_pool(&mut p1, 2048);
    /// p0.init_buf_pool_shared(&mut p2, 2048, &p1);
    /// let mut q = TQue::<VecIn, 1>::new();
    /// p2.init_buffer(&mut q, 1, 2048);
    /// assert_eq!(q.alloc_tensor::<u8>().get_phy_addr(), 0);
    /// ```
    ///
    /// # Panics
    /// Panics if this pool or `share` has no memory, `share` was reset, `len` is 0 or exceeds
    /// `share`'s length, `N` exceeds `BUF_ID_SIZE`, `Q` is not a Unified Buffer position, or
    /// `pool` already has memory (and was not reset since).
    #[track_caller]
    pub fn init_buf_pool_shared<Q: Position, const N: usize, R: Position, const M: usize>(
        &mut self,
        pool: &mut TBufPool<Q, N>,
        len: usize,
        share: &TBufPool<R, M>,
    ) {
        let api = "TBufPool::InitBufPool";
        let node = Rc::clone(self.node(api));
        ensure(node.live(), api, || {
            "the pool's memory was released by TPipe::reset (or the pipe was dropped)".to_string()
        });
        check_new_pool(api, pool, len);
        ensure(N <= BUF_ID_SIZE, api, || {
            format!("the new pool's bufIDSize = {N} exceeds this pool's bufIDSize = {BUF_ID_SIZE}")
        });
        let (start, max_len) = shared_range(api, share, len);
        pool.attach(&node.ub, &node.epoch, &node.registry, Some(Rc::clone(&node)), start, max_len);
    }

    /// Ends the pool's stage (AscendC `TBufPool::Reset`): waits for the free event of every
    /// buffer of its queues, as AscendC does, so that another pool's buffers over the same
    /// bytes are ordered after their last use, and marks the pool not in use. Its queues and
    /// `TBuf`s keep their buffers (the kernel may switch back to them later, after resetting
    /// the other pool), but the pool hands out nothing more: AscendC's `Reset` zeroes its
    /// start and length (give it memory again with `InitBufPool`). A pool without memory is
    /// left as it is.
    ///
    /// Every buffer of the pool's queues must be FREE: AllocTensor/FreeTensor and EnQue/DeQue
    /// must pair up before switching pools (the docs' constraint 4); the buffers of a reset pool
    /// may be overwritten by the next one.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut pool = TBufPool::<VecCalc>::new();
    /// pipe.init_buf_pool(&mut pool, 1024);
    /// let mut q = TQue::<VecIn, 1>::new();
    /// pool.init_buffer(&mut q, 1, 1024);
    /// let t = q.alloc_tensor::<f32>();
    /// q.free_tensor(t);
    /// pool.reset();
    /// let t = q.alloc_tensor::<f32>(); // the queue keeps its buffer
    /// q.free_tensor(t);
    /// ```
    ///
    /// # Panics
    /// Panics if a buffer of one of the pool's queues is not FREE (allocated or queued).
    #[track_caller]
    pub fn reset(&mut self) {
        let api = "TBufPool::Reset";
        let Some(node) = &self.node else { return };
        if !node.live() {
            return;
        }
        let busy = node.busy.get();
        ensure(busy == 0, api, || {
            format!(
                "{busy} buffer(s) of the queues of {} are still in use (allocated or queued): FreeTensor them before \
                 the reset (AllocTensor/FreeTensor and EnQue/DeQue must pair up before switching pools)",
                node.describe()
            )
        });
        crate::observe::events::on_pool_reset(&node.queues.borrow());
        node.max_len.set(0);
        node.buffers.set(0);
        node.in_use.set(false);
        node.resets.set(node.resets.get() + 1);
    }
}

/// The bytes `check_pool_room` checks, for a nested pool: `(rounded, rounded)`.
#[track_caller]
fn check_pool_room_bytes(api: &'static str, node: &PoolNode, len: usize) -> (usize, usize) {
    ensure(node.live(), api, || {
        "the pool's memory was released by TPipe::reset (or the pipe was dropped); give it memory again with \
         InitBufPool"
            .to_string()
    });
    ensure(node.max_len.get() > 0, api, || {
        format!("{} was reset: TBufPool::Reset leaves it no memory to hand out", node.describe())
    });
    let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
    let (cur, limit) = (node.cur.get(), node.start + node.max_len.get());
    ensure(rounded.and_then(|r| r.checked_add(cur)).is_some_and(|e| e <= limit), api, || {
        format!(
            "len = {len} bytes (rounded to a multiple of 32) exceeds the {} free bytes of the TBufPool's {} (Buffer \
             Init length exceeds limit of BufPool)",
            limit - cur,
            node.max_len.get()
        )
    });
    let r = rounded.unwrap_or(0);
    (r, r)
}

/// The start and length a pool sharing `share`'s bytes gets, after checking `len` against
/// `share`'s length.
#[track_caller]
fn shared_range<R: Position, const M: usize>(
    api: &'static str,
    share: &TBufPool<R, M>,
    len: usize,
) -> (usize, usize) {
    let Some(s) = &share.node else {
        fail(api, "shareBuf has no memory: give it memory with InitBufPool before sharing it")
    };
    ensure(s.live(), api, || {
        "shareBuf's memory was released by TPipe::reset (or the pipe was dropped)".to_string()
    });
    let max = s.max_len.get();
    let rounded = len.div_ceil(BLOCK_BYTES).checked_mul(BLOCK_BYTES);
    ensure(rounded.is_some_and(|r| r <= max), api, || {
        if max == 0 {
            format!("shareBuf ({}) was reset: its length is 0", s.describe())
        } else {
            format!(
                "len = {len} bytes (rounded to a multiple of 32) exceeds the length of shareBuf ({}), {max} bytes",
                s.describe()
            )
        }
    });
    (s.start, max)
}

impl TPipe {
    /// Carves a pool of `len` bytes (rounded up to a multiple of 32) from the Unified Buffer
    /// (AscendC `TPipe::InitBufPool(bufPool, len)`), as [`init_buffer`](Self::init_buffer)
    /// carves a queue's buffers (a pool does not count against the pipe's 64 buffers).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut pool = TBufPool::<VecCalc>::new();
    /// pipe.init_buf_pool(&mut pool, 1000);
    /// assert_eq!(pipe.used_bytes(), 1024);
    /// ```
    ///
    /// # Panics
    /// Panics on Ascend310B (no `TBufPool`), if `P` is not a Unified Buffer position, `len` is
    /// 0 or exceeds the Unified Buffer's free bytes, or `pool` already has memory (and was
    /// not reset since).
    #[track_caller]
    pub fn init_buf_pool<P: Position, const N: usize>(&mut self, pool: &mut TBufPool<P, N>, len: usize) {
        let api = "TPipe::InitBufPool";
        #[allow(clippy::let_unit_value)]
        let () = TBufPool::<P, N>::SIZE_OK;
        check_new_pool(api, pool, len);
        let (start, rounded) = self.carve_bytes(api, 1, len);
        pool.attach(&self.ub, &self.epoch, &self.pools, None, start, rounded);
    }

    /// Gives `pool` the same bytes as `share` (AscendC `TPipe::InitBufPool(bufPool, len,
    /// shareBuf)`): its start and length are `share`'s, and `len` (rounded up to a multiple of
    /// 32) may not exceed `share`'s length. Nothing is carved from the pipe.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let (mut a, mut b) = (TBufPool::<VecCalc>::new(), TBufPool::<VecCalc>::new());
    /// pipe.init_buf_pool(&mut a, 2048);
    /// pipe.init_buf_pool_shared(&mut b, 1024, &a);
    /// assert_eq!(pipe.used_bytes(), 2048);
    /// ```
    ///
    /// # Panics
    /// As [`init_buf_pool`](Self::init_buf_pool); also if `share` has no memory from this
    /// pipe, was reset, or is shorter than `len`.
    #[track_caller]
    pub fn init_buf_pool_shared<P: Position, const N: usize, R: Position, const M: usize>(
        &mut self,
        pool: &mut TBufPool<P, N>,
        len: usize,
        share: &TBufPool<R, M>,
    ) {
        let api = "TPipe::InitBufPool";
        #[allow(clippy::let_unit_value)]
        let () = TBufPool::<P, N>::SIZE_OK;
        check_new_pool(api, pool, len);
        let (start, max_len) = shared_range(api, share, len);
        pool.attach(&self.ub, &self.epoch, &self.pools, None, start, max_len);
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
