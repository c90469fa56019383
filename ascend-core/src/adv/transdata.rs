//! `TransData` of the advanced API (the vendor's `adv_api/transpose/transdata.h`): a layout
//! conversion between `NCDHW` and the split-channel formats `NDC1HWC0` and `FRACTAL_Z_3D`, with
//! its host helper [`get_trans_data_max_min_tmp_size`].
//!
//! Written as the vendor's implementation for `__NPU_ARCH__` 2201 writes it (asc-devkit
//! `impl/adv_api/detail/transpose/transdata/transdata_impl.h`; the checks of
//! `impl/adv_api/detail/api_check/kernel_check/transpose/transdata/transdata_check_common.h`;
//! the host sizes of `impl/adv_api/tiling/transpose/transdata_tiling.cpp`): every move is a
//! `Duplicate` of zeros, a UB → UB `DataCopy` with block strides, or a `TransDataTo5HD<half>`
//! with lists of UB addresses (the 16-bit element reinterpreted as `half`), each step followed
//! by the vendor's `PipeBarrier<PIPE_V>`. `C0 = N0 = 16`; `H·W` is padded to `padHW`, the next
//! multiple of 16 (one 32-byte block):
//!
//! - `NCDHW → NDC1HWC0` (`TransDataImplNcdhwTo6Hd`): `src` is `[N, C, D, padHW]` (the caller
//!   pads each `H·W` row; the pad elements are read but dropped), `dst` `[N, D, C1, H·W, C0]`.
//!   Per batch: one `TransDataTo5HD` per `C1` (`C → C1·C0`, the missing channels of the last
//!   `C1` read from a zeroed run at the start of the scratch) into `[C1, D·padHW, C0]` in the
//!   scratch, then one `DataCopy` per `C1` into `dst`, dropping the `H·W` padding. Every `dst`
//!   element is written; the padding channels are 0.
//! - `NDC1HWC0 → NCDHW` (`TransDataImpl6HdToNcdhw`): `src` `[N, D, C1, H·W, C0]`, `dst`
//!   `[N, C, D, padHW]`. Per batch: one `DataCopy` per `D` into `[C1, D·padHW, C0]` in the
//!   scratch after a 512-byte dummy area (the `padHW − H·W` rows of each `D` are skipped, not
//!   written), then one `TransDataTo5HD` per `C1` whose entries for the missing channels of
//!   the last `C1` write into the dummy area. **The `dst` padding elements `[H·W, padHW)` of
//!   every row are left with what the scratch held** at the skipped rows (the vendor's
//!   `sharedTmpBuffer` is not cleared; with one `C1`, a partial last `C1` and more than one
//!   repeat, the dummy entries' later repeats also run past the 512 bytes into the scratch's
//!   first rows, already read). Every other `dst` element is data.
//! - `NCDHW → FRACTAL_Z_3D` (`TransDataImplNcdhwToFractal`): `src` `[N, C, D, padHW]`, `dst`
//!   `[D, C1, H, W, N1, N0, C0]`. A zeroed run of `max(C·D·padHW, D·H·W·N1·N0)` elements at the
//!   scratch's start; one `TransDataTo5HD` per `N1` (`N → N1·N0`, missing batches from the
//!   zeros) into `[C·D·padHW, N1, N0]` (in the scratch when `H·W` is padded, then one
//!   `DataCopy` drops the padding into `dst`; else straight into `dst`), one per `C1` into
//!   `[C1, D·H·W·N1·N0, C0]` in the scratch, and one `DataCopy` per `C1` into `dst`. Every
//!   `dst` element is written; the padding batches and channels are 0.
//! - `FRACTAL_Z_3D → NCDHW` (`TransDataFractalToNcdhw`): `src` `[D, C1, H, W, N1, N0, C0]`,
//!   `dst` `[N, C, D, padHW]`. With `C` and `N` multiples of 16, `dst` itself is the first
//!   stage (a `Duplicate` of zeros over it, one `DataCopy` per `D` into `[C1, D, padHW, N1·N0·C0]`),
//!   the scratch the second (one `TransDataTo5HD` per `C1` into `[C1·C0, D·padHW·N1, N0]`),
//!   and one `TransDataTo5HD` per `N1` writes `dst`; otherwise both stages are in the scratch
//!   (twice the size) and the entries of the missing batches of the last `N1` write the
//!   scratch's first blocks (already read). The `dst` padding elements `[H·W, padHW)` are 0.
//!
//! Element types: `int16_t`, `uint16_t`, `half`, `bfloat16_t` (the page and the vendor's
//! `static_assert`). Chips: the vendor's page lists Atlas A2/A3 (Ascend910B here) and Ascend
//! 950 (not emulated); its header compiles the call to nothing on the others, so it fails on
//! Ascend910, Ascend310P and Ascend310B. The other `DataFormat` pairs (`ND`, `NZ`, `NCHW`,
//! `NC1HWC0`, `NHWC`) have no implementation and are errors, as in the vendor's check.
//!
//! Choices where the sources are silent: a shape dimension of 0 is an error; `C0` and `N0`
//! in the layouts must be 16 (the page fixes them; the vendor's check only tests `C1`/`N1`
//! against them, its kernel uses 16 regardless); `sharedTmpBuffer` must hold the host
//! helper's minimum (the page says it must; the vendor's kernel does not check); a
//! `TransDataTo5HD` repeat count above 255 or a `DataCopy` field above 65535 (the vendor's
//! `uint8_t`/`uint16_t` fields would wrap and convert garbage) is an error naming the field.

