//! The advanced API's `GroupNorm` (`adv/groupnorm.rs`) against a scalar reference restating
//! the vendor's steps (`groupnorm_common_impl.h`) on a flat model of the buffers, with each
//! instruction's `float` rounding — `ReduceSum` on Ascend910B (a tree per 64 lanes, the trees
//! added in order), `WholeReduceSum` (the tree over 64 lanes, disabled lanes `+0`), `Adds` of
//! `-mean`, `Mul`, one-lane `Muls` by `factor`, `rstd = 1 / sqrt(variance + epsilon)`, the
//! per-channel `Muls`/`Adds`; `half` widened exactly and narrowed to nearest-even — bit for bit,
//! for both types and both paths (general, small shape), buffers from the minimum (several rounds
//! and a tail) to the maximum and the stack form, with `isReuseSource`. The reference keeps
//! what the vendor does on a tail round (a full round cast in and out for `half`, a full round
//! of repeats in the small path's first `WholeReduceSum`, the `float` small path's zeroing of
//! `output[inputTailPos + group]`), so the tensors carry slack. Then the page's worked example,
//! the host's sizes and tilings, and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits_ctx, expect_panic, in_order, on, tree, ub, Fp, Rng};

/// The buffers of one call as `float` words: `x`, `o` (the `float` input and output), the
/// three scratch views `a`, `b`, `c`, the means and variances, `float` `gamma`/`beta`; the
/// `half` input, output, `gamma` and `beta` apart.
struct Mem {
    m: Vec<f32>,
    hx: Vec<f16>,
    ho: Vec<f16>,
    hg: Vec<f16>,
    hb: Vec<f16>,
    x: usize,
    o: usize,
    a: usize,
    b: usize,
    c: usize,
    mean: usize,
    var: usize,
    g: usize,
    be: usize,
}

/// The tiling's lengths and the round's position.
#[derive(Clone, Copy)]
struct K {
    c: usize,
    hw: usize,
    d: usize,
    hwa: usize,
    dhw: usize,
    round: usize,
    mv_round: usize,
    factor: f32,
    lc: usize,
    mvo: usize,
    bs: usize,
    bsh: usize,
}

impl K {
    fn idx(&self, i: usize) -> usize {
        i + self.lc * self.bs + self.mvo
    }
}

fn mask1(dhw: usize) -> usize {
    if dhw > 64 {
        (1..=8).rev().map(|k| 8 * k).find(|m| dhw % m == 0).unwrap_or(0)
    } else {
        dhw
    }
}

impl Mem {
    /// `ReduceSum` (count form, Ascend910B) of `n` words at `src` into `dst`.
    fn reduce_sum(&mut self, dst: usize, src: usize, n: usize) {
        let sums: Vec<f32> = self.m[src..src + n]
            .chunks(64)
            .map(|c| {
                let mut l = c.to_vec();
                l.resize(64, 0.0);
                tree(l, false)
            })
            .collect();
        self.m[dst] = in_order(&sums, false);
    }

    /// `WholeReduceSum` with `mask` leading lanes, `src` repeats `mask` words apart.
    fn wrs(&mut self, dst: usize, src: usize, mask: usize, repeat: usize, dst_rep: usize) {
        let sums: Vec<f32> = (0..repeat)
            .map(|r| {
                tree(
                    (0..64).map(|j| if j < mask { self.m[src + r * mask + j] } else { 0.0 }).collect(),
                    false,
                )
            })
            .collect();
        for (r, s) in sums.into_iter().enumerate() {
            self.m[dst + r * dst_rep] = s;
        }
    }

    fn fill(&mut self, at: usize, v: f32, n: usize) {
        self.m[at..at + n].fill(v);
    }

    /// The one-lane scaling of the round's means or variances at `mv`.
    fn scale(&mut self, mv: usize, k: &K) {
        for i in 0..k.bs {
            let at = mv + k.idx(i);
            self.m[at] *= k.factor;
        }
    }

    fn mean_general(&mut self, x: usize, k: &K) {
        for i in 0..k.bs {
            self.reduce_sum(self.mean + k.idx(i), x + i * k.dhw, k.dhw);
        }
        self.scale(self.mean, k);
    }

    fn var_general(&mut self, x: usize, t1: usize, t2: usize, k: &K) {
        for i in 0..k.d * k.bs {
            let mean = self.m[self.mean + (i + k.lc * k.d * k.bs + k.mvo * k.d) / k.d];
            for j in 0..k.hw {
                self.m[t1 + i * k.hwa + j] = self.m[x + i * k.hwa + j] + -mean;
            }
        }
        for j in 0..k.bsh {
            self.m[t2 + j] = self.m[t1 + j] * self.m[t1 + j];
        }
        for i in 0..k.bs {
            self.reduce_sum(self.var + k.idx(i), t2 + i * k.dhw, k.dhw);
        }
        self.scale(self.var, k);
    }

