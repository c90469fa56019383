//! Line-by-line port of the vendor's `gm_by_dcache` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/09_utils/gm_by_dcache`): each of 4 cores sums its
//! row into a GM workspace with `ReduceRepeat`, then raises a flag with a scalar `SetValue`
//! cleaned out of its data cache by `DataCacheCleanAndInvalid`; core 0 polls the flags
//! (invalidating each line before each `GetValue`) and sums the partial sums.
//!
//! A correct kernel: the sanitizer must find nothing, though core 0 reads flags and partial
//! sums other cores write with no `SyncAll` — the clean releases the writer's line and the
//! read of the freshly invalidated line acquires it. Each planted mistake is then one the
//! hardware punishes: a flag never cleaned (it stays in the writer's cache: core 0 spins), a
//! flag read without invalidating (core 0 spins on its stale copy), a flag raised before the
//! partial sum's `DataCopy` is known done (core 0 sums stale data), two flags in one cache
//! line (the lines' write-backs overwrite each other, the vendor page's example 3).

use ascend_runtime::prelude::*;

const TILE_NUM: usize = 4;
const TILE_LENGTH: usize = 1024;
const REPEAT_LENGTH: usize = 256 / 4;
const REPEAT_TIMES: usize = TILE_LENGTH / REPEAT_LENGTH;
/// `int32_t` elements of the workspace: the partial sums, then a 64-byte flag per core.
const WORKSPACE_LEN: usize = TILE_NUM * (TILE_LENGTH * 4 / 256) * 4 + TILE_NUM * 64;

/// What the kernel gets wrong.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bug {
    None,
    /// The flag's `SetValue` is not cleaned out of the data cache.
    NoClean,
    /// Core 0 reads the flags without invalidating their lines first.
    NoInvalidate,
    /// The flag is raised without `SetFlag`/`WaitFlag<HardEvent::MTE3_S>` after the partial
    /// sum's `DataCopy`.
    NoMte3S,
    /// The flags are 4 bytes apart instead of 64: every flag in one cache line.
    SharedLine,
}

/// Bytes between two cores' flags.
fn flag_stride(bug: Bug) -> usize {
    if bug == Bug::SharedLine {
        4
    } else {
        64
    }
}

/// `WaitBlocksReady<TILE_NUM>`: polls every core's flag until each holds its core index.
fn wait_blocks_ready(bug: Bug, flag_workspace: GmAddr) {
    let mut flag_gm = GlobalTensor::<i32>::new();
    flag_gm.set_global_buffer(flag_workspace, TILE_NUM * 16);

    let mut not_ready = true;
    while not_ready {
        not_ready = false;
        for i in 0..TILE_NUM {
            let index = i * flag_stride(bug) / 4;
            if bug != Bug::NoInvalidate {
                data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&flag_gm.view(index));
            }
            let flag = flag_gm.get_value(index); // POLL
            if flag != i as i32 {
                not_ready = true;
                break;
            }
        }
    }
}

/// `gm_by_dcache_custom<float, TILE_NUM, TILE_LENGTH>`.
fn gm_by_dcache_custom(bug: Bug, x: GmAddr, workspace: GmAddr, z: GmAddr) {
    init_soc_state();
    let block_idx = get_block_idx() as usize;
    let flag_workspace = workspace.add::<i32>(TILE_NUM * REPEAT_TIMES * 4 / 4);

    let mut x_gm = GlobalTensor::<f32>::new();
    let mut reduce_tmp_gm = GlobalTensor::<f32>::new();
    let mut flag_gm = GlobalTensor::<i32>::new();
    x_gm.set_global_buffer(x.add::<f32>(block_idx * TILE_LENGTH), TILE_LENGTH);
    reduce_tmp_gm
        .set_global_buffer(workspace.add::<i32>(block_idx * REPEAT_TIMES * 4 / 4), TILE_NUM * REPEAT_TIMES);
    flag_gm.set_global_buffer(flag_workspace.add::<i32>(block_idx * flag_stride(bug) / 4), 1);

    let mut ub_allocator = LocalMemAllocator::<Ub>::new();
    let src_local = ub_allocator.alloc::<f32>(TILE_LENGTH);
    let dst_local = ub_allocator.alloc::<f32>(REPEAT_TIMES);

    data_copy(&src_local, &x_gm, TILE_LENGTH);

    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    reduce_repeat::<f32, true>(
        ReduceType::SUM,
        &dst_local,
        &src_local,
        REPEAT_LENGTH as u64,
        REPEAT_TIMES as u8,
        1,
        1,
        8,
        ReduceOrder::ORDER_VALUE_INDEX,
    );

    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
    data_copy(&reduce_tmp_gm, &dst_local, REPEAT_TIMES); // PARTIAL

    if bug != Bug::NoMte3S {
        set_flag::<HardEvent::MTE3_S>(EVENT_ID0);
        wait_flag::<HardEvent::MTE3_S>(EVENT_ID0);
    }
    flag_gm.set_value(0, block_idx as i32); // FLAG
    if bug != Bug::NoClean {
        data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&flag_gm);
    }

    if block_idx > 0 {
        return;
    }

    wait_blocks_ready(bug, flag_workspace);

    let mut z_gm = GlobalTensor::<f32>::new();
    z_gm.set_global_buffer(z, 1);

    set_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
    wait_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
    data_copy(&src_local, &reduce_tmp_gm, TILE_NUM * REPEAT_TIMES); // GATHER

    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
    reduce_repeat::<f32, true>(
        ReduceType::SUM,
        &dst_local,
        &src_local,
        REPEAT_LENGTH as u64,
        1,
        1,
        1,
        8,
        ReduceOrder::ORDER_VALUE_INDEX,
    );

    set_flag::<HardEvent::MTE3_S>(EVENT_ID0);
    wait_flag::<HardEvent::MTE3_S>(EVENT_ID0);
    z_gm.set_value(0, dst_local.get_value(0));

    pipe_barrier::<PIPE_ALL>();
}

