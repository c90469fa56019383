//! Line-by-line ports of the vendor's flag-based inter-core synchronisation examples
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/03_basic_api/05_sync_control/`:
//! `ib_set_wait`, `sequential_block_sync` and `data_sync_barrier`; and `09_utils/gm_by_pass_dcache`).
//!
//! They are correct kernels, so the sanitizer must find nothing: in each, one core reads or
//! accumulates into global memory another core wrote, ordered only by `IBSet`/`IBWait`,
//! `NotifyNextBlock`/`WaitPreBlock`, or a flag written after `DataSyncBarrier` and polled
//! through `ReadGmByPassDCache` — the cross-core orderings the sanitizer has to know. Their
//! waits block, so the multi-core launches run a thread per core (`sync_all(true)`).

use ascend_runtime::prelude::*;

use crate::gm_of;
use ascend_runtime::testing::assert_bits_eq;

// ---------------------------------------------------------------------------------------
// 05_sync_control/ib_set_wait
// ---------------------------------------------------------------------------------------

const IB_TOTAL_LENGTH: usize = 2 * 256;
const IB_USE_CORE_NUM: usize = 2;
const IB_BLOCK_LENGTH: usize = IB_TOTAL_LENGTH / IB_USE_CORE_NUM;

/// `kernel_ib_set_wait`: core 0 computes `z[0..256] = x + y`; core 1 waits for it with
/// `IBWait`, then computes `z[256..512] = z[0..256] + y[256..512]`.
fn kernel_ib_set_wait(x: GmAddr, y: GmAddr, sync: GmAddr, z: GmAddr) {
    let mut pipe = TPipe::new();
    let block_idx = get_block_idx() as i32;

    let x_gm = gm_of::<f16>(x);
    let y_gm = gm_of::<f16>(y);
    let mut sync_gm = GlobalTensor::<i32>::new();
    sync_gm.set_global_buffer(sync, 256);
    let z_gm = gm_of::<f16>(z);

    let mut in_queue_x = TQue::<VecIn, 1>::new();
    let mut in_queue_y = TQue::<VecIn, 1>::new();
    let mut vec_in = TQue::<VecIn, 1>::new();
    let mut out_queue_z = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut in_queue_x, 1, IB_BLOCK_LENGTH * 2);
    pipe.init_buffer(&mut in_queue_y, 1, IB_BLOCK_LENGTH * 2);
    pipe.init_buffer(&mut vec_in, 1, 8 * 4);
    pipe.init_buffer(&mut out_queue_z, 1, IB_BLOCK_LENGTH * 2);

    if block_idx == 1 {
        let sync_buf = vec_in.alloc_tensor::<i32>();
        ib_wait(&sync_gm, &sync_buf, 0, 0);
        vec_in.free_tensor(sync_buf);
    }

    let x_local = in_queue_x.alloc_tensor::<f16>();
    let y_local = in_queue_y.alloc_tensor::<f16>();
    if block_idx == 1 {
        data_copy(&x_local, &z_gm.view(0), IB_BLOCK_LENGTH);
        data_copy(&y_local, &y_gm.view(IB_BLOCK_LENGTH), IB_BLOCK_LENGTH);
    } else {
        data_copy(&x_local, &x_gm.view(0), IB_BLOCK_LENGTH);
        data_copy(&y_local, &y_gm.view(0), IB_BLOCK_LENGTH);
    }
    in_queue_x.enque(x_local);
    in_queue_y.enque(y_local);

    let x_local = in_queue_x.deque::<f16>();
    let y_local = in_queue_y.deque::<f16>();
    let z_local = out_queue_z.alloc_tensor::<f16>();
    add(&z_local, &x_local, &y_local, IB_BLOCK_LENGTH);
    out_queue_z.enque(z_local);
    in_queue_x.free_tensor(x_local);
    in_queue_y.free_tensor(y_local);

    let z_local = out_queue_z.deque::<f16>();
    data_copy(&z_gm.view(block_idx as usize * IB_BLOCK_LENGTH), &z_local, IB_BLOCK_LENGTH);
    out_queue_z.free_tensor(z_local);

    if block_idx == 0 {
        let sync_buf = vec_in.alloc_tensor::<i32>();
        ib_set(&sync_gm, &sync_buf, 0, 0);
        vec_in.free_tensor(sync_buf);
    }
}

#[test]
fn ib_set_wait() {
    // gen_data.py: x = y = ones(512) in half, sync = zeros(256) in int32.
    let x = GmBuffer::from_vec(vec![f16::ONE; IB_TOTAL_LENGTH]);
    let y = GmBuffer::from_vec(vec![f16::ONE; IB_TOTAL_LENGTH]);
    let sync = GmBuffer::<i32>::zeroed(IB_TOTAL_LENGTH / 2);
    let z = GmBuffer::<f16>::zeroed(IB_TOTAL_LENGTH);
    let (xa, ya, sa, za) = (x.addr(), y.addr(), sync.addr(), z.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(IB_USE_CORE_NUM as u32)
        .sync_all(true)
        .run(|| kernel_ib_set_wait(xa, ya, sa, za))
        .unwrap();
    // golden[0:256] = x + y; golden[256:] = golden[0:256] + y[256:], rounded to half.
    let first: Vec<f16> = (0..IB_BLOCK_LENGTH).map(|i| x.to_vec()[i] + y.to_vec()[i]).collect();
    let golden: Vec<f16> = first
        .iter()
        .copied()
        .chain((0..IB_BLOCK_LENGTH).map(|i| first[i] + y.to_vec()[IB_BLOCK_LENGTH + i]))
        .collect();
    assert_bits_eq(&z.to_vec(), &golden);
    // The flag was set once and consumed once: the workspace is zero again.
    assert!(sync.to_vec().iter().all(|&v| v == 0));
}

// ---------------------------------------------------------------------------------------
// 05_sync_control/sequential_block_sync
// ---------------------------------------------------------------------------------------

const SEQ_DATA_SIZE: usize = 256;
const SEQ_BLOCK_NUM: usize = 8;
const SEQ_GM_WORKSPACE_SIZE: usize = SEQ_BLOCK_NUM * 32;
const SEQ_UB_WORKSPACE_SIZE: usize = SEQ_BLOCK_NUM * 32 + 32;
const SEQ_TILE_NUM: usize = 2;

/// `kernel_sequential_block_sync<T>`: every core atomically adds its copy of `x` into `z`,
/// tile by tile, strictly in block order (the deterministic-computation pattern).
fn kernel_sequential_block_sync<T: Element + AtomicElement>(x: GmAddr, z: GmAddr, workspace: GmAddr) {
    let mut pipe = TPipe::new();
    let tile_count = SEQ_DATA_SIZE / SEQ_TILE_NUM;
    let dst_global = gm_of::<T>(z);
    let src_global = gm_of::<T>(x);
    let gm_workspace = gm_of::<i32>(workspace);
    let mut que_tmp = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut que_tmp, 1, SEQ_UB_WORKSPACE_SIZE);
    let ub_workspace = que_tmp.alloc_tensor::<i32>();
    init_determine_compute_workspace(&gm_workspace, &ub_workspace);
    let mut que = TQue::<VecIn, 1>::new();
    pipe.init_buffer(&mut que, 1, SEQ_DATA_SIZE * T::SIZE);
    for i in 0..SEQ_TILE_NUM {
        let src_local = que.alloc_tensor::<T>();
        data_copy(&src_local, &src_global.view(i * tile_count), tile_count);
        wait_pre_block(&gm_workspace, &ub_workspace);
        set_atomic_add::<T>();
        data_copy(&dst_global.view(i * tile_count), &src_local, tile_count);
        disable_dma_atomic();
        notify_next_block(&gm_workspace, &ub_workspace);
        que.free_tensor(src_local);
    }
    que_tmp.free_tensor(ub_workspace);
}

#[test]
fn sequential_block_sync() {
    // gen_data.py: x = ones(256) float32; golden = 8 * x (z starts zeroed).
    let x = GmBuffer::from_vec(vec![1.0f32; SEQ_DATA_SIZE]);
    let z = GmBuffer::<f32>::zeroed(SEQ_DATA_SIZE);
    let work = GmBuffer::<u8>::zeroed(SEQ_GM_WORKSPACE_SIZE);
    let (xa, za, wa) = (x.addr(), z.addr(), work.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(SEQ_BLOCK_NUM as u32)
        .sync_all(true)
        .run(|| kernel_sequential_block_sync::<f32>(xa, za, wa))
        .unwrap();
    assert_bits_eq(&z.to_vec(), &vec![SEQ_BLOCK_NUM as f32; SEQ_DATA_SIZE]);
    // The last core's NotifyNextBlock of the last round zeroed the workspace.
    assert!(work.to_vec().iter().all(|&v| v == 0));
}

// ---------------------------------------------------------------------------------------
// 05_sync_control/data_sync_barrier
// ---------------------------------------------------------------------------------------

const DSB_TOTAL_LENGTH: usize = 8;
const SYNC_FLAG: i32 = 6;
const DATA_VALUE: i32 = 7;

/// `kernel_data_sync_barrier<int32_t, TOTAL_LENGTH>`: core 0 writes a value, then (after
/// `DataSyncBarrier<DDR>`) a flag, both bypassing the data cache; core 1 spins on the flag,
/// then reads the value and writes twice it to `dst`.
fn kernel_data_sync_barrier(src_gm: GmAddr, dst_gm: GmAddr) {
    init_soc_state();
    let block_idx = get_block_idx();
    let src_global = gm_of::<i32>(src_gm);
    if block_idx == 0 {
        write_gm_by_pass_dcache::<i32>(src_gm.add::<i32>(1), DATA_VALUE);
        data_sync_barrier::<MemDsbT::DDR>();
        write_gm_by_pass_dcache::<i32>(src_gm, SYNC_FLAG);
    }
    if block_idx == 1 {
        loop {
            let addr = src_global.get_phy_addr();
            let flag_value = read_gm_by_pass_dcache::<i32>(addr);
            if flag_value == SYNC_FLAG {
                let data_value = read_gm_by_pass_dcache::<i32>(addr.add::<i32>(1));
                write_gm_by_pass_dcache::<i32>(dst_gm, 2 * data_value);
                return;
            }
        }
    }
    pipe_barrier::<PIPE_ALL>();
}

#[test]
fn data_sync_barrier_example() {
    // gen_data.py: x = ones(8) int32; golden = zeros(8) with golden[0] = 2 * DATA_VALUE.
    let x = GmBuffer::from_vec(vec![1i32; DSB_TOTAL_LENGTH]);
    let z = GmBuffer::<i32>::zeroed(DSB_TOTAL_LENGTH);
    let (xa, za) = (x.addr(), z.addr());
    Launch::new(Soc::Ascend910B)
        .block_dim(2)
        .sync_all(true)
        .run(|| kernel_data_sync_barrier(xa, za))
        .unwrap();
    let mut golden = vec![0i32; DSB_TOTAL_LENGTH];
    golden[0] = 2 * DATA_VALUE;
    assert_eq!(z.to_vec(), golden);
}

// ---------------------------------------------------------------------------------------
// 09_utils/gm_by_pass_dcache
// ---------------------------------------------------------------------------------------

const ADD_VALUE: i32 = 100;
const BY_PASS_DATA_SIZE: usize = 1024;

/// `KernelGmByPassDcache<int32_t>`: reads `src[0]` and writes `src[0] + ADD_VALUE` to `dst[0]`,
/// both bypassing the data cache, with `DataSyncBarrier<DDR>` between.
struct KernelGmByPassDcache {
    src_global: GlobalTensor<i32>,
    dst_global: GlobalTensor<i32>,
}

impl KernelGmByPassDcache {
    fn init(src_gm: GmAddr, dst_gm: GmAddr) -> Self {
        KernelGmByPassDcache { src_global: gm_of::<i32>(src_gm), dst_global: gm_of::<i32>(dst_gm) }
    }

    fn process(&self) {
        let src_addr = self.src_global.get_phy_addr();
        let value = read_gm_by_pass_dcache::<i32>(src_addr);
        data_sync_barrier::<MemDsbT::DDR>(); // DDR，等待GM访问指令
        let dst_addr = self.dst_global.get_phy_addr();
        write_gm_by_pass_dcache::<i32>(dst_addr, value + ADD_VALUE);
    }
}

fn kernel_gm_by_pass_dcache(src_gm: GmAddr, dst_gm: GmAddr) {
    init_soc_state();
    let op = KernelGmByPassDcache::init(src_gm, dst_gm);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

#[test]
fn gm_by_pass_dcache() {
    // gen_data.py: x random over int32's range (seeded here), golden = zeros with
    // golden[0] = x[0] + ADD_VALUE (wrapping, as int32 arithmetic on the chip).
    let x: Vec<i32> = ascend_kernels::data::random_vec::<i32>(
        BY_PASS_DATA_SIZE,
        0x5eed,
        f64::from(i32::MIN),
        f64::from(i32::MAX),
    );
    let xb = GmBuffer::from_vec(x.clone());
    let z = GmBuffer::<i32>::zeroed(BY_PASS_DATA_SIZE);
    let (xa, za) = (xb.addr(), z.addr());
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| kernel_gm_by_pass_dcache(xa, za)).unwrap();
    let mut golden = vec![0i32; BY_PASS_DATA_SIZE];
    golden[0] = x[0].wrapping_add(ADD_VALUE);
    assert_eq!(z.to_vec(), golden);
}
