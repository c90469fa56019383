//! Line-by-line port of the vendor's `create_vec_index` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/create_vec_index`): 8
//! cores each fill a VECOUT tile with `Duplicate`, overwrite it with `CreateVecIndex` from 0,
//! and copy the 128 `int16_t` indices to the same 256 bytes of GM (the example launches
//! `testCreateVecIndex<int16_t, 128><<<8, …>>>` over one output).
//!
//! Eight cores write one range of GM in one epoch, with nothing ordering them: the sanitizer
//! takes it for no race because every core writes the same bytes (the issue's "identical
//! writes are not a race": whichever lands last, GM holds the same 256 bytes). The planted
//! twin, each core starting its indices at its own block index, writes different bytes: that
//! is the race it reports.

use ascend_runtime::prelude::*;

const COUNT: usize = 128;
const NUM_BLOCKS: u32 = 8;

/// `testCreateVecIndex<int16_t, 128>`; `first(block)` is the start index (the vendor's is 0).
fn test_create_vec_index(dst_gm: GmAddr, first: impl Fn(u32) -> i16) {
    init_soc_state();
    let mut pipe = TPipe::new();
    let mut dst_global = GlobalTensor::<i16>::new();
    let mut que_out = TQue::<VecOut, 1>::new();
    dst_global.set_global_buffer(dst_gm, COUNT);
    pipe.init_buffer(&mut que_out, 1, COUNT * 2);

    let dst_local = que_out.alloc_tensor::<i16>();
    duplicate(&dst_local, 0i16, COUNT);
    pipe_barrier::<PIPE_V>();
    create_vec_index(&dst_local, first(get_block_idx()), COUNT as u32);
    que_out.enque(dst_local);

    let dst_local_out = que_out.deque::<i16>();
    data_copy(&dst_global, &dst_local_out, COUNT);
    que_out.free_tensor(dst_local_out);
    pipe_barrier::<PIPE_ALL>();
}

#[test]
fn eight_cores_writing_the_same_indices_pass_and_match_the_golden() {
    for mode in [ExecMode::Pooled, ExecMode::ThreadPerCore] {
        let out = GmBuffer::<i16>::zeroed(COUNT);
        let a = out.addr();
        Launch::new(Soc::Ascend910B)
            .block_dim(NUM_BLOCKS)
            .mode(mode)
            .run(move || test_create_vec_index(a, |_| 0))
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        // gen_data.py: golden = np.arange(128).astype(np.int16)
        let golden: Vec<i16> = (0..COUNT as i16).collect();
        assert_eq!(out.to_vec(), golden, "{mode}");
    }
}

#[test]
fn eight_cores_writing_different_indices_race() {
    let out = GmBuffer::<i16>::zeroed(COUNT);
    let a = out.addr();
    let err = Launch::new(Soc::Ascend910B)
        .block_dim(NUM_BLOCKS)
        .run(move || test_create_vec_index(a, |b| b as i16))
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("cross-core race on global memory") && msg.contains("writes bytes [0x0, 0x100)"),
        "{msg}"
    );
    assert!(msg.contains("or make both writes atomic (SetAtomicAdd)"), "a write/write pair: {msg}");
}
