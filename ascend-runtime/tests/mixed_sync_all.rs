//! The hardware `SyncAll` in mixed kernels (`KernelType::MixAic1_1` / `MixAic1_2`,
//! Ascend910B), as the vendor builds it from cross-core flags (`SyncAllImpl`,
//! `impl/basic_api/dav_c220/kernel_operator_sync_impl.h`; the `SyncAll` page):
//! `SyncAll<false>()` meets every AIC and AIV of the launch; `SyncAll<true>()` (plain
//! `sync_all`) the cores of the caller's type. The data exchanged through GM around it is
//! exact and the sanitizer sees it ordered; without it the sanitizer reports the race.

use std::time::Duration;

use ascend_runtime::prelude::*;

fn mixed(kt: KernelType, blocks: u32) -> Launch {
    Launch::new(Soc::Ascend910B).block_dim(blocks).kernel_type(kt).timeout(Duration::from_secs(20))
}

fn gm<T: Element>(addr: GmAddr, len: usize) -> GlobalTensor<T> {
    let mut g = GlobalTensor::new();
    g.set_global_buffer(addr, len);
    g
}

#[track_caller]
fn expect_err(r: Result<LaunchStats, LaunchError>, needles: &[&str]) {
    let text = r.expect_err("the launch should fail").to_string();
    for n in needles {
        assert!(text.contains(n), "expected {n:?} in:\n{text}");
    }
}

/// How the exchange kernel synchronises.
#[derive(Clone, Copy, PartialEq)]
enum Sync {
    /// `SyncAll<false>()` on every core.
    All,
    /// `SyncAll<true>()` on the AIVs only; the AICs return at once.
    AivOnly,
    /// Nothing.
    None,
}

const ROUNDS: usize = 3;

/// Each round, AIV `i` writes `100 × round + i + 1` (MTE3) into its 32-byte slot of `vals`;
/// after the sync every AIV reads every slot (MTE2) and writes the sum into its slot of
/// `aiv_sums`, and with [`Sync::All`] every AIC reads them too (scalar, through the data
/// cache) into its slot of `aic_sums`; a second sync keeps the next round's writes after
/// this round's reads. Returns the launch's result, the AIVs' sums and the AICs'.
fn exchange(
    kt: KernelType,
    blocks: usize,
    sync: Sync,
) -> (Result<LaunchStats, LaunchError>, Vec<i32>, Vec<i32>) {
    let aivs = blocks * kt.aiv_per_block() as usize;
    let vals = GmBuffer::<i32>::zeroed(aivs * 8);
    let aiv_sums = GmBuffer::<i32>::zeroed(ROUNDS * aivs * 8);
    let aic_sums = GmBuffer::<i32>::zeroed(ROUNDS * blocks * 16);
    let (va, sa, ca) = (vals.addr(), aiv_sums.addr(), aic_sums.addr());
    let r = mixed(kt, blocks as u32).run(move || {
        let (v, s, c) =
            (gm::<i32>(va, aivs * 8), gm::<i32>(sa, ROUNDS * aivs * 8), gm::<i32>(ca, ROUNDS * blocks * 16));
        let meet = || match sync {
            Sync::All => sync_all_with::<false>(),
            Sync::AivOnly => sync_all(),
            Sync::None => {}
        };
        if ascend_is_aiv() {
            let me = get_block_idx() as usize;
            let mine = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 8);
            let all = LocalTensor::<i32>::new(TPosition::VECCALC, 32, aivs * 8);
            let out = LocalTensor::<i32>::new(TPosition::VECCALC, 32 + aivs * 32, 8);
            for round in 0..ROUNDS {
                duplicate(&mine, (100 * round + me + 1) as i32, 8);
                set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                data_copy(&v.view(me * 8), &mine, 8);
                set_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
                wait_flag::<HardEvent::MTE3_MTE2>(EVENT_ID0);
                meet();
                data_copy(&all, &v, aivs * 8);
                set_flag::<HardEvent::MTE2_S>(EVENT_ID0);
                wait_flag::<HardEvent::MTE2_S>(EVENT_ID0);
                let sum: i32 = (0..aivs).map(|i| all.get_value(i * 8)).sum();
                duplicate(&out, sum, 8);
                set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                data_copy(&s.view((round * aivs + me) * 8), &out, 8);
                pipe_barrier::<PIPE_ALL>();
                meet();
            }
        } else if sync == Sync::All {
            let b = get_block_idx() as usize;
            for round in 0..ROUNDS {
                meet();
                let mut sum = 0;
                for i in 0..aivs {
                    data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(&v.view(i * 8));
                    sum += v.get_value(i * 8);
                }
                c.set_value((round * blocks + b) * 16, sum);
                data_cache_clean_and_invalid::<i32, SingleCacheLine, CachelineOut>(
                    &c.view((round * blocks + b) * 16),
                );
                meet();
            }
        }
    });
    let pick = |v: Vec<i32>, stride: usize| v.into_iter().step_by(stride).collect::<Vec<i32>>();
    (r, pick(aiv_sums.to_vec(), 8), pick(aic_sums.to_vec(), 16))
}

