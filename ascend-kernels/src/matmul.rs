//! `matmul`: `C = A × B` for row-major `half` matrices (`A` M × K, `B` K × N, `C` M × N), a cube
//! kernel on Ascend910B (`KernelType::AicOnly`). It is the vendor's `matmul_basic_api` example
//! with a loop over K and the output tiles shared among the cores: each core takes the
//! `base_m × base_n` tiles `block_idx, block_idx + block_num, …`; for each tile, every
//! `base_k` slice of K goes GM → L1 (ND → NZ), L1 → L0A/L0B (`LoadData`) and into `Mmad`,
//! accumulating in L0C (`cmatrixInitVal` only for the first slice); `Fixpipe` then writes the
//! tile with `F322F16`. Each hand-off between pipes has its event (`MTE2_MTE1`, `MTE1_M`, and
//! `MTE1_MTE2`, `M_MTE1`, `FIX_M` before a buffer is refilled).
//!
//! M, N and K must be multiples of the tile sizes, which must be multiples of 16.
//!
//! ```
//! use ascend_kernels::matmul::{matmul_reference, run_matmul, MatmulTiling};
//! use ascend_runtime::prelude::*;
//!
//! let (m, n, k) = (256, 128, 128);
//! let a: Vec<f16> = (0..m * k).map(|i| f16::from_f32((i % 7) as f32 - 3.0)).collect();
//! let b: Vec<f16> = (0..k * n).map(|i| f16::from_f32((i % 5) as f32 * 0.5)).collect();
//! let t = MatmulTiling::new(m, n, k, 128, 128, 64);
//! let (c, _stats) = run_matmul(Soc::Ascend910B, &a, &b, &t, 2).unwrap();
//! assert_eq!(c, matmul_reference(&a, &b, &t));
//! ```

use ascend_runtime::prelude::*;

/// The tiling of [`matmul`]: the problem's sizes and the tile's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct MatmulTiling {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Rows of an output tile.
    pub base_m: u32,
    /// Columns of an output tile.
    pub base_n: u32,
    /// The slice of K one `Mmad` takes.
    pub base_k: u32,
}

impl MatmulTiling {
    /// A tiling of `m × k` by `k × n` in `base_m × base_n` output tiles and `base_k` slices.
    ///
    /// # Panics
    /// Panics if a size is not a multiple of its tile size, a tile size is not a positive
    /// multiple of 16, or a tile does not fit the cube's memories (`base_k × (base_m + base_n)`
    /// halves in L1 and L0A/L0B, `base_m × base_n` floats in L0C).
    pub fn new(m: usize, n: usize, k: usize, base_m: usize, base_n: usize, base_k: usize) -> Self {
        for (name, size, base) in [("m", m, base_m), ("n", n, base_n), ("k", k, base_k)] {
            assert!(
                base > 0 && base % 16 == 0,
                "the tile's {name} = {base} is not a positive multiple of 16"
            );
            assert!(size % base == 0, "{name} = {size} is not a multiple of the tile's {base}");
        }
        let soc = Soc::Ascend910B;
        assert!(base_m * base_k * 2 <= soc.memory_size(Memory::L0A), "A's tile does not fit L0A");
        assert!(base_k * base_n * 2 <= soc.memory_size(Memory::L0B), "B's tile does not fit L0B");
        assert!(base_m * base_n * 4 <= soc.memory_size(Memory::L0C), "C's tile does not fit L0C");
        let to = |x: usize| u32::try_from(x).expect("sizes fit in 32 bits");
        MatmulTiling {
            m: to(m),
            n: to(n),
            k: to(k),
            base_m: to(base_m),
            base_n: to(base_n),
            base_k: to(base_k),
        }
    }

    /// The number of output tiles.
    pub fn tiles(&self) -> usize {
        (self.m / self.base_m * (self.n / self.base_n)) as usize
    }
}

/// One core's state: the operands in GM, the tiling, and its tensors in L1, L0A, L0B, L0C.
pub struct KernelMatmul {
    a_gm: GlobalTensor<f16>,
    b_gm: GlobalTensor<f16>,
    c_gm: GlobalTensor<f16>,
    t: MatmulTiling,
    a1: LocalTensor<f16>,
    b1: LocalTensor<f16>,
    a2: LocalTensor<f16>,
    b2: LocalTensor<f16>,
    c: LocalTensor<f32>,
    // The allocators own the memories the tensors were placed in.
    _mem: (LocalMemAllocator<L1>, LocalMemAllocator<L0A>, LocalMemAllocator<L0B>, LocalMemAllocator<L0C>),
}

