//! The high-level `Matmul` (AscendC `matmul::Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, CFG>`,
//! `lib/matmul_intf.h`): `C = A × B (+ bias)` for one core's `singleCoreM × singleCoreN`
//! block of C, in `baseM × baseN` blocks, driven by a [`TCubeTiling`] from the host
//! ([`MultiCoreMatmulTiling`](crate::adv::matmul_tiling::MultiCoreMatmulTiling)).
//!
//! ```
//! use ascend_core::prelude::*;
//! use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
//!
//! // Host: the tiling of a 32 x 48 x 64 half matmul on one core.
//! let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
//! api.set_dim(1);
//! api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
//! api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
//! api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
//! api.set_shape(32, 48, 64);
//! api.set_org_shape(32, 48, 64);
//! let tiling = api.get_tiling().unwrap();
//!
//! // Kernel (here on a single default core, which has every memory).
//! let a: Vec<f16> = (0..32 * 64).map(|i| f16::from_f32((i % 5) as f32)).collect();
//! let b: Vec<f16> = (0..64 * 48).map(|i| f16::from_f32((i % 3) as f32 - 1.0)).collect();
//! let (ga, gb) = (GmRegion::from_bytes(bytemuck::cast_slice(&a)), GmRegion::from_bytes(bytemuck::cast_slice(&b)));
//! let gc = GmRegion::zeroed(32 * 48 * 4);
//! let bind = |r: &std::sync::Arc<GmRegion>| r.addr();
//! let (mut a_gm, mut b_gm, mut c_gm) = (GlobalTensor::<f16>::new(), GlobalTensor::<f16>::new(), GlobalTensor::<f32>::new());
//! a_gm.set_global_buffer(bind(&ga), 32 * 64);
//! b_gm.set_global_buffer(bind(&gb), 64 * 48);
//! c_gm.set_global_buffer(bind(&gc), 32 * 48);
//! let mut mm = Matmul::<
//!     MatmulType<Gm, cube_format::ND, f16>,
//!     MatmulType<Gm, cube_format::ND, f16>,
//!     MatmulType<Gm, cube_format::ND, f32>,
//! >::new();
//! mm.init(&tiling);
//! mm.set_tensor_a(&a_gm, false);
//! mm.set_tensor_b(&b_gm, false);
//! mm.iterate_all::<true>(&c_gm, false);
//! mm.end();
//! let row0: f32 = (0..64).map(|k| a[k].to_f32() * b[k * 48].to_f32()).sum();
//! assert_eq!(c_gm.get_value(0), row0);
//! ```
//!
//! # How it runs
//!
//! On the chip, in a mixed kernel, the vector core (AIV) calls the `Matmul` object and each
//! call becomes a message to its cube core (AIC), which runs the cube work; in a cube-only
//! kernel the AIC runs it directly. Here the message channel is modelled by its semantics:
//! each call runs its cube work at once, to completion, on the cube core paired with the
//! calling core (a core of the same block index with L1/L0A/L0B/L0C; see
//! [`KernelType`](crate::ctx::KernelType)), so the `Matmul` works the same from an AIV core
//! of an `AivOnly` launch, from an AIC core of an `AicOnly` launch and, once mixed launches
//! exist, from the AIV side of a mixed kernel.
//!
//! The cube work uses this crate's basic cube instructions, in the vendor's order (the
//! `MatmulImpl` NORM/MDL policies of `impl/adv_api/detail/matmul`): for each `baseM × baseN`
//! block (M first, or N first when `iterateOrder = 1`), for each `baseK` slice of K in order:
//! [`data_copy_nd2nz`] GM → L1, [`load_data`] L1 →
//! L0A/L0B, [`mmad`] into L0C (the first slice initialises L0C, or starts from the bias),
//! then [`fixpipe`] L0C → GM with the conversion C's type needs. The L0C accumulation is
//! therefore the basic path's, bit for bit: per element, each run of `K0` depths (16 for
//! 16-bit inputs, 32 for `int8_t`) is summed exactly and rounded once to `float`, and the
//! runs are added in `float` in K order, starting from the bias when there is one. The
//! `stepKa`/`stepKb`/`depthA1` caching of the vendor's L1 changes how often data is moved,
//! not the sums, so `CFG_NORM` and `CFG_MDL` give the same bits.
//!
//! The bias: as the vendor's (`LoadBias2C2`, `UpdateMmadComputeParams`), the block's `baseN`
//! bias values go to L1 (`C1`), then with [`data_copy_bias`] to the bias table (`C2`), and the
//! first `Mmad` of the block starts from them ([`mmad_with_bias`], `cmatrixInitVal = false`);
//! the later ones accumulate. The bias table holds 1 KiB, 256 `float`/`int32_t` values: a
//! block wider than that with a bias is an error. (The results are bit for bit those of the
//! earlier emulation, which pre-filled L0C with the bias row and accumulated onto it: the bias
//! is the accumulator's first value either way; `cube_bias.rs` checks the two agree.)
//!
//! Quantised C (`SetQuantScalar` / `SetQuantVector`): an `int32_t` L0C (`int8_t` inputs) to a
//! `half` C (`DEQF16` / `VDEQF16`) or an `int8_t`/`uint8_t` C (`REQ8` / `VREQ8`), and a `float`
//! L0C to `int8_t`/`uint8_t` (`QF322B8_PRE` / `VQF322B8_PRE`), as the vendor's `Fixpipe` does
//! it (see [`fixpipe`](crate::cube::fixpipe) for the parameter bits and the arithmetic); the
//! vector's values for the block's columns go to L1 and [`fixpipe_with_quant`] reads them.
//!
//! `GetTensorC` to a `VECIN` tensor: on Ascend910B the AIC cannot write the Unified Buffer; the
//! vendor's `Fixpipe` writes the block to a GM workspace and the AIV copies it in (`DataCopy`,
//! pipe MTE2). The same happens here, through a GM workspace per core (kept per thread and
//! block index; the vendor's is part of the system workspace, `GetSysWorkSpacePtr`).
//!
//! `float` inputs (Ascend910B): `K0` is 8, a fractal 16 × 8, so each run of 8 depths is
//! summed (in `f64`, in order) and rounded once to `float` ([`mmad`]'s documented order; no
//! HF32 rounding: the vendor's `SetHF32` is off by default and not emulated). L1 holds NZ with
//! 8-element columns. An untransposed A and a transposed B load into L0A/L0B with [`load_data`]
//! as the other types do; a transposed A and an untransposed B need their 16 × 8 fractals
//! transposed, which the vendor's `Matmul` does with Load3Dv2 (`LoadData` with
//! `LoadData3DParamsV2Pro`, `load_to_l0a(b)_loadInstr.h`; not an instruction of this crate):
//! the same elements land where that load puts them, a transposed A with K padded to 16 in
//! L0A and `Mmad`'s `kDirectionAlign` set, as the vendor's `MmadCompute` does. The results
//! are bit for bit those of the basic path (`tests/matmul_float_nz.rs` checks both).
//!
//! NZ operands: an NZ A or B in GM is the stored matrix (`A`, `Aᵀ`, `B` or `Bᵀ` as `isTrans`
//! says) in columns of `C0 = 32 / size_of::<T>()` elements, each `⌈rows⌉₁₆` rows high; each
//! tile goes GM → L1 with one `DataCopy` (the vendor's `CopyNZ2NZImpl`, see `nz2nz`), which
//! reads the tile's rows up to a multiple of 16 (so the GM tensor must hold the padding). An
//! NZ C goes to GM through `Fixpipe` without NZ2ND ([`fixpipe_nz`]): block `(mi, ni)` at
//! `ni·baseN·orgM + mi·baseM·16`, 16-column Z columns `orgM` rows high (`orgM` a multiple of 16),
//! as the vendor's `CopyOutNZ2NZ`.
//!
//! ReLU: a [`MatmulConfig`] with `enable_relu` (the vendor's `MatmulConfig::enableRelu`) sets
//! `Fixpipe`'s `reluEn` for every block (`copy_cube_out_utils.h`): negative results become 0
//! before the conversion to C's type (after the bias, before a quantisation).
//!
//! # Supported
//!
//! - A, B in GM, ND or NZ format; `isTrans` for A and B with 16-bit and `float` inputs, for B
//!   with `int8_t` (`int8_t` with `isTransA`, or without `isTransB`, needs `LoadData` with
//!   transpose of 8-bit fractals, not emulated: an error);
//! - inputs `half` → C `float`/`half`/`bfloat16_t`; `bfloat16_t` → `float`/`bfloat16_t`/`half`;
//!   `float` → `float`/`half`/`bfloat16_t` (Ascend910B); `int8_t` → `int32_t`;
//! - C in GM (ND or NZ) or in `VECIN`/`VECOUT`/`VECCALC` (ND), with `enAtomic` (atomic add);
//! - bias in GM (`float` or `half` for floating inputs, `int32_t` for `int8_t`), through the
//!   bias table (`baseN <= 256`);
//! - quantised C: `SetQuantScalar` / `SetQuantVector` for `int8_t` → `half`/`int8_t`/`uint8_t`
//!   and `half`/`bfloat16_t` → `int8_t`/`uint8_t`;
//! - ReLU on the way out (`enable_relu`);
//! - `Iterate` (sync and async) + `GetTensorC`, `IterateAll` (sync and async +
//!   `WaitIterateAll`), `SetOrgShape`, `SetSingleShape`, `SetTail`, `End`.
//!
//! Not supported (errors or absent): A/B in L1 (`TSCM`) or UB, batch matmul, user-managed
//! CO1, `enPartialSum`, an NZ C in the Unified Buffer, an NZ C of 8-bit elements, channel
//! split, `SetHF32`, the `VECTOR`/`SCALAR` (GEMV) formats.

