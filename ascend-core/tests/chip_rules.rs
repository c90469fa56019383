//! Where the emulator follows what the vendor's implementation does rather than the stricter
//! wording of a page (issue 32): in-place level-2 reductions and `Gather`, `PairReduceSum`'s
//! empty pairs on Ascend310B, `isSetMask = false` with a non-placeholder mask, and one-repeat
//! in-place instructions whose repeat strides differ. Accepted forms are compared bit for bit
//! with out-of-place runs; rejected ones with their message.

use ascend_core::prelude::*;

use crate::common::util;
use util::{assert_bits, expect_panic, on, ub, Rng};

const CHIPS: [Soc; 4] = [Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B];

/// Random values in [-8, 8) as `T`, a repeatable pattern.
fn data<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng(seed);
    (0..n).map(|_| T::from_f64((rng.below(1 << 16) as f64) / 4096.0 - 8.0)).collect()
}

// ---- 1. in-place level-2 reductions -------------------------------------------------------

/// `ReduceSum`/`ReduceMax`/`ReduceMin` (count form, `which` 0/1/2, with the index) run in place
/// (dst = src) and out of place on the same data: dst's result elements, the rest of src and
/// the temporary buffer agree bit for bit.
fn level2_in_place_matches<T: ReduceElement>(soc: Soc, which: usize, count: usize) {
    on(soc, || {
        let u = ub(4 * 8192 + 4096);
        let n = count.div_ceil(T::EPB) * T::EPB;
        let input = data::<T>(n, (count * 3 + which) as u64);
        let (x, out, w1, w2) = (
            u.t::<T>(0, n),
            u.t::<T>(2 * 8192, T::EPB),
            u.t::<T>(3 * 8192, 1024),
            u.t::<T>(3 * 8192 + 4096, 1024),
        );
        let run = |dst: &LocalTensor<T>, src: &LocalTensor<T>, work: &LocalTensor<T>| match which {
            0 => reduce_sum(dst, src, work, count as i32),
            1 => reduce_max(dst, src, work, count as i32, true),
            _ => reduce_min(dst, src, work, count as i32, true),
        };
        x.copy_from_slice(&input);
        w1.copy_from_slice(&[T::ZERO; 1024]);
        run(&out, &x, &w1);
        let want = out.to_vec();
        let results = if which == 0 { 1 } else { 2 };
        x.copy_from_slice(&input);
        w2.copy_from_slice(&[T::ZERO; 1024]);
        run(&x, &x, &w2);
        let got = x.to_vec();
        let ctx = format!("{soc} {} op {which} count {count}", T::DTYPE);
        assert_bits(&got[..results], &want[..results]);
        assert_eq!(util::bits(&got[results..]), util::bits(&input[results..]), "{ctx}: the rest of src");
        assert_eq!(util::bits(&w2.to_vec()), util::bits(&w1.to_vec()), "{ctx}: the temporary buffer");
    });
}

#[test]
fn level2_reductions_in_place_match_out_of_place_on_every_chip() {
    for soc in CHIPS {
        for which in 0..3 {
            for count in [1, 7, 64, 100, 128, 200, 256, 300, 1000, 4000] {
                level2_in_place_matches::<f16>(soc, which, count);
                if soc != Soc::Ascend910 {
                    level2_in_place_matches::<f32>(soc, which, count);
                }
            }
        }
    }
}

#[test]
fn level2_mask_forms_in_place_match_out_of_place() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(8192);
            let input = data::<f16>(1024, 5);
            let (x, out, w) = (u.t::<f16>(0, 1024), u.t::<f16>(4096, 16), u.t::<f16>(6144, 512));
            x.copy_from_slice(&input);
            reduce_sum_masked(&out, &x, &w, 100u64, 8, 8);
            let want = out.get_value(0);
            reduce_sum_masked(&x, &x, &w, 100u64, 8, 8);
            assert_eq!(x.get_value(0).to_bits(), want.to_bits(), "{soc}");
            x.copy_from_slice(&input);
            reduce_max_masked(&out, &x, &w, [u64::MAX, 3], 8, 8, true);
            let want = out.to_vec();
            reduce_max_masked(&x, &x, &w, [u64::MAX, 3], 8, 8, true);
            assert_bits(&x.to_vec()[..2], &want[..2]);
        });
    }
}

