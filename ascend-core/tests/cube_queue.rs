//! `TQue`/`TQueBind` at the cube's positions: each memory has its own bump allocator in the
//! `TPipe` (the vendor's `bufPool_` per `Hardware`), a queue's buffers live where the vendor's
//! `GetBufferPos` puts them, and the queue state machine is the vector queues'.

use crate::common::util;

use ascend_core::prelude::*;
use util::{assert_fails, on};

/// Queues at A1/B1 share L1, A2 takes L0A, B2 L0B, CO1 L0C: each memory from offset 0, each
/// buffer rounded to 32 bytes; the Unified Buffer is untouched.
#[test]
fn each_cube_memory_has_its_own_allocator() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let (mut a1, mut b1) = (TQue::<A1, 1>::new(), TQue::<B1, 1>::new());
        let (mut a2, mut b2, mut co1) = (TQue::<A2, 1>::new(), TQue::<B2, 1>::new(), TQue::<Co1, 1>::new());
        let mut vin = TQue::<VecIn, 1>::new();
        pipe.init_buffer(&mut a1, 2, 1000);
        pipe.init_buffer(&mut b1, 1, 512);
        pipe.init_buffer(&mut a2, 1, 512);
        pipe.init_buffer(&mut b2, 2, 512);
        pipe.init_buffer(&mut co1, 1, 1024);
        pipe.init_buffer(&mut vin, 1, 256);
        let (x, y) = (a1.alloc_tensor::<f16>(), a1.alloc_tensor::<f16>());
        assert_eq!((x.get_phy_addr(), y.get_phy_addr(), x.get_size()), (0, 1024, 512));
        assert_eq!((x.get_position(), x.memory()), (TPosition::A1, Memory::L1));
        let z = b1.alloc_tensor::<f16>();
        assert_eq!((z.get_phy_addr(), z.get_position(), z.memory()), (2048, TPosition::B1, Memory::L1));
        assert_eq!(a2.alloc_tensor::<f16>().memory(), Memory::L0A);
        let (p, q) = (b2.alloc_tensor::<f16>(), b2.alloc_tensor::<f16>());
        assert_eq!((p.get_phy_addr(), q.get_phy_addr(), p.memory()), (0, 512, Memory::L0B));
        let c = co1.alloc_tensor::<f32>();
        assert_eq!((c.get_phy_addr(), c.get_size(), c.memory()), (0, 256, Memory::L0C));
        assert_eq!(vin.alloc_tensor::<f32>().get_phy_addr(), 0);
        assert_eq!(pipe.used_bytes(), 256, "only the VECIN queue took Unified Buffer bytes");
        // The state machine is the vector queues': EnQue / DeQue / FreeTensor.
        a1.enque(x);
        let x = a1.deque::<f16>();
        assert_eq!(x.get_phy_addr(), 0);
        a1.free_tensor(x);
        a1.free_tensor(y);
        assert!(a1.has_idle_buffer());
        // Reset empties every allocator.
        pipe.reset();
        let mut again = TQue::<A1, 1>::new();
        pipe.init_buffer(&mut again, 1, 64);
        assert_eq!(again.alloc_tensor::<f16>().get_phy_addr(), 0);
    });
}

/// The capacity check names the memory, its size and what is left.
#[test]
fn a_cube_memory_overflow_names_the_memory() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut a2 = TQue::<A2, 1>::new();
        assert_fails(
            "TPipe::InitBuffer: 2 buffer(s) of 40000 bytes (rounded to 40000) need 80000 bytes, but only 65536 of \
             the L0A buffer's 65536 bytes are free (0 already used)",
            || pipe.init_buffer(&mut a2, 2, 40000),
        );
        let mut co1 = TQue::<Co1, 1>::new();
        pipe.init_buffer(&mut co1, 1, 100 * 1024);
        let mut more = TQue::<Co1, 1>::new();
        assert_fails("only 28672 of the L0C buffer's 131072 bytes are free (102400 already used)", || {
            pipe.init_buffer(&mut more, 1, 32 * 1024)
        });
    });
}

/// Where a queue keeps its buffers follows the chip: Ascend910B's CO2 is global memory (a
/// `TQue<CO2>` has none), Ascend310P's is the Unified Buffer, and so is its C1.
#[test]
fn queue_memories_follow_the_chip() {
    on(Soc::Ascend910B, || {
        let mut pipe = TPipe::new();
        let mut co2 = TQue::<Co2, 1>::new();
        assert_fails(
            "TPipe::InitBuffer: the queue CO2 -> CO2 keeps its buffers at CO2, which on Ascend910B is global memory",
            || pipe.init_buffer(&mut co2, 1, 64),
        );
        // C1 -> C2 (L1 -> the bias table) keeps its buffers in the bias table.
        let mut c2 = TQue::<C2, 1>::new();
        pipe.init_buffer(&mut c2, 1, 64);
        assert_eq!(c2.alloc_tensor::<f32>().memory(), Memory::BiasTable);
        let mut c1 = TQue::<C1, 1>::new();
        pipe.init_buffer(&mut c1, 1, 64);
        assert_eq!(c1.alloc_tensor::<f32>().memory(), Memory::L1);
    });
    on(Soc::Ascend310B, || {
        let mut pipe = TPipe::new();
        let mut c2 = TQue::<C2, 1>::new();
        assert_fails("which on Ascend310B is the bias table, which is not modelled on that chip", || {
            pipe.init_buffer(&mut c2, 1, 64)
        });
    });
    on(Soc::Ascend310P, || {
        let mut pipe = TPipe::new();
        let (mut co2, mut c1) = (TQue::<Co2, 1>::new(), TQue::<C1, 1>::new());
        pipe.init_buffer(&mut co2, 1, 64);
        pipe.init_buffer(&mut c1, 1, 64);
        assert_eq!(co2.alloc_tensor::<f32>().memory(), Memory::Ub);
        assert_eq!(c1.alloc_tensor::<f32>().get_phy_addr(), 64);
        assert_eq!(pipe.used_bytes(), 128);
    });
}