impl KernelMatmul {
    /// Binds the operands and places one tile of each matrix in the cube's memories.
    pub fn init(a: GmAddr, b: GmAddr, c: GmAddr, t: MatmulTiling) -> Self {
        let (m, n, k) = (t.m as usize, t.n as usize, t.k as usize);
        let (bm, bn, bk) = (t.base_m as usize, t.base_n as usize, t.base_k as usize);
        let mut a_gm = GlobalTensor::new();
        a_gm.set_global_buffer(a, m * k);
        let mut b_gm = GlobalTensor::new();
        b_gm.set_global_buffer(b, k * n);
        let mut c_gm = GlobalTensor::new();
        c_gm.set_global_buffer(c, m * n);
        let mut l1 = LocalMemAllocator::<L1>::new();
        let mut l0a = LocalMemAllocator::<L0A>::new();
        let mut l0b = LocalMemAllocator::<L0B>::new();
        let mut l0c = LocalMemAllocator::<L0C>::new();
        let a1 = l1.alloc_at::<A1, f16>(bm * bk);
        let b1 = l1.alloc_at::<B1, f16>(bk * bn);
        let a2 = l0a.alloc_at::<A2, f16>(bm * bk);
        let b2 = l0b.alloc_at::<B2, f16>(bk * bn);
        let c = l0c.alloc_at::<Co1, f32>(bm * bn);
        KernelMatmul { a_gm, b_gm, c_gm, t, a1, b1, a2, b2, c, _mem: (l1, l0a, l0b, l0c) }
    }

    /// Computes this core's output tiles.
    pub fn process(&mut self) {
        let tiles_n = (self.t.n / self.t.base_n) as usize;
        let slices = (self.t.k / self.t.base_k) as usize;
        let mut tile = get_block_idx() as usize;
        while tile < self.t.tiles() {
            let (mi, ni) = (tile / tiles_n, tile % tiles_n);
            for ki in 0..slices {
                self.copy_in(mi, ni, ki);
                set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
                self.split();
                set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
                wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
                // L1 may be refilled once the loads have read it.
                set_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);
                wait_flag::<HardEvent::MTE1_MTE2>(EVENT_ID0);
                self.compute(ki == 0);
                // L0A/L0B may be reloaded once Mmad has read them.
                set_flag::<HardEvent::M_MTE1>(EVENT_ID0);
                wait_flag::<HardEvent::M_MTE1>(EVENT_ID0);
            }
            set_flag::<HardEvent::M_FIX>(EVENT_ID0);
            wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
            self.copy_out(mi, ni);
            // L0C may be overwritten once Fixpipe has read it.
            set_flag::<HardEvent::FIX_M>(EVENT_ID0);
            wait_flag::<HardEvent::FIX_M>(EVENT_ID0);
            tile += get_block_num() as usize;
        }
    }

    /// GM → L1: the `base_m × base_k` slice of A and the `base_k × base_n` slice of B, ND → NZ.
    fn copy_in(&self, mi: usize, ni: usize, ki: usize) {
        let t = &self.t;
        let (bm, bn, bk) = (t.base_m as u16, t.base_n as u16, t.base_k as u16);
        let a_off = mi * t.base_m as usize * t.k as usize + ki * t.base_k as usize;
        let b_off = ki * t.base_k as usize * t.n as usize + ni * t.base_n as usize;
        let a = Nd2NzParams::new(1, bm, bk, 0, t.k as u16, bm, 1, 0);
        data_copy_nd2nz(&self.a1, &self.a_gm.view(a_off), &a);
        let b = Nd2NzParams::new(1, bk, bn, 0, t.n as u16, bk, 1, 0);
        data_copy_nd2nz(&self.b1, &self.b_gm.view(b_off), &b);
    }

    /// L1 → L0A (NZ → Zz) and L1 → L0B (NZ → Zn, each fractal transposed).
    fn split(&self) {
        let (bm, bn, bk) = (self.t.base_m as usize, self.t.base_n as usize, self.t.base_k as usize);
        let frac = 512 / std::mem::size_of::<f16>();
        for i in 0..bm / 16 {
            let p = LoadData2DParams::new(0, (bk / 16) as u8, (bm / 16) as u16, 0, 0, false, 0);
            load_data(&self.a2.view(i * bk * 16), &self.a1.view(i * frac), &p);
        }
        for i in 0..bk / 16 {
            let p = LoadData2DParams::new(0, (bn / 16) as u8, (bk / 16) as u16, 0, 0, true, 0);
            load_data(&self.b2.view(i * bn * 16), &self.b1.view(i * frac), &p);
        }
    }

    /// `C (+)= A × B` for one K slice: the first slice initialises L0C.
    fn compute(&self, first: bool) {
        let t = &self.t;
        let (bm, bn, bk) = (t.base_m as u16, t.base_n as u16, t.base_k as u16);
        if !first && (bm / 16) * (bn / 16) < 10 {
            // The Mmad page: a small accumulation needs the previous Mmad's write finished.
            pipe_barrier::<PIPE_M>();
        }
        mmad(&self.c, &self.a2, &self.b2, &MmadParams::new(bm, bn, bk, 0, false, first));
    }

    /// L0C → GM: the tile, NZ → ND, float → half.
    fn copy_out(&self, mi: usize, ni: usize) {
        let t = &self.t;
        let off = mi * t.base_m as usize * t.n as usize + ni * t.base_n as usize;
        let (bm, bn) = (t.base_m as u16, t.base_n as u16);
        let p = FixpipeParamsV220::new(bn, bm, bm, t.n, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0);
        fixpipe(&self.c_gm.view(off), &self.c, &p);
    }
}

