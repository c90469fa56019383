//! The per-core mask register and mask mode across calls: what count forms leave behind.

use ascend_core::prelude::*;

fn three_tensors(pipe: &mut TPipe, bufs: &mut [TBuf<VecCalc>; 3]) -> [LocalTensor<f32>; 3] {
    for b in bufs.iter_mut() {
        pipe.init_tbuf(b, 256 * 4);
    }
    [bufs[0].get::<f32>(), bufs[1].get::<f32>(), bufs[2].get::<f32>()]
}

#[test]
fn count_form_restores_normal_mode_and_full_mask() {
    let mut pipe = TPipe::new();
    let mut bufs: [TBuf<VecCalc>; 3] = Default::default();
    let [d, a, b] = three_tensors(&mut pipe, &mut bufs);
    a.copy_from_slice(&[5.0; 256]);
    b.copy_from_slice(&[2.0; 256]);

    set_mask_count();
    set_vector_mask::<f32>(100u64);
    assert_eq!(get_mask_mode(), MaskMode::Counter);
    sub(&d, &a, &b, 64);
    assert_eq!(get_mask_mode(), MaskMode::Normal);
    assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX]);

    // A register-mask call after the count form sees all 64 lanes, not the 16 set before.
    set_vector_mask::<f32>(16u64);
    duplicate(&d, 0.0, 256);
    sub_masked::<f32, false>(&d, &a, &b, MASK_PLACEHOLDER, 1, &BinaryRepeatParams::default());
    let out = d.to_vec();
    assert!(out[..64].iter().all(|&x| x == 3.0), "all 64 lanes computed: {:?}", &out[..64]);
    assert!(out[64..].iter().all(|&x| x == 0.0));
}

#[test]
fn is_set_mask_true_loads_the_register() {
    let mut pipe = TPipe::new();
    let mut bufs: [TBuf<VecCalc>; 3] = Default::default();
    let [d, a, b] = three_tensors(&mut pipe, &mut bufs);
    a.copy_from_slice(&[5.0; 256]);
    b.copy_from_slice(&[2.0; 256]);
    d.copy_from_slice(&[0.0; 256]);
    set_vector_mask::<f32>(16u64);
    assert_eq!(get_vector_mask(), [0xFFFF, 0]);
    // A call with its own mask loads it into the register (AscendC's SetMask<T, true>) ...
    sub_masked::<f32, true>(&d, &a, &b, 40u64, 1, &BinaryRepeatParams::default());
    assert_eq!(get_vector_mask(), [(1 << 40) - 1, 0]);
    // ... so a later IS_SET_MASK = false call uses those 40 lanes, not the 16 set before.
    duplicate_masked::<f32, false>(&d, 1.0, MASK_PLACEHOLDER, 1, 1, 8);
    let out = d.to_vec();
    assert!(out[..40].iter().all(|&x| x == 1.0), "{:?}", &out[..40]);
    assert!(out[40..].iter().all(|&x| x == 0.0));

    // In counter mode the call's count is loaded as the register's low word.
    set_mask_count();
    sub_masked::<f32, true>(&d, &a, &b, 100u64, 1, &BinaryRepeatParams::default());
    assert_eq!(get_vector_mask(), [100, 0]);
    set_mask_norm();
}