use std::marker::PhantomData;
use std::sync::Arc;

pub use crate::adv::matmul_tiling::TCubeTiling;
use crate::cube::bias_table::data_copy_bias;
use crate::cube::fixpipe::{
    fixpipe, fixpipe_nz, fixpipe_nz_with_quant, fixpipe_with_quant, FixpipeOut, FixpipeParamsV220,
    QuantMode_t,
};
use crate::cube::load_data::{load_data, LoadData2DParams, LoadDataElement};
use crate::cube::mmad::{mmad, mmad_with_bias, MmadParams, MmadTypes, MAX_BIAS_BYTES};
use crate::cube::nd2nz::{data_copy_nd2nz, Nd2NzElement, Nd2NzParams};
use crate::element::{bf16, f16, DType, Element};
use crate::kernel::error::{ensure, fail};
use crate::memory::alloc::{LocalMemAllocator, L0A, L0B, L0C, L1};
use crate::memory::atomic::{set_atomic_add, set_atomic_none, AtomicElement};
use crate::memory::copy::{data_copy, data_copy_params, DataCopyParams};
use crate::memory::tensor::{GlobalTensor, GmRegion, LocalTensor};
use crate::position::{Co1, Position, TPosition, A1, A2, B1, B2};
use crate::sync::{
    event::{HardEvent, EVENT_ID0, EVENT_ID1, PIPE_ALL, PIPE_M},
    flags::{pipe_barrier, set_flag, wait_flag},
};

/// The data formats of a [`MatmulType`] (AscendC `CubeFormat`), as marker types.
pub mod cube_format {
    mod sealed {
        pub trait Sealed {}
    }
    /// A marker type for a `CubeFormat`.
    pub trait Format: sealed::Sealed + 'static {
        /// Whether it is the fractal NZ format.
        const NZ: bool;
        /// The vendor's name.
        const NAME: &'static str;
    }
    /// `CubeFormat::ND`: row-major.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct ND;
    /// `CubeFormat::NZ`: columns of 32 bytes, each a stack of 16-row fractals (see
    /// [`Matmul`](super::Matmul)'s module docs for the layout it reads and writes).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct NZ;
    impl sealed::Sealed for ND {}
    impl sealed::Sealed for NZ {}
    impl Format for ND {
        const NZ: bool = false;
        const NAME: &'static str = "ND";
    }
    impl Format for NZ {
        const NZ: bool = true;
        const NAME: &'static str = "NZ";
    }
}

use cube_format::Format;

/// One operand's description (AscendC `MatmulType<POSITION, FORMAT, TYPE, ISTRANS>`): where it
/// is ([`Gm`](crate::position::Gm), [`VecIn`](crate::position::VecIn), …), its format
/// ([`cube_format::ND`]), its element type and whether it is transposed (`IS_TRANS`, the
/// vendor's default `false`; [`Matmul::set_tensor_a`] takes the run-time flag).
pub struct MatmulType<P: Position, F: Format, T: Element, const IS_TRANS: bool = false>(
    PhantomData<(P, F, T)>,
);

/// What [`Matmul`] reads from a [`MatmulType`].
pub trait MatmulTypeInfo {
    /// The element type.
    type T: Element;
    /// The position.
    const POS: TPosition;
    /// Whether the format is NZ.
    const NZ: bool;
    /// The format's name.
    const FORMAT: &'static str;
    /// `IS_TRANS`.
    const IS_TRANS: bool;
}

impl<P: Position, F: Format, T: Element, const IS_TRANS: bool> MatmulTypeInfo
    for MatmulType<P, F, T, IS_TRANS>
{
    type T = T;
    const POS: TPosition = P::POS;
    const NZ: bool = F::NZ;
    const FORMAT: &'static str = F::NAME;
    const IS_TRANS: bool = IS_TRANS;
}

/// The `MatmulConfig` templates (the vendor's `CFG_NORM`, `CFG_MDL`, `matmul_config.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulConfig {
    /// The template: `"NORM"` or `"MDL"`.
    pub name: &'static str,
    /// `doNorm`.
    pub do_norm: bool,
    /// `doMultiDataLoad`.
    pub do_multi_data_load: bool,
    /// `enableRelu`: ReLU on C on its way out of L0C (the vendor's `Fixpipe` with `reluEn`,
    /// `copy_cube_out_utils.h`; default `false`).
    pub enable_relu: bool,
}

/// The vendor's `CFG_NORM` (`GetNormalConfig()`): one base block of A and B per L1 load.
pub const CFG_NORM: MatmulConfig =
    MatmulConfig { name: "NORM", do_norm: true, do_multi_data_load: false, enable_relu: false };
/// The vendor's `CFG_MDL` (`GetMDLConfig()`): `stepKa`/`stepKb` base blocks per L1 load.
pub const CFG_MDL: MatmulConfig =
    MatmulConfig { name: "MDL", do_norm: false, do_multi_data_load: true, enable_relu: false };

/// A marker type for a [`MatmulConfig`] in [`Matmul`]'s type parameters.
pub trait MatmulCfg: 'static {
    /// The configuration.
    const CFG: MatmulConfig;
}
/// [`CFG_NORM`] as a type parameter (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct CfgNorm;
/// [`CFG_MDL`] as a type parameter.
#[derive(Clone, Copy, Debug, Default)]
pub struct CfgMdl;
impl MatmulCfg for CfgNorm {
    const CFG: MatmulConfig = CFG_NORM;
}
impl MatmulCfg for CfgMdl {
    const CFG: MatmulConfig = CFG_MDL;
}

/// An input element type of [`Matmul`]: its L0C type and how its fractals are loaded.
pub trait MatmulInput: Nd2NzElement + LoadDataElement {
    /// The L0C (accumulator) type: `float`, or `int32_t` for `int8_t`.
    type L0c: Element + AtomicElement + crate::cube::bias_table::BiasTableOut<Self::L0c>;
    /// Elements per fractal row (32 bytes).
    const K0: usize = 32 / Self::SIZE;
}
impl MatmulInput for f16 {
    type L0c = f32;
}
impl MatmulInput for bf16 {
    type L0c = f32;
}
impl MatmulInput for i8 {
    type L0c = i32;
}
impl MatmulInput for f32 {
    type L0c = f32;
}

/// Where [`Matmul::get_tensor_c`] and [`Matmul::iterate_all`] can write C: a
/// [`GlobalTensor`] or a Unified Buffer [`LocalTensor`].
pub trait MatmulDst<C: Element> {
    /// Writes the block `data` (`rows × cols`, row-major, `cols` elements a row).
    #[doc(hidden)]
    fn put<L: Element + AtomicElement>(&self, w: &BlockWrite<'_, L>)
    where
        C: FixpipeOut<L>;
}

/// One block on its way out (internal).
#[doc(hidden)]
pub struct BlockWrite<'a, L: Element> {
    /// The block's L0C contents (NZ, `m1 × 16` rows a Z column).
    pub co1: &'a [L],
    /// Rows and columns.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Destination offset and row stride (elements) for GM; for UB the sequential flag picks.
    pub off: usize,
    /// Row stride of the destination.
    pub stride: usize,
    /// Atomic add.
    pub atomic: bool,
    /// The quantisation of C (`SetQuantScalar` / `SetQuantVector`): the scalar, or the
    /// block's `cols` values.
    pub quant: Option<BlockQuant<'a>>,
    /// NZ output (GM only): `stride` is then the 32-byte blocks between C's Z columns.
    pub nz: bool,
    /// ReLU on the way out (`MatmulConfig::enableRelu`).
    pub relu: bool,
}

