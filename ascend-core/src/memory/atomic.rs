//! Global-memory atomics (AscendC `SetAtomicAdd<T>`, `SetAtomicMax<T>`, `SetAtomicMin<T>`,
//! `SetAtomicNone` / `DisableDmaAtomic`).
//!
//! While a core's atomic mode is set, every copy from the Unified Buffer to global memory
//! ([`data_copy`](crate::copy::data_copy), [`data_copy_params`](crate::copy::data_copy_params),
//! [`data_copy_pad_to_gm`](crate::copy::data_copy_pad_to_gm), and
//! [`init_global_memory`](crate::gm_api::init_global_memory)) combines each element with the
//! one already in GM (`gm = gm + x`, `max(gm, x)` or `min(gm, x)`) instead of overwriting
//! it. Copies into the UB and scalar `GlobalTensor::set_value` are not affected, as on the chip.
//!
//! # When a contribution lands
//!
//! - **Integers** (`i8`, `i16`, `i32`): at once, each element by one atomic read-modify-write
//!   (`fetch_add` / `fetch_max` / `fetch_min`). Integer add wraps and max/min are exact, so the
//!   result does not depend on the order in which cores arrive.
//! - **Floats** (`f16`, `bf16`, `f32`) under the default [`AtomicOrder::Deterministic`]: a
//!   launch of more than one core *logs* each float contribution and applies the log when the
//!   epoch closes — when every core has arrived at `sync_all` (before any is released), and
//!   when the launch ends — in core order (core 0's contributions first, each core's in
//!   program order). The result is therefore the same on every run and in every execution
//!   mode: `((gm + c0) + c1) + …`, each addition rounded once to the element type. Until the
//!   epoch closes, a core that reads the range back sees GM *without* the pending float
//!   contributions (its own included). A cross-core release (`IBSet`, `NotifyNextBlock`, see
//!   [`crate::block_sync`]) applies the releasing core's own pending contributions first, so
//!   the core it releases sees them; run in block order (`WaitPreBlock`/`NotifyNextBlock`),
//!   that is core order again.
//! - **Floats** under [`AtomicOrder::Arrival`] (`Launch::atomic_order`) or in a launch of one
//!   core: at once, by a compare-and-swap loop per element, in whatever order the host
//!   threads arrive — as on the chip, where the order is not specified, so a non-associative
//!   float sum may differ from run to run.
//!
//! # Soundness
//!
//! Every read-modify-write is a compare-exchange loop on the 8-byte `AtomicU64` word holding
//! the element (alignment is checked per call, so an element never crosses a word), the one
//! access size every global-memory access uses (`gm_io`: racing atomics of different sizes
//! would be undefined behaviour). Two cores adding into the same element therefore never race
//! in Rust's memory model: their RMWs are ordered by the word's modification order and none is
//! lost. The log is applied either by the last
//! core to arrive at the barrier, while the barrier's mutex holds every other core (which
//! acquires that mutex before it continues, so it sees the result), or after the launch has
//! joined every core. A plain (non-atomic) access by another core to the same bytes at the
//! same time is a race in the kernel, as it is on the hardware, where its result is
//! unspecified.

use std::sync::Arc;

use crate::element::{DType, TensorType};
use crate::kernel::ctx::with_core;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::GmRegion;
use crate::soc::Soc;

use crate::memory::atomic_log::{apply_rows, Entry};
pub use crate::memory::atomic_log::{AtomicElement, AtomicLog, AtomicMode, AtomicOp, AtomicOrder};

