//! Global-memory and pipe APIs of part 2: InitGlobalMemory, SetGlobalBuffer without a length,
//! SetSize, the DataCopyParams form of DataCopyPad, SetPadValue, LocalMemAllocator,
//! EnQue/DeQue with user positions, DataCacheCleanAndInvalid, the SyncAll forms, and the
//! single-core atomics; each against a reference, and every misuse with its message.

use crate::common::util;

use ascend_core::prelude::*;
use util::{assert_fails, gm, on, Rng};

/// The end of `InitGlobalMemory`'s scratch on `soc`: the Unified Buffer's end, less the
/// 64-byte `KfcMsg` slot on Ascend910B.
fn scratch_end(soc: Soc) -> usize {
    soc.ub_size() - if soc == Soc::Ascend910B { 64 } else { 0 }
}

/// Runs `InitGlobalMemory(g, size, value)` on `soc` with a pipe whose buffers end `scratch`
/// bytes before the scratch's end (at most 65,280 of them are used: one burst); returns the
/// UB bytes from the pipe's end to the scratch's end afterwards.
fn fill_with_scratch<T: InitGlobalMemoryElement>(
    soc: Soc,
    g: &GlobalTensor<T>,
    size: usize,
    value: T,
    scratch: usize,
) -> Vec<u8> {
    let mut ub = Vec::new();
    on(soc, || {
        let pipe_end = scratch_end(soc) - scratch;
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut buf, pipe_end);
        assert_eq!(pipe.used_bytes(), pipe_end);
        let after = LocalTensor::<u8>::new(TPosition::VECCALC, pipe_end, scratch);
        after.copy_from_slice(&vec![0xAB; scratch]);
        init_global_memory(g, size, value);
        ub = after.to_vec();
    });
    ub
}

#[test]
fn init_global_memory_fills_exactly_size_elements() {
    fn check<T: InitGlobalMemoryElement>(value: T) {
        // Scratch sizes: one burst (65,280 bytes) and more, and a small scratch that takes
        // several copies (the last one partial).
        for soc in [Soc::Ascend910B, Soc::Ascend310P] {
            for (scratch, sizes) in
                [(70_016usize, &[0usize, 1, 7, 8, 100][..]), (96, &[0, 5, 24, 61, 200][..])]
            {
                for &size in sizes {
                    let n = size + 37;
                    let init: Vec<T> = (0..n).map(|i| T::from_f64((i % 50) as f64)).collect();
                    let (region, g) = gm(&init);
                    let ub = fill_with_scratch(soc, &g, size, value, scratch);
                    let got: Vec<T> = bytemuck::cast_slice(&region.to_bytes()).to_vec();
                    let want: Vec<T> = (0..n).map(|i| if i < size { value } else { init[i] }).collect();
                    util::assert_bits_ctx(&got, &want, format!("{soc} scratch {scratch} size {size}"));
                    // The scratch holds `value` (Duplicate of one burst at most); the rest of
                    // the space after the pipe is untouched.
                    let pop = scratch.min(65_280) / T::SIZE * T::SIZE;
                    let bytes = bytemuck::bytes_of(&value);
                    assert!(ub[..pop].chunks(T::SIZE).all(|c| c == bytes), "{soc} {size}");
                    assert!(ub[pop..].iter().all(|&b| b == 0xAB), "{soc} {size}");
                }
            }
        }
    }
    check(7u16);
    check(-3i16);
    check(f16::from_f32(0.5));
    check(-1.25f32);
    check(u32::MAX);
    check(-9i32);
}

