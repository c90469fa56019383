//! The sorting family (排序组合（ISASI）): `Sort32`, `MrgSort` and `GetMrgSortResult` on the
//! (score, index) regions of Ascend910B and Ascend310B; `RpSort16`, `MrgSort4`,
//! `ProposalConcat` and `ProposalExtract` on the 8-element Region Proposals of Ascend910 and
//! Ascend310P; and the layout helpers `GetSortLen` / `GetSortOffset`.
//!
//! The rules come from the vendor's pages (`mirror-cann/asc-devkit`,
//! `docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/`), and where they are silent
//! from its implementation (`impl/basic_api/kernel_operator_proposal_intf_impl.h` and the
//! per-chip `impl/basic_api/dav_*/kernel_operator_proposal_impl.h`).
//!
//! **Layouts.** A *region* (Ascend910B, Ascend310B) is 8 bytes: the score in the low bytes
//! (a `float` in bytes 0..4; a `half` in bytes 0..2, bytes 2..4 reserved) and the `uint32_t`
//! index in bytes 4..8 (`Sort32.md`). As `float` elements a region is 2 elements `[score,
//! index bits]`, as `half` elements 4 `[score, reserved, index low 16 bits, index high 16
//! bits]`. A *Region Proposal* (Ascend910, Ascend310P) is 8 elements of `T` — `[x1, y1, x2, y2,
//! score, label, reserved_0, reserved_1]` — so 16 bytes of `half` or 32 of `float`
//! (`ProposalConcat.md`).
//!
//! **Order.** Every sort and merge is by score, largest first, and stable: of two equal
//! scores the one earlier in the input comes first (the docs:
//! `如果存在score[i]==score[j]并且i>j，将优先选取score[j]排在前面`). For a merge, "earlier" is
//! the order of the concatenated lists `src1, src2, src3, src4`: on equal heads the
//! lower-numbered list goes first. The docs
//! say nothing of NaN or signed zeros in these instructions; the vendor's `TopK`, built on them,
//! documents "nan在topk中排序时无论是降序还是升序，均被排在前面" (NaN comes first, in either
//! order) and "inf … 极大值" (`docs/zh/api/SIMD-API/高阶API/排序操作/TopK.md`; its ascending
//! order is these descending sorts on negated scores, `impl/adv_api/detail/sort/topk/
//! topk_v220_impl.h`). So here every NaN, whatever its sign and payload, ranks above `+inf`
//! and NaNs tie with each other; `-0` and `+0` compare equal (a tie, kept in input order).
//! Whole structures move: the bits of scores, indices, coordinates, labels and reserved
//! fields are copied unchanged. A merge is defined on any input — at every step the largest
//! head (ties: the lowest list) is taken — so unsorted lists merge deterministically too.
//!
//! **Repeats.** `Sort32` sorts 32 regions per repeat (src0 and src1 advance 32 elements, dst
//! 256 bytes), `RpSort16` 16 proposals per repeat; `ProposalConcat`/`ProposalExtract` move 16
//! elements per repeat; nothing is sorted across repeats. `MrgSort`/`MrgSort4` with
//! `repeatTimes > 1` merge `repeatTimes` independent groups of 4 lists, each group following
//! the previous one in both the sources and `dst`; the docs make that mode conditional on 4
//! valid lists of one length, stored contiguously, without exhausted suspension — here those
//! conditions are checked (a call that breaks them fails). `repeatTime = 0` is a no-op
//! (documented for Ascend910B; chosen for Ascend310B, where the docs are silent); `MrgSort4`'s
//! documented range is `[1, 255]`, so 0 is an error there.
//!
//! **Exhausted suspension.** With `ifExhaustedSuspension = true` a merge stops right after the
//! step that takes the last element of any valid list (a valid list of length 0 is exhausted
//! from the start: nothing is written). `dst` then holds the merged prefix, and the rest of
//! `dst` keeps its old bytes. The number of elements taken from each list is what
//! [`get_mrg_sort_result`] returns (the chip's `VMS4_SR` register, written by every `MrgSort` /
//! `MrgSort4` call: with `repeatTimes > 1`, the counts of the last group; lists beyond
//! `validBit` count 0). The vendor's own `GetMrgSortResult` page prints a fully merged `dst` for
//! its suspended example, which contradicts its text; the text is followed here.
//!
//! **Checks.** Once per call: the chip and type; `repeatTime`, `modeNumber`, `validBit` and
//! `elementLengths` ranges; positions and alignment (Sort32's per-repeat alignment — src0 128
//! bytes for `float` / 64 for `half`, src1 128, dst 256 — from its 约束说明; MrgSort's 32-byte
//! dst and 8-byte sources; MrgSort4's 16-byte (`half`) / 32-byte (`float`) operands; 32 bytes
//! elsewhere); that every operand holds what the call reads or writes; and overlaps: the
//! sources and `dst` may not share a byte (MrgSort, MrgSort4: "不支持源操作数和目的操作数地址
//! 重叠"; Sort32, ProposalConcat, ProposalExtract: operands of different shapes cannot overlap
//! completely, so none is allowed), except that `RpSort16` may sort in place (`dst` at `src`'s
//! address, as the vendor's examples do).

use std::cmp::Ordering;
use std::rc::Rc;

use crate::element::{f16, DType, Element};
use crate::kernel::ctx::{get_soc, with_core};
use crate::kernel::error::{check, ensure};
use crate::memory::tensor::LocalTensor;
use crate::position::TPosition;
use crate::soc::Soc;
use crate::vector::engine::span_of;

mod sealed {
    pub trait Sealed {}
}

/// Regions `Sort32` sorts per repeat.
const SORT32_LEN: usize = 32;
/// Bytes of one (score, index) region.
const REGION_BYTES: usize = 8;
/// Bytes `Sort32` writes per repeat.
const SORT32_DST_BYTES: usize = SORT32_LEN * REGION_BYTES;
/// Elements of one Region Proposal.
const PROPOSAL_ELEMS: usize = 8;
/// The score's element in a Region Proposal.
const PROPOSAL_SCORE: usize = 4;
/// Proposals (or elements) per repeat of `RpSort16`, `ProposalConcat`, `ProposalExtract`.
const RP_LEN: usize = 16;
/// Lists of a merge.
const MRG_LISTS: usize = 4;
/// The largest `elementLengths[i]`.
const MAX_ELEMENT_LENGTH: u16 = 4095;

