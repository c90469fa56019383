//! The high-level `Matmul`'s public methods, one launch each, checked bit for bit against the
//! cube's documented arithmetic (per element: runs of 16 depths summed exactly, rounded once
//! to float, added in float in K order from the bias or 0), and its errors.

use ascend_core::adv::matmul_tiling::{CubeFormat, DataType, MultiCoreMatmulTiling, TPos};
use ascend_runtime::prelude::*;

/// The cube's result for logical `a` (`m × k`) and `b` (`k × n`), from `bias` or 0.
fn cube_ref(a: &[f64], b: &[f64], bias: Option<&[f64]>, (m, n, k): (usize, usize, usize)) -> Vec<f32> {
    (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let mut acc = bias.map_or(0f32, |b| b[c] as f32);
            for k0 in (0..k).step_by(16) {
                let s: f64 = (k0..(k0 + 16).min(k)).map(|kk| a[r * k + kk] * b[kk * n + c]).sum();
                acc += s as f32;
            }
            acc
        })
        .collect()
}

fn tiling(m: usize, n: usize, k: usize, fix: (i32, i32, i32)) -> TCubeTiling {
    let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
    api.set_dim(1);
    api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_BF16, false);
    api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_BF16, false);
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

type Bf<C, const TA: bool, const TB: bool, CFG> = Matmul<
    MatmulType<Gm, cube_format::ND, bf16, TA>,
    MatmulType<Gm, cube_format::ND, bf16, TB>,
    MatmulType<Gm, cube_format::ND, C>,
    MatmulType<Gm, cube_format::ND, f32>,
    CFG,
>;

/// bf16 inputs with tails in M, N and K, both CFGs, transposed A and B, `Iterate` +
/// `GetTensorC` in both iteration orders and `IterateAll`: the same bits everywhere, the
/// cube's; float, bfloat16 and half C are the float result rounded.
#[test]
fn bf16_tails_transposes_cfgs_and_orders_agree_bit_for_bit() {
    let (m, n, k) = (72, 100, 88);
    let a: Vec<bf16> = ascend_kernels::data::random_vec(m * k, 1, -2.0, 2.0);
    let b: Vec<bf16> = ascend_kernels::data::random_vec(k * n, 2, -2.0, 2.0);
    let bias: Vec<f32> = ascend_kernels::data::random_vec(n, 3, -2.0, 2.0);
    let (af, bf): (Vec<f64>, Vec<f64>) =
        (a.iter().map(|x| x.to_f64()).collect(), b.iter().map(|x| x.to_f64()).collect());
    let bias64: Vec<f64> = bias.iter().map(|&x| x as f64).collect();
    let want = cube_ref(&af, &bf, Some(&bias64), (m, n, k));
    let a_t: Vec<bf16> = (0..k * m).map(|i| a[(i % m) * k + i / m]).collect(); // K x M
    let b_t: Vec<bf16> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect(); // N x K
    let t = tiling(m, n, k, (32, 48, 32));
    assert_eq!((t.baseM, t.baseN, t.baseK), (32, 48, 32));
    let mut t1 = t;
    t1.iterateOrder = 1;
    let (ga, gb, gat, gbt, gbias) = (
        GmBuffer::from_vec(a),
        GmBuffer::from_vec(b),
        GmBuffer::from_vec(a_t),
        GmBuffer::from_vec(b_t),
        GmBuffer::from_vec(bias),
    );
    let (pa, pb, pat, pbt, pbias) = (at(&ga), at(&gb), at(&gat), at(&gbt), at(&gbias));
    let outs: Vec<GmBuffer<f32>> = (0..5).map(|_| GmBuffer::zeroed(m * n)).collect();
    let (o16, obf) = (GmBuffer::<f16>::zeroed(m * n), GmBuffer::<bf16>::zeroed(m * n));
    let po: Vec<At> = outs.iter().map(at).collect();
    let (p16, pbf) = (at(&o16), at(&obf));
    run1(move || {
        let (a_, b_, at_, bt_, bias_) =
            (gm::<bf16>(pa), gm::<bf16>(pb), gm::<bf16>(pat), gm::<bf16>(pbt), gm::<f32>(pbias));
        let o: Vec<GlobalTensor<f32>> = po.iter().map(|&p| gm(p)).collect();
        let (o16_, obf_) = (gm::<f16>(p16), gm::<bf16>(pbf));
        // NORM, IterateAll.
        let mut mm = Bf::<f32, false, false, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&o[0], false);
        mm.end();
        // MDL, transposed A and B, Iterate + GetTensorC, M first.
        let mut mm = Bf::<f32, true, true, CfgMdl>::new();
        mm.init(&t);
        mm.set_tensor_a(&at_, true);
        mm.set_tensor_b(&bt_, true);
        mm.set_bias(&bias_);
        let mut blocks = 0;
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&o[1], false, false);
            blocks += 1;
        }
        assert_eq!(blocks, 3 * 3);
        mm.end();
        // N first.
        let mut mm = Bf::<f32, false, false, CfgNorm>::new();
        mm.init(&t1);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&o[2], false, false);
        }
        // Asynchronous Iterate: every block computed, fetched in order.
        mm.set_tensor_a(&a_, false);
        assert!(mm.iterate::<false>());
        for _ in 0..9 {
            mm.get_tensor_c::<false, _>(&o[3], false, false);
        }
        assert!(!mm.iterate::<false>());
        // Asynchronous IterateAll.
        mm.iterate_all::<false>(&o[4], false);
        mm.wait_iterate_all();
        mm.end();
        // Half and bfloat16 C.
        let mut mm = Bf::<f16, false, false, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&o16_, false);
        let mut mm = Bf::<bf16, false, false, CfgNorm>::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.set_bias(&bias_);
        mm.iterate_all::<true>(&obf_, false);
    })
    .unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (i, out) in outs.iter().enumerate() {
        assert_eq!(bits(&out.to_vec()), bits(&want), "output {i}");
    }
    assert_eq!(o16.to_vec(), want.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>());
    assert_eq!(obf.to_vec(), want.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>());
}

