//! Line-by-line ports of the vendor's data-movement, memory-management and TPipe/TQue
//! basic-API examples (`mirror-cann/asc-devkit`, `examples/01_simd_cpp_api/03_basic_api/`).
//!
//! The vendor's examples are correct kernels: they run on the chip and match their golden
//! data. So every launch here keeps the synchronisation sanitizer on (the default) and must
//! succeed; an error from it is a false positive of the sanitizer. Each output is checked
//! against a reference computed the way the example's `scripts/gen_data.py` (or its `main`)
//! computes the golden, bit for bit.
//!
//! AscendC names are in snake_case; the kernels keep the vendor's structure (classes become
//! structs with the same methods), order of calls, events, ids and constants.

use std::mem::size_of;

use ascend_kernels::data::random_vec;
use ascend_runtime::prelude::*;

use crate::gm_of;
use ascend_runtime::testing::assert_bits_eq;

// ---------------------------------------------------------------------------------------
// data_copy_pad_gm2ub_ub2gm
// ---------------------------------------------------------------------------------------

/// `KernelDataCopyPad<T, srcRows, srcCols, dstCols, dstTotalLength>` with `scenarioNum` as
/// a const parameter (the vendor selects it with `-DSCENARIO_NUM`).
struct KernelDataCopyPad<
    T: Element,
    const SCENARIO_NUM: u32,
    const SRC_ROWS: usize,
    const SRC_COLS: usize,
    const DST_COLS: usize,
    const DST_TOTAL_LENGTH: usize,
> {
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
}

impl<
        T: Element,
        const SCENARIO_NUM: u32,
        const SRC_ROWS: usize,
        const SRC_COLS: usize,
        const DST_COLS: usize,
        const DST_TOTAL_LENGTH: usize,
    > KernelDataCopyPad<T, SCENARIO_NUM, SRC_ROWS, SRC_COLS, DST_COLS, DST_TOTAL_LENGTH>
{
    fn init(x: GmAddr, z: GmAddr) -> Self {
        let src_global = gm_of::<T>(x);
        let dst_global = gm_of::<T>(z);
        KernelDataCopyPad { src_global, dst_global }
    }

    fn process(&self) {
        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src_local = ub_allocator.alloc::<T>(DST_TOTAL_LENGTH);
        self.copy_in(&src_local);
        set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        let copy_params = DataCopyExtParams::new(1, (DST_TOTAL_LENGTH * size_of::<T>()) as u32, 0, 0);
        data_copy_pad_to_gm(&self.dst_global, &src_local, &copy_params);
    }

    fn copy_in(&self, src_local: &LocalTensor<T>) {
        // Scenarios 4/5/6 (the Duplicate to zero first) run on Ascend 950 only.
        if SCENARIO_NUM == 1 {
            // blockCount=1, blockLen=20*sizeof(half); isPad=false, rightPadding=12;
            // SetPadValue(1) gives the padding value.
            let copy_params = DataCopyExtParams::new(1, (SRC_COLS * size_of::<T>()) as u32, 0, 0);
            let pad_params = DataCopyPadExtParams::<T> {
                is_pad: false,
                left_padding: 0,
                right_padding: (DST_COLS - SRC_COLS) as u8,
                ..Default::default()
            };

            set_pad_value(T::from_f64(1.0));
            data_copy_pad(src_local, &self.src_global, &copy_params, &pad_params);
        } else if SCENARIO_NUM == 2 {
            // blockCount=32, blockLen=59*sizeof(float); isPad=true (value 0), rightPadding=5.
            let copy_params =
                DataCopyExtParams::new(SRC_ROWS as u16, (SRC_COLS * size_of::<f32>()) as u32, 0, 0);
            let pad_params = DataCopyPadExtParams::<T> {
                is_pad: true,
                left_padding: 0,
                right_padding: (DST_COLS - SRC_COLS) as u8,
                ..Default::default()
            };

            data_copy_pad(src_local, &self.src_global, &copy_params, &pad_params);
        }
    }
}

