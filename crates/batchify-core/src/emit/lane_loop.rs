//! Per-lane calls under a partial mask as a loop over the active lanes,
//! through stack memory.
//!
//! A varying call that has no vector form (a libm function that is not
//! correctly rounded, a recursive module function, an external function)
//! runs once per active lane. Where some lanes may be inactive (a masked
//! clone, a divergent branch), the unrolled form guards each of its `N`
//! copies with a branch on that lane's mask bit: `N` branches on data,
//! each mispredicted about as often as the mask is random. Such a call
//! becomes one small loop over the mask's set bits instead:
//!
//! ```text
//!   %bits0 = bitcast <N x i1> %mask to iN
//!   br (%bits0 != 0), %lanes.pre, %lanes.done ; only if the mask may be empty
//! lanes.pre:
//!   store <N x T> %arg, ptr %slot.arg        ; once per varying argument
//! lanes:
//!   %bits = phi iN [ %bits0, %lanes.pre ], [ %rest, %lanes ]
//!   %lane = cttz(%bits)
//!   %a = load T, (gep T, %slot.arg, %lane)
//!   %r = call @f(%a, ...)
//!   store %r, (gep R, %slot.res, %lane)
//!   %rest = %bits & (%bits - 1)
//!   br (%rest != 0), %lanes, %lanes.done     ; !llvm.loop unroll.disable
//! lanes.done:
//!   %res = load <N x R>, ptr %slot.res       ; inactive lanes: undefined
//! ```
//!
//! The lanes run in lane order, as in the unrolled form, and the only
//! branch that depends on the mask is the loop's exit. The back edge
//! carries `llvm.loop.unroll.disable` so that the user's `-O2` keeps the
//! loop. Measured on `cargo xtask bench-gcc` (AVX2, 8 lanes, `powf` in an
//! `inbranch` clone with half of the lanes active): 1.09x-1.34x of scalar
//! calls, against 0.88x-0.93x unrolled (four runs each). Where every lane is active the
//! unrolled form stays: it has no branch at all, and the loop measured
//! slower there (`powf_k`: 0.77x-0.91x against 1.02x-1.05x; the loop's
//! exit is mispredicted and the result vector is loaded from 8 scalar
//! stores). Used for calls of functions (not intrinsics) whose varying
//! arguments and result are plain elements (`plan::memory::is_plain_element`:
//! laid out in an `<N x T>` slot like an array), outside `--for-autodiff`
//! clones (whose inactive lanes must hold zeros, and whose Enzyme pass is
//! given straight-line per-lane code).

use super::state::Widener;
use crate::analysis::calls;
use crate::llvm::LLVMIntPredicate;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};
use crate::plan::memory::{is_plain_element, is_sparse};

