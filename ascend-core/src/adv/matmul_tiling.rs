//! Host tiling of the high-level [`Matmul`](crate::adv::matmul::Matmul): `TCubeTiling` (the
//! vendor's `kernel_tiling/kernel_tiling.h` layout, field for field) and the tiling builders
//! `MatmulApiTiling` / `MultiCoreMatmulTiling` (`tiling/tiling_api.h`).
//!
//! ```
//! use ascend_core::prelude::*;
//! use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
//! let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
//! api.set_dim(24);
//! api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
//! api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
//! api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
//! api.set_org_shape(128, 30720, 1024);
//! api.set_shape(128, 30720, 1024);
//! api.set_buffer_space(-1, -1, -1);
//! let t = api.get_tiling().unwrap();
//! assert_eq!((t.singleCoreM, t.singleCoreN, t.singleCoreK), (128, 1280, 1024));
//! assert_eq!((t.baseM, t.baseN, t.baseK), (128, 256, 64));
//! ```
//!
//! # How `GetTiling` chooses (and how far it is the vendor's)
//!
//! The vendor's `GetTiling` (`impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp`, some
//! 4400 lines of cost model) is **not ported**. `get_tiling` follows a short rule fitted to
//! every tiling result the vendor documents for Ascend910B (cited in the tests,
//! `tests/vendor/matmul_tiling.rs`):
//!
//! 1. the multi-core split `mDim × nDim ≤ dim` uses as many cores as it can, with at least
//!    one base block (`128` rows, `256` columns, or the `SetFixSplit` sizes) per core and
//!    direction; among splits using as many cores, the one moving the fewest bytes from GM
//!    (`singleM·K·⌈singleN/baseN⌉ + K·singleN·⌈singleM/baseM⌉`), then the one splitting the
//!    smaller of M and N (M on a tie). `singleCoreM = ⌈M / mDim⌉` rounded up to 16, the same
//!    for N; `singleCoreK = K` (no split of K);
//! 2. the base block, unless `SetFixSplit` fixed it: `baseM = min(128, singleCoreM↑16)`,
//!    `baseN = min(256, singleCoreN↑16)`, `baseK = min(32 bytes × 2 / size, singleCoreK↑K0)`
//!    (64 for 16-bit inputs, 128 for `int8_t`);
//! 3. L1: `stepM = stepN = 1`, `stepKa = stepKb = 4` (halved while the double-buffered L1
//!    copies exceed the L1 space), `depthA1 = 2·stepM·stepKa`, `depthB1 = 2·stepN·stepKb`;
//!    `iterateOrder = 0`, `dbL0A = dbL0B = 2`, `dbL0C = 1`.
//!
//! The documented cases this reproduces exactly are listed in the tests; the Matmul's
//! results never depend on these choices beyond the block order (see the
//! [`matmul`](crate::adv::matmul) module).

#![allow(non_snake_case)]

use crate::position::Memory;
use crate::soc::Soc;

/// The vendor's `TCubeTiling` (`AscendC::tiling::TCubeTiling`), field for field and in the
/// same order (`int32_t` each), so it is passed to a kernel as the vendor's is (by value, or
/// through GM with `get_tiling_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
#[allow(missing_docs)]
pub struct TCubeTiling {
    pub usedCoreNum: i32,
    pub M: i32,
    pub N: i32,
    pub Ka: i32,
    pub Kb: i32,
    pub singleCoreM: i32,
    pub singleCoreN: i32,
    pub singleCoreK: i32,
    pub baseM: i32,
    pub baseN: i32,
    pub baseK: i32,
    pub depthA1: i32,
    pub depthB1: i32,
    pub stepM: i32,
    pub stepN: i32,
    pub isBias: i32,
    pub transLength: i32,
    pub iterateOrder: i32,
    pub shareMode: i32,
    pub shareL1Size: i32,
    pub shareL0CSize: i32,
    pub shareUbSize: i32,
    pub batchM: i32,
    pub batchN: i32,
    pub singleBatchM: i32,
    pub singleBatchN: i32,
    pub stepKa: i32,
    pub stepKb: i32,
    pub depthAL1CacheUB: i32,
    pub depthBL1CacheUB: i32,
    pub dbL0A: i32,
    pub dbL0B: i32,
    pub dbL0C: i32,
    pub ALayoutInfoB: i32,
    pub ALayoutInfoS: i32,
    pub ALayoutInfoN: i32,
    pub ALayoutInfoG: i32,
    pub ALayoutInfoD: i32,
    pub BLayoutInfoB: i32,
    pub BLayoutInfoS: i32,
    pub BLayoutInfoN: i32,
    pub BLayoutInfoG: i32,
    pub BLayoutInfoD: i32,
    pub CLayoutInfoB: i32,
    pub CLayoutInfoS1: i32,
    pub CLayoutInfoN: i32,
    pub CLayoutInfoG: i32,
    pub CLayoutInfoS2: i32,
    pub BatchNum: i32,
    pub mxTypePara: i32,
}