    fn pre(&mut self, inout: usize, tmp: usize, ones: usize, eps: f32, k: &K) {
        for i in 0..k.bs {
            let idx = k.idx(i);
            let lane = idx % 64;
            self.m[tmp + lane] = self.m[self.var + idx] + eps;
            self.m[ones + lane] = 1.0;
            self.m[tmp + lane] = self.m[tmp + lane].sqrt();
            self.m[tmp + lane] = self.m[ones + lane] / self.m[tmp + lane];
        }
        for i in 0..k.bs {
            let r = self.m[tmp + k.idx(i) % 64];
            for j in 0..k.dhw {
                self.m[inout + i * k.dhw + j] *= r;
            }
        }
    }

    fn output(&mut self, inout: usize, g: usize, be: usize, k: &K) {
        let first = (k.lc * k.bs + k.mvo) * k.d;
        for pass in 0..2 {
            for co in 0..k.bs * k.d {
                let ch = (first + co) % k.c;
                for j in 0..k.hw {
                    let at = inout + co * k.hwa + j;
                    self.m[at] =
                        if pass == 0 { self.m[at] * self.m[g + ch] } else { self.m[at] + self.m[be + ch] };
                }
            }
        }
    }

    /// The small path's two `WholeReduceSum`s of the round (from `src` through `part`) into
    /// `dst`'s groups.
    fn small_sum(&mut self, dst: usize, part: usize, src: usize, k: &K) {
        let m1 = mask1(k.dhw);
        let (rep1, m2) = (k.dhw / m1 * k.mv_round, k.dhw / m1 * 8);
        self.wrs(part, src, m1, rep1, 8);
        self.wrs(dst + k.lc * k.bs + k.mvo, part, m2, k.bs, 1);
    }

    fn small_center(&mut self, dst: usize, src: usize, k: &K) {
        for i in 0..k.bs {
            let mean = self.m[self.mean + k.idx(i)];
            for r in 0..k.d {
                for j in 0..k.hw {
                    let at = i * k.dhw + r * k.hwa + j;
                    self.m[dst + at] = self.m[src + at] + -mean;
                }
            }
        }
    }

    fn round_half(&mut self, off: usize, eps: f32, k: &K, small: bool) {
        let (a, b, c) = (self.a, self.b, self.c);
        if small {
            self.fill(a, 0.0, 3 * k.round);
        } else {
            self.fill(a, 0.0, k.bsh);
        }
        for j in 0..k.round {
            self.m[b + j] = self.hx[off + j].to_f32();
        }
        if small {
            self.small_sum(self.mean, c, b, k);
            self.scale(self.mean, k);
            self.small_center(b, b, k);
            for j in 0..k.bsh {
                self.m[c + j] = self.m[b + j] * self.m[b + j];
            }
            self.small_sum(self.var, a, c, k);
            self.scale(self.var, k);
        } else {
            self.mean_general(b, k);
            self.var_general(b, b, c, k);
        }
        self.pre(b, a, c, eps, k);
        for j in 0..k.c {
            self.m[a + j] = self.hg[j].to_f32();
            self.m[c + j] = self.hb[j].to_f32();
        }
        self.output(b, a, c, k);
        for j in 0..k.round {
            self.ho[off + j] = f16::from32(self.m[b + j]);
        }
    }

    fn round_float(&mut self, off: usize, eps: f32, k: &K, small: bool) {
        let (a, b, c) = (self.a, self.b, self.c);
        let (x, o) = (self.x + off, self.o + off);
        if small {
            if k.mvo != 0 {
                for i in 0..k.bs {
                    self.m[o + k.idx(i)] = 0.0;
                }
            } else {
                self.fill(o, 0.0, k.round);
            }
            self.fill(c, 0.0, k.round);
            self.small_sum(self.mean, c, x, k);
            self.scale(self.mean, k);
            self.small_center(o, x, k);
            for j in 0..k.bsh {
                self.m[c + j] = self.m[o + j] * self.m[o + j];
            }
            self.fill(a, 0.0, k.round);
            self.small_sum(self.var, a, c, k);
            self.scale(self.var, k);
        } else {
            self.mean_general(x, k);
            self.fill(o, 0.0, k.bsh);
            self.var_general(x, o, c, k);
        }
        self.pre(o, a, b, eps, k);
        let (g, be) = (self.g, self.be);
        self.output(o, g, be, k);
    }

