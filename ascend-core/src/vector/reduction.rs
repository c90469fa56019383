//! AscendC's reductions: the per-repeat forms (`WholeReduceSum/Max/Min`, `RepeatReduceSum`),
//! the per-block forms (`BlockReduceSum/Max/Min`), `PairReduceSum`, the level-2 forms
//! (`ReduceSum`, `ReduceMax`, `ReduceMin` with their shared temporary buffer), the registers
//! they leave behind (`GetReduceRepeatSumSpr`, `GetReduceRepeatMaxMinSpr`) and the newer names
//! (`ReduceRepeat`, `ReduceDataBlock`, `ReducePairElem`).
//!
//! Element types: `half` on every chip, `float` on every chip but Ascend910 (a run-time error
//! naming the chip there); any other type does not compile ([`ReduceElement`]).
//!
//! **Order of operations.** Every sum is rounded to `T` (f16 saturating in saturation mode,
//! as for `vec_reduce_add`).
//! - Inside a repeat (`WholeReduceSum`, the first stage of `ReduceSum`): the binary tree over
//!   the repeat's `PAR` lanes — neighbours added level by level — with disabled lanes `+0`.
//!   Inside a block (`BlockReduceSum`): the same tree over the block's `EPB` lanes.
//! - `ReduceSum`, mask form (every chip) and count form (every chip but Ascend910B): the
//!   repeat results are written to the temporary buffer, summed `PAR` at a time by the same
//!   tree (the result of group `c` overwrites element `c`), and the group results summed by the
//!   tree again. The count form splits `count` into whole repeats (the body) and a tail repeat
//!   and adds the two results last (`body + tail`).
//! - `ReduceSum`, count form on Ascend910B: one counter-mode instruction — the tree inside each
//!   repeat, the repeat results added in order (`((r0 + r1) + r2) + …`); the temporary buffer
//!   is not used, and the result is also left in the reduce-sum register.
//! - Max and min are exact; among equal extremes the first lane (repeat by repeat, lane by
//!   lane) wins. A NaN never compares greater or less, so it wins only as the first enabled
//!   lane.
//!
//! **In place.** The level-2 forms accept `dst` starting at `src`'s first element (a row
//! reduced into its own first element), on every chip: each chip's implementation reads all of
//! `src` before it writes `dst` where a later read would see it (see `level2_avoid` in the
//! source for the per-chip reading). Any other overlap of `dst` and `src` is an error.
//!
//! **Indices** are stored in the value's type by reinterpretation: the low 16 bits of the
//! index for `half`, the 32-bit index for `float` (read them back with
//! `reinterpret_cast::<u16>()` / `::<u32>()`). `WholeReduceMax/Min` give the lane within the
//! repeat; `ReduceMax/Min` give the element offset in `src` (`r * srcRepStride * EPB + j`).

use crate::element::{DType, Element, F16_SAT_MAX};
use crate::kernel::ctx::{get_overflow_mode, get_soc, with_core};
use crate::kernel::error::ensure;
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, Soc};
use crate::vector::engine::{check_operand, restore_mask_defaults, span_of, Operand};
use crate::vector::mask::{normal_bits, resolve, Mask, Plan};
use crate::vector::reduce::{gather_repeats, pairwise, ReduceElement};

/// Where `WholeReduceMax`/`WholeReduceMin` put the value and the index of each repeat
/// (AscendC `ReduceOrder`).
///
/// | order | written per repeat | unit of `dstRepStride` |
/// | --- | --- | --- |
/// | `ORDER_VALUE_INDEX` | `[value, index]` | two elements |
/// | `ORDER_INDEX_VALUE` | `[index, value]` | two elements |
/// | `ORDER_ONLY_VALUE` | `[value]` | one element |
/// | `ORDER_ONLY_INDEX` | the index as a `uint32_t` | 4 bytes |
///
/// Chips: Ascend910B all four; Ascend310P value-index and index-value; Ascend310B value-index
/// and only-value; Ascend910 value-index only.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReduceOrder {
    /// `[value, index]` (the default).
    #[default]
    ORDER_VALUE_INDEX,
    /// `[index, value]`.
    ORDER_INDEX_VALUE,
    /// `[value]`.
    ORDER_ONLY_VALUE,
    /// `[index]`, a `uint32_t`.
    ORDER_ONLY_INDEX,
}

impl ReduceOrder {
    /// Whether `soc` supports this order.
    pub const fn supported_on(self, soc: Soc) -> bool {
        match soc {
            Soc::Ascend910B => true,
            Soc::Ascend310P => {
                matches!(self, ReduceOrder::ORDER_VALUE_INDEX | ReduceOrder::ORDER_INDEX_VALUE)
            }
            Soc::Ascend310B => matches!(self, ReduceOrder::ORDER_VALUE_INDEX | ReduceOrder::ORDER_ONLY_VALUE),
            Soc::Ascend910 => matches!(self, ReduceOrder::ORDER_VALUE_INDEX),
        }
    }
}

/// The operation of the newer generic names `ReduceRepeat`, `ReduceDataBlock`,
/// `ReducePairElem` (AscendC `ReduceType`, a template argument there, a value here).
#[allow(clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceType {
    /// Sum.
    SUM,
    /// Maximum.
    MAX,
    /// Minimum.
    MIN,
}

/// Fails unless the chip has the element type (`float` is missing on Ascend910).
#[track_caller]
fn check_type<T: ReduceElement>(api: &'static str) -> Soc {
    let soc = get_soc();
    ensure(!(soc == Soc::Ascend910 && T::DTYPE == DType::F32), api, || {
        format!("T = float is not supported by {api} on {soc} ({}): half only", soc.product_line())
    });
    soc
}

/// Whether f16 sums saturate.
fn saturating<T: Element>() -> bool {
    T::DTYPE == DType::F16 && get_overflow_mode() == OverflowMode::Saturation
}

/// Fails if `dstRepStride` is 0 on Ascend910, which does not support it.
#[track_caller]
fn check_dst_stride(api: &'static str, soc: Soc, dst_rep_stride: u16) {
    ensure(!(soc == Soc::Ascend910 && dst_rep_stride == 0), api, || {
        format!("dstRepStride = 0 is not supported on {soc} ({})", soc.product_line())
    });
}

/// The binary tree over `lanes` (copied; `lanes.len() <= 128`).
fn tree<T: ReduceElement>(lanes: &[f32], sat: bool) -> f32 {
    let mut t = [0f32; 128];
    t[..lanes.len()].copy_from_slice(lanes);
    pairwise::<T>(&mut t[..lanes.len()], sat)
}

/// Whether lane `j` of mask `m` is enabled.
#[inline]
fn lane_on(m: [u64; 2], j: usize) -> bool {
    m[j / 64] >> (j % 64) & 1 == 1
}

/// The extreme of the enabled lanes `range` of `lanes` and its lane, the first on ties.
fn extreme(lanes: &[f32], m: [u64; 2], range: core::ops::Range<usize>, max: bool) -> Option<(f32, usize)> {
    let mut best: Option<(f32, usize)> = None;
    for j in range.filter(|&j| lane_on(m, j)) {
        let x = lanes[j];
        match best {
            Some((b, _)) if !((max && x > b) || (!max && x < b)) => {}
            _ => best = Some((x, j)),
        }
    }
    best
}