/// `matmul_tiling::TPosition` (the host's position names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(clippy::upper_case_acronyms)]
pub enum TPos {
    /// Global memory.
    #[default]
    GM,
    /// Unified Buffer, vector input.
    VECIN,
    /// Unified Buffer, vector output.
    VECOUT,
    /// Unified Buffer, vector scratch.
    VECCALC,
    /// L1 shared with the cube (`TSCM`).
    TSCM,
    /// L0C.
    CO1,
}

/// `matmul_tiling::CubeFormat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CubeFormat {
    /// Row-major.
    #[default]
    ND,
    /// Fractal.
    NZ,
}

/// `matmul_tiling::DataType`.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DataType {
    /// `half`.
    #[default]
    DT_FLOAT16,
    /// `bfloat16_t`.
    DT_BF16,
    /// `float`.
    DT_FLOAT,
    /// `int8_t`.
    DT_INT8,
    /// `int32_t`.
    DT_INT32,
}

impl DataType {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DataType::DT_FLOAT16 | DataType::DT_BF16 => 2,
            DataType::DT_FLOAT | DataType::DT_INT32 => 4,
            DataType::DT_INT8 => 1,
        }
    }
}

/// Why [`MultiCoreMatmulTiling::get_tiling`] failed (the vendor's `GetTiling` returns -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilingError(pub String);

impl std::fmt::Display for TilingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GetTiling: {}", self.0)
    }
}

impl std::error::Error for TilingError {}

#[derive(Clone, Copy, Debug, Default)]
struct Operand {
    pos: TPos,
    /// Kept as the vendor's call sets it; the fitted rule does not depend on it.
    #[allow(dead_code)]
    format: CubeFormat,
    dtype: DataType,
    /// Kept as the vendor's call sets it; the fitted rule does not depend on it.
    #[allow(dead_code)]
    trans: bool,
}

/// The multi-core tiling builder (`matmul_tiling::MultiCoreMatmulTiling`; see the
/// [module](self) docs for how far its choices are the vendor's).
#[derive(Clone, Debug)]
pub struct MultiCoreMatmulTiling {
    soc: Soc,
    dim: i32,
    a: Operand,
    b: Operand,
    c: Operand,
    bias_type: Operand,
    shape: (i32, i32, i32),
    org: (i32, i32, i32, i32),
    bias: bool,
    l1: i32,
    l0c: i32,
    ub: i32,
    fix: (i32, i32, i32),
}

/// The single-core builder (`matmul_tiling::MatmulApiTiling`): a [`MultiCoreMatmulTiling`]
/// with one core.
pub type MatmulApiTiling = MultiCoreMatmulTiling;

impl MultiCoreMatmulTiling {
    /// A builder for `soc` (the vendor's constructor takes the platform): one core, half A/B,
    /// float C, no bias, every buffer at the chip's size.
    pub fn new(soc: Soc) -> Self {
        MultiCoreMatmulTiling {
            soc,
            dim: 1,
            a: Operand::default(),
            b: Operand::default(),
            c: Operand { dtype: DataType::DT_FLOAT, ..Operand::default() },
            bias_type: Operand { dtype: DataType::DT_FLOAT, ..Operand::default() },
            shape: (-1, -1, -1),
            org: (-1, -1, -1, -1),
            bias: false,
            l1: -1,
            l0c: -1,
            ub: -1,
            fix: (-1, -1, -1),
        }
    }

