//! batchify-testkit: the execution oracle and the test corpus helpers.
//!
//! * [`oracle`]: runs a scalar function N times and its clone once on the
//!   same inputs and compares bit for bit;
//! * [`cross_aarch64`]: the AArch64 execution oracle: generated programs
//!   batched as Advanced SIMD variants, cross-compiled and run under
//!   `qemu-aarch64`;
//! * [`jit`]: the JIT the oracle runs code with (host CPU or another tuning);
//! * [`map_check`]: the oracle of map entry points (`--map`);
//! * [`wrappers`]: type-agnostic calling wrappers;
//! * [`inputs`]: random and special input values;
//! * [`buffers`]: guard-page-bounded buffers for pointer parameters;
//! * [`alloc_hooks`]: the deterministic `malloc` the oracle's JIT code gets;
//! * [`enzyme`]: the Enzyme plugin for the tests that differentiate;
//! * [`isolate`]: running a check in a forked child process;
//! * [`prepare`]: making the oracle's module copy JIT-able (linkage,
//!   inline asm, unresolved symbols);
//! * [`paint`]: filling the scalar code's stack slots, to find undefined bytes;
//! * [`poison`]: flagging inputs on which the scalar code makes poison;
//! * [`promises`]: `!range`-style promises the oracle's random buffers keep;
//! * [`recorder`]: the side-effect recorder `batchify_record` the oracle's
//!   JIT code may call, and the rule its logs are checked by;
//! * [`skip`]: skipping a test loudly when a tool or CPU feature is missing;
//! * [`sweep`]: the real-code sweep (`batchify-sweep`, `cargo xtask sweep`);
//! * [`tunings`]: fuzzing with the JIT compiling for several x86 tunings;
//! * [`cost_judge`]: timing the cost model's choice against both forms
//!   (`batchify-judge-cost`, `cargo xtask judge-cost`);
//! * [`corpus`]: compiling C and loading `.ll` test files, with their
//!   `VARIANT-PARAMS` directives.
#![warn(missing_docs)]

// Links libLLVM-22 into every test binary that uses the kit.
use batchify_llvm_link as _;

pub mod alloc_hooks;
pub mod buffers;
pub mod corpus;
pub mod cost_judge;
pub mod cross_aarch64;
pub mod enzyme;
pub mod fuzz;
pub mod fuzz_enzyme;
pub mod gen;
pub mod inputs;
pub mod isolate;
pub mod jit;
pub mod map_check;
pub mod oracle;
pub mod paint;
pub mod plugin;
pub mod poison;
pub mod prepare;
pub mod promises;
pub mod recorder;
pub mod skip;
pub mod sweep;
pub mod tunings;
pub mod wrappers;

pub use oracle::{CheckConfig, CheckStats, CloneOutcome, Mismatch, MismatchKind, Oracle, OracleError, OracleOptions};
