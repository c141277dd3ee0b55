//! The oracle of map entry points (`batchify_core::map_entry`): runs the
//! scalar function once per element and the map once over the whole
//! arrays, on the same inputs, and compares the output arrays bit for bit.
//!
//! Each trial picks an element count `n` (0, 1, `N-1`, `N`, `N+1`, `2N-1`,
//! `3N+2`, `384N+5` (an adaptive map's probes of both forms and a run
//! of one), `8195 + 3N` (two windows of a bucketed map and part of a
//! third; these two with [`MapCheckConfig::probe_size`]), then random
//! counts up to `8N`), random and special values for
//! the varying parameters' arrays, one value for each uniform parameter
//! and a base for each linear one. Every array sits at the end of its own
//! read-write pages, against a guard page (see [`crate::buffers`]), with
//! only its element's alignment, so a map that reads or writes one element
//! too many faults. One trial in four passes an input array as `out` (in
//! place) where one has the result's type. After the map: the output
//! matches the scalar results; every input array, and the bytes before
//! each array, are unchanged.
//!
//! Calls of the side-effect recorder are logged per element and for the
//! map's call; the map's log must be, group after group of `N` elements,
//! an interleaving of the group's element logs ([`recorder::check_log`]).
//!
//! The check runs in a forked child ([`crate::isolate`]), so a fault is
//! reported with the trial and `n` it happened on.

use crate::alloc_hooks;
use crate::buffers::GuardedSet;
use crate::inputs::{describe, mask_to, random_bits, Scalar};
use crate::isolate::{run_forked, signal_name, ChildEnd};
use crate::jit::{Jit, JitTarget};
use crate::recorder;
use crate::wrappers::{add_scalar_wrapper, copy_call_abi, load_scalar, new_wrapper, RESULT_SLOT, SLOT};
use batchify_core::llvm::{Module, Type, Value};
use batchify_core::map_entry::{MapRequest, PROBE_GROUPS};
use batchify_core::vfabi::ParamKind;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// How hard to test one map.
#[derive(Debug, Clone, Copy)]
pub struct MapCheckConfig {
    /// Calls of the map (the first seven with the fixed counts of the
    /// module documentation).
    pub trials: usize,
    /// Seed of the inputs.
    pub seed: u64,
    /// Largest random `n`, in groups of `N`.
    pub max_groups: usize,
    /// The CPU the JIT compiles for.
    pub jit_target: JitTarget,
    /// Time limit of the whole check in seconds (0: none).
    pub timeout_secs: u32,
    /// Whether trial 7 has an adaptive map's size, two probes and a run
    /// (`3 * PROBE_GROUPS * N + 5`: thousands of elements), and trial 8
    /// two bucketed windows and more, instead of random ones.
    pub probe_size: bool,
}

impl Default for MapCheckConfig {
    fn default() -> Self {
        MapCheckConfig {
            trials: 24,
            seed: 0x3a9_c4ec,
            max_groups: 8,
            jit_target: JitTarget::from_env(),
            timeout_secs: 120,
            probe_size: true,
        }
    }
}

/// What a passing check compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MapStats {
    /// Elements compared over all trials.
    pub elements: usize,
    /// Trials run with `out` equal to an input array.
    pub in_place_trials: usize,
}

/// Why a map check did not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapCheckError {
    /// The map cannot be checked (a parameter type the check does not
    /// support, code the JIT cannot run, ...): not a verdict on the map.
    Setup(String),
    /// The map computed something else than the scalar calls, or faulted.
    Mismatch(String),
}

impl std::fmt::Display for MapCheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapCheckError::Setup(s) => write!(f, "map check setup: {s}"),
            MapCheckError::Mismatch(s) => write!(f, "map mismatch: {s}"),
        }
    }
}

/// How one parameter is passed to the map, and drawn.
#[derive(Debug, Clone, Copy)]
struct ParamPlan {
    scalar: Scalar,
    kind: ParamKind,
}

/// Bytes of one array element of `s` in the map's layout (odd-width
/// integers rounded up to a power of two bytes, as
/// `batchify_core::array_form` keeps them).
fn element_bytes(s: Scalar) -> usize {
    s.bytes().next_power_of_two()
}