/// One value a reduction writes to `dst`: `size` (2 or 4) bytes of `bits` at byte `off`.
#[derive(Clone, Copy)]
struct Put {
    off: usize,
    bits: u32,
    size: u8,
}

impl Put {
    /// A value of `T` (exactly representable) at byte `off`.
    fn val<T: ReduceElement>(off: usize, v: f32) -> Put {
        Put { off, bits: T::narrow(v).to_bits_u64() as u32, size: T::SIZE as u8 }
    }

    /// An index stored in `T`'s width (its low bits) at byte `off`.
    fn idx<T: Element>(off: usize, i: usize) -> Put {
        let bits = if T::SIZE == 2 { i as u32 & 0xffff } else { i as u32 };
        Put { off, bits, size: T::SIZE as u8 }
    }
}

/// The byte range of `src` that `plan` reads (checks `src` through the engine).
#[track_caller]
fn src_span<T: Element>(api: &'static str, op: &Operand<'_, T>, plan: &Plan) -> (usize, usize) {
    let ext = check_operand(api, op, plan);
    op.t.byte_range(ext)
}

/// Checks `dst` (UB position, alignment, size, no overlap with any of `avoid`) for every put,
/// then writes them in order.
#[track_caller]
fn commit<T: Element>(
    api: &'static str,
    dst: &LocalTensor<T>,
    align: usize,
    avoid: &[(&'static str, (usize, usize))],
    puts: &[Put],
) {
    check_puts(api, dst, align, avoid, puts);
    write_puts(api, dst, puts);
}

/// The checks of [`commit`], without writing.
#[track_caller]
fn check_puts<T: Element>(
    api: &'static str,
    dst: &LocalTensor<T>,
    align: usize,
    avoid: &[(&'static str, (usize, usize))],
    puts: &[Put],
) {
    ensure(dst.get_position().is_ub(), api, || {
        format!(
            "dst is at position {}: vector instructions take VECIN, VECOUT or VECCALC tensors",
            dst.get_position()
        )
    });
    let addr = dst.get_phy_addr();
    ensure(addr % align == 0, api, || format!("dst address = {addr:#x} is not {align}-byte aligned"));
    if puts.is_empty() {
        return;
    }
    let end = puts.iter().map(|p| p.off + usize::from(p.size)).max().unwrap_or(0);
    let lo = puts.iter().map(|p| p.off).min().unwrap_or(0);
    ensure(end <= dst.get_length(), api, || {
        format!(
            "dst would be written up to byte {end} but holds {} bytes ({} elements)",
            dst.get_length(),
            dst.get_size()
        )
    });
    let (d0, d1) = (addr + lo, addr + end);
    for &(name, (s0, s1)) in avoid {
        ensure(d1 <= s0 || s1 <= d0, api, || {
            format!("dst (bytes {d0:#x}..{d1:#x}) overlaps {name} (bytes {s0:#x}..{s1:#x}); they must be disjoint")
        });
    }
}

/// Writes puts already checked by [`check_puts`] (a V-pipe write of the bytes they span).
#[track_caller]
fn write_puts<T: Element>(api: &'static str, dst: &LocalTensor<T>, puts: &[Put]) {
    if let (Some(lo), Some(hi)) =
        (puts.iter().map(|p| p.off).min(), puts.iter().map(|p| p.off + usize::from(p.size)).max())
    {
        let (tag, a, _) = span_of(dst, 0);
        crate::observe::events::on_vector(api, &[], &[(tag, a + lo, a + hi)]);
    }
    let base = dst.ptr().cast::<u8>();
    for p in puts {
        // SAFETY: `p.off + p.size <= dst.get_length()` (checked by `check_puts`), so the bytes lie inside
        // dst's UB allocation; no slice of UB memory is alive during an instruction.
        unsafe {
            if p.size == 2 {
                base.add(p.off).cast::<u16>().write_unaligned(p.bits as u16)
            } else {
                base.add(p.off).cast::<u32>().write_unaligned(p.bits)
            }
        }
    }
}

// ---- the per-repeat forms: WholeReduce / RepeatReduce / BlockReduce / PairReduce ------------

/// The operands and addressing every per-repeat, per-block and per-pair form takes (the public
/// forms differ only in the order of these parameters and in what they add to them).
struct Repeats<'a, T: Element> {
    dst: &'a LocalTensor<T>,
    src: &'a LocalTensor<T>,
    mask: Mask,
    repeat_time: u8,
    dst_rep_stride: u16,
    src_blk_stride: u16,
    src_rep_stride: u16,
}

/// A per-repeat call checked as far as reading `src`: the chip, the plan of the mask and
/// repeats, `src` as an operand and the bytes it reads, and whether f16 sums saturate.
struct Started<'a, T: Element> {
    soc: Soc,
    plan: Plan,
    s: Operand<'a, T>,
    span: (usize, usize),
    sat: bool,
}

impl<'a, T: ReduceElement> Repeats<'a, T> {
    /// The checks every per-repeat form starts with, in order: the type on the chip,
    /// `dstRepStride`, `order` (when given) on the chip, the mask, `src`. `None` when there is
    /// nothing to do (`repeatTime = 0`).
    #[track_caller]
    fn start<const IS_SET_MASK: bool>(
        &self,
        api: &'static str,
        order: Option<ReduceOrder>,
    ) -> Option<Started<'a, T>> {
        let soc = check_type::<T>(api);
        check_dst_stride(api, soc, self.dst_rep_stride);
        if let Some(order) = order {
            ensure(order.supported_on(soc), api, || {
                format!("order = {order:?} is not supported on {soc} ({})", soc.product_line())
            });
        }
        let plan = resolve::<T, IS_SET_MASK>(api, self.mask, usize::from(self.repeat_time))?;
        let s = Operand::new(self.src, self.src_blk_stride, self.src_rep_stride, "src");
        let span = src_span(api, &s, &plan);
        Some(Started { soc, plan, s, span, sat: saturating::<T>() })
    }
}

/// The shared body of the per-repeat reductions (`order` is ignored for `SUM`).
#[track_caller]
fn whole<T: ReduceElement, const IS_SET_MASK: bool>(
    r: Repeats<'_, T>,
    api: &'static str,
    op: ReduceType,
    order: ReduceOrder,
) {
    let _one = crate::observe::events::fuse_vector(api);
    let Some(Started { plan, s, span, sat, .. }) =
        r.start::<IS_SET_MASK>(api, (op != ReduceType::SUM).then_some(order))
    else {
        return;
    };
    let (unit, align) = match (op, order) {
        (ReduceType::SUM, _) | (_, ReduceOrder::ORDER_ONLY_VALUE) => (T::SIZE, T::SIZE),
        (_, ReduceOrder::ORDER_ONLY_INDEX) => (4, 4),
        _ => (2 * T::SIZE, 2 * T::SIZE),
    };
    let step = unit * usize::from(r.dst_rep_stride);
    let mut puts = Vec::with_capacity(plan.repeats * 2);
    let mut best: Option<(f32, usize)> = None;
    gather_repeats(api, &plan, &s, |rep, lanes| {
        let at = rep * step;
        if op == ReduceType::SUM {
            puts.push(Put::val::<T>(at, tree::<T>(lanes, sat)));
            return;
        }
        let max = op == ReduceType::MAX;
        let (v, j) = extreme(lanes, plan.mask_of(rep), 0..T::PAR, max).expect("a repeat enables a lane");
        if best.is_none_or(|(b, _)| (max && v > b) || (!max && v < b)) {
            best = Some((v, j));
        }
        match order {
            ReduceOrder::ORDER_VALUE_INDEX => {
                puts.push(Put::val::<T>(at, v));
                puts.push(Put::idx::<T>(at + T::SIZE, j));
            }
            ReduceOrder::ORDER_INDEX_VALUE => {
                puts.push(Put::idx::<T>(at, j));
                puts.push(Put::val::<T>(at + T::SIZE, v));
            }
            ReduceOrder::ORDER_ONLY_VALUE => puts.push(Put::val::<T>(at, v)),
            ReduceOrder::ORDER_ONLY_INDEX => puts.push(Put { off: at, bits: j as u32, size: 4 }),
        }
    });
    let avoid = src_unless_in_place(&r, span, plan.repeats, step, unit);
    commit(api, r.dst, align, avoid.as_slice(), &puts);
    if let Some((v, j)) = best {
        set_max_min_spr::<T>(v, j);
    }
}

fn set_max_min_spr<T: ReduceElement>(v: f32, index: usize) {
    let reg = T::narrow(v).to_bits_u64() | ((index as u64) << 32);
    with_core(|c| c.reduce_max_min_spr.set(reg));
}

/// The shared body of the per-block and per-pair reductions. `group` lanes form one result:
/// `EPB` (a block) or 2 (a pair, which only sums).
#[track_caller]
fn grouped<T: ReduceElement, const IS_SET_MASK: bool>(
    r: Repeats<'_, T>,
    api: &'static str,
    op: ReduceType,
    group: usize,
) {
    let _one = crate::observe::events::fuse_vector(api);
    if group == 2 {
        ensure(op == ReduceType::SUM, api, || format!("reduceType = {op:?}: only SUM is supported"));
    }
    let Some(Started { soc, plan, s, span, sat }) = r.start::<IS_SET_MASK>(api, None) else {
        return;
    };
    let per_repeat = T::PAR / group;
    // Ascend310B writes a default for a block or pair with no enabled lane; the other chips
    // keep dst. For pairs: `ReducePairElem.md` (约束说明) and the `dav_m300` implementation
    // (`impl/basic_api/dav_m300/kernel_operator_vec_reduce_impl.h`, `PairReduceSumImpl`), which
    // runs `vcpadd` in `MODE_ZEROING` and stores all `PAR / 2` results unmasked (`vstus`): such
    // a pair is written 0.
    let fill = (soc == Soc::Ascend310B && (group == T::EPB || group == 2)).then(|| {
        let big = if T::DTYPE == DType::F16 { F16_SAT_MAX } else { f32::INFINITY };
        match op {
            ReduceType::SUM => 0.0,
            ReduceType::MAX => -big,
            ReduceType::MIN => big,
        }
    });
    let mut puts = Vec::with_capacity(plan.repeats * per_repeat);
    gather_repeats(api, &plan, &s, |rep, lanes| {
        let m = plan.mask_of(rep);
        for g in 0..per_repeat {
            let lanes_g = g * group..(g + 1) * group;
            let at = (rep * usize::from(r.dst_rep_stride) * per_repeat + g) * T::SIZE;
            if !lanes_g.clone().any(|j| lane_on(m, j)) {
                if let Some(v) = fill {
                    puts.push(Put::val::<T>(at, v));
                }
                continue;
            }
            let v = match op {
                ReduceType::SUM => tree::<T>(&lanes[lanes_g], sat),
                ReduceType::MAX | ReduceType::MIN => {
                    extreme(lanes, m, lanes_g, op == ReduceType::MAX).expect("a lane is enabled").0
                }
            };
            puts.push(Put::val::<T>(at, v));
        }
    });
    let step = usize::from(r.dst_rep_stride) * per_repeat * T::SIZE;
    let avoid = src_unless_in_place(&r, span, plan.repeats, step, per_repeat * T::SIZE);
    // `ReduceDataBlock`'s page: `dst` 16-byte aligned for half, 32-byte for float (the 8 results
    // of one repeat); `ReducePairElem`'s: 32-byte aligned.
    let align = if group == 2 { 32 } else { per_repeat * T::SIZE };
    commit(api, r.dst, align, avoid.as_slice(), &puts);
}

/// The byte ranges `dst` must avoid for a per-repeat reduction: `src`'s lanes, unless the call
/// works in place — `dst` starts at `src` and no repeat's results (`unit` bytes every `step`)
/// reach the bytes a later repeat reads (from `(r + 1) * srcRepStride` blocks on). The chip
/// reads a repeat before writing its results, so such a call gives the same results as one
/// whose reads all come first, which is how it is computed here.
fn src_unless_in_place<T: Element>(
    r: &Repeats<'_, T>,
    span: (usize, usize),
    repeats: usize,
    step: usize,
    unit: usize,
) -> Vec<(&'static str, (usize, usize))> {
    let rep_bytes = usize::from(r.src_rep_stride) * 32;
    let in_place = r.dst.get_phy_addr() == r.src.get_phy_addr()
        && (0..repeats.saturating_sub(1)).all(|k| k * step + unit <= (k + 1) * rep_bytes);
    if in_place {
        Vec::new()
    } else {
        vec![("src", span)]
    }
}

macro_rules! whole_doc_example {
    ($call:literal, $check:literal) => {
        concat!(
            "```\n",
            "use ascend_core::prelude::*;\n",
            "let mut pipe = TPipe::new();\n",
            "let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());\n",
            "pipe.init_tbuf(&mut a, 512);\n",
            "pipe.init_tbuf(&mut b, 64);\n",
            "let (src, dst) = (a.get::<f16>(), b.get::<f16>());\n",
            "src.copy_from_slice(&(0..256).map(|i| f16::from_f32((i % 128) as f32)).collect::<Vec<_>>());\n",
            $call,
            "\n",
            $check,
            "\n```\n"
        )
    };
}

/// Declares the public per-repeat forms. A form is written as its parameter list, in AscendC's
/// order, and the shared body it hands its operands to: `fn name(params) => body(args);`. The
/// operands `dst`, `src` (`&LocalTensor<T>`), `mask` (`impl Into<Mask>`), `repeat_time` (`u8`)
/// and the strides (`u16`) are named alone and reach the body as one [`Repeats`]; any other
/// parameter is written with its type and may be used in `args`, which follow the `Repeats`.
macro_rules! per_repeat_forms {
    ($($(#[$doc:meta])* fn $name:ident($($params:tt)*) => $body:ident($($arg:expr),*);)+) => {$(
        per_repeat_forms!(@munch ($(#[$doc])*) $name $body ($($arg),*) [] [] $($params)*);
    )+};
    // A parameter of the form's own, with its type.
    (@munch $docs:tt $name:ident $body:ident $args:tt [$($sig:tt)*] [$($field:tt)*]
        $p:ident: $t:ty $(, $($rest:tt)*)?) => {
        per_repeat_forms!(@munch $docs $name $body $args [$($sig)* $p: $t,] [$($field)*] $($($rest)*)?);
    };
    // An operand of `Repeats`.
    (@munch $docs:tt $name:ident $body:ident $args:tt [$($sig:tt)*] [$($field:tt)*]
        $p:ident $(, $($rest:tt)*)?) => {
        per_repeat_forms!(
            @munch $docs $name $body $args
            [$($sig)* $p: per_repeat_forms!(@ty $p),]
            [$($field)* $p: per_repeat_forms!(@val $p $p),]
            $($($rest)*)?
        );
    };
    (@munch ($($doc:tt)*) $name:ident $body:ident ($($arg:expr),*) [$($sig:tt)*] [$($field:tt)*]) => {
        $($doc)*
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        pub fn $name<T: ReduceElement, const IS_SET_MASK: bool>($($sig)*) {
            $body::<T, IS_SET_MASK>(Repeats { $($field)* }, $($arg),*);
        }
    };
    (@ty dst) => { &LocalTensor<T> };
    (@ty src) => { &LocalTensor<T> };
    (@ty mask) => { impl Into<Mask> };
    (@ty repeat_time) => { u8 };
    (@ty $stride:ident) => { u16 };
    (@val mask $v:ident) => { $v.into() };
    (@val $p:ident $v:ident) => { $v };
}

per_repeat_forms! {
    /// Sums the enabled lanes of each repeat into `dst` (AscendC `WholeReduceSum<T, isSetMask>(dst,
    /// src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)`; `ReduceRepeat<SUM>`).
    ///
    /// Repeat `r`'s sum (the binary tree over its lanes, disabled lanes `+0`) goes to element
    /// `r * dst_rep_stride` of `dst`. `src` is addressed as every vector instruction (block and
    /// repeat strides in 32-byte blocks); the mask follows `IS_SET_MASK` and the core's mask mode
    /// (in counter mode the mask is the element count). `repeat_time = 0` does nothing.
    ///
    #[doc = whole_doc_example!(
        "whole_reduce_sum::<f16, true>(&dst, &src, 128u64, 2, 1, 1, 8);",
        "assert_eq!(dst.get_value(0).to_f32(), 8128.0);\nassert_eq!(dst.get_value(1).to_f32(), 8128.0);"
    )]
    ///
    /// # Panics
    /// Panics if `T` is `float` on Ascend910; `dst_rep_stride` is 0 on Ascend910; the mask is out
    /// of range (`IS_SET_MASK = false` ignores the argument); an operand is not a UB
    /// tensor, `src` not 32-byte aligned or `dst` not aligned to its element; an enabled lane or a
    /// result lies outside its tensor; or the results overlap the lanes read (in place — `dst`
    /// starting at `src` — is allowed while no repeat's results reach a later repeat's lanes).
    fn whole_reduce_sum(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride)
        => whole("WholeReduceSum", ReduceType::SUM, ReduceOrder::ORDER_VALUE_INDEX);

    /// The maximum of the enabled lanes of each repeat and its lane, placed by `order` (AscendC
    /// `WholeReduceMax<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
    /// srcRepStride, order)`; `ReduceRepeat<MAX>`).
    ///
    /// See [`ReduceOrder`] for the layout and the unit of `dst_rep_stride`. The index is the lane
    /// within the repeat (the first one among equal maxima), stored in `T`'s bits. The call also
    /// loads the max/min register ([`get_reduce_repeat_max_min_spr`]) with the maximum over all
    /// repeats and its lane.
    ///
    #[doc = whole_doc_example!(
        "whole_reduce_max::<f16, true>(&dst, &src, 128u64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);",
        "assert_eq!(dst.get_value(0).to_f32(), 127.0);\nassert_eq!(dst.reinterpret_cast::<u16>().get_value(1), 127);"
    )]
    ///
    /// # Panics
    /// As [`whole_reduce_sum`], and if the chip does not support `order`.
    fn whole_reduce_max(
        dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, order: ReduceOrder
    ) => whole("WholeReduceMax", ReduceType::MAX, order);

    /// The minimum of the enabled lanes of each repeat and its lane, placed by `order` (AscendC
    /// `WholeReduceMin`; `ReduceRepeat<MIN>`). As [`whole_reduce_max`] with the minimum.
    ///
    #[doc = whole_doc_example!(
        "whole_reduce_min::<f16, true>(&dst, &src, 128u64, 2, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);",
        "assert_eq!(dst.reinterpret_cast::<u16>().get_value(0), 0);\nassert_eq!(dst.get_value(1).to_f32(), 0.0);"
    )]
    ///
    /// # Panics
    /// As [`whole_reduce_max`].
    fn whole_reduce_min(
        dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, order: ReduceOrder
    ) => whole("WholeReduceMin", ReduceType::MIN, order);

    /// The newer generic name of the per-repeat reductions (AscendC `ReduceRepeat<reduceType, T, U,
    /// isSetMask>`): [`whole_reduce_sum`], [`whole_reduce_max`] or [`whole_reduce_min`] by
    /// `reduce_type` (`order` is ignored for `SUM`).
    ///
    #[doc = whole_doc_example!(
        "reduce_repeat::<f16, true>(ReduceType::MAX, &dst, &src, 128u64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);",
        "assert_eq!(dst.get_value(1).to_f32(), 127.0);"
    )]
    ///
    /// # Panics
    /// As the function it stands for.
    fn reduce_repeat(
        reduce_type: ReduceType, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
        order: ReduceOrder,
    ) => whole(repeat_api(reduce_type), reduce_type, order);

    /// Sums each 32-byte block of each repeat (AscendC `BlockReduceSum<T, isSetMask>(dst, src,
    /// repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)`; `ReduceDataBlock<SUM>`).
    ///
    /// Block `b` of repeat `r` (its enabled lanes, by the binary tree, disabled lanes `+0`) goes
    /// to element `r * dst_rep_stride * 8 + b` of `dst` (`dst_rep_stride` in units of the 8
    /// results of a repeat). A block with no enabled lane leaves its result element unchanged,
    /// except on Ascend310B, which writes 0 there.
    ///
    #[doc = whole_doc_example!(
        "block_reduce_sum::<f16, true>(&dst, &src, 2, 128u64, 1, 1, 8);",
        "assert_eq!(dst.get_value(1).to_f32(), (16..32).sum::<i32>() as f32);"
    )]
    ///
    /// # Panics
    /// As [`whole_reduce_sum`]; `dst` must be aligned to the 8 results of a repeat (16 bytes for
    /// half, 32 for float).
    fn block_reduce_sum(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride)
        => grouped("BlockReduceSum", ReduceType::SUM, T::EPB);

    /// The maximum of each 32-byte block of each repeat (AscendC `BlockReduceMax`;
    /// `ReduceDataBlock<MAX>`). Layout as [`block_reduce_sum`]; a block with no enabled lane is
    /// left unchanged, except on Ascend310B, which writes `-65504` (half) or `-inf` (float).
    ///
    #[doc = whole_doc_example!(
        "block_reduce_max::<f16, true>(&dst, &src, 2, 128u64, 1, 1, 8);",
        "assert_eq!(dst.get_value(0).to_f32(), 15.0);"
    )]
    ///
    /// # Panics
    /// As [`block_reduce_sum`].
    fn block_reduce_max(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride)
        => grouped("BlockReduceMax", ReduceType::MAX, T::EPB);

    /// The minimum of each 32-byte block of each repeat (AscendC `BlockReduceMin`;
    /// `ReduceDataBlock<MIN>`). Layout as [`block_reduce_sum`]; a block with no enabled lane is
    /// left unchanged, except on Ascend310B, which writes `65504` (half) or `inf` (float).
    ///
    #[doc = whole_doc_example!(
        "block_reduce_min::<f16, true>(&dst, &src, 2, 128u64, 1, 1, 8);",
        "assert_eq!(dst.get_value(2).to_f32(), 32.0);"
    )]
    ///
    /// # Panics
    /// As [`block_reduce_sum`].
    fn block_reduce_min(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride)
        => grouped("BlockReduceMin", ReduceType::MIN, T::EPB);

    /// Sums neighbouring lanes `(2k, 2k + 1)` of each repeat (AscendC `PairReduceSum<T,
    /// isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)`;
    /// `ReducePairElem<SUM>`).
    ///
    /// Pair `k` of repeat `r` goes to element `r * dst_rep_stride * PAR / 2 + k` of `dst`
    /// (`dst_rep_stride` in units of the 128 bytes a repeat produces). A disabled lane counts as
    /// `+0`; a pair with neither lane enabled leaves its result element unchanged, except on
    /// Ascend310B, which writes `0` there (`ReducePairElem.md`, 约束说明; the `dav_m300`
    /// implementation runs `vcpadd` in zeroing mode and stores every result unmasked).
    ///
    #[doc = whole_doc_example!(
        "pair_reduce_sum::<f16, true>(&dst, &src, 1, 64u64, 1, 1, 8);",
        "assert_eq!(dst.get_value(3).to_f32(), 13.0);"
    )]
    ///
    /// # Panics
    /// As [`whole_reduce_sum`]; `dst` must be 32-byte aligned.
    fn pair_reduce_sum(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride)
        => grouped("PairReduceSum", ReduceType::SUM, 2);

    /// The newer generic name of the per-block reductions (AscendC `ReduceDataBlock<reduceType, T,
    /// U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)` — note
    /// the mask before the repeat count).
    ///
    #[doc = whole_doc_example!(
        "reduce_data_block::<f16, true>(ReduceType::MIN, &dst, &src, 128u64, 2, 1, 1, 8);",
        "assert_eq!(dst.get_value(2).to_f32(), 32.0);"
    )]
    ///
    /// # Panics
    /// As [`block_reduce_sum`].
    fn reduce_data_block(
        reduce_type: ReduceType, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
        src_rep_stride,
    ) => grouped("ReduceDataBlock", reduce_type, T::EPB);

    /// The newer name of [`pair_reduce_sum`] (AscendC `ReducePairElem<ReduceType::SUM, T, U,
    /// isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)`).
    ///
    #[doc = whole_doc_example!(
        "reduce_pair_elem::<f16, true>(ReduceType::SUM, &dst, &src, 64u64, 1, 1, 1, 8);",
        "assert_eq!(dst.get_value(3).to_f32(), 13.0);"
    )]
    ///
    /// # Panics
    /// As [`pair_reduce_sum`], and if `reduce_type` is not `SUM` (the only one documented).
    fn reduce_pair_elem(
        reduce_type: ReduceType, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
        src_rep_stride,
    ) => grouped("ReducePairElem", reduce_type, 2);
}