    fn run(&mut self, t: &GroupNormTiling, half: bool, eps: f32) {
        let mut k = K {
            c: t.c as usize,
            hw: t.hw as usize,
            d: t.d as usize,
            hwa: t.hw_align_size as usize,
            dhw: t.dhw_align_size as usize,
            round: t.input_round_size as usize,
            mv_round: t.mean_var_round_size as usize,
            factor: t.factor,
            lc: 0,
            mvo: 0,
            bs: t.bs_cur_length as usize,
            bsh: t.bsh_cur_length as usize,
        };
        let small = t.small_shape != 0;
        let go = |mem: &mut Mem, off: usize, k: &K| {
            if half {
                mem.round_half(off, eps, k, small)
            } else {
                mem.round_float(off, eps, k, small)
            }
        };
        for i in 0..t.loop_round as usize {
            k.lc = i;
            go(self, i * k.round, &k);
        }
        if t.input_tail_size > 0 {
            k.lc = 0;
            k.mvo = t.mean_var_tail_pos as usize;
            k.bs = t.mean_var_tail_size as usize;
            k.bsh = t.input_tail_size as usize;
            go(self, t.input_tail_pos as usize, &k);
        }
    }
}

/// Bytes a case's buffer has past the tiling's `tmpBufSize`: the rstd step writes one lane per
/// group of a 64-lane repeat at its last view, which may pass the views on small rounds.
const SLACK: usize = 256;

/// Which buffer a case lends.
#[derive(Clone, Copy, Debug)]
enum Buf {
    Min,
    Bytes(usize),
    Max,
    Stack,
}

