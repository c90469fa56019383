//! The advanced API's reductions of a two-axis source by a pattern (the vendor's
//! `adv_api/reduce/reduce.h`: `ReduceMax`, `ReduceMin`, `ReduceAny`, `ReduceAll`, `ReduceSum`,
//! `ReduceMean`, `ReduceProd`, with `reduce_common_util_v220_impl.h`), and their host tiling helpers
//! (`GetReduceMaxMaxMinTmpSize`, …).
//!
//! The source is `srcShape = [first, last]` (`last` padded to 32 bytes in memory, the vendor's
//! `srcInnerPad = true`, the only value it supports on these chips); the pattern says which axis
//! is reduced: [`pattern::AR`] reduces the last axis (`dst[first]`), [`pattern::RA`] the first
//! (`dst[last]`). As AscendC `ReduceMax<T, Pattern::Reduce::AR, isReuseSource>(…)`, the pattern
//! is a type: `reduce_max_adv::<f32, pattern::AR, false>(…)`.
//!
//! The vendor's library implements them for `__NPU_ARCH__` 2201 only (Ascend910B here; its
//! pages: Atlas A2/A3); elsewhere the call compiles to nothing, and here it fails naming the
//! chip.
//!
//! Names: `ReduceMax`, `ReduceMin` and `ReduceSum` are [`reduce_max_adv`], [`reduce_min_adv`]
//! and [`reduce_sum_adv`] (and their `_stack` forms) here, as the basic API's level-2
//! `ReduceMax`/`ReduceMin`/`ReduceSum` have the plain names; the others keep the vendor's name
//! in snake case ([`reduce_any`], [`reduce_all`], [`reduce_mean`], [`reduce_prod`]). The host helpers keep theirs
//! (`GetReduceMaxMaxMinTmpSize` is [`get_reduce_max_max_min_tmp_size`]).
//!
//! With `IS_REUSE_SOURCE = true` the functions accumulate in the source itself (the vendor's
//! `isReuseSource` path: different instructions, no scratch) and leave it overwritten.
//!
//! Not here: `ReduceAny`/`ReduceAll` for `uint8_t` (their own paths through `half` and
//! `int16_t`).

use super::align_up;
use crate::element::{f16, DType, Element};
use crate::kernel::error::ensure;
use crate::memory::copy::{data_copy_params, DataCopyParams};
use crate::memory::tensor::LocalTensor;
use crate::soc::Soc;
use crate::sync::{event::PIPE_V, flags::pipe_barrier};
use crate::vector::binary::{
    add_masked, max_masked, min_masked, mul_masked, AddElement, MaxElement, MinElement, MulElement,
};
use crate::vector::brcb::{brcb, BrcbRepeatParams};
use crate::vector::duplicate::duplicate;
use crate::vector::gather_mask::{gather_mask, GatherMaskParams, GatherPattern};
use crate::vector::mask::{
    reset_mask, set_mask_count, set_mask_norm, set_vector_mask, Mask, MASK_PLACEHOLDER,
};
use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};
use crate::vector::reduce::ReduceElement;
use crate::vector::reduction::{
    block_reduce_max, block_reduce_min, block_reduce_sum, pair_reduce_sum, whole_reduce_max,
    whole_reduce_min, whole_reduce_sum, ReduceOrder,
};
use crate::vector::scalar::{adds_masked, muls_masked, AddsElement, MulsElement};

use super::{check_apart, check_chip, count_mask, span, stack_tensor, whole, ONE_BLK_SIZE};

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for pattern::AR {}
impl sealed::Sealed for pattern::RA {}

/// The chips the vendor's library implements these functions for (`__NPU_ARCH__` 2201).
const V220: [Soc; 1] = [Soc::Ascend910B];
/// Bytes of one repeat (the vendor's `ONE_REPEAT_BYTE_SIZE`).
const ONE_REPEAT_BYTE_SIZE: usize = 256;
/// The vendor's `MAX_REPEAT_TIMES`.
const MAX_REPEAT_TIMES: usize = 255;
/// Blocks in a repeat (the vendor's `DEFAULT_BLK_NUM`).
const DEFAULT_BLK_NUM: usize = 8;
/// Blocks from one repeat to the next by default (the vendor's `DEFAULT_REPEAT_STRIDE`).
const DEFAULT_REPEAT_STRIDE: u8 = 8;

const REDUCE_MAX: &str = "ReduceMax";
const REDUCE_MIN: &str = "ReduceMin";
const REDUCE_ANY: &str = "ReduceAny";
const REDUCE_ALL: &str = "ReduceAll";
const REDUCE_SUM: &str = "ReduceSum";
const REDUCE_MEAN: &str = "ReduceMean";

/// The reduction patterns (AscendC `Pattern::Reduce`): which axis of the two-axis source is
/// reduced (`R`) and which is kept (`A`).
pub mod pattern {
    /// A reduction pattern: [`AR`] or [`RA`] (the only two the vendor's functions take).
    ///
    /// Any other type does not compile:
    /// ```compile_fail
    /// use ascend_core::prelude::*;
    /// fn f(t: &LocalTensor<f32>, tmp: &LocalTensor<u8>) {
    ///     reduce_max_adv::<f32, u8, false>(t, t, tmp, &[1, 8], true)
    /// }
    /// ```
    pub trait Pattern: super::sealed::Sealed {
        /// Whether the last axis is the reduced one (`AR`).
        const REDUCES_LAST: bool;
        /// The vendor's name.
        const NAME: &'static str;
    }

    /// `[first, last]` reduced along the last axis: `dst[i]` from row `i` (AscendC
    /// `Pattern::Reduce::AR`).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct AR;

    /// `[first, last]` reduced along the first axis: `dst[j]` from column `j` (AscendC
    /// `Pattern::Reduce::RA`).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct RA;

    impl Pattern for AR {
        const REDUCES_LAST: bool = true;
        const NAME: &'static str = "AR";
    }

    impl Pattern for RA {
        const REDUCES_LAST: bool = false;
        const NAME: &'static str = "RA";
    }
}

use pattern::Pattern;

/// The basic instructions a max/min reduction chains: `half` and `float`.
trait XyElement:
    ReduceElement + MaxElement + MinElement + AddElement + MulElement + AddsElement + MulsElement
{
}
impl XyElement for f16 {}
impl XyElement for f32 {}

/// Element types of [`reduce_max_adv`] and [`reduce_min_adv`]: `half` and `float` (the
/// vendor's pages for Atlas A2/A3).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, tmp: &LocalTensor<u8>) {
///     reduce_max_adv::<i32, pattern::AR, false>(t, t, tmp, &[1, 8], true)
/// }
/// ```
#[allow(private_bounds)]
pub trait ReduceMaxMinElement: XyElement + sealed::Sealed {}
impl ReduceMaxMinElement for f16 {}
impl ReduceMaxMinElement for f32 {}

/// Element types of [`reduce_any`] and [`reduce_all`]: `float` (nonzero is true).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f16>, tmp: &LocalTensor<u8>) {
///     reduce_any::<f16, pattern::AR, false>(t, t, tmp, &[1, 16], true)
/// }
/// ```
#[allow(private_bounds)]
pub trait ReduceAnyAllElement: XyElement + sealed::Sealed {}
impl ReduceAnyAllElement for f32 {}

/// The vendor's `ApiMode` for the max/min engine: which of `Max`/`Min` (and
/// `BlockReduceMax`/`Min`, `WholeReduceMax`/`Min`) the reduction uses. `ReduceAny` is `Max`,
/// `ReduceAll` is `Min`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Max,
    Min,
    /// `Add` (`ReduceSum`'s `RA` fold; its `BlockReduceSum`s are written out where used).
    Add,
    /// `Mul` (`ReduceProd`: binary steps only).
    Mul,
}

impl Op {
    /// `Max<T, false>` / `Min<T, false>` under the mask set.
    #[track_caller]
    fn binary<T: XyElement>(
        self,
        dst: &LocalTensor<T>,
        a: &LocalTensor<T>,
        b: &LocalTensor<T>,
        repeat: u8,
        p: &BinaryRepeatParams,
    ) {
        match self {
            Op::Max => max_masked::<T, false>(dst, a, b, MASK_PLACEHOLDER, repeat, p),
            Op::Min => min_masked::<T, false>(dst, a, b, MASK_PLACEHOLDER, repeat, p),
            Op::Add => add_masked::<T, false>(dst, a, b, MASK_PLACEHOLDER, repeat, p),
            Op::Mul => mul_masked::<T, false>(dst, a, b, MASK_PLACEHOLDER, repeat, p),
        }
    }

    /// `BlockReduceMax`/`Min` with the mask `mask` (normal mode, `isSetMask = true`) or under the
    /// mask set (`None`: `isSetMask = false`, one repeat, the counter mode's count).
    #[track_caller]
    fn block<T: XyElement>(
        self,
        dst: &LocalTensor<T>,
        src: &LocalTensor<T>,
        mask: Option<(u8, [u64; 2])>,
        (dst_rep, blk, rep): (u16, u16, u16),
    ) {
        match (self, mask) {
            (Op::Max, Some((r, m))) => block_reduce_max::<T, true>(dst, src, r, m, dst_rep, blk, rep),
            (Op::Min, Some((r, m))) => block_reduce_min::<T, true>(dst, src, r, m, dst_rep, blk, rep),
            (Op::Max, None) => block_reduce_max::<T, false>(dst, src, 1, MASK_PLACEHOLDER, dst_rep, blk, rep),
            (Op::Min, None) => block_reduce_min::<T, false>(dst, src, 1, MASK_PLACEHOLDER, dst_rep, blk, rep),
            (Op::Add, Some((r, m))) => block_reduce_sum::<T, true>(dst, src, r, m, dst_rep, blk, rep),
            (Op::Add, None) => block_reduce_sum::<T, false>(dst, src, 1, MASK_PLACEHOLDER, dst_rep, blk, rep),
            (Op::Mul, _) => unreachable!("ReduceProd has no block reduction"),
        }
    }

