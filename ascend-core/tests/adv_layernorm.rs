//! The advanced API's `LayerNorm` (`adv/layernorm.rs`) against a scalar reference that takes
//! the vendor's steps with each instruction's rounding — `half` widened to `float` exactly;
//! `x * (1 / originH)` in `f32`; the row sum as the row's 64-element chunks added in order
//! into the first (the last partial chunk too), then `WholeReduceSum`'s binary tree over
//! `min(H, 64)` lanes (disabled lanes `+0`); `x - mean`, its square, `* (1 / originH)` and
//! the same sum; `+ epsilon`, `Sqrt`, `1 / ·`, `* (x - mean)`, `* gamma`, `+ beta` in `f32`;
//! the narrowing to `half` to nearest-even — for both types on both chips, both forms, both
//! `IS_REUSE_SOURCE`s, shapes that take every path (H below, at and above 64, with a partial
//! chunk, padded rows, one row per round up to all rows, over 255 rows in a round), bit for
//! bit, with the mask state and the tiling afterwards. Then the host tiling's numbers and
//! every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, on, tree, ub, Rng};

const CHIPS: [Soc; 2] = [Soc::Ascend910B, Soc::Ascend310P];

/// The element types: a `LayerNorm` type with the shared `f32` round trip ([`util::Fp`]).
trait Fp: util::Fp + LayerNormElement {}
impl<T: util::Fp + LayerNormElement> Fp for T {}

// ---- the reference -------------------------------------------------------------------------

/// `WholeReduceSum`'s binary tree over one repeat of up to 64 lanes, the rest `+0`.
fn tree64(v: &[f32]) -> f32 {
    let mut lanes = v.to_vec();
    lanes.resize(64, 0.0);
    tree(lanes, false)
}

/// `LayerNormReduceSumImpl` on one row: the 64-element chunks (and the partial last one)
/// added in order into the first, then the tree over `min(H, 64)` lanes.
fn row_sum(v: &[f32]) -> f32 {
    let h = v.len();
    if h <= 64 {
        return tree64(v);
    }
    let mut acc = v[..64].to_vec();
    for chunk in v[64..].chunks(64) {
        for (a, &x) in acc.iter_mut().zip(chunk) {
            *a += x;
        }
    }
    tree64(&acc)
}

/// The outputs of all rows: `(y, mean, variance)` in `float` before any narrowing.
fn reference(
    x: &[f32],
    g: &[f32],
    b: &[f32],
    h: usize,
    back: f32,
    eps: f32,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (mut y, mut means, mut vars) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(h) {
        let mean = row_sum(&row.iter().map(|&v| v * back).collect::<Vec<_>>());
        let d: Vec<f32> = row.iter().map(|&v| v - mean).collect();
        let var = row_sum(&d.iter().map(|&v| (v * v) * back).collect::<Vec<_>>());
        let r = 1.0 / (var + eps).sqrt();
        y.extend(d.iter().zip(g).zip(b).map(|((&dv, &gv), &bv)| (r * dv) * gv + bv));
        means.push(mean);
        vars.push(var);
    }
    (y, means, vars)
}

// ---- the sweep -----------------------------------------------------------------------------

/// The scratch of a case: the host's minimum, maximum, their middle, or the stack form.
#[derive(Clone, Copy, Debug)]
enum Tmp {
    Min,
    Mid,
    Max,
    Stack,
}

/// `n` values in `[lo, hi)`, rows of `h` with all but the first `oh` elements 0.
fn rand_rows<T: Fp>(rng: &mut Rng, n: usize, h: usize, oh: usize, lo: f32, hi: f32) -> Vec<T> {
    (0..n)
        .map(|i| {
            let v = lo + (hi - lo) * (rng.below(1 << 24) as f32 / (1 << 24) as f32);
            T::from32(if i % h < oh { v } else { 0.0 })
        })
        .collect()
}