/// The quantisation parameters of one block (internal).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum BlockQuant<'a> {
    /// `SetQuantScalar`.
    Scalar(u64),
    /// `SetQuantVector`: the block's columns.
    Vector(&'a [u64]),
}

/// The GM -> L1 copy of one tile of an NZ operand, as the vendor's `CopyNZ2NZImpl`
/// (`impl/adv_api/detail/matmul/stage/copy_cube_in/copy_tile_to_cube/data_copy_wrapper_utils.h`,
/// NPU architecture 2201): the stored matrix (`g_row` rows, its NZ columns of `C0 = 32 /
/// size_of::<T>()` elements each `⌈g_row⌉₁₆` rows high) gives the tile of `height × width`
/// elements from row `row`, column `col` (multiples of 16 and of `C0`), as one `DataCopy`
/// with `DataCopyParams { blockCount: ⌈width / C0⌉, blockLen: ⌈height⌉₁₆, srcStride:
/// ⌈g_row⌉₁₆ - ⌈height⌉₁₆, dstStride: 0 }` (one copy per column when the source gap does not fit
/// 16 bits, as the vendor's). L1 receives the tile in NZ with `⌈height⌉₁₆` rows a column, as
/// the ND → NZ copy leaves it. The tile's rows are read up to `⌈height⌉₁₆`: the GM tensor must
/// hold the padded NZ matrix.
#[track_caller]
fn nz2nz<T: Element>(
    dst: &LocalTensor<T>,
    src: &GlobalTensor<T>,
    row: usize,
    col: usize,
    height: usize,
    width: usize,
    g_row: usize,
) {
    let c0 = 32 / T::SIZE;
    let (ag, ah) = (g_row.div_ceil(16) * 16, height.div_ceil(16) * 16);
    let off = row * c0 + col * ag;
    let cols = width.div_ceil(c0);
    if ag - ah >= u16::MAX as usize {
        for i in 0..cols {
            data_copy_params(
                &dst.view(i * ah * c0),
                &src.view(off + i * ag * c0),
                &DataCopyParams::new(1, ah as u16, 0, 0),
            );
        }
    } else {
        let p = DataCopyParams::new(cols as u16, ah as u16, (ag - ah) as u16, 0);
        data_copy_params(dst, &src.view(off), &p);
    }
}

/// The L1 -> L0A/L0B loads of `float` data that transpose its 16 × 8 fractals: A from a
/// transposed (`K × M`) L1 copy into L0A's Zz, and B from an untransposed (`K × N`) L1 copy
/// into L0B's Zn. `LoadData` (2D) transposes 16-bit fractals only; on Ascend910B the vendor's
/// `Matmul` does these two with `LoadData` and `LoadData3DParamsV2Pro` (Load3Dv2, the
/// img2col load, `enTranspose = true` for A; `LoadToL0A`/`LoadToL0B` in
/// `impl/adv_api/detail/matmul/stage/split/load_to_l0a(b)/load_to_l0a(b)_loadInstr.h`), which
/// this crate does not emulate as an instruction. This helper moves the same elements: the
/// logical `n_r × n_c` matrix, element `(r, c)` from `src[src_at(r, c)]` to
/// `dst[dst_at(r, c)]`; padding is left as it is (`Mmad` never reads it). The sanitizer sees
/// one MTE1 access reading `src` and writing `dst`.
#[track_caller]
fn load_f32_transposed<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    n_r: usize,
    n_c: usize,
    src_at: impl Fn(usize, usize) -> usize,
    dst_at: impl Fn(usize, usize) -> usize,
) {
    if crate::observe::events::is_on() {
        let r = [crate::observe::sanitizer::Span::of(src, src.get_length())];
        let w = [crate::observe::sanitizer::Span::of(dst, dst.get_length())];
        crate::observe::events::on_cube(
            "LoadData (Load3Dv2)",
            crate::sync::event::pipe_t::PIPE_MTE1,
            &[],
            &r,
            &w,
            &[],
            false,
        );
    }
    let from = src.to_vec();
    let mut to = dst.to_vec();
    for r in 0..n_r {
        for c in 0..n_c {
            to[dst_at(r, c)] = from[src_at(r, c)];
        }
    }
    dst.copy_from_slice(&to);
}

/// Runs the block's `Fixpipe` on the cube side into `dst` (GM).
#[track_caller]
fn fixpipe_block<C: Element + FixpipeOut<L> + AtomicElement, L: Element + AtomicElement>(
    dst: &GlobalTensor<C>,
    w: &BlockWrite<'_, L>,
) {
    let quant = quant_mode::<L, C>(w.quant);
    let (rows, cols) = (w.rows, w.cols);
    crate::kernel::ctx::run_on_cube_side(|| {
        let mut l0c = LocalMemAllocator::<L0C>::new();
        let mut l1 = LocalMemAllocator::<L1>::new();
        let c = l0c.alloc_at::<Co1, L>(w.co1.len());
        c.copy_from_slice(w.co1);
        pipe_barrier::<PIPE_ALL>();
        if w.atomic {
            set_atomic_add::<C>();
        }
        let m1 = rows.div_ceil(16);
        let p = FixpipeParamsV220::new(
            cols as u16,
            rows as u16,
            (m1 * 16) as u16,
            w.stride as u32,
            w.relu,
            quant,
            match w.quant {
                Some(BlockQuant::Scalar(q)) => q,
                _ => 0,
            },
            1,
            0,
            0,
            0,
        );
        match w.quant {
            Some(BlockQuant::Vector(v)) => {
                // The block's parameters GM -> L1 (C1); Fixpipe reads them from there.
                let q = l1.alloc_at::<crate::position::C1, u64>(v.len().div_ceil(4) * 4);
                q.copy_from_slice(v);
                pipe_barrier::<PIPE_ALL>();
                if w.nz {
                    fixpipe_nz_with_quant(&dst.view(w.off), &c, &q, &p);
                } else {
                    fixpipe_with_quant(&dst.view(w.off), &c, &q, &p);
                }
            }
            _ if w.nz => fixpipe_nz(&dst.view(w.off), &c, &p),
            _ => fixpipe(&dst.view(w.off), &c, &p),
        }
        if w.atomic {
            set_atomic_none();
        }
        pipe_barrier::<PIPE_ALL>();
    });
}