/// One case: `[n, c, h, w]` of `T` with `g` groups.
fn case<T: GroupNormElement + Fp>(shape: [usize; 4], g: usize, buf: Buf, reuse: bool, rng: &mut Rng) {
    let [n, c, h, w] = shape;
    let ctx = format!("{:?} {shape:?} g={g} {buf:?} reuse={reuse}", T::DTYPE);
    let uni = |rng: &mut Rng, lo: f32, hi: f32| {
        lo + (hi - lo) * ((1 + rng.below(1 << 24)) as f32 / (1u64 << 24) as f32)
    };
    let eps = T::from32([1e-5f32, 0.5, 0.01][rng.index(3)]);
    let half = T::DTYPE == DType::F16;
    on(Soc::Ascend910B, || {
        let (max, min) = get_group_norm_max_min_tmp_size(&shape, T::SIZE, reuse, g);
        let tmp_bytes = match buf {
            Buf::Min => Some(min),
            Buf::Bytes(b) => Some(b),
            Buf::Max => Some(max.min(48 * 1024).max(min)),
            Buf::Stack => None,
        };
        let al = |b: usize| b.next_multiple_of(32);
        // The tensors' room: a tiling for the stack needs the pipe first, so size it by the
        // largest slack any tiling can ask (two rounds past the input, the means).
        let hwa = (h * w * T::SIZE).next_multiple_of(32) / T::SIZE;
        let input = n * c * hwa;
        let cap = 2 * input + n * g;
        let (xb, mvb, gb) = (al(cap * T::SIZE), al(n * g * T::SIZE), al(c * T::SIZE));
        let mut pipe = TPipe::new();
        let mut q = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut q, 2 * xb + 2 * mvb + 2 * gb + tmp_bytes.map_or(0, |b| b + SLACK));
        let stack_bytes = tmp_bytes.unwrap_or_else(|| pop_stack_buffer::<u8>().get_size());
        let mut tiling = get_group_norm_nd_tiling_info(&shape, stack_bytes, T::SIZE, reuse, g);
        let before = tiling;
        let t = |off: usize, len: usize| q.get_with_offset::<T>(len, off);
        let (xt, yt) = (t(0, cap), t(xb, cap));
        let (mt, vt) = (t(2 * xb, n * g), t(2 * xb + mvb, n * g));
        let (gt, bt) = (t(2 * xb + 2 * mvb, c), t(2 * xb + 2 * mvb + gb, c));
        // The rows' padding is 0; the slack past the input holds values too.
        let x: Vec<T> = (0..cap)
            .map(|i| T::from32(if i < input && i % hwa >= h * w { 0.0 } else { uni(rng, -20.0, 20.0) }))
            .collect();
        let y0: Vec<T> = (0..cap).map(|_| T::from32(uni(rng, -5.0, 5.0))).collect();
        let gv: Vec<T> = (0..c).map(|_| T::from32(uni(rng, -3.0, 3.0))).collect();
        let bv: Vec<T> = (0..c).map(|_| T::from32(uni(rng, -3.0, 3.0))).collect();
        xt.copy_from_slice(&x);
        yt.copy_from_slice(&y0);
        gt.copy_from_slice(&gv);
        bt.copy_from_slice(&bv);
        macro_rules! go {
            ($reuse:literal) => {
                match tmp_bytes {
                    Some(b) => {
                        let k = q.get_with_offset::<u8>(b + SLACK, 2 * xb + 2 * mvb + 2 * gb);
                        group_norm::<T, $reuse>(&yt, &mt, &vt, &xt, &gt, &bt, &k, eps, &mut tiling)
                    }
                    None => group_norm_stack::<T, $reuse>(&yt, &mt, &vt, &xt, &gt, &bt, eps, &mut tiling),
                }
            };
        }
        if reuse {
            go!(true)
        } else {
            go!(false)
        }
        assert_eq!(tiling, before, "{ctx}: the tiling is restored");
        // The reference: the float buffers in one vector (the scratch views where the tiling
        // puts them, or view A on the input with isReuseSource).
        let tb = before.tmp_buf_size as usize;
        let f = |v: &[T]| v.iter().map(|e| e.to32()).collect::<Vec<f32>>();
        let mut words = vec![0.0f32; tb + SLACK / 4];
        let base = words.len();
        let (xo, oo, mo, vo, go_, bo);
        if half {
            (xo, oo, go_, bo) = (0, 0, 0, 0);
            (mo, vo) = (before.mean_tmp_tensor_pos as usize, before.variance_tmp_tensor_pos as usize);
        } else {
            xo = base;
            words.extend(f(&x));
            oo = words.len();
            words.extend(f(&y0));
            mo = words.len();
            vo = mo + n * g;
            go_ = vo + n * g;
            bo = go_ + c;
            words.extend(vec![0.0; 2 * n * g]);
            words.extend(f(&gv));
            words.extend(f(&bv));
        }
        let (a, b, cc) = if !half && reuse {
            (xo, before.first_tmp_start_pos as usize, before.second_tmp_start_pos as usize)
        } else {
            (
                before.first_tmp_start_pos as usize,
                before.second_tmp_start_pos as usize,
                before.third_tmp_start_pos as usize,
            )
        };
        let h16 = |v: &[T]| v.iter().map(|e| f16::from_f32(e.to32())).collect::<Vec<f16>>();
        let mut mem = Mem {
            m: words,
            hx: if half { h16(&x) } else { vec![] },
            ho: if half { h16(&y0) } else { vec![] },
            hg: if half { h16(&gv) } else { vec![] },
            hb: if half { h16(&bv) } else { vec![] },
            x: xo,
            o: oo,
            a,
            b,
            c: cc,
            mean: mo,
            var: vo,
            g: go_,
            be: bo,
        };
        mem.run(&before, half, eps.to32());
        let mv = n * g;
        let back = |v: &[f32]| v.iter().map(|&e| T::from32(e)).collect::<Vec<T>>();
        let (wy, wm, wv) = if half {
            let hy: Vec<T> = mem.ho.iter().map(|e| T::from32(e.to_f32())).collect();
            (hy, back(&mem.m[mo..mo + mv]), back(&mem.m[vo..vo + mv]))
        } else {
            (back(&mem.m[oo..oo + cap]), back(&mem.m[mo..mo + mv]), back(&mem.m[vo..vo + mv]))
        };
        assert_bits_ctx(&mt.to_vec(), &wm, format!("{ctx}: mean ({before:?})"));
        assert_bits_ctx(&vt.to_vec(), &wv, format!("{ctx}: variance"));
        assert_bits_ctx(&yt.to_vec(), &wy, format!("{ctx}: output"));
        let wx = if !half && reuse { back(&mem.m[xo..xo + cap]) } else { x.clone() };
        assert_bits_ctx(&xt.to_vec(), &wx, format!("{ctx}: inputX afterwards"));
        assert_eq!(get_mask_mode(), MaskMode::Normal, "{ctx}");
    });
}

fn sweep<T: GroupNormElement + Fp>(seed: u64, shapes: &[([usize; 4], usize)], reuse: bool) {
    let mut rng = Rng(seed);
    for &(shape, g) in shapes {
        let (max, min) = on(Soc::Ascend910B, || get_group_norm_max_min_tmp_size(&shape, T::SIZE, reuse, g));
        // For half the host also wants a round's view to hold the C widened gamma values,
        // which the minimum does not promise: the least buffer that gives a tiling.
        let min = if T::SIZE == 2 {
            let [n, c, h, w] = shape;
            let dhw = c / g * (h * w).next_multiple_of(16);
            min.max(4 * (2 * (n * g).next_multiple_of(8) + 3 * c.div_ceil(dhw) * dhw))
        } else {
            min
        };
        let mid = (min + 32 * (1 + rng.index((max - min) / 32 + 1))).min(max).min(48 * 1024);
        let least = if T::SIZE == 2 { Buf::Bytes(min) } else { Buf::Min };
        for buf in [least, Buf::Bytes(mid), Buf::Bytes(min + 4 * 32 + 96), Buf::Max, Buf::Stack] {
            case::<T>(shape, g, buf, reuse, &mut rng);
        }
    }
}

