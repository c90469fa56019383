//! `Sub` and `Add`: the seed 003 worked example bit for bit in every form, `f16` overflow
//! modes, in-place calls, and every check with its message.

use ascend_core::prelude::*;

use crate::common::util;
use util::{h, tensor, tensors};

/// The seed example: `src0 = [1..=512]`, `src1 = [513..=1024]` in f16, `dst` zeroed.
fn seed_operands(pipe: &mut TPipe) -> [LocalTensor<f16>; 3] {
    let [a, b, d] = [0; 3].map(|_| tensor::<f16>(pipe, 512));
    a.copy_from_slice(&(1..=512).map(|v| h(v as f32)).collect::<Vec<_>>());
    b.copy_from_slice(&(513..=1024).map(|v| h(v as f32)).collect::<Vec<_>>());
    d.copy_from_slice(&[f16::ZERO; 512]);
    [a, b, d]
}

fn assert_all_minus_512(d: &LocalTensor<f16>) {
    let want = h(-512.0).to_bits();
    for (i, v) in d.to_vec().into_iter().enumerate() {
        assert_eq!(v.to_bits(), want, "element {i} = {v}");
    }
}

#[test]
fn seed_continuous_mask() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    sub_masked::<f16, true>(&d, &a, &b, 128, 4, &[1, 1, 1, 8, 8, 8].into());
    assert_all_minus_512(&d);
}

#[test]
fn seed_bit_mask() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    sub_masked::<f16, true>(&d, &a, &b, [u64::MAX, u64::MAX], 4, &BinaryRepeatParams::new(1, 1, 1, 8, 8, 8));
    assert_all_minus_512(&d);
}

#[test]
fn seed_count_form() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    sub(&d, &a, &b, 512);
    assert_all_minus_512(&d);
}

#[test]
fn seed_whole_tensor_form() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    d.assign(&a - &b);
    assert_all_minus_512(&d);
}

#[test]
fn seed_register_mask() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    set_vector_mask::<f16>(128u64);
    sub_masked::<f16, false>(&d, &a, &b, MASK_PLACEHOLDER, 4, &BinaryRepeatParams::default());
    assert_all_minus_512(&d);
}

#[test]
fn seed_in_counter_mode() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    set_mask_count();
    sub_masked::<f16, true>(&d, &a, &b, 512, 1, &BinaryRepeatParams::default());
    set_mask_norm();
    assert_all_minus_512(&d);
}

#[test]
fn add_inverts_the_seed() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    d.assign(&a - &b);
    d.assign(&d + &b); // in place: dst is src0
    assert_eq!(d.to_vec(), a.to_vec());
    add_masked::<f16, true>(&d, &b, &d, 64, 4, &BinaryRepeatParams::default()); // dst is src1
    for i in 0..512 {
        let want = if i % 128 < 64 { (i + 1) + (i + 513) } else { i + 1 };
        assert_eq!(d.get_value(i), h(want as f32), "element {i}");
    }
}

#[test]
fn disabled_lanes_keep_dst() {
    let mut pipe = TPipe::new();
    let [a, b, d] = seed_operands(&mut pipe);
    d.copy_from_slice(&[h(7.0); 512]);
    sub_masked::<f16, true>(&d, &a, &b, [0b101, 1 << 63], 2, &[1, 1, 1, 16, 8, 8].into());
    let v = d.to_vec();
    let set: Vec<usize> = (0..512).filter(|&i| v[i] != h(7.0)).collect();
    // Repeat 0 lanes 0, 2, 127; repeat 1 (dst 256 elements on) lanes of src 128, 130, 255.
    assert_eq!(set, vec![0, 2, 127, 256, 258, 383]);
    assert_eq!(v[256], h(-512.0));
}

#[test]
fn integer_lanes_wrap() {
    let mut pipe = TPipe::new();
    let (a, b, d) =
        (tensor::<i16>(&mut pipe, 128), tensor::<i16>(&mut pipe, 128), tensor::<i16>(&mut pipe, 128));
    a.copy_from_slice(&[i16::MIN; 128]);
    b.copy_from_slice(&[1; 128]);
    sub(&d, &a, &b, 128);
    assert_eq!(d.get_value(0), i16::MAX);
    add(&d, &d, &b, 128);
    assert_eq!(d.get_value(127), i16::MIN);
}

