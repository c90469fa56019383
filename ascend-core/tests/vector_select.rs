//! `Select`: the seed's worked examples bit for bit, f16 variants, register forms, a random
//! comparison against a slow scalar reference on every chip, and every check's message.

use crate::common::seed_data;

use ascend_core::prelude::*;
use proptest::prelude::*;
use seed_data::*;

use crate::common::util;
use util::{assert_bits, assert_bits_ctx, conv, expect_panic, panic_message, ub, Rng, Ub};

use crate::common::prop as strat;

// ----------------------------------------------------------------------------------------------
// Helpers.

#[track_caller]
fn assert_fails(expected: &str, f: impl FnOnce()) {
    let m = expect_panic(f, &[expected]);
    assert!(m.contains("Select") || m.contains("SetCmpMask"), "message {m:?} does not name the API");
}

const P: BinaryRepeatParams = BinaryRepeatParams::new(1, 1, 1, 8, 8, 8);

/// dst, src0, src1 (each 1 KiB) and sel (256 bytes) filled with the seed's inputs.
struct Seed {
    u: Ub,
}

impl Seed {
    fn new<T: Element>(sel: &[u8]) -> Seed {
        let u = ub(4096);
        u.t::<T>(1024, 256).copy_from_slice(&conv::<T>(&SELECT_SRC0));
        u.t::<T>(2048, 256).copy_from_slice(&conv::<T>(&SELECT_SRC1));
        u.t::<u8>(3072, 256).copy_from_slice(sel);
        Seed { u }
    }
    fn dst<T: Element>(&self) -> LocalTensor<T> {
        self.u.t(0, 256)
    }
    fn src0<T: Element>(&self) -> LocalTensor<T> {
        self.u.t(1024, 256)
    }
    fn src1<T: Element>(&self) -> LocalTensor<T> {
        self.u.t(2048, 256)
    }
    fn sel<U: Element>(&self) -> LocalTensor<U> {
        self.u.t(3072, 256 / U::SIZE)
    }
    /// `select_masked` of f32 in VSEL_TENSOR_TENSOR_MODE (u8 selMask, mask 64, params `P`).
    fn mode2_masked_f32(&self, dst: &LocalTensor<f32>, repeats: u8) {
        let m = SelMode::VselTensorTensorMode;
        select_masked::<f32, u8, true>(dst, &self.sel(), &self.src0(), &self.src1(), m, 64u64, repeats, &P);
    }
    /// 64 scratch bytes (one TPipe per core: everything lives in this one buffer).
    fn scratch<T: Element>(&self) -> LocalTensor<T> {
        self.u.t(3584, 64 / T::SIZE)
    }
}

// ----------------------------------------------------------------------------------------------
// The seed's worked examples (f32, 256 elements), for every selMask type.

macro_rules! seed_tests {
    ($($u:ty),*) => { paste::paste! { $(
        #[test]
        fn [<seed_mode2_masked_ $u>]() {
            for soc in [Soc::Ascend910B, Soc::Ascend310P, Soc::Ascend310B] {
                run_on_core(CoreConfig::single(soc), || {
                    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
                    select_masked::<f32, $u, true>(&s.dst(), &s.sel::<$u>(), &s.src0(), &s.src1(),
                        SelMode::VselTensorTensorMode, 64u64, 4, &P);
                    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE2_DST);
                });
            }
        }

        #[test]
        fn [<seed_mode2_count_ $u>]() {
            let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
            select::<f32, _>(&s.dst(), &s.sel::<$u>(), &s.src0(), &s.src1(), SelMode::VselTensorTensorMode, 256);
            assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE2_DST);
        }

        #[test]
        fn [<seed_mode1_count_ $u>]() {
            let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
            select_scalar::<f32, _>(&s.dst(), &s.sel::<$u>(), &s.src0(), SELECT_MODE1_SCALAR,
                SelMode::VselTensorScalarMode, 256);
            assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE1_DST);
        }

        #[test]
        fn [<seed_mode1_masked_ $u>]() {
            let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
            select_scalar_masked::<f32, $u, true>(&s.dst(), &s.sel::<$u>(), &s.src0(), SELECT_MODE1_SCALAR,
                SelMode::VselTensorScalarMode, [u64::MAX, 0], 4, &P);
            assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE1_DST);
        }

        #[test]
        fn [<seed_mode0_all_forms_ $u>]() {
            for soc in Soc::ALL {
                run_on_core(CoreConfig::single(soc), || {
                    let s = Seed::new::<f32>(&SELECT_SEL_MODE0);
                    let m = SelMode::VselCmpmaskSpr;
                    select::<f32, _>(&s.dst(), &s.sel::<$u>(), &s.src0(), &s.src1(), m, 256);
                    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE0_DST);
                    s.dst::<f32>().copy_from_slice(&[0.0; 256]);
                    select_masked::<f32, $u, true>(&s.dst(), &s.sel::<$u>(), &s.src0(), &s.src1(), m, 64u64, 4, &P);
                    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE0_DST);
                    s.dst::<f32>().copy_from_slice(&[0.0; 256]);
                    select_masked::<f32, $u, true>(&s.dst(), &s.sel::<$u>(), &s.src0(), &s.src1(), m,
                        [u64::MAX, 0], 4, &P);
                    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE0_DST);
                });
            }
        }
    )* } };
}
seed_tests!(u8, u16, u32, u64);