/// Element types of the sorting family: `half` and `float`. Which chips have which
/// instruction (the vendor's 产品支持情况 lists):
///
/// | API | Ascend910 | Ascend910B | Ascend310P | Ascend310B |
/// | --- | --- | --- | --- | --- |
/// | `Sort32`, `MrgSort` | – | half, float | – | half, float |
/// | `MrgSort4`, `RpSort16`, `ProposalConcat`, `ProposalExtract` | half | – | half, float | – |
///
/// A chip without the instruction is a run-time error naming the chip. Other types do not
/// compile:
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<i32>, i: &LocalTensor<u32>) { sort32(t, t, i, 1); }
/// ```
///
/// ```compile_fail
/// use ascend_core::prelude::*;
/// fn f(t: &LocalTensor<bf16>) { rp_sort16(t, t, 1); }
/// ```
pub trait SortElement: Element + sealed::Sealed {
    /// Whether `Sort32` on this type exists on `soc`.
    fn sort32_supported(soc: Soc) -> bool {
        region_chip(soc)
    }
    /// Whether `MrgSort` on this type exists on `soc`.
    fn mrg_sort_supported(soc: Soc) -> bool {
        region_chip(soc)
    }
    /// Whether `MrgSort4` on this type exists on `soc`.
    fn mrg_sort4_supported(soc: Soc) -> bool {
        proposal_chip(soc, Self::DTYPE)
    }
    /// Whether `RpSort16` on this type exists on `soc`.
    fn rp_sort16_supported(soc: Soc) -> bool {
        proposal_chip(soc, Self::DTYPE)
    }
    /// Whether `ProposalConcat` on this type exists on `soc`.
    fn proposal_concat_supported(soc: Soc) -> bool {
        proposal_chip(soc, Self::DTYPE)
    }
    /// Whether `ProposalExtract` on this type exists on `soc`.
    fn proposal_extract_supported(soc: Soc) -> bool {
        proposal_chip(soc, Self::DTYPE)
    }
}

impl sealed::Sealed for f16 {}
impl SortElement for f16 {}
impl sealed::Sealed for f32 {}
impl SortElement for f32 {}

/// The chips of the (score, index) region instructions: Atlas A2 (Ascend910B) and Atlas
/// 200I/500 A2 (Ascend310B).
const fn region_chip(soc: Soc) -> bool {
    matches!(soc, Soc::Ascend910B | Soc::Ascend310B)
}

/// The chips of the Region Proposal instructions: Atlas training (Ascend910, `half` only) and
/// Atlas inference AI Core (Ascend310P, `half` and `float`).
const fn proposal_chip(soc: Soc, t: DType) -> bool {
    match soc {
        Soc::Ascend910 => matches!(t, DType::F16),
        Soc::Ascend310P => true,
        _ => false,
    }
}

/// The sources of [`mrg_sort`] / [`mrg_sort4`] (AscendC `MrgSortSrcList<T>`): up to 4 sorted
/// lists; `validBit` says how many are used.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let work = ub.alloc::<f32>(256);
/// let list = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(128), &work.view(192));
/// assert_eq!(list.src3.get_phy_addr(), 128 * 4);
/// let empty = MrgSortSrcList::<f32>::default();
/// assert_eq!(empty.src4.get_size(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct MrgSortSrcList<T: Element> {
    /// The first list.
    pub src1: LocalTensor<T>,
    /// The second list.
    pub src2: LocalTensor<T>,
    /// The third list (used when `validBit` is 7 or 15).
    pub src3: LocalTensor<T>,
    /// The fourth list (used when `validBit` is 15).
    pub src4: LocalTensor<T>,
}

impl<T: Element> MrgSortSrcList<T> {
    /// `MrgSortSrcList(src1In, src2In, src3In, src4In)`.
    pub fn new(
        src1: &LocalTensor<T>,
        src2: &LocalTensor<T>,
        src3: &LocalTensor<T>,
        src4: &LocalTensor<T>,
    ) -> Self {
        MrgSortSrcList { src1: src1.clone(), src2: src2.clone(), src3: src3.clone(), src4: src4.clone() }
    }
}

impl<T: Element> Default for MrgSortSrcList<T> {
    /// `MrgSortSrcList()`: four empty VECCALC tensors at UB address 0 (as a default-constructed
    /// AscendC `LocalTensor`); a merge that uses one of them fails its size check.
    fn default() -> Self {
        let empty = || LocalTensor::new(TPosition::VECCALC, 0, 0);
        MrgSortSrcList { src1: empty(), src2: empty(), src3: empty(), src4: empty() }
    }
}

/// The parameters of [`mrg_sort`] / [`mrg_sort4`] (AscendC `MrgSort4Info`, in its field order;
/// the default is the vendor's: lengths 0, no suspension, `validBit = 0` — which a merge
/// rejects — and one repeat).
///
/// ```
/// use ascend_core::prelude::*;
/// let p = MrgSort4Info::new([32; 4], false, 0b1111, 2);
/// assert_eq!((p.element_lengths[3], p.valid_bit, p.repeat_times), (32, 15, 2));
/// assert_eq!(MrgSort4Info::default().repeat_times, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MrgSort4Info {
    /// The length of each list, in structures (regions of 8 bytes for `MrgSort`, proposals for
    /// `MrgSort4`), each in `[0, 4095]`.
    pub element_lengths: [u16; 4],
    /// Whether the merge stops as soon as one valid list is exhausted.
    pub if_exhausted_suspension: bool,
    /// The valid lists: 3 (the first 2), 7 (the first 3) or 15 (all 4).
    pub valid_bit: u16,
    /// Repeats (groups of 4 contiguous lists of one length merged independently).
    pub repeat_times: u8,
}

impl Default for MrgSort4Info {
    fn default() -> Self {
        MrgSort4Info {
            element_lengths: [0; 4],
            if_exhausted_suspension: false,
            valid_bit: 0,
            repeat_times: 1,
        }
    }
}

