//! End to end across the crates: each example's path (inputs → kernel launch → golden
//! comparison), at small sizes, through the `ascend-kernels` API; and the golden-file path
//! through `.npy` and `.bin` files.

use ascend_kernels::add_custom::{add_reference, run_add_custom};
use ascend_kernels::cli::{input_or, write_output, Args};
use ascend_kernels::data::random_vec;
use ascend_kernels::fill::run_fill;
use ascend_kernels::maximum::{maximum_reference, run_maximum};
use ascend_kernels::reduce_sum::{reduce_sum_reference, run_reduce_sum};
use ascend_kernels::sub_custom::{run_sub_custom, sub_reference};
use ascend_kernels::tiling::TilingConfig;
use ascend_kernels::transpose::{run_transpose, transpose_reference};
use ascend_runtime::npy::{read_npy, write_npy, write_npy_nd};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{assert_bits_eq, assert_close, compare_close, Mismatch, Tolerance};

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ascend-e2e-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn add_custom_default_passes_the_vendor_check() {
    let t = TilingConfig::default();
    let x: Vec<f16> = random_vec(t.total_length, 1, 1.0, 100.0);
    let y: Vec<f16> = random_vec(t.total_length, 2, 1.0, 100.0);
    let (z, stats) = run_add_custom(Soc::Ascend910B, &x, &y, &t).unwrap();
    assert_eq!((stats.block_dim, stats.soc), (8, Soc::Ascend910B));
    assert_close(&z, &add_reference(&x, &y), Tolerance::of::<f16>());
    assert_bits_eq(&z, &add_reference(&x, &y));
}