impl<C: Element + AtomicElement> MatmulDst<C> for GlobalTensor<C> {
    #[track_caller]
    fn put<L: Element + AtomicElement>(&self, w: &BlockWrite<'_, L>)
    where
        C: FixpipeOut<L>,
    {
        fixpipe_block(self, w);
    }
}

impl<C: Element + AtomicElement> MatmulDst<C> for LocalTensor<C> {
    #[track_caller]
    fn put<L: Element + AtomicElement>(&self, w: &BlockWrite<'_, L>)
    where
        C: FixpipeOut<L>,
    {
        ensure(self.get_position().is_ub(), "Matmul::GetTensorC", || {
            format!(
                "the destination is at position {}: a LocalTensor destination of C must be in the Unified Buffer \
                 (VECIN, VECOUT or VECCALC)",
                self.get_position()
            )
        });
        ensure(!w.atomic, "Matmul::GetTensorC", || {
            "enAtomic = true with a Unified Buffer destination: atomic add applies to GM only".to_string()
        });
        // AIC: Fixpipe into the GM workspace (row stride `w.stride`); AIV: DataCopy into UB.
        let len = (w.rows - 1) * w.stride + w.cols.div_ceil(32 / C::SIZE) * (32 / C::SIZE);
        let need = (w.off + len) * C::SIZE;
        let ws = workspace(need);
        let mut gm = GlobalTensor::<C>::new();
        gm.set_global_buffer(ws.addr(), ws.size() / C::SIZE);
        fixpipe_block(&gm, &BlockWrite { atomic: false, ..*w });
        let block = 32 / C::SIZE;
        if w.stride == w.cols.div_ceil(block) * block {
            // Sequential: the block's rows back to back.
            data_copy(&self.view(w.off), &gm.view(w.off), len);
        } else {
            // At its place in a wider matrix: only the block's columns.
            ensure(w.cols % block == 0 && w.stride % block == 0, "Matmul::GetTensorC", || {
                format!(
                    "the block's {} columns (row stride {}) are not whole 32-byte blocks of {}: use enSequentialWrite = true",
                    w.cols,
                    w.stride,
                    C::DTYPE
                )
            });
            let gap = ((w.stride - w.cols) / block) as u16;
            let p = DataCopyParams::new(w.rows as u16, (w.cols / block) as u16, gap, gap);
            data_copy_params(&self.view(w.off), &gm.view(w.off), &p);
        }
    }
}

thread_local! {
    /// The GM workspaces of `GetTensorC` to the Unified Buffer, by block index: a core of a
    /// launch runs on one thread at a time, so a (thread, block index) pair is never two live
    /// cores; the regions stay alive (and their addresses distinct) across launches, so the
    /// sanitizer's per-address GM log never sees two cores share one.
    static WORKSPACES: std::cell::RefCell<std::collections::HashMap<u32, Arc<GmRegion>>> = Default::default();
}

/// This core's `Matmul` workspace in GM, at least `bytes` long (the vendor's part of the
/// system workspace, `GetSysWorkSpacePtr`, that carries a `VECIN` C from the AIC to the AIV).
fn workspace(bytes: usize) -> Arc<GmRegion> {
    let idx = crate::kernel::ctx::get_block_idx();
    WORKSPACES.with(|w| {
        let mut w = w.borrow_mut();
        let slot = w.entry(idx).or_insert_with(|| GmRegion::zeroed(bytes.max(32)));
        if slot.size() < bytes {
            *slot = GmRegion::zeroed(bytes);
        }
        Arc::clone(slot)
    })
}

/// The `Fixpipe` conversion from L0C's `L` to C's `C`, with the quantisation `quant` set by
/// `SetQuantScalar` / `SetQuantVector`.
#[track_caller]
fn quant_mode<L: Element, C: Element>(quant: Option<BlockQuant<'_>>) -> QuantMode_t {
    use QuantMode_t::*;
    let (l, c) = (L::DTYPE, C::DTYPE);
    let plain = match (l, c) {
        (DType::F32, DType::F32) | (DType::I32, DType::I32) => Some(NoQuant),
        (DType::F32, DType::F16) => Some(F322F16),
        (DType::F32, DType::BF16) => Some(F322BF16),
        _ => None,
    };
    let quantised = match (l, c) {
        (DType::I32, DType::F16) => Some((DEQF16, VDEQF16)),
        (DType::I32, DType::I8 | DType::U8) => Some((REQ8, VREQ8)),
        (DType::F32, DType::I8 | DType::U8) => Some((QF322B8_PRE, VQF322B8_PRE)),
        _ => None,
    };
    match (plain, quantised, quant) {
        (Some(mode), _, None) => mode,
        (_, Some((s, _)), Some(BlockQuant::Scalar(_))) => s,
        (_, Some((_, v)), Some(BlockQuant::Vector(_))) => v,
        (_, Some(_), None) => fail(
            "Matmul",
            format!(
                "C = {c} from an L0C of {l} is quantised: call SetQuantScalar or SetQuantVector before the block is \
                 moved out"
            ),
        ),
        (Some(_), _, Some(_)) => fail(
            "Matmul",
            format!(
                "SetQuantScalar / SetQuantVector was called, but C = {c} from an L0C of {l} is not quantised (the \
                 quantised pairs: int32_t -> half/int8_t/uint8_t, float -> int8_t/uint8_t)"
            ),
        ),
        (None, None, _) => fail("Matmul", format!("C = {c} from an L0C of {l}: Fixpipe has no such conversion")),
    }
}

/// One computed `baseM × baseN` block: its position in the core's C, its size, and its L0C
/// contents (NZ, exact as `f64`: every `float` and `int32_t` is).
#[derive(Clone, Debug)]
struct Block {
    mi: usize,
    ni: usize,
    rows: usize,
    cols: usize,
    co1: Vec<f64>,
}

/// The high-level matrix multiply (AscendC `Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, CFG>`):
/// see the [module](self) docs for what it computes and how. `BIAS` defaults to a `float`
/// bias in GM and `CFG` to [`CfgNorm`].
pub struct Matmul<A, B, C, BIAS = MatmulType<crate::position::Gm, cube_format::ND, f32>, CFG = CfgNorm>
where
    A: MatmulTypeInfo,
    B: MatmulTypeInfo,
    C: MatmulTypeInfo,
    BIAS: MatmulTypeInfo,
    CFG: MatmulCfg,
{
    tiling: Option<TCubeTiling>,
    a: Option<(GlobalTensor<A::T>, bool)>,
    b: Option<(GlobalTensor<B::T>, bool)>,
    bias: Option<GlobalTensor<BIAS::T>>,
    /// `SetQuantScalar` / `SetQuantVector`.
    quant: Option<MmQuant>,
    /// orgM, orgN, orgKa, orgKb.
    org: (usize, usize, usize, usize),
    /// singleCoreM, singleCoreN, singleCoreK.
    single: (usize, usize, usize),
    /// The next block `Iterate` computes.
    next: usize,
    /// The block of the last synchronous `Iterate`, until `GetTensorC` moves it out.
    cur: Option<Block>,
    /// Blocks of an asynchronous `Iterate`, moved out in order by `GetTensorC`.
    pending: std::collections::VecDeque<Block>,
    /// An asynchronous `IterateAll` waits for `WaitIterateAll`.
    async_all: bool,
    ended: bool,
    _t: PhantomData<(C, CFG)>,
}

impl<A, B, C, BIAS, CFG> Default for Matmul<A, B, C, BIAS, CFG>
where
    A: MatmulTypeInfo,
    B: MatmulTypeInfo,
    C: MatmulTypeInfo,
    BIAS: MatmulTypeInfo,
    CFG: MatmulCfg,
{
    fn default() -> Self {
        Matmul {
            tiling: None,
            a: None,
            b: None,
            bias: None,
            quant: None,
            org: (0, 0, 0, 0),
            single: (0, 0, 0),
            next: 0,
            cur: None,
            pending: Default::default(),
            async_all: false,
            ended: false,
            _t: PhantomData,
        }
    }
}

/// `REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &tiling1, mm2, &tiling2, …)`: initialises each
/// `Matmul` object with its tiling ([`Matmul::init`]). On the cube core (AIC) of a mixed
/// kernel the vendor's macro never returns (it runs the `Matmul` server); a port ends the
/// AIC's kernel right after it with `if is_matmul_server() { return; }`. The pipe and the
/// system workspace are
/// evaluated and otherwise unused: the cube side of this emulator needs neither (on the chip
/// the workspace carries the AIV ↔ AIC messages and the `VECIN` outputs).
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::adv::matmul_tiling::TCubeTiling;
/// let mut t = TCubeTiling::default();
/// (t.M, t.N, t.Ka, t.Kb, t.singleCoreM, t.singleCoreN, t.singleCoreK) = (16, 16, 16, 16, 16, 16, 16);
/// (t.baseM, t.baseN, t.baseK, t.usedCoreNum) = (16, 16, 16, 1);
/// let mut mm = Matmul::<
///     MatmulType<Gm, cube_format::ND, f16>,
///     MatmulType<Gm, cube_format::ND, f16>,
///     MatmulType<Gm, cube_format::ND, f32>,
/// >::new();
/// regist_matmul_obj!((), (), mm, &t);
/// ```
///
/// # Panics
/// As [`Matmul::init`].
#[macro_export]
macro_rules! regist_matmul_obj {
    ($pipe:expr, $workspace:expr $(, $mm:expr, $tiling:expr)+ $(,)?) => {{
        let _ = &$pipe;
        let _ = &$workspace;
        $( $mm.init($tiling); )+
    }};
}

/// Whether the current core is the cube core (AIC) of a mixed kernel
/// (`KernelType::MixAic1_1`/`MixAic1_2`), where the vendor's `REGIST_MATMUL_OBJ` runs the
/// `Matmul` server loop and never returns to the kernel: [`regist_matmul_obj!`] returns from
/// the kernel there. The AIV's `Matmul` calls run their cube work to completion on the
/// block's cube side (the AIV ↔ AIC messages modelled by their semantics), so the AIC has
/// nothing left to do. In a cube-only kernel (`__cube__`, `KernelType::AicOnly`) the AIC runs
/// the kernel's own `Matmul` calls and this is `false`.
///
/// ```
/// use ascend_core::prelude::*;
/// assert!(!is_matmul_server());
/// ```
pub fn is_matmul_server() -> bool {
    crate::kernel::ctx::with_core(|c| c.kernel_type.is_some_and(|k| k.is_mix()))
        && crate::kernel::ctx::ascend_is_aic()
}

const API_INIT: &str = "Matmul::Init";

impl<A, B, C, BIAS, CFG> Matmul<A, B, C, BIAS, CFG>
where
    A: MatmulTypeInfo,
    A::T: MatmulInput,
    B: MatmulTypeInfo<T = A::T>,
    C: MatmulTypeInfo,
    C::T: FixpipeOut<<A::T as MatmulInput>::L0c> + AtomicElement,
    BIAS: MatmulTypeInfo,
    (<A::T as MatmulInput>::L0c, A::T, A::T): MmadTypes,
    CFG: MatmulCfg,
{
    /// A `Matmul` object, not initialised yet ([`init`](Self::init) or
    /// [`regist_matmul_obj!`](crate::regist_matmul_obj)).
    pub fn new() -> Self {
        Self::default()
    }

    /// `Init(&tiling)`: takes the tiling (shapes, base block, iteration order) and resets
    /// the object.
    ///
    /// # Panics
    /// Panics if A/B are not in GM (not supported here); C is not in GM or the Unified Buffer,
    /// or is NZ outside GM or of 8-bit elements; `float` inputs with a C other than `float`,
    /// `half` or `bfloat16_t`; the chip has no `Mmad` for the input type; or the tiling is
    /// inconsistent: a size not positive, `baseM`/`baseN` not multiples of 16 or `baseK` not a
    /// multiple of the fractal's `K0`, or a base block that does not fit L0A, L0B or L0C.
    #[track_caller]
    pub fn init(&mut self, tiling: &TCubeTiling) {
        let t = *tiling;
        if C::NZ {
            // NZ C: Fixpipe without NZ2ND into GM. The vendor's VECIN NZ C and its 32-wide
            // int8_t NZ columns are not emulated.
            ensure(C::POS == TPosition::GM, API_INIT, || {
                format!(
                    "C is NZ at position {}: an NZ C goes to GM only here (NZ into VECIN is not emulated)",
                    C::POS
                )
            });
            ensure(<C::T as Element>::SIZE != 1, API_INIT, || {
                format!(
                    "C is NZ of {}: an NZ C of 8-bit elements (32-element Z columns) is not emulated; NZ C takes \
                     float, half, bfloat16_t or int32_t",
                    <C::T as Element>::DTYPE
                )
            });
        }
        for (side, pos) in [("A", A::POS), ("B", B::POS), ("BIAS", BIAS::POS)] {
            ensure(pos == TPosition::GM, API_INIT, || {
                format!("{side} is at position {pos}: this Matmul takes A, B and the bias from GM (TSCM/VECOUT inputs are not emulated)")
            });
        }
        ensure(C::POS == TPosition::GM || C::POS.is_ub(), API_INIT, || {
            format!("C is at position {}: C goes to GM or to VECIN/VECOUT/VECCALC", C::POS)
        });
        let soc = crate::kernel::ctx::get_soc();
        ensure(
            <(<A::T as MatmulInput>::L0c, A::T, A::T) as MmadTypes>::mmad_supported(soc),
            API_INIT,
            || {
                format!(
                    "A/B = {} is not supported on {soc}: the chip's Mmad has no such input",
                    <A::T as Element>::DTYPE
                )
            },
        );
        if <A::T as Element>::DTYPE == DType::F32 {
            // The vendor's type table (`Matmul使用说明.md`, table 2): float A/B give a float,
            // half or bfloat16_t C, from a float or half bias.
            ensure(
                matches!(<C::T as Element>::DTYPE, DType::F32 | DType::F16 | DType::BF16),
                API_INIT,
                || {
                    format!(
                        "A/B = float with C = {}: float inputs give a float, half or bfloat16_t C",
                        <C::T as Element>::DTYPE
                    )
                },
            );
        }
        // A function, not a closure: `#[track_caller]` makes the fault point at the kernel.
        #[track_caller]
        fn pos(name: &str, v: i32) -> usize {
            ensure(v > 0, API_INIT, || format!("tiling.{name} = {v} must be positive"));
            v as usize
        }
        let (m, n, ka, kb) = (pos("M", t.M), pos("N", t.N), pos("Ka", t.Ka), pos("Kb", t.Kb));
        let (sm, sn, sk) = (
            pos("singleCoreM", t.singleCoreM),
            pos("singleCoreN", t.singleCoreN),
            pos("singleCoreK", t.singleCoreK),
        );
        let (bm, bn, bk) = (pos("baseM", t.baseM), pos("baseN", t.baseN), pos("baseK", t.baseK));
        let k0 = <A::T as MatmulInput>::K0;
        ensure(bm % 16 == 0 && bn % 16 == 0, API_INIT, || {
            format!("tiling.baseM = {bm} and baseN = {bn} must be multiples of 16 (the fractal's rows)")
        });
        ensure(bk % k0 == 0, API_INIT, || {
            format!(
                "tiling.baseK = {bk} must be a multiple of {k0} (the fractal's K0 for {})",
                <A::T as Element>::DTYPE
            )
        });
        ensure(t.iterateOrder == 0 || t.iterateOrder == 1, API_INIT, || {
            format!("tiling.iterateOrder = {}: must be 0 (M first) or 1 (N first)", t.iterateOrder)
        });
        let es = <A::T as Element>::SIZE;
        let l0 = |mem| soc.memory_size(mem);
        use crate::position::Memory;
        // `float` A loaded transposed has K padded to 16 in L0A (and B's K in L0B).
        let bk = if es == 4 { bk.div_ceil(16) * 16 } else { bk };
        let kp = if es == 4 { " (K padded to 16 for float)" } else { "" };
        ensure(bm * bk * es <= l0(Memory::L0A), API_INIT, || {
            format!(
                "baseM × baseK = {bm} × {bk}{kp} {} do not fit L0A ({} bytes)",
                <A::T as Element>::DTYPE,
                l0(Memory::L0A)
            )
        });
        ensure(bk * bn * es <= l0(Memory::L0B), API_INIT, || {
            format!(
                "baseK × baseN = {bk}{kp} × {bn} {} do not fit L0B ({} bytes)",
                <A::T as Element>::DTYPE,
                l0(Memory::L0B)
            )
        });
        ensure(bm * bn * 4 <= l0(Memory::L0C), API_INIT, || {
            format!("baseM × baseN = {bm} × {bn} 32-bit results do not fit L0C ({} bytes)", l0(Memory::L0C))
        });
        *self = Self::default();
        self.tiling = Some(t);
        self.org = (m, n, ka, kb);
        self.single = (sm, sn, sk);
    }

    #[track_caller]
    fn tiling(&self, api: &'static str) -> TCubeTiling {
        ensure(!self.ended, api, || "the Matmul object was ended (End was called)".to_string());
        match self.tiling {
            Some(t) => t,
            None => fail(api, "the Matmul object is not initialised: call REGIST_MATMUL_OBJ or Init first"),
        }
    }

    /// `SetTensorA(gm, isTransposeA)`: A's (this core's) first element in GM; with
    /// `is_transpose` GM holds Aᵀ (`K × M`).
    ///
    /// # Panics
    /// Panics if the object is not initialised, or `is_transpose` with `int8_t` (8-bit
    /// fractal transposes are not emulated).
    #[track_caller]
    pub fn set_tensor_a(&mut self, gm: &GlobalTensor<A::T>, is_transpose: bool) {
        self.tiling("Matmul::SetTensorA");
        ensure(!is_transpose || <A::T as Element>::SIZE != 1, "Matmul::SetTensorA", || {
            format!(
                "isTransposeA = true with {} inputs: the transposing load of 8-bit fractals is not emulated",
                <A::T as Element>::DTYPE
            )
        });
        self.a = Some((gm.clone(), is_transpose || A::IS_TRANS));
        self.next = 0;
    }

    /// `SetTensorB(gm, isTransposeB)`: B's first element in GM; with `is_transpose` GM holds
    /// Bᵀ (`N × K`).
    ///
    /// # Panics
    /// Panics if the object is not initialised, or `int8_t` without `is_transpose` (8-bit
    /// fractal transposes are not emulated: store B as `N × K`).
    #[track_caller]
    pub fn set_tensor_b(&mut self, gm: &GlobalTensor<B::T>, is_transpose: bool) {
        self.tiling("Matmul::SetTensorB");
        let trans = is_transpose || B::IS_TRANS;
        ensure(trans || <A::T as Element>::SIZE != 1, "Matmul::SetTensorB", || {
            format!(
                "isTransposeB = false with {} inputs: the transposing load of 8-bit fractals is not emulated; store B \
                 transposed (N x K) and pass isTransposeB = true",
                <A::T as Element>::DTYPE
            )
        });
        self.b = Some((gm.clone(), trans));
        self.next = 0;
    }

    /// `SetBias(gm)`: the bias row (`N` elements from this core's first column), added to
    /// every row of C.
    ///
    /// # Panics
    /// Panics if the object is not initialised.
    #[track_caller]
    pub fn set_bias(&mut self, gm: &GlobalTensor<BIAS::T>) {
        self.tiling("Matmul::SetBias");
        self.bias = Some(gm.clone());
    }

    /// `DisableBias()`: no bias from now on.
    pub fn disable_bias(&mut self) {
        self.bias = None;
    }

    /// `SetQuantScalar(quantScalar)`: C is quantised with one parameter for every column —
    /// `DEQF16` for an `int32_t` L0C into a `half` C, `REQ8` into `int8_t`/`uint8_t`,
    /// `QF322B8_PRE` for a `float` L0C into `int8_t`/`uint8_t`. `quant_scalar`'s bits are
    /// `Fixpipe`'s `deqScalar` (see [`fixpipe`](crate::cube::fixpipe)): the scale in bits
    /// 31..13 (a `float`'s bits, low mantissa bits dropped), the offset, the sign bit 46 (set
    /// for an `int8_t` C).
    ///
    /// # Panics
    /// Panics if the object is not initialised. A parameter the `Fixpipe` rejects fails when a
    /// block is moved out.
    #[track_caller]
    pub fn set_quant_scalar(&mut self, quant_scalar: u64) {
        self.tiling("Matmul::SetQuantScalar");
        self.quant = Some(MmQuant::Scalar(quant_scalar));
    }

    /// `SetQuantVector(quantTensor)`: C is quantised with one parameter per column of this
    /// core's C (`N` values from this core's first column, as [`set_bias`](Self::set_bias)),
    /// each laid out as [`set_quant_scalar`](Self::set_quant_scalar)'s: `VDEQF16`, `VREQ8` or
    /// `VQF322B8_PRE`.
    ///
    /// # Panics
    /// Panics if the object is not initialised or `gm` is unbound.
    #[track_caller]
    pub fn set_quant_vector(&mut self, gm: &GlobalTensor<u64>) {
        self.tiling("Matmul::SetQuantVector");
        let _ = gm.base_ptr("Matmul::SetQuantVector");
        self.quant = Some(MmQuant::Vector(gm.clone()));
    }

    /// `SetOrgShape(orgM, orgN, orgK)`: the full matrices' sizes (the row strides of A, B, C).
    ///
    /// # Panics
    /// Panics if the object is not initialised or a size is 0.
    #[track_caller]
    pub fn set_org_shape(&mut self, org_m: usize, org_n: usize, org_k: usize) {
        self.set_org_shape_ka_kb(org_m, org_n, org_k, org_k);
    }

    /// `SetOrgShape(orgM, orgN, orgKa, orgKb)`: as [`set_org_shape`](Self::set_org_shape)
    /// with A's and B's K sizes apart.
    ///
    /// # Panics
    /// Panics if the object is not initialised or a size is 0.
    #[track_caller]
    pub fn set_org_shape_ka_kb(&mut self, org_m: usize, org_n: usize, org_ka: usize, org_kb: usize) {
        self.tiling("Matmul::SetOrgShape");
        ensure(org_m > 0 && org_n > 0 && org_ka > 0 && org_kb > 0, "Matmul::SetOrgShape", || {
            format!("orgM = {org_m}, orgN = {org_n}, orgKa = {org_ka}, orgKb = {org_kb}: every size must be positive")
        });
        self.org = (org_m, org_n, org_ka, org_kb);
    }

    /// `SetSingleShape(singleM, singleN, singleK)`: this core's block of C and its K.
    ///
    /// # Panics
    /// Panics if the object is not initialised or a size is 0.
    #[track_caller]
    pub fn set_single_shape(&mut self, single_m: usize, single_n: usize, single_k: usize) {
        self.tiling("Matmul::SetSingleShape");
        ensure(single_m > 0 && single_n > 0 && single_k > 0, "Matmul::SetSingleShape", || {
            format!("singleM = {single_m}, singleN = {single_n}, singleK = {single_k}: every size must be positive")
        });
        self.single = (single_m, single_n, single_k);
        self.next = 0;
    }

    /// `SetTail(tailM, tailN, tailK)`: this core's block is smaller than the tiling's (the
    /// last core's); `-1` keeps a size.
    ///
    /// # Panics
    /// Panics if the object is not initialised or a size is 0 or below -1.
    #[track_caller]
    pub fn set_tail(&mut self, tail_m: i32, tail_n: i32, tail_k: i32) {
        self.tiling("Matmul::SetTail");
        // A function, not a closure: `#[track_caller]` makes the fault point at the kernel.
        #[track_caller]
        fn pick(v: i32, old: usize, name: &str) -> usize {
            ensure(v == -1 || v > 0, "Matmul::SetTail", || {
                format!("{name} = {v}: must be positive or -1 (keep)")
            });
            if v == -1 {
                old
            } else {
                v as usize
            }
        }
        let (m, n, k) = self.single;
        self.single = (pick(tail_m, m, "tailM"), pick(tail_n, n, "tailN"), pick(tail_k, k, "tailK"));
        self.next = 0;
    }

    /// The number of base blocks along M and N.
    fn blocks(&self, t: &TCubeTiling) -> (usize, usize) {
        let (sm, sn, _) = self.single;
        (sm.div_ceil(t.baseM as usize), sn.div_ceil(t.baseN as usize))
    }

    /// Block `idx`'s (mi, ni) in the tiling's iteration order.
    fn block_at(&self, t: &TCubeTiling, idx: usize) -> (usize, usize) {
        let (mb, nb) = self.blocks(t);
        if t.iterateOrder == 0 {
            (idx % mb, idx / mb)
        } else {
            (idx / nb, idx % nb)
        }
    }

    /// Computes block `(mi, ni)` on the cube side: returns its L0C contents.
    #[track_caller]
    fn compute(&self, api: &'static str, t: &TCubeTiling, mi: usize, ni: usize) -> Block {
        let Some((a_gm, trans_a)) = self.a.clone() else { fail(api, "SetTensorA was not called") };
        let Some((b_gm, trans_b)) = self.b.clone() else { fail(api, "SetTensorB was not called") };
        let (bm, bn, bk) = (t.baseM as usize, t.baseN as usize, t.baseK as usize);
        let (sm, sn, sk) = self.single;
        let (org_m, org_n, org_ka, org_kb) = self.org;
        // An ND operand moves GM -> L1 with `DataCopy` ND2NZ, whose `srcDValue` (the operand's
        // row length in GM) is a `uint16_t`. Ascend910B's `Matmul` assigns it as it is
        // (`data_copy_wrapper_nd.h`, `CopyND2NZ`: rows are copied one at a time only with
        // `intrinsicsCheck`, which this crate does not model), so a longer row would be
        // truncated on the chip: an error here.
        for (nz, trans, name, d) in [
            (A::NZ, trans_a, if trans_a { "orgM" } else { "orgKa" }, if trans_a { org_m } else { org_ka }),
            (B::NZ, trans_b, if trans_b { "orgKb" } else { "orgN" }, if trans_b { org_kb } else { org_n }),
        ] {
            ensure(nz || d <= u16::MAX as usize, api, || {
                format!(
                    "{name} = {d} (an ND {} operand{}): the GM -> L1 ND2NZ copy's srcDValue is a uint16_t, \
                     at most 65535; the vendor's Matmul would truncate it",
                    if name == "orgM" || name == "orgKa" { "A" } else { "B" },
                    if trans { ", transposed" } else { "" }
                )
            });
        }
        let (m0, n0) = (mi * bm, ni * bn);
        let (rows, cols) = (bm.min(sm - m0), bn.min(sn - n0));
        let k0 = <A::T as MatmulInput>::K0;
        let frac = 512 / <A::T as Element>::SIZE;
        let (m1, n1) = (rows.div_ceil(16), cols.div_ceil(16));
        let is_f32 = <A::T as Element>::DTYPE == DType::F32;
        let bias: Option<Vec<<A::T as MatmulInput>::L0c>> = self.bias.as_ref().map(|g| {
            (0..cols)
                .map(|j| <<A::T as MatmulInput>::L0c as Element>::from_f64(g.get_value(n0 + j).to_f64()))
                .collect()
        });
        type L<T> = <T as MatmulInput>::L0c;
        let co1 = crate::kernel::ctx::run_on_cube_side(|| {
            let (mut l1, mut l0a, mut l0b, mut l0c) = (
                LocalMemAllocator::<L1>::new(),
                LocalMemAllocator::<L0A>::new(),
                LocalMemAllocator::<L0B>::new(),
                LocalMemAllocator::<L0C>::new(),
            );
            let pad = |x: usize, to: usize| x.div_ceil(to) * to;
            let a_len = pad(bm, 32) * pad(bk, 32);
            let b_len = pad(bn, 32) * pad(bk, 32);
            let a1 = l1.alloc_at::<A1, A::T>(a_len);
            let b1 = l1.alloc_at::<B1, A::T>(b_len);
            let a2 = l0a.alloc_at::<A2, A::T>(pad(bm, 16) * pad(bk, k0.max(16)));
            let b2 = l0b.alloc_at::<B2, A::T>(pad(bn, 16) * pad(bk, k0.max(16)));
            let c = l0c.alloc_at::<Co1, L<A::T>>(m1 * n1 * 256);
            // The bias: L1 (C1) -> the bias table (C2), 64-byte blocks.
            let bias_bt = bias.as_ref().map(|bias| {
                let per = 64 / <L<A::T> as Element>::SIZE;
                let len = cols.div_ceil(per) * per;
                ensure(len * <L<A::T> as Element>::SIZE <= MAX_BIAS_BYTES, api, || {
                    format!(
                        "baseN = {bn} with a bias: the block's {cols} bias values of {} do not fit the bias table \
                         ({MAX_BIAS_BYTES} bytes)",
                        <L<A::T> as Element>::DTYPE
                    )
                });
                let c1 = l1.alloc_at::<crate::position::C1, L<A::T>>(len);
                let mut v = bias.clone();
                v.resize(len, <L<A::T> as Element>::ZERO);
                c1.copy_from_slice(&v);
                pipe_barrier::<PIPE_ALL>();
                let bt = LocalTensor::<L<A::T>>::new(crate::position::TPosition::C2, 0, len);
                data_copy_bias(&bt, &c1, &DataCopyParams::new(1, (len / per) as u16, 0, 0));
                set_flag::<HardEvent::MTE1_M>(EVENT_ID1);
                wait_flag::<HardEvent::MTE1_M>(EVENT_ID1);
                bt
            });
            let slices = sk.div_ceil(bk);
            for ki in 0..slices {
                let kk0 = ki * bk;
                let depth = bk.min(sk - kk0);
                let k1 = depth.div_ceil(k0);
                // GM -> L1 (ND -> NZ): `n` rows of `d` elements at `off`, `src_d` apart in GM,
                // into NZ fractals of `dst_n` rows.
                let nd2nz =
                    |dst, src: &GlobalTensor<_>, off, n: usize, d: usize, src_d: usize, dst_n: usize| {
                        let p = Nd2NzParams::new(1, n as u16, d as u16, 0, src_d as u16, dst_n as u16, 1, 0);
                        data_copy_nd2nz(dst, &src.view(off), &p);
                    };
                // A (rows x depth) or Aᵀ (depth x rows); B (depth x cols) or Bᵀ (cols x depth).
                match (A::NZ, trans_a) {
                    (false, false) => nd2nz(&a1, &a_gm, m0 * org_ka + kk0, rows, depth, org_ka, m1 * 16),
                    (false, true) => {
                        nd2nz(&a1, &a_gm, kk0 * org_m + m0, depth, rows, org_m, depth.div_ceil(16) * 16)
                    }
                    (true, false) => nz2nz::<A::T>(&a1, &a_gm, m0, kk0, rows, depth, org_m),
                    (true, true) => nz2nz::<A::T>(&a1, &a_gm, kk0, m0, depth, rows, org_ka),
                }
                match (B::NZ, trans_b) {
                    (false, false) => {
                        nd2nz(&b1, &b_gm, kk0 * org_n + n0, depth, cols, org_n, depth.div_ceil(16) * 16)
                    }
                    (false, true) => nd2nz(&b1, &b_gm, n0 * org_kb + kk0, cols, depth, org_kb, n1 * 16),
                    (true, false) => nz2nz::<A::T>(&b1, &b_gm, kk0, n0, depth, cols, org_kb),
                    (true, true) => nz2nz::<A::T>(&b1, &b_gm, n0, kk0, cols, depth, org_n),
                }
                set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
                // `float` A from a transposed L1 copy, and `float` B from an untransposed one:
                // the vendor's Load3Dv2 with the transpose (see `load_f32_transposed`).
                let f32_trans_a = is_f32 && trans_a;
                if f32_trans_a {
                    // Aᵀ (depth × rows) in L1 -> A in L0A, K padded to 16.
                    let h = depth.div_ceil(16) * 16;
                    let k1a = depth.div_ceil(16) * 2;
                    load_f32_transposed(
                        &a2,
                        &a1,
                        rows,
                        depth,
                        |i, kk| (i / 8) * h * 8 + kk * 8 + i % 8,
                        |i, kk| ((i / 16) * k1a + kk / 8) * 128 + (i % 16) * 8 + kk % 8,
                    );
                }
                if is_f32 && !trans_b {
                    // B (depth × cols) in L1 -> Zn in L0B.
                    let h = depth.div_ceil(16) * 16;
                    load_f32_transposed(
                        &b2,
                        &b1,
                        depth,
                        cols,
                        |kk, j| (j / 8) * h * 8 + kk * 8 + j % 8,
                        |kk, j| ((kk / 8) * n1 + j / 16) * 128 + (j % 16) * 8 + kk % 8,
                    );
                }
                // L1 -> L0A (Zz), one fractal row at a time.
                for i in (0..m1).filter(|_| !f32_trans_a) {
                    let p = if !trans_a {
                        LoadData2DParams::new(0, k1 as u8, m1 as u16, 0, 0, false, 0)
                    } else {
                        LoadData2DParams::new(0, k1 as u8, 1, 0, 0, true, 0)
                    };
                    let src = if !trans_a { a1.view(i * frac) } else { a1.view(i * k1 * frac) };
                    load_data(&a2.view(i * k1 * frac), &src, &p);
                }
                // L1 -> L0B (Zn), one fractal row (of K) at a time.
                for kr in (0..k1).filter(|_| !is_f32 || trans_b) {
                    if !trans_b {
                        let p = LoadData2DParams::new(0, n1 as u8, k1 as u16, 0, 0, true, 0);
                        load_data(&b2.view(kr * n1 * frac), &b1.view(kr * frac), &p);
                    } else {
                        let p = LoadData2DParams::new(0, n1 as u8, 1, 0, 0, false, 0);
                        load_data(&b2.view(kr * n1 * frac), &b1.view(kr * n1 * frac), &p);
                    }
                }
                set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
                wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
                set_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);
                wait_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);
                let init = ki == 0 && bias.is_none();
                if ki > 0 {
                    pipe_barrier::<PIPE_M>();
                }
                let mut params = MmadParams::new(rows as u16, cols as u16, depth as u16, 0, false, init);
                // The vendor's MmadCompute: `float` A loaded transposed has K padded to 16.
                params.k_direction_align = f32_trans_a;
                match &bias_bt {
                    // The first slice starts from the bias table (cmatrixInitVal = false).
                    Some(bt) if ki == 0 => mmad_with_bias(&c, &a2, &b2, bt, &params),
                    _ => mmad(&c, &a2, &b2, &params),
                }
                set_flag::<HardEvent::M_MTE1>(EVENT_ID0);
                wait_flag::<HardEvent::M_MTE1>(EVENT_ID0);
            }
            pipe_barrier::<PIPE_ALL>();
            c.to_vec().into_iter().map(|x| x.to_f64()).collect::<Vec<f64>>()
        });
        Block { mi, ni, rows, cols, co1 }
    }