/// Small shapes (`hwAlignSize ≤ 64`, a group within `64 · k`): rows of 8 to 64, tails.
const SMALL: [([usize; 4], usize); 7] = [
    ([2, 8, 4, 2], 4),
    ([1, 4, 3, 3], 2),
    ([3, 6, 2, 5], 3),
    ([2, 16, 8, 8], 4),
    ([5, 12, 1, 7], 6),
    ([4, 32, 2, 2], 32),
    ([2, 3, 4, 4], 1),
];

/// General shapes (a row above 64 elements or a group above `64 · k`; at most 64 groups).
const GENERAL: [([usize; 4], usize); 6] = [
    ([2, 4, 9, 9], 2),
    ([1, 2, 16, 10], 1),
    ([3, 6, 10, 10], 3),
    ([2, 18, 4, 4], 2),
    ([4, 16, 9, 9], 16),
    ([1, 3, 20, 20], 3),
];

#[test]
fn float_small_shape() {
    sweep::<f32>(0x6a01, &SMALL, false);
}

#[test]
fn half_small_shape() {
    sweep::<f16>(0x6a02, &SMALL, false);
}

#[test]
fn float_general() {
    sweep::<f32>(0x6a03, &GENERAL, false);
}

#[test]
fn half_general() {
    sweep::<f16>(0x6a04, &GENERAL, false);
}

#[test]
fn float_reuse_source() {
    sweep::<f32>(0x6a05, &SMALL[..4], true);
    sweep::<f32>(0x6a06, &GENERAL[..3], true);
}

/// Tail rounds, each path and type: buffers of two groups a round for 9 groups, so the last
/// group is a tail (the half path's full-round casts, the small path's full-round repeats, the
/// float small path's zeroing of `output[inputTailPos + group]`).
#[test]
fn tail_rounds() {
    let mut rng = Rng(0x6a07);
    for (shape, bytes) in [([3, 6, 2, 5], 800), ([3, 6, 10, 10], 6000)] {
        let t = on(Soc::Ascend910B, || get_group_norm_nd_tiling_info(&shape, bytes, 4, false, 3));
        assert_eq!((t.bs_cur_length, t.loop_round, t.mean_var_tail_size), (2, 4, 1), "{shape:?}");
        case::<f32>(shape, 3, Buf::Bytes(bytes), false, &mut rng);
    }
    for (shape, bytes) in [([3, 6, 2, 5], 1000), ([3, 6, 10, 10], 6400)] {
        let t = on(Soc::Ascend910B, || get_group_norm_nd_tiling_info(&shape, bytes, 2, false, 3));
        assert_eq!((t.bs_cur_length, t.loop_round, t.mean_var_tail_size), (2, 4, 1), "{shape:?}");
        case::<f16>(shape, 3, Buf::Bytes(bytes), false, &mut rng);
    }
    let t = on(Soc::Ascend910B, || get_group_norm_nd_tiling_info(&[3, 6, 2, 5], 600, 4, true, 3));
    assert!(t.input_tail_size > 0);
    case::<f32>([3, 6, 2, 5], 3, Buf::Bytes(600), true, &mut rng);
}

/// The page's worked example (`[2, 8, 4, 2]`, 4 groups, `x = 0..128`, `gamma = beta = 0..8`):
/// its means and variances exactly, its outputs to the digits it prints (`epsilon` is not
/// printed; `1e-5` reproduces them).
#[test]
fn page_example() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (x, y, m, v, g, b) = (
            u.t::<f32>(0, 128),
            u.t::<f32>(512, 128),
            u.t::<f32>(1024, 8),
            u.t::<f32>(1056, 8),
            u.t::<f32>(1088, 8),
            u.t::<f32>(1120, 8),
        );
        let k = u.t::<u8>(2048, 1600);
        x.copy_from_slice(&(0..128).map(|v| v as f32).collect::<Vec<_>>());
        let r: Vec<f32> = (0..8).map(|v| v as f32).collect();
        g.copy_from_slice(&r);
        b.copy_from_slice(&r);
        let mut t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 1600, 4, false, 4);
        group_norm::<f32, false>(&y, &m, &v, &x, &g, &b, &k, 1e-5, &mut t);
        assert_eq!(m.to_vec(), [7.5, 23.5, 39.5, 55.5, 71.5, 87.5, 103.5, 119.5]);
        assert_eq!(v.to_vec(), [21.25; 8]);
        let printed: [[f32; 8]; 2] = [
            [1.1084652, 1.3253956, 1.542326, 1.7592564, 1.9761869, 2.1931171, 2.4100475, 2.6269782],
            [7.7592564, 9.277769, 10.796282, 12.314795, 13.833308, 15.351821, 16.870335, 18.388847],
        ];
        let y = y.to_vec();
        assert_eq!(&y[..8], &[0.0; 8]);
        for (row, want) in [(1, printed[0]), (7, printed[1]), (9, printed[0]), (15, printed[1])] {
            for j in 0..8 {
                let got = y[row * 8 + j];
                assert!((got - want[j]).abs() <= 2e-6 * want[j].abs().max(1.0), "row {row} col {j}: {got}");
            }
        }
    });
}