/// `WholeReduceSum` with a continuous mask of `mask` lanes (AscendC `RepeatReduceSum<T,
/// isSetMask>(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride,
/// srcRepStride)`; `dst_blk_stride` is accepted and unused, as in the vendor's implementation).
///
#[doc = whole_doc_example!(
    "repeat_reduce_sum::<f16, true>(&dst, &src, 2, 128, 0, 1, 1, 8);",
    "assert_eq!(dst.get_value(1).to_f32(), 8128.0);"
)]
///
/// # Panics
/// As [`whole_reduce_sum`].
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn repeat_reduce_sum<T: ReduceElement, const IS_SET_MASK: bool>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: u8,
    mask: u64,
    _dst_blk_stride: u16,
    src_blk_stride: u16,
    dst_rep_stride: u16,
    src_rep_stride: u16,
) {
    let r = Repeats {
        dst,
        src,
        mask: Mask::Count(mask),
        repeat_time,
        dst_rep_stride,
        src_blk_stride,
        src_rep_stride,
    };
    whole::<T, IS_SET_MASK>(r, "RepeatReduceSum", ReduceType::SUM, ReduceOrder::ORDER_VALUE_INDEX);
}

/// The API name of [`reduce_repeat`] for `reduce_type`.
const fn repeat_api(reduce_type: ReduceType) -> &'static str {
    match reduce_type {
        ReduceType::SUM => "ReduceRepeat<SUM>",
        ReduceType::MAX => "ReduceRepeat<MAX>",
        ReduceType::MIN => "ReduceRepeat<MIN>",
    }
}

