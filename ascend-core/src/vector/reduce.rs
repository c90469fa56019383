//! TIK's `vec_reduce_add`: the sum of every masked lane of every repeat, in the exact order
//! of additions of each chip.
//!
//! **Inside a repeat** the `PAR` lanes are summed as a binary tree: lanes `2k` and `2k + 1`
//! are added, then those sums pairwise, and so on; lanes the mask disables count as `+0`.
//!
//! **Across repeats** the order depends on the chip ([`RepeatSumOrder`]):
//! - [`RepeatSumOrder::PairwiseTree`] (Ascend910, Ascend310P): the per-repeat results are summed
//!   as a pairwise tree; a level with an odd count carries its last value to the next level.
//!   `work_tensor[r]` receives the result of repeat `r` (`repeat_times` elements needed).
//! - [`RepeatSumOrder::InOrderGroupsOf255`] (Ascend910B): the per-repeat results of each run of
//!   255 repeats are summed in order (`((r0 + r1) + r2) + …`), then the runs' sums pairwise.
//!   `work_tensor[g]` receives the sum of run `g` when `repeat_times > 255`; with 255 repeats
//!   or fewer the work tensor is not written. `ceil(repeat_times / 255)` elements are needed.
//! - [`RepeatSumOrder::OddEvenAccumulate`] (Ascend310B): repeats 1, 3, 5, … (1-based) are added
//!   lane by lane in order into `A`, repeats 2, 4, 6, … into `B`; when `repeat_times` is odd
//!   the last repeat is kept apart as `C`. `D = (A + B) + C` lane by lane (terms that do not
//!   exist are skipped: one repeat gives `D = C`, two give `D = A + B`), and the result is the
//!   binary tree over `D`'s lanes. This order keeps no per-repeat results: the work tensor is
//!   left untouched. The vendor documents state no work-tensor size for this chip, so the
//!   general rule (`repeat_times` elements) is required, which keeps kernels portable.
//!
//! **Rounding.** Every intermediate sum is rounded to `T`. For `f16` in saturation mode
//! ([`get_overflow_mode`]) a sum beyond ±65504 (including an
//! infinite one) becomes ±65504 and a NaN becomes 0 (the vendor's "inf → ±MAX, NaN → 0");
//! in inf/nan mode it overflows to ±inf as IEEE 754 says and NaN stays NaN. `f32` sums are
//! plain IEEE 754 in both modes.

use crate::element::{f16, Element};
use crate::f16conv::{narrow_slice, widen_slice};
use crate::kernel::ctx::{get_overflow_mode, get_soc};
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::soc::{OverflowMode, RepeatSumOrder};
use crate::vector::engine::{apply, check_operand, span_of, Lanes, Operand};
use crate::vector::mask::{normal_bits, prefix_bits, Mask, Plan};

const API: &str = "vec_reduce_add";
/// Largest `repeat_times` of `vec_reduce_add`.
const MAX_REPEAT: u16 = 4095;
/// Repeats summed in order per run on Ascend910B.
const GROUP: usize = 255;

pub(crate) mod sealed {
    /// The f32-domain arithmetic of a reducible type (private to the crate).
    pub trait Sealed: Sized {
        /// Widens `src` into `out` (same length), exactly.
        fn widen(src: &[Self], out: &mut [f32]);
        /// Rounds every value to the type (and saturates when `sat`), in place.
        fn round_slice(xs: &mut [f32], sat: bool);
        /// Narrows a value that is already representable.
        fn narrow(x: f32) -> Self;
    }
}

/// An element type `vec_reduce_add` sums: `f16` and `f32`, on every chip.
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// // Integers cannot be reduced: `i32` is not a `ReduceElement`.
/// fn call(t: &LocalTensor<i32>) {
///     vec_reduce_add(64u64, t, t, t, 1, 8);
/// }
/// ```
pub trait ReduceElement: Element + sealed::Sealed {}

impl sealed::Sealed for f16 {
    #[inline]
    fn widen(src: &[f16], out: &mut [f32]) {
        widen_slice(src, out);
    }

    #[inline]
    fn round_slice(xs: &mut [f32], sat: bool) {
        let mut tmp = [f16::ZERO; 128];
        for chunk in xs.chunks_mut(128) {
            let t = &mut tmp[..chunk.len()];
            narrow_slice(chunk, t);
            widen_slice(t, chunk);
            if sat {
                for x in chunk.iter_mut() {
                    *x = crate::vector::binary::saturate(*x);
                }
            }
        }
    }