/// Mode 0 reuses the first 64 bits: the padded layout's later groups are never read, so a
/// selMask holding only the first 8 bytes (then anything) gives the same result.
#[test]
fn seed_mode0_ignores_bits_past_par() {
    let mut sel = SELECT_SEL_MODE0;
    for b in &mut sel[8..] {
        *b = 0xA5;
    }
    let s = Seed::new::<f32>(&sel);
    select::<f32, _>(&s.dst(), &s.sel::<u8>(), &s.src0(), &s.src1(), SelMode::VselCmpmaskSpr, 256);
    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE0_DST);
}

/// The seed's prose example: src0 1..8, src1 9..16, selMask bits 0000 1111, vector mask on the
/// first 4 lanes, dst -1..-8 → [9, 10, 11, 12, -5, -6, -7, -8].
fn prose<T: SelectElement>(mode: SelMode, mask: Mask, is_set_mask: bool) {
    let u = ub(1024);
    let (dst, s0, s1, sel) = (u.t::<T>(0, 8), u.t::<T>(256, 8), u.t::<T>(512, 8), u.t::<u8>(768, 32));
    s0.copy_from_slice(&conv::<T>(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]));
    s1.copy_from_slice(&conv::<T>(&[9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]));
    dst.copy_from_slice(&conv::<T>(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]));
    sel.set_value(0, 0b1111_0000);
    if is_set_mask {
        select_masked::<T, u8, true>(&dst, &sel, &s0, &s1, mode, mask, 1, &P);
    } else {
        set_vector_mask::<T>(mask);
        select_masked::<T, u8, false>(&dst, &sel, &s0, &s1, mode, MASK_PLACEHOLDER, 1, &P);
        reset_mask();
    }
    assert_bits(&dst.to_vec(), &conv::<T>(&[9.0, 10.0, 11.0, 12.0, -5.0, -6.0, -7.0, -8.0]));
}

#[test]
fn seed_prose_example() {
    for soc in Soc::ALL {
        run_on_core(CoreConfig::single(soc), || {
            for mode in [SelMode::VselCmpmaskSpr, SelMode::VselTensorTensorMode] {
                if !soc.supports_select_mode(mode as u8) {
                    continue;
                }
                for mask in [Mask::Count(4), Mask::Bits([0b1111, 0])] {
                    for set in [true, false] {
                        prose::<f32>(mode, mask, set);
                        prose::<f16>(mode, mask, set);
                    }
                }
            }
        });
    }
}

// ----------------------------------------------------------------------------------------------
// f16 variants of the seed examples (modes 1 and 2 consume bits contiguously, so the
// expected outputs carry over element for element).

