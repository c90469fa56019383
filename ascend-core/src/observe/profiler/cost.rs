//! The cost model: cycles of each instruction on one chip, in one table.
//!
//! Every number names its source: a vendor page (path in `mirror-cann/asc-devkit`), or
//! "assumed" (a round figure, not published) or "fitted" (solved from the msprof tables of the
//! vendor's Add tuning case, [`ADD_CASE_SOURCE`]). Only Ascend910B (Atlas A2) is modelled; the other chips use
//! its numbers (see [`Costs::of`]).

use crate::element::DType;
use crate::soc::Soc;

use super::{CopyDir, Op};

/// Source of the vector table.
pub const VECTOR_SOURCE: &str = "docs/zh/api/附录/Vector指令理论性能汇总.md (tables 6-15, Atlas A2)";
/// Source of the cube formula.
pub const CUBE_SOURCE: &str = "docs/zh/api/附录/Cube指令理论性能汇总.md (Mmad formula, table 1; tables 3, 7)";

/// One row of the vendor's vector throughput table: the API, the data type as the vendor
/// names it, and the elements per cycle.
#[derive(Clone, Copy, Debug)]
pub struct VecRow {
    /// AscendC API name.
    pub api: &'static str,
    /// Data type (`half`, `float`, `int16_t`, `int32_t`, ...).
    pub dtype: &'static str,
    /// Elements per cycle.
    pub par: f64,
}

const fn r(api: &'static str, dtype: &'static str, par: f64) -> VecRow {
    VecRow { api, dtype, par }
}