#[test]
fn init_global_memory_adds_under_atomic_add_but_not_in_310p_scalar_tails() {
    // 10 floats: one whole 32-byte block of 8 and 2 more. Ascend910B's DataCopyPad adds all
    // 10; Ascend310P copies the block (adding) and writes the 2 with SetValue, which the
    // atomic mode does not touch: they are overwritten, as the vendor's implementation does.
    for (soc, tail) in [(Soc::Ascend910B, 3.5f32), (Soc::Ascend310P, 2.0)] {
        let (region, g) = gm(&[1.5f32; 16]);
        on(soc, || {
            let _pipe = TPipe::new();
            set_atomic_add::<f32>();
            init_global_memory(&g, 10, 2.0f32);
            set_atomic_none();
        });
        let got: Vec<f32> = bytemuck::cast_slice(&region.to_bytes()).to_vec();
        let mut want = vec![3.5f32; 8];
        want.extend([tail; 2]);
        want.extend([1.5; 6]);
        assert_eq!(got, want, "{soc}");
    }
}

#[test]
fn init_global_memory_misuse() {
    let (_r, g) = gm(&[0i32; 8]);
    let with_pipe = |soc, f: &dyn Fn()| {
        on(soc, || {
            let _pipe = TPipe::new();
            f()
        })
    };
    assert_fails("core 0: InitGlobalMemory: size = 9 exceeds the GlobalTensor's 8 int32_t elements", || {
        with_pipe(Soc::Ascend910B, &|| init_global_memory(&g, 9, 1))
    });
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        assert_fails(
            &format!(
                "InitGlobalMemory: not supported on {soc} ({}): the vendor implements it",
                soc.product_line()
            ),
            || with_pipe(soc, &|| init_global_memory(&g, 1, 1)),
        );
    }
    assert_fails("InitGlobalMemory: the GlobalTensor is not bound", || {
        with_pipe(Soc::Ascend910B, &|| init_global_memory(&GlobalTensor::<f32>::new(), 1, 1.0))
    });
    assert_fails(
        "InitGlobalMemory: the core has no TPipe: InitGlobalMemory takes the scratch from the Unified Buffer after \
         the TPipe's buffers",
        || on(Soc::Ascend910B, || init_global_memory(&g, 1, 1)),
    );
    // The pipe's buffers reach the scratch's end (Ascend910B: 64 bytes before the UB's).
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let end = scratch_end(soc);
        assert_fails(
            &format!(
                "InitGlobalMemory: no space left in the Unified Buffer for the scratch: the TPipe's buffers reach \
                 byte {end}, and the scratch is the space after them up to byte {end}"
            ),
            || {
                on(soc, || {
                    let mut pipe = TPipe::new();
                    let mut buf = TBuf::<VecCalc>::new();
                    pipe.init_tbuf(&mut buf, end);
                    init_global_memory(&g, 1, 1);
                })
            },
        );
    }
}

#[test]
fn set_global_buffer_addr_takes_the_rest_of_the_region() {
    let region = GmRegion::zeroed(70);
    for (skip, want) in [(0usize, 17usize), (4, 16), (68, 0)] {
        let mut g = GlobalTensor::<i32>::new();
        g.set_global_buffer_addr(region.addr().add::<u8>(skip));
        assert_eq!(g.get_size(), want, "skip {skip}");
    }
    let mut g = GlobalTensor::<u64>::new();
    g.set_global_buffer_addr(region.addr());
    assert_eq!(g.get_size(), 8); // 70 / 8
    assert_fails(
        "GlobalTensor::SetGlobalBuffer: address offset = 2 bytes is not aligned to 4 for int32_t",
        || GlobalTensor::<i32>::new().set_global_buffer_addr(region.addr().add::<u8>(2)),
    );
}

#[test]
fn set_size_changes_the_length_within_the_ub() {
    on(Soc::Ascend910B, || {
        let mut ub = LocalMemAllocator::<Ub>::new();
        let mut x = ub.alloc::<f32>(64);
        x.set_size(8);
        assert_eq!(x.get_size(), 8);
        assert_fails("LocalTensor::GetValue: index = 8 is out of range: the tensor has 8 elements", || {
            x.get_value(8);
        });
        x.set_size(196_608 / 4); // the whole UB of Ascend910B
        assert_eq!(x.get_length(), 196_608);
        let mut y = x.view(1);
        assert_fails(
            "LocalTensor::SetSize: size = 49152 float elements at UB address 0x4 would end beyond the Unified \
             Buffer's 196608 bytes",
            || y.set_size(49_152),
        );
    });
}