#[test]
fn seed_f16_modes_1_and_2() {
    let s = Seed::new::<f16>(&SELECT_SEL_MODE12);
    select_masked::<f16, u8, true>(
        &s.dst(),
        &s.sel::<u8>(),
        &s.src0(),
        &s.src1(),
        SelMode::VselTensorTensorMode,
        128u64,
        2,
        &P,
    );
    assert_bits(&s.dst::<f16>().to_vec(), &conv::<f16>(&SELECT_MODE2_DST));
    select::<f16, _>(&s.dst(), &s.sel::<u32>(), &s.src0(), &s.src1(), SelMode::VselTensorTensorMode, 256);
    assert_bits(&s.dst::<f16>().to_vec(), &conv::<f16>(&SELECT_MODE2_DST));
    select_scalar::<f16, _>(
        &s.dst(),
        &s.sel::<u16>(),
        &s.src0(),
        f16::ZERO,
        SelMode::VselTensorScalarMode,
        256,
    );
    assert_bits(&s.dst::<f16>().to_vec(), &conv::<f16>(&SELECT_MODE1_DST));
}

/// f16 mode 0: every 128-lane repeat reuses the first 128 bits (bytes 0..16).
#[test]
fn seed_f16_mode0_reuses_128_bits() {
    let s = Seed::new::<f16>(&SELECT_SEL_MODE0);
    select::<f16, _>(&s.dst(), &s.sel::<u8>(), &s.src0(), &s.src1(), SelMode::VselCmpmaskSpr, 256);
    let want: Vec<f32> = (0..256)
        .map(|i| {
            let k = i % 128;
            if SELECT_SEL_MODE0[k / 8] >> (k % 8) & 1 == 1 {
                SELECT_SRC0[i]
            } else {
                SELECT_SRC1[i]
            }
        })
        .collect();
    assert_bits(&s.dst::<f16>().to_vec(), &conv::<f16>(&want));
}

// ----------------------------------------------------------------------------------------------
// Side effects on the compare-mask register, and the register forms.

#[test]
fn tensor_forms_load_the_compare_mask_register() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE0);
    select::<f32, _>(&s.dst(), &s.sel::<u8>(), &s.src0(), &s.src1(), SelMode::VselCmpmaskSpr, 64);
    let b = &SELECT_SEL_MODE0;
    assert_eq!(
        get_cmp_mask(),
        [u64::from_le_bytes(b[..8].try_into().unwrap()), u64::from_le_bytes(b[8..16].try_into().unwrap())]
    );
    let sel = s.sel::<u8>();
    select::<f32, _>(&s.dst(), &sel, &s.src0(), &s.src1(), SelMode::VselTensorTensorMode, 64);
    let a = sel.get_phy_addr() as u64;
    assert_eq!(get_cmp_mask(), [a | a << 32, a | a << 32]);
    select_scalar::<f32, _>(&s.dst(), &sel, &s.src0(), 1.5f32, SelMode::VselTensorScalarMode, 64);
    let w = 1.5f32.to_bits() as u64;
    assert_eq!(get_cmp_mask(), [w | w << 32, w | w << 32]);
}

#[test]
fn register_form_mode0() {
    for soc in Soc::ALL {
        run_on_core(CoreConfig::single(soc), || {
            let s = Seed::new::<f32>(&SELECT_SEL_MODE0);
            set_cmp_mask(&s.sel::<u8>());
            set_vector_mask::<f32>(64u64);
            select_reg::<f32, 0>(&s.dst(), &s.src0(), &s.src1(), 4, &P);
            assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE0_DST);
            // Counter mode: the register is an element count.
            s.dst::<f32>().copy_from_slice(&[0.0; 256]);
            set_mask_count();
            set_vector_mask::<f32>(100u64);
            select_reg::<f32, 0>(&s.dst(), &s.src0(), &s.src1(), 1, &P);
            set_mask_norm();
            reset_mask();
            let got = s.dst::<f32>().to_vec();
            assert_bits(&got[..100], &SELECT_MODE0_DST[..100]);
            assert!(got[100..].iter().all(|x| *x == 0.0));
        });
    }
}

#[test]
fn register_form_mode2_reads_the_address_in_the_register() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let reg = s.scratch::<u32>();
    let sel = s.sel::<u8>();
    for i in 0..8 {
        reg.set_value(i, sel.get_phy_addr() as u32);
    }
    set_cmp_mask(&reg);
    set_vector_mask::<f32>([u64::MAX, 0]);
    select_reg::<f32, 2>(&s.dst(), &s.src0(), &s.src1(), 4, &P);
    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE2_DST);
    // The same with a 64-bit address (as in the CPU-debug example).
    let reg64 = s.scratch::<u64>();
    reg64.set_value(0, sel.get_phy_addr() as u64);
    set_cmp_mask(&reg64);
    s.dst::<f32>().copy_from_slice(&[0.0; 256]);
    select_reg::<f32, 2>(&s.dst(), &s.src0(), &s.src1(), 4, &P);
    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE2_DST);
}