use std::fmt;

use crate::element::{bf16, f16, DType};
use crate::kernel::ctx::get_soc;
use crate::kernel::error::{ensure, fail_with};
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::duplicate::{duplicate, DuplicateElement};
use crate::vector::transpose::{trans_data_to_5hd_addr, TransDataTo5HDParams, NCHW_CONV_ADDR_LIST_SIZE};

use super::transpose::at;
use super::{check_apart, span, stack_tensor, ONE_BLK_SIZE};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for i16 {}
impl sealed::Sealed for u16 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for bf16 {}

/// Element types of [`trans_data`]: `int16_t`, `uint16_t`, `half`, `bfloat16_t` (the vendor's
/// page and `static_assert`).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f32>, tmp: &LocalTensor<u8>, c: TransDataConfig, p: &TransDataParams) {
///     trans_data(t, t, tmp, c, p)
/// }
/// ```
pub trait TransDataElement: DuplicateElement + sealed::Sealed {}
impl TransDataElement for i16 {}
impl TransDataElement for u16 {}
impl TransDataElement for f16 {}
impl TransDataElement for bf16 {}

const API: &str = "TransData";
const HOST_API: &str = "GetTransDataMaxMinTmpSize";
/// The chips with an implementation among the emulated ones (`__NPU_ARCH__` 2201).
const CHIPS: [Soc; 1] = [Soc::Ascend910B];
const C0: usize = 16;
const N0: usize = 16;
/// Elements of 16 bits in one 32-byte block (the vendor's `elePerBlk`, `hw0`).
const EPB: usize = 16;
const L: usize = NCHW_CONV_ADDR_LIST_SIZE;
/// The vendor's `reservedDummy` of `NDC1HWC0 → NCDHW`: bytes at the scratch's start that the
/// entries of missing channels write.
const RESERVED_DUMMY: usize = 512;

/// A data layout (AscendC `DataFormat`, a `uint8_t` enum in the vendor's order).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DataFormat {
    /// `ND`.
    ND = 0,
    /// `NZ`.
    NZ,
    /// `NCHW`.
    NCHW,
    /// `NC1HWC0`.
    NC1HWC0,
    /// `NHWC`.
    NHWC,
    /// `NCDHW`: `[N, C, D, H, W]`.
    NCDHW,
    /// `NDC1HWC0`: `[N, D, C1, H, W, C0]`.
    NDC1HWC0,
    /// `FRACTAL_Z_3D`: `[D, C1, H, W, N1, N0, C0]`.
    FRACTAL_Z_3D,
}

impl fmt::Display for DataFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Which conversion [`trans_data`] makes (AscendC `TransDataConfig {srcFormat, dstFormat}`,
/// the vendor's template parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransDataConfig {
    /// The source's layout.
    pub src_format: DataFormat,
    /// The destination's layout.
    pub dst_format: DataFormat,
}

impl TransDataConfig {
    /// `{srcFormat, dstFormat}`.
    pub const fn new(src_format: DataFormat, dst_format: DataFormat) -> Self {
        TransDataConfig { src_format, dst_format }
    }
}

/// The shapes of [`trans_data`]'s operands (AscendC `TransDataParams {srcLayout, dstLayout}`;
/// the vendor's `Layout`s are used for their shapes only): the original shapes, `H` and `W`
/// unpadded, e.g. `[N, C, D, H, W]` and `[N, D, C1, H, W, C0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransDataParams<'a> {
    /// The source's shape, in its format's order.
    pub src_layout: &'a [usize],
    /// The destination's shape, in its format's order.
    pub dst_layout: &'a [usize],
}

impl<'a> TransDataParams<'a> {
    /// `{srcLayout, dstLayout}`.
    pub const fn new(src_layout: &'a [usize], dst_layout: &'a [usize]) -> Self {
        TransDataParams { src_layout, dst_layout }
    }
}

/// The four conversions the vendor implements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scene {
    /// `NCDHW → NDC1HWC0`.
    To6Hd,
    /// `NDC1HWC0 → NCDHW`.
    From6Hd,
    /// `NCDHW → FRACTAL_Z_3D`.
    ToFz,
    /// `FRACTAL_Z_3D → NCDHW`.
    FromFz,
}

/// The `NCDHW` shape and the vendor's derived sizes (`TransDataTmpParams`).
#[derive(Clone, Copy)]
struct Dims {
    n: usize,
    c: usize,
    d: usize,
    hw: usize,
    n1: usize,
    c1: usize,
    pad_hw: usize,
}

/// The supported pair `config` names, or an error naming the four.
#[track_caller]
fn scene(api: &'static str, config: TransDataConfig) -> Scene {
    use DataFormat::*;
    match (config.src_format, config.dst_format) {
        (NCDHW, NDC1HWC0) => Scene::To6Hd,
        (NDC1HWC0, NCDHW) => Scene::From6Hd,
        (NCDHW, FRACTAL_Z_3D) => Scene::ToFz,
        (FRACTAL_Z_3D, NCDHW) => Scene::FromFz,
        (s, d) => fail_with(api, || {
            format!(
                "the parameter config srcFormat/dstFormat is ({s}, {d}); it must be (NCDHW, FRACTAL_Z_3D), \
                 (FRACTAL_Z_3D, NCDHW), (NCDHW, NDC1HWC0) or (NDC1HWC0, NCDHW)"
            )
        }),
    }
}

