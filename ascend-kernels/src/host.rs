//! The host side every kernel shares: what the vendor samples' host programs do around a
//! launch (`aclrtMalloc` + `aclrtMemcpy` in, `<<<blockDim, ...>>>`, `aclrtMemcpy` out).
//!
//! [`run_on_gm`] copies the inputs into fresh GM buffers, allocates zeroed outputs, launches
//! the kernel with their [`GmAddr`]s, and reads the outputs back; each module's `run_*`
//! launcher is a line or two on top of it.
//!
//! ```
//! use ascend_kernels::host::run_on_gm;
//! use ascend_kernels::add_custom::add_custom;
//! use ascend_kernels::tiling::{TilingConfig, TilingData};
//! use ascend_runtime::prelude::*;
//!
//! let (x, y) = (vec![1.0f32; 64], vec![2.0f32; 64]);
//! let tiling = TilingConfig::new::<f32>(64, 2);
//! let tiling_gm = GmBuffer::from_tiling(&TilingData::from(tiling)); // the kernel's tiling data
//! let (t, launch) = (tiling_gm.addr(), Launch::new(Soc::Ascend910B).block_dim(tiling.block_dim));
//! let ([z], stats) = run_on_gm(&launch, [&x, &y], [64], move |[x, y], [z]| add_custom::<f32>(x, y, z, t)).unwrap();
//! assert_eq!((z, stats.block_dim), (vec![3.0f32; 64], 2));
//! ```

use ascend_runtime::prelude::*;

/// Copies each of `inputs` to a fresh GM buffer, allocates one zeroed GM buffer of each
/// length in `output_lens`, runs `kernel(input_addrs, output_addrs)` on every core of
/// `launch`, and returns the outputs' contents with the launch statistics.
///
/// # Errors
/// The [`LaunchError`] of a failing core.
pub fn run_on_gm<T: Element, const I: usize, const O: usize>(
    launch: &Launch,
    inputs: [&[T]; I],
    output_lens: [usize; O],
    kernel: impl Fn([GmAddr; I], [GmAddr; O]) + Sync,
) -> Result<([Vec<T>; O], LaunchStats), LaunchError> {
    let ins = inputs.map(GmBuffer::from_slice);
    let outs = output_lens.map(GmBuffer::<T>::zeroed);
    let (in_addrs, out_addrs) = (ins.each_ref().map(GmBuffer::addr), outs.each_ref().map(GmBuffer::addr));
    let stats = launch.run(move || kernel(in_addrs, out_addrs))?;
    Ok((outs.each_ref().map(GmBuffer::to_vec), stats))
}

/// Checks that the host input `name` holds the `expected` elements the tiling describes.
///
/// # Panics
/// Panics with `"{name} holds {len} elements, the tiling {expected}"` otherwise.
#[track_caller]
pub fn check_input_len<T>(name: &str, input: &[T], expected: usize) {
    assert_eq!(input.len(), expected, "{name} holds {} elements, the tiling {expected}", input.len());
}

/// Test support: launches `kernel(tiling)` on one core with a tiling buffer of 8 bytes, too
/// small for the tiling struct `S` the kernel reads, and checks that the launch fails with
/// `GET_TILING_DATA`'s error naming both sizes and `S`.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_tiling_too_small<S: bytemuck::Pod>(kernel: impl Fn(GmAddr) + Sync) {
    let tiling = GmBuffer::from_tiling(&[7u32, 1]);
    let t = tiling.addr();
    let e = Launch::new(Soc::Ascend910B).block_dim(1).run(move || kernel(t)).unwrap_err();
    let want = format!(
        "GET_TILING_DATA: the tiling buffer holds 8 bytes, the tiling struct {} needs {}",
        core::any::type_name::<S>(),
        core::mem::size_of::<S>()
    );
    assert!(e.to_string().contains(&want), "{e}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_in_outputs_back() {
        let launch = Launch::new(Soc::Ascend910B).block_dim(1);
        let ([a, b], stats) = run_on_gm(&launch, [&[1u32, 2, 3][..]], [3, 2], |[x], [a, b]| {
            let (mut xg, mut ag, mut bg) =
                (GlobalTensor::<u32>::new(), GlobalTensor::new(), GlobalTensor::new());
            xg.set_global_buffer(x, 3);
            ag.set_global_buffer(a, 3);
            bg.set_global_buffer(b, 2);
            for i in 0..3 {
                ag.set_value(i, xg.get_value(i) * 10);
            }
            bg.set_value(1, 7);
        })
        .unwrap();
        assert_eq!((a, b, stats.block_dim), (vec![10, 20, 30], vec![0, 7], 1));
    }

    #[test]
    #[should_panic(expected = "y holds 2 elements, the tiling 3")]
    fn input_length_is_checked() {
        check_input_len("y", &[1, 2], 3);
    }
}
