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
fn cube_ref(
    a: &[f64],
    b: &[f64],
    bias: Option<&[f32]>,
    (m, n, k): (usize, usize, usize),
    k0: usize,
) -> Vec<f32> {
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

/// `float` A and B, every transpose combination, both CFGs, tails in M, N and K (K = 44 in
/// slices of 24 and 20 depths: three and three runs of 8, the last of 4; a transposed A is
/// laid out in L0A with K padded to 16, four fractals a row): the same bits everywhere, the
/// scalar restatement's, with random (inexact) data and a bias.
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
    let t = tiling(DataType::DT_FLOAT, (m, n, k), (32, 32, 24));
    assert_eq!((t.baseM, t.baseN, t.baseK), (32, 32, 24));
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
        // Without the bias: the accumulation starts at 0.
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
        Launch::new(Soc::Ascend910B)
            .kernel_type(KernelType::AicOnly)
            .block_dim(1)
            .run(move || {
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
                data_copy_nd2nz(
                    &a1,
                    &a_,
                    &Nd2NzParams::new(1, m as u16, k as u16, 0, k as u16, m as u16, 1, 0),
                );
                data_copy_nd2nz(
                    &b1,
                    &bt_,
                    &Nd2NzParams::new(1, n as u16, k as u16, 0, k as u16, n as u16, 1, 0),
                );
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
        assert_eq!(
            x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        if exact {
            let want: Vec<f32> =
                (0..m * n).map(|i| (0..k).map(|kk| a[(i / n) * k + kk] * b[kk * n + i % n]).sum()).collect();
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

/// `h × w` row-major `v` in NZ (columns of `c0` elements, each `⌈h⌉₁₆` rows high, row-major;
/// padding zero), as the vendor's NZ operands are stored in GM.
fn to_nz<T: Copy + Default>(v: &[T], h: usize, w: usize, c0: usize) -> Vec<T> {
    let ah = h.div_ceil(16) * 16;
    let mut out = vec![T::default(); w.div_ceil(c0) * ah * c0];
    for r in 0..h {
        for c in 0..w {
            out[(c / c0) * ah * c0 + r * c0 + c % c0] = v[r * w + c];
        }
    }
    out
}

type Mm<TA, TB, FA, FB, C, FC, const TRA: bool, const TRB: bool> = Matmul<
    MatmulType<Gm, FA, TA, TRA>,
    MatmulType<Gm, FB, TB, TRB>,
    MatmulType<Gm, FC, C>,
    MatmulType<Gm, cube_format::ND, f32>,
    CfgNorm,
>;

/// Runs one `Matmul` of `T` inputs over `a` (`m × k`) and `b` (`k × n`) with A and B in the
/// formats `FA`/`FB` and transposes `TRA`/`TRB` (each operand stored as that asks), C = float
/// ND; returns C.
fn run_formats<T, FA, FB, const TRA: bool, const TRB: bool>(
    a: &[T],
    b: &[T],
    (m, n, k): (usize, usize, usize),
    t: TCubeTiling,
) -> Vec<f32>
where
    T: MatmulInput<L0c = f32> + Default + Copy,
    FA: cube_format::Format,
    FB: cube_format::Format,
    (f32, T, T): ascend_core::cube::mmad::MmadTypes,
{
    let c0 = 32 / T::SIZE;
    let a_st = if TRA { transpose(a, m, k) } else { a.to_vec() };
    let (ah, aw) = if TRA { (k, m) } else { (m, k) };
    let a_st = if FA::NZ { to_nz(&a_st, ah, aw, c0) } else { a_st };
    let b_st = if TRB { transpose(b, k, n) } else { b.to_vec() };
    let (bh, bw) = if TRB { (n, k) } else { (k, n) };
    let b_st = if FB::NZ { to_nz(&b_st, bh, bw, c0) } else { b_st };
    let (ga, gb, gc) = (GmBuffer::from_vec(a_st), GmBuffer::from_vec(b_st), GmBuffer::<f32>::zeroed(m * n));
    let (pa, pb, pc) = (at(&ga), at(&gb), at(&gc));
    run1(move || {
        let mut mm = Mm::<T, T, FA, FB, f32, cube_format::ND, TRA, TRB>::new();
        mm.init(&t);
        mm.set_tensor_a(&gm::<T>(pa), TRA);
        mm.set_tensor_b(&gm::<T>(pb), TRB);
        mm.iterate_all::<true>(&gm::<f32>(pc), false);
        mm.end();
    })
    .unwrap();
    gc.to_vec()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// NZ A and/or B, every transpose, `half` and `float` inputs, tails in M (40 = 32 + 8, read
/// from the NZ matrix's padded rows), N and K: the same bits as the ND operands (the GM → L1
/// copy differs, L1 holds the same NZ tile); with integer `half` data, the exact product.
#[test]
fn nz_operands_give_the_nd_bits() {
    use cube_format::{ND, NZ};
    let (m, n, k) = (40, 64, 80);
    let dims = (m, n, k);
    let t16 = tiling(DataType::DT_FLOAT16, dims, (32, 48, 32));
    let a: Vec<f16> = ascend_kernels::data::random_vec(m * k, 31, -2.0, 2.0);
    let b: Vec<f16> = ascend_kernels::data::random_vec(k * n, 32, -2.0, 2.0);
    let want = run_formats::<f16, ND, ND, false, false>(&a, &b, dims, t16);
    assert_eq!(bits(&run_formats::<f16, NZ, ND, false, false>(&a, &b, dims, t16)), bits(&want));
    assert_eq!(bits(&run_formats::<f16, ND, NZ, false, false>(&a, &b, dims, t16)), bits(&want));
    assert_eq!(bits(&run_formats::<f16, NZ, NZ, true, false>(&a, &b, dims, t16)), bits(&want));
    assert_eq!(bits(&run_formats::<f16, NZ, NZ, false, true>(&a, &b, dims, t16)), bits(&want));
    assert_eq!(bits(&run_formats::<f16, NZ, NZ, true, true>(&a, &b, dims, t16)), bits(&want));
    // Exact integer data: the product itself.
    let ai: Vec<f16> = (0..m * k).map(|i| f16::from_f32(((i * 7 + 2) % 9) as f32 - 4.0)).collect();
    let bi: Vec<f16> = (0..k * n).map(|i| f16::from_f32(((i * 3 + 1) % 7) as f32 - 3.0)).collect();
    let exact: Vec<f32> = (0..m * n)
        .map(|i| (0..k).map(|kk| ai[(i / n) * k + kk].to_f32() * bi[kk * n + i % n].to_f32()).sum())
        .collect();
    assert_eq!(run_formats::<f16, NZ, NZ, true, false>(&ai, &bi, dims, t16), exact);
    // float: C0 = 8, and the transposing loads.
    let t32 = tiling(DataType::DT_FLOAT, dims, (32, 48, 32));
    let a: Vec<f32> = ascend_kernels::data::random_vec(m * k, 33, -2.0, 2.0);
    let b: Vec<f32> = ascend_kernels::data::random_vec(k * n, 34, -2.0, 2.0);
    let want = run_formats::<f32, ND, ND, false, false>(&a, &b, dims, t32);
    let (af, bf): (Vec<f64>, Vec<f64>) =
        (a.iter().map(|&x| x as f64).collect(), b.iter().map(|&x| x as f64).collect());
    assert_eq!(bits(&want), bits(&cube_ref(&af, &bf, None, dims, 8)));
    assert_eq!(bits(&run_formats::<f32, NZ, NZ, false, false>(&a, &b, dims, t32)), bits(&want));
    assert_eq!(bits(&run_formats::<f32, NZ, NZ, true, true>(&a, &b, dims, t32)), bits(&want));
    assert_eq!(bits(&run_formats::<f32, NZ, ND, true, false>(&a, &b, dims, t32)), bits(&want));
}

/// `int8_t` A in NZ (C0 = 32) with Bᵀ in NZ: the exact `int32_t` product.
#[test]
fn nz_int8_operands_exact() {
    let (m, n, k) = (32, 48, 96);
    let a: Vec<i8> = (0..m * k).map(|i| ((i * 37 + 11) % 29) as i8 - 14).collect();
    let b_t: Vec<i8> = (0..n * k).map(|i| ((i * 53 + 5) % 31) as i8 - 15).collect();
    let exact: Vec<i32> = (0..m * n)
        .map(|i| (0..k).map(|kk| a[(i / n) * k + kk] as i32 * b_t[(i % n) * k + kk] as i32).sum())
        .collect();
    let mut t = tiling(DataType::DT_FLOAT16, (m, n, k), (16, 32, 32));
    (t.baseK, t.singleCoreK) = (64, k as i32); // two K slices: 64 + 32
    let (ga, gb) = (GmBuffer::from_vec(to_nz(&a, m, k, 32)), GmBuffer::from_vec(to_nz(&b_t, n, k, 32)));
    let gc = GmBuffer::<i32>::zeroed(m * n);
    let (pa, pb, pc) = (at(&ga), at(&gb), at(&gc));
    run1(move || {
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::NZ, i8>,
            MatmulType<Gm, cube_format::NZ, i8, true>,
            MatmulType<Gm, cube_format::ND, i32>,
            MatmulType<Gm, cube_format::ND, i32>,
        >::new();
        mm.init(&t);
        mm.set_tensor_a(&gm::<i8>(pa), false);
        mm.set_tensor_b(&gm::<i8>(pb), true);
        mm.iterate_all::<true>(&gm::<i32>(pc), false);
        mm.end();
    })
    .unwrap();
    assert_eq!(gc.to_vec(), exact);
}

/// C in NZ (GM, `Fixpipe` without NZ2ND): `float` and `half` C hold the ND result's values in
/// NZ (16-column Z columns `orgM` rows high), through `IterateAll` and `Iterate` +
/// `GetTensorC`, with tails in N.
#[test]
fn nz_c_is_the_nd_result_in_nz() {
    let (m, n, k) = (48, 80, 32);
    let a: Vec<f16> = ascend_kernels::data::random_vec(m * k, 41, -2.0, 2.0);
    let b: Vec<f16> = ascend_kernels::data::random_vec(k * n, 42, -2.0, 2.0);
    let t = tiling(DataType::DT_FLOAT16, (m, n, k), (32, 48, 32));
    let want = run_formats::<f16, cube_format::ND, cube_format::ND, false, false>(&a, &b, (m, n, k), t);
    let (ga, gb) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b));
    let (c32, c16, c32i) =
        (GmBuffer::<f32>::zeroed(m * n), GmBuffer::<f16>::zeroed(m * n), GmBuffer::<f32>::zeroed(m * n));
    let (pa, pb, p32, p16, p32i) = (at(&ga), at(&gb), at(&c32), at(&c16), at(&c32i));
    run1(move || {
        let (a_, b_) = (gm::<f16>(pa), gm::<f16>(pb));
        let mut mm =
            Mm::<f16, f16, cube_format::ND, cube_format::ND, f32, cube_format::NZ, false, false>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.iterate_all::<true>(&gm::<f32>(p32), false);
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&gm::<f32>(p32i), false, false);
        }
        mm.end();
        let mut mm =
            Mm::<f16, f16, cube_format::ND, cube_format::ND, f16, cube_format::NZ, false, false>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.iterate_all::<true>(&gm::<f16>(p16), false);
        mm.end();
    })
    .unwrap();
    let nz = to_nz(&want, m, n, 16);
    assert_eq!(bits(&c32.to_vec()), bits(&nz));
    assert_eq!(bits(&c32i.to_vec()), bits(&nz));
    assert_eq!(c16.to_vec(), nz.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>());
}

/// A configuration with `enableRelu` (the vendor's `MatmulConfig` field).
struct CfgRelu;
impl MatmulCfg for CfgRelu {
    const CFG: MatmulConfig = MatmulConfig { enable_relu: true, ..CFG_NORM };
}

/// `enableRelu`: C is the ReLU of the plain result, bit for bit, for `float` and `half` C
/// (ReLU before the conversion) and an `int32_t` C; with a bias (ReLU after it).
#[test]
fn relu_config_clamps_negative_results() {
    let (m, n, k) = (32, 48, 64);
    let a: Vec<f16> = ascend_kernels::data::random_vec(m * k, 51, -2.0, 2.0);
    let b: Vec<f16> = ascend_kernels::data::random_vec(k * n, 52, -2.0, 2.0);
    let bias: Vec<f32> = ascend_kernels::data::random_vec(n, 53, -4.0, 4.0);
    let ai: Vec<i8> = (0..m * k).map(|i| ((i * 37 + 11) % 29) as i8 - 14).collect();
    let bi: Vec<i8> = (0..n * k).map(|i| ((i * 53 + 5) % 31) as i8 - 15).collect();
    let t = tiling(DataType::DT_FLOAT16, (m, n, k), (32, 32, 32));
    let (ga, gb, gbias, gai, gbi) = (
        GmBuffer::from_vec(a),
        GmBuffer::from_vec(b),
        GmBuffer::from_vec(bias),
        GmBuffer::from_vec(ai.clone()),
        GmBuffer::from_vec(bi.clone()),
    );
    let (plain, relu, relu16) =
        (GmBuffer::<f32>::zeroed(m * n), GmBuffer::<f32>::zeroed(m * n), GmBuffer::<f16>::zeroed(m * n));
    let ci = GmBuffer::<i32>::zeroed(m * n);
    let (pa, pb, pbias, pai, pbi) = (at(&ga), at(&gb), at(&gbias), at(&gai), at(&gbi));
    let (pp, pr, pr16, pci) = (at(&plain), at(&relu), at(&relu16), at(&ci));
    run1(move || {
        let (a_, b_, bias_) = (gm::<f16>(pa), gm::<f16>(pb), gm::<f32>(pbias));
        type H<C, CFG> = Matmul<
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<Gm, cube_format::ND, C>,
            MatmulType<Gm, cube_format::ND, f32>,
            CFG,
        >;
        let mut mm = H::<f32, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&gm::<f32>(pp), false);
        let mut mm = H::<f32, CfgRelu>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&gm::<f32>(pr), false, false);
        }
        let mut mm = H::<f16, CfgRelu>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&gm::<f16>(pr16), false);
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, i8>,
            MatmulType<Gm, cube_format::ND, i8, true>,
            MatmulType<Gm, cube_format::ND, i32>,
            MatmulType<Gm, cube_format::ND, i32>,
            CfgRelu,
        >::new();
        let mut ti = t;
        ti.baseK = 32;
        mm.init(&ti);
        mm.set_tensor_a(&gm::<i8>(pai), false);
        mm.set_tensor_b(&gm::<i8>(pbi), true);
        mm.iterate_all::<true>(&gm::<i32>(pci), false);
    })
    .unwrap();
    let p = plain.to_vec();
    assert!(p.iter().filter(|&&x| x < 0.0).count() > 100, "the data must give negative results");
    let want: Vec<f32> = p.iter().map(|&x| if x < 0.0 { 0.0 } else { x }).collect();
    assert_eq!(bits(&relu.to_vec()), bits(&want));
    assert_eq!(relu16.to_vec(), want.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>());
    let exact: Vec<i32> = (0..m * n)
        .map(|i| {
            (0..k).map(|kk| ai[(i / n) * k + kk] as i32 * bi[(i % n) * k + kk] as i32).sum::<i32>().max(0)
        })
        .collect();
    assert!(exact.iter().filter(|&&x| x == 0).count() > 100);
    assert_eq!(ci.to_vec(), exact);
}

