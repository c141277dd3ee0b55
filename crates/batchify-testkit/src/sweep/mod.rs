//! The real-code sweep: every defined function of real C and Rust code
//! bases (built by the sweep itself from sources fetched with cargo and
//! apt), batched at AVX2 ×8 and AVX-512 ×16, masked and unmasked, each run
//! classified and, where the oracle can run it, checked.
//!
//! Three layers, all driven by the `batchify-sweep` binary:
//! * **inputs** ([`prepare_inputs`]): fetch the sources (`cargo fetch` of
//!   `libz-sys` and `lz4-sys`, `apt-get download newlib-source`, a cargo
//!   build of pure-Rust crates with `--emit=llvm-bc`) and compile them to
//!   bitcode modules under `target/sweep/`;
//! * **child** ([`run_child`]): one process per slice of one module. Each
//!   function is cut out of its module (it keeps what it references), and
//!   every run parses that small module into a fresh LLVM context, batches
//!   one variant, verifies, looks for a clone without a body, and runs the
//!   oracle. It prints a line when each phase starts, so that the parent can
//!   tell which run crashed or hung;
//! * **parent** ([`run_sweep`]): runs children in parallel, restarts them
//!   after a crash or a timeout at the next run, and collects the
//!   [`Record`]s for [`write_outputs`] (report table, JSON lines, failures
//!   with a repro command).

mod child;
mod cut;
mod inputs;
mod parent;
mod record;
mod report;
mod run;

pub use child::{run_child, ChildArgs};
pub use cut::{cut_out, defined_functions, SHIM_SECTION};
pub use inputs::{prepare_inputs, InputConfig};
pub use parent::{list_functions, run_sweep, Input, SweepConfig};
pub use record::{normalize, sh, Record};
pub use report::{failure_counts, report, utc_now, write_outputs, Provenance};
pub use run::{host_has, run_one};

use batchify_core::vfabi::Isa;

/// The variants built for every function: ISA, lanes, masked.
pub const VARIANTS: [(Isa, u32, bool); 4] =
    [(Isa::Avx2, 8, false), (Isa::Avx2, 8, true), (Isa::Avx512, 16, false), (Isa::Avx512, 16, true)];

fn isa_name(isa: Isa) -> &'static str {
    match isa {
        Isa::Avx2 => "avx2",
        Isa::Avx512 => "avx512",
        _ => "other",
    }
}
