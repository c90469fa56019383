//! DataCopy with SliceInfo (`data_copy_slice`): the docs' worked example and the vendor's unit
//! cases as exact vectors, a slow element-by-element reference over random slices, types,
//! directions and chips, the sanitizer's view of the copy, and every checked misuse.

use ascend_core::prelude::*;
use ascend_core::sanitizer::LaunchSanitizer;
use bytemuck::Pod;

use crate::common::util;
use util::{expect_panic, gm, on, ub, Rng};

use crate::common::prop as strat;
use proptest::prelude::*;

fn si(start: u32, end: u32, stride: u32, burst: u32, shape: u32) -> SliceInfo {
    SliceInfo::new(start, end, stride, burst, shape)
}

// ---------------------------------------------------------------- the reference

/// The element indices a slice selects, in the order the copy pairs them: row groups with
/// dimension 1 varying fastest (one row of each dimension above 0), in each group the pieces
/// of dimension 0 from left to right, each piece's elements in order. Straight from the docs:
/// dimension `i > 0` takes rows `startIndex, startIndex + 1 + stride, …, endIndex`; dimension
/// 0 takes pieces of `burstLen * 32 / sizeof(T)` elements from `startIndex`, `stride` elements
/// apart, up to `endIndex`.
fn ref_indices(info: &[SliceInfo], epb: usize) -> Vec<usize> {
    let dim = info.len();
    let mut pitch = vec![1usize; dim];
    for i in 1..dim {
        pitch[i] = pitch[i - 1] * info[i - 1].shape_value as usize;
    }
    let unit = info[0].burst_len as usize * epb;
    let mut pieces = Vec::new();
    let mut p = info[0].start_index as usize;
    while p + unit <= info[0].end_index as usize + 1 {
        pieces.push(p);
        p += unit + info[0].stride as usize;
    }
    let rows: Vec<Vec<usize>> = (1..dim)
        .map(|i| {
            (info[i].start_index..=info[i].end_index)
                .step_by(info[i].stride as usize + 1)
                .map(|r| r as usize)
                .collect()
        })
        .collect();
    let mut idx = vec![0usize; dim - 1];
    let mut out = Vec::new();
    loop {
        let base: usize = (1..dim).map(|i| rows[i - 1][idx[i - 1]] * pitch[i]).sum();
        for &p in &pieces {
            out.extend(base + p..base + p + unit);
        }
        let mut k = 0;
        loop {
            if k == dim - 1 {
                return out;
            }
            idx[k] += 1;
            if idx[k] < rows[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// `dst` after the copy: element `d[k]` takes `src[s[k]]`; the others keep their values.
fn ref_copy<T: Copy>(dst: &mut [T], src: &[T], dst_info: &[SliceInfo], src_info: &[SliceInfo], epb: usize) {
    let (d, s) = (ref_indices(dst_info, epb), ref_indices(src_info, epb));
    assert_eq!(d.len(), s.len(), "the test's slices must select as many elements");
    for (&di, &sj) in d.iter().zip(&s) {
        dst[di] = src[sj];
    }
}

fn random_vec<T: Element + Pod>(rng: &mut Rng, n: usize) -> Vec<T> {
    bytemuck::cast_slice(&rng.bytes(n * T::SIZE)).to_vec()
}

fn bytes_of<T: Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

// ---------------------------------------------------------------- the docs' example

/// docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/DataCopy（GM与UB切片数据搬运）.md, 图1 and
/// the call example (also examples/.../data_copy_gm2ub_slice/scripts/gen_data.py): from a
/// 3 x 87 float source, columns 16..40 and 47..71 of rows 0 and 2 packed into 2 x 48; then the
/// UB tensor back to GM with the destination's slice on both sides.
#[test]
fn docs_example_3x87_to_2x48_and_back() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        on(soc, || {
            let x: Vec<f32> = (0..3 * 87).map(|i| i as f32 * 0.5 - 7.0).collect();
            let (_xr, x_gm) = gm(&x);
            let (yr, y_gm) = gm(&[0f32; 96]);
            let u = ub(96 * 4);
            let local = u.t::<f32>(0, 96);
            let src_info = [si(16, 70, 7, 3, 87), si(0, 2, 1, 1, 3)];
            let dst_info = [si(0, 47, 0, 3, 48), si(0, 1, 0, 1, 2)];
            data_copy_slice(&local, &x_gm, &dst_info, &src_info, 2);
            // gen_data.py: golden[0, 0:24] = x[0, 16:40]; golden[0, 24:48] = x[0, 47:71];
            // golden[1, 0:24] = x[2, 16:40]; golden[1, 24:48] = x[2, 47:71].
            let row = |r: usize, a: usize, b: usize| x[r * 87 + a..r * 87 + b].to_vec();
            let golden = [row(0, 16, 40), row(0, 47, 71), row(2, 16, 40), row(2, 47, 71)].concat();
            util::assert_bits_ctx(&local.to_vec(), &golden, soc);
            data_copy_slice(&y_gm, &local, &dst_info, &dst_info, 2);
            let y: Vec<f32> = bytemuck::cast_slice(&yr.to_bytes()).to_vec();
            util::assert_bits_ctx(&y, &golden, soc);
        });
    }
}

/// The vendor's unit cases (tests/api/basic_api/ascendc_case_common/test_data_copy_slice.cpp):
/// per type, a 3-row source sliced into rows 0 and 2, two pieces each, packed into a 2-row
/// destination and copied back with the destination's slice on both sides. The expected
/// columns are spelled out by hand from the parameters.
macro_rules! vendor_case {
    ($name:ident, $t:ty, $src0:expr, $rows:expr, $dst0:expr, $cols:expr) => {
        #[test]
        fn $name() {
            let src_info = [$src0, si(0, 2, 1, 1, 3)];
            let dst_info = [$dst0, si(0, 1, 0, 1, 2)];
            let shape = src_info[0].shape_value as usize;
            let n = dst_info[0].shape_value as usize * 2;
            let mut rng = Rng(0x5EED ^ n as u64);
            let x: Vec<$t> = random_vec(&mut rng, $rows * shape);
            let (_xr, x_gm) = gm(&x);
            let (yr, y_gm) = gm(&vec![<$t as Element>::ZERO; n]);
            let u = ub(n * core::mem::size_of::<$t>());
            let local = u.t::<$t>(0, n);
            data_copy_slice(&local, &x_gm, &dst_info, &src_info, 2);
            let cols: &[(usize, usize)] = &$cols;
            let mut want = Vec::new();
            for r in [0usize, 2] {
                for &(a, b) in cols {
                    want.extend_from_slice(&x[r * shape + a..r * shape + b]);
                }
            }
            assert_eq!(bytes_of(&local.to_vec()), bytes_of(&want));
            data_copy_slice(&y_gm, &local, &dst_info, &dst_info, 2);
            assert_eq!(yr.to_bytes(), bytes_of(&want));
        }
    };
}
vendor_case!(
    vendor_case_i32_aligned_stride,
    i32,
    si(16, 71, 8, 3, 88),
    3,
    si(0, 47, 0, 3, 48),
    [(16, 40), (48, 72)]
);
vendor_case!(
    vendor_case_f32_aligned_stride,
    f32,
    si(16, 71, 8, 3, 88),
    3,
    si(0, 47, 0, 3, 48),
    [(16, 40), (48, 72)]
);
vendor_case!(
    vendor_case_i32_byte_stride,
    i32,
    si(16, 70, 7, 3, 87),
    3,
    si(0, 47, 0, 3, 48),
    [(16, 40), (47, 71)]
);
vendor_case!(
    vendor_case_f16_aligned_stride,
    f16,
    si(16, 63, 16, 1, 80),
    3,
    si(0, 31, 0, 1, 32),
    [(16, 32), (48, 64)]
);
vendor_case!(
    vendor_case_i16_aligned_stride,
    i16,
    si(16, 63, 16, 1, 80),
    3,
    si(0, 31, 0, 1, 32),
    [(16, 32), (48, 64)]
);
vendor_case!(
    vendor_case_f16_byte_stride,
    f16,
    si(16, 62, 15, 1, 80),
    3,
    si(0, 31, 0, 1, 32),
    [(16, 32), (47, 63)]
);
vendor_case!(
    vendor_case_i16_byte_stride,
    i16,
    si(16, 62, 15, 1, 80),
    3,
    si(0, 31, 0, 1, 32),
    [(16, 32), (47, 63)]
);
vendor_case!(
    vendor_case_i8_aligned_stride,
    i8,
    si(16, 111, 32, 1, 128),
    3,
    si(0, 63, 0, 1, 64),
    [(16, 48), (80, 112)]
);
vendor_case!(
    vendor_case_u8_aligned_stride,
    u8,
    si(16, 111, 32, 1, 128),
    3,
    si(0, 63, 0, 1, 64),
    [(16, 48), (80, 112)]
);
vendor_case!(
    vendor_case_i8_byte_stride,
    i8,
    si(16, 110, 31, 1, 127),
    3,
    si(0, 63, 0, 1, 64),
    [(16, 48), (79, 111)]
);
vendor_case!(
    vendor_case_u8_byte_stride,
    u8,
    si(16, 110, 31, 1, 127),
    3,
    si(0, 63, 0, 1, 64),
    [(16, 48), (79, 111)]
);

/// One dimension: the UB side's gaps keep their bytes; the GM side starts at an odd element.
#[test]
fn one_dimension_leaves_the_gaps_alone() {
    let x: Vec<u16> = (0..100).collect();
    let (_xr, x_gm) = gm(&x);
    let u = ub(128 * 2);
    let local = u.t::<u16>(0, 128);
    local.copy_from_slice(&[0xFFFF; 128]);
    // Two pieces of 32 (two blocks) from element 3, 5 apart (10 bytes: DataCopyPad's byte
    // stride); into the UB 32 elements (two blocks) apart.
    data_copy_slice(&local, &x_gm, &[si(0, 95, 32, 2, 128)], &[si(3, 71, 5, 2, 100)], 1);
    let got = local.to_vec();
    assert_eq!(&got[..32], &x[3..35]);
    assert!(got[32..64].iter().all(|&v| v == 0xFFFF));
    assert_eq!(&got[64..96], &x[40..72]);
    assert!(got[96..].iter().all(|&v| v == 0xFFFF));
}

/// Into GM, the core's atomic mode applies (as the vendor's DataCopy/DataCopyPad do).
#[test]
fn ub_to_gm_honours_atomic_add() {
    on(Soc::Ascend910B, || {
        let (yr, y_gm) = gm(&[1f32; 40]);
        let u = ub(32 * 4);
        let local = u.t::<f32>(0, 32);
        local.copy_from_slice(&(0..32).map(|i| i as f32).collect::<Vec<_>>());
        set_atomic_add::<f32>();
        // Two pieces of 8 from UB elements 0 and 16, to GM elements 2..10 and 13..21.
        data_copy_slice(&y_gm, &local, &[si(2, 20, 3, 1, 40)], &[si(0, 23, 8, 1, 32)], 1);
        set_atomic_none();
        let y: Vec<f32> = bytemuck::cast_slice(&yr.to_bytes()).to_vec();
        let mut want = vec![1f32; 40];
        for k in 0..8 {
            want[2 + k] += k as f32;
            want[13 + k] += (16 + k) as f32;
        }
        assert_eq!(y, want);
    });
}

/// Dimensions whose row counts differ but multiply to the same number of row groups pair up
/// in order (dimension 1 fastest), as the vendor's offset lists do.
#[test]
fn row_groups_pair_up_in_order_across_shapes() {
    let x: Vec<i32> = (0..6 * 8).collect();
    let (_xr, x_gm) = gm(&x);
    let u = ub(6 * 8 * 4);
    let local = u.t::<i32>(0, 48);
    local.copy_from_slice(&[-1; 48]);
    // Source: 8 x 6 with one piece of 8 per row, rows 0..6 as 2 x 3 (dimension 1: 2 rows of
    // shape 2, dimension 2: 3 rows); destination: 3 x 2 the other way round.
    let src = [si(0, 7, 0, 1, 8), si(0, 1, 0, 1, 2), si(0, 2, 0, 1, 3)];
    let dst = [si(0, 7, 0, 1, 8), si(0, 2, 0, 1, 3), si(0, 1, 0, 1, 2)];
    data_copy_slice(&local, &x_gm, &dst, &src, 3);
    assert_eq!(local.to_vec(), x);
    let mut want = vec![-1; 48];
    ref_copy(&mut want, &x, &dst, &src, 8);
    assert_eq!(want, x);
}

// ---------------------------------------------------------------- random slices

/// Dimension 0 of a random case: the GM side's start, stride and padding after the slice (in
/// elements), the UB side's (in 32-byte blocks, so that every piece is aligned).
#[derive(Clone, Debug)]
struct Dim0 {
    gm_start: u32,
    gm_stride: u32,
    gm_pad: u32,
    ub_start: u32,
    ub_stride: u32,
    ub_pad: u32,
}

/// A dimension above 0: rows selected (at least 2, as `startIndex < endIndex` requires), and
/// each side's start, stride and padding in rows.
#[derive(Clone, Debug)]
struct DimN {
    count: u32,
    gm: (u32, u32, u32),
    ub: (u32, u32, u32),
}

#[derive(Clone, Debug)]
struct Case {
    to_gm: bool,
    on_310p: bool,
    burst: u32,
    n0: u32,
    d0: Dim0,
    dims: Vec<DimN>,
    gm_off: usize,
    seed: u64,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    let d0 = (0..=20u32, 0..=40u32, 0..=6u32, 0..=2u32, 0..=2u32, 0..=1u32).prop_map(
        |(gm_start, gm_stride, gm_pad, ub_start, ub_stride, ub_pad)| Dim0 {
            gm_start,
            gm_stride,
            gm_pad,
            ub_start,
            ub_stride,
            ub_pad,
        },
    );
    let dn = (2..=3u32, (0..=2u32, 0..=2u32, 0..=1u32), (0..=2u32, 0..=2u32, 0..=1u32))
        .prop_map(|(count, gm, ub)| DimN { count, gm, ub });
    (
        (any::<bool>(), any::<bool>(), 1..=3u32, 1..=4u32),
        d0,
        prop::collection::vec(dn, 0..=2),
        (0..=3usize, any::<u64>()),
    )
        .prop_map(|((to_gm, on_310p, burst, n0), d0, dims, (gm_off, seed))| Case {
            to_gm,
            on_310p,
            burst,
            n0,
            d0,
            dims,
            gm_off,
            seed,
        })
}

/// The GM-side and UB-side slices of a case for a type of `epb` elements per block.
fn case_infos(c: &Case, epb: u32) -> (Vec<SliceInfo>, Vec<SliceInfo>) {
    let unit = c.burst * epb;
    let span = |n: u32, stride: u32| n * unit + (n - 1) * stride;
    let d = &c.d0;
    let gm_end = d.gm_start + span(c.n0, d.gm_stride) - 1;
    let mut gm_info = vec![si(d.gm_start, gm_end, d.gm_stride, c.burst, gm_end + 1 + d.gm_pad)];
    let (us, ust) = (d.ub_start * epb, d.ub_stride * epb);
    let ub_end = us + span(c.n0, ust) - 1;
    let ub_shape = (ub_end + 1).div_ceil(epb) * epb + d.ub_pad * epb;
    let mut ub_info = vec![si(us, ub_end, ust, c.burst, ub_shape)];
    for dn in &c.dims {
        for (info, (start, stride, pad)) in [(&mut gm_info, dn.gm), (&mut ub_info, dn.ub)] {
            let end = start + (dn.count - 1) * (1 + stride);
            info.push(si(start, end, stride, 1, end + 1 + pad));
        }
    }
    (gm_info, ub_info)
}

fn elems(info: &[SliceInfo]) -> usize {
    info.iter().map(|s| s.shape_value as usize).product()
}

fn check_case<T: DataCopySliceElement + Pod>(c: &Case) {
    let epb = (32 / T::SIZE) as u32;
    let (gm_info, ub_info) = case_infos(c, epb);
    let dim = gm_info.len() as u32;
    // Ascend310P: bf16 is missing, and a GM stride that is not a multiple of 32 bytes works
    // only with at most 2 pieces and a UB stride of 0 (checked separately).
    let gm_byte_stride = c.d0.gm_stride as usize * T::SIZE % 32 != 0;
    let ok_310p =
        T::slice_supported(Soc::Ascend310P) && (!gm_byte_stride || (c.n0 <= 2 && c.d0.ub_stride == 0));
    let soc = if c.on_310p && ok_310p { Soc::Ascend310P } else { Soc::Ascend910B };
    on(soc, || {
        let mut rng = Rng(c.seed);
        let (gn, un) = (elems(&gm_info) + 3, elems(&ub_info));
        let gm_data: Vec<T> = random_vec(&mut rng, gn + c.gm_off);
        let ub_data: Vec<T> = random_vec(&mut rng, un);
        let region = GmRegion::from_bytes(bytemuck::cast_slice(&gm_data));
        let mut g = GlobalTensor::<T>::new();
        g.set_global_buffer(region.addr().add::<T>(c.gm_off), gn);
        let u = ub(un * T::SIZE);
        let local = u.t::<T>(0, un);
        local.copy_from_slice(&ub_data);
        let epb = epb as usize;
        if c.to_gm {
            data_copy_slice(&g, &local, &gm_info, &ub_info, dim);
            let mut want = gm_data[c.gm_off..].to_vec();
            ref_copy(&mut want, &ub_data, &gm_info, &ub_info, epb);
            let got = region.to_bytes()[c.gm_off * T::SIZE..].to_vec();
            assert_eq!(got, bytes_of(&want), "UB->GM on {soc}: {gm_info:?} <- {ub_info:?}");
        } else {
            data_copy_slice(&local, &g, &ub_info, &gm_info, dim);
            let mut want = ub_data.clone();
            ref_copy(&mut want, &gm_data[c.gm_off..], &ub_info, &gm_info, epb);
            assert_eq!(
                bytes_of(&local.to_vec()),
                bytes_of(&want),
                "GM->UB on {soc}: {ub_info:?} <- {gm_info:?}"
            );
        }
    });
}

macro_rules! random_cases {
    ($($t:ident),*) => {$(paste::paste! {
        #[test]
        fn [<matches_the_reference_randomly_ $t>]() {
            strat::check_cases(150, 0x51CE_0000 ^ core::mem::size_of::<$t>() as u64, case_strategy(), |c| {
                check_case::<$t>(c)
            });
        }
    })*};
}
random_cases!(i8, u8, i16, u16, f16, bf16, i32, u32, f32);

// ---------------------------------------------------------------- the sanitizer

/// Each row group is one DataCopy on MTE2: the sanitizer sees its bytes, and only those. A
/// vector read of a row group right after the copy, without the MTE2 -> V event, is an error;
/// a read of the bytes between two row groups is not (nothing wrote them).
#[test]
fn the_sanitizer_sees_each_row_groups_bytes() {
    let src = [si(0, 23, 0, 3, 24), si(0, 1, 0, 1, 2)];
    let dst = [si(0, 23, 0, 3, 64), si(0, 1, 0, 1, 2)]; // groups at bytes [0, 96) and [256, 352)
    let x: Vec<f32> = (0..48).map(|i| i as f32).collect();
    let run = |read_from: usize, sync: bool| {
        on(Soc::Ascend910B, || {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let (_xr, x_gm) = gm(&x);
                let u = ub(128 * 4 + 64 * 4);
                let (local, out) = (u.t::<f32>(0, 128), u.t::<f32>(512, 64));
                data_copy_slice(&local, &x_gm, &dst, &src, 2);
                if sync {
                    set_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                    wait_flag::<HardEvent::MTE2_V>(EVENT_ID0);
                }
                adds(&out, &local.view(read_from), 1.0, 24);
                pipe_barrier::<PIPE_ALL>();
            })
        })
    };
    run(32, false); // bytes [128, 224): between the groups
    run(64, true);
    let msg = util::panic_message(|| run(64, false)); // the second group
    assert!(msg.contains("DataCopy") && msg.contains("Adds") && msg.contains("MTE2"), "{msg}");
}