fn scalar_of(t: Type) -> Result<Scalar, String> {
    use batchify_core::llvm::LLVMTypeKind as K;
    Ok(match t.kind() {
        K::LLVMIntegerTypeKind if t.int_width() <= 64 => Scalar::Int(t.int_width()),
        K::LLVMHalfTypeKind => Scalar::Half,
        K::LLVMFloatTypeKind => Scalar::Float,
        K::LLVMDoubleTypeKind => Scalar::Double,
        _ => return Err(format!("type `{}`: the map check takes integers, half, float and double", t.print())),
    })
}

/// The wrapper names in the oracle's copy of the module.
const ONE: &str = "__map_check.one";
const MAP: &str = "__map_check.map";

/// `void __map_check.map(ptr slots)`: `n` from slot 0, parameter `j` from
/// slot `1 + j`, `out` from the last slot, each 8 bytes.
fn add_map_wrapper(module: Module, map: Value) {
    let (_, b, ps) = new_wrapper(module, MAP, map, 1);
    let args: Vec<Value> =
        map.function_type().param_types().iter().enumerate().map(|(j, t)| load_scalar(&b, *t, ps[0], j * 8)).collect();
    let call = b.call(map.function_type(), map, &args);
    copy_call_abi(call, map);
    b.ret(None);
}

/// The plain-data record the child fills.
#[derive(Clone, Copy)]
struct Record {
    trial: u32,
    n: u32,
    elements: u64,
    in_place: u32,
    failed: u8,
    message_len: u32,
    message: [u8; 1024],
}

impl Record {
    fn fail(&mut self, m: &str) {
        let m = m.as_bytes();
        let len = m.len().min(self.message.len());
        self.message[..len].copy_from_slice(&m[..len]);
        self.message_len = len as u32;
        self.failed = 1;
    }
}

type OneFn = unsafe extern "C" fn(*const u8, *mut u8);
type MapFn = unsafe extern "C" fn(*const u8);

/// Checks the map `request` names in `module` (which must hold the scalar
/// function and the built map).
pub fn check_map(
    module: &inkwell::module::Module<'_>,
    request: &MapRequest,
    cfg: &MapCheckConfig,
) -> Result<MapStats, MapCheckError> {
    let setup = MapCheckError::Setup;
    let spec = &request.spec;
    let copy = module.clone();
    let raw = Module::from_inkwell(&copy);
    let tainted = crate::prepare::prepare(raw);
    let (full, tail) = request.clones().map_err(|e| setup(e.to_string()))?;
    for name in [&spec.scalar_name, &request.name, &full.vector_name, &tail.vector_name] {
        if let Some(why) = tainted.get(name) {
            return Err(setup(format!("`{name}` cannot run: {why}")));
        }
    }
    let scalar = raw.function(&spec.scalar_name).ok_or_else(|| setup(format!("no `{}`", spec.scalar_name)))?;
    let map = raw.function(&request.name).ok_or_else(|| setup(format!("no map `{}`", request.name)))?;
    let fty = scalar.function_type();
    let mut plans = Vec::new();
    for (j, (t, &kind)) in fty.param_types().iter().zip(&spec.params).enumerate() {
        let s = scalar_of(*t).map_err(|e| setup(format!("parameter {j}: {e}")))?;
        plans.push(ParamPlan { scalar: s, kind });
    }
    let ret = fty.return_type();
    let result = if ret.is_void() { None } else { Some(scalar_of(ret).map_err(|e| setup(format!("result: {e}")))?) };
    add_scalar_wrapper(raw, scalar, spec, ONE);
    add_map_wrapper(raw, map);
    raw.verify().map_err(|e| setup(format!("wrappers do not verify: {e}")))?;
    let overrides: Vec<(&str, u64)> = alloc_hooks::overrides()
        .into_iter()
        .chain(recorder::overrides())
        .filter(|(name, _)| raw.function(name).is_none_or(|f| f.is_declaration()))
        .collect();
    let bitcode = copy.write_bitcode_to_memory();
    let jit = Jit::for_target(bitcode.as_slice(), &overrides, &cfg.jit_target).map_err(setup)?;
    // SAFETY: the wrappers have these C signatures.
    let (one, map_fn) = unsafe {
        (
            std::mem::transmute::<u64, OneFn>(jit.lookup(ONE).map_err(setup)?),
            std::mem::transmute::<u64, MapFn>(jit.lookup(MAP).map_err(setup)?),
        )
    };
    let check = Check { plans, result, width: spec.width as usize, one, map: map_fn, cfg: *cfg };
    let init = Record { trial: 0, n: 0, elements: 0, in_place: 0, failed: 0, message_len: 0, message: [0; 1024] };
    let (rec, end) = run_forked(init, cfg.timeout_secs, |rec| check.run(rec)).map_err(setup)?;
    let message = String::from_utf8_lossy(&rec.message[..rec.message_len as usize]).into_owned();
    let at = format!("`{}` (trial {}, n = {})", request.name, rec.trial, rec.n);
    match end {
        ChildEnd::Finished if rec.failed == 0 => {
            Ok(MapStats { elements: rec.elements as usize, in_place_trials: rec.in_place as usize })
        }
        ChildEnd::Finished => Err(MapCheckError::Mismatch(format!("{at}: {message}"))),
        ChildEnd::Signal(s) => Err(MapCheckError::Mismatch(format!("{at}: the child died of {}", signal_name(s)))),
        ChildEnd::Abnormal(c) => Err(MapCheckError::Mismatch(format!("{at}: the child exited with {c}: {message}"))),
    }
}

