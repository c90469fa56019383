//! `Duplicate`: the seed 001 worked examples bit for bit, and every check with its message.

use ascend_core::prelude::*;

use crate::common::util;
use util::{h, tensor, tensors};

const SENTINEL: f16 = f16::from_bits(0x7bff); // 65504, never written by the examples

/// Fills 256 f16 with the sentinel, runs `f`, and returns which elements became 18.0;
/// every element must be either 18.0 or the untouched sentinel.
fn written(f: impl FnOnce(&LocalTensor<f16>)) -> Vec<bool> {
    let (_pipe, [t]) = tensors::<f16, 1>(256);
    t.copy_from_slice(&[SENTINEL; 256]);
    f(&t);
    t.to_vec()
        .into_iter()
        .map(|v| {
            assert!(v.to_bits() == h(18.0).to_bits() || v.to_bits() == SENTINEL.to_bits(), "{v}");
            v.to_bits() == h(18.0).to_bits()
        })
        .collect()
}

fn expect(ranges: &[(usize, usize)]) -> Vec<bool> {
    (0..256).map(|i| ranges.iter().any(|&(a, b)| (a..b).contains(&i))).collect()
}

#[test]
fn seed_continuous_mask_128_repeat_2() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), 128, 2, 1, 8));
    assert_eq!(w, expect(&[(0, 256)]));
}

#[test]
fn seed_bit_mask_full_repeat_2() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), [u64::MAX, u64::MAX], 2, 1, 8));
    assert_eq!(w, expect(&[(0, 256)]));
}

#[test]
fn seed_count_form_256() {
    let w = written(|t| duplicate(t, h(18.0), 256));
    assert_eq!(w, expect(&[(0, 256)]));
}

#[test]
fn seed_mask_64_repeat_2_rep_stride_12() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), 64, 2, 1, 12));
    assert_eq!(w, expect(&[(0, 64), (192, 256)]));
}

#[test]
fn seed_mask_64_repeat_2_rep_stride_8() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), 64, 2, 1, 8));
    assert_eq!(w, expect(&[(0, 64), (128, 192)]));
}

#[test]
fn seed_bit_mask_low_word_repeat_2() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), [u64::MAX, 0], 2, 1, 8));
    assert_eq!(w, expect(&[(0, 64), (128, 192)]));
}

#[test]
fn seed_block_stride_2_one_repeat() {
    let w = written(|t| duplicate_masked::<f16, true>(t, h(18.0), 128, 1, 2, 0));
    let runs: Vec<(usize, usize)> = (0..8).map(|k| (32 * k, 32 * k + 16)).collect();
    assert_eq!(w, expect(&runs));
}

#[test]
fn register_mask_and_counter_mode() {
    // IS_SET_MASK = false takes the register; counter mode makes the mask a total count.
    let w = written(|t| {
        set_vector_mask::<f16>([0b1011, 0]);
        duplicate_masked::<f16, false>(t, h(18.0), MASK_PLACEHOLDER, 1, 1, 8);
        reset_mask();
    });
    assert_eq!(w, expect(&[(0, 2), (3, 4)]));
    let w = written(|t| {
        set_mask_count();
        duplicate_masked::<f16, true>(t, h(18.0), 200, 1, 1, 8);
        set_mask_norm();
    });
    assert_eq!(w, expect(&[(0, 200)]));
}

#[test]
fn zero_repeats_and_zero_count_do_nothing() {
    assert_eq!(written(|t| duplicate_masked::<f16, true>(t, h(18.0), 128, 0, 1, 8)), expect(&[]));
    assert_eq!(written(|t| duplicate(t, h(18.0), 0)), expect(&[]));
}

#[test]
fn bf16_on_ascend910b() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        let (_pipe, [t]) = tensors::<bf16, 1>(32);
        duplicate(&t, bf16::from_f32(-2.5), 32);
        assert!(t.to_vec().iter().all(|v| v.to_bits() == bf16::from_f32(-2.5).to_bits()));
    });
}

#[test]
fn every_32_bit_type_fills_by_bits() {
    let (_pipe, [t]) = tensors::<u32, 1>(64);
    duplicate(&t, 0xdead_beef_u32, 64);
    assert!(t.to_vec().iter().all(|&v| v == 0xdead_beef));
    let f = t.reinterpret_cast::<f32>();
    duplicate_masked::<f32, true>(&f, -0.0, [1 << 63, 0], 1, 1, 8);
    assert_eq!(t.get_value(63), 0x8000_0000);
    assert_eq!(t.get_value(62), 0xdead_beef);
}

// ---- checks ----

#[test]
#[should_panic(expected = "Duplicate: T = bfloat16_t is not supported by Duplicate on Ascend310P")]
fn bf16_on_ascend310p_fails_naming_the_chip() {
    run_on_core(CoreConfig::single(Soc::Ascend310P), || {
        let (_pipe, [t]) = tensors::<bf16, 1>(32);
        duplicate(&t, bf16::ONE, 32);
    });
}