/// `v` rounded up to a multiple of 16, saturating.
fn align16(v: usize) -> usize {
    v.div_ceil(EPB).saturating_mul(EPB)
}

/// The product of `dims`, saturating.
fn prod(dims: &[usize]) -> usize {
    dims.iter().fold(1usize, |a, &b| a.saturating_mul(b))
}

/// Checks the two shapes against each other and the format pair (the vendor's kernel check
/// and host `GenerateShapeInfo`) and returns the `NCDHW` sizes.
#[track_caller]
fn shape_info(api: &'static str, sc: Scene, src: &[usize], dst: &[usize]) -> Dims {
    let (ncdhw, other, other_name, other_dims, other_what) = match sc {
        Scene::To6Hd => (src, dst, "dstLayout", 6, "NDC1HWC0 [N, D, C1, H, W, C0]"),
        Scene::From6Hd => (dst, src, "srcLayout", 6, "NDC1HWC0 [N, D, C1, H, W, C0]"),
        Scene::ToFz => (src, dst, "dstLayout", 7, "FRACTAL_Z_3D [D, C1, H, W, N1, N0, C0]"),
        Scene::FromFz => (dst, src, "srcLayout", 7, "FRACTAL_Z_3D [D, C1, H, W, N1, N0, C0]"),
    };
    let ncdhw_name = if other_name == "dstLayout" { "srcLayout" } else { "dstLayout" };
    ensure(ncdhw.len() == 5, api, || {
        format!(
            "params.{ncdhw_name} has shape {ncdhw:?} of {} dimensions; NCDHW [N, C, D, H, W] has 5",
            ncdhw.len()
        )
    });
    ensure(other.len() == other_dims, api, || {
        format!(
            "params.{other_name} has shape {other:?} of {} dimensions; {other_what} has {other_dims}",
            other.len()
        )
    });
    ensure(ncdhw.iter().all(|&v| v > 0), api, || {
        format!("params.{ncdhw_name} = {ncdhw:?} (NCDHW) has a dimension of 0; every dimension must be at least 1")
    });
    let [n, c, d, h, w] = [ncdhw[0], ncdhw[1], ncdhw[2], ncdhw[3], ncdhw[4]];
    let (c1, n1) = (c.div_ceil(C0), n.div_ceil(N0));
    if other_dims == 6 {
        let [on, od, oc1, oh, ow, oc0] = [other[0], other[1], other[2], other[3], other[4], other[5]];
        ensure(on == n && od == d && oh == h && ow == w, api, || {
            format!(
                "the dims n, d, h, w of params.{ncdhw_name} / params.{other_name} must be equal, but are ({n}, {d}, \
                 {h}, {w}) / ({on}, {od}, {oh}, {ow})"
            )
        });
        ensure(oc0 == C0 && oc1 == c1, api, || {
            format!(
                "params.{other_name} has c1 = {oc1}, c0 = {oc0}; for 16-bit data c0 is 16 and c1 = (c + c0 - 1) / c0 \
                 = {c1} (c = {c})"
            )
        });
    } else {
        let [od, oc1, oh, ow, on1, on0, oc0] =
            [other[0], other[1], other[2], other[3], other[4], other[5], other[6]];
        ensure(od == d && oh == h && ow == w, api, || {
            format!(
                "the dims d, h, w of params.{ncdhw_name} / params.{other_name} must be equal, but are ({d}, {h}, {w}) / \
                 ({od}, {oh}, {ow})"
            )
        });
        ensure(oc0 == C0 && oc1 == c1, api, || {
            format!(
                "params.{other_name} has c1 = {oc1}, c0 = {oc0}; for 16-bit data c0 is 16 and c1 = (c + c0 - 1) / c0 \
                 = {c1} (c = {c})"
            )
        });
        ensure(on0 == N0 && on1 == n1, api, || {
            format!(
                "params.{other_name} has n1 = {on1}, n0 = {on0}; for 16-bit data n0 is 16 and n1 = (n + n0 - 1) / n0 \
                 = {n1} (n = {n})"
            )
        });
    }
    let hw = h.saturating_mul(w);
    Dims { n, c, d, hw, n1, c1, pad_hw: align16(hw) }
}

/// The scratch bytes of `sc` on `p` (the vendor's `GetTmpBufferSize`; 2-byte data).
fn tmp_bytes(sc: Scene, p: &Dims) -> usize {
    let Dims { n, c, d, hw, n1, c1, pad_hw } = *p;
    let full = prod(&[n1, N0, d, c1, C0, pad_hw, 2]);
    match sc {
        Scene::To6Hd => prod(&[d, pad_hw, 2]).saturating_add(prod(&[d, c1, C0, pad_hw, 2])),
        Scene::From6Hd => prod(&[d, c1, C0, pad_hw, 2]).saturating_add(RESERVED_DUMMY),
        Scene::ToFz => prod(&[c, d, pad_hw, 2]).max(prod(&[d, hw, n1, N0, 2])).saturating_add(full),
        Scene::FromFz if n == n1 * N0 && c == c1 * C0 => full,
        Scene::FromFz => full.saturating_mul(2),
    }
}