    #[inline]
    fn narrow(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

impl sealed::Sealed for f32 {
    #[inline]
    fn widen(src: &[f32], out: &mut [f32]) {
        out.copy_from_slice(src);
    }

    #[inline]
    fn round_slice(_xs: &mut [f32], _sat: bool) {}

    #[inline]
    fn narrow(x: f32) -> f32 {
        x
    }
}

impl ReduceElement for f16 {}
impl ReduceElement for f32 {}

/// Sums every masked lane of `repeat_times` repeats of `src` into `dst[0]` (TIK
/// `vec_reduce_add`), in the chip's order of additions (see the
/// [module documentation](self)).
///
/// Lane `j` of repeat `r` is element `r * src_rep_stride * EPB + j` of `src` (`src_rep_stride`
/// in 32-byte blocks, blocks contiguous inside a repeat). The mask is a lane count in
/// `1..=PAR` or a bit mask (`[lanes 0..64, lanes 64..128]`); the same lanes are used in every
/// repeat, whatever the core's mask mode. Only `dst[0]` and the chip's work-tensor elements
/// are written.
///
/// ```
/// use ascend_core::prelude::*;
/// use half::f16;
/// let mut pipe = TPipe::new();
/// let (mut a, mut b, mut c) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
/// pipe.init_tbuf(&mut a, 512);
/// pipe.init_tbuf(&mut b, 32);
/// pipe.init_tbuf(&mut c, 32);
/// let (src, dst, work) = (a.get::<f16>(), b.get::<f16>(), c.get::<f16>());
/// src.copy_from_slice(&[f16::ONE; 256]);
/// vec_reduce_add(128u64, &dst, &src, &work, 2, 8);
/// assert_eq!(dst.get_value(0).to_f32(), 256.0);
/// ```
///
/// # Panics
/// Panics if `repeat_times` is outside `[1, 4095]`; the mask is out of range for `T`; an
/// operand is not a 32-byte aligned UB tensor; `dst` is empty; `work_tensor` is smaller than
/// the chip needs; a masked lane lies outside `src`; or two of `src`, `dst` and `work_tensor`
/// share a byte (`src` counted by its masked lanes, `dst` by element 0, `work_tensor` by the
/// elements the chip needs).
#[track_caller]
pub fn vec_reduce_add<T: ReduceElement>(
    mask: impl Into<Mask>,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    work_tensor: &LocalTensor<T>,
    repeat_times: u16,
    src_rep_stride: u16,
) {
    let _one = crate::observe::events::fuse_vector(API);
    ensure((1..=MAX_REPEAT).contains(&repeat_times), API, || {
        format!("repeat_times = {repeat_times} is out of range [1, {MAX_REPEAT}]")
    });
    let bits = normal_bits::<T>(API, mask.into());
    let repeats = usize::from(repeat_times);
    let stride = usize::from(src_rep_stride);
    let soc = get_soc();
    let order = soc.reduce_order();
    let sat = T::DTYPE == f16::DTYPE && get_overflow_mode() == OverflowMode::Saturation;

    let plan = Plan { repeats, bits, last: bits };
    let op = Operand::new(src, 1usize, stride, "src");
    // Position, alignment and the bounds of every masked lane, by the shared engine.
    check_operand(API, &op, &plan);
    dst.check_vector_operand(API, "dst");
    work_tensor.check_vector_operand(API, "work_tensor");
    ensure(dst.get_size() >= 1, API, || "dst holds 0 elements; the sum needs 1".to_string());
    let work_need = match order {
        RepeatSumOrder::PairwiseTree | RepeatSumOrder::OddEvenAccumulate => repeats,
        RepeatSumOrder::InOrderGroupsOf255 => repeats.div_ceil(GROUP),
    };
    ensure(work_tensor.get_size() >= work_need, API, || {
        format!(
            "work_tensor holds {} elements but {soc} needs at least {work_need} (repeat_times = {repeats})",
            work_tensor.get_size()
        )
    });
    check_disjoint::<T>(src, dst, work_tensor, work_need, bits, repeats, stride);

    let par = T::PAR;
    let total = match order {
        RepeatSumOrder::PairwiseTree | RepeatSumOrder::InOrderGroupsOf255 => {
            let mut results = Vec::with_capacity(repeats);
            gather_repeats(API, &plan, &op, |_, lanes| {
                let mut tree = [0f32; 128];
                tree[..par].copy_from_slice(lanes);
                results.push(pairwise::<T>(&mut tree[..par], sat));
            });
            if order == RepeatSumOrder::PairwiseTree {
                // SAFETY: work_tensor holds at least `repeats` elements (checked above) and
                // shares no byte with src or dst.
                unsafe { store(work_tensor, &results) };
                pairwise::<T>(&mut results, sat)
            } else {
                let mut sums: Vec<f32> = results
                    .chunks(GROUP)
                    .map(|g| {
                        let mut s = [g[0]];
                        for &x in &g[1..] {
                            s[0] += x;
                            T::round_slice(&mut s, sat);
                        }
                        s[0]
                    })
                    .collect();
                if repeats > GROUP {
                    // SAFETY: work_tensor holds at least ceil(repeats / 255) elements
                    // (checked above) and shares no byte with src or dst.
                    unsafe { store(work_tensor, &sums) };
                }
                pairwise::<T>(&mut sums, sat)
            }
        }
        RepeatSumOrder::OddEvenAccumulate => {
            // acc[0] = A (repeats 1, 3, 5, … 1-based), acc[1] = B (2, 4, 6, …), acc[2] = C.
            let mut acc = [[0f32; 128]; 3];
            let mut seen = [false; 3];
            let last_odd = (repeats % 2 == 1).then_some(repeats - 1);
            gather_repeats(API, &plan, &op, |r, lanes| {
                let k = if Some(r) == last_odd { 2 } else { r % 2 };
                accumulate::<T>(&mut acc[k][..par], &mut seen[k], lanes, sat);
            });
            let mut d = [0f32; 128];
            let mut has_d = false;
            for k in 0..3 {
                if seen[k] {
                    accumulate::<T>(&mut d[..par], &mut has_d, &acc[k][..par], sat);
                }
            }
            pairwise::<T>(&mut d[..par], sat)
        }
    };
    // The V pipe writes dst[0] and (conservatively, in every order) the work elements.
    crate::observe::events::on_vector(
        API,
        &[],
        &[span_of(dst, T::SIZE), span_of(work_tensor, work_need * T::SIZE)],
    );
    // SAFETY: dst holds at least one element (checked above) and shares no byte with src or
    // the work tensor's used elements.
    unsafe { dst.ptr().write(T::narrow(total)) };
}

/// Fails unless `src` (its masked lanes), `dst` (element 0) and `work` (its first `work_need`
/// elements) are pairwise disjoint, naming the first pair that shares a byte.
#[track_caller]
fn check_disjoint<T: ReduceElement>(
    src: &LocalTensor<T>,
    dst: &LocalTensor<T>,
    work: &LocalTensor<T>,
    work_need: usize,
    bits: [u64; 2],
    repeats: usize,
    stride: usize,
) {
    let d = dst.byte_range(1);
    let w = work.byte_range(work_need);
    #[track_caller]
    fn overlap(a: &str, at: usize, b: &str, bt: usize) -> ! {
        fail(
            API,
            format!(
                "{a} (address {at:#x}) and {b} (address {bt:#x}) overlap; src, dst and work_tensor must not share any byte"
            ),
        )
    }
    if src_lanes_meet::<T>(src.get_phy_addr(), stride, bits, repeats, d) {
        overlap("src", src.get_phy_addr(), "dst", dst.get_phy_addr());
    }
    if src_lanes_meet::<T>(src.get_phy_addr(), stride, bits, repeats, w) {
        overlap("src", src.get_phy_addr(), "work_tensor", work.get_phy_addr());
    }
    if w.0 < w.1 && d.0 < w.1 && w.0 < d.1 {
        overlap("dst", dst.get_phy_addr(), "work_tensor", work.get_phy_addr());
    }
}

/// Whether a masked lane of some repeat of `src` (at byte address `base`, repeat stride in
/// blocks) lies in the byte range `[lo, hi)`. Element-exact: gaps between repeats and
/// disabled lanes do not count.
fn src_lanes_meet<T: Element>(
    base: usize,
    stride: usize,
    bits: [u64; 2],
    repeats: usize,
    (lo, hi): (usize, usize),
) -> bool {
    if lo >= hi {
        return false;
    }
    (0..repeats).any(|r| {
        let start = base + r * stride * 32;
        if hi <= start {
            return false;
        }
        let j_lo = (lo.saturating_sub(start) / T::SIZE).min(T::PAR);
        let j_hi = (hi - start).div_ceil(T::SIZE).min(T::PAR);
        let (a, b) = (prefix_bits(j_lo), prefix_bits(j_hi));
        (bits[0] & b[0] & !a[0]) | (bits[1] & b[1] & !a[1]) != 0
    })
}

/// Walks the masked lanes of every repeat through the shared engine (which checks `src`'s
/// bounds once), handing `sink` each repeat's `PAR` lanes widened to `f32`, disabled lanes
/// `+0`, in repeat order.
#[track_caller]
pub(crate) fn gather_repeats<T: ReduceElement>(
    api: &'static str,
    plan: &Plan,
    src: &Operand<'_, T>,
    sink: impl FnMut(usize, &[f32]),
) {
    let mut g = Gather { cur: 0, lanes: [0.0; 128], sink };
    apply::<T, 0, _>(api, plan, src, [], &mut g);
    g.flush::<T>();
}

/// The engine kernel of [`gather`]: collects the lanes of the current repeat.
struct Gather<F> {
    cur: usize,
    lanes: [f32; 128],
    sink: F,
}

impl<F: FnMut(usize, &[f32])> Gather<F> {
    fn flush<T: Element>(&mut self) {
        (self.sink)(self.cur, &self.lanes[..T::PAR]);
        self.lanes = [0.0; 128];
    }
}

impl<T: ReduceElement, F: FnMut(usize, &[f32])> Lanes<T, 0> for Gather<F> {
    const WRITES_DST: bool = false;

    unsafe fn run(&mut self, mut lane: usize, p: *mut T, _src: [*const T; 0], mut n: usize) {
        // Every repeat has at least one masked lane (the mask is never empty) and runs come
        // in increasing lane order, so a lane of a new repeat completes the previous one.
        let par = T::PAR;
        let mut p = p as *const T;
        while n > 0 {
            let (r, j) = (lane / par, lane % par);
            if r != self.cur {
                self.flush::<T>();
                self.cur = r;
            }
            let m = n.min(par - j);
            // SAFETY: the engine hands out `n` in-bounds elements at `p` (the "dst" slot is
            // src here, only read); nothing writes UB memory while the lanes are gathered.
            let s = unsafe { core::slice::from_raw_parts(p, m) };
            T::widen(s, &mut self.lanes[j..j + m]);
            lane += m;
            n -= m;
            // SAFETY: stays within (or one past) the run of `n` elements.
            p = unsafe { p.add(m) };
        }
    }
}

/// `acc = acc + lanes` lane by lane, each sum rounded; the first call copies.
fn accumulate<T: ReduceElement>(acc: &mut [f32], seen: &mut bool, lanes: &[f32], sat: bool) {
    if *seen {
        for (a, &x) in acc.iter_mut().zip(lanes) {
            *a += x;
        }
        T::round_slice(acc, sat);
    } else {
        acc.copy_from_slice(lanes);
        *seen = true;
    }
}

/// The pairwise tree over `xs` (destroyed): neighbours added level by level, each sum rounded,
/// a level with an odd count carrying its last value up. `xs` is not empty.
pub(crate) fn pairwise<T: ReduceElement>(xs: &mut [f32], sat: bool) -> f32 {
    let mut n = xs.len();
    while n > 1 {
        let h = n / 2;
        for k in 0..h {
            xs[k] = xs[2 * k] + xs[2 * k + 1];
        }
        T::round_slice(&mut xs[..h], sat);
        if n % 2 == 1 {
            xs[h] = xs[n - 1];
            n = h + 1;
        } else {
            n = h;
        }
    }
    xs[0]
}

/// Writes `vals` to the first `vals.len()` elements of `t`.
///
/// # Safety
/// `t` holds at least `vals.len()` elements, and no other live access touches them.
unsafe fn store<T: ReduceElement>(t: &LocalTensor<T>, vals: &[f32]) {
    let p = t.ptr();
    for (i, &v) in vals.iter().enumerate() {
        // SAFETY: `i < vals.len() <= t.get_size()` (the caller's contract).
        unsafe { p.add(i).write(T::narrow(v)) };
    }
}