impl MrgSort4Info {
    /// `MrgSort4Info(elementLengths, ifExhaustedSuspension, validBit, repeatTimes)`.
    pub const fn new(
        element_lengths: [u16; 4],
        if_exhausted_suspension: bool,
        valid_bit: u16,
        repeat_times: u8,
    ) -> Self {
        MrgSort4Info { element_lengths, if_exhausted_suspension, valid_bit, repeat_times }
    }
}

// ---- shared checks and helpers -----------------------------------------------------------

/// Fails unless the current chip has `api` on `T`; returns the chip.
#[track_caller]
fn check_chip<T: Element>(api: &'static str, supported: fn(Soc) -> bool) -> Soc {
    let soc = get_soc();
    ensure(supported(soc), api, || {
        format!("T = {} is not supported by {api} on {soc} ({})", T::DTYPE, soc.product_line())
    });
    soc
}

/// Fails unless `v` lies in `[lo, hi]`; returns it as a count.
#[track_caller]
fn check_range(api: &'static str, name: &'static str, v: i32, lo: i32, hi: i32) -> usize {
    check!((lo..=hi).contains(&v), api, "{name} = {v} is out of range [{lo}, {hi}]");
    v as usize
}

/// Fails unless `t` is a UB tensor whose address is a multiple of `align` bytes.
#[track_caller]
fn check_place<T: Element>(api: &'static str, t: &LocalTensor<T>, name: &'static str, align: usize) {
    let (pos, off) = (t.get_position(), t.get_phy_addr());
    check!(pos.is_ub(), api, "{name} is at position {pos}: {api} takes VECIN, VECOUT or VECCALC tensors");
    check!(off % align == 0, api, "{name} address = {off:#x} is not {align}-byte aligned");
}

/// Fails unless `t` holds at least `need` elements; `what` says which part of the call needs
/// them.
#[track_caller]
fn check_holds<T: Element>(
    api: &'static str,
    t: &LocalTensor<T>,
    name: &'static str,
    need: usize,
    what: impl FnOnce() -> String,
) {
    let has = t.get_size();
    ensure(has >= need, api, || format!("{name} holds {has} elements but {} {need}", what()));
}

/// Fails if the first `a_bytes` of `a` and the first `b_bytes` of `b` share a byte.
#[track_caller]
fn check_apart<A: Element, B: Element>(
    api: &'static str,
    a: &LocalTensor<A>,
    a_name: &str,
    a_bytes: usize,
    b: &LocalTensor<B>,
    b_name: &str,
    b_bytes: usize,
) {
    if a_bytes == 0 || b_bytes == 0 || !Rc::ptr_eq(a.ub(), b.ub()) {
        return;
    }
    let (a0, b0) = (a.get_phy_addr(), b.get_phy_addr());
    let (a1, b1) = (a0 + a_bytes, b0 + b_bytes);
    check!(
        a1 <= b0 || b1 <= a0,
        api,
        "{a_name} (bytes {a0:#x}..{a1:#x}) overlaps {b_name} (bytes {b0:#x}..{b1:#x}): {api} does not allow \
         source and destination to overlap"
    );
}

/// The `n` bytes at byte offset `at` of `t`'s storage.
///
/// # Safety
/// `at + n <= t.get_length()`.
unsafe fn load<T: Element>(t: &LocalTensor<T>, at: usize, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    // SAFETY: in bounds (the caller's contract); `v` is a separate allocation, and no slice of
    // UB memory is alive during an instruction.
    unsafe { std::ptr::copy_nonoverlapping((t.ptr() as *const u8).add(at), v.as_mut_ptr(), n) };
    v
}

/// Writes `bytes` at byte offset `at` of `t`'s storage.
///
/// # Safety
/// `at + bytes.len() <= t.get_length()`.
unsafe fn store<T: Element>(t: &LocalTensor<T>, at: usize, bytes: &[u8]) {
    // SAFETY: in bounds (the caller's contract); `bytes` is host memory, not UB memory.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (t.ptr() as *mut u8).add(at), bytes.len()) };
}

/// The score of type `T` at byte `at` of `rec`, widened exactly.
fn score<T: Element>(rec: &[u8], at: usize) -> f64 {
    bytemuck::pod_read_unaligned::<T>(&rec[at..at + T::SIZE]).to_f64()
}

/// Whether score `a` goes strictly before score `b`: every NaN above everything else (NaNs
/// tie), then numeric order, largest first (`-0 == +0`).
fn ranks_before(a: f64, b: f64) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (true, false) => true,
        (false, false) => a > b,
        _ => false,
    }
}