// ---- level 2: ReduceSum / ReduceMax / ReduceMin ----------------------------------------------

/// Elements of the shared temporary buffer `ReduceSum` needs for `first` first-stage repeats:
/// `first` rounded up to whole blocks (the vendor's documented formula).
fn sum_work_need<T: Element>(first: usize) -> usize {
    first.div_ceil(T::EPB) * T::EPB
}

/// Elements of the shared temporary buffer `ReduceMax`/`ReduceMin` need for `first`
/// first-stage repeats (the vendor's documented formula, with and without the index).
fn max_min_work_need<T: Element>(first: usize, cal_index: bool) -> usize {
    let (epb, par) = (T::EPB, T::PAR);
    let iter1 = first * 2;
    let iter1_end = iter1.div_ceil(epb) * epb;
    if !cal_index {
        return iter1_end;
    }
    let iter2 = iter1.div_ceil(par) * 2;
    let iter2_end = iter2.div_ceil(epb) * epb;
    if iter2 > 2 {
        let iter3 = iter2.div_ceil(par) * 2;
        iter1_end + iter2_end + iter3.div_ceil(epb) * epb
    } else {
        iter1_end + iter2_end
    }
}

/// The repeat-results-to-total stage of `ReduceSum` (mode 2): returns the total and the
/// temporary buffer's contents afterwards (`results.len()` elements).
fn sum_stages<T: ReduceElement>(results: &[f32], sat: bool) -> (f32, Vec<f32>) {
    let mut work = results.to_vec();
    if results.len() == 1 {
        return (results[0], work);
    }
    let par = T::PAR;
    let groups = results.len().div_ceil(par);
    for c in 0..groups {
        let end = ((c + 1) * par).min(results.len());
        work[c] = tree::<T>(&work[c * par..end], sat);
    }
    let total = if groups == 1 { work[0] } else { tree::<T>(&work[..groups], sat) };
    (total, work)
}