    /// `WholeReduceMax`/`Min(dst, src, mask, repeat, 1, 1, repStride, ORDER_ONLY_VALUE)`.
    #[track_caller]
    fn whole<T: XyElement>(
        self,
        dst: &LocalTensor<T>,
        src: &LocalTensor<T>,
        mask: u64,
        repeat: u8,
        rep: u16,
    ) {
        let order = ReduceOrder::ORDER_ONLY_VALUE;
        match self {
            Op::Max => whole_reduce_max::<T, true>(dst, src, mask, repeat, 1, 1, rep, order),
            Op::Min => whole_reduce_min::<T, true>(dst, src, mask, repeat, 1, 1, rep, order),
            Op::Add => whole_reduce_sum::<T, true>(dst, src, mask, repeat, 1, 1, rep),
            Op::Mul => unreachable!("ReduceProd has no whole reduction"),
        }
    }
}

/// `Adds<T, false>(dst, src, 0, MASK_PLACEHOLDER, 1, params)`: the vendor's copy.
#[track_caller]
fn copy<T: XyElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, p: &UnaryRepeatParams) {
    adds_masked::<T, false>(dst, src, T::from_f64(0.0), MASK_PLACEHOLDER, 1, p);
}

/// `BinaryRepeatParams` from the vendor's six numbers (block strides, then repeat strides).
fn bin(d: u8, a: u8, b: u8, dr: u8, ar: u8, br: u8) -> BinaryRepeatParams {
    BinaryRepeatParams::new(d, a, b, dr, ar, br)
}

/// The vendor's `ComputeMaskBit`: `lanes` lanes at the start of each of the first `blk_num`
/// blocks of `per_blk` elements, as a bit mask (for `half` blocks 0–3 in the low word, 4–7 in
/// the high one).
fn block_mask<T: Element>(lanes: usize, per_blk: usize, blk_num: usize) -> [u64; 2] {
    let one = (1u64 << lanes) - 1;
    let mut m = [0u64; 2];
    if T::SIZE == 2 {
        let low = blk_num.min(4);
        for k in 0..low {
            m[0] += one << (k * per_blk);
        }
        for k in 0..blk_num - low {
            m[1] += one << (k * per_blk);
        }
    } else {
        for k in 0..blk_num {
            m[0] += one << (k * per_blk);
        }
    }
    m
}

/// `(loops, last)`: `n` in chunks of at most 255 (the vendor's `DivCeil(n, MAX_REPEAT_TIMES)` and
/// its tail, 255 when `n` divides evenly).
fn chunks(n: usize) -> (usize, usize) {
    let tail = if n % MAX_REPEAT_TIMES == 0 { MAX_REPEAT_TIMES } else { n % MAX_REPEAT_TIMES };
    (n.div_ceil(MAX_REPEAT_TIMES), tail)
}

/// The vendor's `DoReduceLessThanBlk`: rows shorter than a block, 8 rows a repeat of
/// `BlockReduce*` in normal mode with a bit mask of `last` lanes per block.
#[track_caller]
fn less_than_blk<T: XyElement>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    first: usize,
    last: usize,
) {
    let (per_blk, per_rep) = (ONE_BLK_SIZE / T::SIZE, ONE_REPEAT_BYTE_SIZE / T::SIZE);
    let blk_repeat = first.div_ceil(DEFAULT_BLK_NUM);
    let (loops, rep_tail) = chunks(blk_repeat);
    let main = block_mask::<T>(last, per_blk, first.min(DEFAULT_BLK_NUM));
    let tail_blk = first % DEFAULT_BLK_NUM;
    let at = |i: usize, r: usize| {
        (
            dst.view((i * MAX_REPEAT_TIMES + r) * DEFAULT_BLK_NUM),
            src.view((i * MAX_REPEAT_TIMES + r) * per_rep),
        )
    };
    let strides = (1, 1, u16::from(DEFAULT_REPEAT_STRIDE));
    if tail_blk == 0 || first < DEFAULT_BLK_NUM {
        for i in 0..loops {
            let n = if i == loops - 1 { rep_tail } else { MAX_REPEAT_TIMES };
            let (d, s) = at(i, 0);
            op.block(&d, &s, Some((n as u8, main)), strides);
            pipe_barrier::<PIPE_V>();
        }
    } else {
        let tail = block_mask::<T>(last, per_blk, tail_blk);
        for i in 0..loops {
            if i == loops - 1 {
                let (d, s) = at(i, 0);
                op.block(&d, &s, Some(((rep_tail - 1) as u8, main)), strides);
                pipe_barrier::<PIPE_V>();
                let (d, s) = at(i, rep_tail - 1);
                op.block(&d, &s, Some((1, tail)), strides);
            } else {
                let (d, s) = at(i, 0);
                op.block(&d, &s, Some((MAX_REPEAT_TIMES as u8, main)), strides);
                pipe_barrier::<PIPE_V>();
            }
        }
    }
}

/// The vendor's `AccValOnBlk` (`Max`/`Min` of each row's blocks 1.. into `acc`, the counter
/// mode's full blocks then, in normal mode, the last partial block `255` rows a call).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn acc_on_blk<T: XyElement>(
    op: Op,
    src: &LocalTensor<T>,
    acc: &LocalTensor<T>,
    (main, tail_p): (&BinaryRepeatParams, &BinaryRepeatParams),
    (first, last): (usize, usize),
    acc_off: usize,
    pad_last: usize,
) {
    let per_blk = ONE_BLK_SIZE / T::SIZE;
    let (loops, rep_tail) = chunks(first);
    let (blk_count, blk_tail) = (last / per_blk, last % per_blk);
    for i in 1..blk_count {
        count_mask::<T>(first * per_blk);
        op.binary(acc, acc, &src.view(i * per_blk), 1, main);
        pipe_barrier::<PIPE_V>();
    }
    if blk_tail != 0 {
        set_mask_norm();
        set_vector_mask::<T>(Mask::Count(blk_tail as u64));
        for i in 0..loops {
            let n = if i == loops - 1 { rep_tail } else { MAX_REPEAT_TIMES };
            let a = acc.view(i * MAX_REPEAT_TIMES * acc_off);
            // The vendor passes `blkTail` as the mask of a `Max<T, false>`, which ignores it.
            op.binary(
                &a,
                &a,
                &src.view(i * MAX_REPEAT_TIMES * pad_last + blk_count * per_blk),
                n as u8,
                tail_p,
            );
            pipe_barrier::<PIPE_V>();
        }
        set_mask_count();
    }
}

/// The vendor's `DoReduceByBlk`: rows of more than a block and less than a repeat.
#[track_caller]
fn by_blk<T: XyElement, const REUSE: bool>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let per_blk = ONE_BLK_SIZE / T::SIZE;
    let row = (pad_last / per_blk) as u8;
    let rep = row * DEFAULT_BLK_NUM as u8;
    set_mask_count();
    if !REUSE {
        count_mask::<T>(first * per_blk);
        copy(tmp, src, &UnaryRepeatParams::new(1, u16::from(row), DEFAULT_REPEAT_STRIDE, rep));
        pipe_barrier::<PIPE_V>();
        let main = bin(1, 1, row, DEFAULT_REPEAT_STRIDE, DEFAULT_REPEAT_STRIDE, rep);
        let tail = bin(1, 1, 1, 1, 1, row);
        acc_on_blk(op, src, tmp, (&main, &tail), (first, last), per_blk, pad_last);
        count_mask::<T>(first * per_blk);
        op.block(dst, tmp, None, (1, 1, u16::from(DEFAULT_REPEAT_STRIDE)));
    } else {
        let main = bin(row, row, row, rep, rep, rep);
        let tail = bin(1, 1, 1, row, row, row);
        acc_on_blk(op, src, src, (&main, &tail), (first, last), pad_last, pad_last);
        count_mask::<T>(first * per_blk);
        op.block(dst, src, None, (1, u16::from(row), u16::from(rep)));
    }
}

/// The vendor's `GetReduceValOnRep`: each row's repeat of partial results in `acc` (rows
/// `acc_off` apart, `rep` blocks) reduced to one value: `half` by `WholeReduce*` in normal mode
/// 255 rows a call; `float` by two `BlockReduce*` passes in counter mode.
#[track_caller]
fn val_on_rep<T: XyElement>(
    op: Op,
    dst: &LocalTensor<T>,
    acc: &LocalTensor<T>,
    first: usize,
    acc_off: usize,
    rep: u16,
) {
    let per_rep = ONE_REPEAT_BYTE_SIZE / T::SIZE;
    if T::SIZE == 2 {
        let (loops, rep_tail) = chunks(first);
        set_mask_norm();
        for i in 0..loops {
            let n = if i == loops - 1 { rep_tail } else { MAX_REPEAT_TIMES };
            let (d, a) = (dst.view(i * MAX_REPEAT_TIMES), acc.view(i * MAX_REPEAT_TIMES * acc_off));
            op.whole(&d, &a, per_rep as u64, n as u8, rep);
            pipe_barrier::<PIPE_V>();
        }
    } else {
        count_mask::<T>(first * per_rep);
        op.block(acc, acc, None, (1, 1, rep));
        pipe_barrier::<PIPE_V>();
        count_mask::<T>(first * DEFAULT_BLK_NUM);
        op.block(dst, acc, None, (1, 1, u16::from(DEFAULT_REPEAT_STRIDE)));
    }
}