/// On Ascend910B a vector kernel's core has no L1: a `TQue<A1>` fails naming the kernel type.
#[test]
fn a_vector_core_has_no_cube_queues() {
    let cfg = CoreConfig { kernel_type: Some(KernelType::AivOnly), ..CoreConfig::single(Soc::Ascend910B) };
    run_on_core(cfg, || {
        let mut pipe = TPipe::new();
        let mut a1 = TQue::<A1, 1>::new();
        assert_fails("Launch::kernel_type(KernelType::AicOnly)", || pipe.init_buffer(&mut a1, 1, 64));
    });
}

/// The vendor's `TPipe` sets `M_MTE1` ids 0, 1 and 2 when it is created on a cube core of
/// Ascend910B or on Ascend310B (for its matmul framework) and waits for them when it is
/// destroyed: a kernel's first `AllocEventID<M_MTE1>` gets id 3, a `WaitFlag<M_MTE1>(0)`
/// before any `SetFlag` does not hang, and after the pipe's drop the ids are free and unset.
#[test]
fn a_cube_core_pipe_presets_the_matmul_m_mte1_ids() {
    let aic = CoreConfig { kernel_type: Some(KernelType::AicOnly), ..CoreConfig::single(Soc::Ascend910B) };
    for cfg in [aic, CoreConfig::single(Soc::Ascend310B)] {
        run_on_core(cfg, || {
            let mut pipe = TPipe::new();
            assert_eq!(pipe.fetch_event_id::<HardEvent::M_MTE1>(), 3);
            // The matmul framework's pattern: wait for the L0 buffer's id, compute, set it again.
            wait_flag::<HardEvent::M_MTE1>(0);
            set_flag::<HardEvent::M_MTE1>(0);
            assert_fails("HardEvent::M_MTE1 id 1 is set twice without a WaitFlag in between", || {
                set_flag::<HardEvent::M_MTE1>(1)
            });
            assert_eq!(pipe.alloc_event_id::<HardEvent::M_MTE1>(), 3);
            pipe.release_event_id::<HardEvent::M_MTE1>(3);
            drop(pipe);
            // Waited for and released by the drop: free to set, and a new pipe presets them again.
            set_flag::<HardEvent::M_MTE1>(2);
            wait_flag::<HardEvent::M_MTE1>(2);
            let pipe = TPipe::new();
            assert_eq!(pipe.fetch_event_id::<HardEvent::M_MTE1>(), 3);
        });
    }
}

/// The other cores' pipes leave `M_MTE1` alone: a vector core of Ascend910B, a core outside a
/// launch, Ascend910 and Ascend310P.
#[test]
fn other_pipes_leave_m_mte1_free() {
    let aiv = CoreConfig { kernel_type: Some(KernelType::AivOnly), ..CoreConfig::single(Soc::Ascend910B) };
    let cfgs = [
        aiv,
        CoreConfig::single(Soc::Ascend910B),
        CoreConfig::single(Soc::Ascend910),
        CoreConfig::single(Soc::Ascend310P),
    ];
    for cfg in cfgs {
        run_on_core(cfg, || {
            let pipe = TPipe::new();
            assert_eq!(pipe.fetch_event_id::<HardEvent::M_MTE1>(), 0);
            assert_fails("HardEvent::M_MTE1 id 0 was never set", || wait_flag::<HardEvent::M_MTE1>(0));
        });
    }
}

/// A kernel that waits for a preset id and never sets it again would hang in the vendor's
/// `TPipe` destructor (its `WaitFlag`): here the drop fails, naming the id.
#[test]
fn a_consumed_preset_id_fails_the_pipe_drop() {
    run_on_core(CoreConfig::single(Soc::Ascend310B), || {
        let pipe = TPipe::new();
        wait_flag::<HardEvent::M_MTE1>(1);
        assert_fails(
            "TPipe::Destroy: HardEvent::M_MTE1 id 1 is not set when the TPipe is destroyed: on Ascend310B the TPipe sets \
             ids 0, 1 and 2 of HardEvent::M_MTE1 when it is created",
            move || drop(pipe),
        );
    });
}
