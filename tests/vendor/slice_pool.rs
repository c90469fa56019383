//! Line-by-line ports of the vendor's slice-copy and TBufPool basic-API examples
//! (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/03_basic_api/`:
//! `00_data_movement/data_copy_gm2ub_slice` and `04_memory_management/tbufpool_management`).
//!
//! The vendor's examples are correct kernels: they run on the chip and match their golden
//! data. So every launch here keeps the synchronisation sanitizer on (the default) and must
//! succeed; an error from it would be a false positive of the sanitizer. Each output is
//! checked against a reference computed the way the example's `scripts/gen_data.py` computes
//! its golden, bit for bit.
//!
//! AscendC names are in snake_case; the kernels keep the vendor's structure (classes become
//! structs with the same methods), order of calls, events, ids and constants. The vendor
//! selects a scenario with `-DSCENARIO_NUM`; here it is a const parameter. The C++ `SliceInfo`
//! arrays of `K_MAX_DIM` entries are passed whole, as the vendor passes them (the API reads
//! the first `dimValue`).
//!
//! Left out: `tbufpool_management` scenario 3 (`ProcessCustomizedBufPool`), which builds its
//! own pool class with the `EXTERN_IMPL_BUFPOOL` macro and `TQueBind::InitStartBufHandle` /
//! `InitBufHandle` (the customised-TBufPool API), which this crate does not have.

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

use crate::gm_of;
use ascend_runtime::testing::assert_bits_eq;

// ---------------------------------------------------------------------------------------
// data_copy_gm2ub_slice
// ---------------------------------------------------------------------------------------

/// `SliceData<T>`.
struct SliceData<T: DataCopySliceElement> {
    src_addr: u64,
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
    dst_slice_info: [SliceInfo; K_MAX_DIM],
    src_slice_info: [SliceInfo; K_MAX_DIM],
    dim_value: u32,
}

impl<T: DataCopySliceElement> SliceData<T> {
    fn new() -> Self {
        SliceData {
            src_addr: 0,
            src_global: GlobalTensor::new(),
            dst_global: GlobalTensor::new(),
            dst_slice_info: [SliceInfo::default(); K_MAX_DIM],
            src_slice_info: [SliceInfo::default(); K_MAX_DIM],
            dim_value: 0,
        }
    }

    fn init(&mut self, dst_gm: GmAddr, src_gm: GmAddr) {
        let src_slice_info_in = [SliceInfo::new(16, 70, 7, 3, 87), SliceInfo::new(0, 2, 1, 1, 3)];
        let dst_slice_info_in = [SliceInfo::new(0, 47, 0, 3, 48), SliceInfo::new(0, 1, 0, 1, 2)];
        let dim_value_in: u32 = 2;
        self.dim_value = dim_value_in;
        for i in 0..dim_value_in as usize {
            self.src_slice_info[i].start_index = src_slice_info_in[i].start_index;
            self.src_slice_info[i].end_index = src_slice_info_in[i].end_index;
            self.src_slice_info[i].stride = src_slice_info_in[i].stride;
            self.src_slice_info[i].burst_len = src_slice_info_in[i].burst_len;
            self.src_slice_info[i].shape_value = src_slice_info_in[i].shape_value;
            self.dst_slice_info[i].start_index = dst_slice_info_in[i].start_index;
            self.dst_slice_info[i].end_index = dst_slice_info_in[i].end_index;
            self.dst_slice_info[i].stride = dst_slice_info_in[i].stride;
            self.dst_slice_info[i].burst_len = dst_slice_info_in[i].burst_len;
            self.dst_slice_info[i].shape_value = dst_slice_info_in[i].shape_value;
        }
        self.src_global = gm_of::<T>(src_gm);
        self.dst_global = gm_of::<T>(dst_gm);
    }