/// Everything the child needs.
struct Check {
    plans: Vec<ParamPlan>,
    result: Option<Scalar>,
    width: usize,
    one: OneFn,
    map: MapFn,
    cfg: MapCheckConfig,
}

/// One trial's inputs.
struct Trial {
    n: usize,
    /// Per parameter: the values per element (uniform and linear
    /// parameters: the value passed to the map in element 0).
    values: Vec<Vec<u64>>,
    /// The varying parameter whose array is also `out`.
    in_place: Option<usize>,
}

impl Check {
    fn element_count(&self, rng: &mut SmallRng, trial: usize) -> usize {
        let w = self.width;
        match trial {
            0 => 0,
            1 => 1,
            2 => w - 1,
            3 => w,
            4 => w + 1,
            5 => 2 * w - 1,
            6 => 3 * w + 2,
            // An adaptive map probes both forms, runs one, and ends grouped.
            7 if self.cfg.probe_size => 3 * PROBE_GROUPS as usize * w + 5,
            // A bucketed map sorts two whole windows and part of a third.
            8 if self.cfg.probe_size => 2 * batchify_core::map_entry::bucket::WINDOW as usize + 3 * w + 1,
            _ => rng.gen_range(0..=self.cfg.max_groups * w),
        }
    }

    fn draw(&self, trial: usize) -> Trial {
        let mut rng = SmallRng::seed_from_u64(self.cfg.seed ^ (trial as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let n = self.element_count(&mut rng, trial);
        let mut values: Vec<Vec<u64>> = Vec::new();
        for p in &self.plans {
            values.push(match p.kind {
                ParamKind::Vector => (0..n).map(|_| random_bits(&mut rng, p.scalar)).collect(),
                _ => vec![random_bits(&mut rng, p.scalar)],
            });
        }
        let candidates: Vec<usize> = (0..self.plans.len())
            .filter(|&j| self.plans[j].kind == ParamKind::Vector && Some(self.plans[j].scalar) == self.result)
            .collect();
        let in_place = (!candidates.is_empty() && rng.gen_range(0..4) == 0)
            .then(|| candidates[rng.gen_range(0..candidates.len())]);
        Trial { n, values, in_place }
    }

    /// Parameter `j`'s value in element `i`.
    fn element_value(&self, t: &Trial, j: usize, i: usize) -> u64 {
        let p = self.plans[j];
        let w = match p.scalar {
            Scalar::Int(w) => w,
            _ => 64,
        };
        match p.kind {
            ParamKind::Vector => t.values[j][i],
            ParamKind::Linear { step } => mask_to(t.values[j][0].wrapping_add((i as u64).wrapping_mul(step as u64)), w),
            ParamKind::LinearVarStep { param } => {
                let sw = match self.plans[param].scalar {
                    Scalar::Int(sw) => sw,
                    _ => 64,
                };
                let raw = t.values[param][0];
                let step = if sw < 64 && (raw >> (sw - 1)) & 1 == 1 { raw | !((1u64 << sw) - 1) } else { raw };
                mask_to(t.values[j][0].wrapping_add((i as u64).wrapping_mul(step)), w)
            }
            _ => t.values[j][0],
        }
    }

    fn run(&self, rec: &mut Record) {
        for trial in 0..self.cfg.trials {
            let t = self.draw(trial);
            rec.trial = trial as u32;
            rec.n = t.n as u32;
            if let Err(m) = self.run_trial(&t) {
                rec.fail(&m);
                return;
            }
            rec.elements += t.n as u64;
            rec.in_place += u32::from(t.in_place.is_some());
        }
    }

    fn run_trial(&self, t: &Trial) -> Result<(), String> {
        let n = t.n;
        // The scalar results and logs, element by element.
        let mut slots = vec![0u8; self.plans.len() * self.width * SLOT];
        let mut expected: Vec<[u8; RESULT_SLOT]> = Vec::with_capacity(n);
        let mut logs = Vec::with_capacity(n);
        for i in 0..n {
            for j in 0..self.plans.len() {
                let at = j * self.width * SLOT;
                slots[at..at + 8].copy_from_slice(&self.element_value(t, j, i).to_le_bytes());
            }
            let mut out = [0u8; RESULT_SLOT];
            recorder::open();
            // SAFETY: the wrapper reads its parameters from `slots` and
            // writes at most its result's memory form to `out`.
            unsafe { (self.one)(slots.as_ptr(), out.as_mut_ptr()) };
            logs.push(recorder::close());
            expected.push(out);
        }
        // The arrays: one per varying parameter, and `out` unless in place.
        let arrays: Vec<usize> = (0..self.plans.len()).filter(|&j| self.plans[j].kind == ParamKind::Vector).collect();
        let out_array = self.result.filter(|_| t.in_place.is_none());
        let mut regions: Vec<(usize, usize)> = arrays
            .iter()
            .map(|&j| (n * element_bytes(self.plans[j].scalar), element_bytes(self.plans[j].scalar)))
            .collect();
        if let Some(r) = out_array {
            regions.push((n * element_bytes(r), element_bytes(r)));
        }
        let mut set = GuardedSet::new(&regions, 1 << 16)?;
        let mut fill = SmallRng::seed_from_u64(n as u64 ^ 0xf111);
        for (k, &j) in arrays.iter().enumerate() {
            let eb = element_bytes(self.plans[j].scalar);
            let buf = &mut set.bufs_mut()[k];
            let off = buf.region_offset();
            let bytes = buf.bytes_mut();
            fill.fill(&mut bytes[..off]);
            for i in 0..n {
                bytes[off + i * eb..off + (i + 1) * eb].copy_from_slice(&t.values[j][i].to_le_bytes()[..eb]);
            }
        }
        if out_array.is_some() {
            let buf = set.bufs_mut().last_mut().expect("the out array");
            fill.fill(buf.bytes_mut());
        }
        let before: Vec<Vec<u8>> = set.bufs().iter().map(|b| b.bytes().to_vec()).collect();
        let address = |k: usize| {
            let b = &set.bufs()[k];
            // n = 0: one past the pages, so that any access faults.
            if n == 0 {
                b.start() as u64 + b.bytes().len() as u64
            } else {
                b.region() as u64
            }
        };
        let mut map_slots = vec![0u64; 2 + self.plans.len()];
        map_slots[0] = n as u64;
        for j in 0..self.plans.len() {
            map_slots[1 + j] = match arrays.iter().position(|&a| a == j) {
                Some(k) => address(k),
                None => t.values[j][0],
            };
        }
        if self.result.is_some() {
            map_slots[1 + self.plans.len()] = match t.in_place {
                Some(j) => address(arrays.iter().position(|&a| a == j).expect("an array")),
                None => address(arrays.len()),
            };
        }
        alloc_hooks::use_arena(set.arena_mut().bytes_mut());
        recorder::open();
        // SAFETY: the wrapper reads `n`, the parameters and `out` from
        // `map_slots`; the arrays hold `n` elements each.
        unsafe { (self.map)(map_slots.as_ptr() as *const u8) };
        let log = recorder::close();
        alloc_hooks::stop_arena();

        // The results.
        if let Some(r) = self.result {
            let eb = element_bytes(r);
            let k = match t.in_place {
                Some(j) => arrays.iter().position(|&a| a == j).expect("an array"),
                None => arrays.len(),
            };
            let buf = &set.bufs()[k];
            let got = &buf.bytes()[buf.region_offset()..];
            for (i, exp) in expected.iter().enumerate() {
                let g = &got[i * eb..(i + 1) * eb];
                if g != &exp[..eb] && !both_nan(r, g, exp) {
                    let bits = |b: &[u8]| {
                        let mut x = [0u8; 8];
                        x[..eb.min(8)].copy_from_slice(&b[..eb.min(8)]);
                        u64::from_le_bytes(x)
                    };
                    let inputs: Vec<String> = (0..self.plans.len())
                        .map(|j| describe(self.plans[j].scalar, self.element_value(t, j, i)))
                        .collect();
                    return Err(format!(
                        "element {i} (inputs {}): expected {}, got {}{}",
                        inputs.join(", "),
                        describe(r, bits(exp)),
                        describe(r, bits(g)),
                        if t.in_place.is_some() { " (in place)" } else { "" }
                    ));
                }
            }
        }
        // The inputs, and the bytes before every array.
        for (k, (buf, old)) in set.bufs().iter().zip(&before).enumerate() {
            let is_out = (k == arrays.len()) || t.in_place.is_some_and(|j| arrays.get(k) == Some(&j));
            let now = buf.bytes();
            let end = if is_out { buf.region_offset() } else { now.len() };
            if let Some(at) = (0..end).find(|&x| now[x] != old[x]) {
                let what = if at < buf.region_offset() { "before" } else { "inside" };
                return Err(format!("the map changed byte {at} of array {k} ({what} its elements)"));
            }
        }
        // The side effects, group by group.
        let mut at = 0;
        for (g, group) in logs.chunks(self.width).enumerate() {
            let len: usize = group.iter().map(Vec::len).sum();
            let part = log.get(at..at + len).unwrap_or(&log[at.min(log.len())..]);
            recorder::check_log(group, part).map_err(|m| {
                format!(
                    "group {g}: the recorder log breaks the interleaving rule at entry {} ({} entries, the elements made {})",
                    m.position, m.clone_entries, m.scalar_entries
                )
            })?;
            at += len;
        }
        if at != log.len() {
            return Err(format!("the map recorded {} entries, the elements {at}", log.len()));
        }
        Ok(())
    }
}

/// Whether two floating-point results are both NaN: LLVM leaves the sign
/// and payload of a NaN made from NaN operands open, so any NaN meets any
/// NaN (as in [`crate::oracle`]).
fn both_nan(s: Scalar, a: &[u8], b: &[u8]) -> bool {
    let bits = |x: &[u8], n: usize| x[..n].iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    match s {
        Scalar::Half => {
            let nan = |v: u64| v & 0x7c00 == 0x7c00 && v & 0x03ff != 0;
            nan(bits(a, 2)) && nan(bits(b, 2))
        }
        Scalar::Float => f32::from_bits(bits(a, 4) as u32).is_nan() && f32::from_bits(bits(b, 4) as u32).is_nan(),
        Scalar::Double => f64::from_bits(bits(a, 8)).is_nan() && f64::from_bits(bits(b, 8)).is_nan(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_power_of_two_bytes() {
        assert_eq!(element_bytes(Scalar::Int(1)), 1);
        assert_eq!(element_bytes(Scalar::Int(17)), 4);
        assert_eq!(element_bytes(Scalar::Int(48)), 8);
        assert_eq!(element_bytes(Scalar::Double), 8);
    }
}