/// One call of `layer_norm::<T, REUSE>` on `[b, s, h]` holding rows of `oh` on `soc`, compared
/// bit for bit with the reference; `false` when it does not fit the chip's Unified Buffer.
fn run_case<T: Fp, const REUSE: bool>(
    soc: Soc,
    (b, s, h, oh): (usize, usize, usize, usize),
    tmp: Tmp,
    seed: u64,
) -> bool {
    on(soc, || {
        let (n, rows) = (b * s * h, b * s);
        let al = |k: usize| (k * T::SIZE).div_ceil(32) * 32;
        let shape = [b, s, h, oh];
        let (max, min) = get_layer_norm_max_min_tmp_size(&shape, T::SIZE, REUSE);
        let tmp_bytes = match tmp {
            Tmp::Min => min,
            Tmp::Max => max,
            Tmp::Mid => (min + max) / 2 / 32 * 32,
            Tmp::Stack => 0,
        };
        let io = 2 * al(n) + 2 * al(rows) + 2 * al(h);
        let stack_need = if let Tmp::Stack = tmp { min } else { 0 };
        if io + tmp_bytes + stack_need + 64 > soc.ub_size() {
            return false;
        }
        let u = ub(io + tmp_bytes);
        let mut at = 0;
        let mut next = |k: usize| {
            let t = u.t::<T>(at, k);
            at += al(k);
            t
        };
        let (x, y, mean, var, g, bt) = (next(n), next(n), next(rows), next(rows), next(h), next(h));
        let scratch = u.t::<u8>(io, tmp_bytes);
        let buffer = if let Tmp::Stack = tmp { pop_stack_buffer::<u8>().get_size() } else { tmp_bytes };
        let mut tiling = get_layer_norm_nd_tiling_info(&shape, buffer, T::SIZE, REUSE);
        let before = tiling;
        let mut rng = Rng(seed);
        let xv: Vec<T> = rand_rows(&mut rng, n, h, oh, -3.0, 5.0);
        let gv: Vec<T> = rand_rows(&mut rng, h, h, h, -1.5, 1.5);
        let bv: Vec<T> = rand_rows(&mut rng, h, h, h, -1.0, 1.0);
        let eps = T::from32(1e-3);
        x.copy_from_slice(&xv);
        g.copy_from_slice(&gv);
        bt.copy_from_slice(&bv);
        if let Tmp::Stack = tmp {
            layer_norm_stack::<T, REUSE>(&y, &mean, &var, &x, &g, &bt, eps, &mut tiling);
        } else {
            layer_norm::<T, REUSE>(&y, &mean, &var, &x, &g, &bt, &scratch, eps, &mut tiling);
        }
        let ctx =
            format!("{} reuse {REUSE} on {soc}, [{b}, {s}, {h}] of {oh}, {tmp:?}, {before:?}", T::DTYPE);
        let f = |v: &[T]| v.iter().map(|e| e.to32()).collect::<Vec<f32>>();
        let (wy, wm, wv) = reference(&f(&xv), &f(&gv), &f(&bv), h, before.last_dim_value_back, eps.to32());
        let conv = |v: Vec<f32>| v.into_iter().map(T::from32).collect::<Vec<T>>();
        assert_bits_ctx(&y.to_vec(), &conv(wy), &ctx);
        assert_bits_ctx(&mean.to_vec(), &conv(wm), format!("mean; {ctx}"));
        assert_bits_ctx(&var.to_vec(), &conv(wv), format!("variance; {ctx}"));
        if !(REUSE && T::DTYPE == DType::F32) {
            assert_bits_ctx(&x.to_vec(), &xv, format!("inputX written; {ctx}"));
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        // The vendor's `LayerNormTiling&`: a tail round leaves its lengths in the tiling.
        let mut want = before;
        if before.input_tail_size > 0 {
            want.bsh_cur_length = before.input_tail_size;
            want.bs_cur_length = before.mean_var_tail_size;
        }
        assert_eq!(tiling, want, "{ctx}");
        true
    })
}

/// Shapes `(b, s, h, original h)` of one type: every path.
fn shapes(half: bool) -> Vec<(usize, usize, usize, usize)> {
    let a = if half { 16 } else { 8 };
    vec![
        (1, 1, a, a),
        (2, 3, a, a - 3),
        (3, 7, 2 * a, 2 * a - 1),
        (2, 5, 64, 64),
        (1, 9, 64, 50),
        (2, 3, 64 + a, 64 + a),
        (3, 5, 128 + a, 120 + a),
        (1, 3, 192, 192),
        (1, 2, 1024, 1000),
        (2, 150, a, a),
    ]
}

fn sweep<T: Fp>(seed: u64) {
    let (mut k, mut ran) = (seed, 0);
    for soc in CHIPS {
        for shape in shapes(T::DTYPE == DType::F16) {
            for tmp in [Tmp::Min, Tmp::Mid, Tmp::Max, Tmp::Stack] {
                k += 1;
                ran += usize::from(run_case::<T, false>(soc, shape, tmp, k));
                k += 1;
                ran += usize::from(run_case::<T, true>(soc, shape, tmp, k));
            }
        }
    }
    println!("{} cases: {ran}", T::DTYPE);
    assert!(ran >= 140, "only {ran} cases fit");
}

#[test]
fn layer_norm_float_matches_reference() {
    sweep::<f32>(100);
}

#[test]
fn layer_norm_half_matches_reference() {
    sweep::<f16>(200);
}

#[test]
fn reused_tiling_keeps_the_tail_lengths() {
    // As on the chip: the second call's full rounds cover only the tail's rows.
    on(Soc::Ascend910B, || {
        let (b, s, h) = (1, 5, 8);
        let n = b * s * h;
        let u = ub(4096);
        let (x, y, m, v, g, bt) = (
            u.t::<f32>(0, n),
            u.t::<f32>(256, n),
            u.t::<f32>(512, 8),
            u.t::<f32>(544, 8),
            u.t::<f32>(576, h),
            u.t::<f32>(608, h),
        );
        let tmp = u.t::<u8>(1024, 3 * 2 * 32);
        let mut tiling = get_layer_norm_nd_tiling_info(&[b, s, h, h], tmp.get_size(), 4, false);
        assert_eq!((tiling.bs_cur_length, tiling.loop_round, tiling.mean_var_tail_size), (2, 2, 1));
        let xv: Vec<f32> = (0..n).map(|i| (i * i % 7) as f32).collect();
        x.copy_from_slice(&xv);
        g.copy_from_slice(&[1.0; 8]);
        bt.copy_from_slice(&[0.0; 8]);
        layer_norm::<f32, false>(&y, &m, &v, &x, &g, &bt, &tmp, 0.0, &mut tiling);
        assert_eq!((tiling.bs_cur_length, tiling.bsh_cur_length), (1, 8));
        let first = m.to_vec();
        m.copy_from_slice(&[-1.0; 8]);
        layer_norm::<f32, false>(&y, &m, &v, &x, &g, &bt, &tmp, 0.0, &mut tiling);
        let again = m.to_vec();
        // Rows 0, 2 (the rounds' first rows) and 4 (the tail) are computed; rows 1 and 3 not.
        for r in [0, 2, 4] {
            assert_eq!(again[r], first[r], "row {r}");
        }
        for r in [1, 3] {
            assert_eq!(again[r], -1.0, "row {r}");
        }
    });
}

// ---- host tiling ---------------------------------------------------------------------------

#[test]
fn host_tmp_sizes() {
    // k * align32(4 * BSH) + 2 * align32(4 * BS), k * align32(4 * H) + 2 * align32(4 * BS).
    assert_eq!(get_layer_norm_max_min_tmp_size(&[2, 32, 16, 16], 4, false), (3 * 4096 + 512, 3 * 64 + 512));
    assert_eq!(get_layer_norm_max_min_tmp_size(&[2, 32, 16, 16], 4, true), (2 * 4096 + 512, 2 * 64 + 512));
    assert_eq!(get_layer_norm_max_min_tmp_size(&[1, 3, 16, 10], 2, true), (3 * 192 + 64, 3 * 64 + 64));
    assert_eq!(get_layer_norm_max_min_tmp_size(&[1, 1, 8, 8], 4, false), (3 * 32 + 64, 3 * 32 + 64));
}

#[test]
fn host_tiling_numbers() {
    let t = get_layer_norm_nd_tiling_info(&[2, 5, 16, 13], 4 * (32 + 3 * 40), 2, false);
    let want = LayerNormTiling {
        b_length: 2,
        s_length: 5,
        h_length: 16,
        original_h_length: 13,
        input_x_size: 160,
        mean_var_size: 10,
        number_of_tmp_buf: 3,
        mean_tmp_tensor_pos: 0,
        mean_tmp_tensor_size: 16,
        variance_tmp_tensor_pos: 16,
        variance_tmp_tensor_size: 16,
        tmp_buf_size: 152,
        one_tmp_size: 32,
        first_tmp_start_pos: 32,
        second_tmp_start_pos: 64,
        third_tmp_start_pos: 96,
        loop_round: 5,
        input_round_size: 32,
        input_tail_size: 0,
        input_tail_pos: 160,
        mean_var_round_size: 2,
        mean_var_tail_size: 0,
        mean_var_tail_pos: 10,
        bsh_cur_length: 32,
        bs_cur_length: 2,
        last_dim_value_back: 1.0f32 / 13.0f32,
    };
    assert_eq!(t, want);
    // float: no means and variances in the buffer; reuse: two views.
    let t = get_layer_norm_nd_tiling_info(&[1, 7, 8, 8], 4 * 50, 4, true);
    assert_eq!(
        (t.first_tmp_start_pos, t.one_tmp_size, t.second_tmp_start_pos, t.number_of_tmp_buf),
        (0, 24, 24, 2)
    );
    assert_eq!((t.loop_round, t.input_tail_size, t.input_tail_pos, t.mean_var_tail_pos), (2, 8, 48, 6));
    // At most all rows.
    let t = get_layer_norm_nd_tiling_info(&[1, 3, 8, 8], 1 << 16, 4, false);
    assert_eq!((t.one_tmp_size, t.loop_round, t.bs_cur_length), (24, 1, 3));
}

#[test]
fn host_errors() {
    let mm = "GetLayerNormMaxMinTmpSize";
    let f = |s: &[usize], ts: usize| {
        let _ = get_layer_norm_max_min_tmp_size(s, ts, false);
    };
    expect_panic(|| f(&[1, 8, 64], 4), &[mm, "srcShape = [1, 8, 64] has 3 dimensions", "originHLength"]);
    expect_panic(|| f(&[0, 8, 64, 64], 4), &[mm, "no elements"]);
    expect_panic(|| f(&[1, 8, 64, 64], 8), &[mm, "typeSize = 8"]);
    let info = "GetLayerNormNDTilingInfo";
    let t = |s: &[usize], bytes: usize, ts: usize| {
        let _ = get_layer_norm_nd_tiling_info(s, bytes, ts, false);
    };
    expect_panic(|| t(&[8, 64], 4096, 4), &[info, "has 2 dimensions"]);
    expect_panic(|| t(&[1, 8, 64, 64], 4096, 1), &[info, "typeSize = 1"]);
    expect_panic(
        || t(&[1, 8, 64, 64], 767, 4),
        &[info, "stackBufferSize = 767 bytes holds 191 floats", "3 rows of H = 64"],
    );
    expect_panic(|| t(&[1, 8, 16, 16], 4 * (16 + 47), 2), &[info, "fewer than the 16 of the means"]);
}

// ---- kernel errors -------------------------------------------------------------------------

/// `[1, 2, 64]` float tensors and a scratch of the host's maximum.
struct Case {
    x: LocalTensor<f32>,
    y: LocalTensor<f32>,
    m: LocalTensor<f32>,
    v: LocalTensor<f32>,
    g: LocalTensor<f32>,
    b: LocalTensor<f32>,
    tmp: LocalTensor<u8>,
    tiling: LayerNormTiling,
}

fn with_case(soc: Soc, f: impl FnOnce(&Case)) {
    on(soc, || {
        let u = ub(8192);
        let (max, _) = get_layer_norm_max_min_tmp_size(&[1, 2, 64, 64], 4, false);
        let c = Case {
            x: u.t::<f32>(0, 128),
            y: u.t::<f32>(512, 128),
            m: u.t::<f32>(1024, 8),
            v: u.t::<f32>(1056, 8),
            g: u.t::<f32>(1088, 64),
            b: u.t::<f32>(1344, 64),
            tmp: u.t::<u8>(2048, max),
            tiling: get_layer_norm_nd_tiling_info(&[1, 2, 64, 64], max, 4, false),
        };
        f(&c);
    });
}

impl Case {
    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        y: &LocalTensor<f32>,
        m: &LocalTensor<f32>,
        v: &LocalTensor<f32>,
        x: &LocalTensor<f32>,
        g: &LocalTensor<f32>,
        b: &LocalTensor<f32>,
        tmp: &LocalTensor<u8>,
        t: LayerNormTiling,
    ) {
        let mut t = t;
        layer_norm::<f32, false>(y, m, v, x, g, b, tmp, 1e-5, &mut t);
    }
    fn with_tiling(&self, t: LayerNormTiling) {
        self.call(&self.y, &self.m, &self.v, &self.x, &self.g, &self.b, &self.tmp, t)
    }
}