/// The element types `op` accepts on `soc`, as the vendor documents them (`SetAtomicAdd`:
/// Atlas training `float`; Atlas inference AI Core `int16_t, half, float`; Atlas 200I/500 A2
/// `int16_t, half, int32_t, float`; Atlas A2 all six. `SetAtomicMax/Min`: Atlas A2 only).
pub const fn supported_types(soc: Soc, op: AtomicOp) -> &'static [DType] {
    use DType::*;
    const ALL: &[DType] = &[I8, I16, F16, BF16, I32, F32];
    match (soc, op) {
        (Soc::Ascend910B, _) => ALL,
        (Soc::Ascend910, AtomicOp::Add) => &[F32],
        (Soc::Ascend310P, AtomicOp::Add) => &[I16, F16, F32],
        (Soc::Ascend310B, AtomicOp::Add) => &[I16, F16, I32, F32],
        _ => &[],
    }
}

#[track_caller]
fn set_mode<T: AtomicElement>(op: AtomicOp) {
    let loc = core::panic::Location::caller();
    with_core(|c| {
        let ok = supported_types(c.soc, op);
        if !ok.contains(&T::DTYPE) {
            let names: Vec<&str> = ok.iter().map(|d| d.name()).collect();
            let what = if names.is_empty() {
                format!("{} is not supported on this chip at all", op.api())
            } else {
                format!("its atomics take {}", names.join(", "))
            };
            crate::kernel::error::fail_at(
                op.api(),
                format!("T = {} is not supported on {} ({}): {what}", T::DTYPE, c.soc, c.soc.product_line()),
                loc,
            );
        }
        c.atomic.set(Some(AtomicMode { op, dtype: T::DTYPE }));
    });
    crate::observe::events::on_atomic_mode(true);
}

/// Makes every later copy of this core from the UB to GM add into GM (AscendC
/// `SetAtomicAdd<T>()`): `gm[i] = gm[i] + ub[i]`, wrapping for integers, rounded once for
/// floats. See the [module documentation](self) for when float sums land and in which order.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[10i32; 8]));
/// let mut gm = GlobalTensor::<i32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let x = buf.get::<i32>();
/// x.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
/// set_atomic_add::<i32>();
/// data_copy(&gm, &x, 8);
/// data_copy(&gm, &x, 8);
/// set_atomic_none();
/// assert_eq!(gm.get_value(7), 10 + 8 + 8);
/// ```
///
/// # Panics
/// Panics if the chip's atomic add does not take `T` (Ascend910: `f32` only; Ascend310P:
/// `i16`, `f16`, `f32`; Ascend310B: `i16`, `f16`, `i32`, `f32`; Ascend910B: all six).
#[track_caller]
pub fn set_atomic_add<T: AtomicElement>() {
    set_mode::<T>(AtomicOp::Add)
}

/// Makes every later copy of this core from the UB to GM keep the larger value (AscendC
/// `SetAtomicMax<T>()`): `gm[i] = max(gm[i], ub[i])`; for floats a NaN loses to a number.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[0.5f32; 8]));
/// let mut gm = GlobalTensor::<f32>::new();
/// gm.set_global_buffer(region.addr(), 8);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let x = buf.get::<f32>();
/// x.copy_from_slice(&[0.0, 1.0, -1.0, 2.0, 0.25, 0.5, 3.0, -3.0]);
/// set_atomic_max::<f32>();
/// data_copy(&gm, &x, 8);
/// set_atomic_none();
/// assert_eq!(region.to_bytes(), bytemuck::cast_slice::<f32, u8>(&[0.5, 1.0, 0.5, 2.0, 0.5, 0.5, 3.0, 0.5]));
/// ```
///
/// # Panics
/// Panics on any chip but Ascend910B (the only one of the four with atomic max).
#[track_caller]
pub fn set_atomic_max<T: AtomicElement>() {
    set_mode::<T>(AtomicOp::Max)
}