    /// Writes `blk` into `dst`: at its place in this core's C (row stride orgN) for GM, or
    /// per `sequential` for the Unified Buffer.
    #[track_caller]
    fn write<D: MatmulDst<C::T>>(
        &self,
        t: &TCubeTiling,
        blk: &Block,
        dst: &D,
        atomic: bool,
        sequential: bool,
        ub: bool,
    ) {
        let co1: Vec<L0cOf<A::T>> = blk.co1.iter().map(|&x| <L0cOf<A::T> as Element>::from_f64(x)).collect();
        let (bm, bn) = (t.baseM as usize, t.baseN as usize);
        let (off, stride) = if C::NZ {
            // The vendor's `CopyOutNZ2NZ` (NPU architecture 2201): the block at column
            // `ni × baseN` of the Z columns, `orgM` rows high, row `mi × baseM` of its Z column;
            // `orgM × 16 × size_of::<C>() / 32` blocks between the Z columns.
            let org_m = self.org.0;
            ensure(org_m % 16 == 0, "Matmul::GetTensorC", || {
                format!("C is NZ and orgM = {org_m}: an NZ C's outer axis must be a multiple of 16")
            });
            ((blk.ni * bn) * org_m + (blk.mi * bm) * 16, org_m * 16 * <C::T as Element>::SIZE / 32)
        } else if !ub {
            ((blk.mi * bm) * self.org.1 + blk.ni * bn, self.org.1)
        } else if sequential {
            let align = 32 / <C::T as Element>::SIZE;
            (0, blk.cols.div_ceil(align) * align)
        } else {
            ((blk.mi * bm) * self.single.1 + blk.ni * bn, self.single.1)
        };
        let n0 = blk.ni * bn;
        let qvec: Option<Vec<u64>> = match &self.quant {
            Some(MmQuant::Vector(g)) => {
                ensure(n0 + blk.cols <= g.get_size(), "Matmul::SetQuantVector", || {
                    format!(
                        "the quantisation vector has {} values, and the block at column {n0} needs {} more",
                        g.get_size(),
                        n0 + blk.cols - g.get_size().min(n0 + blk.cols)
                    )
                });
                Some((0..blk.cols).map(|j| g.get_value(n0 + j)).collect())
            }
            _ => None,
        };
        let quant = match (&self.quant, &qvec) {
            (Some(MmQuant::Scalar(q)), _) => Some(BlockQuant::Scalar(*q)),
            (_, Some(v)) => Some(BlockQuant::Vector(v)),
            _ => None,
        };
        let (nz, relu) = (C::NZ, CFG::CFG.enable_relu);
        dst.put(&BlockWrite {
            co1: &co1,
            rows: blk.rows,
            cols: blk.cols,
            off,
            stride,
            atomic,
            quant,
            nz,
            relu,
        });
    }

