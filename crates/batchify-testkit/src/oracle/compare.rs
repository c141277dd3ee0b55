//! Comparing what the clone (or an optimised caller of it) left with what
//! the scalar calls left: results and buffer bytes, bit for bit apart from
//! pointers to the same place, NaNs, undefined bytes and allowed ULPs.

use super::inputs::TrialInputs;
use super::protocol::Record;
use super::run::{ScalarRun, Undefined};
use super::signature::Target;
use super::OracleOptions;
use crate::buffers::GuardedSet;
use crate::inputs::Scalar;
use crate::wrappers::RESULT_SLOT;

/// The little-endian 64-bit word at `at` (which must leave 8 bytes).
fn word_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The first byte where `x` (from the scalar calls) and `y` (from the
/// clone) disagree, skipping bytes `skip` accepts. Where they differ, an
/// 8-byte word around the byte that `same_pointer(x_word, y_word)` accepts
/// is one pointer in the two copies of the inputs (see
/// [`GuardedSet::base`]), and its bytes agree.
fn first_disagreement(
    x: &[u8],
    y: &[u8],
    skip: impl Fn(usize) -> bool,
    same_pointer: impl Fn(u64, u64) -> bool,
) -> Option<usize> {
    let mut o = 0;
    while o < x.len() {
        if x[o] == y[o] || skip(o) {
            o += 1;
            continue;
        }
        let word = (o.saturating_sub(7)..=o).find(|&s| s + 8 <= x.len() && same_pointer(word_at(x, s), word_at(y, s)));
        match word {
            Some(s) => o = s + 8,
            None => return Some(o),
        }
    }
    None
}

/// Accepts a word pair that is the same pointer in two copies of the
/// inputs whose bases are `delta` bytes apart (`y = x + delta`): the
/// copies have one layout, so the pointers are at the same place relative
/// to their copy, in a buffer, the arena, or anywhere computed from them.
pub(super) fn relative(delta: u64) -> impl Fn(u64, u64) -> bool {
    move |x, y| y.wrapping_sub(x) == delta
}

/// Which bytes of `x` and `y`, two runs of the same scalar calls over
/// copies `delta` bytes apart with different paint, disagree: the
/// scalar code leaves them undefined (the payload of a Rust `None` read
/// from an uninitialised stack slot).
pub(super) fn undefined_bytes(x: &[u8], y: &[u8], delta: u64) -> Vec<bool> {
    let mut undefined = vec![false; x.len()];
    let mut from = 0;
    while let Some(o) = first_disagreement(&x[from..], &y[from..], |_| false, relative(delta)) {
        undefined[from + o] = true;
        from += o + 1;
    }
    undefined
}

/// Whether the results of one lane agree: bit for bit apart from pointers
/// to the same place in the two copies, both-NaN floating-point results,
/// and bytes the scalar code leaves undefined. A pointer result outside
/// both copies (one from an allocator the oracle does not replace, as C++'s
/// `new`) only has to be non-null in both.
fn results_agree(
    t: &Target,
    exp: &[u8],
    got: &[u8],
    copies: (&GuardedSet, &GuardedSet),
    undefined: Option<&[bool]>,
) -> bool {
    let delta = copies.1.base().wrapping_sub(copies.0.base());
    let skip = |o: usize| undefined.is_some_and(|u| u[o]);
    if first_disagreement(exp, got, skip, relative(delta)).is_none() || both_nan(t.result_scalar, got, exp) {
        return true;
    }
    // NaN leaves of an aggregate or vector result meet any NaN.
    let nan_leaf = |o: usize| {
        t.result_float_leaves.iter().any(|&(at, s)| {
            (at..at + s.bytes()).contains(&o)
                && at + s.bytes() <= exp.len().min(got.len())
                && both_nan(Some(s), &got[at..], &exp[at..])
        })
    };
    if !t.result_float_leaves.is_empty()
        && first_disagreement(exp, got, |o| skip(o) || nan_leaf(o), relative(delta)).is_none()
    {
        return true;
    }
    if t.result_scalar == Some(Scalar::Ptr) {
        let (x, y) = (word_at(exp, 0), word_at(got, 0));
        return x != 0 && y != 0 && !copies.0.contains(x) && !copies.1.contains(y);
    }
    false
}

/// A difference between the scalar calls and a run of the clone.
pub(super) struct Failure {
    kind: u32,
    lane: usize,
    expected: Vec<u8>,
    got: Vec<u8>,
    /// For memory: buffer, offset in its read-write pages, lanes that wrote
    /// the byte.
    at: Option<(usize, usize, u64)>,
}

impl Failure {
    pub(super) fn record(self, rec: &mut Record) {
        rec.fail(self.kind, self.lane, &self.expected, &self.got);
        if let Some((j, o, w)) = self.at {
            rec.f_buf = j as u32;
            rec.f_offset = o as u64;
            rec.f_writers = w;
        }
    }
}

/// What the clone (or an optimised caller of it) left, to compare with the
/// scalar calls.
pub(super) struct CloneRun<'a> {
    pub(super) kind_result: u32,
    pub(super) kind_memory: u32,
    /// Each lane's result slot, one after the other.
    pub(super) results: Vec<u8>,
    /// Whether results holding pointers are compared (not for the
    /// optimised callers, whose pointers point into their own locals).
    pub(super) pointer_results: bool,
    /// The buffers as the run left them (none: not compared).
    pub(super) memory: Option<Vec<&'a [u8]>>,
}