/// The vendor's `DoReduceByRep` with `AccValOnRep`: rows of a repeat up to 255 blocks.
#[track_caller]
fn by_rep<T: XyElement, const REUSE: bool>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let (per_blk, per_rep) = (ONE_BLK_SIZE / T::SIZE, ONE_REPEAT_BYTE_SIZE / T::SIZE);
    let row = (pad_last / per_blk) as u8;
    set_mask_count();
    let (acc, params, acc_off, rep) = if REUSE {
        (src, bin(1, 1, 1, row, row, row), pad_last, row)
    } else {
        count_mask::<T>(first * per_rep);
        copy(tmp, src, &UnaryRepeatParams::new(1, 1, DEFAULT_REPEAT_STRIDE, row));
        pipe_barrier::<PIPE_V>();
        let d = DEFAULT_REPEAT_STRIDE;
        (tmp, bin(1, 1, 1, d, d, row), per_rep, d)
    };
    let (loops, rep_tail) = chunks(first);
    let (rep_count, tail) = (last / per_rep, last % per_rep);
    for i in 1..rep_count {
        count_mask::<T>(first * per_rep);
        op.binary(acc, acc, &src.view(i * per_rep), 1, &params);
        pipe_barrier::<PIPE_V>();
    }
    if tail != 0 {
        set_mask_norm();
        set_vector_mask::<T>(Mask::Count(tail as u64));
        for i in 0..loops {
            let n = if i == loops - 1 { rep_tail } else { MAX_REPEAT_TIMES };
            let a = acc.view(i * MAX_REPEAT_TIMES * acc_off);
            op.binary(
                &a,
                &a,
                &src.view(i * MAX_REPEAT_TIMES * pad_last + rep_count * per_rep),
                n as u8,
                &params,
            );
            pipe_barrier::<PIPE_V>();
        }
        set_mask_count();
    }
    val_on_rep(op, dst, acc, first, acc_off, u16::from(rep));
}

/// The vendor's `DoLongLastReduce`: rows of more than 255 blocks, a row at a time.
#[track_caller]
fn long_last<T: XyElement, const REUSE: bool>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let per_rep = ONE_REPEAT_BYTE_SIZE / T::SIZE;
    let rep_count = last.div_ceil(per_rep);
    let rep_tail = if last % per_rep == 0 { per_rep } else { last % per_rep };
    let (dp, up) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    let mask_of = |i: usize| if i == rep_count - 1 { rep_tail } else { per_rep };
    set_mask_count();
    if !REUSE {
        count_mask::<T>(per_rep);
        for i in 0..first {
            copy(&tmp.view(i * per_rep), &src.view(i * pad_last), &up);
            pipe_barrier::<PIPE_V>();
        }
        for i in 1..rep_count {
            count_mask::<T>(mask_of(i));
            for j in 0..first {
                let a = tmp.view(j * per_rep);
                op.binary(&a, &a, &src.view(j * pad_last + i * per_rep), 1, &dp);
                pipe_barrier::<PIPE_V>();
            }
        }
        val_on_rep(op, dst, tmp, first, per_rep, u16::from(DEFAULT_REPEAT_STRIDE));
    } else {
        for i in 0..first {
            for j in 1..rep_count {
                count_mask::<T>(mask_of(j));
                let a = src.view(i * per_rep);
                let b = if j == 1 { src.view(i * pad_last) } else { a.clone() };
                op.binary(&a, &b, &src.view(i * pad_last + j * per_rep), 1, &dp);
                pipe_barrier::<PIPE_V>();
            }
        }
        val_on_rep(op, dst, src, first, per_rep, u16::from(DEFAULT_REPEAT_STRIDE));
    }
}

/// The vendor's `BlockReduceByLastAxis` (pattern `AR`): the path by the row length.
#[track_caller]
fn by_last_axis<T: XyElement, const REUSE: bool>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    shape: (usize, usize, usize),
) {
    let (per_blk, per_rep) = (ONE_BLK_SIZE / T::SIZE, ONE_REPEAT_BYTE_SIZE / T::SIZE);
    let (first, last, _) = shape;
    if last < per_blk {
        less_than_blk(op, dst, src, first, last);
    } else if last == per_blk {
        set_mask_count();
        count_mask::<T>(first * last);
        op.block(dst, src, None, (1, 1, u16::from(DEFAULT_REPEAT_STRIDE)));
    } else if last < per_rep {
        by_blk::<T, REUSE>(op, dst, src, tmp, shape);
    } else if last <= MAX_REPEAT_TIMES * per_blk {
        by_rep::<T, REUSE>(op, dst, src, tmp, shape);
    } else {
        long_last::<T, REUSE>(op, dst, src, tmp, shape);
    }
}

/// The vendor's `BinaryReduceByFirstAxis` (pattern `RA`): the rows past the largest power of
/// two folded into the first ones, then halves folded until one row is left, copied to `dst`.
#[track_caller]
fn by_first_axis<T: XyElement, const REUSE: bool>(
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<T>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let (dp, up) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    let mut split = 1usize << first.ilog2();
    let remain = first - split;
    set_mask_count();
    if REUSE {
        if remain != 0 {
            count_mask::<T>(pad_last * remain);
            op.binary(src, src, &src.view(split * pad_last), 1, &dp);
            pipe_barrier::<PIPE_V>();
        }
    } else if remain != 0 {
        count_mask::<T>(split * pad_last);
        copy(tmp, src, &up);
        pipe_barrier::<PIPE_V>();
        count_mask::<T>(pad_last * remain);
        op.binary(tmp, tmp, &src.view(split * pad_last), 1, &dp);
        pipe_barrier::<PIPE_V>();
    } else if split > 1 {
        split >>= 1;
        count_mask::<T>(pad_last * split);
        op.binary(tmp, src, &src.view(split * pad_last), 1, &dp);
        pipe_barrier::<PIPE_V>();
    } else {
        count_mask::<T>(last);
        copy(dst, src, &up);
        pipe_barrier::<PIPE_V>();
        return;
    }
    let cur = if REUSE { src } else { tmp };
    while split > 1 {
        split >>= 1;
        count_mask::<T>(pad_last * split);
        op.binary(cur, cur, &cur.view(split * pad_last), 1, &dp);
        pipe_barrier::<PIPE_V>();
    }
    count_mask::<T>(last);
    copy(dst, cur, &up);
    pipe_barrier::<PIPE_V>();
}

/// The scratch bytes a call writes (the host helpers' numbers, which are exact here): see
/// [`get_reduce_max_max_min_tmp_size`].
fn max_min_tmp_bytes(reduces_last: bool, reuse: bool, (first, last): (usize, usize), size: usize) -> usize {
    if reuse {
        return 0;
    }
    let (per_blk, per_rep) = (ONE_BLK_SIZE / size, ONE_REPEAT_BYTE_SIZE / size);
    if reduces_last {
        if last <= per_blk {
            0
        } else if last < per_rep {
            first * per_blk * size
        } else {
            first * per_rep * size
        }
    } else {
        let mut k = 1usize << first.ilog2();
        if k == first && first > 1 {
            k >>= 1;
        }
        k * align_up(last * size, ONE_BLK_SIZE)
    }
}

/// The vendor's kernel checks (`CheckFuncClassReduce` and the implementations' asserts) and
/// the scratch the call writes (`need(first, last)` bytes); returns `(first, last, padLast)`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_xy<T: Element, P: Pattern, const REUSE: bool>(
    api: &'static str,
    tiling: &'static str,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    src_shape: &[u32; 2],
    src_inner_pad: bool,
    need: impl Fn(usize, usize) -> usize,
) -> (usize, usize, usize) {
    check_chip(api, &V220);
    let (first, last) = (src_shape[0] as usize, src_shape[1] as usize);
    ensure(first > 0 && last > 0, api, || {
        format!("srcShape = [{first}, {last}]: firstAxis and lastAxis must be greater than 0")
    });
    let pad_last = align_up(last, ONE_BLK_SIZE / T::SIZE);
    ensure(src.get_size() >= first * pad_last, api, || {
        format!(
            "srcTensor holds {} {} elements, fewer than firstAxis * padLast = {first} * {pad_last} = {} (srcShape \
             [{first}, {last}], rows padded to 32 bytes)",
            src.get_size(),
            T::DTYPE,
            first * pad_last
        )
    });
    let (out, axis) = if P::REDUCES_LAST { (first, "firstAxis") } else { (last, "lastAxis") };
    ensure(dst.get_size() >= out, api, || {
        format!(
            "dstTensor holds {} elements, fewer than {axis} = {out}: pattern {} keeps it (srcShape [{first}, {last}])",
            dst.get_size(),
            P::NAME
        )
    });
    ensure(src_inner_pad, api, || {
        "srcInnerPad = false; it must be true on this chip (rows padded to 32 bytes)".into()
    });
    for (name, pos) in
        [("dst", dst.get_position()), ("src", src.get_position()), ("sharedTmpBuffer", tmp.get_position())]
    {
        ensure(pos.is_ub(), api, || {
            format!("{name} is at position {pos}; it must be VECIN, VECOUT or VECCALC")
        });
    }
    if !P::REDUCES_LAST && !REUSE {
        ensure(tmp.get_size() >= T::SIZE, api, || {
            format!(
                "sharedTmpBuffer has {} bytes, less than one {} element: insufficient temporary space (the vendor's \
                 CheckTmpBufferSize; see {tiling})",
                tmp.get_size(),
                T::DTYPE
            )
        });
    }
    let need = need(first, last);
    ensure(tmp.get_size() >= need, api, || {
        format!(
            "sharedTmpBuffer has {} bytes, fewer than the {need} the reduction writes for srcShape [{first}, {last}] \
             with pattern {} and isReuseSource = {REUSE} (see {tiling})",
            tmp.get_size(),
            P::NAME
        )
    });
    let (d, s, t) =
        (span("dst", dst, out), span("src", src, first * pad_last), whole("sharedTmpBuffer", tmp));
    check_apart(api, &[(d, s), (t, s), (t, d)]);
    (first, last, pad_last)
}