    /// `SetDim(dim)`: the cores (AIC in a cube kernel, AIV in a mixed one) to split over.
    pub fn set_dim(&mut self, dim: i32) -> &mut Self {
        self.dim = dim;
        self
    }
    /// `SetAType(pos, format, type, isTrans)`.
    pub fn set_a_type(
        &mut self,
        pos: TPos,
        format: CubeFormat,
        dtype: DataType,
        is_trans: bool,
    ) -> &mut Self {
        self.a = Operand { pos, format, dtype, trans: is_trans };
        self
    }
    /// `SetBType(pos, format, type, isTrans)`.
    pub fn set_b_type(
        &mut self,
        pos: TPos,
        format: CubeFormat,
        dtype: DataType,
        is_trans: bool,
    ) -> &mut Self {
        self.b = Operand { pos, format, dtype, trans: is_trans };
        self
    }
    /// `SetCType(pos, format, type)`.
    pub fn set_c_type(&mut self, pos: TPos, format: CubeFormat, dtype: DataType) -> &mut Self {
        self.c = Operand { pos, format, dtype, trans: false };
        self
    }
    /// `SetBiasType(pos, format, type)`.
    pub fn set_bias_type(&mut self, pos: TPos, format: CubeFormat, dtype: DataType) -> &mut Self {
        self.bias_type = Operand { pos, format, dtype, trans: false };
        self
    }
    /// `SetShape(m, n, k)`: the shape to compute (-1: the original shape's).
    pub fn set_shape(&mut self, m: i32, n: i32, k: i32) -> &mut Self {
        self.shape = (m, n, k);
        self
    }
    /// `SetOrgShape(orgM, orgN, orgK)`.
    pub fn set_org_shape(&mut self, m: i32, n: i32, k: i32) -> &mut Self {
        self.org = (m, n, k, k);
        self
    }
    /// `SetOrgShape(orgM, orgN, orgKa, orgKb)`.
    pub fn set_org_shape_ka_kb(&mut self, m: i32, n: i32, ka: i32, kb: i32) -> &mut Self {
        self.org = (m, n, ka, kb);
        self
    }
    /// `EnableBias(flag)` (also spelled `SetBias`).
    pub fn enable_bias(&mut self, flag: bool) -> &mut Self {
        self.bias = flag;
        self
    }
    /// `SetBias(flag)`, the older name of [`enable_bias`](Self::enable_bias).
    pub fn set_bias(&mut self, flag: bool) -> &mut Self {
        self.enable_bias(flag)
    }
    /// `SetBufferSpace(l1Size, l0CSize, ubSize)`: the bytes the Matmul may use (-1: the chip's).
    pub fn set_buffer_space(&mut self, l1: i32, l0c: i32, ub: i32) -> &mut Self {
        (self.l1, self.l0c, self.ub) = (l1, l0c, ub);
        self
    }
    /// `SetFixSplit(baseM, baseN, baseK)`: fixes the base block (-1: chosen).
    pub fn set_fix_split(&mut self, base_m: i32, base_n: i32, base_k: i32) -> &mut Self {
        self.fix = (base_m, base_n, base_k);
        self
    }