/// `main`: x[i] = (i % 100) * 0.1, the workspace zeroed; returns z[0], the golden sum and
/// the launch's result.
fn run(bug: Bug) -> (f32, f32, Result<(), LaunchError>) {
    let x: Vec<f32> = (0..TILE_NUM * TILE_LENGTH).map(|i| (i % 100) as f32 * 0.1).collect();
    let golden: f32 = x.iter().sum();
    let xg = GmBuffer::from_vec(x);
    let workspace = GmBuffer::<i32>::zeroed(WORKSPACE_LEN);
    let zg = GmBuffer::<f32>::zeroed(1);
    let (xa, wa, za) = (xg.addr(), workspace.addr(), zg.addr());
    // Core 0 polls the others' flags: a thread per core, so that they run meanwhile.
    let r = Launch::new(Soc::Ascend910B)
        .block_dim(TILE_NUM as u32)
        .sync_all(true)
        .run(move || gm_by_dcache_custom(bug, xa, wa, za))
        .map(drop);
    (zg.to_vec()[0], golden, r)
}

/// The line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    let src = include_str!("gm_by_dcache.rs");
    1 + src.lines().position(|l| l.contains(marker) && !l.contains("line_of")).expect("marker") as u32
}

/// Runs `bug`, which must fail with a cross-core race naming the lines of `markers` and
/// holding every one of `needles`.
#[track_caller]
fn expect_race(bug: Bug, markers: [&str; 2], needles: &[&str]) {
    let (_, _, r) = run(bug);
    let e = r.expect_err("the planted mistake must be caught");
    let f = e.primary().expect("a fault");
    let text = f.to_string();
    assert!(text.contains("cross-core race on global memory"), "{text}");
    for m in markers {
        let at = format!("gm_by_dcache.rs:{}", line_of(m));
        assert!(text.contains(&at), "expected {at:?} in:\n{text}");
    }
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
}

#[test]
fn the_correct_kernel_passes() {
    let (z, golden, r) = run(Bug::None);
    r.unwrap();
    // `VerifyResult` allows 1e-3 (absolute) against a sequential sum; the kernel sums in a
    // tree (64-element repeats, then their 64 partial sums), so the two differ in rounding
    // only: a few ulps of the ~20 000 total.
    assert!((z - golden).abs() <= 4.0 * f32::EPSILON * golden, "{z} vs {golden}");
}

#[test]
fn a_flag_never_cleaned_out_of_the_data_cache_is_caught() {
    expect_race(Bug::NoClean, ["FLAG", "POLL"], &["write stays in its data cache", "CACHELINE_OUT"]);
}

#[test]
fn a_flag_read_without_invalidating_its_line_is_caught() {
    expect_race(Bug::NoInvalidate, ["FLAG", "POLL"], &["stale copy", "before each GetValue"]);
}

#[test]
fn a_flag_raised_before_the_partial_sum_is_known_written_is_caught() {
    expect_race(Bug::NoMte3S, ["PARTIAL", "GATHER"], &["DataCopy"]);
}

#[test]
fn two_flags_in_one_cache_line_are_caught() {
    expect_race(Bug::SharedLine, ["FLAG", "FLAG"], &["whole 64-byte data-cache line"]);
}
