//! A port of the vendor's DataCopy best-practice sample, its GM→UB half (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/05_best_practices/04_memory_access/data_copy/data_copy_ub.h`,
//! scenarios 1–8 of `COPY_DST=UB`): a bandwidth benchmark that streams a matrix into one UB tile
//! with `DataCopyPad`, again and again, never reading the tile and never ordering the copies.
//!
//! Unordered copies of one pipe into the same bytes leave them undetermined, which matters only
//! if something reads them; nothing does here, so the sanitizer must find nothing (and it does
//! report a read of the tile added after the loop). The sample writes no output. Shapes are
//! scaled down from 12288 × 12288 (the sample's ratios and tile shapes kept).

use ascend_runtime::prelude::*;

const AIV_CORE_NUM: usize = 48;

/// `KernelDataCopyPadGm2Ub<m, n, numBlocks, singleCoreM, tileM, tileN>`.
struct KernelDataCopyPadGm2Ub<const M: usize, const N: usize, const TILE_M: usize, const TILE_N: usize> {
    src_global: GlobalTensor<f16>,
    ub_local: LocalTensor<f16>,
}

impl<const M: usize, const N: usize, const TILE_M: usize, const TILE_N: usize>
    KernelDataCopyPadGm2Ub<M, N, TILE_M, TILE_N>
{
    const NUM_BLOCKS: usize = AIV_CORE_NUM;
    const SINGLE_CORE_M: usize = M / AIV_CORE_NUM;
    const UB_BUFFER_SIZE: usize = TILE_M * TILE_N;
    const UB_ADDR: usize = 0;

    fn init(src: GmAddr) -> Self {
        let mut src_global = GlobalTensor::<f16>::new();
        src_global.set_global_buffer(src, M * N);
        let ub_local = LocalTensor::<f16>::new(TPosition::VECIN, Self::UB_ADDR, Self::UB_BUFFER_SIZE);
        KernelDataCopyPadGm2Ub { src_global, ub_local }
    }

    fn process(&self) {
        let block_idx = get_block_idx() as usize;
        let m_start = block_idx * Self::SINGLE_CORE_M;
        let n_loop_count = N.div_ceil(TILE_N);
        let m_loop_count = Self::SINGLE_CORE_M / TILE_M;
        let mut copy_in_params =
            DataCopyParams { block_count: TILE_M as u16, dst_stride: 0, ..Default::default() };
        let pad_params = DataCopyPadParams::new(false, 0, 0, 0);
        for m_block_idx in 0..m_loop_count {
            let m_idx = m_start + m_block_idx * TILE_M;
            for n_block_idx in 0..n_loop_count {
                let n_idx = n_block_idx * TILE_N;
                let cur_cols = if n_idx + TILE_N > N { N - n_idx } else { TILE_N };
                copy_in_params.block_len = (cur_cols * 2) as u16;
                copy_in_params.src_stride = ((N - cur_cols) * 2) as u16;
                data_copy_pad_params(
                    &self.ub_local,
                    &self.src_global.view(m_idx * N + n_idx),
                    &copy_in_params,
                    &pad_params,
                );
            }
        }
    }

    fn process_repeat_whole_4_times(&self) {
        self.repeat_copy(0, N, 4);
    }

    fn process_split_four_and_repeat_4_times(&self) {
        let quarter_n = N / 4;
        for split_idx in 0..4 {
            self.repeat_copy(split_idx * quarter_n, quarter_n, 4);
        }
    }

    fn process_full_matrix_same_addr(&mut self) {
        self.full_matrix_copy(false);
    }

    fn process_full_matrix_offset_addr(&mut self) {
        self.full_matrix_copy(true);
    }

    fn full_matrix_copy(&mut self, offset_addr: bool) {
        let block_idx = get_block_idx() as usize;
        self.src_global.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
        let full_m_block_count = M / Self::SINGLE_CORE_M;
        let n_loop_count = N / TILE_N;
        let m_tile_count = Self::SINGLE_CORE_M / TILE_M;
        let copy_in_params =
            DataCopyParams::new(TILE_M as u16, (TILE_N * 2) as u16, ((N - TILE_N) * 2) as u16, 0);
        let pad_params = DataCopyPadParams::new(false, 0, 0, 0);
        for m_block_idx in 0..full_m_block_count {
            let block_group_start = (m_block_idx / Self::NUM_BLOCKS) * Self::NUM_BLOCKS;
            let cur_m_block_idx = if offset_addr {
                block_group_start + (m_block_idx + block_idx) % Self::NUM_BLOCKS
            } else {
                m_block_idx
            };
            let m_start = cur_m_block_idx * Self::SINGLE_CORE_M;
            for m_tile_idx in 0..m_tile_count {
                let m_idx = m_start + m_tile_idx * TILE_M;
                for n_block_idx in 0..n_loop_count {
                    let n_idx = n_block_idx * TILE_N;
                    data_copy_pad_params(
                        &self.ub_local,
                        &self.src_global.view(m_idx * N + n_idx),
                        &copy_in_params,
                        &pad_params,
                    );
                }
            }
        }
    }

    fn repeat_copy(&self, n_start: usize, n_count: usize, repeat_times: usize) {
        let block_idx = get_block_idx() as usize;
        let m_start = block_idx * Self::SINGLE_CORE_M;
        let n_loop_count = n_count / TILE_N;
        let m_loop_count = Self::SINGLE_CORE_M / TILE_M;
        let copy_in_params =
            DataCopyParams::new(TILE_M as u16, (TILE_N * 2) as u16, ((N - TILE_N) * 2) as u16, 0);
        let pad_params = DataCopyPadParams::new(false, 0, 0, 0);
        for _ in 0..repeat_times {
            for m_block_idx in 0..m_loop_count {
                let m_idx = m_start + m_block_idx * TILE_M;
                for n_block_idx in 0..n_loop_count {
                    let n_idx = n_block_idx * TILE_N;
                    data_copy_pad_params(
                        &self.ub_local,
                        &self.src_global.view(m_idx * N + n_start + n_idx),
                        &copy_in_params,
                        &pad_params,
                    );
                }
            }
        }
    }
}

