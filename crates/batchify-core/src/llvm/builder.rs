//! The instruction builder of the IR layer ([`Builder`]): one method per
//! instruction kind the stages build, each returning the new [`Value`].

use super::{constant, Block, Context, LLVMOpcode, Type, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::marker::PhantomData;

/// An instruction builder positioned somewhere in a function. Owns the
/// LLVM builder and disposes it on drop.
pub struct Builder<'ctx> {
    raw: LLVMBuilderRef,
    ctx: Context<'ctx>,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

const NO_NAME: *const std::os::raw::c_char = c"".as_ptr();

impl<'ctx> Builder<'ctx> {
    /// A new builder in a context.
    pub fn new(ctx: Context<'ctx>) -> Builder<'ctx> {
        Builder { raw: unsafe { LLVMCreateBuilderInContext(ctx.0) }, ctx }
    }
    /// The builder's context.
    pub fn context(&self) -> Context<'ctx> {
        self.ctx
    }
    /// Positions at the end of a block.
    pub fn position_at_end(&self, b: Block<'ctx>) {
        unsafe { LLVMPositionBuilderAtEnd(self.raw, b.0) }
    }
    /// Positions before an instruction.
    pub fn position_before(&self, i: Value<'ctx>) {
        unsafe { LLVMPositionBuilderBefore(self.raw, i.0) }
    }
    /// Positions right after `i` (after all phis if `i` is a phi).
    pub fn position_after(&self, i: Value<'ctx>) {
        let block = i.parent_block();
        let next = if i.opcode() == LLVMOpcode::LLVMPHI { block.first_non_phi() } else { i.next_instruction() };
        match next {
            Some(n) => self.position_before(n),
            None => self.position_at_end(block),
        }
    }
    /// Current insertion block.
    pub fn current_block(&self) -> Block<'ctx> {
        Block(unsafe { LLVMGetInsertBlock(self.raw) }, PhantomData)
    }
    /// Inserts a detached instruction (from [`Value::clone_instruction`]).
    pub fn insert(&self, i: Value<'ctx>) {
        unsafe { LLVMInsertIntoBuilder(self.raw, i.0) }
    }
    /// Binary operation by opcode.
    pub fn binop(&self, op: LLVMOpcode, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildBinOp(self.raw, op, a.0, b.0, NO_NAME) }, PhantomData)
    }
    /// `fneg`.
    pub fn fneg(&self, a: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildFNeg(self.raw, a.0, NO_NAME) }, PhantomData)
    }
    /// Cast by opcode.
    pub fn cast(&self, op: LLVMOpcode, v: Value<'ctx>, ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildCast(self.raw, op, v.0, ty.0, NO_NAME) }, PhantomData)
    }
    /// `icmp`.
    pub fn icmp(&self, p: llvm_sys::LLVMIntPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildICmp(self.raw, p, a.0, b.0, NO_NAME) }, PhantomData)
    }
    /// `fcmp`.
    pub fn fcmp(&self, p: llvm_sys::LLVMRealPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildFCmp(self.raw, p, a.0, b.0, NO_NAME) }, PhantomData)
    }
    /// `select`.
    pub fn select(&self, c: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildSelect(self.raw, c.0, a.0, b.0, NO_NAME) }, PhantomData)
    }
    /// `freeze`.
    pub fn freeze(&self, v: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildFreeze(self.raw, v.0, NO_NAME) }, PhantomData)
    }
    /// `phi`.
    pub fn phi(&self, ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildPhi(self.raw, ty.0, NO_NAME) }, PhantomData)
    }
    /// `extractelement` with a constant index.
    pub fn extract_element(&self, v: Value<'ctx>, lane: u32) -> Value<'ctx> {
        let idx = constant::i32(self.ctx, lane);
        Value(unsafe { LLVMBuildExtractElement(self.raw, v.0, idx.0, NO_NAME) }, PhantomData)
    }
    /// `extractelement` with a variable index.
    pub fn extract_element_dyn(&self, v: Value<'ctx>, idx: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildExtractElement(self.raw, v.0, idx.0, NO_NAME) }, PhantomData)
    }
    /// `insertelement` with a constant index.
    pub fn insert_element(&self, v: Value<'ctx>, x: Value<'ctx>, lane: u32) -> Value<'ctx> {
        let idx = constant::i32(self.ctx, lane);
        Value(unsafe { LLVMBuildInsertElement(self.raw, v.0, x.0, idx.0, NO_NAME) }, PhantomData)
    }
    /// `insertelement` with a variable index.
    pub fn insert_element_dyn(&self, v: Value<'ctx>, x: Value<'ctx>, idx: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildInsertElement(self.raw, v.0, x.0, idx.0, NO_NAME) }, PhantomData)
    }
    /// `extractvalue`.
    pub fn extract_value(&self, v: Value<'ctx>, i: u32) -> Value<'ctx> {
        Value(unsafe { LLVMBuildExtractValue(self.raw, v.0, i, NO_NAME) }, PhantomData)
    }
    /// `insertvalue`.
    pub fn insert_value(&self, agg: Value<'ctx>, x: Value<'ctx>, i: u32) -> Value<'ctx> {
        Value(unsafe { LLVMBuildInsertValue(self.raw, agg.0, x.0, i, NO_NAME) }, PhantomData)
    }
    /// `shufflevector`.
    pub fn shuffle(&self, a: Value<'ctx>, b: Value<'ctx>, mask: Value<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildShuffleVector(self.raw, a.0, b.0, mask.0, NO_NAME) }, PhantomData)
    }
    /// `getelementptr` with no-wrap flags.
    pub fn gep(
        &self,
        ty: Type<'ctx>,
        ptr: Value<'ctx>,
        idx: &[Value<'ctx>],
        flags: llvm_sys::LLVMGEPNoWrapFlags,
    ) -> Value<'ctx> {
        let mut i: Vec<LLVMValueRef> = idx.iter().map(|v| v.0).collect();
        Value(
            unsafe {
                LLVMBuildGEPWithNoWrapFlags(self.raw, ty.0, ptr.0, i.as_mut_ptr(), i.len() as u32, NO_NAME, flags)
            },
            PhantomData,
        )
    }
    /// `load`.
    pub fn load(&self, ty: Type<'ctx>, ptr: Value<'ctx>, align: u32) -> Value<'ctx> {
        let l = Value(unsafe { LLVMBuildLoad2(self.raw, ty.0, ptr.0, NO_NAME) }, PhantomData);
        if align > 0 {
            unsafe { LLVMSetAlignment(l.0, align) };
        }
        l
    }
    /// `store`.
    pub fn store(&self, v: Value<'ctx>, ptr: Value<'ctx>, align: u32) -> Value<'ctx> {
        let s = Value(unsafe { LLVMBuildStore(self.raw, v.0, ptr.0) }, PhantomData);
        if align > 0 {
            unsafe { LLVMSetAlignment(s.0, align) };
        }
        s
    }
    /// `call`.
    pub fn call(&self, fn_ty: Type<'ctx>, callee: Value<'ctx>, args: &[Value<'ctx>]) -> Value<'ctx> {
        let mut a: Vec<LLVMValueRef> = args.iter().map(|v| v.0).collect();
        Value(
            unsafe { LLVMBuildCall2(self.raw, fn_ty.0, callee.0, a.as_mut_ptr(), a.len() as u32, NO_NAME) },
            PhantomData,
        )
    }
    /// `ret` (None: `ret void`).
    pub fn ret(&self, v: Option<Value<'ctx>>) -> Value<'ctx> {
        Value(
            unsafe {
                match v {
                    Some(v) => LLVMBuildRet(self.raw, v.0),
                    None => LLVMBuildRetVoid(self.raw),
                }
            },
            PhantomData,
        )
    }
    /// Unconditional `br`.
    pub fn br(&self, dest: Block<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildBr(self.raw, dest.0) }, PhantomData)
    }
    /// Conditional `br`.
    pub fn cond_br(&self, c: Value<'ctx>, t: Block<'ctx>, f: Block<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildCondBr(self.raw, c.0, t.0, f.0) }, PhantomData)
    }
    /// `switch` with a default destination; add cases with [`Builder::add_case`].
    pub fn switch(&self, v: Value<'ctx>, default: Block<'ctx>, cases: u32) -> Value<'ctx> {
        Value(unsafe { LLVMBuildSwitch(self.raw, v.0, default.0, cases) }, PhantomData)
    }
    /// Adds a case to a `switch`.
    pub fn add_case(&self, switch: Value<'ctx>, on: Value<'ctx>, dest: Block<'ctx>) {
        unsafe { LLVMAddCase(switch.0, on.0, dest.0) }
    }
    /// `unreachable`.
    pub fn unreachable(&self) -> Value<'ctx> {
        Value(unsafe { LLVMBuildUnreachable(self.raw) }, PhantomData)
    }
    /// `alloca` (placed at the builder's position).
    pub fn alloca(&self, ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMBuildAlloca(self.raw, ty.0, NO_NAME) }, PhantomData)
    }
}