type H = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f32>,
>;
type HUb = Matmul<
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<Gm, cube_format::ND, f16>,
    MatmulType<VecIn, cube_format::ND, f32>,
>;

fn ints(len: usize, seed: u64) -> Vec<f16> {
    let mut rng = ascend_kernels::data::XorShift64::new(seed);
    (0..len).map(|_| f16::from_f32(rng.range(-4, 5) as f32)).collect()
}

/// `SetOrgShape` + `SetSingleShape` compute one sub-block of a larger product; `SetTail`
/// shrinks it; `enAtomic` adds into what C holds; `DisableBias` drops the bias.
#[test]
fn org_single_tail_atomic_and_disable_bias() {
    let (m, n, k) = (64, 64, 64);
    let (a, b) = (ints(m * k, 1), ints(k * n, 2));
    let bias: Vec<f32> = (0..n).map(|j| j as f32).collect();
    let val = |r: usize, c: usize, kk: usize| -> f32 {
        (0..kk).map(|x| a[r * k + x].to_f32() * b[x * n + c].to_f32()).sum()
    };
    let t = {
        let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
        api.set_dim(1).set_org_shape(32, 32, 32).set_shape(32, 32, 32).set_fix_split(16, 16, 16);
        api.get_tiling().unwrap()
    };
    let (ga, gb, gbias) =
        (GmBuffer::from_vec(a.clone()), GmBuffer::from_vec(b.clone()), GmBuffer::from_vec(bias));
    let c = GmBuffer::from_vec(vec![1000f32; m * n]);
    let (pa, pb, pbias, pc) = (at(&ga), at(&gb), at(&gbias), at(&c));
    run1(move || {
        let (a_, b_, bias_, c_) = (gm::<f16>(pa), gm::<f16>(pb), gm::<f32>(pbias), gm::<f32>(pc));
        let mut mm = H::new();
        regist_matmul_obj!((), (), mm, &t);
        // The 16 x 32 block at row 16, column 32 of the 64 x 64 product, K = 48.
        mm.set_org_shape(64, 64, 64);
        mm.set_single_shape(16, 32, 48);
        mm.set_tensor_a(&a_.view(16 * 64), false);
        mm.set_tensor_b(&b_.view(32), false);
        mm.set_bias(&bias_.view(32));
        mm.iterate_all::<true>(&c_.view(16 * 64 + 32), true); // atomic: 1000 + result
                                                              // The tail: 8 x 8 at (0, 0), no bias, not atomic.
        mm.set_tail(8, 8, -1);
        mm.disable_bias();
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        mm.iterate_all::<true>(&c_, false);
        mm.end();
    })
    .unwrap();
    let out = c.to_vec();
    for r in 0..m {
        for col in 0..n {
            let want = if (16..32).contains(&r) && (32..64).contains(&col) {
                1000.0 + col as f32 + val(r, col, 48)
            } else if r < 8 && col < 8 {
                val(r, col, 48)
            } else {
                1000.0
            };
            assert_eq!(out[r * n + col], want, "({r}, {col})");
        }
    }
}

