//! The high-level `Matmul` with `float` inputs, NZ operands and ReLU on the way out: bit for
//! bit against the basic cube path (`DataCopy` ND → NZ, `LoadData`, `Mmad`, `Fixpipe` in one
//! kernel) and against a scalar restatement of the cube's `float` accumulation (per element:
//! each run of 8 depths, `float`'s `K0`, summed in `f64` in order and rounded once to `float`;
//! the runs added in `float` in K order, from the bias or 0), plus the errors.

use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
use ascend_core::cube::fixpipe::{fixpipe, FixpipeParamsV220, QuantMode_t};
use ascend_core::cube::load_data::{load_data, LoadData2DParams};
use ascend_core::cube::mmad::{mmad, MmadParams};
use ascend_core::cube::nd2nz::{data_copy_nd2nz, Nd2NzParams};
use ascend_runtime::prelude::*;

/// The cube's `float` result for logical `a` (`m × k`) and `b` (`k × n`): runs of `k0`
/// depths, each summed in `f64` in order and rounded once to `float`, added in `float`.
fn cube_ref(a: &[f64], b: &[f64], bias: Option<&[f32]>, (m, n, k): (usize, usize, usize), k0: usize) -> Vec<f32> {
    (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let mut acc = bias.map_or(0f32, |b| b[c]);
            for s0 in (0..k).step_by(k0) {
                let s: f64 = (s0..(s0 + k0).min(k)).map(|kk| a[r * k + kk] * b[kk * n + c]).sum();
                acc += s as f32;
            }
            acc
        })
        .collect()
}

fn tiling(dt: DataType, (m, n, k): (usize, usize, usize), fix: (i32, i32, i32)) -> TCubeTiling {
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_dim(1);
    api.set_a_type(TPos::GM, CubeFormat::ND, dt, false);
    api.set_b_type(TPos::GM, CubeFormat::ND, dt, false);
    api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.set_org_shape(m as i32, n as i32, k as i32);
    api.set_shape(m as i32, n as i32, k as i32);
    api.set_fix_split(fix.0, fix.1, fix.2);
    api.get_tiling().unwrap()
}

/// A buffer's address and length, to bind inside a kernel.
#[derive(Clone, Copy)]
struct At(GmAddr, usize);

fn at<T: Element>(v: &GmBuffer<T>) -> At {
    At(v.addr(), v.len())
}

fn gm<T: Element>(v: At) -> GlobalTensor<T> {
    let mut g = GlobalTensor::<T>::new();
    g.set_global_buffer(v.0, v.1);
    g
}

fn run1(f: impl Fn() + Send + Sync + 'static) -> Result<LaunchStats, LaunchError> {
    Launch::new(Soc::Ascend910B).block_dim(1).run(f)
}

fn err_of(f: impl Fn() + Send + Sync + 'static) -> String {
    run1(f).unwrap_err().to_string()
}

/// `m × n` row-major `v` transposed.
fn transpose<T: Copy>(v: &[T], m: usize, n: usize) -> Vec<T> {
    (0..m * n).map(|i| v[(i % m) * n + i / m]).collect()
}

type F32<const TA: bool, const TB: bool, CFG> = Matmul<
    MatmulType<Gm, cube_format::ND, f32, TA>,
    MatmulType<Gm, cube_format::ND, f32, TB>,
    MatmulType<Gm, cube_format::ND, f32>,
    MatmulType<Gm, cube_format::ND, f32>,
    CFG,
>;