/// Makes every later copy of this core from the UB to GM keep the smaller value (AscendC
/// `SetAtomicMin<T>()`): `gm[i] = min(gm[i], ub[i])`; for floats a NaN loses to a number.
///
/// ```
/// use ascend_core::prelude::*;
/// let region = GmRegion::from_bytes(bytemuck::cast_slice(&[5i16; 16]));
/// let mut gm = GlobalTensor::<i16>::new();
/// gm.set_global_buffer(region.addr(), 16);
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecOut>::new();
/// pipe.init_tbuf(&mut buf, 32);
/// let x = buf.get::<i16>();
/// x.copy_from_slice(&(0..16).collect::<Vec<i16>>());
/// set_atomic_min::<i16>();
/// data_copy(&gm, &x, 16);
/// set_atomic_none();
/// assert_eq!(gm.get_value(3), 3);
/// assert_eq!(gm.get_value(9), 5);
/// ```
///
/// # Panics
/// Panics on any chip but Ascend910B (the only one of the four with atomic min).
#[track_caller]
pub fn set_atomic_min<T: AtomicElement>() {
    set_mode::<T>(AtomicOp::Min)
}

/// Changes the element type of the core's atomic mode, keeping its operation (AscendC
/// `SetAtomicType<T>()`). `set_atomic_add::<T>()` and the others set the type themselves; with
/// the mode off this has no effect (the next `set_atomic_*` sets its own type).
///
/// ```
/// use ascend_core::prelude::*;
/// set_atomic_add::<f32>();
/// set_atomic_type::<i32>();
/// assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Add, dtype: DType::I32 }));
/// ```
///
/// # Panics
/// Panics if the chip's atomics do not take `T` (the types of [`set_atomic_add`]; Ascend910
/// has no `SetAtomicType` at all).
#[track_caller]
pub fn set_atomic_type<T: AtomicElement>() {
    let api = "SetAtomicType";
    let loc = core::panic::Location::caller();
    with_core(|c| {
        crate::kernel::error::ensure_at(c.soc != Soc::Ascend910, api, loc, || {
            format!("not supported on {} ({})", c.soc, c.soc.product_line())
        });
        let ok = supported_types(c.soc, AtomicOp::Add);
        crate::kernel::error::ensure_at(ok.contains(&T::DTYPE), api, loc, || {
            let names: Vec<&str> = ok.iter().map(|d| d.name()).collect();
            format!(
                "T = {} is not supported on {} ({}): its atomics take {}",
                T::DTYPE,
                c.soc,
                c.soc.product_line(),
                names.join(", ")
            )
        });
        if let Some(mode) = c.atomic.get() {
            c.atomic.set(Some(AtomicMode { dtype: T::DTYPE, ..mode }));
        }
    })
}

/// Turns the core's atomic mode off (AscendC `SetAtomicNone()`): later copies to GM
/// overwrite again. Pending float contributions still land when the epoch closes.
///
/// ```
/// use ascend_core::prelude::*;
/// set_atomic_add::<f32>();
/// assert!(get_atomic_mode().is_some());
/// set_atomic_none();
/// assert_eq!(get_atomic_mode(), None);
/// ```
///
/// # Panics
/// Never.
pub fn set_atomic_none() {
    with_core(|c| c.atomic.set(None));
    crate::observe::events::on_atomic_mode(false);
}

/// AscendC's newer name for [`set_atomic_none`] (`DisableDmaAtomic()`).
///
/// ```
/// use ascend_core::prelude::*;
/// set_atomic_min::<i32>();
/// disable_dma_atomic();
/// assert_eq!(get_atomic_mode(), None);
/// ```
///
/// # Panics
/// Never.
pub fn disable_dma_atomic() {
    set_atomic_none()
}

/// The core's current atomic mode, or `None` (a host-side convenience).
pub fn get_atomic_mode() -> Option<AtomicMode> {
    with_core(|c| c.atomic.get())
}

/// The values of the store-atomic configuration's type field (AscendC `AtomicDtype`), as the
/// numbers [`set_store_atomic_config`] takes and [`get_store_atomic_config`] returns:
/// `set_store_atomic_config::<{ AtomicDtype::ATOMIC_F16 }, { AtomicOp::ATOMIC_SUM }>()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicDtype {}

