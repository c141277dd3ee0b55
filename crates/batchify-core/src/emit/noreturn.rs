//! `noreturn` calls (a Rust panic, `abort`, `exit`): the semantics contract
//! says that when several active lanes reach one, the call is made for the
//! *lowest* such lane. Linearized code runs divergent blocks in topological
//! order, not in lane order, so a lane's `noreturn` call cannot simply be
//! made where it is reached.
//!
//! Instead a lane that reaches a `noreturn` call followed by `unreachable`
//! is *doomed*: its call site and arguments are recorded (in stack slots,
//! per lane) and, like a lane reaching `unreachable`, it drops out of every
//! mask. The other lanes go on. Before the clone returns, and wherever a
//! block of real control flow with every live lane in it ends in such a
//! call, the recorded call of the lowest doomed lane is made.

use super::state::{DeferredSite, Widener};
use crate::abi::varying_type;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};

pub(crate) use crate::analysis::calls::is_deferrable;

impl<'ctx> Widener<'_, 'ctx> {
    fn doom_slots(&mut self) -> (Value<'ctx>, Value<'ctx>) {
        if let (Some(d), Some(s)) = (self.deferred.doomed_slot, self.deferred.site_slot) {
            return (d, s);
        }
        self.position_aux_in_entry();
        let d = self.aux.alloca(self.mask_type());
        d.set_name("doomed");
        self.aux.store(self.all_false(), d, 0);
        let ity = Type::int(self.ctx(), 32).vector_of(self.n);
        let s = self.aux.alloca(ity);
        s.set_name("doomed.site");
        self.aux.store(constant::null(ity), s, 0);
        self.deferred.doomed_slot = Some(d);
        self.deferred.site_slot = Some(s);
        (d, s)
    }

    /// Records the lanes of the current mask as doomed at call `i`.
    pub(crate) fn defer_noreturn(&mut self, i: Value<'ctx>) {
        let (dslot, sslot) = self.doom_slots();
        let m = if self.flow.full { self.all_true() } else { self.flow.mask };
        let site = self.deferred.sites.len() as u64;
        let mut arg_slots = Vec::new();
        for k in 0..i.num_arg_operands() {
            let a = i.operand(k);
            let ty = varying_type(a.ty(), self.n);
            self.position_aux_in_entry();
            let slot = self.aux.alloca(ty);
            self.aux.store(constant::poison(ty), slot, 0);
            let v = self.varying_value(a);
            let old = self.b.load(ty, slot, 0);
            let blended = self.b.select(m, v, old);
            self.b.store(blended, slot, 0);
            arg_slots.push(slot);
        }
        let old = self.b.load(self.mask_type(), dslot, 0);
        let new = self.b.binop(LLVMOr, old, m);
        self.b.store(new, dslot, 0);
        let ity = Type::int(self.ctx(), 32).vector_of(self.n);
        let ids = self.b.load(ity, sslot, 0);
        let here = constant::vector(&vec![constant::int(Type::int(self.ctx(), 32), site); self.n as usize]);
        let ids = self.b.select(m, here, ids);
        self.b.store(ids, sslot, 0);
        self.deferred.sites.push(DeferredSite { call: i, fn_ty: i.called_function_type(), arg_slots });
    }

    /// If some lane is doomed, makes the lowest doomed lane's call (which
    /// does not return); otherwise continues at the builder's position.
    pub(crate) fn resolve_doomed(&mut self) {
        let (Some(dslot), Some(sslot)) = (self.deferred.doomed_slot, self.deferred.site_slot) else { return };
        let ctx = self.ctx();
        let d = self.b.load(self.mask_type(), dslot, 0);
        let any = self.any(d);
        let doom_b = self.clone.append_block("doomed");
        let cont = self.clone.append_block("not.doomed");
        self.b.cond_br(any, doom_b, cont);
        self.b.position_at_end(doom_b);
        let bits = self.b.cast(LLVMBitCast, d, Type::int(ctx, self.n));
        let cttz = self.module.intrinsic("llvm.cttz", &[bits.ty()]).expect("llvm.cttz exists");
        let lane = self.b.call(cttz.function_type(), cttz, &[bits, constant::int(Type::int(ctx, 1), 1)]);
        let lane32 = if self.n == 32 { lane } else { self.b.cast(LLVMZExt, lane, Type::int(ctx, 32)) };
        let lane32 = if self.n > 32 { self.b.cast(LLVMTrunc, lane, Type::int(ctx, 32)) } else { lane32 };
        let ity = Type::int(ctx, 32).vector_of(self.n);
        let ids = self.b.load(ity, sslot, 0);
        let site = self.b.extract_element_dyn(ids, lane32);
        let nowhere = self.clone.append_block("doomed.none");
        let sw = self.b.switch(site, nowhere, self.deferred.sites.len() as u32);
        for (k, s) in self.deferred.sites.iter().enumerate() {
            let bb = self.clone.append_block("doomed.call");
            self.b.add_case(sw, constant::int(Type::int(ctx, 32), k as u64), bb);
            self.b.position_at_end(bb);
            let args: Vec<Value> = s
                .arg_slots
                .iter()
                .zip(s.fn_ty.param_types())
                .map(|(slot, t)| {
                    let all = self.b.load(varying_type(t, self.n), *slot, 0);
                    self.b.extract_element_dyn(all, lane32)
                })
                .collect();
            let c = s.call.clone_instruction();
            for (k, a) in args.iter().enumerate() {
                c.set_operand(k as u32, *a);
            }
            c.clear_debug_location();
            self.b.insert(c);
            c.set_noreturn_call();
            self.b.unreachable();
        }
        self.b.position_at_end(nowhere);
        self.b.unreachable();
        self.b.position_at_end(cont);
    }
}