/// `GetTensorC` to a `VECIN` tensor: sequential (the block at 0, rows `baseN` apart) and at
/// its place in `singleM × singleN`.
#[test]
fn get_tensor_c_to_the_unified_buffer() {
    let (m, n, k) = (32, 32, 32);
    let (a, b) = (ints(m * k, 3), ints(k * n, 4));
    let want: Vec<f32> = (0..m * n)
        .map(|i| (0..k).map(|x| a[(i / n) * k + x].to_f32() * b[x * n + i % n].to_f32()).sum())
        .collect();
    let t = {
        let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
        api.set_dim(1).set_org_shape(32, 32, 32).set_shape(32, 32, 32).set_fix_split(16, 16, 16);
        api.set_c_type(TPos::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
        api.get_tiling().unwrap()
    };
    let (ga, gb) = (GmBuffer::from_vec(a), GmBuffer::from_vec(b));
    let (seq, placed) = (GmBuffer::<f32>::zeroed(4 * 256), GmBuffer::<f32>::zeroed(m * n));
    let (pa, pb, pseq, pplaced) = (at(&ga), at(&gb), at(&seq), at(&placed));
    run1(move || {
        let (a_, b_, seq_, placed_) = (gm::<f16>(pa), gm::<f16>(pb), gm::<f32>(pseq), gm::<f32>(pplaced));
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut q, 1, m * n * 4);
        let mut mm = HUb::new();
        mm.init(&t);
        mm.set_tensor_a(&a_, false);
        mm.set_tensor_b(&b_, false);
        let ub = q.alloc_tensor::<f32>();
        let mut i = 0;
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&ub.view(i * 256), false, true);
            i += 1;
        }
        set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        data_copy(&seq_, &ub, 4 * 256);
        set_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
        wait_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
        while mm.iterate::<true>() {
            mm.get_tensor_c::<true, _>(&ub, false, false);
        }
        set_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_MTE3>(EVENT_ID0);
        data_copy(&placed_, &ub, m * n);
        q.free_tensor(ub);
        mm.end();
    })
    .unwrap();
    assert_eq!(placed.to_vec(), want);
    let s = seq.to_vec();
    // Blocks M first: (0,0), (1,0), (0,1), (1,1), each 16 x 16 row-major.
    for (blk, (bi, bj)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
        for r in 0..16 {
            for c in 0..16 {
                assert_eq!(s[blk * 256 + r * 16 + c], want[(bi * 16 + r) * n + bj * 16 + c]);
            }
        }
    }
}

