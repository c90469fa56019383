//! `BilinearInterpolation` (`vector/bilinear.rs`): the vendor docs' worked example bit for bit,
//! a slow, obviously correct scalar reference over random offsets, masks (both forms),
//! `hRepeat`, `vRepeat`, `repeatMode`, `dstBlkStride`, `vROffset` and both overflow modes,
//! compared bit for bit (any NaN equals any NaN); the in-order accumulation the Ascend910B
//! composition relies on; the mask state it leaves; the sanitizer's view; every error; and the
//! chips without it.
//!
//! The reference follows the definition, not the composition: gather the 32-byte blocks of
//! `src0` by their byte offsets, multiply each by its weight (`src1[k]` for repeat `k` when
//! `repeatMode = false`, `src1[8k + b]` for its block `b` when `true`), sum the `hRepeat`
//! products of each vertical repeat left to right, add `+0`, and write the enabled lanes at
//! `i * vROffset + (j / 16) * dstBlkStride * 16 + j % 16`. Every product and sum is exact in
//! `f64` and rounded once to `half` (with saturation: NaN → 0, beyond ±65504 → ±65504), as each
//! of the composed instructions rounds.

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;

use crate::common::util;
use util::{mask_bits, on, on_bit, panic_message, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

// ---- the reference ---------------------------------------------------------------------------

/// One rounding of an exact value to `half`, after the saturation of the overflow mode.
fn r16(x: f64, sat: bool) -> f16 {
    let x = if sat && x.is_nan() {
        0.0
    } else if sat {
        x.clamp(-65504.0, 65504.0)
    } else {
        x
    };
    f16::from_f64(x)
}

/// The parameters of one call, as the reference reads them.
#[derive(Clone, Copy, Debug)]
struct Call {
    mask: Mask,
    h: usize,
    repeat_mode: bool,
    blk: usize,
    vro: usize,
    v: usize,
    sat: bool,
}

/// `dst` after the call, from its old contents.
fn reference(dst: &[f16], src0: &[f16], offsets: &[u32], src1: &[f16], c: &Call) -> Vec<f16> {
    let mut out = dst.to_vec();
    let bits = mask_bits(c.mask);
    // Lane `l` of gathered repeat `k`: element `l % 16` of the block at byte `offsets[8k + l / 16]`.
    let gathered = |k: usize, l: usize| src0[offsets[8 * k + l / 16] as usize / 2 + l % 16];
    let weight = |k: usize, l: usize| if c.repeat_mode { src1[8 * k + l / 16] } else { src1[k] };
    let term = |k: usize, l: usize| r16(gathered(k, l).to_f64() * weight(k, l).to_f64(), c.sat);
    for i in 0..c.v {
        for l in (0..128).filter(|&l| on_bit(bits, l)) {
            let mut acc = term(i * c.h, l);
            for t in 1..c.h {
                acc = r16(acc.to_f64() + term(i * c.h + t, l).to_f64(), c.sat);
            }
            out[i * c.vro + (l / 16) * c.blk * 16 + l % 16] = r16(acc.to_f64() + 0.0, c.sat);
        }
    }
    out
}

/// Bit-equal, or both NaN.
fn same(a: f16, b: f16) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[track_caller]
fn assert_same(got: &[f16], want: &[f16], ctx: &dyn std::fmt::Display) {
    assert_eq!(got.len(), want.len());
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !same(got[i], want[i])).collect();
    if let Some(&i) = bad.first() {
        panic!(
            "element {i}: got {} ({:#06x}), want {} ({:#06x}); {} elements differ; {ctx}",
            got[i],
            got[i].to_bits(),
            want[i],
            want[i].to_bits(),
            bad.len()
        );
    }
}

// ---- operands ----------------------------------------------------------------------------------

/// The five operands in one UB buffer, each at a 32-byte boundary, in the order
/// dst, src0, src0Offset, src1, sharedTmpBuffer.
struct Io {
    _u: util::Ub,
    dst: LocalTensor<f16>,
    src0: LocalTensor<f16>,
    off: LocalTensor<u32>,
    src1: LocalTensor<f16>,
    tmp: LocalTensor<u8>,
}