fn data_copy_pad_custom<
    T: Element,
    const SCENARIO_NUM: u32,
    const SRC_ROWS: usize,
    const SRC_COLS: usize,
    const DST_COLS: usize,
    const DST_TOTAL_LENGTH: usize,
>(
    x: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let op = KernelDataCopyPad::<T, SCENARIO_NUM, SRC_ROWS, SRC_COLS, DST_COLS, DST_TOTAL_LENGTH>::init(x, z);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

/// The golden of `gen_data.py` for scenarios 1 and 2: each row's data, then `pad` up to
/// `dst_cols`.
fn padded_rows<T: Element>(x: &[T], rows: usize, src_cols: usize, dst_cols: usize, pad: T) -> Vec<T> {
    let mut golden = vec![pad; rows * dst_cols];
    for i in 0..rows {
        golden[i * dst_cols..i * dst_cols + src_cols].copy_from_slice(&x[i * src_cols..(i + 1) * src_cols]);
    }
    golden
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/00_data_movement/
// data_copy_pad_gm2ub_ub2gm/data_copy_pad.asc, scenario 1: a [1, 20] half row copied GM→UB
// with DataCopyPad, rightPadding = 12 with isPad = false and SetPadValue(1), then the 32
// halves UB→GM with DataCopyPad; MTE2_MTE3 event between the copies, LocalMemAllocator.
#[test]
fn data_copy_pad_scenario1_set_pad_value() {
    const SRC_ROWS: usize = 1;
    const SRC_COLS: usize = 20;
    const DST_COLS: usize = 32;
    const DST_TOTAL_LENGTH: usize = SRC_ROWS * DST_COLS;
    // gen_data.py: np.random.uniform(-10, 10, [1, 20]).astype(np.float16)
    let x: Vec<f16> = random_vec(SRC_ROWS * SRC_COLS, 9, -10.0, 10.0);
    let xg = GmBuffer::from_vec(x.clone());
    let zg = GmBuffer::<f16>::zeroed(DST_TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            data_copy_pad_custom::<f16, 1, SRC_ROWS, SRC_COLS, DST_COLS, DST_TOTAL_LENGTH>(
                xg.addr(),
                zg.addr(),
            )
        })
        .unwrap();
    assert_bits_eq(&zg.to_vec(), &padded_rows(&x, SRC_ROWS, SRC_COLS, DST_COLS, f16::ONE));
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/00_data_movement/
// data_copy_pad_gm2ub_ub2gm/data_copy_pad.asc, scenario 2: [32, 59] floats copied GM→UB with
// DataCopyPad, isPad = true and rightPadding = 5 (zeros), giving [32, 64] in the UB, then
// one 8 KiB DataCopyPad UB→GM; MTE2_MTE3 event between the copies, LocalMemAllocator.
#[test]
fn data_copy_pad_scenario2_right_padding() {
    const SRC_ROWS: usize = 32;
    const SRC_COLS: usize = 59;
    const DST_COLS: usize = 64;
    const DST_TOTAL_LENGTH: usize = SRC_ROWS * DST_COLS;
    // gen_data.py: np.random.uniform(-10, 10, [32, 59]).astype(np.float32)
    let x: Vec<f32> = random_vec(SRC_ROWS * SRC_COLS, 9, -10.0, 10.0);
    let xg = GmBuffer::from_vec(x.clone());
    // Filled with a non-zero marker so that padding zeros really come from the kernel.
    let zg = GmBuffer::from_vec(vec![7.5f32; DST_TOTAL_LENGTH]);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| {
            data_copy_pad_custom::<f32, 2, SRC_ROWS, SRC_COLS, DST_COLS, DST_TOTAL_LENGTH>(
                xg.addr(),
                zg.addr(),
            )
        })
        .unwrap();
    assert_bits_eq(&zg.to_vec(), &padded_rows(&x, SRC_ROWS, SRC_COLS, DST_COLS, 0.0f32));
}

// ---------------------------------------------------------------------------------------
// tensor_allocation
// ---------------------------------------------------------------------------------------

/// `TensorAllocationKernel<T, TOTAL_LENGTH>`.
struct TensorAllocationKernel<T: AddElement, const TOTAL_LENGTH: usize> {
    x_global: GlobalTensor<T>,
    y_global: GlobalTensor<T>,
    z_global: GlobalTensor<T>,
}

impl<T: AddElement, const TOTAL_LENGTH: usize> TensorAllocationKernel<T, TOTAL_LENGTH> {
    fn init(x: GmAddr, y: GmAddr, z: GmAddr) -> Self {
        let mut x_global = GlobalTensor::<T>::new();
        let mut y_global = GlobalTensor::<T>::new();
        let mut z_global = GlobalTensor::<T>::new();
        x_global.set_global_buffer(x, TOTAL_LENGTH);
        y_global.set_global_buffer(y, TOTAL_LENGTH);
        z_global.set_global_buffer(z, TOTAL_LENGTH);
        TensorAllocationKernel { x_global, y_global, z_global }
    }

    /// Scenario 1: LocalTensors from TQue queues (EnQue/DeQue carry the synchronisation).
    fn process1(&self) {
        let mut pipe = TPipe::new();
        let mut in_queue_x = TQue::<VecIn, 1>::new();
        let mut in_queue_y = TQue::<VecIn, 1>::new();
        let mut out_queue_z = TQue::<VecOut, 1>::new();
        pipe.init_buffer(&mut in_queue_x, 1, TOTAL_LENGTH * size_of::<T>());
        pipe.init_buffer(&mut in_queue_y, 1, TOTAL_LENGTH * size_of::<T>());
        pipe.init_buffer(&mut out_queue_z, 1, TOTAL_LENGTH * size_of::<T>());
        let mut x_local: LocalTensor<T>;
        let mut y_local: LocalTensor<T>;
        let mut z_local: LocalTensor<T>;

        x_local = in_queue_x.alloc_tensor::<T>();
        y_local = in_queue_y.alloc_tensor::<T>();
        data_copy(&x_local, &self.x_global, TOTAL_LENGTH);
        data_copy(&y_local, &self.y_global, TOTAL_LENGTH);
        in_queue_x.enque(x_local);
        in_queue_y.enque(y_local);

        x_local = in_queue_x.deque::<T>();
        y_local = in_queue_y.deque::<T>();
        z_local = out_queue_z.alloc_tensor::<T>();
        add(&z_local, &x_local, &y_local, TOTAL_LENGTH);
        out_queue_z.enque::<T>(z_local);
        in_queue_x.free_tensor(x_local);
        in_queue_y.free_tensor(y_local);

        z_local = out_queue_z.deque::<T>();
        data_copy(&self.z_global, &z_local, TOTAL_LENGTH);
        out_queue_z.free_tensor(z_local);
    }

    /// Scenario 2: LocalTensors from LocalMemAllocator, synchronised by hand.
    fn process2(&self) {
        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let x_local = ub_allocator.alloc::<T>(TOTAL_LENGTH); // Alloc<T, TOTAL_LENGTH>()
        let y_local = ub_allocator.alloc::<T>(TOTAL_LENGTH);
        let z_local = ub_allocator.alloc::<T>(TOTAL_LENGTH);

        data_copy(&x_local, &self.x_global, TOTAL_LENGTH);
        data_copy(&y_local, &self.y_global, TOTAL_LENGTH);

        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        add(&z_local, &x_local, &y_local, TOTAL_LENGTH);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

        data_copy(&self.z_global, &z_local, TOTAL_LENGTH);
    }

    /// Scenario 3: LocalTensors built at fixed UB addresses, synchronised by hand.
    fn process3(&self) {
        let x_addr: usize = 0;
        let y_addr: usize = TOTAL_LENGTH * size_of::<T>();
        let z_addr: usize = y_addr + TOTAL_LENGTH * size_of::<T>();

        let x_local = LocalTensor::<T>::new(TPosition::VECIN, x_addr, TOTAL_LENGTH);
        let y_local = LocalTensor::<T>::new(TPosition::VECIN, y_addr, TOTAL_LENGTH);
        let z_local = LocalTensor::<T>::new(TPosition::VECOUT, z_addr, TOTAL_LENGTH);

        data_copy(&x_local, &self.x_global, TOTAL_LENGTH);
        data_copy(&y_local, &self.y_global, TOTAL_LENGTH);

        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);

        add(&z_local, &x_local, &y_local, TOTAL_LENGTH);

        set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);

        data_copy(&self.z_global, &z_local, TOTAL_LENGTH);
    }
}