#[test]
fn register_form_mode1_takes_the_scalar_from_the_register() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let reg = s.scratch::<f32>();
    reg.copy_from_slice(&[SELECT_MODE1_SCALAR; 8]);
    set_cmp_mask(&reg);
    set_vector_mask::<f32>(64u64);
    s.dst::<f32>().copy_from_slice(&[9.0; 256]);
    select_scalar_reg::<f32, u8>(&s.dst(), &s.sel::<u8>(), &s.src0(), 4, &P);
    assert_bits(&s.dst::<f32>().to_vec(), &SELECT_MODE1_DST);
    // A tensor-form call of mode 1 leaves its scalar in the register.
    select_scalar::<f32, _>(&s.dst(), &s.sel::<u8>(), &s.src0(), 2.5f32, SelMode::VselTensorScalarMode, 8);
    s.dst::<f32>().copy_from_slice(&[9.0; 256]);
    select_scalar_reg::<f32, u8>(&s.dst(), &s.sel::<u8>(), &s.src0(), 1, &P);
    let d = s.dst::<f32>().to_vec();
    assert_eq!(d[0], 2.5, "bit 0 of 60 is clear");
    assert_eq!(d[2], SELECT_SRC0[2], "bit 2 of 60 is set");
    // f16: the low two bytes.
    let h = s.scratch::<f16>();
    h.copy_from_slice(&[f16::from_f32(-3.0); 16]);
    set_cmp_mask(&h);
    set_vector_mask::<f16>(128u64);
    select_scalar_reg::<f16, u8>(&s.dst(), &s.sel::<u8>(), &s.src0(), 1, &P);
    assert_eq!(s.dst::<f16>().get_value(0), f16::from_f32(-3.0));
    reset_mask();
}

#[test]
fn in_place_is_allowed() {
    {
        let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
        select::<f32, _>(&s.src0(), &s.sel::<u8>(), &s.src0(), &s.src1(), SelMode::VselTensorTensorMode, 256);
        assert_bits(&s.src0::<f32>().to_vec(), &SELECT_MODE2_DST);
    }
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    s.mode2_masked_f32(&s.src1(), 4);
    assert_bits(&s.src1::<f32>().to_vec(), &SELECT_MODE2_DST);
}

#[test]
fn zero_count_and_zero_repeats_do_nothing() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    s.dst::<f32>().copy_from_slice(&[4.0; 256]);
    select::<f32, _>(&s.dst(), &s.sel::<u8>(), &s.src0(), &s.src1(), SelMode::VselTensorTensorMode, 0);
    s.mode2_masked_f32(&s.dst(), 0);
    assert!(s.dst::<f32>().to_vec().iter().all(|x| *x == 4.0));
}

// ----------------------------------------------------------------------------------------------
// Random comparison against a slow scalar reference.

/// A value in [-100, 100] with two decimals.
fn rand_f32(rng: &mut Rng) -> f32 {
    (rng.below(20001) as f32 - 10000.0) / 100.0
}

const REGION: usize = 4096;

/// The slow reference: which global lanes run, in order, for a mask/repeat/mode combination.
fn reference_lanes(
    par: usize,
    counter: Option<usize>,
    bits: [u64; 2],
    repeats: usize,
) -> Vec<(usize, usize)> {
    match counter {
        Some(n) => (0..n).map(|g| (g / par, g % par)).collect(),
        None => {
            let mut v = Vec::new();
            for r in 0..repeats {
                for j in 0..par {
                    if bits[j / 64] >> (j % 64) & 1 == 1 {
                        v.push((r, j));
                    }
                }
            }
            v
        }
    }
}

/// The shape of one random call; every field shrinks towards the simplest call.
#[derive(Clone, Debug)]
struct SelCase {
    /// Index into the modes the chip supports.
    mode: usize,
    /// 0: count form, 1: mask set, 2: mask register, 3: counter mode.
    form: u64,
    blk: [u8; 3],
    rep: [u8; 3],
    repeats: usize,
    /// `Some(n)`: the first `n` lanes; `None`: the random words of `words`.
    contiguous: Option<usize>,
    words: [u64; 2],
    /// Form 1 with a contiguous bit mask: pass it as a continuous mask.
    as_count: bool,
    /// Elements of the count and counter-mode forms, `1..=6 * PAR`.
    n: usize,
    /// Seed of the data, the selection bits and the scalar.
    data_seed: u64,
}

