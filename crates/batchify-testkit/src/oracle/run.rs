//! Running a clone's trials (in a forked child, see [`crate::isolate`]):
//! the scalar calls lane by lane, the clone, the optimised callers, then
//! the comparison; and turning the child's [`Record`] into the result.

use super::compare::{compare_run, relative, undefined_bytes, CloneRun};
use super::inputs::{
    alloc_copy, buffer_of, describe_input, fill_copy, inactive_buffers, pointer_value, trial_inputs, write, TrialInputs,
};
use super::outcome::{CheckStats, Mismatch, MismatchKind, OracleError};
use super::protocol::{
    Record, FAIL_CALLER_MEMORY, FAIL_CALLER_RESULT, FAIL_LOG, FAIL_MEMORY, FAIL_NONE, FAIL_RESULT, FAIL_SETUP,
    PHASE_CLONE, PHASE_READER, PHASE_SCALAR, PHASE_SETUP, PHASE_WRITER,
};
use super::signature::{Runnable, Target, MAX_CALLER_BYTES};
use super::{CheckConfig, OracleOptions};
use crate::alloc_hooks;
use crate::buffers::{Guarded, GuardedSet};
use crate::inputs::Scalar;
use crate::isolate::{run_forked, signal_name, ChildEnd};
use crate::recorder;
use crate::wrappers::{RESULT_SLOT, SLOT};

/// Sends the allocations of the code under test to `set`'s arena, cleared.
fn use_arena_of(set: &mut GuardedSet) {
    set.clear_arena();
    alloc_hooks::use_arena(set.arena_mut().bytes_mut());
}

/// What the scalar code's stack slots hold (see [`crate::paint`]): in the
/// first run of a trial's scalar calls (and the clone's), and in the second
/// run that tells undefined result bytes from defined ones.
const PAINT_FIRST: u8 = 0xa5;
const PAINT_SECOND: u8 = 0x5a;

/// Sets one of the JIT module's `i8` globals (the paint byte, the poison
/// flag) at address `addr`.
fn set_jit_byte(addr: u64, byte: u8) {
    // SAFETY: `addr` is the address of an `i8` global of the live JIT module.
    unsafe { (addr as *mut u8).write_volatile(byte) };
}

/// Reads one of the JIT module's `i8` globals at address `addr`.
fn jit_byte(addr: u64) -> u8 {
    // SAFETY: as in `set_jit_byte`.
    unsafe { (addr as *const u8).read_volatile() }
}

/// Overwrites the stack below the caller's frame where an optimised
/// caller's local buffers will be, so that a caller whose copy-in the
/// optimiser deleted reads junk, not what the previous caller left there.
#[inline(never)]
fn scrub_stack() {
    let mut area = [0u8; MAX_CALLER_BYTES + (64 << 10)];
    area.fill(0xa5);
    std::hint::black_box(&mut area);
}

/// What the scalar calls of one trial leave.
pub(super) struct ScalarRun {
    /// Each lane's result slot (inactive lanes: zeros).
    pub(super) outs: Vec<Vec<u8>>,
    /// For each shared buffer (others: empty), the lanes that changed each
    /// byte, as a bit set.
    pub(super) writers: Vec<Vec<u64>>,
    /// Whether the scalar code made poison (see [`crate::poison`]).
    poison: bool,
    /// Each active lane's recorder log, in lane order.
    logs: Vec<Vec<recorder::Entry>>,
}