#[test]
fn data_copy_pad_params_equals_the_ext_form() {
    let mut rng = Rng(0x5eed_1234);
    for _ in 0..200 {
        let rows = rng.range(1, 4) as u16;
        let elems = rng.range(1, 20) as u32;
        let block_len = (elems * 2) as u16; // f16
        let src_stride = rng.range(0, 6) as u16 * 2;
        let dst_stride = rng.range(0, 2) as u16;
        let left = rng.range(0, 16) as u8;
        let right = rng.range(0, 16) as u8;
        let is_pad = rng.chance(2);
        let bits = rng.next();
        let data: Vec<u16> = (0..400).map(|_| rng.next() as u16).collect();
        let p = DataCopyParams::new(rows, block_len, src_stride, dst_stride);
        let pad = DataCopyPadParams::new(is_pad, left, right, bits);
        let run = |old: bool| {
            let mut out = Vec::new();
            on(Soc::Ascend910B, || {
                let (_r, g) = gm(&data);
                let mut ub = LocalMemAllocator::<Ub>::new();
                let x = ub.alloc_at::<VecIn, u16>(1024);
                x.copy_from_slice(&[0xabcd; 1024]);
                if old {
                    data_copy_pad_params(&x, &g, &p, &pad);
                } else {
                    let ext = DataCopyExtParams::new(
                        rows,
                        u32::from(block_len),
                        src_stride.into(),
                        dst_stride.into(),
                    );
                    let e = DataCopyPadExtParams::new(is_pad, left, right, bits as u16);
                    data_copy_pad(&x, &g, &ext, &e);
                }
                let (r2, g2) = gm(&[0u16; 512]);
                data_copy_pad_params_to_gm(&g2, &x, &p);
                out = x.to_vec();
                out.extend(bytemuck::cast_slice::<u8, u16>(&r2.to_bytes()));
            });
            out
        };
        assert_eq!(run(true), run(false), "{p:?} {pad:?}");
    }
}

#[test]
fn data_copy_pad_params_to_gm_writes_the_rows() {
    on(Soc::Ascend910B, || {
        let (region, g) = gm(&[0i32; 16]);
        let mut ub = LocalMemAllocator::<Ub>::new();
        let x = ub.alloc_at::<VecOut, i32>(24);
        x.copy_from_slice(&(1..=24).collect::<Vec<i32>>());
        // 2 rows of 3 elements; UB rows one block apart plus 1 block of stride; GM 8 bytes apart
        data_copy_pad_params_to_gm(&g, &x, &DataCopyParams::new(2, 12, 1, 8));
        let got: Vec<i32> = bytemuck::cast_slice(&region.to_bytes()).to_vec();
        assert_eq!(&got[..8], &[1, 2, 3, 0, 0, 17, 18, 19]);
    });
}