fn tensor_allocate_custom<T: AddElement, const TOTAL_LENGTH: usize, const SCENARIO_NUM: u32>(
    x: GmAddr,
    y: GmAddr,
    z: GmAddr,
) {
    init_soc_state();
    let op = TensorAllocationKernel::<T, TOTAL_LENGTH>::init(x, y, z);
    if SCENARIO_NUM == 1 {
        op.process1();
    } else if SCENARIO_NUM == 2 {
        op.process2();
    } else if SCENARIO_NUM == 3 {
        op.process3();
    }
    pipe_barrier::<PIPE_ALL>();
}

/// The inputs and golden of the example's `main`: `x[i] = (i % 100) * 0.1f`,
/// `y[i] = ((i + 50) % 100) * 0.2f`, `golden[i] = x[i] + y[i]`, all in float.
fn tensor_allocation_data(total_length: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..total_length as u32).map(|i| (i % 100) as f32 * 0.1f32).collect();
    let y: Vec<f32> = (0..total_length as u32).map(|i| ((i + 50) % 100) as f32 * 0.2f32).collect();
    let golden = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    (x, y, golden)
}

fn run_tensor_allocation<const SCENARIO_NUM: u32>() {
    const TOTAL_LENGTH: usize = 1024;
    let (x, y, golden) = tensor_allocation_data(TOTAL_LENGTH);
    let (xg, yg) = (GmBuffer::from_vec(x), GmBuffer::from_vec(y));
    let zg = GmBuffer::<f32>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| tensor_allocate_custom::<f32, TOTAL_LENGTH, SCENARIO_NUM>(xg.addr(), yg.addr(), zg.addr()))
        .unwrap();
    // A float Add rounds once, as the golden's float addition does: bit for bit.
    assert_bits_eq(&zg.to_vec(), &golden);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/04_memory_management/