/// The `(max, min)` bytes of `TransData`'s temporary buffer (AscendC
/// `GetTransDataMaxMinTmpSize(platform, srcShape, dstShape, dataType, config, maxValue,
/// minValue)`; `soc` stands for the platform; the two are equal), the vendor's
/// `transdata_tiling.cpp` with `padHW = H·W` rounded up to 16 and 2-byte data:
/// - `NCDHW → NDC1HWC0`: `D·padHW·2 + D·C1·C0·padHW·2`;
/// - `NDC1HWC0 → NCDHW`: `D·C1·C0·padHW·2 + 512`;
/// - `NCDHW → FRACTAL_Z_3D`: `max(C·D·padHW·2, D·H·W·N1·N0·2) + N1·N0·D·C1·C0·padHW·2`;
/// - `FRACTAL_Z_3D → NCDHW`: `N1·N0·C1·C0·D·padHW·2`, twice that unless `C` and `N` are
///   multiples of 16.
///
/// The shapes are the kernel's `params` (original `H`, `W`). The vendor accepts `dataType`
/// `DT_FLOAT16`, `DT_BF16`, `DT_UINT16`, `DT_INT16` (its page says half/float/uint16_t/int16_t;
/// the code rejects float and takes bfloat16, as the kernel does; the code is followed).
///
/// ```
/// use ascend_core::prelude::*;
/// // The page's example: (1, 16, 2, 4, 4) NCDHW to (1, 2, 1, 4, 4, 16) NDC1HWC0, half.
/// let config = TransDataConfig::new(DataFormat::NCDHW, DataFormat::NDC1HWC0);
/// let (max, min) =
///     get_trans_data_max_min_tmp_size(Soc::Ascend910B, &[1, 16, 2, 4, 4], &[1, 2, 1, 4, 4, 16], DType::F16, config);
/// assert_eq!((max, min), (2 * 16 * 2 + 2 * 16 * 16 * 2, 1088));
/// ```
///
/// # Panics
/// Panics (where the vendor returns `false`) if `data_type` is not one of the four, the
/// format pair is not one of the four conversions, `soc` is not Ascend910B (the vendor's
/// "Unsupported NpuArch"), or the shapes do not match their formats or each other.
#[track_caller]
pub fn get_trans_data_max_min_tmp_size(
    soc: Soc,
    src_shape: &[usize],
    dst_shape: &[usize],
    data_type: DType,
    config: TransDataConfig,
) -> (usize, usize) {
    ensure(matches!(data_type, DType::F16 | DType::BF16 | DType::U16 | DType::I16), HOST_API, || {
        format!(
            "dataType = {data_type} is not supported; it only supports DT_FLOAT16/DT_BF16/DT_UINT16/DT_INT16"
        )
    });
    let sc = scene(HOST_API, config);
    ensure(CHIPS.contains(&soc), HOST_API, || {
        format!(
            "unsupported NpuArch for TransData: {soc} ({}); TransData runs on Ascend910B (and Ascend 950, not \
             emulated)",
            soc.product_line()
        )
    });
    let p = shape_info(HOST_API, sc, src_shape, dst_shape);
    let v = tmp_bytes(sc, &p);
    (v, v)
}

/// Fails unless `v <= max` (`what` names the vendor's field and its width).
#[track_caller]
fn fits(v: usize, max: usize, what: &str) {
    ensure(v <= max, API, || {
        format!(
            "{what} = {v} exceeds {max} for this shape (the vendor's field would wrap and convert garbage); split the \
             conversion into smaller calls"
        )
    });
}

/// Every `TransDataTo5HD` repeat count and `DataCopy` field the vendor computes for `sc` on
/// `p`, checked before anything is written.
#[track_caller]
fn check_fields(sc: Scene, p: &Dims) {
    let Dims { c, d, hw, n1, c1, pad_hw, .. } = *p;
    const R: usize = u8::MAX as usize;
    const W: usize = u16::MAX as usize;
    let rep = "the repeatTimes of a TransDataTo5HD (8 bits)";
    let len = "the blockLen of a DataCopy (16 bits)";
    let gap = "the dstStride of a DataCopy (16 bits)";
    match sc {
        Scene::To6Hd => {
            fits(d * pad_hw / EPB, R, rep);
            fits(hw, W, len);
            fits((c1 - 1) * hw, W, gap);
        }
        Scene::From6Hd => {
            fits(d * pad_hw / EPB, R, rep);
            fits(hw, W, len);
            fits(d * pad_hw - hw, W, gap);
        }
        Scene::ToFz => {
            fits(c * d * pad_hw / EPB, R, rep);
            fits(d * hw * n1, R, rep);
            fits(hw * n1 * N0, W, len);
            fits((c1 - 1) * hw * n1 * N0, W, gap);
        }
        Scene::FromFz => {
            fits(d * pad_hw * n1, R, rep);
            fits(c * d * pad_hw / EPB, R, rep);
            fits(hw * n1 * N0, W, len);
            fits(((d - 1) * pad_hw + pad_hw - hw) * n1 * N0, W, gap);
        }
    }
}

