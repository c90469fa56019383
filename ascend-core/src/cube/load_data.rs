//! `LoadData` (2D): fractal-by-fractal loads into the cube's input buffers (AscendC
//! `LoadData(dst, src, LoadData2DParams)`).
//!
//! One call moves `repeat_times` fractals of 512 bytes (16 rows of 32 bytes: 16 × 16 for
//! 16-bit types, 16 × 32 for 8-bit, 16 × 8 for 32-bit) into L0A (`A2`) or L0B (`B2`), from L1
//! (`A1`/`B1`, pipe MTE1) or from global memory (pipe MTE2). Repeat `i` copies the source
//! fractal `start_index + i * src_stride` to the destination fractal `i * (dst_gap + 1)`
//! (the vendor's pseudo-code `load2d.py`); with `if_transpose` (L1 source, 16-bit types only)
//! each 16 × 16 fractal is transposed on the way: destination element `(r, c)` is source
//! element `(c, r)`.
//!
//! Loading a matrix that L1 holds in NZ (column after column of fractals) into L0A's Zz
//! (row after row of fractals) is one call per fractal row: the vendor's `matmul_basic_api`
//! sample loads row block `i` of an `M × K` half matrix with
//! `LoadData(a2[i * K1 * 256], a1[i * 256], {0, K1, M1, 0, 0, false, 0})`, and row block `kb`
//! of a `K × N` matrix into L0B's Zn with `LoadData(b2[kb * N1 * 256], b1[kb * 256],
//! {0, N1, K1, 0, 0, true, 0})` (`M1 = M / 16`, …).
//!
//! The synchronisation sanitizer does not model the cube memories yet: it sees neither the L1
//! read nor the L0 write, nor the global-memory read of the GM form.

use crate::cube::{check_extent, check_operand, FRACTAL_BYTES};
use crate::element::{bf16, f16, Element};
use crate::kernel::error::{check, ensure};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::observe::sanitizer::GmRows;
use crate::position::Memory;
use crate::soc::Soc;
use crate::sync::event::pipe_t;

const API: &str = "LoadData";

/// Parameters of [`load_data`] (AscendC `LoadData2DParams`). Indices, strides and gaps count
/// 512-byte fractals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LoadData2DParams {
    /// The first source fractal (0 is the fractal at the source tensor's address).
    pub start_index: u16,
    /// Fractals to load, `0..=255`; 0 loads nothing.
    pub repeat_times: u8,
    /// From one source fractal to the next: start to start, in fractals (0 reads the same
    /// fractal again every repeat).
    pub src_stride: u16,
    /// Reserved (the vendor: "set it to 0"); ignored.
    pub sid: u8,
    /// Fractals left free between two destination fractals (0: contiguous). Ascend910's load
    /// instruction has no such operand: there it must be 0.
    pub dst_gap: u16,
    /// Transpose each 16 × 16 fractal (L1 source and 16-bit types only).
    pub if_transpose: bool,
    /// 0: the source index increases by `src_stride` per repeat. The vendor's 1 (decreasing)
    /// exists only on the GM → L1 path, which is not this API's: it must be 0.
    pub addr_mode: u8,
}

impl LoadData2DParams {
    /// The parameters in the order of the vendor's constructor: `startIndex, repeatTimes,
    /// srcStride, sid, dstGap, ifTranspose, addrMode`.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        start_index: u16,
        repeat_times: u8,
        src_stride: u16,
        sid: u8,
        dst_gap: u16,
        if_transpose: bool,
        addr_mode: u8,
    ) -> Self {
        LoadData2DParams { start_index, repeat_times, src_stride, sid, dst_gap, if_transpose, addr_mode }
    }
}

mod sealed {
    pub trait Sealed {}

    /// A resolved source: a pointer to its first byte, its length in bytes, whether it is in
    /// global memory.
    pub struct Src {
        pub(crate) ptr: *const u8,
        pub(crate) bytes: usize,
        pub(crate) gm: bool,
        /// Where the sanitizer finds it.
        pub(crate) at: At,
    }

    /// A source as the sanitizer sees it: a local tensor (its address and tag), or global
    /// memory (its region and offset).
    #[derive(Clone, Copy)]
    pub enum At {
        Local(crate::observe::sanitizer::Span),
        Gm(crate::observe::sanitizer::GmRows),
    }