#[test]
fn a_source_may_be_both_operands() {
    let mut pipe = TPipe::new();
    let (a, d) = (tensor::<f32>(&mut pipe, 64), tensor::<f32>(&mut pipe, 64));
    a.copy_from_slice(&[1.25; 64]);
    add(&d, &a, &a, 64);
    assert_eq!(d.get_value(5), 2.5);
    sub(&a, &a, &a, 64);
    assert_eq!(a.get_value(63), 0.0);
}

// ---- f16 overflow modes ----

fn f16_sum(a: f32, b: f32, sub_not_add: bool) -> f16 {
    let mut pipe = TPipe::new();
    let (x, y, d) =
        (tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16), tensor::<f16>(&mut pipe, 16));
    x.copy_from_slice(&[h(a); 16]);
    y.copy_from_slice(&[h(b); 16]);
    if sub_not_add {
        sub(&d, &x, &y, 16);
    } else {
        add(&d, &x, &y, 16);
    }
    d.get_value(0)
}

#[test]
fn saturation_is_the_default_on_ascend910() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        assert_eq!(f16_sum(60000.0, 60000.0, false).to_bits(), h(65504.0).to_bits());
        assert_eq!(f16_sum(-60000.0, 60000.0, true).to_bits(), h(-65504.0).to_bits());
        // ±inf results saturate too; a NaN result becomes 0 ("inf → ±MAX, NaN → 0").
        assert_eq!(f16_sum(f32::INFINITY, 1.0, false).to_bits(), h(65504.0).to_bits());
        assert_eq!(f16_sum(f32::NEG_INFINITY, 1.0, true).to_bits(), h(-65504.0).to_bits());
        assert_eq!(f16_sum(f32::INFINITY, f32::INFINITY, true).to_bits(), 0);
        assert_eq!(f16_sum(f32::NAN, 1.0, false).to_bits(), 0);
        // Just above 65504 rounds to 65504 either way; 65519 is the last value that does.
        assert_eq!(f16_sum(65504.0, 8.0, false).to_bits(), h(65504.0).to_bits());
    });
}

#[test]
fn inf_nan_is_the_default_on_ascend910b() {
    run_on_core(CoreConfig::single(Soc::Ascend910B), || {
        assert_eq!(f16_sum(60000.0, 60000.0, false).to_bits(), f16::INFINITY.to_bits());
        assert_eq!(f16_sum(-60000.0, 60000.0, true).to_bits(), f16::NEG_INFINITY.to_bits());
        set_overflow_mode(OverflowMode::Saturation);
        assert_eq!(f16_sum(60000.0, 60000.0, false).to_bits(), h(65504.0).to_bits());
        assert_eq!(f16_sum(-60000.0, 60000.0, true).to_bits(), h(-65504.0).to_bits());
        set_overflow_mode(OverflowMode::InfNan);
        assert_eq!(f16_sum(60000.0, 60000.0, false).to_bits(), f16::INFINITY.to_bits());
    });
}

#[test]
fn saturation_applies_to_the_masked_form_and_not_to_f32() {
    run_on_core(CoreConfig::single(Soc::Ascend310P), || {
        let (mut pipe, [x]) = tensors::<f16, 1>(128);
        x.copy_from_slice(&[h(40000.0); 128]);
        add_masked::<f16, true>(&x, &x, &x, 128, 1, &BinaryRepeatParams::default());
        assert!(x.to_vec().iter().all(|v| v.to_bits() == h(65504.0).to_bits()));
        let f = tensor::<f32>(&mut pipe, 64);
        f.copy_from_slice(&[f32::MAX; 64]);
        add(&f, &f, &f, 64);
        assert_eq!(f.get_value(0), f32::INFINITY);
    });
}

// ---- chips ----

#[test]
fn i16_on_every_chip_but_ascend910() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        run_on_core(CoreConfig::single(soc), || {
            let (_pipe, [x]) = tensors::<i16, 1>(16);
            x.copy_from_slice(&[3; 16]);
            sub(&x, &x, &x, 16);
            assert_eq!(x.get_value(0), 0);
        });
    }
}

