//! Port of the positive example of the vendor's performance guide page on accumulating matrix
//! products in L0C (`mirror-cann/asc-devkit`, `docs/zh/guide/算子实践参考/SIMD算子性能优化/矩阵计算/`,
//! the page on L0C Buffer staging, "正例"): a cube kernel whose data moves through
//! `TQue<A1>`, `TQue<B1>` (GM → L1, ND → NZ), `TQue<A2>`, `TQue<B2>` (L1 → L0A/L0B,
//! `LoadData`), `TQue<CO1>` (two `Mmad`s, the second accumulating onto the first in L0C:
//! `C = A × B + A × B`) and out to GM with `Fixpipe` (NZ → ND), on Ascend910B's cube core.
//! m = k = n = 32, `half` in, `float` out. The queues' EnQue/DeQue and FreeTensor/AllocTensor
//! are the kernel's only synchronisation, so the launch's sanitizer sees their events.
//!
//! The page elides `SplitA`/`SplitB`; they are filled in with the vendor's 2D `LoadData` from
//! NZ in L1 (the `LoadData` page's example for A, one call per row of fractals; B with the
//! transpose, as `matmul_basic_api` does). The page's second `Mmad` passes the L0C tensor
//! itself as its bias operand with `cmatrixInitVal = false`: the vendor's implementation takes a
//! bias in L0C as `cmatrixSource = false`, i.e. it accumulates onto the L0C data, which is the
//! bias-less `Mmad` with `cmatrix_init_val = false` here. The page gives no data: the test
//! draws integers in [-10, 10), so every sum is exact and the output must match
//! `2 · A × B` bit for bit.

use ascend_runtime::prelude::*;

use super::gm_of;

type FmapT = f16;
type WeightT = f16;
type DstT = f32;

const M: u16 = 32;
const K: u16 = 32;
const N: u16 = 32;
/// Rows (and `half` columns) of a fractal.
const CUBE_BLOCK: u16 = 16;

/// `KernelSample` of the page.
struct KernelSample {
    pipe: TPipe,
    in_queue_a1: TQue<A1, 1>,
    in_queue_a2: TQue<A2, 1>,
    in_queue_b1: TQue<B1, 1>,
    in_queue_b2: TQue<B2, 1>,
    out_queue_co1: TQue<Co1, 1>,
    a_gm: GlobalTensor<FmapT>,
    b_gm: GlobalTensor<WeightT>,
    c_gm: GlobalTensor<DstT>,
    m: u16,
    k: u16,
    n: u16,
    a_size: usize,
    b_size: usize,
    c_size: usize,
}

impl KernelSample {
    fn new() -> Self {
        let (m, k, n) = (M, K, N);
        KernelSample {
            pipe: TPipe::new(),
            in_queue_a1: TQue::new(),
            in_queue_a2: TQue::new(),
            in_queue_b1: TQue::new(),
            in_queue_b2: TQue::new(),
            out_queue_co1: TQue::new(),
            a_gm: GlobalTensor::new(),
            b_gm: GlobalTensor::new(),
            c_gm: GlobalTensor::new(),
            m,
            k,
            n,
            a_size: m as usize * k as usize,
            b_size: k as usize * n as usize,
            c_size: m as usize * n as usize,
        }
    }

    fn init(&mut self, a: GmAddr, b: GmAddr, c: GmAddr) {
        self.a_gm = gm_of(a);
        self.b_gm = gm_of(b);
        self.c_gm = gm_of(c);
        self.pipe.init_buffer(&mut self.in_queue_a1, 1, self.a_size * size_of::<FmapT>());
        self.pipe.init_buffer(&mut self.in_queue_a2, 1, self.a_size * size_of::<FmapT>());
        self.pipe.init_buffer(&mut self.in_queue_b1, 1, self.b_size * size_of::<WeightT>());
        self.pipe.init_buffer(&mut self.in_queue_b2, 2, self.b_size * size_of::<WeightT>());
        self.pipe.init_buffer(&mut self.out_queue_co1, 1, self.c_size * size_of::<DstT>());
    }

    fn process(&mut self) {
        self.copy_in();
        self.split_a();
        self.split_b();
        self.compute();
        self.copy_out();
    }

    fn copy_in(&mut self) {
        let a1_local = self.in_queue_a1.alloc_tensor::<FmapT>();
        let b1_local = self.in_queue_b1.alloc_tensor::<WeightT>();
        let (m, k, n) = (self.m, self.k, self.n);
        // {ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride}
        let data_copy_a1_params = Nd2NzParams::new(1, m, k, 0, k, m, 1, 0);
        data_copy_nd2nz(&a1_local, &self.a_gm, &data_copy_a1_params);
        let data_copy_b1_params = Nd2NzParams::new(1, k, n, 0, n, k, 1, 0);
        data_copy_nd2nz(&b1_local, &self.b_gm, &data_copy_b1_params);
        self.in_queue_a1.enque(a1_local);
        self.in_queue_b1.enque(b1_local);
    }

    /// Elided on the page: A from NZ in L1 to Zz in L0A, one `LoadData` per row of fractals.
    fn split_a(&mut self) {
        let a1_local = self.in_queue_a1.deque::<FmapT>();
        let a2_local = self.in_queue_a2.alloc_tensor::<FmapT>();
        let (m, k) = (self.m, self.k);
        let fractal = (CUBE_BLOCK * CUBE_BLOCK) as usize;
        // {startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, addrMode}
        let params = LoadData2DParams::new(0, (k / CUBE_BLOCK) as u8, m / CUBE_BLOCK, 0, 0, false, 0);
        for i in 0..(m / CUBE_BLOCK) as usize {
            load_data(
                &a2_local.view(i * (k / CUBE_BLOCK) as usize * fractal),
                &a1_local.view(i * fractal),
                &params,
            );
        }
        self.in_queue_a2.enque(a2_local);
        self.in_queue_a1.free_tensor(a1_local);
    }