/// Converts `src` into `dst` from `config.src_format` to `config.dst_format`, with the
/// temporary buffer `shared_tmp_buffer` (AscendC `TransData<config>(dstTensor, srcTensor,
/// sharedTmpBuffer, params)`), on Ascend910B. The four conversions, their steps and which
/// elements they leave unwritten are in the [module documentation](self).
///
/// An `NCDHW` operand is `[N, C, D, padHW]`: each `H·W` row padded to a multiple of 16
/// elements (the page: the caller pads an input, the call pads an output), while
/// `params` holds the original `[N, C, D, H, W]`. Sizes (elements): `NCDHW`
/// `N·C·D·padHW`, `NDC1HWC0` `N·D·C1·H·W·C0`, `FRACTAL_Z_3D` `D·C1·H·W·N1·N0·C0`, with `C1 =
/// ⌈C/16⌉`, `N1 = ⌈N/16⌉`, `C0 = N0 = 16`. The scratch must hold
/// [`get_trans_data_max_min_tmp_size`]'s bytes.
///
/// The page's example (`half`, 32 channels of `[2, 8]` NCDHW to NDC1HWC0; the page's
/// `params` say `D = 2`, but its 512 input values, and the output it prints, are `D = 1`):
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut t) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512 * 2);
/// pipe.init_tbuf(&mut b, 512 * 2);
/// let config = TransDataConfig::new(DataFormat::NCDHW, DataFormat::NDC1HWC0);
/// let (src_shape, dst_shape) = ([1, 32, 1, 2, 8], [1, 1, 2, 2, 8, 16]);
/// let (_, min) = get_trans_data_max_min_tmp_size(get_soc(), &src_shape, &dst_shape, DType::F16, config);
/// pipe.init_tbuf(&mut t, min);
/// let (src, dst) = (a.get::<f16>(), b.get::<f16>());
/// src.copy_from_slice(&(0..512).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
/// trans_data(&dst, &src, &t.get::<u8>(), config, &TransDataParams::new(&src_shape, &dst_shape));
/// // dst[n][d][c1][hw][c0] = src[n][c1 * 16 + c0][d][hw]: the first row is 0, 16, 32, ...
/// let out: Vec<f32> = dst.to_vec().iter().map(|v| v.to_f32()).collect();
/// assert_eq!(out[..4], [0.0, 16.0, 32.0, 48.0]);
/// assert_eq!(out[16], 1.0);
/// assert_eq!(out[256], 256.0); // c1 = 1 starts with channel 16
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B (the page: not supported; the header compiles the
/// call to nothing); if `config` is not one of the four conversions; if a shape has the wrong
/// number of dimensions, a 0 in the `NCDHW` shape, dims `n`/`d`/`h`/`w` that differ between
/// the two, or `C1`/`C0`/`N1`/`N0` other than `⌈C/16⌉`/16/`⌈N/16⌉`/16; if a tensor is not a
/// VECIN/VECOUT/VECCALC tensor or not 32-byte aligned, `src` or `dst` is smaller than its
/// format's size or the scratch smaller than the host helper's; if `src`, `dst` and the
/// scratch overlap (the page forbids it); or if the shape needs a `TransDataTo5HD` of more
/// than 255 repeats or a `DataCopy` field above 65535.
#[track_caller]
pub fn trans_data<T: TransDataElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    config: TransDataConfig,
    params: &TransDataParams,
) {
    check_page_chip();
    let sc = scene(API, config);
    let p = shape_info(API, sc, params.src_layout, params.dst_layout);
    for (name, pos, addr) in [
        ("dstTensor", dst.get_position(), dst.get_phy_addr()),
        ("srcTensor", src.get_position(), src.get_phy_addr()),
        ("sharedTmpBuffer", shared_tmp_buffer.get_position(), shared_tmp_buffer.get_phy_addr()),
    ] {
        ensure(pos.is_ub(), API, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
        ensure(addr % ONE_BLK_SIZE == 0, API, || {
            format!("{name} starts at UB byte {addr:#x}, which is not 32-byte aligned (the general alignment rule)")
        });
    }
    let Dims { n, c, d, hw, n1, c1, pad_hw } = p;
    let ncdhw = prod(&[n, c, d, pad_hw]);
    let (src_need, dst_need, src_what, dst_what) = match sc {
        Scene::To6Hd => (ncdhw, prod(&[n, d, c1, hw, C0]), "NCDHW", "NDC1HWC0"),
        Scene::From6Hd => (prod(&[n, d, c1, hw, C0]), ncdhw, "NDC1HWC0", "NCDHW"),
        Scene::ToFz => (ncdhw, prod(&[d, c1, hw, n1, N0, C0]), "NCDHW", "FRACTAL_Z_3D"),
        Scene::FromFz => (prod(&[d, c1, hw, n1, N0, C0]), ncdhw, "FRACTAL_Z_3D", "NCDHW"),
    };
    for (name, t, need, what) in
        [("srcTensor", src, src_need, src_what), ("dstTensor", dst, dst_need, dst_what)]
    {
        ensure(t.get_size() >= need, API, || {
            let form =
                if what == "NCDHW" { " (N·C·D·padHW, H·W padded to a multiple of 16)" } else { "" };
            format!(
                "{name} ({what}) has {} {} elements; it must hold at least {need}{form}",
                t.get_size(),
                T::DTYPE
            )
        });
    }
    let tmp_need = tmp_bytes(sc, &p);
    ensure(shared_tmp_buffer.get_size() >= tmp_need, API, || {
        format!(
            "sharedTmpBuffer has {} bytes; this conversion needs at least {tmp_need} (GetTransDataMaxMinTmpSize's \
             minimum)",
            shared_tmp_buffer.get_size()
        )
    });
    let (sd, ss, st) = (span("dstTensor", dst, dst_need), span("srcTensor", src, src_need), {
        let t = shared_tmp_buffer;
        ("sharedTmpBuffer", t.get_phy_addr(), t.get_phy_addr() + tmp_need)
    });
    check_apart(API, &[(sd, ss), (st, ss), (st, sd)]);
    check_fields(sc, &p);
    match sc {
        Scene::To6Hd => ncdhw_to_6hd(dst, src, shared_tmp_buffer, &p),
        Scene::From6Hd => from_6hd_to_ncdhw(dst, src, shared_tmp_buffer, &p),
        Scene::ToFz => ncdhw_to_fractal(dst, src, shared_tmp_buffer, &p),
        Scene::FromFz => fractal_to_ncdhw(
            &dst.reinterpret_cast::<f16>(),
            &src.reinterpret_cast::<f16>(),
            &shared_tmp_buffer.reinterpret_cast::<f16>(),
            &p,
        ),
    }
}

/// [`trans_data`] with the temporary buffer taken from the stack buffer
/// ([`pop_stack_buffer`](super::pop_stack_buffer); AscendC `TransData<config>(dstTensor,
/// srcTensor, params)`).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// // [N, C, D, H, W] = [16, 16, 1, 4, 4]: FRACTAL_Z_3D [1, 1, 4, 4, 1, 16, 16].
/// pipe.init_tbuf(&mut a, 4096 * 2);
/// pipe.init_tbuf(&mut b, 4096 * 2);
/// let (src, dst) = (a.get::<u16>(), b.get::<u16>());
/// src.copy_from_slice(&(0..4096).collect::<Vec<u16>>());
/// let config = TransDataConfig::new(DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW);
/// trans_data_stack(&dst, &src, config, &TransDataParams::new(&[1, 1, 4, 4, 1, 16, 16], &[16, 16, 1, 4, 4]));
/// // dst[n][c][hw] = src[hw][n][c]
/// assert_eq!(dst.get_value(16 * 16 + 2 * 16 + 3), 3 * 256 + 16 + 2);
/// ```
///
/// # Panics
/// As [`trans_data`]; and if the core has no `TPipe` or no space after its buffers.
#[track_caller]
pub fn trans_data_stack<T: TransDataElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    config: TransDataConfig,
    params: &TransDataParams,
) {
    check_page_chip();
    let tmp = stack_tensor(API);
    trans_data(dst, src, &tmp, config, params);
}

