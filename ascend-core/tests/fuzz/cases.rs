//! The cases of [`crate::every`]: one per public instruction, named after it. A case draws
//! random operands and parameters and runs the call through [`W::go`] with the bytes the
//! instruction may write.

use ascend_core::prelude::*;

use crate::every::{r, Case, W};

type Lt<T> = LocalTensor<T>;

/// A masked call: with `IS_SET_MASK = true` and the mask, or (one call in four) with the mask
/// register loaded first (`set_vector_mask`) and `MASK_PLACEHOLDER`.
macro_rules! masked {
    ($w:ident, $T:ty, $writes:expr, $f:ident::<$($g:ty),*>($($a:expr),* ; $($b:expr),*)) => {{
        let m = $w.mask::<$T>();
        let writes = $writes;
        if $w.rng.chance(4) {
            $w.go(&writes, || {
                set_vector_mask::<$T>(m);
                $f::<$($g,)* false>($($a,)* MASK_PLACEHOLDER, $($b),*)
            })
        } else {
            $w.go(&writes, || $f::<$($g,)* true>($($a,)* m, $($b),*))
        }
    }};
}

/// `dst` and `src`, `src` sometimes `dst` itself (in place).
fn pair<D: Element, S: Element>(w: &mut W) -> (Lt<D>, Lt<S>) {
    let d = w.t::<D>();
    let s = if D::SIZE == S::SIZE && w.rng.chance(5) { d.reinterpret_cast::<S>() } else { w.t::<S>() };
    (d, s)
}

/// `dst`, `src0`, `src1`; sometimes `dst` is `src0`.
fn triple<T: Element>(w: &mut W) -> (Lt<T>, Lt<T>, Lt<T>) {
    let (d, a) = pair::<T, T>(w);
    (d, a, w.t::<T>())
}

macro_rules! unary {
    ($v:ident, $T:ty: $($count:ident, $masked:ident;)*) => {$(
        $v.push((stringify!($count), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let n = w.cnt(&[&d, &s]);
            w.go(&[r(&d)], || $count(&d, &s, n));
        }));
        $v.push((stringify!($masked), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let (rep, p) = (w.rep(), w.up());
            masked!(w, $T, [r(&d)], $masked::<$T>(&d, &s; rep, &p));
        }));
    )*};
}

macro_rules! scalar {
    ($v:ident, $T:ty: $($count:ident, $masked:ident;)*) => {$(
        $v.push((stringify!($count), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let (n, x) = (w.cnt(&[&d, &s]), w.v::<$T>());
            w.go(&[r(&d)], || $count(&d, &s, x, n));
        }));
        $v.push((stringify!($masked), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let (rep, p, x) = (w.rep(), w.up(), w.v::<$T>());
            masked!(w, $T, [r(&d)], $masked::<$T>(&d, &s, x; rep, &p));
        }));
    )*};
}

macro_rules! binary {
    ($v:ident, $T:ty: $($count:ident, $masked:ident;)*) => {$(
        $v.push((stringify!($count), |w: &mut W| {
            let (d, a, b) = triple::<$T>(w);
            let n = w.cnt(&[&d, &a, &b]);
            w.go(&[r(&d)], || $count(&d, &a, &b, n));
        }));
        $v.push((stringify!($masked), |w: &mut W| {
            let (d, a, b) = triple::<$T>(w);
            let (rep, p) = (w.rep(), w.bp());
            masked!(w, $T, [r(&d)], $masked::<$T>(&d, &a, &b; rep, &p));
        }));
    )*};
}

macro_rules! compound {
    ($v:ident, $D:ty, $S:ty: $($count:ident, $masked:ident;)*) => {$(
        $v.push((stringify!($count), |w: &mut W| {
            let (d, a, b) = (w.t::<$D>(), w.t::<$S>(), w.t::<$S>());
            let n = w.n(&[d.get_size(), a.get_size(), b.get_size()]);
            w.go(&[r(&d)], || $count(&d, &a, &b, n));
        }));
        $v.push((stringify!($masked), |w: &mut W| {
            let (d, a, b) = (w.t::<$D>(), w.t::<$S>(), w.t::<$S>());
            let (rep, p) = (w.rep(), w.bp());
            masked!(w, $S, [r(&d)], $masked::<$D, $S>(&d, &a, &b; rep, &p));
        }));
    )*};
}

/// The per-repeat reductions `f(dst, src, mask, repeat, dst_rep_stride, src_blk_stride,
/// src_rep_stride)`.
macro_rules! per_repeat {
    ($v:ident, $T:ty: $($f:ident,)*) => {$(
        $v.push((stringify!($f), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let rep = w.rep();
            let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
            masked!(w, $T, [r(&d)], $f::<$T>(&d, &s; rep, a, b, c));
        }));
    )*};
}

