//! The cases of the advanced API (they may write their outputs, their temporary buffer and,
//! with `IS_REUSE_SOURCE`, their source; the `_stack` forms' buffer is the UB after the arena)
//! and of the cube path.

use ascend_core::prelude::*;
use bytemuck::Pod;

use crate::every::{r, Case, W};

/// One call in eight, a tiling whose 32-bit word `k` is replaced by a random value.
fn spoil<P: Pod>(w: &mut W, mut p: P) -> P {
    if w.rng.chance(8) {
        let words: &mut [u32] =
            bytemuck::try_cast_slice_mut(bytemuck::bytes_of_mut(&mut p)).unwrap_or(&mut []);
        if !words.is_empty() {
            let k = w.rng.index(words.len());
            words[k] = if w.rng.chance(2) { w.rng.below(1 << 12) as u32 } else { w.rng.next() as u32 };
        }
    }
    p
}

/// Unary advanced functions `f<T, REUSE>(dst, src, tmp, count)` and `f_stack<T, REUSE>(dst, src,
/// count)`.
macro_rules! adv_unary {
    ($v:ident, $T:ty: $($f:ident, $stack:ident;)*) => {$(
        $v.push((stringify!($f), |w: &mut W| {
            w.lenient = true;
            let (d, s, k) = (w.t::<$T>(), w.t::<$T>(), w.tmp());
            let n = w.cnt(&[&d, &s]);
            if w.rng.chance(4) {
                w.go(&[r(&d), r(&k), r(&s)], || $f::<$T, true>(&d, &s, &k, n));
            } else {
                w.go(&[r(&d), r(&k)], || $f::<$T, false>(&d, &s, &k, n));
            }
        }));
        $v.push((stringify!($stack), |w: &mut W| {
            w.lenient = true;
            let (d, s) = (w.t::<$T>(), w.t::<$T>());
            let n = w.cnt(&[&d, &s]);
            w.go(&[r(&d)], || $stack::<$T, false>(&d, &s, n));
        }));
    )*};
}

/// Binary advanced functions `f<T, REUSE>(dst, src0, src1, tmp, count)` and the `_stack` form.
macro_rules! adv_binary {
    ($v:ident, $T:ty: $($f:ident, $stack:ident;)*) => {$(
        $v.push((stringify!($f), |w: &mut W| {
            w.lenient = true;
            let (d, a, b, k) = (w.t::<$T>(), w.t::<$T>(), w.t::<$T>(), w.tmp());
            let n = w.cnt(&[&d, &a, &b]);
            w.go(&[r(&d), r(&k)], || $f::<$T, false>(&d, &a, &b, &k, n));
        }));
        $v.push((stringify!($stack), |w: &mut W| {
            w.lenient = true;
            let (d, a, b) = (w.t::<$T>(), w.t::<$T>(), w.t::<$T>());
            let n = w.cnt(&[&d, &a, &b]);
            w.go(&[r(&d)], || $stack::<$T, false>(&d, &a, &b, n));
        }));
    )*};
}

pub fn adv_cases(v: &mut Vec<Case>) {
    adv_unary!(v, f32: sigmoid, sigmoid_stack; floor, floor_stack; ceil, ceil_stack; trunc, trunc_stack;
        frac, frac_stack; round, round_stack; sign, sign_stack; tanh, tanh_stack; log2, log2_stack;
        erf, erf_stack; sinh, sinh_stack; cosh, cosh_stack; erfc, erfc_stack; sin, sin_stack; cos, cos_stack;
        atan, atan_stack; tan, tan_stack; digamma, digamma_stack; lgamma, lgamma_stack;);
    adv_unary!(v, f16: atanh, atanh_stack; asinh, asinh_stack; acosh, acosh_stack; asin, asin_stack;
        acos, acos_stack;);
    adv_binary!(v, f32: fmod, fmod_stack; power, power_stack;);
    adv_binary!(v, i16: xor, xor_stack;);
    gelus(v);
    v.push(("softmax_flash_v3", |w: &mut W| {
        w.lenient = true;
        let (d, s, e, k) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>(), w.tmp());
        let st: Vec<LocalTensor<f32>> = (0..6).map(|_| w.t::<f32>()).collect();
        let (m, kk) = (8 * w.rng.range(1, 2) as u32, 512 + 64 * w.rng.range(0, 2) as u32);
        let tiling = soft_max_flash_v3_tiling_func(&[m, kk], 2, 4, k.get_size().max(1) as u32, true, false);
        let tiling = spoil(w, tiling);
        let p = SoftMaxParams::new(m, kk, m, kk, w.rng.range(0, 3) as u32, 8, 0.9375);
        let mut ub = vec![r(&d), r(&e), r(&k)];
        ub.extend(st.iter().map(r));
        if w.rng.chance(2) {
            w.go(&ub, || {
                softmax_flash_v3::<true>(
                    &d, &st[0], &st[1], &st[2], &s, &e, &st[3], &st[4], &st[5], &k, &tiling, &p,
                )
            });
        } else {
            w.go(&ub, || {
                softmax_flash_v3::<false>(
                    &d, &st[0], &st[1], &st[2], &s, &e, &st[3], &st[4], &st[5], &k, &tiling, &p,
                )
            });
        }
    }));
    v.push(("softmax_flash_v3_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s, e) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
        let st: Vec<LocalTensor<f32>> = (0..6).map(|_| w.t::<f32>()).collect();
        let tiling = spoil(w, soft_max_flash_v3_tiling_func(&[8, 512], 2, 4, 8 * 4512, true, false));
        let p = SoftMaxParams::new(8, 512, 8, 512, 1, 8, 0.96889);
        let mut ub = vec![r(&d), r(&e)];
        ub.extend(st.iter().map(r));
        w.go(&ub, || {
            softmax_flash_v3_stack::<true>(
                &d, &st[0], &st[1], &st[2], &s, &e, &st[3], &st[4], &st[5], &tiling, &p,
            )
        });
    }));
    v.push(("select_with_bytes_mask", |w: &mut W| {
        w.lenient = true;
        let (d, s, m, k, x) = (w.t::<f16>(), w.t::<f16>(), w.t::<u8>(), w.tmp(), w.v::<f16>());
        let first = w.rng.range(1, 4) as u32;
        let info = SelectWithBytesMaskShapeInfo::new(
            first,
            s.get_size() as u32 / first,
            m.get_size() as u32 / first,
        );
        w.go(&[r(&d), r(&k), r(&m)], || select_with_bytes_mask::<f16, u8, true>(&d, &s, x, &m, &k, &info));
    }));
    v.push(("select_with_bytes_mask_scalar_tensor", |w: &mut W| {
        w.lenient = true;
        let (d, s, m, k, x) = (w.t::<f32>(), w.t::<f32>(), w.t::<i32>(), w.tmp(), w.v::<f32>());
        let first = w.rng.range(1, 4) as u32;
        let info = SelectWithBytesMaskShapeInfo::new(
            first,
            s.get_size() as u32 / first,
            m.get_size() as u32 / first,
        );
        w.go(&[r(&d), r(&k)], || {
            select_with_bytes_mask_scalar_tensor::<f32, i32, false>(&d, x, &s, &m, &k, &info)
        });
    }));
    v.push(("silu", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<f32>(), w.t::<f32>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || silu::<f32, false>(&d, &s, n));
    }));
    v.push(("swish", |w: &mut W| {
        w.lenient = true;
        let (d, s, x) = (w.t::<f16>(), w.t::<f16>(), w.v::<f16>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || swish::<f16, false>(&d, &s, n, x));
    }));
    v.push(("log", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<f32>(), w.t::<f32>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || log::<f32, false>(&d, &s, n));
    }));
    v.push(("log10", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<f16>(), w.t::<f16>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || log10::<f16, false>(&d, &s, n));
    }));
    v.push(("exp_adv", |w: &mut W| {
        w.lenient = true;
        let (d, s, k) = (w.t::<f32>(), w.t::<f32>(), w.tmp());
        let n = w.cnt(&[&d, &s]);
        match w.rng.below(3) {
            0 => w.go(&[r(&d), r(&k)], || exp_adv::<f32, 0, false>(&d, &s, &k, n)),
            1 => w.go(&[r(&d), r(&k)], || exp_adv::<f32, 5, false>(&d, &s, &k, n)),
            _ => w.go(&[r(&d), r(&k)], || exp_adv::<f32, 255, false>(&d, &s, &k, n)),
        }
    }));
    v.push(("exp_adv_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<f16>(), w.t::<f16>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || exp_adv_stack::<f16, 3, false>(&d, &s, n));
    }));
    v.push(("clamp_max", |w: &mut W| {
        w.lenient = true;
        let (d, s, k, x) = (w.t::<f32>(), w.t::<f32>(), w.tmp(), w.v::<f32>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d), r(&k)], || clamp_max::<f32, false>(&d, &s, &k, x, n));
    }));
    v.push(("clamp_max_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s, x) = (w.t::<f16>(), w.t::<f16>(), w.v::<f16>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || clamp_max_stack::<f16, false>(&d, &s, x, n));
    }));
    v.push(("clamp_min", |w: &mut W| {
        w.lenient = true;
        let (d, s, k, x) = (w.t::<f16>(), w.t::<f16>(), w.tmp(), w.v::<f16>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d), r(&k)], || clamp_min::<f16, false>(&d, &s, &k, x, n));
    }));
    v.push(("clamp_min_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s, x) = (w.t::<f32>(), w.t::<f32>(), w.v::<f32>());
        let n = w.cnt(&[&d, &s]);
        w.go(&[r(&d)], || clamp_min_stack::<f32, false>(&d, &s, x, n));
    }));
    v.push(("axpy_adv", |w: &mut W| {
        w.lenient = true;
        let (d, s, k, x) = (w.t::<f32>(), w.t::<f16>(), w.tmp(), w.v::<f16>());
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d), r(&k)], || axpy_adv::<f32, f16, false>(&d, &s, x, &k, n));
    }));
    powers(v);
    glus(v);
    v.push(("arange", |w: &mut W| {
        w.lenient = true;
        let (d, a, b) = (w.t::<f32>(), w.v::<f32>(), w.v::<f32>());
        let n = w.cnt(&[&d]) as i32 - w.rng.below(2) as i32;
        w.go(&[r(&d)], || arange(&d, a, b, n));
    }));
    v.push(("arith_progression", |w: &mut W| {
        w.lenient = true;
        let (d, a, b) = (w.t::<i16>(), w.v::<i16>(), w.v::<i16>());
        let n = w.cnt(&[&d]) as i32;
        w.go(&[r(&d)], || arith_progression(&d, a, b, n));
    }));
    quants(v);
    norms(v);
    softmaxes(v);
    shapes(v);
    dropouts(v);
}