/// The sum every core should see in `round` with `aivs` AIVs.
fn want(round: usize, aivs: usize) -> i32 {
    (0..aivs).map(|i| (100 * round + i + 1) as i32).sum()
}

/// `SyncAll<false>()` on 3 blocks of MIX 1:2 (3 AICs, 6 AIVs) and 2 blocks of MIX 1:1, three
/// rounds each (every `SyncAll` consumes its flags' rounds; the kernel ends with every counter
/// at zero): every AIV and every AIC sees every AIV's value of the round.
#[test]
fn sync_all_false_meets_every_aic_and_aiv() {
    for (kt, blocks) in [(KernelType::MixAic1_2, 3), (KernelType::MixAic1_1, 2)] {
        let aivs = blocks * kt.aiv_per_block() as usize;
        let (r, aiv, aic) = exchange(kt, blocks, Sync::All);
        r.unwrap();
        for round in 0..ROUNDS {
            assert_eq!(
                aiv[round * aivs..(round + 1) * aivs],
                vec![want(round, aivs); aivs][..],
                "{kt:?} AIVs"
            );
            assert_eq!(
                aic[round * blocks..(round + 1) * blocks],
                vec![want(round, aivs); blocks][..],
                "{kt:?} AICs"
            );
        }
    }
}

/// `SyncAll<true>()` (`sync_all`) in a mixed kernel: the AIVs meet among themselves (the AICs
/// return at once and are not waited for), and the exchange between AIVs is exact.
#[test]
fn sync_all_true_in_a_mixed_kernel_meets_the_aivs() {
    let (r, aiv, aic) = exchange(KernelType::MixAic1_2, 2, Sync::AivOnly);
    r.unwrap();
    for round in 0..ROUNDS {
        assert_eq!(aiv[round * 4..(round + 1) * 4], vec![want(round, 4); 4][..]);
    }
    assert!(aic.iter().all(|&x| x == 0));
}

/// Without the `SyncAll` the AIVs' reads race with the other AIVs' writes: the sanitizer
/// reports it.
#[test]
fn without_sync_all_the_sanitizer_reports_the_race() {
    let (r, _, _) = exchange(KernelType::MixAic1_2, 1, Sync::None);
    expect_err(r, &["cross-core race on global memory", "(AIV "]);
}

/// `SyncAll<false>()` waited for by cores that never come, outside a mixed kernel, and the
/// software form in a mixed kernel: errors naming `SyncAll`.
#[test]
fn sync_all_errors_in_and_out_of_mixed_kernels() {
    // The AICs wait for their AIVs, which return from the kernel: a hang on the chip.
    expect_err(
        mixed(KernelType::MixAic1_2, 1).run(|| {
            if ascend_is_aic() {
                sync_all_with::<false>();
            }
        }),
        &["SyncAll", "CrossCoreWaitFlag(12)"],
    );
    // The AIVs wait for their AIC, which returns: either the AIVs' wait fails, or (when the
    // AIC ends after the AIVs' round reached it) the AIC ends with flag 12's round unwaited.
    let e = mixed(KernelType::MixAic1_1, 2)
        .run(|| {
            if ascend_is_aiv() {
                sync_all_with::<false>();
            }
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("SyncAll") && (e.contains("CrossCoreWaitFlag(13)") || e.contains("flag 12")), "{e}");
    expect_err(
        mixed(KernelType::AivOnly, 2).sync_all(true).run(sync_all_with::<false>),
        &["SyncAll", "KernelType::AivOnly, not mixed"],
    );
    expect_err(
        mixed(KernelType::MixAic1_1, 1).run(|| {
            if ascend_is_aiv() {
                let region = GmRegion::zeroed(64);
                let mut ws = GlobalTensor::<i32>::new();
                ws.set_global_buffer(region.addr(), 16);
                let ub = LocalTensor::<i32>::new(TPosition::VECCALC, 0, 16);
                sync_all_soft::<true>(&ws, &ub, 0);
            }
        }),
        &["software SyncAll", "not emulated in a mixed kernel"],
    );
}
