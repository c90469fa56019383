//! Kernels on the high-level `Matmul` (`ascend_core::adv::matmul`), written as their AscendC
//! originals are (`init` / `process` / `copy_in` / `compute` / `copy_out`), with host sides
//! that build the tiling with `MultiCoreMatmulTiling`:
//!
//! - [`matmul_leakyrelu`]: `C = LeakyRelu(A × B + bias, alpha)`, half A/B, float bias and C;
//!   each `baseM × baseN` block goes to `VECIN`, through `LeakyRelu`, and out with `DataCopy`
//!   (the vendor's `matmul_leakyrelu_advanced_api`, generalised to any core count);
//! - [`matmul_int8`]: `C = A × Bᵀ + bias`, `int8_t` A and B (B stored `N × K`), `int32_t`
//!   bias and C, a cube kernel with `IterateAll`: exact;
//! - [`attention`]: single-head attention forward, `O = softmax(Q·Kᵀ · scale) · V`, one core
//!   per head: `Q·Kᵀ` into `VECIN`, `SoftMax` on the vector unit, `P` (half) to a GM
//!   workspace, `P·V` into GM.
//!
//! They run as `KernelType::AivOnly` (vector cores driving the Matmul) or `AicOnly` launches
//! until mixed launches exist; see `docs/matmul.md` for what changes then.
//!
//! ```
//! use ascend_kernels::matmul_fused::{attention_reference, run_attention};
//! use ascend_runtime::prelude::*;
//! use ascend_runtime::testing::{assert_close, Tolerance};
//! let (heads, s, d) = (2, 32, 16);
//! let q: Vec<f16> = ascend_kernels::data::random_vec(heads * s * d, 1, -1.0, 1.0);
//! let k: Vec<f16> = ascend_kernels::data::random_vec(heads * s * d, 2, -1.0, 1.0);
//! let v: Vec<f16> = ascend_kernels::data::random_vec(heads * s * d, 3, -1.0, 1.0);
//! let (o, _) = run_attention(Soc::Ascend910B, &q, &k, &v, heads, s, d).unwrap();
//! assert_close(&o, &attention_reference(&q, &k, &v, heads, s, d), Tolerance::new(1e-3, 1e-3, 0.0));
//! ```

use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
use ascend_runtime::prelude::*;

/// Builds a tiling with the vendor's calls (`SetDim`, `SetAType`/`SetBType`/`SetCType`/
/// `SetBiasType`, `SetOrgShape`, `SetShape`, `EnableBias`, `SetFixSplit`, `SetBufferSpace`).
#[allow(clippy::too_many_arguments)]
fn tiling(
    dim: u32,
    ab: DataType,
    trans_b: bool,
    c_pos: TPos,
    c: DataType,
    bias: Option<DataType>,
    (m, n, k): (usize, usize, usize),
    fix: (i32, i32, i32),
) -> TCubeTiling {
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_dim(dim as i32);
    api.set_a_type(TPos::GM, CubeFormat::ND, ab, false);
    api.set_b_type(TPos::GM, CubeFormat::ND, ab, trans_b);
    api.set_c_type(c_pos, CubeFormat::ND, c);
    if let Some(b) = bias {
        api.set_bias_type(TPos::GM, CubeFormat::ND, b);
    }
    api.set_org_shape(m as i32, n as i32, k as i32);
    api.set_shape(m as i32, n as i32, k as i32);
    api.enable_bias(bias.is_some());
    api.set_fix_split(fix.0, fix.1, fix.2);
    api.set_buffer_space(-1, -1, -1);
    api.get_tiling().unwrap_or_else(|e| panic!("{e}"))
}

/// This core's (mCoreIdx, nCoreIdx) and its tail, as the vendor's `CalcOffset` computes them.
fn core_split(t: &TCubeTiling, block_idx: usize) -> (usize, usize, i32, i32) {
    let m_blocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    let (mi, ni) = (block_idx % m_blocks as usize, block_idx / m_blocks as usize);
    let tail_m = (t.M - mi as i32 * t.singleCoreM).min(t.singleCoreM);
    let tail_n = (t.N - ni as i32 * t.singleCoreN).min(t.singleCoreN);
    (mi, ni, tail_m, tail_n)
}

