//! Line-by-line port of the vendor's `gm_by_pass_dcache` example (`mirror-cann/asc-devkit`,
//! `examples/01_simd_cpp_api/03_basic_api/09_utils/gm_by_pass_dcache`): one core reads the
//! first `int32_t` of the input straight from global memory with `ReadGmByPassDCache`, waits
//! for its GM accesses with `DataSyncBarrier<MemDsbT::DDR>`, and writes that value plus 100 to
//! the first element of the output with `WriteGmByPassDCache`; the rest of the output stays
//! as it was (zero: `gen_data.py`'s golden is zeros but for element 0).
//!
//! The example is built for Atlas A2 (`dav-2201`), our Ascend910B, and Atlas A3 / Ascend 950
//! (not modelled); on the other modelled chips the kernel stops at `ReadGmByPassDCache`, an
//! error naming the chip. `value + ADD_VALUE` wraps, as `int32_t` addition does on the chip
//! and in the golden's numpy arithmetic (the input spans the whole `int32_t` range).
//!
//! The README's reason for the APIs — several cores writing unaligned data in one cache line
//! would overwrite each other through the data cache — is checked too: eight cores each write
//! their own `int32_t` of one 64-byte line with `WriteGmByPassDCache`, and every value lands,
//! with the sanitizer on and silent.
//!
//! `inter_core.rs` holds an earlier, shorter port of the same example (one seeded run); this
//! module is the complete one.

use ascend_kernels::data::XorShift64;
use ascend_runtime::prelude::*;

use crate::gm_of;

const ADD_VALUE: i32 = 100;
const DATA_SIZE: usize = 1024;

/// `KernelGmByPassDcache<T>`.
struct KernelGmByPassDcache<T: ByPassDCacheElement> {
    src_global: GlobalTensor<T>,
    dst_global: GlobalTensor<T>,
}

impl KernelGmByPassDcache<i32> {
    fn new() -> Self {
        KernelGmByPassDcache { src_global: GlobalTensor::new(), dst_global: GlobalTensor::new() }
    }

    fn init(&mut self, src_gm: GmAddr, dst_gm: GmAddr) {
        self.src_global = gm_of::<i32>(src_gm);
        self.dst_global = gm_of::<i32>(dst_gm);
    }

    fn process(&mut self) {
        let src_addr = self.src_global.get_phy_addr();
        let value = read_gm_by_pass_dcache::<i32>(src_addr); // READ
                                                             // Holds the later instructions until every earlier GM access has finished.
        data_sync_barrier::<MemDsbT::DDR>();
        let dst_addr = self.dst_global.get_phy_addr();
        write_gm_by_pass_dcache::<i32>(dst_addr, value.wrapping_add(ADD_VALUE));
    }
}

/// `kernel_gm_by_pass_dcache`.
fn kernel_gm_by_pass_dcache(src_gm: GmAddr, dst_gm: GmAddr) {
    init_soc_state();
    let mut op = KernelGmByPassDcache::<i32>::new();
    op.init(src_gm, dst_gm);
    op.process();
    pipe_barrier::<PIPE_ALL>();
}

/// `gen_data.py`: `DATA_SIZE` values uniform in `[INT32_MIN, INT32_MAX)`; the golden is zeros
/// but for element 0, `x[0] + 100` (wrapping).
fn gen_data(seed: u64) -> (Vec<i32>, Vec<i32>) {
    let mut rng = XorShift64::new(seed);
    let x: Vec<i32> = (0..DATA_SIZE).map(|_| rng.range(i32::MIN.into(), i32::MAX.into()) as i32).collect();
    let mut golden = vec![0; DATA_SIZE];
    golden[0] = x[0].wrapping_add(ADD_VALUE);
    (x, golden)
}

/// `main`: one core on `soc`; returns the output or the launch's error.
fn run(soc: Soc, x: Vec<i32>) -> Result<Vec<i32>, LaunchError> {
    let xg = GmBuffer::from_vec(x);
    let zg = GmBuffer::<i32>::zeroed(DATA_SIZE);
    let (xa, za) = (xg.addr(), zg.addr());
    Launch::new(soc).block_dim(1).run(move || kernel_gm_by_pass_dcache(xa, za))?;
    Ok(zg.to_vec())
}

/// The line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    let src = include_str!("gm_by_pass_dcache.rs");
    1 + src.lines().position(|l| l.contains(marker) && !l.contains("line_of")).expect("marker") as u32
}

#[test]
fn the_output_is_the_golden_data_bit_for_bit() {
    for seed in [1, 2, 3] {
        let (x, golden) = gen_data(seed);
        assert_eq!(run(Soc::Ascend910B, x).unwrap(), golden, "seed {seed}");
    }
}

#[test]
fn the_addition_wraps_like_int32_t() {
    let mut x = vec![7; DATA_SIZE];
    x[0] = i32::MAX - 49;
    let z = run(Soc::Ascend910B, x).unwrap();
    assert_eq!(z[0], i32::MIN + 50);
    assert!(z[1..].iter().all(|&v| v == 0));
}

#[test]
fn chips_without_the_by_pass_accesses_name_themselves() {
    for soc in [Soc::Ascend910, Soc::Ascend310P, Soc::Ascend310B] {
        let e = run(soc, gen_data(1).0).unwrap_err();
        let f = e.primary().expect("a fault");
        assert_eq!(f.api, "ReadGmByPassDCache");
        assert_eq!(f.message, format!("not supported on {soc} ({})", soc.product_line()));
        assert!(f.file.ends_with("gm_by_pass_dcache.rs"), "{}", f.file);
        assert_eq!(f.line, line_of("// READ"));
    }
}

#[test]
fn cores_writing_one_cache_line_by_pass_the_cache_without_clobbering() {
    const CORES: usize = 8;
    // 16 int32_t: one 64-byte line; each core writes its own element.
    let line = GmBuffer::<i32>::zeroed(16);
    let la = line.addr();
    Launch::new(Soc::Ascend910B)
        .block_dim(CORES as u32)
        .run(move || {
            let idx = get_block_idx() as usize;
            write_gm_by_pass_dcache::<i32>(la.add::<i32>(2 * idx), 1000 + idx as i32);
        })
        .unwrap();
    let got = line.to_vec();
    for i in 0..CORES {
        assert_eq!((got[2 * i], got[2 * i + 1]), (1000 + i as i32, 0), "core {i}");
    }
}