fn io(dst_n: usize, src0_n: usize, off_n: usize, src1_n: usize, tmp_bytes: usize) -> Io {
    let sizes = [dst_n * 2, src0_n * 2, off_n * 4, src1_n * 2, tmp_bytes];
    let mut at = [0; 5];
    let mut end = 0;
    for (a, s) in at.iter_mut().zip(sizes) {
        *a = end;
        end += s.div_ceil(32) * 32;
    }
    let u = util::ub(end.max(32));
    Io {
        dst: u.t::<f16>(at[0], dst_n),
        src0: u.t::<f16>(at[1], src0_n),
        off: u.t::<u32>(at[2], off_n),
        src1: u.t::<f16>(at[3], src1_n),
        tmp: u.t::<u8>(at[4], tmp_bytes),
        _u: u,
    }
}

fn h(x: f64) -> f16 {
    f16::from_f64(x)
}

/// The docs' worked example: src0 = 1..=512, offsets 0, 32, …, 992, src1 = `src1`, hRepeat =
/// vRepeat = 2, vROffset = 128, dstBlkStride = 1. Returns dst.
fn worked_example(mask: Mask, repeat_mode: bool, src1: &[f16]) -> Vec<f16> {
    let io = io(256, 512, 32, src1.len(), (512 + src1.len()) * 32);
    io.src0.copy_from_slice(&(1..=512).map(|i| h(i as f64)).collect::<Vec<_>>());
    io.off.copy_from_slice(&(0..32).map(|i| 32 * i).collect::<Vec<u32>>());
    io.src1.copy_from_slice(src1);
    io.dst.copy_from_slice(&[f16::ZERO; 256]);
    bilinear_interpolation(&io.dst, &io.src0, &io.off, &io.src1, mask, 2, repeat_mode, 1, 128, 2, &io.tmp);
    io.dst.to_vec()
}

// ---- the docs' example ---------------------------------------------------------------------------

#[test]
fn docs_worked_example() {
    on(Soc::Ascend910B, || {
        // The call examples: src1 = 2..=17, repeatMode = false, both mask forms; the docs'
        // result "[389, 394, 399, 404, ..., 4096]".
        let src1: Vec<f16> = (2..=17).map(|i| h(i as f64)).collect();
        let got = worked_example(Mask::Count(128), false, &src1);
        let got_bits = worked_example(Mask::Bits([u64::MAX, u64::MAX]), false, &src1);
        assert_eq!(util::bits(&got), util::bits(&got_bits));
        let head: Vec<f64> = got[..4].iter().map(|v| v.to_f64()).collect();
        assert_eq!(head, [389.0, 394.0, 399.0, 404.0]);
        assert_eq!(got[255].to_f64(), 4096.0);
        // Every product and sum is rounded to half: 383 * 4 + 511 * 5 = 1532 + 2555 is 4087
        // exactly, but 2555 rounds to 2556 (ties to even), so 4088.
        assert_eq!(got[254].to_f64(), 4088.0);
        // All of it, element by element: dst[j] = (j + 1) * 2 + (j + 129) * 3 and
        // dst[128 + j] = (j + 257) * 4 + (j + 385) * 5, each step rounded.
        let r = |x: f64| h(x).to_f64();
        let want: Vec<f16> = (0..256)
            .map(|e| {
                let (i, j) = (e / 128, (e % 128) as f64);
                let (a, b) = (256.0 * i as f64 + j + 1.0, 256.0 * i as f64 + j + 129.0);
                let (wa, wb) = (2.0 * i as f64 + 2.0, 2.0 * i as f64 + 3.0);
                h(r(r(a * wa) + r(b * wb)) + 0.0)
            })
            .collect();
        util::assert_bits(&got, &want);

        // The description's walk-through of repeatMode = true, src1 = 2..=33: block b of gathered
        // repeat k is weighted by src1[8k + b].
        let src1: Vec<f16> = (2..=33).map(|i| h(i as f64)).collect();
        let got = worked_example(Mask::Count(128), true, &src1);
        // dst[0] = 1 * 2 + 129 * 10; dst[16] = 17 * 3 + 145 * 11; dst[127] = 128 * 9 + 256 * 17.
        assert_eq!(got[0].to_f64(), 1292.0);
        assert_eq!(got[16].to_f64(), 1646.0);
        assert_eq!(got[127].to_f64(), 5504.0);
        // dst[128] = 257 * 18 + 385 * 26 = 4626 + 10010 exactly, but the products round to 4624
        // (a tie, to even) and 10008, and their sum 14632 is a half.
        assert_eq!(got[128].to_f64(), 14632.0);
        assert_eq!(got[255].to_f64(), 384.0 * 25.0 + 512.0 * 33.0);
        let offsets: Vec<u32> = (0..32).map(|i| 32 * i).collect();
        let src0: Vec<f16> = (1..=512).map(|i| h(i as f64)).collect();
        let c = Call { mask: Mask::Count(128), h: 2, repeat_mode: true, blk: 1, vro: 128, v: 2, sat: false };
        util::assert_bits(&got, &reference(&[f16::ZERO; 256], &src0, &offsets, &src1, &c));
    });
}