fn gelus(v: &mut Vec<Case>) {
    macro_rules! g {
        ($($f:ident, $stack:ident;)*) => {$(
            v.push((stringify!($f), |w: &mut W| {
                w.lenient = true;
                let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.tmp());
                let n = w.cnt(&[&d, &s]);
                if w.rng.chance(2) {
                    w.go(&[r(&d), r(&k)], || $f::<f16, true, false>(&d, &s, &k, n));
                } else {
                    w.go(&[r(&d), r(&k)], || $f::<f16, false, true>(&d, &s, &k, n));
                }
            }));
            v.push((stringify!($stack), |w: &mut W| {
                w.lenient = true;
                let (d, s) = (w.t::<f32>(), w.t::<f32>());
                let n = w.cnt(&[&d, &s]);
                w.go(&[r(&d)], || $stack::<f32, false, false>(&d, &s, n));
            }));
        )*};
    }
    g!(gelu, gelu_stack; faster_gelu, faster_gelu_stack; faster_gelu_v2, faster_gelu_v2_stack;);
}

fn powers(v: &mut Vec<Case>) {
    v.push(("power_tensor_scalar", |w: &mut W| {
        w.lenient = true;
        let (d, a, k, x) = (w.t::<f32>(), w.t::<f32>(), w.tmp(), w.v::<f32>());
        let n = w.cnt(&[&d, &a]);
        w.go(&[r(&d), r(&k)], || power_tensor_scalar::<f32, false>(&d, &a, x, &k, n));
    }));
    v.push(("power_tensor_scalar_stack", |w: &mut W| {
        w.lenient = true;
        let (d, a, x) = (w.t::<i32>(), w.t::<i32>(), w.v::<i32>());
        let n = w.cnt(&[&d, &a]);
        w.go(&[r(&d)], || power_tensor_scalar_stack::<i32, false>(&d, &a, x, n));
    }));
    v.push(("power_scalar_tensor", |w: &mut W| {
        w.lenient = true;
        let (d, b, k, x) = (w.t::<f16>(), w.t::<f16>(), w.tmp(), w.v::<f16>());
        let n = w.cnt(&[&d, &b]);
        w.go(&[r(&d), r(&k)], || power_scalar_tensor::<f16, false>(&d, x, &b, &k, n));
    }));
    v.push(("power_scalar_tensor_stack", |w: &mut W| {
        w.lenient = true;
        let (d, b, x) = (w.t::<f32>(), w.t::<f32>(), w.v::<f32>());
        let n = w.cnt(&[&d, &b]);
        w.go(&[r(&d)], || power_scalar_tensor_stack::<f32, false>(&d, x, &b, n));
    }));
}

fn glus(v: &mut Vec<Case>) {
    v.push(("swiglu", |w: &mut W| {
        w.lenient = true;
        let (d, a, b, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.tmp());
        let n = w.cnt(&[&d, &a, &b]);
        w.go(&[r(&d), r(&k)], || swiglu::<f32, false>(&d, &a, &b, 1.0, &k, n));
    }));
    v.push(("swiglu_stack", |w: &mut W| {
        w.lenient = true;
        let (d, a, b) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
        let n = w.cnt(&[&d, &a, &b]);
        w.go(&[r(&d)], || swiglu_stack::<f16, false>(&d, &a, &b, 0.5, n));
    }));
    macro_rules! g {
        ($($f:ident, $stack:ident;)*) => {$(
            v.push((stringify!($f), |w: &mut W| {
                w.lenient = true;
                let (d, a, b, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.tmp());
                let n = w.cnt(&[&d, &a, &b]);
                w.go(&[r(&d), r(&k)], || $f::<f32, false>(&d, &a, &b, &k, n));
            }));
            v.push((stringify!($stack), |w: &mut W| {
                w.lenient = true;
                let (d, a, b) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
                let n = w.cnt(&[&d, &a, &b]);
                w.go(&[r(&d)], || $stack::<f16, false>(&d, &a, &b, n));
            }));
        )*};
    }
    g!(reglu, reglu_stack; geglu, geglu_stack;);
}

/// A `[rows, cols]` shape fitting a 4 KiB slot of `size`-byte elements (cols a 32-byte multiple).
fn shape(w: &mut W, size: usize) -> (usize, usize) {
    let e = 32 / size;
    let cols = e * w.rng.range(1, 8) as usize;
    let rows = w.rng.range(1, (4096 / size / cols).clamp(1, 16) as u64) as usize;
    (rows, cols)
}

fn quants(v: &mut Vec<Case>) {
    v.push(("ascend_quant", |w: &mut W| {
        w.lenient = true;
        let (d, s, k) = (w.t::<i8>(), w.t::<f32>(), w.tmp());
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d), r(&k)], || ascend_quant::<f32, false>(&d, &s, &k, 2.0, 1.0, n));
    }));
    v.push(("ascend_quant_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<i8>(), w.t::<f16>());
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d)], || ascend_quant_stack::<f16, false>(&d, &s, 2.0, 1.0, n));
    }));
    v.push(("ascend_quant_per_channel", |w: &mut W| {
        w.lenient = true;
        let (c, n) = chan(w);
        let (d, s, k, sc) = (w.tn::<i8>(n), w.tn::<f16>(n), w.tmp(), w.tn::<f16>(c));
        w.go(&[r(&d), r(&k)], || ascend_quant_per_channel::<f16, false>(&d, &s, &k, &sc, f16::ONE, c, n));
    }));
    v.push(("ascend_quant_per_channel_stack", |w: &mut W| {
        w.lenient = true;
        let (c, n) = chan(w);
        let (d, s, sc) = (w.tn::<i8>(n), w.tn::<f32>(n), w.tn::<f32>(c));
        // For float the scales are narrowed to half in place, as the vendor's (documented).
        w.go(&[r(&d), r(&sc)], || ascend_quant_per_channel_stack::<f32, false>(&d, &s, &sc, 0.5, c, n));
    }));
    v.push(("ascend_quant_per_channel_offset", |w: &mut W| {
        w.lenient = true;
        let (c, n) = chan(w);
        let oc = if w.rng.chance(6) { w.small(c as u64, 5000) as usize } else { c };
        let (d, s, k, sc, o) = (w.tn::<i8>(n), w.tn::<f16>(n), w.tmp(), w.tn::<f16>(c), w.tn::<f16>(c));
        w.go(&[r(&d), r(&k)], || {
            ascend_quant_per_channel_offset::<f16, false>(&d, &s, &k, &sc, &o, c, oc, n)
        });
    }));
    v.push(("ascend_quant_per_channel_offset_stack", |w: &mut W| {
        w.lenient = true;
        let (c, n) = chan(w);
        let oc = if w.rng.chance(6) { w.small(c as u64, 5000) as usize } else { c };
        let (d, s, sc, o) = (w.tn::<i8>(n), w.tn::<f32>(n), w.tn::<f32>(c), w.tn::<f32>(c));
        // For float the scales and offsets are narrowed to half in place (documented).
        w.go(&[r(&d), r(&sc), r(&o)], || {
            ascend_quant_per_channel_offset_stack::<f32, false>(&d, &s, &sc, &o, c, oc, n)
        });
    }));
    /// A per-channel count and a total that is a multiple of it (sometimes not).
    fn chan(w: &mut W) -> (usize, usize) {
        let c = 32 * w.rng.range(1, 8) as usize;
        let n = c * w.rng.range(1, 4) as usize + if w.rng.chance(8) { 1 } else { 0 };
        (c, n)
    }
    fn dq(w: &mut W) -> (DequantParams, DeQuantMode) {
        let (m, n) = (w.small(4, 100) as usize + 1, 8 * w.small(8, 100) as usize);
        let cal = if w.rng.chance(3) { w.small(n as u64 + 1, 1000) as usize } else { n };
        let mode = if w.rng.chance(2) {
            DeQuantMode::DequantWithSingleRow
        } else {
            DeQuantMode::DequantWithMultiRow
        };
        (DequantParams { m, n, cal_count: cal }, mode)
    }
    v.push(("ascend_dequant", |w: &mut W| {
        w.lenient = true;
        let (d, s, sc, k) = (w.t::<f32>(), w.t::<i32>(), w.t::<f32>(), w.tmp());
        let (p, mode) = dq(w);
        w.go(&[r(&d), r(&k)], || ascend_dequant(&d, &s, &sc, &k, p, mode));
    }));
    v.push(("ascend_dequant_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s, sc) = (w.t::<f16>(), w.t::<i32>(), w.t::<u64>());
        let (p, mode) = dq(w);
        w.go(&[r(&d)], || ascend_dequant_stack(&d, &s, &sc, p, mode));
    }));
    v.push(("ascend_dequant_count", |w: &mut W| {
        w.lenient = true;
        let ((c, n), (_, mode)) = (chan(w), dq(w));
        let (d, s, sc, k) = (w.tn::<f32>(n), w.tn::<i32>(n), w.tn::<f32>(c), w.tmp());
        w.go(&[r(&d), r(&k)], || ascend_dequant_count(&d, &s, &sc, &k, n, mode));
    }));
    v.push(("ascend_dequant_count_stack", |w: &mut W| {
        w.lenient = true;
        let ((c, n), (_, mode)) = (chan(w), dq(w));
        let (d, s, sc) = (w.tn::<f32>(n), w.tn::<i32>(n), w.tn::<f32>(c));
        w.go(&[r(&d)], || ascend_dequant_count_stack(&d, &s, &sc, n, mode));
    }));
    v.push(("ascend_dequant_scalar", |w: &mut W| {
        w.lenient = true;
        let (d, s, k) = (w.t::<f32>(), w.t::<i32>(), w.tmp());
        let (p, mode) = dq(w);
        w.go(&[r(&d), r(&k)], || ascend_dequant_scalar(&d, &s, 0.5, &k, p, mode));
    }));
    v.push(("ascend_dequant_scalar_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s) = (w.t::<f32>(), w.t::<i32>());
        let (p, mode) = dq(w);
        w.go(&[r(&d)], || ascend_dequant_scalar_stack(&d, &s, 2.0, p, mode));
    }));
    /// `k`, the shape info, the source's elements `k * n` and the per-channel elements `n`.
    fn aq(w: &mut W) -> (usize, AntiQuantShapeInfo, usize, usize) {
        let (k, n) = (32 * w.rng.range(1, 4) as usize, 32 * w.rng.range(1, 4) as usize);
        let mut x = || if w.rng.chance(6) { w.small(64, 1000) as u32 } else { 0 };
        let info =
            AntiQuantShapeInfo { offset_height: x(), offset_width: x(), scale_height: x(), scale_width: x() };
        (if w.rng.chance(8) { w.small(k as u64, 1000) as usize } else { k }, info, k * n, n)
    }
    v.push(("ascend_anti_quant", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, n) = aq(w);
        let (d, s, o, sc, t) = (w.tn::<f16>(e), w.tn::<i8>(e), w.tn::<f16>(n), w.tn::<f16>(n), w.tmp());
        if w.rng.chance(2) {
            w.go(&[r(&d), r(&t)], || ascend_anti_quant::<i8, f16, true>(&d, &s, &o, &sc, &t, k, &info));
        } else {
            w.go(&[r(&d), r(&t)], || ascend_anti_quant::<i8, f16, false>(&d, &s, &o, &sc, &t, k, &info));
        }
    }));
    v.push(("ascend_anti_quant_stack", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, n) = aq(w);
        let (d, s, o, sc) = (w.tn::<f16>(e), w.tn::<i8>(e), w.tn::<f16>(n), w.tn::<f16>(n));
        w.go(&[r(&d)], || ascend_anti_quant_stack::<i8, f16, false>(&d, &s, &o, &sc, k, &info));
    }));
    v.push(("ascend_anti_quant_no_offset", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, n) = aq(w);
        let (d, s, sc, t) = (w.tn::<f16>(e), w.tn::<i8>(e), w.tn::<f16>(n), w.tmp());
        w.go(&[r(&d), r(&t)], || ascend_anti_quant_no_offset::<i8, f16, false>(&d, &s, &sc, &t, k, &info));
    }));
    v.push(("ascend_anti_quant_per_tensor", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, _) = aq(w);
        let (d, s, t) = (w.tn::<f16>(e), w.tn::<i8>(e), w.tmp());
        w.go(&[r(&d), r(&t)], || {
            ascend_anti_quant_per_tensor::<i8, f16, false>(&d, &s, f16::ONE, f16::ONE, &t, k, &info)
        });
    }));
    v.push(("ascend_anti_quant_per_tensor_stack", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, _) = aq(w);
        let (d, s) = (w.tn::<f16>(e), w.tn::<i8>(e));
        w.go(&[r(&d)], || {
            ascend_anti_quant_per_tensor_stack::<i8, f16, true>(&d, &s, f16::ONE, f16::ONE, k, &info)
        });
    }));
    v.push(("ascend_anti_quant_per_tensor_no_offset", |w: &mut W| {
        w.lenient = true;
        let (k, info, e, _) = aq(w);
        let (d, s, t) = (w.tn::<f16>(e), w.tn::<i8>(e), w.tmp());
        w.go(&[r(&d), r(&t)], || {
            ascend_anti_quant_per_tensor_no_offset::<i8, f16, false>(&d, &s, f16::ONE, &t, k, &info)
        });
    }));
}

