//! Masks that outlive their block, computed at full width.
//!
//! On x86 without AVX-512 there are no mask registers: the backend keeps an
//! `<N x i1>` that crosses a block boundary (a loop's active lanes, the
//! lanes that left through an exit) in a promoted narrower type, `<8 x i16>`
//! for `<8 x i1>` on AVX2, packing it where it is made and unpacking it at
//! every use. The full-width form, all ones or all zeros in `<N x iW>` lanes,
//! is what `vcmpps`/`vpcmpgtd` produce and what `vblendvps`/`vmovmskps`
//! consume. So every mask phi of the clone becomes an `<N x iW>` phi, and
//! every mask that reaches it or another block is computed at full width
//! too: compares and other leaves are sign-extended where they are made,
//! and `and`/`or`/`xor`/`select` of masks get a full-width twin built from
//! their operands' twins. A block that reads a mask from elsewhere, and
//! every reader of mask logic, reads the sign bit of the twin (`icmp slt`);
//! a compare read in its own block stays as it is. Gathers and scatters
//! read `icmp ne twin, 0` instead (`Widen::gather_mask`).
//!
//! The twins matter beyond batchify's own output: the user's `-O2` runs
//! `instcombine` on the clone again, which turns a phi whose every input is
//! a `sext` of a boolean back into a boolean phi (the `<8 x i16>` again).
//! A loop-carried mask updated by full-width `and`/`or`/`xor` of the phi
//! itself is not such a phi, so it stays in full-width registers
//! (`lsearch`'s loop: 17 instructions per trip instead of 25, with no
//! packs; measured 1.8x-2.2x of scalar calls against 0.9x-1.1x).
//!
//! Exactness: only sign bits carry meaning (every reader tests the sign),
//! and `and`/`or`/`xor`/`select` act on each bit alone, so the sign bit of
//! a twin is always the mask's lane.

use super::is_gather_or_scatter;
use crate::llvm::LLVMIntPredicate::{self, LLVMIntSLT};
use crate::llvm::LLVMOpcode::{self, *};
use crate::llvm::{constant, Block, Builder, Type, Value};
use std::collections::HashMap;

/// Whether `t` is a vector of `i1`.
fn is_mask(t: Type) -> bool {
    t.is_vector() && t.element().int_width() == 1
}

/// Whether `i` is mask logic that gets a full-width twin from its
/// operands' twins (rather than by sign extension).
fn is_logic(i: Value) -> bool {
    match i.opcode() {
        LLVMAnd | LLVMOr | LLVMXor => is_mask(i.ty()),
        LLVMSelect => is_mask(i.ty()),
        _ => false,
    }
}

/// `c` where `v` is `shufflevector (insertelement poison, i1 c, 0), poison,
/// zeroinitializer`: a scalar condition in every lane.
fn splat_of(v: Value) -> Option<Value> {
    if v.opcode() != LLVMShuffleVector || !v.shuffle_mask()?.iter().all(|m| *m == Some(0)) {
        return None;
    }
    let ins = v.operand(0);
    if ins.opcode() != LLVMInsertElement || ins.operand(2).const_int_value() != Some(0) {
        return None;
    }
    let c = ins.operand(1);
    (!c.ty().is_vector()).then_some(c)
}

/// The pass over one clone.
struct Widen<'ctx> {
    b: Builder<'ctx>,
    entry: Block<'ctx>,
    bits: u32,
    twins: HashMap<Value<'ctx>, Value<'ctx>>,
}