/// The max/min engine of `ReduceMax`, `ReduceMin`, and `float` `ReduceAny`/`ReduceAll`: the
/// checks, the pattern's path, then `SetMaskNorm` and `ResetMask`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn max_min<T: XyElement, P: Pattern, const REUSE: bool>(
    api: &'static str,
    tiling: &'static str,
    op: Op,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    tmp: &LocalTensor<u8>,
    src_shape: &[u32; 2],
    src_inner_pad: bool,
) {
    let need = |f, l| max_min_tmp_bytes(P::REDUCES_LAST, REUSE, (f, l), T::SIZE);
    let shape = check_xy::<T, P, REUSE>(api, tiling, dst, src, tmp, src_shape, src_inner_pad, need);
    let tmp = tmp.reinterpret_cast::<T>();
    if P::REDUCES_LAST {
        by_last_axis::<T, REUSE>(op, dst, src, &tmp, shape);
    } else {
        by_first_axis::<T, REUSE>(op, dst, src, &tmp, shape);
    }
    set_mask_norm();
    reset_mask();
}

macro_rules! max_min_api {
    ($(#[$doc:meta])* $name:ident, $stack:ident, $bound:ident, $api:ident, $tiling:literal, $op:expr, $stack_ex:literal) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<T: $bound, P: Pattern, const IS_REUSE_SOURCE: bool>(
            dst_tensor: &LocalTensor<T>,
            src_tensor: &LocalTensor<T>,
            shared_tmp_buffer: &LocalTensor<u8>,
            src_shape: &[u32; 2],
            src_inner_pad: bool,
        ) {
            max_min::<T, P, IS_REUSE_SOURCE>(
                $api, $tiling, $op, dst_tensor, src_tensor, shared_tmp_buffer, src_shape, src_inner_pad,
            );
        }

        #[doc = concat!("[`", stringify!($name), "`] with the stack buffer as scratch (AscendC `", stringify!($api))]
        /// `<T, pattern, isReuseSource>(dstTensor, srcTensor, srcShape, srcInnerPad)`): the
        /// Unified Buffer after the core's `TPipe` buffers (see
        /// [`pop_stack_buffer`](super::pop_stack_buffer)).
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut q = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut q, 4 * 4 * 64);
        /// let (x, y) = (q.get_with_len::<f32>(3 * 64), q.get_with_offset::<f32>(64, 3 * 64 * 4));
        /// x.copy_from_slice(&(0..3 * 64).map(|i| ((i * 37) % 101) as f32 + 1.0).collect::<Vec<_>>());
        #[doc = $stack_ex]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("As [`", stringify!($name), "`], and if the core has no `TPipe` or its buffers leave no room.")]
        #[track_caller]
        pub fn $stack<T: $bound, P: Pattern, const IS_REUSE_SOURCE: bool>(
            dst_tensor: &LocalTensor<T>,
            src_tensor: &LocalTensor<T>,
            src_shape: &[u32; 2],
            src_inner_pad: bool,
        ) {
            let stack = stack_tensor($api);
            $name::<T, P, IS_REUSE_SOURCE>(dst_tensor, src_tensor, &stack, src_shape, src_inner_pad);
        }
    };
}

max_min_api!(
    /// The maximum of each row (pattern [`AR`](pattern::AR): `dst[i]` of row `i`) or of each
    /// column (pattern [`RA`](pattern::RA): `dst[j]` of column `j`) of `src`, a `[first, last]`
    /// source with rows padded to 32 bytes (AscendC `ReduceMax<T, pattern, isReuseSource>(dstTensor,
    /// srcTensor, sharedTmpBuffer, srcShape, srcInnerPad)`; named `reduce_max_adv` here as the
    /// basic API's `ReduceMax` is [`reduce_max`](crate::vector::reduction::reduce_max)), as the
    /// vendor's `ReduceMaxImpl` on Ascend910B.
    ///
    /// `AR` takes a path by the row length `last` (`E` elements a block, `8 E` a repeat):
    /// below `E`, `BlockReduceMax` in normal mode, 8 rows a repeat with a mask of `last` lanes a
    /// block; `E`, one `BlockReduceMax` in counter mode; up to `8 E`, each row's first block
    /// copied to the scratch (`Adds` of 0), its other blocks folded in with `Max` (the partial
    /// block in normal mode, 255 rows a call), then `BlockReduceMax`; up to `255 E`, the same by
    /// repeats, then `WholeReduceMax` (`half`, 255 rows a call) or two `BlockReduceMax` passes
    /// (`float`); longer, row by row. `RA` folds the rows past the largest power of two into the
    /// first ones, then halves until one row is left, each a `Max` in counter mode, and copies
    /// it to `dst`. Every step is followed by `PipeBarrier<PIPE_V>` as in the vendor's code; the
    /// call ends with `SetMaskNorm` and `ResetMask`. With `IS_REUSE_SOURCE` the folds run in
    /// `src` (no scratch) and leave it overwritten.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(64, 96));
    /// x.copy_from_slice(&[0.0, 4.0, 2.0, 0.0, -1.0, 2.0, -1.0, 7.0, 0.0, 1.0, -9.0, 2.0, 2.0, 2.0, 8.0, 3.0]);
    /// reduce_max_adv::<f32, pattern::AR, false>(&y, &x, &tmp, &[2, 8], true);
    /// assert_eq!((y.get_value(0), y.get_value(1)), (7.0, 8.0));
    /// reduce_max_adv::<f32, pattern::RA, false>(&y, &x, &tmp, &[2, 8], true);
    /// assert_eq!(y.get_value(2), 2.0);
    /// ```
    ///
    /// # Panics
    /// Panics if the chip has no implementation (all but Ascend910B); `srcShape` has a zero
    /// axis; `src` holds fewer than `first * padLast` elements or `dst` fewer than the kept
    /// axis; `src_inner_pad` is false; a tensor is not in the Unified Buffer; the scratch is
    /// smaller than the bytes the call writes ([`get_reduce_max_max_min_tmp_size`]'s number; for
    /// `RA` without reuse also when empty, the vendor's `CheckTmpBufferSize`); two operands
    /// overlap (the vendor's page); or any instruction's own check fails.
    reduce_max_adv,
    reduce_max_adv_stack,
    ReduceMaxMinElement,
    REDUCE_MAX,
    "GetReduceMaxMaxMinTmpSize",
    Op::Max,
    "reduce_max_adv_stack::<f32, pattern::AR, true>(&y, &x, &[3, 64], true);\nassert_eq!(y.get_value(0), (0..64).map(|i| ((i * 37) % 101) as f32 + 1.0).fold(0.0, f32::max));"
);

max_min_api!(
    /// The minimum of each row (pattern [`AR`](pattern::AR)) or each column (pattern
    /// [`RA`](pattern::RA)) of `src` (AscendC `ReduceMin<T, pattern, isReuseSource>(dstTensor,
    /// srcTensor, sharedTmpBuffer, srcShape, srcInnerPad)`; named `reduce_min_adv` here as the
    /// basic API's `ReduceMin` is [`reduce_min`](crate::vector::reduction::reduce_min)), as
    /// [`reduce_max_adv`] with `Min`, `BlockReduceMin` and `WholeReduceMin` (the vendor's
    /// `ReduceMinImpl`).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f16>(32), q.get_with_offset::<f16>(16, 64), q.get_with_offset::<u8>(64, 96));
    /// let row = [5.0f32, 4.0, 2.0, 9.0, 3.0];
    /// let mut v = vec![f16::ZERO; 32];
    /// for (i, &r) in row.iter().enumerate() { v[i] = f16::from_f32(r); v[16 + i] = f16::from_f32(-r); }
    /// x.copy_from_slice(&v);
    /// reduce_min_adv::<f16, pattern::AR, false>(&y, &x, &tmp, &[2, 5], true);
    /// assert_eq!((y.get_value(0).to_f32(), y.get_value(1).to_f32()), (2.0, -9.0));
    /// ```
    ///
    /// # Panics
    /// As [`reduce_max_adv`] (the scratch by [`get_reduce_min_max_min_tmp_size`]).
    reduce_min_adv,
    reduce_min_adv_stack,
    ReduceMaxMinElement,
    REDUCE_MIN,
    "GetReduceMinMaxMinTmpSize",
    Op::Min,
    "reduce_min_adv_stack::<f32, pattern::RA, false>(&y, &x, &[3, 64], true);\nassert_eq!(y.get_value(0), [0, 64, 128].iter().map(|i| ((i * 37) % 101) as f32 + 1.0).fold(f32::MAX, f32::min));"
);

max_min_api!(
    /// Whether any element of each row (pattern [`AR`](pattern::AR)) or column (pattern
    /// [`RA`](pattern::RA)) of `src` is true (AscendC `ReduceAny<T, pattern,
    /// isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcShape, srcInnerPad)`). For
    /// `float` the vendor's `ReduceAnyImpl` is [`reduce_max_adv`]'s code (`API_MODE_ANY` takes the
    /// `Max` instructions): the result is the maximum, `1.0` for a row of `0.0`/`1.0` values
    /// with a `1.0`, and for other values whatever the maximum is.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(64, 96));
    /// x.copy_from_slice(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    /// reduce_any::<f32, pattern::AR, false>(&y, &x, &tmp, &[2, 8], true);
    /// assert_eq!((y.get_value(0), y.get_value(1)), (1.0, 0.0));
    /// ```
    ///
    /// # Panics
    /// As [`reduce_max_adv`] (the scratch by [`get_reduce_any_max_min_tmp_size`]).
    reduce_any,
    reduce_any_stack,
    ReduceAnyAllElement,
    REDUCE_ANY,
    "GetReduceAnyMaxMinTmpSize",
    Op::Max,
    "reduce_any_stack::<f32, pattern::AR, false>(&y, &x, &[3, 64], true);\nassert!(y.get_value(2) > 0.0);"
);