#[test]
#[should_panic(expected = "Duplicate: T = bfloat16_t is not supported by Duplicate on Ascend910 ")]
fn bf16_masked_on_ascend910_fails_naming_the_chip() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        let (_pipe, [t]) = tensors::<bf16, 1>(128);
        duplicate_masked::<bf16, true>(&t, bf16::ONE, 128, 1, 1, 8);
    });
}

#[test]
#[should_panic(expected = "Duplicate: mask = 129 is out of range [1, 128] for half in normal mode")]
fn mask_129_on_f16() {
    let (_pipe, [t]) = tensors::<f16, 1>(256);
    duplicate_masked::<f16, true>(&t, f16::ONE, 129, 1, 1, 8);
}

#[test]
#[should_panic(expected = "Duplicate: mask = 65 is out of range [1, 64] for float in normal mode")]
fn mask_65_on_f32() {
    let (_pipe, [t]) = tensors::<f32, 1>(128);
    duplicate_masked::<f32, true>(&t, 1.0, 65, 1, 1, 8);
}

#[test]
#[should_panic(expected = "Duplicate: mask[1] = 0x1 must be 0 for the 32-bit type float")]
fn mask_high_word_on_f32() {
    let (_pipe, [t]) = tensors::<f32, 1>(128);
    duplicate_masked::<f32, true>(&t, 1.0, [u64::MAX, 1], 1, 1, 8);
}

#[test]
#[should_panic(
    expected = "Duplicate: mask = Count(0) is MASK_PLACEHOLDER, valid only with isSetMask = false"
)]
fn mask_zero_with_set_mask() {
    let (_pipe, [t]) = tensors::<f16, 1>(128);
    duplicate_masked::<f16, true>(&t, f16::ONE, 0, 1, 1, 8);
}

#[test]
#[should_panic(
    expected = "Duplicate: mask = Bits([0, 0]) is MASK_PLACEHOLDER, valid only with isSetMask = false"
)]
fn bit_mask_zero_with_set_mask() {
    let (_pipe, [t]) = tensors::<f16, 1>(128);
    duplicate_masked::<f16, true>(&t, f16::ONE, [0, 0], 1, 1, 8);
}

#[test]
fn non_placeholder_without_set_mask_is_ignored() {
    // The chip ignores the mask argument of an isSetMask = false call; so does the emulator.
    let (_pipe, [t]) = tensors::<f16, 1>(128);
    set_vector_mask::<f16>(3u64);
    duplicate_masked::<f16, false>(&t, f16::ONE, 128, 1, 1, 8);
    reset_mask();
    let v = t.to_vec();
    assert!(v[..3].iter().all(|e| *e == f16::ONE) && v[3..].iter().all(|e| *e == f16::ZERO));
}

#[test]
#[should_panic(expected = "Duplicate: dst would touch element 255 but the tensor has 255 elements")]
fn touched_element_outside_the_tensor() {
    let mut pipe = TPipe::new();
    let t = tensor::<f16>(&mut pipe, 256).view_len(0, 255);
    duplicate_masked::<f16, true>(&t, f16::ONE, 128, 2, 1, 8);
}

#[test]
#[should_panic(
    expected = "Duplicate: dst would touch element 143 but the tensor has 136 elements (repeats = 2, blkStride = 0, repStride = 8)"
)]
fn block_stride_zero_bounds_cover_the_highest_element_not_the_highest_lane() {
    // Lanes 15 and 16 with a block stride of 0: in repeat 1 lane 16 is element 128 but lane
    // 15 is element 143.
    let mut pipe = TPipe::new();
    let t = tensor::<f16>(&mut pipe, 256).view_len(0, 136);
    duplicate_masked::<f16, true>(&t, f16::ONE, [1 << 15 | 1 << 16, 0], 2, 0, 8);
}

#[test]
#[should_panic(expected = "Duplicate: calCount = 300 exceeds dst's 256 elements")]
fn count_beyond_the_tensor() {
    let (_pipe, [t]) = tensors::<f16, 1>(256);
    duplicate(&t, f16::ONE, 300);
}

#[test]
#[should_panic(
    expected = "Duplicate: dst is at position A1: vector instructions take VECIN, VECOUT or VECCALC tensors"
)]
fn tensor_outside_the_vector_positions() {
    let b = LocalTensor::<f16>::new(TPosition::A1, 0, 256);
    duplicate(&b, f16::ONE, 128);
}

#[test]
#[should_panic(expected = "Duplicate: dst address = 0x2 is not 32-byte aligned")]
fn misaligned_tensor() {
    let (_pipe, [t]) = tensors::<f16, 1>(256);
    duplicate_masked::<f16, true>(&t.view(1), f16::ONE, 128, 1, 1, 8);
}

#[test]
fn failure_location_is_the_call_site() {
    let r = std::panic::catch_unwind(|| {
        let (_pipe, [t]) = tensors::<f16, 1>(128);
        duplicate(&t, f16::ONE, 129);
    });
    assert!(r.is_err());
    let fault = ascend_core::take_last_fault().expect("a recorded fault");
    assert_eq!(fault.api, "Duplicate");
    assert!(fault.file.ends_with("vector_duplicate.rs"), "{}", fault.file);
}
