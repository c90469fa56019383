//! A line-by-line port of the vendor's best-practice `Add` sample (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance/add.asc`):
//! static tensors at fixed UB addresses (`LocalTensor<T>(TPosition::VECCALC, addr, len)`),
//! every pipe ordering written by hand with `SetFlag`/`WaitFlag`, from the scalar baseline
//! (case 0) to 48 cores with double buffering (case 4), reading the inputs around the L2
//! cache (case 5, `SetL2CacheHint`) and with the tiles moved apart against UB bank conflicts
//! (case 6).
//!
//! These are correct kernels, so each launch keeps the sanitizer on and must succeed. Case 0
//! reads and writes the tiles with `GetValue`/`SetValue` with only the MTE2→V and V→MTE3
//! events around them: correct because the BiSheng compiler's automatic synchronisation (on by
//! default) inserts the scalar pipe's events, and reported when the launch models
//! `--cce-auto-sync=off`. The shapes are smaller than the sample's 8192 × 8192 so that the
//! tests stay fast; the kernel is the sample's. The emulator has no L2 cache and no UB banks:
//! cases 5 and 6 compute what case 4 does, which is what they must do.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

const MAX_DATA_COPY_LEN: usize = 16384;
const X_ADDR: usize = 0;
const Y_ADDR: usize = MAX_DATA_COPY_LEN * 2;
const Z_ADDR: usize = Y_ADDR + MAX_DATA_COPY_LEN * 2;
const X_ADDR_PING: usize = 0;
const Y_ADDR_PING: usize = MAX_DATA_COPY_LEN * 2;
const Z_ADDR_PING: usize = Y_ADDR_PING + MAX_DATA_COPY_LEN * 2;
const X_ADDR_PONG: usize = Z_ADDR_PING + MAX_DATA_COPY_LEN * 2;
const Y_ADDR_PONG: usize = X_ADDR_PONG + MAX_DATA_COPY_LEN * 2;
const Z_ADDR_PONG: usize = Y_ADDR_PONG + MAX_DATA_COPY_LEN * 2;
const BANK_CONFLICT_DATA_COPY_LEN: usize = 16256;
const X_ADDR_PING_BC: usize = 0;
const Y_ADDR_PING_BC: usize = BANK_CONFLICT_DATA_COPY_LEN * 2;
const X_ADDR_PONG_BC: usize = MAX_DATA_COPY_LEN * 2 * 2;
const Y_ADDR_PONG_BC: usize = X_ADDR_PONG_BC + BANK_CONFLICT_DATA_COPY_LEN * 2;
const Z_ADDR_PING_BC: usize = MAX_DATA_COPY_LEN * 2 * 4;
const Z_ADDR_PONG_BC: usize = Z_ADDR_PING_BC + BANK_CONFLICT_DATA_COPY_LEN * 2;

/// `KernelAdd<totalM, totalN, splitM, splitN, dataCopyLen>`.
struct KernelAdd<const TOTAL_M: usize, const TOTAL_N: usize, const SPLIT_M: usize, const DATA_COPY_LEN: usize>
{
    x_gm: GlobalTensor<f16>,
    y_gm: GlobalTensor<f16>,
    z_gm: GlobalTensor<f16>,
    total_elements_per_core: usize,
}