    /// `Iterate<SYNC>()`: computes the next `baseM × baseN` block of this core's C into L0C
    /// (M first, or N first with `iterateOrder = 1`); `false` once every block is done. With
    /// `SYNC = false` the first call computes all the blocks, which
    /// [`get_tensor_c`](Self::get_tensor_c)`::<false>` then moves out in order.
    ///
    /// # Panics
    /// Panics if the object is not initialised or ended, A or B is not set, or a synchronous
    /// block was not moved out before the next `Iterate`.
    #[track_caller]
    pub fn iterate<const SYNC: bool>(&mut self) -> bool {
        let api = "Matmul::Iterate";
        let t = self.tiling(api);
        let (mb, nb) = self.blocks(&t);
        if SYNC {
            ensure(self.cur.is_none(), api, || {
                "the previous block was not moved out: call GetTensorC after each synchronous Iterate"
                    .to_string()
            });
            if self.next >= mb * nb {
                self.next = 0;
                return false;
            }
            let (mi, ni) = self.block_at(&t, self.next);
            self.cur = Some(self.compute(api, &t, mi, ni));
            self.next += 1;
            true
        } else {
            if self.next >= mb * nb {
                self.next = 0;
                return false;
            }
            for idx in self.next..mb * nb {
                let (mi, ni) = self.block_at(&t, idx);
                let blk = self.compute(api, &t, mi, ni);
                self.pending.push_back(blk);
            }
            self.next = mb * nb;
            true
        }
    }

