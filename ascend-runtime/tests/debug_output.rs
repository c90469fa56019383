//! Kernel debugging output: `ascend_printf!` and `dump_tensor` on several cores, captured per
//! core and ordered by core.

use ascend_runtime::prelude::*;

/// Each core copies its 8 floats to UB, dumps them (flat and as 2×4), prints a line, and dumps
/// its GM slice.
fn dumping_kernel(x: GmAddr) {
    let idx = get_block_idx() as usize;
    let mut x_gm = GlobalTensor::<f32>::new();
    x_gm.set_global_buffer(x.add::<f32>(idx * 8), 8);
    let mut pipe = TPipe::new();
    let mut buf = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut buf, 32);
    let local = buf.get::<f32>();
    data_copy(&local, &x_gm, 8);
    dump_tensor(&local, 5, 8);
    dump_tensor_shape(&local, 6, 8, &ShapeInfo::new(&[2, 4]));
    ascend_printf!(
        "core %d sum=%.1f tail=%s\n",
        get_block_idx(),
        (0..8).map(|i| local.get_value(i)).sum::<f32>(),
        "ok"
    );
    dump_tensor(&x_gm.view(6), 7, 2);
}

fn expected_core(c: usize) -> Vec<String> {
    let v: Vec<f32> = (0..8).map(|i| (c * 8 + i) as f32 * 0.5).collect();
    let f6 = |x: &f32| format!("{x:.6}");
    let all: Vec<String> = v.iter().map(f6).collect();
    vec![
        "DumpTensor: desc=5, addr=0x0, data_type=float32, position=UB, dump_size=8".to_string(),
        format!("[{}]", all.join(", ")),
        "DumpTensor: desc=6, addr=0x0, data_type=float32, position=UB, dump_size=8".to_string(),
        format!("[[{}],", all[..4].join(",")),
        format!("[{}]]", all[4..].join(",")),
        format!("core {c} sum={:.1} tail=ok", v.iter().sum::<f32>()),
        format!(
            "DumpTensor: desc=7, addr={:#x}, data_type=float32, position=GM, dump_size=2",
            (c * 8 + 6) * 4
        ),
        format!("[{}, {}]", f6(&v[6]), f6(&v[7])),
    ]
}

#[test]
fn four_cores_dump_and_print_in_core_order() {
    let x = GmBuffer::from_vec((0..32).map(|i| i as f32 * 0.5).collect());
    let xa = x.addr();
    for mode in [ExecMode::Pooled, ExecMode::ThreadPerCore, ExecMode::Sequential] {
        let (result, out) =
            Launch::new(Soc::Ascend910B).block_dim(4).mode(mode).capture_output(|| dumping_kernel(xa));
        result.unwrap();
        assert_eq!(out.cores().collect::<Vec<_>>(), [0, 1, 2, 3]);
        let mut all = Vec::new();
        for c in 0..4u32 {
            let expected = expected_core(c as usize);
            assert_eq!(out.core_lines(c), expected, "core {c} in {mode} mode");
            for line in out.core(c).lines() {
                assert!(line.starts_with(&format!("[AIV Block {c}/4] ")), "{line}");
            }
            all.extend(expected.into_iter().map(|l| format!("[AIV Block {c}/4] {l}")));
        }
        assert_eq!(out.lines().collect::<Vec<_>>(), all);
        assert_eq!(out.text(), all.iter().map(|l| format!("{l}\n")).collect::<String>());
    }
}

#[test]
fn output_is_kept_when_a_core_fails() {
    let (result, out) =
        Launch::new(Soc::Ascend910B).block_dim(2).mode(ExecMode::Sequential).capture_output(|| {
            ascend_printf!("before %s", "the failure");
            if get_block_idx() == 1 {
                ascend_core::fail("MyApi", "broken");
            }
        });
    assert_eq!(result.unwrap_err().primary().unwrap().core, 1);
    assert_eq!(out.text(), "[AIV Block 0/2] before the failure\n[AIV Block 1/2] before the failure\n");
}

#[test]
fn shape_larger_and_smaller_than_the_dump() {
    let (result, out) = Launch::new(Soc::Ascend310P).capture_output(|| {
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut buf, 32);
        let t = buf.get::<u16>();
        for i in 0..16 {
            t.set_value(i, i as u16);
        }
        dump_tensor_shape(&t, 3, 4, &ShapeInfo::new(&[3, 2]));
        dump_tensor_shape(&t.view(8), 4, 6, &ShapeInfo::new(&[2, 2]));
    });
    result.unwrap();
    assert_eq!(
        out.core_lines(0),
        [
            "DumpTensor: desc=3, addr=0x0, data_type=uint16, position=UB, dump_size=4",
            "shape is [3, 2], dumpSize is 4, data is not enough.",
            "[[0,1],",
            "[2,3],",
            "[-,-]]",
            "DumpTensor: desc=4, addr=0x10, data_type=uint16, position=UB, dump_size=6",
            "shape is [2, 2], dumpSize is 6, dumpSize is greater than shapeSize.",
            "[[8,9],",
            "[10,11]]",
        ]
    );
}

#[test]
fn dump_size_beyond_the_tensor_is_an_error() {
    let (result, _) = Launch::new(Soc::Ascend910B).capture_output(|| {
        let mut pipe = TPipe::new();
        let mut buf = TBuf::<VecCalc>::new();
        pipe.init_tbuf(&mut buf, 32);
        dump_tensor(&buf.get::<f16>(), 1, 17);
    });
    let e = result.unwrap_err().to_string();
    assert!(e.contains("core 0: DumpTensor: dump_size = 17 exceeds the tensor's 16 half elements"), "{e}");
    assert!(e.contains("debug_output.rs"), "{e}");
}

#[test]
fn debug_shows_the_first_values() {
    Launch::new(Soc::Ascend910B)
        .run(|| {
            let mut pipe = TPipe::new();
            let mut buf = TBuf::<VecCalc>::new();
            pipe.init_tbuf(&mut buf, 64);
            let t = buf.get::<i32>();
            for i in 0..16 {
                t.set_value(i, i as i32 * 3);
            }
            assert_eq!(
                format!("{:?}", t.view_len(0, 2)),
                "LocalTensor<int32_t>(VECCALC, addr 0x0, 2 elements) [0, 3]"
            );
            let s = format!("{t:?}");
            assert!(s.ends_with("16 elements) [0, 3, 6, 9, 12, 15, 18, 21, …]"), "{s}");
        })
        .unwrap();
    let g = GmBuffer::from_vec(vec![1.5f32, 2.5]);
    let ga = g.addr();
    Launch::new(Soc::Ascend910B)
        .run(|| {
            let mut gt = GlobalTensor::<f32>::new();
            assert_eq!(format!("{gt:?}"), "GlobalTensor<float>(+0x0, 0 elements)");
            gt.set_global_buffer(ga, 2);
            assert_eq!(format!("{gt:?}"), "GlobalTensor<float>(+0x0, 2 elements) [1.5, 2.5]");
        })
        .unwrap();
}