/// The per-repeat reductions `f(dst, src, repeat, mask, dst_rep_stride, src_blk_stride,
/// src_rep_stride)`: the mask after the repeat count, a masked call written out.
macro_rules! per_repeat_rm {
    ($v:ident, $T:ty: $($f:ident,)*) => {$(
        $v.push((stringify!($f), |w: &mut W| {
            let (d, s) = pair::<$T, $T>(w);
            let rep = w.rep();
            let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
            let m = w.mask::<$T>();
            if w.rng.chance(4) {
                w.go(&[r(&d)], || {
                    set_vector_mask::<$T>(m);
                    $f::<$T, false>(&d, &s, rep, MASK_PLACEHOLDER, a, b, c)
                });
            } else {
                w.go(&[r(&d)], || $f::<$T, true>(&d, &s, rep, m, a, b, c));
            }
        }));
    )*};
}

fn order(w: &mut W) -> ReduceOrder {
    use ReduceOrder::*;
    [ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX][w.rng.index(4)]
}

fn rtype(w: &mut W) -> ReduceType {
    [ReduceType::SUM, ReduceType::MAX, ReduceType::MIN][w.rng.index(3)]
}

/// The vector instructions, data movement and the advanced API (on a vector core).
pub fn vector_cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    unary!(v, f32: exp, exp_masked; ln, ln_masked; abs, abs_masked; sqrt, sqrt_masked; rsqrt, rsqrt_masked;
        reciprocal, reciprocal_masked; relu, relu_masked;);
    unary!(v, i16: not, not_masked;);
    binary!(v, f32: add, add_masked; sub, sub_masked; mul, mul_masked; div, div_masked; max, max_masked;
        min, min_masked; add_relu, add_relu_masked; sub_relu, sub_relu_masked;);
    binary!(v, f16: mul_add_dst, mul_add_dst_masked; mul_add_relu, mul_add_relu_masked;
        fused_mul_add, fused_mul_add_masked;);
    binary!(v, u16: and, and_masked; or, or_masked;);
    scalar!(v, f32: adds, adds_masked; muls, muls_masked; maxs, maxs_masked; mins, mins_masked;
        leaky_relu, leaky_relu_masked; axpy, axpy_masked;);
    scalar!(v, u32: shift_left, shift_left_masked; shift_right, shift_right_masked;);
    v.push(("shift_right_round_masked", |w: &mut W| {
        let (d, s) = pair::<i16, i16>(w);
        let (rep, p, x, round) = (w.rep(), w.up(), w.small(8, 100) as i16, w.rng.chance(2));
        masked!(w, i16, [r(&d)], shift_right_round_masked::<i16>(&d, &s, x; rep, &p, round));
    }));
    compound!(v, f16, f32: add_relu_cast, add_relu_cast_masked; sub_relu_cast, sub_relu_cast_masked;);
    compound!(v, i8, f16: mul_cast, mul_cast_masked;);
    per_repeat!(v, f32: whole_reduce_sum,);
    per_repeat_rm!(v, f16: block_reduce_sum, block_reduce_max, block_reduce_min, pair_reduce_sum,);
    v.push(("reduce_repeat", |w: &mut W| {
        let (d, s) = pair::<f32, f32>(w);
        let (rep, ty, o) = (w.rep(), rtype(w), order(w));
        let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
        masked!(w, f32, [r(&d)], reduce_repeat::<f32>(ty, &d, &s; rep, a, b, c, o));
    }));
    v.push(("reduce_data_block", |w: &mut W| {
        let (d, s) = pair::<f16, f16>(w);
        let (rep, ty) = (w.rep(), rtype(w));
        let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
        masked!(w, f16, [r(&d)], reduce_data_block::<f16>(ty, &d, &s; rep, a, b, c));
    }));
    v.push(("reduce_pair_elem", |w: &mut W| {
        let (d, s) = pair::<f32, f32>(w);
        let (rep, ty) = (w.rep(), rtype(w));
        let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
        masked!(w, f32, [r(&d)], reduce_pair_elem::<f32>(ty, &d, &s; rep, a, b, c));
    }));
    vector_more(&mut v);
    v
}

fn rm(w: &mut W) -> RoundMode {
    use RoundMode::*;
    if w.rng.chance(2) {
        return CastNone;
    }
    [CastNone, CastRint, CastFloor, CastCeil, CastRound, CastTrunc, CastOdd][w.rng.index(7)]
}

fn cmp(w: &mut W) -> CMPMODE {
    [CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE][w.rng.index(6)]
}

fn sel(w: &mut W) -> SelMode {
    if w.rng.chance(2) {
        return SelMode::VselTensorScalarMode;
    }
    [SelMode::VselCmpmaskSpr, SelMode::VselTensorScalarMode, SelMode::VselTensorTensorMode][w.rng.index(3)]
}