/// UB -> GM reads the UB side on MTE3: a vector write just before it needs V -> MTE3.
#[test]
fn the_sanitizer_sees_the_ub_to_gm_read() {
    let info = [si(0, 15, 0, 1, 16), si(0, 1, 0, 1, 2)];
    let run = |sync: bool| {
        on(Soc::Ascend910B, || {
            LaunchSanitizer::with_auto_sync(false).run_core(|| {
                let (_yr, y_gm) = gm(&[0f32; 32]);
                let u = ub(32 * 4);
                let local = u.t::<f32>(0, 32);
                duplicate(&local, 2.0f32, 32);
                if sync {
                    set_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                    wait_flag::<HardEvent::V_MTE3>(EVENT_ID0);
                }
                data_copy_slice(&y_gm, &local, &info, &info, 2);
                pipe_barrier::<PIPE_ALL>();
            })
        })
    };
    run(true);
    let msg = util::panic_message(|| run(false));
    assert!(msg.contains("DataCopy") && msg.contains("Duplicate"), "{msg}");
}

// ---------------------------------------------------------------- misuse

/// Runs the copy GM -> UB with 4096-element f32 tensors on `soc` and returns its failure.
#[track_caller]
fn gm_to_ub_fails(soc: Soc, dst: &[SliceInfo], src: &[SliceInfo], dim: u32, needles: &[&str]) {
    on(soc, || {
        let (_r, g) = gm(&vec![0f32; 4096]);
        let u = ub(4096 * 4);
        let local = u.t::<f32>(0, 4096);
        let msg = expect_panic(|| data_copy_slice(&local, &g, dst, src, dim), needles);
        assert!(msg.contains("DataCopy"), "{msg}");
    });
}