impl<const TOTAL_M: usize, const TOTAL_N: usize, const SPLIT_M: usize, const DATA_COPY_LEN: usize>
    KernelAdd<TOTAL_M, TOTAL_N, SPLIT_M, DATA_COPY_LEN>
{
    fn init(x: GmAddr, y: GmAddr, z: GmAddr) -> Self {
        let block_idx_m = get_block_idx() as usize;
        let base_core_m = TOTAL_M / SPLIT_M;
        let remainder_m = TOTAL_M % SPLIT_M;
        let (actual_core_m, start_m) = if block_idx_m < remainder_m {
            (base_core_m + 1, block_idx_m * (base_core_m + 1))
        } else {
            (base_core_m, remainder_m * (base_core_m + 1) + (block_idx_m - remainder_m) * base_core_m)
        };
        let total_elements_per_core = actual_core_m * TOTAL_N;
        let bind = |a: GmAddr| {
            let mut g = GlobalTensor::<f16>::new();
            g.set_global_buffer(a.add::<f16>(start_m * TOTAL_N), total_elements_per_core);
            g
        };
        KernelAdd { x_gm: bind(x), y_gm: bind(y), z_gm: bind(z), total_elements_per_core }
    }

    fn get_total_blocks(&self) -> usize {
        self.total_elements_per_core.div_ceil(DATA_COPY_LEN)
    }

    /// Cases 1–3: one set of tiles; the next copy-in waits for the vector pipe (V_MTE2), the
    /// next Add for the copy-out (MTE3_V).
    fn process(&self) {
        let x_local = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR, MAX_DATA_COPY_LEN);
        let y_local = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR, MAX_DATA_COPY_LEN);
        let z_local = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR, MAX_DATA_COPY_LEN);
        let total_blocks = self.get_total_blocks();
        for loop_idx in 0..total_blocks {
            let start_element = loop_idx * DATA_COPY_LEN;
            let remain_elements = self.total_elements_per_core - start_element;
            let cur_len = remain_elements.min(DATA_COPY_LEN);
            if loop_idx != 0 {
                wait_flag::<HardEvent::V_MTE2>(EVENT_ID0);
            }
            data_copy(&x_local, &self.x_gm.view(start_element), cur_len);
            data_copy(&y_local, &self.y_gm.view(start_element), cur_len);
            set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            if loop_idx != 0 {
                wait_flag::<HardEvent::MTE3_V>(EVENT_ID0);
            }
            add(&z_local, &x_local, &y_local, cur_len);
            if loop_idx != total_blocks - 1 {
                set_flag::<HardEvent::V_MTE2>(EVENT_ID0);
            }
            set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            data_copy(&self.z_gm.view(start_element), &z_local, cur_len);
            if loop_idx != total_blocks - 1 {
                set_flag::<HardEvent::MTE3_V>(EVENT_ID0);
            }
        }
    }

    /// Case 0: the same loop with a scalar add (`GetValue`/`SetValue` per element).
    fn process_scalar(&self) {
        let x_local = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR, MAX_DATA_COPY_LEN);
        let y_local = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR, MAX_DATA_COPY_LEN);
        let z_local = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR, MAX_DATA_COPY_LEN);
        let total_loop = self.get_total_blocks();
        for loop_idx in 0..total_loop {
            let start_element = loop_idx * DATA_COPY_LEN;
            let remain_elements = self.total_elements_per_core - start_element;
            let cur_len = remain_elements.min(DATA_COPY_LEN);
            if loop_idx != 0 {
                wait_flag::<HardEvent::V_MTE2>(EVENT_ID0);
            }
            data_copy(&x_local, &self.x_gm.view(start_element), cur_len);
            data_copy(&y_local, &self.y_gm.view(start_element), cur_len);
            set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            if loop_idx != 0 {
                wait_flag::<HardEvent::MTE3_V>(EVENT_ID0);
            }
            for i in 0..cur_len {
                let x_val = x_local.get_value(i).to_f32();
                let y_val = y_local.get_value(i).to_f32();
                z_local.set_value(i, f16::from_f32(x_val + y_val));
            }
            if loop_idx != total_loop - 1 {
                set_flag::<HardEvent::V_MTE2>(EVENT_ID0);
            }
            set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
            data_copy(&self.z_gm.view(start_element), &z_local, cur_len);
            if loop_idx != total_loop - 1 {
                set_flag::<HardEvent::MTE3_V>(EVENT_ID0);
            }
        }
    }

    /// Case 4: ping-pong tiles, each with its own event ids (set once before the loop and
    /// waited once after it).
    fn process_double_buffer(&self) {
        let x_ping = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR_PING, MAX_DATA_COPY_LEN);
        let y_ping = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR_PING, MAX_DATA_COPY_LEN);
        let z_ping = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR_PING, MAX_DATA_COPY_LEN);
        let x_pong = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR_PONG, MAX_DATA_COPY_LEN);
        let y_pong = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR_PONG, MAX_DATA_COPY_LEN);
        let z_pong = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR_PONG, MAX_DATA_COPY_LEN);
        self.double_buffer_loop([&x_ping, &y_ping, &z_ping], [&x_pong, &y_pong, &z_pong]);
    }

    /// Case 5: case 4 with the inputs read around the L2 cache (read once, they would only
    /// evict the output).
    fn process_double_buffer_l2_bypass(&mut self) {
        self.x_gm.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
        self.y_gm.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
        self.process_double_buffer();
    }

    /// Case 6: case 5 with the tiles placed `BANK_CONFLICT_DATA_COPY_LEN` apart, so that `x`
    /// and `y` of one tile sit in different UB banks. (The vendor writes the loop of case 4 out
    /// again; here both call one loop.)
    fn process_double_buffer_bank_conflict(&mut self) {
        self.x_gm.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
        self.y_gm.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE);
        let x_ping = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR_PING_BC, MAX_DATA_COPY_LEN);
        let y_ping = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR_PING_BC, MAX_DATA_COPY_LEN);
        let z_ping = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR_PING_BC, MAX_DATA_COPY_LEN);
        let x_pong = LocalTensor::<f16>::new(TPosition::VECCALC, X_ADDR_PONG_BC, MAX_DATA_COPY_LEN);
        let y_pong = LocalTensor::<f16>::new(TPosition::VECCALC, Y_ADDR_PONG_BC, MAX_DATA_COPY_LEN);
        let z_pong = LocalTensor::<f16>::new(TPosition::VECCALC, Z_ADDR_PONG_BC, MAX_DATA_COPY_LEN);
        self.double_buffer_loop([&x_ping, &y_ping, &z_ping], [&x_pong, &y_pong, &z_pong]);
    }

    /// The loop of cases 4–6 over the ping and pong tiles `[x, y, z]`.
    fn double_buffer_loop(
        &self,
        [x_ping, y_ping, z_ping]: [&LocalTensor<f16>; 3],
        [x_pong, y_pong, z_pong]: [&LocalTensor<f16>; 3],
    ) {
        let total_blocks = self.get_total_blocks();
        set_flag::<HardEvent::V_MTE2>(EVENT_ID0);
        set_flag::<HardEvent::V_MTE2>(EVENT_ID1);
        set_flag::<HardEvent::MTE3_V>(EVENT_ID0);
        set_flag::<HardEvent::MTE3_V>(EVENT_ID1);
        for loop_idx in 0..total_blocks {
            let start_element = loop_idx * DATA_COPY_LEN;
            let remain_elements = self.total_elements_per_core - start_element;
            let cur_len = remain_elements.min(DATA_COPY_LEN);
            let event_id = if loop_idx & 1 == 0 { EVENT_ID0 } else { EVENT_ID1 };
            let x_local = if loop_idx & 1 == 0 { x_ping } else { x_pong };
            let y_local = if loop_idx & 1 == 0 { y_ping } else { y_pong };
            let z_local = if loop_idx & 1 == 0 { z_ping } else { z_pong };
            wait_flag::<HardEvent::V_MTE2>(event_id);
            data_copy(x_local, &self.x_gm.view(start_element), cur_len);
            data_copy(y_local, &self.y_gm.view(start_element), cur_len);
            set_flag::<HardEvent::MTE2_V>(event_id);
            wait_flag::<HardEvent::MTE2_V>(event_id);
            wait_flag::<HardEvent::MTE3_V>(event_id);
            add(z_local, x_local, y_local, cur_len);
            set_flag::<HardEvent::V_MTE2>(event_id);
            set_flag::<HardEvent::V_MTE3>(event_id);
            wait_flag::<HardEvent::V_MTE3>(event_id);
            data_copy(&self.z_gm.view(start_element), z_local, cur_len);
            set_flag::<HardEvent::MTE3_V>(event_id);
        }
        wait_flag::<HardEvent::V_MTE2>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE2>(EVENT_ID1);
        wait_flag::<HardEvent::MTE3_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE3_V>(EVENT_ID1);
    }
}