fn norms(v: &mut Vec<Case>) {
    /// A `[b, s, h]` shape, its tensors' elements and a tiling from `f(shape, tmp bytes)`.
    fn bsh(w: &mut W) -> [usize; 3] {
        [w.rng.range(1, 2) as usize, w.rng.range(1, 4) as usize, 8 * w.rng.range(1, 16) as usize]
    }
    /// `[B, S, H, originH]`.
    fn bshh(w: &mut W) -> [usize; 4] {
        let [b, s, h] = bsh(w);
        [b, s, h, h]
    }
    v.push(("layer_norm", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, m, va, x, g, b, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[2]),
            w.tn::<f32>(sh[2]),
            w.tmp(),
        );
        let mut t = get_layer_norm_nd_tiling_info(&sh, k.get_size(), 4, false);
        t = spoil(w, t);
        w.go(&[r(&o), r(&m), r(&va), r(&k)], || {
            layer_norm::<f32, false>(&o, &m, &va, &x, &g, &b, &k, 1e-5, &mut t)
        });
    }));
    v.push(("layer_norm_stack", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, m, va, x, g, b) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[2]),
            w.tn::<f32>(sh[2]),
        );
        let mut t = spoil(w, get_layer_norm_nd_tiling_info(&sh, 16 * 1024, 4, false));
        w.go(&[r(&o), r(&m), r(&va)], || {
            layer_norm_stack::<f32, false>(&o, &m, &va, &x, &g, &b, 1e-5, &mut t)
        });
    }));
    fn wf(w: &mut W) -> WelfordFinalizePara {
        let ab = 8 * w.rng.range(1, 16) as u32;
        let head = w.small(ab as u64 + 1, 1000) as u32;
        WelfordFinalizePara {
            rn_length: w.small(64, 100000) as u32,
            ab_length: ab,
            head_count: w.small(8, 1000) as u32,
            head_count_length: head,
            tail_count: w.small(8, 1000) as u32,
            tail_count_length: ab.saturating_sub(head),
            ab_rec: 1.0 / ab as f32,
            r_rec: 0.01,
        }
    }
    v.push(("welford_finalize", |w: &mut W| {
        w.lenient = true;
        let (om, ov, im, iv, k, p) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.tmp(), wf(w));
        w.go(&[r(&om), r(&ov), r(&k)], || welford_finalize::<false>(&om, &ov, &im, &iv, &k, &p));
    }));
    v.push(("welford_finalize_counts", |w: &mut W| {
        w.lenient = true;
        let (om, ov, im, iv, c, k, p) =
            (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<i32>(), w.tmp(), wf(w));
        w.go(&[r(&om), r(&ov), r(&k)], || welford_finalize_counts::<false>(&om, &ov, &im, &iv, &c, &k, &p));
    }));
    v.push(("welford_finalize_stack", |w: &mut W| {
        w.lenient = true;
        let (om, ov, im, iv, p) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), wf(w));
        w.go(&[r(&om), r(&ov)], || welford_finalize_stack::<false>(&om, &ov, &im, &iv, &p));
    }));
    v.push(("welford_finalize_counts_stack", |w: &mut W| {
        w.lenient = true;
        let (om, ov, im, iv, c, p) =
            (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<i32>(), wf(w));
        w.go(&[r(&om), r(&ov)], || welford_finalize_counts_stack::<false>(&om, &ov, &im, &iv, &c, &p));
    }));
    fn wu(w: &mut W) -> WelfordUpdateParam {
        let ab = 16 * w.rng.range(1, 24) as u32;
        let p = WelfordUpdateParam {
            rn_length: 1,
            ab_length: ab,
            ab_compute_length: w.rng.range(1, u64::from(ab)) as u32,
            n_rec: 1.0 / w.rng.range(1, 9) as f32,
        };
        spoil(w, p)
    }
    v.push(("welford_update", |w: &mut W| {
        w.lenient = true;
        let p = wu(w);
        let n = p.ab_length as usize;
        let (om, ov, im, iv, k) = (w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(n), w.tmp());
        match w.rng.below(3) {
            0 => {
                let x = w.tn::<f16>(n);
                w.go(&[r(&om), r(&ov), r(&k)], || {
                    welford_update::<f16, false, true>(&om, &ov, &im, &iv, &x, &k, &p)
                });
            }
            1 => {
                let x = w.tn::<f32>(n);
                w.go(&[r(&om), r(&ov), r(&k), r(&x)], || {
                    welford_update::<f32, true, false>(&om, &ov, &im, &iv, &x, &k, &p)
                });
            }
            _ => {
                let x = w.tn::<f32>(n);
                w.go(&[r(&om), r(&ov), r(&k)], || {
                    welford_update::<f32, false, false>(&om, &ov, &im, &iv, &x, &k, &p)
                });
            }
        }
    }));
    v.push(("welford_update_stack", |w: &mut W| {
        w.lenient = true;
        let p = wu(w);
        let n = p.ab_length as usize;
        let (om, ov, im, iv, x) =
            (w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f16>(n));
        w.go(&[r(&om), r(&ov)], || welford_update_stack::<f16, false, true>(&om, &ov, &im, &iv, &x, &p));
    }));
    fn np(w: &mut W) -> NormalizePara {
        let (a, r) = (w.rng.range(1, 8) as u32, 8 * w.rng.range(1, 16) as u32);
        let pad = if w.rng.chance(4) { r + 8 } else { r };
        spoil(w, NormalizePara { a_length: a, r_length: r, r_length_with_padding: pad })
    }
    v.push(("normalize", |w: &mut W| {
        w.lenient = true;
        let p = np(w);
        let (a, rl, rp) = (p.a_length as usize, p.r_length as usize, p.r_length_with_padding as usize);
        let (y, s, m, v, x, g, b, k) = (
            w.tn::<f32>(a * rp),
            w.tn::<f32>(a),
            w.tn::<f32>(a),
            w.tn::<f32>(a),
            w.tn::<f32>(a * rp),
            w.tn::<f32>(rl),
            w.tn::<f32>(rl),
            w.tmp(),
        );
        if w.rng.chance(2) {
            w.go(&[r(&y), r(&s), r(&k)], || {
                normalize::<f32, f32, false, NlcfgNorm>(&y, &s, &m, &v, &x, &g, &b, &k, 1e-5, &p)
            });
        } else {
            w.go(&[r(&y), r(&s), r(&k)], || {
                normalize::<f32, f32, false, NlcfgNoBeta>(&y, &s, &m, &v, &x, &g, &b, &k, 1e-5, &p)
            });
        }
    }));
    v.push(("normalize_stack", |w: &mut W| {
        w.lenient = true;
        let p = np(w);
        let (a, rl, rp) = (p.a_length as usize, p.r_length as usize, p.r_length_with_padding as usize);
        let (y, s, m, v, x, g, b) = (
            w.tn::<f16>(a * rp),
            w.tn::<f32>(a),
            w.tn::<f32>(a),
            w.tn::<f32>(a),
            w.tn::<f16>(a * rp),
            w.tn::<f16>(rl),
            w.tn::<f16>(rl),
        );
        w.go(&[r(&y), r(&s)], || {
            normalize_stack::<f16, f16, false, NlcfgNoGamma>(&y, &s, &m, &v, &x, &g, &b, 0.5, &p)
        });
    }));
    fn rstd(w: &mut W) -> ([usize; 2], LayerNormPara) {
        let (a, rl) = (w.rng.range(1, 8) as usize, 8 * w.rng.range(1, 16) as usize);
        let pad = if w.rng.chance(4) { rl + 8 } else { rl };
        (
            [a, rl],
            LayerNormPara { a_length: a as u32, r_length: rl as u32, r_length_with_padding: pad as u32 },
        )
    }
    v.push(("layer_norm_rstd", |w: &mut W| {
        w.lenient = true;
        let (sh, p) = rstd(w);
        let n = sh[0] * sh[1];
        let (o, m, sd, x, g, b, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(sh[0]),
            w.tn::<f32>(sh[0]),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[1]),
            w.tn::<f32>(sh[1]),
            w.tmp(),
        );
        let mut t = spoil(w, get_layer_norm_rstd_nd_tiling_info(&sh, k.get_size(), 4, false, true));
        w.go(&[r(&o), r(&m), r(&sd), r(&k)], || {
            layer_norm_rstd::<f32, f32, false>(&o, &m, &sd, &x, &g, &b, 1e-5, &k, &p, &mut t)
        });
    }));
    v.push(("layer_norm_rstd_stack", |w: &mut W| {
        w.lenient = true;
        let (sh, p) = rstd(w);
        let n = sh[0] * sh[1];
        let (o, m, sd, x, g, b) = (
            w.tn::<f32>(n),
            w.tn::<f32>(sh[0]),
            w.tn::<f32>(sh[0]),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[1]),
            w.tn::<f32>(sh[1]),
        );
        let mut t = spoil(w, get_layer_norm_rstd_nd_tiling_info(&sh, 16 * 1024, 4, false, true));
        w.go(&[r(&o), r(&m), r(&sd)], || {
            layer_norm_rstd_stack::<f32, f32, false>(&o, &m, &sd, &x, &g, &b, 1e-5, &p, &mut t)
        });
    }));
    v.push(("layer_norm_grad", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (px, rg, dy, x, va, me, g, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(sh[2]),
            w.tmp(),
        );
        let mut t = spoil(w, get_layer_norm_grad_nd_tiling_info(&sh, k.get_size(), 4, false));
        w.go(&[r(&px), r(&rg), r(&k)], || {
            layer_norm_grad::<f32, false>(&px, &rg, &dy, &x, &va, &me, &g, &k, 1e-5, &mut t)
        });
    }));
    v.push(("layer_norm_grad_stack", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (px, rg, dy, x, va, me, g) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(sh[2]),
        );
        let mut t = spoil(w, get_layer_norm_grad_nd_tiling_info(&sh, 16 * 1024, 4, false));
        w.go(&[r(&px), r(&rg)], || {
            layer_norm_grad_stack::<f32, false>(&px, &rg, &dy, &x, &va, &me, &g, 1e-5, &mut t)
        });
    }));
    v.push(("layer_norm_grad_beta", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (pg, pb, rg, dy, k) =
            (w.tn::<f32>(sh[2]), w.tn::<f32>(sh[2]), w.tn::<f32>(n), w.tn::<f32>(n), w.tmp());
        let t = spoil(w, get_layer_norm_grad_beta_nd_tiling_info(&sh, k.get_size(), 4, false));
        w.go(&[r(&pg), r(&pb), r(&k)], || layer_norm_grad_beta::<f32, false>(&pg, &pb, &rg, &dy, &k, &t));
    }));
    v.push(("layer_norm_grad_beta_stack", |w: &mut W| {
        w.lenient = true;
        let sh = bshh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (pg, pb, rg, dy) = (w.tn::<f32>(sh[2]), w.tn::<f32>(sh[2]), w.tn::<f32>(n), w.tn::<f32>(n));
        let mut t = spoil(w, get_layer_norm_grad_beta_nd_tiling_info(&sh, 16 * 1024, 4, false));
        w.go(&[r(&pg), r(&pb)], || layer_norm_grad_beta_stack::<f32, false>(&pg, &pb, &rg, &dy, &mut t));
    }));
    v.push(("deep_norm", |w: &mut W| {
        w.lenient = true;
        let sh = bsh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, m, sd, x, gx, b, g, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[2]),
            w.tn::<f32>(sh[2]),
            w.tmp(),
        );
        let mut t = spoil(w, get_deep_norm_tiling_info(&sh, &sh, k.get_size(), 4, false, false));
        w.go(&[r(&o), r(&m), r(&sd), r(&k)], || {
            deep_norm::<f32, false, false>(&o, &m, &sd, &x, &gx, &b, &g, &k, 0.5, 1e-5, &mut t)
        });
    }));
    v.push(("deep_norm_stack", |w: &mut W| {
        w.lenient = true;
        let sh = bsh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, m, sd, x, gx, b, g) = (
            w.tn::<f32>(n),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n / sh[2]),
            w.tn::<f32>(n),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[2]),
            w.tn::<f32>(sh[2]),
        );
        let mut t = spoil(w, get_deep_norm_tiling_info(&sh, &sh, 16 * 1024, 4, false, false));
        w.go(&[r(&o), r(&m), r(&sd)], || {
            deep_norm_stack::<f32, false, false>(&o, &m, &sd, &x, &gx, &b, &g, 0.5, 1e-5, &mut t)
        });
    }));
    /// BatchNorm's `[originB, S, H]`: `S·H` a multiple of 8.
    fn bn_shape(w: &mut W) -> [usize; 3] {
        [w.rng.range(1, 9) as usize, w.rng.range(1, 3) as usize, 8 * w.rng.range(1, 8) as usize]
    }
    v.push(("batch_norm", |w: &mut W| {
        w.lenient = true;
        let sh = bn_shape(w);
        let (n, mv) = (sh[0] * sh[1] * sh[2], sh[1] * sh[2]);
        let gb = sh[0].next_multiple_of(8);
        let (o, m, va, x, g, b, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(mv),
            w.tn::<f32>(mv),
            w.tn::<f32>(n),
            w.tn::<f32>(gb),
            w.tn::<f32>(gb),
            w.tmp(),
        );
        let (_, min) = get_batch_norm_max_min_tmp_size(&sh, &sh, 4, false, false);
        let mut t = spoil(w, get_batch_norm_nd_tiling_info(&sh, &sh, k.get_size().max(min), 4, false, false));
        w.go(&[r(&o), r(&m), r(&va), r(&k)], || {
            batch_norm::<f32, false, false>(&o, &m, &va, &x, &g, &b, &k, 1e-5, &mut t)
        });
    }));
    v.push(("batch_norm_stack", |w: &mut W| {
        w.lenient = true;
        let sh = [8, 1, 64 * w.rng.range(1, 2) as usize];
        let (n, mv) = (sh[0] * sh[2], sh[2]);
        let (o, m, va, x, g, b) = (
            w.tn::<f16>(n),
            w.tn::<f16>(mv),
            w.tn::<f16>(mv),
            w.tn::<f16>(n),
            w.tn::<f16>(16),
            w.tn::<f16>(16),
        );
        let mut t = spoil(w, get_batch_norm_nd_tiling_info(&sh, &sh, 16 * 1024, 2, false, true));
        w.go(&[r(&o), r(&m), r(&va)], || {
            batch_norm_stack::<f16, false, true>(&o, &m, &va, &x, &g, &b, f16::from_f32(1e-3), &mut t)
        });
    }));
    /// GroupNorm's `[N, C, H, W]` and groups: `C` a multiple of the groups.
    fn gn_shape(w: &mut W) -> ([usize; 4], usize) {
        let g = w.rng.range(1, 4) as usize;
        let sh = [
            w.rng.range(1, 3) as usize,
            g * w.rng.range(1, 3) as usize,
            w.rng.range(1, 4) as usize,
            w.rng.range(1, 12) as usize,
        ];
        (sh, g)
    }
    v.push(("group_norm", group_norm_case));
    fn group_norm_case(w: &mut W) {
        w.lenient = true;
        let (sh, g) = gn_shape(w);
        let hwa = (sh[2] * sh[3]).next_multiple_of(8);
        let n = 2 * sh[0] * sh[1] * hwa + sh[0] * g;
        let (o, m, va, x, ga, b, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(sh[0] * g),
            w.tn::<f32>(sh[0] * g),
            w.tn::<f32>(n),
            w.tn::<f32>(sh[1]),
            w.tn::<f32>(sh[1]),
            w.tmp(),
        );
        let (_, min) = get_group_norm_max_min_tmp_size(&sh, 4, false, g);
        let mut t = spoil(w, get_group_norm_nd_tiling_info(&sh, k.get_size().max(min), 4, false, g));
        w.go(&[r(&o), r(&m), r(&va), r(&k)], || {
            group_norm::<f32, false>(&o, &m, &va, &x, &ga, &b, &k, 1e-5, &mut t)
        });
    }
    v.push(("group_norm_stack", group_norm_stack_case));
    fn group_norm_stack_case(w: &mut W) {
        w.lenient = true;
        let (sh, g) = gn_shape(w);
        let hwa = (sh[2] * sh[3]).next_multiple_of(16);
        let n = 2 * sh[0] * sh[1] * hwa + sh[0] * g;
        let (o, m, va, x, ga, b) = (
            w.tn::<f16>(n),
            w.tn::<f16>(sh[0] * g),
            w.tn::<f16>(sh[0] * g),
            w.tn::<f16>(n),
            w.tn::<f16>(sh[1]),
            w.tn::<f16>(sh[1]),
        );
        let mut t = spoil(w, get_group_norm_nd_tiling_info(&sh, 16 * 1024, 2, false, g));
        w.go(&[r(&o), r(&m), r(&va)], || {
            group_norm_stack::<f16, false>(&o, &m, &va, &x, &ga, &b, f16::from_f32(1e-3), &mut t)
        });
    }
    v.push(("rms_norm", |w: &mut W| {
        w.lenient = true;
        let sh = bsh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, x, g, k) = (w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(sh[2]), w.tmp());
        let t = spoil(w, get_rms_norm_tiling_info(&sh, &sh, k.get_size(), 4, false));
        w.go(&[r(&o), r(&k)], || rms_norm::<f32, false>(&o, &x, &g, &k, 1e-5, &t));
    }));
    v.push(("rms_norm_stack", |w: &mut W| {
        w.lenient = true;
        let sh = bsh(w);
        let n = sh[0] * sh[1] * sh[2];
        let (o, x, g) = (w.tn::<f16>(n), w.tn::<f16>(n), w.tn::<f16>(sh[2]));
        let t = spoil(w, get_rms_norm_tiling_info(&sh, &sh, 16 * 1024, 2, false));
        w.go(&[r(&o)], || rms_norm_stack::<f16, false>(&o, &x, &g, f16::from_f32(1e-3), &t));
    }));
}