fn sel_case(par: usize) -> impl Strategy<Value = SelCase> {
    (
        (
            0..3usize,
            0..4u64,
            [1..=3u8, 1..=3u8, 1..=3u8],
            [
                prop_oneof![Just(8u8), 0..=16u8],
                prop_oneof![Just(8u8), 0..=16u8],
                prop_oneof![Just(8u8), 0..=16u8],
            ],
        ),
        (1..=6usize, prop::option::of(1..=par), any::<[u64; 2]>(), any::<bool>(), 1..=6 * par, any::<u64>()),
    )
        .prop_map(|((mode, form, blk, rep), (repeats, contiguous, words, as_count, n, data_seed))| {
            SelCase { mode, form, blk, rep, repeats, contiguous, words, as_count, n, data_seed }
        })
}

fn random_case<T: SelectElement, U: SelMaskElement>(c: &SelCase, soc: Soc) {
    let rng = &mut Rng(c.data_seed);
    let par = T::PAR;
    let epb = T::EPB;
    let u = ub(4 * REGION);
    let (dst, s0, s1) = (
        u.t::<T>(0, REGION / T::SIZE),
        u.t::<T>(REGION, REGION / T::SIZE),
        u.t::<T>(2 * REGION, REGION / T::SIZE),
    );
    let sel = u.t::<U>(3 * REGION, 256 / U::SIZE);
    let init_d: Vec<T> = (0..dst.get_size()).map(|_| T::from_f64(rand_f32(rng) as f64)).collect();
    let v0: Vec<T> = (0..s0.get_size()).map(|_| T::from_f64(rand_f32(rng) as f64)).collect();
    let v1: Vec<T> = (0..s1.get_size()).map(|_| T::from_f64(rand_f32(rng) as f64)).collect();
    let sb: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    dst.copy_from_slice(&init_d);
    s0.copy_from_slice(&v0);
    s1.copy_from_slice(&v1);
    sel.reinterpret_cast::<u8>().copy_from_slice(&sb);
    let modes: Vec<SelMode> =
        [SelMode::VselCmpmaskSpr, SelMode::VselTensorScalarMode, SelMode::VselTensorTensorMode]
            .into_iter()
            .filter(|m| soc.supports_select_mode(*m as u8))
            .collect();
    let mode = modes[c.mode % modes.len()];
    let scalar = T::from_f64(rand_f32(rng) as f64);
    let form = c.form;
    let mut p = BinaryRepeatParams::new(c.blk[0], c.blk[1], c.blk[2], c.rep[0], c.rep[1], c.rep[2]);
    let repeats = c.repeats;
    let bits = if let Some(n) = c.contiguous {
        let ones = |k: usize| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
        [ones(n), ones(n.saturating_sub(64))]
    } else {
        let mut b = [c.words[0], if par == 128 { c.words[1] } else { 0 }];
        if b == [0, 0] {
            b[0] = 1;
        }
        b
    };
    let mut counter = None;
    match form {
        0 => {
            let n = c.n;
            counter = Some(n);
            p = P;
            if mode == SelMode::VselTensorScalarMode {
                select_scalar(&dst, &sel, &s0, scalar, mode, n);
            } else {
                select(&dst, &sel, &s0, &s1, mode, n);
            }
        }
        1 => {
            let m = if bits[1] == 0 && bits[0].count_ones() == 64 - bits[0].leading_zeros() && c.as_count {
                Mask::Count(bits[0].count_ones() as u64)
            } else {
                Mask::Bits(bits)
            };
            if mode == SelMode::VselTensorScalarMode {
                select_scalar_masked::<T, U, true>(&dst, &sel, &s0, scalar, mode, m, repeats as u8, &p);
            } else {
                select_masked::<T, U, true>(&dst, &sel, &s0, &s1, mode, m, repeats as u8, &p);
            }
        }
        _ => {
            if form == 3 {
                let n = c.n;
                counter = Some(n);
                set_mask_count();
                set_vector_mask::<T>(n as u64);
            } else {
                set_vector_mask::<T>(bits);
            }
            if mode == SelMode::VselTensorScalarMode {
                select_scalar_masked::<T, U, false>(
                    &dst,
                    &sel,
                    &s0,
                    scalar,
                    mode,
                    MASK_PLACEHOLDER,
                    repeats as u8,
                    &p,
                );
            } else {
                select_masked::<T, U, false>(&dst, &sel, &s0, &s1, mode, MASK_PLACEHOLDER, repeats as u8, &p);
            }
            set_mask_norm();
            reset_mask();
        }
    }
    // Reference.
    let mut want = init_d.clone();
    let at =
        |r: usize, j: usize, blk: u8, rep: u8| (r * rep as usize + (j / epb) * blk as usize) * epb + j % epb;
    for (r, j) in reference_lanes(par, counter, bits, repeats) {
        let k = if mode == SelMode::VselCmpmaskSpr { j } else { r * par + j };
        let bit = sb[k / 8] >> (k % 8) & 1 == 1;
        let a = v0[at(r, j, p.src0_blk_stride, p.src0_rep_stride)];
        let b = if mode == SelMode::VselTensorScalarMode {
            scalar
        } else {
            v1[at(r, j, p.src1_blk_stride, p.src1_rep_stride)]
        };
        want[at(r, j, p.dst_blk_stride, p.dst_rep_stride)] = if bit { a } else { b };
    }
    let got = dst.to_vec();
    assert_bits_ctx(
        &got,
        &want,
        format_args!(
        "{soc} {} U={} mode {mode} form {form} repeats {repeats} bits {bits:x?} counter {counter:?} {p:?}",
        T::DTYPE,
        U::DTYPE
    ),
    );
}