#[track_caller]
fn fails(dst: &[SliceInfo], src: &[SliceInfo], dim: u32, needles: &[&str]) {
    gm_to_ub_fails(Soc::Ascend910B, dst, src, dim, needles)
}

const ONE: [SliceInfo; 1] = [SliceInfo::new(0, 15, 0, 1, 16)];

#[test]
fn dim_value_out_of_range_fails() {
    fails(&ONE, &ONE, 0, &["dimValue = 0 is out of range [1, 8]"]);
    let nine = [SliceInfo::new(0, 15, 0, 1, 16); 9];
    fails(&nine, &nine, 9, &["dimValue = 9 is out of range [1, 8]"]);
}

#[test]
fn too_few_entries_fail_and_extra_entries_are_ignored() {
    fails(&ONE, &[ONE[0], si(0, 1, 0, 1, 2)], 2, &["dstSliceInfo has 1 entries but dimValue = 2"]);
    // As the vendor's example: K_MAX_DIM-entry arrays, dimValue = 1.
    on(Soc::Ascend910B, || {
        let x: Vec<f32> = (0..16).map(|i| i as f32).collect();
        let (_r, g) = gm(&x);
        let u = ub(64);
        let local = u.t::<f32>(0, 16);
        let mut arr = [SliceInfo::default(); K_MAX_DIM];
        arr[0] = ONE[0];
        data_copy_slice(&local, &g, &arr, &arr, 1);
        assert_eq!(local.to_vec(), x);
    });
}

