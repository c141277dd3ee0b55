//! In-process JIT for the oracle: the IR layer's ORC LLJIT wrapper
//! ([`batchify_core::llvm::jit`]), configured for the host CPU or for
//! another CPU's tuning that the host can run ([`JitTarget`]), and
//! resolving libc/libm symbols from the test process. Each [`Jit`] owns its
//! own LLVM context, parsed from bitcode, so it never shares IR with the
//! transform under test.

pub use batchify_core::llvm::jit::{host_cpu_name, host_has_feature, Jit, JitTarget, CPU_ENV, FEATURES_ENV};