/// Fails on a chip whose page says "不支持" (the header compiles the call to nothing there).
#[track_caller]
fn check_page_chip() {
    let soc = get_soc();
    ensure(CHIPS.contains(&soc), API, || {
        format!(
            "TransData is not supported on {soc} ({}): its page (TransData.md, 产品支持情况) lists Atlas A2/A3 \
             (Ascend910B) and Ascend 950 only, and the vendor's header compiles the call to nothing elsewhere",
            soc.product_line()
        )
    });
}

/// `TransDataTo5HDParams{false, false, repeat, dst, src}`, the strides 0 for one repeat (the
/// vendor's rule: a single repeat's start offset would move by the stride).
fn five_hd(repeat: usize, dst_stride: usize, src_stride: usize) -> TransDataTo5HDParams {
    let (ds, ss) = if repeat == 1 { (0, 0) } else { (dst_stride, src_stride) };
    TransDataTo5HDParams::new(false, false, repeat as u8, ds as u16, ss as u16)
}

/// `DataCopyParams{count, len, srcStride, dstStride}` (fields checked by [`check_fields`]).
fn copy(count: usize, len: usize, src_stride: usize, dst_stride: usize) -> DataCopyParams {
    DataCopyParams::new(count as u16, len as u16, src_stride as u16, dst_stride as u16)
}

/// The lists of a `TransDataTo5HD` that splits an axis into 16: entry `i` writes from `dst0 +
/// i * dst_step` bytes and reads from `src0 + i * src_step` bytes for `i < remain`, from the
/// zeros at `zeros` for the missing rest.
fn split_lists(
    dst0: u64,
    dst_step: usize,
    src0: u64,
    src_step: usize,
    remain: usize,
    zeros: u64,
) -> [[u64; L]; 2] {
    let dl = std::array::from_fn(|i| dst0 + (i * dst_step) as u64);
    let sl = std::array::from_fn(|i| if i < remain { src0 + (i * src_step) as u64 } else { zeros });
    [dl, sl]
}

/// `TransDataTo5HD<half>` of the two address lists.
#[track_caller]
fn five(dl: &[u64; L], sl: &[u64; L], params: &TransDataTo5HDParams) {
    trans_data_to_5hd_addr::<f16>(dl, sl, params);
}