#[test]
fn index_order_is_checked() {
    fails(
        &ONE,
        &[si(5, 5, 0, 1, 16)],
        1,
        &["srcSliceInfo[0]: startIndex = 5, endIndex = 5, shapeValue = 16"],
    );
    fails(
        &[si(0, 15, 0, 1, 14)],
        &ONE,
        1,
        &["dstSliceInfo[0]", "endIndex = 15, shapeValue = 14", "<= shapeValue"],
    );
    fails(&ONE, &[SliceInfo::default()], 1, &["srcSliceInfo[0]", "shapeValue = 0"]);
    let (bad, good) = ([ONE[0], si(1, 1, 0, 1, 2)], [ONE[0], si(0, 1, 0, 1, 2)]);
    fails(&bad, &good, 2, &["dstSliceInfo[1]: startIndex = 1, endIndex = 1"]);
}

#[test]
fn burst_len_is_checked() {
    fails(&ONE, &[si(0, 15, 0, 0, 16)], 1, &["srcSliceInfo[0].burstLen = 0"]);
    let bad = [ONE[0], si(0, 1, 0, 2, 2)];
    let good = [ONE[0], si(0, 1, 0, 1, 2)];
    fails(&good, &bad, 2, &["srcSliceInfo[1].burstLen = 2: above dimension 0 it must be 1"]);
    // Equal on both sides (both slices valid by themselves).
    fails(
        &[si(0, 15, 0, 2, 16)],
        &ONE,
        1,
        &["srcSliceInfo[0].burstLen = 1 differs from dstSliceInfo[0].burstLen = 2"],
    );
    let huge = [si(0, 65536 * 8 - 1, 0, 65536, 65536 * 8)];
    fails(&huge, &huge, 1, &["burstLen = 65536 blocks is out of range [1, 65535]"]);
}

