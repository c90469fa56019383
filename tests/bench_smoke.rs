//! Every row of the benchmark on tiny sizes, so the benchmark cannot rot. This is not a timed
//! test: it checks that each row runs, verifies its result, and produces a finite ratio.

#[path = "../examples/bench.rs"]
#[allow(unused)]
mod bench;

#[test]
fn every_benchmark_row_runs() {
    let rows = bench::run(&bench::Sizes::smoke());
    let groups = [
        "streaming",
        "streaming (vs staged loop)",
        "sanitizer (on vs off)",
        "profiler (on vs off)",
        "matmul",
        "instructions (16 KiB tile)",
        "launch",
        "scaling",
    ];
    for g in groups {
        assert!(rows.iter().any(|r| r.group == g), "no row in group {g}");
    }
    // 12 streaming kernel rows (2 kernels x 2 core counts x 3 tile sizes) + the copy row + 2
    // bulk GM copy rows + 6 rows against the staged loop (sub_custom: 2 core counts, sanitizer
    // off / on; add_custom: 2 core counts), 8
    // sanitizer rows (2 kernels x 3 tile sizes, GM SetValue and GetValue loops), 12 f32/f16
    // elementwise rows, 6 mul/muls/exp rows, 4 cast rows, 2 vec_trans rows, 4 vec_reduce_add
    // rows, 3 profiler rows (off; on at 16 KiB and 128-element tiles), 1 high-level Matmul row, 12 launch
    // rows (1, 8 and 48 cores: no sync_all, with it on a thread per core, with it pooled, and
    // the default empty launch), 2 scaling rows.
    assert_eq!(
        rows.len(),
        21 + 8 + 12 + 6 + 4 + 2 + 4 + 3 + 1 + 12 + 2,
        "rows: {:#?}",
        rows.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
    for r in &rows {
        assert!(r.ratio().is_finite() && r.ratio() > 0.0, "row {} has ratio {}", r.name, r.ratio());
    }
    bench::print_table(&rows);
}