/// The vendor's theoretical vector throughput for Atlas A2 ([`VECTOR_SOURCE`]), rows copied
/// as published (the dtype of the destination where the vendor lists several).
pub const VECTOR_TABLE: &[VecRow] = &[
    // Table 6, basic arithmetic.
    r("Add", "half", 128.0),
    r("Add", "int16_t", 128.0),
    r("Add", "int32_t", 64.0),
    r("Add", "float", 64.0),
    r("Exp", "half", 32.0),
    r("Exp", "float", 32.0),
    r("Ln", "half", 32.0),
    r("Ln", "float", 32.0),
    r("Abs", "half", 128.0),
    r("Abs", "float", 64.0),
    r("Reciprocal", "half", 128.0),
    r("Reciprocal", "float", 64.0),
    r("Sqrt", "half", 32.0),
    r("Sqrt", "float", 32.0),
    r("Rsqrt", "half", 128.0),
    r("Rsqrt", "float", 64.0),
    r("Relu", "half", 128.0),
    r("Relu", "float", 64.0),
    r("Relu", "int32_t", 64.0),
    r("Sub", "half", 128.0),
    r("Sub", "int16_t", 128.0),
    r("Sub", "int32_t", 64.0),
    r("Sub", "float", 64.0),
    r("Mul", "half", 128.0),
    r("Mul", "int16_t", 128.0),
    r("Mul", "int32_t", 64.0),
    r("Mul", "float", 64.0),
    r("Div", "half", 32.0),
    r("Div", "float", 32.0),
    r("Max", "half", 128.0),
    r("Max", "int16_t", 128.0),
    r("Max", "int32_t", 64.0),
    r("Max", "float", 64.0),
    r("Min", "half", 128.0),
    r("Min", "int16_t", 128.0),
    r("Min", "int32_t", 64.0),
    r("Min", "float", 64.0),
    r("Adds", "half", 128.0),
    r("Adds", "int16_t", 128.0),
    r("Adds", "int32_t", 64.0),
    r("Adds", "float", 64.0),
    r("Muls", "half", 128.0),
    r("Muls", "int16_t", 128.0),
    r("Muls", "int32_t", 64.0),
    r("Muls", "float", 64.0),
    r("Maxs", "half", 128.0),
    r("Maxs", "int16_t", 128.0),
    r("Maxs", "int32_t", 64.0),
    r("Maxs", "float", 64.0),
    r("Mins", "half", 128.0),
    r("Mins", "int16_t", 128.0),
    r("Mins", "int32_t", 64.0),
    r("Mins", "float", 64.0),
    r("LeakyRelu", "half", 128.0),
    r("LeakyRelu", "float", 64.0),
    // Table 7, logic.
    r("Not", "int16_t", 128.0),
    r("Not", "uint16_t", 128.0),
    r("And", "int16_t", 128.0),
    r("And", "uint16_t", 128.0),
    r("Or", "int16_t", 128.0),
    r("Or", "uint16_t", 128.0),
    r("ShiftLeft", "int16_t", 128.0),
    r("ShiftLeft", "uint16_t", 128.0),
    r("ShiftLeft", "int32_t", 64.0),
    r("ShiftLeft", "uint32_t", 64.0),
    r("ShiftRight", "int16_t", 128.0),
    r("ShiftRight", "uint16_t", 128.0),
    r("ShiftRight", "int32_t", 64.0),
    r("ShiftRight", "uint32_t", 64.0),
    // Table 8, compound.
    r("Axpy", "half", 128.0),
    r("Axpy", "float", 64.0),
    r("MulAddDst", "half", 64.0),
    r("MulAddDst", "float", 32.0),
    r("AddRelu", "int16_t", 128.0),
    r("AddRelu", "half", 128.0),
    r("AddRelu", "float", 64.0),
    r("SubRelu", "int16_t", 128.0),
    r("SubRelu", "half", 128.0),
    r("SubRelu", "float", 64.0),
    r("FusedMulAdd", "half", 128.0),
    r("FusedMulAdd", "float", 64.0),
    r("MulAddRelu", "half", 128.0),
    r("MulAddRelu", "float", 64.0),
    // Table 9, compare and select (by source type).
    r("Compare", "half", 128.0),
    r("Compare", "float", 64.0),
    r("Compare", "int32_t", 64.0),
    r("Compares", "half", 128.0),
    r("Compares", "float", 64.0),
    r("Compares", "int32_t", 64.0),
    r("Select", "half", 128.0),
    r("Select", "float", 64.0),
    r("GatherMask", "half", 64.0),
    r("GatherMask", "bfloat16_t", 64.0),
    r("GatherMask", "uint16_t", 64.0),
    r("GatherMask", "int16_t", 64.0),
    r("GatherMask", "float", 32.0),
    r("GatherMask", "uint32_t", 32.0),
    r("GatherMask", "int32_t", 32.0),
    // Table 10, Cast (by destination type, the slower of the vendor's rows).
    r("Cast", "half", 64.0),
    r("Cast", "float", 64.0),
    r("Cast", "int32_t", 64.0),
    r("Cast", "int16_t", 64.0),
    r("Cast", "int8_t", 128.0),
    r("Cast", "uint8_t", 128.0),
    r("Cast", "bfloat16_t", 64.0),
    r("Cast", "int64_t", 32.0),
    // Table 11, reductions.
    r("ReduceDataBlock", "half", 128.0 / 7.0),
    r("ReduceDataBlock", "float", 64.0),
    r("ReduceRepeat", "half", 128.0 / 7.0),
    r("ReduceRepeat", "float", 64.0 / 7.0),
    r("ReducePairElem", "half", 128.0),
    r("ReducePairElem", "float", 64.0),
    // Table 12, layout.
    r("Transpose", "int8_t", 256.0),
    r("Transpose", "half", 128.0),
    r("Transpose", "int16_t", 128.0),
    r("Transpose", "float", 64.0),
    r("TransDataTo5HD", "half", 128.0),
    r("TransDataTo5HD", "float", 64.0),
    // Table 13, fill (output parallelism).
    r("Brcb", "half", 128.0),
    r("Brcb", "float", 64.0),
    r("Duplicate", "half", 128.0),
    r("Duplicate", "float", 64.0),
    r("Duplicate", "int16_t", 128.0),
    r("Duplicate", "int32_t", 64.0),
    r("Duplicate", "uint16_t", 128.0),
    r("Duplicate", "uint32_t", 64.0),
    r("CreateVecIndex", "half", 128.0),
    r("CreateVecIndex", "float", 64.0),
    r("CreateVecIndex", "int16_t", 128.0),
    r("CreateVecIndex", "int32_t", 64.0),
    // Table 14, sort.
    r("Sort32", "half", 2.0),
    r("Sort32", "float", 2.0),
    r("MrgSort", "half", 2.0),
    r("MrgSort", "float", 2.0),
    // Table 15, gather.
    r("Gather", "half", 5.0),
    r("Gather", "float", 5.0),
    r("Gather", "int16_t", 5.0),
    r("Gather", "int32_t", 5.0),
    r("Gatherb", "uint16_t", 42.0),
    r("Gatherb", "uint32_t", 21.0),
];