#[test]
fn level2_reductions_reject_dst_inside_src_elsewhere() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let u = ub(8192);
            let (x, w) = (u.t::<f16>(0, 1024), u.t::<f16>(4096, 512));
            x.copy_from_slice(&data::<f16>(1024, 9));
            expect_panic(
                || reduce_sum(&x.view(16), &x, &w, 300),
                &["ReduceSum", "overlaps src (in place, dst may only start at src's first element)"],
            );
            expect_panic(
                || reduce_max(&x.view(16), &x, &w, 300, true),
                &["ReduceMax", "dst may only start at src's first element"],
            );
        });
    }
}

// ---- 1. in-place Gather ---------------------------------------------------------------------

/// `Gather` of `count` f32 lanes with `offsets` (bytes), in place and out of place.
fn gather_both(count: usize, offsets: &[u32]) -> (Vec<f32>, Vec<f32>) {
    let u = ub(4096);
    let input: Vec<f32> = (0..256).map(|i| i as f32 + 0.5).collect();
    let (x, out, off) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<u32>(2048, 256));
    off.copy_from_slice(offsets);
    x.copy_from_slice(&input);
    gather(&out, &x, &off, 0, count as u32);
    let mut want = input.clone();
    want[..count].copy_from_slice(&out.to_vec()[..count]);
    gather(&x, &x, &off, 0, count as u32);
    (x.to_vec(), want)
}

#[test]
fn gather_in_place_accepted_where_no_lane_reads_an_earlier_repeats_write() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        on(soc, || {
            // One repeat: a reversal, every lane reads what another lane of its repeat writes.
            let rev: Vec<u32> = (0..64).map(|i| (63 - i) * 4).collect();
            let (got, want) = gather_both(64, &rev);
            assert_bits(&got, &want);
            assert_eq!(got[0], 63.5);
            // Three repeats (the count form's two full repeats and a tail of 40 lanes): each
            // lane reads an element of its own or a later repeat, or one never written.
            let fwd: Vec<u32> = (0..168).map(|i| ((i + 40) % 256) * 4).collect();
            let (got, want) = gather_both(168, &fwd);
            assert_bits(&got, &want);
            assert_eq!(got[0], 40.5);
            assert_eq!(got[167], 207.5);
        });
    }
}

#[test]
fn gather_in_place_rejected_where_a_lane_reads_an_earlier_repeats_write() {
    on(Soc::Ascend910B, || {
        // Lane 64 (repeat 1) reads element 0, which repeat 0 wrote: order-dependent.
        let offs: Vec<u32> = (0..128).map(|i| if i == 64 { 0 } else { i * 4 }).collect();
        expect_panic(
            || {
                gather_both(128, &offs);
            },
            &["Gather", "lane 64 (repeat 1) reads src element 0, which repeat 0 already wrote"],
        );
        // The mask form: the same rule, with dst repeats `dstRepStride` blocks apart.
        let u = ub(4096);
        let (x, off) = (u.t::<f32>(0, 256), u.t::<u32>(2048, 256));
        off.copy_from_slice(&(0..128).map(|i| if i == 70 { 4 } else { i * 4 }).collect::<Vec<u32>>());
        expect_panic(
            || gather_masked(&x, &x, &off, 0, 64u64, 2, 8),
            &["Gather", "lane 70 (repeat 1) reads src element 1, which repeat 0 already wrote"],
        );
        // dst overlapping the offsets is still an error.
        x.copy_from_slice(&[0.0; 256]);
        let o = u.t::<u32>(0, 64);
        expect_panic(|| gather(&x, &x, &o, 0, 64), &["Gather", "overlaps srcOffset"]);
    });
}

// ---- 3. PairReduceSum's empty pairs ---------------------------------------------------------