fn err_of(f: impl Fn() + Send + Sync + 'static) -> String {
    run1(f).unwrap_err().to_string()
}

/// Misuse is an error naming the API and the fix.
#[test]
fn matmul_errors_name_the_call() {
    let t = tiling(32, 32, 32, (16, 16, 16));
    let g = GmBuffer::<f16>::zeroed(32 * 32);
    let pg = at(&g);
    let c = GmBuffer::<f32>::zeroed(32 * 32);
    let pc = at(&c);
    let e = err_of(move || {
        let mut mm = H::new();
        mm.init(&t);
        mm.set_tensor_b(&gm(pg), false);
        mm.iterate_all::<true>(&gm(pc), false);
    });
    assert!(e.contains("Matmul::IterateAll: SetTensorA was not called"), "{e}");
    let e = err_of(move || {
        let mut mm = H::new();
        mm.init(&t);
        mm.end();
        mm.set_tensor_a(&gm(pg), false);
    });
    assert!(e.contains("Matmul::SetTensorA: the Matmul object was ended"), "{e}");
    let e = err_of(move || {
        let mut mm = H::new();
        mm.init(&t);
        mm.set_tensor_a(&gm(pg), false);
        mm.get_tensor_c::<true, _>(&gm::<f32>(pc), false, false);
    });
    assert!(e.contains("no block to move out: call Iterate first"), "{e}");
    let e = err_of(move || {
        let mut mm = H::new();
        mm.init(&t);
        mm.wait_iterate_all();
    });
    assert!(e.contains("no asynchronous IterateAll<false> is pending"), "{e}");
    let e = err_of(move || {
        let mut mm = H::new();
        mm.set_org_shape(1, 1, 1);
    });
    assert!(e.contains("not initialised: call REGIST_MATMUL_OBJ or Init first"), "{e}");
    let e = err_of(move || {
        let mut mm = H::new();
        let mut bad = t;
        bad.baseM = 24;
        mm.init(&bad);
    });
    assert!(e.contains("tiling.baseM = 24 and baseN = 16 must be multiples of 16"), "{e}");
    let e = err_of(move || {
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<Gm, cube_format::ND, f16>,
            MatmulType<VecIn, cube_format::NZ, f32>,
        >::new();
        mm.init(&t);
    });
    assert!(e.contains("an NZ C goes to GM only here"), "{e}");
    let gi = GmBuffer::<i8>::zeroed(32 * 32);
    let pi = at(&gi);
    let e = err_of(move || {
        let mut ti = t;
        ti.baseK = 32;
        let mut mm = Matmul::<
            MatmulType<Gm, cube_format::ND, i8>,
            MatmulType<Gm, cube_format::ND, i8>,
            MatmulType<Gm, cube_format::ND, i32>,
            MatmulType<Gm, cube_format::ND, i32>,
        >::new();
        mm.init(&ti);
        mm.set_tensor_b(&gm(pi), false);
    });
    assert!(e.contains("isTransposeB = false with int8_t inputs"), "{e}");
}

