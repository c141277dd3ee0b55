//! The [`Record`] a run of trials fills in, shared with the forked child
//! that runs them: the phase it is in and the first failure, by number.

pub(super) const PHASE_SETUP: u32 = 0;
pub(super) const PHASE_SCALAR: u32 = 1;
pub(super) const PHASE_CLONE: u32 = 2;
pub(super) const PHASE_WRITER: u32 = 3;
pub(super) const PHASE_READER: u32 = 4;

pub(super) const FAIL_NONE: u32 = 0;
pub(super) const FAIL_RESULT: u32 = 1;
pub(super) const FAIL_MEMORY: u32 = 2;
pub(super) const FAIL_CALLER_RESULT: u32 = 3;
pub(super) const FAIL_CALLER_MEMORY: u32 = 4;
pub(super) const FAIL_SETUP: u32 = 5;
pub(super) const FAIL_LOG: u32 = 6;

const WINDOW: usize = 64;

/// Progress and result of a run of trials, shared with a forked child.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Record {
    pub(super) phase: u32,
    pub(super) trial: u64,
    /// How long the last trial's scalar calls took (milliseconds).
    pub(super) scalar_ms: u64,
    /// Trials dropped because the scalar code made poison.
    pub(super) poison_trials: u64,
    pub(super) lane: u32,
    pub(super) lanes_compared: u64,
    pub(super) fail: u32,
    pub(super) f_lane: u32,
    pub(super) f_buf: u32,
    pub(super) f_offset: u64,
    pub(super) f_writers: u64,
    /// For a log failure: position, clone entries, scalar entries.
    pub(super) f_log: [u64; 3],
    pub(super) exp_len: u32,
    pub(super) got_len: u32,
    pub(super) exp: [u8; WINDOW],
    pub(super) got: [u8; WINDOW],
}

impl Record {
    pub(super) fn new() -> Record {
        Record {
            phase: PHASE_SETUP,
            trial: 0,
            scalar_ms: 0,
            poison_trials: 0,
            lane: 0,
            lanes_compared: 0,
            fail: FAIL_NONE,
            f_lane: 0,
            f_buf: 0,
            f_offset: 0,
            f_writers: 0,
            f_log: [0; 3],
            exp_len: 0,
            got_len: 0,
            exp: [0; WINDOW],
            got: [0; WINDOW],
        }
    }

    pub(super) fn fail(&mut self, kind: u32, lane: usize, exp: &[u8], got: &[u8]) {
        self.fail = kind;
        self.f_lane = lane as u32;
        let (e, g) = (exp.len().min(WINDOW), got.len().min(WINDOW));
        self.exp[..e].copy_from_slice(&exp[..e]);
        self.got[..g].copy_from_slice(&got[..g]);
        self.exp_len = e as u32;
        self.got_len = g as u32;
    }
}