fn smshape(w: &mut W, size: usize) -> (SoftMaxShapeInfo, [u32; 2]) {
    let (m, k) = shape(w, size);
    let ori_k = if w.rng.chance(4) { k.saturating_sub(w.rng.index(32 / size)) } else { k };
    let info =
        SoftMaxShapeInfo { src_m: m as u32, src_k: k as u32, ori_src_m: m as u32, ori_src_k: ori_k as u32 };
    (info, [m as u32, k as u32])
}

fn softmaxes(v: &mut Vec<Case>) {
    v.push(("soft_max", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let n = (sh[0] * sh[1]) as usize;
        let (d, s, k) = (w.tn::<f32>(n), w.tn::<f32>(n), w.tmp());
        let t = spoil(w, soft_max_tiling_func(&sh, 4, k.get_size() as u32));
        w.go(&[r(&d), r(&k)], || soft_max::<f32, false, false>(&d, &s, &k, &t, &info));
    }));
    v.push(("soft_max_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let n = (sh[0] * sh[1]) as usize;
        let (d, s) = (w.tn::<f16>(n), w.tn::<f16>(n));
        let t = spoil(w, soft_max_tiling_func(&sh, 2, 16 * 1024));
        w.go(&[r(&d)], || soft_max_stack::<f16, false, false>(&d, &s, &t, &info));
    }));
    v.push(("soft_max_with_sum_max", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let n = (sh[0] * sh[1]) as usize;
        let (d, su, mx, s, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(sh[0] as usize * 8),
            w.tn::<f32>(sh[0] as usize * 8),
            w.tn::<f32>(n),
            w.tmp(),
        );
        let t = spoil(w, soft_max_tiling_func(&sh, 4, k.get_size() as u32));
        w.go(&[r(&d), r(&su), r(&mx), r(&k)], || {
            soft_max_with_sum_max::<f32, f32, false, false>(&d, &su, &mx, &s, &k, &t, &info)
        });
    }));
    v.push(("soft_max_with_sum_max_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let n = (sh[0] * sh[1]) as usize;
        let (d, su, mx, s) = (
            w.tn::<f16>(n),
            w.tn::<f16>(sh[0] as usize * 16),
            w.tn::<f16>(sh[0] as usize * 16),
            w.tn::<f16>(n),
        );
        let t = spoil(w, soft_max_tiling_func(&sh, 2, 16 * 1024));
        w.go(&[r(&d), r(&su), r(&mx)], || {
            soft_max_with_sum_max_stack::<f16, f16, false, false>(&d, &su, &mx, &s, &t, &info)
        });
    }));
    v.push(("adjust_soft_max_res", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let n = (sh[0] * sh[1]) as usize;
        let (d, mx) = (w.tn::<f32>(n), w.tn::<f32>(sh[0] as usize * 8));
        let from = w.rng.next() as u32;
        if w.rng.chance(2) {
            w.go(&[r(&d)], || {
                adjust_soft_max_res::<f32, f32, 0>(&d, &mx, from, 0.0, &info);
            });
        } else {
            w.go(&[r(&d)], || {
                adjust_soft_max_res::<f32, f32, 1>(&d, &mx, from, 0.0, &info);
            });
        }
    }));
    v.push(("softmax_flash_v2", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let (n, m8) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 8);
        let (d, es, mx, s, em, ies, imx, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tn::<f32>(n),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tmp(),
        );
        let update = w.rng.chance(2);
        let t = spoil(w, soft_max_flash_v2_tiling_func(&sh, 4, 4, k.get_size() as u32, update, false, false));
        let writes = [r(&d), r(&es), r(&mx), r(&em), r(&k)];
        if update {
            w.go(&writes, || {
                softmax_flash_v2::<f32, f32, true, false, false>(
                    &d, &es, &mx, &s, &em, &ies, &imx, &k, &t, &info,
                )
            });
        } else {
            w.go(&writes, || {
                softmax_flash_v2::<f32, f32, false, false, false>(
                    &d, &es, &mx, &s, &em, &ies, &imx, &k, &t, &info,
                )
            });
        }
    }));
    v.push(("softmax_flash_v2_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let (n, m16) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 16);
        let (d, es, mx, s, em, ies, imx) = (
            w.tn::<f16>(n),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
            w.tn::<f16>(n),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
        );
        let t = spoil(w, soft_max_flash_v2_tiling_func(&sh, 2, 2, 16 * 1024, true, false, false));
        w.go(&[r(&d), r(&es), r(&mx), r(&em)], || {
            softmax_flash_v2_stack::<f16, f16, true, false, false>(
                &d, &es, &mx, &s, &em, &ies, &imx, &t, &info,
            )
        });
    }));
    v.push(("softmax_flash", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let (n, m8) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 8);
        let (d, su, mx, s, em, isu, imx, k) = (
            w.tn::<f32>(n),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tn::<f32>(n),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tn::<f32>(m8),
            w.tmp(),
        );
        let update = w.rng.chance(2);
        let t = spoil(w, soft_max_flash_tiling_func(&sh, 4, k.get_size() as u32, update));
        w.go(&[r(&d), r(&su), r(&mx), r(&em), r(&k)], || {
            softmax_flash::<f32, f32, false, false>(&d, &su, &mx, &s, &em, &isu, &imx, &k, &t, update, &info)
        });
    }));
    v.push(("softmax_flash_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let (n, m16) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 16);
        let (d, su, mx, s, em, isu, imx) = (
            w.tn::<f16>(n),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
            w.tn::<f16>(n),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
            w.tn::<f16>(m16),
        );
        let update = w.rng.chance(2);
        let t = spoil(w, soft_max_flash_tiling_func(&sh, 2, 16 * 1024, update));
        w.go(&[r(&d), r(&su), r(&mx), r(&em)], || {
            softmax_flash_stack::<f16, f16, false, false>(
                &d, &su, &mx, &s, &em, &isu, &imx, &t, update, &info,
            )
        });
    }));
    v.push(("log_soft_max", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let (n, m8) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 8);
        let (d, su, mx, s, k) = (w.tn::<f32>(n), w.tn::<f32>(m8), w.tn::<f32>(m8), w.tn::<f32>(n), w.tmp());
        let t = spoil(w, log_soft_max_tiling_func(&sh, 4, k.get_size() as u32));
        w.go(&[r(&d), r(&su), r(&mx), r(&k)], || log_soft_max::<f32, false>(&d, &su, &mx, &s, &k, &t, &info));
    }));
    v.push(("simple_soft_max", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let (n, m8) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 8);
        let (d, su, mx, s, k) = (w.tn::<f32>(n), w.tn::<f32>(m8), w.tn::<f32>(m8), w.tn::<f32>(n), w.tmp());
        let t = spoil(w, soft_max_tiling_func(&sh, 4, k.get_size() as u32));
        w.go(&[r(&d), r(&k)], || simple_soft_max::<f32, f32, false, false>(&d, &su, &mx, &s, &k, &t, &info));
    }));
    v.push(("simple_soft_max_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let (n, m16) = ((sh[0] * sh[1]) as usize, sh[0] as usize * 16);
        let (d, su, mx, s) = (w.tn::<f16>(n), w.tn::<f16>(m16), w.tn::<f16>(m16), w.tn::<f16>(n));
        let t = spoil(w, soft_max_tiling_func(&sh, 2, 16 * 1024));
        w.go(&[r(&d)], || simple_soft_max_stack::<f16, f16, false, false>(&d, &su, &mx, &s, &t, &info));
    }));
    v.push(("softmax_grad", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let n = (sh[0] * sh[1]) as usize;
        let (d, g, s, k, front) = (w.tn::<f32>(n), w.tn::<f32>(n), w.tn::<f32>(n), w.tmp(), w.rng.chance(2));
        let t = spoil(w, soft_max_grad_tiling_func(&sh, 4, k.get_size() as u32, front));
        w.go(&[r(&d), r(&k)], || softmax_grad::<f32, false>(&d, &g, &s, &k, &t, front, &info));
    }));
    v.push(("softmax_grad_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let n = (sh[0] * sh[1]) as usize;
        let (d, g, s, front) = (w.tn::<f16>(n), w.tn::<f16>(n), w.tn::<f16>(n), w.rng.chance(2));
        let t = spoil(w, soft_max_grad_tiling_func(&sh, 2, 16 * 1024, front));
        w.go(&[r(&d)], || softmax_grad_stack::<f16, false>(&d, &g, &s, &t, front, &info));
    }));
    v.push(("softmax_grad_front", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 4);
        let n = (sh[0] * sh[1]) as usize;
        let (d, g, s, k) = (w.tn::<f32>(sh[0] as usize * 8), w.tn::<f32>(n), w.tn::<f32>(n), w.tmp());
        let t = spoil(w, soft_max_grad_tiling_func(&sh, 4, k.get_size() as u32, true));
        w.go(&[r(&d), r(&k)], || softmax_grad_front::<f32, false>(&d, &g, &s, &k, &t, &info));
    }));
    v.push(("softmax_grad_front_stack", |w: &mut W| {
        w.lenient = true;
        let (info, sh) = smshape(w, 2);
        let n = (sh[0] * sh[1]) as usize;
        let (d, g, s) = (w.tn::<f16>(sh[0] as usize * 16), w.tn::<f16>(n), w.tn::<f16>(n));
        let t = spoil(w, soft_max_grad_tiling_func(&sh, 2, 16 * 1024, true));
        w.go(&[r(&d)], || softmax_grad_front_stack::<f16, false>(&d, &g, &s, &t, &info));
    }));
}