impl AtomicDtype {
    /// `ATOMIC_NONE`: atomics off.
    pub const ATOMIC_NONE: u16 = 0;
    /// `ATOMIC_F32`: atomic add of `float`.
    pub const ATOMIC_F32: u16 = 1;
    /// `ATOMIC_F16`: atomic add of `half`.
    pub const ATOMIC_F16: u16 = 2;
    /// `ATOMIC_S16`: atomic add of `int16_t`.
    pub const ATOMIC_S16: u16 = 3;
    /// `ATOMIC_S32`: atomic add of `int32_t`.
    pub const ATOMIC_S32: u16 = 4;
    /// `ATOMIC_S8`: atomic add of `int8_t`.
    pub const ATOMIC_S8: u16 = 5;
    /// `ATOMIC_BF16`: atomic add of `bfloat16_t`.
    pub const ATOMIC_BF16: u16 = 6;

    /// The element type of a type-field value (1..=6), as `AtomicDtype` numbers them.
    const fn dtype(code: u16) -> Option<DType> {
        match code {
            1 => Some(DType::F32),
            2 => Some(DType::F16),
            3 => Some(DType::I16),
            4 => Some(DType::I32),
            5 => Some(DType::I8),
            6 => Some(DType::BF16),
            _ => None,
        }
    }

    /// The type-field value of an element type.
    fn code(dtype: DType) -> u16 {
        (1..=6).find(|&c| AtomicDtype::dtype(c) == Some(dtype)).expect("an atomic element type")
    }

    /// AscendC's name of a type-field value.
    const fn name(code: u16) -> &'static str {
        match code {
            0 => "ATOMIC_NONE",
            1 => "ATOMIC_F32",
            2 => "ATOMIC_F16",
            3 => "ATOMIC_S16",
            4 => "ATOMIC_S32",
            5 => "ATOMIC_S8",
            _ => "ATOMIC_BF16",
        }
    }
}

/// The store-atomic configuration's operation field (AscendC `AtomicOp`, whose only value is
/// `ATOMIC_SUM`), as the number [`set_store_atomic_config`] takes.
impl AtomicOp {
    /// `AtomicOp::ATOMIC_SUM`: the operation field's value for add (0).
    pub const ATOMIC_SUM: u16 = 0;
}

/// The chips with the store-atomic configuration (its pages: Atlas A2, Atlas 200I/500 A2).
#[track_caller]
fn check_store_atomic_chip(api: &'static str, soc: Soc) {
    ensure(matches!(soc, Soc::Ascend910B | Soc::Ascend310B), api, || {
        format!(
            "not supported on {soc} ({}); it exists on {} and {} (and on chips not modelled)",
            soc.product_line(),
            Soc::Ascend910B,
            Soc::Ascend310B
        )
    });
}