fn vector_more(v: &mut Vec<Case>) {
    v.push(("cast", |w: &mut W| {
        let (d, s, m) = (w.t::<f16>(), w.t::<f32>(), rm(w));
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d)], || cast(&d, &s, m, n));
    }));
    v.push(("cast_masked", |w: &mut W| {
        let (d, s, mode, rep, p) = (w.t::<f32>(), w.t::<f16>(), rm(w), w.rep(), w.up());
        masked!(w, f32, [r(&d)], cast_masked::<f32, f16>(&d, &s, mode; rep, &p));
    }));
    v.push(("compare", |w: &mut W| {
        let (d, a, b, m) = (w.t::<u8>(), w.t::<f32>(), w.t::<f32>(), cmp(w));
        let n = w.cnt(&[&a, &b]);
        w.go(&[r(&d)], || compare(&d, &a, &b, m, n));
    }));
    v.push(("compare_masked", |w: &mut W| {
        let (d, a, b, m, rep, p) = (w.t::<u8>(), w.t::<f16>(), w.t::<f16>(), cmp(w), w.rep(), w.bp());
        masked!(w, f16, [r(&d)], compare_masked::<f16>(&d, &a, &b, m; rep, &p));
    }));
    v.push(("compare_scalar", |w: &mut W| {
        let (d, a, x, m) = (w.t::<u8>(), w.t::<f32>(), w.v::<f32>(), cmp(w));
        let n = w.cnt(&[&a]);
        w.go(&[r(&d)], || compare_scalar(&d, &a, x, m, n));
    }));
    v.push(("compare_scalar_masked", |w: &mut W| {
        let (d, a, x, m, rep, p) = (w.t::<u8>(), w.t::<f32>(), w.v::<f32>(), cmp(w), w.rep(), w.up());
        masked!(w, f32, [r(&d)], compare_scalar_masked::<f32>(&d, &a, x, m; rep, &p));
    }));
    v.push(("compare_reg", |w: &mut W| {
        let (a, b, m, p) = (w.t::<f32>(), w.t::<f32>(), cmp(w), w.bp());
        masked!(w, f32, [], compare_reg::<f32>(&a, &b, m; &p));
    }));
    v.push(("copy_masked", |w: &mut W| {
        let (d, s) = pair::<u16, u16>(w);
        let p = CopyRepeatParams::new(
            w.small(3, 65535) as u16,
            w.small(3, 65535) as u16,
            w.small(10, 65535) as u16,
            w.small(10, 65535) as u16,
        );
        let rep = w.rep();
        masked!(w, u16, [r(&d)], copy_masked::<u16>(&d, &s; rep, &p));
    }));
    v.push(("create_vec_index", |w: &mut W| {
        let (d, x) = (w.t::<f32>(), w.v::<f32>());
        let n = w.cnt(&[&d]) as u32;
        w.go(&[r(&d)], || create_vec_index(&d, x, n));
    }));
    v.push(("create_vec_index_masked", |w: &mut W| {
        let (d, x, rep, b, rs) =
            (w.t::<i32>(), w.v::<i32>(), w.rep(), w.small(3, 65535) as u16, w.small(10, 255) as u8);
        masked!(w, i32, [r(&d)], create_vec_index_masked::<i32>(&d, x; rep, b, rs));
    }));
    v.push(("duplicate", |w: &mut W| {
        let (d, x) = (w.t::<f16>(), w.v::<f16>());
        let n = w.cnt(&[&d]);
        w.go(&[r(&d)], || duplicate(&d, x, n));
    }));
    v.push(("duplicate_masked", |w: &mut W| {
        let (d, x, rep, b, rs) =
            (w.t::<f32>(), w.v::<f32>(), w.rep(), w.small(3, 65535) as u16, w.small(10, 255) as u8);
        masked!(w, f32, [r(&d)], duplicate_masked::<f32>(&d, x; rep, b, rs));
    }));
    v.push(("brcb", |w: &mut W| {
        let (d, s) = pair::<u32, u32>(w);
        let p = BrcbRepeatParams::new(w.small(3, 65535) as u16, w.small(10, 65535) as u16);
        let rep = w.rep();
        w.go(&[r(&d)], || brcb(&d, &s, rep, &p));
    }));
    v.push(("gather", |w: &mut W| {
        let (d, s, o) = (w.t::<f32>(), w.t::<f32>(), w.t::<u32>());
        offsets(w, &o, s.get_length());
        let (base, n) = (w.small(2, 1 << 20) as u32 * 32, w.cnt(&[&d]) as u32);
        w.go(&[r(&d)], || gather(&d, &s, &o, base, n));
    }));
    v.push(("gather_masked", |w: &mut W| {
        let (d, s, o) = (w.t::<u16>(), w.t::<u16>(), w.t::<u32>());
        offsets(w, &o, s.get_length());
        let (base, rep, rs) = (w.small(2, 1 << 20) as u32 * 2, w.rep(), w.small(10, 65535) as u16);
        let m = w.mask::<u16>();
        w.go(&[r(&d)], || gather_masked(&d, &s, &o, base, m, rep, rs));
    }));
    v.push(("gatherb", |w: &mut W| {
        let (d, s, o) = (w.t::<u32>(), w.t::<u32>(), w.t::<u32>());
        offsets(w, &o, s.get_length());
        let p = GatherRepeatParams::new(w.small(3, 255) as u8, w.small(10, 65535) as u16);
        let rep = w.rep();
        w.go(&[r(&d)], || gatherb(&d, &s, &o, rep, &p));
    }));
    v.push(("gather_mask", |w: &mut W| {
        let (d, s, pat) = (w.t::<u32>(), w.t::<u32>(), w.t::<u32>());
        let p = GatherMaskParams::new(
            w.small(3, 255) as u8,
            w.small(8, 65535) as u16,
            w.small(10, 65535) as u16,
            w.small(10, 255) as u8,
        );
        let (reduce, m) = (w.rng.chance(2), w.small(200, u32::MAX as u64) as u32);
        if w.rng.chance(2) {
            let fixed = w.small(8, 255) as u8;
            w.go(&[r(&d)], || {
                gather_mask(&d, &s, GatherPattern::<u32>::Fixed(fixed), reduce, m, &p);
            });
        } else {
            w.go(&[r(&d)], || {
                gather_mask(&d, &s, GatherPattern::Tensor(&pat), reduce, m, &p);
            });
        }
    }));
    v.push(("vec_reduce_add", |w: &mut W| {
        let (d, s, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>());
        let (rep, st, m) = (w.small(40, 65535) as u16, w.small(10, 65535) as u16, w.mask::<f32>());
        w.go(&[r(&d), r(&k)], || vec_reduce_add(m, &d, &s, &k, rep, st));
    }));
    v.push(("repeat_reduce_sum", |w: &mut W| {
        let (d, s) = pair::<f16, f16>(w);
        let rep = w.rep();
        let m = w.small(129, u64::MAX);
        let st: Vec<u16> = (0..4).map(|_| w.small(9, 65535) as u16).collect();
        if w.rng.chance(4) {
            w.go(&[r(&d)], || {
                set_vector_mask::<f16>(m);
                repeat_reduce_sum::<f16, false>(&d, &s, rep, m, st[0], st[1], st[2], st[3])
            });
        } else {
            w.go(&[r(&d)], || repeat_reduce_sum::<f16, true>(&d, &s, rep, m, st[0], st[1], st[2], st[3]));
        }
    }));
    v.push(("whole_reduce_max", |w: &mut W| {
        let (d, s) = pair::<f32, f32>(w);
        let rep = w.rep();
        let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
        let order = order(w);
        masked!(w, f32, [r(&d)], whole_reduce_max::<f32>(&d, &s; rep, a, b, c, order));
    }));
    v.push(("whole_reduce_min", |w: &mut W| {
        let (d, s) = pair::<f16, f16>(w);
        let rep = w.rep();
        let (a, b, c) = (w.small(9, 65535) as u16, w.small(3, 65535) as u16, w.small(9, 65535) as u16);
        let order = order(w);
        masked!(w, f16, [r(&d)], whole_reduce_min::<f16>(&d, &s; rep, a, b, c, order));
    }));
    v.push(("reduce_sum_masked", |w: &mut W| {
        let (d, s, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>());
        let (rep, st, m) = (w.small(40, 300) as i32 - 2, w.small(10, 70000) as i32, w.mask::<f32>());
        w.go(&[r(&d), r(&k)], || reduce_sum_masked(&d, &s, &k, m, rep, st));
    }));
    v.push(("reduce_sum", |w: &mut W| {
        let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
        let n = w.cnt(&[&s]) as i32 - w.rng.below(2) as i32;
        w.go(&[r(&d), r(&k)], || reduce_sum(&d, &s, &k, n));
    }));
    v.push(("reduce_max_masked", |w: &mut W| {
        let (d, s, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>());
        let (rep, st, m, idx) =
            (w.small(40, 300) as i32 - 2, w.small(10, 70000) as i32, w.mask::<f32>(), w.rng.chance(2));
        w.go(&[r(&d), r(&k)], || reduce_max_masked(&d, &s, &k, m, rep, st, idx));
    }));
    v.push(("reduce_max", |w: &mut W| {
        let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
        let (n, idx) = (w.cnt(&[&s]) as i32, w.rng.chance(2));
        w.go(&[r(&d), r(&k)], || reduce_max(&d, &s, &k, n, idx));
    }));
    v.push(("reduce_min_masked", |w: &mut W| {
        let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.t::<f16>());
        let (rep, st, m, idx) =
            (w.small(40, 300) as i32 - 2, w.small(10, 70000) as i32, w.mask::<f16>(), w.rng.chance(2));
        w.go(&[r(&d), r(&k)], || reduce_min_masked(&d, &s, &k, m, rep, st, idx));
    }));
    v.push(("reduce_min", |w: &mut W| {
        let (d, s, k) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>());
        let (n, idx) = (w.cnt(&[&s]) as i32, w.rng.chance(2));
        w.go(&[r(&d), r(&k)], || reduce_min(&d, &s, &k, n, idx));
    }));
    v.push(("select", |w: &mut W| {
        let (d, m, a, b, mode) = (w.t::<f32>(), w.t::<u8>(), w.t::<f32>(), w.t::<f32>(), sel(w));
        let n = w.cnt(&[&d, &a, &b]);
        w.go(&[r(&d)], || select(&d, &m, &a, &b, mode, n));
    }));
    v.push(("select_scalar", |w: &mut W| {
        let (d, m, a, x, mode) = (w.t::<f16>(), w.t::<u16>(), w.t::<f16>(), w.v::<f16>(), sel(w));
        let n = w.cnt(&[&d, &a]);
        w.go(&[r(&d)], || select_scalar(&d, &m, &a, x, mode, n));
    }));
    v.push(("select_masked", |w: &mut W| {
        let (d, m, a, b, mode, rep, p) =
            (w.t::<f16>(), w.t::<u8>(), w.t::<f16>(), w.t::<f16>(), sel(w), w.rep(), w.bp());
        masked!(w, f16, [r(&d)], select_masked::<f16, u8>(&d, &m, &a, &b, mode; rep, &p));
    }));
    v.push(("select_scalar_masked", |w: &mut W| {
        let (d, m, a, x, mode, rep, p) =
            (w.t::<f32>(), w.t::<u8>(), w.t::<f32>(), w.v::<f32>(), sel(w), w.rep(), w.bp());
        masked!(w, f32, [r(&d)], select_scalar_masked::<f32, u8>(&d, &m, &a, x, mode; rep, &p));
    }));
    v.push(("select_reg", |w: &mut W| {
        let (d, a, b, rep, p) = (w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.rep(), w.bp());
        if w.rng.chance(2) {
            w.go(&[r(&d)], || select_reg::<f32, 0>(&d, &a, &b, rep, &p));
        } else {
            w.go(&[r(&d)], || select_reg::<f32, 2>(&d, &a, &b, rep, &p));
        }
    }));
    v.push(("select_scalar_reg", |w: &mut W| {
        let (d, m, a, rep, p) = (w.t::<f16>(), w.t::<u8>(), w.t::<f16>(), w.rep(), w.bp());
        w.go(&[r(&d)], || select_scalar_reg(&d, &m, &a, rep, &p));
    }));
    v.push(("set_cmp_mask", |w: &mut W| {
        let s = w.t::<u8>();
        w.go(&[], || set_cmp_mask(&s));
    }));
    v.push(("get_cmp_mask_local", |w: &mut W| {
        let d = w.t::<u16>();
        w.go(&[r(&d)], || get_cmp_mask_local(&d));
    }));
    v.push(("axpy_mixed", |w: &mut W| {
        let (d, s, x) = (w.t::<f32>(), w.t::<f16>(), w.v::<f16>());
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d)], || axpy_mixed(&d, &s, x, n));
    }));
    v.push(("axpy_mixed_masked", |w: &mut W| {
        let (d, s, x, rep, p) = (w.t::<f32>(), w.t::<f16>(), w.v::<f16>(), w.rep(), w.up());
        let m = w.mask::<f32>();
        if w.rng.chance(4) {
            w.go(&[r(&d)], || {
                set_vector_mask::<f32>(m);
                axpy_mixed_masked::<false>(&d, &s, x, MASK_PLACEHOLDER, rep, &p)
            });
        } else {
            w.go(&[r(&d)], || axpy_mixed_masked::<true>(&d, &s, x, m, rep, &p));
        }
    }));
    v.push(("mul_add_dst_mixed", |w: &mut W| {
        let (d, a, b) = (w.t::<f32>(), w.t::<f16>(), w.t::<f16>());
        let n = w.n(&[d.get_size(), a.get_size(), b.get_size()]);
        w.go(&[r(&d)], || mul_add_dst_mixed(&d, &a, &b, n));
    }));
    v.push(("mul_add_dst_mixed_masked", |w: &mut W| {
        let (d, a, b, rep, p) = (w.t::<f32>(), w.t::<f16>(), w.t::<f16>(), w.rep(), w.bp());
        let m = w.mask::<f32>();
        w.go(&[r(&d)], || mul_add_dst_mixed_masked::<true>(&d, &a, &b, m, rep, &p));
    }));
    v.push(("add_deq_relu", |w: &mut W| {
        let (d, a, b) = (w.t::<f16>(), w.t::<i32>(), w.t::<i32>());
        let n = w.n(&[d.get_size(), a.get_size(), b.get_size()]);
        let sc = f16::from_f32(0.5);
        w.go(&[r(&d)], || {
            set_deq_scale(sc);
            add_deq_relu(&d, &a, &b, n)
        });
    }));
    v.push(("add_deq_relu_masked", |w: &mut W| {
        let (d, a, b, rep, p) = (w.t::<f16>(), w.t::<i32>(), w.t::<i32>(), w.rep(), w.bp());
        let m = w.mask::<i32>();
        w.go(&[r(&d)], || {
            set_deq_scale(f16::ONE);
            add_deq_relu_masked::<true>(&d, &a, &b, m, rep, &p)
        });
    }));
    v.push(("cast_dequant", |w: &mut W| {
        let (d, s) = (w.t::<f16>(), w.t::<i32>());
        let n = w.n(&[d.get_size(), s.get_size()]);
        w.go(&[r(&d)], || {
            set_deq_scale(f16::ONE);
            cast_dequant::<f16, i32, false, false>(&d, &s, n)
        });
    }));
    v.push(("cast_dequant_masked", |w: &mut W| {
        let (d, s, rep, p) = (w.t::<i8>(), w.t::<i16>(), w.rep(), w.up());
        let m = w.mask::<i16>();
        w.go(&[r(&d)], || {
            set_deq_scale_quant(0.5, 3, true);
            cast_dequant_masked::<i8, i16, true, false, true>(&d, &s, m, rep, &p)
        });
    }));
    v.push(("set_deq_scale_vdeq", |w: &mut W| {
        let s = w.t::<u64>();
        let info = VdeqInfo::new([1.0; 16], [0; 16], [false; 16]);
        w.go(&[r(&s)], || set_deq_scale_vdeq(&s, &info));
    }));
    v.push(("bilinear_interpolation", |w: &mut W| {
        let (d, a, o, b, k) = (w.t::<f16>(), w.t::<f16>(), w.t::<u32>(), w.t::<f16>(), w.tmp());
        offsets(w, &o, a.get_length());
        let m = w.mask::<f16>();
        let (h, mode, bs, vr, vrep) = (
            w.small(4, 255) as u8,
            w.rng.chance(2),
            w.small(3, 65535) as u16,
            (128 + w.small(10, 4000) * 16) as u16,
            w.small(4, 255) as u8,
        );
        w.go(&[r(&d), r(&k)], || bilinear_interpolation(&d, &a, &o, &b, m, h, mode, bs, vr, vrep, &k));
    }));
    sort_cases(v);
    transpose_cases(v);
    copy_cases(v);
    crate::adv_cases::adv_cases(v);
}