// ---- random cases against the reference ----------------------------------------------------------

/// One random call. The raw fields are fitted in `random_case` (vRepeat cut so that
/// `hRepeat * vRepeat <= 255` and the operands fit the UB, `vROffset` at least one repeat's
/// span, so that vertical repeats never overlap); every field shrinks towards the simplest case.
#[derive(Clone, Debug)]
struct Case {
    sat: bool,
    h: u8,
    v: u8,
    repeat_mode: bool,
    mask: Mask,
    blk: u16,
    /// Blocks added to the smallest `vROffset / 16` that keeps the vertical repeats apart.
    rep_extra: u16,
    /// `src0` in blocks.
    src0_blocks: usize,
    /// Elements of `src1` past the weights used (up to 15: a partial group of 8 is never
    /// broadcast).
    src1_extra: usize,
    /// Offsets past the used ones (never read: garbage).
    off_extra: usize,
    tmp_extra_blocks: usize,
    dst_extra_blocks: usize,
    /// Enter counter mode with a stale count before the call.
    counter_before: bool,
    data_seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let mask = prop_oneof![
        2 => (1..=128u64).prop_map(Mask::Count),
        1 => Just(Mask::Count(128)),
        2 => strat::bits_mask_par(128).prop_map(Mask::Bits),
    ];
    (
        (any::<bool>(), prop_oneof![3 => 1..=4u8, 1 => 1..=31u8], prop_oneof![3 => 1..=4u8, 1 => 1..=255u8]),
        (any::<bool>(), mask, 0..=3u16, 0..=6u16),
        (1..=48usize, 0..=15usize, 0..=16usize, 0..=4usize, 0..=4usize),
        (any::<bool>(), any::<u64>()),
    )
        .prop_map(
            |(
                (sat, h, v),
                (repeat_mode, mask, blk, rep_extra),
                (src0_blocks, src1_extra, off_extra, tmp_extra_blocks, dst_extra_blocks),
                (counter_before, data_seed),
            )| Case {
                sat,
                h,
                v,
                repeat_mode,
                mask,
                blk,
                rep_extra,
                src0_blocks,
                src1_extra,
                off_extra,
                tmp_extra_blocks,
                dst_extra_blocks,
                counter_before,
                data_seed,
            },
        )
}

/// A random half: mostly moderate values with fractions, some large enough for products to
/// overflow, some special values, some arbitrary bits (NaN and infinities included).
fn gen_f16(r: &mut Rng) -> f16 {
    match r.below(16) {
        0 => f16::from_bits(r.next() as u16),
        1 => h([0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 65504.0, -65504.0, 6e-8, -1.0][r.index(8)]),
        2..=4 => h((r.below(2001) as f64 - 1000.0) * 0.5),
        _ => h((r.below(4001) as f64 - 2000.0) / 64.0),
    }
}

