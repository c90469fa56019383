//! The vocabulary of the global-memory atomics and a launch's log of float contributions
//! ([`AtomicLog`], made by the launcher and kept in each core's context); the API that sets a
//! core's mode and stores through it is [`crate::atomic`]. A leaf: it imports only the
//! element types and the race-free GM accesses, so the kernel layer names these types
//! without importing the atomics' API.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::element::{bf16, f16, DType, Element};

/// The operation of a core's global-memory atomic mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `gm = gm + x` (`SetAtomicAdd`).
    Add,
    /// `gm = max(gm, x)` (`SetAtomicMax`).
    Max,
    /// `gm = min(gm, x)` (`SetAtomicMin`).
    Min,
}

impl AtomicOp {
    pub(crate) const fn api(self) -> &'static str {
        match self {
            AtomicOp::Add => "SetAtomicAdd",
            AtomicOp::Max => "SetAtomicMax",
            AtomicOp::Min => "SetAtomicMin",
        }
    }
}

/// In which order float atomic contributions of different cores are applied (see the
/// [module documentation](crate::atomic)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AtomicOrder {
    /// Logged and applied in core order when the epoch closes (`sync_all`, end of launch):
    /// the same bits on every run.
    #[default]
    Deterministic,
    /// Applied at once, in the order the host threads arrive (may differ between runs).
    Arrival,
}

/// A core's atomic mode: the operation and the element type it was set for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicMode {
    /// The operation.
    pub op: AtomicOp,
    /// The element type (`SetAtomicAdd<T>`'s `T`).
    pub dtype: DType,
}

mod sealed {
    pub trait Sealed {}
}

/// An element type some chip's global-memory atomics accept: `i8`, `i16`, `i32`, `f16`,
/// `bf16`, `f32`. Other types do not compile; a chip that lacks one of these fails at run time.
///
/// ```compile_fail
/// ascend_core::atomic::set_atomic_add::<u32>();
/// ```
///
/// ```compile_fail
/// ascend_core::atomic::set_atomic_max::<i64>();
/// ```
pub trait AtomicElement: Element + sealed::Sealed {
    /// Combines `v` into the element at `p` atomically.
    ///
    /// # Safety
    /// `p` must be valid for reads and writes and aligned to `Self::SIZE`, and every
    /// concurrent access to that element must be atomic.
    #[doc(hidden)]
    unsafe fn rmw(p: *mut Self, v: Self, op: AtomicOp);
}

macro_rules! int_atomic {
    ($($t:ty => $a:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicElement for $t {
            #[inline]
            unsafe fn rmw(p: *mut Self, v: Self, op: AtomicOp) {
                // Through the 8-byte word holding the element, like every other GM access:
                // racing atomics of different sizes are undefined behaviour (`gm_io`).
                let f = |old: Self| match op {
                    AtomicOp::Add => old.wrapping_add(v),
                    AtomicOp::Max => old.max(v),
                    AtomicOp::Min => old.min(v),
                };
                // SAFETY: valid, aligned GM, only accessed atomically (caller's contract).
                unsafe { crate::memory::gm_io::update_elem(p, f) }
            }
        }
    )*};
}
int_atomic!(i8 => AtomicI8, i16 => AtomicI16, i32 => AtomicI32);

macro_rules! float_atomic {
    ($($t:ty => $a:ty, $to:expr, $from:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicElement for $t {
            #[inline]
            unsafe fn rmw(p: *mut Self, v: Self, op: AtomicOp) {
                let f = |old: $t| -> $t {
                    let (x, y): (f32, f32) = ($to(old), $to(v));
                    match op {
                        AtomicOp::Add => <$t as Element>::add(old, v),
                        // IEEE maxNum / minNum: a NaN operand loses to a number.
                        AtomicOp::Max => $from(x.max(y)),
                        AtomicOp::Min => $from(x.min(y)),
                    }
                };
                // SAFETY: valid, aligned GM, only accessed atomically (caller's contract);
                // through the word holding the element, as every GM access (`gm_io`).
                unsafe { crate::memory::gm_io::update_elem(p, f) }
            }
        }
    )*};
}
float_atomic!(
    f32 => AtomicU32, |x: f32| x, |x: f32| x,
    f16 => AtomicU16, f16::to_f32, f16::from_f32,
    bf16 => AtomicU16, bf16::to_f32, bf16::from_f32
);

/// One logged float contribution: the destination rows in GM and the data.
pub(crate) struct Entry {
    /// Keeps the destination (its `GmRegion`) alive until the log is applied.
    pub(crate) _region: Option<Arc<dyn Any + Send + Sync>>,
    pub(crate) dst: usize,
    pub(crate) mode: AtomicMode,
    pub(crate) rows: usize,
    pub(crate) row: usize,
    pub(crate) d_pitch: usize,
    /// The rows' bytes, packed.
    pub(crate) data: Vec<u8>,
}