/// Fills an offset tensor with byte offsets mostly within `bytes` (element aligned), a few anywhere.
fn offsets(w: &mut W, o: &Lt<u32>, bytes: usize) {
    let vals: Vec<u32> = (0..o.get_size())
        .map(|_| if w.rng.chance(50) { w.rng.next() as u32 } else { (w.rng.index(bytes / 4 + 1) * 4) as u32 })
        .collect();
    // The offsets are an input: written before the call, not by it.
    o.copy_from_slice(&vals);
}

fn sort_cases(v: &mut Vec<Case>) {
    v.push(("sort32", |w: &mut W| {
        let (d, s, i) = (w.t::<f32>(), w.t::<f32>(), w.t::<u32>());
        let rep = w.small(10, 300) as i32 - 1;
        w.go(&[r(&d)], || sort32(&d, &s, &i, rep));
    }));
    v.push(("mrg_sort", |w: &mut W| merge(w, false)));
}

fn merge(w: &mut W, four: bool) {
    let d = w.t::<f32>();
    let srcs = [w.t::<f32>(), w.t::<f32>(), w.t::<f32>(), w.t::<f32>()];
    let lens = [0; 4].map(|_| w.small(64, 65535) as u16);
    let valid = if w.rng.chance(4) { w.small(16, 65535) as u16 } else { [3, 7, 15][w.rng.index(3)] };
    let p = MrgSort4Info::new(lens, w.rng.chance(2), valid, w.small(3, 255) as u8);
    let list = MrgSortSrcList::new(&srcs[0], &srcs[1], &srcs[2], &srcs[3]);
    if four {
        w.go(&[r(&d)], || mrg_sort4(&d, &list, &p));
    } else {
        w.go(&[r(&d)], || mrg_sort(&d, &list, &p));
    }
}