/// Compares one run of the clone with the scalar calls.
#[allow(clippy::too_many_arguments)]
pub(super) fn compare_run(
    t: &Target,
    opts: &OracleOptions,
    inp: &TrialInputs,
    (scalar, a): (&ScalarRun, &GuardedSet),
    b: &GuardedSet,
    got: &CloneRun<'_>,
    same_pointer: &dyn Fn(u64, u64) -> bool,
    undefined: Option<&Undefined>,
) -> Option<Failure> {
    let n = t.spec.width as usize;
    let len = t.result_bytes;
    let compare_results = got.pointer_results || matches!(t.result_scalar, Some(s) if s != Scalar::Ptr);
    for k in (0..n).filter(|&k| inp.mask[k] && compare_results) {
        let mine = &got.results[k * RESULT_SLOT..k * RESULT_SLOT + len];
        let exp = &scalar.outs[k][..len];
        let agree = results_agree(t, exp, mine, (a, b), undefined.map(|u| u.results[k].as_slice()))
            || opts.veclib_max_ulps.is_some_and(|u| within_ulps(t.result_scalar, exp, mine, u));
        if !agree {
            return Some(Failure {
                kind: got.kind_result,
                lane: k,
                expected: exp.to_vec(),
                got: mine.to_vec(),
                at: None,
            });
        }
    }
    for (j, mine) in got.memory.iter().flatten().enumerate() {
        let g = a.bufs()[j].bytes();
        let w = &scalar.writers[j];
        let skip = |o: usize| {
            (opts.tolerate_conflicts && !w.is_empty() && w[o].count_ones() > 1)
                || undefined.is_some_and(|u| u.memory[j][o])
        };
        if let Some(o) = first_disagreement(g, mine, skip, same_pointer) {
            let end = (o + 16).min(g.len());
            return Some(Failure {
                kind: got.kind_memory,
                lane: t.bufs[j].lane.unwrap_or(0) as usize,
                expected: g[o..end].to_vec(),
                got: mine[o..end].to_vec(),
                at: Some((j, o, if w.is_empty() { 0 } else { w[o] })),
            });
        }
    }
    None
}

/// Whether two floating-point results are both NaN. LLVM leaves the sign
/// and payload of a NaN produced from NaN operands unspecified (LangRef,
/// "Floating-Point Semantics"), and the backend may commute operands, so
/// NaN results compare equal to each other; every other bit must match.
fn both_nan(s: Option<Scalar>, a: &[u8], b: &[u8]) -> bool {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        u64::from_le_bytes(w)
    };
    let (a, b) = (bits(a), bits(b));
    match s {
        Some(Scalar::Float) => f32::from_bits(a as u32).is_nan() && f32::from_bits(b as u32).is_nan(),
        Some(Scalar::Double) => f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan(),
        Some(Scalar::Half) => (a & 0x7c00) == 0x7c00 && (a & 0x3ff) != 0 && (b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0,
        _ => false,
    }
}

/// Whether two finite or infinite `float`/`double` results (no NaN) of the
/// same sign are at most `ulps` units in the last place apart (`-0` and
/// `+0` are 0 apart; an infinity only meets itself).
fn within_ulps(s: Option<Scalar>, a: &[u8], b: &[u8], ulps: u32) -> bool {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        u64::from_le_bytes(w)
    };
    let (a, b) = (bits(a), bits(b));
    let (sign, exp_mask) = match s {
        Some(Scalar::Float) => (1u64 << 31, 0x7f80_0000u64),
        Some(Scalar::Double) => (1u64 << 63, 0x7ff0_0000_0000_0000u64),
        _ => return false,
    };
    let special = |x: u64| x & exp_mask == exp_mask;
    if special(a) || special(b) {
        return false; // NaN and infinities: bit for bit (or both NaN) only
    }
    let magnitude = |x: u64| (x & (sign - 1)) as i128;
    let ordered = |x: u64| if x & sign != 0 { -magnitude(x) } else { magnitude(x) };
    let zero = |x: u64| magnitude(x) == 0;
    if (a & sign) != (b & sign) && !zero(a) && !zero(b) {
        return false;
    }
    (ordered(a) - ordered(b)).abs() <= ulps as i128
}