/// `kernel_data_copy_pad_gm2ub` for `scenario`. With `probe` (not in the sample), the tile is
/// then copied out after the final barrier: a read of bytes the unordered copies left
/// undetermined, which the sanitizer must report.
fn kernel_data_copy_pad_gm2ub<const M: usize, const N: usize, const TILE_M: usize, const TILE_N: usize>(
    scenario: u32,
    src: GmAddr,
    probe: Option<GmAddr>,
) {
    init_soc_state();
    let mut op = KernelDataCopyPadGm2Ub::<M, N, TILE_M, TILE_N>::init(src);
    match scenario {
        5 => op.process_repeat_whole_4_times(),
        6 => op.process_split_four_and_repeat_4_times(),
        7 => op.process_full_matrix_same_addr(),
        8 => op.process_full_matrix_offset_addr(),
        _ => op.process(),
    }
    pipe_barrier::<PIPE_ALL>();
    if let Some(p) = probe {
        let mut out = GlobalTensor::<f16>::new();
        out.set_global_buffer(p.add::<f16>(get_block_idx() as usize * 16), 16);
        data_copy(&out, &op.ub_local, 16);
    }
}

/// Runs `scenario` on the sample's 48 cores over an `M × N` matrix (gen_data.py fills it with
/// random halves; any values do: nothing is computed), with or without the probe.
fn run<const M: usize, const N: usize, const TILE_M: usize, const TILE_N: usize>(
    scenario: u32,
    probe: bool,
) -> Result<LaunchStats, LaunchError> {
    let x: Vec<f16> = (0..M * N).map(|i| f16::from_f32((i % 2039) as f32)).collect();
    let (xg, pg) = (GmBuffer::from_vec(x), GmBuffer::<f16>::zeroed(AIV_CORE_NUM * 16));
    let (xa, pa) = (xg.addr(), probe.then(|| pg.addr()));
    Launch::new(Soc::Ascend910B)
        .block_dim(AIV_CORE_NUM as u32)
        .run(move || kernel_data_copy_pad_gm2ub::<M, N, TILE_M, TILE_N>(scenario, xa, pa))
}

// Scenarios 1–4: tile shapes 1 × 64, 64 × 64, 64 × 1024 over a 3072 × 2048 matrix, and the
// unaligned width (the sample's 12287 → 2047). Reading the tile afterwards is reported.
#[test]
fn scenarios_1_to_4_tile_sizes_and_the_unaligned_width() {
    run::<3072, 2048, 1, 64>(1, false).unwrap();
    run::<3072, 2048, 64, 64>(2, false).unwrap();
    run::<3072, 2048, 64, 1024>(3, false).unwrap();
    run::<3072, 2047, 64, 1024>(4, false).unwrap();
    let e = run::<3072, 2048, 64, 64>(2, true).unwrap_err().to_string();
    assert!(e.contains("DataCopyPad on pipe MTE2 writes UB bytes"), "{e}");
    assert!(e.contains("reads them; add PipeBarrier<PIPE_MTE2>() between the two writes"), "{e}");
}

// Scenarios 5 and 6: the core's rows copied four times whole, or in four column quarters
// four times each (L2 reuse).
#[test]
fn scenarios_5_and_6_repeated_copies() {
    run::<3072, 2048, 64, 1024>(5, false).unwrap();
    run::<3072, 2048, 64, 256>(6, false).unwrap();
}

// Scenarios 7 and 8: every core copies the whole 6144 × 512 matrix, all in the same order or
// each starting at its own block (same-address conflicts), with the L2 cache hint.
#[test]
fn scenarios_7_and_8_whole_matrix_per_core() {
    run::<6144, 512, 128, 64>(7, false).unwrap();
    run::<6144, 512, 128, 64>(8, false).unwrap();
}