#[test]
fn unsupported_chips() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        with_case(soc, |c| {
            let msg = format!("no implementation on {soc}");
            expect_panic(|| c.with_tiling(c.tiling), &["LayerNorm", &msg, "Ascend910B, Ascend310P"]);
        });
    }
}

#[test]
fn kernel_errors() {
    with_case(Soc::Ascend910B, |c| {
        let t = c.tiling;
        // Positions.
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 128);
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &c.x, &a1, &c.b, &c.tmp, t),
            &["LayerNorm", "gamma is at position A1"],
        );
        expect_panic(|| c.call(&a1, &c.m, &c.v, &c.x, &c.g, &c.b, &c.tmp, t), &["output is at position A1"]);
        let a1u = LocalTensor::<u8>::new(TPosition::A1, 0, 4096);
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &c.x, &c.g, &c.b, &a1u, t),
            &["sharedTmpBuffer is at position A1"],
        );
        // Unset and inconsistent tilings.
        expect_panic(|| c.with_tiling(LayerNormTiling::default()), &["LayerNorm", "tiling.oneTmpSize = 0"]);
        expect_panic(
            || c.with_tiling(LayerNormTiling { bs_cur_length: 1, ..t }),
            &["LayerNorm", "the tiling is inconsistent"],
        );
        expect_panic(
            || c.with_tiling(LayerNormTiling { loop_round: 2, ..t }),
            &["the tiling is inconsistent"],
        );
        expect_panic(
            || c.with_tiling(LayerNormTiling { original_h_length: 0, ..t }),
            &["the tiling is inconsistent"],
        );
        // H not 32-byte aligned (a consistent tiling of H = 4).
        let h4 = get_layer_norm_nd_tiling_info(&[1, 2, 4, 4], 4096, 4, false);
        expect_panic(
            || c.with_tiling(h4),
            &["LayerNorm", "tiling.hLength = 4 float elements is not 32-byte aligned", "multiple of 8"],
        );
        // The buffer.
        expect_panic(
            || c.with_tiling(LayerNormTiling { tmp_buf_size: 300, ..t }),
            &["LayerNorm", "last view ends at float 384, beyond its tmpBufSize = 300"],
        );
        let small = LocalTensor::<u8>::new(TPosition::VECCALC, c.tmp.get_phy_addr(), 1000);
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &c.x, &c.g, &c.b, &small, t),
            &["LayerNorm", "sharedTmpBuffer has 1000 bytes, fewer than the tiling's tmpBufSize = 400 floats (1600 bytes)"],
        );
        // Sizes.
        let short = LocalTensor::<f32>::new(TPosition::VECCALC, c.x.get_phy_addr(), 100);
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &short, &c.g, &c.b, &c.tmp, t),
            &["inputX has 100 float elements, fewer than B * S * H = 128"],
        );
        let one = LocalTensor::<f32>::new(TPosition::VECCALC, c.m.get_phy_addr(), 1);
        expect_panic(
            || c.call(&c.y, &one, &c.v, &c.x, &c.g, &c.b, &c.tmp, t),
            &["outputMean has 1 float elements, fewer than B * S = 2"],
        );
        let g32 = LocalTensor::<f32>::new(TPosition::VECCALC, c.b.get_phy_addr(), 32);
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &c.x, &c.g, &g32, &c.tmp, t),
            &["beta has 32 float elements, fewer than H = 64"],
        );
        // Overlaps.
        expect_panic(
            || c.call(&c.y, &c.m, &c.m, &c.x, &c.g, &c.b, &c.tmp, t),
            &["LayerNorm", "outputMean UB bytes", "overlap outputVariance"],
        );
        expect_panic(
            || c.call(&c.y, &c.m, &c.v, &c.x, &c.y, &c.b, &c.tmp, t),
            &["output UB bytes", "overlap gamma"],
        );
        let in_tmp = LocalTensor::<f32>::new(TPosition::VECCALC, c.tmp.get_phy_addr() + 32, 8);
        expect_panic(
            || c.call(&c.y, &in_tmp, &c.v, &c.x, &c.g, &c.b, &c.tmp, t),
            &["sharedTmpBuffer UB bytes", "overlap outputMean"],
        );
    });
}

