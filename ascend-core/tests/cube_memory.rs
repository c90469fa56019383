//! The cube's memories: which memory each position lives in on each chip, their sizes, the
//! allocators and static tensors over them, and Ascend910B's separate cube (AIC) and vector
//! (AIV) cores, each with only its own memories.

use crate::common::util;

use ascend_core::prelude::*;
use util::{assert_fails, on};

fn core(soc: Soc, kernel_type: KernelType, f: impl FnOnce()) {
    run_on_core(CoreConfig { kernel_type: Some(kernel_type), ..CoreConfig::single(soc) }, f)
}

/// The vendor's `GetPhyType`, chip by chip.
#[test]
fn positions_map_to_the_vendors_memories() {
    use Memory::*;
    use TPosition::*;
    let common = [(VECIN, Some(Ub)), (VECOUT, Some(Ub)), (VECCALC, Some(Ub)), (A1, Some(L1)), (B1, Some(L1))];
    let rest = [(A2, Some(L0A)), (B2, Some(L0B)), (CO1, Some(L0C)), (GM, None)];
    for soc in Soc::ALL {
        for (pos, mem) in common.into_iter().chain(rest) {
            assert_eq!(pos.memory(soc), mem, "{pos} on {soc}");
        }
    }
    let coupled = [(C1, Some(Ub)), (C2, Some(L0C)), (CO2, Some(Ub))];
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        for (pos, mem) in coupled {
            assert_eq!(pos.memory(soc), mem, "{pos} on {soc}");
        }
    }
    assert_eq!(
        [C1, C2, CO2].map(|p| p.memory(Soc::Ascend910B)),
        [Some(L1), Some(BiasTable), None],
        "C2 is the bias table, CO2 global memory"
    );
    assert_eq!([C1, C2, CO2].map(|p| p.memory(Soc::Ascend310B)), [Some(L1), None, Some(Ub)]);
}

/// `TOTAL_L1_SIZE`, `TOTAL_L0A_SIZE`, `TOTAL_L0B_SIZE`, `TOTAL_L0C_SIZE` per architecture.
#[test]
fn memory_sizes_are_the_vendors_constants() {
    const K: usize = 1024;
    let expect = [
        (Soc::Ascend910, [1024 * K, 64 * K, 64 * K, 256 * K]),
        (Soc::Ascend910B, [512 * K - 128, 64 * K, 64 * K, 128 * K]),
        (Soc::Ascend310P, [1024 * K, 64 * K, 64 * K, 256 * K]),
        (Soc::Ascend310B, [1024 * K, 64 * K, 64 * K, 128 * K]),
    ];
    for (soc, sizes) in expect {
        let got = [Memory::L1, Memory::L0A, Memory::L0B, Memory::L0C].map(|m| soc.memory_size(m));
        assert_eq!(got, sizes, "{soc}");
        assert_eq!(soc.memory_size(Memory::Ub), soc.ub_size());
        assert_eq!(soc.is_separated(), soc == Soc::Ascend910B);
    }
}