#[test]
fn add_custom_through_golden_files() {
    // What `--input-x x.npy --input-y y.bin --golden g.npy --output z.bin` does.
    let dir = scratch("add");
    let n = 3000;
    let x: Vec<f16> = random_vec(n, 3, -50.0, 50.0);
    let y: Vec<f16> = random_vec(n, 4, -50.0, 50.0);
    write_npy(dir.join("x.npy"), &x).unwrap();
    ascend_runtime::npy::write_bin(dir.join("y.bin"), &y).unwrap();
    write_npy(dir.join("g.npy"), &add_reference(&x, &y)).unwrap();
    let args = Args::parse(
        [
            "--input-x",
            dir.join("x.npy").to_str().unwrap(),
            "--input-y",
            dir.join("y.bin").to_str().unwrap(),
            "--golden",
            dir.join("g.npy").to_str().unwrap(),
            "--output",
            dir.join("z.bin").to_str().unwrap(),
            "--cores",
            "48",
        ]
        .map(String::from),
        &["input-x", "input-y", "golden", "output", "cores"],
    )
    .unwrap();
    let xs: Vec<f16> = input_or(&args.input_x, Vec::new).unwrap();
    let ys: Vec<f16> = input_or(&args.input_y, Vec::new).unwrap();
    let golden: Vec<f16> = input_or(&args.golden, Vec::new).unwrap();
    let (z, _) =
        run_add_custom(args.soc, &xs, &ys, &TilingConfig::new::<f16>(n, args.cores.unwrap())).unwrap();
    write_output(&args.output, &z).unwrap();
    let back: Vec<f16> = ascend_runtime::npy::read_bin(dir.join("z.bin")).unwrap();
    compare_close(&back, &golden, Tolerance::of::<f16>()).unwrap();

    // A wrong golden file fails with a report.
    let mut wrong = golden.clone();
    for v in wrong.iter_mut().take(10) {
        *v = f16::from_f32(v.to_f32() + 1.0);
    }
    match compare_close(&back, &wrong, Tolerance::of::<f16>()) {
        Err(Mismatch::Values(r)) => {
            assert_eq!(r.mismatches, 10);
            assert_eq!(r.first[0].index, 0);
        }
        other => panic!("expected a value mismatch, got {other:?}"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sub_custom_and_fill() {
    let t = TilingConfig::new::<i32>(5000, 8);
    let x: Vec<i32> = random_vec(5000, 5, -1e9, 1e9);
    let y: Vec<i32> = random_vec(5000, 6, -1e9, 1e9);
    let (z, _) = run_sub_custom(Soc::Ascend310P, &x, &y, &t).unwrap();
    assert_eq!(z, sub_reference(&x, &y));
    let (v, _) = run_fill(Soc::Ascend910B, 12345, bf16::from_f32(1.5), 8).unwrap();
    assert!(v.iter().all(|b| b.to_f32() == 1.5));
}

#[test]
fn maximum_example_path() {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        let x: Vec<f32> = random_vec(10_000, 7, -100.0, 100.0);
        let y: Vec<f32> = random_vec(10_000, 8, -100.0, 100.0);
        let (z, _) = run_maximum(soc, &x, &y, &TilingConfig::new::<f32>(10_000, 8)).unwrap();
        compare_close(&z, &maximum_reference(&x, &y), Tolerance::exact()).unwrap();
    }
    let x: Vec<f16> = random_vec(4096, 9, -100.0, 100.0);
    let (z, _) = run_maximum(Soc::Ascend910B, &x, &x, &TilingConfig::new::<f16>(4096, 48)).unwrap();
    assert_bits_eq(&z, &x);
}

#[test]
fn transpose_example_path_with_a_2d_npy() {
    let dir = scratch("transpose");
    let (rows, cols) = (96, 160);
    let x: Vec<f16> = random_vec(rows * cols, 10, -1000.0, 1000.0);
    write_npy_nd(dir.join("m.npy"), &[rows, cols], &x).unwrap();
    let m = read_npy::<f16>(dir.join("m.npy")).unwrap();
    assert_eq!(m.shape, vec![rows, cols]);
    let (y, _) = run_transpose(Soc::Ascend910B, &m.data, rows, cols, 8).unwrap();
    assert_bits_eq(&y, &transpose_reference(&x, rows, cols));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn reduce_sum_example_path_on_every_chip() {
    let x: Vec<f32> = random_vec(100_000, 11, 0.0, 1.0);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let t = TilingConfig::new::<f32>(x.len(), 8);
    for soc in Soc::ALL {
        let (s, stats) = run_reduce_sum(soc, &x, &t).unwrap();
        assert_eq!(stats.mode, ExecMode::ThreadPerCore);
        assert_eq!(s.to_bits(), reduce_sum_reference(soc, &x, &t).to_bits(), "{soc}");
        assert_close(&[s], &[exact as f32], Tolerance::of::<f32>());
    }
}

#[test]
fn failures_come_back_as_errors_naming_the_core() {
    // Select mode 2 does not exist on Ascend910.
    let x = vec![1.0f32; 64 * 8];
    let e = run_maximum(Soc::Ascend910, &x, &x, &TilingConfig::new::<f32>(x.len(), 8)).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("core ") && msg.contains("Ascend910"), "{msg}");
}

/// The walkthrough in `docs/writing-your-first-kernel.md` shows the kernel's real code: every
/// paragraph of its kernel, entry-point and launcher blocks appears line for line in the
/// sources (doc comments and attributes aside, as the walkthrough leaves them out).
#[test]
fn first_kernel_walkthrough_matches_the_source() {
    let doc = include_str!("../docs/writing-your-first-kernel.md");
    let sources = [
        include_str!("../ascend-kernels/src/add_custom.rs"),
        include_str!("../ascend-kernels/src/elementwise.rs"),
        include_str!("../ascend-kernels/src/host.rs"),
    ];
    let code: Vec<String> = sources
        .iter()
        .flat_map(|s| s.lines())
        .map(str::trim)
        .filter(|l| !l.starts_with("///") && !l.starts_with("#[") && !l.is_empty())
        .map(String::from)
        .collect();
    let code = format!("\n{}\n", code.join("\n"));
    let checked = ["pub struct KernelBinary", "pub struct Add", "pub fn", "fn ", "let (t, launch)"];
    let mut blocks = 0;
    for block in doc.split("```rust\n").skip(1).map(|b| b.split("```").next().unwrap()) {
        if !checked.iter().any(|p| block.starts_with(p)) {
            continue;
        }
        blocks += 1;
        for para in block.split("\n\n") {
            let lines: Vec<&str> = para.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let para = format!("\n{}\n", lines.join("\n"));
            assert!(code.contains(&para), "not in the source:{para}");
        }
    }
    assert_eq!(blocks, 7, "code blocks checked");
}

#[test]
fn embedding_example_path_on_three_chips() {
    use ascend_kernels::embedding::{embedding_reference, run_embedding, EmbeddingTiling};
    let (vocab, dim) = (256, 32);
    let table: Vec<f32> = random_vec(vocab * dim, 1, -1.0, 1.0);
    let indices: Vec<i32> = (0..4096).map(|i| ((i * 7919) % vocab) as i32).collect();
    for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
        let t = EmbeddingTiling::new(vocab, dim, indices.len(), 8);
        let (out, _) = run_embedding(soc, &table, &indices, &t).unwrap();
        assert_bits_eq(&out, &embedding_reference(&table, dim, &indices));
    }
}

#[test]
fn softmax_and_norm_example_paths() {
    use ascend_kernels::norm::{layer_norm_reference, rms_norm_reference, run_layer_norm, run_rms_norm};
    use ascend_kernels::rows::RowTiling;
    use ascend_kernels::softmax::{run_softmax, softmax_reference};
    // Rows not a multiple of the core count, rows not whole 32-byte blocks.
    for (rows, cols, cores) in [(103, 1000, 8), (50, 4096, 48), (5, 77, 1)] {
        let t = RowTiling::new(rows, cols, cores);
        let x: Vec<f16> = random_vec(rows * cols, 1, -3.0, 5.0);
        let gamma: Vec<f16> = random_vec(cols, 2, 0.5, 1.5);
        let beta: Vec<f16> = random_vec(cols, 3, -1.0, 1.0);
        let (y, _) = run_softmax(Soc::Ascend910B, &x, &t).unwrap();
        assert_close(&y, &softmax_reference(&x, cols), Tolerance::of::<f16>());
        let (y, _) = run_rms_norm(Soc::Ascend910B, &x, &gamma, 1e-6, &t).unwrap();
        assert_close(&y, &rms_norm_reference(&x, &gamma, 1e-6), Tolerance::of::<f16>());
        let (y, _) = run_layer_norm(Soc::Ascend910B, &x, &gamma, &beta, 1e-5, &t).unwrap();
        assert_close(&y, &layer_norm_reference(&x, &gamma, &beta, 1e-5), Tolerance::of::<f16>());
        let x: Vec<f32> = random_vec(rows * cols, 4, -3.0, 5.0);
        let (gamma, beta): (Vec<f32>, Vec<f32>) =
            (random_vec(cols, 5, 0.5, 1.5), random_vec(cols, 6, -1.0, 1.0));
        let (y, _) = run_softmax(Soc::Ascend910B, &x, &t).unwrap();
        assert_close(&y, &softmax_reference(&x, cols), Tolerance::of::<f32>());
        let (y, _) = run_rms_norm(Soc::Ascend910B, &x, &gamma, 1e-6, &t).unwrap();
        assert_close(&y, &rms_norm_reference(&x, &gamma, 1e-6), Tolerance::of::<f32>());
        let (y, _) = run_layer_norm(Soc::Ascend910B, &x, &gamma, &beta, 1e-5, &t).unwrap();
        assert_close(&y, &layer_norm_reference(&x, &gamma, &beta, 1e-5), Tolerance::of::<f32>());
    }
}

#[test]
fn gelu_example_path_with_an_unaligned_tail() {
    use ascend_kernels::gelu::{gelu_reference, run_gelu};
    for (n, cores) in [((1 << 16) + 13, 8), (100_003, 48), (1001, 1)] {
        let x: Vec<f16> = random_vec(n, 1, -6.0, 6.0);
        let (y, _) = run_gelu(Soc::Ascend910B, &x, &TilingConfig::new::<f16>(n, cores)).unwrap();
        assert_close(&y, &gelu_reference(&x), Tolerance::of::<f16>());
    }
}