#[test]
fn stack_errors() {
    // No TPipe: the stack form has no buffer.
    on(Soc::Ascend910B, || {
        let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 16);
        let mut t = get_layer_norm_nd_tiling_info(&[1, 2, 8, 8], 4096, 4, false);
        expect_panic(
            || layer_norm_stack::<f32, false>(&x, &x, &x, &x, &x, &x, 0.0, &mut t),
            &["LayerNorm", "the core has no TPipe"],
        );
    });
}

// ---- WelfordFinalize -----------------------------------------------------------------------

/// The partials' weights of a case: none (`rnLength`), head and tail counts, or `counts`.
#[derive(Clone, Copy, Debug)]
enum Weights {
    Plain,
    HeadTail,
    Counts,
}

/// The vendor's steps: rounds of `cl` partials, each weighted and summed as a row into the
/// next of 64 slots, folded by the tree when full and at the end; the variance likewise.
fn welford_reference(
    m: &[f32],
    v: &[f32],
    counts: &[i32],
    p: &WelfordFinalizePara,
    w: Weights,
    cl: usize,
) -> (f32, f32) {
    let hc_tc = p.head_count as f32 / p.tail_count as f32;
    let fold = |vals: &[f32], f: &dyn Fn(usize, f32) -> f32| {
        let mut slots: Vec<f32> = Vec::new();
        for (k, chunk) in vals.chunks(cl).enumerate() {
            let terms: Vec<f32> = chunk.iter().enumerate().map(|(j, &x)| f(k * cl + j, x)).collect();
            slots.push(row_sum(&terms));
            if slots.len() == 64 {
                slots = vec![tree64(&slots)];
            }
        }
        tree64(&slots)
    };
    let mean = fold(m, &|i, x| match w {
        Weights::Plain => x * p.ab_rec,
        Weights::HeadTail => {
            let t = (x * p.tail_count as f32) * p.r_rec;
            if i < p.head_count_length as usize {
                t * hc_tc
            } else {
                t
            }
        }
        Weights::Counts => (x * counts[i] as f32) * p.r_rec,
    });
    let var = fold(m, &|i, x| {
        let d = x - mean;
        let sq = d * d;
        let t = match w {
            Weights::Plain => sq * p.rn_length as f32,
            Weights::HeadTail => {
                let t = sq * p.tail_count as f32;
                if i < p.head_count_length as usize {
                    t * hc_tc
                } else {
                    t
                }
            }
            Weights::Counts => sq * counts[i] as f32,
        };
        (v[i] + t) * p.r_rec
    });
    (mean, var)
}