    fn process(&self) {
        let dst_data_size: u32 = 96;
        let src_local =
            LocalTensor::<T>::new(TPosition::VECIN, self.src_addr as usize, dst_data_size as usize);
        // GM -> UB: MTE2
        data_copy_slice(
            &src_local,
            &self.src_global,
            &self.dst_slice_info,
            &self.src_slice_info,
            self.dim_value,
        );
        // MTE3 waits for MTE2
        set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        // UB -> GM: MTE3
        data_copy_slice(
            &self.dst_global,
            &src_local,
            &self.dst_slice_info,
            &self.dst_slice_info,
            self.dim_value,
        );
    }
}

fn kernel_slice(dst_gm: GmAddr, src_gm: GmAddr) {
    init_soc_state();
    let mut op = SliceData::<f32>::new();
    op.init(dst_gm, src_gm);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/00_data_movement/
// data_copy_gm2ub_slice/slice.asc: a [3, 87] float tensor, four pieces of 24 ([0, 16:40],
// [0, 47:71], [2, 16:40], [2, 47:71]) into a [2, 48] one in the UB and back to GM; one block.
#[test]
fn data_copy_gm2ub_slice() {
    // main: inputByteSize = 3 * 87 * sizeof(float), outputByteSize = 2 * 48 * sizeof(float).
    let input_x: Vec<f32> = random_vec(3 * 87, 0x511C, 0.0, 1.0); // np.random.rand(3, 87)
    let xg = GmBuffer::from_vec(input_x.clone());
    let outg = GmBuffer::<f32>::zeroed(2 * 48);
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| kernel_slice(outg.addr(), xg.addr())).unwrap();
    // gen_data.py
    let x = |r: usize, a: usize, b: usize| input_x[r * 87 + a..r * 87 + b].to_vec();
    let mut golden = vec![0f32; 2 * 48];
    golden[0..24].copy_from_slice(&x(0, 16, 40));
    golden[24..48].copy_from_slice(&x(0, 47, 71));
    golden[48..72].copy_from_slice(&x(2, 16, 40));
    golden[72..96].copy_from_slice(&x(2, 47, 71));
    assert_bits_eq(&outg.to_vec(), &golden);
}

// ---------------------------------------------------------------------------------------
// tbufpool_management
// ---------------------------------------------------------------------------------------

/// `KernelBufPool<bufSize, mask>` with `scenarioNum` as a const parameter.
struct KernelBufPool<'a, const BUF_SIZE: usize, const MASK: usize, const SCENARIO_NUM: u32> {
    pipe: &'a mut TPipe,
    tbuf_pool0: TBufPool<VecCalc>,
    tbuf_pool1: TBufPool<VecCalc>,
    tbuf_pool2: TBufPool<VecCalc>,
    src_que0: TQue<VecIn, 1>,
    src_que1: TQue<VecIn, 1>,
    src_que2: TQue<VecIn, 1>,
    src_que3: TQue<VecIn, 1>,
    dst_que0: TQue<VecOut, 1>,
    dst_que1: TQue<VecOut, 1>,
    src0_global: GlobalTensor<f16>,
    src1_global: GlobalTensor<f16>,
    dst_global: GlobalTensor<f16>,
}

