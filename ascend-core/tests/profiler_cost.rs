//! The profiler's cost table against the vendor's pages: every row of the vector throughput
//! table, and the Mmad formula for several shapes (numbers copied from
//! `docs/zh/api/附录/Vector指令理论性能汇总.md` and `Cube指令理论性能汇总.md`).

use ascend_core::profiler::cost::{dtype_name, Costs, VECTOR_TABLE};
use ascend_core::profiler::{CopyDir, Op};
use ascend_core::{DType, Soc};

const TYPES: [DType; 11] = [
    DType::U8,
    DType::I8,
    DType::U16,
    DType::I16,
    DType::U32,
    DType::I32,
    DType::U64,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
];

#[test]
fn every_vector_row_gives_its_cycles_per_repeat() {
    assert_eq!(VECTOR_TABLE.len(), 140);
    for row in VECTOR_TABLE {
        let d = TYPES.iter().copied().find(|&d| dtype_name(d) == row.dtype).expect(row.dtype);
        // A repeat is 256 bytes: 256 / size elements at `par` elements per cycle.
        let want = ((256 / d.size()) as f64 / row.par).ceil() as u64;
        // Rows of one API and type agree (the table lists each once).
        assert_eq!(Costs::vector_par(row.api, Some(d)), Some(row.par), "{} {}", row.api, row.dtype);
        assert_eq!(Costs::vector_repeat(row.api, Some(d)), want.max(1), "{} {}", row.api, row.dtype);
        let c = Costs::of(Soc::Ascend910B);
        let op = Op::Vector { dtype: Some(d), repeats: 10 };
        assert_eq!(c.cycles(&op, row.api, 1), c.vec_head + 10 * want.max(1));
    }
}

#[test]
fn vector_rows_as_published() {
    let rep = |api, d| Costs::vector_repeat(api, Some(d));
    // Add: half 128, float 64 elements per cycle: one repeat per cycle.
    assert_eq!((rep("Add", DType::F16), rep("Add", DType::F32)), (1, 1));
    // Exp: 32 elements per cycle: half 128 / 32 = 4, float 64 / 32 = 2.
    assert_eq!((rep("Exp", DType::F16), rep("Exp", DType::F32)), (4, 2));
    // ReduceRepeat float: 64/7 elements per cycle, 7 cycles a repeat.
    assert_eq!(rep("ReduceRepeat", DType::F32), 7);
    // Gather: 5 elements per cycle, float 64 / 5 = 12.8, 13.
    assert_eq!(rep("Gather", DType::F32), 13);
    // Sort32: 2 elements per cycle.
    assert_eq!(rep("Sort32", DType::F16), 64);
    // Unlisted: one repeat per cycle.
    assert_eq!(rep("NoSuchInstruction", DType::F32), 1);
    // Unknown type: the float row.
    assert_eq!(Costs::vector_repeat("Exp", None), 2);
}

#[test]
fn mmad_cycles_follow_the_vendor_formula() {
    let c = Costs::of(Soc::Ascend910B);
    let h = c.mmad_head;
    // ceil_m * ceil_n * ceil_k / (cube_m * cube_n * cube_k), half: 16 x 16 x 16.
    assert_eq!(c.mmad(16, 16, 16, DType::F16), h + 1);
    assert_eq!(c.mmad(32, 48, 64, DType::F16), h + 32 * 48 * 64 / (16 * 16 * 16));
    // m, n rounded up to 16; k to k0 = 16.
    assert_eq!(c.mmad(17, 1, 20, DType::F16), h + 32 * 16 * 32 / 4096);
    // float: cube_k = 4, k0 = 8.
    assert_eq!(c.mmad(16, 16, 8, DType::F32), h + 2);
    assert_eq!(c.mmad(64, 64, 12, DType::F32), h + 64 * 64 * 16 / (16 * 16 * 4));
    // int8: cube_k = 32, k0 = 32.
    assert_eq!(c.mmad(16, 32, 64, DType::I8), h + 16 * 32 * 64 / (16 * 16 * 32));
    assert_eq!(c.mmad(128, 128, 256, DType::I8), h + 128 * 128 * 256 / 8192);
}

#[test]
fn gm_copies_pay_latency_alignment_and_sharing() {
    let c = Costs::of(Soc::Ascend910B);
    let one = |bytes: u64, addr: u64, active: u32| c.gm_copy(c.mte2_head, 1, bytes, addr, active);
    // Aligned 16 KiB on one core: head + bytes / core bandwidth.
    assert_eq!(one(16384, 0, 1), c.mte2_head + (16384.0 / c.core_gm_bw) as u64);
    // The guide's "16KB以上" statement: at least 85 % of the peak at 16 KiB.
    assert!(16384.0 / c.core_gm_bw / one(16384, 0, 1) as f64 > 0.85);
    // Off a 512-byte boundary: 70 % of the bandwidth.
    assert_eq!(one(16384, 32, 1), c.mte2_head + (16384.0 / (c.core_gm_bw * 0.7)).ceil() as u64);
    // 48 cores share the chip's bandwidth.
    assert_eq!(one(16384, 0, 48), c.mte2_head + (16384.0 / (c.chip_gm_bw / 48.0)).ceil() as u64);
    // Rows: whole 32-byte blocks, per-row overhead.
    let op = Op::Copy { dir: CopyDir::GmToUb, rows: 4, row: 40, gm: 0 };
    assert_eq!(
        c.cycles(&op, "DataCopyPad", 1),
        c.mte2_head + 3 * c.per_row + (4.0 * 64.0 / c.core_gm_bw) as u64
    );
}