fn random_case(c: &Case) {
    let (hr, mut v) = (usize::from(c.h), usize::from(c.v).min(255 / usize::from(c.h)));
    let bits = mask_bits(c.mask);
    let blk = usize::from(c.blk);
    let top = (0..8).rev().find(|&b| (bits[b / 4] >> (16 * (b % 4))) & 0xFFFF != 0).unwrap();
    // One vertical repeat spans `span` blocks of dst; the next starts `rep` blocks later.
    let span = top * blk + 1;
    let rep = span.max(8) + usize::from(c.rep_extra);
    let sizes = |v: usize| {
        let n = hr * v;
        let weights = if c.repeat_mode { 8 * n } else { n };
        let src1_n = (weights.div_ceil(8) * 8 + c.src1_extra).min(2047);
        let src0_n = 16 * c.src0_blocks;
        let tmp = ((src0_n + src1_n) * 32).max((n + src1_n / 8) * 256) + 32 * c.tmp_extra_blocks;
        let dst_n = 16 * ((v - 1) * rep + span + c.dst_extra_blocks);
        [dst_n, src0_n, 8 * n + c.off_extra, src1_n, tmp]
    };
    let bytes = |s: [usize; 5]| s[0] * 2 + s[1] * 2 + s[2] * 4 + s[3] * 2 + s[4] + 5 * 32;
    while v > 1 && bytes(sizes(v)) > 190_000 {
        v /= 2;
    }
    let [dst_n, src0_n, off_n, src1_n, tmp_bytes] = sizes(v);
    let call = Call { mask: c.mask, h: hr, repeat_mode: c.repeat_mode, blk, vro: 16 * rep, v, sat: c.sat };
    on(Soc::Ascend910B, || {
        if c.sat {
            set_overflow_mode(OverflowMode::Saturation);
        }
        let io = io(dst_n, src0_n, off_n, src1_n, tmp_bytes);
        let mut r = Rng(c.data_seed);
        let src0: Vec<f16> = (0..src0_n).map(|_| gen_f16(&mut r)).collect();
        let n = hr * v;
        let offsets: Vec<u32> = (0..off_n)
            .map(|q| if q < 8 * n { 32 * r.index(c.src0_blocks) as u32 } else { r.next() as u32 })
            .collect();
        let src1: Vec<f16> = (0..src1_n).map(|_| gen_f16(&mut r)).collect();
        let before: Vec<f16> = (0..dst_n).map(|_| gen_f16(&mut r)).collect();
        io.src0.copy_from_slice(&src0);
        io.off.copy_from_slice(&offsets);
        io.src1.copy_from_slice(&src1);
        io.dst.copy_from_slice(&before);
        // The scratch starts as garbage: nothing the call reads from it is left unwritten.
        io.tmp.copy_from_slice(&r.bytes(tmp_bytes));
        if c.counter_before {
            set_mask_count();
            set_vector_mask::<f16>(7u64);
        }
        bilinear_interpolation(
            &io.dst,
            &io.src0,
            &io.off,
            &io.src1,
            c.mask,
            c.h,
            c.repeat_mode,
            c.blk,
            (16 * rep) as u16,
            v as u8,
            &io.tmp,
        );
        let want = reference(&before, &src0, &offsets, &src1, &call);
        assert_same(&io.dst.to_vec(), &want, &format_args!("{call:?}, {c:?}"));
        // The inputs are untouched; the call leaves normal mode with its mask in the register.
        util::assert_bits(&io.src0.to_vec(), &src0);
        util::assert_bits(&io.src1.to_vec(), &src1);
        assert_eq!(io.off.to_vec(), offsets);
        assert_eq!(get_mask_mode(), MaskMode::Normal);
        assert_eq!(get_vector_mask(), bits);
    });
}

#[test]
fn random_calls_match_the_reference() {
    strat::check_cases(400, 0xB111_4EA2, case(), random_case);
}

/// The largest shapes the Ascend910B composition takes: 255 gathered repeats (hRepeat 15 and
/// 17, vRepeat 17 and 15; hRepeat 31), both repeat modes, the widest vROffset (4080).
#[test]
fn extreme_shapes_match_the_reference() {
    let base = Case {
        sat: false,
        h: 15,
        v: 17,
        repeat_mode: true,
        mask: Mask::Count(128),
        blk: 1,
        rep_extra: 0,
        src0_blocks: 48,
        src1_extra: 7,
        off_extra: 0,
        tmp_extra_blocks: 0,
        dst_extra_blocks: 0,
        counter_before: false,
        data_seed: 7,
    };
    random_case(&base);
    random_case(&Case {
        h: 17,
        v: 15,
        repeat_mode: false,
        mask: Mask::Bits([0x8000_0000_0000_0001, 1 << 63]),
        ..base.clone()
    });
    random_case(&Case { h: 31, v: 8, blk: 3, ..base.clone() });
    random_case(&Case { h: 1, v: 255, repeat_mode: false, sat: true, ..base.clone() });
    // vROffset = 4080 (dstRepStride = 255 blocks), three vertical repeats.
    on(Soc::Ascend910B, || {
        let io = io(2 * 4080 + 128, 256, 48, 16, (256 + 16) * 32);
        io.src0.copy_from_slice(&(0..256).map(|i| h(i as f64)).collect::<Vec<_>>());
        let offsets: Vec<u32> = (0..48).map(|q| 32 * (q % 16)).collect();
        io.off.copy_from_slice(&offsets);
        io.src1.copy_from_slice(&[h(0.5); 16]);
        let before = vec![h(-1.0); 2 * 4080 + 128];
        io.dst.copy_from_slice(&before);
        bilinear_interpolation(&io.dst, &io.src0, &io.off, &io.src1, 128u64, 2, false, 1, 4080, 3, &io.tmp);
        let c =
            Call { mask: Mask::Count(128), h: 2, repeat_mode: false, blk: 1, vro: 4080, v: 3, sat: false };
        let want = reference(&before, &io.src0.to_vec(), &offsets, &[h(0.5); 16], &c);
        util::assert_bits(&io.dst.to_vec(), &want);
        // Vertical repeat 1, lane 0: src0[0] * 0.5 + src0[128] * 0.5 (offsets 32 * (q % 16)).
        assert_eq!(io.dst.get_value(4080).to_f64(), 64.0);
    });
}