    /// Resolves and checks a source operand.
    pub trait Source<T> {
        #[track_caller]
        fn resolve(&self, api: &'static str) -> Src;
    }
}

/// Element types `LoadData` (2D) takes on some chip: `uint8_t`, `int8_t`, `uint16_t`,
/// `int16_t`, `half` everywhere; `bfloat16_t`, `uint32_t`, `int32_t`, `float` on Ascend910B and
/// Ascend310B only (a run-time error naming the chip elsewhere). 64-bit types do not compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// use ascend_core::cube::load_data::{load_data, LoadData2DParams};
/// fn f(d: &LocalTensor<u64>, s: &LocalTensor<u64>) { load_data(d, s, &LoadData2DParams::default()); }
/// ```
pub trait LoadDataElement: Element + sealed::Sealed {
    /// Whether `LoadData` (2D) takes this type on `soc`.
    fn load_data_supported(soc: Soc) -> bool;
}

macro_rules! load_types {
    ($($t:ty => $all:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl LoadDataElement for $t {
            fn load_data_supported(soc: Soc) -> bool {
                $all || matches!(soc, Soc::Ascend910B | Soc::Ascend310B)
            }
        }
    )*};
}
load_types! {
    u8 => true, i8 => true, u16 => true, i16 => true, f16 => true,
    bf16 => false, u32 => false, i32 => false, f32 => false,
}

/// A tensor [`load_data`] can read: a [`LocalTensor`] in L1 (`A1`/`B1`, pipe MTE1) or a
/// [`GlobalTensor`] (pipe MTE2). Sealed.
pub trait LoadDataSource<T: LoadDataElement>: sealed::Source<T> {}

impl<T: LoadDataElement> sealed::Source<T> for LocalTensor<T> {
    #[track_caller]
    fn resolve(&self, api: &'static str) -> sealed::Src {
        check_operand(self, api, "src", &[Memory::L1], 32);
        let at = sealed::At::Local(crate::observe::sanitizer::Span::of(self, 0));
        sealed::Src { ptr: self.ptr().cast(), bytes: self.get_length(), gm: false, at }
    }
}
impl<T: LoadDataElement> LoadDataSource<T> for LocalTensor<T> {}

impl<T: LoadDataElement> sealed::Source<T> for GlobalTensor<T> {
    #[track_caller]
    fn resolve(&self, api: &'static str) -> sealed::Src {
        let ptr = self.base_ptr(api).cast::<u8>();
        let at = sealed::At::Gm(crate::observe::sanitizer::GmRows::of(self, 0, 0, 0, 0));
        sealed::Src { ptr, bytes: self.get_size() * T::SIZE, gm: true, at }
    }
}
impl<T: LoadDataElement> LoadDataSource<T> for GlobalTensor<T> {}

/// Loads `params.repeat_times` 512-byte fractals from `src` (L1 or global memory) into `dst`
/// (L0A or L0B) (AscendC `LoadData(dst, src, LoadData2DParams)`, "2D" form).
///
/// Repeat `i` copies source fractal `start_index + i * src_stride` (counted from `src`'s
/// address) to destination fractal `i * (dst_gap + 1)` (counted from `dst`'s address),
/// transposing it as a 16 × 16 matrix if `if_transpose`. Nothing else of `dst` is written.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::cube::load_data::{load_data, LoadData2DParams};
/// // Three 16 x 16 half fractals in L1: load fractals 0 and 2 (start 0, stride 2) into L0A,
/// // leaving one free fractal between them (dst_gap 1).
/// let l1 = LocalTensor::<f16>::new(TPosition::A1, 0, 3 * 256);
/// let l0a = LocalTensor::<f16>::new(TPosition::A2, 0, 3 * 256);
/// l1.copy_from_slice(&(0..768).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// load_data(&l0a, &l1, &LoadData2DParams::new(0, 2, 2, 0, 1, false, 0));
/// let out = l0a.to_vec();
/// assert_eq!(out[0].to_f32(), 0.0); // fractal 0 -> 0
/// assert_eq!(out[512 + 1].to_f32(), 513.0); // fractal 2 -> 2 (gap of one fractal)
///
/// // With the transpose, element (r, c) of a fractal is element (c, r) of the source.
/// let l0b = LocalTensor::<f16>::new(TPosition::B2, 0, 256);
/// load_data(&l0b, &l1, &LoadData2DParams::new(1, 1, 0, 0, 0, true, 0));
/// assert_eq!(l0b.to_vec()[16 * 3 + 5].to_f32(), (256 + 5 * 16 + 3) as f32);
/// ```
///
/// # Panics
/// Panics if `T` is not supported on the chip; `dst` is not in L0A/L0B or not 512-byte
/// aligned; a local `src` is not in L1 or not 32-byte aligned; a global `src` is unbound;
/// `addr_mode` is not 0; `dst_gap` is not 0 on Ascend910; `if_transpose` is set for a global
/// source or a type that is not 16-bit; or a fractal read or written lies beyond its tensor.
#[track_caller]
pub fn load_data<T: LoadDataElement, S: LoadDataSource<T>>(
    dst: &LocalTensor<T>,
    src: &S,
    params: &LoadData2DParams,
) {
    let soc = crate::kernel::ctx::get_soc();
    check!(
        T::load_data_supported(soc),
        API,
        "T = {} is not supported on {soc} ({}): LoadData takes uint8_t, int8_t, uint16_t, int16_t and half there",
        T::DTYPE,
        soc.product_line()
    );
    check_operand(dst, API, "dst", &[Memory::L0A, Memory::L0B], FRACTAL_BYTES);
    let s = src.resolve(API);
    let p = *params;
    ensure(p.addr_mode == 0, API, || {
        format!(
            "addr_mode = {}: only 0 (increasing source index) is supported; the decreasing mode (1) exists only \
             on the GM -> L1 path",
            p.addr_mode
        )
    });
    ensure(p.dst_gap == 0 || soc != Soc::Ascend910, API, || {
        format!("dst_gap = {}: Ascend910's load instruction has no destination gap (it must be 0)", p.dst_gap)
    });
    if p.if_transpose {
        ensure(!s.gm, API, || {
            "if_transpose = true: only loads from L1 (A1/B1) can transpose, not loads from global memory"
                .to_string()
        });
        ensure(T::SIZE == 2, API, || {
            format!("if_transpose = true with T = {}: the transpose takes 16-bit types only", T::DTYPE)
        });
    }
    let repeat = p.repeat_times as usize;
    if repeat == 0 {
        return;
    }
    // Extents, once: the last fractal of each side.
    let src_last = p.start_index as usize + (repeat - 1) * p.src_stride as usize;
    let dst_last = (repeat - 1) * (p.dst_gap as usize + 1);
    let src_bytes = (src_last + 1) * FRACTAL_BYTES;
    ensure(src_bytes <= s.bytes, API, || {
        format!(
            "src would be read over {src_bytes} bytes (start_index = {}, repeat_times = {repeat}, src_stride = {}), \
             but the {} has {} {} elements ({} bytes)",
            p.start_index,
            p.src_stride,
            if s.gm { "GlobalTensor" } else { "tensor" },
            s.bytes / T::SIZE,
            T::DTYPE,
            s.bytes
        )
    });
    check_extent(dst, API, "dst", (dst_last + 1) * FRACTAL_BYTES);
    if crate::observe::events::is_on() {
        // The fractals each side really touches: `repeat` of 512 bytes, `src_stride` and
        // `dst_gap + 1` fractals apart.
        let (from, pitch) = (p.start_index as usize * FRACTAL_BYTES, p.src_stride as usize * FRACTAL_BYTES);
        let dst_pitch = (p.dst_gap as usize + 1) * FRACTAL_BYTES;
        let out = crate::observe::sanitizer::Span::of(dst, 0)
            .runs((0..repeat).map(|i| (i * dst_pitch, FRACTAL_BYTES)));
        match s.at {
            sealed::At::Gm(rows) => {
                let g = [GmRows { off: rows.off + from, rows: repeat, row: FRACTAL_BYTES, pitch, ..rows }];
                crate::observe::events::on_cube(API, pipe_t::PIPE_MTE2, &g, &[], &out, &[], false)
            }
            sealed::At::Local(span) => {
                let r = span.runs((0..repeat).map(|i| (from + i * pitch, FRACTAL_BYTES)));
                crate::observe::events::on_cube(API, pipe_t::PIPE_MTE1, &[], &r, &out, &[], false)
            }
        }
    }

    let dst_ptr = dst.ptr().cast::<u8>();
    let mut frac = [0u8; FRACTAL_BYTES];
    for i in 0..repeat {
        let from = (p.start_index as usize + i * p.src_stride as usize) * FRACTAL_BYTES;
        let to = i * (p.dst_gap as usize + 1) * FRACTAL_BYTES;
        // SAFETY: `from + 512 <= src_bytes <= s.bytes` and `to + 512 <= dst`'s length (both
        // checked above); `frac` is a local buffer; source and destination are different
        // memories. A global source is read through `gm_io`, as other cores may write it.
        unsafe {
            if s.gm {
                crate::memory::gm_io::load(frac.as_mut_ptr(), s.ptr.add(from), FRACTAL_BYTES);
            } else {
                std::ptr::copy_nonoverlapping(s.ptr.add(from), frac.as_mut_ptr(), FRACTAL_BYTES);
            }
        }
        if p.if_transpose {
            frac = transpose16(&frac);
        }
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(frac.as_ptr(), dst_ptr.add(to), FRACTAL_BYTES) };
    }
}

/// Transposes a 16 × 16 matrix of 16-bit elements held as 512 bytes.
fn transpose16(f: &[u8; FRACTAL_BYTES]) -> [u8; FRACTAL_BYTES] {
    let mut out = [0u8; FRACTAL_BYTES];
    for r in 0..16 {
        for c in 0..16 {
            let (d, s) = ((r * 16 + c) * 2, (c * 16 + r) * 2);
            out[d..d + 2].copy_from_slice(&f[s..s + 2]);
        }
    }
    out
}
