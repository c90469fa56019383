//! The cube unit: matrix multiplication and its data paths (AscendC's "矩阵计算" APIs).
//!
//! A matrix product runs through the AI core's cube memories, each with its own pipe:
//!
//! | step | API | from → to | pipe |
//! | --- | --- | --- | --- |
//! | stage the operands, ND → NZ | [`data_copy_nd2nz`](nd2nz::data_copy_nd2nz) | GM → L1 (`A1`/`B1`) | MTE2 |
//! | load fractals | [`load_data`](load_data::load_data) | L1 → L0A (`A2`) / L0B (`B2`) | MTE1 |
//! | multiply-accumulate | [`mmad`](mmad::mmad) | L0A × L0B → L0C (`CO1`) | M |
//! | stage a bias row | [`data_copy_bias`](bias_table::data_copy_bias) | L1 (`C1`) → BT (`C2`) | MTE1 |
//! | multiply-accumulate from the bias | [`mmad_with_bias`](mmad::mmad_with_bias) | L0A × L0B + BT → L0C | M |
//! | write the result, NZ → ND | [`fixpipe`](fixpipe::fixpipe) | L0C → GM | FIX |
//!
//! The layouts are the vendor's fractal formats: a fractal is 16 rows of 32 bytes (16 × 16
//! for 16-bit types, 16 × 8 for 32-bit, 16 × 32 for 8-bit); L1 holds NZ (fractal columns, each
//! row-major), L0A holds Zz (fractals row-major, each row-major), L0B holds Zn (fractals
//! row-major, each column-major), L0C holds NZ with 16 × 16 fractals of the 32-bit result.
//!
//! On Ascend910B these run on the cube core (AIC) of a [`KernelType::AicOnly`] kernel (see
//! [`KernelType`](crate::ctx::KernelType)).
//!
//! [`KernelType::AicOnly`]: crate::ctx::KernelType::AicOnly

pub mod bias_table;
pub mod fixpipe;
pub mod load_data;
pub mod mmad;
pub mod nd2nz;

use crate::element::Element;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::LocalTensor;
use crate::position::Memory;
use crate::soc::Soc;

/// The bytes of one fractal (16 rows of one 32-byte block).
pub const FRACTAL_BYTES: usize = 512;

/// Fails unless the current chip is one of `chips`.
#[track_caller]
pub(crate) fn check_chip(api: &'static str, chips: &[Soc]) -> Soc {
    let soc = crate::kernel::ctx::get_soc();
    if !chips.contains(&soc) {
        let list: Vec<String> = chips.iter().map(|c| c.to_string()).collect();
        fail(api, format!("{api} is not supported on {soc} (supported here: {})", list.join(", ")));
    }
    soc
}

/// Checks that operand `name` of `api` lives in `mem` (one of the memories the API accepts)
/// and its address is a multiple of `align` bytes; returns its byte address.
#[track_caller]
pub(crate) fn check_operand<T: Element>(
    t: &LocalTensor<T>,
    api: &'static str,
    name: &'static str,
    mems: &[Memory],
    align: usize,
) -> usize {
    t.check_core(api);
    let (mem, pos, addr) = (t.memory(), t.get_position(), t.get_phy_addr());
    ensure(mems.contains(&mem), api, || {
        let want: Vec<&str> = mems.iter().map(|m| m.name()).collect();
        format!("{name} is at position {pos} in {}: {api} takes it in {}", mem.name(), want.join(" or "))
    });
    ensure(addr % align == 0, api, || {
        format!("{name} address = {addr:#x} in {} is not {align}-byte aligned", mem.name())
    });
    addr
}

/// Checks `value` (parameter `name` of `api`) is within `lo..=hi`.
#[track_caller]
pub(crate) fn check_range(api: &'static str, name: &'static str, value: u64, lo: u64, hi: u64) {
    ensure((lo..=hi).contains(&value), api, || format!("{name} = {value} is out of range [{lo}, {hi}]"));
}

/// Checks that `bytes` bytes from element 0 of operand `name` lie inside the tensor.
#[track_caller]
pub(crate) fn check_extent<T: Element>(
    t: &LocalTensor<T>,
    api: &'static str,
    name: &'static str,
    bytes: usize,
) {
    let have = t.get_length();
    ensure(bytes <= have, api, || {
        format!(
            "{name} would be accessed over {bytes} bytes, but the tensor has {} {} elements ({have} bytes)",
            t.get_size(),
            T::DTYPE
        )
    });
}