fn shapes(v: &mut Vec<Case>) {
    use ascend_core::adv::reduce_xy::pattern::{AR, RA};
    v.push(("sum", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 4);
        let p =
            SumParams { outter: rows as u32, inner: cols as u32, n: w.small(cols as u64 + 1, 5000) as u32 };
        let (d, s, k) = (w.tn::<f32>(rows.next_multiple_of(8)), w.tn::<f32>(rows * cols), w.tmp());
        w.go(&[r(&d), r(&k)], || sum(&d, &s, &k, &p));
    }));
    v.push(("sum_stack", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let p =
            SumParams { outter: rows as u32, inner: cols as u32, n: w.small(cols as u64 + 1, 5000) as u32 };
        let (d, s) = (w.tn::<f16>(rows.next_multiple_of(16)), w.tn::<f16>(rows * cols));
        w.go(&[r(&d)], || sum_stack(&d, &s, &p));
    }));
    v.push(("mean", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 4);
        let p =
            MeanParams { outter: rows as u32, inner: cols as u32, n: w.small(cols as u64 + 1, 5000) as u32 };
        let (d, s, k) = (w.tn::<f32>(rows.next_multiple_of(8)), w.tn::<f32>(rows * cols), w.tmp());
        w.go(&[r(&d), r(&k)], || mean::<f32, f32>(&d, &s, &k, &p));
    }));
    v.push(("mean_stack", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let p =
            MeanParams { outter: rows as u32, inner: cols as u32, n: w.small(cols as u64 + 1, 5000) as u32 };
        let (d, s) = (w.tn::<f16>(rows.next_multiple_of(16)), w.tn::<f16>(rows * cols));
        w.go(&[r(&d)], || mean_stack::<f16, f32>(&d, &s, &p));
    }));
    macro_rules! xy {
        ($($f:ident, $stack:ident, $T:ty;)*) => {$(
            v.push((stringify!($f), |w: &mut W| {
                w.lenient = true;
                let (rows, cols) = shape(w, <$T>::SIZE);
                let (d, s, k, pad) = (w.tn::<$T>(rows.max(cols)), w.tn::<$T>(rows * cols), w.tmp(), w.rng.chance(4));
                let sh = [rows as u32, cols as u32 - if pad { 1 } else { 0 }];
                if w.rng.chance(2) {
                    w.go(&[r(&d), r(&k)], || $f::<$T, AR, false>(&d, &s, &k, &sh, !pad));
                } else {
                    w.go(&[r(&d), r(&k), r(&s)], || $f::<$T, RA, true>(&d, &s, &k, &sh, !pad));
                }
            }));
            v.push((stringify!($stack), |w: &mut W| {
                w.lenient = true;
                let (rows, cols) = shape(w, <$T>::SIZE);
                let (d, s) = (w.tn::<$T>(rows.max(cols)), w.tn::<$T>(rows * cols));
                let sh = [rows as u32, cols as u32];
                w.go(&[r(&d)], || $stack::<$T, RA, false>(&d, &s, &sh, true));
            }));
        )*};
    }
    xy!(reduce_max_adv, reduce_max_adv_stack, f32; reduce_min_adv, reduce_min_adv_stack, f16;
        reduce_any, reduce_any_stack, f32; reduce_all, reduce_all_stack, f32;
        reduce_sum_adv, reduce_sum_adv_stack, f32; reduce_mean, reduce_mean_stack, f32;
        reduce_prod, reduce_prod_stack, f32;);
    v.push(("cum_sum", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 4);
        let (d, l, s, k) = (w.tn::<f32>(rows * cols), w.tn::<f32>(cols), w.tn::<f32>(rows * cols), w.tmp());
        let info = CumSumInfo { outter: rows, inner: if w.rng.chance(6) { cols + 3 } else { cols } };
        let cfg = CumSumConfig {
            is_last_axis: w.rng.chance(2),
            is_reuse_source: false,
            output_last_row: w.rng.chance(2),
        };
        w.go(&[r(&d), r(&l), r(&k)], || cum_sum(&d, &l, &s, &k, &info, &cfg));
    }));
    v.push(("cum_sum_stack", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let (d, l, s) = (w.tn::<f16>(rows * cols), w.tn::<f16>(cols), w.tn::<f16>(rows * cols));
        let info = CumSumInfo { outter: rows, inner: cols };
        let cfg =
            CumSumConfig { is_last_axis: w.rng.chance(2), is_reuse_source: false, output_last_row: true };
        w.go(&[r(&d), r(&l)], || cum_sum_stack(&d, &l, &s, &info, &cfg));
    }));
    v.push(("broadcast", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 4);
        let (d, s, k) = (w.tn::<f32>(rows * cols), w.tn::<f32>(rows.max(cols)), w.tmp());
        if w.rng.chance(2) {
            let (ds, ss) = ([rows as u32, cols as u32], [rows as u32, 1]);
            w.go(&[r(&d), r(&k)], || broadcast::<f32, 2, 1, false>(&d, &s, &ds, &ss, &k));
        } else {
            let (ds, ss) = ([rows as u32, cols as u32], [1, cols as u32]);
            w.go(&[r(&d), r(&k)], || broadcast::<f32, 2, 0, false>(&d, &s, &ds, &ss, &k));
        }
    }));
    v.push(("broadcast_stack", |w: &mut W| {
        w.lenient = true;
        let n = w.small(64, 5000) as u32;
        let (d, s) = (w.tn::<f16>(n as usize), w.tn::<f16>(1));
        w.go(&[r(&d)], || broadcast_stack::<f16, 1, 0, false>(&d, &s, &[n], &[1]));
    }));
    v.push(("pad", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let (d, s, k) = (w.tn::<f16>(rows * (cols + 16)), w.tn::<f16>(rows * cols), w.tmp());
        let ori = [rows, cols - w.rng.range(1, 15) as usize];
        let t = spoil(w, pad_tiling_func(&[rows, cols], &ori, k.get_size(), 2));
        let right = if w.rng.chance(4) { w.small(16, 100) } else { (cols - ori[1]) as u64 } as u16;
        let p = PadParams { left_pad: 0, right_pad: right, pad_value: 3 };
        w.go(&[r(&d), r(&k)], || pad(&d, &s, &p, &k, &t));
    }));
    v.push(("pad_stack", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 4);
        let (d, s) = (w.tn::<f32>(rows * (cols + 8)), w.tn::<f32>(rows * cols));
        let ori = [rows, cols - w.rng.range(1, 7) as usize];
        let t = spoil(w, pad_tiling_func(&[rows, cols], &ori, 16 * 1024, 4));
        let right = if w.rng.chance(4) { w.small(8, 100) } else { (cols - ori[1]) as u64 } as u16;
        let p = PadParams { left_pad: w.small(1, 100) as u16, right_pad: right, pad_value: 0 };
        w.go(&[r(&d)], || pad_stack(&d, &s, &p, &t));
    }));
    v.push(("un_pad", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let (d, s, k) = (w.tn::<f16>(rows * cols), w.tn::<f16>(rows * cols), w.tmp());
        let t = spoil(w, un_pad_tiling_func(&[rows, cols], k.get_size(), 2));
        let p = UnPadParams { left_pad: 0, right_pad: w.small(16, 100) as u16 };
        w.go(&[r(&d), r(&k)], || un_pad(&d, &s, &p, &k, &t));
    }));
    v.push(("un_pad_stack", |w: &mut W| {
        w.lenient = true;
        let (rows, cols) = shape(w, 2);
        let (d, s) = (w.tn::<u16>(rows * cols), w.tn::<u16>(rows * cols));
        let t = spoil(w, un_pad_tiling_func(&[rows, cols], 16 * 1024, 2));
        let p = UnPadParams { left_pad: w.small(2, 100) as u16, right_pad: w.small(16, 100) as u16 };
        w.go(&[r(&d)], || un_pad_stack(&d, &s, &p, &t));
    }));
    v.push(("top_k", |w: &mut W| {
        w.lenient = true;
        let (outter, inner) = (w.rng.range(1, 4) as i32, 32 * w.rng.range(1, 8) as i32);
        let k = w.small(inner as u64 + 1, 10000) as i32;
        let n = (outter * inner) as usize;
        let (dv, di, s, si, f, t) =
            (w.tn::<f32>(n), w.tn::<i32>(n), w.tn::<f32>(n), w.tn::<i32>(n), w.tn::<u8>(32), w.tmp());
        let tiling =
            spoil(w, top_k_tiling_func(get_soc(), inner, outter, k, 4, false, TopKMode::TopkNormal, true));
        let info = TopKInfo { outter, inner, n: inner - w.rng.below(2) as i32 };
        w.go(&[r(&dv), r(&di), r(&t)], || {
            top_k::<f32, false, false, false>(
                &dv,
                &di,
                &s,
                &si,
                &f,
                &t,
                k,
                &tiling,
                &info,
                true,
                TopKMode::TopkNormal,
            )
        });
    }));
    v.push(("top_k_stack", |w: &mut W| {
        w.lenient = true;
        let (outter, inner) = (1, 32 * w.rng.range(1, 8) as i32);
        let k = w.small(inner as u64 + 1, 10000) as i32;
        let n = inner as usize;
        let (dv, di, s, si, f) =
            (w.tn::<f16>(n), w.tn::<i32>(n), w.tn::<f16>(n), w.tn::<i32>(n), w.tn::<u8>(32));
        let mode = if w.rng.chance(2) { TopKMode::TopkNormal } else { TopKMode::TopkNsmall };
        let tiling = spoil(w, top_k_tiling_func(get_soc(), inner, outter, k, 2, true, mode, false));
        let info = TopKInfo { outter, inner, n: inner };
        w.go(&[r(&dv), r(&di)], || {
            top_k_stack::<f16, true, false, false>(&dv, &di, &s, &si, &f, k, &tiling, &info, false, mode)
        });
    }));
    v.push(("confusion_transpose", |w: &mut W| {
        w.lenient = true;
        let sh =
            [1, w.rng.range(1, 2) as usize, 16 * w.rng.range(1, 2) as usize, 16 * w.rng.range(1, 2) as usize];
        let n = sh.iter().product();
        let (d, s, k) = (w.tn::<f16>(n), w.tn::<f16>(n), w.tmp());
        let ty = [
            TransposeType::TRANSPOSE_NZ2ND_0213,
            TransposeType::TRANSPOSE_ND2ND_ONLY,
            TransposeType::TRANSPOSE_NZ2NZ_0213,
        ][w.rng.index(3)];
        let t = spoil(w, get_confusion_transpose_tiling_info(&sh, k.get_size(), 2, ty));
        w.go(&[r(&d), r(&k)], || confusion_transpose(&d, &s, &k, ty, &t));
    }));
    v.push(("confusion_transpose_stack", |w: &mut W| {
        w.lenient = true;
        let sh = [16 * w.rng.range(1, 4) as usize, 16 * w.rng.range(1, 4) as usize];
        let n = sh.iter().product();
        let (d, s) = (w.tn::<f16>(n), w.tn::<f16>(n));
        let t = spoil(w, get_confusion_transpose_only_tiling_info(&sh, 16 * 1024, 2));
        w.go(&[r(&d)], || confusion_transpose_stack(&d, &s, TransposeType::TRANSPOSE_ND2ND_ONLY, &t));
    }));
    v.push(("trans_data", |w: &mut W| {
        w.lenient = true;
        let (config, ls, ld) = trans_data_case(w);
        let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.tmp());
        w.go(&[r(&d), r(&k)], || trans_data(&d, &s, &k, config, &TransDataParams::new(&ls, &ld)));
    }));
    v.push(("trans_data_stack", |w: &mut W| {
        w.lenient = true;
        let (config, ls, ld) = trans_data_case(w);
        let (d, s) = (w.t::<u16>(), w.t::<u16>());
        w.go(&[r(&d)], || trans_data_stack(&d, &s, config, &TransDataParams::new(&ls, &ld)));
    }));
}