impl<'ctx> Widen<'ctx> {
    fn wide_ty(&self, mask: Value<'ctx>) -> Type<'ctx> {
        Type::int(mask.ty().context(), self.bits).vector_of(mask.ty().vector_len())
    }

    /// Positions the builder right after `v`'s definition (after the phis
    /// for a phi, at the start of the entry block for an argument).
    fn position_after_def(&self, v: Value<'ctx>) {
        if v.is_instruction() {
            self.b.position_after(v);
        } else {
            match self.entry.first_non_phi() {
                Some(first) => self.b.position_before(first),
                None => self.b.position_at_end(self.entry),
            }
        }
    }

    /// The full-width twin of mask `v` (made once).
    fn twin(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        if let Some(w) = self.twins.get(&v) {
            return *w;
        }
        let wide_ty = self.wide_ty(v);
        let w = if v.is_constant() {
            self.b.cast(LLVMSExt, v, wide_ty)
        } else if v.is_instruction() && is_logic(v) {
            let op: LLVMOpcode = v.opcode();
            if op == LLVMSelect {
                let (a, c) = (self.twin(v.operand(1)), self.twin(v.operand(2)));
                self.position_after_def(v);
                self.b.select(v.operand(0), a, c)
            } else {
                let (a, c) = (self.twin(v.operand(0)), self.twin(v.operand(1)));
                self.position_after_def(v);
                self.b.binop(op, a, c)
            }
        } else if let Some(c) = splat_of(v) {
            // A uniform condition broadcast: a broadcast of its extension.
            self.position_after_def(v);
            let ones = constant::all_ones(wide_ty);
            self.b.select(c, ones, constant::null(wide_ty))
        } else {
            self.position_after_def(v);
            self.b.cast(LLVMSExt, v, wide_ty)
        };
        self.twins.insert(v, w);
        w
    }

    /// `v` read in block `at` from its twin's sign bit, made once per block:
    /// right after the twin in the twin's block, else at the first non-phi.
    fn narrow_view(
        &mut self,
        views: &mut HashMap<(Value<'ctx>, Block<'ctx>), Value<'ctx>>,
        v: Value<'ctx>,
        at: Block<'ctx>,
    ) -> Value<'ctx> {
        if let Some(n) = views.get(&(v, at)) {
            return *n;
        }
        let w = self.twin(v);
        if w.is_instruction() && w.parent_block() == at {
            self.b.position_after(w);
        } else {
            match at.first_non_phi() {
                Some(first) => self.b.position_before(first),
                None => self.b.position_at_end(at),
            }
        }
        let n = self.b.icmp(LLVMIntSLT, w, constant::null(w.ty()));
        views.insert((v, at), n);
        n
    }

    /// Mask `v` for the gather or scatter `call`, read from its twin as
    /// `icmp ne twin, 0` right before the call (the same lanes: a twin's
    /// lanes are all ones or all zeros).
    ///
    /// Not the sign test (`icmp slt twin, 0`) that the block's other
    /// readers share: where AVX-512 is there (an AVX2 clone built with
    /// `-march=native` on an AVX-512 machine, or the oracle's JIT), the sign
    /// test becomes `vpmovd2m %ymm, %k1`, and when the block also moves the
    /// mask to a general register (a lane loop's bits: `kmovd %k1, %eax`),
    /// LLVM 22's EVEX compression pass turns that pair into `vmovmskps` and
    /// erases the `vpmovd2m`, though the gather still reads `%k1`: it then
    /// runs under whatever `%k1` held (llvm/llvm-project#198197, fixed in
    /// 23). A gather clobbers its mask register, which the pass missed.
    /// `icmp ne` becomes `vptestmd`, which the pass leaves alone. Found by
    /// `batchify-fuzz --isa avx2` (seeds 2230003610; 1107300943, 1107309038,
    /// 1107320998 and 1107321120 before this, worked around by reading
    /// compares as they are). On AVX2 hardware the `ne` costs a compare and
    /// an inversion next to the two gather instructions.
    fn gather_mask(&mut self, v: Value<'ctx>, call: Value<'ctx>) -> Value<'ctx> {
        let w = self.twin(v);
        self.b.position_before(call);
        self.b.icmp(LLVMIntPredicate::LLVMIntNE, w, constant::null(w.ty()))
    }
}

