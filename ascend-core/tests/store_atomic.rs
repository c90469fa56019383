//! `SetStoreAtomicConfig<type, op>()` / `GetStoreAtomicConfig()`: the same state as
//! `SetAtomicAdd<T>` / `SetAtomicType<T>` / `SetAtomicNone`, shown both ways; the copies it
//! makes atomic; the types per chip; and every error.

use crate::common::util;

use ascend_core::prelude::*;
use util::{fault, on};

/// Sets the configuration `TYPE` with `ATOMIC_SUM`.
fn set<const TYPE: u16>() {
    set_store_atomic_config::<TYPE, { AtomicOp::ATOMIC_SUM }>();
}

/// Copies `x` (one 32-byte block of `T`) to a GM block holding `init` twice, with the
/// configuration `TYPE` set before the copies, and returns GM.
fn add_twice<T: AtomicElement, const TYPE: u16>(init: T, x: T) -> Vec<T> {
    let n = 32 / T::SIZE;
    let region = GmRegion::from_bytes(bytemuck::cast_slice(&vec![init; n]));
    let mut gm = GlobalTensor::<T>::new();
    gm.set_global_buffer(region.addr(), n);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecOut>::new();
    pipe.init_tbuf(&mut buf, 32);
    let ub = buf.get::<T>();
    ub.copy_from_slice(&vec![x; n]);
    set::<TYPE>();
    data_copy(&gm, &ub, n);
    data_copy(&gm, &ub, n);
    set::<{ AtomicDtype::ATOMIC_NONE }>();
    (0..n).map(|i| gm.get_value(i)).collect()
}

#[test]
fn each_type_turns_on_atomic_add_of_it() {
    on(Soc::Ascend910B, || {
        assert_eq!(add_twice::<f32, { AtomicDtype::ATOMIC_F32 }>(0.5, 1.25), vec![3.0; 8]);
        assert_eq!(
            add_twice::<f16, { AtomicDtype::ATOMIC_F16 }>(f16::ONE, f16::from_f32(0.5)),
            vec![f16::from_f32(2.0); 16]
        );
        assert_eq!(add_twice::<i16, { AtomicDtype::ATOMIC_S16 }>(-7, 100), vec![193; 16]);
        assert_eq!(add_twice::<i32, { AtomicDtype::ATOMIC_S32 }>(10, -3), vec![4; 8]);
        // int8_t wraps: 100 + 2 * 100 = 300 = 44 mod 256.
        assert_eq!(add_twice::<i8, { AtomicDtype::ATOMIC_S8 }>(100, 100), vec![44; 32]);
        assert_eq!(
            add_twice::<bf16, { AtomicDtype::ATOMIC_BF16 }>(bf16::ONE, bf16::ONE),
            vec![bf16::from_f32(3.0); 16]
        );
    });
}

#[test]
fn atomic_none_makes_copies_overwrite_again() {
    on(Soc::Ascend910B, || {
        let region = GmRegion::from_bytes(bytemuck::cast_slice(&[5i32; 8]));
        let mut gm = GlobalTensor::<i32>::new();
        gm.set_global_buffer(region.addr(), 8);
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecOut>::new();
        pipe.init_tbuf(&mut buf, 32);
        let ub = buf.get::<i32>();
        ub.copy_from_slice(&[1; 8]);
        set::<{ AtomicDtype::ATOMIC_S32 }>();
        data_copy(&gm, &ub, 8);
        assert_eq!(gm.get_value(0), 6);
        set::<{ AtomicDtype::ATOMIC_NONE }>();
        assert_eq!(get_atomic_mode(), None);
        data_copy(&gm, &ub, 8);
        assert_eq!(gm.get_value(0), 1);
    });
}

#[test]
fn set_and_get_round_trip_through_the_atomic_state() {
    on(Soc::Ascend910B, || {
        let s = AtomicOp::ATOMIC_SUM;
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_NONE, s));
        set::<{ AtomicDtype::ATOMIC_F32 }>();
        assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Add, dtype: DType::F32 }));
        assert_eq!(get_store_atomic_config(), (1, 0));
        set::<{ AtomicDtype::ATOMIC_F16 }>();
        assert_eq!(get_store_atomic_config(), (2, 0));
        set::<{ AtomicDtype::ATOMIC_S16 }>();
        assert_eq!(get_store_atomic_config(), (3, 0));
        set::<{ AtomicDtype::ATOMIC_S32 }>();
        assert_eq!(get_store_atomic_config(), (4, 0));
        set::<{ AtomicDtype::ATOMIC_S8 }>();
        assert_eq!(get_store_atomic_config(), (5, 0));
        set::<{ AtomicDtype::ATOMIC_BF16 }>();
        assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Add, dtype: DType::BF16 }));
        assert_eq!(get_store_atomic_config(), (6, 0));
        set::<{ AtomicDtype::ATOMIC_NONE }>();
        assert_eq!(get_store_atomic_config(), (0, 0));
        // The older calls set the same state.
        set_atomic_add::<i16>();
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_S16, s));
        set_atomic_type::<bf16>();
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_BF16, s));
        disable_dma_atomic();
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_NONE, s));
        // And SetAtomicType changes the type SetStoreAtomicConfig set.
        set::<{ AtomicDtype::ATOMIC_F32 }>();
        set_atomic_type::<i8>();
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_S8, s));
        set_atomic_none();
    });
}

