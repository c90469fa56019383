//! The errors a newcomer meets first read well and point at the kernel's own line.
//!
//! `LaunchError`'s `Debug` is its `Display` text, so `.unwrap()` on a failed launch prints the
//! message as it reads. Every check a kernel's call fails names the kernel's file and line —
//! not a line inside `ascend-core` — also where the check runs inside a closure of the library
//! (the event calls, `printf`, the pipe and allocator constructors, the atomic modes), where
//! `#[track_caller]` alone does not reach.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};

use ascend_runtime::prelude::*;

/// Runs `$call` after storing the line it is written on in `$line` (`line!()` inside a macro
/// is the line of the macro's invocation, where `$call`'s tokens are too).
macro_rules! at {
    ($line:ident, $call:expr) => {{
        $line.store(line!(), Ordering::Relaxed);
        $call
    }};
}

/// Launches `kernel` on one core of `soc` (of `kernel_type`), which must fail, and asserts
/// that its one fault is `api`'s, with a message containing `needle`, at this file's line
/// stored in `line` by the kernel.
fn assert_at(
    soc: Soc,
    kernel_type: KernelType,
    api: &str,
    needle: &str,
    line: &AtomicU32,
    kernel: impl Fn() + Sync,
) {
    let err = Launch::new(soc)
        .kernel_type(kernel_type)
        .mode(ExecMode::Sequential)
        .quiet(true)
        .run(kernel)
        .expect_err("the kernel must fail");
    let f = err.primary().expect("a core fault");
    assert_eq!(f.api, api, "{err}");
    assert!(f.message.contains(needle), "`{needle}` not in: {err}");
    assert_eq!((f.file.as_str(), f.line), (file!(), line.load(Ordering::Relaxed)), "{err}");
    assert!(err.to_string().ends_with(&format!("(at {}:{})", file!(), f.line)), "{err}");
}

/// [`assert_at`] for a vector kernel on Ascend910B.
fn assert_vec_at(api: &str, needle: &str, line: &AtomicU32, kernel: impl Fn() + Sync) {
    assert_at(Soc::Ascend910B, KernelType::AivOnly, api, needle, line, kernel)
}

#[test]
fn launch_error_debug_is_its_display_text() {
    let x = GmBuffer::<f32>::zeroed(8);
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(2)
        .quiet(true)
        .run(|| {
            let mut g = GlobalTensor::<f32>::new();
            g.set_global_buffer(x.addr(), 8);
            if get_block_idx() == 1 {
                let (mut pipe, mut buf) = (TPipe::new(), TBuf::<VecCalc>::new());
                pipe.init_tbuf(&mut buf, 32);
                data_copy(&buf.get::<f32>(), &g, 7);
            }
        })
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("kernel failed on Ascend910B (blockDim = 2, pooled mode): core 1: DataCopy: "),
        "{text}"
    );
    assert_eq!(format!("{err:?}"), text);
    // The structured form stays available.
    let pretty = format!("{err:#?}");
    assert!(pretty.starts_with("CoreFailed {\n    soc: Ascend910B,\n    block_dim: 2,"), "{pretty}");

    // What `.unwrap()` prints: the message, not a struct dump.
    let panic = catch_unwind(AssertUnwindSafe(|| {
        std::hint::black_box(Err::<(), LaunchError>(err.clone())).unwrap();
    }))
    .unwrap_err();
    let msg = panic.downcast_ref::<String>().expect("a formatted panic message");
    assert_eq!(*msg, format!("called `Result::unwrap()` on an `Err` value: {text}"));

    let err = Launch::new(Soc::Ascend910B).block_dim(0).run(|| {}).unwrap_err();
    assert_eq!(format!("{err:?}"), "launch: blockDim = 0 is out of range [1, 65535]");
    assert_eq!(format!("{err:#?}"), "InvalidBlockDim {\n    block_dim: 0,\n}");
}

#[test]
fn set_flag_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("SetFlag", "is set twice without a WaitFlag", &line, || {
        set_flag::<HardEvent::MTE2_V>(1);
        at!(line, set_flag::<HardEvent::MTE2_V>(1));
    });
    assert_vec_at(
        "SetFlag",
        "eventID = 8 of HardEvent::MTE2_V is out of range [0, 8) on Ascend910B",
        &line,
        || {
            at!(line, set_flag::<HardEvent::MTE2_V>(8));
        },
    );
    assert_vec_at("SetFlag", "eventID = -1", &line, || {
        at!(line, set_flag_event(HardEventKind::between(pipe_t::PIPE_V, pipe_t::PIPE_MTE3).unwrap(), -1));
    });
}

#[test]
fn wait_flag_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("WaitFlag", "was never set", &line, || {
        at!(line, wait_flag::<HardEvent::V_MTE3>(0));
    });
    assert_vec_at(
        "WaitFlag",
        "eventID = 8 of HardEvent::MTE2_V is out of range [0, 8) on Ascend910B",
        &line,
        || {
            set_flag::<HardEvent::MTE2_V>(3);
            wait_flag::<HardEvent::MTE2_V>(3);
            at!(line, wait_flag::<HardEvent::MTE2_V>(8));
        },
    );
}

#[test]
fn wait_flag_on_ascend910_points_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_at(
        Soc::Ascend910,
        KernelType::AivOnly,
        "WaitFlag",
        "out of range [0, 4) on Ascend910",
        &line,
        || {
            at!(line, wait_flag::<HardEvent::MTE2_V>(4));
        },
    );
}