/// The kernel entry point (`matmul_custom(a, b, c, tiling)`).
pub fn matmul(a: GmAddr, b: GmAddr, c: GmAddr, tiling: GmAddr) {
    init_soc_state();
    let t: MatmulTiling = get_tiling_data(tiling);
    let mut op = KernelMatmul::init(a, b, c, t);
    op.process();
}

/// Host side: copies `a` and `b` to GM, launches [`matmul`] as a cube kernel on `block_dim`
/// cores of `soc`, and returns C with the launch's statistics.
///
/// # Errors
/// The launch's error (a core's failure).
pub fn run_matmul(
    soc: Soc,
    a: &[f16],
    b: &[f16],
    t: &MatmulTiling,
    block_dim: u32,
) -> Result<(Vec<f16>, LaunchStats), LaunchError> {
    let (a_gm, b_gm) = (GmBuffer::from_slice(a), GmBuffer::from_slice(b));
    let c_gm = GmBuffer::<f16>::zeroed(t.m as usize * t.n as usize);
    let tiling = GmBuffer::from_tiling(t);
    let (pa, pb, pc, pt) = (a_gm.addr(), b_gm.addr(), c_gm.addr(), tiling.addr());
    let stats = Launch::new(soc)
        .kernel_type(KernelType::AicOnly)
        .block_dim(block_dim)
        .run(move || matmul(pa, pb, pc, pt))?;
    Ok((c_gm.to_vec(), stats))
}

/// The result the kernel must give, bit for bit: per output element, the products of each run
/// of 16 depths summed in f64 and rounded once to float, the runs accumulated in float in
/// order (across the K slices too, since L0C accumulates them), then rounded to half.
pub fn matmul_reference(a: &[f16], b: &[f16], t: &MatmulTiling) -> Vec<f16> {
    let (m, n, k) = (t.m as usize, t.n as usize, t.k as usize);
    let mut c = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f32;
            for k0 in (0..k).step_by(16) {
                let s: f64 = (k0..k0 + 16)
                    .map(|kk| f64::from(a[i * k + kk].to_f32()) * f64::from(b[kk * n + j].to_f32()))
                    .sum();
                acc += s as f32;
            }
            c.push(f16::from_f32(acc));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(len: usize, seed: u64) -> Vec<f16> {
        crate::data::random_vec(len, seed, -2.0, 2.0)
    }

    /// Random halves, several K slices accumulating in L0C, more tiles than cores: bit for
    /// bit with the reference, whatever the number of cores.
    #[test]
    fn matmul_matches_the_reference_bit_for_bit() {
        let t = MatmulTiling::new(256, 384, 192, 128, 128, 64);
        let (a, b) = (random(256 * 192, 1), random(192 * 384, 2));
        let want = matmul_reference(&a, &b, &t);
        for cores in [1, 4, 8] {
            assert_eq!(run_matmul(Soc::Ascend910B, &a, &b, &t, cores).unwrap().0, want, "{cores} cores");
        }
    }

    /// Small tiles take the `PipeBarrier<PIPE_M>` path between accumulating `Mmad`s.
    #[test]
    fn small_tiles_accumulate_too() {
        let t = MatmulTiling::new(32, 48, 64, 16, 16, 32);
        let (a, b) = (random(32 * 64, 3), random(64 * 48, 4));
        assert_eq!(run_matmul(Soc::Ascend910B, &a, &b, &t, 3).unwrap().0, matmul_reference(&a, &b, &t));
    }

    /// As a vector kernel it fails at the first cube memory, naming the fix.
    #[test]
    fn matmul_is_a_cube_kernel() {
        let t = MatmulTiling::new(16, 16, 16, 16, 16, 16);
        let (a_gm, b_gm, c_gm) =
            (GmBuffer::<f16>::zeroed(256), GmBuffer::<f16>::zeroed(256), GmBuffer::<f16>::zeroed(256));
        let tiling = GmBuffer::from_tiling(&t);
        let (pa, pb, pc, pt) = (a_gm.addr(), b_gm.addr(), c_gm.addr(), tiling.addr());
        let err = Launch::new(Soc::Ascend910B).run(move || matmul(pa, pb, pc, pt)).unwrap_err();
        assert!(err.to_string().contains("Launch::kernel_type(KernelType::AicOnly)"), "{err}");
    }
}