/// The descending order of [`ranks_before`] (`Equal` on ties, for a stable sort).
fn descending(a: f64, b: f64) -> Ordering {
    if ranks_before(a, b) {
        Ordering::Less
    } else if ranks_before(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Stably sorts the `rec`-byte structures of `data` (whole groups of `group` structures
/// each, independently) by the score of type `T` at byte `score_at`, largest first.
fn sort_groups<T: Element>(data: &[u8], rec: usize, group: usize, score_at: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for g in data.chunks(rec * group) {
        let keys: Vec<f64> = g.chunks_exact(rec).map(|c| score::<T>(c, score_at)).collect();
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&a, &b| descending(keys[a], keys[b]));
        for k in order {
            out.extend_from_slice(&g[k * rec..(k + 1) * rec]);
        }
    }
    out
}

/// Merges `lists` (each a run of `rec`-byte structures) into `out`: at every step the
/// structure with the largest score (type `T` at byte `score_at`) among the heads, ties to the
/// lowest list; with `suspend`, stopping once a list is exhausted. Returns how many structures
/// each list gave.
fn merge<T: Element>(
    lists: &[&[u8]],
    rec: usize,
    score_at: usize,
    suspend: bool,
    out: &mut Vec<u8>,
) -> [usize; 4] {
    let keys: Vec<Vec<f64>> =
        lists.iter().map(|l| l.chunks_exact(rec).map(|c| score::<T>(c, score_at)).collect()).collect();
    let mut pos = [0usize; MRG_LISTS];
    if suspend && keys.iter().any(Vec::is_empty) {
        return pos;
    }
    loop {
        let mut best: Option<usize> = None;
        for (k, list) in keys.iter().enumerate() {
            if pos[k] < list.len() && best.is_none_or(|b| ranks_before(list[pos[k]], keys[b][pos[b]])) {
                best = Some(k);
            }
        }
        let Some(b) = best else { break };
        out.extend_from_slice(&lists[b][pos[b] * rec..(pos[b] + 1) * rec]);
        pos[b] += 1;
        if suspend && pos[b] == keys[b].len() {
            break;
        }
    }
    pos
}

// ---- the VMS4_SR register ------------------------------------------------------------------

/// Bits per list count in `VMS4_SR`: 16 on Ascend910B/Ascend310B (`dav_c220`, `dav_m300`), 13
/// on Ascend310P/Ascend910 (`dav_m200`).
const fn vms4_field_bits(soc: Soc) -> u32 {
    match soc {
        Soc::Ascend910B | Soc::Ascend310B => 16,
        Soc::Ascend910 | Soc::Ascend310P => 13,
    }
}

/// Stores the per-list counts of a merge in `VMS4_SR`.
fn set_vms4_sr(soc: Soc, counts: [usize; 4]) {
    let bits = vms4_field_bits(soc);
    let field = (1u64 << bits) - 1;
    let v =
        counts.iter().enumerate().fold(0u64, |acc, (k, &n)| acc | ((n as u64 & field) << (bits * k as u32)));
    with_core(|c| c.vms4_sr.set(v));
}

/// How many structures the last `MrgSort` (Ascend910B, Ascend310B) or `MrgSort4`
/// (Ascend310P) of this core took from each of its 4 lists (AscendC `GetMrgSortResult(
/// mrgSortList1, mrgSortList2, mrgSortList3, mrgSortList4)`; the out-parameters are the
/// returned tuple). Meant for a merge with `ifExhaustedSuspension = true`, which stops when a
/// list runs out; after a full merge it returns the list lengths (with `repeatTimes > 1`, those
/// of the last group). The chip's `VMS4_SR` fields are 16 bits wide on Ascend910B/Ascend310B
/// and 13 bits on Ascend310P. A core that has not merged yet reads zeros.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let (src, dst) = (ub.alloc::<f32>(16), ub.alloc::<f32>(16));
/// // Two lists of (score, index) regions: [5, 1] and [3, 2].
/// src.copy_from_slice(&[5.0, 0.0, 1.0, 0.0, 3.0, 0.0, 2.0, 0.0]);
/// let list = MrgSortSrcList::new(&src.view(0), &src.view(4), &src, &src);
/// mrg_sort(&dst, &list, &MrgSort4Info::new([2, 2, 0, 0], true, 0b11, 1));
/// // 5 (list 1), 3 (list 2), 2 (list 2, now exhausted): the merge stops.
/// assert_eq!(get_mrg_sort_result(), (1, 2, 0, 0));
/// assert_eq!(dst.to_vec()[..6], [5.0, 0.0, 3.0, 0.0, 2.0, 0.0]);
/// ```
///
/// # Panics
/// Panics on Ascend910 (Atlas training series), which has no `GetMrgSortResult`.
#[track_caller]
pub fn get_mrg_sort_result() -> (u16, u16, u16, u16) {
    const API: &str = "GetMrgSortResult";
    let soc = get_soc();
    ensure(soc != Soc::Ascend910, API, || {
        format!("GetMrgSortResult is not supported on {soc} ({})", soc.product_line())
    });
    let v = with_core(|c| c.vms4_sr.get());
    let bits = vms4_field_bits(soc);
    let field = |k: u32| ((v >> (bits * k)) & ((1u64 << bits) - 1)) as u16;
    (field(0), field(1), field(2), field(3))
}

// ---- Sort32 --------------------------------------------------------------------------------

/// Sorts 32 scores per repeat, largest first, with their indices (AscendC `Sort32(dst, src0,
/// src1, repeatTime)`; Ascend910B and Ascend310B). Repeat `r` takes scores `src0[32r ..
/// 32r + 32]` and indices `src1[32r .. 32r + 32]` and writes 32 (score, index) regions to `dst`
/// bytes `256r .. 256r + 256` (see the [module documentation](self) for the layout and the
/// order: stable, NaN first). For `half` the 2 reserved bytes of each region are written as
/// zeros (the docs call them reserved; the whole 8-byte region is written). `repeat_time = 0`
/// does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let (scores, index, dst) = (ub.alloc::<f32>(32), ub.alloc::<u32>(32), ub.alloc::<f32>(64));
/// scores.copy_from_slice(&(0..32).map(|i| (i % 4) as f32).collect::<Vec<_>>());
/// index.copy_from_slice(&(0..32).collect::<Vec<u32>>());
/// sort32(&dst, &scores, &index, 1);
/// let out = dst.to_vec();
/// // The four 3.0s first, in input order (indices 3, 7, 11, 15, …).
/// assert_eq!((out[0], out[1].to_bits(), out[2], out[3].to_bits()), (3.0, 3, 3.0, 7));
/// assert_eq!((out[62], out[63].to_bits()), (0.0, 28));
/// ```
///
/// # Panics
/// Panics if the chip lacks `Sort32` (Ascend910, Ascend310P); `repeat_time` is outside
/// `[0, 255]`; an operand is not a UB tensor or not aligned as a repeat needs (src0 to 128
/// bytes for `float` / 64 for `half`, src1 to 128, dst to 256); `src0` or `src1` holds fewer
/// than `32 * repeat_time` elements or `dst` fewer than `256 * repeat_time` bytes; or `dst`
/// overlaps `src0` or `src1`.
#[track_caller]
pub fn sort32<T: SortElement>(
    dst: &LocalTensor<T>,
    src0: &LocalTensor<T>,
    src1: &LocalTensor<u32>,
    repeat_time: i32,
) {
    const API: &str = "Sort32";
    check_chip::<T>(API, T::sort32_supported);
    let repeats = check_range(API, "repeatTime", repeat_time, 0, 255);
    check_place(API, dst, "dst", SORT32_DST_BYTES);
    check_place(API, src0, "src0", SORT32_LEN * T::SIZE);
    check_place(API, src1, "src1", SORT32_LEN * 4);
    if repeats == 0 {
        return;
    }
    let n = repeats * SORT32_LEN;
    let reads = || format!("repeatTime = {repeat_time} reads");
    check_holds(API, src0, "src0", n, reads);
    check_holds(API, src1, "src1", n, reads);
    let dst_bytes = repeats * SORT32_DST_BYTES;
    check_holds(API, dst, "dst", dst_bytes / T::SIZE, || {
        format!("repeatTime = {repeat_time} writes {dst_bytes} bytes, that is")
    });
    check_apart(API, dst, "dst", dst_bytes, src0, "src0", n * T::SIZE);
    check_apart(API, dst, "dst", dst_bytes, src1, "src1", n * 4);
    crate::observe::events::on_vector(
        API,
        &[span_of(src0, n * T::SIZE), span_of(src1, n * 4)],
        &[span_of(dst, dst_bytes)],
    );
    // SAFETY: the sizes were checked above.
    let (scores, index) = unsafe { (load(src0, 0, n * T::SIZE), load(src1, 0, n * 4)) };
    let mut regions = vec![0u8; dst_bytes];
    for (k, region) in regions.chunks_exact_mut(REGION_BYTES).enumerate() {
        region[..T::SIZE].copy_from_slice(&scores[k * T::SIZE..(k + 1) * T::SIZE]);
        region[4..].copy_from_slice(&index[k * 4..(k + 1) * 4]);
    }
    let sorted = sort_groups::<T>(&regions, REGION_BYTES, SORT32_LEN, 0);
    // SAFETY: `dst` holds `dst_bytes` bytes (checked above).
    unsafe { store(dst, 0, &sorted) };
}

// ---- MrgSort and MrgSort4 ------------------------------------------------------------------

/// What distinguishes `MrgSort` (regions) from `MrgSort4` (proposals).
struct MergeKind {
    api: &'static str,
    /// Bytes of one structure.
    rec: usize,
    /// Byte offset of the score in a structure.
    score_at: usize,
    /// Alignment of the source lists, and of `dst`, in bytes.
    src_align: usize,
    dst_align: usize,
    /// The smallest `repeatTimes`.
    min_repeat: i32,
    /// What a structure is called in messages.
    unit: &'static str,
}

/// The merge both APIs share (see [`mrg_sort`]).
#[track_caller]
fn merge_call<T: SortElement>(
    k: &MergeKind,
    soc: Soc,
    dst: &LocalTensor<T>,
    src: &MrgSortSrcList<T>,
    p: &MrgSort4Info,
) {
    let api = k.api;
    let vb = p.valid_bit;
    check!(
        matches!(vb, 3 | 7 | 15),
        api,
        "validBit = {vb} is not 3, 7 or 15 (the first 2, 3 or 4 lists valid)"
    );
    for (i, &len) in p.element_lengths.iter().enumerate() {
        check!(
            len <= MAX_ELEMENT_LENGTH,
            api,
            "elementLengths[{i}] = {len} is out of range [0, {MAX_ELEMENT_LENGTH}]"
        );
    }
    let repeats = check_range(api, "repeatTimes", i32::from(p.repeat_times), k.min_repeat, 255);
    let n_lists = match vb {
        3 => 2,
        7 => 3,
        _ => 4,
    };
    let lists = [&src.src1, &src.src2, &src.src3, &src.src4];
    const NAMES: [&str; 4] = ["src1", "src2", "src3", "src4"];
    check_place(api, dst, "dst", k.dst_align);
    for (t, name) in lists.iter().zip(NAMES).take(n_lists) {
        check_place(api, t, name, k.src_align);
    }
    if repeats == 0 {
        return;
    }
    let lens: Vec<usize> = p.element_lengths[..n_lists].iter().map(|&l| usize::from(l)).collect();
    let rec = k.rec;
    let total: usize = lens.iter().sum();
    if repeats > 1 {
        let r = p.repeat_times;
        check!(n_lists == 4, api, "repeatTimes = {r} needs validBit = 15 (all 4 lists), not {vb}");
        check!(!p.if_exhausted_suspension, api, "repeatTimes = {r} needs ifExhaustedSuspension = false");
        let l = p.element_lengths;
        check!(
            l.iter().all(|&x| x == l[0]),
            api,
            "repeatTimes = {r} needs 4 lists of one length, not elementLengths = {l:?}"
        );
        for i in 0..3 {
            let end = lists[i].get_phy_addr() + lens[i] * rec;
            let next = lists[i + 1].get_phy_addr();
            check!(
                Rc::ptr_eq(lists[i].ub(), lists[i + 1].ub()) && next == end,
                api,
                "repeatTimes = {r} needs the 4 lists stored contiguously, but {} starts at {next:#x} and {} ends at \
                 {end:#x}",
                NAMES[i + 1],
                NAMES[i]
            );
        }
        let need = repeats * total * rec;
        check_holds(api, &src.src1, "src1", need / T::SIZE, || {
            format!(
                "repeatTimes = {r} reads the {repeats} groups of 4 contiguous lists from it: {need} bytes, that is"
            )
        });
    } else {
        for (i, (t, &len)) in lists.iter().zip(&lens).enumerate() {
            check_holds(api, t, NAMES[i], len * rec / T::SIZE, || {
                format!("elementLengths[{i}] = {len} {} of {rec} bytes need", k.unit)
            });
        }
    }
    let out_bytes = repeats * total * rec;
    check_holds(api, dst, "dst", out_bytes / T::SIZE, || {
        format!("the merge writes {} {} of {rec} bytes, that is", repeats * total, k.unit)
    });
    // The bytes each operand reads.
    let read: Vec<(usize, usize)> = if repeats > 1 {
        vec![(0, repeats * total * rec)]
    } else {
        lens.iter().enumerate().map(|(i, &len)| (i, len * rec)).collect()
    };
    for &(i, bytes) in &read {
        check_apart(api, dst, "dst", out_bytes, lists[i], NAMES[i], bytes);
    }
    // Merge into host memory first: the sanitizer learns the exact bytes written.
    let mut out = Vec::with_capacity(out_bytes);
    let mut counts = [0usize; MRG_LISTS];
    if total == 0 {
        // Nothing to merge (empty lists stop a suspended merge at once, too).
    } else if repeats > 1 {
        // SAFETY: src1 holds the whole range (checked above).
        let all = unsafe { load(&src.src1, 0, repeats * total * rec) };
        for group in all.chunks_exact(total * rec) {
            let parts: Vec<&[u8]> = group.chunks_exact(lens[0] * rec).collect();
            counts = merge::<T>(&parts, rec, k.score_at, false, &mut out);
        }
    } else {
        // SAFETY: each valid list holds its length (checked above).
        let data: Vec<Vec<u8>> =
            lens.iter().enumerate().map(|(i, &len)| unsafe { load(lists[i], 0, len * rec) }).collect();
        let parts: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        counts = merge::<T>(&parts, rec, k.score_at, p.if_exhausted_suspension, &mut out);
    }
    // Empty lists and an empty output touch no byte.
    let spans: Vec<_> =
        read.iter().filter(|&&(_, bytes)| bytes > 0).map(|&(i, bytes)| span_of(lists[i], bytes)).collect();
    let written: &[_] = if out.is_empty() { &[] } else { &[span_of(dst, out.len())] };
    crate::observe::events::on_vector(api, &spans, written);
    // SAFETY: `out.len() <= out_bytes`, which `dst` holds (checked above).
    unsafe { store(dst, 0, &out) };
    set_vms4_sr(soc, counts);
}

/// Merges up to 4 sorted lists of (score, index) regions into one, largest score first
/// (AscendC `MrgSort(dst, src, params)`; Ascend910B and Ascend310B). Each list is a run of
/// `elementLengths[i]` 8-byte regions as [`sort32`] writes them; `validBit` picks the lists,
/// `ifExhaustedSuspension` stops the merge when one runs out (see [`get_mrg_sort_result`]),
/// and `repeatTimes` merges that many groups of 4 contiguous lists of one length, group `r`
/// reading and writing `r * 4 * elementLengths[0]` regions further on. See the [module
/// documentation](self) for the order, ties, NaN and the suspension mode. `repeatTimes = 0`
/// does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let (scores, index) = (ub.alloc::<f32>(128), ub.alloc::<u32>(128));
/// let (work, dst) = (ub.alloc::<f32>(256), ub.alloc::<f32>(256));
/// scores.copy_from_slice(&(0..128).map(|i| ((i * 37) % 128) as f32).collect::<Vec<_>>());
/// index.copy_from_slice(&(0..128).collect::<Vec<u32>>());
/// sort32(&work, &scores, &index, 4); // 4 sorted lists of 32 regions
/// let list = MrgSortSrcList::new(&work.view(0), &work.view(64), &work.view(128), &work.view(192));
/// mrg_sort(&dst, &list, &MrgSort4Info::new([32; 4], false, 0b1111, 1));
/// let out = dst.to_vec();
/// assert!((0..128).all(|i| out[2 * i] == (127 - i) as f32));
/// assert_eq!(out[1].to_bits(), 83); // the index of score 127 (83 * 37 % 128 = 127)
/// ```
///
/// # Panics
/// Panics if the chip lacks `MrgSort` (Ascend910, Ascend310P); `validBit` is not 3, 7 or 15;
/// an `elementLengths[i]` exceeds 4095; `repeatTimes > 1` without 4 valid lists of one length
/// stored contiguously and without suspension; an operand is not a UB tensor, `dst` is not
/// 32-byte aligned or a valid list not 8-byte aligned; a valid list holds fewer regions than
/// its length (with `repeatTimes > 1`: `src1` less than all groups); `dst` cannot hold the
/// whole merge; or `dst` overlaps a list it reads.
#[track_caller]
pub fn mrg_sort<T: SortElement>(dst: &LocalTensor<T>, src: &MrgSortSrcList<T>, params: &MrgSort4Info) {
    const API: &str = "MrgSort";
    let soc = check_chip::<T>(API, T::mrg_sort_supported);
    let kind = MergeKind {
        api: API,
        rec: REGION_BYTES,
        score_at: 0,
        src_align: 8,
        dst_align: 32,
        min_repeat: 0,
        unit: "regions",
    };
    merge_call(&kind, soc, dst, src, params);
}

/// Merges up to 4 sorted lists of Region Proposals into one, largest score first (AscendC
/// `MrgSort4(dst, src, params)`; Ascend910 for `half`, Ascend310P for `half` and `float`).
/// `elementLengths[i]` counts proposals (8 elements each, the score at element 4); `validBit`,
/// `ifExhaustedSuspension` and `repeatTimes` work as in [`mrg_sort`], except that
/// `repeatTimes` must be at least 1. Whole proposals move (all 8 elements).
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut ub = LocalMemAllocator::<Ub>::new();
///     let (src, dst) = (ub.alloc::<f16>(32), ub.alloc::<f16>(32));
///     // Two lists of 2 proposals with scores [4, 1] and [3, 2]; the label is the proposal's number.
///     for (p, s) in [4.0f32, 1.0, 3.0, 2.0].into_iter().enumerate() {
///         src.set_value(8 * p + 4, f16::from_f32(s));
///         src.set_value(8 * p + 5, f16::from_f32(p as f32));
///     }
///     let list = MrgSortSrcList::new(&src.view(0), &src.view(16), &src, &src);
///     mrg_sort4(&dst, &list, &MrgSort4Info::new([2, 2, 0, 0], false, 3, 1));
///     let labels: Vec<f32> = (0..4).map(|p| dst.get_value(8 * p + 5).to_f32()).collect();
///     assert_eq!(labels, [0.0, 2.0, 3.0, 1.0]);
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks `MrgSort4` for `T` (Ascend910B, Ascend310B; `float` on
/// Ascend910); `repeatTimes` is 0; or for the reasons of [`mrg_sort`], with the operands aligned
/// to one proposal (16 bytes for `half`, 32 for `float`) instead.
#[track_caller]
pub fn mrg_sort4<T: SortElement>(dst: &LocalTensor<T>, src: &MrgSortSrcList<T>, params: &MrgSort4Info) {
    const API: &str = "MrgSort4";
    let soc = check_chip::<T>(API, T::mrg_sort4_supported);
    let rec = PROPOSAL_ELEMS * T::SIZE;
    let kind = MergeKind {
        api: API,
        rec,
        score_at: PROPOSAL_SCORE * T::SIZE,
        src_align: rec,
        dst_align: rec,
        min_repeat: 1,
        unit: "proposals",
    };
    merge_call(&kind, soc, dst, src, params);
}

// ---- RpSort16 ------------------------------------------------------------------------------

/// Sorts 16 Region Proposals per repeat by score, largest first (AscendC `RpSort16(dst, src,
/// repeatTime)`; Ascend910 for `half`, Ascend310P for `half` and `float`). Repeat `r` sorts
/// proposals `16r .. 16r + 16` (elements `128r .. 128r + 128`) into the same place of `dst`;
/// whole proposals move. `dst` may be `src` (in place). `repeat_time = 0` does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend910), || {
///     let mut ub = LocalMemAllocator::<Ub>::new();
///     let (scores, rp) = (ub.alloc::<f16>(16), ub.alloc::<f16>(128));
///     scores.copy_from_slice(&(0..16).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
///     proposal_concat(&rp, &scores, 1, 4);
///     rp_sort16(&rp, &rp, 1);
///     assert_eq!((rp.get_value(4).to_f32(), rp.get_value(124).to_f32()), (15.0, 0.0));
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks `RpSort16` for `T`; `repeat_time` is outside `[0, 255]`; an operand
/// is not a 32-byte aligned UB tensor; `src` or `dst` holds fewer than `128 * repeat_time`
/// elements; or `dst` overlaps `src` without being at its address.
#[track_caller]
pub fn rp_sort16<T: SortElement>(dst: &LocalTensor<T>, src: &LocalTensor<T>, repeat_time: i32) {
    const API: &str = "RpSort16";
    check_chip::<T>(API, T::rp_sort16_supported);
    let repeats = check_range(API, "repeatTime", repeat_time, 0, 255);
    dst.check_vector_operand(API, "dst");
    src.check_vector_operand(API, "src");
    if repeats == 0 {
        return;
    }
    let n = repeats * RP_LEN * PROPOSAL_ELEMS;
    check_holds(API, src, "src", n, || format!("repeatTime = {repeat_time} reads"));
    check_holds(API, dst, "dst", n, || format!("repeatTime = {repeat_time} writes"));
    let in_place = Rc::ptr_eq(dst.ub(), src.ub()) && dst.get_phy_addr() == src.get_phy_addr();
    if !in_place {
        check_apart(API, dst, "dst", n * T::SIZE, src, "src", n * T::SIZE);
    }
    crate::observe::events::on_vector(API, &[span_of(src, n * T::SIZE)], &[span_of(dst, n * T::SIZE)]);
    // SAFETY: `src` holds `n` elements (checked above).
    let data = unsafe { load(src, 0, n * T::SIZE) };
    let rec = PROPOSAL_ELEMS * T::SIZE;
    let sorted = sort_groups::<T>(&data, rec, RP_LEN, PROPOSAL_SCORE * T::SIZE);
    // SAFETY: `dst` holds `n` elements (checked above); `src` was read before.
    unsafe { store(dst, 0, &sorted) };
}

// ---- ProposalConcat and ProposalExtract ------------------------------------------------------

/// The fields `modeNumber` selects.
const MODE_NAMES: &str = "0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label";

/// Writes 16 consecutive elements of `src` per repeat into one field of 16 Region Proposals
/// of `dst` (AscendC `ProposalConcat(dst, src, repeatTime, modeNumber)`; Ascend910 for `half`,
/// Ascend310P for `half` and `float`): `dst[8 * i + modeNumber] = src[i]` for `i` in
/// `0 .. 16 * repeatTime`, where `modeNumber` is 0 x1, 1 y1, 2 x2, 3 y2, 4 score or 5 label.
/// The other elements of `dst` keep their values. `repeat_time = 0` does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut ub = LocalMemAllocator::<Ub>::new();
///     let (src, rp) = (ub.alloc::<f32>(16), ub.alloc::<f32>(128));
///     src.copy_from_slice(&(0..16).map(|i| i as f32 + 0.5).collect::<Vec<_>>());
///     proposal_concat(&rp, &src, 1, 5); // into the labels
///     assert_eq!((rp.get_value(5), rp.get_value(13), rp.get_value(4)), (0.5, 1.5, 0.0));
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks `ProposalConcat` for `T`; `repeat_time` is outside `[0, 255]` or
/// `mode_number` outside `[0, 5]`; an operand is not a 32-byte aligned UB tensor; `src` holds
/// fewer than `16 * repeat_time` elements or `dst` fewer than `128 * repeat_time`; or `dst`
/// overlaps `src`.
#[track_caller]
pub fn proposal_concat<T: SortElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: i32,
    mode_number: i32,
) {
    proposal_move("ProposalConcat", T::proposal_concat_supported, dst, src, repeat_time, mode_number, true);
}

/// Reads one field of 16 Region Proposals of `src` per repeat into 16 consecutive elements of
/// `dst` (AscendC `ProposalExtract(dst, src, repeatTime, modeNumber)`, the inverse of
/// [`proposal_concat`]; Ascend910 for `half`, Ascend310P for `half` and `float`):
/// `dst[i] = src[8 * i + modeNumber]` for `i` in `0 .. 16 * repeatTime`. `repeat_time = 0`
/// does nothing.
///
/// ```
/// use ascend_core::prelude::*;
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || {
///     let mut ub = LocalMemAllocator::<Ub>::new();
///     let (rp, dst) = (ub.alloc::<f32>(128), ub.alloc::<f32>(16));
///     rp.copy_from_slice(&(0..128).map(|i| i as f32).collect::<Vec<_>>());
///     proposal_extract(&dst, &rp, 1, 4); // the scores
///     assert_eq!(dst.to_vec()[..3], [4.0, 12.0, 20.0]);
/// });
/// ```
///
/// # Panics
/// Panics if the chip lacks `ProposalExtract` for `T`; `repeat_time` is outside `[0, 255]` or
/// `mode_number` outside `[0, 5]`; an operand is not a 32-byte aligned UB tensor; `src` holds
/// fewer than `128 * repeat_time` elements or `dst` fewer than `16 * repeat_time`; or `dst`
/// overlaps `src`.
#[track_caller]
pub fn proposal_extract<T: SortElement>(
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: i32,
    mode_number: i32,
) {
    proposal_move(
        "ProposalExtract",
        T::proposal_extract_supported,
        dst,
        src,
        repeat_time,
        mode_number,
        false,
    );
}

/// The body of `ProposalConcat` (`concat`: element `i` of `src` into field `modeNumber` of
/// proposal `i` of `dst`) and `ProposalExtract` (the inverse): the checks (chip and type,
/// `repeatTime`, `modeNumber`, positions and alignment, sizes, overlap), then the move of
/// `16 * repeatTime` elements.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn proposal_move<T: SortElement>(
    api: &'static str,
    supported: fn(Soc) -> bool,
    dst: &LocalTensor<T>,
    src: &LocalTensor<T>,
    repeat_time: i32,
    mode_number: i32,
    concat: bool,
) {
    check_chip::<T>(api, supported);
    let repeats = check_range(api, "repeatTime", repeat_time, 0, 255);
    check!(
        (0..=5).contains(&mode_number),
        api,
        "modeNumber = {mode_number} is out of range [0, 5] ({MODE_NAMES})"
    );
    dst.check_vector_operand(api, "dst");
    src.check_vector_operand(api, "src");
    let (n, mode) = (repeats * RP_LEN, mode_number as usize);
    if n == 0 {
        return;
    }
    // Elements per moved element on each side: 1 on the plain side, a proposal on the other.
    let (src_step, dst_step) = if concat { (1, PROPOSAL_ELEMS) } else { (PROPOSAL_ELEMS, 1) };
    check_holds(api, src, "src", n * src_step, || {
        if concat {
            format!("repeatTime = {repeat_time} reads")
        } else {
            format!("repeatTime = {repeat_time} reads {n} proposals, that is")
        }
    });
    check_holds(api, dst, "dst", n * dst_step, || {
        if concat {
            format!("repeatTime = {repeat_time} writes into {n} proposals, that is")
        } else {
            format!("repeatTime = {repeat_time} writes")
        }
    });
    let (src_bytes, dst_bytes) = (n * src_step * T::SIZE, n * dst_step * T::SIZE);
    check_apart(api, dst, "dst", dst_bytes, src, "src", src_bytes);
    crate::observe::events::on_vector(api, &[span_of(src, src_bytes)], &[span_of(dst, dst_bytes)]);
    // The field's offset inside a proposal, on the proposal side.
    let (src_field, dst_field) = if concat { (0, mode) } else { (mode, 0) };
    let (s, d) = (src.ptr() as *const T, dst.ptr());
    for i in 0..n {
        // SAFETY: `src_step * i + src_field < src_step * n <= src.get_size()` and likewise for
        // `dst` (checked above; the field is below a proposal's 8 elements); the operands do
        // not overlap.
        unsafe { d.add(dst_step * i + dst_field).write(s.add(src_step * i + src_field).read()) };
    }
}

// ---- GetSortLen and GetSortOffset ------------------------------------------------------------

/// Elements of `T` per sorted element on `soc`: a region of 8 bytes (4 `half`, 2 `float`) on
/// Ascend910B/Ascend310B, a Region Proposal of 8 elements on Ascend910/Ascend310P.
fn sorted_elems<T: SortElement>(soc: Soc) -> u32 {
    if region_chip(soc) {
        (REGION_BYTES / T::SIZE) as u32
    } else {
        PROPOSAL_ELEMS as u32
    }
}

/// The size of `elem_count` sorted elements, in elements of `T` (AscendC
/// `GetSortLen<T>(elemCount)`): `elem_count * 4` for `half` and `* 2` for `float` on
/// Ascend910B/Ascend310B (8-byte regions), `elem_count * 8` on Ascend910/Ascend310P (Region
/// Proposals). The vendor's page says "单位为字节" (bytes), but its implementation
/// (`impl/basic_api/kernel_operator_proposal_intf_impl.h`) returns these element counts, which
/// is what indexing a tensor with the result needs; the implementation is followed. The
/// product wraps at 2^32, as the vendor's `uint32_t` arithmetic does.
///
/// ```
/// use ascend_core::prelude::*;
/// assert_eq!(get_sort_len::<f16>(128), 512); // Ascend910B, the default core
/// assert_eq!(get_sort_len::<f32>(128), 256);
/// run_on_core(CoreConfig::single(Soc::Ascend310P), || assert_eq!(get_sort_len::<f32>(128), 1024));
/// ```
///
/// # Panics
/// Never.
pub fn get_sort_len<T: SortElement>(elem_count: u32) -> u32 {
    elem_count.wrapping_mul(sorted_elems::<T>(get_soc()))
}

/// The offset of sorted element `elem_offset`, in elements of `T` (AscendC
/// `GetSortOffset<T>(elemOffset)`): the same products as [`get_sort_len`] (the vendor's page
/// says bytes; its implementation, followed here, returns elements).
///
/// ```
/// use ascend_core::prelude::*;
/// let mut ub = LocalMemAllocator::<Ub>::new();
/// let (scores, index, dst) = (ub.alloc::<f32>(32), ub.alloc::<u32>(32), ub.alloc::<f32>(64));
/// scores.copy_from_slice(&(0..32).map(|i| i as f32).collect::<Vec<_>>());
/// index.copy_from_slice(&(0..32).collect::<Vec<u32>>());
/// sort32(&dst, &scores, &index, 1);
/// assert_eq!(dst.get_value(get_sort_offset::<f32>(3) as usize), 28.0); // the 4th largest
/// ```
///
/// # Panics
/// Never.
pub fn get_sort_offset<T: SortElement>(elem_offset: u32) -> u32 {
    elem_offset.wrapping_mul(sorted_elems::<T>(get_soc()))
}
