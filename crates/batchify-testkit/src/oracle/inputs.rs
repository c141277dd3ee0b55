//! The inputs of one trial: parameter values per lane, the mask, null
//! pointers, and the copies of the buffers (filled from the trial's seed,
//! keeping the scalar code's promises).

use super::signature::{Target, VAR_STEP_MAX};
use super::{CheckConfig, OracleOptions};
use crate::alloc_hooks;
use crate::buffers::{Guarded, GuardedSet};
use crate::inputs::{describe, mask_to, random_bits, Scalar};
use batchify_core::vfabi::ParamKind;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn sign_extend(raw: u64, w: u32) -> i64 {
    if w < 64 && (raw >> (w - 1)) & 1 == 1 {
        (raw | !((1u64 << w) - 1)) as i64
    } else {
        raw as i64
    }
}

/// The inputs of one trial, apart from buffer contents.
pub(super) struct TrialInputs {
    /// Per parameter, per lane (pointer parameters: 0).
    pub(super) vals: Vec<Vec<u64>>,
    pub(super) mask: Vec<bool>,
    /// Per parameter, per lane: pass null.
    nulls: Vec<Vec<bool>>,
    /// Seed of the buffer contents.
    fill_seed: u64,
}

pub(super) fn trial_inputs(t: &Target, cfg: &CheckConfig, trial: usize) -> TrialInputs {
    let spec = &t.spec;
    let n = spec.width as usize;
    let seed = cfg.seed ^ fxhash(&spec.vector_name) ^ (trial as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut vals: Vec<Vec<u64>> = Vec::new();
    for (i, s) in t.scalars.iter().enumerate() {
        let w = match s {
            Scalar::Int(w) => *w,
            _ => 64,
        };
        vals.push(match spec.params[i] {
            ParamKind::Vector => (0..n).map(|_| random_bits(&mut rng, *s)).collect(),
            ParamKind::Linear { step } => {
                let base = random_bits(&mut rng, *s);
                (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(step as u64)), w)).collect()
            }
            // Uniform; linear with a variable step: the base, fixed below.
            ParamKind::Uniform | ParamKind::LinearVarStep { .. } => vec![random_bits(&mut rng, *s); n],
            ParamKind::LinearRef { .. } => vec![0; n],
        });
    }
    // The step of a pointer with a variable step stays small.
    for (i, s) in t.scalars.iter().enumerate() {
        if let (Scalar::Ptr, ParamKind::LinearVarStep { param }) = (s, spec.params[i]) {
            // Never 0: that would make every lane's pointer the same, so any
            // write would be a conflicting one.
            let step = rng.gen_range(1..=VAR_STEP_MAX / 4) * 4 * if rng.gen_bool(0.5) { -1 } else { 1 };
            let w = if let Scalar::Int(w) = t.scalars[param] { w } else { 64 };
            vals[param] = vec![mask_to(step as u64, w); n];
        }
    }
    for (i, s) in t.scalars.iter().enumerate() {
        if let (Scalar::Int(w), ParamKind::LinearVarStep { param }) = (s, spec.params[i]) {
            let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
            let step = sign_extend(vals[param][0], sw) as u64;
            let base = vals[i][0];
            vals[i] = (0..n as u64).map(|k| mask_to(base.wrapping_add(k.wrapping_mul(step)), *w)).collect();
        }
    }
    let mask: Vec<bool> = if spec.mask.is_some() { (0..n).map(|_| rng.gen_bool(0.6)).collect() } else { vec![true; n] };
    let mut nulls = vec![vec![false; n]; t.scalars.len()];
    for (i, p) in t.ptrs.iter().enumerate() {
        if p.is_some_and(|p| p.nullable) {
            nulls[i] = match spec.params[i] {
                ParamKind::Uniform => vec![rng.gen_bool(0.15); n],
                _ => (0..n).map(|_| rng.gen_bool(0.15)).collect(),
            };
        }
    }
    TrialInputs { vals, mask, nulls, fill_seed: rng.gen() }
}