max_min_api!(
    /// Whether every element of each row (pattern [`AR`](pattern::AR)) or column (pattern
    /// [`RA`](pattern::RA)) of `src` is true (AscendC `ReduceAll<T, pattern,
    /// isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcShape, srcInnerPad)`). For
    /// `float` the vendor's `ReduceAllImpl` is [`reduce_min_adv`]'s code (`API_MODE_ALL` takes the
    /// `Min` instructions): the result is the minimum, `0.0` for a row of `0.0`/`1.0` values with
    /// a `0.0`.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(64, 96));
    /// x.copy_from_slice(&[1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    /// reduce_all::<f32, pattern::AR, false>(&y, &x, &tmp, &[2, 8], true);
    /// assert_eq!((y.get_value(0), y.get_value(1)), (0.0, 1.0));
    /// ```
    ///
    /// # Panics
    /// As [`reduce_max_adv`] (the scratch by [`get_reduce_all_max_min_tmp_size`]).
    reduce_all,
    reduce_all_stack,
    ReduceAnyAllElement,
    REDUCE_ALL,
    "GetReduceAllMaxMinTmpSize",
    Op::Min,
    "reduce_all_stack::<f32, pattern::AR, false>(&y, &x, &[3, 64], true);\nassert!(y.get_value(2) >= 1.0);"
);

// ---- ReduceSum, ReduceMean -------------------------------------------------------------------

/// Element types of [`reduce_sum_adv`] and [`reduce_mean`]: `float` (the vendor's
/// implementation on Ascend910B counts in `float` blocks and repeats).
///
/// Any other type does not compile:
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<f16>, tmp: &LocalTensor<u8>) {
///     reduce_sum_adv::<f16, pattern::AR, false>(t, t, tmp, &[1, 16], true)
/// }
/// ```
#[allow(private_bounds)]
pub trait ReduceSumElement: XyElement + sealed::Sealed {}
impl ReduceSumElement for f32 {}

/// `float`s in a block and a repeat (the vendor's `B32_DATA_NUM_PER_BLOCK`/`_PER_REPEAT`).
const B32_BLK: usize = 8;
const B32_REP: usize = 64;
/// Rows of one `ReduceSumArCompute` chunk (the vendor's `maxRepeatTimes`).
const SUM_CHUNK: usize = 248;

/// The vendor's `ReduceSumArUnReusedSrc`/`ReusedSrc` row split: `(perRowReduceSize, tailLen)`,
/// the elements kept in a row and those added onto them, for `last > 64`.
fn sum_split(last: usize, pad_last: usize) -> (usize, usize) {
    let split_k = 1usize << last.ilog2();
    let tail = last - split_k;
    let mut per_row = split_k.max(B32_BLK);
    if last == split_k {
        per_row >>= 1;
    }
    let tail_len = if tail == 0 && per_row > 0 { pad_last - per_row } else { tail };
    (per_row, tail_len)
}

/// `DataCopy(dst, src, {rows, perRow / 8, (padLast - perRow) / 8, 0})`: each row's first
/// `per_row` elements packed.
#[track_caller]
fn pack_rows(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, rows: usize, per_row: usize, pad_last: usize) {
    let p = DataCopyParams::new(
        rows as u16,
        (per_row / B32_BLK) as u16,
        ((pad_last - per_row) / B32_BLK) as u16,
        0,
    );
    data_copy_params(dst, src, &p);
    pipe_barrier::<PIPE_V>();
}

/// The vendor's `BlkReduceForLoop<float, SUM>` from offset 0: rows of at most a block, 8 a
/// repeat, `BlockReduceSum` in normal mode. Its loop over whole 255-repeat chunks does not move
/// its offsets, so with 4080 rows or more every chunk recomputes the first 2040 rows and the
/// rows from 2040 to the last whole chunk's end are never written (as on the hardware).
#[track_caller]
fn blk_reduce_for_loop(dst: &LocalTensor<f32>, src: &LocalTensor<f32>, first: usize, last: usize) {
    let per_chunk = MAX_REPEAT_TIMES * DEFAULT_BLK_NUM;
    let (n_max, tail_max) = (first / per_chunk, first % per_chunk);
    let (tail_n, tail_remain) = (tail_max / DEFAULT_BLK_NUM, tail_max % DEFAULT_BLK_NUM);
    let lanes = last.min(B32_BLK);
    let mask = block_mask::<f32>(lanes, B32_BLK, DEFAULT_BLK_NUM);
    let strides = (1, 1, u16::from(DEFAULT_REPEAT_STRIDE));
    for _ in 0..n_max {
        Op::Add.block(dst, src, Some((MAX_REPEAT_TIMES as u8, mask)), strides);
        pipe_barrier::<PIPE_V>();
    }
    if tail_n > 0 {
        let (d, s) = (n_max * MAX_REPEAT_TIMES * 8, n_max * MAX_REPEAT_TIMES * B32_REP);
        Op::Add.block(&dst.view(d), &src.view(s), Some((tail_n as u8, mask)), strides);
        pipe_barrier::<PIPE_V>();
    }
    if tail_remain > 0 {
        let tail = block_mask::<f32>(lanes, B32_BLK, tail_remain);
        let d = tail_n * 8 + n_max * MAX_REPEAT_TIMES * 8;
        let s = tail_n * B32_REP + n_max * MAX_REPEAT_TIMES * B32_REP;
        Op::Add.block(&dst.view(d), &src.view(s), Some((1, tail)), strides);
        pipe_barrier::<PIPE_V>();
    }
}

/// The vendor's `ReduceSumComputeTail`: each row's `tailLen` elements after `perRow` added onto
/// its first ones, by rows (`SliceAAxis`, counter mode) or, when the tail takes fewer repeats
/// than there are rows, by 64-element columns over all rows (`SliceRAxis`, normal mode; its
/// repeat strides are `uint8_t` casts, as the vendor's); with reuse the rows are packed after.
#[track_caller]
fn sum_tail<const REUSE: bool>(
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    rows: usize,
    (last, pad_last, per_row, tail_len): (usize, usize, usize, usize),
) {
    let (tail_n, tail_remain) = (tail_len / B32_REP, tail_len % B32_REP);
    let slice_large = tail_n + usize::from(tail_remain > 0) < rows;
    let performance = slice_large && last > B32_REP && per_row / B32_BLK <= 255;
    let dp = BinaryRepeatParams::default();
    if performance {
        set_mask_norm();
        let per_row_size = if REUSE { pad_last } else { per_row };
        let (d_rep, s1_rep) = ((per_row_size / B32_BLK) as u8, (pad_last / B32_BLK) as u8);
        let p = bin(1, 1, 1, d_rep, d_rep, s1_rep);
        set_vector_mask::<f32>(Mask::Count(B32_REP as u64));
        for i in 0..tail_n {
            let t = tmp.view(i * B32_REP);
            Op::Add.binary(&t, &t, &src.view(per_row + i * B32_REP), rows as u8, &p);
        }
        if tail_remain > 0 {
            let t = tmp.view(tail_n * B32_REP);
            set_vector_mask::<f32>(Mask::Count(tail_remain as u64));
            Op::Add.binary(&t, &t, &src.view(per_row + tail_n * B32_REP), rows as u8, &p);
        }
        pipe_barrier::<PIPE_V>();
        if REUSE {
            pack_rows(tmp, tmp, rows, per_row, pad_last);
        }
    } else if REUSE {
        count_mask::<f32>(tail_len);
        for i in 0..rows {
            let t = tmp.view(i * pad_last);
            Op::Add.binary(&t, &t, &src.view(i * pad_last + per_row), 1, &dp);
        }
        pipe_barrier::<PIPE_V>();
        pack_rows(tmp, tmp, rows, per_row, pad_last);
    } else {
        for i in 0..rows {
            count_mask::<f32>(tail_len);
            let t = tmp.view(i * per_row);
            Op::Add.binary(&t, &t, &src.view(i * pad_last + per_row), 1, &dp);
        }
        pipe_barrier::<PIPE_V>();
    }
}

/// The vendor's `ReduceSumInLargeLast`: a chunk of `rows` rows of more than 64 elements.
#[track_caller]
fn sum_large_last<const REUSE: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    rows: usize,
    (last, pad_last): (usize, usize),
) {
    let (per_row, tail_len) = sum_split(last, pad_last);
    if !REUSE {
        pack_rows(tmp, src, rows, per_row, pad_last);
    }
    sum_tail::<REUSE>(src, tmp, rows, (last, pad_last, per_row, tail_len));
    reset_mask();
    set_mask_count();
    let mut k = per_row;
    while k > B32_REP {
        count_mask::<f32>(rows * k);
        pair_reduce_sum::<f32, false>(tmp, tmp, 1, MASK_PLACEHOLDER, 1, 1, u16::from(DEFAULT_REPEAT_STRIDE));
        pipe_barrier::<PIPE_V>();
        k >>= 1;
    }
    count_mask::<f32>(rows * B32_REP);
    Op::Add.block(tmp, tmp, None, (1, 1, u16::from(DEFAULT_REPEAT_STRIDE)));
    pipe_barrier::<PIPE_V>();
    count_mask::<f32>(rows * B32_BLK);
    Op::Add.block(dst, tmp, None, (1, 1, u16::from(DEFAULT_REPEAT_STRIDE)));
}

/// The vendor's `ReduceSumArCompute`: rows of up to 64 by `WholeReduceSum` (normal mode, 248
/// rows a call), longer ones by [`sum_large_last`] 248 rows at a time, the scratch of chunk `i`
/// from element `248 * 64 * i`.
#[track_caller]
fn sum_ar<const REUSE: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let (n, tail) = (first / SUM_CHUNK, first % SUM_CHUNK);
    let starts = (0..n).map(|i| (i * SUM_CHUNK, SUM_CHUNK)).chain((tail > 0).then_some((first - tail, tail)));
    if last <= B32_REP {
        set_mask_norm();
        set_vector_mask::<f32>(Mask::Count(last as u64));
        let rep = (pad_last / B32_BLK) as u16;
        for (row, rows) in starts {
            let (d, s) = (dst.view(row), src.view(row * pad_last));
            whole_reduce_sum::<f32, false>(&d, &s, MASK_PLACEHOLDER, rows as u8, 1, 1, rep);
        }
    } else {
        set_mask_count();
        for (row, rows) in starts {
            let t = tmp.view(row * B32_REP);
            sum_large_last::<REUSE>(&dst.view(row), &src.view(row * pad_last), &t, rows, (last, pad_last));
        }
        set_mask_norm();
    }
    pipe_barrier::<PIPE_V>();
    reset_mask();
}