fn transpose_cases(v: &mut Vec<Case>) {
    v.push(("transpose", |w: &mut W| {
        let (d, s) = pair::<u16, u16>(w);
        w.go(&[r(&d)], || transpose(&d, &s));
    }));
    v.push(("vec_trans", |w: &mut W| {
        let (d, s) = (w.tn::<f16>(2048), w.tn::<f16>(2048));
        let (rep, a, b) = (w.small(20, 65535) as u16, w.small(4, 65535) as u16, w.small(4, 65535) as u16);
        w.go(&[r(&d)], || vec_trans(&d, &s, rep, a, b));
    }));
    v.push(("transpose_ext", |w: &mut W| {
        let (d, s, k) = (w.t::<f16>(), w.t::<f16>(), w.tmp());
        let ty = [
            TransposeType::TRANSPOSE_NCHW2NHWC,
            TransposeType::TRANSPOSE_NHWC2NCHW,
            TransposeType::TRANSPOSE_ND2ND_B16,
            TransposeType::TRANSPOSE_TYPE_NONE,
        ][w.rng.index(4)];
        let dims = [0; 4].map(|_| if w.rng.chance(2) { 16 } else { w.small(5, 65535) as u16 });
        let p = TransposeParamsExt::new(dims[0], dims[1], dims[2], dims[3], ty);
        w.go(&[r(&d), r(&k)], || transpose_ext(&d, &s, &k, &p));
    }));
    fn p5(w: &mut W) -> TransDataTo5HDParams {
        TransDataTo5HDParams::new(
            w.rng.chance(2),
            w.rng.chance(2),
            w.small(4, 255) as u8,
            w.small(20, 65535) as u16,
            w.small(20, 65535) as u16,
        )
    }
    v.push(("trans_data_to_5hd", |w: &mut W| {
        let d: [Lt<f16>; 16] = std::array::from_fn(|_| w.tn::<f16>(256));
        let s: [Lt<f16>; 16] = std::array::from_fn(|_| w.tn::<f16>(256));
        let p = p5(w);
        let writes: Vec<_> = d.iter().map(r).collect();
        w.go(&writes, || trans_data_to_5hd(&d, &s, &p));
    }));
    v.push(("trans_data_to_5hd_addr", |w: &mut W| {
        let d: [Lt<f16>; 16] = std::array::from_fn(|_| w.t::<f16>());
        let s: [Lt<f16>; 16] = std::array::from_fn(|_| w.t::<f16>());
        let da = d.clone().map(|t| t.get_phy_addr() as u64);
        let sa =
            s.clone()
                .map(|t| if w.rng.chance(400) { w.rng.next() } else { t.get_phy_addr() as u64 / 32 * 32 });
        let da = da.map(|a| a / 32 * 32);
        let p = p5(w);
        w.go(&dst_blocks(&da, &p), || trans_data_to_5hd_addr::<f16>(&da, &sa, &p));
    }));
    v.push(("trans_data_to_5hd_addr_tensor", |w: &mut W| {
        // The address tensors are rewritten in place (packed, pipe S) before the instruction's
        // own checks, as the vendor's: a failing call may have rewritten them.
        w.lenient = true;
        let (d, s) = (w.t::<u64>(), w.t::<u64>());
        let da: Vec<u64> = (0..d.get_size()).map(|_| (w.rng.index(SPAN_ALL / 32) * 32) as u64).collect();
        let sa: Vec<u64> = (0..s.get_size()).map(|_| (w.rng.index(SPAN_ALL / 32) * 32) as u64).collect();
        d.copy_from_slice(&da);
        s.copy_from_slice(&sa);
        let p = p5(w);
        let mut spans = dst_blocks(&da[..da.len().min(16)], &p);
        spans.extend([r(&d), r(&s)]);
        w.go(&spans, || trans_data_to_5hd_addr_tensor::<f16>(&d, &s, &p));
    }));
}