/// Each memory's allocator hands out its own address space from 0, fills it exactly, and
/// refuses positions of other memories; the memories do not alias each other.
#[test]
fn allocators_of_each_memory_are_independent() {
    on(Soc::Ascend910B, || {
        let mut l1 = LocalMemAllocator::<L1>::new();
        let mut l0a = LocalMemAllocator::<L0A>::new();
        let mut l0b = LocalMemAllocator::<L0B>::new();
        let mut l0c = LocalMemAllocator::<L0C>::new();
        let mut ub = LocalMemAllocator::<Ub>::new();
        let a1 = l1.alloc::<f16>(256);
        let b1 = l1.alloc_at::<B1, f16>(256);
        let c1 = l1.alloc_at::<C1, f32>(8);
        let a2 = l0a.alloc::<f16>(256);
        let b2 = l0b.alloc::<f16>(256);
        let co1 = l0c.alloc::<f32>(256);
        let x = ub.alloc::<f16>(256);
        assert_eq!(
            [&a1, &b1, &a2, &b2, &x].map(|t| (t.get_position(), t.get_phy_addr())),
            [
                (TPosition::A1, 0),
                (TPosition::B1, 512),
                (TPosition::A2, 0),
                (TPosition::B2, 0),
                (TPosition::VECCALC, 0)
            ]
        );
        assert_eq!((c1.get_position(), c1.get_phy_addr()), (TPosition::C1, 1024));
        assert_eq!(co1.get_position(), TPosition::CO1);
        // Same addresses, different memories.
        a1.copy_from_slice(&[f16::from_f32(1.0); 256]);
        a2.copy_from_slice(&[f16::from_f32(2.0); 256]);
        b2.copy_from_slice(&[f16::from_f32(3.0); 256]);
        duplicate(&x, f16::from_f32(4.0), 256);
        assert_eq!(
            [&a1, &a2, &b2, &x].map(|t| t.to_vec()[255].to_f32()),
            [1.0, 2.0, 3.0, 4.0],
            "the memories are distinct"
        );
        // The whole of L0A fits, one more byte does not.
        let rest = Soc::Ascend910B.memory_size(Memory::L0A) - 512;
        let _all = l0a.alloc::<u8>(rest);
        assert_fails("exceeds the 0 bytes left of the L0A buffer's 65536", || {
            l0a.alloc::<u8>(1);
        });
        assert_fails("pos = A2 is not in the L1 buffer on Ascend910B (A2 is the L0A buffer)", || {
            l1.alloc_at::<A2, f16>(16);
        });
        assert_fails(
            "pos = CO2 is not in the L1 buffer on Ascend910B (CO2 is not in an on-chip memory",
            || {
                l1.alloc_at::<Co2, f16>(16);
            },
        );
        assert_fails("LocalMemAllocator: a LocalMemAllocator<L0C> is already alive on this core", || {
            LocalMemAllocator::<L0C>::new();
        });
        assert_fails(
            "TPipe: a LocalMemAllocator<Ub> is alive on this core; AscendC does not mix it with TPipe",
            || {
                TPipe::new();
            },
        );
    });
}

/// On the coupled chips `C1` and `CO2` are Unified Buffer positions: the UB allocator takes them.
#[test]
fn coupled_chips_place_c1_and_co2_in_the_unified_buffer() {
    on(Soc::Ascend310P, || {
        let mut ub = LocalMemAllocator::<Ub>::new();
        let c = ub.alloc_at::<Co2, f16>(16);
        assert_eq!(c.get_position(), TPosition::CO2);
        let mut l1 = LocalMemAllocator::<L1>::new();
        assert_fails("pos = C1 is not in the L1 buffer on Ascend310P (C1 is the Unified Buffer)", || {
            l1.alloc_at::<C1, f16>(16);
        });
    });
}

/// Static tensors at cube positions live in their memory; the scalar unit cannot reach them.
#[test]
fn static_cube_tensors_and_scalar_access() {
    on(Soc::Ascend910B, || {
        let a2 = LocalTensor::<f16>::new(TPosition::A2, 512, 256);
        assert_eq!((a2.get_position(), a2.get_phy_addr()), (TPosition::A2, 512));
        assert_fails("LocalTensor::GetValue: the tensor is at position A2 in the L0A buffer", || {
            a2.get_value(0);
        });
        assert_fails("LocalTensor::SetValue: the tensor is at position A2 in the L0A buffer", || {
            a2.set_value(0, f16::ZERO);
        });
        assert_fails("would end beyond the L0A buffer's 65536 bytes", || {
            LocalTensor::<f16>::new(TPosition::A2, 65536 - 32, 17);
        });
        assert_fails("LocalTensor: pos = GM is not in an on-chip memory this emulator models", || {
            LocalTensor::<f16>::new(TPosition::GM, 0, 16);
        });
        // C2 is the bias table (1 KiB).
        assert_eq!(LocalTensor::<f32>::new(TPosition::C2, 0, 256).memory(), Memory::BiasTable);
        assert_fails("would end beyond the bias table (BT)'s 1024 bytes", || {
            LocalTensor::<f32>::new(TPosition::C2, 0, 257);
        });
        // Vector instructions and UB copies still take Unified Buffer tensors only.
        let co1 = LocalTensor::<f32>::new(TPosition::CO1, 0, 64);
        assert_fails("vector instructions take VECIN, VECOUT or VECCALC tensors", || {
            duplicate(&co1, 1.0f32, 64);
        });
    });
}