/// The scratch bytes `ReduceSum`/`ReduceMean` write: for `AR` without reuse, the packed rows
/// of the last chunk from its offset (0 for rows of up to 64); for `RA` as `ReduceMax`.
fn sum_tmp_bytes(reduces_last: bool, reuse: bool, (first, last): (usize, usize)) -> usize {
    if !reduces_last {
        return max_min_tmp_bytes(false, reuse, (first, last), 4);
    }
    if reuse || last <= B32_REP {
        return 0;
    }
    let (per_row, _) = sum_split(last, align_up(last, B32_BLK));
    let rows_last = if first % SUM_CHUNK == 0 { SUM_CHUNK } else { first % SUM_CHUNK };
    ((first - rows_last) * B32_REP + rows_last * per_row) * 4
}

/// The vendor's `ReduceSumCommon` after the checks.
#[track_caller]
fn sum_common<P: Pattern, const REUSE: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<u8>,
    shape: (usize, usize, usize),
) {
    let tmp = tmp.reinterpret_cast::<f32>();
    let (first, last, _) = shape;
    if !P::REDUCES_LAST {
        by_first_axis::<f32, REUSE>(Op::Add, dst, src, &tmp, shape);
    } else if last <= B32_BLK {
        blk_reduce_for_loop(dst, src, first, last);
    } else if REUSE {
        sum_ar::<true>(dst, src, src, shape);
    } else {
        sum_ar::<false>(dst, src, &tmp, shape);
    }
}

/// `ReduceSum` and `ReduceMean`'s common body: the checks, the sum, and for the mean the
/// `Muls` by `1.0f / (int32_t)n` of the `n` reduced elements in counter mode; then
/// `SetMaskNorm` and `ResetMask`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn sum_or_mean<P: Pattern, const REUSE: bool>(
    api: &'static str,
    tiling: &'static str,
    mean: bool,
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<u8>,
    src_shape: &[u32; 2],
    src_inner_pad: bool,
) {
    let need = |f, l| sum_tmp_bytes(P::REDUCES_LAST, REUSE, (f, l));
    let shape = check_xy::<f32, P, REUSE>(api, tiling, dst, src, tmp, src_shape, src_inner_pad, need);
    sum_common::<P, REUSE>(dst, src, tmp, shape);
    if mean {
        let (first, last, _) = shape;
        let (n, kept) = if P::REDUCES_LAST { (last, first) } else { (first, last) };
        set_mask_count();
        count_mask::<f32>(kept);
        let reciprocal = 1.0f32 / n as i32 as f32;
        muls_masked::<f32, false>(dst, dst, reciprocal, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
        pipe_barrier::<PIPE_V>();
    }
    set_mask_norm();
    reset_mask();
}

macro_rules! sum_api {
    ($(#[$doc:meta])* $name:ident, $stack:ident, $api:ident, $tiling:literal, $mean:expr, $stack_ex:literal) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<T: ReduceSumElement, P: Pattern, const IS_REUSE_SOURCE: bool>(
            dst_tensor: &LocalTensor<T>,
            src_tensor: &LocalTensor<T>,
            shared_tmp_buffer: &LocalTensor<u8>,
            src_shape: &[u32; 2],
            src_inner_pad: bool,
        ) {
            let (d, s) = (dst_tensor.reinterpret_cast::<f32>(), src_tensor.reinterpret_cast::<f32>());
            sum_or_mean::<P, IS_REUSE_SOURCE>($api, $tiling, $mean, &d, &s, shared_tmp_buffer, src_shape, src_inner_pad);
        }

        #[doc = concat!("[`", stringify!($name), "`] with the stack buffer as scratch (AscendC `", stringify!($api))]
        /// `<T, pattern, isReuseSource>(dstTensor, srcTensor, srcShape, srcInnerPad)`): the
        /// Unified Buffer after the core's `TPipe` buffers (see
        /// [`pop_stack_buffer`](super::pop_stack_buffer)).
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let mut q = TBuf::<VecCalc>::new();
        /// pipe.init_tbuf(&mut q, 4 * 4 * 100);
        /// let (x, y) = (q.get_with_len::<f32>(3 * 104), q.get_with_offset::<f32>(64, 3 * 104 * 4));
        /// x.copy_from_slice(&[0.5f32; 3 * 104]);
        #[doc = $stack_ex]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("As [`", stringify!($name), "`], and if the core has no `TPipe` or its buffers leave no room.")]
        #[track_caller]
        pub fn $stack<T: ReduceSumElement, P: Pattern, const IS_REUSE_SOURCE: bool>(
            dst_tensor: &LocalTensor<T>,
            src_tensor: &LocalTensor<T>,
            src_shape: &[u32; 2],
            src_inner_pad: bool,
        ) {
            let stack = stack_tensor($api);
            $name::<T, P, IS_REUSE_SOURCE>(dst_tensor, src_tensor, &stack, src_shape, src_inner_pad);
        }
    };
}

sum_api!(
    /// The sum of each row (pattern [`AR`](pattern::AR)) or each column (pattern
    /// [`RA`](pattern::RA)) of `src`, a `[first, last]` `float` source with rows padded to 32
    /// bytes (AscendC `ReduceSum<T, pattern, isReuseSource>(dstTensor, srcTensor,
    /// sharedTmpBuffer, srcShape, srcInnerPad)`; named `reduce_sum_adv` here as the basic API's
    /// `ReduceSum` is [`reduce_sum`](crate::vector::reduction::reduce_sum)), as the vendor's
    /// `ReduceSumImpl` on Ascend910B.
    ///
    /// `AR`: rows of up to 8 by `BlockReduceSum` (normal mode, 8 rows a repeat; with 4080 rows
    /// or more the vendor's loop recomputes the first 2040 rows and leaves rows 2040 up to the
    /// last whole 2040-row chunk's end unwritten — kept here); up to 64 by `WholeReduceSum`
    /// (normal mode, 248 rows a call); longer, 248 rows at a time: each row's first
    /// `perRow` elements (the largest power of two up to `last`, halved when it is `last`)
    /// packed into the scratch (`DataCopy`), the rest added onto them (`Add`, by rows or by
    /// 64-element columns), then `PairReduceSum` passes down to 64, and two `BlockReduceSum`s.
    /// `RA`: [`reduce_max_adv`]'s fold with `Add`. With `IS_REUSE_SOURCE` the packing and folds
    /// run in `src` (no scratch).
    ///
    /// Vendor behaviour kept: with reuse and more than 248 rows of more than 64 elements, chunk
    /// `i`'s accumulators start at `src[248 * 64 * i]`, not at the chunk's rows (right only when
    /// rows are 64 elements apart); the column path's repeat strides are `uint8_t` casts, wrong
    /// for rows of more than 2040 elements.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(64, 96));
    /// x.copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    /// reduce_sum_adv::<f32, pattern::AR, false>(&y, &x, &tmp, &[2, 5], true);
    /// assert_eq!((y.get_value(0), y.get_value(1)), (15.0, 5.0));
    /// ```
    ///
    /// # Panics
    /// As [`reduce_max_adv`], the scratch by the bytes the call writes (at most
    /// [`get_reduce_sum_max_min_tmp_size`]'s number).
    reduce_sum_adv,
    reduce_sum_adv_stack,
    REDUCE_SUM,
    "GetReduceSumMaxMinTmpSize",
    false,
    "reduce_sum_adv_stack::<f32, pattern::AR, false>(&y, &x, &[3, 100], true);\nassert_eq!(y.get_value(2), 50.0);"
);

sum_api!(
    /// The mean of each row (pattern [`AR`](pattern::AR)) or each column (pattern
    /// [`RA`](pattern::RA)) of `src` (AscendC `ReduceMean<T, pattern, isReuseSource>(dstTensor,
    /// srcTensor, sharedTmpBuffer, srcShape, srcInnerPad)`), as the vendor's `ReduceMeanImpl`:
    /// [`reduce_sum_adv`]'s sums, then one `Muls` by `1.0f / n` (`n` the reduced axis) in
    /// counter mode.
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// let mut pipe = TPipe::new();
    /// let mut q = TBuf::<VecCalc>::new();
    /// pipe.init_tbuf(&mut q, 64 + 32 + 64);
    /// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(64, 96));
    /// x.copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    /// reduce_mean::<f32, pattern::RA, false>(&y, &x, &tmp, &[2, 5], true);
    /// assert_eq!((y.get_value(0), y.get_value(4)), (1.0, 3.0));
    /// ```
    ///
    /// # Panics
    /// As [`reduce_sum_adv`] (the scratch by [`get_reduce_mean_max_min_tmp_size`]).
    reduce_mean,
    reduce_mean_stack,
    REDUCE_MEAN,
    "GetReduceMeanMaxMinTmpSize",
    true,
    "reduce_mean_stack::<f32, pattern::AR, false>(&y, &x, &[3, 100], true);\nassert_eq!(y.get_value(2), 0.5);"
);

// ---- ReduceProd ------------------------------------------------------------------------------

const REDUCE_PROD: &str = "ReduceProd";

/// The vendor's `ReduceProdByLastAxis` (`AR`), row by row: the row folded with `Mul` to 8
/// values (the part past the largest power of two onto the first, then halves) in a slot 8
/// elements after the previous row's (`tmp[64 + 8 j]`, or the row itself with reuse), spread
/// to 8 blocks (`Brcb` into `tmp[0..64]`), the blocks folded to one, copied to the row's slot;
/// then `Duplicate` of 1s as the pattern and one `GatherMask` of each slot's first element.
#[track_caller]
fn prod_by_last_axis<const REUSE: bool>(
    dst: &LocalTensor<f32>,
    src: &LocalTensor<f32>,
    tmp: &LocalTensor<f32>,
    (first, last, pad_last): (usize, usize, usize),
) {
    let res_before_gather = tmp.view(B32_REP);
    let final_res_stored = if REUSE { src } else { &res_before_gather };
    let split = 1usize << last.ilog2();
    let remain = last - split;
    let (dp, up) = (BinaryRepeatParams::default(), UnaryRepeatParams::default());
    let mul = |d: &LocalTensor<f32>, a: &LocalTensor<f32>, b: &LocalTensor<f32>| {
        Op::Mul.binary(d, a, b, 1, &dp);
        pipe_barrier::<PIPE_V>();
    };
    set_mask_count();
    for j in 0..first {
        let mut k = split;
        let row = src.view(j * pad_last);
        let (row_res, t_dst) = if REUSE {
            (row.clone(), src.view(j * B32_BLK))
        } else {
            (res_before_gather.view(j * B32_BLK), res_before_gather.view(j * B32_BLK))
        };
        if REUSE {
            if last >= B32_BLK && remain != 0 {
                count_mask::<f32>(remain);
                mul(&row_res, &row_res, &row_res.view(k));
            }
        } else if last >= B32_BLK && remain != 0 {
            count_mask::<f32>(k);
            copy(&row_res, &row, &up);
            pipe_barrier::<PIPE_V>();
            count_mask::<f32>(remain);
            mul(&row_res, &row_res, &row.view(k));
        } else if k > B32_BLK {
            k >>= 1;
            count_mask::<f32>(k);
            mul(&row_res, &row, &row.view(k));
        } else {
            count_mask::<f32>(last);
            copy(&row_res, &row, &up);
            pipe_barrier::<PIPE_V>();
        }
        while k > B32_BLK {
            k >>= 1;
            count_mask::<f32>(k);
            mul(&row_res, &row_res, &row_res.view(k));
        }
        brcb(tmp, &row_res, 1, &BrcbRepeatParams::default());
        pipe_barrier::<PIPE_V>();
        let mut final_tail = if last < B32_BLK { split } else { B32_BLK };
        if split != last && final_tail < B32_BLK {
            count_mask::<f32>(remain * B32_BLK);
            mul(tmp, tmp, &tmp.view(split * B32_BLK));
        }
        while final_tail > 1 {
            final_tail >>= 1;
            count_mask::<f32>(final_tail * B32_BLK);
            mul(tmp, tmp, &tmp.view(final_tail * B32_BLK));
        }
        count_mask::<f32>(B32_BLK);
        copy(&t_dst, tmp, &up);
        pipe_barrier::<PIPE_V>();
    }
    let tmp_int = tmp.reinterpret_cast::<u32>();
    duplicate(&tmp_int, 1u32, B32_REP);
    pipe_barrier::<PIPE_V>();
    let params = GatherMaskParams {
        src0_block_stride: 1,
        repeat_times: first as u16,
        src0_repeat_stride: 1,
        src1_repeat_stride: 0,
    };
    let _rsvd_cnt =
        gather_mask(dst, final_res_stored, GatherPattern::Tensor(&tmp_int), true, B32_BLK as u32, &params);
}

/// The scratch bytes `ReduceProd` writes: `AR`, the `Brcb` blocks (256 bytes), then without
/// reuse the row slots 8 apart and the last row's work; `RA` as `ReduceMax`.
fn prod_tmp_bytes(reduces_last: bool, reuse: bool, (first, last): (usize, usize)) -> usize {
    if !reduces_last {
        return max_min_tmp_bytes(false, reuse, (first, last), 4);
    }
    if reuse {
        return ONE_REPEAT_BYTE_SIZE;
    }
    let split = 1usize << last.ilog2();
    let work = if last >= B32_BLK && last != split {
        split
    } else if split > B32_BLK {
        split / 2
    } else {
        B32_BLK
    };
    ONE_REPEAT_BYTE_SIZE + ((first - 1) * B32_BLK + work) * 4
}

/// The product of each row (pattern [`AR`](pattern::AR)) or each column (pattern
/// [`RA`](pattern::RA)) of `src`, a `[first, last]` `float` source with rows padded to 32
/// bytes (AscendC `ReduceProd<T, pattern, isReuseSource>(dstTensor, srcTensor,
/// sharedTmpBuffer, srcShape, srcInnerPad)`), as the vendor's `ReduceProdImpl` on Ascend910B:
/// `AR` row by row, each row folded with `Mul` (the part past the largest power of two onto
/// the first, then halves down to 8), the 8 values spread to blocks with `Brcb` and folded to
/// one (a row shorter than 8 by its own power-of-two split), then all rows' results gathered
/// with `GatherMask`; `RA` as [`reduce_max_adv`]'s fold with `Mul`. Every `Mul` rounds in `f32`.
/// With `IS_REUSE_SOURCE` the rows fold in `src` (the scratch still holds the `Brcb` blocks).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 64 + 32 + 512);
/// let (x, y, tmp) = (q.get_with_len::<f32>(16), q.get_with_offset::<f32>(8, 64), q.get_with_offset::<u8>(448, 96));
/// x.copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0]);
/// reduce_prod::<f32, pattern::AR, false>(&y, &x, &tmp, &[2, 5], true);
/// assert_eq!((y.get_value(0), y.get_value(1)), (120.0, 32.0));
/// ```
///
/// # Panics
/// As [`reduce_max_adv`], the scratch by the bytes the call writes (at most
/// [`get_reduce_prod_max_min_tmp_size`]'s number); `AR` also needs it with reuse.
#[track_caller]
pub fn reduce_prod<T: ReduceSumElement, P: Pattern, const IS_REUSE_SOURCE: bool>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<u8>,
    src_shape: &[u32; 2],
    src_inner_pad: bool,
) {
    let (dst, src) = (dst_tensor.reinterpret_cast::<f32>(), src_tensor.reinterpret_cast::<f32>());
    let need = |f, l| prod_tmp_bytes(P::REDUCES_LAST, IS_REUSE_SOURCE, (f, l));
    let shape = check_xy::<f32, P, IS_REUSE_SOURCE>(
        REDUCE_PROD,
        "GetReduceProdMaxMinTmpSize",
        &dst,
        &src,
        shared_tmp_buffer,
        src_shape,
        src_inner_pad,
        need,
    );
    let tmp = shared_tmp_buffer.reinterpret_cast::<f32>();
    if P::REDUCES_LAST {
        prod_by_last_axis::<IS_REUSE_SOURCE>(&dst, &src, &tmp, shape);
    } else {
        by_first_axis::<f32, IS_REUSE_SOURCE>(Op::Mul, &dst, &src, &tmp, shape);
    }
    set_mask_norm();
    reset_mask();
}