/// `add_custom<totalM, totalN, splitM, splitN = 1, dataCopyLen>` for case `scenario`.
fn add_custom<
    const TOTAL_M: usize,
    const TOTAL_N: usize,
    const SPLIT_M: usize,
    const DATA_COPY_LEN: usize,
>(
    scenario: u32,
    x: GmAddr,
    y: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let mut op = KernelAdd::<TOTAL_M, TOTAL_N, SPLIT_M, DATA_COPY_LEN>::init(x, y, z);
    match scenario {
        0 => op.process_scalar(),
        4 => op.process_double_buffer(),
        5 => op.process_double_buffer_l2_bypass(),
        6 => op.process_double_buffer_bank_conflict(),
        _ => op.process(), // cases 1 (ProcessSingle, the same code), 2 and 3
    }
    pipe_barrier::<PIPE_ALL>();
}

/// Runs case `scenario` on `SPLIT_M` cores over `TOTAL_M × TOTAL_N` halves of
/// `np.random.uniform(1, 100)` (as `gen_data.py`), with or without the compiler's automatic
/// synchronisation, and checks `x + y` rounded once to half, bit for bit.
fn run_case<const TOTAL_M: usize, const TOTAL_N: usize, const SPLIT_M: usize, const DATA_COPY_LEN: usize>(
    scenario: u32,
    auto_sync: bool,
) -> Result<(), LaunchError> {
    let n = TOTAL_M * TOTAL_N;
    let (x, y): (Vec<f16>, Vec<f16>) = (random_vec(n, 41, 1.0, 100.0), random_vec(n, 42, 1.0, 100.0));
    let (xg, yg, zg) =
        (GmBuffer::from_vec(x.clone()), GmBuffer::from_vec(y.clone()), GmBuffer::<f16>::zeroed(n));
    Launch::new(Soc::Ascend910B).block_dim(SPLIT_M as u32).auto_sync(auto_sync).run(|| {
        add_custom::<TOTAL_M, TOTAL_N, SPLIT_M, DATA_COPY_LEN>(scenario, xg.addr(), yg.addr(), zg.addr())
    })?;
    let golden: Vec<f16> = x.iter().zip(&y).map(|(a, b)| f16::from_f32(a.to_f32() + b.to_f32())).collect();
    assert_bits_eq(&zg.to_vec(), &golden);
    Ok(())
}