/// Rewrites the masks of clone `f` as described in the module docs, with
/// `bits`-wide lanes. Leaves the narrow masks it replaced in place, unused,
/// for a `dce` afterwards.
pub fn widen_masks(f: Value, bits: u32) {
    let Some(entry) = f.blocks().first().copied() else { return };
    let mut w = Widen { b: Builder::new(f.function_type().context()), entry, bits, twins: HashMap::new() };
    let mut phis = Vec::new();
    let mut masks = Vec::new();
    for block in f.blocks() {
        for i in block.instructions() {
            if !is_mask(i.ty()) {
                continue;
            }
            if i.opcode() == LLVMPHI {
                phis.push(i);
            } else {
                masks.push(i);
            }
        }
    }
    // Full-width phis first, so that loop-carried updates can refer to them.
    for &phi in &phis {
        w.b.position_before(phi);
        let wide = w.b.phi(w.wide_ty(phi));
        w.twins.insert(phi, wide);
    }
    for &phi in &phis {
        let wide = w.twins[&phi];
        for (v, pred) in phi.incoming() {
            let t = w.twin(v);
            wide.add_incoming(t, pred);
        }
    }
    // Reads from another block, and every read of a phi, go through the twin.
    let mut views = HashMap::new();
    for &m in phis.iter().chain(&masks) {
        let home = m.parent_block();
        for user in m.users() {
            if user.opcode() == LLVMPHI && is_mask(user.ty()) {
                continue; // replaced by its twin below
            }
            let at = if user.opcode() == LLVMPHI { None } else { Some(user.parent_block()) };
            let Some(at) = at else { continue };
            let is_compare = m.opcode() != LLVMPHI && !is_logic(m);
            // Gathers and scatters read a compare of their own block as it
            // is, and every other mask through `icmp ne twin, 0`, never the
            // sign test the other readers share (see [`gather_mask`]).
            if is_gather_or_scatter(user) {
                if is_compare && at == home {
                    continue;
                }
                for k in 0..user.num_operands() {
                    if user.operand(k) == m {
                        let n = w.gather_mask(m, user);
                        user.set_operand(k, n);
                    }
                }
                continue;
            }
            // Other calls (masked loads and stores) keep reading a compare
            // as it is. A phi's readers all go through the twin.
            if user.opcode() == LLVMCall && is_compare {
                continue;
            }
            // A compare read in its own block stays as it is; mask logic is
            // read from its twin everywhere, so that only one of the two
            // computations is left.
            if at == home && m.opcode() != LLVMPHI && !is_logic(m) {
                continue;
            }
            for k in 0..user.num_operands() {
                if user.operand(k) == m {
                    let n = w.narrow_view(&mut views, m, at);
                    user.set_operand(k, n);
                }
            }
        }
    }
    any_tests_on_twins(&w, &views);
    for &phi in &phis {
        // Only the other mask phis (being erased too) still read it.
        phi.replace_all_uses_with(constant::poison(phi.ty()));
    }
    for phi in phis {
        phi.erase();
    }
}

/// Rewrites each any-lane test of a mask read from its twin
/// (`icmp eq/ne (bitcast <N x i1> %m to iN), 0`) to test the twin's bits
/// (`icmp eq/ne (bitcast <N x iW> %twin to i(N*W)), 0`: one `vptest`),
/// so that the mask is not narrowed again for the test.
fn any_tests_on_twins<'ctx>(w: &Widen<'ctx>, views: &HashMap<(Value<'ctx>, Block<'ctx>), Value<'ctx>>) {
    let mut twin_of: HashMap<Value<'ctx>, Value<'ctx>> = HashMap::new();
    for ((m, _), view) in views {
        twin_of.insert(*view, w.twins[m]);
    }
    for (view, twin) in twin_of {
        for cast in view.users() {
            if cast.opcode() != LLVMBitCast || cast.ty().is_vector() {
                continue;
            }
            for test in cast.users() {
                let zero_test = test.opcode() == LLVMICmp
                    && matches!(test.icmp_predicate(), LLVMIntPredicate::LLVMIntEQ | LLVMIntPredicate::LLVMIntNE)
                    && test.operand(0) == cast
                    && test.operand(1).const_int_value() == Some(0);
                if !zero_test {
                    continue;
                }
                w.b.position_before(test);
                let bits = twin.ty().vector_len() * twin.ty().element().int_width();
                let int_ty = Type::int(twin.ty().context(), bits);
                let all = w.b.cast(LLVMBitCast, twin, int_ty);
                let t = w.b.icmp(test.icmp_predicate(), all, constant::null(int_ty));
                test.replace_all_uses_with(t);
                test.erase();
            }
        }
    }
}