/// Checks a shared temporary buffer: a 32-byte aligned UB tensor of at least `need` elements
/// whose used elements do not meet `src`'s lanes. Returns its used byte range.
#[track_caller]
fn check_work<T: Element>(
    api: &'static str,
    work: &LocalTensor<T>,
    need: usize,
    src: (usize, usize),
) -> (usize, usize) {
    work.check_vector_operand(api, "sharedTmpBuffer");
    ensure(work.get_size() >= need, api, || {
        format!("sharedTmpBuffer holds {} elements but this call needs at least {need}", work.get_size())
    });
    let w = work.byte_range(need);
    ensure(w.1 <= src.0 || src.1 <= w.0, api, || {
        format!(
            "sharedTmpBuffer (bytes {:#x}..{:#x}) overlaps src (bytes {:#x}..{:#x}); they must be disjoint",
            w.0, w.1, src.0, src.1
        )
    });
    w
}

/// The byte ranges a level-2 result (`ReduceSum`, `ReduceMax`, `ReduceMin`, mask and count
/// forms) must avoid: `src`'s lanes, unless `dst` starts at `src`'s first element (in place).
///
/// In place is accepted on every modelled chip because every chip's implementation reads all of
/// `src` before it writes `dst` where a later read could see it (issue 32, item 1; a published
/// softmax operator reduces a row into its own first element):
/// - Ascend910B count-form `ReduceSum` (`impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h`,
///   `ReduceSumImpl(dst, src, count)`): one counter-mode `vcadd` reads the whole row, and the
///   scalar unit then stores the accumulator into `dst[0]`.
/// - Every other form and chip (`dav_c100`, `dav_m200`, `dav_c220`, `dav_m300`,
///   `ReduceSumFirstStep` / `ReduceImplFirstStep`, and the one-repeat `ReduceOperation` into
///   the temporary buffer): the first stage reads every repeat of `src` into the temporary
///   buffer; later stages read only that buffer. The count form's tail call reads `src` from
///   element `PAR * (count / PAR)` on, past the one or two elements the body's result wrote.
///
/// Any other overlap of `dst` with `src` stays an error: the vendor's pages ask for disjoint
/// operands, and where `dst` lands inside a later-read part of `src` the result would depend on
/// the order of the chip's steps.
fn level2_avoid<T: Element>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    span: (usize, usize),
) -> Vec<(&'static str, (usize, usize))> {
    if std::ptr::eq(dst.ptr(), src.ptr()) {
        Vec::new()
    } else {
        vec![("src (in place, dst may only start at src's first element)", span)]
    }
}

