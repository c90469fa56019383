//! The advanced API's `Sigmoid` (`adv/activation.rs`) against a slow, obviously correct scalar
//! reference that takes the vendor's steps one element at a time with the instructions'
//! roundings: `m = -x`, `e = exp(m)` (rounded once from `f64`), `a = e + 1`, `1 / a` — for `half`
//! each step rounded to `half` (`+`, `/` from `f32`). Every supported chip (the counter-mode
//! path of Ascend910B and Ascend310P, the normal-mode repeats of Ascend910), random counts and
//! scratch sizes that leave several rounds and a tail, both forms, then the scratch and mask
//! state afterwards, the vendor's worked example and every error.

use ascend_core::prelude::*;

use crate::common::util;
use util::{expect_panic, on, ub, Rng};

/// The element types of `Sigmoid`, with the reference's steps.
trait Ref: SigmoidElement {
    fn from_f32(x: f32) -> Self;
    fn sigmoid_ref(x: Self) -> Self;
}

impl Ref for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }
    fn sigmoid_ref(x: f32) -> f32 {
        let e = f64::from(-x).exp() as f32;
        1.0 / (e + 1.0)
    }
}

impl Ref for f16 {
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn sigmoid_ref(x: f16) -> f16 {
        let e = f16::from_f64((-x).to_f64().exp());
        let a = f16::from_f32(e.to_f32() + 1.0);
        f16::from_f32(1.0 / a.to_f32())
    }
}

const CHIPS: [Soc; 3] = [Soc::Ascend910, Soc::Ascend910B, Soc::Ascend310P];

/// Runs `Sigmoid` on `count` random elements in `[-10, 10]` with a scratch of `tmp_bytes`
/// (the stack buffer when `None`) on `soc`; checks the result bit for bit, the elements past
/// `count` untouched, and the mask state afterwards.
fn check<T: Ref>(soc: Soc, count: usize, tmp_bytes: Option<usize>, seed: u64) {
    on(soc, || {
        let mut rng = Rng(seed);
        let len = count.next_multiple_of(32 / T::SIZE) + 32 / T::SIZE;
        let bytes = len * T::SIZE;
        let tmp = tmp_bytes.unwrap_or(0).next_multiple_of(32);
        let u = ub(2 * bytes + tmp);
        let (src, dst) = (u.t::<T>(0, len), u.t::<T>(bytes, len));
        let xs: Vec<T> = (0..len).map(|_| T::from_f32(rng.below(20_001) as f32 / 1000.0 - 10.0)).collect();
        src.copy_from_slice(&xs);
        let sentinel = T::from_f32(7.0);
        dst.copy_from_slice(&vec![sentinel; len]);
        // A stale mode and mask, which the call must leave reset.
        if soc != Soc::Ascend910 {
            set_mask_count();
        }
        set_vector_mask::<T>(3u64);
        match tmp_bytes {
            Some(n) => sigmoid::<_, false>(&dst, &src, &u.t::<u8>(2 * bytes, n), count),
            None => sigmoid_stack::<_, false>(&dst, &src, count),
        }
        let got = dst.to_vec();
        for i in 0..len {
            let want = if i < count { T::sigmoid_ref(xs[i]) } else { sentinel };
            assert_eq!(
                got[i].to_bits_u64(),
                want.to_bits_u64(),
                "{soc}, {} count {count}, tmp {tmp_bytes:?}: element {i} (x = {:?}) is {:?}, want {want:?}",
                T::DTYPE,
                xs[i],
                got[i]
            );
        }
        assert_eq!(get_mask_mode(), MaskMode::Normal);
        assert_eq!(get_vector_mask(), [u64::MAX, u64::MAX]);
        assert_eq!(src.to_vec(), xs, "src is never written");
    });
}

#[test]
fn sigmoid_matches_the_reference_on_every_chip_both_types_and_forms() {
    let mut rng = Rng(11);
    for soc in CHIPS {
        for case in 0..12 {
            let count = 1 + rng.index(3000);
            // Scratch from one 32-byte block (several rounds and a tail) to more than needed.
            let tmp = 32 * (1 + rng.index(if case % 2 == 0 { 8 } else { 400 }));
            check::<f32>(soc, count, Some(tmp), rng.next());
            check::<f16>(soc, count, Some(tmp), rng.next());
        }
        check::<f32>(soc, 2000, None, 5);
        check::<f16>(soc, 4000, None, 6);
    }
}

#[test]
fn ascend910_splits_a_round_into_255_repeats_the_rest_and_a_tail() {
    // 17,000 floats in one round: 265 full repeats (255 + 10) and a tail of 40.
    check::<f32>(Soc::Ascend910, 17_000, Some(17_000 * 4), 3);
    // 33,000 halves: 257 repeats (255 + 2) and a tail of 104.
    check::<f16>(Soc::Ascend910, 33_000, Some(33_000 * 2), 4);
}

#[test]
fn the_scratch_holds_the_ones_of_the_last_round() {
    for soc in CHIPS {
        on(soc, || {
            let u = ub(2048 + 256);
            let (src, dst, tmp) = (u.t::<f32>(0, 256), u.t::<f32>(1024, 256), u.t::<u8>(2048, 256));
            src.copy_from_slice(&[0.0; 256]);
            tmp.copy_from_slice(&[0xAA; 256]);
            // 64-element rounds (256 bytes): 3 full rounds and a tail of 8.
            sigmoid::<_, false>(&dst, &src, &tmp, 200);
            let t = tmp.reinterpret_cast::<f32>().to_vec();
            assert!(t.iter().all(|&v| v == 1.0), "{soc}: every round fills the 64 scratch floats with 1");
            assert!(dst.to_vec()[..200].iter().all(|&v| v == 0.5));
        });
    }
}

