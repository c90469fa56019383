//! `Select` with every `selMask` type (`uint8_t`, `int8_t`, `uint16_t`, `uint32_t`,
//! `uint64_t`) in every mode and form, bit for bit against a scalar reference that reads the
//! mask **by element**: bit `k` is bit `k % W` of element `k / W` of the `W`-bit mask type
//! (which on the little-endian chip is bit `k % 8` of byte `k / 8`). Mode 0 uses bits
//! `0..PAR` for every repeat; modes 1 and 2 consume `PAR` bits per repeat.

use ascend_core::prelude::*;

use crate::common::util::{assert_bits_ctx, conv, expect_panic, on, ub, Rng};

const P: BinaryRepeatParams = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);

/// Bit `k` of the mask, read by element of its type.
fn bit<U: SelMaskElement>(sel: &[U], k: usize) -> bool {
    let w = U::SIZE * 8;
    (sel[k / w].to_bits_u64() >> (k % w)) & 1 == 1
}

/// The reference of one call: `lanes` lists the enabled global lanes `(repeat, lane)`.
#[allow(clippy::too_many_arguments)]
fn reference<T: SelectElement, U: SelMaskElement>(
    old: &[T],
    s0: &[T],
    s1: Option<&[T]>,
    scalar: T,
    sel: &[U],
    mode: SelMode,
    lanes: &[(usize, usize)],
) -> Vec<T> {
    let mut out = old.to_vec();
    for &(r, j) in lanes {
        let i = r * T::PAR + j;
        let k = if mode == SelMode::VselCmpmaskSpr { j } else { i };
        let other = s1.map_or(scalar, |s| s[i]);
        out[i] = if bit(sel, k) { s0[i] } else { other };
    }
    out
}

/// Runs every form of every mode the chip has, for `T` and mask type `U`, with random data.
fn every_form<T: SelectElement, U: SelMaskElement>(soc: Soc, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let u = ub(8192);
        let n = 4 * T::PAR; // 4 repeats
        let (dst, a, b) = (u.t::<T>(0, n), u.t::<T>(1024, n), u.t::<T>(2048, n));
        let sel = u.t::<U>(3072, 512 / U::SIZE);
        let rand_t = |rng: &mut Rng| -> Vec<T> {
            conv::<T>(&(0..n).map(|_| rng.range(0, 2000) as f32 - 1000.0).collect::<Vec<_>>())
        };
        let (s0, s1, old) = (rand_t(&mut rng), rand_t(&mut rng), rand_t(&mut rng));
        let sel_v: Vec<U> = bytemuck::cast_slice::<u8, U>(&rng.bytes(512)).to_vec();
        a.copy_from_slice(&s0);
        b.copy_from_slice(&s1);
        sel.copy_from_slice(&sel_v);
        let scalar = conv::<T>(&[0.25])[0];
        let modes: &[SelMode] = if soc == Soc::Ascend910 {
            &[SelMode::VselCmpmaskSpr]
        } else {
            &[SelMode::VselCmpmaskSpr, SelMode::VselTensorScalarMode, SelMode::VselTensorTensorMode]
        };
        let ctx = |form: &str, mode: SelMode| format!("{soc} T={} U={} {form} {mode}", T::DTYPE, U::DTYPE);
        for &mode in modes {
            let tensor_src1 = mode != SelMode::VselTensorScalarMode;
            let s1_ref = tensor_src1.then_some(&s1[..]);

            // Count form over 3 repeats and a part (mode 0 in counter mode reuses bits 0..PAR).
            let count = 3 * T::PAR + 5;
            dst.copy_from_slice(&old);
            if tensor_src1 {
                select(&dst, &sel, &a, &b, mode, count);
            } else {
                select_scalar(&dst, &sel, &a, scalar, mode, count);
            }
            let lanes: Vec<_> = (0..count).map(|i| (i / T::PAR, i % T::PAR)).collect();
            let want = reference(&old, &s0, s1_ref, scalar, &sel_v, mode, &lanes);
            assert_bits_ctx(&dst.to_vec(), &want, ctx("count", mode));

            // Masked form, continuous mask, 4 repeats.
            let m = T::PAR - 3;
            dst.copy_from_slice(&old);
            if tensor_src1 {
                select_masked::<T, U, true>(&dst, &sel, &a, &b, mode, m as u64, 4, &P);
            } else {
                select_scalar_masked::<T, U, true>(&dst, &sel, &a, scalar, mode, m as u64, 4, &P);
            }
            let lanes: Vec<_> = (0..4).flat_map(|r| (0..m).map(move |j| (r, j))).collect();
            let want = reference(&old, &s0, s1_ref, scalar, &sel_v, mode, &lanes);
            assert_bits_ctx(&dst.to_vec(), &want, ctx("masked continuous", mode));

            // Masked form, bit mask, 3 repeats.
            let bits = [rng.next(), if T::PAR == 128 { rng.next() } else { 0 }];
            dst.copy_from_slice(&old);
            if tensor_src1 {
                select_masked::<T, U, true>(&dst, &sel, &a, &b, mode, bits, 3, &P);
            } else {
                select_scalar_masked::<T, U, true>(&dst, &sel, &a, scalar, mode, bits, 3, &P);
            }
            let on_bit = |j: usize| (bits[j / 64] >> (j % 64)) & 1 == 1;
            let lanes: Vec<_> =
                (0..3).flat_map(|r| (0..T::PAR).filter(|&j| on_bit(j)).map(move |j| (r, j))).collect();
            let want = reference(&old, &s0, s1_ref, scalar, &sel_v, mode, &lanes);
            assert_bits_ctx(&dst.to_vec(), &want, ctx("masked bits", mode));

            // Register form of mode 1 takes the mask type too (the scalar is the one the
            // previous mode-1 call left in the compare-mask register).
            if mode == SelMode::VselTensorScalarMode {
                dst.copy_from_slice(&old);
                set_vector_mask::<T>(T::PAR as u64);
                select_scalar_reg::<T, U>(&dst, &sel, &a, 2, &P);
                let lanes: Vec<_> = (0..2).flat_map(|r| (0..T::PAR).map(move |j| (r, j))).collect();
                let want = reference(&old, &s0, None, scalar, &sel_v, mode, &lanes);
                assert_bits_ctx(&dst.to_vec(), &want, ctx("register", mode));
            }
        }
    });
}

