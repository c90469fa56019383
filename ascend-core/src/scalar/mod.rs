//! The scalar unit's APIs: system variables ([`sys_var`]: `GetBlockIdx`, the clock, …),
//! special registers ([`ctrl_spr`]) and scalar arithmetic ([`scalar_compute`]).

pub mod ctrl_spr;
pub mod scalar_compute;
pub mod sys_var;