/// Sets the core's atomic mode from the store-atomic configuration's two fields (AscendC
/// `SetStoreAtomicConfig<AtomicDtype type, AtomicOp op>()`): `TYPE` is an [`AtomicDtype`]
/// value, `OP` is [`AtomicOp::ATOMIC_SUM`]. `ATOMIC_NONE` turns atomics off, as
/// [`set_atomic_none`]; any other type turns on atomic add of that type, as
/// [`set_atomic_add`] of it (the same state: [`get_atomic_mode`] shows it, `SetAtomicNone`
/// ends it, and `SetAtomicAdd<T>()` is `SetStoreAtomicConfig<T's type, ATOMIC_SUM>()`).
///
/// ```
/// use ascend_core::prelude::*;
/// // The calling thread's default core is an Ascend910B core.
/// set_store_atomic_config::<{ AtomicDtype::ATOMIC_F16 }, { AtomicOp::ATOMIC_SUM }>();
/// assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Add, dtype: DType::F16 }));
/// assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_F16, AtomicOp::ATOMIC_SUM));
/// set_store_atomic_config::<{ AtomicDtype::ATOMIC_NONE }, { AtomicOp::ATOMIC_SUM }>();
/// assert_eq!(get_atomic_mode(), None);
/// ```
///
/// Values outside the enumerations do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// set_store_atomic_config::<7, { AtomicOp::ATOMIC_SUM }>();
/// ```
/// ```compile_fail
/// use ascend_core::prelude::*;
/// set_store_atomic_config::<{ AtomicDtype::ATOMIC_F32 }, 1>();
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310P (not supported there), and on Ascend310B for
/// `ATOMIC_S8` and `ATOMIC_BF16` (its atomic add takes `int16_t`, `half`, `int32_t`, `float`).
#[track_caller]
pub fn set_store_atomic_config<const TYPE: u16, const OP: u16>() {
    const {
        assert!(
            TYPE <= AtomicDtype::ATOMIC_BF16,
            "SetStoreAtomicConfig: type must be an AtomicDtype value (0..=6)"
        );
        assert!(OP == AtomicOp::ATOMIC_SUM, "SetStoreAtomicConfig: op must be AtomicOp::ATOMIC_SUM (0)");
    }
    let api = "SetStoreAtomicConfig";
    let soc = crate::kernel::ctx::get_soc();
    check_store_atomic_chip(api, soc);
    let Some(dtype) = AtomicDtype::dtype(TYPE) else {
        set_atomic_none();
        return;
    };
    let ok = supported_types(soc, AtomicOp::Add);
    ensure(ok.contains(&dtype), api, || {
        let names: Vec<&str> = ok.iter().map(|d| d.name()).collect();
        format!(
            "type = AtomicDtype::{} ({dtype}) is not supported on {soc} ({}): its atomics take {}",
            AtomicDtype::name(TYPE),
            soc.product_line(),
            names.join(", ")
        )
    });
    with_core(|c| c.atomic.set(Some(AtomicMode { op: AtomicOp::Add, dtype })));
    crate::observe::events::on_atomic_mode(true);
}

/// The store-atomic configuration's two fields, `(atomicType, atomicOp)` (AscendC
/// `GetStoreAtomicConfig(atomicType, atomicOp)`, returned instead of written through
/// references): the [`AtomicDtype`] value of the core's atomic mode (`ATOMIC_NONE` when off)
/// and [`AtomicOp::ATOMIC_SUM`] — whichever of `SetStoreAtomicConfig`, `SetAtomicAdd<T>`,
/// `SetAtomicType<T>` and `SetAtomicNone` set it.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_NONE, AtomicOp::ATOMIC_SUM));
/// set_atomic_add::<i32>();
/// assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_S32, AtomicOp::ATOMIC_SUM));
/// set_atomic_none();
/// ```
///
/// # Panics
/// Panics on Ascend910 and Ascend310P (not supported there), and while the core's atomic mode
/// is max or min (`SetAtomicMax`/`SetAtomicMin`, Ascend910B): the vendor documents only the
/// operation field's add value (0), so the emulator does not make up the others.
#[track_caller]
pub fn get_store_atomic_config() -> (u16, u16) {
    let api = "GetStoreAtomicConfig";
    let (soc, mode) = with_core(|c| (c.soc, c.atomic.get()));
    check_store_atomic_chip(api, soc);
    match mode {
        None => (AtomicDtype::ATOMIC_NONE, AtomicOp::ATOMIC_SUM),
        Some(AtomicMode { op: AtomicOp::Add, dtype }) => (AtomicDtype::code(dtype), AtomicOp::ATOMIC_SUM),
        Some(AtomicMode { op, dtype }) => fail(
            api,
            format!(
                "the core's atomic mode is {}<{dtype}>: the vendor documents the operation field's value for add \
                 only (AtomicOp::ATOMIC_SUM = 0), not for max or min",
                op.api()
            ),
        ),
    }
}