/// Writes `vals` to the first elements of `work` (a V-pipe write).
#[track_caller]
fn store_work<T: ReduceElement>(api: &'static str, work: &LocalTensor<T>, vals: &[f32]) {
    crate::observe::events::on_vector(api, &[], &[span_of(work, vals.len() * T::SIZE)]);
    let p = work.ptr();
    for (i, &v) in vals.iter().enumerate() {
        // SAFETY: `check_work` ensured `work` holds at least `vals.len()` elements (every
        // caller's `need` covers them); no slice of UB memory is alive during an instruction.
        unsafe { p.add(i).write(T::narrow(v)) };
    }
}

/// Validates a level-2 repeat count or element count (`0` is a no-op; negative fails).
#[track_caller]
fn check_count(api: &'static str, name: &str, n: i32) -> usize {
    ensure(n >= 0, api, || format!("{name} = {n} must not be negative"));
    n as usize
}

/// The checks every level-2 mask form starts with, in order: the type on the chip,
/// `repeatTime` (not negative; at most `limit` when given, which is `ReduceSum`'s),
/// `srcRepStride`, the mask. Returns the plan, or `None` for `repeatTime = 0`.
#[track_caller]
fn start_masked<T: ReduceElement>(
    api: &'static str,
    mask: Mask,
    repeat_time: i32,
    src_rep_stride: i32,
    limit: Option<usize>,
) -> Option<Plan> {
    check_type::<T>(api);
    let repeats = check_count(api, "repeatTime", repeat_time);
    if let Some(limit) = limit {
        ensure(repeats <= limit, api, || {
            format!(
                "repeatTime = {repeats} is above {limit}: the group results must fit one repeat of {}",
                T::DTYPE
            )
        });
    }
    ensure((0..=65535).contains(&src_rep_stride), api, || {
        format!("srcRepStride = {src_rep_stride} is out of range [0, 65535]")
    });
    let bits = normal_bits::<T>(api, mask);
    (repeats > 0).then_some(Plan { repeats, bits, last: bits })
}

/// The checks every level-2 count form starts with: the type on the chip and `count`. Returns
/// the chip and the count, or `None` for `count = 0`.
#[track_caller]
fn start_count<T: ReduceElement>(api: &'static str, count: i32) -> Option<(Soc, usize)> {
    let soc = check_type::<T>(api);
    let count = check_count(api, "count", count);
    (count > 0).then_some((soc, count))
}

/// The sum of each repeat of `plan` over `s` (the tree over its lanes).
#[track_caller]
fn repeat_sums<T: ReduceElement>(api: &'static str, plan: &Plan, s: &Operand<'_, T>, sat: bool) -> Vec<f32> {
    let mut results = Vec::with_capacity(plan.repeats);
    gather_repeats(api, plan, s, |_, lanes| results.push(tree::<T>(lanes, sat)));
    results
}

/// Writes a `ReduceSum` result: `total` to `dst[0]` and `work` to the temporary buffer. `dst`
/// may share bytes with the buffer (documented), so it is checked first and written last.
#[track_caller]
fn put_sum<T: ReduceElement>(
    api: &'static str,
    dst: &LocalTensor<T>,
    buffer: &LocalTensor<T>,
    src_span: Vec<(&'static str, (usize, usize))>,
    total: f32,
    work: &[f32],
) {
    let put = [Put::val::<T>(0, total)];
    check_puts(api, dst, T::SIZE, &src_span, &put);
    store_work(api, buffer, work);
    write_puts(api, dst, &put);
}

/// Sums the enabled lanes of `repeat_time` repeats of `src` into `dst[0]` (AscendC
/// `ReduceSum<T>(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride)`, continuous and
/// bit masks), in the order of the [module documentation](self) (every chip: the tree in each
/// repeat, then groups of `PAR` repeat results by the tree, then the groups by the tree).
///
/// The mask is always a normal-mode mask (the call sets it; the core's mask mode does not
/// apply). Afterwards `shared_tmp_buffer[r]` holds the result of repeat-group `r` for `r <
/// ceil(repeatTime / PAR)` and the result of repeat `r` above that (with one repeat, that
/// repeat's result); it must hold `repeatTime` rounded up to whole blocks.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 8320 * 2);
/// pipe.init_tbuf(&mut b, 32);
/// pipe.init_tbuf(&mut c, 256);
/// let (src, dst, work) = (a.get::<f16>(), b.get::<f16>(), c.get::<f16>());
/// src.copy_from_slice(&vec![f16::ONE; 8320]);
/// reduce_sum_masked(&dst, &src, &work, 128u64, 65, 8);
/// assert_eq!(dst.get_value(0).to_f32(), 8320.0);
/// ```
///
/// # Panics
/// Panics if `T` is `float` on Ascend910; `repeat_time` is negative or above `PAR * PAR`
/// (the group results must fit one repeat); the mask is out of range; an operand is not a
/// 32-byte aligned UB tensor; a lane lies outside `src`; the temporary buffer is too small; or
/// `src` overlaps the temporary buffer, or `dst` other than in place (`dst` starting at `src`'s
/// first element is accepted: every chip reads all of `src` first).
#[track_caller]
pub fn reduce_sum_masked<T: ReduceElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<T>,
    mask: impl Into<Mask>,
    repeat_time: i32,
    src_rep_stride: i32,
) {
    const API: &str = "ReduceSum";
    let _one = crate::observe::events::fuse_vector(API);
    let limit = Some(T::PAR * T::PAR);
    let Some(plan) = start_masked::<T>(API, mask.into(), repeat_time, src_rep_stride, limit) else {
        return;
    };
    let s = Operand::new(src, 1usize, src_rep_stride as usize, "src");
    let span = src_span(API, &s, &plan);
    check_work(API, shared_tmp_buffer, sum_work_need::<T>(plan.repeats), span);
    let sat = saturating::<T>();
    let (total, work) = sum_stages::<T>(&repeat_sums(API, &plan, &s, sat), sat);
    put_sum(API, dst, shared_tmp_buffer, level2_avoid(dst, src, span), total, &work);
}