// ---- the engine property the composition relies on ---------------------------------------------

/// The horizontal sums are one `Add` whose `dst` and `src1` are the same block run with a
/// repeat stride of 0: repeat `k` must read what repeat `k - 1` wrote, so the group sums left to
/// right with a rounding after each addition.
#[test]
fn add_with_aliased_repeat_stride_zero_accumulates_in_order() {
    on(Soc::Ascend910B, || {
        let u = util::ub(5 * 256);
        let (acc, rest) = (u.t::<f16>(0, 128), u.t::<f16>(256, 512));
        let params = BinaryRepeatParams::new(1, 1, 1, 0, 8, 0);
        acc.copy_from_slice(&[f16::ZERO; 128]);
        rest.copy_from_slice(&(0..512).map(|e| h((e / 128 + 1) as f64)).collect::<Vec<_>>());
        add_masked::<f16, true>(&acc, &rest, &acc, 128u64, 4, &params);
        // 0 + 1 + 2 + 3 + 4, not 0 + 4 (every repeat reading the original acc).
        assert!(acc.to_vec().iter().all(|&x| x.to_f64() == 10.0));
        // The rounding after each step: 2048 + 1 → 2048 (a tie, to even), + 1 → 2048, + 2 →
        // 2050; one rounding of the whole sum would give 2052.
        acc.copy_from_slice(&[h(2048.0); 128]);
        let steps = [1.0, 1.0, 2.0];
        rest.copy_from_slice(&(0..384).map(|e| h(steps[e / 128])).collect::<Vec<_>>());
        add_masked::<f16, true>(&acc, &rest, &acc, [u64::MAX, 0], 3, &params);
        let got = acc.to_vec();
        assert!(got[..64].iter().all(|&x| x.to_f64() == 2050.0), "{:?}", &got[..4]);
        assert!(got[64..].iter().all(|&x| x.to_f64() == 2048.0));
    });
}

// ---- the sanitizer -------------------------------------------------------------------------------

/// The composed instructions are `BilinearInterpolation`'s accesses: a DMA into `src1`
/// without the `MTE2_V` event before the call is a race that names both, and the event
/// orders it.
#[test]
fn sanitizer_sees_the_composition_as_bilinear_interpolation() {
    let fill = |io: &Io| {
        io.src0.copy_from_slice(&(1..=512).map(|i| h(i as f64)).collect::<Vec<_>>());
        io.off.copy_from_slice(&(0..32).map(|i| 32 * i).collect::<Vec<u32>>());
    };
    let weights: Vec<f16> = (2..=17).map(|i| h(i as f64)).collect();
    let run = |event: bool| {
        LaunchSanitizer::new().run_core(|| {
            let (_region, gm) = util::gm(&weights);
            let io = io(256, 512, 32, 16, (512 + 16) * 32);
            fill(&io);
            data_copy(&io.src1, &gm, 16);
            if event {
                set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
            }
            bilinear_interpolation(
                &io.dst, &io.src0, &io.off, &io.src1, 128u64, 2, false, 1, 128, 2, &io.tmp,
            );
            assert_eq!(io.dst.get_value(0).to_f64(), 389.0);
        })
    };
    on(Soc::Ascend910B, || {
        let msg = panic_message(|| run(false));
        check(&msg, "BilinearInterpolation: sanitizer: read-after-write race");
        check(&msg, "that DataCopy on pipe MTE2");
        check(&msg, "add SetFlag<HardEvent::MTE2_V> / WaitFlag<HardEvent::MTE2_V>");
    });
    on(Soc::Ascend910B, || run(true));
}

