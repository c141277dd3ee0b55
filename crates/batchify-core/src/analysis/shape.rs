//! Shapes: which varying integers and pointers are *strided*, lane `k`
//! holding `lane 0 + k·step` (the "contiguous / strided" vector shapes of
//! Karrenberg & Hack and of RV). Uniform values are the step-0 case and are
//! not recorded; varying values without a known step are simply absent.
//!
//! Steps count units for integers and bytes for pointers, and hold in the
//! value's own width, wrapping as LLVM's arithmetic does. A sign or zero
//! extension (including the one a `getelementptr` applies to a narrow index)
//! keeps the step only if the narrow sequence did not wrap between the lanes;
//! such a stride carries a [`Check`], and whoever relies on it tests the
//! first and last active lanes of the extended value at run time (one wrap, the only one
//! possible when `|step|·(N-1)` is small, moves the last lane away from
//! `first + (last - first)·step`). A value built from two checked sequences
//! could hide two wraps that cancel out, so it gets no stride.
//!
//! Sources: linear parameters with a constant step, `lane_id()` (step 1). Rules: `add`, `sub`,
//! `or disjoint`, `xor` with -1 (`~x` is `-1 - x`), multiplication and left
//! shift by a constant, truncation, extensions, `and` with a low-bit mask
//! (a truncation followed by a zero extension),
//! `getelementptr` (index steps scaled by the indexed type's allocation
//! size), `freeze`, pointer casts, and phis and `select`s on a uniform
//! condition whose inputs share one stride; private allocations and the
//! addresses into them, by their layout ([`super::private`]). A
//! sync-dependent phi (lanes came
//! by different paths or left a loop at different iterations) has none.
//!
//! Part of the analyses: reads the prepared function, changes nothing.

use super::cfg::Cfg;
use super::private::{ElementIndex, Layout, PrivateMemory};
use super::uniformity::Uniformity;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{LLVMTypeKind, Module, Type, Value};
use crate::vfabi::ParamKind;
use std::collections::HashMap;

/// A strided value: lane `k` is lane 0 plus `k·step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stride<'ctx> {
    /// Units (integers) or bytes (pointers) between neighbouring lanes.
    pub step: i64,
    /// The step holds only if one extension saw no wrap: what to test at
    /// run time.
    pub check: Option<Check<'ctx>>,
}

impl Stride<'_> {
    /// Whether the stride holds only after a run-time test.
    pub fn checked(&self) -> bool {
        self.check.is_some()
    }
}

/// The run-time test of a checked stride: from the first to the last
/// active lane, the lanes of `value` (an extension, a low-bit mask, or a
/// narrow `getelementptr` index) are `step` apart per lane, so no wrap
/// happened between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Check<'ctx> {
    /// The value whose first and last active lanes are compared.
    pub value: Value<'ctx>,
    /// Its step.
    pub step: i64,
    /// Compare after sign extension to 64 bits (a narrow index, which
    /// `getelementptr` sign-extends), else in the value's own width.
    pub widen: bool,
}

/// Result: the stride of each strided varying value.
#[derive(Debug, Clone, Default)]
pub struct Shapes<'ctx> {
    strides: HashMap<Value<'ctx>, Stride<'ctx>>,
}

/// The lattice of the fixed point: not yet known, strided, or varying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State<'ctx> {
    Unknown,
    Known(Stride<'ctx>),
    Varying,
}