#[test]
fn the_pieces_must_fill_start_to_end() {
    fails(
        &ONE,
        &[si(0, 16, 0, 1, 32)],
        1,
        &["srcSliceInfo[0]: endIndex - startIndex + 1 = 17 is not (N - 1) * stride + N * 8"],
    );
    fails(&ONE, &[si(0, 4, 0, 1, 32)], 1, &["endIndex - startIndex + 1 = 5"]);
    // Rows 0 and 2 with stride 1 fill 0..=2; 0..=3 is no whole number of rows.
    let (bad, good) = ([ONE[0], si(0, 3, 1, 1, 4)], [ONE[0], si(0, 2, 1, 1, 4)]);
    fails(&bad, &good, 2, &["dstSliceInfo[1]: endIndex - startIndex + 1 = 4", "1 row"]);
}

#[test]
fn both_sides_must_have_the_same_pieces_and_row_groups() {
    fails(&[si(0, 7, 0, 1, 8)], &ONE, 1, &["srcSliceInfo[0] has 2 pieces and dstSliceInfo[0] 1"]);
    let src = [ONE[0], si(0, 2, 0, 1, 3)];
    let dst = [ONE[0], si(0, 1, 0, 1, 2)];
    fails(&dst, &src, 2, &["srcSliceInfo selects 3 row groups in dimensions 1 and up and dstSliceInfo 2"]);
}