/// A launch's log of float atomic contributions, applied in core order when the epoch
/// closes (see the [module documentation](crate::atomic)). The launcher creates one per launch.
pub struct AtomicLog {
    pub(crate) order: AtomicOrder,
    entries: Mutex<Vec<(u32, Entry)>>,
}

impl std::fmt::Debug for AtomicLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomicLog({:?})", self.order)
    }
}

impl AtomicLog {
    /// An empty log for a launch with the given float order.
    pub fn new(order: AtomicOrder) -> AtomicLog {
        AtomicLog { order, entries: Mutex::new(Vec::new()) }
    }

    /// The float order of the launch.
    pub fn order(&self) -> AtomicOrder {
        self.order
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u32, Entry)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies every logged contribution, core 0's first and each core's in program order,
    /// and empties the log. The caller guarantees that no core is running kernel code
    /// (every core waits at the barrier, or the launch has ended).
    pub fn flush(&self) {
        let mut entries = std::mem::take(&mut *self.lock());
        // Stable: each core's entries keep their program order.
        entries.sort_by_key(|(core, _)| *core);
        for (_, e) in entries {
            // SAFETY: the destination rows were bounds- and alignment-checked when logged,
            // and `_region` keeps them alive; `data` holds exactly `rows * row` bytes.
            unsafe { apply_rows(e.mode, e.dst as *mut u8, e.data.as_ptr(), e.rows, e.row, e.d_pitch, e.row) };
        }
    }
}

impl AtomicLog {
    /// Applies `core`'s logged contributions, in program order, and removes them from the log:
    /// a cross-core release of that core (`IBSet`, `NotifyNextBlock`), after which the core
    /// that acquires it must see them. Other cores may run meanwhile: every application is an
    /// atomic read-modify-write. Contributions of cores the release does not order are
    /// applied when their own core releases or the epoch closes, so a float sum over cores
    /// that are not ordered may then round differently between runs, as on the chip.
    pub fn flush_core(&self, core: u32) {
        let mine: Vec<Entry> = {
            let mut all = self.lock();
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut *all).into_iter().partition(|(c, _)| *c == core);
            *all = rest;
            mine.into_iter().map(|(_, e)| e).collect()
        };
        for e in mine {
            // SAFETY: as in `flush`; the applications are atomic, so other cores' concurrent
            // atomic accesses of the destination do not race with them.
            unsafe { apply_rows(e.mode, e.dst as *mut u8, e.data.as_ptr(), e.rows, e.row, e.d_pitch, e.row) };
        }
    }
}

/// Applies `rows` rows of `row` bytes from `src` to `dst` with `mode`, element by element.
///
/// # Safety
/// Every row must lie inside live allocations on both sides, `dst` rows aligned to the
/// element size, and every concurrent access to the destination must be atomic.
pub(crate) unsafe fn apply_rows(
    mode: AtomicMode,
    dst: *mut u8,
    src: *const u8,
    rows: usize,
    row: usize,
    d_pitch: usize,
    s_pitch: usize,
) {
    unsafe fn go<T: AtomicElement>(
        op: AtomicOp,
        dst: *mut u8,
        src: *const u8,
        rows: usize,
        row: usize,
        dp: usize,
        sp: usize,
    ) {
        let n = row / T::SIZE;
        for r in 0..rows {
            // SAFETY: row `r` is in bounds on both sides and the destination is aligned
            // (caller's contract); the source is read unaligned.
            unsafe {
                let d = dst.add(r * dp).cast::<T>();
                let s = src.add(r * sp).cast::<T>();
                for i in 0..n {
                    T::rmw(d.add(i), s.add(i).read_unaligned(), op);
                }
            }
        }
    }
    let op = mode.op;
    // SAFETY: forwarded contract; the dtype tag selects the matching element type.
    unsafe {
        match mode.dtype {
            DType::I8 => go::<i8>(op, dst, src, rows, row, d_pitch, s_pitch),
            DType::I16 => go::<i16>(op, dst, src, rows, row, d_pitch, s_pitch),
            DType::I32 => go::<i32>(op, dst, src, rows, row, d_pitch, s_pitch),
            DType::F16 => go::<f16>(op, dst, src, rows, row, d_pitch, s_pitch),
            DType::BF16 => go::<bf16>(op, dst, src, rows, row, d_pitch, s_pitch),
            DType::F32 => go::<f32>(op, dst, src, rows, row, d_pitch, s_pitch),
            other => unreachable!("no atomic mode is ever set for {other}"),
        }
    }
}
