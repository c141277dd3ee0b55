//! The crate's one error type. Every variant renders as a single line that
//! names the function (and instruction, where there is one), so that the CLI
//! can print it as is.

use std::fmt;

/// Why batchifying a module failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A requested function does not exist or has no body.
    UnknownFunction {
        /// The name asked for.
        name: String,
        /// Why it cannot be used (e.g. "not defined in the module").
        reason: String,
    },
    /// A variant name did not parse.
    BadVariant(String),
    /// A variant does not fit the scalar function (parameter count, types, ISA).
    VariantMismatch {
        /// The variant's mangled name.
        variant: String,
        /// What does not fit.
        reason: String,
    },
    /// The function holds a construct batchify does not handle yet, or
    /// the per-lane loop is the better form: build it instead.
    Unsupported {
        /// Scalar function name.
        function: String,
        /// Which kind of reason.
        kind: FallbackKind,
        /// What is not supported, with the offending instruction.
        what: String,
    },
    /// A map entry point cannot be built (see `map_entry`): its request's
    /// type does not fit, its name is taken, a parameter has no map form.
    Map {
        /// The map's name.
        map: String,
        /// What is wrong.
        reason: String,
    },
    /// A cross-lane operation (`analysis::cross_lane`) that cannot have
    /// its group meaning here: a call that does not fit the operation, or
    /// a function using them that has no vector form (no per-lane loop
    /// can give their group meaning).
    CrossLane {
        /// Scalar function name.
        function: String,
        /// The call and what is wrong.
        message: String,
    },
    /// A malformed `__enzyme_batch` call (see `enzyme_batch`).
    BatchCall {
        /// The function holding the call.
        caller: String,
        /// What is wrong with it.
        message: String,
    },
    /// A bug in batchify: the produced IR did not verify, or an LLVM pass failed.
    Internal {
        /// Scalar function name.
        function: String,
        /// LLVM's message.
        message: String,
    },
}

/// Why a clone is the per-lane loop, by kind (the message says the rest):
/// what reports count and the sweep groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FallbackKind {
    /// A `byval` parameter (a private copy per call).
    ByvalParameter,
    /// Stack memory of a computed size or outside the entry block.
    StackMemory,
    /// An instruction not handled yet (atomics, volatile accesses,
    /// `va_arg`, landing pads).
    Instruction,
    /// Inline assembly.
    InlineAssembly,
    /// A `musttail` call.
    MustTailCall,
    /// Token or scalable-vector values.
    UnbatchableType,
    /// A terminator other than `ret`, `br`, `switch`, `unreachable`.
    Terminator,
    /// An instruction this build of batchify does not know.
    UnknownInstruction,
    /// A cycle with several entries.
    IrreducibleControlFlow,
    /// The cost model estimates the per-lane loop faster.
    CostModel,
    /// The per-lane loop was asked for (`Options::force_per_lane`).
    Requested,
    /// A callee clone whose vector form failed.
    CalleeClone,
    /// An SVE clone with no vector length to vectorize for in its
    /// `vscale_range` (`scalable::REASON`).
    Scalable,
}

impl FallbackKind {
    /// A short name for tables (`cost model`, `inline assembly`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FallbackKind::ByvalParameter => "byval parameter",
            FallbackKind::StackMemory => "stack memory",
            FallbackKind::Instruction => "instruction",
            FallbackKind::InlineAssembly => "inline assembly",
            FallbackKind::MustTailCall => "musttail call",
            FallbackKind::UnbatchableType => "token or scalable type",
            FallbackKind::Terminator => "terminator",
            FallbackKind::UnknownInstruction => "unknown instruction",
            FallbackKind::IrreducibleControlFlow => "irreducible control flow",
            FallbackKind::CostModel => "cost model",
            FallbackKind::Requested => "requested",
            FallbackKind::CalleeClone => "callee clone",
            FallbackKind::Scalable => "scalable (SVE) clone",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownFunction { name, reason } => {
                write!(f, "unknown function `{name}`: {reason}")
            }
            Error::BadVariant(msg) => write!(f, "{msg}"),
            Error::VariantMismatch { variant, reason } => {
                write!(f, "variant `{variant}` does not fit its scalar function: {reason}")
            }
            Error::Map { map, reason } => write!(f, "cannot build the map `{map}`: {reason}"),
            Error::Unsupported { function, what, .. } => {
                write!(f, "cannot batchify `{function}`: {what}")
            }
            Error::CrossLane { function, message } => write!(f, "cannot batchify `{function}`: {message}"),
            Error::BatchCall { caller, message } => write!(f, "`__enzyme_batch` call in `{caller}`: {message}"),
            Error::Internal { function, message } => {
                let first = message.lines().next().unwrap_or("");
                write!(f, "internal error while batchifying `{function}` (please report): {first}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