/// `TransDataImplNcdhwTo6Hd`.
#[track_caller]
fn ncdhw_to_6hd<T: TransDataElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    p: &Dims,
) {
    let Dims { n, c, d, hw, c1, pad_hw, .. } = *p;
    let axis_hwc0 = hw * C0;
    let axis_c1hwdc0 = axis_hwc0 * c1 * d;
    let axis_pad_hwd = pad_hw * d;
    let axis_pad_hwdc0 = pad_hw * C0 * d;
    duplicate(&tmp.reinterpret_cast::<T>(), T::default(), axis_pad_hwd);
    pipe_barrier::<PIPE_V>();
    // Reserve for padded 0 on the additional channels.
    let tmp_dst = tmp.view(axis_pad_hwd * T::SIZE).reinterpret_cast::<T>();
    let zeros = at(tmp, 0);
    let params = five_hd(axis_pad_hwd / EPB, C0, 1);
    let cp = copy(d, axis_hwc0 / EPB, (pad_hw - hw) * C0 / EPB, (c1 - 1) * axis_hwc0 / EPB);
    for k in 0..n {
        let src_start = k * axis_pad_hwd * c;
        let dst_start = k * axis_c1hwdc0;
        // Step 1: CDHW -> C1DHWC0 with the padding.
        for j in 0..c1 {
            let cur_dst = at(&tmp_dst, j * axis_pad_hwdc0);
            let cur_src = at(src, src_start + j * axis_pad_hwdc0);
            let remain = if j == c1 - 1 { c - j * C0 } else { C0 };
            let [dl, sl] = split_lists(cur_dst, C0 * T::SIZE, cur_src, axis_pad_hwd * T::SIZE, remain, zeros);
            five(&dl, &sl, &params);
        }
        pipe_barrier::<PIPE_V>();
        // Step 2: C1DHWC0 -> DC1HWC0.
        for i in 0..c1 {
            data_copy_params(&dst.view(dst_start + i * axis_hwc0), &tmp_dst.view(i * axis_pad_hwdc0), &cp);
        }
        pipe_barrier::<PIPE_V>();
    }
}

/// `TransDataImpl6HdToNcdhw`.
#[track_caller]
fn from_6hd_to_ncdhw<T: TransDataElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    p: &Dims,
) {
    let Dims { n, c, d, hw, c1, pad_hw, .. } = *p;
    let tmp_dst = tmp.view(RESERVED_DUMMY).reinterpret_cast::<T>();
    let tmp_base = at(tmp, 0);
    let axis_hwc0 = hw * C0;
    let axis_c1hwc0 = axis_hwc0 * c1;
    let axis_c1hwdc0 = axis_c1hwc0 * d;
    let axis_pad_hwd = pad_hw * d;
    let axis_pad_hwc0 = pad_hw * C0;
    let axis_pad_hwdc0 = pad_hw * C0 * d;
    let params = five_hd(pad_hw * d / EPB, 1, C0);
    let cp = copy(c1, hw * C0 / EPB, 0, (d * pad_hw - hw) * C0 / EPB);
    let (mut dl, mut sl) = ([0u64; L], [0u64; L]);
    for k in 0..n {
        // Step 1: DC1HWC0 -> C1DHWC0.
        let src_start = k * axis_c1hwdc0;
        let dst_start = k * axis_pad_hwd * c;
        for i in 0..d {
            data_copy_params(&tmp_dst.view(i * axis_pad_hwc0), &src.view(src_start + i * axis_c1hwc0), &cp);
        }
        pipe_barrier::<PIPE_V>();
        // Step 2: C1DHWC0 -> C1C0DHW.
        for j in 0..c1 {
            let remain = if j == c1 - 1 { c - j * C0 } else { C0 };
            let cur_dst = at(dst, dst_start + j * axis_pad_hwdc0);
            let cur_src = at(&tmp_dst, j * axis_pad_hwdc0);
            for i in 0..L {
                // The missing channels write the dummy area.
                dl[i] = if i < remain {
                    cur_dst + (i * axis_pad_hwd * T::SIZE) as u64
                } else {
                    tmp_base + (i * ONE_BLK_SIZE) as u64
                };
                sl[i] = cur_src + (i * C0 * T::SIZE) as u64;
            }
            five(&dl, &sl, &params);
        }
        pipe_barrier::<PIPE_V>();
    }
}

/// `TransDataImplNcdhwToFractal`.
#[track_caller]
fn ncdhw_to_fractal<T: TransDataElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    p: &Dims,
) {
    let Dims { n, c, d, hw, n1, c1, pad_hw } = *p;
    let mut cur_axis = c * d * pad_hw;
    let tmp_dup = cur_axis.max(d * hw * n1 * N0);
    duplicate(&tmp.reinterpret_cast::<T>(), T::default(), tmp_dup);
    pipe_barrier::<PIPE_V>();
    let tmp_dst = tmp.view(tmp_dup * T::SIZE).reinterpret_cast::<T>();
    let zeros = at(tmp, 0);
    // Step 1: NCDHW -> CDHW, N1, N0 (n1 transposes split N; the missing batches are zeros).
    let params = five_hd(cur_axis / EPB, n1 * N0, 1);
    let padded = pad_hw != hw;
    // dst cannot hold the padded rows.
    let target = if padded { at(&tmp_dst, 0) } else { at(dst, 0) };
    for j in 0..n1 {
        let cur_dst = target + (j * N0 * T::SIZE) as u64;
        let cur_src = at(src, j * cur_axis * N0);
        let remain = if j == n1 - 1 { n - j * N0 } else { N0 };
        let [dl, sl] = split_lists(cur_dst, n1 * N0 * T::SIZE, cur_src, cur_axis * T::SIZE, remain, zeros);
        five(&dl, &sl, &params);
    }
    pipe_barrier::<PIPE_V>();
    // Step 1.5: drop the padded H·W rows.
    if padded {
        cur_axis = hw * n1 * N0;
        let cp = copy(c * d, cur_axis / EPB, (pad_hw - hw) * n1 * N0 / EPB, 0);
        data_copy_params(dst, &tmp_dst, &cp);
        pipe_barrier::<PIPE_V>();
    }
    // Step 2: CDHWN1N0 -> C1DHW, N1N0, C0.
    cur_axis = d * hw * n1 * N0;
    let params = five_hd(cur_axis / EPB, C0, 1);
    for j in 0..c1 {
        let cur_dst = at(&tmp_dst, j * cur_axis * C0);
        let cur_src = at(dst, j * cur_axis * C0);
        let remain = if j == c1 - 1 { c - j * C0 } else { C0 };
        let [dl, sl] = split_lists(cur_dst, C0 * T::SIZE, cur_src, cur_axis * T::SIZE, remain, zeros);
        five(&dl, &sl, &params);
    }
    pipe_barrier::<PIPE_V>();
    // Step 3: C1DHW, N1N0, C0 -> DC1HW, N1N0, C0.
    cur_axis = C0 * hw * n1 * N0;
    let cp = copy(d, cur_axis / EPB, 0, (c1 - 1) * cur_axis / EPB);
    for i in 0..c1 {
        data_copy_params(&dst.view(i * cur_axis), &tmp_dst.view(i * d * cur_axis), &cp);
    }
    pipe_barrier::<PIPE_V>();
}