/// `GetGroupNormMaxMinTmpSize` and `GetGroupNormNDTilingInfo` as `groupnorm_tiling_impl.cpp`
/// computes them, worked by hand.
#[test]
fn host_sizes_and_tilings() {
    // (shape, typeSize, reuse, groups, (max, min)): k · rows · align32(hw · ts) / ts · 4 + 2 ·
    // align32(4 · n · g).
    for (shape, ts, reuse, g, want) in [
        ([2, 8, 4, 2], 4, false, 4, (3 * 16 * 32 + 64, 3 * 2 * 32 + 64)),
        ([2, 8, 4, 2], 4, true, 4, (2 * 16 * 32 + 64, 2 * 2 * 32 + 64)),
        ([2, 8, 4, 2], 2, true, 4, (3 * 16 * 64 + 64, 3 * 2 * 64 + 64)),
        ([1, 4, 3, 3], 4, false, 2, (3 * 4 * 64 + 64, 3 * 2 * 64 + 64)),
        ([3, 6, 10, 10], 2, false, 3, (3 * 18 * 448 + 128, 3 * 2 * 448 + 128)),
    ] {
        assert_eq!(get_group_norm_max_min_tmp_size(&shape, ts, reuse, g), want, "{shape:?} {ts} {reuse} {g}");
    }
    // float [2, 8, 4, 2], 4 groups, 256 bytes: 64 floats, 21 a view, one group (16) a round.
    let t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 256, 4, false, 4);
    let want = GroupNormTiling {
        n: 2,
        c: 8,
        hw: 8,
        g: 4,
        d: 2,
        hw_align_size: 8,
        dhw_align_size: 16,
        input_x_size: 128,
        mean_var_size: 8,
        number_of_tmp_buf: 3,
        mean_tmp_tensor_pos: 0,
        mean_tmp_tensor_size: 8,
        variance_tmp_tensor_pos: 8,
        variance_tmp_tensor_size: 8,
        tmp_buf_size: 64,
        one_tmp_size: 16,
        first_tmp_start_pos: 0,
        second_tmp_start_pos: 16,
        third_tmp_start_pos: 32,
        loop_round: 8,
        input_round_size: 16,
        input_tail_size: 0,
        input_tail_pos: 128,
        mean_var_round_size: 1,
        mean_var_tail_size: 0,
        mean_var_tail_pos: 8,
        bsh_cur_length: 16,
        bs_cur_length: 1,
        factor: 1.0 / 16.0,
        small_shape: 1,
    };
    assert_eq!(t, want);
    // half [1, 3, 20, 20], 3 groups, 4000 bytes: means and variances 8 floats each first, 984
    // floats left, 328 a view: 0 groups of 400 — but 1000 bytes more: 1234 / 3 = 411 → one
    // group of 400 a round (the general path: rows of 400), three rounds.
    let t = get_group_norm_nd_tiling_info(&[1, 3, 20, 20], 5000, 2, false, 3);
    assert_eq!(
        (t.hw_align_size, t.first_tmp_start_pos, t.one_tmp_size, t.loop_round, t.small_shape, t.factor),
        (400, 16, 400, 3, 0, 1.0 / 400.0)
    );
    // A tail: float [3, 6, 2, 5] with 3 groups (rows of 16, groups of 32), 640 bytes: 160
    // floats, 53 a view, one group a round — and 1000 bytes: 250 floats, 83 a view, two groups
    // a round, 9 groups: four rounds and a tail of one group at element 256.
    let t = get_group_norm_nd_tiling_info(&[3, 6, 2, 5], 1000, 4, false, 3);
    assert_eq!(
        (t.bs_cur_length, t.loop_round, t.input_tail_size, t.input_tail_pos, t.mean_var_tail_pos),
        (2, 4, 32, 256, 8)
    );
    for (f, words) in [
        (
            Box::new(|| {
                get_group_norm_max_min_tmp_size(&[2, 8, 4], 4, false, 4);
            }) as Box<dyn FnOnce()>,
            &["GetGroupNormMaxMinTmpSize", "should be 4 (e.g. [N, C, H, W])"][..],
        ),
        (
            Box::new(|| {
                get_group_norm_max_min_tmp_size(&[2, 8, 4, 2], 8, false, 4);
            }),
            &["typeSize = 8 is unsupported"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 4096, 4, false, 0);
            }),
            &["GetGroupNormNDTilingInfo", "groupNum must be greater than 0"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 4096, 4, false, 3);
            }),
            &["C = 8 is not a multiple of groupNum = 3"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 4096, 4, false, 16);
            }),
            &["groupNum = 16 exceeds C = 8"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 160, 4, false, 4);
            }),
            &["stackBufferSize = 160 bytes leaves no room for one group of 16 floats"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 32, 2, false, 4);
            }),
            &["fewer than the 16 of the half means and variances"],
        ),
        (
            Box::new(|| {
                get_group_norm_nd_tiling_info(&[1, 64, 1, 1], 1024, 2, false, 64);
            }),
            &["cannot hold the C = 64 widened gamma/beta values"],
        ),
    ] {
        expect_panic(f, words);
    }
}