#[test]
fn the_padding_register_follows_set_pad_value_and_is_pad_copies() {
    on(Soc::Ascend910B, || {
        let (_r, g) = gm(&[1i16, 2, 3]);
        let mut ub = LocalMemAllocator::<Ub>::new();
        let x = ub.alloc_at::<VecIn, i16>(16);
        let copy = |is_pad: bool, v: i16| {
            x.copy_from_slice(&[-7; 16]);
            let pad = DataCopyPadExtParams::new(is_pad, 1, 2, v);
            data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 6, 0, 0), &pad);
            x.to_vec()
        };
        // Never set: the padding keeps the UB's contents.
        assert_eq!(copy(false, 0)[..6], [-7, 1, 2, 3, -7, -7]);
        set_pad_value(5i16);
        assert_eq!(copy(false, 0)[..6], [5, 1, 2, 3, 5, 5]);
        // An is_pad copy loads its value into the same register.
        assert_eq!(copy(true, 9)[..6], [9, 1, 2, 3, 9, 9]);
        assert_eq!(copy(false, 0), [vec![9, 1, 2, 3], vec![9; 12]].concat());
        // Without padding the filler still repeats the first element.
        x.copy_from_slice(&[-7; 16]);
        data_copy_pad(&x, &g, &DataCopyExtParams::new(1, 6, 0, 0), &DataCopyPadExtParams::default());
        assert_eq!(x.to_vec(), [vec![1, 2, 3], vec![1; 13]].concat());
    });
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        assert_fails(&format!("core 0: SetPadValue: not supported on {soc}"), || {
            on(soc, || set_pad_value(1u8))
        });
    }
}

#[test]
fn local_mem_allocator_hands_out_consecutive_bytes() {
    on(Soc::Ascend310P, || {
        let mut ub = LocalMemAllocator::<Ub>::new();
        let a = ub.alloc::<u8>(3);
        let b = ub.alloc_at::<VecOut, u8>(5);
        let c = ub.alloc::<f32>(2);
        assert_eq!([a.get_phy_addr(), b.get_phy_addr(), c.get_phy_addr()], [0, 3, 8]);
        assert_eq!(ub.get_cur_addr(), 16);
        assert_fails(
            "LocalMemAllocator::Alloc: the current address 20 is not aligned to size_of::<int64_t>() = 8",
            || {
                let _ = ub.alloc::<u8>(4);
                let _ = ub.alloc::<i64>(1);
            },
        );
    });
    on(Soc::Ascend910B, || {
        let mut ub = LocalMemAllocator::<Ub>::new();
        let _ = ub.alloc::<f32>(49_000);
        assert_fails(
            "LocalMemAllocator::Alloc: tileSize = 153 float elements (612 bytes) exceeds the 608 bytes left of the \
             Unified Buffer's 196608 (current address 196000)",
            || {
                let _ = ub.alloc::<f32>(153);
            },
        );
        assert_fails("LocalMemAllocator::Alloc: pos = A1 is not in the Unified Buffer", || {
            let _ = ub.alloc_at::<A1, f32>(1);
        });
        // The allocated tensors work with the instructions and copies.
        let x = ub.alloc::<f32>(8);
        assert_eq!(x.get_phy_addr(), 196_000); // the failed calls allocated nothing
    });
}

#[test]
fn local_mem_allocator_and_tpipe_do_not_mix() {
    on(Soc::Ascend910B, || {
        let ub = LocalMemAllocator::<Ub>::new();
        assert_fails(
            "core 0: LocalMemAllocator: a LocalMemAllocator<Ub> is already alive on this core",
            || {
                let _ = LocalMemAllocator::<Ub>::new();
            },
        );
        assert_fails("core 0: TPipe: a LocalMemAllocator<Ub> is alive on this core", || {
            let _ = TPipe::new();
        });
        drop(ub);
        let pipe = TPipe::new();
        assert_fails("core 0: LocalMemAllocator: a TPipe is alive on this core", || {
            let _ = LocalMemAllocator::<Ub>::new();
        });
        drop(pipe);
        let _ub = LocalMemAllocator::<Ub>::new();
    });
}

#[test]
fn enque_and_deque_with_user_positions_follow_the_queue() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut q = TQueBind::<VecIn, VecOut, 2>::new();
        pipe.init_buffer(&mut q, 2, 64);
        let a = q.alloc_tensor::<f32>();
        let b = q.alloc_tensor::<f32>();
        let (pa, pb) = (a.get_phy_addr(), b.get_phy_addr());
        q.enque_with::<Gm, VecIn, f32>(a);
        q.enque_with::<VecIn, VecOut, f32>(b);
        assert_eq!(q.get_tensor_count_in_que(), 2);
        assert_fails("TQue::AllocTensor: no FREE buffer", || {
            let _ = q.alloc_tensor::<f32>(); // both buffers are queued
        });
        assert_eq!(q.deque_with::<Gm, VecIn, f32>().get_phy_addr(), pa);
        assert_eq!(q.deque_with::<VecOut, Gm, f32>().get_phy_addr(), pb);
        assert_fails("TQue::DeQue: the queue is empty", || {
            let _ = q.deque_with::<VecCalc, Gm, f32>();
        });
    });
}