    /// `GetTensorC<SYNC>(dst, enAtomic, enSequentialWrite)`: moves the block of the last
    /// `Iterate` (`SYNC = false`: the next block of the asynchronous `Iterate`) out of L0C
    /// into `dst`, converted to C's type. A GM `dst` is this core's C (the block lands at its
    /// place, row stride orgN; `en_atomic` adds it to what GM holds). A Unified Buffer `dst`
    /// gets the block at offset 0, rows `⌈cols⌉₃₂B` apart, with `en_sequential_write`;
    /// without, at its place in a `singleCoreM × singleCoreN` matrix.
    ///
    /// # Panics
    /// Panics if there is no block to move out, `dst` is a local tensor outside the Unified
    /// Buffer, `en_atomic` with a Unified Buffer `dst`, or C's type is quantised and neither
    /// [`set_quant_scalar`](Self::set_quant_scalar) nor [`set_quant_vector`](Self::set_quant_vector)
    /// was called (or one was, and C is not quantised).
    #[track_caller]
    pub fn get_tensor_c<const SYNC: bool, D: MatmulDst<C::T> + IsUb>(
        &mut self,
        dst: &D,
        en_atomic: bool,
        en_sequential_write: bool,
    ) {
        let api = "Matmul::GetTensorC";
        let t = self.tiling(api);
        let blk = if SYNC { self.cur.take() } else { self.pending.pop_front() };
        let Some(blk) = blk else {
            fail(
                api,
                if SYNC {
                    "no block to move out: call Iterate first"
                } else {
                    "no block left from the asynchronous Iterate"
                },
            )
        };
        self.write(&t, &blk, dst, en_atomic, en_sequential_write, dst.is_ub());
    }