/// `TransDataFractalToNcdhw`, on the tensors reinterpreted as `half`.
#[track_caller]
fn fractal_to_ncdhw(dst: &LocalTensor<f16>, src: &LocalTensor<f16>, tmp: &LocalTensor<f16>, p: &Dims) {
    let Dims { n, c, n1, c1, d, pad_hw, .. } = *p;
    if c == c1 * C0 && n == n1 * N0 {
        // D C1 HWN1N0C0 -> C1 D HWN1N0C0 (H·W aligned), in dst.
        dc1_to_c1d_hw_align(dst, src, p);
        // C1 DHWN1N0 C0 -> C1 C0 DHWN1N0.
        c1_dhwn_c0_to_c1_c0_dhwn(tmp, dst, p);
        // C1C0DHW N1N0 -> N CDHW.
        c1c0dhw_n_to_ncdhw(dst, tmp, tmp, p);
    } else {
        let trans_tmp = tmp.view(n1 * N0 * c1 * C0 * d * pad_hw);
        dc1_to_c1d_hw_align(tmp, src, p);
        c1_dhwn_c0_to_c1_c0_dhwn(&trans_tmp, tmp, p);
        c1c0dhw_n_to_ncdhw(dst, &trans_tmp, tmp, p);
    }
}

/// `DC1Hwn1n0c0ToC1DHwn1n0c0HWAlign`.
#[track_caller]
fn dc1_to_c1d_hw_align(dst: &LocalTensor<f16>, src: &LocalTensor<f16>, p: &Dims) {
    let Dims { d, hw, n1, c1, pad_hw, .. } = *p;
    let last_dim = hw * n1 * N0 * C0;
    let n1n0c0 = n1 * N0 * C0;
    let hw_align_elems = pad_hw * n1n0c0;
    let hw_pad_elems = (pad_hw - hw) * n1n0c0;
    let cp = copy(c1, last_dim / EPB, 0, ((d - 1) * hw_align_elems + hw_pad_elems) / EPB);
    duplicate(dst, f16::ZERO, c1 * d * pad_hw * n1 * N0 * C0);
    pipe_barrier::<PIPE_V>();
    for d0 in 0..d {
        data_copy_params(&dst.view(d0 * hw_align_elems), &src.view(d0 * c1 * last_dim), &cp);
    }
    pipe_barrier::<PIPE_V>();
}

/// `C1Dhwn1n0c0ToC1C0Dhwn1n0`.
#[track_caller]
fn c1_dhwn_c0_to_c1_c0_dhwn(dst: &LocalTensor<f16>, src: &LocalTensor<f16>, p: &Dims) {
    let Dims { d, n1, c1, pad_hw, .. } = *p;
    let params = five_hd(d * pad_hw * n1, N0 * 2 / ONE_BLK_SIZE, L * C0 * 2 / ONE_BLK_SIZE);
    let (mut dl, mut sl) = ([0u64; L], [0u64; L]);
    for j in 0..c1 {
        let out = j * d * pad_hw * n1 * N0 * C0;
        for i in 0..L {
            sl[i] = at(src, out + i * N0);
            dl[i] = at(dst, out + i * d * pad_hw * n1 * N0);
        }
        five(&dl, &sl, &params);
    }
    pipe_barrier::<PIPE_V>();
}

/// `C1c0dhwN1n0ToNcdhw`: the entries of the missing batches of the last `N1` write `tmp`.
#[track_caller]
fn c1c0dhw_n_to_ncdhw(dst: &LocalTensor<f16>, src: &LocalTensor<f16>, tmp: &LocalTensor<f16>, p: &Dims) {
    let Dims { n, c, d, n1, pad_hw, .. } = *p;
    let params = five_hd(c * d * pad_hw / N0, C0 * 2 / ONE_BLK_SIZE, L * n1 * N0 * 2 / ONE_BLK_SIZE);
    let (mut dl, mut sl) = ([0u64; L], [0u64; L]);
    let mut cur_n = n as isize;
    for j in 0..n1 {
        let base = j * d * c * pad_hw * N0;
        for i in 0..L {
            dl[i] = if (i as isize) < cur_n {
                at(dst, base + i * c * d * pad_hw)
            } else {
                at(tmp, 0) + (i * ONE_BLK_SIZE * 2) as u64
            };
            sl[i] = at(src, j * N0 + i * N0 * n1);
        }
        five(&dl, &sl, &params);
        cur_n -= N0 as isize;
    }
    pipe_barrier::<PIPE_V>();
}