#[test]
#[should_panic(expected = "Sub: T = int16_t is not supported by Sub on Ascend910 (Atlas training series)")]
fn i16_sub_on_ascend910_fails_naming_the_chip() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        let (_pipe, [x]) = tensors::<i16, 1>(16);
        sub(&x, &x, &x, 16);
    });
}

#[test]
#[should_panic(expected = "Add: T = int16_t is not supported by Add on Ascend910 (Atlas training series)")]
fn i16_add_masked_on_ascend910_fails_naming_the_chip() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        let (_pipe, [x]) = tensors::<i16, 1>(128);
        add_masked::<i16, true>(&x, &x, &x, 128, 1, &BinaryRepeatParams::default());
    });
}

// ---- checks ----

#[test]
#[should_panic(expected = "Sub: mask = 129 is out of range [1, 128] for half in normal mode")]
fn mask_129_on_f16() {
    let (_pipe, [a, b, d]) = tensors::<f16, 3>(256);
    sub_masked::<f16, true>(&d, &a, &b, 129, 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(expected = "Add: mask = 65 is out of range [1, 64] for float in normal mode")]
fn mask_65_on_f32() {
    let (_pipe, [a, b, d]) = tensors::<f32, 3>(128);
    add_masked::<f32, true>(&d, &a, &b, 65, 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(expected = "Sub: mask[1] = 0x8000000000000000 must be 0 for the 32-bit type float")]
fn mask_high_word_on_f32() {
    let (_pipe, [a, b, d]) = tensors::<f32, 3>(128);
    sub_masked::<f32, true>(&d, &a, &b, [1, 1 << 63], 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(expected = "Sub: mask = Count(0) is MASK_PLACEHOLDER, valid only with isSetMask = false")]
fn mask_zero_with_set_mask() {
    let (_pipe, [a, b, d]) = tensors::<f16, 3>(128);
    sub_masked::<f16, true>(&d, &a, &b, 0, 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(expected = "Add: mask = Bits([0, 0]) is MASK_PLACEHOLDER, valid only with isSetMask = false")]
fn bit_mask_zero_with_set_mask() {
    let (_pipe, [a, b, d]) = tensors::<i32, 3>(64);
    add_masked::<i32, true>(&d, &a, &b, [0, 0], 1, &BinaryRepeatParams::default());
}

#[test]
fn non_placeholder_without_set_mask_is_ignored() {
    // The chip ignores the mask argument of an isSetMask = false call; so does the emulator:
    // the register's two lanes are written, not the argument's one.
    let (_pipe, [a, b, d]) = tensors::<f16, 3>(128);
    a.copy_from_slice(&[f16::from_f32(5.0); 128]);
    b.copy_from_slice(&[f16::from_f32(2.0); 128]);
    set_vector_mask::<f16>([0b11, 0]);
    sub_masked::<f16, false>(&d, &a, &b, [1, 0], 1, &BinaryRepeatParams::default());
    reset_mask();
    let v = d.to_vec();
    assert_eq!(v[..2], [f16::from_f32(3.0); 2]);
    assert!(v[2..].iter().all(|e| *e == f16::ZERO));
}

#[test]
#[should_panic(
    expected = "Sub: src1 would touch element 559 but the tensor has 512 elements (repeats = 4, blkStride = 1, repStride = 9)"
)]
fn source_element_outside_its_tensor() {
    let (_pipe, [a, b, d]) = tensors::<f16, 3>(512);
    sub_masked::<f16, true>(&d, &a, &b, 128, 4, &[1, 1, 1, 8, 8, 9].into());
}

#[test]
#[should_panic(
    expected = "Add: dst would touch element 183 but the tensor has 128 elements (repeats = 2, blkStride = 2"
)]
fn dst_element_outside_its_tensor() {
    let (_pipe, [a, b, d]) = tensors::<f32, 3>(128);
    add_masked::<f32, true>(&d, &a, &b, 64, 2, &[2, 1, 1, 8, 8, 8].into());
}