#[test]
fn limits_on_counts_are_checked() {
    let many = [si(0, 7, 0, 1, 8), si(0, 39, 0, 1, 40), si(0, 39, 0, 1, 40)];
    fails(
        &many,
        &many,
        3,
        &["srcSliceInfo selects 1600 rows in dimensions 1 to 2; the limit is MAX_SLICE_SIZE = 1536"],
    );
    let long = [si(0, 4096 * 8 - 1, 0, 1, 4096 * 8)];
    fails(
        &long,
        &long,
        1,
        &["srcSliceInfo[0] has 4096 pieces: one DataCopy moves at most blockCount = 4095"],
    );
    let wide = [si(0, 7, 0, 1, 65536), si(0, 1, 0, 1, 65536), si(0, 1, 0, 1, 2)];
    fails(&wide, &wide, 3, &["srcSliceInfo: an element offset of the slice exceeds the uint32_t"]);
}

#[test]
fn ub_pieces_must_be_32_byte_aligned() {
    let g = [si(0, 16, 1, 1, 32)];
    fails(
        &[si(0, 16, 1, 1, 32)],
        &g,
        1,
        &["dstSliceInfo[0].stride = 1 float elements is 4 bytes, not a multiple of 32"],
    );
    fails(&[si(1, 16, 0, 1, 32)], &ONE, 1, &["dstSliceInfo starts at element 1 (4 bytes into the tensor)"]);
    let src = [si(0, 7, 0, 1, 8), si(0, 1, 0, 1, 2)];
    let dst = [si(0, 7, 0, 1, 9), si(0, 1, 0, 1, 2)];
    fails(&dst, &src, 2, &["dstSliceInfo: a row group starts 9 elements (36 bytes) after the first"]);
    // The UB -> GM direction checks the source (the UB side).
    on(Soc::Ascend910B, || {
        let (_r, g) = gm(&[0f32; 64]);
        let u = ub(64 * 4);
        let local = u.t::<f32>(0, 64);
        expect_panic(
            || data_copy_slice(&g, &local, &[si(0, 16, 1, 1, 32)], &[si(0, 16, 1, 1, 32)], 1),
            &["srcSliceInfo[0].stride = 1 float elements is 4 bytes"],
        );
        expect_panic(
            || data_copy_slice(&g, &local.view(1), &ONE, &ONE, 1),
            &["src UB address = 0x4 is not 32-byte aligned"],
        );
    });
}