/// Sums elements `0..count` of `src` into `dst[0]` (AscendC `ReduceSum<T>(dst, src,
/// sharedTmpBuffer, count)`), in the chip's order (see the [module documentation](self)).
///
/// On Ascend910B the repeat results are added in order, the temporary buffer is not used (any
/// tensor may be passed), and the result is also left in the reduce-sum register
/// ([`get_reduce_repeat_sum_spr`]). Elsewhere the whole repeats go through the stages of
/// [`reduce_sum_masked`], a tail repeat is summed apart, and `body + tail` is the result; the
/// temporary buffer then needs `count / PAR` (at least 1) rounded up to whole blocks and ends
/// with `[body + tail, tail]` in its first two elements when there is a tail. Like every count
/// form, the call leaves the core in normal mode with a full mask.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 288 * 2);
/// pipe.init_tbuf(&mut b, 32);
/// pipe.init_tbuf(&mut c, 32);
/// let (src, dst, work) = (a.get::<f16>(), b.get::<f16>(), c.get::<f16>());
/// src.copy_from_slice(&[f16::ONE; 288]);
/// reduce_sum(&dst, &src, &work, 288);
/// assert_eq!(dst.get_value(0).to_f32(), 288.0);
/// ```
///
/// # Panics
/// Panics if `T` is `float` on Ascend910; `count` is negative or exceeds `src`; an operand is
/// not a 32-byte aligned UB tensor; the temporary buffer is too small (not on Ascend910B); or
/// `src` overlaps the temporary buffer, or `dst` other than in place (`dst` starting at `src`'s
/// first element is accepted: every chip reads all of `src` first).
#[track_caller]
pub fn reduce_sum<T: ReduceElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    shared_tmp_buffer: &LocalTensor<T>,
    count: i32,
) {
    const API: &str = "ReduceSum";
    let _one = crate::observe::events::fuse_vector(API);
    let Some((soc, count)) = start_count::<T>(API, count) else {
        return;
    };
    let sat = saturating::<T>();
    let par = T::PAR;
    let s = Operand::new(src, 1usize, 8usize, "src");
    let full = Plan::contiguous::<T>(count);
    let span = src_span(API, &s, &full);
    if soc == Soc::Ascend910B {
        let total = repeat_sums(API, &full, &s, sat)
            .into_iter()
            .reduce(|t, r| {
                let mut x = [t + r];
                T::round_slice(&mut x, sat);
                x[0]
            })
            .expect("count >= 1");
        commit(API, dst, T::SIZE, &level2_avoid(dst, src, span), &[Put::val::<T>(0, total)]);
        with_core(|c| c.reduce_sum_spr.set(T::narrow(total).to_bits_u64()));
        restore_mask_defaults();
        return;
    }
    // The whole repeats (at least one, possibly partial) and the tail.
    let (body_repeats, tail) = if count < par { (1, 0) } else { (count / par, count % par) };
    check_work(API, shared_tmp_buffer, sum_work_need::<T>(body_repeats), span);
    let results = repeat_sums(API, &full, &s, sat);
    let (body, mut work) = sum_stages::<T>(&results[..body_repeats], sat);
    let total = if tail > 0 {
        let t = results[body_repeats];
        let total = tree::<T>(&[body, t], sat);
        work[0] = total;
        if work.len() < 2 {
            work.push(t);
        } else {
            work[1] = t;
        }
        total
    } else {
        body
    };
    put_sum(API, dst, shared_tmp_buffer, level2_avoid(dst, src, span), total, &work);
    restore_mask_defaults();
}

/// The shared body of the level-2 max/min forms over a plan (`stride` is the repeat stride in
/// blocks, for the index).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn max_min<T: ReduceElement>(
    api: &'static str,
    max: bool,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    work: &LocalTensor<T>,
    plan: &Plan,
    stride: usize,
    first_repeats: usize,
    cal_index: bool,
) {
    let _one = crate::observe::events::fuse_vector(api);
    let s = Operand::new(src, 1usize, stride, "src");
    let span = src_span(api, &s, plan);
    check_work(api, work, max_min_work_need::<T>(first_repeats, cal_index), span);
    let mut best: Option<(f32, usize)> = None;
    gather_repeats(api, plan, &s, |r, lanes| {
        let (v, j) = extreme(lanes, plan.mask_of(r), 0..T::PAR, max).expect("a repeat enables a lane");
        if best.is_none_or(|(b, _)| (max && v > b) || (!max && v < b)) {
            best = Some((v, r * stride * T::EPB + j));
        }
    });
    let (v, i) = best.expect("at least one repeat");
    let mut puts = vec![Put::val::<T>(0, v)];
    if cal_index {
        puts.push(Put::idx::<T>(T::SIZE, i));
    }
    commit(api, dst, if cal_index { 2 * T::SIZE } else { T::SIZE }, &level2_avoid(dst, src, span), &puts);
    set_max_min_spr::<T>(v, i);
}