/// The shape of a row copy: `rows` rows of `row` bytes, `d_pitch` / `s_pitch` bytes apart.
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    pub(crate) rows: usize,
    pub(crate) row: usize,
    pub(crate) d_pitch: usize,
    pub(crate) s_pitch: usize,
}

/// Stores rows from the UB to GM under the core's atomic mode. Returns `false` (nothing
/// done) when the mode is off; the caller then copies plainly.
///
/// # Safety
/// As [`apply_rows`] minus the alignment, which is checked here; `region` must be the
/// destination's region (kept alive if the contribution is logged).
#[track_caller]
#[inline]
pub(crate) unsafe fn store_to_gm<T: TensorType>(
    api: &'static str,
    region: impl FnOnce() -> Option<Arc<GmRegion>>,
    dst: *mut u8,
    src: *const u8,
    shape: Rows,
) -> bool {
    // The common case, no atomic mode, inline: one look-up of the core.
    let Some(mode) = with_core(|c| c.atomic.get()) else { return false };
    // SAFETY: forwarded contract.
    unsafe { store_atomic(api, mode, T::ELEM_DTYPE, T::NAME, region, dst, src, shape) }
}

/// [`store_to_gm`] under the atomic `mode`, for data of type `data` (`None`: `int4b_t`, named
/// `name`).
///
/// # Safety
/// As [`store_to_gm`].
#[track_caller]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_atomic(
    api: &'static str,
    mode: AtomicMode,
    data: Option<DType>,
    name: &'static str,
    region: impl FnOnce() -> Option<Arc<GmRegion>>,
    dst: *mut u8,
    src: *const u8,
    shape: Rows,
) -> bool {
    let Rows { rows, row, d_pitch, s_pitch } = shape;
    ensure(data == Some(mode.dtype), api, || {
        format!(
            "the core's atomic mode is {}<{}>, but this copy moves {name} elements: the atomic type must match \
             the data (call {}<{name}>() first)",
            mode.op.api(),
            mode.dtype,
            mode.op.api(),
        )
    });
    let (size, is_float) = (mode.dtype.size(), matches!(mode.dtype, DType::F16 | DType::BF16 | DType::F32));
    let misaligned = (dst as usize) % size != 0 || (rows > 1 && d_pitch % size != 0);
    ensure(!misaligned, api, || {
        format!(
            "the atomic destination (address remainder {} mod {}, row pitch {d_pitch} bytes) is not aligned \
             to size_of::<{}>() = {}",
            dst as usize % size,
            size,
            mode.dtype,
            size
        )
    });
    if rows == 0 || row == 0 {
        return true;
    }
    let (log, multi, core) = with_core(|c| (c.atomic_log.clone(), c.block_num > 1, c.block_idx));
    match log {
        Some(log) if is_float && multi && log.order == AtomicOrder::Deterministic => {
            let mut data = Vec::with_capacity(rows * row);
            for r in 0..rows {
                // SAFETY: source row `r` is in bounds (caller's contract).
                data.extend_from_slice(unsafe { std::slice::from_raw_parts(src.add(r * s_pitch), row) });
            }
            let e = Entry {
                _region: region().map(|r| r as Arc<dyn std::any::Any + Send + Sync>),
                dst: dst as usize,
                mode,
                rows,
                row,
                d_pitch,
                data,
            };
            log.lock().push((core, e));
        }
        // SAFETY: forwarded contract; alignment checked above.
        _ => unsafe { apply_rows(mode, dst, src, rows, row, d_pitch, s_pitch) },
    }
    true
}

/// Applies the current core's own pending contributions (a cross-core release).
pub(crate) fn flush_current_core() {
    if let Some((log, core)) = with_core(|c| c.atomic_log.clone().map(|l| (l, c.block_idx))) {
        log.flush_core(core);
    }
}

/// Applies the current core's pending log (a launch of one core closing its epoch).
pub(crate) fn flush_current() {
    if let Some(log) = with_core(|c| c.atomic_log.clone()) {
        log.flush();
    }
}
