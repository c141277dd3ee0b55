//! Tapes in the clone ([`crate::analysis::tape`]): one heap buffer that
//! the lanes share, element `e` of lane `j` at `(e·N + j)·size`. Two slots
//! in the entry block hold its address and its capacity (bytes per lane,
//! the largest size an active lane asked for); a tape's `realloc` grows it
//! where an active lane asks for more, and the clone frees it when it
//! returns (a lane's `free` does nothing: other lanes may still use the
//! buffer). Addresses of elements are made by [`super::private`].

use super::state::{TapeSlots, Widener};
use crate::analysis::private::TapeCall;
use crate::llvm::LLVMIntPredicate;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};

impl<'ctx> Widener<'_, 'ctx> {
    /// Makes every tape's slots in the entry block: no buffer yet.
    pub(crate) fn create_tape_slots(&mut self) {
        let ctx = self.ctx();
        let i64t = Type::int(ctx, 64);
        let ptr_ty = Type::ptr(ctx);
        for t in self.analyses.private.tapes() {
            self.position_aux_in_entry();
            let ptr = self.aux.alloca(ptr_ty);
            ptr.set_name("tape.buffer");
            let cap = self.aux.alloca(i64t);
            cap.set_name("tape.capacity");
            self.aux.store(constant::null(ptr_ty), ptr, 0);
            self.aux.store(constant::int(i64t, 0), cap, 0);
            self.values.tapes.insert(t.key, TapeSlots { ptr, cap });
            self.stats.memory_what.push(format!(
                "tape shared by the lanes ({} access(es), element `{}`): `{}`",
                t.geps.len(),
                t.elem.print().trim(),
                t.key.print().trim()
            ));
        }
    }

    /// Frees every tape's buffer that the scalar function frees, before a
    /// return of the clone.
    pub(crate) fn free_tapes(&mut self) {
        for t in self.analyses.private.tapes() {
            let Some(free) = t.frees.first() else { continue };
            let slots = self.values.tapes[&t.key];
            let p = self.b.load(Type::ptr(self.ctx()), slots.ptr, 0);
            self.b.call(free.called_function_type(), free.called_value(), &[p]);
        }
    }
}

/// A tape's `realloc` `i`: where an active lane asks for more than the
/// capacity, one `realloc` of the shared buffer to `N` times the largest
/// size asked for. The result is every lane's buffer address (the tape's
/// accesses read the slot, not this value).
pub(crate) fn grow<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Value<'ctx> {
    let Some(TapeCall::Grow(key)) = w.analyses.private.tape_call(i) else {
        unreachable!("the plan gives the tape recipe to tape calls only")
    };
    let slots = w.values.tapes[&key];
    let ctx = w.ctx();
    let i64t = Type::int(ctx, 64);
    let ptr_ty = Type::ptr(ctx);
    let size = i.operand(1);
    let asked = if w.analyses.uniformity.is_varying(size) {
        let v = w.varying_value(size);
        let v = if w.flow.full { v } else { w.b.select(w.flow.mask, v, constant::null(v.ty())) };
        let umax = w.module.intrinsic("llvm.vector.reduce.umax", &[v.ty()]).expect("llvm.vector.reduce.umax exists");
        w.b.call(umax.function_type(), umax, &[v])
    } else {
        w.uniform_value(size)
    };
    let cap = w.b.load(i64t, slots.cap, 0);
    let more = w.b.icmp(LLVMIntPredicate::LLVMIntUGT, asked, cap);
    let grow = w.clone.append_block("tape.grow");
    let grown = w.clone.append_block("tape.grown");
    w.b.cond_br(more, grow, grown);
    w.b.position_at_end(grow);
    let n = w.n as u64;
    // N times the size, or SIZE_MAX (which `realloc` refuses) on overflow.
    let too_big = w.b.icmp(LLVMIntPredicate::LLVMIntUGT, asked, constant::int(i64t, u64::MAX / n));
    let bytes = w.b.binop(LLVMMul, asked, constant::int(i64t, n));
    let total = w.b.select(too_big, constant::int(i64t, u64::MAX), bytes);
    let old = w.b.load(ptr_ty, slots.ptr, 0);
    let new = w.b.call(i.called_function_type(), i.called_value(), &[old, total]);
    w.b.store(new, slots.ptr, 0);
    w.b.store(asked, slots.cap, 0);
    w.b.br(grown);
    w.b.position_at_end(grown);
    let p = w.b.load(ptr_ty, slots.ptr, 0);
    crate::abi::splat(&w.b, p, w.n)
}

/// Every lane's address of element 0 of the tape named by `key`: lane
/// `j` at `j` elements from the shared buffer's start, read now (after
/// every growth before this point).
pub(crate) fn lane_base<'ctx>(w: &mut Widener<'_, 'ctx>, key: Value<'ctx>, elem: Type<'ctx>) -> Value<'ctx> {
    let slots = w.values.tapes[&key];
    let i64t = Type::int(w.ctx(), 64);
    let p = w.b.load(Type::ptr(w.ctx()), slots.ptr, 0);
    let lanes: Vec<Value> = (0..w.n as u64).map(|j| constant::int(i64t, j)).collect();
    w.b.gep(elem, p, &[constant::vector(&lanes)], Default::default())
}