// ---------------------------------------------------------------------------------------------

/// The tiling of [`matmul_leakyrelu`]: the Matmul's and `alpha`.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct MatmulLeakyReluTiling {
    /// The Matmul's tiling.
    pub cube: TCubeTiling,
    /// LeakyRelu's slope.
    pub alpha: f32,
}

type MmLeaky = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<VecIn, cube_format::ND, f32>,
    MatmulType<Gm, cube_format::ND, f32>,
>;

/// One core of [`matmul_leakyrelu`].
pub struct KernelMatmulLeakyRelu {
    pipe: TPipe,
    mm: MmLeaky,
    c_gm: GlobalTensor<f32>,
    mm_out_queue: TQue<VecIn, 1>,
    relu_out_queue: TQue<VecOut, 1>,
    t: TCubeTiling,
    alpha: f32,
    /// This core's block counts along M.
    m_blocks: usize,
}

impl KernelMatmulLeakyRelu {
    /// Binds this core's share of A, B, bias and C, registers the Matmul and carves the
    /// queues (one `baseM × baseN` float block each).
    pub fn init(a: GmAddr, b: GmAddr, bias: GmAddr, c: GmAddr, tiling: &MatmulLeakyReluTiling) -> Self {
        let t = tiling.cube;
        let pipe = TPipe::new();
        let mut mm = MmLeaky::new();
        regist_matmul_obj!(&pipe, (), mm, &t);
        let (mi, ni, tail_m, tail_n) = core_split(&t, get_block_idx() as usize);
        let (sm, sn) = (t.singleCoreM as usize, t.singleCoreN as usize);
        let (k, n) = (t.Ka as usize, t.N as usize);
        let bind_h = |addr: GmAddr, len: usize, off: usize| {
            let mut g = GlobalTensor::<f16>::new();
            g.set_global_buffer(addr, len);
            g.view(off)
        };
        let bind_f = |addr: GmAddr, len: usize, off: usize| {
            let mut g = GlobalTensor::<f32>::new();
            g.set_global_buffer(addr, len);
            g.view(off)
        };
        let a_gm = bind_h(a, t.M as usize * k, mi * sm * k);
        let b_gm = bind_h(b, k * n, ni * sn);
        let bias_gm = bind_f(bias, n, ni * sn);
        let c_gm = bind_f(c, t.M as usize * n, mi * sm * n + ni * sn);
        if tail_m < t.singleCoreM || tail_n < t.singleCoreN {
            mm.set_tail(tail_m, tail_n, -1);
        }
        mm.set_tensor_a(&a_gm, false);
        mm.set_tensor_b(&b_gm, false);
        mm.set_bias(&bias_gm);
        let mut k = KernelMatmulLeakyRelu {
            pipe,
            mm,
            c_gm,
            mm_out_queue: TQue::new(),
            relu_out_queue: TQue::new(),
            t,
            alpha: tiling.alpha,
            m_blocks: (tail_m as usize).div_ceil(t.baseM as usize),
        };
        let bytes = (t.baseM * t.baseN) as usize * std::mem::size_of::<f32>();
        k.pipe.init_buffer(&mut k.mm_out_queue, 1, bytes);
        k.pipe.init_buffer(&mut k.relu_out_queue, 1, bytes);
        k
    }

    /// One round per `Iterate`: the block into `VECIN`, `LeakyRelu`, out to GM.
    pub fn process(&mut self) {
        let mut round = 0;
        while self.mm.iterate::<true>() {
            self.copy_in();
            self.compute();
            self.copy_out(round);
            round += 1;
        }
        self.mm.end();
    }

    /// `GetTensorC` into the `VECIN` queue.
    fn copy_in(&mut self) {
        let mm_out_local = self.mm_out_queue.alloc_tensor::<f32>();
        self.mm.get_tensor_c::<true, _>(&mm_out_local, false, true);
        self.mm_out_queue.enque(mm_out_local);
    }

    fn compute(&mut self) {
        let mm_out_local = self.mm_out_queue.deque::<f32>();
        let relu_out_local = self.relu_out_queue.alloc_tensor::<f32>();
        leaky_relu(&relu_out_local, &mm_out_local, self.alpha, (self.t.baseM * self.t.baseN) as usize);
        self.relu_out_queue.enque(relu_out_local);
        self.mm_out_queue.free_tensor(mm_out_local);
    }