proptest! {
    // Seeded (the same cases every run); a failure is shrunk to a minimal call and printed.
    #![proptest_config(strat::config(240, 0x9E37_79B9_7F4A_7C15))]
    #[test]
    fn random_against_reference(soc in 0..Soc::ALL.len(), types in 0..8usize, c in sel_case(128)) {
        let soc = Soc::ALL[soc];
        run_on_core(CoreConfig::single(soc), || {
            // The 64-lane f32 cases clamp the lane counts the strategy draws for 128 lanes.
            let c32 = SelCase { contiguous: c.contiguous.map(|n| (n - 1) % 64 + 1), n: (c.n - 1) % (6 * 64) + 1, ..c.clone() };
            match types {
                0 => random_case::<f32, u8>(&c32, soc),
                1 => random_case::<f32, u16>(&c32, soc),
                2 => random_case::<f32, u32>(&c32, soc),
                3 => random_case::<f32, u64>(&c32, soc),
                4 => random_case::<f16, u8>(&c, soc),
                5 => random_case::<f16, u16>(&c, soc),
                6 => random_case::<f16, u32>(&c, soc),
                _ => random_case::<f16, u64>(&c, soc),
            }
        });
    }
}

// ----------------------------------------------------------------------------------------------
// Every check, with its message.