macro_rules! level2_max_min {
    ($masked:ident, $count:ident, $api:literal, $max:expr, $word:literal, $ex_masked:literal, $ex_count:literal) => {
        #[doc = concat!("The ", $word, " of the enabled lanes of `repeat_time` repeats of `src` into `dst[0]`, and with")]
        #[doc = concat!("`cal_index` its element offset in `src` into `dst[1]` (AscendC `", $api, "<T>(dst, src,")]
        /// sharedTmpBuffer, mask, repeatTime, srcRepStride, calIndex)`).
        ///
        /// The index is `r * srcRepStride * EPB + j` for lane `j` of repeat `r`, the first among
        /// equal extremes, stored in `T`'s bits (for `half` its low 16 bits). The temporary
        /// buffer must hold the vendor's documented size (with or without the index); its
        /// contents afterwards are not modelled (it is left as it was). The call also loads the
        /// max/min register with the result.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
        /// pipe.init_tbuf(&mut a, 1024);
        /// pipe.init_tbuf(&mut b, 32);
        /// pipe.init_tbuf(&mut c, 256);
        /// let (src, dst, work) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>());
        /// src.copy_from_slice(&(0..256).map(|i| ((i * 37) % 256) as f32).collect::<Vec<_>>());
        #[doc = $ex_masked]
        /// ```
        ///
        /// # Panics
        /// Panics if `T` is `float` on Ascend910; `repeat_time` or `src_rep_stride` is negative
        /// (or the stride above 65535); the mask is out of range; an operand is not a UB tensor,
        /// `src` or the buffer not 32-byte aligned, `dst` not aligned to its result; a lane lies
        /// outside `src`; the buffer is too small; or `src` overlaps the buffer, or `dst` other
        /// than in place (`dst` starting at `src`'s first element is accepted).
        #[track_caller]
        pub fn $masked<T: ReduceElement>(
            dst: &LocalTensor<T>,
            src: &LocalTensor<T>,
            shared_tmp_buffer: &LocalTensor<T>,
            mask: impl Into<Mask>,
            repeat_time: i32,
            src_rep_stride: i32,
            cal_index: bool,
        ) {
            let Some(plan) = start_masked::<T>($api, mask.into(), repeat_time, src_rep_stride, None) else {
                return;
            };
            let stride = src_rep_stride as usize;
            max_min($api, $max, dst, src, shared_tmp_buffer, &plan, stride, plan.repeats, cal_index);
        }

        #[doc = concat!("The ", $word, " of elements `0..count` of `src` into `dst[0]`, and with `cal_index` its index")]
        #[doc = concat!("into `dst[1]` (AscendC `", $api, "<T>(dst, src, sharedTmpBuffer, count, calIndex)`).")]
        ///
        #[doc = concat!("As [`", stringify!($masked), "`] over whole repeats and a tail; the index is the element index.")]
        /// Like every count form, the call leaves the core in normal mode with a full mask.
        ///
        /// ```
        /// use ascend_core::prelude::*;
        /// let mut pipe = TPipe::new();
        /// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
        /// pipe.init_tbuf(&mut a, 1024);
        /// pipe.init_tbuf(&mut b, 32);
        /// pipe.init_tbuf(&mut c, 256);
        /// let (src, dst, work) = (a.get::<f32>(), b.get::<f32>(), c.get::<f32>());
        /// src.copy_from_slice(&(0..256).map(|i| ((i * 37) % 256) as f32).collect::<Vec<_>>());
        #[doc = $ex_count]
        /// ```
        ///
        /// # Panics
        #[doc = concat!("As [`", stringify!($masked), "`], and if `count` exceeds `src`.")]
        #[track_caller]
        pub fn $count<T: ReduceElement>(
            dst: &LocalTensor<T>,
            src: &LocalTensor<T>,
            shared_tmp_buffer: &LocalTensor<T>,
            count: i32,
            cal_index: bool,
        ) {
            let Some((_, count)) = start_count::<T>($api, count) else {
                return;
            };
            let plan = Plan::contiguous::<T>(count);
            let first = (count / T::PAR).max(1);
            max_min($api, $max, dst, src, shared_tmp_buffer, &plan, 8, first, cal_index);
            restore_mask_defaults();
        }
    };
}

level2_max_min!(
    reduce_max_masked,
    reduce_max,
    "ReduceMax",
    true,
    "maximum",
    "reduce_max_masked(&dst, &src, &work, 64u64, 4, 8, true);\nassert_eq!(dst.get_value(0), 255.0);\nassert_eq!(dst.reinterpret_cast::<u32>().get_value(1), (0..256).find(|i| (i * 37) % 256 == 255).unwrap());",
    "reduce_max(&dst, &src, &work, 100, true);\nassert_eq!(dst.get_value(0), (0..100).map(|i| (i * 37) % 256).max().unwrap() as f32);"
);
level2_max_min!(
    reduce_min_masked,
    reduce_min,
    "ReduceMin",
    false,
    "minimum",
    "reduce_min_masked(&dst, &src, &work, 64u64, 4, 8, true);\nassert_eq!(dst.get_value(0), 0.0);\nassert_eq!(dst.reinterpret_cast::<u32>().get_value(1), 0);",
    "reduce_min(&dst, &src, &work, 256, false);\nassert_eq!(dst.get_value(0), 0.0);"
);

// ---- the registers -------------------------------------------------------------------------

/// The result of the last count-form [`reduce_sum`] (AscendC `GetReduceRepeatSumSpr<T>()`;
/// Ascend910B only).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 32);
/// let (src, dst) = (a.get::<f32>(), b.get::<f32>());
/// src.copy_from_slice(&[0.5; 128]);
/// reduce_sum(&dst, &src, &dst, 128);
/// assert_eq!(get_reduce_repeat_sum_spr::<f32>(), 64.0);
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B.
#[track_caller]
pub fn get_reduce_repeat_sum_spr<T: ReduceElement>() -> T {
    const API: &str = "GetReduceRepeatSumSpr";
    let soc = get_soc();
    ensure(soc == Soc::Ascend910B, API, || {
        format!("not supported on {soc} ({}): Ascend910B only", soc.product_line())
    });
    let bits = with_core(|c| c.reduce_sum_spr.get());
    from_bits::<T>(bits)
}

fn from_bits<T: Element>(bits: u64) -> T {
    let b = bits.to_le_bytes();
    bytemuck::pod_read_unaligned(&b[..T::SIZE])
}

/// The value and index the last `WholeReduceMax/Min` or `ReduceMax/Min` left in the max/min
/// register (AscendC `GetReduceRepeatMaxMinSpr<T>(maxMinValue, maxMinIndex)`; Ascend910B
/// only). The index is in `T`'s bits, like the instructions' own; after `WholeReduceMax/Min`
/// it is the lane within its repeat, after `ReduceMax/Min` the element offset (the vendor does
/// not promise an exact index there).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 64);
/// let (src, dst) = (a.get::<f32>(), b.get::<f32>());
/// src.copy_from_slice(&(0..128).map(|i| (i % 70) as f32).collect::<Vec<_>>());
/// whole_reduce_max::<f32, true>(&dst, &src, 64u64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
/// let (v, i) = get_reduce_repeat_max_min_spr::<f32>();
/// assert_eq!((v, i.to_bits()), (69.0, 5));
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend910B.
#[track_caller]
pub fn get_reduce_repeat_max_min_spr<T: ReduceElement>() -> (T, T) {
    const API: &str = "GetReduceRepeatMaxMinSpr";
    let soc = get_soc();
    ensure(soc == Soc::Ascend910B, API, || {
        format!("the (value, index) form is not supported on {soc} ({}): Ascend910B only", soc.product_line())
    });
    let reg = with_core(|c| c.reduce_max_min_spr.get());
    (from_bits::<T>(reg & 0xffff_ffff), from_bits::<T>(reg >> 32))
}

/// The value alone from the max/min register (AscendC `GetReduceRepeatMaxMinSpr<T>(maxMinValue)`;
/// Ascend310P only).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut pipe = TPipe::new();
///     let (mut a, mut b) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
///     pipe.init_tbuf(&mut a, 256);
///     pipe.init_tbuf(&mut b, 32);
///     let (src, dst) = (a.get::<f16>(), b.get::<f16>());
///     src.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32 - 3.0)).collect::<Vec<_>>());
///     whole_reduce_min::<f16, true>(&dst, &src, 128u64, 1, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
///     assert_eq!(get_reduce_repeat_max_min_spr_value::<f16>().to_f32(), -3.0);
/// });
/// ```
///
/// # Panics
/// Panics on a chip other than Ascend310P.
#[track_caller]
pub fn get_reduce_repeat_max_min_spr_value<T: ReduceElement>() -> T {
    const API: &str = "GetReduceRepeatMaxMinSpr";
    let soc = get_soc();
    ensure(soc == Soc::Ascend310P, API, || {
        format!("the value-only form is not supported on {soc} ({}): Ascend310P only", soc.product_line())
    });
    from_bits::<T>(with_core(|c| c.reduce_max_min_spr.get()) & 0xffff_ffff)
}