// Case 0: one core, the scalar add, 4096-element tiles.
#[test]
fn case0_scalar_is_correct_with_the_compilers_automatic_synchronisation() {
    run_case::<16, 1000, 1, 4096>(0, true).unwrap();
    // Built with --cce-auto-sync=off, the scalar reads race with the copy-in.
    let err = run_case::<16, 1000, 1, 4096>(0, false).unwrap_err().to_string();
    assert!(err.contains("LocalTensor::GetValue on pipe S reads UB bytes"), "{err}");
    assert!(err.contains("HardEvent::MTE2_S"), "{err}");
}

// Cases 1–3: one or 48 cores, 4096- or 16384-element tiles.
#[test]
fn cases1_to_3_single_buffer() {
    run_case::<16, 1000, 1, 4096>(1, true).unwrap();
    run_case::<144, 1024, 48, 4096>(2, true).unwrap();
    run_case::<96, 8192, 48, 16384>(3, true).unwrap();
    // Hand-written events only: also clean without the compiler's synchronisation.
    run_case::<96, 8192, 48, 16384>(3, false).unwrap();
}

// Case 4: 48 cores, double buffering over the whole Unified Buffer (6 × 32 KiB).
#[test]
fn case4_double_buffer() {
    run_case::<144, 8192, 48, 16384>(4, true).unwrap();
    run_case::<100, 8000, 48, 16384>(4, false).unwrap();
}

// Cases 5 and 6: case 4 with the L2 cache hint, and with bank-conflict-free tile addresses
// (16256-element tiles).
#[test]
fn cases5_and_6_l2_bypass_and_bank_conflict_free_tiles() {
    run_case::<144, 8192, 48, 16384>(5, true).unwrap();
    run_case::<144, 8192, 48, BANK_CONFLICT_DATA_COPY_LEN>(6, true).unwrap();
    run_case::<100, 8000, 48, BANK_CONFLICT_DATA_COPY_LEN>(6, false).unwrap();
}