/// A random `TransData` conversion of a small `[N, C, D, H, W]` and its two layouts (one call
/// in eight with a layout dimension spoiled).
fn trans_data_case(w: &mut W) -> (TransDataConfig, Vec<usize>, Vec<usize>) {
    use DataFormat::*;
    let [n, c, d, h, wd] = [
        w.rng.range(1, 18) as usize,
        w.rng.range(1, 20) as usize,
        w.rng.range(1, 3) as usize,
        w.rng.range(1, 4) as usize,
        w.rng.range(1, 5) as usize,
    ];
    let nc = vec![n, c, d, h, wd];
    let six = vec![n, d, c.div_ceil(16), h, wd, 16];
    let fz = vec![d, c.div_ceil(16), h, wd, n.div_ceil(16), 16, 16];
    let (config, mut ls, mut ld) = match w.rng.index(5) {
        0 => (TransDataConfig::new(NCDHW, NDC1HWC0), nc, six),
        1 => (TransDataConfig::new(NDC1HWC0, NCDHW), six, nc),
        2 => (TransDataConfig::new(NCDHW, FRACTAL_Z_3D), nc, fz),
        3 => (TransDataConfig::new(FRACTAL_Z_3D, NCDHW), fz, nc),
        _ => (TransDataConfig::new(NCHW, NC1HWC0), nc, six),
    };
    if w.rng.chance(8) {
        let side = if w.rng.chance(2) { &mut ls } else { &mut ld };
        let k = w.rng.index(side.len());
        side[k] = w.rng.below(40) as usize;
    }
    (config, ls, ld)
}