#[test]
fn pair_reduce_sum_on_ascend310b_zeroes_pairs_with_no_enabled_lane() {
    // Lanes 0, 1 (pair 0), 5 (pair 2) and 64..=66 (pairs 32 and 33) enabled; every other pair
    // has no enabled lane.
    let mask = [0b10_0011, 0b111];
    for soc in [Soc::Ascend310B, Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend910] {
        on(soc, || {
            let u = ub(1024);
            let (src, dst) = (u.t::<f16>(0, 128), u.t::<f16>(512, 64));
            src.copy_from_slice(&(0..128).map(|i| f16::from_f32(i as f32)).collect::<Vec<_>>());
            dst.copy_from_slice(&[f16::from_f32(7.0); 64]);
            pair_reduce_sum::<f16, true>(&dst, &src, 1, mask, 1, 1, 8);
            let empty = if soc == Soc::Ascend310B { 0.0 } else { 7.0 };
            let mut want = vec![empty; 64];
            want[0] = 1.0; // 0 + 1
            want[2] = 5.0; // lane 4 off: 0 + 5
            want[32] = 129.0; // 64 + 65
            want[33] = 66.0; // 66 + lane 67 off
            let got: Vec<f32> = dst.to_vec().iter().map(|v| v.to_f32()).collect();
            assert_eq!(got, want, "{soc}");
        });
    }
}

// ---- 3a. isSetMask = false ignores its mask argument ------------------------------------------

#[test]
fn is_set_mask_false_with_a_non_placeholder_mask_behaves_as_with_the_placeholder() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (src, d1, d2) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 64), u.t::<f32>(2048, 64));
        src.copy_from_slice(&data::<f32>(256, 3));
        // The register enables 16 lanes; the RMS-norm operator's call passes 64.
        set_vector_mask::<f32>(16u64);
        whole_reduce_sum::<f32, false>(&d1, &src, MASK_PLACEHOLDER, 4, 1, 1, 8);
        whole_reduce_sum::<f32, false>(&d2, &src, 64u64, 4, 1, 1, 8);
        assert_bits(&d2.to_vec(), &d1.to_vec());
        let first: f32 = d1.get_value(0);
        whole_reduce_sum::<f32, true>(&d2, &src, 16u64, 4, 1, 1, 8);
        assert_eq!(d2.get_value(0).to_bits(), first.to_bits(), "the register's 16 lanes were used");
        // The same for an elementwise instruction in counter mode.
        set_mask_count();
        set_vector_mask::<f32>(100u64);
        let (a, b) = (u.t::<f32>(3072, 128), u.t::<f32>(3584, 128));
        a.copy_from_slice(&[0.0; 128]);
        b.copy_from_slice(&[0.0; 128]);
        adds_masked::<f32, false>(&a, &src, 1.0, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
        adds_masked::<f32, false>(&b, &src, 1.0, [3, 0], 1, &UnaryRepeatParams::default());
        set_mask_norm();
        reset_mask();
        assert_bits(&b.to_vec(), &a.to_vec());
        assert_eq!(a.get_value(100), 0.0, "counter mode: 100 elements");
        // isSetMask = true keeps rejecting the placeholder.
        expect_panic(
            || whole_reduce_sum::<f32, true>(&d2, &src, MASK_PLACEHOLDER, 1, 1, 1, 8),
            &["WholeReduceSum", "MASK_PLACEHOLDER, valid only with isSetMask = false"],
        );
    });
}

// ---- 3b. one-repeat in place with differing repeat strides ------------------------------------

