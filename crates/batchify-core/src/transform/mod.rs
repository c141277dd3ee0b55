//! The transform: prepare a scratch copy, analyse it, and build the clone.

pub mod calls;
pub mod control;
pub mod fallback;
pub mod linkage;
pub mod noreturn;
pub mod prepare;
pub mod signature;
pub mod widen;