    /// The block to its place in C (blocks go M first, `iterateOrder = 0`).
    fn copy_out(&mut self, round: usize) {
        let t = self.t;
        let (mi, ni) = (round % self.m_blocks, round / self.m_blocks);
        let off = mi * (t.baseM * t.N) as usize + ni * t.baseN as usize;
        let relu_out_local = self.relu_out_queue.deque::<f32>();
        let f = std::mem::size_of::<f32>();
        data_copy_params(
            &self.c_gm.view(off),
            &relu_out_local,
            &DataCopyParams::new(
                t.baseM as u16,
                (t.baseN as usize * f / 32) as u16,
                0,
                ((t.N - t.baseN) as usize * f / 32) as u16,
            ),
        );
        self.relu_out_queue.free_tensor(relu_out_local);
    }
}

/// The kernel entry point (`matmul_leakyrelu_custom(a, b, bias, c, workspace, tiling)`).
pub fn matmul_leakyrelu(a: GmAddr, b: GmAddr, bias: GmAddr, c: GmAddr, tiling: GmAddr) {
    init_soc_state();
    let t: MatmulLeakyReluTiling = get_tiling_data(tiling);
    let mut op = KernelMatmulLeakyRelu::init(a, b, bias, c, &t);
    op.process();
}

/// Host side: the tiling (`SetDim(cores)`, `SetFixSplit(128, 64, -1)`), then
/// [`matmul_leakyrelu`] as a vector kernel on `usedCoreNum` cores; returns C and the stats.
///
/// # Errors
/// The launch's error.
///
/// # Panics
/// Panics if the sizes are not multiples of 128 (M) and 64 (N), K of 16, or the slices do
/// not match them.
#[allow(clippy::too_many_arguments)]
pub fn run_matmul_leakyrelu(
    soc: Soc,
    a: &[f16],
    b: &[f16],
    bias: &[f32],
    (m, n, k): (usize, usize, usize),
    alpha: f32,
    cores: u32,
) -> Result<(Vec<f32>, LaunchStats), LaunchError> {
    assert!(
        m % 128 == 0 && n % 64 == 0 && k % 16 == 0 && k > 0,
        "M = {m}, N = {n}, K = {k}: multiples of 128, 64, 16"
    );
    assert!(a.len() == m * k && b.len() == k * n && bias.len() == n, "slice sizes do not match M, N, K");
    let cube = tiling(
        cores,
        DataType::DT_FLOAT16,
        false,
        TPos::VECIN,
        DataType::DT_FLOAT,
        Some(DataType::DT_FLOAT),
        (m, n, k),
        (128, 64, -1),
    );
    assert!(
        cube.singleCoreM % 128 == 0 && cube.singleCoreN % 64 == 0,
        "the split {cube:?} leaves partial blocks"
    );
    let tg = GmBuffer::from_tiling(&MatmulLeakyReluTiling { cube, alpha });
    let (ga, gb, gbias) = (GmBuffer::from_slice(a), GmBuffer::from_slice(b), GmBuffer::from_slice(bias));
    let gc = GmBuffer::<f32>::zeroed(m * n);
    let (pa, pb, pbias, pc, pt) = (ga.addr(), gb.addr(), gbias.addr(), gc.addr(), tg.addr());
    let stats = Launch::new(soc)
        .kernel_type(KernelType::AivOnly)
        .block_dim(cube.usedCoreNum as u32)
        .run(move || matmul_leakyrelu(pa, pb, pbias, pc, pt))?;
    Ok((gc.to_vec(), stats))
}