macro_rules! per_mask_type {
    ($($u:ident),*) => {$(paste::paste! {
        #[test]
        fn [<every_mode_and_form_f32_ $u>]() {
            for (i, soc) in Soc::ALL.into_iter().enumerate() {
                every_form::<f32, $u>(soc, 0x5E1E_C700 + i as u64);
            }
        }

        #[test]
        fn [<every_mode_and_form_f16_ $u>]() {
            for (i, soc) in Soc::ALL.into_iter().enumerate() {
                every_form::<f16, $u>(soc, 0x5E1E_C780 + i as u64);
            }
        }
    })*};
}
per_mask_type!(u8, i8, u16, u32, u64);

#[test]
fn wider_mask_types_are_read_by_element_little_endian() {
    // One u16 element 0x0102 selects lanes 1 and 8; one u64 element 1 << 40 selects lane 40;
    // one i8 element -128 (0x80) selects lane 7.
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (dst, a, b) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
        a.copy_from_slice(&[1.0; 64]);
        b.copy_from_slice(&[0.0; 64]);
        let chosen =
            |dst: &LocalTensor<f32>| -> Vec<usize> { (0..64).filter(|&i| dst.get_value(i) == 1.0).collect() };

        let s16 = u.t::<u16>(1024, 16);
        s16.copy_from_slice(&[0; 16]);
        s16.set_value(0, 0x0102);
        select(&dst, &s16, &a, &b, SelMode::VselTensorTensorMode, 64);
        assert_eq!(chosen(&dst), [1, 8]);

        let s64 = u.t::<u64>(1536, 4);
        s64.copy_from_slice(&[0; 4]);
        s64.set_value(0, 1 << 40);
        select(&dst, &s64, &a, &b, SelMode::VselTensorTensorMode, 64);
        assert_eq!(chosen(&dst), [40]);

        let s8 = u.t::<i8>(2048, 32);
        s8.copy_from_slice(&[0; 32]);
        s8.set_value(0, -128);
        s8.set_value(2, -1);
        select(&dst, &s8, &a, &b, SelMode::VselTensorTensorMode, 64);
        assert_eq!(chosen(&dst), [7, 16, 17, 18, 19, 20, 21, 22, 23]);
    });
}

#[test]
fn an_int8_mask_in_modes_1_and_2_fails_on_ascend910() {
    on(Soc::Ascend910, || {
        let u = ub(4096);
        let (dst, a, b) = (u.t::<f32>(0, 64), u.t::<f32>(256, 64), u.t::<f32>(512, 64));
        let s8 = u.t::<i8>(1024, 32);
        expect_panic(
            || select(&dst, &s8, &a, &b, SelMode::VselTensorTensorMode, 64),
            &["Select", "selMode = VSEL_TENSOR_TENSOR_MODE (2) is not supported on Ascend910"],
        );
        expect_panic(
            || select_scalar(&dst, &s8, &a, 1.0, SelMode::VselTensorScalarMode, 64),
            &["Select", "selMode = VSEL_TENSOR_SCALAR_MODE (1) is not supported on Ascend910"],
        );
    });
}

#[test]
fn a_mask_too_short_for_the_call_names_its_bits() {
    on(Soc::Ascend910B, || {
        let u = ub(4096);
        let (dst, a, b) = (u.t::<f32>(0, 128), u.t::<f32>(512, 128), u.t::<f32>(1024, 128));
        let s8 = u.t::<i8>(2048, 8); // 64 bits
        expect_panic(
            || select(&dst, &s8, &a, &b, SelMode::VselTensorTensorMode, 128),
            &[
                "Select",
                "selMask holds 64 bits (8 bytes) but selMode = VSEL_TENSOR_TENSOR_MODE (2) reads 128 bits",
            ],
        );
    });
}