// tensor_allocation/tensor_allocation.asc, scenario 1 (Process1): LocalTensors from three
// depth-1 TQues, AllocTensor/DataCopy/EnQue/DeQue/Add/FreeTensor, 1024 floats.
#[test]
fn tensor_allocation_scenario1_tque() {
    run_tensor_allocation::<1>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/04_memory_management/
// tensor_allocation/tensor_allocation.asc, scenario 2 (Process2): LocalTensors from
// LocalMemAllocator<Hardware::UB>, MTE2_V and V_MTE3 events by hand.
#[test]
fn tensor_allocation_scenario2_local_mem_allocator() {
    run_tensor_allocation::<2>();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/04_memory_management/
// tensor_allocation/tensor_allocation.asc, scenario 3 (Process3): LocalTensors constructed
// at fixed UB addresses (`LocalTensor<T>(TPosition, addr, tileSize)`), events by hand.
#[test]
fn tensor_allocation_scenario3_static_addresses() {
    run_tensor_allocation::<3>();
}

// ---------------------------------------------------------------------------------------
// tmp_buffer
// ---------------------------------------------------------------------------------------

fn tmp_buffer_custom<const TOTAL_LENGTH: usize>(x: GmAddr, y: GmAddr, z: GmAddr) {
    let mut pipe = TPipe::new();
    // Init
    let mut x_gm = GlobalTensor::<bf16>::new();
    let mut y_gm = GlobalTensor::<bf16>::new();
    let mut z_gm = GlobalTensor::<bf16>::new();
    x_gm.set_global_buffer(x, TOTAL_LENGTH);
    y_gm.set_global_buffer(y, TOTAL_LENGTH);
    z_gm.set_global_buffer(z, TOTAL_LENGTH);

    let mut in_queue_x = TQue::<VecIn, 1>::new();
    let mut in_queue_y = TQue::<VecIn, 1>::new();
    let mut out_queue_z = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut in_queue_x, 1, TOTAL_LENGTH * size_of::<bf16>());
    pipe.init_buffer(&mut in_queue_y, 1, TOTAL_LENGTH * size_of::<bf16>());
    pipe.init_buffer(&mut out_queue_z, 1, TOTAL_LENGTH * size_of::<bf16>());

    // TBuf scratch buffers for the float copies
    let mut tmp_buf0 = TBuf::<VecCalc>::new();
    let mut tmp_buf1 = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut tmp_buf0, TOTAL_LENGTH * size_of::<f32>());
    pipe.init_tbuf(&mut tmp_buf1, TOTAL_LENGTH * size_of::<f32>());

    // CopyIn
    let mut x_local = in_queue_x.alloc_tensor::<bf16>();
    let mut y_local = in_queue_y.alloc_tensor::<bf16>();
    data_copy(&x_local, &x_gm, TOTAL_LENGTH);
    data_copy(&y_local, &y_gm, TOTAL_LENGTH);
    in_queue_x.enque(x_local);
    in_queue_y.enque(y_local);

    // Compute
    x_local = in_queue_x.deque::<bf16>();
    y_local = in_queue_y.deque::<bf16>();
    let mut z_local = out_queue_z.alloc_tensor::<bf16>();
    let tmp_tensor0 = tmp_buf0.get::<f32>();
    let tmp_tensor1 = tmp_buf1.get::<f32>();
    cast(&tmp_tensor0, &x_local, RoundMode::CastNone, TOTAL_LENGTH);
    cast(&tmp_tensor1, &y_local, RoundMode::CastNone, TOTAL_LENGTH);
    add(&tmp_tensor0, &tmp_tensor0, &tmp_tensor1, TOTAL_LENGTH);
    cast(&z_local, &tmp_tensor0, RoundMode::CastRint, TOTAL_LENGTH);
    out_queue_z.enque::<bf16>(z_local);
    in_queue_x.free_tensor(x_local);
    in_queue_y.free_tensor(y_local);

    // CopyOut
    z_local = out_queue_z.deque::<bf16>();
    data_copy(&z_gm, &z_local, TOTAL_LENGTH);
    out_queue_z.free_tensor(z_local);
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/04_memory_management/
// tmp_buffer/tmp_buffer.asc: bfloat16 x + y through float TBuf scratch buffers (Cast
// CAST_NONE, Add, Cast CAST_RINT), with TQue-managed inputs and output; 2048 elements.
#[test]
fn tmp_buffer_bf16_add_through_float_tbufs() {
    const TOTAL_LENGTH: usize = 2048;
    // gen_data.py: np.random.uniform(-50, 50, [1, 2048]).astype(bfloat16), twice.
    let x: Vec<bf16> = random_vec(TOTAL_LENGTH, 11, -50.0, 50.0);
    let y: Vec<bf16> = random_vec(TOTAL_LENGTH, 12, -50.0, 50.0);
    let (xg, yg) = (GmBuffer::from_vec(x.clone()), GmBuffer::from_vec(y.clone()));
    let zg = GmBuffer::<bf16>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B)
        .block_dim(1)
        .run(|| tmp_buffer_custom::<TOTAL_LENGTH>(xg.addr(), yg.addr(), zg.addr()))
        .unwrap();
    // golden = (x + y).astype(bfloat16): ml_dtypes adds in float and rounds to nearest-even
    // once, as the kernel's Cast → float Add → Cast RINT does: bit for bit.
    let golden: Vec<bf16> = x.iter().zip(&y).map(|(a, b)| bf16::from_f32(a.to_f32() + b.to_f32())).collect();
    assert_bits_eq(&zg.to_vec(), &golden);
}

