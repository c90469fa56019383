//! Line-by-line port of the vendor's `ctrl_spr` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/09_utils/ctrl_spr`): switch `half` arithmetic to
//! non-saturation mode with `SetCtrlSpr<60, 60>(1)` and `SetCtrlSpr<48, 48>(1)`, read `CTRL[48]`
//! back with `GetCtrlSpr<48, 48>()` into the first half of an `int64_t` output, add 1 to a
//! `half` row whose second half is +inf (it stays +inf), reset both bits with
//! `ResetCtrlSpr`, and read `CTRL[48]` again (0) into the second half of the output.
//!
//! The vendor builds it for Ascend 950PR/950DT (`dav-3510`) only, a chip not modelled. The
//! modelled chip that has `SetCtrlSpr`/`GetCtrlSpr` is Ascend910B (Atlas A2), where three of its
//! statements do not exist, so the port runs it in two forms (the const parameter
//! `AS_WRITTEN`):
//!
//! - as written, it stops at `SetCtrlSpr<60, 60>(1)`, an error naming the chip (A2 has
//!   `CTRL[48]` only) — checked below;
//! - in the A2 form, the three lines become their A2 equivalents, marked `A2:` — `CTRL[60]`,
//!   the Ascend 950 switch that makes `CTRL[48]` apply globally, is not set (on A2 `CTRL[48]`
//!   always applies); `ResetCtrlSpr` (Ascend 950 only) becomes `SetCtrlSpr<48, 48>(0)`, the
//!   bit's documented default, and `ResetCtrlSpr<60, 60>()` goes; `Duplicate` of `int64_t`
//!   (Ascend 950 only: A2's `Duplicate` takes 16- and 32-bit types) becomes two bit-mask
//!   `Duplicate`s of the low and high `int32_t` words ([`duplicate_i64`]), on the same pipe.
//!
//! The A2 form's outputs are the example's golden data bit for bit. A correct kernel: the
//! sanitizer stays on and must find nothing.

use ascend_runtime::prelude::*;
use ascend_runtime::testing::assert_bits_eq;

const DATA_SIZE: usize = 256;
const CTRL_SIZE: usize = 8;

/// `Duplicate(dst, value, count)` for `int64_t` on A2: the low words at the even `int32_t`
/// lanes, then the high words at the odd ones, as two bit-mask `Duplicate`s of one repeat
/// (little-endian, as the chip). `count` is at most 32 (one repeat of 64 `int32_t` lanes).
fn duplicate_i64(dst: &LocalTensor<i64>, value: i64, count: usize) {
    assert!(count <= 32, "one repeat holds 32 int64_t values");
    let words = dst.reinterpret_cast::<i32>();
    let even = (0..2 * count).step_by(2).fold(0u64, |m, j| m | 1 << j);
    duplicate_masked::<i32, true>(&words, value as i32, [even, 0], 1, 1, 8);
    duplicate_masked::<i32, true>(&words, (value >> 32) as i32, [even << 1, 0], 1, 1, 8);
}

/// `KernelCtrlSpr<half, DATA_SIZE, CTRL_SIZE>`.
struct KernelCtrlSpr<const AS_WRITTEN: bool> {
    src_global: GlobalTensor<f16>,
    dst_sat_global: GlobalTensor<f16>,
    dst_ctrl_global: GlobalTensor<i64>,
    /// What the kernel writes to `CTRL[48]` (the vendor's 1; 0 to see saturation).
    ctrl_value: i64,
}

impl<const AS_WRITTEN: bool> KernelCtrlSpr<AS_WRITTEN> {
    fn new(ctrl_value: i64) -> Self {
        KernelCtrlSpr {
            src_global: GlobalTensor::new(),
            dst_sat_global: GlobalTensor::new(),
            dst_ctrl_global: GlobalTensor::new(),
            ctrl_value,
        }
    }

    fn init(&mut self, src_addr: GmAddr, dst_ctrl_addr: GmAddr, dst_sat_addr: GmAddr) {
        self.src_global.set_global_buffer(src_addr, DATA_SIZE);
        self.dst_ctrl_global.set_global_buffer(dst_ctrl_addr, CTRL_SIZE);
        self.dst_sat_global.set_global_buffer(dst_sat_addr, DATA_SIZE);
    }

    fn process(&mut self) {
        let mut ub_allocator = LocalMemAllocator::<Ub>::new();
        let src_local = ub_allocator.alloc::<f16>(DATA_SIZE);
        let dst_local = ub_allocator.alloc::<f16>(DATA_SIZE);
        let ctrl_local = ub_allocator.alloc::<i64>(CTRL_SIZE);

        data_copy(&src_local, &self.src_global, DATA_SIZE);
        set_flag::<HardEvent::MTE2_V>(0);
        wait_flag::<HardEvent::MTE2_V>(0);

        if AS_WRITTEN {
            set_ctrl_spr::<60, 60>(1); // CTRL60
        }
        set_ctrl_spr::<48, 48>(self.ctrl_value);

        let value_ctrl_after_set = get_ctrl_spr::<48, 48>();
        // A2: Duplicate<int64_t>
        duplicate_i64(&ctrl_local, value_ctrl_after_set, CTRL_SIZE / 2);

        adds(&dst_local, &src_local, f16::from_f32(1.0), DATA_SIZE);

        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);