/// `float` A and B, every transpose combination, both CFGs, tails in M, N and K (K = 44: the
/// last base block holds 12 depths, the last run 4): the same bits everywhere, the scalar
/// restatement's, with random (inexact) data and a bias.
#[test]
fn float_inputs_every_transpose_bit_for_bit() {
    let (m, n, k) = (40, 56, 44);
    let a: Vec<f32> = ascend_kernels::data::random_vec(m * k, 11, -2.0, 2.0);
    let b: Vec<f32> = ascend_kernels::data::random_vec(k * n, 12, -2.0, 2.0);
    let bias: Vec<f32> = ascend_kernels::data::random_vec(n, 13, -2.0, 2.0);
    let (af, bf): (Vec<f64>, Vec<f64>) =
        (a.iter().map(|&x| x as f64).collect(), b.iter().map(|&x| x as f64).collect());
    let want = cube_ref(&af, &bf, Some(&bias), (m, n, k), 8);
    // The runs matter: summing 16 depths a run (half's K0) gives other bits here.
    assert_ne!(want, cube_ref(&af, &bf, Some(&bias), (m, n, k), 16));
    let t = tiling(DataType::DT_FLOAT, (m, n, k), (32, 32, 16));
    assert_eq!((t.baseM, t.baseN, t.baseK), (32, 32, 16));
    let (ga, gb, gat, gbt, gbias) = (
        GmBuffer::from_vec(a.clone()),
        GmBuffer::from_vec(b.clone()),
        GmBuffer::from_vec(transpose(&a, m, k)),
        GmBuffer::from_vec(transpose(&b, k, n)),
        GmBuffer::from_vec(bias),
    );
    let (pa, pb, pat, pbt, pbias) = (at(&ga), at(&gb), at(&gat), at(&gbt), at(&gbias));
    let outs: Vec<GmBuffer<f32>> = (0..5).map(|_| GmBuffer::zeroed(m * n)).collect();
    let po: Vec<At> = outs.iter().map(at).collect();
    run1(move || {
        let (a_, b_, at_, bt_, bias_) =
            (gm::<f32>(pa), gm::<f32>(pb), gm::<f32>(pat), gm::<f32>(pbt), gm::<f32>(pbias));
        let o: Vec<GlobalTensor<f32>> = po.iter().map(|&p| gm(p)).collect();
        let mut mm = F32::<false, false, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&o[0], false);
        mm.end();
        let mut mm = F32::<true, false, CfgMdl>::new();
        mm.init(&t);
        mm.set_tensor_a(&at_, true);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&o[1], false, false);
        }
        mm.end();
        let mut mm = F32::<false, true, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&bt_, true);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&o[2], false);
        mm.end();
        let mut mm = F32::<true, true, CfgMdl>::new();
        mm.init(&t);
        mm.set_tensor_a(&at_, true);
        mm.set_tensor_b(&bt_, true);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&o[3], false);
        mm.end();
        // Without the bias, then the bias added by hand: not the same bits in general, so
        // only check the run order through the product itself.
        let mut mm = F32::<true, false, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&at_, true);
        mm.set_tensor_b(&b_, false);
        mm.iterate_all::<true>(&o[4], false);
        mm.end();
    })
    .unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (i, out) in outs.iter().take(4).enumerate() {
        assert_eq!(bits(&out.to_vec()), bits(&want), "output {i}");
    }
    assert_eq!(bits(&outs[4].to_vec()), bits(&cube_ref(&af, &bf, None, (m, n, k), 8)));
}