#[test]
fn one_repeat_in_place_with_differing_repeat_strides_passes() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let input = data::<f32>(256, 11);
        let (x, y, out) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<f32>(2048, 256));
        y.copy_from_slice(&data::<f32>(256, 12));
        // The per-token quantisation operator's remainder `Max`: 40 lanes, dst = src0, with
        // dstRepStride 8 and src0RepStride 16 (never applied in one repeat).
        let p = BinaryRepeatParams::new(1, 1, 1, 8, 16, 4);
        x.copy_from_slice(&input);
        out.copy_from_slice(&input);
        max_masked::<f32, true>(&out, &x, &y, 40u64, 1, &p);
        max_masked::<f32, true>(&x, &x, &y, 40u64, 1, &p);
        assert_bits(&x.to_vec(), &out.to_vec());
        // A unary one too, and Transpose's one-matrix form.
        x.copy_from_slice(&input);
        out.copy_from_slice(&input);
        let up = UnaryRepeatParams::new(1, 1, 8, 24);
        abs_masked::<f32, true>(&out, &x, 64u64, 1, &up);
        abs_masked::<f32, true>(&x, &x, 64u64, 1, &up);
        assert_bits(&x.to_vec(), &out.to_vec());
        // Two repeats with differing strides are a partial overlap.
        expect_panic(
            || max_masked::<f32, true>(&x, &x, &y, 40u64, 2, &p),
            &["Max", "partially overlap; only a complete overlap is allowed"],
        );
    });
}

// ---- 3c. TQue of depth 0 --------------------------------------------------------------------

#[test]
fn tque_of_depth_zero_allocates_and_dequeues_in_place() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut q = TQue::<VecIn, 0>::new();
        pipe.init_buffer(&mut q, 2, 256);
        let (mut a, mut b) = (
            LocalTensor::<f32>::new(TPosition::VECIN, 0, 0),
            LocalTensor::<f32>::new(TPosition::VECIN, 0, 0),
        );
        q.alloc_tensor_in_place(&mut a);
        q.alloc_tensor_in_place(&mut b);
        assert_eq!((a.get_size(), b.get_phy_addr() - a.get_phy_addr()), (64, 256));
        duplicate(&a, 3.0, 64);
        // Depth 0 keeps no FIFO: both enqueue, and each handle waits for its own buffer.
        q.enque(a.clone());
        q.enque(b.clone());
        q.deque_in_place(&b);
        q.deque_in_place(&a);
        assert_eq!(a.get_value(0), 3.0);
        q.free_tensor(a.clone());
        // Misuse keeps its messages.
        expect_panic(
            || q.deque_in_place(&a),
            &["TQue::DeQue", "is FREE: DeQue takes a tensor EnQue queued (ENQUE)"],
        );
        let (mut c, mut d) = (
            LocalTensor::<f32>::new(TPosition::VECIN, 0, 0),
            LocalTensor::<f32>::new(TPosition::VECIN, 0, 0),
        );
        q.alloc_tensor_in_place(&mut c);
        assert_eq!(c.get_phy_addr(), a.get_phy_addr());
        expect_panic(|| q.alloc_tensor_in_place(&mut d), &["TQue::AllocTensor", "no FREE buffer"]);
        q.free_tensor(c);
        q.free_tensor(b);
    });
}

// ---- 6. GetTPipePtr, AscendCUtils::SetMask, the constants -------------------------------------

#[test]
fn get_tpipe_ptr_reaches_the_live_pipe() {
    on(Soc::Ascend910B, || {
        expect_panic(|| drop(get_tpipe_ptr()), &["GetTPipePtr", "no TPipe is alive on this core"]);
        let pipe = TPipe::new();
        let mut q = TQue::<VecOut, 1>::new();
        let mut buf = TBuf::<VecCalc>::new();
        get_tpipe_ptr().init_buffer(&mut q, 1, 1000);
        get_tpipe_ptr().init_tbuf(&mut buf, 64);
        assert_eq!(pipe.used_bytes(), 1024 + 64);
        assert_eq!(buf.get::<u8>().get_phy_addr(), 1024);
        let mut p = get_tpipe_ptr();
        let id = p.alloc_event_id::<HardEvent::V_MTE3>();
        assert_eq!(pipe.fetch_event_id::<HardEvent::V_MTE3>(), id + 1);
        p.release_event_id::<HardEvent::V_MTE3>(id);
        assert_eq!(pipe.fetch_event_id::<HardEvent::V_MTE3>(), id);
        drop(pipe);
        expect_panic(
            || {
                let _ = p.fetch_event_id::<HardEvent::V_S>();
            },
            &["GetTPipePtr", "was dropped"],
        );
        // A new pipe may be created: the handle did not keep the old one alive.
        let _again = TPipe::new();
        assert_eq!(get_tpipe_ptr().used_bytes(), 0);
    });
}