/// The vendor's name of a data type, as the tables spell it.
pub fn dtype_name(d: DType) -> &'static str {
    match d {
        DType::U8 => "uint8_t",
        DType::I8 => "int8_t",
        DType::U16 => "uint16_t",
        DType::I16 => "int16_t",
        DType::U32 => "uint32_t",
        DType::I32 => "int32_t",
        DType::U64 => "uint64_t",
        DType::I64 => "int64_t",
        DType::F16 => "half",
        DType::BF16 => "bfloat16_t",
        DType::F32 => "float",
        DType::Bool => "bool",
    }
}

/// Bytes of a vendor type name (0 when unknown).
fn name_size(n: &str) -> usize {
    match n {
        "int8_t" | "uint8_t" => 1,
        "half" | "bfloat16_t" | "int16_t" | "uint16_t" => 2,
        "float" | "int32_t" | "uint32_t" => 4,
        "int64_t" | "uint64_t" => 8,
        _ => 0,
    }
}

/// The Add tuning case: msprof tables of the vendor's `add_high_performance` example (8192 ×
/// 8192 half, Atlas A2; Cases 0-6), the source of the fitted constants below.
pub const ADD_CASE_SOURCE: &str =
    "examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance/README.md";

/// The per-chip constants of the model. Cycles unless named otherwise.
///
/// "Fitted" constants were solved from the msprof tables of the Add tuning case
/// ([`ADD_CASE_SOURCE`], at 1.85 GHz); the other cases of that table and the guide's pairs
/// (`tests/perf_guide.rs`) only check them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// AI core clock, GHz. Derived: the Add tuning case gives 5.904 µs as the theoretical
    /// vector time of 8192 × 8192 half on 48 cores at 128 half a cycle, 10922.7 cycles
    /// ("接近Atlas A2训练系列48核理论vector耗时5.904μs",
    /// `docs/zh/guide/算子实践参考/典型算子实践案例/SIMD算子实现/Add矢量算子实践/高阶性能打磨.md`).
    pub clock_ghz: f64,
    /// Cycles the scalar unit spends issuing one instruction to a pipe. Assumed.
    pub issue: u64,
    /// Cycles a vector instruction occupies the V pipe beyond its repeats. Fitted: Case 6's
    /// `aiv_vec_time` 6.954 µs = 87 `Add`s of 10944 repeats in all, 22 cycles each; checked on
    /// Case 4 (12.85 µs modelled, 12.846 published) and Case 1 (86 cycles an `Add`, 86
    /// published).
    pub vec_head: u64,
    /// A scalar `GetValue`/`SetValue` of UB, beyond its issue. Fitted: Case 0's
    /// `aiv_scalar_time` is 34 cycles an element for two `GetValue`s and one `SetValue` (the
    /// loop's conversions and add, not modelled, are folded in).
    pub scalar_ub: u64,
    /// A scalar access of GM through the data cache. Assumed.
    pub scalar_gm: u64,
    /// Scalar cycles of one mask-register call (`SetMaskCount`, `SetMaskNorm`,
    /// `SetVectorMask`, `ResetMask`): "每个接口调用耗时1cycle"
    /// (`docs/zh/guide/算子实践参考/SIMD算子性能优化/矢量计算/基于全局掩码复用的计算性能优化.md`).
    /// A count-form instruction (`Add(dst, a, b, count)`) makes four (the same page).
    pub mask_call: u64,
    /// Per-copy latency of MTE2 (GM → UB/L1). Fitted: `aiv_mte2_time` of Case 2 (8 KB copies,
    /// 48 cores) and Case 3 (32 KB) give 112 cycles a copy and 17.4 bytes a cycle a core.
    /// Checked: 16 KB on one core reaches 81 % of the peak, the guide's "16KB以上通常能较好地发挥出带宽的最佳性能"
    /// (`docs/zh/guide/算子实践参考/SIMD算子性能优化/内存访问/尽量一次搬运较大的数据块.md`).
    pub mte2_head: u64,
    /// Per-copy latency of MTE3 (UB → GM). Fitted: Case 1's `aiv_mte3_time`, 295 cycles an
    /// 8 KB copy on one core, less 8192 / [`Costs::core_gm_bw`].
    pub mte3_head: u64,
    /// Extra cycles per row (burst) of a strided copy beyond the first. Assumed.
    pub per_row: u64,
    /// One pipe's peak GM bandwidth on one core, bytes per cycle. Fitted: Case 1's
    /// `aiv_mte2_time`, 350.5 cycles an 8 KB copy on one core, less [`Costs::mte2_head`]
    /// (34.4 B/cycle, 64 GB/s).
    pub core_gm_bw: f64,
    /// The chip's GM bandwidth, bytes per cycle, shared evenly by the active cores; on each
    /// core, MTE2 and MTE3 share its part. Fitted: 48 × 17.4 (Cases 2 and 3, see
    /// [`Costs::mte2_head`]): 836 B/cycle, 1.55 TB/s through the L2 cache in its default mode
    /// (the case's Case 6, with the L2 bypassed, reaches 2.35 TB/s; the model has no L2).
    pub chip_gm_bw: f64,
    /// Bandwidth factor of a copy whose GM address is not 512-byte aligned: the guide's worst
    /// case, "32B对齐场景只能达到512B对齐场景的70%"
    /// (`docs/zh/guide/算子实践参考/SIMD算子性能优化/内存访问/GM地址尽量512B对齐.md`).
    pub unaligned_factor: f64,
    /// UB → UB `DataCopy` on the V pipe, bytes per cycle. "DataCopy(UB->UB) 256"
    /// (Vector table 3; Ascend 950's, assumed for Atlas A2).
    pub ub_copy_bw: f64,
    /// `LoadData` L1 → L0A, bytes per cycle ([`CUBE_SOURCE`], table 3). L1 → L0B is 128; the
    /// model takes L0A's for every `LoadData`.
    pub mte1_bw: f64,
    /// `Fixpipe` L0C → L1/GM, bytes per cycle ([`CUBE_SOURCE`], table 7, F322F16 NZ2NZ).
    pub fixp_bw: f64,
    /// Latency ΔT of a cube-side move (MTE1, FIXP). Assumed.
    pub move_head: u64,
    /// Head cycles Δt of an `Mmad` ([`CUBE_SOURCE`]: the formula's Δt, no value published).
    /// Assumed.
    pub mmad_head: u64,
    /// Latency of a flag from the pipe that sets it to the pipe that waits. Assumed.
    pub flag_latency: u64,
    /// `SyncAll` across cores, after the last core arrives. Assumed.
    pub sync_all: u64,
    /// Launch head overhead, µs: fixed part. Fitted: `Task Duration − aiv_time` of the Add
    /// tuning case, 0.46 µs on one core (Cases 0, 1), 2.5-9.4 µs on 48 (Cases 2-5, mean 6.4).
    pub launch_us: f64,
    /// Launch head overhead, µs per launched core ("头开销会随着使用的核数增加而增加",
    /// `docs/zh/guide/算子实践参考/SIMD算子性能优化/头尾开销优化/设置合适的核数和算子Kernel类型.md`).
    /// Fitted as [`Costs::launch_us`].
    pub launch_us_per_core: f64,
    /// Vector cores of the chip (the cores that share GM when the launch is larger):
    /// Ascend910B's 48 AIVs, as the Add tuning case splits its rows ("行方向切分48份").
    pub vector_cores: u32,
    /// Bank groups of the Unified Buffer and the bytes of one bank row: "UB总大小为192K，划分为48个bank。
    /// 每个bank由128行组成，每行长度为32B。这48个bank进一步组织为16个bank group"
    /// (`docs/zh/guide/算子实践参考/SIMD算子性能优化/内存访问/避免UB的bank冲突/避免bank冲突（NPU架构版本2201）.md`).
    pub ub_bank_groups: u32,
}