/// A valid `float` call's tensors: `[2, 8, 4, 2]`, 4 groups (small shape) unless `general`
/// (`[1, 2, 16, 10]`, one group), buffer of `tmp` bytes (the minimum when 0).
struct Io {
    _u: util::Ub,
    x: LocalTensor<f32>,
    y: LocalTensor<f32>,
    m: LocalTensor<f32>,
    v: LocalTensor<f32>,
    g: LocalTensor<f32>,
    b: LocalTensor<f32>,
    k: LocalTensor<u8>,
    t: GroupNormTiling,
}

fn io(shape: [usize; 4], groups: usize, tmp: usize) -> Io {
    let u = ub(32 * 1024);
    let (_, min) = get_group_norm_max_min_tmp_size(&shape, 4, false, groups);
    let tmp = if tmp == 0 { min } else { tmp };
    let t = get_group_norm_nd_tiling_info(&shape, tmp, 4, false, groups);
    let n = t.input_x_size as usize;
    Io {
        x: u.t(0, n),
        y: u.t(8192, n),
        m: u.t(16384, t.mean_var_size as usize),
        v: u.t(16384 + 512, t.mean_var_size as usize),
        g: u.t(16384 + 1024, shape[1]),
        b: u.t(16384 + 2048, shape[1]),
        k: u.t(20480, tmp),
        t,
        _u: u,
    }
}

fn call(o: &mut Io) {
    group_norm::<f32, false>(&o.y, &o.m, &o.v, &o.x, &o.g, &o.b, &o.k, 1e-5, &mut o.t);
}

