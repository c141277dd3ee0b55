//! What a check reports: [`CheckStats`] on success, else an [`OracleError`]
//! (a [`Mismatch`] and its [`MismatchKind`], or a setup failure), and the
//! outcome of each clone ([`CloneOutcome`]).

#[cfg(doc)]
use super::Oracle;
use crate::isolate::signal_name;
use std::fmt;

/// What differs, or how the clone failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MismatchKind {
    /// The lane's result differs.
    Result,
    /// A byte of a pointer parameter's buffer differs after the calls.
    Memory {
        /// The pointer parameter.
        param: usize,
        /// The lane whose buffer it is (`None`: a buffer all lanes share).
        buffer_lane: Option<u32>,
        /// Offset of the first differing byte from the pointer lane 0 got
        /// (lane `buffer_lane` for a per-lane buffer).
        offset: i64,
        /// Lanes whose scalar calls changed that byte (shared buffers only).
        written_by: Vec<u32>,
    },
    /// The clone faulted or ran out of time (the scalar calls of the trial
    /// did not).
    Fault {
        /// The signal that ended the child process.
        signal: i32,
        /// What was running: the clone, or one of the optimised callers.
        during: String,
    },
    /// A caller of the clone optimised with `default<O2>` saw a different
    /// result (`memory: None`) or different memory.
    OptimizedCaller {
        /// Which caller: `writer` (copies the buffers out after the call)
        /// or `reader` (overwrites them after the call).
        caller: String,
        /// For a memory difference: the parameter, buffer lane and offset.
        memory: Option<(usize, Option<u32>, i64)>,
    },
    /// The clone's log of recorder calls breaks the rule (see the module
    /// documentation and [`crate::recorder::check_log`]).
    Log {
        /// Index of the first clone entry no assignment to lanes accounts
        /// for.
        position: usize,
        /// Entries the clone recorded.
        clone_entries: usize,
        /// Entries the active lanes' scalar calls recorded.
        scalar_entries: usize,
    },
    /// A call in the clone does not use its callee's calling convention
    /// (undefined behaviour, which LLVM turns into `unreachable`).
    CallingConvention {
        /// The callee.
        callee: String,
        /// The convention of the call.
        call: u32,
        /// The callee's convention.
        callee_conv: u32,
    },
}

/// A lane whose clone result differs from the scalar result, or another
/// failure of a clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The clone's name.
    pub clone: String,
    /// Trial number.
    pub trial: usize,
    /// Lane that differs (for memory: the buffer's lane, else 0).
    pub lane: u32,
    /// The lane's inputs, described.
    pub inputs: Vec<String>,
    /// Scalar result bytes (for memory: bytes from the first difference).
    pub expected: Vec<u8>,
    /// Clone result bytes (for memory: bytes from the first difference).
    pub got: Vec<u8>,
    /// The mask of the trial (all ones when unmasked).
    pub mask: Vec<bool>,
    /// What differs.
    pub kind: MismatchKind,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs = self.inputs.join(", ");
        match &self.kind {
            MismatchKind::Result => write!(
                f,
                "{}: lane {} differs (trial {}): inputs [{}]: scalar gives {:02x?}, clone gives {:02x?}",
                self.clone, self.lane, self.trial, inputs, self.expected, self.got
            ),
            MismatchKind::Memory { param, buffer_lane, offset, written_by } => {
                let whose = whose(*buffer_lane);
                let conflict = if written_by.len() > 1 {
                    format!(" (lanes {written_by:?} all wrote it in the scalar runs: a conflicting write, see docs/testing.md)")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{}: memory differs (trial {}, mask {:?}): parameter {param}, {whose}, offset {offset}{conflict}: \
                     scalar calls leave {:02x?}, clone leaves {:02x?}; lane {} inputs [{}]",
                    self.clone,
                    self.trial,
                    bits(&self.mask),
                    self.expected,
                    self.got,
                    self.lane,
                    inputs
                )
            }
            MismatchKind::Fault { signal, during } => write!(
                f,
                "{}: {during} crashed with {} (trial {}, mask {:?}); lane {} inputs [{}]",
                self.clone,
                signal_name(*signal),
                self.trial,
                bits(&self.mask),
                self.lane,
                inputs
            ),
            MismatchKind::OptimizedCaller { caller, memory } => match memory {
                None => write!(
                    f,
                    "{}: a {caller} caller optimised at -O2 sees lane {} differ (trial {}): inputs [{}]: scalar gives \
                     {:02x?}, the optimised caller gets {:02x?} (do the clone's attributes promise too little \
                     memory access?)",
                    self.clone, self.lane, self.trial, inputs, self.expected, self.got
                ),
                Some((param, lane, offset)) => write!(
                    f,
                    "{}: a {caller} caller optimised at -O2 sees different memory (trial {}): parameter {param}, \
                     {}, offset {offset}: scalar calls leave {:02x?}, the caller sees {:02x?} (do the clone's \
                     attributes promise too little memory access?)",
                    self.clone,
                    self.trial,
                    whose(*lane),
                    self.expected,
                    self.got
                ),
            },
            MismatchKind::Log { position, clone_entries, scalar_entries } => write!(
                f,
                "{}: the recorder log differs (trial {}, mask {:?}): the clone recorded {clone_entries} entries, \
                 the scalar calls {scalar_entries}; clone entry {position} (tag, value) = {} fits no lane's log \
                 (expected: an interleaving of the active lanes' logs, see docs/testing.md); lane {} inputs [{}]",
                self.clone,
                self.trial,
                bits(&self.mask),
                entry_text(&self.got),
                self.lane,
                inputs
            ),
            MismatchKind::CallingConvention { callee, call, callee_conv } => write!(
                f,
                "{}: calls `{callee}` with calling convention {call}, but `{callee}` uses {callee_conv} \
                 (undefined behaviour)",
                self.clone
            ),
        }
    }
}

/// A recorder entry from its 16 little-endian bytes, as text.
fn entry_text(b: &[u8]) -> String {
    if b.len() < 16 {
        return "(none: the clone recorded too few)".into();
    }
    let tag = i64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let value = i64::from_le_bytes(b[8..16].try_into().expect("8 bytes"));
    format!("({tag}, {value})")
}

fn whose(lane: Option<u32>) -> String {
    match lane {
        Some(l) => format!("lane {l}'s buffer"),
        None => "the shared buffer".into(),
    }
}

fn bits(mask: &[bool]) -> String {
    mask.iter().map(|&b| if b { '1' } else { '0' }).collect()
}

/// Why a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OracleError {
    /// The results differ, or the clone failed otherwise (see
    /// [`MismatchKind`]).
    Mismatch(Box<Mismatch>),
    /// The check could not run (JIT failure, unsupported signature, a
    /// function skipped for inline asm, ...).
    Setup(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::Mismatch(m) => write!(f, "mismatch: {m}"),
            OracleError::Setup(s) => write!(f, "oracle setup failed: {s}"),
        }
    }
}

impl std::error::Error for OracleError {}

/// What a successful check covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Lanes compared.
    pub lanes_compared: usize,
    /// Trials dropped because a scalar call faulted on their inputs (a
    /// pointer parameter's buffer was too small for what the scalar code
    /// does with that input).
    pub trials_dropped: usize,
}

/// The outcome of one clone's check ([`Oracle::check_each`]).
#[derive(Debug, Clone)]
pub struct CloneOutcome {
    /// The clone's name.
    pub clone: String,
    /// What the check found; `Err(OracleError::Setup(..))` for a clone the
    /// oracle skipped ([`Oracle::skipped`]).
    pub result: Result<CheckStats, OracleError>,
}