/// The span the address forms' random addresses point into.
const SPAN_ALL: usize = 32 * 1024;

/// The `half` blocks `TransDataTo5HD` writes through the addresses `da`: each address moved by
/// the repeat stride per repeat (by one stride for a single repeat, the vendor's rule), 32
/// bytes each, merged into sorted spans.
fn dst_blocks(da: &[u64], p: &TransDataTo5HDParams) -> Vec<crate::every::Span> {
    let (reps, ds) = (usize::from(p.repeat_times), usize::from(p.dst_rep_stride));
    let mut spans: Vec<crate::every::Span> = Vec::new();
    for &a in da {
        for k in 0..reps {
            let lo = a as usize + if reps == 1 { ds } else { k * ds } * 32;
            spans.push((lo, lo + 32));
        }
    }
    spans.sort_unstable();
    spans.dedup_by(|next, prev| {
        let meets = next.0 <= prev.1;
        if meets {
            prev.1 = prev.1.max(next.1);
        }
        meets
    });
    spans
}

fn copy_cases(v: &mut Vec<Case>) {
    fn dcp(w: &mut W) -> DataCopyParams {
        DataCopyParams::new(
            if w.rng.chance(10) { w.rng.next() as u16 } else { w.rng.below(8) as u16 },
            w.small(6, 65535) as u16,
            w.small(4, 65535) as u16,
            w.small(4, 65535) as u16,
        )
    }
    v.push(("data_copy", |w: &mut W| {
        let (g, gr) = w.g::<i32>();
        let (u, x) = (w.t::<i32>(), w.t::<i32>());
        let n = w.n(&[u.get_size(), g.get_size()]) / 8 * 8;
        match w.rng.below(3) {
            0 => w.go(&[r(&u)], || data_copy(&u, &g, n)),
            1 => w.go_in(&[&[]], &[gr], || data_copy(&g, &u, n)),
            _ => w.go(&[r(&u)], || data_copy(&u, &x, n)),
        }
    }));
    v.push(("data_copy_params", |w: &mut W| {
        let (g, gr) = w.g::<f16>();
        let (u, x, p) = (w.t::<f16>(), w.t::<f16>(), dcp(w));
        match w.rng.below(3) {
            0 => w.go(&[r(&u)], || data_copy_params(&u, &g, &p)),
            1 => w.go_in(&[&[]], &[gr], || data_copy_params(&g, &u, &p)),
            _ => w.go(&[r(&u)], || data_copy_params(&u, &x, &p)),
        }
    }));
    fn ext(w: &mut W) -> DataCopyExtParams {
        DataCopyExtParams::new(
            w.small(6, 65535) as u16,
            if w.rng.chance(8) { w.rng.next() as u32 } else { w.rng.below(300) as u32 },
            w.small(100, u32::MAX as u64) as u32,
            w.small(4, u32::MAX as u64) as u32,
        )
    }
    v.push(("data_copy_pad", |w: &mut W| {
        let (g, _) = w.g::<f16>();
        let (u, p) = (w.t::<f16>(), ext(w));
        let pad = DataCopyPadExtParams::new(
            w.rng.chance(2),
            w.small(20, 255) as u8,
            w.small(20, 255) as u8,
            f16::ONE,
        );
        w.go(&[r(&u)], || data_copy_pad(&u, &g, &p, &pad));
    }));
    v.push(("data_copy_pad_to_gm", |w: &mut W| {
        let (g, gr) = w.g::<f32>();
        let (u, p) = (w.t::<f32>(), ext(w));
        w.go_in(&[&[]], &[gr], || data_copy_pad_to_gm(&g, &u, &p));
    }));
    v.push(("data_copy_pad_params", |w: &mut W| {
        let (g, _) = w.g::<u16>();
        let (u, p) = (w.t::<u16>(), dcp(w));
        let pad = DataCopyPadParams::new(w.rng.chance(2), w.small(20, 255) as u8, w.small(20, 255) as u8, 7);
        w.go(&[r(&u)], || data_copy_pad_params(&u, &g, &p, &pad));
    }));
    v.push(("data_copy_pad_params_to_gm", |w: &mut W| {
        let (g, gr) = w.g::<u16>();
        let (u, p) = (w.t::<u16>(), dcp(w));
        w.go_in(&[&[]], &[gr], || data_copy_pad_params_to_gm(&g, &u, &p));
    }));
    v.push(("data_copy_slice", |w: &mut W| {
        let (g, gr) = w.g::<f32>();
        let u = w.t::<f32>();
        let dim = w.small(3, 10) as u32 + 1;
        let mut info = || {
            (0..if w.rng.chance(8) { w.small(3, 9) } else { dim as u64 } as usize)
                .map(|i| {
                    let (s, len) = (w.small(8, 1000) as u32, w.small(16, 1000) as u32 + 1);
                    let burst = if i == 0 { 8 * w.rng.range(1, 4) as u32 } else { w.small(3, 100) as u32 };
                    SliceInfo::new(
                        s,
                        s + len - 1,
                        w.small(3, 100) as u32,
                        burst,
                        s + len + w.small(16, 5000) as u32,
                    )
                })
                .collect::<Vec<_>>()
        };
        let (di, si) = (info(), info());
        if w.rng.chance(2) {
            w.go(&[r(&u)], || data_copy_slice(&u, &g, &di, &si, dim));
        } else {
            w.go_in(&[&[]], &[gr], || data_copy_slice(&g, &u, &di, &si, dim));
        }
    }));
    v.push(("data_copy_tail", |w: &mut W| {
        let (g, gr) = w.g::<f16>();
        let u = w.t::<f16>();
        let n = w.n(&[u.get_size(), g.get_size()]);
        if w.rng.chance(2) {
            w.go(&[r(&u)], || data_copy_tail(&u, &g, n));
        } else {
            w.go_in(&[&[]], &[gr], || data_copy_tail(&g, &u, n));
        }
    }));
}