#[test]
fn data_cache_clean_and_invalid_checks_chip_and_destination() {
    let (_r, g) = gm(&[1u32; 8]);
    on(Soc::Ascend910B, || {
        data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineAll>(&g);
        data_cache_clean_and_invalid::<u32, EntireDataCache, CachelineOut>(&g);
        data_cache_clean_and_invalid_gm::<u32, SingleCacheLine>(&g);
        let mut ub = LocalMemAllocator::<Ub>::new();
        data_cache_clean_and_invalid_local::<u32, SingleCacheLine, CachelineUb>(&ub.alloc::<u32>(8));
    });
    assert_eq!(g.get_value(7), 1);
    on(Soc::Ascend310P, || data_cache_clean_and_invalid_gm::<u32, EntireDataCache>(&g));
    assert_fails(
        "core 0: DataCacheCleanAndInvalid: dcciDst = CACHELINE_OUT: Ascend310P (Atlas inference series AI Core) has \
         only the form without dcciDst",
        || on(Soc::Ascend310P, || data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineOut>(&g)),
    );
    assert_fails("DataCacheCleanAndInvalid: not supported on Ascend910 (Atlas training series)", || {
        on(Soc::Ascend910, || data_cache_clean_and_invalid_gm::<u32, SingleCacheLine>(&g))
    });
    assert_fails(
        "DataCacheCleanAndInvalid: dcciDst = CACHELINE_ATOMIC is not supported on Ascend910B",
        || on(Soc::Ascend910B, || data_cache_clean_and_invalid::<u32, SingleCacheLine, CachelineAtomic>(&g)),
    );
    assert_fails("DataCacheCleanAndInvalid: the GlobalTensor is not bound", || {
        on(Soc::Ascend910B, || data_cache_clean_and_invalid_gm::<u32, SingleCacheLine>(&GlobalTensor::new()))
    });
}

#[test]
fn sync_all_forms_on_one_core() {
    on(Soc::Ascend910B, || {
        sync_all_with::<true>();
        assert_fails("core 0: SyncAll: isAIVOnly = false synchronises the cube and vector cores", || {
            sync_all_with::<false>()
        });
        let (_r, ws) = gm(&[0i32; 8]);
        let mut ub = LocalMemAllocator::<Ub>::new();
        let flags = ub.alloc::<i32>(8);
        for k in 1..=3 {
            sync_all_soft::<false>(&ws, &flags, 1);
            assert_eq!((ws.get_value(0), flags.get_value(0)), (k, k));
        }
        assert_fails("SyncAll: usedCores = 2 is out of range [0, 1] (0 means every core)", || {
            sync_all_soft::<true>(&ws, &flags, 2)
        });
        let short = ub.alloc::<i32>(4);
        assert_fails("SyncAll: ubWorkspace has 4 int32_t elements; 1 cores need at least 8", || {
            sync_all_soft::<true>(&ws, &short, 0)
        });
    });
    assert_fails(
        "SyncAll: the software SyncAll(gmWorkspace, ubWorkspace) is not supported on Ascend310B",
        || {
            on(Soc::Ascend310B, || {
                let (_r, ws) = gm(&[0i32; 8]);
                let mut ub = LocalMemAllocator::<Ub>::new();
                sync_all_soft::<true>(&ws, &ub.alloc::<i32>(8), 0)
            })
        },
    );
}