    /// `IterateAll<SYNC>(gm, enAtomic)`: computes every block of this core's C and writes
    /// them to `dst` (this core's C in GM, row stride orgN); with `SYNC = false` wait with
    /// [`wait_iterate_all`](Self::wait_iterate_all) before reading C.
    ///
    /// # Panics
    /// Panics if the object is not initialised or ended, or A or B is not set.
    #[track_caller]
    pub fn iterate_all<const SYNC: bool>(&mut self, dst: &GlobalTensor<C::T>, en_atomic: bool) {
        let api = "Matmul::IterateAll";
        let t = self.tiling(api);
        let (mb, nb) = self.blocks(&t);
        for idx in 0..mb * nb {
            let (mi, ni) = self.block_at(&t, idx);
            let blk = self.compute(api, &t, mi, ni);
            self.write(&t, &blk, dst, en_atomic, false, false);
        }
        self.next = 0;
        self.async_all = !SYNC;
    }

    /// `WaitIterateAll()`: waits for an asynchronous `IterateAll` (the work is done by then
    /// here; the call checks that one is pending).
    ///
    /// # Panics
    /// Panics if no asynchronous `IterateAll` is pending.
    #[track_caller]
    pub fn wait_iterate_all(&mut self) {
        let api = "Matmul::WaitIterateAll";
        self.tiling(api);
        ensure(self.async_all, api, || "no asynchronous IterateAll<false> is pending".to_string());
        self.async_all = false;
    }

    /// `End()`: the object's last call; later calls fail.
    ///
    /// # Panics
    /// Panics if a computed block was never moved out (a synchronous `Iterate` without its
    /// `GetTensorC`).
    #[track_caller]
    pub fn end(&mut self) {
        ensure(self.cur.is_none(), "Matmul::End", || {
            "a block of the last Iterate was never moved out with GetTensorC".to_string()
        });
        self.ended = true;
    }
}

type L0cOf<T> = <T as MatmulInput>::L0c;

/// What `SetQuantScalar` / `SetQuantVector` set.
#[derive(Clone, Debug)]
enum MmQuant {
    Scalar(u64),
    Vector(GlobalTensor<u64>),
}

/// Whether a [`MatmulDst`] is in the Unified Buffer.
pub trait IsUb {
    /// `true` for a local tensor.
    fn is_ub(&self) -> bool;
}
impl<T: Element> IsUb for GlobalTensor<T> {
    fn is_ub(&self) -> bool {
        false
    }
}
impl<T: Element> IsUb for LocalTensor<T> {
    fn is_ub(&self) -> bool {
        true
    }
}