/// One call on `ab` partials with a scratch of `tmp_floats` (0: the stack form), compared bit
/// for bit; `false` when it does not fit.
fn welford_case(soc: Soc, ab: usize, tmp_floats: usize, w: Weights, seed: u64) -> bool {
    on(soc, || {
        let al = |n: usize| (n * 4).div_ceil(32) * 32;
        let io = 2 * 32 + 3 * al(ab);
        if io + 4 * tmp_floats.max(256) + 64 > soc.ub_size() {
            return false;
        }
        let u = ub(io + 4 * tmp_floats);
        let (om, ov) = (u.t::<f32>(0, 8), u.t::<f32>(32, 8));
        let (im, iv, ic) = (u.t::<f32>(64, ab), u.t::<f32>(64 + al(ab), ab), u.t::<i32>(64 + 2 * al(ab), ab));
        let tmp = u.t::<u8>(io, 4 * tmp_floats);
        let mut rng = Rng(seed);
        let m: Vec<f32> = (0..ab).map(|_| rng.below(1 << 20) as f32 / 65536.0 - 8.0).collect();
        let v: Vec<f32> = (0..ab).map(|_| rng.below(1 << 20) as f32 / 4096.0).collect();
        let c: Vec<i32> = (0..ab).map(|_| 1 + rng.below(100) as i32).collect();
        im.copy_from_slice(&m);
        iv.copy_from_slice(&v);
        ic.copy_from_slice(&c);
        om.copy_from_slice(&[9.0; 8]);
        ov.copy_from_slice(&[9.0; 8]);
        let head_len = ab / 3 / 8 * 8;
        let p = match w {
            Weights::Plain => WelfordFinalizePara {
                rn_length: 7,
                ab_length: ab as u32,
                head_count: 7,
                head_count_length: ab as u32,
                tail_count: 0,
                tail_count_length: 0,
                ab_rec: 1.0 / ab as f32,
                r_rec: 1.0 / (7 * ab) as f32,
            },
            Weights::HeadTail => WelfordFinalizePara {
                rn_length: 5,
                ab_length: ab as u32,
                head_count: 5,
                head_count_length: head_len as u32,
                tail_count: 3,
                tail_count_length: (ab - head_len) as u32,
                ab_rec: 1.0 / ab as f32,
                r_rec: 1.0 / (5 * head_len + 3 * (ab - head_len)) as f32,
            },
            Weights::Counts => WelfordFinalizePara {
                ab_length: ab as u32,
                head_count_length: ab as u32,
                r_rec: 1.0 / c.iter().sum::<i32>() as f32,
                ..Default::default()
            },
        };
        let stack = tmp_floats == 0;
        let floats = if stack { pop_stack_buffer::<f32>().get_size() } else { tmp_floats };
        let cl = (floats - 128) / 128 * 64;
        match (w, stack) {
            (Weights::Counts, false) => welford_finalize_counts::<false>(&om, &ov, &im, &iv, &ic, &tmp, &p),
            (Weights::Counts, true) => welford_finalize_counts_stack::<false>(&om, &ov, &im, &iv, &ic, &p),
            (_, false) => welford_finalize::<false>(&om, &ov, &im, &iv, &tmp, &p),
            (_, true) => welford_finalize_stack::<false>(&om, &ov, &im, &iv, &p),
        }
        let (wm, wv) = welford_reference(&m, &v, &c, &p, w, cl);
        let ctx = format!("{w:?} on {soc}, abLength {ab}, {floats} floats (computeLength {cl}), {p:?}");
        let mut want_m = vec![0.0f32; 8];
        let mut want_v = vec![0.0f32; 8];
        want_m[0] = wm;
        want_v[0] = wv;
        assert_bits_ctx(&om.to_vec(), &want_m, format!("mean; {ctx}"));
        assert_bits_ctx(&ov.to_vec(), &want_v, format!("variance; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        true
    })
}

#[test]
fn welford_finalize_matches_reference() {
    let mut ran = 0;
    let mut k = 300;
    for soc in CHIPS {
        for w in [Weights::Plain, Weights::HeadTail, Weights::Counts] {
            // (abLength, scratch floats): one round below 64; one round of several chunks with a
            // partial one; many rounds with a tail; over 64 rounds (the slots folded); the stack.
            for (ab, floats) in
                [(8, 256), (64, 256), (40, 384), (200, 640), (136, 256), (4200, 256), (520, 0), (8000, 0)]
            {
                k += 1;
                ran += usize::from(welford_case(soc, ab, floats, w, k));
            }
        }
    }
    assert_eq!(ran, 48);
}

#[test]
fn welford_host_and_errors() {
    assert_eq!(get_welford_finalize_max_min_tmp_size(&[8], 2, true), (1024, 1024));
    assert_eq!(get_welford_finalize_max_min_tmp_size(&[72], 4, false), (4 * (128 + 144), 1024));
    let h = "GetWelfordFinalizeMaxMinTmpSize";
    expect_panic(
        || {
            let _ = get_welford_finalize_max_min_tmp_size(&[1, 8], 4, false);
        },
        &[h, "srcShape = [1, 8] has 2 dimensions"],
    );
    expect_panic(
        || {
            let _ = get_welford_finalize_max_min_tmp_size(&[12], 4, false);
        },
        &[h, "abLength = 12 must be a non-zero multiple of 8"],
    );
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        on(soc, || {
            let u = ub(2048);
            let t = u.t::<f32>(0, 8);
            let p = WelfordFinalizePara { ab_length: 8, head_count_length: 8, ..Default::default() };
            let msg = format!("no implementation on {soc}");
            expect_panic(
                || welford_finalize::<false>(&t, &t, &t, &t, &u.t::<u8>(1024, 1024), &p),
                &["WelfordFinalize", &msg],
            );
        });
    }
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (om, ov, im, iv) = (u.t::<f32>(0, 8), u.t::<f32>(32, 8), u.t::<f32>(64, 16), u.t::<f32>(128, 16));
        let tmp = u.t::<u8>(1024, 1024);
        let p = WelfordFinalizePara { ab_length: 16, head_count_length: 16, ..Default::default() };
        let api = "WelfordFinalize";
        let call =
            |om: &LocalTensor<f32>, ov: &LocalTensor<f32>, im: &LocalTensor<f32>, t: &LocalTensor<u8>, p| {
                welford_finalize::<false>(om, ov, im, &iv, t, &p)
            };
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 16);
        expect_panic(|| call(&om, &ov, &a1, &tmp, p), &[api, "inputMean is at position A1"]);
        let bad = WelfordFinalizePara { ab_length: 12, head_count_length: 12, ..p };
        expect_panic(
            || call(&om, &ov, &im, &tmp, bad),
            &[api, "para.abLength = 12 must be a non-zero multiple of 8"],
        );
        let bad = WelfordFinalizePara { tail_count_length: 8, ..p };
        expect_panic(
            || call(&om, &ov, &im, &tmp, bad),
            &[
                api,
                "para.headCountLength = 16 and para.tailCountLength = 8 must add up to para.abLength = 16",
            ],
        );
        let bad = WelfordFinalizePara { head_count_length: 8, tail_count_length: 8, ..p };
        expect_panic(
            || call(&om, &ov, &im, &tmp, bad),
            &[api, "para.tailCount = 0 with para.tailCountLength = 8", "forbids"],
        );
        let short = LocalTensor::<f32>::new(TPosition::VECCALC, 64, 8);
        expect_panic(
            || call(&om, &ov, &short, &tmp, p),
            &[api, "inputMean has 8 elements, fewer than para.abLength = 16"],
        );
        let four = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 4);
        expect_panic(
            || call(&four, &ov, &im, &tmp, p),
            &[api, "outputMean has 4 float elements; it must hold 8"],
        );
        let small = LocalTensor::<u8>::new(TPosition::VECCALC, 1024, 1000);
        expect_panic(
            || call(&om, &ov, &im, &small, p),
            &[api, "sharedTmpBuffer has 1000 bytes; it must hold at least 1024"],
        );
        expect_panic(
            || call(&om, &om, &im, &tmp, p),
            &[api, "outputMean UB bytes", "overlap outputVariance"],
        );
        let in_tmp = LocalTensor::<f32>::new(TPosition::VECCALC, 1024, 16);
        expect_panic(|| call(&om, &ov, &in_tmp, &tmp, p), &["sharedTmpBuffer UB bytes", "overlap inputMean"]);
        let c8 = LocalTensor::<i32>::new(TPosition::VECCALC, 192, 8);
        expect_panic(
            || welford_finalize_counts::<false>(&om, &ov, &im, &iv, &c8, &tmp, &p),
            &[api, "counts has 8 elements, fewer than para.abLength = 16"],
        );
    });
    on(Soc::Ascend910B, || {
        let x = LocalTensor::<f32>::new(TPosition::VECCALC, 0, 16);
        let p = WelfordFinalizePara { ab_length: 8, head_count_length: 8, ..Default::default() };
        expect_panic(
            || welford_finalize_stack::<false>(&x, &x, &x, &x, &p),
            &["WelfordFinalize", "the core has no TPipe"],
        );
    });
}