#[test]
fn ascend310b_takes_its_four_add_types() {
    on(Soc::Ascend310B, || {
        set::<{ AtomicDtype::ATOMIC_F32 }>();
        assert_eq!(get_store_atomic_config(), (1, 0));
        set::<{ AtomicDtype::ATOMIC_F16 }>();
        set::<{ AtomicDtype::ATOMIC_S16 }>();
        set::<{ AtomicDtype::ATOMIC_S32 }>();
        assert_eq!(get_store_atomic_config(), (4, 0));
        assert_eq!(add_twice::<i32, { AtomicDtype::ATOMIC_S32 }>(1, 2), vec![5; 8]);
        set::<{ AtomicDtype::ATOMIC_NONE }>();
        assert_eq!(get_store_atomic_config(), (0, 0));
    });
    for (name, t, call) in [
        ("ATOMIC_S8", "int8_t", set::<{ AtomicDtype::ATOMIC_S8 }> as fn()),
        ("ATOMIC_BF16", "bfloat16_t", set::<{ AtomicDtype::ATOMIC_BF16 }>),
    ] {
        let f = fault(Soc::Ascend310B, call);
        assert_eq!(f.api, "SetStoreAtomicConfig");
        assert_eq!(
            f.message,
            format!(
                "type = AtomicDtype::{name} ({t}) is not supported on Ascend310B (Atlas 200/500 A2 inference): its \
                 atomics take int16_t, half, int32_t, float"
            )
        );
    }
    // A rejected type leaves the mode as it was.
    on(Soc::Ascend310B, || {
        set::<{ AtomicDtype::ATOMIC_F16 }>();
        util::panic_message(set::<{ AtomicDtype::ATOMIC_S8 }>);
        let _ = ascend_core::take_last_fault();
        assert_eq!(get_store_atomic_config(), (AtomicDtype::ATOMIC_F16, AtomicOp::ATOMIC_SUM));
        set_atomic_none();
    });
}

#[test]
fn chips_without_the_config_name_themselves() {
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        let want = format!(
            "not supported on {soc} ({}); it exists on Ascend910B and Ascend310B (and on chips not modelled)",
            soc.product_line()
        );
        for call in [set::<{ AtomicDtype::ATOMIC_F32 }> as fn(), set::<{ AtomicDtype::ATOMIC_NONE }>] {
            let f = fault(soc, call);
            assert_eq!((f.api, &f.message), ("SetStoreAtomicConfig", &want));
            assert!(f.file.ends_with("tests/store_atomic.rs"), "{}", f.file);
        }
        let f = fault(soc, || {
            let _ = get_store_atomic_config();
        });
        assert_eq!((f.api, &f.message), ("GetStoreAtomicConfig", &want));
    }
}

#[test]
fn get_fails_while_the_mode_is_max_or_min() {
    for (op, call) in [
        ("SetAtomicMax<float>", set_atomic_max::<f32> as fn()),
        ("SetAtomicMin<int16_t>", set_atomic_min::<i16>),
    ] {
        let f = fault(Soc::Ascend910B, || {
            call();
            let _ = get_store_atomic_config();
        });
        assert_eq!(f.api, "GetStoreAtomicConfig");
        assert_eq!(
            f.message,
            format!(
                "the core's atomic mode is {op}: the vendor documents the operation field's value for add only \
                 (AtomicOp::ATOMIC_SUM = 0), not for max or min"
            )
        );
    }
}

#[test]
fn the_enumerations_are_the_vendors() {
    assert_eq!(
        [
            AtomicDtype::ATOMIC_NONE,
            AtomicDtype::ATOMIC_F32,
            AtomicDtype::ATOMIC_F16,
            AtomicDtype::ATOMIC_S16,
            AtomicDtype::ATOMIC_S32,
            AtomicDtype::ATOMIC_S8,
            AtomicDtype::ATOMIC_BF16
        ],
        [0, 1, 2, 3, 4, 5, 6]
    );
    assert_eq!(AtomicOp::ATOMIC_SUM, 0);
}