#[test]
fn ascendc_utils_set_mask_loads_the_register_as_the_vendor_does() {
    on(Soc::Ascend910B, || {
        for (len, want) in [
            (1, [1, 0]),
            (64, [u64::MAX, 0]),
            (65, [u64::MAX, 1]),
            (127, [u64::MAX, u64::MAX >> 1]),
            (128, [u64::MAX, u64::MAX]),
            (300, [u64::MAX, u64::MAX]),
        ] {
            AscendCUtils::set_mask_len::<f16, true>(len);
            assert_eq!(get_vector_mask(), want, "len {len}");
        }
        AscendCUtils::set_mask_len::<f16, false>(3);
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX], "isSetMask = false");
        // A register set this way drives isSetMask = false calls.
        let u = ub(2048);
        let (x, y) = (u.t::<f16>(0, 128), u.t::<f16>(512, 128));
        x.copy_from_slice(&[f16::ONE; 128]);
        y.copy_from_slice(&[f16::ZERO; 128]);
        AscendCUtils::set_mask::<f16, true>(0, 0b101);
        adds_masked::<f16, false>(&y, &x, f16::ONE, MASK_PLACEHOLDER, 1, &UnaryRepeatParams::default());
        reset_mask();
        let v: Vec<f32> = y.to_vec().iter().map(|e| e.to_f32()).collect();
        assert_eq!(&v[..4], &[2.0, 0.0, 2.0, 0.0]);
        assert!(v[4..].iter().all(|e| *e == 0.0));
        expect_panic(|| AscendCUtils::set_mask_len::<f16, true>(-1), &["AscendCUtils::SetMask", "len = -1"]);
    });
}

#[test]
fn the_public_constants_have_the_vendors_values() {
    assert_eq!(
        (ONE_BLK_SIZE, ONE_REPEAT_BYTE_SIZE, DEFAULT_REPEAT_STRIDE, DEFAULT_BLK_STRIDE, DEFAULT_BLK_NUM),
        (32, 256, 8, 1, 8)
    );
    assert_eq!((MAX_REPEAT_TIMES, FULL_MASK_LEN, HALF_MASK_LEN, BLOCK_CUBE), (255, 128, 64, 16));
    assert_eq!(
        (ONE_REPEAT_FLOAT_SIZE, ONE_REPEAT_HALF_SIZE, ONE_BLK_FLOAT_NUM, ONE_BLK_HALF_NUM),
        (64, 128, 8, 16)
    );
    assert_eq!(MIX, 0);
    on(Soc::Ascend910B, || assert_eq!(g_core_type().value(), AIV));
    run_on_core(
        CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) },
        || assert_eq!(g_core_type().value(), AIC),
    );
}

// ---- 7. an int8_t selMask ---------------------------------------------------------------------

#[test]
fn select_takes_an_int8_sel_mask_bit_for_bit_as_uint8() {
    on(Soc::Ascend910B, || {
        let u = ub(8192);
        let (a, b) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256));
        a.copy_from_slice(&(0..256).map(|i| i as f32).collect::<Vec<_>>());
        b.copy_from_slice(&(0..256).map(|i| -(i as f32)).collect::<Vec<_>>());
        let bytes: Vec<u8> = (0..32).map(|i| (i * 37 + 5) as u8).collect();
        let (s8, su8) = (u.t::<i8>(2048, 32), u.t::<u8>(2048, 32));
        su8.copy_from_slice(&bytes);
        let (d1, d2) = (u.t::<f32>(3072, 256), u.t::<f32>(4096, 256));
        select(&d1, &su8, &a, &b, SelMode::VselTensorTensorMode, 256);
        select(&d2, &s8, &a, &b, SelMode::VselTensorTensorMode, 256);
        assert_bits(&d2.to_vec(), &d1.to_vec());
        assert_eq!(d1.get_value(2), if bytes[0] >> 2 & 1 == 1 { 2.0 } else { -2.0 });
        assert_eq!(d1.get_value(9), if bytes[1] >> 1 & 1 == 1 { 9.0 } else { -9.0 });
    });
}