/// The instructions of the older chips (`Scatter`, the proposal sorts, `MrgSort4`), on an
/// Ascend310P vector core.
pub fn ascend310p_cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    v.push(("scatter", |w: &mut W| {
        let (d, s, o) = (w.t::<u16>(), w.t::<u16>(), w.t::<u32>());
        offsets(w, &o, d.get_length());
        let (base, n) = (w.small(2, 1 << 20) as u32 * 4, w.cnt(&[&s]) as u32);
        w.go(&[r(&d)], || scatter(&d, &s, &o, base, n));
    }));
    v.push(("scatter_masked", |w: &mut W| {
        let (d, s, o) = (w.t::<f32>(), w.t::<f32>(), w.t::<u32>());
        offsets(w, &o, d.get_length());
        let (base, rep, rs) = (w.small(2, 1 << 20) as u32 * 4, w.rep(), w.small(10, 255) as u8);
        let m = w.mask::<f32>();
        w.go(&[r(&d)], || scatter_masked(&d, &s, &o, base, m, rep, rs));
    }));
    v.push(("rp_sort16", |w: &mut W| {
        let (d, s) = pair::<f16, f16>(w);
        let rep = w.small(10, 300) as i32 - 1;
        w.go(&[r(&d)], || rp_sort16(&d, &s, rep));
    }));
    v.push(("proposal_concat", |w: &mut W| {
        let (d, s) = pair::<f16, f16>(w);
        let (rep, mode) = (w.small(10, 300) as i32 - 1, w.small(7, 10) as i32 - 1);
        w.go(&[r(&d)], || proposal_concat(&d, &s, rep, mode));
    }));
    v.push(("proposal_extract", |w: &mut W| {
        let (d, s) = pair::<f32, f32>(w);
        let (rep, mode) = (w.small(10, 300) as i32 - 1, w.small(7, 10) as i32 - 1);
        w.go(&[r(&d)], || proposal_extract(&d, &s, rep, mode));
    }));
    v.push(("mrg_sort4", |w: &mut W| merge(w, true)));
    v
}

/// The cube path (on a cube core): `DataCopy` ND → NZ into L1, `LoadData`, `Mmad`, `Fixpipe`.
pub fn cube_cases() -> Vec<Case> {
    crate::adv_cases::cube(Vec::new())
}