/// [`reduce_prod`] with the stack buffer as scratch (AscendC `ReduceProd<T, pattern,
/// isReuseSource>(dstTensor, srcTensor, srcShape, srcInnerPad)`): the Unified Buffer after
/// the core's `TPipe` buffers (see [`pop_stack_buffer`](super::pop_stack_buffer)).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut q = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut q, 4 * 4 * 16);
/// let (x, y) = (q.get_with_len::<f32>(3 * 16), q.get_with_offset::<f32>(16, 3 * 16 * 4));
/// x.copy_from_slice(&[1.5f32; 3 * 16]);
/// reduce_prod_stack::<f32, pattern::RA, false>(&y, &x, &[3, 16], true);
/// assert_eq!(y.get_value(5), 1.5 * 1.5 * 1.5);
/// ```
///
/// # Panics
/// As [`reduce_prod`], and if the core has no `TPipe` or its buffers leave no room.
#[track_caller]
pub fn reduce_prod_stack<T: ReduceSumElement, P: Pattern, const IS_REUSE_SOURCE: bool>(
    dst_tensor: &LocalTensor<T>,
    src_tensor: &LocalTensor<T>,
    src_shape: &[u32; 2],
    src_inner_pad: bool,
) {
    let stack = stack_tensor(REDUCE_PROD);
    reduce_prod::<T, P, IS_REUSE_SOURCE>(dst_tensor, src_tensor, &stack, src_shape, src_inner_pad);
}

// ---- host ------------------------------------------------------------------------------------

/// The reduction patterns of the host helpers (AscendC `ReducePattern`); the helpers take
/// [`AR`](ReducePattern::AR) and [`RA`](ReducePattern::RA) only.
#[allow(clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducePattern {
    /// Reduce the last of two axes.
    AR,
    /// Reduce the first of two axes.
    RA,
    /// One reduced axis.
    R,
    /// Three axes, the middle reduced.
    ARA,
    /// Four axes, alternating, the last reduced.
    ARAR,
    /// Five axes, alternating.
    ARARA,
    /// Six axes, alternating.
    ARARAR,
    /// Seven axes, alternating.
    ARARARA,
    /// Eight axes, alternating.
    ARARARAR,
    /// Nine axes, alternating.
    ARARARARA,
    /// Three axes, the outer ones reduced.
    RAR,
    /// Four axes, alternating, the first reduced.
    RARA,
    /// Five axes, alternating, the first reduced.
    RARAR,
    /// Six axes, alternating, the first reduced.
    RARARA,
    /// Seven axes, alternating, the first reduced.
    RARARAR,
    /// Eight axes, alternating, the first reduced.
    RARARARA,
}

/// The vendor's host `CheckParams`: two dims, `isSrcInnerPad`, `AR`/`RA`, both axes non-zero;
/// returns `(first, last)`.
#[track_caller]
fn host_params(
    api: &'static str,
    src_shape: &[usize],
    is_src_inner_pad: bool,
    pattern: ReducePattern,
) -> (usize, usize) {
    ensure(src_shape.len() == 2, api, || {
        format!("srcShape has {} dims ({src_shape:?}); it must have 2", src_shape.len())
    });
    ensure(is_src_inner_pad, api, || "isSrcInnerPad = false; it must be true on this platform".into());
    ensure(matches!(pattern, ReducePattern::AR | ReducePattern::RA), api, || {
        format!("pattern = {pattern:?}; only AR and RA are supported")
    });
    let (first, last) = (src_shape[0], src_shape[1]);
    ensure(first > 0 && last > 0, api, || {
        format!("srcShape = [{first}, {last}]: both first and last axis must be greater than 0")
    });
    (first, last)
}