#[test]
fn event_id_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("TPipe::ReleaseEventID", "HardEvent::V_S id 2 is not allocated", &line, || {
        let mut pipe = TPipe::new();
        at!(line, pipe.release_event_id::<HardEvent::V_S>(2));
    });
    assert_vec_at("TPipe::ReleaseEventID", "eventID = 9", &line, || {
        let mut pipe = TPipe::new();
        at!(line, pipe.release_event_id::<HardEvent::V_S>(9));
    });
    assert_vec_at("TPipe::AllocEventID", "all 8 ids of HardEvent::V_S are allocated", &line, || {
        let mut pipe = TPipe::new();
        for _ in 0..8 {
            pipe.alloc_event_id::<HardEvent::V_S>();
        }
        at!(line, pipe.alloc_event_id::<HardEvent::V_S>());
    });
    assert_vec_at("TPipe::FetchEventID", "all 8 ids of HardEvent::V_S are allocated", &line, || {
        let mut pipe = TPipe::new();
        for _ in 0..8 {
            pipe.alloc_event_id::<HardEvent::V_S>();
        }
        at!(line, pipe.fetch_event_id::<HardEvent::V_S>());
    });
}

#[test]
fn printf_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("printf", "argument 1 is Float(1.5), but %d", &line, || {
        at!(line, ascend_printf!("%d\n", 1.5f32));
    });
    assert_vec_at("printf", "needs a float", &line, || {
        at!(line, ascend_printf!("%d %f\n", 1, 2));
    });
    assert_vec_at("printf", "needs a string", &line, || {
        at!(line, ascend_printf!("%s\n", 2));
    });
    assert_vec_at("printf", "unknown conversion %q", &line, || {
        at!(line, ascend_printf!("%q\n", 2));
    });
    assert_vec_at("printf", "more conversions than the 1 argument(s)", &line, || {
        at!(line, ascend_printf!("%d %d\n", 2));
    });
    assert_vec_at("printf", "has 1 conversion(s) but 2 arguments", &line, || {
        at!(line, ascend_printf!("%d\n", 2, 3));
    });
}

#[test]
fn dump_tensor_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("DumpTensor", "dump_size = 9 exceeds", &line, || {
        let (mut pipe, mut buf) = (TPipe::new(), TBuf::<VecCalc>::new());
        pipe.init_tbuf(&mut buf, 32);
        let t = buf.get::<f32>();
        at!(line, dump_tensor(&t, 0, 9));
    });
}

#[test]
fn pipe_and_allocator_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("TPipe", "a TPipe is already alive", &line, || {
        let _pipe = TPipe::new();
        at!(line, TPipe::new());
    });
    assert_vec_at("TPipe", "a LocalMemAllocator<Ub> is alive", &line, || {
        let _ub = LocalMemAllocator::<Ub>::new();
        at!(line, TPipe::new());
    });
    assert_vec_at("LocalMemAllocator", "a TPipe is alive", &line, || {
        let _pipe = TPipe::new();
        at!(line, LocalMemAllocator::<Ub>::new());
    });
    assert_vec_at("LocalMemAllocator", "is already alive", &line, || {
        let _ub = LocalMemAllocator::<Ub>::new();
        at!(line, LocalMemAllocator::<Ub>::new());
    });
}

#[test]
fn memory_of_the_other_core_type_points_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_vec_at("LocalMemAllocator", "a memory of the cube core (AIC)", &line, || {
        at!(line, LocalMemAllocator::<L1>::new());
    });
    assert_vec_at("LocalTensor", "a memory of the cube core (AIC)", &line, || {
        at!(line, LocalTensor::<f16>::new(TPosition::A1, 0, 16));
    });
    assert_at(
        Soc::Ascend910B,
        KernelType::AicOnly,
        "TPipe::InitBuffer",
        "has no Unified Buffer",
        &line,
        || {
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecCalc>::new();
            at!(line, pipe.init_tbuf(&mut buf, 32));
        },
    );
    assert_at(
        Soc::Ascend910B,
        KernelType::AivOnly,
        "TPipe::InitBuffer",
        "a memory of the cube core (AIC)",
        &line,
        || {
            let mut pipe = TPipe::new();
            let mut q = TQue::<A1, 1>::new();
            at!(line, pipe.init_buffer(&mut q, 1, 512));
        },
    );
}

#[test]
fn mode_errors_point_at_the_kernel() {
    let line = AtomicU32::new(0);
    assert_at(
        Soc::Ascend910,
        KernelType::AivOnly,
        "SetAtomicAdd",
        "T = half is not supported on Ascend910",
        &line,
        || {
            at!(line, set_atomic_add::<f16>());
        },
    );
    assert_at(
        Soc::Ascend910,
        KernelType::AivOnly,
        "SetAtomicType",
        "not supported on Ascend910",
        &line,
        || {
            at!(line, set_atomic_type::<f32>());
        },
    );
    assert_at(Soc::Ascend310P, KernelType::AivOnly, "SetAtomicType", "T = bfloat16", &line, || {
        at!(line, set_atomic_type::<bf16>());
    });
    assert_at(Soc::Ascend310P, KernelType::AivOnly, "SetOverflowMode", "saturation mode only", &line, || {
        at!(line, set_overflow_mode(OverflowMode::InfNan));
    });
}