/// `LeakyRelu(A × B + bias)` in `f64`, rounded once to `float`.
pub fn matmul_leakyrelu_reference(
    a: &[f16],
    b: &[f16],
    bias: &[f32],
    (m, n, k): (usize, usize, usize),
    alpha: f32,
) -> Vec<f32> {
    (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let s: f64 = (0..k).map(|kk| a[r * k + kk].to_f64() * b[kk * n + c].to_f64()).sum::<f64>()
                + f64::from(bias[c]);
            (if s >= 0.0 { s } else { s * f64::from(alpha) }) as f32
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------

type MmInt8 = Matmul<
    MatmulType<Gm, cube_format::ND, i8>,
    MatmulType<Gm, cube_format::ND, i8, true>,
    MatmulType<Gm, cube_format::ND, i32>,
    MatmulType<Gm, cube_format::ND, i32>,
    CfgMdl,
>;

/// The kernel entry point of the `int8_t` matmul: `C = A × Bᵀ + bias` (A `M × K`, B stored
/// `N × K`, bias and C `int32_t`), each core its `singleCoreM × singleCoreN` block with
/// `IterateAll` (`CFG_MDL`).
pub fn matmul_int8(a: GmAddr, b: GmAddr, bias: GmAddr, c: GmAddr, tiling: GmAddr) {
    init_soc_state();
    let t: TCubeTiling = get_tiling_data(tiling);
    let mut mm = MmInt8::new();
    regist_matmul_obj!((), (), mm, &t);
    let (mi, ni, tail_m, tail_n) = core_split(&t, get_block_idx() as usize);
    if mi * t.singleCoreM as usize >= t.M as usize || ni * t.singleCoreN as usize >= t.N as usize {
        return;
    }
    let (sm, sn, k, n) = (t.singleCoreM as usize, t.singleCoreN as usize, t.Ka as usize, t.N as usize);
    let mut a_gm = GlobalTensor::<i8>::new();
    a_gm.set_global_buffer(a, t.M as usize * k);
    let mut b_gm = GlobalTensor::<i8>::new();
    b_gm.set_global_buffer(b, n * k);
    let mut bias_gm = GlobalTensor::<i32>::new();
    bias_gm.set_global_buffer(bias, n);
    let mut c_gm = GlobalTensor::<i32>::new();
    c_gm.set_global_buffer(c, t.M as usize * n);
    if tail_m < t.singleCoreM || tail_n < t.singleCoreN {
        mm.set_tail(tail_m, tail_n, -1);
    }
    mm.set_tensor_a(&a_gm.view(mi * sm * k), false);
    mm.set_tensor_b(&b_gm.view(ni * sn * k), true);
    mm.set_bias(&bias_gm.view(ni * sn));
    mm.iterate_all::<true>(&c_gm.view(mi * sm * n + ni * sn), false);
    mm.end();
}

/// Host side of [`matmul_int8`]: the tiling on `cores` cube cores, the launch; returns C.
///
/// # Errors
/// The launch's error.
///
/// # Panics
/// Panics if a slice does not match the sizes or K is not a multiple of 32.
pub fn run_matmul_int8(
    soc: Soc,
    a: &[i8],
    b_t: &[i8],
    bias: &[i32],
    (m, n, k): (usize, usize, usize),
    cores: u32,
) -> Result<(Vec<i32>, LaunchStats), LaunchError> {
    assert!(a.len() == m * k && b_t.len() == n * k && bias.len() == n, "slice sizes do not match M, N, K");
    let t = tiling(
        cores,
        DataType::DT_INT8,
        true,
        TPos::GM,
        DataType::DT_INT32,
        Some(DataType::DT_INT32),
        (m, n, k),
        (-1, -1, -1),
    );
    let tg = GmBuffer::from_tiling(&t);
    let (ga, gb, gbias) = (GmBuffer::from_slice(a), GmBuffer::from_slice(b_t), GmBuffer::from_slice(bias));
    let gc = GmBuffer::<i32>::zeroed(m * n);
    let (pa, pb, pbias, pc, pt) = (ga.addr(), gb.addr(), gbias.addr(), gc.addr(), tg.addr());
    let stats = Launch::new(soc)
        .kernel_type(KernelType::AicOnly)
        .block_dim(t.usedCoreNum as u32)
        .run(move || matmul_int8(pa, pb, pbias, pc, pt))?;
    Ok((gc.to_vec(), stats))
}

/// `A × Bᵀ + bias`, exact.
pub fn matmul_int8_reference(
    a: &[i8],
    b_t: &[i8],
    bias: &[i32],
    (m, n, k): (usize, usize, usize),
) -> Vec<i32> {
    (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let s: i64 = (0..k).map(|kk| i64::from(a[r * k + kk]) * i64::from(b_t[c * k + kk])).sum();
            (s + i64::from(bias[c])).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------

/// The tiling of [`attention`].
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct AttentionTiling {
    /// `Q·Kᵀ`: `S × S × D`, C to `VECIN`.
    pub qk: TCubeTiling,
    /// `P·V`: `S × D × S`, C to GM.
    pub pv: TCubeTiling,
    /// Sequence length.
    pub s: u32,
    /// Head size.
    pub d: u32,
    /// `1 / sqrt(d)`.
    pub scale: f32,
    /// Bytes of the softmax's temporary buffer.
    pub softmax_tmp: u32,
}

type MmQk = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16, true>,
    MatmulType<VecIn, cube_format::ND, f32>,
>;
type MmPv = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f32>,
>;

/// One core (one head) of [`attention`].
pub struct KernelAttention {
    pipe: TPipe,
    mm_qk: MmQk,
    mm_pv: MmPv,
    p_gm: GlobalTensor<f16>,
    v_gm: GlobalTensor<f16>,
    o_gm: GlobalTensor<f32>,
    score_queue: TQue<VecIn, 1>,
    p_queue: TQue<VecOut, 1>,
    tmp: TBuf<VecCalc>,
    t: AttentionTiling,
}

impl KernelAttention {
    /// Binds this head's Q, K, V, O and P workspace and registers both Matmuls.
    pub fn init(q: GmAddr, k: GmAddr, v: GmAddr, o: GmAddr, p: GmAddr, t: &AttentionTiling) -> Self {
        let (s, d) = (t.s as usize, t.d as usize);
        let head = get_block_idx() as usize;
        let bind = |addr: GmAddr, len: usize| {
            let mut g = GlobalTensor::<f16>::new();
            g.set_global_buffer(addr.add::<f16>(head * len), len);
            g
        };
        let (q_gm, k_gm, v_gm, p_gm) = (bind(q, s * d), bind(k, s * d), bind(v, s * d), bind(p, s * s));
        let mut o_gm = GlobalTensor::<f32>::new();
        o_gm.set_global_buffer(o.add::<f32>(head * s * d), s * d);
        let pipe = TPipe::new();
        let (mut mm_qk, mut mm_pv) = (MmQk::new(), MmPv::new());
        regist_matmul_obj!(&pipe, (), mm_qk, &t.qk, mm_pv, &t.pv);
        mm_qk.set_tensor_a(&q_gm, false);
        mm_qk.set_tensor_b(&k_gm, true);
        let mut kern = KernelAttention {
            pipe,
            mm_qk,
            mm_pv,
            p_gm,
            v_gm,
            o_gm,
            score_queue: TQue::new(),
            p_queue: TQue::new(),
            tmp: TBuf::new(),
            t: *t,
        };
        kern.pipe.init_buffer(&mut kern.score_queue, 1, s * s * 4);
        kern.pipe.init_buffer(&mut kern.p_queue, 1, s * s * 2);
        kern.pipe.init_tbuf(&mut kern.tmp, t.softmax_tmp as usize);
        kern
    }

    /// `Q·Kᵀ` → softmax → `P` to GM → `P·V`.
    pub fn process(&mut self) {
        self.copy_in();
        self.compute();
        self.copy_out();
        self.compute_out();
    }

    /// The scores `Q·Kᵀ` into `VECIN`, block by block at their places (`enSequentialWrite = false`).
    fn copy_in(&mut self) {
        let scores = self.score_queue.alloc_tensor::<f32>();
        while self.mm_qk.iterate::<true>() {
            self.mm_qk.get_tensor_c::<true, _>(&scores, false, false);
        }
        self.mm_qk.end();
        self.score_queue.enque(scores);
    }

    /// `P = softmax(scores · scale)`, cast to half.
    fn compute(&mut self) {
        let s = self.t.s as usize;
        let scores = self.score_queue.deque::<f32>();
        muls(&scores, &scores, self.t.scale, s * s);
        pipe_barrier::<PIPE_V>();
        let tiling = soft_max_tiling_func(&[s as u32, s as u32], 4, self.t.softmax_tmp);
        soft_max::<f32, false, false>(
            &scores,
            &scores,
            &self.tmp.get::<u8>(),
            &tiling,
            &SoftMaxShapeInfo::new(s as u32, s as u32, s as u32, s as u32),
        );
        pipe_barrier::<PIPE_V>();
        let p = self.p_queue.alloc_tensor::<f16>();
        cast(&p, &scores, RoundMode::CastRint, s * s);
        self.p_queue.enque(p);
        self.score_queue.free_tensor(scores);
    }

    /// `P` to its GM workspace.
    fn copy_out(&mut self) {
        let s = self.t.s as usize;
        let p = self.p_queue.deque::<f16>();
        data_copy(&self.p_gm, &p, s * s);
        self.p_queue.free_tensor(p);
    }

    /// `O = P·V`. On the chip the AIV signals the AIC that `P` is in GM (`CrossCoreSetFlag`);
    /// here the barrier orders the vector core's write before the Matmul's read.
    fn compute_out(&mut self) {
        pipe_barrier::<PIPE_ALL>();
        self.mm_pv.set_tensor_a(&self.p_gm, false);
        self.mm_pv.set_tensor_b(&self.v_gm, false);
        self.mm_pv.iterate_all::<true>(&self.o_gm, false);
        self.mm_pv.end();
    }
}

/// The kernel entry point: one head per core.
pub fn attention(q: GmAddr, k: GmAddr, v: GmAddr, o: GmAddr, p: GmAddr, tiling: GmAddr) {
    init_soc_state();
    let t: AttentionTiling = get_tiling_data(tiling);
    let mut op = KernelAttention::init(q, k, v, o, p, &t);
    op.process();
}

/// Host side: `heads` heads of `s × d` (`[heads, s, d]` half Q, K, V), one vector core each;
/// returns O (`[heads, s, d]` float).
///
/// # Errors
/// The launch's error.
///
/// # Panics
/// Panics if `s` or `d` is not a positive multiple of 16, `s > 128` (the scores must fit the
/// Unified Buffer) or a slice does not hold `heads × s × d` elements.
pub fn run_attention(
    soc: Soc,
    q: &[f16],
    k: &[f16],
    v: &[f16],
    heads: usize,
    s: usize,
    d: usize,
) -> Result<(Vec<f32>, LaunchStats), LaunchError> {
    assert!(
        s > 0 && d > 0 && s % 16 == 0 && d % 16 == 0 && s <= 128,
        "s = {s}, d = {d}: multiples of 16, s <= 128"
    );
    assert!(
        q.len() == heads * s * d && k.len() == q.len() && v.len() == q.len(),
        "Q, K, V must hold heads x s x d"
    );
    let qk =
        tiling(1, DataType::DT_FLOAT16, true, TPos::VECIN, DataType::DT_FLOAT, None, (s, s, d), (-1, -1, -1));
    let pv =
        tiling(1, DataType::DT_FLOAT16, false, TPos::GM, DataType::DT_FLOAT, None, (s, d, s), (-1, -1, -1));
    let softmax_tmp = get_soft_max_max_tmp_size(&[s as u32, s as u32], 4, false);
    let t = AttentionTiling { qk, pv, s: s as u32, d: d as u32, scale: 1.0 / (d as f32).sqrt(), softmax_tmp };
    let tg = GmBuffer::from_tiling(&t);
    let (gq, gk, gv) = (GmBuffer::from_slice(q), GmBuffer::from_slice(k), GmBuffer::from_slice(v));
    let go = GmBuffer::<f32>::zeroed(heads * s * d);
    let gp = GmBuffer::<f16>::zeroed(heads * s * s);
    let (pq, pk, pv_, po, pp, pt) = (gq.addr(), gk.addr(), gv.addr(), go.addr(), gp.addr(), tg.addr());
    let stats = Launch::new(soc)
        .kernel_type(KernelType::AivOnly)
        .block_dim(heads as u32)
        .run(move || attention(pq, pk, pv_, po, pp, pt))?;
    Ok((go.to_vec(), stats))
}

/// `softmax(Q·Kᵀ / sqrt(d)) · V` per head, in `f64`, rounded once to `float`.
pub fn attention_reference(q: &[f16], k: &[f16], v: &[f16], heads: usize, s: usize, d: usize) -> Vec<f32> {
    let scale = 1.0 / (d as f64).sqrt();
    let mut o = Vec::with_capacity(heads * s * d);
    for h in 0..heads {
        let at = |x: &[f16], r: usize, c: usize| x[h * s * d + r * d + c].to_f64();
        for i in 0..s {
            let sc: Vec<f64> =
                (0..s).map(|j| (0..d).map(|c| at(q, i, c) * at(k, j, c)).sum::<f64>() * scale).collect();
            let max = sc.iter().cloned().fold(f64::MIN, f64::max);
            let e: Vec<f64> = sc.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            for c in 0..d {
                o.push((0..s).map(|j| e[j] / sum * at(v, j, c)).sum::<f64>() as f32);
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::random_vec;
    use ascend_runtime::testing::{assert_close, Tolerance};

    /// Random halves on 1, 2 and 4 cores: within the vendor example's tolerance (rtol 1e-6,
    /// atol 1e-9, 0.01 % of elements) of the f64 reference.
    #[test]
    fn matmul_leakyrelu_matches_the_f64_reference() {
        let (m, n, k) = (256, 128, 96);
        let a: Vec<f16> = random_vec(m * k, 1, -1.0, 1.0);
        let b: Vec<f16> = random_vec(k * n, 2, -1.0, 1.0);
        let bias: Vec<f32> = random_vec(n, 3, -1.0, 1.0);
        let want = matmul_leakyrelu_reference(&a, &b, &bias, (m, n, k), 0.01);
        for cores in [1, 2, 4] {
            let (c, _) =
                run_matmul_leakyrelu(Soc::Ascend910B, &a, &b, &bias, (m, n, k), 0.01, cores).unwrap();
            // Float accumulation of 96 products: a few ulps from the f64 sum.
            assert_close(&c, &want, Tolerance::new(1e-5, 1e-6, 0.0));
        }
    }

    /// Integer data: every sum exact, so bit for bit.
    #[test]
    fn matmul_leakyrelu_is_exact_on_integers() {
        let (m, n, k) = (128, 128, 64);
        let mut rng = crate::data::XorShift64::new(5);
        let a: Vec<f16> = (0..m * k).map(|_| f16::from_f32(rng.range(-5, 5) as f32)).collect();
        let b: Vec<f16> = (0..k * n).map(|_| f16::from_f32(rng.range(-5, 5) as f32)).collect();
        let bias: Vec<f32> = (0..n).map(|_| rng.range(-50, 50) as f32).collect();
        let (c, _) = run_matmul_leakyrelu(Soc::Ascend910B, &a, &b, &bias, (m, n, k), 0.5, 2).unwrap();
        assert_eq!(c, matmul_leakyrelu_reference(&a, &b, &bias, (m, n, k), 0.5));
    }

    /// `int8_t` with tails (M, N not multiples of the base block) on several cores: exact.
    #[test]
    fn matmul_int8_is_exact() {
        let (m, n, k) = (200, 300, 160);
        let mut rng = crate::data::XorShift64::new(9);
        let a: Vec<i8> = (0..m * k).map(|_| rng.range(-128, 128) as i8).collect();
        let b: Vec<i8> = (0..n * k).map(|_| rng.range(-128, 128) as i8).collect();
        let bias: Vec<i32> = (0..n).map(|_| rng.range(-100_000, 100_000) as i32).collect();
        let want = matmul_int8_reference(&a, &b, &bias, (m, n, k));
        for cores in [1, 3, 8] {
            assert_eq!(
                run_matmul_int8(Soc::Ascend910B, &a, &b, &bias, (m, n, k), cores).unwrap().0,
                want,
                "{cores} cores"
            );
        }
    }

    /// Attention on 3 heads: within 1e-3 (P is rounded to half on its way to `P·V`).
    #[test]
    fn attention_matches_the_f64_reference() {
        let (heads, s, d) = (3, 64, 32);
        let q: Vec<f16> = random_vec(heads * s * d, 1, -2.0, 2.0);
        let k: Vec<f16> = random_vec(heads * s * d, 2, -2.0, 2.0);
        let v: Vec<f16> = random_vec(heads * s * d, 3, -1.0, 1.0);
        let (o, _) = run_attention(Soc::Ascend910B, &q, &k, &v, heads, s, d).unwrap();
        assert_close(&o, &attention_reference(&q, &k, &v, heads, s, d), Tolerance::new(1e-3, 1e-3, 0.0));
    }
}