// ---------------------------------------------------------------------------------------
// tpipe_reuse
// ---------------------------------------------------------------------------------------

/// The example's `Process<T, totalLength>(src_gm, dst_gm, pipe)`.
fn tpipe_reuse_process<T: MulsElement, const TOTAL_LENGTH: usize>(
    src_gm: GmAddr,
    dst_gm: GmAddr,
    pipe: &mut TPipe,
) {
    let mut src_global = GlobalTensor::<T>::new();
    let mut dst_global = GlobalTensor::<T>::new();
    src_global.set_global_buffer(src_gm, TOTAL_LENGTH);
    dst_global.set_global_buffer(dst_gm, TOTAL_LENGTH);

    let mut in_queue_x = TQue::<VecIn, 1>::new();
    let mut out_queue = TQue::<VecOut, 1>::new();
    pipe.init_buffer(&mut in_queue_x, 1, TOTAL_LENGTH * size_of::<T>());
    pipe.init_buffer(&mut out_queue, 1, TOTAL_LENGTH * size_of::<T>());

    let mut src_local = in_queue_x.alloc_tensor::<T>();
    data_copy(&src_local, &src_global, TOTAL_LENGTH);
    in_queue_x.enque(src_local);

    src_local = in_queue_x.deque::<T>();
    let mut dst_local = out_queue.alloc_tensor::<T>();
    let scalar_value = T::from_f64(3.0);
    muls(&dst_local, &src_local, scalar_value, TOTAL_LENGTH);
    out_queue.enque::<T>(dst_local);
    in_queue_x.free_tensor(src_local);

    dst_local = out_queue.deque::<T>();
    data_copy(&dst_global, &dst_local, TOTAL_LENGTH);
    out_queue.free_tensor(dst_local);
}

