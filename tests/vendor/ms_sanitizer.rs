//! The vendor's msSanitizer example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/01_utilities/05_sanitizer/ms_sanitizer/ms_sanitizer.asc`): a
//! correct `Add` kernel, and the mistakes its README plants one at a time for the vendor's
//! `mssanitizer` to find on the device. Here the launch finds each of them, with a message
//! that names the line: the copy past the tensor (illegal read/write), the copy to the
//! unaligned `xLocal[5]` (misaligned access), the missing `MTE2_V` event (race check), and
//! `zGm` used without `SetGlobalBuffer` (init check). The host-side scenarios of that README
//! (a leaked or oversized `aclrtMalloc`) have no kernel-side counterpart.

use ascend_runtime::prelude::*;

const NUM_BLOCKS: u32 = 8;
const BLOCK_LENGTH: usize = 2048;

/// The mistake planted in the kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// `DataCopy(xLocal, xGm, blockLength * 2)`.
    CopyTooLong,
    /// `DataCopy(xLocal[5], xGm, blockLength)`.
    Unaligned,
    /// The `MTE2_V` `SetFlag`/`WaitFlag` removed.
    NoMte2V,
    /// `zGm.SetGlobalBuffer(...)` removed.
    NoSetGlobalBuffer,
}

/// `add_custom<float, blockLength>`.
fn add_custom(bug: Bug, x: GmAddr, y: GmAddr, z: GmAddr) {
    init_soc_state();
    let block_idx = get_block_idx() as usize;

    let mut x_gm = GlobalTensor::<f32>::new();
    let mut y_gm = GlobalTensor::<f32>::new();
    let mut z_gm = GlobalTensor::<f32>::new();
    x_gm.set_global_buffer(x.add::<f32>(block_idx * BLOCK_LENGTH), BLOCK_LENGTH);
    y_gm.set_global_buffer(y.add::<f32>(block_idx * BLOCK_LENGTH), BLOCK_LENGTH);
    if bug != Bug::NoSetGlobalBuffer {
        z_gm.set_global_buffer(z.add::<f32>(block_idx * BLOCK_LENGTH), BLOCK_LENGTH);
    }

    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let x_local = ub_allocator.alloc::<f32>(BLOCK_LENGTH);
    let y_local = ub_allocator.alloc::<f32>(BLOCK_LENGTH);
    let z_local = ub_allocator.alloc::<f32>(BLOCK_LENGTH);

    match bug {
        Bug::CopyTooLong => data_copy(&x_local, &x_gm, BLOCK_LENGTH * 2), // BUG-LONG
        Bug::Unaligned => data_copy(&x_local.view(5), &x_gm, BLOCK_LENGTH), // BUG-UNALIGNED
        _ => data_copy(&x_local, &x_gm, BLOCK_LENGTH),
    }
    data_copy(&y_local, &y_gm, BLOCK_LENGTH);

    if bug != Bug::NoMte2V {
        set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
        wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    }

    add(&z_local, &x_local, &y_local, BLOCK_LENGTH); // BUG-RACE

    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    data_copy(&z_gm, &z_local, BLOCK_LENGTH); // BUG-UNBOUND
    pipe_barrier::<PIPE_ALL>();
}

/// Runs the kernel with `bug` on the example's inputs (`x[i] = i * 0.1f`, `y[i] = i * 0.2f`);
/// the output and the launch's result.
fn run(bug: Bug) -> (Vec<f32>, Vec<f32>, Result<LaunchStats, LaunchError>) {
    let n = NUM_BLOCKS as usize * BLOCK_LENGTH;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.1f32).collect();
    let y: Vec<f32> = (0..n).map(|i| i as f32 * 0.2f32).collect();
    let (xg, yg, zg) =
        (GmBuffer::from_vec(x.clone()), GmBuffer::from_vec(y.clone()), GmBuffer::<f32>::zeroed(n));
    let (xa, ya, za) = (xg.addr(), yg.addr(), zg.addr());
    let r = Launch::new(Soc::Ascend910B).block_dim(NUM_BLOCKS).run(move || add_custom(bug, xa, ya, za));
    let golden: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    (zg.to_vec(), golden, r)
}

/// The line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    let src = include_str!("ms_sanitizer.rs");
    1 + src.lines().position(|l| l.contains(marker) && !l.contains("line_of")).expect("marker") as u32
}

#[track_caller]
fn expect_caught(bug: Bug, marker: &str, needles: &[&str]) {
    let (_, _, r) = run(bug);
    let e = r.expect_err("the planted mistake must be caught");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
    assert_eq!(f.line, line_of(marker), "{text}");
}

#[test]
fn the_correct_kernel_passes_bit_for_bit() {
    let (z, golden, r) = run(Bug::None);
    r.unwrap();
    // `VerifyResult` compares with std::equal: exact.
    assert_eq!(
        z.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        golden.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn illegal_read_write_a_copy_longer_than_the_tensor() {
    expect_caught(
        Bug::CopyTooLong,
        "BUG-LONG",
        &["DataCopy", "count = 4096 exceeds src's 2048 float elements"],
    );
}

#[test]
fn misaligned_access_a_copy_to_x_local_5() {
    expect_caught(
        Bug::Unaligned,
        "BUG-UNALIGNED",
        &["DataCopy", "dst UB address = 0x14 is not 32-byte aligned"],
    );
}

#[test]
fn race_check_add_reads_before_the_copy_in_is_done() {
    expect_caught(
        Bug::NoMte2V,
        "BUG-RACE",
        &["read-after-write race", "DataCopy on pipe MTE2", "SetFlag<HardEvent::MTE2_V>"],
    );
}

#[test]
fn init_check_z_gm_without_set_global_buffer() {
    expect_caught(
        Bug::NoSetGlobalBuffer,
        "BUG-UNBOUND",
        &["DataCopy", "the GlobalTensor is not bound: call set_global_buffer first"],
    );
}