/// Ascend910B's constants.
pub const ASCEND910B: Costs = Costs {
    clock_ghz: 1.85,
    issue: 1,
    vec_head: 22,
    scalar_ub: 10,
    scalar_gm: 100,
    mask_call: 1,
    mte2_head: 112,
    mte3_head: 57,
    per_row: 2,
    core_gm_bw: 34.4,
    chip_gm_bw: 836.0,
    unaligned_factor: 0.7,
    ub_copy_bw: 256.0,
    mte1_bw: 256.0,
    fixp_bw: 128.0,
    move_head: 20,
    mmad_head: 8,
    flag_latency: 2,
    sync_all: 200,
    launch_us: 0.33,
    launch_us_per_core: 0.126,
    vector_cores: 48,
    ub_bank_groups: 16,
};

/// The bank-conflict beats of one repeat of a vector instruction reading two sources that
/// start at UB bytes `src0` and `src1` with contiguous blocks (block stride 1): the vector
/// unit reads one 32-byte row from each bank group per cycle, and a repeat reads eight blocks
/// of each source, so unless the two sources' blocks fall in disjoint bank groups (starts 256
/// bytes apart modulo 512: the Add tuning case's Case 6 fix), some group serves two rows and
/// the repeat takes two cycles ("读读冲突", the 2201 bank page; Case 4 → 6 of the Add case:
/// `aiv_vec_time` 12.846 → 6.954 µs). Two reads of the same address are one.
pub fn read_beats(src0: u64, src1: u64, bank_groups: u32) -> u8 {
    let groups = u64::from(bank_groups.max(1));
    let (g0, g1) = ((src0 / 32) % groups, (src1 / 32) % groups);
    if src0 == src1 || (g0 + groups - g1) % groups == groups / 2 {
        1
    } else {
        2
    }
}