/// Runs the scalar function once per active lane, in lane order, on `set`.
fn run_scalar_calls(
    t: &Target,
    opts: &OracleOptions,
    run: &Runnable,
    inp: &TrialInputs,
    set: &mut GuardedSet,
    paint: u8,
    rec: &mut Record,
) -> ScalarRun {
    let n = t.spec.width as usize;
    let p = t.scalars.len();
    let shared: Vec<usize> = (0..t.bufs.len()).filter(|&j| t.bufs[j].lane.is_none()).collect();
    let mut writers: Vec<Vec<u64>> = t.bufs.iter().map(|_| Vec::new()).collect();
    for &j in &shared {
        writers[j] = vec![0; set.bufs()[j].bytes().len()];
    }
    let mut outs = vec![vec![0u8; RESULT_SLOT]; n];
    // Inactive lanes' buffers are inaccessible to the scalar calls as they
    // are to the clone: a lane's read far past its own buffer that lands in
    // another lane's faults in both (the trial is dropped) or in neither.
    let inactive = inactive_buffers(t, opts, inp);
    if let Err(e) = set.protect(&inactive, true) {
        rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
    }
    use_arena_of(set);
    set_jit_byte(run.paint, paint);
    if run.poison != 0 {
        set_jit_byte(run.poison, 0);
    }
    let mut logs = Vec::new();
    for k in (0..n).filter(|&k| inp.mask[k]) {
        rec.lane = k as u32;
        let snapshot: Vec<Vec<u8>> = shared.iter().map(|&j| set.bufs()[j].bytes().to_vec()).collect();
        let mut sin = vec![0u8; (p + 1) * n * SLOT];
        for (i, s) in t.scalars.iter().enumerate() {
            let v = if *s == Scalar::Ptr { pointer_value(t, set.bufs(), inp, i, k) } else { inp.vals[i][k] };
            write(&mut sin, i * n * SLOT, v, s.bytes());
        }
        recorder::open();
        // SAFETY: the wrapper reads `sin` and writes `outs[k]` within the
        // layout; pointers point into live buffers.
        unsafe { (run.scalar_fn)(sin.as_ptr(), outs[k].as_mut_ptr()) };
        logs.push(recorder::close());
        for (s, &j) in snapshot.iter().zip(&shared) {
            for (o, (&x, &y)) in s.iter().zip(set.bufs()[j].bytes()).enumerate() {
                if x != y {
                    writers[j][o] |= 1u64 << (k % 64);
                }
            }
        }
    }
    alloc_hooks::stop_arena();
    if let Err(e) = set.protect(&inactive, false) {
        rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
    }
    let poison = run.poison != 0 && jit_byte(run.poison) != 0;
    ScalarRun { outs, writers, poison, logs }
}

/// Bytes the scalar code leaves undefined in one trial.
pub(super) struct Undefined {
    /// Per lane, per byte of the result.
    pub(super) results: Vec<Vec<bool>>,
    /// Per buffer, per read-write byte.
    pub(super) memory: Vec<Vec<bool>>,
}

/// Runs the trial's scalar calls again, on a third copy of the inputs and
/// with the stack slots painted differently, and returns the bytes of results and memory
/// where the two runs disagree.
fn find_undefined(
    t: &Target,
    opts: &OracleOptions,
    run: &Runnable,
    inp: &TrialInputs,
    first: (&ScalarRun, &GuardedSet),
    third: &mut GuardedSet,
    rec: &mut Record,
) -> Undefined {
    let (scalar, a) = first;
    fill_copy(t, third, inp);
    let again = run_scalar_calls(t, opts, run, inp, third, PAINT_SECOND, rec);
    let delta = third.base().wrapping_sub(a.base());
    let len = t.result_bytes;
    Undefined {
        results: scalar
            .outs
            .iter()
            .zip(&again.outs)
            .map(|(x, y)| undefined_bytes(&x[..len], &y[..len], delta))
            .collect(),
        memory: a.bufs().iter().zip(third.bufs()).map(|(x, y)| undefined_bytes(x.bytes(), y.bytes(), delta)).collect(),
    }
}

/// What an optimised caller leaves: its results and, for the writer, the
/// buffers it copied out.
type CallerOutput = (Vec<u8>, Option<Vec<Vec<u8>>>);