/// The vendor's data type check of a host helper.
#[track_caller]
fn host_type(api: &'static str, data_type: DType, allowed: &[DType], listed: &'static str) {
    ensure(allowed.contains(&data_type), api, || {
        format!("dataType = {} is unsupported; it only supports {listed} on this platform", data_type.name())
    });
}

macro_rules! max_min_host {
    ($(#[$doc:meta])* $name:ident, $api:literal, [$($ty:ident),+], $listed:literal) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name(
            src_shape: &[usize],
            data_type: DType,
            pattern: ReducePattern,
            is_src_inner_pad: bool,
            is_reuse_source: bool,
        ) -> (usize, usize) {
            host_type($api, data_type, &[$(DType::$ty),+], $listed);
            let shape = host_params($api, src_shape, is_src_inner_pad, pattern);
            let size = max_min_tmp_bytes(pattern == ReducePattern::AR, is_reuse_source, shape, data_type.size());
            (size, size)
        }
    };
}

max_min_host!(
    /// The temporary buffer's `(max, min)` bytes for [`reduce_max_adv`] (AscendC
    /// `GetReduceMaxMaxMinTmpSize(srcShape, dataType, pattern, isSrcInnerPad, isReuseSource,
    /// maxValue, minValue)`), both the vendor's one number: with `is_reuse_source` 0; for `AR`
    /// with rows of `last` elements (`E` a block), 0 up to `E`, a block a row below a repeat,
    /// else a repeat a row; for `RA`, `k` padded rows, `k` the largest power of two below
    /// `first` (or 1).
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(get_reduce_max_max_min_tmp_size(&[2, 8], DType::F32, ReducePattern::AR, true, false), (0, 0));
    /// assert_eq!(get_reduce_max_max_min_tmp_size(&[3, 20], DType::F32, ReducePattern::AR, true, false), (96, 96));
    /// assert_eq!(get_reduce_max_max_min_tmp_size(&[32, 136], DType::F32, ReducePattern::RA, true, false), (16 * 544, 16 * 544));
    /// ```
    ///
    /// # Panics
    /// Panics if `data_type` is not `F16` or `F32`; `src_shape` does not have two dims, or one
    /// is 0; `is_src_inner_pad` is false; or `pattern` is neither `AR` nor `RA`.
    get_reduce_max_max_min_tmp_size,
    "GetReduceMaxMaxMinTmpSize",
    [F32, F16],
    "float and half type"
);

max_min_host!(
    /// The temporary buffer's `(max, min)` bytes for [`reduce_min_adv`] (AscendC
    /// `GetReduceMinMaxMinTmpSize(…)`): as [`get_reduce_max_max_min_tmp_size`].
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(get_reduce_min_max_min_tmp_size(&[3, 200], DType::F16, ReducePattern::AR, true, false), (768, 768));
    /// ```
    ///
    /// # Panics
    /// As [`get_reduce_max_max_min_tmp_size`].
    get_reduce_min_max_min_tmp_size,
    "GetReduceMinMaxMinTmpSize",
    [F32, F16],
    "float and half type"
);

max_min_host!(
    /// The temporary buffer's `(max, min)` bytes for [`reduce_any`] (AscendC
    /// `GetReduceAnyMaxMinTmpSize(…)`): for `float` as [`get_reduce_max_max_min_tmp_size`].
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(get_reduce_any_max_min_tmp_size(&[5, 8], DType::F32, ReducePattern::RA, true, false), (128, 128));
    /// ```
    ///
    /// # Panics
    /// As [`get_reduce_max_max_min_tmp_size`], the types `F32` only.
    get_reduce_any_max_min_tmp_size,
    "GetReduceAnyMaxMinTmpSize",
    [F32],
    "float"
);

max_min_host!(
    /// The temporary buffer's `(max, min)` bytes for [`reduce_all`] (AscendC
    /// `GetReduceAllMaxMinTmpSize(…)`): for `float` as [`get_reduce_max_max_min_tmp_size`].
    ///
    /// ```
    /// use ascend_core::prelude::*;
    /// assert_eq!(get_reduce_all_max_min_tmp_size(&[4, 8], DType::F32, ReducePattern::RA, true, true), (0, 0));
    /// ```
    ///
    /// # Panics
    /// As [`get_reduce_any_max_min_tmp_size`].
    get_reduce_all_max_min_tmp_size,
    "GetReduceAllMaxMinTmpSize",
    [F32],
    "float"
);

/// The vendor's `GetReduceSumMeanCommonTmpSize`: with reuse 0; `AR`: 0 for rows of up to 64,
/// else `first * k` floats (`k` the largest power of two up to `last`, halved when it is
/// `last` and `first > 1`); `RA`: `k * padLast` floats (`k` as for `ReduceMax`).
#[track_caller]
fn sum_mean_host(
    api: &'static str,
    src_shape: &[usize],
    pattern: ReducePattern,
    pad: bool,
    reuse: bool,
) -> (usize, usize) {
    let (first, last) = host_params(api, src_shape, pad, pattern);
    if reuse {
        return (0, 0);
    }
    let size = if pattern == ReducePattern::AR {
        let mut k = 1usize << last.ilog2();
        if k == last && first > 1 {
            k >>= 1;
        }
        if last <= B32_REP {
            0
        } else {
            first * k * 4
        }
    } else {
        max_min_tmp_bytes(false, false, (first, last), 4)
    };
    (size, size)
}

/// The temporary buffer's `(max, min)` bytes for [`reduce_sum_adv`] (AscendC
/// `GetReduceSumMaxMinTmpSize(srcShape, dataType, pattern, isSrcInnerPad, isReuseSource,
/// maxValue, minValue)`), both the vendor's one number: with `is_reuse_source` 0; `AR`, 0 for
/// rows of up to 64 elements, else `4 * first * k`, `k` the largest power of two up to `last`
/// (halved when it is `last` and `first > 1`); `RA`, `k` padded rows as
/// [`get_reduce_max_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_reduce_sum_max_min_tmp_size(&[3, 64], DType::F32, ReducePattern::AR, true, false), (0, 0));
/// assert_eq!(get_reduce_sum_max_min_tmp_size(&[3, 100], DType::F32, ReducePattern::AR, true, false), (768, 768));
/// ```
///
/// # Panics
/// Panics if `data_type` is not `F32`; `src_shape` does not have two dims, or one is 0;
/// `is_src_inner_pad` is false; or `pattern` is neither `AR` nor `RA`.
#[track_caller]
pub fn get_reduce_sum_max_min_tmp_size(
    src_shape: &[usize],
    data_type: DType,
    pattern: ReducePattern,
    is_src_inner_pad: bool,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetReduceSumMaxMinTmpSize";
    host_type(API, data_type, &[DType::F32], "float type");
    sum_mean_host(API, src_shape, pattern, is_src_inner_pad, is_reuse_source)
}

/// The temporary buffer's `(max, min)` bytes for [`reduce_mean`] (AscendC
/// `GetReduceMeanMaxMinTmpSize(…)`): as [`get_reduce_sum_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_reduce_mean_max_min_tmp_size(&[5, 8], DType::F32, ReducePattern::RA, true, false), (128, 128));
/// ```
///
/// # Panics
/// As [`get_reduce_sum_max_min_tmp_size`].
#[track_caller]
pub fn get_reduce_mean_max_min_tmp_size(
    src_shape: &[usize],
    data_type: DType,
    pattern: ReducePattern,
    is_src_inner_pad: bool,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetReduceMeanMaxMinTmpSize";
    host_type(API, data_type, &[DType::F32], "float type");
    sum_mean_host(API, src_shape, pattern, is_src_inner_pad, is_reuse_source)
}

/// The temporary buffer's `(max, min)` bytes for [`reduce_prod`] (AscendC
/// `GetReduceProdMaxMinTmpSize(srcShape, dataType, pattern, isSrcInnerPad, isReuseSource,
/// maxValue, minValue)`), both the vendor's one number: with `is_reuse_source` 256 for `AR`
/// and 0 for `RA`; `AR`, `4 * (max(8, k) + 8 * first) + 256` (`k` the largest power of two up
/// to `last`, halved when it is `last` and `first > 1`); `RA` as
/// [`get_reduce_max_max_min_tmp_size`].
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_reduce_prod_max_min_tmp_size(&[2, 5], DType::F32, ReducePattern::AR, true, false), (352, 352));
/// assert_eq!(get_reduce_prod_max_min_tmp_size(&[2, 5], DType::F32, ReducePattern::AR, true, true), (256, 256));
/// ```
///
/// # Panics
/// Panics if `data_type` is not `F32`; `src_shape` does not have two dims, or one is 0;
/// `is_src_inner_pad` is false; or `pattern` is neither `AR` nor `RA`.
#[track_caller]
pub fn get_reduce_prod_max_min_tmp_size(
    src_shape: &[usize],
    data_type: DType,
    pattern: ReducePattern,
    is_src_inner_pad: bool,
    is_reuse_source: bool,
) -> (usize, usize) {
    const API: &str = "GetReduceProdMaxMinTmpSize";
    host_type(API, data_type, &[DType::F32], "float type");
    let (first, last) = host_params(API, src_shape, is_src_inner_pad, pattern);
    let ar = pattern == ReducePattern::AR;
    let size = if is_reuse_source {
        if ar {
            ONE_REPEAT_BYTE_SIZE
        } else {
            0
        }
    } else if ar {
        let mut k = 1usize << last.ilog2();
        if k == last && first > 1 {
            k >>= 1;
        }
        (k.max(B32_BLK) + first * B32_BLK) * 4 + ONE_REPEAT_BYTE_SIZE
    } else {
        max_min_tmp_bytes(false, false, (first, last), 4)
    };
    (size, size)
}