#[test]
fn single_core_float_atomics_apply_at_once() {
    // Outside a launch (and in a launch of one core) there is no epoch to wait for.
    on(Soc::Ascend910B, || {
        let (region, g) = gm(&[f16::from_f32(1.0); 16]);
        let mut ub = LocalMemAllocator::<Ub>::new();
        let x = ub.alloc_at::<VecOut, f16>(16);
        duplicate(&x, f16::from_f32(0.25), 16);
        set_atomic_add::<f16>();
        data_copy(&g, &x, 16);
        assert_eq!(g.get_value(3), f16::from_f32(1.25));
        set_atomic_max::<bf16>();
        assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Max, dtype: DType::BF16 }));
        assert_fails(
            "DataCopy: the core's atomic mode is SetAtomicMax<bfloat16_t>, but this copy moves half",
            || data_copy(&g, &x, 16),
        );
        disable_dma_atomic();
        data_copy(&g, &x, 16);
        assert_eq!(region.to_bytes(), bytemuck::cast_slice::<f16, u8>(&[f16::from_f32(0.25); 16]));
    });
}

#[test]
fn set_atomic_type_changes_the_type_and_keeps_the_operation() {
    on(Soc::Ascend310B, || {
        set_atomic_type::<i32>(); // mode off: no effect
        assert_eq!(get_atomic_mode(), None);
        set_atomic_add::<f32>();
        set_atomic_type::<i16>();
        assert_eq!(get_atomic_mode(), Some(AtomicMode { op: AtomicOp::Add, dtype: DType::I16 }));
        let (region, g) = gm(&[5i16; 16]);
        let mut ub = LocalMemAllocator::<Ub>::new();
        let x = ub.alloc_at::<VecOut, i16>(16);
        x.copy_from_slice(&[-2; 16]);
        data_copy(&g, &x, 16);
        assert_eq!(region.to_bytes(), bytemuck::cast_slice::<i16, u8>(&[3; 16]));
        assert_fails(
            "core 0: SetAtomicType: T = int8_t is not supported on Ascend310B",
            set_atomic_type::<i8>,
        );
    });
    assert_fails("SetAtomicType: not supported on Ascend910 (Atlas training series)", || {
        on(Soc::Ascend910, set_atomic_type::<f32>)
    });
}

#[test]
fn by_pass_dcache_reads_and_writes_exact_elements_of_every_width() {
    fn check<T: ByPassDCacheElement>(vals: [T; 4]) {
        let (region, g) = gm(&vals);
        on(Soc::Ascend910B, || {
            let base = g.get_phy_addr();
            for (i, v) in vals.iter().enumerate() {
                assert_eq!(read_gm_by_pass_dcache::<T>(base.add::<T>(i)).to_bits_u64(), v.to_bits_u64());
            }
            data_sync_barrier::<MemDsbT::ALL>();
            write_gm_by_pass_dcache::<T>(base.add::<T>(2), vals[0]);
        });
        let got: Vec<T> = bytemuck::cast_slice(&region.to_bytes()).to_vec();
        util::assert_bits(&got, &[vals[0], vals[1], vals[0], vals[3]]);
    }
    check([1i8, -2, 3, i8::MIN]);
    check([1u8, 2, 3, u8::MAX]);
    check([1i16, -2, 3, i16::MIN]);
    check([1u16, 2, 3, u16::MAX]);
    check([1i32, -2, 3, i32::MIN]);
    check([1u32, 2, 3, u32::MAX]);
    check([1i64, -2, 3, i64::MIN]);
    check([1u64, 2, 3, u64::MAX]);
}

