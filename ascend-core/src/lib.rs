//! # ascend-core
//!
//! The AscendC kernel programming model on the host: element types, positions, the per-core
//! Unified Buffer, `LocalTensor`/`GlobalTensor`, `TPipe` with its queues, data movement, and
//! the vector instructions with AscendC's masks and repeat strides, bit-exact with the
//! hardware's documented behaviour.
//!
//! Kernels start with `use ascend_core::prelude::*;`.
//!
//! The guides — getting started, porting from AscendC, pipes, events and the sanitizer, the
//! cube, the advanced API, fidelity, the support matrix, soundness, speed — are modules of
//! `ascend-runtime`: [`ascend_runtime::guide`](../ascend_runtime/guide/index.html).

// The layers, bottom up (ARCHITECTURE.md): the vocabulary at the root (elements, positions,
// chips, constants), `kernel`, `memory`, `observe`, `sync`, `scalar`, then the instruction
// folders `vector`, `cube` and `adv`. The folders are private; their modules keep the public
// paths they have always had (`ascend_core::pipe`, `ascend_core::tensor`, …) through the
// re-exports below.
pub mod adv;
pub mod constants;
pub mod cube;
pub mod element;
pub mod f16conv;
mod kernel;
mod memory;
mod observe;
pub mod position;
mod scalar;
pub mod soc;
pub mod sync;
pub mod vector;

#[doc(inline)]
pub use kernel::{ctx, error};
#[doc(inline)]
pub use memory::{
    alloc, atomic, cache_ctrl, copy, copy_tail, gm_api, tensor, tiling_data, ub_size, workspace,
};
#[doc(inline)]
pub use observe::{debug, profiler, sanitizer};
#[doc(inline)]
pub use scalar::{ctrl_spr, scalar_compute, sys_var};
#[doc(inline)]
pub use sync::{block_sync, cross_core, group_barrier, pipe};

pub use ctx::{
    ascend_is_aic, ascend_is_aiv, g_core_type, get_block_idx, get_block_num, get_overflow_mode, get_soc,
    run_on_core, set_overflow_mode, CancelToken, CoreBarrier, CoreConfig, CoreType, KernelType, MaskMode,
    WaitCond,
};
pub use element::{bf16, f16, Bool8, DType, Element, Int4b, TensorType};
pub use error::{fail, take_last_fault, Fault};
#[doc(hidden)]
pub use kernel::ctx::in_core;
#[doc(hidden)]
pub use observe::tls::CoreTls;
pub use position::{Memory, Position, QuePosition, TPosition};
pub use soc::{OverflowMode, RepeatSumOrder, Soc};
pub use sync::cross_core::sync_all;
pub use tensor::{GlobalTensor, GmAddr, GmAllocError, GmRegion, LocalTensor};

/// Everything a kernel needs, in one import.
pub mod prelude {
    pub use crate::constants::*;
    pub use crate::element::{bf16, f16, Bool8, DType, Element, Int4b, TensorType};
    pub use crate::kernel::ctx::{
        ascend_is_aic, ascend_is_aiv, g_core_type, get_block_idx, get_block_num, get_overflow_mode, get_soc,
        run_on_core, set_overflow_mode, CoreConfig, CoreType, KernelType, MaskMode,
    };
    pub use crate::memory::tensor::{CacheMode, GlobalTensor, GmAddr, GmRegion, LocalTensor};
    pub use crate::position::{
        Co1, Co2, Gm, Memory, Position, QuePosition, TPosition, VecCalc, VecIn, VecOut, A1, A2, B1, B2, C1,
        C2,
    };
    pub use crate::soc::{OverflowMode, RepeatSumOrder, Soc};
    pub use crate::sync::cross_core::sync_all;
    pub use crate::vector::mask::{
        get_cmp_mask, get_mask_mode, get_vector_mask, reset_mask, set_cmp_mask, set_mask_count,
        set_mask_norm, set_vector_mask, set_vector_mask_hi_lo, AscendCUtils, Mask, MASK_PLACEHOLDER,
    };
    pub use crate::vector::mask::{get_cmp_mask_local, GetCmpMaskElement};
    pub use crate::vector::params::{BinaryRepeatParams, UnaryRepeatParams};

    pub use crate::ascend_printf;
    pub use crate::observe::debug::{dump_tensor, dump_tensor_shape, ShapeInfo};