#[test]
fn modes_1_and_2_fail_on_ascend910() {
    run_on_core(CoreConfig::single(Soc::Ascend910), || {
        let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
        let (d, m, a, b) = (s.dst::<f32>(), s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
        let msg2 = "selMode = VSEL_TENSOR_TENSOR_MODE (2) is not supported on Ascend910";
        let msg1 = "selMode = VSEL_TENSOR_SCALAR_MODE (1) is not supported on Ascend910";
        assert_fails(msg2, || select(&d, &m, &a, &b, SelMode::VselTensorTensorMode, 64));
        assert_fails(msg2, || {
            select_masked::<f32, u8, true>(&d, &m, &a, &b, SelMode::VselTensorTensorMode, 64u64, 1, &P)
        });
        assert_fails(msg2, || select_reg::<f32, 2>(&d, &a, &b, 1, &P));
        assert_fails(msg1, || select_scalar(&d, &m, &a, 0.0, SelMode::VselTensorScalarMode, 64));
        assert_fails(msg1, || {
            select_scalar_masked::<f32, u8, true>(
                &d,
                &m,
                &a,
                0.0,
                SelMode::VselTensorScalarMode,
                64u64,
                1,
                &P,
            )
        });
        assert_fails(msg1, || select_scalar_reg::<f32, u8>(&d, &m, &a, 1, &P));
        assert_fails("Atlas training series", || select(&d, &m, &a, &b, SelMode::VselTensorTensorMode, 64));
    });
}

#[test]
fn wrong_mode_for_the_form() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (d, m, a, b) = (s.dst::<f32>(), s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
    assert_fails("selMode = VSEL_TENSOR_SCALAR_MODE (1) takes a scalar src1", || {
        select(&d, &m, &a, &b, SelMode::VselTensorScalarMode, 64)
    });
    assert_fails("selMode = VSEL_TENSOR_TENSOR_MODE (2) takes a tensor src1", || {
        select_scalar(&d, &m, &a, 0.0, SelMode::VselTensorTensorMode, 64)
    });
    assert_fails("selMode = VSEL_CMPMASK_SPR (0) takes a tensor src1", || {
        select_scalar_masked::<f32, u8, true>(&d, &m, &a, 0.0, SelMode::VselCmpmaskSpr, 64u64, 1, &P)
    });
}

#[test]
fn sel_mask_too_short() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (d, a, b) = (s.dst::<f32>(), s.src0::<f32>(), s.src1::<f32>());
    let short = s.u.t::<u8>(3072, 16);
    assert_fails(
        "selMask holds 128 bits (16 bytes) but selMode = VSEL_TENSOR_TENSOR_MODE (2) reads 256 bits",
        || select(&d, &short, &a, &b, SelMode::VselTensorTensorMode, 256),
    );
    assert_fails(
        "selMask holds 128 bits (16 bytes) but selMode = VSEL_TENSOR_SCALAR_MODE (1) reads 129 bits",
        || select_scalar(&d, &short, &a, 0.0, SelMode::VselTensorScalarMode, 129),
    );
    // Mask form: 3 repeats of mask [1 << 5] reads up to bit 2 * 64 + 5.
    assert_fails(
        "selMask holds 128 bits (16 bytes) but selMode = VSEL_TENSOR_TENSOR_MODE (2) reads 134 bits",
        || {
            select_masked::<f32, u8, true>(
                &d,
                &short,
                &a,
                &b,
                SelMode::VselTensorTensorMode,
                [1 << 5, 0],
                3,
                &P,
            )
        },
    );
    // Mode 0 loads the 128-bit compare mask from selMask.
    let tiny = s.u.t::<u16>(3072, 4);
    assert_fails("selMask holds 64 bits (8 bytes) but selMode = VSEL_CMPMASK_SPR (0) reads 128 bits", || {
        select(&d, &tiny, &a, &b, SelMode::VselCmpmaskSpr, 8)
    });
    // Just enough is fine.
    select(&d, &short, &a, &b, SelMode::VselTensorTensorMode, 128);
}

#[test]
fn register_mode2_address_checks() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let reg = s.scratch::<u32>();
    let (d, a, b) = (s.dst::<f32>(), s.src0::<f32>(), s.src1::<f32>());
    reg.copy_from_slice(&[0x13; 8]);
    set_cmp_mask(&reg);
    set_vector_mask::<f32>(64u64);
    assert_fails("selMask address = 0x13", || select_reg::<f32, 2>(&d, &a, &b, 1, &P));
    let top = (get_soc().ub_size() - 32) as u32;
    reg.copy_from_slice(&[top; 8]);
    set_cmp_mask(&reg);
    assert_fails("would need 512 bits but only 256 bits of UB remain", || {
        select_reg::<f32, 2>(&d, &a, &b, 8, &P)
    });
}

#[test]
fn partial_overlap_is_rejected() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (m, a, b) = (s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
    let shifted = s.u.t::<f32>(1024 + 32, 128);
    assert_fails("partially overlap", || select(&shifted, &m, &a, &b, SelMode::VselTensorTensorMode, 64));
    assert_fails("partially overlap", || {
        select_masked::<f32, u8, true>(&shifted, &m, &a, &b, SelMode::VselCmpmaskSpr, 64u64, 2, &P)
    });
    assert_fails("partially overlap", || {
        select_scalar(&shifted, &m, &a, 1.0, SelMode::VselTensorScalarMode, 64)
    });
}