    /// `GetTiling(tiling)`: the tiling (see the [module](self) docs).
    ///
    /// # Errors
    /// A shape not set or not positive, non-GM inputs, a fixed base that is not a
    /// multiple of 16 (of K0 for `baseK`) or does not fit L0A/L0B/L0C, or no split at all.
    pub fn get_tiling(&self) -> Result<TCubeTiling, TilingError> {
        let err = |s: String| Err(TilingError(s));
        let (om, on, oka, okb) = self.org;
        let pick = |v: i32, o: i32| if v > 0 { v } else { o };
        let (m, n, k) = (pick(self.shape.0, om), pick(self.shape.1, on), pick(self.shape.2, oka));
        if m <= 0 || n <= 0 || k <= 0 || om <= 0 || on <= 0 || oka <= 0 || okb <= 0 {
            return err(format!(
                "the shape M = {m}, N = {n}, K = {k} (org {om}, {on}, {oka}, {okb}) must be set and positive"
            ));
        }
        if self.a.pos != TPos::GM || self.b.pos != TPos::GM {
            return err(format!(
                "A at {:?}, B at {:?}: only GM inputs are supported here",
                self.a.pos, self.b.pos
            ));
        }
        let _ = self.ub;
        if self.dim <= 0 {
            return err(format!("SetDim({}) must be positive", self.dim));
        }
        if self.a.dtype != self.b.dtype {
            return err(format!(
                "A is {:?} and B {:?}: they must be the same type",
                self.a.dtype, self.b.dtype
            ));
        }
        let es = self.a.dtype.size();
        let k0 = 32 / es;
        let align = |x: i32, to: i32| (x + to - 1) / to * to;
        let (fm, fnn, fk) = self.fix;
        for (name, v, q) in [("baseM", fm, 16), ("baseN", fnn, 16), ("baseK", fk, k0 as i32)] {
            if v != -1 && (v <= 0 || v % q != 0) {
                return err(format!("SetFixSplit {name} = {v} must be -1 or a positive multiple of {q}"));
            }
        }
        // 1. The multi-core split.
        let unit_m = if fm > 0 { fm } else { 128 };
        let unit_n = if fnn > 0 { fnn } else { 256 };
        let max_m = ((m + unit_m - 1) / unit_m).max(1);
        let max_n = ((n + unit_n - 1) / unit_n).max(1);
        let mut best: Option<(i64, i64, bool, i32, i32)> = None;
        for md in 1..=self.dim.min(max_m) {
            for nd in 1..=(self.dim / md).min(max_n) {
                let sm = align((m + md - 1) / md, 16);
                let sn = align((n + nd - 1) / nd, 16);
                let used = ((m + sm - 1) / sm) * ((n + sn - 1) / sn);
                let bm = unit_m.min(sm);
                let bn = unit_n.min(sn);
                let load = sm as i64 * k as i64 * ((sn + bn - 1) / bn) as i64
                    + k as i64 * sn as i64 * ((sm + bm - 1) / bm) as i64;
                // Prefer splitting the smaller of M and N (M on a tie).
                let small_split = if n < m { nd > 1 } else { md > 1 };
                let key = (-(used as i64), load, !small_split, md, nd);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        let Some((_, _, _, md, nd)) = best else { return err("no multi-core split".to_string()) };
        let sm = if md == 1 { m } else { align((m + md - 1) / md, 16) };
        let sn = if nd == 1 { n } else { align((n + nd - 1) / nd, 16) };
        let sk = k;
        let used = ((m + sm - 1) / sm) * ((n + sn - 1) / sn);
        // 2. The base block.
        let bm = if fm > 0 { fm } else { 128.min(align(sm, 16)) };
        let bn = if fnn > 0 { fnn } else { 256.min(align(sn, 16)) };
        let bk = if fk > 0 { fk } else { ((64 * 2 / es) as i32).min(align(sk, k0 as i32)) };
        let soc = self.soc;
        let (l0a, l0b) = (soc.memory_size(Memory::L0A) as i64, soc.memory_size(Memory::L0B) as i64);
        let l0c = if self.l0c > 0 { self.l0c as i64 } else { soc.memory_size(Memory::L0C) as i64 };
        let l1 = if self.l1 > 0 { self.l1 as i64 } else { soc.memory_size(Memory::L1) as i64 };
        let esz = es as i64;
        if bm as i64 * bk as i64 * esz > l0a
            || bk as i64 * bn as i64 * esz > l0b
            || bm as i64 * bn as i64 * 4 > l0c
        {
            return err(format!(
                "the base block {bm} x {bn} x {bk} does not fit L0A/L0B ({l0a} bytes) or L0C ({l0c} bytes)"
            ));
        }
        // 3. L1 steps and depths.
        let mut step_k = 4;
        let bias_bytes = if self.bias { bn as i64 * self.bias_type.dtype.size() as i64 } else { 0 };
        while step_k > 1 && 2 * step_k as i64 * (bm as i64 + bn as i64) * bk as i64 * esz + bias_bytes > l1 {
            step_k /= 2;
        }
        Ok(TCubeTiling {
            usedCoreNum: used,
            M: om,
            N: on,
            Ka: oka,
            Kb: okb,
            singleCoreM: sm,
            singleCoreN: sn,
            singleCoreK: sk,
            baseM: bm,
            baseN: bn,
            baseK: bk,
            depthA1: 2 * step_k,
            depthB1: 2 * step_k,
            stepM: 1,
            stepN: 1,
            isBias: self.bias as i32,
            iterateOrder: 0,
            stepKa: step_k,
            stepKb: step_k,
            dbL0A: 2,
            dbL0B: 2,
            dbL0C: 1,
            ..TCubeTiling::default()
        })
    }
}