    pub use crate::adv::activation::*;
    pub use crate::adv::activation_gelu::*;
    pub use crate::adv::activation_glu::*;
    pub use crate::adv::antiquant::*;
    pub use crate::adv::batchnorm::*;
    pub use crate::adv::digamma::*;
    pub use crate::adv::dropout::*;
    pub use crate::adv::groupnorm::*;
    pub use crate::adv::index::*;
    pub use crate::adv::layernorm::*;
    pub use crate::adv::layernorm_grad::*;
    pub use crate::adv::lgamma::*;
    pub use crate::adv::math::*;
    pub use crate::adv::math_ext::*;
    pub use crate::adv::math_more::*;
    pub use crate::adv::math_power::*;
    pub use crate::adv::math_trig::*;
    pub use crate::adv::matmul::{
        cube_format, is_matmul_server, CfgMdl, CfgNorm, Matmul, MatmulCfg, MatmulConfig, MatmulDst,
        MatmulInput, MatmulType, MatmulTypeInfo, CFG_MDL, CFG_NORM,
    };
    pub use crate::adv::matmul_tiling::{MatmulApiTiling, MultiCoreMatmulTiling, TCubeTiling};
    pub use crate::adv::norm_more::*;
    pub use crate::adv::normalization::*;
    pub use crate::adv::normalize::*;
    pub use crate::adv::pad::*;
    pub use crate::adv::pop_stack_buffer;
    pub use crate::adv::quant::*;
    pub use crate::adv::reduce::*;
    pub use crate::adv::reduce_xy::*;
    pub use crate::adv::select::*;
    pub use crate::adv::softmax::*;
    pub use crate::adv::softmax_flash::*;
    pub use crate::adv::softmax_flash_v1::*;
    pub use crate::adv::softmax_flash_v3::*;
    pub use crate::adv::softmax_more::*;
    pub use crate::adv::sort::*;
    pub use crate::adv::transdata::*;
    pub use crate::adv::transpose::*;
    pub use crate::adv::welford_update::*;
    pub use crate::cube::bias_table::{data_copy_bias, BiasTableOut};
    pub use crate::cube::fixpipe::{
        fixpipe, fixpipe_nz, fixpipe_nz_with_quant, fixpipe_with_quant, set_fix_pipe_config, FixpipeOut,
        FixpipeParamsV220, QuantMode_t,
    };
    pub use crate::cube::load_data::{load_data, LoadData2DParams, LoadDataElement, LoadDataSource};
    pub use crate::cube::mmad::{mmad, mmad_with_bias, MmadParams, MmadTypes};
    pub use crate::cube::nd2nz::{data_copy_nd2nz, Nd2NzElement, Nd2NzParams};
    pub use crate::memory::alloc::{LocalMemAllocator, Ub, L0A, L0B, L0C, L1};
    pub use crate::memory::atomic::{
        disable_dma_atomic, get_atomic_mode, get_store_atomic_config, set_atomic_add, set_atomic_max,
        set_atomic_min, set_atomic_none, set_atomic_type, set_store_atomic_config, AtomicDtype,
        AtomicElement, AtomicMode, AtomicOp, AtomicOrder,
    };
    pub use crate::memory::cache_ctrl::*;
    pub use crate::memory::copy::*;
    pub use crate::memory::copy_tail::{data_copy_tail, DataCopyTail};
    pub use crate::memory::gm_api::*;
    pub use crate::memory::tiling_data::get_tiling_data;
    pub use crate::memory::ub_size::*;
    pub use crate::regist_matmul_obj;
    pub use crate::scalar::ctrl_spr::*;
    pub use crate::scalar::scalar_compute::*;
    pub use crate::sync::block_sync::*;
    pub use crate::sync::cross_core::{
        cross_core_set_flag, cross_core_wait_flag, cross_core_wait_flag_with, CrossCorePipe,
        CROSS_CORE_FLAG_IDS,
    };
    pub use crate::sync::group_barrier::*;
    pub use crate::sync::pipe::*;
    pub use crate::vector::bilinear::*;
    pub use crate::vector::binary::*;
    pub use crate::vector::brcb::*;
    pub use crate::vector::cast::*;
    pub use crate::vector::compare::*;
    pub use crate::vector::compound::*;
    pub use crate::vector::copy::*;
    pub use crate::vector::create_vec_index::*;
    pub use crate::vector::dequant::*;
    pub use crate::vector::duplicate::*;
    pub use crate::vector::gather::*;
    pub use crate::vector::gather_mask::*;
    pub use crate::vector::gatherb::*;
    pub use crate::vector::mixed::*;
    pub use crate::vector::reduce::*;
    pub use crate::vector::reduction::*;
    pub use crate::vector::scalar::*;
    pub use crate::vector::select::*;
    pub use crate::vector::sort::*;
    pub use crate::vector::transpose::*;

    pub use crate::memory::workspace::*;
    pub use crate::scalar::sys_var::*;
    pub use crate::sync::event::*;
    pub use crate::sync::flags::*;
    pub use crate::vector::unary::*;
}