/// Every documented constraint and every vendor assert, with its message.
#[test]
fn errors() {
    let small = || io([2, 8, 4, 2], 4, 0);
    for soc in [Soc::Ascend310P, Soc::Ascend310B, Soc::Ascend910] {
        on(soc, || expect_panic(|| call(&mut small()), &["GroupNorm", &format!("{soc}")]));
    }
    on(Soc::Ascend910B, || {
        expect_panic(
            || {
                let mut o = small();
                o.t.loop_round += 1;
                call(&mut o);
            },
            &["GroupNorm", "the tiling is unset or inconsistent"],
        );
        expect_panic(
            || {
                let mut o = small();
                o.t = GroupNormTiling::default();
                call(&mut o);
            },
            &["the tiling is unset or inconsistent"],
        );
        expect_panic(
            || {
                let mut o = small();
                o.k = o.k.view_len(0, 64);
                call(&mut o);
            },
            &["sharedTmpBuffer has 64 bytes (16 floats)", "tmpBufSize"],
        );
        // The tiling made for two views (isReuseSource) called without it: the third view
        // would pass tmpBufSize.
        expect_panic(
            || {
                let mut o = io([2, 8, 4, 2], 4, 256);
                o.t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 256, 4, true, 4);
                call(&mut o);
            },
            &["thirdTmpStartPos + oneTmpSize is (", "should <= tmpBufSize"],
        );
        expect_panic(
            || {
                let o = small();
                let (x, m, v, g, b, k) = (
                    o.x.reinterpret_cast::<f16>(),
                    o.m.reinterpret_cast::<f16>(),
                    o.v.reinterpret_cast::<f16>(),
                    o.g.reinterpret_cast::<f16>(),
                    o.b.reinterpret_cast::<f16>(),
                    o.k.clone(),
                );
                let mut t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 4096, 2, false, 4);
                group_norm::<f16, true>(&x, &m, &v, &x, &g, &b, &k, f16::ZERO, &mut t);
            },
            &["isReuseSource = true is not supported for half"],
        );
        // The general path with more than 64 groups: [1, 65, 9, 9] in 65 groups.
        expect_panic(
            || {
                let u = ub(160 * 1024);
                let (_, min) = get_group_norm_max_min_tmp_size(&[1, 65, 9, 9], 4, false, 65);
                let mut t = get_group_norm_nd_tiling_info(&[1, 65, 9, 9], min, 4, false, 65);
                let n = t.input_x_size as usize;
                let f = |off: usize, len: usize| u.t::<f32>(off, len);
                let (x, y) = (f(0, n), f(4 * n, n));
                let (m, v, g, b) =
                    (f(8 * n, 96), f(8 * n + 512, 96), f(8 * n + 1024, 96), f(8 * n + 1536, 96));
                let k = u.t::<u8>(8 * n + 2048, min);
                group_norm::<f32, false>(&y, &m, &v, &x, &g, &b, &k, 1e-5, &mut t);
            },
            &["N * groupNum = 65 groups without smallShape", "1 << index"],
        );
        // The rstd step's lanes past the buffer: half [4, 32, 2, 2] in 32 groups, rounds of one
        // two groups (32 floats a view), 128 groups: lane 63 of view C (float 320) passes the
        // 352 floats.
        expect_panic(
            || {
                let u = ub(64 * 1024);
                let mut t = get_group_norm_nd_tiling_info(&[4, 32, 2, 2], 1408, 2, false, 32);
                assert_eq!(t.one_tmp_size, 32);
                let f = |off: usize, len: usize| u.t::<f16>(off, len);
                let (x, y) = (f(0, 2048), f(8192, 2048));
                let (m, v, g, b) = (f(16384, 128), f(16640, 128), f(16896, 32), f(16960, 32));
                let k = u.t::<u8>(20480, 1408);
                group_norm::<f16, false>(&y, &m, &v, &x, &g, &b, &k, f16::ZERO, &mut t);
            },
            &["GroupNorm", "writes lane", "past the buffer"],
        );
        // A tail round reads a full round: [3, 6, 2, 5] in 3 groups, 1000 bytes.
        expect_panic(
            || {
                let mut o = io([3, 6, 2, 5], 3, 1000);
                assert!(o.t.input_tail_size > 0);
                call(&mut o);
            },
            &["inputX has 288 elements; it must hold 320", "inputTailPos + inputRoundSize"],
        );
        for (name, f) in [
            ("outputMean", Box::new(|o: &mut Io| o.m = o.m.view_len(0, 7)) as Box<dyn Fn(&mut Io)>),
            ("outputVariance", Box::new(|o: &mut Io| o.v = o.v.view_len(0, 4))),
            ("gamma", Box::new(|o: &mut Io| o.g = o.g.view_len(0, 7))),
            ("beta", Box::new(|o: &mut Io| o.b = o.b.view_len(0, 1))),
            ("output", Box::new(|o: &mut Io| o.y = o.y.view_len(0, 127))),
            ("inputX", Box::new(|o: &mut Io| o.x = o.x.view_len(0, 100))),
        ] {
            expect_panic(
                || {
                    let mut o = small();
                    f(&mut o);
                    call(&mut o);
                },
                &["GroupNorm", &format!("{name} has "), "it must hold"],
            );
        }
        for (what, f) in [
            ("outputMean", Box::new(|o: &mut Io| o.m = o.y.view_len(120, 8)) as Box<dyn Fn(&mut Io)>),
            ("outputVariance", Box::new(|o: &mut Io| o.v = o.m.view_len(0, 8))),
            ("inputX", Box::new(|o: &mut Io| o.y = o.x.clone())),
            ("sharedTmpBuffer", Box::new(|o: &mut Io| o.g = o.k.reinterpret_cast::<f32>().view_len(0, 8))),
        ] {
            expect_panic(
                || {
                    let mut o = small();
                    f(&mut o);
                    call(&mut o);
                },
                &["GroupNorm", what, "overlap"],
            );
        }
        let msg = expect_panic(
            || {
                let mut pipe = TPipe::new();
                let (mut v, mut l1) = (TBuf::<VecCalc>::new(), TBuf::<A1>::new());
                pipe.init_tbuf(&mut v, 4096);
                pipe.init_tbuf(&mut l1, 1024);
                let f = |off: usize, n: usize| v.get_with_offset::<f32>(n, off);
                let far = l1.get_with_len::<f32>(8);
                let mut t = get_group_norm_nd_tiling_info(&[2, 8, 4, 2], 1024, 4, false, 4);
                let k = v.get_with_offset::<u8>(1024, 3072);
                group_norm::<f32, false>(
                    &f(512, 128),
                    &f(2048, 8),
                    &f(2080, 8),
                    &f(0, 128),
                    &far,
                    &f(2112, 8),
                    &k,
                    1e-5,
                    &mut t,
                );
            },
            &["gamma is at position A1"],
        );
        assert!(msg.contains("VECIN, VECOUT or VECCALC"), "{msg}");
    });
}