/// Without the compiler's automatic synchronisation, the composition needs nothing around it:
/// its `PipeBarrier<PIPE_V>` calls are where the vendor's are (the composed `Mul` is in place,
/// its `dst` being its `src1`).
#[test]
fn sanitizer_without_auto_sync_needs_nothing_more() {
    on(Soc::Ascend910B, || {
        LaunchSanitizer::with_auto_sync(false).run_core(|| {
            let io = io(256, 512, 32, 16, (512 + 16) * 32);
            io.src0.copy_from_slice(&(1..=512).map(|i| h(i as f64)).collect::<Vec<_>>());
            io.off.copy_from_slice(&(0..32).map(|i| 32 * i).collect::<Vec<u32>>());
            io.src1.copy_from_slice(&(2..=17).map(|i| h(i as f64)).collect::<Vec<_>>());
            bilinear_interpolation(
                &io.dst, &io.src0, &io.off, &io.src1, 128u64, 2, false, 1, 128, 2, &io.tmp,
            );
            set_flag::<HardEvent::V_S>(EVENT_ID0);
            wait_flag::<HardEvent::V_S>(EVENT_ID0);
            assert_eq!(io.dst.get_value(0).to_f64(), 389.0);
        })
    });
}

// ---- errors --------------------------------------------------------------------------------------

/// Runs the worked example's call with one argument changed by `tweak` and returns the panic
/// message, which must name the API.
fn fails_with(soc: Soc, sizes: [usize; 5], tweak: impl FnOnce(&Io) -> Args) -> String {
    let mut msg = String::new();
    on(soc, || {
        let io = io(sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]);
        let n_src0 = io.src0.get_size();
        io.src0.copy_from_slice(&(0..n_src0).map(|i| h(i as f64)).collect::<Vec<_>>());
        let n_off = io.off.get_size();
        io.off.copy_from_slice(&(0..n_off as u32).map(|i| 32 * (i % 32)).collect::<Vec<_>>());
        let a = tweak(&io);
        msg = panic_message(|| {
            bilinear_interpolation(
                a.dst.as_ref().unwrap_or(&io.dst),
                a.src0.as_ref().unwrap_or(&io.src0),
                a.off.as_ref().unwrap_or(&io.off),
                a.src1.as_ref().unwrap_or(&io.src1),
                a.mask,
                a.h,
                a.repeat_mode,
                a.blk,
                a.vro,
                a.v,
                a.tmp.as_ref().unwrap_or(&io.tmp),
            )
        });
    });
    assert!(msg.contains("BilinearInterpolation: "), "{msg}");
    msg
}

/// The worked example's arguments, any of which a case replaces (`None`: the default tensor).
struct Args {
    dst: Option<LocalTensor<f16>>,
    src0: Option<LocalTensor<f16>>,
    off: Option<LocalTensor<u32>>,
    src1: Option<LocalTensor<f16>>,
    tmp: Option<LocalTensor<u8>>,
    mask: Mask,
    h: u8,
    repeat_mode: bool,
    blk: u16,
    vro: u16,
    v: u8,
}

const EXAMPLE: [usize; 5] = [256, 512, 32, 16, (512 + 16) * 32];

fn args() -> Args {
    Args {
        dst: None,
        src0: None,
        off: None,
        src1: None,
        tmp: None,
        mask: Mask::Count(128),
        h: 2,
        repeat_mode: false,
        blk: 1,
        vro: 128,
        v: 2,
    }
}

#[track_caller]
fn check(msg: &str, want: &str) {
    assert!(msg.contains(want), "message {msg:?} does not contain {want:?}");
}

#[test]
fn chips_without_it_are_errors_naming_the_chip() {
    let msg = fails_with(Soc::Ascend310P, EXAMPLE, |_| args());
    check(
        &msg,
        "BilinearInterpolation is not supported on Ascend310P (Atlas inference series AI Core): the vendor runs it \
         there as the native vbi instruction, whose arithmetic (the order and rounding of its products and sums) is \
         not documented",
    );
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let msg = fails_with(soc, EXAMPLE, |_| args());
        check(
            &msg,
            &format!(
                "BilinearInterpolation is not supported on {soc} ({}): the vendor does not support it on this chip",
                soc.product_line()
            ),
        );
    }
}