/// Runs trials `from..` and records progress and the first failure in `rec`.
fn run_trials(t: &Target, opts: &OracleOptions, cfg: &CheckConfig, from: usize, rec: &mut Record) {
    let run = t.run.as_ref().expect("runnable target");
    let spec = &t.spec;
    let n = spec.width as usize;
    let p = t.scalars.len();
    let (mut a, mut b) = match (alloc_copy(t), alloc_copy(t)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
    };
    let mut third: Option<GuardedSet> = None;
    let delta = b.base().wrapping_sub(a.base());
    // The optimised callers' local buffers live on this thread's stack,
    // below this frame.
    let frame = 0u8;
    let stack_top = std::hint::black_box(&frame) as *const u8 as u64;
    let on_stack = |y: u64| y < stack_top && stack_top - y < (MAX_CALLER_BYTES as u64) + (1 << 20);
    for trial in from..cfg.trials {
        rec.trial = trial as u64;
        rec.phase = PHASE_SETUP;
        let inp = trial_inputs(t, cfg, trial);
        fill_copy(t, &mut a, &inp);
        fill_copy(t, &mut b, &inp);
        let init: Vec<Vec<u8>> =
            if run.callers.is_some() { a.bufs().iter().map(|g| g.bytes().to_vec()).collect() } else { Vec::new() };
        rec.phase = PHASE_SCALAR;
        let started = std::time::Instant::now();
        let scalar = run_scalar_calls(t, opts, run, &inp, &mut a, PAINT_FIRST, rec);
        rec.scalar_ms = started.elapsed().as_millis() as u64;
        if scalar.poison && opts.skip_poison_inputs {
            // Inputs the scalar code promised not to get: no clone to judge.
            rec.poison_trials += 1;
            continue;
        }
        // The clone, once, on the second copy.
        let mut vin = vec![0u8; (p + 1) * n * SLOT];
        for (i, s) in t.scalars.iter().enumerate() {
            for k in 0..n {
                let v = if *s == Scalar::Ptr { pointer_value(t, b.bufs(), &inp, i, k) } else { inp.vals[i][k] };
                write(&mut vin, (i * n + k) * SLOT, v, s.bytes());
            }
        }
        for (k, m) in inp.mask.iter().enumerate() {
            vin[(p * n + k) * SLOT] = *m as u8;
        }
        rec.phase = PHASE_CLONE;
        rec.lane = 0;
        let mut vout = vec![0u8; n * RESULT_SLOT];
        let inactive = inactive_buffers(t, opts, &inp);
        if let Err(e) = b.protect(&inactive, true) {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
        use_arena_of(&mut b);
        set_jit_byte(run.paint, PAINT_FIRST);
        recorder::open();
        // SAFETY: as for the scalar wrapper.
        unsafe { (run.vector_fn)(vin.as_ptr(), vout.as_mut_ptr()) };
        let clone_log = recorder::close();
        alloc_hooks::stop_arena();
        if let Err(e) = b.protect(&inactive, false) {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
        // Optimised callers: they copy the initial contents into local
        // buffers, call the clone, and (writer) copy the buffers out.
        // Per caller: its results and (writer) its saved buffers.
        let mut caller_runs: Vec<CallerOutput> = Vec::new();
        if let Some((writer, reader)) = run.callers {
            // The callers take pointers as offsets into their buffers.
            let mut cin = vin.clone();
            for (i, s) in t.scalars.iter().enumerate() {
                if *s != Scalar::Ptr {
                    continue;
                }
                for k in 0..n {
                    let v = pointer_value(t, b.bufs(), &inp, i, k);
                    let j = buffer_of(t, i, k);
                    let off = if v == 0 { i64::MIN as u64 } else { v.wrapping_sub(b.bufs()[j].start() as u64) };
                    write(&mut cin, (i * n + k) * SLOT, off, 8);
                }
            }
            for (phase, caller) in [(PHASE_WRITER, writer), (PHASE_READER, reader)] {
                rec.phase = phase;
                let mut saves: Vec<Vec<u8>> = init.iter().map(|v| vec![0u8; v.len()]).collect();
                let mut table = Vec::new();
                for (j, save) in saves.iter_mut().enumerate() {
                    table.extend([init[j].as_ptr() as u64, save.as_mut_ptr() as u64]);
                }
                let mut vout = vec![0u8; n * RESULT_SLOT];
                // The clone's allocations land where they did in its own run.
                use_arena_of(&mut b);
                scrub_stack();
                // SAFETY: the caller reads `vin` and `table`, writes `vout` and
                // the buffers and saves listed in `table`, all live here.
                unsafe { caller(cin.as_ptr(), vout.as_mut_ptr(), table.as_ptr() as *const u8) };
                alloc_hooks::stop_arena();
                caller_runs.push((vout, (phase == PHASE_WRITER).then_some(saves)));
            }
        }
        let mut runs = vec![(
            PHASE_CLONE,
            CloneRun {
                kind_result: FAIL_RESULT,
                kind_memory: FAIL_MEMORY,
                results: vout,
                pointer_results: true,
                memory: Some(b.bufs().iter().map(|g| g.bytes()).collect()),
            },
        )];
        for ((results, saves), phase) in caller_runs.iter().zip([PHASE_WRITER, PHASE_READER]) {
            runs.push((
                phase,
                CloneRun {
                    kind_result: FAIL_CALLER_RESULT,
                    kind_memory: FAIL_CALLER_MEMORY,
                    results: results.clone(),
                    pointer_results: false,
                    memory: saves.as_ref().map(|s| s.iter().map(|v| v.as_slice()).collect()),
                },
            ));
        }
        // Pointers the optimised callers store point into their own local
        // copy of the buffers, one page-aligned array on this thread's
        // stack laid out like the copies: a word is such a pointer if it
        // implies a page-aligned array base on the stack. (Which lane's
        // buffer it points into was checked exactly in the clone's run.)
        let in_clone = relative(delta);
        let in_caller = |x: u64, y: u64| {
            let local_base = y.wrapping_sub(x.wrapping_sub(a.base()));
            in_clone(x, y) || (local_base % 4096 == 0 && on_stack(local_base))
        };
        let mut undefined: Option<Undefined> = None;
        for (phase, got) in &runs {
            let same_pointer: &dyn Fn(u64, u64) -> bool = if *phase == PHASE_CLONE { &in_clone } else { &in_caller };
            rec.phase = *phase;
            let mut failure = compare_run(t, opts, &inp, (&scalar, &a), &b, got, same_pointer, undefined.as_ref());
            if failure.is_some() && undefined.is_none() {
                // Bytes the scalar code leaves undefined may differ: find
                // them, and compare again without them.
                let third = match &mut third {
                    Some(c) => c,
                    None => match alloc_copy(t) {
                        Ok(c) => third.insert(c),
                        Err(e) => {
                            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
                            return;
                        }
                    },
                };
                rec.phase = PHASE_SCALAR;
                undefined = Some(find_undefined(t, opts, run, &inp, (&scalar, &a), third, rec));
                rec.phase = *phase;
                failure = compare_run(t, opts, &inp, (&scalar, &a), &b, got, same_pointer, undefined.as_ref());
            }
            if let Some(f) = failure {
                f.record(rec);
                return;
            }
        }
        if let Err(m) = recorder::check_log(&scalar.logs, &clone_log) {
            let got: Vec<u8> = m.got.map_or(Vec::new(), |(t, v)| [t.to_le_bytes(), v.to_le_bytes()].concat());
            rec.phase = PHASE_CLONE;
            rec.fail(FAIL_LOG, 0, &[], &got);
            rec.f_log = [m.position as u64, m.clone_entries as u64, m.scalar_entries as u64];
            return;
        }
        rec.lanes_compared += inp.mask.iter().filter(|&&m| m).count() as u64;
    }
    rec.phase = PHASE_SETUP;
}

pub(super) fn check_target(t: &Target, opts: &OracleOptions, cfg: &CheckConfig) -> Result<CheckStats, OracleError> {
    let spec = &t.spec;
    let n = spec.width as usize;
    let mismatch = |trial: usize, lane: usize, exp: Vec<u8>, got: Vec<u8>, kind: MismatchKind| {
        let inp = trial_inputs(t, cfg, trial);
        let lane = lane.min(n.saturating_sub(1));
        OracleError::Mismatch(Box::new(Mismatch {
            clone: spec.vector_name.clone(),
            trial,
            lane: lane as u32,
            inputs: (0..t.scalars.len()).map(|i| describe_input(t, &inp, i, lane)).collect(),
            expected: exp,
            got,
            mask: inp.mask,
            kind,
        }))
    };
    if let Some(kind) = &t.static_failure {
        return Err(mismatch(0, 0, Vec::new(), Vec::new(), kind.clone()));
    }
    let mut stats = CheckStats::default();
    let mut from = 0;
    let mut first_scalar_fault = None;
    // The time limit covers a child's trials together, so the clone can run
    // out of time that the scalar calls used (lz4's `LZ4F_optimalBSID` loops
    // 2^32 times on some inputs): a trial that times out in the clone runs
    // once more, with time for its scalar calls and eight times as long for
    // the clone. Only a clone slower than that is a failure.
    let mut timeout = opts.timeout_secs;
    let mut retried = None;
    let mut poison_trials = 0;
    while from < cfg.trials {
        let (rec, end) = if opts.isolate {
            run_forked(Record::new(), timeout, |rec| run_trials(t, opts, cfg, from, rec)).map_err(OracleError::Setup)?
        } else {
            let mut rec = Record::new();
            run_trials(t, opts, cfg, from, &mut rec);
            (rec, ChildEnd::Finished)
        };
        stats.lanes_compared += rec.lanes_compared as usize;
        stats.trials_dropped += rec.poison_trials as usize;
        poison_trials += rec.poison_trials;
        let trial = rec.trial as usize;
        let during = match rec.phase {
            PHASE_CLONE => "the clone",
            PHASE_WRITER => "the -O2 writer caller of the clone",
            PHASE_READER => "the -O2 reader caller of the clone",
            _ => "",
        };
        match end {
            ChildEnd::Finished => {
                let (exp, got) = (rec.exp[..rec.exp_len as usize].to_vec(), rec.got[..rec.got_len as usize].to_vec());
                let lane = rec.f_lane as usize;
                let memory = || {
                    let b = t.bufs[rec.f_buf as usize];
                    let region_offset = Guarded::region_offset_for(b.len, b.align);
                    let offset = rec.f_offset as i64 - (region_offset + b.base) as i64;
                    (b.param, b.lane, offset)
                };
                let caller = if rec.phase == PHASE_WRITER { "writer" } else { "reader" }.to_string();
                return match rec.fail {
                    FAIL_NONE => break,
                    FAIL_SETUP => Err(OracleError::Setup(String::from_utf8_lossy(&exp).into_owned())),
                    FAIL_RESULT => Err(mismatch(trial, lane, exp, got, MismatchKind::Result)),
                    FAIL_LOG => {
                        let [position, clone_entries, scalar_entries] = rec.f_log.map(|x| x as usize);
                        let kind = MismatchKind::Log { position, clone_entries, scalar_entries };
                        Err(mismatch(trial, lane, exp, got, kind))
                    }
                    FAIL_MEMORY => {
                        let (param, buffer_lane, offset) = memory();
                        let written_by = (0..64).filter(|k| rec.f_writers >> k & 1 == 1).collect();
                        Err(mismatch(
                            trial,
                            lane,
                            exp,
                            got,
                            MismatchKind::Memory { param, buffer_lane, offset, written_by },
                        ))
                    }
                    FAIL_CALLER_RESULT => {
                        Err(mismatch(trial, lane, exp, got, MismatchKind::OptimizedCaller { caller, memory: None }))
                    }
                    _ => Err(mismatch(
                        trial,
                        lane,
                        exp,
                        got,
                        MismatchKind::OptimizedCaller { caller, memory: Some(memory()) },
                    )),
                };
            }
            ChildEnd::Signal(sig) if rec.phase == PHASE_SCALAR => {
                // The scalar code faults on this trial's inputs: not the
                // clone's fault. Drop the trial and go on after it.
                stats.trials_dropped += 1;
                first_scalar_fault.get_or_insert((trial, rec.lane, sig));
                from = trial + 1;
            }
            ChildEnd::Signal(libc::SIGALRM) if !during.is_empty() && retried != Some(trial) => {
                retried = Some(trial);
                let scalar_secs = u32::try_from(rec.scalar_ms.div_ceil(1000)).unwrap_or(u32::MAX);
                timeout = opts.timeout_secs.saturating_add(scalar_secs.saturating_mul(9)).saturating_add(1);
                from = trial;
            }
            ChildEnd::Signal(sig) if !during.is_empty() => {
                let kind = MismatchKind::Fault { signal: sig, during: during.to_string() };
                return Err(mismatch(trial, 0, Vec::new(), Vec::new(), kind));
            }
            ChildEnd::Signal(sig) => {
                return Err(OracleError::Setup(format!(
                    "{}: the oracle's child process died with {} while preparing trial {trial}",
                    spec.vector_name,
                    signal_name(sig)
                )))
            }
            ChildEnd::Abnormal(code) => {
                return Err(OracleError::Setup(format!(
                "{}: the oracle's child process exited with status {code} in trial {trial} (a panic in the oracle?)",
                spec.vector_name
            )))
            }
        }
    }
    if stats.lanes_compared == 0 && first_scalar_fault.is_none() && poison_trials > 0 {
        return Err(OracleError::Setup(format!(
            "{}: the scalar function `{}` makes poison (an overflow or shift it promises not to have) on every \
             trial's inputs",
            spec.vector_name, spec.scalar_name
        )));
    }
    if stats.lanes_compared == 0 {
        if let Some((trial, lane, sig)) = first_scalar_fault {
            let hint = if t.bufs.is_empty() {
                ""
            } else {
                "; its pointer parameters may need larger buffers than the oracle gives"
            };
            return Err(OracleError::Setup(format!(
                "{}: the scalar function `{}` crashed with {} on every trial's inputs (first: trial {trial}, lane \
                 {lane}){hint}",
                spec.vector_name,
                spec.scalar_name,
                signal_name(sig)
            )));
        }
    }
    Ok(stats)
}