/// `float` inputs through the `Matmul` and through the basic cube path by hand (the
/// `matmul_basic_api` sample's steps with `float`: `DataCopy` ND → NZ into L1, `LoadData` into
/// L0A and, from Bᵀ, into L0B, one `Mmad`, `Fixpipe` out) agree bit for bit; with integer data
/// both are the exact product.
#[test]
fn float_matmul_matches_the_basic_cube_path() {
    let (m, n, k) = (32, 32, 48);
    for (seed, exact) in [(21u64, false), (22, true)] {
        let a: Vec<f32> = if exact {
            (0..m * k).map(|i| ((i * 7 + 3) % 9) as f32 - 4.0).collect()
        } else {
            ascend_kernels::data::random_vec(m * k, seed, -3.0, 3.0)
        };
        let b: Vec<f32> = if exact {
            (0..k * n).map(|i| ((i * 5 + 1) % 7) as f32 - 3.0).collect()
        } else {
            ascend_kernels::data::random_vec(k * n, seed + 100, -3.0, 3.0)
        };
        let b_t = transpose(&b, k, n);
        let t = tiling(DataType::DT_FLOAT, (m, n, k), (32, 32, 48));
        let (ga, gbt) = (GmBuffer::from_vec(a.clone()), GmBuffer::from_vec(b_t));
        let (c_api, c_basic) = (GmBuffer::<f32>::zeroed(m * n), GmBuffer::<f32>::zeroed(m * n));
        let (pa, pbt, pc1, pc2) = (at(&ga), at(&gbt), at(&c_api), at(&c_basic));
        Launch::new(Soc::Ascend910B).kernel_type(KernelType::AicOnly).block_dim(1).run(move || {
            let (a_, bt_) = (gm::<f32>(pa), gm::<f32>(pbt));
            let mut mm = F32::<false, true, CfgNorm>::new();
            mm.init(&t);
            mm.set_tensor_a(&a_, false);
            mm.set_tensor_b(&bt_, true);
            mm.iterate_all::<true>(&gm::<f32>(pc1), false);
            mm.end();
            // The basic path: K0 = 8, fractals of 16 x 8 floats (128 elements).
            let (m1, n1, k1) = (m / 16, n / 16, k / 8);
            let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, m * k);
            let b1 = LocalTensor::<f32>::new(TPosition::B1, m * k * 4, n * k);
            data_copy_nd2nz(&a1, &a_, &Nd2NzParams::new(1, m as u16, k as u16, 0, k as u16, m as u16, 1, 0));
            data_copy_nd2nz(&b1, &bt_, &Nd2NzParams::new(1, n as u16, k as u16, 0, k as u16, n as u16, 1, 0));
            set_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
            wait_flag::<HardEvent::MTE2_MTE1>(EVENT_ID0);
            let a2 = LocalTensor::<f32>::new(TPosition::A2, 0, m * k);
            let b2 = LocalTensor::<f32>::new(TPosition::B2, 0, n * k);
            for i in 0..m1 {
                let p = LoadData2DParams::new(0, k1 as u8, m1 as u16, 0, 0, false, 0);
                load_data(&a2.view(i * k1 * 128), &a1.view(i * 128), &p);
            }
            load_data(&b2, &b1, &LoadData2DParams::new(0, (k1 * n1) as u8, 1, 0, 0, false, 0));
            set_flag::<HardEvent::MTE1_M>(EVENT_ID0);
            wait_flag::<HardEvent::MTE1_M>(EVENT_ID0);
            let c = LocalTensor::<f32>::new(TPosition::CO1, 0, m * n);
            mmad(&c, &a2, &b2, &MmadParams::new(m as u16, n as u16, k as u16, 0, false, true));
            set_flag::<HardEvent::M_FIX>(EVENT_ID0);
            wait_flag::<HardEvent::M_FIX>(EVENT_ID0);
            let p = FixpipeParamsV220::new(
                n as u16,
                m as u16,
                m as u16,
                n as u32,
                false,
                QuantMode_t::NoQuant,
                0,
                1,
                0,
                0,
                0,
            );
            fixpipe(&gm::<f32>(pc2), &c, &p);
            pipe_barrier::<PIPE_ALL>();
        })
        .unwrap();
        let (x, y) = (c_api.to_vec(), c_basic.to_vec());
        assert_eq!(x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), y.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        if exact {
            let want: Vec<f32> = (0..m * n)
                .map(|i| (0..k).map(|kk| a[(i / n) * k + kk] * b[kk * n + i % n]).sum())
                .collect();
            assert_eq!(x, want);
        }
    }
}

/// `float` inputs: the combinations the vendor does not have are errors.
#[test]
fn float_input_errors() {
    let t = tiling(DataType::DT_FLOAT, (16, 16, 16), (16, 16, 16));
    let e = err_of(move || {
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, f32>,
            MatmulType<Gm, cube_format::ND, f32>,
            MatmulType<Gm, cube_format::ND, i8>,
        >::new();
        mm.init(&t);
    });
    assert!(e.contains("Matmul::Init") && e.contains("A/B = float with C = int8_t"), "{e}");
    let e = Launch::new(Soc::Ascend910)
        .block_dim(1)
        .run(move || {
            let mut mm = F32::<false, false, CfgNorm>::new();
            mm.init(&t);
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("A/B = float is not supported on Ascend910"), "{e}");
}
