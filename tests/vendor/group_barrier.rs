//! Line-by-line port of the vendor's `group_barrier` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/05_sync_control/group_barrier`): on 8 cores, cores 0
//! and 1 (the arrive group) each add 12 into `dst[0]` with an atomic `DataCopy`, then
//! `Arrive`; cores 2..8 (the wait group) `Wait`, then read `dst[0]`, which must be the sum of
//! both adds. A correct kernel: the sanitizer must find nothing, since the barrier orders the
//! arrivers' atomic adds before the waiters' plain reads.

use ascend_runtime::prelude::*;

const ARRIVE_NUM: u32 = 2;
const WAIT_NUM: u32 = 6;
const SIZE_NUM: usize = 1;
const TEMP: i32 = (ARRIVE_NUM * WAIT_NUM) as i32;
const NUM_BLOCKS: u32 = 8;

/// `KernelGroupBarrier`.
struct KernelGroupBarrier {
    in_queue: TQue<VecIn, 1>,
    dst_global: GlobalTensor<i32>,
    total_length: usize,
    bar_workspace: GmAddr,
}

impl KernelGroupBarrier {
    fn init(bar_gm: GmAddr, dst_gm: GmAddr, pipe: &mut TPipe) -> Self {
        let one_block_num = 32 / std::mem::size_of::<i32>();
        let total_length = SIZE_NUM.div_ceil(one_block_num) * one_block_num;
        let mut dst_global = GlobalTensor::new();
        dst_global.set_global_buffer(dst_gm, total_length);
        let mut in_queue = TQue::new();
        pipe.init_buffer(&mut in_queue, 1, total_length * std::mem::size_of::<i32>());
        KernelGroupBarrier { in_queue, dst_global, total_length, bar_workspace: bar_gm }
    }

    fn process(&mut self) -> Option<i32> {
        // apply GroupBarrier
        let mut bar_a = GroupBarrier::<PipeMode::MTE3_MODE>::new(self.bar_workspace, ARRIVE_NUM, WAIT_NUM);
        init_global_memory(&self.dst_global, self.total_length, 0); // init output zero
        sync_all();
        let id = get_block_idx();
        if id < ARRIVE_NUM {
            // arrive realize
            let src_local = self.in_queue.alloc_tensor::<i32>();
            disable_dma_atomic();
            src_local.set_value(0, TEMP); // set initial number
            set_atomic_add::<i32>(); // add initial number
            data_copy(&self.dst_global, &src_local, self.total_length);
            disable_dma_atomic();
            self.in_queue.free_tensor(src_local);
            bar_a.arrive(id); // arrive end
            None
        } else if id < ARRIVE_NUM + WAIT_NUM {
            // wait realize
            bar_a.wait(id - ARRIVE_NUM); // wait end
            let val = self.dst_global.get_value(0);
            ascend_printf!(
                "[Block (%lu/%d)]: OUTPUT = %d\n",
                u64::from(id - ARRIVE_NUM),
                WAIT_NUM as i32,
                val
            );
            Some(val)
        } else {
            None
        }
    }
}

/// `kernel_group_barrier`; returns what a waiter read.
fn kernel_group_barrier(bar_gm: GmAddr, dst_gm: GmAddr) -> Option<i32> {
    let mut pipe = TPipe::new();
    let mut op = KernelGroupBarrier::init(bar_gm, dst_gm, &mut pipe);
    op.process()
}

/// Runs the example's host side (`WAIT_NUM * 512` bytes of zeroed workspace, 8 `int32_t` of
/// output); returns the output, the workspace's words and what each waiter read.
fn run() -> (Vec<i32>, Vec<u32>, Vec<Option<i32>>) {
    let bar = GmBuffer::<u32>::zeroed(WAIT_NUM as usize * 512 / 4);
    let dst = GmBuffer::<i32>::zeroed(8);
    let (ba, da) = (bar.addr(), dst.addr());
    let read = std::sync::Mutex::new(vec![None; NUM_BLOCKS as usize]);
    Launch::new(Soc::Ascend910B)
        .block_dim(NUM_BLOCKS)
        .sync_all(true)
        .run(|| {
            let v = kernel_group_barrier(ba, da);
            read.lock().unwrap()[get_block_idx() as usize] = v;
        })
        .unwrap();
    (dst.to_vec(), bar.to_vec(), read.into_inner().unwrap())
}

#[test]
fn group_barrier() {
    let (dst, bar, read) = run();
    // Both arrivers' adds landed before any waiter read: every waiter prints 24.
    let expected = ARRIVE_NUM as i32 * TEMP;
    // (Only element 0: the arrivers set element 0 of their 8-element tile, so the atomic copy
    // adds whatever the UB held in elements 1..8 — the example prints element 0 only.)
    assert_eq!(dst[0], expected);
    let mut waiters = read.clone();
    waiters.retain(Option::is_some);
    assert_eq!(waiters, vec![Some(expected); WAIT_NUM as usize]);
    assert!(read[..ARRIVE_NUM as usize].iter().all(Option::is_none));
    // The counters: each arrive message adds 1 to the head of every arrive counter (byte 512k),
    // each wait message to every wait counter (byte 512k + 64), over max(2, 6) = 6 lines.
    for k in 0..WAIT_NUM as usize {
        assert_eq!(bar[128 * k], ARRIVE_NUM, "arrive counter {k}");
        assert_eq!(bar[128 * k + 16], WAIT_NUM, "wait counter {k}");
    }
}