impl<'a, const BUF_SIZE: usize, const MASK: usize, const SCENARIO_NUM: u32>
    KernelBufPool<'a, BUF_SIZE, MASK, SCENARIO_NUM>
{
    fn init(src0_gm: GmAddr, src1_gm: GmAddr, dst_gm: GmAddr, pipe_in: &'a mut TPipe) -> Self {
        KernelBufPool {
            pipe: pipe_in,
            tbuf_pool0: TBufPool::new(),
            tbuf_pool1: TBufPool::new(),
            tbuf_pool2: TBufPool::new(),
            src_que0: TQue::new(),
            src_que1: TQue::new(),
            src_que2: TQue::new(),
            src_que3: TQue::new(),
            dst_que0: TQue::new(),
            dst_que1: TQue::new(),
            src0_global: gm_of::<f16>(src0_gm),
            src1_global: gm_of::<f16>(src1_gm),
            dst_global: gm_of::<f16>(dst_gm),
        }
    }

    // Scenario 1: TBufPool memory reuse
    fn process_buf_pool_reuse(&mut self) {
        // tbufPool2 reuses tbufPool1's start address and length
        self.pipe.init_buf_pool(&mut self.tbuf_pool1, BUF_SIZE * 3);
        self.pipe.init_buf_pool_shared(&mut self.tbuf_pool2, BUF_SIZE * 3, &self.tbuf_pool1);

        self.tbuf_pool1.init_buffer(&mut self.src_que0, 1, BUF_SIZE);
        self.tbuf_pool1.init_buffer(&mut self.src_que1, 1, BUF_SIZE);
        self.tbuf_pool1.init_buffer(&mut self.dst_que0, 1, BUF_SIZE);
        self.copy_in();
        self.compute();
        self.copy_out();
        self.tbuf_pool1.reset();

        self.tbuf_pool2.init_buffer(&mut self.src_que2, 1, BUF_SIZE);
        self.tbuf_pool2.init_buffer(&mut self.src_que3, 1, BUF_SIZE);
        self.tbuf_pool2.init_buffer(&mut self.dst_que1, 1, BUF_SIZE);
        self.copy_in1();
        self.compute1();
        self.copy_out1();
        self.tbuf_pool2.reset();
    }

    // Scenario 2: TBufPool subdivision
    fn process_buf_pool_subdivision(&mut self) {
        // tbufPool0, then tbufPool1 and tbufPool2 carved from it
        self.pipe.init_buf_pool(&mut self.tbuf_pool0, BUF_SIZE * 4);
        self.tbuf_pool0.init_buf_pool(&mut self.tbuf_pool1, BUF_SIZE * 2);
        self.tbuf_pool0.init_buffer(&mut self.src_que0, 1, BUF_SIZE * 2);
        // tbufPool2 reuses tbufPool1's start address and length
        self.tbuf_pool0.init_buf_pool_shared(&mut self.tbuf_pool2, BUF_SIZE * 2, &self.tbuf_pool1);

        self.tbuf_pool1.init_buffer(&mut self.src_que1, 1, BUF_SIZE);
        self.tbuf_pool1.init_buffer(&mut self.dst_que0, 1, BUF_SIZE);
        self.copy_in();
        self.compute();
        self.copy_out();
        self.tbuf_pool1.reset();

        self.tbuf_pool2.init_buffer(&mut self.src_que2, 1, BUF_SIZE);
        self.tbuf_pool2.init_buffer(&mut self.dst_que1, 1, BUF_SIZE);
        self.copy_in1();
        self.compute1();
        self.copy_out1();
        self.tbuf_pool2.reset();
        self.tbuf_pool0.reset();
        self.pipe.reset();
    }

    fn copy_in(&mut self) {
        let src0_local = self.src_que0.alloc_tensor::<f16>();
        let src1_local = self.src_que1.alloc_tensor::<f16>(); // scenarioNum != 3
        data_copy(&src0_local, &self.src0_global, MASK);
        data_copy(&src1_local, &self.src1_global, MASK);
        self.src_que0.enque(src0_local);
        self.src_que1.enque(src1_local);
    }

    fn compute(&mut self) {
        let src0_local = self.src_que0.deque::<f16>();
        let src1_local = self.src_que1.deque::<f16>();
        let dst_local = self.dst_que0.alloc_tensor::<f16>();
        add(&dst_local, &src0_local, &src1_local, MASK);
        self.dst_que0.enque::<f16>(dst_local);
        self.src_que0.free_tensor(src0_local);
        self.src_que1.free_tensor(src1_local);
    }

    fn copy_out(&mut self) {
        let dst_local = self.dst_que0.deque::<f16>();
        data_copy(&self.dst_global, &dst_local, MASK);
        self.dst_que0.free_tensor(dst_local);
    }

    fn copy_in1(&mut self) {
        let (src0_local, src1_local) = if SCENARIO_NUM == 1 {
            (self.src_que2.alloc_tensor::<f16>(), self.src_que3.alloc_tensor::<f16>())
        } else {
            (self.src_que0.alloc_tensor::<f16>(), self.src_que2.alloc_tensor::<f16>())
        };
        data_copy(&src0_local, &self.src0_global, MASK);
        data_copy(&src1_local, &self.src1_global, MASK);
        if SCENARIO_NUM == 1 {
            self.src_que2.enque(src0_local);
            self.src_que3.enque(src1_local);
        } else {
            self.src_que0.enque(src0_local);
            self.src_que2.enque(src1_local);
        }
    }

    fn compute1(&mut self) {
        let (src0_local, src1_local) = if SCENARIO_NUM == 1 {
            (self.src_que2.deque::<f16>(), self.src_que3.deque::<f16>())
        } else {
            (self.src_que0.deque::<f16>(), self.src_que2.deque::<f16>())
        };
        let dst_local = self.dst_que1.alloc_tensor::<f16>();
        add(&dst_local, &src0_local, &src1_local, MASK);
        self.dst_que1.enque::<f16>(dst_local);
        if SCENARIO_NUM == 1 {
            self.src_que2.free_tensor(src0_local);
            self.src_que3.free_tensor(src1_local);
        } else {
            self.src_que0.free_tensor(src0_local);
            self.src_que2.free_tensor(src1_local);
        }
    }

    fn copy_out1(&mut self) {
        let dst_local = self.dst_que1.deque::<f16>();
        data_copy(&self.dst_global, &dst_local, MASK);
        self.dst_que1.free_tensor(dst_local);
    }
}