/// The buffer of pointer parameter `i` in lane `k`.
pub(super) fn buffer_of(t: &Target, i: usize, k: usize) -> usize {
    t.bufs
        .iter()
        .position(|b| b.param == i && b.lane.is_none_or(|l| l as usize == k))
        .expect("every pointer parameter has a buffer")
}

/// The pointer lane `k` passes for parameter `i`, into `bufs`.
pub(super) fn pointer_value(t: &Target, bufs: &[Guarded], inp: &TrialInputs, i: usize, k: usize) -> u64 {
    if inp.nulls[i][k] {
        return 0;
    }
    let j = buffer_of(t, i, k);
    let b = &t.bufs[j];
    let at = bufs[j].region() as u64 + b.base as u64;
    let off = match t.spec.params[i] {
        ParamKind::Linear { step } => (k as i64).wrapping_mul(step),
        ParamKind::LinearVarStep { param } => {
            let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
            (k as i64).wrapping_mul(sign_extend(inp.vals[param][0], sw))
        }
        _ => 0,
    };
    at.wrapping_add(off as u64)
}

pub(super) fn describe_input(t: &Target, inp: &TrialInputs, i: usize, k: usize) -> String {
    match t.scalars[i] {
        Scalar::Ptr if inp.nulls[i][k] => "ptr null".into(),
        Scalar::Ptr => {
            let what = match t.spec.params[i] {
                ParamKind::Vector => format!("lane {k}'s buffer"),
                ParamKind::Uniform => "the shared buffer".into(),
                _ => format!("the shared buffer, lane {k}'s position"),
            };
            format!("ptr into {what}")
        }
        s => describe(s, inp.vals[i][k]),
    }
}

pub(super) fn write(buf: &mut [u8], at: usize, bits: u64, bytes: usize) {
    buf[at..at + bytes].copy_from_slice(&bits.to_le_bytes()[..bytes.min(8)]);
}

/// Bytes of the arena each copy of the inputs has for the allocations of
/// the code under test (see [`crate::alloc_hooks`]).
const ARENA_BYTES: usize = 32 * alloc_hooks::CLASS_BYTES;

pub(super) fn alloc_copy(t: &Target) -> Result<GuardedSet, String> {
    let plan: Vec<(usize, usize)> = t.bufs.iter().map(|b| (b.len, b.align)).collect();
    GuardedSet::new(&plan, ARENA_BYTES)
}

/// Fills one copy of a trial's buffers: random bytes from the trial's seed,
/// then values that keep the scalar code's promises about them.
pub(super) fn fill_copy(t: &Target, set: &mut GuardedSet, inp: &TrialInputs) {
    let mut fill = SmallRng::seed_from_u64(inp.fill_seed);
    for g in set.bufs_mut() {
        fill.fill(g.bytes_mut());
    }
    let n = t.spec.width as usize;
    for p in &t.promises {
        for (j, b) in t.bufs.iter().enumerate().filter(|(_, b)| b.param == p.param) {
            let lanes: Vec<i64> = match t.spec.params[p.param] {
                ParamKind::Linear { step } => (0..n as i64).map(|k| k.wrapping_mul(step)).collect(),
                ParamKind::LinearVarStep { param } => {
                    let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
                    let step = sign_extend(inp.vals[param][0], sw);
                    (0..n as i64).map(|k| k.wrapping_mul(step)).collect()
                }
                _ => vec![0],
            };
            let g = &mut set.bufs_mut()[j];
            for lane_offset in lanes {
                let at = b.base as i64 + lane_offset + p.offset as i64;
                if at < 0 || at as usize + p.bytes > b.len {
                    continue;
                }
                let at = g.region_offset() + at as usize;
                write(g.bytes_mut(), at, p.pick(&mut fill), p.bytes);
            }
        }
    }
}

/// The buffers of lanes the trial's mask leaves inactive (none unless
/// [`OracleOptions::protect_inactive_lanes`]).
pub(super) fn inactive_buffers(t: &Target, opts: &OracleOptions, inp: &TrialInputs) -> Vec<usize> {
    if !opts.protect_inactive_lanes {
        return Vec::new();
    }
    (0..t.bufs.len()).filter(|&j| t.bufs[j].lane.is_some_and(|k| !inp.mask[k as usize])).collect()
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}