/// NZ forms the emulator does not have, and NZ misuse, are errors naming the call.
#[test]
fn nz_errors() {
    let t = tiling(DataType::DT_FLOAT16, (32, 32, 32), (16, 16, 16));
    let e = err_of(move || {
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<VecIn, cube_format::NZ, f32>,
        >::new();
        mm.init(&t);
    });
    assert!(e.contains("Matmul::Init") && e.contains("an NZ C goes to GM only here"), "{e}");
    let e = err_of(move || {
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, i8>,
            MatmulType<Gm, cube_format::ND, i8>,
            MatmulType<Gm, cube_format::NZ, i8>,
        >::new();
        mm.init(&t);
    });
    assert!(e.contains("C is NZ of int8_t"), "{e}");
    // orgM not a multiple of 16 with an NZ C.
    let g = GmBuffer::<f16>::zeroed(32 * 32);
    let c = GmBuffer::<f32>::zeroed(32 * 32);
    let (pg, pc) = (at(&g), at(&c));
    let e = err_of(move || {
        let mut mm =
            Mm::<f16, f16, cube_format::ND, cube_format::ND, f32, cube_format::NZ, false, false>::new();
        mm.init(&t);
        mm.set_org_shape(24, 32, 32);
        mm.set_single_shape(24, 32, 32);
        mm.set_tensor_a(&gm::<f16>(pg), false);
        mm.set_tensor_b(&gm::<f16>(pg), false);
        mm.iterate_all::<true>(&gm::<f32>(pc), false);
    });
    assert!(e.contains("Matmul::GetTensorC") && e.contains("orgM = 24"), "{e}");
    // An NZ A whose GM tensor lacks the padded rows: the GM -> L1 copy reads past it.
    let short = GmBuffer::<f16>::zeroed(24 * 32);
    let ps = at(&short);
    let e = err_of(move || {
        let mut mm =
            Mm::<f16, f16, cube_format::NZ, cube_format::ND, f32, cube_format::ND, false, false>::new();
        mm.init(&t);
        mm.set_org_shape(24, 32, 32);
        mm.set_single_shape(24, 32, 32);
        mm.set_tensor_a(&gm::<f16>(ps), false);
        mm.set_tensor_b(&gm::<f16>(pg), false);
        mm.iterate_all::<true>(&gm::<f32>(pc), false);
    });
    assert!(e.contains("DataCopy"), "{e}");
}