#[test]
fn parameter_errors_name_the_parameter_value_and_limit() {
    let e = |tweak: fn(&mut Args)| {
        fails_with(Soc::Ascend910B, EXAMPLE, |_| {
            let mut a = args();
            tweak(&mut a);
            a
        })
    };
    check(&e(|a| a.h = 0), "hRepeat = 0 is out of range [1, 255]");
    check(&e(|a| a.v = 0), "vRepeat = 0 is out of range [1, 255]");
    check(&e(|a| a.vro = 112), "vROffset = 112 is out of range [128, 65535]");
    check(
        &e(|a| a.vro = 136),
        "vROffset = 136 is not a multiple of 16: vROffset * sizeof(half) must be whole 32-byte blocks",
    );
    check(&e(|a| a.mask = Mask::Count(0)), "mask = 0 is out of range [1, 128] for half in normal mode");
    check(&e(|a| a.mask = Mask::Count(129)), "mask = 129 is out of range [1, 128] for half in normal mode");
    check(&e(|a| a.mask = Mask::Bits([0, 0])), "mask = [0, 0]: a bit mask must enable at least one lane");
    // The Ascend910B composition's 8-bit fields.
    check(
        &e(|a| (a.h, a.v) = (16, 16)),
        "hRepeat * vRepeat = 16 * 16 = 256 exceeds 255: the Ascend910B implementation counts the gathered repeats \
         in a uint8_t (innerRepeatTimes)",
    );
    check(
        &e(|a| (a.h, a.v) = (32, 1)),
        "hRepeat = 32 exceeds 31 on Ascend910B: the final Adds reads each vertical repeat's sum with srcRepStride = \
         hRepeat * 8 = 256 blocks, beyond its uint8_t field (255)",
    );
    check(
        &e(|a| a.vro = 4096),
        "vROffset = 4096 exceeds 4080 on Ascend910B: the final Adds writes the vertical repeats with dstRepStride = \
         vROffset / 16 = 256 blocks, beyond its uint8_t field (255)",
    );
}

#[test]
fn operand_errors_name_the_operand_and_limit() {
    let ex = EXAMPLE;
    // Alignment, for every operand.
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { src0: Some(io.src0.view(8)), ..args() });
    check(&msg, "src0 address = 0x210 is not 32-byte aligned");
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { off: Some(io.off.view(1)), ..args() });
    check(&msg, "src0Offset address = 0x604 is not 32-byte aligned");
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { tmp: Some(io.tmp.view(16)), ..args() });
    check(&msg, "sharedTmpBuffer address = 0x6b0 is not 32-byte aligned");
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { dst: Some(io.dst.view(1)), ..args() });
    check(&msg, "dst address = 0x2 is not 32-byte aligned");
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { src1: Some(io.src1.view(4)), ..args() });
    check(&msg, "src1 address = 0x688 is not 32-byte aligned");

    // Sizes.
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { off: Some(io.off.view_len(0, 31)), ..args() });
    check(
        &msg,
        "src0Offset holds 31 offsets but hRepeat * vRepeat = 4 repeats gather 8 blocks each: 32 needed",
    );
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { src1: Some(io.src1.view_len(0, 7)), ..args() });
    check(
        &msg,
        "src1 holds 7 elements, of which Brcb broadcasts 0 (whole groups of 8), but repeatMode = false with hRepeat \
         * vRepeat = 4 takes 4 weights (one per gathered repeat)",
    );
    let msg = fails_with(Soc::Ascend910B, ex, |_| Args { repeat_mode: true, ..args() });
    check(
        &msg,
        "src1 holds 16 elements, of which Brcb broadcasts 16 (whole groups of 8), but repeatMode = true with \
         hRepeat * vRepeat = 4 takes 32 weights (one per gathered block)",
    );
    let msg = fails_with(Soc::Ascend910B, [256, 512, 32, 2048, (512 + 2048) * 32], |_| args());
    check(
        &msg,
        "src1 holds 2048 elements: the Ascend910B implementation broadcasts all of them with Brcb of \
         src1.GetSize() / 8 = 256 repeats, beyond its uint8_t repeatTime (255); src1 may hold at most 2047 elements",
    );
    let msg = fails_with(Soc::Ascend910B, ex, |io| Args { tmp: Some(io.tmp.view_len(0, 16864)), ..args() });
    check(
        &msg,
        "sharedTmpBuffer holds 16864 bytes but needs at least (src0.GetSize() + src1.GetSize()) * 32 = (512 + 16) \
         * 32 = 16896 on Ascend910B",
    );
    // A small src0 whose one block is gathered 32 times meets the documented size but not the
    // composition's: 4 gathered repeats and 2 Brcb repeats of 256 bytes.
    let msg = fails_with(Soc::Ascend910B, [256, 16, 32, 16, 1024], |io| {
        io.off.copy_from_slice(&[0; 32]);
        args()
    });
    check(
        &msg,
        "sharedTmpBuffer holds 1024 bytes but the Ascend910B implementation uses 1536: 1024 for the 4 gathered \
         repeats and 512 for the 2 Brcb repeats of src1",
    );

    // Offsets (checked by the composed Gatherb, under this API's names).
    let msg = fails_with(Soc::Ascend910B, ex, |io| {
        io.off.set_value(5, 48);
        args()
    });
    check(&msg, "src0Offset[5] = 48 must be a multiple of 32 with its block inside src0's 1024 bytes");
    let msg = fails_with(Soc::Ascend910B, ex, |io| {
        io.off.set_value(31, 1024);
        args()
    });
    check(&msg, "src0Offset[31] = 1024 must be a multiple of 32 with its block inside src0's 1024 bytes");
}

