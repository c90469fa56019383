//! The dequantisation family inside launches: a quantised int16 tile through
//! `SetDeqScale(vdeq, vdeqInfo)` and `CastDequant` on every core with the sanitizer on; the
//! vector table written by the scalar unit and read by the vector pipe needs the S→V ordering
//! that the compiler's automatic synchronisation gives (and an event without it).

use ascend_runtime::prelude::*;

const N: usize = 256;

/// Each core: 256 int16 values from GM, `CastDequant` with a per-lane table (scale `k + 1` of
/// lane `k`, offset `-block`), 512 bytes back to GM. `event`: order the table's scalar stores
/// before the vector pipe by hand.
fn kernel(x: GmAddr, y: GmAddr, event: bool) {
    let core = get_block_idx() as usize;
    let mut xg = GlobalTensor::<i16>::new();
    xg.set_global_buffer(x.add::<i16>(core * N), N);
    let mut yg = GlobalTensor::<u8>::new();
    yg.set_global_buffer(y.add::<u8>(core * 2 * N), 2 * N);
    let mut pipe = TPipe::new();
    let (mut bx, mut by, mut bt) = (TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new(), TBuf::<VecCalc>::new());
    pipe.init_tbuf(&mut bx, N * 2);
    pipe.init_tbuf(&mut by, N * 2);
    pipe.init_tbuf(&mut bt, 128);
    let (xl, yl, table) = (bx.get::<i16>(), by.get::<u8>(), bt.get::<u64>());
    data_copy(&xl, &xg, N);
    let info = VdeqInfo::new(core::array::from_fn(|k| (k + 1) as f32), [-(core as i16); 16], [false; 16]);
    set_deq_scale_vdeq(&table, &info);
    if event {
        set_flag::<HardEvent::S_V>(0);
        wait_flag::<HardEvent::S_V>(0);
    }
    set_flag::<HardEvent::MTE2_V>(0);
    wait_flag::<HardEvent::MTE2_V>(0);
    duplicate(&yl.reinterpret_cast::<u16>(), 0u16, N);
    pipe_barrier::<PIPE_V>();
    cast_dequant::<u8, i16, true, false>(&yl, &xl, N);
    set_flag::<HardEvent::V_MTE3>(0);
    wait_flag::<HardEvent::V_MTE3>(0);
    data_copy(&yg, &yl, 2 * N);
}

fn expected(cores: usize, x: &[i16]) -> Vec<u8> {
    let mut y = vec![0u8; cores * 2 * N];
    for c in 0..cores {
        for i in 0..N {
            let k = i % 16;
            let v = (x[c * N + i] as i64 * (k as i64 + 1) - c as i64).clamp(0, 255);
            y[c * 2 * N + (i / 16) * 32 + k] = v as u8;
        }
    }
    y
}

#[test]
fn cast_dequant_on_every_core() {
    let cores = 4;
    let x: Vec<i16> = (0..cores * N).map(|i| (i % 40) as i16 - 5).collect();
    let xb = GmBuffer::from_vec(x.clone());
    let yb = GmBuffer::from_vec(vec![0u8; cores * 2 * N]);
    Launch::new(Soc::Ascend910B).block_dim(cores as u32).run(|| kernel(xb.addr(), yb.addr(), false)).unwrap();
    assert_eq!(yb.to_vec(), expected(cores, &x));
}

#[test]
fn the_table_needs_the_scalar_to_vector_ordering() {
    let x: Vec<i16> = vec![3; N];
    let xb = GmBuffer::from_vec(x.clone());
    let yb = GmBuffer::from_vec(vec![0u8; 2 * N]);
    let err = Launch::new(Soc::Ascend310P)
        .auto_sync(false)
        .run(|| kernel(xb.addr(), yb.addr(), false))
        .unwrap_err()
        .to_string();
    assert!(err.contains("CastDequant") && err.contains("SetValue"), "{err}");
    Launch::new(Soc::Ascend310P).auto_sync(false).run(|| kernel(xb.addr(), yb.addr(), true)).unwrap();
    assert_eq!(yb.to_vec(), expected(1, &x));
}