// ---- the cube ------------------------------------------------------------------------------

pub fn cube(mut v: Vec<Case>) -> Vec<Case> {
    v.push(("data_copy_nd2nz", |w: &mut W| {
        let (g, _) = w.g::<f16>();
        let d = w.t_pos::<f16>(TPosition::A1);
        let p = Nd2NzParams::new(
            w.small(3, 65535) as u16,
            w.small(40, 65535) as u16,
            w.small(80, 65535) as u16,
            w.small(200, 65535) as u16,
            w.small(80, 65535) as u16,
            w.small(40, 65535) as u16,
            w.small(3, 65535) as u16,
            w.small(200, 65535) as u16,
        );
        w.go_in(&[&[r(&d)]], &[], || data_copy_nd2nz(&d, &g, &p));
    }));
    v.push(("load_data", |w: &mut W| {
        let p = LoadData2DParams::new(
            w.small(4, 65535) as u16,
            w.small(5, 255) as u8,
            w.small(3, 65535) as u16,
            0,
            w.small(3, 65535) as u16,
            w.rng.chance(2),
            0,
        );
        let s = w.t_pos::<f16>(TPosition::A1);
        if w.rng.chance(2) {
            let d = w.t_pos::<f16>(TPosition::A2);
            w.go_in(&[&[], &[r(&d)]], &[], || load_data(&d, &s, &p));
        } else {
            let d = w.t_pos::<f16>(TPosition::B2);
            w.go_in(&[&[], &[], &[r(&d)]], &[], || load_data(&d, &s, &p));
        }
    }));
    v.push(("mmad", |w: &mut W| {
        let (a, b, c) =
            (w.t_pos::<f16>(TPosition::A2), w.t_pos::<f16>(TPosition::B2), w.t_pos::<f32>(TPosition::CO1));
        let p = MmadParams::new(
            w.small(40, 65535) as u16,
            w.small(40, 65535) as u16,
            w.small(40, 65535) as u16,
            0,
            w.rng.chance(4),
            w.rng.chance(2),
        );
        w.go_in(&[&[], &[], &[], &[r(&c)]], &[], || mmad(&c, &a, &b, &p));
    }));
    fn fp(w: &mut W) -> FixpipeParamsV220 {
        let (n, m) = (16 * w.small(4, 4095) as u16, w.small(40, 65535) as u16);
        FixpipeParamsV220::new(
            n,
            m,
            (u32::from(m).next_multiple_of(16) + w.small(2, 100) as u32 * 16).min(u32::from(u16::MAX)) as u16,
            if w.rng.chance(2) { n as u32 } else { w.small(100, u32::MAX as u64) as u32 },
            w.rng.chance(2),
            QuantMode_t::NoQuant,
            0,
            w.small(2, 65535) as u16,
            w.small(4, 65535) as u16,
            w.small(4, 65535) as u16,
            0,
        )
    }
    v.push(("fixpipe", |w: &mut W| {
        let (g, gr) = w.g::<f32>();
        let s = w.t_pos::<f32>(TPosition::CO1);
        let p = fp(w);
        w.go_in(&[], &[gr], || fixpipe(&g, &s, &p));
    }));
    v.push(("fixpipe_nz", |w: &mut W| {
        let (g, gr) = w.g::<f32>();
        let s = w.t_pos::<f32>(TPosition::CO1);
        let p = fp(w);
        w.go_in(&[], &[gr], || fixpipe_nz(&g, &s, &p));
    }));
    v.push(("data_copy_bias", |w: &mut W| {
        let d = w.t_bt::<f32>();
        let p = DataCopyParams::new(
            w.small(3, 65535) as u16,
            w.small(4, 65535) as u16,
            w.small(3, 65535) as u16,
            w.small(3, 65535) as u16,
        );
        if w.rng.chance(2) {
            let s = w.t_pos::<f16>(TPosition::A1);
            w.go_in(&[&[], &[], &[], &[], &[r(&d)]], &[], || data_copy_bias(&d, &s, &p));
        } else {
            let s = w.t_pos::<f32>(TPosition::A1);
            w.go_in(&[&[], &[], &[], &[], &[r(&d)]], &[], || data_copy_bias(&d, &s, &p));
        }
    }));
    v.push(("mmad_with_bias", |w: &mut W| {
        let (a, b, c) =
            (w.t_pos::<f16>(TPosition::A2), w.t_pos::<f16>(TPosition::B2), w.t_pos::<f32>(TPosition::CO1));
        let bias = w.t_bt::<f32>();
        let p = MmadParams::new(
            w.small(40, 65535) as u16,
            w.small(40, 65535) as u16,
            w.small(40, 65535) as u16,
            0,
            w.rng.chance(4),
            w.rng.chance(2),
        );
        w.go_in(&[&[], &[], &[], &[r(&c)]], &[], || mmad_with_bias(&c, &a, &b, &bias, &p));
    }));
    /// Fixpipe parameters with a random quantising mode and scalar.
    fn fq(w: &mut W) -> FixpipeParamsV220 {
        const MODES: [QuantMode_t; 9] = [
            QuantMode_t::NoQuant,
            QuantMode_t::F322F16,
            QuantMode_t::F322BF16,
            QuantMode_t::DEQF16,
            QuantMode_t::VDEQF16,
            QuantMode_t::QF322B8_PRE,
            QuantMode_t::VQF322B8_PRE,
            QuantMode_t::REQ8,
            QuantMode_t::VREQ8,
        ];
        let mut p = fp(w);
        p.quant_pre = MODES[w.rng.index(MODES.len())];
        p.deq_scalar = w.rng.next();
        p
    }
    v.push(("fixpipe_with_quant", |w: &mut W| {
        let q = w.t_pos::<u64>(TPosition::A1);
        let s = w.t_pos::<i32>(TPosition::CO1);
        let p = fq(w);
        if w.rng.chance(2) {
            let (g, gr) = w.g::<f16>();
            w.go_in(&[], &[gr], || fixpipe_with_quant(&g, &s, &q, &p));
        } else {
            let (g, gr) = w.g::<i8>();
            w.go_in(&[], &[gr], || fixpipe_with_quant(&g, &s, &q, &p));
        }
    }));
    v.push(("fixpipe_nz_with_quant", |w: &mut W| {
        let q = w.t_pos::<u64>(TPosition::A1);
        let s = w.t_pos::<i32>(TPosition::CO1);
        let p = fq(w);
        if w.rng.chance(2) {
            let (g, gr) = w.g::<f16>();
            w.go_in(&[], &[gr], || fixpipe_nz_with_quant(&g, &s, &q, &p));
        } else {
            let (g, gr) = w.g::<u8>();
            w.go_in(&[], &[gr], || fixpipe_nz_with_quant(&g, &s, &q, &p));
        }
    }));
    v.push(("set_fix_pipe_config", |w: &mut W| {
        let pos = if w.rng.chance(4) { TPosition::A1 } else { TPosition::CO1 };
        let (s, unit) = (w.t_pos::<f32>(pos), w.rng.chance(2));
        w.go_in(&[], &[], || set_fix_pipe_config::<f32, false>(&s, unit));
    }));
    v.push(("Matmul", |w: &mut W| {
        // The high-level object: random shapes, base blocks, iteration order, transposes,
        // bias, atomic output and call sequence over random (often short) GM operands. It
        // stages through every local memory of the cube core, so those may change; in GM
        // only C's bytes may.
        w.lenient = true;
        let t = mm_tiling(w);
        let (a, _) = w.g::<f16>();
        let (b, _) = w.g::<f16>();
        let (bias, _) = w.g::<f32>();
        let plan = MmPlan {
            trans: (w.rng.chance(3), w.rng.chance(3)),
            bias: w.rng.chance(3),
            mode: w.rng.below(3),
            atomic: w.rng.chance(6),
            org: if w.rng.chance(6) { Some((mm_dim(w), mm_dim(w), mm_dim(w))) } else { None },
            shapes: if w.rng.chance(4) { Some((mm_dim(w), mm_dim(w), mm_dim(w))) } else { None },
            tail: if w.rng.chance(6) {
                Some((w.rng.below(40) as i32 - 4, w.rng.below(40) as i32 - 4, w.rng.below(40) as i32 - 4))
            } else {
                None
            },
            end_twice: w.rng.chance(12),
        };
        let all: &[(usize, usize)] = &[(0, usize::MAX)];
        let arenas: &[&[(usize, usize)]] = &[all, all, all, all, all];
        match w.rng.below(4) {
            0 => {
                let (c, cr) = w.g::<f32>();
                w.go_in(arenas, &[cr], || mm_run::<f32, CfgNorm>(&t, &a, &b, &bias, &c, &plan));
            }
            1 => {
                let (c, cr) = w.g::<f32>();
                w.go_in(arenas, &[cr], || mm_run::<f32, CfgMdl>(&t, &a, &b, &bias, &c, &plan));
            }
            2 => {
                let (c, cr) = w.g::<f16>();
                w.go_in(arenas, &[cr], || mm_run::<f16, CfgNorm>(&t, &a, &b, &bias, &c, &plan));
            }
            _ => {
                let (c, cr) = w.g::<bf16>();
                w.go_in(arenas, &[cr], || mm_run::<bf16, CfgMdl>(&t, &a, &b, &bias, &c, &plan));
            }
        }
    }));
    v
}