/// `x.ceil()` as cycles, for `x` from 0 to 2^53: without a call to the C library's `ceil`
/// (which the build's baseline x86-64 target makes of `f64::ceil`), as the replay computes
/// it for every copy.
#[inline]
pub(crate) fn ceil(x: f64) -> u64 {
    let t = x as u64;
    if (t as f64) < x {
        t + 1
    } else {
        t
    }
}

impl Costs {
    /// The constants of `soc`: Ascend910B's for every chip (the others are not modelled yet).
    pub fn of(soc: Soc) -> Costs {
        let _ = soc;
        ASCEND910B
    }

    /// Cycles → µs.
    pub fn us(&self, cycles: u64) -> f64 {
        cycles as f64 / (self.clock_ghz * 1000.0)
    }

    /// The launch head overhead of `cores` cores, cycles.
    pub fn launch_cycles(&self, cores: u32) -> u64 {
        ((self.launch_us + self.launch_us_per_core * f64::from(cores)) * self.clock_ghz * 1000.0).round()
            as u64
    }

    /// Elements per cycle of vector `api` on `dtype` from [`VECTOR_TABLE`]: the row of that
    /// type, else a row of a type of the same size, else `None`.
    pub fn vector_par(api: &str, dtype: Option<DType>) -> Option<f64> {
        let rows = VECTOR_TABLE.iter().filter(|r| r.api == api);
        let Some(d) = dtype else {
            // Unknown type: the first row (the vendor lists the 16-bit one first).
            return rows.clone().find(|r| name_size(r.dtype) == 4).or(rows.clone().next()).map(|r| r.par);
        };
        let name = dtype_name(d);
        rows.clone()
            .find(|r| r.dtype == name)
            .or_else(|| rows.clone().find(|r| name_size(r.dtype) == d.size()))
            .map(|r| r.par)
    }

    /// Cycles of one repeat (256 bytes) of vector `api` on `dtype`: `ceil(elements per repeat /
    /// elements per cycle)`, 1 for an instruction the table does not list (256 bytes per
    /// cycle, assumed).
    pub fn vector_repeat(api: &str, dtype: Option<DType>) -> u64 {
        let size = dtype.map_or(4, |d| d.size());
        match Costs::vector_par(api, dtype) {
            Some(par) => ((256 / size) as f64 / par).ceil().max(1.0) as u64,
            None => 1,
        }
    }

    /// Cycles of an `Mmad` of `m × k` by `k × n` with A of type `dtype`: the vendor's formula
    /// `Δt + ceil_m · ceil_n · ceil_k / (cube_m · cube_n · cube_k)` ([`CUBE_SOURCE`]), with
    /// `ceil_x` the size rounded up to the fractal (16 for m and n, k0 for k: the page writes
    /// `⌈k/16⌉ × k0`, equal for half; for float, k0 = 8, this takes `⌈k/8⌉ × 8`).
    pub fn mmad(&self, m: u32, n: u32, k: u32, dtype: DType) -> u64 {
        // (cube_k, k0) of table 1 (NPU architecture 2201).
        let (cube_k, k0) = match dtype.size() {
            1 => (32, 32),
            2 => (16, 16),
            _ => (4, 8),
        };
        let up = |x: u32, to: u32| u64::from(x.div_ceil(to) * to);
        let work = up(m, 16) * up(n, 16) * up(k, k0);
        self.mmad_head + work.div_ceil(16 * 16 * cube_k)
    }