// ---- LayerNorm with rstd -------------------------------------------------------------------

/// The vendor's steps per row of the rstd form: the padding zeroed; `x * (1/R)` summed over
/// the padded row; `x + (-mean)` on the row's `R` elements, squared, `* (1/R)`, summed; `1 /
/// sqrt(var + eps)`; then `((x - mean) * rstd) * gamma + beta`. Returns `(y, mean, rstd)`.
fn rstd_reference(
    x: &[f32],
    g: &[f32],
    b: &[f32],
    (r, rp): (usize, usize),
    back: f32,
    eps: f32,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (mut y, mut means, mut rstds) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(rp) {
        let xs: Vec<f32> = (0..rp).map(|j| if j < r { row[j] } else { 0.0 }).collect();
        let mean = row_sum(&xs.iter().map(|&v| v * back).collect::<Vec<_>>());
        let d: Vec<f32> = (0..rp).map(|j| if j < r { xs[j] + -mean } else { xs[j] }).collect();
        let var = row_sum(&d.iter().map(|&v| (v * v) * back).collect::<Vec<_>>());
        let rs = 1.0 / (var + eps).sqrt();
        y.extend((0..rp).map(|j| if j < r { (((xs[j] - mean) * rs) * g[j]) + b[j] } else { f32::NAN }));
        means.push(mean);
        rstds.push(rs);
    }
    (y, means, rstds)
}