#[test]
fn overlap_errors() {
    // The documented rule: src0, src1 and src0Offset apart.
    let msg =
        fails_with(Soc::Ascend910B, EXAMPLE, |io| Args { src1: Some(io.src0.view_len(496, 16)), ..args() });
    check(
        &msg,
        "src0 (bytes 0x200..0x600) overlaps src1 (bytes 0x5e0..0x600); src0, src1 and src0Offset may not overlap",
    );
    let msg = fails_with(Soc::Ascend910B, EXAMPLE, |io| Args {
        src1: Some(io.off.reinterpret_cast::<f16>().view_len(0, 16)),
        ..args()
    });
    check(&msg, "src1 (bytes 0x600..0x620) overlaps src0Offset (bytes 0x600..0x680)");
    // The scratch may not overlap an input (the gathered blocks would overwrite src1 before
    // Brcb reads it).
    let msg = fails_with(Soc::Ascend910B, EXAMPLE, |io| Args {
        src1: Some(io.tmp.reinterpret_cast::<f16>().view_len(64, 16)),
        ..args()
    });
    check(
        &msg,
        "sharedTmpBuffer (bytes 0x6a0..0xca0) overlaps src1 (bytes 0x720..0x740); the Ascend910B implementation \
         writes the first 1536 bytes of sharedTmpBuffer, which may not overlap an input",
    );
    // Vertical repeats may not overlap: dstBlkStride = 2 spreads a repeat over 15 blocks, but
    // vROffset = 128 starts the next one 8 blocks later.
    let msg = fails_with(Soc::Ascend910B, [512, 512, 32, 16, (512 + 16) * 32], |_| Args { blk: 2, ..args() });
    check(
        &msg,
        "vertical repeats 0 and 1 both write dst block 8 (elements 128..144): with dstBlkStride = 2 and the mask's \
         blocks, vROffset = 128 starts each repeat only 8 blocks after the previous one; the destinations of two \
         vertical repeats may not overlap",
    );
    // ... which the mask decides: with only the first 4 blocks enabled (7 blocks apart) they
    // do not.
    on(Soc::Ascend910B, || {
        let io = io(512, 512, 32, 16, (512 + 16) * 32);
        io.src0.copy_from_slice(&(0..512).map(|i| h(i as f64)).collect::<Vec<_>>());
        io.off.copy_from_slice(&(0..32).map(|i| 32 * i).collect::<Vec<u32>>());
        io.src1.copy_from_slice(&[h(1.0); 16]);
        io.dst.copy_from_slice(&[f16::ZERO; 512]);
        bilinear_interpolation(&io.dst, &io.src0, &io.off, &io.src1, 64u64, 2, false, 2, 128, 2, &io.tmp);
        // Vertical repeat 1, lane 16 (its block 1, two blocks on): src0[272] + src0[400]; the
        // block between is untouched.
        assert_eq!(io.dst.get_value(128 + 32).to_f64(), 672.0);
        assert_eq!(io.dst.get_value(128 + 16).to_f64(), 0.0);
    });
    // dst: its extent and the scratch (checked by the composed Adds, under this API's names).
    let msg =
        fails_with(Soc::Ascend910B, EXAMPLE, |io| Args { dst: Some(io.dst.view_len(0, 255)), ..args() });
    check(
        &msg,
        "dst would touch element 255 but the tensor has 255 elements (repeats = 2, blkStride = 1, repStride = 8)",
    );
    let msg = fails_with(Soc::Ascend910B, EXAMPLE, |io| Args {
        dst: Some(io.tmp.reinterpret_cast::<f16>().view(64)),
        ..args()
    });
    check(&msg, "dst (address 0x720) and sharedTmpBuffer (address 0x6a0) partially overlap");
}