/// A `TBuf` in a cube position is carved from that position's memory by the pipe's allocator
/// of that memory (`C2`: the bias table); a position without a memory of the core (Ascend910B's
/// `CO2`, in GM; Ascend310B's `C2`) is refused.
#[test]
fn tbuf_at_a_cube_position_is_carved_from_its_memory() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut a, mut b, mut c) = (TBuf::<A1>::new(), TBuf::<B1>::new(), TBuf::<Co1>::new());
        pipe.init_tbuf(&mut a, 1000);
        pipe.init_tbuf(&mut b, 64);
        pipe.init_tbuf(&mut c, 4096);
        let (ta, tb, tc) = (a.get::<f16>(), b.get::<f16>(), c.get::<f32>());
        assert_eq!((ta.get_phy_addr(), ta.get_size(), ta.get_position()), (0, 512, TPosition::A1));
        assert_eq!((tb.get_phy_addr(), tb.get_position()), (1024, TPosition::B1));
        assert_eq!((tc.get_phy_addr(), tc.get_size(), tc.get_position()), (0, 1024, TPosition::CO1));
        assert_eq!(pipe.used_bytes(), 0, "used_bytes counts the Unified Buffer");
        let mut out = TBuf::<Co2>::new();
        assert_fails(
            "TPipe::InitBuffer: the TBuf's position is CO2 and on Ascend910B that is global memory",
            || pipe.init_tbuf(&mut out, 64),
        );
        let mut bias = TBuf::<C2>::new();
        pipe.init_tbuf(&mut bias, 1024);
        let tbias = bias.get::<f32>();
        assert_eq!((tbias.get_phy_addr(), tbias.get_size(), tbias.memory()), (0, 256, Memory::BiasTable));
        let mut more = TBuf::<C2>::new();
        assert_fails("free", || pipe.init_tbuf(&mut more, 64));
    });
    on(Soc::Ascend310B, || {
        let mut pipe = TPipe::new();
        let mut bias = TBuf::<C2>::new();
        assert_fails("the bias table, which is not modelled on that chip", || pipe.init_tbuf(&mut bias, 64));
    });
}

/// Ascend910B: a vector core (AIV) has no cube memory and a cube core (AIC) no Unified Buffer;
/// the messages say which kernel type to launch.
#[test]
fn separated_cores_have_only_their_own_memories() {
    core(Soc::Ascend910B, KernelType::AivOnly, || {
        for f in [
            &(|| drop(LocalMemAllocator::<L1>::new())) as &dyn Fn(),
            &|| drop(LocalTensor::<f16>::new(TPosition::B2, 0, 16)),
            &|| drop(LocalMemAllocator::<L0C>::new()),
        ] {
            util::expect_panic(
                f,
                &[
                    "is a memory of the cube core (AIC) of Ascend910B",
                    "Launch::kernel_type(KernelType::AicOnly)",
                ],
            );
        }
        // Its own memory works.
        let mut ub = LocalMemAllocator::<Ub>::new();
        duplicate(&ub.alloc::<f32>(64), 1.0f32, 64);
    });
    core(Soc::Ascend910B, KernelType::AicOnly, || {
        let needle =
            "the cube core (AIC) of Ascend910B has no Unified Buffer (this kernel is KernelType::AicOnly)";
        assert_fails(needle, || drop(LocalMemAllocator::<Ub>::new()));
        assert_fails(needle, || drop(LocalTensor::<f32>::new(TPosition::VECCALC, 0, 8)));
        assert_fails(needle, || {
            let mut pipe = TPipe::new();
            let mut q = TQue::<VecIn, 1>::new();
            pipe.init_buffer(&mut q, 1, 1024);
        });
        let mut l0c = LocalMemAllocator::<L0C>::new();
        assert_eq!(l0c.alloc::<f32>(256).get_position(), TPosition::CO1);
    });
    // One AI core has every memory on the other chips, whatever the kernel type.
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        for kind in [KernelType::AivOnly, KernelType::AicOnly] {
            core(soc, kind, || {
                let mut l1 = LocalMemAllocator::<L1>::new();
                let mut ub = LocalMemAllocator::<Ub>::new();
                assert_eq!((l1.alloc::<f16>(16).get_phy_addr(), ub.alloc::<f16>(16).get_phy_addr()), (0, 0));
            });
        }
    }
}

/// A cube core's printed lines carry the vendor's `[AIC Block i/n]` prefix.
#[test]
fn cube_cores_print_with_the_aic_prefix() {
    core(Soc::Ascend910B, KernelType::AicOnly, || {
        assert_eq!(ascend_core::debug::line_prefix(), "[AIC Block 0/1] ");
    });
    core(Soc::Ascend910B, KernelType::AivOnly, || {
        assert_eq!(ascend_core::debug::line_prefix(), "[AIV Block 0/1] ");
    });
}