#[test]
fn stride_limits_are_checked() {
    let s = 65536 * 8; // 65536 blocks of f32
    fails(
        &[si(0, s + 15, s, 1, s + 16)],
        &[si(0, s + 15, s, 1, s + 16)],
        1,
        &["dstSliceInfo[0].stride = 524288 elements is 65536 blocks; DataCopy's limit is 65535"],
    );
    fails(
        &[si(0, 15, 0, 1, 16)],
        &[si(0, s + 15, s, 1, s + 16)],
        1,
        &["srcSliceInfo[0].stride = 524288 elements is 65536 blocks"],
    );
    let b = 16385; // 65540 bytes, not a multiple of 32
    fails(
        &ONE,
        &[si(0, b + 15, b, 1, b + 16)],
        1,
        &[
            "srcSliceInfo[0].stride = 16385 elements is 65540 bytes, not a multiple of 32",
            "the limit is 65535",
        ],
    );
    // GM -> UB with a byte stride: the piece length is a uint16_t of bytes.
    let unit = 2048 * 8;
    fails(
        &[si(0, 2 * unit - 1, 0, 2048, 2 * unit)],
        &[si(0, 2 * unit, 1, 2048, 2 * unit + 1)],
        1,
        &["burstLen = 2048 blocks is 65536 bytes", "2047 blocks"],
    );
}