    /// Elided on the page: B from NZ in L1 to Zn in L0B, one transposing `LoadData` per row of
    /// fractals.
    fn split_b(&mut self) {
        let b1_local = self.in_queue_b1.deque::<WeightT>();
        let b2_local = self.in_queue_b2.alloc_tensor::<WeightT>();
        let (k, n) = (self.k, self.n);
        let fractal = (CUBE_BLOCK * CUBE_BLOCK) as usize;
        let params = LoadData2DParams::new(0, (n / CUBE_BLOCK) as u8, k / CUBE_BLOCK, 0, 0, true, 0);
        for i in 0..(k / CUBE_BLOCK) as usize {
            load_data(
                &b2_local.view(i * (n / CUBE_BLOCK) as usize * fractal),
                &b1_local.view(i * fractal),
                &params,
            );
        }
        self.in_queue_b1.free_tensor(b1_local);
        self.in_queue_b2.enque(b2_local);
    }

    fn compute(&mut self) {
        let a2_local = self.in_queue_a2.deque::<FmapT>();
        let b2_local = self.in_queue_b2.deque::<WeightT>();
        let c1_local = self.out_queue_co1.alloc_tensor::<DstT>();
        let mut mmad_params = MmadParams { m: self.m, n: self.n, k: self.k, ..MmadParams::default() };
        // The first product.
        mmad(&c1_local, &a2_local, &b2_local, &mmad_params);
        pipe_barrier::<PIPE_M>();
        // The second, accumulated onto the first (`Mmad(c1Local, a2Local, b2Local, c1Local, …)`).
        mmad_params.cmatrix_init_val = false;
        mmad(&c1_local, &a2_local, &b2_local, &mmad_params);
        self.out_queue_co1.enque(c1_local);
        self.in_queue_a2.free_tensor(a2_local);
        self.in_queue_b2.free_tensor(b2_local);
    }

    fn copy_out(&mut self) {
        let c1_local = self.out_queue_co1.deque::<DstT>();
        let (m, n) = (self.m, self.n);
        // {nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}
        let fixpipe_params =
            FixpipeParamsV220::new(n, m, m, n as u32, false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0);
        fixpipe(&self.c_gm, &c1_local, &fixpipe_params);
        self.out_queue_co1.free_tensor(c1_local);
    }
}

/// The kernel entry: `KernelSample op; op.Init(a, b, c); op.Process();`.
fn l0c_accumulate(a: GmAddr, b: GmAddr, c: GmAddr) {
    let mut op = KernelSample::new();
    op.init(a, b, c);
    op.process();
}

/// Integers in [-10, 10) as `half`, from a fixed seed.
fn ints(len: usize, seed: u64) -> Vec<f16> {
    let mut rng = ascend_kernels::data::XorShift64::new(seed);
    (0..len).map(|_| f16::from_f32(rng.range(-10, 10) as f32)).collect()
}

#[test]
fn l0c_accumulate_matches_twice_the_product_bit_for_bit() {
    let (m, k, n) = (M as usize, K as usize, N as usize);
    let (a, b) = (ints(m * k, 11), ints(k * n, 12));
    let golden: Vec<f32> = (0..m * n)
        .map(|i| {
            let (r, col) = (i / n, i % n);
            let sum: f32 = (0..k).map(|kk| a[r * k + kk].to_f32() * b[kk * n + col].to_f32()).sum();
            2.0 * sum
        })
        .collect();
    let (a_gm, b_gm) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b));
    let c_gm = GmBuffer::<f32>::zeroed(m * n);
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .run(move || l0c_accumulate(pa, pb, pc))
        .unwrap();
    let out = c_gm.to_vec();
    let bad = (0..m * n).filter(|&i| out[i].to_bits() != golden[i].to_bits()).count();
    assert_eq!(
        bad,
        0,
        "first: {:?}",
        (0..m * n).find(|&i| out[i] != golden[i]).map(|i| (i, out[i], golden[i]))
    );
    assert!(golden.iter().any(|&g| g != 0.0));
}

/// The sanitizer does not track L1 accesses yet, but it checks that every cube buffer handed out
/// comes back: the kernel stopped after its DeQue of A1, the tensor never freed, fails at its
/// end, naming the buffer in L1.
#[test]
fn l0c_accumulate_must_free_its_buffers() {
    let (m, k, n) = (M as usize, K as usize, N as usize);
    let (a_gm, b_gm) = (GmBuffer::from_vec(ints(m * k, 11)), GmBuffer::from_vec(ints(k * n, 12)));
    let c_gm = GmBuffer::<f32>::zeroed(m * n);
    let (pa, pb, pc) = (a_gm.addr(), b_gm.addr(), c_gm.addr());
    let err = Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .run(move || {
            let mut op = KernelSample::new();
            op.init(pa, pb, pc);
            op.copy_in();
            let a1 = op.in_queue_a1.deque::<FmapT>();
            std::mem::forget(a1);
        })
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains(
            "sanitizer: the kernel ended with buffer 0 of a A1 queue (L1 [0x0, 0x800)) still allocated when the TPipe \
             was dropped"
        ),
        "{msg}"
    );
}