#[test]
fn by_pass_dcache_and_data_sync_barrier_checks() {
    let (_region, g) = gm(&[0i32; 4]);
    let a = g.get_phy_addr();
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        util::expect_panic(
            || {
                on(soc, || {
                    read_gm_by_pass_dcache::<i32>(a);
                })
            },
            &["ReadGmByPassDCache", "not supported on"],
        );
        util::expect_panic(
            || on(soc, || write_gm_by_pass_dcache::<i32>(a, 1)),
            &["WriteGmByPassDCache", "not supported on"],
        );
    }
    for soc in [Soc::Ascend910, Soc::Ascend310P] {
        util::expect_panic(
            || on(soc, data_sync_barrier::<MemDsbT::DDR>),
            &["DataSyncBarrier", "MemDsbT::DDR", "not supported on"],
        );
    }
    on(Soc::Ascend310B, data_sync_barrier::<MemDsbT::UB>);
    on(Soc::Ascend910B, data_sync_barrier::<MemDsbT::SEQ>);
    util::expect_panic(
        || {
            on(Soc::Ascend910B, || {
                read_gm_by_pass_dcache::<i32>(a.add::<u8>(2));
            })
        },
        &["ReadGmByPassDCache", "GM offset 0x2 is not aligned to 4 bytes for int32_t"],
    );
    util::expect_panic(
        || on(Soc::Ascend910B, || write_gm_by_pass_dcache::<i32>(a.add::<i32>(4), 1)),
        &["WriteGmByPassDCache", "exceeds the 0 bytes left"],
    );
    let unbound = GlobalTensor::<i32>::new();
    util::expect_panic(
        || {
            on(Soc::Ascend910B, || {
                unbound.get_phy_addr();
            })
        },
        &["GetPhyAddr", "not bound"],
    );
}

#[test]
fn set_l2_cache_hint_is_checked_and_changes_no_result() {
    let (region, mut g) = gm(&[1.5f32, 2.5]);
    on(Soc::Ascend910B, || {
        for mode in
            [CacheMode::CACHE_MODE_NORMAL, CacheMode::CACHE_MODE_DISABLE, CacheMode::CACHE_MODE_PERSISTENT]
        {
            g.set_l2_cache_hint(mode);
            assert_eq!((g.get_value(0), g.get_value(1)), (1.5, 2.5));
        }
    });
    assert_eq!(region.to_bytes(), bytemuck::cast_slice::<f32, u8>(&[1.5, 2.5]));
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        util::expect_panic(
            || on(soc, || g.set_l2_cache_hint(CacheMode::CACHE_MODE_DISABLE)),
            &["GlobalTensor::SetL2CacheHint", "CACHE_MODE_DISABLE", "not supported on"],
        );
    }
}

#[test]
fn fill_is_init_global_memory_under_the_public_headers_name() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for size in [0usize, 5, 24, 100] {
            let init: Vec<f32> = (0..107).map(|i| i as f32).collect();
            let (by_init, g1) = gm(&init);
            let (by_fill, g2) = gm(&init);
            let ub1 = fill_with_scratch(soc, &g1, size, 2.5f32, 96);
            let mut ub2 = Vec::new();
            on(soc, || {
                let pipe_end = scratch_end(soc) - 96;
                let mut pipe = TPipe::new();
                let mut buf = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut buf, pipe_end);
                let after = LocalTensor::<u8>::new(TPosition::VECCALC, pipe_end, 96);
                after.copy_from_slice(&[0xAB; 96]);
                fill(&g2, size, 2.5f32);
                ub2 = after.to_vec();
            });
            assert_eq!(by_init.to_bytes(), by_fill.to_bytes(), "{soc} {size}");
            assert_eq!(ub1, ub2, "{soc} {size}");
        }
    }
    let (_r, g) = gm(&[0i32; 8]);
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        assert_fails(
            &format!(
                "Fill: does nothing on {soc} ({}): the vendor's header compiles Fill",
                soc.product_line()
            ),
            || {
                on(soc, || {
                    let _pipe = TPipe::new();
                    fill(&g, 1, 1);
                })
            },
        );
    }
    assert_fails("core 0: Fill: the core has no TPipe", || on(Soc::Ascend910B, || fill(&g, 1, 1)));
}