impl<'ctx> Widener<'_, 'ctx> {
    /// Whether the varying call `i`, which runs per lane with a guard on
    /// each lane (`guarded`), runs as a loop over the active lanes.
    fn lane_loop_applies(&self, i: Value<'ctx>, guarded: bool) -> bool {
        if !guarded || self.for_autodiff || self.n < 2 {
            return false;
        }
        match i.opcode() {
            LLVMLoad | LLVMStore => {
                if !is_sparse(i) || i.is_volatile() || i.is_atomic() {
                    return false;
                }
            }
            LLVMCall if !i.is_musttail() && calls::called_intrinsic(i).is_none() => {}
            _ => return false,
        }
        // Only arguments and the callee are operands (no bundles).
        if i.opcode() == LLVMCall && i.num_operands() != i.num_arg_operands() + 1 {
            return false;
        }
        let ty = i.ty();
        if !(ty.is_void() || is_plain_element(ty)) {
            return false;
        }
        i.operands().iter().all(|o| !self.analyses.uniformity.is_varying(*o) || is_plain_element(o.ty()))
    }

    /// The call (or sparse load or store, `plan::memory::SPARSE_ACCESS`)
    /// `i` run once per active lane as a loop over the mask's bits, or
    /// `None` where [`Self::lane_loop_applies`] says no. `guarded`: whether
    /// the unrolled form would guard each lane (some lanes may be inactive
    /// and the call may trap or write).
    pub(super) fn call_lane_loop(&mut self, i: Value<'ctx>, guarded: bool) -> Option<Value<'ctx>> {
        if !self.lane_loop_applies(i, guarded) {
            return None;
        }
        let ctx = self.ctx();
        let n = self.n;
        let bits_ty = Type::int(ctx, n);
        let i64t = Type::int(ctx, 64);
        // The slots, in the entry block.
        let ops = i.operands();
        let mut slots: Vec<Option<Value<'ctx>>> = Vec::with_capacity(ops.len());
        for o in &ops {
            if self.analyses.uniformity.is_varying(*o) {
                self.position_aux_in_entry();
                let s = self.aux.alloca(o.ty().vector_of(n));
                s.set_name("lane.arg");
                slots.push(Some(s));
            } else {
                slots.push(None);
            }
        }
        let ty = i.ty();
        let res_slot = (!ty.is_void()).then(|| {
            self.position_aux_in_entry();
            let s = self.aux.alloca(ty.vector_of(n));
            s.set_name("lane.res");
            s
        });
        // Before the loop: the lanes to run and, if there are any, the
        // argument vectors, once.
        let bits0 = self.b.cast(LLVMBitCast, self.flow.mask, bits_ty);
        let may_be_empty = !self.flow.nonempty;
        let pre = may_be_empty.then(|| self.clone.append_block("lanes.pre"));
        let body = self.clone.append_block("lanes");
        let done = self.clone.append_block("lanes.done");
        if let Some(pre) = pre {
            let some = self.b.icmp(LLVMIntPredicate::LLVMIntNE, bits0, constant::null(bits_ty));
            self.b.cond_br(some, pre, done);
            self.b.position_at_end(pre);
        }
        for (o, s) in ops.iter().zip(&slots) {
            if let Some(s) = s {
                let v = self.values.vmap[o];
                self.b.store(v, *s, 0);
            }
        }
        let pre = self.b.current_block();
        self.b.br(body);
        self.b.position_at_end(body);
        let bits = self.b.phi(bits_ty);
        bits.set_name("lanes.bits");
        let cttz = self.module.intrinsic("llvm.cttz", &[bits_ty]).expect("llvm.cttz exists");
        let lane = self.b.call(cttz.function_type(), cttz, &[bits, constant::int(Type::int(ctx, 1), 1)]);
        let lane = if n < 64 { self.b.cast(LLVMZExt, lane, i64t) } else { lane };
        lane.set_name("lane");
        let c = i.clone_instruction();
        for (k, (o, s)) in ops.iter().zip(&slots).enumerate() {
            let a = match s {
                Some(s) => {
                    let p = self.b.gep(o.ty(), *s, &[lane], Default::default());
                    self.b.load(o.ty(), p, 0)
                }
                None => self.uniform_value(*o),
            };
            c.set_operand(k as u32, a);
        }
        c.clear_debug_location();
        self.b.insert(c);
        if let Some(r) = res_slot {
            let p = self.b.gep(ty, r, &[lane], Default::default());
            self.b.store(c, p, 0);
        }
        let less = self.b.binop(LLVMSub, bits, constant::one(bits_ty));
        let rest = self.b.binop(LLVMAnd, bits, less);
        let more = self.b.icmp(LLVMIntPredicate::LLVMIntNE, rest, constant::null(bits_ty));
        let back = self.b.cond_br(more, body, done);
        back.set_loop_unroll_disable();
        bits.add_incoming(bits0, pre);
        bits.add_incoming(rest, body);
        self.b.position_at_end(done);
        Some(match res_slot {
            Some(r) => self.b.load(ty.vector_of(n), r, 0),
            None => constant::poison(Type::int(ctx, 1)),
        })
    }
}