/// A `Matmul` dimension: mostly 1..=96, sometimes 0, negative or large.
fn mm_dim(w: &mut W) -> i32 {
    match w.rng.below(40) {
        0 => 0,
        1 => -(w.rng.below(20) as i32),
        2..=4 => w.rng.range(97, 600) as i32,
        _ => w.rng.range(1, 97) as i32,
    }
}

/// A random `TCubeTiling` for one core: mostly consistent (single-core shape the whole
/// shape, base blocks multiples of 16 that fit L0), sometimes not; one in eight has a word
/// spoiled.
fn mm_tiling(w: &mut W) -> TCubeTiling {
    let mut t = TCubeTiling::default();
    let (m, n, k) = (mm_dim(w), mm_dim(w), mm_dim(w));
    (t.M, t.N, t.Ka, t.Kb) = (m, n, k, if w.rng.chance(10) { mm_dim(w) } else { k });
    (t.singleCoreM, t.singleCoreN, t.singleCoreK) = (m, n, k);
    if w.rng.chance(6) {
        (t.singleCoreM, t.singleCoreN, t.singleCoreK) = (mm_dim(w), mm_dim(w), mm_dim(w));
    }
    let base = |w: &mut W| {
        if w.rng.chance(24) {
            w.small(300, 4096) as i32
        } else {
            16 * w.rng.range(1, 5) as i32
        }
    };
    (t.baseM, t.baseN, t.baseK) = (base(w), base(w), base(w));
    t.iterateOrder = if w.rng.chance(24) { 2 } else { w.rng.below(2) as i32 };
    (t.usedCoreNum, t.depthA1, t.depthB1, t.stepM, t.stepN, t.stepKa, t.stepKb) = (1, 1, 1, 1, 1, 1, 1);
    spoil(w, t)
}

/// How [`mm_run`] drives the object.
struct MmPlan {
    /// `isTransposeA`, `isTransposeB` (A holds `K × M`, B `N × K` then).
    trans: (bool, bool),
    bias: bool,
    /// 0: `IterateAll`; 1: synchronous `Iterate` + `GetTensorC`; 2: the asynchronous forms.
    mode: u64,
    atomic: bool,
    /// `SetOrgShape` before the run.
    org: Option<(i32, i32, i32)>,
    /// `SetSingleShape` before the run.
    shapes: Option<(i32, i32, i32)>,
    /// `SetTail` before the run.
    tail: Option<(i32, i32, i32)>,
    /// `End` twice, or a call after `End` (must fail).
    end_twice: bool,
}

/// One `Matmul` with half inputs, a float bias and C of `C`, driven as `p` says.
fn mm_run<C, CFG>(
    t: &TCubeTiling,
    a: &GlobalTensor<f16>,
    b: &GlobalTensor<f16>,
    bias: &GlobalTensor<f32>,
    c: &GlobalTensor<C>,
    p: &MmPlan,
) where
    C: Element + AtomicElement + FixpipeOut<f32>,
    CFG: MatmulCfg,
{
    let mut mm = Matmul::<
        MatmulType<Gm, cube_format::ND, f16>,
        MatmulType<Gm, cube_format::ND, f16>,
        MatmulType<Gm, cube_format::ND, C>,
        MatmulType<Gm, cube_format::ND, f32>,
        CFG,
    >::new();
    mm.init(t);
    mm.set_tensor_a(a, p.trans.0);
    mm.set_tensor_b(b, p.trans.1);
    if p.bias {
        mm.set_bias(bias);
    } else {
        mm.disable_bias();
    }
    // This core's C as the object sees it (`Init` succeeded: the sizes are positive).
    let mut single = (t.singleCoreM as usize, t.singleCoreN as usize);
    if let Some((om, on, ok)) = p.org {
        mm.set_org_shape(om.max(0) as usize, on.max(0) as usize, ok.max(0) as usize);
    }
    if let Some((sm, sn, sk)) = p.shapes {
        mm.set_single_shape(sm.max(0) as usize, sn.max(0) as usize, sk.max(0) as usize);
        single = (sm as usize, sn as usize);
    }
    if let Some((tm, tn, tk)) = p.tail {
        mm.set_tail(tm, tn, tk);
        let keep = |v: i32, old: usize| if v == -1 { old } else { v as usize };
        single = (keep(tm, single.0), keep(tn, single.1));
    }
    let blocks = single.0.div_ceil(t.baseM as usize) * single.1.div_ceil(t.baseN as usize);
    match p.mode {
        0 => mm.iterate_all::<true>(c, p.atomic),
        1 => {
            while mm.iterate::<true>() {
                mm.get_tensor_c::<true, _>(c, p.atomic, false);
            }
        }
        _ => {
            if mm.iterate::<false>() {
                for _ in 0..blocks {
                    mm.get_tensor_c::<false, _>(c, p.atomic, false);
                }
            }
        }
    }
    mm.end();
    if p.end_twice {
        mm.iterate_all::<true>(c, p.atomic);
    }
}

/// `DropOut` (both forms): random shapes, mostly valid for the mode drawn, every mode, both
/// `isInitBitMode` values; it may write `dst`, the buffer and (Ascend910B's dirty modes) the mask.
fn dropouts(v: &mut Vec<Case>) {
    /// A shape for mode `k` (1 to 4), sometimes for another mode.
    fn info(w: &mut W, k: u64) -> DropOutShapeInfo {
        let rows = w.rng.range(1, 4) as u32;
        let s = 16 * w.rng.range(1, 8) as u32;
        let m = match if w.rng.chance(6) { w.rng.range(1, 4) } else { k } {
            1 => (s + 32).next_multiple_of(32),
            2 => s,
            3 => s / 8,
            _ => 32,
        };
        spoil(w, DropOutShapeInfo { first_axis: rows, src_last_axis: s, mask_last_axis: m })
    }
    v.push(("drop_out", |w: &mut W| {
        w.lenient = true;
        let (d, s, m, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<u8>(), w.tmp());
        let mode = w.rng.below(6);
        let p = info(w, mode.clamp(1, 4));
        let kp = if w.rng.chance(8) { 1.5 } else { 0.5 };
        let spans = [r(&d), r(&k), r(&m)];
        match mode {
            0 => w.go(&spans, || drop_out::<f32, false, 0>(&d, &s, &m, &k, kp, &p)),
            1 => w.go(&spans, || drop_out::<f32, false, 1>(&d, &s, &m, &k, kp, &p)),
            2 => w.go(&spans, || drop_out::<f32, false, 2>(&d, &s, &m, &k, kp, &p)),
            3 => w.go(&spans, || drop_out::<f32, true, 3>(&d, &s, &m, &k, kp, &p)),
            4 => w.go(&spans, || drop_out::<f32, false, 4>(&d, &s, &m, &k, kp, &p)),
            _ => w.go(&spans, || drop_out::<f32, false, 7>(&d, &s, &m, &k, kp, &p)),
        }
    }));
    v.push(("drop_out_stack", |w: &mut W| {
        w.lenient = true;
        let (d, s, m) = (w.t::<f16>(), w.t::<f16>(), w.t::<u8>());
        let k = w.rng.range(1, 4);
        let p = info(w, k);
        w.go(&[r(&d), r(&m)], || drop_out_stack::<f16, false, 0>(&d, &s, &m, 0.25, &p));
    }));
}