#[test]
fn ascend310p_byte_strides_need_at_most_two_pieces_and_no_ub_stride() {
    let dst = [si(0, 23, 0, 1, 24)];
    let src = [si(0, 25, 1, 1, 32)]; // 3 pieces of 8, 1 element apart (4 bytes)
    gm_to_ub_fails(Soc::Ascend310P, &dst, &src, 1, &["on Ascend310P", "at most 2 pieces", "here 3 pieces"]);
    let dst = [si(0, 23, 8, 1, 24)];
    let src = [si(0, 16, 1, 1, 32)];
    gm_to_ub_fails(Soc::Ascend310P, &dst, &src, 1, &["dstSliceInfo[0].stride = 8"]);
    // Aligned GM strides have no such limit there.
    on(Soc::Ascend310P, || {
        let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let (_r, g) = gm(&x);
        let u = ub(24 * 4);
        let local = u.t::<f32>(0, 24);
        data_copy_slice(&local, &g, &[si(0, 23, 0, 1, 24)], &[si(0, 39, 8, 1, 40)], 1);
        assert_eq!(local.to_vec(), [&x[0..8], &x[16..24], &x[32..40]].concat());
    });
}

#[test]
fn bounds_are_checked_on_both_sides() {
    on(Soc::Ascend910B, || {
        let (_r, g) = gm(&[0f32; 40]);
        let u = ub(64 * 4);
        let local = u.t::<f32>(0, 16);
        let big = [si(0, 31, 0, 1, 32), si(0, 1, 0, 1, 2)];
        expect_panic(
            || data_copy_slice(&local, &g, &big, &big, 2),
            &["srcSliceInfo reaches byte 256 of src (element 64), which has 160 bytes (40 float elements)"],
        );
        let (_r2, g2) = gm(&[0f32; 64]);
        expect_panic(
            || data_copy_slice(&local, &g2, &big, &big, 2),
            &["dstSliceInfo reaches byte 256 of dst (element 64), which has 64 bytes (16 float elements)"],
        );
        expect_panic(
            || data_copy_slice(&g, &local, &big, &big, 2),
            &["srcSliceInfo reaches byte 256 of src"],
        );
    });
}

#[test]
fn chips_and_types_are_checked() {
    for soc in [Soc::Ascend910, Soc::Ascend310B] {
        let m = format!("DataCopy with SliceInfo is not supported on {soc}");
        gm_to_ub_fails(soc, &ONE, &ONE, 1, &[m.as_str(), "needs Ascend910B or Ascend310P"]);
    }
    on(Soc::Ascend310P, || {
        let (_r, g) = gm(&[bf16::ZERO; 16]);
        let u = ub(32);
        let local = u.t::<bf16>(0, 16);
        let info = [si(0, 15, 0, 1, 16)];
        expect_panic(
            || data_copy_slice(&local, &g, &info, &info, 1),
            &["T = bfloat16_t is not supported by DataCopy with SliceInfo on Ascend310P"],
        );
    });
    on(Soc::Ascend910B, || {
        let (_r, g) = gm(&[bf16::ZERO; 16]);
        let u = ub(32);
        let local = u.t::<bf16>(0, 16);
        let info = [si(0, 15, 0, 1, 16)];
        data_copy_slice(&local, &g, &info, &info, 1);
    });
}

#[test]
fn slice_info_defaults_are_the_vendors() {
    assert_eq!(SliceInfo::default(), si(0, 31, 0, 32, 0));
    assert_eq!((K_MAX_DIM, MAX_SLICE_SIZE), (8, 1536));
}