    /// Bytes a GM copy of `rows` rows of `row` bytes moves: bursts move whole 32-byte blocks.
    pub fn gm_bytes(rows: u64, row: u64) -> u64 {
        rows * row.div_ceil(32) * 32
    }

    /// Cycles of a GM copy of `rows` rows of `row` bytes at GM address `gm` on its pipe alone
    /// (its latency `head`, its rows, its bytes at [`Costs::core_gm_bw`], 70 % of it off a
    /// 512-byte boundary), on a core among `active` cores each moving one copy at once (the
    /// chip's bandwidth shared evenly). The schedule charges the share separately, so that a
    /// core's MTE2 and MTE3 share it (see [`Costs::gm_port`]).
    pub fn gm_copy(&self, head: u64, rows: u64, row: u64, gm: u64, active: u32) -> u64 {
        let mut bw = self.core_gm_bw;
        if gm % 512 != 0 {
            bw *= self.unaligned_factor;
        }
        let bytes = Costs::gm_bytes(rows, row);
        let alone = head + rows.saturating_sub(1) * self.per_row + ceil(bytes as f64 / bw);
        alone.max(head + self.gm_port(rows, row, active))
    }

    /// Cycles a GM copy holds the core's share of the chip's bandwidth
    /// ([`Costs::chip_gm_bw`] over `active` cores, at most [`Costs::vector_cores`]).
    pub fn gm_port(&self, rows: u64, row: u64, active: u32) -> u64 {
        ceil(Costs::gm_bytes(rows, row) as f64 / self.gm_share(active))
    }

    /// A core's share of the chip's GM bandwidth among `active` cores, bytes per cycle.
    pub(crate) fn gm_share(&self, active: u32) -> f64 {
        self.chip_gm_bw / f64::from(active.clamp(1, self.vector_cores))
    }

    /// A GM copy's latency, rows, row bytes and GM address (`None` for other records).
    pub fn gm_parts(&self, op: &Op) -> Option<(u64, u64, u64, u64)> {
        match *op {
            Op::Copy { dir: CopyDir::GmToUb | CopyDir::GmToL1, rows, row, gm } => {
                Some((self.mte2_head, u64::from(rows), u64::from(row), gm))
            }
            Op::Copy { dir: CopyDir::UbToGm, rows, row, gm } => {
                Some((self.mte3_head, u64::from(rows), u64::from(row), gm))
            }
            Op::CubeMove { pipe: super::Pipe::Mte2, bytes, .. } => Some((self.mte2_head, 1, bytes, 0)),
            _ => None,
        }
    }

    /// Cycles of `op` on its pipe (0 for flags, barriers and waits: their time is waiting)
    /// on a core among `active` cores.
    pub fn cycles(&self, op: &Op, api: &str, active: u32) -> u64 {
        match *op {
            Op::Vector { dtype, repeats, beats, .. } => {
                self.vec_head + repeats * Costs::vector_repeat(api, dtype).max(u64::from(beats))
            }
            Op::Copy { dir: CopyDir::UbToUb, rows, row, .. } => {
                self.vec_head + ceil((u64::from(rows) * u64::from(row)) as f64 / self.ub_copy_bw)
            }
            Op::Copy { dir: CopyDir::GmToUb | CopyDir::GmToL1, rows, row, gm } => {
                self.gm_copy(self.mte2_head, u64::from(rows), u64::from(row), gm, active)
            }
            Op::Copy { dir: CopyDir::UbToGm, rows, row, gm } => {
                self.gm_copy(self.mte3_head, u64::from(rows), u64::from(row), gm, active)
            }
            Op::Mmad { m, n, k, dtype } => self.mmad(m, n, k, dtype),
            Op::CubeMove { pipe, bytes, .. } => {
                let bw = match pipe {
                    super::Pipe::Mte1 => self.mte1_bw,
                    super::Pipe::Fixp => self.fixp_bw,
                    _ => return self.gm_copy(self.mte2_head, 1, bytes, 0, active),
                };
                self.move_head + ceil(bytes as f64 / bw)
            }
            Op::Scalar { gm, .. } => {
                if gm {
                    self.scalar_gm
                } else {
                    self.scalar_ub
                }
            }
            Op::Mask => self.mask_call,
            Op::SetFlag { .. }
            | Op::WaitFlag { .. }
            | Op::Barrier(_)
            | Op::SyncAll
            | Op::CrossSet { .. }
            | Op::CrossWait { .. } => 0,
        }
    }
}