fn tbufpool_management_custom<const SCENARIO_NUM: u32>(x: GmAddr, y: GmAddr, z: GmAddr) {
    let mut pipe = TPipe::new();
    if SCENARIO_NUM == 1 {
        // Scenario 1: TBufPool memory reuse
        let mut op = KernelBufPool::<65536, 512, SCENARIO_NUM>::init(x, y, z, &mut pipe);
        op.process_buf_pool_reuse();
    } else if SCENARIO_NUM == 2 {
        // Scenario 2: TBufPool subdivision
        let mut op = KernelBufPool::<32768, 16384, SCENARIO_NUM>::init(x, y, z, &mut pipe);
        op.process_buf_pool_subdivision();
    }
}

/// Runs the example's `main` for a scenario: `x`, `y` of `total_size` halves drawn from
/// `np.random.uniform(1, 10)`, `z` zeroed; gen_data.py's golden is `zeros`, with
/// `golden[0:mask] = x[0:mask] + y[0:mask]` (a half addition, rounded once, as Add's).
fn run_tbufpool_management<const SCENARIO_NUM: u32>(total_size: usize, mask: usize) {
    let x: Vec<f16> = random_vec(total_size, 0xB0F + u64::from(SCENARIO_NUM), 1.0, 10.0);
    let y: Vec<f16> = random_vec(total_size, 0xB1F + u64::from(SCENARIO_NUM), 1.0, 10.0);
    let (xg, yg) = (GmBuffer::from_vec(x.clone()), GmBuffer::from_vec(y.clone()));
    let zg = GmBuffer::<f16>::zeroed(total_size);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| tbufpool_management_custom::<SCENARIO_NUM>(xg.addr(), yg.addr(), zg.addr()))
        .unwrap();
    let mut golden = vec![f16::ZERO; total_size];
    for i in 0..mask {
        golden[i] = f16::from_f32(x[i].to_f32() + y[i].to_f32());
    }
    assert_bits_eq(&zg.to_vec(), &golden);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/04_memory_management/
// tbufpool_management/tbufpool_management.asc, scenario 1 (ProcessBufPoolReuse): two pools over
// the same 3 * 65536 bytes (the whole Atlas A2 Unified Buffer), three queues each, a Reset
// between the stages; shape [3, 65536], mask 512.
#[test]
fn tbufpool_management_scenario1_reuse() {
    run_tbufpool_management::<1>(3 * 65536, 512);
}

// Same example, scenario 2 (ProcessBufPoolSubdivision): pool0 of 4 * 32768 bytes, pool1 carved
// from it, srcQue0 from pool0, pool2 sharing pool1's bytes; srcQue0 serves both stages; shape
// [4, 32768], mask 16384.
#[test]
fn tbufpool_management_scenario2_subdivision() {
    run_tbufpool_management::<2>(4 * 32768, 16384);
}