fn tpipe_reuse_custom(x: GmAddr, z: GmAddr) {
    const TOTAL_LENGTH: usize = 128;

    let mut pipe1 = TPipe::new();
    tpipe_reuse_process::<f32, TOTAL_LENGTH>(x, z, &mut pipe1);
    pipe1.destroy(); // the first pipe must go before the second is made

    let mut pipe2 = TPipe::new();
    tpipe_reuse_process::<f32, TOTAL_LENGTH>(x, z, &mut pipe2);
    pipe2.destroy();
}

// mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/07_tpipe_tque/tpipe_reuse/
// tpipe_reuse.asc: two TPipes one after the other on the same core (the first destroyed
// before the second is made), each running the same TQue flow (DataCopy, Muls by 3,
// DataCopy out) over the same Unified Buffer addresses; 128 floats.
#[test]
fn tpipe_reuse_two_pipes_in_turn() {
    const TOTAL_LENGTH: usize = 128;
    // gen_data.py: np.ones(128, float32); golden = input_x * 3.
    let x = vec![1.0f32; TOTAL_LENGTH];
    let xg = GmBuffer::from_vec(x.clone());
    let zg = GmBuffer::<f32>::zeroed(TOTAL_LENGTH);
    Launch::new(Soc::Ascend910B).block_dim(1).run(|| tpipe_reuse_custom(xg.addr(), zg.addr())).unwrap();
    let golden: Vec<f32> = x.iter().map(|v| v * 3.0).collect();
    assert_bits_eq(&zg.to_vec(), &golden);
}