#[test]
fn sigmoid_matches_the_vendors_worked_example() {
    let x: [f32; 32] = [
        -100., -50., -20., -10., -5., -4., -3., -2., -1., -0.5, -0.4, -0.3, -0.2, -0.1, -0.01, 0., 0., 0.01,
        0.1, 0.2, 0.3, 0.4, 0.5, 1., 2., 3., 4., 5., 10., 20., 50., 100.,
    ];
    // The page's printout (numpy, 8 decimals).
    let want: [f64; 32] = [
        0., 0., 0., 0.0000454, 0.00669285, 0.01798621, 0.04742587, 0.11920292, 0.26894142, 0.37754067,
        0.40131234, 0.42555748, 0.450166, 0.47502081, 0.49750002, 0.5, 0.5, 0.50249998, 0.52497919, 0.549834,
        0.57444252, 0.59868766, 0.62245933, 0.73105858, 0.88079708, 0.95257413, 0.98201379, 0.99330715,
        0.9999546, 1., 1., 1.,
    ];
    on(Soc::Ascend910B, || {
        let u = ub(2 * 128 + 256);
        let (src, dst) = (u.t::<f32>(0, 32), u.t::<f32>(128, 32));
        src.copy_from_slice(&x);
        sigmoid::<_, false>(&dst, &src, &u.t::<u8>(256, 256), 32);
        let got = dst.to_vec();
        for i in 0..32 {
            assert_eq!(got[i], f32::sigmoid_ref(x[i]));
            // Half a unit of the 8th decimal, plus the float's own rounding.
            let tol = 5e-9 + f64::from(f32::EPSILON) * want[i];
            assert!(
                (f64::from(got[i]) - want[i]).abs() <= tol,
                "x = {}: {} against the page's {}",
                x[i],
                got[i],
                want[i]
            );
        }
    });
}

#[test]
fn sigmoid_reports_each_broken_constraint() {
    expect_panic(
        || {
            on(Soc::Ascend310B, || {
                let u = ub(512);
                sigmoid::<_, false>(&u.t::<f32>(0, 8), &u.t::<f32>(32, 8), &u.t::<u8>(64, 256), 8);
            })
        },
        &[
            "Sigmoid: Sigmoid has no implementation on Ascend310B",
            "it runs on Ascend910, Ascend910B, Ascend310P",
        ],
    );
    let run = |f: &dyn Fn(&util::Ub)| {
        on(Soc::Ascend910B, || {
            let u = ub(1024);
            f(&u)
        })
    };
    expect_panic(
        || run(&|u| sigmoid::<_, false>(&u.t::<f32>(0, 8), &u.t::<f32>(32, 16), &u.t::<u8>(128, 256), 16)),
        &["Sigmoid: calCount = 16 exceeds dstTensor's 8 float elements"],
    );
    expect_panic(
        || run(&|u| sigmoid::<_, false>(&u.t::<f32>(0, 16), &u.t::<f32>(64, 8), &u.t::<u8>(128, 256), 16)),
        &["Sigmoid: calCount = 16 exceeds srcTensor's 8 float elements"],
    );
    expect_panic(
        || run(&|u| sigmoid::<_, false>(&u.t::<f32>(0, 8), &u.t::<f32>(32, 8), &u.t::<u8>(64, 2), 8)),
        &["Sigmoid: sharedTmpBuffer has 2 bytes, less than one float element"],
    );
    expect_panic(
        || run(&|u| sigmoid::<_, false>(&u.t::<f32>(0, 16), &u.t::<f32>(32, 16), &u.t::<u8>(128, 256), 16)),
        &["Sigmoid: dst UB bytes [0x0, 0x40) overlap src UB bytes [0x20, 0x60)"],
    );
    expect_panic(
        || run(&|u| sigmoid::<_, false>(&u.t::<f32>(0, 8), &u.t::<f32>(64, 8), &u.t::<u8>(32, 256), 8)),
        &["Sigmoid: sharedTmpBuffer UB bytes [0x20, 0x120) overlap src UB bytes [0x40, 0x60)"],
    );
    // The stack form needs a pipe with room after its buffers.
    expect_panic(
        || {
            on(Soc::Ascend310P, || {
                let mut pipe = TPipe::new();
                let mut b = TBuf::<VecCalc>::new();
                pipe.init_tbuf(&mut b, Soc::Ascend310P.ub_size());
                let t = b.get::<f16>();
                sigmoid_stack::<_, false>(&t.view_len(0, 16), &t.view_len(16, 16), 16);
            })
        },
        &["Sigmoid: no space left in the Unified Buffer for the stack buffer"],
    );
}

#[test]
fn the_host_tiling_gives_the_vendors_sizes() {
    assert_eq!(get_sigmoid_max_min_tmp_size(1024, 2, false), (2048, 256));
    assert_eq!(get_sigmoid_max_min_tmp_size(1024, 4, false), (4096, 256));
    assert_eq!(get_sigmoid_max_min_tmp_size(32, 4, false), (256, 256));
    expect_panic(
        || {
            get_sigmoid_max_min_tmp_size(0, 4, false);
        },
        &["size must be greater than 0"],
    );
    expect_panic(
        || {
            get_sigmoid_max_min_tmp_size(8, 1, false);
        },
        &["typeSize = 1 is unsupported; it must be 2 or 4"],
    );
    expect_panic(
        || {
            get_sigmoid_max_min_tmp_size(8, 2, true);
        },
        &["isReuseSource = true is not supported"],
    );
}