        data_copy(&self.dst_sat_global, &dst_local, DATA_SIZE);

        if AS_WRITTEN {
            reset_ctrl_spr::<48, 48>();
            reset_ctrl_spr::<60, 60>();
        } else {
            set_ctrl_spr::<48, 48>(0); // A2: ResetCtrlSpr<48, 48>(), the default 1'b0
        }

        let value_ctrl_after_reset = get_ctrl_spr::<48, 48>();
        // A2: Duplicate<int64_t>
        duplicate_i64(&ctrl_local.view(CTRL_SIZE / 2), value_ctrl_after_reset, CTRL_SIZE / 2);

        set_flag::<HardEvent::V_MTE3>(0);
        wait_flag::<HardEvent::V_MTE3>(0);

        data_copy(&self.dst_ctrl_global, &ctrl_local, CTRL_SIZE);

        pipe_barrier::<PIPE_ALL>();
    }
}

/// `kernel_ctrl_spr<DATA_SIZE, CTRL_SIZE>`.
fn kernel_ctrl_spr<const AS_WRITTEN: bool>(
    ctrl_value: i64,
    src_gm: GmAddr,
    dst_ctrl_gm: GmAddr,
    dst_sat_gm: GmAddr,
) {
    init_soc_state();

    let mut op = KernelCtrlSpr::<AS_WRITTEN>::new(ctrl_value);
    op.init(src_gm, dst_ctrl_gm, dst_sat_gm);
    op.process();
}

/// `gen_data.py`'s input: 0..128 as `half`, then +inf.
fn input() -> Vec<f16> {
    let mut src = vec![f16::INFINITY; DATA_SIZE];
    for (i, v) in src[..DATA_SIZE / 2].iter_mut().enumerate() {
        *v = f16::from_f32(i as f32);
    }
    src
}

/// `main`: one core on `soc`; returns `(output_ctrl, output_sat)` or the launch's error.
fn run<const AS_WRITTEN: bool>(soc: Soc, ctrl_value: i64) -> Result<(Vec<i64>, Vec<f16>), LaunchError> {
    let src = GmBuffer::from_vec(input());
    let dst_ctrl = GmBuffer::<i64>::zeroed(CTRL_SIZE);
    let dst_sat = GmBuffer::<f16>::zeroed(DATA_SIZE);
    let (s, c, d) = (src.addr(), dst_ctrl.addr(), dst_sat.addr());
    Launch::new(soc).block_dim(1).run(move || kernel_ctrl_spr::<AS_WRITTEN>(ctrl_value, s, c, d))?;
    Ok((dst_ctrl.to_vec(), dst_sat.to_vec()))
}

/// The line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    let src = include_str!("ctrl_spr.rs");
    1 + src.lines().position(|l| l.contains(marker) && !l.contains("line_of")).expect("marker") as u32
}

#[test]
fn the_a2_form_gives_the_golden_data_bit_for_bit() {
    let (ctrl, sat) = run::<false>(Soc::Ascend910B, 1).unwrap();
    // golden_ctrl: 1 after the set, 0 after the reset.
    assert_eq!(ctrl, [1, 1, 1, 1, 0, 0, 0, 0]);
    // golden_sat: 0..128 + 1, then +inf kept (non-saturation mode).
    let mut golden = vec![f16::INFINITY; DATA_SIZE];
    for (i, v) in golden[..DATA_SIZE / 2].iter_mut().enumerate() {
        *v = f16::from_f32(i as f32 + 1.0);
    }
    assert_bits_eq(&sat, &golden);
}

#[test]
fn with_ctrl48_at_0_the_same_kernel_saturates_inf_to_max() {
    // Saturation mode: inf + 1 is clamped to 65504, exactly as under
    // set_overflow_mode(OverflowMode::Saturation).
    let (ctrl, sat) = run::<false>(Soc::Ascend910B, 0).unwrap();
    assert_eq!(ctrl, [0; CTRL_SIZE]);
    assert!(sat[..DATA_SIZE / 2].iter().enumerate().all(|(i, v)| v.to_f32() == i as f32 + 1.0));
    assert!(sat[DATA_SIZE / 2..].iter().all(|v| v.to_bits() == f16::MAX.to_bits()), "{sat:?}");
}

#[test]
fn as_written_it_stops_at_ctrl60_on_ascend910b() {
    let e = run::<true>(Soc::Ascend910B, 1).unwrap_err();
    let f = e.primary().expect("a fault");
    assert_eq!(f.api, "SetCtrlSpr");
    assert_eq!(
        f.message,
        "startBit = 60, endBit = 60: Ascend910B has CTRL[48] only (startBit = endBit = 48); the other bits \
         exist on Ascend 950PR/Ascend 950DT, a chip not modelled"
    );
    assert_eq!(f.line, line_of("// CTRL60"));
    assert!(f.file.ends_with("ctrl_spr.rs"), "{}", f.file);
}

#[test]
fn chips_without_the_api_name_themselves() {
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        let e = run::<false>(soc, 1).unwrap_err();
        let f = e.primary().expect("a fault");
        assert_eq!(f.api, "SetCtrlSpr");
        assert!(f.message.starts_with(&format!("not supported on {soc} (")), "{}", f.message);
    }
}