/// One call of `layer_norm_rstd::<U, T>` on `[a, r]`, compared bit for bit (the output's
/// padding is not compared: it holds the broadcast view's leftovers).
fn rstd_case<U: Fp + LayerNormGammaType<T>, T: Fp>(
    soc: Soc,
    (a, r): (usize, usize),
    tmp: Tmp,
    seed: u64,
) -> bool {
    on(soc, || {
        let rp = r.div_ceil(32 / T::SIZE) * (32 / T::SIZE);
        let al = |n: usize, s: usize| (n * s).div_ceil(32) * 32;
        let (max, min) = get_layer_norm_rstd_max_min_tmp_size(&[a, r], T::SIZE, false, true, false);
        let tmp_bytes = match tmp {
            Tmp::Min => min,
            Tmp::Max => max,
            Tmp::Mid => (min + max) / 2 / 32 * 32,
            Tmp::Stack => 0,
        };
        let io = 2 * al(a * rp, T::SIZE) + 2 * al(a, 4) + 2 * al(r, U::SIZE);
        let stack_need = if let Tmp::Stack = tmp { min } else { 0 };
        if io + tmp_bytes + stack_need + 64 > soc.ub_size() {
            return false;
        }
        let u = ub(io + tmp_bytes);
        let (x, y) = (u.t::<T>(0, a * rp), u.t::<T>(al(a * rp, T::SIZE), a * rp));
        let o = 2 * al(a * rp, T::SIZE);
        let (mean, rstd) = (u.t::<f32>(o, a), u.t::<f32>(o + al(a, 4), a));
        let o = o + 2 * al(a, 4);
        let (g, bt) = (u.t::<U>(o, r), u.t::<U>(o + al(r, U::SIZE), r));
        let scratch = u.t::<u8>(io, tmp_bytes);
        let buffer = if let Tmp::Stack = tmp { pop_stack_buffer::<u8>().get_size() } else { tmp_bytes };
        let mut tiling = get_layer_norm_rstd_nd_tiling_info(&[a, r], buffer, T::SIZE, false, true);
        let before = tiling;
        let para = LayerNormPara { a_length: a as u32, r_length: r as u32, r_length_with_padding: rp as u32 };
        let mut rng = Rng(seed);
        // The padding holds garbage: the rstd form zeroes it in place.
        let xv: Vec<T> = rand_rows(&mut rng, a * rp, rp, rp, -3.0, 5.0);
        let gv: Vec<U> = rand_rows(&mut rng, r, r, r, -1.5, 1.5);
        let bv: Vec<U> = rand_rows(&mut rng, r, r, r, -1.0, 1.0);
        x.copy_from_slice(&xv);
        g.copy_from_slice(&gv);
        bt.copy_from_slice(&bv);
        let eps = 1e-3f32;
        if let Tmp::Stack = tmp {
            layer_norm_rstd_stack::<U, T, false>(&y, &mean, &rstd, &x, &g, &bt, eps, &para, &mut tiling);
        } else {
            layer_norm_rstd::<U, T, false>(&y, &mean, &rstd, &x, &g, &bt, eps, &scratch, &para, &mut tiling);
        }
        let ctx = format!("{}/{} on {soc}, [{a}, {r}] in {rp}, {tmp:?}, {before:?}", U::DTYPE, T::DTYPE);
        let f = |v: &[T]| v.iter().map(|e| e.to32()).collect::<Vec<f32>>();
        let fu = |v: &[U]| v.iter().map(|e| e.to32()).collect::<Vec<f32>>();
        let (wy, wm, wr) = rstd_reference(&f(&xv), &fu(&gv), &fu(&bv), (r, rp), before.r_value_back, eps);
        let got = y.to_vec();
        let valid = |v: &[T]| (0..a * rp).filter(|i| i % rp < r).map(|i| v[i]).collect::<Vec<T>>();
        let want: Vec<T> = wy.into_iter().map(T::from32).collect();
        assert_bits_ctx(&valid(&got), &valid(&want), &ctx);
        assert_bits_ctx(&mean.to_vec(), &wm, format!("mean; {ctx}"));
        assert_bits_ctx(&rstd.to_vec(), &wr, format!("rstd; {ctx}"));
        let zeroed: Vec<T> = xv
            .iter()
            .enumerate()
            .map(|(i, &v)| if i % rp < r { v } else { T::from32(v.to32() * 0.0) })
            .collect();
        assert_bits_ctx(&x.to_vec(), &zeroed, format!("inputX's padding zeroed; {ctx}"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "{ctx}");
        let mut want_t = before;
        if before.input_tail_size > 0 {
            want_t.ar_cur_length = before.input_tail_size;
            want_t.a_cur_length = before.mean_var_tail_size;
        }
        assert_eq!(tiling, want_t, "{ctx}");
        true
    })
}

fn rstd_sweep<U: Fp + LayerNormGammaType<T>, T: Fp>(seed: u64) -> usize {
    let mut ran = 0;
    let mut k = seed;
    for soc in CHIPS {
        for shape in [(1, 8), (3, 5), (4, 64), (5, 100), (7, 200), (2, 16), (300, 8), (9, 72)] {
            for tmp in [Tmp::Min, Tmp::Mid, Tmp::Max, Tmp::Stack] {
                k += 1;
                ran += usize::from(rstd_case::<U, T>(soc, shape, tmp, k));
            }
        }
    }
    ran
}

#[test]
fn layer_norm_rstd_matches_reference() {
    let ran = rstd_sweep::<f32, f32>(500) + rstd_sweep::<f16, f16>(600) + rstd_sweep::<f32, f16>(700);
    assert!(ran >= 180, "only {ran} cases fit");
}

#[test]
fn layer_norm_rstd_host_and_errors() {
    // [32, 32] float: 2 * 4096 + 128 raised to Normalize's 2 * 128 + 2 * 4096 (+ 128).
    assert_eq!(
        get_layer_norm_rstd_max_min_tmp_size(&[32, 32], 4, false, true, false),
        (8 * 1024 + 256 + 128, 384)
    );
    assert_eq!(get_layer_norm_rstd_max_min_tmp_size(&[3, 20], 2, false, true, false).1, 4 * 128 + 32);
    let h = "GetLayerNormMaxMinTmpSize";
    expect_panic(
        || {
            let _ = get_layer_norm_rstd_max_min_tmp_size(&[3, 20], 2, false, false, false);
        },
        &[h, "isComputeRstd = false"],
    );
    expect_panic(
        || {
            let _ = get_layer_norm_rstd_max_min_tmp_size(&[1, 3, 20], 2, false, true, false);
        },
        &[h, "has 3 dimensions; it must be [A, R]"],
    );
    let t = get_layer_norm_rstd_nd_tiling_info(&[5, 100], 4 * (8 + 2 * 210), 4, false, true);
    assert_eq!((t.one_tmp_size, t.loop_round, t.input_tail_size, t.mean_var_tail_pos), (208, 2, 104, 4));
    expect_panic(
        || {
            let _ = get_layer_norm_rstd_nd_tiling_info(&[5, 100], 4 * (8 + 2 * 100), 4, false, true);
        },
        &["GetLayerNormNDTilingInfo", "fewer than the 8 variances and 2 rows of 104"],
    );
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (x, y, m, s) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 8), u.t::<f32>(544, 8));
        let (g, b) = (u.t::<f32>(576, 32), u.t::<f32>(704, 32));
        let tmp = u.t::<u8>(1024, 2048);
        let para = LayerNormPara { a_length: 2, r_length: 32, r_length_with_padding: 32 };
        let tiling = get_layer_norm_rstd_nd_tiling_info(&[2, 32], 2048, 4, false, true);
        let call =
            |y: &LocalTensor<f32>, m: &LocalTensor<f32>, p: LayerNormPara, t: LayerNormSeparateTiling| {
                let mut t = t;
                layer_norm_rstd::<f32, f32, false>(y, m, &s, &x, &g, &b, 0.0, &tmp, &p, &mut t)
            };
        let api = "LayerNorm";
        let a1 = LocalTensor::<f32>::new(TPosition::A1, 0, 64);
        expect_panic(|| call(&a1, &m, para, tiling), &[api, "output is at position A1"]);
        expect_panic(
            || call(&y, &m, LayerNormPara { r_length_with_padding: 36, ..para }, tiling),
            &[api, "para = ", "a multiple of 8 float elements"],
        );
        expect_panic(
            || call(&y, &m, LayerNormPara { a_length: 1, ..para }, tiling),
            &[api, "does not fit para"],
        );
        expect_panic(
            || call(&y, &m, para, LayerNormSeparateTiling { tmp_buf_size: 4096, ..tiling }),
            &[api, "sharedTmpBuffer has 2048 bytes", "tmpBufSize is 4096 floats"],
        );
        expect_panic(|| call(&y, &s, para, tiling), &[api, "outputMean UB bytes", "overlap outputRstd"]);
        expect_panic(|| call(&y, &x, para, tiling), &[api, "outputMean UB bytes", "overlap inputX"]);
        let in_tmp = LocalTensor::<f32>::new(TPosition::VECCALC, 1024, 8);
        expect_panic(|| call(&y, &in_tmp, para, tiling), &["sharedTmpBuffer UB bytes", "overlap outputMean"]);
    });
    on(Soc::Ascend310B, || {
        let u = ub(4096);
        let t = u.t::<f32>(0, 64);
        let para = LayerNormPara { a_length: 2, r_length: 32, r_length_with_padding: 32 };
        let mut tiling = get_layer_norm_rstd_nd_tiling_info(&[2, 32], 2048, 4, false, true);
        expect_panic(
            || {
                layer_norm_rstd::<f32, f32, false>(
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    &t,
                    0.0,
                    &u.t::<u8>(2048, 2048),
                    &para,
                    &mut tiling,
                )
            },
            &["LayerNorm", "no implementation on Ascend310B"],
        );
    });
}