#[test]
fn mask_out_of_range() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (d, m, a, b) = (s.dst::<f32>(), s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
    assert_fails("mask = 65 is out of range [1, 64]", || {
        select_masked::<f32, u8, true>(&d, &m, &a, &b, SelMode::VselTensorTensorMode, 65u64, 1, &P)
    });
    assert_fails("mask[1] = 0x1 must be 0", || {
        select_masked::<f32, u8, true>(&d, &m, &a, &b, SelMode::VselCmpmaskSpr, [1, 1], 1, &P)
    });
    let (dh, ah, bh) = (s.dst::<f16>(), s.src0::<f16>(), s.src1::<f16>());
    assert_fails("mask = 129 is out of range [1, 128]", || {
        select_scalar_masked::<f16, u8, true>(
            &dh,
            &m,
            &ah,
            f16::ZERO,
            SelMode::VselTensorScalarMode,
            129u64,
            1,
            &P,
        )
    });
    let _ = bh;
}

#[test]
fn placeholder_rules() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (d, m, a, b) = (s.dst::<f32>(), s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
    assert_fails("MASK_PLACEHOLDER", || {
        select_masked::<f32, u8, true>(&d, &m, &a, &b, SelMode::VselTensorTensorMode, MASK_PLACEHOLDER, 1, &P)
    });
    // isSetMask = false ignores its mask argument (the chip does): same result as the placeholder.
    reset_mask();
    select_masked::<f32, u8, false>(&d, &m, &a, &b, SelMode::VselTensorTensorMode, MASK_PLACEHOLDER, 1, &P);
    let want = d.to_vec();
    d.copy_from_slice(&vec![0.0; want.len()]);
    select_masked::<f32, u8, false>(&d, &m, &a, &b, SelMode::VselTensorTensorMode, 3u64, 1, &P);
    assert_bits(&d.to_vec(), &want);
    select_scalar_masked::<f32, u8, false>(
        &d,
        &m,
        &a,
        0.0,
        SelMode::VselTensorScalarMode,
        MASK_PLACEHOLDER,
        1,
        &P,
    );
    let want = d.to_vec();
    d.copy_from_slice(&vec![0.0; want.len()]);
    select_scalar_masked::<f32, u8, false>(&d, &m, &a, 0.0, SelMode::VselTensorScalarMode, [3, 0], 1, &P);
    assert_bits(&d.to_vec(), &want);
}

#[test]
fn operand_checks() {
    let s = Seed::new::<f32>(&SELECT_SEL_MODE12);
    let (d, m, a, b) = (s.dst::<f32>(), s.sel::<u8>(), s.src0::<f32>(), s.src1::<f32>());
    assert_fails("calCount = 257 exceeds dst's 256 elements", || {
        select(&d, &m, &a, &b, SelMode::VselCmpmaskSpr, 257)
    });
    let short = s.u.t::<f32>(2048, 200);
    assert_fails("src1 would touch element 255 but the tensor has 200 elements", || {
        select_masked::<f32, u8, true>(&d, &m, &a, &short, SelMode::VselCmpmaskSpr, 64u64, 4, &P)
    });
    let odd = s.sel::<u8>().view(8);
    let msg = panic_message(|| select(&d, &odd, &a, &b, SelMode::VselTensorTensorMode, 64));
    assert!(msg.contains("Select: selMask address = ") && msg.contains("is not 32-byte aligned"), "{msg}");
}

#[test]
fn set_cmp_mask_checks_its_source() {
    let mut pipe = TPipe::new();
    let mut b = TBuf::<VecCalc>::new();
    pipe.init_tbuf(&mut b, 64);
    let t = b.get::<u8>();
    expect_panic(|| set_cmp_mask(&t.view(8)), &["SetCmpMask", "src address = 0x8 is not 16-byte aligned"]);
    expect_panic(|| set_cmp_mask(&t.view_len(16, 8)), &["SetCmpMask", "src holds 8 bytes"]);
    t.copy_from_slice(&(0..64).collect::<Vec<u8>>());
    set_cmp_mask(&t.view(16));
    let want = |k: u64| (0..8).fold(0u64, |w, i| w | ((16 + 8 * k + i) << (8 * i)));
    assert_eq!(get_cmp_mask(), [want(0), want(1)]);
}