impl<'ctx> Shapes<'ctx> {
    /// Computes the strides of `f`'s varying values at width `n`, given its
    /// parameters' kinds, its uniformity and the layout of its private
    /// memory; `module` gives type sizes.
    pub fn new(
        module: Module<'ctx>,
        f: Value<'ctx>,
        cfg: &Cfg<'ctx>,
        params: &[ParamKind],
        uniformity: &Uniformity<'ctx>,
        private: &PrivateMemory<'ctx>,
        n: u32,
    ) -> Shapes<'ctx> {
        let mut ctx = Solver { module, uniformity, private, n, states: HashMap::new() };
        for (p, kind) in f.params().into_iter().zip(params) {
            let state = match kind {
                ParamKind::Linear { step } if is_int_or_ptr(p.ty()) => {
                    ctx.known(p.ty(), Stride { step: *step, check: None })
                }
                _ => State::Varying,
            };
            ctx.states.insert(p, state);
        }
        loop {
            let mut changed = false;
            for b in &cfg.rpo {
                for i in b.instructions() {
                    if !uniformity.is_varying(i) || !is_int_or_ptr(i.ty()) {
                        continue;
                    }
                    let old = ctx.state(i);
                    let new = match (old, ctx.transfer(i)) {
                        (State::Known(a), State::Known(b)) if a != b => State::Varying,
                        (State::Varying, _) => State::Varying,
                        (_, s) => s,
                    };
                    if new != old {
                        ctx.states.insert(i, new);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let strides = ctx
            .states
            .into_iter()
            .filter_map(|(v, s)| match s {
                State::Known(st) => Some((v, st)),
                _ => None,
            })
            .collect();
        Shapes { strides }
    }

    /// The stride of a varying value, if it has one.
    pub fn stride(&self, v: Value<'ctx>) -> Option<Stride<'ctx>> {
        self.strides.get(&v).copied()
    }

    /// Number of strided values.
    pub fn len(&self) -> usize {
        self.strides.len()
    }

    /// Whether no value is strided.
    pub fn is_empty(&self) -> bool {
        self.strides.is_empty()
    }
}

fn is_int_or_ptr(t: Type) -> bool {
    matches!(t.kind(), LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind)
}

/// Bit width of the arithmetic of an integer or pointer type (pointers: 64).
fn width_of(t: Type) -> u32 {
    match t.int_width() {
        0 => 64,
        w => w,
    }
}

/// `v` wrapped to `width` bits, read as signed.
fn wrap(v: i64, width: u32) -> i64 {
    if width >= 64 {
        v
    } else {
        (v << (64 - width)) >> (64 - width)
    }
}

struct Solver<'a, 'ctx> {
    module: Module<'ctx>,
    uniformity: &'a Uniformity<'ctx>,
    private: &'a PrivateMemory<'ctx>,
    n: u32,
    states: HashMap<Value<'ctx>, State<'ctx>>,
}

impl<'ctx> Solver<'_, 'ctx> {
    /// A stride of a value of type `t`, its step wrapped to the type's width.
    fn known(&self, t: Type<'ctx>, s: Stride<'ctx>) -> State<'ctx> {
        State::Known(Stride { step: wrap(s.step, width_of(t)), check: s.check })
    }

    /// The state of an operand: uniform values are step 0.
    fn state(&self, v: Value<'ctx>) -> State<'ctx> {
        if !self.uniformity.is_varying(v) {
            return State::Known(Stride { step: 0, check: None });
        }
        self.states.get(&v).copied().unwrap_or(State::Unknown)
    }

    fn transfer(&self, i: Value<'ctx>) -> State<'ctx> {
        let ty = i.ty();
        let op = |k: u32| self.state(i.operand(k));
        match i.opcode() {
            LLVMPHI => {
                if self.uniformity.is_sync_dependent(i) {
                    return State::Varying;
                }
                i.incoming().iter().fold(State::Unknown, |acc, (v, _)| meet(acc, self.state(*v)))
            }
            LLVMSelect => {
                if i.operand(0).ty().is_vector() || self.uniformity.is_varying(i.operand(0)) {
                    return State::Varying;
                }
                meet(op(1), op(2))
            }
            LLVMAdd | LLVMSub | LLVMOr if i.opcode() != LLVMOr || i.is_disjoint() => match (op(0), op(1)) {
                (State::Known(a), State::Known(b)) => {
                    let step =
                        if i.opcode() == LLVMSub { a.step.wrapping_sub(b.step) } else { a.step.wrapping_add(b.step) };
                    combine(a, b, step).map_or(State::Varying, |s| self.known(ty, s))
                }
                (a, b) => unknown_or_varying(a, b),
            },
            LLVMMul | LLVMShl => {
                let scale = |c: Value<'ctx>| -> Option<i64> {
                    let v = c.const_int_value()? as i64;
                    if i.opcode() == LLVMMul {
                        Some(v)
                    } else {
                        (v >= 0 && v < width_of(ty) as i64).then(|| 1i64.wrapping_shl(v as u32))
                    }
                };
                let (x, c) = match (scale(i.operand(1)), scale(i.operand(0))) {
                    (Some(c), _) => (op(0), c),
                    (None, Some(c)) if i.opcode() == LLVMMul => (op(1), c),
                    _ => return State::Varying,
                };
                match x {
                    State::Known(s) => self.known(ty, Stride { step: s.step.wrapping_mul(c), check: s.check }),
                    other => other,
                }
            }
            // `~x` is `-1 - x`.
            LLVMXor if i.operand(1).const_int_value().is_some_and(|c| wrap(c as i64, width_of(ty)) == -1) => {
                match op(0) {
                    State::Known(s) => self.known(ty, Stride { step: s.step.wrapping_neg(), check: s.check }),
                    other => other,
                }
            }
            // `x & (2^k - 1)` is `x` truncated to k bits and zero-extended.
            LLVMAnd if i.operand(1).const_int_value().is_some_and(|c| c != 0 && (c & c.wrapping_add(1)) == 0) => {
                let bits = i.operand(1).const_int_value().map_or(0, |c| c.count_ones());
                match op(0) {
                    State::Known(s) if bits >= width_of(ty) => State::Known(s),
                    State::Known(s) if !s.checked() => {
                        let step = wrap(s.step, bits);
                        self.known(ty, Stride { step, check: Some(Check { value: i, step, widen: false }) })
                    }
                    State::Known(_) => State::Varying,
                    other => other,
                }
            }
            LLVMTrunc => match op(0) {
                State::Known(s) if !s.checked() => self.known(ty, s),
                State::Known(_) => State::Varying,
                other => other,
            },
            LLVMSExt | LLVMZExt => match op(0) {
                State::Known(s) if !s.checked() => {
                    let step = wrap(s.step, width_of(ty));
                    self.known(ty, Stride { step, check: Some(Check { value: i, step, widen: false }) })
                }
                State::Known(_) => State::Varying,
                other => other,
            },
            LLVMFreeze | LLVMBitCast | LLVMAddrSpaceCast => op(0),
            LLVMPtrToInt | LLVMIntToPtr if width_of(ty) == 64 && width_of(i.operand(0).ty()) == 64 => op(0),
            LLVMAlloca => match self.private.layout(i) {
                Some(Layout::Interleaved { size, .. }) => State::Known(Stride { step: size as i64, check: None }),
                Some(Layout::PerLane { stride }) => State::Known(Stride { step: stride as i64, check: None }),
                Some(Layout::Tape { .. }) | None => State::Varying,
            },
            LLVMGetElementPtr => match self.private.interleaved_address(i) {
                Some((a, idx)) => self.interleaved(a, idx),
                None => self.address(i),
            },
            // `lane_id()` is `k` in lane `k`.
            LLVMCall if super::cross_lane::op_of(i) == Some(super::cross_lane::Op::LaneId) => {
                self.known(ty, Stride { step: 1, check: None })
            }
            _ => State::Varying,
        }
    }

    /// An address into interleaved private memory: element `e` of lane `j`
    /// is at `(e·N + j)·size`, so lanes are `size` apart plus `N·size`
    /// times the index's stride.
    fn interleaved(&self, a: Value<'ctx>, idx: ElementIndex<'ctx>) -> State<'ctx> {
        let (Some(Layout::Interleaved { size, .. }) | Some(Layout::Tape { size, .. })) = self.private.layout(a) else {
            return State::Varying;
        };
        let base = Stride { step: size as i64, check: None };
        let ElementIndex::Value(v) = idx else { return State::Known(base) };
        match self.state(v) {
            State::Known(s) if s.step == 0 => State::Known(base),
            State::Known(s) => {
                let Some(check) = narrow_index_check(v, s) else { return State::Varying };
                let scaled = Stride { step: s.step.wrapping_mul(self.n as i64 * size as i64), check };
                combine(base, scaled, base.step.wrapping_add(scaled.step)).map_or(State::Varying, State::Known)
            }
            other => other,
        }
    }

    /// A `getelementptr`: the base's stride plus each index's stride times
    /// the size of what it indexes.
    fn address(&self, i: Value<'ctx>) -> State<'ctx> {
        let ops = i.operands();
        if ops.iter().any(|o| o.ty().is_vector()) {
            return State::Varying;
        }
        let mut acc = match self.state(ops[0]) {
            State::Known(s) => s,
            other => return other,
        };
        let mut indexed = i.gep_source_type();
        for (j, idx) in ops[1..].iter().enumerate() {
            let size = if j == 0 {
                self.module.abi_size_of(indexed)
            } else {
                match indexed.kind() {
                    LLVMTypeKind::LLVMStructTypeKind => {
                        let Some(field) = idx.const_int_value() else { return State::Varying };
                        indexed = indexed.struct_field(field as u32);
                        continue;
                    }
                    LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                        indexed = indexed.element();
                        self.module.abi_size_of(indexed)
                    }
                    _ => return State::Varying,
                }
            };
            let s = match self.state(*idx) {
                State::Known(s) => s,
                other => return other,
            };
            if s.step == 0 {
                continue;
            }
            let Some(check) = narrow_index_check(*idx, s) else { return State::Varying };
            let scaled = Stride { step: s.step.wrapping_mul(size as i64), check };
            match combine(acc, scaled, acc.step.wrapping_add(scaled.step)) {
                Some(c) => acc = c,
                None => return State::Varying,
            }
        }
        State::Known(acc)
    }
}

/// The stride of a sum of two strides with the given step, unless both
/// step and one is checked (two wraps could cancel out at the last lane).
fn combine<'ctx>(a: Stride<'ctx>, b: Stride<'ctx>, step: i64) -> Option<Stride<'ctx>> {
    if (a.checked() && b.step != 0) || (b.checked() && a.step != 0) {
        return None;
    }
    Some(Stride { step, check: a.check.or(b.check) })
}

/// The check of a `getelementptr` index with stride `s`: a narrower index
/// is sign-extended to 64 bits, which needs a check unless it has one
/// already (`None`: two checks, no stride).
fn narrow_index_check<'ctx>(idx: Value<'ctx>, s: Stride<'ctx>) -> Option<Option<Check<'ctx>>> {
    match (s.check, width_of(idx.ty()) < 64) {
        (Some(_), true) => None,
        (Some(c), false) => Some(Some(c)),
        (None, true) => Some(Some(Check { value: idx, step: s.step, widen: true })),
        (None, false) => Some(None),
    }
}

fn unknown_or_varying<'ctx>(a: State<'ctx>, b: State<'ctx>) -> State<'ctx> {
    if a == State::Varying || b == State::Varying {
        State::Varying
    } else {
        State::Unknown
    }
}

/// The meet of two inputs of a phi or `select`.
fn meet<'ctx>(a: State<'ctx>, b: State<'ctx>) -> State<'ctx> {
    match (a, b) {
        (State::Unknown, x) | (x, State::Unknown) => x,
        (State::Known(x), State::Known(y)) if x == y => State::Known(x),
        _ => State::Varying,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_reads_the_low_bits_as_signed() {
        assert_eq!(wrap(0xffff_ffff, 32), -1);
        assert_eq!(wrap(4, 32), 4);
        assert_eq!(wrap(-4, 8), -4);
        assert_eq!(wrap(0x80, 8), -128);
        assert_eq!(wrap(i64::MIN, 64), i64::MIN);
    }

    #[test]
    fn unchecked_strides_combine() {
        let e = Stride { step: 8, check: None };
        let u = Stride { step: 0, check: None };
        assert_eq!(combine(e, e, 16), Some(Stride { step: 16, check: None }));
        assert_eq!(combine(e, u, 8), Some(e));
    }

    #[test]
    fn meet_keeps_only_equal_strides() {
        let a = State::Known(Stride { step: 4, check: None });
        let b = State::Known(Stride { step: 8, check: None });
        assert_eq!(meet(State::Unknown, a), a);
        assert_eq!(meet(a, a), a);
        assert_eq!(meet(a, b), State::Varying);
        assert_eq!(meet(a, State::Varying), State::Varying);
    }
}