/// A `VECIN` C on a cube-only kernel fails at the copy into the (missing) Unified Buffer.
#[test]
fn unified_buffer_output_needs_a_vector_core() {
    let t = tiling(16, 16, 16, (16, 16, 16));
    let g = GmBuffer::<f16>::zeroed(256);
    let pg = at(&g);
    let err = Launch::new(Soc::Ascend910B)
        .kernel_type(KernelType::AicOnly)
        .run(move || {
            let (a, b) = (gm::<f16>(pg), gm::<f16>(pg));
            let mut mm = HUb::new();
            mm.init(&t);
            mm.set_tensor_a(&a, false);
            mm.set_tensor_b(&b, false);
            let ub = LocalTensor::<f32>::new(TPosition::VECIN, 0, 256);
            mm.iterate::<true>();
            mm.get_tensor_c::<true, _>(&ub, false, true);
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no Unified Buffer"), "{err}");
}

type I8To<C> = Matmul<
    MatmulType<Gm, cube_format::ND, i8>,
    MatmulType<Gm, cube_format::ND, i8, true>,
    MatmulType<Gm, cube_format::ND, C>,
    MatmulType<Gm, cube_format::ND, i32>,
>;

/// `int8_t` inputs with an `int32_t` bias (through the bias table), C quantised: `half` with
/// `SetQuantScalar` (`DEQF16`) and `int8_t` with `SetQuantVector` (`VREQ8`), bit for bit against
/// the exact integer product put through the documented conversion.
#[test]
fn quantised_c_with_set_quant_scalar_and_vector() {
    let (m, n, k) = (40, 48, 64);
    let a: Vec<i8> = (0..m * k).map(|i| ((i * 37 + 11) % 29) as i8 - 14).collect();
    let b_t: Vec<i8> = (0..n * k).map(|i| ((i * 53 + 5) % 31) as i8 - 15).collect();
    let bias: Vec<i32> = (0..n as i32).map(|j| j * 7 - 150).collect();
    let exact: Vec<i64> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            bias[c] as i64 + (0..k).map(|kk| a[r * k + kk] as i64 * b_t[c * k + kk] as i64).sum::<i64>()
        })
        .collect();
    let t = {
        let mut api = MultiCoreMatmulTiling::new(Soc::Ascend910B);
        api.set_dim(1);
        api.set_a_type(TPos::GM, CubeFormat::ND, DataType::DT_INT8, false);
        api.set_b_type(TPos::GM, CubeFormat::ND, DataType::DT_INT8, true);
        api.set_c_type(TPos::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        api.set_bias_type(TPos::GM, CubeFormat::ND, DataType::DT_INT32);
        api.enable_bias(true);
        api.set_org_shape(m as i32, n as i32, k as i32).set_shape(m as i32, n as i32, k as i32);
        api.set_fix_split(16, 32, 32); // blocks of 16 x 32, a tail of 16 columns
        api.get_tiling().unwrap()
    };
    // The scalar: 1/64 (exact in (1, 8, 10)). The vector: column j scaled by (j + 1) / 32,
    // offset 3, Sign 1 (int8_t C).
    let scalar = (1.0f32 / 64.0).to_bits() as u64;
    let vector: Vec<u64> =
        (0..n).map(|j| ((j as f32 + 1.0) / 32.0).to_bits() as u64 | 3 << 37 | 1 << 46).collect();
    let (ga, gb, gbias, gq) = (
        GmBuffer::from_vec(a),
        GmBuffer::from_vec(b_t),
        GmBuffer::from_vec(bias),
        GmBuffer::from_vec(vector.clone()),
    );
    let (ch, c8) = (GmBuffer::from_vec(vec![f16::ZERO; m * n]), GmBuffer::from_vec(vec![0i8; m * n]));
    let (pa, pb, pbias, pq, pch, pc8) = (at(&ga), at(&gb), at(&gbias), at(&gq), at(&ch), at(&c8));
    run1(move || {
        let (a_, b_, bias_) = (gm::<i8>(pa), gm::<i8>(pb), gm::<i32>(pbias));
        let mut mh = I8To::<f16>::new();
        regist_matmul_obj!((), (), mh, &t);
        mh.set_tensor_a(&a_, false);
        mh.set_tensor_b(&b_, true);
        mh.set_bias(&bias_);
        mh.set_quant_scalar(scalar);
        mh.iterate_all::<true>(&gm::<f16>(pch), false);
        mh.end();
        let mut m8 = I8To::<i8>::new();
        regist_matmul_obj!((), (), m8, &t);
        m8.set_tensor_a(&a_, false);
        m8.set_tensor_b(&b_, true);
        m8.set_bias(&bias_);
        m8.set_quant_vector(&gm::<u64>(pq));
        while m8.iterate::<true>() {
            m8.get_tensor_c::<true, _>(&gm::<i8>(pc8), false, false);
        }
        m8.end();
    })
    .unwrap();
    let (gh, g8) = (ch.to_vec(), c8.to_vec());
    for i in 0..m * n {
        let x = exact[i].clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let want_h = f16::from_f32((x as f32 * (1.0 / 64.0)).clamp(-65504.0, 65504.0));
        assert_eq!(gh[i].to_bits(), want_h.to_bits(), "half C at {i}: x = {x}");
        let s = (i % n) as f32 + 1.0;
        let y = x as f32 * (s / 32.0);
        let want8 = ((y.clamp(-256.0, 255.0).round_ties_even() as i32) + 3).clamp(-128, 127) as i8;
        assert_eq!(g8[i], want8, "int8 C at {i}: x = {x}");
    }
}

/// A check that fails in the cube-side half of `Matmul` (here the bias table's 1 KiB, inside
/// the closure that runs on the cube core) points at the kernel's line, not into the library.
#[test]
fn cube_side_errors_point_at_the_kernels_line() {
    use std::sync::atomic::{AtomicU32, Ordering};
    static LINE: AtomicU32 = AtomicU32::new(0);
    let (m, n, k) = (16, 512, 16);
    let t = tiling(m, n, k, (16, 512, 16));
    let (a, b, c) =
        (GmBuffer::<f16>::zeroed(m * k), GmBuffer::<f16>::zeroed(k * n), GmBuffer::<f32>::zeroed(m * n));
    let bias = GmBuffer::<f32>::zeroed(n);
    let (pa, pb, pc, pbias) = (at(&a), at(&b), at(&c), at(&bias));
    let e = err_of(move || {
        let mut mm = H::new();
        mm.init(&t);
        mm.set_tensor_a(&gm(pa), false);
        mm.set_tensor_b(&gm(pb), false);
        mm.set_bias(&gm(pbias));
        LINE.store(line!() + 1, Ordering::Relaxed);
        mm.iterate_all::<true>(&gm(pc), false);
    });
    assert!(e.contains("do not fit the bias table"), "{e}");
    let at_line = format!("matmul_api.rs:{})", LINE.load(Ordering::Relaxed));
    assert!(e.contains(&at_line), "{e} should point at {at_line}");
}

/// An ND operand whose GM row is longer than the ND2NZ copy's `uint16_t` `srcDValue` is an
/// error (the vendor's `Matmul` would truncate it on Ascend910B); 65535 itself passes.
#[test]
fn nd_rows_longer_than_a_uint16_are_an_error() {
    let (m, n, k) = (16, 16, 32);
    let t = tiling(m, n, k, (16, 16, 16));
    for (org_k, ok) in [(65_535usize, true), (65_536, false)] {
        let (a, b, c) = (
            GmBuffer::<f16>::zeroed(m * org_k),
            GmBuffer::<f16>::zeroed(org_k * n),
            GmBuffer::<f32>::zeroed(m * n),
        );
        let (pa, pb, pc) = (at(&a), at(&b), at(&c));
        let r = run1(move || {
            let mut mm = H::new();
            mm.init(&t);
            mm.set_org_shape(m, n, org_k);
            mm.set_tensor_a(&gm(pa), false);
            mm.set_tensor_b(&gm(pb), false);
            mm.iterate_all::<true>(&gm(pc), false);
        });
        match r {
            Ok(_) => assert!(ok, "orgKa = {org_k} passed"),
            Err(e) => {
                let e = e.to_string();
                assert!(!ok, "orgKa = {org_k}: {e}");
                assert!(e.contains("Matmul::IterateAll: orgKa = 65536 (an ND A operand)"), "{e}");
                assert!(e.contains("srcDValue is a uint16_t, at most 65535"), "{e}");
            }
        }
    }
}