#[test]
#[should_panic(expected = "Sub: calCount = 513 exceeds src0's 512 elements")]
fn count_beyond_a_source() {
    let (mut pipe, [a, b, _]) = tensors::<f16, 3>(512);
    let d = tensor::<f16>(&mut pipe, 1024);
    sub(&d, &a, &b, 513);
}

#[test]
#[should_panic(expected = "Sub: calCount = 1024 exceeds src0's 512 elements")]
fn whole_tensor_form_uses_the_dst_length() {
    let (mut pipe, [a, b, _]) = tensors::<f16, 3>(512);
    let d = tensor::<f16>(&mut pipe, 1024);
    d.assign(&a - &b);
}

#[test]
#[should_panic(
    expected = "Add: src0 is at position A1: vector instructions take VECIN, VECOUT or VECCALC tensors"
)]
fn source_outside_the_vector_positions() {
    let (_pipe, [_, b, d]) = tensors::<f16, 3>(128);
    let l1 = LocalTensor::<f16>::new(TPosition::A1, 0, 128);
    add_masked::<f16, true>(&d, &l1, &b, 128, 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(
    expected = "Sub: dst is at position A1: vector instructions take VECIN, VECOUT or VECCALC tensors"
)]
fn dst_outside_the_vector_positions() {
    let (_pipe, [a, b, _]) = tensors::<f16, 3>(128);
    let l1 = LocalTensor::<f16>::new(TPosition::A1, 0, 128);
    sub(&l1, &a, &b, 128);
}

#[test]
#[should_panic(expected = "Sub: src1 address = 0x")]
fn misaligned_source() {
    let (_pipe, [a, b, d]) = tensors::<f16, 3>(256);
    sub_masked::<f16, true>(&d, &a, &b.view(1), 128, 1, &BinaryRepeatParams::default());
}

#[test]
fn misaligned_message_names_the_address() {
    let r = std::panic::catch_unwind(|| {
        let (_pipe, [a, b, d]) = tensors::<f32, 3>(64);
        add(&d.view(1), &a, &b, 32);
    });
    assert!(r.is_err());
    let f = ascend_core::take_last_fault().expect("a fault");
    assert_eq!(f.api, "Add");
    assert!(
        f.message.starts_with("dst address = 0x") && f.message.ends_with("is not 32-byte aligned"),
        "{}",
        f.message
    );
    assert!(f.file.ends_with("vector_binary.rs"), "{}", f.file);
}

#[test]
#[should_panic(expected = "partially overlap; only a complete overlap is allowed")]
fn partial_overlap_masked() {
    let (_pipe, [a, b, _]) = tensors::<f16, 3>(256);
    sub_masked::<f16, true>(&a.view(16), &a, &b, 128, 1, &BinaryRepeatParams::default());
}

#[test]
#[should_panic(expected = "partially overlap over 128 elements; only a complete overlap is allowed")]
fn partial_overlap_count() {
    let (_pipe, [a, b, _]) = tensors::<f16, 3>(256);
    add(&a.view(16), &b, &a, 128);
}

#[test]
#[should_panic(expected = "Sub: dst (address 0x0) and src0 (address 0x0) partially overlap")]
fn same_tensor_with_other_strides_is_a_partial_overlap() {
    let (_pipe, [a, b, _]) = tensors::<f16, 3>(512);
    sub_masked::<f16, true>(&a, &a, &b, 128, 2, &[1, 2, 1, 8, 8, 8].into());
}

#[test]
fn disjoint_footprints_in_one_tensor_are_not_an_overlap() {
    // dst uses the odd blocks and src0 the even blocks of the same tensor.
    let (_pipe, [a, b, _]) = tensors::<f16, 3>(256);
    a.copy_from_slice(&[h(5.0); 256]);
    b.copy_from_slice(&[h(1.0); 256]);
    sub_masked::<f16, true>(&a.view(16), &a, &b, 128, 1, &[2, 2, 1, 8, 8, 8].into());
    let v = a.to_vec();
    for (i, &x) in v.iter().enumerate() {
        let want = if (i / 16) % 2 == 1 { 4.0 } else { 5.0 };
        assert_eq!(x, h(want), "element {i}");
    }
}
